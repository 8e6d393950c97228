/*
 * Tasks: creation, the run queues, schedule() and wake-ups. A task sleeps by
 * leaving its CPU for real; a wake-up puts it on a run queue chosen through
 * sim_choose(), so placement is explorable too. Kernel threads are in
 * kthread.c, sleeps for a time and busy-waits in delay.c.
 */
#include "machine.h"
#include <linux/kthread.h>
#include <linux/jiffies.h>
#include <sim/text.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_tasks_init(void)
{
	INIT_LIST_HEAD(&sim.tasks);
	sim.next_pid = 1;
}

/* A zeroed task_struct: a spare from an earlier run, else a new one. */
static struct task_struct *task_alloc(void)
{
	struct sim_spare_tasks *spare = &sim.spare_tasks;
	struct task_struct *p;

	if (!spare->n)
		return calloc(1, sizeof(*p));
	p = spare->p[--spare->n];
	sim_spare_take(p);
	memset(p, 0, sizeof(*p));
	return p;
}

void sim_tasks_fini(bool keep)
{
	struct sim_spare_tasks *spare = &sim.spare_tasks;
	struct task_struct *p;

	/* the stacks go to the pool either way: sim_fini() drains it */
	while (!list_empty(&sim.tasks)) {
		p = list_first_entry(&sim.tasks, struct task_struct, all_node);
		list_del(&p->all_node);
		coro_pool_put(&sim.stacks, &p->ctx.coro);
		if (keep && spare->n < SIM_SPARE_TASKS) {
			sim_spare_keep(p);
			spare->p[spare->n++] = p;
		} else {
			free(p);
		}
	}
	while (!keep && spare->n) {
		p = spare->p[--spare->n];
		sim_spare_take(p);
		free(p);
	}
}

struct task_struct *sim_current(void)
{
	return sim.cur_cpu && !sim.in_event ? sim.cur_cpu->curr : NULL;
}

const char *sim_running(const char **work_fn)
{
	struct sim_ctx *x = sim.in_event ? NULL : sim.cur;

	if (work_fn)
		*work_fn = x ? x->work_fn : NULL;
	return x ? sim_ctx_name(x) : NULL;
}

const void *sim_running_ctx(void)
{
	return sim.in_event ? NULL : sim.cur;
}

/* As the kernel's: cpu_curr(task_cpu(p)) == p. */
bool task_curr(const struct task_struct *p)
{
	return sim.cpus[p->cpu].curr == p;
}

const char *sim_task_comm(struct task_struct *p)
{
	if (!p->comm_interned || strcmp(p->comm_interned, p->comm))
		p->comm_interned = sim_intern(p->comm);
	return p->comm_interned;
}

/*
 * comm = prefix and n in decimal, cut to len as snprintf("%s%u") would cut
 * it, without printf: each CPU's idle task is named so at every reset, and
 * formatting it was 1% of a small race's explored run.
 */
void sim_comm_numbered(char *comm, size_t len, const char *prefix, unsigned int n)
{
	size_t i = 0;

	sim_put_str(comm, len, &i, prefix);
	sim_put_dec(comm, len, &i, n, 1);
}

int smp_processor_id(void)
{
	return sim_this_cpu();
}

int num_online_cpus(void)
{
	struct sim_cpu *c;
	int n = 0;

	for_each_sim_cpu(c)
		n += !c->offline;
	return n;
}

const char *sim_ctx_name(const struct sim_ctx *x)
{
	switch (x->kind) {
	case CTX_HARDIRQ:
		return "hardirq";
	case CTX_SOFTIRQ:
		return "softirq";
	case CTX_TASK:
		break;
	}
	return x->task->comm;
}

/* --- creation and exit ------------------------------------------------------------- */

static void task_main(void *arg);

struct task_struct *sim_task_create(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	struct task_struct *p;

	if (sim.cfg.max_tasks && sim.stats.tasks >= sim.cfg.max_tasks)
		return NULL;
	p = task_alloc();
	if (!p)
		abort();
	if (coro_pool_get(&sim.stacks, &p->ctx.coro, sim.cfg.stack_size)) {
		free(p);	/* the host has no mapping left: as if max_tasks */
		return NULL;
	}
	sim_footprint_touch(SIM_FP_TASKS, true);	/* pids go by creation order */
	p->__state = TASK_UNINTERRUPTIBLE;	/* a new kthread sleeps until first woken */
	p->flags = PF_KTHREAD | PF_NOFREEZE;
	p->pid = sim.next_pid++;
	/* as snprintf("%s") would, without printf's cost: p is zeroed, the last byte stays 0 */
	strncpy(p->comm, name, sizeof(p->comm) - 1);
	/*
	 * Interned from name where it is all of comm: the name is at the same
	 * address run after run (sim_intern() knows it), the task, from the
	 * pool, is not always the same one.
	 */
	if (strnlen(name, sizeof(p->comm)) < sizeof(p->comm))
		p->comm_interned = sim_intern(name);
	p->threadfn = fn;
	p->data = arg;
	p->cpu = cpu >= 0 && cpu < sim.cfg.ncpus ? cpu : 0;
	p->bound_cpu = -1;
	init_completion(&p->exited);
	INIT_LIST_HEAD(&p->run_node);
	p->ctx.kind = CTX_TASK;
	p->ctx.task = p;
	coro_prepare(&p->ctx.coro, task_main, p);
	sim_owner_add_stack(&p->ctx);
	sim_owner_add_task(p);
	list_add_tail(&p->all_node, &sim.tasks);
	sim.stats.tasks++;
	sim_trace(REC_TASK_NEW, (uint64_t)p->pid, 0, 0, 0, sim_task_comm(p), NULL);
	return p;
}

static void task_main(void *arg)
{
	struct task_struct *p = arg;
	int ret = -EINTR;

	p->started = true;
	if (!p->should_stop)
		ret = p->threadfn(p->data);
	kthread_exit(ret);
}

/* --- run queues ---------------------------------------------------------------------- */

/*
 * __schedule()'s switch. The sched_switch event is recorded as the kernel
 * records it: by prev, with the run queue lock held (irqs off, preempt
 * depth 2), and "R+" for a preempted task.
 */
static void switch_task(struct sim_cpu *c, bool preempted)
{
	struct task_struct *prev = c->curr, *next = &c->idle;
	unsigned int count = c->preempt_count;
	bool irqs = c->irqs_disabled;

	/* c's own state is c's (the step's CPUs); the tasks are the wakers' too */
	sim_footprint_touch(prev, true);
	if (!(prev->flags & PF_IDLE))
		sim_fair_put_prev(c, prev, preempted);
	/* a CPU going down runs its stopper first, which pushes the queue away (hotplug.c) */
	if (!list_empty(&c->runqueue) && !c->dying) {
		next = list_first_entry(&c->runqueue, struct task_struct, run_node);
		list_del_init(&next->run_node);
	}
	c->need_resched = false;
	sim_footprint_touch(next, true);
	if (prev == next)
		return;
	/* the woken task runs after its wake-up, on whichever CPU it lands */
	if (!(next->flags & PF_IDLE))
		sim_handover(c, next->woken_at);
	c->irqs_disabled = true;
	c->preempt_count = (count & ~PREEMPT_MASK) | 2;
	sim_trace_on(c, REC_SCHED_SWITCH, (uint64_t)prev->pid, prev->__state, (uint64_t)next->pid,
		     preempted ? TRACE_SWITCH_PREEMPT : 0, sim_task_comm(prev),
		     sim_task_comm(next));
	c->irqs_disabled = irqs;
	if (!(prev->flags & PF_IDLE))
		prev->preempt_saved = count;
	c->preempt_count = next->preempt_saved;
	c->curr = next;
	if (next->flags & PF_IDLE) {
		c->depth = 0;
	} else {
		c->stack[0] = &next->ctx;
		c->depth = 1;
		next->ctx.cpu = c;
		next->cpu = c->id;
		next->nr_switches++;
	}
	c->clock += sim.cfg.costs.ctx_switch;
	c->slice_start = c->clock;
	c->sched_touch = c->clock;	/* the soft-lockup detector's touch (oracle.c) */
}

void sim_switch_task(struct sim_cpu *c)
{
	switch_task(c, false);
}

void sim_preempt_task(struct sim_cpu *c)
{
	sim_fair_enqueue(c, c->curr, false, c->clock);
	list_add_tail(&c->curr->run_node, &c->runqueue);
	switch_task(c, true);
}

static bool cpu_idle(const struct sim_cpu *c)
{
	return (c->curr->flags & PF_IDLE) && list_empty(&c->runqueue);
}

/*
 * select_fallback_rq() (kernel/sched/core.c:3472 in 6.12, :3450 in 6.1):
 * p may not run where it is allowed, its CPU having gone down. A kthread
 * bound there (nr_cpus_allowed 1) finds no allowed CPU online, and
 * do_set_cpus_allowed(p, task_cpu_possible_mask(p)) widens it to every
 * CPU for good: "CPU affinity gets lost when it is scheduled on an offline
 * CPU" (kernel/kthread.c:947 in 6.12, :928 in 6.1). It goes to the first
 * active CPU of its node (all CPUs are node 0 here), and tells no one: a
 * kthread has no mm for "no longer affine to cpu%d".
 */
static struct sim_cpu *fallback_cpu(struct task_struct *p)
{
	if (p->bound_cpu >= 0 && !sim_cpu_active(&sim.cpus[p->bound_cpu]))
		p->bound_cpu = -1;
	return sim_first_active_cpu();
}

/*
 * select_task_rq: the preferred CPU first, then the others in order; only
 * active CPUs are offered (is_cpu_allowed()), and a task whose CPUs are all
 * gone falls back (core.c:3568 in 6.12: select_fallback_rq(task_cpu(p), p)).
 */
static struct sim_cpu *select_cpu(struct task_struct *p)
{
	int order[SIM_MAX_CPUS], n = 0, pref = p->cpu;

	if (p->bound_cpu >= 0)
		return sim_cpu_active(&sim.cpus[p->bound_cpu]) ? &sim.cpus[p->bound_cpu] :
								  fallback_cpu(p);
	if (!sim_cpu_active(&sim.cpus[pref]))
		pref = sim_first_active_cpu()->id;
	if (!cpu_idle(&sim.cpus[pref])) {
		for (int i = 0; i < sim.cfg.ncpus; i++) {
			if (sim_cpu_active(&sim.cpus[i]) && cpu_idle(&sim.cpus[i])) {
				pref = i;
				break;
			}
		}
	}
	order[n++] = pref;
	for (int i = 0; i < sim.cfg.ncpus; i++)
		if (i != pref && sim_cpu_active(&sim.cpus[i]))
			order[n++] = i;
	return &sim.cpus[order[sim_choose_among((unsigned int)n, SIM_WHY_PLACE, order)]];
}

/*
 * wakeup_preempt(): whether p, just queued on c, preempts the task running
 * there. The idle task always yields. Between two tasks of the fair class
 * the kernel can go either way, and which way rests on state the machine
 * does not keep (each task's lag and virtual deadline, or vruntime), so it
 * is a decision. Its first answer is the kernel's usual one for equal-weight
 * nice-0 tasks, by the era's rule (sched_fair.c):
 * - 6.6+ (EEVDF, check_preempt_wakeup_fair): with RUN_TO_PARITY the running
 *   task keeps the CPU until the deadline it was picked with is reached
 *   (protect_slice); after it, a wakee that slept with zero lag has the
 *   earlier deadline and wins. Zero lag is the common case: a task that
 *   ran alone on its CPU has none, and one that ran more than its share
 *   stays queued until it is eligible and then leaves with none
 *   (DELAY_DEQUEUE, DELAY_ZERO). The other answer is the wakee that slept
 *   with lag in hand (it preempts at once), or a running task whose
 *   deadline still comes first.
 * - 4.9 and 6.1 (CFS, check_preempt_wakeup): the wakee preempts when the
 *   running task's vruntime leads its own by more than the wakeup
 *   granularity; a wakee that slept gets sleeper credit (up to half a
 *   latency period), and a task that never ran starts a slice behind
 *   (START_DEBIT). The other answer covers what the machine approximates
 *   (min_vruntime's progress while the wakee slept).
 * The answer sets need_resched (resched_curr) or not; when it is honoured is
 * the preemption model's business (enter_cpu): under full at the next point
 * with preemption enabled (preempt_enable, the irq exit), under voluntary
 * at might_sleep and cond_resched, under none only at cond_resched or when
 * the running task blocks.
 */
static void wakeup_preempt(struct sim_cpu *c, const struct task_struct *p)
{
	uint64_t now = c->clock > p->woken_at ? c->clock : p->woken_at;
	int about[2] = { c->id, c->id };
	bool preempt;

	/* the idle task, and one that is exiting, leave whatever the wakee is */
	if ((c->curr->flags & PF_IDLE) || (c->curr->flags & PF_EXITING) ||
	    c->need_resched) {
		c->need_resched = true;
		return;
	}
	preempt = sim_fair_wakeup_preempt(c, p, now);
	if (sim_choose_among(2, SIM_WHY_WAKE, about))
		preempt = !preempt;
	c->need_resched = preempt;
}

/*
 * The dying CPU c is left with nothing to run. 6.1+ balance_push()
 * (kernel/sched/core.c:7952 in 6.12, :9275 in 6.1) pushes the running task
 * away once the CPU is inactive and its stopper has preempted it, and each
 * queued task as it would come up; 4.9's migrate_tasks() moves them all
 * from sched_cpu_dying(). Either way each lands where select_fallback_rq()
 * sends it, queued there after what the dying CPU did (move_queued_task()
 * then wakeup_preempt()), and a bound kthread has lost its CPU for good.
 */
void sim_push_tasks(struct sim_cpu *c)
{
	struct task_struct *p, *n;
	LIST_HEAD(out);

	list_splice_init(&c->runqueue, &out);
	if (!(c->curr->flags & PF_IDLE)) {
		struct task_struct *prev = c->curr;

		switch_task(c, true);	/* c->dying: the idle task (the stopper's place) */
		list_add(&prev->run_node, &out);
	}
	list_for_each_entry_safe(p, n, &out, run_node) {
		struct sim_cpu *to = fallback_cpu(p);

		list_del_init(&p->run_node);
		sim_footprint_touch(p, true);
		sim_footprint_cpu(to);
		/*
		 * Moved at the dying CPU's time, runnable since its wake-up:
		 * one queued from a CPU ahead of c (within the skew) was woken
		 * after c's clock, and may not run before that on 'to' either.
		 */
		if (p->woken_at < c->clock)
			p->woken_at = c->clock;
		p->cpu = to->id;
		list_add_tail(&p->run_node, &to->runqueue);
		/* migrated, not woken: its place on the new CPU's timeline, its request kept */
		sim_fair_enqueue(to, p, false, p->woken_at);
		if (to->curr->flags & PF_IDLE)
			sim_handover(to, p->woken_at);
		wakeup_preempt(to, p);
	}
}

/*
 * try_to_wake_up(). A wake-up from the machine's own event (a thread that
 * starts, an alarm) has no CPU of its own: the CPU it targets takes it, as
 * it would the IPI, at the event's time or its own if later, and it is
 * traced there, so no CPU's stream of records goes back in time.
 */
bool sim_wake(struct task_struct *p, unsigned int state)
{
	struct sim_cpu *c;
	int prev = p->cpu;

	sim_footprint_touch(p, true);
	if (!(p->__state & state))
		return false;
	/* still on its CPU, between set_current_state and schedule: it stays there */
	c = p->on_rq ? &sim.cpus[p->cpu] : select_cpu(p);
	p->woken_at = sim_now();
	if (sim.in_event) {
		sim_handover(c, p->woken_at);
		p->woken_at = c->clock;
		sim_trace_on(c, REC_SCHED_WAKING, (uint64_t)p->pid, (uint64_t)prev, 0, 0,
			     sim_task_comm(p), NULL);
	} else {
		sim_trace(REC_SCHED_WAKING, (uint64_t)p->pid, (uint64_t)prev, 0, 0,
			  sim_task_comm(p), NULL);
	}
	p->__state = TASK_RUNNING;
	sim_footprint_cpu(c);		/* its run queue, need_resched */
	if (p->on_rq)
		return true;
	sim_fair_enqueue(c, p, true, p->woken_at);	/* p->cpu: where it slept */
	p->cpu = c->id;
	p->on_rq = true;
	list_add_tail(&p->run_node, &c->runqueue);
	if (c->curr->flags & PF_IDLE)
		sim_handover(c, p->woken_at);	/* idle until now */
	/* resched_curr() for the idle task too: it shows 'N' until it switches */
	wakeup_preempt(c, p);
	return true;
}

int wake_up_state(struct task_struct *p, unsigned int state)
{
	/*
	 * A scenario's event may wake a task too; an event runs inside the
	 * machine's own choice, where there is no CPU to spend time on.
	 */
	if (!sim.in_event)
		sim_point(sim.cfg.costs.wakeup, POINT_PLAIN);
	return sim_wake(p, state);
}

int wake_up_process(struct task_struct *p)
{
	return wake_up_state(p, TASK_NORMAL);
}

/* --- sleeping ------------------------------------------------------------------------- */

void sim_set_current_state(unsigned int state, bool barrier)
{
	sim_footprint_touch(current, true);	/* a waker reads it */
	current->__state = state;
	if (barrier)
		sim_point(sim.cfg.costs.point, POINT_PLAIN);
}

/*
 * __might_sleep() of CONFIG_DEBUG_ATOMIC_SLEEP, in both eras: the state
 * check is a WARN_ONCE (once a boot, whatever the site), and
 * __might_resched() (4.9: ___might_sleep()) reports at most once a second,
 * rate-limited by its static prev_jiffy; 6.x prints non_block and the
 * preempt count expected too. So a finding is a line dmesg would show.
 */
void sim_might_sleep(const struct sim_site *site)
{
	static unsigned int boot;
	static bool state_warned;
	static unsigned long prev_jiffy;
	struct sim_cpu *c = this_cpu();
	struct task_struct *p = current;
	char at[160] = "";

	if (boot != sim_boot_seq) {
		boot = sim_boot_seq;
		state_warned = false;
		prev_jiffy = 0;
	}
	if (p->__state != TASK_RUNNING && !state_warned) {
		state_warned = true;
		sim_report(SIM_F_MIGHT_SLEEP, site,
			   "do not call blocking ops when !TASK_RUNNING; state=%x", p->__state);
	}
	if ((c->preempt_count || c->irqs_disabled || top_ctx(c) != &p->ctx) &&
	    !(prev_jiffy && time_before(jiffies, prev_jiffy + HZ))) {
		prev_jiffy = jiffies;
		/*
		 * __might_sleep() names its file:line; a caller without a site has
		 * none to name. Written here, when it is said: every blocking call
		 * passes through, and formatting it each time was 3% of a run.
		 */
		if (site)
			snprintf(at, sizeof(at), " at %s:%d", site->file, site->line);
		if (sim_era_since(5, 15))	/* __might_resched() */
			sim_report(SIM_F_MIGHT_SLEEP, site,
				   "BUG: sleeping function called from invalid context%s\n"
				   "in_atomic(): %d, irqs_disabled(): %d, non_block: 0, pid: %d, "
				   "name: %s\npreempt_count: %x, expected: 0",
				   at, c->preempt_count != 0, c->irqs_disabled, p->pid, p->comm,
				   c->preempt_count);
		else
			sim_report(SIM_F_MIGHT_SLEEP, site,
				   "BUG: sleeping function called from invalid context%s\n"
				   "in_atomic(): %d, irqs_disabled(): %d, pid: %d, name: %s",
				   at, c->preempt_count != 0, c->irqs_disabled, p->pid, p->comm);
	}
	sim_point(sim.cfg.costs.point, POINT_MIGHT_SLEEP);
}

void sim_block(const char *what, const void *obj, const struct sim_site *site)
{
	struct sim_cpu *c = this_cpu();
	struct task_struct *p = c->curr;

	/*
	 * __schedule_bug(): the kernel prints this and goes on to switch away
	 * from the interrupt, which corrupts it; the machine cannot, and stops.
	 */
	if (c->depth != 1 || top_ctx(c) != &p->ctx) {
		sim_report(SIM_F_BUG, site, "BUG: scheduling while atomic: %s/%d/0x%08x", p->comm,
			   p->pid, c->preempt_count);
		sim_halt(SIM_END_FATAL);
		sim_exit_ctx();		/* the machine has halted: nothing is chosen again */
		__builtin_unreachable();
	}
	if (c->preempt_count)
		sim_report(SIM_F_MIGHT_SLEEP, site, "BUG: scheduling while atomic: %s/%d/0x%08x",
			   p->comm, p->pid, c->preempt_count);
	/* __schedule(): signal_pending_state() keeps an interruptible sleeper running */
	if ((p->__state & TASK_INTERRUPTIBLE) && signal_pending(p))
		p->__state = TASK_RUNNING;
	if (p->__state == TASK_RUNNING) {
		/* woken before it slept: it has seen the wake-up, so it comes after it */
		sim_handover(c, p->woken_at);
		/* nothing to sleep for: a voluntary yield if someone waits */
		sim_point(sim.cfg.costs.point, POINT_COND_RESCHED);
		return;
	}
	p->wait_what = what;
	p->wait_obj = obj;
	p->wait_site = site;
	p->on_rq = false;
	if (p->__state & TASK_UNINTERRUPTIBLE)
		sim_hung_watch(p);
	else
		p->blocked_since = sim_now();
	c->irqs_disabled = false;	/* the switch enables interrupts, as finish_task_switch does */
	sim_switch_task(c);
	sim_point(0, POINT_ATOMIC);
	p->wait_what = NULL;
	p->wait_obj = NULL;
	p->wait_site = NULL;
}

void sim_schedule(const struct sim_site *site)
{
	sim_block("schedule", NULL, site);
}

int sim_cond_resched(void)
{
	struct task_struct *p = current;
	uint64_t before = p->nr_switches;

	sim_point(sim.cfg.costs.point, POINT_COND_RESCHED);
	return p->nr_switches != before;
}

void yield(void)
{
	struct sim_cpu *c = this_cpu();

	c->need_resched = true;
	sim_point(sim.cfg.costs.point, POINT_COND_RESCHED);
}

/* --- the blocked-task report ---------------------------------------------------------- */

static bool task_blocked(const struct task_struct *p)
{
	return p->started && !p->on_rq && !p->frozen && (p->__state & TASK_UNINTERRUPTIBLE) &&
	       p->__state != TASK_DEAD;
}

bool sim_on_stack(const void *p)
{
	return sim_stack_owner_of(p);
}

/* Tags far from any user-space address and from the fake addresses. */
#define KEY_STACK	0xfffe000000000000ULL
#define KEY_TASK	0xfffd000000000000ULL
#define KEY_IRQ_FRAME	0xfffc000000000000ULL

bool sim_task_key(const void *p, uint64_t *key)
{
	const struct sim_owner *o = sim_owner_of(p);
	const struct sim_ctx *x;

	if (!o)
		return false;
	if (o->task) {
		*key = KEY_TASK | (uint64_t)o->task->pid << 32 | (uint64_t)((uintptr_t)p - o->lo);
		return true;
	}
	/*
	 * A whole stack is one object: where a slot falls differs between
	 * builds (sim_fake_addr_new()), and a search's answers must not.
	 */
	x = o->ctx;
	if (x->kind == CTX_TASK)
		*key = KEY_STACK | (uint64_t)x->task->pid << 32;
	else
		*key = KEY_IRQ_FRAME | (uint64_t)x->cpu->id << 33 |
		       (uint64_t)(x->kind == CTX_SOFTIRQ) << 32;
	return true;
}

bool sim_anyone_blocked(void)
{
	struct task_struct *p;
	struct sim_cpu *c;

	list_for_each_entry(p, &sim.tasks, all_node)
		if (task_blocked(p))
			return true;
	for_each_sim_cpu(c)
		for (int i = 0; i < c->depth; i++)
			if (c->stack[i]->wait == WAIT_SPIN)
				return true;
	return false;
}

/*
 * " during NOTE": the caller's words for the blocked call (a scenario line),
 * unless the site already names that line.
 */
static const char *during(struct sim_ctx *x, const struct sim_site *site)
{
	static char buf[128];
	const char *note = sim_ctx_note(x);
	char at[96];

	if (!note[0])
		return "";
	if (site) {
		snprintf(at, sizeof(at), "%s:%d", site->file, site->line);
		if (!strcmp(at, note))
			return "";
	}
	snprintf(buf, sizeof(buf), " during %s", note);
	return buf;
}

struct sim_ctx *sim_first_blocked(void)
{
	struct task_struct *p;
	struct sim_cpu *c;

	for_each_sim_cpu(c)
		for (int i = 0; i < c->depth; i++)
			if (c->stack[i]->wait == WAIT_SPIN)
				return c->stack[i];
	list_for_each_entry(p, &sim.tasks, all_node)
		if (task_blocked(p))
			return &p->ctx;
	return NULL;
}

/*
 * One line per blocked context, each at its own blocked call: its site and
 * what its caller was doing there, not what ran last.
 */
void sim_report_blocked(char *buf, size_t len)
{
	struct task_struct *p;
	struct sim_cpu *c;
	size_t n = 0;

#define APPEND(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	buf[0] = '\0';
	for_each_sim_cpu(c) {
		for (int i = 0; i < c->depth; i++) {
			struct sim_ctx *x = c->stack[i];
			struct sim_site where;

			if (x->wait != WAIT_SPIN)
				continue;
			sim_ctx_site(x, &where);
			APPEND("\n  cpu%d: %s spins in %s on %s%s", c->id, sim_ctx_name(x),
			       x->spin_obj->what, sim_spin_obj_name(x->spin_obj),
			       sim_spin_owner_text(x->spin_obj));
			if (where.file)
				APPEND(" (%s at %s:%d)", where.func, where.file, where.line);
			APPEND("%s", during(x, where.file ? &where : NULL));
		}
	}
	list_for_each_entry(p, &sim.tasks, all_node) {
		if (!task_blocked(p))
			continue;
		APPEND("\n  %s:%d sleeps in %s", p->comm, p->pid, p->wait_what ? p->wait_what : "schedule");
		if (p->wait_site)
			APPEND(" (%s at %s:%d)", sim_unprefix(p->wait_site->func), p->wait_site->file,
			       p->wait_site->line);
		APPEND("%s since %llu ns", during(&p->ctx, p->wait_site),
		       (unsigned long long)p->blocked_since);
	}
#undef APPEND
}
