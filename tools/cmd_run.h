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

#endif
