/*
 * Fidelity: our "mainline" variant against the real kernel code of a tree
 * built in (tree:LABEL, see model/CMakeLists.txt). Both run the same
 * randomised programs under the same decision stream (the random strategy,
 * same seed), and must be indistinguishable: every API call's return value,
 * the order and place works run in, the findings (kind, function, CPU,
 * context, time, decision index, and the message without its file:line),
 * how and when the run ended, the decision count, every trace record, and
 * the trace hash.
 *
 * A program: one to four CPUs; two shared workers (kthread_create_worker,
 * kthread_create_worker_on_cpu, or kthread_init_worker + kthread_run),
 * possibly freezable, with a suspend and resume; works and delayed works
 * that spin, sleep, requeue themselves or queue another; threads calling
 * every API function (private workers created, used and destroyed, with
 * kthread_init_work / kthread_init_delayed_work on reuse), hard irqs and
 * timer callbacks queueing and modifying; a teardown that cancels and
 * destroys. A few programs misuse the API on purpose (a work on two
 * workers, a delayed work reinitialised while armed, a worker destroyed
 * with its delayed work armed), since the WARNs and faults that follow are
 * behaviour too.
 *
 *   test_fidelity tree:LABEL [--seeds N] [--no-destroy-delayed-warn]
 *                 [--first SEED] [--dump SEED]
 *
 * --first and --dump are for chasing a difference: start at a seed, print
 * one seed's whole observation.
 *
 * --no-destroy-delayed-warn: the tree's kthread_destroy_worker() lacks the
 * WARN_ON(!list_empty(&worker->delayed_work_list)) that 6.12 (and our
 * mainline) has, as 6.1 does. That WARN is then the one difference allowed:
 * it is left out of mainline's observation, and where it fired the trace
 * hash is not compared (the records are, without it). The test also
 * requires the difference to have been reached, so that it is known to be
 * the only one.
 */
#include "model_harness.h"

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <sim/causal.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEEDS	10000

static const char *tree_name;
static unsigned int nseeds = DEFAULT_SEEDS;
static bool no_destroy_delayed_warn;
static long dump_seed = -1;		/* --dump SEED: print that seed's observation */
static unsigned long first_seed;	/* --first SEED: where the seeds start */

/* --- the program: plain data, from the seed alone ------------------------------------- */

#define MAX_THREADS	4
#define MAX_OPS		10
#define MAX_IRQS	3
#define IRQ_OPS		2
#define NTIMERS		2
#define NWORKS		4		/* plain works: objects 0 .. NWORKS-1 */
#define NDWORKS		3		/* delayed works: objects NWORKS .. */
#define NOBJ		(NWORKS + NDWORKS)
#define NWORKERS	2

enum op_kind {
	OP_QUEUE, OP_QUEUE_DELAYED, OP_MOD_DELAYED, OP_FLUSH_WORK, OP_FLUSH_WORKER,
	OP_CANCEL, OP_CANCEL_DELAYED, OP_UDELAY, OP_MSLEEP, OP_ARM_TIMER, OP_PRIVATE,
	OP_INIT,		/* inside OP_PRIVATE: kthread_init_work, _delayed_work */
	OP__COUNT
};

static const char *const op_names[OP__COUNT] = {
	"kthread_queue_work", "kthread_queue_delayed_work", "kthread_mod_delayed_work",
	"kthread_flush_work", "kthread_flush_worker", "kthread_cancel_work_sync",
	"kthread_cancel_delayed_work_sync", "udelay", "msleep", "mod_timer",
	"private worker", "kthread_init_work / _delayed_work",
};

/* OP_PRIVATE's choices, in its val */
#define PRIV_ON_CPU	0x1u		/* kthread_create_worker_on_cpu, cpu from bits 8.. */
#define PRIV_FREEZABLE	0x2u
#define PRIV_FLUSH	0x4u		/* kthread_flush_work of the queued work */
#define PRIV_MOD	0x8u		/* kthread_mod_delayed_work of the delayed one */
#define PRIV_FORGET	0x10u		/* misuse: destroy with the delayed work armed */
#define PRIV_REINIT	0x20u		/* misuse: reinitialise the delayed work while armed */

struct op {
	uint8_t kind;
	uint8_t obj;		/* a work, delayed work, worker or timer */
	uint8_t other;		/* queue on the other worker: a misuse */
	uint32_t val;		/* delay (jiffies), us, ms, or the private worker's choices */
};

struct thread {
	int cpu;
	bool bind;
	uint64_t start;
	int nops;
	struct op ops[MAX_OPS];
};

struct irq {
	uint64_t at;
	int cpu;
	int nops;
	struct op ops[IRQ_OPS];
};

enum work_kind { K_PLAIN, K_SPIN, K_SLEEP, K_REQUEUE, K_CHAIN, K__COUNT };

/* How the second shared worker starts. */
enum w1_mode { W1_NONE, W1_ON_CPU, W1_LEGACY };

struct program {
	uint64_t seed;
	int ncpus;
	enum sim_preempt preempt;
	unsigned int hz;
	int w0_cpu;			/* -1: kthread_create_worker */
	unsigned int w0_flags;
	enum w1_mode w1;
	int w1_cpu;
	unsigned int w1_flags;
	int home[NOBJ];			/* the worker each work is meant for */
	enum work_kind kind[NOBJ];
	unsigned int spin_us[NOBJ];
	int nthreads;
	struct thread t[MAX_THREADS];
	int nirqs;
	struct irq irq[MAX_IRQS];
	int timer_nops[NTIMERS];
	struct op timer_ops[NTIMERS][IRQ_OPS];
	bool suspend;
	uint64_t suspend_at, resume_at;
	bool teardown;
	bool forget[NDWORKS];		/* left armed at destroy: a misuse */
	bool cancel_works;
	bool misuse;			/* this program misuses the API on purpose */
};

static uint64_t rnd_state;

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)(m_rand(&rnd_state) % n);
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

static const uint32_t delays[] = { 0, 0, 1, 1, 2, 3, 5 };

/* An operation that never sleeps: for hard irqs and timer callbacks. */
static struct op atomic_op(void)
{
	struct op o = { 0 };

	switch (rnd(3)) {
	case 0:
		o.kind = OP_QUEUE;
		o.obj = (uint8_t)rnd(NWORKS);
		break;
	case 1:
		o.kind = OP_QUEUE_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delays[rnd(ARRAY_SIZE(delays))];
		break;
	default:
		o.kind = OP_MOD_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delays[rnd(ARRAY_SIZE(delays))];
		break;
	}
	return o;
}

static struct op thread_op(const struct program *p, bool misuse)
{
	struct op o = { 0 };
	unsigned int r = rnd(100);

	if (r < 16) {
		o.kind = OP_QUEUE;
		o.obj = (uint8_t)rnd(NWORKS);
	} else if (r < 28) {
		o.kind = OP_QUEUE_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delays[rnd(ARRAY_SIZE(delays))];
	} else if (r < 40) {
		o.kind = OP_MOD_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delays[rnd(ARRAY_SIZE(delays))];
	} else if (r < 48) {
		/*
		 * Flushing a delayed work whose timer is armed waits for good
		 * (the flush work is left on the delayed list: see
		 * scenarios/races/flush-armed-delayed-work.kws), so mostly plain ones.
		 */
		o.kind = OP_FLUSH_WORK;
		o.obj = (uint8_t)(chance(80) ? rnd(NWORKS) : NWORKS + rnd(NDWORKS));
	} else if (r < 53) {
		o.kind = OP_FLUSH_WORKER;
		o.obj = (uint8_t)rnd(p->w1 == W1_NONE ? 1 : NWORKERS);
	} else if (r < 61) {
		o.kind = OP_CANCEL;
		o.obj = (uint8_t)rnd(NWORKS);
	} else if (r < 69) {
		o.kind = OP_CANCEL_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
	} else if (r < 78) {
		o.kind = OP_UDELAY;
		o.val = rnd(200);
	} else if (r < 86) {
		o.kind = OP_MSLEEP;
		o.val = rnd(7);
	} else if (r < 92) {
		o.kind = OP_ARM_TIMER;
		o.obj = (uint8_t)rnd(NTIMERS);
		o.val = rnd(5);
	} else {
		o.kind = OP_PRIVATE;
		o.val = (uint32_t)m_rand(&rnd_state) & ~(PRIV_FORGET | PRIV_REINIT);
		if (misuse && chance(40))
			o.val |= chance(50) ? PRIV_FORGET : PRIV_REINIT;
	}
	/* a work queued on the other worker: the kernel WARNs, and so must both */
	if (misuse && o.kind <= OP_MOD_DELAYED && p->w1 != W1_NONE && chance(10))
		o.other = 1;
	return o;
}

static void generate(struct program *p, uint64_t seed)
{
	static const unsigned int hzs[] = { 100, 250, 1000 };
	static const enum sim_preempt preempts[] = {
		SIM_PREEMPT_NONE, SIM_PREEMPT_VOLUNTARY, SIM_PREEMPT_FULL };
	bool misuse;

	memset(p, 0, sizeof(*p));
	rnd_state = seed * 0x9e3779b97f4a7c15ULL + 0x5eed;
	p->seed = seed;
	p->ncpus = 1 + (int)(seed % 4);
	p->preempt = preempts[rnd(3)];
	p->hz = hzs[rnd(3)];
	misuse = chance(15);
	p->misuse = misuse;

	p->w0_cpu = chance(40) ? (int)rnd((unsigned int)p->ncpus) : -1;
	p->w0_flags = chance(30) ? KTW_FREEZABLE_FLAG : 0;
	p->w1 = (enum w1_mode)rnd(3);
	p->w1_cpu = (int)rnd((unsigned int)p->ncpus);
	p->w1_flags = chance(30) ? KTW_FREEZABLE_FLAG : 0;
	for (int i = 0; i < NOBJ; i++) {
		p->home[i] = p->w1 == W1_NONE ? 0 : (int)rnd(NWORKERS);
		p->kind[i] = (enum work_kind)rnd(K__COUNT);
		p->spin_us[i] = 1 + rnd(60);
	}

	p->nthreads = 1 + (int)rnd(MAX_THREADS);
	for (int i = 0; i < p->nthreads; i++) {
		struct thread *t = &p->t[i];

		t->bind = chance(70);
		t->cpu = (int)rnd((unsigned int)p->ncpus);
		t->start = rnd(2000) * NSEC_PER_USEC;
		t->nops = 2 + (int)rnd(MAX_OPS - 1);
		for (int j = 0; j < t->nops; j++)
			t->ops[j] = thread_op(p, misuse);
	}
	p->nirqs = (int)rnd(MAX_IRQS + 1);
	for (int i = 0; i < p->nirqs; i++) {
		struct irq *q = &p->irq[i];

		q->at = (1000 + rnd(29000)) * NSEC_PER_USEC;
		q->cpu = (int)rnd((unsigned int)p->ncpus);
		q->nops = 1 + (int)rnd(IRQ_OPS);
		for (int j = 0; j < q->nops; j++)
			q->ops[j] = atomic_op();
	}
	for (int i = 0; i < NTIMERS; i++) {
		p->timer_nops[i] = 1 + (int)rnd(IRQ_OPS);
		for (int j = 0; j < p->timer_nops[i]; j++)
			p->timer_ops[i][j] = atomic_op();
	}
	p->suspend = chance(20);
	p->suspend_at = (500 + rnd(20000)) * NSEC_PER_USEC;
	p->resume_at = p->suspend_at + (100 + rnd(30000)) * NSEC_PER_USEC;
	p->teardown = chance(90);
	for (int i = 0; i < NDWORKS; i++)
		p->forget[i] = misuse && chance(30);
	p->cancel_works = chance(70);
}

/* --- the observation ------------------------------------------------------------------ */

struct buf {
	char *s;
	size_t len, cap;
};

static __attribute__((format(printf, 2, 3))) void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		ck_assert_int_ge(n, 0);
		if ((size_t)n < room)
			break;
		b->cap = b->cap ? 2 * b->cap + (size_t)n : 4096 + (size_t)n;
		b->s = realloc(b->s, b->cap);
		ck_assert_ptr_nonnull(b->s);
	}
	b->len += (size_t)n;
}

static void breset(struct buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* What happened, as the run saw it: API results and work runs, in order. */
static struct buf events;

static void ev(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ev(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	bprintf(&events, "%llu cpu%d %s\n", (unsigned long long)sim_now(), sim_this_cpu(), line);
}

/*
 * A finding as both sides must report it: everything but where the source
 * is (model/mainline/kthread_worker.c:488 vs kernel/kthread.c:1429), on one
 * line. The machine cuts a long message (a deadlock report) at the end of
 * sim_finding.msg, and where depends on the paths' lengths: a cut message
 * ends in TRUNCATED, and is compared only as far as both go (same_lines()).
 */
#define TRUNCATED "~cut~"

static void normalise(char *out, size_t len, const struct sim_finding *f)
{
	const char *msg = f->msg;
	size_t o = 0;

	for (const char *s = msg; *s && o + 8 < len;) {
		/* a path token "xxx.c:NNN" or "xxx.h:NNN" becomes "SITE" */
		size_t n = strcspn(s, " ()\n");
		const char *colon = memchr(s, ':', n);

		if (colon && colon > s + 2 && colon[-2] == '.' &&
		    (colon[-1] == 'c' || colon[-1] == 'h') && isdigit((unsigned char)colon[1])) {
			const char *e = colon + 1;

			while (isdigit((unsigned char)*e))
				e++;
			if (e == s + n || *e == ':') {
				memcpy(out + o, "SITE", 4);
				o += 4;
				s = e;
				continue;
			}
		}
		if (*s == '\n') {
			memcpy(out + o, " | ", 3);
			o += 3;
			s++;
			continue;
		}
		if (!n)
			n = 1;
		while (n-- && o + 8 < len)
			out[o++] = *s++;
	}
	out[o] = '\0';
	if (strlen(msg) == sizeof(f->msg) - 1) {
		/* the last word may be a path cut short: drop it */
		while (o && !strchr(" (|", out[o - 1]))
			out[--o] = '\0';
		if (o + sizeof(TRUNCATED) <= len)
			strcat(out, TRUNCATED);
	}
}

/* The WARN that 6.12 has and 6.1 has not. */
static bool is_destroy_delayed_warn(const struct sim_finding *f)
{
	return f->kind == SIM_F_WARN && f->site.func &&
	       !strcmp(f->site.func, "kthread_destroy_worker") &&
	       strstr(f->msg, "WARN_ON(!list_empty(&worker->delayed_work_list))");
}

struct observation {
	struct buf text;
	uint64_t hash;
	size_t dropped;		/* findings left out: the allowed difference */
	size_t destroy_warns;	/* destroy's delayed_work_list WARNs, left out or not */
};

static void observe(struct observation *o, enum sim_end end, bool drop_destroy_warn)
{
	char norm[1024];

	breset(&o->text);
	o->dropped = 0;
	o->destroy_warns = 0;
	bprintf(&o->text, "end %s at %llu, %zu decisions\n", sim_end_name(end),
		(unsigned long long)sim_max_time(), sim_decision_count());
	bprintf(&o->text, "%s", events.s ? events.s : "");
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

		o->destroy_warns += is_destroy_delayed_warn(f);
		if (drop_destroy_warn && is_destroy_delayed_warn(f)) {
			o->dropped++;
			continue;
		}
		normalise(norm, sizeof(norm), f);
		bprintf(&o->text, "finding %s in %s at %llu cpu%d %s decision %llu: %s\n",
			sim_finding_kind_name(f->kind), f->site.func ? f->site.func : "-",
			(unsigned long long)f->time, f->cpu, f->context,
			(unsigned long long)f->decision, norm);
	}
	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];
		unsigned long long a = r->a;

		if (r->type == REC_FINDING) {
			const struct sim_finding *f = sim_finding(r->a);

			if (drop_destroy_warn && is_destroy_delayed_warn(f))
				continue;
			/* by what it says: indexes shift where one was left out */
			normalise(norm, sizeof(norm), f);
			bprintf(&o->text, "rec %llu cpu%u %d %s f%x p%u finding %s\n",
				(unsigned long long)r->time, r->cpu, r->pid, r->comm, r->flags,
				r->preempt, norm);
			continue;
		}
		bprintf(&o->text, "rec %llu cpu%u %d %s f%x p%u %s %llx %llx %llx %llx %s %s\n",
			(unsigned long long)r->time, r->cpu, r->pid, r->comm, r->flags, r->preempt,
			sim_rec_type_name(r->type), a, (unsigned long long)r->b,
			(unsigned long long)r->c, (unsigned long long)r->d, r->s ? r->s : "-",
			r->s2 ? r->s2 : "-");
	}
	o->hash = sim_trace_hash();
}

/* --- running a program on the variant M ------------------------------------------- */

static const struct program *P;

static struct {
	struct kthread_worker *W[NWORKERS];
	struct task_struct *legacy_task;
	struct kthread_work *w[NWORKS];
	struct kthread_delayed_work *dw[NDWORKS];
	struct kthread_work *pw[MAX_THREADS];		/* each thread's private works */
	struct kthread_delayed_work *pdw[MAX_THREADS];
	struct timer_list timer[NTIMERS];
	int runs[NOBJ];
	int private_runs[MAX_THREADS];
	bool ready;
	struct completion go, done;
} S;

/* How many times each call returned what, from where: the generator's reach. */
enum where { FROM_THREAD, FROM_IRQ, FROM_TIMER, FROM_WORK, FROM__COUNT };
static unsigned long coverage[OP__COUNT][FROM__COUNT][2];
static unsigned long cpus_seen[5], destroy_warns, suspends, ends[SIM_END_DIVERGED + 1];

static struct kthread_work *work_of(int obj)
{
	return obj < NWORKS ? S.w[obj] : M->dwork_work(S.dw[obj - NWORKS]);
}

static int obj_of(const struct kthread_work *work)
{
	for (int i = 0; i < NOBJ; i++)
		if (work_of(i) == work)
			return i;
	return -1;
}

static struct kthread_worker *worker_for(int obj, bool other)
{
	int home = P->home[obj];

	return S.W[other ? !home : home];
}

static const char *where_name[FROM__COUNT] = { "thread", "irq", "timer", "work" };

/* One API call; its result goes into the observation. */
static void do_op(const struct op *o, const char *who, enum where from)
{
	struct kthread_worker *W;
	int r = -1;

	switch (o->kind) {
	case OP_QUEUE:
		W = worker_for(o->obj, o->other);
		r = M->queue_work(W, S.w[o->obj]);
		break;
	case OP_QUEUE_DELAYED:
		W = worker_for(o->obj, o->other);
		r = M->queue_delayed_work(W, S.dw[o->obj - NWORKS], o->val);
		break;
	case OP_MOD_DELAYED:
		W = worker_for(o->obj, o->other);
		r = M->mod_delayed_work(W, S.dw[o->obj - NWORKS], o->val);
		break;
	case OP_FLUSH_WORK:
		M->flush_work(work_of(o->obj));
		break;
	case OP_FLUSH_WORKER:
		M->flush_worker(S.W[o->obj]);
		break;
	case OP_CANCEL:
		r = M->cancel_work_sync(S.w[o->obj]);
		break;
	case OP_CANCEL_DELAYED:
		r = M->cancel_delayed_work_sync(S.dw[o->obj - NWORKS]);
		break;
	case OP_UDELAY:
		udelay(o->val);
		break;
	case OP_MSLEEP:
		msleep(o->val);
		break;
	case OP_ARM_TIMER:
		r = mod_timer(&S.timer[o->obj], jiffies + o->val);
		break;
	default:
		ck_abort_msg("op %d here", o->kind);
	}
	if (r >= 0)
		coverage[o->kind][from][r != 0]++;
	else
		coverage[o->kind][from][0]++;
	ev("%s %s(obj %d%s, %u) = %d", who, op_names[o->kind], o->obj,
	   o->other ? ", other worker" : "", o->val, r);
}

/* --- work functions: one per kind, told apart by the object ----------------------- */

static void work_ran(struct kthread_work *work, const char *kind)
{
	int obj = obj_of(work);
	struct task_struct *me = current;

	ev("%s runs obj %d in %s", kind, obj, me->comm);
	if (obj >= 0)
		S.runs[obj]++;
}

static void fn_plain(struct kthread_work *work)
{
	work_ran(work, "plain");
}

static void fn_spin(struct kthread_work *work)
{
	work_ran(work, "spin");
	udelay(P->spin_us[obj_of(work)]);
}

static void fn_sleep(struct kthread_work *work)
{
	work_ran(work, "sleep");
	msleep(1);
}

/* Queues itself again, twice at most per run: a plain work now, a delayed one later. */
static void fn_requeue(struct kthread_work *work)
{
	int obj = obj_of(work);
	int r;

	work_ran(work, "requeue");
	if (S.runs[obj] > 2)
		return;
	if (obj < NWORKS) {
		r = M->queue_work(worker_for(obj, false), work);
		coverage[OP_QUEUE][FROM_WORK][r]++;
	} else {
		r = M->queue_delayed_work(worker_for(obj, false), S.dw[obj - NWORKS], 1);
		coverage[OP_QUEUE_DELAYED][FROM_WORK][r]++;
	}
	ev("requeue obj %d = %d", obj, r);
}

/* Queues the next plain work on its own worker. */
static void fn_chain(struct kthread_work *work)
{
	int obj = obj_of(work), next = (obj + 1) % NWORKS;
	int r;

	work_ran(work, "chain");
	/* a ring of chaining works would never stop */
	if (S.runs[obj] > 3)
		return;
	r = M->queue_work(worker_for(next, false), S.w[next]);
	coverage[OP_QUEUE][FROM_WORK][r]++;
	ev("chain obj %d queues obj %d = %d", obj, next, r);
}

static void fn_private(struct kthread_work *work)
{
	struct task_struct *me = current;

	for (int i = 0; i < MAX_THREADS; i++) {
		if (work == S.pw[i] || (S.pdw[i] && work == M->dwork_work(S.pdw[i]))) {
			S.private_runs[i]++;
			ev("private work of P%d runs in %s", i, me->comm);
		}
	}
}

static const kw_work_fn work_fns[K__COUNT] = {
	fn_plain, fn_spin, fn_sleep, fn_requeue, fn_chain,
};

static void register_fns(void)
{
	static const char *const names[K__COUNT] = {
		"fn_plain", "fn_spin", "fn_sleep", "fn_requeue", "fn_chain" };

	for (int i = 0; i < K__COUNT; i++)
		sim_register_symbol((const void *)work_fns[i], names[i]);
	sim_register_symbol((const void *)fn_private, "fn_private");
}

/* --- the contexts ----------------------------------------------------------------- */

/*
 * A worker of its own: created, its works initialised and queued, flushed,
 * modified, cancelled, and the worker destroyed. Nobody else touches these
 * objects, so the misuses below stay within them: reinitialising the
 * delayed work right after arming it for 10 jiffies (its timer cannot have
 * fired yet), or destroying the worker with the delayed work armed (its
 * timer then touches freed memory: a fault the machine reports).
 */
static void private_worker(int tid, uint32_t how)
{
	int cpu = how & PRIV_ON_CPU ? (int)((how >> 8) % (uint32_t)P->ncpus) : -1;
	unsigned int flags = how & PRIV_FREEZABLE ? KTW_FREEZABLE_FLAG : 0;
	unsigned long delay = how & PRIV_REINIT ? 10 : (how >> 16) % 3;
	struct kthread_worker *W;
	int r;

	W = M->create_worker(cpu, flags, "kwp");
	ev("P%d creates a private worker on cpu %d flags %u", tid, cpu, flags);
	/* reused works are initialised again: legal, since they are idle */
	M->init_work(S.pw[tid], fn_private);
	M->init_delayed_work(S.pdw[tid], fn_private);
	coverage[OP_INIT][FROM_THREAD][0]++;
	r = M->queue_work(W, S.pw[tid]);
	coverage[OP_QUEUE][FROM_THREAD][r]++;
	ev("P%d private queue = %d", tid, r);
	r = M->queue_delayed_work(W, S.pdw[tid], delay);
	coverage[OP_QUEUE_DELAYED][FROM_THREAD][r]++;
	ev("P%d private queue_delayed(%lu) = %d", tid, delay, r);
	if (how & PRIV_REINIT) {
		M->init_delayed_work(S.pdw[tid], fn_private);
		coverage[OP_INIT][FROM_THREAD][1]++;
		ev("P%d private init_delayed_work while armed", tid);
	}
	if (how & PRIV_FLUSH) {
		M->flush_work(S.pw[tid]);
		ev("P%d private flush_work", tid);
	}
	if ((how & PRIV_MOD) && !(how & PRIV_REINIT)) {
		r = M->mod_delayed_work(W, S.pdw[tid], (how >> 20) % 3);
		coverage[OP_MOD_DELAYED][FROM_THREAD][r]++;
		ev("P%d private mod_delayed = %d", tid, r);
	}
	if (!(how & PRIV_FORGET)) {
		r = M->cancel_delayed_work_sync(S.pdw[tid]);
		coverage[OP_CANCEL_DELAYED][FROM_THREAD][r]++;
		ev("P%d private cancel_delayed = %d", tid, r);
	}
	M->destroy_worker(W);
	ev("P%d destroys its private worker", tid);
}

static int thread_fn(void *arg)
{
	int tid = (int)(intptr_t)arg;
	const struct thread *t = &P->t[tid];
	char who[8];

	snprintf(who, sizeof(who), "P%d", tid);
	wait_for_completion(&S.go);
	complete(&S.go);		/* and pass it on */
	for (int i = 0; i < t->nops; i++) {
		if (t->ops[i].kind == OP_PRIVATE) {
			private_worker(tid, t->ops[i].val);
			coverage[OP_PRIVATE][FROM_THREAD][0]++;
			continue;
		}
		do_op(&t->ops[i], who, FROM_THREAD);
	}
	ev("%s ends", who);
	complete(&S.done);
	return 0;
}

static void irq_fn(void *arg)
{
	int i = (int)(intptr_t)arg;
	char who[8];

	snprintf(who, sizeof(who), "I%d", i);
	if (!S.ready) {
		ev("%s before the workers exist", who);
		return;
	}
	for (int j = 0; j < P->irq[i].nops; j++)
		do_op(&P->irq[i].ops[j], who, FROM_IRQ);
}

static void timer_fn(struct timer_list *t)
{
	int i = (int)(t - S.timer);
	char who[8];

	snprintf(who, sizeof(who), "T%d", i);
	for (int j = 0; j < P->timer_nops[i]; j++)
		do_op(&P->timer_ops[i][j], who, FROM_TIMER);
}

/* After everything else: stop the timers, cancel, destroy. */
static void teardown(void)
{
	int r;

	for (int i = 0; i < NTIMERS; i++)
		del_timer_sync(&S.timer[i]);
	for (int i = 0; i < NDWORKS; i++) {
		if (P->forget[i])
			continue;
		r = M->cancel_delayed_work_sync(S.dw[i]);
		coverage[OP_CANCEL_DELAYED][FROM_THREAD][r]++;
		ev("teardown cancel_delayed obj %d = %d", NWORKS + i, r);
	}
	for (int i = 0; P->cancel_works && i < NWORKS; i++) {
		r = M->cancel_work_sync(S.w[i]);
		coverage[OP_CANCEL][FROM_THREAD][r]++;
		ev("teardown cancel obj %d = %d", i, r);
	}
	M->destroy_worker(S.W[0]);
	ev("teardown destroys W0");
	if (P->w1 == W1_ON_CPU) {
		M->destroy_worker(S.W[1]);
		ev("teardown destroys W1");
	} else if (P->w1 == W1_LEGACY) {
		ev("teardown stops W1 = %d", kthread_stop(S.legacy_task));
	}
}

static int init_fn(void *arg)
{
	S.W[0] = M->create_worker(P->w0_cpu, P->w0_flags, "kw0");
	switch (P->w1) {
	case W1_NONE:
		S.W[1] = S.W[0];
		break;
	case W1_ON_CPU:
		S.W[1] = M->create_worker(P->w1_cpu, P->w1_flags, "kw1");
		break;
	case W1_LEGACY:
		S.W[1] = m_worker_struct();
		M->init_worker(S.W[1]);
		S.legacy_task = kthread_run(M->worker_fn, S.W[1], "kw1");
		break;
	}
	ev("workers created");
	S.ready = true;
	complete(&S.go);
	for (int i = 0; i < P->nthreads; i++)
		wait_for_completion(&S.done);
	/* every irq has come by 30 ms */
	if (sim_now() < 40 * NSEC_PER_MSEC)
		sim_sleep_until(40 * NSEC_PER_MSEC);
	if (P->teardown)
		teardown();
	ev("init ends");
	return 0;
}

/* Build the program's machine on the variant M and run it. */
static enum sim_end run_program(const struct program *p, const struct kw_model *m)
{
	static const char *const thread_names[MAX_THREADS] = { "P0", "P1", "P2", "P3" };
	struct sim_config cfg = m_explore_config(p->ncpus, p->preempt, p->seed);
	enum sim_end end;

	cfg.hz = p->hz;
	cfg.keep_trace = true;
	/* misused programs may livelock a worker: end them all alike */
	cfg.time_limit_ns = 3000 * NSEC_PER_MSEC;
	cfg.max_decisions = 200000;
	h_init_cfg(&cfg);
	M = m;
	M->register_symbols();
	register_fns();

	P = p;
	memset(&S, 0, sizeof(S));
	breset(&events);
	init_completion(&S.go);
	init_completion(&S.done);
	for (int i = 0; i < NWORKS; i++)
		S.w[i] = m_work(work_fns[p->kind[i]]);
	for (int i = 0; i < NDWORKS; i++) {
		enum work_kind k = p->kind[NWORKS + i];

		/* a delayed work does not chain: its fn would queue a plain one */
		S.dw[i] = m_dwork(work_fns[k == K_CHAIN ? K_PLAIN : k]);
	}
	for (int i = 0; i < p->nthreads; i++) {
		S.pw[i] = m_zalloc(M->work_size);
		S.pdw[i] = m_zalloc(M->dwork_size);
	}
	for (int i = 0; i < NTIMERS; i++)
		timer_setup(&S.timer[i], timer_fn, 0);

	sim_spawn("init", init_fn, NULL, 0, true, 0);
	for (int i = 0; i < p->nthreads; i++)
		sim_spawn(thread_names[i], thread_fn, (void *)(intptr_t)i, p->t[i].cpu,
			  p->t[i].bind, p->t[i].start);
	for (int i = 0; i < p->nirqs; i++)
		sim_irq_at(p->irq[i].at, p->irq[i].cpu, "irq", irq_fn, (void *)(intptr_t)i);
	if (p->suspend) {
		sim_suspend_at(p->suspend_at);
		sim_resume_at(p->resume_at);
	}
	end = sim_run();
	return end;
}

/* --- comparing -------------------------------------------------------------------- */

/* Two lines match when equal, or when cut (TRUNCATED) and equal as far as both go. */
static bool line_matches(const char *a, size_t na, const char *b, size_t nb)
{
	const size_t cut = sizeof(TRUNCATED) - 1;
	bool ta = na >= cut && !memcmp(a + na - cut, TRUNCATED, cut);
	bool tb = nb >= cut && !memcmp(b + nb - cut, TRUNCATED, cut);

	if (!ta && !tb)
		return na == nb && !memcmp(a, b, na);
	na -= ta ? cut : 0;
	nb -= tb ? cut : 0;
	/* a whole line is never shorter than a cut copy of itself */
	if ((ta && !tb && na > nb) || (tb && !ta && nb > na))
		return false;
	return !memcmp(a, b, na < nb ? na : nb);
}

/*
 * Whether two observations match line for line; if not, *la and *lb point
 * at the first lines that differ and *line is its number.
 */
static bool same_lines(const char **la, const char **lb, size_t *line)
{
	*line = 1;
	while (**la || **lb) {
		size_t na = strcspn(*la, "\n"), nb = strcspn(*lb, "\n");

		if (!line_matches(*la, na, *lb, nb))
			return false;
		*la += na + ((*la)[na] == '\n');
		*lb += nb + ((*lb)[nb] == '\n');
		++*line;
	}
	return true;
}

/* Print where two observations part, with a little context. */
static void show_difference(const char *la, const char *lb, size_t line, const char *an,
			    const char *bn)
{
	fprintf(stderr, "first difference at line %zu:\n", line);
	for (int i = 0; i < 4 && *la; i++) {
		size_t n = strcspn(la, "\n");

		fprintf(stderr, "  %-10s %.*s\n", an, (int)n, la);
		la += n + (la[n] == '\n');
	}
	for (int i = 0; i < 4 && *lb; i++) {
		size_t n = strcspn(lb, "\n");

		fprintf(stderr, "  %-10s %.*s\n", bn, (int)n, lb);
		lb += n + (lb[n] == '\n');
	}
}

static struct observation ours, theirs;

/* Causes before effects in the run just ended (sim/causal.h), whichever variant ran it. */
static void check_causal(uint64_t seed, const struct kw_model *m)
{
	char first[320];
	size_t v = sim_causal_check(sim_trace_records(), sim_trace_count(), first, sizeof(first));

	ck_assert_msg(v == 0, "seed %llu on %s: %zu causality violation%s; first: %s",
		      (unsigned long long)seed, m->name, v, v == 1 ? "" : "s", first);
}

static void compare_seed(uint64_t seed, const struct kw_model *mainline,
			 const struct kw_model *tree)
{
	struct program p;
	enum sim_end e1, e2;
	const char *la, *lb;
	size_t line;

	generate(&p, seed);
	e1 = run_program(&p, mainline);
	observe(&ours, e1, no_destroy_delayed_warn);
	destroy_warns += ours.destroy_warns != 0;
	check_causal(seed, mainline);
	sim_fini();

	e2 = run_program(&p, tree);
	observe(&theirs, e2, false);
	check_causal(seed, tree);
	sim_fini();

	if ((long)seed == dump_seed)
		fprintf(stderr, "seed %llu on %s:\n%s", (unsigned long long)seed, tree->name,
			theirs.text.s);
	cpus_seen[p.ncpus]++;
	ends[e1]++;
	suspends += p.suspend;
	la = ours.text.s;
	lb = theirs.text.s;
	if (!same_lines(&la, &lb, &line)) {
		show_difference(la, lb, line, mainline->name, tree->name);
		ck_abort_msg("seed %llu (%d cpus): %s and %s differ",
			     (unsigned long long)seed, p.ncpus, mainline->name, tree->name);
	}
	if (!ours.dropped)
		ck_assert_msg(ours.hash == theirs.hash,
			      "seed %llu: the same records, but trace hashes %016llx and %016llx",
			      (unsigned long long)seed, (unsigned long long)ours.hash,
			      (unsigned long long)theirs.hash);
}

START_TEST(same_behaviour)
{
	const struct kw_model *mainline = kw_model_find("mainline");
	const struct kw_model *tree = kw_model_find(tree_name);
	unsigned long dropped_seeds = 0;

	ck_assert_ptr_nonnull(mainline);
	ck_assert_msg(tree != NULL, "%s is not built in (KWSIM_KERNEL_TREES)", tree_name);
	ck_assert_msg(tree->tree != NULL, "%s is not a kernel tree", tree_name);
	for (uint64_t seed = first_seed; seed < first_seed + nseeds; seed++) {
		compare_seed(seed, mainline, tree);
		dropped_seeds += ours.dropped != 0;
	}

	/* the programs reached what they are meant to */
	fprintf(stderr, "%s vs %s: %u seeds identical; %lu with a suspend, %lu with "
		"destroy's delayed_work_list WARN%s; ends:", tree->name, mainline->name, nseeds,
		suspends, destroy_warns,
		no_destroy_delayed_warn ? " (which this tree lacks: left out)" : "");
	for (int e = 0; e <= SIM_END_DIVERGED; e++)
		if (ends[e])
			fprintf(stderr, " %s %lu", sim_end_name((enum sim_end)e), ends[e]);
	fprintf(stderr, "\n");
	fprintf(stderr, "calls (both variants), from where: returned true/false (void: 0/n)\n");
	for (int k = 0; k < OP__COUNT; k++) {
		fprintf(stderr, "  %-34s", op_names[k]);
		for (int w = 0; w < FROM__COUNT; w++)
			fprintf(stderr, " %s %lu/%lu", where_name[w], coverage[k][w][1],
				coverage[k][w][0]);
		fprintf(stderr, "\n");
	}
	for (int n = 1; n <= 4; n++)
		ck_assert_msg(cpus_seen[n], "no program on %d cpus", n);
	for (int k = 0; k < OP__COUNT; k++) {
		unsigned long any = 0;

		for (int w = 0; w < FROM__COUNT; w++)
			any += coverage[k][w][0] + coverage[k][w][1];
		ck_assert_msg(any, "%s never called", op_names[k]);
	}
	for (int k = OP_QUEUE; k <= OP_MOD_DELAYED; k++)
		for (int w = FROM_THREAD; w <= FROM_TIMER; w++)
			ck_assert_msg(coverage[k][w][0] && coverage[k][w][1],
				      "%s from a %s never returned both true and false",
				      op_names[k], where_name[w]);
	for (int k = OP_CANCEL; k <= OP_CANCEL_DELAYED; k++)
		ck_assert_msg(coverage[k][FROM_THREAD][0] && coverage[k][FROM_THREAD][1],
			      "%s never returned both true and false", op_names[k]);
	ck_assert_msg(ends[SIM_END_FATAL] && suspends && destroy_warns,
		      "the misuse and suspend paths were not reached");
	if (no_destroy_delayed_warn)
		ck_assert_msg(dropped_seeds, "the allowed difference was never reached");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fidelity");
	TCase *tc = tcase_create("mainline_vs_tree");

	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, same_behaviour);
	suite_add_tcase(s, tc);
	return s;
}

static int usage(void)
{
	fprintf(stderr, "usage: test_fidelity tree:LABEL [--seeds N] [--no-destroy-delayed-warn] "
		"[--first SEED] [--dump SEED]\n");
	return 2;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			nseeds = (unsigned int)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--first") && i + 1 < argc)
			first_seed = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
			dump_seed = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-destroy-delayed-warn"))
			no_destroy_delayed_warn = true;
		else if (!strncmp(argv[i], "tree:", 5) && !tree_name)
			tree_name = argv[i];
		else
			return usage();
	}
	if (!tree_name || !nseeds)
		return usage();
	return h_main(suite);
}
