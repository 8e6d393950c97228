/* Kernel tracepoints: each becomes a REC_MODEL record named after the event. */
#include "machine.h"
#include <trace/events/sched.h>

#include <string.h>

void sim_tp_kthread_work(const char *event, const void *work, const void *func,
			 const void *worker)
{
	/* a queueing is a work's birth as far as the trace can tell (flush works live on stacks) */
	uint64_t addr = worker ? sim_fake_addr_new(work) : sim_fake_addr(work);

	sim_trace(REC_MODEL, addr, sim_fake_addr(worker), 0, 0, event, sim_symbol(func));
	/* the function a worker runs, for a fault's report (sim_ctx_site) */
	if (sim.cur && !sim.in_event && !strcmp(event, "sched_kthread_work_execute_start"))
		sim.cur->work_fn = sim_unprefix(sim_symbol(func));
	else if (sim.cur && !sim.in_event && !strcmp(event, "sched_kthread_work_execute_end"))
		sim.cur->work_fn = NULL;
}
