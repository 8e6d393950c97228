/*
 * Pins the freezer and suspend (sim/freezer.c against kernel/freezer.c and
 * kernel/power/process.c of 6.12): kthreads start PF_NOFREEZE and are never
 * asked to freeze; set_freezable() opts in; an idle freezable kthread is
 * woken by the suspend and frozen within the first 1 ms retry; frozen tasks
 * sleep in TASK_FROZEN, which ordinary wake-ups do not match and the
 * hung-task detector ignores; timers fire and non-freezable tasks run while
 * others are frozen; then the machine sleeps: nothing runs, its clock and
 * jiffies stand still, only the boot clock counts the sleep (6.12's
 * timekeeping_resume() injects the sleep into CLOCK_BOOTTIME's offset alone,
 * and jiffies are counted from the monotonic clock), so timers, sleeps and
 * busy-waits have after the wake-up what they had left before it, while
 * what the outside world timed meanwhile (an irq) comes as it wakes; the
 * thaw comes after; each sleep takes the next wake-up, one already past
 * at once, and with none the run ends asleep; a task that does not freeze
 * within freeze_timeout fails the suspend at the first retry after jiffies pass
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
#include <linux/spinlock.h>
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
	uint64_t done_at, done_at_boot, longest_step, longest_step_boot;
} plain;

static int plain_fn(void *arg)
{
	(void)arg;
	plain.nofreeze_at_start = current->flags & PF_NOFREEZE;
	while (sim_now() < 100 * MS) {
		uint64_t t0 = sim_now(), b0 = sim_boot_now();

		udelay(500);
		msleep(1);
		if (sim_suspended()) {
			plain.iterations_while_suspended++;
			plain.freezing_during |= freezing(current);
		}
		try_to_freeze();
		if (sim_now() - t0 > plain.longest_step)
			plain.longest_step = sim_now() - t0;
		if (sim_boot_now() - b0 > plain.longest_step_boot)
			plain.longest_step_boot = sim_boot_now() - b0;
	}
	plain.nofreeze_after = current->flags & PF_NOFREEZE;
	plain.done_at = sim_now();
	plain.done_at_boot = sim_boot_now();
	return 0;
}

/*
 * A kthread that never asked to be frozen is not, but it stops with the
 * machine: its loop of 0.5 ms busy and msleep(1) (2 jiffies at HZ=250, and
 * a level-0 timer fires one jiffy after its expiry: up to 12.5 ms) takes no
 * longer by the machine's clock, while one of its steps spans the whole
 * 290 ms sleep by the boot clock.
 */
START_TEST(kthread_starts_nofreeze_and_stops_with_the_machine)
{
	const struct sim_rec *r;

	h_init(2);
	sim_spawn("plain", plain_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(300 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(plain.nofreeze_at_start);
	ck_assert(plain.nofreeze_after);
	ck_assert(!plain.freezing_during);
	/* nothing freezable: each pass finds nothing to do, the machine sleeps at once */
	r = find_rec(REC_FREEZER, "machine_suspend", 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_lt(r->time, 10 * MS + 10000);
	ck_assert_uint_eq(sim_sleeps(), 1);
	ck_assert_uint_eq(sim_slept_ns(), 300 * MS - r->time);
	ck_assert(!sim_suspended());
	ck_assert_uint_le(plain.longest_step, 13 * MS);
	ck_assert_uint_ge(plain.longest_step_boot, sim_slept_ns());
	ck_assert_uint_ge(plain.done_at, 100 * MS);
	ck_assert_uint_eq(plain.done_at_boot, plain.done_at + sim_slept_ns());
	ck_assert_uint_eq(count_rec(REC_FREEZER, "frozen"), 0);
}
END_TEST

/*
 * Busy-waits and sleeps count the machine's time, which stands still while
 * it sleeps. Free steps, HZ=250: the suspend finds nothing to freeze at
 * 10 ms, then takes cpu1 down (sim/hotplug.c), where udelay(20000) from 0
 * busy-waits: under preempt = full the stopper preempts it there and it
 * goes on on cpu0, the suspend task's CPU, which it then keeps until the
 * wait ends at 20 ms of the machine's clock (the machine's tick does not
 * cut a busy-wait short); the machine sleeps then, until 300 ms, 280 ms.
 * msleep(20) from 5 ms (jiffy 1) is schedule_timeout(msecs_to_jiffies(20))
 * on 6.12, 5 jiffies: expires at jiffy 6, which level 0 rounds up to jiffy
 * 7 (calc_index() never fires early): 28 ms of the machine's clock, after
 * the sleep, so 308 ms of the boot clock.
 */
static struct {
	uint64_t end, end_boot;
} spans[2];

static int udelay_fn(void *arg)
{
	(void)arg;
	udelay(20000);
	spans[0].end = sim_now();
	spans[0].end_boot = sim_boot_now();
	return 0;
}

static int msleep_fn(void *arg)
{
	(void)arg;
	msleep(20);
	spans[1].end = sim_now();
	spans[1].end_boot = sim_boot_now();
	return 0;
}

START_TEST(busy_wait_and_sleep_span_the_sleep)
{
	struct sim_config cfg = free_steps(2);

	/*
	 * The suspend takes cpu1 down (sim/hotplug.c): only under full
	 * preemption does its stopper preempt the busy-wait there (pushed to
	 * cpu0, it goes on after the resume); under none or voluntary the
	 * suspend waits for the udelay to end.
	 */
	cfg.preempt = SIM_PREEMPT_FULL;
	h_init_cfg(&cfg);
	sim_spawn("busy", udelay_fn, NULL, 1, true, 0);
	sim_spawn("sleeper", msleep_fn, NULL, 0, true, 5 * MS);
	sim_suspend_at(10 * MS);
	sim_resume_at(300 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_eq(find_rec(REC_FREEZER, "machine_suspend", 0)->time, 20 * MS);
	ck_assert_uint_eq(sim_slept_ns(), 280 * MS);
	ck_assert_uint_eq(spans[0].end, 20 * MS);
	ck_assert_uint_eq(spans[0].end_boot, 20 * MS);
	/* msleep(20) from jiffy 1 on 6.12: 5 jiffies, +1 in the wheel: jiffy 7, 28 ms */
	ck_assert_uint_eq(spans[1].end, 28 * MS);
	ck_assert_uint_eq(spans[1].end_boot, 308 * MS);
}
END_TEST

/*
 * A timer armed before the suspend fires after its jiffies of running time.
 * HZ=1000, free steps: armed at 0 for 100 jiffies, level 1 (8-jiffy
 * granules; INITIAL_JIFFIES is a multiple of 8), so its bucket expires at
 * jiffy 104: 104 ms of the machine's clock. A 10 ms -> 300 ms suspend
 * stops jiffies for 290 ms: it fires at 394 ms of the boot clock, not at
 * 104 ms, where a machine whose jiffies ran on through the sleep fired it.
 */
static struct timer_list long_timer;
static struct {
	uint64_t at, at_boot;
	unsigned long j;
} lt;

static void long_timer_fn(struct timer_list *t)
{
	(void)t;
	lt.at = sim_now();
	lt.at_boot = sim_boot_now();
	lt.j = jiffies;
}

static int long_arm_fn(void *arg)
{
	(void)arg;
	timer_setup(&long_timer, long_timer_fn, 0);
	mod_timer(&long_timer, jiffies + 100);
	return 0;
}

START_TEST(timer_counts_running_jiffies_only)
{
	struct sim_config cfg = free_steps(2);

	cfg.hz = 1000;
	h_init_cfg(&cfg);
	sim_spawn("arm", long_arm_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(300 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_eq(lt.at, 104 * MS);
	ck_assert_uint_eq(lt.at_boot, 394 * MS);
	ck_assert_uint_eq(lt.j, INITIAL_JIFFIES + 104);
}
END_TEST

/*
 * An interrupt the outside world raised while the machine slept comes as
 * it wakes: on the boot CPU, where the suspend task runs with interrupts
 * off, at arch_suspend_enable_irqs(), before the thaw, so it sees the
 * freezable kthread still frozen. Free steps: the idler is woken by the
 * first pass at 10 ms and frozen when the 1 ms retry looks again, so the
 * machine sleeps at 11 ms until 300 ms, and the irq of 100 ms comes at
 * 11 ms of the machine's clock.
 */
static struct task_struct *idler;
static struct {
	uint64_t at, at_boot, thaw_begin;
	bool frozen_then;
} irq_seen;

static void during_sleep_irq(void *arg)
{
	(void)arg;
	irq_seen.at = sim_now();
	irq_seen.at_boot = sim_boot_now();
	irq_seen.frozen_then = frozen(idler);
}

static int idle_fn(void *arg);
static int stopper_fn(void *arg);

START_TEST(irq_during_the_sleep_comes_at_the_wakeup)
{
	struct sim_config cfg = free_steps(2);
	const struct sim_rec *thaw;

	h_init_cfg(&cfg);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_irq_at(100 * MS, 0, "late", during_sleep_irq, NULL);
	sim_suspend_at(10 * MS);
	sim_resume_at(300 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 400 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_eq(sim_slept_ns(), 289 * MS);
	ck_assert_uint_eq(irq_seen.at, 11 * MS);
	ck_assert_uint_eq(irq_seen.at_boot, 300 * MS);
	ck_assert(irq_seen.frozen_then);
	thaw = find_rec(REC_FREEZER, "thaw_processes", 0);
	ck_assert_ptr_nonnull(thaw);
	ck_assert_uint_eq(thaw->time, 11 * MS);
	/* the stopper of 400 ms starts 289 ms early by the machine's clock */
	ck_assert_uint_eq(h_trace_count(REC_TASK_EXIT), 3);
}
END_TEST

/*
 * Two suspends, each woken by its own wake-up; a timer spans the first.
 * Free steps, HZ=1000. Each freeze takes the idler's 1 ms retry. First:
 * 10 ms, asleep at 11 ms until 100 ms (89 ms). The second suspend, at
 * 200 ms of the boot clock, starts at 111 ms of the machine's, sleeps at
 * 112 ms (201 ms boot) until 250 ms: 49 ms more, 138 ms in all. The
 * 100-jiffy timer armed at 0 (bucket jiffy 104) fires at 104 ms, which is
 * 193 ms of the boot clock: between the two sleeps.
 */
static int repeat_idle_fn(void *arg)
{
	long_arm_fn(arg);
	return idle_fn(arg);
}

START_TEST(repeated_suspends)
{
	struct sim_config cfg = free_steps(2);

	cfg.hz = 1000;
	h_init_cfg(&cfg);
	idler = sim_spawn("idler", repeat_idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(100 * MS);
	sim_suspend_at(200 * MS);
	sim_resume_at(250 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 300 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_eq(sim_sleeps(), 2);
	ck_assert_uint_eq(sim_slept_ns(), 138 * MS);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "frozen"), 2);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "thawed"), 2);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "machine_suspend"), 4);	/* begin, end twice */
	ck_assert_uint_eq(lt.at, 104 * MS);
	ck_assert_uint_eq(lt.at_boot, 193 * MS);
}
END_TEST

static struct {
	bool nofreeze_before, nofreeze_after, freezing_before, set_froze;
	uint64_t first_freezing;
	bool froze;
	uint64_t back_at_boot;
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
	opt.back_at_boot = sim_boot_now();
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
	ck_assert_uint_ge(opt.back_at_boot, 50 * MS);
	ck_assert(!sim_suspended());
}
END_TEST

/* --- the idle freezable kthread ---------------------------------------------------- */

static struct {
	int loops, thaws;
	uint64_t thawed_at_boot;
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
			idle.thawed_at_boot = sim_boot_now();
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
	/* an irq of the sleep, on the boot CPU: it comes at the wake-up, before the thaw */
	sim_irq_at(50 * MS, 0, "look", look_at_idler, NULL);
	sim_resume_at(100 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);

	/* woken by the first pass, frozen before the 1 ms retry looks again */
	susp = find_rec(REC_FREEZER, "machine_suspend", 0);
	fr = find_rec(REC_FREEZER, "frozen", idler->pid);
	ck_assert_ptr_nonnull(susp);
	ck_assert_ptr_nonnull(fr);
	ck_assert_str_eq(fr->s2, "idler");
	ck_assert_uint_ge(susp->time, 11 * MS);
	ck_assert_uint_lt(susp->time, 11 * MS + 20000);
	ck_assert_uint_lt(fr->time, susp->time);
	ck_assert(idle.frozen_at_50);
	ck_assert(idle.state_frozen_at_50);

	/* the wake-up at 100 ms thaws it; it goes on, and kthread_stop() ends it */
	th = find_rec(REC_FREEZER, "thawed", idler->pid);
	ck_assert_ptr_nonnull(th);
	ck_assert_uint_ge(th->time, susp->time);
	ck_assert_uint_lt(th->time, susp->time + 20000);
	ck_assert_int_eq(idle.thaws, 1);
	ck_assert_uint_ge(idle.thawed_at_boot, 100 * MS);
	ck_assert_uint_lt(idle.thawed_at_boot, 101 * MS);
	ck_assert_int_eq(idle.loops, 2);
	ck_assert_int_eq(idle.ret, 7);
	ck_assert(!sim_suspended());
	ck_assert_uint_eq(count_rec(REC_FREEZER, "thaw_processes"), 2);	/* begin, end */
}
END_TEST

/*
 * A suspend with no wake-up to come: the machine sleeps for good and the
 * run ends there, at rest, with its freezable tasks frozen; a thread due
 * later never starts.
 */
START_TEST(frozen_forever_is_quiescent)
{
	h_init(2);
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 50 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(sim_suspended());
	ck_assert(frozen(idler));
	ck_assert_ptr_nonnull(find_rec(REC_FREEZER, "machine_suspend", 0));
	ck_assert_uint_eq(count_rec(REC_FREEZER, "machine_suspend"), 1);	/* begun, never ended */
	ck_assert_uint_eq(sim_sleeps(), 0);
	ck_assert_uint_eq(h_trace_count(REC_TASK_EXIT), 0);
}
END_TEST

/*
 * A freezable kthread busy until slow_until, which freezes only then: the
 * freezer retries meanwhile, and the tasks frozen already stay frozen with
 * the machine awake. (Once the machine sleeps, no time passes for it.)
 */
static uint64_t slow_until;

static int slow_fn(void *arg)
{
	(void)arg;
	set_freezable();
	while (sim_now() < slow_until)
		udelay(1000);
	try_to_freeze();
	return 0;
}

/* Ten seconds in the refrigerator with a 2 s hung-task timeout: TASK_FROZEN is no D state. */
START_TEST(frozen_is_not_hung)
{
	struct sim_config cfg = h_config(2);

	cfg.hung_task_ns = 2 * SEC;
	h_init_cfg(&cfg);
	slow_until = 10 * SEC;
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_spawn("slow", slow_fn, NULL, 0, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(30 * SEC);
	sim_spawn("stopper", stopper_fn, idler, 0, true, 31 * SEC);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(h_count(SIM_F_HUNG), 0);
	ck_assert_uint_ge(find_rec(REC_FREEZER, "machine_suspend", 0)->time, 10 * SEC);
	ck_assert_uint_lt(find_rec(REC_FREEZER, "frozen", idler->pid)->time, 11 * MS);
	ck_assert_int_eq(idle.thaws, 1);
}
END_TEST

/*
 * A second suspend while the first still waits for a slow task: enter_state()'s
 * mutex_trylock(&system_transition_mutex) fails it at once with -EBUSY, so the
 * machine sleeps once, and the second wake-up is left for a later suspend.
 */
START_TEST(overlapping_suspend_is_busy)
{
	uint64_t second = 0;
	const struct sim_rec *exit = NULL;

	h_init(2);
	slow_until = 60 * MS;
	sim_spawn("slow", slow_fn, NULL, 0, true, 0);
	sim_suspend_at(10 * MS);
	sim_suspend_at(20 * MS);
	sim_resume_at(100 * MS);
	sim_resume_at(200 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_sleeps(), 1);
	ck_assert_uint_eq(count_rec(REC_FREEZER, "freeze_processes"), 2);	/* begin, end */
	/* the second "suspend" task born is the one at 20 ms: its write failed */
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (r->type == REC_TASK_NEW && !strcmp(r->s, "suspend"))
			second = r->a;
		if (r->type == REC_TASK_EXIT && second && r->a == second)
			exit = r;
	}
	ck_assert_ptr_nonnull(exit);
	ck_assert_int_eq((int)(long)exit->b, -EBUSY);
}
END_TEST

/* --- no lock held into the refrigerator ------------------------------------------------ */

static spinlock_t held_lock;

static int holder_fn(void *arg)
{
	(void)arg;
	set_freezable();
	spin_lock(&held_lock);
	try_to_freeze();
	spin_unlock(&held_lock);
	return 0;
}

/*
 * try_to_freeze() checks with lockdep that a freezable task holds no lock
 * (debug_check_no_locks_held): 4.9 at every call, 6.1+ only when the task is
 * to freeze. A call under a spinlock with no freeze in progress: "still has
 * locks held" on 4.9, not on 6.12 (where only might_sleep() speaks).
 */
static size_t locks_held_reports(unsigned int era)
{
	struct sim_config cfg = h_config(1);

	cfg.era = era;
	h_init_cfg(&cfg);
	spin_lock_init(&held_lock);
	sim_spawn("holder", holder_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_MIGHT_SLEEP), 1);
	return h_count(SIM_F_LOCKDEP);
}

START_TEST(freezable_task_holding_a_lock_v49)
{
	const struct sim_finding *f;

	ck_assert_uint_eq(locks_held_reports(SIM_ERA(4, 9)), 1);
	f = h_first(SIM_F_LOCKDEP);
	ck_assert_ptr_nonnull(strstr(f->msg, "WARNING: holder still has locks held! (&held_lock)"));
}
END_TEST

START_TEST(freezable_task_holding_a_lock_6x_unless_freezing)
{
	ck_assert_uint_eq(locks_held_reports(SIM_ERA(6, 12)), 0);
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
 * A wake-up of a frozen kthread at 30 ms, while the freezer still waits for
 * another task and the machine is awake: 6.1+'s TASK_FROZEN does not match
 * it; 4.9's TASK_UNINTERRUPTIBLE does, and the task goes round the
 * refrigerator's loop and sleeps again, still PF_FROZEN. Either way it is
 * frozen at 50 ms, thawed once by the resume, and enters the refrigerator once.
 */
static void refrigerator_of_era(unsigned int era, int woke, unsigned int state)
{
	struct sim_config cfg = h_config(2);

	cfg.era = era;
	h_init_cfg(&cfg);
	/* the freezer waits for "slow" until 60 ms: the machine is awake, idler frozen */
	slow_until = 60 * MS;
	idler = sim_spawn("idler", idle_fn, NULL, 1, true, 0);
	sim_spawn("slow", slow_fn, NULL, 0, true, 0);
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
	ck_assert_uint_eq(count_rec(REC_FREEZER, "frozen"), 2);	/* idler and slow */
	ck_assert_uint_eq(count_rec(REC_FREEZER, "thawed"), 2);
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

/* The freeze lasts until 60 ms, the slow task's: the timer comes in between. */
START_TEST(timers_fire_while_frozen)
{
	h_init(2);
	slow_until = 60 * MS;
	idler = sim_spawn("idler", arming_idle_fn, NULL, 1, true, 0);
	sim_spawn("slow", slow_fn, NULL, 0, true, 0);
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
	/* still frozen until the wake-up, thawed once */
	ck_assert_uint_gt(find_rec(REC_FREEZER, "machine_suspend", 0)->time, tmr.fired_at);
	ck_assert_int_eq(idle.thaws, 1);
	ck_assert_uint_ge(idle.thawed_at_boot, 100 * MS);
	ck_assert_int_eq(idle.ret, 7);
}
END_TEST

/*
 * The wake-up came while the freezer still waited for the slow task: the
 * machine goes down and comes straight back, having slept no time, and the
 * next wake-up is left for the next sleep.
 */
START_TEST(a_wakeup_before_the_sleep_wakes_at_once)
{
	const struct sim_rec *down, *up;

	h_init(2);
	slow_until = 60 * MS;
	sim_spawn("slow", slow_fn, NULL, 1, true, 0);
	sim_suspend_at(10 * MS);
	sim_resume_at(30 * MS);
	sim_resume_at(500 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_eq(sim_sleeps(), 1);
	ck_assert_uint_eq(sim_slept_ns(), 0);
	down = find_rec(REC_FREEZER, "machine_suspend", 0);
	ck_assert_ptr_nonnull(down);
	ck_assert_uint_ge(down->time, 60 * MS);
	/* the next step of the suspend is the wake-up, at once */
	up = NULL;
	for (size_t i = (size_t)(down - sim_trace_records()) + 1; i < sim_trace_count() && !up; i++)
		if (sim_trace_records()[i].type == REC_FREEZER)
			up = &sim_trace_records()[i];
	ck_assert_ptr_nonnull(up);
	ck_assert_str_eq(up->s, "machine_suspend");
	ck_assert_uint_eq(up->c, 0);
	ck_assert_uint_eq(up->time, down->time);
	ck_assert(!sim_suspended());
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
	/* aborted: thawed at once, nobody frozen, the machine never slept */
	ck_assert_uint_eq(find_rec(REC_FREEZER, "thaw_processes", 0)->time, f->time);
	ck_assert_ptr_null(find_rec(REC_FREEZER, "machine_suspend", 0));
	ck_assert_uint_eq(sim_sleeps(), 0);
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
	ck_assert_ptr_nonnull(find_rec(REC_FREEZER, "machine_suspend", 0));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("freezer");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, kthread_starts_nofreeze_and_stops_with_the_machine);
	tcase_add_test(tc, busy_wait_and_sleep_span_the_sleep);
	tcase_add_test(tc, timer_counts_running_jiffies_only);
	tcase_add_test(tc, irq_during_the_sleep_comes_at_the_wakeup);
	tcase_add_test(tc, repeated_suspends);
	tcase_add_test(tc, a_wakeup_before_the_sleep_wakes_at_once);
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
	tcase_add_test(tc, overlapping_suspend_is_busy);
	tcase_add_test(tc, freezable_task_holding_a_lock_v49);
	tcase_add_test(tc, freezable_task_holding_a_lock_6x_unless_freezing);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
