/*
 * Stalls (sim/stall.c): what this suite pins down.
 *  - with cfg.stall_ns 0 no stall question is ever asked;
 *  - a stall question names the CPU (q->cpu, every ids[i]), offers 0 first
 *    and then ascending durations within the bound, among them "just past
 *    CPU k" for the other ready CPU, "just past the next event" and the
 *    fixed ladder; it is never asked where interrupts are off; to a chooser
 *    it says where each CPU it names stands (sites[i] of CPU until[i]);
 *  - a stall taken moves the CPU's clock on by its duration and nothing
 *    runs there meanwhile: the CPU that was behind goes first, the record
 *    (REC_STALL) says how long, what for and at which decision, and the
 *    run is causal;
 *  - a strategy that holds up every CPU it can still lets the run end
 *    (never asked twice at one point);
 *  - a random run's stalls replay from its log, byte for byte, and the log
 *    does not fit a machine without stalls;
 *  - a stall past the soft-lockup time is the watchdog's finding.
 */
#include "../harness.h"

#include <sim/causal.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/sched.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOUND_NS	(10ULL * 1000 * 1000)

static unsigned long x;
static bool cpu0_irqs_off;	/* task a is between local_irq_disable and enable */

static int writer(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < 6; i++) {
		WRITE_ONCE(x, i);
		udelay(10);
		local_irq_disable();
		cpu0_irqs_off = true;
		WRITE_ONCE(x, i + 100);
		udelay(5);
		cpu0_irqs_off = false;
		local_irq_enable();
	}
	return 0;
}

static int reader(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	for (int i = 0; i < 6; i++) {
		sum += READ_ONCE(x);
		udelay(12);
	}
	return (int)(sum & 1);
}

static void two_tasks(void)
{
	x = 0;		/* each run starts from the same state */
	cpu0_irqs_off = false;
	sim_spawn("a", writer, NULL, 0, true, 0);
	sim_spawn("b", reader, NULL, 1, true, 0);
}

/* --- a chooser that checks every stall question and takes the one it is told ---- */

struct watch {
	unsigned int questions;		/* stall questions seen */
	unsigned int past_cpu, past_event;	/* ... offering those kinds */
	unsigned int sites_other;	/* known sites of a CPU not held (until[i] >= 0, i > 0) */
	int take_until;			/* take the first stall waiting for this (or -100: none) */
	bool take_largest;		/* hold up at every question, for the longest */
	bool taken;
	uint64_t took_ns;
	size_t took_index;
	int took_cpu;
};

static unsigned int watch_choose(void *ctx, const struct sim_question *q)
{
	struct watch *w = ctx;

	if (q->why != SIM_WHY_STALL)
		return 0;
	w->questions++;
	ck_assert_ptr_nonnull(q->durations);
	ck_assert_ptr_nonnull(q->until);
	ck_assert_uint_ge(q->n, 2);
	ck_assert_uint_eq(q->durations[0], 0);
	ck_assert_int_eq(q->until[0], q->cpu);
	/* never where interrupts are off */
	ck_assert(!(q->cpu == 0 && cpu0_irqs_off));
	for (unsigned int i = 0; i < q->n; i++) {
		ck_assert_int_eq(q->ids[i], q->cpu);
		ck_assert_uint_le(q->durations[i], BOUND_NS);
		if (i)
			ck_assert_uint_gt(q->durations[i], q->durations[i - 1]);
		if (i && q->until[i] >= 0) {
			ck_assert_int_ne(q->until[i], q->cpu);
			w->past_cpu++;
		}
		w->past_event += q->until[i] == SIM_STALL_EVENT;
	}
	/* the ladder always ends at the bound */
	ck_assert_uint_eq(q->durations[q->n - 1], BOUND_NS);
	/* where CPU until[i] stands: cpu0 runs the writer, cpu1 the reader; no CPU, no site */
	ck_assert_ptr_nonnull(q->sites);
	for (unsigned int i = 0; i < q->n; i++) {
		if (q->until[i] < 0) {
			ck_assert_ptr_null(q->sites[i]);
		} else if (q->sites[i]) {
			ck_assert_str_eq(q->sites[i]->func, q->until[i] == 0 ? "writer" : "reader");
			w->sites_other += i > 0;
		}
	}
	if (w->take_largest)
		return q->n - 1;
	if (w->taken)
		return 0;
	for (unsigned int i = 1; i < q->n; i++) {
		if (q->until[i] == w->take_until) {
			w->taken = true;
			w->took_ns = q->durations[i];
			w->took_index = q->index;
			w->took_cpu = q->cpu;
			return i;
		}
	}
	return 0;
}

static enum sim_end run_watched(struct watch *w, uint64_t stall_ns)
{
	struct sim_config cfg = h_config(2);

	cfg.stall_ns = stall_ns;
	cfg.chooser = watch_choose;
	cfg.chooser_ctx = w;
	cfg.max_steps = 100000;
	h_init_cfg(&cfg);
	two_tasks();
	return h_run();
}

static void assert_causal(void)
{
	char first[320];

	ck_assert_msg(sim_causal_check(sim_trace_records(), sim_trace_count(), first,
				       sizeof(first)) == 0, "%s", first);
}

START_TEST(no_bound_no_question)
{
	struct watch w = { .take_until = -100 };

	ck_assert_int_eq(run_watched(&w, 0), SIM_END_QUIESCENT);
	ck_assert_uint_eq(w.questions, 0);
	ck_assert_uint_eq(h_trace_count(REC_STALL), 0);
	for (size_t i = 0; i < sim_decision_count(); i++)
		ck_assert_uint_ne(sim_decisions()[i].why, SIM_WHY_STALL);
}
END_TEST

START_TEST(questions_offer_what_a_strategy_aims_with)
{
	struct watch w = { .take_until = -100 };

	ck_assert_int_eq(run_watched(&w, BOUND_NS), SIM_END_QUIESCENT);
	ck_assert_uint_gt(w.questions, 10);
	ck_assert_uint_gt(w.past_cpu, 0);
	ck_assert_uint_gt(w.sites_other, 0);
	/* answered 0 throughout: nothing held up */
	ck_assert_uint_eq(h_trace_count(REC_STALL), 0);
}
END_TEST

/* Held up until the other CPU's clock has passed it: the other goes first. */
START_TEST(a_stall_only_delays)
{
	struct watch w = { .take_until = 1 };
	const struct sim_rec *r = NULL, *recs;
	size_t n, at = 0;

	ck_assert_int_eq(run_watched(&w, BOUND_NS), SIM_END_QUIESCENT);
	ck_assert(w.taken);
	ck_assert_int_eq(w.took_cpu, 0);
	ck_assert_uint_eq(h_trace_count(REC_STALL), 1);
	recs = sim_trace_records();
	n = sim_trace_count();
	for (size_t i = 0; i < n; i++)
		if (recs[i].type == REC_STALL)
			r = &recs[at = i];
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->cpu, 0);
	ck_assert_uint_eq(r->a, w.took_ns);
	ck_assert_int_eq((int64_t)r->b, 1);
	ck_assert_uint_eq(r->c, w.took_index);
	/* task a, or cpu0 idle just before it switches a in */
	ck_assert(!r->s || !strcmp(r->s, "a"));
	/* nothing on cpu0 until the stall is over */
	for (size_t i = at + 1; i < n; i++)
		if (recs[i].cpu == 0)
			ck_assert_uint_ge(recs[i].time, r->time + r->a);
	assert_causal();
}
END_TEST

/* A strategy that holds up every CPU at every chance: the run still ends. */
START_TEST(never_asked_twice_at_one_point)
{
	struct watch w = { .take_largest = true };

	ck_assert_int_eq(run_watched(&w, BOUND_NS), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_trace_count(REC_STALL), w.questions);
	ck_assert_uint_gt(w.questions, 5);
	assert_causal();
}
END_TEST

/* --- random stalls replay ------------------------------------------------------ */

struct outcome {
	enum sim_end end;
	uint64_t hash;
	size_t ndec, stalls;
	struct sim_decision *log;
	char divergence[256];
};

static struct outcome run_random(uint64_t seed, uint64_t stall_ns, const struct sim_decision *log,
				 size_t nlog)
{
	struct sim_config cfg = h_config(2);
	struct outcome o = { 0 };

	cfg.strategy = log ? SIM_STRATEGY_REPLAY : SIM_STRATEGY_RANDOM;
	cfg.seed = seed;
	cfg.stall_ns = stall_ns;
	h_init_cfg(&cfg);
	if (log)
		sim_replay_log(log, nlog);
	two_tasks();
	o.end = h_run();
	o.hash = sim_trace_hash();
	o.ndec = sim_decision_count();
	o.stalls = h_trace_count(REC_STALL);
	o.log = malloc((o.ndec + 1) * sizeof(*o.log));
	ck_assert_ptr_nonnull(o.log);
	if (o.ndec)
		memcpy(o.log, sim_decisions(), o.ndec * sizeof(*o.log));
	snprintf(o.divergence, sizeof(o.divergence), "%s", sim_divergence() ? sim_divergence() : "");
	if (!log && o.stalls)
		assert_causal();
	sim_fini();
	return o;
}

START_TEST(random_stalls_replay)
{
	struct outcome a = { 0 }, b, c;
	uint64_t seed;

	/* the first seed whose run holds a CPU up (a quarter of runs stall one point in 2) */
	for (seed = 1; seed <= 64; seed++) {
		a = run_random(seed, BOUND_NS, NULL, 0);
		if (a.stalls)
			break;
		free(a.log);
	}
	ck_assert_uint_gt(a.stalls, 0);
	b = run_random(seed, BOUND_NS, a.log, a.ndec);
	ck_assert_int_eq(b.end, a.end);
	ck_assert_uint_eq(b.hash, a.hash);
	ck_assert_uint_eq(b.ndec, a.ndec);
	ck_assert_uint_eq(b.stalls, a.stalls);
	for (size_t i = 0; i < a.ndec; i++)
		ck_assert(a.log[i].n == b.log[i].n && a.log[i].pick == b.log[i].pick &&
			  a.log[i].why == b.log[i].why);
	/* the same log on a machine that asks no stall question does not fit */
	c = run_random(seed, 0, a.log, a.ndec);
	ck_assert_int_eq(c.end, SIM_END_DIVERGED);
	ck_assert_msg(strstr(c.divergence, "stall") || strstr(c.divergence, "ended"), "%s",
		      c.divergence);
	free(a.log);
	free(b.log);
	free(c.log);
}
END_TEST

/* --- the soft-lockup watchdog sees a stall as it sees a long interrupt ---------- */

static unsigned int largest_once(void *ctx, const struct sim_question *q)
{
	bool *done = ctx;

	if (q->why != SIM_WHY_STALL || *done || q->cpu != 0)
		return 0;
	*done = true;
	return q->n - 1;
}

START_TEST(a_long_stall_is_a_soft_lockup)
{
	struct sim_config cfg = h_config(2);
	bool done = false;
	const struct sim_finding *f;

	cfg.stall_ns = 30ULL * 1000 * 1000 * 1000;	/* past 2 * watchdog_thresh (20 s) */
	cfg.chooser = largest_once;
	cfg.chooser_ctx = &done;
	h_init_cfg(&cfg);
	two_tasks();
	h_run();
	ck_assert(done);
	f = h_first(SIM_F_HUNG);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(strstr(f->msg, "soft lockup - CPU#0"), "%s", f->msg);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("stall");
	TCase *tc = tcase_create("stall");

	tcase_add_test(tc, no_bound_no_question);
	tcase_add_test(tc, questions_offer_what_a_strategy_aims_with);
	tcase_add_test(tc, a_stall_only_delays);
	tcase_add_test(tc, never_asked_twice_at_one_point);
	tcase_add_test(tc, random_stalls_replay);
	tcase_add_test(tc, a_long_stall_is_a_soft_lockup);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(make)
