/*
 * An execution context of the machine: a task, or a CPU's hardirq or
 * softirq frame. Each has its own coroutine stack.
 */
#ifndef SIM_CTX_H
#define SIM_CTX_H

#include <stdint.h>
#include <stdbool.h>
#include <sim/coro.h>

enum sim_ctx_kind { CTX_TASK, CTX_HARDIRQ, CTX_SOFTIRQ };

/* What a context is doing when it is not running. */
enum sim_ctx_wait {
	WAIT_NONE,	/* runnable */
	WAIT_SPIN,	/* spinning: keeps its CPU, burns time until spin_obj changes */
	WAIT_DELAY,	/* busy-waiting until delay_until */
};

#define SIM_MAX_HELD_LOCKS 48

struct sim_spin_obj;
struct sim_lock_class;

struct sim_held_lock {
	const void *lock;
	struct sim_lock_class *cls;
	const struct sim_site *site;
};

struct sim_ctx {
	struct coro coro;
	enum sim_ctx_kind kind;
	enum sim_ctx_wait wait;
	struct sim_spin_obj *spin_obj;
	uint64_t spin_start;		/* when its spin for the thing it waits on began */
	bool spin_woken;		/* its spin has ended, and it has not run since */
	uint64_t spin_seq;
	uint64_t spin_ticket;		/* its place among all spinners, by arrival */
	uint64_t delay_until;
	struct sim_cpu *cpu;		/* where it runs now */
	bool below_preemptible;		/* interrupt frames: the interrupted point's preemptibility */
	struct task_struct *task;	/* for CTX_TASK */
	int nheld;
	struct sim_held_lock held[SIM_MAX_HELD_LOCKS];
	char note[96];			/* what the caller says it is doing (sim_note) */
	/* sim_note_line's, not yet written into note: sim_ctx_note() writes it */
	const char *note_file;
	int note_line;
	/* where it is, for a fault's report (sim_ctx_site) */
	const struct sim_site *in_call;	/* the lock call it is inside, or NULL */
	const char *work_fn;		/* the work function it executes, or NULL */
	/* the shared access it stands at, for a strategy (struct sim_question's sites) */
	const struct sim_site *at;
};

#endif
