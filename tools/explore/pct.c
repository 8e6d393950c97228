/*
 * pct: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
 * Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees of
 * Finding Bugs", ASPLOS 2010), with bug depth d.
 *
 * PCT's threads are the machine's CPUs, and k is how many the machine has
 * (cfg.ncpus; a campaign's xs_calibrate() puts the same in est_contexts):
 * the machine only ever chooses which CPU advances, and which context runs
 * on a CPU is the kernel's scheduler's business, made explorable by the
 * questions below. PCT's steps are the machine's decisions, numbered by
 * their place in the run's log (sim_question.index): between two of them a
 * CPU runs because it is the only candidate, so no order is at stake
 * there. n is est_steps: the most decisions of xs_calibrate()'s runs (the
 * faithful one and 16 random ones).
 *
 * A run, as the paper's algorithm:
 *  - the k CPUs get the priorities d .. d+k-1 in a random order;
 *  - d-1 change points are drawn uniformly from the steps 0 .. n-1; the i-th
 *    drawn (i = 1 .. d-1) carries the priority d-i, below every initial one;
 *  - which CPU advances (SIM_WHY_CPU), and which spinner's CPU takes an
 *    unfair spinlock (SIM_WHY_SPIN): the candidate of highest priority. A
 *    CPU that the skew window leaves out is not a candidate, as a thread
 *    that is not enabled: the machine's time rules hold whatever pct says;
 *  - at a change point that falls on such a question the CPU that would
 *    run gets the change point's priority, and the highest again answers:
 *    the paper's rule, a preemption of that CPU right there.
 * What else PCT orders here, each at the cost of one change point as a
 * preemption is: the three questions about one CPU take the kernel's usual
 * answer (0), and at a change point the other one:
 *  - SIM_WHY_IRQ: the pending interrupt waits one more step of the task
 *    (delivered late, after something the task does);
 *  - SIM_WHY_WAKE: the woken task preempts the running one when the kernel
 *    would not, or not when it would;
 *  - SIM_WHY_PLACE: the woken task goes to the highest-priority CPU other
 *    than the one select_task_rq() prefers.
 * A run's priorities only change at its change points.
 * A value of a time range (SIM_WHY_RANGE) is no order: it is drawn
 * uniformly, as the random strategy draws it, and a change point that falls
 * on it is spent there.
 *  - SIM_WHY_STALL (a CPU held up, where stalls are on): the paper's
 *    scheduler runs the highest-priority enabled thread, but a CPU question
 *    only offers the CPUs within the skew window of the earliest clock, so
 *    a CPU that is ready but further ahead in time is no candidate, however
 *    high its priority. At a stall question the machine offers it: the
 *    CPU about to go on (q->cpu) is held up until every ready CPU beyond
 *    the window whose priority is higher than its own has passed it
 *    (xs_stall_yield()), and is not held when none is. So priorities order
 *    the CPUs across the window as within it, as far as the stall bound
 *    lets a hold reach. A pending event (a timer, a program's start) is no
 *    thread of PCT's: pct does not hold a CPU up for one (tpct.c does, at
 *    its change points). A change point that falls on a stall question
 *    waits for the next question of another kind, so stalls take no
 *    change point; they do count among the n steps (their places in the
 *    log), which makes the bound below weaker by that much, never wrong.
 *    PCT's change points as stalls ("PCT in a timed machine") are tpct's.
 *
 * The guarantee, the paper's theorem with these definitions: a bug of depth
 * d is one that shows whenever d ordering constraints hold, the first
 * between two CPUs (one runs a step before the other's) and each of the
 * others a preemption, a late interrupt, a wake-up preemption or a
 * placement at a given step. The first holds when the right CPU has the
 * highest initial priority of those involved (probability >= 1/k), each of
 * the others when its change point is drawn at its step (>= 1/n each, the
 * draws independent), so each run shows it with probability at least
 * p = 1/(k n^(d-1)) (with stalls, across the skew window too, for CPUs
 * whose clocks the bound lets a hold cover), and a campaign of R runs that shows no such bug rules
 * it out with confidence 1 - (1-p)^R (xs_pct_bound()). As in the paper, n
 * must bound the steps of the runs: a run that makes more decisions than
 * the calibration saw (pct reorders what follows) has no change points
 * past n, so the bound speaks of bugs within the first n decisions. With
 * ranges it speaks of the orders given the values drawn: a bug that also
 * needs a value in a window w wide of a range W wide shows with
 * probability at least p w / W per such range.
 */
#include "strategy_impl.h"

#include <math.h>

static int cpu_of(const struct sim_question *q, unsigned int i)
{
	return q->ids ? q->ids[i] : (int)i;
}

static int prio_of(const struct xs_pct *t, const struct sim_question *q, unsigned int i)
{
	int cpu = cpu_of(q, i);

	return cpu >= 0 && cpu < SIM_MAX_CPUS ? t->prio[cpu] : 0;
}

/* The candidate of highest priority from candidate 'from' on (ties: the first). */
static unsigned int highest(const struct xs_pct *t, const struct sim_question *q,
			    unsigned int from)
{
	unsigned int best = from;

	for (unsigned int i = from + 1; i < q->n; i++)
		if (prio_of(t, q, i) > prio_of(t, q, best))
			best = i;
	return best;
}

static bool outranks(struct xs *x, int cpu, uint64_t mine)
{
	return x->run.pct.prio[cpu] > (int)mine;
}

unsigned int xs_pct_choose(struct xs *x, const struct sim_question *q)
{
	struct xs_pct *t = &x->run.pct;
	bool change = false;

	/* a stall takes no change point (tpct.c makes them stalls): the CPU yields to higher ones */
	if (q->why == SIM_WHY_STALL) {
		if (q->cpu < 0 || q->cpu >= SIM_MAX_CPUS)
			return 0;
		return xs_stall_yield(q, t->skew, outranks, x, (uint64_t)t->prio[q->cpu]);
	}
	while (t->next < t->nchange && t->change[t->next].step <= q->index) {
		if (q->why == SIM_WHY_CPU || q->why == SIM_WHY_SPIN) {
			int cpu = cpu_of(q, highest(t, q, 0));

			if (cpu >= 0 && cpu < SIM_MAX_CPUS) {
				t->prio[cpu] = t->change[t->next].prio;
				t->lowered |= (uint64_t)1 << cpu;
			}
		}
		change = true;
		t->next++;
	}
	switch (q->why) {
	case SIM_WHY_CPU:
	case SIM_WHY_SPIN:
		return highest(t, q, 0);
	case SIM_WHY_PLACE:
		return change ? highest(t, q, 1) : 0;
	case SIM_WHY_RANGE:
		return rng_below(&x->rng, q->n);
	default:
		return change ? 1 : 0;
	}
}

static unsigned int choose_pct(void *ctx, const struct sim_question *q)
{
	return xs_pct_choose(ctx, q);
}

void xs_pct_begin(struct xs *x, unsigned int depth, struct sim_config *cfg)
{
	struct xs_pct *t = &x->run.pct;
	unsigned int k = cfg->ncpus > 0 && cfg->ncpus <= SIM_MAX_CPUS ? (unsigned int)cfg->ncpus : 1;
	size_t n = x->p.est_steps ? x->p.est_steps : 1;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	t->depth = depth;
	t->k = k;
	t->skew = cfg->skew_ns;
	t->lowered = t->hold = 0;
	for (int i = 0; i < SIM_MAX_CPUS; i++)
		t->prio[i] = 0;
	/* a random permutation of d .. d+k-1 (Fisher-Yates) */
	for (unsigned int i = 0; i < k; i++) {
		unsigned int j = rng_below(&x->rng, i + 1);

		t->prio[i] = t->prio[j];
		t->prio[j] = (int)(depth + i);
	}
	/* the change points, kept in step order, equal steps in the order drawn */
	t->nchange = depth - 1;
	t->next = 0;
	for (unsigned int i = 1; i < depth; i++) {
		struct xs_change c = { rng_below(&x->rng, (unsigned int)n), (int)(depth - i) };
		unsigned int at = i - 1;

		while (at > 0 && t->change[at - 1].step > c.step) {
			t->change[at] = t->change[at - 1];
			at--;
		}
		t->change[at] = c;
	}
	cfg->chooser = choose_pct;
	cfg->chooser_ctx = x;
}

double xs_pct_bound(size_t n, unsigned int k, unsigned int d, uint64_t runs)
{
	double p = 1.0 / (k ? k : 1);

	for (unsigned int i = 1; i < d; i++)
		p /= (double)(n ? n : 1);
	if (p >= 1.0)
		return runs ? 1.0 : 0.0;
	/* 1 - (1-p)^runs, without losing a small p to rounding */
	return -expm1((double)runs * log1p(-p));
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	(void)r;
	xs_pct_begin(x, m->depth, cfg);
	return true;
}

const struct xs_ops xs_pct_ops = {
	.name = "pct",
	.params = XS_DEPTH,
	.named = XS_DEPTH,
	.guarantee = "PCT",
	.guarantee_json = true,
	.independent = true,
	.begin = begin,
};
