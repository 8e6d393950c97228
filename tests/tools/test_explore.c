/*
 * Pins the campaign engine and its result (tools/explore):
 *  - PCT's bound against hand-worked values (Burckhardt et al.: a run finds
 *    a depth-d bug with probability >= 1/(k n^(d-1))) and its edges;
 *  - a coverage set keeps each value once, 0 included, and lists them sorted;
 *  - a result written and read back is the same result, byte for byte;
 *  - shards of a campaign, run in this process and merged in either order,
 *    are the whole campaign's result: counts, first runs, tokens, sets;
 *  - the outcome table's counts sum to the runs, and every finding's
 *    first run is one of its runs;
 *  - coverage read incrementally (each context only the works changed
 *    since its point before) is the set a full read of every work at
 *    every point makes, on every race of the library, both kernels.
 */
#include <explore/coverage.h>
#include <explore/explore.h>
#include <explore/finding.h>
#include <scenario/scn.h>
#include <model.h>
#include <sim/sim.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *path_of(const char *file)
{
	char *p = malloc(strlen(KWSIM_SCENARIOS) + strlen(file) + 2);

	ck_assert_ptr_nonnull(p);
	sprintf(p, "%s/%s", KWSIM_SCENARIOS, file);
	return p;
}

START_TEST(pct_bound)
{
	/* n=10, k=2, d=3: p = 1/(2*10^2) = 1/200; 100 runs: 1 - 0.995^100 */
	ck_assert_double_eq_tol(xs_pct_bound(10, 2, 3, 1), 0.005, 1e-12);
	ck_assert_double_eq_tol(xs_pct_bound(10, 2, 3, 100), 0.39422956, 1e-7);
	/* depth 1: any ordering of k contexts: 1/k per run */
	ck_assert_double_eq_tol(xs_pct_bound(1000, 4, 1, 1), 0.25, 1e-12);
	ck_assert_double_eq_tol(xs_pct_bound(1000, 4, 1, 2), 1 - 0.75 * 0.75, 1e-12);
	/* no runs bound nothing; a certain run bounds all */
	ck_assert_double_eq(xs_pct_bound(10, 2, 3, 0), 0);
	ck_assert_double_eq(xs_pct_bound(1, 1, 1, 5), 1);
}
END_TEST

START_TEST(sets)
{
	struct xset s = { 0 };
	uint64_t *v;

	for (uint64_t i = 0; i < 3000; i++)
		xset_add(&s, (i * 7919) % 1000);	/* each of 0..999 three times */
	ck_assert_uint_eq(xset_count(&s), 1000);
	ck_assert(!xset_add(&s, 0));
	ck_assert(xset_add(&s, UINT64_MAX));
	v = xset_sorted(&s);
	for (size_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i);
	ck_assert_uint_eq(v[1000], UINT64_MAX);
	free(v);
	xset_free(&s);
	ck_assert_ptr_null(xset_sorted(&s));
}
END_TEST

/* The campaign's result as its result file's bytes. */
static char *text_of(const struct xr *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(xr_write(f, r), 0);
	fclose(f);
	return buf;
}

static void campaign(const struct scn *s, unsigned int shard, unsigned int nshards, struct xr *r)
{
	struct xc_opts o = { .sp = { .kind = XS_RANDOM, .seed = 5, .depth = 3, .preemptions = 2 },
			     .runs = 120, .shard = shard, .nshards = nshards };
	static const char *const kernels[] = { "v4.9", "mainline" };

	memset(r, 0, sizeof(*r));
	r->nv = 2;
	r->v = calloc(2, sizeof(*r->v));
	ck_assert_ptr_nonnull(r->v);
	for (int i = 0; i < 2; i++)
		r->v[i].kernel = strdup(kernels[i]);
	ck_assert_int_eq(xc_run(s, &o, r, stderr), 0);
}

START_TEST(shards_merge_to_the_whole)
{
	char *path = path_of("races/mod-delayed-work-vs-cancel-v4.9.kws"), err[256];
	struct scn *s = scn_load(path, stderr);
	struct xr whole, a, b, back;
	char *want, *got;
	FILE *f;

	ck_assert_ptr_nonnull(s);
	campaign(s, 0, 1, &whole);
	want = text_of(&whole);
	/* the table sums to the runs; a finding's first run is among its runs */
	for (size_t i = 0; i < whole.nv; i++) {
		uint64_t sum = 0;

		ck_assert_uint_eq(whole.v[i].runs, 120);
		for (size_t j = 0; j < whole.v[i].nstates; j++)
			sum += whole.v[i].states[j].count;
		ck_assert_uint_eq(sum, 120);
		for (size_t j = 0; j < whole.v[i].nfindings; j++) {
			ck_assert_uint_lt(whole.v[i].findings[j].first, 120);
			ck_assert_uint_ge(whole.v[i].findings[j].count, 1);
		}
	}
	/* the race is found on v4.9, and not its condition on mainline */
	ck_assert_uint_gt(whole.v[0].nfindings, 0);
	/* written and read back: the same bytes */
	f = fmemopen(want, strlen(want), "r");
	ck_assert_int_eq(xr_read(f, &back, err, sizeof(err)), 0);
	fclose(f);
	got = text_of(&back);
	ck_assert_str_eq(got, want);
	free(got);
	xr_free(&back);
	/* three shards, merged in two orders */
	for (int order = 0; order < 2; order++) {
		struct xr c;

		campaign(s, order ? 2 : 0, 3, &a);
		campaign(s, 1, 3, &b);
		campaign(s, order ? 0 : 2, 3, &c);
		ck_assert_int_eq(xr_merge(&a, &b, err, sizeof(err)), 0);
		ck_assert_int_eq(xr_merge(&a, &c, err, sizeof(err)), 0);
		a.shard = 0;
		a.nshards = 1;
		got = text_of(&a);
		ck_assert_str_eq(got, want);
		free(got);
		xr_free(&a);
		xr_free(&b);
		xr_free(&c);
	}
	/* another seed is another campaign */
	campaign(s, 0, 2, &a);
	campaign(s, 1, 2, &b);
	b.sp.seed++;
	ck_assert_int_eq(xr_merge(&a, &b, err, sizeof(err)), -1);
	xr_free(&a);
	xr_free(&b);
	free(want);
	xr_free(&whole);
	scn_free(s);
	free(path);
}
END_TEST

/* Both readers at every point: the incremental one, and one that forgets all it read. */
struct two_readers {
	struct xcov inc, full;
};

static void both_points(void *arg)
{
	struct two_readers *t = arg;

	xcov_point(&t->inc);
	xcov_reset(&t->full);
	xcov_point(&t->full);
}

static void same_sets(const struct xset *a, const struct xset *b, const char *what)
{
	uint64_t *x = xset_sorted(a), *y = xset_sorted(b);

	ck_assert_msg(xset_count(a) == xset_count(b), "%s: %zu tuples read incrementally, %zu "
		      "read in full", what, xset_count(a), xset_count(b));
	for (size_t i = 0; i < xset_count(a); i++)
		ck_assert_msg(x[i] == y[i], "%s: tuple %zu differs", what, i);
	free(x);
	free(y);
}

START_TEST(incremental_coverage_is_a_full_read)
{
	DIR *d = opendir(KWSIM_SCENARIOS "/races");
	struct dirent *e;
	size_t races = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		const char *kernels[] = { "v4.9", "mainline" };
		char rel[300], *path;
		struct scn *s;

		if (!strstr(e->d_name, ".kws"))
			continue;
		snprintf(rel, sizeof(rel), "races/%s", e->d_name);
		path = path_of(rel);
		s = scn_load(path, stderr);
		ck_assert_ptr_nonnull(s);
		for (size_t k = 0; k < 2; k++) {
			struct xset inc = { 0 }, full = { 0 };
			struct two_readers t = { { .tuples = &inc }, { .tuples = &full } };
			struct scn_run run = { 0 };

			t.inc.works = t.full.works = xcov_works(s, &t.inc.nworks);
			t.full.nworks = t.inc.nworks;
			for (uint64_t r = 0; r < 40; r++) {
				struct sim_config cfg = s->cfg;

				cfg.strategy = SIM_STRATEGY_RANDOM;
				cfg.seed = r + 1;
				cfg.keep_trace = false;
				cfg.on_point = both_points;
				cfg.on_point_arg = &t;
				cfg.on_list = xcov_list;
				cfg.on_list_arg = &t.inc;
				t.inc.run = t.full.run = &run;
				xcov_reset(&t.inc);
				run.config = &cfg;
				ck_assert_int_eq(scn_run(s, kw_model_find(kernels[k]), &run, stderr), 0);
				scn_run_free(&run);
			}
			same_sets(&inc, &full, e->d_name);
			ck_assert_uint_gt(xset_count(&inc), 0);
			xcov_free(&t.inc);
			xcov_free(&t.full);
			free((void *)t.inc.works);
			xset_free(&inc);
			xset_free(&full);
		}
		sim_fini();
		scn_free(s);
		free(path);
		races++;
	}
	closedir(d);
	ck_assert_uint_ge(races, 10);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("explore");
	TCase *tc = tcase_create("result");

	tcase_add_test(tc, pct_bound);
	tcase_add_test(tc, sets);
	tcase_add_test(tc, shards_merge_to_the_whole);
	tcase_add_test(tc, incremental_coverage_is_a_full_read);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
