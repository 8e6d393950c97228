/*
 * Timers (sim/timer.c). Pins: sim_timer_bucket_expiry() equals the bucket
 * expiry of kernel/time/timer.c's calc_wheel_index() (transcribed below) at
 * every level boundary, the cutoff and for negative deltas, for HZ=100 (8
 * levels) and HZ=250/1000 (9); over 2000 random delays a timer fires exactly
 * at that bucket, so never early and at most one granule (+1) late; the
 * callback runs in the timer softirq of the arming CPU, with irqs off only for
 * TIMER_IRQSAFE, and not while that CPU has irqs off; del_timer_sync waits,
 * spinning, for a callback running elsewhere; the return values of the
 * arming and deleting calls, including __mod_timer()'s in-place shortcut;
 * add_timer on a pending timer is 4.9's BUG and 6.1+'s WARN_ON_ONCE, the
 * timer keeping its first expiry; expiry order within a jiffy (higher
 * wheel levels first, then newest first, as collect_expired_timers() and
 * hlist_add_head() make it); the 4.9 and current initialisers; the
 * timer_start / timer_cancel / timer_expire_entry / _exit records, with
 * timer_cancel also before each expiry as detach_timer() traces it; and a
 * callback re-arming itself runs once per softirq; timer_start and
 * timer_cancel are recorded with the timer base lock's state, irqs off and
 * one more preempt count than the caller had, msleep()'s timer included.
 * Placement: a timer re-armed while its callback runs stays on that base;
 * the base clock is one past the jiffy of its last softirq, so a delay of 63
 * armed from a callback stays on level 0. An armed timer initialised again:
 * with debug objects, the ODEBUG report and the fixup's deletion; without,
 * no report, not pending, but still in its bucket (its callback runs, a
 * neighbour's unlinking makes it pending again, del_timer_sync() locks the
 * initialising CPU's base, arming it again stops the machine).
 */
#include "../harness.h"

#include <linux/timer.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/spinlock.h>

#include <limits.h>
#include <string.h>

static struct sim_config cfg;

static void setup_hz(int ncpus, unsigned int hz)
{
	cfg = h_config(ncpus);
	cfg.hz = hz;
	cfg.time_limit_ns = 0;
	h_init_cfg(&cfg);
}

static void setup(int ncpus)
{
	setup_hz(ncpus, 250);
}

static void assert_clean(void)
{
	if (sim_finding_count())
		h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
}

static const struct sim_rec *nth_rec(enum sim_rec_type type, size_t nth)
{
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == type && !nth--)
			return &sim_trace_records()[i];
	return NULL;
}

/* --- the kernel's calc_wheel_index(), transcribed (6.12) ------------------- */

#define R_LVL_CLK_SHIFT	3
#define R_LVL_BITS	6
#define R_LVL_SIZE	(1UL << R_LVL_BITS)
#define R_LVL_MASK	(R_LVL_SIZE - 1)
#define R_LVL_OFFS(n)	((n) * R_LVL_SIZE)
#define R_LVL_SHIFT(n)	((n) * R_LVL_CLK_SHIFT)
#define R_LVL_GRAN(n)	(1UL << R_LVL_SHIFT(n))
#define R_LVL_START(n)	((R_LVL_SIZE - 1) << (((n) - 1) * R_LVL_CLK_SHIFT))

static unsigned int r_depth;	/* LVL_DEPTH: 9 if HZ > 100, else 8 */
#define R_CUTOFF	(R_LVL_START(r_depth))
#define R_MAX		(R_CUTOFF - R_LVL_GRAN(r_depth - 1))

static unsigned int r_calc_index(unsigned long expires, unsigned int lvl,
				 unsigned long *bucket_expiry)
{
	expires = (expires >> R_LVL_SHIFT(lvl)) + 1;
	*bucket_expiry = expires << R_LVL_SHIFT(lvl);
	return R_LVL_OFFS(lvl) + (expires & R_LVL_MASK);
}

static int r_calc_wheel_index(unsigned long expires, unsigned long clk,
			      unsigned long *bucket_expiry)
{
	unsigned long delta = expires - clk;
	unsigned int idx;

	if (delta < R_LVL_START(1)) {
		idx = r_calc_index(expires, 0, bucket_expiry);
	} else if (delta < R_LVL_START(2)) {
		idx = r_calc_index(expires, 1, bucket_expiry);
	} else if (delta < R_LVL_START(3)) {
		idx = r_calc_index(expires, 2, bucket_expiry);
	} else if (delta < R_LVL_START(4)) {
		idx = r_calc_index(expires, 3, bucket_expiry);
	} else if (delta < R_LVL_START(5)) {
		idx = r_calc_index(expires, 4, bucket_expiry);
	} else if (delta < R_LVL_START(6)) {
		idx = r_calc_index(expires, 5, bucket_expiry);
	} else if (delta < R_LVL_START(7)) {
		idx = r_calc_index(expires, 6, bucket_expiry);
	} else if (r_depth > 8 && delta < R_LVL_START(8)) {
		idx = r_calc_index(expires, 7, bucket_expiry);
	} else if ((long)delta < 0) {
		idx = clk & R_LVL_MASK;
		*bucket_expiry = clk;
	} else {
		if (delta >= R_CUTOFF)
			expires = clk + R_MAX;
		idx = r_calc_index(expires, r_depth - 1, bucket_expiry);
	}
	return (int)idx;
}

static unsigned long ref_bucket(unsigned long expires, unsigned long clk, int *level)
{
	unsigned long b;

	*level = r_calc_wheel_index(expires, clk, &b) / (int)R_LVL_SIZE;
	return b;
}

/* --- bucket expiry against the kernel -------------------------------------- */

static void compare_one(unsigned long clk, unsigned long delta)
{
	unsigned long expires = clk + delta, want, got;
	int wlvl, glvl;

	want = ref_bucket(expires, clk, &wlvl);
	got = sim_timer_bucket_expiry(expires, clk, &glvl);
	ck_assert_msg(got == want && glvl == wlvl,
		      "hz %u clk %lu delta %ld: got %lu level %d, kernel %lu level %d",
		      cfg.hz, clk, (long)delta, got, glvl, want, wlvl);
}

static void compare_hz(unsigned int hz)
{
	static const long negative[] = { -1, -2, -7, -8, -63, -64, -1000, -(1L << 40), LONG_MIN };
	unsigned long clks[] = { 0, 1, 7, 8, 63, 64, 4095, 0x123456789UL, ULONG_MAX - 5,
				 (unsigned long)(unsigned int)(-300 * (int)hz) };
	unsigned long deltas[128];
	int n = 0;

	setup_hz(1, hz);
	r_depth = hz > 100 ? 9 : 8;
	for (unsigned int lvl = 1; lvl <= r_depth; lvl++) {
		unsigned long start = R_LVL_START(lvl), pow = 64UL << R_LVL_SHIFT(lvl - 1);

		for (long d = -1; d <= 1; d++) {
			/* 62/63/64, 503/504/505, ... and 63/64/65, 511/512/513, ... */
			deltas[n++] = start + (unsigned long)d;
			deltas[n++] = pow + (unsigned long)d;
		}
	}
	deltas[n++] = 0;
	deltas[n++] = 1;
	deltas[n++] = R_MAX;
	deltas[n++] = R_CUTOFF - 1;
	deltas[n++] = R_CUTOFF;
	deltas[n++] = R_CUTOFF + 1;
	deltas[n++] = LONG_MAX;
	for (size_t c = 0; c < sizeof(clks) / sizeof(clks[0]); c++) {
		for (int off = 0; off < 8; off++) {
			unsigned long clk = clks[c] + (unsigned long)off;

			for (int i = 0; i < n; i++)
				compare_one(clk, deltas[i]);
			for (size_t i = 0; i < sizeof(negative) / sizeof(negative[0]); i++)
				compare_one(clk, (unsigned long)negative[i]);
		}
	}
	sim_fini();
}

START_TEST(bucket_expiry_matches_kernel)
{
	compare_hz(100);
	compare_hz(250);
	compare_hz(1000);
}
END_TEST

/* A few values worked by hand, so the transcription above is not the only witness. */
START_TEST(bucket_expiry_by_hand)
{
	int lvl;

	setup_hz(1, 250);
	ck_assert_uint_eq(sim_timer_bucket_expiry(62, 0, &lvl), 63);
	ck_assert_int_eq(lvl, 0);
	ck_assert_uint_eq(sim_timer_bucket_expiry(63, 0, &lvl), 64);	/* (63 >> 3) + 1 << 3 */
	ck_assert_int_eq(lvl, 1);
	ck_assert_uint_eq(sim_timer_bucket_expiry(503, 0, &lvl), 504);
	ck_assert_int_eq(lvl, 1);
	ck_assert_uint_eq(sim_timer_bucket_expiry(504, 0, &lvl), 512);	/* granule 64 */
	ck_assert_int_eq(lvl, 2);
	ck_assert_uint_eq(sim_timer_bucket_expiry(1000 + 100, 1000, &lvl), 1104);
	ck_assert_int_eq(lvl, 1);
	/* the past: clk */
	ck_assert_uint_eq(sim_timer_bucket_expiry(995, 1000, &lvl), 1000);
	ck_assert_int_eq(lvl, 0);
	/* HZ=250: 9 levels, cutoff 63 << 24; beyond it, clk + cutoff - 2^24, rounded up */
	ck_assert_uint_eq(sim_timer_bucket_expiry(63UL << 24, 0, &lvl), 63UL << 24);
	ck_assert_int_eq(lvl, 8);
	ck_assert_uint_eq(sim_timer_bucket_expiry(1UL << 40, 0, &lvl), 63UL << 24);
	sim_fini();

	setup_hz(1, 100);	/* 8 levels, cutoff 63 << 21 */
	ck_assert_uint_eq(sim_timer_bucket_expiry(63UL << 21, 0, &lvl), 63UL << 21);
	ck_assert_int_eq(lvl, 7);
	ck_assert_uint_eq(sim_timer_bucket_expiry(1UL << 40, 0, &lvl), 63UL << 21);
	sim_fini();
}
END_TEST

/* --- never early: 2000 random delays --------------------------------------- */

#define NPROP 2000

struct ptimer {
	struct timer_list t;
	unsigned long expires, clk, fired;
	int fired_cpu;
};

static struct ptimer pt[NPROP];
static uint64_t lcg_state;
/* the jiffy the last callback ran in: __run_timers() leaves the base's clk one past it */
static unsigned long last_run;
static bool ran_once;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return lcg_state >> 33;
}

static void prop_fn(struct timer_list *t)
{
	struct ptimer *p = from_timer(p, t, t);

	p->fired = jiffies;
	p->fired_cpu = smp_processor_id();
	last_run = jiffies;
	ran_once = true;
}

/* The base's clk as __mod_timer() sees it after forward_timer_base(). */
static unsigned long base_clk_now(void)
{
	unsigned long clk = jiffies;

	if (ran_once && time_after(last_run + 1, clk))
		clk = last_run + 1;
	return clk;
}

static int prop_armer(void *arg)
{
	for (int i = 0; i < NPROP; i++) {
		unsigned long delay = lcg() % (1UL << (lcg() % 27));

		if (i % 16 == 0)
			udelay(lcg() % 9000);	/* vary the jiffy and the phase within it */
		pt[i].expires = jiffies + delay;
		mod_timer(&pt[i].t, pt[i].expires);
		pt[i].clk = base_clk_now();	/* the base clock mod_timer() saw */
	}
	return 0;
}

static void never_early(unsigned int hz)
{
	setup_hz(1, hz);
	r_depth = hz > 100 ? 9 : 8;
	lcg_state = 12345 + hz;
	ran_once = false;
	for (int i = 0; i < NPROP; i++)
		timer_setup(&pt[i].t, prop_fn, 0);
	sim_spawn("armer", prop_armer, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	for (int i = 0; i < NPROP; i++) {
		int lvl;
		unsigned long want = ref_bucket(pt[i].expires, pt[i].clk, &lvl);

		ck_assert_msg(time_after_eq(pt[i].fired, pt[i].expires),
			      "hz %u timer %d early: expires %lu fired %lu", hz, i, pt[i].expires,
			      pt[i].fired);
		ck_assert_msg(time_before_eq(pt[i].fired, pt[i].expires + R_LVL_GRAN(lvl) + 1),
			      "hz %u timer %d late: expires %lu level %d fired %lu", hz, i,
			      pt[i].expires, lvl, pt[i].fired);
		ck_assert_msg(pt[i].fired == want, "hz %u timer %d: fired %lu, kernel bucket %lu",
			      hz, i, pt[i].fired, want);
	}
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), NPROP);
	sim_fini();
}

START_TEST(never_early_property)
{
	never_early(250);
	never_early(100);
	never_early(1000);
}
END_TEST

/* --- where and how the callback runs --------------------------------------- */

static struct timer_list tm, tm2, tm3;

static struct ctxinfo {
	int cpu, ncalls;
	bool in_softirq, serving, in_irq, irqs_off, in_task;
	uint64_t at;
	unsigned long jiffy;
} ci[4];

static void record(struct ctxinfo *r)
{
	r->cpu = smp_processor_id();
	r->in_softirq = in_softirq();
	r->serving = in_serving_softirq();
	r->in_irq = in_irq();
	r->irqs_off = irqs_disabled();
	r->in_task = in_task();
	r->at = sim_now();
	r->jiffy = jiffies;
	r->ncalls++;
}

static void ctx_fn0(struct timer_list *t) { record(&ci[0]); }
static void ctx_fn1(struct timer_list *t) { record(&ci[1]); }

static int arm_both(void *arg)
{
	mod_timer(&tm, jiffies + 3);
	mod_timer(&tm2, jiffies + 3);
	return 0;
}

START_TEST(callback_context)
{
	setup(2);
	timer_setup(&tm, ctx_fn0, 0);
	timer_setup(&tm2, ctx_fn1, TIMER_IRQSAFE);
	sim_spawn("arm", arm_both, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ci[i].ncalls, 1);
		ck_assert_int_eq(ci[i].cpu, 1);
		ck_assert(ci[i].in_softirq);
		ck_assert(ci[i].serving);
		ck_assert(!ci[i].in_irq);
		ck_assert(!ci[i].in_task);
	}
	ck_assert(!ci[0].irqs_off);
	ck_assert(ci[1].irqs_off);	/* TIMER_IRQSAFE */
}
END_TEST

/* A pending timer re-armed from another CPU moves there, as __mod_timer() moves it. */
static int arm_far(void *arg)
{
	mod_timer(&tm, jiffies + 100);
	return 0;
}

static int rearm_near(void *arg)
{
	mod_timer(&tm, jiffies + 5);
	return 0;
}

START_TEST(rearm_moves_to_this_cpu)
{
	setup(2);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("far", arm_far, NULL, 1, true, 0);
	sim_spawn("near", rearm_near, NULL, 0, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(ci[0].ncalls, 1);
	ck_assert_int_eq(ci[0].cpu, 0);
}
END_TEST

/* --- irqs off hold the softirq back ---------------------------------------- */

static uint64_t t_enable;
static unsigned long armed_due;

static int irqs_off_task(void *arg)
{
	armed_due = jiffies + 1;
	mod_timer(&tm, armed_due);
	local_irq_disable();
	udelay(20000);			/* five jiffies with irqs off */
	t_enable = sim_now();
	local_irq_enable();
	return 0;
}

START_TEST(irqs_off_defers_callback)
{
	setup(1);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", irqs_off_task, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(ci[0].ncalls, 1);
	ck_assert_uint_eq(ci[0].at, t_enable + cfg.costs.irq_toggle + cfg.costs.irq_entry);
	ck_assert(time_after(ci[0].jiffy, armed_due + 1));
	ck_assert_uint_eq(ci[0].jiffy, sim_ns_to_jiffies(t_enable));
}
END_TEST

/* --- del_timer_sync waits for a running callback --------------------------- */

static struct {
	uint64_t cb_start, cb_end, call, ret_at;
	int try_ret, sync_ret;
} D;

static void slow_fn(struct timer_list *t)
{
	D.cb_start = sim_now();
	udelay(500);
	D.cb_end = sim_now();
}

static int arm_slow(void *arg)
{
	mod_timer(&tm, jiffies + 1);	/* bucket: the jiffy after next, 8 ms */
	return 0;
}

static int deleter(void *arg)
{
	D.try_ret = try_to_del_timer_sync(&tm);
	D.call = sim_now();
	D.sync_ret = del_timer_sync(&tm);
	D.ret_at = sim_now();
	return 0;
}

START_TEST(del_timer_sync_waits_for_callback)
{
	setup(2);
	timer_setup(&tm, slow_fn, 0);
	sim_spawn("arm", arm_slow, NULL, 0, true, 0);
	sim_spawn("del", deleter, NULL, 1, true, 8100000);	/* 100 us into the callback */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(D.cb_start, 8000000 + cfg.costs.irq_entry);
	ck_assert_uint_eq(D.cb_end, D.cb_start + 500000);
	ck_assert_int_eq(D.try_ret, -1);	/* running elsewhere */
	ck_assert_uint_lt(D.call, D.cb_end);
	ck_assert_int_eq(D.sync_ret, 0);	/* it was no longer pending */
	/* released at the callback's end, then one more try */
	ck_assert_uint_eq(D.ret_at, D.cb_end + cfg.costs.timer_op);
	ck_assert_uint_gt(D.ret_at - D.call, 390000);
}
END_TEST

/* --- return values --------------------------------------------------------- */

static int rv[32], nrv;
static unsigned long ex[8];
static size_t starts_before, starts_after;

#define RV(expr) (rv[nrv++] = (expr))

static int retvals(void *arg)
{
	unsigned long j = jiffies;

	RV(timer_pending(&tm));			/* 0 */
	RV(del_timer(&tm));			/* 0 */
	RV(del_timer_sync(&tm));		/* 0 */
	RV(try_to_del_timer_sync(&tm));		/* 0 */
	RV(mod_timer_pending(&tm, j + 10));	/* 0, and not armed */
	RV(timer_pending(&tm));			/* 0 */
	RV(mod_timer(&tm, j + 10));		/* 0 */
	RV(timer_pending(&tm));			/* 1 */
	starts_before = h_trace_count(REC_TIMER_START);
	RV(mod_timer(&tm, j + 10));		/* 1: same expiry, nothing done */
	RV(mod_timer(&tm, j + 100));		/* 1: level 1, j is a multiple of 8 */
	RV(mod_timer(&tm, j + 101));		/* 1: same bucket, expires updated in place */
	starts_after = h_trace_count(REC_TIMER_START);
	ex[0] = tm.expires;
	RV(mod_timer(&tm, j + 200));		/* 1 */
	ex[1] = tm.expires;
	RV(mod_timer_pending(&tm, j + 30));	/* 1 */
	ex[2] = tm.expires;
	RV(timer_reduce(&tm, j + 40));		/* 1: later, no change */
	ex[3] = tm.expires;
	RV(timer_reduce(&tm, j + 25));		/* 1: earlier, reduced */
	ex[4] = tm.expires;
	RV(del_timer(&tm));			/* 1 */
	RV(timer_pending(&tm));			/* 0 */
	RV(del_timer(&tm));			/* 0 */
	RV(mod_timer(&tm, j + 10));		/* 0 */
	RV(del_timer_sync(&tm));		/* 1 */
	RV(mod_timer(&tm, j + 10));		/* 0 */
	RV(try_to_del_timer_sync(&tm));		/* 1 */
	RV(timer_reduce(&tm, j + 3));		/* 0: not pending, so armed */
	RV(timer_pending(&tm));			/* 1 */
	return 0;
}

START_TEST(return_values)
{
	static const int want[] = { 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0,
				    1, 0, 1 };
	unsigned long j0 = (unsigned long)(unsigned int)(-300 * 250);

	setup(1);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", retvals, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nrv, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < nrv; i++)
		ck_assert_msg(rv[i] == want[i], "call %d returned %d, not %d", i, rv[i], want[i]);
	ck_assert_uint_eq(j0 % 8, 0);
	ck_assert_uint_eq(starts_after, starts_before + 1);	/* only j + 100 re-queued */
	ck_assert_uint_eq(ex[0], j0 + 101);
	ck_assert_uint_eq(ex[1], j0 + 200);
	ck_assert_uint_eq(ex[2], j0 + 30);
	ck_assert_uint_eq(ex[3], j0 + 30);
	ck_assert_uint_eq(ex[4], j0 + 25);
	ck_assert_int_eq(ci[0].ncalls, 1);	/* only the last arming fires */
	ck_assert_uint_eq(ci[0].jiffy, j0 + 4);
}
END_TEST

/* --- add_timer on a pending timer ------------------------------------------ */

static unsigned long double_add_j0;

static int double_add(void *arg)
{
	double_add_j0 = jiffies;
	tm.expires = jiffies + 10;
	add_timer(&tm);
	tm.expires = jiffies + 100;	/* the second add asks for a later expiry */
	add_timer(&tm);
	add_timer(&tm);
	return 0;
}

static void add_twice(unsigned int era)
{
	cfg = h_config(1);
	cfg.era = era;
	h_init_cfg(&cfg);
	timer_setup(&tm, ctx_fn0, 0);
	memset(ci, 0, sizeof(ci));
	sim_spawn("t", double_add, NULL, 0, true, 0);
}

/* 4.9: BUG_ON(timer_pending(timer)), and the machine stops as the kernel does. */
START_TEST(add_timer_pending_is_bug_v49)
{
	const struct sim_finding *f;

	add_twice(SIM_ERA(4, 9));
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	ck_assert_uint_eq(h_count(SIM_F_BUG), 1);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(strstr(f->msg, "BUG_ON(timer_pending(timer))"));
	ck_assert_str_eq(f->site.func, "add_timer");
	ck_assert_int_eq(ci[0].ncalls, 0);
}
END_TEST

/*
 * 6.1 and later: WARN_ON_ONCE and return. One warning for the two calls;
 * the timer keeps its first expiry (j0 + 10, level 0: bucket j0 + 11 by
 * calc_index()) and fires once.
 */
START_TEST(add_timer_pending_warns_once_6x)
{
	const unsigned int eras[] = { SIM_ERA(6, 1), SIM_ERA(6, 12) };

	for (size_t e = 0; e < 2; e++) {
		const struct sim_finding *f;

		add_twice(eras[e]);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(sim_finding_count(), 1);
		f = h_first(SIM_F_WARN);
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(strstr(f->msg, "WARN_ON_ONCE(timer_pending(timer))"));
		ck_assert_str_eq(f->site.func, "add_timer");
		ck_assert_int_eq(ci[0].ncalls, 1);
		ck_assert_uint_eq(ci[0].jiffy, double_add_j0 + 11);
		sim_fini();
	}
}
END_TEST

/* --- a timer without a callback (shut down) --------------------------------- */

static int null_armed_ret, null_pending_after;

/* mod_timer() and add_timer_on() of a timer whose callback is NULL */
static int arm_null(void *arg)
{
	tm.function = NULL;
	null_armed_ret = mod_timer(&tm, jiffies + 5);
	null_pending_after = timer_pending(&tm);
	if (!null_pending_after) {	/* 4.9's add_timer_on() would BUG_ON the pending one */
		tm.expires = jiffies + 6;
		add_timer_on(&tm, 0);
		null_pending_after += timer_pending(&tm);
	}
	return 0;
}

/* armed with a callback, then the callback cleared while it is pending */
static int clear_while_armed(void *arg)
{
	mod_timer(&tm, jiffies + 5);
	tm.function = NULL;
	return 0;
}

static void null_run(unsigned int era, int (*fn)(void *))
{
	cfg = h_config(1);
	cfg.era = era;
	h_init_cfg(&cfg);
	timer_setup(&tm, ctx_fn0, 0);
	memset(ci, 0, sizeof(ci));
	null_armed_ret = -1;
	null_pending_after = -1;
	sim_spawn("t", fn, NULL, 0, true, 0);
}

/* 4.9 arms it, and its expiry calls NULL: an oops in call_timer_fn. */
START_TEST(null_callback_armed_oopses_v49)
{
	const struct sim_finding *f;

	null_run(SIM_ERA(4, 9), arm_null);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->site.func, "call_timer_fn");
	ck_assert_int_eq(null_armed_ret, 0);
	ck_assert_int_eq(null_pending_after, 1);
}
END_TEST

/* 6.1 and later: a timer without a callback was shut down; arming it does nothing. */
START_TEST(null_callback_not_armed_6x)
{
	const unsigned int eras[] = { SIM_ERA(6, 1), SIM_ERA(6, 12) };

	for (size_t e = 0; e < 2; e++) {
		null_run(eras[e], arm_null);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(sim_finding_count(), 0);
		ck_assert_int_eq(null_armed_ret, 0);
		ck_assert_int_eq(null_pending_after, 0);
		sim_fini();
	}
}
END_TEST

/* Cleared while pending: 6.x's expire_timers() warns once and skips it; 4.9 oopses. */
START_TEST(null_callback_at_expiry)
{
	const unsigned int eras[] = { SIM_ERA(4, 9), SIM_ERA(6, 1), SIM_ERA(6, 12) };

	for (size_t e = 0; e < 3; e++) {
		const struct sim_finding *f;
		enum sim_end end;

		null_run(eras[e], clear_while_armed);
		end = h_run();
		f = h_first(e ? SIM_F_WARN : SIM_F_BUG);
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(sim_finding_count(), 1);
		ck_assert_str_eq(f->site.func, e ? "expire_timers" : "call_timer_fn");
		ck_assert_int_eq(end, e ? SIM_END_QUIESCENT : SIM_END_FATAL);
		ck_assert(!timer_pending(&tm));
		ck_assert_int_eq(ci[0].ncalls, 0);
		sim_fini();
	}
}
END_TEST

/* --- expiry order ---------------------------------------------------------- */

static int fire_order[8], nfire;

static void ord_fn(struct timer_list *t)
{
	fire_order[nfire++] = t == &tm ? 0 : t == &tm2 ? 1 : 2;
	ci[0].jiffy = jiffies;
}

static int arm_three_same(void *arg)
{
	unsigned long e = jiffies + 5;

	mod_timer(&tm, e);
	mod_timer(&tm2, e);
	mod_timer(&tm3, e);
	mod_timer(&tm, e);	/* same expiry: stays where it is, the oldest */
	return 0;
}

START_TEST(same_expiry_newest_first)
{
	setup(1);
	timer_setup(&tm, ord_fn, 0);
	timer_setup(&tm2, ord_fn, 0);
	timer_setup(&tm3, ord_fn, 0);
	sim_spawn("t", arm_three_same, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nfire, 3);
	ck_assert_int_eq(fire_order[0], 2);
	ck_assert_int_eq(fire_order[1], 1);
	ck_assert_int_eq(fire_order[2], 0);
	/* all three in one softirq */
	ck_assert_uint_eq(h_trace_count(REC_SOFTIRQ_ENTRY), 1);
}
END_TEST

/* Re-armed for another jiffy, a timer is the newest of its new bucket. */
static int arm_then_move(void *arg)
{
	unsigned long e = jiffies + 5;

	mod_timer(&tm, e + 1);
	mod_timer(&tm2, e);
	mod_timer(&tm3, e);
	mod_timer(&tm, e);	/* another bucket: dequeued and queued as the newest */
	return 0;
}

START_TEST(moved_timer_is_newest)
{
	setup(1);
	timer_setup(&tm, ord_fn, 0);
	timer_setup(&tm2, ord_fn, 0);
	timer_setup(&tm3, ord_fn, 0);
	sim_spawn("t", arm_then_move, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(nfire, 3);
	ck_assert_int_eq(fire_order[0], 0);
	ck_assert_int_eq(fire_order[1], 2);
	ck_assert_int_eq(fire_order[2], 1);
}
END_TEST

/*
 * At one jiffy, collect_expired_timers() gathers level 0, then 1, ...; and
 * __run_timers() expires the highest level first. tm is armed 100 jiffies
 * out (level 1, bucket a multiple of 8); close to that jiffy tm2 is armed on
 * level 0 for the same bucket: newer, but it runs second.
 */
static unsigned long high_bucket;

static int arm_two_levels(void *arg)
{
	unsigned long j = jiffies;

	high_bucket = ((j + 100) >> 3) + 1;
	high_bucket <<= 3;
	mod_timer(&tm, j + 100);
	while (time_before(jiffies, high_bucket - 10))
		mdelay(1);
	mod_timer(&tm2, high_bucket - 1);
	return 0;
}

START_TEST(higher_level_first)
{
	setup(1);
	timer_setup(&tm, ord_fn, 0);
	timer_setup(&tm2, ord_fn, 0);
	sim_spawn("t", arm_two_levels, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nfire, 2);
	ck_assert_int_eq(fire_order[0], 0);
	ck_assert_int_eq(fire_order[1], 1);
	ck_assert_uint_eq(ci[0].jiffy, high_bucket);
	ck_assert_uint_eq(h_trace_count(REC_SOFTIRQ_ENTRY), 1);
}
END_TEST

/* --- initialisers, 4.9 and current ----------------------------------------- */

static unsigned long legacy_data[4];
static bool legacy_irqs_off[4];
static int nlegacy;

static void legacy_fn(unsigned long data)
{
	legacy_irqs_off[nlegacy] = irqs_disabled();
	legacy_data[nlegacy++] = data;
}

static int new_calls;
static bool new_irqs_off[4];

static void new_fn(struct timer_list *t)
{
	new_irqs_off[new_calls++] = irqs_disabled();
}

static struct timer_list st4 = __TIMER_INITIALIZER(legacy_fn, 0, 44, 0);
static struct timer_list st2 = __TIMER_INITIALIZER(new_fn, TIMER_IRQSAFE);
static DEFINE_TIMER(dt, new_fn);
static struct timer_list su1, su2, ts;

static int arm_all_forms(void *arg)
{
	unsigned long j = jiffies;

	setup_timer(&su1, legacy_fn, 42);
	__setup_timer(&su2, legacy_fn, 43, TIMER_IRQSAFE);
	timer_setup(&ts, new_fn, 0);
	mod_timer(&su1, j + 2);
	udelay(5000);
	mod_timer(&su2, j + 4);
	udelay(5000);
	st4.expires = j + 6;
	add_timer(&st4);
	udelay(5000);
	mod_timer(&st2, j + 8);
	udelay(5000);
	mod_timer(&dt, j + 10);
	udelay(5000);
	mod_timer(&ts, j + 12);
	return 0;
}

START_TEST(initialiser_forms)
{
	setup(1);
	sim_spawn("t", arm_all_forms, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nlegacy, 3);
	ck_assert_uint_eq(legacy_data[0], 42);
	ck_assert_uint_eq(legacy_data[1], 43);
	ck_assert_uint_eq(legacy_data[2], 44);
	ck_assert(!legacy_irqs_off[0]);
	ck_assert(legacy_irqs_off[1]);		/* __setup_timer's flags */
	ck_assert(!legacy_irqs_off[2]);
	ck_assert_int_eq(new_calls, 3);
	ck_assert(new_irqs_off[0]);		/* the 2-argument initializer's flags */
	ck_assert(!new_irqs_off[1]);
	ck_assert(!new_irqs_off[2]);
	ck_assert_uint_eq(st2.flags, TIMER_IRQSAFE);
	ck_assert_uint_eq(su2.flags, TIMER_IRQSAFE);
}
END_TEST

/* --- trace records --------------------------------------------------------- */

static unsigned long tr_clk, tr_exp;

static void tr_fn(struct timer_list *t) { }

static int trace_task(void *arg)
{
	tr_clk = jiffies;
	tr_exp = tr_clk + 7;
	mod_timer(&tm, tr_exp);		/* start */
	mod_timer(&tm2, tr_clk + 50);	/* start */
	mod_timer(&tm2, tr_clk + 200);	/* cancel, start */
	del_timer(&tm2);		/* cancel */
	return 0;
}

START_TEST(trace_records)
{
	const struct sim_rec *r;
	uint64_t a1, a2;
	unsigned long bucket, b2;
	unsigned int idx1, idx2;
	int lvl;

	setup(2);
	timer_setup(&tm, tr_fn, TIMER_IRQSAFE);
	timer_setup(&tm2, tr_fn, 0);
	sim_register_symbol((const void *)tr_fn, "tr_fn");
	sim_spawn("t", trace_task, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	a1 = sim_fake_addr(&tm);
	a2 = sim_fake_addr(&tm2);
	r_depth = 9;
	bucket = ref_bucket(tr_exp, tr_clk, &lvl);
	idx1 = (unsigned int)r_calc_wheel_index(tr_exp, tr_clk, &b2);
	idx2 = (unsigned int)r_calc_wheel_index(tr_clk + 200, tr_clk, &b2);

	/* as the kernel's trace_timer_start(): bucket_expiry, flags with the cpu, idx */
	ck_assert_uint_eq(h_trace_count(REC_TIMER_START), 3);
	r = nth_rec(REC_TIMER_START, 0);
	ck_assert_uint_eq(r->a, a1);
	ck_assert_uint_eq(r->b, tr_exp);
	ck_assert_uint_eq(r->c, bucket);
	ck_assert_uint_eq(r->d, TIMER_IRQSAFE | 1 | (uint64_t)idx1 << 32);
	ck_assert_str_eq(r->s, "tr_fn");
	ck_assert_uint_eq(r->cpu, 1);
	r = nth_rec(REC_TIMER_START, 2);
	ck_assert_uint_eq(r->a, a2);
	ck_assert_uint_eq(r->b, tr_clk + 200);
	ck_assert_uint_eq(r->c, b2);
	ck_assert_uint_eq(r->d, 1 | (uint64_t)idx2 << 32);
	ck_assert_uint_ge(idx2, 64);		/* level 1 */

	/* re-arm, del_timer, and the detach before the expiry */
	ck_assert_uint_eq(h_trace_count(REC_TIMER_CANCEL), 3);
	ck_assert_uint_eq(nth_rec(REC_TIMER_CANCEL, 0)->a, a2);
	ck_assert_uint_eq(nth_rec(REC_TIMER_CANCEL, 1)->a, a2);
	r = nth_rec(REC_TIMER_CANCEL, 2);
	ck_assert_uint_eq(r->a, a1);
	ck_assert(r->flags & TRACE_FLAG_SOFTIRQ);

	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), 1);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_EXIT), 1);
	r = nth_rec(REC_TIMER_EXPIRE_ENTRY, 0);
	ck_assert(r > nth_rec(REC_TIMER_CANCEL, 2));
	ck_assert_uint_eq(r->a, a1);
	ck_assert_uint_eq(r->b, bucket);	/* now */
	ck_assert_uint_eq(r->c, bucket);	/* baseclk */
	ck_assert_str_eq(r->s, "tr_fn");
	ck_assert_uint_eq(r->cpu, 1);
	ck_assert(r->flags & TRACE_FLAG_SOFTIRQ);
	ck_assert(r->flags & TRACE_FLAG_IRQS_OFF);	/* TIMER_IRQSAFE */
	ck_assert_uint_eq(r->time, sim_jiffies_to_ns(bucket) + cfg.costs.irq_entry);
	r = nth_rec(REC_TIMER_EXPIRE_EXIT, 0);
	ck_assert(r > nth_rec(REC_TIMER_EXPIRE_ENTRY, 0));
	ck_assert_uint_eq(r->a, a1);
}
END_TEST

/* --- the timer base lock in the trace ------------------------------------- */

static DEFINE_RAW_SPINLOCK(tb_lock);

static int msleep_task(void *arg)
{
	msleep(10);
	return 0;
}

/* lock_timer_base(): raw_spin_lock_irqsave, so "d..1." from a plain task */
START_TEST(msleep_timer_start_base_locked)
{
	const struct sim_rec *r;
	int pid;

	setup(1);
	pid = sim_spawn("sleeper", msleep_task, NULL, 0, true, 0)->pid;
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	r = nth_rec(REC_TIMER_START, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->s, "process_timeout");
	ck_assert_int_eq(r->pid, pid);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_IRQS_OFF);
	ck_assert_uint_eq(r->preempt, 1);
	/* __run_timers() detaches it under the lock too, in the idle CPU's softirq */
	r = nth_rec(REC_TIMER_CANCEL, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->pid, 0);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_IRQS_OFF | TRACE_FLAG_SOFTIRQ);
	ck_assert_uint_eq(r->preempt, 2);	/* the idle task's own, and the lock */
	r = nth_rec(REC_TIMER_EXPIRE_ENTRY, 0);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_SOFTIRQ);	/* the lock dropped for the callback */
	ck_assert_uint_eq(r->preempt, 1);
	/* process_timeout() woke the sleeper onto this idle CPU: resched_curr() */
	r = nth_rec(REC_TIMER_EXPIRE_EXIT, 0);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_SOFTIRQ | TRACE_FLAG_NEED_RESCHED);
}
END_TEST

static int locked_ops_task(void *arg)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tb_lock, flags);
	mod_timer(&tm, jiffies + 10);
	raw_spin_unlock_irqrestore(&tb_lock, flags);
	del_timer(&tm);
	return 0;
}

/* the base lock nests in what the caller holds, and is gone after */
START_TEST(timer_ops_base_locked_under_caller_lock)
{
	const struct sim_rec *r;

	setup(1);
	timer_setup(&tm, tr_fn, 0);
	sim_spawn("t", locked_ops_task, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	r = nth_rec(REC_TIMER_START, 0);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_IRQS_OFF);
	ck_assert_uint_eq(r->preempt, 2);
	r = nth_rec(REC_TIMER_CANCEL, 0);
	ck_assert_uint_eq(r->flags, TRACE_FLAG_IRQS_OFF);
	ck_assert_uint_eq(r->preempt, 1);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), 0);
}
END_TEST

/* --- a callback that re-arms itself ---------------------------------------- */

static unsigned long rearm_jiffy[8];
static int nrearm;
static long rearm_delta;

static void self_rearm(struct timer_list *t)
{
	rearm_jiffy[nrearm++] = jiffies;
	if (nrearm < 5)
		mod_timer(t, jiffies + rearm_delta);	/* now, or already past */
}

static int arm_self(void *arg)
{
	mod_timer(&tm, jiffies + 1);
	return 0;
}

static void run_self_rearm(long delta)
{
	setup(1);
	rearm_delta = delta;
	timer_setup(&tm, self_rearm, 0);
	sim_spawn("t", arm_self, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nrearm, 5);
	ck_assert_uint_eq(h_trace_count(REC_SOFTIRQ_ENTRY), 5);
	for (int i = 1; i < 5; i++)
		ck_assert_uint_eq(rearm_jiffy[i], rearm_jiffy[i - 1] + 1);
}

START_TEST(self_rearm_runs_once_per_softirq)
{
	run_self_rearm(0);
}
END_TEST

START_TEST(self_rearm_in_the_past)
{
	run_self_rearm(-3);
}
END_TEST

/* --- placement: a running timer's base; the base clock after a softirq -------- */

static int nslow;
static int slow_cpu[2];
static unsigned long slow_jiffy[2];

static void slow_rearmed_fn(struct timer_list *t)
{
	slow_cpu[nslow] = smp_processor_id();
	slow_jiffy[nslow] = jiffies;
	nslow++;
	udelay(500);
}

static int rearm_from_cpu0(void *arg)
{
	mod_timer(&tm, jiffies + 2);	/* while the callback runs on cpu1 */
	return 0;
}

/*
 * __mod_timer(): the base the timer's flags name is cpu1's, whose
 * running_timer is this timer: it stays there (del_timer_sync() finds it
 * running there). Re-armed from cpu0 at 8.1 ms, it fires again on cpu1.
 */
START_TEST(rearm_while_running_stays_on_its_base)
{
	setup(2);
	timer_setup(&tm, slow_rearmed_fn, 0);
	sim_spawn("arm", arm_slow, NULL, 1, true, 0);
	sim_spawn("rearm", rearm_from_cpu0, NULL, 0, true, 8100000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(nslow, 2);
	ck_assert_int_eq(slow_cpu[0], 1);
	ck_assert_int_eq(slow_cpu[1], 1);
}
END_TEST

static unsigned long cb_j0;
static unsigned long cb_fired[2];
static int ncb;

static void boundary_fn(struct timer_list *t)
{
	cb_fired[ncb++] = jiffies;
	if (ncb == 1)
		mod_timer(t, jiffies + 63);
}

static int arm_boundary(void *arg)
{
	cb_j0 = jiffies;
	mod_timer(&tm, jiffies + 5);
	return 0;
}

/*
 * __run_timers() sets base->clk to the expired jiffy + 1 before the
 * callbacks, so a delay of 63 armed from a callback is 62 from the clock:
 * level 0, bucket expires + 1. From j0 (= 0 mod 8 at HZ=250): the first
 * fires at j0 + 6 (j0 + 5, level 0); re-armed for j0 + 69, clk j0 + 7,
 * delta 62, level 0: j0 + 70. Counted from jiffies it would be level 1,
 * rounded up to j0 + 72.
 */
START_TEST(callback_rearm_counts_from_clk_plus_one)
{
	setup(1);
	timer_setup(&tm, boundary_fn, 0);
	sim_spawn("t", arm_boundary, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_uint_eq(cb_j0 % 8, 0);
	ck_assert_int_eq(ncb, 2);
	ck_assert_uint_eq(cb_fired[0], cb_j0 + 6);
	ck_assert_uint_eq(cb_fired[1], cb_j0 + 70);
}
END_TEST

/* --- an armed timer initialised again: CONFIG_DEBUG_OBJECTS_TIMERS on and off --- */

static struct {
	bool pending_after_init;
	int del_ret, del2_ret;
	bool pending_after_neighbour;
	unsigned long j0;
} R;

static int reinit_armed(void *arg)
{
	R.j0 = jiffies;
	mod_timer(&tm, jiffies + 10);
	udelay(100);
	timer_setup(&tm, ctx_fn1, 0);
	R.pending_after_init = timer_pending(&tm);
	R.del_ret = del_timer(&tm);
	return 0;
}

static void setup_debug_objects(unsigned int on)
{
	cfg = h_config(1);
	cfg.debug_objects = on;
	h_init_cfg(&cfg);
	memset(ci, 0, sizeof(ci));
	sim_register_symbol((const void *)ctx_fn0, "ctx_fn0");
}

/*
 * Off: do_init_timer() clears pprev only. Not pending, del_timer() does
 * nothing, and the entry, still in its bucket, expires at the old jiffy
 * (j0 + 11) with the new function. No report.
 */
START_TEST(reinit_armed_debug_objects_off)
{
	setup_debug_objects(0);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", reinit_armed, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert(!R.pending_after_init);
	ck_assert_int_eq(R.del_ret, 0);
	ck_assert_int_eq(ci[0].ncalls, 0);
	ck_assert_int_eq(ci[1].ncalls, 1);
	ck_assert_uint_eq(ci[1].jiffy, R.j0 + 11);
}
END_TEST

/* On: the ODEBUG report, and timer_fixup_init()'s del_timer_sync(): no callback at all. */
START_TEST(reinit_armed_debug_objects_on)
{
	const struct sim_finding *f;

	setup_debug_objects(1);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", reinit_armed, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_WARN);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->msg, "ODEBUG: init active (active state 0) object: "));
	ck_assert_ptr_nonnull(strstr(f->msg, " object type: timer_list hint: ctx_fn0"));
	ck_assert_str_eq(f->site.func, "debug_print_object");
	ck_assert(!R.pending_after_init);
	ck_assert_int_eq(R.del_ret, 0);
	ck_assert_int_eq(ci[0].ncalls + ci[1].ncalls, 0);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_CANCEL), 1);	/* the fixup's */
}
END_TEST

/* 4.9's report has no "object: %p". */
START_TEST(reinit_armed_debug_objects_on_v49)
{
	const struct sim_finding *f;

	cfg = h_config(1);
	cfg.debug_objects = 1;
	cfg.era = SIM_ERA(4, 9);
	h_init_cfg(&cfg);
	sim_register_symbol((const void *)ctx_fn0, "ctx_fn0");
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", reinit_armed, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	f = h_first(SIM_F_WARN);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "ODEBUG: init active (active state 0) object type: timer_list "
				 "hint: ctx_fn0");
}
END_TEST

/*
 * Off, tm behind tm2 in one bucket (tm2 newer, first): unlinking tm2
 * writes tm's pprev (__hlist_del), so tm is pending again and del_timer()
 * takes it out: nothing fires.
 */
static int reinit_then_neighbour(void *arg)
{
	mod_timer(&tm, jiffies + 10);
	mod_timer(&tm2, jiffies + 10);
	timer_setup(&tm, ctx_fn0, 0);
	R.pending_after_init = timer_pending(&tm);
	R.del_ret = del_timer(&tm2);
	R.pending_after_neighbour = timer_pending(&tm);
	R.del2_ret = del_timer(&tm);
	return 0;
}

START_TEST(reinit_armed_pending_again_by_its_neighbour)
{
	setup_debug_objects(0);
	timer_setup(&tm, ctx_fn0, 0);
	timer_setup(&tm2, ctx_fn1, 0);
	sim_spawn("t", reinit_then_neighbour, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert(!R.pending_after_init);
	ck_assert_int_eq(R.del_ret, 1);
	ck_assert(R.pending_after_neighbour);
	ck_assert_int_eq(R.del2_ret, 1);
	ck_assert_int_eq(ci[0].ncalls + ci[1].ncalls, 0);
}
END_TEST

/* Off: arming it while still linked would corrupt the wheel; the machine stops, saying so. */
static int reinit_then_rearm(void *arg)
{
	mod_timer(&tm, jiffies + 10);
	timer_setup(&tm, ctx_fn0, 0);
	mod_timer(&tm, jiffies + 20);
	return 0;
}

START_TEST(reinit_armed_then_rearmed_stops_the_machine)
{
	const struct sim_finding *f;

	setup_debug_objects(0);
	timer_setup(&tm, ctx_fn0, 0);
	sim_spawn("t", reinit_then_rearm, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->msg, "timer wheel corrupted: ctx_fn0 re-armed while "
					     "still linked in cpu0's wheel"));
}
END_TEST

/*
 * Initialised again while its callback runs on cpu1 (not pending: no
 * report even with debug objects): the flags now name cpu0, so
 * del_timer_sync() from cpu0 locks cpu0's base, sees no running timer
 * there, and returns at once, while the callback still runs.
 */
static int reinit_deleter(void *arg)
{
	timer_setup(&tm, slow_fn, 0);
	D.call = sim_now();
	D.sync_ret = del_timer_sync(&tm);
	D.ret_at = sim_now();
	return 0;
}

START_TEST(reinit_during_callback_del_timer_sync_locks_wrong_base)
{
	setup(2);
	timer_setup(&tm, slow_fn, 0);
	sim_spawn("arm", arm_slow, NULL, 1, true, 0);
	sim_spawn("del", reinit_deleter, NULL, 0, true, 8100000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_int_eq(D.sync_ret, 0);
	ck_assert_uint_lt(D.ret_at, D.cb_end);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("timer");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bucket_expiry_matches_kernel);
	tcase_add_test(tc, bucket_expiry_by_hand);
	tcase_add_test(tc, never_early_property);
	tcase_add_test(tc, callback_context);
	tcase_add_test(tc, rearm_moves_to_this_cpu);
	tcase_add_test(tc, irqs_off_defers_callback);
	tcase_add_test(tc, del_timer_sync_waits_for_callback);
	tcase_add_test(tc, return_values);
	tcase_add_test(tc, add_timer_pending_is_bug_v49);
	tcase_add_test(tc, add_timer_pending_warns_once_6x);
	tcase_add_test(tc, same_expiry_newest_first);
	tcase_add_test(tc, moved_timer_is_newest);
	tcase_add_test(tc, higher_level_first);
	tcase_add_test(tc, initialiser_forms);
	tcase_add_test(tc, trace_records);
	tcase_add_test(tc, self_rearm_runs_once_per_softirq);
	tcase_add_test(tc, self_rearm_in_the_past);
	tcase_add_test(tc, msleep_timer_start_base_locked);
	tcase_add_test(tc, timer_ops_base_locked_under_caller_lock);
	tcase_add_test(tc, rearm_while_running_stays_on_its_base);
	tcase_add_test(tc, callback_rearm_counts_from_clk_plus_one);
	tcase_add_test(tc, reinit_armed_debug_objects_off);
	tcase_add_test(tc, reinit_armed_debug_objects_on);
	tcase_add_test(tc, reinit_armed_debug_objects_on_v49);
	tcase_add_test(tc, reinit_armed_pending_again_by_its_neighbour);
	tcase_add_test(tc, reinit_armed_then_rearmed_stops_the_machine);
	tcase_add_test(tc, reinit_during_callback_del_timer_sync_locks_wrong_base);
	tcase_add_test(tc, null_callback_armed_oopses_v49);
	tcase_add_test(tc, null_callback_not_armed_6x);
	tcase_add_test(tc, null_callback_at_expiry);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
