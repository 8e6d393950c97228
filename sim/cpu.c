/*
 * CPUs: local clocks, interrupt and preempt state, and the per-CPU hardirq
 * and softirq frames. A CPU runs at most one task; interrupts stack on top
 * of it, so the innermost context is the one that runs.
 */
#include "machine.h"
#include <linux/irqflags.h>
#include <linux/preempt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hardirq_main(void *arg);
static void softirq_main(void *arg);
static void irq_event(void *arg);
static void hardirq_run(struct sim_cpu *c);
static void softirq_run(struct sim_cpu *c);

static void ctx_init(struct sim_ctx *x, struct sim_cpu *c, enum sim_ctx_kind kind)
{
	x->kind = kind;
	x->cpu = c;
	if (coro_pool_get(&sim.stacks, &x->coro, sim.cfg.stack_size))
		abort();
	sim_owner_add_stack(x);
}

void sim_cpus_init(void)
{
	struct sim_cpu *c;

	for_each_sim_cpu(c) {
		c->id = (int)(c - sim.cpus);
		INIT_LIST_HEAD(&c->runqueue);
		INIT_LIST_HEAD(&c->irqs);
		INIT_LIST_HEAD(&c->timers);
		c->idle.flags = PF_IDLE | PF_KTHREAD | PF_NOFREEZE;
		c->idle.cpu = c->id;
		c->idle.bound_cpu = c->id;
		c->idle.on_rq = true;
		sim_comm_numbered(c->idle.comm, sizeof(c->idle.comm), "swapper/", (unsigned int)c->id);
		/* init_idle_preempt_count(): the idle loop runs with preemption off */
		c->idle.preempt_saved = PREEMPT_OFFSET;
		c->preempt_count = PREEMPT_OFFSET;
		c->curr = &c->idle;
		ctx_init(&c->hardirq, c, CTX_HARDIRQ);
		ctx_init(&c->softirq, c, CTX_SOFTIRQ);
	}
}

void sim_cpus_fini(bool keep)
{
	struct sim_cpu *c;

	/* A run that stopped early leaves interrupts that never arrived: their events own them. */
	for (size_t i = 0; i < sim.nheap; i++)
		if (sim.heap[i]->fn == irq_event)
			free(sim.heap[i]->arg);
	for_each_sim_cpu(c) {
		while (!list_empty(&c->irqs)) {
			struct sim_irq_req *r = list_first_entry(&c->irqs, struct sim_irq_req, node);

			list_del(&r->node);
			free(r);
		}
		free(c->irq_now);
		coro_pool_put(&sim.stacks, &c->hardirq.coro);
		coro_pool_put(&sim.stacks, &c->softirq.coro);
	}
}

/*
 * The one place a CPU receives time: a lock released, a task woken, a completion
 * completed, a spin ended, an interrupt or a tick raised at 'sent' (the sender's
 * clock, or the event's) is not seen by c before then: c spun, waited or idled.
 */
void sim_handover(struct sim_cpu *c, uint64_t sent)
{
	if (c->clock < sent)
		c->clock = sent;
}

static struct sim_ctx *push(struct sim_cpu *c, struct sim_ctx *x, coro_fn fn)
{
	/* A frame re-entered as it exits is still running: it loops instead. */
	if (x != sim.cur)
		coro_prepare(&x->coro, fn, c);
	x->wait = WAIT_NONE;
	x->nheld = 0;
	x->note[0] = '\0';
	x->note_file = NULL;
	x->in_call = NULL;
	x->work_fn = NULL;
	x->below_preemptible = c->preemptible_point;
	if (!c->depth)
		c->sched_touch = c->clock;	/* the idle loop could schedule until now */
	c->stack[c->depth++] = x;
	return x;
}

struct sim_ctx *sim_enter_hardirq(struct sim_cpu *c)
{
	struct sim_irq_req *r = list_first_entry(&c->irqs, struct sim_irq_req, node);

	list_del(&r->node);
	c->irq_now = r;
	return push(c, &c->hardirq, hardirq_main);
}

struct sim_ctx *sim_enter_softirq(struct sim_cpu *c)
{
	c->softirq_pending = false;
	return push(c, &c->softirq, softirq_main);
}

/*
 * Returning from an interrupt is a preemption point under PREEMPT. Returns
 * only if the same kind of frame is entered again at once.
 */
static void irq_return(struct sim_cpu *c)
{
	struct sim_ctx *below;

	/*
	 * The interrupted context is back at the point it stopped at; the
	 * handler's own points must not take that point's preemptibility away
	 * (an interrupt at might_sleep may wake the task that preempts there).
	 */
	c->preemptible_point = top_ctx(c)->below_preemptible;
	c->depth--;
	below = top_ctx(c);
	if (!below)
		c->sched_touch = c->clock;	/* back in the idle loop: the stopper can run */
	if (below && below->kind == CTX_TASK && !c->preempt_count && !c->irqs_disabled &&
	    sim.cfg.preempt == SIM_PREEMPT_FULL)
		c->preemptible_point = true;
	sim_exit_ctx();
}

static void hardirq_main(void *arg)
{
	for (;;) {
		hardirq_run(arg);
		irq_return(arg);
	}
}

static void softirq_main(void *arg)
{
	for (;;) {
		softirq_run(arg);
		irq_return(arg);
	}
}

static void hardirq_run(struct sim_cpu *c)
{
	struct sim_irq_req *r = c->irq_now;

	unsigned int count;

	c->clock += sim.cfg.costs.irq_entry;
	c->preempt_count += HARDIRQ_OFFSET;
	count = c->preempt_count;
	c->irqs_disabled = true;
	sim_trace(REC_IRQ_ENTRY, (uint64_t)r->irq, 0, 0, 0, r->name, NULL);
	r->handler(r->arg);
	/* __handle_irq_event_percpu(): a handler must not leave interrupts on */
	if (!c->irqs_disabled) {
		sim_warnf(SIM_HERE, "irq %d handler %s enabled interrupts", r->irq, r->name);
		c->irqs_disabled = true;
	}
	sim_trace(REC_IRQ_EXIT, (uint64_t)r->irq, 0, 0, 0, r->name, NULL);
	sim_lockdep_context_end_count("hardirq handler", r->name, count);
	c->preempt_count -= HARDIRQ_OFFSET;
	c->irqs_disabled = false;
	c->irq_now = NULL;
	free(r);
}

static void softirq_run(struct sim_cpu *c)
{
	c->clock += sim.cfg.costs.irq_entry;
	c->preempt_count += SOFTIRQ_OFFSET;
	sim_trace(REC_SOFTIRQ_ENTRY, 0, 0, 0, 0, "TIMER", NULL);
	sim_run_timer_softirq(c);
	sim_trace(REC_SOFTIRQ_EXIT, 0, 0, 0, 0, "TIMER", NULL);
	c->preempt_count -= SOFTIRQ_OFFSET;
}

/*
 * fixup_irqs() from take_cpu_down() (kernel/cpu.c:1268 in 6.12,
 * __cpu_disable()): a dying CPU's interrupts get an online CPU as their
 * affinity, and one already pending there is raised again on it.
 */
void sim_irqs_move(struct sim_cpu *c, struct sim_cpu *to)
{
	while (!list_empty(&c->irqs)) {
		struct sim_irq_req *r = list_first_entry(&c->irqs, struct sim_irq_req, node);

		list_del(&r->node);
		r->cpu = to->id;
		sim_handover(to, c->clock);
		list_add_tail(&r->node, &to->irqs);
	}
}

static void irq_event(void *arg)
{
	struct sim_irq_req *r = arg;
	struct sim_cpu *c = &sim.cpus[r->cpu];

	/* its CPU is offline: the affinity fixup_irqs() gave it */
	if (c->offline) {
		c = sim_first_active_cpu();
		r->cpu = c->id;
	}

	sim_handover(c, sim.ev_time);	/* its time: a boot-clock time, less any sleep */
	list_add_tail(&r->node, &c->irqs);
}

/* Each interrupt name gets a number, in order of first use, as a line of /proc/interrupts. */
static int irq_number(const char *name)
{
	for (int i = 0; i < sim.nirq_names; i++)
		if (!strcmp(sim.irq_names[i], name))
			return i + 1;
	if (sim.nirq_names == SIM_MAX_IRQ_NAMES)
		return 0;
	sim.irq_names[sim.nirq_names++] = sim_intern(name);
	return sim.nirq_names;
}

void sim_irq_at(uint64_t at, int cpu, const char *name, void (*handler)(void *), void *arg)
{
	struct sim_irq_req *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->name = sim_intern(name);	/* a record's string (sim_trace()): the caller's may not last */
	r->irq = irq_number(name);
	r->handler = handler;
	r->arg = arg;
	r->cpu = cpu;
	sim_event_add_boot(at, irq_event, r);
}

/* --- the kernel-facing calls ------------------------------------------------------ */

unsigned int sim_preempt_count(void)
{
	return sim.cur_cpu ? sim.cur_cpu->preempt_count : 0;
}

void sim_preempt_add(int val)
{
	sim.cur_cpu->preempt_count += (unsigned int)val;
	sim_point(sim.cfg.costs.irq_toggle, POINT_PLAIN);
}

/* debug_locks: lockdep turns it off with its first report (debug_locks_off()) */
static bool debug_locks(void)
{
	for (size_t i = 0; i < sim_finding_count(); i++)
		if (sim_finding(i)->kind == SIM_F_LOCKDEP)
			return false;
	return true;
}

/*
 * preempt_count_sub() as CONFIG_DEBUG_PREEMPT has it: a count that would
 * underflow its own field (a preempt_enable() or an unlock without its
 * disable or lock; in a hardirq the preemption bits are 0) is left as it
 * is, so the interrupt bits above it keep saying where the CPU is, with a
 * DEBUG_LOCKS_WARN_ON, silent once lockdep has reported.
 */
bool sim_preempt_count_sub(struct sim_cpu *c, unsigned int val)
{
	unsigned int mask = val <= PREEMPT_MASK ? PREEMPT_MASK : SOFTIRQ_MASK;

	if ((c->preempt_count & mask) >= val) {
		c->preempt_count -= val;
		return true;
	}
	if (debug_locks())
		sim_warnf(SIM_HERE, "DEBUG_LOCKS_WARN_ON(preempt_count() & %#x < %#x): preempt_count "
			  "%#x would underflow", mask, val, c->preempt_count);
	return false;
}

void sim_preempt_sub(int val)
{
	if (sim_preempt_count_sub(sim.cur_cpu, (unsigned int)val))
		sim_point(sim.cfg.costs.irq_toggle, POINT_PLAIN);
}

bool sim_irqs_disabled(void)
{
	return sim.cur_cpu && sim.cur_cpu->irqs_disabled;
}

void sim_local_irq_disable(void)
{
	sim_point(sim.cfg.costs.irq_toggle, POINT_PLAIN);
	sim.cur_cpu->irqs_disabled = true;
}

void sim_local_irq_enable(void)
{
	sim.cur_cpu->irqs_disabled = false;
	sim_point(sim.cfg.costs.irq_toggle, POINT_PLAIN);
}

unsigned long sim_local_irq_save(void)
{
	unsigned long flags = sim.cur_cpu->irqs_disabled;

	sim_local_irq_disable();
	return flags;
}

void sim_local_irq_restore(unsigned long flags)
{
	if (flags)
		sim.cur_cpu->irqs_disabled = true;
	else
		sim_local_irq_enable();
}
