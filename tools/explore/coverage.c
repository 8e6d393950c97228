/*
 * Coverage sets and the tuple of a work's state sampled at each scheduling
 * point. Only the works' own fields are read (pending, timer, canceling,
 * whether they name a worker): a worker may have been freed by
 * kthread_destroy_worker() while a work still names it, and reading it
 * would fault (a use-after-free the run did not make). So which list a
 * pending work is on (work_state()'s queued and delayed, which walk the
 * worker's lists) is not read; pending with the timer's state stands for it.
 * What a worker is doing is seen from the running context instead: its
 * name and the work function it executes (sim_running()).
 */
#include "coverage.h"

#include <stdlib.h>
#include <string.h>

#include <model.h>
#include <sim/fnv.h>
#include <sim/sim.h>

#include "scenario/scn.h"
#include "scenario/scn_contract.h"

/* A slot's start for h: the hashes are FNV already, but mix for the low bits. */
static size_t slot(uint64_t h, size_t cap)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

static void grow(struct xset *s)
{
	uint64_t *old = s->v;
	size_t oldcap = s->cap;

	s->cap = s->cap ? 2 * s->cap : 256;
	s->v = calloc(s->cap, sizeof(*s->v));
	if (!s->v)
		abort();
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i])
			continue;
		for (j = slot(old[i], s->cap); s->v[j]; j = (j + 1) & (s->cap - 1))
			;
		s->v[j] = old[i];
	}
	free(old);
}

bool xset_add(struct xset *s, uint64_t h)
{
	size_t i;

	if (!h) {	/* 0 marks an empty slot */
		bool added = !s->has_zero;

		s->has_zero = true;
		return added;
	}
	if (2 * (s->n + 1) > s->cap)
		grow(s);
	for (i = slot(h, s->cap); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == h)
			return false;
	s->v[i] = h;
	s->n++;
	return true;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t *xset_sorted(const struct xset *s)
{
	size_t n = 0;
	uint64_t *out;

	if (!xset_count(s))
		return NULL;
	out = malloc(xset_count(s) * sizeof(*out));
	if (!out)
		abort();
	if (s->has_zero)
		out[n++] = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->v[i])
			out[n++] = s->v[i];
	qsort(out, n, sizeof(*out), by_value);
	return out;
}

void xset_free(struct xset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int *xcov_works(const struct scn *s, size_t *n)
{
	int *v = malloc(((size_t)s->nobjs + 1) * sizeof(*v));

	if (!v)
		abort();
	*n = 0;
	for (int i = 0; i < s->nobjs; i++)
		if (s->objs[i]->kind == OBJ_WORK || s->objs[i]->kind == OBJ_DWORK)
			v[(*n)++] = i;
	return v;
}

/* A work's memory: [lo, hi) is works[k]'s object (a work, or a delayed work with its timer). */
struct xcov_span {
	uintptr_t lo, hi;
	size_t k;
};

/* A work's state as last read, at point epoch (0: not read this run). */
struct xcov_state {
	uint64_t epoch;
	uint64_t t;
	bool exists;
};

/* A context as the tuples see it, and how far into the log it has read. */
struct xcov_ctx {
	uint64_t who;			/* the hash of its name (0 with fn NULL: an empty slot) */
	const char *work_fn;
	bool used;
	size_t pos;
	size_t row;			/* its row of seen: the contexts' order of arrival */
};

/* A row's entry for a work this context has not read (t[1] is always 0, so no tuple is this). */
#define SEEN_NONE UINT64_MAX

static int by_lo(const void *a, const void *b)
{
	uintptr_t x = ((const struct xcov_span *)a)->lo, y = ((const struct xcov_span *)b)->lo;

	return x < y ? -1 : x > y;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

void xcov_reset(struct xcov *c)
{
	c->indexed = false;
	c->nctxs = 0;
	if (c->ctxs)
		memset(c->ctxs, 0, c->capctxs * sizeof(*c->ctxs));
}

void xcov_free(struct xcov *c)
{
	free(c->spans);
	free(c->kof);
	free(c->stamp);
	free(c->state);
	free(c->ctxs);
	free(c->log);
	free(c->seen);
}

/* The run's works by address, and by object id: made at its first point, when they exist. */
static void index_works(struct xcov *c)
{
	const struct scn_run *run = c->run;
	const struct scn *s = run->scn;
	size_t n = 0;

	/* made by the first run: the scenario, so their sizes, are the xcov's for its life */
	if (!c->spans) {
		c->spans = xcalloc(c->nworks, sizeof(*c->spans));
		c->kof = xcalloc((size_t)s->nobjs, sizeof(*c->kof));
		c->stamp = xcalloc(c->nworks, sizeof(*c->stamp));
		c->state = xcalloc(c->nworks, sizeof(*c->state));
	} else {
		memset(c->stamp, 0, c->nworks * sizeof(*c->stamp));
		memset(c->state, 0, c->nworks * sizeof(*c->state));
	}
	for (int i = 0; i < s->nobjs; i++)
		c->kof[i] = -1;
	for (size_t k = 0; k < c->nworks; k++) {
		int i = c->works[k];
		uintptr_t p = (uintptr_t)run->objs[i].ptr;

		c->kof[i] = (int)k;
		if (!p)
			continue;
		c->spans[n++] = (struct xcov_span){
			p, p + (s->objs[i]->kind == OBJ_DWORK ? run->model->dwork_size
							      : run->model->work_size), k };
	}
	qsort(c->spans, n, sizeof(*c->spans), by_lo);
	c->lo = n ? c->spans[0].lo : 0;
	c->hi = n ? c->spans[n - 1].hi : 0;
	c->nspans = n;
	c->nlog = 0;
	c->epoch = 1;			/* stamps start at 0: nothing logged yet */
	c->indexed = true;
}

/* Work k changed since the last point (once in the log between two points). */
static void mark(struct xcov *c, size_t k)
{
	if (c->stamp[k] == c->epoch)
		return;
	c->stamp[k] = c->epoch;
	if (c->nlog == c->caplog) {
		c->caplog = c->caplog ? 2 * c->caplog : 256;
		c->log = realloc(c->log, c->caplog * sizeof(*c->log));
		if (!c->log)
			abort();
	}
	c->log[c->nlog++] = (uint32_t)k;
}

void xcov_list(void *arg, const void *entry)
{
	struct xcov *c = arg;
	uintptr_t a = (uintptr_t)entry;
	size_t lo = 0, hi;

	if (!c->indexed || a < c->lo || a >= c->hi)
		return;
	hi = c->nspans;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a < c->spans[mid].lo)
			hi = mid;
		else if (a >= c->spans[mid].hi)
			lo = mid + 1;
		else
			return mark(c, c->spans[mid].k);
	}
}

static void mark_removing(void *arg, const struct scn_obj *work)
{
	struct xcov *c = arg;

	if (c->kof[work->id] >= 0)
		mark(c, (size_t)c->kof[work->id]);
}

/*
 * The state of works[k] as every context sees it now: the tuple's bytes
 * but the sixth (whether the context executes the work), byte i in bits
 * 8i..8i+7 (the tuple adds the context's name and the work's id); false:
 * no object. Put together in a register, not stored byte by byte and read
 * back whole: that read waited for the stores (half of a point's time).
 */
static bool read_work(const struct xcov *c, size_t k, uint64_t *out)
{
	const struct scn_run *run = c->run;
	const struct kw_model *m = run->model;
	int i = c->works[k];
	const struct scn_obj *o = run->scn->objs[i];
	void *p = run->objs[i].ptr;
	bool dw = o->kind == OBJ_DWORK;
	struct kw_work_state st;
	uint64_t t;

	if (!p)
		return false;
	/* bytes 1 and 2, on which list (queued, delayed), would read the worker: see above */
	m->work_state(dw ? m->dwork_work(p) : p, dw ? p : NULL, false, &st);
	t = (uint64_t)(unsigned char)st.pending;
	t |= (uint64_t)st.timer << 24;
	t |= (uint64_t)(st.canceling > 3 ? 3 : st.canceling < 0 ? 0 : st.canceling) << 32;
	t |= (uint64_t)(st.worker != NULL) << 40;
	t |= (uint64_t)(unsigned char)o->kind << 56;
	*out = t;
	return true;
}

/*
 * The state of works[k] now: read at a point since its last change (no
 * mark since, as the log's reading assumes: see coverage.h), it is the one
 * read then, by whichever context; two in three reads were such.
 */
static bool work_state(struct xcov *c, size_t k, uint64_t *out)
{
	struct xcov_state *st = &c->state[k];

	if (!st->epoch || c->stamp[k] > st->epoch) {
		st->epoch = c->epoch;
		st->exists = read_work(c, k, &st->t);
	}
	*out = st->t;
	return st->exists;
}

/*
 * Context x reads works[k]: its tuple goes to the set, unless x read the
 * same state of it last time, when the tuple is the one it added then
 * (the set only grows): hashing it again was most of a point's cost.
 */
static void see(struct xcov *c, const struct xcov_ctx *x, size_t k)
{
	const struct scn_obj *o = c->run->scn->objs[c->works[k]];
	uint64_t *seen = &c->seen[x->row * c->nworks + k], now;
	unsigned char t[8];

	if (!work_state(c, k, &now))
		return;
	/* the running context executes this work's function, another's, or none */
	now |= (uint64_t)(!x->work_fn ? 0 : !strcmp(x->work_fn, o->fn->name) ? 1 : 2) << 48;
	if (now == *seen)
		return;
	*seen = now;
	for (int b = 0; b < 8; b++)
		t[b] = (unsigned char)(now >> 8 * b);
	xset_add(c->tuples, sim_fnv(sim_fnv(x->who, &o->id, sizeof(o->id)), t, sizeof(t)));
}

static size_t ctx_slot(uint64_t who, const char *work_fn, size_t cap)
{
	return slot(who ^ (uint64_t)(uintptr_t)work_fn, cap);
}

/* The context's entry, made (pos SIZE_MAX: it has seen nothing) when new. */
static struct xcov_ctx *ctx_of(struct xcov *c, uint64_t who, const char *work_fn)
{
	size_t i;

	if (2 * (c->nctxs + 1) > c->capctxs) {
		struct xcov_ctx *old = c->ctxs;
		size_t oldcap = c->capctxs;

		c->capctxs = c->capctxs ? 2 * c->capctxs : 16;
		c->ctxs = xcalloc(c->capctxs, sizeof(*c->ctxs));
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].used)
				continue;
			for (i = ctx_slot(old[j].who, old[j].work_fn, c->capctxs); c->ctxs[i].used;
			     i = (i + 1) & (c->capctxs - 1))
				;
			c->ctxs[i] = old[j];
		}
		free(old);
	}
	for (i = ctx_slot(who, work_fn, c->capctxs); c->ctxs[i].used; i = (i + 1) & (c->capctxs - 1))
		if (c->ctxs[i].who == who && c->ctxs[i].work_fn == work_fn)
			return &c->ctxs[i];
	if ((c->nctxs + 1) * c->nworks > c->capseen) {
		c->capseen = 2 * (c->nctxs + 1) * c->nworks;
		c->seen = realloc(c->seen, c->capseen * sizeof(*c->seen));
		if (!c->seen)
			abort();
	}
	for (size_t k = 0; k < c->nworks; k++)
		c->seen[c->nctxs * c->nworks + k] = SEEN_NONE;
	c->ctxs[i] = (struct xcov_ctx){ who, work_fn, true, SIZE_MAX, c->nctxs };
	c->nctxs++;
	return &c->ctxs[i];
}

void xcov_point(void *arg)
{
	struct xcov *c = arg;
	const char *work_fn, *who;
	struct xcov_ctx *x;
	uint64_t ctx;

	if (!c->tuples || !c->nworks)
		return;
	if (!c->indexed)
		index_works(c);
	who = sim_running(&work_fn);
	ctx = sim_fnv(SIM_FNV_OFFSET, who ? who : "", who ? strlen(who) : 0);
	scn_contract_removing(c->run, mark_removing, c);
	x = ctx_of(c, ctx, work_fn);
	if (x->pos == SIZE_MAX) {
		for (size_t k = 0; k < c->nworks; k++)
			see(c, x, k);
	} else {
		for (size_t j = x->pos; j < c->nlog; j++)
			see(c, x, c->log[j]);
	}
	x->pos = c->nlog;
	c->epoch++;
}

void xcov_rf(void *arg, const struct sim_rf *rf)
{
	xset_add(arg, rf->hash);
}
