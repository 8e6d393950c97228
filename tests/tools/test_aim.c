/*
 * The strategies that aim with time (tools/explore: tpct.c, delay over
 * dfs.c, pair.c), over the machine's stalls (SIM_WHY_STALL):
 *  - each is a function of its seed: a campaign made twice makes the same
 *    runs, decision for decision;
 *  - each, and the portfolio, finds the race made for stalls
 *    (tests/tools/strategy/off-window.kws:
 *    a read that must come before a write made 5 ms earlier in the
 *    faithful run), which no run without stalls shows;
 *  - delay-bounded search enumerates exactly the schedules counted by hand
 *    for k = 1 and k = 2 on that scenario, each once, then says its space is
 *    exhausted; its shards split that space without losing or repeating a
 *    schedule beyond the faithful one each shard starts from;
 *  - timed PCT holds a CPU up only at its change points: depth 1 makes no
 *    stall at all, depth 2 at most one per run;
 *  - shrinking a stalled witness keeps one stall, the shortest that shows
 *    it, and names it in the bug depth;
 *  - the strategies that order CPUs (pct, pos, rff) answer stall questions
 *    too: a CPU yields to a ready CPU beyond the skew window that outranks
 *    it (tests/tools/strategy/beyond-window.kws: a write 1.9 ms before the
 *    read it must follow; each shows it in about half its runs, never
 *    without stalls), and pos and rff order the next pending event as one
 *    more contender, so they show off-window.kws, which pct (no event is a
 *    thread of PCT's) leaves to tpct.
 * All work is bounded by runs, never by time.
 */
#include <explore/finding.h>
#include <explore/shrink.h>
#include <explore/strategy.h>
#include <model.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STALL_NS	10000000ULL	/* 10 ms: over the 5 ms the race needs */

static struct scn *load_file(const char *name, const struct kw_model **m)
{
	char path[4096];
	struct scn *s;

	snprintf(path, sizeof(path), "%s/%s", KWSIM_STRATEGY_SCENARIOS, name);
	s = scn_load(path, stderr);
	ck_assert_ptr_nonnull(s);
	*m = kw_model_find("mainline");
	ck_assert_ptr_nonnull(*m);
	s->cfg.keep_trace = false;
	s->cfg.stall_ns = STALL_NS;
	return s;
}

static struct scn *load(const struct kw_model **m)
{
	return load_file("off-window.kws", m);
}

static struct xs *campaign(struct xs_params p, const struct scn *s, const struct kw_model *m,
			   struct scn_run *run)
{
	struct xs *x;

	ck_assert_int_eq(xs_calibrate(&p, s, m, run, stderr), 0);
	x = xs_new(&p);
	ck_assert_ptr_nonnull(x);
	return x;
}

/* Run r of x; false when its space is exhausted. The run stays in run. */
static bool run_one(const struct scn *s, const struct kw_model *m, struct xs *x, uint64_t r,
		    struct scn_run *run)
{
	struct sim_config cfg = s->cfg;

	if (!xs_begin(x, r, &cfg))
		return false;
	ck_assert_ptr_nonnull(cfg.chooser);
	run->config = &cfg;
	ck_assert_int_eq(scn_run(s, m, run, stderr), 0);
	run->config = NULL;
	xs_end(x, r, run->log, run->nlog);
	return true;
}

static const struct xs_params aiming[] = {
	{ .kind = XS_TPCT, .depth = 2, .seed = 7 },
	{ .kind = XS_DELAY, .preemptions = 1, .seed = 7 },
	{ .kind = XS_PAIR, .seed = 7 },
	{ .kind = XS_PORTFOLIO, .seed = 7 },	/* the default: its tpct and random runs */
};
#define NAIMING ((int)(sizeof(aiming) / sizeof(aiming[0])))

/* A run's log, as text: "c0/2 h3/9 ...". */
static char *log_text(const struct scn_run *run)
{
	size_t len = 0;
	char *t = NULL;
	FILE *f = open_memstream(&t, &len);

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < run->nlog; i++)
		fprintf(f, "%c%u/%u ", SIM_WHY_LETTERS[run->log[i].why], run->log[i].pick,
			run->log[i].n);
	ck_assert_int_eq(fclose(f), 0);
	return t;
}

START_TEST(same_seed_same_runs)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };
	char *first[40] = { 0 };

	for (int pass = 0; pass < 2; pass++) {
		struct xs *x = campaign(aiming[_i], s, m, &run);

		for (uint64_t r = 0; r < 40 && run_one(s, m, x, r, &run); r++) {
			char *t = log_text(&run);

			if (!pass) {
				first[r] = t;
				continue;
			}
			ck_assert_msg(first[r] && !strcmp(first[r], t), "run %llu differs: %s / %s",
				      (unsigned long long)r, first[r] ? first[r] : "(none)", t);
			free(t);
		}
		xs_free(x);
	}
	for (int i = 0; i < 40; i++)
		free(first[i]);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* The first run of x within budget that shows the condition, or -1. */
static long first_witness(const struct scn *s, const struct kw_model *m, struct xs *x, long budget,
			  struct scn_run *run)
{
	for (long r = 0; r < budget; r++) {
		if (!run_one(s, m, x, (uint64_t)r, run))
			return -1;
		if (xf_condition_witness(s, run))
			return r;
	}
	return -1;
}

START_TEST(finds_the_off_window_race)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };
	struct xs *x = campaign(aiming[_i], s, m, &run);
	char name[64];
	long r = first_witness(s, m, x, 200, &run);

	ck_assert_msg(r >= 0, "%s does not show it in 200 runs", xs_run_name(x, 0, name, sizeof(name)));
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* Without stalls no strategy shows it: the race is one of time, not of order. */
START_TEST(no_stall_no_race)
{
	static const struct xs_params others[] = {
		{ .kind = XS_RANDOM, .seed = 1 }, { .kind = XS_POS, .seed = 1 },
		{ .kind = XS_PCT, .depth = 3, .seed = 1 }, { .kind = XS_TPCT, .depth = 3, .seed = 1 },
		{ .kind = XS_PAIR, .seed = 1 },
	};
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };

	s->cfg.stall_ns = 0;
	for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
		struct xs *x = campaign(others[k], s, m, &run);

		ck_assert_int_lt(first_witness(s, m, x, 500, &run), 0);
		xs_free(x);
	}
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

static const struct xs_params ordering[] = {
	{ .kind = XS_PCT, .depth = 1, .seed = 3 },
	{ .kind = XS_POS, .seed = 3 },
	{ .kind = XS_RFF, .seed = 3 },
};
#define NORDERING ((int)(sizeof(ordering) / sizeof(ordering[0])))

/* Runs of x's first 'runs' that show the condition. */
static long witnesses(const struct scn *s, const struct kw_model *m, struct xs *x, long runs,
		      struct scn_run *run)
{
	long n = 0;

	for (long r = 0; r < runs && run_one(s, m, x, (uint64_t)r, run); r++)
		n += xf_condition_witness(s, run);
	return n;
}

/* Ordered across the skew window by a stall: in a fifth of 60 runs at least; never without. */
START_TEST(order_strategies_yield_beyond_window)
{
	const struct kw_model *m;
	struct scn *s = load_file("beyond-window.kws", &m);
	struct scn_run run = { 0 };
	struct xs *x = campaign(ordering[_i], s, m, &run);
	char name[64];
	long n = witnesses(s, m, x, 60, &run);

	xs_run_name(x, 0, name, sizeof(name));
	ck_assert_msg(n >= 12, "%s shows it in %ld of 60 runs", name, n);
	xs_free(x);
	s->cfg.stall_ns = 0;
	x = campaign(ordering[_i], s, m, &run);
	ck_assert_int_eq(witnesses(s, m, x, 200, &run), 0);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* pos and rff hold a CPU up for the next event, a contender; pct does not (tpct does). */
START_TEST(order_strategies_and_events)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };

	for (int k = 0; k < NORDERING; k++) {
		struct xs *x = campaign(ordering[k], s, m, &run);
		long n = witnesses(s, m, x, 60, &run);

		if (ordering[k].kind == XS_PCT)
			ck_assert_int_eq(n, 0);
		else
			ck_assert_msg(n >= 12, "%s shows off-window.kws in %ld of 60 runs",
				      xs_kind_name(ordering[k].kind), n);
		xs_free(x);
	}
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/*
 * Delay bounding on off-window.kws, counted by hand. In the faithful run
 * cpu0 is picked five times before 5 ms, while P1's start is the one
 * pending event and cpu1 idles: the init block's task (entered; its exit,
 * which hands cpu0 to P0), then P0 (entered, before spin_lock, before
 * spin_unlock; the trace's sched_switch and lock records). Each pick asks a
 * stall question; P1's picks at 5 ms ask none (nothing else ready, nothing
 * pending). Each question offers six answers: not held, the fixed ladder's
 * 10 us, 100 us and 1 ms, until just after the next event (P1's start,
 * about 5 ms: the one delay), and the 10 ms bound (fixed). So k = 1 has
 * 1 + 5 = 6 schedules. k = 2: after a delay at a pick, cpu0 goes on beside
 * P1 from 5 ms, and each pick of either CPU with the other ready offers
 * second delays (until the other CPU has passed it): k = 2's schedules are
 * k = 1's and more, each once, with at most two delays.
 */
static uint64_t delay_campaign(unsigned int k, unsigned int shard, unsigned int nshards,
			       char ***logs)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };
	struct xs_params p = { .kind = XS_DELAY, .preemptions = k, .shard = shard,
			       .nshards = nshards };
	struct xs *x = campaign(p, s, m, &run);
	uint64_t r;

	*logs = NULL;
	for (r = 0; r < 10000 && run_one(s, m, x, r, &run); r++) {
		size_t delays = 0;

		*logs = realloc(*logs, (r + 1) * sizeof(**logs));
		ck_assert_ptr_nonnull(*logs);
		(*logs)[r] = log_text(&run);
		for (size_t i = 0; i < run.nlog; i++) {
			if (run.log[i].why != SIM_WHY_STALL)
				ck_assert_uint_eq(run.log[i].pick, 0);
			delays += run.log[i].pick != 0;
		}
		ck_assert_uint_le(delays, k);
	}
	ck_assert_msg(xs_exhausted(x), "delay(k=%u) not exhausted after %llu runs", k,
		      (unsigned long long)r);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
	return r;
}

static bool has(char **logs, uint64_t n, const char *t)
{
	for (uint64_t i = 0; i < n; i++)
		if (!strcmp(logs[i], t))
			return true;
	return false;
}

static void free_logs(char **logs, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		free(logs[i]);
	free(logs);
}

START_TEST(delay_bounded_counts)
{
	char **one, **two;
	uint64_t n1 = delay_campaign(1, 0, 1, &one), n2 = delay_campaign(2, 0, 1, &two);

	for (uint64_t i = 0; getenv("AIM_DEBUG") && i < n1; i++)
		fprintf(stderr, "k=1 %llu: %s\n", (unsigned long long)i, one[i]);
	ck_assert_uint_eq(n1, 6);
	for (uint64_t i = 0; i < n1; i++)
		for (uint64_t j = i + 1; j < n1; j++)
			ck_assert_str_ne(one[i], one[j]);
	ck_assert_uint_gt(n2, n1);
	for (uint64_t i = 0; i < n2; i++)
		for (uint64_t j = i + 1; j < n2; j++)
			ck_assert_str_ne(two[i], two[j]);
	for (uint64_t i = 0; i < n1; i++)
		ck_assert_msg(has(two, n2, one[i]), "k=2 lacks k=1's %s", one[i]);
	free_logs(one, n1);
	free_logs(two, n2);
}
END_TEST

START_TEST(delay_bounded_shards)
{
	char **all, **part[3];
	uint64_t n = delay_campaign(2, 0, 1, &all), np[3], sum = 0;

	for (unsigned int i = 0; i < 3; i++) {
		np[i] = delay_campaign(2, i, 3, &part[i]);
		/* every shard starts from the faithful schedule, all's first */
		ck_assert_str_eq(part[i][0], all[0]);
		sum += np[i] - 1;
		for (uint64_t j = 0; j < np[i]; j++)
			ck_assert_msg(has(all, n, part[i][j]), "shard %u's %s is not all's", i,
				      part[i][j]);
	}
	/* the rest split without loss or repetition */
	ck_assert_uint_eq(sum + 1, n);
	for (uint64_t j = 1; j < n; j++) {
		int in = 0;

		for (unsigned int i = 0; i < 3; i++)
			in += has(part[i], np[i], all[j]);
		ck_assert_msg(in == 1, "%s in %d shards", all[j], in);
	}
	for (unsigned int i = 0; i < 3; i++)
		free_logs(part[i], np[i]);
	free_logs(all, n);
}
END_TEST

/* tpct's stalls are its change points: none at depth 1, at most d - 1 a run. */
START_TEST(tpct_stalls_are_change_points)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };

	for (unsigned int d = 1; d <= 3; d++) {
		struct xs *x = campaign((struct xs_params){ .kind = XS_TPCT, .depth = d, .seed = 3 },
					s, m, &run);
		size_t most = 0;

		for (uint64_t r = 0; r < 200; r++) {
			size_t held = 0;

			ck_assert(run_one(s, m, x, r, &run));
			for (size_t i = 0; i < run.nlog; i++)
				held += run.log[i].why == SIM_WHY_STALL && run.log[i].pick;
			ck_assert_uint_le(held, d - 1);
			most = held > most ? held : most;
		}
		/* the change points do fall on the stall questions of a run this short */
		if (d > 1)
			ck_assert_uint_ge(most, 1);
		xs_free(x);
	}
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* A witness that a stall made shrinks to one stall, and the bug depth says how long. */
START_TEST(shrink_keeps_one_stall)
{
	const struct kw_model *m;
	struct scn *s = load(&m);
	struct scn_run run = { 0 };
	struct xs *x = campaign((struct xs_params){ .kind = XS_DELAY, .preemptions = 1 }, s, m, &run);
	struct xshrink_result out = { 0 };
	char *text;

	ck_assert_int_ge(first_witness(s, m, x, 100, &run), 0);
	ck_assert_msg(!xshrink(s, m, &run, XF_CONDITION_KEY, 0, &out), "%s", out.error);
	if (getenv("AIM_DEBUG"))
		fprintf(stderr, "%s", out.text);
	ck_assert_uint_eq(out.after.stalls, 1);
	ck_assert_uint_eq(out.after.deviations, 1);
	/* the shortest hold that lets P1 start first: just past 5 ms */
	ck_assert_uint_gt(out.after.stall_ns, 5000000 - 3100);
	ck_assert_uint_le(out.after.stall_ns, STALL_NS);
	text = xshrink_stall_text(&out.after);
	ck_assert_msg(strstr(out.text, text) != NULL, "the shrunk file's comment lacks '%s'", text);
	free(text);
	xshrink_result_free(&out);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("aim");
	TCase *tc = tcase_create("aim");

	tcase_add_loop_test(tc, same_seed_same_runs, 0, NAIMING);
	tcase_add_loop_test(tc, finds_the_off_window_race, 0, NAIMING);
	tcase_add_test(tc, no_stall_no_race);
	tcase_add_loop_test(tc, order_strategies_yield_beyond_window, 0, NORDERING);
	tcase_add_test(tc, order_strategies_and_events);
	tcase_add_test(tc, delay_bounded_counts);
	tcase_add_test(tc, delay_bounded_shards);
	tcase_add_test(tc, tpct_stalls_are_change_points);
	tcase_add_test(tc, shrink_keeps_one_stall);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
