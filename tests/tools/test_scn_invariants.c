/*
 * Pins always/never invariants and the state in conditions:
 *  - checking invariants changes no run: every library scenario, with
 *    "always (true) never (false)" added, runs as it does without them
 *    (trace hash, decisions, end, findings, verdict), faithful and under
 *    seeds; and a caller's on_point is still called at every point;
 *  - a broken invariant is one finding, raised once at the first point
 *    that breaks it, in the running context (time, CPU, task, scenario
 *    line), and only its own trace record is added to the run's;
 *  - the final condition's state is the run's end, kept in the run as a
 *    value: still there after the machine has run something else;
 *  - the race: a work being canceled is queued by its timer callback on
 *    v4.9 (some seeds), never on mainline (any seed).
 */
#include <model.h>
#include <scenario/scn.h>

#include "../harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *path_of(const char *file)
{
	char *path = malloc(strlen(KWSIM_SCENARIOS) + strlen(file) + 2);

	ck_assert_ptr_nonnull(path);
	sprintf(path, "%s/%s", KWSIM_SCENARIOS, file);
	return path;
}

static struct scn *load(const char *file)
{
	char *path = path_of(file);
	struct scn *s = scn_load(path, stderr);

	ck_assert_msg(s != NULL, "%s does not parse", path);
	free(path);
	return s;
}

/* The caller's on_point: counts the points it is called at. */
static void count_point(void *arg)
{
	(*(uint64_t *)arg)++;
}

struct result {
	int rc;
	uint64_t hash, points, chained;
	size_t decisions, findings;
	enum sim_end end;
	bool holds;
};

/* One run of s with cfg (strategy, seed), a counting on_point chained. */
static struct result run_with(const struct scn *s, struct sim_config cfg, struct scn_run *run)
{
	const struct kw_model *m = kw_model_find(s->kernel);
	struct result r = { 0 };
	struct sim_stats st;

	ck_assert_ptr_nonnull(m);
	cfg.on_point = count_point;
	cfg.on_point_arg = &r.chained;
	run->config = &cfg;
	r.rc = scn_run(s, m, run, stderr);
	sim_get_stats(&st);
	r.points = st.points;
	r.hash = run->hash;
	r.decisions = run->ndecisions;
	r.findings = run->nfindings;
	r.end = run->end;
	r.holds = run->cond_holds;
	return r;
}

/* --- invariants change no run ------------------------------------------------------------ */

static char *files[512];
static int nfiles;

/* Every .kws under dir, in name order. */
static void walk(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	ck_assert_int_ge(n, 0);
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		size_t len = strlen(ents[i]->d_name);

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (!stat(path, &st) && S_ISDIR(st.st_mode))
				walk(path);
			else if (len > 4 && !strcmp(ents[i]->d_name + len - 4, ".kws") && nfiles < 512)
				files[nfiles++] = strdup(path);
		}
		free(ents[i]);
	}
	free(ents);
}

/* s's text with two invariants that always hold, before its schedule section. */
static struct scn *with_true_invariants(const struct scn *s)
{
	static const char inv[] = "\nalways (true)\nnever (false)\n";
	size_t at = s->schedule_at, n = s->text_len + sizeof(inv);
	char *text = malloc(n);
	struct scn *t;

	ck_assert_ptr_nonnull(text);
	memcpy(text, s->text, at);
	memcpy(text + at, inv, sizeof(inv) - 1);
	memcpy(text + at + sizeof(inv) - 1, s->text + at, s->text_len - at);
	t = scn_parse(s->path, text, s->text_len + sizeof(inv) - 1, stderr);
	free(text);
	ck_assert_msg(t != NULL, "%s with invariants does not parse", s->path);
	ck_assert(scn_has_invariants(t));
	return t;
}

START_TEST(checks_change_no_run)
{
	int compared = 0;

	walk(KWSIM_SCENARIOS);
	ck_assert_int_gt(nfiles, 50);
	for (int i = 0; i < nfiles; i++) {
		struct scn *s = scn_load(files[i], stderr), *t;
		struct scn_run a = { 0 }, b = { 0 };

		ck_assert_ptr_nonnull(s);
		/* a file's own schedule is followed, as kwsim replay does */
		s->replay = s->has_schedule;
		t = with_true_invariants(s);
		t->replay = s->replay;
		for (uint64_t seed = 0; seed < 3; seed++) {
			struct sim_config cfg = s->cfg;
			struct result x, y;

			if (seed && !s->has_schedule) {
				cfg.strategy = SIM_STRATEGY_RANDOM;
				cfg.seed = seed;
			}
			x = run_with(s, cfg, &a);
			y = run_with(t, cfg, &b);
			ck_assert_msg(x.rc == y.rc && x.hash == y.hash && x.decisions == y.decisions &&
				      x.findings == y.findings && x.end == y.end &&
				      x.holds == y.holds && x.points == y.points,
				      "%s, seed %llu: without invariants %d/%016llx/%zu/%zu/%s/%d/%llu, "
				      "with %d/%016llx/%zu/%zu/%s/%d/%llu", files[i],
				      (unsigned long long)seed, x.rc, (unsigned long long)x.hash,
				      x.decisions, x.findings, sim_end_name(x.end), x.holds,
				      (unsigned long long)x.points, y.rc, (unsigned long long)y.hash,
				      y.decisions, y.findings, sim_end_name(y.end), y.holds,
				      (unsigned long long)y.points);
			/* the caller's on_point, chained after the invariants', sees every point */
			ck_assert_uint_eq(y.chained, x.chained);
			ck_assert_uint_gt(y.chained, 0);
			compared++;
			if (s->has_schedule)
				break;
		}
		scn_run_free(&a);
		scn_run_free(&b);
		scn_free(s);
		scn_free(t);
		free(files[i]);
	}
	sim_fini();
	ck_assert_int_gt(compared, 100);
}
END_TEST

/* --- a broken invariant ------------------------------------------------------------------- */

/* A record with its strings, which a reset of the machine takes back. */
struct rec {
	struct sim_rec r;
	char s[64], s2[64];
};

static bool same_rec(const struct rec *x, const struct rec *y)
{
	/* a finding's record names its index, which the invariant's finding shifts */
	return x->r.type == y->r.type && x->r.time == y->r.time && x->r.cpu == y->r.cpu &&
	       x->r.pid == y->r.pid && x->r.flags == y->r.flags && x->r.preempt == y->r.preempt &&
	       (x->r.type == REC_FINDING || (x->r.a == y->r.a && x->r.b == y->r.b)) &&
	       x->r.c == y->r.c && x->r.d == y->r.d && !strcmp(x->r.comm, y->r.comm) &&
	       !strcmp(x->s, y->s) && !strcmp(x->s2, y->s2);
}

static struct rec *copy_trace(size_t *n)
{
	struct rec *r = calloc(sim_trace_count() + 1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < sim_trace_count(); i++) {
		r[i].r = sim_trace_records()[i];
		snprintf(r[i].s, sizeof(r[i].s), "%s", r[i].r.s ? r[i].r.s : "");
		snprintf(r[i].s2, sizeof(r[i].s2), "%s", r[i].r.s2 ? r[i].r.s2 : "");
	}
	*n = sim_trace_count();
	return r;
}

/*
 * state-predicates.kws on mainline, faithful: never (canceling(D)) breaks
 * when P0's cancel (line 27) raises D's canceling count, and stays broken
 * over several points; the finding is raised once, there.
 */
START_TEST(broken_once_where_it_breaks)
{
	struct scn *s = load("invariants/state-predicates.kws");
	const struct kw_model *m = kw_model_find("mainline");
	struct sim_config cfg = s->cfg;
	struct scn_run run = { 0 };
	const struct sim_finding *f = NULL;
	size_t nplain, ninv, k = 0;
	struct rec *plain, *inv;
	struct scn *bare;
	char *cut;

	cfg.keep_trace = true;
	run.config = &cfg;
	ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
	ck_assert(run.cond_holds);
	for (size_t i = 0; i < run.nfindings; i++) {
		ck_assert_int_eq(run.findings[i].kind, SIM_F_INVARIANT);
		ck_assert_ptr_null(f);
		f = &run.findings[i];
	}
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->time, 12002130);	/* msleep(5) on 6.12: 2 jiffies, +1 in the wheel */
	ck_assert_int_eq(f->cpu, 0);
	ck_assert_str_eq(f->context, "P0");
	ck_assert_msg(strstr(f->note, "state-predicates.kws:27") &&
		      !strcmp(strstr(f->note, "state-predicates.kws:27"), "state-predicates.kws:27"),
		      "note %s", f->note);
	ck_assert_str_eq(f->msg, "invariant broken: never (canceling(D))\ncanceling(D)=1");
	/* its source is the clause */
	ck_assert_str_eq(f->site.file, s->path);
	ck_assert_int_eq(f->site.line, 45);
	ck_assert_str_eq(f->site.func, "never");
	inv = copy_trace(&ninv);

	/* the same scenario without its invariants: the same records, less the finding's */
	cut = strdup(s->text);
	ck_assert_ptr_nonnull(cut);
	*strstr(cut, "\nalways") = '\0';
	strcat(cut, "\n");
	bare = scn_parse(s->path, cut, strlen(cut), stderr);
	ck_assert_ptr_nonnull(bare);
	ck_assert(!scn_has_invariants(bare));
	ck_assert_int_eq(scn_run(bare, m, &run, stderr), 0);
	ck_assert_uint_eq(run.nfindings, 0);
	plain = copy_trace(&nplain);
	ck_assert_uint_eq(ninv, nplain + 1);
	for (size_t i = 0; i < ninv; i++) {
		if (inv[i].r.type == REC_FINDING && !strcmp(inv[i].s, "invariant")) {
			ck_assert_uint_eq(inv[i].r.time, f->time);
			continue;
		}
		ck_assert_msg(k < nplain && same_rec(&inv[i], &plain[k]),
			      "record %zu differs: type %d/%d at %llu/%llu a %llx/%llx b %llx/%llx "
			      "s %s/%s", i, inv[i].r.type, plain[k].r.type,
			      (unsigned long long)inv[i].r.time, (unsigned long long)plain[k].r.time,
			      (unsigned long long)inv[i].r.a, (unsigned long long)plain[k].r.a,
			      (unsigned long long)inv[i].r.b, (unsigned long long)plain[k].r.b,
			      inv[i].s, plain[k].s);
		k++;
	}
	ck_assert_uint_eq(k, nplain);
	free(plain);
	free(inv);
	free(cut);
	scn_run_free(&run);
	sim_fini();
	scn_free(bare);
	scn_free(s);
}
END_TEST

/* --- the final state is the run's, a value ---------------------------------------------- */

START_TEST(final_state_kept)
{
	struct scn *s = load("invariants/state-predicates.kws");
	struct scn *other = load("invariants/frozen-worker.kws");
	const struct kw_model *m = kw_model_find("v4.9");
	struct scn_run run = { 0 }, next = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
	ck_assert(run.cond_holds);
	/* the machine runs something else, and the first run's state is still its end */
	ck_assert_int_eq(scn_run(other, m, &next, stderr), 0);
	ck_assert(next.cond_holds);
	ck_assert_int_eq(scn_eval_final(&run, s->cond), 1);
	mem = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(mem);
	scn_print_state(mem, &run, s->cond, false);
	fclose(mem);
	ck_assert_msg(strstr(buf, "timer_pending(D)=0; delayed(D)=0; running(A)=0; "
			     "current_work(W)==NULL=1; current_work(W)==A=0; "
			     "task_state(W->task)==TASK_DEAD=1; task_state(P0)==TASK_DEAD=1; "
			     "task_state(P1)==TASK_RUNNING=0; task_curr(P0)=0; invariant=1; "), "%s",
		      buf);
	free(buf);
	scn_run_free(&run);
	scn_run_free(&next);
	sim_fini();
	scn_free(s);
	scn_free(other);
}
END_TEST

/* --- the race, over seeds --------------------------------------------------------------------- */

static const char *const race[] = {
	"invariants/timer-callback-queues-while-canceling-v4.9.kws",
	"invariants/timer-callback-queues-while-canceling-mainline.kws",
};

START_TEST(race_over_seeds)
{
	struct scn *s = load(race[_i]);
	const struct kw_model *m = kw_model_find(s->kernel);
	struct scn_run run = { 0 };
	int broken = 0, window = 0;

	for (uint64_t seed = 0; seed < 200; seed++) {
		struct sim_config cfg = s->cfg;

		cfg.strategy = SIM_STRATEGY_RANDOM;
		cfg.seed = seed;
		cfg.drop_decisions = true;
		run.config = &cfg;
		ck_assert_int_eq(scn_run(s, m, &run, stderr), 0);
		ck_assert_uint_le(sim_finding_count_kind(SIM_F_INVARIANT), 1);
		broken += sim_finding_count_kind(SIM_F_INVARIANT) == 1;
		/* mainline: the timer fired during the cancel, which returned false */
		window += run.progs[1].regset[0] && !run.progs[1].regs[0];
	}
	if (_i == 0) {
		ck_assert_int_ge(broken, 50);
	} else {
		ck_assert_int_eq(broken, 0);
		ck_assert_int_ge(window, 50);
	}
	scn_run_free(&run);
	sim_fini();
	scn_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("scn_invariants");
	TCase *tc = tcase_create("invariants");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, checks_change_no_run);
	tcase_add_test(tc, broken_once_where_it_breaks);
	tcase_add_test(tc, final_state_kept);
	tcase_add_loop_test(tc, race_over_seeds, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
