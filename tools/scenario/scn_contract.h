/*
 * Contract oracles: what the kernel-doc of each exported kthread_worker
 * function promises its caller, checked in every run of a scenario
 * (tools/prog/CONTRACT.md, "Promised effects", has the table with the
 * kernel's sentences). A broken promise is a finding of kind `contract`
 * (SIM_F_CONTRACT), even when no WARN fires.
 *
 * The interpreter (scn_run.c) tells the monitor what it alone sees: each
 * call's begin and return (with its result), each execution of a
 * scenario work's function, and every scheduling point. At a point the
 * monitor reads the model's state of the works that the calls in progress
 * name (in any context) and turns its changes into events: a work linked onto its worker's run list
 * (inserted), onto the delayed list or its timer armed (armed). A change
 * made while the same context is inside a queueing call of that work is
 * that call's queueing; any other (the timer callback moving the work) is
 * the consequence of an earlier one.
 *
 * The same events are the language's transition atoms (inserted(X),
 * armed(X), started(X), finished(X), during(FN, X), returned(FN, X)):
 * each event is true at the first scheduling point after it, when the
 * invariants are checked, and false again after that point.
 */
#ifndef KWSIM_SCN_CONTRACT_H
#define KWSIM_SCN_CONTRACT_H

#include "scn.h"

struct scn_contract;
struct scn_ccall;

/* For a run whose objects exist (after make_objects), and its end. */
/* The monitor of run; kept: the one of a run before (reused for the same scenario) or NULL. */
struct scn_contract *scn_contract_new(const struct scn_run *run, struct scn_contract *kept);
void scn_contract_free(struct scn_contract *c);

/* A call the monitor watches begins (NULL: one it does not watch), and returns with v. */
struct scn_ccall *scn_contract_begin(struct scn_run *run, const struct scn_expr *e);
void scn_contract_end(struct scn_run *run, struct scn_ccall *call, long v, long delay);
/* A scenario work's function begins (begin) or ends executing; work is the kthread_work. */
void scn_contract_exec(struct scn_run *run, const struct scn_obj *work, bool begin);
/* At every scheduling point: read the state, make its events, check the rules. */
void scn_contract_point(struct scn_run *run);
/* After the invariants have seen this point's events: they are over. */
void scn_contract_settle(struct scn_run *run);
/*
 * To fn, the work each cancel or mod in progress names (in any context):
 * its canceling count, a plain field, may change at any of their points.
 */
void scn_contract_removing(const struct scn_run *run,
			   void (*fn)(void *arg, const struct scn_obj *work), void *arg);
/* An event atom's value now (PRED_INSERTED ... PRED_RETURNED). */
long scn_contract_event(const struct scn_run *run, const struct scn_expr *e);

/* The rules, for the documentation test: id i (NULL past the last) and its kernel-doc line. */
const char *scn_contract_rule(size_t i, int *kthread_c_line);

#endif
