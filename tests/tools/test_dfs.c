/*
 * The dfs strategy (tools/explore/dfs.c): a search bounded by k preemptions,
 * with and without sleep sets, counted against hand counts on two small
 * machines; exhaustion; every schedule run once; the same campaign twice is
 * the same; a machine that is not deterministic stops the search; and on
 * the race library, the races are found within the bound.
 *
 * The two machines. Two threads, A bound to cpu0 and B to cpu1, both
 * started at time 0, each doing spin_lock(l); spin_unlock(l); and exiting.
 * "independent": each its own lock; "conflicting": one lock for both.
 *
 * Each thread's life is four steps, each ending at a scheduling point:
 *   x1  switched in, runs to the point before the lock is taken
 *   x2  takes the lock, releases it, runs to the unlock's point
 *   x3  runs to the point in kthread_exit (complete_all of its exit)
 *   x4  exits: its CPU has nothing left, so it is no candidate any more
 * No point falls while the lock is held, so the lock is never contended,
 * and all steps take a few microseconds, well inside the 20 us skew: any
 * interleaving is possible. The machine asks a CPU question whenever both
 * threads have steps left; once one thread has exited, the other runs to
 * its end without a question. So a schedule is an interleaving of a1..a4
 * with b1..b4: C(8,4) = 70 of them.
 *
 * Preemptions. A switch away from a thread that still has steps is a
 * preemption, except at the first question (nothing ran yet, free). An
 * interleaving made of j blocks (maximal runs of one thread) switches j-1
 * times; the last switch comes after the thread before it has finished (the
 * last block is the rest of the other thread), so it is free: j - 2
 * preemptions. Interleavings with j blocks, starting with either thread:
 * 2 * C(3, ceil(j/2) - 1) * C(3, floor(j/2) - 1) (the ways to cut each
 * thread's 4 steps into its blocks):
 *   j = 2: 2 * 1 * 1 = 2     j = 3: 2 * 3 * 1 = 6     j = 4: 2 * 3 * 3 = 18
 *   j = 5: 2 * 3 * 3 = 18    j = 6: 2 * 3 * 3 = 18    j = 7: 2 * 1 * 3 = 6
 *   j = 8: 2 * 1 * 1 = 2     (sum 70)
 * Without sleep sets, schedules within k (j <= k + 2), both machines alike:
 *   k = 0: 2    k = 1: 8    k = 2: 26    k = 3: 44    k = 6: 70
 *
 * With sleep sets. The default answer continues the CPU that ran last;
 * the first question's default is cpu0. Footprints: a1 touches A and cpu0's
 * idle task (the switch), a2 the lock, a3 nothing but cpu0, a4 A's exit
 * completion and the switch to idle; the same for B on cpu1. So every a step
 * is independent of every b step on "independent"; on "conflicting" a2 and
 * b2 conflict (the lock) and nothing else does.
 *
 * "independent", k >= 1. Run 1: a1 a2 a3 a4 b1 b2 b3 b4 (defaults). Then,
 * deepest first: after a1 a2 a3, answer B (1 preemption); A sleeps (a4 is
 * independent of b1..b3), so B goes on to b4 and a4 runs as the only
 * candidate: a sleeping step, the run is sleep-blocked. The same after a1 a2
 * and after a1 (2 more, blocked). Last, the first question's other answer,
 * B (free): b1..b4 with A asleep, then a1..a4 forced: blocked. 5 schedules,
 * 4 blocked, 1 not (one equivalence class: all steps commute). With k = 0
 * only run 1 and the first question's other answer: 2 (1 blocked).
 *
 * "conflicting". Runs 1-3 as above (after a1 a2 a3 and after a1 a2 the B
 * steps are independent of the sleeping a4 / a3: blocked). After a1, answer
 * B (1 preemption): A sleeps with a2; b1 leaves it asleep, b2 touches the
 * lock and wakes it. B goes on (default) to b4, then a2 a3 a4: run 4, not
 * blocked (the second equivalence class: b2 before a2). Within k = 1 the
 * questions after b2 and after b3 cannot answer A (a second preemption), so
 * what is left is the first question's other answer: b1..b4 with A asleep
 * (a1 is independent of every b step): blocked. 5 schedules, 3 blocked.
 * With k >= 2, also after a1 b1 b2 b3 answer A: a2 then B (b4) sleeps down
 * to the end: blocked; after a1 b1 b2 answer A: B (b3) sleeps: blocked.
 * 7 schedules, 5 blocked, 2 not. k = 0: 2 (1 blocked) as above.
 */
#include <model.h>
#include <scenario/scn.h>
#include <sim/fnv.h>
#undef fail			/* the parser's, not Check's */
#include <explore/dfs.h>
#include <explore/finding.h>
#include <explore/strategy.h>

#include "../harness.h"

#include <linux/spinlock.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 200

static spinlock_t la, lb;
static bool conflicting;

static int section(void *arg)
{
	spinlock_t *l = arg;

	spin_lock(l);
	spin_unlock(l);
	return 0;
}

struct campaign {
	uint64_t schedules, blocked;
	bool exhausted;
	uint64_t logs[MAX_RUNS];	/* each run's decision log, hashed */
	uint64_t traces[MAX_RUNS];	/* and its trace's hash */
};

/* Search the two-thread machine with bound k until dfs says it is done. */
static void search(unsigned int k, bool sleep_sets, struct campaign *c)
{
	struct dfs *d = dfs_new(k, sleep_sets);
	struct dfs_stats st;
	uint64_t r;

	memset(c, 0, sizeof(*c));
	for (r = 0; r < MAX_RUNS; r++) {
		struct sim_config cfg = h_config(2);

		if (!dfs_begin(d, r, &cfg))
			break;
		ck_assert_ptr_nonnull(cfg.chooser);
		ck_assert_int_eq(sim_reset(&cfg), 0);
		spin_lock_init(&la);
		spin_lock_init(&lb);
		sim_spawn("A", section, &la, 0, true, 0);
		sim_spawn("B", section, conflicting ? &la : &lb, 1, true, 0);
		ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
		ck_assert_uint_eq(sim_finding_count(), 0);
		c->logs[r] = sim_fnv(SIM_FNV_OFFSET, sim_decisions(),
				 sim_decision_count() * sizeof(*sim_decisions()));
		c->traces[r] = sim_trace_hash();
		dfs_end(d, r, sim_decisions(), sim_decision_count());
	}
	ck_assert_msg(r < MAX_RUNS, "the search did not end within %d runs", MAX_RUNS);
	dfs_get_stats(d, &st);
	c->schedules = st.schedules;
	c->blocked = st.sleep_blocked;
	c->exhausted = dfs_exhausted(d);
	ck_assert_uint_eq(c->schedules, r);
	dfs_free(d);
}

static void assert_distinct(const uint64_t *v, uint64_t n, const char *what)
{
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = i + 1; j < n; j++)
			ck_assert_msg(v[i] != v[j], "runs %llu and %llu have the same %s",
				      (unsigned long long)i, (unsigned long long)j, what);
}

static const unsigned int bounds[] = { 0, 1, 2, 3, 6 };
/* The hand counts of the header, per bound above. */
static const uint64_t plain_counts[] = { 2, 8, 26, 44, 70 };
static const struct {
	uint64_t schedules, blocked;
} sleep_counts[2][5] = {
	/* independent */ { { 2, 1 }, { 5, 4 }, { 5, 4 }, { 5, 4 }, { 5, 4 } },
	/* conflicting */ { { 2, 1 }, { 5, 3 }, { 7, 5 }, { 7, 5 }, { 7, 5 } },
};

/* Without sleep sets: every interleaving within the bound, each once. */
START_TEST(plain_counts_by_hand)
{
	struct campaign c;

	conflicting = _i;
	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		search(bounds[b], false, &c);
		ck_assert_msg(c.schedules == plain_counts[b], "%s, k=%u: %llu schedules, by hand %llu",
			      conflicting ? "conflicting" : "independent", bounds[b],
			      (unsigned long long)c.schedules, (unsigned long long)plain_counts[b]);
		ck_assert(c.exhausted);
		ck_assert_uint_eq(c.blocked, 0);
		/*
		 * Traces need not differ: records go by time, and swapping
		 * independent steps changes no clock.
		 */
		assert_distinct(c.logs, c.schedules, "decision log");
	}
}
END_TEST

/* With sleep sets: the hand counts, and what is not blocked is one run per equivalence class. */
START_TEST(sleep_set_counts_by_hand)
{
	struct campaign c;

	conflicting = _i;
	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		search(bounds[b], true, &c);
		ck_assert_msg(c.schedules == sleep_counts[_i][b].schedules &&
			      c.blocked == sleep_counts[_i][b].blocked,
			      "%s, k=%u: %llu schedules (%llu blocked), by hand %llu (%llu)",
			      conflicting ? "conflicting" : "independent", bounds[b],
			      (unsigned long long)c.schedules, (unsigned long long)c.blocked,
			      (unsigned long long)sleep_counts[_i][b].schedules,
			      (unsigned long long)sleep_counts[_i][b].blocked);
		ck_assert(c.exhausted);
		assert_distinct(c.logs, c.schedules, "decision log");
	}
	/* unbounded: the classes are 1 (all steps commute) and 2 (a2 and b2 in either order) */
	ck_assert_uint_eq(c.schedules - c.blocked, conflicting ? 2 : 1);
}
END_TEST

/* The same campaign twice: the same schedules in the same order. */
START_TEST(same_campaign_twice)
{
	static struct campaign one, two;

	conflicting = true;
	search(3, true, &one);
	search(3, true, &two);
	ck_assert_uint_eq(one.schedules, two.schedules);
	ck_assert_mem_eq(one.logs, two.logs, sizeof(one.logs));
	ck_assert_mem_eq(one.traces, two.traces, sizeof(one.traces));
}
END_TEST

/*
 * A run that asks another question after the same answers stops the
 * search, loudly: here a third thread appears from the second run on, so
 * the first question has three candidates where it had two.
 */
START_TEST(nondeterminism_stops_the_search)
{
	struct dfs *d = dfs_new(2, true);

	for (uint64_t r = 0; r < MAX_RUNS; r++) {
		struct sim_config cfg = h_config(3);

		if (!dfs_begin(d, r, &cfg))
			break;
		ck_assert_int_eq(sim_reset(&cfg), 0);
		spin_lock_init(&la);
		spin_lock_init(&lb);
		sim_spawn("A", section, &la, 0, true, 0);
		sim_spawn("B", section, &lb, 1, true, 0);
		if (r > 0)
			sim_spawn("C", section, &lb, 2, true, 0);
		sim_run();
		dfs_end(d, r, sim_decisions(), sim_decision_count());
	}
	ck_abort_msg("dfs went on in a tree that changed");
}
END_TEST

/* Through the strategy interface, as kwsim explore drives it. */
START_TEST(strategy_interface)
{
	struct xs_params p = { .kind = XS_DFS, .preemptions = 1 };
	struct xs *x = xs_new(&p);
	char name[32];
	uint64_t r;

	ck_assert_ptr_nonnull(x);
	ck_assert(!xs_independent(XS_DFS));
	ck_assert_str_eq(xs_run_name(x, 0, name, sizeof(name)), "dfs(k=1)");
	conflicting = true;
	for (r = 0; r < MAX_RUNS; r++) {
		struct sim_config cfg = h_config(2);

		if (!xs_begin(x, r, &cfg))
			break;
		ck_assert(!xs_exhausted(x));
		ck_assert_int_eq(sim_reset(&cfg), 0);
		spin_lock_init(&la);
		sim_spawn("A", section, &la, 0, true, 0);
		sim_spawn("B", section, &la, 1, true, 0);
		sim_run();
		xs_end(x, r, sim_decisions(), sim_decision_count());
	}
	ck_assert_uint_eq(r, 5);	/* the hand count above: conflicting, k = 1 */
	ck_assert(xs_exhausted(x));
	ck_assert(!xs_begin(x, r, &(struct sim_config){ 0 }));
	xs_free(x);
}
END_TEST

/*
 * The race library: each `exists` race whose bounded space is small enough
 * to exhaust, searched to the end with and without sleep sets at the
 * smallest bound (at least 1) at which the reduced search shows it. Both
 * searches must end, both must show the race, and the reduced one must not
 * be the larger. mod-delayed-work-vs-cancel-v4.9 needs k = 3 with sleep
 * sets where the full search shows it at k = 2: a reduction under a bound
 * may prune a schedule for an equivalent one beyond the bound (dfs.c).
 */
static const struct {
	const char *file;
	unsigned int k;
} races[] = {
	{ "races/delayed-timer-vs-reinit.kws", 1 },
	{ "races/delayed-timer-vs-reinit-debug-objects.kws", 1 },
	{ "races/flush-armed-delayed-work.kws", 1 },
	{ "races/flush-from-own-worker.kws", 1 },
	{ "races/mod-delayed-work-vs-cancel-mainline.kws", 1 },
	{ "races/mod-delayed-work-vs-cancel-v4.9.kws", 3 },
	{ "races/timer-callback-vs-cancel-delayed-work-sync-mainline.kws", 1 },
	{ "races/timer-callback-vs-cancel-delayed-work-sync-v4.9.kws", 1 },
	{ "races/timer-callback-vs-cancel-delayed-work-sync-v4.9-runs.kws", 1 },
};

#define RACE_RUNS 5000

/* Runs until exhausted; returns how many, and the first run that shows the race in *witness. */
static uint64_t search_race(const struct scn *s, const struct kw_model *m, unsigned int k,
			    bool sleep_sets, long *witness)
{
	struct dfs *d = dfs_new(k, sleep_sets);
	struct scn_run run = { 0 };
	uint64_t r;

	*witness = -1;
	for (r = 0; r < RACE_RUNS; r++) {
		struct sim_config cfg = s->cfg;

		if (!dfs_begin(d, r, &cfg))
			break;
		/* as explore may run: no log kept, dfs has its own account */
		cfg.drop_decisions = sleep_sets;
		run.config = &cfg;
		ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
		if (*witness < 0 && xf_condition_witness(s, &run))
			*witness = (long)r;
		dfs_end(d, r, run.log, run.nlog);
	}
	ck_assert_msg(dfs_exhausted(d), "%s: dfs(k=%u) not done in %d runs", s->path, k, RACE_RUNS);
	scn_run_free(&run);
	dfs_free(d);
	return r;
}

START_TEST(races_found_and_exhausted)
{
	char path[512];
	struct scn *s;
	const struct kw_model *m;
	uint64_t full, reduced;
	long wfull, wreduced;

	snprintf(path, sizeof(path), "%s/%s", KWSIM_SCENARIOS, races[_i].file);
	s = scn_load(path, stderr);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->quant, Q_EXISTS);
	m = kw_model_find(s->kernel[0] ? s->kernel : "mainline");
	ck_assert_ptr_nonnull(m);
	full = search_race(s, m, races[_i].k, false, &wfull);
	reduced = search_race(s, m, races[_i].k, true, &wreduced);
	ck_assert_msg(wfull >= 0 && wreduced >= 0, "%s, k=%u: the race in run %ld (full), %ld (reduced)",
		      races[_i].file, races[_i].k, wfull, wreduced);
	ck_assert_msg(reduced <= full, "%s, k=%u: %llu schedules with sleep sets, %llu without",
		      races[_i].file, races[_i].k, (unsigned long long)reduced, (unsigned long long)full);
	scn_free(s);
}
END_TEST

static Suite *dfs_suite(void)
{
	Suite *s = suite_create("dfs");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, plain_counts_by_hand, 0, 2);
	tcase_add_loop_test(tc, sleep_set_counts_by_hand, 0, 2);
	tcase_add_test(tc, same_campaign_twice);
	tcase_add_test_raise_signal(tc, nondeterminism_stops_the_search, SIGABRT);
	tcase_add_test(tc, strategy_interface);
	tcase_add_loop_test(tc, races_found_and_exhausted, 0, sizeof(races) / sizeof(races[0]));
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(dfs_suite)
