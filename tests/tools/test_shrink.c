/*
 * The shrinker as kwsim explore calls it (tools/explore/shrink.h): a run
 * made by a strategy of the caller's (a chooser), of a scenario with no
 * schedule section, shrunk in process.
 *  - the parse records each statement's, program's and declaration's bytes;
 *  - the result keeps the finding (xf_bug) and replays it with the log alone,
 *    its depth and size are no larger than the run's, and the statements,
 *    the program and the declarations the race does not need are gone;
 *  - the same input gives the same bytes; a target named by its key gives
 *    what the default gives; the condition can be the target;
 *  - the budget bounds the runs, and what it leaves still replays;
 *  - a candidate's step limit follows the original run's points (four
 *    times, plus 100), within the scenario's max_steps: a short run's
 *    looping candidates stop after a few hundred points, not 100,000;
 *  - a run without a log, a target the run does not show and a run that
 *    shows nothing are refused with a reason.
 */
#include <explore/finding.h>
#include <explore/shrink.h>
#include <model.h>
#include <scenario/scn.h>

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws with a program, a
 * work, a fn, a counter and statements that the deadlock does not need.
 */
static const char padded[] =
	"KW padded\n"
	"(* the v4.9 mod vs cancel race, padded *)\n"
	"{\n"
	"  cpus = 3;\n"
	"  kernel = v4.9;\n"
	"  int done = 0;\n"
	"  int extra = 0;\n"
	"  fn f { udelay(300); }\n"
	"  fn g { extra++; }\n"
	"  worker W = kthread_create_worker_on_cpu(2, 0, \"kw/2\");\n"
	"  work A = g;\n"
	"  delayed_work D = f;\n"
	"}\n"
	"P0 @cpu0 {\n"
	"  log(\"P0 begins\");\n"
	"  r0 = kthread_queue_delayed_work(W, D, 0);\n"
	"  extra = extra + 1; if (extra > 5) { udelay(1); } else extra--;\n"
	"  udelay(100);\n"
	"  r1 = kthread_mod_delayed_work(W, D, 5);\n"
	"}\n"
	"P1 @cpu1 at 100us {\n"
	"  r2 = kthread_cancel_delayed_work_sync(D);\n"
	"  done = 1;\n"
	"}\n"
	"P2 @cpu0 at 10ms {\n"
	"  repeat (3) { extra += 2; }\n"
	"}\n"
	"exists (0:r0 == true /\\ 0:r1 == false /\\ done == 0 /\\ deadlock)\n";

/* A strategy of the test's own: uniform answers from a seed (splitmix64). */
static unsigned int random_choose(void *ctx, const struct sim_question *q)
{
	uint64_t *x = ctx, z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned int)((z ^ (z >> 31)) % q->n);
}

static const struct kw_model *v49(void)
{
	const struct kw_model *m = kw_model_find("v4.9");

	ck_assert_ptr_nonnull(m);
	return m;
}

static struct scn *parse(const char *text)
{
	struct scn *s = scn_parse("padded.kws", text, strlen(text), stderr);

	ck_assert_ptr_nonnull(s);
	return s;
}

static uint64_t state;
static struct sim_config cfg;

/* The deadlock among run's findings (the contract oracles see the race earlier). */
static const struct sim_finding *deadlock_of(const struct scn_run *run)
{
	for (size_t i = 0; i < run->nfindings; i++)
		if (run->findings[i].kind == SIM_F_DEADLOCK)
			return &run->findings[i];
	return NULL;
}

/* The first seed from 0 whose run deadlocks, in run (which keeps its log). */
static uint64_t find_deadlock(const struct scn *s, struct scn_run *run)
{
	for (uint64_t seed = 0; seed < 1000; seed++) {
		cfg = s->cfg;
		cfg.chooser = random_choose;
		cfg.chooser_ctx = &state;
		state = seed;
		run->config = &cfg;
		ck_assert_int_eq(scn_run(s, v49(), run, stderr), 0);
		if (deadlock_of(run))
			return seed;
	}
	ck_abort_msg("no seed below 1000 deadlocks");
	return 0;
}

/* Run a shrunk file as kwsim replay does: the log alone decides. */
static void replay(const char *text, struct scn_run *run)
{
	struct scn *s = parse(text);

	ck_assert(s->has_schedule);
	ck_assert_msg(!s->log_strategy, "a chooser's log is written with no strategy");
	s->replay = true;
	s->cfg.strategy = SIM_STRATEGY_REPLAY;
	memset(run, 0, sizeof(*run));
	ck_assert_int_eq(scn_run(s, v49(), run, stderr), 0);
	ck_assert_msg(run->end != SIM_END_DIVERGED, "%s", run->divergence);
	scn_free(s);
}

static bool has_bug(const struct scn_run *run, const char *bug)
{
	char buf[400];

	for (size_t i = 0; i < run->nfindings; i++)
		if (!strcmp(xf_bug(&run->findings[i], buf, sizeof(buf)), bug))
			return true;
	return false;
}

/* Where line:col is in text. */
static size_t offset_of(const char *text, struct scn_loc loc)
{
	size_t i = 0;

	for (int line = 1; line < loc.line; i++)
		line += text[i] == '\n';
	return i + (size_t)loc.col - 1;
}

static void check_spans(const struct scn *s, const struct scn_stmt *st, int *n)
{
	for (; st; st = st->next) {
		if (st->end) {
			ck_assert_uint_eq(st->start, offset_of(s->text, st->loc));
			ck_assert_msg(s->text[st->end - 1] == ';' || s->text[st->end - 1] == '}',
				      "statement at line %d ends with '%c'", st->loc.line,
				      s->text[st->end - 1]);
			++*n;
		}
		check_spans(s, st->body, n);
		check_spans(s, st->orelse, n);
	}
}

START_TEST(spans)
{
	struct scn *s = parse(padded);
	int n = 0;

	for (int i = 0; i < s->nprogs; i++) {
		const struct scn_prog *p = s->progs[i];

		ck_assert_uint_eq(p->start, offset_of(s->text, p->loc));
		ck_assert_int_eq(s->text[p->end - 1], '}');
		check_spans(s, p->body, &n);
	}
	for (int i = 0; i < s->nfns; i++)
		check_spans(s, s->fns[i]->body, &n);
	/* log, r0, extra =, if, its block, its udelay, else's udelay, udelay, r1, r2, done,
	   repeat, its block, extra +=; the fns' udelay and extra++ */
	ck_assert_int_eq(n, 16);
	for (int i = 0; i < s->nobjs; i++) {
		const struct scn_obj *o = s->objs[i];

		if (o->kind == OBJ_PROGRAM)
			continue;
		ck_assert_msg(o->end > o->start, "%s has no span", o->name);
		ck_assert_int_eq(s->text[o->end - 1], o->kind == OBJ_FN ? '}' : ';');
		ck_assert(!strncmp(s->text + o->start, "int", 3) || !strncmp(s->text + o->start, "fn", 2) ||
			  !strncmp(s->text + o->start, "work", 4) ||
			  !strncmp(s->text + o->start, "delayed_work", 12));
	}
	scn_free(s);
}
END_TEST

START_TEST(explore_run)
{
	struct scn *s = parse(padded);
	struct scn_run run = { 0 }, again = { 0 };
	struct xshrink_result r, r2, r3;
	char key[400], bug[400];

	find_deadlock(s, &run);
	/* the race's deadlock: a contract finding, where the race happens, comes first */
	xf_bug(deadlock_of(&run), bug, sizeof(bug));
	ck_assert_int_eq(xshrink(s, v49(), &run, bug, 0, &r), 0);
	ck_assert_msg(!strncmp(r.target, "deadlock kthread_flush_work:", 28), "%s", r.target);
	ck_assert_uint_le(r.runs, XSHRINK_BUDGET + 2);
	/* depth and size: no larger, and what the race does not need is gone */
	ck_assert_uint_le(r.after.deviations, r.before.deviations);
	ck_assert_uint_le(r.after.preemptions, r.before.preemptions);
	ck_assert_uint_lt(r.after.statements, r.before.statements);
	/* the search tries every schedule with up to XSHRINK_SEARCH_DEPTH deviations */
	ck_assert(!r.depth_minimal || r.after.deviations <= XSHRINK_SEARCH_DEPTH + 1);
	ck_assert(!r.budget_spent);
	ck_assert_uint_lt(r.after.programs, r.before.programs);
	ck_assert_uint_lt(r.after.declarations, r.before.declarations);
	ck_assert_msg(!strstr(r.text, "extra") && !strstr(r.text, "log(") && !strstr(r.text, "P2") &&
		      !strstr(r.text, "fn g"), "left in:\n%s", r.text);
	/* the cuts left whole lines, and kept the name, comment and condition */
	ck_assert(!strncmp(r.text, "KW padded\n(* the v4.9 mod vs cancel race, padded *)\n{\n", 53));
	ck_assert_ptr_nonnull(strstr(r.text, "\nexists (0:r0 == true /\\ 0:r1 == false /\\ done == 0 /\\ deadlock)\n"));
	ck_assert_ptr_null(strstr(r.text, "\n\n  "));
	ck_assert_msg(!strstr(r.text, " \n"), "%s", r.text);
	ck_assert_ptr_nonnull(strstr(r.text, "(* kwsim shrink: "));

	replay(r.text, &again);
	ck_assert_msg(has_bug(&again, r.target), "the replay lost %s", r.target);
	ck_assert_uint_eq(again.nlog, r.after.decisions);

	/* the same input, the same bytes; by its key, the same target */
	ck_assert_int_eq(xshrink(s, v49(), &run, bug, 0, &r2), 0);
	ck_assert_uint_eq(r2.len, r.len);
	ck_assert(!memcmp(r2.text, r.text, r.len));
	ck_assert_int_eq(xshrink(s, v49(), &run, xf_key(deadlock_of(&run), key, sizeof(key)), 0, &r3),
			 0);
	ck_assert_str_eq(r3.target, r.target);
	ck_assert(r3.len == r.len && !memcmp(r3.text, r.text, r.len));
	xshrink_result_free(&r3);

	/* shrinking the result again: one comment, and the depth does not grow */
	{
		struct scn *t = parse(r.text);

		t->replay = true;
		t->cfg.strategy = SIM_STRATEGY_REPLAY;
		ck_assert_int_eq(scn_run(t, v49(), &again, stderr), 0);
		ck_assert_int_eq(xshrink(t, v49(), &again, r.target, 0, &r3), 0);
		ck_assert_uint_le(r3.after.deviations, r.after.deviations);
		ck_assert_ptr_null(strstr(strstr(r3.text, "(* kwsim shrink: ") + 1, "(* kwsim shrink: "));
		xshrink_result_free(&r3);
		scn_free(t);
	}
	xshrink_result_free(&r);
	xshrink_result_free(&r2);
	sim_fini();
	scn_run_free(&run);
	scn_run_free(&again);
	scn_free(s);
}
END_TEST

START_TEST(condition_target)
{
	struct scn *s = parse(padded);
	struct scn_run run = { 0 }, again = { 0 };
	struct xshrink_result r;

	find_deadlock(s, &run);
	ck_assert(xf_condition_witness(s, &run));
	ck_assert_int_eq(xshrink(s, v49(), &run, XF_CONDITION_KEY, 0, &r), 0);
	ck_assert_str_eq(r.target, XF_CONDITION_KEY);
	replay(r.text, &again);
	{
		struct scn *t = parse(r.text);

		ck_assert(xf_condition_witness(t, &again));
		scn_free(t);
	}
	xshrink_result_free(&r);
	sim_fini();
	scn_run_free(&run);
	scn_run_free(&again);
	scn_free(s);
}
END_TEST

START_TEST(budget)
{
	struct scn *s = parse(padded);
	struct scn_run run = { 0 }, again = { 0 };
	struct xshrink_result r;

	find_deadlock(s, &run);
	ck_assert_int_eq(xshrink(s, v49(), &run, NULL, 3, &r), 0);
	/* three candidates, the run it starts from, the final run and its replay */
	ck_assert_uint_le(r.runs, 3 + 3);
	ck_assert(r.budget_spent);
	ck_assert_uint_le(r.after.deviations, r.before.deviations);
	replay(r.text, &again);
	ck_assert(has_bug(&again, r.target));
	xshrink_result_free(&r);
	sim_fini();
	scn_run_free(&run);
	scn_run_free(&again);
	scn_free(s);
}
END_TEST

START_TEST(step_bound)
{
	/* hand-worked: 4 * 120 + 100; a scenario's lower limit wins; 0 is no limit */
	ck_assert_uint_eq(xshrink_step_bound(120, 200000), 580);
	ck_assert_uint_eq(xshrink_step_bound(120, 0), 580);
	ck_assert_uint_eq(xshrink_step_bound(120, 500), 500);
	ck_assert_uint_eq(xshrink_step_bound(1000000, 0), 4000100);
	ck_assert_uint_eq(xshrink_step_bound(UINT64_MAX / 2, 0), UINT64_MAX);
	ck_assert_uint_eq(xshrink_step_bound(UINT64_MAX / 2, 5), 5);
	/* a fuzz program's run (a few hundred points): its candidates stay short */
	for (uint64_t p = 1; p <= 400; p++)
		ck_assert_uint_le(xshrink_step_bound(p, 200000), 4 * p + 100);
}
END_TEST

START_TEST(refused)
{
	struct scn *s = parse(padded);
	struct scn_run run = { 0 };
	struct xshrink_result r;

	find_deadlock(s, &run);
	ck_assert_int_eq(xshrink(s, v49(), &run, "warn nowhere:1 P9", 0, &r), -1);
	ck_assert_ptr_nonnull(strstr(r.error, "no finding 'warn nowhere:1 P9'"));
	ck_assert_ptr_null(r.text);

	/* no log kept */
	cfg = s->cfg;
	cfg.drop_decisions = true;
	run.config = &cfg;
	ck_assert_int_eq(scn_run(s, v49(), &run, stderr), 0);
	ck_assert_int_eq(xshrink(s, v49(), &run, NULL, 0, &r), -1);
	ck_assert_ptr_nonnull(strstr(r.error, "no decision log"));

	/* the faithful run: a leak (W is never destroyed), no deadlock, the condition not seen */
	run.config = NULL;
	ck_assert_int_eq(scn_run(s, v49(), &run, stderr), 0);
	ck_assert(!xf_condition_witness(s, &run));
	ck_assert_int_eq(xshrink(s, v49(), &run, XF_CONDITION_KEY, 0, &r), -1);
	ck_assert_str_eq(r.error, "the run is no witness of its condition (exists not seen, "
			 "forall or ~exists not broken)");
	scn_free(s);

	/* no finding, and a condition not seen or none: nothing to keep */
	s = parse("KW nothing\n{ int n = 0; }\nP0 { n = 1; }\nexists (n == 2)\n");
	ck_assert_int_eq(scn_run(s, v49(), &run, stderr), 0);
	ck_assert_uint_eq(run.nfindings, 0);
	ck_assert_int_eq(xshrink(s, v49(), &run, NULL, 0, &r), -1);
	ck_assert_str_eq(r.error, "the run is no witness of its condition (exists not seen, "
			 "forall or ~exists not broken), and the run shows no finding: nothing to keep");
	scn_free(s);
	s = parse("KW nothing\n{ int n = 0; }\nP0 { n = 1; }\n");
	ck_assert_int_eq(scn_run(s, v49(), &run, stderr), 0);
	ck_assert_int_eq(xshrink(s, v49(), &run, NULL, 0, &r), -1);
	ck_assert_str_eq(r.error, "the scenario has no condition, and the run shows no finding: nothing to keep");
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("shrink");
	TCase *tc = tcase_create("shrink");

	tcase_add_test(tc, spans);
	tcase_add_test(tc, explore_run);
	tcase_add_test(tc, condition_target);
	tcase_add_test(tc, budget);
	tcase_add_test(tc, step_bound);
	tcase_add_test(tc, refused);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
