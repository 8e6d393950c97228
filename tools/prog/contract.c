/*
 * The kthread_worker API's contract, as a check over a generated program:
 * which rules a program breaks (kp_contract), which an inserted statement
 * would break (kp_stmt_breaks), and the order a teardown can quiesce its
 * works and timers in (kp_quiesce_order). Each rule, the kernel-doc
 * sentence or comment it comes from, and the scenario that shows what
 * breaking it does: tools/prog/CONTRACT.md.
 *
 * The check is conservative: 0 means no run of the program can break a
 * rule, whatever the schedule. Where telling a safe use from a harmful one
 * would need the schedule (is the work idle when it is re-initialised?),
 * the check asks for a shape that is safe in every schedule instead (the
 * re-initialising thread cancels it first and is the only one using it).
 */
#include "prog/prog.h"

#include <string.h>

static const struct kp_rule_info rules[KP_RULE__COUNT] = {
	[KP_RULE_ONE_WORKER] = {
		"one-worker", "a work is used with one worker only",
		"kernel/kthread.c, kthread_worker_fn() kernel-doc (4.9 .. 6.12): \"Also the works "
		"must not be handled by more than one worker at the same time, see also "
		"kthread_queue_work().\"" },
	[KP_RULE_DELAYED_CANCEL] = {
		"delayed-api", "a delayed work is cancelled with kthread_cancel_delayed_work_sync() "
		"and queued with the delayed calls; a plain work gets no delayed call",
		"kernel/kthread.c, kthread_cancel_work_sync() kernel-doc (4.9 .. 6.12): "
		"\"kthread_cancel_work_sync(&delayed_work->work) must not be used for "
		"delayed_work's. Use kthread_cancel_delayed_work_sync() instead.\"" },
	[KP_RULE_DESTROY_ARMED] = {
		"destroy-armed", "no delayed work of a worker is armed when it is destroyed (or "
		"stopped), and nothing queues on it once that has begun",
		"kernel/kthread.c, kthread_destroy_worker() kernel-doc (6.12): \"Note that this "
		"function is not responsible for handling delayed work, so caller should be "
		"responsible for queuing or canceling all delayed work items before invoke this "
		"function.\"" },
	[KP_RULE_USE_AFTER_DESTROY] = {
		"use-after-destroy", "nothing uses a worker while or after it is destroyed: only "
		"the teardown destroys, once, after everything else",
		"kernel/kthread.c, kthread_cancel_work_sync() kernel-doc (4.9 .. 6.12): \"The "
		"caller must ensure that the worker on which @work was last queued can't be "
		"destroyed before this function returns.\"" },
	[KP_RULE_SLEEP_IN_ATOMIC] = {
		"sleep-in-atomic", "nothing sleeps or waits in atomic context (hard irq, timer "
		"callback, a spinlock held)",
		"include/linux/kernel.h, might_sleep() kernel-doc: \"this macro will print a stack "
		"trace if it is executed in an atomic context (spinlock, irq-handler, ...).\"; "
		"kthread_flush_work() and the cancels wait_for_completion(); kernel/time/timer.c, "
		"timer_delete_sync() (6.12): \"It must not be called from interrupt contexts "
		"unless the timer is an irqsafe one.\"" },
	[KP_RULE_SELF_WAIT] = {
		"self-wait", "a work does not flush or cancel-sync itself, flush a work of its "
		"own worker or that worker, and workers' works do not wait on each other in a "
		"cycle",
		"no kernel-doc sentence: kthread_worker_fn() runs one work at a time, so a work "
		"waiting for its own worker waits for itself (the workqueue analogue, a work "
		"flushing itself or its ordered queue, is what the lockdep maps taken in "
		"workqueue.c's __flush_work() and __flush_workqueue() report)" },
	[KP_RULE_REINIT_IN_USE] = {
		"reinit-in-use", "a work is re-initialised only when idle: by the one thread that "
		"uses it, right after cancelling it, with the init of its kind",
		"kernel/kthread.c, kthread_delayed_work_timer_fn() (4.9 .. 6.12): \"This might "
		"happen when a pending work is reinitialized. It means that it is used a wrong "
		"way.\"; kthread_queue_work() kernel-doc: \"Reinitialize the work if it needs to "
		"be used by another worker.\"" },
	[KP_RULE_LEGACY_DESTROY] = {
		"legacy-destroy", "a worker is torn down the way it was made: kthread_init_worker() "
		"+ kthread_run() with kthread_stop(), kthread_create_worker*() with "
		"kthread_destroy_worker()",
		"kernel/kthread.c, kthread_destroy_worker() kfree()s the worker that "
		"__kthread_create_worker() kzalloc()ed; kthread_worker_fn() kernel-doc: \"It "
		"processes work_list until it is stopped with kthread_stop().\"" },
	[KP_RULE_LEAK] = {
		"leak", "every worker is destroyed (or stopped) in the end",
		"kernel/kthread.c, kthread_create_worker() kernel-doc: \"Returns a pointer to the "
		"allocated worker\"; kthread_destroy_worker(): \"Flush and destroy @worker.\"" },
	[KP_RULE_TIMER_TEARDOWN] = {
		"timer-teardown", "a timer callback does not re-arm its own timer, so "
		"del_timer_sync() in the teardown stops it for good",
		"kernel/time/timer.c, timer_delete_sync() kernel-doc (6.12): \"Callers must prevent "
		"restarting of the timer, otherwise this function is meaningless.\"" },
	[KP_RULE_QUEUE_CYCLE] = {
		"queue-cycle", "no two works (or a work and a timer) whose functions queue or arm "
		"each other: no teardown order quiesces them",
		"kernel/kthread.c, kthread_cancel_work_sync() kernel-doc: \"This function can be "
		"used even if the work re-queues itself.\" (itself only); kthread_destroy_worker(): "
		"\"caller should be responsible for queuing or canceling all delayed work items\"" },
	[KP_RULE_LOCKING] = {
		"locking", "locks are not taken recursively, nest in one order, are irq-safe "
		"(softirq-safe) where a hard irq (timer callback) takes them, an unlock matches its "
		"lock, no section is left open, and no del_timer_sync() under a lock",
		"no kthread.c sentence: Documentation/locking/lockdep-design.rst's rules (\"A "
		"softirq-safe lock must never be taken with softirqs enabled\" and its hardirq "
		"twin; lock-order cycles); kthread_worker_fn() kernel-doc: \"The works are not "
		"allowed to keep any locks, disable preemption or interrupts when they finish.\"; "
		"timer_delete_sync() (6.12): \"The caller must not hold locks which would prevent "
		"completion of the timer's callback function.\"" },
	[KP_RULE_WAIT] = {
		"wait", "every wait ends: a completion is waited for only by threads and completed "
		"as often by threads or irqs that wait for nothing; sleeps and busy waits are "
		"short; a freezable worker's work does not wait during a suspend",
		"no kthread.c sentence: a wait nothing ends is the caller's hang, not the API's; "
		"kthread_worker_fn() kernel-doc: \"There is defined a safe point for freezing when "
		"one work finishes and before a new one is started.\"" },
};

const struct kp_rule_info *kp_rule_info(enum kp_rule rule)
{
	return (unsigned int)rule < KP_RULE__COUNT ? &rules[rule] : NULL;
}

#define BIT(r) (1ULL << (r))

enum ctx { CTX_PROC, CTX_SOFT, CTX_HARD };

static const struct kp_body *body_at(const struct kp *p, struct kp_where w)
{
	switch (w.kind) {
	case KP_IN_CTX:
		return w.index < KP_MAX_CTX ? &p->ctx[w.index].body : NULL;
	case KP_IN_WORK:
		return w.index < KP_MAX_WORKS ? &p->work[w.index].fn : NULL;
	case KP_IN_TIMER:
		return w.index < KP_MAX_TIMERS ? &p->timer[w.index].fn : NULL;
	}
	return NULL;
}

static enum ctx ctx_of(const struct kp *p, struct kp_where w)
{
	if (w.kind == KP_IN_TIMER)
		return CTX_SOFT;
	if (w.kind == KP_IN_CTX && p->ctx[w.index].kind == KP_IRQ)
		return CTX_HARD;
	return CTX_PROC;
}

static bool takes_work(uint8_t op)
{
	return op <= KP_CANCEL_DELAYED_WORK_SYNC && op != KP_FLUSH_WORKER ? true :
	       op == KP_INIT_WORK || op == KP_INIT_DELAYED_WORK;
}

/* Calls that may sleep or wait for another context. */
static bool waits(uint8_t op)
{
	switch (op) {
	case KP_FLUSH_WORK: case KP_FLUSH_WORKER: case KP_CANCEL_WORK_SYNC:
	case KP_CANCEL_DELAYED_WORK_SYNC: case KP_DESTROY_WORKER: case KP_STOP:
	case KP_MSLEEP: case KP_COND_RESCHED: case KP_WAIT: case KP_DEL_TIMER_SYNC:
		return true;
	}
	return false;
}

/* Calls that wait for a worker's work to finish (a wait edge between workers). */
static bool waits_for_worker(uint8_t op)
{
	return op == KP_FLUSH_WORK || op == KP_FLUSH_WORKER || op == KP_CANCEL_WORK_SYNC ||
	       op == KP_CANCEL_DELAYED_WORK_SYNC || op == KP_DESTROY_WORKER || op == KP_STOP;
}

/* The contract's bounds on a sleep and a busy wait (CONTRACT.md "wait"). */
#define KP_MAX_MSLEEP_MS	1000
#define KP_MAX_UDELAY_US	100000

/* Queue graph nodes: works, then timers. */
#define NODES (KP_MAX_WORKS + KP_MAX_TIMERS)

struct analysis {
	const struct kp *p;
	bool lenient_end;		/* an open lock section closes at its body's end */
	struct kp_where focus;		/* the statement whose own rules are wanted */
	int focus_pos;			/* -1: none */
	uint64_t focus_bits;
	uint64_t bits;
	bool qedge[NODES][NODES];	/* node's function queues or arms node */
	bool wedge[KP_MAX_WORKERS][KP_MAX_WORKERS];	/* a work of W waits for W' */
	bool nest[KP_MAX_LOCKS][KP_MAX_LOCKS];		/* L held while taking L' */
	bool used_hard[KP_MAX_LOCKS], used_soft[KP_MAX_LOCKS];
	bool irqs_on_use[KP_MAX_LOCKS];	/* taken somewhere with hard irqs enabled */
	bool bh_on_use[KP_MAX_LOCKS];	/* taken somewhere with softirqs enabled */
	unsigned int waits[KP_MAX_COMPLETIONS], completes[KP_MAX_COMPLETIONS];
	/* bodies (as where) that name each work, and that re-initialise it */
	unsigned int nusers[KP_MAX_WORKS];
	struct kp_where user[KP_MAX_WORKS][KP_MAX_CTX + KP_MAX_WORKS + KP_MAX_TIMERS];
	int reinit_in[KP_MAX_WORKS];	/* index into user[], -1: none */
};

static int node_of(struct kp_where w)
{
	if (w.kind == KP_IN_WORK)
		return (int)w.index;
	if (w.kind == KP_IN_TIMER)
		return KP_MAX_WORKS + (int)w.index;
	return -1;
}

static bool same_where(struct kp_where a, struct kp_where b)
{
	return a.kind == b.kind && a.index == b.index;
}

static void add_user(struct analysis *an, unsigned int b, struct kp_where w, bool reinit)
{
	unsigned int i;

	for (i = 0; i < an->nusers[b]; i++)
		if (same_where(an->user[b][i], w))
			break;
	if (i == an->nusers[b])
		an->user[b][an->nusers[b]++] = w;
	if (reinit)
		an->reinit_in[b] = (int)i;
}

struct held {
	uint8_t lock, how;
	bool irqs_off, bh_off;
};

/* A statement naming an object the program does not have: kp_normalize's to fix, no rule's. */
static bool out_of_range(const struct kp *p, const struct kp_stmt *s)
{
	if (takes_work(s->op) && s->b >= p->nworks)
		return true;
	if ((s->op == KP_QUEUE_WORK || s->op == KP_QUEUE_DELAYED_WORK ||
	     s->op == KP_MOD_DELAYED_WORK || s->op == KP_FLUSH_WORKER ||
	     s->op == KP_DESTROY_WORKER || s->op == KP_STOP) && s->a >= p->nworkers)
		return true;
	if ((s->op == KP_MOD_TIMER || s->op == KP_DEL_TIMER || s->op == KP_DEL_TIMER_SYNC) &&
	    s->a >= p->ntimers)
		return true;
	return (s->op == KP_COMPLETE || s->op == KP_WAIT) && s->a >= KP_MAX_COMPLETIONS;
}

/* kthread_flush_work, kthread_cancel_*_sync: the right kind, and who waits for whom. */
static uint64_t wait_work_rules(struct analysis *an, const struct kp_stmt *s, struct kp_where w,
				unsigned int own)
{
	const struct kp *p = an->p;
	uint64_t r = 0;

	if (s->op != KP_FLUSH_WORK &&
	    p->work[s->b].delayed != (s->op == KP_CANCEL_DELAYED_WORK_SYNC))
		r |= BIT(KP_RULE_DELAYED_CANCEL);
	if (w.kind == KP_IN_WORK) {
		unsigned int to = p->work[s->b].worker;

		if (s->b == w.index)
			r |= BIT(KP_RULE_SELF_WAIT);
		/* cancelling another work of its own worker waits for nothing */
		if (own < KP_MAX_WORKERS && to < KP_MAX_WORKERS &&
		    (s->op == KP_FLUSH_WORK || to != own))
			an->wedge[own][to] = true;
	}
	return r;
}

/* kthread_destroy_worker, kthread_stop: the right one, and nothing left armed. */
static uint64_t destroy_rules(struct analysis *an, const struct kp_stmt *s, bool in_work,
			      unsigned int own)
{
	const struct kp *p = an->p;
	uint64_t r = BIT(KP_RULE_USE_AFTER_DESTROY);

	if (p->worker[s->a].legacy != (s->op == KP_STOP))
		r |= BIT(KP_RULE_LEGACY_DESTROY);
	for (unsigned int i = 0; i < p->nworks; i++)
		if (p->work[i].worker == s->a && p->work[i].delayed)
			r |= BIT(KP_RULE_DESTROY_ARMED);
	if (in_work && own < KP_MAX_WORKERS)
		an->wedge[own][s->a] = true;
	return r;
}

/* kthread_init_*work on a work in use: only after this body cancelled it, in process context. */
static uint64_t reinit_rules(const struct kp *p, struct kp_where w, enum ctx ctx,
			     const struct kp_body *body, unsigned int pos)
{
	const struct kp_stmt *s = &body->s[pos];
	bool kind_ok = p->work[s->b].delayed == (s->op == KP_INIT_DELAYED_WORK);
	bool cancelled = false;

	/* the nearest earlier statement of this body naming the work cancels it */
	for (unsigned int i = pos; i-- > 0;) {
		const struct kp_stmt *t = &body->s[i];

		if (takes_work(t->op) && t->b == s->b) {
			cancelled = t->op == (p->work[s->b].delayed ?
					      KP_CANCEL_DELAYED_WORK_SYNC : KP_CANCEL_WORK_SYNC);
			break;
		}
	}
	if (!kind_ok || !cancelled || w.kind != KP_IN_CTX || ctx != CTX_PROC)
		return BIT(KP_RULE_REINIT_IN_USE);
	return 0;
}

/* spin_lock* on a lock in range: the form the context allows, no recursion; it joins the held ones. */
static uint64_t lock_rules(struct analysis *an, const struct kp_stmt *s, enum ctx ctx,
			   struct held *held, unsigned int *depth)
{
	struct held h = { s->a, s->b, ctx == CTX_HARD, ctx != CTX_PROC };
	uint64_t r = 0;

	/* in irq context, or nested, only the forms that restore what they found */
	if ((ctx != CTX_PROC || *depth > 0) && s->b != KP_LOCK_PLAIN &&
	    s->b != KP_LOCK_IRQSAVE)
		r |= BIT(KP_RULE_LOCKING);
	for (unsigned int i = 0; i < *depth; i++) {
		if (held[i].lock == s->a)
			r |= BIT(KP_RULE_LOCKING);	/* recursive */
		an->nest[held[i].lock][s->a] = true;
		h.irqs_off |= held[i].irqs_off;
		h.bh_off |= held[i].bh_off;
	}
	h.irqs_off |= s->b == KP_LOCK_IRQ || s->b == KP_LOCK_IRQSAVE;
	h.bh_off |= h.irqs_off || s->b == KP_LOCK_BH;
	an->used_hard[s->a] |= ctx == CTX_HARD;
	an->used_soft[s->a] |= ctx == CTX_SOFT;
	an->irqs_on_use[s->a] |= !h.irqs_off;
	an->bh_on_use[s->a] |= !h.bh_off;
	held[(*depth)++] = h;
	return r;
}

/* The rules one statement breaks where it is (context, held locks, body). */
static uint64_t stmt_rules(struct analysis *an, struct kp_where w, const struct kp_body *body,
			   unsigned int pos, struct held *held, unsigned int *depth)
{
	const struct kp *p = an->p;
	const struct kp_stmt *s = &body->s[pos];
	enum ctx ctx = ctx_of(p, w);
	bool atomic = ctx != CTX_PROC || *depth > 0;
	bool in_work = w.kind == KP_IN_WORK;
	unsigned int own = in_work ? p->work[w.index].worker : KP_MAX_WORKERS;
	uint64_t r = 0;
	int from = node_of(w);

	if (out_of_range(p, s))
		return 0;

	if (waits(s->op) && atomic && s->op != KP_DEL_TIMER_SYNC)
		r |= BIT(KP_RULE_SLEEP_IN_ATOMIC);
	if (takes_work(s->op))
		add_user(an, s->b, w, s->op == KP_INIT_WORK || s->op == KP_INIT_DELAYED_WORK);
	if (p->suspend && in_work && own < p->nworkers && p->worker[own].freezable &&
	    (waits_for_worker(s->op) || s->op == KP_WAIT))
		r |= BIT(KP_RULE_WAIT);

	switch (s->op) {
	case KP_QUEUE_WORK:
	case KP_QUEUE_DELAYED_WORK:
	case KP_MOD_DELAYED_WORK:
		if (p->work[s->b].delayed != (s->op != KP_QUEUE_WORK))
			r |= BIT(KP_RULE_DELAYED_CANCEL);
		if (s->a != p->work[s->b].worker)
			r |= BIT(KP_RULE_ONE_WORKER);
		if (from >= 0)
			an->qedge[from][s->b] = true;
		break;
	case KP_FLUSH_WORK:
	case KP_CANCEL_WORK_SYNC:
	case KP_CANCEL_DELAYED_WORK_SYNC:
		r |= wait_work_rules(an, s, w, own);
		break;
	case KP_FLUSH_WORKER:
		if (in_work && own < KP_MAX_WORKERS)
			an->wedge[own][s->a] = true;
		break;
	case KP_DESTROY_WORKER:
	case KP_STOP:
		r |= destroy_rules(an, s, in_work, own);
		break;
	case KP_INIT_WORK:
	case KP_INIT_DELAYED_WORK:
		r |= reinit_rules(p, w, ctx, body, pos);
		break;
	case KP_MOD_TIMER:
		if (w.kind == KP_IN_TIMER && w.index == s->a)
			r |= BIT(KP_RULE_TIMER_TEARDOWN);
		if (from >= 0)
			an->qedge[from][KP_MAX_WORKS + s->a] = true;
		break;
	case KP_DEL_TIMER_SYNC:
		if (ctx != CTX_PROC)
			r |= BIT(KP_RULE_SLEEP_IN_ATOMIC);
		if (*depth > 0)
			r |= BIT(KP_RULE_LOCKING);
		break;
	case KP_UDELAY:		/* a range's every value: its upper bound too */
		if (s->arg > KP_MAX_UDELAY_US || s->hi > KP_MAX_UDELAY_US)
			r |= BIT(KP_RULE_WAIT);
		break;
	case KP_MSLEEP:
		if (s->arg > KP_MAX_MSLEEP_MS || s->hi > KP_MAX_MSLEEP_MS)
			r |= BIT(KP_RULE_WAIT);
		break;
	case KP_LOCK:
		if (s->a >= KP_MAX_LOCKS || s->b >= KP_LOCK__COUNT || *depth >= KP_MAX_STMTS)
			return r | BIT(KP_RULE_LOCKING);
		r |= lock_rules(an, s, ctx, held, depth);
		break;
	case KP_UNLOCK:
		if (*depth == 0 || held[*depth - 1].lock != s->a || held[*depth - 1].how != s->b)
			r |= BIT(KP_RULE_LOCKING);
		else
			(*depth)--;
		break;
	case KP_COMPLETE:
		break;
	case KP_WAIT:
		if (w.kind != KP_IN_CTX || ctx != CTX_PROC)
			r |= BIT(KP_RULE_WAIT);
		an->waits[s->a]++;
		break;
	}
	return r;
}

static void walk_body(struct analysis *an, struct kp_where w, const struct kp_body *body)
{
	struct held held[KP_MAX_STMTS];
	unsigned int depth = 0, n = body->n < KP_MAX_STMTS ? body->n : KP_MAX_STMTS;
	bool has_wait = false;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t r = stmt_rules(an, w, body, i, held, &depth);

		if (an->focus_pos == (int)i && same_where(an->focus, w))
			an->focus_bits |= r;
		an->bits |= r;
		has_wait |= body->s[i].op == KP_WAIT;
	}
	if (depth > 0 && !an->lenient_end)
		an->bits |= BIT(KP_RULE_LOCKING);
	/* completions a context (run once) gives without waiting itself */
	if (w.kind == KP_IN_CTX && !has_wait)
		for (unsigned int i = 0; i < n; i++)
			if (body->s[i].op == KP_COMPLETE && body->s[i].a < KP_MAX_COMPLETIONS)
				an->completes[body->s[i].a]++;
}

/* Kahn's order over the queue graph, lowest index first; -1 on a cycle. */
static int order_nodes(const struct kp *p, bool qedge[NODES][NODES], struct kp_where *order)
{
	bool present[NODES] = { false }, done[NODES] = { false };
	int n = 0, total = 0;

	for (unsigned int i = 0; i < p->nworks && i < KP_MAX_WORKS; i++)
		present[i] = true;
	for (unsigned int i = 0; i < p->ntimers && i < KP_MAX_TIMERS; i++)
		present[KP_MAX_WORKS + i] = true;
	for (int i = 0; i < NODES; i++)
		total += present[i];
	while (n < total) {
		int pick = -1;

		for (int v = 0; v < NODES && pick < 0; v++) {
			bool ready = present[v] && !done[v];

			for (int u = 0; u < NODES && ready; u++)
				if (u != v && present[u] && !done[u] && qedge[u][v])
					ready = false;
			if (ready)
				pick = v;
		}
		if (pick < 0)
			return -1;
		done[pick] = true;
		if (order)
			order[n] = pick < KP_MAX_WORKS ?
				   (struct kp_where){ KP_IN_WORK, (unsigned int)pick } :
				   (struct kp_where){ KP_IN_TIMER, (unsigned int)(pick - KP_MAX_WORKS) };
		n++;
	}
	return n;
}

static void analyse(struct analysis *an, const struct kp *p)
{
	an->p = p;
	for (unsigned int i = 0; i < KP_MAX_WORKS; i++)
		an->reinit_in[i] = -1;
	for (unsigned int i = 0; i < p->nctx && i < KP_MAX_CTX; i++)
		walk_body(an, (struct kp_where){ KP_IN_CTX, i }, &p->ctx[i].body);
	for (unsigned int i = 0; i < p->nworks && i < KP_MAX_WORKS; i++)
		walk_body(an, (struct kp_where){ KP_IN_WORK, i }, &p->work[i].fn);
	for (unsigned int i = 0; i < p->ntimers && i < KP_MAX_TIMERS; i++)
		walk_body(an, (struct kp_where){ KP_IN_TIMER, i }, &p->timer[i].fn);

	if (!p->teardown)
		an->bits |= BIT(KP_RULE_LEAK);
	if (order_nodes(p, an->qedge, NULL) < 0)
		an->bits |= BIT(KP_RULE_QUEUE_CYCLE);

	/* a work re-initialised: no body but the re-initialising one (and its own fn) names it */
	for (unsigned int b = 0; b < KP_MAX_WORKS; b++) {
		if (an->reinit_in[b] < 0)
			continue;
		for (unsigned int i = 0; i < an->nusers[b]; i++) {
			struct kp_where u = an->user[b][i];

			if ((int)i != an->reinit_in[b] && !(u.kind == KP_IN_WORK && u.index == b))
				an->bits |= BIT(KP_RULE_REINIT_IN_USE);
		}
	}

	/* workers waiting on each other's works: any cycle, itself included */
	bool reach[KP_MAX_WORKERS][KP_MAX_WORKERS];

	memcpy(reach, an->wedge, sizeof(reach));
	for (int k = 0; k < KP_MAX_WORKERS; k++)
		for (int i = 0; i < KP_MAX_WORKERS; i++)
			for (int j = 0; j < KP_MAX_WORKERS; j++)
				reach[i][j] |= reach[i][k] && reach[k][j];
	for (int i = 0; i < KP_MAX_WORKERS; i++)
		if (reach[i][i])
			an->bits |= BIT(KP_RULE_SELF_WAIT);

	/* locks: one nesting order; irq-safety carried to the locks taken inside */
	bool lreach[KP_MAX_LOCKS][KP_MAX_LOCKS], need_irq[KP_MAX_LOCKS], need_bh[KP_MAX_LOCKS];

	memcpy(lreach, an->nest, sizeof(lreach));
	for (int k = 0; k < KP_MAX_LOCKS; k++)
		for (int i = 0; i < KP_MAX_LOCKS; i++)
			for (int j = 0; j < KP_MAX_LOCKS; j++)
				lreach[i][j] |= lreach[i][k] && lreach[k][j];
	for (int i = 0; i < KP_MAX_LOCKS; i++) {
		if (lreach[i][i])
			an->bits |= BIT(KP_RULE_LOCKING);
		need_irq[i] = an->used_hard[i];
		need_bh[i] = an->used_hard[i] || an->used_soft[i];
	}
	for (int i = 0; i < KP_MAX_LOCKS; i++)
		for (int j = 0; j < KP_MAX_LOCKS; j++)
			if (lreach[i][j]) {
				need_irq[j] |= an->used_hard[i];
				need_bh[j] |= an->used_hard[i] || an->used_soft[i];
			}
	for (int i = 0; i < KP_MAX_LOCKS; i++)
		if ((need_irq[i] && an->irqs_on_use[i]) || (need_bh[i] && an->bh_on_use[i]))
			an->bits |= BIT(KP_RULE_LOCKING);

	for (int c = 0; c < KP_MAX_COMPLETIONS; c++)
		if (an->waits[c] > an->completes[c])
			an->bits |= BIT(KP_RULE_WAIT);
}

uint64_t kp_contract(const struct kp *p)
{
	struct analysis an;

	memset(&an, 0, sizeof(an));
	an.focus_pos = -1;
	analyse(&an, p);
	return an.bits;
}

uint64_t kp_stmt_breaks(const struct kp *p, struct kp_where w, unsigned int pos,
			const struct kp_stmt *s)
{
	struct analysis before, after;
	struct kp q = *p;
	/* q is ours: the body found through it may be written */
	struct kp_body *body = (struct kp_body *)body_at(&q, w);

	if (!body || (w.kind == KP_IN_CTX && w.index >= p->nctx) ||
	    (w.kind == KP_IN_WORK && w.index >= p->nworks) ||
	    (w.kind == KP_IN_TIMER && w.index >= p->ntimers))
		return 0;
	if (body->n > KP_MAX_STMTS)
		body->n = KP_MAX_STMTS;
	if (body->n == KP_MAX_STMTS)
		body->n--;	/* a full body: judged as if its last statement made room */
	if (pos > body->n)
		pos = body->n;
	memmove(&body->s[pos + 1], &body->s[pos], (body->n - pos) * sizeof(body->s[0]));
	body->s[pos] = *s;
	body->n++;

	memset(&before, 0, sizeof(before));
	before.focus_pos = -1;
	before.lenient_end = true;
	analyse(&before, p);
	memset(&after, 0, sizeof(after));
	after.lenient_end = true;
	after.focus = w;
	after.focus_pos = (int)pos;
	analyse(&after, &q);
	return after.focus_bits | (after.bits & ~before.bits);
}

int kp_quiesce_order(const struct kp *p, struct kp_where *order)
{
	struct analysis an;

	memset(&an, 0, sizeof(an));
	an.focus_pos = -1;
	analyse(&an, p);
	return order_nodes(p, an.qedge, order);
}
