/*
 * What a kernel tree's kthread_worker code sees before its own text: the
 * sim headers standing in for the ones kernel/kthread.c and
 * include/linux/kthread.h include, then the worker declarations extracted
 * from that tree's include/linux/kthread.h (kthread_worker_decls.h, written
 * into the build directory by extract.cmake).
 *
 * The extracted section of kernel/kthread.c includes nothing itself, so the
 * build force-includes this header (-include) ahead of it. Anything the
 * real code needs and sim lacks belongs in sim/include/linux/, never in
 * the extracted text.
 */
#ifndef _KWSIM_TREE_KTHREAD_WORKER_H
#define _KWSIM_TREE_KTHREAD_WORKER_H

/* va_list of __kthread_create_worker() */
#include <stdarg.h>

/* EXPORT_SYMBOL*, container_of, WARN_ON*, ERR_PTR / ERR_CAST */
#include <linux/kernel.h>
/* memset() of __kthread_init_worker() and kthread_init_work() */
#include <linux/string.h>
/* the list_head of works and workers */
#include <linux/list.h>
/* raw_spinlock_t, raw_spin_lock_init and the raw_spin_lock*() flavours */
#include <linux/spinlock.h>
/* lockdep_set_class_and_name, lockdep_assert_held */
#include <linux/lockdep.h>
/* struct timer_list, timer_setup, __TIMER_INITIALIZER, from_timer, del_timer_sync */
#include <linux/timer.h>
/* jiffies, for timer->expires */
#include <linux/jiffies.h>
/* current, schedule, cond_resched, NUMA_NO_NODE, cpu_to_node */
#include <linux/sched.h>
/* __kthread_create_on_node, kthread_bind, kthread_should_stop, kthread_stop */
#include <linux/kthread.h>
/* COMPLETION_INITIALIZER_ONSTACK, complete, wait_for_completion */
#include <linux/completion.h>
/* set_freezable, freezing, try_to_freeze */
#include <linux/freezer.h>
/* kzalloc, kfree */
#include <linux/slab.h>
/* trace_sched_kthread_work_* */
#include <trace/events/sched.h>

#include "kthread_worker_decls.h"

#endif
