/*
 * One variant's table. This file is compiled once per variant, with that
 * variant's directory on the include path, its prefix in KW_NS and its
 * source in KW_SOURCE: including the source here lets the table name the
 * variant's static functions too (kthread_flush_work_fn for the trace).
 * A kernel tree's variant is compiled the same way: its KW_SOURCE is the
 * worker section extracted from the tree (model/tree/).
 */
#include KW_SOURCE
#include "model.h"

#include <linux/kasan-checks.h>
#include <sim/sim.h>

/* The variant's functions that the trace names by address (%ps). */
static const char *const symbols[] = {
	"kthread_worker_fn", "kthread_delayed_work_timer_fn", "kthread_flush_work_fn", NULL,
};

static void register_symbols(void)
{
	const void *const fns[] = {
		(const void *)kthread_worker_fn, (const void *)kthread_delayed_work_timer_fn,
		(const void *)kthread_flush_work_fn,
	};

	_Static_assert(sizeof(fns) / sizeof(fns[0]) + 1 == sizeof(symbols) / sizeof(symbols[0]),
		       "a name for each function");
	sim_register_symbol_prefix(KW_NS_STR);
	for (size_t i = 0; symbols[i]; i++)
		sim_register_symbol(fns[i], symbols[i]);
}

static void init_worker(struct kthread_worker *worker)
{
	kthread_init_worker(worker);
}

static void init_work(struct kthread_work *work, kw_work_fn fn)
{
	kthread_init_work(work, fn);
}

static void init_delayed_work(struct kthread_delayed_work *dwork, kw_work_fn fn)
{
	kthread_init_delayed_work(dwork, fn);
}

static struct kthread_worker *create_worker(int cpu, unsigned int flags, const char *name)
{
	if (cpu < 0)
		return kthread_create_worker(flags, "%s", name);
	return kthread_create_worker_on_cpu(cpu, flags, "%s", name);
}

static struct kthread_work *dwork_work(struct kthread_delayed_work *dwork)
{
	return &dwork->work;
}

static struct task_struct *worker_task(const struct kthread_worker *worker)
{
	return worker->task;
}

static struct kthread_work *current_work(const struct kthread_worker *worker)
{
	return worker->current_work;
}

static struct kthread_worker *work_worker(const struct kthread_work *work)
{
	return work->worker;
}

static bool work_pending(const struct kthread_work *work)
{
	return !list_empty(&work->node);
}

/*
 * On the list of its worker given, as list_for_each_entry would find it.
 * Not checked by KASAN: the callers read head from a live worker, and the
 * walk reads only entries sim_list_entry_readable() found live, so a check
 * at each read (the walk runs at most scheduling points) could never fire.
 */
static __no_sanitize_address bool on_list(const struct kthread_work *work,
					  const struct list_head *head)
{
	const struct list_head *slow = head;
	size_t k = 1;

	for (const struct list_head *p = head->next; p != head; p = p->next, k++) {
		if (p == &work->node)
			return true;
		/*
		 * A misuse (a work reinitialised while queued) can leave the list
		 * leading into a stack frame that has returned (a flush item):
		 * CONFIG_DEBUG_LIST's check stops the kernel's code there, and
		 * this walk, which reads p->next next, stops there too. A frame
		 * that a later call's covers again passes that check, and the
		 * next pointer read there is that frame's bytes: the walk goes on
		 * only into memory where a list entry can live.
		 */
		if (!sim_list_entry_readable(p))
			return false;
		/*
		 * A misuse (a work on two workers' lists) can corrupt the list into
		 * a cycle that misses head: slow goes half as fast (Floyd), and
		 * meets p only on such a cycle, where the walk would never end.
		 */
		if (!(k & 1) && (slow = slow->next) == p)
			return false;
	}
	return false;
}

static int work_canceling(const struct kthread_work *work)
{
	return work->canceling;
}

/*
 * A work's state at once: the contract monitor, coverage and the state
 * summary read it at every scheduling point, and six calls, each through
 * the table with a KASAN check per field, were 8% of an explored run.
 * Checked once, as a whole, as a struct copy would be. Plain reads written
 * out: an inline helper would not be inlined into an uninstrumented
 * function, and would check again.
 */
static __no_sanitize_address void work_state(const struct kthread_work *work,
					     const struct kthread_delayed_work *dwork,
					     bool lists, struct kw_work_state *st)
{
	struct kthread_worker *worker;

	if (dwork)
		kasan_check_read(dwork, sizeof(*dwork));
	else
		kasan_check_read(work, sizeof(*work));
	worker = work->worker;
	st->worker = worker;
	st->pending = work->node.next != &work->node;
	st->timer = dwork && dwork->timer.entry.pprev;
	st->canceling = work->canceling;
	st->queued = st->delayed = false;
	/* a freed worker's lists are not followed: the touch would be the observer's own */
	if (lists && worker && !IS_ERR_VALUE((unsigned long)worker) && !sim_freed(worker)) {
		st->queued = on_list(work, &worker->work_list);
		st->delayed = on_list(work, &worker->delayed_work_list);
	}
}

static kw_work_fn work_func(const struct kthread_work *work)
{
	return work->func;
}

_Static_assert(KTW_FREEZABLE == KTW_FREEZABLE_FLAG, "KTW_FREEZABLE differs");

const struct kw_model KW_SYM(model) = {
	.name = KW_NAME,
	.source = KW_FOLLOWS,
	.ns = KW_NS_STR,
	.era = SIM_ERA(KW_ERA_MAJOR, KW_ERA_MINOR),
#ifdef KW_TREE
	.tree = KW_TREE,
#endif
	.worker_size = sizeof(struct kthread_worker),
	.work_size = sizeof(struct kthread_work),
	.dwork_size = sizeof(struct kthread_delayed_work),
	.symbols = symbols,
	.register_symbols = register_symbols,
	.init_worker = init_worker,
	.init_work = init_work,
	.init_delayed_work = init_delayed_work,
	.worker_fn = kthread_worker_fn,
	.create_worker = create_worker,
	.queue_work = kthread_queue_work,
	.queue_delayed_work = kthread_queue_delayed_work,
	.mod_delayed_work = kthread_mod_delayed_work,
	.flush_work = kthread_flush_work,
	.flush_worker = kthread_flush_worker,
	.cancel_work_sync = kthread_cancel_work_sync,
	.cancel_delayed_work_sync = kthread_cancel_delayed_work_sync,
	.destroy_worker = kthread_destroy_worker,
	.dwork_work = dwork_work,
	.worker_task = worker_task,
	.current_work = current_work,
	.work_worker = work_worker,
	.work_pending = work_pending,
	.work_canceling = work_canceling,
	.work_func = work_func,
	.work_state = work_state,
};
