/*
 * Completions (sim/completion.c). Pins: a wait before complete() sleeps in
 * TASK_UNINTERRUPTIBLE and wakes one context switch after the wake-up; a
 * complete() before the wait costs no sleep; complete_all() releases every
 * waiter and later waits return at once (until reinit_completion); each
 * complete() releases exactly one waiter, first come first served, and a
 * waiter whose 'done' was taken before it ran queues again at the tail, as
 * swake_up_locked() and __prepare_to_swait() order them; waiting in atomic
 * context is a might_sleep finding even when no sleep follows;
 * wait_for_completion_timeout() returns 0 at the jiffy its timer fires
 * (expire + 1, the wheel's level-0 rounding) and the jiffies left when
 * completed in time, and arms no timer for MAX_SCHEDULE_TIMEOUT; a waiter
 * counts for the hung-task detector.
 */
#include "../harness.h"

#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/delay.h>
#include <linux/timer.h>
#include <linux/jiffies.h>

#include <limits.h>
#include <string.h>

static struct sim_config cfg;
static struct completion x;

static void setup_cfg(int ncpus, uint64_t hung_ns)
{
	cfg = h_config(ncpus);
	cfg.hung_task_ns = hung_ns;
	h_init_cfg(&cfg);
	init_completion(&x);
}

static void setup(int ncpus)
{
	setup_cfg(ncpus, 120ULL * 1000000000ULL);
}

static void assert_clean(void)
{
	if (sim_finding_count())
		h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
}

/* --- wait, then complete --------------------------------------------------- */

static struct task_struct *waiter_task;
static struct {
	uint64_t complete_call, woke;
	unsigned int state_seen;
	uint64_t switches_before, switches_after;
	bool done_after;
} W;

static int waiter(void *arg)
{
	wait_for_completion(&x);
	W.woke = sim_now();
	W.done_after = completion_done(&x);
	return 0;
}

static int completer(void *arg)
{
	W.state_seen = READ_TASK_STATE(waiter_task);
	W.complete_call = sim_now();
	complete(&x);
	return 0;
}

START_TEST(wait_then_complete)
{
	setup(2);
	waiter_task = sim_spawn("waiter", waiter, NULL, 0, true, 0);
	sim_spawn("completer", completer, NULL, 1, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(W.state_seen, TASK_UNINTERRUPTIBLE);
	/* woken at the end of complete()'s cost, running one switch later */
	ck_assert_uint_eq(W.woke, W.complete_call + cfg.costs.completion + cfg.costs.ctx_switch);
	ck_assert(!W.done_after);
}
END_TEST

/* --- complete, then wait: no sleep ----------------------------------------- */

static struct {
	uint64_t sw0, sw1, t0, t1;
	bool try1, try2, try3, done_mid;
} N;

static int complete_then_wait(void *arg)
{
	complete(&x);
	complete(&x);
	N.sw0 = current->nr_switches;
	N.t0 = sim_now();
	wait_for_completion(&x);
	N.done_mid = completion_done(&x);	/* one left */
	N.try1 = try_wait_for_completion(&x);
	N.try2 = try_wait_for_completion(&x);	/* none left */
	N.t1 = sim_now();
	N.sw1 = current->nr_switches;
	N.try3 = completion_done(&x);
	return 0;
}

START_TEST(complete_before_wait_does_not_sleep)
{
	setup(1);
	sim_spawn("t", complete_then_wait, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(N.sw1, N.sw0);
	ck_assert_uint_lt(N.t1 - N.t0, cfg.costs.ctx_switch);
	ck_assert(N.done_mid);
	ck_assert(N.try1);
	ck_assert(!N.try2);
	ck_assert(!N.try3);
	ck_assert_uint_eq(x.done, 0);
}
END_TEST

/* --- complete_all ---------------------------------------------------------- */

#define NWAITERS 3

static int woke_order[8], nwoke;
static uint64_t woke_at[8];

static int numbered_waiter(void *arg)
{
	wait_for_completion(&x);
	woke_at[nwoke] = sim_now();
	woke_order[nwoke++] = (int)(long)arg;
	return 0;
}

static struct {
	int woke_after_all;
	uint64_t late_t0, late_t1, sw0, sw1;
	bool done_after_all, try_after_all, done_after_reinit;
	int woke_after_reinit, woke_after_complete;
} A;

static int all_completer(void *arg)
{
	complete_all(&x);
	udelay(100);
	A.woke_after_all = nwoke;
	A.done_after_all = completion_done(&x);
	A.sw0 = current->nr_switches;
	A.late_t0 = sim_now();
	for (int i = 0; i < 5; i++)
		wait_for_completion(&x);	/* open for good: no sleep */
	A.late_t1 = sim_now();
	A.sw1 = current->nr_switches;
	A.try_after_all = try_wait_for_completion(&x);
	reinit_completion(&x);
	A.done_after_reinit = completion_done(&x);
	return 0;
}

static int late_waiter(void *arg)
{
	wait_for_completion(&x);	/* after reinit: sleeps until the complete below */
	woke_order[nwoke++] = 99;
	return 0;
}

static int final_completer(void *arg)
{
	A.woke_after_reinit = nwoke;
	complete(&x);
	udelay(100);
	A.woke_after_complete = nwoke;
	return 0;
}

START_TEST(complete_all_releases_everyone)
{
	setup(2);
	for (long i = 0; i < NWAITERS; i++)
		sim_spawn("w", numbered_waiter, (void *)i, 1, true, i * 100000);
	sim_spawn("all", all_completer, NULL, 0, true, 1000000);
	sim_spawn("late", late_waiter, NULL, 1, true, 2000000);
	sim_spawn("final", final_completer, NULL, 0, true, 3000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(A.woke_after_all, NWAITERS);
	ck_assert(A.done_after_all);
	ck_assert(A.try_after_all);
	ck_assert_uint_eq(A.sw1, A.sw0);
	ck_assert_uint_lt(A.late_t1 - A.late_t0, cfg.costs.ctx_switch);
	ck_assert(!A.done_after_reinit);
	ck_assert_int_eq(A.woke_after_reinit, NWAITERS);
	ck_assert_int_eq(A.woke_after_complete, NWAITERS + 1);
	ck_assert_int_eq(woke_order[NWAITERS], 99);
	ck_assert_uint_eq(x.done, 0);
}
END_TEST

/* --- one complete(), one waiter, in order ---------------------------------- */

static int after_each[NWAITERS];

static int one_by_one(void *arg)
{
	for (int i = 0; i < NWAITERS; i++) {
		complete(&x);
		udelay(100);		/* CPU1 is idle: the woken one runs meanwhile */
		after_each[i] = nwoke;
	}
	return 0;
}

START_TEST(each_complete_releases_one_fifo)
{
	setup(2);
	/* far enough apart that each is asleep before the next starts */
	for (long i = 0; i < NWAITERS; i++)
		sim_spawn("w", numbered_waiter, (void *)i, 1, true, i * 100000);
	sim_spawn("c", one_by_one, NULL, 0, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	for (int i = 0; i < NWAITERS; i++) {
		ck_assert_int_eq(after_each[i], i + 1);
		ck_assert_int_eq(woke_order[i], i);
	}
	ck_assert_uint_eq(x.done, 0);
}
END_TEST

/*
 * complete() takes waiter 0 off the queue; before it runs, its 'done' is
 * taken; it goes back to sleep at the tail, behind waiter 1, which the next
 * complete() releases first.
 */
static bool stolen;

static int steal(void *arg)
{
	complete(&x);			/* wakes waiter 0, queued behind us on CPU0 */
	stolen = try_wait_for_completion(&x);
	msleep(10);			/* waiter 0 runs, finds nothing, sleeps again */
	complete(&x);
	msleep(10);
	complete(&x);
	return 0;
}

START_TEST(stolen_wakeup_requeues_at_tail)
{
	setup(1);
	for (long i = 0; i < 2; i++)
		sim_spawn("w", numbered_waiter, (void *)i, 0, true, i * 100000);
	sim_spawn("thief", steal, NULL, 0, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert(stolen);
	ck_assert_int_eq(nwoke, 2);
	ck_assert_int_eq(woke_order[0], 1);
	ck_assert_int_eq(woke_order[1], 0);
}
END_TEST

/* --- atomic context -------------------------------------------------------- */

static spinlock_t lk;

static int wait_atomic(void *arg)
{
	complete(&x);
	spin_lock(&lk);
	wait_for_completion(&x);	/* done: no sleep, still a bug */
	spin_unlock(&lk);
	return 0;
}

START_TEST(wait_in_atomic_is_might_sleep)
{
	setup(1);
	spin_lock_init(&lk);
	sim_spawn("atomic", wait_atomic, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	ck_assert_uint_eq(h_count(SIM_F_MIGHT_SLEEP), 1);
	ck_assert_ptr_nonnull(strstr(h_first(SIM_F_MIGHT_SLEEP)->msg,
				     "sleeping function called from invalid context"));
	ck_assert_ptr_nonnull(strstr(h_first(SIM_F_MIGHT_SLEEP)->msg, "in_atomic(): 1"));
	ck_assert_str_eq(h_first(SIM_F_MIGHT_SLEEP)->site.func, "wait_atomic");
}
END_TEST

static int wait_irqs_off(void *arg)
{
	local_irq_disable();
	wait_for_completion_timeout(&x, 5);	/* sleeps with irqs off: reported */
	local_irq_enable();
	return 0;
}

START_TEST(wait_timeout_irqs_off_is_might_sleep)
{
	setup(1);
	sim_spawn("irqsoff", wait_irqs_off, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_MIGHT_SLEEP), 1);
	ck_assert_ptr_nonnull(strstr(h_first(SIM_F_MIGHT_SLEEP)->msg, "irqs_disabled(): 1"));
}
END_TEST

/* --- wait_for_completion_timeout ------------------------------------------- */

static struct {
	unsigned long start, ret, end;
	uint64_t end_ns;
} TO;

static int timed_waiter(void *arg)
{
	unsigned long timeout = (unsigned long)arg;

	TO.start = jiffies;
	TO.ret = wait_for_completion_timeout(&x, timeout);
	TO.end = jiffies;
	TO.end_ns = sim_now();
	return 0;
}

static const struct sim_rec *timer_start_rec(void)
{
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == REC_TIMER_START)
			return &sim_trace_records()[i];
	return NULL;
}

START_TEST(timeout_expires_at_exact_jiffy)
{
	const struct sim_rec *r;

	setup(1);
	sim_spawn("tw", timed_waiter, (void *)10UL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(TO.ret, 0);
	r = timer_start_rec();
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b, TO.start + 10);
	ck_assert_str_eq(r->s, "process_timeout");
	/* level 0: bucket expiry = expires + 1, and never earlier */
	ck_assert_uint_eq(TO.end, TO.start + 11);
	ck_assert_uint_ge(TO.end_ns, sim_jiffies_to_ns(TO.start + 11));
	ck_assert_uint_lt(TO.end_ns, sim_jiffies_to_ns(TO.start + 11) + 10000);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), 1);
}
END_TEST

static int complete_at(void *arg)
{
	complete(&x);
	return 0;
}

START_TEST(timeout_completed_in_time)
{
	setup(2);
	sim_spawn("tw", timed_waiter, (void *)10UL, 0, true, 0);
	sim_spawn("c", complete_at, NULL, 1, true, 13000000);	/* 13 ms: jiffy 3 */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(TO.end - TO.start, 3);
	ck_assert_uint_eq(TO.ret, 10 - 3);
	/* the timer was cancelled, not run */
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), 0);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_CANCEL), 1);
}
END_TEST

/* Completed already: returns at once, with the full timeout left. */
static int complete_then_timed_wait(void *arg)
{
	complete(&x);
	return timed_waiter(arg);
}

START_TEST(timeout_already_done)
{
	setup(1);
	sim_spawn("tw", complete_then_timed_wait, (void *)10UL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(TO.ret, 10);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_START), 0);
}
END_TEST

START_TEST(timeout_max_arms_no_timer)
{
	setup(1);
	sim_spawn("tw", timed_waiter, (void *)(unsigned long)MAX_SCHEDULE_TIMEOUT, 0, true, 0);
	/* nobody completes: a deadlock, not a timer that keeps the machine going */
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_START), 0);
	ck_assert_uint_eq(h_count(SIM_F_DEADLOCK), 1);
}
END_TEST

START_TEST(timeout_max_completed)
{
	setup(2);
	sim_spawn("tw", timed_waiter, (void *)(unsigned long)MAX_SCHEDULE_TIMEOUT, 0, true, 0);
	sim_spawn("c", complete_at, NULL, 1, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(TO.ret, (unsigned long)MAX_SCHEDULE_TIMEOUT);
}
END_TEST

/* --- hung tasks ------------------------------------------------------------ */

#define SEC 1000000000ULL

static uint64_t blocked_at;

static int hung_waiter(void *arg)
{
	blocked_at = sim_now() + cfg.costs.point + cfg.costs.completion;
	wait_for_completion(&x);
	return 0;
}

static int slow_completer(void *arg)
{
	mdelay(1);			/* the waiter is asleep by now */
	W.state_seen = READ_TASK_STATE(waiter_task);
	mdelay((unsigned long)arg - 1);
	complete(&x);
	return 0;
}

START_TEST(waiter_counts_as_hung)
{
	const struct sim_finding *f;

	setup_cfg(2, 1 * SEC);
	waiter_task = sim_spawn("stuck", hung_waiter, NULL, 0, true, 0);
	sim_spawn("c", slow_completer, (void *)2000UL, 1, true, 1000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(W.state_seen, TASK_UNINTERRUPTIBLE);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_HUNG);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "INFO: task stuck:1 blocked for more than 1 seconds "
			 "(waiting on wait_for_completion)");
	ck_assert_uint_eq(f->time, blocked_at + 1 * SEC);
	ck_assert_str_eq(f->site.func, "hung_waiter");
}
END_TEST

START_TEST(waiter_completed_before_hung_timeout)
{
	setup_cfg(2, 1 * SEC);
	waiter_task = sim_spawn("stuck", hung_waiter, NULL, 0, true, 0);
	sim_spawn("c", slow_completer, (void *)900UL, 1, true, 1000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("completion");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, wait_then_complete);
	tcase_add_test(tc, complete_before_wait_does_not_sleep);
	tcase_add_test(tc, complete_all_releases_everyone);
	tcase_add_test(tc, each_complete_releases_one_fifo);
	tcase_add_test(tc, stolen_wakeup_requeues_at_tail);
	tcase_add_test(tc, wait_in_atomic_is_might_sleep);
	tcase_add_test(tc, wait_timeout_irqs_off_is_might_sleep);
	tcase_add_test(tc, timeout_expires_at_exact_jiffy);
	tcase_add_test(tc, timeout_completed_in_time);
	tcase_add_test(tc, timeout_already_done);
	tcase_add_test(tc, timeout_max_arms_no_timer);
	tcase_add_test(tc, timeout_max_completed);
	tcase_add_test(tc, waiter_counts_as_hung);
	tcase_add_test(tc, waiter_completed_before_hung_timeout);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
