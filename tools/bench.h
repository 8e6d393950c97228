/* `kwsim bench`: how fast the machine runs, on this host, with this build. */
#ifndef KWSIM_TOOLS_BENCH_H
#define KWSIM_TOOLS_BENCH_H

/* argv[0] is "bench". Returns the process exit code: 0, 1 (a target missed) or 2 (usage). */
int kwsim_bench(int argc, char **argv);

#include <stdbool.h>

/*
 * The exploration figures (bench_explore.c) over DIR/races: prints them,
 * sets *missed when a target is missed. Returns 0, or -1 when a run went
 * wrong; with no DIR/races it says so and returns 0.
 */
int bench_explore(const char *dir, bool quick, bool enforce, bool *missed);

#endif
