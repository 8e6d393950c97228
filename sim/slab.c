/*
 * The checking allocator. Each block gets pages of its own, followed by a
 * page nobody maps, in one arena reserved once per process (kasan.c's
 * shadow covers it, so checking an address is one compare); kfree() marks
 * them freed and keeps them until the run ends, so any later touch is
 * reported, naming the block, where it was allocated and where it was
 * freed. How a touch is caught depends on the build: where the model is
 * instrumented (KWSIM_KASAN: -fsanitize=kernel-address, outline), each
 * access asks kasan.c's shadow and nothing else is done; in the sanitizer
 * build, which cannot instrument so, kfree() makes the pages PROT_NONE and
 * the fault handler reports (about 41 us a kfree() on this guest, the TLB
 * shootdown, against a few for a whole run of a small race). Blocks are
 * numbered in allocation order, which gives
 * them stable fake addresses. What is live when the machine comes to rest
 * and nothing live refers to is a leak, as kmemleak would report it (a
 * block a live kthread holds, such as a worker whose thread still waits
 * for work, is not). kmalloc(0) returns ZERO_SIZE_PTR, as the kernel's does.
 *
 * A reset keeps the run's mappings for the next run's blocks of the same
 * size: a freed one is made accessible again only when it is handed out,
 * so a block freed in this run faults on touch as in the first run. Once
 * the arena is used up (4 GiB of blocks and guard pages not yet given back
 * by a teardown), blocks are mapped on their own and guarded by their
 * pages in every build.
 */
#include "machine.h"
#include <linux/slab.h>
#include <linux/sched.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(KWSIM_ASAN) || defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/*
 * A fresh mapping may sit where a coroutine stack of an earlier machine
 * was, whose abandoned frames left their redzones poisoned in the shadow.
 */
#define fresh_mapping(p, size)	__asan_unpoison_memory_region(p, size)
#else
#define fresh_mapping(p, size)	do { } while (0)
#endif

struct slab_block {
	void *base;		/* the mapping */
	size_t map_size;
	void *ptr;		/* what kmalloc returned */
	size_t size;
	uint64_t id;
	bool freed;
	const struct sim_site *alloc_site, *free_site;
	char owner[TASK_COMM_LEN];
	char freer[TASK_COMM_LEN];	/* the context that freed it */
	const char *free_note;		/* and its sim_note() then (interned), or NULL */
	uint64_t freed_at;		/* the freeing CPU's clock (an event's time; setup: 0) */
	uint16_t free_cpu;		/* and that CPU (an event's or setup's: 0, as traced) */
};

/*
 * At most this many mappings are kept for the next run: an allocation
 * searches them for one of its size, and the search must stay short. A run
 * of more blocks maps the rest anew.
 */
#define SLAB_KEEP	1024

struct slab_spare {
	void *base;
	size_t map_size;
	bool inaccessible;	/* a freed block's: PROT_NONE */
};

/* The arena: [lo, lo + SIM_ARENA_SIZE), handed out from lo upwards up to used. */
static struct {
	char *lo;
	size_t used;
} arena;

static bool in_arena(const void *p)
{
	return arena.lo && (uintptr_t)p - (uintptr_t)arena.lo < SIM_ARENA_SIZE;
}

/*
 * Whether kfree() must take a block's pages away: where nothing checks
 * accesses, or for a block outside the arena, which no shadow covers.
 * KWSIM_KASAN_VERIFY keeps both, to show the check misses nothing the
 * guard catches (machine.c's on_fault then aborts).
 */
static bool protect(const void *base)
{
#if defined(KWSIM_KASAN) && !defined(KWSIM_KASAN_VERIFY)
	return !in_arena(base);
#else
	(void)base;
	return true;
#endif
}

/* map_size bytes of the arena, read-write, and a guard page after them; NULL if full. */
static void *arena_take(size_t map_size)
{
	size_t pg = coro_page_size();
	void *p;

	if (!arena.lo) {
		p = mmap(NULL, SIM_ARENA_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		arena.lo = p;
		sim_kasan_arena(p);
	}
	if (SIM_ARENA_SIZE - arena.used < map_size + pg)
		return NULL;
	p = arena.lo + arena.used;
	if (mprotect(p, map_size, PROT_READ | PROT_WRITE))
		return NULL;
	arena.used += map_size + pg;
	return p;
}

/*
 * Give a block's mapping back. The arena's pages become a reservation
 * again, in the arena's place (they return to use at the teardown).
 */
static void unmap_block(void *base, size_t map_size)
{
	if (in_arena(base))
		mmap(base, map_size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	else
		munmap(base, map_size);
}

/*
 * The teardown: the arena's pages go, all of it becomes a reservation
 * again, with no block marked freed.
 */
static void arena_reset(void)
{
	if (!arena.used)
		return;
	mmap(arena.lo, arena.used, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
	     -1, 0);
	sim_kasan_unpoison(arena.lo, arena.used);
	arena.used = 0;
}

void sim_slab_init(void)
{
	sim.slab.nblocks = 0;
	sim.slab.next_id = 0;
}

static void keep_mapping(const struct slab_block *b)
{
	if (sim.slab.nspares == sim.slab.capspares)
		sim.slab.spares = sim_grow(sim.slab.spares, &sim.slab.capspares, sizeof(*sim.slab.spares), 64);
	sim.slab.spares[sim.slab.nspares++] = (struct slab_spare){ b->base, b->map_size, b->freed };
}

void sim_slab_fini(bool keep)
{
	for (size_t i = 0; i < sim.slab.nblocks; i++) {
		if (keep && sim.slab.nspares < SLAB_KEEP)
			keep_mapping(&sim.slab.blocks[i]);
		else if (keep || !in_arena(sim.slab.blocks[i].base))	/* else: arena_reset() */
			unmap_block(sim.slab.blocks[i].base, sim.slab.blocks[i].map_size);
	}
	sim.slab.nblocks = 0;
	if (keep)
		return;
	for (size_t i = 0; i < sim.slab.nspares; i++)
		if (!in_arena(sim.slab.spares[i].base))
			munmap(sim.slab.spares[i].base, sim.slab.spares[i].map_size);
	arena_reset();
	free(sim.slab.spares);
	sim.slab.spares = NULL;
	sim.slab.nspares = sim.slab.capspares = 0;
	free(sim.slab.blocks);
	sim.slab.blocks = NULL;
	sim.slab.capblocks = 0;
	free(sim.slab.live);
	free(sim.slab.ref);
	free(sim.slab.queue);
	sim.slab.live = NULL;
	sim.slab.ref = NULL;
	sim.slab.queue = NULL;
	sim.slab.capscan = 0;
}

/* A mapping of map_size bytes, read-write and zeroed as a fresh one is; NULL if none. */
static void *map_block(size_t map_size)
{
	void *p;

	for (size_t i = sim.slab.nspares; i > 0; i--) {
		struct slab_spare *s = &sim.slab.spares[i - 1];

		if (s->map_size != map_size)
			continue;
		p = s->base;
		if (s->inaccessible && protect(p) && mprotect(p, map_size, PROT_READ | PROT_WRITE))
			return NULL;
		*s = sim.slab.spares[--sim.slab.nspares];
		sim_kasan_unpoison(p, map_size);
		fresh_mapping(p, map_size);
		memset(p, 0, map_size);
		return p;
	}
	p = arena_take(map_size);
	if (!p) {
		p = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
	}
	fresh_mapping(p, map_size);
	return p;
}

/* The block whose mapping holds addr, or NULL. */
static struct slab_block *find(const void *addr)
{
	size_t lo = 0, hi = sim.slab.nblocks;
	uintptr_t a = (uintptr_t)addr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uintptr_t base = (uintptr_t)sim.slab.blocks[mid].base;

		if (a < base)
			hi = mid;
		else if (a >= base + sim.slab.blocks[mid].map_size)
			lo = mid + 1;
		else
			return &sim.slab.blocks[mid];
	}
	return NULL;
}

/*
 * A context of the machine runs (not setup code, not an event callback on
 * the machine's own stack): only then is there a task to check and a CPU
 * to charge.
 */
static bool in_context(void)
{
	return sim.cur && sim.cur_cpu && !sim.in_event;
}

void *sim_kmalloc(size_t size, gfp_t flags, const struct sim_site *site)
{
	size_t pg = coro_page_size();
	size_t map_size = (size + pg - 1) / pg * pg;
	struct slab_block b = { 0 };
	size_t i;

	if ((flags & __GFP_DIRECT_RECLAIM) && in_context())
		sim_might_sleep(site);
	if (!size)
		return ZERO_SIZE_PTR;
	sim_footprint_touch(SIM_FP_ALLOC, true);	/* numbers go by allocation order */
	b.base = map_block(map_size);
	if (!b.base)
		return NULL;
	/* place the block at the end of its pages, so overruns leave the mapping */
	b.ptr = (char *)b.base + ((map_size - size) & ~(size_t)15);
	b.map_size = map_size;
	b.size = size;
	b.id = sim.slab.next_id++;
	b.alloc_site = site;
	if (in_context())
		strncpy(b.owner, sim_ctx_name(sim.cur), sizeof(b.owner) - 1); /* b is zeroed */
	if (!(flags & __GFP_ZERO))
		memset(b.ptr, 0x6b, size);	/* POISON_INUSE-like garbage, deterministic */
	if (sim.slab.nblocks == sim.slab.capblocks)
		sim.slab.blocks = sim_grow(sim.slab.blocks, &sim.slab.capblocks, sizeof(*sim.slab.blocks), 64);
	for (i = sim.slab.nblocks;
	     i > 0 && (uintptr_t)sim.slab.blocks[i - 1].base > (uintptr_t)b.base; i--)
		sim.slab.blocks[i] = sim.slab.blocks[i - 1];
	sim.slab.blocks[i] = b;
	sim.slab.nblocks++;
	if (in_context())
		sim.cur_cpu->clock += sim.cfg.costs.alloc;
	return b.ptr;
}

void sim_kfree(const void *p, const struct sim_site *site)
{
	struct slab_block *b;

	if (ZERO_OR_NULL_PTR(p))
		return;
	if (IS_ERR(p)) {
		sim_report(SIM_F_BAD_FREE, site, "kfree() of error pointer %ld", PTR_ERR(p));
		return;
	}
	sim_footprint_touch(SIM_FP_ALLOC, true);
	b = find(p);
	if (!b || b->ptr != p) {
		sim_report(SIM_F_BAD_FREE, site, "kfree() of %s pointer %#llx",
			   b ? "a misaligned" : "an unknown", (unsigned long long)sim_fake_addr(p));
		return;
	}
	if (b->freed) {
		sim_report(SIM_F_DOUBLE_FREE, site,
			   "double free of block #%llu (%zu bytes, allocated in %s, freed in %s)",
			   (unsigned long long)b->id, b->size,
			   b->alloc_site ? sim_unprefix(b->alloc_site->func) : "?",
			   b->free_site ? sim_unprefix(b->free_site->func) : "?");
		return;
	}
	b->freed = true;
	b->free_site = site;
	b->freed_at = sim.cur_cpu || sim.in_event ? sim_now() : 0;
	b->free_cpu = sim.cur_cpu && !sim.in_event ? (uint16_t)sim.cur_cpu->id : 0;
	if (in_context()) {
		snprintf(b->freer, sizeof(b->freer), "%s", sim_ctx_name(sim.cur));
		b->free_note = sim_ctx_note(sim.cur)[0] ? sim_intern(sim.cur->note) : NULL;
	}
	sim_kasan_poison(b->base, b->map_size);
	if (protect(b->base))
		mprotect(b->base, b->map_size, PROT_NONE);
}

/*
 * KASAN's report, in words the machine has: the function that touched, the
 * task it ran in, the block, and who allocated and freed it where (the
 * freeing context's note names the scenario line). *freed_at, *free_cpu:
 * when and where the free was, which the access comes after: the free hands
 * the memory over as a release hands over a lock.
 */
bool sim_slab_fault(const void *addr, const char *func, const struct sim_ctx *x, char *msg,
		    size_t len, uint64_t *freed_at, uint16_t *free_cpu)
{
	struct slab_block *b = find(addr);
	const struct task_struct *t = x->kind == CTX_TASK ? x->task : x->cpu->curr;
	uint64_t fake = 0;

	if (!b || !b->freed)
		return false;
	sim_slab_fake_addr(addr, &fake);
	*freed_at = b->freed_at;
	*free_cpu = b->free_cpu;
	snprintf(msg, len,
		 "BUG: KASAN: slab-use-after-free%s%s\n"
		 "  Access at addr %016llx by task %s/%d%s%s%s\n"
		 "  The buggy address is %td bytes inside block #%llu of %zu bytes\n"
		 "  Allocated by %s in %s\n"
		 "  Freed by %s in %s%s%s",
		 func ? " in " : "", func ? func : "", (unsigned long long)fake, t->comm, t->pid,
		 x->kind == CTX_TASK ? "" : " (", x->kind == CTX_TASK ? "" : sim_ctx_name(x),
		 x->kind == CTX_TASK ? "" : ")",
		 (const char *)addr - (const char *)b->ptr, (unsigned long long)b->id, b->size,
		 b->owner[0] ? b->owner : "setup",
		 b->alloc_site ? sim_unprefix(b->alloc_site->func) : "?",
		 b->freer[0] ? b->freer : "setup",
		 b->free_site ? sim_unprefix(b->free_site->func) : "?",
		 b->free_note ? " during " : "", b->free_note ? b->free_note : "");
	return true;
}

static int by_id(const void *a, const void *b)
{
	const struct slab_block *x = *(const struct slab_block *const *)a;
	const struct slab_block *y = *(const struct slab_block *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The live block p points into (anywhere in it, as kmemleak counts), or NULL. */
static struct slab_block *live_block_at(uintptr_t p)
{
	struct slab_block *b = find((const void *)p);

	if (!b || b->freed || p < (uintptr_t)b->ptr || p >= (uintptr_t)b->ptr + b->size)
		return NULL;
	return b;
}

/* Mark b referenced and queue it for its own scan, once. */
static void reference(struct slab_block *b, bool *ref, size_t *queue, size_t *nq)
{
	size_t i = (size_t)(b - sim.slab.blocks);

	if (!ref[i]) {
		ref[i] = true;
		queue[(*nq)++] = i;
	}
}

/*
 * kmemleak's scan, on what the machine knows: the roots are the threads
 * still alive at the end (not exited: a kthread asleep, as a worker's
 * thread waiting for work), each holding its thread function's data, as
 * its struct kthread and stack do; then every referenced block's words,
 * read as pointers (conservatively, as kmemleak reads them), reference the
 * blocks they point into. ref[i]: block i is referenced. The work is the
 * live blocks' size, once, at the end of a run.
 */
static void mark_referenced(bool *ref)
{
	size_t *queue = sim.slab.queue;
	size_t nq = 0;
	struct task_struct *p;
	struct slab_block *b;

	list_for_each_entry(p, &sim.tasks, all_node)
		if (p->__state != TASK_DEAD && (b = live_block_at((uintptr_t)p->data)))
			reference(b, ref, queue, &nq);
	while (nq) {
		const struct slab_block *r = &sim.slab.blocks[queue[--nq]];

		for (size_t off = 0; off + sizeof(uintptr_t) <= r->size; off += sizeof(uintptr_t)) {
			uintptr_t v;

			memcpy(&v, (const char *)r->ptr + off, sizeof(v));
			if ((b = live_block_at(v)))
				reference(b, ref, queue, &nq);
		}
	}
}

/*
 * Only a machine at rest leaks: after a deadlock or a limit the blocked or
 * unfinished tasks still own their blocks. A block something live refers
 * to (mark_referenced) is no leak. Reported in allocation order.
 */
void sim_slab_check_leaks(void)
{
	struct slab_block **live;
	bool *ref;
	size_t n = 0;

	if (sim.end != SIM_END_QUIESCENT || !sim.slab.nblocks)
		return;
	/* every run that comes to rest scans: its arrays are kept, as the blocks' */
	if (sim.slab.nblocks > sim.slab.capscan) {
		sim.slab.capscan = sim.slab.capblocks;
		free(sim.slab.live);
		free(sim.slab.ref);
		free(sim.slab.queue);
		sim.slab.live = malloc(sim.slab.capscan * sizeof(*sim.slab.live));
		sim.slab.ref = malloc(sim.slab.capscan * sizeof(*sim.slab.ref));
		sim.slab.queue = malloc(sim.slab.capscan * sizeof(*sim.slab.queue));
		if (!sim.slab.live || !sim.slab.ref || !sim.slab.queue)
			abort();
	}
	live = sim.slab.live;
	ref = sim.slab.ref;
	memset(ref, 0, sim.slab.nblocks * sizeof(*ref));
	mark_referenced(ref);
	for (size_t i = 0; i < sim.slab.nblocks; i++)
		if (!sim.slab.blocks[i].freed && !ref[i])
			live[n++] = &sim.slab.blocks[i];
	qsort(live, n, sizeof(*live), by_id);
	for (size_t i = 0; i < n; i++) {
		struct slab_block *b = live[i];

		sim_report(SIM_F_LEAK, b->alloc_site,
			   "unreferenced object #%llu (size %zu): allocated by %s in %s",
			   (unsigned long long)b->id, b->size, b->owner[0] ? b->owner : "setup",
			   b->alloc_site ? sim_unprefix(b->alloc_site->func) : "?");
	}
}

bool sim_freed(const void *p)
{
	struct slab_block *b = find(p);

	return b && b->freed;
}

/* Stable fake address of a heap block: ids, not real addresses. */
bool sim_slab_fake_addr(const void *p, uint64_t *out)
{
	struct slab_block *b = find(p);

	if (!b)
		return false;
	*out = 0xffff888100000000ULL + b->id * 0x10000ULL +
	       (uint64_t)((const char *)p - (const char *)b->ptr);
	return true;
}
