/*
 * Which records the trace views show: --trace-filter SPEC, parsed here and
 * nowhere else. SPEC is KEY=LIST clauses separated by ';', every clause
 * must hold (the kernel's set_event, set_event_pid and a time window,
 * together):
 *
 *   events=PATTERN,...  event names as the text view prints them
 *                       (sched_switch, timer_start, ...), a tracefs system
 *                       (sched, timer, irq, task, printk, power, kwsim) or
 *                       SYSTEM:EVENT as set_event takes it; shell globs
 *                       (fnmatch) in either part; !PATTERN excludes
 *   cpus=LIST           a cpulist: 0,2-3
 *   tasks=LIST          comms (globs) or pids; as set_event_pid filters,
 *                       sched_switch matches by prev or next task and
 *                       sched_waking by waker or wakee
 *   from=TIME, to=TIME  the record's time, inclusive (5ms, 100us, 2s, 0ns)
 *
 * A view takes a record if it passes; what a view makes of two records (a
 * slice) it shows only if both pass (trace_json.c).
 */
#ifndef KWSIM_TRACE_FILTER_H
#define KWSIM_TRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include <sim/trace.h>

struct trace_filter;

/*
 * Parse SPEC into *f (a new filter when *f is NULL; a repeated option adds
 * its clauses, each KEY at most once overall). 0, or -1 with a message in
 * err (without the option's name).
 */
int trace_filter_parse(struct trace_filter **f, const char *spec, char *err, size_t len);
/* Whether the views take r: true for every record when f is NULL. */
bool trace_filter_pass(const struct trace_filter *f, const struct sim_rec *r);
/* The specs as given, joined by ';' (for the JSON's otherData). */
const char *trace_filter_text(const struct trace_filter *f);
void trace_filter_free(struct trace_filter *f);

/*
 * A trace's size limit: N with an optional K, M or G (binary units, as
 * buffer_size_kb counts), or "none". 0, or -1 when s is not one.
 */
int trace_limit_parse(const char *s, unsigned long long *bytes);

#endif
