/*
 * The fair class's two preemption rules, era by era: when the scheduler
 * tick takes the CPU from a task while others wait (task_tick_fair), and
 * whether a woken task preempts the running one (wakeup_preempt's usual
 * answer; task.c makes it a decision). The machine's tasks are nice-0
 * fair tasks of one weight on per-CPU FIFO run queues, so virtual time is
 * run time and only the little state these rules read is kept: for 6.6+
 * (EEVDF) how much of its request each task has used, for 4.9 and 6.1 (CFS)
 * each waiting task's vruntime against the run queue's min_vruntime when it
 * was queued. Ticks fall on jiffy boundaries; a task has run since it was
 * switched in (c->slice_start).
 *
 * The tunables are the kernels' defaults, scaled by update_sysctl() for the
 * CPUs the machine has (SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(cpus, 8))):
 * 6.12 sysctl_sched_base_slice 0.7 ms (kernel/sched/fair.c:76); 6.1 and 4.9
 * sysctl_sched_latency 6 ms, sysctl_sched_min_granularity 0.75 ms,
 * sysctl_sched_wakeup_granularity 1 ms, sched_nr_latency 8 (6.1
 * kernel/sched/fair.c:72-125).
 */
#include "machine.h"

#define MS 1000000ULL

static uint64_t scaled(uint64_t ns)
{
	unsigned int cpus = sim.cfg.ncpus < 8 ? (unsigned int)sim.cfg.ncpus : 8, factor = 1;

	while (cpus >>= 1)
		factor++;
	return ns * factor;
}

/* EEVDF came with 6.6 ("sched/fair: Implement an EEVDF-like scheduling policy"). */
static bool eevdf(void)
{
	return sim_era_since(6, 6);
}

uint64_t sim_fair_base_slice(void)
{
	return scaled(7 * MS / 10);
}

/* The first tick at or after t, as a jiffy count. */
static unsigned long tick_at_or_after(uint64_t t)
{
	unsigned long j = sim_ns_to_jiffies(t);

	return sim_jiffies_to_ns(j) < t ? j + 1 : j;
}

/* --- EEVDF (6.6+) --------------------------------------------------------------------- */

/*
 * When curr's vruntime reaches its deadline: it was switched in with
 * curr->slice_used of its request gone (deadline - vruntime = slice - used,
 * at one weight).
 */
static uint64_t eevdf_deadline(const struct sim_cpu *c)
{
	return c->slice_start + sim_fair_base_slice() - c->curr->slice_used;
}

/*
 * update_curr() renews the deadline at the first tick at or after it
 * (update_deadline, 6.12 fair.c:1022), and then every 'm' ticks, the
 * fewest that hold a whole slice: a new deadline is a slice after the tick
 * that set it. The n-th renewal (from 0) is at jiffy r1 + n * m.
 */
static unsigned long renewal_ticks(void)
{
	uint64_t m = (sim_fair_base_slice() * sim.cfg.hz + 999999999ULL) / 1000000000ULL;

	return m ? (unsigned long)m : 1;
}

/* The first renewal at or after t of a request with this deadline, as a time. */
static uint64_t eevdf_renewal_from(uint64_t deadline, uint64_t t)
{
	unsigned long r1 = tick_at_or_after(deadline), m = renewal_ticks(), j;

	j = tick_at_or_after(t);
	if (j <= r1)
		return sim_jiffies_to_ns(r1);
	return sim_jiffies_to_ns(r1 + (j - r1 + m - 1) / m * m);
}

/*
 * The tick reschedules only at a renewal with another task queued
 * (update_curr: resched = update_deadline(); nothing when nr_running is 1):
 * so at HZ=1000 a task keeps the CPU up to ceil(slice) ticks, 2 with two
 * CPUs' 1.4 ms slice. Asked at every scheduling point of a CPU with a task
 * waiting, with the same deadline and waiter until one of them changes, so
 * the answer is kept: its arithmetic (a dozen 64-bit divisions) was a fifth
 * of a livelocked worker's run.
 */
static uint64_t eevdf_tick_due(struct sim_cpu *c, uint64_t queued)
{
	uint64_t deadline = eevdf_deadline(c);

	if (!c->tick_due.valid || c->tick_due.deadline != deadline || c->tick_due.queued != queued) {
		c->tick_due.deadline = deadline;
		c->tick_due.queued = queued;
		c->tick_due.due = eevdf_renewal_from(deadline, queued);
		c->tick_due.valid = true;
	}
	return c->tick_due.due;
}

/*
 * check_preempt_wakeup_fair (6.12 fair.c:8865): with RUN_TO_PARITY the
 * running task keeps the CPU while its deadline is the one it was picked
 * with (protect_slice); once update_curr() has renewed it (here, at the
 * wake-up's own update_curr) a wakee that slept with zero lag has the
 * earlier deadline (place_entity) and preempts.
 */
static bool eevdf_wakeup_preempt(const struct sim_cpu *c, uint64_t now)
{
	return now >= eevdf_deadline(c);
}

/*
 * put_prev_entity's update_curr(): how much of its request prev has used
 * at 'now', when it leaves the CPU still runnable; a renewal due by then
 * (at a tick, or at this update) starts a new one.
 */
static void eevdf_put_prev(const struct sim_cpu *c, struct task_struct *prev, uint64_t now)
{
	uint64_t deadline = eevdf_deadline(c), last;

	if (now < deadline) {
		prev->slice_used += now - c->slice_start;
		return;
	}
	prev->slice_used = 0;
	if (sim_jiffies_to_ns(tick_at_or_after(deadline)) > now)
		return;
	/* the last renewal at or before now */
	last = eevdf_renewal_from(deadline, now);
	if (last > now) {
		unsigned long j = sim_ns_to_jiffies(last) - renewal_ticks();

		last = sim_jiffies_to_ns(j);
	}
	if (now - last < sim_fair_base_slice())
		prev->slice_used = now - last;
}

/* --- CFS (4.9, 6.1) ------------------------------------------------------------------- */

/* sched_slice() at one weight: __sched_period(nr) / nr, at least min_granularity (BASE_SLICE). */
static uint64_t cfs_ideal_runtime(unsigned int nr)
{
	uint64_t latency = scaled(6 * MS), min_gran = scaled(3 * MS / 4);
	uint64_t period = nr > 8 ? nr * min_gran : latency;

	return period / nr > min_gran ? period / nr : min_gran;
}

/* How far curr's vruntime is ahead of a waiting task's at time t. */
static int64_t cfs_lead(const struct sim_cpu *c, const struct task_struct *w, uint64_t t)
{
	uint64_t since = w->queued_at > c->slice_start ? w->queued_at : c->slice_start;

	return w->vlead + (int64_t)(t > since ? t - since : 0);
}

/*
 * check_preempt_tick (6.1 fair.c:4910; 4.9 the same): the first tick at
 * which curr has run more than its ideal runtime, or at least
 * min_granularity while the leftmost waiting task's vruntime trails its own
 * by more than the ideal runtime.
 */
static uint64_t cfs_tick_due(const struct sim_cpu *c, uint64_t queued, unsigned int nr)
{
	uint64_t ideal = cfs_ideal_runtime(nr), min_gran = scaled(3 * MS / 4);
	uint64_t due = sim_jiffies_to_ns(tick_at_or_after(c->slice_start + ideal + 1));
	const struct task_struct *w;

	list_for_each_entry(w, &c->runqueue, run_node) {
		uint64_t since = w->queued_at > c->slice_start ? w->queued_at : c->slice_start;
		uint64_t t = c->slice_start + min_gran;
		int64_t need = (int64_t)ideal + 1 - w->vlead;

		if (need > 0 && since + (uint64_t)need > t)
			t = since + (uint64_t)need;
		if (w->queued_at > t)
			t = w->queued_at;
		t = sim_jiffies_to_ns(tick_at_or_after(t));
		if (t < due)
			due = t;
	}
	return due > queued ? due : sim_jiffies_to_ns(tick_at_or_after(queued));
}

/*
 * How far c's min_vruntime has come by t, taken as the time tasks ran on c:
 * at one weight a lone task's vruntime is its run time, and min_vruntime
 * follows the running task (it advances slower with several runnable,
 * which the machine does not count).
 */
static uint64_t cpu_vtime(const struct sim_cpu *c, uint64_t t)
{
	if ((c->curr->flags & PF_IDLE) || t < c->slice_start)
		return c->fair_vtime;
	return c->fair_vtime + (t - c->slice_start);
}

/*
 * place_entity (6.1 fair.c:4649): a task that slept is placed at
 * min_vruntime less half a latency (GENTLE_FAIR_SLEEPERS) or at its own
 * vruntime if later: it trails by what min_vruntime of the CPU it slept on
 * advanced meanwhile (migrate_task_rq_fair carries it over relative to
 * min_vruntime), at most half a latency. A task that never ran starts a
 * vslice ahead (START_DEBIT).
 */
static int64_t cfs_vlead(const struct sim_cpu *c, const struct task_struct *p, uint64_t now)
{
	uint64_t half = scaled(6 * MS) / 2, slept;
	unsigned int nr = 2;	/* curr, and p itself */
	const struct task_struct *w;

	if (!p->nr_switches) {
		list_for_each_entry(w, &c->runqueue, run_node)
			nr++;
		return -(int64_t)(scaled(6 * MS) / nr);
	}
	slept = cpu_vtime(&sim.cpus[p->cpu], now);
	slept = slept > p->slept_vtime ? slept - p->slept_vtime : 0;
	return (int64_t)(slept < half ? slept : half);
}

/*
 * check_preempt_wakeup / wakeup_preempt_entity (6.1 fair.c:7618): the wakee
 * preempts when curr's vruntime leads its own by more than the wakeup
 * granularity. curr leads min_vruntime by the lead it has over the
 * leftmost task already waiting, if any.
 */
static bool cfs_wakeup_preempt(const struct sim_cpu *c, const struct task_struct *p,
			       uint64_t now)
{
	int64_t curr_lead = 0;
	const struct task_struct *w;

	list_for_each_entry(w, &c->runqueue, run_node)
		if (w != p && cfs_lead(c, w, now) > curr_lead)
			curr_lead = cfs_lead(c, w, now);
	return curr_lead + p->vlead > (int64_t)scaled(MS);
}

/* --- the rules, as the machine asks them -------------------------------------------- */

void sim_fair_enqueue(struct sim_cpu *c, struct task_struct *p, bool woken, uint64_t now)
{
	p->queued_at = now;
	if (eevdf()) {
		if (woken)	/* place_entity: a new request */
			p->slice_used = 0;
		return;
	}
	/* a preempted task was curr: min_vruntime followed it */
	p->vlead = woken ? cfs_vlead(c, p, now) : 0;
}

void sim_fair_put_prev(struct sim_cpu *c, struct task_struct *prev, bool preempted)
{
	if (eevdf() && preempted)
		eevdf_put_prev(c, prev, c->clock);
	c->fair_vtime = cpu_vtime(c, c->clock);
	if (!preempted)
		prev->slept_vtime = c->fair_vtime;
}

bool sim_fair_wakeup_preempt(const struct sim_cpu *c, const struct task_struct *p, uint64_t now)
{
	return eevdf() ? eevdf_wakeup_preempt(c, now) : cfs_wakeup_preempt(c, p, now);
}

bool sim_fair_tick_resched(struct sim_cpu *c)
{
	const struct task_struct *w;
	uint64_t queued = UINT64_MAX;
	unsigned int nr = 1;

	list_for_each_entry(w, &c->runqueue, run_node) {
		nr++;
		if (w->queued_at < queued)
			queued = w->queued_at;
	}
	if (nr == 1)
		return false;
	return c->clock >= (eevdf() ? eevdf_tick_due(c, queued) : cfs_tick_due(c, queued, nr));
}
