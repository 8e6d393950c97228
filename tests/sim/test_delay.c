/*
 * Sleeps of each era (sim/delay.c, sim/kthread.c): usleep_range() is an
 * hrtimer sleep that ends at its upper bound to the nanosecond (min when
 * the bounds are reversed), not a sleep of whole jiffies, and a stray
 * wake-up does not end it; kthread_stop() sets TIF_NOTIFY_SIGNAL since
 * 5.11, so on a 6.x machine msleep_interruptible() returns at the stop with
 * the milliseconds left, while on 4.9 the thread sleeps its full time.
 */
#include "../harness.h"

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include <string.h>

#define US	1000ULL
#define MS	1000000ULL

/* A config whose primitive steps cost nothing: times are the semantics' alone. */
static struct sim_config free_steps(int ncpus)
{
	struct sim_config cfg = h_config(ncpus);

	memset(&cfg.costs, 0, sizeof(cfg.costs));
	return cfg;
}

static uint64_t slept[3];
static struct task_struct *sleeper;

static int usleep_fn(void *arg)
{
	uint64_t t0 = sim_now();

	(void)arg;
	usleep_range(500, 1500);
	slept[0] = sim_now() - t0;
	t0 = sim_now();
	usleep_range(2000, 1000);	/* reversed: nothing expires before min */
	slept[1] = sim_now() - t0;
	t0 = sim_now();
	usleep_range(250, 250);
	slept[2] = sim_now() - t0;
	return 0;
}

static void stray_wakeup(void *arg)
{
	(void)arg;
	wake_up_process(sleeper);
}

START_TEST(usleep_range_ends_at_max)
{
	struct sim_config cfg = free_steps(1);

	h_init_cfg(&cfg);
	sleeper = sim_spawn("u", usleep_fn, NULL, 0, true, 0);
	sim_event_at(700 * US, stray_wakeup, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	/* not msleep's 2 jiffies (8 ms at HZ=250): 1.5 ms, the stray wake-up at 0.7 ms ignored */
	ck_assert_uint_eq(slept[0], 1500 * US);
	ck_assert_uint_eq(slept[1], 2000 * US);
	ck_assert_uint_eq(slept[2], 250 * US);
}
END_TEST

static struct {
	unsigned long left;
	uint64_t woke_at, stopped_at;
	int ret;
} nap;

static int nap_fn(void *arg)
{
	(void)arg;
	nap.left = msleep_interruptible(1000);
	nap.woke_at = sim_now();
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 5;
}

static int stop_nap(void *arg)
{
	nap.ret = kthread_stop(arg);
	nap.stopped_at = sim_now();
	return 0;
}

static void stop_during_nap(unsigned int era)
{
	struct sim_config cfg = free_steps(2);
	struct task_struct *p;

	cfg.era = era;
	h_init_cfg(&cfg);
	p = sim_spawn("napper", nap_fn, NULL, 1, true, 0);
	sim_spawn("stopper", stop_nap, p, 0, true, 100 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(nap.ret, 5);
}

/*
 * 6.x: the stop at 100 ms (jiffy 25) ends the sleep at once. 6.12's sleep
 * is msecs_to_jiffies(1000) = 250 jiffies: 225 left, 900 ms; 6.1's had
 * one more (251): 226 left, 904 ms.
 */
START_TEST(kthread_stop_ends_interruptible_sleep_6x)
{
	stop_during_nap(SIM_ERA(6, 12));
	ck_assert_uint_eq(nap.woke_at, 100 * MS);
	ck_assert_uint_eq(nap.left, 900);
	ck_assert_uint_eq(nap.stopped_at, 100 * MS);
}
END_TEST

START_TEST(kthread_stop_ends_interruptible_sleep_61)
{
	stop_during_nap(SIM_ERA(6, 1));
	ck_assert_uint_eq(nap.woke_at, 100 * MS);
	ck_assert_uint_eq(nap.left, 904);
	ck_assert_uint_eq(nap.stopped_at, 100 * MS);
}
END_TEST

/*
 * 4.9: the wake-up only ends one schedule_timeout(); msleep_interruptible()
 * sleeps on (no signal pending) until its timer: armed at jiffy 0 for 251,
 * level 1, bucket 256: 1024 ms.
 */
START_TEST(kthread_stop_waits_out_interruptible_sleep_v49)
{
	stop_during_nap(SIM_ERA(4, 9));
	ck_assert_uint_eq(nap.woke_at, 1024 * MS);
	ck_assert_uint_eq(nap.left, 0);
	ck_assert_uint_eq(nap.stopped_at, 1024 * MS);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("delay");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, usleep_range_ends_at_max);
	tcase_add_test(tc, kthread_stop_ends_interruptible_sleep_6x);
	tcase_add_test(tc, kthread_stop_ends_interruptible_sleep_61);
	tcase_add_test(tc, kthread_stop_waits_out_interruptible_sleep_v49);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
