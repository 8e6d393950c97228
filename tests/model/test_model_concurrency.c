/*
 * The kthread_worker API under concurrency, for every variant. Patterns the
 * kernel documents as safe are explored over 500 seeds of the machine's
 * random strategy (2 to 4 CPUs), each under voluntary and full preemption;
 * every run is held to the API's promises by the scenario's own checks and
 * allowed no finding at all:
 *   - a self-requeueing work cancelled with kthread_cancel_work_sync() from
 *     other CPUs: afterwards neither pending nor running, and never again;
 *   - a delayed work cancelled around the moment its timer fires on another
 *     CPU: each armed instance ends exactly one way;
 *   - works queued from a timer callback, hard irqs and a thread while the
 *     worker runs: each successful queue gives exactly one run;
 *   - kthread_flush_worker() from several threads at once: each returns
 *     after everything queued before it;
 *   - kthread_mod_delayed_work() from a hard irq and a thread around the
 *     timer's expiry, then kthread_cancel_delayed_work_sync(): mainline is
 *     clean and its reference counts balance; v4.9 shows the race the
 *     upstream fix closed (model/README.md items 4 and 6): a timer left
 *     armed for a work on no list, or a cancel that sleeps for good in
 *     kthread_flush_work(), pinned as v4.9-only behaviour.
 * Also pinned, one CPU and exact: what a mod or cancel returns when the
 * timer fires inside its lock-dropped window (mainline's callback drops the
 * work, and the call reports it was not pending).
 * And the machine's determinism extended to model runs: a randomized model
 * workload gives the same trace hash, decision count and outcome when run
 * twice, and again when its decision log is replayed.
 */
#include "model_harness.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEEDS		500

static char what[128];

/* One run of a pattern: the scenario for a seed, and the checks after the run. */
struct pattern {
	const char *name;
	void (*prepare)(uint64_t seed, int ncpus);
	void (*check)(void);
	bool trace;		/* the checks read the trace */
};

/* Set up the machine for one seed and let the pattern populate it. */
static void start_seed(int variant, const struct pattern *p, uint64_t seed,
		       enum sim_preempt preempt)
{
	int ncpus = 2 + (int)(seed % 3);
	struct sim_config cfg = m_explore_config(ncpus, preempt, seed);

	cfg.time_limit_ns = 10000 * NSEC_PER_MSEC;	/* every scenario ends well before */
	cfg.keep_trace = p->trace;
	h_init_cfg(&cfg);
	m_use(variant);
	m_reset_checks();
	snprintf(what, sizeof(what), "%s, %s, seed %llu, %d cpus, %s preemption", M->name,
		 p->name, (unsigned long long)seed, ncpus,
		 preempt == SIM_PREEMPT_FULL ? "full" : "voluntary");
	p->prepare(seed, ncpus);
}

static void run_seed(int variant, const struct pattern *p, uint64_t seed, enum sim_preempt preempt)
{
	enum sim_end end;

	start_seed(variant, p, seed, preempt);
	end = h_run();
	m_assert_checks(what);
	m_assert_no_findings(what);
	ck_assert_msg(end == SIM_END_QUIESCENT, "%s: ended %s", what, sim_end_name(end));
	if (p->check)
		p->check();
	m_assert_checks(what);
	sim_fini();
}

/* Every seed under both preemption models that let a task lose its CPU. */
static void explore(int variant, const struct pattern *p)
{
	for (uint64_t seed = 0; seed < NSEEDS; seed++) {
		run_seed(variant, p, seed, SIM_PREEMPT_VOLUNTARY);
		run_seed(variant, p, seed, SIM_PREEMPT_FULL);
	}
}

/* A CPU other than 'cpu', from the seed's generator. */
static int other_cpu(uint64_t *rnd, int cpu, int ncpus)
{
	return (cpu + 1 + (int)(m_rand(rnd) % (uint64_t)(ncpus - 1))) % ncpus;
}

/* Busy-wait until 'at' (ns of this CPU's clock), if it is still ahead. */
static void wait_until(uint64_t at)
{
	uint64_t now = sim_now();

	if (at > now)
		ndelay(at - now);
}

/* When a timer armed now for 'delay' jiffies fires: the wheel's jiffy, as a time. */
static uint64_t fire_time(unsigned long j0, unsigned long delay)
{
	int lvl;

	return sim_jiffies_to_ns(sim_timer_bucket_expiry(j0 + delay, j0, &lvl));
}

/*
 * Timer callbacks of a delayed work that dropped it instead of queueing it:
 * mainline's canceling test. A callback that queues fires
 * sched_kthread_work_queue_work in softirq context; one that drops fires
 * nothing. Mainline only: v4.9 has no such tracepoint (and never drops).
 */
static int drops_of(struct kthread_delayed_work *dwork)
{
	uint64_t work = sim_fake_addr(M->dwork_work(dwork));
	int fired = 0, queued = 0;

	ck_assert(m_is("mainline"));
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		if (r->type == REC_TIMER_EXPIRE_ENTRY && r->s &&
		    !strcmp(r->s, "kthread_delayed_work_timer_fn"))
			fired++;
		else if (r->type == REC_MODEL && r->a == work && (r->flags & TRACE_FLAG_SOFTIRQ) &&
			 !strcmp(r->s, "sched_kthread_work_queue_work"))
			queued++;
	}
	return fired - queued;
}

/* --- a self-requeueing work cancelled from another CPU --------------------------------- */

#define RQ_ROUNDS 4

static struct {
	struct kthread_worker *W;
	struct kthread_work *work;
	int in_fn, runs, runs_at_cancel, rounds;
	bool cancelled, second_done;
	unsigned int spin_us, wait_us[RQ_ROUNDS];
	int worker_cpu, cancel_cpu, second_cpu;
} rq;

static void rq_fn(struct kthread_work *work)
{
	M_CHECK_INT(++rq.in_fn, ==, 1);		/* never two at once */
	M_CHECK(!rq.cancelled);			/* never after a cancel returned */
	rq.runs++;
	udelay(rq.spin_us);
	M->queue_work(rq.W, work);
	rq.in_fn--;
}

/* What a returned cancel leaves: neither pending nor running, and nothing in flight. */
static void rq_after_cancel(void)
{
	M_CHECK(!M->work_pending(rq.work));
	M_CHECK(M->current_work(rq.W) != rq.work);
	M_CHECK_INT(rq.in_fn, ==, 0);
}

/* In the last round, a second canceller on a third CPU (or the first's) races the first. */
static int rq_second(void *arg)
{
	M->cancel_work_sync(rq.work);
	rq.cancelled = true;
	rq_after_cancel();
	rq.second_done = true;
	return 0;
}

static int rq_canceler(void *arg)
{
	for (int r = 0; r < RQ_ROUNDS; r++) {
		int runs0 = rq.runs;

		rq.cancelled = false;
		M_CHECK(M->queue_work(rq.W, rq.work));
		/* once it is going: from its first run on, it is always queued or running */
		while (rq.runs == runs0) {
			udelay(5);
			cond_resched();
		}
		if (r == RQ_ROUNDS - 1)
			sim_spawn("canceler2", rq_second, NULL, rq.second_cpu, true,
				  sim_now() + rq.wait_us[0]);
		udelay(rq.wait_us[r]);
		M->cancel_work_sync(rq.work);
		rq.cancelled = true;
		rq.runs_at_cancel = rq.runs;
		rq_after_cancel();
		/* the last round's second cancel may still wait for the run it saw */
		if (r < RQ_ROUNDS - 1)
			M_CHECK_INT(M->work_canceling(rq.work), ==, 0);
		/* and it stays so: nobody queues it but itself */
		msleep(2);
		M_CHECK_INT(rq.runs, ==, rq.runs_at_cancel);
		M_CHECK(!M->work_pending(rq.work));
		rq.rounds++;
	}
	msleep(2);
	M_CHECK_INT(M->work_canceling(rq.work), ==, 0);
	M->destroy_worker(rq.W);
	return 0;
}

static int rq_main(void *arg)
{
	rq.W = M->create_worker(rq.worker_cpu, 0, "kw");
	sim_spawn("canceler", rq_canceler, NULL, rq.cancel_cpu, true, sim_now());
	return 0;
}

static void rq_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed;

	memset(&rq, 0, sizeof(rq));
	rq.work = m_work(rq_fn);
	rq.spin_us = 1 + (unsigned int)(m_rand(&rnd) % 40);
	for (int r = 0; r < RQ_ROUNDS; r++)
		rq.wait_us[r] = (unsigned int)(m_rand(&rnd) % (50 * (unsigned int)r + 60));
	/*
	 * The worker never sleeps while the work requeues itself. The scheduler
	 * tick marks it to yield, but under voluntary preemption it yields only
	 * at might_sleep() or cond_resched(), and v4.9's worker loop running a
	 * work that spins and requeues itself reaches neither: a canceller woken
	 * on the worker's CPU would wait for a requeueing only its own cancel
	 * can stop. So the worker is bound, the cancellers elsewhere.
	 */
	rq.worker_cpu = (int)(m_rand(&rnd) % (uint64_t)ncpus);
	rq.cancel_cpu = other_cpu(&rnd, rq.worker_cpu, ncpus);
	rq.second_cpu = other_cpu(&rnd, rq.worker_cpu, ncpus);
	sim_spawn("P0", rq_main, NULL, rq.cancel_cpu, true, 0);
}

static void rq_check(void)
{
	ck_assert_msg(rq.rounds == RQ_ROUNDS, "%s: %d rounds of %d", what, rq.rounds, RQ_ROUNDS);
	ck_assert_msg(rq.second_done, "%s: the second cancel never returned", what);
	ck_assert_msg(rq.runs >= RQ_ROUNDS, "%s: ran %d times", what, rq.runs);
}

static const struct pattern self_requeue = {
	"self-requeue vs cancel_work_sync", rq_prepare, rq_check, false };

START_TEST(cancel_self_requeueing_work)
{
	explore(_i, &self_requeue);
}
END_TEST

/* --- a delayed work cancelled while its timer may fire ---------------------------------- */

#define DC_ROUNDS 4

/*
 * Each round one CPU arms the delayed work and another cancels it within a
 * couple of microseconds of the moment the timer fires (or well before, in
 * one round of four). Every armed instance must end exactly one way: the
 * cancel returns true and it never runs, or it runs once, or (mainline) the
 * timer callback drops it because the cancel is in flight, and the cancel
 * returns false.
 */
static struct {
	struct kthread_worker *W;
	struct kthread_delayed_work *dw;
	struct completion armed;
	int round, runs[DC_ROUNDS], in_fn;
	bool ret[DC_ROUNDS], done;
	unsigned long delay[DC_ROUNDS];
	uint64_t fire[DC_ROUNDS];
	long offset_ns[DC_ROUNDS];
	int arm_cpu, cancel_cpu;
} dc;

static void dc_fn(struct kthread_work *work)
{
	M_CHECK_INT(++dc.in_fn, ==, 1);
	dc.runs[dc.round]++;
	udelay(20);
	dc.in_fn--;
}

static int dc_canceler(void *arg)
{
	struct kthread_work *work = M->dwork_work(dc.dw);

	for (int r = 0; r < DC_ROUNDS; r++) {
		wait_for_completion(&dc.armed);
		wait_until(dc.fire[r] + dc.offset_ns[r]);
		dc.ret[r] = M->cancel_delayed_work_sync(dc.dw);
		M_CHECK(!M->work_pending(work));
		M_CHECK(M->current_work(dc.W) != work);
		M_CHECK_INT(dc.in_fn, ==, 0);
		/* pending when cancelled: it did not run and will not */
		M_CHECK(!dc.ret[r] || dc.runs[r] == 0);
		M_CHECK_INT(dc.runs[r], <=, 1);
		msleep(4 * (unsigned int)dc.delay[r] + 8);
		M_CHECK(!M->work_pending(work));
		M_CHECK(!dc.ret[r] || dc.runs[r] == 0);
		M_CHECK_INT(dc.runs[r], <=, 1);
		dc.round++;
	}
	dc.done = true;
	M->destroy_worker(dc.W);
	return 0;
}

static int dc_armer(void *arg)
{
	for (int r = 0; r < DC_ROUNDS; r++) {
		while (dc.round != r)
			msleep(1);
		dc.fire[r] = fire_time(jiffies, dc.delay[r]);
		M_CHECK(M->queue_delayed_work(dc.W, dc.dw, dc.delay[r]));
		complete(&dc.armed);
	}
	return 0;
}

static int dc_main(void *arg)
{
	dc.W = M->create_worker(-1, 0, "kw");
	sim_spawn("armer", dc_armer, NULL, dc.arm_cpu, true, sim_now());
	sim_spawn("canceler", dc_canceler, NULL, dc.cancel_cpu, true, sim_now());
	return 0;
}

static void dc_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed ^ 0x5eed;

	memset(&dc, 0, sizeof(dc));
	init_completion(&dc.armed);
	dc.dw = m_dwork(dc_fn);
	for (int r = 0; r < DC_ROUNDS; r++) {
		dc.delay[r] = 1 + m_rand(&rnd) % 2;
		/* -2 .. +2 us around the expiry, in steps of 20 ns; or 1 ms before */
		dc.offset_ns[r] = r == 3 ? -1000000 : -2000 + 20 * (long)(m_rand(&rnd) % 201);
	}
	dc.arm_cpu = (int)(m_rand(&rnd) % (uint64_t)ncpus);
	dc.cancel_cpu = other_cpu(&rnd, dc.arm_cpu, ncpus);
	sim_spawn("P0", dc_main, NULL, 0, false, 0);
}

static void dc_check(void)
{
	int ended = 0;

	ck_assert_msg(dc.done, "%s: the canceller did not finish", what);
	for (int r = 0; r < DC_ROUNDS; r++)
		ended += dc.ret[r] + dc.runs[r];
	if (m_is("mainline"))
		ended += drops_of(dc.dw);
	ck_assert_msg(ended == DC_ROUNDS, "%s: %d instances armed, %d ended", what, DC_ROUNDS,
		      ended);
}

static const struct pattern delayed_cancel = {
	"cancel_delayed_work_sync vs timer", dc_prepare, dc_check, true };

START_TEST(cancel_delayed_work_while_timer_fires)
{
	explore(_i, &delayed_cancel);
}
END_TEST

/* --- queueing from a timer, hard irqs and a thread while the worker runs --------------- */

#define QI_WORKS	4	/* 0: the timer's, 1..2: the irqs', 3: the thread's */
#define QI_IRQS		24
#define QI_TICKS	12

static struct {
	struct kthread_worker *W;
	struct kthread_work *work[QI_WORKS];
	int queued[QI_WORKS], runs[QI_WORKS], in_fn;
	struct timer_list timer;
	int ticks;
	unsigned int spin_us;
	bool done;
} qi;

static int qi_id(struct kthread_work *work)
{
	for (int i = 0; i < QI_WORKS; i++)
		if (qi.work[i] == work)
			return i;
	return -1;
}

static void qi_fn(struct kthread_work *work)
{
	M_CHECK_INT(++qi.in_fn, ==, 1);		/* one worker: one work at a time */
	qi.runs[qi_id(work)]++;
	udelay(qi.spin_us);
	qi.in_fn--;
}

static void qi_timer_fn(struct timer_list *t)
{
	if (M->queue_work(qi.W, qi.work[0]))
		qi.queued[0]++;
	if (++qi.ticks < QI_TICKS)
		mod_timer(&qi.timer, jiffies + 1);
}

static void qi_irq(void *arg)
{
	int i = (int)(long)arg;

	if (M->queue_work(qi.W, qi.work[i]))
		qi.queued[i]++;
}

static int qi_main(void *arg)
{
	qi.W = M->create_worker((int)(long)arg, 0, "kw");
	timer_setup(&qi.timer, qi_timer_fn, 0);
	mod_timer(&qi.timer, jiffies + 1);
	for (int k = 0; k < 40; k++) {
		if (M->queue_work(qi.W, qi.work[3]))
			qi.queued[3]++;
		udelay(qi.spin_us / 2 + 1);
		if (k % 8 == 7)
			msleep(1);
	}
	/* the timer's last tick and the last irq are behind by then */
	msleep(80);
	M_CHECK_INT(qi.ticks, ==, QI_TICKS);
	M->flush_worker(qi.W);
	for (int i = 0; i < QI_WORKS; i++) {
		M_CHECK(!M->work_pending(qi.work[i]));
		M_CHECK_INT(qi.runs[i], ==, qi.queued[i]);
	}
	M->destroy_worker(qi.W);
	qi.done = true;
	return 0;
}

static void qi_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed ^ 0x1234;
	int wcpu;

	memset(&qi, 0, sizeof(qi));
	for (int i = 0; i < QI_WORKS; i++)
		qi.work[i] = m_work(qi_fn);
	qi.spin_us = 50 + (unsigned int)(m_rand(&rnd) % 400);
	wcpu = (int)(m_rand(&rnd) % (uint64_t)(ncpus + 1)) - 1;
	sim_spawn("P0", qi_main, (void *)(long)wcpu, (int)(m_rand(&rnd) % (uint64_t)ncpus), false,
		  0);
	for (int k = 0; k < QI_IRQS; k++) {
		uint64_t at = 200 * NSEC_PER_USEC + m_rand(&rnd) % (50 * NSEC_PER_MSEC);

		sim_irq_at(at, (int)(m_rand(&rnd) % (uint64_t)ncpus), "irq", qi_irq,
			   (void *)(long)(1 + k % 2));
	}
}

static void qi_check(void)
{
	ck_assert_msg(qi.done, "%s: the scenario did not finish", what);
	for (int i = 0; i < QI_WORKS; i++)
		ck_assert_msg(qi.queued[i] > 0, "%s: work %d never queued", what, i);
}

static const struct pattern queue_irq = {
	"queue from timer, irqs and a thread", qi_prepare, qi_check, false };

START_TEST(queue_from_timer_irq_and_thread)
{
	explore(_i, &queue_irq);
}
END_TEST

/* --- flush_worker from several threads at once ------------------------------------------ */

#define FW_WORKS	12
#define FW_FLUSHERS	3

static struct {
	struct kthread_worker *W;
	struct kthread_work *work[FW_WORKS];
	int queued, completed, flushes, in_fn;
	unsigned int spin_us[FW_WORKS], gap_us[FW_WORKS];
	bool produced;
} fw;

static void fw_fn(struct kthread_work *work)
{
	int i;

	M_CHECK_INT(++fw.in_fn, ==, 1);
	for (i = 0; i < FW_WORKS && fw.work[i] != work; i++)
		;
	udelay(fw.spin_us[i]);
	fw.in_fn--;
	fw.completed++;		/* last: the worker moves on only after this */
}

static int fw_flusher(void *arg)
{
	for (int k = 0; k < 4; k++) {
		int snap = fw.queued;

		M->flush_worker(fw.W);
		/* every work queued before the flush has finished */
		M_CHECK_INT(fw.completed, >=, snap);
		fw.flushes++;
		udelay(100 + 150 * (unsigned int)(long)arg);
	}
	return 0;
}

static int fw_main(void *arg)
{
	int ncpus = (int)(long)arg;

	fw.W = M->create_worker(-1, 0, "kw");
	for (int f = 0; f < FW_FLUSHERS; f++)
		sim_spawn("flusher", fw_flusher, (void *)(long)f, f % ncpus, true, sim_now());
	for (int i = 0; i < FW_WORKS; i++) {
		M_CHECK(M->queue_work(fw.W, fw.work[i]));
		fw.queued++;
		udelay(fw.gap_us[i]);
	}
	fw.produced = true;
	/* the flushers are done well before: each of their rounds is short */
	msleep(100);
	M_CHECK_INT(fw.flushes, ==, 4 * FW_FLUSHERS);
	M->flush_worker(fw.W);
	M_CHECK_INT(fw.completed, ==, FW_WORKS);
	M->destroy_worker(fw.W);
	return 0;
}

static void fw_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed ^ 0xf1u;

	memset(&fw, 0, sizeof(fw));
	for (int i = 0; i < FW_WORKS; i++) {
		fw.work[i] = m_work(fw_fn);
		fw.spin_us[i] = 10 + (unsigned int)(m_rand(&rnd) % 200);
		fw.gap_us[i] = (unsigned int)(m_rand(&rnd) % 150);
	}
	sim_spawn("P0", fw_main, (void *)(long)ncpus, (int)(m_rand(&rnd) % (uint64_t)ncpus), false,
		  0);
}

static void fw_check(void)
{
	ck_assert_msg(fw.produced, "%s: the producer did not finish", what);
	ck_assert_int_eq(fw.completed, FW_WORKS);
}

static const struct pattern flush_many = {
	"flush_worker from several threads", fw_prepare, fw_check, false };

START_TEST(flush_worker_from_several_threads)
{
	explore(_i, &flush_many);
}
END_TEST

/* --- mod_delayed_work from a hard irq and a thread, then cancel ---------------------------- */

#define MC_ROUNDS 3

/*
 * Each round arms the delayed work, then a hard irq on another CPU and the
 * thread both mod it, and the thread cancels it, all within a couple of
 * microseconds of the moment its timer fires.
 *
 * The books are kept as kthread_mod_delayed_work() documents for
 * reference-counting callers: a queue that returns true and a mod that
 * returns false each add a pending instance; a cancel that returns true and
 * each run take one away. On mainline one more thing takes an instance
 * away: a timer callback that finds a cancel or mod in flight drops the
 * work (its canceling test), and the call in flight does not count it, so
 * the books are balanced by counting the drops, read from the trace (a
 * callback that queues fires sched_kthread_work_queue_work in softirq
 * context; one that drops fires nothing). See
 * call_while_its_timer_fires for such drops pinned.
 */
static struct {
	struct kthread_worker *W;
	struct kthread_delayed_work *dw;
	int refs, runs, in_fn, round, rounds;
	bool cancel_returned, irq_done;
	int ran_after_cancel;
	unsigned long d_queue[MC_ROUNDS], d_thread[MC_ROUNDS], d_irq[MC_ROUNDS];
	long irq_ns[MC_ROUNDS], mod_ns[MC_ROUNDS], cancel_ns[MC_ROUNDS];
	int thread_cpu, irq_cpu;
} mc;

static void mc_fn(struct kthread_work *work)
{
	M_CHECK_INT(++mc.in_fn, ==, 1);
	mc.runs++;
	if (mc.cancel_returned)
		mc.ran_after_cancel++;
	udelay(10);
	mc.in_fn--;
}

static void mc_irq(void *arg)
{
	if (!M->mod_delayed_work(mc.W, mc.dw, mc.d_irq[mc.round]))
		mc.refs++;
	mc.irq_done = true;
}

static int mc_thread(void *arg)
{
	struct kthread_work *work = M->dwork_work(mc.dw);

	for (int r = 0; r < MC_ROUNDS; r++) {
		uint64_t fire = fire_time(jiffies, mc.d_queue[r]);

		mc.round = r;
		mc.cancel_returned = mc.irq_done = false;
		if (M->queue_delayed_work(mc.W, mc.dw, mc.d_queue[r]))
			mc.refs++;
		sim_irq_at(fire + mc.irq_ns[r], mc.irq_cpu, "irq", mc_irq, NULL);
		wait_until(fire + mc.mod_ns[r]);
		if (!M->mod_delayed_work(mc.W, mc.dw, mc.d_thread[r]))
			mc.refs++;
		wait_until(fire + mc.cancel_ns[r]);
		if (M->cancel_delayed_work_sync(mc.dw))
			mc.refs--;
		mc.cancel_returned = true;
		/* the irq's delays are never 0: nothing it queued can be running yet */
		M_CHECK(M->current_work(mc.W) != work);
		while (!mc.irq_done)
			msleep(1);
		/* every timer of the round has fired by then */
		msleep(40);
		M->flush_worker(mc.W);
		M_CHECK(!M->work_pending(work));
		mc.rounds++;
	}
	M->destroy_worker(mc.W);
	return 0;
}

static int mc_main(void *arg)
{
	mc.W = M->create_worker(-1, 0, "kw");
	sim_spawn("modder", mc_thread, NULL, mc.thread_cpu, true, sim_now());
	return 0;
}

/* -span .. +span ns, in steps of 25 ns */
static long mc_offset(uint64_t *rnd, long span)
{
	return -span + 25 * (long)(m_rand(rnd) % (uint64_t)(2 * span / 25 + 1));
}

static void mc_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed ^ 0x3c3c;

	memset(&mc, 0, sizeof(mc));
	mc.dw = m_dwork(mc_fn);
	for (int r = 0; r < MC_ROUNDS; r++) {
		mc.d_queue[r] = 1 + m_rand(&rnd) % 2;
		mc.d_thread[r] = m_rand(&rnd) % 3;		/* 0: the fast path */
		mc.d_irq[r] = 1 + m_rand(&rnd) % 2;
		mc.irq_ns[r] = mc_offset(&rnd, 1500);
		mc.mod_ns[r] = mc_offset(&rnd, 1500);
		mc.cancel_ns[r] = mc.mod_ns[r] + 25 * (long)(m_rand(&rnd) % 60);
	}
	mc.thread_cpu = (int)(m_rand(&rnd) % (uint64_t)ncpus);
	mc.irq_cpu = other_cpu(&rnd, mc.thread_cpu, ncpus);
	sim_spawn("P0", mc_main, NULL, mc.thread_cpu, true, 0);
}

static int mc_total_drops;

static void mc_check(void)
{
	int drops = drops_of(mc.dw);

	ck_assert_msg(mc.rounds == MC_ROUNDS, "%s: %d rounds", what, mc.rounds);
	ck_assert_msg(mc.refs - mc.runs == drops, "%s: %d references, %d runs, %d drops",
		      what, mc.refs, mc.runs, drops);
	mc_total_drops += drops;
}

static const struct pattern mod_cancel = {
	"mod_delayed_work from irq and thread, then cancel", mc_prepare, mc_check, true };

/* What a v4.9 run of the pattern may show: the race of model/README.md items 4 and 6. */
enum mc_outcome { MC_CLEAN, MC_ARMED_NO_LIST, MC_FLUSH_HANG, MC_OTHER };

static enum mc_outcome mc_classify(enum sim_end end)
{
	const struct sim_finding *f;

	if (m_check_failures())
		return MC_OTHER;
	if (end == SIM_END_QUIESCENT && !sim_finding_count() && mc.rounds == MC_ROUNDS)
		return MC_CLEAN;
	/*
	 * The timer was left armed for a work on no list: when it fires, the
	 * callback warns and queues the work, which runs after the cancel
	 * returned although nothing queued it since.
	 */
	if (end == SIM_END_QUIESCENT && sim_finding_count() == 1 && mc.rounds == MC_ROUNDS &&
	    m_warn_count("kthread_delayed_work_timer_fn",
			 "WARN_ON_ONCE(list_empty(&work->node))") &&
	    mc.ran_after_cancel > 0)
		return MC_ARMED_NO_LIST;
	/*
	 * The cancel found the work running, raised canceling and went to
	 * flush it; a mod that had dropped the lock before then queued it with
	 * a timer, and the flush work went in after it on the delayed list,
	 * where the worker never looks: the canceller sleeps for good.
	 */
	f = h_first(SIM_F_DEADLOCK);
	if (end == SIM_END_DEADLOCK && f && sim_finding_count() <= 2 &&
	    sim_finding_count() == 1 + h_count(SIM_F_WARN) &&
	    strstr(f->msg, "modder") && strstr(f->msg, "kthread_flush_work"))
		return MC_FLUSH_HANG;
	return MC_OTHER;
}

/*
 * mainline: every seed clean, and the books balance. v4.9: each seed is
 * clean or shows one of the two outcomes of the race the upstream fix
 * closed (v49_mod_cancel_race pins that they do occur); nothing else.
 */
START_TEST(mod_from_irq_and_thread_then_cancel)
{
	if (_i != m_index("v4.9")) {
		explore(_i, &mod_cancel);
		/* the drops the books count do happen: the accounting is not idle */
		ck_assert_int_gt(mc_total_drops, 0);
		return;
	}
	for (uint64_t seed = 0; seed < NSEEDS; seed++) {
		for (int pm = 0; pm < 2; pm++) {
			enum sim_end end;

			enum sim_preempt preempt = pm ? SIM_PREEMPT_FULL : SIM_PREEMPT_VOLUNTARY;

			start_seed(_i, &mod_cancel, seed, preempt);
			end = h_run();
			if (mc_classify(end) == MC_OTHER) {
				h_dump_findings();
				ck_abort_msg("%s: ended %s, %zu findings, %u failed checks (%s)",
					     what, sim_end_name(end), sim_finding_count(),
					     m_check_failures(), m_first_check_failure());
			}
			sim_fini();
		}
	}
}
END_TEST

/*
 * v4.9 only: the race shows, both ways, and mainline runs the very same
 * seeds clean. Counted over the exploration rather than pinned to a seed,
 * so that a change of the machine's schedule does not lose it.
 */
START_TEST(v49_mod_cancel_race)
{
	int v49 = m_index("v4.9"), mainline = m_index("mainline");
	size_t count[MC_OTHER + 1] = { 0 };
	uint64_t first[MC_OTHER + 1] = { 0 };

	for (uint64_t seed = 0; seed < NSEEDS; seed++) {
		for (int pm = 0; pm < 2; pm++) {
			enum sim_preempt preempt = pm ? SIM_PREEMPT_FULL : SIM_PREEMPT_VOLUNTARY;
			enum mc_outcome o;

			start_seed(v49, &mod_cancel, seed, preempt);
			o = mc_classify(h_run());
			sim_fini();
			if (!count[o]++)
				first[o] = seed;
			if (o == MC_CLEAN)
				continue;
			run_seed(mainline, &mod_cancel, seed, preempt);
		}
	}
	fprintf(stderr, "v4.9 mod/cancel race over %d runs: %zu clean, %zu armed for a work on no "
		"list (first seed %llu), %zu cancel hung in flush (first seed %llu)\n", 2 * NSEEDS,
		count[MC_CLEAN], count[MC_ARMED_NO_LIST],
		(unsigned long long)first[MC_ARMED_NO_LIST], count[MC_FLUSH_HANG],
		(unsigned long long)first[MC_FLUSH_HANG]);
	ck_assert_uint_eq(count[MC_OTHER], 0);
	ck_assert_uint_gt(count[MC_ARMED_NO_LIST], 0);
	ck_assert_uint_gt(count[MC_FLUSH_HANG], 0);
}
END_TEST

/*
 * One CPU, the faithful schedule: the delayed work's timer becomes due
 * while kthread_mod_delayed_work() or kthread_cancel_delayed_work_sync() is
 * between dropping the lock and del_timer_sync(), and the softirq runs the
 * callback right there. Where exactly that window falls depends on the
 * machine's costs, so the call is issued at each offset around the expiry
 * in turn.
 *
 * v4.9: the callback queues the work on the run list, the call takes it off
 * again: mod returns true and re-arms it, cancel returns true. mainline: the
 * callback sees canceling and drops the work, and the call finds it on no
 * list: mod returns false ("was idle") and queues it anew, so a
 * reference-counting caller holds two references for one run; cancel
 * returns false ("was not pending") for a work that was pending and never
 * ran. The kernel's code does the same: pinned as mainline's behaviour, not
 * a fault of the model.
 */
static struct {
	struct kthread_worker *W;
	struct kthread_delayed_work *dw;
	long offset;
	bool cancel, ret, pending_before;
	int runs;
} mt;

static void mt_fn(struct kthread_work *work)
{
	mt.runs++;
}

static int mt_main(void *arg)
{
	uint64_t fire;

	mt.W = M->create_worker(-1, 0, "kw");
	msleep(1);
	fire = fire_time(jiffies, 1);
	M_CHECK(M->queue_delayed_work(mt.W, mt.dw, 1));
	wait_until(fire + mt.offset);
	mt.pending_before = M->work_pending(M->dwork_work(mt.dw));
	if (mt.cancel)
		mt.ret = M->cancel_delayed_work_sync(mt.dw);
	else
		mt.ret = M->mod_delayed_work(mt.W, mt.dw, 2);
	msleep(50);
	M->destroy_worker(mt.W);
	return 0;
}

START_TEST(call_while_its_timer_fires)
{
	int n = (int)kw_model_count(), in_window = 0;
	bool cancel = _i / n;

	for (long offset = -300; offset <= 300; offset += 5) {
		struct sim_config cfg = h_config(1);
		int drops;

		h_init_cfg(&cfg);
		m_use(_i % n);
		m_reset_checks();
		memset(&mt, 0, sizeof(mt));
		mt.offset = offset;
		mt.cancel = cancel;
		mt.dw = m_dwork(mt_fn);
		sim_spawn("P0", mt_main, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		snprintf(what, sizeof(what), "%s, %s at %+ld ns of the expiry", M->name,
			 cancel ? "cancel" : "mod", offset);
		m_assert_checks(what);
		m_assert_no_findings(what);
		drops = m_is("mainline") ? drops_of(mt.dw) : 0;
		/* pending when called; a mod runs it once in the end, a cancel never */
		ck_assert_msg(mt.pending_before, "%s: not pending", what);
		ck_assert_msg(mt.runs == !cancel, "%s: %d runs", what, mt.runs);
		if (!mt.ret) {
			/* the window: mainline only, and the callback dropped the work */
			ck_assert_msg(m_is("mainline"), "%s: false for a pending work", what);
			ck_assert_msg(drops == 1, "%s: %d drops", what, drops);
			in_window++;
		} else {
			ck_assert_msg(drops == 0, "%s: %d drops", what, drops);
		}
		sim_fini();
	}
	/* the window exists on mainline, some tens of ns wide */
	if (m_is("mainline"))
		ck_assert_int_gt(in_window, 0);
	else
		ck_assert_int_eq(in_window, 0);
}
END_TEST

/* --- determinism of model runs --------------------------------------------------------------- */

#define MIX_WORKERS	2
#define MIX_WORKS	4
#define MIX_DWORKS	3
#define MIX_THREADS	3
#define MIX_OPS		14
#define MIX_IRQS	8

/*
 * A randomized workload of legal calls: two workers (one bound and
 * freezable, with a suspend and resume), plain and delayed works each
 * belonging to one worker, threads running scripts of random calls, hard
 * irqs and a timer queueing and re-arming. Races between the calls are
 * welcome (on v4.9 a mod racing a cancel may warn or hang): a run only has
 * to be the same run every time.
 */
static struct {
	struct kthread_worker *W[MIX_WORKERS];
	struct kthread_work *w[MIX_WORKS];
	struct kthread_delayed_work *d[MIX_DWORKS];
	int runs[MIX_WORKS + MIX_DWORKS];
	uint8_t op[MIX_THREADS][MIX_OPS], obj[MIX_THREADS][MIX_OPS];
	uint16_t pause_us[MIX_THREADS][MIX_OPS];
	uint8_t delay[MIX_THREADS][MIX_OPS];
	uint8_t irq_obj[MIX_IRQS];
	struct timer_list timer;
	int ticks, threads_done, bound_cpu;
	bool created;
} mix;

static struct kthread_worker *mix_owner(int obj)
{
	return mix.W[obj % MIX_WORKERS];
}

static void mix_fn(struct kthread_work *work)
{
	int i;

	for (i = 0; i < MIX_WORKS && mix.w[i] != work; i++)
		;
	if (i == MIX_WORKS)
		for (i = 0; i < MIX_DWORKS && M->dwork_work(mix.d[i]) != work; i++)
			;
	mix.runs[i]++;
	udelay(5 + 7 * (unsigned int)i);
	/* a plain work queues itself again every third run */
	if (work == mix.w[i % MIX_WORKS] && i < MIX_WORKS && mix.runs[i] % 3 == 1)
		M->queue_work(mix_owner(i), work);
}

static void mix_timer_fn(struct timer_list *t)
{
	M->queue_work(mix_owner(1), mix.w[1]);
	if (++mix.ticks < 10)
		mod_timer(&mix.timer, jiffies + 1 + mix.ticks % 3);
}

static void mix_irq(void *arg)
{
	int o = (int)(long)arg;

	if (o < MIX_WORKS)
		M->queue_work(mix_owner(o), mix.w[o]);
	else
		M->mod_delayed_work(mix_owner(o - MIX_WORKS), mix.d[o - MIX_WORKS], 1 + o % 2);
}

static void mix_op(int t, int k)
{
	int o = mix.obj[t][k] % MIX_WORKS, d = mix.obj[t][k] % MIX_DWORKS;
	unsigned long delay = mix.delay[t][k];

	switch (mix.op[t][k]) {
	case 0:
		M->queue_work(mix_owner(o), mix.w[o]);
		break;
	case 1:
		M->queue_delayed_work(mix_owner(d), mix.d[d], delay);
		break;
	case 2:
		M->mod_delayed_work(mix_owner(d), mix.d[d], delay);
		break;
	case 3:
		M->cancel_work_sync(mix.w[o]);
		break;
	case 4:
		M->cancel_delayed_work_sync(mix.d[d]);
		break;
	case 5:
		M->flush_work(mix.w[o]);
		break;
	case 6:
		M->flush_worker(mix.W[o % MIX_WORKERS]);
		break;
	}
}

static int mix_thread(void *arg)
{
	int t = (int)(long)arg;

	while (!mix.created)
		msleep(1);
	for (int k = 0; k < MIX_OPS; k++) {
		mix_op(t, k);
		if (mix.pause_us[t][k] > 1000)
			msleep(mix.pause_us[t][k] / 1000);
		else
			udelay(mix.pause_us[t][k]);
	}
	mix.threads_done++;
	return 0;
}

static int mix_main(void *arg)
{
	mix.W[0] = M->create_worker(-1, 0, "kw0");
	mix.W[1] = M->create_worker(mix.bound_cpu, KTW_FREEZABLE_FLAG, "kw1");
	timer_setup(&mix.timer, mix_timer_fn, 0);
	mod_timer(&mix.timer, jiffies + 2);
	mix.created = true;
	while (mix.threads_done < MIX_THREADS || mix.ticks < 10)
		msleep(5);
	msleep(20);
	for (int i = 0; i < MIX_DWORKS; i++)
		M->cancel_delayed_work_sync(mix.d[i]);
	for (int i = 0; i < MIX_WORKS; i++)
		M->cancel_work_sync(mix.w[i]);
	for (int i = 0; i < MIX_WORKERS; i++)
		M->destroy_worker(mix.W[i]);
	return 0;
}

static void mix_prepare(uint64_t seed, int ncpus)
{
	uint64_t rnd = seed * 0x9e37 + 11;

	memset(&mix, 0, sizeof(mix));
	for (int i = 0; i < MIX_WORKS; i++)
		mix.w[i] = m_work(mix_fn);
	for (int i = 0; i < MIX_DWORKS; i++)
		mix.d[i] = m_dwork(mix_fn);
	for (int t = 0; t < MIX_THREADS; t++) {
		for (int k = 0; k < MIX_OPS; k++) {
			mix.op[t][k] = (uint8_t)(m_rand(&rnd) % 7);
			mix.obj[t][k] = (uint8_t)(m_rand(&rnd) % 12);
			mix.delay[t][k] = (uint8_t)(m_rand(&rnd) % 4);
			mix.pause_us[t][k] = (uint16_t)(m_rand(&rnd) % 3000);
		}
		sim_spawn("mix", mix_thread, (void *)(long)t, (int)(m_rand(&rnd) % (uint64_t)ncpus),
			  false, m_rand(&rnd) % (2 * NSEC_PER_MSEC));
	}
	for (int k = 0; k < MIX_IRQS; k++)
		sim_irq_at(NSEC_PER_MSEC + m_rand(&rnd) % (40 * NSEC_PER_MSEC),
			   (int)(m_rand(&rnd) % (uint64_t)ncpus), "irq", mix_irq,
			   (void *)(long)(m_rand(&rnd) % (MIX_WORKS + MIX_DWORKS)));
	mix.bound_cpu = (int)(m_rand(&rnd) % (uint64_t)ncpus);
	sim_suspend_at(5 * NSEC_PER_MSEC + m_rand(&rnd) % (20 * NSEC_PER_MSEC));
	sim_resume_at(30 * NSEC_PER_MSEC + m_rand(&rnd) % (20 * NSEC_PER_MSEC));
	sim_spawn("P0", mix_main, NULL, 0, false, 0);
}

/* What a run leaves behind that another run must match. */
struct fingerprint {
	uint64_t hash;
	size_t decisions, findings;
	enum sim_end end;
	int runs;
};

static struct fingerprint mix_run(int variant, uint64_t seed, enum sim_strategy strategy,
				  const struct sim_decision *log, size_t nlog,
				  struct sim_decision **copy)
{
	int ncpus = 2 + (int)(seed % 3);
	struct sim_config cfg = m_explore_config(ncpus, seed & 1 ? SIM_PREEMPT_FULL :
						 SIM_PREEMPT_VOLUNTARY, seed);
	struct fingerprint fp = { 0 };

	cfg.strategy = strategy;
	cfg.time_limit_ns = 10000 * NSEC_PER_MSEC;
	h_init_cfg(&cfg);
	if (log)
		sim_replay_log(log, nlog);
	m_use(variant);
	mix_prepare(seed, ncpus);
	fp.end = h_run();
	fp.hash = sim_trace_hash();
	fp.decisions = sim_decision_count();
	fp.findings = sim_finding_count();
	for (int i = 0; i < MIX_WORKS + MIX_DWORKS; i++)
		fp.runs += mix.runs[i];
	if (copy) {
		*copy = malloc((fp.decisions ? fp.decisions : 1) * sizeof(**copy));
		ck_assert_ptr_nonnull(*copy);
		memcpy(*copy, sim_decisions(), fp.decisions * sizeof(**copy));
	}
	sim_fini();
	return fp;
}

static void same_run(const struct fingerprint *a, const struct fingerprint *b, const char *how,
		     uint64_t seed)
{
	ck_assert_msg(a->hash == b->hash && a->decisions == b->decisions && a->end == b->end &&
		      a->findings == b->findings && a->runs == b->runs,
		      "%s seed %llu, %s: hash %016llx/%016llx, decisions %zu/%zu, end %s/%s, "
		      "findings %zu/%zu, runs %d/%d", M->name, (unsigned long long)seed, how,
		      (unsigned long long)a->hash, (unsigned long long)b->hash, a->decisions,
		      b->decisions, sim_end_name(a->end), sim_end_name(b->end), a->findings,
		      b->findings, a->runs, b->runs);
}

#define MIX_SEEDS 200

START_TEST(model_runs_are_deterministic)
{
	uint64_t distinct = 0, prev = 0;
	size_t quiescent = 0;

	for (uint64_t seed = 0; seed < MIX_SEEDS; seed++) {
		struct sim_decision *log;
		struct fingerprint a, b, c;

		a = mix_run(_i, seed, SIM_STRATEGY_RANDOM, NULL, 0, &log);
		b = mix_run(_i, seed, SIM_STRATEGY_RANDOM, NULL, 0, NULL);
		same_run(&a, &b, "run twice", seed);
		c = mix_run(_i, seed, SIM_STRATEGY_REPLAY, log, a.decisions, NULL);
		same_run(&a, &c, "replayed", seed);
		free(log);
		/* the workload is not idle: things ran, and seeds differ */
		ck_assert_msg(a.runs > 0 && a.decisions > 100,
			      "%s seed %llu: %d runs, %zu decisions", M->name,
			      (unsigned long long)seed, a.runs, a.decisions);
		distinct += a.hash != prev;
		prev = a.hash;
		quiescent += a.end == SIM_END_QUIESCENT;
	}
	ck_assert_uint_eq(distinct, MIX_SEEDS);
	/* most runs come to rest; a v4.9 mod/cancel race may hang a few */
	ck_assert_uint_ge(quiescent, MIX_SEEDS * 9 / 10);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("model_concurrency");
	TCase *tc = tcase_create("core");
	int n = (int)kw_model_count();

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, cancel_self_requeueing_work, 0, n);
	tcase_add_loop_test(tc, cancel_delayed_work_while_timer_fires, 0, n);
	tcase_add_loop_test(tc, queue_from_timer_irq_and_thread, 0, n);
	tcase_add_loop_test(tc, flush_worker_from_several_threads, 0, n);
	tcase_add_loop_test(tc, mod_from_irq_and_thread_then_cancel, 0, n);
	tcase_add_test(tc, v49_mod_cancel_race);
	tcase_add_loop_test(tc, call_while_its_timer_fires, 0, 2 * n);
	tcase_add_loop_test(tc, model_runs_are_deterministic, 0, n);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
