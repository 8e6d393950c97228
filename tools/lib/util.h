#ifndef KWSIM_UTIL_H
#define KWSIM_UTIL_H

/*
 * The small things every command shares, written once: a usage error
 * ("kwsim CMD: what (try 'kwsim help')" on stderr, exit status 2), the
 * reading of a count, and the host's clocks (for --time, rates and
 * benchmarks: never in a run, whose time is the machine's).
 */
#include <stdbool.h>
#include <stdint.h>
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

/* A host clock in seconds: CLOCK_MONOTONIC for wall time, CLOCK_PROCESS_CPUTIME_ID for CPU. */
double host_seconds(clockid_t clock);

#endif
