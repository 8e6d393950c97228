/*
 * The strategies' common part, the random strategy and the portfolio; pct
 * and pos are in pct.c and pos.c. Each run draws from a generator seeded by
 * (campaign seed, run number) alone: run r is the same run whichever runs
 * came before it or in which shard it falls.
 *
 * The portfolio (the default) is a fixed rotation: run r is made by member
 * r mod 8 of
 *
 *   random  pct(d=1)  pos  tpct(d=3)  random  pos  random  tpct(d=3)
 *
 * with the generator of run r, so it is exactly run r of that member's own
 * campaign with the same seed (a replay token may name either). Runs being
 * independent, a rotation's chance to show a bug in a run is the mean of
 * its members' chances, which is how it was chosen, from each member's
 * measured chance per run on the library's races and on their off-window
 * copies (tools/off-window: starts moved 1-10 ms from the windows; kwsim
 * bench, docs/explore.md "Strategies that aim"). random is best on most of them, in
 * the window and off it: its runs hold CPUs up at a rate of their own
 * (sim_stall_odds()), a random walk of time; pos next in the window (best
 * on one race), little off it (measured when it held no CPU up); pct(d=1) shows what
 * one fixed order of the CPUs shows (kernel/wake-preempt-queue-twice: every
 * run; ahead.kws below). tpct(d=3) is pct(d=3) where stalls are off (the
 * runs that carry pct's guarantee: mod-delayed-work-vs-cancel-v4.9 needs
 * two preemptions at given steps) and, with stalls, needs the fewest runs
 * of all on the off-window copies (median 2, random 4; delay and pair
 * learn across runs and cannot be members). It takes the slots of pct(d=2),
 * which showed nothing that random or pct(d=3) did not, and of pct(d=3).
 * What the minority members are there for, on races made for them
 * (tests/tools/strategy/): a CPU held back for 20 rounds (ahead.kws) shows
 * in half of pct(d=1)'s runs, 5% of pos's and none of 2,000 random ones;
 * an interrupt that waits two dozen steps (late-irq.kws) in 1 of ~500 of
 * pos's runs and none of 20,000 random or pct ones; a write that must be
 * held up 5 ms (off-window.kws) in tpct's and random's runs, never in
 * pos's or pct's. The portfolio shows all three.
 */
#include "strategy_impl.h"
#include "dfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scenario/scn.h>

static const char *const kind_names[XS__COUNT] = {
	[XS_RANDOM] = "random", [XS_PCT] = "pct", [XS_POS] = "pos", [XS_DFS] = "dfs",
	[XS_PORTFOLIO] = "portfolio", [XS_RFF] = "rff", [XS_TPCT] = "tpct", [XS_DELAY] = "delay",
	[XS_PAIR] = "pair",
};

bool xs_kind_from_name(const char *name, enum xs_kind *kind)
{
	for (int i = 0; i < XS__COUNT; i++) {
		if (!strcmp(kind_names[i], name)) {
			*kind = (enum xs_kind)i;
			return true;
		}
	}
	return false;
}

const char *xs_kind_name(enum xs_kind kind)
{
	return kind < XS__COUNT ? kind_names[kind] : "?";
}

static void seed_run(struct xs *x, uint64_t r)
{
	rng_seed(&x->rng, x->p.seed ^ rng_splitmix64(&(uint64_t){ r + 0x6b7773696dULL }));
	/* apart from the generator: with stalls off, the runs are what they were */
	x->stall_odds = sim_stall_odds(rng_splitmix64(&(uint64_t){ x->p.seed ^ r ^ 0x7374616c6cULL }));
}

/* Uniform over the candidates; a stall as the machine's own random strategy holds one up. */
unsigned int xs_random_choose(struct xs *x, const struct sim_question *q)
{
	if (q->why == SIM_WHY_STALL)
		return sim_stall_random(q, rng_next(&x->rng), x->stall_odds);
	return rng_below(&x->rng, q->n);
}

static unsigned int choose_random(void *ctx, const struct sim_question *q)
{
	return xs_random_choose(ctx, q);
}

/* A strategy with its parameters: what the portfolio rotates through. */
struct member {
	enum xs_kind kind;
	unsigned int depth;	/* pct */
};

static const struct member portfolio[] = {
	{ XS_RANDOM, 0 }, { XS_PCT, 1 }, { XS_POS, 0 }, { XS_TPCT, 3 },
	{ XS_RANDOM, 0 }, { XS_POS, 0 }, { XS_RANDOM, 0 }, { XS_TPCT, 3 },
};
#define NPORTFOLIO (sizeof(portfolio) / sizeof(portfolio[0]))

/* Who makes run r. */
static struct member member_of(const struct xs *x, uint64_t r)
{
	if (x->p.kind == XS_PORTFOLIO)
		return portfolio[r % NPORTFOLIO];
	return (struct member){ x->p.kind, x->p.depth };
}

struct xs *xs_new(const struct xs_params *p)
{
	struct xs *x;

	switch (p->kind) {
	case XS_PCT:
	case XS_TPCT:
		if (p->depth < 1 || p->depth > XS_MAX_DEPTH)
			return NULL;
		break;
	case XS_RANDOM:
	case XS_POS:
	case XS_PORTFOLIO:
	case XS_DFS:
	case XS_RFF:
	case XS_DELAY:
	case XS_PAIR:
		break;
	default:
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		abort();
	x->p = *p;
	if (p->kind == XS_DFS)
		x->dfs = dfs_new(p->preemptions, true);
	if (p->kind == XS_DELAY) {
		x->dfs = dfs_new_delays(p->preemptions);
		dfs_shard(x->dfs, p->shard, p->nshards);
	}
	if (p->kind == XS_RFF)
		x->rff = xs_rff_new();
	if (p->kind == XS_PAIR)
		x->pair = xs_pair_new();
	return x;
}

void xs_free(struct xs *x)
{
	if (x) {
		dfs_free(x->dfs);
		xs_rff_free(x->rff);
		xs_pair_free(x->pair);
	}
	free(x);
}

/*
 * A run of a campaign may loop where the faithful run ends: a stall lets a
 * work be queued before the scenario reinitialises it, and the worker runs
 * it forever, as the kernel would. The scenario's own bound (max_steps,
 * 100M points by default) would make that a quarter of a minute per run,
 * so a campaign's runs (and its calibration's random ones) stop at
 * XS_STEP_FACTOR times the faithful run's points, at least XS_MIN_STEPS,
 * and count as cut short. The bound is in the run's settings: its saved
 * schedule and its token replay it.
 */
#define XS_STEP_FACTOR	100
#define XS_MIN_STEPS	100000

static void bound_steps(uint64_t faithful_points, struct sim_config *cfg)
{
	uint64_t b = faithful_points > XS_MIN_STEPS / XS_STEP_FACTOR ?
		     faithful_points * XS_STEP_FACTOR : XS_MIN_STEPS;

	if (!cfg->max_steps || cfg->max_steps > b)
		cfg->max_steps = b;
}

bool xs_begin(struct xs *x, uint64_t r, struct sim_config *cfg)
{
	struct member m;

	if (x->p.est_points)
		bound_steps(x->p.est_points, cfg);
	if (x->dfs)
		return dfs_begin(x->dfs, r, cfg);
	m = member_of(x, r);
	seed_run(x, r);
	switch (m.kind) {
	case XS_RFF:
		xs_rff_begin(x, r, cfg);
		break;
	case XS_PAIR:
		xs_pair_begin(x, r, cfg);
		break;
	case XS_PCT:
		xs_pct_begin(x, m.depth, cfg);
		break;
	case XS_TPCT:
		xs_tpct_begin(x, m.depth, cfg);
		break;
	case XS_POS:
		xs_pos_begin(x, cfg);
		break;
	default:
		cfg->chooser = choose_random;
		cfg->chooser_ctx = x;
		break;
	}
	return true;
}

void xs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	if (x->dfs)
		dfs_end(x->dfs, r, log, n);
	if (x->rff)
		xs_rff_end(x);
	if (x->pair)
		xs_pair_end(x);
}

const char *xs_run_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	struct member m;
	const char *outer = x->p.kind == XS_PORTFOLIO ? "portfolio:" : "";

	if (x->dfs && x->p.nshards > 1) {
		snprintf(buf, len, "%s(k=%u,s=%u/%u)", xs_kind_name(x->p.kind), dfs_bound(x->dfs),
			 x->p.shard, x->p.nshards);
		return buf;
	}
	if (x->dfs) {
		snprintf(buf, len, "%s(k=%u)", xs_kind_name(x->p.kind), dfs_bound(x->dfs));
		return buf;
	}
	m = member_of(x, r);
	if (m.kind == XS_PCT || m.kind == XS_TPCT)
		snprintf(buf, len, "%s%s(d=%u)", outer, xs_kind_name(m.kind), m.depth);
	else
		snprintf(buf, len, "%s%s", outer, xs_kind_name(m.kind));
	return buf;
}

bool xs_exhausted(const struct xs *x)
{
	return x->dfs && dfs_exhausted(x->dfs);
}

bool xs_independent(enum xs_kind kind)
{
	return kind != XS_DFS && kind != XS_RFF && kind != XS_DELAY && kind != XS_PAIR;
}

/* Candidate i's wait, for a SIM_WHY_STALL question: a CPU number, or SIM_STALL_EVENT / _FIXED. */
static int until_of(const struct sim_question *q, unsigned int i)
{
	return q->until ? q->until[i] : SIM_STALL_FIXED;
}

unsigned int xs_stall_until(const struct sim_question *q, int cpu)
{
	if (q->why != SIM_WHY_STALL)
		return 0;
	for (unsigned int i = 1; i < q->n; i++)
		if (until_of(q, i) == cpu && cpu != q->cpu)
			return i;
	return 0;
}

unsigned int xs_stall_past_all(const struct sim_question *q)
{
	unsigned int best = 0, event = 0;

	if (q->why != SIM_WHY_STALL)
		return 0;
	/* the candidates ascend in duration: the last that waits for a CPU waits for them all */
	for (unsigned int i = 1; i < q->n; i++) {
		if (until_of(q, i) >= 0 && until_of(q, i) != q->cpu)
			best = i;
		else if (until_of(q, i) == SIM_STALL_EVENT && !event)
			event = i;
	}
	return best ? best : event;
}

unsigned int xs_stall_event(const struct sim_question *q)
{
	if (q->why != SIM_WHY_STALL)
		return 0;
	for (unsigned int i = 1; i < q->n; i++)
		if (until_of(q, i) == SIM_STALL_EVENT)
			return i;
	return 0;
}

unsigned int xs_stall_yield(const struct sim_question *q, uint64_t skew,
			    bool (*outranks)(struct xs *x, int cpu, uint64_t mine),
			    struct xs *x, uint64_t mine)
{
	unsigned int best = 0;

	if (q->why != SIM_WHY_STALL || !q->durations || skew == SIM_SKEW_UNBOUNDED)
		return 0;
	/* the candidates ascend in duration: the last that fits waits for all that outrank */
	for (unsigned int i = 1; i < q->n; i++) {
		int k = until_of(q, i);

		if (k >= 0 && k != q->cpu && k < SIM_MAX_CPUS && q->durations[i] > skew &&
		    outranks(x, k, mine))
			best = i;
	}
	return best;
}

/*
 * pct's n must bound the steps of its runs (pct.c). A faithful run can be
 * far shorter in decisions than the runs that reorder it (a CPU that runs
 * ahead meets the other at every step where the faithful order kept them
 * apart), so the estimate is the most decisions of the faithful run and of
 * XS_CALIBRATION_RUNS random runs with fixed seeds: a function of the
 * scenario and kernel alone, the same in every shard of a campaign. Only
 * the faithful run must work: a random one that stops on an error of the
 * scenario's (a statement the order made impossible) counts the decisions
 * it made, and the campaign will meet that error in its own runs.
 */
#define XS_CALIBRATION_RUNS 16

int xs_calibrate(struct xs_params *p, const struct scn *s, const struct kw_model *m,
		 struct scn_run *run, FILE *err)
{
	struct sim_config cfg = s->cfg;
	FILE *quiet = fopen("/dev/null", "w");
	size_t most = 0;

	cfg.chooser = NULL;
	cfg.on_point = NULL;
	run->config = &cfg;
	for (unsigned int i = 0; i <= XS_CALIBRATION_RUNS; i++) {
		cfg.strategy = i ? SIM_STRATEGY_RANDOM : SIM_STRATEGY_FAITHFUL;
		cfg.seed = i;
		if (scn_run(s, m, run, i && quiet ? quiet : err) && !i) {
			if (quiet)
				fclose(quiet);
			run->config = NULL;
			return -1;
		}
		if (run->ndecisions > most)
			most = run->ndecisions;
		if (!i) {
			struct sim_stats st;

			sim_get_stats(&st);
			p->est_points = st.points;
			bound_steps(p->est_points, &cfg);
		}
	}
	if (quiet)
		fclose(quiet);
	run->config = NULL;
	p->est_steps = most;
	p->est_contexts = (unsigned int)cfg.ncpus;
	return 0;
}
