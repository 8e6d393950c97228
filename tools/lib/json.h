/*
 * JSON strings for every JSON the kwsim command writes (the run's result,
 * the Perfetto trace): valid UTF-8 passes through, what JSON requires is
 * escaped (quotes, backslash, control characters as \uXXXX), and bytes that
 * are not valid UTF-8 become U+FFFD, so that any input makes a document
 * every parser accepts.
 */
#ifndef KWSIM_JSON_H
#define KWSIM_JSON_H

#include <stddef.h>
#include <stdio.h>

/* The escaped contents of len bytes at s, without quotes. */
void json_chars_n(FILE *out, const char *s, size_t len);
/* A quoted string; NULL is "". */
void json_str(FILE *out, const char *s);
/* A value as text: true, false and decimal integers bare, anything else a string. */
void json_value(FILE *out, const char *v);
/*
 * A state as name/value pairs: items "name=value" (split at the last '=')
 * joined by sep, as the state printers list them, each once, in order:
 * [{"name":...,"value":...}]; a value that is a decimal integer is a
 * number, any other a string.
 */
void json_state_pairs(FILE *out, const char *items, const char *sep);

#endif
