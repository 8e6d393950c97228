/* `kwsim bench`: how fast the machine runs, on this host, with this build. */
#ifndef KWSIM_TOOLS_BENCH_H
#define KWSIM_TOOLS_BENCH_H

/* argv[0] is "bench". Returns the process exit code: 0, 1 (a target missed) or 2 (usage). */
int kwsim_bench(int argc, char **argv);

#include <stdbool.h>

/*
 * The exploration figures over DIR's *.kws (bench_explore.c): measured
 * first (NULL when a run went wrong), so that the realistic decisions/s
 * (0 when there was no library to explore) goes beside the micro figure;
 * then printed, setting *missed when a target is missed (missed NULL: a
 * directory other than the library, which has no targets), and freed.
 */
struct bench_explore;
struct bench_explore *bench_explore_measure(const char *dir, bool quick);
double bench_explore_decisions(const struct bench_explore *e);
void bench_explore_print(struct bench_explore *e, bool enforce, bool *missed);

#endif
