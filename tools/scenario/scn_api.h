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

/* What the run's account says of a call (scn_run.c, narrate()). */
enum scn_say {
	SCN_SAY_NONE,		/* nothing: a delay, a lock, a number */
	SCN_SAY_CALL,		/* one line once it returns: call(args) = result */
	SCN_SAY_AROUND,		/* a line as it begins and one as it returns: it may wait */
	SCN_SAY_FAILED,		/* a line only if it fails: the worker constructors */
};

/* A call as the run makes it: its arguments evaluated and checked (scn_run.c). */
struct scn_call;
typedef long scn_call_fn(struct scn_call *c);

struct scn_api {
	const char *name;
	enum scn_api_id id;
	enum scn_ret ret;
	int nargs;
	enum scn_arg args[3];
	enum scn_say say;
	scn_call_fn *call;	/* the call itself, made in the run: scn_call_NAME() */
};

/* Each call's function, in scn_run.c. */
scn_call_fn scn_call_create_worker, scn_call_create_worker_on_cpu, scn_call_init_worker,
	scn_call_kthread_run, scn_call_kthread_stop, scn_call_init_work, scn_call_init_delayed_work,
	scn_call_queue_work, scn_call_queue_delayed_work, scn_call_mod_delayed_work,
	scn_call_flush_work, scn_call_flush_worker, scn_call_cancel_work_sync,
	scn_call_cancel_delayed_work_sync, scn_call_destroy_worker, scn_call_udelay, scn_call_mdelay,
	scn_call_ndelay, scn_call_msleep, scn_call_msleep_interruptible, scn_call_usleep_range,
	scn_call_cond_resched, scn_call_cpu_relax, scn_call_spin_lock, scn_call_spin_unlock,
	scn_call_spin_lock_irq, scn_call_spin_unlock_irq, scn_call_spin_lock_irqsave,
	scn_call_spin_unlock_irqrestore, scn_call_spin_lock_bh, scn_call_spin_unlock_bh,
	scn_call_local_irq_disable, scn_call_local_irq_enable, scn_call_preempt_disable,
	scn_call_preempt_enable, scn_call_complete, scn_call_complete_all,
	scn_call_wait_for_completion, scn_call_msecs_to_jiffies, scn_call_jiffies, scn_call_hz,
	scn_call_mod_timer, scn_call_del_timer, scn_call_del_timer_sync, scn_call_cpu_down,
	scn_call_cpu_up, scn_call_smp_processor_id;

const struct scn_api *scn_api_find(const char *name);
/* The kernel's name of a call, for the printers that write calls (tools/prog). */
const char *scn_api_name(enum scn_api_id id);
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
