/*
 * Spinlocks in the kernel's flavours. Taking a lock is a scheduling point
 * before the lock is taken; a contended lock really spins: the waiter keeps
 * its CPU with whatever interrupt state it had, and burns virtual time.
 */
#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

#include <linux/types.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/lockdep.h>
#include <linux/bug.h>
#include <sim/lock.h>

typedef struct raw_spinlock {
	struct sim_lock l;
} raw_spinlock_t;

typedef struct spinlock {
	struct sim_lock l;
} spinlock_t;

/* How an acquisition changes the CPU's state, and how a release undoes it. */
enum sim_lock_how { SIM_LOCK_PLAIN, SIM_LOCK_IRQ, SIM_LOCK_IRQSAVE, SIM_LOCK_BH };

void sim_lock_init(struct sim_lock *l, const char *name, struct lock_class_key *key);
unsigned long sim_lock_acquire(struct sim_lock *l, enum sim_lock_how how, const struct sim_site *site);
int sim_lock_try(struct sim_lock *l, enum sim_lock_how how, unsigned long *flags,
		 const struct sim_site *site);
void sim_lock_release(struct sim_lock *l, enum sim_lock_how how, unsigned long flags,
		      const struct sim_site *site);
bool sim_lock_is_locked(const struct sim_lock *l);

#define __SIM_LOCK_UNLOCKED(lockname) { .l = { .name = #lockname, .spin = { .what = "spinlock", .obj = 0 } } }
#define __RAW_SPIN_LOCK_UNLOCKED(lockname) (raw_spinlock_t)__SIM_LOCK_UNLOCKED(lockname)
#define __RAW_SPIN_LOCK_INITIALIZER(lockname) __SIM_LOCK_UNLOCKED(lockname)
#define __SPIN_LOCK_UNLOCKED(lockname) (spinlock_t)__SIM_LOCK_UNLOCKED(lockname)
#define DEFINE_SPINLOCK(x) spinlock_t x = __SIM_LOCK_UNLOCKED(x)
#define DEFINE_RAW_SPINLOCK(x) raw_spinlock_t x = __SIM_LOCK_UNLOCKED(x)

#define raw_spin_lock_init(lock) do {					\
	static struct lock_class_key __key;				\
	sim_lock_init(&(lock)->l, #lock, &__key);			\
} while (0)
#define spin_lock_init(lock) raw_spin_lock_init(lock)

#define raw_spin_lock(lock)		((void)sim_lock_acquire(&(lock)->l, SIM_LOCK_PLAIN, SIM_HERE))
#define raw_spin_lock_irq(lock)		((void)sim_lock_acquire(&(lock)->l, SIM_LOCK_IRQ, SIM_HERE))
#define raw_spin_lock_bh(lock)		((void)sim_lock_acquire(&(lock)->l, SIM_LOCK_BH, SIM_HERE))
#define raw_spin_lock_irqsave(lock, flags) \
	((flags) = sim_lock_acquire(&(lock)->l, SIM_LOCK_IRQSAVE, SIM_HERE))
#define raw_spin_trylock(lock)		sim_lock_try(&(lock)->l, SIM_LOCK_PLAIN, NULL, SIM_HERE)
#define raw_spin_trylock_irqsave(lock, flags) \
	sim_lock_try(&(lock)->l, SIM_LOCK_IRQSAVE, &(flags), SIM_HERE)
#define raw_spin_unlock(lock)		sim_lock_release(&(lock)->l, SIM_LOCK_PLAIN, 0, SIM_HERE)
#define raw_spin_unlock_irq(lock)	sim_lock_release(&(lock)->l, SIM_LOCK_IRQ, 0, SIM_HERE)
#define raw_spin_unlock_bh(lock)	sim_lock_release(&(lock)->l, SIM_LOCK_BH, 0, SIM_HERE)
#define raw_spin_unlock_irqrestore(lock, flags) \
	sim_lock_release(&(lock)->l, SIM_LOCK_IRQSAVE, flags, SIM_HERE)
#define raw_spin_is_locked(lock)	sim_lock_is_locked(&(lock)->l)

#define spin_lock(lock)			raw_spin_lock(lock)
#define spin_lock_irq(lock)		raw_spin_lock_irq(lock)
#define spin_lock_bh(lock)		raw_spin_lock_bh(lock)
#define spin_lock_irqsave(lock, flags)	raw_spin_lock_irqsave(lock, flags)
#define spin_trylock(lock)		raw_spin_trylock(lock)
#define spin_trylock_irqsave(lock, flags) raw_spin_trylock_irqsave(lock, flags)
#define spin_unlock(lock)		raw_spin_unlock(lock)
#define spin_unlock_irq(lock)		raw_spin_unlock_irq(lock)
#define spin_unlock_bh(lock)		raw_spin_unlock_bh(lock)
#define spin_unlock_irqrestore(lock, flags) raw_spin_unlock_irqrestore(lock, flags)
#define spin_is_locked(lock)		raw_spin_is_locked(lock)
/* As the kernel's: locked by anyone will do (lockdep_assert_held wants this context). */
#define assert_raw_spin_locked(lock)	BUG_ON(!raw_spin_is_locked(lock))
#define assert_spin_locked(lock)	assert_raw_spin_locked(lock)

#endif
