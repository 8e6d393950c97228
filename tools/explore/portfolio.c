/*
 * portfolio: the default strategy, a mix of others.
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

#include <stdio.h>
#include <string.h>

static const struct xs_params members[] = {
	{ .kind = XS_RANDOM }, { .kind = XS_PCT, .depth = 1 }, { .kind = XS_POS },
	{ .kind = XS_TPCT, .depth = 3 }, { .kind = XS_RANDOM }, { .kind = XS_POS },
	{ .kind = XS_RANDOM }, { .kind = XS_TPCT, .depth = 3 },
};
#define NMEMBERS (sizeof(members) / sizeof(members[0]))

/* Who makes run r: the member's parameters, the campaign's seed and estimates. */
static struct xs_params member_of(const struct xs *x, uint64_t r)
{
	struct xs_params m = x->p;

	m.kind = members[r % NMEMBERS].kind;
	m.depth = members[r % NMEMBERS].depth;
	return m;
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *p, struct sim_config *cfg)
{
	struct xs_params m = member_of(x, r);

	(void)p;
	return xs_ops_of(m.kind)->begin(x, r, &m, cfg);
}

/* "portfolio:pct(d=1)" */
static void run_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	struct xs_params m = member_of(x, r);
	char name[64];

	snprintf(buf, len, "portfolio:%s", xs_params_name(&m, name, sizeof(name)));
}

/* "portfolio(d=3,k=2)/pct(d=1)": the member after the portfolio's own parameters */
static void token_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	struct xs_params m = member_of(x, r);
	char name[64];

	snprintf(buf, len, "portfolio(d=%u,k=%u)/%s", x->p.depth, x->p.preemptions,
		 xs_params_name(&m, name, sizeof(name)));
}

const struct xs_ops xs_portfolio_ops = {
	.name = "portfolio",
	.params = XS_DEPTH | XS_BOUND,
	.bound = "preemptions",
	.independent = true,
	.begin = begin,
	.run_name = run_name,
	.token_name = token_name,
};
