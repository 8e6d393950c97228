/*
 * Stalls: a stall only delays. A CPU held up for d ns at a point has its
 * clock moved d ns on and runs nothing meanwhile; everything it sends
 * afterwards carries the later clock, so no effect comes before its cause.
 *
 * What it models is what holds a CPU up from outside the code it runs: a
 * long interrupt or softirq (a network or block handler's burst), an
 * interrupt storm, a vCPU its hypervisor preempted (steal time), an SMI.
 * It falls where an interrupt could, and only there: at a scheduling point
 * of a CPU whose interrupts are on (a task, a softirq, an idle CPU about to
 * switch in a woken task; a spinlock section taken with spin_lock() too,
 * as an interrupt comes in there). With interrupts off (a hardirq handler,
 * spin_lock_irqsave() sections, a TIMER_IRQSAFE callback) it does not: an
 * SMI or a preempted vCPU could hold such a CPU up too, but the kernel's
 * own code assumes those sections short, and letting them stretch would
 * make findings (soft lockups, "spinning" for ms) that only a host's
 * misbehaviour explains. The same holds for a CPU that spins or busy-waits
 * where no interrupt comes.
 *
 * What the kernel's detectors see is what they would after such an
 * interrupt: the soft-lockup watchdog (kernel/watchdog.c) counts from when
 * the CPU last scheduled, and an interrupt keeps its stopper thread off
 * the CPU, so a stall that ends past the CPU's soft-lockup time is
 * reported as watchdog_timer_fn() would report it, whatever the preemption
 * model; a hung-task check or a freezer's timeout sees the time pass as it
 * passes. With stalls bounded by a few ms (the default) neither ever fires
 * from a stall alone.
 *
 * The question (struct sim_question, SIM_WHY_STALL) offers durations a
 * strategy can aim with: just long enough that another ready CPU's clock
 * passes this one's (k may then go first), until just after the next
 * pending event (a timer's tick, an interrupt, a program's start), and a
 * fixed ladder (10 us, 100 us, 1 ms, ... the bound), each capped at
 * cfg.stall_ns. A CPU is asked once per time it is picked: held up, it is
 * not asked again until it has been entered, so stalls never loop.
 */
#include "machine.h"

#include <assert.h>
#include <stdio.h>

/* 1 + every other CPU + the next event + the ladder, 10 us .. 100 s, and the bound */
#define STALL_MAX (1 + SIM_MAX_CPUS + 1 + 8)

/* The question's arrays, written once, in their order. */
struct stall_q {
	unsigned int n;
	uint64_t durations[STALL_MAX];
	int until[STALL_MAX];
	int ids[STALL_MAX];
	const struct sim_site *sites[STALL_MAX];
};

/* The other CPUs' and the next event's durations, ascending, before the ladder joins them. */
struct stall_offers {
	unsigned int n;
	uint64_t durations[SIM_MAX_CPUS + 1];
	int until[SIM_MAX_CPUS + 1];
	const struct sim_site *sites[SIM_MAX_CPUS + 1];	/* with a chooser: where until[i] stands */
};

static const struct sim_site *site_of(const struct sim_cpu *c)
{
	const struct sim_ctx *x = top_ctx((struct sim_cpu *)c);

	return x ? x->at : NULL;
}

/*
 * Add a candidate in order of duration; of two with the same duration the
 * first added stays (a CPU's before the event's). Inline: gcc called it,
 * at a sixth of the question's cost.
 */
static inline __attribute__((always_inline))
void offer(struct stall_offers *o, uint64_t d, int until, const struct sim_site *site)
{
	unsigned int i;

	if (d > sim.cfg.stall_ns)
		d = sim.cfg.stall_ns;
	if (!d)
		return;
	for (i = o->n; i > 0 && o->durations[i - 1] > d; i--)
		;
	if (i > 0 && o->durations[i - 1] == d)
		return;
	/* a handful of entries, most offers at the end: a loop, not two memmove calls */
	for (unsigned int j = o->n; j > i; j--) {
		o->durations[j] = o->durations[j - 1];
		o->until[j] = o->until[j - 1];
		o->sites[j] = o->sites[j - 1];
	}
	o->durations[i] = d;
	o->until[i] = until;
	o->sites[i] = site;
	o->n++;
}

/*
 * The question of c: candidate 0 (not held), then the offers merged with
 * the ladder's rungs below the bound and the bound, each SIM_STALL_FIXED
 * (the rungs at or past the bound would be capped to it: offered once).
 * The same as offering each rung in turn after the CPUs and the event, as
 * their order is kept and the rungs ascend; of an offer and a rung of the
 * same duration the offer stays. Written straight into the question's
 * arrays, ids and (for a chooser) sites with them: a copy of each array
 * was a fifth of the question's cost.
 */
static void build(struct stall_q *s, const struct stall_offers *o, const struct sim_cpu *c)
{
	static const uint64_t ladder[] = {
		10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
		1000000000ULL, 10000000000ULL, 100000000000ULL,
	};
	/* the rungs below the bound, then the bound: made again only when the bound changes */
	static uint64_t rungs[sizeof(ladder) / sizeof(ladder[0]) + 1], rungs_bound;
	static unsigned int nrungs;
	unsigned int r = 0, i = 0, n = 1;

	if (rungs_bound != sim.cfg.stall_ns || !nrungs) {
		rungs_bound = sim.cfg.stall_ns;
		for (nrungs = 0; nrungs < sizeof(ladder) / sizeof(ladder[0]) &&
				 ladder[nrungs] < rungs_bound; nrungs++)
			rungs[nrungs] = ladder[nrungs];
		rungs[nrungs++] = rungs_bound;
	}
	s->durations[0] = 0;
	s->until[0] = c->id;
	s->ids[0] = c->id;
	s->sites[0] = sim.cfg.chooser ? site_of(c) : NULL;	/* only a chooser reads them */
	/* every offer is at most the bound, the last rung: all are taken by the time it is */
	while (r < nrungs) {
		if (i < o->n && o->durations[i] <= rungs[r]) {
			r += o->durations[i] == rungs[r];	/* the first offered stays */
			s->durations[n] = o->durations[i];
			s->until[n] = o->until[i];
			s->sites[n] = o->sites[i];
			i++;
		} else {
			s->durations[n] = rungs[r++];
			s->until[n] = SIM_STALL_FIXED;
			s->sites[n] = NULL;
		}
		s->ids[n++] = c->id;
	}
	assert(i == o->n);
	s->n = n;
}

/*
 * Whether a stall of c, which may be held up (sim_stall_may()), could
 * change anything: another CPU is ready, or an event is pending that c's
 * going on could come before.
 */
static bool worth_asking(unsigned int n, const struct sim_cpu *c, uint64_t when,
			 struct sim_event **next)
{
	assert(sim_stall_may(c));
	*next = sim_event_next_after(when);
	return n > 1 || *next;
}

/*
 * The record every view shows: on c, at the stall's start, with whom it
 * held up and where. A scenario's line goes by its number: the file's name
 * is the caller's, and a replay from another file must hash the same.
 */
static void record(struct sim_cpu *c, uint64_t d, int until, size_t index)
{
	struct sim_ctx *x = top_ctx(c);
	int line = x && x->note_line > 0 ? x->note_line : 0;
	const char *note = x && !line ? x->note : "";

	sim_trace_on(c, REC_STALL, d, (uint64_t)(int64_t)until, (uint64_t)index, (uint64_t)line,
		     x ? sim_intern(sim_ctx_name(x)) : NULL, note[0] ? sim_intern(note) : NULL);
}

/*
 * A stall that ran past c's soft-lockup time is the watchdog's, as an
 * interrupt's would be. An idle CPU counts from the stall's start: its idle
 * loop could schedule until then (cpu.c touches it so for an interrupt).
 */
static void lockup(struct sim_cpu *c, uint64_t start)
{
	unsigned int secs;
	uint64_t at;

	if (!top_ctx(c) && c->sched_touch < start)
		c->sched_touch = start;
	at = sim_softlockup_time(c->sched_touch, &secs);

	if (at && c->clock >= at)
		sim_softlockup_watch(c);
}

bool sim_stall(const struct sim_cand *cand, unsigned int n, unsigned int k)
{
	struct sim_cpu *c = cand[k].cpu;
	uint64_t when = cand[k].when;
	struct sim_question q;
	struct stall_offers o;
	struct sim_event *next;
	struct stall_q s;
	unsigned int pick;

	if (!worth_asking(n, c, when, &next))
		return false;
	o.n = 0;
	for (unsigned int i = 0; i < n; i++)
		if (cand[i].cpu != c && cand[i].when >= when)
			offer(&o, cand[i].when - when + 1, cand[i].cpu->id,
			      sim.cfg.chooser ? site_of(cand[i].cpu) : NULL);
	if (next)
		offer(&o, next->time - when + 1, SIM_STALL_EVENT, NULL);
	build(&s, &o, c);
	q = (struct sim_question){
		.n = s.n, .why = SIM_WHY_STALL, .ids = s.ids, .cpu = c->id,
		.durations = s.durations, .until = s.until,
		.sites = sim.cfg.chooser ? s.sites : NULL,
	};
	pick = sim_ask(&q);
	if (!pick || sim.stop)
		return false;
	/* the hold-up orders this CPU's next step against everything */
	sim_footprint_global();
	c->stall_held = true;
	sim_handover(c, when);		/* a busy-wait's end, if it was in one */
	record(c, s.durations[pick], s.until[pick], q.index);
	c->clock += s.durations[pick];
	lockup(c, when);
	return true;
}

/*
 * Measured on races/mod-delayed-work-vs-cancel-v4.9 (random, 10,000 runs):
 * with no stalls 826 runs show it; one point in 64 held up, 732; in 8, 347;
 * in 4, 160. The same race with its cancel 5 ms later needs a hold-up of
 * the mod past the cancel's start: 0 to 1 runs in 10,000 at 1 in 64, 14 at
 * 1 in 8, 35 at 1 in 4, 86 at 1 in 2. A mixture keeps most of both.
 */
unsigned int sim_stall_odds(uint64_t r)
{
	static const unsigned int odds[] = { 2, 16, 128, 1024 };

	return odds[r >> 62];
}

unsigned int sim_stall_random(const struct sim_question *q, uint64_t r, unsigned int odds)
{
	if (q->n < 2 || !odds || r % odds)
		return 0;
	return 1 + (unsigned int)(((r >> 32) * (q->n - 1)) >> 32);
}

const char *sim_stall_until_name(int64_t until, char *buf, size_t len)
{
	if (until == SIM_STALL_EVENT)
		snprintf(buf, len, "event");
	else if (until < 0)
		snprintf(buf, len, "fixed");
	else
		snprintf(buf, len, "cpu%lld", (long long)until);
	return buf;
}
