/*
 * What cannot be exported to a kernel module, refused before anything is
 * written: what would take the test kernel down by design (sleeping in an
 * interrupt or under a spinlock, a worker freed that was never allocated,
 * a scenario that looks for a use after free), what the module cannot do
 * (suspend and resume, always/never at every scheduling point), what it
 * cannot read race-free (another task's state), and the simulator's own
 * settings (costs, strategy). tools/kmod/README.md lists them all; each is
 * "FILE:LINE:COL: error: ... cannot be exported to a kernel module: WHY".
 */
#include "kmod/kmod.h"
#include "scenario/scn.h"
#include "scenario/scn_api.h"

#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

struct check {
	const struct scn *s;
	FILE *err;
	jmp_buf fail;
	/* the body being walked */
	const char *ctx;		/* "a hard irq", "a timer callback", NULL: may sleep */
	const struct scn_obj *timer_fn;	/* the timer callback being walked */
	int atomic;			/* spinlocks held, irqs or preemption off, nested */
	struct scn_loc atomic_at;	/* where the innermost was taken */
};

__attribute__((format(printf, 4, 5), noreturn))
static void refuse(struct check *c, struct scn_loc at, const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s:%d:%d: error: %s cannot be exported to a kernel module: ", c->s->path,
		at.line, at.col, what);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	longjmp(c->fail, 1);
}

/* --- settings ----------------------------------------------------------------------------- */

static void settings(struct check *c)
{
	static const struct {
		const char *name;
		const char *why;
	} refused[] = {
		{ "strategy", "it is how the simulator makes its choices; the real kernel makes its own" },
		{ "seed", "it seeds the simulator's choices; the real kernel makes its own" },
		{ "era", "it makes the simulator's services those of another release; the module "
		  "has the services of the kernel it is loaded into" },
		{ "skew", "it bounds the simulator's clocks; the real CPUs' clocks are the hardware's" },
		{ "max_decisions", "it bounds the simulator's choices; the module's bound is its "
		  "timeout_ms parameter" },
		{ "max_steps", "it bounds the simulator's steps; the module's bound is its timeout_ms "
		  "parameter" },
		{ "time_limit", "it bounds the simulated run; the module's bound is its timeout_ms "
		  "parameter" },
		{ "hung_task", "the kernel's hung-task timeout is a sysctl "
		  "(kernel.hung_task_timeout_secs), the runner's to set, not the module's" },
		{ "watchdog_thresh", "the kernel's watchdog threshold is a sysctl "
		  "(kernel.watchdog_thresh), the runner's to set, not the module's" },
	};

	for (int i = 0; i < c->s->ngiven; i++) {
		const struct scn_given *g = &c->s->given[i];

		if (!strncmp(g->name, "cost.", 5))
			refuse(c, g->loc, "the setting 'cost.*'", "a step's cost is the simulator's "
			       "model of time; on a real kernel steps take what they take");
		if (!strcmp(g->name, "spinlock") && c->s->cfg.spinlock != SIM_SPINLOCK_FIFO)
			refuse(c, g->loc, "'spinlock = unfair'", "the kernel's spinlock is the "
			       "queued (fair, FIFO) spinlock");
		for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++)
			if (!strcmp(g->name, refused[k].name))
				refuse(c, g->loc, "the setting", "'%s': %s", g->name, refused[k].why);
	}
}

/* --- programs and bodies ------------------------------------------------------------------ */

static bool sleeps(enum scn_api_id id)
{
	switch (id) {
	case API_KTHREAD_RUN: case API_KTHREAD_STOP: case API_FLUSH_WORK: case API_FLUSH_WORKER:
	case API_CANCEL_WORK_SYNC: case API_CANCEL_DELAYED_WORK_SYNC: case API_DESTROY_WORKER:
	case API_MSLEEP: case API_MSLEEP_INTERRUPTIBLE: case API_USLEEP_RANGE:
	case API_COND_RESCHED: case API_WAIT_FOR_COMPLETION: case API_CPU_DOWN: case API_CPU_UP:
		return true;
	default:
		return false;
	}
}

/* +1 for what makes the context atomic, -1 for what ends it, 0 otherwise */
static int atomic_step(enum scn_api_id id)
{
	switch (id) {
	case API_SPIN_LOCK: case API_SPIN_LOCK_IRQ: case API_SPIN_LOCK_IRQSAVE: case API_SPIN_LOCK_BH:
	case API_LOCAL_IRQ_DISABLE: case API_PREEMPT_DISABLE:
		return 1;
	case API_SPIN_UNLOCK: case API_SPIN_UNLOCK_IRQ: case API_SPIN_UNLOCK_IRQRESTORE:
	case API_SPIN_UNLOCK_BH: case API_LOCAL_IRQ_ENABLE: case API_PREEMPT_ENABLE:
		return -1;
	default:
		return 0;
	}
}

static void call(struct check *c, const struct scn_expr *e)
{
	const struct scn_obj *w = e->nargs ? e->args[0]->obj : NULL;
	char what[80];
	int step;

	snprintf(what, sizeof(what), "%s()", e->api->name);
	if (sleeps(e->api->id) && c->ctx)
		refuse(c, e->loc, what, "it sleeps, and %s may not: on a real kernel that is "
		       "\"scheduling while atomic\", a BUG", c->ctx);
	if (sleeps(e->api->id) && c->atomic)
		refuse(c, e->loc, what, "it sleeps with a spinlock held or interrupts or "
		       "preemption off (line %d): on a real kernel that is \"scheduling while "
		       "atomic\", a BUG", c->atomic_at.line);
	switch (e->api->id) {
	case API_KTHREAD_STOP:
	case API_INIT_WORKER:
		if (w && w->init)
			refuse(c, e->loc, what, "worker %s is made by %s(), whose thread "
			       "kthread_destroy_worker() stops and frees: stopping or re-initialising "
			       "it here leaves a worker with no thread", w->name, w->init->api->name);
		break;
	case API_KTHREAD_RUN:
		if (e->args[1]->obj->init)
			refuse(c, e->loc, what, "worker %s already has its thread, made by %s()",
			       e->args[1]->obj->name, e->args[1]->obj->init->api->name);
		break;
	case API_DESTROY_WORKER:
		if (w && !w->init)
			refuse(c, e->loc, what, "worker %s was never allocated ('worker %s;' is the "
			       "module's memory): kthread_destroy_worker() would kfree() it",
			       w->name, w->name);
		break;
	case API_CPU_DOWN:
	case API_CPU_UP:
		refuse(c, e->loc, what, "a module that runs its test many times would take the "
		       "guest's CPUs down and up (remove_cpu(), add_cpu()) once a run: the export "
		       "does not do that yet");
		break;
	case API_DEL_TIMER_SYNC:
		if (c->timer_fn && w && w->fn == c->timer_fn)
			refuse(c, e->loc, what, "in its own timer's callback it waits for itself "
			       "forever, with the timer softirq's CPU spinning");
		break;
	default:
		break;
	}
	step = atomic_step(e->api->id);
	if (step > 0 && !c->atomic)
		c->atomic_at = e->loc;
	c->atomic += step;
	if (c->atomic < 0)
		c->atomic = 0;	/* an unlock with nothing held: the kernel's to complain about */
}

static void expr(struct check *c, const struct scn_expr *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nargs; i++)
		expr(c, e->args[i]);
	expr(c, e->lhs);
	expr(c, e->rhs);
	if (e->kind == EX_CALL)
		call(c, e);
}

static void stmts(struct check *c, const struct scn_stmt *st);

/* A body inside an if or a loop must leave the atomic depth as it found it. */
static void balanced(struct check *c, const struct scn_stmt *body, const struct scn_stmt *st,
		     const char *what)
{
	int before = c->atomic;

	stmts(c, body);
	if (c->atomic != before)
		refuse(c, st->loc, what, "it takes or releases a spinlock (or turns interrupts or "
		       "preemption off or on) on one path only: the module cannot follow which "
		       "locks are held past it");
}

static void stmt(struct check *c, const struct scn_stmt *st)
{
	expr(c, st->e);
	switch (st->kind) {
	case ST_IF:
		balanced(c, st->body, st, "an if");
		balanced(c, st->orelse, st, "an if");
		return;
	case ST_REPEAT:
		balanced(c, st->body, st, "a repeat");
		return;
	case ST_WHILE:
		if (c->atomic)
			refuse(c, st->loc, "a while loop", "it runs with a spinlock held or interrupts "
			       "or preemption off (line %d): the module leaves a loop at its "
			       "deadline, which it cannot do holding a lock", c->atomic_at.line);
		balanced(c, st->body, st, "a while loop");
		return;
	case ST_AT:
		if (c->atomic)
			refuse(c, st->loc, "'at'", "it sleeps with a spinlock held or interrupts or "
			       "preemption off (line %d)", c->atomic_at.line);
		return;
	case ST_BLOCK:
		stmts(c, st->body);
		return;
	default:
		return;
	}
}

static void stmts(struct check *c, const struct scn_stmt *st)
{
	for (; st; st = st->next)
		stmt(c, st);
}

static void body(struct check *c, const struct scn_stmt *st, const char *who, const char *ctx)
{
	c->ctx = ctx;
	c->atomic = 0;
	stmts(c, st);
	if (c->atomic)
		refuse(c, c->atomic_at, who, "it ends with a spinlock held or interrupts or "
		       "preemption off (taken here): on a real kernel the context that runs it "
		       "next would be atomic");
}

static void bodies(struct check *c)
{
	const struct scn *s = c->s;
	char who[96];

	for (int i = 0; i < s->nfns; i++) {
		const struct scn_obj *fn = s->fns[i];
		bool timer = fn->use == FN_TIMER;

		c->timer_fn = timer ? fn : NULL;
		snprintf(who, sizeof(who), "fn %s", fn->name);
		body(c, fn->body, who, timer ? "a timer callback (softirq context)" : NULL);
	}
	c->timer_fn = NULL;
	body(c, s->setup, "the init block", NULL);
	for (int i = 0; i < s->nprogs; i++) {
		const struct scn_prog *p = s->progs[i];

		if (p->kind == PROG_SUSPEND || p->kind == PROG_RESUME)
			refuse(c, p->loc, p->kind == PROG_SUSPEND ? "suspend" : "resume", "a module "
			       "cannot suspend the machine it runs on and come back to report");
		if (p->kind == PROG_CPU_DOWN || p->kind == PROG_CPU_UP)
			refuse(c, p->loc, p->name, "the export does not take the guest's CPUs "
			       "down and up (remove_cpu(), add_cpu()) yet");
		snprintf(who, sizeof(who), "program %s", p->name);
		body(c, p->body, who, p->kind == PROG_IRQ ? "a hard irq" : NULL);
	}
}

/* --- the condition ------------------------------------------------------------------------ */

static bool memory_error(const struct scn_expr *e)
{
	return e->kind == EX_FINDING && (e->value == SIM_F_UAF || e->value == SIM_F_DOUBLE_FREE ||
					 e->value == SIM_F_BAD_FREE);
}

/*
 * Whether the condition asks for the atom to be reached: sign is true where
 * the condition's truth wants it non-zero. "~uaf" and "uaf == 0" ask for
 * its absence, which the module may test.
 */
static void sought(struct check *c, const struct scn_expr *e, bool sign)
{
	if (!e)
		return;
	if (memory_error(e) && sign)
		refuse(c, e->loc, "a condition looking for a memory error", "reaching a use after "
		       "free or a bad free on a real kernel corrupts the test kernel's memory "
		       "(the module must not take it down); the absence of one (~%s) may be "
		       "exported", sim_finding_kind_name((enum sim_finding_kind)e->value));
	if (e->kind == EX_UNARY && e->op == OP_NOT) {
		sought(c, e->lhs, !sign);
		return;
	}
	if (e->kind == EX_BINARY && (e->op == OP_EQ || e->op == OP_LE || e->op == OP_LT) &&
	    e->rhs && (e->rhs->kind == EX_INT || e->rhs->kind == EX_BOOL) && e->rhs->value <= 1 &&
	    (e->op != OP_EQ || e->rhs->value == 0) && (e->op != OP_LE || e->rhs->value == 0)) {
		/* X == 0, X <= 0, X < 1: absence */
		sought(c, e->lhs, !sign);
		return;
	}
	sought(c, e->lhs, sign);
	sought(c, e->rhs, sign);
}

static void atoms(struct check *c, const struct scn_expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_STATE && (e->value == PRED_TASK_STATE || e->value == PRED_TASK_CURR))
		refuse(c, e->loc, scn_pred_name((enum scn_pred)e->value), "a task's state is the "
		       "scheduler's, which a module cannot read race-free");
	if (e->kind == EX_CALL)
		refuse(c, e->loc, "jiffies in a condition", "the kernel's jiffies at the end are not "
		       "the simulated boot's count (a difference stored in a register may be)");
	atoms(c, e->lhs);
	atoms(c, e->rhs);
}

static void condition(struct check *c)
{
	const struct scn *s = c->s;

	if (s->ninvariants)
		refuse(c, s->invariants[0].loc, s->invariants[0].never ? "never" : "always",
		       "it is checked at every scheduling point, which a real kernel does not stop at");
	atoms(c, s->cond);
	sought(c, s->cond, s->quant != Q_NOT_EXISTS);
}

int kmod_check(const struct scn *s, FILE *err)
{
	struct check c = { .s = s, .err = err };

	if (setjmp(c.fail))
		return 2;
	settings(&c);
	bodies(&c);
	condition(&c);
	return 0;
}
