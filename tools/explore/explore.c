/*
 * The campaign engine: one parse, many runs, in this process. For each
 * variant, a faithful calibration run first (pct's n and k), then runs
 * 0, 1, 2, ... of the strategy on one reused struct scn_run, each run's
 * configuration a copy of the scenario's with the strategy's chooser and
 * the coverage sampler. Each run's outcome, findings and coverage go into
 * the campaign's result (struct xr); the first run of each distinct
 * finding is written out as a replay file.
 *
 * Wall time is read here for --time and nowhere in a run: a run is a
 * function of its token alone.
 */
#include "lib/util.h"
#include "explore.h"
#include "finding.h"
#include "shrink.h"
#include "lib/outfile.h"
#include "scenario/scn.h"

#include <model.h>

#include <sim/fnv.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t xc_scenario_hash(const struct scn *s, const char *sets_text)
{
	size_t keep = s->schedule_at;

	/* as scn_write_with_schedule keeps it: the blanks before the schedule go */
	while (keep && (s->text[keep - 1] == '\n' || s->text[keep - 1] == ' '))
		keep--;
	return sim_fnv(sim_fnv(SIM_FNV_OFFSET, s->text, keep), sets_text ? sets_text : "",
		   sets_text ? strlen(sets_text) : 0);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

/* --- recording a run ----------------------------------------------------------------------- */

struct campaign {
	const struct scn *s;
	const struct xc_opts *o;
	struct xr *r;
	struct xs *x;
	struct xr_variant *v;
	const struct kw_model *m;
	FILE *err;
	char *state;		/* the state text's buffer */
	size_t state_cap;
	bool found;		/* a new finding in this campaign */
	int *works;		/* the coverage sampler's */
	size_t nworks;
};

static struct xr_state *state_of(struct xr_variant *v, const char *text, bool positive)
{
	for (size_t i = 0; i < v->nstates; i++)
		if (!strcmp(v->states[i].text, text))
			return &v->states[i];
	if (v->nstates == v->capstates) {
		v->capstates = v->capstates ? 2 * v->capstates : 8;
		v->states = realloc(v->states, v->capstates * sizeof(*v->states));
		if (!v->states)
			abort();
	}
	v->states[v->nstates] = (struct xr_state){ xstrdup(text), 0, positive };
	return &v->states[v->nstates++];
}

static void run_state(struct campaign *c, const struct scn_run *run)
{
	size_t need;

	if (c->s->quant == Q_NONE) {
		/* no condition: the state is how the run ended and what it reported */
		need = (size_t)snprintf(NULL, 0, "end=%s; findings=%zu; ", sim_end_name(run->end),
					run->nfindings);
	} else {
		need = scn_state_text(run, run->scn->cond, false, c->state, c->state_cap);
	}
	if (need >= c->state_cap) {
		c->state_cap = need + 64;
		c->state = realloc(c->state, c->state_cap);
		if (!c->state)
			abort();
		if (c->s->quant != Q_NONE)
			scn_state_text(run, run->scn->cond, false, c->state, c->state_cap);
	}
	if (c->s->quant == Q_NONE)
		snprintf(c->state, c->state_cap, "end=%s; findings=%zu; ", sim_end_name(run->end),
			 run->nfindings);
}

/* Comments are (* ... *) blocks: what goes in one must not close it. */
static void comment_safe(char *s)
{
	for (char *p = s; (p = strstr(p, "*)"));)
		*p = '+';
}

static const char *quant_word(const struct scn *s)
{
	return s->quant == Q_EXISTS ? "exists" : s->quant == Q_FORALL ? "forall" : "~exists";
}

/* One line saying what the finding is, from the run that first showed it. */
static char *finding_what(const struct scn *s, const struct sim_finding *f)
{
	char buf[1400];
	size_t n;

	/* what the run showed, in the condition's own sense: ~exists (X) forbids X, not "holds" */
	if (!f && s->quant == Q_NOT_EXISTS)
		snprintf(buf, sizeof(buf), "a run shows %s, which ~exists forbids", s->cond_text);
	else if (!f && s->quant == Q_FORALL)
		snprintf(buf, sizeof(buf), "counterexample of forall %s: a run where it does not hold",
			 s->cond_text);
	else if (!f)
		snprintf(buf, sizeof(buf), "witness of %s %s: a run shows it", quant_word(s),
			 s->cond_text);
	if (!f)
		return xstrdup(buf);
	n = strcspn(f->msg, "\n");
	snprintf(buf, sizeof(buf), "%s in %s", sim_finding_kind_name(f->kind), f->context);
	if (f->site.func)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (%s:%d %s)",
			 f->site.file ? f->site.file : "?", f->site.line, f->site.func);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ": %.*s", (int)n, f->msg);
	return xstrdup(buf);
}

/* The replay file's name: the kernel, the finding's kind and place, its key's hash. */
static char *finding_file(const struct xr_variant *v, const char *key, const struct sim_finding *f)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s-%s%s%s-%08x.kws", v->kernel,
		 f ? sim_finding_kind_name(f->kind) : XF_CONDITION_KEY,
		 f && f->site.func ? "-" : "", f && f->site.func ? f->site.func : "",
		 (unsigned int)(sim_fnv(SIM_FNV_OFFSET, key, strlen(key)) & 0xffffffffu));
	for (char *p = buf; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
			*p = '_';
	return xstrdup(buf);
}

/*
 * The replay file of a finding's first run: the scenario with the run's
 * settings and decisions, which kwsim replay runs byte for byte. This is
 * the place to shrink the run first (kwsim shrink): what is written here is
 * what the user gets.
 */
static int write_replay_file(struct campaign *c, const struct scn_run *run,
			     const struct xr_finding *xf, uint64_t r, const struct xshrink_result *sh)
{
	char path[4096], comment[2048], strat[160];
	struct outfile out;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", c->o->out_dir, xf->file);
	snprintf(comment, sizeof(comment),
		 "Found by kwsim explore: %s\n   %s\n   kernel %s, strategy %s, seed %llu, run %llu\n"
		 "   replay token %s", xf->key, xf->what, c->v->kernel,
		 xs_token_name(c->x, r, strat, sizeof(strat)),
		 (unsigned long long)c->o->sp.seed, (unsigned long long)r, xf->token);
	comment_safe(comment);
	f = outfile_open(&out, path);
	if (!f) {
		fprintf(c->err, "kwsim explore: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	/* the shrunk run if shrinking kept the finding (its comment names the token), else the run */
	if (sh->text) {
		fprintf(f, "%s\n(* %s *)\n", sh->text, comment);
		rc = ferror(f) ? -1 : 0;
	} else {
		rc = scn_write_with_schedule(f, c->s, run, comment);
	}
	if (outfile_close(&out, !rc) || rc) {
		fprintf(c->err, "kwsim explore: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

static int add_finding(struct campaign *c, const struct scn_run *run, uint64_t r, const char *key,
		       unsigned int seq, const struct sim_finding *f)
{
	struct xr_variant *v = c->v;
	struct xr_finding *xf;
	char token[512], strat[160];

	for (size_t i = 0; i < v->nfindings; i++) {
		if (!strcmp(v->findings[i].key, key)) {
			v->findings[i].count++;
			return 0;
		}
	}
	if (v->nfindings == v->capfindings) {
		v->capfindings = v->capfindings ? 2 * v->capfindings : 8;
		v->findings = realloc(v->findings, v->capfindings * sizeof(*v->findings));
		if (!v->findings)
			abort();
	}
	snprintf(token, sizeof(token), "%016llx:%s:%s:%llu:%llu", (unsigned long long)c->r->scn_hash,
		 v->kernel, xs_token_name(c->x, r, strat, sizeof(strat)),
		 (unsigned long long)c->o->sp.seed, (unsigned long long)r);
	xf = &v->findings[v->nfindings++];
	*xf = (struct xr_finding){ .key = xstrdup(key), .first = r, .seq = seq, .count = 1,
				   .token = xstrdup(token), .what = finding_what(c->s, f) };
	c->found = true;
	/*
	 * Its bug depth: the first run shrunk, within shrink's default budget
	 * (runs, so the campaign stays deterministic); the shrunk file is what
	 * --out gets.
	 */
	struct xshrink_result sh = { 0 };

	xf->depth = -1;
	if (!xshrink(c->s, c->m, run, key, 0, &sh)) {
		xf->depth = (int)sh.after.deviations;
		xf->preemptions = (int)sh.after.preemptions;
		xf->depth_minimal = sh.depth_minimal;
		xf->stalls = (int)sh.after.stalls;
		xf->stall_text = xshrink_stall_text(&sh.after);
	}
	if (c->o->out_dir) {
		int rc;

		xf->file = finding_file(v, key, f);
		rc = write_replay_file(c, run, xf, r, &sh);
		xshrink_result_free(&sh);
		return rc;
	}
	xshrink_result_free(&sh);
	return 0;
}

static int record(struct campaign *c, const struct scn_run *run, uint64_t r)
{
	struct xr_variant *v = c->v;
	char keys[2][512], *key = keys[0];
	int rc = 0;

	v->runs++;
	if (scn_cut_short(run))
		v->cut_short++;
	xset_add(&v->traces, run->hash);
	run_state(c, run);
	state_of(v, c->state, run->cond_holds)->count++;
	for (size_t i = 0; i < run->nfindings && !rc; i++) {
		bool again = false;

		xf_key(&run->findings[i], key, sizeof(keys[0]));
		/* a run counts once for each of its distinct findings */
		for (size_t j = 0; j < i && !again; j++) {
			xf_key(&run->findings[j], keys[1], sizeof(keys[1]));
			again = !strcmp(keys[1], key);
		}
		if (!again)
			rc = add_finding(c, run, r, key, (unsigned int)i, &run->findings[i]);
	}
	if (!rc && xf_condition_witness(c->s, run))
		rc = add_finding(c, run, r, XF_CONDITION_KEY, (unsigned int)run->nfindings, NULL);
	return rc;
}

/* --- the campaign -------------------------------------------------------------------------- */

static uint64_t total_runs(const struct xr *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nv; i++)
		n += r->v[i].runs;
	return n;
}

/*
 * One variant's runs: 0, or 2 on an error; *go_on becomes false when the
 * campaign stops (SIGINT, time, the first finding).
 */
static int run_variant(struct campaign *c, struct scn_run *run, double deadline, bool *go_on)
{
	const struct xc_opts *o = c->o;
	struct xs_params p = o->sp;
	struct xcov cov = { .tuples = &c->v->tuples, .run = run };
	struct sim_config cfg;
	int rc = 0;

	if (xs_calibrate(&p, c->s, c->m, run, c->err))
		return 2;
	p.shard = o->shard;
	p.nshards = o->nshards;
	c->v->est_steps = p.est_steps;
	c->v->est_contexts = p.est_contexts;
	cov.works = c->works;
	cov.nworks = c->nworks;
	c->x = xs_new(&p);
	if (!c->x) {
		fprintf(c->err, "kwsim explore: the %s strategy is not built into this kwsim\n",
			xs_kind_name(p.kind));
		return 2;
	}
	for (uint64_t r = 0; !o->runs || r < o->runs; r++) {
		if ((o->stop && *o->stop) || (deadline > 0 && host_seconds(CLOCK_MONOTONIC) >= deadline)) {
			/* a bound of time alone is the campaign's end, not a stop */
			c->r->stopped = o->runs != 0 || (o->stop && *o->stop);
			*go_on = false;
			break;
		}
		/* delay splits its space itself (dfs_shard()): every run of its own */
		if (!xs_ops_of(p.kind)->splits && r % o->nshards != o->shard)
			continue;
		cfg = c->s->cfg;
		cfg.keep_trace = false;
		cfg.drop_decisions = false;	/* replay files and dfs need the log */
		cfg.on_rf = xcov_rf;		/* before xs_begin: rff calls it on */
		cfg.on_rf_arg = &c->v->rf;
		if (!xs_begin(c->x, r, &cfg)) {
			c->v->exhausted = true;
			break;
		}
		cfg.on_point = xcov_point;
		cfg.on_point_arg = &cov;
		cfg.on_list = xcov_list;
		cfg.on_list_arg = &cov;
		xcov_reset(&cov);
		run->config = &cfg;
		if (scn_run(c->s, c->m, run, c->err)) {
			rc = 2;
			break;
		}
		xs_end(c->x, r, run->log, run->nlog);
		rc = record(c, run, r);
		if (rc)
			break;
		if (o->progress && !(c->v->runs & 15))
			o->progress(o->progress_arg, c->r, total_runs(c->r), false);
		if (o->raise_sigint_at && total_runs(c->r) == o->raise_sigint_at)
			raise(SIGINT);
		if (o->stop_on_first && c->found) {
			*go_on = false;
			break;
		}
	}
	xcov_free(&cov);
	xs_free(c->x);
	c->x = NULL;
	return rc;
}

int xc_run(const struct scn *s, const struct xc_opts *o, struct xr *r, FILE *err)
{
	struct campaign c = { .s = s, .o = o, .r = r, .err = err };
	struct scn_run run = { 0 };
	double t0 = host_seconds(CLOCK_MONOTONIC);
	bool go_on = true;
	int rc = 0;

	r->scn_hash = xc_scenario_hash(s, o->sets_text);
	r->name = xstrdup(s->name);
	r->path = xstrdup(s->path);
	r->quant = (int)s->quant;
	r->cond_text = xstrdup(s->quant == Q_NONE ? "" : s->cond_text);
	r->sp = o->sp;
	r->runs_asked = o->runs;
	r->shard = o->shard;
	r->nshards = o->nshards;
	c.works = xcov_works(s, &c.nworks);
	for (size_t i = 0; i < r->nv && go_on && !rc; i++) {
		c.v = &r->v[i];
		c.m = kw_model_find(c.v->kernel);
		/* --time is shared out: each variant has its part */
		rc = run_variant(&c, &run, o->time_s > 0 ? t0 + o->time_s * (double)(i + 1) / (double)r->nv
							 : 0, &go_on);
	}
	r->complete = !r->stopped && go_on;
	if (o->progress && !rc)
		o->progress(o->progress_arg, r, total_runs(r), true);
	sim_fini();
	scn_run_free(&run);
	free(c.state);
	free(c.works);
	if (!rc)
		xr_normalize(r);
	return rc;
}
