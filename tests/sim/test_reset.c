/*
 * Pins sim_reset(): a machine reset for the next run is as good as a new
 * process's, and what it keeps does not grow.
 *  - the mix's seeds, run again and again on one machine reset between
 *    runs, give the hash, decision count and end a fresh process gives;
 *  - a run after one that faulted (a stack overflow, a use-after-free) is
 *    clean and the same as ever, and the fault itself repeats: the kept
 *    stacks keep their guard pages, the kept blocks fault when freed again;
 *  - a kept block comes back as a fresh one would: kzalloc zeroes it;
 *  - under ASan, a task_struct kept for the next run is poisoned until
 *    that run takes it, so a stale pointer to it is still reported;
 *  - a stack kept for the next run has no owner until a task of that run
 *    takes it, and then that task's: owners are the run's own;
 *  - a reset with a bad configuration leaves the machine and its run as they were;
 *  - a lock named from the caller's buffer is hashed by the name it has in
 *    the run, whatever the buffer held in the run before;
 *  - the process's mappings stay bounded over a thousand runs.
 */
#include "../harness.h"
#include "mix.h"
#include "../../sim/machine.h"	/* sim_owner_of(): whose stack an address is on */

#include <linux/delay.h>
#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/compiler.h>
#include <linux/sched.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEEDS	24
#define PASSES	4

struct outcome {
	uint64_t hash;
	size_t decisions;
	enum sim_end end;
	size_t findings;
};

static struct outcome run_seed(uint64_t seed, bool reset)
{
	struct mix_run r = { .seed = seed, .strategy = SIM_STRATEGY_RANDOM, .reset = reset };

	mix_run(&r);
	return (struct outcome){ r.hash, r.decisions, r.end, r.findings };
}

/* The seed's outcome in a new process: a child that has run no machine before. */
static struct outcome fresh_process(uint64_t seed)
{
	struct outcome o;
	int fd[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		o = run_seed(seed, false);
		_exit(write(fd[1], &o, sizeof(o)) == (ssize_t)sizeof(o) ? 0 : 1);
	}
	close(fd[1]);
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(read(fd[0], &o, sizeof(o)), (ssize_t)sizeof(o));
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return o;
}

static void same(uint64_t seed, const char *what, struct outcome a, struct outcome b)
{
	ck_assert_msg(a.hash == b.hash && a.decisions == b.decisions && a.end == b.end &&
		      a.findings == b.findings,
		      "seed %llu, %s: %016llx/%zu/%s/%zu then %016llx/%zu/%s/%zu",
		      (unsigned long long)seed, what, (unsigned long long)a.hash, a.decisions,
		      sim_end_name(a.end), a.findings, (unsigned long long)b.hash, b.decisions,
		      sim_end_name(b.end), b.findings);
}

static struct outcome fresh[SEEDS];

static void fresh_outcomes(void)
{
	for (int s = 0; s < SEEDS; s++)
		fresh[s] = fresh_process((uint64_t)s);
}

START_TEST(resets_repeat_a_fresh_process)
{
	fresh_outcomes();
	/* forwards, then backwards: each seed follows a different run each pass */
	for (int pass = 0; pass < PASSES; pass++)
		for (int i = 0; i < SEEDS; i++) {
			int s = pass % 2 ? SEEDS - 1 - i : i;

			same((uint64_t)s, "reset", fresh[s], run_seed((uint64_t)s, true));
		}
	sim_fini();
}
END_TEST

/* --- after a fault ------------------------------------------------------------------ */

struct thing {
	long a, b;
};

static noinline void drop_thing(struct thing *t)
{
	kfree(t);
}

static volatile long sink;

static int uaf_fn(void *arg)
{
	struct thing *t = kzalloc(sizeof(*t), GFP_KERNEL);

	(void)arg;
	msleep(1);
	drop_thing(t);
	sink = t->b;
	return 0;
}

/* Reset the machine for a run of fn on 2 CPUs, run it, return the first finding's kind. */
static enum sim_finding_kind faulting_run(int (*fn)(void *), enum sim_end *end)
{
	struct sim_config cfg = h_config(2);

	ck_assert_int_eq(sim_reset(&cfg), 0);
	sim_spawn("faulty", fn, NULL, 0, true, 0);
	*end = sim_run();
	ck_assert_uint_eq(sim_finding_count(), 1);
	return sim_finding(0)->kind;
}

START_TEST(a_run_after_a_fault_is_clean)
{
	static int (*const faults[])(void *) = { h_overflow_fn, uaf_fn };
	static const enum sim_finding_kind kinds[] = { SIM_F_STACK_OVERFLOW, SIM_F_UAF };
	char first[2][1100];

	fresh_outcomes();
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < 2; k++) {
			enum sim_end end;

			ck_assert_int_eq(faulting_run(faults[k], &end), kinds[k]);
			ck_assert_int_eq(end, SIM_END_FATAL);
			/* the same fault, in the same words, every time */
			if (!round)
				snprintf(first[k], sizeof(first[k]), "%s", sim_finding(0)->msg);
			else
				ck_assert_str_eq(sim_finding(0)->msg, first[k]);
			for (int s = 0; s < SEEDS; s += 5)
				same((uint64_t)s, "after a fault", fresh[s], run_seed((uint64_t)s, true));
		}
	sim_fini();
}
END_TEST

/* --- kept blocks ------------------------------------------------------------------------ */

static bool zeroed;

static int dirty_fn(void *arg)
{
	char *p = kmalloc(200, GFP_KERNEL);

	(void)arg;
	memset(p, 0x5a, 200);
	kfree(p);
	p = kmalloc(200, GFP_KERNEL);	/* not freed: kept in the reset as it is */
	memset(p, 0x5a, 200);
	return 0;
}

static int clean_fn(void *arg)
{
	char *p = kzalloc(200, GFP_KERNEL), *q = kzalloc(200, GFP_KERNEL);

	(void)arg;
	zeroed = true;
	for (int i = 0; i < 200; i++)
		zeroed &= !p[i] && !q[i];
	kfree(p);
	kfree(q);
	return 0;
}

START_TEST(kept_blocks_come_back_fresh)
{
	struct sim_config cfg = h_config(1);

	ck_assert_int_eq(sim_reset(&cfg), 0);
	sim_spawn("dirty", dirty_fn, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(h_count(SIM_F_LEAK), 1);
	ck_assert_int_eq(sim_reset(&cfg), 0);
	sim_spawn("clean", clean_fn, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(sim_finding_count(), 0);
	ck_assert(zeroed);
	sim_fini();
}
END_TEST

static uintptr_t stack_slot;	/* an address on the first task's stack */

static int note_stack(void *arg)
{
	volatile int slot = 0;

	(void)arg;
	stack_slot = (uintptr_t)&slot;
	return slot;
}

START_TEST(kept_stacks_are_owned_by_their_run)
{
	struct sim_config cfg = h_config(1);
	struct task_struct *p;

	ck_assert_int_eq(sim_reset(&cfg), 0);
	p = sim_spawn("first", note_stack, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	ck_assert_ptr_nonnull(sim_owner_of((const void *)stack_slot));
	ck_assert_ptr_eq(sim_owner_of((const void *)stack_slot)->ctx, &p->ctx);
	/* kept in the pool, its mapping where it was: nobody's */
	ck_assert_int_eq(sim_reset(&cfg), 0);
	ck_assert(!sim_on_stack((const void *)stack_slot));
	/* the CPUs took theirs back first (last in, first out): this task takes first's */
	p = sim_spawn("second", clean_fn, NULL, 0, true, 0);
	ck_assert_ptr_nonnull(sim_owner_of((const void *)stack_slot));
	ck_assert_ptr_eq(sim_owner_of((const void *)stack_slot)->ctx, &p->ctx);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	sim_fini();
}
END_TEST

START_TEST(a_bad_reset_leaves_the_run)
{
	struct sim_config cfg = h_config(1), bad = cfg;

	ck_assert_int_eq(sim_reset(&cfg), 0);
	sim_spawn("dirty", dirty_fn, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	bad.ncpus = 0;
	ck_assert_int_eq(sim_reset(&bad), -EINVAL);
	ck_assert_str_eq(sim_error(), "cpus must be 1 to 64, not 0");
	/* the run's findings are still there to read */
	ck_assert_uint_eq(h_count(SIM_F_LEAK), 1);
	ck_assert_int_eq(sim_reset(&cfg), 0);
	ck_assert_uint_eq(sim_finding_count(), 0);
	sim_fini();
}
END_TEST

static char lock_name[16];	/* the caller's: rewritten between runs */
static spinlock_t named_lock;

static int take_named(void *arg)
{
	(void)arg;
	spin_lock_init(&named_lock);
	lockdep_set_class_and_name(&named_lock, NULL, lock_name);
	spin_lock(&named_lock);
	spin_unlock(&named_lock);
	return 0;
}

/* The trace hash of a run that takes a lock named name: reset from the last run, or new. */
static uint64_t named_run(const char *name, bool reset)
{
	struct sim_config cfg = h_config(1);

	snprintf(lock_name, sizeof(lock_name), "%s", name);
	ck_assert_int_eq(reset ? sim_reset(&cfg) : sim_init(&cfg), 0);
	sim_spawn("named", take_named, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	return sim_trace_hash();
}

START_TEST(a_renamed_lock_hashes_by_its_new_name)
{
	uint64_t alpha = named_run("alpha", false), beta;

	sim_fini();
	beta = named_run("beta", false);
	sim_fini();
	ck_assert(alpha != beta);
	named_run("alpha", false);
	ck_assert(named_run("beta", true) == beta);
	sim_fini();
}
END_TEST

#ifdef KWSIM_ASAN	/* not __SANITIZE_ADDRESS__: the kernel-address checks set it too */
#include <sanitizer/asan_interface.h>

START_TEST(kept_tasks_are_poisoned)
{
	struct sim_config cfg = h_config(1);
	struct task_struct *p;

	ck_assert_int_eq(sim_reset(&cfg), 0);
	p = sim_spawn("clean", clean_fn, NULL, 0, true, 0);
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	ck_assert(!__asan_address_is_poisoned(p));
	ck_assert_int_eq(sim_reset(&cfg), 0);
	ck_assert(__asan_address_is_poisoned(p));
	ck_assert(__asan_address_is_poisoned((char *)p + sizeof(*p) - 1));
	/* the next run's first task takes it back, unpoisoned and zeroed */
	ck_assert_ptr_eq(sim_spawn("clean", clean_fn, NULL, 0, true, 0), p);
	ck_assert(!__asan_address_is_poisoned(p));
	ck_assert_int_eq(sim_run(), SIM_END_QUIESCENT);
	sim_fini();
}
END_TEST
#endif

/* --- what is kept stays bounded ------------------------------------------------------------ */

static size_t mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;
	int ch;

	ck_assert_ptr_nonnull(f);
	while ((ch = getc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

START_TEST(kept_mappings_stay_bounded)
{
	size_t after_first_pass = 0;
	int runs = 0;

	/* 1,000 runs of seeds whose machines differ in CPUs, tasks and blocks */
	for (int pass = 0; pass < 1000 / SEEDS + 1; pass++) {
		for (int s = 0; s < SEEDS; s++, runs++)
			run_seed((uint64_t)s, true);
		if (!pass)
			after_first_pass = mappings();
	}
	ck_assert_int_ge(runs, 1000);
	/*
	 * Every run of the mix maps several stacks and blocks: one leaked per
	 * run would add a thousand lines. The slack is for the host's own
	 * allocator, which may map more for reasons of its own.
	 */
	ck_assert_msg(mappings() <= after_first_pass + 16, "%zu mappings after %d runs, %zu after %d",
		      mappings(), runs, after_first_pass, SEEDS);
	sim_fini();
}
END_TEST

static Suite *reset_suite(void)
{
	Suite *s = suite_create("reset");
	TCase *tc = tcase_create("reset");

	tcase_add_test(tc, resets_repeat_a_fresh_process);
	tcase_add_test(tc, a_run_after_a_fault_is_clean);
	tcase_add_test(tc, kept_blocks_come_back_fresh);
	tcase_add_test(tc, kept_stacks_are_owned_by_their_run);
	tcase_add_test(tc, a_bad_reset_leaves_the_run);
	tcase_add_test(tc, a_renamed_lock_hashes_by_its_new_name);
#ifdef KWSIM_ASAN	/* not __SANITIZE_ADDRESS__: the kernel-address checks set it too */
	tcase_add_test(tc, kept_tasks_are_poisoned);
#endif
	tcase_add_test(tc, kept_mappings_stay_bounded);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(reset_suite)
