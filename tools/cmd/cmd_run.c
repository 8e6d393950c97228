/*
 * kwsim run and kwsim replay: one deterministic run of a scenario file.
 *
 *   kwsim run FILE [--seed N] [--kernel v4.9|mainline|tree:LABEL] [--strategy faithful|random]
 *                  [--set NAME=VALUE]... [--trace text|json] [-o OUT] [--json]
 *                  [--trace-filter SPEC]... [--trace-limit SIZE] [--save-schedule OUT]
 *                  [--timeline [--width N] [--from T] [--to T] [--around-finding]
 *                              [--lanes cpus|tasks|both]]
 *   kwsim replay FILE [--trace text|json] [--trace-filter SPEC]... [--trace-limit SIZE]
 *                     [-o OUT] [--json] [--timeline ...]
 *
 * A run's settings come from the init block, then from the file's schedule
 * section, then from the command line: --set NAME=VALUE gives any of them
 * (the init block's names and values), --seed, --kernel and --strategy the
 * common three. A seed means the random strategy unless one is named, and a
 * seed with --strategy faithful is a usage error. --save-schedule writes
 * every setting the run had, with its decisions; replay applies them and
 * follows the decisions, each checked against the strategy the schedule
 * names, so it prints what the run printed. --trace-filter and --trace-limit
 * shape the trace view only (trace_filter.h, trace_view.h): the run, its
 * summary and its hash are the same with them or without.
 *
 * --timeline draws the run (timeline.c) after the summary and before the
 * result block; "What ran" stays, since it says what each call returned.
 * It is for people: with --json it is a usage error.
 *
 * Exit status (docs/commands.md "Exit codes", 'kwsim help'):
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
#include "cmd/cmd_run.h"
#include "lib/util.h"
#include "html/html.h"
#include "lib/outfile.h"
#include "kmod/kmod.h"
#include "scenario/scn.h"
#include "view/trace_view.h"

#include <model.h>

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct run_opts {
	const char *file;
	const char *trace;
	const char *out;
	const char *save;
	const char *html;	/* export: the page's file */
	const char *module;	/* export: the kernel module's directory */
	const char *steer;	/* export --module: the schedule whose run it is steered by */
	size_t max_events;	/* export: the document's cap (0: HTML_MAX_RECORDS) */
	bool json;
	bool timeline;
	struct trace_timeline_opts tl;	/* with timeline */
	bool around;		/* --around-finding: tl's window from a quiet first run */
	struct trace_filter *filter;	/* --trace-filter, every one given */
	unsigned long long limit;	/* --trace-limit; 0: none */
	bool limit_given;
	struct scn_set *sets;	/* --set, --seed, --kernel, --strategy, in order */
	size_t nsets;
};

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
	trace_filter_free(o->filter);
	o->filter = NULL;
}

#define TIMELINE_MIN_WIDTH	60
#define TIMELINE_MAX_WIDTH	1000
#define STR_(x) #x
#define STR(x) STR_(x)

/*
 * The timeline's width when --width does not say: the terminal's, else 100;
 * its colour: on a terminal, unless NO_COLOR is set (no-color.org).
 */
static void timeline_defaults(struct trace_timeline_opts *tl, bool width_given)
{
	bool tty = isatty(STDOUT_FILENO);
	const char *no_color = getenv("NO_COLOR");
	struct winsize ws;

	tl->color = tty && !(no_color && no_color[0]);
	if (width_given)
		return;
	tl->width = 100;
	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		tl->width = ws.ws_col < TIMELINE_MIN_WIDTH ? TIMELINE_MIN_WIDTH :
			    ws.ws_col > TIMELINE_MAX_WIDTH ? TIMELINE_MAX_WIDTH : ws.ws_col;
}

#define NOT_MINE 1	/* an option function's answer: the option is another's */

/* --seed, --kernel, --strategy, --set: the run's settings, kept in order for scn_set(). */
static int setting_opt(const char *cmd, struct run_opts *o, const char *a, const char *v)
{
	if (!strcmp(a, "--seed")) {
		char *end;

		errno = 0;
		(void)strtoull(v, &end, 10);
		if (errno || *end || !*v || v[0] == '-')
			return cmd_usage_error(cmd, "--seed wants a non-negative number, not '%s'", v);
		add_set(o, "seed", a, v);
	} else if (!strcmp(a, "--kernel")) {
		if (!kw_model_find(v))
			return cmd_usage_error(cmd, "--kernel: no variant '%s': this kwsim has %s",
					   v, scn_kernels_built());
		add_set(o, "kernel", a, v);
	} else if (!strcmp(a, "--strategy")) {
		if (strcmp(v, "faithful") && strcmp(v, "random"))
			return cmd_usage_error(cmd, "--strategy must be faithful or random, not '%s'", v);
		add_set(o, "strategy", a, v);
	} else if (!strcmp(a, "--set")) {
		add_set(o, NULL, a, v);
	} else {
		return NOT_MINE;
	}
	return 0;
}

/* export's own options; the views of a run are not export's. */
static int export_opt(const char *cmd, struct run_opts *o, const char *a, const char *v)
{
	static const char *const not_export[] = {
		"--trace", "-o", "--save-schedule", "--json", "--trace-filter", "--trace-limit",
		"--timeline", "--width", "--from", "--to", "--lanes", "--around-finding", NULL,
	};

	if (!strcmp(a, "--html")) {
		o->html = v;
	} else if (!strcmp(a, "--module")) {
		o->module = v;
	} else if (!strcmp(a, "--steer")) {
		o->steer = v;
	} else if (!strcmp(a, "--max-events")) {
		char *end;

		errno = 0;
		o->max_events = strtoull(v, &end, 10);
		if (errno || *end || !*v || v[0] == '-' || !o->max_events)
			return cmd_usage_error(cmd, "--max-events wants a positive number, not '%s'", v);
	} else if (cmd_takes_value(a, not_export)) {
		return cmd_usage_error(cmd, "option %s does not apply to export", a);
	} else {
		return NOT_MINE;
	}
	return 0;
}

/* --width, --from, --to, --lanes: the timeline's shape; *given gets their bits 1, 2, 4, 8. */
static int timeline_opt(const char *cmd, struct run_opts *o, const char *a, const char *v,
			unsigned int *given)
{
	if (!strcmp(a, "--width")) {
		char *end;
		long w;

		errno = 0;
		w = strtol(v, &end, 10);
		if (errno || *end || !*v || w < TIMELINE_MIN_WIDTH || w > TIMELINE_MAX_WIDTH)
			return cmd_usage_error(cmd, "--width wants a number of columns from "
					   STR(TIMELINE_MIN_WIDTH) " to " STR(TIMELINE_MAX_WIDTH)
					   ", not '%s'", v);
		o->tl.width = (int)w;
		*given |= 1;
	} else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
		uint64_t ns;

		if (scn_parse_time(v, &ns))
			return cmd_usage_error(cmd, !strcmp(a, "--from") ?
					   "--from wants a time such as 5ms, 100us or 0, not '%s'" :
					   "--to wants a time such as 5ms, 100us or 0, not '%s'", v);
		*(!strcmp(a, "--from") ? &o->tl.from : &o->tl.to) = ns;
		*given |= !strcmp(a, "--from") ? 2 : 4;
	} else if (!strcmp(a, "--lanes")) {
		if (strcmp(v, "cpus") && strcmp(v, "tasks") && strcmp(v, "both"))
			return cmd_usage_error(cmd, "--lanes must be cpus, tasks or both, not '%s'", v);
		o->tl.cpu_lanes = strcmp(v, "tasks") != 0;
		o->tl.task_lanes = strcmp(v, "cpus") != 0;
		*given |= 8;
	} else {
		return NOT_MINE;
	}
	return 0;
}

/* --trace, --trace-filter, --trace-limit, -o, --save-schedule: the trace and the schedule. */
static int trace_opt(const char *cmd, struct run_opts *o, const char *a, const char *v)
{
	if (!strcmp(a, "--trace")) {
		if (strcmp(v, "text") && strcmp(v, "json"))
			return cmd_usage_error(cmd, "--trace must be text or json, not '%s'", v);
		o->trace = v;
	} else if (!strcmp(a, "--trace-filter")) {
		char err[256];

		if (trace_filter_parse(&o->filter, v, err, sizeof(err)))
			return cmd_usage_error(cmd, "--trace-filter: %s", err);
	} else if (!strcmp(a, "--trace-limit")) {
		/* below the header's size a limit could hold no event */
		if (trace_limit_parse(v, &o->limit) || (o->limit && o->limit < 4096))
			return cmd_usage_error(cmd, "--trace-limit wants a size of at least 4K "
					   "(e.g. 10M, 512K) or none, not '%s'", v);
		o->limit_given = true;
	} else if (!strcmp(a, "-o")) {
		o->out = v;
	} else if (!strcmp(a, "--save-schedule")) {
		o->save = v;
	} else {
		return NOT_MINE;
	}
	return 0;
}

/* --timeline, --around-finding, --json (bit 16 of *given for --around-finding). */
static bool flag_opt(struct run_opts *o, const char *a, unsigned int *given)
{
	if (!strcmp(a, "--timeline")) {
		o->timeline = true;
	} else if (!strcmp(a, "--around-finding")) {
		o->around = true;
		*given |= 16;
	} else if (!strcmp(a, "--json")) {
		o->json = true;
	} else {
		return false;
	}
	return true;
}

/* The options that need or exclude each other, once all are read. */
static int check_opts(const char *cmd, struct run_opts *o, unsigned int tl_opts)
{
	if (!o->file)
		return cmd_usage_error(cmd, "%s", "needs a scenario file");
	if (!strcmp(cmd, "export") && !o->html == !o->module)
		return cmd_usage_error(cmd, "%s", "needs --html OUT.html (the page's file) or --module "
				   "DIR (a kernel module's), one of them");
	if (o->steer && !o->module)
		return cmd_usage_error(cmd, "%s", "--steer SCHEDULE steers a kernel module: it needs "
				   "--module DIR");
	if (o->module && (o->nsets || o->max_events))
		return cmd_usage_error(cmd, "%s", "--module takes no --set, --seed, --kernel, --strategy "
				   "or --max-events: the module runs on the kernel it is loaded into");
	if (o->out && !o->trace)
		return cmd_usage_error(cmd, "%s", "-o names the trace's file: give --trace too");
	if ((o->filter || o->limit_given) && !o->trace)
		return cmd_usage_error(cmd, "%s", "--trace-filter and --trace-limit shape the trace: "
				   "give --trace too");
	if (o->json && o->trace && !o->out)
		return cmd_usage_error(cmd, "%s", "with --json, write the trace to a file with -o");
	if (tl_opts && !o->timeline)
		return cmd_usage_error(cmd, "%s", "--width, --from, --to, --around-finding and --lanes "
				   "shape the timeline: give --timeline too");
	if (o->around && (tl_opts & 6))
		return cmd_usage_error(cmd, "%s", "--around-finding chooses the window itself: give it "
				   "or --from/--to, not both");
	if (o->timeline && o->json)
		return cmd_usage_error(cmd, "%s", "--timeline draws for people, --json is for programs: "
				   "give one (a viewer reads --trace json -o FILE)");
	if (o->timeline && o->tl.to && o->tl.to <= o->tl.from)
		return cmd_usage_error(cmd, "%s", "--to must come after --from");
	return 0;
}

#define EXPORT_USAGE								\
	"export FILE --html OUT.html [--seed N] [--kernel NAME]\n"		\
	"                 [--strategy faithful|random] [--set NAME=VALUE]..."	\
	" [--max-events N]\n"							\
	"       kwsim export FILE --module DIR [--steer SCHEDULE]"
#define REPLAY_USAGE								\
	"replay FILE [--trace text|json] [--trace-filter SPEC]..."		\
	" [--trace-limit SIZE]\n                    [-o OUT] [--json]"		\
	" [--timeline [--width N] [--from T] [--to T]"				\
	" [--around-finding] [--lanes cpus|tasks|both]]"
#define RUN_USAGE								\
	"run FILE [--seed N] [--kernel NAME] [--strategy faithful|random]\n"	\
	"                 [--set NAME=VALUE]... [--trace text|json] [-o OUT]"	\
	" [--json]\n                 [--trace-filter SPEC]... "			\
	"[--trace-limit SIZE] [--save-schedule OUT]\n"				\
	"                 [--timeline [--width N] [--from T] [--to T]"		\
	" [--around-finding]\n                             "			\
	"[--lanes cpus|tasks|both]]"

static const char *const run_valued[] = {
	"--seed", "--kernel", "--trace", "-o", "--save-schedule", "--strategy", "--set",
	"--width", "--from", "--to", "--lanes", "--html", "--max-events", "--module", "--steer",
	"--trace-filter", "--trace-limit", NULL,
};

static int parse_opts(const char *cmd, int argc, char **argv, struct run_opts *o, bool replay)
{
	bool export = !strcmp(cmd, "export");
	/* --width, --from, --to, --lanes, --around-finding given: bits 1, 2, 4, 8, 16 */
	unsigned int tl_opts = 0;
	int rc;

	memset(o, 0, sizeof(*o));
	o->tl.cpu_lanes = true;
	o->limit = TRACE_LIMIT_DEFAULT;
	o->sets = cmd_set_slots(argc, sizeof(*o->sets));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (cmd_option_value(cmd, argc, argv, i, run_valued, &v))
			return 2;
		/* a replay's settings are the schedule's: anything else would not reproduce it */
		if (replay && (!strcmp(a, "--seed") || !strcmp(a, "--kernel") ||
			       !strcmp(a, "--strategy") || !strcmp(a, "--set") ||
			       !strcmp(a, "--save-schedule")))
			return cmd_usage_error(cmd, "option %s does not apply to a replay", a);
		rc = setting_opt(cmd, o, a, v);
		if (rc == NOT_MINE && export)
			rc = export_opt(cmd, o, a, v);
		if (rc == NOT_MINE)
			rc = trace_opt(cmd, o, a, v);
		if (rc == NOT_MINE)
			rc = timeline_opt(cmd, o, a, v, &tl_opts);
		if (rc == NOT_MINE) {
			if (flag_opt(o, a, &tl_opts))
				continue;
			rc = cmd_other_arg(cmd, a, &o->file, "scenario",
					   export ? EXPORT_USAGE : replay ? REPLAY_USAGE : RUN_USAGE);
			if (rc)
				return rc;
			continue;
		}
		if (rc)
			return rc;
		i++;
	}
	rc = check_opts(cmd, o, tl_opts);
	if (rc)
		return rc;
	if (o->timeline)
		timeline_defaults(&o->tl, tl_opts & 1);
	/* the settings' names and values, before any file is read */
	return scn_set(NULL, cmd, o->sets, o->nsets, stderr);
}


/*
 * Where a run's output goes while it runs: what ran to standard output
 * (text or JSON), the trace view to its file. Every record and every line of
 * the account passes through here in the machine's order, and every
 * RELEASE_EVERY of them what the machine's watermark has passed is written
 * out, so memory holds a window of the run, not the run.
 */
#define RELEASE_EVERY 64

struct run_out {
	struct scn_timeline *tl;	/* NULL: export prints no account */
	struct html_doc *html;
	struct trace_text *text;
	struct trace_json *json;
	struct trace_timeline *timeline;
	size_t since;		/* records and lines since the last release */
	unsigned long long lost;	/* trace events the limit cut off */
	uint64_t released;	/* the watermark of the last release */
	struct run_stats st;
};

static size_t held(const struct run_out *ro)
{
	return (ro->tl ? scn_timeline_held(ro->tl) : 0) +
	       (ro->text ? trace_text_held(ro->text) : 0) +
	       (ro->json ? trace_json_held(ro->json) : 0) + (ro->html ? html_doc_held(ro->html) : 0) +
	       (ro->timeline ? trace_timeline_held(ro->timeline) : 0);
}

static void release(struct run_out *ro)
{
	uint64_t w = sim_trace_watermark();
	size_t n = held(ro);

	if (n > ro->st.peak_held)
		ro->st.peak_held = n;
	/* 0 outside the machine's run: what was released stays released */
	if (w < ro->released)
		w = ro->released;
	ro->released = w;
	ro->since = 0;
	if (ro->tl)
		scn_timeline_release(ro->tl, w);
	if (ro->html)
		html_doc_release(ro->html, w);
	if (ro->text)
		trace_text_release(ro->text, w);
	if (ro->json)
		trace_json_release(ro->json, w);
	if (ro->timeline)
		trace_timeline_release(ro->timeline, w);
}

static void on_record(void *arg, const struct sim_rec *r)
{
	struct run_out *ro = arg;

	/* what was released must not be preceded: the watermark keeps its promise */
	assert(r->time >= ro->released);
	assert(r->type != REC_LOCK_CONTENDED || r->time - r->b >= ro->released);
	ro->st.records++;
	if (ro->tl)
		scn_timeline_record(ro->tl, r);
	if (ro->html)
		html_doc_record(ro->html, r);
	if (ro->text)
		trace_text_record(ro->text, r);
	if (ro->json)
		trace_json_record(ro->json, r);
	if (ro->timeline)
		trace_timeline_record(ro->timeline, r);
	if (++ro->since == RELEASE_EVERY)
		release(ro);
}

static void on_event(void *arg, const struct scn_event *ev)
{
	struct run_out *ro = arg;

	assert(ev->time >= ro->released);
	ro->st.lines++;
	if (ro->tl)
		scn_timeline_event(ro->tl, ev);
	if (ro->html)
		html_doc_event(ro->html, ev);
	if (++ro->since == RELEASE_EVERY)
		release(ro);
}

/* A scenario line a context starts: only the browser's document follows them. */
static void on_line(void *arg, const struct scn_event *ev)
{
	struct run_out *ro = arg;

	assert(ev->time >= ro->released);
	html_doc_line(ro->html, ev);
	if (++ro->since == RELEASE_EVERY)
		release(ro);
}

static int open_trace(const struct run_opts *o, const struct scn *s, struct run_out *ro)
{
	struct trace_view_opts vo = { .hz = s->cfg.hz, .ncpus = s->cfg.ncpus, .title = s->name,
				      .filter = o->filter, .limit = o->limit, .lost = &ro->lost };

	if (!o->trace)
		return 0;
	if (!strcmp(o->trace, "text"))
		ro->text = trace_text_begin(&vo);
	else
		ro->json = trace_json_begin(&vo);
	if (!ro->text && !ro->json) {
		fprintf(stderr, "kwsim: cannot make a temporary file for the trace: %s\n",
			strerror(errno));
		return 2;
	}
	return 0;
}

/* Write the trace view out (after the summary, when both go to stdout), or drop it. */
static int close_trace(const struct run_opts *o, struct run_out *ro, bool write, FILE *out)
{
	struct outfile file = { 0 };
	FILE *f = NULL;
	int rc;

	if (!ro->text && !ro->json)
		return 0;
	if (write && !(f = o->out ? outfile_open(&file, o->out) : out)) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", o->out, strerror(errno));
		write = false;
	}
	rc = ro->text ? trace_text_end(ro->text, f) : trace_json_end(ro->json, f);
	ro->text = NULL;
	ro->json = NULL;
	/* standard output is checked once, at the end (kwsim.c) */
	if (f && f != out && outfile_close(&file, !rc))
		rc = -1;
	if (rc) {
		fprintf(stderr, "kwsim: cannot write %s: %s\n", o->out ? o->out : "the trace",
			strerror(errno));
		return 2;
	}
	if (write && ro->lost)
		fprintf(stderr, "kwsim: the trace reached --trace-limit %llu bytes: its last %llu "
			"events are not in it\n", o->limit, ro->lost);
	return write ? 0 : 2;
}

static int save_schedule(const char *path, const struct scn *s, const struct scn_run *run)
{
	struct outfile out;
	FILE *f = outfile_open(&out, path);

	if (!f || (scn_write_with_schedule(f, s, run, NULL), outfile_close(&out, true))) {
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

/* Run s once, what ran to out as it runs; s is freed. */
static int run_scn(struct scn *s, const struct run_opts *o, FILE *out, struct run_stats *st)
{
	struct run_out ro = { 0 };
	const struct kw_model *m;
	struct scn_run run = { .on_event = on_event, .event_arg = &ro };
	int rc;

	/* records stream through on_record(): none is kept, nor the log unless saved */
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = !o->save;
	m = kw_model_find(s->kernel);	/* the parser made sure there is one */
	if (open_trace(o, s, &ro)) {
		scn_free(s);
		return 2;
	}
	if (o->timeline) {
		struct trace_view_opts vo = { .hz = s->cfg.hz, .ncpus = s->cfg.ncpus };
		struct trace_timeline_opts tl = o->tl;

		if (o->around && timeline_around_finding(s, m, &tl) < 0) {
			close_trace(o, &ro, false, out);
			sim_fini();
			scn_free(s);
			return 2;
		}
		ro.timeline = trace_timeline_begin(&vo, &tl);
	}
	ro.tl = scn_timeline_begin(out, s, m, o->json);
	sim_trace_set_sink(on_record, &ro);
	rc = scn_run(s, m, &run, stderr);
	scn_timeline_end(ro.tl);
	if (st)
		*st = ro.st;
	if (rc) {
		if (ro.timeline)
			trace_timeline_end(ro.timeline, NULL);
		close_trace(o, &ro, false, out);
		sim_fini();
		scn_run_free(&run);
		scn_free(s);
		return 2;
	}
	if (o->json) {
		scn_print_json(out, s, &run);
	} else {
		scn_print_summary(out, s, &run);
		/* the picture under the findings it marks, before the verdict */
		if (ro.timeline)
			trace_timeline_end(ro.timeline, out);
		scn_print_result(out, s, &run);
	}
	rc = exit_status(s, &run);
	if (run.end == SIM_END_DIVERGED) {
		fprintf(stderr, "%s: error: the schedule no longer fits the scenario: %s\n",
			s->path, run.divergence);
	}
	if (close_trace(o, &ro, rc != 2, out))
		rc = 2;
	if (o->save && rc != 2 && save_schedule(o->save, s, &run))
		rc = 2;
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
	return rc;
}

static int run_file(const char *cmd, const struct run_opts *o, bool replay)
{
	struct scn *s = scn_load(o->file, stderr);

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
	return run_scn(s, o, stdout, NULL);
}

/*
 * kwsim export: one run (a replay, when the file has a schedule) written as
 * the browser timeline page, its document streamed into the file as the
 * run goes. The status says whether the page was written, not what the run
 * found: the page shows that.
 */
static int export_scn(struct scn *s, const struct run_opts *o)
{
	struct run_out ro = { 0 };
	struct scn_run run = { .on_event = on_event, .on_line = on_line, .event_arg = &ro };
	const struct kw_model *m = kw_model_find(s->kernel);
	struct outfile out;
	FILE *f = outfile_open(&out, o->html);
	char *shown;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "kwsim export: cannot write %s: %s\n", o->html, strerror(errno));
		scn_free(s);
		return 2;
	}
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = true;
	/* the page is handed to others: it names the file, not the author's directories */
	shown = scn_shown_path(s->path);
	free(s->path);
	s->path = shown;
	ro.html = html_doc_begin(s, m, o->max_events);
	html_doc_watch(ro.html, &run);
	html_write_page_head(f, s->name);
	html_doc_head(ro.html, f, true);
	html_doc_output(ro.html, f);
	sim_trace_set_sink(on_record, &ro);
	if (scn_run(s, m, &run, stderr)) {
		rc = 2;
	} else if (run.end == SIM_END_DIVERGED) {
		fprintf(stderr, "%s: error: the schedule no longer fits the scenario: %s\n",
			o->file, run.divergence);
		rc = 2;
	} else {
		html_doc_end(ro.html, f, &run, true);
		html_write_page_tail(f);
	}
	/* a failed run leaves OUT as it was: outfile.h */
	if (outfile_close(&out, !rc) && !rc) {
		fprintf(stderr, "kwsim export: cannot write %s: %s\n", o->html, strerror(errno));
		rc = 2;
	}
	if (!rc)
		printf("kwsim export: wrote %s: %zu records, %zu finding%s, end %s at %llu ns\n",
		       o->html, ro.st.records, run.nfindings, run.nfindings == 1 ? "" : "s",
		       sim_end_name(run.end),
		       (unsigned long long)run.end_time);
	html_doc_free(ro.html);
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
	return rc;
}

int kwsim_export(int argc, char **argv)
{
	struct run_opts o;
	struct scn *s;
	int rc = parse_opts("export", argc, argv, &o, false);

	if (rc) {
		free_opts(&o);
		return rc < 0 ? 0 : rc;	/* -1: --help was answered */
	}
	s = scn_load(o.file, stderr);
	if (s && o.module) {
		rc = kmod_export(s, o.module, o.steer, KWSIM_VERSION, stderr);
		scn_free(s);
		free_opts(&o);
		return rc;
	}
	if (!s) {
		rc = 2;
	} else if (s->has_schedule) {
		/* a replay file (or explore's finding) replays its schedule: nothing may change it */
		if (o.nsets) {
			fprintf(stderr, "kwsim export: %s has a schedule, which export replays: %s "
				"does not apply (try 'kwsim help')\n", s->path, o.sets[0].said);
			scn_free(s);
			rc = 2;
		} else {
			s->replay = true;
			if (!s->log_strategy)
				s->cfg.strategy = SIM_STRATEGY_REPLAY;
		}
	} else if (scn_set(s, "export", o.sets, o.nsets, stderr)) {
		scn_free(s);
		rc = 2;
	}
	if (!rc)
		rc = export_scn(s, &o);
	free_opts(&o);
	return rc;
}

int kwsim_run_scenario(struct scn *s, const char *trace, FILE *out, struct run_stats *st)
{
	/* bench measures the whole trace's cost: no limit */
	struct run_opts o = { .file = s->path, .trace = trace, .out = "/dev/null" };

	return run_scn(s, &o, out, st);
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
