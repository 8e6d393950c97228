/*
 * Owners: which simulated stack, or which task_struct, an address falls
 * in, found in constant time. The trace's fake addresses ask it at every
 * birth of an object it was not told about (sim_on_stack()) and footprints
 * at every touch (sim_task_key()); walking every task there made a run
 * that creates T tasks cost T^2 (10,000 kthread_destroy_worker() calls,
 * 3.3 s, 54% of it in that walk).
 *
 * Two maps from host page to owner records, open addressing with linear
 * probing, several records per page allowed (task_structs share pages; a
 * stack owns its pages alone), each at most half full:
 *
 * - tasks: this run's task_structs. A reset empties it, its arrays kept:
 *   the slots a run filled are listed, so that emptying costs what the run
 *   added (clearing the whole array was 2% of a small race's explored run).
 * - stacks: every stack the machine has mapped, kept across resets as the
 *   stack pool keeps the mappings. A pooled stack does not move, so a run
 *   that takes it back only names its context in the record
 *   (sim_owner_add_stack()): indexing each stack's host pages again every
 *   run (176 pages a run of a small race, 5% of its instructions) went.
 *   A reset clears the contexts the run named, so a pooled stack nobody
 *   took answers "no owner", as a stack that is not mapped does.
 *
 * Each map keeps its span, from its lowest record's start to its highest
 * record's end, and answers an address outside it with one compare: the
 * list checks (list_debug.c) ask of every list pointer whether it is on a
 * stack, and most of them are on the heap, apart from the stacks' pooled
 * mappings (2.2M questions in 2,000 explored runs of a small race).
 *
 * Nothing here orders anything: a lookup answers the same whatever the
 * maps' layout, so the host's addresses reach no output.
 */
#include "machine.h"

#include <stdlib.h>
#include <string.h>

#define OWNER_PAGE_SHIFT 12

static void *xrealloc(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p)
		abort();
	return p;
}

static size_t slot_of(uintptr_t page, size_t cap)
{
	uint64_t h = (uint64_t)page * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static void insert(struct sim_owner_map *m, uintptr_t page, uint32_t rec)
{
	size_t i;

	for (i = slot_of(page, m->cap); m->page[i]; i = (i + 1) & (m->cap - 1))
		;
	m->page[i] = page;
	m->rec[i] = rec;
	m->used[m->n++] = i;
}

static void grow(struct sim_owner_map *m)
{
	uintptr_t *oldpage = m->page;
	uint32_t *oldrec = m->rec;
	size_t oldcap = m->cap;

	m->cap = m->cap ? 2 * m->cap : 1024;
	m->page = calloc(m->cap, sizeof(*m->page));
	m->rec = malloc(m->cap * sizeof(*m->rec));
	free(m->used);
	m->used = malloc(m->cap / 2 * sizeof(*m->used));	/* at most half full */
	if (!m->page || !m->rec || !m->used)
		abort();
	m->n = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (oldpage[i])
			insert(m, oldpage[i], oldrec[i]);
	free(oldpage);
	free(oldrec);
}

/* A record for [lo, hi), its every host page indexed. */
static struct sim_owner *add(struct sim_owner_map *m, uintptr_t lo, uintptr_t hi)
{
	uintptr_t first = lo >> OWNER_PAGE_SHIFT, last = (hi - 1) >> OWNER_PAGE_SHIFT;
	uint32_t rec = (uint32_t)m->nowners;

	if (m->nowners == m->capowners) {
		m->capowners = m->capowners ? 2 * m->capowners : 64;
		m->owners = xrealloc(m->owners, m->capowners, sizeof(*m->owners));
	}
	m->owners[m->nowners++] = (struct sim_owner){ lo, hi, NULL, NULL };
	if (!m->span_hi || lo < m->span_lo)
		m->span_lo = lo;
	if (hi > m->span_hi)
		m->span_hi = hi;
	for (uintptr_t page = first; page <= last; page++) {
		if (2 * (m->n + 1) > m->cap)
			grow(m);
		insert(m, page, rec);
	}
	return &m->owners[rec];
}

/* The record of exactly [lo, hi), live or not. */
static struct sim_owner *find_exact(const struct sim_owner_map *m, uintptr_t lo, uintptr_t hi)
{
	uintptr_t page = lo >> OWNER_PAGE_SHIFT;

	if (!m->n)
		return NULL;
	for (size_t i = slot_of(page, m->cap); m->page[i]; i = (i + 1) & (m->cap - 1)) {
		struct sim_owner *o = &m->owners[m->rec[i]];

		if (m->page[i] == page && o->lo == lo && o->hi == hi)
			return o;
	}
	return NULL;
}

const struct sim_owner *sim_owner_live(const struct sim_owner_map *m, uintptr_t a)
{
	uintptr_t page = a >> OWNER_PAGE_SHIFT;

	if (!sim_owner_span_has(m, a))	/* also an empty map's */
		return NULL;
	for (size_t i = slot_of(page, m->cap); m->page[i]; i = (i + 1) & (m->cap - 1)) {
		struct sim_owner *o = &m->owners[m->rec[i]];

		if (m->page[i] == page && a >= o->lo && a < o->hi && (o->ctx || o->task))
			return o;
	}
	return NULL;
}

void sim_owner_add_stack(struct sim_ctx *x)
{
	struct sim_owners *t = &sim.owners;
	uintptr_t lo = (uintptr_t)x->coro.stack, hi = lo + x->coro.size;
	/* a stack unmapped and its addresses mapped again may leave a stale record */
	struct sim_owner *o = find_exact(&t->stacks, lo, hi);

	if (!o)
		o = add(&t->stacks, lo, hi);
	o->ctx = x;
	if (t->nnamed == t->capnamed) {
		t->capnamed = t->capnamed ? 2 * t->capnamed : 64;
		t->named = xrealloc(t->named, t->capnamed, sizeof(*t->named));
	}
	t->named[t->nnamed++] = (uint32_t)(o - t->stacks.owners);
}

void sim_owner_add_task(struct task_struct *p)
{
	add(&sim.owners.tasks, (uintptr_t)p, (uintptr_t)p + sizeof(*p))->task = p;
}

const struct sim_owner *sim_owner_of(const void *p)
{
	const struct sim_owner *o = sim_owner_live(&sim.owners.tasks, (uintptr_t)p);

	return o ? o : sim_stack_owner_of(p);
}

static void map_empty(struct sim_owner_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		m->page[m->used[i]] = 0;
	m->n = 0;
	m->nowners = 0;
	m->span_lo = m->span_hi = 0;
}

static void map_free(struct sim_owner_map *m)
{
	free(m->page);
	free(m->rec);
	free(m->used);
	free(m->owners);
}

void sim_owners_fini(bool keep)
{
	struct sim_owners *t = &sim.owners;

	if (keep) {
		map_empty(&t->tasks);
		for (size_t i = 0; i < t->nnamed; i++)
			t->stacks.owners[t->named[i]].ctx = NULL;
		t->nnamed = 0;
		return;
	}
	map_free(&t->tasks);
	map_free(&t->stacks);
	free(t->named);
	memset(t, 0, sizeof(*t));
}
