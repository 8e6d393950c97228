/*
 * The timeline in a browser: one self-contained page (tools/html/page.html,
 * page.css, page.js, built into the binary) and the run document it draws,
 * a JSON object made from a run's records as they stream (like the trace
 * views of trace_view.h), so that `kwsim export` writes it into the page and
 * `kwsim serve` can send the same JSON in chunks.
 *
 * The run document, version 1 (every time is in virtual nanoseconds, a
 * JSON number; addresses are the trace's fake addresses, "0x..." strings):
 *
 *   { "kwsim_doc": 1,
 *     "title": "...",
 *     "scenario": { "name", "path", "text" },   the file as read (schedule too)
 *     "run": { "kernel", "cpus", "hz", "preempt", "strategy", "seed",
 *              "replay": bool, "max_records": N },
 *     "records": [ record, ... ],                in (t, cpu, order made) order
 *     "end": { "outcome": "quiescent"|"deadlock"|..., "end_ns", "decisions",
 *              "hash": "hex", "verdict": "Ok"|"No"|null, "condition": "..."|null,
 *              "findings": [ { "kind", "msg", "t", "cpu", "context",
 *                              "file", "line", "func", "note", "scn_line",
 *                              "decision" } ],
 *              "records": total made, "kept": in "records", "dropped": the rest,
 *              "dropped_from_ns": time of the first one dropped, or null } }
 *
 * A record is an object with "t", "cpu", "pid" (the running task, 0: idle),
 * "comm", "ctx" ("task", "hardirq", "softirq"), "ev" (its name) and the
 * event's fields:
 *   sched_switch        prev_pid prev_comm prev_state next_pid next_comm
 *   sched_waking        task_pid task_comm target_cpu
 *   task_newtask        task_pid task_comm
 *   sched_process_exit  task_pid code
 *   timer_start         timer function expires timeout (jiffies)
 *   timer_expire_entry  timer function now
 *   timer_expire_exit   timer
 *   timer_cancel        timer
 *   lock_contended      lock name spun_ns (the spin ended at t)
 *   irq_handler_entry   name;   irq_handler_exit
 *   softirq_entry       name;   softirq_exit
 *   finding             index (into end.findings) kind
 *   suspend_resume      action val start slept_ns   (the system's steps)
 *   frozen, thawed      task_pid task_comm
 *   sched_kthread_work_queue_work, sched_kthread_work_execute_start,
 *   sched_kthread_work_execute_end, kwsim's own kwsim_work_queue_work,
 *   kwsim_work_execute_start, kwsim_work_execute_end in their place where
 *   the kernel has none (4.9), and any other model tracepoint:
 *                       work worker function kfunc kfile kline
 *                       (kfunc..: the kernel function that fires it)
 *   console             level text   (printk)
 *   kw_state            obj kind ("work", "delayed_work", "worker") and, from
 *                       this record on, a work's pending queued (on its
 *                       worker's work_list) delayed (on delayed_work_list)
 *                       running (its worker's current_work) canceling (the
 *                       count), a delayed work's timer_pending (0/1 each), a
 *                       worker's current_work (a work's name or null): the
 *                       conditions' predicates, written when they change
 *                       (html_doc_watch), kwsim's own, not a kernel event
 *   scn_line            line: the context starts that scenario line
 *   scn_say             who what line: a line of the run's account
 *                       ("kthread_queue_work(W, A) = true"), with the scenario
 *                       line the context was running (0: none), and kfunc
 *                       kfile kline for the kernel function an API call enters
 *
 * A long run keeps its first max_records records (findings are always
 * kept): end.dropped says how many more there were, and the page says so.
 *
 * Served, the document comes in parts: the head (the document without
 * "records" and "end"), then arrays of records appended in order, then the
 * "end" object. A page written without a document loads `/api/run` +
 * location.search (one whole document, as JSON) or, when its query string
 * has live=1, listens to the EventSource `/api/play` + location.search for
 * `event: doc-head` (the head), `event: records` (a JSON array of records,
 * any number of these) and `event: end` (the end object); the page draws
 * as they come.
 *
 * The scenario's account ("scn_say") and lines ("scn_line") carry pid: the
 * task that ran them, 0 in an interrupt's context (then ctx says which and
 * the context is the CPU's).
 */
#ifndef KWSIM_HTML_H
#define KWSIM_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sim/trace.h>

/*
 * The page: with doc_json (a whole run document) embedded in a <script
 * type="application/json" id="kwsim-doc"> element, or with doc_json NULL a
 * page that loads its document from the server as above. Returns 0, or -1
 * when writing failed.
 */
int html_write_page(FILE *out, const char *title, const char *doc_json);

/*
 * The page around a document written in place: _head() writes the page up
 * to the document, _tail() the rest. Between them, exactly one run document
 * (html_doc_*). For `kwsim export`, which never holds the document whole.
 */
int html_write_page_head(FILE *out, const char *title);
int html_write_page_tail(FILE *out);

/* Default cap on a document's records. */
#define HTML_MAX_RECORDS 200000

struct scn;
struct scn_run;
struct scn_event;
struct kw_model;

/*
 * A run document as the run streams, through cmd_run's fan-out as the
 * trace views are: _begin() before the run; _record() each machine record,
 * _event() each line of the account (scn_run.on_event), _line() each
 * scenario line a context starts (scn_run.on_line), in the machine's order;
 * _release() with sim_trace_watermark() now and then; _end() after the run.
 *
 * Output. html_doc_head() writes the document's head: with whole false as a
 * complete object (a server's doc-head), with whole true left open, followed
 * by ,"records":[ so that the records and the end complete one document.
 * _release() and html_doc_end() write the records that can no longer be
 * preceded to the stream html_doc_output() set (none: they wait), each one
 * JSON object, separated by ",\n"; the first written after an
 * html_doc_output() call has no separator, so a server can wrap each chunk
 * in [ ]. html_doc_end() then writes the end object: with whole true as
 * ],"end":{...}} closing the document html_doc_head() opened.
 */
struct html_doc;
struct html_doc *html_doc_begin(const struct scn *s, const struct kw_model *m, size_t max_records);
void html_doc_head(struct html_doc *d, FILE *out, bool whole);
void html_doc_output(struct html_doc *d, FILE *recs);
void html_doc_record(struct html_doc *d, const struct sim_rec *r);
void html_doc_event(struct html_doc *d, const struct scn_event *ev);
void html_doc_line(struct html_doc *d, const struct scn_event *ev);
void html_doc_release(struct html_doc *d, uint64_t watermark);
/*
 * Follow run's works and workers (scn_state_objs) from its next record on:
 * kw_state records where their state changes. run is the one scn_run() is
 * running; without this call the document has none.
 */
void html_doc_watch(struct html_doc *d, const struct scn_run *run);
size_t html_doc_held(const struct html_doc *d);
/* Release everything held (the run is over), then write the end to out. */
void html_doc_end(struct html_doc *d, FILE *out, const struct scn_run *run, bool whole);
void html_doc_free(struct html_doc *d);

#endif
