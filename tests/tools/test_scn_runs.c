/*
 * Pins the scenario's run state: one parse serves any number of runs.
 *  - a scenario parsed once and run for many seeds, back to back on one
 *    machine, forwards then backwards, gives for each seed what a fresh
 *    process that loads the file and runs it once gives (kwsim run's
 *    path): trace hash, decisions, end, verdict, findings, every count,
 *    register and first start, and the summary, result and JSON bytes;
 *  - the parse is byte for byte what it was before the runs;
 *  - a run's state outlives the next run: its counts, registers and first
 *    starts are still its own.
 */
#include <model.h>
#include <scenario/scn.h>
#include <sim/fnv.h>
#include <scenario/scn_lex.h>	/* the parse's arena, to hash it */
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A race with registers and findings; counters, ran() and before(); a flush race. */
static const struct {
	const char *file;
	int seeds;
} cases[] = {
	{ "races/self-requeue-vs-cancel.kws", 200 },
	{ "teaching/02-conditions.kws", 40 },
	{ "races/queue-vs-flush-running.kws", 40 },
	{ "races/timer-callback-vs-cancel-delayed-work-sync-v4.9.kws", 40 },
};
static const char *const kernels[] = { "v4.9", "mainline" };

#define MAX_SEEDS 200

struct outcome {
	uint64_t hash;
	size_t decisions;
	enum sim_end end;
	bool cond_holds;
	size_t findings;
	uint64_t state;		/* counts, first starts, registers */
	uint64_t output;	/* summary, result block and JSON tail */
};

static uint64_t state_of(const struct scn *s, const struct scn_run *run)
{
	uint64_t h = SIM_FNV_OFFSET;

	for (int i = 0; i < s->nobjs; i++) {
		h = sim_fnv(h, &run->objs[i].count, sizeof(run->objs[i].count));
		h = sim_fnv(h, &run->objs[i].first_start, sizeof(run->objs[i].first_start));
	}
	for (int p = 0; p < s->nprogs; p++)
		for (int r = 0; r < s->progs[p]->nregs; r++) {
			h = sim_fnv(h, &run->progs[p].regs[r], sizeof(run->progs[p].regs[r]));
			h = sim_fnv(h, &run->progs[p].regset[r], sizeof(run->progs[p].regset[r]));
		}
	return h;
}

static uint64_t output_of(const struct scn *s, const struct scn_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	uint64_t h;

	ck_assert_ptr_nonnull(mem);
	scn_print_summary(mem, s, run);
	scn_print_result(mem, s, run);
	scn_print_json(mem, s, run);
	ck_assert_int_eq(fclose(mem), 0);
	ck_assert_uint_gt(len, 0);
	h = sim_fnv(SIM_FNV_OFFSET, buf, len);
	free(buf);
	return h;
}

static struct sim_config config_for(const struct scn *s, uint64_t seed)
{
	struct sim_config cfg = s->cfg;

	cfg.strategy = SIM_STRATEGY_RANDOM;
	cfg.seed = seed;
	return cfg;
}

/* One run of s; its state stays in run for the caller (scn_run_free). */
static struct outcome run_once(const struct scn *s, const char *kernel, uint64_t seed,
			       struct scn_run *run)
{
	struct sim_config cfg = config_for(s, seed);
	const struct kw_model *m = kw_model_find(kernel);
	struct outcome o;

	ck_assert_ptr_nonnull(m);
	memset(run, 0, sizeof(*run));
	run->config = &cfg;
	ck_assert_int_eq(scn_run(s, m, run, stderr), 0);
	o = (struct outcome){
		run->hash, run->ndecisions, run->end, run->cond_holds, sim_finding_count(),
		state_of(s, run), output_of(s, run),
	};
	return o;
}

static char *path_of(const char *file)
{
	char *path = malloc(strlen(KWSIM_SCENARIOS) + strlen(file) + 2);

	ck_assert_ptr_nonnull(path);
	sprintf(path, "%s/%s", KWSIM_SCENARIOS, file);
	return path;
}

/* The seed's outcome in a new process that loads the file, as kwsim run does. */
static struct outcome fresh_process(const char *file, const char *kernel, uint64_t seed)
{
	struct outcome o;
	int fd[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		char *path = path_of(file);
		struct scn *s = scn_load(path, stderr);
		struct scn_run run;

		if (!s)
			_exit(1);
		o = run_once(s, kernel, seed, &run);
		_exit(write(fd[1], &o, sizeof(o)) == (ssize_t)sizeof(o) ? 0 : 1);
	}
	close(fd[1]);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(read(fd[0], &o, sizeof(o)), (ssize_t)sizeof(o));
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return o;
}

static void same(const char *file, const char *kernel, uint64_t seed, struct outcome a,
		 struct outcome b)
{
	ck_assert_msg(a.hash == b.hash && a.decisions == b.decisions && a.end == b.end &&
		      a.cond_holds == b.cond_holds && a.findings == b.findings &&
		      a.state == b.state && a.output == b.output,
		      "%s on %s, seed %llu: fresh %016llx/%zu/%s/%d/%zu/%016llx/%016llx, "
		      "in process %016llx/%zu/%s/%d/%zu/%016llx/%016llx", file, kernel,
		      (unsigned long long)seed, (unsigned long long)a.hash, a.decisions,
		      sim_end_name(a.end), a.cond_holds, a.findings, (unsigned long long)a.state,
		      (unsigned long long)a.output, (unsigned long long)b.hash, b.decisions,
		      sim_end_name(b.end), b.cond_holds, b.findings, (unsigned long long)b.state,
		      (unsigned long long)b.output);
}

/* Everything the parse holds: the scenario, its arena of nodes, its text. */
static uint64_t parse_hash(const struct scn *s)
{
	uint64_t h = sim_fnv(SIM_FNV_OFFSET, s, sizeof(*s));

	for (const struct scn_chunk *c = s->arena; c; c = c->next)
		h = sim_fnv(h, c->data, c->used);
	return sim_fnv(h, s->text, s->text_len);
}

static struct outcome fresh[MAX_SEEDS];

START_TEST(one_parse_many_runs)
{
	const char *file = cases[_i / 2].file, *kernel = kernels[_i % 2];
	int seeds = cases[_i / 2].seeds;
	char *path = path_of(file);
	struct scn *s;
	struct scn_run prev, run;
	struct outcome prev_o;
	uint64_t before;
	bool have_prev = false;

	/* first, before this process runs any machine */
	for (int i = 0; i < seeds; i++)
		fresh[i] = fresh_process(file, kernel, (uint64_t)i);
	/* the seeds lead to different runs, or there is little to compare */
	for (int i = 1; i < seeds && fresh[i].hash == fresh[0].hash; i++)
		ck_assert_int_lt(i, seeds - 1);
	s = scn_load(path, stderr);
	ck_assert_ptr_nonnull(s);
	before = parse_hash(s);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < seeds; i++) {
			int seed = pass ? seeds - 1 - i : i;
			struct outcome o = run_once(s, kernel, (uint64_t)seed, &run);

			same(file, kernel, (uint64_t)seed, fresh[seed], o);
			/* the run before is still its own */
			if (have_prev) {
				ck_assert_uint_eq(state_of(s, &prev), prev_o.state);
				scn_run_free(&prev);
			}
			prev = run;
			prev_o = o;
			have_prev = true;
		}
	scn_run_free(&prev);
	sim_fini();
	ck_assert_msg(parse_hash(s) == before, "%s: the runs changed the parse", file);
	scn_free(s);
	free(path);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("scn_runs");
	TCase *tc = tcase_create("runs");

	tcase_add_loop_test(tc, one_parse_many_runs, 0,
			    (int)(sizeof(cases) / sizeof(cases[0]) * 2));
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
