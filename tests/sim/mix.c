/*
 * The mix: a seeded, randomised workload that touches every kind of choice
 * the machine makes. A plan is drawn from the seed first (CPUs, HZ, the
 * preemption model, tasks and their operations, hard interrupts, timer
 * behaviour), then the machine is built from it and run.
 *
 * The workload is clean by construction, so a finding means the machine
 * got something wrong:
 *  - locks are taken in one global order, L0 < L1 < L2, and released in
 *    reverse; L2 is also taken in hardirq and timer callbacks, so process
 *    context always takes it irqsave, and callbacks take it irqsave too;
 *  - nothing sleeps with a lock held or with irqs or preemption off;
 *  - every completion has one waiter and one completer, and a task only
 *    waits for completions of lower-numbered tasks or of interrupts, so
 *    every wait ends;
 *  - del_timer_sync() is called with no lock held, and from hardirq only on
 *    TIMER_IRQSAFE timers; timers re-arm themselves a bounded number of
 *    times, so the run comes to rest;
 *  - every block a task allocates is freed before it exits.
 */
#include "mix.h"

#include <sim/causal.h>

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US		1000ULL
#define MS		1000000ULL

#define MIX_MAX_TASKS	8
#define MIX_BASE_OPS	240	/* at most, per task; complete()s for later tasks come on top */
#define MIX_MAX_WAITS	8	/* per task */
#define MIX_MAX_OPS	(MIX_BASE_OPS + MIX_MAX_TASKS * MIX_MAX_WAITS)
#define MIX_MAX_COMPS	(MIX_MAX_TASKS * MIX_MAX_WAITS)
#define MIX_MAX_IRQS	32
#define MIX_NLOCKS	3	/* L0 < L1 < L2; L2 is the interrupt-safe one */
#define MIX_IRQ_LOCK	2
#define MIX_NTIMERS	4	/* 0, 1 plain; 2, 3 TIMER_IRQSAFE */
#define MIX_FIRST_IRQSAFE 2
#define MIX_SLOTS	4

enum op_kind {
	OP_LOCK, OP_UDELAY, OP_MSLEEP, OP_WAIT, OP_COMPLETE, OP_MOD_TIMER, OP_DEL_TIMER,
	OP_DEL_TIMER_SYNC, OP_WAKE, OP_COND_RESCHED, OP_ALLOC, OP_FREE, OP_IRQS_OFF,
	OP_PREEMPT_OFF, OP_PRINTK,
	OP__COUNT
};

/* Extras of a lock section, done with the locks held. */
#define LX_ALLOC	0x1	/* kzalloc(GFP_ATOMIC) and kfree */
#define LX_MOD_TIMER	0x2
#define LX_DEL_TIMER	0x4

struct op {
	uint8_t kind;
	uint8_t locks;		/* OP_LOCK: bit i takes lock i */
	uint8_t irqsave;	/* OP_LOCK: bit i takes it irqsave */
	uint8_t extra;		/* OP_LOCK: LX_* */
	uint16_t idx;		/* completion, timer, task or slot */
	uint32_t arg;		/* microseconds, milliseconds, jiffies or bytes */
};

struct task_plan {
	int id;
	int cpu;
	bool bind;
	uint64_t start;
	int nops, nwaits;
	struct op ops[MIX_MAX_OPS];
};

struct irq_plan {
	uint64_t at;
	int cpu;
	int ncomps;
	uint16_t comps[MIX_MAX_COMPS];
	int timer;		/* mod_timer() it, -1: none */
	uint32_t timer_delay;	/* jiffies */
	int del_sync;		/* del_timer_sync() this irqsafe timer, -1: none */
	int wake;		/* wake_up_process() this task, -1: none */
	uint32_t lock_us;	/* hold L2 this long, 0: not at all */
	uint32_t alloc;		/* kzalloc(GFP_ATOMIC) this much and free it, 0: no */
};

struct plan {
	int ncpus;
	unsigned int hz;
	enum sim_preempt preempt;
	int ntasks;
	struct task_plan tasks[MIX_MAX_TASKS];
	int nirqs;
	struct irq_plan irqs[MIX_MAX_IRQS];
	int ncomps;
	int timer_rearms[MIX_NTIMERS];	/* how often a callback re-arms its timer */
	uint32_t timer_us[MIX_NTIMERS];	/* how long it holds L2 */
	int timer_wake[MIX_NTIMERS];	/* whom it wakes, -1: nobody */
};

/* --- the seed's own PRNG (never rand()) ------------------------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n-1; the modulo bias is irrelevant to a workload generator */
static unsigned int below(struct rng *g, unsigned int n)
{
	return (unsigned int)(rng_next(g) % n);
}

static bool one_in(struct rng *g, unsigned int n)
{
	return below(g, n) == 0;
}

/* --- drawing the plan ------------------------------------------------------------- */

static struct plan plan;

static void draw_irq(struct rng *g, struct irq_plan *q)
{
	memset(q, 0, sizeof(*q));
	q->at = 100 * US + below(g, 100000) * US;
	q->cpu = (int)below(g, (unsigned int)plan.ncpus);
	q->timer = one_in(g, 2) ? (int)below(g, MIX_NTIMERS) : -1;
	q->timer_delay = 1 + below(g, 8);
	q->del_sync = -1;
	if (one_in(g, 4))
		q->del_sync = MIX_FIRST_IRQSAFE + (int)below(g, MIX_NTIMERS - MIX_FIRST_IRQSAFE);
	q->wake = one_in(g, 2) ? (int)below(g, (unsigned int)plan.ntasks) : -1;
	q->lock_us = one_in(g, 2) ? 1 + below(g, 30) : 0;
	q->alloc = one_in(g, 3) ? 1 + below(g, 100) : 0;
}

/* An interrupt to complete a completion: an existing one, or a new one. */
static struct irq_plan *irq_for_completion(struct rng *g)
{
	if (plan.nirqs && (plan.nirqs == MIX_MAX_IRQS || one_in(g, 2)))
		return &plan.irqs[below(g, (unsigned int)plan.nirqs)];
	if (plan.nirqs == MIX_MAX_IRQS)
		return NULL;
	draw_irq(g, &plan.irqs[plan.nirqs]);
	return &plan.irqs[plan.nirqs++];
}

/* Put a complete() somewhere in an earlier task's list. */
static bool insert_complete(struct rng *g, struct task_plan *tp, int comp)
{
	int at;

	if (tp->nops == MIX_MAX_OPS)
		return false;
	at = (int)below(g, (unsigned int)tp->nops + 1);
	memmove(&tp->ops[at + 1], &tp->ops[at], (size_t)(tp->nops - at) * sizeof(tp->ops[0]));
	tp->ops[at] = (struct op){ .kind = OP_COMPLETE, .idx = (uint16_t)comp };
	tp->nops++;
	return true;
}

/* A wait, and its completer: a lower-numbered task or an interrupt. */
static bool draw_wait(struct rng *g, struct task_plan *tp, struct op *op)
{
	int comp = plan.ncomps;
	struct irq_plan *q;

	if (tp->nwaits == MIX_MAX_WAITS || comp == MIX_MAX_COMPS)
		return false;
	if (tp->id > 0 && one_in(g, 2)) {
		if (!insert_complete(g, &plan.tasks[below(g, (unsigned int)tp->id)], comp))
			return false;
	} else {
		q = irq_for_completion(g);
		if (!q)
			return false;
		q->comps[q->ncomps++] = (uint16_t)comp;
	}
	plan.ncomps++;
	tp->nwaits++;
	*op = (struct op){ .kind = OP_WAIT, .idx = (uint16_t)comp };
	return true;
}

static void draw_lock(struct rng *g, struct op *op)
{
	op->locks = (uint8_t)(1 + below(g, (1u << MIX_NLOCKS) - 1));
	op->irqsave = (uint8_t)(below(g, 1u << MIX_NLOCKS) | (1u << MIX_IRQ_LOCK));
	op->extra = (uint8_t)below(g, 8);
	op->idx = (uint16_t)below(g, MIX_NTIMERS);
	op->arg = 1 + below(g, 40);
}

/* How often each operation is drawn: mostly busy work, so CPUs contend. */
static const unsigned int op_weight[OP__COUNT] = {
	[OP_LOCK] = 6, [OP_UDELAY] = 3, [OP_MSLEEP] = 1, [OP_WAIT] = 2, [OP_COMPLETE] = 0,
	[OP_MOD_TIMER] = 2, [OP_DEL_TIMER] = 1, [OP_DEL_TIMER_SYNC] = 1, [OP_WAKE] = 2,
	[OP_COND_RESCHED] = 2, [OP_ALLOC] = 2, [OP_FREE] = 2, [OP_IRQS_OFF] = 1,
	[OP_PREEMPT_OFF] = 1, [OP_PRINTK] = 1,
};

static uint8_t draw_kind(struct rng *g)
{
	unsigned int total = 0, pick;
	uint8_t k;

	for (k = 0; k < OP__COUNT; k++)
		total += op_weight[k];
	pick = below(g, total);
	for (k = 0; pick >= op_weight[k]; k++)
		pick -= op_weight[k];
	return k;
}

static void draw_op(struct rng *g, struct task_plan *tp, struct op *op)
{
	memset(op, 0, sizeof(*op));
	op->kind = draw_kind(g);
	switch (op->kind) {
	case OP_LOCK:
		draw_lock(g, op);
		break;
	case OP_UDELAY:
	case OP_IRQS_OFF:
	case OP_PREEMPT_OFF:
		op->arg = 1 + below(g, 300);
		break;
	case OP_MSLEEP:
		op->arg = 1 + below(g, 8);
		break;
	case OP_WAIT:
		if (!draw_wait(g, tp, op))
			*op = (struct op){ .kind = OP_COND_RESCHED };
		break;
	case OP_MOD_TIMER:
		op->arg = below(g, 10);
		/* fall through */
	case OP_DEL_TIMER:
	case OP_DEL_TIMER_SYNC:
		op->idx = (uint16_t)below(g, MIX_NTIMERS);
		break;
	case OP_WAKE:
		op->idx = (uint16_t)below(g, (unsigned int)plan.ntasks);
		break;
	case OP_ALLOC:
		op->arg = 1 + below(g, 300);
		/* fall through */
	case OP_FREE:
		op->idx = (uint16_t)below(g, MIX_SLOTS);
		break;
	}
}

static void draw_plan(uint64_t seed)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000 };
	struct rng g = { seed ^ 0x6d69782d6b77736dULL };
	int nirqs;

	memset(&plan, 0, sizeof(plan));
	plan.ncpus = 1 + (int)below(&g, 4);
	plan.hz = hzs[below(&g, 4)];
	plan.preempt = (enum sim_preempt)below(&g, 3);
	plan.ntasks = 2 + (int)below(&g, MIX_MAX_TASKS - 1);
	for (int i = 0; i < MIX_NTIMERS; i++) {
		plan.timer_rearms[i] = (int)below(&g, 4);
		plan.timer_us[i] = 1 + below(&g, 20);
		plan.timer_wake[i] = one_in(&g, 2) ? (int)below(&g, (unsigned int)plan.ntasks) : -1;
	}
	nirqs = (int)below(&g, MIX_MAX_IRQS / 2 + 1);
	for (; plan.nirqs < nirqs; plan.nirqs++)
		draw_irq(&g, &plan.irqs[plan.nirqs]);
	for (int j = 0; j < plan.ntasks; j++) {
		struct task_plan *tp = &plan.tasks[j];

		tp->id = j;
		tp->cpu = (int)below(&g, (unsigned int)plan.ncpus);
		tp->bind = one_in(&g, 2);
		tp->start = below(&g, 2000) * US;
		tp->nops = 10 + (int)below(&g, MIX_BASE_OPS - 10 + 1);
		for (int k = 0; k < tp->nops; k++)
			draw_op(&g, tp, &tp->ops[k]);
	}
}

/* --- the machine's side ------------------------------------------------------------- */

static spinlock_t locks[MIX_NLOCKS];
static struct timer_list timers[MIX_NTIMERS];
static struct completion comps[MIX_MAX_COMPS];
static struct task_struct *tasks[MIX_MAX_TASKS];
static int rearms_left[MIX_NTIMERS];

static void mix_timer_fn(struct timer_list *t)
{
	int i = (int)(t - timers);
	unsigned long flags;

	spin_lock_irqsave(&locks[MIX_IRQ_LOCK], flags);
	udelay(plan.timer_us[i]);
	spin_unlock_irqrestore(&locks[MIX_IRQ_LOCK], flags);
	if (rearms_left[i] > 0) {
		rearms_left[i]--;
		mod_timer(t, jiffies + 1 + (unsigned long)i);
	}
	if (plan.timer_wake[i] >= 0)
		wake_up_process(tasks[plan.timer_wake[i]]);
}

static void mix_irq(void *arg)
{
	struct irq_plan *q = arg;

	for (int i = 0; i < q->ncomps; i++)
		complete(&comps[q->comps[i]]);
	if (q->lock_us) {
		spin_lock(&locks[MIX_IRQ_LOCK]);
		udelay(q->lock_us);
		spin_unlock(&locks[MIX_IRQ_LOCK]);
	}
	if (q->timer >= 0)
		mod_timer(&timers[q->timer], jiffies + q->timer_delay);
	if (q->del_sync >= 0)
		del_timer_sync(&timers[q->del_sync]);
	if (q->wake >= 0)
		wake_up_process(tasks[q->wake]);
	if (q->alloc)
		kfree(kzalloc(q->alloc, GFP_ATOMIC));
}

static void run_lock_section(const struct op *op)
{
	unsigned long flags[MIX_NLOCKS] = { 0 };
	int i;

	for (i = 0; i < MIX_NLOCKS; i++) {
		if (!(op->locks & (1u << i)))
			continue;
		if (op->irqsave & (1u << i))
			spin_lock_irqsave(&locks[i], flags[i]);
		else
			spin_lock(&locks[i]);
	}
	udelay(op->arg);
	if (op->extra & LX_ALLOC)
		kfree(kzalloc(op->arg * 8, GFP_ATOMIC));
	if (op->extra & LX_MOD_TIMER)
		mod_timer(&timers[op->idx], jiffies + 1 + op->arg % 5);
	if (op->extra & LX_DEL_TIMER)
		del_timer(&timers[op->idx]);
	for (i = MIX_NLOCKS - 1; i >= 0; i--) {
		if (!(op->locks & (1u << i)))
			continue;
		if (op->irqsave & (1u << i))
			spin_unlock_irqrestore(&locks[i], flags[i]);
		else
			spin_unlock(&locks[i]);
	}
}

static void run_op(const struct task_plan *tp, const struct op *op, void **slots, int k)
{
	unsigned long flags;

	switch (op->kind) {
	case OP_LOCK:
		run_lock_section(op);
		break;
	case OP_UDELAY:
		udelay(op->arg);
		break;
	case OP_MSLEEP:
		msleep(op->arg);
		break;
	case OP_WAIT:
		wait_for_completion(&comps[op->idx]);
		break;
	case OP_COMPLETE:
		complete(&comps[op->idx]);
		break;
	case OP_MOD_TIMER:
		mod_timer(&timers[op->idx], jiffies + op->arg);
		break;
	case OP_DEL_TIMER:
		del_timer(&timers[op->idx]);
		break;
	case OP_DEL_TIMER_SYNC:
		del_timer_sync(&timers[op->idx]);
		break;
	case OP_WAKE:
		wake_up_process(tasks[op->idx]);
		break;
	case OP_COND_RESCHED:
		cond_resched();
		break;
	case OP_ALLOC:
		if (!slots[op->idx]) {
			slots[op->idx] = kzalloc(op->arg, GFP_KERNEL);
			memset(slots[op->idx], tp->id + 1, op->arg);
		}
		break;
	case OP_FREE:
		kfree(slots[op->idx]);
		slots[op->idx] = NULL;
		break;
	case OP_IRQS_OFF:
		local_irq_save(flags);
		udelay(op->arg);
		local_irq_restore(flags);
		break;
	case OP_PREEMPT_OFF:
		preempt_disable();
		udelay(op->arg);
		preempt_enable();
		break;
	case OP_PRINTK:
		pr_info("mix%d: op %d\n", tp->id, k);
		break;
	}
}

static int mix_task(void *arg)
{
	const struct task_plan *tp = arg;
	void *slots[MIX_SLOTS] = { 0 };

	for (int k = 0; k < tp->nops; k++)
		run_op(tp, &tp->ops[k], slots, k);
	for (int i = 0; i < MIX_SLOTS; i++)
		kfree(slots[i]);
	return 0;
}

static void populate(void)
{
	char name[16];

	memset(timers, 0, sizeof(timers));
	spin_lock_init(&locks[0]);
	spin_lock_init(&locks[1]);
	spin_lock_init(&locks[2]);
	for (int i = 0; i < MIX_NTIMERS; i++) {
		timer_setup(&timers[i], mix_timer_fn, i >= MIX_FIRST_IRQSAFE ? TIMER_IRQSAFE : 0);
		rearms_left[i] = plan.timer_rearms[i];
	}
	sim_register_symbol((const void *)mix_timer_fn, "mix_timer_fn");
	for (int i = 0; i < MIX_MAX_COMPS; i++)
		init_completion(&comps[i]);
	for (int j = 0; j < plan.ntasks; j++) {
		const struct task_plan *tp = &plan.tasks[j];

		snprintf(name, sizeof(name), "mix%d", j);
		tasks[j] = sim_spawn(name, mix_task, &plan.tasks[j], tp->cpu, tp->bind, tp->start);
	}
	for (int i = 0; i < plan.nirqs; i++)
		sim_irq_at(plan.irqs[i].at, plan.irqs[i].cpu, "mix_irq", mix_irq, &plan.irqs[i]);
}

static void read_back(struct mix_run *r)
{
	const struct sim_finding *f = sim_finding(0);
	const char *div = sim_divergence();

	r->hash = sim_trace_hash();
	r->causal = sim_causal_check(sim_trace_records(), sim_trace_count(), r->causal_first,
				     sizeof(r->causal_first));
	r->decisions = sim_decision_count();
	r->findings = sim_finding_count();
	r->first_finding[0] = '\0';
	if (f)
		snprintf(r->first_finding, sizeof(r->first_finding), "%s: %s",
			 sim_finding_kind_name(f->kind), f->msg);
	snprintf(r->divergence, sizeof(r->divergence), "%s", div ? div : "");
	r->log = NULL;
	r->nlog = 0;
	if (!r->keep_log)
		return;
	r->nlog = r->decisions;
	r->log = malloc((r->nlog ? r->nlog : 1) * sizeof(*r->log));
	if (!r->log)
		abort();
	if (r->nlog)		/* an empty log may be NULL */
		memcpy(r->log, sim_decisions(), r->nlog * sizeof(*r->log));
}

void mix_run(struct mix_run *r)
{
	struct sim_config cfg;

	draw_plan(r->seed);
	sim_config_default(&cfg);
	cfg.ncpus = plan.ncpus;
	cfg.hz = plan.hz;
	cfg.preempt = plan.preempt;
	cfg.strategy = r->strategy;
	cfg.seed = r->seed;
	cfg.keep_trace = true;	/* for the causality check; the hash is the same either way */
	if (r->reset ? sim_reset(&cfg) : sim_init(&cfg)) {
		fprintf(stderr, "mix: sim_init: %s\n", sim_error());
		abort();
	}
	if (r->strategy == SIM_STRATEGY_REPLAY)
		sim_replay_log(r->replay, r->nreplay);
	populate();
	r->end = sim_run();
	read_back(r);
	if (!r->reset)
		sim_fini();
}

void mix_release(struct mix_run *r)
{
	free(r->log);
	r->log = NULL;
	r->nlog = 0;
}
