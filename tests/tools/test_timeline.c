/*
 * The timeline view (tools/view/timeline.c) from hand-built records, where the
 * expected column of each thing is worked out by hand: a work that takes no
 * time shows (the first to begin in a column), a spin is painted back from
 * where it began, an irq beats the task it interrupts, a window shows only
 * itself and follows states from before it, task lanes name the ways of
 * waiting, and the drawing does not depend on how often the stream is
 * released (nor on an open window's doublings: its column is a whole number
 * of cells). The library runs' drawings are pinned by tests/tools/timeline.sh.
 */
#include "../harness.h"

#include <stdlib.h>
#include <string.h>

#include "view/trace_view.h"

#define S_TASK_UNINTERRUPTIBLE	2ULL

static struct sim_rec rec(uint64_t time, int cpu, int pid, const char *comm, enum sim_rec_type type)
{
	struct sim_rec r = { .time = time, .cpu = (uint16_t)cpu, .pid = pid, .type = (uint8_t)type };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static struct sim_rec sw(uint64_t time, int cpu, int prev, const char *pc, uint64_t state,
			 int next, const char *nc)
{
	struct sim_rec r = rec(time, cpu, prev, prev ? pc : "", REC_SCHED_SWITCH);

	r.a = (uint64_t)prev;
	r.b = state;
	r.c = (uint64_t)next;
	r.s = pc;
	r.s2 = nc;
	return r;
}

static struct sim_rec work(uint64_t time, int cpu, const char *ev, const char *fn)
{
	struct sim_rec r = rec(time, cpu, 2, "kw", REC_MODEL);

	r.a = 0x1000;
	r.s = ev;
	r.s2 = fn;
	return r;
}

/*
 * cpu0: kw (pid 2) runs from 0 to 4000 ns; at 1000 f begins and ends at
 * once, g runs 1000..1900; kw spins on L from 2000 to 3000; a hardirq
 * interrupts it 3500..3550. P0 (pid 3) sleeps D on cpu1 from 100 on.
 */
static size_t scene(struct sim_rec *v)
{
	size_t n = 0;
	struct sim_rec r;

	v[n++] = sw(0, 0, 0, "swapper/0", 0, 2, "kw");
	v[n++] = sw(0, 1, 0, "swapper/1", 0, 3, "P0");
	v[n++] = sw(100, 1, 3, "P0", S_TASK_UNINTERRUPTIBLE, 0, "swapper/1");
	v[n++] = work(1000, 0, "sched_kthread_work_execute_start", "f");
	v[n++] = work(1000, 0, "sched_kthread_work_execute_end", "f");
	v[n++] = work(1000, 0, "sched_kthread_work_execute_start", "g");
	v[n++] = work(1900, 0, "sched_kthread_work_execute_end", "g");
	r = rec(3000, 0, 2, "kw", REC_LOCK_CONTENDED);
	r.b = 1000;
	r.s = "L";
	v[n++] = r;
	r = rec(3500, 0, 2, "kw", REC_IRQ_ENTRY);
	r.s = "dev";
	v[n++] = r;
	v[n++] = rec(3550, 0, 2, "kw", REC_IRQ_EXIT);
	v[n++] = sw(4000, 0, 2, "kw", 1, 0, "swapper/0");
	return n;
}

/* The drawing of recs; release: after each record, up to its time (else all at the end). */
static char *draw(const struct sim_rec *recs, size_t n, struct trace_timeline_opts o, bool release)
{
	struct trace_view_opts vo = { .ncpus = 2 };
	struct trace_timeline *t = trace_timeline_begin(&vo, &o);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < n; i++) {
		trace_timeline_record(t, &recs[i]);
		if (release)
			trace_timeline_release(t, recs[i].time);
	}
	trace_timeline_end(t, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* The row after label (a line starting with it), from the drawing's column 0. */
static char *row(const char *text, const char *label)
{
	size_t l = strlen(label);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, label, l) && p[l] == ' ') {
			const char *end = strchr(p, '\n');

			return strndup(p + 16, (size_t)(end - p) - 16);
		}
	}
	ck_abort_msg("no row %s in:\n%s", label, text);
	return NULL;
}

static const struct trace_timeline_opts cpus100 = {
	.width = 16 + 40, .to = 4000, .cpu_lanes = true,	/* 40 columns of 100 ns */
};

START_TEST(columns_by_hand)
{
	struct sim_rec v[32];
	size_t n = scene(v);
	char *d = draw(v, n, cpus100, false);
	char *run = row(d, "cpu0"), *works = row(d, "  works");

	/* kw ran (k), from 2000 to 3000 it spun, at 3500 the irq */
	ck_assert_str_eq(run, "kkkkkkkkkkkkkkkkkkkk~~~~~~~~~~kkkkkHkkkk");
	/* f took no time but began first in column 10; g ran 1000..1900 */
	ck_assert_str_eq(works, "          FGGGGGGGG");
	ck_assert_ptr_nonnull(strstr(d, "Timeline: 0 to 4us, 1 column = 100ns\n"));
	ck_assert_ptr_nonnull(strstr(d, "F f  G g"));
	ck_assert_ptr_nonnull(strstr(d, "locks spun on   L\n"));
	free(run);
	free(works);
	free(d);
}
END_TEST

START_TEST(task_lanes_wait_states)
{
	struct sim_rec v[32];
	size_t n = scene(v);
	struct trace_timeline_opts o = cpus100;
	char *d, *kw, *p0;

	o.cpu_lanes = false;
	o.task_lanes = true;
	d = draw(v, n, o, false);
	kw = row(d, "kw-2");
	p0 = row(d, "P0-3");
	ck_assert_str_eq(kw, "==========FGGGGGGGG=~~~~~~~~~~==========");
	/* ran 0..100, then blocked (D) to the end */
	ck_assert_str_eq(p0, "=:::::::::::::::::::::::::::::::::::::::");
	ck_assert_ptr_null(strstr(d, "\ncpu0"));
	free(kw);
	free(p0);
	free(d);
}
END_TEST

START_TEST(window_follows_states_from_before)
{
	struct sim_rec v[32];
	size_t n = scene(v);
	struct trace_timeline_opts o = cpus100;
	char *d, *run;

	o.from = 2500;
	o.to = 3700;	/* 40 columns of 30 ns */
	d = draw(v, n, o, false);
	run = row(d, "cpu0");
	/*
	 * the spin began before the window: 2500..3000 is spinning (cells 0 to 16,
	 * the last 2980..3010), then kw; the irq 3500..3550 is in cells 33 and 34
	 */
	ck_assert_str_eq(run, "~~~~~~~~~~~~~~~~~kkkkkkkkkkkkkkkkHHkkkkk");
	ck_assert_ptr_nonnull(strstr(d, "Timeline: 2.5us to 3.7us, 1 column = 30ns\n"));
	free(run);
	free(d);
}
END_TEST

START_TEST(release_cadence_and_open_window)
{
	struct sim_rec v[32];
	size_t n = scene(v);
	struct trace_timeline_opts o = cpus100;
	char *once, *each, *run;

	/* the stream's releases do not change the drawing */
	once = draw(v, n, o, false);
	each = draw(v, n, o, true);
	ck_assert_str_eq(once, each);
	free(once);
	free(each);
	/* open: 4001 ns in 40 columns of cells doubled to 16 ns: 7 cells (112 ns) a column */
	o.to = 0;
	once = draw(v, n, o, false);
	each = draw(v, n, o, true);
	ck_assert_str_eq(once, each);
	ck_assert_ptr_nonnull(strstr(once, "Timeline: 0 to 4.001us, 1 column = 112ns\n"));
	run = row(once, "cpu0");
	/*
	 * 36 columns; the spin 2000..3000 covers columns 17 (1904..2016) to 26
	 * (2912..3024), the irq at 3500 column 31 (3472..3584)
	 */
	ck_assert_str_eq(run, "kkkkkkkkkkkkkkkkk~~~~~~~~~~kkkkHkkkk");
	free(run);
	free(once);
	free(each);
}
END_TEST

START_TEST(nothing_in_the_window)
{
	struct sim_rec v[32];
	size_t n = scene(v);
	struct trace_timeline_opts o = cpus100;
	char *d;

	o.from = 5000;
	o.to = 0;
	d = draw(v, n, o, true);
	ck_assert_str_eq(d, "\nTimeline: nothing from 5us on: the run's last record is at 4us\n");
	free(d);
	/* no records at all, and a timeline freed without drawing */
	d = draw(v, 0, cpus100, false);
	ck_assert_ptr_nonnull(strstr(d, "Timeline: nothing"));
	free(d);
	trace_timeline_end(trace_timeline_begin(NULL, &cpus100), NULL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("timeline");

	tcase_add_test(tc, columns_by_hand);
	tcase_add_test(tc, task_lanes_wait_states);
	tcase_add_test(tc, window_follows_states_from_before);
	tcase_add_test(tc, release_cadence_and_open_window);
	tcase_add_test(tc, nothing_in_the_window);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
