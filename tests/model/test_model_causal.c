/*
 * Causal time seen through the kthread_worker API, for every variant, over
 * seeds of the random strategy with the default skew (the bugs were random
 * runs that no machine could make):
 *   - a work never executes before the kthread_queue_work() that queued it
 *     began, even on a worker whose CPU is busy with a long work (the bug: it
 *     ran at 0.1 ms on cpu1 after being queued at 5 ms on cpu0);
 *   - kthread_cancel_delayed_work_sync() called well after the delayed
 *     work's 1-jiffy timer must have fired (on a busy CPU with interrupts
 *     on) finds the work run, not pending: it returns false (the bug: the
 *     timer waited for the other CPU, and the cancel returned true).
 * v4.9 has no kthread_work tracepoints, so the first is checked from inside
 * the work too; every trace also passes the causality checker.
 */
#include "model_harness.h"

#include <sim/causal.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include <stdio.h>
#include <string.h>

#define NSEEDS	300

static char what[128];

static void start(int variant, uint64_t seed, int ncpus, const char *name)
{
	struct sim_config cfg = m_explore_config(ncpus, SIM_PREEMPT_VOLUNTARY, seed);

	cfg.keep_trace = true;
	cfg.time_limit_ns = 1000 * NSEC_PER_MSEC;
	h_init_cfg(&cfg);
	m_use(variant);
	m_reset_checks();
	snprintf(what, sizeof(what), "%s, %s, seed %llu", M->name, name, (unsigned long long)seed);
}

static void finish(void)
{
	char first[320];
	size_t v;

	ck_assert_msg(h_run() == SIM_END_QUIESCENT, "%s: did not come to rest", what);
	m_assert_checks(what);
	m_assert_no_findings(what);
	v = sim_causal_check(sim_trace_records(), sim_trace_count(), first, sizeof(first));
	ck_assert_msg(v == 0, "%s: %zu causality violations; first: %s", what, v, first);
	sim_fini();
}

/* --- no execution before its queueing --------------------------------------------------- */

#define QROUNDS 12

static struct {
	struct kthread_worker *W;
	struct kthread_work *a, *busy;
	uint64_t queued[QROUNDS + 1];	/* when each successful queueing began, in order */
	int nqueued, nran;
} q;

static void a_fn(struct kthread_work *work)
{
	(void)work;
	/* it may run before the queueing call returns: its slot is filled before the call */
	M_CHECK(q.nran <= q.nqueued);
	if (q.nran <= q.nqueued)
		M_CHECK_INT(sim_now(), >=, q.queued[q.nran]);
	q.nran++;
	udelay(20);
}

static void busy_fn(struct kthread_work *work)
{
	(void)work;
	udelay(3000);		/* the worker's CPU stays busy while A is queued */
}

static int queuer(void *arg)
{
	uint64_t rnd = (uint64_t)(uintptr_t)arg;

	q.W = M->create_worker(1, 0, "kw/1");
	M->queue_work(q.W, q.busy);
	for (int i = 0; i < QROUNDS; i++) {
		udelay(1 + (unsigned int)(m_rand(&rnd) % 400));
		q.queued[q.nqueued] = sim_now();
		if (M->queue_work(q.W, q.a))
			q.nqueued++;
	}
	M->flush_worker(q.W);
	M_CHECK_INT(q.nran, ==, q.nqueued);
	M->destroy_worker(q.W);
	return 0;
}

START_TEST(no_execute_before_its_queue)
{
	for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
		start(_i, seed, 2, "execute after queue");
		memset(&q, 0, sizeof(q));
		q.a = m_work(a_fn);
		q.busy = m_work(busy_fn);
		sim_spawn("queuer", queuer, (void *)(uintptr_t)seed, 0, true, 0);
		finish();
	}
}
END_TEST

/* --- a cancel after the timer must have fired -------------------------------------------- */

static struct {
	struct kthread_worker *W;
	struct kthread_delayed_work *d;
	int ran;
	bool queued, canceled;
} c;

static void d_fn(struct kthread_work *work)
{
	(void)work;
	c.ran++;
}

/* cpu0: arm the 1-jiffy delayed work, then stay busy with interrupts on, in small steps. */
static int armer(void *arg)
{
	(void)arg;
	c.queued = M->queue_delayed_work(c.W, c.d, 1);
	while (sim_now() < 20 * NSEC_PER_MSEC)
		udelay(10);
	return 0;
}

/*
 * cpu1: busy from the start in big steps (so a strategy that picks CPUs
 * whatever their clocks leaves cpu0 far behind), then the cancel at 12 ms:
 * the timer is due by 8 ms at the latest (jiffies + 1, rounded up by one on
 * level 0), and its work runs at once on the idle cpu2.
 */
static int canceler(void *arg)
{
	(void)arg;
	while (sim_now() < 12 * NSEC_PER_MSEC)
		udelay(1000);
	c.canceled = M->cancel_delayed_work_sync(c.d);
	M_CHECK(!c.canceled);
	M_CHECK_INT(c.ran, ==, 1);
	M->destroy_worker(c.W);
	return 0;
}

static int cancel_main(void *arg)
{
	(void)arg;
	c.W = M->create_worker(2, 0, "kw/2");
	sim_spawn("armer", armer, NULL, 0, true, sim_now());
	sim_spawn("canceler", canceler, NULL, 1, true, sim_now());
	return 0;
}

START_TEST(cancel_sync_after_the_timer_fired_returns_false)
{
	for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
		start(_i, seed, 3, "cancel after expiry");
		memset(&c, 0, sizeof(c));
		c.d = m_dwork(d_fn);
		sim_spawn("main", cancel_main, NULL, 0, true, 0);
		finish();
		ck_assert_msg(c.queued, "%s: not queued", what);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model_causal");
	TCase *tc = tcase_create("causal");
	int n = (int)kw_model_count();

	tcase_set_timeout(tc, 240);
	tcase_add_loop_test(tc, no_execute_before_its_queue, 0, n);
	tcase_add_loop_test(tc, cancel_sync_after_the_timer_fired_returns_false, 0, n);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
