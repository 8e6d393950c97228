/*
 * Coverage a user can compare between strategies: the distinct traces a
 * campaign saw (each run's trace hash) and the distinct states of the
 * scenario's works seen at scheduling points, each a tuple
 *
 *   (work, pending, timer pending, canceling, attached to a worker, context, and
 *    whether the context executes the work)
 *
 * read with the model's plain reads at every scheduling point (on_point),
 * and the distinct reads-from pairs (sim_rf_hash: writer site, reader site,
 * their contexts' kinds, lock / once / completion / timer; see
 * sim/readsfrom.c), the communication between contexts the runs showed.
 * All are sets of 64-bit hashes, kept whole so that shards merge exactly.
 */
#ifndef KWSIM_COVERAGE_H
#define KWSIM_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set of 64-bit values (open addressing). Zero-initialise; xset_free() at the end. */
struct xset {
	uint64_t *v;
	size_t n, cap;
	bool has_zero;
};

/* Add h; true when it was not there yet. */
bool xset_add(struct xset *s, uint64_t h);
static inline size_t xset_count(const struct xset *s)
{
	return s->n + s->has_zero;
}
/* Its values in increasing order, in a new array of xset_count() (NULL when empty). */
uint64_t *xset_sorted(const struct xset *s);
void xset_free(struct xset *s);

struct scn;
struct scn_run;

/*
 * The tuples of one run go to set: set xcov_point as the run's on_point and
 * xcov_list as its on_list, both with the struct xcov as arg, and call
 * xcov_reset() before each run (xcov_free() after the last).
 *
 * Incremental, with the set it makes the same as reading every work at
 * every point: a context (its name's hash and the work function it runs)
 * sees every work at its first point, and at each later point only the
 * works that changed since its point before. A work changes only where
 * the machine hears of it: a list operation on its own entry or its
 * timer's (on_list: pending, the timer's state, and work->worker, set in
 * the same step as the list_add), or a cancel or mod of it in progress
 * (its canceling count). A work that did not change has, under that
 * context, the tuple it had at the context's point before, already in
 * the set. A step costs what it touched, not the number of works.
 */
struct xcov_span;
struct xcov_ctx;
struct xcov_state;
struct xcov {
	struct xset *tuples;
	const struct scn_run *run;	/* the run in progress: its objects */
	const int *works;		/* the scenario's works and delayed works, by object id */
	size_t nworks;
	/* the run's incremental state (xcov_reset; the arrays are kept across runs) */
	bool indexed;			/* spans and kof made, at the run's first point */
	struct xcov_span *spans;	/* the works' memory by address, for on_list */
	size_t nspans;
	uintptr_t lo, hi;		/* all of it */
	int *kof;			/* object id -> index in works, -1 */
	uint32_t *log;			/* works changed, in order (once between two points) */
	size_t nlog, caplog;
	uint64_t *stamp;		/* by work: the point it was last logged before */
	struct xcov_state *state;	/* by work: its state as last read, and when */
	uint64_t epoch;			/* points so far */
	struct xcov_ctx *ctxs;		/* open addressing */
	size_t nctxs, capctxs;
	/* by context (in order of arrival), by work: the state it last read (kept across runs) */
	uint64_t *seen;
	size_t capseen;
};

/* The works of s for xcov.works (a new array; free() it). */
int *xcov_works(const struct scn *s, size_t *n);
/*
 * Before each run: forget the last run's objects and contexts. An xcov
 * serves one scenario (its works), so its arrays are kept for the next run.
 */
void xcov_reset(struct xcov *c);
/* Its arrays freed; the xcov is not used again (works stay the caller's). */
void xcov_free(struct xcov *c);
/* The sim_config on_point callback: arg is a struct xcov. */
void xcov_point(void *arg);
/* The sim_config on_list callback: arg is a struct xcov. */
void xcov_list(void *arg, const void *entry);
/* The sim_config on_rf callback: arg is the struct xset of pairs. */
struct sim_rf;
void xcov_rf(void *arg, const struct sim_rf *rf);

#endif
