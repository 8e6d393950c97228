/*
 * Owners: which simulated stack, or which task_struct, an address falls
 * in, found in constant time. The trace's fake addresses ask it at every
 * birth of an object it was not told about (sim_on_stack()) and footprints
 * at every touch (sim_task_key()); walking every task there made a run
 * that creates T tasks cost T^2 (10,000 kthread_destroy_worker() calls,
 * 3.3 s, 54% of it in that walk).
 *
 * A table from host page to the contexts and tasks that cover part of it,
 * open addressing with linear probing, several entries per page allowed
 * (task_structs share pages; a stack owns its pages alone). Stacks and
 * tasks live until the machine is reset, so entries are only added, and
 * the table is emptied at reset (sim_owners_fini()), its array kept: the
 * slots a run filled are listed, so that emptying costs what the run added
 * (clearing the whole array was 2% of a small race's explored run).
 * Nothing here orders anything: a lookup answers the same whatever the
 * table's layout, so the host's addresses reach no output.
 */
#include "machine.h"

#include <stdlib.h>
#include <string.h>

#define OWNER_PAGE_SHIFT 12

static size_t slot_of(uintptr_t page, size_t cap)
{
	uint64_t h = (uint64_t)page * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (cap - 1);
}

static void insert(const struct sim_owner *o, uintptr_t page)
{
	struct sim_owners *t = &sim.owners;
	size_t i;

	for (i = slot_of(page, t->cap); t->slot[i].lo; i = (i + 1) & (t->cap - 1))
		;
	t->slot[i] = *o;
	t->page[i] = page;
	t->used[t->n++] = i;
}

static void grow(void)
{
	struct sim_owners *t = &sim.owners;
	struct sim_owner *old = t->slot;
	uintptr_t *oldpage = t->page;
	size_t oldcap = t->cap;

	t->cap = t->cap ? 2 * t->cap : 1024;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	t->page = calloc(t->cap, sizeof(*t->page));
	free(t->used);
	t->used = malloc(t->cap / 2 * sizeof(*t->used));	/* at most half full */
	if (!t->slot || !t->page || !t->used)
		abort();
	t->n = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].lo)
			insert(&old[i], oldpage[i]);
	free(old);
	free(oldpage);
}

/* [lo, lo + size) belongs to ctx (a stack) or task (a task_struct). */
static void add(const void *lo, size_t size, struct sim_ctx *ctx, struct task_struct *task)
{
	struct sim_owner o = { (uintptr_t)lo, (uintptr_t)lo + size, ctx, task };
	uintptr_t first = o.lo >> OWNER_PAGE_SHIFT, last = (o.hi - 1) >> OWNER_PAGE_SHIFT;

	for (uintptr_t page = first; page <= last; page++) {
		if (2 * (sim.owners.n + 1) > sim.owners.cap)
			grow();
		insert(&o, page);
	}
}

void sim_owner_add_stack(struct sim_ctx *x)
{
	add(x->coro.stack, x->coro.size, x, NULL);
}

void sim_owner_add_task(struct task_struct *p)
{
	add(p, sizeof(*p), NULL, p);
}

const struct sim_owner *sim_owner_of(const void *p)
{
	struct sim_owners *t = &sim.owners;
	uintptr_t a = (uintptr_t)p, page = a >> OWNER_PAGE_SHIFT;

	if (!t->n)
		return NULL;
	for (size_t i = slot_of(page, t->cap); t->slot[i].lo; i = (i + 1) & (t->cap - 1))
		if (t->page[i] == page && a >= t->slot[i].lo && a < t->slot[i].hi)
			return &t->slot[i];
	return NULL;
}

void sim_owners_fini(bool keep)
{
	struct sim_owners *t = &sim.owners;

	if (keep) {
		for (size_t i = 0; i < t->n; i++)
			t->slot[t->used[i]] = (struct sim_owner){ 0 };
		t->n = 0;
		return;
	}
	free(t->slot);
	free(t->page);
	free(t->used);
	memset(t, 0, sizeof(*t));
}
