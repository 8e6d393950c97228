/*
 * KASAN's outline checks: where the build instruments the model (and the
 * machine's code that reads model memory) with -fsanitize=kernel-address in
 * outline mode, every load and store calls __asan_{load,store}N_noabort()
 * with its address, as every access of an instrumented kernel calls into
 * mm/kasan. The answer comes from a shadow over the slab's arena (slab.c):
 * one byte per 4 KiB granule, set while the block on it is freed. An
 * address outside the arena (stacks, globals, the machine's own heap: most
 * of what the model touches) costs a subtraction and one well-predicted
 * branch; one inside it a byte read. A touch of a freed block is reported
 * by the machine's fault path (sim_bad_access()), as the fault on a
 * PROT_NONE page was, so the finding is the same words either way; what
 * it saves is kfree()'s mprotect, about 41 us on this guest (a TLB
 * shootdown) where a run of a small race costs 10 to 20.
 *
 * The shadow is kept in every build; only builds without AddressSanitizer
 * instrument (-fsanitize=address and kernel-address do not combine, and
 * ASan's runtime defines these entry points itself): there kfree() makes
 * the pages inaccessible instead (slab.c).
 */
#include "machine.h"

#include <string.h>

#define GRANULE_SHIFT	12

/* The arena's first byte; far above anything mapped until slab.c sets it. */
static uintptr_t arena_lo = UINTPTR_MAX - 2 * SIM_ARENA_SIZE;
/* freed[i]: granule i of the arena holds a freed block; one spare at the end */
static uint8_t freed[(SIM_ARENA_SIZE >> GRANULE_SHIFT) + 1];

void sim_kasan_arena(const void *lo)
{
	arena_lo = (uintptr_t)lo;
}

static void mark(const void *p, size_t len, uint8_t v)
{
	uintptr_t off = (uintptr_t)p - arena_lo;

	if (off >= SIM_ARENA_SIZE || !len)
		return;
	memset(&freed[off >> GRANULE_SHIFT], v, ((len - 1) >> GRANULE_SHIFT) + 1);
}

void sim_kasan_poison(const void *p, size_t len)
{
	mark(p, len, 1);
}

void sim_kasan_unpoison(const void *p, size_t len)
{
	mark(p, len, 0);
}

bool sim_kasan_poisoned(const void *p)
{
	uintptr_t off = (uintptr_t)p - arena_lo;

	return off < SIM_ARENA_SIZE && freed[off >> GRANULE_SHIFT];
}

#ifdef KWSIM_KASAN
/*
 * An access of n bytes at a. Blocks are granule-aligned and end their
 * pages, so an access reaching a freed granule from a live one is an
 * overrun; either way the first freed byte is what the fault named.
 */
static inline __attribute__((always_inline)) void check(uintptr_t a, size_t n)
{
	uintptr_t off = a - arena_lo, last;

	if (__builtin_expect(off >= SIM_ARENA_SIZE, 1))
		return;
	if (freed[off >> GRANULE_SHIFT]) {
		sim_bad_access((const void *)a);
		return;
	}
	last = n ? off + n - 1 : off;
	if (last >= SIM_ARENA_SIZE)
		last = SIM_ARENA_SIZE;		/* the spare byte: never set */
	if (freed[last >> GRANULE_SHIFT])
		sim_bad_access((const void *)(arena_lo + (last & ~(((uintptr_t)1 << GRANULE_SHIFT) - 1))));
}

#define KASAN_CHECKS(size)							\
	void __asan_load##size##_noabort(uintptr_t a);				\
	void __asan_store##size##_noabort(uintptr_t a);				\
	void __asan_load##size##_noabort(uintptr_t a) { check(a, size); }	\
	void __asan_store##size##_noabort(uintptr_t a) { check(a, size); }

KASAN_CHECKS(1)
KASAN_CHECKS(2)
KASAN_CHECKS(4)
KASAN_CHECKS(8)
KASAN_CHECKS(16)

void __asan_loadN_noabort(uintptr_t a, size_t n);
void __asan_storeN_noabort(uintptr_t a, size_t n);

void __asan_loadN_noabort(uintptr_t a, size_t n)
{
	check(a, n);
}

void __asan_storeN_noabort(uintptr_t a, size_t n)
{
	check(a, n);
}

void sim_kasan_check(const void *p, size_t n)
{
	check((uintptr_t)p, n);
}

/* Called before a noreturn call (abort()): no stack is poisoned, nothing to undo. */
void __asan_handle_no_return(void);

void __asan_handle_no_return(void)
{
}
#endif
