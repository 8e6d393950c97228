#ifndef KWSIM_CMD_RUN_H
#define KWSIM_CMD_RUN_H

#include <stddef.h>
#include <stdio.h>

int kwsim_run(int argc, char **argv);
int kwsim_replay(int argc, char **argv);
int kwsim_export(int argc, char **argv);

/* What a run's streamed output took in, and the most it held at once. */
struct run_stats {
	size_t records;		/* trace records */
	size_t lines;		/* lines of the interpreter's account */
	size_t peak_held;	/* records and lines waiting for the watermark, at most */
};

struct scn;
/*
 * `kwsim run` of a parsed scenario (freed here): what ran to out, the trace
 * view (trace: "text", "json" or NULL) to /dev/null. For kwsim bench.
 */
int kwsim_run_scenario(struct scn *s, const char *trace, FILE *out, struct run_stats *st);

struct kw_model;
struct trace_timeline_opts;
/*
 * --around-finding (timeline_focus.c): run s once, quietly, and set tl's
 * window to the neighbourhood of its first finding, or of its first overlap
 * (something starting on one CPU while an API call runs on another).
 * Returns 1 when it did, 0 for a run with neither (tl as it was), -1 when
 * the run failed (its message on stderr).
 */
int timeline_around_finding(const struct scn *s, const struct kw_model *m,
			    struct trace_timeline_opts *tl);

#endif
