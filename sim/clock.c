/*
 * Virtual time. Each CPU keeps its own nanosecond clock; jiffies are a
 * function of the reading CPU's clock, starting at the kernel's
 * INITIAL_JIFFIES so that wrap-around bugs show five minutes in.
 */
#include "machine.h"
#include <linux/jiffies.h>

uint64_t sim_now(void)
{
	if (sim.in_event)
		return sim.ev_time;
	return sim.cur_cpu ? sim.cur_cpu->clock : 0;
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
	return sim_ns_to_jiffies(sim_now());
}

unsigned int sim_hz(void)
{
	return sim.cfg.hz;
}
