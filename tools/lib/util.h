#ifndef KWSIM_UTIL_H
#define KWSIM_UTIL_H

/*
 * The small things every command shares, written once: a usage error
 * ("kwsim CMD: what (try 'kwsim help')" on stderr, exit status 2), the
 * reading of a count, the host's clocks (for --time, rates and
 * benchmarks: never in a run, whose time is the machine's), and text
 * written to memory.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Prints the error for command cmd ("run", "explore", ...) and returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether option a is one of names (NULL-terminated): the options that take a value. */
bool cmd_takes_value(const char *a, const char *const names[]);

/*
 * An argument none of cmd's options took: --help or -h prints "usage: kwsim
 * USAGE" and where the options are explained, and returns -1 (answered); an
 * unknown option is a usage error (2); anything else is the one file the
 * command reads, stored in *file (0): a second one is a usage error, which
 * names the file by what ("scenario", "replay"). A command that reads no
 * file passes file NULL and says in what why it takes none; one that
 * answers --help itself (its usage has generated parts) passes usage NULL.
 */
int cmd_other_arg(const char *cmd, const char *a, const char **file, const char *what,
		  const char *usage);

/* A decimal count: digits only, no sign or space, within uint64_t. */
bool cmd_parse_u64(const char *v, uint64_t *out);

/*
 * A campaign's start (explore, fuzz): cmd_catch_sigint() makes SIGINT set
 * cmd_stop, so that the campaign stops after its current run (the job
 * pool's parent forwards it: its .on_sigint is cmd_on_sigint), the old
 * action kept in *old for the caller to put back. cmd_campaign_hooks()
 * hands the campaign that flag (*stop) and the tests' SIGINT after N runs
 * or programs (*raise_at: the count in environment variable env, when set,
 * so that a test does not race the campaign's speed), and returns whether
 * to draw a progress line: only on a terminal.
 */
extern volatile sig_atomic_t cmd_stop;
void cmd_on_sigint(int sig);
void cmd_catch_sigint(struct sigaction *old);
bool cmd_campaign_hooks(const char *env, volatile sig_atomic_t **stop, uint64_t *raise_at);

/*
 * A campaign's progress line, on a terminal (explore, fuzz), started at t0:
 * whether to print one now (at most every 0.2 s), with the seconds since t0
 * in *elapsed; the final call clears the line and says no.
 */
struct cmd_progress {
	double t0, last;
};
bool cmd_progress_due(struct cmd_progress *p, bool final, double *elapsed);

/*
 * An option loop's start: the slots for its --set values (at most one an
 * argument; aborts when out of memory), and argument i's value, argv[i + 1]
 * or NULL at the end.
 */
void *cmd_set_slots(int argc, size_t size);
const char *cmd_value(int argc, char **argv, int i);
/*
 * The same for an option loop that lists its valued options (valued,
 * NULL-terminated, as cmd_takes_value reads it): *v = cmd_value(); returns 2,
 * the usage error "option X needs a value" printed, when argv[i] is one of
 * them and nothing follows it, else 0.
 */
int cmd_option_value(const char *cmd, int argc, char **argv, int i, const char *const valued[],
		     const char **v);

/* --time's seconds: a positive finite number, nothing after it. */
bool cmd_parse_seconds(const char *v, double *out);

/* A host clock in seconds: CLOCK_MONOTONIC for wall time, CLOCK_PROCESS_CPUTIME_ID for CPU. */
double host_seconds(clockid_t clock);

/*
 * open_memstream() with *buf and *len set to NULL and 0 first, aborting
 * when out of memory: what is written is in *buf (malloc'd, NUL-ended, the
 * caller frees it) and its length in *len after fflush() or fclose().
 */
FILE *memstream_open(char **buf, size_t *len);

#endif
