/*
 * A campaign: one parsed scenario run many times in process under a
 * strategy, on one or more kernel variants, and what it found, as a value
 * (struct xr) that shards and processes merge exactly: outcome counts,
 * distinct findings with their first run, coverage sets.
 *
 * Run r of a variant is a function of (scenario, variant, strategy and its
 * parameters, seed, r): its replay token names them,
 *
 *   3fa2c1d09e8b7a65:mainline:pct(d=3):7:1234
 *   scenario hash   kernel   strategy  seed run
 *
 * (a portfolio's strategy field is "portfolio(d=D,k=K)/" and the member
 * that made the run). A shard I/N does the runs r with r % N == I.
 */
#ifndef KWSIM_EXPLORE_H
#define KWSIM_EXPLORE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coverage.h"
#include "strategy.h"

struct scn;
struct scn_run;
struct kw_model;

/* One distinct final state of the outcome table. */
struct xr_state {
	char *text;		/* scn_state_text's, raw */
	uint64_t count;
	bool positive;		/* the condition holds in it */
};

/* One distinct finding: xf_key's identity, or XF_CONDITION_KEY. */
struct xr_finding {
	char *key;
	uint64_t first;		/* the run that showed it first */
	unsigned int seq;	/* its place among that run's findings */
	uint64_t count;		/* runs that showed it */
	char *token;		/* the first run's replay token */
	char *what;		/* one line: the first run's report of it */
	char *file;		/* the replay file written for it (a name in DIR), or NULL */
	/*
	 * Its bug depth, from shrinking the first run (tools/explore/shrink.h):
	 * the shrunk schedule's deviations from the faithful order, of them
	 * preemptions; depth_minimal when no schedule with fewer shows it.
	 * depth -1: the shrink failed (shrink_error says why).
	 */
	int depth, preemptions;
	bool depth_minimal;
	/* of the depth, the stalls (CPUs held up), and their durations ("4.1ms, 120us"; "" none) */
	int stalls;
	char *stall_text;
};

struct xr_variant {
	char *kernel;
	size_t est_steps;	/* the calibration run's: pct's n and k */
	unsigned int est_contexts;
	uint64_t runs, cut_short;	/* done; of them stopped by a limit */
	bool exhausted;		/* dfs: the bounded space is searched */
	struct xr_state *states;
	size_t nstates, capstates;
	struct xr_finding *findings;
	size_t nfindings, capfindings;
	struct xset traces, tuples, rf;
};

struct xr {
	uint64_t scn_hash;
	char *name, *path;	/* the scenario's */
	int quant;		/* enum scn_quant */
	char *cond_text;
	struct xs_params sp;	/* kind, seed, depth, preemptions */
	uint64_t runs_asked;	/* 0: no bound but time */
	unsigned int shard, nshards;
	bool stopped;		/* interrupted, or --time, before runs_asked were done */
	bool complete;		/* every run asked was done, or dfs exhausted its space */
	struct xr_variant *v;
	size_t nv;
};

void xr_free(struct xr *r);
/* Put states, findings in their printing order (states by text, findings by run). */
void xr_normalize(struct xr *r);
/*
 * Add b's counts, findings and sets to a (the same campaign's other shard):
 * the first run of a finding is the smaller. Returns 0, or -1 with why in
 * err (another scenario, strategy or seed).
 */
int xr_merge(struct xr *a, const struct xr *b, char *err, size_t len);

/* The summary: outcome tables side by side, findings, coverage, PCT bound. */
void xr_print(FILE *out, const struct xr *r);
/*
 * --json, tools/schema/kwsim-explore.schema.json; its first field,
 * "kwsim_explore", is the document's version: 2 gave states as name/value
 * pairs and renamed the total count of findings finding_count.
 */
#define XR_JSON_VERSION 2
void xr_print_json(FILE *out, const struct xr *r);
/* What the campaign found: 0 nothing, 1 findings, 3 stopped before done (nothing found). */
int xr_status(const struct xr *r);

/* The machine-readable result a shard writes (DIR/result.txt) and merge reads. */
int xr_write(FILE *out, const struct xr *r);
/* Returns 0, or -1 with why in err. */
int xr_read(FILE *in, struct xr *r, char *err, size_t len);


/* --- the engine ---------------------------------------------------------------------------- */

struct xc_opts {
	struct xs_params sp;
	uint64_t runs;			/* runs asked (0: until time or exhaustion) */
	double time_s;			/* wall-time bound, 0: none */
	unsigned int shard, nshards;	/* runs r with r % nshards == shard */
	const char *out_dir;		/* replay files of findings */
	bool stop_on_first;
	volatile sig_atomic_t *stop;	/* set by SIGINT: stop after the current run */
	/* every so often and at the end (may be NULL): for a progress line */
	void (*progress)(void *arg, const struct xr *r, uint64_t runs, bool final);
	void *progress_arg;
	uint64_t raise_sigint_at;	/* tests: raise SIGINT after this many runs (0: never) */
	const char *sets_text;		/* the --set settings, part of the scenario's hash */
};

/* The scenario's part of a token: FNV-1a 64 of its text before the schedule section. */
uint64_t xc_scenario_hash(const struct scn *s, const char *sets_text);


/*
 * Run the campaign on the variants in r->v (their kernel names set, the
 * rest zero) and fill r. Returns 0, or 2 with a message on err.
 */
int xc_run(const struct scn *s, const struct xc_opts *o, struct xr *r, FILE *err);

#endif
