/*
 * The campaign loop (campaign.h): pick or generate, mutate, print, parse,
 * explore with a few schedules, keep what reached new coverage, hand each
 * new finding to campaign_finding.c. Wall time is read for --time and for
 * the findings' files' comments, never to decide a run.
 */
#include "campaign.h"
#include "campaign_impl.h"
#include "lib/util.h"

#include "explore/coverage.h"
#include "explore/strategy.h"
#include "scenario/scn.h"

#include <model.h>
#include <sim/fnv.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *fz_strdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

void fz_opts_default(struct fz_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kernel = "v4.9";
	o->schedules = FZ_SCHEDULES;
	o->max_steps = FZ_MAX_STEPS;
	o->max_cpus = 4;
	o->corpus_max = FZ_CORPUS_MAX;
	o->shrink_runs = FZ_SHRINK_RUNS;
	o->cross_runs = FZ_CROSS_RUNS;
	o->save_every = FZ_SAVE_EVERY;
	o->njobs = 1;
}

void fz_corpus_free(struct fz_corpus *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}

void fz_result_free(struct fz_result *r)
{
	for (size_t i = 0; i < r->nf; i++) {
		struct fz_finding *f = &r->f[i];

		free(f->id);
		free(f->what);
		free(f->file);
		free(f->text);
		for (size_t k = 0; k < f->ncross; k++)
			free(f->cross[k].kernel);
		free(f->cross);
	}
	free(r->f);
	free(r->kernel);
	memset(r, 0, sizeof(*r));
}

/* --- feature counts: a hash map of 64-bit features to runs that reached them ---------------- */

struct fz_hits {
	uint64_t *k;
	uint32_t *n;
	size_t count, cap;
};

static uint32_t *hits_slot(struct fz_hits *h, uint64_t key, bool add)
{
	size_t i;

	key = key ? key : 1;	/* 0 marks an empty slot */
	if (add && 2 * (h->count + 1) > h->cap) {
		struct fz_hits g = { .cap = h->cap ? 2 * h->cap : 1024 };

		g.k = calloc(g.cap, sizeof(*g.k));
		g.n = calloc(g.cap, sizeof(*g.n));
		if (!g.k || !g.n)
			abort();
		for (size_t j = 0; j < h->cap; j++) {
			if (!h->k[j])
				continue;
			for (i = h->k[j] & (g.cap - 1); g.k[i]; i = (i + 1) & (g.cap - 1))
				;
			g.k[i] = h->k[j];
			g.n[i] = h->n[j];
		}
		g.count = h->count;
		free(h->k);
		free(h->n);
		*h = g;
	}
	if (!h->cap)
		return NULL;
	for (i = key & (h->cap - 1); h->k[i]; i = (i + 1) & (h->cap - 1))
		if (h->k[i] == key)
			return &h->n[i];
	if (!add)
		return NULL;
	h->k[i] = key;
	h->count++;
	return &h->n[i];
}

static uint32_t hits_of(struct fz_hits *h, uint64_t key)
{
	uint32_t *n = hits_slot(h, key, false);

	return n ? *n : 0;
}

/* --- the campaign ------------------------------------------------------------------------------ */

struct fz {
	const struct fz_opts *o;
	struct fz_result *r;
	struct fz_corpus *c;
	const struct kw_model *m;
	FILE *err;
	struct fz_hits hits;
	struct scn_run run;
	double t0;
	struct fz_quiet quiet;
};

static double weight(struct fz *z, const struct fz_entry *e)
{
	double w = 0;

	for (unsigned int i = 0; i < e->nfeats; i++) {
		uint32_t n = hits_of(&z->hits, e->feats[i]);

		w += 1.0 / (n ? n : 1);
	}
	return w;
}

/* An entry drawn with probability proportional to its weight; *w its weight over the mean. */
static size_t pick(struct fz *z, struct rng *g, double *rel)
{
	double total = 0, u, acc = 0;
	size_t i;

	for (i = 0; i < z->c->n; i++)
		total += weight(z, &z->c->e[i]);
	if (!(total > 0)) {
		*rel = 1;
		return rng_below(g, (unsigned int)z->c->n);
	}
	u = (double)(rng_next(g) >> 11) * 0x1.0p-53 * total;
	for (i = 0; i + 1 < z->c->n; i++) {
		acc += weight(z, &z->c->e[i]);
		if (u < acc)
			break;
	}
	*rel = weight(z, &z->c->e[i]) * (double)z->c->n / total;
	return i;
}

static void corpus_add(struct fz *z, const struct kp *p, const uint64_t *feats, unsigned int n,
		       uint64_t program)
{
	struct fz_corpus *c = z->c;
	uint64_t key = fz_prog_key(p);
	struct fz_entry *e;

	/* a program the corpus has: its coverage is counted, the entry stays one */
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].key == key)
			return;
	if (c->n >= z->o->corpus_max) {
		/* evict the least useful: the least weight, the oldest of equals */
		size_t worst = 0;
		double ww = weight(z, &c->e[0]);

		for (size_t i = 1; i < c->n; i++) {
			double w = weight(z, &c->e[i]);

			if (w < ww) {
				ww = w;
				worst = i;
			}
		}
		e = &c->e[worst];
	} else {
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->e = realloc(c->e, c->cap * sizeof(*c->e));
			if (!c->e)
				abort();
		}
		e = &c->e[c->n++];
	}
	memset(e, 0, sizeof(*e));
	e->p = *p;
	e->key = key;
	e->added = program;
	e->nfeats = n < FZ_ENTRY_FEATS ? n : FZ_ENTRY_FEATS;
	memcpy(e->feats, feats, e->nfeats * sizeof(*feats));
}

/*
 * The strategy of schedule j of a program: a rotation (campaign.h) of
 * eight slots over five strategies, rff in every other slot. Each strategy
 * numbers its own runs 0, 1, 2, ... in the order the slots come.
 */
static const struct { enum xs_kind kind; unsigned int depth; } strat[FZ_NSTRAT] = {
	{ XS_RFF, 0 }, { XS_PCT, 2 }, { XS_POS, 0 }, { XS_RANDOM, 0 }, { XS_PCT, 3 },
};
static const unsigned int slot[] = { 0, 1, 0, 2, 0, 3, 0, 4 };
#define NSLOT (sizeof(slot) / sizeof(slot[0]))

/* Schedule j's strategy, and its run number there. */
static unsigned int strategy_of(int j, uint64_t *run)
{
	unsigned int pos = (unsigned int)j % NSLOT, k = slot[pos], per = 0, rank = 0;

	for (unsigned int i = 0; i < NSLOT; i++) {
		per += slot[i] == k;
		rank += slot[i] == k && i < pos;
	}
	*run = (uint64_t)(j / (int)NSLOT) * per + rank;
	return k;
}

void fz_strategies(struct xs *x[], uint64_t seed, size_t est_steps, unsigned int cpus)
{
	for (size_t k = 0; k < FZ_NSTRAT; k++) {
		struct xs_params p = { .kind = strat[k].kind, .seed = seed,
				       .depth = strat[k].depth ? strat[k].depth : 3,
				       .preemptions = 2, .est_steps = est_steps ? est_steps : 1,
				       .est_contexts = cpus ? cpus : 1 };

		x[k] = xs_new(&p);
		if (!x[k])
			abort();
	}
}

void fz_strategies_free(struct xs *x[])
{
	for (size_t k = 0; k < FZ_NSTRAT; k++)
		xs_free(x[k]);
}

const char *fz_schedule_name(int j, char *buf, size_t len)
{
	uint64_t r;
	unsigned int k;
	char name[64];

	if (j < 0)
		return snprintf(buf, len, "faithful"), buf;
	k = strategy_of(j, &r);
	snprintf(buf, len, "%s run %llu",
		 xs_params_name(&(struct xs_params){ .kind = strat[k].kind, .depth = strat[k].depth },
				name, sizeof(name)), (unsigned long long)r);
	return buf;
}

static void on_rf(void *arg, const struct sim_rf *rf)
{
	xset_add(arg, sim_rf_hash(rf));
}

int fz_run_schedule(const struct scn *s, const struct kw_model *m, struct xs *x[], int j,
		    uint64_t max_steps, struct xset *tuples, struct xset *rfs, struct scn_run *run,
		    FILE *err)
{
	struct sim_config cfg = s->cfg;
	struct xcov cov = { .tuples = tuples, .run = run };
	unsigned int k = 0;
	uint64_t r = 0;
	int rc;

	cfg.keep_trace = false;
	cfg.drop_decisions = false;	/* a finding's run is shrunk from its log */
	cfg.max_steps = max_steps;
	/* ours before xs_begin(): rff calls a caller's on_rf after its own */
	if (rfs) {
		cfg.on_rf = on_rf;
		cfg.on_rf_arg = rfs;
	}
	if (j >= 0) {
		k = strategy_of(j, &r);
		xs_begin(x[k], r, &cfg);
	}
	if (tuples) {
		cov.works = xcov_works(s, &cov.nworks);
		cfg.on_point = xcov_point;
		cfg.on_point_arg = &cov;
		cfg.on_list = xcov_list;
		cfg.on_list_arg = &cov;
	}
	run->config = &cfg;
	rc = scn_run(s, m, run, err);
	if (j >= 0)
		xs_end(x[k], r, run->log, run->nlog);
	xcov_free(&cov);
	free((void *)cov.works);
	run->config = NULL;
	return rc;
}

void fz_quiet_rewind(struct fz_quiet *q)
{
	if (!q->f)
		q->f = memstream_open(&q->buf, &q->len);
	fflush(q->f);
	rewind(q->f);
	if (q->buf)
		q->buf[0] = '\0';
}

const char *fz_quiet_text(struct fz_quiet *q)
{
	fflush(q->f);
	return q->buf ? q->buf : "";
}

void fz_quiet_free(struct fz_quiet *q)
{
	if (q->f)
		fclose(q->f);
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

static void reject(struct fz *z, const char *what)
{
	z->r->st.rejected++;
	if (!z->r->first_error[0]) {
		size_t n = strcspn(fz_quiet_text(&z->quiet), "\n");

		snprintf(z->r->first_error, sizeof(z->r->first_error), "%s: %.*s", what, (int)n,
			 fz_quiet_text(&z->quiet));
	}
}

/* The program's features, and those reached first, for its corpus entry. */
struct feats {
	uint64_t v[FZ_ENTRY_FEATS];
	unsigned int n, nnew;
	struct xset seen;	/* the program's, counted once per program */
};

enum { F_TUPLE, F_RF, F_FINDING };

static void feature(struct fz *z, struct feats *fs, uint64_t h, int kind)
{
	uint32_t *n;

	/* the kinds apart: a tuple's hash and a pair's may not meet */
	h = (h ^ (uint64_t)kind * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
	/* memory stays bounded: past FZ_MAX_FEATURES, only features known count */
	if (z->hits.count >= FZ_MAX_FEATURES && !hits_slot(&z->hits, h, false))
		return;
	n = hits_slot(&z->hits, h, true);
	if (!*n) {
		if (kind == F_TUPLE)
			z->r->st.tuples++;
		else if (kind == F_RF)
			z->r->st.rf_pairs++;
		/* new ones first: they make the entry's energy; an old one makes room */
		if (fs->nnew < FZ_ENTRY_FEATS) {
			if (fs->n < FZ_ENTRY_FEATS && fs->n > fs->nnew)
				fs->v[fs->n] = fs->v[fs->nnew];
			fs->n += fs->n < FZ_ENTRY_FEATS;
			fs->v[fs->nnew++] = h;
		}
		xset_add(&fs->seen, h);
	} else if (xset_add(&fs->seen, h) && fs->n < FZ_ENTRY_FEATS) {
		fs->v[fs->n++] = h;
	}
	if (*n < UINT32_MAX)
		(*n)++;
}

static int one_program(struct fz *z, uint64_t i, bool *go_on)
{
	const struct fz_opts *o = z->o;
	struct kp_gen_opts go = { .misuse = o->misuse, .max_cpus = o->max_cpus };
	struct kp_print_opts po = { .name = "fuzz", .kernel = z->m->name, .invariants = true,
				     .stall_ns = SCN_STALL_DEFAULT_NS };
	uint64_t mix = ((uint64_t)o->job << 48) ^ i, pseed = rng_splitmix64(&mix) ^ o->seed;
	struct xs *x[FZ_NSTRAT];
	struct feats fs = { .n = 0 };
	struct rng g;
	struct kp p;
	struct scn *s;
	unsigned int k = o->schedules;
	char *text;
	size_t len;
	int rc = 0;

	rng_seed(&g, pseed);
	if (!z->c->n || !rng_below(&g, 10)) {
		kp_generate(&p, &g, &go);
		z->r->st.generated++;
	} else {
		double rel;
		size_t e = pick(z, &g, &rel);
		unsigned int nm = 1 + rng_below(&g, 3);

		p = z->c->e[e].p;
		z->c->e[e].picked++;
		/* energy: rare coverage, more schedules (up to 4x) */
		k = (unsigned int)(o->schedules * (rel < 1 ? 1 : rel > 4 ? 4 : rel) + 0.5);
		for (unsigned int m = 0; m < nm; m++) {
			const struct kp *other = NULL;
			double r2;

			if (z->c->n > 1 && !rng_below(&g, 4))
				other = &z->c->e[pick(z, &g, &r2)].p;
			if (!strcmp(kp_mutate(&p, &g, other, &go), "splice"))
				z->r->st.spliced++;
		}
		z->r->st.mutated++;
	}
	z->r->st.programs++;
	text = kp_text(&p, &po, &len);
	if (!text)
		abort();
	fz_quiet_rewind(&z->quiet);
	s = scn_parse("fuzz.kws", text, len, z->quiet.f);
	free(text);
	if (!s) {
		reject(z, "a generated program does not parse");
		return 0;
	}
	fz_strategies(x, pseed, 1, p.cpus);
	for (int j = -1; j < (int)k && *go_on; j++) {
		struct xset tuples = { 0 }, rfs = { 0 };

		if (o->stop && *o->stop) {
			*go_on = false;
			z->r->stopped = true;
			break;
		}
		if (j == 0) {
			/* pct's n: the faithful run's decisions */
			size_t n = z->run.ndecisions;

			fz_strategies_free(x);
			fz_strategies(x, pseed, n, p.cpus);
		}
		fz_quiet_rewind(&z->quiet);
		if (fz_run_schedule(s, z->m, x, j, o->max_steps, &tuples, &rfs, &z->run,
				    z->quiet.f)) {
			xset_free(&tuples);
			xset_free(&rfs);
			reject(z, "a generated program's run failed");
			break;
		}
		z->r->st.runs++;
		if (z->run.end == SIM_END_STEP_LIMIT)
			z->r->st.cut_short++;
		for (size_t t = 0; t < tuples.cap; t++)
			if (tuples.v[t])
				feature(z, &fs, tuples.v[t], F_TUPLE);
		if (tuples.has_zero)
			feature(z, &fs, 0, F_TUPLE);
		for (size_t t = 0; t < rfs.cap; t++)
			if (rfs.v[t])
				feature(z, &fs, rfs.v[t], F_RF);
		if (rfs.has_zero)
			feature(z, &fs, 0, F_RF);
		xset_free(&tuples);
		xset_free(&rfs);
		for (size_t f = 0; f < z->run.nfindings && !rc; f++) {
			char id[1400];
			struct fz_seen sn = { &p, &z->run, f, id, i, j, pseed };

			fz_identity(&z->run.findings[f], id, sizeof(id));
			feature(z, &fs, sim_fnv_str(SIM_FNV_OFFSET, id), F_FINDING);
			rc = fz_finding_seen(z->r, &sn, z->m, o, z->err);
		}
		if (rc)
			break;
	}
	fz_strategies_free(x);
	scn_free(s);
	if (fs.nnew)
		corpus_add(z, &p, fs.v, fs.n, i);
	xset_free(&fs.seen);
	z->r->st.corpus = z->c->n;
	z->r->st.features = z->hits.count;
	return rc;
}

/* An entry from --corpus: its features, from its faithful run. */
static void load_entry(struct fz *z, struct fz_entry *e)
{
	struct kp_print_opts po = { .name = "fuzz", .kernel = z->m->name, .invariants = true,
				     .stall_ns = SCN_STALL_DEFAULT_NS };
	struct feats fs = { .n = 0 };
	struct xset tuples = { 0 }, rfs = { 0 };
	struct xs *x[FZ_NSTRAT];
	size_t len;
	char *text = kp_text(&e->p, &po, &len);
	struct scn *s;

	if (!text)
		abort();
	fz_quiet_rewind(&z->quiet);
	s = scn_parse("fuzz.kws", text, len, z->quiet.f);
	free(text);
	if (!s)
		return;
	fz_strategies(x, 0, 1, e->p.cpus);
	if (!fz_run_schedule(s, z->m, x, -1, z->o->max_steps, &tuples, &rfs, &z->run, z->quiet.f)) {
		for (size_t t = 0; t < tuples.cap; t++)
			if (tuples.v[t])
				feature(z, &fs, tuples.v[t], F_TUPLE);
		for (size_t t = 0; t < rfs.cap; t++)
			if (rfs.v[t])
				feature(z, &fs, rfs.v[t], F_RF);
	}
	fz_strategies_free(x);
	scn_free(s);
	e->nfeats = fs.n;
	memcpy(e->feats, fs.v, fs.n * sizeof(fs.v[0]));
	xset_free(&tuples);
	xset_free(&rfs);
	xset_free(&fs.seen);
}

int fz_run(const struct fz_opts *o, struct fz_corpus *corpus, struct fz_result *r, FILE *err)
{
	struct fz z = { .o = o, .r = r, .c = corpus, .err = err, .t0 = host_seconds(CLOCK_MONOTONIC) };
	bool go_on = true;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	z.m = kw_model_find(o->kernel);
	if (!z.m) {
		fprintf(err, "kwsim fuzz: --kernel: no variant '%s'\n", o->kernel);
		return 2;
	}
	r->kernel = fz_strdup(z.m->name);
	r->seed = o->seed;
	r->programs_asked = o->programs;
	r->schedules = o->schedules;
	r->misuse = o->misuse;
	/* a loaded corpus is coverage reached: each program's faithful run, its features */
	for (size_t e = 0; e < corpus->n; e++)
		load_entry(&z, &corpus->e[e]);
	r->st.corpus = corpus->n;
	for (uint64_t i = 0; go_on && !rc && (!o->programs || i < o->programs); i++) {
		if (o->stop && *o->stop) {
			r->stopped = true;
			break;
		}
		if (o->time_s > 0 && host_seconds(CLOCK_MONOTONIC) - z.t0 >= o->time_s)
			break;
		rc = one_program(&z, i, &go_on);
		if (!rc)
			rc = fz_corpus_checkpoint(o, corpus, r->st.programs, err);
		if (o->progress)
			o->progress(o->progress_arg, &r->st, false);
		if (o->raise_sigint_at && r->st.programs == o->raise_sigint_at)
			raise(SIGINT);
	}
	if (o->stop && *o->stop && o->programs && r->st.programs < o->programs)
		r->stopped = true;
	if (o->progress)
		o->progress(o->progress_arg, &r->st, true);
	sim_fini();
	scn_run_free(&z.run);
	free(z.hits.k);
	free(z.hits.n);
	fz_quiet_free(&z.quiet);
	return rc;
}
