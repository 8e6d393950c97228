/*
 * Timers with the timer wheel's semantics: never early, late by the
 * granularity of the wheel level the delay falls in, run in the timer softirq
 * of the CPU that armed them. Both the 4.9-era (function, data) form and the
 * timer_setup() form are here, so code of either era compiles.
 */
#ifndef _LINUX_TIMER_H
#define _LINUX_TIMER_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <sim/lock.h>

#define TIMER_CPUMASK		0x0003FFFF
#define TIMER_MIGRATING		0x00040000
#define TIMER_BASEMASK		(TIMER_CPUMASK | TIMER_MIGRATING)
#define TIMER_DEFERRABLE	0x00080000
#define TIMER_PINNED		0x00100000
#define TIMER_IRQSAFE		0x00200000
#define TIMER_INIT_FLAGS	(TIMER_DEFERRABLE | TIMER_PINNED | TIMER_IRQSAFE)

/*
 * Code written for 4.9 compiles with KWSIM_TIMER_V49 defined and sees the
 * old callback under the name 'function'; the layout is the same either way.
 */
#ifdef KWSIM_TIMER_V49
#define __TIMER_FN_NEW		__function_new
#define __TIMER_FN_LEGACY	function
#else
#define __TIMER_FN_NEW		function
#define __TIMER_FN_LEGACY	legacy_function
#endif

struct timer_list {
	struct hlist_node entry;
	unsigned long expires;
#ifdef KWSIM_TIMER_V49
	/* 4.9's timer API: timer->function takes timer->data */
	void (*__TIMER_FN_NEW)(struct timer_list *);
	void (*function)(unsigned long);
#else
	void (*function)(struct timer_list *);
	void (*legacy_function)(unsigned long);		/* 4.9's form: function(data) */
#endif
	unsigned long data;
	u32 flags;
	/* the machine's bookkeeping */
	struct list_head node;		/* on its CPU's armed list */
	bool queued;			/* on that list; entry.pprev says what the kernel sees */
	int cpu;
	int base_cpu;			/* the CPU its flags name: the base lock_timer_base() locks */
	unsigned long wheel_expiry;	/* its bucket's expiry, as calc_wheel_index() has it */
	unsigned long bucket_expiry;	/* the jiffy it really fires at */
	int level;
	unsigned int idx;		/* its wheel bucket, as timer_get_idx() */
	u64 seq;			/* arming order */
	struct sim_spin_obj done;	/* del_timer_sync waits here for a running callback */
	struct sim_lock lockdep_map;	/* lockdep's view of the callback (timer.c) */
};

void sim_timer_init(struct timer_list *timer, void (*func)(struct timer_list *),
		    void (*legacy)(unsigned long), unsigned long data, u32 flags,
		    const struct sim_site *site);

#define timer_setup(timer, callback, flags) \
	sim_timer_init((timer), (callback), NULL, 0, (flags), SIM_HERE)
#define timer_setup_on_stack(timer, callback, flags) timer_setup(timer, callback, flags)
#define __setup_timer(timer, fn, data, flags) \
	sim_timer_init((timer), NULL, (fn), (data), (flags), SIM_HERE)
#define setup_timer(timer, fn, data) __setup_timer((timer), (fn), (data), 0)
#define init_timer(timer) __setup_timer((timer), NULL, 0, 0)
#define destroy_timer_on_stack(timer) do { } while (0)

#define __TIMER_INITIALIZER_2(_function, _flags) {			\
	.__TIMER_FN_NEW = (_function), .flags = (_flags),		\
	.done = { .what = "del_timer_sync" } }
#define __TIMER_INITIALIZER_4(_function, _expires, _data, _flags) {	\
	.__TIMER_FN_LEGACY = (_function), .expires = (_expires),	\
	.data = (_data), .flags = (_flags),				\
	.done = { .what = "del_timer_sync" } }
#define __TIMER_PICK(_1, _2, _3, _4, name, ...) name
/* Two arguments: the current form. Four: 4.9's (function, expires, data, flags). */
#define __TIMER_INITIALIZER(...) \
	__TIMER_PICK(__VA_ARGS__, __TIMER_INITIALIZER_4, _, __TIMER_INITIALIZER_2, _)(__VA_ARGS__)
#define DEFINE_TIMER(_name, _function) \
	struct timer_list _name = __TIMER_INITIALIZER(_function, 0)

#define from_timer(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, __typeof__(*var), timer_fieldname)
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)

void add_timer(struct timer_list *timer);
void add_timer_on(struct timer_list *timer, int cpu);
int mod_timer(struct timer_list *timer, unsigned long expires);
int mod_timer_pending(struct timer_list *timer, unsigned long expires);
int timer_reduce(struct timer_list *timer, unsigned long expires);
int del_timer(struct timer_list *timer);
int try_to_del_timer_sync(struct timer_list *timer);
int sim_del_timer_sync(struct timer_list *timer, const struct sim_site *site);
#define del_timer_sync(timer) sim_del_timer_sync(timer, SIM_HERE)
#define timer_delete(timer) del_timer(timer)
#define timer_delete_sync(timer) sim_del_timer_sync(timer, SIM_HERE)
#define timer_shutdown_sync(timer) sim_del_timer_sync(timer, SIM_HERE)

/* As the kernel's: an armed timer has a hashed entry; initialising one unhashes it. */
static inline int timer_pending(const struct timer_list *timer)
{
	return timer->entry.pprev != NULL;
}

/* The jiffy a timer armed now for 'expires' fires at: the wheel's rounding. */
unsigned long sim_timer_bucket_expiry(unsigned long expires, unsigned long clk, int *level);

#endif
