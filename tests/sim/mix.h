/*
 * The mix: a randomised machine workload drawn from a seed, for the
 * determinism suite and for mix_hashes (which compares build types).
 * Everything about a run (CPUs, HZ, preemption model, tasks, their
 * operations, interrupts) comes from the seed through a PRNG of its own,
 * and the machine's choices from the same seed under the strategy asked.
 */
#ifndef KWSIM_TESTS_MIX_H
#define KWSIM_TESTS_MIX_H

#include <sim/sim.h>

struct mix_run {
	/* in */
	uint64_t seed;
	enum sim_strategy strategy;
	const struct sim_decision *replay;	/* SIM_STRATEGY_REPLAY: the log to follow */
	size_t nreplay;
	bool keep_log;				/* copy the run's decision log into log */
	bool reset;				/* sim_reset() the machine, leave it built */

	/* out */
	uint64_t hash;				/* sim_trace_hash() */
	size_t decisions;
	enum sim_end end;
	size_t findings;
	char first_finding[1100];		/* kind and message, "" when none */
	char divergence[256];			/* sim_divergence(), "" when none */
	struct sim_decision *log;		/* malloc'ed when keep_log; free with mix_release() */
	size_t causal;				/* causality violations in the trace (sim/causal.h) */
	char causal_first[320];			/* the first one, "" when none */
	size_t nlog;
};

/*
 * Build the seed's machine, run it, read the results back, tear it down
 * (with reset: make it by sim_reset() and leave it for the next run; the
 * caller's sim_fini() ends it).
 */
void mix_run(struct mix_run *r);
void mix_release(struct mix_run *r);

#endif
