/*
 * delay: delay-bounded search (Emmi, Qadeer, Rakamaric, "Delay-bounded
 * scheduling", POPL 2011) over dfs.c's tree: every schedule of the faithful
 * scheduler with at most k delays, a delay a stall until another CPU or the
 * next event (dfs.c says how, dfs_new_delays()). It learns across runs, as
 * dfs does, but splits into shards by itself: shard i of N takes the
 * schedules whose first delay falls on a decision i modulo N
 * (dfs_shard()), each shard's runs numbered within it.
 */
#include "dfs.h"
#include "strategy_impl.h"

static bool init(struct xs *x)
{
	x->state = dfs_new_delays(x->p.preemptions);
	dfs_shard(x->state, x->p.shard, x->p.nshards);
	return true;
}

const struct xs_ops xs_delay_ops = {
	.name = "delay",
	.params = XS_BOUND,
	.named = XS_BOUND,
	.bound = "delays",
	.splits = true,
	.aims = true,
	.init = init,
	.fini = xs_dfs_fini,
	.begin = xs_dfs_begin,
	.end = xs_dfs_end,
	.exhausted = xs_dfs_exhausted,
};
