/*
 * jiffies, HZ and the wrap-safe comparisons. HZ is a setting of the run,
 * so it is a function call here rather than a constant.
 */
#ifndef _LINUX_JIFFIES_H
#define _LINUX_JIFFIES_H

#include <linux/types.h>

unsigned long sim_jiffies(void);
unsigned int sim_hz(void);

#define HZ		sim_hz()
#define jiffies		sim_jiffies()
#define INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * (int)HZ))

/*
 * As <linux/typecheck.h>: the comparisons below are wrap-safe only on
 * unsigned long; a u32 would never look negative once widened to long.
 */
#ifndef typecheck
#define typecheck(type, x) ({						\
	type __dummy;							\
	__typeof__(x) __dummy2;						\
	(void)(&__dummy == &__dummy2);					\
	1;								\
})
#endif

#define time_after(a, b)	(typecheck(unsigned long, a) && typecheck(unsigned long, b) && \
				 ((long)((b) - (a)) < 0))
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	(typecheck(unsigned long, a) && typecheck(unsigned long, b) && \
				 ((long)((a) - (b)) >= 0))
#define time_before_eq(a, b)	time_after_eq(b, a)
#define time_in_range(a, b, c)	(time_after_eq(a, b) && time_before_eq(a, c))
#define time_is_before_jiffies(a)	time_after(jiffies, a)
#define time_is_after_jiffies(a)	time_before(jiffies, a)

#define MAX_JIFFY_OFFSET	((((long)(~0UL >> 1)) >> 1) - 1)

/* Rounds up, so a timeout is never shorter than asked; negative means infinite. */
static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	if ((int)m < 0)
		return MAX_JIFFY_OFFSET;
	return ((unsigned long)m * HZ + 999) / 1000;
}

static inline unsigned long usecs_to_jiffies(unsigned int u)
{
	return ((unsigned long)u * HZ + 999999) / 1000000;
}

/* Rounds up too, as the kernel's does when HZ does not divide 1000 (HZ=300). */
static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)((j * 1000 + HZ - 1) / HZ);
}

#endif
