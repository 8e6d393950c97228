/*
 * The program generator, mutator, printer and corpus form (tools/prog/):
 *  - every generated program prints as a scenario that parses and runs on
 *    mainline with the faithful schedule, to its end (no run error, not
 *    cut short at a limit), and finds nothing there when it keeps the
 *    contract (the faithful run of a program that keeps the contract is
 *    not where the kernel's races are);
 *  - in contract mode, kp_contract() holds after kp_generate and after
 *    chains of kp_mutate; under --misuse the same programs still parse;
 *  - printing is a function of the program; kp_save/kp_load round-trip to
 *    an equal program and equal text; kp_load refuses truncated and
 *    garbled files with a reason;
 *  - kp_normalize balances lock sections and is idempotent; equal normal
 *    programs are equal bytes;
 *  - ranges: generated for starts, udelay and msleep, printed as the
 *    language writes them, and the faithful run of a program with ranges
 *    is that of the program with each range's lower bound (the same trace).
 */
#include <model.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */
#include <prog/prog.h>

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEDS 500
#define CHAIN 2000

static const struct kp_print_opts popts = { .name = "gen", .kernel = "mainline" };

static bool stmt_eq(const struct kp_stmt *a, const struct kp_stmt *b)
{
	return a->op == b->op && a->a == b->a && a->b == b->b && a->arg == b->arg &&
	       a->hi == b->hi;
}

static bool body_eq(const struct kp_body *a, const struct kp_body *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned int i = 0; i < a->n; i++)
		if (!stmt_eq(&a->s[i], &b->s[i]))
			return false;
	return true;
}

/* Field by field: padding is not part of a program. */
static bool kp_eq(const struct kp *a, const struct kp *b)
{
	if (a->cpus != b->cpus || a->hz != b->hz || a->nworkers != b->nworkers ||
	    a->nworks != b->nworks || a->ntimers != b->ntimers || a->nctx != b->nctx ||
	    a->nlocks != b->nlocks || a->ncompletions != b->ncompletions ||
	    a->ncounters != b->ncounters || a->suspend != b->suspend ||
	    a->suspend_at_us != b->suspend_at_us || a->resume_at_us != b->resume_at_us ||
	    a->teardown != b->teardown)
		return false;
	for (unsigned int i = 0; i < a->nworkers; i++)
		if (a->worker[i].freezable != b->worker[i].freezable ||
		    a->worker[i].legacy != b->worker[i].legacy || a->worker[i].cpu != b->worker[i].cpu)
			return false;
	for (unsigned int i = 0; i < a->nworks; i++)
		if (a->work[i].delayed != b->work[i].delayed || a->work[i].worker != b->work[i].worker ||
		    !body_eq(&a->work[i].fn, &b->work[i].fn))
			return false;
	for (unsigned int i = 0; i < a->ntimers; i++)
		if (!body_eq(&a->timer[i].fn, &b->timer[i].fn))
			return false;
	for (unsigned int i = 0; i < a->nctx; i++)
		if (a->ctx[i].kind != b->ctx[i].kind || a->ctx[i].cpu != b->ctx[i].cpu ||
		    a->ctx[i].at_us != b->ctx[i].at_us || a->ctx[i].at_hi_us != b->ctx[i].at_hi_us ||
		    !body_eq(&a->ctx[i].body, &b->ctx[i].body))
			return false;
	return true;
}

static char *text_of(const struct kp *p, size_t *len)
{
	char *t = kp_text(p, &popts, len);

	ck_assert_ptr_nonnull(t);
	return t;
}

/* Parse and run p's text on mainline, faithful; returns the findings' count. */
static size_t parse_and_run(const struct kp *p, const char *what, uint64_t seed, bool to_end)
{
	size_t len;
	char *t = text_of(p, &len);
	struct scn *s = scn_parse("gen.kws", t, len, stderr);
	struct scn_run run;
	size_t n;

	if (!s)
		ck_abort_msg("%s %llu: does not parse:\n%s", what, (unsigned long long)seed, t);
	memset(&run, 0, sizeof(run));
	if (scn_run(s, kw_model_find("mainline"), &run, stderr))
		ck_abort_msg("%s %llu: run error:\n%s", what, (unsigned long long)seed, t);
	if (to_end && scn_cut_short(&run))
		ck_abort_msg("%s %llu: cut short at a limit:\n%s", what, (unsigned long long)seed, t);
	n = run.nfindings;
	if (n && getenv("KWSIM_TEST_PROG_SHOW")) {
		fprintf(stderr, "--- %s %llu: %zu findings, first %s\n%s", what,
			(unsigned long long)seed, n, sim_finding_kind_name(run.findings[0].kind), t);
	}
	scn_run_free(&run);
	scn_free(s);
	free(t);
	return n;
}

/* The trace hash of p's faithful run on mainline. */
static uint64_t faithful_hash(const struct kp *p)
{
	size_t len;
	char *t = text_of(p, &len);
	struct scn *s = scn_parse("gen.kws", t, len, stderr);
	struct scn_run run;
	uint64_t h;

	ck_assert_msg(s != NULL, "does not parse:\n%s", t);
	memset(&run, 0, sizeof(run));
	ck_assert_msg(!scn_run(s, kw_model_find("mainline"), &run, stderr), "run error:\n%s", t);
	h = run.hash;
	scn_run_free(&run);
	scn_free(s);
	free(t);
	return h;
}

/*
 * Whether p flushes a delayed work: kthread_flush_work() on one whose timer
 * is armed sleeps for ever, in every variant (a real bug, which the
 * contract allows: CONTRACT.md; scenarios/races/flush-armed-delayed-work.kws).
 */
static bool flushes_delayed(const struct kp *p)
{
	const struct kp_body *bodies[KP_MAX_CTX + KP_MAX_WORKS + KP_MAX_TIMERS];
	unsigned int n = 0;

	for (unsigned int i = 0; i < p->nctx; i++)
		bodies[n++] = &p->ctx[i].body;
	for (unsigned int i = 0; i < p->nworks; i++)
		bodies[n++] = &p->work[i].fn;
	for (unsigned int i = 0; i < p->ntimers; i++)
		bodies[n++] = &p->timer[i].fn;
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int k = 0; k < bodies[i]->n; k++)
			if (bodies[i]->s[k].op == KP_FLUSH_WORK && p->work[bodies[i]->s[k].b].delayed)
				return true;
	return false;
}

/*
 * A program that keeps the contract and does not flush a delayed work
 * finds nothing in mainline's faithful run: what the generator adds (the
 * waits, the teardown, the lock variants, hung_task) is sound.
 */
START_TEST(generated_programs_parse_and_run)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };
	size_t with_findings = 0, flushing = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct rng r;
		struct kp p;
		size_t found;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		ck_assert_uint_gt(kp_size(&p), 0);
		found = parse_and_run(&p, "seed", seed, true);
		with_findings += found != 0;
		if (flushes_delayed(&p))
			flushing++;
		else
			ck_assert_msg(!found, "seed %llu: the faithful run finds something",
				      (unsigned long long)seed);
	}
	fprintf(stderr, "contract mode: %zu of %d faithful runs found something, %zu programs "
		"flush a delayed work\n", with_findings, SEEDS, flushing);
}
END_TEST

/*
 * Random schedules too run without a scenario error: the teardown's (and
 * a body's) kthread_stop(W->task) of a legacy worker must not come before
 * its thread has first run and set W->task (print.c flushes first).
 */
START_TEST(random_schedules_run_without_error)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };
	size_t legacy = 0;

	for (uint64_t seed = 1; seed <= SEEDS / 2; seed++) {
		struct rng r;
		struct kp p;
		size_t len;
		char *t;
		struct scn *s;
		bool has_legacy = false;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		for (unsigned int i = 0; i < p.nworkers; i++)
			has_legacy |= p.worker[i].legacy;
		if (!has_legacy)
			continue;
		legacy++;
		t = text_of(&p, &len);
		s = scn_parse("gen.kws", t, len, stderr);
		ck_assert_ptr_nonnull(s);
		for (uint64_t sched = 1; sched <= 10; sched++) {
			struct sim_config cfg = s->cfg;
			struct scn_run run;

			cfg.strategy = SIM_STRATEGY_RANDOM;
			cfg.seed = sched;
			memset(&run, 0, sizeof(run));
			run.config = &cfg;
			if (scn_run(s, kw_model_find("mainline"), &run, stderr))
				ck_abort_msg("seed %llu, schedule %llu: run error:\n%s",
					     (unsigned long long)seed, (unsigned long long)sched, t);
			scn_run_free(&run);
		}
		scn_free(s);
		free(t);
	}
	ck_assert_uint_gt(legacy, 20);
	/* the smallest such program: the teardown may run before the worker's thread */
	{
		struct kp p;
		size_t len;
		char *t;
		struct scn *s;

		memset(&p, 0, sizeof(p));
		p.cpus = 2, p.hz = 250, p.nworkers = 1, p.nworks = 1, p.nctx = 1, p.teardown = true;
		p.worker[0].legacy = true;
		p.ctx[0].cpu = -1;
		p.ctx[0].body.n = 1;
		p.ctx[0].body.s[0] = (struct kp_stmt){ .op = KP_UDELAY, .arg = 1 };
		kp_normalize(&p);
		t = text_of(&p, &len);
		s = scn_parse("gen.kws", t, len, stderr);
		ck_assert_ptr_nonnull(s);
		for (uint64_t sched = 1; sched <= 300; sched++) {
			struct sim_config cfg = s->cfg;
			struct scn_run run;

			cfg.strategy = SIM_STRATEGY_RANDOM;
			cfg.seed = sched;
			memset(&run, 0, sizeof(run));
			run.config = &cfg;
			if (scn_run(s, kw_model_find("mainline"), &run, stderr))
				ck_abort_msg("schedule %llu: run error:\n%s", (unsigned long long)sched, t);
			scn_run_free(&run);
		}
		scn_free(s);
		free(t);
	}
}
END_TEST

START_TEST(misuse_programs_parse_and_run)
{
	struct kp_gen_opts o = { .misuse = true, .max_cpus = 4 };

	for (uint64_t seed = 1; seed <= SEEDS / 5; seed++) {
		struct rng r;
		struct kp p;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		parse_and_run(&p, "misuse seed", seed, false);
	}
}
END_TEST

START_TEST(contract_holds_after_generate_and_mutations)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };
	struct rng r;
	struct kp p, other;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		ck_assert_msg(kp_contract(&p) == 0, "seed %llu breaks %#llx",
			      (unsigned long long)seed, (unsigned long long)kp_contract(&p));
	}
	rng_seed(&r, 7);
	kp_generate(&p, &r, &o);
	kp_generate(&other, &r, &o);
	for (int i = 0; i < CHAIN; i++) {
		const char *what = kp_mutate(&p, &r, i % 3 ? NULL : &other, &o);

		ck_assert_ptr_nonnull(what);
		ck_assert_msg(kp_contract(&p) == 0, "mutation %d (%s) breaks %#llx", i, what,
			      (unsigned long long)kp_contract(&p));
		if (i % 50 == 0)
			parse_and_run(&p, "mutation", (uint64_t)i, true);
		if (i % 200 == 0)
			kp_generate(&other, &r, &o);
	}
}
END_TEST

START_TEST(printing_is_deterministic)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct rng r1, r2;
		struct kp a, b;
		size_t la, lb;
		char *ta, *tb;

		rng_seed(&r1, seed);
		rng_seed(&r2, seed);
		kp_generate(&a, &r1, &o);
		kp_generate(&b, &r2, &o);
		ck_assert(kp_eq(&a, &b));
		ta = text_of(&a, &la);
		tb = text_of(&b, &lb);
		ck_assert_uint_eq(la, lb);
		ck_assert(!memcmp(ta, tb, la));
		free(ta);
		free(tb);
		/* a mutation is a function of the seed too */
		ck_assert_str_eq(kp_mutate(&a, &r1, NULL, &o), kp_mutate(&b, &r2, NULL, &o));
		ck_assert(kp_eq(&a, &b));
	}
}
END_TEST

static char *saved(const struct kp *p, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(kp_save(mem, p), 0);
	ck_assert_int_eq(fclose(mem), 0);
	return buf;
}

static int load_text(const char *text, size_t len, struct kp *p, char *err, size_t errlen)
{
	FILE *in = fmemopen((void *)text, len, "r");
	int rc;

	ck_assert_ptr_nonnull(in);
	err[0] = '\0';
	rc = kp_load(in, p, err, errlen);
	fclose(in);
	return rc;
}

START_TEST(save_load_round_trip)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct kp_gen_opts o = { .misuse = seed % 4 == 0, .max_cpus = 4 };
		struct rng r;
		struct kp p, q;
		size_t len, l1, l2;
		char err[200], *file, *t1, *t2;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		for (uint64_t i = 0; i < seed % 7; i++)
			kp_mutate(&p, &r, NULL, &o);
		file = saved(&p, &len);
		ck_assert_msg(load_text(file, len, &q, err, sizeof(err)) == 0, "seed %llu: %s\n%s",
			      (unsigned long long)seed, err, file);
		ck_assert_msg(kp_eq(&p, &q), "seed %llu: loaded differs\n%s", (unsigned long long)seed,
			      file);
		ck_assert(!memcmp(&p, &q, sizeof(p)));	/* equal normal programs are equal bytes */
		t1 = text_of(&p, &l1);
		t2 = text_of(&q, &l2);
		ck_assert_uint_eq(l1, l2);
		ck_assert(!memcmp(t1, t2, l1));
		free(t1);
		free(t2);
		free(file);
	}
}
END_TEST

/*
 * Ranges: each kind is generated in some programs; they print as ranges;
 * and the faithful run takes their lower bounds, so it is the run of the
 * program without them (hung_task aside, which the longest wait sets).
 */
START_TEST(ranges_generated_and_faithful_at_lower_bounds)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };
	size_t starts = 0, udelays = 0, msleeps = 0, compared = 0;

	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct rng r;
		struct kp p, q;
		bool any = false;
		size_t len;
		char *t;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		q = p;
		for (unsigned int i = 0; i < p.nctx; i++) {
			starts += p.ctx[i].at_hi_us != 0;
			any |= p.ctx[i].at_hi_us != 0;
			ck_assert(!p.ctx[i].at_hi_us || p.ctx[i].at_hi_us > p.ctx[i].at_us);
			q.ctx[i].at_hi_us = 0;
		}
		for (unsigned int w = 0; w < KP_MAX_CTX + KP_MAX_WORKS + KP_MAX_TIMERS; w++) {
			struct kp_body *b = w < KP_MAX_CTX ? &q.ctx[w].body
					  : w < KP_MAX_CTX + KP_MAX_WORKS ? &q.work[w - KP_MAX_CTX].fn
					  : &q.timer[w - KP_MAX_CTX - KP_MAX_WORKS].fn;

			for (unsigned int k = 0; k < b->n; k++) {
				udelays += b->s[k].op == KP_UDELAY && b->s[k].hi;
				msleeps += b->s[k].op == KP_MSLEEP && b->s[k].hi;
				any |= b->s[k].hi != 0;
				ck_assert(!b->s[k].hi || b->s[k].hi > b->s[k].arg);
				b->s[k].hi = 0;
			}
		}
		if (!any)
			continue;
		t = text_of(&p, &len);
		ck_assert_msg(strstr(t, ".."), "seed %llu: a range not printed:\n%s",
			      (unsigned long long)seed, t);
		free(t);
		/* the same program but for its ranges' upper bounds, and the same hung_task */
		if (compared < 60) {
			ck_assert_msg(faithful_hash(&p) == faithful_hash(&q),
				      "seed %llu: the faithful run is not at the lower bounds",
				      (unsigned long long)seed);
			compared++;
		}
	}
	fprintf(stderr, "ranges in %d programs: %zu starts, %zu udelays, %zu msleeps\n", SEEDS,
		starts, udelays, msleeps);
	ck_assert_uint_gt(starts, 50);
	ck_assert_uint_gt(udelays, 20);
	ck_assert_uint_gt(msleeps, 20);
	ck_assert_uint_eq(compared, 60);
}
END_TEST

/* Every prefix of a saved program is refused, and so is a byte changed at each place. */
START_TEST(load_refuses_truncated_and_garbled)
{
	struct kp_gen_opts o = { .misuse = false, .max_cpus = 4 };
	static const char garbage[] = { 'x', '9', '-', ' ', '\0', '\n', (char)0xff };
	size_t refused = 0, tried = 0;

	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct rng r;
		struct kp p, q;
		size_t len;
		char err[200], *file;

		rng_seed(&r, seed);
		kp_generate(&p, &r, &o);
		file = saved(&p, &len);
		for (size_t cut = 0; cut < len; cut++) {
			ck_assert_msg(load_text(file, cut, &q, err, sizeof(err)) == -1,
				      "seed %llu: a prefix of %zu bytes loads", (unsigned long long)seed,
				      cut);
			ck_assert_msg(err[0], "no reason for a prefix of %zu", cut);
		}
		for (size_t at = 0; at < len; at++)
			for (size_t g = 0; g < sizeof(garbage); g++) {
				char *bad = malloc(len);

				memcpy(bad, file, len);
				if (bad[at] == garbage[g]) {
					free(bad);
					continue;
				}
				bad[at] = garbage[g];
				tried++;
				/* either refused with a reason, or a well-formed program */
				if (load_text(bad, len, &q, err, sizeof(err))) {
					ck_assert(err[0]);
					refused++;
				} else {
					char *t = text_of(&q, NULL);

					free(t);
				}
				free(bad);
			}
		free(file);
	}
	/* most garbling is caught: a digit changed into another digit is a different program */
	ck_assert_uint_gt(refused, tried / 2);
	{
		struct kp q;
		char err[200];
		static const char *const bad[] = {
			"",
			"kwsim-prog 2\n",
			"kwsim-prog 1\nmachine 9 250\n",
			"kwsim-prog 1\nmachine 2 250\ncounts 1 1 0 1 0 0 0\nsuspend 0 0 0\nteardown 1\n"
			"worker 0 0 0 -1\nwork 0 0 0\nctx 0 thread -1 0\nstmt ctx 0 queue_work 0 5 0\nend\n",
			"kwsim-prog 1\nmachine 2 250\ncounts 1 1 0 1 0 0 0\nsuspend 0 0 0\nteardown 1\n"
			"worker 0 0 0 -1\nwork 0 0 0\nctx 0 thread -1 0\nstmt ctx 0 frobnicate 0 0 0\nend\n",
			"kwsim-prog 1\nmachine 2 250\ncounts 1 1 0 1 0 0 0\nsuspend 0 0 0\nteardown 1\n"
			"worker 0 0 0 -1\nwork 0 0 0\nctx 0 thread -1 0\nend\nmore\n",
			"kwsim-prog 1\nmachine 2 250\ncounts 1 1 0 2 0 0 0\nsuspend 0 0 0\nteardown 1\n"
			"worker 0 0 0 -1\nwork 0 0 0\nctx 0 thread -1 0\nend\n",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ck_assert_msg(load_text(bad[i], strlen(bad[i]), &q, err, sizeof(err)) == -1,
				      "bad file %zu loads", i);
			ck_assert(err[0]);
		}
	}
}
END_TEST

static void check_balanced(const struct kp_body *b)
{
	int stack[KP_MAX_STMTS], depth = 0;

	ck_assert_uint_le(b->n, KP_MAX_STMTS);
	for (unsigned int i = 0; i < b->n; i++) {
		if (b->s[i].op == KP_LOCK) {
			stack[depth++] = b->s[i].a;
		} else if (b->s[i].op == KP_UNLOCK) {
			ck_assert_int_gt(depth, 0);
			ck_assert_int_eq(stack[--depth], b->s[i].a);
		}
	}
	ck_assert_int_eq(depth, 0);
}

START_TEST(normalize_balances_locks)
{
	struct kp p;

	/* hand-made: an unlock without a lock, a lock never unlocked, a full body */
	memset(&p, 0, sizeof(p));
	p.cpus = 2, p.hz = 250, p.nworkers = 1, p.nctx = 2, p.nlocks = 2, p.teardown = true;
	p.ctx[0].body.n = 3;
	p.ctx[0].body.s[0] = (struct kp_stmt){ .op = KP_UNLOCK, .a = 0 };
	p.ctx[0].body.s[1] = (struct kp_stmt){ .op = KP_LOCK, .a = 1 };
	p.ctx[0].body.s[2] = (struct kp_stmt){ .op = KP_UDELAY, .arg = 5 };
	p.ctx[1].body.n = KP_MAX_STMTS;
	for (unsigned int i = 0; i < KP_MAX_STMTS; i++)
		p.ctx[1].body.s[i] = (struct kp_stmt){ .op = KP_UDELAY, .arg = 1 };
	p.ctx[1].body.s[0] = (struct kp_stmt){ .op = KP_LOCK, .a = 0 };
	p.ctx[1].body.s[1] = (struct kp_stmt){ .op = KP_LOCK, .a = 1 };
	kp_normalize(&p);
	ck_assert_uint_eq(p.ctx[0].body.n, 3);
	ck_assert_uint_eq(p.ctx[0].body.s[0].op, KP_LOCK);
	ck_assert_uint_eq(p.ctx[0].body.s[2].op, KP_UNLOCK);
	check_balanced(&p.ctx[0].body);
	check_balanced(&p.ctx[1].body);
	/* mutations under --misuse keep every body balanced, and normalize is idempotent */
	{
		struct kp_gen_opts o = { .misuse = true, .max_cpus = 4 };
		struct rng r;

		rng_seed(&r, 11);
		kp_generate(&p, &r, &o);
		for (int i = 0; i < CHAIN; i++) {
			struct kp q;

			kp_mutate(&p, &r, NULL, &o);
			for (unsigned int c = 0; c < p.nctx; c++)
				check_balanced(&p.ctx[c].body);
			for (unsigned int w = 0; w < p.nworks; w++)
				check_balanced(&p.work[w].fn);
			for (unsigned int t = 0; t < p.ntimers; t++)
				check_balanced(&p.timer[t].fn);
			q = p;
			kp_normalize(&q);
			ck_assert(kp_eq(&p, &q));
			ck_assert(!memcmp(&p, &q, sizeof(p)));
		}
	}
}
END_TEST

static Suite *prog_suite(void)
{
	Suite *s = suite_create("prog");
	TCase *tc = tcase_create("prog");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, generated_programs_parse_and_run);
	tcase_add_test(tc, random_schedules_run_without_error);
	tcase_add_test(tc, misuse_programs_parse_and_run);
	tcase_add_test(tc, contract_holds_after_generate_and_mutations);
	tcase_add_test(tc, printing_is_deterministic);
	tcase_add_test(tc, save_load_round_trip);
	tcase_add_test(tc, load_refuses_truncated_and_garbled);
	tcase_add_test(tc, normalize_balances_locks);
	tcase_add_test(tc, ranges_generated_and_faithful_at_lower_bounds);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(prog_suite)
