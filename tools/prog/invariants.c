/*
 * The kthread_worker invariants of a generated program, as the scenario
 * language's always/never clauses over its state predicates: what
 * kthread.c's comments, kernel-doc and later fixes promise about a work's
 * lists, its timer, its worker and its canceling count at every scheduling
 * point. Each is in tools/prog/CONTRACT.md ("Invariants") with the kernel
 * comment or commit that states it, and was checked to hold on runs that
 * keep the contract on mainline and tree:6.12 (what the model shows that is
 * NOT invariant - current_work still set after a work returned, a work
 * queued while its cancel runs - is there too).
 */
#include "prog/prog.h"

#include <stdarg.h>

/* A work's name as kp_print writes it: A<i> plain, D<i> delayed. */
static void work_name(char *buf, size_t len, const struct kp *p, unsigned int i)
{
	snprintf(buf, len, "%c%u", p->work[i].delayed ? 'D' : 'A', i);
}

struct out {
	FILE *f;
	int err;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(o->f, fmt, ap) < 0)
		o->err = -1;
	va_end(ap);
}

int kp_print_invariants(FILE *out, const struct kp *p)
{
	struct out o = { out, 0 };
	unsigned int nworks = p->nworks < KP_MAX_WORKS ? p->nworks : KP_MAX_WORKS;
	unsigned int nworkers = p->nworkers < KP_MAX_WORKERS ? p->nworkers : KP_MAX_WORKERS;
	char x[8];

	if (!nworks)
		return 0;

	put(&o, "// invariant one-list: a work is on at most one of its worker's lists\n");
	for (unsigned int i = 0; i < nworks; i++) {
		work_name(x, sizeof(x), p, i);
		if (p->work[i].delayed)
			put(&o, "never (queued(%s) /\\ delayed(%s))\n", x, x);
		else
			put(&o, "never (delayed(%s))\n", x);
	}

	put(&o, "// invariant pending-listed: a pending work is on its worker's run or delayed list\n");
	for (unsigned int i = 0; i < nworks; i++) {
		work_name(x, sizeof(x), p, i);
		put(&o, "always (~pending(%s) \\/ queued(%s) \\/ delayed(%s))\n", x, x, x);
	}

	for (unsigned int i = 0, first = 1; i < nworks; i++) {
		if (!p->work[i].delayed)
			continue;
		if (first)
			put(&o, "// invariant armed-delayed: a delayed work whose timer is armed is on "
				"the delayed list\n");
		first = 0;
		work_name(x, sizeof(x), p, i);
		put(&o, "always (~timer_pending(%s) \\/ delayed(%s))\n", x, x);
	}

	put(&o, "// invariant canceling-count: work->canceling counts cancels in flight, never below 0\n");
	for (unsigned int i = 0; i < nworks; i++) {
		work_name(x, sizeof(x), p, i);
		put(&o, "never (canceling(%s) < 0)\n", x);
	}

	if (nworkers >= 2) {
		put(&o, "// invariant one-worker-at-a-time: no two workers run the same work\n");
		for (unsigned int i = 0; i < nworks; i++) {
			const char *sep = "";

			work_name(x, sizeof(x), p, i);
			put(&o, "never (");
			for (unsigned int a = 0; a < nworkers; a++)
				for (unsigned int b = a + 1; b < nworkers; b++) {
					put(&o, "%s(current_work(W%u) == %s /\\ current_work(W%u) == %s)",
					    sep, a, x, b, x);
					sep = " \\/ ";
				}
			put(&o, ")\n");
		}
	}

	for (unsigned int i = 0, first = 1; i < nworks; i++) {
		if (p->work[i].worker >= nworkers)
			continue;
		if (first)
			put(&o, "// invariant stopped-idle: a worker whose thread has exited has no work "
				"on its lists\n");
		first = 0;
		work_name(x, sizeof(x), p, i);
		put(&o, "never (task_state(W%u->task) == TASK_DEAD /\\ (queued(%s) \\/ delayed(%s)))\n",
		    p->work[i].worker, x, x);
	}
	return o.err;
}
