/*
 * CONFIG_DEBUG_LIST: the integrity checks of lib/list_debug.c, which
 * <linux/list.h>'s __list_add() and __list_del_entry() call before they
 * write, and KASAN's view of a list entry in a stack frame that has
 * returned. Both only ever report on a corrupted list: on a sound one
 * every check passes and the operation is the plain one.
 *
 * Debian's 6.1 and 6.12 kernels are built with CONFIG_DEBUG_LIST=y and
 * CONFIG_BUG_ON_DATA_CORRUPTION=y (6.12 also CONFIG_LIST_HARDENED), so a
 * failed check there prints the kernel's message and BUG()s: the run ends
 * (CHECK_DATA_CORRUPTION(), since 4.10). 4.9's lib/list_debug.c WARNs
 * instead: a bad __list_add() warns and adds all the same, a bad
 * __list_del_entry() warns and leaves the entry where it is. The machine
 * takes CONFIG_DEBUG_LIST=y in every era and the era's code (model/README.md,
 * "The machine's era"). The kernel's messages print the pointers (%p, %px);
 * the machine prints "..." for each: a host stack address differs between
 * builds, and a finding must not.
 *
 * A list entry below the live part of a simulated stack is in a frame that
 * has returned (an on-stack flush item left on a list by a corruption):
 * the kernel reads whatever is there now; the host would jump through it.
 * Before any of its fields is read the machine reports it, as ASan's
 * stack-use-after-return, and ends the run as KASAN's report does with
 * panic_on_warn (kasan.fault=panic).
 */
#include "machine.h"

#include <linux/list.h>

#ifdef KWSIM_ASAN	/* not __SANITIZE_ADDRESS__: the kernel-address checks set it too */
#include <sanitizer/asan_interface.h>
#endif

/* A site of lib/list_debug.c, listed in sim_sites like SIM_HERE's. */
#define LIST_SITE(name, line, func)						\
	static const struct sim_site name = { "lib/list_debug.c", line, func };	\
	static const struct sim_site *const name##_entry			\
		__attribute__((used, section("sim_sites"))) = &name

/* 4.9: the WARNs' lines, as GCC of the era placed them (a macro's last line) */
LIST_SITE(add49_next, 29, "__list_add");
LIST_SITE(add49_prev, 33, "__list_add");
LIST_SITE(add49_double, 36, "__list_add");
LIST_SITE(del49_poison1, 53, "__list_del_entry");
LIST_SITE(del49_poison2, 56, "__list_del_entry");
LIST_SITE(del49_prev, 59, "__list_del_entry");
LIST_SITE(del49_next, 62, "__list_del_entry");
/* 6.1 (4.10 to 6.5 alike in substance): __list_add_valid, __list_del_entry_valid */
LIST_SITE(add61_pnull, 23, "__list_add_valid");
LIST_SITE(add61_nnull, 25, "__list_add_valid");
LIST_SITE(add61_next, 27, "__list_add_valid");
LIST_SITE(add61_prev, 30, "__list_add_valid");
LIST_SITE(add61_double, 33, "__list_add_valid");
LIST_SITE(del61_nnull, 49, "__list_del_entry_valid");
LIST_SITE(del61_pnull, 51, "__list_del_entry_valid");
LIST_SITE(del61_poison1, 53, "__list_del_entry_valid");
LIST_SITE(del61_poison2, 56, "__list_del_entry_valid");
LIST_SITE(del61_prev, 59, "__list_del_entry_valid");
LIST_SITE(del61_next, 62, "__list_del_entry_valid");
/* 6.6 and later (6.12): the *_or_report functions of CONFIG_LIST_HARDENED */
LIST_SITE(add612_pnull, 25, "__list_add_valid_or_report");
LIST_SITE(add612_nnull, 27, "__list_add_valid_or_report");
LIST_SITE(add612_next, 29, "__list_add_valid_or_report");
LIST_SITE(add612_prev, 32, "__list_add_valid_or_report");
LIST_SITE(add612_double, 35, "__list_add_valid_or_report");
LIST_SITE(del612_nnull, 52, "__list_del_entry_valid_or_report");
LIST_SITE(del612_pnull, 54, "__list_del_entry_valid_or_report");
LIST_SITE(del612_poison1, 56, "__list_del_entry_valid_or_report");
LIST_SITE(del612_poison2, 59, "__list_del_entry_valid_or_report");
LIST_SITE(del612_prev, 62, "__list_del_entry_valid_or_report");
LIST_SITE(del612_next, 65, "__list_del_entry_valid_or_report");

/* One check of lib/list_debug.c: its sites in 4.9, 6.1 and 6.12, and its message. */
struct list_check {
	const struct sim_site *v49, *v61, *v612;	/* v49 NULL: 4.9 has no such check */
	const char *msg;
};

enum { ADD_PNULL, ADD_NNULL, ADD_NEXT, ADD_PREV, ADD_DOUBLE,
       DEL_NNULL, DEL_PNULL, DEL_POISON1, DEL_POISON2, DEL_PREV, DEL_NEXT };

static const struct list_check checks[] = {
	[ADD_PNULL] = { NULL, &add61_pnull, &add612_pnull, "list_add corruption. prev is NULL." },
	[ADD_NNULL] = { NULL, &add61_nnull, &add612_nnull, "list_add corruption. next is NULL." },
	[ADD_NEXT] = { &add49_next, &add61_next, &add612_next,
		       "list_add corruption. next->prev should be prev (...), but was ... (next=...)." },
	[ADD_PREV] = { &add49_prev, &add61_prev, &add612_prev,
		       "list_add corruption. prev->next should be next (...), but was ... (prev=...)." },
	[ADD_DOUBLE] = { &add49_double, &add61_double, &add612_double,
			 "list_add double add: new=..., prev=..., next=...." },
	[DEL_NNULL] = { NULL, &del61_nnull, &del612_nnull, "list_del corruption, ...->next is NULL" },
	[DEL_PNULL] = { NULL, &del61_pnull, &del612_pnull, "list_del corruption, ...->prev is NULL" },
	[DEL_POISON1] = { &del49_poison1, &del61_poison1, &del612_poison1,
			  "list_del corruption, ...->next is LIST_POISON1 (...)" },
	[DEL_POISON2] = { &del49_poison2, &del61_poison2, &del612_poison2,
			  "list_del corruption, ...->prev is LIST_POISON2 (...)" },
	[DEL_PREV] = { &del49_prev, &del61_prev, &del612_prev,
		       "list_del corruption. prev->next should be ..., but was ... (prev=...)" },
	[DEL_NEXT] = { &del49_next, &del61_next, &del612_next,
		       "list_del corruption. next->prev should be ..., but was ... (next=...)" },
};

/*
 * CHECK_DATA_CORRUPTION() of check c whose condition holds (4.10+,
 * BUG_ON_DATA_CORRUPTION=y: pr_err() then BUG()), or 4.9's WARN(); returns
 * true. Out of line: every list operation tests its conditions, and on a
 * sound list that test is all it does.
 */
static noinline __cold bool report_corruption(unsigned int c)
{
	const struct list_check *k = &checks[c];
	const struct sim_site *site = sim_era_since(6, 6) ? k->v612 : k->v61;

	if (!sim_era_since(4, 10)) {
		sim_warnf(k->v49, "%s", k->msg);
		return true;
	}
	sim_report(SIM_F_BUG, site, "%s\nkernel BUG at %s:%d!", k->msg, site->file, site->line);
	sim_die();
}

/* CHECK_DATA_CORRUPTION(cond) of check c, or 4.9's WARN(cond); returns cond. */
static inline bool corrupt(bool cond, unsigned int c)
{
	return cond && report_corruption(c);
}

/*
 * p in a simulated stack, in no frame in use: the whole stack of a task
 * that has exited (and is not running its way out: TASK_DEAD is set
 * before the last unlinks), else below the part in use (here is the frame of the
 * list check, whose caller's frames are above it; a switched-out
 * context's part in use starts at its saved sp). The first is exact in
 * every build. The second is not: a frame that returned and was covered
 * again by a later call's is in use again by that measure (what the kernel
 * reads there is another frame's), and how deep the later calls go is
 * the compiler's (-O0 keeps the inline list functions' frames).
 */
static bool in_dead_frame(const void *p, uintptr_t here, const struct sim_ctx **owner)
{
	const struct sim_owner *o = p ? sim_stack_owner_of(p) : NULL;
	const struct sim_ctx *x;
	uintptr_t sp;

	if (!o)
		return false;
	x = *owner = o->ctx;
	if (here >= o->lo && here < o->hi)	/* its own stack: it may be on its way out */
		return (uintptr_t)p < here;
	if (x->kind == CTX_TASK && x->task->__state == TASK_DEAD)
		return true;
	sp = (uintptr_t)x->coro.sp;
	return (uintptr_t)p < sp;
}

bool sim_in_dead_frame(const void *p)
{
	const struct sim_ctx *owner;

	/* here: the caller's frames are all above this one */
	if (in_dead_frame(p, (uintptr_t)__builtin_frame_address(0), &owner))
		return true;
#ifdef KWSIM_ASAN
	/*
	 * A returned frame that a later call's covers again passes that check
	 * (an observer at a point of the task whose flush item it was: the
	 * machine's frames of its next call lie over the item). ASan knows the
	 * later frame's redzones, where the read would be its
	 * stack-buffer-overflow; other builds read the later frame's bytes.
	 */
	if (p && sim_owner_of(p) && __asan_region_is_poisoned((void *)p, sizeof(struct list_head)))
		return true;
#endif
	return false;
}

bool sim_list_entry_readable(const void *p)
{
	uint64_t fake;

	if (!p || (uintptr_t)p % _Alignof(struct list_head))
		return false;
	if (sim_registered_addr(p, &fake))
		return true;
	if (sim_slab_fake_addr(p, &fake))
		return !sim_freed(p);
	return sim_stack_owner_of(p) && !sim_in_dead_frame(p);
}

/* x reads a list entry in owner's stack, in a frame that has returned: KASAN's report. */
static noinline __cold void report_dead_frame(const struct sim_ctx *x, const struct sim_ctx *owner,
					      const char *func)
{
	const struct task_struct *t = x->kind == CTX_TASK ? x->task : x->cpu->curr;
	struct sim_site where = { NULL, 0, NULL };

	sim_ctx_site(x, &where);	/* the finding names the model function, as a fault's */
	sim_report(SIM_F_UAF, where.func ? &where : NULL,
		   "BUG: KASAN: stack-use-after-return in %s\n"
		   "  Read of a list entry by task %s/%d%s%s%s\n"
		   "  The buggy address is in the stack of %s, in a frame that has returned",
		   func, t->comm, t->pid, x->kind == CTX_TASK ? "" : " (",
		   x->kind == CTX_TASK ? "" : sim_ctx_name(x), x->kind == CTX_TASK ? "" : ")",
		   sim_ctx_name(owner));
	sim_die();
}

static inline void dead_frame_check(const void *p, uintptr_t here, const char *func)
{
	const struct sim_ctx *owner;

	if (in_dead_frame(p, here, &owner) && sim.cur)
		report_dead_frame(sim.cur, owner, func);
}

bool __list_add_valid(struct list_head *new, struct list_head *prev, struct list_head *next)
{
	const char *fn = sim_era_since(6, 6) ? "__list_add_valid_or_report" :
			 sim_era_since(4, 10) ? "__list_add_valid" : "__list_add";
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	bool bad;

	if (sim_era_since(4, 10) && (corrupt(!prev, ADD_PNULL) || corrupt(!next, ADD_NNULL)))
		return false;
	dead_frame_check(new, here, fn);
	dead_frame_check(prev, here, fn);
	dead_frame_check(next, here, fn);
	if (!sim_era_since(4, 10)) {
		/* 4.9: three WARNs, each on its own, and the add goes ahead */
		corrupt(next->prev != prev, ADD_NEXT);
		corrupt(prev->next != next, ADD_PREV);
		corrupt(new == prev || new == next, ADD_DOUBLE);
		return true;
	}
	bad = corrupt(next->prev != prev, ADD_NEXT) || corrupt(prev->next != next, ADD_PREV) ||
	      corrupt(new == prev || new == next, ADD_DOUBLE);
	return !bad;
}

bool __list_del_entry_valid(struct list_head *entry)
{
	const char *fn = sim_era_since(6, 6) ? "__list_del_entry_valid_or_report" :
			 sim_era_since(4, 10) ? "__list_del_entry_valid" : "__list_del_entry";
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	struct list_head *prev, *next;

	dead_frame_check(entry, here, fn);
	prev = entry->prev;
	next = entry->next;
	if (sim_era_since(4, 10) && (corrupt(!next, DEL_NNULL) || corrupt(!prev, DEL_PNULL)))
		return false;
	if (corrupt(next == LIST_POISON1, DEL_POISON1) || corrupt(prev == LIST_POISON2, DEL_POISON2))
		return false;
	dead_frame_check(prev, here, fn);
	dead_frame_check(next, here, fn);
	return !(corrupt(prev->next != entry, DEL_PREV) || corrupt(next->prev != entry, DEL_NEXT));
}
