/*
 * Virtual time: what this suite pins down.
 *  - jiffies start at the kernel's INITIAL_JIFFIES for HZ 100, 250 and 1000,
 *    and read 2^32 exactly 300 s after boot;
 *  - sim_ns_to_jiffies and sim_jiffies_to_ns are inverse at every jiffy
 *    boundary, for HZ that divide a second and HZ that do not, and
 *    jiffies_to_ns gives the first nanosecond at which a jiffy reads;
 *  - a task reads jiffies from its own CPU's clock, changing exactly there;
 *  - time_after and friends across the 32-bit and the 64-bit wrap;
 *  - msecs_to_jiffies and jiffies_to_msecs round as the kernel's do.
 */
#include "../harness.h"

#include <linux/jiffies.h>
#include <linux/delay.h>
#include <linux/sched.h>

#include <limits.h>

#define NSEC_PER_SEC	1000000000ULL

static void init_hz(unsigned int hz)
{
	struct sim_config cfg = h_config(1);

	cfg.hz = hz;
	h_init_cfg(&cfg);
}

static const struct { unsigned int hz; unsigned long initial; } initial_table[] = {
	{ 100, 4294937296UL },	/* 2^32 - 30000 */
	{ 250, 4294892296UL },	/* 2^32 - 75000 */
	{ 1000, 4294667296UL },	/* 2^32 - 300000 */
};

START_TEST(initial_jiffies)
{
	unsigned int hz = initial_table[_i].hz;
	unsigned long initial = initial_table[_i].initial;

	init_hz(hz);
	ck_assert_uint_eq(INITIAL_JIFFIES, initial);
	ck_assert_uint_eq(sim_ns_to_jiffies(0), initial);
	ck_assert_uint_eq(sim_jiffies_to_ns(initial), 0);
	/* the low 32 bits wrap five minutes in */
	ck_assert_uint_eq(sim_ns_to_jiffies(300 * NSEC_PER_SEC), 1UL << 32);
	ck_assert_uint_eq(sim_ns_to_jiffies(300 * NSEC_PER_SEC - 1), (1UL << 32) - 1);
	ck_assert_uint_eq(sim_jiffies_to_ns(1UL << 32), 300 * NSEC_PER_SEC);
}
END_TEST

/* For every jiffy j checked: j reads from jiffies_to_ns(j) on, and not one ns before. */
static void check_boundary(unsigned long j)
{
	uint64_t ns = sim_jiffies_to_ns(j);

	ck_assert_msg(sim_ns_to_jiffies(ns) == j, "hz %u: jiffy %lu starts at %llu ns, reads %lu",
		      HZ, j, (unsigned long long)ns, sim_ns_to_jiffies(ns));
	if (j != INITIAL_JIFFIES)
		ck_assert_msg(sim_ns_to_jiffies(ns - 1) == j - 1,
			      "hz %u: one ns before jiffy %lu reads %lu", HZ, j,
			      sim_ns_to_jiffies(ns - 1));
}

static const unsigned int inverse_hz[] = { 1, 24, 100, 250, 300, 1000, 1024, 1200, 10000 };

START_TEST(ns_jiffies_inverse)
{
	unsigned int hz = inverse_hz[_i];

	init_hz(hz);
	for (unsigned long k = 0; k < 3UL * hz + 7; k++)
		check_boundary(INITIAL_JIFFIES + k);
	/* around the 32-bit crossing (not before boot) and far out (a year of uptime) */
	for (unsigned long k = 0; k < 2000; k++) {
		check_boundary((1UL << 32) - (hz >= 4 ? 1000 : 300UL * hz) + k);
		check_boundary(INITIAL_JIFFIES + 365UL * 86400 * hz + k);
	}
}
END_TEST

START_TEST(jiffies_to_ns_rounds_up)
{
	/* HZ=300: a jiffy is 3333333.33 ns, so jiffy 1 first reads at 3333334 ns */
	init_hz(300);
	ck_assert_uint_eq(sim_jiffies_to_ns(INITIAL_JIFFIES + 1), 3333334);
	ck_assert_uint_eq(sim_jiffies_to_ns(INITIAL_JIFFIES + 2), 6666667);
	ck_assert_uint_eq(sim_jiffies_to_ns(INITIAL_JIFFIES + 3), 10000000);
	ck_assert_uint_eq(sim_ns_to_jiffies(3333333), INITIAL_JIFFIES);
	ck_assert_uint_eq(sim_ns_to_jiffies(3333334), INITIAL_JIFFIES + 1);
}
END_TEST

/* --- jiffies as a task reads them ------------------------------------------------ */

static unsigned long seen[4];
static uint64_t seen_at[4];

static int read_jiffies(void *arg)
{
	(void)arg;
	/* the task starts after the context switch: 1500 ns */
	seen_at[0] = sim_now();
	seen[0] = jiffies;
	ndelay(4000000 - 1 - sim_now());	/* the last ns of the first jiffy */
	seen_at[1] = sim_now();
	seen[1] = jiffies;
	ndelay(1);
	seen_at[2] = sim_now();
	seen[2] = jiffies;
	mdelay(300000 - 4);			/* 300 s after boot */
	seen_at[3] = sim_now();
	seen[3] = jiffies;
	return 0;
}

START_TEST(task_reads_jiffies)
{
	h_init(1);
	sim_spawn("reader", read_jiffies, NULL, 0, true, 0);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(seen_at[0], 1500);
	ck_assert_uint_eq(seen[0], 4294892296UL);
	ck_assert_uint_eq(seen_at[1], 3999999);
	ck_assert_uint_eq(seen[1], 4294892296UL);
	ck_assert_uint_eq(seen_at[2], 4000000);
	ck_assert_uint_eq(seen[2], 4294892297UL);
	ck_assert_uint_eq(seen_at[3], 300 * NSEC_PER_SEC);
	ck_assert_uint_eq(seen[3], 1UL << 32);
	ck_assert(time_after(seen[3], seen[0]));
	ck_assert(time_before(seen[0], seen[3]));
}
END_TEST

/* --- wrap-safe comparisons ----------------------------------------------------------- */

START_TEST(time_after_32bit_crossing)
{
	unsigned long before = 0xfffffff0UL, after = 0x100000010UL;

	ck_assert(time_after(after, before));
	ck_assert(!time_after(before, after));
	ck_assert(time_before(before, after));
	ck_assert(!time_before(after, before));
	ck_assert(time_after_eq(after, before));
	ck_assert(time_after_eq(after, after));
	ck_assert(time_before_eq(before, after));
	ck_assert(time_before_eq(before, before));
	ck_assert(!time_after(after, after));
	ck_assert(!time_before(after, after));
	ck_assert(time_in_range(0x100000000UL, before, after));
	ck_assert(!time_in_range(0xffffffefUL, before, after));
}
END_TEST

START_TEST(time_after_64bit_wrap)
{
	unsigned long before = ULONG_MAX - 5, after = 5;

	ck_assert(time_after(after, before));
	ck_assert(!time_after(before, after));
	ck_assert(time_before(before, after));
	ck_assert(!time_before(after, before));
	ck_assert(time_after_eq(after, before));
	ck_assert(time_before_eq(before, after));
	ck_assert(time_in_range(0UL, before, after));
	ck_assert(time_in_range(ULONG_MAX, before, after));
	ck_assert(!time_in_range(6UL, before, after));
	/* half the range away is the horizon: beyond it the order flips */
	ck_assert(time_after(LONG_MAX + 1UL, 0UL));
	ck_assert(!time_after(LONG_MAX + 2UL, 0UL));
}
END_TEST

/* --- conversions ------------------------------------------------------------------ */

struct conv { unsigned int hz, m; unsigned long j; };

static const struct conv ms_table[] = {
	{ 250, 0, 0 }, { 250, 1, 1 }, { 250, 4, 1 }, { 250, 5, 2 }, { 250, 10, 3 },
	{ 250, 12, 3 }, { 250, 13, 4 }, { 250, 1000, 250 },
	{ 100, 1, 1 }, { 100, 10, 1 }, { 100, 11, 2 }, { 100, 1000, 100 },
	{ 1000, 1, 1 }, { 1000, 10, 10 }, { 1000, 1001, 1001 },
	{ 300, 1, 1 }, { 300, 3, 1 }, { 300, 4, 2 }, { 300, 10, 3 }, { 300, 11, 4 },
	{ 2000, 1, 2 }, { 2000, 7, 14 },
	{ 250, 0x7fffffffU, 536870912UL },
};

START_TEST(msecs_to_jiffies_rounding)
{
	const struct conv *t = &ms_table[_i];

	init_hz(t->hz);
	ck_assert_msg(msecs_to_jiffies(t->m) == t->j, "HZ=%u msecs_to_jiffies(%u) = %lu, not %lu",
		      t->hz, t->m, msecs_to_jiffies(t->m), t->j);
}
END_TEST

START_TEST(msecs_to_jiffies_negative_is_infinite)
{
	/* kernel/time/time.c: "Negative value, means infinite timeout" */
	init_hz(250);
	ck_assert_uint_eq(msecs_to_jiffies(0x80000000U), MAX_JIFFY_OFFSET);
	ck_assert_uint_eq(msecs_to_jiffies(UINT_MAX), MAX_JIFFY_OFFSET);
	ck_assert_uint_eq(MAX_JIFFY_OFFSET, (LONG_MAX >> 1) - 1);
}
END_TEST

struct jconv { unsigned int hz; unsigned long j; unsigned int m; };

static const struct jconv j_table[] = {
	{ 250, 1, 4 }, { 250, 3, 12 }, { 100, 1, 10 }, { 1000, 7, 7 },
	/* HZ=300: DIV_ROUND_UP(j * 10, 3), as HZ_TO_MSEC_NUM/DEN make it */
	{ 300, 1, 4 }, { 300, 3, 10 }, { 300, 4, 14 },
	/* HZ=2000: (j + 1) / 2 */
	{ 2000, 1, 1 }, { 2000, 3, 2 }, { 2000, 4, 2 },
};

START_TEST(jiffies_to_msecs_rounding)
{
	const struct jconv *t = &j_table[_i];

	init_hz(t->hz);
	ck_assert_msg(jiffies_to_msecs(t->j) == t->m, "HZ=%u jiffies_to_msecs(%lu) = %u, not %u",
		      t->hz, t->j, jiffies_to_msecs(t->j), t->m);
}
END_TEST

START_TEST(usecs_to_jiffies_rounding)
{
	init_hz(250);
	ck_assert_uint_eq(usecs_to_jiffies(0), 0);
	ck_assert_uint_eq(usecs_to_jiffies(1), 1);
	ck_assert_uint_eq(usecs_to_jiffies(4000), 1);
	ck_assert_uint_eq(usecs_to_jiffies(4001), 2);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, initial_jiffies, 0, N(initial_table));
	tcase_add_loop_test(tc, ns_jiffies_inverse, 0, N(inverse_hz));
	tcase_add_test(tc, jiffies_to_ns_rounds_up);
	tcase_add_test(tc, task_reads_jiffies);
	tcase_add_test(tc, time_after_32bit_crossing);
	tcase_add_test(tc, time_after_64bit_wrap);
	tcase_add_loop_test(tc, msecs_to_jiffies_rounding, 0, N(ms_table));
	tcase_add_test(tc, msecs_to_jiffies_negative_is_infinite);
	tcase_add_loop_test(tc, jiffies_to_msecs_rounding, 0, N(j_table));
	tcase_add_test(tc, usecs_to_jiffies_rounding);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
