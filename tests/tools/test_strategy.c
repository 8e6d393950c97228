/*
 * The exploration strategies (tools/explore: random, pct, pos, portfolio):
 *  - run r of a campaign is the same run whatever ran before it: run 5
 *    alone, after runs 0 .. 4, and after runs 9 .. 6, for every strategy;
 *    the portfolio's run r is run r of the member it names;
 *  - pct answers by priority (a synthetic stream of questions): with d = 1
 *    one CPU order holds all run and every CPU leads in some run; with
 *    d = 2 the order changes once, the leader dropping to the bottom, and
 *    only there does an interrupt wait or a wake-up go the other way;
 *    xs_pct_bound's arithmetic;
 *  - pos keeps a waiting contender's priority: a CPU that lost keeps losing
 *    far longer than uniform random would let it;
 *  - every strategy finds each race of scenarios/races whose condition is
 *    `exists` (the run shows it), on the file's kernel, within a fixed run
 *    budget for a fixed seed; and none breaks a race file's `forall` within
 *    the budget (they must hold in every run);
 *  - pct and pos each find the race made for what it does best, and so
 *    does the portfolio.
 * All work is bounded by runs and questions, never by time.
 */
#include <explore/finding.h>
#include <explore/strategy.h>
#include <model.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The strategies as a campaign configures them; pct at the races' depth, 3. */
static const struct xs_params strategies[] = {
	{ .kind = XS_RANDOM }, { .kind = XS_PCT, .depth = 1 }, { .kind = XS_PCT, .depth = 2 },
	{ .kind = XS_PCT, .depth = 3 }, { .kind = XS_POS }, { .kind = XS_PORTFOLIO },
};
#define NSTRATEGIES ((int)(sizeof(strategies) / sizeof(strategies[0])))

static char *path_of(const char *file)
{
	char *path = malloc(strlen(KWSIM_SCENARIOS) + strlen(file) + 2);

	ck_assert_ptr_nonnull(path);
	sprintf(path, "%s/%s", KWSIM_SCENARIOS, file);
	return path;
}

static struct scn *load(const char *file, const struct kw_model **m)
{
	char *path = path_of(file);
	struct scn *s = scn_load(path, stderr);

	ck_assert_msg(s != NULL, "%s does not parse", path);
	free(path);
	*m = kw_model_find(s->kernel);
	ck_assert_ptr_nonnull(*m);
	s->cfg.keep_trace = false;
	return s;
}

static struct xs *campaign(const struct xs_params *p, uint64_t seed, const struct xs_params *est)
{
	struct xs_params q = *p;
	struct xs *x;

	q.seed = seed;
	q.est_steps = est->est_steps;
	q.est_contexts = est->est_contexts;
	x = xs_new(&q);
	ck_assert_ptr_nonnull(x);
	return x;
}

/* Run r of campaign x on s; the run's result stays in run. */
static void run_one(const struct scn *s, const struct kw_model *m, struct xs *x, uint64_t r,
		    struct scn_run *run)
{
	struct sim_config cfg = s->cfg;

	ck_assert(xs_begin(x, r, &cfg));
	ck_assert_ptr_nonnull(cfg.chooser);
	run->config = &cfg;
	ck_assert_int_eq(scn_run(s, m, run, stderr), 0);
	run->config = NULL;
	xs_end(x, r, run->log, run->nlog);
}

/* --- run r is a function of (parameters, seed, r) ---------------------------------- */

struct fingerprint {
	uint64_t hash;
	size_t nlog;
	struct sim_decision log[4096];
};

static void fingerprint(const struct scn_run *run, struct fingerprint *f)
{
	f->hash = run->hash;
	f->nlog = run->nlog;
	ck_assert_uint_le(run->nlog, sizeof(f->log) / sizeof(f->log[0]));
	memcpy(f->log, run->log, run->nlog * sizeof(*run->log));
}

static void same_run(const char *what, const struct fingerprint *a, const struct fingerprint *b)
{
	ck_assert_msg(a->hash == b->hash && a->nlog == b->nlog &&
		      !memcmp(a->log, b->log, a->nlog * sizeof(a->log[0])),
		      "%s: %016llx after %zu decisions, then %016llx after %zu", what,
		      (unsigned long long)a->hash, a->nlog, (unsigned long long)b->hash, b->nlog);
}

/* Races whose runs ask many questions of every kind the strategies answer. */
static const char *const independence_files[] = {
	"races/mod-delayed-work-vs-cancel-v4.9.kws",	/* three CPUs */
	"races/timer-callback-vs-cancel-delayed-work-sync-mainline.kws",
	"races/freezable-idle-suspend.kws",		/* placements, wake-ups */
};

static struct fingerprint fp_alone, fp_after, fp_mixed;

START_TEST(run_r_alone_or_after_others)
{
	const char *file = independence_files[_i / NSTRATEGIES];
	const struct xs_params *p = &strategies[_i % NSTRATEGIES];
	const struct kw_model *m;
	struct scn *s = load(file, &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	struct xs *x;
	char what[256], name[64];
	bool differ = false;

	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	ck_assert_uint_gt(est.est_steps, 0);

	x = campaign(p, 7, &est);
	run_one(s, m, x, 5, &run);
	fingerprint(&run, &fp_alone);
	xs_free(x);

	x = campaign(p, 7, &est);
	for (uint64_t r = 0; r < 5; r++) {
		run_one(s, m, x, r, &run);
		differ |= run.hash != fp_alone.hash;
	}
	run_one(s, m, x, 5, &run);
	fingerprint(&run, &fp_after);
	xs_free(x);

	x = campaign(p, 7, &est);
	for (uint64_t r = 9; r > 5; r--)
		run_one(s, m, x, r, &run);
	run_one(s, m, x, 5, &run);
	fingerprint(&run, &fp_mixed);

	snprintf(what, sizeof(what), "%s under %s, run 5 alone and after runs 0-4", file,
		 xs_run_name(x, 5, name, sizeof(name)));
	same_run(what, &fp_alone, &fp_after);
	snprintf(what, sizeof(what), "%s under %s, run 5 alone and after runs 9-6", file, name);
	same_run(what, &fp_alone, &fp_mixed);
	xs_free(x);
	/* the runs before were other runs: the check compared something */
	ck_assert_msg(differ, "%s: runs 0-4 of %s all equal run 5", file, name);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* The portfolio's run r is run r of the member its name gives. */
START_TEST(portfolio_runs_are_members_runs)
{
	const struct kw_model *m;
	struct scn *s = load("races/mod-delayed-work-vs-cancel-v4.9.kws", &m);
	struct scn_run run = { 0 };
	struct xs_params est = { 0 }, port = { .kind = XS_PORTFOLIO };
	struct xs *x;
	bool kinds[XS__COUNT] = { false };

	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	x = campaign(&port, 11, &est);
	for (uint64_t r = 0; r < 16; r++) {
		char name[64], own[64];
		struct xs_params member = { 0 };
		struct xs *y;
		const char *inner;

		xs_run_name(x, r, name, sizeof(name));
		ck_assert_msg(!strncmp(name, "portfolio:", 10), "run %llu is named '%s'",
			      (unsigned long long)r, name);
		inner = name + 10;
		if (sscanf(inner, "pct(d=%u)", &member.depth) == 1)
			member.kind = XS_PCT;
		else if (sscanf(inner, "tpct(d=%u)", &member.depth) == 1)
			member.kind = XS_TPCT;
		else
			ck_assert_msg(xs_kind_from_name(inner, &member.kind), "'%s'", inner);
		kinds[member.kind] = true;
		run_one(s, m, x, r, &run);
		fingerprint(&run, &fp_alone);
		y = campaign(&member, 11, &est);
		run_one(s, m, y, r, &run);
		fingerprint(&run, &fp_after);
		ck_assert_str_eq(xs_run_name(y, r, own, sizeof(own)), inner);
		same_run(name, &fp_alone, &fp_after);
		xs_free(y);
	}
	/* the rotation has all four kinds of member */
	ck_assert(kinds[XS_RANDOM] && kinds[XS_PCT] && kinds[XS_POS] && kinds[XS_TPCT]);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

START_TEST(run_names)
{
	struct xs_params p = { .kind = XS_PCT, .depth = 3 };
	struct xs *x = xs_new(&p);
	char buf[64];

	ck_assert_str_eq(xs_run_name(x, 0, buf, sizeof(buf)), "pct(d=3)");
	xs_free(x);
	p.kind = XS_POS;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 9, buf, sizeof(buf)), "pos");
	xs_free(x);
	p.kind = XS_RANDOM;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 9, buf, sizeof(buf)), "random");
	xs_free(x);
	/* a depth pct cannot keep is refused */
	p.kind = XS_PCT;
	p.depth = 0;
	ck_assert_ptr_null(xs_new(&p));
	p.depth = XS_MAX_DEPTH + 1;
	ck_assert_ptr_null(xs_new(&p));
	p.depth = XS_MAX_DEPTH;
	x = xs_new(&p);
	ck_assert_ptr_nonnull(x);
	xs_free(x);
	ck_assert(xs_independent(XS_PCT) && xs_independent(XS_PORTFOLIO) && !xs_independent(XS_DFS));
	/* the strategies that aim: tpct's runs stand alone, delay's and pair's learn */
	p.kind = XS_TPCT;
	p.depth = 2;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 4, buf, sizeof(buf)), "tpct(d=2)");
	xs_free(x);
	p.kind = XS_DELAY;
	p.preemptions = 1;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 4, buf, sizeof(buf)), "delay(k=1)");
	xs_free(x);
	p.nshards = 3;
	p.shard = 2;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 4, buf, sizeof(buf)), "delay(k=1,s=2/3)");
	xs_free(x);
	p.kind = XS_PAIR;
	x = xs_new(&p);
	ck_assert_str_eq(xs_run_name(x, 4, buf, sizeof(buf)), "pair");
	xs_free(x);
	ck_assert(xs_independent(XS_TPCT) && !xs_independent(XS_DELAY) && !xs_independent(XS_PAIR));
}
END_TEST

/*
 * The registry (strategy.h): every strategy in it has a table with a name
 * that --strategy takes back, a run whose token field parses back to the
 * parameters it was made with (what --token relies on: explore_token()
 * remakes the field and compares), and a place in help's and serve's
 * lists; a name not in it is refused.
 */
START_TEST(registry_round_trip)
{
	char buf[160], names[256];
	bool listed[XS__COUNT] = { false };
	enum xs_kind k;

	for (unsigned int i = 0; i < XS__COUNT; i++) {
		const struct xs_ops *ops = xs_ops_of((enum xs_kind)i);
		struct xs_params p = { .kind = (enum xs_kind)i, .seed = 9, .depth = 2,
				       .preemptions = 1 }, back = { .seed = 9 };
		struct xs *x;

		ck_assert_ptr_nonnull(ops);
		ck_assert_ptr_nonnull(ops->begin);
		ck_assert_msg(xs_kind_from_name(ops->name, &k) && k == (enum xs_kind)i, "%s", ops->name);
		ck_assert_msg(!(ops->params & XS_BOUND) || ops->bound, "%s counts no bound", ops->name);
		ck_assert_msg(ops->independent || !ops->splits || ops->exhausted,
			      "%s splits without a space to split", ops->name);
		ck_assert(strstr(xs_names(names, sizeof(names), ", ", " or "), ops->name));
		listed[xs_listed(i, true)] = true;
		if (ops->splits) {
			p.shard = 1;
			p.nshards = 2;
		}
		x = xs_new(&p);
		ck_assert_ptr_nonnull(x);
		for (uint64_t r = 0; r < 9; r++) {
			xs_token_name(x, r, buf, sizeof(buf));
			ck_assert_msg(xs_parse_name(buf, &back), "'%s'", buf);
			ck_assert_msg(back.kind == p.kind, "'%s'", buf);
			/* the parameters its token names come back; the others keep parse's defaults */
			if ((ops->named | (ops->token_name ? ops->params : 0)) & XS_DEPTH)
				ck_assert_msg(back.depth == p.depth, "'%s'", buf);
			if ((ops->named | (ops->token_name ? ops->params : 0)) & XS_BOUND)
				ck_assert_msg(back.preemptions == p.preemptions, "'%s'", buf);
			ck_assert_msg(back.shard == p.shard && back.nshards == p.nshards, "'%s'", buf);
		}
		xs_free(x);
	}
	for (unsigned int i = 0; i < XS__COUNT; i++)
		ck_assert_msg(listed[i], "%s is not in serve's list", xs_kind_name((enum xs_kind)i));
	ck_assert(xs_listed(0, true) == XS_DEFAULT);
	ck_assert(!xs_kind_from_name("portfolio2", &k) && !xs_kind_from_name("", &k));
	ck_assert(!xs_parse_name("bogus(d=3)", &(struct xs_params){ 0 }));
	ck_assert(!xs_parse_name("delay(k=1,s=3/2)", &(struct xs_params){ 0 }));
	ck_assert_ptr_null(xs_ops_of(XS__COUNT));
}
END_TEST

/*
 * The calibration: pct's n is at least the faithful run's decisions, and a
 * scenario whose random runs can stop on an error of its own (a delay
 * computed negative when P1 reads n before P0 has queued, seed 1) still
 * calibrates.
 */
static const char calib_text[] =
	"KW calib\n"
	"{\n"
	"  cpus = 2;\n"
	"  int n = 0;\n"
	"  fn f { }\n"
	"  worker W = kthread_create_worker(0, \"kw\");\n"
	"  work A = f;\n"
	"}\n"
	"P0 @cpu0 { n += kthread_queue_work(W, A); kthread_flush_worker(W); }\n"
	"P1 @cpu1 { udelay(1); udelay(n - 1); }\n"
	"P2 @cpu0 at 1ms { kthread_destroy_worker(W); }\n";

START_TEST(calibration)
{
	struct scn *s = scn_parse("calib.kws", calib_text, strlen(calib_text), stderr);
	const struct kw_model *m = s ? kw_model_find(s->kernel) : NULL;
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	struct sim_config cfg;
	FILE *quiet = fopen("/dev/null", "w");
	size_t faithful;

	ck_assert_ptr_nonnull(m);
	cfg = s->cfg;

	ck_assert_ptr_nonnull(quiet);
	cfg.strategy = SIM_STRATEGY_FAITHFUL;
	run.config = &cfg;
	ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
	faithful = run.ndecisions;
	cfg.strategy = SIM_STRATEGY_RANDOM;
	cfg.seed = 1;
	ck_assert_int_ne(scn_run(s, m, &run, quiet), 0);
	fclose(quiet);
	run.config = NULL;
	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	ck_assert_uint_ge(est.est_steps, faithful);
	ck_assert_uint_eq(est.est_contexts, (unsigned int)s->cfg.ncpus);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

/* --- pct on a synthetic stream of questions ------------------------------------------ */

#define NCPUS 4

/* A question about CPUs ids[0 .. n-1], at step index. */
static unsigned int ask(const struct sim_config *cfg, enum sim_why why, const int *ids,
			unsigned int n, size_t index)
{
	struct sim_question q = { .n = n, .why = why, .ids = ids, .index = index, .cpu = 0 };
	unsigned int a = cfg->chooser(cfg->chooser_ctx, &q);

	ck_assert_uint_lt(a, n);
	return a;
}

/* The CPU that wins among ids, at step index. */
static int winner(const struct sim_config *cfg, const int *ids, unsigned int n, size_t index)
{
	return ids[ask(cfg, SIM_WHY_CPU, ids, n, index)];
}

/* pct's order of the CPUs at step index, highest first, read from its answers. */
static void order_at(const struct sim_config *cfg, size_t index, int *order)
{
	int left[NCPUS];
	unsigned int n = NCPUS;

	for (int i = 0; i < NCPUS; i++)
		left[i] = NCPUS - 1 - i;	/* candidates in another order than ids */
	for (int k = 0; k < NCPUS; k++) {
		int w = winner(cfg, left, n, index);
		unsigned int j = 0;

		order[k] = w;
		while (left[j] != w)
			j++;
		left[j] = left[--n];
	}
}

START_TEST(pct_depth1_one_order)
{
	struct xs_params p = { .kind = XS_PCT, .depth = 1, .seed = 3, .est_steps = 200,
			       .est_contexts = NCPUS };
	struct xs *x = xs_new(&p);
	unsigned int leads[NCPUS] = { 0 };
	const int runs = 400;

	for (int r = 0; r < runs; r++) {
		struct sim_config cfg = { .ncpus = NCPUS };
		int order[NCPUS], again[NCPUS];

		xs_begin(x, (uint64_t)r, &cfg);
		order_at(&cfg, 0, order);
		leads[order[0]]++;
		/* the whole run: every pair, every step, the higher of the order wins */
		for (size_t step = 0; step < 200; step++) {
			int a = order[step % NCPUS], b = order[(step / NCPUS) % NCPUS];
			int pair[2] = { a, b }, hi = a;

			for (int k = 0; k < NCPUS; k++)
				if (order[k] == a || order[k] == b) {
					hi = order[k];
					break;
				}
			if (a != b) {
				ck_assert_int_eq(winner(&cfg, pair, 2, step), hi);
				/* the spinners' CPUs are ordered alike */
				ck_assert_int_eq(pair[ask(&cfg, SIM_WHY_SPIN, pair, 2, step)], hi);
			}
			/* no change point: the kernel's usual answer to the rest */
			ck_assert_uint_eq(ask(&cfg, SIM_WHY_IRQ, pair, 2, step), 0);
			ck_assert_uint_eq(ask(&cfg, SIM_WHY_WAKE, pair, 2, step), 0);
			ck_assert_uint_eq(ask(&cfg, SIM_WHY_PLACE, order, NCPUS, step), 0);
		}
		order_at(&cfg, 199, again);
		ck_assert_mem_eq(order, again, sizeof(order));
	}
	/* a random order each run: every CPU leads about a quarter of the runs */
	for (int c = 0; c < NCPUS; c++)
		ck_assert_msg(leads[c] > runs / NCPUS / 2, "cpu%d leads %u of %d runs", c, leads[c],
			      runs);
	xs_free(x);
}
END_TEST

START_TEST(pct_depth2_one_change)
{
	struct xs_params p = { .kind = XS_PCT, .depth = 2, .seed = 5, .est_steps = 50,
			       .est_contexts = NCPUS };
	struct xs *x = xs_new(&p);
	bool at[60] = { false };
	const int runs = 300;

	for (int r = 0; r < runs; r++) {
		struct sim_config cfg = { .ncpus = NCPUS };
		int order[NCPUS], all[NCPUS] = { 0, 1, 2, 3 }, first, changes = 0;

		xs_begin(x, (uint64_t)r, &cfg);
		first = -1;
		for (size_t step = 0; step < 60; step++) {
			int w = winner(&cfg, all, NCPUS, step);

			if (first < 0) {
				first = w;
			} else if (w != first) {
				ck_assert_int_eq(changes, 0);
				changes++;
				at[step] = true;
				/* the CPU that led is now below every other */
				order_at(&cfg, step, order);
				ck_assert_int_eq(order[NCPUS - 1], first);
				first = w;
			}
		}
		/* a change at step 0 hides in the first answer: at most one in all */
		ck_assert_int_le(changes, 1);
	}
	/* the change points spread over the steps, none past n */
	for (int step = 1; step < 50; step += 7)
		ck_assert_msg(at[step] || at[step + 1] || at[step + 2], "no change near step %d", step);
	xs_free(x);

	/*
	 * The one change point on a placement: there only, not the CPU
	 * select_task_rq() prefers but the highest of the others.
	 */
	x = xs_new(&p);
	for (int r = 0; r < 100; r++) {
		struct sim_config cfg = { .ncpus = NCPUS };
		int order[NCPUS], place[NCPUS] = { 2, 0, 3, 1 }, best = -1;
		unsigned int moved = 0;

		xs_begin(x, (uint64_t)r, &cfg);
		for (size_t step = 0; step < 50; step++) {
			unsigned int a = ask(&cfg, SIM_WHY_PLACE, place, NCPUS, step);

			if (!a)
				continue;
			moved++;
			/* the order has not changed: placements move no priority */
			order_at(&cfg, step, order);
			for (int k = 0; k < NCPUS && best < 0; k++)
				if (order[k] != place[0])
					best = order[k];
			ck_assert_int_eq(place[a], best);
		}
		ck_assert_uint_eq(moved, 1);
	}
	xs_free(x);

	/* the one change point on an interrupt: it waits, there only */
	x = xs_new(&p);
	for (int r = 0; r < 100; r++) {
		struct sim_config cfg = { .ncpus = NCPUS };
		int about[2] = { 1, 1 };
		unsigned int waits = 0;

		xs_begin(x, (uint64_t)r, &cfg);
		for (size_t step = 0; step < 50; step++)
			waits += ask(&cfg, SIM_WHY_IRQ, about, 2, step);
		ck_assert_uint_eq(waits, 1);
	}
	xs_free(x);
}
END_TEST

START_TEST(pct_bound)
{
	ck_assert_double_eq_tol(xs_pct_bound(10, 2, 1, 1), 0.5, 1e-12);
	ck_assert_double_eq_tol(xs_pct_bound(10, 2, 1, 0), 0.0, 1e-12);
	ck_assert_double_eq_tol(xs_pct_bound(1000, 1, 1, 1), 1.0, 1e-12);
	/* p = 1/(2*10) = 0.05; 1 - 0.95^20 */
	ck_assert_double_eq_tol(xs_pct_bound(10, 2, 2, 20), 0.641514078, 1e-9);
	/* p = 1/(3*100^2); small p keeps its digits: 1 - (1 - p)^1000 ~ 1000 p */
	ck_assert_double_eq_tol(xs_pct_bound(100, 3, 3, 1000), 0.0327844, 1e-7);
	/* more runs, more confidence */
	ck_assert(xs_pct_bound(100, 3, 3, 100000) > 0.96);
}
END_TEST

/* --- pos: a waiting contender keeps its priority ------------------------------------- */

/* The longest streak of one CPU losing, two CPUs asked 'runs' times 60 questions. */
static unsigned int longest_wait(const struct xs_params *p)
{
	struct xs *x = xs_new(p);
	unsigned int longest = 0;

	for (int r = 0; r < 200; r++) {
		struct sim_config cfg = { .ncpus = 2 };
		int ids[2] = { 0, 1 }, last = -1;
		unsigned int streak = 0;

		xs_begin(x, (uint64_t)r, &cfg);
		for (size_t step = 0; step < 60; step++) {
			struct sim_question q = { .n = 2, .why = SIM_WHY_CPU, .ids = ids,
						  .index = step, .cpu = last };
			int w = ids[cfg.chooser(cfg.chooser_ctx, &q)];

			streak = w == last ? streak + 1 : 1;
			if (streak > longest)
				longest = streak;
			last = w;
		}
	}
	xs_free(x);
	return longest;
}

/*
 * The longest an interrupt waits, one pending on cpu1 at a time, 'runs'
 * runs of 60 questions: a new one each time the last was delivered.
 */
static unsigned int longest_irq_wait(const struct xs_params *p)
{
	struct xs *x = xs_new(p);
	unsigned int longest = 0;

	for (int r = 0; r < 200; r++) {
		struct sim_config cfg = { .ncpus = 2 };
		int about[2] = { 1, 1 };
		unsigned int waited = 0;

		xs_begin(x, (uint64_t)r, &cfg);
		for (size_t step = 0; step < 60; step++) {
			if (!ask(&cfg, SIM_WHY_IRQ, about, 2, step)) {
				waited = 0;
				continue;
			}
			if (++waited > longest)
				longest = waited;
		}
	}
	xs_free(x);
	return longest;
}

START_TEST(pos_keeps_waiting_priorities)
{
	struct xs_params pos = { .kind = XS_POS, .seed = 1 }, random = { .kind = XS_RANDOM, .seed = 1 };
	unsigned int lp = longest_wait(&pos), lr = longest_wait(&random);

	/* random: 12,000 fair coins, a run of 20 has odds ~1%; pos: one low draw suffices */
	ck_assert_msg(lp >= 40 && lr < 20, "longest wait: pos %u, random %u", lp, lr);
	/* an interrupt is a contender too: drawn low, it waits long */
	lp = longest_irq_wait(&pos);
	lr = longest_irq_wait(&random);
	ck_assert_msg(lp >= 40 && lr < 20, "longest interrupt wait: pos %u, random %u", lp, lr);
}
END_TEST

/* --- the race library ------------------------------------------------------------------- */

#define RUN_BUDGET 2000		/* runs per strategy and race */
#define FORALL_BUDGET 300

static char races[32][sizeof(((struct dirent *)0)->d_name) + 8];
static int nraces;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void list_races(void)
{
	char *dir = path_of("races");
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	nraces = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".kws"))
			continue;
		ck_assert_int_lt(nraces, 32);
		snprintf(races[nraces++], sizeof(races[0]), "races/%s", e->d_name);
	}
	closedir(d);
	free(dir);
	qsort(races, (size_t)nraces, sizeof(races[0]), cmp_str);
	ck_assert_int_ge(nraces, 10);
}

/* The run of x on s that first shows what its condition asks about, or -1. */
static long first_witness(const struct scn *s, const struct kw_model *m, struct xs *x, long budget,
			  struct scn_run *run)
{
	for (long r = 0; r < budget; r++) {
		run_one(s, m, x, (uint64_t)r, run);
		if (xf_condition_witness(s, run))
			return r;
	}
	return -1;
}

/*
 * The strategies that must find every race: pct at depth 3, for the library
 * has a race that needs two preemptions at given steps
 * (mod-delayed-work-vs-cancel-v4.9: the cancel into the mod's unlocked
 * window, the mod's requeue into the cancel's), which pct at depth 1 or 2
 * cannot show by its definition.
 */
static const struct xs_params finders[] = {
	{ .kind = XS_RANDOM }, { .kind = XS_PCT, .depth = 3 }, { .kind = XS_POS },
	{ .kind = XS_PORTFOLIO },
};

START_TEST(finds_every_race)
{
	const struct xs_params *p = &finders[_i];
	char name[64];
	int exists = 0;

	list_races();
	for (int i = 0; i < nraces; i++) {
		const struct kw_model *m;
		struct scn *s = load(races[i], &m);
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
		x = campaign(p, 1, &est);
		xs_run_name(x, 0, name, sizeof(name));
		r = first_witness(s, m, x, RUN_BUDGET, &run);
		ck_assert_msg(r >= 0, "%s: %s does not show %s (%s) in %d runs", races[i], name,
			      s->cond_text, m->name, RUN_BUDGET);
		xs_free(x);
		scn_run_free(&run);
		scn_free(s);
	}
	ck_assert_int_ge(exists, 8);
	sim_fini();
}
END_TEST

START_TEST(no_forall_race_breaks)
{
	const struct xs_params *p = &strategies[_i];
	int foralls = 0;

	list_races();
	for (int i = 0; i < nraces; i++) {
		const struct kw_model *m;
		struct scn *s = load(races[i], &m);
		struct scn_run run = { 0 };
		struct xs_params est = { 0 };
		struct xs *x;
		char name[64];
		long r;

		s->cfg.drop_decisions = true;
		if (s->quant != Q_FORALL) {
			scn_free(s);
			continue;
		}
		foralls++;
		ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
		x = campaign(p, 1, &est);
		r = first_witness(s, m, x, FORALL_BUDGET, &run);
		ck_assert_msg(r < 0, "%s: run %ld of %s breaks forall %s (%s)", races[i], r,
			      xs_run_name(x, (uint64_t)r, name, sizeof(name)), s->cond_text, m->name);
		xs_free(x);
		scn_run_free(&run);
		scn_free(s);
	}
	ck_assert_int_ge(foralls, 4);
	sim_fini();
}
END_TEST

/*
 * What each strategy is for, on races made for it (tests/tools/strategy/):
 * pct holds a CPU back for as long as a race needs (ahead.kws), pos lets an
 * interrupt wait many steps (late-irq.kws), and the portfolio has both.
 */
static const struct {
	const char *file;
	struct xs_params p;
	long budget;
} specialties[] = {
	{ "ahead.kws", { .kind = XS_PCT, .depth = 1 }, 20 },
	{ "late-irq.kws", { .kind = XS_POS }, 2000 },
	{ "ahead.kws", { .kind = XS_PORTFOLIO }, 100 },
	{ "late-irq.kws", { .kind = XS_PORTFOLIO }, 10000 },
};

START_TEST(each_strategy_its_race)
{
	char *path = malloc(strlen(KWSIM_STRATEGY_SCENARIOS) + 64);
	const struct kw_model *m = kw_model_find("mainline");
	struct scn_run run = { 0 };
	struct xs_params est = { 0 };
	struct scn *s;
	struct xs *x;
	char name[64];

	ck_assert_ptr_nonnull(path);
	ck_assert_ptr_nonnull(m);
	sprintf(path, "%s/%s", KWSIM_STRATEGY_SCENARIOS, specialties[_i].file);
	s = scn_load(path, stderr);
	ck_assert_ptr_nonnull(s);
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = true;
	ck_assert_int_eq(xs_calibrate(&est, s, m, &run, stderr), 0);
	/* the faithful run does not show it: it is a race to find */
	ck_assert(!xf_condition_witness(s, &run));
	x = campaign(&specialties[_i].p, 1, &est);
	ck_assert_msg(first_witness(s, m, x, specialties[_i].budget, &run) >= 0,
		      "%s: %s does not show it in %ld runs", specialties[_i].file,
		      xs_run_name(x, 0, name, sizeof(name)), specialties[_i].budget);
	xs_free(x);
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
	free(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("strategy");
	TCase *tc = tcase_create("runs");
	TCase *unit = tcase_create("unit");
	TCase *lib = tcase_create("library");

	tcase_add_loop_test(tc, run_r_alone_or_after_others, 0,
			    (int)(sizeof(independence_files) / sizeof(independence_files[0])) *
				    NSTRATEGIES);
	tcase_add_test(tc, portfolio_runs_are_members_runs);
	suite_add_tcase(s, tc);
	tcase_add_test(unit, run_names);
	tcase_add_test(unit, registry_round_trip);
	tcase_add_test(unit, calibration);
	tcase_add_test(unit, pct_depth1_one_order);
	tcase_add_test(unit, pct_depth2_one_change);
	tcase_add_test(unit, pct_bound);
	tcase_add_test(unit, pos_keeps_waiting_priorities);
	suite_add_tcase(s, unit);
	tcase_add_loop_test(lib, finds_every_race, 0, (int)(sizeof(finders) / sizeof(finders[0])));
	tcase_add_loop_test(lib, no_forall_race_breaks, 0, NSTRATEGIES);
	tcase_add_loop_test(lib, each_strategy_its_race, 0,
			    (int)(sizeof(specialties) / sizeof(specialties[0])));
	suite_add_tcase(s, lib);
	return s;
}

H_MAIN(suite)
