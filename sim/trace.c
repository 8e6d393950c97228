/*
 * The trace record stream, interned strings, and the stable names of things:
 * fake addresses for objects and names for functions. The run's hash is
 * FNV-1a over every record's contents (strings by their text), so it is the
 * same in every build, whatever the real addresses.
 */
#include "machine.h"
#include <linux/preempt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sim_rec *recs;
static size_t nrecs, caprecs;
static uint64_t hash;
static sim_trace_sink_fn sink;
static void *sink_arg;

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

struct interned {
	char *s;
	uint64_t h;
};
static struct interned *strs;
static size_t nstrs, capstrs;	/* open addressing; capstrs is a power of two */

struct object {
	const void *p;
	size_t size;
	const char *name;
	uint64_t fake;
};
static struct object *objs;	/* sorted by address, for lookups only */
static size_t nobjs, capobjs;

struct symbol {
	const void *fn;
	const char *name;
};
static struct symbol *syms;
static size_t nsyms, capsyms;
static const char *prefixes[8];
static size_t nprefixes;

/* Open addressing over pointer values: lookups only, never iterated. */
static struct { const void *p; uint64_t id; } *unknown;
static size_t nunknown, capunknown;
static uint64_t next_unknown_id;

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * FNV_PRIME;
	return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * FNV_PRIME;
	return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
	return s ? fnv(h, s, strlen(s) + 1) : fnv_u64(h, 0);
}

void sim_trace_init(void)
{
	nrecs = 0;
	hash = FNV_OFFSET;
}

void sim_trace_fini(bool keep)
{
	nrecs = 0;
	for (size_t i = 0; i < capstrs; i++) {
		free(strs[i].s);
		strs[i].s = NULL;
	}
	nstrs = 0;
	/* a sink set before sim_init() serves every run until the machine's teardown */
	if (keep)
		return;
	free(recs);
	recs = NULL;
	caprecs = 0;
	sink = NULL;
	sink_arg = NULL;
	free(strs);
	strs = NULL;
	nstrs = capstrs = 0;
}

void sim_objects_fini(bool keep)
{
	nobjs = nsyms = nunknown = 0;
	next_unknown_id = 0;
	nprefixes = 0;
	if (keep) {
		if (unknown)	/* open addressing: an empty table is all empty slots */
			memset(unknown, 0, capunknown * sizeof(*unknown));
		return;
	}
	free(objs);
	objs = NULL;
	capobjs = 0;
	free(syms);
	syms = NULL;
	capsyms = 0;
	free(unknown);
	unknown = NULL;
	capunknown = 0;
}

const char *sim_intern(const char *s)
{
	uint64_t h;
	size_t i;

	if (!s)
		return NULL;
	if (2 * (nstrs + 1) > capstrs) {
		struct interned *old = strs;
		size_t oldcap = capstrs;

		capstrs = capstrs ? 2 * capstrs : 256;
		strs = calloc(capstrs, sizeof(*strs));
		if (!strs)
			abort();
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].s)
				continue;
			for (i = old[j].h & (capstrs - 1); strs[i].s; i = (i + 1) & (capstrs - 1))
				;
			strs[i] = old[j];
		}
		free(old);
	}
	h = fnv_str(FNV_OFFSET, s);
	for (i = h & (capstrs - 1); strs[i].s; i = (i + 1) & (capstrs - 1))
		if (strs[i].h == h && !strcmp(strs[i].s, s))
			return strs[i].s;
	strs[i].s = strdup(s);
	strs[i].h = h;
	if (!strs[i].s)
		abort();
	nstrs++;
	return strs[i].s;
}

static void append(struct sim_cpu *c, enum sim_rec_type type, uint64_t a, uint64_t b,
		   uint64_t cc, uint64_t d, const char *s, const char *s2)
{
	struct sim_rec r = { 0 };
	struct task_struct *p;
	uint64_t h = hash;

	/* a CPU's record carries that CPU's clock: its stream never goes back */
	r.time = c ? c->clock : sim.in_event ? sim.ev_time : sim_max_time();
	/*
	 * What no context of the machine does (setup, an event's own checks)
	 * is the boot CPU's, in whatever runs there: every line of a CPU names
	 * the task that CPU runs, and is no earlier than that CPU's clock.
	 */
	if (!c && sim.cfg.ncpus > 0) {
		c = &sim.cpus[0];
		if (r.time < c->clock)
			r.time = c->clock;
	}
	p = c ? c->curr : NULL;		/* NULL before the CPUs are made */
	r.a = a;
	r.b = b;
	r.c = cc;
	r.d = d;
	r.s = s;
	r.s2 = s2;
	r.type = (uint8_t)type;
	if (p) {
		unsigned int pc = c->preempt_count;

		r.cpu = (uint16_t)c->id;
		r.pid = p->pid;
		memcpy(r.comm, p->comm, sizeof(r.comm));
		/* tracing_gen_ctx_irq_test(): everything but irqs-off comes from preempt_count */
		r.preempt = (uint8_t)(pc & PREEMPT_MASK);
		r.flags = (c->irqs_disabled ? TRACE_FLAG_IRQS_OFF : 0) |
			  (c->need_resched ? TRACE_FLAG_NEED_RESCHED : 0) |
			  (pc & HARDIRQ_MASK ? TRACE_FLAG_HARDIRQ : 0) |
			  (pc & SOFTIRQ_OFFSET ? TRACE_FLAG_SOFTIRQ : 0) |
			  ((pc & SOFTIRQ_MASK) >> (SOFTIRQ_SHIFT + 1) ? TRACE_FLAG_BH_OFF : 0);
	}
	h = fnv_u64(h, r.time);
	h = fnv_u64(h, r.a);
	h = fnv_u64(h, r.b);
	h = fnv_u64(h, r.c);
	h = fnv_u64(h, r.d);
	h = fnv_u64(h, ((uint64_t)r.type << 32) | ((uint64_t)r.flags << 24) |
		       ((uint64_t)r.preempt << 16) | r.cpu);
	h = fnv_u64(h, (uint64_t)(uint32_t)r.pid);
	h = fnv_str(h, s);
	hash = fnv_str(h, s2);
	if (sink)
		sink(sink_arg, &r);
	if (!sim.cfg.keep_trace)
		return;
	if (nrecs == caprecs) {
		caprecs = caprecs ? 2 * caprecs : 1024;
		recs = realloc(recs, caprecs * sizeof(*recs));
		if (!recs)
			abort();
	}
	recs[nrecs++] = r;
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
	return nrecs;
}

const struct sim_rec *sim_trace_records(void)
{
	return recs;
}

uint64_t sim_trace_hash(void)
{
	return hash;
}

const char *sim_rec_type_name(enum sim_rec_type type)
{
	static const char *const names[REC__COUNT] = {
		[REC_SCHED_SWITCH] = "sched_switch",
		[REC_SCHED_WAKING] = "sched_waking",
		[REC_TIMER_START] = "timer_start",
		[REC_TIMER_EXPIRE_ENTRY] = "timer_expire_entry",
		[REC_TIMER_EXPIRE_EXIT] = "timer_expire_exit",
		[REC_TIMER_CANCEL] = "timer_cancel",
		[REC_LOCK_CONTENDED] = "lock_contended",
		[REC_IRQ_ENTRY] = "irq_handler_entry",
		[REC_IRQ_EXIT] = "irq_handler_exit",
		[REC_SOFTIRQ_ENTRY] = "softirq_entry",
		[REC_SOFTIRQ_EXIT] = "softirq_exit",
		[REC_FINDING] = "kwsim_finding",
		[REC_FREEZER] = "kwsim_freezer",
		[REC_TASK_NEW] = "task_newtask",
		[REC_TASK_EXIT] = "sched_process_exit",
		[REC_MODEL] = "model",
		[REC_PRINTK] = "console",
	};
	return type < REC__COUNT ? names[type] : "?";
}

/* --- stable names ------------------------------------------------------------------ */

static struct object *find_object(const void *p)
{
	size_t lo = 0, hi = nobjs;
	uintptr_t a = (uintptr_t)p;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uintptr_t base = (uintptr_t)objs[mid].p;

		if (a < base)
			hi = mid;
		else if (a >= base + (objs[mid].size ? objs[mid].size : 1))
			lo = mid + 1;
		else
			return &objs[mid];
	}
	return NULL;
}


static uint64_t unknown_id(const void *p, bool fresh)
{
	uint64_t h = fnv_u64(FNV_OFFSET, (uint64_t)(uintptr_t)p);
	size_t i;

	if (2 * (nunknown + 1) > capunknown) {
		__typeof__(unknown) old = unknown;
		size_t oldcap = capunknown;

		capunknown = capunknown ? 2 * capunknown : 64;
		unknown = calloc(capunknown, sizeof(*unknown));
		if (!unknown)
			abort();
		for (size_t j = 0; j < oldcap; j++) {
			if (!old[j].p)
				continue;
			h = fnv_u64(FNV_OFFSET, (uint64_t)(uintptr_t)old[j].p);
			for (i = h & (capunknown - 1); unknown[i].p; i = (i + 1) & (capunknown - 1))
				;
			unknown[i] = old[j];
		}
		free(old);
		h = fnv_u64(FNV_OFFSET, (uint64_t)(uintptr_t)p);
	}
	for (i = h & (capunknown - 1); unknown[i].p; i = (i + 1) & (capunknown - 1)) {
		if (unknown[i].p != p)
			continue;
		if (fresh)
			unknown[i].id = next_unknown_id++;
		return unknown[i].id;
	}
	unknown[i].p = p;
	unknown[i].id = next_unknown_id++;
	nunknown++;
	return unknown[i].id;
}

void sim_register_object(const void *p, size_t size, const char *name)
{
	size_t i;

	if (find_object(p))
		return;
	if (nobjs == capobjs) {
		capobjs = capobjs ? 2 * capobjs : 64;
		objs = realloc(objs, capobjs * sizeof(*objs));
		if (!objs)
			abort();
	}
	for (i = nobjs; i > 0 && (uintptr_t)objs[i - 1].p > (uintptr_t)p; i--)
		objs[i] = objs[i - 1];
	/* ids in registration order: deterministic, unlike the addresses */
	objs[i] = (struct object){ p, size, sim_intern(name), 0xffffffffc0000000ULL + nobjs * 0x1000ULL };
	nobjs++;
}

/*
 * Objects the machine neither allocated nor was told about are numbered in
 * order of first sight. Those on the simulated stacks need more: where a
 * stack slot falls differs between builds, so two objects share an address
 * in one build and not in another. They are numbered by birth instead:
 * sim_fake_addr_new() at each birth (a timer set up, a work queued) gives a
 * stack address a fresh number, and later sightings find it.
 */
static uint64_t fake_addr(const void *p, bool fresh)
{
	struct object *o;
	uint64_t fake;

	if (!p)
		return 0;
	if (sim_slab_fake_addr(p, &fake))
		return fake;
	o = find_object(p);
	if (o)
		return o->fake + (uint64_t)((const char *)p - (const char *)o->p);
	return 0xffffc90000000000ULL + unknown_id(p, fresh && sim_on_stack(p)) * 0x100ULL;
}

uint64_t sim_fake_addr(const void *p)
{
	return fake_addr(p, false);
}

uint64_t sim_fake_addr_new(const void *p)
{
	return fake_addr(p, true);
}

const char *sim_object_name(const void *p)
{
	struct object *o = p ? find_object(p) : NULL;
	static char buf[48];

	if (o && o->name)
		return o->name;
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)sim_fake_addr(p));
	return buf;
}

void sim_register_symbol(const void *fn, const char *name)
{
	for (size_t i = 0; i < nsyms; i++) {
		if (syms[i].fn == fn)
			return;
	}
	if (nsyms == capsyms) {
		capsyms = capsyms ? 2 * capsyms : 64;
		syms = realloc(syms, capsyms * sizeof(*syms));
		if (!syms)
			abort();
	}
	syms[nsyms++] = (struct symbol){ fn, sim_intern(name) };
}

void sim_register_symbol_prefix(const char *prefix)
{
	for (size_t i = 0; i < nprefixes; i++)
		if (!strcmp(prefixes[i], prefix))
			return;
	if (nprefixes < sizeof(prefixes) / sizeof(prefixes[0]))
		prefixes[nprefixes++] = prefix;
}

const char *sim_unprefix(const char *name)
{
	for (size_t i = 0; name && i < nprefixes; i++) {
		size_t n = strlen(prefixes[i]);

		if (!strncmp(name, prefixes[i], n))
			return name + n;
	}
	return name;
}

const char *sim_symbol(const void *fn)
{
	for (size_t i = 0; i < nsyms; i++)
		if (syms[i].fn == fn)
			return syms[i].name;
	return fn ? "?" : NULL;
}
