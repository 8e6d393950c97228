/* Preemption and interrupt-context tests, backed by the running CPU's counts. */
#ifndef _LINUX_PREEMPT_H
#define _LINUX_PREEMPT_H

#include <linux/types.h>

#define PREEMPT_OFFSET		(1U << 0)
#define SOFTIRQ_OFFSET		(1U << 8)
#define SOFTIRQ_DISABLE_OFFSET	(2 * SOFTIRQ_OFFSET)
#define HARDIRQ_OFFSET		(1U << 16)
#define PREEMPT_MASK		0x000000ffU
#define SOFTIRQ_MASK		0x0000ff00U
#define HARDIRQ_MASK		0x000f0000U

unsigned int sim_preempt_count(void);
void sim_preempt_add(int val);
void sim_preempt_sub(int val);

#define preempt_count()		sim_preempt_count()
#define hardirq_count()		(preempt_count() & HARDIRQ_MASK)
#define softirq_count()		(preempt_count() & SOFTIRQ_MASK)
#define irq_count()		(preempt_count() & (HARDIRQ_MASK | SOFTIRQ_MASK))
#define in_irq()		(hardirq_count())
#define in_hardirq()		(hardirq_count())
#define in_softirq()		(softirq_count())
#define in_serving_softirq()	(softirq_count() & SOFTIRQ_OFFSET)
#define in_interrupt()		(irq_count())
#define in_task()		(!irq_count())
#define in_atomic()		(preempt_count() != 0)

#define preempt_disable()		sim_preempt_add(1)
#define preempt_enable()		sim_preempt_sub(1)
#define preempt_enable_no_resched()	sim_preempt_sub(1)
#define preempt_disable_notrace()	preempt_disable()
#define preempt_enable_notrace()	preempt_enable()
#define local_bh_disable()		sim_preempt_add(SOFTIRQ_DISABLE_OFFSET)
#define local_bh_enable()		sim_preempt_sub(SOFTIRQ_DISABLE_OFFSET)

#endif
