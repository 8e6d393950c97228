/* Kernel tracepoints: each becomes a REC_MODEL record named after the event. */
#include "machine.h"
#include <trace/events/sched.h>

void sim_tp_kthread_work(const char *event, const void *work, const void *func,
			 const void *worker)
{
	sim_trace(REC_MODEL, sim_fake_addr(work), sim_fake_addr(worker), 0, 0, event,
		  sim_symbol(func));
}
