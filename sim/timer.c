/*
 * Timers. Each CPU keeps its armed timers ordered as the kernel's wheel
 * expires them, and one event for the jiffy at which the earliest is due;
 * that event raises the timer softirq, which runs the expired callbacks in
 * softirq context of the arming CPU, once that CPU has interrupts enabled.
 *
 * The expiry jiffy follows kernel/time/timer.c's calc_wheel_index(): the
 * level is picked by the distance from the base clock, and the expiry is
 * rounded up to the next granule of that level, so a timer never fires early
 * and may fire late by up to one granule. The base clock is jiffies, the
 * one global counter (a base that has caught up, as forward_timer_base
 * leaves it), whatever the target CPU's own clock says.
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
 * Initialising a timer that is still armed is a misuse the kernel does not
 * prevent: the entry is unhashed (timer_pending() turns false) but the wheel
 * still holds the timer, so it fires all the same. CONFIG_DEBUG_OBJECTS
 * reports it; so do we, and we keep the machine's list intact.
 */
void sim_timer_init(struct timer_list *timer, void (*func)(struct timer_list *),
		    void (*legacy)(unsigned long), unsigned long data, u32 flags,
		    const struct sim_site *site)
{
	bool armed = sim.cfg.ncpus && timer->queued && on_some_cpu(timer);
	struct timer_list keep = *timer;

	if (armed)
		sim_report(SIM_F_WARN, site,
			   "ODEBUG: init active (active state 0) object type: timer_list hint: %s",
			   sim_timer_fn_name(timer));
	*timer = (struct timer_list){ .__TIMER_FN_NEW = func, .__TIMER_FN_LEGACY = legacy,
				      .data = data, .flags = flags & TIMER_INIT_FLAGS };
	timer->done.what = "del_timer_sync";
	if (armed) {
		timer->node = keep.node;
		timer->queued = true;
		timer->cpu = keep.cpu;
		timer->bucket_expiry = keep.bucket_expiry;
		timer->level = keep.level;
		timer->idx = keep.idx;
		timer->seq = keep.seq;
		timer->expires = keep.expires;
	} else {
		INIT_LIST_HEAD(&timer->node);
	}
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

/*
 * As detach_timer(), whose debug_deactivate() traces timer_cancel: on
 * del_timer, on re-arming a pending timer, and just before it expires.
 */
static void detach(struct timer_list *timer)
{
	struct sim_cpu *c = &sim.cpus[timer->cpu];

	list_del_init(&timer->node);
	timer->queued = false;
	timer->entry.pprev = NULL;
	rearm_tick(c);
	trace_base_locked(REC_TIMER_CANCEL, sim_fake_addr(timer), 0, 0, 0, NULL);
}

static void enqueue(struct timer_list *timer, unsigned long expires, struct sim_cpu *c)
{
	unsigned long clk = sim_jiffies();
	unsigned long next_tick = clk + 1;
	struct list_head *pos;

	timer->expires = expires;
	timer->idx = wheel_index(expires, clk, &timer->bucket_expiry, &timer->level);
	/* this jiffy's tick is behind us: the earliest it can run is the next one */
	if (time_before(timer->bucket_expiry, next_tick))
		timer->bucket_expiry = next_tick;
	timer->seq = sim.next_timer_seq++;
	timer->cpu = c->id;
	timer->queued = true;
	timer->entry.pprev = &timer->entry.next;	/* hashed: pending */
	list_for_each(pos, &c->timers)
		if (expires_before(timer, list_entry(pos, struct timer_list, node)))
			break;
	list_add_tail(&timer->node, pos);
	rearm_tick(c);
	trace_base_locked(REC_TIMER_START, sim_fake_addr(timer), expires, timer->bucket_expiry,
			  (timer->flags | (u64)c->id) | (u64)timer->idx << 32, sim_timer_fn_name(timer));
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
	if (wheel_index(expires, sim_jiffies(), &bucket_expiry, &level) != timer->idx)
		return false;
	timer->expires = expires;
	return true;
}

static int timer_modify(struct timer_list *timer, unsigned long expires, bool pending_only)
{
	int ret;

	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	if (modify_in_place(timer, expires))
		return 1;
	ret = timer_pending(timer);
	if (pending_only && !ret)
		return 0;
	if (timer->queued)
		detach(timer);
	enqueue(timer, expires, this_cpu());
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

void add_timer(struct timer_list *timer)
{
	BUG_ON(timer_pending(timer));
	mod_timer(timer, timer->expires);
}

void add_timer_on(struct timer_list *timer, int cpu)
{
	BUG_ON(timer_pending(timer));
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	if (timer->queued)
		detach(timer);
	enqueue(timer, timer->expires, &sim.cpus[cpu]);
}

int del_timer(struct timer_list *timer)
{
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	if (!timer_pending(timer))
		return 0;
	detach(timer);
	return 1;
}

static bool callback_running(const struct timer_list *timer)
{
	const struct sim_cpu *c;

	for_each_sim_cpu(c)
		if (c->running_timer == timer)
			return true;
	return false;
}

int try_to_del_timer_sync(struct timer_list *timer)
{
	sim_point(sim.cfg.costs.timer_op, POINT_PLAIN);
	if (callback_running(timer))
		return -1;
	if (!timer_pending(timer))
		return 0;
	detach(timer);
	return 1;
}

int sim_del_timer_sync(struct timer_list *timer, const struct sim_site *site)
{
	int ret;

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

static const struct sim_site null_callback_site = { __FILE__, __LINE__, "call_timer_fn" };

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
		detach(timer);
		c->running_timer = timer;
		c->irqs_disabled = irqsafe;
		sim_trace(REC_TIMER_EXPIRE_ENTRY, sim_fake_addr(timer), now, baseclk, 0,
			  sim_timer_fn_name(timer), NULL);
		if (timer->function)
			timer->function(timer);
		else if (timer->legacy_function)
			timer->legacy_function(timer->data);
		else	/* call_timer_fn() would jump to NULL: an oops */
			sim_bug(&null_callback_site, "timer->function == NULL");
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
