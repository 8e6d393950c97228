/*
 * Kernel threads: create, bind, run, stop. The kthread_worker part of the
 * kernel's <linux/kthread.h> belongs to the model, not to the machine.
 */
#ifndef _LINUX_KTHREAD_H
#define _LINUX_KTHREAD_H

#include <linux/err.h>
#include <linux/sched.h>
#include <stdarg.h>

__printf(4, 5)
struct task_struct *kthread_create_on_node(int (*threadfn)(void *data), void *data,
					   int node, const char namefmt[], ...);

__printf(4, 0)
struct task_struct *__kthread_create_on_node(int (*threadfn)(void *data), void *data,
					     int node, const char namefmt[], va_list args);

#define kthread_create(threadfn, data, namefmt, arg...) \
	kthread_create_on_node(threadfn, data, NUMA_NO_NODE, namefmt, ##arg)

struct task_struct *kthread_create_on_cpu(int (*threadfn)(void *data), void *data,
					  unsigned int cpu, const char *namefmt);

#define kthread_run(threadfn, data, namefmt, ...) ({				\
	struct task_struct *__k = kthread_create(threadfn, data, namefmt, ##__VA_ARGS__); \
	if (!IS_ERR(__k))							\
		wake_up_process(__k);						\
	__k;									\
})

void kthread_bind(struct task_struct *k, unsigned int cpu);
int sim_kthread_stop(struct task_struct *k, const struct sim_site *site);
#define kthread_stop(k) sim_kthread_stop(k, SIM_HERE)
bool kthread_should_stop(void);
bool kthread_should_park(void);
void *kthread_data(struct task_struct *k);
void kthread_exit(long result) __attribute__((noreturn));

#endif
