/*
 * rff: reads-from fuzzing (Wolff, Shi, Zhou, Roychoudhury, Sergey, "Greybox
 * Fuzzing for Concurrency Testing", ASPLOS 2024), over pos.
 *
 * Feedback is communication: each reads-from pair a run shows (sim_rf:
 * writer site, reader site, their contexts' kinds, how the value went; see
 * sim/readsfrom.c) is counted, per campaign, by the runs that showed it.
 * A run is made from an abstract schedule: at most XS_RF_MAX_ORDERS
 * orderings "the access at site A before the access at site B", each the
 * writer-before-reader of a pair the campaign has seen (the read is to see
 * that write) or its negation (the read before the write). The rest of the
 * run is pos's (pos.c): random priorities per step, kept while a step
 * waits. An ordering acts at the machine's CPU questions, which say where
 * each candidate stands (sim_question.sites): a candidate standing at B
 * waits while A has not been done and another candidate can go; a
 * candidate standing at A, not yet done, goes before the others. A counts
 * as done once a candidate standing at it was picked, or a read from it
 * was seen. A candidate held back RFF_PATIENCE questions by one ordering is
 * held by it no more: an ordering the program cannot meet (A never comes,
 * or comes only after B) costs a few steps, never a livelock.
 *
 * With stalls on, an ordering also acts at the machine's stall questions
 * (SIM_WHY_STALL), which reach beyond the skew window a CPU question keeps
 * to: a CPU about to go on standing at B, while A has not been done, is
 * held up until the CPU standing at A has passed it (sites[i] of the
 * candidate that waits for that CPU), or, with A in no ready CPU's sight
 * (its program not started, its timer not fired, its CPU busy elsewhere),
 * until every other ready CPU has passed it, else until just after the
 * next event; each such hold counts against the ordering's patience as a
 * wait at a CPU question does. So a read can be made to come before a
 * write milliseconds earlier in the faithful run: a reads-from pair no
 * run has shown. Where no ordering applies, pos answers (pos.c).
 *
 * Which schedules (RFF's power schedule and mutations):
 *  - pairs are drawn with weight 2^16 / (runs that showed the pair): a rare
 *    pair is drawn far more often than a common one;
 *  - an abstract schedule whose run showed a pair no run of the campaign
 *    had shown is kept in a corpus of RFF_CORPUS (the oldest goes when it
 *    is full);
 *  - each run takes, with probability 1/4 or while the corpus is empty, a
 *    fresh schedule of 1 to 3 drawn orderings (none while no pair is known:
 *    the first run is plain pos), else a corpus entry, drawn with the weight
 *    of its rarest pair, mutated once: an ordering added (drawn), dropped,
 *    or flipped (writer and reader swap places).
 *
 * Runs depend on the runs before (what they showed), as dfs's do: a
 * campaign cannot be split into shards or jobs (xs_independent() is
 * false), and run r is rerun by running 0 .. r. Run r is a function of the
 * seed and runs 0 .. r-1; its log replays on its own, as any chooser's.
 * Pairs go on to the on_rf the caller set in the config, if any.
 */
#include "strategy_impl.h"

#include <stdlib.h>
#include <string.h>

#define RFF_CORPUS	32
#define RFF_PATIENCE	32

/* "The access at site first before the one at site then", as site hashes. */
struct rff_order {
	uint64_t first, then;
	size_t pair;		/* the pair it comes from (its rarity) */
};

struct rff_sched {
	struct rff_order o[XS_RF_MAX_ORDERS];
	unsigned int n;
};

struct rff {
	struct xs_rf_pair *pairs;	/* first-seen order */
	size_t npairs, cappairs;
	size_t *index;			/* open addressing over pair hashes: pairs index + 1 */
	size_t capindex;
	struct rff_sched corpus[RFF_CORPUS];
	unsigned int ncorpus, evict;

	/* the caller's schedule for the next run (xs_rf_use) */
	struct rff_sched given;
	bool use_given;

	/* the run under way */
	uint64_t stamp;			/* r + 1 */
	struct rff_sched cur;
	bool done[XS_RF_MAX_ORDERS];
	unsigned int waited[XS_RF_MAX_ORDERS];
	uint64_t *run_pairs;		/* the distinct pairs it showed */
	size_t nrun_pairs, caprun, run_new;
	uint64_t *last_seen;		/* per pair: the stamp of the last run that counted it */
	void (*chain)(void *arg, const struct sim_rf *rf);
	void *chain_arg;
};

static void *grow(void *p, size_t *cap, size_t size)
{
	*cap = *cap ? 2 * *cap : 64;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

/* rff's state: only an rff handle has one (xs_rf_pairs() and the like ask any handle). */
static struct rff *rff_of(const struct xs *x)
{
	return x->ops == &xs_rff_ops ? x->state : NULL;
}

static void fini(struct xs *x)
{
	struct rff *f = x->state;

	free(f->pairs);
	free(f->index);
	free(f->run_pairs);
	free(f->last_seen);
}

static size_t slot(const struct rff *f, uint64_t h)
{
	size_t i = (size_t)(h >> 7) & (f->capindex - 1);

	while (f->index[i] && f->pairs[f->index[i] - 1].hash != h)
		i = (i + 1) & (f->capindex - 1);
	return i;
}

/* The pair's place, added (with no runs yet) if new. */
static size_t pair_of(struct rff *f, uint64_t h, uint64_t writer, uint64_t reader)
{
	size_t i;

	if (2 * (f->npairs + 1) > f->capindex) {
		size_t cap = f->capindex ? 2 * f->capindex : 256;

		free(f->index);
		f->index = calloc(cap, sizeof(*f->index));
		if (!f->index)
			abort();
		f->capindex = cap;
		for (size_t k = 0; k < f->npairs; k++)
			f->index[slot(f, f->pairs[k].hash)] = k + 1;
	}
	i = slot(f, h);
	if (f->index[i])
		return f->index[i] - 1;
	if (f->npairs == f->cappairs) {
		size_t cap = f->cappairs;

		f->pairs = grow(f->pairs, &f->cappairs, sizeof(*f->pairs));
		f->last_seen = grow(f->last_seen, &cap, sizeof(*f->last_seen));
	}
	f->pairs[f->npairs] = (struct xs_rf_pair){
		.hash = h, .writer = writer, .reader = reader,
	};
	f->last_seen[f->npairs] = 0;
	f->index[i] = ++f->npairs;
	return f->npairs - 1;
}

static void on_rf(void *arg, const struct sim_rf *rf)
{
	struct xs *x = arg;
	struct rff *f = rff_of(x);
	size_t k = pair_of(f, rf->hash, rf->writer_hash, rf->reader_hash);
	const struct xs_rf_pair *p = &f->pairs[k];

	if (f->last_seen[k] != f->stamp) {
		f->last_seen[k] = f->stamp;
		if (!f->pairs[k].runs++)
			f->run_new++;
		if (f->nrun_pairs == f->caprun)
			f->run_pairs = grow(f->run_pairs, &f->caprun, sizeof(*f->run_pairs));
		f->run_pairs[f->nrun_pairs++] = p->hash;
	}
	/* both accesses are behind us now */
	for (unsigned int j = 0; j < f->cur.n; j++)
		if (f->cur.o[j].first == p->writer || f->cur.o[j].first == p->reader)
			f->done[j] = true;
	if (f->chain)
		f->chain(f->chain_arg, rf);
}

static uint64_t weight(const struct rff *f, size_t pair)
{
	/* an ordering the caller gave (xs_rf_use) names no pair: the commonest */
	uint64_t runs = pair < f->npairs ? f->pairs[pair].runs : UINT64_MAX;

	return (1ULL << 16) / (runs ? runs : 1) + 1;
}

/* A pair, rare ones likelier, as an ordering: its write first, or (flip) its read. */
static struct rff_order draw_order(struct xs *x)
{
	struct rff *f = rff_of(x);
	uint64_t total = 0, u;
	size_t k = 0;
	struct rff_order o;

	for (size_t i = 0; i < f->npairs; i++)
		total += weight(f, i);
	u = rng_next(&x->rng) % total;
	while (u >= weight(f, k))
		u -= weight(f, k++);
	o = (struct rff_order){ f->pairs[k].writer, f->pairs[k].reader, k };
	if (rng_below(&x->rng, 2))
		o = (struct rff_order){ o.then, o.first, k };
	return o;
}

/* A corpus entry, with the weight of its rarest pair (an empty one as the commonest). */
static const struct rff_sched *draw_entry(struct xs *x)
{
	struct rff *f = rff_of(x);
	uint64_t w[RFF_CORPUS], total = 0, u;
	unsigned int k = 0;

	for (unsigned int i = 0; i < f->ncorpus; i++) {
		w[i] = 1;
		for (unsigned int j = 0; j < f->corpus[i].n; j++)
			if (weight(f, f->corpus[i].o[j].pair) > w[i])
				w[i] = weight(f, f->corpus[i].o[j].pair);
		total += w[i];
	}
	u = rng_next(&x->rng) % total;
	while (u >= w[k])
		u -= w[k++];
	return &f->corpus[k];
}

static void mutate(struct xs *x, struct rff_sched *s)
{
	enum { ADD, DROP, FLIP } ops[3];
	unsigned int nops = 0, j;

	if (s->n < XS_RF_MAX_ORDERS)
		ops[nops++] = ADD;
	if (s->n) {
		ops[nops++] = DROP;
		ops[nops++] = FLIP;
	}
	switch (ops[rng_below(&x->rng, nops)]) {
	case ADD:
		s->o[s->n++] = draw_order(x);
		break;
	case DROP:
		j = rng_below(&x->rng, s->n);
		s->o[j] = s->o[--s->n];
		break;
	case FLIP:
		j = rng_below(&x->rng, s->n);
		s->o[j] = (struct rff_order){ s->o[j].then, s->o[j].first, s->o[j].pair };
		break;
	}
}

static void draw_schedule(struct xs *x)
{
	struct rff *f = rff_of(x);
	struct rff_sched *s = &f->cur;

	s->n = 0;
	if (!f->npairs)
		return;
	if (!f->ncorpus || !rng_below(&x->rng, 4)) {
		unsigned int n = 1 + rng_below(&x->rng, XS_RF_MAX_ORDERS);

		while (s->n < n)
			s->o[s->n++] = draw_order(x);
		return;
	}
	*s = *draw_entry(x);
	mutate(x, s);
}

/* A stall question: an ordering whose B q->cpu stands at holds it for A; else pos's answer. */
static unsigned int choose_stall(struct xs *x, const struct sim_question *q)
{
	struct rff *f = rff_of(x);
	uint64_t h;

	if (!q->sites || !q->sites[0] || !f->cur.n || !q->until)
		return xs_pos_choose(x, q, UINT64_MAX);
	h = sim_site_hash_cached(q->sites[0]);
	for (unsigned int j = 0; j < f->cur.n; j++) {
		unsigned int a = 0;

		if (f->done[j] || f->waited[j] >= RFF_PATIENCE || h != f->cur.o[j].then)
			continue;
		for (unsigned int i = 1; i < q->n; i++)
			if (q->until[i] >= 0 && q->until[i] != q->cpu && q->sites[i] &&
			    sim_site_hash_cached(q->sites[i]) == f->cur.o[j].first)
				a = i;
		if (!a)
			a = xs_stall_past_all(q);
		if (a) {
			f->waited[j]++;
			return a;
		}
	}
	return xs_pos_choose(x, q, UINT64_MAX);
}

static unsigned int choose(void *ctx, const struct sim_question *q)
{
	struct xs *x = ctx;
	struct rff *f = rff_of(x);
	uint64_t allowed = UINT64_MAX, all, held = 0, first = 0;
	unsigned int n = q->n < 64 ? q->n : 64, pick;
	bool holds[XS_RF_MAX_ORDERS] = { false };

	if (q->why == SIM_WHY_STALL)
		return choose_stall(x, q);
	if (q->why != SIM_WHY_CPU || !q->sites || !f->cur.n)
		return xs_pos_choose(x, q, allowed);
	all = n == 64 ? UINT64_MAX : (1ULL << n) - 1;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t h;

		if (!q->sites[i])
			continue;
		h = sim_site_hash_cached(q->sites[i]);
		for (unsigned int j = 0; j < f->cur.n; j++) {
			if (f->done[j] || f->waited[j] >= RFF_PATIENCE)
				continue;
			if (h == f->cur.o[j].then) {
				held |= 1ULL << i;
				holds[j] = true;
			}
			if (h == f->cur.o[j].first)
				first |= 1ULL << i;
		}
	}
	if ((held & all) == all)
		held = 0;	/* nobody else can go: none waits */
	else
		for (unsigned int j = 0; j < f->cur.n; j++)
			f->waited[j] += holds[j];
	allowed = first & ~held ? first & ~held : all & ~held;
	pick = xs_pos_choose(x, q, allowed);
	if (pick < n && q->sites[pick]) {
		uint64_t h = sim_site_hash_cached(q->sites[pick]);

		for (unsigned int j = 0; j < f->cur.n; j++)
			if (h == f->cur.o[j].first)
				f->done[j] = true;
	}
	return pick;
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	struct rff *f = rff_of(x);

	(void)m;
	f->stamp = r + 1;
	f->nrun_pairs = f->run_new = 0;
	memset(f->done, 0, sizeof(f->done));
	memset(f->waited, 0, sizeof(f->waited));
	if (f->use_given) {
		f->cur = f->given;
		f->use_given = false;
	} else {
		draw_schedule(x);
	}
	xs_pos_begin(x, cfg);
	cfg->chooser = choose;
	f->chain = cfg->on_rf;
	f->chain_arg = cfg->on_rf_arg;
	cfg->on_rf = on_rf;
	cfg->on_rf_arg = x;
	return true;
}

static void end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	struct rff *f = rff_of(x);

	(void)r;
	(void)log;
	(void)n;
	if (!f->run_new)
		return;
	f->corpus[f->evict] = f->cur;
	f->evict = (f->evict + 1) % RFF_CORPUS;
	if (f->ncorpus < RFF_CORPUS)
		f->ncorpus++;
}

const struct xs_rf_pair *xs_rf_pairs(const struct xs *x, size_t *n)
{
	struct rff *f = rff_of(x);

	*n = f ? f->npairs : 0;
	return f ? f->pairs : NULL;
}

const uint64_t *xs_rf_run_pairs(const struct xs *x, size_t *n, size_t *nnew)
{
	struct rff *f = rff_of(x);

	*n = f ? f->nrun_pairs : 0;
	if (nnew)
		*nnew = f ? f->run_new : 0;
	return f ? f->run_pairs : NULL;
}

unsigned int xs_rf_orders(const struct xs *x)
{
	return rff_of(x) ? rff_of(x)->cur.n : 0;
}

unsigned int xs_rf_schedule(const struct xs *x, struct xs_rf_order out[XS_RF_MAX_ORDERS])
{
	const struct rff *f = rff_of(x);
	unsigned int n = xs_rf_orders(x);

	for (unsigned int j = 0; j < n; j++)
		out[j] = (struct xs_rf_order){ f->cur.o[j].first, f->cur.o[j].then };
	return n;
}

void xs_rf_use(struct xs *x, const struct xs_rf_order *o, unsigned int n)
{
	struct rff *f = rff_of(x);

	if (!f)
		return;
	f->given.n = 0;
	for (unsigned int j = 0; j < n && j < XS_RF_MAX_ORDERS; j++) {
		size_t pair = SIZE_MAX;

		for (size_t k = 0; k < f->npairs && pair == SIZE_MAX; k++)
			if ((f->pairs[k].writer == o[j].first && f->pairs[k].reader == o[j].then) ||
			    (f->pairs[k].reader == o[j].first && f->pairs[k].writer == o[j].then))
				pair = k;
		f->given.o[f->given.n++] = (struct rff_order){ o[j].first, o[j].then, pair };
	}
	f->use_given = true;
}

const struct xs_ops xs_rff_ops = {
	.name = "rff",
	.state_size = sizeof(struct rff),
	.fini = fini,
	.begin = begin,
	.end = end,
};
