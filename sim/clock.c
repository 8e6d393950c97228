/*
 * Virtual time. Each CPU keeps its own nanosecond clock. jiffies is one
 * global counter, starting at the kernel's INITIAL_JIFFIES so that
 * wrap-around bugs show five minutes in, and advanced by the tick: a jiffy
 * boundary is crossed when the first CPU's clock (or the machine's event
 * time) passes it, the frontier. The frontier is the latest clock, not the
 * earliest, because the kernel's jiffies is bumped by whichever CPU takes
 * the tick first (do_timer) and every CPU then reads the new value: a CPU
 * behind the frontier (within the skew window, or a stalled vCPU with
 * skew = unbounded) is the one that is late, and sees the ticks it missed.
 * With the earliest clock instead, a CPU ahead would arm its timers from a
 * stale jiffies and its sleeps would end early by its own clock. So jiffies
 * never goes back, and a timer armed at jiffies + n is due after the arming
 * CPU's clock, on every CPU.
 *
 * A suspend to RAM stops it all: the machine's clock is the kernel's
 * monotonic clock, which a sleeping machine does not advance, so jiffies
 * stand still too (6.12 and 4.9 alike: timekeeping_resume() injects the
 * sleep into CLOCK_BOOTTIME's offset only, and tick_do_update_jiffies64()
 * counts ticks from ktime_get()), and so does the trace's clock
 * (sched_clock_resume() re-bases its epoch at the cycles of the wake-up).
 * Only the boot clock, sim_boot_now(), counts the sleep (slept_ns).
 */
#include "machine.h"
#include <linux/jiffies.h>

uint64_t sim_now(void)
{
	if (sim.in_event)
		return sim.ev_time;
	return sim.cur_cpu ? sim.cur_cpu->clock : 0;
}

uint64_t sim_boot_now(void)
{
	return sim_now() + sim.slept_ns;
}

uint64_t sim_slept_ns(void)
{
	return sim.slept_ns;
}

uint64_t sim_max_time(void)
{
	uint64_t t = 0;

	for (int i = 0; i < sim.cfg.ncpus; i++)
		if (sim.cpus[i].clock > t)
			t = sim.cpus[i].clock;
	return t;
}

int sim_this_cpu(void)
{
	return sim.cur_cpu ? sim.cur_cpu->id : 0;
}

unsigned long sim_ns_to_jiffies(uint64_t ns)
{
	return INITIAL_JIFFIES + (unsigned long)((ns / 1000000000ULL) * sim.cfg.hz +
		(ns % 1000000000ULL) * sim.cfg.hz / 1000000000ULL);
}

uint64_t sim_jiffies_to_ns(unsigned long j)
{
	uint64_t ticks = (uint64_t)(j - INITIAL_JIFFIES);

	/* the first instant at which jiffies reads j: round up */
	return (ticks / sim.cfg.hz) * 1000000000ULL +
	       ((ticks % sim.cfg.hz) * 1000000000ULL + sim.cfg.hz - 1) / sim.cfg.hz;
}

unsigned long sim_jiffies(void)
{
	uint64_t t = sim_max_time();

	if (t < sim_now())
		t = sim_now();
	sim_footprint_touch(SIM_FP_JIFFIES, true);	/* a high-water mark: every read may raise it */
	if (sim.jiffies_ns < t)
		sim.jiffies_ns = t;
	return sim_ns_to_jiffies(sim.jiffies_ns);
}

unsigned int sim_hz(void)
{
	return sim.cfg.hz;
}
