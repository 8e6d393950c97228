/*
 * kwsim shrink: a replay file made smaller while it shows what it shows.
 *
 *   kwsim shrink FILE [--out OUT] [--budget RUNS] [--finding KEY|N] [--json]
 *
 * FILE is replayed as kwsim replay would (its settings, its log); what the
 * run shows is the target: the finding a file of kwsim explore --out names
 * in its comment, else its first finding, the Nth (--finding N, from
 * 1), the one whose key is given (--finding 'deadlock kthread_flush_work:326
 * P1', as tools/explore/finding.h makes keys) or the condition's witness
 * (--finding condition); with no finding, the witness. The shrinker
 * (tools/explore/shrink.h) lowers its schedule's deviations, preemptions,
 * decisions and context switches and cuts the statements, programs and
 * declarations the target does not need, in at most RUNS runs (default
 * XSHRINK_BUDGET). The result goes to OUT, or to standard output; the
 * summary (the bug depth, the measures before and after) to standard output
 * with --out, else to standard error; --json prints it as one JSON object
 * and needs --out.
 *
 * Exit status: 0 the shrunk file is written; 2 bad input or usage: a file
 * without a schedule section or one that no longer fits, a run that shows
 * nothing to keep, output that could not be written.
 */
#include "cmd/cmd_shrink.h"
#include "lib/util.h"
#include "explore/finding.h"
#include "explore/shrink.h"
#include "lib/outfile.h"
#include "lib/json.h"
#include "scenario/scn.h"

#include <model.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct shrink_opts {
	const char *file, *out, *finding;
	uint64_t budget;
	bool json;
};

#define USAGE "shrink FILE [--out OUT] [--budget RUNS] [--finding KEY|N] [--json]"

static bool all_digits(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (!isdigit((unsigned char)*v))
			return false;
	return true;
}

static int parse_opts(int argc, char **argv, struct shrink_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = cmd_value(argc, argv, i);

		if (!strcmp(a, "--out") || !strcmp(a, "--budget") || !strcmp(a, "--finding")) {
			if (!v)
				return cmd_usage_error("shrink", "option %s needs a value", a);
			i++;
		}
		if (!strcmp(a, "--out")) {
			o->out = v;
		} else if (!strcmp(a, "--budget")) {
			char *end;

			errno = 0;
			o->budget = all_digits(v) ? strtoull(v, &end, 10) : 0;
			if (errno || !o->budget)
				return cmd_usage_error("shrink", "--budget wants a number of runs, 1 or more, not '%s'", v);
		} else if (!strcmp(a, "--finding")) {
			if (!*v)
				return cmd_usage_error("shrink", "%s", "--finding wants a finding's number or key");
			o->finding = v;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else {
			int rc = cmd_other_arg("shrink", a, &o->file, "replay", USAGE);

			if (rc)
				return rc;
		}
	}
	if (!o->file)
		return cmd_usage_error("shrink", "%s", "needs a replay file (kwsim run --save-schedule writes one)");
	if (o->json && !o->out)
		return cmd_usage_error("shrink", "%s", "with --json, write the shrunk file with --out");
	return 0;
}

static void measure_json(FILE *f, const char *name, const struct xshrink_measure *m)
{
	char *stalls = xshrink_stall_text(m);

	fprintf(f, "\"%s\":{\"deviations\":%zu,\"preemptions\":%zu,\"decisions\":%zu,"
		"\"switches\":%zu,\"statements\":%zu,\"programs\":%zu,\"declarations\":%zu,"
		"\"stalls\":%zu,\"stall_ns\":%llu,\"stall_durations\":",
		name, m->deviations, m->preemptions, m->decisions, m->switches, m->statements,
		m->programs, m->declarations, m->stalls, (unsigned long long)m->stall_ns);
	json_str(f, stalls);
	fputc('}', f);
	free(stalls);
}

static void summary_json(FILE *f, const struct shrink_opts *o, const struct xshrink_result *r)
{
	fputs("{\"file\":", f);
	json_str(f, o->file);
	fputs(",\"out\":", f);
	json_str(f, o->out);
	fputs(",\"target\":", f);
	json_str(f, r->target);
	fputs(",\"kept\":", f);
	json_str(f, r->kept);
	fprintf(f, ",\"depth\":{\"deviations\":%zu,\"preemptions\":%zu,\"minimal\":%s},",
		r->after.deviations, r->after.preemptions, r->depth_minimal ? "true" : "false");
	measure_json(f, "before", &r->before);
	fputc(',', f);
	measure_json(f, "after", &r->after);
	fprintf(f, ",\"runs\":%llu,\"budget\":%llu,\"budget_spent\":%s}\n",
		(unsigned long long)r->runs, (unsigned long long)o->budget,
		r->budget_spent ? "true" : "false");
}

static void summary_text(FILE *f, const struct shrink_opts *o, const struct xshrink_result *r)
{

	fputs("kwsim shrink: ", f);
	scn_put_text(f, o->file);
	fputs(" -> ", f);
	scn_put_text(f, o->out ? o->out : "standard output");
	fputs("\ntarget: ", f);
	scn_put_text(f, r->target);
	if (strcmp(r->kept, r->target)) {
		fputs(", in the shrunk file ", f);
		scn_put_text(f, r->kept);
	}
	fprintf(f, "\nbug depth %zu: %zu deviation%s from the faithful schedule, %zu preemption%s%s\n",
		r->after.deviations, r->after.deviations, r->after.deviations == 1 ? "" : "s",
		r->after.preemptions, r->after.preemptions == 1 ? "" : "s",
		r->depth_minimal ? " (the fewest)" : "");
	xshrink_print_measures(f, "  ", r);
	fprintf(f, "runs: %llu of a budget of %llu%s\n", (unsigned long long)r->runs,
		(unsigned long long)o->budget,
		r->budget_spent ? " (spent: a larger --budget may shrink further)" : "");
}

static int write_out(const struct shrink_opts *o, const struct xshrink_result *r)
{
	struct outfile out;
	FILE *f = o->out ? outfile_open(&out, o->out) : stdout;

	if (!f) {
		fprintf(stderr, "kwsim shrink: cannot write %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	fwrite(r->text, 1, r->len, f);
	if (f == stdout)	/* standard output is checked once, at the end (kwsim.c) */
		return 0;
	if (outfile_close(&out, true)) {
		fprintf(stderr, "kwsim shrink: cannot write %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	return 0;
}

/*
 * The finding a file from kwsim explore --out was written for, when its run
 * still shows it: its comment names it ("Found by kwsim explore: KEY @ where"),
 * and its run may show others first. NULL otherwise.
 */
static const char *named_finding(const struct scn *s, const struct scn_run *run, char *key,
				 size_t len)
{
	static const char mark[] = "(* Found by kwsim explore: ";
	const char *at = strstr(s->text, mark), *end;
	char bug[400];

	if (!at)
		return NULL;
	at += sizeof(mark) - 1;
	end = at + strcspn(at, "\n");
	for (const char *p = at; p + 3 <= end; p++)
		if (!strncmp(p, " @ ", 3)) {
			end = p;
			break;
		}
	snprintf(key, len, "%.*s", (int)(end - at), at);
	for (size_t i = 0; i < run->nfindings; i++)
		if (!strcmp(xf_bug(&run->findings[i], bug, sizeof(bug)), key))
			return key;
	return NULL;
}

/* Replay s as kwsim replay does, then shrink what the run shows. */
static int shrink_file(struct shrink_opts *o)
{
	struct scn_run found = { 0 };
	struct xshrink_result r = { 0 };
	const struct kw_model *m;
	struct scn *s = scn_load(o->file, stderr);
	char key[400];
	int rc = 2;

	if (!s)
		return 2;
	if (!s->has_schedule) {
		fprintf(stderr, "%s:1:1: error: nothing to shrink: the file has no schedule section "
			"(kwsim run --save-schedule writes one)\n", s->path);
		goto out;
	}
	s->replay = true;
	if (!s->log_strategy)
		s->cfg.strategy = SIM_STRATEGY_REPLAY;
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = false;
	m = kw_model_find(s->kernel);	/* the parser made sure there is one */
	if (scn_run(s, m, &found, stderr))
		goto out;
	if (found.end == SIM_END_DIVERGED) {
		fprintf(stderr, "%s: error: the schedule no longer fits the scenario: %s\n", s->path,
			found.divergence);
		goto out;
	}
	if (!o->finding)
		o->finding = named_finding(s, &found, key, sizeof(key));
	if (o->finding && all_digits(o->finding)) {
		unsigned long n = strtoul(o->finding, NULL, 10);

		if (!n || n > found.nfindings) {
			fprintf(stderr, "kwsim shrink: %s: the run shows %zu finding%s, no finding %s\n",
				s->path, found.nfindings, found.nfindings == 1 ? "" : "s", o->finding);
			goto out;
		}
		o->finding = xf_key(&found.findings[n - 1], key, sizeof(key));
	}
	if (xshrink(s, m, &found, o->finding, o->budget, &r)) {
		fprintf(stderr, "kwsim shrink: %s: ", s->path);
		scn_put_text(stderr, r.error);
		fputc('\n', stderr);
		goto out;
	}
	rc = write_out(o, &r);
	if (!rc && o->json)
		summary_json(stdout, o, &r);
	else if (!rc)
		summary_text(o->out ? stdout : stderr, o, &r);
out:
	xshrink_result_free(&r);
	sim_fini();
	scn_run_free(&found);
	scn_free(s);
	return rc;
}

int kwsim_shrink(int argc, char **argv)
{
	struct shrink_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;	/* -1: --help was answered */
	if (!o.budget)
		o.budget = XSHRINK_BUDGET;
	return shrink_file(&o);
}
