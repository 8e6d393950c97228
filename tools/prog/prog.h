/*
 * A generated kthread_worker program: what `kwsim fuzz` generates, mutates,
 * keeps in its corpus and prints as a scenario (.kws) to run. A value of
 * fixed size (arrays with counts, no pointers): copying one is assignment,
 * a corpus is an array of them, and equal programs print equal text.
 *
 * The parts, each printed as the scenario language writes it:
 *   workers   kthread_create_worker[_on_cpu](flags, ...) or the legacy
 *             kthread_init_worker + kthread_run
 *   works     a work or delayed work with its own function body, used with
 *             one worker (the contract; --misuse may queue it elsewhere)
 *   timers    a timer_list with its callback's body (softirq context)
 *   contexts  threads (on a CPU or not, started at a time) and hard irqs
 *             (on a CPU at a time), each with a body
 *   suspend   a suspend at a time and the resume after it
 * A body is a flat list of statements (kp_stmt); lock sections are a
 * KP_LOCK ... KP_UNLOCK pair in one body, kept balanced by kp_normalize().
 *
 * Files: gen.c (kp_generate, kp_mutate, kp_normalize), print.c (kp_print),
 * contract.c (the API's contract: which rules a statement or a program
 * breaks; the rules and their kernel-doc sentences in CONTRACT.md),
 * invariants.c (the kthread_worker invariants, always/never clauses).
 */
#ifndef KWSIM_PROG_H
#define KWSIM_PROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/rng.h"

#define KP_MAX_WORKERS	3
#define KP_MAX_WORKS	6
#define KP_MAX_TIMERS	2
#define KP_MAX_CTX	5	/* threads and irqs */
#define KP_MAX_LOCKS	2
#define KP_MAX_COMPLETIONS 2
#define KP_MAX_COUNTERS	2
#define KP_MAX_STMTS	12	/* per body */

/*
 * Statements. a, b and arg by op (W a worker index, A a work index, T a
 * timer, L a lock, C a completion, N a counter):
 */
enum kp_op {
	KP_QUEUE_WORK,			/* kthread_queue_work(W a, A b) */
	KP_QUEUE_DELAYED_WORK,		/* kthread_queue_delayed_work(W a, A b, arg jiffies) */
	KP_MOD_DELAYED_WORK,		/* kthread_mod_delayed_work(W a, A b, arg jiffies) */
	KP_FLUSH_WORK,			/* kthread_flush_work(A b) */
	KP_FLUSH_WORKER,		/* kthread_flush_worker(W a) */
	KP_CANCEL_WORK_SYNC,		/* kthread_cancel_work_sync(A b) */
	KP_CANCEL_DELAYED_WORK_SYNC,	/* kthread_cancel_delayed_work_sync(A b) */
	KP_DESTROY_WORKER,		/* kthread_destroy_worker(W a) */
	KP_STOP,			/* kthread_stop(W a ->task): a legacy worker */
	KP_INIT_WORK,			/* kthread_init_work(A b, its fn): re-initialise */
	KP_INIT_DELAYED_WORK,		/* kthread_init_delayed_work(A b, its fn) */
	KP_MOD_TIMER,			/* mod_timer(T a, jiffies + arg) */
	KP_DEL_TIMER,			/* del_timer(T a) */
	KP_DEL_TIMER_SYNC,		/* del_timer_sync(T a) */
	KP_UDELAY,			/* udelay(arg us), or udelay(arg..hi): busy */
	KP_MSLEEP,			/* msleep(arg ms), or msleep(arg..hi) */
	KP_COND_RESCHED,		/* cond_resched() */
	KP_LOCK,			/* spin_lock*(L a), b: enum kp_lock_how */
	KP_UNLOCK,			/* the matching spin_unlock*(L a), b as KP_LOCK's */
	KP_COMPLETE,			/* complete(C a) */
	KP_WAIT,			/* wait_for_completion(C a) */
	KP_COUNT,			/* N a ++ */
	KP_OP__COUNT
};

enum kp_lock_how { KP_LOCK_PLAIN, KP_LOCK_IRQ, KP_LOCK_IRQSAVE, KP_LOCK_BH, KP_LOCK__COUNT };

struct kp_stmt {
	uint8_t op;		/* enum kp_op */
	uint8_t a, b;
	uint32_t arg;
	uint32_t hi;		/* udelay, msleep: 0, or the range arg..hi (hi > arg) */
};

struct kp_body {
	struct kp_stmt s[KP_MAX_STMTS];
	unsigned int n;
};

struct kp_worker {
	bool freezable;		/* KTW_FREEZABLE */
	bool legacy;		/* kthread_init_worker + kthread_run (no cpu) */
	int8_t cpu;		/* kthread_create_worker_on_cpu's, -1: kthread_create_worker */
};

struct kp_work {
	bool delayed;
	uint8_t worker;		/* the worker it is used with */
	struct kp_body fn;	/* its work function, run by that worker's thread */
};

struct kp_timer {
	struct kp_body fn;	/* its callback, in softirq context */
};

enum kp_ctx_kind { KP_THREAD, KP_IRQ };

struct kp_ctx {
	uint8_t kind;		/* enum kp_ctx_kind */
	int8_t cpu;		/* a thread's -1: not bound; an irq's CPU */
	uint32_t at_us;		/* start (thread) or arrival (irq), boot-clock µs */
	uint32_t at_hi_us;	/* 0, or the range at_us..at_hi_us (at_hi_us > at_us) */
	struct kp_body body;
};

/* Where a body is: a context, a work's function or a timer's callback. */
enum kp_where_kind { KP_IN_CTX, KP_IN_WORK, KP_IN_TIMER };
struct kp_where {
	enum kp_where_kind kind;
	unsigned int index;
};

struct kp {
	uint8_t cpus;		/* 1 .. 4 */
	uint16_t hz;		/* 100, 250, 1000 */
	struct kp_worker worker[KP_MAX_WORKERS];
	struct kp_work work[KP_MAX_WORKS];
	struct kp_timer timer[KP_MAX_TIMERS];
	struct kp_ctx ctx[KP_MAX_CTX];
	uint8_t nworkers, nworks, ntimers, nctx, nlocks, ncompletions, ncounters;
	bool suspend;
	uint32_t suspend_at_us, resume_at_us;
	/*
	 * The teardown printed after the contexts: a last thread that waits
	 * for every context to finish (a completion each completes last), then
	 * stops the timers, cancels every work (delayed ones with
	 * kthread_cancel_delayed_work_sync) in an order where no work it has
	 * cancelled can be queued again, and destroys (or stops) every worker.
	 * kp_generate() sets it; only --misuse clears it (a program without
	 * it leaks its workers, or destroys them under armed timers).
	 */
	bool teardown;
};

struct kp_gen_opts {
	bool misuse;		/* lift the contract: draw statements that break it too */
	unsigned int max_cpus;	/* 1 .. 4 */
};

/* A random program within the limits above (and the contract unless misuse). */
void kp_generate(struct kp *p, struct rng *r, const struct kp_gen_opts *o);
/*
 * One random mutation of p: insert, delete or swap statements; change a
 * delay, a CPU, a start time, a context's kind; add or drop a part; or,
 * with other non-NULL, splice a body or part of other into p. Leaves p
 * normalised and, unless o->misuse, within the contract. Returns what it
 * did, a short static name ("insert", "splice", ...) for statistics.
 */
const char *kp_mutate(struct kp *p, struct rng *r, const struct kp *other,
		      const struct kp_gen_opts *o);
/*
 * Make p well formed: indices in range, lock sections balanced (an unlock
 * without its lock dropped, a missing unlock added at the body's end), at
 * most KP_MAX_STMTS per body, a resume after the suspend; calls on works
 * of the kind the scenario language takes (kthread_queue_work on a delayed
 * work becomes kthread_queue_delayed_work with no delay, and so on), lock
 * variants safe where irqs and timer callbacks take the lock, no more
 * waits for a completion than contexts that wait for nothing complete it
 * (gen.c says why). Idempotent. Padding and unused slots are zero after
 * it: equal normal programs are equal bytes (memcmp).
 */
void kp_normalize(struct kp *p);
/* Statements in all bodies: the program's size. */
size_t kp_size(const struct kp *p);

/*
 * A corpus entry on disk (gen.c): p in a line-based text form of its own,
 * "kwsim-prog 1" then a line per field and statement, that kp_load reads
 * back into an equal program. Returns 0, or -1 (kp_load: with why in err,
 * for a file that is not one, or out of the limits above).
 */
int kp_save(FILE *out, const struct kp *p);
int kp_load(FILE *in, struct kp *p, char *err, size_t len);

/* --- the scenario text (print.c) ----------------------------------------------------------- */

struct kp_print_opts {
	const char *name;	/* after KW */
	const char *comment;	/* the (* *) comment, or NULL */
	const char *kernel;	/* a `kernel = ...;` setting, or NULL: none */
	bool invariants;	/* the kthread_worker invariants (invariants.c) */
	uint64_t stall_ns;	/* a `stall = ...;` setting in ns, or 0: none */
};

/*
 * p as a scenario: the init block (settings, counters, locks, completions,
 * fns, workers, works, timers), the contexts as P0.. and I0.., suspend and
 * resume, the teardown, the invariants. No condition: a run passes when it
 * finds nothing. Deterministic text. Returns 0, or -1 on a write error.
 */
int kp_print(FILE *out, const struct kp *p, const struct kp_print_opts *o);
/* The same into a malloc'd NUL-terminated string (NULL when out of memory). */
char *kp_text(const struct kp *p, const struct kp_print_opts *o, size_t *len);

/* --- the API's contract (contract.c; the rules with their sources: tools/prog/CONTRACT.md) -- */

enum kp_rule {
	KP_RULE_ONE_WORKER,		/* a work is used with one worker only */
	KP_RULE_DELAYED_CANCEL,		/* a delayed work is cancelled with ..._delayed_work_sync */
	KP_RULE_DESTROY_ARMED,		/* no delayed work armed or work queued at destroy */
	KP_RULE_USE_AFTER_DESTROY,	/* nothing uses a worker being or once destroyed */
	KP_RULE_SLEEP_IN_ATOMIC,	/* nothing sleeps in atomic context */
	KP_RULE_SELF_WAIT,		/* a work does not flush or cancel-sync itself or its worker */
	KP_RULE_REINIT_IN_USE,		/* a work is re-initialised only when idle */
	KP_RULE_LEGACY_DESTROY,		/* a kthread_init_worker() worker is stopped, not destroyed */
	KP_RULE_LEAK,			/* every worker is destroyed (or stopped) */
	KP_RULE_TIMER_TEARDOWN,		/* a timer is stopped before what its callback uses goes */
	KP_RULE_QUEUE_CYCLE,		/* no works (or timers) whose functions queue each other */
	KP_RULE_LOCKING,		/* locks nest in one order, irq-safe where irqs take them */
	KP_RULE_WAIT,			/* every wait ends: completions completed, bounded sleeps */
	KP_RULE__COUNT
};

struct kp_rule_info {
	const char *id;		/* "one-worker", ...: in reports and CONTRACT.md */
	const char *summary;	/* one line */
	const char *source;	/* the kernel-doc sentence or comment, and where it is */
};

const struct kp_rule_info *kp_rule_info(enum kp_rule rule);
/*
 * The rules inserting s at position pos of the body at w breaks, a bit per
 * rule (0: none): what kp_generate and kp_mutate ask before they insert.
 */
uint64_t kp_stmt_breaks(const struct kp *p, struct kp_where w, unsigned int pos,
			const struct kp_stmt *s);
/* The rules p breaks, a bit per rule (0: p respects the contract). */
uint64_t kp_contract(const struct kp *p);
/*
 * The order the teardown quiesces works and timers in: each after every
 * work or timer whose function can queue or arm it (a work queueing
 * itself is no obstacle: cancel_sync blocks its requeue). Fills order
 * (KP_IN_WORK or KP_IN_TIMER, at most KP_MAX_WORKS + KP_MAX_TIMERS) and
 * returns how many, or -1 when they queue each other in a cycle
 * (KP_RULE_QUEUE_CYCLE: no order quiesces them).
 */
int kp_quiesce_order(const struct kp *p, struct kp_where *order);

/* --- kthread_worker invariants (invariants.c; sources in CONTRACT.md) --------------------- */

/*
 * Names as kp_print writes them (the invariants use them too): worker i is
 * W<i>, work i is A<i> if plain and D<i> if delayed (i its index in
 * p->work, whatever its kind), timer i T<i>.
 *
 * Write the always/never clauses of the kthread_worker invariants for p's
 * works and workers (e.g. `never (queued(A) /\ delayed(A))`: a work is on
 * at most one list), each after a comment naming the invariant.
 */
int kp_print_invariants(FILE *out, const struct kp *p);

#endif
