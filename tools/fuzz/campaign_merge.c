/*
 * Streams' results as one campaign's (campaign.h, fz_merge): what the
 * parent of a --jobs campaign does with its children's results, and what
 * kwsim merge does with the streams of --shard outputs, one code for both
 * so that N machines and N processes make the same bytes. Also a stream's
 * result as lines of text (fz_result_write, fz_result_line): the children's
 * pipes and a shard's DIR/result.txt carry it.
 */
#include "campaign.h"
#include "campaign_impl.h"
#include "lib/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- a stream's result as lines ---------------------------------------------------------------- */

void fz_put_str(FILE *out, const char *v)
{
	fputc('\t', out);
	if (!v) {
		fputs("\\0", out);
		return;
	}
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", out);
		else if (*v == '\t')
			fputs("\\t", out);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

char *fz_get_str(char **line)
{
	char *f = *line, *o, *p;

	if (!f)
		return NULL;
	p = strchr(f, '\t');
	*line = p ? p + 1 : NULL;
	if (p)
		*p = '\0';
	if (!strcmp(f, "\\0"))
		return NULL;
	for (o = p = f; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return f;
}

uint64_t fz_get_u64(char **line)
{
	char *f = fz_get_str(line);

	return f ? strtoull(f, NULL, 10) : 0;
}

void fz_result_write(FILE *out, const struct fz_result *r)
{
	const struct fz_stats *s = &r->st;

	fprintf(out, "result\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
		PRIu64 "\t%" PRIu64 "\t%zu\t%zu\t%zu\t%zu\t%d", s->programs, s->runs, s->generated,
		s->mutated, s->spliced, s->rejected, s->cut_short, s->corpus, s->features, s->tuples,
		s->rf_pairs, r->stopped);
	fz_put_str(out, r->first_error);
	fputc('\n', out);
	for (size_t i = 0; i < r->nf; i++) {
		const struct fz_finding *f = &r->f[i];

		fputs("finding", out);
		fz_put_str(out, f->id);
		fz_put_str(out, f->what);
		fz_put_str(out, f->file);
		fprintf(out, "\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%zu\t%d\t%d\n",
			f->misuse, f->rules, f->program, f->schedules, f->count, f->stmts_before,
			f->stmts_after, f->depth, f->schedule_shrunk);
		for (size_t k = 0; k < f->ncross; k++) {
			fputs("cross", out);
			fz_put_str(out, f->cross[k].kernel);
			fprintf(out, "\t%" PRIu64 "\t%d\t%d\n", f->cross[k].runs, f->cross[k].shown,
				f->cross[k].error);
		}
	}
	fputs("end\n", out);
}

static void take_stats(struct fz_result *r, char **p)
{
	struct fz_stats *s = &r->st;
	char *e;

	s->programs = fz_get_u64(p);
	s->runs = fz_get_u64(p);
	s->generated = fz_get_u64(p);
	s->mutated = fz_get_u64(p);
	s->spliced = fz_get_u64(p);
	s->rejected = fz_get_u64(p);
	s->cut_short = fz_get_u64(p);
	s->corpus = (size_t)fz_get_u64(p);
	s->features = (size_t)fz_get_u64(p);
	s->tuples = (size_t)fz_get_u64(p);
	s->rf_pairs = (size_t)fz_get_u64(p);
	r->stopped = fz_get_u64(p) != 0;
	e = fz_get_str(p);
	snprintf(r->first_error, sizeof(r->first_error), "%s", e ? e : "");
}

static void take_finding(struct fz_result *r, char **p)
{
	struct fz_finding *f = fz_finding_add(r);
	char *v;

	f->id = fz_strdup(fz_get_str(p));
	f->what = fz_strdup(fz_get_str(p));
	v = fz_get_str(p);
	f->file = v ? fz_strdup(v) : NULL;
	f->misuse = fz_get_u64(p) != 0;
	f->rules = fz_get_u64(p);
	f->program = fz_get_u64(p);
	f->schedules = fz_get_u64(p);
	f->count = fz_get_u64(p);
	f->stmts_before = (size_t)fz_get_u64(p);
	f->stmts_after = (size_t)fz_get_u64(p);
	v = fz_get_str(p);
	f->depth = v ? atoi(v) : -1;
	f->schedule_shrunk = fz_get_u64(p) != 0;
	if (f->misuse)
		r->st.misuse_findings++;
	else
		r->st.findings++;
}

int fz_result_line(struct fz_result *r, char *line)
{
	char *p = line, *kind = fz_get_str(&p);

	if (!kind)
		return -1;
	if (!strcmp(kind, "result")) {
		take_stats(r, &p);
	} else if (!strcmp(kind, "finding")) {
		take_finding(r, &p);
	} else if (!strcmp(kind, "cross") && r->nf) {
		struct fz_finding *f = &r->f[r->nf - 1];
		struct fz_cross *c;

		f->cross = realloc(f->cross, (f->ncross + 1) * sizeof(*f->cross));
		if (!f->cross)
			abort();
		c = &f->cross[f->ncross++];
		c->kernel = fz_strdup(fz_get_str(&p));
		c->runs = fz_get_u64(&p);
		c->shown = fz_get_u64(&p) != 0;
		c->error = fz_get_u64(&p) != 0;
	} else if (!strcmp(kind, "end")) {
		return 1;
	} else {
		return -1;
	}
	return 0;
}

/* --- the merge ----------------------------------------------------------------------------------- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, n;
	char buf[8192];
	FILE *m;

	if (!f)
		return NULL;
	m = memstream_open(&text, &len);
	while ((n = fread(buf, 1, sizeof(buf), f)))
		fwrite(buf, 1, n, m);
	fclose(f);
	fclose(m);
	return text;
}

/*
 * Finding f's file, in stream part's dir, as out/NNN-... of the merged
 * numbering n (its name in its text too: "replay: kwsim replay NAME").
 */
static int copy_file(const struct fz_part *part, struct fz_finding *f, size_t n, const char *out,
		     const char *cmd, FILE *err)
{
	char from[8300], to[8300], name[300], *text, *at;
	FILE *w;
	int rc = 0;

	snprintf(from, sizeof(from), "%s/%s", part->dir, f->file);
	snprintf(name, sizeof(name), "%03zu%s", n, f->file + strspn(f->file, "0123456789"));
	snprintf(to, sizeof(to), "%s/%s", out, name);
	text = read_text(from);
	if (!text) {
		fprintf(err, "kwsim %s: cannot read %s: %s\n", cmd, from, strerror(errno));
		return 2;
	}
	w = fopen(to, "w");
	at = strstr(text, f->file);
	if (!w || (at ? fprintf(w, "%.*s%s%s", (int)(at - text), text, name,
				at + strlen(f->file)) < 0 : fputs(text, w) == EOF) || fclose(w)) {
		fprintf(err, "kwsim %s: cannot write %s: %s\n", cmd, to, strerror(errno));
		rc = 2;
	}
	free(text);
	free(f->file);
	f->file = fz_strdup(name);
	return rc;
}

/* Finding f of a stream: counted into r's of the same identity, or moved to r's end. */
static int merge_finding(struct fz_result *r, struct fz_part *part, struct fz_finding *f,
			 const char *out, const char *cmd, FILE *err)
{
	struct fz_finding *g;

	for (size_t m = 0; m < r->nf; m++) {
		if (!strcmp(r->f[m].id, f->id)) {
			r->f[m].count += f->count;
			return 0;
		}
	}
	g = fz_finding_add(r);
	*g = *f;
	memset(f, 0, sizeof(*f));	/* moved */
	if (g->misuse)
		r->st.misuse_findings++;
	else
		r->st.findings++;
	if (!g->file)
		return 0;
	if (out)
		return copy_file(part, g, r->nf, out, cmd, err);
	if (part->dir) {
		size_t n = strlen(part->dir) + strlen(g->file) + 2;
		char *path = malloc(n);

		if (!path)
			abort();
		snprintf(path, n, "%s/%s", part->dir, g->file);
		free(g->file);
		g->file = path;
	}
	return 0;
}

/* The streams' corpora in turn (each in its load order), up to the bound. */
static int merge_corpus(struct fz_part *p, unsigned int n, size_t max, struct fz_corpus *c,
			FILE *err)
{
	struct fz_corpus *part = calloc(n ? n : 1, sizeof(*part));
	bool more = true;
	int rc = 0;

	if (!part)
		abort();
	fz_corpus_free(c);
	for (unsigned int i = 0; i < n && !rc; i++)
		if (p[i].corpus)
			rc = fz_corpus_load(p[i].corpus, &part[i], max, err);
	for (size_t k = 0; more && !rc; k++) {
		more = false;
		for (unsigned int i = 0; i < n && c->n < max; i++) {
			if (k >= part[i].n)
				continue;
			more = true;
			if (c->n == c->cap) {
				c->cap = c->cap ? 2 * c->cap : 64;
				c->e = realloc(c->e, c->cap * sizeof(*c->e));
				if (!c->e)
					abort();
			}
			c->e[c->n++] = part[i].e[k];
		}
	}
	for (unsigned int i = 0; i < n; i++)
		fz_corpus_free(&part[i]);
	free(part);
	return rc;
}

int fz_merge(struct fz_part *p, unsigned int n, const char *out, struct fz_corpus *c,
	     size_t corpus_max, struct fz_result *r, const char *cmd, FILE *err)
{
	int rc = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct fz_result *s = &p[i].r;

		r->st.programs += s->st.programs;
		r->st.runs += s->st.runs;
		r->st.generated += s->st.generated;
		r->st.mutated += s->st.mutated;
		r->st.spliced += s->st.spliced;
		r->st.rejected += s->st.rejected;
		r->st.cut_short += s->st.cut_short;
		r->st.corpus += s->st.corpus;
		/* the streams' coverage overlaps: the most any reached */
		r->st.features = r->st.features > s->st.features ? r->st.features : s->st.features;
		r->st.tuples = r->st.tuples > s->st.tuples ? r->st.tuples : s->st.tuples;
		r->st.rf_pairs = r->st.rf_pairs > s->st.rf_pairs ? r->st.rf_pairs : s->st.rf_pairs;
		r->stopped |= s->stopped;
		if (!r->first_error[0])
			memcpy(r->first_error, s->first_error, sizeof(r->first_error));
		for (size_t k = 0; k < s->nf && !rc; k++)
			rc = merge_finding(r, &p[i], &s->f[k], out, cmd, err);
	}
	if (c && !rc) {
		rc = merge_corpus(p, n, corpus_max, c, err);
		r->st.corpus = c->n;
	}
	return rc;
}
