/*
 * Reads-from pairs (sim/readsfrom.c) and the rff strategy (tools/explore/rff.c):
 *  - a work queued from a thread and run by the worker is the pair
 *    kthread_queue_work's unlock -> the worker's lock of worker->lock,
 *    thread -> kthread_worker; queued from a hard interrupt, hardirq ->
 *    kthread_worker; on every variant built;
 *  - cfg.on_rf changes no run: the trace hash and the log are those of the
 *    same run without it, over the race library and random seeds;
 *  - rff: a campaign is a function of its seed (runs, pairs, counts); it
 *    holds a candidate standing at an ordering's later site while the
 *    earlier one is not done and lets one at the earlier site go first; it
 *    calls the caller's on_rf with every pair; it finds each race of
 *    scenarios/races within a bounded number of runs for a fixed seed.
 * All work is bounded by runs, never by time.
 */
#include <explore/finding.h>
#include <explore/strategy.h>
#include <model.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <sim/site.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct scn *load(const char *file, const char *kernel, const struct kw_model **m)
{
	char path[4096];
	struct scn *s;

	ck_assert_int_lt(snprintf(path, sizeof(path), "%s/%s", KWSIM_SCENARIOS, file), sizeof(path));
	s = scn_load(path, stderr);
	ck_assert_msg(s != NULL, "%s does not parse", path);
	*m = kw_model_find(kernel ? kernel : s->kernel);
	ck_assert_ptr_nonnull(*m);
	s->cfg.keep_trace = false;
	return s;
}

/* --- the pairs of a run ---------------------------------------------------------------- */

#define MAX_PAIRS 512

struct seen {
	size_t n, calls;
	struct {
		char writer[64], reader[64];
		enum sim_rf_ctx wk, rk;
		enum sim_rf_via via;
		uint64_t hash;
	} p[MAX_PAIRS];
};

static void collect(void *arg, const struct sim_rf *rf)
{
	struct seen *s = arg;
	uint64_t h = sim_rf_hash(rf);

	/* the machine's hashes are those of the pair's names */
	ck_assert_uint_eq(rf->hash, h);
	ck_assert_uint_eq(rf->writer_hash, sim_site_hash(rf->writer));
	ck_assert_uint_eq(rf->reader_hash, sim_site_hash(rf->reader));
	s->calls++;
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].hash == h)
			return;
	if (s->n == MAX_PAIRS)
		return;
	snprintf(s->p[s->n].writer, sizeof(s->p[0].writer), "%s",
		 rf->writer && rf->writer->func ? sim_unprefix(rf->writer->func) : "?");
	snprintf(s->p[s->n].reader, sizeof(s->p[0].reader), "%s",
		 rf->reader && rf->reader->func ? sim_unprefix(rf->reader->func) : "?");
	s->p[s->n].wk = rf->writer_kind;
	s->p[s->n].rk = rf->reader_kind;
	s->p[s->n].via = rf->via;
	s->p[s->n++].hash = h;
}

static bool has_pair(const struct seen *s, enum sim_rf_via via, const char *writer,
		     enum sim_rf_ctx wk, const char *reader, enum sim_rf_ctx rk)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].via == via && !strcmp(s->p[i].writer, writer) && s->p[i].wk == wk &&
		    !strcmp(s->p[i].reader, reader) && s->p[i].rk == rk)
			return true;
	return false;
}

static void dump(const struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(stderr, "  %s %s (%s) -> %s (%s)\n", sim_rf_via_name(s->p[i].via),
			s->p[i].writer, sim_rf_ctx_name(s->p[i].wk), s->p[i].reader,
			sim_rf_ctx_name(s->p[i].rk));
}

static const char *const kernels[] = { "v4.9", "mainline", "tree:6.1", "tree:6.12" };

/*
 * queue-from-hardirq: P0 queues A from a thread, the worker runs it; an
 * interrupt queues B while A runs, and the worker picks B up.
 */
START_TEST(pairs_of_queue_from_thread_and_irq)
{
	const char *kernel = kernels[_i];
	const struct kw_model *m;
	struct scn *s;
	struct scn_run run = { 0 };
	struct sim_config cfg;
	struct seen *seen = calloc(1, sizeof(*seen));

	ck_assert_ptr_nonnull(seen);
	if (!kw_model_find(kernel)) {	/* a kernel tree not built into this kwsim */
		free(seen);
		return;
	}
	s = load("races/queue-from-hardirq.kws", kernel, &m);
	cfg = s->cfg;
	cfg.on_rf = collect;
	cfg.on_rf_arg = seen;
	run.config = &cfg;
	ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
	if (getenv("RF_DUMP") || !has_pair(seen, SIM_RF_LOCK, "kthread_queue_work", SIM_RF_THREAD, "kthread_worker_fn",
		      SIM_RF_WORKER) ||
	    !has_pair(seen, SIM_RF_LOCK, "kthread_queue_work", SIM_RF_HARDIRQ, "kthread_worker_fn",
		      SIM_RF_WORKER))
		dump(seen);
	ck_assert_msg(has_pair(seen, SIM_RF_LOCK, "kthread_queue_work", SIM_RF_THREAD,
			       "kthread_worker_fn", SIM_RF_WORKER),
		      "%s: no kthread_queue_work (thread) -> kthread_worker_fn (worker)", kernel);
	ck_assert_msg(has_pair(seen, SIM_RF_LOCK, "kthread_queue_work", SIM_RF_HARDIRQ,
			       "kthread_worker_fn", SIM_RF_WORKER),
		      "%s: no kthread_queue_work (hardirq) -> kthread_worker_fn (worker)", kernel);
	/* a pair is between two contexts: never a context's own write read back */
	for (size_t i = 0; i < seen->n; i++)
		ck_assert(seen->p[i].wk != SIM_RF_HARDIRQ || seen->p[i].rk != SIM_RF_HARDIRQ);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
	free(seen);
}
END_TEST

/* Hashes name sites by file base name, line and function: not by address. */
START_TEST(hashes_are_of_names)
{
	static const char fa[] = "/a/b/kthread.c", fb[] = "/elsewhere/kthread.c";
	static char func1[] = "kthread_queue_work", func2[] = "kthread_queue_work";
	struct sim_site a = { fa, 10, func1 }, b = { fb, 10, func2 }, c = { fa, 11, func1 };
	struct sim_rf x = { .writer = &a, .reader = &c, .writer_kind = SIM_RF_THREAD,
			    .reader_kind = SIM_RF_WORKER, .via = SIM_RF_LOCK }, y = x;

	ck_assert_uint_eq(sim_site_hash(&a), sim_site_hash(&b));
	ck_assert_uint_ne(sim_site_hash(&a), sim_site_hash(&c));
	ck_assert_uint_ne(sim_site_hash(&a), sim_site_hash(NULL));
	y.writer = &b;
	ck_assert_uint_eq(sim_rf_hash(&x), sim_rf_hash(&y));
	y.writer_kind = SIM_RF_HARDIRQ;
	ck_assert_uint_ne(sim_rf_hash(&x), sim_rf_hash(&y));
	y = x;
	y.via = SIM_RF_ONCE;
	ck_assert_uint_ne(sim_rf_hash(&x), sim_rf_hash(&y));
	/* the same value in every build: a fixed constant for a fixed site */
	ck_assert_uint_eq(sim_site_hash(&a), sim_site_hash(&(struct sim_site){ "kthread.c", 10,
									       "kthread_queue_work" }));
}
END_TEST

/* --- on_rf changes no run ---------------------------------------------------------------- */

static char races[64][300];
static int nraces;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void list_races(void)
{
	char dir[4096];
	struct dirent *e;
	DIR *d;

	if (nraces)
		return;
	snprintf(dir, sizeof(dir), "%s/races", KWSIM_SCENARIOS);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) && nraces < 64) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".kws"))
			snprintf(races[nraces++], sizeof(races[0]), "races/%s", e->d_name);
	}
	closedir(d);
	qsort(races, (size_t)nraces, sizeof(races[0]), cmp_str);
	ck_assert_int_ge(nraces, 10);
}

START_TEST(on_rf_changes_no_run)
{
	size_t calls = 0;

	list_races();
	for (int i = 0; i < nraces; i++) {
		const struct kw_model *m;
		struct scn *s = load(races[i], NULL, &m);
		struct scn_run plain = { 0 }, seen_run = { 0 };
		struct seen *seen = calloc(1, sizeof(*seen));

		ck_assert_ptr_nonnull(seen);
		for (uint64_t seed = 0; seed < 8; seed++) {
			struct sim_config cfg = s->cfg;

			cfg.strategy = seed ? SIM_STRATEGY_RANDOM : SIM_STRATEGY_FAITHFUL;
			cfg.seed = seed;
			cfg.keep_trace = false;
			plain.config = &cfg;
			ck_assert_int_eq(scn_run(s, m, &plain, stderr), 0);
			cfg.on_rf = collect;
			cfg.on_rf_arg = seen;
			seen_run.config = &cfg;
			ck_assert_int_eq(scn_run(s, m, &seen_run, stderr), 0);
			ck_assert_msg(plain.hash == seen_run.hash && plain.nlog == seen_run.nlog &&
				      !memcmp(plain.log, seen_run.log, plain.nlog * sizeof(*plain.log)),
				      "%s seed %llu: %016llx after %zu decisions without on_rf, "
				      "%016llx after %zu with it", races[i], (unsigned long long)seed,
				      (unsigned long long)plain.hash, plain.nlog,
				      (unsigned long long)seen_run.hash, seen_run.nlog);
		}
		calls += seen->calls;
		scn_run_free(&plain);
		scn_run_free(&seen_run);
		scn_free(s);
		free(seen);
	}
	ck_assert_uint_gt(calls, 0);	/* the runs compared had pairs */
	sim_fini();
}
END_TEST

/* --- rff ---------------------------------------------------------------------------------------- */

static struct xs *campaign(enum xs_kind kind, uint64_t seed, const struct xs_params *est)
{
	struct xs_params q = { .kind = kind, .seed = seed };
	struct xs *x;

	q.est_steps = est->est_steps;
	q.est_contexts = est->est_contexts;
	x = xs_new(&q);
	ck_assert_ptr_nonnull(x);
	return x;
}

/* Run r of x; the caller's on_rf (NULL: none) set before xs_begin, as kwsim fuzz sets it. */
static void run_one(const struct scn *s, const struct kw_model *m, struct xs *x, uint64_t r,
		    struct scn_run *run, struct seen *seen)
{
	struct sim_config cfg = s->cfg;

	if (seen) {
		cfg.on_rf = collect;
		cfg.on_rf_arg = seen;
	}
	ck_assert(xs_begin(x, r, &cfg));
	run->config = &cfg;
	ck_assert_int_eq(scn_run(s, m, run, stderr), 0);
	run->config = NULL;
	xs_end(x, r, run->log, run->nlog);
}

#define DET_RUNS 60

START_TEST(rff_is_a_function_of_its_seed)
{
	const struct kw_model *m;
	struct scn *s = load("races/mod-delayed-work-vs-cancel-v4.9.kws", NULL, &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	uint64_t hashes[2][DET_RUNS], other = 0;
	size_t npairs[2];
	uint64_t pairsum[2] = { 0, 0 };
	unsigned int ordered = 0;

	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	for (int k = 0; k < 3; k++) {
		struct xs *x = campaign(XS_RFF, k < 2 ? 5 : 6, &est);
		const struct xs_rf_pair *p;
		size_t n;

		for (uint64_t r = 0; r < DET_RUNS; r++) {
			run_one(s, m, x, r, &run, NULL);
			if (k < 2)
				hashes[k][r] = run.hash;
			else
				other |= run.hash != hashes[0][r];
			ordered += k == 0 && xs_rf_orders(x) > 0;
		}
		p = xs_rf_pairs(x, &n);
		if (k < 2) {
			npairs[k] = n;
			for (size_t i = 0; i < n; i++)
				pairsum[k] += p[i].hash * (i + 1) + p[i].runs;
		}
		xs_free(x);
	}
	ck_assert_mem_eq(hashes[0], hashes[1], sizeof(hashes[0]));
	ck_assert_uint_eq(npairs[0], npairs[1]);
	ck_assert_uint_gt(npairs[0], 0);
	ck_assert_uint_eq(pairsum[0], pairsum[1]);
	ck_assert_msg(other, "seed 6's runs are seed 5's");
	/* the runs were made from orderings, not by pos alone */
	ck_assert_uint_gt(ordered, DET_RUNS / 2);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* The caller's on_rf sees every pair, and xs_rf_run_pairs() the run's distinct ones. */
START_TEST(rff_chains_on_rf)
{
	const struct kw_model *m;
	struct scn *s = load("races/queue-from-hardirq.kws", "mainline", &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	struct seen *seen = calloc(1, sizeof(*seen));
	struct xs *x;
	size_t total_new = 0;

	ck_assert_ptr_nonnull(seen);
	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	x = campaign(XS_RFF, 1, &est);
	for (uint64_t r = 0; r < 20; r++) {
		const uint64_t *rp;
		size_t n, nnew, ncampaign;

		seen->n = seen->calls = 0;
		run_one(s, m, x, r, &run, seen);
		rp = xs_rf_run_pairs(x, &n, &nnew);
		ck_assert_uint_eq(n, seen->n);
		for (size_t i = 0; i < n; i++)
			ck_assert_uint_eq(rp[i], seen->p[i].hash);
		ck_assert_uint_ge(seen->calls, n);
		total_new += nnew;
		xs_rf_pairs(x, &ncampaign);
		ck_assert_uint_eq(total_new, ncampaign);
	}
	ck_assert_uint_gt(total_new, 1);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
	free(seen);
}
END_TEST

/*
 * The orderings at work, on questions of our own: sites with the hashes of
 * a run's ordering. A candidate at the later site waits while another can
 * go; one at the earlier site goes first; once the earlier is done, the
 * later is held no more.
 */
struct sites_by_hash {
	size_t n;
	const struct sim_site *site[2 * MAX_PAIRS];
	uint64_t hash[2 * MAX_PAIRS];
};

static struct sites_by_hash known;

/* A site compiled in (SIM_HERE): it outlives the run, unlike one sim_site_at() made. */
static bool compiled(const struct sim_site *site)
{
	for (size_t i = 0; i < sim_site_count(); i++)
		if (sim_site_get(i) == site)
			return true;
	return false;
}

static void note_sites(void *arg, const struct sim_rf *rf)
{
	const struct sim_site *both[2] = { rf->writer, rf->reader };

	(void)arg;
	for (int k = 0; k < 2; k++) {
		uint64_t h = sim_site_hash(both[k]);
		size_t i;

		for (i = 0; i < known.n && known.hash[i] != h; i++)
			;
		if (i == known.n && known.n < 2 * MAX_PAIRS && compiled(both[k])) {
			known.site[known.n] = both[k];
			known.hash[known.n++] = h;
		}
	}
}

static const struct sim_site *site_of(uint64_t h)
{
	for (size_t i = 0; i < known.n; i++)
		if (known.hash[i] == h)
			return known.site[i];
	return NULL;
}

START_TEST(rff_orders_candidates)
{
	const struct kw_model *m;
	/* sites of model code, static: they stay valid when the run is over */
	struct scn *s = load("races/mod-delayed-work-vs-cancel-v4.9.kws", NULL, &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	struct xs *x;
	unsigned int checked = 0;

	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	x = campaign(XS_RFF, 3, &est);
	for (uint64_t r = 0; r < 40; r++) {
		struct sim_config cfg = s->cfg;
		struct xs_rf_order o[XS_RF_MAX_ORDERS];
		unsigned int n;

		cfg.on_rf = note_sites;
		ck_assert(xs_begin(x, r, &cfg));
		n = xs_rf_schedule(x, o);
		/* an ordering between two sites of model code, asked before the run */
		for (unsigned int j = 0; j < n && n == 1; j++) {
			const struct sim_site *first = site_of(o[j].first), *then = site_of(o[j].then);
			const struct sim_site *a[2] = { then, NULL }, *b[2] = { then, first };
			const struct sim_site *c[2] = { NULL, first };
			int ids[2] = { 0, 1 };
			struct sim_question q = { .n = 2, .why = SIM_WHY_CPU, .ids = ids, .cpu = -1 };

			if (!first || !then || o[j].first == o[j].then)
				continue;
			for (int k = 0; k < 8; k++) {
				q.sites = a;
				ck_assert_uint_eq(cfg.chooser(cfg.chooser_ctx, &q), 1);
			}
			q.sites = c;
			ck_assert_uint_eq(cfg.chooser(cfg.chooser_ctx, &q), 1);	/* done now */
			q.sites = b;
			/* held no more: pos's answer, whichever it is, for either */
			(void)cfg.chooser(cfg.chooser_ctx, &q);
			checked++;
		}
		if (n != 1 || !checked) {
			/* the real run, for the pairs the next schedules draw from */
			run.config = &cfg;
			ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
			run.config = NULL;
		}
		xs_end(x, r, run.log, run.nlog);
		if (checked)
			break;
	}
	ck_assert_uint_gt(checked, 0);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/*
 * A caller's abstract schedule (xs_rf_use): the next run follows it, and
 * its ordering acts at the questions, whichever way round it is given.
 */
START_TEST(rff_follows_a_given_schedule)
{
	const struct kw_model *m;
	struct scn *s = load("races/queue-from-hardirq.kws", "mainline", &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	const struct xs_rf_pair *p;
	const struct sim_site *w = NULL, *rd = NULL;
	struct xs *x;
	size_t n;

	known.n = 0;
	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	x = campaign(XS_RFF, 2, &est);
	{
		struct sim_config cfg = s->cfg;

		cfg.on_rf = note_sites;
		ck_assert(xs_begin(x, 0, &cfg));
		ck_assert_uint_eq(xs_rf_orders(x), 0);	/* no pair known yet: plain pos */
		run.config = &cfg;
		ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
		run.config = NULL;
		xs_end(x, 0, run.log, run.nlog);
	}
	p = xs_rf_pairs(x, &n);
	for (size_t i = 0; i < n && !(w && rd); i++) {
		w = site_of(p[i].writer);
		rd = site_of(p[i].reader);
		if (p[i].writer == p[i].reader)
			w = rd = NULL;
	}
	ck_assert_msg(w && rd, "no pair between two sites of model code in %zu pairs", n);
	for (int flip = 0; flip < 2; flip++) {
		struct xs_rf_order o = { sim_site_hash(flip ? rd : w), sim_site_hash(flip ? w : rd) };
		const struct sim_site *first = flip ? rd : w, *then = flip ? w : rd;
		const struct sim_site *held[2] = { then, NULL }, *both[2] = { then, first };
		struct xs_rf_order got[XS_RF_MAX_ORDERS];
		int ids[2] = { 0, 1 };
		struct sim_question q = { .n = 2, .why = SIM_WHY_CPU, .ids = ids, .cpu = -1 };
		struct sim_config cfg = s->cfg;

		xs_rf_use(x, &o, 1);
		ck_assert(xs_begin(x, 1 + (uint64_t)flip, &cfg));
		ck_assert_uint_eq(xs_rf_schedule(x, got), 1);
		ck_assert_uint_eq(got[0].first, o.first);
		ck_assert_uint_eq(got[0].then, o.then);
		/* the later site waits while another can go, the earlier goes first */
		for (int k = 0; k < 4; k++) {
			q.sites = held;
			ck_assert_uint_eq(cfg.chooser(cfg.chooser_ctx, &q), 1);
		}
		q.sites = both;
		ck_assert_uint_eq(cfg.chooser(cfg.chooser_ctx, &q), 1);
		xs_end(x, 1 + (uint64_t)flip, NULL, 0);
	}
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

#define RFF_BUDGET 2000		/* runs per race, as test_strategy's for the others */

START_TEST(rff_finds_every_race)
{
	int exists = 0;
	char name[64];

	list_races();
	for (int i = 0; i < nraces; i++) {
		const struct kw_model *m;
		struct scn *s = load(races[i], NULL, &m);
		struct scn_run run = { 0 };
		struct xs_params est = { 0 };
		struct xs *x;
		long r;

		s->cfg.drop_decisions = true;
		if (s->quant != Q_EXISTS) {
			scn_free(s);
			continue;
		}
		exists++;
		ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
		x = campaign(XS_RFF, 1, &est);
		xs_run_name(x, 0, name, sizeof(name));
		ck_assert_str_eq(name, "rff");
		for (r = 0; r < RFF_BUDGET; r++) {
			run_one(s, m, x, (uint64_t)r, &run, NULL);
			if (xf_condition_witness(s, &run))
				break;
		}
		ck_assert_msg(r < RFF_BUDGET, "%s: rff does not show %s (%s) in %d runs", races[i],
			      s->cond_text, m->name, RFF_BUDGET);
		xs_free(x);
		scn_run_free(&run);
		scn_free(s);
	}
	ck_assert_int_ge(exists, 8);
	ck_assert(!xs_independent(XS_RFF));
	sim_fini();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("readsfrom");
	TCase *pairs = tcase_create("pairs");
	TCase *rff = tcase_create("rff");

	tcase_add_loop_test(pairs, pairs_of_queue_from_thread_and_irq, 0,
			    (int)(sizeof(kernels) / sizeof(kernels[0])));
	tcase_add_test(pairs, hashes_are_of_names);
	tcase_add_test(pairs, on_rf_changes_no_run);
	suite_add_tcase(s, pairs);
	tcase_add_test(rff, rff_is_a_function_of_its_seed);
	tcase_add_test(rff, rff_chains_on_rf);
	tcase_add_test(rff, rff_orders_candidates);
	tcase_add_test(rff, rff_follows_a_given_schedule);
	tcase_add_test(rff, rff_finds_every_race);
	suite_add_tcase(s, rff);
	return s;
}

H_MAIN(suite)
