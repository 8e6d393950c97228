#include "scn_api.h"
#include "scn.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const struct scn_api apis[] = {
	{ "kthread_create_worker", API_CREATE_WORKER, RET_WORKER, 2, { ARG_INT, ARG_STR },
	  SCN_SAY_FAILED, scn_call_create_worker },
	{ "kthread_create_worker_on_cpu", API_CREATE_WORKER_ON_CPU, RET_WORKER, 3,
	  { ARG_INT, ARG_INT, ARG_STR },
	  SCN_SAY_FAILED, scn_call_create_worker_on_cpu },
	{ "kthread_init_worker", API_INIT_WORKER, RET_VOID, 1, { ARG_WORKER },
	  SCN_SAY_CALL, scn_call_init_worker },
	{ "kthread_run", API_KTHREAD_RUN, RET_VOID, 3, { ARG_WORKER_FN, ARG_WORKER, ARG_STR },
	  SCN_SAY_CALL, scn_call_kthread_run },
	{ "kthread_stop", API_KTHREAD_STOP, RET_INT, 1, { ARG_TASK },
	  SCN_SAY_CALL, scn_call_kthread_stop },
	/* on a delayed_work: kthread_init_work(&dwork->work, fn), the timer left alone */
	{ "kthread_init_work", API_INIT_WORK, RET_VOID, 2, { ARG_ANYWORK, ARG_FN },
	  SCN_SAY_CALL, scn_call_init_work },
	{ "kthread_init_delayed_work", API_INIT_DELAYED_WORK, RET_VOID, 2, { ARG_DWORK, ARG_FN },
	  SCN_SAY_CALL, scn_call_init_delayed_work },
	{ "kthread_queue_work", API_QUEUE_WORK, RET_BOOL, 2, { ARG_WORKER, ARG_WORK },
	  SCN_SAY_CALL, scn_call_queue_work },
	{ "kthread_queue_delayed_work", API_QUEUE_DELAYED_WORK, RET_BOOL, 3,
	  { ARG_WORKER, ARG_DWORK, ARG_JIFFIES },
	  SCN_SAY_CALL, scn_call_queue_delayed_work },
	{ "kthread_mod_delayed_work", API_MOD_DELAYED_WORK, RET_BOOL, 3,
	  { ARG_WORKER, ARG_DWORK, ARG_JIFFIES },
	  SCN_SAY_CALL, scn_call_mod_delayed_work },
	{ "kthread_flush_work", API_FLUSH_WORK, RET_VOID, 1, { ARG_ANYWORK },
	  SCN_SAY_AROUND, scn_call_flush_work },
	{ "kthread_flush_worker", API_FLUSH_WORKER, RET_VOID, 1, { ARG_WORKER },
	  SCN_SAY_AROUND, scn_call_flush_worker },
	{ "kthread_cancel_work_sync", API_CANCEL_WORK_SYNC, RET_BOOL, 1, { ARG_ANYWORK },
	  SCN_SAY_AROUND, scn_call_cancel_work_sync },
	{ "kthread_cancel_delayed_work_sync", API_CANCEL_DELAYED_WORK_SYNC, RET_BOOL, 1,
	  { ARG_DWORK },
	  SCN_SAY_AROUND, scn_call_cancel_delayed_work_sync },
	{ "kthread_destroy_worker", API_DESTROY_WORKER, RET_VOID, 1, { ARG_WORKER },
	  SCN_SAY_AROUND, scn_call_destroy_worker },
	{ "udelay", API_UDELAY, RET_VOID, 1, { ARG_USECS },
	  SCN_SAY_NONE, scn_call_udelay },
	{ "mdelay", API_MDELAY, RET_VOID, 1, { ARG_MSECS },
	  SCN_SAY_NONE, scn_call_mdelay },
	{ "ndelay", API_NDELAY, RET_VOID, 1, { ARG_NSECS },
	  SCN_SAY_NONE, scn_call_ndelay },
	{ "msleep", API_MSLEEP, RET_VOID, 1, { ARG_MSECS_UINT },
	  SCN_SAY_NONE, scn_call_msleep },
	{ "msleep_interruptible", API_MSLEEP_INTERRUPTIBLE, RET_INT, 1, { ARG_MSECS_UINT },
	  SCN_SAY_NONE, scn_call_msleep_interruptible },
	{ "usleep_range", API_USLEEP_RANGE, RET_VOID, 2, { ARG_USECS, ARG_USECS },
	  SCN_SAY_NONE, scn_call_usleep_range },
	{ "cond_resched", API_COND_RESCHED, RET_INT, 0, { 0 },
	  SCN_SAY_NONE, scn_call_cond_resched },
	{ "cpu_relax", API_CPU_RELAX, RET_VOID, 0, { 0 },
	  SCN_SAY_NONE, scn_call_cpu_relax },
	{ "spin_lock", API_SPIN_LOCK, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_lock },
	{ "spin_unlock", API_SPIN_UNLOCK, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_unlock },
	{ "spin_lock_irq", API_SPIN_LOCK_IRQ, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_lock_irq },
	{ "spin_unlock_irq", API_SPIN_UNLOCK_IRQ, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_unlock_irq },
	{ "spin_lock_irqsave", API_SPIN_LOCK_IRQSAVE, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_lock_irqsave },
	{ "spin_unlock_irqrestore", API_SPIN_UNLOCK_IRQRESTORE, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_unlock_irqrestore },
	{ "spin_lock_bh", API_SPIN_LOCK_BH, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_lock_bh },
	{ "spin_unlock_bh", API_SPIN_UNLOCK_BH, RET_VOID, 1, { ARG_LOCK },
	  SCN_SAY_NONE, scn_call_spin_unlock_bh },
	{ "local_irq_disable", API_LOCAL_IRQ_DISABLE, RET_VOID, 0, { 0 },
	  SCN_SAY_NONE, scn_call_local_irq_disable },
	{ "local_irq_enable", API_LOCAL_IRQ_ENABLE, RET_VOID, 0, { 0 },
	  SCN_SAY_NONE, scn_call_local_irq_enable },
	{ "preempt_disable", API_PREEMPT_DISABLE, RET_VOID, 0, { 0 },
	  SCN_SAY_NONE, scn_call_preempt_disable },
	{ "preempt_enable", API_PREEMPT_ENABLE, RET_VOID, 0, { 0 },
	  SCN_SAY_NONE, scn_call_preempt_enable },
	{ "complete", API_COMPLETE, RET_VOID, 1, { ARG_COMPLETION },
	  SCN_SAY_NONE, scn_call_complete },
	{ "complete_all", API_COMPLETE_ALL, RET_VOID, 1, { ARG_COMPLETION },
	  SCN_SAY_NONE, scn_call_complete_all },
	{ "wait_for_completion", API_WAIT_FOR_COMPLETION, RET_VOID, 1, { ARG_COMPLETION },
	  SCN_SAY_AROUND, scn_call_wait_for_completion },
	{ "msecs_to_jiffies", API_MSECS_TO_JIFFIES, RET_INT, 1, { ARG_MSECS_UINT },
	  SCN_SAY_NONE, scn_call_msecs_to_jiffies },
	{ "jiffies", API_JIFFIES, RET_INT, 0, { 0 },
	  SCN_SAY_NONE, scn_call_jiffies },
	{ "HZ", API_HZ, RET_INT, 0, { 0 },
	  SCN_SAY_NONE, scn_call_hz },
	/* timer T = fn; the expiry is absolute, in jiffies: mod_timer(T, jiffies + 5) */
	{ "mod_timer", API_MOD_TIMER, RET_BOOL, 2, { ARG_TIMER, ARG_INT },
	  SCN_SAY_CALL, scn_call_mod_timer },
	{ "del_timer", API_DEL_TIMER, RET_BOOL, 1, { ARG_TIMER },
	  SCN_SAY_CALL, scn_call_del_timer },
	{ "del_timer_sync", API_DEL_TIMER_SYNC, RET_BOOL, 1, { ARG_TIMER },
	  SCN_SAY_AROUND, scn_call_del_timer_sync },
	/* CPU hotplug: remove_cpu() and add_cpu()'s answers (sim/hotplug.c) */
	{ "cpu_down", API_CPU_DOWN, RET_INT, 1, { ARG_INT },
	  SCN_SAY_CALL, scn_call_cpu_down },
	{ "cpu_up", API_CPU_UP, RET_INT, 1, { ARG_INT },
	  SCN_SAY_CALL, scn_call_cpu_up },
	{ "smp_processor_id", API_SMP_PROCESSOR_ID, RET_INT, 0, { 0 },
	  SCN_SAY_NONE, scn_call_smp_processor_id },
};

_Static_assert(sizeof(apis) / sizeof(apis[0]) == API_SMP_PROCESSOR_ID + 1, "a row per call");

const char *scn_api_name(enum scn_api_id id)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (apis[i].id == id)
			return apis[i].name;
	return "?";
}

const struct scn_api *scn_api_find(const char *name)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (!strcmp(apis[i].name, name))
			return &apis[i];
	return NULL;
}

bool scn_api_spends(const struct scn_api *api)
{
	switch (api->id) {
	case API_UDELAY: case API_MDELAY: case API_NDELAY: case API_MSLEEP:
	case API_MSLEEP_INTERRUPTIBLE:
		return true;
	default:
		return false;
	}
}

size_t scn_api_names(const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]) && n < max; i++)
		names[n++] = apis[i].name;
	return n;
}

bool scn_api_arg_fits(const struct scn_api *api, int i, long v, char *why, size_t n)
{
	static const struct {
		enum scn_arg arg;
		const char *unit;
		long max;
		const char *because;
	} times[] = {
		{ ARG_NSECS, "nanoseconds", SCN_MAX_TIME_NS,
		  "the machine's clock holds 2^63 ns, about 292 years" },
		{ ARG_USECS, "microseconds", SCN_MAX_TIME_NS / 1000,
		  "the machine's clock holds 2^63 ns, about 292 years" },
		{ ARG_MSECS, "milliseconds", SCN_MAX_TIME_NS / 1000000,
		  "the machine's clock holds 2^63 ns, about 292 years" },
		{ ARG_MSECS_UINT, "milliseconds", UINT_MAX, "it is an unsigned int" },
		{ ARG_JIFFIES, "jiffies", SCN_MAX_JIFFIES,
		  "MAX_JIFFY_OFFSET, the kernel's longest timeout" },
	};

	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
		if (times[k].arg != api->args[i])
			continue;
		if (v >= 0 && v <= times[k].max)
			return true;
		snprintf(why, n, "argument %d of %s is %ld %s, out of range: it takes 0 to %ld (%s)",
			 i + 1, api->name, v, times[k].unit, times[k].max, times[k].because);
		return false;
	}
	return true;
}
