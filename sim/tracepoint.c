/*
 * Model tracepoints, the kernel's (trace/events/sched.h) and kwsim's own
 * (trace/events/kwsim.h): each becomes a REC_MODEL record named after the
 * event.
 */
#include "machine.h"
#include <trace/events/sched.h>

#include <string.h>

/* The work tracepoints: a record's name, and what it says of the work. */
static const struct {
	const char *event;
	enum sim_work_step step;
	bool own;		/* kwsim's, not the kernel's */
} work_tps[] = {
	[SIM_TP_SCHED_QUEUE_WORK] = { "sched_kthread_work_queue_work", SIM_WORK_QUEUE, false },
	[SIM_TP_SCHED_EXECUTE_START] = { "sched_kthread_work_execute_start", SIM_WORK_START, false },
	[SIM_TP_SCHED_EXECUTE_END] = { "sched_kthread_work_execute_end", SIM_WORK_END, false },
	[SIM_TP_KWSIM_QUEUE_WORK] = { "kwsim_work_queue_work", SIM_WORK_QUEUE, true },
	[SIM_TP_KWSIM_EXECUTE_START] = { "kwsim_work_execute_start", SIM_WORK_START, true },
	[SIM_TP_KWSIM_EXECUTE_END] = { "kwsim_work_execute_end", SIM_WORK_END, true },
};

void sim_tp_kthread_work(enum sim_tp_work tp, const void *work, const void *func,
			 const void *worker)
{
	/* kwsim's own records number what no one knows apart: the kernel's stay as they were */
	bool own = work_tps[tp].own;
	/* a queueing is a work's birth as far as the trace can tell (flush works live on stacks) */
	uint64_t addr = own ? sim_fake_addr_own(work, worker) :
			worker ? sim_fake_addr_new(work) : sim_fake_addr(work);
	uint64_t waddr = own ? sim_fake_addr_own(worker, false) : sim_fake_addr(worker);
	const char *fn = sim_symbol(func);

	sim_trace(REC_MODEL, addr, waddr, 0, 0, work_tps[tp].event, fn);
	if (!sim.cur || sim.in_event)
		return;
	/* the function a worker runs, for a fault's report (sim_ctx_site) */
	if (work_tps[tp].step == SIM_WORK_START)
		sim.cur->work_fn = sim_unprefix(fn);
	else if (work_tps[tp].step == SIM_WORK_END)
		sim.cur->work_fn = NULL;
}

enum sim_work_step sim_rec_work_step(const struct sim_rec *r)
{
	if (r->type != REC_MODEL || !r->s)
		return SIM_WORK_NONE;
	for (size_t i = 0; i < sizeof(work_tps) / sizeof(work_tps[0]); i++)
		if (!strcmp(r->s, work_tps[i].event))
			return work_tps[i].step;
	return SIM_WORK_NONE;
}

bool sim_rec_kwsim_own(const struct sim_rec *r)
{
	return r->type == REC_MODEL && r->s && !strncmp(r->s, "kwsim_", 6);
}
