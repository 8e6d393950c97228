/*
 * The freezer and suspend to RAM, as kernel/freezer.c, kernel/power/process.c
 * and kernel/power/suspend.c of 6.12 have them (4.9's sequence is the same).
 *
 * Suspend runs as a task of its own ("suspend", the writer of
 * /sys/power/state) through enter_state():
 *  - freeze_processes(): pm_freezing is set first, then try_to_freeze_tasks()
 *    walks the task list calling freeze_task() on each; user space only, so
 *    no kernel thread is asked (scenario threads are non-freezable kthreads).
 *  - freeze_kernel_threads(): pm_nosig_freezing is set, and the walk again:
 *    every freezable kthread that sleeps is woken to see the request. Each
 *    freeze_task() takes freezer_lock, a scheduling point, so other CPUs run
 *    between two tasks of the walk. Tasks left to freeze are retried after
 *    usleep_range(sleep_usecs / 2, sleep_usecs) with sleep_usecs 1, 2, 4, then
 *    8 ms for good, until none is left or jiffies pass freeze_timeout (20 s):
 *    then "Freezing of tasks failed", thaw_kernel_threads(), thaw_processes(),
 *    and the suspend is aborted.
 *  - suspend_enter(): devices, non-boot CPUs (sim/hotplug.c: tasks pushed
 *    off, bound kthreads unbound, timers moved), interrupts and timekeeping
 *    go down and the machine sleeps ("machine_suspend") until the wake-up, the
 *    first `resume at T` not yet taken. One already past wakes it at once (a
 *    simplification: the kernel aborts for a wake-up event it registered,
 *    and sleeps on for one it did not); with none the machine sleeps for
 *    good and the run ends there. The sleep is one step at the suspend
 *    task's clock: what another CPU does before that time (within the skew
 *    window) came before the stop. While it sleeps nothing runs, and nothing
 *    that counts in jiffies or the monotonic clock advances: the machine's
 *    clock (and the trace's, as sched_clock()) stands still, the boot clock
 *    alone counts the sleep (sim/clock.c). So a timer, a sleep or a busy-wait
 *    has, after the wake-up, exactly what it had left before; what the
 *    outside world meant to do meanwhile (a thread's start, an irq: the boot
 *    clock's events, sim_event_add_boot()) happens as the machine wakes. An
 *    irq for the suspending CPU is taken at arch_suspend_enable_irqs(),
 *    before the thaw.
 *  - the non-boot CPUs come back up (thaw_secondary_cpus());
 *    suspend_finish(): thaw_processes() thaws every frozen task in task-list
 *    order, kernel threads and user space in one pass (thaw_kernel_threads()
 *    is only freeze_kernel_threads()'s way out when it fails).
 * The devices' own callbacks are not modelled: those phases take only the
 * steps' costs, so between the freeze and the sleep, and between the wake-up
 * and the thaw, only what is already running or due gets to run.
 *
 * A frozen task sleeps in TASK_FROZEN, which no ordinary wake-up matches:
 * only the thaw wakes it. Under a 4.9 variant the refrigerator and
 * freeze_task() are 4.9's (refrigerator_v49(), freeze_task()).
 */
#include "machine.h"
#include <linux/freezer.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREEZE_TIMEOUT_MS	20000U
#define FREEZE_SLEEP_MAX_US	8000U

unsigned int system_freezing_cnt;
bool pm_freezing;
bool pm_nosig_freezing;


void sim_freezer_init(void)
{
	system_freezing_cnt = 0;
	pm_freezing = false;
	pm_nosig_freezing = false;
	sim.suspend.suspended = false;
	sim.suspend.in_transition = false;
	sim.suspend.nwakeups = 0;
	sim.suspend.nsleeps = 0;
	sim.suspend.hotplug_disabled = false;
}

void sim_freezer_fini(bool keep)
{
	sim.suspend.nwakeups = 0;
	if (keep)
		return;
	free(sim.suspend.wakeups);
	sim.suspend.wakeups = NULL;
	sim.suspend.nwakeups = sim.suspend.capwakeups = 0;
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
				  sim_task_comm(p));
		was_frozen = true;
		sim_block("refrigerator", NULL, NULL);
	}
	set_current_state(save);
	if (was_frozen)
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "thawed", sim_task_comm(p));
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
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "frozen", sim_task_comm(p));
		p->frozen = true;
		was_frozen = true;
		sim_block("refrigerator", NULL, NULL);
	}
	p->frozen = false;
	__set_current_state(TASK_RUNNING);
	if (was_frozen)
		sim_trace(REC_FREEZER, (uint64_t)p->pid, 0, 0, 0, "thawed", sim_task_comm(p));
	return was_frozen;
}

/*
 * lockdep's debug_check_no_locks_held() before a freezable task freezes: 4.9
 * checks at every call of try_to_freeze() (before its might_sleep(); here just
 * after: a preemption there changes no lock the task holds), 6.1+ only once
 * freezing() said yes (include/linux/freezer.h:57 in both).
 */
void try_to_freeze_check_locks(bool freezing)
{
	if (freezing == sim_era_since(6, 1) && !(current->flags & PF_NOFREEZE))
		debug_check_no_locks_held();
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

/* The suspend_resume tracepoint: "freeze_processes[0] begin" and the like. */
static void trace_suspend_resume(const char *action, int val, bool start, uint64_t slept)
{
	/* d: the boot clock's lead over the machine's, once it has slept */
	sim_trace(REC_FREEZER, 0, (uint64_t)val, start, slept, action, NULL);
}

void sim_trace_suspend_resume(const char *action, int val, bool start)
{
	trace_suspend_resume(action, val, start, 0);
}

#define PM_SUSPEND_TO_IDLE	1
#define PM_SUSPEND_MEM		3

/* The state a write of "mem" enters: mem_sleep_current (the mem_sleep setting). */
static int mem_sleep_state(void)
{
	return sim.cfg.mem_sleep == SIM_MEM_SLEEP_S2IDLE ? PM_SUSPEND_TO_IDLE : PM_SUSPEND_MEM;
}

static int try_to_freeze_tasks(bool user_only)
{
	const char *what = user_only ? "user space processes" : "remaining freezable tasks";
	unsigned long end_time = jiffies + msecs_to_jiffies(FREEZE_TIMEOUT_MS);
	unsigned int sleep_usecs = 1000, todo;
	uint64_t start = sim_boot_now(), elapsed_ms;
	struct task_struct *p;
	char names[256];

	for (;;) {
		todo = 0;
		list_for_each_entry(p, &sim.tasks, all_node) {
			if (p == current || p->__state == TASK_DEAD)
				continue;
			/* freeze_task() takes freezer_lock: the other CPUs go on meanwhile */
			sim_point(sim.cfg.costs.lock, POINT_ATOMIC);
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
	elapsed_ms = (sim_boot_now() - start) / 1000000ULL;
	refusing_names(names, sizeof(names));
	sim_report(SIM_F_FREEZE_FAILED, NULL,
		   "Freezing %s failed after %llu.%03llu seconds "
		   "(%u tasks refusing to freeze, wq_busy=0): %s", what,
		   (unsigned long long)(elapsed_ms / 1000), (unsigned long long)(elapsed_ms % 1000),
		   todo, names);
	return -EBUSY;
}

/* __thaw_task() for each task in list order: a frozen task is woken from TASK_FROZEN. */
static void thaw_tasks(bool kthreads_only)
{
	struct task_struct *p;

	list_for_each_entry(p, &sim.tasks, all_node)
		if (!kthreads_only || (p->flags & PF_KTHREAD))
			thaw_task(p);
}

static void thaw_processes(void)
{
	trace_suspend_resume("thaw_processes", 0, true, 0);
	if (system_freezing_cnt)
		system_freezing_cnt--;
	pm_freezing = false;
	pm_nosig_freezing = false;
	thaw_tasks(false);
	current->flags &= ~PF_SUSPEND_TASK;
	sim.suspend.suspended = false;
	trace_suspend_resume("thaw_processes", 0, false, 0);
}

/* On failure only the kernel threads: the caller thaws user space (thaw_processes). */
static int freeze_kernel_threads(void)
{
	int error;

	pm_nosig_freezing = true;
	error = try_to_freeze_tasks(false);
	if (error) {
		pm_nosig_freezing = false;
		thaw_tasks(true);
	}
	return error;
}

static int freeze_processes(void)
{
	int error;

	current->flags |= PF_SUSPEND_TASK;
	system_freezing_cnt++;
	pm_freezing = true;
	error = try_to_freeze_tasks(true);
	if (error)
		thaw_processes();
	return error;
}

static bool next_wakeup(uint64_t *at)
{
	if (!sim.suspend.nwakeups)
		return false;
	*at = sim.suspend.wakeups[0];
	memmove(sim.suspend.wakeups, sim.suspend.wakeups + 1,
		--sim.suspend.nwakeups * sizeof(sim.suspend.wakeups[0]));
	return true;
}

/*
 * suspend_enter()'s heart: with the other CPUs down and interrupts off, the
 * machine sleeps until the wake-up. Nothing runs in between, so it is one
 * step: the boot clock jumps, the machine's clock does not.
 */
static void machine_suspend(void)
{
	uint64_t wake, now = sim_boot_now(), slept;

	trace_suspend_resume("machine_suspend", mem_sleep_state(), true, 0);
	if (!next_wakeup(&wake)) {
		/* no wake-up is coming: the machine sleeps for good, the run is over */
		sim_halt(SIM_END_QUIESCENT);
		__set_current_state(TASK_UNINTERRUPTIBLE);
		sim_block("machine_suspend", NULL, NULL);
		return;
	}
	slept = wake > now ? wake - now : 0;
	sim_events_slept(sim_now(), slept);
	sim.slept_ns += slept;
	sim.suspend.nsleeps++;
	trace_suspend_resume("machine_suspend", mem_sleep_state(), false, sim.slept_ns);
	/* syscore_resume(): timekeeping_resume()'s tk_debug_account_sleep_time() */
	printk(KERN_INFO "PM: Timekeeping suspended for %llu.%03llu seconds\n",
	       (unsigned long long)(slept / 1000000000ULL),
	       (unsigned long long)(slept % 1000000000ULL / 1000000ULL));
}

/* enter_state(mem_sleep_current), its steps as 6.12 traces them. */
static int suspend(void)
{
	bool s2idle = sim.cfg.mem_sleep == SIM_MEM_SLEEP_S2IDLE;
	int error;

	trace_suspend_resume("suspend_enter", mem_sleep_state(), true, 0);
	/* ksys_sync_helper(): no file systems here, nothing to write back */
	trace_suspend_resume("sync_filesystems", 0, true, 0);
	trace_suspend_resume("sync_filesystems", 0, false, 0);
	trace_suspend_resume("freeze_processes", 0, true, 0);
	error = freeze_processes();
	if (!error) {
		sim.suspend.suspended = true;
		error = freeze_kernel_threads();
		if (error)
			thaw_processes();
	}
	trace_suspend_resume("freeze_processes", 0, false, 0);
	if (error)
		return error;
	trace_suspend_resume("suspend_enter", mem_sleep_state(), false, 0);
	/*
	 * suspend_enter() (kernel/power/suspend.c:437 in 6.12, :438 in 6.1,
	 * pm_sleep_disable_secondary_cpus()): the non-boot
	 * CPUs go down (sim/hotplug.c); on failure they come back and the
	 * suspend ends there, its tasks thawed. Suspend to idle keeps them
	 * (s2idle_loop() first, suspend.c:431).
	 */
	if (s2idle || !sim_freeze_secondary_cpus()) {
		local_irq_disable();	/* arch_suspend_disable_irqs() */
		machine_suspend();
		/*
		 * arch_suspend_enable_irqs(): an interrupt that came while the
		 * machine slept is taken here, before any frozen task is thawed.
		 */
		local_irq_enable();
	}
	if (!s2idle)
		sim_thaw_secondary_cpus();	/* pm_sleep_enable_secondary_cpus(), suspend.c:467 */
	thaw_processes();
	return 0;
}

/*
 * A write to /sys/power/state: enter_state() takes system_transition_mutex
 * with mutex_trylock(), so a suspend asked for while another is under way
 * fails at once with -EBUSY; it is not queued behind it.
 */
static int suspend_main(void *arg)
{
	int error;

	(void)arg;
	if (sim.suspend.in_transition)
		return -EBUSY;	/* the writer's error: the kernel traces nothing */
	sim.suspend.in_transition = true;
	error = suspend();
	sim.suspend.in_transition = false;
	return error;
}

void sim_suspend_at(uint64_t at)
{
	sim_spawn("suspend", suspend_main, NULL, 0, false, at);
}

/* A wake-up (an RTC alarm, a key press): the next sleep ends at the earliest one left. */
void sim_resume_at(uint64_t at)
{
	size_t i = sim.suspend.nwakeups;

	if (sim.suspend.nwakeups == sim.suspend.capwakeups)
		sim.suspend.wakeups = sim_grow(sim.suspend.wakeups, &sim.suspend.capwakeups, sizeof(*sim.suspend.wakeups), 8);
	for (; i > 0 && sim.suspend.wakeups[i - 1] > at; i--)
		sim.suspend.wakeups[i] = sim.suspend.wakeups[i - 1];
	sim.suspend.wakeups[i] = at;
	sim.suspend.nwakeups++;
}

unsigned int sim_sleeps(void)
{
	return sim.suspend.nsleeps;
}

bool sim_suspended(void)
{
	return sim.suspend.suspended;
}
