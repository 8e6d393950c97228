/*
 * The freezer and suspend, as kernel/freezer.c and kernel/power/process.c
 * of 6.12 have them. Suspend runs as a task of its own ("suspend"): it
 * freezes the kernel threads, waking every freezable one that sleeps
 * (wake_up_state(p, TASK_NORMAL): uninterruptible sleepers too), and retries
 * with sleeps of 1 ms doubling to 8 ms until all are frozen or jiffies pass
 * freeze_timeout (20 s). A timeout fails the suspend: the refusing tasks are
 * reported, everything is thawed, and the suspend is aborted.
 *
 * A frozen task sleeps in TASK_FROZEN, which no ordinary wake-up matches:
 * only the thaw wakes it. Under a 4.9 variant the refrigerator and
 * freeze_task() are 4.9's (refrigerator_v49(), freeze_task()).
 */
#include "machine.h"
#include <linux/freezer.h>
#include <linux/jiffies.h>

#include <stdio.h>

#define FREEZE_TIMEOUT_MS	20000U
#define FREEZE_SLEEP_MAX_US	8000U

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

/*
 * 4.9's refrigerator: the task sleeps in TASK_UNINTERRUPTIBLE with PF_FROZEN
 * (p->frozen) set, so any wake-up (wake_up_process from a queueing, from
 * kthread_stop) gets it out of schedule(); it goes round the loop, sees the
 * freeze still on, and sleeps again. It restores the state it came in with.
 */
static bool refrigerator_v49(bool check_kthr_stop)
{
	struct task_struct *p = current;
	unsigned int save = p->__state;
	bool was_frozen = false;

	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		p->frozen = freezing(p) && !(check_kthr_stop && p->should_stop);
		if (!p->frozen)
			break;
		if (!was_frozen)
			sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "frozen",
				  sim_intern(p->comm));
		was_frozen = true;
		sim_block("refrigerator", NULL, NULL);
	}
	set_current_state(save);
	if (was_frozen)
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "thawed", sim_intern(p->comm));
	return was_frozen;
}

/* Since 6.1: TASK_FROZEN, which no ordinary wake-up matches; only the thaw ends it. */
bool __refrigerator(bool check_kthr_stop)
{
	struct task_struct *p = current;
	bool was_frozen = false;

	if (!sim_era_since(6, 1))
		return refrigerator_v49(check_kthr_stop);
	for (;;) {
		__set_current_state(TASK_FROZEN);
		if (!freezing(p) || (check_kthr_stop && p->should_stop))
			break;
		/* each sleep here follows the first entry or a thaw that a new freeze overtook */
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "frozen", sim_intern(p->comm));
		p->frozen = true;
		was_frozen = true;
		sim_block("refrigerator", NULL, NULL);
	}
	p->frozen = false;
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

/*
 * freeze_task(): a kthread is woken to see the freeze request, in 6.1+
 * from any normal sleep (wake_up_state(p, TASK_NORMAL)), in 4.9 only from
 * an interruptible one (wake_up_state(p, TASK_INTERRUPTIBLE)); one that is
 * running or stays asleep is counted and left alone.
 */
static bool freeze_task(struct task_struct *p)
{
	if (!freezing(p) || p->frozen)
		return false;
	sim_wake(p, sim_era_since(6, 1) ? TASK_NORMAL : TASK_INTERRUPTIBLE);
	return true;
}

/*
 * __thaw_task(): 6.1+ wakes the frozen task from TASK_FROZEN, and it is no
 * longer frozen; 4.9 wakes it (wake_up_process), and the task itself clears
 * PF_FROZEN when it leaves the refrigerator.
 */
static void thaw_task(struct task_struct *p)
{
	if (!p->frozen)
		return;
	if (!sim_era_since(6, 1)) {
		sim_wake(p, TASK_NORMAL);
		return;
	}
	p->frozen = false;
	sim_wake(p, TASK_FROZEN);
}

/*
 * usleep_range(us / 2, us) sleeps on an hrtimer, not on the timer wheel: it
 * wakes at the upper bound, where the hrtimer of an otherwise quiet system
 * fires, to the nanosecond.
 */
static void freezer_usleep(unsigned int us)
{
	sim_sleep_until(sim_now() + (uint64_t)us * 1000ULL);
}

/* The refusing tasks, "comm:pid, ..." as sched_show_task() would name them. */
static void refusing_names(char *names, size_t len)
{
	struct task_struct *p;
	size_t n = 0;

	names[0] = '\0';
	list_for_each_entry(p, &sim.tasks, all_node) {
		if (p == current || p->__state == TASK_DEAD || !freezing(p) || p->frozen)
			continue;
		if (n < len)
			n += (size_t)snprintf(names + n, len - n, "%s%s:%d", n ? ", " : "", p->comm,
					      p->pid);
	}
}

static int try_to_freeze_tasks(void)
{
	unsigned long end_time = jiffies + msecs_to_jiffies(FREEZE_TIMEOUT_MS);
	unsigned int sleep_usecs = 1000, todo;
	uint64_t start = sim_now(), elapsed_ms;
	struct task_struct *p;
	char names[256];

	for (;;) {
		todo = 0;
		list_for_each_entry(p, &sim.tasks, all_node) {
			if (p == current || p->__state == TASK_DEAD)
				continue;
			if (freeze_task(p))
				todo++;
		}
		if (!todo || time_after(jiffies, end_time))
			break;
		freezer_usleep(sleep_usecs);
		if (sleep_usecs < FREEZE_SLEEP_MAX_US)
			sleep_usecs *= 2;
	}
	if (!todo)
		return 0;
	elapsed_ms = (sim_now() - start) / 1000000ULL;
	refusing_names(names, sizeof(names));
	sim_report(SIM_F_FREEZE_FAILED, NULL,
		   "Freezing remaining freezable tasks failed after %llu.%03llu seconds "
		   "(%u tasks refusing to freeze, wq_busy=0): %s",
		   (unsigned long long)(elapsed_ms / 1000), (unsigned long long)(elapsed_ms % 1000),
		   todo, names);
	return -EBUSY;
}

/* __thaw_task() for everyone: a frozen task is woken from TASK_FROZEN, and is no longer frozen. */
static void thaw(void)
{
	struct task_struct *p;

	pm_freezing = false;
	pm_nosig_freezing = false;
	if (system_freezing_cnt)
		system_freezing_cnt--;
	sim_trace(REC_FREEZER, 0, 0, 0, 0, "thaw", NULL);
	list_for_each_entry(p, &sim.tasks, all_node)
		thaw_task(p);
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
