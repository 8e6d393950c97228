/*
 * Choices. Every choice the machine makes comes through sim_choose(): the
 * strategy answers, the answer is logged, and a replay answers from the log
 * instead. A log that does not fit (wrong number of candidates, wrong
 * reason, too short, or a pick the strategy that made it would not make) is
 * a divergence and stops the run, never silently.
 */
#include "machine.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

uint64_t sim_random(void)
{
	uint64_t result = rotl(sim.choose.rng[1] * 5, 7) * 9;
	uint64_t t = sim.choose.rng[1] << 17;

	sim.choose.rng[2] ^= sim.choose.rng[0];
	sim.choose.rng[3] ^= sim.choose.rng[1];
	sim.choose.rng[1] ^= sim.choose.rng[2];
	sim.choose.rng[0] ^= sim.choose.rng[3];
	sim.choose.rng[2] ^= t;
	sim.choose.rng[3] = rotl(sim.choose.rng[3], 45);
	return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's method). */
static unsigned int random_below(unsigned int n)
{
	uint64_t m = (sim_random() >> 32) * n;

	if ((uint32_t)m < n) {
		uint32_t threshold = (uint32_t)-n % n;

		while ((uint32_t)m < threshold)
			m = (sim_random() >> 32) * n;
	}
	return (unsigned int)(m >> 32);
}

void sim_choose_init(void)
{
	uint64_t x = sim.cfg.seed;

	for (int i = 0; i < 4; i++)
		sim.choose.rng[i] = splitmix64(&x);
	/* from the seed, apart from the stream the other choices draw from */
	x = sim.cfg.seed ^ 0x7374616c6cULL;
	sim.choose.stall_odds = sim_stall_odds(splitmix64(&x));
	sim.choose.log_len = 0;
	sim.choose.divergence[0] = '\0';
	sim.choose.where[0] = '\0';
}

void sim_choose_fini(bool keep)
{
	free(sim.choose.replay);
	sim.choose.replay = NULL;
	sim.choose.log_len = sim.choose.replay_len = 0;
	if (keep)
		return;
	free(sim.choose.log_buf);
	sim.choose.log_buf = NULL;
	sim.choose.log_cap = 0;
}

const char *sim_why_name(unsigned int why)
{
	static const char *const names[] = { "cpu", "irq", "place", "wake", "spin", "stall", "range" };

	_Static_assert(sizeof(names) / sizeof(names[0]) == SIM_WHY__COUNT, "a name per kind");
	return why < SIM_WHY__COUNT ? names[why] : "?";
}

/* Where the run was when the log stopped fitting, for the report. */
static void note_where(void)
{
	struct sim_ctx *x = sim.in_event ? NULL : sim.cur;

	snprintf(sim.choose.where, sizeof(sim.choose.where), "at %llu.%09llu s on cpu%d in %s%s%s",
		 (unsigned long long)(sim_now() / 1000000000ULL),
		 (unsigned long long)(sim_now() % 1000000000ULL), sim_this_cpu(),
		 x ? sim_ctx_name(x) : "the machine", x && sim_ctx_note(x)[0] ? ", during " : "",
		 x ? x->note : "");
}

const char *sim_divergence_where(void)
{
	return sim.choose.where[0] ? sim.choose.where : NULL;
}

static unsigned int diverge(const char *fmt, unsigned int a, unsigned int b)
{
	char *msg = sim.choose.divergence;
	size_t len;

	note_where();
	snprintf(msg, sizeof(sim.choose.divergence), "decision %zu: ", sim.choose.log_len);
	len = strlen(msg);
	snprintf(msg + len, sizeof(sim.choose.divergence) - len, fmt, a, b);
	sim_halt(SIM_END_DIVERGED);
	return 0;
}

/* The strategy's own answer; SIM_STRATEGY_REPLAY has none. */
static unsigned int strategy_pick(const struct sim_question *q)
{
	unsigned int pick;

	if (sim.cfg.chooser) {
		pick = sim.cfg.chooser(sim.cfg.chooser_ctx, q);
		/* a strategy's slip is the caller's bug, but never the machine's crash */
		return pick < q->n ? pick : 0;
	}
	if (sim.cfg.strategy != SIM_STRATEGY_RANDOM)
		return 0;
	if (q->why == SIM_WHY_STALL)
		return sim_stall_random(q, sim_random(), sim.choose.stall_odds);
	return random_below(q->n);
}

/* The logged answer, if it fits the question; else the run diverges. */
static bool replay_pick(const struct sim_question *q, unsigned int *pick)
{
	unsigned int n = q->n;
	enum sim_why why = q->why;
	const struct sim_decision *d;
	unsigned int own;

	if (sim.choose.log_len >= sim.choose.replay_len) {
		diverge("the log ends here (%u candidates, %u logged)", n, (unsigned int)sim.choose.replay_len);
		return false;
	}
	d = &sim.choose.replay[sim.choose.log_len];
	if (d->why != why) {
		note_where();
		snprintf(sim.choose.divergence, sizeof(sim.choose.divergence),
			 "decision %zu: the log has a '%s' choice, the run asks a '%s' one",
			 sim.choose.log_len, sim_why_name(d->why), sim_why_name(why));
		sim_halt(SIM_END_DIVERGED);
		return false;
	}
	if (d->n != n) {
		diverge("the log has %u candidates, the run has %u", d->n, n);
		return false;
	}
	if (d->pick >= n) {
		diverge("the log picks candidate %u of %u", d->pick, n);
		return false;
	}
	/* a chooser's log replays on its own: the chooser is not part of the file */
	if (sim.cfg.strategy != SIM_STRATEGY_REPLAY && !sim.cfg.chooser &&
	    (own = strategy_pick(q)) != d->pick) {
		note_where();
		snprintf(sim.choose.divergence, sizeof(sim.choose.divergence),
			 "decision %zu: the log picks candidate %u of %u, but the %s strategy it "
			 "names picks %u", sim.choose.log_len, d->pick, n,
			 sim.cfg.strategy == SIM_STRATEGY_RANDOM ? "random" : "faithful", own);
		sim_halt(SIM_END_DIVERGED);
		return false;
	}
	*pick = d->pick;
	return true;
}

unsigned int sim_choose(unsigned int n, enum sim_why why)
{
	return sim_choose_among(n, why, NULL);
}

unsigned int sim_choose_among(unsigned int n, enum sim_why why, const int *ids)
{
	return sim_choose_at(n, why, ids, NULL);
}

unsigned int sim_choose_at(unsigned int n, enum sim_why why, const int *ids,
			   const struct sim_site *const *sites)
{
	struct sim_question q = {
		.n = n, .why = why, .ids = ids,
		.cpu = sim.cur_cpu ? sim.cur_cpu->id : -1, .sites = sites,
	};

	return sim_ask(&q);
}

unsigned int sim_ask(struct sim_question *q)
{
	unsigned int n = q->n, pick = 0;
	enum sim_why why = q->why;
	struct sim_decision *d;

	q->index = sim.choose.log_len;
	if (n <= 1)
		return 0;
	/*
	 * Its answers make different steps of one CPU: no step to commute as
	 * one. A stall not taken changes nothing; one taken says so itself.
	 */
	if (why != SIM_WHY_CPU && why != SIM_WHY_STALL)
		sim_footprint_global();

	if (sim.cfg.max_decisions && sim.choose.log_len >= sim.cfg.max_decisions) {
		sim_halt(SIM_END_DECISION_LIMIT);
		return 0;
	}
	/* SIM_STRATEGY_REPLAY without a log follows an empty one */
	if (sim.choose.replay || sim.cfg.strategy == SIM_STRATEGY_REPLAY) {
		if (!replay_pick(q, &pick))
			return 0;
	} else {
		pick = strategy_pick(q);
	}
	/* replay_pick and strategy_pick keep a pick among the candidates; the log holds 16 bits */
	assert(pick < n && n <= UINT16_MAX);
	if (sim.cfg.drop_decisions) {	/* a long run's memory stays flat */
		sim.choose.log_len++;
		return pick;
	}
	if (sim.choose.log_len == sim.choose.log_cap)
		sim.choose.log_buf = sim_grow(sim.choose.log_buf, &sim.choose.log_cap, sizeof(*sim.choose.log_buf), 1024);
	/* field by field over zeroes: the padding byte is part of the log's bytes too */
	d = &sim.choose.log_buf[sim.choose.log_len++];
	memset(d, 0, sizeof(*d));
	d->n = (uint16_t)n;
	d->pick = (uint16_t)pick;
	d->why = (uint8_t)why;
	return pick;
}

size_t sim_decision_count(void)
{
	return sim.choose.log_len;
}

const struct sim_decision *sim_decisions(void)
{
	return sim.choose.log_buf;
}

void sim_replay_log(const struct sim_decision *log, size_t n)
{
	free(sim.choose.replay);
	sim.choose.replay = malloc((n ? n : 1) * sizeof(*sim.choose.replay));
	if (!sim.choose.replay)
		abort();
	/* an empty log may come as NULL, which memcpy may not be given even for 0 bytes */
	if (n)
		memcpy(sim.choose.replay, log, n * sizeof(*sim.choose.replay));
	sim.choose.replay_len = n;
}

bool sim_replay_unfinished(void)
{
	if (!sim.choose.replay || sim.choose.log_len >= sim.choose.replay_len || sim.choose.divergence[0])
		return false;
	snprintf(sim.choose.divergence, sizeof(sim.choose.divergence),
		 "the run ended after %zu decisions, the log has %zu", sim.choose.log_len, sim.choose.replay_len);
	return true;
}

const char *sim_divergence(void)
{
	return sim.choose.divergence[0] ? sim.choose.divergence : NULL;
}
