/*
 * The kwsim command: one binary, one subcommand per job. A usage error is
 * always exit 2 with a message on stderr, so scripts can tell it apart
 * from a run that found something (1). So is output that could not be
 * written: standard output is checked once, after the command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "cmd/cmd_explore.h"
#include "cmd/cmd_fuzz.h"
#include "cmd/cmd_run.h"
#include "cmd/cmd_shrink.h"
#include "explore/strategy.h"
#include "html/html.h"
#include "serve/serve.h"
#include "serve/srv.h"

#include <model.h>

#ifndef KWSIM_VERSION
#error "KWSIM_VERSION comes from the project version in CMakeLists.txt"
#endif

struct command {
	const char *name;
	const char *args;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "run", "FILE [options]", "run a scenario once; see 'Commands' in README.md", kwsim_run },
	{ "replay", "FILE [options]", "replay a scenario's recorded schedule exactly", kwsim_replay },
	{ "explore", "FILE [options]", "search a scenario's interleavings for races; see below",
	  kwsim_explore },
	{ "merge", "DIR... [options]",
	  "merge explore's or fuzz's shards (their --out DIRs)",
	  kwsim_merge },
	{ "fuzz", "--kernel V [options]", "generate programs and search them for races; see below",
	  kwsim_fuzz },
	{ "shrink", "FILE [options]", "make a replay file smaller, keeping what it shows", kwsim_shrink },
	{ "export", "FILE --html|--module OUT", "a run's timeline page, or the scenario as a kernel module",
	  kwsim_export },
	{ "serve", "[--port P] [options]", "the library in a browser: read, run, play, edit; see below",
	  kwsim_serve },
	{ "bench", "[--quick|--long|--races DIR]", "measure the machine's speed and memory; the strategies on DIR", kwsim_bench },
	{ "help", "", "show this help", cmd_help },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	const struct srv_limits lim = SRV_LIMITS_DEFAULT;
	char params[128];

	fprintf(f, "kwsim %s: a deterministic simulator of the Linux kernel's kthread_worker\n\n",
		KWSIM_VERSION);
	fprintf(f, "usage: kwsim <command> [options]\n       kwsim --version\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", commands[i].name, commands[i].args);
		fprintf(f, "  %-22s %s\n", head, commands[i].summary);
	}
	fprintf(f, "\nrun and replay options:\n"
		"  --seed N                 seed of the random strategy, which it implies (run;\n"
		"                           with --strategy faithful it is a usage error)\n"
		"  --kernel v4.9|mainline   model variant (run; default: the scenario's, else mainline)\n"
		"                           or tree:LABEL, a kernel tree's own code (listed below)\n"
		"  --strategy faithful|random  how choices are made (run)\n"
		"  --set NAME=VALUE         any setting of the init block, over the file's (run; e.g.\n"
		"                           cpus=4, preempt=full, hz=1000, time_limit=2s, cost.lock=20ns)\n"
		"  --trace text|json        print the trace: ftrace text or Perfetto JSON\n"
		"  -o FILE                  write the trace to FILE instead of stdout\n"
		"  --trace-filter SPEC      what the trace shows: KEY=LIST clauses joined by ';'\n"
		"                           (events=NAME|SYSTEM|SYS:NAME globs, !NAME excludes;\n"
		"                           cpus=0,2-3; tasks=COMM|PID; from=TIME; to=TIME), e.g.\n"
		"                           'events=sched_kthread_work_*,timer_*;cpus=1;from=2ms'\n"
		"  --trace-limit SIZE       stop the trace at SIZE bytes (e.g. 10M; none; default\n"
		"                           64M); the run goes on, the trace says it was cut\n"
		"  --json                   print the result as JSON\n"
		"  --save-schedule FILE     write the scenario with every setting of this run and its\n"
		"                           decisions (run); replay runs that file exactly\n"
		"  --timeline               draw the run in the terminal after the summary: lanes per\n"
		"                           CPU (context, works, timers, findings), docs/commands.md \"Timeline\"\n"
		"  --width N                the timeline's width (default: the terminal's, else 100)\n"
		"  --from T1, --to T2       only [T1, T2) of the timeline (times as 5ms, 100us, 0)\n"
		"  --around-finding         only the first finding's neighbourhood (else the first\n"
		"                           overlap of a call on one CPU and activity on another)\n"
		"  --lanes cpus|tasks|both  lanes per CPU (default), per task, or both\n");
	fputs("\nexplore options (docs/explore.md \"kwsim explore\"):\n"
	      "  --strategy NAME          ", f);
	xs_print_names(f, ", ", true, "\n", 27, 27, 79);
	/* --depth's line (and --preemptions' below) names the strategies that take it */
	fprintf(f, "  --runs N                 runs per kernel (default 10000)\n"
		"  --time S                 stop after S s of wall time (alone: no run bound)\n"
		"  --seed S                 the campaign's seed (default 0)\n"
		"  --depth D                %s (default 3)\n",
		xs_param_help(XS_DEPTH, params, sizeof(params)));
	fprintf(f, "  --preemptions K          %s (default 2)\n",
		xs_param_help(XS_BOUND, params, sizeof(params)));
	fprintf(f, "  --kernel V[,V...]|all    the variants, outcome tables side by side\n"
		"  --jobs J                 J processes on this machine\n"
		"  --shard I/N              only runs r with r %% N == I (merge the shards' --out);\n"
		"                           delay: the schedules whose first delay is shard I's\n"
		"  --out DIR                a replay file per finding, and DIR/result.txt\n"
		"  --stop-on-first          stop at the first finding\n"
		"  --json                   the summary as one JSON object\n"
		"  --set NAME=VALUE         a setting, as for run\n"
		"  --token TOKEN            print the run a finding's replay token names, as run\n"
		"                           would (--save-schedule FILE: as a replay file)\n");
	fprintf(f, "\nfuzz options (docs/fuzz.md \"kwsim fuzz\"; no scenario: it writes its own programs):\n"
		"  --kernel V               the variant to fuzz (required)\n"
		"  --runs N                 programs to make (default 1000)\n"
		"  --time S                 stop after S s of wall time (alone: no program bound)\n"
		"  --seed S                 the campaign's seed (default 0)\n"
		"  --schedules K            schedules explored per program (default 8; programs\n"
		"                           with rare coverage get up to 4x)\n"
		"  --misuse                 lift the API's contract; misuse findings apart\n"
		"  --out DIR                a shrunk replay file per distinct finding\n"
		"  --corpus DIR             load the corpus from DIR, save it back: a campaign goes on\n"
		"  --jobs J                 J processes, each its own stream of programs\n"
		"  --shard I/N              streams I + N j of N J (J: --jobs), result in --out DIR\n"
		"                           (needed); kwsim merge of the N shards is --jobs N J\n"
		"  --json                   the summary as one JSON object\n"
		"  --max-steps N            a run's step limit (default 200000)\n"
		"  --corpus-max N           the corpus's bound (default 256 programs)\n"
		"  --save-every N           save --corpus every N programs (default 100; 0: at\n"
		"                           the end only); a damaged entry is skipped, said\n"
		"  --cross-runs N           runs of each finding on each other variant (default\n"
		"                           1000; 0: no cross-variant report)\n"
		"  --shrink-runs N          runs shrinking a finding's program (default 300)\n"
		"  --cpus N                 at most N CPUs in a program (default 4)\n");
	fprintf(f, "\nmerge options (DIR: each shard's --out; explore's or fuzz's, not both):\n"
		"  --json                   the summary as one JSON object\n"
		"  --out DIR                fuzz: the findings' files, numbered as one campaign's\n"
		"  --corpus DIR             fuzz: the streams' corpora merged, saved to DIR\n");
	fprintf(f, "\nshrink options (FILE: a replay file, as --save-schedule writes):\n"
		"  --out OUT                write the shrunk replay file to OUT (default: stdout,\n"
		"                           the summary then to stderr)\n"
		"  --budget RUNS            at most RUNS runs (default 2000)\n"
		"  --finding KEY|N          what to keep: the Nth finding, a finding's key, or\n"
		"                           condition (default: the first finding, else the\n"
		"                           condition's witness)\n"
		"  --json                   print the summary (bug depth, measures) as JSON\n");
	fprintf(f, "\nexport options (FILE: a scenario, or a replay file, which replays):\n"
		"  --html OUT               write the timeline page to OUT (one file, no network)\n"
		"  --max-events N           the page keeps the run's first N events (default %d)\n"
		"  --seed, --kernel, --strategy, --set  as for run (not for a replay file)\n"
		"  --module DIR             write the scenario as a Linux kernel module (C source,\n"
		"                           Kbuild, Makefile) that runs it N times on a real kernel\n"
		"                           and prints its outcome table (tools/kmod/README.md)\n"
		"  --steer SCHEDULE         (with --module) enforce the orderings of SCHEDULE's run\n"
		"                           (a replay file of FILE) between the scenario's statements\n",
		HTML_MAX_RECORDS);
	fprintf(f, "\nserve options (docs/browser.md \"kwsim serve\"):\n"
		"  --port P                 listen on port P (default 8080; 0: any free port, the\n"
		"                           address is the first line on standard output)\n"
		"  --bind ADDR              listen on ADDR (default 127.0.0.1: this machine only)\n"
		"  --root DIR               serve DIR's .kws files too, as root/NAME.kws\n"
		"  each run or exploration runs in a child process, within (time, memory: 0 none):\n"
		"  --time-limit S           wall time (default %llu)\n"
		"  --cpu-limit S            CPU time, RLIMIT_CPU (default %llu)\n"
		"  --mem-limit MB           address space, RLIMIT_AS (default %llu)\n"
		"  --output-limit MB        the result's bytes (default %llu)\n"
		"  --max-sims N             children at once; more wait their turn (default %llu)\n",
		(unsigned long long)lim.wall_s, (unsigned long long)lim.cpu_s,
		(unsigned long long)lim.mem_mb, (unsigned long long)lim.out_mb,
		(unsigned long long)lim.max_sims);
	/* the real kernel code this build compiled in (KWSIM_KERNEL_TREES) */
	fprintf(f, "\nkernel trees built in (--kernel tree:LABEL, or tree:DIR):%s\n",
		kw_tree_count() ? "" : " none");
	for (size_t i = 0; i < kw_tree_count(); i++)
		fprintf(f, "  %-24s %s\n", kw_tree_get(i)->name, kw_tree_get(i)->tree);
	fprintf(f, "\nexit codes: 0 expectations hold (bench: targets met; shrink: the file is\n"
		"              written), 1 they do not,\n"
		"            2 bad input or usage, a schedule that no longer fits, or output\n"
		"              that could not be written,\n"
		"            3 the run was cut short by a limit (time_limit, max_steps,\n"
		"              max_decisions): its verdict covers a partial run\n"
		"explore:    0 nothing found, 1 findings, 2 bad input or usage, 3 stopped\n"
		"              (SIGINT, --time) before the runs asked were done, nothing found,\n"
		"            4 --jobs: a job died; the summary covers the others' runs\n"
		"            merge: as explore, 3 also when shards (fuzz: streams) are missing\n"
		"fuzz:       as explore (3: SIGINT before the programs asked were done)\n");
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "kwsim: help takes no arguments (try 'kwsim help')\n");
		return 2;
	}
	usage(stdout);
	return 0;
}

/* Output that did not reach standard output is an error, as in any command's own files. */
static int finish_stdout(int rc)
{
	int failed = ferror(stdout), saved = errno;

	if (!fflush(stdout)) {
		if (!failed)
			return rc;
		errno = saved;	/* the error of the write that failed, as best known */
	}
	fprintf(stderr, "kwsim: error writing standard output%s%s\n", errno ? ": " : "",
		errno ? strerror(errno) : "");
	return 2;
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	name = argv[1];
	if (!strcmp(name, "--version")) {
		if (argc > 2) {
			fprintf(stderr, "kwsim: --version takes no arguments (try 'kwsim help')\n");
			return 2;
		}
		printf("kwsim %s\n", KWSIM_VERSION);
		return finish_stdout(0);
	}
	/* The conventional spellings of help, so nobody gets an error for asking. */
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return finish_stdout(commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "kwsim: unknown command '%s' (try 'kwsim help')\n", argv[1]);
	return 2;
}
