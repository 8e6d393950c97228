/*
 * The command's one pseudo-random generator: xoshiro256** (Blackman and
 * Vigna), seeded through splitmix64, as the machine's random strategy is.
 * Every random choice the tools make (strategies, the program generator)
 * draws from one of these, so that a run is a function of its seed.
 */
#ifndef KWSIM_RNG_H
#define KWSIM_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seed from one word: the four words of state are splitmix64's next four. */
static inline void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rng_splitmix64(&seed);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, result = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline unsigned int rng_below(struct rng *r, unsigned int n)
{
	uint64_t m = (rng_next(r) >> 32) * n;

	if ((uint32_t)m < n) {
		uint32_t threshold = (uint32_t)-n % n;

		while ((uint32_t)m < threshold)
			m = (rng_next(r) >> 32) * n;
	}
	return (unsigned int)(m >> 32);
}

#endif
