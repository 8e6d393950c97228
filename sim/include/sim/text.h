/*
 * Text appended to a bounded buffer without printf, where printf's cost
 * showed in explored runs: buf holds a string of *n bytes, and each append
 * cuts as snprintf cuts at len (len >= 1: buf stays a string).
 */
#ifndef SIM_TEXT_H
#define SIM_TEXT_H

#include <stddef.h>
#include <string.h>

/*
 * s appended at buf + *n. strlen and memcpy, not a loop through *n, which
 * cost 8 instructions a byte; s is read whole, as snprintf reads it.
 */
static inline void sim_put_str(char *buf, size_t len, size_t *n, const char *s)
{
	size_t k = *n, l = strlen(s), room = k + 1 < len ? len - k - 1 : 0;

	if (l > room)
		l = room;
	memcpy(buf + k, s, l);
	buf[k + l] = '\0';
	*n = k + l;
}

/* u appended in decimal, of at least width digits (zeroes in front) */
static inline void sim_put_dec(char *buf, size_t len, size_t *n, unsigned long long u, int width)
{
	char d[24];
	int k = 0;

	do
		d[k++] = (char)('0' + u % 10);
	while ((u /= 10) || k < width);
	while (k && *n + 1 < len)
		buf[(*n)++] = d[--k];
	buf[*n] = '\0';
}

#endif
