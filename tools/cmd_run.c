/*
 * kwsim run and kwsim replay: one deterministic run of a scenario file.
 *
 *   kwsim run FILE [--seed N] [--kernel v4.9|mainline|tree:LABEL] [--strategy faithful|random]
 *                  [--set NAME=VALUE]... [--trace text|json] [-o OUT] [--json]
 *                  [--save-schedule OUT]
 *   kwsim replay FILE [--trace text|json] [-o OUT] [--json]
 *
 * A run's settings come from the init block, then from the file's schedule
 * section, then from the command line: --set NAME=VALUE gives any of them
 * (the init block's names and values), --seed, --kernel and --strategy the
 * common three. A seed means the random strategy unless one is named, and a
 * seed with --strategy faithful is a usage error. --save-schedule writes
 * every setting the run had, with its decisions; replay applies them and
 * follows the decisions, each checked against the strategy the schedule
 * names, so it prints what the run printed.
 *
 * Exit status (README "Exit codes", 'kwsim help'):
 *   0  the expectations hold: the condition's verdict is Ok (without a
 *      condition: nothing was found)
 *   1  they do not: the verdict is No (without a condition: findings)
 *   2  bad input or usage, a schedule that no longer fits, or output that
 *      could not be written
 *   3  the run was cut short by a limit (time_limit, max_steps,
 *      max_decisions): the verdict it printed is about a partial run
 * A deadlock, a fatal finding or a hung task ends a run; it does not cut it
 * short. What the machine stopped in is part of the state observed (End:,
 * and a condition can name deadlock, hung or bug), so the status is the
 * verdict's: a script tells "the race showed" (0 or 1 by the condition)
 * from "the run did not finish" (3).
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
	const char *trace;
	const char *out;
	const char *save;
	bool json;
	struct scn_set *sets;	/* --set, --seed, --kernel, --strategy, in order */
	size_t nsets;
};

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "kwsim %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try 'kwsim help')\n");
	return 2;
}

/*
 * A setting from an option: NAME=VALUE for the parser (v itself for --set,
 * name NULL), and the option as the user wrote it, for messages.
 */
static void add_set(struct run_opts *o, const char *name, const char *opt, const char *v)
{
	char *buf = malloc((name ? strlen(name) : 0) + strlen(opt) + 2 * strlen(v) + 4);

	if (!buf)
		abort();
	o->sets[o->nsets].arg = buf;
	buf += sprintf(buf, "%s%s%s", name ? name : "", name ? "=" : "", v) + 1;
	sprintf(buf, "%s %s", opt, v);
	o->sets[o->nsets++].said = buf;
}

static void free_opts(struct run_opts *o)
{
	for (size_t i = 0; i < o->nsets; i++)
		free((char *)o->sets[i].arg);
	free(o->sets);
	o->sets = NULL;
	o->nsets = 0;
}

static int parse_opts(const char *cmd, int argc, char **argv, struct run_opts *o, bool replay)
{
	memset(o, 0, sizeof(*o));
	o->sets = calloc((size_t)argc, sizeof(*o->sets));
	if (!o->sets)
		abort();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "--seed") || !strcmp(a, "--kernel") || !strcmp(a, "--trace") ||
			     !strcmp(a, "-o") || !strcmp(a, "--save-schedule") ||
			     !strcmp(a, "--strategy") || !strcmp(a, "--set");

		if (takes && !v)
			return usage_error(cmd, "option %s needs a value", a);
		/* a replay's settings are the schedule's: anything else would not reproduce it */
		if (replay && (!strcmp(a, "--seed") || !strcmp(a, "--kernel") ||
			       !strcmp(a, "--strategy") || !strcmp(a, "--set") ||
			       !strcmp(a, "--save-schedule")))
			return usage_error(cmd, "option %s does not apply to a replay", a);
		if (!strcmp(a, "--seed")) {
			char *end;

			errno = 0;
			(void)strtoull(v, &end, 10);
			if (errno || *end || !*v || v[0] == '-')
				return usage_error(cmd, "--seed wants a non-negative number, not '%s'", v);
			add_set(o, "seed", a, v);
		} else if (!strcmp(a, "--kernel")) {
			if (!kw_model_find(v))
				return usage_error(cmd, "--kernel must be v4.9, mainline or a built "
						   "tree:LABEL or tree:DIR, not '%s'", v);
			add_set(o, "kernel", a, v);
		} else if (!strcmp(a, "--strategy")) {
			if (strcmp(v, "faithful") && strcmp(v, "random"))
				return usage_error(cmd, "--strategy must be faithful or random, not '%s'", v);
			add_set(o, "strategy", a, v);
		} else if (!strcmp(a, "--set")) {
			add_set(o, NULL, a, v);
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
					"                 [--set NAME=VALUE]... [--trace text|json] [-o OUT]"
					" [--json]\n                 [--save-schedule OUT]");
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
	/* the settings' names and values, before any file is read */
	return scn_set(NULL, cmd, o->sets, o->nsets, stderr);
}

/* Close a file written to: 0, or -1 with errno saying why a write to it failed. */
static int close_output(FILE *f)
{
	int failed = ferror(f), saved = errno;

	if (fclose(f))
		return -1;
	if (failed)
		errno = saved ? saved : EIO;
	return failed ? -1 : 0;
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
	/* standard output is checked once, at the end (kwsim.c) */
	if (f != stdout && close_output(f)) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	return 0;
}

static int save_schedule(const char *path, const struct scn *s)
{
	FILE *f = fopen(path, "w");

	/* close_output closes f whatever happens: never twice */
	if (!f || (scn_write_with_schedule(f, s), close_output(f))) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

/* The exit status: see the top of this file. */
static int exit_status(const struct scn *s, const struct scn_run *run)
{
	if (run->end == SIM_END_DIVERGED)
		return 2;
	if (scn_cut_short(run))
		return 3;
	return scn_expectations_hold(s, run) ? 0 : 1;
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
		/* the strategy the schedule names checks the log; without one the log alone decides */
		s->replay = true;
		if (!s->log_strategy)
			s->cfg.strategy = SIM_STRATEGY_REPLAY;
	} else if (scn_set(s, cmd, o->sets, o->nsets, stderr)) {
		scn_free(s);
		return 2;
	}
	s->cfg.keep_trace = true;	/* the summary shows the machine's steps too */
	m = kw_model_find(s->kernel);	/* the parser made sure there is one */
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
	rc = exit_status(s, &run);
	if (run.end == SIM_END_DIVERGED) {
		fprintf(stderr, "%s: error: the schedule no longer fits the scenario: %s%s%s\n",
			s->path, sim_divergence(), sim_divergence_where() ? ", " : "",
			sim_divergence_where() ? sim_divergence_where() : "");
	}
	if (o->trace && rc != 2 && write_trace(o, s, m))
		rc = 2;
	if (o->save && rc != 2 && save_schedule(o->save, s))
		rc = 2;
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
	return rc;
}

int kwsim_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_opts("run", argc, argv, &o, false);

	if (!rc)
		rc = run_file("run", &o, false);
	free_opts(&o);
	return rc < 0 ? 0 : rc;	/* -1: --help was answered */
}

int kwsim_replay(int argc, char **argv)
{
	struct run_opts o;
	int rc = parse_opts("replay", argc, argv, &o, true);

	if (!rc)
		rc = run_file("replay", &o, true);
	free_opts(&o);
	return rc < 0 ? 0 : rc;	/* -1: --help was answered */
}
