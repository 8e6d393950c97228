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

/* The tuples of one run go to set; set this as the run's on_point with xcov_begin's arg. */
struct xcov {
	struct xset *tuples;
	const struct scn_run *run;	/* the run in progress: its objects */
	const int *works;		/* the scenario's works and delayed works, by object id */
	size_t nworks;
};

/* The works of s for xcov.works (a new array; free() it). */
int *xcov_works(const struct scn *s, size_t *n);
/* The sim_config on_point callback: arg is a struct xcov. */
void xcov_point(void *arg);
/* The sim_config on_rf callback: arg is the struct xset of pairs. */
struct sim_rf;
void xcov_rf(void *arg, const struct sim_rf *rf);

#endif
