/*
 * Reads-from pairs: which context's write a context reads, for coverage
 * of communication (RFF, ASPLOS 2024: a fuzzer that counts the pairs a run
 * shows and gives the rare ones more runs).
 *
 * kthread_worker's shared state is the worker's and works' fields, and the
 * code touches them under worker->lock or with READ_ONCE / WRITE_ONCE (see
 * footprint.c). So what a context reads from another is carried by:
 * - a spinlock: the site that released it last -> the site that takes it;
 * - WRITE_ONCE -> a later READ_ONCE of the same object;
 * - complete() -> the waiter's return from its wait (or a successful
 *   try_wait_for_completion), complete()'s site being the completer's
 *   function as sim_ctx_site() knows it;
 * - a timer armed -> its callback running (the arming context's function
 *   -> the callback, both named as sites of their own).
 * Each object keeps its last writer (site and context); a read by another
 * context is a pair, handed to cfg.on_rf. Objects are keyed as footprints
 * key them (sim_object_key), so a block freed and allocated again is a new
 * object, alike in every build. Contexts are told apart by pid, or by CPU
 * for an interrupt frame; a thread, a kthread_worker's thread, a hard
 * interrupt and a softirq are the pair's context kinds.
 *
 * Nothing here runs without cfg.on_rf (the hooks test it first), and what
 * runs with it only writes this table: no run changes.
 */
#include "machine.h"
#include <sim/fnv.h>

#include <stdlib.h>
#include <string.h>

/* A slot is in use in the run its stamp names: a new run empties the table at no cost. */
struct rf_last {
	uint64_t key;
	uint64_t run;
	const struct sim_site *site;
	int ctx;
	enum sim_rf_ctx kind;
};

void sim_rf_init(void)
{
	sim.rf.n = 0;
	sim.rf.nfns = 0;
	sim.rf.run++;		/* never 0: that marks a site of the program's image */
	if (!sim.rf.run)
		sim.rf.run++;
}

void sim_rf_fini(bool keep)
{
	if (keep)
		return;
	memset(sim.rf.cache, 0, sizeof(sim.rf.cache));
	free(sim.rf.slots);
	sim.rf.slots = NULL;
	sim.rf.n = sim.rf.cap = 0;
}

static size_t slot_of(const struct rf_last *tab, size_t cap, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);

	while (tab[i].run == sim.rf.run && tab[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static struct rf_last *find(uint64_t key, bool add)
{
	size_t i;

	if (add && 2 * (sim.rf.n + 1) > sim.rf.cap) {
		struct rf_last *old = sim.rf.slots;
		size_t oldcap = sim.rf.cap;

		sim.rf.cap = oldcap ? 2 * oldcap : 256;
		sim.rf.slots = calloc(sim.rf.cap, sizeof(*sim.rf.slots));
		if (!sim.rf.slots)
			abort();
		for (size_t j = 0; j < oldcap; j++)
			if (old[j].run == sim.rf.run)
				sim.rf.slots[slot_of(sim.rf.slots, sim.rf.cap, old[j].key)] = old[j];
		free(old);
	}
	if (!sim.rf.cap)
		return NULL;
	i = slot_of(sim.rf.slots, sim.rf.cap, key);
	if (sim.rf.slots[i].run != sim.rf.run) {
		if (!add)
			return NULL;
		sim.rf.slots[i] = (struct rf_last){ .key = key, .run = sim.rf.run };
		sim.rf.n++;
	}
	return &sim.rf.slots[i];
}

/* The running context as a number that names it alike in every run. */
static int ctx_id(const struct sim_ctx *x)
{
	switch (x->kind) {
	case CTX_HARDIRQ:
		return -1 - 2 * x->cpu->id;
	case CTX_SOFTIRQ:
		return -2 - 2 * x->cpu->id;
	case CTX_TASK:
		break;
	}
	return x->task->pid;
}

static enum sim_rf_ctx ctx_kind(const struct sim_ctx *x)
{
	enum sim_rf_ctx kind;
	const char *fn;

	if (x->kind == CTX_HARDIRQ)
		return SIM_RF_HARDIRQ;
	if (x->kind == CTX_SOFTIRQ)
		return SIM_RF_SOFTIRQ;
	/* the thread functions looked up in this run: a run has few */
	for (unsigned int i = 0; i < sim.rf.nfns; i++)
		if (sim.rf.fns[i].fn == x->task->threadfn)
			return sim.rf.fns[i].kind;
	fn = x->task->threadfn ? sim_symbol((const void *)x->task->threadfn) : NULL;
	kind = fn && !strcmp(sim_unprefix(fn), "kthread_worker_fn") ? SIM_RF_WORKER : SIM_RF_THREAD;
	if (sim.rf.nfns < SIM_RF_FNS)
		sim.rf.fns[sim.rf.nfns++] = (__typeof__(sim.rf.fns[0])){ x->task->threadfn, kind };
	return kind;
}

void sim_rf_write(const void *obj, const struct sim_site *site)
{
	struct rf_last *w;

	if (!sim.cur || sim.in_event)
		return;
	w = find(sim_object_key(obj), true);
	w->site = site;
	w->ctx = ctx_id(sim.cur);
	w->kind = ctx_kind(sim.cur);
}

/* The linker's: where the program's own image (code, data, statics) begins and ends. */
extern const char __executable_start[], _end[];

/*
 * Site hashes by address. A site of SIM_HERE is a static of the program
 * and never changes: its entry stays. A site of sim_site_at() goes at a
 * reset and its address may come back as another site (and the strings it
 * pointed to, as another text): its entry holds for the run it was made in.
 */
uint64_t sim_site_hash_cached(const struct sim_site *site)
{
	size_t i = ((uintptr_t)site >> 4) & (SIM_RF_SITE_CACHE - 1);
	__typeof__(&sim.rf.cache[0]) e = &sim.rf.cache[i];

	if (!site)
		return sim_site_hash(NULL);
	if (e->site != site || (e->run && e->run != sim.rf.run)) {
		bool image = (const char *)site >= __executable_start && (const char *)site < _end;

		e->site = site;
		e->run = image ? 0 : sim.rf.run;
		e->hash = sim_site_hash(site);
	}
	return e->hash;
}

void sim_rf_read(const void *obj, const struct sim_site *site, enum sim_rf_via via)
{
	const struct rf_last *w;
	struct sim_rf rf;

	if (!sim.cur || sim.in_event)
		return;
	w = find(sim_object_key(obj), false);
	if (!w || w->ctx == ctx_id(sim.cur))
		return;
	rf = (struct sim_rf){
		.writer = w->site, .reader = site, .writer_kind = w->kind,
		.reader_kind = ctx_kind(sim.cur), .via = via,
		.writer_hash = sim_site_hash_cached(w->site), .reader_hash = sim_site_hash_cached(site),
	};
	rf.hash = sim_rf_hash_of(rf.writer_hash, rf.reader_hash, &rf);
	sim.cfg.on_rf(sim.cfg.on_rf_arg, &rf);
}

const struct sim_site *sim_rf_here(void)
{
	struct sim_site s;

	if (!sim.cur)
		return NULL;
	sim_ctx_site(sim.cur, &s);
	return sim_site_at(s.file ? s.file : "", s.file ? s.line : 0, s.func ? s.func : "?");
}

static uint64_t mix_word(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	return h * 0xbf58476d1ce4e5b9ULL;
}

uint64_t sim_site_hash(const struct sim_site *site)
{
	const char *base;
	uint64_t h = SIM_FNV_OFFSET;	/* FNV-1a, then a finaliser: bytes, never addresses */

	if (!site)
		return mix_word(h, 0);
	base = site->file ? strrchr(site->file, '/') : NULL;
	h = sim_fnv_str(h, base ? base + 1 : site->file);
	h = mix_word(h, (uint64_t)(int64_t)site->line);
	h = sim_fnv_str(h, site->func ? sim_unprefix(site->func) : NULL);
	return mix_word(h, 1);
}

uint64_t sim_rf_hash_of(uint64_t writer, uint64_t reader, const struct sim_rf *rf)
{
	uint64_t h = mix_word(writer, reader);

	h = mix_word(h, (uint64_t)rf->writer_kind << 8 | (uint64_t)rf->reader_kind);
	return mix_word(h, (uint64_t)rf->via);
}

uint64_t sim_rf_hash(const struct sim_rf *rf)
{
	return sim_rf_hash_of(sim_site_hash(rf->writer), sim_site_hash(rf->reader), rf);
}

const char *sim_rf_ctx_name(enum sim_rf_ctx kind)
{
	static const char *const names[] = { "thread", "worker", "hardirq", "softirq" };

	_Static_assert(sizeof(names) / sizeof(names[0]) == SIM_RF__COUNT, "a name per kind");
	return (unsigned int)kind < SIM_RF__COUNT ? names[kind] : "?";
}

const char *sim_rf_via_name(enum sim_rf_via via)
{
	static const char *const names[] = { "lock", "once", "completion", "timer" };

	_Static_assert(sizeof(names) / sizeof(names[0]) == SIM_RF_VIA__COUNT, "a name per way");
	return (unsigned int)via < SIM_RF_VIA__COUNT ? names[via] : "?";
}
