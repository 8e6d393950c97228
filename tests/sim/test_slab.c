/*
 * Pins the checking allocator (sim/slab.c): kzalloc zeroes, kmalloc hands
 * out poison (0x6b), kmalloc(0) is ZERO_SIZE_PTR; kfree of NULL and
 * ZERO_SIZE_PTR is fine; a read or write of a freed block from a task is a
 * SIM_F_UAF in KASAN's words, naming the block, where it was allocated and
 * freed (with the freeing context's note), and the function that touched it
 * (a timer callback, the line of a lock call), and ends
 * the run SIM_END_FATAL without taking the process down (in the sanitizer
 * build too); double free, freeing what kmalloc never returned, a pointer
 * into a block or an error pointer are findings of their own; blocks live
 * when the machine comes to rest leak, one finding each in allocation
 * order, and only then; GFP_KERNEL may sleep (might_sleep checks it),
 * GFP_ATOMIC may not; fake addresses of blocks depend only on the
 * allocation order, so they are the same in every run.
 */
#include "../harness.h"

#include <linux/err.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include <string.h>

#define MS	1000000ULL

struct thing {
	int a;
	char pad[60];
	long b;
};

/* Not inlined: the findings name these functions as where blocks came from and went. */
static noinline struct thing *make_thing(void)
{
	return kzalloc(sizeof(struct thing), GFP_KERNEL);
}

static noinline void drop_thing(struct thing *t)
{
	kfree(t);
}

/* --- contents ------------------------------------------------------------------------- */

static struct {
	bool zeroed, poisoned;
	void *zero_size;
} mem;

static int contents_fn(void *arg)
{
	unsigned char *z = kzalloc(200, GFP_KERNEL);
	unsigned char *m = kmalloc(200, GFP_KERNEL);

	(void)arg;
	mem.zeroed = true;
	mem.poisoned = true;
	for (int i = 0; i < 200; i++) {
		mem.zeroed &= z[i] == 0;
		mem.poisoned &= m[i] == 0x6b;
	}
	mem.zero_size = kmalloc(0, GFP_KERNEL);
	kfree(z);
	kfree(m);
	kfree(NULL);
	kfree(mem.zero_size);
	return 0;
}

START_TEST(kzalloc_zeroes_kmalloc_poisons)
{
	h_init(1);
	sim_spawn("contents", contents_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(mem.zeroed);
	ck_assert(mem.poisoned);
	ck_assert_ptr_eq(mem.zero_size, ZERO_SIZE_PTR);
}
END_TEST

/* --- use after free ------------------------------------------------------------------- */

static volatile long sink;
static volatile bool survived;	/* volatile: the store must not move before the faulting load */

static int uaf_read_fn(void *arg)
{
	struct thing *t = make_thing();

	(void)arg;
	t->b = 5;
	drop_thing(t);
	sink = t->b;		/* reported: the check (kasan.c) or the fault on its page */
	survived = true;
	return 0;
}

static int uaf_write_fn(void *arg)
{
	struct thing *t;

	(void)arg;
	kfree(kzalloc(16, GFP_KERNEL));	/* block #0: the victim is #1 */
	t = make_thing();
	drop_thing(t);
	t->a = 1;
	survived = true;
	return 0;
}

static int bystander_fn(void *arg)
{
	(void)arg;
	msleep(100);
	survived = true;
	return 0;
}

static void check_uaf(const char *block, const char *task, const char *comm)
{
	const struct sim_finding *f = h_first(SIM_F_UAF);

	ck_assert_uint_eq(sim_finding_count(), 1);
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(!strncmp(f->msg, "BUG: KASAN: slab-use-after-free", 31), "%s", f->msg);
	ck_assert_msg(strstr(f->msg, block), "'%s' lacks '%s'", f->msg, block);
	ck_assert_msg(strstr(f->msg, task), "'%s' lacks '%s'", f->msg, task);
	ck_assert_msg(strstr(f->msg, "Allocated by ") && strstr(f->msg, " in make_thing\n"), "%s",
		      f->msg);
	ck_assert_msg(strstr(f->msg, " in drop_thing"), "%s", f->msg);
	/* the finding is the faulting task's: its context, CPU and time */
	ck_assert_str_eq(f->context, comm);
	ck_assert_int_eq(f->cpu, 0);
	ck_assert(!survived);
}

START_TEST(use_after_free_read)
{
	h_init(2);
	sim_spawn("reader", uaf_read_fn, NULL, 0, false, 1 * MS);
	sim_spawn("bystander", bystander_fn, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	h_dump_findings();
	check_uaf("64 bytes inside block #0 of 72 bytes", "by task reader/1\n", "reader");
	ck_assert_uint_ge(h_first(SIM_F_UAF)->time, 1 * MS);
	ck_assert_uint_lt(h_first(SIM_F_UAF)->time, 2 * MS);
	/* a fatal run reports no leaks, though the bystander never finished */
	ck_assert_uint_eq(h_count(SIM_F_LEAK), 0);
}
END_TEST

START_TEST(use_after_free_write)
{
	h_init(1);
	sim_spawn("writer", uaf_write_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	h_dump_findings();
	check_uaf("0 bytes inside block #1 of 72 bytes", "by task writer/1\n", "writer");
}
END_TEST

/*
 * Where the build instruments (KWSIM_KASAN), the report above came from
 * the check at the access, not from a fault: kfree() leaves the pages
 * mapped (no mprotect per run), so a read the compiler did not instrument
 * (here a function it was told not to) goes through unreported, and the
 * same read instrumented, right after, reports.
 */
#ifdef KWSIM_KASAN
static noinline __attribute__((no_sanitize_address)) long unchecked_read(const long *p)
{
	return *p;
}

/* called through a pointer, so that no compiler moves the read into its instrumented caller */
static long (*volatile unchecked)(const long *) = unchecked_read;
static bool unchecked_survived;

static int unchecked_then_checked_fn(void *arg)
{
	struct thing *t = make_thing();

	(void)arg;
	t->b = 5;
	drop_thing(t);
	sink = unchecked(&t->b);
	unchecked_survived = true;
	t->b = 6;		/* a store, instrumented: reported */
	survived = true;
	return 0;
}

START_TEST(freed_pages_stay_mapped_where_checked)
{
	h_init(1);
	unchecked_survived = false;
	sim_spawn("writer", unchecked_then_checked_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	h_dump_findings();
	ck_assert(unchecked_survived);
	check_uaf("64 bytes inside block #0 of 72 bytes", "by task writer/1\n", "writer");
}
END_TEST
#endif

/*
 * A timer callback touching a freed object: the report names the callback
 * (the machine knows which one its softirq runs), or the exact line when the
 * touch is a lock call, and the freeing context's note (a scenario line).
 */
struct locked_thing {
	spinlock_t lock;
	long v;
};

static struct locked_thing *victim;
static struct timer_list victim_timer;

static void victim_read_fn(struct timer_list *t)
{
	(void)t;
	sink = victim->v;
	survived = true;
}

static void victim_lock_fn(struct timer_list *t)
{
	(void)t;
	spin_lock(&victim->lock);
	survived = true;
}

static int free_then_arm(void *arg)
{
	victim = kzalloc(sizeof(*victim), GFP_KERNEL);
	spin_lock_init(&victim->lock);
	timer_setup(&victim_timer, arg, 0);
	mod_timer(&victim_timer, jiffies + 1);
	sim_note("scenario.kws:7");
	kfree(victim);
	sim_note("scenario.kws:8");
	return 0;
}

static const struct sim_finding *run_victim(void (*fn)(struct timer_list *), const char *name)
{
	const struct sim_finding *f;

	h_init(1);
	sim_register_symbol((const void *)fn, name);
	sim_spawn("freer", free_then_arm, (void *)fn, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	f = h_first(SIM_F_UAF);
	ck_assert_ptr_nonnull(f);
	ck_assert(!survived);
	ck_assert_str_eq(f->context, "softirq");
	ck_assert_msg(strstr(f->msg, "by task swapper/0/0 (softirq)"), "%s", f->msg);
	ck_assert_msg(strstr(f->msg, "Freed by freer in free_then_arm during scenario.kws:7"),
		      "%s", f->msg);
	ck_assert_msg(!strstr(f->msg, "machine") && !strstr(f->site.func, "fault"), "%s", f->msg);
	return f;
}

START_TEST(use_after_free_names_the_timer_callback)
{
	const struct sim_finding *f = run_victim(victim_read_fn, "victim_read_fn");

	ck_assert_msg(strstr(f->msg, "slab-use-after-free in victim_read_fn\n"), "%s", f->msg);
	ck_assert_str_eq(f->site.func, "victim_read_fn");
	ck_assert_ptr_null(f->site.file);	/* the function is known, not the line */
}
END_TEST

START_TEST(use_after_free_names_the_lock_call)
{
	const struct sim_finding *f = run_victim(victim_lock_fn, "victim_lock_fn");

	ck_assert_msg(strstr(f->msg, "slab-use-after-free in victim_lock_fn\n"), "%s", f->msg);
	ck_assert_str_eq(f->site.func, "victim_lock_fn");
	ck_assert_ptr_nonnull(f->site.file);
	ck_assert_ptr_nonnull(strstr(f->site.file, "test_slab.c"));
}
END_TEST

/*
 * An unlock of a lock in freed memory: the release path checks its first
 * touch of the lock (sim/lock.c, not instrumented at each access), the
 * owner field at the lock's start, as the instrumented read did.
 */
static int free_then_unlock(void *arg)
{
	(void)arg;
	victim = kzalloc(sizeof(*victim), GFP_KERNEL);
	spin_lock_init(&victim->lock);
	spin_lock(&victim->lock);
	kfree(victim);
	spin_unlock(&victim->lock);
	survived = true;
	return 0;
}

START_TEST(use_after_free_in_the_unlock)
{
	const struct sim_finding *f;

	survived = false;
	h_init(1);
	sim_spawn("freer", free_then_unlock, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	f = h_first(SIM_F_UAF);
	ck_assert_ptr_nonnull(f);
	ck_assert(!survived);
	ck_assert_msg(strstr(f->msg, "slab-use-after-free in free_then_unlock\n"), "%s", f->msg);
	ck_assert_msg(strstr(f->msg, "The buggy address is 0 bytes inside block"), "%s", f->msg);
	sim_fini();
}
END_TEST

/* The machine can be torn down and built again after a fatal fault. */
START_TEST(fatal_fault_then_a_new_machine)
{
	h_init(1);
	sim_spawn("reader", uaf_read_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	sim_fini();
	h_init(1);
	sim_spawn("contents", contents_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(mem.zeroed);
}
END_TEST

/* --- bad frees -------------------------------------------------------------------------- */

static int twice_fn(void *arg)
{
	struct thing *t = make_thing();

	(void)arg;
	drop_thing(t);
	kfree(t);
	return 0;
}

START_TEST(double_free)
{
	const struct sim_finding *f;

	h_init(1);
	sim_spawn("twice", twice_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_DOUBLE_FREE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->msg, "double free of block #0 (72 bytes, allocated in make_thing, "
				 "freed in drop_thing)");
	ck_assert_str_eq(f->site.func, "twice_fn");
	ck_assert_str_eq(f->context, "twice");
}
END_TEST

static int bad_fn(void *arg)
{
	long on_stack = 0;
	char *p = kmalloc(32, GFP_KERNEL);

	(void)arg;
	kfree(&on_stack);
	kfree(p + 8);
	kfree(ERR_PTR(-12));
	kfree(p);
	return (int)on_stack;
}

START_TEST(bad_free)
{
	h_init(1);
	sim_spawn("bad", bad_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 3);
	ck_assert_uint_eq(h_count(SIM_F_BAD_FREE), 3);
	ck_assert_ptr_nonnull(strstr(sim_finding(0)->msg, "kfree() of an unknown pointer"));
	ck_assert_ptr_nonnull(strstr(sim_finding(1)->msg, "kfree() of a misaligned pointer"));
	ck_assert_str_eq(sim_finding(2)->msg, "kfree() of error pointer -12");
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(sim_finding(i)->site.func, "bad_fn");
}
END_TEST

/* --- leaks -------------------------------------------------------------------------------- */

static int leaky_fn(void *arg)
{
	void *a = kzalloc(10, GFP_KERNEL);
	void *b = kzalloc(20, GFP_KERNEL);
	void *c = kzalloc(30, GFP_KERNEL);

	(void)arg;
	(void)a;
	(void)c;
	kfree(b);
	return 0;
}

START_TEST(leaks_in_allocation_order)
{
	void *early;

	h_init(1);
	early = kmalloc(40, GFP_KERNEL);	/* setup code: block #0 */
	(void)early;
	sim_spawn("leaky", leaky_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 3);
	ck_assert_uint_eq(h_count(SIM_F_LEAK), 3);
	ck_assert_str_eq(sim_finding(0)->msg, "unreferenced object #0 (size 40): allocated by setup "
			 "in leaks_in_allocation_order_fn");
	ck_assert_str_eq(sim_finding(1)->msg,
			 "unreferenced object #1 (size 10): allocated by leaky in leaky_fn");
	ck_assert_str_eq(sim_finding(2)->msg,
			 "unreferenced object #3 (size 30): allocated by leaky in leaky_fn");
	ck_assert_str_eq(sim_finding(1)->site.func, "leaky_fn");
	/* found when the machine came to rest */
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(sim_finding(i)->time, sim_max_time());
		ck_assert_int_eq(sim_finding(i)->cpu, -1);
		ck_assert_str_eq(sim_finding(i)->context, "machine");
	}
	ck_assert_uint_gt(sim_max_time(), 0);
}
END_TEST

static DECLARE_COMPLETION(never);

static int stuck_holder_fn(void *arg)
{
	void *p = kzalloc(10, GFP_KERNEL);

	(void)arg;
	wait_for_completion(&never);
	kfree(p);
	return 0;
}

/* A blocked task still owns its memory: a deadlocked run leaks nothing. */
START_TEST(no_leaks_unless_quiescent)
{
	h_init(1);
	init_completion(&never);
	sim_spawn("stuck", stuck_holder_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
	ck_assert_uint_eq(h_count(SIM_F_DEADLOCK), 1);
	ck_assert_uint_eq(h_count(SIM_F_LEAK), 0);
}
END_TEST

/* --- may it sleep? --------------------------------------------------------------------- */

static DEFINE_SPINLOCK(held);
static int alloc_line;

static int atomic_alloc_fn(void *arg)
{
	void *a, *b;

	(void)arg;
	spin_lock(&held);
	a = kzalloc(8, GFP_ATOMIC);
	b = kzalloc(8, GFP_NOWAIT);
	spin_unlock(&held);
	kfree(a);
	kfree(b);
	spin_lock(&held);
	alloc_line = __LINE__ + 1;
	a = kzalloc(8, GFP_KERNEL);
	spin_unlock(&held);
	kfree(a);
	return 0;
}

START_TEST(gfp_kernel_may_sleep)
{
	const struct sim_finding *f;

	h_init(1);
	spin_lock_init(&held);
	sim_spawn("atomic", atomic_alloc_fn, NULL, 0, false, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->msg, "BUG: sleeping function called from invalid context"));
	ck_assert_ptr_nonnull(strstr(f->msg, "in_atomic(): 1, irqs_disabled(): 0"));
	ck_assert_str_eq(f->site.func, "atomic_alloc_fn");
	ck_assert_int_eq(f->site.line, alloc_line);
}
END_TEST

static void irq_alloc(void *arg)
{
	kfree(kzalloc(8, GFP_ATOMIC));
	kfree(kzalloc(8, GFP_KERNEL));
	(void)arg;
}

START_TEST(gfp_kernel_in_hardirq)
{
	const struct sim_finding *f;

	h_init(1);
	sim_irq_at(1 * MS, 0, "allocirq", irq_alloc, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_uint_eq(sim_finding_count(), 1);
	f = h_first(SIM_F_MIGHT_SLEEP);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->context, "hardirq");
	ck_assert_ptr_nonnull(strstr(f->msg, "in_atomic(): 1, irqs_disabled(): 1"));
}
END_TEST

/* An event callback runs on the machine's own stack: no task to check, nothing to charge. */
static void *from_event;

static void event_alloc(void *arg)
{
	(void)arg;
	from_event = kzalloc(8, GFP_KERNEL);
}

START_TEST(alloc_from_an_event)
{
	h_init(1);
	sim_event_at(1 * MS, event_alloc, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	h_dump_findings();
	ck_assert_ptr_nonnull(from_event);
	ck_assert_uint_eq(sim_finding_count(), 1);
	ck_assert_ptr_nonnull(strstr(h_first(SIM_F_LEAK)->msg, "allocated by setup in event_alloc"));
}
END_TEST

/* --- stable names ----------------------------------------------------------------------- */

static uint64_t fakes[2][3];
static int run_no;

static int addr_fn(void *arg)
{
	char *a = kzalloc(100, GFP_KERNEL);
	char *b = kzalloc(5000, GFP_KERNEL);

	(void)arg;
	fakes[run_no][0] = sim_fake_addr(a);
	fakes[run_no][1] = sim_fake_addr(b);
	fakes[run_no][2] = sim_fake_addr(b + 17);
	kfree(a);
	kfree(b);
	return 0;
}

START_TEST(fake_addresses_are_stable)
{
	for (run_no = 0; run_no < 2; run_no++) {
		h_init(2);
		kfree(kzalloc(1, GFP_KERNEL));		/* block #0, so the task's are #1 and #2 */
		sim_spawn("addr", addr_fn, NULL, run_no, false, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		sim_fini();
	}
	ck_assert_uint_eq(fakes[0][0], 0xffff888100010000ULL);
	ck_assert_uint_eq(fakes[0][1], 0xffff888100020000ULL);
	ck_assert_uint_eq(fakes[0][2], 0xffff888100020011ULL);
	ck_assert_mem_eq(fakes[0], fakes[1], sizeof(fakes[0]));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, kzalloc_zeroes_kmalloc_poisons);
	tcase_add_test(tc, use_after_free_read);
	tcase_add_test(tc, use_after_free_write);
#ifdef KWSIM_KASAN
	tcase_add_test(tc, freed_pages_stay_mapped_where_checked);
#endif
	tcase_add_test(tc, fatal_fault_then_a_new_machine);
	tcase_add_test(tc, double_free);
	tcase_add_test(tc, bad_free);
	tcase_add_test(tc, leaks_in_allocation_order);
	tcase_add_test(tc, no_leaks_unless_quiescent);
	tcase_add_test(tc, gfp_kernel_may_sleep);
	tcase_add_test(tc, gfp_kernel_in_hardirq);
	tcase_add_test(tc, alloc_from_an_event);
	tcase_add_test(tc, fake_addresses_are_stable);
	tcase_add_test(tc, use_after_free_names_the_timer_callback);
	tcase_add_test(tc, use_after_free_names_the_lock_call);
	tcase_add_test(tc, use_after_free_in_the_unlock);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
