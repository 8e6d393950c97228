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

/* A decimal count: digits only, no sign or space, within uint64_t. */
bool cmd_parse_u64(const char *v, uint64_t *out);

/* A host clock in seconds: CLOCK_MONOTONIC for wall time, CLOCK_PROCESS_CPUTIME_ID for CPU. */
double host_seconds(clockid_t clock);

#endif
