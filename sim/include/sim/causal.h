/*
 * The causality checker: reads a run's trace records, in the order the
 * machine made them, and says where an effect comes before its cause. It
 * knows nothing of the machine's state, only the records, so it checks any
 * trace the same way: the tests' runs, the scenarios', a stream from a sink.
 *
 * What it checks (a trace of a real machine has none of these):
 * - each CPU's timestamps never go back, so the merged view (ftrace's:
 *   the per-CPU streams merged by time) is in time order too; a record made
 *   outside any CPU (by one of the machine's events) counts as cpu0's, as
 *   the views print it;
 * - a work's execute_start is at or after its latest queue_work;
 * - a task's switch-in is at or after its latest sched_waking;
 * - a timer's timer_expire_entry is at or after its latest timer_start;
 * - an execution or an expiry has a queueing or an arming before it.
 * Equal timestamps are allowed: two records on different CPUs within the same
 * nanosecond are simultaneous.
 */
#ifndef SIM_CAUSAL_H
#define SIM_CAUSAL_H

#include <sim/trace.h>
#include <stddef.h>
#include <stdint.h>

struct sim_causal;

struct sim_causal *sim_causal_new(void);
void sim_causal_free(struct sim_causal *cc);
/* One more record, in the machine's order. */
void sim_causal_feed(struct sim_causal *cc, const struct sim_rec *r);
size_t sim_causal_violations(const struct sim_causal *cc);
/* The first violation, described with both records' times and CPUs; "" if none. */
const char *sim_causal_first(const struct sim_causal *cc);

/* Check a whole record array: the number of violations, the first one in 'first'. */
size_t sim_causal_check(const struct sim_rec *recs, size_t n, char *first, size_t len);

#endif
