/*
 * WARN_ON, WARN_ON_ONCE, WARN, BUG_ON: each is a finding of the run,
 * carrying the condition's text (or WARN's message), the function and the
 * line. WARN returns the condition as the kernel's does; BUG stops the
 * machine as an oops stops the kernel. "Once" means once per run: every
 * sim_init() is a new boot, so a process that runs many machines (the
 * determinism suite, the model's variants) sees each run warn alike.
 */
#ifndef _LINUX_BUG_H
#define _LINUX_BUG_H

#include <linux/compiler.h>
#include <sim/site.h>

/* Counts sim_init() calls: a *_ONCE site remembers the boot it warned in. */
extern unsigned int sim_boot_seq;

void sim_warn(const struct sim_site *site, const char *macro, const char *cond);
__printf(2, 3) void sim_warnf(const struct sim_site *site, const char *fmt, ...);
void sim_bug(const struct sim_site *site, const char *cond) __attribute__((noreturn));

/* True the first time in this run that the site passing 'seen' gets here. */
#define __SIM_FIRST_THIS_BOOT(seen) ({					\
	bool __first = (seen) != sim_boot_seq;				\
	(seen) = sim_boot_seq;						\
	__first;							\
})

#define WARN_ON(condition) ({						\
	bool __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		sim_warn(SIM_HERE, "WARN_ON", #condition);		\
	unlikely(__ret_warn_on);					\
})

#define WARN_ON_ONCE(condition) ({					\
	static unsigned int __warned_boot;				\
	bool __ret_warn_once = !!(condition);				\
	if (unlikely(__ret_warn_once) && __SIM_FIRST_THIS_BOOT(__warned_boot)) \
		sim_warn(SIM_HERE, "WARN_ON_ONCE", #condition);		\
	unlikely(__ret_warn_once);					\
})

#define WARN(condition, format...) ({					\
	bool __ret_warn_on = !!(condition);				\
	if (unlikely(__ret_warn_on))					\
		sim_warnf(SIM_HERE, format);				\
	unlikely(__ret_warn_on);					\
})

#define WARN_ONCE(condition, format...) ({				\
	static unsigned int __warned_boot;				\
	bool __ret_warn_once = !!(condition);				\
	if (unlikely(__ret_warn_once) && __SIM_FIRST_THIS_BOOT(__warned_boot)) \
		sim_warnf(SIM_HERE, format);				\
	unlikely(__ret_warn_once);					\
})

#define BUG() sim_bug(SIM_HERE, "BUG()")
#define BUG_ON(condition) do {						\
	if (unlikely(condition))					\
		sim_bug(SIM_HERE, #condition);				\
} while (0)

#define BUILD_BUG_ON(condition) _Static_assert(!(condition), #condition)

#endif
