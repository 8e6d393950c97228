/*
 * The strategies' common part and the random strategy. Each run draws from
 * a generator seeded by (campaign seed, run number) alone: run r is the
 * same run whichever runs came before it or in which shard it falls.
 */
#include "strategy.h"
#include "dfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xs {
	struct xs_params p;
	uint64_t rng[4];		/* the current run's generator */
	struct dfs *dfs;		/* dfs's search (dfs.c) */
};

static const char *const kind_names[XS__COUNT] = {
	[XS_RANDOM] = "random", [XS_PCT] = "pct", [XS_POS] = "pos", [XS_DFS] = "dfs",
	[XS_PORTFOLIO] = "portfolio",
};

bool xs_kind_from_name(const char *name, enum xs_kind *kind)
{
	for (int i = 0; i < XS__COUNT; i++) {
		if (!strcmp(kind_names[i], name)) {
			*kind = (enum xs_kind)i;
			return true;
		}
	}
	return false;
}

const char *xs_kind_name(enum xs_kind kind)
{
	return kind < XS__COUNT ? kind_names[kind] : "?";
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256**, as the machine's own random strategy uses */
static uint64_t next(uint64_t *s)
{
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's method). */
static unsigned int below(uint64_t *s, unsigned int n)
{
	uint64_t m = (next(s) >> 32) * n;

	if ((uint32_t)m < n) {
		uint32_t threshold = (uint32_t)-n % n;

		while ((uint32_t)m < threshold)
			m = (next(s) >> 32) * n;
	}
	return (unsigned int)(m >> 32);
}

static void seed_run(struct xs *x, uint64_t r)
{
	uint64_t z = x->p.seed ^ splitmix64(&(uint64_t){ r + 0x6b7773696dULL });

	for (int i = 0; i < 4; i++)
		x->rng[i] = splitmix64(&z);
}

static unsigned int choose_random(void *ctx, const struct sim_question *q)
{
	struct xs *x = ctx;

	return below(x->rng, q->n);
}

struct xs *xs_new(const struct xs_params *p)
{
	struct xs *x;

	if (p->kind != XS_RANDOM && p->kind != XS_DFS)
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		abort();
	x->p = *p;
	if (p->kind == XS_DFS)
		x->dfs = dfs_new(p->preemptions, true);
	return x;
}

void xs_free(struct xs *x)
{
	if (x)
		dfs_free(x->dfs);
	free(x);
}

bool xs_begin(struct xs *x, uint64_t r, struct sim_config *cfg)
{
	if (x->dfs)
		return dfs_begin(x->dfs, r, cfg);
	seed_run(x, r);
	cfg->chooser = choose_random;
	cfg->chooser_ctx = x;
	return true;
}

void xs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	if (x->dfs)
		dfs_end(x->dfs, r, log, n);
	(void)x;
	(void)r;
	(void)log;
	(void)n;
}

const char *xs_run_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	(void)r;
	if (x->dfs)
		snprintf(buf, len, "dfs(k=%u)", dfs_bound(x->dfs));
	else
		snprintf(buf, len, "%s", xs_kind_name(x->p.kind));
	return buf;
}

bool xs_exhausted(const struct xs *x)
{
	return x->dfs && dfs_exhausted(x->dfs);
}

bool xs_independent(enum xs_kind kind)
{
	return kind != XS_DFS;
}
