/*
 * Timers. Each CPU keeps its armed timers ordered as the kernel's wheel
 * expires them, and one event for the jiffy at which the earliest is due;
 * that event raises the timer softirq, which runs the expired callbacks in
 * softirq context of the arming CPU, once that CPU has interrupts enabled.
 *
 * The expiry jiffy follows kernel/time/timer.c's calc_wheel_index(): the
 * level is picked by the distance from the base clock, and the expiry is
 * rounded up to the next granule of that level, so a timer never fires early
 * and may fire late by up to one granule. Each CPU's base has its own clock
 * (base_clk()): jiffies, the one global counter, as forward_timer_base()
 * leaves it, or one past the jiffy of its last softirq, which __run_timers()
 * leaves it at. A timer re-armed while its callback runs stays on the
 * callback's base.
 *
 * What happens around misuse follows the era and the configuration:
 * add_timer() on a pending timer (BUG_ON in 4.9, WARN_ON_ONCE since 6.1),
 * and an armed timer initialised again (sim_timer_init(): with and without
 * CONFIG_DEBUG_OBJECTS_TIMERS).
 */
#include "machine.h"
#include <linux/timer.h>
#include <linux/sched.h>

#define LVL_CLK_SHIFT	3
#define LVL_BITS	6
#define LVL_SIZE	(1UL << LVL_BITS)
#define LVL_SHIFT(n)	((n) * LVL_CLK_SHIFT)
#define LVL_GRAN(n)	(1UL << LVL_SHIFT(n))
#define LVL_MASK	(LVL_SIZE - 1)
#define LVL_OFFS(n)	((n) * LVL_SIZE)
#define LVL_START(n)	((LVL_SIZE - 1) << (((n) - 1) * LVL_CLK_SHIFT))
#define LVL_DEPTH	(sim.cfg.hz > 100 ? 9 : 8)
#define WHEEL_TIMEOUT_CUTOFF	(LVL_START(LVL_DEPTH))
#define WHEEL_TIMEOUT_MAX	(WHEEL_TIMEOUT_CUTOFF - LVL_GRAN(LVL_DEPTH - 1))

/* calc_wheel_index(): the bucket index, its expiry jiffy and its level. */
static unsigned int wheel_index(unsigned long expires, unsigned long clk,
				unsigned long *bucket_expiry, int *level)
{
	unsigned long delta = expires - clk;
	int lvl;

	if ((long)delta < 0) {
		*level = 0;
		*bucket_expiry = clk;
		return clk & LVL_MASK;
	}
	for (lvl = 0; lvl < LVL_DEPTH - 1; lvl++)
		if (delta < LVL_START(lvl + 1))
			break;
	if (lvl == LVL_DEPTH - 1 && delta >= WHEEL_TIMEOUT_CUTOFF)
		expires = clk + WHEEL_TIMEOUT_MAX;
	*level = lvl;
	/* calc_index(): round up, so that a timer never fires early */
	expires = (expires >> LVL_SHIFT(lvl)) + 1;
	*bucket_expiry = expires << LVL_SHIFT(lvl);
	return LVL_OFFS(lvl) + (expires & LVL_MASK);
}

unsigned long sim_timer_bucket_expiry(unsigned long expires, unsigned long clk, int *level)
{
	unsigned long bucket_expiry;

	wheel_index(expires, clk, &bucket_expiry, level);
	return bucket_expiry;
}

static bool on_some_cpu(const struct timer_list *timer)
{
	struct sim_cpu *c;
	struct timer_list *t;

	for_each_sim_cpu(c)
		list_for_each_entry(t, &c->timers, node)
			if (t == timer)
				return true;
	return false;
}

/*
 * lib/debugobjects.c's report of an active timer initialised again: a WARN
 * from debug_print_object(), at most five a boot, in the words of the era.
 */
static void debug_print_object(const struct timer_list *timer)
{
	static unsigned int boot, count;

	if (boot != sim_boot_seq) {
		boot = sim_boot_seq;
		count = 0;
	}
	if (count++ >= 5)
		return;
	if (sim_era_since(6, 1))	/* 4.9 printed no "object: %p"; 6.1 does */
		sim_report(SIM_F_WARN, SIM_HERE,
			   "ODEBUG: init active (active state 0) object: %016llx object type: "
			   "timer_list hint: %s", (unsigned long long)sim_fake_addr(timer),
			   sim_timer_fn_name(timer));
	else
		sim_report(SIM_F_WARN, SIM_HERE,
			   "ODEBUG: init active (active state 0) object type: timer_list hint: %s",
			   sim_timer_fn_name(timer));
}

/*
 * init_timer_key(): debug_init(), then do_init_timer(). Initialising a
 * timer that is still armed is a misuse the kernel does not prevent; what
 * follows depends on CONFIG_DEBUG_OBJECTS_TIMERS (sim_config's
 * debug_objects):
 *
 * on: debug_object_init() finds the object active, reports it, and
 * timer_fixup_init() deletes the timer (del_timer_sync) before it is set
 * up anew: the old callback never runs.
 *
 * off: do_init_timer() only clears entry.pprev and sets the flags' CPU
 * bits to this CPU. timer_pending() turns false, but the entry stays
 * linked in its wheel bucket, so the callback still runs at the old expiry
 * on the old base; del_timer() and friends, seeing no pending timer, leave
 * it there, and lock_timer_base() now locks this CPU's base, so
 * del_timer_sync() does not wait for that callback running elsewhere.
 * Unlinking a neighbour of the bucket's hlist, or adding one in front of
 * it, writes its pprev again (it is pending once more). Re-arming it while
 * it is still linked would make hlist_add_head() corrupt the wheel: the
 * machine stops there with a finding that says so (wheel_corrupted()).
 */
void sim_timer_init(struct timer_list *timer, void (*func)(struct timer_list *),
		    void (*legacy)(unsigned long), unsigned long data, u32 flags,
		    const struct sim_site *site)
{
	bool armed = sim.cfg.ncpus && timer->queued && on_some_cpu(timer);
	struct timer_list keep = *timer;

	if (armed && sim.cfg.debug_objects) {
		debug_print_object(timer);
		sim_del_timer_sync(timer, site);	/* timer_fixup_init() */
		armed = false;
	}
	*timer = (struct timer_list){ .__TIMER_FN_NEW = func, .__TIMER_FN_LEGACY = legacy,
				      .data = data, .flags = flags & TIMER_INIT_FLAGS };
	timer->done.what = "del_timer_sync";
	timer->base_cpu = sim.cfg.ncpus ? sim_this_cpu() : 0;
	if (armed) {
		timer->node = keep.node;
		timer->queued = true;
		timer->cpu = keep.cpu;
		timer->wheel_expiry = keep.wheel_expiry;
		timer->bucket_expiry = keep.bucket_expiry;
		timer->level = keep.level;
		timer->idx = keep.idx;
		timer->seq = keep.seq;
		timer->expires = keep.expires;
	} else {
		INIT_LIST_HEAD(&timer->node);
	}
	/* left on the wheel or not, it is no longer pending: its entry was reset */
	list_watch(&timer->entry);
	/* a timer set up anew is a new object for the trace, wherever it lives */
	if (sim.cfg.ncpus && !armed)
		sim_fake_addr_new(timer);
}

/* Expiry order of the kernel: by jiffy; at one jiffy higher levels first, then newest first. */
static bool expires_before(const struct timer_list *a, const struct timer_list *b)
{
	if (a->bucket_expiry != b->bucket_expiry)
		return time_before(a->bucket_expiry, b->bucket_expiry);
	if (a->level != b->level)
		return a->level > b->level;
	return a->seq > b->seq;
}

static void tick_event(void *arg)
{
	struct sim_cpu *c = arg;

	c->tick = NULL;
	sim_handover(c, sim.ev_time);
	c->softirq_pending = true;
}

/* A timer softirq is raised on c, or runs there and looks at the list again. */
static bool softirq_will_run(const struct sim_cpu *c)
{
	if (c->softirq_pending)
		return true;
	for (int i = 0; i < c->depth; i++)
		if (c->stack[i] == &c->softirq)
			return true;
	return false;
}

/* Keep one event at the first jiffy boundary where c has a timer due. */
static void rearm_tick(struct sim_cpu *c)
{
	struct timer_list *first;
	uint64_t at;

	first = list_first_entry_or_null(&c->timers, struct timer_list, node);
	at = first ? sim_jiffies_to_ns(first->bucket_expiry) : 0;
	/*
	 * Nothing left; or the first is due and a softirq that will run it is
	 * on its way: a tick now would raise a second, empty softirq, which the
	 * kernel's run_local_timers() never does.
	 */
	if (!first || (at <= c->clock && softirq_will_run(c))) {
		sim_event_cancel(c->tick);
		c->tick = NULL;
		return;
	}
	if (c->tick && c->tick->time == at)
		return;
	sim_event_cancel(c->tick);
	c->tick = sim_event_add(at, tick_event, c, false);
}

/*
 * timer_start and timer_cancel are traced with the timer base's lock held,
 * taken by raw_spin_lock_irqsave() in lock_timer_base() and __mod_timer(),
 * by raw_spin_lock_irq() in __run_timers(): interrupts off and one more
 * preempt count than the caller had ("d..1." from a plain task). Nothing
 * can run in between, so the lock is the state of the one record.
 */
static void trace_base_locked(enum sim_rec_type type, uint64_t a, uint64_t b, uint64_t cc,
			      uint64_t d, const char *s)
{
	struct sim_cpu *c = sim.in_event ? NULL : this_cpu();
	bool irqs = c && c->irqs_disabled;

	if (c) {
		c->irqs_disabled = true;
		c->preempt_count += PREEMPT_OFFSET;
	}
	sim_trace(type, a, b, cc, d, s, NULL);
	if (c) {
		c->preempt_count -= PREEMPT_OFFSET;
		c->irqs_disabled = irqs;
	}
}

/* Two timers in one hlist of the wheel: the same base, the same bucket. */
static bool same_bucket(const struct timer_list *a, const struct timer_list *b)
{
	return a->cpu == b->cpu && a->idx == b->idx && a->wheel_expiry == b->wheel_expiry;
}

/*
 * A timer initialised while armed (debug objects off) still sits in its
 * bucket with a NULL pprev; the hlist writes it again when its predecessor
 * is unlinked (__hlist_del: next->pprev = pprev) or when a timer is added in
 * front of it (hlist_add_head: first->pprev = &n->next). Pending again.
 */
static void rehash_neighbour(struct timer_list *t, const struct timer_list *by)
{
	if (t && t->queued && !timer_pending(t) && same_bucket(t, by))
		t->entry.pprev = &t->entry.next;
}

static struct timer_list *next_on_cpu(struct timer_list *timer)
{
	struct sim_cpu *c = &sim.cpus[timer->cpu];

	if (timer->node.next == &c->timers)
		return NULL;
	return list_entry(timer->node.next, struct timer_list, node);
}

/*
 * As detach_timer(), whose debug_deactivate() traces timer_cancel: on
 * del_timer, on re-arming a pending timer, and just before it expires.
 */
static void detach(struct timer_list *timer)
{
	struct sim_cpu *c = &sim.cpus[timer->cpu];

	rehash_neighbour(next_on_cpu(timer), timer);
	list_del_init(&timer->node);
	timer->queued = false;
	timer->entry.pprev = NULL;
	rearm_tick(c);
	trace_base_locked(REC_TIMER_CANCEL, sim_fake_addr(timer), 0, 0, 0, NULL);
}

/*
 * forward_timer_base(): a base whose clk is behind jiffies catches up, to
 * jiffies, or to its first expiry if one is due and has not run yet; a base
 * ahead of jiffies (its softirq ran this jiffy: __run_timers() leaves clk at
 * the expired jiffy + 1) stays where it is, so a timer armed from a
 * callback counts its delay from jiffies + 1. 4.9 forwarded only an idle
 * base; its busy bases were kept at jiffies + 1 by a softirq on every tick,
 * which the machine does not run (model/README.md, "Timers").
 */
static unsigned long base_clk(struct sim_cpu *c)
{
	unsigned long jnow = sim_jiffies();
	struct timer_list *first = list_first_entry_or_null(&c->timers, struct timer_list, node);

	if (!c->timer_clk_set) {
		c->timer_clk = jnow;
		c->timer_clk_set = true;
	}
	if (time_before_eq(jnow, c->timer_clk))
		return c->timer_clk;
	if (!first || time_after(first->wheel_expiry, jnow))
		c->timer_clk = jnow;
	else if (!time_before(first->wheel_expiry, c->timer_clk))
		c->timer_clk = first->wheel_expiry;
	return c->timer_clk;
}

static void enqueue(struct timer_list *timer, unsigned long expires, struct sim_cpu *c)
{
	unsigned long next_tick = sim_jiffies() + 1;
	struct list_head *pos;

	timer->expires = expires;
	timer->idx = wheel_index(expires, base_clk(c), &timer->wheel_expiry, &timer->level);
	timer->bucket_expiry = timer->wheel_expiry;
	/* this jiffy's tick is behind us: the earliest it can run is the next one */
	if (time_before(timer->bucket_expiry, next_tick))
		timer->bucket_expiry = next_tick;
	timer->seq = sim.next_timer_seq++;
	timer->cpu = c->id;
	timer->base_cpu = c->id;
	timer->queued = true;
	timer->entry.pprev = &timer->entry.next;	/* hashed: pending */
	list_for_each(pos, &c->timers)
		if (expires_before(timer, list_entry(pos, struct timer_list, node)))
			break;
	if (pos != &c->timers)
		rehash_neighbour(list_entry(pos, struct timer_list, node), timer);
	list_add_tail(&timer->node, pos);
	rearm_tick(c);
	if (sim.cfg.on_rf)
		sim_rf_write(timer, sim_rf_here());
	trace_base_locked(REC_TIMER_START, sim_fake_addr(timer), expires, timer->bucket_expiry,
			  (timer->flags | (u64)c->id) | (u64)timer->idx << 32, sim_timer_fn_name(timer));
}

/*
 * timers_dead_cpu() (kernel/time/timer.c:2697 in 6.12, :2248 in 6.1), run
 * by the CPU that takes another down, after it died: forward_timer_base()
 * on its own base, then migrate_timer_list() bucket by bucket: each timer
 * is detached (timer_cancel), its flags get the new CPU, and
 * internal_add_timer() hashes it at the same expiry against the new base's
 * clk (timer_start). Its callback then runs on this CPU. 6.12 does it for
 * each of its bases (local, global, deferrable), which are one list here.
 * The kernel walks a bucket from its head, newest first, and adds each to
 * the head of its new bucket: the order reverses, as it does here.
 */
void sim_timers_dead_cpu(struct sim_cpu *dead)
{
	struct sim_cpu *to = this_cpu();

	sim_footprint_touch(SIM_FP_TIMERS, true);
	while (!list_empty(&dead->timers)) {
		struct timer_list *t = list_first_entry(&dead->timers, struct timer_list, node);

		detach(t);
		enqueue(t, t->expires, to);
	}
	dead->softirq_pending = false;
}

/*
 * timers_prepare_cpu(): base->clk = jiffies when the CPU comes up, no
 * softirq pending. A timer add_timer_on() put on the base while the CPU was
 * down is still in its bucket, and is due from now on.
 */
void sim_timers_prepare_cpu(struct sim_cpu *c)
{
	c->timer_clk_set = false;
	c->softirq_pending = false;
	c->running_timer = NULL;
	rearm_tick(c);
}

static const struct sim_site enqueue_site = { __FILE__, __LINE__, "enqueue_timer" };

/*
 * Arming a timer that is still linked in a bucket though not pending (see
 * sim_timer_init()): hlist_add_head() would link it into a second list
 * while the first still points at it. The kernel goes on with a corrupted
 * wheel (timers lost or run from the wrong base); the machine does not
 * follow it there, and stops.
 */
static void __attribute__((noreturn)) wheel_corrupted(const struct timer_list *timer)
{
	sim_report(SIM_F_BUG, &enqueue_site,
		   "timer wheel corrupted: %s re-armed while still linked in cpu%d's wheel "
		   "(initialised while armed, CONFIG_DEBUG_OBJECTS_TIMERS off); the machine stops "
		   "here", sim_timer_fn_name(timer), timer->cpu);
	sim_halt(SIM_END_FATAL);
	sim_exit_ctx();		/* the machine has halted: nothing is chosen again */
	__builtin_unreachable();
}

/*
 * __mod_timer()'s shortcut: a pending timer re-armed for the same expiry, or
 * for one that lands in the bucket it is in, stays where it is, keeps its
 * place among the timers of that bucket, and traces nothing.
 */
static bool modify_in_place(struct timer_list *timer, unsigned long expires)
{
	unsigned long bucket_expiry;
	int level;

	if (!timer_pending(timer) || !timer->queued)
		return false;
	if (timer->expires == expires)
		return true;
	if (wheel_index(expires, base_clk(&sim.cpus[timer->cpu]), &bucket_expiry, &level) !=
	    timer->idx)
		return false;
	timer->expires = expires;
	return true;
}

/*
 * __mod_timer(): detach if pending, then enqueue on this CPU's base, unless
 * the callback of the timer runs on its base right now: then it stays on
 * that base, so that del_timer_sync() still finds it running there.
 */
/*
 * Since 6.1 (timer_shutdown(), upstream 6.2, in Debian's 6.1.192 by its
 * stable backport: kernel/time/timer.c:1052, :1086, :1279; 6.12 :1104,
 * :1138) a timer without a callback is one that was shut down: arming it
 * does nothing. 4.9 arms it, and its expiry calls NULL.
 */
static bool shut_down(const struct timer_list *timer)
{
	return sim_era_since(6, 1) && !timer->function && !timer->legacy_function;
}

static int timer_modify(struct timer_list *timer, unsigned long expires, bool pending_only)
{
	struct sim_cpu *base, *new_base;
	int ret;

	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	/*
	 * get_target_base() under the base lock: the CPU after the point, which
	 * may have pushed the task off a CPU going down (hotplug.c).
	 */
	new_base = this_cpu();
	sim_footprint_touch(SIM_FP_TIMERS, true);
	/* __mod_timer()'s unlocked fast path comes before the shutdown check */
	if (shut_down(timer) && !(timer_pending(timer) && timer->expires == expires))
		return 0;
	if (modify_in_place(timer, expires))
		return 1;
	ret = timer_pending(timer);
	if (pending_only && !ret)
		return 0;
	if (!ret && timer->queued)
		wheel_corrupted(timer);
	if (ret)
		detach(timer);
	base = &sim.cpus[timer->base_cpu];
	if (base != new_base && base->running_timer == timer)
		new_base = base;
	enqueue(timer, expires, new_base);
	return ret;
}

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	return timer_modify(timer, expires, false);
}

int mod_timer_pending(struct timer_list *timer, unsigned long expires)
{
	return timer_modify(timer, expires, true);
}

int timer_reduce(struct timer_list *timer, unsigned long expires)
{
	if (timer_pending(timer) && !time_before(expires, timer->expires))
		return 1;
	return timer_modify(timer, expires, false);
}

/*
 * A pending timer added again: 4.9's BUG_ON stops the kernel; since 6.1
 * ("timers: Replace BUG_ON()s") it is a WARN_ON_ONCE and the call returns,
 * leaving the timer armed for its old expiry.
 */
void add_timer(struct timer_list *timer)
{
	if (sim_era_since(6, 1)) {
		if (WARN_ON_ONCE(timer_pending(timer)))
			return;
	} else {
		BUG_ON(timer_pending(timer));
	}
	mod_timer(timer, timer->expires);
}

void add_timer_on(struct timer_list *timer, int cpu)
{
	if (sim_era_since(6, 1)) {
		if (WARN_ON_ONCE(timer_pending(timer)))
			return;
	} else {
		BUG_ON(timer_pending(timer));
	}
	/* since 6.9 (the timer migration hierarchy) add_timer_on() pins the timer */
	if (sim_era_since(6, 9))
		timer->flags |= TIMER_PINNED;
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	sim_footprint_touch(SIM_FP_TIMERS, true);
	if (shut_down(timer))
		return;
	if (timer->queued)
		wheel_corrupted(timer);
	enqueue(timer, timer->expires, &sim.cpus[cpu]);
}

int del_timer(struct timer_list *timer)
{
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	sim_footprint_touch(SIM_FP_TIMERS, true);
	if (!timer_pending(timer))
		return 0;
	detach(timer);
	return 1;
}

/* lock_timer_base() locks the base the flags name; its running_timer is what counts. */
static bool callback_running(const struct timer_list *timer)
{
	return sim.cpus[timer->base_cpu].running_timer == timer;
}

int try_to_del_timer_sync(struct timer_list *timer)
{
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	sim_footprint_touch(SIM_FP_TIMERS, true);
	if (callback_running(timer))
		return -1;
	if (!timer_pending(timer))
		return 0;
	detach(timer);
	return 1;
}

/*
 * The timer's lockdep map (CONFIG_LOCKDEP, every era): call_timer_fn()
 * holds it around the callback and del_timer_sync() takes and drops it
 * with interrupts off, so waiting for a callback that takes L while holding
 * L is an order inversion lockdep reports from any run, before a run where
 * it deadlocks (6.1 kernel/time/timer.c:1556 in __timer_delete_sync and
 * :1698 in call_timer_fn; 6.12 :1650, :1792; 4.9 alike). The kernel's
 * class is the timer_setup() site's; the machine's is the callback's (its
 * registered name is the key) with TIMER_IRQSAFE as the subclass, since a
 * site sets both: the same for the timers of one site, and few however
 * many timers a run makes.
 */
static struct sim_lock *timer_map(struct timer_list *timer)
{
	const char *fn = sim_timer_fn_name(timer);
	unsigned int irqsafe = !!(timer->flags & TIMER_IRQSAFE);

	/* by the key: the name is the interned copy of fn (sim_lockdep_set_class()) */
	if (timer->lockdep_map.key != (struct lock_class_key *)fn ||
	    timer->lockdep_map.subclass != irqsafe) {
		sim_lockdep_set_class(&timer->lockdep_map, (struct lock_class_key *)fn, fn);
		timer->lockdep_map.subclass = irqsafe;
	}
	return &timer->lockdep_map;
}

int sim_del_timer_sync(struct timer_list *timer, const struct sim_site *site)
{
	struct sim_cpu *c = this_cpu();
	bool irqs_disabled = c->irqs_disabled;
	int ret;

	c->irqs_disabled = true;	/* local_irq_save() around the map */
	sim_lockdep_acquire(timer_map(timer), site);
	sim_lockdep_acquired(timer_map(timer), site);
	sim_lockdep_release(timer_map(timer), site);
	c->irqs_disabled = irqs_disabled;
	/* Waiting in irq context for a timer that is not irqsafe can deadlock. */
	if (in_irq() && !(timer->flags & TIMER_IRQSAFE))
		sim_warn(site, "WARN_ON", "in_irq() && !(timer->flags & TIMER_IRQSAFE)");
	for (;;) {
		ret = try_to_del_timer_sync(timer);
		if (ret >= 0)
			return ret;
		timer->done.obj = timer;
		sim_spin_wait(&timer->done);
	}
}

static const struct sim_site call_timer_fn_site = { __FILE__, __LINE__, "call_timer_fn" };
static const struct sim_site null_callback_site_6x = { __FILE__, __LINE__, "expire_timers" };

/*
 * A shut-down timer that is pending all the same (its callback cleared
 * while armed): since 6.1 expire_timers() warns once and skips it, no
 * call_timer_fn(), no tracepoints ("Should never happen"; 6.1
 * kernel/time/timer.c:1739, 6.12 :1833).
 */
static bool expire_shut_down(struct timer_list *timer)
{
	static unsigned int warned;

	if (!shut_down(timer))
		return false;
	if (__SIM_FIRST_THIS_BOOT(warned))
		sim_warn(&null_callback_site_6x, "WARN_ON_ONCE", "!fn");
	sim_point(sim.cfg.costs.timer_op, POINT_ATOMIC);
	return true;
}

void sim_run_timer_softirq(struct sim_cpu *c)
{
	unsigned long now = sim_ns_to_jiffies(c->clock);

	while (!list_empty(&c->timers)) {
		struct timer_list *timer = list_first_entry(&c->timers, struct timer_list, node);
		bool irqsafe = timer->flags & TIMER_IRQSAFE;
		unsigned long baseclk = timer->bucket_expiry;
		unsigned int count = c->preempt_count;

		if (time_after(timer->bucket_expiry, now))
			break;
		/* __run_timers(): base->clk++ before the bucket's callbacks run */
		if (!c->timer_clk_set || time_after(timer->wheel_expiry + 1, c->timer_clk)) {
			c->timer_clk = timer->wheel_expiry + 1;
			c->timer_clk_set = true;
		}
		detach(timer);
		if (expire_shut_down(timer)) {
			now = sim_ns_to_jiffies(c->clock);
			continue;
		}
		c->running_timer = timer;
		c->irqs_disabled = irqsafe;
		sim_trace(REC_TIMER_EXPIRE_ENTRY, sim_fake_addr(timer), now, baseclk, 0,
			  sim_timer_fn_name(timer), NULL);
		/* the callback reads what its arming wrote: named by the callback */
		if (sim.cfg.on_rf)
			sim_rf_read(timer, sim_site_at(__FILE__, 0, sim_timer_fn_name(timer)),
				    SIM_RF_TIMER);
		sim_lockdep_acquire(timer_map(timer), &call_timer_fn_site);
		sim_lockdep_acquired(timer_map(timer), &call_timer_fn_site);
		if (timer->function)
			timer->function(timer);
		else if (timer->legacy_function)
			timer->legacy_function(timer->data);
		else	/* call_timer_fn() would jump to NULL: an oops */
			sim_bug(&call_timer_fn_site, "timer->function == NULL");
		sim_lockdep_release(timer_map(timer), &call_timer_fn_site);
		sim_trace(REC_TIMER_EXPIRE_EXIT, sim_fake_addr(timer), 0, 0, 0, NULL, NULL);
		/* as call_timer_fn(): report a preempt count leak, then repair it */
		sim_lockdep_context_end_count("timer callback", sim_timer_fn_name(timer), count);
		c->preempt_count = count;
		c->irqs_disabled = false;
		c->running_timer = NULL;
		sim_spin_release(&timer->done);
		sim_point(sim.cfg.costs.timer_op, POINT_ATOMIC);
		now = sim_ns_to_jiffies(c->clock);
	}
}

const char *sim_timer_fn_name(const struct timer_list *timer)
{
	const void *fn = timer->function ? (const void *)timer->function
					 : (const void *)timer->legacy_function;

	return sim_symbol(fn);
}
