/*
 * Contract oracles (scn_contract.h): the promised effects of the
 * kthread_worker API, one table of rules, each with its kernel-doc
 * sentence, checked from the interpreter's view of a run.
 *
 * Time in the monitor is a sequence number, not a clock: every scheduling
 * point and every call or execution event takes the next one, in the
 * machine's order. What makes the checks exact under concurrency is a
 * call's last point: the sequence number of the last scheduling point its
 * own context made before the call returned. The kernel's calls end with
 * an unlock, a scheduling point after which the caller does nothing more
 * to the work; another context may still queue it before the caller is
 * back, which the kernel allows. So a queueing seen after the call's last
 * point happened after the call's effect and excuses the state it leaves;
 * one seen before it did not, and the call had to undo it.
 */
#include "scn_contract.h"

#include "scn_api.h"

#include <model.h>
#include <linux/sched.h>
#include <sim/text.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- the rules ---------------------------------------------------------------------------- */

enum rule_id {
	R_CANCEL_IDLE, R_CANCEL_RERUN, R_CANCEL_BLOCK, R_CANCEL_RESULT, R_QUEUE_RESULT, R_QUEUE_DELAYED_RESULT,
	R_QUEUE_DELAYED_NOW, R_MOD_RESULT, R_FLUSH_WORK, R_FLUSH_WORKER, R_DESTROY_FLUSH,
	R_DESTROY_IDLE, R__COUNT
};

/*
 * Each rule: its id, the function whose kernel-doc promises it, the line
 * of 6.12's kernel/kthread.c where the sentence is, and the sentence.
 * CONTRACT.md ("Promised effects") says how each is checked. The
 * sentences that more than one rule quotes are written once.
 */
#define DOC_CANCEL_SYNC	"Cancel @work and wait for its execution to finish. This function can be " \
			"used even if the work re-queues itself."
#define DOC_CANCELED	"A special case is when the work is being canceled in parallel. [...] " \
			"We let the other command win"
#define DOC_DESTROY	"Flush and destroy @worker."

static const struct rule {
	const char *id;
	const char *func;
	int line;
	const char *doc;
} rules[R__COUNT] = {
	[R_CANCEL_IDLE] = { "cancel-idle", "kthread_cancel_work_sync", 1356,
		"On return from this function, @work is guaranteed to be not pending or executing "
		"on any CPU." },
	[R_CANCEL_RERUN] = { "cancel-rerun", "kthread_cancel_work_sync", 1355, DOC_CANCEL_SYNC },
	[R_CANCEL_BLOCK] = { "cancel-block", "kthread_cancel_work_sync", 1355,
		DOC_CANCEL_SYNC " (kthread_mod_delayed_work(): \"" DOC_CANCELED "\")" },
	[R_CANCEL_RESULT] = { "cancel-result", "kthread_cancel_work_sync", 1365,
		"Return: %true if @work was pending, %false otherwise." },
	[R_QUEUE_RESULT] = { "queue-result", "kthread_queue_work", 1018,
		"Returns %true if @work was successfully queued, %false if it was already "
		"pending." },
	[R_QUEUE_DELAYED_RESULT] = { "queue-delayed-result", "kthread_queue_delayed_work", 1116,
		"Return: %false if the @work has already been pending. It means that either the "
		"timer was running or the work was queued. It returns %true otherwise." },
	[R_QUEUE_DELAYED_NOW] = { "queue-delayed-now", "kthread_queue_delayed_work", 1112,
		"If the work has not been pending it starts a timer that will queue the work after "
		"the given @delay. If @delay is zero, it queues the work immediately." },
	[R_MOD_RESULT] = { "mod-result", "kthread_mod_delayed_work", 1254,
		"Return: %false if @dwork was idle and queued, %true otherwise. " DOC_CANCELED
		" and return %true here." },
	[R_FLUSH_WORK] = { "flush-work", "kthread_flush_work", 1156,
		"If @work is queued or executing, wait for it to finish execution." },
	[R_FLUSH_WORKER] = { "flush-worker", "kthread_flush_worker", 1392,
		"Wait until all currently executing or pending works on @worker are finished." },
	[R_DESTROY_FLUSH] = { "destroy-flush", "kthread_destroy_worker", 1411, DOC_DESTROY },
	[R_DESTROY_IDLE] = { "destroy-idle", "kthread_destroy_worker", 1411,
		DOC_DESTROY " The simple flush is enough because the kthread worker API is used "
		"only in trivial scenarios." },
};

const char *scn_contract_rule(size_t i, int *line)
{
	if (i >= R__COUNT)
		return NULL;
	if (line)
		*line = rules[i].line;
	return rules[i].id;
}

/* --- the monitor's state ------------------------------------------------------------------- */

/* Where and when something happened, for a finding's message. */
struct cev {
	uint64_t time;
	int cpu;
	int line;
	char who[24];
	const char *what;		/* a call's name, "execution" */
};

enum { EV_INSERTED = 1, EV_ARMED = 2, EV_STARTED = 4, EV_FINISHED = 8 };

struct cwork {
	const struct scn_obj *obj;
	bool active;			/* named by a watched call: only those can be queued */
	bool q, d, a;			/* at the last point: queued, delayed, timer armed */
	uint64_t origin;		/* the queueing that made it pending last */
	struct cev origin_ev;
	int executing;
	uint64_t exec_start, exec_origin;
	uint64_t ended, last_ended_start;
	uint64_t removers_touched;	/* last seq a cancel or mod of it was in progress */
	uint64_t queuers_touched;	/* ... a queueing call */
	int removers, queuers;		/* such calls in progress */
	/* the latest cancel that returned, until the work is queued again */
	bool canceled;
	uint64_t cancel_last;
	struct cev cancel_ret;
	const char *cancel_api;
	long cancel_v;
	unsigned events;		/* EV_* since the last point */
	uint64_t returned;		/* bit api id: such a call naming it returned since */
	bool dirty;			/* in c->dirty: events to clear after the point */
	uint64_t sampled;		/* the point it was last read at */
};

/* What flush_worker and destroy saw of a work of their worker when they began. */
struct cseen {
	int work;			/* index in c->works */
	bool queued, executing, armed, excused;
	uint64_t ended;
};

struct scn_ccall {
	const struct scn_api *api;
	const struct scn_obj *work, *worker;
	uintptr_t ctx;
	uint64_t begin, last;
	struct cev at;			/* its begin */
	bool pending_seen, canceling_seen, queued, queued_run, seen_cancel;
	bool blocked_broken;		/* cancel-block reported for this cancel */
	bool queued_at_begin, armed_at_begin;
	int executing_at_begin;
	uint64_t ended_at_begin;
	struct cseen *seen;		/* flush_worker, destroy: the worker's works */
	int nseen;
	struct scn_ccall *next;
};

struct scn_contract {
	struct cwork *works;
	int nworks;
	int *by_id;			/* obj id -> index in works, -1 */
	int *active;			/* indexes of active works, in order of use */
	int nactive;
	int *dirty;			/* works with events since the last point */
	int ndirty;
	uint64_t seq;
	struct scn_ccall *calls;	/* in progress */
	struct scn_ccall *spare;	/* ended, for the next calls (zeroed when taken) */
	int nobjs;			/* the scenario's objects, by_id's length */
	struct {
		const struct scn_obj *worker;
		uint64_t mask;
	} *wret;			/* workers' returned(FN, W) since the last point */
	int nwret, capwret;
};

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	return p;
}

static bool is_work(const struct scn_obj *o)
{
	return o->kind == OBJ_WORK || o->kind == OBJ_DWORK;
}

/* kept has the arrays s needs: the same objects, works where s has them (pointers may differ). */
static bool fits(const struct scn_contract *kept, const struct scn *s)
{
	if (!kept || kept->nobjs != s->nobjs)
		return false;
	for (int i = 0; i < s->nobjs; i++)
		if ((kept->by_id[i] >= 0) != is_work(s->objs[i]))
			return false;
	return true;
}

/*
 * A run struct keeps its monitor for the next run (scn_run.c): where it
 * fits the scenario its arrays serve again and only the run's state is
 * cleared; explore's runs made and freed five arrays and a call each.
 */
struct scn_contract *scn_contract_new(const struct scn_run *run, struct scn_contract *kept)
{
	const struct scn *s = run->scn;
	struct scn_contract *c = kept;

	if (fits(kept, s)) {
		while (c->calls) {
			struct scn_ccall *k = c->calls;

			c->calls = k->next;
			free(k->seen);
			k->seen = NULL;
			k->next = c->spare;
			c->spare = k;
		}
		c->nactive = c->ndirty = c->nwret = 0;
		c->seq = 0;
	} else {
		scn_contract_free(kept);
		c = zalloc(sizeof(*c));
		c->nobjs = s->nobjs;
		c->by_id = zalloc((size_t)s->nobjs * sizeof(*c->by_id));
		for (int i = 0; i < s->nobjs; i++)
			c->by_id[i] = is_work(s->objs[i]) ? c->nworks++ : -1;
		c->works = zalloc((size_t)c->nworks * sizeof(*c->works));
		c->active = zalloc((size_t)c->nworks * sizeof(*c->active));
		c->dirty = zalloc((size_t)c->nworks * sizeof(*c->dirty));
	}
	for (int i = 0; i < s->nobjs; i++)
		if (c->by_id[i] >= 0)
			c->works[c->by_id[i]] = (struct cwork){ .obj = s->objs[i] };
	return c;
}

static void free_calls(struct scn_ccall *k)
{
	while (k) {
		struct scn_ccall *next = k->next;

		free(k->seen);
		free(k);
		k = next;
	}
}

void scn_contract_free(struct scn_contract *c)
{
	if (!c)
		return;
	free_calls(c->calls);
	free_calls(c->spare);
	free(c->works);
	free(c->by_id);
	free(c->active);
	free(c->dirty);
	free(c->wret);
	free(c);
}

/* --- reading the model ---------------------------------------------------------------------- */

/* Who runs: the machine's context (a task, an interrupt, a softirq run), not current. */
static uintptr_t ctx_key(void)
{
	return (uintptr_t)sim_running_ctx();
}

static void here(struct cev *ev, int line, const char *what)
{
	struct task_struct *t = current;
	const char *who;
	size_t n;

	ev->time = sim_now();
	ev->cpu = sim_this_cpu();
	ev->line = line;
	ev->what = what;
	/* a copy, cut as snprintf cuts: taken at most scheduling points, said rarely */
	who = in_irq() ? "hardirq" : in_serving_softirq() ? "softirq" : t ? t->comm : "?";
	n = strlen(who);
	if (n >= sizeof(ev->who))
		n = sizeof(ev->who) - 1;
	memcpy(ev->who, who, n);
	ev->who[n] = '\0';
}

static struct kthread_work *work_ptr(const struct scn_run *run, const struct cwork *w)
{
	void *p = run->objs[w->obj->id].ptr;

	return w->obj->kind == OBJ_DWORK ? run->model->dwork_work(p) : p;
}

/* The work's state with the model's plain reads; a freed worker's lists are not followed. */
static struct kw_work_state read_state(const struct scn_run *run, const struct cwork *w)
{
	void *p = run->objs[w->obj->id].ptr;
	struct kw_work_state st;

	run->model->work_state(work_ptr(run, w), w->obj->kind == OBJ_DWORK ? p : NULL, true, &st);
	return st;
}

static struct cwork *cwork_of(struct scn_contract *c, const struct scn_obj *o)
{
	return o && c->by_id[o->id] >= 0 ? &c->works[c->by_id[o->id]] : NULL;
}

static void activate(struct scn_contract *c, struct cwork *w)
{
	if (w->active)
		return;
	w->active = true;
	c->active[c->nactive++] = (int)(w - c->works);
}

/* w has an event of this point: it is cleared after the invariants have seen it. */
static void mark(struct scn_contract *c, struct cwork *w, unsigned events, uint64_t returned)
{
	w->events |= events;
	w->returned |= returned;
	if (!w->dirty) {
		w->dirty = true;
		c->dirty[c->ndirty++] = (int)(w - c->works);
	}
}

static bool is_queueing(enum scn_api_id id)
{
	return id == API_QUEUE_WORK || id == API_QUEUE_DELAYED_WORK || id == API_MOD_DELAYED_WORK;
}

/* Calls that take a work off its list: a cancel, or a mod (which moves it). */
static bool is_removing(enum scn_api_id id)
{
	return id == API_CANCEL_WORK_SYNC || id == API_CANCEL_DELAYED_WORK_SYNC ||
	       id == API_MOD_DELAYED_WORK;
}

static bool watched(enum scn_api_id id)
{
	return is_queueing(id) || is_removing(id) || id == API_FLUSH_WORK ||
	       id == API_FLUSH_WORKER || id == API_DESTROY_WORKER;
}

/* --- findings --------------------------------------------------------------------------------- */

/*
 * v appended at buf + *n in decimal. put_ev() writes with sim/text.h, not
 * printf: the race library's contract findings come in most runs, and the
 * snprintf of their events was 2% of an explored run.
 */
static void put_d(char *buf, size_t len, size_t *n, int v)
{
	if (v < 0)
		sim_put_str(buf, len, n, "-");
	sim_put_dec(buf, len, n, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, 1);
}

/* "\n%s: %s at %llu.%03llu us on cpu%d (%s, line %d)", label, what, us, ns, cpu, who, line */
static void put_ev(char *buf, size_t len, size_t *n, const char *label, const struct cev *ev)
{
	sim_put_str(buf, len, n, "\n");
	sim_put_str(buf, len, n, label);
	sim_put_str(buf, len, n, ": ");
	sim_put_str(buf, len, n, ev->what);
	sim_put_str(buf, len, n, " at ");
	sim_put_dec(buf, len, n, ev->time / 1000, 1);
	sim_put_str(buf, len, n, ".");
	sim_put_dec(buf, len, n, ev->time % 1000, 3);
	sim_put_str(buf, len, n, " us on cpu");
	put_d(buf, len, n, ev->cpu);
	sim_put_str(buf, len, n, " (");
	sim_put_str(buf, len, n, ev->who);
	sim_put_str(buf, len, n, ", line ");
	put_d(buf, len, n, ev->line);
	sim_put_str(buf, len, n, ")");
}

/*
 * "api(obj)" appended, then each of the NULL-ended words: the text of the
 * findings most runs raise (a cancel's, a mod's), without snprintf.
 */
static void put_call(char *buf, size_t len, size_t *n, const struct scn_ccall *k,
		     const struct cwork *w, ...)
{
	const char *s;
	va_list ap;

	sim_put_str(buf, len, n, k->api->name);
	sim_put_str(buf, len, n, "(");
	sim_put_str(buf, len, n, w->obj->name);
	sim_put_str(buf, len, n, ")");
	va_start(ap, w);
	while ((s = va_arg(ap, const char *)))
		sim_put_str(buf, len, n, s);
	va_end(ap);
}

/*
 * A broken promise: its source is the promising call's line, under the
 * function's name, so that contract("kthread_cancel_work_sync") counts it;
 * the finding's own time, CPU and context are the event that shows it.
 */
struct said {
	const char *label;
	const struct cev *ev;
};

/*
 * The text is written once, with sim/text.h: "contract [id] what" and the
 * events, cut at 1000 bytes, then "\nkernel-doc of %s (6.12
 * kernel/kthread.c:%d): \"%s\"", cut at the finding's length, as the
 * snprintf's that wrote it before cut.
 */
static void broken(const struct scn_run *run, enum rule_id r, const char *api, int line,
		   const char *what, struct said a, struct said b, struct said c)
{
	char msg[sizeof(((struct sim_finding *)0)->msg)];
	const size_t head = 1000;
	size_t n = 0;

	sim_put_str(msg, head, &n, "contract [");
	sim_put_str(msg, head, &n, rules[r].id);
	sim_put_str(msg, head, &n, "] ");
	sim_put_str(msg, head, &n, what);
	if (a.ev)
		put_ev(msg, head, &n, a.label, a.ev);
	if (b.ev)
		put_ev(msg, head, &n, b.label, b.ev);
	if (c.ev)
		put_ev(msg, head, &n, c.label, c.ev);
	sim_put_str(msg, sizeof(msg), &n, "\nkernel-doc of ");
	sim_put_str(msg, sizeof(msg), &n, rules[r].func);
	sim_put_str(msg, sizeof(msg), &n, " (6.12 kernel/kthread.c:");
	put_d(msg, sizeof(msg), &n, rules[r].line);
	sim_put_str(msg, sizeof(msg), &n, "): \"");
	sim_put_str(msg, sizeof(msg), &n, rules[r].doc);
	sim_put_str(msg, sizeof(msg), &n, "\"");
	sim_raise_text(SIM_F_CONTRACT, sim_site_at(run->scn->path, line, api), msg);
}

#define SAID(label, ev) ((struct said){ (label), (ev) })
#define NONE ((struct said){ NULL, NULL })

/* --- calls ------------------------------------------------------------------------------------ */

static const struct scn_obj *arg_of(const struct scn_expr *e, bool worker)
{
	for (int i = 0; i < e->nargs; i++) {
		enum scn_arg a = e->api->args[i];

		if (worker ? a == ARG_WORKER : (a == ARG_WORK || a == ARG_DWORK || a == ARG_ANYWORK))
			return e->args[i]->obj;
	}
	return NULL;
}

/* Which works of worker W there are now: flush_worker's and destroy's view at their begin. */
static void see_worker(struct scn_run *run, struct scn_ccall *k)
{
	struct scn_contract *c = run->contract;
	void *wp = run->objs[k->worker->id].ptr;

	k->seen = zalloc((size_t)c->nactive * sizeof(*k->seen));
	for (int i = 0; i < c->nactive; i++) {
		struct cwork *w = &c->works[c->active[i]];
		struct kw_work_state st;

		if (run->model->work_worker(work_ptr(run, w)) != wp)
			continue;
		st = read_state(run, w);
		k->seen[k->nseen++] = (struct cseen){
			.work = c->active[i], .queued = st.queued, .executing = w->executing > 0,
			.armed = st.delayed || st.timer, .excused = w->removers > 0, .ended = w->ended,
		};
	}
}

struct scn_ccall *scn_contract_begin(struct scn_run *run, const struct scn_expr *e)
{
	struct scn_contract *c = run->contract;
	struct scn_ccall *k;
	struct cwork *w;

	if (!c || !watched(e->api->id))
		return NULL;
	if (c->spare) {
		k = c->spare;
		c->spare = k->next;
		memset(k, 0, sizeof(*k));
	} else {
		k = zalloc(sizeof(*k));
	}
	k->api = e->api;
	k->work = arg_of(e, false);
	k->worker = arg_of(e, true);
	k->ctx = ctx_key();
	k->begin = k->last = ++c->seq;
	here(&k->at, e->loc.line, e->api->name);
	w = cwork_of(c, k->work);
	if (w) {
		struct kw_work_state st;

		activate(c, w);
		st = read_state(run, w);
		k->pending_seen = st.pending || st.timer;
		k->canceling_seen = st.canceling > 0;
		k->queued_at_begin = st.queued;
		k->armed_at_begin = st.delayed || st.timer;
		k->executing_at_begin = w->executing;
		k->ended_at_begin = w->ended;
		/* what changed while no call of it ran is no event: only the state now counts */
		w->q = st.queued;
		w->d = st.delayed;
		w->a = st.timer;
		/* a cancel or mod of it in progress, or starting now: "the other command" */
		for (struct scn_ccall *o = c->calls; o; o = o->next) {
			if (o->work != k->work)
				continue;
			if (is_removing(o->api->id))
				k->seen_cancel = true;
			if (is_removing(k->api->id))
				o->seen_cancel = true;
		}
		if (is_removing(e->api->id)) {
			w->removers++;
			w->removers_touched = c->seq;
		}
		if (is_queueing(e->api->id)) {
			w->queuers++;
			w->queuers_touched = c->seq;
		}
	} else if (k->worker && (e->api->id == API_FLUSH_WORKER ||
				 e->api->id == API_DESTROY_WORKER)) {
		see_worker(run, k);
	}
	k->next = c->calls;
	c->calls = k;
	return k;
}

static void cancel_end(struct scn_run *run, struct scn_ccall *k, struct cwork *w, long v)
{
	struct kw_work_state st = read_state(run, w);
	struct cev ret;
	char what[400];
	size_t n;

	here(&ret, k->at.line, k->api->name);
	if (v && !k->pending_seen) {
		n = 0;
		put_call(what, sizeof(what), &n, k, w, " returned true, but ", w->obj->name,
			 " was not pending at any point of the call", NULL);
		broken(run, R_CANCEL_RESULT, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
	}
	if ((st.pending || st.timer) && w->origin <= k->last) {
		n = 0;
		put_call(what, sizeof(what), &n, k, w, " returned with ", w->obj->name, " ",
			 st.pending ? "still pending" : "not on a list but its timer armed",
			 ", queued before the call's last step", NULL);
		broken(run, R_CANCEL_IDLE, k->api->name, k->at.line, what,
		       SAID("queued by", &w->origin_ev), SAID("began", &k->at),
		       SAID("returned", &ret));
	} else if (w->executing > 0 && w->exec_origin <= k->last) {
		n = 0;
		put_call(what, sizeof(what), &n, k, w, " returned while ", w->obj->name,
			 "'s function still executes", NULL);
		broken(run, R_CANCEL_IDLE, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
	}
	w->canceled = true;
	w->cancel_last = k->last;
	w->cancel_ret = ret;
	w->cancel_api = k->api->name;
	w->cancel_v = v;
}

static void queue_end(struct scn_run *run, struct scn_ccall *k, struct cwork *w, long v,
		      long delay)
{
	enum rule_id r = k->api->id == API_QUEUE_WORK ? R_QUEUE_RESULT : R_QUEUE_DELAYED_RESULT;
	struct cev ret;
	char what[400];
	const char *why = NULL;

	here(&ret, k->at.line, k->api->name);
	if (v && !k->queued)
		why = "returned true, but queued nothing";
	else if (!v && k->queued)
		why = "returned false, but queued the work";
	else if (!v && !k->pending_seen && !k->canceling_seen)
		why = "returned false, but the work was neither pending nor being canceled "
		      "during the call";
	if (why) {
		size_t n = 0;

		put_call(what, sizeof(what), &n, k, w, " ", why, NULL);
		broken(run, r, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
	}
	if (!why && v && k->api->id == API_QUEUE_DELAYED_WORK && !delay && !k->queued_run) {
		snprintf(what, sizeof(what), "%s(%s, 0) returned true, but did not queue the work on "
			 "the run list", k->api->name, w->obj->name);
		broken(run, R_QUEUE_DELAYED_NOW, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
	}
}

static void mod_end(struct scn_run *run, struct scn_ccall *k, struct cwork *w, long v)
{
	struct cev ret;
	char what[400];
	const char *why = NULL;

	here(&ret, k->at.line, k->api->name);
	if (!v && !k->queued)
		why = "returned false, but queued nothing";
	else if (v && !k->pending_seen && !k->seen_cancel)
		why = "returned true, but the work was idle and no other cancel or mod of it ran";
	if (why) {
		size_t n = 0;

		put_call(what, sizeof(what), &n, k, w, " ", why, NULL);
		broken(run, R_MOD_RESULT, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
	}
}

/*
 * Whether what a flush saw when it began has finished: the execution then
 * running, and the queueing then on the run list (an execution that began
 * after the flush did, and ended).
 */
static const char *flush_missed(const struct cwork *w, const struct scn_ccall *k, bool queued,
				int executing, uint64_t ended)
{
	if (queued && w->last_ended_start <= k->begin)
		return "the queueing it saw has not finished executing";
	if (executing && w->ended == ended)
		return "the execution it saw has not finished";
	return NULL;
}

static void flush_end(struct scn_run *run, struct scn_ccall *k, struct cwork *w)
{
	struct cev ret;
	char what[400];
	const char *why;

	if (k->seen_cancel)
		return;
	why = flush_missed(w, k, k->queued_at_begin, k->executing_at_begin, k->ended_at_begin);
	if (!why)
		return;
	here(&ret, k->at.line, k->api->name);
	snprintf(what, sizeof(what), "%s(%s) returned, but %s", k->api->name, w->obj->name, why);
	broken(run, R_FLUSH_WORK, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
}

/* flush_worker and destroy: each work of the worker as it was when the call began. */
static void worker_end(struct scn_run *run, struct scn_ccall *k)
{
	struct scn_contract *c = run->contract;
	bool destroy = k->api->id == API_DESTROY_WORKER, armed = false;
	struct cev ret;
	char what[400];

	here(&ret, k->at.line, k->api->name);
	for (int i = 0; i < k->nseen; i++)
		armed |= k->seen[i].armed;
	for (int i = 0; i < k->nseen; i++) {
		const struct cseen *sn = &k->seen[i];
		struct cwork *w = &c->works[sn->work];
		const char *why;

		if (sn->excused || w->removers_touched > k->begin)
			continue;
		why = flush_missed(w, k, sn->queued, sn->executing, sn->ended);
		if (why) {
			snprintf(what, sizeof(what), "%s(%s) returned, but for %s %s", k->api->name,
				 k->worker->name, w->obj->name, why);
			broken(run, destroy ? R_DESTROY_FLUSH : R_FLUSH_WORKER, k->api->name,
			       k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
			continue;
		}
		/* a destroy of a worker with no delayed work armed: it leaves nothing queued */
		if (destroy && !armed && !w->queuers && w->queuers_touched < k->begin &&
		    run->model->work_pending(work_ptr(run, w))) {
			snprintf(what, sizeof(what), "%s(%s) returned with %s still pending",
				 k->api->name, k->worker->name, w->obj->name);
			broken(run, R_DESTROY_IDLE, k->api->name, k->at.line, what, SAID("began", &k->at),
		       SAID("returned", &ret), NONE);
		}
	}
}

static void note_returned(struct scn_contract *c, const struct scn_ccall *k, struct cwork *w)
{
	if (w) {
		mark(c, w, 0, 1ULL << k->api->id);
		return;
	}
	if (!k->worker)
		return;
	if (c->nwret == c->capwret) {
		c->capwret = c->capwret ? 2 * c->capwret : 4;
		c->wret = realloc(c->wret, (size_t)c->capwret * sizeof(*c->wret));
		if (!c->wret)
			abort();
	}
	c->wret[c->nwret].worker = k->worker;
	c->wret[c->nwret++].mask = 1ULL << k->api->id;
}

void scn_contract_end(struct scn_run *run, struct scn_ccall *k, long v, long delay)
{
	struct scn_contract *c = run->contract;
	struct cwork *w;

	if (!k)
		return;
	for (struct scn_ccall **pp = &c->calls; *pp; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			break;
		}
	}
	c->seq++;
	w = cwork_of(c, k->work);
	if (w) {
		if (is_removing(k->api->id)) {
			w->removers--;
			w->removers_touched = c->seq;
		}
		if (is_queueing(k->api->id)) {
			w->queuers--;
			w->queuers_touched = c->seq;
		}
	}
	if (!run->failed) {
		switch (k->api->id) {
		case API_CANCEL_WORK_SYNC:
		case API_CANCEL_DELAYED_WORK_SYNC:
			cancel_end(run, k, w, v);
			break;
		case API_QUEUE_WORK:
		case API_QUEUE_DELAYED_WORK:
			queue_end(run, k, w, v, delay);
			break;
		case API_MOD_DELAYED_WORK:
			mod_end(run, k, w, v);
			break;
		case API_FLUSH_WORK:
			flush_end(run, k, w);
			break;
		default:
			worker_end(run, k);
			break;
		}
		note_returned(c, k, w);
	}
	free(k->seen);
	k->seen = NULL;
	k->next = c->spare;
	c->spare = k;
}

/* --- executions and points ---------------------------------------------------------------------- */

void scn_contract_exec(struct scn_run *run, const struct scn_obj *work, bool begin)
{
	struct scn_contract *c = run->contract;
	struct cwork *w = c ? cwork_of(c, work) : NULL;
	struct cev ev;
	char what[400];

	if (!w)
		return;
	c->seq++;
	if (!begin) {
		w->executing--;
		w->ended++;
		w->last_ended_start = w->exec_start;
		mark(c, w, EV_FINISHED, 0);
		return;
	}
	w->executing++;
	w->exec_start = c->seq;
	w->exec_origin = w->origin;
	mark(c, w, EV_STARTED, 0);
	if (!w->canceled)
		return;
	w->canceled = false;
	if (w->origin > w->cancel_last)
		return;
	here(&ev, work->fn ? work->fn->body_loc.line : work->loc.line, "its function began");
	snprintf(what, sizeof(what), "%s runs again after %s(%s) returned %s, and nothing "
		 "queued it after that call's last step", work->name, w->cancel_api, work->name,
		 w->cancel_v ? "true" : "false");
	broken(run, R_CANCEL_RERUN, w->cancel_api, w->cancel_ret.line, what,
	       SAID("returned", &w->cancel_ret), SAID("then", &ev),
	       w->origin ? SAID("its queueing, before that", &w->origin_ev) : NONE);
}

/*
 * A queueing of w while a cancel of it, in another context, holds the
 * canceling count up: the cancel's "wait for its execution to finish" with
 * queueing blocked, which 6.12 keeps (queuing_blocked(), the timer
 * callback's test, the mod's "let the other command win").
 */
static void check_blocked(struct scn_run *run, struct cwork *w, uintptr_t key,
			  const struct scn_ccall *by)
{
	struct scn_contract *c = run->contract;
	struct cev now;
	char what[400];
	size_t n;

	for (struct scn_ccall *k = c->calls; k; k = k->next) {
		if (k->work != w->obj || k->ctx == key || k->blocked_broken ||
		    (k->api->id != API_CANCEL_WORK_SYNC && k->api->id != API_CANCEL_DELAYED_WORK_SYNC))
			continue;
		k->blocked_broken = true;
		here(&now, by ? by->at.line : 0, by ? by->api->name : "the timer callback");
		n = 0;
		sim_put_str(what, sizeof(what), &n, w->obj->name);
		sim_put_str(what, sizeof(what), &n, " was queued while ");
		put_call(what, sizeof(what), &n, k, w,
			 " was in progress with queueing blocked (canceling ", NULL);
		put_d(what, sizeof(what), &n, run->model->work_canceling(work_ptr(run, w)));
		sim_put_str(what, sizeof(what), &n, ")");
		broken(run, R_CANCEL_BLOCK, k->api->name, k->at.line, what,
		       SAID("the cancel began", &k->at), SAID("queued by", &now), NONE);
	}
}

/* The queueing call of w that the running context is in, if any. */
static struct scn_ccall *queueing_here(struct scn_contract *c, const struct cwork *w,
				       uintptr_t key)
{
	for (struct scn_ccall *k = c->calls; k; k = k->next)
		if (k->ctx == key && k->work == w->obj && is_queueing(k->api->id))
			return k;
	return NULL;
}

/* Read w at this point: its insertion or arming is an event, a queueing call's its origin. */
static void sample(struct scn_run *run, struct cwork *w, uintptr_t key)
{
	struct scn_contract *c = run->contract;
	struct kw_work_state st = read_state(run, w);
	bool ins_run = st.queued && !w->q, armed = (st.delayed && !w->d) || (st.timer && !w->a);

	w->sampled = c->seq;
	if (ins_run || armed) {
		struct scn_ccall *k = queueing_here(c, w, key);

		/* not in a queueing call: the timer moving an armed work keeps its origin */
		if (k) {
			w->origin = c->seq;
			here(&w->origin_ev, k->at.line, k->api->name);
			k->queued = true;
			k->queued_run |= ins_run;
		}
		mark(c, w, (ins_run ? EV_INSERTED : 0) | (armed ? EV_ARMED : 0), 0);
		if (st.canceling > 0)
			check_blocked(run, w, key, k);
	}
	w->q = st.queued;
	w->d = st.delayed;
	w->a = st.timer;
	/* what each call saw of the work, before its own queueing made it pending */
	for (struct scn_ccall *k = c->calls; k; k = k->next) {
		if (k->work != w->obj || k->queued)
			continue;
		k->pending_seen |= st.pending || st.timer;
		k->canceling_seen |= st.canceling > 0;
	}
}

/*
 * A work is read at the points where a watched call naming it is in
 * progress, in any context: only a queueing call inserts or arms it (the
 * timer callback only moves it, keeping its origin), and only calls in
 * progress look at what it was during them. So a point costs the calls in
 * progress, not the scenario's works, and between calls nothing is read.
 */
void scn_contract_point(struct scn_run *run)
{
	struct scn_contract *c = run->contract;
	uintptr_t key;

	if (!c || run->failed || !c->calls)
		return;
	key = ctx_key();
	c->seq++;
	for (struct scn_ccall *k = c->calls; k; k = k->next)
		if (k->ctx == key)
			k->last = c->seq;
	for (struct scn_ccall *k = c->calls; k; k = k->next) {
		struct cwork *w = cwork_of(c, k->work);

		if (w && w->sampled != c->seq)
			sample(run, w, key);
	}
}

void scn_contract_settle(struct scn_run *run)
{
	struct scn_contract *c = run->contract;

	if (!c)
		return;
	for (int i = 0; i < c->ndirty; i++) {
		struct cwork *w = &c->works[c->dirty[i]];

		w->events = 0;
		w->returned = 0;
		w->dirty = false;
	}
	c->ndirty = 0;
	c->nwret = 0;
}

void scn_contract_removing(const struct scn_run *run,
			   void (*fn)(void *arg, const struct scn_obj *work), void *arg)
{
	if (!run->contract)
		return;
	for (const struct scn_ccall *k = run->contract->calls; k; k = k->next)
		if (k->work && is_removing(k->api->id))
			fn(arg, k->work);
}

long scn_contract_event(const struct scn_run *run, const struct scn_expr *e)
{
	struct scn_contract *c = run->contract;
	struct cwork *w;

	if (!c)
		return 0;
	if (e->value == PRED_DURING) {
		for (struct scn_ccall *k = c->calls; k; k = k->next)
			if (k->api == e->api && (k->work == e->obj || k->worker == e->obj))
				return 1;
		return 0;
	}
	if (e->value == PRED_RETURNED && e->obj->kind == OBJ_WORKER) {
		for (int i = 0; i < c->nwret; i++)
			if (c->wret[i].worker == e->obj && (c->wret[i].mask >> e->api->id & 1))
				return 1;
		return 0;
	}
	w = cwork_of(c, e->obj);
	if (!w)
		return 0;
	switch ((enum scn_pred)e->value) {
	case PRED_INSERTED:
		return !!(w->events & EV_INSERTED);
	case PRED_ARMED:
		return !!(w->events & EV_ARMED);
	case PRED_STARTED:
		return !!(w->events & EV_STARTED);
	case PRED_FINISHED:
		return !!(w->events & EV_FINISHED);
	case PRED_RETURNED:
		return (long)(w->returned >> e->api->id & 1);
	default:
		return 0;
	}
}
