/*
 * CPU hotplug: remove_cpu() and add_cpu() as kernel/cpu.c runs them, and
 * the suspend's freeze_secondary_cpus() / thaw_secondary_cpus(), reduced
 * to the steps that change what kthreads, timers and interrupts see.
 *
 * Taking CPU n down (cpu_down(): kernel/cpu.c:1497 in 6.12, :1276 in 6.1):
 *  - sched_cpu_deactivate(): n is no longer active, so no wake-up places a
 *    task there (select_cpu() in task.c offers active CPUs only);
 *  - the stopper (stop_machine()'s take_cpu_down(), cpu.c:1268 in 6.12)
 *    gets n: like any wake-up's preemption it takes the CPU where the
 *    preemption model lets the running task go (enter_cpu(): at once if n
 *    is idle, at cond_resched() or a sleep under none, within a busy-wait
 *    only under full); until then the caller waits, as it waits for the
 *    AP's hotplug thread;
 *  - take_cpu_down() and balance_push() leave n with nothing: the running
 *    task and the queued ones go where select_fallback_rq() sends them, and
 *    a bound kthread loses its CPU for good (sim_push_tasks(), task.c);
 *    fixup_irqs() gives n's interrupts to an online CPU (sim_irqs_move());
 *  - after n is dead, the control side's teardown: timers_dead_cpu() moves
 *    n's timers to the base of the CPU that runs it (sim_timers_dead_cpu()).
 * Which CPU that is depends on the era: 4.9's cpu_down() runs _cpu_down()
 * in its caller, wherever the caller was pushed to; 6.1 and 6.12 run it
 * through work_on_cpu() on the first online CPU that is not n (cpu.c:1490
 * in 6.12, :1270 in 6.1: "Ensure that the control task does not run on the
 * to be offlined CPU"), a kworker bound there, which the caller waits for.
 *
 * Bringing n up (_cpu_up(), cpu.c:1627 in 6.12): timers_prepare_cpu() gives
 * it a fresh timer base and it idles, active again; a kthread that lost
 * its CPU stays where it is, allowed everywhere.
 *
 * The answers are remove_cpu()'s and add_cpu()'s (device_offline() and
 * device_online() of drivers/base/core.c): 1 when the CPU is already in that
 * state, -EPERM for the boot CPU (x86 registers cpu0 as not hotpluggable,
 * so its device has offline_disabled), -EBUSY while a suspend has hotplug
 * disabled (cpu_hotplug_disabled, cpu.c:1481 and :1708 in 6.12) or for the
 * last online CPU (_cpu_down(), cpu.c:1405), -EINVAL for a CPU the machine
 * does not have (!cpu_present()). The machine does not model the hotplug
 * states one by one (no cpuhp_enter/cpuhp_exit records), nor the
 * synchronize_rcu() in sched_cpu_deactivate(): taking a CPU down costs its
 * steps and the wait for the stopper.
 */
#include "machine.h"
#include <linux/completion.h>
#include <linux/kthread.h>

#include <stdint.h>
#include <stdio.h>

/* x86: "smpboot: CPU 1 is now offline" (arch/x86/kernel/smpboot.c) */
#define SMPBOOT "smpboot: "

int sim_possible_cpus(void)
{
	return sim.cfg.ncpus;
}

bool sim_cpu_online(int cpu)
{
	return cpu >= 0 && cpu < sim.cfg.ncpus && !sim.cpus[cpu].offline;
}

struct sim_cpu *sim_first_active_cpu(void)
{
	struct sim_cpu *c;

	for_each_sim_cpu(c)
		if (sim_cpu_active(c))
			return c;
	return &sim.cpus[0];	/* the boot CPU never goes down */
}

bool sim_hotplug_can_stop(struct sim_cpu *c)
{
	const struct sim_ctx *t = top_ctx(c);

	/* a busy-wait stops where preemption could take it: under preempt = full */
	return !t || (t->kind == CTX_TASK && (t->wait == WAIT_NONE || t->wait == WAIT_DELAY) &&
		      c->preemptible_point);
}

/*
 * The stopper's part, on c at c's clock: what it does (the switch away from
 * the running task, the wake-up of the waiting caller) is c's, so it is
 * traced on c and hands c's time on.
 */
void sim_hotplug_take_down(struct sim_cpu *c)
{
	struct sim_cpu *saved = sim.cur_cpu;
	struct task_struct *waiter = c->hotplug_waiter;

	sim.cur_cpu = c;
	/* the stopper runs after its wake-up, whatever c's clock lagged behind */
	sim_handover(c, c->dying_at);
	sim_footprint_global();	/* every placement reads which CPUs are active */
	sim_push_tasks(c);
	sim_irqs_move(c, sim_first_active_cpu());
	c->dying = false;
	c->offline = true;
	c->need_resched = false;
	c->hotplug_waiter = NULL;
	if (waiter)
		sim_wake(waiter, TASK_NORMAL);
	sim.cur_cpu = saved;
}

/* _cpu_down(cpu, tasks_frozen, CPUHP_OFFLINE): the caller is the control task. */
static int cpu_down_locked(int cpu)
{
	struct sim_cpu *c = &sim.cpus[cpu];

	if (num_online_cpus() == 1)
		return -EBUSY;
	sim_point(sim.cfg.costs.wakeup, POINT_PLAIN);	/* the stopper's wake-up */
	if (c->offline)
		return 0;
	c->dying = true;
	c->dying_at = sim_now();
	sim_footprint_global();
	/*
	 * resched_curr(): an idle CPU takes the IPI at the waker's time, and
	 * so does a busy-wait that may be preempted, within its length.
	 */
	if (!top_ctx(c))
		sim_handover(c, sim_now());
	else if (top_ctx(c)->wait == WAIT_DELAY)
		sim_handover(c, sim_now() < top_ctx(c)->delay_until ? sim_now() :
				top_ctx(c)->delay_until);
	c->need_resched = true;
	c->hotplug_waiter = current;
	__set_current_state(TASK_UNINTERRUPTIBLE);
	sim_block("cpu_down", NULL, NULL);
	/* takedown_cpu() is over: the teardown of CPUHP_TIMERS_PREPARE, on this CPU */
	sim_timers_dead_cpu(c);
	printk(KERN_INFO SMPBOOT "CPU %d is now offline\n", cpu);
	return 0;
}

static int cpu_down_work(void *arg)
{
	return cpu_down_locked((int)(intptr_t)arg);
}

/*
 * work_on_cpu(hk, __cpu_down_maps_locked, &work) of 6.1+: a kworker bound
 * to the first online CPU that is not going down runs it; the caller
 * sleeps in flush_work() until it is done.
 */
static int cpu_down_on_other_cpu(int cpu)
{
	struct task_struct *w = NULL;
	struct sim_cpu *c;
	char name[TASK_COMM_LEN];

	for_each_sim_cpu(c) {
		if (c->id == cpu || c->offline)
			continue;
		snprintf(name, sizeof(name), "kworker/%d:1", c->id);
		w = sim_task_create(name, cpu_down_work, (void *)(intptr_t)cpu, c->id);
		break;
	}
	if (!w)		/* no task left (max_tasks): the caller is the control task */
		return cpu_down_locked(cpu);
	w->bound_cpu = w->cpu;
	wake_up_process(w);
	sim_wait_for_completion(&w->exited, NULL);
	return w->exit_code;
}

/*
 * The hotplug locks (lock_device_hotplug() in remove_cpu() and add_cpu(),
 * cpu_add_remove_lock in cpu_maps_update_begin()) as one sleeping lock, a
 * completion counted down from 1: one hotplug operation at a time, a
 * suspend's CPU freeze and thaw included, the others wait their turn.
 */
void sim_hotplug_init(void)
{
	init_completion(&sim.hotplug_lock);
	sim.hotplug_lock.done = 1;
}

static void hotplug_lock(void)
{
	sim_wait_for_completion(&sim.hotplug_lock, NULL);
}

static void hotplug_unlock(void)
{
	complete(&sim.hotplug_lock);
}

int sim_cpu_down(int cpu)
{
	int ret;

	sim_might_sleep(NULL);
	if (cpu < 0 || cpu >= sim.cfg.ncpus)
		return -EINVAL;
	if (cpu == 0)
		return -EPERM;
	hotplug_lock();
	if (sim.suspend.hotplug_disabled)
		ret = -EBUSY;
	else if (sim.cpus[cpu].offline)
		ret = 1;
	else
		ret = sim_era_since(6, 1) ? cpu_down_on_other_cpu(cpu) : cpu_down_locked(cpu);
	hotplug_unlock();
	return ret;
}

/* _cpu_up(cpu, tasks_frozen, CPUHP_ONLINE) */
static int cpu_up_locked(int cpu)
{
	struct sim_cpu *c = &sim.cpus[cpu];

	sim_point(sim.cfg.costs.wakeup, POINT_PLAIN);	/* the AP's bring-up, kicked */
	if (!c->offline)
		return 0;
	sim_footprint_global();
	sim_handover(c, sim_now());	/* it starts now, idle */
	sim_timers_prepare_cpu(c);
	c->slice_start = c->clock;
	c->sched_touch = c->clock;
	c->need_resched = false;
	c->offline = false;
	return 0;
}

int sim_cpu_up(int cpu)
{
	int ret;

	sim_might_sleep(NULL);
	if (cpu < 0 || cpu >= sim.cfg.ncpus)
		return -EINVAL;
	hotplug_lock();
	if (sim.suspend.hotplug_disabled)
		ret = -EBUSY;
	else if (!sim.cpus[cpu].offline)
		ret = 1;
	else
		ret = cpu_up_locked(cpu);
	hotplug_unlock();
	return ret;
}

/* A scenario's `cpu_down(1) at 5ms;`: a task of its own, as a write to .../cpu1/online. */
static int cpu_down_main(void *arg)
{
	return sim_cpu_down((int)(intptr_t)arg);
}

static int cpu_up_main(void *arg)
{
	return sim_cpu_up((int)(intptr_t)arg);
}

void sim_cpu_down_at(int cpu, uint64_t at)
{
	sim_spawn("cpuhp", cpu_down_main, (void *)(intptr_t)cpu, 0, false, at);
}

void sim_cpu_up_at(int cpu, uint64_t at)
{
	sim_spawn("cpuhp", cpu_up_main, (void *)(intptr_t)cpu, 0, false, at);
}

/*
 * freeze_secondary_cpus(0) (kernel/cpu.c:1897 in 6.12, :1567 in 6.1), from
 * suspend_enter() with the tasks frozen: every online CPU but the boot CPU
 * goes down, each with _cpu_down() called by the suspend task itself. 6.12
 * takes them from the highest down (cpu.c:1918); 6.1 (cpu.c:1588) and 4.9
 * in for_each_online_cpu() order. Hotplug stays disabled until the thaw.
 * pm_wakeup_pending() is not modelled: the machine registers no wake-up
 * source, so nothing aborts the freeze here.
 */
int sim_freeze_secondary_cpus(void)
{
	int n = sim.cfg.ncpus, error = 0;

	hotplug_lock();
	printk(KERN_INFO "Disabling non-boot CPUs ...\n");
	for (int i = 0; i < n; i++) {
		int cpu = sim_era_since(6, 12) ? n - 1 - i : i;

		if (cpu == 0 || sim.cpus[cpu].offline)
			continue;
		sim_trace_suspend_resume("CPU_OFF", cpu, true);
		error = cpu_down_locked(cpu);
		sim_trace_suspend_resume("CPU_OFF", cpu, false);
		if (error) {
			printk(KERN_ERR "Error taking CPU%d down: %d\n", cpu, error);
			break;
		}
		sim.cpus[cpu].suspend_frozen = true;
	}
	if (error)
		printk(KERN_ERR "Non-boot CPUs are not disabled\n");
	sim.suspend.hotplug_disabled = true;
	hotplug_unlock();
	return error;
}

/* thaw_secondary_cpus() (cpu.c:1963 in 6.12, :1633 in 6.1): the frozen CPUs, in order. */
void sim_thaw_secondary_cpus(void)
{
	struct sim_cpu *c;
	bool any = false;

	hotplug_lock();
	sim.suspend.hotplug_disabled = false;
	for_each_sim_cpu(c)
		any |= c->suspend_frozen;
	if (!any) {
		hotplug_unlock();
		return;
	}
	printk(KERN_INFO "Enabling non-boot CPUs ...\n");
	for_each_sim_cpu(c) {
		if (!c->suspend_frozen)
			continue;
		c->suspend_frozen = false;
		sim_trace_suspend_resume("CPU_ON", c->id, true);
		cpu_up_locked(c->id);
		sim_trace_suspend_resume("CPU_ON", c->id, false);
		printk(KERN_INFO "CPU%d is up\n", c->id);
	}
	hotplug_unlock();
}
