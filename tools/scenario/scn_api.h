/* The calls a scenario can make: the kernel's names, their arguments, their results. */
#ifndef KWSIM_SCN_API_H
#define KWSIM_SCN_API_H

#include <stdbool.h>
#include <stddef.h>

enum scn_arg {
	ARG_INT, ARG_STR, ARG_WORKER, ARG_WORK, ARG_DWORK, ARG_ANYWORK, ARG_FN, ARG_LOCK,
	ARG_COMPLETION, ARG_TASK, ARG_WORKER_FN, ARG_TIMER,
	/* numbers that are times, range-checked (SCN_MAX_TIME_NS, SCN_MAX_JIFFIES) */
	ARG_NSECS, ARG_USECS, ARG_MSECS, ARG_MSECS_UINT, ARG_JIFFIES,
};

enum scn_ret { RET_VOID, RET_BOOL, RET_INT, RET_WORKER };

enum scn_api_id {
	API_CREATE_WORKER, API_CREATE_WORKER_ON_CPU, API_INIT_WORKER, API_KTHREAD_RUN,
	API_KTHREAD_STOP, API_INIT_WORK, API_INIT_DELAYED_WORK, API_QUEUE_WORK,
	API_QUEUE_DELAYED_WORK, API_MOD_DELAYED_WORK, API_FLUSH_WORK, API_FLUSH_WORKER,
	API_CANCEL_WORK_SYNC, API_CANCEL_DELAYED_WORK_SYNC, API_DESTROY_WORKER,
	API_UDELAY, API_MDELAY, API_NDELAY, API_MSLEEP, API_MSLEEP_INTERRUPTIBLE,
	API_USLEEP_RANGE, API_COND_RESCHED, API_CPU_RELAX,
	API_SPIN_LOCK, API_SPIN_UNLOCK, API_SPIN_LOCK_IRQ, API_SPIN_UNLOCK_IRQ,
	API_SPIN_LOCK_IRQSAVE, API_SPIN_UNLOCK_IRQRESTORE, API_SPIN_LOCK_BH, API_SPIN_UNLOCK_BH,
	API_LOCAL_IRQ_DISABLE, API_LOCAL_IRQ_ENABLE, API_PREEMPT_DISABLE, API_PREEMPT_ENABLE,
	API_COMPLETE, API_COMPLETE_ALL, API_WAIT_FOR_COMPLETION, API_MSECS_TO_JIFFIES,
	API_JIFFIES, API_MOD_TIMER, API_DEL_TIMER, API_DEL_TIMER_SYNC,
	API_HZ,		/* the run's HZ (the hz setting): a constant, named as the kernel's macro */
	API_CPU_DOWN, API_CPU_UP, API_SMP_PROCESSOR_ID,
};

struct scn_api {
	const char *name;
	enum scn_api_id id;
	enum scn_ret ret;
	int nargs;
	enum scn_arg args[3];
};

const struct scn_api *scn_api_find(const char *name);
/*
 * Whether v fits argument i of api: any value of a plain number, the range
 * of a time (see SCN_MAX_TIME_NS). If not, why, in why[n].
 */
bool scn_api_arg_fits(const struct scn_api *api, int i, long v, char *why, size_t n);
/* Whether api's argument is how long its caller spends (a delay, a sleep): it may be a range. */
bool scn_api_spends(const struct scn_api *api);
/* Every name, for did-you-mean. */
size_t scn_api_names(const char **names, size_t max);

#endif
