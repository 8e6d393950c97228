/*
 * pos: partial order sampling (Yuan, Yang, Gu, "Partial Order Aware
 * Concurrency Sampling", CAV 2018), in its basic form (BasicPOS).
 *
 * The contenders are the machine's CPUs: each CPU's next step gets a
 * random priority when it becomes a contender (the first question that
 * offers that CPU after its last step), the candidate whose step has the
 * highest priority runs (SIM_WHY_CPU; SIM_WHY_SPIN alike: the spinner whose
 * CPU's step is highest takes the lock), and the CPU that ran has its
 * priority drawn again when it next contends, for that is a new step. A
 * CPU that ran without a question (it was the only candidate) and is the
 * one that last ran at the next question (sim_question.cpu) has taken
 * steps too: its priority is drawn anew as well. Other contenders keep
 * theirs, however long they wait: a step that loses a few draws is likely
 * to lose many more, so pos reaches deep delays that uniform random almost
 * never does, while every order keeps a fair chance.
 *
 * The paper's full POS also redraws the priorities of the steps that race
 * with the one that ran (those reading or writing what it wrote). The
 * machine's questions do not say what a step touches, so that reset is not
 * available here: this is BasicPOS, which the paper shows already samples
 * partial orders far more evenly than random walks do.
 *
 * The questions about one CPU:
 *  - SIM_WHY_IRQ: a pending interrupt is one more contender on its CPU. It
 *    gets a priority when it first asks to be delivered and keeps it until
 *    it is; each time, against it stands the task's next step, a new step
 *    with a fresh priority: the higher goes first. So an interrupt drawn
 *    low waits many steps of the task, one drawn high hardly any.
 *  - SIM_WHY_WAKE: whether the woken task preempts the running one orders
 *    two new steps (the wakee's first, the running task's next), each with
 *    a fresh priority: either way with probability 1/2.
 *  - SIM_WHY_PLACE: where the woken task goes orders no two steps, it says
 *    where later ones run; pos draws the CPU uniformly, as random does.
 *  - SIM_WHY_RANGE: a value of a time range orders nothing either; pos
 *    draws it uniformly, as random does (and so does rff, which asks pos).
 *  - SIM_WHY_STALL (a CPU held up, where stalls are on): the steps that
 *    contend are more than the CPU question offered. The CPU about to go
 *    on (q->cpu) takes a step with a fresh priority; against it stand the
 *    next steps of the ready CPUs beyond the skew window (their clocks too
 *    far ahead for the CPU question), each with its priority, drawn when
 *    it first contends and kept as any contender's, and the next pending
 *    event (a timer, an interrupt, a program's start), one more contender,
 *    its priority drawn once and kept until a hold for it is taken (then
 *    it has happened, and the next event is another). The CPU is held up
 *    until the last of the CPUs that outrank its step has passed it
 *    (xs_stall_yield()); else, when the event outranks it, until just
 *    after the event; else not. So an event drawn high comes before the
 *    CPUs' next few steps, one drawn low lets them all go first, as an
 *    interrupt does above.
 */
#include "strategy_impl.h"

static int cpu_of(const struct sim_question *q, unsigned int i)
{
	return q->ids ? q->ids[i] : (int)i;
}

static bool valid(int cpu)
{
	return cpu >= 0 && cpu < SIM_MAX_CPUS;
}

static uint64_t bit(int cpu)
{
	return (uint64_t)1 << cpu;
}

/* The priority of cpu's next step, drawn now if it has none. */
static uint64_t prio_of(struct xs *x, int cpu)
{
	struct xs_pos *t = &x->run.pos;

	if (!valid(cpu))
		return 0;
	if (!(t->drawn & bit(cpu))) {
		t->prio[cpu] = rng_next(&x->rng);
		t->drawn |= bit(cpu);
	}
	return t->prio[cpu];
}

/* The step's priority of candidate i's CPU, drawn now if it has none. */
static uint64_t prio(struct xs *x, const struct sim_question *q, unsigned int i)
{
	return prio_of(x, cpu_of(q, i));
}

/*
 * The highest step of the candidates in allowed (bit i: candidate i; rff
 * holds some back), every candidate's priority drawn all the same.
 */
static unsigned int choose_step(struct xs *x, const struct sim_question *q, uint64_t allowed)
{
	struct xs_pos *t = &x->run.pos;
	unsigned int best = 0;
	bool any = false;
	uint64_t top = 0;
	int cpu;

	/* the CPU that ran since pos last chose has taken steps of its own */
	if (valid(q->cpu) && q->cpu != t->ran)
		t->drawn &= ~bit(q->cpu);
	for (unsigned int i = 0; i < q->n; i++) {
		uint64_t p = prio(x, q, i);

		if (i < 64 && !(allowed >> i & 1))
			continue;
		if (!any || p > top) {
			top = p;
			best = i;
			any = true;
		}
	}
	cpu = cpu_of(q, best);
	if (valid(cpu))
		t->drawn &= ~bit(cpu);
	t->ran = cpu;
	return best;
}

/* 0: deliver now, 1: the task's step first. */
static unsigned int choose_irq(struct xs *x, const struct sim_question *q)
{
	struct xs_pos *t = &x->run.pos;
	int cpu = cpu_of(q, 0);

	if (!valid(cpu))
		return 0;
	if (!(t->irq_drawn & bit(cpu))) {
		t->irq_prio[cpu] = rng_next(&x->rng);
		t->irq_drawn |= bit(cpu);
	}
	if (t->irq_prio[cpu] > rng_next(&x->rng)) {
		t->irq_drawn &= ~bit(cpu);
		return 0;
	}
	return 1;
}

static bool outranks(struct xs *x, int cpu, uint64_t mine)
{
	return prio_of(x, cpu) > mine;
}

/* A stall question: q->cpu's step against the steps beyond the window and the next event. */
static unsigned int choose_stall(struct xs *x, const struct sim_question *q)
{
	struct xs_pos *t = &x->run.pos;
	unsigned int a, ev;
	uint64_t mine;

	if (!valid(q->cpu))
		return 0;
	t->drawn &= ~bit(q->cpu);
	mine = prio_of(x, q->cpu);
	a = xs_stall_yield(q, t->skew, outranks, x, mine);
	ev = xs_stall_event(q);
	if (!a && ev) {
		if (!t->event_drawn) {
			t->event_prio = rng_next(&x->rng);
			t->event_drawn = true;
		}
		if (t->event_prio > mine) {
			a = ev;
			t->event_drawn = false;
		}
	}
	/* the step goes now, held or not: the CPU's next one is a new contender */
	t->drawn &= ~bit(q->cpu);
	return a;
}

unsigned int xs_pos_choose(struct xs *x, const struct sim_question *q, uint64_t allowed)
{
	switch (q->why) {
	case SIM_WHY_CPU:
	case SIM_WHY_SPIN:
		return choose_step(x, q, allowed);
	case SIM_WHY_IRQ:
		return choose_irq(x, q);
	case SIM_WHY_STALL:
		return choose_stall(x, q);
	default:
		return rng_below(&x->rng, q->n);
	}
}

static unsigned int choose_pos(void *ctx, const struct sim_question *q)
{
	return xs_pos_choose(ctx, q, UINT64_MAX);
}

void xs_pos_begin(struct xs *x, struct sim_config *cfg)
{
	struct xs_pos *t = &x->run.pos;

	t->drawn = t->irq_drawn = 0;
	t->ran = -1;
	t->event_drawn = false;
	t->skew = cfg->skew_ns;
	cfg->chooser = choose_pos;
	cfg->chooser_ctx = x;
}

static bool begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	(void)r;
	(void)m;
	xs_pos_begin(x, cfg);
	return true;
}

const struct xs_ops xs_pos_ops = {
	.name = "pos",
	.independent = true,
	.begin = begin,
};
