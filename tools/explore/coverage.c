/*
 * Coverage sets and the tuple of a work's state sampled at each scheduling
 * point. Only the works' own fields are read (pending, timer, canceling,
 * whether they name a worker): a worker may have been freed by
 * kthread_destroy_worker() while a work still names it, and reading it
 * would fault (a use-after-free the run did not make). So which list a
 * pending work is on (work_queued, work_delayed, which walk the worker's
 * lists) is not read; pending with the timer's state stands for it.
 * What a worker is doing is seen from the running context instead: its
 * name and the work function it executes (sim_running()).
 */
#include "coverage.h"

#include <stdlib.h>
#include <string.h>

#include <model.h>
#include <sim/sim.h>

#include "scenario/scn.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

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

void xcov_point(void *arg)
{
	struct xcov *c = arg;
	const struct scn_run *run = c->run;
	const struct scn *s = run->scn;
	const struct kw_model *m = run->model;
	const char *work_fn, *who = sim_running(&work_fn);
	uint64_t ctx = fnv(FNV_OFFSET, who ? who : "", who ? strlen(who) : 0);

	if (!c->tuples)
		return;
	for (size_t k = 0; k < c->nworks; k++) {
		int i = c->works[k];
		const struct scn_obj *o = s->objs[i];
		struct kthread_work *w;
		unsigned char t[8];
		uint64_t h;
		int canceling;

		if (!run->objs[i].ptr)
			continue;
		w = o->kind == OBJ_DWORK ? m->dwork_work(run->objs[i].ptr) : run->objs[i].ptr;
		canceling = m->work_canceling(w);
		t[0] = (unsigned char)m->work_pending(w);
		/* on which list (work_queued, work_delayed) would read the worker: see above */
		t[1] = 0;
		t[2] = 0;
		t[3] = (unsigned char)(o->kind == OBJ_DWORK && m->dwork_timer_pending(run->objs[i].ptr));
		t[4] = (unsigned char)(canceling > 3 ? 3 : canceling < 0 ? 0 : canceling);
		t[5] = (unsigned char)(m->work_worker(w) != NULL);
		/* the running context executes this work's function, another's, or none */
		t[6] = (unsigned char)(!work_fn ? 0 : !strcmp(work_fn, o->fn->name) ? 1 : 2);
		t[7] = (unsigned char)o->kind;
		h = fnv(ctx, &o->id, sizeof(o->id));
		xset_add(c->tuples, fnv(h, t, sizeof(t)));
	}
}

void xcov_rf(void *arg, const struct sim_rf *rf)
{
	xset_add(arg, rf->hash);
}
