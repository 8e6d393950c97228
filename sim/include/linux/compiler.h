/*
 * Compiler helpers. READ_ONCE and WRITE_ONCE are scheduling points of the
 * machine: the lockless reads and writes the kernel marks with them are
 * exactly where another CPU may slip in, so the simulator lets it.
 */
#ifndef _LINUX_COMPILER_H
#define _LINUX_COMPILER_H

#include <linux/types.h>
#include <sim/site.h>

/*
 * The scheduling point of a READ_ONCE / WRITE_ONCE of *p at site, then the
 * access's footprint and reads-from.
 */
void sim_once(const volatile void *p, int write, const struct sim_site *site);

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define __must_check	__attribute__((warn_unused_result))
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#define __maybe_unused	__attribute__((unused))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define noinline	__attribute__((noinline))
#define __init
#define __exit
#define __user
#define __rcu
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define notrace
#define __cold		__attribute__((cold))
/* as compiler-gcc.h and compiler-clang.h: KASAN does not check the function's accesses */
#ifdef __clang__
#define __no_sanitize_address	__attribute__((no_sanitize("address", "kernel-address")))
#else
#define __no_sanitize_address	__attribute__((no_sanitize_address))
#endif

#define READ_ONCE(x) ({						\
	sim_once(&(x), 0, SIM_HERE);					\
	*(const volatile __typeof__(x) *)&(x);			\
})

#define WRITE_ONCE(x, val) do {					\
	sim_once(&(x), 1, SIM_HERE);					\
	*(volatile __typeof__(x) *)&(x) = (val);		\
} while (0)

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	smp_mb()
#define smp_wmb()	smp_mb()
#define smp_store_mb(var, value) do { WRITE_ONCE(var, value); smp_mb(); } while (0)

#endif
