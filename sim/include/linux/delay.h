/*
 * Delays. udelay and friends busy-wait: the CPU stays busy and virtual time
 * passes, interrupts included. msleep sleeps on a timer, as the kernel's does.
 */
#ifndef _LINUX_DELAY_H
#define _LINUX_DELAY_H

#include <sim/site.h>

void ndelay(unsigned long nsecs);
void udelay(unsigned long usecs);
void mdelay(unsigned long msecs);
void sim_msleep(unsigned int msecs, const struct sim_site *site);
#define msleep(ms) sim_msleep(ms, SIM_HERE)
unsigned long msleep_interruptible(unsigned int msecs);
void usleep_range(unsigned long min, unsigned long max);

#endif
