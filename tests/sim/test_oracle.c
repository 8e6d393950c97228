/*
 * Pins the oracles (sim/oracle.c, linux/bug.h, linux/printk.h and the
 * watchdogs of sim/machine.c): WARN_ON returns its condition and records
 * the condition's text, function, file and line; WARN_ON_ONCE reports once
 * per site and per run, however often it fires; WARN formats its message;
 * BUG_ON ends the run fatally; might_sleep reports sleeping with preemption
 * off, with irqs off and in a state other than TASK_RUNNING; every finding
 * carries its time, CPU, context and decision index and has a trace record;
 * the hung-task detector reports an uninterruptible sleep longer than
 * hung_task_ns and only that; a CPU spinning that long on a lock is a soft
 * lockup; printk and pr_* become REC_PRINTK records with their level; a BUG
 * without a site says where the context was, never "?:0"; sim_site_at()
 * gives one site per (file, line, func); a caller's finding, formatted or
 * written already, is cut at the message's size, and one raised in a slot
 * a reset reuses keeps nothing of the finding that was there.
 */
#include "../harness.h"
#include "../../sim/machine.h"	/* the event heap's size: the watchdog's checks */

#include <sim/site.h>

#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include <stdio.h>
#include <string.h>

#define MS	1000000ULL
#define SEC	1000000000ULL

#define has(hay, needle) ck_assert_msg(strstr(hay, needle), "'%s' lacks '%s'", hay, needle)

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* --- WARN ------------------------------------------------------------------------------- */

static struct {
	bool quiet, loud;
	int line;
	uint64_t at, decision;
	int cpu;
} w;

static int warn_fn(void *arg)
{
	int x = 1;

	(void)arg;
	w.quiet = WARN_ON(x == 0);
	w.at = sim_now();
	w.decision = sim_decision_count();
	w.cpu = sim_this_cpu();
	w.line = __LINE__ + 1;
	w.loud = WARN_ON(x == 1);
	return 0;
}

START_TEST(warn_on_reports_where_and_what)
{
	const struct sim_finding *f;
	const struct sim_rec *r = NULL;

	h_init(2);
	sim_spawn("warner", warn_fn, NULL, 1, true, 3 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert(!w.quiet);
	ck_assert(w.loud);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = sim_finding(0);
	ck_assert_int_eq(f->kind, SIM_F_WARN);
	ck_assert_str_eq(f->site.func, "warn_fn");
	ck_assert_int_eq(f->site.line, w.line);
	ck_assert(ends_with(f->site.file, "test_oracle.c"));
	has(f->msg, "WARN_ON(x == 1)");
	has(f->msg, "warn_fn");
	has(f->msg, "WARNING: CPU: 1 PID: 1 at ");
	ck_assert_uint_eq(f->time, w.at);
	ck_assert_int_eq(f->cpu, 1);
	ck_assert_int_eq(w.cpu, 1);
	ck_assert_str_eq(f->context, "warner");
	ck_assert_uint_eq(f->decision, w.decision);
	for (size_t i = 0; i < sim_trace_count(); i++)
		if (sim_trace_records()[i].type == REC_FINDING)
			r = &sim_trace_records()[i];
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->a, 0);
	ck_assert_str_eq(r->s, "warn");
	ck_assert_uint_eq(r->time, w.at);
	ck_assert_int_eq(r->cpu, 1);
}
END_TEST

static int once_true;

static int once_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		once_true += WARN_ON_ONCE(i >= 0);
		WARN_ON_ONCE(i == 3);
		WARN_ON_ONCE(i > 100);
	}
	return 0;
}

/* Once per site, in every run: a second machine in the same process warns again. */
START_TEST(warn_on_once_per_site_per_run)
{
	for (int run = 0; run < 2; run++) {
		once_true = 0;
		h_init(1);
		sim_spawn("once", once_fn, NULL, 0, false, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		ck_assert_int_eq(once_true, 5);
		ck_assert_uint_eq(sim_finding_count(), 2);
		has(sim_finding(0)->msg, "WARN_ON_ONCE(i >= 0)");
		has(sim_finding(1)->msg, "WARN_ON_ONCE(i == 3)");
		sim_fini();
	}
}
END_TEST

static bool formatted;

static int warn_fmt_fn(void *arg)
{
	(void)arg;
	formatted = WARN(sim_now() > 0, "odd state %d of %s", 42, "thing");
	WARN(false, "never");
	return 0;
}

START_TEST(warn_formats_its_message)
{
	h_init(1);
	sim_spawn("fmt", warn_fmt_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(formatted);
	ck_assert_uint_eq(sim_finding_count(), 1);
	has(sim_finding(0)->msg, "warn_fmt_fn: odd state 42 of thing");
	ck_assert_str_eq(sim_finding(0)->site.func, "warn_fmt_fn");
}
END_TEST

/* Variants linked under a prefix name their functions as the source does. */
int v49_probe(void *arg);
int v49_probe(void *arg)
{
	(void)arg;
	WARN_ON(arg == NULL);
	return 0;
}

START_TEST(warn_names_unprefixed_functions)
{
	h_init(1);
	sim_register_symbol_prefix("v49_");
	sim_spawn("probe", v49_probe, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	ck_assert_str_eq(sim_finding(0)->site.func, "probe");
	has(sim_finding(0)->msg, " probe: WARN_ON(arg == NULL)");
}
END_TEST

/* Context names: hardirq and softirq findings say so. */
static struct timer_list soft_timer;

static void soft_fn(struct timer_list *t)
{
	WARN_ON(t != NULL);
}

static void hard_fn(void *arg)
{
	(void)arg;
	WARN_ON(in_irq());
}

static int arm_fn(void *arg)
{
	(void)arg;
	timer_setup(&soft_timer, soft_fn, 0);
	mod_timer(&soft_timer, jiffies + 1);
	return 0;
}

START_TEST(findings_name_irq_contexts)
{
	h_init(2);
	sim_spawn("arm", arm_fn, NULL, 0, true, 0);
	sim_irq_at(20 * MS, 1, "hard", hard_fn, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 2);
	ck_assert_str_eq(sim_finding(0)->context, "softirq");
	ck_assert_int_eq(sim_finding(0)->cpu, 0);
	ck_assert_str_eq(sim_finding(0)->site.func, "soft_fn");
	/* armed in jiffy 0 for jiffy 1: level 0 rounds up to jiffy 2 */
	ck_assert_uint_ge(sim_finding(0)->time, 8 * MS);
	ck_assert_uint_lt(sim_finding(0)->time, 8 * MS + 10000);
	ck_assert_str_eq(sim_finding(1)->context, "hardirq");
	ck_assert_int_eq(sim_finding(1)->cpu, 1);
	ck_assert_uint_ge(sim_finding(1)->time, 20 * MS);
	ck_assert_uint_lt(sim_finding(1)->time, 20 * MS + 10000);
}
END_TEST

/* The decision index: under a random strategy, choices come before the finding. */
static int busy_fn(void *arg)
{
	for (int i = 0; i < 20; i++) {
		udelay(10);
		cond_resched();
	}
	if (arg) {
		w.decision = sim_decision_count();
		w.at = sim_now();
		WARN_ON(arg != NULL);
	}
	return 0;
}

START_TEST(findings_carry_the_decision_index)
{
	struct sim_config cfg = h_config(2);
	const struct sim_finding *f;

	cfg.strategy = SIM_STRATEGY_RANDOM;
	cfg.seed = 7;
	h_init_cfg(&cfg);
	sim_spawn("a", busy_fn, NULL, 0, false, 0);
	sim_spawn("b", busy_fn, NULL, 1, false, 0);
	sim_spawn("c", busy_fn, &cfg, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = sim_finding(0);
	ck_assert_uint_gt(w.decision, 0);
	ck_assert_uint_eq(f->decision, w.decision);
	ck_assert_uint_eq(f->time, w.at);
	ck_assert_uint_ge(sim_decision_count(), f->decision);
}
END_TEST

/* --- BUG ---------------------------------------------------------------------------------- */

static bool after_bug, other_done;
static int bug_line;

static int bug_fn(void *arg)
{
	int *p = arg;

	msleep(1);
	bug_line = __LINE__ + 1;
	BUG_ON(p == NULL);
	after_bug = true;
	return 0;
}

static int long_fn(void *arg)
{
	(void)arg;
	msleep(1000);
	other_done = true;
	return 0;
}

START_TEST(bug_on_ends_the_run)
{
	const struct sim_finding *f;
	char where[64];

	h_init(2);
	sim_spawn("bug", bug_fn, NULL, 0, false, 0);
	sim_spawn("long", long_fn, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	h_dump_findings();
	ck_assert(!after_bug);
	ck_assert(!other_done);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(f);
	snprintf(where, sizeof(where), "test_oracle.c:%d! bug_fn: BUG_ON(p == NULL)", bug_line);
	has(f->msg, "kernel BUG at ");
	has(f->msg, where);
	ck_assert_int_eq(f->site.line, bug_line);
	ck_assert_str_eq(f->context, "bug");
	ck_assert_uint_lt(f->time, 100 * MS);
}
END_TEST

static int bug_nosite_fn(void *arg)
{
	(void)arg;
	sim_bug(NULL, "bad state");
	after_bug = true;
	return 0;
}

/* report_bug() without bug-verbose info: the function, as the machine knows it */
START_TEST(bug_without_a_site_names_the_function)
{
	const struct sim_finding *f;

	h_init(1);
	sim_register_symbol((const void *)bug_nosite_fn, "bug_nosite_fn");
	sim_spawn("bug", bug_nosite_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	ck_assert(!after_bug);
	f = h_first(SIM_F_BUG);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "Kernel BUG at bug_nosite_fn [verbose debug info unavailable]: "
				 "BUG_ON(bad state)");
	ck_assert_str_eq(f->site.func, "bug_nosite_fn");
	ck_assert_ptr_null(f->site.file);
}
END_TEST

START_TEST(site_at_is_one_per_place)
{
	static const char file[] = "x.kws", f1[] = "msleep", f2[] = "udelay";
	const struct sim_site *a, *b;

	h_init(1);
	a = sim_site_at(file, 3, f1);
	ck_assert_str_eq(a->file, "x.kws");
	ck_assert_int_eq(a->line, 3);
	ck_assert_str_eq(a->func, "msleep");
	ck_assert_ptr_eq(sim_site_at(file, 3, f1), a);
	b = sim_site_at(file, 3, f2);
	ck_assert_ptr_ne(b, a);
	ck_assert_ptr_ne(sim_site_at(file, 4, f1), a);
	/* many: the table grows and keeps every one where it was */
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(sim_site_at(file, 100 + i, f1)->line, 100 + i);
	ck_assert_ptr_eq(sim_site_at(file, 3, f1), a);
	ck_assert_ptr_eq(sim_site_at(file, 3, f2), b);
}
END_TEST

/* A caller's findings: written once, cut where snprintf cuts, nothing kept from a reset slot. */
static char long_text[1500];

static int raise_fn(void *arg)
{
	const struct sim_site *site = arg;

	sim_note("x.kws:7");
	sim_raise_at(SIM_F_INVARIANT, site, "%s", long_text);
	sim_raise_text(SIM_F_CONTRACT, site, long_text);
	return 0;
}

START_TEST(raised_text_is_cut_and_fresh)
{
	struct sim_config cfg = h_config(1);
	const struct sim_finding *f;

	memset(long_text, 'x', sizeof(long_text) - 1);
	h_init_cfg(&cfg);
	sim_spawn("raiser", raise_fn, (void *)sim_site_at("x.kws", 7, "always"), 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 2);
	for (size_t i = 0; i < 2; i++) {
		f = sim_finding(i);
		ck_assert_uint_eq(strlen(f->msg), sizeof(f->msg) - 1);
		ck_assert_str_eq(f->context, "raiser");
		ck_assert_str_eq(f->note, "x.kws:7");
		ck_assert_str_eq(f->site.file, "x.kws");
		ck_assert_int_eq(f->site.line, 7);
		ck_assert_int_eq(f->cpu, 0);
	}
	ck_assert_int_eq(h_trace_count(REC_FINDING), 2);
	/* the same slots, raised by the machine itself: no context, note, site or text of before */
	ck_assert_int_eq(sim_reset(&cfg), 0);
	sim_raise_text(SIM_F_CONTRACT, NULL, "short");
	sim_raise(SIM_F_INVARIANT, "%d", 42);
	ck_assert_uint_eq(sim_finding_count(), 2);
	for (size_t i = 0; i < 2; i++) {
		f = sim_finding(i);
		ck_assert_str_eq(f->msg, i ? "42" : "short");
		ck_assert_str_eq(f->context, "machine");
		ck_assert_str_eq(f->note, "");
		ck_assert_ptr_null(f->site.file);
		ck_assert_ptr_null(f->site.func);
		ck_assert_int_eq(f->site.line, 0);
		ck_assert_int_eq(f->cpu, -1);
	}
}
END_TEST

/* --- might_sleep --------------------------------------------------------------------------- */

static DEFINE_SPINLOCK(lk);
static int sleep_line;

static int sleep_locked_fn(void *arg)
{
	(void)arg;
	spin_lock(&lk);
	sleep_line = __LINE__ + 1;
	msleep(1);
	spin_unlock(&lk);
	return 0;
}

START_TEST(might_sleep_with_preemption_off)
{
	const struct sim_finding *f;

	h_init(1);
	spin_lock_init(&lk);
	sim_spawn("locked", sleep_locked_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	f = sim_finding(0);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, SIM_F_MIGHT_SLEEP);
	has(f->msg, "BUG: sleeping function called from invalid context at ");
	/* __might_resched() of 6.x: non_block and the preempt count expected too */
	has(f->msg, "in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 1, name: locked\n"
		    "preempt_count: 1, expected: 0");
	ck_assert_int_eq(f->site.line, sleep_line);
	ck_assert_str_eq(f->site.func, "sleep_locked_fn");
	/* and the sleep itself, as schedule() sees it */
	ck_assert_uint_eq(sim_finding_count(), 2);
	ck_assert_int_eq(sim_finding(1)->kind, SIM_F_MIGHT_SLEEP);
	has(sim_finding(1)->msg, "BUG: scheduling while atomic: locked/1/0x00000001");
}
END_TEST

static int sleep_irqs_off_fn(void *arg)
{
	(void)arg;
	local_irq_disable();
	sleep_line = __LINE__ + 1;
	msleep(1);
	local_irq_enable();
	return 0;
}

START_TEST(might_sleep_with_irqs_off)
{
	const struct sim_finding *f;

	h_init(1);
	sim_spawn("irqsoff", sleep_irqs_off_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(f);
	has(f->msg, "in_atomic(): 0, irqs_disabled(): 1, non_block: 0, pid: 1, name: irqsoff");
	ck_assert_int_eq(f->site.line, sleep_line);
}
END_TEST

/* 4.9's ___might_sleep() printed neither non_block nor the preempt counts. */
START_TEST(might_sleep_in_the_words_of_4_9)
{
	struct sim_config cfg = h_config(1);
	const struct sim_finding *f;

	cfg.era = SIM_ERA(4, 9);
	h_init_cfg(&cfg);
	sim_spawn("irqsoff", sleep_irqs_off_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->msg, "\nin_atomic(): 0, irqs_disabled(): 1, pid: 1, "
					     "name: irqsoff"));
	ck_assert_ptr_null(strstr(f->msg, "non_block"));
}
END_TEST

static int sleep_not_running_fn(void *arg)
{
	(void)arg;
	set_current_state(TASK_UNINTERRUPTIBLE);
	sleep_line = __LINE__ + 1;
	msleep(1);
	return 0;
}

START_TEST(might_sleep_not_running)
{
	const struct sim_finding *f;

	h_init(1);
	sim_spawn("state", sleep_not_running_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "do not call blocking ops when !TASK_RUNNING; state=2");
	ck_assert_int_eq(f->site.line, sleep_line);
	ck_assert_str_eq(f->context, "state");
}
END_TEST

/* The same bad site in a loop within a second is reported once: prev_jiffy's rate limit. */
static int sleep_locked_loop_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		local_irq_disable();
		msleep(1);
		local_irq_enable();
	}
	return 0;
}

START_TEST(might_sleep_once_per_site)
{
	h_init(1);
	sim_spawn("loop", sleep_locked_loop_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_MIGHT_SLEEP), 1);
}
END_TEST

/*
 * __might_resched()'s limit is one report a second for the whole kernel
 * (one static prev_jiffy), not one per site: two sites 100 ms apart give
 * one report; a third 1.2 s after the first gives a second. The state
 * check is a WARN_ONCE: two !TASK_RUNNING sleeps at two sites, one report.
 */
static int ratelimit_fn(void *arg)
{
	(void)arg;
	local_irq_disable();
	mdelay(1);			/* irqs off: nothing sleeps, only a delay */
	local_irq_enable();
	local_irq_disable();
	msleep(1);			/* site A at t ~ 1 ms: reported */
	local_irq_enable();
	msleep(100);
	local_irq_disable();
	msleep(2);			/* site B at ~ 110 ms: within the second */
	local_irq_enable();
	msleep(1100);
	local_irq_disable();
	msleep(3);			/* site C at ~ 1.2 s: a second report */
	local_irq_enable();
	set_current_state(TASK_UNINTERRUPTIBLE);
	msleep(1);			/* the state WARN_ONCE */
	set_current_state(TASK_UNINTERRUPTIBLE);
	msleep(1);			/* ... once */
	return 0;
}

START_TEST(might_sleep_rate_limited_as_dmesg)
{
	size_t invalid = 0, state = 0;

	h_init(1);
	sim_spawn("rl", ratelimit_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

		if (f->kind != SIM_F_MIGHT_SLEEP)
			continue;
		invalid += strstr(f->msg, "invalid context") != NULL;
		state += strstr(f->msg, "!TASK_RUNNING") != NULL;
	}
	ck_assert_uint_eq(invalid, 2);
	ck_assert_uint_eq(state, 1);
}
END_TEST

/* --- hung tasks and soft lockups ---------------------------------------------------------- */

static DECLARE_COMPLETION(slow);
static DECLARE_COMPLETION(quick);
static uint64_t slow_from;

static int slow_waiter_fn(void *arg)
{
	(void)arg;
	slow_from = sim_now();
	wait_for_completion(&slow);
	return 0;
}

static int quick_waiter_fn(void *arg)
{
	(void)arg;
	wait_for_completion(&quick);
	return 0;
}

static void completer(void *arg)
{
	complete(arg);
}

START_TEST(hung_task_after_the_timeout_only)
{
	struct sim_config cfg = h_config(2);
	const struct sim_finding *f;

	cfg.hung_task_ns = 2 * SEC;
	h_init_cfg(&cfg);
	init_completion(&slow);
	init_completion(&quick);
	sim_spawn("slow", slow_waiter_fn, NULL, 0, true, 0);
	sim_spawn("quick", quick_waiter_fn, NULL, 1, true, 0);
	sim_irq_at(3 * SEC, 0, "slowirq", completer, &slow);
	sim_irq_at(1 * SEC, 1, "quickirq", completer, &quick);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_HUNG);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "INFO: task slow:1 blocked for more than 2 seconds "
				 "(waiting on wait_for_completion)");
	ck_assert_str_eq(f->site.func, "slow_waiter_fn");
	/* two seconds after it went to sleep, a few steps after slow_from */
	ck_assert_uint_ge(f->time, slow_from + 2 * SEC);
	ck_assert_uint_lt(f->time, slow_from + 2 * SEC + 1000);
}
END_TEST

static DEFINE_SPINLOCK(stuck);

static int holder_fn(void *arg)
{
	(void)arg;
	spin_lock(&stuck);
	mdelay(30000);
	spin_unlock(&stuck);
	return 0;
}

static bool taker_got_it;

static int taker_fn(void *arg)
{
	(void)arg;
	spin_lock(&stuck);
	taker_got_it = true;
	spin_unlock(&stuck);
	return 0;
}

/*
 * Both CPUs stop scheduling: cpu0 busy-waits 30 s holding the lock, cpu1
 * spins on it from 1 ms. kernel/watchdog.c, watchdog_thresh = 10: the
 * hrtimer every 4 s (2 * 10 / 5); the last touch at 0; the report at the
 * first period with now >> 30 > (0 >> 30) + 20, that is 24 s (24e9 >> 30
 * = 22 > 20; 20e9 >> 30 = 18 is not), saying 22 s. Not hung_task's 120 s.
 */
START_TEST(soft_lockup_on_a_long_held_lock)
{
	struct sim_config cfg = h_config(2);
	const struct sim_finding *f;

	h_init_cfg(&cfg);
	spin_lock_init(&stuck);
	sim_spawn("holder", holder_fn, NULL, 0, true, 0);
	sim_spawn("taker", taker_fn, NULL, 1, true, 1 * MS);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert(taker_got_it);
	ck_assert_uint_eq(sim_finding_count(), 2);
	f = sim_finding(0);
	ck_assert_int_eq(f->kind, SIM_F_HUNG);
	ck_assert_int_eq(f->cpu, 0);
	has(f->msg, "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [holder:1]\n"
		    "holder has run on cpu0 without scheduling since 0.000001 s");
	ck_assert_uint_eq(f->time, 24 * SEC);
	f = sim_finding(1);
	ck_assert_int_eq(f->kind, SIM_F_HUNG);
	has(f->msg, "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [taker:2]\n"
		    "taker spins in spinlock on ");
	has(f->msg, "held by holder (taken in holder_fn at ");
	ck_assert_uint_eq(f->time, 24 * SEC);
}
END_TEST

/*
 * Many short busy-waits that never schedule are one stall: a loop of 1 ms
 * mdelay()s for 30 s under voluntary preemption is reported at 24 s; the
 * same loop with cond_resched() (a point where the watchdog's stopper may
 * run) is not.
 */
static int spinner_fn(void *arg)
{
	for (int i = 0; i < 30000; i++) {
		mdelay(1);
		if (arg)
			cond_resched();
	}
	return 0;
}

START_TEST(soft_lockup_over_many_short_waits)
{
	const struct sim_finding *f;

	h_init(1);
	sim_spawn("loop", spinner_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_HUNG);
	ck_assert_ptr_nonnull(f);
	has(f->msg, "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [loop:1]");
	ck_assert_uint_eq(f->time, 24 * SEC);
	sim_fini();

	h_init(1);
	sim_spawn("loop", spinner_fn, (void *)1, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/*
 * The watchdog keeps one check pending per CPU, not one per busy-wait: a
 * loop that waits and reaches a preemptible point every round (a polling
 * work) would otherwise hold an event per round for the 24 s ahead.
 */
static size_t most_events;

static int poller_fn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		udelay(10);
		cond_resched();
		if (sim.nheap > most_events)
			most_events = sim.nheap;
	}
	return 0;
}

START_TEST(soft_lockup_checks_stay_few)
{
	h_init(1);
	most_events = 0;
	sim_spawn("poll", poller_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert_uint_le(most_events, 4);
}
END_TEST

/* 4.9's detector printed "NMI watchdog: " before it (kernel/watchdog.c's pr_fmt). */
START_TEST(soft_lockup_in_the_words_of_4_9)
{
	struct sim_config cfg = h_config(2);

	cfg.era = SIM_ERA(4, 9);
	h_init_cfg(&cfg);
	spin_lock_init(&stuck);
	sim_spawn("holder", holder_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 1);
	has(sim_finding(0)->msg, "NMI watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [holder:1]");
}
END_TEST

/* --- printk --------------------------------------------------------------------------------- */

static int print_fn(void *arg)
{
	(void)arg;
	pr_info("worker %d ready\n", 3);
	pr_err("bad thing: %s", "x");
	printk("no level\n");
	pr_debug("compiled out %d\n", 1);
	printk(KERN_WARNING "warned\n");
	return 0;
}

START_TEST(printk_records_with_levels)
{
	const struct sim_rec *r[8];
	size_t n = 0;

	h_init(1);
	sim_spawn("printer", print_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_trace_count(REC_PRINTK), 4);
	for (size_t i = 0; i < sim_trace_count() && n < 8; i++)
		if (sim_trace_records()[i].type == REC_PRINTK)
			r[n++] = &sim_trace_records()[i];
	ck_assert_uint_eq(r[0]->a, 6);
	ck_assert_str_eq(r[0]->s, "worker 3 ready");
	ck_assert_uint_eq(r[1]->a, 3);
	ck_assert_str_eq(r[1]->s, "bad thing: x");
	ck_assert_uint_eq(r[2]->a, 4);
	ck_assert_str_eq(r[2]->s, "no level");
	ck_assert_uint_eq(r[3]->a, 4);
	ck_assert_str_eq(r[3]->s, "warned");
	ck_assert_str_eq(r[0]->comm, "printer");
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("oracle");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, warn_on_reports_where_and_what);
	tcase_add_test(tc, warn_on_once_per_site_per_run);
	tcase_add_test(tc, warn_formats_its_message);
	tcase_add_test(tc, warn_names_unprefixed_functions);
	tcase_add_test(tc, findings_name_irq_contexts);
	tcase_add_test(tc, findings_carry_the_decision_index);
	tcase_add_test(tc, bug_on_ends_the_run);
	tcase_add_test(tc, might_sleep_with_preemption_off);
	tcase_add_test(tc, might_sleep_with_irqs_off);
	tcase_add_test(tc, might_sleep_not_running);
	tcase_add_test(tc, might_sleep_once_per_site);
	tcase_add_test(tc, might_sleep_rate_limited_as_dmesg);
	tcase_add_test(tc, might_sleep_in_the_words_of_4_9);
	tcase_add_test(tc, hung_task_after_the_timeout_only);
	tcase_add_test(tc, soft_lockup_on_a_long_held_lock);
	tcase_add_test(tc, soft_lockup_over_many_short_waits);
	tcase_add_test(tc, soft_lockup_checks_stay_few);
	tcase_add_test(tc, soft_lockup_in_the_words_of_4_9);
	tcase_add_test(tc, printk_records_with_levels);
	tcase_add_test(tc, bug_without_a_site_names_the_function);
	tcase_add_test(tc, site_at_is_one_per_place);
	tcase_add_test(tc, raised_text_is_cut_and_fresh);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
