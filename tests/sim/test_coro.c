/*
 * Coroutines: what this suite pins down.
 *  - a task (or a hardirq handler) recursing past its stack hits the guard
 *    page: the run reports SIM_F_STACK_OVERFLOW naming the context and ends
 *    SIM_END_FATAL instead of crashing, the host's own SIGSEGV handler is
 *    back afterwards, and a fresh machine runs normally in the same process;
 *  - a fault that is neither goes to the host's handler: the process dies of
 *    SIGSEGV, or under ASan its report ends the process with status 86; so
 *    does a SIGSEGV another process sends, whatever its si_addr reads;
 *  - 1000 tasks on one CPU each switch 100 times, round robin: every task is
 *    switched in exactly 101 times and its stack contents survive;
 *  - each context keeps its own floating point control state (SSE rounding
 *    mode and x87 control word) across switches; the host's is untouched;
 *  - a new coroutine starts with the ABI's 16-byte stack alignment;
 *  - stacks abandoned mid-frame when a machine ends leave no sanitizer
 *    poison behind for the next machine mapped at the same addresses.
 */
#include "../harness.h"

#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/completion.h>

#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --- stack overflow ------------------------------------------------------------- */

static bool survivor_ran;

static int survivor_fn(void *arg)
{
	(void)arg;
	udelay(1);
	survivor_ran = true;
	return 0;
}

static void assert_overflow(const char *who)
{
	const struct sim_finding *f = h_first(SIM_F_STACK_OVERFLOW);
	char want[128];

	ck_assert_uint_eq(h_count(SIM_F_STACK_OVERFLOW), 1);
	ck_assert_ptr_nonnull(f);
	snprintf(want, sizeof(want), "stack overflow in %s (guard page hit)", who);
	ck_assert_str_eq(f->msg, want);
}

START_TEST(stack_overflow_is_fatal_finding)
{
	struct sigaction before, after;

	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &before), 0);
	h_init(2);
	sim_spawn("deep", h_overflow_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	assert_overflow("deep");
	/* where and when: cpu0, as the task started (1500 ns: the switch in) */
	ck_assert_int_eq(h_first(SIM_F_STACK_OVERFLOW)->cpu, 0);
	ck_assert_uint_eq(h_first(SIM_F_STACK_OVERFLOW)->time, 1500);
	ck_assert_str_eq(h_first(SIM_F_STACK_OVERFLOW)->context, "deep");
	sim_fini();
	/* the machine's teardown put the host's handler back (a reset keeps the machine's) */
	ck_assert_int_eq(sigaction(SIGSEGV, NULL, &after), 0);
	ck_assert_ptr_eq((void *)after.sa_sigaction, (void *)before.sa_sigaction);
	ck_assert_int_eq(after.sa_flags & SA_SIGINFO, before.sa_flags & SA_SIGINFO);

	/* the process goes on: a fresh machine runs to its end */
	h_init(2);
	sim_spawn("survivor", survivor_fn, NULL, 1, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert(survivor_ran);
	ck_assert_uint_eq(h_count(SIM_F_STACK_OVERFLOW), 0);
}
END_TEST

static void overflow_irq(void *arg)
{
	(void)arg;
	h_overflow();
}

START_TEST(stack_overflow_in_hardirq)
{
	h_init(1);
	sim_irq_at(1000, 0, "storm", overflow_irq, NULL);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	assert_overflow("hardirq");
}
END_TEST

/* A fault the machine cannot explain is the host's: the process dies of it (or ASan reports it). */
static volatile uintptr_t wild_addr;

static int wild_fn(void *arg)
{
	(void)arg;
	*(volatile int *)wild_addr = 1;
	return 0;
}

START_TEST(wild_access_is_not_a_finding)
{
	/* a page of the host's, no block's, no stack's */
	void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(page, MAP_FAILED);
	wild_addr = (uintptr_t)page + 16;
	h_init(1);
	sim_spawn("wild", wild_fn, NULL, 0, true, 0);
	h_run();
	ck_abort_msg("the run survived a wild access");
}
END_TEST

/*
 * The NULL page: a member reached through a NULL pointer, the kernel's oops
 * (named "an unknown function": the machine has no symbol for wild_fn).
 */
START_TEST(null_page_access_is_an_oops)
{
	const struct sim_finding *f;

	wild_addr = 16;
	h_init(1);
	sim_spawn("wild", wild_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_FATAL);
	ck_assert_uint_eq(h_count(SIM_F_BUG), 1);
	f = h_first(SIM_F_BUG);
	ck_assert_str_eq(f->msg, "BUG: kernel NULL pointer dereference\n"
				 "  Oops in an unknown function by task wild/1 on CPU 0");
	ck_assert_str_eq(f->context, "wild");
}
END_TEST

/*
 * A SIGSEGV sent by another process during a run is no access of the
 * model's: the process dies of it as of any. Sent with si_pid 16 and
 * si_uid 0, which is where a fault's si_addr lies: read as an address it
 * is the NULL page (kwsim serve's children are killed this way).
 */
static int sent_fn(void *arg)
{
	siginfo_t si;

	(void)arg;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = SI_QUEUE;
	si.si_pid = 16;
	si.si_uid = 0;
	syscall(SYS_rt_sigqueueinfo, getpid(), SIGSEGV, &si);
	return 0;
}

START_TEST(sent_segv_is_not_a_finding)
{
	h_init(1);
	sim_spawn("sent", sent_fn, NULL, 0, true, 0);
	h_run();
	ck_abort_msg("the run survived a SIGSEGV sent to it");
}
END_TEST

/* --- many tasks, many switches --------------------------------------------------- */

#define NTASKS 1000
#define NYIELDS 100

static struct task_struct *tasks[NTASKS];
static int yields_done[NTASKS];
static int corrupted;

static int yielder(void *arg)
{
	int id = (int)(uintptr_t)arg;
	unsigned int pattern[64];

	for (int i = 0; i < 64; i++)
		pattern[i] = (unsigned int)(id * 64 + i) * 2654435761U;
	for (int n = 0; n < NYIELDS; n++) {
		yield();
		for (int i = 0; i < 64; i++)
			if (pattern[i] != (unsigned int)(id * 64 + i) * 2654435761U)
				corrupted++;
		yields_done[id]++;
	}
	return 0;
}

START_TEST(thousand_tasks_switch_round_robin)
{
	struct sim_config cfg = h_config(1);
	struct sim_stats st;

	cfg.keep_trace = false;		/* 100k switches: the hash is enough */
	h_init_cfg(&cfg);
	for (int i = 0; i < NTASKS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "y%d", i);
		tasks[i] = sim_spawn(name, yielder, (void *)(uintptr_t)i, 0, true, 0);
	}
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(corrupted, 0);
	/*
	 * Every yield finds another task queued, so each switches away: a task
	 * is switched in once to start and once after each of its yields.
	 */
	for (int i = 0; i < NTASKS; i++) {
		ck_assert_int_eq(yields_done[i], NYIELDS);
		ck_assert_uint_eq(tasks[i]->nr_switches, NYIELDS + 1);
	}
	sim_get_stats(&st);
	ck_assert_uint_eq(st.tasks, NTASKS);
	ck_assert_uint_ge(st.switches, (uint64_t)NTASKS * (NYIELDS + 1));
}
END_TEST

/* --- floating point state -------------------------------------------------------- */

struct fp_result {
	int mode;		/* the rounding mode this task runs in */
	int bad_mode;		/* times fegetround() disagreed after a switch */
	int bad_double;		/* times 1/3 in double did not round this task's way */
	int bad_long_double;	/* the same in x87 long double */
	double sum;
};

static volatile double one = 1.0, three = 3.0;
static volatile long double lone = 1.0L, lthree = 3.0L;

static int fp_fn(void *arg)
{
	struct fp_result *r = arg;
	double third, want_third;
	long double lthird, want_lthird;

	fesetround(r->mode);
	want_third = one / three;
	want_lthird = lone / lthree;
	for (int i = 0; i < 50; i++) {
		r->sum += 0.1;
		yield();
		if (fegetround() != r->mode)
			r->bad_mode++;
		third = one / three;
		lthird = lone / lthree;
		r->bad_double += third != want_third;
		r->bad_long_double += lthird != want_lthird;
	}
	return 0;
}

START_TEST(fp_state_is_per_context)
{
	struct fp_result up = { .mode = FE_UPWARD }, down = { .mode = FE_DOWNWARD };
	double want_sum = 0;

	h_init(1);
	sim_spawn("up", fp_fn, &up, 0, true, 0);
	sim_spawn("down", fp_fn, &down, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_int_eq(up.bad_mode, 0);
	ck_assert_int_eq(down.bad_mode, 0);
	ck_assert_int_eq(up.bad_double, 0);
	ck_assert_int_eq(down.bad_double, 0);
	ck_assert_int_eq(up.bad_long_double, 0);
	ck_assert_int_eq(down.bad_long_double, 0);
	/* the two modes really round differently, in both units */
	{
		/* volatile: without -frounding-math a division may move across fesetround */
		volatile double u, d;
		volatile long double lu, ld;

		fesetround(FE_UPWARD);
		u = one / three;
		lu = lone / lthree;
		fesetround(FE_DOWNWARD);
		d = one / three;
		ld = lone / lthree;
		ck_assert(u > d);
		ck_assert(lu > ld);
	}
	fesetround(FE_TONEAREST);
	ck_assert_int_eq(fegetround(), FE_TONEAREST);
	/* the sums were accumulated in each task's own mode: up >= exact >= down */
	for (int i = 0; i < 50; i++)
		want_sum += 0.1;
	ck_assert(up.sum >= want_sum && down.sum <= want_sum && up.sum > down.sum);
}
END_TEST

static int host_mode_after;

START_TEST(fp_state_of_host_untouched)
{
	struct fp_result up = { .mode = FE_UPWARD };

	fesetround(FE_TOWARDZERO);
	h_init(1);
	sim_spawn("up", fp_fn, &up, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	host_mode_after = fegetround();
	fesetround(FE_TONEAREST);
	ck_assert_int_eq(host_mode_after, FE_TOWARDZERO);
	ck_assert_int_eq(up.bad_mode, 0);
}
END_TEST

/* --- stacks abandoned mid-frame -------------------------------------------------------- */

static struct completion never;
static int frames_used;

/* Blocks for good with instrumented frames (and their redzones) live on its stack. */
static noinline int block_deep(int depth)
{
	volatile char buf[200];

	buf[0] = (char)depth;
	if (depth)
		return block_deep(depth - 1) + buf[0];
	wait_for_completion(&never);
	return buf[0];
}

static int abandoned_fn(void *arg)
{
	(void)arg;
	return block_deep(20);
}

static noinline int use_stack(int depth)
{
	volatile char buf[300];

	memset((char *)buf, depth, sizeof(buf));
	if (depth)
		return use_stack(depth - 1) + buf[7];
	frames_used++;
	return buf[299];
}

static int stack_user_fn(void *arg)
{
	(void)arg;
	use_stack(40);
	return 0;
}

/*
 * The first machine ends with tasks asleep in the middle of their frames;
 * the next one maps its stacks where those were. Under ASan the old frames'
 * poisoned redzones must not follow the memory into the new machine.
 */
START_TEST(abandoned_stacks_leave_nothing_behind)
{
	for (int round = 0; round < 3; round++) {
		h_init(2);
		init_completion(&never);
		for (int i = 0; i < 8; i++)
			sim_spawn("stuck", abandoned_fn, NULL, i % 2, false, 0);
		ck_assert_int_eq(h_run(), SIM_END_DEADLOCK);
		sim_fini();
		h_init(2);
		for (int i = 0; i < 8; i++)
			sim_spawn("user", stack_user_fn, NULL, i % 2, false, 0);
		ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
		sim_fini();
	}
	ck_assert_int_eq(frames_used, 3 * 8);
}
END_TEST

/* --- stack alignment ---------------------------------------------------------------- */

static uintptr_t aligned_addr;

static noinline void take_aligned(void)
{
	char buf[16] __attribute__((aligned(16)));

	/* the compiler trusts the ABI's alignment here; it does not realign */
	aligned_addr = (uintptr_t)buf;
	__asm__ __volatile__("" : : "r"(buf) : "memory");
}

static int align_fn(void *arg)
{
	(void)arg;
	take_aligned();
	return 0;
}

START_TEST(new_coroutine_stack_is_aligned)
{
	h_init(1);
	sim_spawn("align", align_fn, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_ne(aligned_addr, 0);
	ck_assert_uint_eq(aligned_addr % 16, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("coro");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, stack_overflow_is_fatal_finding);
	tcase_add_test(tc, stack_overflow_in_hardirq);
#if defined(KWSIM_ASAN)
	/* ASan's SEGV report, with the tests' status for it (tests/harness.c) */
	tcase_add_exit_test(tc, wild_access_is_not_a_finding, 86);
	tcase_add_exit_test(tc, sent_segv_is_not_a_finding, 86);
#else
	tcase_add_test_raise_signal(tc, wild_access_is_not_a_finding, SIGSEGV);
	tcase_add_test_raise_signal(tc, sent_segv_is_not_a_finding, SIGSEGV);
#endif
	tcase_add_test(tc, null_page_access_is_an_oops);
	tcase_add_test(tc, thousand_tasks_switch_round_robin);
	tcase_add_test(tc, fp_state_is_per_context);
	tcase_add_test(tc, fp_state_of_host_untouched);
	tcase_add_test(tc, new_coroutine_stack_is_aligned);
	tcase_add_test(tc, abandoned_stacks_leave_nothing_behind);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
