/*
 * tpct: PCT in a timed machine. pct (pct.c) orders the CPUs by priority at
 * each CPU question, but a CPU question only offers the CPUs within the
 * skew window of the earliest clock: a CPU that pct lowers still runs as
 * soon as the others are 20 us ahead of it, so a change point reorders
 * steps a few microseconds apart, never a window milliseconds wide. tpct
 * makes each change point a stall: the lowered CPU is held up (a
 * SIM_WHY_STALL answer) until the others have passed it.
 *
 * A run: the priorities and the d-1 change points are drawn as pct draws
 * them (the same generator calls: tpct's run r has pct's priorities), and
 * every question but a stall is answered as pct answers it. A stall
 * question (the machine asks one when it has picked a CPU that could be
 * interrupted there, q->cpu) is answered:
 *  - at a change point (its step reached, the question's index at or past
 *    it): q->cpu gets the change point's priority and is held up until
 *    every other ready CPU has passed it (the longest of the durations that
 *    wait for another CPU; with no other CPU ready, until the next pending
 *    event: a timer, an interrupt, a program's start);
 *  - for a CPU that a change point lowered at a CPU question (pct's rule:
 *    the CPU that would have run) and that has not been held up since: at
 *    its next stall question, the same hold;
 *  - else 0, not held: without change points a run is pct's.
 *
 * The guarantee is pct's with stalls as its preemptions: a bug of depth d
 * is one that shows whenever d ordering constraints hold, the first between
 * two CPUs (which runs first, >= 1/k) and each of the others "CPU c is held
 * at its step s until the others have passed it" (>= 1/n each, n the
 * calibration's most decisions, stall questions included), so each run
 * shows it with probability at least 1/(k n^(d-1)) (xs_pct_bound()), as
 * far as the stall bound (cfg.stall_ns) lets the others pass: a hold the
 * bound cuts short is still made, as long as the bound allows.
 */
#include "strategy_impl.h"

static unsigned int hold(struct xs_pct *t, const struct sim_question *q)
{
	if (q->cpu >= 0 && q->cpu < SIM_MAX_CPUS)
		t->hold &= ~((uint64_t)1 << q->cpu);
	return xs_stall_past_all(q);
}

static unsigned int choose_tpct(void *ctx, const struct sim_question *q)
{
	struct xs *x = ctx;
	struct xs_pct *t = &x->run.pct;
	bool change = false;
	unsigned int a;

	if (q->why != SIM_WHY_STALL) {
		a = xs_pct_choose(x, q);
		t->hold |= t->lowered;
		t->lowered = 0;
		return a;
	}
	while (t->next < t->nchange && t->change[t->next].step <= q->index) {
		if (q->cpu >= 0 && q->cpu < SIM_MAX_CPUS)
			t->prio[q->cpu] = t->change[t->next].prio;
		change = true;
		t->next++;
	}
	if (change || (q->cpu >= 0 && q->cpu < SIM_MAX_CPUS && (t->hold >> q->cpu & 1)))
		return hold(t, q);
	return 0;
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	(void)r;
	xs_pct_begin(x, m->depth, cfg);
	cfg->chooser = choose_tpct;
	return true;
}

const struct xs_ops xs_tpct_ops = {
	.name = "tpct",
	.params = XS_DEPTH,
	.named = XS_DEPTH,
	.guarantee = "Timed PCT",
	.independent = true,
	.aims = true,
	.begin = begin,
};
