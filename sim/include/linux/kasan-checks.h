#ifndef _LINUX_KASAN_CHECKS_H
#define _LINUX_KASAN_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The check an instrumented access of size bytes at p would make, for code
 * that reads without the instrumentation (a __no_sanitize_address
 * function): the kernel's kasan_check_read() and kasan_check_write(). A
 * freed block gives the finding the instrumented access gives. Without the
 * outline checks (ASan's build) a freed page faults at the touch itself:
 * nothing to do.
 */
#ifdef KWSIM_KASAN
void sim_kasan_check(const void *p, size_t n);
#else
static inline void sim_kasan_check(const void *p, size_t n)
{
	(void)p;
	(void)n;
}
#endif

/* Macros, not inline functions: gcc does not inline those into an uninstrumented caller. */
#define kasan_check_read(p, size)	({ sim_kasan_check((const void *)(p), (size)); true; })
#define kasan_check_write(p, size)	({ sim_kasan_check((const void *)(p), (size)); true; })

#endif
