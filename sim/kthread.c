/*
 * Kernel threads, as kernel/kthread.c gives them to kernel code: create
 * (without kthreadd: the task exists at once and sleeps until woken), bind,
 * stop, exit; and the scenario threads tools start the same way.
 */
#include "machine.h"
#include <linux/completion.h>
#include <linux/kthread.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kthread_exit(long result)
{
	struct task_struct *p = current;

	p->exit_code = (int)result;
	p->flags |= PF_EXITING;
	sim_lockdep_context_end("task exit", p->comm);
	sim_trace(REC_TASK_EXIT, (uint64_t)p->pid, (uint64_t)result, 0, 0, NULL, NULL);
	complete_all(&p->exited);
	p->__state = TASK_DEAD;
	p->on_rq = false;
	/*
	 * do_task_dead()'s __schedule() on the CPU the task is on now:
	 * complete_all() was a point, where the stopper of a CPU going down
	 * may have pushed the task to another one (hotplug.c).
	 */
	sim_switch_task(this_cpu());
	sim_exit_ctx();
	__builtin_trap();	/* a dead task chosen again: the machine's bug, stop here */
}

/* --- kthreads ----------------------------------------------------------------------- */

struct task_struct *__kthread_create_on_node(int (*threadfn)(void *data), void *data,
					     int node, const char namefmt[], va_list args)
{
	char name[TASK_COMM_LEN];
	struct task_struct *p;

	(void)node;
	might_sleep();
	/* a name with nothing to format is the task's as it is: sim_task_create() cuts it alike */
	if (strchr(namefmt, '%')) {
		vsnprintf(name, sizeof(name), namefmt, args);
		namefmt = name;
	}
	p = sim_task_create(namefmt, threadfn, data, sim_this_cpu());
	/* the kernel's answer when it cannot allocate the task: the caller copes */
	return p ? p : ERR_PTR(-ENOMEM);
}

struct task_struct *kthread_create_on_node(int (*threadfn)(void *data), void *data,
					   int node, const char namefmt[], ...)
{
	struct task_struct *p;
	va_list ap;

	va_start(ap, namefmt);
	p = __kthread_create_on_node(threadfn, data, node, namefmt, ap);
	va_end(ap);
	return p;
}

struct task_struct *kthread_create_on_cpu(int (*threadfn)(void *data), void *data,
					  unsigned int cpu, const char *namefmt)
{
	struct task_struct *p = kthread_create_on_node(threadfn, data, cpu_to_node((int)cpu),
						       namefmt, cpu);

	if (!IS_ERR(p))
		kthread_bind(p, cpu);
	return p;
}

void kthread_bind(struct task_struct *p, unsigned int cpu)
{
	if (WARN_ON(p->started || p->on_rq) || WARN_ON(cpu >= (unsigned int)sim.cfg.ncpus))
		return;
	p->bound_cpu = (int)cpu;
	p->cpu = (int)cpu;
	p->flags |= PF_NO_SETAFFINITY;
}

bool kthread_should_stop(void)
{
	return current->should_stop;
}

bool kthread_should_park(void)
{
	return false;
}

void *kthread_data(struct task_struct *k)
{
	return k->data;
}

/*
 * Since 5.11 kthread_stop() also sets TIF_NOTIFY_SIGNAL, so that the thread
 * leaves an interruptible sleep at once (signal_pending() is true from then
 * on: msleep_interruptible() returns early, schedule() in
 * TASK_INTERRUPTIBLE does not sleep). 4.9 only wakes it.
 */
int sim_kthread_stop(struct task_struct *k, const struct sim_site *site)
{
	sim_might_sleep(site);
	k->should_stop = true;
	if (sim_era_since(5, 11))
		k->notify_signal = true;
	wake_up_process(k);
	if (!completion_done(&k->exited)) {
		current->wait_obj = k;
		sim_wait_for_completion(&k->exited, site);
	}
	return k->exit_code;
}

/* --- scenario threads ------------------------------------------------------------------ */

static void spawn_event(void *arg)
{
	sim_wake(arg, TASK_NORMAL);
}

struct task_struct *sim_spawn(const char *name, int (*fn)(void *), void *arg,
			      int cpu, bool bind, uint64_t at)
{
	struct task_struct *p = sim_task_create(name, fn, arg, cpu);

	if (!p)
		return NULL;
	if (bind)
		p->bound_cpu = p->cpu;
	sim_event_add_boot(at, spawn_event, p);
	return p;
}
