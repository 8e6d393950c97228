/*
 * Tasks, CPUs and the scheduling loop: what this suite pins down.
 *  - a wake-up between set_current_state(TASK_INTERRUPTIBLE) and schedule()
 *    is not lost: schedule() returns at once, whether the window is only the
 *    barrier's scheduling point or holds work;
 *  - kthread_create does not run threadfn until woken, kthread_run does;
 *    kthread_stop before the first run returns -EINTR without running
 *    threadfn, otherwise threadfn's value; kthread_should_stop;
 *  - kthread_bind / kthread_create_on_cpu keep a thread on its CPU across
 *    sleeps, even when that CPU is busy and another is idle; binding a
 *    started thread is a WARN and changes nothing;
 *  - wake-up placement: the previous CPU if idle, else the lowest idle one;
 *  - preemption models: a task woken onto a CPU running a udelay loop runs
 *    at the next point under FULL, at might_sleep under VOLUNTARY, only at
 *    cond_resched under NONE; preempt_disable defers it to preempt_enable;
 *    an interrupt taken at a might_sleep point leaves it a preemption point;
 *    cond_resched returns 1 only when it switched;
 *  - msleep sleeps msecs_to_jiffies + 1 jiffies plus the wheel's rounding,
 *    schedule_timeout returns what is left; udelay/ndelay/mdelay take
 *    exactly their time, interrupts included;
 *  - a hardirq on a CPU with irqs disabled runs right after
 *    local_irq_enable, in hardirq context with irqs off; in_task,
 *    in_interrupt, in_irq, in_softirq in task, hardirq and timer context;
 *  - 64 CPUs run 64 bound tasks side by side;
 *  - wake_up_process from a plain event, onto another CPU; the wake-up's
 *    sched_waking is on the CPU the task goes to, in the task that CPU runs
 *    (never the idle task while another runs there), once it caught up;
 *  - the ends: deadlock (naming both tasks; the finding is the first blocked
 *    task's, each line at its blocked call and note, whatever ran last;
 *    scheduling in an interrupt is __schedule_bug()'s message and stops the
 *    machine), quiescent with interruptible
 *    sleepers, the hung-task report for a long uninterruptible sleep.
 */
#include "../harness.h"

#include <linux/sched.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/completion.h>
#include <linux/timer.h>

#include <stdio.h>
#include <string.h>

/* The default costs, as sim_config_default sets them. */
#define C_POINT		5
#define C_TOGGLE	5
#define C_SWITCH	1500
#define C_WAKEUP	300
#define C_IRQ		500

/* Jiffies at boot for HZ=250, and a jiffy in ns there. */
#define J0		4294892296UL
#define TICK		4000000ULL

static struct sim_config zero_cost_config(int ncpus)
{
	struct sim_config cfg = h_config(ncpus);

	memset(&cfg.costs, 0, sizeof(cfg.costs));
	return cfg;
}

static void init_preempt(int ncpus, enum sim_preempt model)
{
	struct sim_config cfg = h_config(ncpus);

	cfg.preempt = model;
	h_init_cfg(&cfg);
}

/* Sleep interruptibly until woken, the kernel's way. */
static void sleep_once(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
}

static int sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		sleep_once();
	return 0;
}

/* --- the lost wake-up window ----------------------------------------------------- */

static struct task_struct *sleeper;
static uint64_t t_wake, t_before, t_after;
static int wake_ret = -1;
static bool sleeper_done;
static uint64_t switches_before, switches_after;

static int window_sleeper(void *arg)
{
	(void)arg;
	udelay(10);
	set_current_state(TASK_INTERRUPTIBLE);
	/* the window: the condition would be checked here */
	t_before = sim_now();
	switches_before = current->nr_switches;
	schedule();
	t_after = sim_now();
	switches_after = current->nr_switches;
	sleeper_done = true;
	return 0;
}

/* Polls, one ns at a time, for the sleeper to announce its sleep, then wakes it. */
static int window_waker(void *arg)
{
	(void)arg;
	while (READ_TASK_STATE(sleeper) != TASK_INTERRUPTIBLE)
		ndelay(1);
	wake_ret = wake_up_process(sleeper);
	t_wake = sim_now();
	return 0;
}

/*
 * With a scheduling point dearer than a wake-up, the waker on cpu1 fits
 * entirely into the sleeper's set_current_state barrier on cpu0: both reach
 * 11500 ns (cpu0 first on the tie); the sleeper's state is set and its point
 * lasts to 12500; the waker sees the state at 11500 and its wake-up is done
 * at 11800, before the sleeper reaches schedule().
 */
START_TEST(wakeup_in_barrier_window_not_lost)
{
	struct sim_config cfg = h_config(2);

	cfg.costs.point = 1000;
	h_init_cfg(&cfg);
	sleeper = sim_spawn("sleeper", window_sleeper, NULL, 0, true, 0);
	sim_spawn("waker", window_waker, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(wake_ret, 1);
	ck_assert_uint_eq(t_wake, 11800);
	ck_assert_uint_eq(t_before, 12500);
	ck_assert(t_wake < t_before);
	ck_assert(sleeper_done);
	/* schedule() saw TASK_RUNNING: one scheduling point, no switch */
	ck_assert_uint_eq(t_after, t_before + 1000);
	ck_assert_uint_eq(switches_after, switches_before);
}
END_TEST

static int busy_window_sleeper(void *arg)
{
	(void)arg;
	set_current_state(TASK_INTERRUPTIBLE);
	udelay(100);		/* work in the window: the wake-up lands here */
	t_before = sim_now();
	switches_before = current->nr_switches;
	schedule();
	t_after = sim_now();
	switches_after = current->nr_switches;
	sleeper_done = true;
	return 0;
}

static int plain_waker(void *arg)
{
	(void)arg;
	wake_ret = wake_up_process(sleeper);
	t_wake = sim_now();
	return 0;
}

START_TEST(wakeup_in_busy_window_not_lost)
{
	h_init(2);
	sleeper = sim_spawn("sleeper", busy_window_sleeper, NULL, 0, true, 0);
	sim_spawn("waker", plain_waker, NULL, 1, true, 50000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(wake_ret, 1);
	ck_assert_uint_eq(t_wake, 50000 + C_SWITCH + C_WAKEUP);
	ck_assert_uint_eq(t_before, C_SWITCH + C_POINT + 100000);
	ck_assert(sleeper_done);
	ck_assert_uint_eq(t_after, t_before + C_POINT);
	ck_assert_uint_eq(switches_after, switches_before);
}
END_TEST

/* --- kthreads ------------------------------------------------------------------------ */

static int kfn_runs, kfn_cpu = -1;
static uint64_t kfn_start;
static struct task_struct *kfn_self;

static int kfn(void *arg)
{
	kfn_runs++;
	kfn_cpu = smp_processor_id();
	kfn_start = sim_now();
	kfn_self = current;
	return (int)(intptr_t)arg;
}

static struct task_struct *made;
static unsigned int state_before_wake;
static int runs_before_wake = -1;
static uint64_t woken_at;

static int create_then_wake(void *arg)
{
	(void)arg;
	made = kthread_create(kfn, NULL, "k%d", 7);
	udelay(1000);
	runs_before_wake = kfn_runs;
	state_before_wake = READ_TASK_STATE(made);
	woken_at = sim_now();
	wake_ret = wake_up_process(made);
	return 0;
}

START_TEST(kthread_create_waits_for_wake)
{
	h_init(2);
	sim_spawn("creator", create_then_wake, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_str_eq(made->comm, "k7");
	ck_assert_int_eq(runs_before_wake, 0);
	ck_assert_uint_eq(state_before_wake, TASK_UNINTERRUPTIBLE);
	ck_assert_int_eq(wake_ret, 1);
	ck_assert_int_eq(kfn_runs, 1);
	ck_assert_ptr_eq(kfn_self, made);
	/* the creator keeps cpu0 busy: the new thread goes to idle cpu1 */
	ck_assert_int_eq(kfn_cpu, 1);
	ck_assert_uint_eq(kfn_start, woken_at + C_WAKEUP + C_SWITCH);
	ck_assert_uint_eq(READ_TASK_STATE(made), TASK_DEAD);
}
END_TEST

static int create_never_wake(void *arg)
{
	(void)arg;
	made = kthread_create(kfn, NULL, "never");
	return 0;
}

START_TEST(kthread_never_woken_never_runs)
{
	h_init(2);
	sim_spawn("creator", create_never_wake, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(kfn_runs, 0);
	ck_assert(!made->started);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

static int run_one(void *arg)
{
	(void)arg;
	made = kthread_run(kfn, NULL, "run/%d", 3);
	return 0;
}

START_TEST(kthread_run_runs)
{
	h_init(2);
	sim_spawn("creator", run_one, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_str_eq(made->comm, "run/3");
	ck_assert_int_eq(kfn_runs, 1);
	ck_assert_int_eq(kfn_cpu, 1);
}
END_TEST

static int stop_ret;

static int stop_before_run(void *arg)
{
	(void)arg;
	made = kthread_create(kfn, (void *)(intptr_t)5, "unborn");
	stop_ret = kthread_stop(made);
	return 0;
}

START_TEST(kthread_stop_before_first_run)
{
	h_init(2);
	sim_spawn("stopper", stop_before_run, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(stop_ret, -EINTR);
	ck_assert_int_eq(kfn_runs, 0);
	ck_assert_int_eq(made->exit_code, -EINTR);
	ck_assert_uint_eq(READ_TASK_STATE(made), TASK_DEAD);
}
END_TEST

static bool stop_seen_first = true, stop_seen_last, stop_seen_by_stopper = true;
static int loops;

static int stoppable(void *arg)
{
	(void)arg;
	stop_seen_first = kthread_should_stop();
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		schedule();
		loops++;
	}
	stop_seen_last = kthread_should_stop();
	return 42;
}

static int run_then_stop(void *arg)
{
	(void)arg;
	made = kthread_run(stoppable, NULL, "stoppable");
	msleep(1);
	stop_seen_by_stopper = kthread_should_stop();
	stop_ret = kthread_stop(made);
	return 0;
}

START_TEST(kthread_stop_returns_threadfn_value)
{
	h_init(2);
	sim_spawn("stopper", run_then_stop, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(stop_ret, 42);
	ck_assert(!stop_seen_first);
	ck_assert(stop_seen_last);
	ck_assert(!stop_seen_by_stopper);
	/* it slept once, and kthread_stop's wake-up ended the sleep */
	ck_assert_int_eq(loops, 1);
	ck_assert_uint_eq(READ_TASK_STATE(made), TASK_DEAD);
}
END_TEST

static int stop_after_exit(void *arg)
{
	(void)arg;
	made = kthread_run(kfn, (void *)(intptr_t)7, "quick");
	msleep(10);
	stop_ret = kthread_stop(made);
	return 0;
}

START_TEST(kthread_stop_after_exit)
{
	h_init(2);
	sim_spawn("stopper", stop_after_exit, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(kfn_runs, 1);
	ck_assert_int_eq(stop_ret, 7);
}
END_TEST

/* --- binding ----------------------------------------------------------------------- */

#define NSTAYS 4
static int stay_cpu[NSTAYS], stay_task_cpu[NSTAYS], stays;
static int created_cpu = -1;

static int percpu_fn(void *arg)
{
	(void)arg;
	while (stays < NSTAYS) {
		stay_cpu[stays] = smp_processor_id();
		stay_task_cpu[stays] = task_cpu(current);
		stays++;
		msleep(1);
	}
	return 0;
}

/* Keeps cpu1 busy, letting others in only at cond_resched. */
static int hog_cpu1(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		udelay(500);
		cond_resched();
	}
	return 0;
}

static int create_on_cpu(void *arg)
{
	(void)arg;
	made = kthread_create_on_cpu(percpu_fn, NULL, 1, "pcpu/%u");
	created_cpu = task_cpu(made);
	wake_up_process(made);
	return 0;
}

static int create_and_bind(void *arg)
{
	(void)arg;
	made = kthread_create(percpu_fn, NULL, "bound");
	kthread_bind(made, 1);
	created_cpu = task_cpu(made);
	wake_up_process(made);
	return 0;
}

static void check_stays_on_cpu1(void)
{
	ck_assert_int_eq(created_cpu, 1);
	ck_assert_int_eq(stays, NSTAYS);
	for (int i = 0; i < NSTAYS; i++) {
		ck_assert_int_eq(stay_cpu[i], 1);
		ck_assert_int_eq(stay_task_cpu[i], 1);
	}
	ck_assert(made->flags & PF_NO_SETAFFINITY);
	ck_assert_uint_eq(sim_finding_count(), 0);
}

START_TEST(kthread_create_on_cpu_stays)
{
	h_init(2);
	sim_spawn("hog", hog_cpu1, NULL, 1, true, 0);
	sim_spawn("creator", create_on_cpu, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_str_eq(made->comm, "pcpu/1");
	check_stays_on_cpu1();
}
END_TEST

START_TEST(kthread_bind_stays)
{
	h_init(2);
	sim_spawn("hog", hog_cpu1, NULL, 1, true, 0);
	sim_spawn("creator", create_and_bind, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	check_stays_on_cpu1();
}
END_TEST

static int bind_started(void *arg)
{
	(void)arg;
	made = kthread_run(stoppable, NULL, "started");
	msleep(1);
	kthread_bind(made, 0);
	stop_ret = kthread_stop(made);
	return 0;
}

START_TEST(kthread_bind_started_warns)
{
	h_init(2);
	sim_spawn("binder", bind_started, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_WARN), 1);
	ck_assert_int_eq(made->bound_cpu, -1);
	ck_assert_int_eq(stop_ret, 42);
}
END_TEST

/* --- wake-up placement -------------------------------------------------------------- */

static int placed[3], nplaced;

static int placed_sleeper(void *arg)
{
	(void)arg;
	for (;;) {
		if (nplaced < 3)
			placed[nplaced++] = smp_processor_id();
		sleep_once();
	}
	return 0;
}

static int place_waker(void *arg)
{
	(void)arg;
	udelay(100);
	wake_up_process(sleeper);	/* cpu2, where it slept, is idle */
	udelay(100);
	wake_up_process(sleeper);	/* cpu2 is busy now; cpu1 is the lowest idle */
	return 0;
}

static int busy_1ms(void *arg)
{
	(void)arg;
	udelay(1000);
	return 0;
}

START_TEST(wake_placement_prefers_idle)
{
	h_init(3);
	sleeper = sim_spawn("sleeper", placed_sleeper, NULL, 2, false, 0);
	sim_spawn("waker", place_waker, NULL, 0, true, 0);
	sim_spawn("busy", busy_1ms, NULL, 2, true, 150000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(nplaced, 3);
	ck_assert_int_eq(placed[0], 2);
	ck_assert_int_eq(placed[1], 2);
	ck_assert_int_eq(placed[2], 1);
}
END_TEST

/* --- preemption models --------------------------------------------------------------- */

static uint64_t b_start, t_loop_end, t_before_cr;
static int cr_ret = -1;

static int udelay_loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		udelay(100);
	t_loop_end = sim_now();
	might_sleep();
	udelay(100);
	t_before_cr = sim_now();
	cr_ret = cond_resched();
	return 0;
}

static int note_start(void *arg)
{
	(void)arg;
	b_start = sim_now();
	return 0;
}

static const struct {
	enum sim_preempt model;
	uint64_t b_start;
	int cr_ret;
} preempt_table[] = {
	/* the udelay under way at 1.6 ms ends at 1601500: the next point */
	{ SIM_PREEMPT_FULL, 1601500 + C_SWITCH, 0 },
	/* might_sleep() after the loop, at 2001500 */
	{ SIM_PREEMPT_VOLUNTARY, 2001500 + C_POINT + C_SWITCH, 0 },
	/* only cond_resched(), 100 us later */
	{ SIM_PREEMPT_NONE, 2101505 + C_POINT + C_SWITCH, 1 },
};

/*
 * B wakes when A has had cpu0 for longer than the base slice (1.4 ms with
 * 2 CPUs), so the faithful answer is to preempt; where A yields is the
 * preemption model's.
 */
START_TEST(preemption_models)
{
	init_preempt(2, preempt_table[_i].model);
	/* the loop owns cpu0 from 1500 ns; cpu1 stays idle, but B is bound to cpu0 */
	sim_spawn("A", udelay_loop, NULL, 0, true, 0);
	sim_spawn("B", note_start, NULL, 0, true, 1600000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	if (preempt_table[_i].model != SIM_PREEMPT_FULL)
		ck_assert_uint_eq(t_loop_end, 2001500);
	if (preempt_table[_i].model == SIM_PREEMPT_NONE)
		ck_assert_uint_eq(t_before_cr, 2101505);
	ck_assert_uint_eq(b_start, preempt_table[_i].b_start);
	ck_assert_int_eq(cr_ret, preempt_table[_i].cr_ret);
}
END_TEST

/* --- wake-up preemption is a decision ------------------------------------------------------ */

static uint64_t t_a_end;

static int short_loop(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		udelay(100);
	t_a_end = sim_now();
	return 0;
}

static size_t count_why(enum sim_why why)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_decision_count(); i++)
		n += sim_decisions()[i].why == why;
	return n;
}

/* One CPU, full preemption: B wakes 50 us into A's 0.7 ms slice. */
static void run_wake_in_slice(enum sim_strategy strategy, uint64_t seed)
{
	struct sim_config cfg = h_config(1);

	cfg.preempt = SIM_PREEMPT_FULL;
	cfg.strategy = strategy;
	cfg.seed = seed;
	h_init_cfg(&cfg);
	sim_spawn("A", short_loop, NULL, 0, true, 0);
	sim_spawn("B", note_start, NULL, 0, true, 50000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(count_why(SIM_WHY_WAKE), 1);
}

/*
 * EEVDF's RUN_TO_PARITY: a task inside the slice it was picked for keeps
 * the CPU against a zero-lag wakee, even under full preemption: B runs
 * when A is done.
 */
START_TEST(wakeup_within_slice_does_not_preempt)
{
	run_wake_in_slice(SIM_STRATEGY_FAITHFUL, 1);
	ck_assert_uint_eq(t_a_end, C_SWITCH + 300000);
	ck_assert_uint_gt(b_start, t_a_end);
	ck_assert_uint_eq(h_trace_count(REC_SCHED_SWITCH), 3);	/* A in, B in, idle in */
}
END_TEST

/* Either way the kernel could go, the random strategy goes, over a bounded set of seeds. */
START_TEST(wakeup_preemption_is_a_decision)
{
	int preempted = 0, waited = 0;

	for (uint64_t seed = 1; seed <= 40; seed++) {
		run_wake_in_slice(SIM_STRATEGY_RANDOM, seed);
		preempted += b_start < t_a_end;
		waited += b_start > t_a_end;
		sim_fini();
	}
	ck_assert_int_eq(preempted + waited, 40);
	ck_assert_int_gt(preempted, 0);
	ck_assert_int_gt(waited, 0);
}
END_TEST

/* Onto an idle CPU there is nothing to decide: the idle task always yields. */
START_TEST(wakeup_onto_idle_is_no_decision)
{
	h_init(1);
	sim_spawn("B", note_start, NULL, 0, true, 50000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(count_why(SIM_WHY_WAKE), 0);
	ck_assert_uint_eq(b_start, 50000 + C_SWITCH);
}
END_TEST

/* --- an interrupt at a voluntary preemption point --------------------------------------- */

static struct task_struct *irq_wakee;
static uint64_t t_after_might;

static void wake_from_irq(void *arg)
{
	(void)arg;
	wake_up_process(irq_wakee);
}

static int sleep_then_note(void *arg)
{
	(void)arg;
	sleep_once();
	b_start = sim_now();
	return 0;
}

static int might_sleep_after_udelay(void *arg)
{
	(void)arg;
	udelay(800);
	might_sleep();		/* the interrupt is taken here, before the resched check */
	t_after_might = sim_now();
	udelay(100);
	return 0;
}

/*
 * VOLUNTARY: A's might_sleep() point at 811505 finds an interrupt that came
 * in at 811502; its handler (entered at 812005) wakes B onto A's CPU, A
 * having had it for more than the base slice (0.7 ms on one CPU). Back
 * from the interrupt A is still at its might_sleep point, a preemption
 * point: B runs at once, A only after B is done.
 */
START_TEST(irq_wakeup_preempts_at_might_sleep)
{
	init_preempt(1, SIM_PREEMPT_VOLUNTARY);
	irq_wakee = sim_spawn("B", sleep_then_note, NULL, 0, true, 0);
	sim_spawn("A", might_sleep_after_udelay, NULL, 0, true, 10000);
	sim_irq_at(811502, 0, "dev", wake_from_irq, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(b_start, 811505 + C_IRQ + C_WAKEUP + C_SWITCH);
	ck_assert_uint_gt(t_after_might, b_start);
}
END_TEST

static uint64_t t_enable;

static int preempt_off_loop(void *arg)
{
	(void)arg;
	preempt_disable();
	for (int i = 0; i < 8; i++)
		udelay(100);
	t_enable = sim_now();
	preempt_enable();
	return 0;
}

START_TEST(preempt_disable_defers_preemption)
{
	init_preempt(1, SIM_PREEMPT_FULL);
	/* past A's base slice (0.7 ms on one CPU): B would preempt at once */
	sim_spawn("A", preempt_off_loop, NULL, 0, true, 0);
	sim_spawn("B", note_start, NULL, 0, true, 750000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(t_enable, C_SWITCH + C_TOGGLE + 800000);
	ck_assert_uint_eq(b_start, t_enable + C_TOGGLE + C_SWITCH);
}
END_TEST

static uint64_t t_cr0, t_cr1;

static int lonely_cond_resched(void *arg)
{
	(void)arg;
	t_cr0 = sim_now();
	cr_ret = cond_resched();
	t_cr1 = sim_now();
	return 0;
}

START_TEST(cond_resched_without_competition)
{
	init_preempt(1, SIM_PREEMPT_NONE);
	sim_spawn("A", lonely_cond_resched, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(cr_ret, 0);
	ck_assert_uint_eq(t_cr1, t_cr0 + C_POINT);
}
END_TEST

/* --- sleeping on the timer wheel --------------------------------------------------- */

static uint64_t slept_from, slept_to;
static unsigned int sleep_ms;

static int msleeper(void *arg)
{
	(void)arg;
	slept_from = sim_now();
	msleep(sleep_ms);
	slept_to = sim_now();
	return 0;
}

/*
 * msleep(10) at HZ=250: msecs_to_jiffies(10) = 3 jiffies past the jiffy it
 * starts in, +1 until 6.11 (6.12 dropped the historical extra jiffy); the
 * wheel files a level-0 timer one jiffy further (calc_index rounds up), so
 * on 6.1 it fires at the start of jiffy start+5, on 6.12 of start+4. With
 * every cost zero the task is back exactly then.
 */
static const struct { uint64_t start, end; } msleep_table[] = {
	{ 0, 5 * TICK },
	{ 1000000, 5 * TICK },
	{ TICK - 1, 5 * TICK },
	{ TICK, 6 * TICK },
	{ TICK + 1000000, 6 * TICK },
};

/* The sleep of msleep_table[i] on an era: 6.12's is one jiffy shorter. */
static uint64_t msleep_end(int i, unsigned int era)
{
	return msleep_table[i].end - (era >= SIM_ERA(6, 12) ? TICK : 0);
}

START_TEST(msleep_exact_jiffies)
{
	static const unsigned int eras[] = { SIM_ERA(4, 9), SIM_ERA(6, 1), SIM_ERA(6, 12) };

	for (size_t e = 0; e < sizeof(eras) / sizeof(eras[0]); e++) {
		struct sim_config cfg = zero_cost_config(1);

		cfg.era = eras[e];
		ck_assert_int_eq(sim_reset(&cfg), 0);
		sleep_ms = 10;
		sim_spawn("sleeper", msleeper, NULL, 0, true, msleep_table[_i].start);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(slept_from, msleep_table[_i].start);
		ck_assert_uint_eq(slept_to, msleep_end(_i, eras[e]));
	}
}
END_TEST

START_TEST(msleep_other_hz)
{
	/*
	 * HZ=1000, msleep(1): 1 (+1 before 6.12) jiffies, +1 in the wheel: 3 ms
	 * on 6.1, 2 ms on 6.12. HZ=100, msleep(10): 30 ms on 6.1, 20 on 6.12.
	 */
	for (int old = 0; old < 2; old++) {
		struct sim_config cfg = zero_cost_config(1);
		uint64_t jiffy = _i ? 10000000 : 1000000;

		cfg.hz = _i ? 100 : 1000;
		cfg.era = old ? SIM_ERA(6, 1) : SIM_ERA(6, 12);
		ck_assert_int_eq(sim_reset(&cfg), 0);
		sleep_ms = _i ? 10 : 1;
		sim_spawn("sleeper", msleeper, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(slept_to, (old ? 3 : 2) * jiffy);
	}
}
END_TEST

START_TEST(msleep_timer_fires_on_the_jiffy)
{
	const struct sim_rec *r = NULL;

	h_init(1);		/* 6.12: 3 jiffies, +1 in the wheel */
	sleep_ms = 10;
	sim_spawn("sleeper", msleeper, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == REC_TIMER_EXPIRE_ENTRY)
			r = &sim_trace_records()[i];
	ck_assert_ptr_nonnull(r);
	/* the tick at 16 ms raises the softirq; its entry costs irq_entry */
	ck_assert_uint_eq(r->time, 4 * TICK + C_IRQ);
	ck_assert_uint_eq(r->b, J0 + 4);
	ck_assert_uint_ge(slept_to, 4 * TICK + C_IRQ + C_SWITCH);
}
END_TEST

static long st_left = -1, st_expired = -1;
static uint64_t st_early_at, st_expired_at;

static int timeout_sleeper(void *arg)
{
	(void)arg;
	st_left = schedule_timeout_interruptible(10);
	st_early_at = sim_now();
	st_expired = schedule_timeout_uninterruptible(2);
	st_expired_at = sim_now();
	return 0;
}

START_TEST(schedule_timeout_returns_remaining)
{
	struct sim_config cfg = zero_cost_config(2);

	h_init_cfg(&cfg);
	sleeper = sim_spawn("sleeper", timeout_sleeper, NULL, 0, true, 0);
	/* woken at 13 ms, in jiffy J0+3 of the J0+10 it waits for */
	sim_spawn("waker", plain_waker, NULL, 1, true, 13000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(wake_ret, 1);
	ck_assert_uint_eq(st_early_at, 13000000);
	ck_assert_int_eq(st_left, 7);
	/* from jiffy J0+3: expires J0+5, filed at J0+6 */
	ck_assert_int_eq(st_expired, 0);
	ck_assert_uint_eq(st_expired_at, 6 * TICK);
}
END_TEST

/* --- busy delays -------------------------------------------------------------------- */

static uint64_t d[4];

static int delays(void *arg)
{
	(void)arg;
	d[0] = sim_now();
	udelay(123);
	d[1] = sim_now();
	ndelay(7);
	d[2] = sim_now();
	mdelay(2);
	d[3] = sim_now();
	return 0;
}

START_TEST(delays_take_exactly_their_time)
{
	h_init(1);
	sim_spawn("delays", delays, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(d[0], C_SWITCH);
	ck_assert_uint_eq(d[1] - d[0], 123000);
	ck_assert_uint_eq(d[2] - d[1], 7);
	ck_assert_uint_eq(d[3] - d[2], 2000000);
}
END_TEST

/* --- interrupts and contexts ------------------------------------------------------ */

struct ctx_seen {
	bool ran;
	uint64_t time;
	int cpu;
	unsigned int preempt;
	bool in_irq, in_softirq, in_serving_softirq, in_interrupt, in_task, irqs_off;
	char comm[TASK_COMM_LEN];
};

static void see(struct ctx_seen *s)
{
	s->ran = true;
	s->time = sim_now();
	s->cpu = smp_processor_id();
	s->preempt = preempt_count();
	s->in_irq = in_irq();
	s->in_softirq = in_softirq();
	s->in_serving_softirq = in_serving_softirq();
	s->in_interrupt = in_interrupt();
	s->in_task = in_task();
	s->irqs_off = irqs_disabled();
	snprintf(s->comm, sizeof(s->comm), "%s", current ? current->comm : "(none)");
}

static struct ctx_seen in_handler, in_idle, in_task_ctx, in_timer, after_enable;

static void record_irq(void *arg)
{
	see(arg);
}

static int irqs_off_window(void *arg)
{
	(void)arg;
	see(&in_task_ctx);
	local_irq_disable();
	udelay(100);		/* the interrupt arrives at 50 us and waits */
	t_enable = sim_now();
	local_irq_enable();
	see(&after_enable);
	return 0;
}

START_TEST(hardirq_waits_for_irq_enable)
{
	h_init(2);
	sim_spawn("A", irqs_off_window, NULL, 0, true, 0);
	sim_irq_at(50000, 0, "dev", record_irq, &in_handler);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(t_enable, C_SWITCH + C_TOGGLE + 100000);
	ck_assert(in_handler.ran);
	ck_assert_uint_eq(in_handler.time, t_enable + C_TOGGLE + C_IRQ);
	ck_assert_int_eq(in_handler.cpu, 0);
	ck_assert_uint_eq(in_handler.preempt, HARDIRQ_OFFSET);
	ck_assert(in_handler.in_irq && in_handler.in_interrupt && !in_handler.in_task);
	ck_assert(!in_handler.in_softirq);
	ck_assert(in_handler.irqs_off);
	/* current in a hardirq is the task it interrupted */
	ck_assert_str_eq(in_handler.comm, "A");
	/* back in the task, after the handler */
	ck_assert(after_enable.in_task && !after_enable.in_interrupt && !after_enable.irqs_off);
	ck_assert_uint_eq(after_enable.time, in_handler.time);
	/* and the task itself, before */
	ck_assert(in_task_ctx.in_task && !in_task_ctx.in_interrupt && !in_task_ctx.in_irq);
	ck_assert(!in_task_ctx.irqs_off);
	ck_assert_uint_eq(in_task_ctx.preempt, 0);
}
END_TEST

static int udelay_with_irqs_on(void *arg)
{
	(void)arg;
	d[0] = sim_now();
	udelay(100);
	d[1] = sim_now();
	return 0;
}

START_TEST(hardirq_during_udelay)
{
	h_init(2);
	sim_spawn("A", udelay_with_irqs_on, NULL, 0, true, 0);
	/* irqs on: taken at once, the busy-wait still ends on time */
	sim_irq_at(50000, 0, "dev", record_irq, &in_handler);
	/* an interrupt on idle cpu1: current is its idle task */
	sim_irq_at(70000, 1, "dev1", record_irq, &in_idle);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(d[0], C_SWITCH);
	ck_assert_uint_eq(d[1] - d[0], 100000);
	ck_assert_uint_eq(in_handler.time, 50000 + C_IRQ);
	ck_assert_int_eq(in_handler.cpu, 0);
	ck_assert_str_eq(in_handler.comm, "A");
	ck_assert(in_handler.in_irq && in_handler.irqs_off);
	ck_assert_uint_eq(in_idle.time, 70000 + C_IRQ);
	ck_assert_int_eq(in_idle.cpu, 1);
	ck_assert_str_eq(in_idle.comm, "swapper/1");
	ck_assert(in_idle.in_irq && in_idle.irqs_off && !in_idle.in_task);
}
END_TEST

static struct timer_list probe_timer;

static void probe_fn(struct timer_list *t)
{
	(void)t;
	see(&in_timer);
}

static int arm_probe(void *arg)
{
	(void)arg;
	timer_setup(&probe_timer, probe_fn, 0);
	mod_timer(&probe_timer, jiffies + 1);
	msleep(20);
	return 0;
}

START_TEST(softirq_context)
{
	h_init(1);
	sim_spawn("armer", arm_probe, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(in_timer.ran);
	ck_assert(in_timer.in_softirq && in_timer.in_serving_softirq && in_timer.in_interrupt);
	ck_assert(!in_timer.in_irq && !in_timer.in_task && !in_timer.irqs_off);
	/* the armer sleeps: cpu0 idles, and the idle task runs with preemption off */
	ck_assert_uint_eq(in_timer.preempt, SOFTIRQ_OFFSET + 1);
	/* expires J0+1, filed at J0+2: the tick at 8 ms, then the softirq's entry */
	ck_assert_uint_eq(in_timer.time, 2 * TICK + C_IRQ);
}
END_TEST

/* --- many CPUs -------------------------------------------------------------------------- */

static int cpu_of[64];
static uint64_t start_of[64], end_of[64];

static int per_cpu_task(void *arg)
{
	int i = (int)(intptr_t)arg;

	cpu_of[i] = smp_processor_id();
	start_of[i] = sim_now();
	udelay(1000);
	end_of[i] = sim_now();
	return 0;
}

START_TEST(sixty_four_cpus)
{
	h_init(64);
	for (int i = 0; i < 64; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		sim_spawn(name, per_cpu_task, (void *)(intptr_t)i, i, true, 0);
	}
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	for (int i = 0; i < 64; i++) {
		ck_assert_int_eq(cpu_of[i], i);
		ck_assert_uint_eq(start_of[i], C_SWITCH);
		ck_assert_uint_eq(end_of[i], C_SWITCH + 1000000);
	}
}
END_TEST

/* --- wake-ups from a plain event ----------------------------------------------------- */

static struct ctx_seen woke_in;

static int sleep_then_see(void *arg)
{
	(void)arg;
	sleep_once();
	see(&woke_in);
	return 0;
}

static int spin_a_while(void *arg)
{
	(void)arg;
	udelay(1000);
	return 0;
}

static void wake_event(void *arg)
{
	wake_ret = wake_up_process(arg);
}

/*
 * The sleeper leaves cpu0 to a queued task and the event wakes it before
 * anything else runs: cpu0 is busy, so it lands on idle cpu1 and resumes
 * there without a coroutine switch in between.
 */
START_TEST(wake_from_event_onto_other_cpu)
{
	h_init(2);
	sleeper = sim_spawn("sleeper", sleep_then_see, NULL, 0, false, 0);
	sim_spawn("busy", spin_a_while, NULL, 0, true, 0);
	sim_event_at(2000, wake_event, sleeper);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(wake_ret, 1);
	ck_assert(woke_in.ran);
	ck_assert_int_eq(woke_in.cpu, 1);
	ck_assert_str_eq(woke_in.comm, "sleeper");
	ck_assert_int_eq(task_cpu(sleeper), 1);
	ck_assert_uint_eq(woke_in.time, 2000 + C_SWITCH);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

static const struct sim_rec *waking_of(int pid)
{
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (r->type == REC_SCHED_WAKING && (int)r->a == pid)
			return r;
	}
	return NULL;
}

/* a thread started by an event on a busy CPU: the line is the busy task's */
START_TEST(event_wakeup_recorded_in_running_task)
{
	const struct sim_rec *r;
	struct task_struct *busy, *late;

	h_init(1);
	busy = sim_spawn("busy", spin_a_while, NULL, 0, true, 0);
	late = sim_spawn("late", kfn, NULL, 0, true, 100000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	r = waking_of(late->pid);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->cpu, 0);
	ck_assert_int_eq(r->pid, busy->pid);
	ck_assert_str_eq(r->comm, "busy");
	ck_assert_uint_ge(r->time, 100000);
	ck_assert_uint_eq(r->preempt, 0);
	ck_assert_uint_eq(r->flags, 0);
}
END_TEST

/* onto an idle CPU: the idle task's line, with its preemption off, at the event's time */
START_TEST(event_wakeup_recorded_on_target_cpu)
{
	const struct sim_rec *r;

	h_init(2);
	sleeper = sim_spawn("sleeper", sleep_then_see, NULL, 0, false, 0);
	sim_spawn("busy", spin_a_while, NULL, 0, true, 0);
	sim_event_at(2000, wake_event, sleeper);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	/* the second waking of the sleeper is the event's */
	r = NULL;
	for (size_t i = 0, n = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *x = &sim_trace_records()[i];

		if (x->type == REC_SCHED_WAKING && (int)x->a == sleeper->pid && n++ == 1)
			r = x;
	}
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->cpu, 1);
	ck_assert_int_eq(r->pid, 0);
	ck_assert_uint_eq(r->preempt, 1);
	ck_assert_uint_eq(r->time, 2000);
}
END_TEST

/* --- how runs end ----------------------------------------------------------------- */

static struct completion never[2];

static int wait_never(void *arg)
{
	wait_for_completion(arg);
	return 0;
}

START_TEST(deadlock_names_both_tasks)
{
	const struct sim_finding *f;

	h_init(2);
	init_completion(&never[0]);
	init_completion(&never[1]);
	sim_spawn("alpha", wait_never, &never[0], 0, false, 0);
	sim_spawn("beta", wait_never, &never[1], 1, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	ck_assert_uint_eq(h_count(SIM_F_DEADLOCK), 1);
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 0);
	f = h_first(SIM_F_DEADLOCK);
	ck_assert_msg(strstr(f->msg, "alpha:1 sleeps in wait_for_completion"), "%s", f->msg);
	ck_assert_msg(strstr(f->msg, "beta:2 sleeps in wait_for_completion"), "%s", f->msg);
}
END_TEST

static int wait_never_noted(void *arg)
{
	struct completion *c = arg;

	sim_note("s.kws:%d", c == &never[0] ? 3 : 4);
	wait_for_completion(c);
	return 0;
}

static void late_irq(void *arg)
{
	(void)arg;
	sim_note("s.kws:9");
	udelay(5);
}

/*
 * The last thing to run is a hard interrupt on cpu1, long after both tasks
 * blocked: the deadlock is still theirs, each line at its own blocked call.
 */
START_TEST(deadlock_is_the_blocked_tasks)
{
	const struct sim_finding *f;

	h_init(2);
	init_completion(&never[0]);
	init_completion(&never[1]);
	sim_spawn("alpha", wait_never_noted, &never[0], 0, false, 0);
	sim_spawn("beta", wait_never_noted, &never[1], 0, true, 0);
	sim_irq_at(50000, 1, "late", late_irq, NULL);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	f = h_first(SIM_F_DEADLOCK);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->context, "alpha");
	ck_assert_int_eq(f->cpu, 0);
	ck_assert_str_eq(f->note, "s.kws:3");
	ck_assert_str_eq(f->site.func, "wait_never_noted");
	ck_assert_msg(strstr(f->msg, "\n  alpha:1 sleeps in wait_for_completion (wait_never_noted at "),
		      "%s", f->msg);
	ck_assert_msg(strstr(f->msg, ") during s.kws:3 since "), "%s", f->msg);
	ck_assert_msg(strstr(f->msg, ") during s.kws:4 since "), "%s", f->msg);
	ck_assert_msg(!strstr(f->msg, "s.kws:9") && !strstr(f->msg, "hardirq"), "%s", f->msg);
	ck_assert_uint_ge(f->time, 50000);
}
END_TEST

static void sleeping_irq(void *arg)
{
	(void)arg;
	msleep(1);
}

/* __schedule_bug()'s words, and the machine stops: no "kernel BUG at ?:0!" */
START_TEST(schedule_in_irq_is_scheduling_while_atomic)
{
	const struct sim_finding *f;

	h_init(1);
	sim_spawn("busy", spin_a_while, NULL, 0, true, 0);
	sim_irq_at(50000, 0, "sleepy", sleeping_irq, NULL);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "BUG: scheduling while atomic: busy/1/0x00010000");
	ck_assert_str_eq(f->context, "hardirq");
	for (size_t i = 0; i < sim_finding_count(); i++)
		ck_assert_msg(!strstr(sim_finding(i)->msg, "?:0"), "%s", sim_finding(i)->msg);
}
END_TEST

START_TEST(quiescent_with_interruptible_sleepers)
{
	h_init(2);
	for (int i = 0; i < 3; i++)
		sim_spawn("worker", sleep_forever, NULL, i % 2, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

static int long_msleep(void *arg)
{
	(void)arg;
	if (arg)
		msleep_interruptible(130000);
	else
		msleep(130000);
	return 0;
}

START_TEST(hung_task_reported_once)
{
	struct sim_config cfg = zero_cost_config(1);
	const struct sim_finding *f;

	h_init_cfg(&cfg);
	sim_spawn("sleepy", long_msleep, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 1);
	f = h_first(SIM_F_HUNG);
	ck_assert_uint_eq(f->time, 120000000000ULL);
	ck_assert_msg(strstr(f->msg, "INFO: task sleepy:1 blocked for more than 120 seconds"),
		      "%s", f->msg);
}
END_TEST

START_TEST(interruptible_sleep_not_hung)
{
	struct sim_config cfg = zero_cost_config(1);

	h_init_cfg(&cfg);
	sim_spawn("sleepy", long_msleep, (void *)1, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 0);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *suite(void)
{
	Suite *s = suite_create("task");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, wakeup_in_barrier_window_not_lost);
	tcase_add_test(tc, wakeup_in_busy_window_not_lost);
	tcase_add_test(tc, kthread_create_waits_for_wake);
	tcase_add_test(tc, kthread_never_woken_never_runs);
	tcase_add_test(tc, kthread_run_runs);
	tcase_add_test(tc, kthread_stop_before_first_run);
	tcase_add_test(tc, kthread_stop_returns_threadfn_value);
	tcase_add_test(tc, kthread_stop_after_exit);
	tcase_add_test(tc, kthread_create_on_cpu_stays);
	tcase_add_test(tc, kthread_bind_stays);
	tcase_add_test(tc, kthread_bind_started_warns);
	tcase_add_test(tc, wake_placement_prefers_idle);
	tcase_add_loop_test(tc, preemption_models, 0, N(preempt_table));
	tcase_add_test(tc, preempt_disable_defers_preemption);
	tcase_add_test(tc, wakeup_within_slice_does_not_preempt);
	tcase_add_test(tc, wakeup_preemption_is_a_decision);
	tcase_add_test(tc, wakeup_onto_idle_is_no_decision);
	tcase_add_test(tc, irq_wakeup_preempts_at_might_sleep);
	tcase_add_test(tc, cond_resched_without_competition);
	tcase_add_loop_test(tc, msleep_exact_jiffies, 0, N(msleep_table));
	tcase_add_loop_test(tc, msleep_other_hz, 0, 2);
	tcase_add_test(tc, msleep_timer_fires_on_the_jiffy);
	tcase_add_test(tc, schedule_timeout_returns_remaining);
	tcase_add_test(tc, delays_take_exactly_their_time);
	tcase_add_test(tc, hardirq_waits_for_irq_enable);
	tcase_add_test(tc, hardirq_during_udelay);
	tcase_add_test(tc, softirq_context);
	tcase_add_test(tc, sixty_four_cpus);
	tcase_add_test(tc, wake_from_event_onto_other_cpu);
	tcase_add_test(tc, deadlock_names_both_tasks);
	tcase_add_test(tc, quiescent_with_interruptible_sleepers);
	tcase_add_test(tc, hung_task_reported_once);
	tcase_add_test(tc, interruptible_sleep_not_hung);
	tcase_add_test(tc, event_wakeup_recorded_in_running_task);
	tcase_add_test(tc, event_wakeup_recorded_on_target_cpu);
	tcase_add_test(tc, deadlock_is_the_blocked_tasks);
	tcase_add_test(tc, schedule_in_irq_is_scheduling_while_atomic);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
