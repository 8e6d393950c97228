/*
 * A lock validator in the spirit of lockdep. Locks fall into classes (one
 * per initialisation site, or per static lock); the validator learns which
 * class was taken while holding which, and in which interrupt contexts, and
 * reports the first acquisition that makes a deadlock possible:
 * recursion, an order inversion anywhere in the run, a lock taken in irq
 * context and elsewhere with irqs enabled, an unlock of a lock not held, and
 * a context that ends holding a lock or with irqs or preemption disabled.
 *
 * As the kernel's, recursion is by class: taking a second lock of the class
 * of one already held is reported even when the two are distinct locks (the
 * kernel's spin_lock_nested() annotation does not exist here). A trylock
 * cannot deadlock: it adds no ordering and is not checked for recursion or
 * order, and it does not mark irq-context use; the lock it took still counts
 * as held for the acquisitions that follow.
 */
#include "machine.h"
#include <linux/spinlock.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum usage {
	USED_IN_HARDIRQ = 1,	/* taken in hardirq context */
	USED_IN_SOFTIRQ = 2,	/* taken in softirq context */
	ENABLED_HARDIRQ = 4,	/* taken with hard interrupts enabled */
	ENABLED_SOFTIRQ = 8,	/* taken where softirqs could run on top */
};

struct sim_lock_class {
	int id;
	const void *key;
	unsigned int subclass;
	const char *name;
	unsigned int usage;
	bool reported;
	const struct sim_site *usage_site[4];
	unsigned char *after;	/* after[j]: class j was taken while holding this one; last */
};

/*
 * Counts machines: a lock's cached class is trusted only if it was looked up
 * in this one, since a static lock outlives sim_fini() and the class it cached.
 * The process's, then: a machine's own state starts from zero.
 */
static unsigned long generation;

void sim_lockdep_init(void)
{
	sim.lockdep.nclasses = 0;
	generation++;
}

/*
 * A reset keeps the classes, as spares for the next run's (a run makes a
 * few, and their two allocations each were a share of an explored run):
 * classes[nclasses .. nspare), poisoned until taken, so ASan still sees a
 * stale class. Every spare's after[] has capclasses bytes: the table grows
 * only when every class is in use.
 */
void sim_lockdep_fini(bool keep)
{
	struct sim_lockdep *ld = &sim.lockdep;

	/* all but after, the row's only pointer (machine.h) */
	for (int i = 0; i < ld->nclasses; i++)
		sim_spare_keep_head(ld->classes[i], offsetof(struct sim_lock_class, after));
	ld->nclasses = 0;
	if (keep)
		return;
	for (int i = 0; i < ld->nspare; i++) {
		sim_spare_take(ld->classes[i]);
		free(ld->classes[i]->after);
		free(ld->classes[i]);
	}
	free(ld->classes);
	ld->classes = NULL;
	ld->nspare = ld->capclasses = 0;
}

static struct sim_lock_class *class_of(struct sim_lock *l)
{
	struct sim_lockdep *ld = &sim.lockdep;
	const void *key;

	sim_kasan_check(&l->key, sizeof(l->key));	/* the first touch of the lock */
	key = l->key ? (const void *)l->key : (const void *)l;

	if (l->cls && l->cls_gen == generation && l->cls->key == key &&
	    l->cls->subclass == l->subclass)
		return l->cls;
	l->cls_gen = generation;
	for (int i = 0; i < ld->nclasses; i++) {
		if (ld->classes[i]->key == key && ld->classes[i]->subclass == l->subclass) {
			l->cls = ld->classes[i];
			return l->cls;
		}
	}
	if (ld->nclasses == ld->capclasses) {
		ld->capclasses = ld->capclasses ? 2 * ld->capclasses : 32;
		ld->classes = realloc(ld->classes, (size_t)ld->capclasses * sizeof(*ld->classes));
		if (!ld->classes)
			abort();
		for (int i = 0; i < ld->nclasses; i++) {
			ld->classes[i]->after = realloc(ld->classes[i]->after, (size_t)ld->capclasses);
			if (!ld->classes[i]->after)
				abort();
			memset(ld->classes[i]->after + ld->nclasses, 0, (size_t)(ld->capclasses - ld->nclasses));
		}
	}
	if (ld->nclasses < ld->nspare) {
		unsigned char *after;

		l->cls = ld->classes[ld->nclasses];
		sim_spare_take(l->cls);
		after = l->cls->after;
		memset(after, 0, (size_t)ld->capclasses);
		*l->cls = (struct sim_lock_class){ .after = after };
	} else {
		l->cls = calloc(1, sizeof(*l->cls));
		if (!l->cls || !(l->cls->after = calloc(1, (size_t)ld->capclasses)))
			abort();
		ld->nspare++;
	}
	l->cls->id = ld->nclasses;
	l->cls->key = key;
	l->cls->subclass = l->subclass;
	l->cls->name = l->name ? l->name : "lock";
	ld->classes[ld->nclasses++] = l->cls;
	return l->cls;
}

void sim_lockdep_set_class(struct sim_lock *l, struct lock_class_key *key, const char *name)
{
	sim_kasan_check(&l->key, sizeof(l->key));
	l->key = key;
	l->name = sim_intern(name);	/* a record's string (sim_trace()): the caller's may not last */
	l->cls = NULL;
}

/* Depth-first: is 'to' reachable from 'from' over recorded orderings? */
static bool reaches(int from, int to, unsigned char *seen)
{
	if (from == to)
		return true;
	seen[from] = 1;
	for (int j = 0; j < sim.lockdep.nclasses; j++)
		if (sim.lockdep.classes[from]->after[j] && !seen[j] && reaches(j, to, seen))
			return true;
	return false;
}

static void check_order(struct sim_ctx *x, struct sim_lock_class *cls, const struct sim_site *site)
{
	for (int i = 0; i < x->nheld; i++) {
		struct sim_lock_class *held = x->held[i].cls;
		unsigned char *seen;

		if (held == cls || held->after[cls->id])
			continue;
		seen = calloc(1, (size_t)sim.lockdep.nclasses);
		if (!seen)
			abort();
		if (reaches(cls->id, held->id, seen) && !cls->reported) {
			cls->reported = true;
			sim_report(SIM_F_LOCKDEP, site,
				   "possible circular locking dependency detected: %s takes %s "
				   "while holding %s, and %s was taken while holding %s before",
				   sim_ctx_name(x), cls->name, held->name, held->name, cls->name);
		}
		free(seen);
		held->after[cls->id] = 1;
	}
}

static void mark_usage(struct sim_cpu *c, struct sim_lock_class *cls, bool trylock,
		       const struct sim_site *site)
{
	unsigned int use = 0, bad;

	/* as mark_usage(): a trylock in irq context cannot deadlock on its holder */
	if (!trylock && (c->preempt_count & HARDIRQ_MASK))
		use |= USED_IN_HARDIRQ;
	else if (!trylock && (c->preempt_count & SOFTIRQ_OFFSET))
		use |= USED_IN_SOFTIRQ;
	if (!c->irqs_disabled) {
		use |= ENABLED_HARDIRQ;
		if (!(c->preempt_count & SOFTIRQ_MASK))
			use |= ENABLED_SOFTIRQ;
	}
	for (int b = 0; b < 4; b++)
		if ((use & (1u << b)) && !(cls->usage & (1u << b)))
			cls->usage_site[b] = site;
	cls->usage |= use;
	bad = ((cls->usage & USED_IN_HARDIRQ) && (cls->usage & ENABLED_HARDIRQ)) ||
	      ((cls->usage & USED_IN_SOFTIRQ) && (cls->usage & ENABLED_SOFTIRQ));
	if (bad && !cls->reported) {
		bool hard = (cls->usage & USED_IN_HARDIRQ) && (cls->usage & ENABLED_HARDIRQ);
		const struct sim_site *in = cls->usage_site[hard ? 0 : 1];
		const struct sim_site *on = cls->usage_site[hard ? 2 : 3];

		cls->reported = true;
		sim_report(SIM_F_LOCKDEP, site,
			   "inconsistent lock state: %s is taken in %s context (%s) and with %s "
			   "enabled (%s): an interrupt on top of the holder deadlocks",
			   cls->name, hard ? "hardirq" : "softirq", in ? sim_unprefix(in->func) : "?",
			   hard ? "irqs" : "softirqs", on ? sim_unprefix(on->func) : "?");
	}
}

/* Before a blocking acquisition: recursion (by class, as check_deadlock()) and order. */
void sim_lockdep_acquire(struct sim_lock *l, const struct sim_site *site)
{
	struct sim_ctx *x = sim.cur;
	struct sim_lock_class *cls = class_of(l);

	for (int i = 0; i < x->nheld; i++) {
		if (x->held[i].cls == cls) {
			sim_report(SIM_F_LOCKDEP, site,
				   "possible recursive locking detected: %s takes %s, already held "
				   "(%s, taken in %s)", sim_ctx_name(x), cls->name,
				   x->held[i].lock == l ? "the same lock"
							: "another lock of its class",
				   x->held[i].site ? sim_unprefix(x->held[i].site->func) : "?");
			return;
		}
	}
	check_order(x, cls, site);
}

static void acquired(struct sim_lock *l, bool trylock, const struct sim_site *site)
{
	struct sim_ctx *x = sim.cur;

	mark_usage(x->cpu, class_of(l), trylock, site);
	if (x->nheld == SIM_MAX_HELD_LOCKS) {
		sim_report(SIM_F_LOCKDEP, site, "BUG: MAX_LOCK_DEPTH too low: %s holds %d locks",
			   sim_ctx_name(x), x->nheld);
		return;
	}
	x->held[x->nheld++] = (struct sim_held_lock){ .lock = l, .cls = class_of(l), .site = site };
}

void sim_lockdep_acquired(struct sim_lock *l, const struct sim_site *site)
{
	acquired(l, false, site);
}

void sim_lockdep_trylocked(struct sim_lock *l, const struct sim_site *site)
{
	acquired(l, true, site);
}

void sim_lockdep_release(struct sim_lock *l, const struct sim_site *site)
{
	struct sim_ctx *x = sim.cur;

	for (int i = x->nheld - 1; i >= 0; i--) {
		if (x->held[i].lock != l)
			continue;
		memmove(&x->held[i], &x->held[i + 1], (size_t)(x->nheld - i - 1) * sizeof(x->held[0]));
		x->nheld--;
		return;
	}
	sim_kasan_check(&l->name, sizeof(l->name));
	sim_report(SIM_F_LOCKDEP, site,
		   "WARNING: bad unlock balance detected: %s releases %s, which it does not hold%s",
		   sim_ctx_name(x), l->name ? l->name : "lock",
		   l->owner ? "" : " (nobody does)");
}

/*
 * Held by the running context, or by one it interrupted: in the kernel an
 * interrupt shares the held-lock list of the task it came in on.
 */
void sim_lockdep_assert_held(const struct sim_lock *l, const struct sim_site *site)
{
	struct sim_cpu *c = this_cpu();

	for (int d = 0; c && d < c->depth; d++) {
		const struct sim_ctx *x = c->stack[d];

		for (int i = 0; i < x->nheld; i++)
			if (x->held[i].lock == l)
				return;
	}
	sim_kasan_check(&l->name, sizeof(l->name));
	sim_report(SIM_F_LOCKDEP, site, "lockdep_assert_held(%s) failed: not held%s",
		   l->name ? l->name : "lock", l->owner ? " here (another context holds it)" : "");
}

static void context_end(const char *what, const char *name, bool count_bad)
{
	struct sim_ctx *x = sim.cur;
	struct sim_cpu *c = x->cpu;
	bool irqs_bad = x->kind == CTX_TASK && c->irqs_disabled;

	if (!x->nheld && !count_bad && !irqs_bad)
		return;
	sim_report(SIM_F_ATOMIC_LEAK, x->nheld ? x->held[0].site : NULL,
		   "BUG: %s %s leaked lock or atomic: %s%s%s, preempt_count %#x, irqs %s",
		   what, name ? name : "", x->nheld ? "holds " : "",
		   x->nheld ? x->held[0].cls->name : "no lock", x->nheld > 1 ? " and more" : "",
		   c->preempt_count, c->irqs_disabled ? "off" : "on");
}

void debug_check_no_locks_held(void)
{
	struct sim_ctx *x = sim.cur;

	if (x->nheld)
		sim_report(SIM_F_LOCKDEP, x->held[0].site, "WARNING: %s still has locks held! (%s%s)",
			   sim_ctx_name(x), x->held[0].cls->name, x->nheld > 1 ? " and more" : "");
}

/*
 * A task must end with nothing disabled. An interrupt frame's count includes
 * that of the context it interrupted, which may hold locks of its own: without
 * the count at entry only the locks it holds itself can be checked.
 */
void sim_lockdep_context_end(const char *what, const char *name)
{
	struct sim_ctx *x = sim.cur;

	context_end(what, name, x->kind == CTX_TASK && x->cpu->preempt_count);
}

void sim_lockdep_context_end_count(const char *what, const char *name, unsigned int entry_count)
{
	context_end(what, name, sim.cur->cpu->preempt_count != entry_count);
}
