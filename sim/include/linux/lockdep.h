/* The lock validator's kernel-facing calls. */
#ifndef _LINUX_LOCKDEP_H
#define _LINUX_LOCKDEP_H

#include <sim/lock.h>
#include <sim/site.h>

void sim_lockdep_set_class(struct sim_lock *l, struct lock_class_key *key, const char *name);
void sim_lockdep_assert_held(const struct sim_lock *l, const struct sim_site *site);
/* A work, handler or task ended: it must leave no lock held and nothing disabled. */
void sim_lockdep_context_end(const char *what, const char *name);
/* The same, where the caller knows the preempt count the context started with. */
void sim_lockdep_context_end_count(const char *what, const char *name, unsigned int entry_count);
/* "still has locks held!": the running context must hold none here (a task about to freeze). */
void debug_check_no_locks_held(void);

#define lockdep_set_class_and_name(lock, key, name) sim_lockdep_set_class(&(lock)->l, key, name)
#define lockdep_set_class(lock, key) sim_lockdep_set_class(&(lock)->l, key, #key)
#define lockdep_assert_held(lock) sim_lockdep_assert_held(&(lock)->l, SIM_HERE)
#define lockdep_assert_irqs_disabled() WARN_ON_ONCE(!irqs_disabled())

#endif
