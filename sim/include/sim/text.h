/*
 * Text appended to a bounded buffer without printf, where printf's cost
 * showed in explored runs: buf holds a string of *n bytes, and each append
 * cuts as snprintf cuts at len (len >= 1: buf stays a string).
 */
#ifndef SIM_TEXT_H
#define SIM_TEXT_H

#include <stddef.h>

/* s appended at buf + *n */
static inline void sim_put_str(char *buf, size_t len, size_t *n, const char *s)
{
	for (; *s && *n + 1 < len; s++)
		buf[(*n)++] = *s;
	buf[*n] = '\0';
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
