/*
 * Model tracepoints, the kernel's (trace/events/sched.h) and kwsim's own
 * (trace/events/kwsim.h): each becomes a REC_MODEL record named after the
 * event.
 */
#include "machine.h"
#include <trace/events/sched.h>

#include <string.h>

void sim_tp_kthread_work(const char *event, const void *work, const void *func,
			 const void *worker)
{
	/* kwsim's own records number what no one knows apart: the kernel's stay as they were */
	bool own = !strncmp(event, "kwsim_", 6);
	/* a queueing is a work's birth as far as the trace can tell (flush works live on stacks) */
	uint64_t addr = own ? sim_fake_addr_own(work, worker) :
			worker ? sim_fake_addr_new(work) : sim_fake_addr(work);
	uint64_t waddr = own ? sim_fake_addr_own(worker, false) : sim_fake_addr(worker);
	enum sim_work_step step;

	sim_trace(REC_MODEL, addr, waddr, 0, 0, event, sim_symbol(func));
	if (!sim.cur || sim.in_event)
		return;
	/* the function a worker runs, for a fault's report (sim_ctx_site) */
	step = sim_rec_work_step(&(struct sim_rec){ .type = REC_MODEL, .s = event });
	if (step == SIM_WORK_START)
		sim.cur->work_fn = sim_unprefix(sim_symbol(func));
	else if (step == SIM_WORK_END)
		sim.cur->work_fn = NULL;
}
