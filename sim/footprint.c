/*
 * Footprints: what each step of the machine did, so that a systematic
 * search can tell steps that commute from steps that do not (sleep sets, in
 * tools/explore/dfs.c). A step is a CPU's run from the moment pick_next()
 * picks it to its next scheduling point, with whatever fires before the
 * next pick. The machine keeps the steps since the last CPU answer: the
 * chosen CPU's, then those of CPUs picked as the only candidate.
 *
 * Two steps conflict when they touched a common CPU's state, when either
 * touched what every step depends on (global), or when they touched a
 * common object and one of them wrote it. What is recorded, and as what:
 * - the CPU a step runs on, and a CPU whose run queue or spinner it changed
 *   (a wake-up placed there, a spin ended): that CPU's state;
 * - a spinlock taken, tried, waited for or released: a write of the lock (a
 *   failed trylock: a read);
 * - READ_ONCE / WRITE_ONCE: a read / write of the address;
 * - a completion completed, waited for or tested: a write (a test: a read);
 * - a task's state set, a wake-up, a switch: a write of the tasks involved;
 *   a task created: a write of the task list (pids go by creation order);
 * - a timer armed or cancelled, a jiffies read, an allocation or free: a
 *   write of the timer wheel, jiffies' high-water mark, the allocator;
 * - a scenario's counter (tools/scenario): a read or write of the counter;
 * - anything that adds to or takes from the event queue (whose ties go by
 *   arrival): a write of the queue;
 * - global: an event fired (a tick, an interrupt, a timer's expiry, a
 *   task's start: when it fires depends on every CPU's clock), a choice
 *   other than a CPU's (whether an interrupt waits, where a task goes),
 *   more objects than a footprint holds.
 * What is not seen: plain loads and stores outside those (a lockless
 * access not marked READ_ONCE / WRITE_ONCE). The kthread_worker code makes
 * its shared accesses under worker->lock or with those marks; code that
 * does not is outside what a reduction built on footprints can vouch for.
 * Recording only writes here: it changes no run.
 */
#include "machine.h"

#include <string.h>

/* sim_config.on_list while the machine runs (sim_run()): <linux/list.h> calls it. */
void (*sim_list_watch)(void *arg, const void *entry);
void *sim_list_watch_arg;

/*
 * A key that names obj alike in every run that reaches it by the same
 * decisions, whatever the host's allocator did and in every build: a block
 * by its allocation number, a task's field by its pid and offset, anything
 * on a task's stack as that whole stack (slots move between builds), a
 * scenario's object by its registration. What is left (the machine's and
 * the model's statics) has one address for the process's life.
 */
uint64_t sim_object_key(const void *obj)
{
	uint64_t key;

	if (sim_task_key(obj, &key) || sim_slab_fake_addr(obj, &key) ||
	    sim_registered_addr(obj, &key))
		return key;
	return (uint64_t)(uintptr_t)obj;
}

/* The step in progress: the last recorded. */
static struct sim_footprint *current_step(void)
{
	return &sim.steps.fp[sim.steps.n - 1];
}

static noinline void touch(const void *obj, bool write)
{
	struct sim_footprint *fp;
	uint64_t key;

	if (!sim.steps.n || (fp = current_step())->global)
		return;
	key = sim_object_key(obj);
	for (unsigned int i = 0; i < fp->n; i++) {
		if (fp->obj[i] == key) {
			fp->write[i] |= write;
			return;
		}
	}
	if (fp->n == SIM_FOOTPRINT_MAX) {
		fp->global = true;	/* too much to tell apart: conflicts with all */
		return;
	}
	fp->obj[fp->n] = key;
	fp->write[fp->n++] = write;
}

/* Small enough for the link to inline at each of its callers: most runs record nothing. */
void sim_footprint_touch(const void *obj, bool write)
{
	if (sim.cfg.footprints)
		touch(obj, write);
}

void sim_footprint_global(void)
{
	if (sim.steps.n)
		current_step()->global = true;
}

void sim_footprint_cpu(const struct sim_cpu *c)
{
	if (sim.steps.n)
		current_step()->cpus |= 1ULL << c->id;
}

void sim_footprint_start(void)
{
	sim.steps.n = 0;
}

void sim_footprint_step(const struct sim_cpu *c)
{
	struct sim_footprint *fp;

	if (!sim.cfg.footprints)
		return;
	if (sim.steps.n == SIM_FOOTPRINT_STEPS) {
		fp = current_step();	/* merged into the last: who ran is no longer one CPU */
		fp->cpu = -1;
	} else {
		fp = &sim.steps.fp[sim.steps.n++];
		memset(fp, 0, sizeof(*fp));
		fp->cpu = c->id;
	}
	fp->cpus |= 1ULL << c->id;
}

const struct sim_footprint *sim_step_footprints(size_t *n)
{
	*n = sim.steps.n;
	return sim.steps.fp;
}

bool sim_footprints_conflict(const struct sim_footprint *a, const struct sim_footprint *b)
{
	if (a->global || b->global || (a->cpus & b->cpus))
		return true;
	for (unsigned int i = 0; i < a->n; i++)
		for (unsigned int j = 0; j < b->n; j++)
			if (a->obj[i] == b->obj[j] && (a->write[i] || b->write[j]))
				return true;
	return false;
}
