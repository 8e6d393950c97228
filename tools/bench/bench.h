/* `kwsim bench`: how fast the machine runs, on this host, with this build. */
#ifndef KWSIM_TOOLS_BENCH_H
#define KWSIM_TOOLS_BENCH_H

/* argv[0] is "bench". Returns the process exit code: 0, 1 (a target missed) or 2 (usage). */
int kwsim_bench(int argc, char **argv);

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The exploration figures over DIR's *.kws (bench_explore.c): measured
 * first (NULL when a run went wrong), so that the realistic decisions/s
 * (0 when there was no library to explore) goes beside the micro figure;
 * then printed, setting *missed when a target is missed (missed NULL: a
 * directory other than the library, which has no targets), and freed.
 */
struct bench_explore;
struct bench_explore_opts {
	bool quick;		/* smaller sizes */
	long bound;		/* runs per first-finding campaign; 0: 10,000 (quick: 50) */
	unsigned int seeds;	/* campaigns per strategy and race; 0: 20 (quick: 1) */
	uint64_t strategies;	/* bit k: the k-th of bench_explore_strategies(); 0: all */
	bool stall_given;	/* stall_ns is every run's cfg.stall_ns (0: no stalls) */
	uint64_t stall_ns;	/* ... else the scenario's, explore's default if it sets none */
};
struct bench_explore *bench_explore_measure(const char *dir, const struct bench_explore_opts *o);
/* The k of a strategy's name as the tables print it ("pct(d=2)"), or -1. */
int bench_explore_strategy(const char *name);
/* The names, ", "-separated, into buf. */
const char *bench_explore_strategies(char *buf, size_t len);
double bench_explore_decisions(const struct bench_explore *e);
void bench_explore_print(struct bench_explore *e, bool enforce, bool *missed);

/*
 * The cost-growth rows (bench_cost.c): runs per CPU second as works,
 * simulated seconds and destroyed workers grow, printed; *missed set when
 * a family grows faster than linearly. -1 when a run went wrong (said).
 */
int bench_cost(bool quick, bool *missed);

#endif
