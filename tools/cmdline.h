#ifndef KWSIM_CMDLINE_H
#define KWSIM_CMDLINE_H

/*
 * What every command's option parser shares: one shape for a usage error
 * ("kwsim CMD: what (try 'kwsim help')" on stderr, exit status 2) and one
 * reading of a count.
 */
#include <stdbool.h>
#include <stdint.h>

/* Prints the error for command cmd ("run", "explore", ...) and returns 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A decimal count: digits only, no sign or space, within uint64_t. */
bool cmd_parse_u64(const char *v, uint64_t *out);

#endif
