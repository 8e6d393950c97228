/*
 * Coroutines: one stack per simulated context, switched by hand-written
 * assembly that saves only the callee-saved registers. No system call per
 * switch, so millions of switches per second are cheap.
 */
#ifndef SIM_CORO_H
#define SIM_CORO_H

#include <stddef.h>

struct coro {
	void *sp;		/* saved stack pointer while switched out */
	void *stack;		/* lowest mapped byte, the guard page included */
	size_t size;		/* mapping size, guard included */
	const void *asan_bottom;	/* the sanitizer's idea of this stack */
	size_t asan_size;
	unsigned valgrind_id;	/* the stack's registration, under valgrind */
};

typedef void (*coro_fn)(void *arg);

/* The host context: the thread that called sim_run(). Has no stack of its own. */
void coro_init_host(struct coro *host);

/* Map a stack with a PROT_NONE guard page below it. Returns 0 or -errno. */
int coro_alloc(struct coro *c, size_t stack_size);
void coro_free(struct coro *c);

/*
 * Stacks kept for the next run of a machine: mapped, guarded, and known to
 * valgrind and the sanitizer as stacks, so a run costs no system call for
 * them once the first run has mapped as many as it needs.
 */
struct coro_pool {
	struct coro *idle;
	size_t n, cap;
};

/* A stack of this size from the pool, else a new one (coro_alloc()). */
int coro_pool_get(struct coro_pool *pool, struct coro *c, size_t stack_size);
/* Give c's stack to the pool; c is left without one. */
void coro_pool_put(struct coro_pool *pool, struct coro *c);
/* Unmap every stack in the pool and its own array. */
void coro_pool_drain(struct coro_pool *pool);

/* (Re)start c at fn(arg) the next time it is switched to. */
void coro_prepare(struct coro *c, coro_fn fn, void *arg);

/*
 * Switch from the running coroutine to 'to'. 'dying' says 'from' will never
 * be resumed, which the sanitizer needs to know to drop its fake stack.
 */
void coro_switch(struct coro *from, struct coro *to, int dying);

/* Whether addr lies in the guard page of c. */
int coro_in_guard(const struct coro *c, const void *addr);

size_t coro_page_size(void);

/*
 * Leave 'from' for good by a longjmp to the host (a fatal fault): tell the
 * sanitizer before the jump, and again once on the host's stack.
 */
void coro_abandon(struct coro *from, struct coro *host);
void coro_abandoned(void);

#endif
