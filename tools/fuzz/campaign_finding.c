/*
 * A campaign's new finding: its identity, the program shrunk at the
 * struct kp level, the schedule shrunk by xshrink(), the file written, the
 * file replayed, and the shrunk scenario explored on the other variants.
 *
 * Shrinking the program: candidates drop a context, a statement, the
 * suspend, the last timer, work or worker (kp_normalize() mends the
 * indices), and under --misuse the teardown; one is taken when a run of
 * it (the schedule that showed the finding first, then the faithful run,
 * then the rest of the program's schedules) shows the same identity and,
 * for an implementation finding, kp_contract() stays 0. Bounded by
 * fz_opts.shrink_runs runs.
 *
 * Then xshrink() on the resulting scenario and the run that showed it: it
 * shrinks the schedule and may cut statements too. A cut statement may
 * break the contract (a teardown's cancel, say) and xshrink cannot ask
 * kp_contract() of a text: so for an implementation finding its result is
 * written only when it cut no statement, program or declaration; else the
 * program-level result is written with the schedule of its run, and the
 * comment gives the depth xshrink measured. A misuse finding takes
 * xshrink's result as it is.
 */
#include "campaign.h"
#include "campaign_impl.h"

#include "explore/explore.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "explore/finding.h"
#include "explore/shrink.h"
#include "explore/strategy.h"
#include "scenario/scn.h"

#include <model.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --- identity ---------------------------------------------------------------------------------- */

static const char *ctx_kind(const char *comm)
{
	size_t n = strlen(comm);

	if (!strcmp(comm, "hardirq") || !strcmp(comm, "softirq"))
		return comm;
	/* the scenario's threads P0, P1, ...; the rest are the workers' kthreads */
	if (n >= 2 && comm[0] == 'P' && strspn(comm + 1, "0123456789") == n - 1)
		return "thread";
	return "worker";
}

/* The invariant's clause with its objects' numbers gone: "never (queued(A) /\ delayed(A))". */
static void clause(const char *msg, char *buf, size_t len)
{
	const char *p = strstr(msg, ": ");
	size_t o = 0;
	bool ident = false;

	p = p ? p + 2 : msg;
	for (; *p && *p != '\n' && o + 1 < len; p++) {
		if (ident && isdigit((unsigned char)*p))
			continue;
		ident = isalpha((unsigned char)*p) || *p == '_' || (ident && isdigit((unsigned char)*p));
		buf[o++] = *p;
	}
	buf[o] = '\0';
}

/* A site in the program (an API call's line in fuzz.kws), not in the kernel: its line moves. */
static bool in_scenario(const struct sim_site *site)
{
	size_t n = site->file ? strlen(site->file) : 0;

	return n >= 4 && !strcmp(site->file + n - 4, ".kws");
}

static const char *identity(const struct sim_finding *f, char *buf, size_t len, bool line)
{
	const char *kind = sim_finding_kind_name(f->kind);

	if (f->kind == SIM_F_INVARIANT) {
		char c[1024];

		clause(f->msg, c, sizeof(c));
		snprintf(buf, len, "%s %s %s", kind, c, ctx_kind(f->context));
	} else if (f->kind == SIM_F_CONTRACT) {
		/* "contract [cancel-idle] ...": the rule and the promising call, not its line */
		const char *r = strchr(f->msg, '[');

		snprintf(buf, len, "%s %.*s %s %s", kind, r ? (int)strcspn(r, "]") + 1 : 1,
			 r ? r : "-", f->site.func ? f->site.func : "-", ctx_kind(f->context));
	} else if (f->site.func && line && !in_scenario(&f->site)) {
		snprintf(buf, len, "%s %s:%d %s", kind, f->site.func, f->site.line,
			 ctx_kind(f->context));
	} else {
		snprintf(buf, len, "%s %s %s", kind, f->site.func ? f->site.func : "-",
			 ctx_kind(f->context));
	}
	return buf;
}

const char *fz_identity(const struct sim_finding *f, char *buf, size_t len)
{
	return identity(f, buf, len, true);
}

/* Where run shows a finding of identity id (with lines or not): its index, or -1. */
static long shows(const struct scn_run *run, const char *id, bool line)
{
	char b[1400];

	for (size_t i = 0; i < run->nfindings; i++)
		if (!strcmp(identity(&run->findings[i], b, sizeof(b), line), id))
			return (long)i;
	return -1;
}

/* --- shrinking the program --------------------------------------------------------------------- */

struct pshrink {
	const struct fz_opts *o;
	const struct kw_model *m;
	const char *id;
	bool misuse;
	uint64_t pseed;
	int j0;			/* the schedule that showed it first */
	uint64_t runs;		/* made so far */
	struct scn_run run;
	struct fz_quiet quiet;
};

static struct kp_body *body(struct kp *p, unsigned int b)
{
	if (b < p->nctx)
		return &p->ctx[b].body;
	b -= p->nctx;
	if (b < p->nworks)
		return &p->work[b].fn;
	return &p->timer[b - p->nworks].fn;
}

/* Candidate c of p into q; false when there is no candidate c. */
static bool candidate(const struct kp *p, unsigned int c, struct kp *q, bool misuse)
{
	unsigned int nb = p->nctx + p->nworks + p->ntimers;

	*q = *p;
	if (c < p->nctx) {
		memmove(&q->ctx[c], &q->ctx[c + 1], (q->nctx - c - 1) * sizeof(q->ctx[0]));
		q->nctx--;
		return true;
	}
	c -= p->nctx;
	for (unsigned int b = 0; b < nb; b++) {
		struct kp_body *bd = body(q, b);

		if (c < bd->n) {
			memmove(&bd->s[c], &bd->s[c + 1], (bd->n - c - 1) * sizeof(bd->s[0]));
			bd->n--;
			return true;
		}
		c -= bd->n;
	}
	switch (c) {
	case 0:
		q->suspend = false;
		return p->suspend;
	case 1:
		q->ntimers -= q->ntimers > 0;
		return p->ntimers > 0;
	case 2:
		q->nworks -= q->nworks > 0;
		return p->nworks > 0;
	case 3:
		q->nworkers -= q->nworkers > 1;
		return p->nworkers > 1;
	case 4:
		q->teardown = false;
		return misuse && p->teardown;
	case 5:
		q->cpus -= q->cpus > 1;
		return p->cpus > 1;
	default:
		return false;
	}
}

static unsigned int ncandidates(const struct kp *p)
{
	return (unsigned int)(p->nctx + kp_size(p) + 6);
}

/*
 * Whether q shows the finding: the schedule that showed it first, the
 * faithful run, the others. Returns the schedule (-1 faithful) or -2; with
 * keep, *s and ps->run are the parse and the run that showed it.
 */
static int test(struct pshrink *ps, const struct kp *q, struct scn **keep)
{
	struct kp_print_opts po = { .name = "fuzz", .kernel = ps->m->name, .invariants = true,
				     .stall_ns = SCN_STALL_DEFAULT_NS };
	struct xs *x[FZ_NSTRAT];
	size_t len;
	char *text = kp_text(q, &po, &len);
	struct scn *s;
	int order[64], n = 0, hit = -2;
	unsigned int k = ps->o->schedules * 4;

	if (!text)
		abort();
	fz_quiet_rewind(&ps->quiet);
	s = scn_parse("fuzz.kws", text, len, ps->quiet.f);
	free(text);
	if (!s)
		return -2;
	if (k > 63)
		k = 63;
	/* the program's schedules in their order: rff learns from the runs before */
	for (int j = 0; j < (int)k; j++)
		order[n++] = j;
	fz_strategies(x, ps->pseed, 1, q->cpus);
	ps->runs++;
	if (!fz_run_schedule(s, ps->m, x, -1, ps->o->max_steps, NULL, NULL, &ps->run, ps->quiet.f)) {
		/* pct's n: the faithful run's decisions, as the campaign had them */
		size_t nd = ps->run.ndecisions;

		if (shows(&ps->run, ps->id, true) >= 0)
			hit = -1;
		fz_strategies_free(x);
		fz_strategies(x, ps->pseed, nd, q->cpus);
		for (int i = 0; i < n && hit == -2 && ps->runs <= ps->o->shrink_runs; i++) {
			/* a strategy's run j follows from nothing but (seed, j) */
			ps->runs++;
			if (fz_run_schedule(s, ps->m, x, order[i], ps->o->max_steps, NULL, NULL,
					    &ps->run, ps->quiet.f))
				break;
			if (shows(&ps->run, ps->id, true) >= 0)
				hit = order[i];
		}
	}
	fz_strategies_free(x);
	if (hit != -2 && keep)
		*keep = s;
	else
		scn_free(s);
	return hit;
}

/* --- writing ----------------------------------------------------------------------------------- */

static char *rules_text(uint64_t rules)
{
	char buf[512] = "";

	for (int i = 0; i < KP_RULE__COUNT; i++)
		if (rules & (1ULL << i))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 buf[0] ? ", " : "", kp_rule_info((enum kp_rule)i)->id);
	return fz_strdup(buf);
}

static void comment_safe(char *s)
{
	for (char *p = s; (p = strstr(p, "*)"));)
		*p = '+';
}

static char *file_name(size_t n, const struct sim_finding *f)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%03zu-%s%s%s.kws", n, sim_finding_kind_name(f->kind),
		 f->site.func && f->kind != SIM_F_INVARIANT ? "-" : "",
		 f->site.func && f->kind != SIM_F_INVARIANT ? f->site.func : "");
	for (char *p = buf; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			*p = '_';
	return fz_strdup(buf);
}

static char *what_of(const struct sim_finding *f)
{
	char buf[1400];

	snprintf(buf, sizeof(buf), "%s in %s", sim_finding_kind_name(f->kind), f->context);
	if (f->site.func && f->kind != SIM_F_INVARIANT)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (%s:%d %s)",
			 f->site.file ? f->site.file : "?", f->site.line, f->site.func);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ": %.*s",
		 (int)strcspn(f->msg, "\n"), f->msg);
	return fz_strdup(buf);
}

/* The file replays: its run, following its schedule, shows the finding again. */
static bool replays(const char *text, const struct kw_model *m, const char *id, FILE *err)
{
	struct scn *s = scn_parse("replay.kws", text, strlen(text), err);
	struct scn_run run = { 0 };
	bool ok = false;

	if (!s)
		return false;
	s->replay = true;
	s->cfg.strategy = SIM_STRATEGY_REPLAY;
	if (!scn_run(s, m, &run, err))
		ok = run.end != SIM_END_DIVERGED && shows(&run, id, true) >= 0;
	scn_run_free(&run);
	scn_free(s);
	return ok;
}

/*
 * The shrunk scenario without its schedule, explored on variant m with
 * the portfolio: runs to the first that shows the finding, matched without
 * the kernel's line (lines differ between variants). It does not run there
 * when its faithful run fails (an API the variant lacks).
 */
static void cross(struct fz_cross *c, const char *text, const struct kw_model *m,
		  const char *loose, const struct fz_opts *o, struct fz_quiet *q)
{
	struct scn *s0 = scn_parse("cross.kws", text, strlen(text), q->f), *s = NULL;
	struct xs_params p = { .kind = XS_PORTFOLIO, .seed = o->seed, .depth = 3,
			       .preemptions = 2 };
	struct scn_run run = { 0 };
	struct xs *x = NULL;

	c->kernel = fz_strdup(m->name);
	c->error = true;
	if (s0)
		s = scn_parse("cross.kws", text, s0->schedule_at, q->f);
	scn_free(s0);
	if (!s || xs_calibrate(&p, s, m, &run, q->f))
		goto out;
	x = xs_new(&p);
	if (!x)
		goto out;
	c->error = false;
	for (uint64_t r = 0; r < o->cross_runs && !c->shown; r++) {
		struct sim_config cfg = s->cfg;

		cfg.keep_trace = false;
		cfg.drop_decisions = true;
		cfg.max_steps = o->max_steps;
		xs_begin(x, r, &cfg);
		run.config = &cfg;
		c->runs = r + 1;
		/* a schedule the program cannot go on in (the scenario's own error) shows nothing */
		fz_quiet_rewind(q);
		if (!scn_run(s, m, &run, q->f))
			c->shown = shows(&run, loose, false) >= 0;
	}
out:
	xs_free(x);
	scn_run_free(&run);
	scn_free(s);
}

static void add_cross(struct fz_finding *nf, const char *text, const struct kw_model *own,
		      const char *loose, const struct fz_opts *o, struct fz_quiet *q)
{
	size_t n = kw_model_count() + kw_tree_count();

	nf->cross = calloc(n, sizeof(*nf->cross));
	if (!nf->cross)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct kw_model *m = i < kw_model_count() ? kw_model_get(i)
								: kw_tree_get(i - kw_model_count());

		if (m == own || !strcmp(m->name, own->name))
			continue;
		cross(&nf->cross[nf->ncross++], text, m, loose, o, q);
	}
}

static char *cross_text(const struct fz_finding *nf)
{
	char buf[2048] = "";

	for (size_t k = 0; k < nf->ncross; k++) {
		const struct fz_cross *c = &nf->cross[k];
		size_t l = strlen(buf);

		if (c->error)
			snprintf(buf + l, sizeof(buf) - l, "%s%s: does not run there", l ? "; " : "",
				 c->kernel);
		else if (c->shown)
			snprintf(buf + l, sizeof(buf) - l, "%s%s: shown after %llu runs", l ? "; " : "",
				 c->kernel, (unsigned long long)c->runs);
		else
			snprintf(buf + l, sizeof(buf) - l, "%s%s: not shown in %llu runs",
				 l ? "; " : "", c->kernel, (unsigned long long)c->runs);
	}
	return fz_strdup(buf);
}

static int write_file(const struct fz_opts *o, const struct fz_finding *nf, FILE *err)
{
	char path[4096];
	struct outfile out;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", o->out_dir, nf->file);
	f = outfile_open(&out, path);
	if (!f || (fputs(nf->text, f), outfile_close(&out, true))) {
		fprintf(err, "kwsim fuzz: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

struct fz_finding *fz_finding_add(struct fz_result *r)
{
	if (r->nf == r->capf) {
		r->capf = r->capf ? 2 * r->capf : 8;
		r->f = realloc(r->f, r->capf * sizeof(*r->f));
		if (!r->f)
			abort();
	}
	memset(&r->f[r->nf], 0, sizeof(r->f[0]));
	return &r->f[r->nf++];
}

/* A finding seen before: counted once per run that shows it. Whether it was. */
static bool counted(struct fz_result *r, const struct fz_seen *sn)
{
	for (size_t k = 0; k < r->nf; k++) {
		if (!strcmp(r->f[k].id, sn->id)) {
			/* a run counts once for each of its distinct findings */
			if (!(sn->fi && shows(sn->run, sn->id, true) < (long)sn->fi))
				r->f[k].count++;
			return true;
		}
	}
	return false;
}

/* A new finding's entry, as it was found. */
static struct fz_finding *new_finding(struct fz_result *r, const struct fz_seen *sn)
{
	struct fz_finding *nf = fz_finding_add(r);

	nf->id = fz_strdup(sn->id);
	nf->what = what_of(&sn->run->findings[sn->fi]);
	nf->rules = kp_contract(sn->p);
	nf->misuse = nf->rules != 0;
	nf->program = sn->program;
	nf->schedules = r->st.runs;
	nf->count = 1;
	nf->depth = -1;
	nf->stmts_before = kp_size(sn->p);
	if (nf->misuse)
		r->st.misuse_findings++;
	else
		r->st.findings++;
	return nf;
}

/*
 * The program, cut while the same finding shows and the contract holds,
 * into *cur; then the last test, which keeps its scenario in *fs. Whether
 * the finding showed again.
 */
static bool shrink_program(struct pshrink *ps, struct fz_finding *nf, const struct fz_seen *sn,
			   struct kp *cur, struct scn **fs)
{
	const struct fz_opts *o = ps->o;
	struct kp q;
	int jj;

	for (unsigned int c = 0; ps->runs < o->shrink_runs && c < ncandidates(cur);) {
		if (!candidate(cur, c, &q, o->misuse)) {
			c++;
			continue;
		}
		kp_normalize(&q);
		if (!memcmp(&q, cur, sizeof(q)) || (!nf->misuse && kp_contract(&q)) ||
		    test(ps, &q, NULL) == -2) {
			c++;
			continue;
		}
		*cur = q;	/* the same candidate number is next: the next statement */
	}
	nf->stmts_after = kp_size(cur);
	ps->runs = 0;	/* the last test has a budget of its own */
	jj = test(ps, cur, fs);
	if (jj == -2) {
		/* the budget ran out before the last test: the program as it was found */
		*cur = *sn->p;
		nf->stmts_after = nf->stmts_before;
		ps->runs = 0;
		ps->j0 = sn->schedule;
		jj = test(ps, cur, fs);
	}
	return jj != -2 && *fs;
}

/* The replay file's text: the scenario with its schedule, shrunk by xshrink where it may be. */
static char *schedule_text(struct pshrink *ps, struct fz_finding *nf, struct scn *fs,
			   struct xshrink_result *sh)
{
	long at = shows(&ps->run, ps->id, true);
	char target[512], *text = NULL;
	size_t tlen = 0;
	FILE *mem;

	xf_bug(&ps->run.findings[at], target, sizeof(target));
	if (!xshrink(fs, ps->m, &ps->run, target, ps->o->xshrink_runs, sh)) {
		bool cut = sh->after.statements != sh->before.statements ||
			   sh->after.programs != sh->before.programs ||
			   sh->after.declarations != sh->before.declarations;

		nf->depth = (int)sh->after.deviations;
		if (nf->misuse || !cut) {
			text = fz_strdup(sh->text);
			nf->schedule_shrunk = true;
		}
	}
	if (!text) {
		mem = memstream_open(&text, &tlen);
		scn_write_with_schedule(mem, fs, &ps->run, NULL);
		fclose(mem);
	}
	return text;
}

/* The file's comment: what was found, where, how to replay it and run the campaign again. */
static char *comment_text(const struct fz_finding *nf, const struct fz_seen *sn,
			  const struct kw_model *m, const struct fz_opts *o, const char *name)
{
	char strat[64], *rules = rules_text(nf->rules), *ct = cross_text(nf), *comment;
	size_t len;
	FILE *mem = memstream_open(&comment, &len);

	fprintf(mem, "Found by kwsim fuzz: %s\n   %s\n", sn->id, nf->what);
	fprintf(mem, "   kernel %s, seed %llu: program %llu of the campaign (%s), after %llu "
		"schedules\n", m->name, (unsigned long long)o->seed,
		(unsigned long long)sn->program, fz_schedule_name(sn->schedule, strat, sizeof(strat)),
		(unsigned long long)nf->schedules);
	if (nf->misuse)
		fprintf(mem, "   a MISUSE finding: the program breaks the contract (%s; "
			"tools/prog/CONTRACT.md)\n", rules);
	else
		fprintf(mem, "   an implementation finding: the program respects the API's contract\n");
	fprintf(mem, "   shrunk from %zu to %zu statements; %s", nf->stmts_before, nf->stmts_after,
		nf->schedule_shrunk ? "schedule shrunk by xshrink" :
		"schedule as found (xshrink would cut statements the contract needs)");
	if (nf->depth >= 0)
		fprintf(mem, ", bug depth %d", nf->depth);
	fprintf(mem, "\n   replay: kwsim replay %s\n", name);
	fprintf(mem, "   campaign: kwsim fuzz --kernel %s --seed %llu --runs %llu --schedules %u "
		"--max-steps %llu --cpus %u --corpus-max %zu%s\n", m->name,
		(unsigned long long)o->seed, (unsigned long long)sn->program + 1, o->schedules,
		(unsigned long long)o->max_steps, o->max_cpus, o->corpus_max,
		o->misuse ? " --misuse" : "");
	if (o->njobs > 1)
		fprintf(mem, "   (stream %u of %u: job %u of --jobs %u, or --shard %u/%u)\n",
			o->job, o->njobs, o->job, o->njobs, o->job, o->njobs);
	fprintf(mem, "   other variants: %s", ct[0] ? ct : "none built in");
	fclose(mem);
	free(rules);
	free(ct);
	comment_safe(comment);
	return comment;
}

/* text, its trailing newlines cut, with the comment after the schedule section. */
static char *with_comment(char *text, const char *comment)
{
	size_t tlen, n = strlen(text) + strlen(comment) + 16;
	char *full = malloc(n);

	if (!full)
		abort();
	/* after the schedule section: the scenario and its schedule stay as shrinking left them */
	while (tlen = strlen(text), tlen && text[tlen - 1] == '\n')
		text[tlen - 1] = '\0';
	snprintf(full, n, "%s\n\n(* %s *)\n", text, comment);
	return full;
}

int fz_finding_seen(struct fz_result *r, const struct fz_seen *sn, const struct kw_model *m,
		    const struct fz_opts *o, FILE *err)
{
	const struct sim_finding *f = &sn->run->findings[sn->fi];
	struct pshrink ps = { .o = o, .m = m, .id = sn->id, .pseed = sn->pseed, .j0 = sn->schedule };
	struct fz_finding *nf;
	struct kp cur = *sn->p;
	struct scn *fs = NULL;
	struct xshrink_result sh = { 0 };
	char loose[1400], *comment, *text, *name;
	int rc = 0;

	if (counted(r, sn))
		return 0;
	nf = new_finding(r, sn);
	ps.misuse = nf->misuse;
	identity(f, loose, sizeof(loose), false);
	if (!shrink_program(&ps, nf, sn, &cur, &fs)) {
		/* a finding that does not show again: reported, with no file */
		fz_quiet_free(&ps.quiet);
		scn_run_free(&ps.run);
		return 0;
	}
	text = schedule_text(&ps, nf, fs, &sh);
	if (o->cross_runs)
		add_cross(nf, text, m, loose, o, &ps.quiet);
	name = file_name(r->nf, f);
	comment = comment_text(nf, sn, m, o, name);
	nf->text = with_comment(text, comment);
	if (!replays(nf->text, m, sn->id, ps.quiet.f))
		fprintf(err, "kwsim fuzz: warning: the file of %s does not replay\n", sn->id);
	if (o->out_dir) {
		nf->file = name;
		name = NULL;
		rc = write_file(o, nf, err);
	}
	if (o->on_finding)
		o->on_finding(o->on_finding_arg, nf);
	free(name);
	free(comment);
	free(text);
	xshrink_result_free(&sh);
	scn_free(fs);
	scn_run_free(&ps.run);
	fz_quiet_free(&ps.quiet);
	return rc;
}
