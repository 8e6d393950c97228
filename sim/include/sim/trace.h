/*
 * Trace records: typed, not text. Every view (ftrace text, Perfetto JSON,
 * the viewer) is rendered from these, and the run's hash is taken over them.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* The record types, in the order of their descriptions (sim/trace_events.h). */
enum sim_rec_type {
#define SIM_TRACE_EVENT(type, name, event, system, print, fields) type,
#include <sim/trace_events.h>
#undef SIM_TRACE_EVENT
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

/*
 * Append a record stamped with the running context. s and s2 are static or
 * interned (sim_intern()): the run's hash takes a string's hash by its
 * address, cached from run to run.
 */
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

/*
 * A record type's description (sim/trace_events.h): what the kernel's
 * TRACE_EVENT() says of an event, its name, system and fields in
 * TP_printk()'s order. The views read it; sim/ only states it.
 */
enum sim_field_slot {
	SIM_F_A, SIM_F_B, SIM_F_C, SIM_F_D,	/* the record's a..d */
	SIM_F_S, SIM_F_S2,			/* its strings */
	SIM_F_COMM,				/* the running task's comm */
	SIM_F_K,				/* a constant: value */
};
enum sim_field_type {
	SIM_FT_PTR,	/* an address: %016llx */
	SIM_FT_INT,	/* %d */
	SIM_FT_ULONG,	/* %lu */
	SIM_FT_U64,	/* %llu */
	SIM_FT_CPU,	/* a CPU number: %03d */
	SIM_FT_STR,	/* %s, NULL as "(null)" */
	SIM_FT_COMM,	/* a comm: %.16s */
	SIM_FT_OWN,	/* computed by the view (the event prints OWN) */
};
enum sim_rec_print {
	SIM_PRINT_FIELDS,	/* "event: name=value name=value ..." */
	SIM_PRINT_OWN,		/* a format of its own: the views write it by hand */
};
#define SIM_REC_FIELDS_MAX	8
struct sim_rec_field {
	const char *name;
	uint8_t slot;		/* enum sim_field_slot */
	uint8_t type;		/* enum sim_field_type */
	const char *value;	/* SIM_F_K's */
};
struct sim_rec_desc {
	const char *name;	/* the record's: sim_rec_type_name() */
	const char *event;	/* the tracefs event (NULL: the record's s, a model tracepoint) */
	const char *system;	/* events/SYSTEM/ (NULL: by the event's name) */
	uint8_t print;		/* enum sim_rec_print */
	uint8_t nfields;
	struct sim_rec_field field[SIM_REC_FIELDS_MAX];
};
/* NULL for a type out of range. */
const struct sim_rec_desc *sim_rec_desc(unsigned int type);
/* A field's raw value: the record's slot (0 for strings and constants). */
uint64_t sim_rec_field_u64(const struct sim_rec *r, const struct sim_rec_field *f);
/* A string field's value (STR, COMM, K): may be NULL. */
const char *sim_rec_field_str(const struct sim_rec *r, const struct sim_rec_field *f);

#endif
