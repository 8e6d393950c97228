/*
 * The causality checker (see <sim/causal.h>). It keeps, per cause, the
 * records that could have caused an effect, keyed by the records' own
 * identifiers (fake addresses and pids), in one open-addressing table that
 * is only looked up, never iterated, so its order cannot leak into the
 * result.
 *
 * Which cause an effect answers: a task's switch-in answers its latest
 * wake-up (a second wake-up needs it asleep again, so after it ran); a
 * timer's expiry its latest arming (the softirq detaches the timer and
 * traces the expiry with no scheduling point between). A work's execution
 * answers its earliest queueing not yet answered: the worker takes the work
 * off the list, unlocks, and only then traces execute_start, so the work may
 * be queued again in between. A queueing that a cancel took back is never
 * answered and makes later pairs compare against an earlier queueing: the
 * check gets weaker, never wrong.
 *
 * A lock's release answers its acquire when made on the acquire's CPU (a
 * spinlock holder cannot migrate); a release by another context, or of a
 * lock not held, is the program's unbalanced unlock, lockdep's to report,
 * not a question of time. An acquire comes after the lock's previous
 * release, if any: the lock word hands time on with the lock. A finding
 * whose record names a cause (b: its time, c: its CPU), as a use-after-free
 * names its kfree, comes no earlier: freed memory is handed over like a lock.
 */
#include <sim/causal.h>
#include <sim/sim.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cause { CAUSE_QUEUE, CAUSE_WAKE, CAUSE_ARM, CAUSE_ACQUIRE, CAUSE_RELEASE };

static const char *const cause_name[] = { "queue_work", "sched_waking", "timer_start",
					  "lock_acquire", "lock_release" };

#define PENDING 8		/* queueings of one work not yet answered, at most */

struct seen {
	uint64_t key;		/* (cause << 61) ^ id, plus one: 0 is an empty slot */
	uint64_t time[PENDING];	/* a ring: the oldest at head */
	uint16_t cpu[PENDING];
	unsigned int head, n;
};

#define STREAMS SIM_MAX_CPUS

struct sim_causal {
	struct seen *tab;
	size_t ntab, captab;		/* captab: a power of two */
	uint64_t last[STREAMS];
	uint64_t nlast[STREAMS];	/* records seen per stream */
	size_t nrecs;
	size_t violations;
	char first[320];
};

struct sim_causal *sim_causal_new(void)
{
	struct sim_causal *cc = calloc(1, sizeof(*cc));

	if (!cc)
		abort();
	return cc;
}

void sim_causal_free(struct sim_causal *cc)
{
	if (!cc)
		return;
	free(cc->tab);
	free(cc);
}

static uint64_t key_of(enum cause c, uint64_t id)
{
	return (((uint64_t)c << 61) ^ id) + 1;
}

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static struct seen *find(struct sim_causal *cc, uint64_t key, int add)
{
	size_t i;

	if (add && 2 * (cc->ntab + 1) > cc->captab) {
		struct seen *old = cc->tab;
		size_t oldcap = cc->captab;

		cc->captab = oldcap ? 2 * oldcap : 256;
		cc->tab = calloc(cc->captab, sizeof(*cc->tab));
		if (!cc->tab)
			abort();
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].key)
				continue;
			for (i = slot_of(old[j].key, cc->captab); cc->tab[i].key;
			     i = (i + 1) & (cc->captab - 1))
				;
			cc->tab[i] = old[j];
		}
		free(old);
	}
	if (!cc->captab)
		return NULL;
	for (i = slot_of(key, cc->captab); cc->tab[i].key; i = (i + 1) & (cc->captab - 1))
		if (cc->tab[i].key == key)
			return &cc->tab[i];
	if (!add)
		return NULL;
	cc->tab[i].key = key;
	cc->ntab++;
	return &cc->tab[i];
}

static void violation(struct sim_causal *cc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void violation(struct sim_causal *cc, const char *fmt, ...)
{
	va_list ap;

	if (!cc->violations++) {
		va_start(ap, fmt);
		vsnprintf(cc->first, sizeof(cc->first), fmt, ap);
		va_end(ap);
	}
}

/* Queueings pile up until answered; a wake-up or an arming replaces the last. */
static void cause(struct sim_causal *cc, enum cause c, uint64_t id, const struct sim_rec *r)
{
	struct seen *s = find(cc, key_of(c, id), 1);
	unsigned int i;

	if (c != CAUSE_QUEUE)
		s->n = 0;
	if (s->n == PENDING) {	/* the oldest goes: weaker, still sound */
		s->head = (s->head + 1) % PENDING;
		s->n--;
	}
	i = (s->head + s->n++) % PENDING;
	s->time[i] = r->time;
	s->cpu[i] = r->cpu;
}

static void effect(struct sim_causal *cc, enum cause c, uint64_t id, const struct sim_rec *r,
		   const char *what)
{
	struct seen *s = find(cc, key_of(c, id), 0);
	uint64_t t;
	uint16_t cpu;

	if (!s || !s->n) {
		violation(cc, "record %zu: %s of %#llx at %llu ns on cpu%u has no %s before it",
			  cc->nrecs, what, (unsigned long long)id, (unsigned long long)r->time,
			  r->cpu, cause_name[c]);
		return;
	}
	t = s->time[s->head];
	cpu = s->cpu[s->head];
	if (c == CAUSE_QUEUE) {		/* answered: the next execution answers the next */
		s->head = (s->head + 1) % PENDING;
		s->n--;
	}
	if (c == CAUSE_ACQUIRE)		/* answered: a second release is unbalanced */
		s->n = 0;
	if (r->time < t)
		violation(cc, "record %zu: %s of %#llx at %llu ns on cpu%u comes before its %s "
			  "at %llu ns on cpu%u", cc->nrecs, what, (unsigned long long)id,
			  (unsigned long long)r->time, r->cpu, cause_name[c],
			  (unsigned long long)t, cpu);
}

/* The lock is held, taken on r's CPU. */
static bool held_here(struct sim_causal *cc, const struct sim_rec *r)
{
	struct seen *s = find(cc, key_of(CAUSE_ACQUIRE, r->a), 0);

	return s && s->n && s->cpu[s->head] == r->cpu;
}

void sim_causal_feed(struct sim_causal *cc, const struct sim_rec *r)
{
	/*
	 * Streams as ftrace's per-CPU buffers: a record made outside any CPU
	 * (by an event of the machine's) is in cpu0's, where the views put it.
	 */
	size_t stream = r->cpu;

	if (stream < STREAMS) {
		if (cc->nlast[stream]++ && r->time < cc->last[stream])
			violation(cc, "record %zu: %s at %llu ns goes back in time on cpu%u "
				  "(its previous record there is at %llu ns)", cc->nrecs,
				  sim_rec_type_name((enum sim_rec_type)r->type),
				  (unsigned long long)r->time, r->cpu,
				  (unsigned long long)cc->last[stream]);
		cc->last[stream] = r->time;
	}
	switch (r->type) {
	case REC_SCHED_WAKING:
		cause(cc, CAUSE_WAKE, r->a, r);
		break;
	case REC_SCHED_SWITCH:
		/* a task's first run follows its creation's wake-up; idle needs none */
		if (r->c)
			effect(cc, CAUSE_WAKE, r->c, r, "switch-in");
		break;
	case REC_TIMER_START:
		cause(cc, CAUSE_ARM, r->a, r);
		break;
	case REC_TIMER_EXPIRE_ENTRY:
		effect(cc, CAUSE_ARM, r->a, r, "timer_expire_entry");
		break;
	case REC_LOCK_ACQUIRE:
		if (find(cc, key_of(CAUSE_RELEASE, r->a), 0))	/* not its first */
			effect(cc, CAUSE_RELEASE, r->a, r, "lock_acquire");
		cause(cc, CAUSE_ACQUIRE, r->a, r);
		break;
	case REC_LOCK_RELEASE:
		if (held_here(cc, r))
			effect(cc, CAUSE_ACQUIRE, r->a, r, "lock_release");
		cause(cc, CAUSE_RELEASE, r->a, r);
		break;
	case REC_FINDING:
		/* a finding another CPU's step caused (a touch of memory freed there) */
		if (r->time < r->b)
			violation(cc, "record %zu: %s finding at %llu ns on cpu%u comes before its "
				  "cause at %llu ns on cpu%llu", cc->nrecs, r->s ? r->s : "?",
				  (unsigned long long)r->time, r->cpu, (unsigned long long)r->b,
				  (unsigned long long)r->c);
		break;
	case REC_MODEL:
		/* the kernel's tracepoints, or kwsim's own records where it had none */
		if (sim_rec_work_step(r) == SIM_WORK_QUEUE)
			cause(cc, CAUSE_QUEUE, r->a, r);
		else if (sim_rec_work_step(r) == SIM_WORK_START)
			effect(cc, CAUSE_QUEUE, r->a, r, "execute_start");
		break;
	default:
		break;
	}
	cc->nrecs++;
}

size_t sim_causal_violations(const struct sim_causal *cc)
{
	return cc->violations;
}

const char *sim_causal_first(const struct sim_causal *cc)
{
	return cc->first;
}

size_t sim_causal_check(const struct sim_rec *recs, size_t n, char *first, size_t len)
{
	struct sim_causal *cc = sim_causal_new();
	size_t v;

	for (size_t i = 0; i < n; i++)
		sim_causal_feed(cc, &recs[i]);
	v = cc->violations;
	if (first && len)
		snprintf(first, len, "%s", cc->first);
	sim_causal_free(cc);
	return v;
}
