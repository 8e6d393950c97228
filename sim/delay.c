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

/*
 * msleep's timeout in jiffies. Until 6.11 it was one jiffy more than the
 * milliseconds asked for, so that the sleep could not end early when it
 * began just before a tick; 6.12 dropped it ("timers: Remove historical
 * extra jiffie for timeout in msleep()", kernel/time/timer.c msleep and
 * msleep_interruptible), the timer wheel's rounding being enough. A 10 ms
 * msleep at HZ=1000 arms 11 jiffies on 4.9 and 6.1, 10 on 6.12.
 */
static unsigned long msleep_timeout(unsigned int msecs)
{
	return msecs_to_jiffies(msecs) + (sim_era_since(6, 12) ? 0 : 1);
}

void sim_msleep(unsigned int msecs, const struct sim_site *site)
{
	unsigned long timeout = msleep_timeout(msecs);

	sim_might_sleep(site);
	while (timeout)
		timeout = (unsigned long)schedule_timeout_uninterruptible((long)timeout);
}

/* A pending signal (for a kthread: kthread_stop's TIF_NOTIFY_SIGNAL) ends it early. */
unsigned long msleep_interruptible(unsigned int msecs)
{
	unsigned long timeout = msleep_timeout(msecs);

	while (timeout && !signal_pending(current))
		timeout = (unsigned long)schedule_timeout_interruptible((long)timeout);
	return jiffies_to_msecs(timeout);
}

/*
 * usleep_range(): schedule_hrtimeout_range() on an hrtimer whose soft
 * expiry is min and hard expiry max, not on the timer wheel, so not in
 * whole jiffies. The hrtimer interrupt is programmed for the hard expiry;
 * the sleep ends earlier only if another hrtimer interrupt of that CPU
 * (its tick, on a CPU that keeps ticking) comes between the two. The
 * machine has no per-CPU hrtimer interrupts but the sleeps' own, so the
 * sleep ends at max, to the nanosecond: what an idle (NO_HZ) CPU shows.
 * A stray wake-up does not end it early: both eras loop until the hrtimer
 * has expired (4.9 has "timers: Fix usleep_range() in the context of
 * wake_up_process()"). With max < min the slack wraps and nothing expires
 * before the soft expiry: the sleep ends at min.
 */
void usleep_range(unsigned long min, unsigned long max)
{
	sim_sleep_until(sim_now() + (uint64_t)(max >= min ? max : min) * 1000);
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
