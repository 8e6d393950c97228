/* Interrupt enable state of the running CPU. Every change is a scheduling point. */
#ifndef _LINUX_IRQFLAGS_H
#define _LINUX_IRQFLAGS_H

#include <linux/types.h>

void sim_local_irq_disable(void);
void sim_local_irq_enable(void);
unsigned long sim_local_irq_save(void);
void sim_local_irq_restore(unsigned long flags);
bool sim_irqs_disabled(void);

#define local_irq_disable()		sim_local_irq_disable()
#define local_irq_enable()		sim_local_irq_enable()
#define local_irq_save(flags)		((flags) = sim_local_irq_save())
#define local_irq_restore(flags)	sim_local_irq_restore(flags)
#define irqs_disabled()			sim_irqs_disabled()
#define raw_local_irq_save(flags)	local_irq_save(flags)
#define raw_local_irq_restore(flags)	local_irq_restore(flags)
#define irqs_disabled_flags(flags)	((flags) != 0)

#endif
