/*
 * Pins determinism over the mix (tests/sim/mix.c), a seeded randomised
 * workload of CPUs, tasks, bound kthreads, locks, delays, sleeps,
 * completions, timers, interrupts, wake-ups and allocations:
 *  - a seed run again gives the same trace hash, decision count and end,
 *    whatever ran in the process before it (the second pass goes through
 *    the seeds backwards), under the random and the faithful strategy;
 *  - a random run's decision log, replayed, gives the same run;
 *  - different seeds give different runs;
 *  - the mix is clean: every run comes to rest with no finding, so a
 *    finding here is the machine's bug (or a broken mix), not the workload's.
 */
#include "../harness.h"
#include "mix.h"

#include <stdlib.h>
#include <string.h>

#define SEEDS	200

struct outcome {
	uint64_t hash;
	size_t decisions;
	enum sim_end end;
};

static struct outcome run_seed(uint64_t seed, enum sim_strategy strategy)
{
	struct mix_run r = { .seed = seed, .strategy = strategy };

	mix_run(&r);
	return (struct outcome){ r.hash, r.decisions, r.end };
}

static void same(uint64_t seed, const char *what, struct outcome a, struct outcome b)
{
	ck_assert_msg(a.hash == b.hash && a.decisions == b.decisions && a.end == b.end,
		      "seed %llu, %s: %016llx/%zu/%s then %016llx/%zu/%s", (unsigned long long)seed,
		      what, (unsigned long long)a.hash, a.decisions, sim_end_name(a.end),
		      (unsigned long long)b.hash, b.decisions, sim_end_name(b.end));
}

static void runs_repeat(enum sim_strategy strategy, const char *what)
{
	static struct outcome first[SEEDS];

	for (int s = 0; s < SEEDS; s++)
		first[s] = run_seed((uint64_t)s, strategy);
	for (int s = SEEDS - 1; s >= 0; s--)
		same((uint64_t)s, what, first[s], run_seed((uint64_t)s, strategy));
}

START_TEST(random_runs_repeat)
{
	runs_repeat(SIM_STRATEGY_RANDOM, "random");
}
END_TEST

START_TEST(faithful_runs_repeat)
{
	runs_repeat(SIM_STRATEGY_FAITHFUL, "faithful");
}
END_TEST

START_TEST(replay_reproduces_the_run)
{
	size_t total = 0;

	for (uint64_t s = 0; s < SEEDS; s++) {
		struct mix_run rec = { .seed = s, .strategy = SIM_STRATEGY_RANDOM, .keep_log = true };
		struct mix_run rep = { .seed = s, .strategy = SIM_STRATEGY_REPLAY };

		mix_run(&rec);
		ck_assert_uint_eq(rec.nlog, rec.decisions);
		rep.replay = rec.log;
		rep.nreplay = rec.nlog;
		mix_run(&rep);
		ck_assert_msg(!rep.divergence[0], "seed %llu: %s", (unsigned long long)s,
			      rep.divergence);
		same(s, "replayed", (struct outcome){ rec.hash, rec.decisions, rec.end },
		     (struct outcome){ rep.hash, rep.decisions, rep.end });
		total += rec.decisions;
		mix_release(&rec);
	}
	/* the mix gives the replay something to follow */
	ck_assert_uint_gt(total, 100 * SEEDS);
}
END_TEST

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(seeds_differ)
{
	static uint64_t hashes[SEEDS];
	int distinct = 1;

	for (int s = 0; s < SEEDS; s++)
		hashes[s] = run_seed((uint64_t)s, SIM_STRATEGY_RANDOM).hash;
	qsort(hashes, SEEDS, sizeof(hashes[0]), by_value);
	for (int s = 1; s < SEEDS; s++)
		distinct += hashes[s] != hashes[s - 1];
	ck_assert_int_ge(distinct, SEEDS - 10);
}
END_TEST

/* Same workload, other choices: a seed's random run is not its faithful one. */
START_TEST(strategy_changes_the_run)
{
	int differ = 0, multi = 0;

	for (uint64_t s = 0; s < SEEDS; s++) {
		struct outcome r = run_seed(s, SIM_STRATEGY_RANDOM);

		if (!r.decisions)
			continue;
		multi++;
		differ += r.hash != run_seed(s, SIM_STRATEGY_FAITHFUL).hash;
	}
	ck_assert_int_gt(multi, SEEDS / 2);
	ck_assert_int_ge(differ, multi * 9 / 10);
}
END_TEST

START_TEST(mix_is_clean)
{
	static const enum sim_strategy strategies[] = { SIM_STRATEGY_RANDOM, SIM_STRATEGY_FAITHFUL };

	for (size_t k = 0; k < 2; k++) {
		for (uint64_t s = 0; s < SEEDS; s++) {
			struct mix_run r = { .seed = s, .strategy = strategies[k] };

			mix_run(&r);
			ck_assert_msg(r.end == SIM_END_QUIESCENT && !r.findings,
				      "seed %llu (%s): %s, %zu findings, first: %s",
				      (unsigned long long)s, k ? "faithful" : "random",
				      sim_end_name(r.end), r.findings, r.first_finding);
			ck_assert_msg(!r.causal, "seed %llu (%s): %zu causality violations, first: %s",
				      (unsigned long long)s, k ? "faithful" : "random", r.causal,
				      r.causal_first);
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("determinism");
	TCase *tc = tcase_create("mix");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, random_runs_repeat);
	tcase_add_test(tc, faithful_runs_repeat);
	tcase_add_test(tc, replay_reproduces_the_run);
	tcase_add_test(tc, seeds_differ);
	tcase_add_test(tc, strategy_changes_the_run);
	tcase_add_test(tc, mix_is_clean);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
