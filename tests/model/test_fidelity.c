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
 * possibly freezable, with up to three suspends and resumes (which take
 * the other CPUs down and up again), and now and then a CPU taken down and
 * maybe brought back by a thread of its own (cpu_down, cpu_up); works and
 * delayed works that spin, sleep, requeue themselves, queue another, or
 * call the API themselves (queue, modify, flush the other worker or a work
 * on it, cancel, sync or delayed, and have a worker of their own); threads
 * calling every API function (private workers created, used, and destroyed
 * or ended with kthread_stop(worker->task) and kfree, with kthread_init_work
 * / kthread_init_delayed_work on reuse); hard irqs and timer callbacks
 * queueing and modifying; delays of a few jiffies, and in some programs
 * delays across the timer wheel's levels (up to 4500 jiffies), which the
 * run then lasts long enough to see fire; a victim worker, used by some
 * threads and ended (destroyed or stopped) by one context, within the
 * contract once its users are done, or racing them; a teardown that
 * cancels and destroys or stops. A few programs misuse the API on purpose
 * (a work on two workers, a delayed work reinitialised while armed, a
 * worker destroyed with its delayed work armed, a work flushing or
 * cancelling itself or flushing its own worker, flushes, cancels and the
 * victim's end from a timer callback or a hard irq), since the WARNs,
 * reports, faults and deadlocks that follow are behaviour too.
 *
 * The test counts what the programs reached (calls made and their results
 * from each context, timers fired from each wheel level, repeated suspends
 * that froze a worker again, CPUs taken down and brought back, victims
 * ended after or racing their users, workers stopped) and requires a minimum of each: a kind of program the
 * generator stopped making fails it. Programs of odd seeds run with stalls
 * (cfg.stall_ns, 10 ms) on both sides alike: the random strategy holds
 * CPUs up, and the kernel's code must still behave as ours does. Each
 * run's records pass through examine_run(), the place for checks over a
 * whole trace.
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
#include <linux/slab.h>
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
#define MAX_OPS		10		/* a thread's own operations */
#define VICTIM_OPS	3		/* ... the victim worker's, at most, for a user of it */
#define MAX_TOPS	(MAX_OPS + VICTIM_OPS + 1)	/* ... and its end, or the timer arming for it */
#define MAX_IRQS	3
#define IRQ_OPS		2		/* per hard irq, timer callback or work */
#define NTIMERS		2
#define NWORKS		4		/* plain works: objects 0 .. NWORKS-1 */
#define NDWORKS		3		/* delayed works: objects NWORKS .. */
#define NOBJ		(NWORKS + NDWORKS)
#define NWORKERS	2
#define NVWORKS		2		/* the victim's plain works: its objects 0, 1 ... */
#define VDWORK		NVWORKS		/* ... and its delayed work */
#define MAX_SUSPENDS	3
#define NOWNERS		(MAX_THREADS + NOBJ)	/* who may have a private worker: threads, works */

enum op_kind {
	OP_QUEUE, OP_QUEUE_DELAYED, OP_MOD_DELAYED, OP_FLUSH_WORK, OP_FLUSH_WORKER,
	OP_CANCEL, OP_CANCEL_DELAYED, OP_UDELAY, OP_MSLEEP, OP_ARM_TIMER, OP_PRIVATE,
	OP_INIT,		/* inside OP_PRIVATE: kthread_init_work, _delayed_work */
	OP_END_VICTIM,		/* the victim worker destroyed, or its task stopped */
	OP_DESTROY,		/* inside OP_PRIVATE, OP_END_VICTIM and the teardown */
	OP_STOP,		/* ditto: kthread_stop(worker->task) of a created worker, and kfree */
	OP__COUNT
};

static const char *const op_names[OP__COUNT] = {
	"kthread_queue_work", "kthread_queue_delayed_work", "kthread_mod_delayed_work",
	"kthread_flush_work", "kthread_flush_worker", "kthread_cancel_work_sync",
	"kthread_cancel_delayed_work_sync", "udelay", "msleep", "mod_timer",
	"private worker", "kthread_init_work / _delayed_work", "the victim's end",
	"kthread_destroy_worker", "kthread_stop(worker->task)",
};

/* Where a call is made from. */
enum where { FROM_THREAD, FROM_IRQ, FROM_TIMER, FROM_WORK, FROM__COUNT };

static const char *where_name[FROM__COUNT] = { "thread", "irq", "timer", "work" };

/* OP_PRIVATE's choices, in its val */
#define PRIV_ON_CPU	0x1u		/* kthread_create_worker_on_cpu, cpu from bits 8.. */
#define PRIV_FREEZABLE	0x2u
#define PRIV_FLUSH	0x4u		/* kthread_flush_work of the queued work */
#define PRIV_MOD	0x8u		/* kthread_mod_delayed_work of the delayed one */
#define PRIV_FORGET	0x10u		/* misuse: destroy with the delayed work armed */
#define PRIV_REINIT	0x20u		/* misuse: reinitialise the delayed work while armed */
#define PRIV_STOP	0xc0u		/* both bits: kthread_stop(worker->task) and kfree */

struct op {
	uint8_t kind;
	uint8_t obj;		/* a work, delayed work, worker or timer */
	uint8_t other;		/* queue on the other worker: a misuse */
	uint8_t victim;		/* obj is one of the victim worker's (NVWORKS, VDWORK) */
	uint8_t self;		/* from a work, of itself (obj) or its own worker: a misuse */
	uint32_t val;		/* delay (jiffies), us, ms, or the private worker's choices */
};

struct thread {
	int cpu;
	bool bind;
	uint64_t start;
	int nops;
	int vlast;		/* the index of its last use of the victim; -1: none */
	struct op ops[MAX_TOPS];
};

struct irq {
	uint64_t at;
	int cpu;
	int nops;
	struct op ops[IRQ_OPS];
};

enum work_kind { K_PLAIN, K_SPIN, K_SLEEP, K_REQUEUE, K_CHAIN, K_OPS, K__COUNT };

/* How the second shared worker starts. */
enum w1_mode { W1_NONE, W1_ON_CPU, W1_LEGACY };

/*
 * The victim: a worker of its own (kthread_create_worker, "kwr") with two
 * works and a delayed work nobody else queues, used by some threads and
 * ended by one context. Within the contract, a thread ends it once the other
 * users have said (a completion) they are done; a racing end does not wait.
 */
struct victim {
	bool on;
	int cpu;			/* -1: kthread_create_worker */
	unsigned int flags;
	bool stop;			/* kthread_stop(worker->task) and kfree, not destroyed */
	bool race;			/* its end does not wait for the users */
	enum work_kind kind[NVWORKS + 1];
	enum where end_from;		/* who ends it: a thread, irq, timer or work ... */
	int end_idx;			/* ... which one (a work: its object) */
	int waits;			/* users the ending thread waits for */
	unsigned int users;		/* the threads that use it, a mask */
};

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
	int work_nops[NOBJ];		/* K_OPS: what the work does */
	struct op work_ops[NOBJ][IRQ_OPS];
	int nthreads;
	struct thread t[MAX_THREADS];
	int nirqs;
	struct irq irq[MAX_IRQS];
	int timer_nops[NTIMERS];
	struct op timer_ops[NTIMERS][IRQ_OPS];
	int nsuspends;
	uint64_t suspend_at[MAX_SUSPENDS], resume_at[MAX_SUSPENDS];
	int hp_cpu;			/* 1+: the CPU the hotplug thread takes down */
	int hp_from;			/* the CPU the hotplug thread starts on */
	uint64_t hp_at, hp_up_after;	/* when it starts; 0: the CPU stays down */
	bool long_delays;		/* delays across the timer wheel's levels ... */
	bool long_wait;			/* ... and the teardown waits until they are due */
	struct victim v;
	bool teardown;
	bool w0_stop, w1_stop;		/* teardown: kthread_stop(worker->task), not destroy */
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

/*
 * Across the timer wheel's levels (sim/timer.c, as kernel/time/timer.c):
 * level 1 from 63 jiffies, 2 from 504, 3 from 4032, each rounding up to its
 * granule (8, 64, 512 jiffies). A program with long delays lasts until the
 * longest is due (LONG_WAIT), whatever HZ: the machine spends no steps on
 * jiffies in which nothing happens.
 */
static const uint32_t long_delays[] = { 62, 63, 64, 200, 503, 504, 505, 1500, 4031, 4032, 4100, 4500 };
#define LONG_WAIT	(4500 + 512 + 100)	/* jiffies */

static uint32_t delay(const struct program *p)
{
	if (p->long_delays && chance(35))
		return long_delays[rnd(ARRAY_SIZE(long_delays))];
	return delays[rnd(ARRAY_SIZE(delays))];
}

static int nworkers(const struct program *p)
{
	return p->w1 == W1_NONE ? 1 : NWORKERS;
}

/*
 * An operation for a hard irq or a timer callback: one that never sleeps,
 * but in a misusing program, now and then, one that may (the kernel's
 * might_sleep report, or "scheduling while atomic" if it does sleep).
 */
static struct op atomic_op(const struct program *p)
{
	struct op o = { 0 };

	if (p->misuse && chance(20)) {
		static const uint8_t sleeping[] = {
			OP_FLUSH_WORK, OP_FLUSH_WORKER, OP_CANCEL, OP_CANCEL_DELAYED };

		o.kind = sleeping[rnd(ARRAY_SIZE(sleeping))];
		if (o.kind == OP_FLUSH_WORKER)
			o.obj = (uint8_t)rnd((unsigned int)nworkers(p));
		else if (o.kind == OP_CANCEL_DELAYED)
			o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		else
			o.obj = (uint8_t)rnd(NWORKS);
		return o;
	}
	switch (rnd(3)) {
	case 0:
		o.kind = OP_QUEUE;
		o.obj = (uint8_t)rnd(NWORKS);
		break;
	case 1:
		o.kind = OP_QUEUE_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
		break;
	default:
		o.kind = OP_MOD_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
		break;
	}
	return o;
}

static uint32_t private_choices(const struct program *p)
{
	uint32_t how = (uint32_t)m_rand(&rnd_state) & ~(PRIV_FORGET | PRIV_REINIT);

	if (p->misuse && chance(40))
		how |= chance(50) ? PRIV_FORGET : PRIV_REINIT;
	return how;
}

static struct op thread_op(const struct program *p)
{
	struct op o = { 0 };
	unsigned int r = rnd(100);

	if (r < 16) {
		o.kind = OP_QUEUE;
		o.obj = (uint8_t)rnd(NWORKS);
	} else if (r < 28) {
		o.kind = OP_QUEUE_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
	} else if (r < 40) {
		o.kind = OP_MOD_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
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
		o.obj = (uint8_t)rnd((unsigned int)nworkers(p));
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
		o.val = private_choices(p);
	}
	/* a work queued on the other worker: the kernel WARNs, and so must both */
	if (p->misuse && o.kind <= OP_MOD_DELAYED && p->w1 != W1_NONE && chance(10))
		o.other = 1;
	return o;
}

/* A plain work meant for the worker 'home', or -1. */
static int plain_work_on(const struct program *p, int home)
{
	int first = (int)rnd(NWORKS);

	for (int i = 0; i < NWORKS; i++)
		if (p->home[(first + i) % NWORKS] == home)
			return (first + i) % NWORKS;
	return -1;
}

/*
 * What a K_OPS work does, on its worker. Within the contract: queue,
 * modify, cancel any work but itself, flush a work or the worker of the
 * other side, sleep, or have a worker of its own (created, used, destroyed
 * or stopped). A misusing program may flush or cancel the work itself or
 * flush its own worker: the worker then waits for itself.
 */
static struct op work_op(const struct program *p, int obj)
{
	int other = (p->home[obj] + 1) % nworkers(p);
	struct op o = { 0 };
	unsigned int r = rnd(100);

	if (p->misuse && chance(15)) {
		static const uint8_t selfish[] = { OP_FLUSH_WORK, OP_FLUSH_WORKER, OP_CANCEL };

		o.kind = selfish[rnd(ARRAY_SIZE(selfish))];
		if (o.kind == OP_CANCEL && obj >= NWORKS)
			o.kind = OP_CANCEL_DELAYED;
		o.obj = (uint8_t)obj;
		o.self = 1;
		return o;
	}
	if (r < 14) {
		o.kind = OP_QUEUE;
		o.obj = (uint8_t)rnd(NWORKS);
	} else if (r < 26) {
		o.kind = OP_QUEUE_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
	} else if (r < 40) {
		o.kind = OP_MOD_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		o.val = delay(p);
	} else if (r < 50 && p->w1 != W1_NONE && plain_work_on(p, other) >= 0) {
		o.kind = OP_FLUSH_WORK;
		o.obj = (uint8_t)plain_work_on(p, other);
	} else if (r < 56 && p->w1 != W1_NONE) {
		o.kind = OP_FLUSH_WORKER;
		o.obj = (uint8_t)other;
	} else if (r < 68) {
		o.kind = OP_CANCEL;
		o.obj = (uint8_t)((obj + 1 + (int)rnd(NWORKS - 1)) % NWORKS);
	} else if (r < 80) {
		o.kind = OP_CANCEL_DELAYED;
		o.obj = (uint8_t)(NWORKS + rnd(NDWORKS));
		if (o.obj == obj)
			o.obj = (uint8_t)(NWORKS + (obj - NWORKS + 1) % NDWORKS);
	} else if (r < 86) {
		o.kind = OP_MSLEEP;
		o.val = rnd(3);
	} else if (r < 94) {
		o.kind = OP_PRIVATE;
		o.val = private_choices(p);
	} else {
		o.kind = OP_UDELAY;
		o.val = rnd(100);
	}
	return o;
}

/* A use of the victim worker by a thread. */
static struct op victim_op(const struct program *p)
{
	static const uint8_t uses[] = {
		OP_QUEUE, OP_QUEUE, OP_QUEUE_DELAYED, OP_MOD_DELAYED, OP_FLUSH_WORK,
		OP_FLUSH_WORKER, OP_CANCEL, OP_CANCEL_DELAYED };
	struct op o = { 0 };

	o.kind = uses[rnd(ARRAY_SIZE(uses))];
	o.victim = 1;
	/* not the delayed work's flush: see thread_op() */
	o.obj = (uint8_t)rnd(NVWORKS);
	if (o.kind == OP_QUEUE_DELAYED || o.kind == OP_MOD_DELAYED || o.kind == OP_CANCEL_DELAYED)
		o.obj = VDWORK;
	if (o.kind == OP_QUEUE_DELAYED || o.kind == OP_MOD_DELAYED)
		o.val = delay(p);
	return o;
}

static void insert_op(struct op *ops, int *nops, int at, struct op o)
{
	memmove(&ops[at + 1], &ops[at], (size_t)(*nops - at) * sizeof(*ops));
	ops[at] = o;
	++*nops;
}

/* Put an op into a list of IRQ_OPS: in place of the last one when it is full. */
static void put_op(struct op *ops, int *nops, struct op o)
{
	if (*nops == IRQ_OPS)
		--*nops;
	ops[(*nops)++] = o;
}

static void generate_victim(struct program *p)
{
	struct victim *v = &p->v;
	struct op end = { .kind = OP_END_VICTIM };
	int ender = -1, k_ops = -1;

	v->on = true;
	v->cpu = chance(50) ? (int)rnd((unsigned int)p->ncpus) : -1;
	v->flags = chance(30) ? KTW_FREEZABLE_FLAG : 0;
	v->stop = chance(30);
	v->race = chance(30);
	for (int i = 0; i <= NVWORKS; i++)
		v->kind[i] = (enum work_kind)rnd(K_SLEEP + 1);
	for (int i = 0; i < NOBJ; i++)
		if (p->kind[i] == K_OPS)
			k_ops = i;

	/* who ends it: a thread, or (racing) a work, or (misuse) an irq or a timer */
	if (p->misuse && chance(50)) {
		v->end_from = p->nirqs && chance(50) ? FROM_IRQ : FROM_TIMER;
		v->end_idx = (int)rnd(v->end_from == FROM_IRQ ? (unsigned int)p->nirqs : NTIMERS);
		if (v->end_from == FROM_IRQ)
			put_op(p->irq[v->end_idx].ops, &p->irq[v->end_idx].nops, end);
		else
			put_op(p->timer_ops[v->end_idx], &p->timer_nops[v->end_idx], end);
	} else if (v->race && k_ops >= 0 && chance(60)) {
		v->end_from = FROM_WORK;
		v->end_idx = k_ops;
		put_op(p->work_ops[k_ops], &p->work_nops[k_ops], end);
	} else {
		v->end_from = FROM_THREAD;
		v->end_idx = ender = (int)rnd((unsigned int)p->nthreads);
	}

	/* its users: at least one that is not the ending thread, when there is one */
	for (int i = 0; i < p->nthreads; i++)
		if (chance(60))
			v->users |= 1u << i;
	if (!(v->users & ~(ender >= 0 ? 1u << ender : 0)) && (p->nthreads > 1 || ender < 0))
		v->users |= 1u << ((ender + 1) % p->nthreads);
	if (v->end_from == FROM_TIMER) {
		/* a thread arms that timer (room for it: the ender is no thread) */
		struct thread *t = &p->t[rnd((unsigned int)p->nthreads)];
		struct op arm = { .kind = OP_ARM_TIMER, .obj = (uint8_t)v->end_idx, .val = rnd(5) };

		insert_op(t->ops, &t->nops, (int)rnd((unsigned int)t->nops + 1), arm);
	}
	for (int i = 0; i < p->nthreads; i++) {
		struct thread *t = &p->t[i];

		t->vlast = -1;
		if (!(v->users & (1u << i)))
			continue;
		for (int n = 1 + (int)rnd(VICTIM_OPS); n; n--)
			insert_op(t->ops, &t->nops, (int)rnd((unsigned int)t->nops + 1), victim_op(p));
		for (int j = 0; j < t->nops; j++)
			if (t->ops[j].victim)
				t->vlast = j;
		if (i != ender)
			v->waits++;
	}
	if (ender >= 0) {
		struct thread *t = &p->t[ender];
		int after = t->vlast + 1;

		insert_op(t->ops, &t->nops, after + (int)rnd((unsigned int)(t->nops - after + 1)), end);
	}
}

static void generate(struct program *p, uint64_t seed)
{
	static const unsigned int hzs[] = { 100, 250, 1000 };
	static const enum sim_preempt preempts[] = {
		SIM_PREEMPT_NONE, SIM_PREEMPT_VOLUNTARY, SIM_PREEMPT_FULL };
	uint64_t at;

	memset(p, 0, sizeof(*p));
	/*
	 * m_rand() steps its state by a constant: a state of seed * that
	 * constant made seed N+1's stream seed N's shifted by one draw, and
	 * neighbouring programs near copies. Each seed starts somewhere of
	 * its own.
	 */
	rnd_state = seed + 0x5eed;
	rnd_state = m_rand(&rnd_state);
	p->seed = seed;
	p->ncpus = 1 + (int)(seed % 4);
	p->preempt = preempts[rnd(3)];
	p->hz = hzs[rnd(3)];
	p->misuse = chance(15);
	p->long_delays = chance(15);
	p->long_wait = p->long_delays && chance(80);
	/* several suspends now and then; freezable workers then more often */
	p->nsuspends = chance(20) ? 1 + (int)rnd(MAX_SUSPENDS) : 0;

	p->w0_cpu = chance(40) ? (int)rnd((unsigned int)p->ncpus) : -1;
	p->w0_flags = chance(p->nsuspends > 1 ? 60 : 30) ? KTW_FREEZABLE_FLAG : 0;
	p->w1 = (enum w1_mode)rnd(3);
	p->w1_cpu = (int)rnd((unsigned int)p->ncpus);
	p->w1_flags = chance(p->nsuspends > 1 ? 60 : 30) ? KTW_FREEZABLE_FLAG : 0;
	for (int i = 0; i < NOBJ; i++) {
		p->home[i] = (int)rnd((unsigned int)nworkers(p));
		p->kind[i] = (enum work_kind)rnd(K__COUNT);
		p->spin_us[i] = 1 + rnd(60);
	}
	for (int i = 0; i < NOBJ; i++) {
		p->work_nops[i] = 1 + (int)rnd(IRQ_OPS);
		for (int j = 0; j < p->work_nops[i]; j++)
			p->work_ops[i][j] = work_op(p, i);
	}

	p->nthreads = 1 + (int)rnd(MAX_THREADS);
	for (int i = 0; i < p->nthreads; i++) {
		struct thread *t = &p->t[i];

		t->bind = chance(70);
		t->cpu = (int)rnd((unsigned int)p->ncpus);
		t->start = rnd(2000) * NSEC_PER_USEC;
		t->nops = 2 + (int)rnd(MAX_OPS - 1);
		t->vlast = -1;
		for (int j = 0; j < t->nops; j++)
			t->ops[j] = thread_op(p);
	}
	p->nirqs = (int)rnd(MAX_IRQS + 1);
	for (int i = 0; i < p->nirqs; i++) {
		struct irq *q = &p->irq[i];

		q->at = (1000 + rnd(29000)) * NSEC_PER_USEC;
		q->cpu = (int)rnd((unsigned int)p->ncpus);
		q->nops = 1 + (int)rnd(IRQ_OPS);
		for (int j = 0; j < q->nops; j++)
			q->ops[j] = atomic_op(p);
	}
	for (int i = 0; i < NTIMERS; i++) {
		p->timer_nops[i] = 1 + (int)rnd(IRQ_OPS);
		for (int j = 0; j < p->timer_nops[i]; j++)
			p->timer_ops[i][j] = atomic_op(p);
	}
	if (chance(p->misuse ? 50 : 25))
		generate_victim(p);
	at = 500 * NSEC_PER_USEC;
	for (int i = 0; i < p->nsuspends; i++) {
		p->suspend_at[i] = at + rnd(20000) * NSEC_PER_USEC;
		p->resume_at[i] = p->suspend_at[i] + (100 + rnd(30000)) * NSEC_PER_USEC;
		at = p->resume_at[i] + (100 + rnd(5000)) * NSEC_PER_USEC;
	}
	p->teardown = chance(90);
	p->w0_stop = chance(8);
	p->w1_stop = p->w1 == W1_ON_CPU && chance(15);
	for (int i = 0; i < NDWORKS; i++)
		p->forget[i] = p->misuse && chance(30);
	p->cancel_works = chance(70);
	/* drawn last: the rest of the program is what it was without it */
	if (p->ncpus > 1 && chance(30)) {
		p->hp_cpu = 1 + (int)rnd((unsigned int)p->ncpus - 1);
		p->hp_from = (int)rnd((unsigned int)p->ncpus);
		p->hp_at = rnd(30000) * NSEC_PER_USEC;
		p->hp_up_after = chance(70) ? (1 + rnd(20000)) * NSEC_PER_USEC : 0;
	}
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
	struct kthread_work *pw[NOWNERS];		/* private works: threads', works' */
	struct kthread_delayed_work *pdw[NOWNERS];
	bool private_busy[NOWNERS];			/* a work may run twice at once */
	struct timer_list timer[NTIMERS];
	int runs[NOBJ];
	int private_runs[NOWNERS];
	bool ready;
	struct completion go, done;
	/* the victim worker */
	struct kthread_worker *R;
	struct kthread_work *vw[NVWORKS];
	struct kthread_delayed_work *vdw;
	struct completion v_done;			/* a user is done with it */
	int v_users_left;
	bool v_ended;					/* its end has begun */
	enum where v_end_from;
	bool v_by_teardown;
	bool v_raced;					/* ... while users still had uses left */
	bool v_gone;					/* its end returned */
	int hp_down, hp_up;		/* the hotplug thread's cpu_down and cpu_up that worked */
} S;

/* How often each call was made, and returned what, from where: the generator's reach. */
static unsigned long called[OP__COUNT][FROM__COUNT];
static unsigned long called_on_itself;		/* by a work, on itself or its worker */
static unsigned long coverage[OP__COUNT][FROM__COUNT][2];
static unsigned long cpus_seen[5], destroy_warns, ends[SIM_END_DIVERGED + 1];

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

/* An op's objects: the shared ones, or the victim's. */
static struct kthread_work *op_work(const struct op *o)
{
	if (o->victim)
		return o->obj < NVWORKS ? S.vw[o->obj] : M->dwork_work(S.vdw);
	return work_of(o->obj);
}

static struct kthread_delayed_work *op_dwork(const struct op *o)
{
	return o->victim ? S.vdw : S.dw[o->obj - NWORKS];
}

static struct kthread_worker *op_worker(const struct op *o)
{
	struct kthread_worker *W;

	if (o->victim)
		return S.R;
	if (o->kind == OP_FLUSH_WORKER && o->self) {
		/* the worker running the work: a plain read, as current_work's */
		W = M->work_worker(work_of(o->obj));
		return W ? W : worker_for(o->obj, false);
	}
	if (o->kind == OP_FLUSH_WORKER)
		return S.W[o->obj];
	return worker_for(o->obj, o->other);
}

/*
 * The end of a created worker: kthread_destroy_worker(), or what some
 * drivers do instead, kthread_stop(worker->task) and kfree(): no flush, so
 * works still queued stay queued, and never run.
 */
static void end_worker(struct kthread_worker *W, bool stop, const char *who, const char *name,
		       enum where from)
{
	int r;

	if (stop) {
		called[OP_STOP][from]++;
		r = kthread_stop(M->worker_task(W));
		kfree(W);
		coverage[OP_STOP][from][0]++;
		ev("%s stops %s = %d, and frees it", who, name, r);
	} else {
		called[OP_DESTROY][from]++;
		M->destroy_worker(W);
		coverage[OP_DESTROY][from][0]++;
		ev("%s destroys %s", who, name);
	}
}

/* The victim's end, by its ender (or by the teardown, when nobody else did it). */
static void end_victim(const char *who, enum where from, bool teardown)
{
	int r;

	if (!S.R || S.v_ended) {
		ev("%s: the victim has ended already", who);
		return;
	}
	S.v_ended = true;
	S.v_end_from = from;
	S.v_by_teardown = teardown;
	if (from == FROM_THREAD && !P->v.race && !teardown)
		for (int i = 0; i < P->v.waits; i++)
			wait_for_completion(&S.v_done);
	S.v_raced = S.v_users_left > 0;
	ev("%s ends the victim, %d users not done", who, S.v_users_left);
	/* its owner's part of the contract: nothing armed (a misuse does not bother) */
	if (from == FROM_THREAD || from == FROM_WORK) {
		called[OP_CANCEL_DELAYED][from]++;
		r = M->cancel_delayed_work_sync(S.vdw);
		coverage[OP_CANCEL_DELAYED][from][r]++;
		ev("%s cancels the victim's delayed work = %d", who, r);
	}
	end_worker(S.R, P->v.stop, who, "the victim", from);
	S.v_gone = true;
}

/*
 * A worker of its own: created, its works initialised and queued, flushed,
 * modified, cancelled, and the worker destroyed or stopped. Nobody else
 * touches these objects, so the misuses below stay within them:
 * reinitialising the delayed work right after arming it for 10 jiffies (its
 * timer cannot have fired yet), or ending the worker with the delayed work
 * armed (its timer then touches freed memory: a fault the machine reports).
 */
static void fn_private(struct kthread_work *work);

static void private_worker(int owner, uint32_t how, const char *who, enum where from)
{
	int cpu = how & PRIV_ON_CPU ? (int)((how >> 8) % (uint32_t)P->ncpus) : -1;
	unsigned int flags = how & PRIV_FREEZABLE ? KTW_FREEZABLE_FLAG : 0;
	unsigned long delay = how & PRIV_REINIT ? 10 : (how >> 16) % 3;
	struct kthread_worker *W;
	int r;

	if (S.private_busy[owner]) {
		ev("%s: its private worker is in use", who);
		return;
	}
	S.private_busy[owner] = true;
	W = M->create_worker(cpu, flags, "kwp");
	ev("%s creates a private worker on cpu %d flags %u", who, cpu, flags);
	/* reused works are initialised again: legal, since they are idle */
	M->init_work(S.pw[owner], fn_private);
	M->init_delayed_work(S.pdw[owner], fn_private);
	coverage[OP_INIT][from][0]++;
	r = M->queue_work(W, S.pw[owner]);
	coverage[OP_QUEUE][from][r]++;
	ev("%s private queue = %d", who, r);
	r = M->queue_delayed_work(W, S.pdw[owner], delay);
	coverage[OP_QUEUE_DELAYED][from][r]++;
	ev("%s private queue_delayed(%lu) = %d", who, delay, r);
	if (how & PRIV_REINIT) {
		M->init_delayed_work(S.pdw[owner], fn_private);
		coverage[OP_INIT][from][1]++;
		ev("%s private init_delayed_work while armed", who);
	}
	if (how & PRIV_FLUSH) {
		M->flush_work(S.pw[owner]);
		ev("%s private flush_work", who);
	}
	if ((how & PRIV_MOD) && !(how & PRIV_REINIT)) {
		r = M->mod_delayed_work(W, S.pdw[owner], (how >> 20) % 3);
		coverage[OP_MOD_DELAYED][from][r]++;
		ev("%s private mod_delayed = %d", who, r);
	}
	if (!(how & PRIV_FORGET)) {
		r = M->cancel_delayed_work_sync(S.pdw[owner]);
		coverage[OP_CANCEL_DELAYED][from][r]++;
		ev("%s private cancel_delayed = %d", who, r);
	}
	end_worker(W, (how & PRIV_STOP) == PRIV_STOP, who, "its private worker", from);
	S.private_busy[owner] = false;
}

/*
 * One API call; its result goes into the observation. 'owner' is whose
 * private worker OP_PRIVATE makes (-1: none, in atomic context).
 */
static void do_op(const struct op *o, const char *who, enum where from, int owner)
{
	int r = -1;

	called[o->kind][from]++;
	called_on_itself += o->self;
	switch (o->kind) {
	case OP_QUEUE:
		r = M->queue_work(op_worker(o), op_work(o));
		break;
	case OP_QUEUE_DELAYED:
		r = M->queue_delayed_work(op_worker(o), op_dwork(o), o->val);
		break;
	case OP_MOD_DELAYED:
		r = M->mod_delayed_work(op_worker(o), op_dwork(o), o->val);
		break;
	case OP_FLUSH_WORK:
		M->flush_work(op_work(o));
		break;
	case OP_FLUSH_WORKER:
		M->flush_worker(op_worker(o));
		break;
	case OP_CANCEL:
		r = M->cancel_work_sync(op_work(o));
		break;
	case OP_CANCEL_DELAYED:
		r = M->cancel_delayed_work_sync(op_dwork(o));
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
	case OP_PRIVATE:
		ck_assert_int_ge(owner, 0);
		private_worker(owner, o->val, who, from);
		break;
	case OP_END_VICTIM:
		end_victim(who, from, false);
		break;
	default:
		ck_abort_msg("op %d here", o->kind);
	}
	if (r >= 0)
		coverage[o->kind][from][r != 0]++;
	else if (o->kind != OP_PRIVATE && o->kind != OP_END_VICTIM)
		coverage[o->kind][from][0]++;
	ev("%s %s(%sobj %d%s%s, %u) = %d", who, op_names[o->kind], o->victim ? "victim " : "",
	   o->obj, o->other ? ", other worker" : "", o->self ? ", itself" : "", o->val, r);
}

/* --- work functions: one per kind, told apart by the object ----------------------- */

static void work_ran(struct kthread_work *work, const char *kind)
{
	int obj = obj_of(work);
	struct task_struct *me = current;

	if (obj >= 0) {
		S.runs[obj]++;
		ev("%s runs obj %d in %s", kind, obj, me->comm);
		return;
	}
	for (int i = 0; S.vdw && i <= NVWORKS; i++)
		if (work == (i < NVWORKS ? S.vw[i] : M->dwork_work(S.vdw)))
			ev("%s runs victim obj %d in %s", kind, i, me->comm);
}

static void fn_plain(struct kthread_work *work)
{
	work_ran(work, "plain");
}

static void fn_spin(struct kthread_work *work)
{
	int obj = obj_of(work);

	work_ran(work, "spin");
	udelay(obj >= 0 ? P->spin_us[obj] : 20);
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
	called[obj < NWORKS ? OP_QUEUE : OP_QUEUE_DELAYED][FROM_WORK]++;
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
	called[OP_QUEUE][FROM_WORK]++;
	r = M->queue_work(worker_for(next, false), S.w[next]);
	coverage[OP_QUEUE][FROM_WORK][r]++;
	ev("chain obj %d queues obj %d = %d", obj, next, r);
}

/* Does what the program says it does (work_op()): three runs at most, as it may requeue. */
static void fn_ops(struct kthread_work *work)
{
	int obj = obj_of(work);
	char who[8];

	work_ran(work, "ops");
	if (S.runs[obj] > 3)
		return;
	snprintf(who, sizeof(who), "W%d", obj);
	for (int j = 0; j < P->work_nops[obj]; j++)
		do_op(&P->work_ops[obj][j], who, FROM_WORK, MAX_THREADS + obj);
}

static void fn_private(struct kthread_work *work)
{
	struct task_struct *me = current;

	for (int i = 0; i < NOWNERS; i++) {
		if ((S.pw[i] && work == S.pw[i]) || (S.pdw[i] && work == M->dwork_work(S.pdw[i]))) {
			S.private_runs[i]++;
			ev("private work of owner %d runs in %s", i, me->comm);
		}
	}
}

static const kw_work_fn work_fns[K__COUNT] = {
	fn_plain, fn_spin, fn_sleep, fn_requeue, fn_chain, fn_ops,
};

static void register_fns(void)
{
	static const char *const names[K__COUNT] = {
		"fn_plain", "fn_spin", "fn_sleep", "fn_requeue", "fn_chain", "fn_ops" };

	for (int i = 0; i < K__COUNT; i++)
		sim_register_symbol((const void *)work_fns[i], names[i]);
	sim_register_symbol((const void *)fn_private, "fn_private");
}

/* --- the contexts ----------------------------------------------------------------- */

static int thread_fn(void *arg)
{
	int tid = (int)(intptr_t)arg;
	const struct thread *t = &P->t[tid];
	bool ender = P->v.end_from == FROM_THREAD && P->v.end_idx == tid;
	char who[8];

	snprintf(who, sizeof(who), "P%d", tid);
	wait_for_completion(&S.go);
	complete(&S.go);		/* and pass it on */
	for (int i = 0; i < t->nops; i++) {
		do_op(&t->ops[i], who, FROM_THREAD, tid);
		if (i != t->vlast)
			continue;
		/* done with the victim: say so to whoever ends it */
		S.v_users_left--;
		if (!ender)
			complete(&S.v_done);
	}
	ev("%s ends", who);
	complete(&S.done);
	return 0;
}

/*
 * A write to /sys/devices/system/cpu/cpuN/online: the CPU goes down under
 * whatever runs there (pushed off, bound workers unbound, timers moved),
 * and maybe comes back. A suspend in the way makes it -EBUSY.
 */
static int hotplug_fn(void *arg)
{
	int ret;

	(void)arg;
	ret = sim_cpu_down(P->hp_cpu);
	ev("CH cpu_down(%d) = %d", P->hp_cpu, ret);
	S.hp_down += ret == 0;
	if (!P->hp_up_after)
		return 0;
	ndelay(P->hp_up_after % 50000);
	msleep((unsigned int)(P->hp_up_after / NSEC_PER_MSEC));
	ret = sim_cpu_up(P->hp_cpu);
	ev("CH cpu_up(%d) = %d", P->hp_cpu, ret);
	S.hp_up += ret == 0;
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
		do_op(&P->irq[i].ops[j], who, FROM_IRQ, -1);
}

static void timer_fn(struct timer_list *t)
{
	int i = (int)(t - S.timer);
	char who[8];

	snprintf(who, sizeof(who), "T%d", i);
	for (int j = 0; j < P->timer_nops[i]; j++)
		do_op(&P->timer_ops[i][j], who, FROM_TIMER, -1);
}

/* After everything else: stop the timers, cancel, destroy or stop. */
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
	if (S.R && !S.v_ended)
		end_victim("teardown", FROM_THREAD, true);
	end_worker(S.W[0], P->w0_stop, "teardown", "W0", FROM_THREAD);
	if (P->w1 == W1_ON_CPU)
		end_worker(S.W[1], P->w1_stop, "teardown", "W1", FROM_THREAD);
	else if (P->w1 == W1_LEGACY)
		ev("teardown stops W1 = %d", kthread_stop(S.legacy_task));
}

static int init_fn(void *arg)
{
	uint64_t until = 40 * NSEC_PER_MSEC;

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
	if (P->v.on)
		S.R = M->create_worker(P->v.cpu, P->v.flags, "kwr");
	ev("workers created");
	S.ready = true;
	complete(&S.go);
	for (int i = 0; i < P->nthreads; i++)
		wait_for_completion(&S.done);
	/* every irq has come by 30 ms; the longest delays are due LONG_WAIT after their arming */
	if (P->long_wait)
		until += LONG_WAIT * 1000 * NSEC_PER_MSEC / P->hz;
	if (sim_now() < until)
		sim_sleep_until(until);
	if (P->teardown)
		teardown();
	ev("init ends");
	return 0;
}

/* Whether the work obj may make a private worker (so needs the works of one). */
static bool has_private(const struct program *p, int obj)
{
	for (int j = 0; p->kind[obj] == K_OPS && j < p->work_nops[obj]; j++)
		if (p->work_ops[obj][j].kind == OP_PRIVATE)
			return true;
	return false;
}

/* Build the program's machine on the variant M and run it. */
static enum sim_end run_program(const struct program *p, const struct kw_model *m)
{
	static const char *const thread_names[MAX_THREADS] = { "P0", "P1", "P2", "P3" };
	struct sim_config cfg = m_explore_config(p->ncpus, p->preempt, p->seed);

	cfg.hz = p->hz;
	cfg.keep_trace = true;
	/*
	 * Misused programs may livelock a worker: end them all alike, by
	 * decisions and by virtual time (long delays: until twice the
	 * longest is due, which chains of delayed works may need).
	 */
	cfg.time_limit_ns = 3000 * NSEC_PER_MSEC;
	if (p->long_delays)
		cfg.time_limit_ns += 2ULL * LONG_WAIT * 1000 * NSEC_PER_MSEC / p->hz;
	cfg.max_decisions = 200000;
	cfg.stall_ns = p->seed % 2 ? 10 * NSEC_PER_MSEC : 0;
	h_init_cfg(&cfg);
	M = m;
	M->register_symbols();
	register_fns();

	P = p;
	memset(&S, 0, sizeof(S));
	breset(&events);
	init_completion(&S.go);
	init_completion(&S.done);
	init_completion(&S.v_done);
	for (int i = 0; i < NWORKS; i++)
		S.w[i] = m_work(work_fns[p->kind[i]]);
	for (int i = 0; i < NDWORKS; i++) {
		enum work_kind k = p->kind[NWORKS + i];

		/* a delayed work does not chain: its fn would queue a plain one */
		S.dw[i] = m_dwork(work_fns[k == K_CHAIN ? K_PLAIN : k]);
	}
	for (int i = 0; i < NOWNERS; i++) {
		if (i < MAX_THREADS ? i >= p->nthreads : !has_private(p, i - MAX_THREADS))
			continue;
		S.pw[i] = m_zalloc(M->work_size);
		S.pdw[i] = m_zalloc(M->dwork_size);
	}
	if (p->v.on) {
		for (int i = 0; i < NVWORKS; i++)
			S.vw[i] = m_work(work_fns[p->v.kind[i]]);
		S.vdw = m_dwork(work_fns[p->v.kind[VDWORK]]);
		S.v_users_left = __builtin_popcount(p->v.users);
	}
	for (int i = 0; i < NTIMERS; i++)
		timer_setup(&S.timer[i], timer_fn, 0);

	sim_spawn("init", init_fn, NULL, 0, true, 0);
	for (int i = 0; i < p->nthreads; i++)
		sim_spawn(thread_names[i], thread_fn, (void *)(intptr_t)i, p->t[i].cpu,
			  p->t[i].bind, p->t[i].start);
	for (int i = 0; i < p->nirqs; i++)
		sim_irq_at(p->irq[i].at, p->irq[i].cpu, "irq", irq_fn, (void *)(intptr_t)i);
	for (int i = 0; i < p->nsuspends; i++) {
		sim_suspend_at(p->suspend_at[i]);
		sim_resume_at(p->resume_at[i]);
	}
	if (p->hp_cpu)
		sim_spawn("cpuhp", hotplug_fn, NULL, p->hp_from, false, p->hp_at);
	return sim_run();
}

/* --- every run's records ------------------------------------------------------------ */

/* What the programs reached, beyond the calls they made: counted on mainline's runs. */
struct reach {
	unsigned long wheel_level[4];	/* programs where a timer armed at level >= L fired */
	unsigned long suspended;	/* ... suspended at least once */
	unsigned long resuspended;	/* ... at least twice */
	unsigned long refrozen;		/* ... where a worker froze in a second suspend */
	unsigned long suspend_cpu_off;	/* ... whose suspend took a CPU down */
	unsigned long cpu_down;		/* ... whose hotplug thread took a CPU down */
	unsigned long cpu_up;		/* ... and brought it back */
	unsigned long long_waits;	/* ... that waited for their longest delays */
	unsigned long victims;		/* ... with a victim worker */
	unsigned long victim_after_users;	/* ... ended by a thread once its users were done */
	unsigned long victim_raced;	/* ... ended racing: users still had uses left */
	unsigned long victim_stopped;	/* ... ended by kthread_stop, which returned */
	unsigned long victim_by[FROM__COUNT];	/* ... whose end began in a thread, irq ... */
	unsigned long stalled;		/* ... where a CPU was held up (a stall) */
};

static struct reach reach;

/*
 * Every run of every program, on both variants, comes through here once it
 * has ended, with all its trace records still kept: the one place for checks
 * over a run's records (the causality checker belongs here). 'r' counts
 * what the run reached; NULL: it is not counted (the second variant's run
 * of the same program).
 */
static void examine_run(const struct program *p, struct reach *r)
{
	struct {
		uint64_t timer;
		int level;
	} armed[64];
	int narmed = 0, top_level = -1, freezes = 0, suspended = 0, stalls = 0, cpu_off = 0;
	bool refrozen = false;

	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *rec = &sim_trace_records()[i];
		int k;

		switch (rec->type) {
		case REC_TIMER_START:
		case REC_TIMER_EXPIRE_ENTRY:
			for (k = 0; k < narmed && armed[k].timer != rec->a; k++)
				;
			if (rec->type == REC_TIMER_EXPIRE_ENTRY) {
				if (k < narmed && armed[k].level > top_level)
					top_level = armed[k].level;
				break;
			}
			if (k == narmed && narmed == (int)ARRAY_SIZE(armed))
				break;
			narmed += k == narmed;
			armed[k].timer = rec->a;
			/* the wheel index (d's high half) is level * LVL_SIZE + slot */
			armed[k].level = (int)((rec->d >> 32) / 64);
			break;
		case REC_STALL:
			stalls++;
			break;
		case REC_FREEZER:
			/* suspend_resume steps: c is begin (1) or end (0) */
			if (!strcmp(rec->s, "freeze_processes") && rec->c)
				freezes++;
			else if (!strcmp(rec->s, "machine_suspend") && rec->c)
				suspended++;
			else if (!strcmp(rec->s, "CPU_OFF") && rec->c)
				cpu_off++;
			else if (!strcmp(rec->s, "frozen") && freezes >= 2 && rec->s2 &&
				 !strncmp(rec->s2, "kw", 2))
				refrozen = true;
			break;
		default:
			break;
		}
	}
	if (!r)
		return;
	for (int level = 1; level < 4; level++)
		r->wheel_level[level] += top_level >= level;
	r->suspended += suspended >= 1;
	r->resuspended += suspended >= 2;
	r->refrozen += refrozen;
	r->suspend_cpu_off += cpu_off > 0;
	r->cpu_down += S.hp_down > 0;
	r->cpu_up += S.hp_up > 0;
	r->long_waits += p->long_wait;
	r->stalled += stalls > 0;
	if (!p->v.on)
		return;
	r->victims++;
	if (S.v_ended && !S.v_by_teardown)
		r->victim_by[S.v_end_from]++;
	r->victim_after_users += S.v_ended && !S.v_by_teardown && S.v_end_from == FROM_THREAD &&
				 !S.v_raced && p->v.waits && !p->v.race;
	r->victim_raced += S.v_ended && S.v_raced && p->v.race &&
			   (S.v_end_from == FROM_THREAD || S.v_end_from == FROM_WORK);
	r->victim_stopped += S.v_gone && p->v.stop;
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
	examine_run(&p, &reach);
	observe(&ours, e1, no_destroy_delayed_warn);
	destroy_warns += ours.destroy_warns != 0;
	check_causal(seed, mainline);
	sim_fini();

	e2 = run_program(&p, tree);
	examine_run(&p, NULL);
	observe(&theirs, e2, false);
	check_causal(seed, tree);
	sim_fini();

	if ((long)seed == dump_seed)
		fprintf(stderr, "seed %llu on %s:\n%s", (unsigned long long)seed, tree->name,
			theirs.text.s);
	cpus_seen[p.ncpus]++;
	ends[e1]++;
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

/*
 * At least 'per10k' in 10,000 programs (and at least one, whatever the
 * number of seeds): a kind of program the generator stopped making, or
 * that stopped reaching what it is for, fails the test. 'from' names the
 * context the count is about (FROM__COUNT: none).
 */
static void need(unsigned long count, unsigned long per10k, const char *what, enum where from)
{
	unsigned long floor = per10k * nseeds / 10000;

	ck_assert_msg(count >= (floor ? floor : 1), "%s%s%s: %lu, fewer than %lu in %u programs",
		      what, from < FROM__COUNT ? " from a " : "",
		      from < FROM__COUNT ? where_name[from] : "", count, floor ? floor : 1, nseeds);
}

static void print_reach(const struct kw_model *tree, const struct kw_model *mainline)
{
	fprintf(stderr, "%s vs %s: %u seeds identical; %lu with destroy's delayed_work_list "
		"WARN%s; ends:", tree->name, mainline->name, nseeds, destroy_warns,
		no_destroy_delayed_warn ? " (which this tree lacks: left out)" : "");
	for (int e = 0; e <= SIM_END_DIVERGED; e++)
		if (ends[e])
			fprintf(stderr, " %s %lu", sim_end_name((enum sim_end)e), ends[e]);
	fprintf(stderr, "\nprograms that: suspended %lu, twice or more %lu, froze a worker in "
		"a later suspend %lu; waited for long delays %lu; fired a timer armed at wheel "
		"level 1+ %lu, 2+ %lu, 3 %lu; took a CPU down in a suspend %lu, by cpu_down %lu, "
		"and up again %lu\n", reach.suspended, reach.resuspended,
		reach.refrozen, reach.long_waits, reach.wheel_level[1], reach.wheel_level[2],
		reach.wheel_level[3], reach.suspend_cpu_off, reach.cpu_down, reach.cpu_up);
	fprintf(stderr, "victim workers %lu: ended by a thread %lu, irq %lu, timer %lu, work %lu; "
		"after their users %lu, racing them %lu; stopped %lu\n", reach.victims,
		reach.victim_by[FROM_THREAD], reach.victim_by[FROM_IRQ], reach.victim_by[FROM_TIMER],
		reach.victim_by[FROM_WORK], reach.victim_after_users, reach.victim_raced,
		reach.victim_stopped);
	fprintf(stderr, "calls (both variants), from where: made, returned true/false "
		"(void: 0/n); %lu by works on themselves or their worker\n", called_on_itself);
	for (int k = 0; k < OP__COUNT; k++) {
		fprintf(stderr, "  %-34s", op_names[k]);
		for (int w = 0; w < FROM__COUNT; w++)
			fprintf(stderr, " %s %lu %lu/%lu", where_name[w], called[k][w],
				coverage[k][w][1], coverage[k][w][0]);
		fprintf(stderr, "\n");
	}
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
	print_reach(tree, mainline);

	/* the programs reached what they are meant to */
	for (int n = 1; n <= 4; n++)
		ck_assert_msg(cpus_seen[n], "no program on %d cpus", n);
	for (int k = 0; k < OP__COUNT; k++) {
		unsigned long any = 0;

		for (int w = 0; w < FROM__COUNT; w++)
			any += called[k][w] + coverage[k][w][0] + coverage[k][w][1];
		ck_assert_msg(any, "%s never called", op_names[k]);
	}
	for (int k = OP_QUEUE; k <= OP_MOD_DELAYED; k++)
		for (int w = 0; w < FROM__COUNT; w++)
			ck_assert_msg(coverage[k][w][0] && coverage[k][w][1],
				      "%s from a %s never returned both true and false",
				      op_names[k], where_name[w]);
	for (int k = OP_CANCEL; k <= OP_CANCEL_DELAYED; k++) {
		ck_assert_msg(coverage[k][FROM_THREAD][0] && coverage[k][FROM_THREAD][1],
			      "%s never returned both true and false", op_names[k]);
		ck_assert_msg(coverage[k][FROM_WORK][0] && coverage[k][FROM_WORK][1],
			      "%s from a work never returned both true and false", op_names[k]);
	}
	/* from works: everything a work may do, and the misuses */
	for (int k = OP_FLUSH_WORK; k <= OP_CANCEL_DELAYED; k++)
		need(called[k][FROM_WORK], 100, op_names[k], FROM_WORK);
	need(called[OP_PRIVATE][FROM_WORK], 100, "private workers", FROM_WORK);
	need(called_on_itself, 100, "works flushing or cancelling themselves, flushing their worker",
	     FROM__COUNT);
	/* the sleeping calls from atomic context: a misuse, each of them */
	for (int k = OP_FLUSH_WORK; k <= OP_CANCEL_DELAYED; k++) {
		need(called[k][FROM_TIMER], 10, op_names[k], FROM_TIMER);
		need(called[k][FROM_IRQ], 10, op_names[k], FROM_IRQ);
	}
	/* workers' ends, from everywhere they may come */
	for (int w = 0; w < FROM__COUNT; w++)
		need(called[OP_DESTROY][w], w == FROM_THREAD ? 1000 : 5, "kthread_destroy_worker", w);
	need(coverage[OP_STOP][FROM_THREAD][0], 300, "kthread_stop of created workers, returned",
	     FROM_THREAD);
	need(coverage[OP_STOP][FROM_WORK][0], 20, "kthread_stop of created workers, returned",
	     FROM_WORK);
	/* the timer wheel's levels, repeated suspends, the victims' ends */
	need(reach.wheel_level[1], 200, "programs that fired a timer from wheel level 1", FROM__COUNT);
	need(reach.wheel_level[2], 100, "programs that fired a timer from wheel level 2", FROM__COUNT);
	need(reach.wheel_level[3], 50, "programs that fired a timer from wheel level 3", FROM__COUNT);
	need(reach.stalled, 1000, "programs held up by a stall", FROM__COUNT);
	need(reach.resuspended, 200, "programs suspended twice or more", FROM__COUNT);
	need(reach.refrozen, 50, "programs with a worker frozen in a later suspend", FROM__COUNT);
	need(reach.suspend_cpu_off, 300, "programs whose suspend took a CPU down", FROM__COUNT);
	need(reach.cpu_down, 1000, "programs that took a CPU down (cpu_down)", FROM__COUNT);
	need(reach.cpu_up, 500, "programs that brought a CPU back (cpu_up)", FROM__COUNT);
	need(reach.victim_after_users, 200, "victims ended after their users", FROM__COUNT);
	need(reach.victim_raced, 50, "victims ended while users were at them", FROM__COUNT);
	need(reach.victim_stopped, 50, "victims stopped", FROM__COUNT);
	for (int w = 0; w < FROM__COUNT; w++)
		need(reach.victim_by[w], 5, "victims whose end began", (enum where)w);
	ck_assert_msg(ends[SIM_END_FATAL] && reach.suspended && destroy_warns,
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
