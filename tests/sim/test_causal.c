/*
 * Causal time. The checker of <sim/causal.h> on hand-made record streams
 * (each rule must fire, and only where it should), then the machine's side:
 *   - a 1-jiffy timer armed on a busy CPU with interrupts on fires within
 *     its jiffy plus the wheel's rounding, time-faithfully and under the
 *     random strategy (the bug: it waited 8 ms for another CPU to catch up);
 *     its tick is taken within its jiffy on that CPU even with no skew bound;
 *   - no strategy runs a CPU more than the skew ahead of the earliest ready
 *     one, and skew = unbounded lifts exactly that;
 *   - lock release -> acquire, wake-up -> run and complete() -> waiter carry
 *     the sender's time to the receiver, whatever the strategy picks;
 *   - so does a kfree() to a touch of the freed memory by another CPU: the
 *     use-after-free comes no earlier than the free (the bug: a CPU behind
 *     within the skew faulted before the free's time, issue 19.14).
 * The random runs are bounded by seed counts.
 */
#include "../harness.h"

#include <sim/causal.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include <stdio.h>
#include <string.h>

#define SEEDS		300
#define JIFFY_NS	(1000000000ULL / 250)

/* --- the checker on hand-made streams ------------------------------------------------- */

static struct sim_rec rec(uint8_t type, uint64_t time, uint16_t cpu, uint64_t a, uint64_t c,
			  const char *s)
{
	struct sim_rec r = { .time = time, .cpu = cpu, .type = type, .a = a, .c = c, .s = s };

	snprintf(r.comm, sizeof(r.comm), "t%u", cpu);
	return r;
}

static size_t check(const struct sim_rec *r, size_t n, char *first)
{
	return sim_causal_check(r, n, first, 320);
}

START_TEST(checker_finds_each_kind)
{
	char first[320];
	struct sim_rec queue_late[] = {
		rec(REC_MODEL, 100, 0, 7, 0, "sched_kthread_work_queue_work"),
		rec(REC_MODEL, 50, 1, 7, 0, "sched_kthread_work_execute_start"),
	};
	struct sim_rec wake_late[] = {
		rec(REC_SCHED_WAKING, 100, 0, 5, 0, NULL),
		rec(REC_SCHED_SWITCH, 90, 1, 0, 5, NULL),
	};
	struct sim_rec arm_late[] = {
		rec(REC_TIMER_START, 100, 0, 9, 0, NULL),
		rec(REC_TIMER_EXPIRE_ENTRY, 99, 1, 9, 0, NULL),
	};
	struct sim_rec back[] = {
		rec(REC_IRQ_ENTRY, 100, 1, 0, 0, NULL),
		rec(REC_IRQ_EXIT, 99, 1, 0, 0, NULL),
	};
	struct sim_rec machine[] = {
		rec(REC_IRQ_ENTRY, 500, 0, 0, 0, NULL),
		rec(REC_SCHED_WAKING, 400, 0, 5, 0, NULL),	/* an event's: cpu0's, as printed */
	};
	struct sim_rec no_cause[] = {
		rec(REC_TIMER_EXPIRE_ENTRY, 99, 1, 9, 0, NULL),
	};
	struct sim_rec taken_early[] = {	/* the hand-over: taken before the release */
		rec(REC_LOCK_ACQUIRE, 100, 0, 3, 0, "l"),
		rec(REC_LOCK_RELEASE, 200, 0, 3, 0, "l"),
		rec(REC_LOCK_ACQUIRE, 150, 1, 3, 0, "l"),
	};
	struct sim_rec released_early[] = {	/* on the holder's CPU, in a later stream */
		rec(REC_LOCK_ACQUIRE, 100, 0, 3, 0, "l"),
		rec(REC_IRQ_ENTRY, 50, 1, 0, 0, NULL),
		rec(REC_LOCK_RELEASE, 90, 0, 3, 0, "l"),
	};

	struct sim_rec touched_early[] = {	/* a use-after-free before its kfree */
		rec(REC_FINDING, 150, 1, 0, 0, "uaf"),
	};

	touched_early[0].b = 200;
	ck_assert_uint_eq(check(queue_late, 2, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "execute_start"));
	ck_assert_ptr_nonnull(strstr(first, "before its queue_work at 100 ns on cpu0"));
	ck_assert_uint_eq(check(wake_late, 2, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "switch-in"));
	ck_assert_uint_eq(check(arm_late, 2, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "timer_start"));
	ck_assert_uint_eq(check(back, 2, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "goes back in time on cpu1"));
	machine[1].comm[0] = '\0';
	ck_assert_uint_eq(check(machine, 2, first), 1);
	ck_assert_uint_eq(check(no_cause, 1, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "has no timer_start"));
	ck_assert_uint_eq(check(taken_early, 3, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "lock_acquire of 0x3 at 150 ns on cpu1 comes before "
					  "its lock_release at 200 ns on cpu0"));
	ck_assert_uint_eq(check(released_early, 3, first), 2);
	ck_assert_uint_eq(check(touched_early, 1, first), 1);
	ck_assert_ptr_nonnull(strstr(first, "uaf finding at 150 ns on cpu1 comes before its "
					  "cause at 200 ns on cpu0"));
}
END_TEST

START_TEST(checker_accepts_what_machines_do)
{
	char first[320] = "";
	struct sim_rec ok[] = {
		/* ties across CPUs are simultaneous */
		rec(REC_SCHED_WAKING, 100, 0, 5, 0, NULL),
		rec(REC_SCHED_SWITCH, 100, 1, 0, 5, NULL),
		/* CPUs interleave out of time order within their own streams */
		rec(REC_TIMER_START, 300, 0, 9, 0, NULL),
		rec(REC_IRQ_ENTRY, 200, 1, 0, 0, NULL),
		/* a work queued again after the worker took it, before it traced its start */
		rec(REC_MODEL, 400, 0, 7, 0, "sched_kthread_work_queue_work"),
		rec(REC_MODEL, 450, 0, 7, 0, "sched_kthread_work_queue_work"),
		rec(REC_MODEL, 410, 1, 7, 0, "sched_kthread_work_execute_start"),
		rec(REC_MODEL, 460, 1, 7, 0, "sched_kthread_work_execute_start"),
		rec(REC_TIMER_EXPIRE_ENTRY, 500, 1, 9, 0, NULL),
		/* a lock's first acquire has no release before it; a hand-over at the release */
		rec(REC_LOCK_ACQUIRE, 600, 0, 3, 0, "l"),
		rec(REC_LOCK_RELEASE, 700, 0, 3, 0, "l"),
		rec(REC_LOCK_ACQUIRE, 700, 1, 3, 0, "l"),
		rec(REC_LOCK_RELEASE, 710, 1, 3, 0, "l"),
		/* unbalanced unlocks (lockdep reports them): not held, or by another CPU */
		rec(REC_LOCK_RELEASE, 720, 0, 3, 0, "l"),
		rec(REC_LOCK_ACQUIRE, 730, 1, 3, 0, "l"),
		rec(REC_LOCK_RELEASE, 740, 0, 3, 0, "l"),
		rec(REC_LOCK_RELEASE, 750, 1, 3, 0, "l"),
		/* a use-after-free at its kfree's time (b), or later */
		rec(REC_FINDING, 760, 1, 0, 0, "uaf"),
	};
	ok[sizeof(ok) / sizeof(ok[0]) - 1].b = 760;
	ck_assert_msg(check(ok, sizeof(ok) / sizeof(ok[0]), first) == 0, "%s", first);
}
END_TEST

/* --- the machine --------------------------------------------------------------------- */

static void setup(int ncpus, enum sim_strategy strategy, uint64_t seed, uint64_t skew)
{
	struct sim_config cfg = h_config(ncpus);

	cfg.strategy = strategy;
	cfg.seed = seed;
	cfg.skew_ns = skew;
	h_init_cfg(&cfg);
}

static void assert_causal(const char *what, uint64_t seed)
{
	char first[320];
	size_t v = sim_causal_check(sim_trace_records(), sim_trace_count(), first, sizeof(first));

	ck_assert_msg(v == 0, "%s, seed %llu: %zu violations; first: %s", what,
		      (unsigned long long)seed, v, first);
}

static void timer_fn(struct timer_list *t)
{
	(void)t;
}

static struct timer_list timer;

/* cpu1: arm a 1-jiffy timer, then stay busy with interrupts on. */
static int armer(void *arg)
{
	(void)arg;
	udelay(700);		/* off the jiffy boundary */
	mod_timer(&timer, jiffies + 1);
	udelay(20000);
	return 0;
}

/* cpu0: busy too, in small steps, so a strategy always has a choice. */
static int stepper(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2500; i++)
		udelay(10);
	return 0;
}

static const struct sim_rec *first_rec(enum sim_rec_type type)
{
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == type)
			return &sim_trace_records()[i];
	return NULL;
}

static void run_timer_case(enum sim_strategy strategy, uint64_t seed, uint64_t skew,
			   bool bounded)
{
	const struct sim_rec *start, *fire;

	setup(2, strategy, seed, skew);
	timer_setup(&timer, timer_fn, 0);
	sim_spawn("armer", armer, NULL, 1, true, 0);
	sim_spawn("stepper", stepper, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	start = first_rec(REC_TIMER_START);
	fire = first_rec(REC_TIMER_EXPIRE_ENTRY);
	ck_assert_ptr_nonnull(start);
	ck_assert_msg(fire != NULL, "seed %llu: the timer never fired", (unsigned long long)seed);
	ck_assert_uint_eq(fire->cpu, 1);
	/* its tick is taken within its jiffy on its CPU, under any skew */
	ck_assert_uint_ge(fire->time, sim_jiffies_to_ns(start->c));
	ck_assert_msg(fire->time < sim_jiffies_to_ns(start->c) + JIFFY_NS,
		      "seed %llu: bucket jiffy at %llu ns, fired at %llu ns",
		      (unsigned long long)seed, (unsigned long long)sim_jiffies_to_ns(start->c),
		      (unsigned long long)fire->time);
	/* and that jiffy is the arming's next one or the one after (level 0 rounds up by one) */
	if (bounded)
		ck_assert_msg(fire->time - start->time <= 2 * JIFFY_NS,
			      "seed %llu: armed at %llu ns for one jiffy, fired at %llu ns",
			      (unsigned long long)seed, (unsigned long long)start->time,
			      (unsigned long long)fire->time);
	assert_causal("timer on a busy cpu", seed);
	sim_fini();
}

START_TEST(one_jiffy_timer_on_busy_cpu_fires_in_time)
{
	run_timer_case(SIM_STRATEGY_FAITHFUL, 1, SIM_SKEW_DEFAULT_NS, true);
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		run_timer_case(SIM_STRATEGY_RANDOM, seed, SIM_SKEW_DEFAULT_NS, true);
	for (uint64_t seed = 1; seed <= SEEDS / 3; seed++)
		run_timer_case(SIM_STRATEGY_RANDOM, seed, SIM_SKEW_UNBOUNDED, false);
}
END_TEST

/* --- the skew window ---------------------------------------------------------------- */

static uint64_t last[2], worst;

static int skewer(void *arg)
{
	int me = (int)(intptr_t)arg;

	last[me] = sim_now();	/* switched in: the other may not have run yet */
	for (int i = 0; i < 400; i++) {
		udelay(1);
		last[me] = sim_now();
		/* the other CPU is at its last step's time or later */
		if (last[me] > last[!me] && last[me] - last[!me] > worst)
			worst = last[me] - last[!me];
	}
	last[me] = UINT64_MAX / 2;	/* done: no longer a bound on the other */
	return 0;
}

static uint64_t worst_skew(uint64_t seed, uint64_t skew)
{
	setup(2, SIM_STRATEGY_RANDOM, seed, skew);
	last[0] = last[1] = UINT64_MAX / 2;	/* not started: no bound yet */
	worst = 0;
	sim_spawn("s0", skewer, (void *)(intptr_t)0, 0, true, 0);
	sim_spawn("s1", skewer, (void *)(intptr_t)1, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_causal("skew", seed);
	sim_fini();
	return worst;
}

START_TEST(strategies_keep_within_the_skew)
{
	uint64_t unbounded = 0;

	/* one step (a 1 us udelay and its points) may come on top of the window */
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		uint64_t w = worst_skew(seed, 5000);

		ck_assert_msg(w <= 5000 + 1100, "seed %llu: a CPU ran %llu ns ahead with skew 5us",
			      (unsigned long long)seed, (unsigned long long)w);
	}
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint64_t w = worst_skew(seed, SIM_SKEW_UNBOUNDED);

		unbounded = w > unbounded ? w : unbounded;
	}
	/* the window is what bounds it: without one, random walks apart */
	ck_assert_uint_gt(unbounded, 5000 + 1100);
}
END_TEST

START_TEST(faithful_is_unchanged_by_the_window)
{
	uint64_t h[2];

	for (int k = 0; k < 2; k++) {
		setup(2, SIM_STRATEGY_FAITHFUL, 1, k ? SIM_SKEW_UNBOUNDED : 0);
		timer_setup(&timer, timer_fn, 0);
		sim_spawn("armer", armer, NULL, 1, true, 0);
		sim_spawn("stepper", stepper, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		h[k] = sim_trace_hash();
		sim_fini();
	}
	ck_assert_uint_eq(h[0], h[1]);
}
END_TEST

/* --- hand-overs --------------------------------------------------------------------- */

static DEFINE_SPINLOCK(lock);
static DECLARE_COMPLETION(done);
static uint64_t released_at, completed_at;
static struct task_struct *sleeper;
static uint64_t woken_by_at;
static int early;	/* receptions before their sending: checked after the run */

/* cpu0: long sections under the lock, then complete(); cpu1 acquires and waits. */
static int sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		spin_lock(&lock);
		udelay(15);
		released_at = sim_now();
		spin_unlock(&lock);
		udelay(3);
	}
	udelay(30);
	completed_at = sim_now();
	complete(&done);
	udelay(30);
	woken_by_at = sim_now();
	wake_up_process(sleeper);
	return 0;
}

static int receiver(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		spin_lock(&lock);
		/* whoever held it last let go no later than now */
		early += sim_now() < released_at;
		spin_unlock(&lock);
	}
	wait_for_completion(&done);
	early += sim_now() < completed_at;
	return 0;
}

static int sleeper_fn(void *arg)
{
	(void)arg;
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule();
	early += sim_now() < woken_by_at;
	return 0;
}

START_TEST(handovers_carry_time)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		setup(3, SIM_STRATEGY_RANDOM, seed, seed % 2 ? SIM_SKEW_DEFAULT_NS : SIM_SKEW_UNBOUNDED);
		spin_lock_init(&lock);
		init_completion(&done);
		released_at = completed_at = 0;
		woken_by_at = UINT64_MAX;
		early = 0;
		sleeper = sim_spawn("sleeper", sleeper_fn, NULL, 2, true, 0);
		sim_spawn("receiver", receiver, NULL, 1, true, 0);
		sim_spawn("sender", sender, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(h_count(SIM_F_WARN) + h_count(SIM_F_LOCKDEP), 0);
		ck_assert_msg(!early, "seed %llu: %d receptions before their sending",
			      (unsigned long long)seed, early);
		assert_causal("hand-overs", seed);
		sim_fini();
	}
}
END_TEST

/* --- a free hands the memory over ---------------------------------------------------- */

static int *victim;
static uint64_t freed_at;

static int freer(void *arg)
{
	(void)arg;
	udelay(40);
	freed_at = sim_now();
	kfree(victim);
	return 0;
}

static int toucher(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		udelay(1);
		(void)READ_ONCE(*victim);
	}
	return 0;
}

START_TEST(free_hands_over_to_a_use_after_free)
{
	size_t touched_early = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		const struct sim_finding *f;

		setup(2, SIM_STRATEGY_RANDOM, seed, seed % 2 ? SIM_SKEW_DEFAULT_NS : SIM_SKEW_UNBOUNDED);
		victim = kzalloc(sizeof(*victim), GFP_KERNEL);
		freed_at = UINT64_MAX;
		sim_spawn("freer", freer, NULL, 0, true, 0);
		sim_spawn("toucher", toucher, NULL, 1, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_FATAL);
		f = h_first(SIM_F_UAF);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(f->cpu, 1);
		touched_early += f->time < freed_at;
		assert_causal("use-after-free", seed);
		sim_fini();
	}
	ck_assert_msg(!touched_early, "%zu touches drawn before their free", touched_early);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("causal");
	TCase *tc = tcase_create("checker");
	TCase *tm = tcase_create("machine");

	tcase_add_test(tc, checker_finds_each_kind);
	tcase_add_test(tc, checker_accepts_what_machines_do);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tm, 240);
	tcase_add_test(tm, one_jiffy_timer_on_busy_cpu_fires_in_time);
	tcase_add_test(tm, strategies_keep_within_the_skew);
	tcase_add_test(tm, faithful_is_unchanged_by_the_window);
	tcase_add_test(tm, handovers_carry_time);
	tcase_add_test(tm, free_hands_over_to_a_use_after_free);
	suite_add_tcase(s, tm);
	return s;
}

H_MAIN(suite)
