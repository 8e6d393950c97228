/*
 * Pins CPU hotplug (sim/hotplug.c against kernel/cpu.c, select_fallback_rq()
 * in kernel/sched/core.c and timers_dead_cpu() in kernel/time/timer.c of
 * 6.1 and 6.12): a kthread bound to a CPU that goes down while it runs there
 * is pushed to the first active CPU and stays unbound after the CPU is back
 * ("CPU affinity gets lost when it is scheduled on an offline CPU"); one
 * that sleeps through it keeps its CPU, and one woken while it is down is
 * placed elsewhere and unbound; the dead CPU's timers go to the CPU that ran
 * the teardown (the caller's on 4.9, a kworker on the first other online CPU
 * since 6.1); its interrupts go to cpu0; the answers are remove_cpu()'s and
 * add_cpu()'s; a suspend takes the CPUs down from the highest on 6.12, in
 * order on 6.1, and brings them back before the thaw.
 */
#include "../harness.h"

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timer.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MS	1000000ULL

static struct {
	struct task_struct *busy, *sleeper;
	int busy_cpu_after, sleeper_cpu_after;
	int down, again, boot, missing, up, up_again;
	int timer_cpu, irq_cpu;
	bool stop;
} st;

/* Busy on its CPU in 0.1 ms steps, each followed by cond_resched(). */
static int busy_fn(void *arg)
{
	(void)arg;
	while (!st.stop) {
		udelay(100);
		cond_resched();
	}
	st.busy_cpu_after = smp_processor_id();
	return 0;
}

static int control_fn(void *arg)
{
	(void)arg;
	msleep(2);
	st.down = sim_cpu_down(1);
	st.again = sim_cpu_down(1);
	st.boot = sim_cpu_down(0);
	st.missing = sim_cpu_down(7);
	msleep(2);
	st.up = sim_cpu_up(1);
	st.up_again = sim_cpu_up(1);
	msleep(2);
	st.stop = true;
	return 0;
}

START_TEST(running_bound_kthread_is_pushed_and_unbound)
{
	h_init(2);
	st.busy = sim_spawn("busy", busy_fn, NULL, 1, true, 0);
	sim_spawn("control", control_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(st.down, 0);
	ck_assert_int_eq(st.again, 1);
	ck_assert_int_eq(st.boot, -EPERM);
	ck_assert_int_eq(st.missing, -EINVAL);
	ck_assert_int_eq(st.up, 0);
	ck_assert_int_eq(st.up_again, 1);
	/* pushed to cpu0 and allowed everywhere from then on, cpu1 back or not */
	ck_assert_int_eq(st.busy->bound_cpu, -1);
	ck_assert(sim_cpu_online(1));
}
END_TEST

/* A bound kthread asleep through the CPU's absence keeps its CPU. */
static int sleeper_fn(void *arg)
{
	(void)arg;
	msleep(20);
	st.sleeper_cpu_after = smp_processor_id();
	return 0;
}

/* cpu1 down at 2 ms; with arg, up again at 4 ms, before the sleeper wakes at 20 ms */
static int down_up_fn(void *arg)
{
	msleep(2);
	st.down = sim_cpu_down(1);
	if (!arg)
		return 0;
	msleep(2);
	st.up = sim_cpu_up(1);
	return 0;
}

static void bound_sleeper(bool up_again)
{
	h_init(2);
	st.sleeper = sim_spawn("sleeper", sleeper_fn, NULL, 1, true, 0);
	sim_spawn("control", down_up_fn, up_again ? &st : NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(st.down, 0);
}

START_TEST(sleeping_bound_kthread_keeps_its_cpu)
{
	bound_sleeper(true);
	ck_assert_int_eq(st.up, 0);
	ck_assert_int_eq(st.sleeper_cpu_after, 1);
	ck_assert_int_eq(st.sleeper->bound_cpu, 1);
}
END_TEST

/* Woken while its CPU is down (down for good here): placed on cpu0, unbound. */
START_TEST(woken_while_down_goes_elsewhere)
{
	bound_sleeper(false);
	ck_assert_int_eq(st.sleeper_cpu_after, 0);
	ck_assert_int_eq(st.sleeper->bound_cpu, -1);
	ck_assert_int_eq(num_online_cpus(), 1);
}
END_TEST

/*
 * A task whose CPU goes down while it exits: kthread_exit()'s complete_all()
 * is a point where preempt = full lets the stopper take the task, which is
 * pushed to cpu0 and must make its last switch there. The exit's length
 * against the stopper's arrival is swept in 50 ns steps until the push has
 * landed in the exit: the task was on cpu1 after its busy-wait and ended on
 * cpu0. Done while the CPU in the exit was the one it began on, it crashed.
 */
static int exiting_fn(void *arg)
{
	ndelay((unsigned long)(uintptr_t)arg);
	st.busy_cpu_after = smp_processor_id();
	return 0;
}

static int cpu1_down_fn(void *arg)
{
	(void)arg;
	st.down = sim_cpu_down(1);
	return 0;
}

START_TEST(task_pushed_off_in_its_exit_ends_on_its_new_cpu)
{
	unsigned int hits = 0;

	for (unsigned long d = 0; d < 20000 && !hits; d += 50) {
		struct sim_config cfg = h_config(2);
		struct task_struct *p;

		cfg.preempt = SIM_PREEMPT_FULL;
		h_init_cfg(&cfg);
		st.busy_cpu_after = -1;
		p = sim_spawn("exiting", exiting_fn, (void *)(uintptr_t)d, 1, false, 0);
		sim_spawn("control", cpu1_down_fn, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		h_dump_findings();
		ck_assert_uint_eq(sim_finding_count(), 0);
		ck_assert_int_eq(st.down, 0);
		ck_assert_int_eq(p->__state, TASK_DEAD);
		hits += st.busy_cpu_after == 1 && p->cpu == 0;
		sim_fini();
	}
	ck_assert_msg(hits == 1, "no run had the push land in the exit");
}
END_TEST

/* --- timers and interrupts ------------------------------------------------------- */

static struct timer_list timer;

static void timer_fn(struct timer_list *t)
{
	(void)t;
	st.timer_cpu = smp_processor_id();
}

static int arm_fn(void *arg)
{
	(void)arg;
	timer_setup(&timer, timer_fn, 0);
	mod_timer(&timer, jiffies + 10);
	return 0;
}

/* From cpu1: take cpu2 down. */
static int take_cpu2_fn(void *arg)
{
	(void)arg;
	st.down = sim_cpu_down(2);
	return 0;
}

static void irq_fn(void *arg)
{
	(void)arg;
	st.irq_cpu = smp_processor_id();
}

static void timers_move(unsigned int era, int want)
{
	struct sim_config cfg = h_config(3);

	cfg.era = era;
	h_init_cfg(&cfg);
	st.timer_cpu = st.irq_cpu = -1;
	sim_spawn("arm", arm_fn, NULL, 2, true, 0);
	sim_spawn("control", take_cpu2_fn, NULL, 1, true, 1 * MS);
	sim_irq_at(5 * MS, 2, "late", irq_fn, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_int_eq(st.down, 0);
	ck_assert_int_eq(st.timer_cpu, want);
	ck_assert_int_eq(st.irq_cpu, 0);	/* fixup_irqs(): the first active CPU */
}

START_TEST(timers_go_to_the_callers_cpu_on_v49)
{
	timers_move(SIM_ERA(4, 9), 1);
}
END_TEST

START_TEST(timers_go_to_the_first_other_cpu_since_61)
{
	timers_move(SIM_ERA(6, 1), 0);
}
END_TEST

/* --- the suspend --------------------------------------------------------------------- */

/* The CPU numbers of the suspend_resume records named what, in trace order. */
static int cpus_of(const char *what, int *out, int max)
{
	int n = 0;

	for (size_t i = 0; i < sim_trace_count() && n < max; i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (r->type == REC_FREEZER && r->s && !strcmp(r->s, what) && r->c)
			out[n++] = (int)r->b;
	}
	return n;
}

static void suspend_order(unsigned int era, int first, int second)
{
	struct sim_config cfg = h_config(3);
	int off[4], on[4];

	cfg.era = era;
	h_init_cfg(&cfg);
	sim_suspend_at(1 * MS);
	sim_resume_at(50 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(cpus_of("CPU_OFF", off, 4), 2);
	ck_assert_int_eq(off[0], first);
	ck_assert_int_eq(off[1], second);
	/* thaw_secondary_cpus(): for_each_cpu(frozen_cpus), in order, every era */
	ck_assert_int_eq(cpus_of("CPU_ON", on, 4), 2);
	ck_assert_int_eq(on[0], 1);
	ck_assert_int_eq(on[1], 2);
	ck_assert_int_eq(num_online_cpus(), 3);
	ck_assert_uint_eq(sim_sleeps(), 1);
}

START_TEST(suspend_takes_cpus_down_from_the_highest_on_612)
{
	suspend_order(SIM_ERA(6, 12), 2, 1);
}
END_TEST

START_TEST(suspend_takes_cpus_down_in_order_on_61)
{
	suspend_order(SIM_ERA(6, 1), 1, 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hotplug");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, running_bound_kthread_is_pushed_and_unbound);
	tcase_add_test(tc, sleeping_bound_kthread_keeps_its_cpu);
	tcase_add_test(tc, woken_while_down_goes_elsewhere);
	tcase_add_test(tc, task_pushed_off_in_its_exit_ends_on_its_new_cpu);
	tcase_add_test(tc, timers_go_to_the_callers_cpu_on_v49);
	tcase_add_test(tc, timers_go_to_the_first_other_cpu_since_61);
	tcase_add_test(tc, suspend_takes_cpus_down_from_the_highest_on_612);
	tcase_add_test(tc, suspend_takes_cpus_down_in_order_on_61);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
