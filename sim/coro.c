/*
 * Coroutine stacks and switches. The frame a new coroutine starts from is
 * laid out exactly as coro_switch_asm leaves a suspended one, with the
 * trampoline as return address, so starting and resuming are one path.
 */
#include <sim/coro.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(KWSIM_ASAN) || defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/asan_interface.h>
#define CORO_ASAN 1
#else
#define CORO_ASAN 0
#endif

/*
 * Valgrind takes a jump of the stack pointer further than --max-stackframe
 * for a return to the same stack unless it knows the target is another
 * stack: every switch then reads as hundreds of uses of uninitialised values.
 * Each stack is registered while it is mapped. The client requests are a few
 * no-op instructions when the program does not run under valgrind.
 */
#ifdef KWSIM_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#define CORO_VALGRIND 1
#else
#define CORO_VALGRIND 0
#endif

/*
 * A coroutine abandoned mid-frame (a task asleep when the machine ends, an
 * interrupt frame restarted from the top) leaves its frames' redzones
 * poisoned, and unmapping does not clear the shadow: whatever runs on that
 * memory next would trip over them. Clear it whenever a stack starts over.
 */
static void unpoison(const void *p, size_t size)
{
#if CORO_ASAN
	__asan_unpoison_memory_region(p, size);
#else
	(void)p;
	(void)size;
#endif
}

void coro_switch_asm(void **save_sp, void *load_sp);
void coro_trampoline(void);

static size_t page_size;

size_t coro_page_size(void)
{
	if (!page_size)
		page_size = (size_t)sysconf(_SC_PAGESIZE);
	return page_size;
}

void coro_init_host(struct coro *host)
{
	memset(host, 0, sizeof(*host));
}

static size_t mapping_size(size_t stack_size)
{
	size_t pg = coro_page_size();

	return ((stack_size + pg - 1) / pg + 1) * pg;
}

int coro_alloc(struct coro *c, size_t stack_size)
{
	size_t pg = coro_page_size();
	size_t size = mapping_size(stack_size);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	memset(c, 0, sizeof(*c));
	if (p == MAP_FAILED)
		return -errno;
	if (mprotect(p, pg, PROT_NONE)) {
		int err = -errno;

		munmap(p, size);
		return err;
	}
	c->stack = p;
	c->size = size;
	c->asan_bottom = (char *)p + pg;
	c->asan_size = size - pg;
	unpoison(c->asan_bottom, c->asan_size);
#if CORO_VALGRIND
	c->valgrind_id = VALGRIND_STACK_REGISTER((char *)p + pg, (char *)p + size);
#endif
	return 0;
}

void coro_free(struct coro *c)
{
	if (c->stack) {
#if CORO_VALGRIND
		VALGRIND_STACK_DEREGISTER(c->valgrind_id);
#endif
		unpoison(c->asan_bottom, c->asan_size);
		munmap(c->stack, c->size);
	}
	memset(c, 0, sizeof(*c));
}

/*
 * Last in, first out: a run that maps its stacks in the same order as the
 * one before gets them back in the order it returned them. Which stack a
 * context gets shows nowhere (fake addresses come from ids), so any order
 * would do; this one keeps the hot stacks hot.
 */
int coro_pool_get(struct coro_pool *pool, struct coro *c, size_t stack_size)
{
	size_t size = mapping_size(stack_size);

	for (size_t i = pool->n; i > 0; i--) {
		if (pool->idle[i - 1].size != size)
			continue;
		*c = pool->idle[i - 1];
		pool->idle[i - 1] = pool->idle[--pool->n];
		c->sp = NULL;
		return 0;
	}
	return coro_alloc(c, stack_size);
}

void coro_pool_put(struct coro_pool *pool, struct coro *c)
{
	if (!c->stack)
		return;
	if (pool->n == pool->cap) {
		size_t cap = pool->cap ? 2 * pool->cap : 16;
		struct coro *idle = realloc(pool->idle, cap * sizeof(*idle));

		if (!idle) {
			coro_free(c);
			return;
		}
		pool->idle = idle;
		pool->cap = cap;
	}
	/* an abandoned frame's redzones must not trip the stack's next user */
	unpoison(c->asan_bottom, c->asan_size);
	pool->idle[pool->n++] = *c;
	memset(c, 0, sizeof(*c));
}

void coro_pool_drain(struct coro_pool *pool)
{
	for (size_t i = 0; i < pool->n; i++)
		coro_free(&pool->idle[i]);
	free(pool->idle);
	memset(pool, 0, sizeof(*pool));
}

int coro_in_guard(const struct coro *c, const void *addr)
{
	uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)c->stack;

	return c->stack && a >= lo && a < lo + coro_page_size();
}

void coro_prepare(struct coro *c, coro_fn fn, void *arg)
{
	uintptr_t top = ((uintptr_t)c->stack + c->size) & ~(uintptr_t)15;
	uint64_t *sp;

	unpoison(c->asan_bottom, c->asan_size);

#if defined(__x86_64__)
	/*
	 * After the switch pops 8 bytes of control words and six registers and
	 * 'ret' pops the trampoline, rsp must be 16-byte aligned so the
	 * trampoline's call gives fn the ABI's entry alignment.
	 */
	sp = (uint64_t *)top - 2;
	*--sp = (uint64_t)(uintptr_t)coro_trampoline;
	*--sp = 0;				/* rbp */
	*--sp = 0;				/* rbx */
	*--sp = (uint64_t)(uintptr_t)fn;	/* r12 */
	*--sp = (uint64_t)(uintptr_t)arg;	/* r13 */
	*--sp = 0;				/* r14 */
	*--sp = 0;				/* r15 */
	*--sp = 0x037f00001f80ULL;		/* mxcsr = 0x1f80, x87 cw = 0x37f */
#elif defined(__aarch64__)
	sp = (uint64_t *)(top - 176);
	memset(sp, 0, 176);
	sp[0] = (uint64_t)(uintptr_t)fn;		/* x19 */
	sp[1] = (uint64_t)(uintptr_t)arg;		/* x20 */
	sp[11] = (uint64_t)(uintptr_t)coro_trampoline;	/* x30 */
#else
#error "kwsim's coroutines support x86-64 and arm64"
#endif
	c->sp = sp;
}

/* The coroutine that switched last: the one a resumed side came from. */
static struct coro *switch_prev;

static void switch_done(void *fake)
{
#if CORO_ASAN
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(fake, &bottom, &size);
	/* The host's stack bounds are learnt when it first switches away. */
	if (switch_prev && !switch_prev->stack && !switch_prev->asan_bottom) {
		switch_prev->asan_bottom = bottom;
		switch_prev->asan_size = size;
	}
#else
	(void)fake;
#endif
}

void coro_entry(coro_fn fn, void *arg);
void coro_entry(coro_fn fn, void *arg)
{
	switch_done(NULL);
	fn(arg);
	__builtin_trap();	/* a coroutine's function must switch away, never return */
}

void coro_switch(struct coro *from, struct coro *to, int dying)
{
	void *fake = NULL;

#if CORO_ASAN
	__sanitizer_start_switch_fiber(dying ? NULL : &fake, to->asan_bottom, to->asan_size);
#else
	(void)dying;
#endif
	switch_prev = from;
	coro_switch_asm(&from->sp, to->sp);
	switch_done(fake);
}

void coro_abandon(struct coro *from, struct coro *host)
{
	(void)from;
#if CORO_ASAN
	__sanitizer_start_switch_fiber(NULL, host->asan_bottom, host->asan_size);
#else
	(void)host;
#endif
}

void coro_abandoned(void)
{
#if CORO_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
}
