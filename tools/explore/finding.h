/*
 * A finding's identity across runs, so that a campaign reports each
 * distinct bug once: its kind, where the kernel code raised it (function
 * and line), the context it was raised in, and the scenario line that
 * context was running (its note). The condition counts too: a run whose
 * outcome is the one the scenario asks about (exists seen, forall or
 * ~exists broken) is a finding of kind "condition".
 */
#ifndef KWSIM_FINDING_H
#define KWSIM_FINDING_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario/scn.h"

/* "warn kthread_insert_work_sanity_check:812 P0 @ race.kws:14", in buf. */
const char *xf_key(const struct sim_finding *f, char *buf, size_t len);
/*
 * The same without the scenario line: what a shrunk scenario (whose lines
 * move as statements go) must still show to keep "the same finding".
 */
const char *xf_bug(const struct sim_finding *f, char *buf, size_t len);
/* Whether the run's outcome is the one its condition asks about (see above). */
bool xf_condition_witness(const struct scn *s, const struct scn_run *run);
/* The key of that pseudo-finding: "condition". */
#define XF_CONDITION_KEY "condition"

#endif
