/*
 * random: uniform at every decision, from the run's generator; a stall
 * question as the machine's own random strategy answers it (sim/stall.c),
 * at the rate each run draws (sim_stall_odds(), strategy.c's seed_run()).
 */
#include "strategy_impl.h"

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

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	(void)r;
	(void)m;
	cfg->chooser = choose_random;
	cfg->chooser_ctx = x;
	return true;
}

const struct xs_ops xs_random_ops = {
	.name = "random",
	.independent = true,
	.begin = begin,
};
