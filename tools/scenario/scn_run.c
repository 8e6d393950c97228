/*
 * Running a scenario: the init block runs as a task "init" on cpu0 at time
 * zero; then every program starts as a task (threads), an interrupt (irq)
 * or a system event (suspend, resume). Work functions run on the model's
 * worker threads, timer callbacks in the machine's timer softirq, each
 * through one C trampoline per fn, so that the trace names them.
 * Everything happens inside the machine; this file only interprets.
 */
/*
 * The kernel calls made below are the scenario's: their sites (in findings,
 * lock owners, blocked tasks) are its lines, not this file's. Each is made
 * in a scn_call_*() function, whose c->e is the scenario's call expression.
 */
#define SIM_HERE scn_site(c->e)

#include "scn.h"
#include "scn_api.h"
#include "scn_contract.h"
#include "lib/util.h"

#include <model.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(SCN_MAX_JIFFIES == MAX_JIFFY_OFFSET, "the longest delay is the kernel's");

/*
 * The run on the machine: the machine is the process's, and a work's
 * trampoline is given only the work, so the run is found here. Everything
 * the run writes is in it (R->objs, R->progs); the scenario is only read.
 */
static struct scn_run *R;
#define S R->scn
#define M R->model

/* The run state of the object an expression or statement names. */
static struct scn_run_obj *st_of(const struct scn_obj *o)
{
	return &R->objs[o->id];
}

struct lock_obj {
	spinlock_t lock;
	unsigned long flags;		/* for spin_lock_irqsave / irqrestore */
};

/* --- the readable account ------------------------------------------------------------- */

static const char *who(void)
{
	struct task_struct *p = current;

	if (in_irq())
		return "hardirq";
	if (in_serving_softirq())
		return "softirq";
	return p ? p->comm : "?";
}

static void event_here(struct scn_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = sim_now();
	ev->cpu = sim_this_cpu();
	ev->pid = current && !in_irq() && !in_serving_softirq() ? current->pid : 0;
	snprintf(ev->who, sizeof(ev->who), "%s", who());
}

/* call(args), as the account writes a call */
static int call_text(char *buf, size_t len, const struct scn_event *ev)
{
	int n = snprintf(buf, len, "%s(", ev->call);

	for (int i = 0; i < ev->nargs && n >= 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s", i ? ", " : "", ev->args[i]);
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ")");
	return n;
}

/* The text account's line, cut to fit as the account cuts every line. */
__attribute__((format(printf, 2, 3)))
static void say(struct scn_event *ev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ev->what, sizeof(ev->what), fmt, ap);
	va_end(ap);
}

/* The line the text account prints for an event given in parts. */
static void event_what(struct scn_event *ev)
{
	char c[sizeof(ev->what)];
	bool at = ev->text[0];

	call_text(c, sizeof(c), ev);
	switch ((enum scn_ev_kind)ev->kind) {
	case SCN_EV_CALL:
		say(ev, "%s%s%s", c, ev->result[0] ? " = " : "", ev->result);
		break;
	case SCN_EV_BEGINS:
		say(ev, "%s begins", c);
		break;
	case SCN_EV_RETURNS:
		say(ev, "%s %s%s", c, ev->result[0] ? "= " : "returns", ev->result);
		break;
	case SCN_EV_FAILED:
		say(ev, "%s(...) failed: %s%s", ev->call, ev->result, ev->text);
		break;
	case SCN_EV_ASSIGN:
		say(ev, "%s = %s(...)", ev->obj, ev->call);
		break;
	case SCN_EV_RANGE:
		say(ev, "%s of %s", c, ev->text);
		break;
	case SCN_EV_WORK:
	case SCN_EV_TIMER:
		say(ev, "%s %s runs %s", ev->kind == SCN_EV_WORK ? "work" : "timer", ev->obj,
			 ev->call);
		break;
	case SCN_EV_START:
		say(ev, "%s starts%s%s%s", ev->obj, at ? " (at " : "", ev->text, at ? ")" : "");
		break;
	case SCN_EV_END:
		say(ev, "%s ends", ev->obj);
		break;
	case SCN_EV_IRQ:
		say(ev, "irq %s%s%s%s", ev->obj, at ? " (at " : "", ev->text, at ? ")" : "");
		break;
	case SCN_EV_POWER:
		say(ev, "%s at %s", ev->obj, ev->text);
		break;
	case SCN_EV_AT:
		say(ev, "at %s", ev->text);
		break;
	case SCN_EV_LOG:
		say(ev, "log: %s", ev->text);
		break;
	case SCN_EV_MACHINE:
		break;
	}
}

/* A line of the account goes to the caller as it happens; nothing is kept. */
static void account(struct scn_event *ev)
{
	R->nevents++;
	event_what(ev);
	R->on_event(R->event_arg, ev);
}

/*
 * Nobody reads the account (explore's and the bench's runs): the line is
 * counted and never written. Writing it (an event of 1.5 KB cleared, a
 * dozen snprintf) was about 5% of an explored run's time.
 */
static bool unheard(void)
{
	if (R->on_event)
		return false;
	R->nevents++;
	return true;
}

/* Any other line: its kind, the object it is about (or NULL), the fn or call, its text. */
static void note_kind(enum scn_ev_kind kind, const char *obj, const char *call, const char *text)
{
	struct scn_event ev;

	if (unheard())
		return;

	event_here(&ev);
	ev.kind = (uint8_t)kind;
	snprintf(ev.obj, sizeof(ev.obj), "%s", obj ? obj : "");
	snprintf(ev.call, sizeof(ev.call), "%s", call ? call : "");
	snprintf(ev.text, sizeof(ev.text), "%s", text ? text : "");
	account(&ev);
}

/* A number as an argument or result */
static const char *num(char *buf, size_t len, long v)
{
	snprintf(buf, len, "%ld", v);
	return buf;
}

/* A time of a range, as the run picked it: call(t) of lo..hi */
static void note_range(const char *call, long t, long lo, long hi)
{
	struct scn_event ev;

	if (unheard())
		return;

	event_here(&ev);
	ev.kind = SCN_EV_RANGE;
	snprintf(ev.call, sizeof(ev.call), "%s", call);
	num(ev.args[ev.nargs++], sizeof(ev.args[0]), t);
	snprintf(ev.text, sizeof(ev.text), "%ld..%ld", lo, hi);
	account(&ev);
}

/* A worker constructor that failed: its error, and why when a limit says */
static void note_failed(const char *call, long err, const char *why)
{
	struct scn_event ev;

	if (unheard())
		return;

	event_here(&ev);
	ev.kind = SCN_EV_FAILED;
	snprintf(ev.call, sizeof(ev.call), "%s", call);
	num(ev.result, sizeof(ev.result), err);
	snprintf(ev.text, sizeof(ev.text), "%s", why);
	account(&ev);
}

/* A mistake in the scenario that only shows at run time: report it, stop the machine. */
__attribute__((format(printf, 2, 3)))
static void runtime_error(const struct scn_loc *loc, const char *fmt, ...)
{
	va_list ap;

	if (!R->failed) {
		fprintf(R->err, "%s:%d:%d: error: ", S->path, loc->line, loc->col);
		va_start(ap, fmt);
		vfprintf(R->err, fmt, ap);
		va_end(ap);
		fputc('\n', R->err);
	}
	R->failed = true;
	sim_halt(SIM_END_FATAL);
}

/* --- ranges ----------------------------------------------------------------------------- */

/*
 * A time as the language writes one, exactly: in its largest unit, with the
 * decimals it needs ("20ms", "23.400152ms", "750ns", "0").
 */
static const char *time_text(char *buf, size_t len, uint64_t ns)
{
	static const struct { uint64_t ns; const char *unit; int digits; } units[] = {
		{ 1000000000, "s", 9 }, { 1000000, "ms", 6 }, { 1000, "us", 3 }, { 1, "ns", 0 },
	};
	size_t u = 0;
	uint64_t frac;
	int digits;

	while (u < 3 && ns < units[u].ns)
		u++;
	frac = ns % units[u].ns;
	digits = units[u].digits;
	for (; frac && frac % 10 == 0; frac /= 10)
		digits--;
	if (!ns)
		snprintf(buf, len, "0");
	else if (!frac)
		snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[u].ns), units[u].unit);
	else
		snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)(ns / units[u].ns), digits,
			 (unsigned long long)frac, units[u].unit);
	return buf;
}

/*
 * A value of the time range lo..hi, in ns (a decision when lo < hi), and
 * the account's words for it, in buf: "" for a time that is no range,
 * else "VALUE of LO..HI".
 */
static uint64_t time_of(uint64_t lo, uint64_t hi, char *buf, size_t len)
{
	char v[32], l[32], h[32];
	uint64_t ns;

	buf[0] = '\0';
	if (hi <= lo)
		return lo;
	ns = sim_choose_range(lo, hi);
	snprintf(buf, len, "%s of %s..%s", time_text(v, sizeof(v), ns),
		 time_text(l, sizeof(l), lo), time_text(h, sizeof(h), hi));
	return ns;
}

/* --- evaluation ------------------------------------------------------------------------ */

struct env {
	struct scn_run *run;		/* the run the calls are made in */
	const struct scn_prog *prog;	/* NULL in work functions */
	struct scn_run_prog *regs;	/* its registers in this run */
};

static long eval(struct env *env, const struct scn_expr *e);

/* Why a kthread could not be made, when it is the run's bound on tasks. */
static const char *task_limit_text(void)
{
	static char buf[96];
	struct sim_stats st;

	sim_get_stats(&st);
	if (!R->cfg.max_tasks || st.tasks < R->cfg.max_tasks)
		return "";
	snprintf(buf, sizeof(buf), " (-ENOMEM: the run has made max_tasks = %u tasks)",
		 R->cfg.max_tasks);
	return buf;
}

static void *worker_of(const struct scn_expr *e, bool initialising)
{
	void *w = st_of(e->obj)->ptr;

	if (!w || IS_ERR(w)) {
		runtime_error(&e->loc, "worker %s is used before kthread_create_worker made it",
			      e->obj->name);
		return NULL;
	}
	/* a worker the scenario owns ('worker L;') is zeroes, not lists, until initialised */
	if (!e->obj->init && !st_of(e->obj)->count && !initialising) {
		runtime_error(&e->loc, "worker %s is used before kthread_init_worker(%s)",
			      e->obj->name, e->obj->name);
		return NULL;
	}
	return w;
}

static struct kthread_work *work_of(const struct scn_expr *e)
{
	if (e->obj->kind == OBJ_DWORK)
		return M->dwork_work(st_of(e->obj)->ptr);
	return st_of(e->obj)->ptr;
}

static const char *yes(long v)
{
	return v ? "true" : "false";
}

static kw_work_fn trampoline(int i);
typedef void (*scn_timer_fn)(struct timer_list *);
static scn_timer_fn timer_trampoline(int i);

/* Each call of the kernel API, by its kernel name. */
static const struct sim_site *scn_site(const struct scn_expr *e)
{
	return sim_site_at(S->path, e->loc.line, e->api->name);
}

/*
 * A call as it is made: the run, the program it is made in, the call as the
 * scenario wrote it, and what validation found (the worker and lock
 * arguments, every number argument evaluated).
 */
struct scn_call {
	struct env *env;
	struct scn_run *run;
	const struct scn_expr *e;
	const struct scn_expr *const *a;	/* e's arguments */
	void *w;			/* the worker argument, checked by worker_of() */
	struct lock_obj *l;		/* the lock argument */
	long val[3];			/* the number arguments, evaluated */
	long delay;			/* the (last) time argument: how long the caller spends */
	bool refused;			/* a run-time error: the call was not made */
};

/* The run state of argument i's object. */
static void *arg_ptr(const struct scn_call *c, int i)
{
	return c->run->objs[c->a[i]->obj->id].ptr;
}

/* Argument i, evaluated where the call needs it: a worker's flags, a cpu, an expiry. */
static long arg_value(struct scn_call *c, int i)
{
	c->val[i] = eval(c->env, c->a[i]);
	return c->val[i];
}

/* Whether the cpu in argument i exists; if not, the call is refused. */
static bool cpu_exists(struct scn_call *c, int i, long cpu, bool say_cpus)
{
	if (cpu >= 0 && cpu < nr_cpu_ids)
		return true;
	if (say_cpus)
		runtime_error(&c->a[i]->loc, "cpu %ld does not exist (cpus = %d)", cpu, nr_cpu_ids);
	else
		runtime_error(&c->a[i]->loc, "cpu %ld does not exist", cpu);
	c->refused = true;
	return false;
}

/* --- the calls, one function each, in scn_api.c's table ------------------------------- */

long scn_call_create_worker(struct scn_call *c)
{
	unsigned int flags = (unsigned int)arg_value(c, 0);

	return (long)c->run->model->create_worker(-1, flags, c->a[1]->str);
}

long scn_call_create_worker_on_cpu(struct scn_call *c)
{
	long cpu = arg_value(c, 0);

	if (!cpu_exists(c, 0, cpu, false))
		return 0;
	return (long)c->run->model->create_worker((int)cpu, (unsigned int)arg_value(c, 1),
						  c->a[2]->str);
}

long scn_call_init_worker(struct scn_call *c)
{
	c->run->model->init_worker(c->w);
	c->run->objs[c->a[0]->obj->id].count = 1;	/* initialised: see worker_of() */
	return 0;
}

long scn_call_kthread_run(struct scn_call *c)
{
	struct task_struct *t = kthread_create(c->run->model->worker_fn, c->w, "%s", c->a[2]->str);

	if (!IS_ERR(t)) {
		c->run->objs[c->a[1]->obj->id].task = t;	/* W->task, for task_state() */
		wake_up_process(t);
	}
	return 0;
}

long scn_call_kthread_stop(struct scn_call *c)
{
	struct task_struct *t;

	if (!(c->w = worker_of(c->a[0], false))) {
		c->refused = true;
		return 0;
	}
	/*
	 * A legacy worker's thread sets worker->task when it first runs;
	 * its starter holds what kthread_run() returned from the start.
	 */
	t = c->run->model->worker_task(c->w);
	if (!t)
		t = c->run->objs[c->a[0]->obj->id].task;
	if (!t) {
		runtime_error(&c->e->loc, "%s->task is NULL: the worker's thread has not "
			      "started or has exited", c->a[0]->obj->name);
		c->refused = true;
		return 0;
	}
	return kthread_stop(t);
}

long scn_call_init_work(struct scn_call *c)
{
	/* obj->fn stays the declared fn: the next run starts from the declaration */
	c->run->model->init_work(work_of(c->a[0]), trampoline(c->a[1]->obj->index));
	return 0;
}

long scn_call_init_delayed_work(struct scn_call *c)
{
	c->run->model->init_delayed_work(arg_ptr(c, 0), trampoline(c->a[1]->obj->index));
	return 0;
}

long scn_call_queue_work(struct scn_call *c)
{
	return c->run->model->queue_work(c->w, arg_ptr(c, 1));
}

long scn_call_queue_delayed_work(struct scn_call *c)
{
	return c->run->model->queue_delayed_work(c->w, arg_ptr(c, 1), (unsigned long)c->val[2]);
}

long scn_call_mod_delayed_work(struct scn_call *c)
{
	return c->run->model->mod_delayed_work(c->w, arg_ptr(c, 1), (unsigned long)c->val[2]);
}

long scn_call_flush_work(struct scn_call *c)
{
	c->run->model->flush_work(work_of(c->a[0]));
	return 0;
}

long scn_call_flush_worker(struct scn_call *c)
{
	c->run->model->flush_worker(c->w);
	return 0;
}

long scn_call_cancel_work_sync(struct scn_call *c)
{
	return c->run->model->cancel_work_sync(work_of(c->a[0]));
}

long scn_call_cancel_delayed_work_sync(struct scn_call *c)
{
	return c->run->model->cancel_delayed_work_sync(arg_ptr(c, 0));
}

long scn_call_destroy_worker(struct scn_call *c)
{
	c->run->model->destroy_worker(c->w);
	return 0;
}

long scn_call_udelay(struct scn_call *c)
{
	udelay((unsigned long)c->val[0]);
	return 0;
}

long scn_call_mdelay(struct scn_call *c)
{
	mdelay((unsigned long)c->val[0]);
	return 0;
}

long scn_call_ndelay(struct scn_call *c)
{
	ndelay((unsigned long)c->val[0]);
	return 0;
}

long scn_call_msleep(struct scn_call *c)
{
	msleep((unsigned int)c->val[0]);
	return 0;
}

long scn_call_msleep_interruptible(struct scn_call *c)
{
	return (long)msleep_interruptible((unsigned int)c->val[0]);
}

long scn_call_usleep_range(struct scn_call *c)
{
	usleep_range((unsigned long)c->val[0], (unsigned long)c->val[1]);
	return 0;
}

long scn_call_cond_resched(struct scn_call *c)
{
	(void)c;
	return cond_resched();
}

long scn_call_cpu_relax(struct scn_call *c)
{
	(void)c;
	ndelay(10);
	return 0;
}

long scn_call_spin_lock(struct scn_call *c)
{
	spin_lock(&c->l->lock);
	return 0;
}

long scn_call_spin_unlock(struct scn_call *c)
{
	spin_unlock(&c->l->lock);
	return 0;
}

long scn_call_spin_lock_irq(struct scn_call *c)
{
	spin_lock_irq(&c->l->lock);
	return 0;
}

long scn_call_spin_unlock_irq(struct scn_call *c)
{
	spin_unlock_irq(&c->l->lock);
	return 0;
}

long scn_call_spin_lock_irqsave(struct scn_call *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->l->lock, flags);
	c->l->flags = flags;
	return 0;
}

long scn_call_spin_unlock_irqrestore(struct scn_call *c)
{
	spin_unlock_irqrestore(&c->l->lock, c->l->flags);
	return 0;
}

long scn_call_spin_lock_bh(struct scn_call *c)
{
	spin_lock_bh(&c->l->lock);
	return 0;
}

long scn_call_spin_unlock_bh(struct scn_call *c)
{
	spin_unlock_bh(&c->l->lock);
	return 0;
}

long scn_call_local_irq_disable(struct scn_call *c)
{
	(void)c;
	local_irq_disable();
	return 0;
}

long scn_call_local_irq_enable(struct scn_call *c)
{
	(void)c;
	local_irq_enable();
	return 0;
}

long scn_call_preempt_disable(struct scn_call *c)
{
	(void)c;
	preempt_disable();
	return 0;
}

long scn_call_preempt_enable(struct scn_call *c)
{
	(void)c;
	preempt_enable();
	return 0;
}

long scn_call_complete(struct scn_call *c)
{
	complete(arg_ptr(c, 0));
	return 0;
}

long scn_call_complete_all(struct scn_call *c)
{
	complete_all(arg_ptr(c, 0));
	return 0;
}

long scn_call_wait_for_completion(struct scn_call *c)
{
	wait_for_completion(arg_ptr(c, 0));
	return 0;
}

long scn_call_msecs_to_jiffies(struct scn_call *c)
{
	return (long)msecs_to_jiffies((unsigned int)c->val[0]);
}

long scn_call_jiffies(struct scn_call *c)
{
	(void)c;
	return (long)jiffies;
}

long scn_call_hz(struct scn_call *c)
{
	(void)c;
	return (long)HZ;
}

long scn_call_mod_timer(struct scn_call *c)
{
	unsigned long expires = (unsigned long)arg_value(c, 1);

	if (c->run->failed) {
		c->refused = true;
		return 0;
	}
	return mod_timer(arg_ptr(c, 0), expires);
}

long scn_call_del_timer(struct scn_call *c)
{
	return del_timer(arg_ptr(c, 0));
}

long scn_call_del_timer_sync(struct scn_call *c)
{
	return del_timer_sync((struct timer_list *)arg_ptr(c, 0));
}

long scn_call_cpu_down(struct scn_call *c)
{
	long cpu = arg_value(c, 0);

	return cpu_exists(c, 0, cpu, true) ? sim_cpu_down((int)cpu) : 0;
}

long scn_call_cpu_up(struct scn_call *c)
{
	long cpu = arg_value(c, 0);

	return cpu_exists(c, 0, cpu, true) ? sim_cpu_up((int)cpu) : 0;
}

long scn_call_smp_processor_id(struct scn_call *c)
{
	(void)c;
	return smp_processor_id();
}

/* --- validate, narrate, dispatch ---------------------------------------------------------- */

/*
 * The worker and lock arguments, and the times: evaluated once, here, and
 * range-checked (the parser saw only constants). False if the call is refused.
 */
static bool validate(struct scn_call *c)
{
	const struct scn_api *api = c->e->api;

	for (int i = 0; i < c->e->nargs; i++) {
		if (api->args[i] == ARG_WORKER &&
		    !(c->w = worker_of(c->a[i], api->id == API_INIT_WORKER)))
			return false;
		if (api->args[i] == ARG_LOCK)
			c->l = arg_ptr(c, i);
	}
	for (int i = 0; i < c->e->nargs; i++) {
		const struct scn_expr *a = c->a[i];
		char why[160];

		if (api->args[i] < ARG_NSECS)
			continue;
		c->val[i] = eval(c->env, a);
		if (c->run->failed)
			return false;
		c->delay = c->val[i];
		if (a->kind == EX_RANGE && a->lhs->value < a->rhs->value)
			note_range(api->name, c->val[i], a->lhs->value, a->rhs->value);
		if (!scn_api_arg_fits(api, i, c->val[i], why, sizeof(why))) {
			runtime_error(&a->loc, "%s", why);
			return false;
		}
	}
	return true;
}

/* The account's line of a call: kind, its result (none before it returns), its arguments. */
static void narrate(const struct scn_call *c, enum scn_ev_kind kind, bool returned, long v)
{
	const struct scn_api *api = c->e->api;
	struct scn_event ev;

	if (unheard())
		return;

	event_here(&ev);
	ev.kind = (uint8_t)kind;
	snprintf(ev.call, sizeof(ev.call), "%s", api->name);
	if (returned && api->ret == RET_BOOL)
		snprintf(ev.result, sizeof(ev.result), "%s", yes(v));
	else if (returned && api->ret == RET_INT)
		num(ev.result, sizeof(ev.result), v);
	for (int i = 0; i < c->e->nargs && i < SCN_EV_MAX_ARGS; i++) {
		char *arg = ev.args[ev.nargs++];
		size_t len = sizeof(ev.args[0]);

		switch (api->args[i]) {
		case ARG_STR:
			snprintf(arg, len, "\"%s\"", c->a[i]->str);
			break;
		case ARG_WORKER_FN:
			snprintf(arg, len, "kthread_worker_fn");
			break;
		case ARG_TASK:
			snprintf(arg, len, "%s->task", c->a[i]->obj->name);
			break;
		case ARG_INT:
			snprintf(arg, len, "%lu", (unsigned long)c->val[i]);
			break;
		case ARG_NSECS: case ARG_USECS: case ARG_MSECS: case ARG_MSECS_UINT: case ARG_JIFFIES:
			num(arg, len, c->val[i]);
			break;
		default:
			snprintf(arg, len, "%s", c->a[i]->obj->name);
			break;
		}
	}
	account(&ev);
}

static long call_api(struct env *env, const struct scn_expr *e, long *delay)
{
	const struct scn_api *api = e->api;
	struct scn_call c = { env, env->run, e, (const struct scn_expr *const *)e->args, NULL, NULL,
			      { 0, 0, 0 }, 0, false };
	bool valid = validate(&c);
	long v;

	*delay = c.delay;
	if (!valid)
		return 0;
	if (api->say == SCN_SAY_AROUND)
		narrate(&c, SCN_EV_BEGINS, false, 0);
	v = api->call(&c);
	if (c.refused)
		return 0;
	if (api->say == SCN_SAY_AROUND)
		narrate(&c, SCN_EV_RETURNS, true, v);
	else if (api->say == SCN_SAY_CALL)
		narrate(&c, SCN_EV_CALL, true, v);
	else if (api->say == SCN_SAY_FAILED && IS_ERR((void *)v))
		note_failed(api->name, PTR_ERR((void *)v), task_limit_text());
	return v;
}

/* A call, seen by the contract oracles (scn_contract.h) as it begins and returns. */
static long call(struct env *env, const struct scn_expr *e)
{
	struct scn_ccall *k = scn_contract_begin(R, e);
	long delay = 0, v = call_api(env, e, &delay);

	scn_contract_end(R, k, v, delay);
	return v;
}

long scn_apply(enum scn_op op, long l, long r)
{
	switch (op) {
	case OP_NOT: return !l;
	/* wrap rather than overflow: a scenario's arithmetic must never be undefined */
	case OP_NEG: return (long)(0UL - (unsigned long)l);
	case OP_ADD: return (long)((unsigned long)l + (unsigned long)r);
	case OP_SUB: return (long)((unsigned long)l - (unsigned long)r);
	case OP_EQ: return l == r;
	case OP_NE: return l != r;
	case OP_LT: return l < r;
	case OP_LE: return l <= r;
	case OP_GT: return l > r;
	case OP_GE: return l >= r;
	case OP_AND: return l && r;
	case OP_OR: return l || r;
	}
	return 0;
}

static long eval(struct env *env, const struct scn_expr *e)
{
	long l, r;

	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		return e->value;
	case EX_REG:
		return env->regs ? env->regs->regs[e->reg] : 0;
	case EX_OBJ:
		if (!e->obj || e->obj->kind != OBJ_COUNTER)
			return 0;
		sim_footprint_touch(e->obj, false);	/* shared by the programs */
		return st_of(e->obj)->count;
	case EX_CALL:
		return call(env, e);
	case EX_RANGE:		/* a call's time argument: its lengths are decided as it runs */
		return (long)sim_choose_range((uint64_t)e->lhs->value, (uint64_t)e->rhs->value);
	case EX_UNARY:
		return scn_apply(e->op, eval(env, e->lhs), 0);
	case EX_BINARY:
		/* && and || short-circuit: the right side may be a call */
		l = eval(env, e->lhs);
		if ((e->op == OP_AND && !l) || (e->op == OP_OR && l))
			return e->op == OP_OR;
		r = eval(env, e->rhs);
		return scn_apply(e->op, l, r);
	default:
		return 0;
	}
}

/* --- statements ------------------------------------------------------------------------- */

static void exec(struct env *env, const struct scn_stmt *st);

/* Loops count against max_steps too: a loop that never calls anything makes no steps. */
static bool another_round(const struct scn_stmt *st)
{
	if (!R->cfg.max_steps || ++R->rounds <= R->cfg.max_steps)
		return true;
	runtime_error(&st->loc, "more than %llu loop rounds: the scenario seems to loop forever "
		      "(raise max_steps if it is meant to)", (unsigned long long)R->cfg.max_steps);
	return false;
}

static void exec_list(struct env *env, const struct scn_stmt *st)
{
	for (; st && !R->failed; st = st->next)
		exec(env, st);
}

static bool simple_stmt(const struct scn_stmt *st)
{
	return st->kind != ST_IF && st->kind != ST_REPEAT && st->kind != ST_WHILE &&
	       st->kind != ST_BLOCK;
}

static void exec_stmt(struct env *env, const struct scn_stmt *st);

static void exec(struct env *env, const struct scn_stmt *st)
{
	bool step = R->on_step && simple_stmt(st);
	int pid = current && !in_irq() && !in_serving_softirq() ? current->pid : 0;

	if (step)
		R->on_step(R->event_arg, st, false, pid);
	exec_stmt(env, st);
	if (step && !R->failed)
		R->on_step(R->event_arg, st, true, pid);
}

static void exec_stmt(struct env *env, const struct scn_stmt *st)
{
	long v, n;

	/* findings raised from here on name this line of the scenario */
	if (st->kind != ST_BLOCK)
		sim_note_line(S->path, st->loc.line);
	if (st->kind != ST_BLOCK && R->on_line) {
		struct scn_event ev;

		event_here(&ev);
		ev.line = st->loc.line;
		ev.what[0] = '\0';
		R->on_line(R->event_arg, &ev);
	}

	switch (st->kind) {
	case ST_EXPR:
		eval(env, st->e);
		break;
	case ST_SET_REG:
		v = eval(env, st->e);
		env->regs->regs[st->reg] = v;
		env->regs->regset[st->reg] = true;
		break;
	case ST_SET_COUNTER:
		v = eval(env, st->e);
		if (st->obj->kind == OBJ_WORKER) {
			st_of(st->obj)->ptr = (void *)v;
			if (!IS_ERR((void *)v)) {
				st_of(st->obj)->task = v ? M->worker_task((void *)v) : NULL;
				sim_register_object((void *)v, M->worker_size, st->obj->name);
				note_kind(SCN_EV_ASSIGN, st->obj->name, st->e->api->name, NULL);
			}
		} else {
			sim_footprint_touch(st->obj, true);
			st_of(st->obj)->count = v;
		}
		break;
	case ST_ADD_COUNTER:
		sim_footprint_touch(st->obj, true);
		st_of(st->obj)->count = scn_apply(OP_ADD, st_of(st->obj)->count, eval(env, st->e));
		break;
	case ST_IF:
		if (eval(env, st->e))
			exec(env, st->body);
		else if (st->orelse)
			exec(env, st->orelse);
		break;
	case ST_REPEAT:
		n = eval(env, st->e);
		for (long i = 0; i < n && !R->failed && another_round(st); i++)
			exec(env, st->body);
		break;
	case ST_WHILE:
		/* each round is a scheduling point that costs time, so a spin on a
		 * counter lets the other CPUs move */
		while (!R->failed && another_round(st) && eval(env, st->e)) {
			exec(env, st->body);
			ndelay(10);
		}
		break;
	case ST_AT: {
		char said[96];
		uint64_t ns = time_of(st->ns, st->ns_hi, said, sizeof(said));

		if (said[0])
			note_kind(SCN_EV_AT, NULL, NULL, said);
		if (ns > sim_boot_now())	/* scenario time counts a suspend's sleep */
			sim_sleep_until_boot(ns);
		break;
	}
	case ST_LOG:
		printk(KERN_INFO "%s\n", st->str);
		note_kind(SCN_EV_LOG, NULL, NULL, st->str);
		break;
	case ST_BLOCK:
		exec_list(env, st->body);
		break;
	}
}

/* --- work functions: one C trampoline per fn, so that %ps can name it --------------------- */

/*
 * The scenario's works and timers by address, for "work A runs f" and
 * "timer T runs g": sorted once the objects exist, so that naming one costs
 * a search, not a scan of every declaration.
 */
struct scn_work_ref {
	const void *work;		/* a struct kthread_work, or a timer's struct timer_list */
	const struct scn_obj *obj;
};

static int by_work(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct scn_work_ref *)a)->work;
	uintptr_t y = (uintptr_t)((const struct scn_work_ref *)b)->work;

	return x < y ? -1 : x > y;
}

/* The scenario's work (or delayed work) whose kthread_work is at w, or NULL. */
static const struct scn_obj *run_work_obj(const struct scn_run *run, const void *w)
{
	struct scn_work_ref key = { w, NULL };
	struct scn_work_ref *found = w ? bsearch(&key, run->works, run->nworks,
						 sizeof(*run->works), by_work) : NULL;

	return found ? found->obj : NULL;
}

static const struct scn_obj *work_obj(const void *w)
{
	return run_work_obj(R, w);
}

static const char *work_name(const void *w)
{
	const struct scn_obj *o = work_obj(w);

	return o ? o->name : "?";
}

/* fn i starts, as a work or a timer callback: counted for ran() and before(), and narrated */
static const struct scn_obj *fn_starts(int i, enum scn_ev_kind kind, const void *obj)
{
	const struct scn_obj *fn = S->fns[i];
	struct scn_run_obj *run = st_of(fn);

	run->count++;
	if (!run->first_start)
		run->first_start = sim_now() + 1;
	note_kind(kind, work_name(obj), fn->name, NULL);
	return fn;
}

static void run_fn(int i, struct kthread_work *w)
{
	struct env env = { R, NULL, NULL };
	const struct scn_obj *fn = fn_starts(i, SCN_EV_WORK, w);

	scn_contract_exec(R, work_obj(w), true);
	exec(&env, fn->body);
	scn_contract_exec(R, work_obj(w), false);
	/* a work must give back every lock and leave irqs and preemption on */
	sim_lockdep_context_end("kthread work", fn->name);
}

/*
 * A timer's callback: the timer softirq calls it (sim_run_timer_softirq()),
 * which checks the context it leaves, as call_timer_fn() does.
 */
static void run_timer_fn(int i, struct timer_list *timer)
{
	struct env env = { R, NULL, NULL };

	exec(&env, fn_starts(i, SCN_EV_TIMER, timer)->body);
}

/*
 * SCN_MAX_FNS of them. Each index is spelt in octal digits with a leading 0
 * (00 ... 0777), so that the token pasted into the name is also, as a C
 * literal, the trampoline's place in the table.
 */
#define T(i) static void scn_fn_##i(struct kthread_work *w) { run_fn(i, w); }
#define T8(i) T(i##0) T(i##1) T(i##2) T(i##3) T(i##4) T(i##5) T(i##6) T(i##7)
#define T64(i) T8(i##0) T8(i##1) T8(i##2) T8(i##3) T8(i##4) T8(i##5) T8(i##6) T8(i##7)
#define T512 T64(0) T64(01) T64(02) T64(03) T64(04) T64(05) T64(06) T64(07)
T512
#undef T
#define T(i) scn_fn_##i,
static const kw_work_fn trampolines[] = { T512 };
#undef T
/* and as many timer callbacks: a fn is one or the other (enum scn_fn_use) */
#define T(i) static void scn_timer_fn_##i(struct timer_list *t) { run_timer_fn(i, t); }
T512
#undef T
#define T(i) scn_timer_fn_##i,
static const scn_timer_fn timer_trampolines[] = { T512 };
#undef T
#undef T8
#undef T64
#undef T512
_Static_assert(sizeof(trampolines) / sizeof(trampolines[0]) == SCN_MAX_FNS,
	       "a trampoline for each fn");

static kw_work_fn trampoline(int i)
{
	return trampolines[i];
}

static scn_timer_fn timer_trampoline(int i)
{
	return timer_trampolines[i];
}

/* --- programs ------------------------------------------------------------------------------ */

static int thread_main(void *arg)
{
	const struct scn_prog *prog = arg;
	struct env env = { R, prog, &R->progs[prog->id] };

	note_kind(SCN_EV_START, prog->name, NULL, R->progs[prog->id].said);
	exec(&env, prog->body);
	if (!R->failed)
		note_kind(SCN_EV_END, prog->name, NULL, NULL);
	return 0;
}

static void irq_main(void *arg)
{
	const struct scn_prog *prog = arg;
	struct env env = { R, prog, &R->progs[prog->id] };

	note_kind(SCN_EV_IRQ, prog->name, NULL, R->progs[prog->id].said);
	exec(&env, prog->body);
}

static int setup_main(void *arg)
{
	struct env env = { R, NULL, NULL };

	(void)arg;
	exec_list(&env, S->setup);
	if (R->failed)
		return 0;
	for (int i = 0; i < S->nprogs; i++) {
		const struct scn_prog *prog = S->progs[i];
		struct scn_run_prog *run = &R->progs[prog->id];
		uint64_t at;

		/* in the file's order, every run: the decision log's order is the same */
		run->at = time_of(prog->at, prog->at_hi, run->said, sizeof(run->said));
		at = run->at > sim_now() ? run->at : sim_now();
		if (run->said[0] && prog->kind >= PROG_SUSPEND)
			note_kind(SCN_EV_POWER, prog->name, NULL, run->said);

		switch (prog->kind) {
		case PROG_THREAD:
			run->task = sim_spawn(prog->name, thread_main, (void *)prog,
							    prog->cpu >= 0 ? prog->cpu : 0,
							    prog->cpu >= 0, at);
			if (!R->progs[prog->id].task) {
				runtime_error(&prog->loc, "%s cannot start: the run has made %u tasks, "
					      "its max_tasks (a setting)", prog->name, R->cfg.max_tasks);
				return 0;
			}
			break;
		case PROG_IRQ:
			sim_irq_at(at, prog->cpu, prog->name, irq_main, (void *)prog);
			break;
		case PROG_SUSPEND:
			sim_suspend_at(at);
			break;
		case PROG_RESUME:
			sim_resume_at(at);
			break;
		case PROG_CPU_DOWN:
			sim_cpu_down_at(prog->cpu, at);
			break;
		case PROG_CPU_UP:
			sim_cpu_up_at(prog->cpu, at);
			break;
		}
	}
	return 0;
}

/* --- the run --------------------------------------------------------------------------------- */

static void *zalloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		abort();
	return p;
}

/*
 * n zeroed elements in p, which holds *cap: kept when they fit, as explored
 * runs of one scenario need the same each time (an allocation less per run
 * and buffer); else a new one of exactly n, so ASan sees an overrun.
 */
static void *zeroed(void *p, size_t *cap, size_t n, size_t size)
{
	if (n > *cap) {
		free(p);
		*cap = n;
		p = calloc(n, size);
		if (!p)
			abort();
		return p;
	}
	memset(p, 0, n * size);
	return p;
}

/* The scenario's own objects: allocated here, named for the trace, freed after the run. */
static void make_objects(void)
{
	R->works = zeroed(R->works, &R->cap.works, (size_t)S->nobjs + 1, sizeof(*R->works));
	R->nworks = 0;
	for (int i = 0; i < S->nobjs; i++) {
		const struct scn_obj *o = S->objs[i];
		struct scn_run_obj *run = st_of(o);
		void *p = NULL;

		run->count = o->kind == OBJ_COUNTER ? o->value : 0;
		switch (o->kind) {
		case OBJ_WORKER:
			if (!o->init) {
				p = zalloc(M->worker_size);
				sim_register_object(p, M->worker_size, o->name);
			}
			break;
		case OBJ_WORK:
			p = zalloc(M->work_size);
			sim_register_object(p, M->work_size, o->name);
			M->init_work(p, trampoline(o->fn->index));
			R->works[R->nworks++] = (struct scn_work_ref){ p, o };
			break;
		case OBJ_DWORK:
			p = zalloc(M->dwork_size);
			sim_register_object(p, M->dwork_size, o->name);
			M->init_delayed_work(p, trampoline(o->fn->index));
			R->works[R->nworks++] = (struct scn_work_ref){ M->dwork_work(p), o };
			break;
		case OBJ_LOCK: {
			struct lock_obj *l = zalloc(sizeof(*l));

			spin_lock_init(&l->lock);
			sim_lockdep_set_class(&l->lock.l, NULL, o->name);
			p = l;
			sim_register_object(p, sizeof(*l), o->name);
			break;
		}
		case OBJ_COMPLETION:
			p = zalloc(sizeof(struct completion));
			init_completion(p);
			sim_register_object(p, sizeof(struct completion), o->name);
			break;
		case OBJ_TIMER:
			p = zalloc(sizeof(struct timer_list));
			sim_register_object(p, sizeof(struct timer_list), o->name);
			/* timer_setup(&T, fn, 0), at its declaration's line */
			sim_timer_init(p, timer_trampoline(o->fn->index), NULL, 0, 0,
				       sim_site_at(S->path, o->loc.line, "timer_setup"));
			R->works[R->nworks++] = (struct scn_work_ref){ p, o };
			break;
		case OBJ_FN:
			if (o->use == FN_TIMER)
				sim_register_symbol((const void *)timer_trampoline(o->index),
						    o->name);
			else
				sim_register_symbol((const void *)trampoline(o->index), o->name);
			break;
		case OBJ_COUNTER:
		case OBJ_PROGRAM:
			break;
		}
		run->ptr = p;
	}
	qsort(R->works, R->nworks, sizeof(*R->works), by_work);
}

static void free_objects(void)
{
	for (int i = 0; i < S->nobjs; i++) {
		const struct scn_obj *o = S->objs[i];
		struct scn_run_obj *run = st_of(o);

		/* workers from kthread_create_worker belong to the machine's allocator */
		if (o->kind != OBJ_FN && o->kind != OBJ_COUNTER && !(o->kind == OBJ_WORKER && o->init))
			free(run->ptr);
		run->ptr = NULL;
	}
	R->nworks = 0;
}

static void free_state(struct scn_run *run)
{
	run->nevents = 0;
	free(run->objs);
	free(run->progs);
	free(run->state);
	free(run->broken);
	free(run->works);
	run->objs = NULL;
	run->progs = NULL;
	run->state = NULL;
	run->broken = NULL;
	run->works = NULL;
	run->nworks = 0;
	memset(&run->cap, 0, sizeof(run->cap));
	scn_contract_free(run->contract_kept);
	run->contract_kept = NULL;
}

static long cond_value(const struct scn_run *run, const struct scn_expr *e, bool live);

/* The final condition's state as the run ended, before its objects go. */
static void keep_state(struct scn_run *run, const struct scn_expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_STATE)
		run->state[e->slot] = cond_value(run, e, true);
	keep_state(run, e->lhs);
	keep_state(run, e->rhs);
}

/*
 * The invariants, at every scheduling point: the first point where one is
 * broken is its finding, raised in the running context (its time, CPU and
 * scenario line). Nothing here makes a decision or a step: the run is the
 * run without invariants, plus their findings' records.
 */
static void check_invariants(void *arg)
{
	struct scn_run *run = arg;
	const struct scn *s = run->scn;

	for (int i = 0; i < s->ninvariants; i++) {
		const struct scn_invariant *inv = &s->invariants[i];
		char *state = NULL;
		size_t len = 0;
		FILE *mem;
		long v;

		if (run->broken[i])
			continue;
		v = cond_value(run, inv->cond, true);
		if (inv->never ? !v : v)
			continue;
		run->broken[i] = true;
		mem = memstream_open(&state, &len);
		scn_print_state(mem, run, inv->cond, true);
		fclose(mem);
		/* "a=1; b=0; " without its last separator */
		if (len >= 2)
			state[len - 2] = '\0';
		/* its source is its clause: file, line, always or never */
		sim_raise_at(SIM_F_INVARIANT, sim_site_at(s->path, inv->loc.line,
							  inv->never ? "never" : "always"),
			     "invariant broken: %s%s%s", inv->text, len >= 2 ? "\n" : "",
			     len >= 2 ? state : "");
		free(state);
	}
}

/*
 * on_point: the contract oracles read the state and make this point's
 * events, the invariants see them, then they are over; then the caller's
 * on_point.
 */
static void at_point(void *arg)
{
	struct scn_run *run = arg;

	scn_contract_point(run);
	check_invariants(run);
	scn_contract_settle(run);
	if (run->chain)
		run->chain(run->chain_arg);
}

static void keep_result(struct scn_run *run);

int scn_run(const struct scn *s, const struct kw_model *model, struct scn_run *run, FILE *err)
{
	const struct scn_run was = *run;
	int rc = 0;

	/* a run before leaves nothing but the caller's settings and the buffers it keeps */
	memset(run, 0, sizeof(*run));
	run->on_event = was.on_event;
	run->event_arg = was.event_arg;
	run->on_line = was.on_line;
	run->on_step = was.on_step;
	run->config = was.config;
	run->findings = was.findings;
	run->findings_cap = was.findings_cap;
	run->log = was.log;
	run->log_cap = was.log_cap;
	run->objs = was.objs;
	run->progs = was.progs;
	run->state = was.state;
	run->broken = was.broken;
	run->works = was.works;
	run->cap = was.cap;
	run->contract_kept = was.contract_kept;
	run->cfg = run->config ? *run->config : s->cfg;
	/* the machine is of the variant's era, unless the era setting says which */
	run->cfg.era = s->era ? s->era : model->era;
	run->chain = run->cfg.on_point;
	run->chain_arg = run->cfg.on_point_arg;
	run->cfg.on_point = at_point;
	run->cfg.on_point_arg = run;
	run->scn = s;
	run->model = model;
	run->err = err;
	run->objs = zeroed(run->objs, &run->cap.objs, (size_t)s->nobjs + 1, sizeof(*run->objs));
	run->progs = zeroed(run->progs, &run->cap.progs, (size_t)s->nprogs + 1, sizeof(*run->progs));
	run->state = zeroed(run->state, &run->cap.state, (size_t)s->nstate + 1, sizeof(*run->state));
	run->broken = zeroed(run->broken, &run->cap.broken, (size_t)s->ninvariants + 1,
			     sizeof(*run->broken));
	if (sim_reset(&run->cfg)) {
		fprintf(err, "%s: error: %s\n", s->path, sim_error());
		return -1;
	}
	R = run;
	if (s->replay)
		sim_replay_log(s->log, s->nlog);
	M->register_symbols();
	make_objects();
	if (!sim_spawn("init", setup_main, NULL, 0, true, 0)) {
		fprintf(err, "%s: error: no task can be made (max_tasks = %u)\n", s->path,
			run->cfg.max_tasks);
		return -1;
	}
	run->contract = scn_contract_new(run, run->contract_kept);
	run->contract_kept = NULL;
	run->end = sim_run();
	run->end_time = sim_max_time();
	run->hash = sim_trace_hash();
	run->ndecisions = sim_decision_count();
	keep_result(run);
	if (!run->failed)
		keep_state(run, s->cond);
	run->contract_kept = run->contract;
	run->contract = NULL;
	free_objects();
	R = NULL;
	if (run->failed)
		rc = -1;
	else
		run->cond_holds = s->cond ? scn_eval_final(run, s->cond) != 0 :
			run->nfindings == 0;
	return rc;
}

/* Copy what the machine holds of the run into the run, growing its buffers only. */
static void keep_result(struct scn_run *run)
{
	size_t nf = sim_finding_count(), nd = sim_decision_count();

	if (nf > run->findings_cap) {
		run->findings = realloc(run->findings, nf * sizeof(*run->findings));
		run->findings_cap = nf;
	}
	if (!run->cfg.drop_decisions && nd > run->log_cap) {
		run->log = realloc(run->log, nd * sizeof(*run->log));
		run->log_cap = nd;
	}
	if ((nf && !run->findings) || (!run->cfg.drop_decisions && nd && !run->log))
		abort();
	for (size_t i = 0; i < nf; i++)
		run->findings[i] = *sim_finding(i);
	run->nfindings = nf;
	run->nlog = run->cfg.drop_decisions ? 0 : nd;
	if (run->nlog)
		memcpy(run->log, sim_decisions(), nd * sizeof(*run->log));
	if (run->end == SIM_END_DIVERGED)
		snprintf(run->divergence, sizeof(run->divergence), "%s%s%s", sim_divergence(),
			 sim_divergence_where() ? ", " : "",
			 sim_divergence_where() ? sim_divergence_where() : "");
}

void scn_run_free(struct scn_run *run)
{
	free_state(run);
	free(run->findings);
	free(run->log);
	run->findings = NULL;
	run->log = NULL;
	run->nfindings = run->nlog = run->findings_cap = run->log_cap = 0;
}

/* --- conditions: after the run, or at a scheduling point --------------------------------- */

/* Findings of a kind (and function): the run's, or the machine's so far when live. */
static long findings_matching(const struct scn_run *run, long kind, const char *func, bool live)
{
	size_t nf = live ? sim_finding_count() : run->nfindings;
	long n = 0;

	for (size_t i = 0; i < nf; i++) {
		const struct sim_finding *f = live ? sim_finding(i) : &run->findings[i];

		if ((long)f->kind != kind)
			continue;
		if (func && (!f->site.func || strcmp(f->site.func, func)))
			continue;
		n++;
	}
	return n;
}

/*
 * The model's state, read as it is now with the model's plain reads. The
 * run may have freed a worker (kthread_destroy_worker): what it points to
 * is then not followed, since a touch would be a use-after-free of the
 * run's own; a worker not made yet or gone has no current work, and the
 * works that were on it are on no list of it.
 */
static void *live_worker(void *w)
{
	return w && !IS_ERR(w) && !sim_freed(w) ? w : NULL;
}

static struct kthread_work *state_work(const struct scn_run *run, const struct scn_obj *o)
{
	void *p = run->objs[o->id].ptr;

	return o->kind == OBJ_DWORK ? run->model->dwork_work(p) : p;
}

/* A task's state as task_state() names it, or -1 for none of them. */
static int task_state_of(struct task_struct *t)
{
	unsigned int state = READ_TASK_STATE(t);

	if (state == TASK_DEAD)
		return TS_DEAD;
	/* 4.9's PF_FROZEN (t->frozen), 6.1's TASK_FROZEN */
	if (t->frozen || (state & TASK_FROZEN))
		return TS_FROZEN;
	if (state == TASK_RUNNING)
		return TS_RUNNING;
	if (state & TASK_INTERRUPTIBLE)
		return TS_INTERRUPTIBLE;
	if (state & TASK_UNINTERRUPTIBLE)
		return TS_UNINTERRUPTIBLE;
	return -1;
}

static long state_now(const struct scn_run *run, const struct scn_expr *e)
{
	const struct kw_model *m = run->model;
	struct kthread_work *work = NULL;
	struct task_struct *t = NULL;
	struct kw_work_state ws;
	void *w = NULL;

	switch ((enum scn_pred)e->value) {
	case PRED_TIMER_PENDING:
		if (e->obj->kind == OBJ_TIMER)
			return timer_pending(run->objs[e->obj->id].ptr);
		m->work_state(state_work(run, e->obj), run->objs[e->obj->id].ptr, false, &ws);
		return ws.timer;
	case PRED_PENDING:
		return m->work_pending(state_work(run, e->obj));
	case PRED_CANCELING:
		return m->work_canceling(state_work(run, e->obj));
	case PRED_QUEUED:
	case PRED_DELAYED:
		m->work_state(state_work(run, e->obj), NULL, true, &ws);
		return e->value == PRED_QUEUED ? ws.queued : ws.delayed;
	case PRED_RUNNING:
		work = state_work(run, e->obj);
		w = live_worker(m->work_worker(work));
		return w && m->current_work(w) == work;
	case PRED_CURRENT_WORK:
		w = live_worker(run->objs[e->obj->id].ptr);
		return (w ? m->current_work(w) : NULL) ==
		       (e->obj2 ? state_work(run, e->obj2) : NULL);
	case PRED_INSERTED:
	case PRED_ARMED:
	case PRED_STARTED:
	case PRED_FINISHED:
	case PRED_DURING:
	case PRED_RETURNED:
		return scn_contract_event(run, e);
	case PRED_TASK_STATE:
	case PRED_TASK_CURR:
		t = e->obj ? run->objs[e->obj->id].task : run->progs[e->prog].task;
		if (!t)
			return 0;
		if (e->value == PRED_TASK_CURR)
			return task_curr(t);
		return task_state_of(t) == e->reg;
	}
	return 0;
}

size_t scn_state_objs(const struct scn_run *run, struct scn_obj_state *out, size_t max)
{
	const struct kw_model *m = run->model;
	const struct scn *s = run->scn;
	size_t n = 0;

	for (int i = 0; s && run->objs && i < s->nobjs && n < max; i++) {
		const struct scn_obj *o = s->objs[i];
		struct scn_obj_state *st = &out[n];
		struct kthread_work *work;
		void *w;

		if (!run->objs[o->id].ptr)
			continue;
		*st = (struct scn_obj_state){ .obj = o };
		if (o->kind == OBJ_WORKER) {
			w = live_worker(run->objs[o->id].ptr);
			if (!w)
				continue;
			st->cur_work = run_work_obj(run, m->current_work(w));
			n++;
		} else if (o->kind == OBJ_WORK || o->kind == OBJ_DWORK) {
			struct kw_work_state ws;

			work = state_work(run, o);
			m->work_state(work, o->kind == OBJ_DWORK ? run->objs[o->id].ptr : NULL, true,
				      &ws);
			st->pending = ws.pending;
			st->canceling = ws.canceling;
			st->timer = ws.timer;
			st->queued = ws.queued;
			st->delayed = ws.delayed;
			w = live_worker(ws.worker);
			if (w)
				st->running = m->current_work(w) == work;
			n++;
		}
	}
	return n;
}

static long cond_value(const struct scn_run *run, const struct scn_expr *e, bool live)
{
	const struct scn_run_obj *a = e->obj ? &run->objs[e->obj->id] : NULL;
	const struct scn_run_obj *b = e->obj2 ? &run->objs[e->obj2->id] : NULL;
	long l;

	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		return e->value;
	case EX_REG:
		return run->progs[e->prog].regs[e->reg];
	case EX_OBJ:
		return a && e->obj->kind == OBJ_COUNTER ? a->count : 0;
	case EX_FINDING:
		return findings_matching(run, e->value, e->str, live);
	case EX_RAN:
		return a->count;
	case EX_BEFORE:
		return a->first_start && b->first_start && a->first_start < b->first_start;
	case EX_STATE:
		if (live)
			return state_now(run, e);
		return e->slot >= 0 ? run->state[e->slot] : 0;
	case EX_UNARY:
		return scn_apply(e->op, cond_value(run, e->lhs, live), 0);
	case EX_BINARY:
		l = cond_value(run, e->lhs, live);
		return scn_apply(e->op, l, cond_value(run, e->rhs, live));
	default:
		return 0;
	}
}

long scn_eval_final(const struct scn_run *run, const struct scn_expr *e)
{
	return cond_value(run, e, false);
}

long scn_eval_now(const struct scn_run *run, const struct scn_expr *e)
{
	return cond_value(run, e, true);
}
