/*
 * The strategies' common part: the registry (strategy.h's XS_REGISTRY),
 * what every campaign does around a strategy's operations (the step bound,
 * the per-run generator), and the names, parsed and printed. Each strategy
 * is one file with its table: random.c, pct.c, pos.c, dfs.c, portfolio.c,
 * rff.c, tpct.c, delay.c, pair.c. Each run draws from a generator seeded by
 * (campaign seed, run number) alone: run r is the same run whichever runs
 * came before it or in which shard it falls.
 */
#include "strategy_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scenario/scn.h>

#define XS_ENTRY_(kind, ops) [kind] = &ops,
static const struct xs_ops *const registry[XS__COUNT] = { XS_REGISTRY(XS_ENTRY_) };
#undef XS_ENTRY_

const struct xs_ops *xs_ops_of(enum xs_kind kind)
{
	return (unsigned int)kind < XS__COUNT ? registry[kind] : NULL;
}

bool xs_kind_from_name(const char *name, enum xs_kind *kind)
{
	for (int i = 0; i < XS__COUNT; i++) {
		if (!strcmp(registry[i]->name, name)) {
			*kind = (enum xs_kind)i;
			return true;
		}
	}
	return false;
}

const char *xs_kind_name(enum xs_kind kind)
{
	return xs_ops_of(kind) ? registry[kind]->name : "?";
}

enum xs_kind xs_listed(unsigned int i, bool default_first)
{
	if (!default_first)
		return (enum xs_kind)i;
	if (!i)
		return XS_DEFAULT;
	return (enum xs_kind)(i <= XS_DEFAULT ? i - 1 : i);
}

const char *xs_names(char *buf, size_t len, const char *sep, const char *last)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < XS__COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", !i ? "" : i + 1 < XS__COUNT ? sep : last,
				       registry[i]->name);
	return buf;
}

/* Prints text from column col wrapped at width: a break at a space (dropped) or after '|'. */
static void wrap(FILE *f, const char *text, int col, int indent, int width)
{
	while (*text) {
		int space = *text == ' ';
		size_t n = strcspn(text + space, " |");
		size_t word = n + (text[space + n] == '|');

		if (col > indent && col + space + (int)word > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (space) {
			fputc(' ', f);
			col++;
		}
		fwrite(text + space, 1, word, f);
		col += (int)word;
		text += space + word;
	}
}

const char *xs_param_help(unsigned int param, char *buf, size_t len)
{
	unsigned int n = 0, total = 0, i;
	size_t at = 0;

	buf[0] = '\0';
	for (i = 0; i < XS__COUNT; i++)
		total += !!(registry[i]->named & param);
	for (i = 0; i < XS__COUNT && at < len; i++) {
		const struct xs_ops *o = registry[i];

		if (!(o->named & param))
			continue;
		n++;
		if (param == XS_DEPTH)	/* one parameter, one meaning: "pct's and tpct's bug depth" */
			at += (size_t)snprintf(buf + at, len - at, "%s%s's%s",
					       n == 1 ? "" : n == total ? " and " : ", ", o->name,
					       n == total ? " bug depth" : "");
		else			/* what each bound counts, in the singular: "dfs's preemption bound" */
			at += (size_t)snprintf(buf + at, len - at, "%s%s's %.*s bound", n == 1 ? "" : ", ",
					       o->name, (int)strlen(o->bound) - 1, o->bound);
	}
	return buf;
}

void xs_print_names(FILE *f, const char *sep, bool notes, const char *end,
		    int col, int indent, int width)
{
	static const char *const count[] = { "two", "three", "four", "five", "six", "seven", "eight" };
	char text[512];
	size_t at = 0;
	unsigned int naims = 0, n = 0;

	/* help: the ones that aim last, said once */
	for (int pass = 0; pass < (notes ? 2 : 1); pass++) {
		for (unsigned int i = 0; i < XS__COUNT; i++) {
			if (notes && registry[i]->aims != (pass == 1))
				continue;
			naims += notes && registry[i]->aims;
			at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s%s", n++ ? sep : "",
					       registry[i]->name,
					       notes && i == XS_DEFAULT ? " (the default)" : "");
		}
	}
	if (naims == 1)
		snprintf(text + at, sizeof(text) - at, " (it aims with stalls)");
	else if (naims)
		snprintf(text + at, sizeof(text) - at, " (these %s aim with stalls)",
			 naims - 2 < sizeof(count) / sizeof(count[0]) ? count[naims - 2] : "all");
	wrap(f, text, col, indent, width);
	fputs(end, f);
}

static void seed_run(struct xs *x, uint64_t r)
{
	rng_seed(&x->rng, x->p.seed ^ rng_splitmix64(&(uint64_t){ r + 0x6b7773696dULL }));
	/* apart from the generator: with stalls off, the runs are what they were */
	x->stall_odds = sim_stall_odds(rng_splitmix64(&(uint64_t){ x->p.seed ^ r ^ 0x7374616c6cULL }));
}

struct xs *xs_new(const struct xs_params *p)
{
	const struct xs_ops *ops = xs_ops_of(p->kind);
	struct xs *x;

	if (!ops)
		return NULL;
	/* a depth its runs take (pct, tpct; not the portfolio's, which names its members') */
	if ((ops->named & XS_DEPTH) && (p->depth < 1 || p->depth > XS_MAX_DEPTH))
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		abort();
	x->p = *p;
	x->ops = ops;
	if (ops->state_size && !(x->state = calloc(1, ops->state_size)))
		abort();
	if (ops->init && !ops->init(x)) {
		xs_free(x);
		return NULL;
	}
	return x;
}

void xs_free(struct xs *x)
{
	if (x && x->ops->fini)
		x->ops->fini(x);
	if (x && x->ops->state_size)
		free(x->state);
	free(x);
}

/*
 * A run of a campaign may loop where the faithful run ends: a stall lets a
 * work be queued before the scenario reinitialises it, and the worker runs
 * it forever, as the kernel would. The scenario's own bound (max_steps,
 * 100M points by default) would make that a quarter of a minute per run,
 * so a campaign's runs (and its calibration's random ones) stop at
 * XS_STEP_FACTOR times the faithful run's points, at least XS_MIN_STEPS,
 * and count as cut short. The bound is in the run's settings: its saved
 * schedule and its token replay it.
 */
#define XS_STEP_FACTOR	100
#define XS_MIN_STEPS	100000

static void bound_steps(uint64_t faithful_points, struct sim_config *cfg)
{
	uint64_t b = faithful_points > XS_MIN_STEPS / XS_STEP_FACTOR ?
		     faithful_points * XS_STEP_FACTOR : XS_MIN_STEPS;

	if (!cfg->max_steps || cfg->max_steps > b)
		cfg->max_steps = b;
}

bool xs_begin(struct xs *x, uint64_t r, struct sim_config *cfg)
{
	if (x->p.est_points)
		bound_steps(x->p.est_points, cfg);
	seed_run(x, r);
	return x->ops->begin(x, r, &x->p, cfg);
}

void xs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n)
{
	if (x->ops->end)
		x->ops->end(x, r, log, n);
}

const char *xs_params_name(const struct xs_params *p, char *buf, size_t len)
{
	const struct xs_ops *ops = xs_ops_of(p->kind);
	int at = snprintf(buf, len, "%s", xs_kind_name(p->kind));

	if (!ops || !ops->named || at < 0 || (size_t)at >= len)
		return buf;
	if (ops->named & XS_DEPTH)
		at += snprintf(buf + at, len - (size_t)at, "(d=%u", p->depth);
	if ((ops->named & XS_BOUND) && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, "%sk=%u",
			       ops->named & XS_DEPTH ? "," : "(", p->preemptions);
	if ((ops->named & XS_BOUND) && p->nshards > 1 && (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ",s=%u/%u", p->shard, p->nshards);
	if ((size_t)at < len)
		snprintf(buf + at, len - (size_t)at, ")");
	return buf;
}

const char *xs_run_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	if (x->ops->run_name)
		x->ops->run_name(x, r, buf, len);
	else
		xs_params_name(&x->p, buf, len);
	return buf;
}

const char *xs_token_name(const struct xs *x, uint64_t r, char *buf, size_t len)
{
	if (x->ops->token_name)
		x->ops->token_name(x, r, buf, len);
	else
		xs_run_name(x, r, buf, len);
	return buf;
}

bool xs_parse_name(const char *text, struct xs_params *p)
{
	const char *slash = strchr(text, '/'), *d = strstr(text, "d="), *k = strstr(text, "k=");
	size_t bl = strcspn(text, "(/");
	char base[32];

	if (bl >= sizeof(base))
		return false;
	memcpy(base, text, bl);
	base[bl] = '\0';
	if (!xs_kind_from_name(base, &p->kind))
		return false;
	/* the parameters the strategy field names; the member's, after '/', do not count */
	p->depth = 3;
	p->preemptions = 2;
	if (d && (!slash || d < slash))
		p->depth = (unsigned int)strtoul(d + 2, NULL, 10);
	if (k && (!slash || k < slash))
		p->preemptions = (unsigned int)strtoul(k + 2, NULL, 10);
	/* a shard of a strategy that splits itself: "delay(k=1,s=2/4)" */
	if ((k = strstr(text, "s=")) && registry[p->kind]->splits) {
		char *end;

		p->shard = (unsigned int)strtoul(k + 2, &end, 10);
		p->nshards = *end == '/' ? (unsigned int)strtoul(end + 1, NULL, 10) : 0;
		if (!p->nshards || p->shard >= p->nshards)
			return false;
	}
	return true;
}

bool xs_exhausted(const struct xs *x)
{
	return x->ops->exhausted && x->ops->exhausted(x);
}

bool xs_independent(enum xs_kind kind)
{
	return xs_ops_of(kind) && registry[kind]->independent;
}

bool xs_shardable(enum xs_kind kind)
{
	return xs_ops_of(kind) && (registry[kind]->independent || registry[kind]->splits);
}

/* Candidate i's wait, for a SIM_WHY_STALL question: a CPU number, or SIM_STALL_EVENT / _FIXED. */
static int until_of(const struct sim_question *q, unsigned int i)
{
	return q->until ? q->until[i] : SIM_STALL_FIXED;
}

unsigned int xs_stall_until(const struct sim_question *q, int cpu)
{
	if (q->why != SIM_WHY_STALL)
		return 0;
	for (unsigned int i = 1; i < q->n; i++)
		if (until_of(q, i) == cpu && cpu != q->cpu)
			return i;
	return 0;
}

unsigned int xs_stall_past_all(const struct sim_question *q)
{
	unsigned int best = 0, event = 0;

	if (q->why != SIM_WHY_STALL)
		return 0;
	/* the candidates ascend in duration: the last that waits for a CPU waits for them all */
	for (unsigned int i = 1; i < q->n; i++) {
		if (until_of(q, i) >= 0 && until_of(q, i) != q->cpu)
			best = i;
		else if (until_of(q, i) == SIM_STALL_EVENT && !event)
			event = i;
	}
	return best ? best : event;
}

unsigned int xs_stall_event(const struct sim_question *q)
{
	if (q->why != SIM_WHY_STALL)
		return 0;
	for (unsigned int i = 1; i < q->n; i++)
		if (until_of(q, i) == SIM_STALL_EVENT)
			return i;
	return 0;
}

unsigned int xs_stall_yield(const struct sim_question *q, uint64_t skew,
			    bool (*outranks)(struct xs *x, int cpu, uint64_t mine),
			    struct xs *x, uint64_t mine)
{
	unsigned int best = 0;

	if (q->why != SIM_WHY_STALL || !q->durations || skew == SIM_SKEW_UNBOUNDED)
		return 0;
	/* the candidates ascend in duration: the last that fits waits for all that outrank */
	for (unsigned int i = 1; i < q->n; i++) {
		int k = until_of(q, i);

		if (k >= 0 && k != q->cpu && k < SIM_MAX_CPUS && q->durations[i] > skew &&
		    outranks(x, k, mine))
			best = i;
	}
	return best;
}

/*
 * pct's n must bound the steps of its runs (pct.c). A faithful run can be
 * far shorter in decisions than the runs that reorder it (a CPU that runs
 * ahead meets the other at every step where the faithful order kept them
 * apart), so the estimate is the most decisions of the faithful run and of
 * XS_CALIBRATION_RUNS random runs with fixed seeds: a function of the
 * scenario and kernel alone, the same in every shard of a campaign. Only
 * the faithful run must work: a random one that stops on an error of the
 * scenario's (a statement the order made impossible) counts the decisions
 * it made, and the campaign will meet that error in its own runs.
 */
#define XS_CALIBRATION_RUNS 16

int xs_calibrate(struct xs_params *p, const struct scn *s, const struct kw_model *m,
		 struct scn_run *run, FILE *err)
{
	struct sim_config cfg = s->cfg;
	FILE *quiet = fopen("/dev/null", "w");
	size_t most = 0;

	cfg.chooser = NULL;
	cfg.on_point = NULL;
	run->config = &cfg;
	for (unsigned int i = 0; i <= XS_CALIBRATION_RUNS; i++) {
		cfg.strategy = i ? SIM_STRATEGY_RANDOM : SIM_STRATEGY_FAITHFUL;
		cfg.seed = i;
		if (scn_run(s, m, run, i && quiet ? quiet : err) && !i) {
			if (quiet)
				fclose(quiet);
			run->config = NULL;
			return -1;
		}
		if (run->ndecisions > most)
			most = run->ndecisions;
		if (!i) {
			struct sim_stats st;

			sim_get_stats(&st);
			p->est_points = st.points;
			bound_steps(p->est_points, &cfg);
		}
	}
	if (quiet)
		fclose(quiet);
	run->config = NULL;
	p->est_steps = most;
	p->est_contexts = (unsigned int)cfg.ncpus;
	return 0;
}
