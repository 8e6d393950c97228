/* Doubly linked lists, the kernel's <linux/list.h> semantics. */
#ifndef _LINUX_LIST_H
#define _LINUX_LIST_H

#include <linux/types.h>
#include <linux/kernel.h>

#define LIST_POISON1	((void *)0x100)
#define LIST_POISON2	((void *)0x122)

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

/*
 * While the machine runs, the config's on_list (NULL: none) hears of every
 * list_head an operation writes (the entry initialised, added or taken
 * off, and its neighbours): whether an entry is on a list changes only so,
 * and a reader of objects' state (coverage) follows those instead of
 * reading every object at every point. Neighbours count: an entry
 * initialised while still linked (a reinitialised pending work) is made
 * non-empty again by a write of its "neighbour" on that list.
 */
extern void (*sim_list_watch)(void *arg, const void *entry);
extern void *sim_list_watch_arg;

static inline void list_watch(const void *entry)
{
	if (sim_list_watch)
		sim_list_watch(sim_list_watch_arg, entry);
}

/*
 * CONFIG_DEBUG_LIST (sim/list_debug.c, as lib/list_debug.c): false when
 * the operation must not be done, the corruption reported; each era's
 * checks, messages and ending there. Also reports an entry in a stack
 * frame that has returned, before anything is read from it.
 */
bool __list_add_valid(struct list_head *new, struct list_head *prev, struct list_head *next);
bool __list_del_entry_valid(struct list_head *entry);

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list_watch(list);
	list->next = list;
	list->prev = list;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	if (!__list_add_valid(new, prev, next))
		return;
	list_watch(new);
	list_watch(prev);
	list_watch(next);
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	list_watch(prev);
	list_watch(next);
	next->prev = prev;
	prev->next = next;
}

static inline void __list_del_entry(struct list_head *entry)
{
	if (!__list_del_entry_valid(entry))
		return;
	list_watch(entry);
	__list_del(entry->prev, entry->next);
}

static inline void list_del(struct list_head *entry)
{
	__list_del_entry(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *entry)
{
	__list_del_entry(entry);
	INIT_LIST_HEAD(entry);
}

static inline void list_move_tail(struct list_head *list, struct list_head *head)
{
	__list_del_entry(list);
	list_add_tail(list, head);
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline int list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && (head->next == head->prev);
}

static inline void __list_splice(const struct list_head *list, struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/* Join list at the head of head, and leave list empty. */
static inline void list_splice_init(struct list_head *list, struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member) ({			\
	struct list_head *head__ = (ptr);				\
	struct list_head *pos__ = head__->next;				\
	pos__ != head__ ? list_entry(pos__, type, member) : NULL;	\
})
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

#endif
