/*
 * The freezer. Kernel threads start PF_NOFREEZE; set_freezable() opts in.
 * While kernel-thread freezing is on, a freezable kthread reaching
 * try_to_freeze() sleeps in the refrigerator, in TASK_FROZEN, until thawed:
 * no ordinary wake-up (wake_up_process, complete) matches that state. On a
 * 4.9 machine it sleeps in TASK_UNINTERRUPTIBLE instead, and any wake-up
 * only sends it round the refrigerator's loop (sim/freezer.c).
 */
#ifndef _LINUX_FREEZER_H
#define _LINUX_FREEZER_H

#include <linux/sched.h>

extern unsigned int system_freezing_cnt;
extern bool pm_freezing;
extern bool pm_nosig_freezing;

bool freezing_slow_path(struct task_struct *p);
bool __refrigerator(bool check_kthr_stop);
bool set_freezable(void);
bool frozen(struct task_struct *p);

static inline bool freezing(struct task_struct *p)
{
	if (likely(!system_freezing_cnt))
		return false;
	return freezing_slow_path(p);
}

static inline bool try_to_freeze(void)
{
	might_sleep();
	try_to_freeze_check_locks(false);
	if (likely(!freezing(current)))
		return false;
	try_to_freeze_check_locks(true);
	return __refrigerator(false);
}

#define set_freezable_with_signal() set_freezable()

#endif
