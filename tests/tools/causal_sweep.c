/*
 * The causality checker over the scenario library: every file on every
 * variant built in (ours and the kernel trees'), once time-faithfully and
 * under the random strategy for a number of seeds, with the default skew
 * and with skew = unbounded, with stalls (stall = 10ms, explore's default:
 * CPUs held up), and with an unfair spinlock under full
 * preemption (where a wake-up's preemption takes effect at once), and
 * under explore's strategies (pct, pos, rff, and dfs's first runs; tpct,
 * delay and pair with stalls of up to AIM_STALL_NS); race scenarios, and
 * scenarios/ranges (times that are ranges, a value drawn per seed), get
 * more seeds. A run whose
 * trace shows an effect before its cause fails the test, with the file,
 * variant, strategy, seed and the first violation, so it replays.
 *
 * Usage: causal_sweep DIR [--seeds N] [--race-seeds N] [--kernel NAME]
 * --kernel sweeps one variant (CTest runs one test a variant, side by side).
 * The work is bounded by run counts, never by time.
 */
#include "explore/strategy.h"
#include "scenario/scn.h"
#include "model.h"

#include <sim/causal.h>
#include <sim/sim.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char **files;
static size_t nfiles, capfiles;

static void add_file(const char *path)
{
	if (nfiles == capfiles) {
		capfiles = capfiles ? 2 * capfiles : 64;
		files = realloc(files, capfiles * sizeof(*files));
		if (!files)
			abort();
	}
	files[nfiles] = strdup(path);
	if (!files[nfiles++])
		abort();
}

static void walk(const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		fprintf(stderr, "causal_sweep: cannot read %s\n", dir);
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		size_t len = strlen(ents[i]->d_name);

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (!stat(path, &st) && S_ISDIR(st.st_mode))
				walk(path);
			else if (len > 4 && !strcmp(ents[i]->d_name + len - 4, ".kws"))
				add_file(path);
		}
		free(ents[i]);
	}
	free(ents);
}

static size_t runs, bad_runs;

/* CONFIG_DEBUG_LIST reported a corrupted list in this run (sim/list_debug.c's findings) */
static bool list_corrupted(void)
{
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const char *file = sim_finding(i)->site.file;

		if (file && !strcmp(file, "lib/list_debug.c"))
			return true;
	}
	return false;
}
/* the stall bound of the strategies that aim with stalls; 0 while others run */
#define AIM_STALL_NS	10000000ULL
static uint64_t stall_ns;
static FILE *quiet;	/* a random run may stop on a scenario's own error: not ours to print */

/*
 * One run of s, the file at path, parsed once for all of its runs (a run
 * only reads it: its settings go in a copy); returns its violations (0 also
 * for a file that does not load on this variant). With x, run r of that
 * exploration strategy answers.
 */
static size_t check_one(const struct scn *s, const char *path, const struct kw_model *m,
			enum sim_strategy strat, uint64_t seed, uint64_t skew, uint64_t stall,
			bool unfair, struct xs *x, uint64_t r)
{
	struct sim_config cfg = s->cfg;
	struct scn_run run = { .config = &cfg };
	char first[320];
	size_t v = 0;

	cfg.keep_trace = true;
	cfg.strategy = strat;
	cfg.seed = seed;
	cfg.skew_ns = skew;
	cfg.stall_ns = stall;
	if (stall_ns)
		cfg.stall_ns = stall_ns;
	/*
	 * A stall can turn the library's misuse into a livelock: cut it short,
	 * cheaply (the library's faithful runs take a few thousand points; 200,000
	 * keeps the sweep inside its timeout under ASan).
	 */
	if (cfg.stall_ns && (!cfg.max_steps || cfg.max_steps > 200000))
		cfg.max_steps = 200000;
	if (unfair) {
		cfg.spinlock = SIM_SPINLOCK_UNFAIR;
		cfg.preempt = SIM_PREEMPT_FULL;
	}
	if (x && !xs_begin(x, r, &cfg))
		goto out;	/* dfs: the bounded space is searched */
	if (scn_run(s, m, &run, quiet) == 0) {
		char name[96];

		if (x)
			xs_end(x, r, run.log, run.nlog);
		/*
		 * A run cut short at max_steps is a livelock, and the library's one
		 * (delayed-timer-vs-reinit under a stall: a work reinitialised while
		 * queued, which its worker then runs forever with no queueing) breaks
		 * the work list, not time: not the checker's to judge. Nor is a run
		 * where CONFIG_DEBUG_LIST reports that list broken: on 6.x the same
		 * work runs again and again with no queueing (unlinking a node that
		 * points at itself passes the checks) until the next add BUG()s
		 * (kthread_init_delayed_work.kws, pair seed 1 run 8).
		 */
		if (run.end != SIM_END_STEP_LIMIT && !list_corrupted())
			v = sim_causal_check(sim_trace_records(), sim_trace_count(), first,
					     sizeof(first));
		runs++;
		if (v) {
			bad_runs++;
			if (bad_runs <= 20)
				printf("%s on %s, %s%s%llu, skew %s%s%s: %zu violation%s; first: %s\n",
				       path, m->name,
				       x ? xs_run_name(x, r, name, sizeof(name)) :
				       strat == SIM_STRATEGY_RANDOM ? "random" : "faithful",
				       x ? " seed 1 run " : strat == SIM_STRATEGY_RANDOM ? " seed " : "",
				       x ? (unsigned long long)r :
				       strat == SIM_STRATEGY_RANDOM ? (unsigned long long)seed : 0ULL,
				       skew == SIM_SKEW_UNBOUNDED ? "unbounded" : "default",
				       stall ? ", stall 10ms" : "", unfair ? ", spinlock unfair, preempt full" : "", v, v == 1 ? "" : "s", first);
		}
	}
out:
	sim_fini();
	scn_run_free(&run);
	return v;
}

/*
 * Explore's strategies on one file and variant, every one in the registry
 * (strategy.h) but random (the machine's own, which main sweeps) and the
 * portfolio (its members are): runs 0 .. n-1 of each (dfs and delay until
 * their bounded space is searched or n runs), calibrated as explore is.
 * Depth 3; a bound of 2 preemptions, of 1 for a strategy that aims with
 * stalls (delay: each delay multiplies the space by the stall questions).
 * The calibrations see the stall of the strategies before them, as on a
 * parse of their own; s's settings are as they were when it returns.
 */
static size_t check_strategies(struct scn *s, const char *path, const struct kw_model *m, long n)
{
	struct sim_config saved = s->cfg;
	struct scn_run run = { 0 };
	size_t total = 0;

	for (unsigned int k = 0; k < XS__COUNT; k++) {
		bool aims = xs_ops_of((enum xs_kind)k)->aims;
		struct xs_params p = { .kind = (enum xs_kind)k, .seed = 1, .depth = 3,
				       .preemptions = aims ? 1 : 2 };
		struct xs *x;

		if (k == XS_RANDOM || k == XS_PORTFOLIO)
			continue;
		stall_ns = aims ? AIM_STALL_NS : 0;
		if (stall_ns)
			s->cfg.stall_ns = stall_ns;
		if (xs_calibrate(&p, s, m, &run, quiet))
			break;	/* the file's faithful run fails on this variant: nothing to explore */
		x = xs_new(&p);
		if (!x)
			abort();
		for (long r = 0; r < n && !xs_exhausted(x); r++)
			total += check_one(s, path, m, SIM_STRATEGY_FAITHFUL, 1, SIM_SKEW_DEFAULT_NS,
					   0, false, x, (uint64_t)r);
		xs_free(x);
	}
	stall_ns = 0;
	sim_fini();
	scn_run_free(&run);
	s->cfg = saved;
	return total;
}

static long arg_num(const char *opt, const char *v)
{
	char *end;
	long n = v ? strtol(v, &end, 10) : -1;

	if (!v || *end || n < 0) {
		fprintf(stderr, "causal_sweep: %s wants a number\n", opt);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	long seeds = 20, race_seeds = 1000;
	const char *kernel = NULL;
	const struct kw_model *models[16];
	size_t nmodels = 0, total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: causal_sweep DIR [--seeds N] [--race-seeds N] "
			"[--kernel NAME]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds"))
			seeds = arg_num(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--race-seeds"))
			race_seeds = arg_num(argv[i], argv[i + 1]), i++;
		else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
			kernel = argv[++i];
		else
			return fprintf(stderr, "causal_sweep: unknown option %s\n", argv[i]), 2;
	}
	quiet = fopen("/dev/null", "w");
	if (!quiet)
		abort();
	walk(argv[1]);
	if (kernel) {
		models[nmodels] = kw_model_find(kernel);
		if (!models[nmodels++])
			return fprintf(stderr, "causal_sweep: no variant %s\n", kernel), 2;
	} else {
		for (size_t i = 0; i < kw_model_count() && nmodels < 16; i++)
			models[nmodels++] = kw_model_get(i);
		for (size_t i = 0; i < kw_tree_count() && nmodels < 16; i++)
			models[nmodels++] = kw_tree_get(i);
	}
	for (size_t f = 0; f < nfiles; f++) {
		/* races, and the runs with ranges (each seed draws their values), get more */
		long n = strstr(files[f], "/races/") || strstr(files[f], "/ranges/") ? race_seeds : seeds;
		struct scn *s = scn_load(files[f], stderr);

		if (!s)
			exit(2);
		for (size_t k = 0; k < nmodels; k++) {
			const struct kw_model *m = models[k];

			total += check_one(s, files[f], m, SIM_STRATEGY_FAITHFUL, 1,
					   SIM_SKEW_DEFAULT_NS, 0, false, NULL, 0);
			total += check_strategies(s, files[f], m, n / 5 + 5);
			for (long seed = 1; seed <= n; seed++) {
				total += check_one(s, files[f], m, SIM_STRATEGY_RANDOM, (uint64_t)seed,
						   SIM_SKEW_DEFAULT_NS, 0, false, NULL, 0);
				/* a stalled vCPU reorders more, but hand-overs still carry time */
				if (seed <= n / 4 + 1) {
					total += check_one(s, files[f], m, SIM_STRATEGY_RANDOM,
							   (uint64_t)seed, SIM_SKEW_UNBOUNDED, 0, false,
							   NULL, 0);
					total += check_one(s, files[f], m, SIM_STRATEGY_RANDOM,
							   (uint64_t)seed, SIM_SKEW_DEFAULT_NS, 0, true,
							   NULL, 0);
				}
				/* a CPU held up only delays: every hand-over still carries its time */
				if (seed <= n / 4 + 1)
					total += check_one(s, files[f], m, SIM_STRATEGY_RANDOM,
							   (uint64_t)seed, SIM_SKEW_DEFAULT_NS,
							   SCN_STALL_DEFAULT_NS, false, NULL, 0);
			}
		}
		scn_free(s);
		free(files[f]);
	}
	free(files);
	fclose(quiet);
	printf("%zu files, %zu variants, %zu runs: %zu with causality violations (%zu in all)\n",
	       nfiles, nmodels, runs, bad_runs, total);
	return bad_runs ? 1 : 0;
}
