/*
 * kwsim bench's cost-growth rows: what a run costs as the scenario grows,
 * which should be in proportion to what the run does (DESIGN.md "Scale":
 * anything per step that walks every object is a bug). Three families of
 * scenarios, generated here so that the sizes are parameters:
 *  - N works queued on one worker, flushed, the worker destroyed: explore
 *    (the default portfolio, coverage and all, as `kwsim explore` runs it)
 *    at N = 10, 100, 1,000, 10,000;
 *  - a delayed work that queues itself again every jiffy while a program
 *    sleeps S simulated seconds, then cancels it: explore at S = 1, 10, 100;
 *  - T workers created and destroyed: one plain run at T = 1,000, 10,000.
 * Each size of a family gets the same runs (an explore campaign also makes
 * 17 calibration runs first, xs_calibrate(): its fixed part grows with the
 * size as the runs do). Each row gives wall and CPU time (the process's: a
 * loaded host slows the wall clock, not the CPU figure), runs per CPU
 * second, and the CPU time per unit of size (work, simulated second,
 * worker) beside the row before's (10 times smaller): linear growth keeps that
 * ratio near 1 (less while a fixed cost still shows), quadratic makes it
 * 10. The target: at most 2 at every step;
 * --quick leaves out each family's largest size.
 */
#include "lib/util.h"
#include "bench/bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore/explore.h"
#include "scenario/scn.h"

#include <model.h>
#include <sim/sim.h>

#define TARGET_GROWTH	2.0	/* per-unit CPU cost at most this many times the smallest's */

struct text {
	char *p;
	size_t len, cap;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->p = realloc(t->p, t->cap);
		if (!t->p)
			abort();
	}
	t->len += (size_t)n;
}

static void gen_works(struct text *t, long n)
{
	put(t, "KW works-%ld\n{\n  cpus = 2;\n  fn noop { }\n", n);
	put(t, "  worker W = kthread_create_worker(0, \"kw\");\n");
	for (long i = 0; i < n; i++)
		put(t, "  work A%ld = noop;\n", i);
	put(t, "}\nP0 @cpu0 {\n");
	for (long i = 0; i < n; i++)
		put(t, "  kthread_queue_work(W, A%ld);\n", i);
	put(t, "  kthread_flush_worker(W);\n  kthread_destroy_worker(W);\n}\n");
}

static void gen_seconds(struct text *t, long s)
{
	put(t, "KW requeue-%lds\n{\n  cpus = 2;\n"
	       "  fn tick { kthread_queue_delayed_work(W, D, 1); }\n"
	       "  worker W = kthread_create_worker(0, \"kw\");\n"
	       "  delayed_work D = tick;\n}\n"
	       "P0 @cpu0 {\n  kthread_queue_delayed_work(W, D, 1);\n  msleep(%ld);\n"
	       "  kthread_cancel_delayed_work_sync(D);\n  kthread_destroy_worker(W);\n}\n", s, s * 1000);
}

static void gen_destroy(struct text *t, long n)
{
	put(t, "KW destroy-%ld\n{\n  cpus = 2; max_tasks = %ld;\n", n, 2 * n + 16);
	for (long i = 0; i < n; i++)
		put(t, "  worker W%ld = kthread_create_worker(0, \"kw%ld\");\n", i, i);
	put(t, "}\nP0 @cpu0 {\n");
	for (long i = 0; i < n; i++)
		put(t, "  kthread_destroy_worker(W%ld);\n", i);
	put(t, "}\n");
}

struct family {
	const char *name, *unit;
	void (*gen)(struct text *t, long size);
	bool explore;		/* explore's runs, else plain runs (kwsim run) */
	long sizes[4];		/* 0 ends the list; --quick leaves out the last */
	long runs;		/* the same at every size: a campaign's fixed part scales alike */
};

static const struct family families[] = {
	{ "works", "work", gen_works, true, { 10, 100, 1000, 10000 }, 5 },
	{ "simulated seconds", "s", gen_seconds, true, { 1, 10, 100 }, 3 },
	{ "destroyed workers", "worker", gen_destroy, false, { 1000, 10000 }, 1 },
};

/* runs of s: explore's campaign (portfolio, seed 1), or plain runs with seeds 1, 2, ... */
static int measure(const struct scn *s, bool explore, long runs)
{
	const struct kw_model *m = kw_model_find(s->kernel);

	if (explore) {
		struct xc_opts o = { .sp = { .kind = XS_PORTFOLIO, .seed = 1, .depth = 3,
					     .preemptions = 2 },
				     .runs = (uint64_t)runs, .nshards = 1 };
		struct xr r = { 0 };
		int rc;

		r.nv = 1;
		r.v = calloc(1, sizeof(*r.v));
		if (!r.v || !(r.v[0].kernel = strdup(m->name)))
			abort();
		rc = xc_run(s, &o, &r, stderr);
		xr_free(&r);
		return rc ? -1 : 0;
	}
	for (long i = 0; i < runs; i++) {
		struct sim_config cfg = s->cfg;
		struct scn_run run = { .config = &cfg };

		cfg.seed = (uint64_t)i + 1;
		if (scn_run(s, m, &run, stderr)) {
			scn_run_free(&run);
			sim_fini();
			return -1;
		}
		scn_run_free(&run);
	}
	sim_fini();
	return 0;
}

/* One family's rows; *missed when its growth is past the target. */
static int family_rows(const struct family *f, bool quick, bool *missed)
{
	double base = 0, worst = 0;

	for (size_t k = 0; k < sizeof(f->sizes) / sizeof(f->sizes[0]) && f->sizes[k]; k++) {
		long runs = f->runs;
		struct text t = { 0 };
		double w0, c0, wall, cpu, per_unit, growth;
		struct scn *s;
		int rc;

		if (quick && (k + 1 == sizeof(f->sizes) / sizeof(f->sizes[0]) || !f->sizes[k + 1]))
			break;
		f->gen(&t, f->sizes[k]);
		s = scn_parse(f->name, t.p, t.len, stderr);
		free(t.p);
		if (!s)
			return -1;
		s->cfg.keep_trace = false;
		w0 = host_seconds(CLOCK_MONOTONIC);
		c0 = host_seconds(CLOCK_PROCESS_CPUTIME_ID);
		rc = measure(s, f->explore, runs);
		cpu = host_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall = host_seconds(CLOCK_MONOTONIC) - w0;
		scn_free(s);
		if (rc)
			return -1;
		per_unit = cpu / (double)f->sizes[k];
		growth = base ? per_unit / base : 1;
		if (growth > worst)
			worst = growth;
		printf("cost, %ld %s: %s%ld runs in %.3f s CPU (%.3f s wall), %.3g runs per CPU s, "
		       "%.2f us CPU per %s, x%.1f the size before's\n", f->sizes[k], f->name,
		       f->explore ? "explore, 17 calibration runs and " : "", runs, cpu, wall,
		       (double)(runs + (f->explore ? 17 : 0)) / cpu, 1e6 * per_unit, f->unit,
		       growth);
		base = per_unit;
	}
	if (worst > TARGET_GROWTH) {
		printf("%s: the cost per %s grows x%.1f in a step of the %s rows (target: "
		       "linear, at most x%.0f)\n", quick ? "note" : "FAIL", f->unit, worst, f->name,
		       TARGET_GROWTH);
		*missed = true;
	}
	return 0;
}

int bench_cost(bool quick, bool *missed)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (family_rows(&families[i], quick, missed))
			return -1;
	return 0;
}
