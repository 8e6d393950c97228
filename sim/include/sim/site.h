/* Where in the source a call was made, captured at the call site by a macro. */
#ifndef SIM_SITE_H
#define SIM_SITE_H

#include <sim/sim.h>

#define SIM_HERE ({							\
	static const struct sim_site sim_site__ = { __FILE__, __LINE__, __func__ }; \
	&sim_site__;							\
})

#endif
