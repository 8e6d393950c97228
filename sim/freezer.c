/*
 * The freezer and suspend, as kernel/freezer.c and kernel/power/process.c
 * have them. Suspend runs as a task of its own ("suspend"): it freezes the
 * kernel threads, waking every freezable one that sleeps interruptibly, and
 * retries with sleeps of 1 ms doubling to 8 ms until all are frozen or
 * freeze_timeout (20 s) passes. A timeout fails the suspend: the refusing
 * tasks are reported, everything is thawed, and the suspend is aborted.
 */
#include "machine.h"
#include <linux/freezer.h>
#include <linux/delay.h>

#include <stdio.h>

#define FREEZE_TIMEOUT_MS	20000

unsigned int system_freezing_cnt;
bool pm_freezing;
bool pm_nosig_freezing;

static bool suspended;

void sim_freezer_init(void)
{
	system_freezing_cnt = 0;
	pm_freezing = false;
	pm_nosig_freezing = false;
	suspended = false;
}

bool freezing_slow_path(struct task_struct *p)
{
	if (p->flags & (PF_NOFREEZE | PF_SUSPEND_TASK))
		return false;
	if (pm_nosig_freezing)
		return true;
	return pm_freezing && !(p->flags & PF_KTHREAD);
}

bool frozen(struct task_struct *p)
{
	return p->frozen;
}

bool __refrigerator(bool check_kthr_stop)
{
	struct task_struct *p = current;
	bool was_frozen = false;

	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!freezing(p) || (check_kthr_stop && p->should_stop))
			break;
		if (!was_frozen)
			sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "frozen", sim_intern(p->comm));
		p->frozen = true;
		was_frozen = true;
		sim_block("refrigerator", NULL, NULL);
		p->frozen = false;
	}
	__set_current_state(TASK_RUNNING);
	if (was_frozen)
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "thawed", sim_intern(p->comm));
	return was_frozen;
}

bool set_freezable(void)
{
	might_sleep();
	current->flags &= ~PF_NOFREEZE;
	return try_to_freeze();
}

/* freeze_task(): a kthread is woken from an interruptible sleep to see it. */
static bool freeze_task(struct task_struct *p)
{
	if (!freezing(p) || p->frozen)
		return false;
	sim_wake(p, TASK_INTERRUPTIBLE);
	return true;
}

static int try_to_freeze_tasks(void)
{
	uint64_t end = sim_now() + (uint64_t)FREEZE_TIMEOUT_MS * 1000000ULL;
	unsigned int sleep_ms = 1;
	struct task_struct *p;
	int todo;

	for (;;) {
		todo = 0;
		list_for_each_entry(p, &sim.tasks, all_node) {
			if (p == current || p->__state == TASK_DEAD)
				continue;
			if (freeze_task(p))
				todo++;
		}
		if (!todo || sim_now() >= end)
			break;
		msleep(sleep_ms);
		if (sleep_ms < 8)
			sleep_ms *= 2;
	}
	if (todo) {
		char names[256];
		size_t n = 0;

		names[0] = '\0';
		list_for_each_entry(p, &sim.tasks, all_node) {
			if (p == current || p->__state == TASK_DEAD || !freezing(p) || p->frozen)
				continue;
			if (n < sizeof(names))
				n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s:%d",
						      n ? ", " : "", p->comm, p->pid);
		}
		sim_report(SIM_F_FREEZE_FAILED, NULL,
			   "Freezing of tasks failed after %d.%03d seconds (%d tasks refusing to "
			   "freeze, wq_busy=0): %s", FREEZE_TIMEOUT_MS / 1000, FREEZE_TIMEOUT_MS % 1000,
			   todo, names);
	}
	return todo ? -EBUSY : 0;
}

static void thaw(void)
{
	struct task_struct *p;

	pm_freezing = false;
	pm_nosig_freezing = false;
	if (system_freezing_cnt)
		system_freezing_cnt--;
	sim_trace(REC_FREEZER, 0, 0, 0, 0, "thaw", NULL);
	list_for_each_entry(p, &sim.tasks, all_node)
		if (p->frozen)
			sim_wake(p, TASK_UNINTERRUPTIBLE);
}

static int suspend_main(void *arg)
{
	(void)arg;
	current->flags |= PF_SUSPEND_TASK;
	sim_trace(REC_FREEZER, 0, 0, 0, 0, "freeze", NULL);
	system_freezing_cnt++;
	pm_freezing = true;
	pm_nosig_freezing = true;
	if (try_to_freeze_tasks()) {
		sim_trace(REC_FREEZER, 0, 0, 0, 0, "failed", NULL);
		thaw();
		return -EBUSY;
	}
	suspended = true;
	sim_trace(REC_FREEZER, 0, 0, 0, 0, "suspended", NULL);
	return 0;
}

static int resume_main(void *arg)
{
	(void)arg;
	if (!suspended)
		return 0;
	suspended = false;
	thaw();
	return 0;
}

void sim_suspend_at(uint64_t at)
{
	sim_spawn("suspend", suspend_main, NULL, 0, false, at);
}

void sim_resume_at(uint64_t at)
{
	sim_spawn("resume", resume_main, NULL, 0, false, at);
}

bool sim_suspended(void)
{
	return suspended;
}
