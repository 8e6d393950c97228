/* Where in the source a call was made, captured at the call site by a macro. */
#ifndef SIM_SITE_H
#define SIM_SITE_H

#include <sim/sim.h>

/*
 * Every site is also listed in the section sim_sites, as the kernel lists
 * its WARN sites in __bug_table: so the functions a finding can name are
 * known before any run (a scenario's warn("function") is checked against
 * them). The section holds pointers, which the compiler never pads apart;
 * 'used' keeps the sites of code the optimiser dropped, so that every build
 * knows the same names.
 *
 * A caller that makes kernel calls on someone else's behalf (the scenario
 * interpreter) defines SIM_HERE before the kernel headers, to name its
 * caller's lines instead of its own.
 */
#ifndef SIM_HERE
#define SIM_HERE ({							\
	static const struct sim_site sim_site__ =			\
		{ __FILE__, __LINE__, __func__ };			\
	static const struct sim_site *const sim_site_entry__		\
		__attribute__((used, section("sim_sites"))) = &sim_site__; \
	&sim_site__;							\
})
#endif

/*
 * A site made at run time, kept until the machine is torn down: the same
 * object for the same (file, line, func) pointers. file and func must live
 * that long too.
 */
const struct sim_site *sim_site_at(const char *file, int line, const char *func);

/* The sites compiled into the program, in no particular order. */
size_t sim_site_count(void);
const struct sim_site *sim_site_get(size_t i);

#endif
