/*
 * FNV-1a, the one byte hash of kwsim: trace hashes, coverage, finding
 * identities, names. Bytes only, never addresses, so a hash is the same in
 * every build and on every host (the determinism contract).
 */
#ifndef SIM_FNV_H
#define SIM_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SIM_FNV_OFFSET 0xcbf29ce484222325ULL
#define SIM_FNV_PRIME 0x100000001b3ULL

/* h folded with len bytes of data (h = SIM_FNV_OFFSET to start) */
static inline uint64_t sim_fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * SIM_FNV_PRIME;
	return h;
}

/* h folded with a string's bytes, without its terminating NUL */
static inline uint64_t sim_fnv_str(uint64_t h, const char *s)
{
	return s ? sim_fnv(h, s, strlen(s)) : h;
}

#endif
