/*
 * kwsim's own records of a work's life, for a kernel that has no
 * sched_kthread_work_* tracepoints (they came with 5.11; 4.9 has none).
 * They are not kernel events: they sit where 5.11's tracepoints sit and
 * carry the same fields, so that the JSON, HTML and timeline views draw the
 * same work slices and queue-to-execution arrows for 4.9 as for mainline.
 * The ftrace text view leaves them out, since 4.9's tracefs shows none.
 */
#ifndef _TRACE_EVENTS_KWSIM_H
#define _TRACE_EVENTS_KWSIM_H

#include <trace/events/sched.h>

#define kwsim_trace_work_queue_work(worker, work) \
	sim_tp_kthread_work(SIM_TP_KWSIM_QUEUE_WORK, (work), (const void *)(work)->func, (worker))
#define kwsim_trace_work_execute_start(work) \
	sim_tp_kthread_work(SIM_TP_KWSIM_EXECUTE_START, (work), (const void *)(work)->func, NULL)
#define kwsim_trace_work_execute_end(work, function) \
	sim_tp_kthread_work(SIM_TP_KWSIM_EXECUTE_END, (work), (const void *)(function), NULL)

#endif
