/*
 * kwsim bench's exploration figures: the race library (scenarios/races of
 * the source tree, each file on its own kernel, mainline unless it names
 * one) under each strategy, on one core, in process, the machine reset
 * between runs, as `kwsim explore` runs them:
 *  - schedules/s per strategy and race, and the median over the races;
 *  - decisions/s while exploring the library with random, the realistic
 *    figure beside the micro one (a spinlock ping-pong);
 *  - runs and CPU time to the first finding (the first run whose outcome
 *    is the one the race's `exists` asks about), per strategy and race, the
 *    median over campaigns with seeds 1 .. 20, each bounded by 10,000 runs,
 *    and how many of them found it. A race whose condition is forall must
 *    hold in every run: it has nothing to find and is only timed;
 *  - per strategy over the directory: the median over its races of those
 *    medians (a race no campaign found counts as not found, above every
 *    number), and how many races each found in at least 19 of 20 campaigns
 *    and in any.
 * Times are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID): the machine
 * is shared, and wall time would measure the neighbours. --bound, --seeds
 * and --strategy make the campaigns fewer or shorter, to keep a
 * measurement of a large directory within minutes.
 * With `kwsim bench --races DIR`, the same figures over DIR's files instead:
 * a file with no condition and a schedule section (what kwsim fuzz --out
 * and kwsim explore --out write) is found by a run that shows the finding
 * its own schedule shows (the same kind, kernel function:line and context).
 * rff learns across runs: its campaigns run 0, 1, 2, ... in order, as the
 * others' do here, so its figures are those of `kwsim explore --strategy rff`.
 */
#include "lib/util.h"
#include "bench/bench.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore/finding.h"
#include "explore/strategy.h"
#include "scenario/scn.h"

#include <model.h>

/* the "smallest race scenarios (~20 decisions)": at most this many a run */
#define SMALL_DECISIONS		20
#define TARGET_SMALLEST_PER_S	100e3
#define TARGET_MEDIAN_PER_S	30e3
#define TARGET_SEEDS_FOUND	19	/* of the full 20, by the default strategy */

struct sizes {
	long runs;		/* per strategy and race, for schedules/s */
	unsigned int seeds;	/* campaigns per strategy and race */
	long bound;		/* runs per campaign */
};

static const struct sizes full_sizes = { .runs = 2000, .seeds = 20, .bound = 10000 };
static const struct sizes quick_sizes = { .runs = 20, .seeds = 1, .bound = 50 };
#define MAX_SEEDS	1000
#define MAX_BOUND	100000000L

/* The strategies measured, the default last. */
static const struct xs_params strategies[] = {
	{ .kind = XS_RANDOM }, { .kind = XS_PCT, .depth = 1 }, { .kind = XS_PCT, .depth = 2 },
	{ .kind = XS_PCT, .depth = 3 }, { .kind = XS_POS }, { .kind = XS_RFF },
	{ .kind = XS_TPCT, .depth = 2 }, { .kind = XS_TPCT, .depth = 3 },
	{ .kind = XS_DELAY, .preemptions = 1 }, { .kind = XS_DELAY, .preemptions = 2 },
	{ .kind = XS_PAIR }, { .kind = XS_PORTFOLIO },
};
#define NSTRATEGIES (sizeof(strategies) / sizeof(strategies[0]))
#define DEFAULT_STRATEGY (NSTRATEGIES - 1)

/* Whether the k-th of the table is measured (bit k of the selection; 0: all). */
static bool chosen(uint64_t only, size_t k)
{
	return !only || (only >> k & 1);
}

struct race {
	char name[128];		/* "one-work-two-workers (mainline)" */
	struct scn *s;
	const struct kw_model *m;
	struct scn_run run;
	struct xs_params est;	/* the calibration's n and k */
	bool to_find;		/* exists, or a finding to find */
	/*
	 * A file with no condition and a schedule (kwsim fuzz's, kwsim
	 * explore --out's): the finding its schedule shows, xf_bug()'s text;
	 * a run finds the race when it shows that finding. Empty: the condition.
	 */
	char target[200];
	double decisions;	/* per run, under random */
	double rate[NSTRATEGIES];
	/* first finding: median runs and seconds (found or not: +inf), seeds that found it */
	double runs_med[NSTRATEGIES], secs_med[NSTRATEGIES];
	unsigned int found[NSTRATEGIES];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_races(struct race *races, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		scn_run_free(&races[i].run);
		scn_free(races[i].s);
	}
	free(races);
}

/*
 * The finding s's own schedule shows first, into r->target: 0, or -1 when
 * its replay shows none.
 */
static int replay_target(struct race *r, const char *path)
{
	struct sim_config cfg = r->s->cfg;
	int rc;

	/* as kwsim replay: the log alone decides, unless the schedule names its strategy */
	if (!r->s->log_strategy)
		cfg.strategy = SIM_STRATEGY_REPLAY;
	r->s->replay = true;
	r->run.config = &cfg;
	rc = scn_run(r->s, r->m, &r->run, stderr);
	r->run.config = NULL;
	r->s->replay = false;
	if (rc || !r->run.nfindings) {
		fprintf(stderr, "kwsim bench: %s: its schedule shows no finding to look for\n", path);
		return -1;
	}
	xf_bug(&r->run.findings[0], r->target, sizeof(r->target));
	return 0;
}

/* Every DIR/ *.kws, in name order, parsed and calibrated. */
static int load_races(const char *dir, bool stall_given, uint64_t stall_ns, struct race **out,
		      size_t *nout)
{
	char path[4096], **names = NULL;
	size_t n = 0, cap = 0;
	struct race *races;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	d = opendir(dir);
	if (!d)
		return 1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".kws"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n] = strdup(e->d_name);
		if (!names[n++])
			abort();
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	races = calloc(n ? n : 1, sizeof(*races));
	if (!races)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct race *r = &races[i];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		r->s = scn_load(path, stderr);
		r->m = r->s ? kw_model_find(r->s->kernel) : NULL;
		if (!r->m) {
			fprintf(stderr, "kwsim bench: cannot load %s\n", path);
			rc = -1;
			break;
		}
		r->s->cfg.keep_trace = false;
		/* the target is what the file's own schedule shows, with its own settings */
		if (r->s->quant == Q_NONE && r->s->has_schedule && replay_target(r, path)) {
			rc = -1;
			break;
		}
		/* explored as kwsim explore explores it; its target was the schedule's, as saved */
		scn_stall_default(r->s);
		if (stall_given)
			r->s->cfg.stall_ns = stall_ns;
		r->s->cfg.drop_decisions = true;
		if (xs_calibrate(&r->est, r->s, r->m, &r->run, stderr)) {
			rc = -1;
			break;
		}
		r->to_find = r->s->quant == Q_EXISTS || r->target[0];
		snprintf(r->name, sizeof(r->name), "%.*s (%s)", (int)(strlen(names[i]) - 4), names[i],
			 r->m->name);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc) {
		free_races(races, n);
		return -1;
	}
	*out = races;
	*nout = n;
	return 0;
}

static struct xs *strategy_for(const struct race *r, size_t k, uint64_t seed)
{
	struct xs_params p = strategies[k];
	struct xs *x;

	p.seed = seed;
	p.est_steps = r->est.est_steps;
	p.est_contexts = r->est.est_contexts;
	p.est_points = r->est.est_points;
	x = xs_new(&p);
	if (!x)
		abort();	/* the table above is ours */
	return x;
}

/*
 * Run r of campaign x; 1 if it shows what the race's condition asks about,
 * -1 on error, -2 when the strategy has no run r (its space is exhausted).
 */
static int one_run(struct race *race, struct xs *x, uint64_t r)
{
	struct sim_config cfg = race->s->cfg;

	if (!xs_begin(x, r, &cfg))
		return -2;
	race->run.config = &cfg;
	if (scn_run(race->s, race->m, &race->run, stderr)) {
		race->run.config = NULL;
		return -1;
	}
	race->run.config = NULL;
	xs_end(x, r, race->run.log, race->run.nlog);
	if (race->target[0]) {
		char key[200];

		for (size_t i = 0; i < race->run.nfindings; i++)
			if (!strcmp(xf_bug(&race->run.findings[i], key, sizeof(key)), race->target))
				return 1;
		return 0;
	}
	return xf_condition_witness(race->s, &race->run);
}

static int schedules(struct race *race, const struct sizes *sz, uint64_t only,
		     uint64_t *decisions, double *random_s)
{
	for (size_t k = 0; k < NSTRATEGIES; k++) {
		struct xs *x;

		if (!chosen(only, k))
			continue;
		x = strategy_for(race, k, 1);
		uint64_t made = 0;
		double t0 = host_seconds(CLOCK_PROCESS_CPUTIME_ID), t;

		long r;

		for (r = 0; r < sz->runs; r++) {
			int rc = one_run(race, x, (uint64_t)r);

			if (rc == -2)
				break;
			if (rc < 0) {
				xs_free(x);
				return -1;
			}
			made += race->run.ndecisions;
		}
		t = host_seconds(CLOCK_PROCESS_CPUTIME_ID) - t0;
		xs_free(x);
		race->rate[k] = r ? (double)r / t : 0;
		if (strategies[k].kind == XS_RANDOM) {
			race->decisions = (double)made / (double)sz->runs;
			*decisions += made;
			*random_s += t;
		}
	}
	return 0;
}

static int first_findings(struct race *race, const struct sizes *sz, uint64_t only)
{
	double *runs = calloc(sz->seeds, sizeof(*runs)), *secs = calloc(sz->seeds, sizeof(*secs));

	if (!runs || !secs)
		abort();
	for (size_t k = 0; k < NSTRATEGIES; k++) {
		race->found[k] = 0;
		if (!chosen(only, k))
			continue;
		for (unsigned int i = 0; i < sz->seeds; i++) {
			struct xs *x = strategy_for(race, k, i + 1);
			double t0 = host_seconds(CLOCK_PROCESS_CPUTIME_ID);
			int seen = 0;
			long r;

			for (r = 0; r < sz->bound && !seen; r++) {
				seen = one_run(race, x, (uint64_t)r);
				if (seen == -2) {	/* exhausted: not found */
					seen = 0;
					break;
				}
				if (seen < 0) {
					xs_free(x);
					free(runs);
					free(secs);
					return -1;
				}
			}
			xs_free(x);
			runs[i] = seen ? (double)r : 1.0 / 0.0;
			secs[i] = seen ? host_seconds(CLOCK_PROCESS_CPUTIME_ID) - t0 : 1.0 / 0.0;
			race->found[k] += seen;
		}
		race->runs_med[k] = median(runs, sz->seeds);
		race->secs_med[k] = median(secs, sz->seeds);
	}
	free(runs);
	free(secs);
	return 0;
}

/* 123456 -> "123k" */
static const char *rate_text(double v, char *buf, size_t len)
{
	if (v >= 1e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.0fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* 0.000012 -> "12us", 0.0153 -> "15.3ms" */
static const char *time_text(double s, char *buf, size_t len)
{
	if (s < 1e-3)
		snprintf(buf, len, "%.0fus", s * 1e6);
	else if (s < 1.0)
		snprintf(buf, len, "%.1fms", s * 1e3);
	else
		snprintf(buf, len, "%.2fs", s);
	return buf;
}

static const char *strategy_name(size_t k, char *buf, size_t len)
{
	return xs_params_name(&strategies[k], buf, len);
}

static void print_header(const char *first, uint64_t only)
{
	char name[32];

	printf("  %-72s", first);
	for (size_t k = 0; k < NSTRATEGIES; k++)
		if (chosen(only, k))
			printf(" %16s", strategy_name(k, name, sizeof(name)));
	printf("\n");
}

int bench_explore_strategy(const char *name)
{
	char buf[32];

	for (size_t k = 0; k < NSTRATEGIES; k++)
		if (!strcmp(strategy_name(k, buf, sizeof(buf)), name))
			return (int)k;
	return -1;
}

const char *bench_explore_strategies(char *buf, size_t len)
{
	size_t at = 0;
	char name[32];

	buf[0] = 0;
	for (size_t k = 0; k < NSTRATEGIES && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "",
				       strategy_name(k, name, sizeof(name)));
	return buf;
}

struct bench_explore {
	const char *dir;
	bool quick;
	struct sizes sz;
	uint64_t only;		/* the strategies measured (chosen()) */
	bool stall_given;	/* --stall: stall_ns for every run */
	uint64_t stall_ns;
	int absent;		/* 1: no DIR, 2: no scenario in it */
	struct race *races;
	size_t n;
	uint64_t decisions;	/* random's, over the library */
	double random_s;
};

struct bench_explore *bench_explore_measure(const char *dir, const struct bench_explore_opts *o)
{
	struct bench_explore *e = calloc(1, sizeof(*e));
	const struct sizes *sz;
	int rc;

	if (!e)
		abort();
	e->dir = dir;
	e->quick = o->quick;
	e->sz = o->quick ? quick_sizes : full_sizes;
	if (o->bound > 0 && o->bound <= MAX_BOUND)
		e->sz.bound = o->bound;
	if (o->seeds > 0 && o->seeds <= MAX_SEEDS)
		e->sz.seeds = o->seeds;
	e->only = o->strategies;
	e->stall_ns = o->stall_ns;
	e->stall_given = o->stall_given;
	sz = &e->sz;
	rc = load_races(dir, o->stall_given, o->stall_ns, &e->races, &e->n);
	if (rc < 0) {
		free(e);
		return NULL;
	}
	if (rc > 0 || !e->n) {
		e->absent = rc > 0 ? 1 : 2;
		return e;
	}
	for (size_t i = 0; i < e->n; i++) {
		if (schedules(&e->races[i], sz, e->only, &e->decisions, &e->random_s) ||
		    (e->races[i].to_find && first_findings(&e->races[i], sz, e->only))) {
			free_races(e->races, e->n);
			free(e);
			return NULL;
		}
	}
	return e;
}

double bench_explore_decisions(const struct bench_explore *e)
{
	return e->random_s > 0 ? (double)e->decisions / e->random_s : 0;
}

/* Schedules per CPU-second, per race and strategy, and their medians; checks the library's targets. */
static void print_rates(const struct bench_explore *e, const char *verdict, bool *missed)
{
	const struct race *races = e->races;
	size_t n = e->n;
	double *v = calloc(n, sizeof(*v));
	char b1[32], b2[32];

	if (!v)
		abort();
	printf("exploration schedules per CPU-second (%s; one core, in process, the machine reset "
	       "between runs; %ld runs per strategy and race, seed 1; stall bound %s):\n", e->dir,
	       e->sz.runs, !e->stall_given ? "the scenario's, else 10ms" : !e->stall_ns ? "0, none" :
	       time_text((double)e->stall_ns * 1e-9, b1, sizeof(b1)));
	print_header("race (kernel)                                                  decisions", e->only);
	for (size_t i = 0; i < n; i++) {
		printf("  %-62s %9.0f", races[i].name, races[i].decisions);
		for (size_t k = 0; k < NSTRATEGIES; k++)
			if (chosen(e->only, k))
				printf(" %16s", rate_text(races[i].rate[k], b1, sizeof(b1)));
		printf("\n");
	}
	printf("  %-72s", "median");
	for (size_t k = 0; k < NSTRATEGIES; k++) {
		if (!chosen(e->only, k))
			continue;
		for (size_t i = 0; i < n; i++)
			v[i] = races[i].rate[k];
		printf(" %16s", rate_text(median(v, n), b1, sizeof(b1)));
	}
	printf("\n");
	/* the targets are the race library's: another directory (missed NULL) has none */
	for (size_t k = 0; missed && k < NSTRATEGIES; k++) {
		size_t slow = 0, small = 0, worst = 0;

		if (!chosen(e->only, k))
			continue;
		strategy_name(k, b1, sizeof(b1));
		for (size_t i = 0; i < n; i++)
			v[i] = races[i].rate[k];
		if (median(v, n) < TARGET_MEDIAN_PER_S) {
			printf("%s: %s's median schedules/s is below its target (30k)\n", verdict, b1);
			*missed = true;
		}
		for (size_t i = 0; i < n; i++) {
			if (races[i].decisions > SMALL_DECISIONS)
				continue;
			small++;
			if (races[i].rate[k] < TARGET_SMALLEST_PER_S) {
				if (!slow++ || races[i].rate[k] < races[worst].rate[k])
					worst = i;
			}
		}
		if (slow) {
			printf("%s: %s's schedules/s is below its target (100k) on %zu of the %zu races "
			       "of at most %d decisions; the least: %s on %s\n", verdict, b1, slow, small,
			       SMALL_DECISIONS, rate_text(races[worst].rate[k], b2, sizeof(b2)),
			       races[worst].name);
			*missed = true;
		}
	}
	free(v);
}

/* One cell of the first-finding table: "12 1.3ms 20/20", or "- 3/20" past half the campaigns. */
static const char *find_cell(double runs, double secs, unsigned int found, const struct sizes *sz,
			     char *buf, size_t len)
{
	char t[32];

	if (runs > (double)sz->bound)
		snprintf(buf, len, "- %u/%u", found, sz->seeds);
	else
		snprintf(buf, len, "%.0f %s %u/%u", runs, time_text(secs, t, sizeof(t)), found,
			 sz->seeds);
	return buf;
}

/*
 * The first findings per race, then per strategy over the directory: the
 * median over the races of their median runs and CPU time (a race not found
 * by half its campaigns counts above every number), the races found in at
 * least 19 of 20 campaigns (TARGET_SEEDS_FOUND of its share) and in any.
 */
static void print_finds(const struct bench_explore *e)
{
	const struct race *races = e->races;
	const struct sizes *sz = &e->sz;
	size_t n = e->n, m = 0;
	double *vr = calloc(n, sizeof(*vr)), *vs = calloc(n, sizeof(*vs));
	unsigned int well = (TARGET_SEEDS_FOUND * sz->seeds + 19) / 20;
	char cell[64];

	if (!vr || !vs)
		abort();
	printf("runs to the first finding (%u campaign%s per strategy and race, seeds 1 to %u, "
	       "each at most %ld runs; a cell: median runs, median CPU time, campaigns that "
	       "found it):\n", sz->seeds, sz->seeds == 1 ? "" : "s", sz->seeds, sz->bound);
	print_header("race (kernel)", e->only);
	for (size_t i = 0; i < n; i++) {
		if (!races[i].to_find)
			continue;
		m++;
		printf("  %-72s", races[i].name);
		for (size_t k = 0; k < NSTRATEGIES; k++)
			if (chosen(e->only, k))
				printf(" %16s", find_cell(races[i].runs_med[k], races[i].secs_med[k],
							  races[i].found[k], sz, cell, sizeof(cell)));
		printf("\n");
	}
	if (!m) {
		free(vr);
		free(vs);
		return;
	}
	printf("over the %zu races to find (median of the medians; races found in >= %u of %u "
	       "campaigns, in any):\n", m, well, sz->seeds);
	print_header("strategy", e->only);
	printf("  %-72s", "median runs, CPU time");
	for (size_t k = 0; k < NSTRATEGIES; k++) {
		size_t j = 0;

		if (!chosen(e->only, k))
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!races[i].to_find)
				continue;
			vr[j] = races[i].runs_med[k];
			vs[j++] = races[i].secs_med[k];
		}
		find_cell(median(vr, j), median(vs, j), 0, sz, cell, sizeof(cell));
		/* the campaigns' count means nothing here: cut it */
		*strrchr(cell, ' ') = 0;
		printf(" %16s", cell);
	}
	printf("\n  %-72s", "races found well, at all");
	for (size_t k = 0; k < NSTRATEGIES; k++) {
		unsigned int good = 0, any = 0;

		if (!chosen(e->only, k))
			continue;
		for (size_t i = 0; i < n; i++) {
			good += races[i].to_find && races[i].found[k] >= well;
			any += races[i].to_find && races[i].found[k] > 0;
		}
		snprintf(cell, sizeof(cell), "%u, %u of %zu", good, any, m);
		printf(" %16s", cell);
	}
	printf("\n");
	free(vr);
	free(vs);
}

void bench_explore_print(struct bench_explore *e, bool enforce, bool *missed)
{
	const char *verdict = enforce ? "FAIL" : "note";
	char b1[32], b2[32];

	if (e->absent) {
		printf("exploration: not measured, %s %s\n", e->dir,
		       e->absent == 1 ? "cannot be read" : "holds no scenario");
		if (e->races)
			free_races(e->races, e->n);
		free(e);
		return;
	}
	print_rates(e, verdict, missed);
	if (chosen(e->only, 0))
		printf("exploration decisions/s: %s (random over the race library: %s decisions in "
		       "%ld runs; the micro figure is scheduling decisions/s)\n",
		       rate_text(bench_explore_decisions(e), b1, sizeof(b1)),
		       rate_text((double)e->decisions, b2, sizeof(b2)), e->sz.runs * (long)e->n);
	print_finds(e);
	/* the default strategy's target, with the full 20 campaigns only */
	for (size_t i = 0; missed && i < e->n && !e->quick && chosen(e->only, DEFAULT_STRATEGY); i++) {
		const struct race *r = &e->races[i];

		if (r->to_find && r->found[DEFAULT_STRATEGY] < TARGET_SEEDS_FOUND) {
			printf("%s: the default strategy found %s in %u of %u campaigns (target %u)\n",
			       verdict, r->name, r->found[DEFAULT_STRATEGY], e->sz.seeds,
			       TARGET_SEEDS_FOUND);
			*missed = true;
		}
	}
	free_races(e->races, e->n);
	free(e);
}
