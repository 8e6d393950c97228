/*
 * The scheduling loop. Every scheduling point of every context ends in
 * switch_to(pick_next()): pick_next() says what runs next and the running
 * context switches straight to it. Contexts hand the machine to each other
 * without a detour through the host, so a decision costs one switch.
 *
 * pick_next() keeps time honest: an event fires only when no CPU that could
 * act has a local clock before it (a CPU's own tick fires as soon as that
 * CPU's clock reaches it), and the candidates a strategy sees are ordered so
 * that answer 0 is always the time-faithful one.
 *
 * Time is causal: whatever one context hands to another (a lock, a wake-up,
 * a completion, a timer's expiry) carries the sender's clock, and
 * sim_handover() moves the receiver's clock to at least that; and no
 * strategy may run a CPU whose clock is more than cfg.skew_ns ahead of the
 * earliest ready CPU's, so what a CPU reads from another without a hand-over
 * (a lockless READ_ONCE) comes from at most that far in its future.
 *
 * The scheduler's own choices are decisions too, made where the kernel
 * makes them: where a woken task goes and whether it preempts the running
 * one (sim_wake() and wakeup_preempt() in task.c), which spinner takes an
 * unfair spinlock (lock.c). A preemption decided at a wake-up only sets
 * need_resched; enter_cpu() honours it where the preemption model lets the
 * running task go (preemptible()), or the task keeps the CPU until it
 * sleeps or yields. Spinners are woken one at a time, in the order they
 * began to spin (sim_spinners()), never all at once.
 */
#include "machine.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim sim;

static sigjmp_buf fatal_jump;

/*
 * The skew window's default, 20 us, is what a real machine's CPUs show
 * against each other at this granularity: one CPU's progress relative to
 * another's is perturbed by an interrupt and its softirq (a few to ~20 us
 * with the timer softirq's callbacks), cache-line transfers (~0.1 us each)
 * and frequency differences, so two steps on different CPUs closer than that
 * can happen in either order on hardware; further apart, only a CPU stopped
 * from outside (an SMI, a preempted vCPU: skew = unbounded) reorders them.
 * The returned bound is inclusive; it saturates for an unbounded skew.
 */
static uint64_t skew_horizon(uint64_t earliest)
{
	uint64_t skew = sim.cfg.skew_ns;

	return skew > UINT64_MAX - earliest ? UINT64_MAX : earliest + skew;
}

/* Run a due event on the machine's own stack; no CPU is current meanwhile. */
static void fire(struct sim_event *ev)
{
	sim_event_unlink(ev);
	sim_footprint_global();		/* when it fires hangs on every CPU's clock */
	sim.stats.events++;
	sim.ev_data = ev->data;
	sim.ev_time = ev->time;
	sim.in_event = true;
	ev->fn(ev->arg);
	sim.in_event = false;
	sim_event_free(ev);
}

/* Whether CPU c has something to do, and from when. In pick_next()'s loop: inline. */
static inline __attribute__((always_inline)) bool cpu_ready(struct sim_cpu *c, uint64_t *when)
{
	struct sim_ctx *t = top_ctx(c);

	*when = c->clock;
	if (c->offline)
		return false;
	if (sim_irq_deliverable(c) || sim_softirq_runnable(c))
		return true;
	if (!t)
		return !list_empty(&c->runqueue) || c->dying;	/* its stopper is due */
	switch (t->wait) {
	case WAIT_NONE:
		return true;
	case WAIT_DELAY:
		/* a stopper that may preempt the busy-wait comes now (hotplug.c) */
		if (t->delay_until > c->clock && !(c->dying && sim_hotplug_can_stop(c)))
			*when = t->delay_until;
		return true;
	case WAIT_SPIN:
		return false;
	}
	return false;
}

static bool preemptible(struct sim_cpu *c, enum sim_point_kind kind)
{
	struct sim_ctx *t = top_ctx(c);

	if (kind == POINT_ATOMIC || !t || t->kind != CTX_TASK)
		return false;
	if (c->preempt_count || c->irqs_disabled)
		return false;
	switch (sim.cfg.preempt) {
	case SIM_PREEMPT_FULL:
		return true;
	case SIM_PREEMPT_VOLUNTARY:
		return kind >= POINT_MIGHT_SLEEP;
	case SIM_PREEMPT_NONE:
		return kind == POINT_COND_RESCHED;
	}
	return false;
}

/*
 * sim_trace_watermark(): no record made from now on is older. A CPU with
 * something to do records at its clock or later. One with nothing to do
 * records nothing until someone wakes it at their own time, and sim_wake()
 * and the interrupt and tick events bring its clock up to that time first.
 * A CPU that was chosen counts until it runs: an idle one switches in its
 * next task, and records the switch, after the task left its run queue.
 * An event records at its own time; the machine itself (a deadlock's
 * report) at the latest clock. A spinning context, when it gets its lock,
 * records how long it spun: that names the time the spin began, until it
 * has run after its spin ended (it records first thing). Outside
 * sim_run() (setting up, leaks found at the end) nothing is bounded: 0.
 */
uint64_t sim_trace_watermark(void)
{
	struct sim_event *ev = sim_event_peek();
	uint64_t w = sim_max_time();
	struct sim_cpu *c;

	if (!sim.running)
		return 0;
	if (ev && ev->time < w)
		w = ev->time;
	if (sim.in_event && sim.ev_time < w)
		w = sim.ev_time;
	for_each_sim_cpu(c) {
		uint64_t when;

		if ((c == sim.entering || cpu_ready(c, &when)) && c->clock < w)
			w = c->clock;
		for (int i = 0; i < c->depth; i++)
			if ((c->stack[i]->wait == WAIT_SPIN || c->stack[i]->spin_woken) &&
			    c->stack[i]->spin_start < w)
				w = c->stack[i]->spin_start;
	}
	return w;
}

/*
 * A task was switched in on c. finish_task_switch() enables interrupts
 * before the task's first step, so a tick that fell due during the switch
 * (its cost) is taken there, in the task's context, before the task goes on
 * (issue 19.15: it waited for the task's first interrupts-off section to
 * end). Nothing runs in between, so there is no step for it to wait.
 */
static struct sim_ctx *switched_in(struct sim_cpu *c)
{
	struct sim_ctx *t = top_ctx(c);

	if (!t)
		return NULL;
	if (c->tick && c->tick->time <= c->clock)
		fire(c->tick);
	if (sim_irq_deliverable(c))
		return sim_enter_hardirq(c);
	if (sim_softirq_runnable(c))
		return sim_enter_softirq(c);
	/* one preempted in a busy-wait (hotplug.c) goes on when the wait ends: cpu_ready() */
	return t->wait == WAIT_DELAY ? NULL : t;
}

/* Decide which context of CPU c runs now; c was just chosen to advance. */
static struct sim_ctx *enter_cpu(struct sim_cpu *c)
{
	struct sim_ctx *t = top_ctx(c);
	bool irq = sim_irq_deliverable(c);
	bool soft = !irq && sim_softirq_runnable(c);

	/* An interrupt may wait one more step; the faithful answer takes it now. */
	int about[2] = { c->id, c->id };

	if ((irq || soft) && !(t && t->wait == WAIT_NONE && sim_choose_among(2, SIM_WHY_IRQ, about)))
		return irq ? sim_enter_hardirq(c) : sim_enter_softirq(c);
	if (!t) {
		if (c->dying) {
			sim_hotplug_take_down(c);
			return NULL;
		}
		sim_switch_task(c);
		return switched_in(c);
	}
	/* going down: the stopper preempts the task where the model lets it (hotplug.c) */
	if (c->dying && sim_hotplug_can_stop(c)) {
		sim_hotplug_take_down(c);
		return NULL;
	}
	if (t->wait == WAIT_DELAY) {
		if (c->clock < t->delay_until)
			c->clock = t->delay_until;
		t->wait = WAIT_NONE;
	}
	/*
	 * The scheduler tick: a task that has had its share while others wait
	 * is due to yield (the era's rule, sched_fair.c), so a task that never
	 * sleeps cannot starve the run queue. Where it may yield still depends
	 * on the preemption model.
	 */
	if (t->kind == CTX_TASK && sim_fair_tick_resched(c))
		c->need_resched = true;
	if (t->kind == CTX_TASK && c->need_resched && c->preemptible_point &&
	    !list_empty(&c->runqueue)) {
		sim_preempt_task(c);
		return switched_in(c);
	}
	return t;
}

static void finish(enum sim_end end)
{
	sim.stop = true;
	sim.end = end;
}

static void end_quiet(void)
{
	struct sim_site site;
	struct sim_ctx *first;
	char buf[2048];

	if (!sim_anyone_blocked()) {
		finish(SIM_END_QUIESCENT);
		return;
	}
	/*
	 * Nothing runs: the finding is about the blocked, the first of them
	 * for its context and site, never about whatever ran last.
	 */
	first = sim_first_blocked();
	if (first->kind == CTX_TASK && first->task->wait_site)
		site = *first->task->wait_site;
	else
		sim_ctx_site(first, &site);
	sim_report_blocked(buf, sizeof(buf));
	/*
	 * The machine reports at the latest clock (the finding's time): its
	 * record goes on the blocked one's CPU, whose clock may lag behind the
	 * watermark already promised.
	 */
	sim_handover(first->cpu, sim_max_time());
	sim_report_for(first, SIM_F_DEADLOCK, site.file ? &site : NULL,
		       "deadlock: nothing can run and nothing is pending%s", buf);
	finish(SIM_END_DEADLOCK);
}

/* The context to run next, or NULL when the machine has ended. */
static struct sim_ctx *pick_next(void)
{
	struct sim_cand cand[SIM_MAX_CPUS];
	struct sim_cpu *c;
	struct sim_ctx *x;

	if (sim.cfg.on_point)
		sim.cfg.on_point(sim.cfg.on_point_arg);

	/* a bound on work, not on time: a livelock burns virtual time slowly */
	if (sim.cfg.max_steps && sim.stats.points >= sim.cfg.max_steps)
		finish(SIM_END_STEP_LIMIT);
	while (!sim.stop) {
		struct sim_event *ev = sim_event_peek();
		uint64_t limit = sim.cfg.time_limit_ns, horizon;
		unsigned int n = 0, nready, k;
		/* for_each_sim_cpu()'s end, read once: the compiler read it at every CPU */
		struct sim_cpu *end = sim.cpus + sim.cfg.ncpus;

		for (c = sim.cpus; c < end; c++) {
			uint64_t when;
			unsigned int i;

			if (!cpu_ready(c, &when))
				continue;
			/* insertion by (when, cpu id); CPUs come in id order already */
			for (i = n; i > 0 && cand[i - 1].when > when; i--)
				cand[i] = cand[i - 1];
			cand[i].cpu = c;
			cand[i].when = when;
			n++;
		}
		if (!n && !sim.nlive_events) {
			end_quiet();
			break;
		}
		if (ev && (!n || ev->time <= cand[0].when)) {
			if (limit && ev->time > limit) {
				finish(SIM_END_TIME_LIMIT);
				break;
			}
			fire(ev);
			continue;
		}
		if (limit && cand[0].when > limit) {
			finish(SIM_END_TIME_LIMIT);
			break;
		}
		/* the skew window: only CPUs close enough to the earliest are choices */
		horizon = skew_horizon(cand[0].when);
		nready = n;
		while (n > 1 && cand[n - 1].when > horizon)
			n--;
		if (n > 1) {
			int ids[SIM_MAX_CPUS];
			const struct sim_site *sites[SIM_MAX_CPUS];

			for (unsigned int i = 0; i < n; i++)
				ids[i] = cand[i].cpu->id;
			/* only a chooser reads them */
			if (sim.cfg.chooser)
				for (unsigned int i = 0; i < n; i++) {
					struct sim_ctx *t = top_ctx(cand[i].cpu);

					sites[i] = t ? t->at : NULL;
				}
			k = sim_choose_at(n, SIM_WHY_CPU, ids, sim.cfg.chooser ? sites : NULL);
			sim_footprint_start();
		} else {
			k = 0;
		}
		if (sim.stop)
			break;
		c = cand[k].cpu;
		sim_footprint_step(c);
		/* held up before it goes on: its clock moved, and so may the order */
		if (sim_stall_may(c) && sim_stall(cand, nready, k))
			continue;
		c->stall_held = false;
		/*
		 * c's tick is due before the point c runs to: it takes it
		 * first, whatever the other CPUs' clocks (a CPU does not run
		 * past its own jiffy boundary with a timer due and irqs on).
		 */
		if (c->tick && c->tick->time <= cand[k].when)
			fire(c->tick);
		sim.entering = c;
		x = enter_cpu(c);
		sim.entering = NULL;
		if (x)
			return x;
	}
	return NULL;
}

static void switch_to(struct sim_ctx *to, int dying)
{
	struct sim_ctx *from = sim.cur;
	struct coro *fc = from ? &from->coro : &sim.host;

	/*
	 * Even with no switch to make, the CPU may have changed: an event
	 * inside pick_next() can wake the task that was blocking onto another
	 * CPU and pick it there at once.
	 */
	sim.cur_cpu = to ? to->cpu : NULL;
	if (to == from)
		return;
	sim.cur = to;
	sim.stats.switches++;
	coro_switch(fc, to ? &to->coro : &sim.host, dying);
}

void sim_point(uint64_t cost, enum sim_point_kind kind)
{
	struct sim_cpu *c = sim.cur_cpu;

	c->clock += cost;
	sim.stats.points++;
	c->preemptible_point = preemptible(c, kind);
	if (c->preemptible_point)
		c->sched_touch = c->clock;	/* the watchdog's stopper could run here */
	switch_to(pick_next(), 0);
}

bool sim_exit_ctx(void)
{
	struct sim_ctx *next = pick_next();

	/* An interrupt frame chosen again at once: its caller starts over in place. */
	if (next == sim.cur)
		return true;
	switch_to(next, 1);
	__builtin_trap();	/* nobody resumes a context that has exited */
}

void sim_halt(enum sim_end end)
{
	if (!sim.stop)
		finish(end);
}

/* The soft-lockup watchdog (oracle.c): a context that spins too long is stuck. */
static void lockup_check(void *arg)
{
	struct sim_ctx *x = arg;
	char what[256];
	unsigned int secs;

	if (x->wait != WAIT_SPIN || x->spin_seq != sim.ev_data)
		return;
	sim_softlockup_time(x->cpu->sched_touch, &secs);
	snprintf(what, sizeof(what), "%s spins in %s on %s%s", sim_ctx_name(x), x->spin_obj->what,
		 sim_spin_obj_name(x->spin_obj), sim_spin_owner_text(x->spin_obj));
	sim_softlockup_report(x->cpu, secs, what);
}

static void spin(struct sim_spin_obj *obj, bool again)
{
	struct sim_ctx *x = sim.cur;
	unsigned int secs;
	uint64_t lockup_at;

	x->wait = WAIT_SPIN;
	x->spin_obj = obj;
	if (!again)
		x->spin_start = x->cpu->clock;
	x->spin_seq++;
	x->spin_ticket = sim.spin_tickets++;
	obj->nspinners++;
	lockup_at = sim_softlockup_time(x->cpu->sched_touch, &secs);
	if (lockup_at) {
		struct sim_event *ev = sim_event_add(lockup_at, lockup_check, x, true);

		ev->data = x->spin_seq;
	}
	sim.stats.points++;
	x->cpu->preemptible_point = false;
	switch_to(pick_next(), 0);
	x->spin_woken = false;
}

void sim_spin_wait(struct sim_spin_obj *obj)
{
	spin(obj, false);
}

void sim_spin_wait_again(struct sim_spin_obj *obj)
{
	spin(obj, true);
}

unsigned int sim_spinners(const struct sim_spin_obj *obj, struct sim_ctx **out)
{
	unsigned int n = 0;
	struct sim_cpu *c;

	if (!obj->nspinners)
		return 0;
	for_each_sim_cpu(c) {
		for (int i = 0; i < c->depth; i++) {
			struct sim_ctx *x = c->stack[i];
			unsigned int k;

			if (x->wait != WAIT_SPIN || x->spin_obj != obj)
				continue;
			for (k = n; k > 0 && out[k - 1]->spin_ticket > x->spin_ticket; k--)
				out[k] = out[k - 1];
			out[k] = x;
			n++;
		}
	}
	return n;
}

void sim_spin_release_one(struct sim_spin_obj *obj, struct sim_ctx *x)
{
	sim_footprint_cpu(x->cpu);	/* the spinner's CPU can go on */
	x->wait = WAIT_NONE;
	x->spin_obj = NULL;
	x->spin_woken = true;
	obj->nspinners--;
	sim_handover(x->cpu, sim_now());	/* it spun until the release */
}

void sim_spin_release(struct sim_spin_obj *obj)
{
	struct sim_ctx *x[SIM_MAX_SPINNERS];
	unsigned int n = sim_spinners(obj, x);

	for (unsigned int i = 0; i < n; i++)
		sim_spin_release_one(obj, x[i]);
}

void sim_busy_wait(uint64_t ns)
{
	struct sim_ctx *x = sim.cur;

	x->wait = WAIT_DELAY;
	x->delay_until = x->cpu->clock + ns;
	sim.stats.points++;
	x->cpu->preemptible_point = preemptible(x->cpu, POINT_PLAIN);
	if (!x->cpu->preemptible_point)
		sim_softlockup_watch(x->cpu);
	switch_to(pick_next(), 0);
}

/* The access comes after the point: it is the next step's. */
void sim_once(const volatile void *p, int write, const struct sim_site *site)
{
	struct sim_ctx *x = sim.cur;

	if (!x)
		return;
	x->at = site;
	sim_point(sim.cfg.costs.point, POINT_PLAIN);
	x->at = NULL;
	sim_footprint_touch((const void *)p, write);
	if (sim.cfg.on_rf) {
		if (write)
			sim_rf_write((const void *)p, site);
		else
			sim_rf_read((const void *)p, site, SIM_RF_ONCE);
	}
}

/* --- hung tasks -------------------------------------------------------------- */

static void hung_check(void *arg);

void sim_hung_watch(struct task_struct *p)
{
	struct sim_event *ev;

	p->blocked_since = sim_now();
	p->sleep_seq++;
	if (!sim.cfg.hung_task_ns)
		return;
	ev = sim_event_add(p->blocked_since + sim.cfg.hung_task_ns, hung_check, p, true);
	ev->data = p->sleep_seq;
}

static void hung_check(void *arg)
{
	struct task_struct *p = arg;

	if (p->on_rq || p->frozen || !(p->__state & TASK_UNINTERRUPTIBLE))
		return;
	if (p->sleep_seq != sim.ev_data)
		return;
	sim_report(SIM_F_HUNG, p->wait_site,
		   "INFO: task %s:%d blocked for more than %llu seconds (waiting on %s)",
		   p->comm, p->pid, (unsigned long long)(sim.cfg.hung_task_ns / 1000000000ULL),
		   p->wait_what ? p->wait_what : "nothing known");
}

/* --- fatal faults: guard pages, freed memory, the NULL page -------------------- */

static char fault_msg[512];
static struct sim_site fault_site;	/* where the faulting context was (sim_ctx_site) */
static struct sim_ctx *fault_ctx;
static uint64_t fault_after;		/* a freed block's: its free's time and CPU */
static uint16_t fault_after_cpu;
static struct sigaction host_action[2];	/* SIGSEGV, SIGBUS: what the host had */
static bool handler_installed;		/* the process's handlers are on_fault */
static bool altstack_set;

/*
 * An access within the page at address 0 is a member of a structure
 * reached through a NULL pointer: the kernel's oops (arch/x86/mm/fault.c,
 * show_fault_oops(): "kernel NULL pointer dereference" below PAGE_SIZE),
 * which kills the task with whatever it held, so the machine stops as it
 * does for BUG(). The kernel also prints the address; the machine does
 * not: which member a NULL structure is first touched at is the compiler's
 * order of accesses (-O0 and -O2 differ), and a finding must be the same
 * in every build.
 */
#define NULL_PAGE_END	4096

static bool null_deref(const void *addr, const struct sim_ctx *x)
{
	const struct task_struct *t = x->kind == CTX_TASK ? x->task : x->cpu->curr;

	if ((uintptr_t)addr >= NULL_PAGE_END)
		return false;
	snprintf(fault_msg, sizeof(fault_msg),
		 "BUG: kernel NULL pointer dereference\n"
		 "  Oops in %s by task %s/%d%s%s%s on CPU %d",
		 fault_site.func ? fault_site.func : "an unknown function", t->comm, t->pid,
		 x->kind == CTX_TASK ? "" : " (", x->kind == CTX_TASK ? "" : sim_ctx_name(x),
		 x->kind == CTX_TASK ? "" : ")", x->cpu->id);
	return true;
}

/*
 * Not a fault the machine explains: hand it to whoever handled it before
 * (the sanitizer's report, or the default core dump). Returning re-executes
 * the faulting access under the restored handler.
 */
static void pass_on(int sig, const siginfo_t *si)
{
	sigaction(SIGSEGV, &host_action[0], NULL);
	sigaction(SIGBUS, &host_action[1], NULL);
	handler_installed = false;
	if (si->si_code <= 0)	/* sent, not raised by an access: nothing re-executes */
		raise(sig);
}

/*
 * What the machine knows of a touch of addr by the running context x: a
 * guard page, a freed block, the NULL page. Sets the finding's message,
 * kind and site; false if none of these.
 */
static bool explain(const void *addr, struct sim_ctx *x)
{
	/* the finding names the model function that touched, as far as the machine knows */
	sim_ctx_site(x, &fault_site);
	if (coro_in_guard(&x->coro, addr)) {
		snprintf(fault_msg, sizeof(fault_msg), "stack overflow in %s (guard page hit)",
			 sim_ctx_name(x));
		sim.fault_kind = SIM_F_STACK_OVERFLOW;
		fault_after = fault_after_cpu = 0;
	} else if (sim_slab_fault(addr, fault_site.func, x, fault_msg, sizeof(fault_msg),
				  &fault_after, &fault_after_cpu)) {
		sim.fault_kind = SIM_F_UAF;
	} else if (null_deref(addr, x)) {
		sim.fault_kind = SIM_F_BUG;
		fault_after = fault_after_cpu = 0;
	} else {
		return false;
	}
	return true;
}

/* The context that touched ends here; sim_run() reports it and stops. */
static __attribute__((noreturn)) void fatal(struct sim_ctx *x)
{
	fault_ctx = x;
	coro_abandon(&x->coro, &sim.host);
	siglongjmp(fatal_jump, 1);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct sim_ctx *x = sim.cur;

	(void)uc;
	/*
	 * A signal sent (kill(), sigqueue()) is no access: its si_addr is the
	 * sender's pid and uid, which a small pid would make the NULL page.
	 */
	if (si->si_code <= 0 || !sim.running || !x || !explain(si->si_addr, x)) {
		pass_on(sig, si);
		return;
	}
#ifdef KWSIM_KASAN_VERIFY
	/*
	 * A build that keeps the page guard beside the check (slab.c): the
	 * check comes first at every access it covers, so a fault on a freed
	 * page is an access it does not cover (docs/development.md).
	 */
	if (sim.fault_kind == SIM_F_UAF) {
		fprintf(stderr, "KASAN-VERIFY: use after free caught by the fault, not the check\n%s\n", fault_msg);
		abort();
	}
#endif
	fatal(x);
}

/*
 * An instrumented access of freed memory (kasan.c): the same finding as
 * the fault on its page. Outside a run nothing explains it, and the fault
 * it would have been ends the process as one does (pass_on()).
 */
void sim_bad_access(const void *addr)
{
	struct sim_ctx *x = sim.cur;

	if (!sim.running || !x || !explain(addr, x)) {
		sim_fault_handler_remove();
		raise(SIGSEGV);
		return;
	}
	fatal(x);
}

/*
 * Installed by the first run of a machine and kept through its resets, so
 * that a run costs no system call for it: between runs it passes every
 * fault on (sim.running is false). The signal stack is the process's, set
 * once.
 */
static void install_fault_handler(void)
{
	static char altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;

	if (handler_installed)
		return;
	if (!altstack_set) {
		sigaltstack(&ss, NULL);
		altstack_set = true;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &host_action[0]);
	sigaction(SIGBUS, &sa, &host_action[1]);
	handler_installed = true;
}

void sim_fault_handler_remove(void)
{
	if (!handler_installed)
		return;
	sigaction(SIGSEGV, &host_action[0], NULL);
	sigaction(SIGBUS, &host_action[1], NULL);
	handler_installed = false;
}

enum sim_end sim_run(void)
{
	struct sim_ctx *to;

	if (sim.running || sim.stop)
		return sim.end;
	install_fault_handler();
	sim.running = true;
	sim_list_watch = sim.cfg.on_list;
	sim_list_watch_arg = sim.cfg.on_list_arg;
	/*
	 * No mask to save: on_fault runs with SA_NODEFER and an empty sa_mask,
	 * so the mask its siglongjmp leaves is the one the run had.
	 */
	if (sigsetjmp(fatal_jump, 0)) {
		coro_abandoned();
		sim.entering = NULL;
		/* the finding names the faulting context, its CPU and its time */
		sim.cur = fault_ctx;
		sim.cur_cpu = fault_ctx->cpu;
		sim_report_after(fault_after, fault_after_cpu, sim.fault_kind,
				 fault_site.func ? &fault_site : NULL, "%s", fault_msg);
		sim.in_event = false;
		sim.cur = NULL;
		sim.cur_cpu = NULL;
		finish(SIM_END_FATAL);
	} else {
		sim.cur = NULL;
		to = pick_next();
		switch_to(to, 0);
	}
	sim.running = false;
	sim_list_watch = NULL;
	sim_list_watch_arg = NULL;
	/*
	 * A run that ended without being cut short (by the decision limit or a
	 * fault) with log left over did not follow the log: a deadlock or the
	 * time limit reached early is no reproduction either.
	 */
	if ((sim.end == SIM_END_QUIESCENT || sim.end == SIM_END_DEADLOCK ||
	     sim.end == SIM_END_TIME_LIMIT) && sim_replay_unfinished())
		sim.end = SIM_END_DIVERGED;
	if (sim.end != SIM_END_FATAL && sim.end != SIM_END_DIVERGED)
		sim_slab_check_leaks();
	return sim.end;
}

const char *sim_end_name(enum sim_end end)
{
	static const char *const names[] = {
		[SIM_END_QUIESCENT] = "quiescent",
		[SIM_END_DEADLOCK] = "deadlock",
		[SIM_END_FATAL] = "fatal",
		[SIM_END_TIME_LIMIT] = "time-limit",
		[SIM_END_DECISION_LIMIT] = "decision-limit",
		[SIM_END_STEP_LIMIT] = "step-limit",
		[SIM_END_DIVERGED] = "diverged",
	};
	return end < sizeof(names) / sizeof(names[0]) ? names[end] : "?";
}

void sim_get_stats(struct sim_stats *st)
{
	*st = sim.stats;
}
