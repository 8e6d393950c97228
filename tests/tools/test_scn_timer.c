/*
 * Pins the scenario language's timers (timer T = fn; mod_timer, del_timer,
 * del_timer_sync, timer_pending(T)), on every model variant of our own:
 *  - the callback runs in the timer softirq of the arming CPU, on the jiffy
 *    the wheel gives: never before the expiry, at most a granule of its
 *    level after it, and on the same jiffy as a delayed work armed with the
 *    same delay at the same time (one wheel for both); the trace's
 *    timer_start and timer_expire_entry name the fn;
 *  - mod_timer's and del_timer's results: whether the timer was pending;
 *  - del_timer_sync() waits for a callback running on another CPU, where
 *    del_timer() does not; from the callback itself it spins for good;
 *  - a callback is atomic: sleeping in it is a might_sleep finding;
 *  - a callback that queues a work: the work runs on its worker;
 *  - a timer armed when the run ends is pending in the final state, and
 *    the next run of the parse starts clean.
 */
#include <model.h>
#include <scenario/scn.h>

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernels[] = { "v4.9", "mainline" };

static struct scn *parse(const char *text)
{
	struct scn *s = scn_parse("timer.kws", text, strlen(text), stderr);

	ck_assert_msg(s != NULL, "does not parse:\n%s", text);
	return s;
}

/* One run with the trace kept; the machine is left as it ended, for its records. */
static void run_on(const struct scn *s, const char *kernel, struct scn_run *run)
{
	static struct sim_config cfg;
	const struct kw_model *m = kw_model_find(kernel);

	ck_assert_ptr_nonnull(m);
	cfg = s->cfg;
	cfg.keep_trace = true;
	memset(run, 0, sizeof(*run));
	run->config = &cfg;
	ck_assert_int_eq(scn_run(s, m, run, stderr), 0);
}

static long counter(const struct scn *s, const struct scn_run *run, const char *name)
{
	for (int i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i]->name, name))
			return run->objs[i].count;
	ck_abort_msg("no object %s", name);
	return 0;
}

/* Register r of program P0's, by name ("r3"). */
static long reg(const struct scn *s, const struct scn_run *run, int prog, const char *name)
{
	for (int i = 0; i < s->progs[prog]->nregs; i++)
		if (!strcmp(s->progs[prog]->regnames[i], name)) {
			ck_assert(run->progs[prog].regset[i]);
			return run->progs[prog].regs[i];
		}
	ck_abort_msg("no register %s in %s", name, s->progs[prog]->name);
	return 0;
}

static size_t findings_of(const struct scn_run *run, enum sim_finding_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < run->nfindings; i++)
		n += run->findings[i].kind == kind;
	return n;
}

/* The first record of a type whose function is fn, or NULL. */
static const struct sim_rec *record(enum sim_rec_type type, const char *fn)
{
	const struct sim_rec *r = sim_trace_records();

	for (size_t i = 0; i < sim_trace_count(); i++)
		if (r[i].type == type && r[i].s && !strcmp(r[i].s, fn))
			return &r[i];
	return NULL;
}

/* Records of a type about one object (their a). */
static size_t records_of(enum sim_rec_type type, uint64_t a)
{
	const struct sim_rec *r = sim_trace_records();
	size_t n = 0;

	for (size_t i = 0; i < sim_trace_count(); i++)
		n += r[i].type == type && r[i].a == a;
	return n;
}

/* A model tracepoint's first record of event for the function fn, or NULL. */
static const struct sim_rec *model_record(const char *event, const char *fn)
{
	const struct sim_rec *r = sim_trace_records();

	for (size_t i = 0; i < sim_trace_count(); i++)
		if (r[i].type == REC_MODEL && !strcmp(r[i].s, event) && r[i].s2 &&
		    !strcmp(r[i].s2, fn))
			return &r[i];
	return NULL;
}

/* --- the jiffy a callback runs on --------------------------------------------------------- */

/* Delays on three levels of the wheel (HZ=250: granules of 1, 8 and 64 jiffies). */
static const struct {
	long delay, granule;
} delays[] = { { 1, 1 }, { 5, 1 }, { 100, 8 }, { 1000, 64 } };

START_TEST(callback_on_the_wheels_jiffy)
{
	const char *kernel = kernels[_i % 2];
	long delay = delays[_i / 2].delay, granule = delays[_i / 2].granule;
	char text[1024];
	struct scn_run run;
	const struct sim_rec *start, *entry;
	struct scn *s;
	long r0, jt, jd;

	snprintf(text, sizeof(text),
		 "KW expiry\n{\n  cpus = 2; hz = 250;\n  int jt = 0; int jd = 0; int cpu = 0;\n"
		 "  fn tick { jt = jiffies; }\n  fn dw { jd = jiffies; }\n"
		 "  worker W = kthread_create_worker(0, \"kw\");\n"
		 "  delayed_work D = dw;\n  timer T = tick;\n}\n"
		 "P0 @cpu1 {\n  r0 = jiffies;\n  r1 = mod_timer(T, r0 + %ld);\n"
		 "  kthread_queue_delayed_work(W, D, %ld);\n  msleep(%ld);\n"
		 "  kthread_destroy_worker(W);\n}\n"
		 "forall (r1 == false /\\ ran(tick) == 1 /\\ ran(dw) == 1 /\\ ~warn)\n",
		 delay, delay, (delay + granule + 2) * 4);
	s = parse(text);
	run_on(s, kernel, &run);
	ck_assert_msg(run.cond_holds, "%s, delay %ld", kernel, delay);
	r0 = reg(s, &run, 0, "r0");
	jt = counter(s, &run, "jt");
	jd = counter(s, &run, "jd");
	/* never early, late by at most the granule of the delay's level */
	ck_assert_int_ge(jt - r0, delay);
	ck_assert_int_le(jt - r0, delay + granule);
	/* one wheel: the delayed work's timer, armed alike, fires on that jiffy too */
	ck_assert_int_eq(jt, jd);
	/* traced as a timer named by its fn, armed for the absolute expiry */
	start = record(REC_TIMER_START, "tick");
	ck_assert_ptr_nonnull(start);
	ck_assert_uint_eq(start->b, (uint64_t)(r0 + delay));
	ck_assert_uint_eq(start->cpu, 1);
	entry = record(REC_TIMER_EXPIRE_ENTRY, "tick");
	ck_assert_ptr_nonnull(entry);
	ck_assert_uint_eq(entry->a, start->a);
	/* in the timer softirq of the CPU that armed it */
	ck_assert_uint_eq(entry->cpu, 1);
	ck_assert(entry->flags & TRACE_FLAG_SOFTIRQ);
	ck_assert_uint_eq(entry->b, (uint64_t)jt);
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

/* --- results ------------------------------------------------------------------------------ */

START_TEST(mod_and_del_say_whether_pending)
{
	const char *kernel = kernels[_i];
	struct scn *s = parse(
		"KW results\n{\n  int n = 0;\n  fn tick { n++; }\n  timer T = tick;\n}\n"
		"P0 @cpu0 {\n"
		"  r0 = del_timer(T);\n"
		"  r1 = mod_timer(T, jiffies + 10);\n"
		"  r2 = mod_timer(T, jiffies + 20);\n"
		"  r3 = del_timer(T);\n"
		"  r4 = del_timer(T);\n"
		"  r5 = mod_timer(T, jiffies + 1);\n"
		"  msleep(20);\n"
		"  r6 = n;\n"
		"  r7 = mod_timer(T, jiffies + 1);\n"
		"  r8 = del_timer_sync(T);\n"
		"  r9 = del_timer_sync(T);\n"
		"  msleep(20);\n"
		"}\n"
		"never (n > 1)\n"
		"forall (~timer_pending(T))\n");
	static const long want[] = { 0, 0, 1, 1, 0, 0, 1, 0, 1, 0 };
	struct scn_run run;
	char name[16];

	run_on(s, kernel, &run);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		ck_assert_msg(reg(s, &run, 0, name) == want[i], "%s: %s is %ld, want %ld", kernel,
			      name, reg(s, &run, 0, name), want[i]);
	}
	ck_assert_int_eq(counter(s, &run, "n"), 1);
	ck_assert(run.cond_holds);
	ck_assert_uint_eq(run.nfindings, 0);
	/* T's timer_cancel: moved while pending (r2), deleted (r3, r8), and as it expired */
	ck_assert_uint_eq(records_of(REC_TIMER_CANCEL, record(REC_TIMER_START, "tick")->a), 4);
	ck_assert_uint_eq(records_of(REC_TIMER_START, record(REC_TIMER_START, "tick")->a), 4);
	ck_assert_uint_eq(records_of(REC_TIMER_EXPIRE_ENTRY,
				     record(REC_TIMER_START, "tick")->a), 1);
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

/* --- del_timer_sync waits for a running callback; del_timer does not --------------------- */

static const char *const waiting =
	"KW wait\n{\n  cpus = 2; hz = 250;\n  int done = 0;\n"
	"  fn tick { mdelay(5); done = 1; }\n  timer T = tick;\n}\n"
	"P0 @cpu0 { mod_timer(T, jiffies + 1); }\n"
	"P1 @cpu1 at 9ms {\n  r0 = jiffies;\n  r1 = %s(T);\n  r2 = done;\n  r3 = jiffies;\n}\n"
	"exists (true)\n";

START_TEST(del_timer_sync_waits_for_the_callback)
{
	const char *kernel = kernels[_i];
	char text[512];
	struct scn_run run;
	struct scn *s;

	/* the callback runs from 8 ms to 13 ms on cpu0; P1 deletes at 9 ms on cpu1 */
	snprintf(text, sizeof(text), waiting, "del_timer_sync");
	s = parse(text);
	run_on(s, kernel, &run);
	ck_assert_int_eq(reg(s, &run, 1, "r1"), 0);	/* not pending: it runs */
	ck_assert_int_eq(reg(s, &run, 1, "r2"), 1);	/* and has finished */
	ck_assert_int_ge(reg(s, &run, 1, "r3") - reg(s, &run, 1, "r0"), 1);
	ck_assert_uint_eq(run.nfindings, 0);
	scn_run_free(&run);
	scn_free(s);

	snprintf(text, sizeof(text), waiting, "del_timer");
	s = parse(text);
	run_on(s, kernel, &run);
	ck_assert_int_eq(reg(s, &run, 1, "r1"), 0);
	ck_assert_int_eq(reg(s, &run, 1, "r2"), 0);	/* still running */
	ck_assert_int_eq(reg(s, &run, 1, "r3"), reg(s, &run, 1, "r0"));
	ck_assert_int_eq(counter(s, &run, "done"), 1);
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

/* From its own callback, del_timer_sync() waits for itself: the CPU spins for good. */
START_TEST(del_timer_sync_from_its_callback_spins)
{
	const char *kernel = kernels[_i];
	struct scn *s = parse("KW self\n{\n  cpus = 2;\n  fn tick { del_timer_sync(T); }\n"
			      "  timer T = tick;\n}\n"
			      "P0 @cpu0 { mod_timer(T, jiffies + 1); }\n");
	struct scn_run run;

	run_on(s, kernel, &run);
	ck_assert_int_eq(run.end, SIM_END_DEADLOCK);
	ck_assert_uint_eq(findings_of(&run, SIM_F_DEADLOCK), 1);
	ck_assert_ptr_nonnull(strstr(run.findings[run.nfindings - 1].msg,
				     "softirq spins in del_timer_sync on T"));
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

/* --- context ------------------------------------------------------------------------------ */

START_TEST(sleeping_in_a_callback_is_might_sleep)
{
	const char *kernel = kernels[_i];
	struct scn *s = parse("KW sleepy\n{\n  cpus = 2;\n  fn tick { msleep(1); }\n"
			      "  timer T = tick;\n}\n"
			      "P0 @cpu1 { mod_timer(T, jiffies + 1); msleep(100); }\n"
			      "exists (might_sleep == 1)\n");
	struct scn_run run;
	const struct sim_finding *f = NULL;

	run_on(s, kernel, &run);
	ck_assert(run.cond_holds);
	for (size_t i = 0; i < run.nfindings && !f; i++)
		if (run.findings[i].kind == SIM_F_MIGHT_SLEEP)
			f = &run.findings[i];
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->context, "softirq");
	ck_assert_int_eq(f->cpu, 1);
	ck_assert_str_eq(f->site.func, "msleep");
	ck_assert_int_eq(f->site.line, 4);
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

START_TEST(callback_queues_a_work)
{
	const char *kernel = kernels[_i];
	static const char regs[] = "KW x\n{\n  fn tick { r0 = 1; }\n  timer T = tick;\n}\nP0 { }\n";
	struct scn_run run;
	struct scn *s;

	/* registers belong to programs: not to a callback either */
	ck_assert_ptr_null(scn_parse("x.kws", regs, strlen(regs), stderr));
	s = parse("KW feed\n{\n  cpus = 2;\n  int n = 0;\n  fn f { n++; }\n"
		  "  fn tick { kthread_queue_work(W, A); }\n"
		  "  worker W = kthread_create_worker_on_cpu(1, 0, \"kw/1\");\n"
		  "  work A = f;\n  timer T = tick;\n}\n"
		  "P0 @cpu0 {\n  r0 = mod_timer(T, jiffies + 2);\n  msleep(30);\n"
		  "  r1 = n;\n  kthread_destroy_worker(W);\n}\n"
		  "forall (r0 == false /\\ r1 == 1 /\\ ran(tick) == 1 /\\ ran(T) == 1 /\\ "
		  "before(tick, f) /\\ ~warn /\\ ~leak)\n");
	run_on(s, kernel, &run);
	ck_assert(run.cond_holds);
	ck_assert_uint_eq(run.nfindings, 0);
	/* queued from cpu0's softirq, run by the worker's thread on cpu1 */
	ck_assert_uint_eq(record(REC_TIMER_EXPIRE_ENTRY, "tick")->cpu, 0);
	/* (4.9 had no kthread_work tracepoints: they came with 5.12) */
	if (strcmp(kernel, "v4.9")) {
		const struct sim_rec *q = model_record("sched_kthread_work_queue_work", "f");
		const struct sim_rec *x = model_record("sched_kthread_work_execute_start", "f");

		ck_assert_ptr_nonnull(q);
		ck_assert_ptr_nonnull(x);
		ck_assert_uint_eq(q->cpu, 0);
		ck_assert(q->flags & TRACE_FLAG_SOFTIRQ);
		ck_assert_uint_eq(x->cpu, 1);
	}
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

/*
 * A timer still armed when the run ends (at its time limit), as a delayed
 * work's timer is: the final state says pending, and the next run of the
 * same parse, on the machine reset, starts clean (the run freed the timer
 * that the machine's list still held: the sanitizer build would see a touch).
 */
START_TEST(armed_at_the_end)
{
	const char *kernel = kernels[_i];
	struct scn *s = parse("KW armed\n{\n  time_limit = 1s;\n  fn tick { }\n  fn f { }\n"
			      "  worker W = kthread_create_worker(0, \"kw\");\n"
			      "  delayed_work D = f;\n  timer T = tick;\n}\n"
			      "P0 @cpu0 {\n  r0 = mod_timer(T, jiffies + 1000);\n"
			      "  r1 = kthread_queue_delayed_work(W, D, 1000);\n}\n"
			      "forall (timer_pending(T) /\\ timer_pending(D) /\\ ran(tick) == 0)\n");
	struct scn_run run;

	for (int i = 0; i < 2; i++) {
		run_on(s, kernel, &run);
		ck_assert_int_eq(run.end, SIM_END_TIME_LIMIT);
		ck_assert(run.cond_holds);
		ck_assert_int_eq(reg(s, &run, 0, "r0"), 0);
		scn_run_free(&run);
	}
	scn_free(s);
}
END_TEST

static Suite *timer_suite(void)
{
	Suite *su = suite_create("scn_timer");
	TCase *tc = tcase_create("timers");
	int nk = (int)(sizeof(kernels) / sizeof(kernels[0]));

	tcase_add_loop_test(tc, callback_on_the_wheels_jiffy, 0,
			    nk * (int)(sizeof(delays) / sizeof(delays[0])));
	tcase_add_loop_test(tc, mod_and_del_say_whether_pending, 0, nk);
	tcase_add_loop_test(tc, del_timer_sync_waits_for_the_callback, 0, nk);
	tcase_add_loop_test(tc, del_timer_sync_from_its_callback_spins, 0, nk);
	tcase_add_loop_test(tc, sleeping_in_a_callback_is_might_sleep, 0, nk);
	tcase_add_loop_test(tc, callback_queues_a_work, 0, nk);
	tcase_add_loop_test(tc, armed_at_the_end, 0, nk);
	suite_add_tcase(su, tc);
	return su;
}

H_MAIN(timer_suite)
