/*
 * A campaign's result as a value: printed (text, JSON), written and read
 * back (a shard's DIR/result.txt, a --jobs child's pipe), and merged. The
 * summary is a function of the result alone, never of how it was made: one
 * process, shards merged or --jobs children print the same bytes.
 */
#include "explore.h"
#include "finding.h"
#include "lib/json.h"
#include "lib/util.h"
#include "scenario/scn.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

static void variant_free(struct xr_variant *v)
{
	for (size_t i = 0; i < v->nstates; i++)
		free(v->states[i].text);
	for (size_t i = 0; i < v->nfindings; i++) {
		free(v->findings[i].key);
		free(v->findings[i].token);
		free(v->findings[i].what);
		free(v->findings[i].stall_text);
		free(v->findings[i].file);
	}
	free(v->states);
	free(v->findings);
	free(v->kernel);
	xset_free(&v->traces);
	xset_free(&v->tuples);
	xset_free(&v->rf);
}

void xr_free(struct xr *r)
{
	for (size_t i = 0; i < r->nv; i++)
		variant_free(&r->v[i]);
	free(r->v);
	free(r->name);
	free(r->path);
	free(r->cond_text);
	memset(r, 0, sizeof(*r));
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct xr_state *)a)->text, ((const struct xr_state *)b)->text);
}

static int by_run(const void *a, const void *b)
{
	const struct xr_finding *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->key, y->key);
}

void xr_normalize(struct xr *r)
{
	for (size_t i = 0; i < r->nv; i++) {
		struct xr_variant *v = &r->v[i];

		if (v->nstates)
			qsort(v->states, v->nstates, sizeof(*v->states), by_text);
		if (v->nfindings)
			qsort(v->findings, v->nfindings, sizeof(*v->findings), by_run);
	}
}

/* --- merging ------------------------------------------------------------------------------ */

static void merge_set(struct xset *a, const struct xset *b)
{
	uint64_t *v = xset_sorted(b);

	for (size_t i = 0; i < xset_count(b); i++)
		xset_add(a, v[i]);
	free(v);
}

static void merge_variant(struct xr_variant *a, const struct xr_variant *b)
{
	a->runs += b->runs;
	a->cut_short += b->cut_short;
	/*
	 * dfs and rff are never sharded, so only delay's shards bring this:
	 * each searched its own part, and the whole is searched when all were
	 * (jobs of a campaign, which never exhausts, are alike false)
	 */
	a->exhausted = a->exhausted && b->exhausted;
	for (size_t i = 0; i < b->nstates; i++) {
		size_t j;

		for (j = 0; j < a->nstates && strcmp(a->states[j].text, b->states[i].text); j++)
			;
		if (j == a->nstates) {
			if (a->nstates == a->capstates) {
				a->capstates = a->capstates ? 2 * a->capstates : 8;
				a->states = realloc(a->states, a->capstates * sizeof(*a->states));
				if (!a->states)
					abort();
			}
			a->states[a->nstates++] = (struct xr_state){ xstrdup(b->states[i].text), 0,
								    b->states[i].positive };
		}
		a->states[j].count += b->states[i].count;
	}
	for (size_t i = 0; i < b->nfindings; i++) {
		const struct xr_finding *f = &b->findings[i];
		struct xr_finding *g;
		size_t j;

		for (j = 0; j < a->nfindings && strcmp(a->findings[j].key, f->key); j++)
			;
		if (j == a->nfindings) {
			if (a->nfindings == a->capfindings) {
				a->capfindings = a->capfindings ? 2 * a->capfindings : 8;
				a->findings = realloc(a->findings, a->capfindings * sizeof(*a->findings));
				if (!a->findings)
					abort();
			}
			a->findings[a->nfindings++] = (struct xr_finding){
				.key = xstrdup(f->key), .first = f->first, .seq = f->seq,
				.token = xstrdup(f->token), .what = xstrdup(f->what),
				.file = f->file ? xstrdup(f->file) : NULL, .depth = f->depth,
				.preemptions = f->preemptions, .depth_minimal = f->depth_minimal,
				.stalls = f->stalls, .stall_text = xstrdup(f->stall_text) };
		}
		g = &a->findings[j];
		g->count += f->count;
		/* the first run of the whole is the earliest of the parts' */
		if (f->first < g->first || (f->first == g->first && f->seq < g->seq)) {
			g->first = f->first;
			g->seq = f->seq;
			free(g->token);
			free(g->what);
			free(g->file);
			g->token = xstrdup(f->token);
			g->what = xstrdup(f->what);
			g->file = f->file ? xstrdup(f->file) : NULL;
			g->depth = f->depth;
			g->preemptions = f->preemptions;
			g->depth_minimal = f->depth_minimal;
			g->stalls = f->stalls;
			free(g->stall_text);
			g->stall_text = xstrdup(f->stall_text);
		}
	}
	merge_set(&a->traces, &b->traces);
	merge_set(&a->tuples, &b->tuples);
	merge_set(&a->rf, &b->rf);
}

int xr_merge(struct xr *a, const struct xr *b, char *err, size_t len)
{
	if (a->scn_hash != b->scn_hash) {
		snprintf(err, len, "another scenario (hash %016" PRIx64 ", not %016" PRIx64 ")",
			 b->scn_hash, a->scn_hash);
		return -1;
	}
	if (a->sp.kind != b->sp.kind || a->sp.seed != b->sp.seed || a->sp.depth != b->sp.depth ||
	    a->sp.preemptions != b->sp.preemptions || a->runs_asked != b->runs_asked) {
		snprintf(err, len, "another campaign (strategy, seed, --depth, --preemptions or "
			 "--runs differ)");
		return -1;
	}
	if (a->nv != b->nv) {
		snprintf(err, len, "other kernels");
		return -1;
	}
	for (size_t i = 0; i < a->nv; i++) {
		if (strcmp(a->v[i].kernel, b->v[i].kernel)) {
			snprintf(err, len, "other kernels (%s, not %s)", b->v[i].kernel, a->v[i].kernel);
			return -1;
		}
	}
	for (size_t i = 0; i < a->nv; i++)
		merge_variant(&a->v[i], &b->v[i]);
	a->stopped |= b->stopped;
	a->complete &= b->complete;
	xr_normalize(a);
	return 0;
}

/* --- what it says ------------------------------------------------------------------------- */

static double pct_run_bound(const struct xr_variant *v, unsigned int d)
{
	return xs_pct_bound(v->est_steps, v->est_contexts, d, 1);
}

static uint64_t positive(const struct xr_variant *v)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->nstates; i++)
		if (v->states[i].positive)
			n += v->states[i].count;
	return n;
}

/* herd7: Always if every run satisfies the condition, Sometimes if some, Never if none. */
static const char *observation(const struct xr_variant *v)
{
	uint64_t pos = positive(v);

	return !v->runs || !pos ? "Never" : pos == v->runs ? "Always" : "Sometimes";
}

static bool verdict_ok(const struct xr *r, const struct xr_variant *v)
{
	uint64_t pos = positive(v);

	switch (r->quant) {
	case Q_EXISTS:
		return pos > 0;
	case Q_NOT_EXISTS:
		return pos == 0;
	case Q_FORALL:
		return pos == v->runs;
	default:
		return v->nfindings == 0;
	}
}

static const char *test_word(int quant)
{
	return quant == Q_NOT_EXISTS ? "Forbidden" : quant == Q_FORALL ? "Required" :
	       quant == Q_EXISTS ? "Allowed" : "(no condition)";
}

static size_t nfindings(const struct xr *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nv; i++)
		n += r->v[i].nfindings;
	return n;
}

int xr_status(const struct xr *r)
{
	if (nfindings(r))
		return 1;
	return r->stopped ? 3 : 0;
}

/* Text escaped for a terminal (scn_put_text), as a string. */
static char *escaped(const char *text)
{
	char *buf;
	size_t len;
	FILE *m = memstream_open(&buf, &len);

	scn_put_text(m, text);
	fclose(m);
	return buf;
}

/* One row: a label, then a value per variant, right-aligned in its column. */
struct table {
	FILE *out;
	int label;		/* the label column's width */
	int col[64];
};

static void row(struct table *t, const char *label, const char *const *cells, size_t n)
{
	fprintf(t->out, "%-*s", t->label, label);
	for (size_t i = 0; i < n; i++)
		fprintf(t->out, " %*s", t->col[i], cells[i]);
	fputc('\n', t->out);
}

static void row_u64(struct table *t, const char *label, const struct xr *r,
		    uint64_t (*get)(const struct xr_variant *))
{
	char cells[64][24];
	const char *c[64];

	for (size_t i = 0; i < r->nv && i < 64; i++) {
		snprintf(cells[i], sizeof(cells[i]), "%" PRIu64, get(&r->v[i]));
		c[i] = cells[i];
	}
	row(t, label, c, r->nv < 64 ? r->nv : 64);
}

static uint64_t get_runs(const struct xr_variant *v) { return v->runs; }
static uint64_t get_nstates(const struct xr_variant *v) { return v->nstates; }
static uint64_t get_pos(const struct xr_variant *v) { return positive(v); }
static uint64_t get_neg(const struct xr_variant *v) { return v->runs - positive(v); }
static uint64_t get_traces(const struct xr_variant *v) { return xset_count(&v->traces); }
static uint64_t get_tuples(const struct xr_variant *v) { return xset_count(&v->tuples); }
static uint64_t get_rf(const struct xr_variant *v) { return xset_count(&v->rf); }
static uint64_t get_cut(const struct xr_variant *v) { return v->cut_short; }
static uint64_t get_nfind(const struct xr_variant *v) { return v->nfindings; }

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct states of every variant, sorted, each once (pointers into the variants'). */
static const char **all_states(const struct xr *r, size_t *n)
{
	size_t cap = 0;
	const char **v = NULL;

	*n = 0;
	for (size_t i = 0; i < r->nv; i++)
		cap += r->v[i].nstates;
	v = calloc(cap + 1, sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < r->nv; i++) {
		for (size_t j = 0; j < r->v[i].nstates; j++) {
			size_t k;

			for (k = 0; k < *n && strcmp(v[k], r->v[i].states[j].text); k++)
				;
			if (k == *n)
				v[(*n)++] = r->v[i].states[j].text;
		}
	}
	qsort(v, *n, sizeof(*v), strcmp_ptr);
	return v;
}

static const struct xr_state *find_state(const struct xr_variant *v, const char *text)
{
	for (size_t i = 0; i < v->nstates; i++)
		if (!strcmp(v->states[i].text, text))
			return &v->states[i];
	return NULL;
}

static const char *strategy_text(const struct xr *r, char *buf, size_t len)
{
	const struct xs_ops *ops = xs_ops_of(r->sp.kind);

	snprintf(buf, len, "%s", xs_kind_name(r->sp.kind));
	if (ops && (ops->params & XS_DEPTH))
		snprintf(buf + strlen(buf), len - strlen(buf), ", depth %u", r->sp.depth);
	if (ops && (ops->params & XS_BOUND))
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s %u", ops->bound, r->sp.preemptions);
	return buf;
}

void xr_print(FILE *out, const struct xr *r)
{
	struct table t = { .out = out, .label = 28 };
	const struct xs_ops *ops = xs_ops_of(r->sp.kind);
	size_t nv = r->nv < 64 ? r->nv : 64, nstates, total = nfindings(r);
	const char **states = all_states(r, &nstates);
	char **shown = calloc(nstates + 1, sizeof(*shown)), head[256], strat[128];
	const char *cells[64];
	char *name = escaped(r->name), *path = escaped(r->path), *cond = escaped(r->cond_text);

	if (!shown)
		abort();
	fprintf(out, "kwsim explore: %s (%s)\nstrategy %s, seed %" PRIu64, name, path,
		strategy_text(r, strat, sizeof(strat)), r->sp.seed);
	if (r->runs_asked)
		fprintf(out, ", %" PRIu64 " runs per kernel", r->runs_asked);
	if (r->nshards > 1)
		fprintf(out, ", shard %u/%u", r->shard, r->nshards);
	fputs("\n\n", out);

	/* the outcome tables, a column per kernel */
	snprintf(head, sizeof(head), "Test %s %s", name, test_word(r->quant));
	for (size_t i = 0; i < nstates; i++) {
		shown[i] = escaped(states[i]);
		if ((int)strlen(shown[i]) + 2 > t.label)
			t.label = (int)strlen(shown[i]) + 2;
	}
	if ((int)strlen(head) > t.label)
		t.label = (int)strlen(head);
	for (size_t i = 0; i < nv; i++) {
		t.col[i] = (int)strlen(r->v[i].kernel);
		if (t.col[i] < 10)
			t.col[i] = 10;
		cells[i] = r->v[i].kernel;
	}
	row(&t, head, cells, nv);
	row_u64(&t, "Runs", r, get_runs);
	row_u64(&t, "States", r, get_nstates);
	for (size_t s = 0; s < nstates; s++) {
		char counts[64][24], label[4096];

		for (size_t i = 0; i < nv; i++) {
			const struct xr_state *st = find_state(&r->v[i], states[s]);

			snprintf(counts[i], sizeof(counts[i]), "%" PRIu64, st ? st->count : 0);
			cells[i] = counts[i];
		}
		snprintf(label, sizeof(label), "  %s", shown[s]);
		row(&t, label, cells, nv);
	}
	if (r->quant != Q_NONE) {
		for (size_t i = 0; i < nv; i++)
			cells[i] = verdict_ok(r, &r->v[i]) ? "Ok" : "No";
		row(&t, "Verdict", cells, nv);
		row_u64(&t, "Positive", r, get_pos);
		row_u64(&t, "Negative", r, get_neg);
		for (size_t i = 0; i < nv; i++)
			cells[i] = observation(&r->v[i]);
		row(&t, "Observation", cells, nv);
		fprintf(out, "Condition %s %s\n", scn_quant_name(r->quant), cond);
	} else {
		fputs("(no condition: a state is how a run ended and how many findings it had)\n",
		      out);
	}

	/* the findings */
	fprintf(out, "\nFindings: %zu distinct\n", total);
	row_u64(&t, "  per kernel", r, get_nfind);
	for (size_t i = 0, k = 0; i < r->nv; i++) {
		for (size_t j = 0; j < r->v[i].nfindings; j++) {
			const struct xr_finding *f = &r->v[i].findings[j];

			fprintf(out, "  [%zu] %s: ", ++k, r->v[i].kernel);
			scn_put_text(out, f->key);
			fprintf(out, "\n      first run %" PRIu64 ", seen in %" PRIu64 " run%s\n      ",
				f->first, f->count, f->count == 1 ? "" : "s");
			scn_put_text(out, f->what);
			fprintf(out, "\n      token %s\n", f->token);
			if (f->depth < 0)
				fprintf(out, "      bug depth unknown: shrinking did not show it again\n");
			else if (f->stalls)
				fprintf(out, "      bug depth %s%d (%d stall%s: %s; %d preemption%s)\n",
					f->depth_minimal ? "" : "at most ", f->depth, f->stalls,
					f->stalls == 1 ? "" : "s", f->stall_text ? f->stall_text : "",
					f->preemptions, f->preemptions == 1 ? "" : "s");
			else
				fprintf(out, "      bug depth %s%d (%d preemption%s)\n",
					f->depth_minimal ? "" : "at most ", f->depth, f->preemptions,
					f->preemptions == 1 ? "" : "s");
			if (f->file)
				fprintf(out, "      replay file %s\n", f->file);
		}
	}

	/* coverage */
	fputc('\n', out);
	cells[0] = "";
	for (size_t i = 0; i < nv; i++)
		cells[i] = r->v[i].kernel;
	row(&t, "Coverage", cells, nv);
	row_u64(&t, "  distinct traces", r, get_traces);
	row_u64(&t, "  distinct work states", r, get_tuples);
	row_u64(&t, "  distinct reads-from pairs", r, get_rf);
	for (size_t i = 0; i < nv; i++) {
		if (r->v[i].cut_short) {
			row_u64(&t, "Runs cut short by a limit", r, get_cut);
			break;
		}
	}

	/* what a clean PCT campaign bounds (tpct's: its change points are stalls, tpct.c) */
	for (size_t i = 0; i < r->nv && ops && ops->guarantee; i++) {
		const struct xr_variant *v = &r->v[i];

		if (v->nfindings)
			continue;
		fprintf(out, "\n%s bound on %s: n=%zu steps, k=%u contexts, depth %u: a run finds a "
			"depth-%u bug with probability >= %.3g;\n  %" PRIu64 " runs found none, so a "
			"depth-%u bug would have shown with probability >= %.3g\n",
			ops->guarantee, v->kernel,
			v->est_steps, v->est_contexts, r->sp.depth, r->sp.depth,
			pct_run_bound(v, r->sp.depth), v->runs, r->sp.depth,
			xs_pct_bound(v->est_steps, v->est_contexts, r->sp.depth, v->runs));
	}
	for (size_t i = 0; i < r->nv; i++)
		if (r->v[i].exhausted)
			fprintf(out, "\n%s: the space bounded by %u %s is exhausted after %" PRIu64
				" schedules%s\n", r->v[i].kernel, r->sp.preemptions,
				ops && ops->bound ? ops->bound : "preemptions", r->v[i].runs,
				r->nshards > 1 ? " (this shard's part)" : "");
	if (r->stopped)
		fprintf(out, "\nStopped before the runs asked were done: the summary covers the "
			"runs above\n");
	for (size_t i = 0; i < nstates; i++)
		free(shown[i]);
	free(shown);
	free((void *)states);
	free(name);
	free(path);
	free(cond);
}

static void json_u64_set_count(FILE *out, const char *key, const struct xset *s)
{
	fprintf(out, ",\"%s\":%zu", key, xset_count(s));
}

void xr_print_json(FILE *out, const struct xr *r)
{
	fprintf(out, "{\"kwsim_explore\":%d,\"scenario\":", XR_JSON_VERSION);
	json_str(out, r->name);
	fputs(",\"file\":", out);
	json_str(out, r->path);
	fprintf(out, ",\"scenario_hash\":\"%016" PRIx64 "\",\"strategy\":\"%s\",\"seed\":%" PRIu64
		",\"depth\":%u,\"preemptions\":%u,\"runs_asked\":%" PRIu64
		",\"shard\":%u,\"shards\":%u,\"stopped\":%s,\"complete\":%s", r->scn_hash,
		xs_kind_name(r->sp.kind), r->sp.seed, r->sp.depth, r->sp.preemptions, r->runs_asked,
		r->shard, r->nshards, r->stopped ? "true" : "false", r->complete ? "true" : "false");
	if (r->quant != Q_NONE) {
		fprintf(out, ",\"condition\":{\"quantifier\":\"%s\",\"test\":\"%s\",\"text\":",
			scn_quant_name(r->quant), test_word(r->quant));
		json_str(out, r->cond_text);
		fputc('}', out);
	}
	fputs(",\"kernels\":[", out);
	for (size_t i = 0; i < r->nv; i++) {
		const struct xr_variant *v = &r->v[i];

		fprintf(out, "%s{\"kernel\":", i ? "," : "");
		json_str(out, v->kernel);
		fprintf(out, ",\"runs\":%" PRIu64 ",\"cut_short\":%" PRIu64 ",\"est_steps\":%zu,"
			"\"est_contexts\":%u,\"exhausted\":%s,\"states\":[", v->runs, v->cut_short,
			v->est_steps, v->est_contexts, v->exhausted ? "true" : "false");
		for (size_t j = 0; j < v->nstates; j++) {
			fprintf(out, "%s{\"state\":", j ? "," : "");
			json_state_pairs(out, v->states[j].text, "; ");
			fprintf(out, ",\"count\":%" PRIu64 ",\"positive\":%s}", v->states[j].count,
				v->states[j].positive ? "true" : "false");
		}
		fprintf(out, "],\"positive\":%" PRIu64 ",\"negative\":%" PRIu64, positive(v),
			v->runs - positive(v));
		if (r->quant != Q_NONE)
			fprintf(out, ",\"verdict\":\"%s\",\"observation\":\"%s\"",
				verdict_ok(r, v) ? "Ok" : "No", observation(v));
		fputs(",\"coverage\":{\"traces\":", out);
		fprintf(out, "%zu", xset_count(&v->traces));
		json_u64_set_count(out, "work_states", &v->tuples);
		json_u64_set_count(out, "rf_pairs", &v->rf);
		fputc('}', out);
		if (xs_ops_of(r->sp.kind) && xs_ops_of(r->sp.kind)->guarantee_json && !v->nfindings)
			fprintf(out, ",\"pct_bound\":{\"steps\":%zu,\"contexts\":%u,\"depth\":%u,"
				"\"per_run\":%.6g,\"all_runs\":%.6g}", v->est_steps, v->est_contexts,
				r->sp.depth, pct_run_bound(v, r->sp.depth),
				xs_pct_bound(v->est_steps, v->est_contexts, r->sp.depth, v->runs));
		fputs(",\"findings\":[", out);
		for (size_t j = 0; j < v->nfindings; j++) {
			const struct xr_finding *f = &v->findings[j];

			fprintf(out, "%s{\"key\":", j ? "," : "");
			json_str(out, f->key);
			fprintf(out, ",\"first_run\":%" PRIu64 ",\"count\":%" PRIu64 ",\"token\":",
				f->first, f->count);
			json_str(out, f->token);
			fputs(",\"what\":", out);
			json_str(out, f->what);
			if (f->depth < 0)
				fputs(",\"depth\":null", out);
			else {
				fprintf(out, ",\"depth\":{\"deviations\":%d,\"preemptions\":%d,"
					"\"stalls\":%d,\"stall_durations\":", f->depth, f->preemptions,
					f->stalls);
				json_str(out, f->stall_text ? f->stall_text : "");
				fprintf(out, ",\"fewest\":%s}", f->depth_minimal ? "true" : "false");
			}
			fputs(",\"file\":", out);
			if (f->file)
				json_str(out, f->file);
			else
				fputs("null", out);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	fprintf(out, "],\"finding_count\":%zu,\"status\":%d}\n", nfindings(r), xr_status(r));
}

/* --- the result file: a line per item, tab-separated fields, \t \n \\ escaped ---------------- */

static void put_field(FILE *out, const char *s)
{
	fputc('\t', out);
	for (; s && *s; s++) {
		if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			fputc(*s, out);
	}
}

static void put_set(FILE *out, const char *tag, const struct xset *s)
{
	uint64_t *v = xset_sorted(s);

	for (size_t i = 0; i < xset_count(s); i++)
		fprintf(out, "%s\t%016" PRIx64 "\n", tag, v[i]);
	free(v);
}

#define RESULT_MAGIC "kwsim-explore-result\t1"

int xr_write(FILE *out, const struct xr *r)
{
	fprintf(out, "%s\nscenario\t%016" PRIx64 "\t%d", RESULT_MAGIC, r->scn_hash, r->quant);
	put_field(out, r->name);
	put_field(out, r->path);
	put_field(out, r->cond_text);
	fprintf(out, "\ncampaign\t%d\t%" PRIu64 "\t%u\t%u\t%" PRIu64 "\t%u\t%u\t%d\t%d\n",
		(int)r->sp.kind, r->sp.seed, r->sp.depth, r->sp.preemptions, r->runs_asked, r->shard,
		r->nshards, r->stopped, r->complete);
	for (size_t i = 0; i < r->nv; i++) {
		const struct xr_variant *v = &r->v[i];

		fputs("kernel", out);
		put_field(out, v->kernel);
		fprintf(out, "\t%zu\t%u\t%" PRIu64 "\t%" PRIu64 "\t%d\n", v->est_steps,
			v->est_contexts, v->runs, v->cut_short, v->exhausted);
		for (size_t j = 0; j < v->nstates; j++) {
			fprintf(out, "state\t%" PRIu64 "\t%d", v->states[j].count, v->states[j].positive);
			put_field(out, v->states[j].text);
			fputc('\n', out);
		}
		for (size_t j = 0; j < v->nfindings; j++) {
			const struct xr_finding *f = &v->findings[j];

			fprintf(out, "finding\t%" PRIu64 "\t%u\t%" PRIu64 "\t%d\t%d\t%d\t%d", f->first,
				f->seq, f->count, f->file != NULL, f->depth, f->preemptions,
				f->depth_minimal);
			put_field(out, f->key);
			put_field(out, f->token);
			put_field(out, f->what);
			put_field(out, f->file);
			fprintf(out, "\t%d", f->stalls);
			put_field(out, f->stall_text);
			fputc('\n', out);
		}
		put_set(out, "trace", &v->traces);
		put_set(out, "tuple", &v->tuples);
		put_set(out, "rf", &v->rf);
	}
	fputs("end\n", out);
	return ferror(out) ? -1 : 0;
}

/* Split line (its newline gone) at tabs, unescaping each field in place. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;

	for (char *p = line; n < max;) {
		char *w = p;

		f[n++] = p;
		for (; *p && *p != '\t'; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				*w++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
			} else {
				*w++ = *p;
			}
		}
		if (!*p) {
			*w = '\0';
			break;
		}
		*w = '\0';
		p++;
	}
	return n;
}

static bool num(const char *s, uint64_t *v, int base)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, base);
	return *s && !*end && !errno && *s != '-';
}

int xr_read(FILE *in, struct xr *r, char *err, size_t len)
{
	char *line = NULL, *f[14];
	size_t cap = 0, lineno = 0;
	ssize_t n;
	struct xr_variant *v = NULL;
	bool ended = false, head = false;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	while (!ended && (n = getline(&line, &cap, in)) > 0) {
		uint64_t a[9] = { 0 };
		size_t nf;
		bool ok = true;

		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (lineno == 1) {
			if (strcmp(line, RESULT_MAGIC))
				goto bad;
			continue;
		}
		nf = split(line, f, 14);
		if (!strcmp(f[0], "scenario") && nf == 6) {
			ok = num(f[1], &a[0], 16) && num(f[2], &a[1], 10) && a[1] <= Q_FORALL;
			r->scn_hash = a[0];
			r->quant = (int)a[1];
			r->name = xstrdup(f[3]);
			r->path = xstrdup(f[4]);
			r->cond_text = xstrdup(f[5]);
		} else if (!strcmp(f[0], "campaign") && nf == 10) {
			for (size_t i = 0; i < 9 && ok; i++)
				ok = num(f[i + 1], &a[i], 10);
			ok = ok && a[0] < XS__COUNT && a[6] >= 1 && a[5] < a[6];
			r->sp.kind = (enum xs_kind)a[0];
			r->sp.seed = a[1];
			r->sp.depth = (unsigned int)a[2];
			r->sp.preemptions = (unsigned int)a[3];
			r->runs_asked = a[4];
			r->shard = (unsigned int)a[5];
			r->nshards = (unsigned int)a[6];
			r->stopped = a[7];
			r->complete = a[8];
			head = true;
		} else if (!strcmp(f[0], "kernel") && nf == 7 && head) {
			r->v = realloc(r->v, (r->nv + 1) * sizeof(*r->v));
			if (!r->v)
				abort();
			v = &r->v[r->nv++];
			memset(v, 0, sizeof(*v));
			v->kernel = xstrdup(f[1]);
			for (size_t i = 0; i < 5 && ok; i++)
				ok = num(f[i + 2], &a[i], 10);
			v->est_steps = (size_t)a[0];
			v->est_contexts = (unsigned int)a[1];
			v->runs = a[2];
			v->cut_short = a[3];
			v->exhausted = a[4];
		} else if (!strcmp(f[0], "state") && nf == 4 && v) {
			ok = num(f[1], &a[0], 10) && num(f[2], &a[1], 10);
			if (v->nstates == v->capstates) {
				v->capstates = v->capstates ? 2 * v->capstates : 8;
				v->states = realloc(v->states, v->capstates * sizeof(*v->states));
				if (!v->states)
					abort();
			}
			v->states[v->nstates++] = (struct xr_state){ xstrdup(f[3]), a[0], a[1] != 0 };
		} else if (!strcmp(f[0], "finding") && (nf == 12 || nf == 14) && v) {
			long long depth[3];

			for (size_t i = 0; i < 4 && ok; i++)
				ok = num(f[i + 1], &a[i], 10);
			for (size_t i = 0; i < 3 && ok; i++) {
				char *end;

				depth[i] = strtoll(f[i + 5], &end, 10);
				ok = *f[i + 5] && !*end && depth[i] >= -1 && depth[i] <= INT32_MAX;
			}
			if (v->nfindings == v->capfindings) {
				v->capfindings = v->capfindings ? 2 * v->capfindings : 8;
				v->findings = realloc(v->findings, v->capfindings * sizeof(*v->findings));
				if (!v->findings)
					abort();
			}
			v->findings[v->nfindings++] = (struct xr_finding){
				.first = a[0], .seq = (unsigned int)a[1], .count = a[2],
				.key = xstrdup(f[8]), .token = xstrdup(f[9]), .what = xstrdup(f[10]),
				.file = a[3] ? xstrdup(f[11]) : NULL, .depth = (int)depth[0],
				.preemptions = (int)depth[1], .depth_minimal = depth[2] != 0,
				/* a result written before stalls has none */
				.stalls = nf == 14 ? atoi(f[12]) : 0,
				.stall_text = xstrdup(nf == 14 ? f[13] : "") };
		} else if ((!strcmp(f[0], "trace") || !strcmp(f[0], "tuple") || !strcmp(f[0], "rf")) &&
			   nf == 2 && v) {
			ok = num(f[1], &a[0], 16);
			xset_add(f[0][0] == 'r' ? &v->rf : f[0][1] == 'r' ? &v->traces : &v->tuples,
				 a[0]);
		} else if (!strcmp(f[0], "end") && nf == 1 && head) {
			ended = true;
		} else {
			ok = false;
		}
		if (!ok)
			goto bad;
	}
	if (!ended) {
		snprintf(err, len, "%s", lineno ? "it ends before its last line: cut short?" :
			 "it is empty");
		goto out;
	}
	xr_normalize(r);
	rc = 0;
	goto out;
bad:
	snprintf(err, len, "line %zu: not a kwsim explore result%s", lineno,
		 lineno == 1 ? " (no 'kwsim-explore-result 1' line first)" : "");
out:
	free(line);
	if (rc)
		xr_free(r);
	return rc;
}
