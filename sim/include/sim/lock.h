/* The machine's lock word, under every kernel spinlock flavour. */
#ifndef SIM_LOCK_H
#define SIM_LOCK_H

#include <sim/site.h>
#include <stdint.h>

/* A context spins on one of these; whoever changes the condition releases it. */
struct sim_spin_obj {
	const char *what;	/* "spin_lock", "del_timer_sync", ... */
	const void *obj;
	int nspinners;
};

struct lock_class_key {
	char dummy;		/* a distinct address per static key is all lockdep needs */
};

struct sim_lock_class;
struct sim_ctx;

struct sim_lock {
	struct sim_ctx *owner;
	const struct sim_site *owner_site;
	struct sim_spin_obj spin;
	const char *name;
	const struct lock_class_key *key;	/* NULL: keyed by the lock itself */
	unsigned int subclass;			/* with the key, its class (lockdep's subclass) */
	struct sim_lock_class *cls;
	unsigned long cls_gen;			/* the machine cls was looked up in */
	uint64_t handed_at;			/* the clock of its last acquire or release */
	struct sim_ctx *next;			/* fifo: the spinner it was handed to, until it takes it */
};

/* The machine's own (lock.c to lockdep.c): a trylock succeeded. */
void sim_lockdep_trylocked(struct sim_lock *l, const struct sim_site *site);

#endif
