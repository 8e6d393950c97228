/*
 * CONFIG_DEBUG_LIST (sim/list_debug.c): a corrupted list is reported in
 * the era's way, 4.9's WARN going on, 4.10 and later's BUG stopping the
 * machine, with the kernel's message and lib/list_debug.c's line; a list
 * entry in a stack frame that has returned is reported before it is read.
 * A sound list reports nothing (the scenario library's trace hashes).
 */
#include "../harness.h"
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <stdlib.h>
#include <string.h>

static LIST_HEAD(head);
static struct list_head a, b;

/* a's node made to point at itself while the list still ends at it, as kthread_init_work() does */
static void corrupt_tail(void)
{
	INIT_LIST_HEAD(&head);
	list_add_tail(&a, &head);
	INIT_LIST_HEAD(&a);
}

static int add_after_reinit(void *arg)
{
	(void)arg;
	corrupt_tail();
	list_add_tail(&b, &head);
	return 0;
}

static void run_era(unsigned int era, int (*fn)(void *))
{
	struct sim_config cfg = h_config(1);

	cfg.era = era;
	h_init_cfg(&cfg);
	sim_spawn("t", fn, NULL, 0, true, 0);
}

START_TEST(add_corruption_warns_and_adds_on_4_9)
{
	const struct sim_finding *f;

	run_era(SIM_ERA(4, 9), add_after_reinit);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_WARN), 1);
	f = h_first(SIM_F_WARN);
	ck_assert_str_eq(f->msg, "WARNING: CPU: 0 PID: 1 at lib/list_debug.c:33 __list_add: "
				 "list_add corruption. prev->next should be next (...), but was ... "
				 "(prev=...).");
	/* 4.9 adds all the same */
	ck_assert_ptr_eq(head.prev, &b);
	ck_assert_ptr_eq(a.next, &b);
}
END_TEST

START_TEST(add_corruption_is_a_bug_since_4_10)
{
	const struct {
		unsigned int era;
		const char *msg;
	} eras[] = {
		{ SIM_ERA(6, 1), "list_add corruption. prev->next should be next (...), but was ... "
				 "(prev=...).\nkernel BUG at lib/list_debug.c:30!" },
		{ SIM_ERA(6, 12), "list_add corruption. prev->next should be next (...), but was ... "
				  "(prev=...).\nkernel BUG at lib/list_debug.c:32!" },
	};

	for (size_t e = 0; e < sizeof(eras) / sizeof(eras[0]); e++) {
		run_era(eras[e].era, add_after_reinit);
		ck_assert_int_eq(h_run(), SIM_END_FATAL);
		ck_assert_uint_eq(h_count(SIM_F_BUG), 1);
		ck_assert_uint_eq(h_count(SIM_F_WARN), 0);
		ck_assert_str_eq(h_first(SIM_F_BUG)->msg, eras[e].msg);
		/* BUG() came before the add */
		ck_assert_ptr_eq(head.prev, &a);
		sim_fini();
	}
}
END_TEST

static int del_after_reinit(void *arg)
{
	(void)arg;
	INIT_LIST_HEAD(&head);
	list_add_tail(&a, &head);
	list_add_tail(&b, &head);
	INIT_LIST_HEAD(&a);
	list_del_init(&b);	/* b->prev is a, whose next is a */
	return 0;
}

START_TEST(del_corruption_warns_and_skips_on_4_9)
{
	run_era(SIM_ERA(4, 9), del_after_reinit);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_WARN), 1);
	ck_assert_str_eq(h_first(SIM_F_WARN)->msg,
			 "WARNING: CPU: 0 PID: 1 at lib/list_debug.c:59 __list_del_entry: "
			 "list_del corruption. prev->next should be ..., but was ... (prev=...)");
	/* the unlink was skipped; list_del_init() initialised b all the same */
	ck_assert_ptr_eq(head.next, &a);
	ck_assert_ptr_eq(head.prev, &b);
	ck_assert_ptr_eq(b.next, &b);
}
END_TEST

START_TEST(sound_lists_report_nothing)
{
	static const unsigned int eras[] = { SIM_ERA(4, 9), SIM_ERA(6, 1), SIM_ERA(6, 12) };

	for (size_t e = 0; e < sizeof(eras) / sizeof(eras[0]); e++) {
		struct sim_config cfg = h_config(2);

		cfg.era = eras[e];
		h_init_cfg(&cfg);
		INIT_LIST_HEAD(&head);
		list_add(&a, &head);
		list_add_tail(&b, &head);
		list_move_tail(&a, &head);
		list_del(&b);
		list_del_init(&a);
		ck_assert(list_empty(&head));
		ck_assert_uint_eq(h_count(SIM_F_WARN) + h_count(SIM_F_BUG) + h_count(SIM_F_UAF), 0);
		sim_fini();
	}
}
END_TEST

/*
 * An on-stack entry left on the list when its frame returns (kthread_flush_worker's
 * fwork), here by a task that then exits; another task unlinks it.
 */
static int leave_on_list(void *arg)
{
	struct list_head item;

	(void)arg;
	list_add_tail(&item, &head);
	return 0;
}

static int unlink_first(void *arg)
{
	(void)arg;
	msleep(1);
	list_del_init(head.next);
	return 0;
}

START_TEST(entry_in_a_returned_frame_is_reported)
{
	static const unsigned int eras[] = { SIM_ERA(4, 9), SIM_ERA(6, 12) };

	for (size_t e = 0; e < sizeof(eras) / sizeof(eras[0]); e++) {
		struct sim_config cfg = h_config(1);
		const struct sim_finding *f;

		cfg.era = eras[e];
		h_init_cfg(&cfg);
		INIT_LIST_HEAD(&head);
		sim_spawn("leaver", leave_on_list, NULL, 0, true, 0);
		sim_spawn("reader", unlink_first, NULL, 0, true, 0);
		ck_assert_int_eq(h_run(), SIM_END_FATAL);
		ck_assert_uint_eq(h_count(SIM_F_UAF), 1);
		ck_assert_uint_eq(h_count(SIM_F_WARN) + h_count(SIM_F_BUG), 0);
		f = h_first(SIM_F_UAF);
		ck_assert_str_eq(f->msg,
				 e ? "BUG: KASAN: stack-use-after-return in __list_del_entry_valid_or_report\n"
				     "  Read of a list entry by task reader/2\n"
				     "  The buggy address is in the stack of leaver, in a frame that has returned"
				   : "BUG: KASAN: stack-use-after-return in __list_del_entry\n"
				     "  Read of a list entry by task reader/2\n"
				     "  The buggy address is in the stack of leaver, in a frame that has returned");
		sim_fini();
	}
}
END_TEST

/*
 * sim_in_dead_frame(), for a walk from outside the kernel's code (model/variant.c's
 * on_list): an entry in a live task's frame is not in a dead one, whoever asks; one
 * in an exited task's stack is, also asked from the host once the run has ended.
 */
static bool live_seen_dead, head_seen_dead;

static int park_on_list(void *arg)
{
	struct list_head item;

	(void)arg;
	list_add_tail(&item, &head);
	msleep(2);
	list_del(&item);
	return 0;
}

static int observe(void *arg)
{
	(void)arg;
	msleep(1);
	live_seen_dead = sim_in_dead_frame(head.next);
	head_seen_dead = sim_in_dead_frame(&head);
	return 0;
}

START_TEST(observers_ask_the_dead_frame_check)
{
	INIT_LIST_HEAD(&head);
	live_seen_dead = head_seen_dead = true;
	h_init(1);
	sim_spawn("parker", park_on_list, NULL, 0, true, 0);
	sim_spawn("observer", observe, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(!live_seen_dead);
	ck_assert(!head_seen_dead);
	ck_assert(list_empty(&head));
	sim_fini();

	h_init(1);
	sim_spawn("leaver", leave_on_list, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(sim_in_dead_frame(head.next));
	ck_assert(!sim_in_dead_frame(&head));
	ck_assert(!sim_in_dead_frame(NULL));
	ck_assert_uint_eq(h_count(SIM_F_UAF), 0);	/* asking reports nothing */
	sim_fini();
}
END_TEST

/*
 * sim_list_entry_readable(): the walk follows a next only into memory where
 * a list entry can live (a live slab block, a registered object, a live
 * frame) and stops, without reading, anywhere else: a misuse's garbage next
 * with any value (built with LTO, fuzz --misuse v4.9 seed 2 led on_list to
 * an unmapped address, and the host faulted).
 */
static bool seen[10];

static int ask_readable(void *arg)
{
	struct list_head item;
	struct list_head *block = kmalloc(2 * sizeof(*block), GFP_KERNEL);
	struct list_head *obj = malloc(2 * sizeof(*obj)), *stray = malloc(sizeof(*stray));

	(void)arg;
	sim_register_object(obj, 2 * sizeof(*obj), "obj");
	seen[0] = sim_list_entry_readable(&item);
	seen[1] = sim_list_entry_readable(&block[1]);
	seen[2] = sim_list_entry_readable(&obj[1]);
	seen[3] = sim_list_entry_readable(stray);
	seen[4] = sim_list_entry_readable((char *)obj + 1);
	seen[5] = sim_list_entry_readable(NULL);
	seen[6] = sim_list_entry_readable((void *)0x37f00001f80);	/* that fuzz run's */
	seen[7] = sim_list_entry_readable(&head);			/* a global: no scenario's entry */
	kfree(block);
	seen[8] = sim_list_entry_readable(block);
	free(stray);
	free(obj);
	return 0;
}

START_TEST(observers_follow_only_known_memory)
{
	memset(seen, 0, sizeof(seen));
	h_init(1);
	sim_spawn("asker", ask_readable, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(seen[0] && seen[1] && seen[2]);
	ck_assert(!seen[3] && !seen[4] && !seen[5] && !seen[6] && !seen[7] && !seen[8]);
	sim_fini();

	INIT_LIST_HEAD(&head);
	h_init(1);
	sim_spawn("leaver", leave_on_list, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(!sim_list_entry_readable(head.next));	/* in the exited task's stack */
	sim_fini();
}
END_TEST

static Suite *list_suite(void)
{
	Suite *s = suite_create("list");
	TCase *tc = tcase_create("debug_list");

	tcase_add_test(tc, add_corruption_warns_and_adds_on_4_9);
	tcase_add_test(tc, add_corruption_is_a_bug_since_4_10);
	tcase_add_test(tc, del_corruption_warns_and_skips_on_4_9);
	tcase_add_test(tc, sound_lists_report_nothing);
	tcase_add_test(tc, entry_in_a_returned_frame_is_reported);
	tcase_add_test(tc, observers_ask_the_dead_frame_check);
	tcase_add_test(tc, observers_follow_only_known_memory);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(list_suite)
