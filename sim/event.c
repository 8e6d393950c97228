/*
 * The event queue: a binary heap ordered by (time, sequence number). The
 * sequence number makes the order total and independent of addresses.
 */
#include "machine.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static bool before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void place(size_t i, struct sim_event *ev)
{
	sim.heap[i] = ev;
	ev->heap_idx = i;
}

static void sift_up(size_t i)
{
	struct sim_event *ev = sim.heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(ev, sim.heap[parent]))
			break;
		place(i, sim.heap[parent]);
		i = parent;
	}
	place(i, ev);
}

static void sift_down(size_t i)
{
	struct sim_event *ev = sim.heap[i];

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct sim_event *best = ev;

		if (l < sim.nheap && before(sim.heap[l], best))
			best = sim.heap[m = l];
		if (l + 1 < sim.nheap && before(sim.heap[l + 1], best))
			best = sim.heap[m = l + 1];
		if (m == i)
			break;
		place(i, best);
		i = m;
	}
	place(i, ev);
}

/* A zeroed event: a spare, else a new one. */
static struct sim_event *event_alloc(void)
{
	struct sim_spare_events *spare = &sim.spare_events;
	struct sim_event *ev;

	if (!spare->n)
		return calloc(1, sizeof(*ev));
	ev = spare->ev[--spare->n];
	sim_spare_take(ev);
	memset(ev, 0, sizeof(*ev));
	return ev;
}

void sim_event_free(struct sim_event *ev)
{
	struct sim_spare_events *spare = &sim.spare_events;

	if (spare->n == SIM_SPARE_EVENTS) {
		free(ev);
		return;
	}
	sim_spare_keep(ev);
	spare->ev[spare->n++] = ev;
}

struct sim_event *sim_event_add(uint64_t at, void (*fn)(void *), void *arg, bool watchdog)
{
	struct sim_event *ev = event_alloc();

	sim_footprint_touch(SIM_FP_EVENTS, true);	/* ties go by arrival */
	if (!ev)
		abort();
	if (sim.nheap == sim.capheap)
		sim.heap = sim_grow(sim.heap, &sim.capheap, sizeof(*sim.heap), 64);
	ev->time = at;
	ev->seq = sim.next_seq++;
	ev->fn = fn;
	ev->arg = arg;
	ev->watchdog = watchdog;
	if (!watchdog)
		sim.nlive_events++;
	place(sim.nheap++, ev);
	sift_up(ev->heap_idx);
	return ev;
}

static void remove_at(size_t i)
{
	struct sim_event *last = sim.heap[--sim.nheap];

	if (i == sim.nheap)
		return;
	place(i, last);
	sift_down(i);
	sift_up(last->heap_idx);
	/* the moved event sits below its parent and above its children again */
	assert(last->heap_idx == 0 || !before(last, sim.heap[(last->heap_idx - 1) / 2]));
}

void sim_event_cancel(struct sim_event *ev)
{
	if (!ev)
		return;
	sim_footprint_touch(SIM_FP_EVENTS, true);
	if (!ev->watchdog)
		sim.nlive_events--;
	remove_at(ev->heap_idx);
	sim_event_free(ev);
}

struct sim_event *sim_event_peek(void)
{
	return sim.nheap ? sim.heap[0] : NULL;
}

/* The earliest event under heap slot i after t that keeps the machine alive, or best. */
static struct sim_event *next_after(size_t i, uint64_t t, struct sim_event *best)
{
	struct sim_event *ev;

	if (i >= sim.nheap || (best && !before(sim.heap[i], best)))
		return best;	/* nothing below is earlier than best */
	ev = sim.heap[i];
	if (ev->time > t && !ev->watchdog)
		return ev;	/* nothing below is earlier than ev */
	best = next_after(2 * i + 1, t, best);
	return next_after(2 * i + 2, t, best);
}

/*
 * The heap's order prunes the walk: it visits the events at or before t
 * (a CPU's skew window's worth, a few) and the watchdogs' checks above them.
 */
struct sim_event *sim_event_next_after(uint64_t t)
{
	return next_after(0, t, NULL);
}

void sim_event_unlink(struct sim_event *ev)
{
	remove_at(ev->heap_idx);
	if (!ev->watchdog)
		sim.nlive_events--;
}

struct sim_event *sim_event_pop(void)
{
	struct sim_event *ev = sim.heap[0];

	remove_at(0);
	if (!ev->watchdog)
		sim.nlive_events--;
	return ev;
}

/*
 * An event of the outside world (a scenario's thread starting, a device's
 * interrupt): 'at' is on the boot clock, which counts the time the machine
 * slept; the machine's own clock does not.
 */
struct sim_event *sim_event_add_boot(uint64_t at, void (*fn)(void *), void *arg)
{
	struct sim_event *ev = sim_event_add(at > sim.slept_ns ? at - sim.slept_ns : 0, fn, arg,
					     false);

	ev->boot = true;
	return ev;
}

/*
 * The machine slept 'slept' ns at its time 'at': its clock, jiffies and
 * everything timed by them (timers, hrtimer sleeps, watchdogs) stood still,
 * so their events keep their times. The outside world's events came that
 * much closer; those that fell due while it slept happen as it wakes, in
 * the order they fell due.
 */
void sim_events_slept(uint64_t at, uint64_t slept)
{
	struct sim_event **due = calloc(sim.nheap + 1, sizeof(*due));
	size_t n = 0;

	if (!due)
		abort();
	for (size_t i = 0; i < sim.nheap; i++) {
		struct sim_event *ev = sim.heap[i];

		if (!ev->boot || ev->time < at)
			continue;
		if (ev->time - at >= slept) {
			ev->time -= slept;
			continue;
		}
		/* insertion by the time it fell due: a few events at most */
		size_t k = n++;
		for (; k > 0 && before(ev, due[k - 1]); k--)
			due[k] = due[k - 1];
		due[k] = ev;
	}
	for (size_t k = 0; k < n; k++) {
		due[k]->time = at;
		due[k]->seq = sim.next_seq++;
	}
	free(due);
	for (size_t i = sim.nheap / 2; i-- > 0;)
		sift_down(i);
}

void sim_event_at(uint64_t at, void (*fn)(void *), void *arg)
{
	sim_event_add(at, fn, arg, false);
}

void sim_events_fini(bool keep)
{
	struct sim_spare_events *spare = &sim.spare_events;

	for (size_t i = 0; i < sim.nheap; i++)
		sim_event_free(sim.heap[i]);
	sim.nheap = 0;
	if (keep)
		return;
	while (spare->n) {
		struct sim_event *ev = spare->ev[--spare->n];

		sim_spare_take(ev);
		free(ev);
	}
	free(sim.heap);
	sim.heap = NULL;
	sim.capheap = 0;
}
