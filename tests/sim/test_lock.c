/*
 * Spinlocks (sim/lock.c). Pins: the exact virtual cost of an uncontended
 * acquisition and release in each flavour; that contention costs time (the
 * spinner's clock jumps to the release, and a lock_contended record carries
 * the nanoseconds spun); the interrupt state a spinner keeps (irqs off under
 * spin_lock_irq, on under spin_lock); irqsave/irqrestore; trylock; the
 * preempt count a lock holds; spin_lock_bh holding off the timer softirq;
 * that a three-way race has one deterministic outcome; and who gets a
 * contended lock: the longest waiter under fifo, whichever the machine
 * decides (a newcomer too) under unfair.
 */
#include "../harness.h"

#include <linux/spinlock.h>
#include <linux/delay.h>
#include <linux/timer.h>
#include <linux/sched.h>

static struct sim_config cfg;

static void init_cpus(int ncpus, uint64_t lock_cost, uint64_t unlock_cost)
{
	cfg = h_config(ncpus);
	cfg.costs.lock = lock_cost;
	cfg.costs.unlock = unlock_cost;
	h_init_cfg(&cfg);
}

static const struct sim_rec *find_rec(enum sim_rec_type type, size_t nth)
{
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == type && !nth--)
			return &sim_trace_records()[i];
	return NULL;
}

/* --- uncontended costs ----------------------------------------------------- */

static spinlock_t lk;
static uint64_t t[16];

static int uncontended(void *arg)
{
	unsigned long flags;

	t[0] = sim_now();
	spin_lock(&lk);
	t[1] = sim_now();
	spin_unlock(&lk);
	t[2] = sim_now();
	spin_lock_irq(&lk);
	t[3] = sim_now();
	spin_unlock_irq(&lk);
	t[4] = sim_now();
	spin_lock_irqsave(&lk, flags);
	t[5] = sim_now();
	spin_unlock_irqrestore(&lk, flags);
	t[6] = sim_now();
	spin_lock_bh(&lk);
	t[7] = sim_now();
	spin_unlock_bh(&lk);
	t[8] = sim_now();
	return 0;
}

START_TEST(uncontended_costs)
{
	init_cpus(1, 37, 11);
	spin_lock_init(&lk);
	sim_spawn("t", uncontended, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	for (int i = 0; i < 8; i += 2) {
		ck_assert_uint_eq(t[i + 1] - t[i], 37);
		ck_assert_uint_eq(t[i + 2] - t[i + 1], 11);
	}
	ck_assert_uint_eq(h_trace_count(REC_LOCK_CONTENDED), 0);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/* --- contention: CPU1 holds the lock for udelay(100), CPU0 spins ----------- */

#define HOLD_START	0
#define SPIN_START	10000
#define HOLD_NS		100000

static struct {
	uint64_t holder_locked, holder_unlock;	/* holder: after lock, just before unlock */
	uint64_t spin_call, spin_got;		/* spinner: before the call, after it */
	uint64_t irq_at;			/* when the handler ran */
	bool irq_saw_locked, irq_in_irq;
	bool got_irqs_off, got_spin_irqs;	/* irqs_disabled() once the lock is ours */
	uint64_t spin_released;
	enum sim_lock_how how;
} C;

static int holder(void *arg)
{
	spin_lock(&lk);
	C.holder_locked = sim_now();
	udelay(HOLD_NS / 1000);
	C.holder_unlock = sim_now();
	spin_unlock(&lk);
	return 0;
}

static int spinner(void *arg)
{
	C.spin_call = sim_now();
	if (C.how == SIM_LOCK_IRQ)
		spin_lock_irq(&lk);
	else
		spin_lock(&lk);
	C.spin_got = sim_now();
	C.got_irqs_off = irqs_disabled();
	if (C.how == SIM_LOCK_IRQ)
		spin_unlock_irq(&lk);
	else
		spin_unlock(&lk);
	C.spin_released = sim_now();
	return 0;
}

static void irq_handler(void *arg)
{
	C.irq_at = sim_now();
	C.irq_saw_locked = spin_is_locked(&lk);
	C.irq_in_irq = in_irq();
}

static void contention_setup(enum sim_lock_how how, bool irq)
{
	init_cpus(2, 20, 10);
	spin_lock_init(&lk);
	C.how = how;
	sim_spawn("holder", holder, NULL, 1, true, HOLD_START);
	sim_spawn("spinner", spinner, NULL, 0, true, SPIN_START);
	if (irq)
		sim_irq_at(50000, 0, "dev", irq_handler, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
}

/* The spinner tries at spin_call + lock cost and gets the lock at the release instant. */
static void check_spun(void)
{
	const struct sim_rec *r = find_rec(REC_LOCK_CONTENDED, 0);
	uint64_t tried = C.spin_call + cfg.costs.lock;

	ck_assert_uint_eq(C.holder_unlock - C.holder_locked, HOLD_NS);
	ck_assert_uint_lt(tried, C.holder_locked + HOLD_NS);
	ck_assert_uint_eq(C.spin_got, C.holder_unlock);
	ck_assert_uint_eq(h_trace_count(REC_LOCK_CONTENDED), 1);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->b, C.holder_unlock - tried);
	ck_assert_uint_eq(r->a, sim_fake_addr(&lk));
	ck_assert_uint_eq(r->cpu, 0);
	ck_assert_uint_eq(r->time, C.spin_got);
	ck_assert_str_eq(r->s, "&lk");
}

START_TEST(contention_costs_time)
{
	contention_setup(SIM_LOCK_PLAIN, false);
	/* holder starts after one context switch; spinner likewise after its spawn */
	ck_assert_uint_eq(C.holder_locked, HOLD_START + cfg.costs.ctx_switch + cfg.costs.lock);
	ck_assert_uint_eq(C.spin_call, SPIN_START + cfg.costs.ctx_switch);
	check_spun();
	ck_assert_uint_eq(C.spin_got, 1500 + 20 + 100000);
	ck_assert_uint_eq(C.spin_released, C.spin_got + cfg.costs.unlock);
}
END_TEST

/* spin_lock_irq: the spinner has irqs off, so the interrupt waits for its unlock. */
START_TEST(spin_irq_keeps_irqs_off)
{
	contention_setup(SIM_LOCK_IRQ, true);
	check_spun();
	ck_assert(C.got_irqs_off);
	ck_assert(C.irq_in_irq);
	ck_assert(!C.irq_saw_locked);
	/* delivered at the point after its own unlock, then the entry cost */
	ck_assert_uint_eq(C.irq_at, C.spin_got + cfg.costs.unlock + cfg.costs.irq_entry);
}
END_TEST

/* Plain spin_lock: irqs stay on while spinning, and the interrupt comes in on time. */
START_TEST(spin_plain_takes_irq)
{
	contention_setup(SIM_LOCK_PLAIN, true);
	ck_assert(C.irq_in_irq);
	ck_assert(C.irq_saw_locked);
	ck_assert(!C.got_irqs_off);
	ck_assert_uint_eq(C.irq_at, 50000 + cfg.costs.irq_entry);
	/* the handler ended long before the release: the spin is as long as without it */
	check_spun();
}
END_TEST

/* --- irqsave / irqrestore -------------------------------------------------- */

static bool st[8];

static int irqsave_task(void *arg)
{
	unsigned long flags = 12345;

	spin_lock_irqsave(&lk, flags);
	st[0] = irqs_disabled() && !irqs_disabled_flags(flags);
	spin_unlock_irqrestore(&lk, flags);
	st[1] = !irqs_disabled();

	local_irq_disable();
	spin_lock_irqsave(&lk, flags);
	st[2] = irqs_disabled() && irqs_disabled_flags(flags);
	spin_unlock_irqrestore(&lk, flags);
	st[3] = irqs_disabled();		/* still off: it was off before */
	local_irq_enable();
	st[4] = !irqs_disabled();

	/* spin_lock_irq / spin_unlock_irq: off, then unconditionally on */
	spin_lock_irq(&lk);
	st[5] = irqs_disabled();
	spin_unlock_irq(&lk);
	st[6] = !irqs_disabled();
	return 0;
}

START_TEST(irqsave_restores_previous_state)
{
	init_cpus(1, 20, 10);
	spin_lock_init(&lk);
	sim_spawn("t", irqsave_task, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	for (int i = 0; i < 7; i++)
		ck_assert_msg(st[i], "step %d", i);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/* --- trylock --------------------------------------------------------------- */

static struct {
	int busy, busy_irqsave, free_, free_irqsave;
	unsigned int pc_after_fail;
	bool irqs_after_fail, irqs_in_try;
	uint64_t t_before, t_after;
} T;

static int try_holder(void *arg)
{
	spin_lock(&lk);
	udelay(100);
	spin_unlock(&lk);
	return 0;
}

static int try_task(void *arg)
{
	unsigned long flags;

	T.t_before = sim_now();
	T.busy = spin_trylock(&lk);
	T.t_after = sim_now();
	T.busy_irqsave = spin_trylock_irqsave(&lk, flags);
	T.pc_after_fail = preempt_count();
	T.irqs_after_fail = irqs_disabled();
	udelay(200);			/* the holder is gone by now */
	T.free_ = spin_trylock(&lk);
	if (T.free_)
		spin_unlock(&lk);
	T.free_irqsave = spin_trylock_irqsave(&lk, flags);
	T.irqs_in_try = irqs_disabled();
	if (T.free_irqsave)
		spin_unlock_irqrestore(&lk, flags);
	return 0;
}

START_TEST(trylock_success_and_failure)
{
	init_cpus(2, 20, 10);
	spin_lock_init(&lk);
	sim_spawn("holder", try_holder, NULL, 1, true, 0);
	sim_spawn("try", try_task, NULL, 0, true, 10000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(T.busy, 0);
	ck_assert_int_eq(T.busy_irqsave, 0);
	ck_assert_uint_eq(T.t_after - T.t_before, cfg.costs.lock);	/* no spinning */
	ck_assert_uint_eq(T.pc_after_fail, 0);
	ck_assert(!T.irqs_after_fail);
	ck_assert_int_eq(T.free_, 1);
	ck_assert_int_eq(T.free_irqsave, 1);
	ck_assert(T.irqs_in_try);
	ck_assert_uint_eq(h_trace_count(REC_LOCK_CONTENDED), 0);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/* --- preempt_count --------------------------------------------------------- */

static spinlock_t lk2;
static unsigned int pc[8];

static int preempt_task(void *arg)
{
	pc[0] = preempt_count();
	spin_lock(&lk);
	pc[1] = preempt_count();
	spin_lock(&lk2);
	pc[2] = preempt_count();
	spin_unlock(&lk2);
	spin_unlock(&lk);
	pc[3] = preempt_count();
	spin_lock_bh(&lk);
	pc[4] = preempt_count();
	pc[5] = !!in_softirq() + 2 * !!in_serving_softirq();
	spin_unlock_bh(&lk);
	pc[6] = preempt_count();
	return 0;
}

START_TEST(preempt_count_in_lock)
{
	init_cpus(1, 20, 10);
	spin_lock_init(&lk);
	spin_lock_init(&lk2);
	sim_spawn("t", preempt_task, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(pc[0], 0);
	ck_assert_uint_eq(pc[1], PREEMPT_OFFSET);
	ck_assert_uint_eq(pc[2], 2 * PREEMPT_OFFSET);
	ck_assert_uint_eq(pc[3], 0);
	ck_assert_uint_eq(pc[4], SOFTIRQ_DISABLE_OFFSET);
	ck_assert_uint_eq(pc[5], 1);	/* bh disabled, but not serving a softirq */
	ck_assert_uint_eq(pc[6], 0);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/* --- spin_lock_bh holds off the timer softirq ------------------------------ */

static struct timer_list tm;
static struct {
	uint64_t fired_at, unlock_at, armed_at;
	unsigned long fired_jiffy, due;
	bool bh;
} B;

static void bh_timer_fn(struct timer_list *timer)
{
	B.fired_at = sim_now();
	B.fired_jiffy = jiffies;
}

static int bh_task(void *arg)
{
	B.due = jiffies + 1;
	mod_timer(&tm, B.due);
	B.armed_at = sim_now();
	if (B.bh)
		spin_lock_bh(&lk);
	else
		spin_lock(&lk);
	mdelay(20);			/* five jiffies at HZ=250 */
	B.unlock_at = sim_now();
	if (B.bh)
		spin_unlock_bh(&lk);
	else
		spin_unlock(&lk);
	return 0;
}

static void bh_run(bool bh)
{
	init_cpus(1, 20, 10);
	spin_lock_init(&lk);
	timer_setup(&tm, bh_timer_fn, 0);
	B.bh = bh;
	sim_spawn("t", bh_task, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_ne(B.fired_at, 0);
}

START_TEST(spin_lock_bh_blocks_timer_softirq)
{
	bh_run(true);
	ck_assert_uint_gt(B.fired_at, B.unlock_at);
	ck_assert_uint_eq(B.fired_at, B.unlock_at + cfg.costs.unlock + cfg.costs.irq_entry);
	ck_assert(time_after(B.fired_jiffy, B.due));
}
END_TEST

/* The same with plain spin_lock: the softirq runs on top of the holder, on time. */
START_TEST(spin_lock_plain_lets_timer_softirq_in)
{
	bh_run(false);
	ck_assert_uint_lt(B.fired_at, B.unlock_at);
	/* level 0 rounds up by one jiffy, as calc_index() does */
	ck_assert_uint_eq(B.fired_at, sim_jiffies_to_ns(B.due + 1) + cfg.costs.irq_entry);
	ck_assert_uint_eq(B.fired_jiffy, B.due + 1);
}
END_TEST

/* --- a three-way race is deterministic ------------------------------------- */

#define RACERS 3
#define ROUNDS 20

static int order[RACERS * ROUNDS];
static int norder;

static int racer(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		spin_lock(&lk);
		order[norder++] = id;
		udelay(1 + id);
		spin_unlock(&lk);
		ndelay(7);
	}
	return 0;
}

static uint64_t race_once(int *out)
{
	uint64_t hash;

	init_cpus(RACERS, 20, 10);
	spin_lock_init(&lk);
	norder = 0;
	for (long i = 0; i < RACERS; i++)
		sim_spawn("racer", racer, (void *)i, (int)i, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(norder, RACERS * ROUNDS);
	ck_assert_uint_gt(h_trace_count(REC_LOCK_CONTENDED), 0);
	hash = sim_trace_hash();
	for (int i = 0; i < norder; i++)
		out[i] = order[i];
	sim_fini();
	return hash;
}

START_TEST(race_is_deterministic)
{
	int a[RACERS * ROUNDS], b[RACERS * ROUNDS];
	uint64_t h1 = race_once(a), h2 = race_once(b);

	ck_assert_uint_eq(h1, h2);
	ck_assert_mem_eq(a, b, sizeof(a));
}
END_TEST

/* --- who gets a contended lock ----------------------------------------------------- */

static int got[8], ngot;

/* H (0) holds the lock 100 us, lets go and at once wants it again (3); S1 (1) and S2 (2) queue. */
static int queuer(void *arg)
{
	int id = (int)(long)arg;

	spin_lock(&lk);
	got[ngot++] = id;
	if (id == 0) {
		udelay(100);
		spin_unlock(&lk);
		spin_lock(&lk);
		got[ngot++] = 3;
	}
	spin_unlock(&lk);
	return 0;
}

static size_t spin_decisions(void)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_decision_count(); i++)
		n += sim_decisions()[i].why == SIM_WHY_SPIN;
	return n;
}

/* The acquisition order of one run: got[0..3]. */
static void queue_run(enum sim_spinlock mode, enum sim_strategy strategy, uint64_t seed)
{
	cfg = h_config(3);
	cfg.spinlock = mode;
	cfg.strategy = strategy;
	cfg.seed = seed;
	h_init_cfg(&cfg);
	spin_lock_init(&lk);
	ngot = 0;
	sim_spawn("H", queuer, (void *)0L, 0, true, 0);
	sim_spawn("S1", queuer, (void *)1L, 1, true, 10000);
	sim_spawn("S2", queuer, (void *)2L, 2, true, 20000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(ngot, 4);
	ck_assert_int_eq(got[0], 0);
}

/* qspinlock: the waiters in the order they came, the releaser's second try behind them. */
START_TEST(fifo_hands_on_to_the_longest_waiter)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		queue_run(SIM_SPINLOCK_FIFO, SIM_STRATEGY_RANDOM, seed);
		ck_assert_int_eq(got[1], 1);
		ck_assert_int_eq(got[2], 2);
		ck_assert_int_eq(got[3], 3);
		ck_assert_uint_eq(spin_decisions(), 0);
		sim_fini();
	}
}
END_TEST

/* Test-and-set: faithful gives the longest waiter; random finds every winner, H barging too. */
START_TEST(unfair_winner_is_a_decision)
{
	bool second[4] = { false };

	queue_run(SIM_SPINLOCK_UNFAIR, SIM_STRATEGY_FAITHFUL, 1);
	ck_assert_int_eq(got[1], 1);
	ck_assert_uint_gt(spin_decisions(), 0);
	sim_fini();
	for (uint64_t seed = 1; seed <= 40; seed++) {
		queue_run(SIM_SPINLOCK_UNFAIR, SIM_STRATEGY_RANDOM, seed);
		second[got[1]] = true;
		sim_fini();
	}
	ck_assert(second[1] && second[2] && second[3]);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lock");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, uncontended_costs);
	tcase_add_test(tc, contention_costs_time);
	tcase_add_test(tc, spin_irq_keeps_irqs_off);
	tcase_add_test(tc, spin_plain_takes_irq);
	tcase_add_test(tc, irqsave_restores_previous_state);
	tcase_add_test(tc, trylock_success_and_failure);
	tcase_add_test(tc, preempt_count_in_lock);
	tcase_add_test(tc, spin_lock_bh_blocks_timer_softirq);
	tcase_add_test(tc, spin_lock_plain_lets_timer_softirq_in);
	tcase_add_test(tc, race_is_deterministic);
	tcase_add_test(tc, fifo_hands_on_to_the_longest_waiter);
	tcase_add_test(tc, unfair_winner_is_a_decision);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
