/*
 * The JSON view: Chrome trace-event format, as Perfetto's UI and
 * chrome://tracing load it. Layout:
 *
 *  - a process per CPU ("CPU n"): its main thread "running" shows which task
 *    ran when (from sched_switch), its thread "irq" the hardirq, softirq and
 *    timer-callback slices and whatever those contexts recorded;
 *  - a process per task (pid = tid = the task's pid, as each kthread is its
 *    own thread group): the work executions it ran, the locks it spun on
 *    and held, its timers, wake-ups and printk. A task keeps one track wherever it
 *    runs, so a work that migrates mid-execution is still one slice;
 *  - flow arrows from each sched_kthread_work_queue_work to the execution
 *    that consumed it; findings as global instants. Where the kernel has no
 *    work tracepoints (4.9), kwsim's own kwsim_work_* records stand in for
 *    them (trace/events/kwsim.h): the same slices and arrows, under the
 *    category "kwsim" instead of "kthread_work".
 *
 * A queueing is a slice, not a point, so that its arrow's start has a
 * slice to bind to whatever else happens at that time: the queueing call's
 * critical section, from where its context took the lock the queue_work was
 * made under (worker->lock) to where it lets go of it (the worker's wake-up
 * included), or the part of it in the lock's piece (below). The arrow
 * starts where the slice does.
 *
 * A lock held is a slice from lock_acquire to lock_release on the holder's
 * track (its task's, or its CPU's irq thread). Slices on a track must nest,
 * and locks need not be released in the order taken (spin_unlock(&a) with b
 * still held): the locks taken after the one released are cut there and go
 * on in a new piece each, so every piece nests.
 *
 * CPU processes take pids from PID_MAX_LIMIT up, which no task pid reaches,
 * so Perfetto never mistakes one for a task's thread.
 *
 * Events are written in time order: the records come in the machine's
 * decision order, not in time order (each CPU has its own clock), and
 * Perfetto binds a flow to the slice open on the track when the flow event
 * is read, so the order within one timestamp matters. The sort key is total
 * (emission order breaks ties), so the output is the same for the same
 * records on every host.
 *
 * The view streams: a record is taken as the machine makes it, and an event
 * waits in a heap only until nothing can come before it any more, that is
 * until the machine's watermark and every slice still open (a slice is
 * written with its start time, when it ends) have passed it. What it holds
 * is what is open, not the run. A slice open while more than SPLIT_EVENTS
 * events are made is written in pieces, so that even a task running the
 * whole run holds a window of it. The body goes to a temporary file, since
 * the metadata that comes first names every task of the run.
 *
 * A filter (trace_filter.h) decides at writing: an event is shown if every
 * record it is made of passes, so no slice is shown half and no arrow
 * without both ends' slices. The size limit stops the events where the
 * file would pass it, and otherData says how many were lost.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "view/trace_view.h"

#include <sim/sim.h>

#define PID_MAX_LIMIT		0x400000U
#define CPU_PID(cpu)		(PID_MAX_LIMIT + 2U * (uint32_t)(cpu))
#define CPU_IRQ_TID(cpu)	(CPU_PID(cpu) + 1U)

/* How many events go by between two looks at the body's size. */
#define LIMIT_CHECK_EVERY	64

enum jev_kind {
	JK_RUN,		/* a task on a CPU: r switched it in, r2 out (NULL: still running) */
	JK_WORK,	/* a work's execution: r start, r2 end, q the queue_work it consumed */
	JK_QUEUE,	/* the queue_work marker a flow starts from */
	JK_FLOW_S,
	JK_FLOW_F,
	JK_IRQ,		/* r entry, r2 exit */
	JK_SOFTIRQ,
	JK_TIMER_CB,
	JK_LOCK,
	JK_HOLD,	/* a lock held: r its lock_acquire, r2 its lock_release */
	JK_STALL,	/* a CPU held up (a stall): r, on the CPU's irq track, as an interrupt */
	JK_INSTANT,	/* any other record, on its context's track */
	JK_GLOBAL,	/* an instant across the whole trace */
};

/*
 * Within one timestamp: slices first, longest first, so that a parent is
 * open before its children (each flow start sorts as a slice as long as
 * the queueing's marker, right after it: emit_queue()); then flow ends,
 * which bind to the slice just opened on their track; then instants in
 * emission order. A flow end whose start has the same timestamp comes
 * last, after its start.
 */
enum jev_rank { RANK_SLICE, RANK_FLOW_END, RANK_OTHER, RANK_FLOW_END_LATE };

/* Events and open slices hold copies: the machine's records are not kept. */
struct jev {
	uint64_t ts, dur, seq;
	struct sim_rec r, r2, q;	/* r2, q: when has_r2, has_q */
	const char *fn;		/* a cancelled timer's function, as armed then */
	uint64_t flow;		/* the queueing's number, in the run, from 1 */
	uint64_t cancelled;	/* a marker: the queueing this one follows, taken back unrun */
	uint32_t pid, tid;
	uint8_t kind, rank;
	bool has_r2, has_q;
	bool continues, continued;	/* a piece of a slice split to be written (split()) */
	uint8_t end_type;		/* a piece's end: the record type that will end it */
};

/*
 * A record that opened something still open: the slice goes from `from`
 * (the record's time, or where its last piece ended) and was opened when
 * `seq` events had been made.
 */
struct held {
	struct sim_rec r;
	bool on;
	uint64_t from, seq;
};

/*
 * A slice open while more events than this are made is written in pieces:
 * everything after its start waits for it (events go out in time order),
 * so a task that runs for the whole run would hold the whole run.
 */
#define SPLIT_EVENTS	4096

/* A small sorted map from a 64-bit key (address or pid): lookups by bisection. */
struct aent {
	uint64_t key;
	struct held rec;	/* works: the pending queue_work */
	const char *name;	/* timers: the function armed last */
	char comm[17];		/* tasks: the name */
	uint64_t count;
};

struct amap {
	struct aent *v;
	size_t n, cap;
};

struct open_exec {
	uint64_t work, flow;
	uint32_t pid, tid;
	struct sim_rec start;
	uint64_t from, seq;	/* as in struct held */
	bool continued;
	struct held q;
};

/* A lock held, in the order taken: a track's are a stack but for out-of-order releases. */
struct open_hold {
	uint64_t lock;
	uint32_t pid, tid;
	struct sim_rec acq;
	uint64_t from, seq;	/* as in struct held */
	bool continued;
	/* a queue_work made under it: its slice, from qfrom, is open until the lock's ends */
	struct sim_rec q;
	uint64_t qfrom, qflow, qcancelled;
	bool queued;
};

struct jcpu {
	struct held run;		/* the switch that put the running task on */
	struct held irq, softirq, timer;
	bool irq_used;
};

struct trace_json {
	FILE *body;
	const char *title;
	unsigned int hz;
	int ncpus;
	uint64_t end;			/* the last record's time: open slices close there */
	struct jev *ev;			/* a heap by jev_cmp; ev[nev - 1] unsorted while fresh */
	size_t nev, capev;
	uint64_t seq;
	bool fresh;
	struct amap tasks;		/* pid: name, count of events on its track */
	struct amap works;		/* work: the pending queue_work, its queueing number */
	struct amap timers;		/* timer: its function */
	struct open_exec *open;
	size_t nopen, capopen;
	struct open_hold *holds;
	size_t nholds, capholds;
	struct jcpu *cpu;
	bool written;			/* an event is out: the next needs a comma */
	uint64_t queueings;		/* queue_work records so far, shown or not */
	const struct trace_filter *filter;
	unsigned long long limit;
	unsigned long long *lost_out;
	unsigned int since_check;
	bool cut;			/* the limit was reached: events are counted, not written */
	unsigned long long nwritten, lost;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	if (*cap < need)
		*cap = need;
	p = realloc(p, *cap * size);
	if (!p)
		abort();
	return p;
}

static struct aent *amap_get(struct amap *m, uint64_t key, bool create)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].key == key)
			return &m->v[mid];
		if (m->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create)
		return NULL;
	m->v = grow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
	memmove(&m->v[lo + 1], &m->v[lo], (m->n - lo) * sizeof(*m->v));
	m->v[lo] = (struct aent){ .key = key };
	m->n++;
	return &m->v[lo];
}

/* --- JSON output ---------------------------------------------------------------------- */

/* A string field: NULL is "(null)", as %s prints it in the text view. */
static void json_chars(FILE *out, const char *s)
{
	s = trace_view_str(s);
	json_chars_n(out, s, strlen(s));
}

static void json_vstr(FILE *out, const char *s)
{
	json_str(out, trace_view_str(s));
}

/* "prefix: s" as one JSON string */
static void json_str2(FILE *out, const char *prefix, const char *s)
{
	fputc('"', out);
	json_chars(out, prefix);
	json_chars(out, s);
	fputc('"', out);
}

/* Microseconds with the nanoseconds kept: Perfetto rounds ts * 1000 back to ns. */
static void json_us(FILE *out, const char *key, uint64_t ns)
{
	fprintf(out, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static void json_addr(FILE *out, const char *key, uint64_t a)
{
	fprintf(out, "\"%s\":\"0x%016llx\"", key, (unsigned long long)a);
}

/* "comm-pid" of a task as ftrace names it */
static void json_task(FILE *out, const char *comm, uint64_t pid)
{
	fputc('"', out);
	json_chars(out, pid ? comm : "<idle>");
	fprintf(out, "-%d\"", (int)pid);
}

static void json_head(FILE *out, const char *cat, char ph, const struct jev *e)
{
	fprintf(out, ",\"cat\":\"%s\",\"ph\":\"%c\"", cat, ph);
	json_us(out, "ts", e->ts);
	if (ph == 'X')
		json_us(out, "dur", e->dur);
	else if (ph == 'i')
		fprintf(out, ",\"s\":\"%c\"", e->kind == JK_GLOBAL ? 'g' : 't');
	fprintf(out, ",\"pid\":%u,\"tid\":%u,\"args\":{", e->pid, e->tid);
}

/* --- building the events ------------------------------------------------------------ */

static int jev_cmp(const struct jev *a, const struct jev *b);

static void jev_swap(struct jev *a, struct jev *b)
{
	struct jev t = *a;

	*a = *b;
	*b = t;
}

/* The event emit() returned last is complete now: into the heap with it. */
static void settle(struct trace_json *w)
{
	size_t i = w->nev - 1;

	if (!w->fresh)
		return;
	w->fresh = false;
	while (i && jev_cmp(&w->ev[i], &w->ev[(i - 1) / 2]) < 0) {
		jev_swap(&w->ev[i], &w->ev[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static struct jev heap_pop(struct trace_json *w)
{
	struct jev top = w->ev[0];
	size_t i = 0;

	w->ev[0] = w->ev[--w->nev];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < w->nev && jev_cmp(&w->ev[l], &w->ev[m]) < 0)
			m = l;
		if (l + 1 < w->nev && jev_cmp(&w->ev[l + 1], &w->ev[m]) < 0)
			m = l + 1;
		if (m == i)
			break;
		jev_swap(&w->ev[i], &w->ev[m]);
		i = m;
	}
	return top;
}

/* A new event; the caller may fill in r2, q, flow and fn before the next one. */
static struct jev *emit(struct trace_json *w, enum jev_kind kind, uint64_t ts, uint64_t end,
			uint32_t pid, uint32_t tid, const struct sim_rec *r)
{
	struct jev *e;

	settle(w);
	w->ev = grow(w->ev, &w->capev, w->nev + 1, sizeof(*w->ev));
	e = &w->ev[w->nev];
	*e = (struct jev){ .ts = ts, .dur = end > ts ? end - ts : 0, .seq = w->seq++, .r = *r,
			   .pid = pid, .tid = tid, .kind = (uint8_t)kind };
	switch (kind) {
	case JK_RUN: case JK_WORK: case JK_IRQ: case JK_SOFTIRQ: case JK_TIMER_CB: case JK_LOCK:
	case JK_HOLD: case JK_STALL:
	case JK_QUEUE: case JK_FLOW_S:	/* a flow start sorts as its marker, right after it */
		e->rank = RANK_SLICE;
		break;
	case JK_FLOW_F:
		e->rank = RANK_FLOW_END;
		break;
	default:
		e->rank = RANK_OTHER;
		break;
	}
	w->nev++;
	w->fresh = true;
	return e;
}

/* The track a record's context draws on: irq, its task, or its CPU when idle. */
static void ctx_track(const struct sim_rec *r, uint32_t *pid, uint32_t *tid)
{
	if (r->flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ)) {
		*pid = CPU_PID(r->cpu);
		*tid = CPU_IRQ_TID(r->cpu);
	} else if (r->pid > 0) {
		*pid = *tid = (uint32_t)r->pid;
	} else {
		*pid = *tid = CPU_PID(r->cpu);
	}
}

static struct jev *emit_ctx(struct trace_json *w, enum jev_kind kind, uint64_t ts, uint64_t end,
			    const struct sim_rec *r)
{
	uint32_t pid, tid;

	ctx_track(r, &pid, &tid);
	return emit(w, kind, ts, end, pid, tid, r);
}

static void name_task(struct trace_json *w, uint64_t pid, const char *comm)
{
	struct aent *t;

	if (!pid || pid >= PID_MAX_LIMIT || !comm || !comm[0])
		return;
	t = amap_get(&w->tasks, pid, true);
	if (!t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "%.16s", comm);
}

static void learn_names(struct trace_json *w, const struct sim_rec *r)
{
	if (r->pid > 0 && r->comm[0] && memchr(r->comm, '\0', sizeof(r->comm)))
		name_task(w, (uint64_t)r->pid, r->comm);
	switch (r->type) {
	case REC_SCHED_SWITCH:
		name_task(w, r->a, r->s);
		name_task(w, r->c, r->s2);
		break;
	case REC_SCHED_WAKING:
	case REC_TASK_NEW:
		name_task(w, r->a, r->s);
		break;
	case REC_FREEZER:
		name_task(w, r->a, r->s2);
		break;
	default:
		break;
	}
}

static struct held hold(const struct trace_json *w, const struct sim_rec *r)
{
	return (struct held){ .r = *r, .on = true, .from = r->time, .seq = w->seq };
}

/*
 * Write what a held slice has been so far as a piece ending at t, and go
 * on from t. Only at a time no later record of the slice's track can
 * precede (its CPU's or its task's latest), so the pieces nest as the
 * slices did.
 */
static void split_held(struct trace_json *w, struct held *h, enum jev_kind kind, uint32_t pid,
		       uint32_t tid, uint64_t t, uint8_t end_type)
{
	struct jev *e;

	if (!h->on || h->from >= t)
		return;
	e = emit(w, kind, h->from, t, pid, tid, &h->r);
	e->continued = h->from != h->r.time;
	e->continues = true;
	e->end_type = end_type;
	h->from = t;
	h->seq = w->seq;
}

/*
 * A queueing's marker, from `from` to `end`, and its flow's start: one
 * after the other, with the same time and length, so the start sorts right
 * after the marker it binds to (jev_cmp), before any shorter slice that
 * starts with it.
 */
static void emit_queue(struct trace_json *w, const struct sim_rec *r, uint64_t from, uint64_t end,
		       uint64_t flow, uint64_t cancelled)
{
	struct jev *e = emit_ctx(w, JK_QUEUE, from, end, r);

	e->flow = flow;
	e->cancelled = cancelled;
	e = emit_ctx(w, JK_FLOW_S, from, end, r);
	e->flow = flow;
	e->q = *r;
	e->has_q = true;
}

/* The queueing made under a lock's hold ends at t: after the hold's slice, so inside it. */
static void close_queue(struct trace_json *w, struct open_hold *h, uint64_t t)
{
	if (!h->queued)
		return;
	emit_queue(w, &h->q, h->qfrom, t, h->qflow, h->qcancelled);
	h->queued = false;
}

/* Cut the holdings open on a track at t (from index `above` on): they go on in new pieces. */
static void split_holds(struct trace_json *w, uint32_t pid, uint32_t tid, size_t above, uint64_t t)
{
	for (size_t i = above; i < w->nholds; i++) {
		struct open_hold *h = &w->holds[i];
		struct jev *e;

		if (h->pid != pid || h->tid != tid || h->from >= t)
			continue;
		e = emit(w, JK_HOLD, h->from, t, pid, tid, &h->acq);
		e->continued = h->continued;
		e->continues = true;
		e->end_type = REC_LOCK_RELEASE;
		close_queue(w, h, t);
		h->from = t;
		h->seq = w->seq;
		h->continued = true;
	}
}

static bool too_long(const struct trace_json *w, const struct held *h)
{
	return h->on && w->seq - h->seq > SPLIT_EVENTS;
}

/* r is its CPU's and its task's latest record: split what is open too long on their tracks. */
static void split_long(struct trace_json *w, const struct sim_rec *r)
{
	struct jcpu *c = &w->cpu[r->cpu];
	uint32_t pid = CPU_PID(r->cpu), irq = CPU_IRQ_TID(r->cpu);
	bool any = false;

	if (c->run.r.c && too_long(w, &c->run))
		split_held(w, &c->run, JK_RUN, pid, pid, r->time, REC_SCHED_SWITCH);
	/* a track's slices nest: all of them or none */
	if (too_long(w, &c->irq) || too_long(w, &c->softirq) || too_long(w, &c->timer)) {
		split_held(w, &c->irq, JK_IRQ, pid, irq, r->time, REC_IRQ_EXIT);
		split_held(w, &c->softirq, JK_SOFTIRQ, pid, irq, r->time, REC_SOFTIRQ_EXIT);
		split_held(w, &c->timer, JK_TIMER_CB, pid, irq, r->time, REC_TIMER_EXPIRE_EXIT);
		split_holds(w, pid, irq, 0, r->time);
	}
	if (r->pid <= 0)
		return;
	for (size_t i = 0; i < w->nopen; i++)
		any |= w->open[i].pid == (uint32_t)r->pid && w->seq - w->open[i].seq > SPLIT_EVENTS;
	if (any)
		split_holds(w, (uint32_t)r->pid, (uint32_t)r->pid, 0, r->time);
	for (size_t i = 0; any && i < w->nopen; i++) {
		struct open_exec *x = &w->open[i];
		struct jev *e;

		if (x->pid != (uint32_t)r->pid || x->tid != (uint32_t)r->pid || x->from >= r->time)
			continue;
		e = emit(w, JK_WORK, x->from, r->time, x->pid, x->tid, &x->start);
		e->continued = x->continued;
		e->continues = true;
		e->end_type = REC_MODEL;
		e->q = x->q.r;
		e->has_q = x->q.on;
		e->flow = x->flow;
		if (x->q.on) {	/* the arrow ends on the first piece */
			e = emit(w, JK_FLOW_F, x->start.time, x->start.time, x->pid, x->tid,
				 &x->start);
			e->q = x->q.r;
			e->has_q = true;
			e->flow = x->flow;
			e->end_type = REC_MODEL;
			e->continues = true;
			if (x->q.r.time == x->start.time)
				e->rank = RANK_FLOW_END_LATE;
			x->q.on = false;
		}
		x->from = r->time;
		x->seq = w->seq;
		x->continued = true;
	}
}

static void on_switch(struct trace_json *w, const struct sim_rec *r)
{
	struct jcpu *c = &w->cpu[r->cpu];

	if (c->run.on && c->run.r.c) {
		struct jev *e = emit(w, JK_RUN, c->run.from, r->time, CPU_PID(r->cpu),
				     CPU_PID(r->cpu), &c->run.r);

		e->r2 = *r;
		e->has_r2 = true;
		e->continued = c->run.from != c->run.r.time;
	}
	c->run = hold(w, r);
}

/* The lock taken last, and still held, on r's track; NULL: none. */
static struct open_hold *innermost_hold(struct trace_json *w, const struct sim_rec *r)
{
	uint32_t pid, tid;

	ctx_track(r, &pid, &tid);
	for (size_t k = w->nholds; k-- > 0;)
		if (w->holds[k].pid == pid && w->holds[k].tid == tid)
			return &w->holds[k];
	return NULL;
}

static void on_queue(struct trace_json *w, const struct sim_rec *r)
{
	struct aent *wk = amap_get(&w->works, r->a, true);
	uint64_t cancelled = wk->rec.on ? wk->count : 0;
	struct open_hold *h = innermost_hold(w, r);
	uint64_t from;

	/*
	 * A work is queued once until it runs: a new queueing replaces a
	 * cancelled one (the kernel traces no cancel). Each queueing has its own
	 * number, the flow's id, so an arrow starts only at the queueing that
	 * the execution consumed.
	 */
	wk->rec = hold(w, r);
	wk->count = ++w->queueings;
	if (!h) {	/* made under no lock (the kernel's always hold worker->lock) */
		emit_queue(w, r, r->time, r->time, wk->count, cancelled);
		return;
	}
	/* two under one lock: one after the other */
	from = h->queued ? r->time : h->from;
	close_queue(w, h, r->time);
	h->qfrom = from;
	h->q = *r;
	h->qflow = wk->count;
	h->qcancelled = cancelled;
	h->queued = true;
}

static void on_exec_start(struct trace_json *w, const struct sim_rec *r)
{
	struct aent *wk = amap_get(&w->works, r->a, false);
	struct open_exec *x;

	w->open = grow(w->open, &w->capopen, w->nopen + 1, sizeof(*w->open));
	x = &w->open[w->nopen++];
	*x = (struct open_exec){ .work = r->a, .start = *r, .from = r->time, .seq = w->seq };
	ctx_track(r, &x->pid, &x->tid);
	if (wk && wk->rec.on) {
		x->q = wk->rec;
		x->flow = wk->count;
		wk->rec.on = false;
	}
}

static void close_exec(struct trace_json *w, size_t i, const struct sim_rec *end)
{
	struct open_exec x = w->open[i];
	struct jev *e;

	memmove(&w->open[i], &w->open[i + 1], (w->nopen - i - 1) * sizeof(*w->open));
	w->nopen--;
	e = emit(w, JK_WORK, x.from, end ? end->time : w->end, x.pid, x.tid, &x.start);
	if (end) {
		e->r2 = *end;
		e->has_r2 = true;
	}
	e->continued = x.continued;
	e->q = x.q.r;
	e->has_q = x.q.on;
	e->flow = x.flow;
	if (!x.q.on)
		return;
	e = emit(w, JK_FLOW_F, x.start.time, x.start.time, x.pid, x.tid, &x.start);
	e->q = x.q.r;
	e->has_q = true;
	e->flow = x.flow;
	if (end) {	/* a filter shows the arrow only with the slice it ends on */
		e->r2 = *end;
		e->has_r2 = true;
	}
	if (x.q.r.time == x.start.time)
		e->rank = RANK_FLOW_END_LATE;
}

static void on_exec_end(struct trace_json *w, const struct sim_rec *r)
{
	uint32_t pid, tid;

	ctx_track(r, &pid, &tid);
	for (size_t i = w->nopen; i-- > 0;) {
		if (w->open[i].work == r->a && w->open[i].pid == pid && w->open[i].tid == tid) {
			close_exec(w, i, r);
			return;
		}
	}
	emit_ctx(w, JK_INSTANT, r->time, r->time, r);	/* an end without a start */
}

static void on_model(struct trace_json *w, const struct sim_rec *r)
{
	switch (sim_rec_work_step(r)) {
	case SIM_WORK_QUEUE:
		on_queue(w, r);
		break;
	case SIM_WORK_START:
		on_exec_start(w, r);
		break;
	case SIM_WORK_END:
		on_exec_end(w, r);
		break;
	default:
		emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		break;
	}
}

/* Handlers open on entry (a slot per kind) and close on exit, on the CPU's irq track. */
static void close_handler(struct trace_json *w, struct held *slot, enum jev_kind kind,
			  const struct sim_rec *r)
{
	struct jev *e;

	if (!slot->on) {
		emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		return;
	}
	e = emit(w, kind, slot->from, r ? r->time : w->end, CPU_PID(slot->r.cpu),
		 CPU_IRQ_TID(slot->r.cpu), &slot->r);
	if (r) {
		e->r2 = *r;
		e->has_r2 = true;
	}
	e->continued = slot->from != slot->r.time;
	slot->on = false;
}

static void on_lock_acquire(struct trace_json *w, const struct sim_rec *r)
{
	struct open_hold *h;

	w->holds = grow(w->holds, &w->capholds, w->nholds + 1, sizeof(*w->holds));
	h = &w->holds[w->nholds++];
	*h = (struct open_hold){ .lock = r->a, .acq = *r, .from = r->time, .seq = w->seq };
	ctx_track(r, &h->pid, &h->tid);
}

static void on_lock_release(struct trace_json *w, const struct sim_rec *r)
{
	uint32_t pid, tid;
	size_t k = w->nholds;
	struct jev *e;

	ctx_track(r, &pid, &tid);
	while (k > 0 && (w->holds[k - 1].lock != r->a || w->holds[k - 1].pid != pid ||
			 w->holds[k - 1].tid != tid))
		k--;
	if (!k) {	/* taken in another context: no slice to end */
		emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		return;
	}
	k--;
	/* what was taken after it and is still held is cut here, and goes on */
	split_holds(w, pid, tid, k + 1, r->time);
	e = emit(w, JK_HOLD, w->holds[k].from, r->time, pid, tid, &w->holds[k].acq);
	e->r2 = *r;
	e->has_r2 = true;
	e->continued = w->holds[k].continued;
	close_queue(w, &w->holds[k], r->time);
	memmove(&w->holds[k], &w->holds[k + 1], (w->nholds - k - 1) * sizeof(*w->holds));
	w->nholds--;
}

static void on_record(struct trace_json *w, const struct sim_rec *r)
{
	struct jcpu *c = &w->cpu[r->cpu];
	struct aent *t;

	switch (r->type) {
	case REC_SCHED_SWITCH:
		on_switch(w, r);
		break;
	case REC_MODEL:
		on_model(w, r);
		break;
	case REC_IRQ_ENTRY:
		c->irq = hold(w, r);
		break;
	case REC_IRQ_EXIT:
		close_handler(w, &c->irq, JK_IRQ, r);
		break;
	case REC_SOFTIRQ_ENTRY:
		c->softirq = hold(w, r);
		break;
	case REC_SOFTIRQ_EXIT:
		close_handler(w, &c->softirq, JK_SOFTIRQ, r);
		break;
	case REC_TIMER_EXPIRE_ENTRY:
		c->timer = hold(w, r);
		break;
	case REC_TIMER_EXPIRE_EXIT:
		close_handler(w, &c->timer, JK_TIMER_CB, r);
		break;
	case REC_TIMER_START:
		amap_get(&w->timers, r->a, true)->name = r->s;
		emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		break;
	case REC_TIMER_CANCEL:
		/* the record has only the address: the function is the last one armed there */
		t = amap_get(&w->timers, r->a, false);
		emit_ctx(w, JK_INSTANT, r->time, r->time, r)->fn = t ? t->name : NULL;
		break;
	case REC_LOCK_CONTENDED:
		/* the record comes when the lock is got: the spinning went before it */
		emit_ctx(w, JK_LOCK, r->time > r->b ? r->time - r->b : 0, r->time, r);
		break;
	case REC_LOCK_ACQUIRE:
		on_lock_acquire(w, r);
		break;
	case REC_LOCK_RELEASE:
		on_lock_release(w, r);
		break;
	case REC_FINDING:
		emit(w, JK_GLOBAL, r->time, r->time, CPU_PID(r->cpu), CPU_PID(r->cpu), r);
		break;
	case REC_STALL:
		/* nothing runs on the CPU meanwhile: it nests in whatever the irq track has open */
		emit(w, JK_STALL, r->time, r->time + r->a, CPU_PID(r->cpu), CPU_IRQ_TID(r->cpu), r);
		break;
	case REC_FREEZER:
		/* freeze, thaw, suspended, failed are the system's; frozen, thawed a task's */
		if (!r->a && !r->s2)
			emit(w, JK_GLOBAL, r->time, r->time, CPU_PID(r->cpu), CPU_PID(r->cpu), r);
		else
			emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		break;
	default:
		emit_ctx(w, JK_INSTANT, r->time, r->time, r);
		break;
	}
}

/* Whatever is still open when the records end closes at the last record's time. */
static void close_all(struct trace_json *w)
{
	for (int i = 0; i < w->ncpus; i++) {
		struct jcpu *c = &w->cpu[i];

		if (c->run.on && c->run.r.c)
			emit(w, JK_RUN, c->run.from, w->end, CPU_PID(i), CPU_PID(i), &c->run.r)
				->continued = c->run.from != c->run.r.time;
		if (c->timer.on)
			close_handler(w, &c->timer, JK_TIMER_CB, NULL);
		if (c->softirq.on)
			close_handler(w, &c->softirq, JK_SOFTIRQ, NULL);
		if (c->irq.on)
			close_handler(w, &c->irq, JK_IRQ, NULL);
	}
	while (w->nopen)
		close_exec(w, 0, NULL);
	for (size_t i = 0; i < w->nholds; i++) {
		struct open_hold *h = &w->holds[i];

		emit(w, JK_HOLD, h->from, w->end, h->pid, h->tid, &h->acq)->continued = h->continued;
		close_queue(w, h, w->end);
	}
	w->nholds = 0;
}

static int jev_cmp(const struct jev *a, const struct jev *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->rank == RANK_SLICE && a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* --- writing the events -------------------------------------------------------------- */

/* The task a record's context belongs to, as its text line names it. */
static void json_ctx_task(FILE *out, const struct sim_rec *r)
{
	char comm[17];

	snprintf(comm, sizeof(comm), "%.16s", r->comm);
	json_task(out, comm, (uint64_t)(r->pid > 0 ? r->pid : 0));
}

/* A slice's end: unfinished at the end of the records, or a piece of one (split_held()). */
static void write_pieces(FILE *out, const struct jev *e)
{
	if (e->continued)
		fputs(",\"continued\":true", out);
	if (e->continues)
		fputs(",\"continues\":true", out);
	else if (!e->has_r2 && e->kind != JK_RUN)
		fputs(",\"unfinished\":true", out);
}

static void write_run(FILE *out, const struct jev *e)
{
	fputs("{\"name\":", out);
	json_task(out, e->r.s2, e->r.c);
	json_head(out, "sched", 'X', e);
	fprintf(out, "\"cpu\":%u,\"end_state\":", (unsigned int)e->r.cpu);
	json_vstr(out, e->has_r2 ? trace_view_prev_state(&e->r2) : "running");
	if (e->continues || e->continued)
		write_pieces(out, e);
	fputs("}}", out);
}

/* A work's events: the kernel's tracepoints' category, or kwsim's for its own records. */
static const char *work_cat(const struct sim_rec *r)
{
	return sim_rec_kwsim_own(r) ? "kwsim" : "kthread_work";
}

static void write_work(FILE *out, const struct jev *e)
{
	fputs("{\"name\":", out);
	json_vstr(out, e->r.s2);
	json_head(out, work_cat(&e->r), 'X', e);
	json_addr(out, "work", e->r.a);
	fputs(",\"function\":", out);
	json_vstr(out, e->r.s2);
	if (e->has_q) {
		fputc(',', out);
		json_addr(out, "worker", e->q.b);
		fputs(",\"queued_by\":", out);
		json_ctx_task(out, &e->q);
		/* from an interrupt, queued_by is only the task it interrupted */
		if (e->q.flags & TRACE_FLAG_HARDIRQ)
			fputs(",\"queued_in\":\"hardirq\"", out);
		else if (e->q.flags & TRACE_FLAG_SOFTIRQ)
			fputs(",\"queued_in\":\"softirq\"", out);
		fprintf(out, ",\"queued_on_cpu\":%u,\"queueing\":%llu", (unsigned int)e->q.cpu,
			(unsigned long long)e->flow);
		if (e->r.time >= e->q.time)
			fprintf(out, ",\"wait_ns\":%llu",
				(unsigned long long)(e->r.time - e->q.time));
	}
	write_pieces(out, e);
	fputs("}}", out);
}

static void write_queue(FILE *out, const struct jev *e)
{
	fputs("{\"name\":", out);
	json_str2(out, "queue_work: ", e->r.s2);
	json_head(out, work_cat(&e->r), 'X', e);
	json_addr(out, "work", e->r.a);
	fputs(",\"function\":", out);
	json_vstr(out, e->r.s2);
	fputc(',', out);
	json_addr(out, "worker", e->r.b);
	fprintf(out, ",\"queueing\":%llu", (unsigned long long)e->flow);
	if (e->cancelled)
		fprintf(out, ",\"cancelled_queueing\":%llu", (unsigned long long)e->cancelled);
	fputs("}}", out);
}

/*
 * v1 flows: Perfetto keys them by (id, cat, name), Chrome's viewers by id:
 * the id is the queueing's number, unique in the trace, so every viewer
 * draws each arrow from the queueing the execution consumed.
 */
static void write_flow(FILE *out, const struct jev *e)
{
	fprintf(out, "{\"name\":\"queue_work\",\"cat\":\"%s\",\"ph\":\"%c\"", work_cat(&e->q),
		e->kind == JK_FLOW_S ? 's' : 'f');
	if (e->kind == JK_FLOW_F)
		fputs(",\"bp\":\"e\"", out);
	fprintf(out, ",\"id\":\"0x%llx\"", (unsigned long long)e->flow);
	json_us(out, "ts", e->ts);
	fprintf(out, ",\"pid\":%u,\"tid\":%u}", e->pid, e->tid);
}

/* A record's fields as its description names them (sim/trace_events.h): every one. */
static void json_fields(FILE *out, const struct sim_rec *r)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);
	struct trace_field_value v;

	for (unsigned int i = 0; i < d->nfields; i++) {
		enum trace_value k = trace_view_field(r, &d->field[i], &v);

		if (i)
			fputc(',', out);
		if (k == TRACE_VALUE_ADDR) {
			json_addr(out, d->field[i].name, (uint64_t)v.n);
			continue;
		}
		fprintf(out, "\"%s\":", d->field[i].name);
		if (k == TRACE_VALUE_STR)
			json_str(out, v.s);
		else if (k == TRACE_VALUE_INT)
			fprintf(out, "%lld", v.n);
		else
			fprintf(out, "%llu", (unsigned long long)v.n);
	}
}

static void write_handler(FILE *out, const struct jev *e)
{
	const struct sim_rec *r = &e->r;

	fputs("{\"name\":", out);
	if (e->kind == JK_IRQ) {
		json_str2(out, "hardirq: ", r->s);
		json_head(out, "irq", 'X', e);
		fprintf(out, "\"irq\":%d", (int)r->a);
	} else if (e->kind == JK_SOFTIRQ) {
		json_str2(out, "softirq: ", r->s ? r->s : "TIMER");
		json_head(out, "irq", 'X', e);
		fprintf(out, "\"vec\":%d", trace_view_softirq_vec(r->s));
	} else {
		json_str2(out, "timer: ", r->s);
		json_head(out, "timer", 'X', e);
		json_fields(out, r);
	}
	fprintf(out, ",\"cpu\":%u", (unsigned int)r->cpu);
	write_pieces(out, e);
	fputs("}}", out);
}

static void write_lock(FILE *out, const struct jev *e)
{
	fputs("{\"name\":", out);
	json_str2(out, "lock_contended: ", e->r.s);
	json_head(out, "lock", 'X', e);
	json_addr(out, "lock", e->r.a);
	fputs(",\"name\":", out);
	json_vstr(out, e->r.s);
	fprintf(out, ",\"spun_ns\":%llu}}", (unsigned long long)e->r.b);
}

static void write_stall(FILE *out, const struct jev *e)
{
	char until[16];

	fputs("{\"name\":", out);
	json_str2(out, "stall: held up until ", sim_stall_until_name((int64_t)e->r.b, until, sizeof(until)));
	json_head(out, "stall", 'X', e);
	fprintf(out, "\"held_ns\":%llu,\"until\":", (unsigned long long)e->r.a);
	json_vstr(out, until);
	fprintf(out, ",\"decision\":%llu,\"cpu\":%u,\"ctx\":", (unsigned long long)e->r.c,
		(unsigned int)e->r.cpu);
	json_vstr(out, e->r.s ? e->r.s : "idle");
	fprintf(out, ",\"line\":%llu", (unsigned long long)e->r.d);
	if (e->r.s2) {
		fputs(",\"note\":", out);
		json_vstr(out, e->r.s2);
	}
	fputs("}}", out);
}

static void write_hold(FILE *out, const struct jev *e)
{
	fputs("{\"name\":", out);
	json_str2(out, "lock held: ", e->r.s);
	json_head(out, "lock", 'X', e);
	json_addr(out, "lock", e->r.a);
	fputs(",\"name\":", out);
	json_vstr(out, e->r.s);
	if (e->r.b & TRACE_LOCK_TRY)
		fputs(",\"trylock\":true", out);
	fprintf(out, ",\"cpu\":%u", (unsigned int)e->r.cpu);
	write_pieces(out, e);
	fputs("}}", out);
}

static void args_timer_start(FILE *out, const struct sim_rec *r, unsigned int hz)
{
	struct trace_timer_start t;

	trace_view_timer_start(r, hz, &t);
	json_addr(out, "timer", r->a);
	fputs(",\"function\":", out);
	json_vstr(out, r->s);
	fprintf(out, ",\"expires\":%lu,\"timeout\":%ld,\"bucket_expiry\":%lu,\"cpu\":%u,"
		"\"idx\":%u,\"flags\":\"%s\"", t.expires, t.timeout, t.bucket_expiry, t.cpu,
		t.idx, t.flags);
}

/* The category a record type's events go under, for the UI's filters. */
static const char *rec_cat(const struct sim_rec *r)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);

	/* the tracefs system (sim/trace_events.h), but a new task goes with sched's */
	switch (r->type) {
	case REC_TASK_NEW:
		return "sched";
	case REC_MODEL:
		return sim_rec_kwsim_own(r) ? "kwsim" : "kthread_work";
	default:
		return d ? d->system : "kwsim";
	}
}

/* An instant's name and category; args come after. */
static const char *instant_name(FILE *out, const struct jev *e)
{
	const struct sim_rec *r = &e->r;
	size_t len;

	switch (r->type) {
	case REC_SCHED_WAKING:
	case REC_TASK_NEW:
		/* "event: comm-pid" of the task it is about */
		fputc('"', out);
		json_chars(out, sim_rec_type_name((enum sim_rec_type)r->type));
		fputs(": ", out);
		json_chars(out, r->s);
		fprintf(out, "-%d\"", (int)r->a);
		break;
	case REC_TIMER_START:
		json_str2(out, "timer_start: ", r->s);
		break;
	case REC_TIMER_CANCEL:
		json_str2(out, "timer_cancel: ", e->fn ? e->fn : "?");
		break;
	case REC_FINDING:
		json_str2(out, "finding: ", r->s);
		break;
	case REC_FREEZER:
		json_str2(out, "freezer: ", r->s);
		break;
	case REC_PRINTK:
		/* the message, its trailing newline cut as the console event cuts it */
		len = strlen(trace_view_str(r->s));
		if (len && r->s[len - 1] == '\n')
			len--;
		fputc('"', out);
		json_chars_n(out, trace_view_str(r->s), len);
		fputc('"', out);
		break;
	case REC_MODEL:
		json_vstr(out, r->s);
		break;
	default:
		json_vstr(out, sim_rec_type_name((enum sim_rec_type)r->type));
		break;
	}
	return rec_cat(r);
}

static void instant_args(FILE *out, struct trace_json *w, const struct sim_rec *r)
{
	switch (r->type) {
	case REC_SCHED_WAKING:
		fprintf(out, "\"pid\":%d,\"comm\":", (int)r->a);
		json_vstr(out, r->s);
		fprintf(out, ",\"target_cpu\":%d", (int)r->b);
		break;
	case REC_TASK_NEW:
		fprintf(out, "\"pid\":%d,\"comm\":", (int)r->a);
		json_vstr(out, r->s);
		break;
	case REC_TASK_EXIT:
		fprintf(out, "\"pid\":%d,\"exit_code\":%d", (int)r->a, (int)r->b);
		break;
	case REC_TIMER_START:
		args_timer_start(out, r, w->hz);
		break;
	case REC_TIMER_CANCEL:
	case REC_TIMER_EXPIRE_EXIT:
	case REC_LOCK_RELEASE:	/* unbalanced: not held in this context */
		json_fields(out, r);
		break;
	case REC_FINDING:
		fputs("\"kind\":", out);
		json_vstr(out, r->s);
		fprintf(out, ",\"index\":%llu,\"cpu\":%u,\"task\":", (unsigned long long)r->a,
			(unsigned int)r->cpu);
		json_ctx_task(out, r);
		break;
	case REC_FREEZER:
		if (!r->a && !r->s2) {	/* a suspend_resume step */
			fprintf(out, "\"val\":%u,\"start\":%s,\"slept_ns\":%llu",
				(unsigned int)r->b, r->c ? "true" : "false", (unsigned long long)r->d);
			break;
		}
		fprintf(out, "\"pid\":%llu,\"comm\":", (unsigned long long)r->a);
		json_vstr(out, r->s2);
		break;
	case REC_PRINTK:
		fprintf(out, "\"level\":%llu", (unsigned long long)r->a);
		break;
	default:
		if (sim_rec_desc(r->type) && sim_rec_desc(r->type)->print == SIM_PRINT_FIELDS &&
		    r->type != REC_IRQ_EXIT) {
			json_fields(out, r);
			break;
		}
		/* a model tracepoint, an exit whose entry is not shown: every field, raw */
		fprintf(out, "\"a\":\"0x%llx\",\"b\":\"0x%llx\",\"c\":\"0x%llx\",\"d\":\"0x%llx\"",
			(unsigned long long)r->a, (unsigned long long)r->b,
			(unsigned long long)r->c, (unsigned long long)r->d);
		if (r->s2) {
			fputs(",\"function\":", out);
			json_vstr(out, r->s2);
		}
		break;
	}
}

static void write_instant(FILE *out, const struct jev *e, struct trace_json *w)
{
	const char *cat;

	fputs("{\"name\":", out);
	cat = instant_name(out, e);
	json_head(out, cat, 'i', e);
	instant_args(out, w, &e->r);
	fputs("}}", out);
}

static void write_event(FILE *out, const struct jev *e, struct trace_json *w)
{
	switch (e->kind) {
	case JK_RUN:
		write_run(out, e);
		break;
	case JK_WORK:
		write_work(out, e);
		break;
	case JK_QUEUE:
		write_queue(out, e);
		break;
	case JK_FLOW_S:
	case JK_FLOW_F:
		write_flow(out, e);
		break;
	case JK_IRQ:
	case JK_SOFTIRQ:
	case JK_TIMER_CB:
		write_handler(out, e);
		break;
	case JK_LOCK:
		write_lock(out, e);
		break;
	case JK_HOLD:
		write_hold(out, e);
		break;
	case JK_STALL:
		write_stall(out, e);
		break;
	default:
		write_instant(out, e, w);
		break;
	}
}

/* Events are separated, not terminated: JSON allows no trailing comma. */
static void next_event(FILE *out, struct trace_json *w)
{
	if (w->written)
		fputs(",\n", out);
	w->written = true;
}

static void write_meta(FILE *out, struct trace_json *w, const char *what, uint32_t pid,
		       uint32_t tid, const char *name, long sort)
{
	next_event(out, w);
	fprintf(out, "{\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,\"args\":{",
		what, pid, tid);
	if (name) {
		fputs("\"name\":", out);
		json_vstr(out, name);
	} else {
		fprintf(out, "\"sort_index\":%ld", sort);
	}
	fputs("}}", out);
}

static void write_metadata(FILE *out, struct trace_json *w)
{
	char name[32];

	for (int i = 0; i < w->ncpus; i++) {
		snprintf(name, sizeof(name), "CPU %d", i);
		write_meta(out, w, "process_name", CPU_PID(i), CPU_PID(i), name, 0);
		write_meta(out, w, "process_sort_index", CPU_PID(i), CPU_PID(i), NULL, i);
		write_meta(out, w, "thread_name", CPU_PID(i), CPU_PID(i), "running", 0);
		if (w->cpu[i].irq_used)
			write_meta(out, w, "thread_name", CPU_PID(i), CPU_IRQ_TID(i), "irq", 0);
	}
	for (size_t i = 0; i < w->tasks.n; i++) {
		const struct aent *t = &w->tasks.v[i];
		uint32_t pid = (uint32_t)t->key;

		if (!t->count)
			continue;
		write_meta(out, w, "process_name", pid, pid, t->comm[0] ? t->comm : "<...>", 0);
		write_meta(out, w, "process_sort_index", pid, pid, NULL, (long)w->ncpus + pid);
		write_meta(out, w, "thread_name", pid, pid, t->comm[0] ? t->comm : "<...>", 0);
	}
}

/* --- the stream ------------------------------------------------------------------------ */

struct trace_json *trace_json_begin(const struct trace_view_opts *o)
{
	struct trace_json *w = calloc(1, sizeof(*w));

	if (!w)
		abort();
	w->body = tmpfile();
	w->title = o && o->title ? o->title : "";
	w->filter = o ? o->filter : NULL;
	w->limit = o ? o->limit : 0;
	w->lost_out = o ? o->lost : NULL;
	w->hz = trace_view_hz(o);
	w->ncpus = o && o->ncpus > 0 ? o->ncpus : 1;
	w->cpu = calloc((size_t)w->ncpus, sizeof(*w->cpu));
	if (!w->cpu)
		abort();
	if (!w->body) {
		free(w->cpu);
		free(w);
		return NULL;
	}
	return w;
}

void trace_json_record(struct trace_json *w, const struct sim_rec *r)
{
	if (r->cpu >= w->ncpus) {
		w->cpu = realloc(w->cpu, (size_t)(r->cpu + 1) * sizeof(*w->cpu));
		if (!w->cpu)
			abort();
		memset(&w->cpu[w->ncpus], 0, (size_t)(r->cpu + 1 - w->ncpus) * sizeof(*w->cpu));
		w->ncpus = r->cpu + 1;
	}
	if (r->time > w->end)
		w->end = r->time;
	learn_names(w, r);
	on_record(w, r);
	split_long(w, r);
}

/* The earliest time an event not made yet can start at: slices start when they open. */
static uint64_t open_since(const struct trace_json *w, uint64_t t)
{
	for (int i = 0; i < w->ncpus; i++) {
		const struct jcpu *c = &w->cpu[i];

		if (c->run.on && c->run.r.c && c->run.from < t)
			t = c->run.from;
		if (c->irq.on && c->irq.from < t)
			t = c->irq.from;
		if (c->softirq.on && c->softirq.from < t)
			t = c->softirq.from;
		if (c->timer.on && c->timer.from < t)
			t = c->timer.from;
	}
	for (size_t i = 0; i < w->nopen; i++)
		if (w->open[i].from < t)
			t = w->open[i].from;
	for (size_t i = 0; i < w->nholds; i++)
		if (w->holds[i].from < t)
			t = w->holds[i].from;
	return t;
}

/*
 * Whether the filter shows e: every record it is made of passes. A slice
 * whose begin or end is filtered out is not shown half, nor an arrow
 * whose queueing or execution is not shown; an execution whose queueing
 * is filtered out is shown without it.
 */
static bool shown(const struct trace_json *w, struct jev *e)
{
	const struct trace_filter *f = w->filter;

	if (!f)
		return true;
	if (!trace_filter_pass(f, &e->r) || (e->has_r2 && !trace_filter_pass(f, &e->r2)))
		return false;
	if (e->continues) {
		/* a piece: by the record that would end it there */
		struct sim_rec end = e->r;

		end.type = e->end_type;
		end.time = e->kind == JK_FLOW_F ? e->r.time : e->ts + e->dur;
		if (end.type == REC_MODEL)	/* the kernel's, or kwsim's own in its place */
			end.s = sim_rec_kwsim_own(&e->r) ? "kwsim_work_execute_end"
							 : "sched_kthread_work_execute_end";
		if (!trace_filter_pass(f, &end))
			return false;
	}
	if (e->kind == JK_FLOW_F)
		return trace_filter_pass(f, &e->q);
	if (e->kind == JK_WORK && e->has_q && !trace_filter_pass(f, &e->q))
		e->has_q = false;
	return true;
}

static void release(struct trace_json *w, uint64_t watermark, bool all)
{
	uint64_t t = open_since(w, watermark);

	settle(w);
	while (w->nev && (all || w->ev[0].ts < t)) {
		struct jev e = heap_pop(w);

		if (!shown(w, &e))
			continue;
		if (w->limit && !w->cut && ++w->since_check == LIMIT_CHECK_EVERY) {
			w->since_check = 0;
			w->cut = ftello(w->body) >= (off_t)w->limit;
		}
		if (w->cut) {
			w->lost++;
			continue;
		}
		/* a task's process is named only if something is on its track */
		if (e.pid == e.tid && e.pid < PID_MAX_LIMIT && e.kind != JK_GLOBAL)
			amap_get(&w->tasks, e.pid, true)->count++;
		if (e.pid >= PID_MAX_LIMIT && e.tid == e.pid + 1)
			w->cpu[(e.pid - PID_MAX_LIMIT) / 2].irq_used = true;
		next_event(w->body, w);
		write_event(w->body, &e, w);
		w->nwritten++;
	}
}

void trace_json_release(struct trace_json *w, uint64_t watermark)
{
	release(w, watermark, false);
}

size_t trace_json_held(const struct trace_json *w)
{
	return w->nev + w->nopen;
}

/* What follows the events: the title, and the filter and the cut when there are. */
static void write_tail(FILE *out, const struct trace_json *w, unsigned long long written,
		       unsigned long long lost)
{
	fputs("\n],\n\"otherData\":{\"generator\":\"kwsim\",\"title\":", out);
	json_str(out, w->title);
	fprintf(out, ",\"hz\":%u,\"ncpus\":%d", w->hz, w->ncpus);
	if (trace_filter_text(w->filter)) {
		fputs(",\"filter\":", out);
		json_str(out, trace_filter_text(w->filter));
	}
	if (lost)
		fprintf(out, ",\"cut\":{\"limit\":%llu,\"events_written\":%llu,"
			"\"events_lost\":%llu}", w->limit, written, lost);
	fputs("}\n}\n", out);
}

/* The length of what f writes, measured without writing it. */
static unsigned long long measure(void (*f)(FILE *, struct trace_json *, unsigned long long,
					    unsigned long long),
				  struct trace_json *w, unsigned long long a, unsigned long long b)
{
	FILE *null = fopen("/dev/null", "w");
	long n;

	if (!null)
		return 0;
	f(null, w, a, b);
	n = ftell(null);
	fclose(null);
	return n > 0 ? (unsigned long long)n : 0;
}

static void write_head(FILE *out, struct trace_json *w, unsigned long long any,
		       unsigned long long unused)
{
	bool written = w->written;

	(void)unused;
	w->written = false;
	fputs("{\"traceEvents\":[\n", out);
	write_metadata(out, w);
	if (any && w->written)
		fputs(",\n", out);
	w->written = written;
}

static void write_tail_cb(FILE *out, struct trace_json *w, unsigned long long written,
			  unsigned long long lost)
{
	write_tail(out, w, written, lost);
}

int trace_json_end(struct trace_json *w, FILE *out)
{
	off_t len;
	long long kept;
	unsigned long long dropped = 0;
	int rc = 0;

	close_all(w);
	release(w, 0, true);
	if (!out)
		goto done;
	len = ftello(w->body);
	kept = len;
	if (len >= 0 && w->limit) {
		/* the whole file within the limit; the tail's numbers as wide as they get */
		unsigned long long fixed = measure(write_head, w, 1, 0) +
					   measure(write_tail_cb, w, ~0ULL, ~0ULL);

		kept = trace_view_fit(w->body, (unsigned long long)len,
				      w->limit > fixed ? w->limit - fixed : 0, &dropped);
		/* the kept events end with the separator before the first one cut */
		if (dropped && kept >= 2)
			kept -= 2;
		w->nwritten -= dropped;
		w->lost += dropped;
	}
	if (len < 0 || kept < 0) {
		rc = -1;
		goto done;
	}
	write_head(out, w, kept > 0, 0);
	rc = trace_view_copy(out, w->body, (unsigned long long)kept);
	write_tail(out, w, w->nwritten, w->lost);
	if (ferror(out))
		rc = -1;
done:
	if (w->lost_out)
		*w->lost_out = w->lost;
	fclose(w->body);
	free(w->ev);
	free(w->tasks.v);
	free(w->works.v);
	free(w->timers.v);
	free(w->open);
	free(w->holds);
	free(w->cpu);
	free(w);
	return rc;
}

void trace_write_json(FILE *out, const struct sim_rec *recs, size_t n,
		      const struct trace_view_opts *o)
{
	struct trace_json *w = trace_json_begin(o);

	if (!w)
		abort();
	for (size_t i = 0; i < n; i++)
		trace_json_record(w, &recs[i]);
	trace_json_end(w, out);
}
