/*
 * kthread_worker as merged for Linux 4.9 (kernel/kthread.c, from
 * __kthread_init_worker to kthread_destroy_worker): the seed series plus
 * cancel, mod_delayed_work and the per-work canceling counter.
 *
 * Same function names, step order, lock sections and WARN conditions as the
 * kernel; comments are ours. Where this differs from the mainline variant,
 * the comment says so ("4.9:").
 */
#include "kthread_worker.h"

#include <linux/completion.h>
#include <linux/freezer.h>
#include <linux/slab.h>
#include <stdarg.h>
#include <stdio.h>

void __kthread_init_worker(struct kthread_worker *worker,
				const char *name,
				struct lock_class_key *key)
{
	memset(worker, 0, sizeof(struct kthread_worker));
	spin_lock_init(&worker->lock);
	lockdep_set_class_and_name(&worker->lock, key, name);
	INIT_LIST_HEAD(&worker->work_list);
	INIT_LIST_HEAD(&worker->delayed_work_list);
}

/*
 * The worker thread. Works run one at a time, in queueing order; between
 * two works the thread may freeze. Works must not leave locks held or
 * preemption or interrupts disabled.
 */
int kthread_worker_fn(void *worker_ptr)
{
	struct kthread_worker *worker = worker_ptr;
	struct kthread_work *work;

	/* Legacy users start the thread themselves with kthread_run(). */
	WARN_ON(worker->task && worker->task != current);
	worker->task = current;

	if (worker->flags & KTW_FREEZABLE)
		set_freezable();

repeat:
	set_current_state(TASK_INTERRUPTIBLE);	/* barrier, paired with kthread_stop */

	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		spin_lock_irq(&worker->lock);
		worker->task = NULL;
		spin_unlock_irq(&worker->lock);
		return 0;
	}

	work = NULL;
	spin_lock_irq(&worker->lock);
	if (!list_empty(&worker->work_list)) {
		work = list_first_entry(&worker->work_list,
					struct kthread_work, node);
		list_del_init(&work->node);
	}
	worker->current_work = work;
	spin_unlock_irq(&worker->lock);

	if (work) {
		/* kwsim: func and the kwsim_trace_* records are kwsim's, not 4.9's */
		kthread_work_func_t func = work->func;
		__set_current_state(TASK_RUNNING);
		kwsim_trace_work_execute_start(work);
		work->func(work);
		kwsim_trace_work_execute_end(work, func);
	} else if (!freezing(current))
		schedule();

	/* 4.9: no branch for a freezing idle worker, and no cond_resched(). */
	try_to_freeze();
	goto repeat;
}

static struct kthread_worker *
__kthread_create_worker(int cpu, unsigned int flags,
			const char namefmt[], va_list args)
{
	struct kthread_worker *worker;
	struct task_struct *task;

	worker = kzalloc(sizeof(*worker), GFP_KERNEL);
	if (!worker)
		return ERR_PTR(-ENOMEM);

	kthread_init_worker(worker);

	if (cpu >= 0) {
		char name[TASK_COMM_LEN];

		/*
		 * kthread_create_on_cpu() takes a name with at most a CPU
		 * number in it; the worker's format is more general, so it
		 * is formatted here.
		 */
		vsnprintf(name, sizeof(name), namefmt, args);
		task = kthread_create_on_cpu(kthread_worker_fn, worker,
					     cpu, name);
	} else {
		task = __kthread_create_on_node(kthread_worker_fn, worker,
						-1, namefmt, args);
	}

	if (IS_ERR(task))
		goto fail_task;

	worker->flags = flags;
	worker->task = task;
	wake_up_process(task);
	return worker;

fail_task:
	kfree(worker);
	return ERR_CAST(task);
}

struct kthread_worker *
kthread_create_worker(unsigned int flags, const char namefmt[], ...)
{
	struct kthread_worker *worker;
	va_list args;

	va_start(args, namefmt);
	worker = __kthread_create_worker(-1, flags, namefmt, args);
	va_end(args);

	return worker;
}

struct kthread_worker *
kthread_create_worker_on_cpu(int cpu, unsigned int flags,
			     const char namefmt[], ...)
{
	struct kthread_worker *worker;
	va_list args;

	va_start(args, namefmt);
	worker = __kthread_create_worker(cpu, flags, namefmt, args);
	va_end(args);

	return worker;
}

/* Queueing is refused while the work is pending or a cancel is under way. */
static inline bool queuing_blocked(struct kthread_worker *worker,
				   struct kthread_work *work)
{
	lockdep_assert_held(&worker->lock);

	return !list_empty(&work->node) || work->canceling;
}

static void kthread_insert_work_sanity_check(struct kthread_worker *worker,
					     struct kthread_work *work)
{
	lockdep_assert_held(&worker->lock);
	WARN_ON_ONCE(!list_empty(&work->node));
	/* A work belongs to one worker until it is initialised again. */
	WARN_ON_ONCE(work->worker && work->worker != worker);
}

/* Link @work before @pos; wake the worker if it is idle. */
static void kthread_insert_work(struct kthread_worker *worker,
				struct kthread_work *work,
				struct list_head *pos)
{
	kthread_insert_work_sanity_check(worker, work);

	/* kwsim: not a 4.9 tracepoint, kwsim's record where 5.11 traces queue_work */
	kwsim_trace_work_queue_work(worker, work);

	list_add_tail(&work->node, pos);
	work->worker = worker;
	if (!worker->current_work && likely(worker->task))
		wake_up_process(worker->task);
}

/*
 * Returns true when @work was queued, false when it was pending already
 * (or being cancelled). Any context, hard irq included.
 */
bool kthread_queue_work(struct kthread_worker *worker,
			struct kthread_work *work)
{
	bool ret = false;
	unsigned long flags;

	spin_lock_irqsave(&worker->lock, flags);
	if (!queuing_blocked(worker, work)) {
		kthread_insert_work(worker, work, &worker->work_list);
		ret = true;
	}
	spin_unlock_irqrestore(&worker->lock, flags);
	return ret;
}

/*
 * The delayed work's timer fired: move the work from the delayed list to
 * the run list. Runs in the timer softirq with interrupts off (TIMER_IRQSAFE).
 */
void kthread_delayed_work_timer_fn(unsigned long __data)
{
	struct kthread_delayed_work *dwork =
		(struct kthread_delayed_work *)__data;
	struct kthread_work *work = &dwork->work;
	struct kthread_worker *worker = work->worker;

	/* A pending work that was initialised again: a misuse. */
	if (WARN_ON_ONCE(!worker))
		return;

	/* 4.9: plain spin_lock, interrupts are off already. */
	spin_lock(&worker->lock);
	/* A work belongs to one worker; see kthread_queue_work(). */
	WARN_ON_ONCE(work->worker != worker);

	/* Off the delayed list, onto the run list. */
	WARN_ON_ONCE(list_empty(&work->node));
	list_del_init(&work->node);
	/* 4.9: no test of work->canceling here. */
	kthread_insert_work(worker, work, &worker->work_list);

	spin_unlock(&worker->lock);
}

static void __kthread_queue_delayed_work(struct kthread_worker *worker,
					 struct kthread_delayed_work *dwork,
					 unsigned long delay)
{
	struct timer_list *timer = &dwork->timer;
	struct kthread_work *work = &dwork->work;

	WARN_ON_ONCE(timer->function != kthread_delayed_work_timer_fn ||
		     timer->data != (unsigned long)dwork);

	/*
	 * A zero delay queues at once: a timer could only fire on the next
	 * tick, and users of delay 0 rely on not waiting for one.
	 */
	if (!delay) {
		kthread_insert_work(worker, work, &worker->work_list);
		return;
	}

	/* Catch a racing misuse now rather than when the timer fires. */
	kthread_insert_work_sanity_check(worker, work);

	list_add(&work->node, &worker->delayed_work_list);
	work->worker = worker;
	timer->expires = jiffies + delay;
	add_timer(timer);
}

/*
 * Returns false if the work was pending already (timer armed or work
 * queued), true otherwise. A zero delay queues the work at once.
 */
bool kthread_queue_delayed_work(struct kthread_worker *worker,
				struct kthread_delayed_work *dwork,
				unsigned long delay)
{
	struct kthread_work *work = &dwork->work;
	unsigned long flags;
	bool ret = false;

	spin_lock_irqsave(&worker->lock, flags);

	if (!queuing_blocked(worker, work)) {
		__kthread_queue_delayed_work(worker, dwork, delay);
		ret = true;
	}

	spin_unlock_irqrestore(&worker->lock, flags);
	return ret;
}

struct kthread_flush_work {
	struct kthread_work	work;
	struct completion	done;
};

static void kthread_flush_work_fn(struct kthread_work *work)
{
	struct kthread_flush_work *fwork =
		container_of(work, struct kthread_flush_work, work);
	complete(&fwork->done);
}

/* Wait until @work, if queued or running, has finished. */
void kthread_flush_work(struct kthread_work *work)
{
	struct kthread_flush_work fwork = {
		KTHREAD_WORK_INIT(fwork.work, kthread_flush_work_fn),
		COMPLETION_INITIALIZER_ONSTACK(fwork.done),
	};
	struct kthread_worker *worker;
	bool noop = false;

	/* Read without the lock: the window the lock's scheduling point opens. */
	worker = work->worker;
	if (!worker)
		return;

	spin_lock_irq(&worker->lock);
	/* A work belongs to one worker; see kthread_queue_work(). */
	WARN_ON_ONCE(work->worker != worker);

	if (!list_empty(&work->node))
		kthread_insert_work(worker, &fwork.work, work->node.next);
	else if (worker->current_work == work)
		kthread_insert_work(worker, &fwork.work,
				    worker->work_list.next);
	else
		noop = true;

	spin_unlock_irq(&worker->lock);

	if (!noop)
		wait_for_completion(&fwork.done);
}

/*
 * Take @work off its list; for a delayed work, make sure its timer is
 * neither armed nor running first. Called and returns with worker->lock
 * held, but drops it around del_timer_sync(), which must not wait for a
 * callback that wants the lock; meanwhile 'canceling' blocks queueing.
 *
 * Returns true if the work was pending.
 */
static bool __kthread_cancel_work(struct kthread_work *work, bool is_dwork,
				  unsigned long *flags)
{
	/* 4.9: the timer is cancelled in here, not by the caller. */
	if (is_dwork) {
		struct kthread_delayed_work *dwork =
			container_of(work, struct kthread_delayed_work, work);
		struct kthread_worker *worker = work->worker;

		work->canceling++;
		spin_unlock_irqrestore(&worker->lock, *flags);
		del_timer_sync(&dwork->timer);
		spin_lock_irqsave(&worker->lock, *flags);
		work->canceling--;
	}

	/* Pending means on one of the two lists. */
	if (!list_empty(&work->node)) {
		list_del_init(&work->node);
		return true;
	}

	return false;
}

/*
 * Re-arm @dwork to run after @delay, or queue it as
 * kthread_queue_delayed_work() would if idle. Returns false if it was idle,
 * true if it was pending. Safe from any context, irq handlers included.
 */
bool kthread_mod_delayed_work(struct kthread_worker *worker,
			      struct kthread_delayed_work *dwork,
			      unsigned long delay)
{
	struct kthread_work *work = &dwork->work;
	unsigned long flags;
	int ret = false;

	spin_lock_irqsave(&worker->lock, flags);

	/* Never queued: nothing to cancel. */
	if (!work->worker)
		goto fast_queue;

	/* A work belongs to one worker; see kthread_queue_work(). */
	WARN_ON_ONCE(work->worker != worker);

	/* 4.9: yield to a cancel in progress, queueing nothing, returning false. */
	if (work->canceling)
		goto out;

	ret = __kthread_cancel_work(work, true, &flags);
fast_queue:
	__kthread_queue_delayed_work(worker, dwork, delay);
out:
	spin_unlock_irqrestore(&worker->lock, flags);
	return ret;
}

static bool __kthread_cancel_work_sync(struct kthread_work *work, bool is_dwork)
{
	struct kthread_worker *worker = work->worker;
	unsigned long flags;
	int ret = false;

	if (!worker)
		goto out;

	spin_lock_irqsave(&worker->lock, flags);
	/* A work belongs to one worker; see kthread_queue_work(). */
	WARN_ON_ONCE(work->worker != worker);

	ret = __kthread_cancel_work(work, is_dwork, &flags);

	if (worker->current_work != work)
		goto out_fast;

	/* Running: wait for it without the lock, blocking any requeue. */
	work->canceling++;
	spin_unlock_irqrestore(&worker->lock, flags);
	kthread_flush_work(work);
	spin_lock_irqsave(&worker->lock, flags);
	work->canceling--;

out_fast:
	spin_unlock_irqrestore(&worker->lock, flags);
out:
	return ret;
}

/*
 * On return @work is neither pending nor running, even if it requeues
 * itself. Returns whether it was pending.
 */
bool kthread_cancel_work_sync(struct kthread_work *work)
{
	return __kthread_cancel_work_sync(work, false);
}

bool kthread_cancel_delayed_work_sync(struct kthread_delayed_work *dwork)
{
	return __kthread_cancel_work_sync(&dwork->work, true);
}

/* Wait for every work queued or running on @worker now. */
void kthread_flush_worker(struct kthread_worker *worker)
{
	struct kthread_flush_work fwork = {
		KTHREAD_WORK_INIT(fwork.work, kthread_flush_work_fn),
		COMPLETION_INITIALIZER_ONSTACK(fwork.done),
	};

	kthread_queue_work(worker, &fwork.work);
	wait_for_completion(&fwork.done);
}

/*
 * Flush, stop and free a worker made by kthread_create_worker*(). Delayed
 * works are the caller's to cancel first.
 */
void kthread_destroy_worker(struct kthread_worker *worker)
{
	struct task_struct *task;

	task = worker->task;
	if (WARN_ON(!task))
		return;

	kthread_flush_worker(worker);
	kthread_stop(task);
	/* 4.9: the delayed list is not checked. */
	WARN_ON(!list_empty(&worker->work_list));
	kfree(worker);
}
