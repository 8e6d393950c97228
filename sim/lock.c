/*
 * Spinlocks. The acquisition is a scheduling point taken before the lock
 * word is tested, so another CPU may win the race for it. A loser spins as
 * one wait on the lock, not as a loop of steps: it is woken once, when the
 * lock is its to take, with its clock moved to the moment of release. The
 * lock word carries time as it carries ownership: whoever finds it taken or
 * free has seen the acquire or release that made it so, and comes after it.
 *
 * The trace has lock.h's lock_acquire when the lock is taken (after
 * kwsim_lock_contended, if it was spun on: where lockdep's lock_acquired
 * would come) and lock_release as the unlock begins, so a holding is the
 * span between the two on the holder's CPU.
 *
 * Who gets a contended lock (cfg.spinlock):
 * - fifo, the default: qspinlock, x86's spinlock since 4.2 (and arm64's
 *   since 4.19). The first waiter sets the pending bit, later ones queue on
 *   the MCS list; the unlock only clears the locked byte, and the pending
 *   waiter or the queue's head takes it, while a newcomer sees the pending
 *   or tail bits and queues behind (queued_spin_lock_slowpath). So the
 *   release hands the lock to the longest waiter: no decision, no barging.
 * - unfair: a plain test-and-set lock, as a guest without paravirt
 *   spinlocks runs (virt_spin_lock()): the unlock frees the word and every
 *   spinner and newcomer races to set it. Which spinner's attempt lands
 *   first is a decision (answer 0: the longest waiter); the lock stays free
 *   until it runs, so a newcomer on another CPU may still take it first.
 */
#include "machine.h"
#include <linux/compiler.h>
#include <linux/spinlock.h>

#include <stdio.h>
#include <string.h>

/*
 * The acquire, trylock and release paths (and what they call) are not
 * checked by KASAN at each access: they read and write the lock's fields a
 * dozen times a call. Each checks its first touch of the lock after a
 * scheduling point instead (another CPU may have freed it there), at the
 * field the instrumented code touched first (lockdep's class_of() checks
 * its own); the touches after it are covered, nothing being freed between.
 */
#define __lock_path	__no_sanitize_address

static __lock_path void first_touch(const struct sim_lock *l)
{
	sim_kasan_check(&l->owner, sizeof(l->owner));
}

/* Handed on but not yet taken is locked too: the pending bit or the queue holds it. */
static __lock_path bool taken(const struct sim_lock *l)
{
	return l->owner || (l->next && l->next != sim.cur);
}

void sim_lock_init(struct sim_lock *l, const char *name, struct lock_class_key *key)
{
	*l = (struct sim_lock){ .name = name, .key = key };
	l->spin.what = "spinlock";
}

bool sim_lock_is_locked(const struct sim_lock *l)
{
	return l->owner || l->next;
}

/* The state changes that come with the flavour, before the lock is taken. */
static __lock_path unsigned long enter(struct sim_cpu *c, enum sim_lock_how how)
{
	unsigned long flags = c->irqs_disabled;

	if (how == SIM_LOCK_IRQ || how == SIM_LOCK_IRQSAVE)
		c->irqs_disabled = true;
	c->preempt_count += how == SIM_LOCK_BH ? SOFTIRQ_DISABLE_OFFSET : PREEMPT_OFFSET;
	return flags;
}

static __lock_path void leave(struct sim_cpu *c, enum sim_lock_how how, unsigned long flags)
{
	unsigned int off = how == SIM_LOCK_BH ? SOFTIRQ_DISABLE_OFFSET : PREEMPT_OFFSET;

	if (how == SIM_LOCK_IRQ || (how == SIM_LOCK_IRQSAVE && !flags))
		c->irqs_disabled = false;
	sim_preempt_count_sub(c, off);
}

static __lock_path void take(struct sim_lock *l, bool trylock, const struct sim_site *site)
{
	sim_handover(this_cpu(), l->handed_at);
	sim_footprint_touch(l, true);
	l->handed_at = sim_now();
	l->owner = sim.cur;
	l->next = NULL;
	l->owner_site = site;
	l->spin.obj = l;
	if (sim.cfg.on_rf)
		sim_rf_read(l, site, SIM_RF_LOCK);
	if (trylock)
		sim_lockdep_trylocked(l, site);
	else
		sim_lockdep_acquired(l, site);
	sim_trace(REC_LOCK_ACQUIRE, sim_fake_addr(l), trylock ? TRACE_LOCK_TRY : 0, 0, 0, l->name,
		  NULL);
}

/*
 * The lock calls touch the lock first of all: a lock in freed memory
 * faults here, and the fault's report names the caller by this site.
 */
static __lock_path const struct sim_site *enter_call(const struct sim_site *site)
{
	const struct sim_site *outer = sim.cur->in_call;

	sim.cur->in_call = site;
	return outer;
}

__lock_path unsigned long sim_lock_acquire(struct sim_lock *l, enum sim_lock_how how,
					   const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();
	unsigned long flags = enter(c, how);

	sim.cur->at = site;
	sim_point(sim.cfg.costs.lock, POINT_ATOMIC);
	sim_footprint_touch(l, true);	/* takes it, or joins its waiters */
	sim_lockdep_acquire(l, site);	/* its first touch of the lock */
	if (taken(l)) {
		l->spin.obj = l;
		sim_spin_wait(&l->spin);
		first_touch(l);
		/* unfair: a newcomer took it first */
		while (taken(l)) {
			sim_spin_wait_again(&l->spin);
			first_touch(l);
		}
		sim_trace(REC_LOCK_CONTENDED, sim_fake_addr(l), sim_now() - sim.cur->spin_start, 0, 0,
			  l->name, NULL);
	}
	take(l, false, site);
	sim.cur->at = NULL;
	sim.cur->in_call = outer;
	return flags;
}

__lock_path int sim_lock_try(struct sim_lock *l, enum sim_lock_how how, unsigned long *flags,
			     const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();
	unsigned long saved = enter(c, how);
	int ok = 0;

	sim.cur->at = site;
	sim_point(sim.cfg.costs.lock, POINT_ATOMIC);
	sim.cur->at = NULL;
	first_touch(l);
	if (taken(l)) {
		sim_footprint_touch(l, false);
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

/* The unlock: whose the lock is next, of those spinning on it. */
static __lock_path void hand_on(struct sim_lock *l)
{
	struct sim_ctx *spinners[SIM_MAX_SPINNERS];
	unsigned int n = sim_spinners(&l->spin, spinners), k = 0;

	if (!n)
		return;
	if (sim.cfg.spinlock == SIM_SPINLOCK_UNFAIR) {
		int ids[SIM_MAX_SPINNERS];

		for (unsigned int i = 0; i < n; i++)
			ids[i] = spinners[i]->cpu->id;
		k = sim_choose_among(n, SIM_WHY_SPIN, ids);
	} else {
		l->next = spinners[0];
	}
	sim_spin_release_one(&l->spin, spinners[k]);
}

__lock_path void sim_lock_release(struct sim_lock *l, enum sim_lock_how how, unsigned long flags,
				  const struct sim_site *site)
{
	const struct sim_site *outer = enter_call(site);
	struct sim_cpu *c = this_cpu();

	sim_lockdep_release(l, site);
	sim_footprint_touch(l, true);
	first_touch(l);
	/*
	 * Another context's lock (lockdep has just said so): the machine
	 * leaves it to its owner, whose own unlock is the one that hands it
	 * on; released twice, it would hand it to two spinners.
	 */
	if (l->owner && l->owner != sim.cur) {
		sim.cur->in_call = outer;
		leave(c, how, flags);
		sim_point(sim.cfg.costs.unlock, POINT_PLAIN);
		return;
	}
	sim_trace(REC_LOCK_RELEASE, sim_fake_addr(l), 0, 0, 0, l->name, NULL);
	if (sim.cfg.on_rf)
		sim_rf_write(l, site);
	l->handed_at = sim_now();
	l->owner = NULL;
	l->owner_site = NULL;
	hand_on(l);
	sim.cur->in_call = outer;
	leave(c, how, flags);
	sim.cur->at = site;	/* a reader may wait for this release */
	sim_point(sim.cfg.costs.unlock, POINT_PLAIN);
	sim.cur->at = NULL;
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
	if (!l->owner && l->next) {
		snprintf(buf, sizeof(buf), " handed to %s", sim_ctx_name(l->next));
		return buf;
	}
	if (!l->owner)
		return "";
	snprintf(buf, sizeof(buf), " held by %s (taken in %s at %s:%d)", sim_ctx_name(l->owner),
		 l->owner_site ? sim_unprefix(l->owner_site->func) : "?",
		 l->owner_site ? l->owner_site->file : "?", l->owner_site ? l->owner_site->line : 0);
	return buf;
}
