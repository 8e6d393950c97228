/*
 * Completions. A waiter sleeps uninterruptibly on its own stack entry until
 * complete() hands it one unit of 'done'; complete_all() opens the gate for
 * good, as the kernel's does. As swake_up_locked(), a wake-up takes the first
 * waiter off the queue: one that finds 'done' taken meanwhile queues again at
 * the tail, so the order of release is the kernel's. A unit taken carries
 * the completer's time: the waiter comes after the complete() it consumed.
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

/* One sleep of do_wait_for_common(), queued as __prepare_to_swait() queues. */
static void sleep_once(struct completion *x, struct sim_waiter *w, const char *what,
		       const struct sim_site *site)
{
	if (list_empty(&w->node))
		list_add_tail(&w->node, &x->waiters);
	__set_current_state(TASK_UNINTERRUPTIBLE);
	sim_block(what, x, site);
	sim_footprint_touch(x, true);	/* woken: a new step reads done again */
}

/* Take one unit of 'done', after the complete() that gave it. */
static void take_done(struct completion *x, const struct sim_site *site)
{
	if (sim.cfg.on_rf)
		sim_rf_read(x, site ? site : sim_rf_here(), SIM_RF_COMPLETION);
	sim_handover(this_cpu(), x->done_at);
	if (x->done != UINT_MAX)
		x->done--;
}

static void do_wait(struct completion *x, const struct sim_site *site)
{
	struct sim_waiter w = { .task = current };

	INIT_LIST_HEAD(&w.node);
	while (!x->done)
		sleep_once(x, &w, "wait_for_completion", site);
	list_del_init(&w.node);
	take_done(x, site);
}

static void wait_no_timeout(struct completion *x, const struct sim_site *site)
{
	if (!x->done)
		do_wait(x, site);
	else
		take_done(x, site);
}

void sim_wait_for_completion(struct completion *x, const struct sim_site *site)
{
	sim_might_sleep(site);
	sim.cur->at = site;
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	sim.cur->at = NULL;
	sim_footprint_touch(x, true);
	wait_no_timeout(x, site);
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
	sim_footprint_touch(x, true);
	/* as schedule_timeout(): no timer for a wait without end */
	if (timeout == (unsigned long)MAX_SCHEDULE_TIMEOUT) {
		wait_no_timeout(x, site);
		return timeout;
	}
	if (!x->done) {
		timer_setup(&tw.timer, timeout_wake, 0);
		sim_register_symbol((const void *)timeout_wake, "process_timeout");
		mod_timer(&tw.timer, expire);
		sim_footprint_touch(x, true);
		INIT_LIST_HEAD(&w.node);
		while (!x->done && !tw.fired)
			sleep_once(x, &w, "wait_for_completion_timeout", site);
		list_del_init(&w.node);
		del_timer_sync(&tw.timer);
		sim_footprint_touch(x, true);
		if (!x->done)
			return 0;
	}
	take_done(x, site);
	left = time_after(expire, jiffies) ? expire - jiffies : 0;
	return left ? left : 1;
}

bool try_wait_for_completion(struct completion *x)
{
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	sim_footprint_touch(x, true);
	if (!x->done)
		return false;
	take_done(x, NULL);
	return true;
}

bool completion_done(struct completion *x)
{
	sim_footprint_touch(x, false);
	return x->done != 0;
}

/* swake_up_locked(): the first waiter is woken and leaves the queue. */
static void wake_first(struct completion *x)
{
	struct sim_waiter *w;

	if (list_empty(&x->waiters))
		return;
	w = list_first_entry(&x->waiters, struct sim_waiter, node);
	list_del_init(&w->node);
	sim_wake(w->task, TASK_NORMAL);
}

void complete(struct completion *x)
{
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	sim_footprint_touch(x, true);
	if (sim.cfg.on_rf)
		sim_rf_write(x, sim_rf_here());
	if (x->done != UINT_MAX)
		x->done++;
	x->done_at = sim_now();
	wake_first(x);
}

void complete_all(struct completion *x)
{
	sim_point(sim.cfg.costs.completion, POINT_PLAIN);
	sim_footprint_touch(x, true);
	if (sim.cfg.on_rf)
		sim_rf_write(x, sim_rf_here());
	x->done = UINT_MAX;
	x->done_at = sim_now();
	while (!list_empty(&x->waiters))
		wake_first(x);
}
