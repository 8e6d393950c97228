/*
 * A generated program as a scenario (.kws): kp_print(). Names are a
 * function of the indices: workers W0.., works A<i> (plain) or D<i>
 * (delayed) by their index, their functions fA<i>/fD<i>, timers T0.. with
 * fT0.., locks L0.., completions C0.., counters N0.., threads P0.. and irqs
 * I0.. in context order, the teardown the thread after the last.
 *
 * Two things the program does not say are the printer's:
 *  - a work's statement that makes the work itself pending again (a
 *    requeue) runs at most REQUEUE_MAX times per run, counted in a counter
 *    of its own: a self-requeueing work is the pattern the kernel promises
 *    to cancel safely, and bounded it keeps a run short whatever the
 *    contexts' times;
 *  - hung_task is set beyond the longest legitimate wait the program can
 *    make (every delay, sleep and the suspend added up, twice over), so
 *    that a flush waiting for a long delayed work is not reported as hung;
 *    and time_limit at twice that: a run that goes on past it (a misuse
 *    that corrupted a list, say) stops there, reported, not an hour later.
 */
#include "prog/prog.h"
#include "lib/util.h"
#include "scenario/scn_api.h"

#include <stdlib.h>
#include <string.h>

#define REQUEUE_MAX 8

struct printer {
	FILE *out;
	const struct kp *p;
	char names[KP_MAX_CTX][8];	/* P0, I0, ... by context index */
	unsigned int nthreads;
	bool requeues[KP_MAX_WORKS];	/* the work's fn makes itself pending */
	bool destroyed[KP_MAX_WORKERS];	/* destroyed or stopped by a context */
};

static void work_name(const struct kp *p, unsigned int i, char *buf, size_t len)
{
	snprintf(buf, len, "%c%u", p->work[i].delayed ? 'D' : 'A', i);
}

/* The call each statement makes, named as the scenario language names it (scn_api.c). */
static const enum scn_api_id op_api[KP_OP__COUNT] = {
	[KP_QUEUE_WORK] = API_QUEUE_WORK,
	[KP_QUEUE_DELAYED_WORK] = API_QUEUE_DELAYED_WORK,
	[KP_MOD_DELAYED_WORK] = API_MOD_DELAYED_WORK,
	[KP_FLUSH_WORK] = API_FLUSH_WORK,
	[KP_FLUSH_WORKER] = API_FLUSH_WORKER,
	[KP_CANCEL_WORK_SYNC] = API_CANCEL_WORK_SYNC,
	[KP_CANCEL_DELAYED_WORK_SYNC] = API_CANCEL_DELAYED_WORK_SYNC,
	[KP_DESTROY_WORKER] = API_DESTROY_WORKER,
	[KP_STOP] = API_KTHREAD_STOP,
	[KP_INIT_WORK] = API_INIT_WORK,
	[KP_INIT_DELAYED_WORK] = API_INIT_DELAYED_WORK,
	[KP_MOD_TIMER] = API_MOD_TIMER,
	[KP_DEL_TIMER] = API_DEL_TIMER,
	[KP_DEL_TIMER_SYNC] = API_DEL_TIMER_SYNC,
	[KP_UDELAY] = API_UDELAY,
	[KP_MSLEEP] = API_MSLEEP,
	[KP_COND_RESCHED] = API_COND_RESCHED,
	[KP_COMPLETE] = API_COMPLETE,
	[KP_WAIT] = API_WAIT_FOR_COMPLETION,
};

static const enum scn_api_id lock_api[KP_LOCK__COUNT][2] = {
	[KP_LOCK_PLAIN] = { API_SPIN_LOCK, API_SPIN_UNLOCK },
	[KP_LOCK_IRQ] = { API_SPIN_LOCK_IRQ, API_SPIN_UNLOCK_IRQ },
	[KP_LOCK_IRQSAVE] = { API_SPIN_LOCK_IRQSAVE, API_SPIN_UNLOCK_IRQRESTORE },
	[KP_LOCK_BH] = { API_SPIN_LOCK_BH, API_SPIN_UNLOCK_BH },
};

/* One statement as a call, without the indentation and the newline. */
static void print_call(struct printer *pr, const struct kp_stmt *s)
{
	FILE *out = pr->out;
	const char *call = scn_api_name(op_api[s->op]);
	char wk[8];

	work_name(pr->p, s->b, wk, sizeof(wk));
	switch (s->op) {
	case KP_QUEUE_WORK:
		fprintf(out, "%s(W%u, %s);", call, s->a, wk);
		break;
	case KP_QUEUE_DELAYED_WORK:
	case KP_MOD_DELAYED_WORK:
		fprintf(out, "%s(W%u, %s, %u);", call, s->a, wk, s->arg);
		break;
	case KP_FLUSH_WORK:
	case KP_CANCEL_WORK_SYNC:
	case KP_CANCEL_DELAYED_WORK_SYNC:
		fprintf(out, "%s(%s);", call, wk);
		break;
	case KP_FLUSH_WORKER:
	case KP_DESTROY_WORKER:
		fprintf(out, "%s(W%u);", call, s->a);
		break;
	case KP_STOP:
		/*
		 * W->task of a legacy worker is what its thread sets when it
		 * first runs (kthread_worker_fn); the flush waits for that, so
		 * the stop never reads it unset (a scenario error).
		 */
		if (pr->p->worker[s->a].legacy)
			fprintf(out, "%s(W%u); ", scn_api_name(API_FLUSH_WORKER), s->a);
		fprintf(out, "%s(W%u->task);", call, s->a);
		break;
	case KP_INIT_WORK:
	case KP_INIT_DELAYED_WORK:
		fprintf(out, "%s(%s, f%s);", call, wk, wk);
		break;
	case KP_MOD_TIMER:
		fprintf(out, "%s(T%u, jiffies + %u);", call, s->a, s->arg);
		break;
	case KP_DEL_TIMER:
	case KP_DEL_TIMER_SYNC:
		fprintf(out, "%s(T%u);", call, s->a);
		break;
	case KP_UDELAY:
	case KP_MSLEEP:
		fprintf(out, "%s(%u", call, s->arg);
		if (s->hi)
			fprintf(out, "..%u", s->hi);
		fprintf(out, ");");
		break;
	case KP_COND_RESCHED:
		fprintf(out, "%s();", call);
		break;
	case KP_LOCK:
	case KP_UNLOCK:
		fprintf(out, "%s(L%u);", scn_api_name(lock_api[s->b % KP_LOCK__COUNT][s->op == KP_UNLOCK]),
			s->a);
		break;
	case KP_COMPLETE:
	case KP_WAIT:
		fprintf(out, "%s(C%u);", call, s->a);
		break;
	case KP_COUNT:
		fprintf(out, "N%u++;", s->a);
		break;
	}
}

static bool pends_itself(const struct kp_stmt *s, unsigned int work)
{
	return (s->op == KP_QUEUE_WORK || s->op == KP_QUEUE_DELAYED_WORK ||
		s->op == KP_MOD_DELAYED_WORK) && s->b == work;
}

/* A body's statements, one a line, indented by depth within lock sections. */
static void print_body(struct printer *pr, const struct kp_body *b, int depth, int self_work)
{
	for (unsigned int i = 0; i < b->n; i++) {
		const struct kp_stmt *s = &b->s[i];

		if (s->op == KP_UNLOCK)
			depth--;
		fprintf(pr->out, "%*s", 2 * depth, "");
		if (self_work >= 0 && pends_itself(s, (unsigned int)self_work)) {
			char wk[8];

			work_name(pr->p, (unsigned int)self_work, wk, sizeof(wk));
			fprintf(pr->out, "if (rq%s < %d) { rq%s++; ", wk, REQUEUE_MAX, wk);
			print_call(pr, s);
			fprintf(pr->out, " }");
		} else {
			print_call(pr, s);
		}
		fputc('\n', pr->out);
		if (s->op == KP_LOCK)
			depth++;
	}
}

/* A time as the language writes it: the largest unit that divides it. */
static void print_time(FILE *out, uint64_t us)
{
	if (us && us % 1000000 == 0)
		fprintf(out, "%llus", (unsigned long long)(us / 1000000));
	else if (us && us % 1000 == 0)
		fprintf(out, "%llums", (unsigned long long)(us / 1000));
	else
		fprintf(out, "%lluus", (unsigned long long)us);
}

/*
 * The longest a context can legitimately wait, in ms: every delay (in
 * jiffies at hz), sleep and busy wait of every body added up, a requeueing
 * work's REQUEUE_MAX times, and the suspend's length.
 */
static uint64_t longest_wait_ms(const struct kp *p)
{
	uint64_t ms = 0;

	for (unsigned int i = 0; i < p->nctx + p->nworks + p->ntimers; i++) {
		const struct kp_body *b = i < p->nctx ? &p->ctx[i].body
				       : i < p->nctx + p->nworks ? &p->work[i - p->nctx].fn
				       : &p->timer[i - p->nctx - p->nworks].fn;
		uint64_t rounds = i >= p->nctx && i < p->nctx + p->nworks ? REQUEUE_MAX + 1 : 1;

		for (unsigned int k = 0; k < b->n; k++) {
			const struct kp_stmt *s = &b->s[k];
			uint64_t t = 0;

			if (s->op == KP_QUEUE_DELAYED_WORK || s->op == KP_MOD_DELAYED_WORK ||
			    s->op == KP_MOD_TIMER)
				t = ((uint64_t)s->arg + 1) * 1000 / p->hz + 1;
			else if (s->op == KP_MSLEEP)	/* a range: its longest */
				t = (s->hi ? s->hi : s->arg) + 1;
			else if (s->op == KP_UDELAY)
				t = (s->hi ? s->hi : s->arg) / 1000 + 1;
			ms += rounds * t;
		}
	}
	for (unsigned int i = 0; i < p->nctx; i++)
		ms += (p->ctx[i].at_hi_us ? p->ctx[i].at_hi_us : p->ctx[i].at_us) / 1000 + 1;
	if (p->suspend)
		ms += p->resume_at_us / 1000 + 1;
	return ms;
}

static void print_teardown(struct printer *pr)
{
	const struct kp *p = pr->p;
	FILE *out = pr->out;
	struct kp_where order[KP_MAX_WORKS + KP_MAX_TIMERS];
	int n = kp_quiesce_order(p, order);

	if (n < 0) {	/* they queue each other (under --misuse): index order */
		n = 0;
		for (unsigned int i = 0; i < p->nworks; i++)
			order[n++] = (struct kp_where){ KP_IN_WORK, i };
		for (unsigned int i = 0; i < p->ntimers; i++)
			order[n++] = (struct kp_where){ KP_IN_TIMER, i };
	}

	fprintf(out, "P%u", pr->nthreads);
	if (p->suspend) {
		fprintf(out, " at ");
		print_time(out, p->resume_at_us + 1000);
	}
	fprintf(out, " {\n");
	for (unsigned int i = 0; i < p->nctx; i++)
		fprintf(out, "  %s(done%s);\n", scn_api_name(API_WAIT_FOR_COMPLETION), pr->names[i]);
	for (int k = 0; k < n; k++) {
		unsigned int i = order[k].index;
		char wk[8];

		if (order[k].kind == KP_IN_TIMER) {
			fprintf(out, "  %s(T%u);\n", scn_api_name(API_DEL_TIMER_SYNC), i);
			continue;
		}
		if (pr->destroyed[p->work[i].worker])
			continue;	/* idle: its worker's destroy flushed it */
		work_name(p, i, wk, sizeof(wk));
		fprintf(out, "  %s(%s);\n", scn_api_name(p->work[i].delayed ? API_CANCEL_DELAYED_WORK_SYNC
									  : API_CANCEL_WORK_SYNC), wk);
	}
	for (unsigned int i = 0; i < p->nworkers; i++) {
		if (pr->destroyed[i])
			continue;
		if (p->worker[i].legacy)	/* the flush: print_call's KP_STOP says why */
			fprintf(out, "  %s(W%u);\n  %s(W%u->task);\n", scn_api_name(API_FLUSH_WORKER), i,
				scn_api_name(API_KTHREAD_STOP), i);
		else
			fprintf(out, "  %s(W%u);\n", scn_api_name(API_DESTROY_WORKER), i);
	}
	fprintf(out, "}\n");
}

int kp_print(FILE *out, const struct kp *p, const struct kp_print_opts *o)
{
	struct printer pr = { .out = out, .p = p };
	unsigned int nirqs = 0;
	uint64_t hung_s = 2 * longest_wait_ms(p) / 1000 + 10;
	char wk[8];

	if (hung_s < 120)
		hung_s = 120;
	for (unsigned int i = 0; i < p->nctx; i++) {
		if (p->ctx[i].kind == KP_IRQ)
			snprintf(pr.names[i], sizeof(pr.names[i]), "I%u", nirqs++);
		else
			snprintf(pr.names[i], sizeof(pr.names[i]), "P%u", pr.nthreads++);
		for (unsigned int k = 0; k < p->ctx[i].body.n; k++)
			if ((p->ctx[i].body.s[k].op == KP_DESTROY_WORKER ||
			     p->ctx[i].body.s[k].op == KP_STOP) &&
			    p->ctx[i].body.s[k].a < p->nworkers)
				pr.destroyed[p->ctx[i].body.s[k].a] = true;
	}
	for (unsigned int i = 0; i < p->nworks; i++)
		for (unsigned int k = 0; k < p->work[i].fn.n; k++)
			pr.requeues[i] |= pends_itself(&p->work[i].fn.s[k], i);

	fprintf(out, "KW %s\n", o && o->name ? o->name : "generated");
	if (o && o->comment)
		fprintf(out, "(* %s *)\n", o->comment);
	fprintf(out, "{\n");
	if (o && o->kernel)
		fprintf(out, "  kernel = %s;\n", o->kernel);
	fprintf(out, "  cpus = %u;\n  hz = %u;\n  hung_task = %llus;\n  time_limit = %llus;\n",
		p->cpus, p->hz, (unsigned long long)hung_s, (unsigned long long)(2 * hung_s));
	if (o && o->stall_ns)
		fprintf(out, "  stall = %lluns;\n", (unsigned long long)o->stall_ns);
	for (unsigned int i = 0; i < p->ncounters; i++)
		fprintf(out, "  int N%u = 0;\n", i);
	for (unsigned int i = 0; i < p->nworks; i++)
		if (pr.requeues[i]) {
			work_name(p, i, wk, sizeof(wk));
			fprintf(out, "  int rq%s = 0;\n", wk);
		}
	for (unsigned int i = 0; i < p->nlocks; i++)
		fprintf(out, "  spinlock L%u;\n", i);
	for (unsigned int i = 0; i < p->ncompletions; i++)
		fprintf(out, "  completion C%u;\n", i);
	if (p->teardown)
		for (unsigned int i = 0; i < p->nctx; i++)
			fprintf(out, "  completion done%s;\n", pr.names[i]);
	for (unsigned int i = 0; i < p->nworks; i++) {
		work_name(p, i, wk, sizeof(wk));
		fprintf(out, "  fn f%s {%s", wk, p->work[i].fn.n ? "\n" : " }\n");
		if (p->work[i].fn.n) {
			print_body(&pr, &p->work[i].fn, 2, (int)i);
			fprintf(out, "  }\n");
		}
	}
	for (unsigned int i = 0; i < p->ntimers; i++) {
		fprintf(out, "  fn fT%u {%s", i, p->timer[i].fn.n ? "\n" : " }\n");
		if (p->timer[i].fn.n) {
			print_body(&pr, &p->timer[i].fn, 2, -1);
			fprintf(out, "  }\n");
		}
	}
	for (unsigned int i = 0; i < p->nworkers; i++) {
		const struct kp_worker *w = &p->worker[i];
		const char *flags = w->freezable ? "KTW_FREEZABLE" : "0";

		if (w->legacy)
			fprintf(out, "  worker W%u;\n  kthread_init_worker(W%u);\n"
				"  kthread_run(kthread_worker_fn, W%u, \"kw%u\");\n", i, i, i, i);
		else if (w->cpu >= 0)
			fprintf(out, "  worker W%u = kthread_create_worker_on_cpu(%d, %s, \"kw%u/%d\");\n",
				i, w->cpu, flags, i, w->cpu);
		else
			fprintf(out, "  worker W%u = kthread_create_worker(%s, \"kw%u\");\n", i, flags, i);
	}
	for (unsigned int i = 0; i < p->nworks; i++) {
		work_name(p, i, wk, sizeof(wk));
		fprintf(out, "  %s %s = f%s;\n", p->work[i].delayed ? "delayed_work" : "work", wk, wk);
	}
	for (unsigned int i = 0; i < p->ntimers; i++)
		fprintf(out, "  timer T%u = fT%u;\n", i, i);
	fprintf(out, "}\n");

	for (unsigned int i = 0; i < p->nctx; i++) {
		const struct kp_ctx *c = &p->ctx[i];

		if (c->kind == KP_IRQ) {
			fprintf(out, "irq %s @cpu%d at ", pr.names[i], c->cpu);
			print_time(out, c->at_us);
		} else {
			fprintf(out, "%s", pr.names[i]);
			if (c->cpu >= 0)
				fprintf(out, " @cpu%d", c->cpu);
			if (c->at_us || c->at_hi_us) {
				fprintf(out, " at ");
				print_time(out, c->at_us);
			}
		}
		if (c->at_hi_us) {	/* a range: at LO..HI */
			fprintf(out, "..");
			print_time(out, c->at_hi_us);
		}
		fprintf(out, " {\n");
		print_body(&pr, &c->body, 1, -1);
		if (p->teardown)
			fprintf(out, "  complete(done%s);\n", pr.names[i]);
		fprintf(out, "}\n");
	}
	if (p->suspend) {
		fprintf(out, "suspend at ");
		print_time(out, p->suspend_at_us);
		fprintf(out, ";\nresume at ");
		print_time(out, p->resume_at_us);
		fprintf(out, ";\n");
	}
	if (p->teardown)
		print_teardown(&pr);
	if (o && o->invariants && kp_print_invariants(out, p))
		return -1;
	return fflush(out) || ferror(out) ? -1 : 0;
}

char *kp_text(const struct kp *p, const struct kp_print_opts *o, size_t *len)
{
	char *buf;
	size_t n;
	FILE *mem = memstream_open(&buf, &n);
	int rc = kp_print(mem, p, o);

	if (fclose(mem) || rc) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}
