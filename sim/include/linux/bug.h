/*
 * WARN_ON, WARN_ON_ONCE, BUG_ON: each is a finding of the run, carrying the
 * condition's text, the function and the line. WARN returns the condition as
 * the kernel's does; BUG stops the machine as an oops stops the kernel.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <linux/compiler.h>
#include <sim/site.h>

void sim_warn(const struct sim_site *site, const char *macro, const char *cond);
void sim_bug(const struct sim_site *site, const char *cond) __attribute__((noreturn));

#define WARN_ON(condition) ({						\
	bool __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		sim_warn(SIM_HERE, "WARN_ON", #condition);		\
	unlikely(__ret_warn_on);					\
})

#define WARN_ON_ONCE(condition) ({					\
	static bool __warned;						\
	bool __ret_warn_once = !!(condition);				\
	if (unlikely(__ret_warn_once && !__warned)) {			\
		__warned = true;					\
		sim_warn(SIM_HERE, "WARN_ON_ONCE", #condition);		\
	}								\
	unlikely(__ret_warn_once);					\
})

#define WARN(condition, fmt...) WARN_ON(condition)
#define WARN_ONCE(condition, fmt...) WARN_ON_ONCE(condition)

#define BUG() sim_bug(SIM_HERE, "BUG()")
#define BUG_ON(condition) do {						\
	if (unlikely(condition))					\
		sim_bug(SIM_HERE, #condition);				\
} while (0)

#define BUILD_BUG_ON(condition) _Static_assert(!(condition), #condition)

#endif
