/*
 * Choices and replay: what this suite pins down.
 *  - FAITHFUL answers 0 to every choice, and the decision log of a small
 *    scenario is exactly the choices the machine had (n, pick, why);
 *  - RANDOM is reproducible from its seed and differs across seeds, and
 *    never picks outside the candidates;
 *  - REPLAY of a recorded log reproduces the run: end, trace hash, decision
 *    count and the log itself;
 *  - a replay whose log does not fit (wrong n, wrong reason, pick >= n,
 *    truncated, extra entries, also after a deadlock) ends SIM_END_DIVERGED,
 *    and sim_divergence() says at which decision and why;
 *  - max_decisions stops the run with SIM_END_DECISION_LIMIT after exactly
 *    that many decisions;
 *  - a chooser of the caller's answers every question in order, with who
 *    the candidates are, and its log replays without it; on_point sees every
 *    scheduling point, and sim_raise reports from there;
 *  - a time range's value (sim_choose_range()): the candidates and their
 *    values by hand, the lower bound in the faithful run, a value in the
 *    range drawn by random, one 'r' decision logged, the same value and run
 *    replayed from the log, a chooser shown the bounds.
 */
#include "../harness.h"

#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/irqflags.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- a scenario with every kind of choice ----------------------------------------- */

#define NWORKERS 3

static struct task_struct *sleeper;
static unsigned long shared, finished, done, wakes, irqs_seen;

static void mix_irq(void *arg)
{
	(void)arg;
	irqs_seen++;
	wake_up_process(sleeper);
}

static int sleeper_fn(void *arg)
{
	(void)arg;
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(done)) {
			__set_current_state(TASK_RUNNING);
			return 0;
		}
		schedule();
		wakes++;
	}
}

/* Unlocked read-modify-write: how many updates survive depends on the interleaving. */
static int worker_fn(void *arg)
{
	unsigned long i = (uintptr_t)arg;

	for (unsigned long j = 0; j < 15; j++) {
		unsigned long v = READ_ONCE(shared);

		/* an irq arriving here is pending at the enable: take it, or run on */
		local_irq_disable();
		udelay(1 + (i + j) % 3);
		local_irq_enable();
		WRITE_ONCE(shared, v + 1);
		if (j % 4 == i)
			msleep(1);
		if (j % 3 == 0)
			wake_up_process(sleeper);
	}
	if (++finished == NWORKERS) {
		WRITE_ONCE(done, 1);
		wake_up_process(sleeper);
	}
	return 0;
}

static void mix_setup(void)
{
	shared = finished = done = wakes = irqs_seen = 0;
	sleeper = sim_spawn("sleeper", sleeper_fn, NULL, 0, false, 0);
	for (unsigned long i = 0; i < NWORKERS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "worker%lu", i);
		sim_spawn(name, worker_fn, (void *)i, (int)i, false, 1000 * i);
	}
	for (int k = 0; k < 10; k++)
		sim_irq_at(5000 + 7000 * (uint64_t)k, k % 3, "mix", mix_irq, NULL);
}

struct outcome {
	enum sim_end end;
	uint64_t hash;
	size_t ndec;
	struct sim_decision *log;
	unsigned long shared;
	char divergence[256];
};

static struct outcome run(enum sim_strategy strategy, uint64_t seed, uint64_t max_decisions,
			  const struct sim_decision *replay, size_t nreplay, void (*setup)(void))
{
	struct sim_config cfg = h_config(3);
	struct outcome o = { 0 };

	cfg.strategy = strategy;
	cfg.seed = seed;
	cfg.max_decisions = max_decisions;
	h_init_cfg(&cfg);
	if (replay)
		sim_replay_log(replay, nreplay);
	setup();
	o.end = h_run();
	o.hash = sim_trace_hash();
	o.ndec = sim_decision_count();
	o.log = malloc((o.ndec + 8) * sizeof(*o.log));
	ck_assert(o.log);
	if (o.ndec)
		memcpy(o.log, sim_decisions(), o.ndec * sizeof(*o.log));
	o.shared = shared;
	snprintf(o.divergence, sizeof(o.divergence), "%s",
		 sim_divergence() ? sim_divergence() : "");
	sim_fini();
	return o;
}

/* Field by field: a struct sim_decision has a padding byte. */
static bool same_log(const struct sim_decision *a, const struct sim_decision *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].n != b[i].n || a[i].pick != b[i].pick || a[i].why != b[i].why)
			return false;
	return true;
}

static void assert_same(const struct outcome *a, const struct outcome *b)
{
	ck_assert_int_eq(a->end, b->end);
	ck_assert_uint_eq(a->hash, b->hash);
	ck_assert_uint_eq(a->ndec, b->ndec);
	ck_assert(same_log(a->log, b->log, a->ndec));
	ck_assert_uint_eq(a->shared, b->shared);
}

/* --- FAITHFUL -------------------------------------------------------------------- */

START_TEST(faithful_always_picks_zero)
{
	struct outcome o = run(SIM_STRATEGY_FAITHFUL, 1, 0, NULL, 0, mix_setup);
	size_t why[SIM_WHY__COUNT] = { 0 };

	ck_assert_int_eq(o.end, SIM_END_QUIESCENT);
	ck_assert_uint_gt(o.ndec, 50);
	for (size_t i = 0; i < o.ndec; i++) {
		ck_assert_uint_eq(o.log[i].pick, 0);
		ck_assert_uint_ge(o.log[i].n, 2);
		ck_assert_uint_lt(o.log[i].why, SIM_WHY__COUNT);
		why[o.log[i].why]++;
	}
	/* the scenario exercises every kind of choice */
	ck_assert_uint_gt(why[SIM_WHY_CPU], 0);
	ck_assert_uint_gt(why[SIM_WHY_IRQ], 0);
	ck_assert_uint_gt(why[SIM_WHY_PLACE], 0);
	/* placement asks among every CPU */
	for (size_t i = 0; i < o.ndec; i++)
		if (o.log[i].why == SIM_WHY_PLACE)
			ck_assert_uint_eq(o.log[i].n, 3);
	free(o.log);
}
END_TEST

static int return_at_once(void *arg)
{
	(void)arg;
	return 0;
}

static void two_spawns(void)
{
	sim_spawn("a", return_at_once, NULL, 0, false, 0);
	sim_spawn("b", return_at_once, NULL, 1, false, 0);
}

/*
 * Two unbound tasks spawned on two idle CPUs at time 0: each spawn places its
 * task (two CPUs to choose from); then both CPUs are ready at 0 (cpu0 first);
 * a's exit point leaves cpu0 at 1550 while cpu1 waits at 0 (cpu1 first); b's
 * exit point leaves both at 1550 (cpu0 first). After that only one CPU at a
 * time has anything to do, and a lone candidate is no choice.
 */
START_TEST(decision_log_records_choices)
{
	static const struct sim_decision want[] = {
		{ 2, 0, SIM_WHY_PLACE }, { 2, 0, SIM_WHY_PLACE },
		{ 2, 0, SIM_WHY_CPU }, { 2, 0, SIM_WHY_CPU }, { 2, 0, SIM_WHY_CPU },
	};
	struct sim_config cfg = h_config(2);
	const struct sim_decision *log;

	h_init_cfg(&cfg);
	two_spawns();
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_decision_count(), 5);
	log = sim_decisions();
	for (size_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(log[i].n, want[i].n);
		ck_assert_uint_eq(log[i].pick, want[i].pick);
		ck_assert_uint_eq(log[i].why, want[i].why);
	}
}
END_TEST

static void irq_handler(void *arg)
{
	(void)arg;
}

static int irq_window(void *arg)
{
	(void)arg;
	local_irq_disable();
	udelay(10);
	local_irq_enable();	/* the pending irq or one more step of the task */
	return 0;
}

START_TEST(decision_log_records_irq_choice)
{
	h_init(1);
	sim_spawn("t", irq_window, NULL, 0, false, 0);
	sim_irq_at(3000, 0, "irq", irq_handler, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_decision_count(), 1);
	ck_assert_uint_eq(sim_decisions()[0].n, 2);
	ck_assert_uint_eq(sim_decisions()[0].pick, 0);
	ck_assert_uint_eq(sim_decisions()[0].why, SIM_WHY_IRQ);
}
END_TEST

/* --- RANDOM ----------------------------------------------------------------------- */

START_TEST(random_reproducible_from_seed)
{
	struct outcome a = run(SIM_STRATEGY_RANDOM, 42, 0, NULL, 0, mix_setup);
	struct outcome b = run(SIM_STRATEGY_RANDOM, 42, 0, NULL, 0, mix_setup);

	ck_assert_int_eq(a.end, SIM_END_QUIESCENT);
	assert_same(&a, &b);
	for (size_t i = 0; i < a.ndec; i++)
		ck_assert_uint_lt(a.log[i].pick, a.log[i].n);
	free(a.log);
	free(b.log);
}
END_TEST

START_TEST(random_differs_across_seeds)
{
	struct outcome f = run(SIM_STRATEGY_FAITHFUL, 42, 0, NULL, 0, mix_setup);
	struct outcome a = run(SIM_STRATEGY_RANDOM, 42, 0, NULL, 0, mix_setup);
	struct outcome b = run(SIM_STRATEGY_RANDOM, 43, 0, NULL, 0, mix_setup);
	size_t nonzero = 0;

	ck_assert_uint_ne(a.hash, b.hash);
	ck_assert_uint_ne(a.hash, f.hash);
	for (size_t i = 0; i < a.ndec; i++)
		nonzero += a.log[i].pick != 0;
	ck_assert_uint_gt(nonzero, 0);
	free(f.log);
	free(a.log);
	free(b.log);
}
END_TEST

/* --- REPLAY ---------------------------------------------------------------------- */

START_TEST(replay_reproduces_run)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	struct outcome rep = run(SIM_STRATEGY_REPLAY, 99, 0, rec.log, rec.ndec, mix_setup);

	ck_assert_int_eq(rec.end, SIM_END_QUIESCENT);
	assert_same(&rec, &rep);
	ck_assert_str_eq(rep.divergence, "");
	free(rec.log);
	free(rep.log);
}
END_TEST

/* The index of a decision of the reason asked for, nearest the middle of the log after it. */
static size_t middle(const struct outcome *o, enum sim_why why)
{
	for (size_t i = o->ndec / 2; i < o->ndec; i++)
		if (o->log[i].why == why)
			return i;
	for (size_t i = o->ndec / 2; i-- > 1;)
		if (o->log[i].why == why)
			return i;
	ck_abort_msg("no '%d' decision in the log past the first", why);
	return 0;
}

/* Replay a tampered copy of a recorded log; it must diverge at decision k with msg. */
static void expect_divergence(struct outcome *rec, size_t len, size_t k, const char *msg)
{
	struct outcome rep = run(SIM_STRATEGY_REPLAY, 1, 0, rec->log, len, mix_setup);

	ck_assert_int_eq(rep.end, SIM_END_DIVERGED);
	ck_assert_str_eq(rep.divergence, msg);
	/* the log stops at the decision that did not fit */
	ck_assert_uint_eq(rep.ndec, k);
	free(rep.log);
}

START_TEST(replay_wrong_n)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	size_t k = middle(&rec, SIM_WHY_CPU);
	unsigned int n = rec.log[k].n;
	char msg[256];

	rec.log[k].n++;
	snprintf(msg, sizeof(msg), "decision %zu: the log has %u candidates, the run has %u", k,
		 n + 1, n);
	expect_divergence(&rec, rec.ndec, k, msg);
	free(rec.log);
}
END_TEST

START_TEST(replay_pick_out_of_range)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	size_t k = middle(&rec, SIM_WHY_PLACE);
	unsigned int n = rec.log[k].n;
	char msg[256];

	rec.log[k].pick = (uint16_t)n;
	snprintf(msg, sizeof(msg), "decision %zu: the log picks candidate %u of %u", k, n, n);
	expect_divergence(&rec, rec.ndec, k, msg);
	free(rec.log);
}
END_TEST

START_TEST(replay_wrong_reason)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	size_t k = middle(&rec, SIM_WHY_IRQ);
	char msg[256];

	rec.log[k].why = SIM_WHY_PLACE;
	snprintf(msg, sizeof(msg),
		 "decision %zu: the log has a 'place' choice, the run asks a 'irq' one", k);
	expect_divergence(&rec, rec.ndec, k, msg);
	free(rec.log);
}
END_TEST

START_TEST(replay_truncated)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	size_t len = rec.ndec / 2;
	char msg[256];

	snprintf(msg, sizeof(msg), "decision %zu: the log ends here (%u candidates, %zu logged)",
		 len, rec.log[len].n, len);
	expect_divergence(&rec, len, len, msg);
	free(rec.log);
}
END_TEST

START_TEST(replay_extra_entries)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	char msg[256];

	for (size_t i = 0; i < 3; i++)
		rec.log[rec.ndec + i] = rec.log[rec.ndec - 1];
	snprintf(msg, sizeof(msg), "the run ended after %zu decisions, the log has %zu", rec.ndec,
		 rec.ndec + 3);
	expect_divergence(&rec, rec.ndec + 3, rec.ndec, msg);
	free(rec.log);
}
END_TEST

/* Two tasks waiting for completions nobody completes: the run ends in a deadlock. */
static struct completion never[2];

static int wait_never(void *arg)
{
	wait_for_completion(arg);
	return 0;
}

static void deadlock_setup(void)
{
	init_completion(&never[0]);
	init_completion(&never[1]);
	sim_spawn("p", wait_never, &never[0], 0, false, 0);
	sim_spawn("q", wait_never, &never[1], 1, false, 0);
}

START_TEST(replay_extra_entries_after_deadlock)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 3, 0, NULL, 0, deadlock_setup);
	struct outcome ok, rep;
	char msg[256];

	ck_assert_int_eq(rec.end, SIM_END_DEADLOCK);
	ck_assert_uint_gt(rec.ndec, 0);
	ok = run(SIM_STRATEGY_REPLAY, 1, 0, rec.log, rec.ndec, deadlock_setup);
	assert_same(&rec, &ok);
	rec.log[rec.ndec] = rec.log[0];
	rep = run(SIM_STRATEGY_REPLAY, 1, 0, rec.log, rec.ndec + 1, deadlock_setup);
	ck_assert_int_eq(rep.end, SIM_END_DIVERGED);
	snprintf(msg, sizeof(msg), "the run ended after %zu decisions, the log has %zu", rec.ndec,
		 rec.ndec + 1);
	ck_assert_str_eq(rep.divergence, msg);
	free(rec.log);
	free(ok.log);
	free(rep.log);
}
END_TEST

/* --- a chooser of the caller's own ------------------------------------------------ */

struct asked {
	size_t n;
	unsigned int last_pick;
	bool bad_ids, bad_index;
	size_t cpu_questions, sized[SIM_WHY__COUNT];
};

/* Always the last candidate: the answer furthest from the faithful one. */
static unsigned int last_candidate(void *ctx, const struct sim_question *q)
{
	struct asked *a = ctx;

	a->sized[q->why]++;
	if (q->index != a->n)
		a->bad_index = true;
	a->n++;
	for (unsigned int i = 0; i < q->n; i++) {
		if (!q->ids)
			continue;
		/* cpu, place, spin name CPUs; irq and wake name one CPU twice */
		if (q->ids[i] < 0 || q->ids[i] >= 3)
			a->bad_ids = true;
		if ((q->why == SIM_WHY_IRQ || q->why == SIM_WHY_WAKE) && q->ids[i] != q->ids[0])
			a->bad_ids = true;
		for (unsigned int j = 0; j < i && q->why == SIM_WHY_CPU; j++)
			if (q->ids[j] == q->ids[i])
				a->bad_ids = true;
	}
	a->cpu_questions += q->why == SIM_WHY_CPU;
	return a->last_pick = q->n - 1;
}

/*
 * The chooser answers every question, in order, with who the candidates
 * are; its answers are the log; the log replays without it, and a saved
 * strategy of faithful does not check a chooser's log.
 */
START_TEST(chooser_answers_and_its_log_replays)
{
	struct sim_config cfg = h_config(3);
	struct asked a = { 0 };
	struct outcome rep;
	struct sim_decision *log;
	size_t n;
	uint64_t hash;

	cfg.chooser = last_candidate;
	cfg.chooser_ctx = &a;
	h_init_cfg(&cfg);
	mix_setup();
	h_run();
	n = sim_decision_count();
	hash = sim_trace_hash();
	ck_assert_uint_eq(a.n, n);
	ck_assert(!a.bad_ids);
	ck_assert(!a.bad_index);
	ck_assert_uint_gt(a.cpu_questions, 10);
	ck_assert_uint_gt(a.sized[SIM_WHY_PLACE], 0);
	log = malloc(n * sizeof(*log));
	ck_assert(log);
	memcpy(log, sim_decisions(), n * sizeof(*log));
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(log[i].pick, log[i].n - 1u);
	sim_fini();
	rep = run(SIM_STRATEGY_REPLAY, 0, 0, log, n, mix_setup);
	ck_assert_int_ne(rep.end, SIM_END_DIVERGED);
	ck_assert_uint_eq(rep.hash, hash);
	ck_assert_uint_eq(rep.ndec, n);
	ck_assert(same_log(rep.log, log, n));
	free(rep.log);
	free(log);
}
END_TEST

/* An answer out of range is the chooser's bug: the machine takes the faithful one. */
static unsigned int out_of_range(void *ctx, const struct sim_question *q)
{
	(void)ctx;
	return q->n + 5;
}

START_TEST(chooser_out_of_range_is_faithful)
{
	struct outcome f = run(SIM_STRATEGY_FAITHFUL, 0, 0, NULL, 0, mix_setup);
	struct sim_config cfg = h_config(3);

	cfg.chooser = out_of_range;
	h_init_cfg(&cfg);
	mix_setup();
	h_run();
	ck_assert_uint_eq(sim_trace_hash(), f.hash);
	ck_assert_uint_eq(sim_decision_count(), f.ndec);
	sim_fini();
	free(f.log);
}
END_TEST

/* on_point runs at every scheduling point; sim_raise reports where it is called from. */
static unsigned long points_seen;

static void count_points(void *arg)
{
	(void)arg;
	if (++points_seen == 40)
		sim_raise(SIM_F_INVARIANT, "the fortieth point (%d)", 40);
}

START_TEST(on_point_and_sim_raise)
{
	struct sim_config cfg = h_config(3);
	struct sim_stats st;
	const struct sim_finding *f;
	uint64_t hash;

	struct outcome plain = run(SIM_STRATEGY_FAITHFUL, 0, 0, NULL, 0, mix_setup);

	hash = plain.hash;
	free(plain.log);
	points_seen = 0;
	cfg.on_point = count_points;
	h_init_cfg(&cfg);
	mix_setup();
	h_run();
	sim_get_stats(&st);
	ck_assert_uint_ge(points_seen, st.points);
	ck_assert_uint_eq(sim_finding_count_kind(SIM_F_INVARIANT), 1);
	for (size_t i = 0; i < sim_finding_count(); i++) {
		f = sim_finding(i);
		if (f->kind != SIM_F_INVARIANT)
			continue;
		ck_assert_str_eq(f->msg, "the fortieth point (40)");
		ck_assert_str_eq(sim_finding_kind_name(f->kind), "invariant");
	}
	/* watching changes nothing but the finding's own record */
	ck_assert_uint_ne(sim_trace_hash(), hash);
	sim_fini();
}
END_TEST

/* --- the decision limit ---------------------------------------------------------- */

/* A log is checked against the strategy that says it made it: random from its seed, or faithful. */
START_TEST(replay_checked_against_strategy)
{
	struct outcome rec = run(SIM_STRATEGY_RANDOM, 7, 0, NULL, 0, mix_setup);
	struct outcome same = run(SIM_STRATEGY_RANDOM, 7, 0, rec.log, rec.ndec, mix_setup);
	struct outcome other = run(SIM_STRATEGY_RANDOM, 8, 0, rec.log, rec.ndec, mix_setup);
	struct outcome faithful = run(SIM_STRATEGY_FAITHFUL, 7, 0, rec.log, rec.ndec, mix_setup);
	size_t first = 0;

	assert_same(&rec, &same);
	ck_assert_str_eq(same.divergence, "");
	ck_assert_int_eq(other.end, SIM_END_DIVERGED);
	ck_assert_ptr_nonnull(strstr(other.divergence, "but the random strategy it names picks"));
	while (first < rec.ndec && rec.log[first].pick == 0)
		first++;
	ck_assert_uint_lt(first, rec.ndec);
	ck_assert_int_eq(faithful.end, SIM_END_DIVERGED);
	ck_assert_uint_eq(faithful.ndec, first);
	ck_assert_ptr_nonnull(strstr(faithful.divergence, "but the faithful strategy it names picks 0"));
	free(rec.log);
	free(same.log);
	free(other.log);
	free(faithful.log);
}
END_TEST

/* An empty log may come as NULL: nothing to copy, and the first decision finds it ended. */
START_TEST(replay_empty_log)
{
	struct sim_config cfg = h_config(3);

	cfg.strategy = SIM_STRATEGY_REPLAY;
	h_init_cfg(&cfg);
	sim_replay_log(NULL, 0);
	mix_setup();
	ck_assert_int_eq(h_run(), SIM_END_DIVERGED);
	ck_assert_uint_eq(sim_decision_count(), 0);
	ck_assert_ptr_nonnull(strstr(sim_divergence(), "decision 0: the log ends here"));
	sim_fini();
}
END_TEST

START_TEST(max_decisions_stops)
{
	struct outcome f = run(SIM_STRATEGY_FAITHFUL, 1, 10, NULL, 0, mix_setup);
	struct outcome r = run(SIM_STRATEGY_RANDOM, 5, 25, NULL, 0, mix_setup);
	struct outcome full = run(SIM_STRATEGY_RANDOM, 5, 0, NULL, 0, mix_setup);

	ck_assert_int_eq(f.end, SIM_END_DECISION_LIMIT);
	ck_assert_uint_eq(f.ndec, 10);
	ck_assert_int_eq(r.end, SIM_END_DECISION_LIMIT);
	ck_assert_uint_eq(r.ndec, 25);
	/* the limited run made the same first choices as the full one */
	ck_assert(same_log(r.log, full.log, 25));
	/* a limit the run never reaches changes nothing */
	free(r.log);
	r = run(SIM_STRATEGY_RANDOM, 5, full.ndec, NULL, 0, mix_setup);
	assert_same(&r, &full);
	free(f.log);
	free(r.log);
	free(full.log);
}
END_TEST

/* --- ranges ------------------------------------------------------------------------- */

/* Hand-worked: a decision holds at most 65,535 candidates, both bounds among them. */
START_TEST(range_candidates_and_values)
{
	ck_assert_uint_eq(sim_range_candidates(7, 7), 1);
	ck_assert_uint_eq(sim_range_candidates(9, 7), 1);
	/* msleep(5..20): one candidate per millisecond */
	ck_assert_uint_eq(sim_range_candidates(5, 20), 16);
	for (unsigned int i = 0; i < 16; i++)
		ck_assert_uint_eq(sim_range_value(5, 20, 16, i), 5 + i);
	/* 65,535 values fit exactly; one more and the grid is spaced */
	ck_assert_uint_eq(sim_range_candidates(0, 65534), 65535);
	ck_assert_uint_eq(sim_range_value(0, 65534, 65535, 40000), 40000);
	ck_assert_uint_eq(sim_range_candidates(0, 65535), 65535);
	/* 20ms..30ms: 10,000,000 ns over 65,534 steps, 152.59 ns each, rounded down */
	ck_assert_uint_eq(sim_range_candidates(20000000, 30000000), 65535);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, 0), 20000000);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, 1), 20000152);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, 2), 20000305);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, 32767), 25000000);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, 65534), 30000000);
	/* the widest range: no overflow, the upper bound reached exactly */
	ck_assert_uint_eq(sim_range_value(0, INT64_MAX, 65535, 65534), (uint64_t)INT64_MAX);
	ck_assert_uint_eq(sim_range_value(0, INT64_MAX, 65535, 32767),
			  (uint64_t)INT64_MAX / 65534 * 32767 + (uint64_t)INT64_MAX % 65534 * 32767 / 65534);
	/* an index past the last is the last */
	ck_assert_uint_eq(sim_range_value(5, 20, 16, 99), 20);
}
END_TEST

/* A thread started at a range's value, that busy-waits a range's length. */
static uint64_t range_start, range_len;

static int ranged_fn(void *arg)
{
	(void)arg;
	range_len = sim_choose_range(100, 1000);	/* udelay(100..1000) */
	udelay(range_len);
	WRITE_ONCE(shared, shared + 1);
	return 0;
}

static void range_setup(void)
{
	shared = 0;
	/* decided as the run is set up, in a fixed order: at 20ms..30ms */
	range_start = sim_choose_range(20000000, 30000000);
	sim_spawn("ranged", ranged_fn, NULL, 0, false, range_start);
	sim_spawn("other", ranged_fn, NULL, 1, false, 25000000);
}

static unsigned int bounds_seen;

static unsigned int check_bounds(void *ctx, const struct sim_question *q)
{
	(void)ctx;
	if (q->why != SIM_WHY_RANGE)
		return 0;
	ck_assert((q->lo == 20000000 && q->hi == 30000000 && q->n == 65535) ||
		  (q->lo == 100 && q->hi == 1000 && q->n == 901));
	bounds_seen++;
	return q->n - 1;
}

START_TEST(range_logged_and_replayed)
{
	struct outcome f = run(SIM_STRATEGY_FAITHFUL, 0, 0, NULL, 0, range_setup);
	struct outcome r, rep;
	uint64_t start, len;
	size_t ranges = 0;
	struct sim_config cfg = h_config(3);

	/* faithful: the lower bounds, each an 'r' decision answered 0 */
	ck_assert_uint_eq(range_start, 20000000);
	ck_assert_uint_eq(range_len, 100);
	ck_assert_uint_ge(f.ndec, 3);
	ck_assert_uint_eq(f.log[0].why, SIM_WHY_RANGE);
	ck_assert_uint_eq(f.log[0].n, 65535);
	ck_assert_uint_eq(f.log[0].pick, 0);
	for (size_t i = 0; i < f.ndec; i++)
		if (f.log[i].why == SIM_WHY_RANGE) {
			ck_assert_uint_eq(f.log[i].pick, 0);
			ranges++;
		}
	ck_assert_uint_eq(ranges, 3);
	/* random: values inside the ranges, logged; the log replays them and the run */
	r = run(SIM_STRATEGY_RANDOM, 11, 0, NULL, 0, range_setup);
	start = range_start;
	len = range_len;
	ck_assert(start >= 20000000 && start <= 30000000 && start != 20000000);
	ck_assert(len >= 100 && len <= 1000);
	ck_assert_uint_eq(r.log[0].why, SIM_WHY_RANGE);
	ck_assert_uint_eq(sim_range_value(20000000, 30000000, 65535, r.log[0].pick), start);
	range_start = range_len = 0;
	rep = run(SIM_STRATEGY_REPLAY, 0, 0, r.log, r.ndec, range_setup);
	assert_same(&rep, &r);
	ck_assert_uint_eq(range_start, start);
	ck_assert_uint_eq(range_len, len);
	/* a log whose range has another number of candidates does not fit */
	r.log[0].n = 901;
	free(rep.log);
	rep = run(SIM_STRATEGY_REPLAY, 0, 0, r.log, r.ndec, range_setup);
	ck_assert_int_eq(rep.end, SIM_END_DIVERGED);
	ck_assert_ptr_nonnull(strstr(rep.divergence, "decision 0: the log has 901 candidates, the run has 65535"));
	/* a chooser is shown the bounds; its answer n - 1 is the upper bound */
	cfg.chooser = check_bounds;
	bounds_seen = 0;
	h_init_cfg(&cfg);
	range_setup();
	h_run();
	sim_fini();
	ck_assert_uint_eq(bounds_seen, 3);
	ck_assert_uint_eq(range_start, 30000000);
	ck_assert_uint_eq(range_len, 1000);
	free(f.log);
	free(r.log);
	free(rep.log);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("choose");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, faithful_always_picks_zero);
	tcase_add_test(tc, decision_log_records_choices);
	tcase_add_test(tc, decision_log_records_irq_choice);
	tcase_add_test(tc, random_reproducible_from_seed);
	tcase_add_test(tc, random_differs_across_seeds);
	tcase_add_test(tc, replay_reproduces_run);
	tcase_add_test(tc, replay_wrong_n);
	tcase_add_test(tc, replay_pick_out_of_range);
	tcase_add_test(tc, replay_wrong_reason);
	tcase_add_test(tc, replay_truncated);
	tcase_add_test(tc, replay_extra_entries);
	tcase_add_test(tc, replay_extra_entries_after_deadlock);
	tcase_add_test(tc, replay_checked_against_strategy);
	tcase_add_test(tc, replay_empty_log);
	tcase_add_test(tc, max_decisions_stops);
	tcase_add_test(tc, chooser_answers_and_its_log_replays);
	tcase_add_test(tc, chooser_out_of_range_is_faithful);
	tcase_add_test(tc, on_point_and_sim_raise);
	tcase_add_test(tc, range_candidates_and_values);
	tcase_add_test(tc, range_logged_and_replayed);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
