/* Where in the source a call was made, captured at the call site by a macro. */
#ifndef SIM_SITE_H
#define SIM_SITE_H

#include <sim/sim.h>

/*
 * A caller that makes kernel calls on someone else's behalf (the scenario
 * interpreter) defines SIM_HERE before the kernel headers, to name its
 * caller's lines instead of its own.
 */
#ifndef SIM_HERE
#define SIM_HERE ({							\
	static const struct sim_site sim_site__ = { __FILE__, __LINE__, __func__ }; \
	&sim_site__;							\
})
#endif

/*
 * A site made at run time, kept until the machine is torn down: the same
 * object for the same (file, line, func) pointers. file and func must live
 * that long too.
 */
const struct sim_site *sim_site_at(const char *file, int line, const char *func);

#endif
