/* `kwsim bench`: how fast the machine runs, on this host, with this build. */
#ifndef KWSIM_TOOLS_BENCH_H
#define KWSIM_TOOLS_BENCH_H

/* argv[0] is "bench". Returns the process exit code: 0, 1 (a target missed) or 2 (usage). */
int kwsim_bench(int argc, char **argv);

#endif
