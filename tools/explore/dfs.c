/*
 * dfs: a stateless, depth-first search of the machine's decision tree,
 * bounded by k preemptions as CHESS bounds it (Musuvathi and Qadeer, PLDI
 * 2007; OSDI 2008), with Godefroid's sleep sets so that schedules that only
 * swap independent steps run once.
 *
 * Stateless: every run starts from the scenario's beginning. Run r follows
 * a prefix of forced answers (the path to the deepest decision that still
 * has an untried answer), then answers by the default rule; its decisions
 * extend the tree. A run is a function of its answers, so the same prefix
 * must ask the same questions (kind, candidates, who they are, the CPU that
 * ran last): when it does not, the machine or the model is not
 * deterministic, and the search stops the process with a message rather
 * than go on in a tree that is not the scenario's.
 *
 * The bound. At a CPU question (SIM_WHY_CPU), answering another CPU than
 * the one that ran last while that CPU is still a candidate is a
 * preemption and costs one; when the last CPU is no candidate (it blocked,
 * spins, went idle, or ran too far ahead of the others' clocks), any
 * answer is free. Every other kind of question counts as a delay does in
 * delay bounding: answer 0 is the kernel's usual (an interrupt taken now,
 * the scheduler's placement, no wake-up preemption, the longest spinner)
 * and costs nothing, any other answer costs one. A run spends at most k.
 * A value of a time range (SIM_WHY_RANGE) is searched at its bounds only:
 * answer 0 (the lower bound, free) and answer n-1 (the upper bound, one),
 * never the up to 65,533 values between, which would make the tree as wide
 * as the range is fine; a race that needs a value inside a range is for
 * the strategies that draw it (random, pos, pct, rff).
 * The default rule, where no answer is forced: the last CPU if it is a
 * candidate, else candidate 0 (the earliest clock); answer 0 for the
 * other kinds. So k = 0 is the one schedule in which each CPU runs until it
 * cannot, and the space grows with k. Stalls (SIM_WHY_STALL) are outside
 * the search: answer 0 only, no CPU held up. Counted as delays they would
 * multiply the space by the durations offered at every point; a search
 * bounded in stalls is delay-bounded search's, not this one's.
 *
 * Sleep sets (Godefroid, 1996). A step is what the machine does from one
 * CPU answer to the next CPU question; the machine records its footprint
 * (sim_step_footprint(), sim/footprint.c): the CPUs it ran on and the
 * objects it touched. Two steps are independent when their footprints do
 * not conflict. After the answer c at a CPU decision has been searched, c
 * sleeps while the search tries that decision's next answers, and stays
 * asleep down the tree until a step that conflicts with c's runs; a
 * sleeping CPU is not answered. A schedule that would answer it is the
 * same, up to swapping independent steps, as one already run. A run that
 * reaches a question where every candidate within the bound sleeps cannot
 * stop there (the machine runs to the end), so it goes on by the default
 * rule and nothing below that point is searched: it counts as a schedule,
 * and as sleep-blocked in dfs_get_stats(). Only CPU answers sleep: a step
 * that made another choice, or in which an event fired, is global (it
 * conflicts with every step), so no reduction is claimed across them.
 *
 * What it guarantees, and what not:
 * - without sleep sets: every schedule within the bound runs exactly once
 *   (distinct decision logs), and "exhausted" means all of them ran;
 * - with sleep sets: every state a schedule within the bound reaches, at
 *   every scheduling point, is reached (sleep sets prune transitions, not
 *   states), as far as footprints see all sharing. They do not see plain
 *   memory accesses (not READ_ONCE / WRITE_ONCE, not under a machine lock):
 *   kthread_worker's code keeps its shared state under worker->lock, and a
 *   scenario's counters are recorded, but code that shares by plain
 *   accesses is outside the reduction's guarantee. Equivalent schedules may
 *   still differ in what is only printed (the order of trace records, fake
 *   addresses handed out in order of first sight).
 * - with both: as with partial-order reduction under any context bound
 *   (Coons, Musuvathi and McKinley, "Bounded partial-order reduction",
 *   OOPSLA 2013), a schedule within the bound may be pruned for an
 *   equivalent one the bound excludes, so the reduced search covers the
 *   bounded space's equivalence classes only where a representative is
 *   within the bound too. Seen on mod-delayed-work-vs-cancel-v4.9: where
 *   two CPUs may start (neither ran last: free), the search takes cpu1's
 *   step first; in cpu0's branch that step then sleeps, so the witness
 *   (cpu0 first, two preemptions later) is pruned for its equivalent with
 *   cpu1's step first, which costs a third preemption to get back to cpu0.
 *   That race needs k = 3 with sleep sets, 2 without. Measured on the race
 *   library but its two largest (freezable-blocks-past-timeout,
 *   one-work-two-workers), by final outcomes (counts, registers, findings,
 *   the condition): the full search's at k = 2 were all among the reduced
 *   search's at k = 2 but on that race, whose were among the reduced
 *   search's at k = 4; the full search's at k = 1 were all among the
 *   reduced search's at k = 3.
 *
 * Delay bounding (dfs_new_delays(); Emmi, Qadeer and Rakamaric,
 * "Delay-bounded scheduling", POPL 2011). The deterministic scheduler is
 * the faithful one (the earliest clock runs, answer 0 everywhere), and the
 * only freedom is to delay: at a stall question (SIM_WHY_STALL: the
 * machine has picked a CPU that an interrupt could hold up there) hold
 * that CPU up until another ready CPU has passed it, or until just after
 * the next pending event (the candidates whose until[] is a CPU or
 * SIM_STALL_EVENT; the fixed ladder's rungs are no delays). Each costs one,
 * a run spends at most k, every other question takes answer 0. So k = 0 is
 * the faithful run, and with k = 1 the schedules are it and one for each
 * delay candidate of each of its stall questions. Sleep sets prune nothing
 * here: the only choices are at stall questions, and a held CPU's clock is
 * state that its later steps read (timers, jiffies, what it hands over),
 * so a held step commutes with no other (the machine records a taken
 * stall as a global step); distinct delays are distinct schedules. The
 * space can be split into shards without running a schedule twice beyond
 * the faithful one: shard i of N takes the schedules whose first delay
 * falls on a decision whose index is i modulo N (dfs_shard()); every shard
 * runs the faithful schedule first, to learn the tree's trunk.
 */
#include "dfs.h"
#include "strategy_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CPU's step: one that sleeps, or one searched already at a decision. */
struct dfs_step {
	int cpu;
	struct sim_footprint fp;
};

struct dfs_steps {
	struct dfs_step *v;
	size_t n, cap;
};

/* One decision on the current path. */
struct dfs_node {
	/* the question, as the run that first reached it asked */
	uint8_t why;
	uint16_t n;
	int cpu;
	int *ids;			/* n of them: who each candidate is */
	uint64_t run;			/* that run */
	uint16_t pick;			/* the answer the path takes now */
	unsigned int cost;		/* spent on the path before this decision */
	bool cut;			/* below a sleep-blocked point: searched no further */
	uint64_t *tried;		/* answers taken, a bit each */
	int *until;			/* stall questions: what each candidate waits for */
	/* CPU questions only */
	struct dfs_steps sleep;		/* asleep on arrival */
	struct dfs_steps done;		/* answers searched, with their steps' footprints */
	struct sim_footprint pick_fp;	/* the footprint of the pick's step */
	bool have_pick_fp;
};

struct dfs {
	unsigned int k;
	bool sleep_sets;
	bool delays;			/* delay bounding: only stalls are choices */
	unsigned int shard, nshards;	/* delay bounding's part of the space */
	bool exhausted;
	struct dfs_node *path;
	size_t len, cap;		/* nodes on the path */
	size_t prefix;			/* how many of them run r must follow */
	/* the run in progress */
	uint64_t run;
	size_t at;			/* its next decision */
	unsigned int spent;
	bool blocked;
	size_t last_cpu;		/* its last CPU decision's index, or SIZE_MAX */
	struct dfs_stats stats;
};

static void *xalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	return p;
}

static void steps_add(struct dfs_steps *s, int cpu, const struct sim_footprint *fp)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n].cpu = cpu;
	s->v[s->n++].fp = *fp;
}

static bool steps_has(const struct dfs_steps *s, int cpu)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].cpu == cpu)
			return true;
	return false;
}

static void node_free(struct dfs_node *nd)
{
	free(nd->ids);
	free(nd->until);
	free(nd->tried);
	free(nd->sleep.v);
	free(nd->done.v);
	memset(nd, 0, sizeof(*nd));
}

static bool tried(const struct dfs_node *nd, unsigned int i)
{
	return nd->tried[i / 64] >> (i % 64) & 1;
}

static void mark_tried(struct dfs_node *nd, unsigned int i)
{
	nd->tried[i / 64] |= 1ULL << (i % 64);
}

/* The CPU that ran last, as a candidate's index, or -1 when it is none. */
static int last_index(const struct dfs_node *nd)
{
	for (unsigned int i = 0; i < nd->n; i++)
		if (nd->ids[i] == nd->cpu)
			return (int)i;
	return -1;
}

/* What answer i costs of the bound. */
static unsigned int cost(const struct dfs *d, const struct dfs_node *nd, unsigned int i)
{
	int last;

	if (d->delays)
		return nd->why == SIM_WHY_STALL && i != 0;
	if (nd->why != SIM_WHY_CPU)
		return i != 0;
	last = last_index(nd);
	return last >= 0 && (int)i != last;
}

static unsigned int default_answer(const struct dfs *d, const struct dfs_node *nd)
{
	int last = nd->why == SIM_WHY_CPU && !d->delays ? last_index(nd) : -1;

	return last >= 0 ? (unsigned int)last : 0;
}

/*
 * Delay bounding: whether answer i at nd is the faithful one or a delay of
 * this shard's: a stall until a CPU or the next event, the first of its
 * run on a decision of this shard's.
 */
static bool delay_allowed(const struct dfs *d, const struct dfs_node *nd, unsigned int i)
{
	if (i == 0)
		return true;
	if (nd->why != SIM_WHY_STALL || !nd->until || nd->until[i] == SIM_STALL_FIXED)
		return false;
	return nd->cost || (size_t)(nd - d->path) % d->nshards == d->shard;
}

/* Whether answer i may be searched at nd: within the bound, and not asleep. */
static bool allowed(const struct dfs *d, const struct dfs_node *nd, unsigned int i)
{
	if (nd->cost + cost(d, nd, i) > d->k)
		return false;
	/* dfs proper leaves stalls out (answer 0 only); delay bounding searches only them */
	if (d->delays ? !delay_allowed(d, nd, i) : nd->why == SIM_WHY_STALL && i)
		return false;
	if (nd->why == SIM_WHY_RANGE)
		return i == 0 || i + 1 == nd->n;
	return nd->why != SIM_WHY_CPU || !steps_has(&nd->sleep, nd->ids[i]);
}

/*
 * The tree is not the scenario's: nothing found from here on could be
 * trusted. nd is the decision the tree holds there, if any.
 */
static void __attribute__((noreturn)) nondeterministic(const struct dfs *d, size_t i,
							const struct dfs_node *nd, const char *what)
{
	if (nd)
		fprintf(stderr,
			"kwsim explore: dfs: run %llu, decision %zu: %s than run %llu did at the "
			"same place (a '%s' choice of %u, cpu%d last ran): runs with the same "
			"decisions differ, so the machine or the model is not deterministic; "
			"stopping\n", (unsigned long long)d->run, i, what, (unsigned long long)nd->run,
			sim_why_name(nd->why), nd->n, nd->cpu);
	else
		fprintf(stderr, "kwsim explore: dfs: run %llu, decision %zu: %s; stopping\n",
			(unsigned long long)d->run, i, what);
	abort();
}

/*
 * A CPU question's sleep set: of what slept at the CPU decision before and
 * what was searched there, what the steps since have not touched. A step
 * of a sleeping CPU (picked because it was the only candidate) means the
 * run has gone where a run before went: it is sleep-blocked from here.
 */
static void inherit_sleep(struct dfs *d, struct dfs_node *nd)
{
	const struct dfs_node *prev;
	const struct sim_footprint *steps;
	size_t nsteps;

	if (!d->sleep_sets || d->last_cpu == SIZE_MAX)
		return;
	prev = &d->path[d->last_cpu];
	for (size_t i = 0; i < prev->sleep.n; i++)
		steps_add(&nd->sleep, prev->sleep.v[i].cpu, &prev->sleep.v[i].fp);
	for (size_t i = 0; i < prev->done.n; i++)
		steps_add(&nd->sleep, prev->done.v[i].cpu, &prev->done.v[i].fp);
	steps = sim_step_footprints(&nsteps);
	for (size_t s = 0; s < nsteps; s++) {
		size_t kept = 0;

		if (s > 0 && steps[s].cpu >= 0 && steps_has(&nd->sleep, steps[s].cpu) && !d->blocked) {
			d->blocked = true;
			d->stats.sleep_blocked++;
		}
		for (size_t i = 0; i < nd->sleep.n; i++)
			if (!sim_footprints_conflict(&nd->sleep.v[i].fp, &steps[s]))
				nd->sleep.v[kept++] = nd->sleep.v[i];
		nd->sleep.n = kept;
	}
}

/* The footprint of the step the last CPU answer chose: the first since. */
static void note_pick_step(struct dfs *d)
{
	struct dfs_node *prev;
	const struct sim_footprint *steps;
	size_t nsteps;

	if (d->last_cpu == SIZE_MAX || d->path[d->last_cpu].have_pick_fp)
		return;
	prev = &d->path[d->last_cpu];
	steps = sim_step_footprints(&nsteps);
	if (nsteps)
		prev->pick_fp = steps[0];
	else	/* the run ended at the answer: nothing ran */
		prev->pick_fp = (struct sim_footprint){ .cpu = -1, .global = true };
	prev->have_pick_fp = true;
}

static unsigned int first_answer(struct dfs *d, struct dfs_node *nd)
{
	unsigned int def = default_answer(d, nd);

	if (d->blocked) {
		nd->cut = true;
		return def;
	}
	if (allowed(d, nd, def))
		return def;
	for (unsigned int i = 0; i < nd->n; i++)
		if (allowed(d, nd, i))
			return i;
	/* every candidate within the bound sleeps: what follows was run before */
	d->blocked = true;
	d->stats.sleep_blocked++;
	nd->cut = true;
	return def;
}

static struct dfs_node *new_node(struct dfs *d, const struct sim_question *q)
{
	struct dfs_node *nd;

	if (d->len == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->path = realloc(d->path, d->cap * sizeof(*d->path));
		if (!d->path)
			abort();
	}
	nd = &d->path[d->len++];
	memset(nd, 0, sizeof(*nd));
	nd->why = (uint8_t)q->why;
	nd->n = (uint16_t)q->n;
	nd->cpu = q->cpu;
	nd->run = d->run;
	nd->cost = d->spent;
	nd->ids = xalloc(q->n * sizeof(*nd->ids));
	for (unsigned int i = 0; i < q->n; i++)
		nd->ids[i] = q->ids ? q->ids[i] : (int)i;
	nd->tried = xalloc((q->n + 63) / 64 * sizeof(*nd->tried));
	if (q->why == SIM_WHY_STALL && q->until) {
		nd->until = xalloc(q->n * sizeof(*nd->until));
		memcpy(nd->until, q->until, q->n * sizeof(*nd->until));
	}
	return nd;
}

static bool same_question(const struct dfs_node *nd, const struct sim_question *q)
{
	if (nd->why != q->why || nd->n != q->n || nd->cpu != q->cpu)
		return false;
	for (unsigned int i = 0; i < q->n; i++)
		if (nd->ids[i] != (q->ids ? q->ids[i] : (int)i))
			return false;
	return true;
}

static unsigned int choose(void *ctx, const struct sim_question *q)
{
	struct dfs *d = ctx;
	size_t i = d->at++;
	struct dfs_node *nd;

	/* a replayed log (a scenario's schedule) would answer the first ones itself */
	if (q->index != i)
		nondeterministic(d, i, NULL, "the machine numbers its decisions otherwise than dfs "
				 "asked them (a schedule in the scenario?)");
	if (q->why == SIM_WHY_CPU)
		note_pick_step(d);
	if (i < d->prefix) {
		nd = &d->path[i];
		if (!same_question(nd, q))
			nondeterministic(d, i, nd, "the run asks another question");
		if (nd->cut)
			d->blocked = true;
	} else {
		nd = new_node(d, q);
		if (q->why == SIM_WHY_CPU)
			inherit_sleep(d, nd);
		nd->pick = (uint16_t)first_answer(d, nd);
		mark_tried(nd, nd->pick);
	}
	d->spent = nd->cost + cost(d, nd, nd->pick);
	if (q->why == SIM_WHY_CPU)
		d->last_cpu = i;
	return nd->pick;
}

struct dfs *dfs_new(unsigned int preemptions, bool sleep_sets)
{
	struct dfs *d = xalloc(sizeof(*d));

	d->k = preemptions;
	d->sleep_sets = sleep_sets;
	d->nshards = 1;
	return d;
}

struct dfs *dfs_new_delays(unsigned int delays)
{
	struct dfs *d = dfs_new(delays, false);

	d->delays = true;
	return d;
}

void dfs_shard(struct dfs *d, unsigned int shard, unsigned int nshards)
{
	if (nshards && shard < nshards) {
		d->shard = shard;
		d->nshards = nshards;
	}
}

void dfs_free(struct dfs *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->len; i++)
		node_free(&d->path[i]);
	free(d->path);
	free(d);
}

bool dfs_begin(struct dfs *d, uint64_t r, struct sim_config *cfg)
{
	if (d->exhausted)
		return false;
	d->run = r;
	d->at = 0;
	d->spent = 0;
	d->blocked = false;
	d->last_cpu = SIZE_MAX;
	cfg->chooser = choose;
	cfg->chooser_ctx = d;
	cfg->footprints = d->sleep_sets;
	return true;
}

/* The deepest decision with an answer still to search; false when there is none. */
static bool backtrack(struct dfs *d)
{
	for (size_t i = d->len; i-- > 0;) {
		struct dfs_node *nd = &d->path[i];

		if (nd->cut)
			continue;
		for (unsigned int a = 0; a < nd->n; a++) {
			if (tried(nd, a) || !allowed(d, nd, a))
				continue;
			if (nd->why == SIM_WHY_CPU && d->sleep_sets)
				steps_add(&nd->done, nd->ids[nd->pick], &nd->pick_fp);
			nd->pick = (uint16_t)a;
			nd->have_pick_fp = false;
			mark_tried(nd, a);
			for (size_t j = i + 1; j < d->len; j++)
				node_free(&d->path[j]);
			d->len = d->prefix = i + 1;
			return true;
		}
	}
	return false;
}

void dfs_end(struct dfs *d, uint64_t r, const struct sim_decision *log, size_t n)
{
	(void)r;
	d->stats.schedules++;
	if (d->at > d->stats.max_decisions)
		d->stats.max_decisions = d->at;
	if (d->at < d->prefix)
		nondeterministic(d, d->at, &d->path[d->at], "the run ended sooner");
	/* a kept log (none with drop_decisions) is the machine's own account of the answers */
	if (log && n) {
		if (n != d->at)
			nondeterministic(d, n, NULL, "the log's length is not the decisions dfs answered");
		for (size_t i = 0; i < n; i++)
			if (log[i].why != d->path[i].why || log[i].n != d->path[i].n ||
			    log[i].pick != d->path[i].pick)
				nondeterministic(d, i, &d->path[i], "the log holds another answer");
	}
	note_pick_step(d);
	/* the steps after the last question: a sleeping CPU's among them blocks the run too */
	if (d->sleep_sets && d->last_cpu != SIZE_MAX && !d->blocked) {
		struct dfs_node end = { 0 };

		inherit_sleep(d, &end);
		free(end.sleep.v);
	}
	if (!backtrack(d))
		d->exhausted = true;
}

bool dfs_exhausted(const struct dfs *d)
{
	return d->exhausted;
}

void dfs_get_stats(const struct dfs *d, struct dfs_stats *st)
{
	*st = d->stats;
}

/* --- the strategies over the search: dfs here, delay (delay.c) ---------------------------------- */

bool xs_dfs_begin(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg)
{
	(void)m;
	return dfs_begin(x->state, r, cfg);
}

void xs_dfs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	dfs_end(x->state, r, log, n);
}

bool xs_dfs_exhausted(const struct xs *x)
{
	return dfs_exhausted(x->state);
}

void xs_dfs_fini(struct xs *x)
{
	dfs_free(x->state);
}

static bool init(struct xs *x)
{
	x->state = dfs_new(x->p.preemptions, true);
	return true;
}

const struct xs_ops xs_dfs_ops = {
	.name = "dfs",
	.params = XS_BOUND,
	.named = XS_BOUND,
	.bound = "preemptions",
	.init = init,
	.fini = xs_dfs_fini,
	.begin = xs_dfs_begin,
	.end = xs_dfs_end,
	.exhausted = xs_dfs_exhausted,
};
