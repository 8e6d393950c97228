/* Completions: a count and the tasks sleeping until it is non-zero. */
#ifndef _LINUX_COMPLETION_H
#define _LINUX_COMPLETION_H

#include <linux/list.h>
#include <sim/site.h>
#include <stdint.h>

struct completion {
	unsigned int done;
	struct list_head waiters;	/* struct sim_waiter, on the sleepers' stacks */
	uint64_t done_at;		/* the clock of the last complete() */
};

#define COMPLETION_INITIALIZER(work) { 0, LIST_HEAD_INIT((work).waiters), 0 }
#define COMPLETION_INITIALIZER_ONSTACK(work) COMPLETION_INITIALIZER(work)
#define DECLARE_COMPLETION(work) struct completion work = COMPLETION_INITIALIZER(work)
#define DECLARE_COMPLETION_ONSTACK(work) DECLARE_COMPLETION(work)

static inline void init_completion(struct completion *x)
{
	x->done = 0;
	INIT_LIST_HEAD(&x->waiters);
	x->done_at = 0;
}

static inline void reinit_completion(struct completion *x)
{
	x->done = 0;
}

void sim_wait_for_completion(struct completion *x, const struct sim_site *site);
unsigned long sim_wait_for_completion_timeout(struct completion *x, unsigned long timeout,
					      const struct sim_site *site);
#define wait_for_completion(x)		sim_wait_for_completion(x, SIM_HERE)
#define wait_for_completion_timeout(x, t) sim_wait_for_completion_timeout(x, t, SIM_HERE)
bool try_wait_for_completion(struct completion *x);
bool completion_done(struct completion *x);
void complete(struct completion *x);
void complete_all(struct completion *x);

#endif
