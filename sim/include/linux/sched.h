/*
 * Tasks and the scheduler calls kernel code makes. A task is a coroutine
 * of the machine; schedule() really leaves its CPU and wake_up_process()
 * really queues it on one.
 */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/preempt.h>
#include <linux/completion.h>
#include <sim/site.h>
#include <sim/ctx.h>

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define __TASK_STOPPED		0x0004
#define TASK_PARKED		0x0040
#define TASK_DEAD		0x0080
#define TASK_WAKEKILL		0x0100
#define TASK_NOLOAD		0x0400
#define TASK_NEW		0x0800
#define TASK_FROZEN		0x8000
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)

#define PF_IDLE			0x00000002
#define PF_EXITING		0x00000004
#define PF_KTHREAD		0x00200000
#define PF_NOFREEZE		0x00008000
#define PF_SUSPEND_TASK		0x80000000
#define PF_NO_SETAFFINITY	0x04000000

#define TASK_COMM_LEN		16
#define MAX_SCHEDULE_TIMEOUT	((long)(~0UL >> 1))

struct completion;

struct task_struct {
	unsigned int __state;
	unsigned int flags;
	int pid;
	char comm[TASK_COMM_LEN];
	bool frozen;			/* in the refrigerator */

	/* kthread bookkeeping (kernel/kthread.c's struct kthread) */
	int (*threadfn)(void *data);
	void *data;
	int exit_code;
	bool should_stop;
	bool notify_signal;		/* TIF_NOTIFY_SIGNAL: kthread_stop() sets it since 5.11 */
	bool started;
	struct completion exited;	/* kthread_stop waits here */
	uint64_t nr_switches;		/* times it was switched in */

	/* the machine's view */
	struct sim_ctx ctx;		/* the coroutine this task runs on */
	int cpu;			/* where it runs or is queued */
	int bound_cpu;			/* -1: any CPU */
	bool on_rq;			/* running or queued to run */
	struct list_head run_node;	/* on its CPU's run queue */
	struct list_head all_node;	/* every task, in creation order */
	unsigned int preempt_saved;	/* preempt count while switched out */
	uint64_t blocked_since;		/* when it last left the CPU asleep */
	uint64_t woken_at;		/* the waker's clock at its last wake-up */
	uint64_t queued_at;		/* when it was last put on its run queue */
	uint64_t slice_used;		/* EEVDF: of its request, when switched in (sched_fair.c) */
	int64_t vlead;			/* CFS: min_vruntime - vruntime when queued (sched_fair.c) */
	uint64_t slept_vtime;		/* CFS: its CPU's fair_vtime when it went to sleep */
	const char *comm_interned;	/* comm as the trace holds it (sim_task_comm) */
	unsigned int sleep_seq;		/* counts sleeps, for the hung-task check */
	const void *wait_obj;		/* what it sleeps on, for deadlock reports */
	const char *wait_what;
	const struct sim_site *wait_site;
};

struct task_struct *sim_current(void);
#define current sim_current()
#define get_current() sim_current()

#define task_pid_nr(p)	((p)->pid)
#define READ_TASK_STATE(p) ((p)->__state)

/* set_current_state is a full barrier in the kernel, paired with wake-ups. */
void sim_set_current_state(unsigned int state, bool barrier);
#define __set_current_state(s)	sim_set_current_state(s, false)
#define set_current_state(s)	sim_set_current_state(s, true)

/* CONFIG_DEBUG_ATOMIC_SLEEP: blocking is only legal from a running task in process context. */
void sim_might_sleep(const struct sim_site *site);
#define might_sleep() sim_might_sleep(SIM_HERE)
/* try_to_freeze()'s lockdep check (linux/freezer.h; declared here to keep its lines) */
void try_to_freeze_check_locks(bool freezing);

void sim_schedule(const struct sim_site *site);
#define schedule()	sim_schedule(SIM_HERE)
long schedule_timeout(long timeout);
long schedule_timeout_interruptible(long timeout);
long schedule_timeout_uninterruptible(long timeout);

int wake_up_process(struct task_struct *p);
int wake_up_state(struct task_struct *p, unsigned int state);

int sim_cond_resched(void);
#define cond_resched()	sim_cond_resched()
void yield(void);

static inline int task_cpu(const struct task_struct *p) { return p->cpu; }
/* Whether p is the task on its CPU now (running, not merely runnable). */
bool task_curr(const struct task_struct *p);
int smp_processor_id(void);
#define raw_smp_processor_id() smp_processor_id()
int num_online_cpus(void);
int sim_possible_cpus(void);	/* <sim/sim.h> */
bool sim_cpu_online(int cpu);
#define nr_cpu_ids sim_possible_cpus()
#define cpu_online(cpu) sim_cpu_online(cpu)
#define NUMA_NO_NODE	(-1)
static inline int cpu_to_node(int cpu) { (void)cpu; return 0; }

/* No signals reach a kthread here; TIF_NOTIFY_SIGNAL counts as one, as in the kernel. */
static inline bool signal_pending(struct task_struct *p) { return p->notify_signal; }
static inline bool fatal_signal_pending(struct task_struct *p) { (void)p; return false; }

#endif
