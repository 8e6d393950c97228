/*
 * Every WARN_ON / WARN_ON_ONCE of the two kthread_worker sources, reached by
 * a deliberate misuse, for every variant: the finding is a SIM_F_WARN that
 * names the kernel function and carries the condition's text as written in
 * the source. Where a misuse goes on to do more damage (a lockdep splat, a
 * use-after-free), that is pinned as well, since the kernel's code would do
 * the same. WARN_ON_ONCE is once per run (every machine is a new boot).
 *
 * The sites, in source order:
 *   kthread_worker_fn                 WARN_ON(worker->task && worker->task != current)
 *   kthread_insert_work_sanity_check  WARN_ON_ONCE(!list_empty(&work->node))
 *                                     WARN_ON_ONCE(work->worker && work->worker != worker)
 *   kthread_delayed_work_timer_fn     WARN_ON_ONCE(!worker)
 *                                     WARN_ON_ONCE(work->worker != worker)
 *                                     WARN_ON_ONCE(list_empty(&work->node))
 *   __kthread_queue_delayed_work      WARN_ON_ONCE(timer->function != kthread_delayed_work_timer_fn
 *                                                  [4.9: || timer->data != (unsigned long)dwork])
 *   kthread_flush_work                WARN_ON_ONCE(work->worker != worker)
 *   kthread_mod_delayed_work          WARN_ON_ONCE(work->worker != worker)
 *   __kthread_cancel_work_sync        WARN_ON_ONCE(work->worker != worker)
 *   kthread_destroy_worker            WARN_ON(!task)
 *                                     WARN_ON(!list_empty(&worker->delayed_work_list))  mainline
 *                                     WARN_ON(!list_empty(&worker->work_list))
 */
#include "model_harness.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include <string.h>

#define NW 4

static struct kthread_worker *W1, *W2;
static struct kthread_work *w[NW];
static struct kthread_delayed_work *dw[NW];
static int runs[NW], druns[NW];
static struct kthread_worker *ran_on[NW];
static struct sim_config cfg;

static int id_of(struct kthread_work *work)
{
	for (int i = 0; i < NW; i++) {
		if (w[i] == work)
			return i;
		if (dw[i] && M->dwork_work(dw[i]) == work)
			return 100 + i;
	}
	return -1;
}

/* Which worker ran it: the one whose thread is running it. */
static struct kthread_worker *running_worker(void)
{
	if (W1 && M->worker_task(W1) == current)
		return W1;
	if (W2 && M->worker_task(W2) == current)
		return W2;
	return NULL;
}

static void record_fn(struct kthread_work *work)
{
	int id = id_of(work);

	if (id >= 100) {
		druns[id - 100]++;
	} else if (id >= 0) {
		runs[id]++;
		ran_on[id] = running_worker();
	}
}

static void setup_cfg(int variant)
{
	cfg.era = kw_model_get((size_t)variant)->era;	/* the machine of the variant's era */
	h_init_cfg(&cfg);
	m_use(variant);
	m_reset_checks();
	memset(runs, 0, sizeof(runs));
	memset(druns, 0, sizeof(druns));
	memset(ran_on, 0, sizeof(ran_on));
	for (int i = 0; i < NW; i++) {
		w[i] = m_work(record_fn);
		dw[i] = m_dwork(record_fn);
	}
	W1 = W2 = NULL;
}

static void setup(int ncpus, int variant)
{
	cfg = h_config(ncpus);
	setup_cfg(variant);
}

static void run_to(enum sim_end want)
{
	enum sim_end end = h_run();

	m_assert_checks(M->name);
	if (end != want)
		h_dump_findings();
	ck_assert_msg(end == want, "%s: ended %s, not %s", M->name, sim_end_name(end),
		      sim_end_name(want));
}

/* Exactly these many findings in all, and of them exactly 'warns' WARNs. */
static void expect_counts(size_t total, size_t warns)
{
	if (sim_finding_count() != total || h_count(SIM_F_WARN) != warns)
		h_dump_findings();
	ck_assert_msg(sim_finding_count() == total, "%s: %zu findings, expected %zu", M->name,
		      sim_finding_count(), total);
	ck_assert_msg(h_count(SIM_F_WARN) == warns, "%s: %zu WARNs, expected %zu", M->name,
		      h_count(SIM_F_WARN), warns);
}

/* Findings of a kind whose message carries 'text'. */
static size_t finding_count(enum sim_finding_kind kind, const char *text)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_finding_count(); i++)
		n += sim_finding(i)->kind == kind && strstr(sim_finding(i)->msg, text);
	return n;
}

static void expect_warn(const char *func, const char *cond)
{
	size_t n = m_warn_count(func, cond);

	if (n != 1)
		h_dump_findings();
	ck_assert_msg(n == 1, "%s: %zu times '%s' in %s, expected once", M->name, n, cond, func);
}

/*
 * Initialising a work that is on the delayed list leaves the list's head
 * pointing at it: mainline's destroy sees a delayed list that is not empty.
 */
static void expect_destroy_delayed_warn(bool mainline)
{
	if (mainline)
		expect_warn("kthread_destroy_worker",
			    "WARN_ON(!list_empty(&worker->delayed_work_list))");
}

#define TIMER_FN	"kthread_delayed_work_timer_fn"
#define SANITY_FN	"kthread_insert_work_sanity_check"
#define OTHER_WORKER	"WARN_ON_ONCE(work->worker != worker)"
#define SANITY_WORKER	"WARN_ON_ONCE(work->worker && work->worker != worker)"
#define SANITY_NODE	"WARN_ON_ONCE(!list_empty(&work->node))"

/* The text of __kthread_queue_delayed_work()'s check, which differs (model/README.md item 2). */
static const char *timer_check_text(void)
{
	return m_is("v4.9") ?
		"WARN_ON_ONCE(timer->function != kthread_delayed_work_timer_fn || "
		"timer->data != (unsigned long)dwork)" :
		"WARN_ON_ONCE(timer->function != kthread_delayed_work_timer_fn)";
}

/*
 * The delayed work's timer. The variants' structures are opaque to tests,
 * but both end struct kthread_delayed_work with the timer right after the
 * work, so it sits at the end of the object.
 */
static struct timer_list *dwork_timer(struct kthread_delayed_work *d)
{
	ck_assert_uint_eq(M->dwork_size - sizeof(struct timer_list), M->work_size);
	return (struct timer_list *)((char *)d + M->dwork_size - sizeof(struct timer_list));
}

/* --- kthread_worker_fn: a second thread on a worker that has one ----------------------- */

static struct task_struct *dup_task, *orig_task, *task_after_dup;

static int second_thread_main(void *arg)
{
	W1 = M->create_worker(-1, 0, "kw");
	orig_task = M->worker_task(W1);
	dup_task = kthread_run(M->worker_fn, W1, "dup");
	msleep(5);
	task_after_dup = M->worker_task(W1);
	/* both threads serve the worker now; each clears worker->task as it stops */
	M_CHECK(M->queue_work(W1, w[0]));
	M->flush_worker(W1);
	kthread_stop(dup_task);
	kthread_stop(orig_task);
	M_CHECK(M->worker_task(W1) == NULL);
	kfree(W1);
	return 0;
}

START_TEST(worker_fn_on_worker_with_task)
{
	setup(1, _i);
	sim_spawn("P0", second_thread_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_counts(1, 1);
	expect_warn("kthread_worker_fn", "WARN_ON(worker->task && worker->task != current)");
	ck_assert_str_eq(h_first(SIM_F_WARN)->context, "dup");
	/* the late thread took the worker over, as the kernel's assignment does */
	ck_assert_ptr_eq(task_after_dup, dup_task);
	ck_assert_int_eq(runs[0], 1);
}
END_TEST

/* --- one work on two workers ------------------------------------------------------------ */

static bool queue_ret[4];

static int two_workers_main(void *arg)
{
	bool delayed = (bool)(long)arg;

	W1 = M->create_worker(-1, 0, "kw1");
	W2 = M->create_worker(-1, 0, "kw2");
	if (!delayed) {
		M_CHECK(M->queue_work(W1, w[0]));
		M->flush_worker(W1);
		/* idle, but it belongs to W1 until initialised again */
		queue_ret[0] = M->queue_work(W2, w[0]);
		M->flush_worker(W2);
	} else {
		M_CHECK(M->queue_delayed_work(W1, dw[0], 1));
		msleep(20);
		/* __kthread_queue_delayed_work() calls the sanity check itself */
		queue_ret[0] = M->queue_delayed_work(W2, dw[0], 1);
		msleep(20);
	}
	M->destroy_worker(W1);
	M->destroy_worker(W2);
	return 0;
}

START_TEST(queue_on_second_worker)
{
	int n = (int)kw_model_count();
	bool delayed = _i / n;

	setup(2, _i % n);
	sim_spawn("P0", two_workers_main, (void *)(long)delayed, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_counts(1, 1);
	expect_warn(SANITY_FN, SANITY_WORKER);
	/* queued all the same, and run by the second worker */
	ck_assert(queue_ret[0]);
	if (delayed) {
		ck_assert_int_eq(druns[0], 2);
	} else {
		ck_assert_int_eq(runs[0], 2);
		ck_assert_ptr_eq(ran_on[0], W2);
	}
}
END_TEST

/*
 * flush_work() and cancel_work_sync() read work->worker without the lock
 * and check it again under the lock of the worker they read. A queue of the
 * same work on another worker in that window (another CPU, racing) trips
 * the check. The window is one lock acquisition wide, so the race is
 * explored over seeds; the racer polls a flag raised just before the call,
 * to be in the window often. Every run also trips the sanity check's
 * cross-worker WARN, when the racer queues the work on the second worker.
 */
static volatile int racer_go;
static bool racer_queued;

static int racer_main(void *arg)
{
	/* poll in steps of 10 ns, a little shorter than a lock acquisition */
	while (!racer_go)
		ndelay(10);
	racer_queued = M->queue_work(W2, w[0]);
	return 0;
}

static int flush_cancel_race_main(void *arg)
{
	bool cancel = (bool)(long)arg;

	W1 = M->create_worker(-1, 0, "kw1");
	W2 = M->create_worker(-1, 0, "kw2");
	M_CHECK(M->queue_work(W1, w[0]));
	M->flush_worker(W1);
	sim_spawn("racer", racer_main, NULL, 1, true, 0);
	msleep(1);
	racer_go = 1;
	if (cancel)
		M->cancel_work_sync(w[0]);
	else
		M->flush_work(w[0]);
	msleep(1);
	M->flush_worker(W1);
	M->flush_worker(W2);
	M->destroy_worker(W1);
	M->destroy_worker(W2);
	return 0;
}

START_TEST(flush_or_cancel_racing_with_second_worker)
{
	int n = (int)kw_model_count();
	bool cancel = _i / n;
	const char *func = cancel ? "__kthread_cancel_work_sync" : "kthread_flush_work";
	uint64_t seed;
	bool found = false;

	for (seed = 1; seed <= 64 && !found; seed++) {
		cfg = m_explore_config(2, SIM_PREEMPT_VOLUNTARY, seed);
		setup_cfg(_i % n);
		racer_go = 0;
		sim_spawn("P0", flush_cancel_race_main, (void *)(long)cancel, 0, true, 0);
		run_to(SIM_END_QUIESCENT);
		ck_assert(racer_queued);
		expect_warn(SANITY_FN, SANITY_WORKER);
		if (m_warn_count(func, OTHER_WORKER)) {
			found = true;
			expect_warn(func, OTHER_WORKER);
			expect_counts(2, 2);
		} else {
			expect_counts(1, 1);
		}
		sim_fini();
	}
	ck_assert_msg(found, "%s: no seed hit the window of %s", M->name, func);
}
END_TEST

/*
 * mod_delayed_work() on a work that belongs to another worker. After the
 * WARN the kernel's code goes on with work->worker, the other worker, while
 * holding the lock of the one passed in: it releases a lock it does not hold,
 * takes the other one and leaves with it held. The other worker here is a
 * legacy one with no thread, so that nothing waits on that lock forever.
 */
static struct kthread_worker *threadless;
static bool mod_ret;

static int mod_other_worker_main(void *arg)
{
	threadless = m_worker_struct();
	M->init_worker(threadless);
	W2 = M->create_worker(-1, 0, "kw2");
	/* dw[0] belongs to the threadless worker: queued there, then cancelled */
	M_CHECK(M->queue_delayed_work(threadless, dw[0], 0));
	M_CHECK(M->cancel_delayed_work_sync(dw[0]));
	mod_ret = M->mod_delayed_work(W2, dw[0], 2);
	msleep(50);
	M->destroy_worker(W2);
	return 0;
}

START_TEST(mod_delayed_work_on_second_worker)
{
	setup(2, _i);
	sim_spawn("P0", mod_other_worker_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn("kthread_mod_delayed_work", OTHER_WORKER);
	expect_warn(SANITY_FN, SANITY_WORKER);
	/*
	 * Lockdep: the unlock of the other worker's lock, which nobody holds;
	 * later, destroy takes W2's lock while P0 still holds the other one,
	 * the inverse of the order mod took them in; and P0 exits holding it.
	 */
	ck_assert_uint_eq(h_count(SIM_F_LOCKDEP), 2);
	ck_assert_uint_eq(finding_count(SIM_F_LOCKDEP, "bad unlock balance"), 1);
	ck_assert_uint_eq(finding_count(SIM_F_LOCKDEP, "circular locking dependency"), 1);
	ck_assert_uint_eq(h_count(SIM_F_ATOMIC_LEAK), 1);
	ck_assert_uint_eq(finding_count(SIM_F_ATOMIC_LEAK, "task exit P0"), 1);
	expect_counts(5, 2);
	/* it was idle: false, and queued on W2, where it ran */
	ck_assert(!mod_ret);
	ck_assert_int_eq(druns[0], 1);
}
END_TEST

/* --- the timer callback ----------------------------------------------------------------- */

/* The known misuse: initialising a delayed work again while its timer is armed. */
static int reinit_armed_main(void *arg)
{
	W1 = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W1, dw[0], 5));
	M->init_delayed_work(dw[0], record_fn);
	msleep(50);
	M_CHECK(!M->work_pending(M->dwork_work(dw[0])));
	/* the old node is still linked on the delayed list */
	M->destroy_worker(W1);
	return 0;
}

/*
 * Without CONFIG_DEBUG_OBJECTS_TIMERS (the default): no report at the init,
 * the timer stays in the wheel and its callback warns.
 */
START_TEST(reinit_armed_delayed_work)
{
	bool mainline;

	setup(2, _i);
	mainline = m_is("mainline");
	sim_spawn("P0", reinit_armed_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn(TIMER_FN, "WARN_ON_ONCE(!worker)");
	ck_assert_uint_eq(m_warn_count("debug_print_object", "ODEBUG: init active"), 0);
	expect_destroy_delayed_warn(mainline);
	expect_counts(1 + mainline, 1 + mainline);
	ck_assert_int_eq(druns[0], 0);
}
END_TEST

/*
 * With it: the ODEBUG report, and timer_fixup_init() deletes the timer, so
 * the callback never runs and never warns. No kernel shows both.
 */
START_TEST(reinit_armed_delayed_work_debug_objects)
{
	bool mainline;

	cfg = h_config(2);
	cfg.debug_objects = 1;
	setup_cfg(_i);
	mainline = m_is("mainline");
	sim_spawn("P0", reinit_armed_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	ck_assert_uint_eq(m_warn_count(TIMER_FN, "WARN_ON_ONCE(!worker)"), 0);
	ck_assert_uint_eq(m_warn_count("debug_print_object", "ODEBUG: init active"), 1);
	ck_assert_uint_eq(m_warn_count("debug_print_object", mainline ?
		"object: " : "(active state 0) object type: timer_list"), 1);
	expect_destroy_delayed_warn(mainline);
	expect_counts(1 + mainline, 1 + mainline);
	ck_assert_int_eq(druns[0], 0);
}
END_TEST

/*
 * The work of an armed delayed work initialised again (kthread_init_work()
 * on dwork->work, the timer left alone), queued and run: when the old timer
 * fires, the work is on no list.
 */
static int reinit_work_part_main(void *arg)
{
	struct kthread_work *work = M->dwork_work(dw[0]);

	W1 = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W1, dw[0], 10));
	M->init_work(work, record_fn);
	M_CHECK(M->queue_work(W1, work));
	M->flush_work(work);
	M_CHECK_INT(druns[0], ==, 1);
	msleep(100);
	M->flush_worker(W1);
	M->destroy_worker(W1);
	return 0;
}

START_TEST(timer_fires_for_work_on_no_list)
{
	bool mainline;

	setup(2, _i);
	mainline = m_is("mainline");
	sim_spawn("P0", reinit_work_part_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn(TIMER_FN, "WARN_ON_ONCE(list_empty(&work->node))");
	expect_destroy_delayed_warn(mainline);
	expect_counts(1 + mainline, 1 + mainline);
	/* the callback went on and queued it: it ran a second time */
	ck_assert_int_eq(druns[0], 2);
}
END_TEST

/*
 * The timer callback reads work->worker before taking its lock. A work
 * initialised again in that window (another CPU) has no worker and no node
 * when the callback looks again: both checks fire. The re-initialising
 * thread watches the trace for the callback's entry; the callback's first
 * scheduling point is the lock, so it is still in the window then.
 */
static volatile int reinit_done;

static int reinit_in_callback_watcher(void *arg)
{
	size_t seen = 0;

	for (;;) {
		size_t n = sim_trace_count();

		for (; seen < n; seen++) {
			const struct sim_rec *r = &sim_trace_records()[seen];

			if (r->type == REC_TIMER_EXPIRE_ENTRY && r->s && !strcmp(r->s, TIMER_FN)) {
				M->init_work(M->dwork_work(dw[0]), record_fn);
				reinit_done = 1;
				return 0;
			}
		}
		ndelay(10);
	}
}

static int reinit_in_callback_main(void *arg)
{
	W1 = M->create_worker(-1, 0, "kw");
	sim_spawn("watcher", reinit_in_callback_watcher, NULL, 1, true, 0);
	M_CHECK(M->queue_delayed_work(W1, dw[0], 2));
	msleep(100);
	M_CHECK(reinit_done);
	M->flush_worker(W1);
	M->destroy_worker(W1);
	return 0;
}

START_TEST(reinit_while_timer_callback_runs)
{
	bool mainline;

	cfg = h_config(2);
	/* should the re-init land on the run list, the worker would loop */
	cfg.time_limit_ns = 5000 * NSEC_PER_MSEC;
	setup_cfg(_i);
	mainline = m_is("mainline");
	sim_spawn("P0", reinit_in_callback_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn(TIMER_FN, OTHER_WORKER);
	expect_warn(TIMER_FN, "WARN_ON_ONCE(list_empty(&work->node))");
	expect_destroy_delayed_warn(mainline);
	expect_counts(2 + mainline, 2 + mainline);
	/* the callback queues it on the worker it read: it runs there once */
	ck_assert_int_eq(druns[0], 1);
}
END_TEST

/* --- __kthread_queue_delayed_work: the timer is not the work's ------------------------ */

static int other_timer_calls;

static void other_timer_fn(struct timer_list *t)
{
	other_timer_calls++;
}

static void other_legacy_timer_fn(unsigned long data)
{
	other_timer_calls++;
}

static bool cancel_ret;

static int timer_check_main(void *arg)
{
	bool fire = (bool)(long)arg;

	W1 = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W1, dw[0], 2));
	/*
	 * A timer with another callback fires it, not the work's: the work
	 * stays on the delayed list. One with no callback at all is taken
	 * back first (the kernel would call NULL).
	 */
	if (fire)
		msleep(50);
	M_CHECK(M->work_pending(M->dwork_work(dw[0])));
	cancel_ret = M->cancel_delayed_work_sync(dw[0]);
	M->destroy_worker(W1);
	return 0;
}

/* How the misused delayed work was set up. */
enum timer_misuse { PLAIN_INIT, OTHER_FUNCTION, OTHER_DATA };

static void foreign_timer(int variant, enum timer_misuse how)
{
	struct timer_list *t;

	setup(2, variant);
	t = dwork_timer(dw[0]);
	switch (how) {
	case PLAIN_INIT:
		/* a delayed work initialised as a plain work: no timer function at all */
		memset(dw[0], 0, M->dwork_size);
		M->init_work(M->dwork_work(dw[0]), record_fn);
		break;
	case OTHER_FUNCTION:
		if (m_is("v4.9"))
			__setup_timer(t, other_legacy_timer_fn, (unsigned long)dw[0],
				      TIMER_IRQSAFE);
		else
			timer_setup(t, other_timer_fn, TIMER_IRQSAFE);
		break;
	case OTHER_DATA:
		/* 4.9's function, another object's data */
		t->data = (unsigned long)dw[1];
		break;
	}
	sim_spawn("P0", timer_check_main, (void *)(long)(how != PLAIN_INIT), 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn("__kthread_queue_delayed_work", timer_check_text());
	if (how == OTHER_DATA) {
		/* 4.9's callback looked at the object named by data, which has no worker */
		expect_warn(TIMER_FN, "WARN_ON_ONCE(!worker)");
		expect_counts(2, 2);
	} else {
		expect_counts(1, 1);
	}
	ck_assert_int_eq(druns[0], 0);
	ck_assert_int_eq(druns[1], 0);
	ck_assert_int_eq(other_timer_calls, how == OTHER_FUNCTION);
	/* still on the delayed list, whether or not its timer fired: cancel finds it pending */
	ck_assert(cancel_ret);
}

START_TEST(queue_delayed_with_foreign_timer)
{
	int n = (int)kw_model_count();

	foreign_timer(_i % n, _i / n ? OTHER_FUNCTION : PLAIN_INIT);
}
END_TEST

/* Only 4.9's timers carry data: the right callback with another object's data. */
START_TEST(queue_delayed_with_foreign_timer_data_v49)
{
	foreign_timer(m_index("v4.9"), OTHER_DATA);
}
END_TEST

/*
 * A delayed work never initialised at all (zeroed): its node is not an
 * empty list, its worker is NULL. mod_delayed_work() takes the "never
 * queued" path and trips both the timer check and the insert sanity check's
 * node check, the one WARN no API sequence reaches otherwise: every other
 * insertion tests the node under the same lock first. queue_*() refuse it
 * silently, as pending.
 */
static bool zero_ret[4];

static int uninitialised_main(void *arg)
{
	struct kthread_delayed_work *zd = m_zalloc(M->dwork_size);

	W1 = M->create_worker(-1, 0, "kw");
	zero_ret[0] = M->queue_delayed_work(W1, zd, 2);
	zero_ret[1] = M->queue_work(W1, M->dwork_work(zd));
	zero_ret[2] = M->mod_delayed_work(W1, zd, 2);
	M_CHECK(M->work_pending(M->dwork_work(zd)));
	/* taken back before its timer, which has no function, would fire */
	zero_ret[3] = M->cancel_delayed_work_sync(zd);
	M_CHECK(!M->work_pending(M->dwork_work(zd)));
	M->destroy_worker(W1);
	return 0;
}

START_TEST(mod_delayed_work_uninitialised)
{
	setup(2, _i);
	sim_spawn("P0", uninitialised_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn("__kthread_queue_delayed_work", timer_check_text());
	expect_warn(SANITY_FN, SANITY_NODE);
	expect_counts(2, 2);
	ck_assert(!zero_ret[0]);
	ck_assert(!zero_ret[1]);
	ck_assert(!zero_ret[2]);
	ck_assert(zero_ret[3]);
}
END_TEST

/* --- kthread_destroy_worker ---------------------------------------------------------------- */

/* A legacy worker whose thread was stopped has no task: destroy refuses. */
static int destroy_stopped_main(void *arg)
{
	struct kthread_worker *lw = m_worker_struct();
	struct task_struct *t;

	M->init_worker(lw);
	t = kthread_run(M->worker_fn, lw, "legacy");
	msleep(1);
	kthread_stop(t);
	M->destroy_worker(lw);		/* returns at the WARN: frees nothing */
	M_CHECK(M->worker_task(lw) == NULL);
	return 0;
}

START_TEST(destroy_worker_without_task)
{
	setup(1, _i);
	sim_spawn("P0", destroy_stopped_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn("kthread_destroy_worker", "WARN_ON(!task)");
	expect_counts(1, 1);
}
END_TEST

/*
 * A work that queues itself again every time it runs is on the list when
 * the thread stops: destroy's flush waits only for what was queued before it.
 */
static struct kthread_worker *self_worker;

static void requeue_fn(struct kthread_work *work)
{
	runs[0]++;
	M->queue_work(self_worker, work);
}

static int destroy_queued_main(void *arg)
{
	W1 = self_worker = M->create_worker(-1, 0, "kw");
	M->init_work(w[0], requeue_fn);
	M_CHECK(M->queue_work(W1, w[0]));
	msleep(1);
	M->destroy_worker(W1);
	M_CHECK(M->work_pending(w[0]));
	return 0;
}

START_TEST(destroy_with_work_queued)
{
	setup(2, _i);
	sim_spawn("P0", destroy_queued_main, NULL, 0, true, 0);
	run_to(SIM_END_QUIESCENT);
	expect_warn("kthread_destroy_worker", "WARN_ON(!list_empty(&worker->work_list))");
	expect_counts(1, 1);
	ck_assert_int_gt(runs[0], 1);
}
END_TEST

/*
 * A delayed work still armed at destroy: mainline warns (model/README.md
 * item 10), v4.9 does not. Either way the timer fires later on the freed
 * worker: the callback's lock is a use-after-free, which stops the machine.
 */
static int destroy_delayed_main(void *arg)
{
	W1 = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W1, dw[0], 10));
	M->destroy_worker(W1);
	msleep(100);
	M_CHECK(0);	/* not reached: the machine stopped at the fault */
	return 0;
}

START_TEST(destroy_with_delayed_work_armed)
{
	bool mainline;

	setup(2, _i);
	mainline = m_is("mainline");
	sim_spawn("P0", destroy_delayed_main, NULL, 0, true, 0);
	run_to(SIM_END_FATAL);
	if (mainline)
		expect_warn("kthread_destroy_worker",
			    "WARN_ON(!list_empty(&worker->delayed_work_list))");
	ck_assert_uint_eq(finding_count(SIM_F_UAF, "__kthread_create_worker"), 1);
	expect_counts(1 + mainline, mainline);
	ck_assert_int_eq(druns[0], 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model_warn");
	TCase *tc = tcase_create("core");
	int n = (int)kw_model_count();

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, worker_fn_on_worker_with_task, 0, n);
	tcase_add_loop_test(tc, queue_on_second_worker, 0, 2 * n);
	tcase_add_loop_test(tc, flush_or_cancel_racing_with_second_worker, 0, 2 * n);
	tcase_add_loop_test(tc, mod_delayed_work_on_second_worker, 0, n);
	tcase_add_loop_test(tc, reinit_armed_delayed_work, 0, n);
	tcase_add_loop_test(tc, reinit_armed_delayed_work_debug_objects, 0, n);
	tcase_add_loop_test(tc, timer_fires_for_work_on_no_list, 0, n);
	tcase_add_loop_test(tc, reinit_while_timer_callback_runs, 0, n);
	tcase_add_loop_test(tc, queue_delayed_with_foreign_timer, 0, 2 * n);
	tcase_add_test(tc, queue_delayed_with_foreign_timer_data_v49);
	tcase_add_loop_test(tc, mod_delayed_work_uninitialised, 0, n);
	tcase_add_loop_test(tc, destroy_worker_without_task, 0, n);
	tcase_add_loop_test(tc, destroy_with_work_queued, 0, n);
	tcase_add_loop_test(tc, destroy_with_delayed_work_armed, 0, n);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
