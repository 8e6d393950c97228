/*
 * What the strategies' files share (strategy.c, random.c, pct.c, ...): the
 * handle their operations (struct xs_ops) are given, the per-run generator
 * and the state of the run under way. Not for the strategies' users: they
 * see strategy.h only.
 */
#ifndef KWSIM_STRATEGY_IMPL_H
#define KWSIM_STRATEGY_IMPL_H

#include "lib/rng.h"
#include "strategy.h"

/* pct's state for one run (pct.c). */
struct xs_pct {
	unsigned int depth;		/* d */
	unsigned int k;			/* CPUs ordered: the machine's */
	int prio[SIM_MAX_CPUS];		/* higher runs first */
	/* the d-1 change points, in step order; the i-th drawn lowers to d-i */
	struct xs_change {
		size_t step;
		int prio;
	} change[XS_MAX_DEPTH - 1];
	unsigned int nchange, next;	/* ... and the first not yet reached */
	uint64_t lowered;		/* CPUs a change point lowered (bit per CPU), for tpct */
	uint64_t hold;			/* tpct: lowered CPUs not yet held up */
	uint64_t skew;			/* the run's skew window (cfg.skew_ns): stalls beyond it */
};

/* pos's state for one run (pos.c). */
struct xs_pos {
	uint64_t prio[SIM_MAX_CPUS];	/* each CPU's next step's, while drawn */
	uint64_t irq_prio[SIM_MAX_CPUS];	/* each CPU's pending interrupt's */
	uint64_t drawn, irq_drawn;	/* which of them hold a priority (bit per CPU) */
	int ran;			/* the CPU pos chose last, -1 before any */
	uint64_t event_prio;		/* the next pending event's, as a contender (stalls) */
	bool event_drawn;
	uint64_t skew;			/* the run's skew window (cfg.skew_ns): stalls beyond it */
};

struct xs {
	struct xs_params p;
	const struct xs_ops *ops;	/* p.kind's, from the registry */
	struct rng rng;			/* the current run's generator */
	unsigned int stall_odds;	/* random's stall rate this run (sim_stall_odds()) */
	/*
	 * What a strategy that learns across runs keeps (ops->init makes it,
	 * ops->fini frees it): dfs's and delay's search (dfs.c), rff's counts
	 * and corpus, pair's pairs and targets.
	 */
	void *state;
	union {
		struct xs_pct pct;
		struct xs_pos pos;
	} run;
};

/* random's answer (random.c), from the run's generator. */
unsigned int xs_random_choose(struct xs *x, const struct sim_question *q);

/* Prepare a run of pct with depth d, or of pos, from the generator as seeded. */
void xs_pct_begin(struct xs *x, unsigned int depth, struct sim_config *cfg);
/* pct's answer (its chooser's; tpct's for all but stalls). */
unsigned int xs_pct_choose(struct xs *x, const struct sim_question *q);

/*
 * Stall answers that aim (strategy.c), for a SIM_WHY_STALL question: the
 * candidate that holds q->cpu up just until CPU cpu has passed it (0: none
 * offered); the longest of those that wait for another CPU, so that every
 * ready CPU passes it, else the one until the next event (0: neither).
 */
unsigned int xs_stall_until(const struct sim_question *q, int cpu);
unsigned int xs_stall_past_all(const struct sim_question *q);
/* The candidate that holds q->cpu up until just after the next event (0: none offered). */
unsigned int xs_stall_event(const struct sim_question *q);
/*
 * The order strategies' stall answer (pct, pos, rff): q->cpu yields to
 * the ready CPUs beyond the skew window (a wait longer than skew, so the
 * CPU question could not offer them) that outrank it. The candidate that
 * holds it until the last of them has passed (the longest such wait), or
 * 0 when none outranks it.
 */
unsigned int xs_stall_yield(const struct sim_question *q, uint64_t skew,
			    bool (*outranks)(struct xs *x, int cpu, uint64_t mine),
			    struct xs *x, uint64_t mine);
void xs_pos_begin(struct xs *x, struct sim_config *cfg);
/* pos's answer among the candidates in allowed (bit i: candidate i; all: pos's own). */
unsigned int xs_pos_choose(struct xs *x, const struct sim_question *q, uint64_t allowed);

/* dfs and delay's search (dfs.c): begin, end, exhausted and fini of their tables */
bool xs_dfs_begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg);
void xs_dfs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n);
bool xs_dfs_exhausted(const struct xs *x);
void xs_dfs_fini(struct xs *x);

#endif
