/*
 * Pins the freezer and suspend (sim/freezer.c against kernel/freezer.c and
 * kernel/power/process.c of 6.12): kthreads start PF_NOFREEZE and are never
 * asked to freeze; set_freezable() opts in; an idle freezable kthread is
 * woken by the suspend and frozen within the first 1 ms retry; frozen tasks
 * sleep in TASK_FROZEN, which ordinary wake-ups do not match and the
 * hung-task detector ignores; timers fire and non-freezable tasks run while
 * others are frozen; resume thaws; a task that does not freeze within
 * freeze_timeout fails the suspend at the first retry after jiffies pass
 * the timeout (retries of 1, 2, 4 ms then 8 ms), naming the task, and
 * everything is thawed; the 4.9-era kthread loop calls try_to_freeze() in
 * TASK_INTERRUPTIBLE and might_sleep reports it. On a 4.9 machine the
 * refrigerator sleeps in TASK_UNINTERRUPTIBLE, a wake-up sends it round
 * its loop to freeze again, and freeze_task() leaves an uninterruptible
 * sleeper until its sleep ends.
 */
#include "../harness.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timer.h>

#include <stdio.h>
#include <string.h>

#define MS	1000000ULL
#define SEC	1000000000ULL

/* The first record of a type whose s is 'what' (and, for pid > 0, whose a is pid). */
static const struct sim_rec *find_rec(enum sim_rec_type type, const char *what, int pid)
{
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (r->type == type && r->s && !strcmp(r->s, what) &&
		    (pid <= 0 || r->a == (uint64_t)pid))
			return r;
	}
	return NULL;
}

static size_t count_rec(enum sim_rec_type type, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		n += r->type == type && r->s && !strcmp(r->s, what);
	}
	return n;
}

/* A config whose primitive steps cost nothing: times are the semantics' alone. */
static struct sim_config free_steps(int ncpus)
{
	struct sim_config cfg = h_config(ncpus);

	memset(&cfg.costs, 0, sizeof(cfg.costs));
	return cfg;
}

/* --- not freezable unless asked ---------------------------------------------------- */

static struct {
	bool nofreeze_at_start, nofreeze_after;
	bool freezing_during;
	int iterations_while_suspended;
	uint64_t done_at;
} plain;

static int plain_fn(void *arg)
{
	(void)arg;
	plain.nofreeze_at_start = current->flags & PF_NOFREEZE;
	while (sim_now() < 100 * MS) {
		udelay(500);
		msleep(1);
		if (sim_suspended()) {
			plain.iterations_while_suspended++;
			plain.freezing_during |= freezing(current);
		}
		try_to_freeze();
	}
	plain.nofreeze_after = current->flags & PF_NOFREEZE;
	plain.done_at = sim_now();
	return 0;
}

START_TEST(kthread_starts_nofreeze_and_keeps_running)
{
	const struct sim_rec *r;

	h_init(2);
	sim_spawn("plain", plain_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(plain.nofreeze_at_start);
	ck_assert(plain.nofreeze_after);
	ck_assert(!plain.freezing_during);
	/* nothing freezable: the first pass finds nothing to do */
	r = find_rec(REC_FREEZER, "suspended", 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_lt(r->time, 10 * MS + 10000);
	ck_assert(sim_suspended());
	/*
	 * It ran on through the suspend: 90 ms of iterations of 0.5 ms busy and
	 * msleep(1), which is 2 jiffies rounded up to the next: 9 or 10.
	 */
	ck_assert_int_ge(plain.iterations_while_suspended, 8);
	ck_assert_uint_ge(plain.done_at, 100 * MS);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "frozen"), 0);
}
END_TEST

static struct {
	bool nofreeze_before, nofreeze_after, freezing_before, set_froze;
	uint64_t first_freezing;
	bool froze;
	uint64_t back_at;
} opt;

static int opt_in_fn(void *arg)
{
	(void)arg;
	opt.nofreeze_before = current->flags & PF_NOFREEZE;
	opt.set_froze = set_freezable();
	opt.nofreeze_after = current->flags & PF_NOFREEZE;
	opt.freezing_before = freezing(current);
	while (!freezing(current))
		udelay(100);
	opt.first_freezing = sim_now();
	opt.froze = try_to_freeze();
	opt.back_at = sim_now();
	return 0;
}

START_TEST(set_freezable_opts_in)
{
	h_init(2);
	sim_spawn("optin", opt_in_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(50 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(opt.nofreeze_before);
	ck_assert(!opt.set_froze);
	ck_assert(!opt.nofreeze_after);
	ck_assert(!opt.freezing_before);
	/* seen within one 100 us step of the suspend starting */
	ck_assert_uint_ge(opt.first_freezing, 10 * MS);
	ck_assert_uint_lt(opt.first_freezing, 10 * MS + 200000);
	ck_assert(opt.froze);
	ck_assert_uint_ge(opt.back_at, 50 * MS);
	ck_assert(!sim_suspended());
}
END_TEST

/* --- the idle freezable kthread ---------------------------------------------------- */

static struct task_struct *idler;
static struct {
	int loops, thaws;
	uint64_t thawed_at;
	bool frozen_at_50, state_frozen_at_50, woke_frozen;
	int ret;
} idle;

/* The loop of the brief, as kthread_worker_fn's idle path. */
static int idle_fn(void *arg)
{
	(void)arg;
	set_freezable();
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!freezing(current))
			schedule();
		if (try_to_freeze()) {
			idle.thaws++;
			idle.thawed_at = sim_now();
		}
		idle.loops++;
	}
	__set_current_state(TASK_RUNNING);
	return 7;
}

static void look_at_idler(void *arg)
{
	(void)arg;
	idle.frozen_at_50 = frozen(idler);
	idle.state_frozen_at_50 = idler->__state == TASK_FROZEN;
}

static int stopper_fn(void *arg)
{
	idle.ret = kthread_stop(arg);
	return 0;
}

START_TEST(idle_freezable_kthread_freezes_and_thaws)
{
	const struct sim_rec *susp, *fr, *th;

	h_init(2);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_event_at(50 * MS, look_at_idler, NULL);
	sim_resume_at(100 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);

	/* woken by the first pass, frozen before the 1 ms retry looks again */
	susp = find_rec(REC_FREEZER, "suspended", 0);
	fr = find_rec(REC_FREEZER, "frozen", idler->pid);
	ck_assert_ptr_nonnull(susp);
	ck_assert_ptr_nonnull(fr);
	ck_assert_str_eq(fr->s2, "idler");
	ck_assert_uint_ge(susp->time, 11 * MS);
	ck_assert_uint_lt(susp->time, 11 * MS + 20000);
	ck_assert_uint_lt(fr->time, susp->time);
	ck_assert(idle.frozen_at_50);
	ck_assert(idle.state_frozen_at_50);

	/* resume thaws it; it goes on, and kthread_stop() ends it */
	th = find_rec(REC_FREEZER, "thawed", idler->pid);
	ck_assert_ptr_nonnull(th);
	ck_assert_uint_ge(th->time, 100 * MS);
	ck_assert_int_eq(idle.thaws, 1);
	ck_assert_uint_ge(idle.thawed_at, 100 * MS);
	ck_assert_uint_lt(idle.thawed_at, 101 * MS);
	ck_assert_int_eq(idle.loops, 2);
	ck_assert_int_eq(idle.ret, 7);
	ck_assert(!sim_suspended());
	ck_assert_uint_eq(count_rec(REC_FREEZER, "thaw"), 1);
}
END_TEST

/* A machine whose freezable tasks are all frozen, with nothing pending, is at rest. */
START_TEST(frozen_forever_is_quiescent)
{
	h_init(2);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(sim_suspended());
	ck_assert(frozen(idler));
	ck_assert_uint_eq(h_trace_count(REC_TASK_EXIT), 1);	/* the suspend task only */
}
END_TEST

/* Ten seconds in the refrigerator with a 2 s hung-task timeout: TASK_FROZEN is no D state. */
START_TEST(frozen_is_not_hung)
{
	struct sim_config cfg = h_config(2);

	cfg.hung_task_ns = 2 * SEC;
	h_init_cfg(&cfg);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(10 * SEC);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 11 * SEC);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 0);
	ck_assert_int_eq(idle.thaws, 1);
}
END_TEST

/* --- the refrigerator of each era ------------------------------------------------------ */

static struct {
	int woke;
	bool frozen_then;
	unsigned int state_then;
} era_look;

static void wake_idler(void *arg)
{
	(void)arg;
	era_look.woke = wake_up_process(idler);
}

static void look_at_idler_state(void *arg)
{
	(void)arg;
	era_look.frozen_then = frozen(idler);
	era_look.state_then = idler->__state;
}

/*
 * A wake-up of a frozen kthread at 30 ms: 6.1+'s TASK_FROZEN does not match
 * it; 4.9's TASK_UNINTERRUPTIBLE does, and the task goes round the
 * refrigerator's loop and sleeps again, still PF_FROZEN. Either way it is
 * frozen at 50 ms, thawed once by the resume, and enters the refrigerator once.
 */
static void refrigerator_of_era(unsigned int era, int woke, unsigned int state)
{
	struct sim_config cfg = h_config(2);

	cfg.era = era;
	h_init_cfg(&cfg);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_event_at(30 * MS, wake_idler, NULL);
	sim_event_at(50 * MS, look_at_idler_state, NULL);
	sim_resume_at(100 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(era_look.woke, woke);
	ck_assert(era_look.frozen_then);
	ck_assert_uint_eq(era_look.state_then, state);
	ck_assert_int_eq(idle.thaws, 1);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "frozen"), 1);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "thawed"), 1);
	ck_assert_int_eq(idle.ret, 7);
}

START_TEST(refrigerator_6x_ignores_wakeups)
{
	refrigerator_of_era(SIM_ERA(6, 12), 0, TASK_FROZEN);
}
END_TEST

START_TEST(refrigerator_v49_refreezes_after_a_wakeup)
{
	refrigerator_of_era(SIM_ERA(4, 9), 1, TASK_UNINTERRUPTIBLE);
}
END_TEST

/*
 * A freezable kthread that sleeps uninterruptibly between try_to_freeze()
 * calls (50 jiffies, from 0: its timer fires at jiffy 51, 204 ms). 6.1+'s
 * freeze_task wakes it with TASK_NORMAL: frozen at once, in the suspend's
 * first pass at 10 ms. 4.9's wakes only TASK_INTERRUPTIBLE: it freezes when
 * its sleep ends, at 204 ms, and the suspend waits for it.
 */
static int napper_fn(void *arg)
{
	(void)arg;
	set_freezable();
	while (!kthread_should_stop()) {
		try_to_freeze();
		schedule_timeout_uninterruptible(50);
	}
	return 0;
}

static const struct sim_rec *napper_frozen(unsigned int era)
{
	struct sim_config cfg = h_config(2);

	cfg.era = era;
	h_init_cfg(&cfg);
	idler = sim_spawn("napper", napper_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(sim_suspended());
	return find_rec(REC_FREEZER, "frozen", idler->pid);
}

START_TEST(freeze_task_6x_wakes_uninterruptible_sleepers)
{
	const struct sim_rec *fr = napper_frozen(SIM_ERA(6, 12));

	ck_assert_ptr_nonnull(fr);
	ck_assert_uint_ge(fr->time, 10 * MS);
	ck_assert_uint_lt(fr->time, 11 * MS);
}
END_TEST

START_TEST(freeze_task_v49_leaves_uninterruptible_sleepers)
{
	const struct sim_rec *fr = napper_frozen(SIM_ERA(4, 9));

	ck_assert_ptr_nonnull(fr);
	ck_assert_uint_ge(fr->time, 204 * MS);
	ck_assert_uint_lt(fr->time, 205 * MS);
}
END_TEST

/* --- timers while frozen -------------------------------------------------------------- */

static struct timer_list tick;
static struct {
	int fired;
	uint64_t fired_at;
	bool frozen_then;
	int woke;
} tmr;

static void tick_fn(struct timer_list *t)
{
	(void)t;
	tmr.fired++;
	tmr.fired_at = sim_now();
	tmr.frozen_then = frozen(idler);
	/* a frozen task sleeps in TASK_FROZEN: an ordinary wake-up does not match */
	tmr.woke = wake_up_process(idler);
}

static int arming_idle_fn(void *arg)
{
	timer_setup(&tick, tick_fn, 0);
	mod_timer(&tick, jiffies + msecs_to_jiffies(40));
	return idle_fn(arg);
}

START_TEST(timers_fire_while_frozen)
{
	h_init(2);
	idler = sim_spawn("idler", arming_idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(100 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_int_eq(tmr.fired, 1);
	/* 10 jiffies at HZ=250, armed in jiffy 0: level 0 rounds up, it fires at jiffy 11 */
	ck_assert_uint_ge(tmr.fired_at, 44 * MS);
	ck_assert_uint_lt(tmr.fired_at, 44 * MS + 10000);
	ck_assert(tmr.frozen_then);
	ck_assert_int_eq(tmr.woke, 0);
	/* still frozen until the resume, thawed once */
	ck_assert_int_eq(idle.thaws, 1);
	ck_assert_uint_ge(idle.thawed_at, 100 * MS);
	ck_assert_int_eq(idle.ret, 7);
}
END_TEST

/* --- the freeze timeout ------------------------------------------------------------------ */

static struct task_struct *refuser;
static struct {
	uint64_t done_at;
	bool froze_after;
} ref;

/* Busy for 30 s without a try_to_freeze(), then one that finds nothing to do. */
static int busy_refuser_fn(void *arg)
{
	(void)arg;
	set_freezable();
	for (int i = 0; i < 30000; i++)
		udelay(1000);
	ref.froze_after = try_to_freeze();
	ref.done_at = sim_now();
	return 0;
}

/*
 * Suspend at T0 = 1 s: end_time = jiffies + 5000; the loop gives up once
 * time_after(jiffies, end_time), i.e. from T0 + 5001 jiffies = T0 + 20.004 s.
 * Its checks come at T0 + 0, 1, 3, 7 ms and then every 8 ms: 7 + 8k >= 20004
 * first for k = 2500, at T0 + 20.007 s. With free steps that is exact.
 */
static void check_timeout_failure(const char *name, int pid)
{
	const struct sim_finding *f = h_first(SIM_F_FREEZE_FAILED);
	char who[32];

	ck_assert_uint_eq(h_count(SIM_F_FREEZE_FAILED), 1);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->time, 1 * SEC + 20007 * MS);
	ck_assert_str_eq(f->context, "suspend");
	ck_assert_int_eq(f->cpu, 0);
	ck_assert_ptr_nonnull(strstr(f->msg, "failed after 20.007 seconds"));
	ck_assert_ptr_nonnull(strstr(f->msg, "(1 tasks refusing to freeze"));
	snprintf(who, sizeof(who), "%s:%d", name, pid);
	ck_assert_msg(strstr(f->msg, who), "'%s' does not name %s", f->msg, who);
	/* aborted: thawed at once, nobody frozen, not suspended */
	ck_assert_ptr_nonnull(find_rec(REC_FREEZER, "failed", 0));
	ck_assert_uint_eq(find_rec(REC_FREEZER, "thaw", 0)->time, f->time);
	ck_assert_ptr_null(find_rec(REC_FREEZER, "suspended", 0));
	ck_assert_ptr_null(find_rec(REC_FREEZER, "frozen", 0));
	ck_assert(!sim_suspended());
	ck_assert(!frozen(refuser));
}

START_TEST(busy_task_fails_the_suspend)
{
	struct sim_config cfg = free_steps(2);

	h_init_cfg(&cfg);
	refuser = sim_spawn("refuser", busy_refuser_fn, NULL, 1, true, 0);
	sim_suspend_at(1 * SEC);
	sim_resume_at(25 * SEC);	/* nothing to resume: the suspend failed */
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	/* and, as the kernel's watchdog would, the soft lockup of the busy CPU at 24 s */
	ck_assert_uint_eq(sim_finding_count(), 2);
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 1);
	ck_assert_uint_eq(h_first(SIM_F_HUNG)->time, 24 * SEC);
	check_timeout_failure("refuser", refuser->pid);
	ck_assert(!ref.froze_after);
	ck_assert_uint_eq(ref.done_at, 30 * SEC);
}
END_TEST

/* With the default step costs the retries drift a little; the bounds are still the jiffies'. */
START_TEST(busy_task_fails_the_suspend_default_costs)
{
	const struct sim_finding *f;
	unsigned long end;

	h_init(2);
	refuser = sim_spawn("refuser", busy_refuser_fn, NULL, 1, true, 0);
	sim_suspend_at(1 * SEC);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	f = h_first(SIM_F_FREEZE_FAILED);
	ck_assert_ptr_nonnull(f);
	end = sim_ns_to_jiffies(1 * SEC) + 5000;
	ck_assert(time_after(sim_ns_to_jiffies(f->time), end));
	/* the check before came no later than end_time: one 8 ms retry (and costs) at most */
	ck_assert_uint_lt(f->time, sim_jiffies_to_ns(end + 1) + 8 * MS + 20 * MS);
	ck_assert(!sim_suspended());
}
END_TEST

static DECLARE_COMPLETION(late);
static struct {
	uint64_t woke_at;
} lw;

static int late_waiter_fn(void *arg)
{
	(void)arg;
	set_freezable();
	wait_for_completion(&late);
	lw.woke_at = sim_now();
	try_to_freeze();
	return 0;
}

static void complete_late(void *arg)
{
	complete(arg);
}

START_TEST(uninterruptible_waiter_fails_the_suspend)
{
	struct sim_config cfg = free_steps(2);

	h_init_cfg(&cfg);
	init_completion(&late);
	refuser = sim_spawn("waiter", late_waiter_fn, NULL, 1, true, 0);
	sim_irq_at(40 * SEC, 1, "late", complete_late, &late);
	sim_suspend_at(1 * SEC);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	check_timeout_failure("waiter", refuser->pid);
	ck_assert_uint_eq(lw.woke_at, 40 * SEC);
}
END_TEST

/* --- the 4.9-era idle loop ------------------------------------------------------------- */

static struct {
	int froze;
} old;

/* kthread_worker_fn of 4.9: no TASK_RUNNING before try_to_freeze() when freezing. */
static int old_loop_fn(void *arg)
{
	(void)arg;
	set_freezable();
	for (;;) {
		udelay(5000);	/* busy when the suspend begins */
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!freezing(current))
			schedule_timeout(1);
		old.froze += try_to_freeze();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

START_TEST(old_loop_freezes_in_interruptible_state)
{
	const struct sim_finding *f;
	struct task_struct *p;

	h_init(2);
	p = sim_spawn("oldloop", old_loop_fn, NULL, 1, true, 0);
	/* udelay 0-5 ms, sleep to jiffy 3 (12 ms), udelay 12-17 ms: the suspend comes in there */
	sim_suspend_at(14 * MS);
	sim_resume_at(100 * MS);
	sim_spawn("stopper", stopper_fn, p, 0, true, 200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(h_count(SIM_F_MIGHT_SLEEP), 1);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(strstr(f->msg, "do not call blocking ops when !TASK_RUNNING; state=1"));
	ck_assert_str_eq(f->context, "oldloop");
	ck_assert_str_eq(f->site.func, "try_to_freeze");
	ck_assert_int_eq(old.froze, 1);
	ck_assert_ptr_nonnull(find_rec(REC_FREEZER, "suspended", 0));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("freezer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, kthread_starts_nofreeze_and_keeps_running);
	tcase_add_test(tc, set_freezable_opts_in);
	tcase_add_test(tc, idle_freezable_kthread_freezes_and_thaws);
	tcase_add_test(tc, frozen_forever_is_quiescent);
	tcase_add_test(tc, frozen_is_not_hung);
	tcase_add_test(tc, refrigerator_6x_ignores_wakeups);
	tcase_add_test(tc, refrigerator_v49_refreezes_after_a_wakeup);
	tcase_add_test(tc, freeze_task_6x_wakes_uninterruptible_sleepers);
	tcase_add_test(tc, freeze_task_v49_leaves_uninterruptible_sleepers);
	tcase_add_test(tc, timers_fire_while_frozen);
	tcase_add_test(tc, busy_task_fails_the_suspend);
	tcase_add_test(tc, busy_task_fails_the_suspend_default_costs);
	tcase_add_test(tc, uninterruptible_waiter_fails_the_suspend);
	tcase_add_test(tc, old_loop_freezes_in_interruptible_state);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
