/*
 * Spinlocks. The acquisition is a scheduling point taken before the lock
 * word is tested, so another CPU may win the race for it. A loser spins as
 * one wait on the lock, not as a loop of steps: it is woken once, when the
 * owner lets go, with its clock moved to the moment of release. The lock
 * word carries time as it carries ownership: whoever finds it taken or free
 * has seen the acquire or release that made it so, and comes after it.
 */
#include "machine.h"
#include <linux/spinlock.h>

#include <stdio.h>
#include <string.h>

void sim_lock_init(struct sim_lock *l, const char *name, struct lock_class_key *key)
{
	*l = (struct sim_lock){ .name = name, .key = key };
	l->spin.what = "spinlock";
}

bool sim_lock_is_locked(const struct sim_lock *l)
{
	return l->owner != NULL;
}

/* The state changes that come with the flavour, before the lock is taken. */
static unsigned long enter(struct sim_cpu *c, enum sim_lock_how how)
{
	unsigned long flags = c->irqs_disabled;

	if (how == SIM_LOCK_IRQ || how == SIM_LOCK_IRQSAVE)
		c->irqs_disabled = true;
	c->preempt_count += how == SIM_LOCK_BH ? SOFTIRQ_DISABLE_OFFSET : PREEMPT_OFFSET;
	return flags;
}

static void leave(struct sim_cpu *c, enum sim_lock_how how, unsigned long flags)
{
	unsigned int off = how == SIM_LOCK_BH ? SOFTIRQ_DISABLE_OFFSET : PREEMPT_OFFSET;

	if (how == SIM_LOCK_IRQ || (how == SIM_LOCK_IRQSAVE && !flags))
		c->irqs_disabled = false;
	if (c->preempt_count >= off)
		c->preempt_count -= off;
}

static void take(struct sim_lock *l, bool trylock, const struct sim_site *site)
{
	sim_handover(this_cpu(), l->handed_at);
	l->handed_at = sim_now();
	l->owner = sim.cur;
	l->owner_site = site;
	l->spin.obj = l;
	if (trylock)
		sim_lockdep_trylocked(l, site);
	else
		sim_lockdep_acquired(l, site);
}

/*
 * The lock calls touch the lock first of all: a lock in freed memory
 * faults here, and the fault's report names the caller by this site.
 */
static const struct sim_site *enter_call(const struct sim_site *site)
{
	const struct sim_site *outer = sim.cur->in_call;

	sim.cur->in_call = site;
	return outer;
}

unsigned long sim_lock_acquire(struct sim_lock *l, enum sim_lock_how how,
			       const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();
	unsigned long flags = enter(c, how);

	sim_point(sim.cfg.costs.lock, POINT_ATOMIC);
	sim_lockdep_acquire(l, site);
	if (l->owner) {
		uint64_t start = sim_now();

		l->spin.obj = l;
		while (l->owner)
			sim_spin_wait(&l->spin);
		sim_trace(REC_LOCK_CONTENDED, sim_fake_addr(l), sim_now() - start, 0, 0,
			  l->name, NULL);
	}
	take(l, false, site);
	sim.cur->in_call = outer;
	return flags;
}

int sim_lock_try(struct sim_lock *l, enum sim_lock_how how, unsigned long *flags,
		 const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();
	unsigned long saved = enter(c, how);
	int ok = 0;

	sim_point(sim.cfg.costs.lock, POINT_ATOMIC);
	if (l->owner) {
		sim_handover(c, l->handed_at);
		leave(c, how, saved);
	} else {
		/* a trylock cannot deadlock: lockdep neither checks nor orders it */
		take(l, true, site);
		if (flags)
			*flags = saved;
		ok = 1;
	}
	sim.cur->in_call = outer;
	return ok;
}

void sim_lock_release(struct sim_lock *l, enum sim_lock_how how, unsigned long flags,
		      const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();

	sim_lockdep_release(l, site);
	l->handed_at = sim_now();
	l->owner = NULL;
	l->owner_site = NULL;
	sim_spin_release(&l->spin);
	sim.cur->in_call = outer;
	leave(c, how, flags);
	sim_point(sim.cfg.costs.unlock, POINT_PLAIN);
}

const char *sim_spin_obj_name(const struct sim_spin_obj *obj)
{
	const struct sim_lock *l = obj->obj;

	if (l && !strcmp(obj->what, "spinlock") && l->name)
		return l->name;
	return sim_object_name(obj->obj);
}

const char *sim_spin_owner_text(const struct sim_spin_obj *obj)
{
	static char buf[160];
	const struct sim_lock *l;

	if (strcmp(obj->what, "spinlock") || !obj->obj)
		return "";
	l = obj->obj;
	if (!l->owner)
		return "";
	snprintf(buf, sizeof(buf), " held by %s (taken in %s at %s:%d)", sim_ctx_name(l->owner),
		 l->owner_site ? sim_unprefix(l->owner_site->func) : "?",
		 l->owner_site ? l->owner_site->file : "?", l->owner_site ? l->owner_site->line : 0);
	return buf;
}
