/*
 * kmalloc and friends on the machine's checking allocator: every block sits
 * on its own pages, freed blocks are fenced off rather than reused, so a
 * use-after-free faults and is reported, as are double frees, frees of
 * what kmalloc never returned, and leaks. With __GFP_DIRECT_RECLAIM
 * (GFP_KERNEL) an allocation may sleep, so might_sleep() checks it.
 */
#ifndef _LINUX_SLAB_H
#define _LINUX_SLAB_H

#include <linux/types.h>
#include <sim/site.h>

#define GFP_KERNEL	0x0cc0u
#define GFP_ATOMIC	0x0820u
#define GFP_NOWAIT	0x0800u
#define __GFP_ZERO	0x0100u
#define __GFP_DIRECT_RECLAIM	0x0400u	/* may sleep: might_sleep() applies */

/* What kmalloc(0) returns: not NULL, but nothing may be touched through it. */
#define ZERO_SIZE_PTR		((void *)16)
#define ZERO_OR_NULL_PTR(x)	((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

void *sim_kmalloc(size_t size, gfp_t flags, const struct sim_site *site);
void sim_kfree(const void *p, const struct sim_site *site);

#define kmalloc(size, flags)	sim_kmalloc(size, flags, SIM_HERE)
#define kzalloc(size, flags)	sim_kmalloc(size, (flags) | __GFP_ZERO, SIM_HERE)
#define kzalloc_node(size, flags, node) kzalloc(size, flags)
#define kcalloc(n, size, flags)	sim_kmalloc((n) * (size), (flags) | __GFP_ZERO, SIM_HERE)
#define kfree(p)		sim_kfree(p, SIM_HERE)

#endif
