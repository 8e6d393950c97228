/*
 * Trace records: typed, not text. Every view (ftrace text, Perfetto JSON,
 * the viewer) is rendered from these, and the run's hash is taken over them.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum sim_rec_type {
	REC_SCHED_SWITCH,	/* a: prev pid, b: prev state, c: next pid; s: prev comm, s2: next comm */
	REC_SCHED_WAKING,	/* a: pid, b: target cpu; s: comm */
	REC_TIMER_START,	/* a: timer, b: expires, c: bucket_expiry, d: flags | cpu, idx << 32; s: function */
	REC_TIMER_EXPIRE_ENTRY,	/* a: timer, b: now (jiffies), c: baseclk; s: function */
	REC_TIMER_EXPIRE_EXIT,	/* a: timer */
	REC_TIMER_CANCEL,	/* a: timer */
	REC_LOCK_CONTENDED,	/* a: lock, b: ns spun; s: lock name */
	REC_IRQ_ENTRY,		/* s: handler name */
	REC_IRQ_EXIT,
	REC_SOFTIRQ_ENTRY,
	REC_SOFTIRQ_EXIT,
	REC_FINDING,		/* a: finding index, b: its cause's time, c: its cause's cpu (a
				   use-after-free's: the kfree's; others: 0); s: kind name */
	REC_FREEZER,		/* the suspend's steps as suspend_resume traces them (s: action
				   "suspend_enter", "sync_filesystems", "freeze_processes", "machine_suspend",
				   "thaw_processes"; b: val, c: 1 begin / 0 end, d: ns slept in all),
				   or a task's ("frozen", "thawed": a: its pid, s2: its comm) */
	REC_TASK_NEW,		/* a: pid; s: comm */
	REC_TASK_EXIT,		/* a: pid, b: exit code */
	REC_MODEL,		/* model tracepoints, the kernel's or kwsim's own (kwsim_*):
				   s: event name, a..d its fields, s2: function */
	REC_PRINTK,		/* a: log level (4 with no KERN_ prefix); s: the line, no newline */
	REC_LOCK_ACQUIRE,	/* the lock taken: a: lock, b: TRACE_LOCK_TRY | TRACE_LOCK_READ; s: name */
	REC_LOCK_RELEASE,	/* a: lock; s: lock name */
	REC_STALL,		/* the CPU held up from the record's time (stall.c): a: ns, b: what
				   it waits for (struct sim_question's until, as int64_t), c: its
				   decision's index, d: the held context's line (sim_note_line; 0:
				   none); s: its name (NULL: idle), s2: its sim_note() text, or NULL */
	REC__COUNT
};

struct sim_rec {
	uint64_t time;
	uint64_t a, b, c, d;
	const char *s;		/* static or interned strings */
	const char *s2;
	int32_t pid;		/* the running task (0: idle) */
	uint16_t cpu;
	uint8_t type;
	uint8_t flags;		/* TRACE_FLAG_* below, as ftrace's latency columns */
	uint8_t preempt;	/* preempt depth: preempt_count's low byte */
	char comm[16];
};

/* REC_SCHED_SWITCH's d: the switch was a preemption ("R+" in prev_state). */
#define TRACE_SWITCH_PREEMPT	0x1ULL

/* REC_LOCK_ACQUIRE's b, as lock.h's lock_acquire flags. */
#define TRACE_LOCK_TRY		0x1ULL
#define TRACE_LOCK_READ		0x2ULL

#define TRACE_FLAG_IRQS_OFF	0x01
#define TRACE_FLAG_NEED_RESCHED	0x02
#define TRACE_FLAG_HARDIRQ	0x04
#define TRACE_FLAG_SOFTIRQ	0x08	/* serving a softirq */
#define TRACE_FLAG_BH_OFF	0x10	/* bottom halves disabled (local_bh_disable) */

/*
 * A work's life as the trace records it (REC_MODEL): the kernel's
 * sched_kthread_work_* tracepoints (5.11 on), or where the kernel had none
 * (4.9) kwsim's own kwsim_work_* records at the same places, with the same
 * fields (trace/events/kwsim.h). The views draw both alike, but for the
 * ftrace text view, which shows only the kernel's.
 */
enum sim_work_step {
	SIM_WORK_NONE,		/* not a work's record */
	SIM_WORK_QUEUE,		/* queue_work: a: work, b: worker; s2: function */
	SIM_WORK_START,		/* execute_start: a: work; s2: function */
	SIM_WORK_END,		/* execute_end: a: work; s2: function */
};
enum sim_work_step sim_rec_work_step(const struct sim_rec *r);
/* A model record that is kwsim's, not a kernel tracepoint (its name begins "kwsim_"). */
bool sim_rec_kwsim_own(const struct sim_rec *r);

/* Append a record stamped with the running context. */
void sim_trace(enum sim_rec_type type, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
	       const char *s, const char *s2);

/*
 * A sink sees every record as it is made: in the machine's order, which is
 * not time order (each CPU has its own clock). The tools stream their views
 * from it, so that a run's memory does not grow with its length; records
 * are kept as well only with sim_config.keep_trace. The record and its
 * strings stay valid until sim_fini(). sim_fini() removes the sink.
 */
typedef void (*sim_trace_sink_fn)(void *arg, const struct sim_rec *r);
void sim_trace_set_sink(sim_trace_sink_fn fn, void *arg);
/*
 * The watermark: no record made from now on carries an earlier time, nor
 * names an earlier one (a contended lock's record names when the spin
 * began). Records older than it can be released in time order.
 */
uint64_t sim_trace_watermark(void);

/* The records kept with sim_config.keep_trace, in the machine's order. */
size_t sim_trace_count(void);
const struct sim_rec *sim_trace_records(void);
/* A hash over every record of the run, kept even when records are not. */
uint64_t sim_trace_hash(void);
const char *sim_rec_type_name(enum sim_rec_type type);

#endif
