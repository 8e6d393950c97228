/*
 * The lock validator (sim/lockdep.c). Pins: recursive locking is reported
 * and the self-deadlock then ends the run; an AB-BA (or longer) order
 * inversion is reported although the two orders happen far apart and never
 * deadlock; a lock used in hardirq (or timer softirq) context and elsewhere
 * with irqs (softirqs) enabled is reported as inconsistent, while
 * irqsave/_bh users are clean; a bad unlock; a task, hardirq handler or timer
 * callback ending with a lock held is a work leak, and an interrupt on top of
 * a holder is not; lockdep_assert_held checks the running context (and the
 * one it interrupted), not merely that someone holds the lock; classes go by
 * initialisation site as in the kernel, so two locks of one class nested are
 * "recursive locking" (the kernel's check_deadlock() compares classes), and
 * lockdep_set_class_and_name moves a lock to another class; a trylock adds no
 * ordering and no irq-context use; a static lock survives a second machine;
 * a class a reset keeps for the next run knows nothing of its orders before.
 */
#include "../harness.h"

#include <linux/spinlock.h>
#include <linux/lockdep.h>
#include <linux/delay.h>
#include <linux/timer.h>
#include <linux/sched.h>

#include <string.h>

#ifdef KWSIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

static spinlock_t a, b, c;

static void init_locks(void)
{
	spin_lock_init(&a);
	spin_lock_init(&b);
	spin_lock_init(&c);
}

static void setup(int ncpus)
{
	h_init(ncpus);
	init_locks();
}

static void assert_one(enum sim_finding_kind kind, const char *needle)
{
	const struct sim_finding *f = h_first(kind);

	if (h_count(kind) != 1)
		h_dump_findings();
	ck_assert_uint_eq(h_count(kind), 1);
	ck_assert_msg(strstr(f->msg, needle), "'%s' not in '%s'", needle, f->msg);
}

static void assert_clean(void)
{
	if (sim_finding_count())
		h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
}

/* --- recursion ------------------------------------------------------------- */

static int recurse(void *arg)
{
	spin_lock(&a);
	spin_lock(&a);		/* spins on itself for ever */
	spin_unlock(&a);
	spin_unlock(&a);
	return 0;
}

START_TEST(recursive_locking_then_deadlock)
{
	setup(1);
	sim_spawn("rec", recurse, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	assert_one(SIM_F_LOCKDEP, "possible recursive locking detected: rec takes &a");
	ck_assert_msg(strstr(h_first(SIM_F_LOCKDEP)->msg, "the same lock"), "%s",
		      h_first(SIM_F_LOCKDEP)->msg);
	ck_assert_uint_eq(h_count(SIM_F_DEADLOCK), 1);
	ck_assert_str_eq(h_first(SIM_F_LOCKDEP)->context, "rec");
	/* the report comes first, the deadlock when nothing is left to run */
	ck_assert_int_eq(sim_finding(0)->kind, SIM_F_LOCKDEP);
	ck_assert_int_eq(sim_finding(1)->kind, SIM_F_DEADLOCK);
}
END_TEST

/* --- order inversions, far apart in time ----------------------------------- */

static int take_two(void *arg)
{
	spinlock_t **pair = arg;

	spin_lock(pair[0]);
	udelay(10);
	spin_lock(pair[1]);
	spin_unlock(pair[1]);
	spin_unlock(pair[0]);
	return 0;
}

START_TEST(abba_far_apart)
{
	static spinlock_t *ab[2] = { &a, &b }, *ba[2] = { &b, &a };

	setup(2);
	sim_spawn("ab", take_two, ab, 0, true, 0);
	sim_spawn("ba", take_two, ba, 1, true, 50000000);	/* 50 ms later */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "possible circular locking dependency detected: ba takes &a "
		   "while holding &b");
	ck_assert_uint_gt(h_first(SIM_F_LOCKDEP)->time, 50000000);
	ck_assert_int_eq(h_first(SIM_F_LOCKDEP)->cpu, 1);
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

START_TEST(same_order_twice_is_clean)
{
	static spinlock_t *ab[2] = { &a, &b };

	setup(2);
	sim_spawn("ab1", take_two, ab, 0, true, 0);
	sim_spawn("ab2", take_two, ab, 1, true, 0);	/* really contends */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_gt(h_trace_count(REC_LOCK_CONTENDED), 0);
	assert_clean();
}
END_TEST

/* A -> B, B -> C, then C -> A: a cycle through three classes. */
START_TEST(three_lock_cycle)
{
	static spinlock_t *p1[2] = { &a, &b }, *p2[2] = { &b, &c }, *p3[2] = { &c, &a };

	setup(1);
	sim_spawn("p1", take_two, p1, 0, true, 0);
	sim_spawn("p2", take_two, p2, 0, true, 1000000);
	sim_spawn("p3", take_two, p3, 0, true, 2000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "p3 takes &a while holding &c");
}
END_TEST

/* --- irq-safety ------------------------------------------------------------ */

static int lock_plain(void *arg)
{
	spin_lock(&a);
	udelay(5);
	spin_unlock(&a);
	return 0;
}

static int lock_irqsave(void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&a, flags);
	udelay(5);
	spin_unlock_irqrestore(&a, flags);
	return 0;
}

static int lock_bh(void *arg)
{
	spin_lock_bh(&a);
	udelay(5);
	spin_unlock_bh(&a);
	return 0;
}

static void irq_lock(void *arg)
{
	spin_lock(&a);
	spin_unlock(&a);
}

static void irq_lock_irqsave(void *arg)
{
	unsigned long flags;

	spin_lock_irqsave(&a, flags);
	spin_unlock_irqrestore(&a, flags);
}

static void irq_trylock(void *arg)
{
	if (spin_trylock(&a))
		spin_unlock(&a);
}

START_TEST(hardirq_vs_irqs_enabled)
{
	setup(2);
	sim_spawn("t", lock_plain, NULL, 0, true, 0);
	sim_irq_at(10000000, 1, "dev", irq_lock, NULL);		/* another CPU, much later */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "inconsistent lock state: &a is taken in hardirq context");
	ck_assert_str_eq(h_first(SIM_F_LOCKDEP)->context, "hardirq");
}
END_TEST

/* The other way round: first in the handler, then with irqs on. */
START_TEST(irqs_enabled_after_hardirq)
{
	setup(2);
	sim_irq_at(0, 1, "dev", irq_lock, NULL);
	sim_spawn("t", lock_plain, NULL, 0, true, 10000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "inconsistent lock state: &a is taken in hardirq context");
	ck_assert_str_eq(h_first(SIM_F_LOCKDEP)->context, "t");
}
END_TEST

START_TEST(hardirq_trylock_is_not_irq_use)
{
	setup(2);
	sim_irq_at(0, 1, "dev", irq_trylock, NULL);
	sim_spawn("t", lock_plain, NULL, 0, true, 10000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
}
END_TEST

static struct timer_list tm;

static void timer_lock(struct timer_list *t)
{
	spin_lock(&a);
	spin_unlock(&a);
}

static void timer_lock_irqsave(struct timer_list *t)
{
	unsigned long flags;

	spin_lock_irqsave(&a, flags);
	spin_unlock_irqrestore(&a, flags);
}

static int arm(void *arg)
{
	mod_timer(&tm, jiffies + 2);
	return 0;
}

static void softirq_run(void (*fn)(struct timer_list *), int (*task)(void *))
{
	setup(2);
	timer_setup(&tm, fn, 0);
	sim_spawn("arm", arm, NULL, 1, true, 0);
	sim_spawn("t", task, NULL, 0, true, 100000000);		/* 100 ms later */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
}

START_TEST(softirq_vs_softirqs_enabled)
{
	softirq_run(timer_lock, lock_plain);
	assert_one(SIM_F_LOCKDEP, "inconsistent lock state: &a is taken in softirq context "
		   "(timer_lock) and with softirqs enabled (lock_plain)");
}
END_TEST

START_TEST(softirq_vs_bh_is_clean)
{
	softirq_run(timer_lock, lock_bh);
	assert_clean();
}
END_TEST

START_TEST(irqsave_everywhere_is_clean)
{
	setup(2);
	timer_setup(&tm, timer_lock_irqsave, 0);
	sim_spawn("arm", arm, NULL, 1, true, 0);
	sim_irq_at(20000000, 1, "dev", irq_lock_irqsave, NULL);
	sim_spawn("t", lock_irqsave, NULL, 0, true, 100000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
}
END_TEST

/* --- unlock balance -------------------------------------------------------- */

static int bad_unlock(void *arg)
{
	spin_lock(&b);
	spin_unlock(&a);
	spin_unlock(&b);
	return 0;
}

START_TEST(unlock_not_held)
{
	setup(1);
	sim_spawn("u", bad_unlock, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "bad unlock balance detected: u releases &a, which it does "
		   "not hold (nobody does)");
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

/* --- contexts that end holding a lock -------------------------------------- */

static int exit_holding(void *arg)
{
	spin_lock(&a);
	return 0;
}

START_TEST(task_exit_holding_lock)
{
	setup(1);
	sim_spawn("leaky", exit_holding, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_ATOMIC_LEAK, "task exit leaky leaked lock or atomic: holds &a");
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

static void irq_exit_holding(void *arg)
{
	spin_lock(&a);
}

START_TEST(hardirq_returns_holding_lock)
{
	setup(1);
	sim_irq_at(1000, 0, "leakirq", irq_exit_holding, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_ATOMIC_LEAK, "hardirq handler leakirq leaked lock or atomic: holds &a");
	ck_assert_str_eq(h_first(SIM_F_ATOMIC_LEAK)->context, "hardirq");
}
END_TEST

static void timer_exit_holding(struct timer_list *t)
{
	spin_lock(&a);
}

static unsigned int pc_after;

static int arm_then_look(void *arg)
{
	mod_timer(&tm, jiffies + 1);
	mdelay(20);
	pc_after = preempt_count();
	return 0;
}

START_TEST(timer_callback_returns_holding_lock)
{
	setup(1);
	timer_setup(&tm, timer_exit_holding, 0);
	sim_register_symbol((const void *)timer_exit_holding, "timer_exit_holding");
	sim_spawn("arm", arm_then_look, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_ATOMIC_LEAK,
		   "timer callback timer_exit_holding leaked lock or atomic: holds &a, "
		   "preempt_count 0x101");
	/* as call_timer_fn(), the count is repaired: the task below is not atomic */
	ck_assert_uint_eq(pc_after, 0);
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

/* An interrupt that comes in on a lock holder and leaves it as it was is no leak. */
static int hold_long(void *arg)
{
	spin_lock(&b);
	mdelay(20);
	spin_unlock(&b);
	return 0;
}

START_TEST(irq_on_top_of_holder_is_no_leak)
{
	setup(1);
	timer_setup(&tm, timer_lock_irqsave, 0);
	sim_spawn("arm", arm, NULL, 0, true, 0);
	sim_spawn("holder", hold_long, NULL, 0, true, 100000);
	sim_irq_at(5000000, 0, "dev", irq_lock_irqsave, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_trace_count(REC_TIMER_EXPIRE_ENTRY), 1);
	ck_assert_uint_eq(h_trace_count(REC_IRQ_ENTRY), 1);
	assert_clean();
}
END_TEST

/* --- lockdep_assert_held --------------------------------------------------- */

static int assert_task(void *arg)
{
	spin_lock(&a);
	lockdep_assert_held(&a);	/* fine */
	udelay(100);
	spin_unlock(&a);
	lockdep_assert_held(&a);	/* not held */
	return 0;
}

static int assert_other(void *arg)
{
	udelay(50);
	lockdep_assert_held(&a);	/* held, but by the other CPU's task */
	return 0;
}

static void irq_assert(void *arg)
{
	lockdep_assert_held(&b);	/* held by the task it interrupted */
}

static int hold_b(void *arg)
{
	spin_lock(&b);
	udelay(100);
	spin_unlock(&b);
	return 0;
}

START_TEST(assert_held)
{
	setup(2);
	sim_spawn("owner", assert_task, NULL, 0, true, 0);
	sim_spawn("other", assert_other, NULL, 1, true, 0);
	sim_spawn("holdb", hold_b, NULL, 1, true, 1000000);
	sim_irq_at(1050000, 1, "dev", irq_assert, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_trace_count(REC_IRQ_ENTRY), 1);
	ck_assert_uint_eq(h_count(SIM_F_LOCKDEP), 2);
	ck_assert_str_eq(sim_finding(0)->context, "other");
	ck_assert_str_eq(sim_finding(0)->msg, "lockdep_assert_held(&a) failed: "
			 "not held here (another context holds it)");
	ck_assert_str_eq(sim_finding(1)->context, "owner");
	ck_assert_str_eq(sim_finding(1)->msg, "lockdep_assert_held(&a) failed: not held");
}
END_TEST

/* --- classes --------------------------------------------------------------- */

struct obj {
	spinlock_t lock;
};

static struct obj o1, o2;
static struct lock_class_key other_key;

static void obj_init(struct obj *o)
{
	spin_lock_init(&o->lock);	/* one site: one class for every obj */
}

static int nest_objs(void *arg)
{
	spin_lock(&o1.lock);
	spin_lock(&o2.lock);
	spin_unlock(&o2.lock);
	spin_unlock(&o1.lock);
	return 0;
}

START_TEST(same_class_nested_is_recursion)
{
	setup(1);
	obj_init(&o1);
	obj_init(&o2);
	sim_spawn("nest", nest_objs, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);	/* two locks: no real deadlock */
	assert_one(SIM_F_LOCKDEP, "possible recursive locking detected: nest takes &o->lock, "
		   "already held (another lock of its class");
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

START_TEST(set_class_and_name_separates)
{
	setup(1);
	obj_init(&o1);
	obj_init(&o2);
	lockdep_set_class_and_name(&o2.lock, &other_key, "o2-class");
	sim_spawn("nest", nest_objs, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
}
END_TEST

/* Ordering is learnt per class: o1 -> b, then b -> o2 is an inversion. */
static int obj_then_b(void *arg)
{
	spin_lock(&o1.lock);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&o1.lock);
	return 0;
}

static int b_then_obj(void *arg)
{
	spin_lock(&b);
	spin_lock(&o2.lock);
	spin_unlock(&o2.lock);
	spin_unlock(&b);
	return 0;
}

START_TEST(order_is_per_class)
{
	setup(1);
	obj_init(&o1);
	obj_init(&o2);
	sim_spawn("ob", obj_then_b, NULL, 0, true, 0);
	sim_spawn("bo", b_then_obj, NULL, 0, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "bo takes &o->lock while holding &b");
}
END_TEST

/* The renamed class shows its name in reports. */
static int recurse_o2(void *arg)
{
	spin_lock(&o2.lock);
	spin_lock(&o2.lock);
	return 0;
}

START_TEST(set_class_and_name_names)
{
	setup(1);
	obj_init(&o2);
	lockdep_set_class_and_name(&o2.lock, &other_key, "o2-class");
	sim_spawn("r", recurse_o2, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	assert_one(SIM_F_LOCKDEP, "r takes o2-class, already held");
}
END_TEST

/* --- trylock --------------------------------------------------------------- */

static int a_then_try_b(void *arg)
{
	spin_lock(&a);
	if (spin_trylock(&b))
		spin_unlock(&b);
	spin_unlock(&a);
	return 0;
}

static int try_self(void *arg)
{
	int got;

	spin_lock(&a);
	got = spin_trylock(&a);		/* fails: no recursion report, no deadlock */
	spin_unlock(&a);
	return got;
}

START_TEST(trylock_adds_no_order)
{
	static spinlock_t *ba[2] = { &b, &a };

	setup(1);
	sim_spawn("try", a_then_try_b, NULL, 0, true, 0);
	sim_spawn("ba", take_two, ba, 0, true, 1000000);
	sim_spawn("self", try_self, NULL, 0, true, 2000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
}
END_TEST

/* A lock held via trylock still orders what is taken after it. */
static int try_a_then_b(void *arg)
{
	if (spin_trylock(&a)) {
		spin_lock(&b);
		spin_unlock(&b);
		spin_unlock(&a);
	}
	return 0;
}

START_TEST(trylocked_lock_orders_later_ones)
{
	static spinlock_t *ba[2] = { &b, &a };

	setup(1);
	sim_spawn("try", try_a_then_b, NULL, 0, true, 0);
	sim_spawn("ba", take_two, ba, 0, true, 1000000);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_one(SIM_F_LOCKDEP, "ba takes &a while holding &b");
}
END_TEST

/* --- a static lock across two machines ------------------------------------- */

static DEFINE_SPINLOCK(stat_lock);

static int stat_recurse(void *arg)
{
	spin_lock(&stat_lock);
	spin_lock(&stat_lock);
	return 0;
}

START_TEST(static_lock_second_machine)
{
	for (int run = 0; run < 2; run++) {
		/* the second time, the class cached by the first machine is gone */
		h_init(1);
		sim_spawn("rec", stat_recurse, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
		assert_one(SIM_F_LOCKDEP, "rec takes stat_lock, already held");
		sim_fini();
		stat_lock.l.owner = NULL;	/* the scenario's business, not lockdep's */
	}
}
END_TEST

/* --- a reset ------------------------------------------------------------------ */

static int order_ab(void *arg)
{
	(void)arg;
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	return 0;
}

/* b's class first this time: it is given the class kept from a's, which knew a -> b */
static int b_alone_then_ab(void *arg)
{
	(void)arg;
	spin_lock(&b);
	spin_unlock(&b);
	spin_lock(&a);
	spin_unlock(&a);
	return order_ab(arg);
}

START_TEST(a_reset_forgets_the_orders)
{
	struct sim_config cfg = h_config(1);
	const void *kept;

	setup(1);
	sim_spawn("ab", order_ab, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	kept = a.l.cls;
	ck_assert_int_eq(sim_reset(&cfg), 0);
#ifdef KWSIM_ASAN
	/* kept for the next run's classes, and poisoned until one takes it */
	ck_assert(__asan_address_is_poisoned(kept));
#endif
	init_locks();
	sim_spawn("b_ab", b_alone_then_ab, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	assert_clean();
	ck_assert_ptr_eq(b.l.cls, kept);
	sim_fini();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lockdep");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, recursive_locking_then_deadlock);
	tcase_add_test(tc, abba_far_apart);
	tcase_add_test(tc, same_order_twice_is_clean);
	tcase_add_test(tc, three_lock_cycle);
	tcase_add_test(tc, hardirq_vs_irqs_enabled);
	tcase_add_test(tc, irqs_enabled_after_hardirq);
	tcase_add_test(tc, hardirq_trylock_is_not_irq_use);
	tcase_add_test(tc, softirq_vs_softirqs_enabled);
	tcase_add_test(tc, softirq_vs_bh_is_clean);
	tcase_add_test(tc, irqsave_everywhere_is_clean);
	tcase_add_test(tc, unlock_not_held);
	tcase_add_test(tc, task_exit_holding_lock);
	tcase_add_test(tc, hardirq_returns_holding_lock);
	tcase_add_test(tc, timer_callback_returns_holding_lock);
	tcase_add_test(tc, irq_on_top_of_holder_is_no_leak);
	tcase_add_test(tc, assert_held);
	tcase_add_test(tc, same_class_nested_is_recursion);
	tcase_add_test(tc, set_class_and_name_separates);
	tcase_add_test(tc, order_is_per_class);
	tcase_add_test(tc, set_class_and_name_names);
	tcase_add_test(tc, trylock_adds_no_order);
	tcase_add_test(tc, trylocked_lock_orders_later_ones);
	tcase_add_test(tc, static_lock_second_machine);
	tcase_add_test(tc, a_reset_forgets_the_orders);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
