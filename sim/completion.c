/*
 * Completions. A waiter sleeps uninterruptibly on its own stack entry until
 * complete() hands it one unit of 'done'; complete_all() opens the gate for
 * good, as the kernel's does.
 */
#include "machine.h"
#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <limits.h>

/*
 * A waiter's entry lives on its stack and is unlinked before the wait
 * returns; gcc 12 cannot see that and warns about the list keeping it.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif

struct sim_waiter {
	struct list_head node;
	struct task_struct *task;
};

static void do_wait(struct completion *x, const struct sim_site *site)
{
	struct sim_waiter w = { .task = current };

	list_add_tail(&w.node, &x->waiters);
	while (!x->done) {
		__set_current_state(TASK_UNINTERRUPTIBLE);
		sim_block("wait_for_completion", x, site);
	}
	list_del(&w.node);
	if (x->done != UINT_MAX)
		x->done--;
}

void sim_wait_for_completion(struct completion *x, const struct sim_site *site)
{
	sim_might_sleep(site);
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	if (!x->done)
		do_wait(x, site);
	else if (x->done != UINT_MAX)
		x->done--;
}

static void timeout_wake(struct timer_list *t);

struct timed_waiter {
	struct timer_list timer;
	struct task_struct *task;
	bool fired;
};

static void timeout_wake(struct timer_list *t)
{
	struct timed_waiter *tw = from_timer(tw, t, timer);

	tw->fired = true;
	sim_wake(tw->task, TASK_NORMAL);
}

unsigned long sim_wait_for_completion_timeout(struct completion *x, unsigned long timeout,
					      const struct sim_site *site)
{
	struct timed_waiter tw = { .task = current };
	struct sim_waiter w = { .task = current };
	unsigned long expire = jiffies + timeout;
	unsigned long left;

	sim_might_sleep(site);
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	if (!x->done) {
		timer_setup(&tw.timer, timeout_wake, 0);
		sim_register_symbol((const void *)timeout_wake, "process_timeout");
		mod_timer(&tw.timer, expire);
		list_add_tail(&w.node, &x->waiters);
		while (!x->done && !tw.fired) {
			__set_current_state(TASK_UNINTERRUPTIBLE);
			sim_block("wait_for_completion_timeout", x, site);
		}
		list_del(&w.node);
		del_timer_sync(&tw.timer);
		if (!x->done)
			return 0;
	}
	if (x->done != UINT_MAX)
		x->done--;
	left = time_after(expire, jiffies) ? expire - jiffies : 0;
	return left ? left : 1;
}

bool try_wait_for_completion(struct completion *x)
{
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	if (!x->done)
		return false;
	if (x->done != UINT_MAX)
		x->done--;
	return true;
}

bool completion_done(struct completion *x)
{
	return x->done != 0;
}

static void wake_first(struct completion *x)
{
	struct sim_waiter *w;

	list_for_each_entry(w, &x->waiters, node)
		if (sim_wake(w->task, TASK_NORMAL))
			return;
}

void complete(struct completion *x)
{
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	if (x->done != UINT_MAX)
		x->done++;
	wake_first(x);
}

void complete_all(struct completion *x)
{
	struct sim_waiter *w;

	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	x->done = UINT_MAX;
	list_for_each_entry(w, &x->waiters, node)
		sim_wake(w->task, TASK_NORMAL);
}
