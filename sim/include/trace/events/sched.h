/*
 * The scheduler's tracepoints that kernel/kthread.c fires for its workers.
 * They record typed trace records; the fields are read at the call site,
 * so the machine needs no knowledge of the structures involved.
 */
#ifndef _TRACE_EVENTS_SCHED_H
#define _TRACE_EVENTS_SCHED_H

#include <sim/trace.h>

/*
 * The work tracepoints, the kernel's and kwsim's own (trace/events/kwsim.h):
 * each names its event and step in sim/tracepoint.c's table, so that a
 * record costs no lookup of its name.
 */
enum sim_tp_work {
	SIM_TP_SCHED_QUEUE_WORK,
	SIM_TP_SCHED_EXECUTE_START,
	SIM_TP_SCHED_EXECUTE_END,
	SIM_TP_KWSIM_QUEUE_WORK,
	SIM_TP_KWSIM_EXECUTE_START,
	SIM_TP_KWSIM_EXECUTE_END,
};

void sim_tp_kthread_work(enum sim_tp_work tp, const void *work, const void *func,
			 const void *worker);

/* "work struct=%p function=%ps worker=%p" */
#define trace_sched_kthread_work_queue_work(worker, work) \
	sim_tp_kthread_work(SIM_TP_SCHED_QUEUE_WORK, (work), (const void *)(work)->func, (worker))
/* "work struct %p: function %ps" */
#define trace_sched_kthread_work_execute_start(work) \
	sim_tp_kthread_work(SIM_TP_SCHED_EXECUTE_START, (work), (const void *)(work)->func, NULL)
#define trace_sched_kthread_work_execute_end(work, function) \
	sim_tp_kthread_work(SIM_TP_SCHED_EXECUTE_END, (work), (const void *)(function), NULL)

#endif
