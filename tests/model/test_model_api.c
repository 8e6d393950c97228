/*
 * The kthread_worker API in plain sequential use, for every variant: what
 * each function returns, the order works run in, when delayed works run
 * (the timer wheel's exact jiffy), what the flush and cancel calls wait for,
 * what mod_delayed_work does to an idle, armed, queued or cancelling work,
 * destroy, kthread_stop racing with queued works, the freezer, CPU binding
 * and the legacy init + kthread_run start. Scenarios are arranged so that
 * their outcome does not depend on scheduling (gates, one CPU, no
 * preemption where a race would otherwise decide), so every expectation is
 * exact.
 */
#include "model_harness.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include <errno.h>
#include <string.h>

#define NW	6
#define MAXLOG	64

/* The scenario's objects and what happened to them. */
static struct kthread_worker *W;
static struct kthread_work *w[NW];
static struct kthread_delayed_work *dw[NW];
static int runs[NW], druns[NW];

struct run {
	int id;			/* i for w[i], 100 + i for dw[i], -1 otherwise */
	unsigned long jif;
	int cpu;
	uint64_t ns;
};
static struct run log_[MAXLOG];
static int nlog;

/* Released by the scenario: a work that waits on it holds the worker. */
static struct completion gate, gate_started;
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

static void rec(struct kthread_work *work)
{
	int id = id_of(work);

	if (id >= 100)
		druns[id - 100]++;
	else if (id >= 0)
		runs[id]++;
	if (nlog < MAXLOG)
		log_[nlog++] = (struct run){ id, jiffies, smp_processor_id(), sim_now() };
}

static void record_fn(struct kthread_work *work)
{
	rec(work);
}

/* The first run holds the worker until the gate opens; later runs do not. */
static void gate_fn(struct kthread_work *work)
{
	int id = id_of(work);
	bool first = id >= 100 ? !druns[id - 100] : !runs[id];

	if (first) {
		complete(&gate_started);
		wait_for_completion(&gate);
	}
	rec(work);
}

static void setup(int ncpus, enum sim_preempt preempt, int variant)
{
	cfg = h_config(ncpus);
	cfg.preempt = preempt;
	cfg.era = kw_model_get((size_t)variant)->era;	/* the machine of the variant's era */
	h_init_cfg(&cfg);
	m_use(variant);
	m_reset_checks();
	init_completion(&gate);
	init_completion(&gate_started);
	nlog = 0;
	memset(runs, 0, sizeof(runs));
	memset(druns, 0, sizeof(druns));
	for (int i = 0; i < NW; i++) {
		w[i] = m_work(i == 0 ? gate_fn : record_fn);
		dw[i] = m_dwork(record_fn);
	}
	W = NULL;
}

/* Run to the end: quiescent, no failed check, no finding. */
static void run_clean(void)
{
	enum sim_end end = h_run();

	m_assert_checks(M->name);
	m_assert_no_findings(M->name);
	ck_assert_msg(end == SIM_END_QUIESCENT, "%s: ended %s", M->name, sim_end_name(end));
}

static void log_ids(int *ids, int n)
{
	ck_assert_int_eq(nlog, n);
	for (int i = 0; i < n; i++)
		ck_assert_msg(log_[i].id == ids[i], "%s: run %d is %d, expected %d", M->name, i,
			      log_[i].id, ids[i]);
}

/* The callback name the trace gives the delayed works' timers. */
#define TIMER_FN "kthread_delayed_work_timer_fn"

/* The jiffy a timer armed at j0 for j0 + d fires at (kernel/time/timer.c, HZ > 100). */
/*
 * The jiffy a timer armed at j0 for j0 + d fires at: calc_wheel_index()
 * from the base's clk, which is j0, or one past the jiffy the base last ran
 * callbacks in (__run_timers() leaves it there) if that is later.
 */
static unsigned long wheel_jiffy_clk(unsigned long j0, unsigned long d, unsigned long clk)
{
	unsigned long delta;
	int lvl = 0;

	if (time_after(j0, clk))
		clk = j0;
	delta = j0 + d - clk;
	while (lvl < 8 && delta >= (63UL << (3 * lvl)))
		lvl++;
	return (((j0 + d) >> (3 * lvl)) + 1) << (3 * lvl);
}

static unsigned long wheel_jiffy(unsigned long j0, unsigned long d)
{
	return wheel_jiffy_clk(j0, d, j0);
}

/* --- queueing, FIFO order, return values -------------------------------------- */

static int fifo_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[0]));		/* the gate holds the worker */
	wait_for_completion(&gate_started);
	M_CHECK(M->current_work(W) == w[0]);
	M_CHECK(!M->work_pending(w[0]));		/* running is not pending */
	for (int i = 1; i <= 3; i++) {
		M_CHECK(M->queue_work(W, w[i]));
		M_CHECK(M->work_pending(w[i]));
		M_CHECK(M->work_worker(w[i]) == W);
	}
	M_CHECK(!M->queue_work(W, w[2]));		/* pending already */
	M_CHECK(M->queue_work(W, w[0]));		/* running, not pending: queued again */
	M_CHECK(!M->queue_work(W, w[0]));
	complete(&gate);
	M->flush_worker(W);
	for (int i = 1; i <= 3; i++)
		M_CHECK(!M->work_pending(w[i]));
	M_CHECK(M->queue_work(W, w[2]));		/* idle again: queued */
	M->flush_work(w[2]);
	M->destroy_worker(W);
	return 0;
}

START_TEST(queue_fifo_and_returns)
{
	int order[] = { 0, 1, 2, 3, 0, 2 };

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", fifo_main, NULL, 0, true, 0);
	run_clean();
	log_ids(order, 6);
	ck_assert_int_eq(runs[1], 1);
	ck_assert_int_eq(runs[2], 2);
	ck_assert_int_eq(runs[3], 1);
}
END_TEST

/* --- the delay-0 fast path ------------------------------------------------------ */

static int delay0_main(void *arg)
{
	struct kthread_work *d0 = M->dwork_work(dw[0]);

	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	M_CHECK(M->queue_delayed_work(W, dw[0], 0));
	/* on the run list at once: no timer, and ahead of a work queued next */
	M_CHECK(M->work_pending(d0));
	M_CHECK_INT(m_trace_count_s(REC_TIMER_START, TIMER_FN), ==, 0);
	M_CHECK(M->queue_work(W, w[1]));
	M_CHECK(!M->queue_delayed_work(W, dw[0], 0));	/* pending */
	M_CHECK(!M->queue_delayed_work(W, dw[0], 5));
	M_CHECK(!M->queue_work(W, d0));
	complete(&gate);
	M->flush_worker(W);
	M_CHECK(!M->work_pending(d0));
	M->destroy_worker(W);
	return 0;
}

START_TEST(delay0_fast_path)
{
	int order[] = { 0, 100, 1 };

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", delay0_main, NULL, 0, true, 0);
	run_clean();
	log_ids(order, 3);
	ck_assert_int_eq(m_trace_count_s(REC_TIMER_START, TIMER_FN), 0);
	ck_assert_int_eq(druns[0], 1);
}
END_TEST

/* --- delayed works run at the wheel's jiffy ----------------------------------------- */

static const unsigned long delays[] = { 1, 10, 62, 63, 100, 600 };
#define NDELAYS (sizeof(delays) / sizeof(delays[0]))
static unsigned long armed_at[NDELAYS];
static struct completion ran;

static void signal_fn(struct kthread_work *work)
{
	rec(work);
	complete(&ran);
}

static int delayed_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	for (size_t i = 0; i < NDELAYS; i++) {
		struct kthread_work *work = M->dwork_work(dw[1]);
		unsigned long j0 = jiffies;

		M_CHECK(M->queue_delayed_work(W, dw[1], delays[i]));
		M_CHECK_INT(jiffies, ==, j0);	/* armed in the jiffy read */
		armed_at[i] = j0;
		M_CHECK(M->work_pending(work));
		M_CHECK(!M->queue_delayed_work(W, dw[1], 1));
		M_CHECK(!M->queue_work(W, work));
		wait_for_completion(&ran);
		M_CHECK(!M->work_pending(work));
	}
	M->destroy_worker(W);
	return 0;
}

START_TEST(delayed_runs_at_wheel_jiffy)
{
	size_t starts = 0, entries = 0;
	unsigned long fired = 0;

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	M->init_delayed_work(dw[1], signal_fn);
	init_completion(&ran);
	sim_spawn("P0", delayed_main, NULL, 0, true, 1500 * NSEC_PER_USEC);
	run_clean();
	ck_assert_int_eq(nlog, NDELAYS);
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (!r->s || strcmp(r->s, TIMER_FN))
			continue;
		if (r->type == REC_TIMER_START) {
			ck_assert_uint_lt(starts, NDELAYS);
			/* b: expires */
			ck_assert_uint_eq(r->b, armed_at[starts] + delays[starts]);
			starts++;
		} else if (r->type == REC_TIMER_EXPIRE_ENTRY) {
			ck_assert_uint_lt(entries, NDELAYS);
			ck_assert_uint_eq(r->b, wheel_jiffy_clk(armed_at[entries], delays[entries],
								entries ? fired + 1 : armed_at[0]));
			fired = r->b;
			entries++;
		}
	}
	ck_assert_uint_eq(starts, NDELAYS);
	ck_assert_uint_eq(entries, NDELAYS);
	for (size_t i = 0; i < NDELAYS; i++) {
		/* delay 63 armed in the jiffy 62's timer fired: clk + 1, level 0, not 1 */
		unsigned long want = wheel_jiffy_clk(armed_at[i], delays[i],
						     i ? log_[i - 1].jif + 1 : armed_at[0]);

		ck_assert_msg(log_[i].jif == want, "%s: delay %lu armed at %lu ran at %lu, not %lu",
			      M->name, delays[i], armed_at[i], log_[i].jif, want);
	}
	/* level 0 fires one jiffy after expiry; level 1 rounds up to 8 jiffies */
	ck_assert_uint_eq(wheel_jiffy(1000, 10), 1011);
	ck_assert_uint_eq(wheel_jiffy(1000, 100), 1104);
}
END_TEST

/* --- flush_work -------------------------------------------------------------------- */

static struct completion gate2;

/* w[4]: held on gate2 on its first run, so that it stays queued behind w[3]. */
static void gate2_fn(struct kthread_work *work)
{
	if (!runs[4])
		wait_for_completion(&gate2);
	rec(work);
}

static int flush_idle_main(void *arg)
{
	uint64_t t0;
	uint64_t sw0;

	W = M->create_worker(-1, 0, "kw");
	/* never queued: work->worker is NULL, nothing to wait for */
	t0 = sim_now();
	sw0 = current->nr_switches;
	M->flush_work(w[1]);
	M_CHECK_INT(sim_now(), ==, t0);
	M_CHECK_INT(current->nr_switches, ==, sw0);
	/* idle after a run: looked at under the lock, not waited for */
	M_CHECK(M->queue_work(W, w[1]));
	M->flush_worker(W);
	sw0 = current->nr_switches;
	M->flush_work(w[1]);
	M_CHECK_INT(current->nr_switches, ==, sw0);
	M_CHECK_INT(runs[1], ==, 1);
	M->destroy_worker(W);
	return 0;
}

START_TEST(flush_work_idle_returns_at_once)
{
	setup(1, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", flush_idle_main, NULL, 0, true, 0);
	run_clean();
	ck_assert_int_eq(runs[1], 1);
}
END_TEST

static uint64_t flush_ret_ns, gate_open_ns;
static int runs_at_flush[NW];

static int open_gate_main(void *arg)
{
	gate_open_ns = sim_now();
	complete(&gate);
	return 0;
}

/* w[0] runs (held by the gate) and is queued again: flush waits for the second run. */
static int flush_latest_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	M_CHECK(M->queue_work(W, w[0]));
	M_CHECK(M->work_pending(w[0]));
	M->flush_work(w[0]);
	flush_ret_ns = sim_now();
	memcpy(runs_at_flush, runs, sizeof(runs));
	M_CHECK(!M->work_pending(w[0]));
	M->destroy_worker(W);
	return 0;
}

START_TEST(flush_work_waits_for_latest_instance)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", flush_latest_main, NULL, 0, true, 0);
	sim_spawn("opener", open_gate_main, NULL, 1, true, 50 * NSEC_PER_MSEC);
	run_clean();
	ck_assert_int_eq(runs_at_flush[0], 2);
	ck_assert_uint_ge(flush_ret_ns, gate_open_ns);
	ck_assert_uint_ge(gate_open_ns, 50 * NSEC_PER_MSEC);
}
END_TEST

/*
 * w[3] queued behind the running gate work, w[4] behind w[3] and held on a
 * second gate: flush_work(w[3]) returns once w[3] ran, without waiting for
 * w[4] (the flush work goes right after the flushed one).
 */
static int flush_queued_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	M_CHECK(M->queue_work(W, w[3]));
	M_CHECK(M->queue_work(W, w[4]));
	M->flush_work(w[3]);
	flush_ret_ns = sim_now();
	memcpy(runs_at_flush, runs, sizeof(runs));
	/* still queued, or picked up and held by its gate */
	M_CHECK(M->work_pending(w[4]) || M->current_work(W) == w[4]);
	complete(&gate2);
	M->flush_worker(W);
	M->destroy_worker(W);
	return 0;
}

START_TEST(flush_work_waits_for_queued_only)
{
	int order[] = { 0, 3, 4 };

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	M->init_work(w[4], gate2_fn);
	init_completion(&gate2);
	sim_spawn("P0", flush_queued_main, NULL, 0, true, 0);
	sim_spawn("opener", open_gate_main, NULL, 1, true, 50 * NSEC_PER_MSEC);
	run_clean();
	ck_assert_int_eq(runs_at_flush[0], 1);
	ck_assert_int_eq(runs_at_flush[3], 1);
	ck_assert_int_eq(runs_at_flush[4], 0);
	ck_assert_uint_ge(flush_ret_ns, gate_open_ns);
	log_ids(order, 3);
}
END_TEST

/* --- flush_worker --------------------------------------------------------------------- */

static void slow_fn(struct kthread_work *work)
{
	udelay(300);
	if (work == w[2])
		msleep(20);
	rec(work);
}

static int flush_worker_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	for (int i = 1; i < NW; i++)
		M_CHECK(M->queue_work(W, w[i]));
	M_CHECK(M->queue_delayed_work(W, dw[2], 0));
	M->flush_worker(W);
	memcpy(runs_at_flush, runs, sizeof(runs));
	flush_ret_ns = (uint64_t)druns[2];
	M->destroy_worker(W);
	return 0;
}

START_TEST(flush_worker_waits_for_all)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	for (int i = 1; i < NW; i++)
		M->init_work(w[i], slow_fn);
	M->init_delayed_work(dw[2], slow_fn);
	sim_spawn("P0", flush_worker_main, NULL, 0, true, 0);
	run_clean();
	for (int i = 1; i < NW; i++)
		ck_assert_int_eq(runs_at_flush[i], 1);
	ck_assert_uint_eq(flush_ret_ns, 1);
	ck_assert_int_eq(nlog, NW);
}
END_TEST

/* --- cancel_work_sync ---------------------------------------------------------------- */

static bool cancel_ret[8];
static uint64_t cancel_ret_ns;

static int cancel_returns_main(void *arg)
{
	uint64_t sw0, t0;

	W = M->create_worker(-1, 0, "kw");
	/* never queued: false, without waiting */
	t0 = sim_now();
	sw0 = current->nr_switches;
	cancel_ret[0] = M->cancel_work_sync(w[1]);
	M_CHECK_INT(sim_now(), ==, t0);
	M_CHECK_INT(current->nr_switches, ==, sw0);
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	/* pending behind the gate: true, taken off the list */
	M_CHECK(M->queue_work(W, w[1]));
	M_CHECK(M->queue_work(W, w[2]));
	cancel_ret[1] = M->cancel_work_sync(w[1]);
	M_CHECK(!M->work_pending(w[1]));
	M_CHECK(M->work_pending(w[2]));
	/* a cancelled work may be queued again */
	M_CHECK(M->queue_work(W, w[3]));
	cancel_ret[2] = M->cancel_work_sync(w[3]);
	M_CHECK(M->queue_work(W, w[3]));
	complete(&gate);
	M->flush_worker(W);
	/* idle after its run: false */
	cancel_ret[3] = M->cancel_work_sync(w[3]);
	cancel_ret[4] = M->cancel_work_sync(w[2]);
	M->destroy_worker(W);
	return 0;
}

START_TEST(cancel_work_sync_returns)
{
	int order[] = { 0, 2, 3 };

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", cancel_returns_main, NULL, 0, true, 0);
	run_clean();
	ck_assert(!cancel_ret[0]);
	ck_assert(cancel_ret[1]);
	ck_assert(cancel_ret[2]);
	ck_assert(!cancel_ret[3]);
	ck_assert(!cancel_ret[4]);
	log_ids(order, 3);
	ck_assert_int_eq(runs[1], 0);
}
END_TEST

static int cancel_running_main(void *arg)
{
	bool requeue = (bool)(long)arg;

	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	if (requeue)
		M_CHECK(M->queue_work(W, w[0]));
	cancel_ret[0] = M->cancel_work_sync(w[0]);
	cancel_ret_ns = sim_now();
	/* neither pending nor running on return */
	M_CHECK_INT(runs[0], ==, 1);
	M_CHECK(!M->work_pending(w[0]));
	M_CHECK(M->current_work(W) != w[0]);
	M_CHECK_INT(M->work_canceling(w[0]), ==, 0);
	M->flush_worker(W);
	M_CHECK_INT(runs[0], ==, 1);
	M->destroy_worker(W);
	return 0;
}

static bool probe_queue_ret;
static int probe_canceling, probe_running;

/* While the cancel waits for the running work: queueing is refused. */
static int cancel_probe_main(void *arg)
{
	probe_canceling = M->work_canceling(w[0]);
	probe_running = M->current_work(W) == w[0];
	probe_queue_ret = M->queue_work(W, w[0]);
	return 0;
}

START_TEST(cancel_work_sync_waits_for_running)
{
	bool requeue = _i / (int)kw_model_count();

	setup(2, SIM_PREEMPT_VOLUNTARY, _i % (int)kw_model_count());
	sim_spawn("P0", cancel_running_main, (void *)(long)requeue, 0, true, 0);
	sim_spawn("probe", cancel_probe_main, NULL, 1, true, 20 * NSEC_PER_MSEC);
	sim_spawn("opener", open_gate_main, NULL, 1, true, 50 * NSEC_PER_MSEC);
	run_clean();
	/* true only when an instance was pending besides the running one */
	ck_assert_int_eq(cancel_ret[0], requeue);
	ck_assert_uint_ge(cancel_ret_ns, gate_open_ns);
	ck_assert_int_eq(probe_canceling, 1);
	ck_assert_int_eq(probe_running, 1);
	ck_assert(!probe_queue_ret);
	ck_assert_int_eq(runs[0], 1);
}
END_TEST

/* --- cancel_delayed_work_sync ---------------------------------------------------------- */

static int cancel_delayed_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	/* never queued */
	cancel_ret[0] = M->cancel_delayed_work_sync(dw[1]);
	/* armed: true, and the timer never fires */
	M_CHECK(M->queue_delayed_work(W, dw[1], 10));
	cancel_ret[1] = M->cancel_delayed_work_sync(dw[1]);
	M_CHECK(!M->work_pending(M->dwork_work(dw[1])));
	msleep(200);
	M_CHECK_INT(druns[1], ==, 0);
	/* queued with delay 0 behind the gate: true, never runs */
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	M_CHECK(M->queue_delayed_work(W, dw[2], 0));
	cancel_ret[2] = M->cancel_delayed_work_sync(dw[2]);
	complete(&gate);
	/* ran: false */
	M_CHECK(M->queue_delayed_work(W, dw[3], 1));
	msleep(100);
	M_CHECK_INT(druns[3], ==, 1);
	cancel_ret[3] = M->cancel_delayed_work_sync(dw[3]);
	M->flush_worker(W);
	M->destroy_worker(W);
	return 0;
}

START_TEST(cancel_delayed_work_sync_returns)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", cancel_delayed_main, NULL, 0, true, 0);
	run_clean();
	ck_assert(!cancel_ret[0]);
	ck_assert(cancel_ret[1]);
	ck_assert(cancel_ret[2]);
	ck_assert(!cancel_ret[3]);
	ck_assert_int_eq(druns[1], 0);
	ck_assert_int_eq(druns[2], 0);
	ck_assert_int_eq(druns[3], 1);
	/* two timers armed (dw[1], dw[3]), one cancelled, one fired */
	ck_assert_uint_eq(m_trace_count_s(REC_TIMER_START, TIMER_FN), 2);
	ck_assert_uint_eq(m_trace_count_s(REC_TIMER_EXPIRE_ENTRY, TIMER_FN), 1);
}
END_TEST

static int cancel_delayed_running_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W, dw[0], 2));
	wait_for_completion(&gate_started);
	cancel_ret[0] = M->cancel_delayed_work_sync(dw[0]);
	cancel_ret_ns = sim_now();
	M_CHECK_INT(druns[0], ==, 1);
	M_CHECK(!M->work_pending(M->dwork_work(dw[0])));
	M_CHECK(M->current_work(W) != M->dwork_work(dw[0]));
	M->destroy_worker(W);
	return 0;
}

START_TEST(cancel_delayed_work_sync_waits_for_running)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	M->init_delayed_work(dw[0], gate_fn);
	sim_spawn("P0", cancel_delayed_running_main, NULL, 0, true, 0);
	sim_spawn("opener", open_gate_main, NULL, 1, true, 50 * NSEC_PER_MSEC);
	run_clean();
	ck_assert(!cancel_ret[0]);
	ck_assert_uint_ge(cancel_ret_ns, gate_open_ns);
	ck_assert_int_eq(druns[0], 1);
}
END_TEST

/* --- mod_delayed_work -------------------------------------------------------------------- */

static bool mod_ret[8];
static unsigned long mod_at[8];

static int mod_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	/* never queued: false, queued as queue_delayed_work() would */
	mod_at[0] = jiffies;
	mod_ret[0] = M->mod_delayed_work(W, dw[1], 10);
	wait_for_completion(&ran);
	/* idle after a run: false */
	mod_at[1] = jiffies;
	mod_ret[1] = M->mod_delayed_work(W, dw[1], 5);
	wait_for_completion(&ran);
	/* armed, shortened: true, fires at the new expiry only */
	M_CHECK(M->queue_delayed_work(W, dw[1], 100));
	msleep(20);
	mod_at[2] = jiffies;
	mod_ret[2] = M->mod_delayed_work(W, dw[1], 10);
	wait_for_completion(&ran);
	/* armed, extended */
	M_CHECK(M->queue_delayed_work(W, dw[1], 10));
	mod_at[3] = jiffies;
	mod_ret[3] = M->mod_delayed_work(W, dw[1], 50);
	wait_for_completion(&ran);
	/* armed, delay 0: queued at once, no timer */
	M_CHECK(M->queue_delayed_work(W, dw[1], 100));
	mod_at[4] = jiffies;
	mod_ret[4] = M->mod_delayed_work(W, dw[1], 0);
	wait_for_completion(&ran);
	/* on the run list behind the gate: true, moved back to a timer */
	M_CHECK(M->queue_work(W, w[0]));
	wait_for_completion(&gate_started);
	M_CHECK(M->queue_delayed_work(W, dw[1], 0));
	mod_at[5] = jiffies;
	mod_ret[5] = M->mod_delayed_work(W, dw[1], 10);
	complete(&gate);
	wait_for_completion(&ran);
	M->destroy_worker(W);
	return 0;
}

START_TEST(mod_delayed_work_rearms)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	M->init_delayed_work(dw[1], signal_fn);
	init_completion(&ran);
	sim_spawn("P0", mod_main, NULL, 0, true, 1500 * NSEC_PER_USEC);
	run_clean();
	ck_assert(!mod_ret[0]);
	ck_assert(!mod_ret[1]);
	for (int i = 2; i <= 5; i++)
		ck_assert_msg(mod_ret[i], "%s: mod %d returned false", M->name, i);
	ck_assert_int_eq(druns[1], 6);
	ck_assert_uint_eq(log_[0].jif, wheel_jiffy(mod_at[0], 10));
	ck_assert_uint_eq(log_[1].jif, wheel_jiffy(mod_at[1], 5));
	ck_assert_uint_eq(log_[2].jif, wheel_jiffy(mod_at[2], 10));
	ck_assert_uint_eq(log_[3].jif, wheel_jiffy(mod_at[3], 50));
	ck_assert_uint_eq(log_[4].jif, mod_at[4]);
	/* log_[5] is the gate work */
	ck_assert_int_eq(log_[5].id, 0);
	ck_assert_uint_eq(log_[6].jif, wheel_jiffy(mod_at[5], 10));
	/* eight timers armed, three of them cancelled by a mod; five fired */
	ck_assert_uint_eq(m_trace_count_s(REC_TIMER_START, TIMER_FN), 8);
	ck_assert_uint_eq(m_trace_count_s(REC_TIMER_EXPIRE_ENTRY, TIMER_FN), 5);
}
END_TEST

/*
 * mod_delayed_work() while a cancel waits for the running work: the cancel
 * wins and nothing is queued. What mod returns differs (model/README.md
 * item 6): v4.9 returns false, mainline returns true so that a
 * reference-counting caller stays balanced.
 */
static int mod_cancel_canceler(void *arg)
{
	cancel_ret[0] = M->cancel_delayed_work_sync(dw[0]);
	cancel_ret_ns = sim_now();
	return 0;
}

static int mod_cancel_modder(void *arg)
{
	struct kthread_work *work = M->dwork_work(dw[0]);

	probe_canceling = M->work_canceling(work);
	mod_ret[0] = M->mod_delayed_work(W, dw[0], 10);
	M_CHECK(!M->work_pending(work));
	M_CHECK_INT(M->work_canceling(work), ==, 1);
	mod_ret[1] = M->queue_delayed_work(W, dw[0], 0);
	mod_ret[2] = M->queue_work(W, work);
	M_CHECK(!M->work_pending(work));
	return 0;
}

static int mod_cancel_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W, dw[0], 0));
	wait_for_completion(&gate_started);
	sim_spawn("canceler", mod_cancel_canceler, NULL, 1, true, 10 * NSEC_PER_MSEC);
	sim_spawn("modder", mod_cancel_modder, NULL, 1, true, 20 * NSEC_PER_MSEC);
	msleep(200);
	M_CHECK(!M->work_pending(M->dwork_work(dw[0])));
	M->destroy_worker(W);
	return 0;
}

START_TEST(mod_delayed_work_loses_to_cancel)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	M->init_delayed_work(dw[0], gate_fn);
	sim_spawn("P0", mod_cancel_main, NULL, 0, true, 0);
	sim_spawn("opener", open_gate_main, NULL, 1, true, 50 * NSEC_PER_MSEC);
	run_clean();
	ck_assert_int_eq(probe_canceling, 1);
	ck_assert_int_eq(mod_ret[0], m_is("mainline"));
	ck_assert(!mod_ret[1]);
	ck_assert(!mod_ret[2]);
	ck_assert(!cancel_ret[0]);
	ck_assert_uint_ge(cancel_ret_ns, gate_open_ns);
	ck_assert_int_eq(druns[0], 1);
	ck_assert_uint_eq(m_trace_count_s(REC_TIMER_START, TIMER_FN), 0);
}
END_TEST

/*
 * flush_work() on a delayed work whose timer is armed inserts the flush
 * work after it on the worker's delayed list, where the worker never looks;
 * the timer later moves only the delayed work itself. The kernel's code does
 * the same: the flusher sleeps for good (kthread_flush_work() promises to
 * wait for queued or running works, and an armed delayed work is neither).
 * Pinned so that a change of this behaviour shows.
 */
static int flush_armed_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_delayed_work(W, dw[1], 5));
	M->flush_work(M->dwork_work(dw[1]));
	M_CHECK(0);	/* not reached */
	return 0;
}

START_TEST(flush_work_on_armed_delayed_work_never_returns)
{
	const struct sim_finding *f;

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", flush_armed_main, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	m_assert_checks(M->name);
	ck_assert_int_eq(druns[1], 1);		/* the timer moved and ran the work */
	f = h_first(SIM_F_DEADLOCK);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->msg, "P0"));
	ck_assert_ptr_nonnull(strstr(f->msg, "kthread_flush_work"));
	ck_assert_uint_eq(sim_finding_count(), 1);
}
END_TEST

/* --- destroy --------------------------------------------------------------------------- */

static struct task_struct *worker_task;
static int runs_at_destroy[NW];

static int destroy_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	worker_task = M->worker_task(W);
	for (int i = 1; i < NW; i++)
		M_CHECK(M->queue_work(W, w[i]));
	M->destroy_worker(W);
	memcpy(runs_at_destroy, runs, sizeof(runs));
	M_CHECK_INT(worker_task->__state, ==, TASK_DEAD);
	M_CHECK_INT(worker_task->exit_code, ==, 0);
	return 0;
}

START_TEST(destroy_flushes_and_frees)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	for (int i = 1; i < NW; i++)
		M->init_work(w[i], slow_fn);
	sim_spawn("P0", destroy_main, NULL, 0, true, 0);
	run_clean();	/* no leak finding: the worker was freed */
	for (int i = 1; i < NW; i++)
		ck_assert_int_eq(runs_at_destroy[i], 1);
	ck_assert_int_eq(nlog, NW - 1);
}
END_TEST

/*
 * A worker nobody destroys, whose thread still waits for work at the end,
 * is no leak: kmemleak does not report what a live kthread refers to (its
 * thread function's data is the worker).
 */
static int no_destroy_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[1]));
	M->flush_worker(W);
	return 0;
}

START_TEST(undestroyed_live_worker_is_no_leak)
{
	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", no_destroy_main, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	m_assert_checks(M->name);
	ck_assert_uint_eq(sim_finding_count(), 0);
}
END_TEST

/*
 * The control: the worker's thread stopped (kthread_stop, as destroy does)
 * and the worker never freed: nothing live refers to it, a leak the machine
 * reports where kmemleak would, at its allocation.
 */
static int stop_no_free_main(void *arg)
{
	W = M->create_worker(-1, 0, "kw");
	M_CHECK(M->queue_work(W, w[1]));
	M->flush_worker(W);
	kthread_stop(M->worker_task(W));
	return 0;
}

START_TEST(stopped_unfreed_worker_is_a_leak)
{
	const struct sim_finding *f;

	setup(2, SIM_PREEMPT_VOLUNTARY, _i);
	sim_spawn("P0", stop_no_free_main, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	m_assert_checks(M->name);
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_LEAK);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->site.func, "__kthread_create_worker");
}
END_TEST

/* --- legacy workers: init + kthread_run, kthread_stop -------------------------------------- */

static struct kthread_worker *legacy;
static struct task_struct *legacy_task;
static int stop_ret;
static size_t wakes_at_queue, wakes_at_flush;
static bool in_work_task_ok, in_work_current_ok;

static size_t wakings_of(struct task_struct *p)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		n += r->type == REC_SCHED_WAKING && r->a == (uint64_t)p->pid;
	}
	return n;
}

static void legacy_fn(struct kthread_work *work)
{
	in_work_task_ok = M->worker_task(legacy) == current;
	in_work_current_ok = M->current_work(legacy) == work;
	rec(work);
}

/* Queued before the thread ran: nobody is woken, the work runs once the thread starts. */
static int legacy_start_main(void *arg)
{
	legacy = m_worker_struct();
	M->init_worker(legacy);
	legacy_task = kthread_run(M->worker_fn, legacy, "legacy");
	M_CHECK(M->worker_task(legacy) == NULL);
	M_CHECK(M->queue_work(legacy, w[1]));
	wakes_at_queue = wakings_of(legacy_task);
	M->flush_work(w[1]);
	wakes_at_flush = wakings_of(legacy_task);
	M_CHECK(M->worker_task(legacy) == legacy_task);
	M_CHECK_INT(runs[1], ==, 1);
	/* running now: queueing wakes it as for a created worker */
	M_CHECK(M->queue_work(legacy, w[1]));
	M->flush_work(w[1]);
	stop_ret = kthread_stop(legacy_task);
	M_CHECK(M->worker_task(legacy) == NULL);
	return 0;
}

START_TEST(legacy_start_queue_before_run)
{
	setup(1, SIM_PREEMPT_NONE, _i);
	M->init_work(w[1], legacy_fn);
	sim_spawn("P0", legacy_start_main, NULL, 0, true, 0);
	run_clean();
	ck_assert_uint_eq(wakes_at_queue, 1);	/* kthread_run's own */
	ck_assert_uint_eq(wakes_at_flush, 1);
	ck_assert_int_eq(runs[1], 2);
	ck_assert(in_work_task_ok);
	ck_assert(in_work_current_ok);
	ck_assert_int_eq(stop_ret, 0);
}
END_TEST

/*
 * kthread_stop() racing with queued works: the thread exits at its next
 * kthread_should_stop() and whatever is queued stays queued, unrun. Before
 * the thread first ran, kthread() does not even call kthread_worker_fn().
 * One CPU without preemption, so the stop gets in before the worker runs.
 */
static int legacy_stop_main(void *arg)
{
	bool started = (bool)(long)arg;

	legacy = m_worker_struct();
	M->init_worker(legacy);
	legacy_task = kthread_run(M->worker_fn, legacy, "legacy");
	if (started) {
		msleep(1);
		M_CHECK(M->worker_task(legacy) == legacy_task);
	}
	M_CHECK(M->queue_work(legacy, w[1]));
	M_CHECK(M->queue_work(legacy, w[2]));
	stop_ret = kthread_stop(legacy_task);
	M_CHECK(M->worker_task(legacy) == NULL);
	M_CHECK(M->work_pending(w[1]));
	M_CHECK(M->work_pending(w[2]));
	msleep(10);
	return 0;
}

START_TEST(kthread_stop_leaves_queued_works_unrun)
{
	bool started = _i / (int)kw_model_count();

	setup(1, SIM_PREEMPT_NONE, _i % (int)kw_model_count());
	sim_spawn("P0", legacy_stop_main, (void *)(long)started, 0, true, 0);
	run_clean();
	ck_assert_int_eq(stop_ret, started ? 0 : -EINTR);
	ck_assert_int_eq(legacy_task->__state, TASK_DEAD);
	ck_assert_int_eq(runs[1], 0);
	ck_assert_int_eq(runs[2], 0);
	ck_assert_int_eq(nlog, 0);
}
END_TEST

/* --- the freezer --------------------------------------------------------------------------- */

#define SUSPEND_NS	(10 * NSEC_PER_MSEC)
#define SLOW_NS		(90 * NSEC_PER_MSEC)
#define RESUME_NS	(150 * NSEC_PER_MSEC)

static bool was_suspended, was_frozen;
static size_t fired_while_suspended;
static bool pending_while_suspended[2];
static int runs_while_suspended;

/*
 * A freezable kthread that freezes only at SLOW_NS: the freezer retries
 * until then, and the system runs with the worker frozen. (Once every
 * task is frozen the machine sleeps, and nothing runs until the thaw.)
 */
static int slow_to_freeze(void *arg)
{
	(void)arg;
	set_freezable();
	while (sim_now() < SLOW_NS)
		udelay(1000);
	try_to_freeze();
	return 0;
}

static int freezer_main(void *arg)
{
	unsigned int flags = (unsigned int)(long)arg;

	W = M->create_worker(-1, flags, "kw");
	msleep(20);
	was_suspended = sim_suspended();
	was_frozen = frozen(M->worker_task(W));
	M_CHECK(M->queue_work(W, w[1]));
	M_CHECK(M->queue_delayed_work(W, dw[1], 5));
	msleep(40);
	/* the timer fired meanwhile: the delayed work is on the run list, unrun if frozen */
	fired_while_suspended = m_trace_count_s(REC_TIMER_EXPIRE_ENTRY, TIMER_FN);
	pending_while_suspended[0] = M->work_pending(w[1]);
	pending_while_suspended[1] = M->work_pending(M->dwork_work(dw[1]));
	runs_while_suspended = nlog;
	M->flush_worker(W);
	M_CHECK(sim_boot_now() >= RESUME_NS || !(flags & KTW_FREEZABLE_FLAG));
	M->destroy_worker(W);
	return 0;
}

START_TEST(freezable_worker_runs_nothing_until_thaw)
{
	bool freezable = _i / (int)kw_model_count() == 0;

	setup(2, SIM_PREEMPT_VOLUNTARY, _i % (int)kw_model_count());
	sim_spawn("P0", freezer_main, (void *)(long)(freezable ? KTW_FREEZABLE_FLAG : 0), 0, true,
		  0);
	sim_spawn("slow", slow_to_freeze, NULL, 1, true, 0);
	sim_suspend_at(SUSPEND_NS);
	sim_resume_at(RESUME_NS);
	run_clean();
	ck_assert_uint_eq(sim_sleeps(), 1);
	ck_assert(was_suspended);
	ck_assert_uint_eq(fired_while_suspended, 1);
	ck_assert_int_eq(nlog, 2);
	if (freezable) {
		ck_assert(was_frozen);
		ck_assert(pending_while_suspended[0]);
		ck_assert(pending_while_suspended[1]);
		ck_assert_int_eq(runs_while_suspended, 0);
		/* right after the wake-up's thaw, in queueing order (boot clock) */
		ck_assert_int_eq(log_[0].id, 1);
		ck_assert_int_eq(log_[1].id, 101);
		ck_assert_uint_ge(log_[0].ns + sim_slept_ns(), RESUME_NS);
		ck_assert_uint_lt(log_[1].ns + sim_slept_ns(), RESUME_NS + NSEC_PER_MSEC);
	} else {
		/* the control: a worker that is not freezable runs while the freezer waits */
		ck_assert(!was_frozen);
		ck_assert(!pending_while_suspended[0]);
		ck_assert(!pending_while_suspended[1]);
		ck_assert_int_eq(runs_while_suspended, 2);
		ck_assert_uint_lt(log_[1].ns, RESUME_NS);
	}
}
END_TEST

/* --- binding ------------------------------------------------------------------------------ */

#define NBOUND 4
static struct kthread_worker *bw[NBOUND + 1];
static int bound_cpu_of[NBOUND + 1];

static int bound_main(void *arg)
{
	for (int k = 0; k <= NBOUND; k++) {
		/* the last one is unbound: the control */
		bw[k] = M->create_worker(k < NBOUND ? k : -1, 0, "kw");
		bound_cpu_of[k] = M->worker_task(bw[k])->bound_cpu;
	}
	for (int round = 0; round < 4; round++) {
		for (int k = 0; k <= NBOUND; k++)
			M_CHECK(M->queue_work(bw[k], w[k]));
		msleep(1 + round);
	}
	for (int k = 0; k <= NBOUND; k++)
		M->destroy_worker(bw[k]);
	return 0;
}

START_TEST(create_worker_on_cpu_binds)
{
	bool unbound_moved = false;

	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct sim_config c = m_explore_config(NBOUND, SIM_PREEMPT_VOLUNTARY, seed);
		int unbound_cpu = -1;

		c.keep_trace = true;
		h_init_cfg(&c);
		m_use(_i);
		m_reset_checks();
		nlog = 0;
		memset(runs, 0, sizeof(runs));
		for (int k = 0; k <= NBOUND; k++)
			w[k] = m_work(record_fn);
		sim_spawn("P0", bound_main, NULL, 0, false, 0);
		run_clean();
		ck_assert_int_eq(nlog, 4 * (NBOUND + 1));
		for (int i = 0; i < nlog; i++) {
			int k = log_[i].id;

			if (k < NBOUND) {
				ck_assert_msg(log_[i].cpu == k,
					      "%s seed %llu: work of worker %d ran on cpu%d",
					      M->name, (unsigned long long)seed, k, log_[i].cpu);
			} else {
				if (unbound_cpu >= 0 && log_[i].cpu != unbound_cpu)
					unbound_moved = true;
				unbound_cpu = log_[i].cpu;
			}
		}
		for (int k = 0; k < NBOUND; k++)
			ck_assert_int_eq(bound_cpu_of[k], k);
		ck_assert_int_eq(bound_cpu_of[NBOUND], -1);
		sim_fini();
	}
	/* the control: the unbound worker's works did move between CPUs */
	ck_assert(unbound_moved);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model_api");
	TCase *tc = tcase_create("core");
	int n = (int)kw_model_count();

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, queue_fifo_and_returns, 0, n);
	tcase_add_loop_test(tc, delay0_fast_path, 0, n);
	tcase_add_loop_test(tc, delayed_runs_at_wheel_jiffy, 0, n);
	tcase_add_loop_test(tc, flush_work_idle_returns_at_once, 0, n);
	tcase_add_loop_test(tc, flush_work_waits_for_latest_instance, 0, n);
	tcase_add_loop_test(tc, flush_work_waits_for_queued_only, 0, n);
	tcase_add_loop_test(tc, flush_worker_waits_for_all, 0, n);
	tcase_add_loop_test(tc, cancel_work_sync_returns, 0, n);
	tcase_add_loop_test(tc, cancel_work_sync_waits_for_running, 0, 2 * n);
	tcase_add_loop_test(tc, cancel_delayed_work_sync_returns, 0, n);
	tcase_add_loop_test(tc, cancel_delayed_work_sync_waits_for_running, 0, n);
	tcase_add_loop_test(tc, mod_delayed_work_rearms, 0, n);
	tcase_add_loop_test(tc, mod_delayed_work_loses_to_cancel, 0, n);
	tcase_add_loop_test(tc, flush_work_on_armed_delayed_work_never_returns, 0, n);
	tcase_add_loop_test(tc, destroy_flushes_and_frees, 0, n);
	tcase_add_loop_test(tc, undestroyed_live_worker_is_no_leak, 0, n);
	tcase_add_loop_test(tc, stopped_unfreed_worker_is_a_leak, 0, n);
	tcase_add_loop_test(tc, legacy_start_queue_before_run, 0, n);
	tcase_add_loop_test(tc, kthread_stop_leaves_queued_works_unrun, 0, 2 * n);
	tcase_add_loop_test(tc, freezable_worker_runs_nothing_until_thaw, 0, 2 * n);
	tcase_add_loop_test(tc, create_worker_on_cpu_binds, 0, n);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
