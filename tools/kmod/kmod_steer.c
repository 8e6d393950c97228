/*
 * kwsim export FILE --module DIR --steer SCHEDULE: the orderings of a
 * recorded run that the module can enforce. The schedule (a replay file of
 * FILE: --save-schedule, explore's --out, shrink's) is replayed once; its
 * run's steps are the scenario's simple statements (calls, assignments,
 * `at`, `log`) in the programs, irqs and fns, each beginning and ending in
 * the machine's order (scn_run's on_step). When a step B begins, each other
 * context X is either inside a step A (then "A has begun before B begins")
 * or past one (then "A ends before B begins"); that is the run's order of
 * the two contexts at B, and what the module makes B wait for. An ordering
 * X's context already gave Y's (the same A, the same count) is not said
 * again: Y's own order carries it. The init block runs before everything
 * in the module too: no ordering with it.
 *
 * "A has begun before B begins" means A was inside its step when B began:
 * the module also holds A's end until B has begun ("B has begun before A
 * ends"), so that the two overlap as they did (a work still running when a
 * cancel comes), not only start in that order.
 *
 * "A has begun before B begins" says nothing of what happens inside the two
 * calls: when both take the same lock and B takes it first in the run (the
 * cancel begins, the mod takes worker->lock before it), enforcing the
 * statements' order would push the calls' lock sections the other way. Such
 * an ordering is not made; it is said, as the kernel's own.
 *
 * What is not a scenario statement cannot be steered: the kernel's own
 * timer callbacks (kthread_delayed_work_timer_fn) and every line of
 * kthread.c inside a call. Each such step of the run is said, with where it
 * fell among the scenario's steps, as not enforced.
 */
#include "kmod/kmod.h"
#include "scenario/scn.h"

#include <model.h>
#include <sim/sim.h>
#include <sim/trace.h>

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* An ordering of the module's is kept per pair of contexts; more than this many are said, not made. */
#define STEER_MAX_ORDERS 64
#define STEER_MAX_NOTES 16

/* The run's state of one step and of one context, while it is replayed. */
struct step_run {
	const struct scn_stmt *st;
	int owner;
	long begun, ended;
};

/* One execution of a step: the first lock its task took in it, and when. */
struct step_exec {
	int pid;			/* 0: an interrupt's context, not followed */
	uint64_t lock;			/* the lock (its address as traced), 0: none yet */
	uint64_t seq;			/* the order of that acquisition in the run */
};

struct steer_walk {
	struct kmod_steer *out;
	const struct scn *s;		/* the schedule's parse, which runs */
	struct step_run *steps;
	int nsteps;
	int nowners;
	int *cur;			/* per context: the step it is in, -1: none */
	int *last;			/* per context: the step it last ended, -1: none */
	struct kmod_order *said;	/* per (X, Y): the ordering last made, X * nowners + Y */
	struct step_exec *execs;	/* by execution, from 1 */
	size_t nexecs, capexecs;
	int *cur_exec;			/* per context: its step's execution, 0: none */
	int *order_execs;		/* per ordering: A's and B's executions */
	uint64_t seq;			/* lock acquisitions so far */
	size_t dropped;			/* orderings past STEER_MAX_ORDERS */
	size_t kernel_steps;		/* the kernel's own steps past STEER_MAX_NOTES */
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

/* Owners: 0 the init block, 1 + i program i, 1 + nprogs + i fn i. */
static void walk(struct steer_walk *w, const struct scn_stmt *st, int owner, bool count)
{
	for (; st; st = st->next) {
		if (st->kind != ST_IF && st->kind != ST_REPEAT && st->kind != ST_WHILE &&
		    st->kind != ST_BLOCK) {
			if (!count) {
				w->steps[w->nsteps].st = st;
				w->steps[w->nsteps].owner = owner;
			}
			w->nsteps++;
		}
		walk(w, st->body, owner, count);
		walk(w, st->orelse, owner, count);
	}
}

static void walk_all(struct steer_walk *w, const struct scn *s, bool count)
{
	w->nsteps = 0;
	walk(w, s->setup, 0, count);
	for (int i = 0; i < s->nprogs; i++)
		walk(w, s->progs[i]->body, 1 + i, count);
	for (int i = 0; i < s->nfns; i++)
		walk(w, s->fns[i]->body, 1 + s->nprogs + i, count);
}

static int step_of(const struct steer_walk *w, const struct scn_stmt *st)
{
	for (int i = 0; i < w->nsteps; i++)
		if (w->steps[i].st == st)
			return i;
	return -1;
}

const char *kmod_owner_name(const struct scn *s, int owner)
{
	if (owner == 0)
		return "init";
	if (owner <= s->nprogs)
		return s->progs[owner - 1]->name;
	return s->fns[owner - 1 - s->nprogs]->name;
}

/* "P0 line 20 'r0 = kthread_queue_delayed_work(W, D, 1);'" */
void kmod_step_text(const struct scn *s, const struct scn_stmt *st, int owner, char *buf,
		    size_t len)
{
	size_t n = st->end > st->start ? st->end - st->start : 0;
	char text[64];
	size_t k = 0;

	for (size_t i = 0; i < n && k + 4 < sizeof(text); i++) {
		char c = s->text[st->start + i];

		if (c == '\n' || c == '\t')
			c = ' ';
		if (c == ' ' && k && text[k - 1] == ' ')
			continue;
		text[k++] = c;
	}
	if (k + 4 >= sizeof(text))
		memcpy(text + k, "...", 3), k += 3;
	text[k] = '\0';
	snprintf(buf, len, "%s line %d '%s'", kmod_owner_name(s, owner), st->loc.line, text);
}

__attribute__((format(printf, 2, 3)))
static void note(struct steer_walk *w, const char *fmt, ...)
{
	struct kmod_steer *o = w->out;
	va_list ap;
	char *line = malloc(1024);

	if (!line)
		abort();
	va_start(ap, fmt);
	vsnprintf(line, 1024, fmt, ap);
	va_end(ap);
	o->notes = realloc(o->notes, (o->nnotes + 1) * sizeof(*o->notes));
	if (!o->notes)
		abort();
	o->notes[o->nnotes++] = line;
}

static bool same_order(const struct kmod_order *a, const struct kmod_order *b)
{
	return a->a == b->a && a->a_end == b->a_end && a->a_nth == b->a_nth;
}

/* Step b (of context y) begins: what every other context has done by now. */
static void step_begins(struct steer_walk *w, int b)
{
	int y = w->steps[b].owner;
	struct kmod_steer *o = w->out;

	if (y == 0)
		return;
	for (int x = 1; x < w->nowners; x++) {
		struct kmod_order k = { .b = w->steps[b].st, .b_owner = y,
					.b_nth = w->steps[b].begun + 1 };
		struct kmod_order *said = &w->said[x * w->nowners + y];
		int a;

		if (x == y)
			continue;
		if (w->cur[x] >= 0) {
			a = w->cur[x];
			k.a_nth = w->steps[a].begun;
		} else if (w->last[x] >= 0) {
			a = w->last[x];
			k.a_end = true;
			k.a_nth = w->steps[a].ended;
		} else {
			continue;
		}
		k.a = w->steps[a].st;
		k.a_owner = x;
		if (said->a && same_order(said, &k))
			continue;
		*said = k;
		if (o->norders == STEER_MAX_ORDERS) {
			w->dropped++;
			continue;
		}
		w->order_execs[2 * o->norders] = w->cur_exec[x];
		w->order_execs[2 * o->norders + 1] = (int)w->nexecs;	/* b's, made next */
		o->orders[o->norders++] = k;
	}
}

/* A fn's first statement begins again: a new execution, whose order is its own. */
static void new_execution(struct steer_walk *w, int b)
{
	int y = w->steps[b].owner;
	const struct scn *s = w->s;

	if (y <= s->nprogs || s->fns[y - 1 - s->nprogs]->body != w->steps[b].st)
		return;
	for (int x = 0; x < w->nowners; x++)
		memset(&w->said[x * w->nowners + y], 0, sizeof(*w->said));
}

static void on_step(void *arg, const struct scn_stmt *st, bool end, int pid)
{
	struct steer_walk *w = arg;
	int i = step_of(w, st);
	int y;

	if (i < 0)
		return;
	y = w->steps[i].owner;
	if (end) {
		w->steps[i].ended++;
		w->cur[y] = -1;
		w->cur_exec[y] = 0;
		w->last[y] = i;
		return;
	}
	new_execution(w, i);
	if (w->nexecs + 1 >= w->capexecs) {
		w->capexecs = w->capexecs ? 2 * w->capexecs : 256;
		w->execs = realloc(w->execs, w->capexecs * sizeof(*w->execs));
		if (!w->execs)
			abort();
	}
	w->nexecs++;
	w->execs[w->nexecs] = (struct step_exec){ .pid = pid };
	step_begins(w, i);
	w->steps[i].begun++;
	w->cur[y] = i;
	w->cur_exec[y] = (int)w->nexecs;
}

/* A lock taken in a task's own context: the first one of the step it is in. */
static void lock_taken(struct steer_walk *w, const struct sim_rec *r)
{
	w->seq++;
	if (r->flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ) || !r->pid)
		return;
	for (int x = 1; x < w->nowners; x++) {
		struct step_exec *e = w->cur_exec[x] ? &w->execs[w->cur_exec[x]] : NULL;

		if (e && e->pid == r->pid && !e->lock) {
			e->lock = r->a;
			e->seq = w->seq;
		}
	}
}

/* Where a kernel step fell: each context inside a step, or past one. */
static void where_now(struct steer_walk *w, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int x = 1; x < w->nowners && k + 8 < len; x++) {
		int a = w->cur[x] >= 0 ? w->cur[x] : w->last[x];
		char step[160];

		if (a < 0)
			continue;
		kmod_step_text(w->s, w->steps[a].st, x, step, sizeof(step));
		k += (size_t)snprintf(buf + k, len - k, "%s%s %s", k ? ", " : "",
				      w->cur[x] >= 0 ? "while" : "after", step);
	}
	if (!buf[0])
		snprintf(buf, len, "before any program's step");
}

/* The kernel's own timer callbacks: a step the module cannot hold back or wait for. */
static void on_record(void *arg, const struct sim_rec *r)
{
	struct steer_walk *w = arg;
	char where[700];

	if (r->type == REC_LOCK_ACQUIRE) {
		lock_taken(w, r);
		return;
	}
	if (r->type != REC_TIMER_EXPIRE_ENTRY || !r->s || !strncmp(r->s, "scn_", 4) ||
	    !strcmp(r->s, "process_timeout"))
		return;
	if (w->kernel_steps++ >= STEER_MAX_NOTES)
		return;
	where_now(w, where, sizeof(where));
	note(w, "the kernel's timer callback %s ran on cpu%u %s: the kernel fires it at its "
	     "expiry, and its order against the kthread.c lines inside the scenario's calls (a "
	     "lock taken, a flag read) is between two of the kernel's own lines, where the module "
	     "has no hook", r->s, (unsigned int)r->cpu, where);
}

/*
 * "A has begun before B begins" where both took the same lock first and B
 * took it first: the statements' order is not the calls' (which is between
 * kthread.c's own lines): not made, said.
 */
static void drop_contradicted(struct steer_walk *w)
{
	struct kmod_steer *o = w->out;
	int kept = 0;

	for (int i = 0; i < o->norders; i++) {
		const struct kmod_order *k = &o->orders[i];
		const struct step_exec *a = &w->execs[w->order_execs[2 * i]];
		const struct step_exec *b = &w->execs[w->order_execs[2 * i + 1]];
		char text[400];

		if (!k->a_end && a->lock && a->lock == b->lock && b->seq < a->seq) {
			kmod_order_text(w->s, k, text, sizeof(text));
			note(w, "%s: not made, as the second took the lock both calls take first "
			     "before the first did; that order is between two of kthread.c's own lines, "
			     "and enforcing the statements' would push the calls' the other way", text);
			continue;
		}
		o->orders[kept] = *k;
		w->order_execs[2 * kept] = w->order_execs[2 * i];
		w->order_execs[2 * kept + 1] = w->order_execs[2 * i + 1];
		kept++;
	}
	o->norders = kept;
	/* each overlap, held open from A's side too: A does not end before B has begun */
	for (int i = 0; i < kept; i++) {
		const struct kmod_order *k = &o->orders[i];

		if (k->a_end)
			continue;
		o->orders[o->norders++] = (struct kmod_order){
			.a = k->b, .a_owner = k->b_owner, .a_nth = k->b_nth,
			.b = k->a, .b_owner = k->a_owner, .b_end = true, .b_nth = k->a_nth };
	}
}

/* The schedule's scenario must be FILE's, byte for byte before the schedule section. */
static bool same_scenario(const struct scn *a, const struct scn *b, int *line)
{
	size_t la = a->schedule_at, lb = b->schedule_at, i;

	while (la && (a->text[la - 1] == '\n' || a->text[la - 1] == ' '))
		la--;
	while (lb && (b->text[lb - 1] == '\n' || b->text[lb - 1] == ' '))
		lb--;
	*line = 1;
	for (i = 0; i < la && i < lb && a->text[i] == b->text[i]; i++)
		*line += a->text[i] == '\n';
	return la == lb && i == la;
}

/* Replays sched; w->steps are its parse's. 0, or 2 after a message. */
static int replay(struct steer_walk *w, struct scn *sched, FILE *err)
{
	const struct kw_model *m = kw_model_find(sched->kernel);
	struct scn_run run = { .on_step = on_step, .event_arg = w };
	int rc = 0;

	sched->replay = true;
	if (!sched->log_strategy)
		sched->cfg.strategy = SIM_STRATEGY_REPLAY;
	sched->cfg.keep_trace = false;
	sched->cfg.drop_decisions = true;
	if (!m) {
		fprintf(err, "kwsim export: %s: no kernel variant '%s' in this build\n", sched->path,
			sched->kernel);
		return 2;
	}
	sim_trace_set_sink(on_record, w);
	if (scn_run(sched, m, &run, err)) {
		rc = 2;
	} else if (run.end == SIM_END_DIVERGED) {
		fprintf(err, "kwsim export: %s: the schedule no longer fits the scenario: %s\n",
			sched->path, run.divergence);
		rc = 2;
	} else {
		w->out->decisions = run.ndecisions;
	}
	sim_fini();
	scn_run_free(&run);
	return rc;
}

int kmod_steer_plan(const struct scn *s, const char *path, struct kmod_steer *out, FILE *err)
{
	struct scn *sched = scn_load(path, err);
	struct steer_walk w = { .out = out, .s = sched };
	int line, rc;

	memset(out, 0, sizeof(*out));
	if (!sched)
		return 2;
	if (!sched->has_schedule) {
		fprintf(err, "kwsim export: --steer %s: the file has no schedule section (kwsim run "
			"--save-schedule, kwsim explore --out and kwsim shrink write one)\n", path);
		scn_free(sched);
		return 2;
	}
	if (!same_scenario(s, sched, &line)) {
		fprintf(err, "kwsim export: --steer %s: its schedule is not of %s: the scenarios "
			"differ from line %d on (steer with a schedule recorded from %s, or export "
			"the schedule's own file)\n", path, s->path, line, s->path);
		scn_free(sched);
		return 2;
	}
	walk_all(&w, sched, true);
	w.steps = xcalloc((size_t)w.nsteps, sizeof(*w.steps));
	walk_all(&w, sched, false);
	w.nowners = 1 + sched->nprogs + sched->nfns;
	w.cur = xcalloc((size_t)w.nowners, sizeof(int));
	w.last = xcalloc((size_t)w.nowners, sizeof(int));
	for (int i = 0; i < w.nowners; i++)
		w.cur[i] = w.last[i] = -1;
	w.said = xcalloc((size_t)w.nowners * (size_t)w.nowners, sizeof(*w.said));
	w.cur_exec = xcalloc((size_t)w.nowners, sizeof(int));
	w.order_execs = xcalloc(2 * STEER_MAX_ORDERS, sizeof(int));
	out->orders = xcalloc(2 * STEER_MAX_ORDERS, sizeof(*out->orders));
	rc = replay(&w, sched, err);
	if (!rc)
		drop_contradicted(&w);
	if (!rc && w.dropped)
		note(&w, "%zu more orderings of the run are not enforced: the module enforces at "
		     "most %d", w.dropped, STEER_MAX_ORDERS);
	if (!rc && w.kernel_steps > STEER_MAX_NOTES)
		note(&w, "%zu more runs of the kernel's timer callbacks, not enforced as above",
		     w.kernel_steps - STEER_MAX_NOTES);
	/* the orderings name the schedule's parse: name FILE's statements, which are the same */
	if (!rc) {
		struct steer_walk f = { .s = s };

		walk_all(&f, s, true);
		f.steps = xcalloc((size_t)f.nsteps, sizeof(*f.steps));
		walk_all(&f, s, false);
		assert(f.nsteps == w.nsteps);
		for (int i = 0; i < out->norders; i++) {
			struct kmod_order *k = &out->orders[i];

			k->a = f.steps[step_of(&w, k->a)].st;
			k->b = f.steps[step_of(&w, k->b)].st;
		}
		free(f.steps);
	}
	out->path = path;
	free(w.steps);
	free(w.cur);
	free(w.last);
	free(w.said);
	free(w.cur_exec);
	free(w.order_execs);
	free(w.execs);
	scn_free(sched);
	if (rc)
		kmod_steer_free(out);
	return rc;
}

void kmod_steer_free(struct kmod_steer *st)
{
	for (size_t i = 0; i < st->nnotes; i++)
		free(st->notes[i]);
	free(st->notes);
	free(st->orders);
	memset(st, 0, sizeof(*st));
}

static const char *nth(long n, char *buf, size_t len)
{
	static const char *const sfx[] = { "th", "st", "nd", "rd" };
	long m = n % 100;

	if (n == 1)
		return "";
	snprintf(buf, len, " (its %ld%s time)", n, m / 10 == 1 || n % 10 > 3 ? "th" : sfx[n % 10]);
	return buf;
}

void kmod_order_text(const struct scn *s, const struct kmod_order *k, char *buf, size_t len)
{
	char a[160], b[160], na[32], nb[32];

	kmod_step_text(s, k->a, k->a_owner, a, sizeof(a));
	kmod_step_text(s, k->b, k->b_owner, b, sizeof(b));
	snprintf(buf, len, "%s %s%s before %s %s%s", a, k->a_end ? "ends" : "has begun",
		 nth(k->a_nth, na, sizeof(na)), b, k->b_end ? "ends" : "begins",
		 nth(k->b_nth, nb, sizeof(nb)));
}
