/*
 * kwsim fuzz's campaign: programs generated and mutated (tools/prog/),
 * each printed as a scenario, parsed and explored with a small budget of
 * schedules, kept in a corpus when they reach coverage nothing reached
 * before, and every distinct finding shrunk, written out and tried on the
 * other kernel variants. A library: tools/cmd/cmd_fuzz.c is the command,
 * tests/tools/test_fuzz_campaign.c its tests. (The libFuzzer harnesses
 * beside it in tools/fuzz/ are another thing: fuzz_scenario.c,
 * fuzz_schedule.c.)
 *
 * Program i of a campaign (0, 1, 2, ...) is made from a generator of its
 * own, seeded from (seed, job, i), and from the corpus as the programs
 * before it left it: a campaign bounded by programs is a function of
 * (kernel, seed, options, programs), never of the clock.
 *
 * Per program: a faithful run, then `schedules` runs (more for programs
 * that reach rare coverage: the energy below), the strategy of run j a
 * rotation of rff (every other run: reads-from fuzzing, its abstract
 * schedules drawn toward rare reads-from pairs), pct(d=2), pos, random and
 * pct(d=3), each seeded from the program's seed, each with a step limit.
 *
 * Coverage: features, 64-bit hashes, each counted by the runs that
 * reached it: the work-state tuples of tools/explore/coverage.h (with
 * the sampler's context names), the reads-from pairs between contexts
 * (sim_config.on_rf: writer and reader site and context kind, by
 * sim_rf_hash), and the identities of findings (below). A program that reaches a feature not reached before enters the
 * corpus with the features it reached first (at most FZ_ENTRY_FEATS).
 * Energy, as RFF's power schedule: an entry's weight is the sum over its
 * features of 1/hits, so entries holding rare features are picked more
 * often and get up to 4x the schedules. The corpus is bounded
 * (corpus_max): a new entry evicts the one of least weight, so memory stays
 * flat over hours (no per-run values such as trace hashes are features,
 * and their count is bounded: FZ_MAX_FEATURES).
 *
 * A finding's identity (fz_identity): its kind, where the kernel code
 * raised it (function:line), the kind of context it was raised in
 * (thread, worker, hardirq, softirq) and, for an invariant, the clause with
 * the objects' names stripped of their numbers - never the program's
 * lines or names. A program that breaks the contract (kp_contract() != 0,
 * only possible with --misuse) makes misuse findings, reported apart with
 * the rules it breaks; the others are implementation findings.
 */
#ifndef KWSIM_FUZZ_CAMPAIGN_H
#define KWSIM_FUZZ_CAMPAIGN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "prog/prog.h"

struct sim_finding;

#define FZ_ENTRY_FEATS	32	/* features an entry keeps for its energy */
#define FZ_SCHEDULES	8	/* the default schedules per program */
#define FZ_MAX_STEPS	200000	/* the default step limit of a run */
#define FZ_CORPUS_MAX	256	/* the default bound on the corpus */
#define FZ_SHRINK_RUNS	300	/* runs shrinking a program may make */
#define FZ_CROSS_RUNS	1000	/* runs on each other variant */
#define FZ_SAVE_EVERY	100	/* --corpus DIR saved every this many programs */
/*
 * Features counted at most: the reads-from pairs name scenario sites, whose
 * lines differ from program to program, so their number grows with the
 * campaign; past this many (about 24 MB of counts) a feature not seen
 * before is no longer new.
 */
#define FZ_MAX_FEATURES	(1u << 20)

struct fz_entry {
	struct kp p;
	uint64_t key;		/* fz_prog_key(&p) */
	uint64_t feats[FZ_ENTRY_FEATS];
	unsigned int nfeats;
	uint64_t added;		/* the program that added it */
	uint64_t picked;	/* times it was mutated */
};

struct fz_corpus {
	struct fz_entry *e;
	size_t n, cap;
};
void fz_corpus_free(struct fz_corpus *c);
/* A program's name: FNV-1a 64 of its kp_save() text (equal programs, equal keys). */
uint64_t fz_prog_key(const struct kp *p);

/* Another variant the shrunk scenario was explored on. */
struct fz_cross {
	char *kernel;
	uint64_t runs;		/* runs made: to the first that showed it, or the budget */
	bool shown;
	bool error;		/* the scenario does not run there (an API it lacks) */
};

struct fz_finding {
	char *id;		/* fz_identity's */
	char *what;		/* one line: the kind, where, the message's first line */
	bool misuse;
	uint64_t rules;		/* misuse: kp_contract()'s bits */
	uint64_t program;	/* the program that showed it first (0-based) */
	uint64_t schedules;	/* runs made in the campaign up to and with it */
	uint64_t count;		/* runs that showed it */
	size_t stmts_before, stmts_after;	/* the program's size, before and after shrinking */
	int depth;		/* the written schedule's deviations (xshrink), -1 unknown */
	bool schedule_shrunk;	/* the written file is xshrink's */
	char *file;		/* its name in --out DIR, or NULL */
	char *text;		/* the scenario written (with its schedule) */
	struct fz_cross *cross;
	size_t ncross;
};

struct fz_stats {
	uint64_t programs, runs, generated, mutated, spliced;
	uint64_t rejected;	/* texts that did not parse, runs that failed: a generator's fault */
	uint64_t cut_short;	/* runs stopped by the step limit */
	size_t corpus, features;	/* entries; features reached */
	size_t tuples, rf_pairs;	/* of the features: work-state tuples, reads-from pairs */
	size_t findings, misuse_findings;
};

struct fz_result {
	char *kernel;
	uint64_t seed;
	uint64_t programs_asked;	/* 0: until time or a stop */
	unsigned int schedules;
	bool misuse;
	bool stopped;		/* interrupted before the programs asked were done */
	struct fz_stats st;
	struct fz_finding *f;
	size_t nf, capf;
	char first_error[512];	/* the first rejected text's or run's message */
};
void fz_result_free(struct fz_result *r);

struct fz_opts {
	const char *kernel;		/* the variant's name */
	uint64_t seed;
	uint64_t programs;		/* 0: until time_s or a stop */
	double time_s;			/* 0: none */
	unsigned int schedules;		/* per program, before energy */
	uint64_t max_steps;		/* per run */
	bool misuse;
	unsigned int max_cpus;		/* 1 .. 4 */
	size_t corpus_max;
	uint64_t shrink_runs;		/* program-level shrinking's budget */
	uint64_t xshrink_runs;		/* xshrink's budget (0: its default) */
	uint64_t cross_runs;		/* per other variant; 0: no cross-variant report */
	unsigned int job, njobs;	/* --jobs: this process's stream */
	const char *out_dir;		/* the findings' files, or NULL */
	const char *corpus_dir;		/* --corpus DIR, saved as the campaign goes, or NULL */
	uint64_t save_every;		/* programs between saves of corpus_dir; 0: none */
	volatile sig_atomic_t *stop;	/* set by SIGINT: stop after the current run */
	uint64_t raise_sigint_at;	/* tests: raise SIGINT after this many programs */
	void (*progress)(void *arg, const struct fz_stats *st, bool final);
	void *progress_arg;
	/* a new finding, once written (--jobs: the child tells its parent) */
	void (*on_finding)(void *arg, const struct fz_finding *f);
	void *on_finding_arg;
};

void fz_opts_default(struct fz_opts *o);

/*
 * The campaign: corpus holds the entries to start from (--corpus, loaded
 * with fz_corpus_load) and what the campaign leaves in it. Returns 0, or 2
 * with a message on err (the variant unknown, a file not written).
 */
int fz_run(const struct fz_opts *o, struct fz_corpus *corpus, struct fz_result *r, FILE *err);

/* The summary: counts, coverage, findings, cross-variant. Deterministic text. */
void fz_print(FILE *out, const struct fz_result *r, const char *out_dir);
void fz_print_json(FILE *out, const struct fz_result *r, const char *out_dir);
/* 0 nothing found, 1 findings, 3 stopped before done with nothing found. */
int fz_status(const struct fz_result *r);

/*
 * A finding's identity (above) in buf: "warn kthread_insert_work:812 worker",
 * "invariant never (queued(A) /\ delayed(A)) thread".
 */
const char *fz_identity(const struct sim_finding *f, char *buf, size_t len);

/*
 * --corpus DIR: each entry a file prog-HASH.kwp (kp_save). Load reads every
 * *.kwp of DIR in name order into c, then those of DIR/.job-N (what the
 * children of a --jobs campaign that was killed saved), a program once; a
 * file that is not a program (empty, cut short, garbage) is reported on
 * err ("kwsim fuzz: FILE: why: skipped") and left, the others load. A
 * missing DIR is an empty corpus; 2 only when DIR cannot be read. Save
 * writes c's entries, each to a file beside and renamed after an fsync (a
 * kill or a full disk leaves whole entries), then removes the programs of
 * DIR no longer in c (and DIR/.job-N's, loaded into c): never a file that
 * is not a program.
 */
int fz_corpus_load(const char *dir, struct fz_corpus *c, size_t max, FILE *err);
int fz_corpus_save(const char *dir, const struct fz_corpus *c, FILE *err);
/*
 * The campaign's save point: after every o->save_every programs, c saved to
 * o->corpus_dir and "kwsim fuzz: saved N corpus entries to DIR after P
 * programs" on err (a count of programs, never a time: a campaign killed
 * after that line has those entries, whatever the machine's speed).
 * Returns 0, or 2 when the save failed.
 */
int fz_corpus_checkpoint(const struct fz_opts *o, const struct fz_corpus *c, uint64_t programs,
			 FILE *err);

/*
 * Streams (campaign_merge.c). A campaign of T streams is T campaigns, stream
 * s's programs seeded from (seed, s, program) (fz_opts.job, njobs), each
 * from the same starting corpus; --jobs T runs them as processes, --shard
 * I/N (with --jobs J) streams I + N j of N J on a machine. fz_merge makes
 * the streams' results one, in stream order: counts summed (coverage: the
 * most any stream reached), findings by identity (the first in stream
 * order kept, its count the sum; its file, named in p[i].dir, copied to
 * out renumbered NNN in the merged order, or, out NULL, named
 * p[i].dir/FILE), and, c not NULL, the streams' corpora (each loaded from
 * p[i].corpus) taken in turn up to corpus_max into c. r holds the
 * campaign's head (kernel, seed, ...), its counts zero; the streams'
 * findings are moved out of p. Returns 0, or 2 with "kwsim CMD: why" on err
 * (a file not read or written).
 */
struct fz_part {
	struct fz_result r;	/* the stream's */
	const char *dir;	/* where its findings' files are, or NULL */
	const char *corpus;	/* its corpus directory, or NULL */
};
int fz_merge(struct fz_part *p, unsigned int n, const char *out, struct fz_corpus *c,
	     size_t corpus_max, struct fz_result *r, const char *cmd, FILE *err);
/*
 * A stream's result as lines: "result ...", "finding ...", "cross ...",
 * "end" (fields tab-separated, strings escaped). fz_result_line takes one
 * line (its newline gone, changed in place) into r: 0, 1 for "end", -1 not
 * a line of a result.
 */
void fz_result_write(FILE *out, const struct fz_result *r);
int fz_result_line(struct fz_result *r, char *line);
/* The lines' fields: a tab, then s escaped ("\\0" for NULL); and back, in place. */
void fz_put_str(FILE *out, const char *s);
char *fz_get_str(char **line);
uint64_t fz_get_u64(char **line);

#endif
