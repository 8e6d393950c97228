/*
 * Views of a run's trace records (sim/include/sim/trace.h): the tracefs
 * `trace` file as a kernel developer reads it, and Chrome/Perfetto
 * trace-event JSON for the timeline UIs. Both are pure functions of the
 * records and the options: the same input gives byte-identical output, so
 * views can be diffed across runs and pinned in tests.
 */
#ifndef KWSIM_TRACE_VIEW_H
#define KWSIM_TRACE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sim/trace.h>

#include "view/trace_filter.h"

struct trace_view_opts {
	unsigned int hz;	/* jiffies per second, for timer_start's now/timeout; 0: 250 */
	int ncpus;		/* "#P:" and the CPU tracks; 0: from the records */
	const char *title;	/* JSON otherData.title; may be NULL */
	const struct trace_filter *filter;	/* the records shown; NULL: all */
	/*
	 * The view's size in bytes, 0: no limit. Events stop at the limit (the
	 * run goes on): the text view's header counts the lines it lost in
	 * entries-written, as tracefs counts a full ring buffer's; the JSON's
	 * otherData.cut says how many events it lost. The header and the JSON's
	 * metadata are never cut: a limit smaller than they are is exceeded.
	 */
	unsigned long long limit;
	unsigned long long *lost;	/* _end() stores the events cut off there; may be NULL */
};

/* The default --trace-limit: a view this big is no longer read, only waited for. */
#define TRACE_LIMIT_DEFAULT	(64ULL << 20)

/*
 * The tracefs `trace` file of a 6.x kernel with the nop tracer: header, then
 * one line per record, the CPUs' streams merged by timestamp as the kernel's
 * iterator merges its per-CPU ring buffers.
 */
void trace_write_text(FILE *out, const struct sim_rec *recs, size_t n,
		      const struct trace_view_opts *o);

/*
 * Trace-event JSON: a process per CPU (its running tasks, its interrupts)
 * and one per task (work executions, timers, locks, printk), flow arrows
 * from each queue_work to the execution that consumed it.
 */
void trace_write_json(FILE *out, const struct sim_rec *recs, size_t n,
		      const struct trace_view_opts *o);

/*
 * The same views as streams, for a run too long to keep: _record() each
 * record as the machine makes it (sim_trace_set_sink), _release() now and
 * then with sim_trace_watermark() so that what can no longer be preceded is
 * written out, and _end() when the run is over. Memory holds only records
 * newer than the watermark (and, for JSON, what is still open); the output
 * is byte for byte that of trace_write_text() / trace_write_json() over the
 * same records. They write to a temporary file (the header comes first but
 * is known last): _begin() returns NULL when it cannot make one. _end()
 * writes the view to out (NULL: nowhere), frees the stream, and returns -1
 * when writing failed (errno says why).
 */
struct trace_text;
struct trace_text *trace_text_begin(const struct trace_view_opts *o);
void trace_text_record(struct trace_text *t, const struct sim_rec *r);
void trace_text_release(struct trace_text *t, uint64_t watermark);
size_t trace_text_held(const struct trace_text *t);
int trace_text_end(struct trace_text *t, FILE *out);

struct trace_json;
struct trace_json *trace_json_begin(const struct trace_view_opts *o);
void trace_json_record(struct trace_json *w, const struct sim_rec *r);
void trace_json_release(struct trace_json *w, uint64_t watermark);
size_t trace_json_held(const struct trace_json *w);
int trace_json_end(struct trace_json *w, FILE *out);

/*
 * A terminal timeline (timeline.c): lanes per CPU (the context that runs,
 * the works it executes, marks for timers, queueings, wake-ups and
 * findings), per task on request (running, runnable, sleeping, blocked,
 * frozen, spinning), a suspend lane when the run suspends, a time axis and
 * a legend. Records are taken in time order once the watermark has passed
 * them and painted into columns as they come: memory holds the columns,
 * not the run. Plain ASCII; ANSI colour only with color set.
 */
struct trace_timeline_opts {
	int width;		/* of each line, lane names included */
	uint64_t from, to;	/* the window [from, to); to 0: to the last record */
	bool cpu_lanes, task_lanes;
	bool color;
};

struct trace_timeline;
struct trace_timeline *trace_timeline_begin(const struct trace_view_opts *o,
					    const struct trace_timeline_opts *to);
void trace_timeline_record(struct trace_timeline *t, const struct sim_rec *r);
void trace_timeline_release(struct trace_timeline *t, uint64_t watermark);
size_t trace_timeline_held(const struct trace_timeline *t);
/* Draw the timeline to out (NULL: nowhere) and free it. */
void trace_timeline_end(struct trace_timeline *t, FILE *out);

/* --- shared by the views (trace_text.c) ------------------------------------------ */

/*
 * The CPUs' streams merged in time order, as the kernel's iterator merges
 * its per-CPU ring buffers: _push() each record as the machine makes it,
 * _next() gives the earliest one older than the watermark (any, with all)
 * or NULL, valid until the next push. A zeroed struct is an empty merge.
 */
struct trace_cpu_queue;
struct trace_merge {
	struct trace_cpu_queue *q;
	size_t nq;
	size_t held;		/* records pushed and not yet taken */
};
void trace_merge_push(struct trace_merge *m, const struct sim_rec *r);
const struct sim_rec *trace_merge_next(struct trace_merge *m, uint64_t watermark, bool all);
void trace_merge_free(struct trace_merge *m);

/* The hz the views use when the options leave it 0: the machine's default. */
unsigned int trace_view_hz(const struct trace_view_opts *o);
/* jiffies at a virtual time, as sim_ns_to_jiffies computes them. */
unsigned long trace_view_jiffies(uint64_t ns, unsigned int hz);
/* sched_switch's prev_state, as __trace_sched_switch_state and TP_printk make it. */
const char *trace_view_prev_state(const struct sim_rec *r);
/*
 * timer_start's values that its TP_printk() computes: the timeout from
 * expires and jiffies now, cpu, idx and flags= (as decode_timer_flags
 * prints them, "" when none) from the record's d.
 */
struct trace_timer_start {
	unsigned long expires, bucket_expiry;
	long timeout;
	unsigned int cpu, idx;
	char flags[16];
};
void trace_view_timer_start(const struct sim_rec *r, unsigned int hz, struct trace_timer_start *t);
/* A softirq's vector number from its name, as show_softirq_name maps them; -1: unknown. */
int trace_view_softirq_vec(const char *name);
/*
 * A field of r's description (sim/trace_events.h) as a view that names its
 * fields (JSON, HTML) writes it: an address, a string (NULL as "(null)"),
 * a signed or an unsigned number.
 */
enum trace_value { TRACE_VALUE_ADDR, TRACE_VALUE_STR, TRACE_VALUE_INT, TRACE_VALUE_UINT };
struct trace_field_value {
	const char *s;		/* TRACE_VALUE_STR's */
	long long n;		/* the others' (an address or unsigned: as unsigned long long) */
	char comm[17];
};
enum trace_value trace_view_field(const struct sim_rec *r, const struct sim_rec_field *f,
				  struct trace_field_value *v);
/* The event name of r's line in the text view ("sched_switch", "timer_start", ...). */
const char *trace_view_event_name(const struct sim_rec *r);
/* The tracefs system (events/SYSTEM/) that event is under ("sched", "timer", ...). */
const char *trace_view_event_system(const struct sim_rec *r);
/*
 * Cut a view's body (len bytes in a temporary file) to at most budget
 * bytes, at the end of a line: returns the new length, *dropped the lines
 * cut off (an unterminated last one counts). -1 when reading failed.
 */
long long trace_view_fit(FILE *body, unsigned long long len, unsigned long long budget,
			 unsigned long long *dropped);
/* Copy len bytes of a view's body to out: 0, or -1 when reading or writing failed. */
int trace_view_copy(FILE *out, FILE *body, unsigned long long len);
/* A string field as %s prints it: NULL is "(null)". */
const char *trace_view_str(const char *s);

#endif
