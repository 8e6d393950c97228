/*
 * Shrinking: shrink.h says what and why. The state is one candidate that
 * shows the target (a parse of its text and the log its run made); every
 * step proposes an edit of it, runs it with the lenient follower and takes
 * it, log and all, when it still shows the target and costs less.
 */
#include "shrink.h"
#include "finding.h"
#include "lib/util.h"

#include <model.h>
#include <sim/trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the lenient follower ------------------------------------------------------------------ */

struct follow {
	const struct sim_decision *log;
	size_t n;
	bool off;			/* a question did not fit: faithful from there on */
	/* what the run answered */
	size_t deviations, preemptions, stalls;
	uint64_t stall_ns, stall_each[XSHRINK_STALLS_SHOWN];
	int16_t *stay;			/* per question: the candidate that is the CPU that ran last, or -1 */
	size_t cap;
};

static unsigned int follow_choose(void *ctx, const struct sim_question *q)
{
	struct follow *f = ctx;
	const struct sim_decision *d = q->index < f->n ? &f->log[q->index] : NULL;
	unsigned int pick = 0;
	int stay = -1;

	if (!f->off && d && d->n == q->n && d->why == q->why && d->pick < q->n)
		pick = d->pick;
	else
		f->off = true;
	if (q->why == SIM_WHY_CPU)
		for (unsigned int i = 0; i < q->n; i++)
			if ((q->ids ? q->ids[i] : (int)i) == q->cpu)
				stay = (int)i;
	if (q->index >= f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		while (f->cap <= q->index)
			f->cap *= 2;
		f->stay = realloc(f->stay, f->cap * sizeof(*f->stay));
		if (!f->stay)
			abort();
	}
	f->stay[q->index] = (int16_t)stay;
	if (pick && q->why == SIM_WHY_STALL) {
		uint64_t d = q->durations ? q->durations[pick] : 0;

		if (f->stalls < XSHRINK_STALLS_SHOWN)
			f->stall_each[f->stalls] = d;
		f->stalls++;
		f->stall_ns += d;
	}
	if (pick) {
		f->deviations++;
		if (stay >= 0 && pick != (unsigned int)stay)
			f->preemptions++;
	}
	return pick;
}

/* --- source spans ---------------------------------------------------------------------------- */

struct span {
	size_t start, end;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static void span_add(struct spans *sp, size_t start, size_t end)
{
	if (end <= start)
		return;
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 64;
		sp->v = realloc(sp->v, sp->cap * sizeof(*sp->v));
		if (!sp->v)
			abort();
	}
	sp->v[sp->n++] = (struct span){ start, end };
}

static void stmt_spans(const struct scn_stmt *st, struct spans *sp)
{
	for (; st; st = st->next) {
		span_add(sp, st->start, st->end);
		stmt_spans(st->body, sp);
		stmt_spans(st->orelse, sp);
	}
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* What a scenario step can cut: every statement, or every program and declaration. */
enum units { U_STATEMENTS, U_PROGRAMS, U_DECLARATIONS, U_PARTS };

static size_t collect(const struct scn *s, enum units u, struct spans *sp)
{
	sp->n = 0;
	if (u == U_STATEMENTS) {
		stmt_spans(s->setup, sp);
		for (int i = 0; i < s->nfns; i++)
			stmt_spans(s->fns[i]->body, sp);
		for (int i = 0; i < s->nprogs; i++)
			stmt_spans(s->progs[i]->body, sp);
	}
	if (u == U_PROGRAMS || u == U_PARTS)
		for (int i = 0; i < s->nprogs; i++)
			span_add(sp, s->progs[i]->start, s->progs[i]->end);
	if (u == U_DECLARATIONS || u == U_PARTS)
		for (int i = 0; i < s->nobjs; i++)
			span_add(sp, s->objs[i]->start, s->objs[i]->end);
	/* in the text's order, whatever order the parse keeps them in */
	if (sp->n)
		qsort(sp->v, sp->n, sizeof(*sp->v), span_cmp);
	return sp->n;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * The text without the spans not kept. A span goes with the blanks around
 * it, and with its line when it had the line to itself, so what is left
 * reads as if written so. *line is the target's line, moved up by the lines
 * cut before it, or 0 when its own line lost its first statement (line_at
 * is where that starts; 0: no line to follow).
 */
static char *cut_text(const char *text, size_t len, const struct spans *sp, const bool *keep,
		      size_t line_at, int *line, size_t *out_len)
{
	struct span *cut = malloc((sp->n ? sp->n : 1) * sizeof(*cut));
	size_t n = 0, o = 0, at = 0;
	char *out = malloc(len + 1);

	if (!cut || !out)
		abort();
	/* the spans not kept, those apart by blanks only made one (sp is in the text's order) */
	for (size_t i = 0; i < sp->n; i++) {
		size_t a = sp->v[i].start, b = sp->v[i].end, c = n ? cut[n - 1].end : 0;

		if (keep[i])
			continue;
		while (n && c < a && blank(text[c]))
			c++;
		if (n && c >= a) {
			if (b > cut[n - 1].end)
				cut[n - 1].end = b;
			continue;
		}
		cut[n++] = (struct span){ a, b };
	}
	/* each with its blanks, and its line when nothing else is on it */
	for (size_t i = 0; i < n; i++) {
		size_t a = cut[i].start, b = cut[i].end, j = a, k = b;
		bool left, right;

		while (j > 0 && blank(text[j - 1]))
			j--;
		while (k < len && blank(text[k]))
			k++;
		left = j == 0 || text[j - 1] == '\n';
		right = k == len || text[k] == '\n';
		if (left && right)
			cut[i] = (struct span){ j, k < len ? k + 1 : k };
		else if (right)
			cut[i] = (struct span){ j, b };
		else
			cut[i] = (struct span){ a, k };
	}
	for (size_t i = 0; i < n; i++) {
		size_t a = cut[i].start > at ? cut[i].start : at, b = cut[i].end;

		if (b <= at)
			continue;
		if (line_at && a <= line_at && line_at < b)
			*line = 0;
		for (size_t c = a; c < b && line_at && c < line_at && *line; c++)
			*line -= text[c] == '\n';
		memcpy(out + o, text + at, a - at);
		o += a - at;
		at = b;
	}
	memcpy(out + o, text + at, len - at);
	o += len - at;
	out[o] = '\0';
	*out_len = o;
	free(cut);
	return out;
}

/* Where line 'line' of text starts, past its blanks: 0 for a line not there. */
static size_t line_start(const char *text, size_t len, int line)
{
	size_t i = 0;

	for (int l = 1; l < line && i < len; i++)
		l += text[i] == '\n';
	while (i < len && blank(text[i]))
		i++;
	return line > 0 && i < len ? i : 0;
}

/* --- the state ------------------------------------------------------------------------------- */

struct cand {
	struct scn *s;			/* the parse of the text (s->text) */
	struct sim_decision *log;	/* what its run answered */
	size_t nlog;
	int16_t *stay;			/* per decision: follow's stay */
	struct xshrink_measure m;
	int line;			/* the target's line, when its site is in the scenario */
};

struct shrink {
	const struct kw_model *m;
	const char *path;
	struct sim_config cfg;		/* every run's: found's, with the follower */
	unsigned int era;		/* the scenario's era setting (--set era too): not in cfg */
	uint64_t max_steps;		/* the file's own limit: the final run's */
	bool cut_short;			/* the original run was */
	FILE *quiet;			/* where candidates' parse and run errors go */
	/* the target */
	bool cond;
	enum sim_finding_kind kind;
	char func[128];
	char context[24];
	bool in_scn;			/* its site is a line of the scenario: cur.line */
	bool ranges_sampled;		/* a search passed a range: its values between untried */
	int kline;			/* else its line in the kernel code */
	uint64_t budget, runs;
	struct follow fol;
	struct scn_run run;
	struct cand cur;
	struct spans spans;		/* the units of the scenario step under way */
	enum units units;
	struct sim_decision *tmp;	/* a schedule being tried */
	size_t tmp_cap;
	uint64_t cuts;			/* scenario steps taken */
};

/*
 * A candidate's scenario, from its text. The run's settings are cfg's, but
 * for the era, which the scenario holds (the variant's unless set): a
 * --set era is in no text, so it is given again.
 */
static struct scn *parse_candidate(const struct shrink *sh, const char *path, const char *text,
				   size_t len)
{
	struct scn *t = scn_parse(path, text, len, sh->quiet);

	if (t && !t->era)
		t->era = sh->era;
	return t;
}

static const char *site_func(const struct sim_finding *f)
{
	return f->site.func ? f->site.func : "-";
}

static int site_line(const struct sim_finding *f)
{
	return f->site.func ? f->site.line : 0;
}

static bool site_in(const struct sim_finding *f, const struct scn *s)
{
	return f->site.file && !strcmp(f->site.file, s->path);
}

/* The target's finding in the run of s, its site at scenario line 'line'; NULL if none. */
static const struct sim_finding *target_in(const struct shrink *sh, const struct scn *s,
					   const struct scn_run *run, int line)
{
	for (size_t i = 0; i < run->nfindings; i++) {
		const struct sim_finding *f = &run->findings[i];

		if (f->kind == sh->kind && !strcmp(site_func(f), sh->func) &&
		    !strcmp(f->context, sh->context) && site_in(f, s) == sh->in_scn &&
		    site_line(f) == (sh->in_scn ? line : sh->kline))
			return f;
	}
	return NULL;
}

/* Whether the run of s shows the target. */
static bool shows(const struct shrink *sh, const struct scn *s, const struct scn_run *run, int line)
{
	return sh->cond ? xf_condition_witness(s, run) : target_in(sh, s, run, line) != NULL;
}

static bool spent(const struct shrink *sh)
{
	return sh->runs >= sh->budget;
}

/* One more candidate, if the budget allows: a text that does not parse counts too. */
static bool spend(struct shrink *sh)
{
	if (spent(sh))
		return false;
	sh->runs++;
	return true;
}

static void count_size(const struct scn *s, struct xshrink_measure *m)
{
	struct spans sp = { 0 };

	m->statements = collect(s, U_STATEMENTS, &sp);
	m->programs = collect(s, U_PROGRAMS, &sp);
	m->declarations = collect(s, U_DECLARATIONS, &sp);
	free(sp.v);
}

/*
 * Run s with the follower over log; true when it shows the target with its
 * site at line, with what it cost in *m and its log in sh->run.
 */
uint64_t xshrink_step_bound(uint64_t points, uint64_t max_steps)
{
	uint64_t b = points < (UINT64_MAX - XSHRINK_STEP_SLACK) / XSHRINK_STEP_FACTOR ?
		     XSHRINK_STEP_FACTOR * points + XSHRINK_STEP_SLACK : UINT64_MAX;

	return max_steps && max_steps < b ? max_steps : b;
}

static bool run_shows(struct shrink *sh, const struct scn *s, const struct sim_decision *log,
		      size_t n, int line, struct xshrink_measure *m)
{
	const struct sim_rec *r;
	size_t nr;

	sh->fol.log = log;
	sh->fol.n = n;
	sh->fol.off = false;
	sh->fol.deviations = sh->fol.preemptions = sh->fol.stalls = 0;
	sh->fol.stall_ns = 0;
	sh->run.config = &sh->cfg;
	if (scn_run(s, sh->m, &sh->run, sh->quiet))
		return false;
	if ((!sh->cut_short && scn_cut_short(&sh->run)) || sh->run.end == SIM_END_DIVERGED ||
	    !shows(sh, s, &sh->run, line))
		return false;
	memset(m, 0, sizeof(*m));
	m->stalls = sh->fol.stalls;
	m->stall_ns = sh->fol.stall_ns;
	memcpy(m->stall_each, sh->fol.stall_each, sizeof(m->stall_each));
	m->deviations = sh->fol.deviations;
	m->preemptions = sh->fol.preemptions;
	m->decisions = sh->run.nlog;
	r = sim_trace_records();
	nr = sim_trace_count();
	for (size_t i = 0; i < nr; i++)
		m->switches += r[i].type == REC_SCHED_SWITCH;
	for (size_t i = 0; i < sh->run.nlog; i++)
		if (sh->run.log[i].why == SIM_WHY_RANGE)
			m->range_steps += sh->run.log[i].pick;
	count_size(s, m);
	return true;
}

/* The run just made (run_shows) is the current candidate's from now on. */
static void keep_run(struct shrink *sh, const struct xshrink_measure *m)
{
	struct cand *c = &sh->cur;
	size_t n = sh->run.nlog;

	c->log = realloc(c->log, (n ? n : 1) * sizeof(*c->log));
	c->stay = realloc(c->stay, (n ? n : 1) * sizeof(*c->stay));
	if (!c->log || !c->stay)
		abort();
	if (n) {
		memcpy(c->log, sh->run.log, n * sizeof(*c->log));
		memcpy(c->stay, sh->fol.stay, n * sizeof(*c->stay));
	}
	c->nlog = n;
	c->m = *m;
}

/* --- delta debugging ---------------------------------------------------------------------------- */

/*
 * ddmin over the units of the current candidate: units() counts them (and
 * may note what they are), try() runs the candidate that keeps those marked
 * and takes it if it is better. After a success the units are counted anew,
 * since the candidate taken has its own.
 */
static bool ddmin(struct shrink *sh, size_t (*units)(struct shrink *sh),
		  bool (*try)(struct shrink *sh, const bool *keep))
{
	bool progress = false, *keep = NULL;
	size_t n = 2;

	for (;;) {
		size_t m = units(sh);
		bool ok = false;

		if (!m || spent(sh))
			break;
		keep = realloc(keep, m * sizeof(*keep));
		if (!keep)
			abort();
		if (n > m)
			n = m;
		/* each part alone */
		for (size_t i = 0; n > 1 && i < n && !ok; i++) {
			for (size_t u = 0; u < m; u++)
				keep[u] = u >= i * m / n && u < (i + 1) * m / n;
			if ((ok = try(sh, keep)))
				n = 2;
		}
		/* all but each part (with two parts, that is the other part: tried) */
		for (size_t i = 0; n != 2 && i < n && !ok; i++) {
			for (size_t u = 0; u < m; u++)
				keep[u] = !(u >= i * m / n && u < (i + 1) * m / n);
			if ((ok = try(sh, keep)))
				n = n > 3 ? n - 1 : 2;
		}
		if (ok) {
			progress = true;
			continue;
		}
		if (n >= m)
			break;
		n = 2 * n < m ? 2 * n : m;
	}
	free(keep);
	return progress;
}

/* --- the schedule ---------------------------------------------------------------------------------- */

static int measure_cmp(const struct xshrink_measure *a, const struct xshrink_measure *b)
{
	const uint64_t x[] = { a->stalls, a->stall_ns, a->deviations, a->preemptions, a->decisions,
			       a->switches, a->range_steps };
	const uint64_t y[] = { b->stalls, b->stall_ns, b->deviations, b->preemptions, b->decisions,
			       b->switches, b->range_steps };

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The current log, in sh->tmp, to edit into a candidate. */
static struct sim_decision *tmp_log(struct shrink *sh)
{
	if (sh->tmp_cap < sh->cur.nlog || !sh->tmp) {
		sh->tmp_cap = sh->cur.nlog ? sh->cur.nlog : 1;
		sh->tmp = realloc(sh->tmp, sh->tmp_cap * sizeof(*sh->tmp));
		if (!sh->tmp)
			abort();
	}
	if (sh->cur.nlog)
		memcpy(sh->tmp, sh->cur.log, sh->cur.nlog * sizeof(*sh->tmp));
	return sh->tmp;
}

/* A schedule for the current scenario, taken if the run costs less. */
static bool try_schedule(struct shrink *sh, const struct sim_decision *log, size_t n)
{
	struct xshrink_measure m;

	if (!spend(sh) || !run_shows(sh, sh->cur.s, log, n, sh->cur.line, &m) ||
	    measure_cmp(&m, &sh->cur.m) >= 0)
		return false;
	keep_run(sh, &m);
	return true;
}

static size_t deviations(struct shrink *sh)
{
	size_t n = 0;

	for (size_t i = 0; i < sh->cur.nlog; i++)
		n += sh->cur.log[i].pick != 0;
	return n;
}

static bool try_deviations(struct shrink *sh, const bool *keep)
{
	struct sim_decision *log = tmp_log(sh);

	for (size_t i = 0, j = 0; i < sh->cur.nlog; i++)
		if (log[i].pick && !keep[j++])
			log[i].pick = 0;
	return try_schedule(sh, log, sh->cur.nlog);
}

static size_t stalls(struct shrink *sh)
{
	size_t n = 0;

	for (size_t i = 0; i < sh->cur.nlog; i++)
		n += sh->cur.log[i].why == SIM_WHY_STALL && sh->cur.log[i].pick != 0;
	return n;
}

static bool try_stalls(struct shrink *sh, const bool *keep)
{
	struct sim_decision *log = tmp_log(sh);

	for (size_t i = 0, j = 0; i < sh->cur.nlog; i++)
		if (log[i].why == SIM_WHY_STALL && log[i].pick && !keep[j++])
			log[i].pick = 0;
	return try_schedule(sh, log, sh->cur.nlog);
}

/*
 * Each stall left, shortened: its question's candidates ascend in duration,
 * so each answer below it, the shortest first, is a shorter hold.
 */
static bool shorten_stalls(struct shrink *sh)
{
	bool progress = false;

	for (size_t i = 0; i < sh->cur.nlog && !spent(sh); i++) {
		const struct sim_decision d = sh->cur.log[i];
		bool taken = false;

		if (d.why != SIM_WHY_STALL || d.pick < 2)
			continue;
		for (unsigned int p = 1; p < d.pick && !taken && !spent(sh); p++) {
			struct sim_decision *log = tmp_log(sh);

			log[i].pick = (uint16_t)p;
			taken = try_schedule(sh, log, sh->cur.nlog);
		}
		progress |= taken;
	}
	return progress;
}

/* The log up to its last deviation: faithful answers past it change nothing. */
static size_t needed(const struct shrink *sh)
{
	size_t n = sh->cur.nlog;

	while (n && !sh->cur.log[n - 1].pick)
		n--;
	return n;
}

/* The shortest prefix of the log that still shows the target: a binary search on its length. */
static bool truncate_log(struct shrink *sh)
{
	size_t lo = 0, hi = needed(sh);
	bool progress = false;

	while (lo < hi && !spent(sh)) {
		size_t mid = lo + (hi - lo) / 2;

		if (try_schedule(sh, sh->cur.log, mid)) {
			progress = true;
			hi = needed(sh);
		} else {
			lo = mid + 1;
		}
	}
	return progress;
}

/*
 * Each deviation that is left, changed: to the CPU that ran last (no
 * preemption), to each other answer, or moved one question earlier or
 * later where a question of its kind with room for it was answered 0.
 */
static bool vary(struct shrink *sh)
{
	bool progress = false;

	for (size_t i = 0; i < sh->cur.nlog && !spent(sh); i++) {
		const struct sim_decision d = sh->cur.log[i];
		bool taken = false;
		struct sim_decision *log;

		/* a range's value is narrow_ranges()', not each of its up to 65,535 */
		if (!d.pick || d.why == SIM_WHY_RANGE)
			continue;
		for (unsigned int j = 0; j <= d.n && !taken && !spent(sh); j++) {
			/* j == 0: the stay answer first; then the others in order */
			unsigned int pick = j ? j : (unsigned int)(sh->cur.stay[i] > 0 ? sh->cur.stay[i] : 0);

			if (!pick || pick >= d.n || pick == d.pick || (j && (int)pick == sh->cur.stay[i]))
				continue;
			log = tmp_log(sh);
			log[i].pick = (uint16_t)pick;
			taken = try_schedule(sh, log, sh->cur.nlog);
		}
		for (int dir = -1; dir <= 1 && !taken && !spent(sh); dir += 2) {
			size_t k = dir < 0 ? i - 1 : i + 1;

			if ((dir < 0 && !i) || k >= sh->cur.nlog || sh->cur.log[k].pick ||
			    sh->cur.log[k].why != d.why || sh->cur.log[k].n <= d.pick)
				continue;
			log = tmp_log(sh);
			log[k].pick = d.pick;
			log[i].pick = 0;
			taken = try_schedule(sh, log, sh->cur.nlog);
		}
		if (taken) {
			progress = true;
			i = i ? i - 2 : (size_t)-1;	/* look at the one before again: it may have moved there */
		}
	}
	return progress;
}

/*
 * Each range's value that is not its lower bound, brought down: a bisection
 * between the lower bound (not known to show the target) and the value
 * that does, 16 runs at most for 65,535 candidates. The predicate need not
 * be monotone: the result is a smaller value that shows it, not the least.
 */
static bool narrow_ranges(struct shrink *sh)
{
	bool progress = false;

	for (size_t i = 0; i < sh->cur.nlog && !spent(sh); i++) {
		unsigned int lo = 0, hi = sh->cur.log[i].pick;

		if (sh->cur.log[i].why != SIM_WHY_RANGE)
			continue;
		while (hi - lo > 1 && !spent(sh)) {
			unsigned int mid = lo + (hi - lo) / 2;
			struct sim_decision *log = tmp_log(sh);

			log[i].pick = (uint16_t)mid;
			if (try_schedule(sh, log, sh->cur.nlog)) {
				hi = mid;
				progress = true;
			} else {
				lo = mid;
			}
			/* a run taken is the same up to question i: its range is still there */
			if (i >= sh->cur.nlog || sh->cur.log[i].why != SIM_WHY_RANGE)
				break;
		}
	}
	return progress;
}

static bool shrink_schedule(struct shrink *sh)
{
	bool progress = false;

	/* the faithful run first: depth 0 needs no search */
	if (deviations(sh))
		progress |= try_schedule(sh, NULL, 0);
	progress |= narrow_ranges(sh);
	progress |= truncate_log(sh);
	/* time first: a stall dropped, then one shortened */
	progress |= ddmin(sh, stalls, try_stalls);
	progress |= shorten_stalls(sh);
	progress |= ddmin(sh, deviations, try_deviations);
	progress |= vary(sh);
	return progress;
}

/*
 * Below base (a run's log, faithful from position from on), every schedule
 * with k more deviations, in order: a deviation at each question from
 * 'from' on, each answer, then (k > 1) the next at each later question of
 * the run that made. Returns 1 when one shows the target (taken), 0 when
 * none does, -1 when the budget ran out first.
 */
static int search(struct shrink *sh, const struct sim_decision *base, size_t n, size_t from,
		  unsigned int k)
{
	struct sim_decision *log = malloc((n ? n : 1) * sizeof(*log)), *next = NULL;
	struct xshrink_measure m;
	int rc = 0;

	if (!log)
		abort();
	if (n)
		memcpy(log, base, n * sizeof(*log));
	for (size_t i = from; i < n && !rc; i++) {
		/* a range at its upper bound only: not each of its values */
		unsigned int p0 = base[i].why == SIM_WHY_RANGE ? base[i].n - 1u : 1;

		sh->ranges_sampled |= base[i].why == SIM_WHY_RANGE && base[i].n > 2;
		for (unsigned int p = p0; p < base[i].n && !rc; p++) {
			log[i].pick = (uint16_t)p;
			if (!spend(sh)) {
				rc = -1;
			} else if (run_shows(sh, sh->cur.s, log, i + 1, sh->cur.line, &m)) {
				/* fewer deviations than the current schedule's: better */
				keep_run(sh, &m);
				rc = 1;
			} else if (k > 1 && sh->run.nlog > i + 1) {
				size_t nn = sh->run.nlog;

				next = realloc(next, nn * sizeof(*next));
				if (!next)
					abort();
				memcpy(next, sh->run.log, nn * sizeof(*next));
				rc = search(sh, next, nn, i + 1, k - 1);
			}
		}
		log[i].pick = base[i].pick;
	}
	free(next);
	free(log);
	return rc;
}

/*
 * The fewest deviations, by search rather than by cutting (iterative
 * deepening, as a preemption-bounded search enumerates schedules): every
 * schedule with one deviation from the faithful order, then with two, up to
 * XSHRINK_SEARCH_DEPTH and below the current count. Sets *minimal when every
 * schedule with fewer deviations than the result was tried.
 */
static bool search_depth(struct shrink *sh, bool *minimal)
{
	struct xshrink_measure m;
	struct sim_decision *faithful;
	size_t n;
	int rc = 0;

	*minimal = !sh->cur.m.deviations;
	if (*minimal || !spend(sh))
		return false;
	if (run_shows(sh, sh->cur.s, NULL, 0, sh->cur.line, &m)) {
		keep_run(sh, &m);
		*minimal = true;
		return true;
	}
	*minimal = sh->cur.m.deviations == 1;
	n = sh->run.nlog;
	faithful = malloc((n ? n : 1) * sizeof(*faithful));
	if (!faithful)
		abort();
	if (n)
		memcpy(faithful, sh->run.log, n * sizeof(*faithful));
	for (unsigned int k = 1; k <= XSHRINK_SEARCH_DEPTH && k < sh->cur.m.deviations && !rc; k++) {
		rc = search(sh, faithful, n, 0, k);
		/* none with k: the current count is the fewest if it is k + 1; one with k: k is */
		*minimal = rc == 1 || (!rc && sh->cur.m.deviations == k + 1);
	}
	/* a range's values between its bounds were not tried: no claim */
	if (sh->ranges_sampled)
		*minimal = false;
	free(faithful);
	return rc == 1;
}

/* --- the scenario ---------------------------------------------------------------------------------- */

static size_t scenario_units(struct shrink *sh)
{
	return collect(sh->cur.s, sh->units, &sh->spans);
}

/* The scenario without the units not kept, run over the current log; taken if the depth does not grow. */
static bool try_cut(struct shrink *sh, const bool *keep)
{
	const struct scn *s = sh->cur.s;
	size_t len, at = sh->in_scn ? line_start(s->text, s->text_len, sh->cur.line) : 0;
	int line = sh->cur.line;
	char *text = cut_text(s->text, s->text_len, &sh->spans, keep, at, &line, &len);
	struct xshrink_measure m;
	struct scn *t = NULL;

	/* the statement the finding is raised at went: that is no longer the finding */
	if ((sh->in_scn && !line) || !spend(sh)) {
		free(text);
		return false;
	}
	t = parse_candidate(sh, sh->path, text, len);
	free(text);
	if (!t || !run_shows(sh, t, sh->cur.log, sh->cur.nlog, line, &m) ||
	    m.stalls > sh->cur.m.stalls || m.deviations > sh->cur.m.deviations ||
	    m.preemptions > sh->cur.m.preemptions) {
		scn_free(t);
		return false;
	}
	scn_free(sh->cur.s);
	sh->cur.s = t;
	sh->cur.line = line;
	keep_run(sh, &m);
	sh->cuts++;
	return true;
}

static bool shrink_scenario(struct shrink *sh)
{
	bool progress = false;

	/* statements first; then programs and declarations, which are unused once they are gone */
	sh->units = U_STATEMENTS;
	progress |= ddmin(sh, scenario_units, try_cut);
	sh->units = U_PARTS;
	progress |= ddmin(sh, scenario_units, try_cut);
	return progress;
}

/* --- the result ------------------------------------------------------------------------------------ */

char *xshrink_stall_text(const struct xshrink_measure *m)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};
	size_t len;
	char *text;
	FILE *f = memstream_open(&text, &len);

	for (size_t i = 0; i < m->stalls && i < XSHRINK_STALLS_SHOWN; i++) {
		uint64_t v = m->stall_each[i];
		size_t u = 0;

		while (u + 1 < sizeof(units) / sizeof(units[0]) && v < units[u].ns)
			u++;
		if (v % units[u].ns)	/* to three decimals: 4.998ms */
			fprintf(f, "%s%.3f%s", i ? ", " : "", (double)v / (double)units[u].ns,
				units[u].unit);
		else
			fprintf(f, "%s%llu%s", i ? ", " : "", (unsigned long long)(v / units[u].ns),
				units[u].unit);
	}
	if (m->stalls > XSHRINK_STALLS_SHOWN)
		fputs(", ...", f);
	if (fclose(f))
		abort();
	return text;
}

#define SHRINK_MARK "kwsim shrink:"

/*
 * The scenario's text without a comment that an earlier shrink wrote just
 * before the schedule section: shrinking a shrunk file writes one comment.
 */
static char *base_text(const struct scn *s, size_t *len)
{
	size_t end = s->schedule_at, start;
	char *text;

	while (end && (blank(s->text[end - 1]) || s->text[end - 1] == '\n'))
		end--;
	start = end;
	if (end >= 2 && !memcmp(s->text + end - 2, "*)", 2)) {
		for (size_t i = end - 2; i-- > 0;) {
			if (!memcmp(s->text + i, "*)", 2))
				break;
			if (!memcmp(s->text + i, "(* " SHRINK_MARK, 3 + strlen(SHRINK_MARK))) {
				start = i;
				break;
			}
		}
	}
	if (start == end)
		start = end = s->schedule_at;
	*len = s->text_len - (end - start);
	text = malloc(*len + 1);
	if (!text)
		abort();
	memcpy(text, s->text, start);
	memcpy(text + start, s->text + end, s->text_len - end);
	text[*len] = '\0';
	return text;
}

/* Text for a (* ... *) comment: nothing that ends it, no control characters. */
static void comment_text(FILE *f, const char *t)
{
	for (; *t; t++) {
		unsigned char c = (unsigned char)*t;

		if (c == '*' && t[1] == ')')
			fputs("* ", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

void xshrink_print_measures(FILE *f, const char *indent, const struct xshrink_result *r)
{
	static const char *const names[] = {
		"deviations", "preemptions", "decisions", "context switches", "statements",
		"programs", "declarations",
	};
	const size_t before[] = {
		r->before.deviations, r->before.preemptions, r->before.decisions,
		r->before.switches, r->before.statements, r->before.programs,
		r->before.declarations,
	};
	const size_t after[] = {
		r->after.deviations, r->after.preemptions, r->after.decisions, r->after.switches,
		r->after.statements, r->after.programs, r->after.declarations,
	};

	if (r->after.stalls) {
		char *stalls = xshrink_stall_text(&r->after);

		fprintf(f, "%sof them %zu stall%s (a CPU held up): %s\n", indent, r->after.stalls,
			r->after.stalls == 1 ? "" : "s", stalls);
		free(stalls);
	}
	fprintf(f, "%s%-18s %8s %8s\n", indent, "", "before", "after");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(f, "%s%-18s %8zu %8zu\n", indent, names[i], before[i], after[i]);
}

static char *comment(const struct shrink *sh, const struct xshrink_result *r, uint64_t tried)
{
	const char *base = strrchr(sh->path, '/') ? strrchr(sh->path, '/') + 1 : sh->path;
	char *buf;
	size_t len;
	FILE *f = memstream_open(&buf, &len);

	fprintf(f, SHRINK_MARK " shrunk in %llu runs%s, still showing\n   ",
		(unsigned long long)tried, r->budget_spent ? " (all the budget)" : "");
	comment_text(f, sh->cond ? "the witness of its condition" : r->kept);
	fputs("\n   from ", f);
	comment_text(f, base);
	fprintf(f, "\n   bug depth %zu (%s): %zu answer%s other than the faithful one,\n"
		"   %zu of them preempting\n", r->after.deviations,
		r->depth_minimal ? "the fewest" : "not proven the fewest", r->after.deviations,
		r->after.deviations == 1 ? "" : "s", r->after.preemptions);
	xshrink_print_measures(f, "   ", r);
	fputs("   kept: ", f);
	fprintf(f, "%zu of %zu statements, %zu of %zu programs, %zu of %zu declarations",
		r->after.statements, r->before.statements, r->after.programs, r->before.programs,
		r->after.declarations, r->before.declarations);
	if (fclose(f))
		abort();
	return buf;
}

/* The final run, the file written from it and replayed: the result. */
static int finish(struct shrink *sh, struct xshrink_result *out)
{
	struct scn_run replay = { 0 };
	struct xshrink_measure m;
	struct scn *t;
	uint64_t hash, tried = sh->runs;
	FILE *f;
	char *note;

	/* the file's own step limit: the run it writes is this one */
	sh->cfg.max_steps = sh->max_steps;
	sh->runs++;
	if (!run_shows(sh, sh->cur.s, sh->cur.log, sh->cur.nlog, sh->cur.line, &m) ||
	    sh->run.nlog != sh->cur.nlog ||
	    (sh->cur.nlog && memcmp(sh->run.log, sh->cur.log, sh->cur.nlog * sizeof(*sh->cur.log)))) {
		snprintf(out->error, sizeof(out->error), "the shrunk scenario's run with its own step "
			 "limit differs from the one that showed the target");
		return -1;
	}
	out->after = m;
	hash = sh->run.hash;
	if (sh->cond)
		snprintf(out->kept, sizeof(out->kept), "%s", XF_CONDITION_KEY);
	else
		xf_bug(target_in(sh, sh->cur.s, &sh->run, sh->cur.line), out->kept, sizeof(out->kept));
	note = comment(sh, out, tried);
	f = memstream_open(&out->text, &out->len);
	scn_write_with_schedule(f, sh->cur.s, &sh->run, note);
	free(note);
	if (fclose(f))
		abort();

	/* what kwsim replay will do with it: the log alone decides, and the target shows */
	sh->runs++;
	t = parse_candidate(sh, sh->path, out->text, out->len);
	if (t) {
		t->replay = true;
		if (!t->log_strategy)
			t->cfg.strategy = SIM_STRATEGY_REPLAY;
		t->cfg.drop_decisions = true;
	}
	if (!t || scn_run(t, sh->m, &replay, sh->quiet) || replay.end == SIM_END_DIVERGED ||
	    replay.hash != hash || !shows(sh, t, &replay, sh->cur.line)) {
		snprintf(out->error, sizeof(out->error), "the shrunk file does not replay as its run "
			 "went%s%.400s", replay.end == SIM_END_DIVERGED ? ": " : "", replay.divergence);
		scn_run_free(&replay);
		scn_free(t);
		return -1;
	}
	scn_run_free(&replay);
	scn_free(t);
	return 0;
}

/* --- the entry ---------------------------------------------------------------------------------------- */

/* The target by its key (see shrink.h); false with out->error when there is none. */
static bool pick_target(struct shrink *sh, const struct scn *s, const struct scn_run *found,
			const char *target, struct xshrink_result *out)
{
	const struct sim_finding *f = NULL;
	char key[400], bug[400];

	if (target && !strcmp(target, XF_CONDITION_KEY)) {
		sh->cond = true;
	} else if (target) {
		for (size_t i = 0; i < found->nfindings && !f; i++)
			if (!strcmp(xf_key(&found->findings[i], key, sizeof(key)), target) ||
			    !strcmp(xf_bug(&found->findings[i], bug, sizeof(bug)), target))
				f = &found->findings[i];
		if (!f) {
			snprintf(out->error, sizeof(out->error), "the run shows no finding '%.200s'%s",
				 target, found->nfindings ? "" : ": it shows none");
			return false;
		}
	} else if (found->nfindings) {
		f = &found->findings[0];
	} else {
		sh->cond = true;
	}
	if (sh->cond) {
		if (s->quant == Q_NONE || !xf_condition_witness(s, found)) {
			snprintf(out->error, sizeof(out->error), "%s%s", s->quant == Q_NONE ?
				 "the scenario has no condition" :
				 "the run is no witness of its condition (exists not seen, forall or "
				 "~exists not broken)", target ? "" : ", and the run shows no finding: nothing to keep");
			return false;
		}
		snprintf(out->target, sizeof(out->target), "%s", XF_CONDITION_KEY);
		return true;
	}
	sh->kind = f->kind;
	snprintf(sh->func, sizeof(sh->func), "%s", site_func(f));
	snprintf(sh->context, sizeof(sh->context), "%s", f->context);
	sh->in_scn = site_in(f, s);
	if (sh->in_scn)
		sh->cur.line = site_line(f);
	else
		sh->kline = site_line(f);
	xf_bug(f, out->target, sizeof(out->target));
	return true;
}

static void cand_free(struct cand *c)
{
	scn_free(c->s);
	free(c->log);
	free(c->stay);
	memset(c, 0, sizeof(*c));
}

int xshrink(const struct scn *s, const struct kw_model *m, const struct scn_run *found,
	    const char *target, uint64_t budget, struct xshrink_result *out)
{
	struct shrink sh = { .m = m, .path = s->path, .budget = budget ? budget : XSHRINK_BUDGET };
	struct sim_stats st;
	char *text;
	size_t len;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (found->cfg.drop_decisions) {
		snprintf(out->error, sizeof(out->error), "the run kept no decision log to shrink");
		return -1;
	}
	if (found->end == SIM_END_DIVERGED) {
		snprintf(out->error, sizeof(out->error), "the run diverged from its log: %.400s",
			 found->divergence);
		return -1;
	}
	if (!pick_target(&sh, s, found, target, out))
		return -1;
	sh.quiet = fopen("/dev/null", "w");
	if (!sh.quiet) {
		snprintf(out->error, sizeof(out->error), "cannot open /dev/null");
		return -1;
	}
	/* found's settings with the follower; the trace kept, to count its switches */
	sh.cfg = found->cfg;
	sh.era = s->era;
	sh.cfg.chooser = follow_choose;
	sh.cfg.chooser_ctx = &sh.fol;
	/* the replay strategy would answer from a log of the machine's own, before any chooser */
	if (sh.cfg.strategy == SIM_STRATEGY_REPLAY)
		sh.cfg.strategy = SIM_STRATEGY_FAITHFUL;
	sh.cfg.on_point = NULL;
	sh.cfg.on_point_arg = NULL;
	sh.cfg.on_rf = NULL;
	sh.cfg.on_rf_arg = NULL;
	sh.cfg.keep_trace = true;
	sh.cfg.drop_decisions = false;
	sh.max_steps = sh.cfg.max_steps;
	sh.cut_short = scn_cut_short(found);

	/* the run again, from the text, with the follower: what it cost, and that it shows the target */
	text = base_text(s, &len);
	sh.cur.s = parse_candidate(&sh, s->path, text, len);
	free(text);
	sh.runs++;
	if (!sh.cur.s || !run_shows(&sh, sh.cur.s, found->log, found->nlog, sh.cur.line, &out->before)) {
		snprintf(out->error, sizeof(out->error), "%s", !sh.cur.s ?
			 "the scenario's text does not parse on its own" :
			 "the run does not show its target again when its log is followed");
		goto done;
	}
	keep_run(&sh, &out->before);
	/* a candidate runs at most four times as long as the original (shrink.h) */
	sim_get_stats(&st);
	if (!sh.cut_short)
		sh.cfg.max_steps = xshrink_step_bound(st.points, sh.max_steps);

	/* the schedule, then the scenario, again while the scenario step cuts something */
	do
		shrink_schedule(&sh);
	while (shrink_scenario(&sh) && !spent(&sh));
	/* then a search for fewer deviations, and what it makes possible */
	if (search_depth(&sh, &out->depth_minimal)) {
		uint64_t cuts = sh.cuts;

		vary(&sh);
		while (shrink_scenario(&sh) && !spent(&sh))
			shrink_schedule(&sh);
		/* a scenario cut after the search: the search was of another scenario */
		out->depth_minimal &= sh.cuts == cuts;
	}
	out->budget_spent = spent(&sh);
	rc = finish(&sh, out);
	out->runs = sh.runs;
done:
	if (rc) {
		free(out->text);
		out->text = NULL;
		out->len = 0;
	}
	cand_free(&sh.cur);
	scn_run_free(&sh.run);
	free(sh.fol.stay);
	free(sh.spans.v);
	free(sh.tmp);
	fclose(sh.quiet);
	return rc;
}

void xshrink_result_free(struct xshrink_result *r)
{
	free(r->text);
	r->text = NULL;
	r->len = 0;
}
