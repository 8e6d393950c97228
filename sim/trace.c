/*
 * The trace record stream, interned strings, and the stable names of things:
 * fake addresses for objects and names for functions. The run's hash is
 * over every record's contents (strings by their text), so it is the same
 * in every build, whatever the real addresses. It is taken word by word
 * (trace_mix), with each string's own hash kept by address: explorers ask
 * for it after every run, and FNV-1a byte by byte was a quarter of a short
 * run's time.
 */
#include "machine.h"
#include <sim/fnv.h>
#include <linux/preempt.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The host's, not the machine's: set before sim_init() (or between runs)
 * and kept until sim_fini().
 */
static sim_trace_sink_fn sink;
static void *sink_arg;

struct trace_interned {
	char *s;
	uint64_t h;
};

/* Interned strings a reset keeps (sim_trace_fini()); a run names a few dozen. */
#define TRACE_KEEP_STRS 4096

struct trace_object {
	const void *p;
	size_t size;
	const char *name;
	uint64_t fake;
};

struct trace_symbol {
	const void *fn;
	const char *name;
};

struct trace_unknown {
	const void *p;
	uint64_t id;
};

/* a word's bytes, low first, whatever the host's byte order */
static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * SIM_FNV_PRIME;
	return h;
}

/* A word into the run's hash: splitmix64's finaliser step, one multiply. */
static uint64_t trace_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 31);
}

/*
 * A string's hash by its text, 8 bytes at a time, then its length: a
 * record's string in the run's hash, and the interned strings' table.
 */
static uint64_t text_hash(const char *s)
{
	uint64_t h = 0x6b77736d53545231ULL, w;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i += 8) {
		w = 0;
		memcpy(&w, s + i, n - i < 8 ? n - i : 8);
		h = trace_mix(h, w);
	}
	return trace_mix(h, n + 1);
}

/* A string of a record not in the cache: its hash, cached in its slot. */
static noinline uint64_t trace_str_miss(const char *s, unsigned int slot)
{
	uint64_t h = text_hash(s);

	sim.trace.strhash[slot].s = s;
	sim.trace.strhash[slot].h = h;
	return h;
}

/*
 * A record's string, by its text; NULL apart from "". Inline: most are hits.
 * A hit that is not the text's hash is a record's string that was neither
 * static nor interned (sim_trace()), and changed since.
 */
static inline uint64_t trace_str(const char *s)
{
	unsigned int slot = (unsigned int)((uintptr_t)s >> 3) & 255u;

	if (!s)
		return 0;
	if (sim.trace.strhash[slot].s == s) {
		assert(sim.trace.strhash[slot].h == text_hash(s));
		return sim.trace.strhash[slot].h;
	}
	return trace_str_miss(s, slot);
}

void sim_trace_init(void)
{
	sim.trace.nrecs = 0;
	sim.trace.hash = SIM_FNV_OFFSET;
}

/* Free every interned string; the table keeps its size. */
static void strs_free(void)
{
	for (size_t i = 0; sim.trace.nstrs && i < sim.trace.capstrs; i++) {
		if (!sim.trace.strs[i].s)
			continue;
		free(sim.trace.strs[i].s);
		sim.trace.strs[i].s = NULL;
		sim.trace.nstrs--;
	}
	memset(sim.trace.interned_at, 0, sizeof(sim.trace.interned_at));
	memset(sim.trace.strhash, 0, sizeof(sim.trace.strhash));
}

void sim_trace_fini(bool keep)
{
	sim.trace.nrecs = 0;
	/*
	 * Interned strings outlive a reset: the next run names the same
	 * contexts, sites and notes, and making them again (a strdup and a
	 * free each, every run) cost as much as the run's records. A lookup
	 * goes by the text, so no run can tell whether a string was already
	 * there. Past TRACE_KEEP_STRS (runs that name something new each time)
	 * the table starts over, so it stays bounded.
	 */
	if (!keep || sim.trace.nstrs > TRACE_KEEP_STRS)
		strs_free();
	/* a sink set before sim_init() serves every run until the machine's teardown */
	if (keep)
		return;
	free(sim.trace.recs);
	sim.trace.recs = NULL;
	sim.trace.caprecs = 0;
	sink = NULL;
	sink_arg = NULL;
	free(sim.trace.strs);
	sim.trace.strs = NULL;
	sim.trace.nstrs = sim.trace.capstrs = 0;
}

static void unknowns_fini(struct trace_unknowns *t, bool keep)
{
	t->n = 0;
	t->next_id = 0;
	if (keep) {
		if (t->v)	/* open addressing: an empty table is all empty slots */
			memset(t->v, 0, t->cap * sizeof(*t->v));
		return;
	}
	free(t->v);
	t->v = NULL;
	t->cap = 0;
}

void sim_objects_fini(bool keep)
{
	sim.trace.nobjs = sim.trace.nsyms = 0;
	sim.trace.nprefixes = 0;
	unknowns_fini(&sim.trace.unknown, keep);
	unknowns_fini(&sim.trace.unknown_own, keep);
	if (keep)
		return;
	free(sim.trace.objs);
	sim.trace.objs = NULL;
	sim.trace.capobjs = 0;
	free(sim.trace.syms);
	sim.trace.syms = NULL;
	sim.trace.capsyms = 0;
}

const char *sim_intern(const char *s)
{
	struct sim_trace *t = &sim.trace;
	/*
	 * The slot by all of the address's bits (Fibonacci hashing), not bits
	 * 3 to 8: by those, a scenario's names and the symbols' interned names
	 * shared slots and put each other out, run after run.
	 */
	unsigned int slot = (unsigned int)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 58);
	uint64_t h;
	size_t i;

	_Static_assert(sizeof(t->interned_at) / sizeof(t->interned_at[0]) == 1u << (64 - 58),
		       "a slot per value of the hash's top bits");
	if (!s)
		return NULL;
	if (t->interned_at[slot].s == s && !strcmp(t->interned_at[slot].interned, s))
		return t->interned_at[slot].interned;
	t->interned_at[slot].s = s;
	if (2 * (t->nstrs + 1) > t->capstrs) {
		struct trace_interned *old = t->strs;
		size_t oldcap = t->capstrs;

		t->capstrs = t->capstrs ? 2 * t->capstrs : 256;
		t->strs = calloc(t->capstrs, sizeof(*t->strs));
		if (!t->strs)
			abort();
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].s)
				continue;
			for (i = old[j].h & (t->capstrs - 1); t->strs[i].s; i = (i + 1) & (t->capstrs - 1))
				;
			t->strs[i] = old[j];
		}
		free(old);
	}
	h = text_hash(s);
	for (i = h & (t->capstrs - 1); t->strs[i].s; i = (i + 1) & (t->capstrs - 1))
		if (t->strs[i].h == h && !strcmp(t->strs[i].s, s))
			return t->interned_at[slot].interned = t->strs[i].s;
	t->strs[i].s = strdup(s);
	t->strs[i].h = h;
	if (!t->strs[i].s)
		abort();
	t->nstrs++;
	return t->interned_at[slot].interned = t->strs[i].s;
}

/* What a record says of the context it was made in. */
struct rec_ctx {
	struct task_struct *p;	/* the running task, NULL before the CPUs are made */
	uint64_t time;
	uint64_t word;		/* hashed: type, flags, preempt depth and CPU, packed */
	int32_t pid;
};

static __always_inline struct rec_ctx rec_ctx(struct sim_cpu *c, enum sim_rec_type type)
{
	struct rec_ctx x = { 0 };
	uint16_t cpu = 0;
	uint8_t preempt = 0, flags = 0;

	/* a CPU's record carries that CPU's clock: its stream never goes back */
	x.time = c ? c->clock : sim.in_event ? sim.ev_time : sim_max_time();
	/*
	 * What no context of the machine does (setup, an event's own checks)
	 * is the boot CPU's, in whatever runs there: every line of a CPU names
	 * the task that CPU runs, and is no earlier than that CPU's clock.
	 */
	if (!c && sim.cfg.ncpus > 0) {
		c = &sim.cpus[0];
		if (x.time < c->clock)
			x.time = c->clock;
	}
	x.p = c ? c->curr : NULL;
	if (x.p) {
		unsigned int pc = c->preempt_count;

		cpu = (uint16_t)c->id;
		x.pid = x.p->pid;
		/* tracing_gen_ctx_irq_test(): everything but irqs-off comes from preempt_count */
		preempt = (uint8_t)(pc & PREEMPT_MASK);
		flags = (c->irqs_disabled ? TRACE_FLAG_IRQS_OFF : 0) |
			(c->need_resched ? TRACE_FLAG_NEED_RESCHED : 0) |
			(pc & HARDIRQ_MASK ? TRACE_FLAG_HARDIRQ : 0) |
			(pc & SOFTIRQ_OFFSET ? TRACE_FLAG_SOFTIRQ : 0) |
			((pc & SOFTIRQ_MASK) >> (SOFTIRQ_SHIFT + 1) ? TRACE_FLAG_BH_OFF : 0);
	}
	x.word = ((uint64_t)(uint8_t)type << 32) | ((uint64_t)flags << 24) |
		 ((uint64_t)preempt << 16) | cpu;
	return x;
}

/* The run's hash, with a record's fields. */
static __always_inline void rec_hash(const struct rec_ctx *x, uint64_t a, uint64_t b,
				     uint64_t cc, uint64_t d, const char *s, const char *s2)
{
	uint64_t h = sim.trace.hash;

	h = trace_mix(h, x->time);
	h = trace_mix(h, a);
	h = trace_mix(h, b);
	h = trace_mix(h, cc);
	h = trace_mix(h, d);
	h = trace_mix(h, x->word);
	h = trace_mix(h, (uint64_t)(uint32_t)x->pid);
	h = trace_mix(h, trace_str(s));
	sim.trace.hash = trace_mix(h, trace_str(s2));
}

/* The record made, for those who keep it or listen. */
static noinline void append_kept(struct sim_cpu *c, enum sim_rec_type type, uint64_t a,
				 uint64_t b, uint64_t cc, uint64_t d, const char *s,
				 const char *s2)
{
	struct rec_ctx x = rec_ctx(c, type);
	struct sim_rec r;

	rec_hash(&x, a, b, cc, d, s, s2);
	memset(&r, 0, sizeof(r));
	r.time = x.time;
	r.a = a;
	r.b = b;
	r.c = cc;
	r.d = d;
	r.s = s;
	r.s2 = s2;
	r.type = (uint8_t)type;
	if (x.p) {
		r.cpu = (uint16_t)x.word;
		r.pid = x.pid;
		memcpy(r.comm, x.p->comm, sizeof(r.comm));
		r.preempt = (uint8_t)(x.word >> 16);
		r.flags = (uint8_t)(x.word >> 24);
	}
	if (sink)
		sink(sink_arg, &r);
	if (!sim.cfg.keep_trace)
		return;
	if (sim.trace.nrecs == sim.trace.caprecs)
		sim.trace.recs = sim_grow(sim.trace.recs, &sim.trace.caprecs, sizeof(*sim.trace.recs), 1024);
	sim.trace.recs[sim.trace.nrecs++] = r;
}

/*
 * The record is hashed from its fields and made only for those who keep it
 * or listen: explore's runs do neither, and hash each field as it comes,
 * keeping none in hand for a record. Inline in its two callers: a run makes
 * 100 records.
 */
static __always_inline void append(struct sim_cpu *c, enum sim_rec_type type, uint64_t a,
				   uint64_t b, uint64_t cc, uint64_t d, const char *s,
				   const char *s2)
{
	struct rec_ctx x;

	if (unlikely(sink || sim.cfg.keep_trace)) {
		append_kept(c, type, a, b, cc, d, s, s2);
		return;
	}
	x = rec_ctx(c, type);
	rec_hash(&x, a, b, cc, d, s, s2);
}

void sim_trace(enum sim_rec_type type, uint64_t a, uint64_t b, uint64_t c, uint64_t d,
	       const char *s, const char *s2)
{
	append(sim.in_event ? NULL : sim.cur_cpu, type, a, b, c, d, s, s2);
}

void sim_trace_on(struct sim_cpu *c, enum sim_rec_type type, uint64_t a, uint64_t b,
		  uint64_t c2, uint64_t d, const char *s, const char *s2)
{
	append(c, type, a, b, c2, d, s, s2);
}

void sim_trace_set_sink(sim_trace_sink_fn fn, void *arg)
{
	sink = fn;
	sink_arg = arg;
}

size_t sim_trace_count(void)
{
	return sim.trace.nrecs;
}

const struct sim_rec *sim_trace_records(void)
{
	return sim.trace.recs;
}

uint64_t sim_trace_hash(void)
{
	return sim.trace.hash;
}

/* The descriptions, from the one list that also makes the enum. */
#define F(n, sl, ty) { #n, SIM_F_##sl, SIM_FT_##ty, NULL },
#define K(n, v) { #n, SIM_F_K, SIM_FT_STR, v },
#define SIM_TRACE_EVENT(type, nm, ev, sys, pr, fields)					\
	[type] = { .name = nm, .event = ev, .system = sys, .print = SIM_PRINT_##pr,	\
		   .nfields = sizeof((struct sim_rec_field[]){ fields }) /		\
			      sizeof(struct sim_rec_field),				\
		   .field = { fields } },
static const struct sim_rec_desc descs[REC__COUNT] = {
#include <sim/trace_events.h>
};
#undef SIM_TRACE_EVENT
#undef K
#undef F

const struct sim_rec_desc *sim_rec_desc(unsigned int type)
{
	return type < REC__COUNT ? &descs[type] : NULL;
}

uint64_t sim_rec_field_u64(const struct sim_rec *r, const struct sim_rec_field *f)
{
	switch (f->slot) {
	case SIM_F_A: return r->a;
	case SIM_F_B: return r->b;
	case SIM_F_C: return r->c;
	case SIM_F_D: return r->d;
	default: return 0;
	}
}

const char *sim_rec_field_str(const struct sim_rec *r, const struct sim_rec_field *f)
{
	switch (f->slot) {
	case SIM_F_S: return r->s;
	case SIM_F_S2: return r->s2;
	case SIM_F_COMM: return r->comm;
	case SIM_F_K: return f->value;
	default: return NULL;
	}
}

const char *sim_rec_type_name(enum sim_rec_type type)
{
	return type < REC__COUNT ? descs[type].name : "?";
}

/* --- stable names ------------------------------------------------------------------ */

static struct trace_object *find_object(const void *p)
{
	size_t lo = 0, hi = sim.trace.nobjs;
	uintptr_t a = (uintptr_t)p;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uintptr_t base = (uintptr_t)sim.trace.objs[mid].p;

		if (a < base)
			hi = mid;
		else if (a >= base + (sim.trace.objs[mid].size ? sim.trace.objs[mid].size : 1))
			lo = mid + 1;
		else
			return &sim.trace.objs[mid];
	}
	return NULL;
}


static uint64_t unknown_id(struct trace_unknowns *t, const void *p, bool fresh)
{
	uint64_t h = fnv_u64(SIM_FNV_OFFSET, (uint64_t)(uintptr_t)p);
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct trace_unknown *old = t->v;
		size_t oldcap = t->cap;

		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = calloc(t->cap, sizeof(*t->v));
		if (!t->v)
			abort();
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].p)
				continue;
			h = fnv_u64(SIM_FNV_OFFSET, (uint64_t)(uintptr_t)old[j].p);
			for (i = h & (t->cap - 1); t->v[i].p; i = (i + 1) & (t->cap - 1))
				;
			t->v[i] = old[j];
		}
		free(old);
		h = fnv_u64(SIM_FNV_OFFSET, (uint64_t)(uintptr_t)p);
	}
	for (i = h & (t->cap - 1); t->v[i].p; i = (i + 1) & (t->cap - 1)) {
		if (t->v[i].p != p)
			continue;
		if (fresh)
			t->v[i].id = t->next_id++;
		return t->v[i].id;
	}
	t->v[i].p = p;
	t->v[i].id = t->next_id++;
	t->n++;
	return t->v[i].id;
}

bool sim_registered_addr(const void *p, uint64_t *out)
{
	struct trace_object *o = find_object(p);

	if (!o)
		return false;
	*out = o->fake + (uint64_t)((const char *)p - (const char *)o->p);
	return true;
}

void sim_register_object(const void *p, size_t size, const char *name)
{
	struct sim_trace *t = &sim.trace;
	size_t i;

	if (find_object(p))
		return;
	if (t->nobjs == t->capobjs)
		t->objs = sim_grow(t->objs, &t->capobjs, sizeof(*t->objs), 64);
	for (i = t->nobjs; i > 0 && (uintptr_t)t->objs[i - 1].p > (uintptr_t)p; i--)
		t->objs[i] = t->objs[i - 1];
	/* ids in registration order: deterministic, unlike the addresses */
	t->objs[i] = (struct trace_object){ p, size, sim_intern(name),
					    0xffffffffc0000000ULL + t->nobjs * 0x1000ULL };
	t->nobjs++;
}

/*
 * Objects the machine neither allocated nor was told about are numbered in
 * order of first sight. Those on the simulated stacks need more: where a
 * stack slot falls differs between builds, so two objects share an address
 * in one build and not in another. They are numbered by birth instead:
 * sim_fake_addr_new() at each birth (a timer set up, a work queued) gives a
 * stack address a fresh number, and later sightings find it.
 */
static uint64_t fake_addr(const void *p, bool fresh, bool own)
{
	struct trace_object *o;
	uint64_t fake;

	if (!p)
		return 0;
	if (sim_slab_fake_addr(p, &fake))
		return fake;
	o = find_object(p);
	if (o)
		return o->fake + (uint64_t)((const char *)p - (const char *)o->p);
	if (own)
		return 0xffffc98000000000ULL +
		       unknown_id(&sim.trace.unknown_own, p, fresh && sim_on_stack(p)) * 0x100ULL;
	return 0xffffc90000000000ULL +
	       unknown_id(&sim.trace.unknown, p, fresh && sim_on_stack(p)) * 0x100ULL;
}

uint64_t sim_fake_addr(const void *p)
{
	return fake_addr(p, false, false);
}

uint64_t sim_fake_addr_new(const void *p)
{
	return fake_addr(p, true, false);
}

uint64_t sim_fake_addr_own(const void *p, bool fresh)
{
	return fake_addr(p, fresh, true);
}

const char *sim_object_name(const void *p)
{
	struct trace_object *o = p ? find_object(p) : NULL;
	static char buf[48];

	if (o && o->name)
		return o->name;
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)sim_fake_addr(p));
	return buf;
}

void sim_register_symbol(const void *fn, const char *name)
{
	for (size_t i = 0; i < sim.trace.nsyms; i++) {
		if (sim.trace.syms[i].fn == fn)
			return;
	}
	if (sim.trace.nsyms == sim.trace.capsyms)
		sim.trace.syms = sim_grow(sim.trace.syms, &sim.trace.capsyms, sizeof(*sim.trace.syms), 64);
	sim.trace.syms[sim.trace.nsyms++] = (struct trace_symbol){ fn, sim_intern(name) };
}

void sim_register_symbol_prefix(const char *prefix)
{
	for (size_t i = 0; i < sim.trace.nprefixes; i++)
		if (!strcmp(sim.trace.prefixes[i], prefix))
			return;
	if (sim.trace.nprefixes < sizeof(sim.trace.prefixes) / sizeof(sim.trace.prefixes[0]))
		sim.trace.prefixes[sim.trace.nprefixes++] = prefix;
}

const char *sim_unprefix(const char *name)
{
	for (size_t i = 0; name && i < sim.trace.nprefixes; i++) {
		size_t n = strlen(sim.trace.prefixes[i]);

		if (!strncmp(name, sim.trace.prefixes[i], n))
			return name + n;
	}
	return name;
}

const char *sim_symbol(const void *fn)
{
	for (size_t i = 0; i < sim.trace.nsyms; i++)
		if (sim.trace.syms[i].fn == fn)
			return sim.trace.syms[i].name;
	return fn ? "?" : NULL;
}
