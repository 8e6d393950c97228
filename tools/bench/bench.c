/*
 * `kwsim bench`: five figures that say whether the machine is fast and
 * small enough for exploration (millions of runs) to be practical, then
 * the exploration strategies on the race library (bench_explore.c); with
 * --long, the memory of one long run, which must not grow with its length.
 *
 * Only tools/ may read the wall clock; the machine itself never does, so
 * nothing measured here can leak into a simulated run.
 */
#include "lib/util.h"
#include "bench/bench.h"

#include <stdbool.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/resource.h>

#include "cmd/cmd_run.h"
#include "scenario/scn.h"

#include <model.h>
#include <sim/coro.h>
#include <sim/sim.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

/* Targets, from the project's requirements. */
#define TARGET_DECISIONS_PER_S	10e6
#define TARGET_DECISIONS_TEXT	"10M"
#define TARGET_TASK_BYTES	(100.0 * 1024)
#define TARGET_TASK_TEXT	"100 KiB"

/*
 * The sanitizers slow the machine several times over and fatten every
 * stack, so an ASan build shows the targets but is not held to them.
 */
#if defined(KWSIM_ASAN) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED true
#else
#define SANITIZED false
#endif

struct sizes {
	long switches;		/* coroutine round trips */
	long lock_rounds;	/* spin_lock/spin_unlock pairs per CPU */
	long events;
	long tasks;
	long runs;		/* in-process runs of a race, on a reset machine */
	long fini_runs;		/* ... and set up from scratch each time, to compare */
};

/* Each figure takes well under a second in a -O2 build on a 2-core host. */
static const struct sizes full_sizes = {
	.switches = 10000000, .lock_rounds = 2000000, .events = 1000000, .tasks = 10000,
	.runs = 20000, .fini_runs = 4000,
};
static const struct sizes quick_sizes = {
	.switches = 500000, .lock_rounds = 100000, .events = 50000, .tasks = 1000,
	.runs = 500, .fini_runs = 100,
};

/* 25300000 -> "25.3M": rates span k to G and only three digits matter. */
static const char *human(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMG";
	int i = 0;

	while (v >= 1000.0 && i < 3) {
		v /= 1000.0;
		i++;
	}
	if (i)
		snprintf(buf, len, "%.1f%c", v, suffix[i]);
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

static int machine_init(struct sim_config *cfg)
{
	if (sim_init(cfg)) {
		fprintf(stderr, "kwsim bench: sim_init: %s\n", sim_error());
		return -1;
	}
	return 0;
}

/* A benchmark run must end cleanly, or its figure measures a broken machine. */
static int check_end(const char *what, enum sim_end end)
{
	if (end == SIM_END_QUIESCENT && !sim_finding_count())
		return 0;
	fprintf(stderr, "kwsim bench: %s: the run ended '%s' with %zu finding(s)\n",
		what, sim_end_name(end), sim_finding_count());
	for (size_t i = 0; i < sim_finding_count() && i < 3; i++)
		fprintf(stderr, "  %s: %s\n", sim_finding_kind_name(sim_finding(i)->kind),
			sim_finding(i)->msg);
	return -1;
}

/* --- (a) raw coroutine switches ---------------------------------------------- */

static struct coro co_host, co_a, co_b;
static long co_left;

static void co_ping(void *arg)
{
	while (co_left-- > 0)
		coro_switch(&co_a, &co_b, 0);
	coro_switch(&co_a, &co_host, 1);
}

static void co_pong(void *arg)
{
	for (;;)
		coro_switch(&co_b, &co_a, 0);
}

static int bench_switches(const struct sizes *sz, double *rate)
{
	double t0, t1;

	coro_init_host(&co_host);
	if (coro_alloc(&co_a, 64 * 1024) || coro_alloc(&co_b, 64 * 1024)) {
		fprintf(stderr, "kwsim bench: cannot map coroutine stacks\n");
		return -1;
	}
	coro_prepare(&co_a, co_ping, NULL);
	coro_prepare(&co_b, co_pong, NULL);
	co_left = sz->switches;
	t0 = host_seconds(CLOCK_MONOTONIC);
	coro_switch(&co_host, &co_a, 0);
	t1 = host_seconds(CLOCK_MONOTONIC);
	coro_free(&co_a);
	coro_free(&co_b);
	/* each round trip is two switches; entering and leaving add two more */
	*rate = (2.0 * (double)sz->switches + 2.0) / (t1 - t0);
	return 0;
}

/* --- (b) scheduling decisions: two CPUs ping-pong a spinlock ------------------ */

static DEFINE_SPINLOCK(bench_lock);

static int lock_loop(void *arg)
{
	long n = *(const long *)arg;

	for (long i = 0; i < n; i++) {
		spin_lock(&bench_lock);
		spin_unlock(&bench_lock);
	}
	return 0;
}

static int bench_decisions(const struct sizes *sz, double *rate, size_t *decisions)
{
	struct sim_config cfg;
	enum sim_end end;
	double t0, t1;
	long n = sz->lock_rounds;

	sim_config_default(&cfg);
	cfg.ncpus = 2;
	if (machine_init(&cfg))
		return -1;
	sim_spawn("ping", lock_loop, &n, 0, true, 0);
	sim_spawn("pong", lock_loop, &n, 1, true, 0);
	t0 = host_seconds(CLOCK_MONOTONIC);
	end = sim_run();
	t1 = host_seconds(CLOCK_MONOTONIC);
	*decisions = sim_decision_count();
	if (check_end("spinlock ping-pong", end) || !*decisions) {
		if (!*decisions)
			fprintf(stderr, "kwsim bench: spinlock ping-pong made no decisions\n");
		sim_fini();
		return -1;
	}
	sim_fini();
	*rate = (double)*decisions / (t1 - t0);
	return 0;
}

/* --- (c) events through the queue ----------------------------------------------- */

static uint64_t ev_fired;

static void ev_fn(void *arg)
{
	ev_fired++;
}

static int bench_events(const struct sizes *sz, double *rate)
{
	struct sim_config cfg;
	struct sim_stats st;
	enum sim_end end;
	uint64_t x = 12345;	/* a fixed LCG: the same times every run */
	double t0, t1;

	sim_config_default(&cfg);
	cfg.ncpus = 1;
	cfg.time_limit_ns = 0;
	if (machine_init(&cfg))
		return -1;
	ev_fired = 0;
	t0 = host_seconds(CLOCK_MONOTONIC);
	for (long i = 0; i < sz->events; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		sim_event_at(x >> 24, ev_fn, NULL);	/* up to ~11 virtual days */
	}
	end = sim_run();
	t1 = host_seconds(CLOCK_MONOTONIC);
	sim_get_stats(&st);
	if (check_end("event queue", end) || ev_fired != (uint64_t)sz->events) {
		if (ev_fired != (uint64_t)sz->events)
			fprintf(stderr, "kwsim bench: %llu of %ld events fired\n",
				(unsigned long long)ev_fired, sz->events);
		sim_fini();
		return -1;
	}
	sim_fini();
	*rate = (double)st.events / (t1 - t0);
	return 0;
}

/* --- (d) memory per idle task ---------------------------------------------------- */

static int idle_task(void *arg)
{
	set_current_state(TASK_INTERRUPTIBLE);
	schedule();
	return 0;
}

static long rss_bytes(void)
{
	long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static int bench_memory(const struct sizes *sz, double *per_task, long *total)
{
	struct sim_config cfg;
	enum sim_end end;
	long before, after;

	sim_config_default(&cfg);
	cfg.ncpus = 2;
	if (machine_init(&cfg))
		return -1;
	before = rss_bytes();
	for (long i = 0; i < sz->tasks; i++)
		sim_spawn("idle", idle_task, NULL, (int)(i % 2), false, 0);
	end = sim_run();
	after = rss_bytes();
	if (check_end("idle tasks", end) || before < 0 || after < 0) {
		if (before < 0 || after < 0)
			fprintf(stderr, "kwsim bench: cannot read /proc/self/statm\n");
		sim_fini();
		return -1;
	}
	sim_fini();
	*total = after > before ? after - before : 0;
	*per_task = (double)*total / (double)sz->tasks;
	return 0;
}

/* --- (e) in-process runs ---------------------------------------------------------------- */

/*
 * scenarios/races/delayed-timer-vs-reinit.kws, parsed once and run under the
 * random strategy with seeds 1, 2, ... on mainline, as an exploration does:
 * on one machine reset between runs, and, to compare, with the machine torn
 * down and set up again each time (how runs were looped before sim_reset()).
 */
static const char race_scenario[] =
	"KW delayed-timer-vs-reinit\n"
	"{\n"
	"  cpus = 2; hz = 250; debug_objects = off;\n"
	"  fn noop { }\n"
	"  worker W = kthread_create_worker(0, \"kw\");\n"
	"  delayed_work D = noop;\n"
	"}\n"
	"P0 @cpu0 {\n"
	"  r0 = kthread_queue_delayed_work(W, D, 2);\n"
	"  udelay(100);\n"
	"  kthread_init_delayed_work(D, noop);\n"
	"  msleep(20);\n"
	"  kthread_destroy_worker(W);\n"
	"}\n"
	"exists (0:r0 == true /\\ warn(\"kthread_delayed_work_timer_fn\") /\\ "
	"~warn(\"debug_print_object\") /\\ ran(noop) == 0)\n";

struct runs_rate {
	double runs_s;		/* runs per wall second */
	double sys_share;	/* system time over user + system time */
	long held;		/* runs whose condition held (the race showed) */
};

static double cpu_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static int loop_runs(const struct scn *s, const struct kw_model *m, long runs, bool reset,
		     struct runs_rate *out)
{
	struct rusage r0, r1;
	double t0, t1, user, sys;

	out->held = 0;
	getrusage(RUSAGE_SELF, &r0);
	t0 = host_seconds(CLOCK_MONOTONIC);
	for (long i = 0; i < runs; i++) {
		struct sim_config cfg = s->cfg;
		struct scn_run run = { .config = &cfg };

		cfg.seed = (uint64_t)i + 1;	/* the parse stays as it was read */
		if (scn_run(s, m, &run, stderr)) {
			scn_run_free(&run);
			sim_fini();
			return -1;
		}
		out->held += run.cond_holds;
		scn_run_free(&run);
		if (!reset)
			sim_fini();
	}
	t1 = host_seconds(CLOCK_MONOTONIC);
	getrusage(RUSAGE_SELF, &r1);
	sim_fini();
	user = cpu_s(&r1.ru_utime) - cpu_s(&r0.ru_utime);
	sys = cpu_s(&r1.ru_stime) - cpu_s(&r0.ru_stime);
	out->runs_s = (double)runs / (t1 - t0);
	out->sys_share = user + sys > 0 ? sys / (user + sys) : 0;
	return 0;
}

static int bench_runs(const struct sizes *sz, struct runs_rate *reset, struct runs_rate *fresh)
{
	struct scn *s = scn_parse("delayed-timer-vs-reinit.kws", race_scenario,
				  sizeof(race_scenario) - 1, stderr);
	const struct kw_model *m = kw_model_find("mainline");
	int rc;

	if (!s || !m) {
		fprintf(stderr, "kwsim bench: cannot set up the in-process runs\n");
		scn_free(s);
		return -1;
	}
	s->cfg.strategy = SIM_STRATEGY_RANDOM;
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = true;
	rc = loop_runs(s, m, sz->runs, true, reset) || loop_runs(s, m, sz->fini_runs, false, fresh);
	scn_free(s);
	if (!rc && !reset->held) {
		fprintf(stderr, "kwsim bench: no run of %ld showed the race\n", sz->runs);
		rc = -1;
	}
	return rc ? -1 : 0;
}

/* --- a long run ----------------------------------------------------------------------- */

/*
 * A delayed work that queues itself again one jiffy on, at HZ=1000, for a
 * given number of simulated minutes: `kwsim run` of it, through the same
 * streaming output (what ran, to /dev/null). Memory must stay flat.
 */
static const char long_scenario[] =
	"KW per-jiffy-work\n"
	"{\n"
	"  hz = 1000; time_limit = %us; max_steps = 0;\n"
	"  fn tick { kthread_queue_delayed_work(W, D, 1); }\n"
	"  worker W = kthread_create_worker(0, \"kw\");\n"
	"  delayed_work D = tick;\n"
	"}\n"
	"P0 @cpu0 { kthread_queue_delayed_work(W, D, 1); }\n";

static int bench_long(unsigned int minutes, const char *trace)
{
	char text[sizeof(long_scenario) + 16];
	struct run_stats st;
	struct rusage ru;
	struct scn *s;
	FILE *null;
	int len, rc;

	len = snprintf(text, sizeof(text), long_scenario, minutes * 60);
	s = scn_parse("per-jiffy-work.kws", text, (size_t)len, stderr);
	null = fopen("/dev/null", "w");
	if (!s || !null) {
		fprintf(stderr, "kwsim bench: cannot set up the long run\n");
		if (null)
			fclose(null);
		scn_free(s);
		return -1;
	}
	rc = kwsim_run_scenario(s, trace, null, &st);
	fclose(null);
	/* the run stops at its time limit: cut short, exit 3 */
	if (rc != 3 || getrusage(RUSAGE_SELF, &ru)) {
		fprintf(stderr, "kwsim bench: the long run failed (exit %d)\n", rc);
		return -1;
	}
	printf("long run, %u min simulated%s%s: peak RSS %.1f MiB (%zu records, %zu lines of "
	       "what ran; at most %zu held at once)\n", minutes, trace ? ", trace " : "",
	       trace ? trace : "", (double)ru.ru_maxrss / 1024.0, st.records, st.lines,
	       st.peak_held);
	return 0;
}

/* --- the command --------------------------------------------------------------------- */

static void bench_usage(FILE *f)
{
	char names[256];

	fprintf(f, "usage: kwsim bench [--quick | --long[=MINUTES] [--trace text|json] | --races DIR]\n"
		   "                   [--bound N] [--seeds N] [--strategy NAME[,NAME...]] [--stall T]\n"
		   "       kwsim bench --cost [--quick]\n"
		   "  --quick    smaller sizes, a few tenths of a second; targets are shown, not enforced\n"
		   "  --cost     the cost-growth rows only: runs per CPU second as works (10 to 10,000),\n"
		   "             simulated seconds (1 to 100) and destroyed workers grow\n"
		   "  --races    the exploration figures only, over DIR's scenarios instead of the race\n"
		   "             library (e.g. kwsim fuzz --out's findings); targets not enforced\n"
		   "  --bound    with --races: runs per first-finding campaign (default 10000)\n"
		   "  --seeds    with --races: campaigns per strategy and race, seeds 1 to N (default 20)\n"
		   "  --stall    with --races: every run's stall bound (a CPU held up at most T; 0: no\n"
		   "             stalls; default: the scenario's setting, else explore's 10ms)\n"
		   "  --strategy with --races: only these of %s\n",
		bench_explore_strategies(names, sizeof(names)));
	fprintf(f,
		   "  --long     peak RSS of a per-jiffy work run for 1, 10 and 60 simulated minutes\n"
		   "             (=MINUTES: that long only), with the trace view streamed too if given\n");
}

/* A positive number of at most max, or 0. */
static unsigned long count_arg(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	v = strtoul(s, &end, 10);
	return *end || v > max ? 0 : v;
}

/*
 * --bound N, --seeds N, --strategy LIST at argv[*i]: 1 taken (*i moved past
 * its value), 0 not one of them, 2 a usage error (said).
 */
static int explore_option(int argc, char **argv, int *i, struct bench_explore_opts *eo)
{
	const char *opt = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	char names[256];

	if (!strcmp(opt, "--bound")) {
		if (!(eo->bound = (long)count_arg(val, 100000000))) {
			fprintf(stderr, "kwsim bench: --bound wants runs, 1 to 100000000\n");
			return 2;
		}
	} else if (!strcmp(opt, "--seeds")) {
		if (!(eo->seeds = (unsigned int)count_arg(val, 1000))) {
			fprintf(stderr, "kwsim bench: --seeds wants a count, 1 to 1000\n");
			return 2;
		}
	} else if (!strcmp(opt, "--stall")) {
		static const struct { const char *unit; uint64_t ns; } units[] = {
			{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		};
		char *end = NULL;
		unsigned long long v = val && *val >= '0' && *val <= '9' ? strtoull(val, &end, 10) : 0;
		size_t u = 0;

		while (end && *end && u < sizeof(units) / sizeof(units[0]) && strcmp(end, units[u].unit))
			u++;
		/* a time with its unit, or 0 alone: no stalls */
		if (!end || (*end ? !v || u == sizeof(units) / sizeof(units[0]) ||
				    v > UINT64_MAX / units[u].ns : v != 0)) {
			fprintf(stderr, "kwsim bench: --stall wants a time such as 10ms, or 0\n");
			return 2;
		}
		eo->stall_ns = *end ? v * units[u].ns : 0;
		eo->stall_given = true;
	} else if (!strcmp(opt, "--strategy")) {
		char *list = val ? strdup(val) : NULL, *save = NULL;

		for (char *t = list ? strtok_r(list, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save)) {
			int k = bench_explore_strategy(t);

			if (k < 0) {
				fprintf(stderr, "kwsim bench: --strategy: '%s' is none of %s\n", t,
					bench_explore_strategies(names, sizeof(names)));
				free(list);
				return 2;
			}
			eo->strategies |= (uint64_t)1 << k;
		}
		free(list);
		if (!eo->strategies) {
			fprintf(stderr, "kwsim bench: --strategy wants names, of %s\n",
				bench_explore_strategies(names, sizeof(names)));
			return 2;
		}
	} else {
		return 0;
	}
	(*i)++;
	return 1;
}

/* What bench was asked: the default measures, --cost, --races DIR or --long. */
struct bench_opts {
	const struct sizes *sz;
	bool quick, sized, cost_only;
	unsigned int minutes[3], nminutes;
	const char *trace, *races;
	struct bench_explore_opts eo;
};

/* The options: 0, 2 for a usage error (said), -1 for --help (answered). */
static int parse_bench_opts(int argc, char **argv, struct bench_opts *o)
{
	*o = (struct bench_opts){ .sz = &full_sizes, .minutes = { 1, 10, 60 } };
	for (int i = 1; i < argc; i++) {
		int rc = explore_option(argc, argv, &i, &o->eo);

		if (rc == 2)
			return 2;
		if (rc) {
			o->sized = true;
		} else if (!strcmp(argv[i], "--long")) {
			o->nminutes = 3;
		} else if (!strncmp(argv[i], "--long=", 7)) {
			char *end;
			unsigned long m = strtoul(argv[i] + 7, &end, 10);

			if (*end || !m || m > 1000000 || argv[i][7] == '-') {
				fprintf(stderr, "kwsim bench: --long= wants minutes, 1 to 1000000\n");
				return 2;
			}
			o->minutes[0] = (unsigned int)m;
			o->nminutes = 1;
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "text") || !strcmp(argv[i + 1], "json"))) {
			o->trace = argv[++i];
		} else if (!strcmp(argv[i], "--races")) {
			DIR *d = i + 1 < argc ? opendir(argv[i + 1]) : NULL;

			if (!d) {
				fprintf(stderr, "kwsim bench: --races wants a directory of scenarios%s%s%s\n",
					i + 1 < argc ? " (" : "", i + 1 < argc ? argv[i + 1] : "",
					i + 1 < argc ? ": cannot read it)" : "");
				return 2;
			}
			closedir(d);
			o->races = argv[++i];
		} else if (!strcmp(argv[i], "--cost")) {
			o->cost_only = true;
		} else if (!strcmp(argv[i], "--quick")) {
			o->quick = true;
			o->sz = &quick_sizes;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			bench_usage(stdout);
			return -1;
		} else {
			fprintf(stderr, "kwsim: unknown option '%s' for bench (try 'kwsim help')\n",
				argv[i]);
			return 2;
		}
	}
	return 0;
}

/* The default: the machine's rates and memory, the race library explored, the cost rows. */
static int bench_all(const struct bench_opts *o)
{
	const struct sizes *sz = o->sz;
	bool quick = o->quick, missed = false, enforce;
	double sw_rate, dec_rate, ev_rate, per_task;
	struct runs_rate reset, fresh;
	struct bench_explore *explore;
	size_t decisions;
	long total;
	char b1[32], b2[32];

	/*
	 * Memory first: the later benchmarks free memory the allocator keeps
	 * resident, and tasks built from it would look free of charge.
	 */
	if (bench_memory(sz, &per_task, &total))
		return 1;
	if (bench_switches(sz, &sw_rate) || bench_decisions(sz, &dec_rate, &decisions) ||
	    bench_events(sz, &ev_rate) || bench_runs(sz, &reset, &fresh))
		return 1;
	explore = bench_explore_measure(KWSIM_SCENARIOS "/races", &o->eo);
	if (!explore)
		return 1;

	enforce = !quick && !SANITIZED;
	/* CMake leaves the type empty when none was chosen: no -O, no -g */
	printf("kwsim %s bench (%s build%s)\n", KWSIM_VERSION,
	       KWSIM_BUILD_TYPE[0] ? KWSIM_BUILD_TYPE : "unoptimised",
	       quick ? "; --quick: targets not enforced" :
	       SANITIZED ? "; targets not enforced under sanitizers" : "");
	printf("coroutine switches/s: %s (%ld round trips between two coroutines)\n",
	       human(sw_rate, b1, sizeof(b1)), sz->switches);
	printf("scheduling decisions/s: %s (target >= " TARGET_DECISIONS_TEXT
	       "; 2 CPUs ping-pong a spinlock, %s decisions)", human(dec_rate, b1, sizeof(b1)),
	       human((double)decisions, b2, sizeof(b2)));
	/* beside the cheapest decision, the realistic one */
	if (bench_explore_decisions(explore) > 0)
		printf("; exploring the race library with random: %s",
		       human(bench_explore_decisions(explore), b1, sizeof(b1)));
	printf("\n");
	printf("events/s: %s (%ld events at pseudo-random times, queued and fired)\n",
	       human(ev_rate, b1, sizeof(b1)), sz->events);
	printf("memory per idle task: %.1f KiB (target < " TARGET_TASK_TEXT
	       "; %ld tasks, %.1f MiB total)\n",
	       per_task / 1024.0, sz->tasks, (double)total / (1024.0 * 1024.0));
	printf("in-process runs/s: %s (%ld random runs of races/delayed-timer-vs-reinit on mainline, "
	       "the race in %ld; %.0f%% system time; set up anew each run: %s, %.0f%% system time)\n",
	       human(reset.runs_s, b1, sizeof(b1)), sz->runs, reset.held, 100.0 * reset.sys_share,
	       human(fresh.runs_s, b2, sizeof(b2)), 100.0 * fresh.sys_share);

	bench_explore_print(explore, enforce, &missed);
	if (bench_cost(!enforce, &missed))
		return 1;

	if (dec_rate < TARGET_DECISIONS_PER_S) {
		printf("%s: scheduling decisions/s is below its target\n", enforce ? "FAIL" : "note");
		missed = true;
	}
	if (per_task >= TARGET_TASK_BYTES) {
		printf("%s: memory per idle task is above its target\n", enforce ? "FAIL" : "note");
		missed = true;
	}
	return missed && enforce ? 1 : 0;
}

int kwsim_bench(int argc, char **argv)
{
	struct bench_opts o;
	struct bench_explore *explore;
	bool missed = false;
	int rc = parse_bench_opts(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.trace && !o.nminutes) {
		fprintf(stderr, "kwsim bench: --trace goes with --long\n");
		return 2;
	}
	o.eo.quick = o.quick;
	if (o.sized && !o.races) {
		fprintf(stderr, "kwsim bench: --bound, --seeds, --stall and --strategy go with --races\n");
		return 2;
	}
	if (o.cost_only) {
		if (o.races || o.nminutes) {
			fprintf(stderr, "kwsim bench: --cost goes alone (or with --quick)\n");
			return 2;
		}
		if (bench_cost(o.quick, &missed))
			return 1;
		return missed && !o.quick && !SANITIZED ? 1 : 0;
	}
	if (o.races) {
		if (o.nminutes) {
			fprintf(stderr, "kwsim bench: --races and --long measure different things: "
				"one at a time\n");
			return 2;
		}
		if (!(explore = bench_explore_measure(o.races, &o.eo)))
			return 1;
		bench_explore_print(explore, false, NULL);
		return 0;
	}
	if (o.nminutes) {
		/* shortest first: the process's peak RSS only grows */
		for (unsigned int i = 0; i < o.nminutes; i++)
			if (bench_long(o.minutes[i], o.trace))
				return 1;
		return 0;
	}
	return bench_all(&o);
}
