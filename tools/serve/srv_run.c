/*
 * One run, or one exploration, of a scenario for the server: the same
 * parse, settings and printers as kwsim run --json and kwsim explore
 * --json, into bounded buffers instead of standard output.
 *
 * A run is bounded twice, by work and not by the clock, so that what a
 * request gets is a pure function of what it asked: its scheduling points
 * (max_steps, at most SRV_MAX_STEPS whatever the file says) and the bytes
 * of its result and account (SRV_MAX_OUTPUT each). Past the second, the
 * machine is halted at its next scheduling point, as max_steps would, and
 * the request is refused: a result cut in the middle is no result.
 */
#define _GNU_SOURCE
#include "srv.h"

#include "explore/explore.h"
#include "html/html.h"
#include "scenario/scn.h"

#include <model.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RELEASE_EVERY 64
/*
 * A campaign's bound: each run's steps at most EXPLORE_MAX_STEPS, and all
 * its runs' together at most EXPLORE_BUDGET (shrinking a finding is
 * bounded by runs too: shrink's default budget).
 */
#define EXPLORE_MAX_STEPS 200000
#define EXPLORE_BUDGET	50000000

struct srv_out {
	struct scn_timeline *tl;
	struct html_doc *doc;
	struct srv_result *res;
	size_t since;
	uint64_t released;
	bool halted;
};

static void fail(struct srv_result *out, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct srv_result *out, int status, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out->status = status;
	srv_buf_add(&out->msg, buf, strlen(buf));
	srv_buf_add(&out->msg, "\n", 1);
}

/* Past a bound on bytes: stop the machine, as max_steps would, at its next point. */
static void check_bounds(struct srv_out *o)
{
	if (!o->halted && (o->res->json.overflow || o->res->records.overflow)) {
		o->halted = true;
		sim_halt(SIM_END_STEP_LIMIT);
	}
}

static void release(struct srv_out *o)
{
	uint64_t w = sim_trace_watermark();

	if (w < o->released)
		w = o->released;
	o->released = w;
	o->since = 0;
	scn_timeline_release(o->tl, w);
	html_doc_release(o->doc, w);
	check_bounds(o);
}

static void on_record(void *arg, const struct sim_rec *r)
{
	struct srv_out *o = arg;

	scn_timeline_record(o->tl, r);
	html_doc_record(o->doc, r);
	if (++o->since == RELEASE_EVERY)
		release(o);
}

static void on_event(void *arg, const struct scn_event *ev)
{
	struct srv_out *o = arg;

	scn_timeline_event(o->tl, ev);
	html_doc_event(o->doc, ev);
	if (++o->since == RELEASE_EVERY)
		release(o);
}

static void on_line(void *arg, const struct scn_event *ev)
{
	struct srv_out *o = arg;

	html_doc_line(o->doc, ev);
	if (++o->since == RELEASE_EVERY)
		release(o);
}

/* Parse text and apply q's settings: the scenario, or NULL with out's 400 and why. */
static struct scn *prepare(const char *path, const char *text, size_t len,
			   const struct srv_query *q, bool explore, struct srv_result *out)
{
	struct scn_set sets[3];
	char args[3][SRV_MAX_VALUE + 32];
	size_t n = 0;
	FILE *err = srv_buf_open(&out->msg);
	struct scn *s = scn_parse(path, text, len, err);

	if (s && q->replay) {
		if (!s->has_schedule) {
			fprintf(err, "%s:1:1: error: nothing to replay: the file has no schedule "
				"section\n", path);
			scn_free(s);
			s = NULL;
		} else {
			s->replay = true;
			if (!s->log_strategy)
				s->cfg.strategy = SIM_STRATEGY_REPLAY;
		}
	} else if (s) {
		if (q->kernel) {
			snprintf(args[n], sizeof(args[n]), "kernel=%s", q->kernel);
			sets[n] = (struct scn_set){ args[n], "kernel" };
			n++;
		}
		if (q->strategy && !explore) {
			snprintf(args[n], sizeof(args[n]), "strategy=%s", q->strategy);
			sets[n] = (struct scn_set){ args[n], "strategy" };
			n++;
		}
		if (q->has_seed && !explore) {
			snprintf(args[n], sizeof(args[n]), "seed=%llu", (unsigned long long)q->seed);
			sets[n] = (struct scn_set){ args[n], "seed" };
			n++;
		}
		if (scn_set(s, "serve", sets, n, err)) {
			scn_free(s);
			s = NULL;
		} else if (explore) {
			scn_stall_default(s);	/* as kwsim explore explores it */
		}
	}
	fclose(err);
	if (!s) {
		out->status = 400;
		return NULL;
	}
	{
		uint64_t cap = !explore ? SRV_MAX_STEPS
				: q->runs && EXPLORE_BUDGET / q->runs < EXPLORE_MAX_STEPS
				? EXPLORE_BUDGET / q->runs : EXPLORE_MAX_STEPS;

		if (!s->cfg.max_steps || s->cfg.max_steps > cap)
			s->cfg.max_steps = cap;
	}
	return s;
}

void srv_run(const char *path, const char *text, size_t len, const struct srv_query *q,
	     struct srv_result *out)
{
	struct srv_out o = { .res = out };
	struct scn_run run = { .on_event = on_event, .on_line = on_line, .event_arg = &o };
	const struct kw_model *m;
	FILE *json, *err, *recs, *f;
	struct scn *s;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(s = prepare(path, text, len, q, false, out)))
		return;
	s->cfg.keep_trace = false;
	s->cfg.drop_decisions = true;
	m = kw_model_find(s->kernel);
	snprintf(out->title, sizeof(out->title), "%s", s->name);
	json = srv_buf_open(&out->json);
	o.tl = scn_timeline_begin(json, s, m, true);
	o.doc = html_doc_begin(s, m, SRV_MAX_RECORDS);
	html_doc_watch(o.doc, &run);
	f = srv_buf_open(&out->head);
	html_doc_head(o.doc, f, false);
	fclose(f);
	f = srv_buf_open(&out->whole_head);
	html_doc_head(o.doc, f, true);
	fclose(f);
	recs = srv_buf_open(&out->records);
	html_doc_output(o.doc, recs);
	sim_trace_set_sink(on_record, &o);
	err = srv_buf_open(&out->msg);
	rc = scn_run(s, m, &run, err);
	fclose(err);
	scn_timeline_end(o.tl);
	if (!rc) {
		scn_print_json(json, s, &run);
		f = srv_buf_open(&out->end);
		html_doc_end(o.doc, f, &run, false);
		fclose(f);
	}
	fclose(json);
	fclose(recs);
	html_doc_free(o.doc);
	/* the records written, each ended by ",\n" but the last: no raw newline is inside one */
	for (size_t i = 0; i < out->records.len; i++)
		out->nrecords += out->records.data[i] == '\n';
	out->nrecords += out->records.len && out->records.data[out->records.len - 1] != '\n';
	if (rc) {
		out->status = 422;
	} else if (out->json.overflow || out->records.overflow) {
		fail(out, 422, "the run's result passed the server's limit of %d bytes: "
		     "bound it with a smaller time_limit or max_steps", SRV_MAX_OUTPUT);
	} else if (run.end == SIM_END_DIVERGED) {
		fail(out, 422, "%s: error: the schedule no longer fits the scenario: %s", path,
		     run.divergence);
	} else {
		out->status = 200;
	}
	sim_fini();
	scn_run_free(&run);
	scn_free(s);
}

/* The replay files of a campaign's findings, read back from its temporary directory. */
static void collect(const char *dir, const struct xr *r, struct srv_explored **files,
		    size_t *nfiles)
{
	size_t cap = 0;

	for (size_t v = 0; v < r->nv; v++) {
		for (size_t f = 0; f < r->v[v].nfindings; f++) {
			const struct xr_finding *xf = &r->v[v].findings[f];
			char *path, why[256], *text;
			size_t len;

			if (!xf->file || asprintf(&path, "%s/%s", dir, xf->file) < 0)
				continue;
			text = srv_read_file(path, &len, why, sizeof(why));
			unlink(path);
			free(path);
			if (!text)
				continue;
			if (*nfiles == cap) {
				cap = cap ? 2 * cap : 8;
				*files = realloc(*files, cap * sizeof(**files));
				if (!*files)
					abort();
			}
			(*files)[*nfiles].text = text;
			if (asprintf(&(*files)[*nfiles].what, "%s: %s", r->v[v].kernel, xf->what) < 0)
				abort();
			(*nfiles)++;
		}
	}
}

void srv_explore(const char *path, const char *text, size_t len, const struct srv_query *q,
		 const char *dir, struct srv_result *out, struct srv_explored **files,
		 size_t *nfiles)
{
	struct xc_opts xo = { .runs = q->runs, .shard = 0, .nshards = 1, .out_dir = dir };
	struct xr r = { 0 };
	FILE *err, *json;
	struct scn *s;
	int rc;

	memset(out, 0, sizeof(*out));
	*files = NULL;
	*nfiles = 0;
	if (!(s = prepare(path, text, len, q, true, out)))
		return;
	xo.sp.kind = XS_DEFAULT;
	if (q->strategy && !xs_kind_from_name(q->strategy, &xo.sp.kind)) {
		fail(out, 400, "unknown strategy '%s'", q->strategy);
		scn_free(s);
		return;
	}
	xo.sp.seed = q->has_seed ? q->seed : 0;
	xo.sp.depth = 3;
	xo.sp.preemptions = 2;
	r.nv = 1;
	r.v = calloc(1, sizeof(*r.v));
	if (!r.v || !(r.v->kernel = strdup(kw_model_find(s->kernel)->name)))
		abort();
	err = srv_buf_open(&out->msg);
	rc = xc_run(s, &xo, &r, err);
	fclose(err);
	if (rc) {
		out->status = 422;
	} else {
		json = srv_buf_open(&out->json);
		xr_print_json(json, &r);
		fclose(json);
		collect(dir, &r, files, nfiles);
		out->status = 200;
	}
	xr_free(&r);
	scn_free(s);
}

char *srv_temp_dir(char *why, size_t wlen)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/kwsim-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		abort();
	if (!mkdtemp(dir)) {
		snprintf(why, wlen, "cannot make a temporary directory: %s", strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* --- a result through a pipe ------------------------------------------------------------------- */

static void send_part(FILE *out, const char *data, size_t len)
{
	fprintf(out, "%zu\n", len);
	fwrite(data ? data : "", 1, len, out);
}

void srv_result_send(FILE *out, const struct srv_result *r, const struct srv_explored *files,
		     size_t nfiles)
{
	const struct srv_buf *parts[] = { &r->json, &r->head, &r->whole_head, &r->records, &r->end,
					  &r->msg };

	fprintf(out, "kwsim-result %d %zu %zu\n", r->status, r->nrecords, nfiles);
	send_part(out, r->title, strlen(r->title));
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		send_part(out, parts[i]->data, parts[i]->len);
	for (size_t i = 0; i < nfiles; i++) {
		send_part(out, files[i].text, strlen(files[i].text));
		send_part(out, files[i].what, strlen(files[i].what));
	}
}

/* One part at *at: its bytes (malloc'd, NUL-ended) and length, or NULL when the frame is cut. */
static char *take_part(const char **at, const char *end, size_t *len)
{
	const char *nl = memchr(*at, '\n', (size_t)(end - *at));
	char *p, *stop;
	unsigned long long n;

	if (!nl || nl == *at || **at < '0' || **at > '9')
		return NULL;
	errno = 0;
	n = strtoull(*at, &stop, 10);
	if (errno || stop != nl || n > (size_t)(end - nl - 1))
		return NULL;
	p = malloc(n + 1);
	if (!p)
		abort();
	memcpy(p, nl + 1, n);
	p[n] = '\0';
	*len = n;
	*at = nl + 1 + n;
	return p;
}

static bool take_buf(const char **at, const char *end, struct srv_buf *b)
{
	size_t n;
	char *p = take_part(at, end, &n);

	if (!p)
		return false;
	*b = (struct srv_buf){ .data = p, .len = n, .cap = n + 1, .limit = n + 1 };
	return true;
}

bool srv_result_take(const char *data, size_t len, struct srv_result *r,
		     struct srv_explored **files, size_t *nfiles)
{
	const char *at = data, *end = data + len, *nl = memchr(data, '\n', len);
	struct srv_buf *parts[] = { &r->json, &r->head, &r->whole_head, &r->records, &r->end,
				    &r->msg };
	size_t n, count;
	char *title;
	int status;

	memset(r, 0, sizeof(*r));
	*files = NULL;
	*nfiles = 0;
	if (!nl || sscanf(data, "kwsim-result %d %zu %zu\n", &status, &r->nrecords, &count) != 3 ||
	    count > (size_t)(end - nl))
		return false;
	at = nl + 1;
	if (!(title = take_part(&at, end, &n)))
		return false;
	snprintf(r->title, sizeof(r->title), "%s", title);
	free(title);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!take_buf(&at, end, parts[i]))
			goto cut;
	*files = calloc(count + 1, sizeof(**files));
	if (!*files)
		abort();
	for (; *nfiles < count; (*nfiles)++) {
		struct srv_explored *f = &(*files)[*nfiles];

		if (!(f->text = take_part(&at, end, &n)))
			goto cut;
		if (!(f->what = take_part(&at, end, &n))) {
			free(f->text);
			goto cut;
		}
	}
	r->status = status;
	if (at == end)
		return true;
cut:
	srv_explored_free(*files, *nfiles);
	*files = NULL;
	*nfiles = 0;
	srv_result_free(r);
	return false;
}

void srv_explored_free(struct srv_explored *files, size_t nfiles)
{
	for (size_t i = 0; i < nfiles; i++) {
		free(files[i].text);
		free(files[i].what);
	}
	free(files);
}

void srv_result_free(struct srv_result *r)
{
	srv_buf_free(&r->json);
	srv_buf_free(&r->head);
	srv_buf_free(&r->whole_head);
	srv_buf_free(&r->records);
	srv_buf_free(&r->end);
	srv_buf_free(&r->msg);
}

int srv_error_line(const char *line, const char *path)
{
	size_t n = strlen(path);
	char *end;
	long v;

	if (strncmp(line, path, n) || line[n] != ':')
		return 0;
	v = strtol(line + n + 1, &end, 10);
	return *end == ':' && v > 0 && v < 1000000000 ? (int)v : 0;
}
