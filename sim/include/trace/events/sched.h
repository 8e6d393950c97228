/*
 * The scheduler's tracepoints that kernel/kthread.c fires for its workers.
 * They record typed trace records; the fields are read at the call site,
 * so the machine needs no knowledge of the structures involved.
 */
#ifndef _TRACE_EVENTS_SCHED_H
#define _TRACE_EVENTS_SCHED_H

#include <sim/trace.h>

void sim_tp_kthread_work(const char *event, const void *work, const void *func,
			 const void *worker);

/* "work struct=%p function=%ps worker=%p" */
#define trace_sched_kthread_work_queue_work(worker, work) \
	sim_tp_kthread_work("sched_kthread_work_queue_work", (work), (const void *)(work)->func, (worker))
/* "work struct %p: function %ps" */
#define trace_sched_kthread_work_execute_start(work) \
	sim_tp_kthread_work("sched_kthread_work_execute_start", (work), (const void *)(work)->func, NULL)
#define trace_sched_kthread_work_execute_end(work, function) \
	sim_tp_kthread_work("sched_kthread_work_execute_end", (work), (const void *)(function), NULL)

#endif
