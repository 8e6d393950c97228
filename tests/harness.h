/*
 * Test harness shared by the Check suites: one machine per test (Check
 * forks each test), built from the defaults with a few knobs, and helpers
 * to look at what the run found.
 */
#ifndef KWSIM_TEST_HARNESS_H
#define KWSIM_TEST_HARNESS_H

#include <check.h>
#include <sim/sim.h>

/* sim_init() with the defaults, ncpus CPUs, trace records kept. */
void h_init(int ncpus);
/* Same, from a config the test adjusted (start from h_config()). */
struct sim_config h_config(int ncpus);
void h_init_cfg(const struct sim_config *cfg);

/* Run to the end; sim_fini() is left to the test (or to the process exit). */
enum sim_end h_run(void);

size_t h_count(enum sim_finding_kind kind);
/* The first finding of a kind, or NULL. */
const struct sim_finding *h_first(enum sim_finding_kind kind);
/* Print every finding to stderr (for a failing test's log). */
void h_dump_findings(void);
/* How many trace records of a type the run kept. */
size_t h_trace_count(enum sim_rec_type type);

/*
 * A stack overflow: recursion far deeper than any stack, with frames well
 * under the guard page so none can skip it, and no tail call. h_overflow_fn
 * is a thread body; h_overflow() calls it from anywhere (an irq handler).
 */
int h_overflow_fn(void *arg);
int h_overflow(void);

/* A suite runner: main() of every test program is one line. */
int h_main(Suite *(*make)(void));
#define H_MAIN(make) int main(void) { return h_main(make); }

#endif
