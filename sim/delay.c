/*
 * Waiting for time: the kernel's sleeps (schedule_timeout and the msleep
 * family, on a timer as the kernel's are) and busy-waits (udelay and
 * friends: the CPU stays busy and interrupts may still arrive).
 */
#include "machine.h"
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/timer.h>

/* schedule_timeout's on-stack timer and whom it wakes */
struct sim_sleeper {
	struct timer_list timer;
	struct task_struct *task;
};

static void process_timeout(struct timer_list *t)
{
	struct sim_sleeper *s = container_of(t, struct sim_sleeper, timer);

	sim_wake(s->task, TASK_NORMAL);
}

long schedule_timeout(long timeout)
{
	struct sim_sleeper s = { .task = current };
	unsigned long expire;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout < 0) {
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	expire = jiffies + (unsigned long)timeout;
	timer_setup_on_stack(&s.timer, process_timeout, 0);
	sim_register_symbol((const void *)process_timeout, "process_timeout");
	mod_timer(&s.timer, expire);
	sim_block("schedule_timeout", &s.timer, NULL);
	del_timer_sync(&s.timer);
	timeout = (long)(expire - jiffies);
	return timeout < 0 ? 0 : timeout;
}

long schedule_timeout_interruptible(long timeout)
{
	__set_current_state(TASK_INTERRUPTIBLE);
	return schedule_timeout(timeout);
}

long schedule_timeout_uninterruptible(long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

static void sleep_until_event(void *arg)
{
	sim_wake(arg, TASK_UNINTERRUPTIBLE);
}

static void sleep_until(uint64_t t, bool boot)
{
	struct task_struct *p = current;
	uint64_t (*now)(void) = boot ? sim_boot_now : sim_now;

	sim_might_sleep(NULL);
	if (t <= now())
		return;
	if (boot)
		sim_event_add_boot(t, sleep_until_event, p);
	else
		sim_event_add(t, sleep_until_event, p, false);
	/* someone else's wake-up is not the alarm: sleep on until it rings */
	while (now() < t) {
		__set_current_state(TASK_UNINTERRUPTIBLE);
		sim_block("sleep_until", NULL, NULL);
	}
}

void sim_sleep_until(uint64_t t)
{
	sleep_until(t, false);
}

void sim_sleep_until_boot(uint64_t t)
{
	sleep_until(t, true);
}

void sim_msleep(unsigned int msecs, const struct sim_site *site)
{
	unsigned long timeout = msecs_to_jiffies(msecs) + 1;

	sim_might_sleep(site);
	while (timeout)
		timeout = (unsigned long)schedule_timeout_uninterruptible((long)timeout);
}

unsigned long msleep_interruptible(unsigned int msecs)
{
	unsigned long timeout = msecs_to_jiffies(msecs) + 1;

	while (timeout)
		timeout = (unsigned long)schedule_timeout_interruptible((long)timeout);
	return 0;
}

void usleep_range(unsigned long min, unsigned long max)
{
	(void)max;
	msleep((unsigned int)DIV_ROUND_UP(min, 1000));
}

void ndelay(unsigned long nsecs)
{
	sim_busy_wait(nsecs);
}

void udelay(unsigned long usecs)
{
	sim_busy_wait((uint64_t)usecs * 1000);
}

void mdelay(unsigned long msecs)
{
	sim_busy_wait((uint64_t)msecs * 1000000);
}
