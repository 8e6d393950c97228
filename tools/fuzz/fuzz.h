/*
 * What the fuzz targets share (tools/fuzz/): how a run is bounded, and
 * which of the simulated kernel's findings, if any, the user asked to turn
 * into a crash.
 *
 * A finding is the simulated kernel's, not a bug of kwsim, so by default a
 * target crashes only on kwsim's own faults (the machine's assertions,
 * ASan and UBSan reports). KWSIM_FUZZ_ABORT_ON=KIND[,KIND...] (a finding
 * kind as kwsim prints it: warn, BUG, lockdep, deadlock, use-after-free,
 * ..., or "any") makes a run with such a finding abort(), so libFuzzer or
 * AFL++ keeps the input that reaches it: a way to hunt a race.
 */
#ifndef KWSIM_FUZZ_H
#define KWSIM_FUZZ_H

#include <stdbool.h>
#include <stdio.h>

#include <sim/sim.h>

/* A run's bounds in a target: no input may make one execution take long. */
#define FUZZ_MAX_STEPS		20000
#define FUZZ_MAX_DECISIONS	20000
#define FUZZ_TIME_LIMIT_NS	(10ull * 1000000000ull)	/* simulated: 10 s */

/*
 * Read KWSIM_FUZZ_ABORT_ON once; exits with a message on a kind it does not
 * know. extra (or NULL) is a kind of the target's own: whether it is asked for.
 */
bool fuzz_init(const char *extra);
/* Lower cfg's limits to the bounds above (a limit of 0, none, counts as above them). */
void fuzz_bound(struct sim_config *cfg);
/* abort() if one of the findings is of a kind the user asked for, printing it first. */
void fuzz_check(const struct sim_finding *f, size_t n);
/* Where parse errors and run messages go: nowhere. */
FILE *fuzz_devnull(void);

#endif
