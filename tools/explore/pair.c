/*
 * pair: pair forcing, after Razzer (Jeong et al., IEEE S&P 2019: drive each
 * racy pair of instructions into both orders with breakpoints) and
 * Snowboard (Gong et al., SOSP 2021: take the memory communications of
 * sequential runs and force each pair concurrently). Here the accesses are
 * the machine's own: a CPU held up at a stall question stands at the site
 * of the shared access it makes next (sim_question.sites[0]: a lock to
 * take, a READ_ONCE / WRITE_ONCE, a completion), and the candidates that
 * hold it up until another CPU has passed it say where that CPU stands.
 *
 * What a run shows (every run, whichever made it): its accesses in order,
 * each a (CPU, site) at its first occurrence in the run: the sites of its
 * stall questions, and the reads of its reads-from pairs (a read where no
 * stall question is asked, with interrupts off as in a timer callback,
 * is anchored at its CPU's last stall question before it: there it can be
 * held up). An access held up counts once the CPU it waited for has made
 * its next access (or any other CPU, for a wait until an event or a fixed
 * time). Two sites
 * conflict when they are one site (the same code on two CPUs: the same
 * lock, the same field), when a reads-from pair joined them (cfg.on_rf: one
 * read what the other wrote), or, for a lock's pair (the writer's site is
 * its unlock), when one is the site the writer's CPU stood at before that
 * unlock (its section's start) and the other the reader's. For each two
 * conflicting accesses of different CPUs in a run, "a on X before b on Y"
 * is an order seen; one whose other order no run has shown becomes a
 * target, in the order first seen.
 *
 * A run made for a target (a on X, b on Y): every question takes answer 0,
 * the faithful run's, but the first stall question of CPU X standing at
 * a (at a's anchor): there X is held up, so that b may come first. Which hold: the one
 * just until Y has passed X (offered when Y is ready), then, in the
 * target's later runs, until just after the next pending event (a timer,
 * an interrupt, a program's start), then the longest the bound allows,
 * then the other durations from the longest down. So pairs whose accesses
 * lie milliseconds apart in the faithful run, an event between them, are
 * forced within a few runs; the farthest apart are forced first. A target
 * is done when a run has shown its other order (whichever run), when its
 * runs have tried every hold, or when a run did not reach a on X.
 *
 * Runs: run 0 is the faithful one; after it every fourth run, and every
 * run while no target waits, is a random one (random.c's, with the
 * seed and run number), which shows further orders to force. Runs depend
 * on the runs before, as rff's do: no shards, no jobs; run r reruns by
 * running 0 .. r.
 */
#include "strategy_impl.h"

#include <stdlib.h>
#include <string.h>

#define PAIR_MAX_ACCESSES	512	/* a run's distinct (CPU, site) accesses kept */
#define PAIR_RANDOM_EVERY	4
/* holds tried per target, at most: a stall question offers fewer (sim/stall.c) */
#define PAIR_MAX_HOLDS		(SIM_MAX_CPUS + 16)

struct access {
	int cpu;
	uint64_t site;
	uint64_t anchor;	/* where cpu can be held up before it: site, or its last point before */
};

/* An open-addressing set of 64-bit keys (0 is stored as 1). */
struct set {
	uint64_t *v;
	size_t n, cap;
};

struct target {
	struct access a, b;	/* seen: a before b; the run is to show b first */
	size_t dist;		/* how many accesses apart the run that found it made them */
	unsigned int attempt;	/* the next duration to try */
	bool done;		/* shown, never reached, or every duration tried */
};

struct pair {
	struct set conflicts;	/* unordered site pairs */
	struct set orders;	/* ordered (a, X, b, Y) seen */
	struct target *targets;
	size_t ntargets, captargets, next;
	/* the run under way */
	bool steer;		/* faithful but for the target's hold (run 0: no target) */
	bool aim;		/* made for targets[next] */
	bool reached;		/* it came to a on X */
	unsigned int tried_n;	/* the candidates there */
	struct access log[PAIR_MAX_ACCESSES];
	size_t nlog;
	struct set logged;	/* (cpu, site) in log */
	uint64_t last_point[SIM_MAX_CPUS];	/* each CPU's last stall question's site */
	struct access held;	/* a held access not yet in log */
	int held_for;		/* ... counted after this CPU's next (-1: any other CPU's) */
	bool have_held;
	void (*chain)(void *arg, const struct sim_rf *rf);
	void *chain_arg;
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));

	return rng_splitmix64(&x) | 1;
}

static size_t set_slot(const struct set *s, uint64_t k)
{
	size_t i = (size_t)(k >> 5) & (s->cap - 1);

	while (s->v[i] && s->v[i] != k)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool set_has(const struct set *s, uint64_t k)
{
	return s->cap && s->v[set_slot(s, k | 1)] == (k | 1);
}

/* Adds k; true if it was new. */
static bool set_add(struct set *s, uint64_t k)
{
	size_t i;

	k |= 1;
	if (2 * (s->n + 1) > s->cap) {
		struct set old = *s;

		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = calloc(s->cap, sizeof(*s->v));
		if (!s->v)
			abort();
		for (size_t j = 0; j < old.cap; j++)
			if (old.v[j])
				s->v[set_slot(s, old.v[j])] = old.v[j];
		free(old.v);
	}
	i = set_slot(s, k);
	if (s->v[i])
		return false;
	s->v[i] = k;
	s->n++;
	return true;
}

static void set_clear(struct set *s)
{
	if (s->cap)
		memset(s->v, 0, s->cap * sizeof(*s->v));
	s->n = 0;
}

static uint64_t conflict_key(uint64_t a, uint64_t b)
{
	return a < b ? mix(a, b) : mix(b, a);
}

static uint64_t order_key(const struct access *a, const struct access *b)
{
	return mix(mix(a->site, (uint64_t)a->cpu), mix(b->site, (uint64_t)b->cpu));
}

static void fini(struct xs *x)
{
	struct pair *f = x->state;

	free(f->conflicts.v);
	free(f->orders.v);
	free(f->logged.v);
	free(f->targets);
}

static void log_access(struct pair *f, const struct access *a)
{
	if (f->nlog < PAIR_MAX_ACCESSES && set_add(&f->logged, mix(a->site, (uint64_t)a->cpu)))
		f->log[f->nlog++] = *a;
}

/* An access made now: and a held one that waited for its CPU follows. */
static void note_access(struct pair *f, const struct access *a)
{
	log_access(f, a);
	if (f->have_held && a->cpu != f->held.cpu && (f->held_for < 0 || f->held_for == a->cpu)) {
		log_access(f, &f->held);
		f->have_held = false;
	}
}

/* The site cpu last stood at before its access at site (the log's), or 0. */
static uint64_t site_before(const struct pair *f, uint64_t site, int not_cpu)
{
	for (size_t i = f->nlog; i-- > 1;) {
		if (f->log[i].site != site || f->log[i].cpu == not_cpu)
			continue;
		for (size_t j = i; j-- > 0;)
			if (f->log[j].cpu == f->log[i].cpu)
				return f->log[j].site;
		return 0;
	}
	return 0;
}

static void on_rf(void *arg, const struct sim_rf *rf)
{
	struct xs *x = arg;
	struct pair *f = x->state;
	int cpu = sim_this_cpu();

	set_add(&f->conflicts, conflict_key(rf->writer_hash, rf->reader_hash));
	/*
	 * The read is an access too, where no stall question may be asked
	 * (interrupts off: a timer callback's lock): it is held up at its
	 * CPU's last point before it.
	 */
	if (cpu >= 0 && cpu < SIM_MAX_CPUS && f->last_point[cpu])
		note_access(f, &(struct access){ cpu, rf->reader_hash, f->last_point[cpu] });
	if (rf->via == SIM_RF_LOCK) {
		uint64_t start = site_before(f, rf->writer_hash, sim_this_cpu());

		if (start)
			set_add(&f->conflicts, conflict_key(start, rf->reader_hash));
	}
	if (f->chain)
		f->chain(f->chain_arg, rf);
}

/*
 * The holds a target tries at q, in order: until b's CPU has passed, until
 * just after the next event, the longest (the bound), then the other
 * durations from the longest down. Into order[]; how many.
 */
static unsigned int holds(const struct target *t, const struct sim_question *q,
			  unsigned int order[])
{
	unsigned int n = 0, first = xs_stall_until(q, t->b.cpu), event = 0;

	for (unsigned int i = 1; i < q->n && q->until; i++)
		if (q->until[i] == SIM_STALL_EVENT)
			event = i;
	if (first)
		order[n++] = first;
	if (event && event != first)
		order[n++] = event;
	for (unsigned int i = q->n; i-- > 1 && n < PAIR_MAX_HOLDS;)
		if (i != first && i != event)
			order[n++] = i;
	return n;
}

/* The target's attempt'th hold at q; 0 past the last. */
static unsigned int hold_for(const struct target *t, const struct sim_question *q,
			     unsigned int *n)
{
	unsigned int order[PAIR_MAX_HOLDS];

	*n = holds(t, q, order);
	return t->attempt < *n ? order[t->attempt] : 0;
}

static unsigned int choose(void *ctx, const struct sim_question *q)
{
	struct xs *x = ctx;
	struct pair *f = x->state;
	unsigned int a = 0;
	uint64_t site;

	if (q->why != SIM_WHY_STALL || !q->sites || !q->sites[0])
		return f->steer ? 0 : xs_random_choose(x, q);
	site = sim_site_hash_cached(q->sites[0]);
	if (f->aim) {
		struct target *t = &f->targets[f->next];

		if (!f->reached && q->cpu == t->a.cpu && site == t->a.anchor) {
			f->reached = true;
			a = hold_for(t, q, &f->tried_n);
		}
	} else {
		a = xs_random_choose(x, q);
	}
	if (q->cpu >= 0 && q->cpu < SIM_MAX_CPUS)
		f->last_point[q->cpu] = site;
	if (!a) {
		note_access(f, &(struct access){ q->cpu, site, site });
	} else {
		f->held = (struct access){ q->cpu, site, site };
		f->held_for = q->until && q->until[a] >= 0 ? q->until[a] : -1;
		f->have_held = true;
	}
	return a;
}

/*
 * The target to force next, into f->next: of those not done whose other
 * order no run has shown, the farthest apart (the point of pair forcing:
 * what no reordering of nearby steps reaches), the first found of equals.
 * false when there is none.
 */
static bool next_target(struct pair *f)
{
	bool any = false;

	for (size_t i = 0; i < f->ntargets; i++) {
		struct target *t = &f->targets[i];

		if (t->done)
			continue;
		if (set_has(&f->orders, order_key(&t->b, &t->a))) {
			t->done = true;
			continue;
		}
		if (!any || t->dist > f->targets[f->next].dist)
			f->next = i;
		any = true;
	}
	return any;
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	struct pair *f = x->state;

	(void)m;
	/* run 0: the faithful run, a target of none */
	f->aim = r > 0 && r % PAIR_RANDOM_EVERY && next_target(f);
	f->steer = r == 0 || f->aim;
	f->reached = false;
	f->nlog = 0;
	f->have_held = false;
	memset(f->last_point, 0, sizeof(f->last_point));
	set_clear(&f->logged);
	f->chain = cfg->on_rf;
	f->chain_arg = cfg->on_rf_arg;
	cfg->on_rf = on_rf;
	cfg->on_rf_arg = x;
	cfg->chooser = choose;
	cfg->chooser_ctx = x;
	return true;
}

static void add_target(struct pair *f, const struct access *a, const struct access *b,
		       size_t dist)
{
	if (f->ntargets == f->captargets) {
		f->captargets = f->captargets ? 2 * f->captargets : 64;
		f->targets = realloc(f->targets, f->captargets * sizeof(*f->targets));
		if (!f->targets)
			abort();
	}
	f->targets[f->ntargets++] = (struct target){ *a, *b, dist, 0, false };
}

static void end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	struct pair *f = x->state;

	(void)r;
	(void)log;
	(void)n;
	if (f->have_held)
		log_access(f, &f->held);
	for (size_t i = 0; i < f->nlog; i++) {
		for (size_t j = i + 1; j < f->nlog; j++) {
			const struct access *a = &f->log[i], *b = &f->log[j];

			if (a->cpu == b->cpu || (a->site != b->site &&
						 !set_has(&f->conflicts, conflict_key(a->site, b->site))))
				continue;
			if (set_add(&f->orders, order_key(a, b)) &&
			    !set_has(&f->orders, order_key(b, a)))
				add_target(f, a, b, j - i);
		}
	}
	if (f->aim) {
		struct target *t = &f->targets[f->next];

		/* never reached, or every hold tried: done (shown: next_target() sees) */
		if (!f->reached || ++t->attempt >= f->tried_n)
			t->done = true;
	}
}

const struct xs_ops xs_pair_ops = {
	.name = "pair",
	.aims = true,
	.state_size = sizeof(struct pair),
	.fini = fini,
	.begin = begin,
	.end = end,
};
