/*
 * Exploration strategies: each answers the machine's choices through the
 * chooser of struct sim_config (sim_chooser_fn), so the machine knows
 * nothing of them. A campaign numbers its runs 0, 1, 2, ...; a strategy
 * prepares run r from (its parameters, its seed, r) alone, so that any run
 * replays from its token and a campaign splits into shards, except dfs,
 * whose run r follows from the runs before it (it learns the tree).
 *
 *   random     uniform at every decision
 *   pct        probabilistic concurrency testing (Burckhardt et al., ASPLOS
 *              2010), bug depth d: CPUs are its threads
 *   pos        partial order sampling (Yuan et al., CAV 2018)
 *   dfs        systematic search bounded by k preemptions, with sleep sets
 *   portfolio  the default: a documented mix of the above
 *   rff        reads-from fuzzing (Wolff et al., ASPLOS 2024): abstract
 *              schedules of a few "this write before that read" orderings,
 *              drawn to favour rare reads-from pairs and mutated when they
 *              show new ones, over pos (rff.c); learns across runs, as dfs
 * The ones that aim with time, through the machine's stalls (a CPU held up
 * at a point, SIM_WHY_STALL; cfg.stall_ns bounds them):
 *   tpct       pct whose change points are stalls: the lowered CPU is held
 *              up until the others have passed it (tpct.c)
 *   delay      delay-bounded search (Emmi, Qadeer, Rakamaric, POPL 2011):
 *              every schedule of the faithful scheduler with at most k
 *              delays, a delay a stall until another CPU or the next event
 *              (delay.c, over dfs.c's tree); learns across runs, as dfs
 *   pair       pair forcing (Razzer, S&P 2019; Snowboard, SOSP 2021):
 *              conflicting accesses of two CPUs seen in one order are
 *              forced into the other by stalling the first one's CPU
 *              (pair.c); learns across runs
 */
#ifndef KWSIM_STRATEGY_H
#define KWSIM_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sim/sim.h>

/*
 * The registry: every strategy, X(KIND, ops), ops its table (struct xs_ops)
 * in its own file. The order is enum xs_kind's, which result.txt files name
 * by number: a new strategy is one line at the end (and its file, in
 * tools/CMakeLists.txt). --strategy, help, the token, serve's lists and the
 * portfolio read it (docs/development.md, "Adding a strategy").
 */
#define XS_REGISTRY(X) \
	X(XS_RANDOM, xs_random_ops) \
	X(XS_PCT, xs_pct_ops) \
	X(XS_POS, xs_pos_ops) \
	X(XS_DFS, xs_dfs_ops) \
	X(XS_PORTFOLIO, xs_portfolio_ops) \
	X(XS_RFF, xs_rff_ops) \
	X(XS_TPCT, xs_tpct_ops) \
	X(XS_DELAY, xs_delay_ops) \
	X(XS_PAIR, xs_pair_ops)

#define XS_KIND_(kind, ops) kind,
enum xs_kind { XS_REGISTRY(XS_KIND_) XS__COUNT };
#undef XS_KIND_

/* What explore, serve and the token take when no strategy is named. */
#define XS_DEFAULT XS_PORTFOLIO

/* pct's deepest bug depth: d-1 change points per run are kept in the handle */
#define XS_MAX_DEPTH 16

struct xs_params {
	enum xs_kind kind;
	uint64_t seed;			/* the campaign's */
	unsigned int depth;		/* pct, tpct: bug depth d, 1 .. XS_MAX_DEPTH */
	unsigned int preemptions;	/* dfs: the bound k; delay: its k, the delays */
	/*
	 * What calibration runs of the scenario showed (the campaign makes
	 * them first, the same in every shard; xs_calibrate()): the most
	 * decisions a run made, and the CPUs in use, pct's n and k.
	 */
	size_t est_steps;
	unsigned int est_contexts;
	/* the faithful run's scheduling points: what bounds each run's steps (xs_begin) */
	uint64_t est_points;
	/* delay: the campaign's shard I of N (0 of 1: all); its runs are numbered within it */
	unsigned int shard, nshards;
};

struct xs;
struct scn;
struct scn_run;
struct kw_model;

/* The parameters a strategy takes (struct xs_ops.params, .named). */
#define XS_DEPTH	1u	/* depth: pct's bug depth d */
#define XS_BOUND	2u	/* preemptions: dfs's bound k, delay's */

/*
 * A strategy: its name and parameters, what the commands say of it, and
 * its operations. One table per strategy file (random.c, pct.c, ...); the
 * registry above lists them. The operations are the strategy's own
 * (strategy_impl.h's struct xs is their handle); everything else reads the
 * fields.
 */
struct xs_ops {
	const char *name;		/* --strategy's, the token's, serve's */
	unsigned int params;		/* XS_DEPTH | XS_BOUND: what the summary names ("depth 3") */
	unsigned int named;		/* of those, what its runs' names carry: "pct(d=3)", "dfs(k=2)" */
	const char *bound;		/* what XS_BOUND counts: "preemptions", "delays" */
	const char *guarantee;		/* a clean campaign's bound (pct.c): "PCT", "Timed PCT"; NULL */
	bool guarantee_json;		/* ... also in --json's "pct_bound" */
	/* runs independent of each other: shards and jobs split them (else run r needs 0 .. r-1) */
	bool independent;
	/* not independent, yet splits into shards by itself (delay: dfs_shard()) */
	bool splits;
	bool aims;			/* aims with stalls (help groups them) */
	/*
	 * Campaign state, for a strategy that learns across runs (x->state):
	 * state_size zeroed bytes, or what init makes (after the handle is
	 * filled in; false: parameters out of range); fini frees what is in it
	 * (the bytes are freed after). Each optional.
	 */
	size_t state_size;
	bool (*init)(struct xs *x);
	void (*fini)(struct xs *x);
	/* run r as its member m (the strategy itself, or a portfolio's member): xs_begin() */
	bool (*begin)(struct xs *x, uint64_t r, const struct xs_params *m, struct sim_config *cfg);
	void (*end)(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n);
	bool (*exhausted)(const struct xs *x);
	/* where run r's name is not the member's (portfolio): its name, and its token's field */
	void (*run_name)(const struct xs *x, uint64_t r, char *buf, size_t len);
	void (*token_name)(const struct xs *x, uint64_t r, char *buf, size_t len);
};

#define XS_OPS_(kind, ops) extern const struct xs_ops ops;
XS_REGISTRY(XS_OPS_)
#undef XS_OPS_

/* The registry's entry for kind; NULL for a kind not built in. */
const struct xs_ops *xs_ops_of(enum xs_kind kind);
/* "random", "pct", ... -> kind; false for a name not known. */
bool xs_kind_from_name(const char *name, enum xs_kind *kind);
const char *xs_kind_name(enum xs_kind kind);
/* The i-th strategy in the registry's order, or with the default first (serve's lists). */
enum xs_kind xs_listed(unsigned int i, bool default_first);
/* The names, in the registry's order, for messages: "random, pct, ... or pair" (sep ", ", last " or "). */
const char *xs_names(char *buf, size_t len, const char *sep, const char *last);
/*
 * Help's and usage's lists, wrapped at width (the cursor at column col,
 * continuation lines indented to indent): "random|pct|...|pair" (sep "|"),
 * or help's "random, pct, ... portfolio (the default), ..., pair (these
 * three aim with stalls)" (sep ", ", the ones that aim last), then end.
 */
void xs_print_names(FILE *f, const char *sep, bool notes, const char *end,
		    int col, int indent, int width);
/*
 * Help's words for a parameter (XS_DEPTH or XS_BOUND), from the strategies
 * whose runs' names carry it: "pct's and tpct's bug depth", "dfs's
 * preemption bound, delay's delay bound" (each bound singular).
 */
const char *xs_param_help(unsigned int param, char *buf, size_t len);
/*
 * A strategy with its parameters as runs name it, without a handle:
 * "pct(d=3)", "delay(k=1)", "random" (kwsim fuzz's rotation, bench).
 */
const char *xs_params_name(const struct xs_params *p, char *buf, size_t len);
/*
 * The token's STRATEGY field back to parameters: "pct(d=3)",
 * "delay(k=1,s=2/4)", "portfolio(d=3,k=2)/pct(d=1)" (the member's, after
 * '/', do not count); depth 3 and preemptions 2 where it names none.
 * false for a strategy not known or a bad shard.
 */
bool xs_parse_name(const char *text, struct xs_params *p);

/*
 * Fill p's estimates from calibration runs of s on m: the faithful run and
 * 16 random runs of fixed seeds (run is the caller's, reusable; its result
 * is the last of them). Returns 0, or -1 with a message on err when the
 * faithful run fails (a random one may stop on the scenario's own error).
 */
int xs_calibrate(struct xs_params *p, const struct scn *s, const struct kw_model *m,
		 struct scn_run *run, FILE *err);

/* NULL for parameters out of range (pct's depth) or a kind not built in. */
struct xs *xs_new(const struct xs_params *p);
void xs_free(struct xs *x);

/*
 * Prepare run r: set cfg->chooser and cfg->chooser_ctx (the rest of cfg is
 * the caller's). Returns false when there is no run r: the strategy has
 * exhausted its space (dfs) and the campaign is complete.
 */
bool xs_begin(struct xs *x, uint64_t r, struct sim_config *cfg);
/* After run r: the decisions it made (dfs learns the tree from them). */
void xs_end(struct xs *x, uint64_t r, const struct sim_decision *log, size_t n);

/*
 * What made run r, for the replay token and reports: "pct(d=3)",
 * "dfs(k=2)", and for portfolio the member that made run r.
 */
const char *xs_run_name(const struct xs *x, uint64_t r, char *buf, size_t len);
/* The token's STRATEGY field for run r: its name, and a portfolio's own parameters ("portfolio(d=3,k=2)/pct(d=1)"). */
const char *xs_token_name(const struct xs *x, uint64_t r, char *buf, size_t len);
/* dfs, delay: true once the bounded space has been searched in full. */
bool xs_exhausted(const struct xs *x);
/*
 * Whether runs are independent of each other (everything but dfs, rff,
 * delay and pair): shardable into jobs. delay, as dfs, splits otherwise:
 * xs_shardable().
 */
bool xs_independent(enum xs_kind kind);
/* Whether --shard may split a campaign: independent runs, or a strategy that splits itself. */
bool xs_shardable(enum xs_kind kind);

/*
 * rff's feedback, for a caller that keeps coverage of its own (kwsim fuzz):
 * the reads-from pairs of the campaign so far, in the order first seen,
 * each with its hash (sim_rf_hash), its sites' hashes (sim_site_hash) and
 * how many runs showed it; and the distinct pairs the last run showed (from
 * its xs_begin() on, also during it), with how many of them no run of the
 * campaign had shown before. Other strategies have none: NULL, 0. The
 * arrays are the strategy's, good until its next xs_begin() or xs_free().
 * A caller's own cfg.on_rf, set before xs_begin(), is called too.
 */
struct xs_rf_pair {
	uint64_t hash;
	uint64_t writer, reader;
	uint64_t runs;
};
const struct xs_rf_pair *xs_rf_pairs(const struct xs *x, size_t *n);
const uint64_t *xs_rf_run_pairs(const struct xs *x, size_t *n, size_t *nnew);
/*
 * rff: the abstract schedule of the run under way (from its xs_begin() on):
 * its orderings, "the access at the site hashed first before the one at
 * then"; how many (0: the run is plain pos).
 */
#define XS_RF_MAX_ORDERS 3
struct xs_rf_order {
	uint64_t first, then;
};
unsigned int xs_rf_schedule(const struct xs *x, struct xs_rf_order out[XS_RF_MAX_ORDERS]);
/*
 * rff: the next run (its xs_begin()) follows these orderings (at most
 * XS_RF_MAX_ORDERS; none: plain pos) instead of drawing its own, as a
 * fuzzer that keeps abstract schedules of its own asks; the run's pos
 * priorities still come from the seed and run number. Its pairs are counted
 * and a schedule that showed new ones joins rff's corpus, as any run's.
 */
void xs_rf_use(struct xs *x, const struct xs_rf_order *o, unsigned int n);
unsigned int xs_rf_orders(const struct xs *x);

/*
 * What a clean pct campaign says (pct.c): with n steps, k CPUs and depth d,
 * each run shows a given depth-d bug with probability at least
 * p = 1/(k n^(d-1)); a campaign of that many runs that showed none rules
 * such a bug out with confidence 1 - (1-p)^runs.
 */
double xs_pct_bound(size_t n, unsigned int k, unsigned int d, uint64_t runs);

#endif
