/*
 * kwsim run and kwsim replay: one deterministic run of a scenario file.
 *
 *   kwsim run FILE [--seed N] [--kernel v4.9|mainline|tree:LABEL] [--strategy faithful|random]
 *                  [--trace text|json] [-o OUT] [--json] [--save-schedule OUT]
 *   kwsim replay FILE [--trace text|json] [-o OUT] [--json]
 *
 * Exit status: 0 the expectations hold, 1 they do not, 2 bad input.
 */
#include "cmd_run.h"
#include "scenario/scn.h"
#include "trace_view.h"

#include <model.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct run_opts {
	const char *file;
	const char *kernel;
	const char *trace;
	const char *out;
	const char *save;
	bool json;
	bool seed_set;
	uint64_t seed;
	int strategy;		/* -1: as the scenario says */
};

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "kwsim %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try 'kwsim help')\n");
	return 2;
}

static int parse_opts(const char *cmd, int argc, char **argv, struct run_opts *o, bool replay)
{
	memset(o, 0, sizeof(*o));
	o->strategy = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "--seed") || !strcmp(a, "--kernel") || !strcmp(a, "--trace") ||
			     !strcmp(a, "-o") || !strcmp(a, "--save-schedule") ||
			     !strcmp(a, "--strategy");

		if (takes && !v)
			return usage_error(cmd, "option %s needs a value", a);
		if (replay && (!strcmp(a, "--seed") || !strcmp(a, "--kernel") ||
			       !strcmp(a, "--strategy") || !strcmp(a, "--save-schedule")))
			return usage_error(cmd, "option %s does not apply to a replay", a);
		if (!strcmp(a, "--seed")) {
			char *end;

			errno = 0;
			o->seed = strtoull(v, &end, 10);
			if (errno || *end || !*v || v[0] == '-')
				return usage_error(cmd, "--seed wants a non-negative number, not '%s'", v);
			o->seed_set = true;
		} else if (!strcmp(a, "--kernel")) {
			if (!kw_model_find(v))
				return usage_error(cmd, "--kernel must be v4.9, mainline or a built "
						   "tree:LABEL or tree:DIR, not '%s'", v);
			o->kernel = v;
		} else if (!strcmp(a, "--strategy")) {
			if (!strcmp(v, "faithful"))
				o->strategy = SIM_STRATEGY_FAITHFUL;
			else if (!strcmp(v, "random"))
				o->strategy = SIM_STRATEGY_RANDOM;
			else
				return usage_error(cmd, "--strategy must be faithful or random, not '%s'", v);
		} else if (!strcmp(a, "--trace")) {
			if (strcmp(v, "text") && strcmp(v, "json"))
				return usage_error(cmd, "--trace must be text or json, not '%s'", v);
			o->trace = v;
		} else if (!strcmp(a, "-o")) {
			o->out = v;
		} else if (!strcmp(a, "--save-schedule")) {
			o->save = v;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: kwsim %s\n(the options are explained by 'kwsim help')\n",
			       replay ? "replay FILE [--trace text|json] [-o OUT] [--json]"
				      : "run FILE [--seed N] [--kernel NAME] [--strategy faithful|random]\n"
					"                 [--trace text|json] [-o OUT] [--json] "
					"[--save-schedule OUT]");
			return -1;
		} else if (a[0] == '-' && a[1]) {
			return usage_error(cmd, "unknown option '%s'", a);
		} else if (o->file) {
			return usage_error(cmd, "one scenario file at a time, not also '%s'", a);
		} else {
			o->file = a;
			continue;
		}
		i++;
	}
	if (!o->file)
		return usage_error(cmd, "%s", "needs a scenario file");
	if (o->out && !o->trace)
		return usage_error(cmd, "%s", "-o names the trace's file: give --trace too");
	if (o->json && o->trace && !o->out)
		return usage_error(cmd, "%s", "with --json, write the trace to a file with -o");
	return 0;
}

static int write_trace(const struct run_opts *o, const struct scn *s, const struct kw_model *m)
{
	struct trace_view_opts vo = { .hz = s->cfg.hz, .ncpus = s->cfg.ncpus, .title = s->name };
	FILE *f = stdout;

	(void)m;
	if (o->out && !(f = fopen(o->out, "w"))) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	if (!strcmp(o->trace, "text"))
		trace_write_text(f, sim_trace_records(), sim_trace_count(), &vo);
	else
		trace_write_json(f, sim_trace_records(), sim_trace_count(), &vo);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	return 0;
}

static int save_schedule(const char *path, const struct scn *s)
{
	FILE *f = fopen(path, "w");

	if (!f || scn_write_with_schedule(f, s) || fclose(f)) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return 2;
	}
	return 0;
}

static int run_file(const char *cmd, const struct run_opts *o, bool replay)
{
	struct scn *s = scn_load(o->file, stderr);
	const struct kw_model *m;
	struct scn_run run;
	int rc;

	if (!s)
		return 2;
	if (replay) {
		if (!s->has_schedule) {
			fprintf(stderr, "%s:1:1: error: nothing to replay: the file has no schedule "
				"section (kwsim run --save-schedule writes one)\n", s->path);
			scn_free(s);
			return 2;
		}
		s->cfg.strategy = SIM_STRATEGY_REPLAY;
	}
	if (o->seed_set)
		s->cfg.seed = o->seed;
	if (o->strategy >= 0)
		s->cfg.strategy = (enum sim_strategy)o->strategy;
	s->cfg.keep_trace = true;	/* the summary shows the machine's steps too */
	m = kw_model_find(o->kernel ? o->kernel : s->kernel);
	if (scn_run(s, m, &run, stderr)) {
		sim_fini();
		scn_run_free(&run);
		scn_free(s);
		return 2;
	}
	if (o->json) {
		scn_print_json(stdout, s, &run);
	} else {
		scn_print_summary(stdout, s, &run);
		scn_print_result(stdout, s, &run);
	}
	rc = scn_expectations_hold(s, &run) ? 0 : 1;
	if (run.end == SIM_END_DIVERGED) {
		fprintf(stderr, "%s: error: the schedule no longer fits the scenario: %s%s%s\n",
			s->path, sim_divergence(), sim_divergence_where() ? ", " : "",
			sim_divergence_where() ? sim_divergence_where() : "");
		rc = 2;
	}
	if (o->trace && rc != 2 && write_trace(o, s, m))
		rc = 2;
	if (o->save && rc != 2 && save_schedule(o->save, s))
		rc = 2;
	fflush(stdout);
	(void)cmd;
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
	return rc;
}

int kwsim_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_opts("run", argc, argv, &o, false);

	if (rc)
		return rc < 0 ? 0 : rc;	/* -1: --help was answered */
	return run_file("run", &o, false);
}

int kwsim_replay(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_opts("replay", argc, argv, &o, true);

	if (rc)
		return rc < 0 ? 0 : rc;	/* -1: --help was answered */
	return run_file("replay", &o, true);
}
