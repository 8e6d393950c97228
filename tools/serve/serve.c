/*
 * kwsim serve: the HTTP side (docs/browser.md "kwsim serve").
 *
 *   GET  /                      the library's index (HTML)
 *   GET  /api/scenarios         the library, the variants and strategies (JSON)
 *   GET  /files/ROOT/REL.kws    a scenario's text (text/plain)
 *   GET  /scenario?file=ID      its page: text, run/explore forms, the edit box
 *   GET  /api/run?file=ID&...   one run's document (tools/html/html.h), whole
 *   GET  /api/result?file=ID&.. its result, as kwsim run --json prints it
 *   GET  /play?file=ID&...      the timeline page (tools/html), which plays a run
 *   GET  /api/play?file=ID&...  the run document as server-sent events, paced:
 *                               doc-head, records (arrays), end
 *   GET  /explore?file=ID&...   an exploration: its findings, each playable
 *   GET  /api/explore?...       its summary, as kwsim explore --json prints it
 *   POST /edit                  an edited scenario (form: text, kernel, strategy,
 *                               seed): its page with the parser's errors at their
 *                               lines, or a redirect to its run's page
 *
 * A scenario is named by file=ROOT/REL (lib: the repository's scenarios/,
 * root: --root DIR) or by edit=ID (an edited text the server keeps, the
 * last SRV_MAX_EDITS). Run parameters: kernel (a variant this build has),
 * strategy (run: faithful|random; explore: random|pct|pos|dfs|rff|portfolio|
 *   tpct|delay|pair),
 * seed (0 to 2^63-1), replay=1 (follow the file's schedule), runs (explore:
 * 1 to SRV_MAX_RUNS), ms (playback: milliseconds between chunks, 0 to
 * SRV_MAX_PACE_MS). Anything else is refused with a 4xx and a plain-text reason,
 * and the server goes on serving: see srv.h for the bounds.
 */
#define _GNU_SOURCE
#include "serve.h"
#include "srv.h"
#include "srv_page.h"

#include "lib/util.h"
#include "explore/strategy.h"
#include "lib/jobs.h"
#include "html/html.h"
#include "lib/json.h"
#include "scenario/scn.h"

#include <model.h>
#include <sim/fnv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#ifndef KWSIM_SCENARIOS
#error "KWSIM_SCENARIOS: the repository's scenarios/, from tools/CMakeLists.txt"
#endif

#define KNOWN_METHODS (EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | \
		       EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | \
		       EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)
/* evhttp 2.1's type for a method it does not know (EVHTTP_REQ_UNKNOWN_ in http.c) */
#define EVHTTP_REQ_UNKNOWN (1 << 15)
#define SSE_CHUNK	32	/* records per records event */
#define SSE_BACKLOG	(1 << 20)	/* bytes unsent before a playback waits for its client */

struct edit {
	char id[20];		/* "e" and 16 hex digits of the text's hash */
	char *text;
	size_t len;
};

struct stream;
struct sim;

struct server {
	struct event_base *base;
	struct evhttp *http;
	struct srv_root roots[2];
	size_t nroots;
	struct edit edits[SRV_MAX_EDITS];
	size_t next_edit;
	struct stream *streams;
	size_t nstreams;
	const char *kernels[64];
	size_t nkernels;
	const char *strategies[XS__COUNT];	/* explore's, the default first */
	unsigned long served, refused;
	struct srv_limits lim;
	struct jobs *jobs;	/* a child per simulation */
	struct sim *sims;	/* those running */
	size_t nsims, nrunning, nplays;	/* started or waiting; started; playbacks to be */
	unsigned int next_sim;
	bool stopping;
	bool loopback;		/* bound to this machine only */
	char token[33];		/* the edit form's: POST /edit must send it back */
	char names[32][64];	/* bound beyond: this machine's addresses and name, for Host */
	size_t nnames;
};

/* --- answers ---------------------------------------------------------------------------------- */

static void reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *data, size_t len)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	struct evbuffer *b = evbuffer_new();

	evhttp_add_header(h, "Content-Type", type);
	evhttp_add_header(h, "Cache-Control", "no-store");
	evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		/* the GET's headers and length, no body: evhttp 2.1 would send the body, unlengthed */
		char n[24];

		snprintf(n, sizeof(n), "%zu", len);
		evhttp_add_header(h, "Content-Length", n);
	} else {
		evbuffer_add(b, data, len);
	}
	evhttp_send_reply(req, code, reason, b);
	evbuffer_free(b);
}

static const char *reason_of(int code)
{
	switch (code) {
	case 200: return "OK";
	case 303: return "See Other";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* A refusal: the status and a plain-text body saying what was wrong. */
static void refuse(struct server *sv, struct evhttp_request *req, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void refuse(struct server *sv, struct evhttp_request *req, int code, const char *fmt, ...)
{
	struct srv_buf b = { 0 };
	FILE *f = srv_buf_open(&b);
	va_list ap;

	fprintf(f, "kwsim serve: %d %s: ", code, reason_of(code));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	/* the parser's messages end in a newline already */
	fflush(f);
	if (b.len && b.data[b.len - 1] != '\n')
		fputc('\n', f);
	fclose(f);
	sv->refused++;
	reply(req, code, reason_of(code), "text/plain; charset=utf-8", b.data, b.len);
	srv_buf_free(&b);
}

static void reply_buf(struct evhttp_request *req, const char *type, const struct srv_buf *b)
{
	reply(req, 200, "OK", type, b->data ? b->data : "", b->len);
}

/* --- the request's parameters ---------------------------------------------------------------- */

struct params {
	struct evkeyvalq q;
	const char *file, *edit, *kernel, *strategy, *seed, *replay, *runs, *ms, *live;
	const char *text, *token;	/* POST /edit */
};

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Every % followed by two hex digits, and no %00: evhttp would pass anything else through. */
static const char *bad_encoding(const char *s)
{
	for (; *s; s++) {
		if (*s != '%')
			continue;
		if (!is_hex(s[1]) || !is_hex(s[2]))
			return "a '%' not followed by two hex digits";
		if (s[1] == '0' && s[2] == '0')
			return "an encoded NUL (%00)";
		s += 2;
	}
	return NULL;
}

/* Parse a query string (or a form body) into p; 0, or a 4xx status with why in why. */
static int parse_params(const char *query, struct params *p, const char *const *allowed,
			char *why, size_t wlen)
{
	const char *bad;
	unsigned int seen = 0;	/* by place in allowed */

	TAILQ_INIT(&p->q);
	if (!query || !*query)
		return 0;
	if ((bad = bad_encoding(query))) {
		snprintf(why, wlen, "the query has %s", bad);
		return 400;
	}
	if (evhttp_parse_query_str(query, &p->q)) {
		snprintf(why, wlen, "the query string does not parse");
		return 400;
	}
	for (struct evkeyval *kv = p->q.tqh_first; kv; kv = kv->next.tqe_next) {
		const char **slot = NULL;
		size_t max = !strcmp(kv->key, "text") ? SRV_MAX_BODY : SRV_MAX_VALUE;
		bool twice = false;

		for (size_t i = 0; allowed[i]; i++) {
			if (strcmp(kv->key, allowed[i]))
				continue;
			twice = seen & 1u << i;
			seen |= 1u << i;
			slot = !strcmp(kv->key, "file") ? &p->file : !strcmp(kv->key, "edit") ? &p->edit :
			       !strcmp(kv->key, "kernel") ? &p->kernel :
			       !strcmp(kv->key, "strategy") ? &p->strategy :
			       !strcmp(kv->key, "seed") ? &p->seed : !strcmp(kv->key, "replay") ? &p->replay :
			       !strcmp(kv->key, "runs") ? &p->runs : !strcmp(kv->key, "ms") ? &p->ms :
			       !strcmp(kv->key, "live") ? &p->live :
			       !strcmp(kv->key, "token") ? &p->token : &p->text;
		}
		if (!slot) {
			snprintf(why, wlen, "unknown parameter '%.64s'", kv->key);
			return 400;
		}
		if (twice) {
			snprintf(why, wlen, "parameter '%s' given twice", kv->key);
			return 400;
		}
		if (strlen(kv->value) > max) {
			snprintf(why, wlen, "parameter '%s' is longer than %zu bytes", kv->key, max);
			return 414;
		}
		for (const unsigned char *c = (const unsigned char *)kv->value; *c; c++) {
			if (*c < 0x20 && !(slot == &p->text && (*c == '\n' || *c == '\t' || *c == '\r'))) {
				snprintf(why, wlen, "parameter '%s' holds a control character", kv->key);
				return 400;
			}
		}
		/* an empty optional field of a form is no field */
		*slot = *kv->value || slot == &p->text ? kv->value : NULL;
	}
	return 0;
}

static void free_params(struct params *p)
{
	evhttp_clear_headers(&p->q);
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long n;

	if (!s || !*s || strlen(s) > 20 || *s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n > max)
		return false;
	*v = n;
	return true;
}

/* The run parameters, checked: 0, or 400 with why. */
static int query_of(struct server *sv, const struct params *p, bool explore, struct srv_query *q,
		    char *why, size_t wlen)
{
	memset(q, 0, sizeof(*q));
	if (p->kernel) {
		bool known = false;

		for (size_t i = 0; i < sv->nkernels; i++)
			known |= !strcmp(p->kernel, sv->kernels[i]);
		if (!known) {
			snprintf(why, wlen, "unknown kernel '%.64s' (GET /api/scenarios lists them)",
				 p->kernel);
			return 400;
		}
		q->kernel = p->kernel;
	}
	if (p->strategy) {
		enum xs_kind kind;
		bool ok = explore ? xs_kind_from_name(p->strategy, &kind)
				  : !strcmp(p->strategy, "faithful") || !strcmp(p->strategy, "random");

		if (!ok) {
			char names[256];

			snprintf(why, wlen, "unknown strategy '%.64s' (%s)", p->strategy,
				 explore ? xs_names(names, sizeof(names), ", ", " or ")
					 : "faithful or random");
			return 400;
		}
		q->strategy = p->strategy;
	}
	if (p->seed) {
		if (!parse_u64(p->seed, LONG_MAX, &q->seed)) {
			snprintf(why, wlen, "seed must be a number from 0 to %ld, not '%.64s'", LONG_MAX,
				 p->seed);
			return 400;
		}
		q->has_seed = true;
		if (!explore && !q->strategy)
			q->strategy = "random";	/* a seed means random, as on the command line */
	}
	if (p->replay) {
		if (strcmp(p->replay, "1") || explore || p->kernel || p->strategy || p->seed) {
			snprintf(why, wlen, "replay=1 alone: a replay's settings are its schedule's");
			return 400;
		}
		q->replay = true;
	}
	uint64_t ms;

	if (p->ms && !parse_u64(p->ms, SRV_MAX_PACE_MS, &ms)) {
		snprintf(why, wlen, "ms must be a number from 0 to %d, not '%.64s'", SRV_MAX_PACE_MS,
			 p->ms);
		return 400;
	}
	if (p->live && strcmp(p->live, "0") && strcmp(p->live, "1")) {
		snprintf(why, wlen, "live must be 0 or 1, not '%.64s'", p->live);
		return 400;
	}
	q->runs = 100;
	if (p->runs && (!explore || !parse_u64(p->runs, SRV_MAX_RUNS, &q->runs) || !q->runs)) {
		snprintf(why, wlen, "runs must be a number from 1 to %d (explore only)", SRV_MAX_RUNS);
		return 400;
	}
	return 0;
}

/* --- scenarios by name -------------------------------------------------------------------------- */

/* Keep an edited text (the oldest dropped past SRV_MAX_EDITS); its id. */
static const char *keep_edit(struct server *sv, const char *text, size_t len)
{
	char id[20];
	struct edit *e;

	snprintf(id, sizeof(id), "e%016llx", (unsigned long long)sim_fnv(SIM_FNV_OFFSET, text, len));
	for (size_t i = 0; i < SRV_MAX_EDITS; i++)
		if (sv->edits[i].text && !strcmp(sv->edits[i].id, id))
			return sv->edits[i].id;
	e = &sv->edits[sv->next_edit++ % SRV_MAX_EDITS];
	free(e->text);
	e->text = malloc(len + 1);
	if (!e->text)
		abort();
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	e->len = len;
	strcpy(e->id, id);
	return e->id;
}

/*
 * The scenario a request names: its text (malloc'd), the path its messages
 * name, and its id; or a 4xx status with why.
 */
struct named {
	char *text;
	size_t len;
	char path[SRV_MAX_VALUE + 16];
	const char *id;
	bool edit;
};

static int named(struct server *sv, const struct params *p, struct named *n, char *why,
		 size_t wlen)
{
	memset(n, 0, sizeof(*n));
	if (!p->file == !p->edit) {
		snprintf(why, wlen, "name the scenario with file=ROOT/NAME.kws or edit=ID");
		return 400;
	}
	if (p->file) {
		char *real = srv_resolve(sv->roots, sv->nroots, p->file, why, wlen);

		if (!real)
			return strstr(why, "no scenario") ? 404 : 400;
		n->text = srv_read_file(real, &n->len, why, wlen);
		free(real);
		if (!n->text)
			return 422;
		snprintf(n->path, sizeof(n->path), "%s", p->file);
		n->id = p->file;
		return 0;
	}
	for (size_t i = 0; i < SRV_MAX_EDITS; i++) {
		const struct edit *e = &sv->edits[i];

		if (e->text && !strcmp(e->id, p->edit)) {
			n->text = malloc(e->len + 1);
			if (!n->text)
				abort();
			memcpy(n->text, e->text, e->len + 1);
			n->len = e->len;
			snprintf(n->path, sizeof(n->path), "edit");
			n->id = e->id;
			n->edit = true;
			return 0;
		}
	}
	snprintf(why, wlen, "no edit '%.32s' (the server keeps the last %d)", p->edit,
		 SRV_MAX_EDITS);
	return 404;
}

/* --- playback: the run's account as server-sent events -------------------------------------------- */

struct stream {
	struct server *sv;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	struct event *timer;
	struct srv_result res;
	size_t pos;			/* bytes of res.lines sent */
	bool head_sent;
	struct timeval every;
	struct stream *next;
};

static void stream_free(struct stream *st)
{
	struct stream **pp = &st->sv->streams;

	while (*pp != st)
		pp = &(*pp)->next;
	*pp = st->next;
	st->sv->nstreams--;
	event_free(st->timer);
	srv_result_free(&st->res);
	free(st);
}

/*
 * The client left (or timed out) mid-playback: evhttp 2.1 has let go of
 * the request, unfinished, and frees it when it is ended.
 */
static void stream_closed(struct evhttp_connection *evcon, void *arg)
{
	struct stream *st = arg;

	evhttp_send_reply_end(st->req);
	stream_free(st);
}

/* One SSE event; data's lines each as a data: line. */
static void sse(struct evbuffer *b, const char *event, const char *data, size_t len)
{
	evbuffer_add_printf(b, "event: %s\n", event);
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) : len;

		evbuffer_add(b, "data: ", 6);
		evbuffer_add(b, data, n);
		evbuffer_add(b, "\n", 1);
		n += nl != NULL;
		data += n;
		len -= n;
	}
	evbuffer_add(b, "\n", 1);
}

static void stream_tick(evutil_socket_t fd, short what, void *arg)
{
	struct stream *st = arg;
	struct bufferevent *bev = evhttp_connection_get_bufferevent(st->evcon);
	const struct srv_buf *recs = &st->res.records;
	struct evbuffer *b;

	/* a client that does not read is waited for, not buffered for */
	if (bev && evbuffer_get_length(bufferevent_get_output(bev)) > SSE_BACKLOG) {
		evtimer_add(st->timer, &st->every);
		return;
	}
	b = evbuffer_new();
	if (!st->head_sent) {
		sse(b, "doc-head", st->res.head.data, st->res.head.len);
		st->head_sent = true;
	} else if (st->pos < recs->len) {
		/* up to SSE_CHUNK records, an array: "rec,\nrec" is data: lines */
		evbuffer_add_printf(b, "event: records\ndata: [");
		for (int i = 0; i < SSE_CHUNK && st->pos < recs->len; i++) {
			const char *at = recs->data + st->pos;
			const char *nl = memchr(at, '\n', recs->len - st->pos);

			if (i)
				evbuffer_add_printf(b, ",\ndata: ");
			/* each record but the last ends ",\n" */
			evbuffer_add(b, at, nl ? (size_t)(nl - at) - 1 : recs->len - st->pos);
			st->pos = nl ? (size_t)(nl - recs->data) + 1 : recs->len;
		}
		evbuffer_add_printf(b, "]\n\n");
	} else {
		sse(b, "end", st->res.end.data, st->res.end.len);
		evhttp_send_reply_chunk(st->req, b);
		evbuffer_free(b);
		evhttp_connection_set_closecb(st->evcon, NULL, NULL);
		evhttp_send_reply_end(st->req);
		stream_free(st);
		return;
	}
	evhttp_send_reply_chunk(st->req, b);
	evbuffer_free(b);
	evtimer_add(st->timer, &st->every);
}

/* --- routes ----------------------------------------------------------------------------------- */

/* ms and live are the page's: it passes its query on to /api/play or /api/run */
static const char *const run_keys[] = { "file", "edit", "kernel", "strategy", "seed", "replay",
					"ms", "live", NULL };
static const char *const explore_keys[] = { "file", "edit", "kernel", "strategy", "seed", "runs",
					    NULL };
static const char *const page_keys[] = { "file", "edit", NULL };
static const char *const no_keys[] = { NULL };
static const char *const edit_keys[] = { "text", "kernel", "strategy", "seed", "token", NULL };

static void route_index(struct server *sv, struct evhttp_request *req)
{
	struct srv_buf b = { 0 };
	char **ids;
	const char *cut[2];
	size_t n = srv_list(sv->roots, sv->nroots, &ids, cut);
	FILE *f = srv_buf_open(&b);

	page_index(f, ids, n, cut);
	fclose(f);
	reply_buf(req, "text/html; charset=utf-8", &b);
	srv_buf_free(&b);
	srv_list_free(ids, n);
}

static void route_list(struct server *sv, struct evhttp_request *req)
{
	struct srv_buf b = { 0 };
	char **ids;
	const char *cut[2];
	size_t n = srv_list(sv->roots, sv->nroots, &ids, cut);
	FILE *f = srv_buf_open(&b);

	fputs("{\"scenarios\":[", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_str(f, ids[i]);
	}
	fputs("],\"kernels\":[", f);
	for (size_t i = 0; i < sv->nkernels; i++) {
		fputs(i ? "," : "", f);
		json_str(f, sv->kernels[i]);
	}
	fputs("],\"cut\":[", f);
	for (size_t i = 0; i < 2 && cut[i]; i++) {
		fputs(i ? "," : "", f);
		json_str(f, cut[i]);
	}
	fputs("],\"run_strategies\":[\"faithful\",\"random\"],\"explore_strategies\":[", f);
	for (size_t i = 0; i < XS__COUNT; i++) {
		fputs(i ? "," : "", f);
		json_str(f, sv->strategies[i]);
	}
	fputs("]}\n", f);
	fclose(f);
	reply_buf(req, "application/json", &b);
	srv_buf_free(&b);
	srv_list_free(ids, n);
}

static void route_file(struct server *sv, struct evhttp_request *req, const char *id)
{
	char why[512], *real = srv_resolve(sv->roots, sv->nroots, id, why, sizeof(why)), *text;
	size_t len;

	if (!real) {
		refuse(sv, req, strstr(why, "no scenario") ? 404 : 400, "%s", why);
		return;
	}
	text = srv_read_file(real, &len, why, sizeof(why));
	free(real);
	if (!text) {
		refuse(sv, req, 422, "%s", why);
		return;
	}
	reply(req, 200, "OK", "text/plain; charset=utf-8", text, len);
	free(text);
}

/* The parser's messages as the page shows them, each at its line. */
static size_t page_errors(const char *msg, const char *path, struct page_error *errs, size_t max,
			  char *copy)
{
	size_t n = 0;

	strcpy(copy, msg);
	for (char *line = strtok(copy, "\n"); line && n < max; line = strtok(NULL, "\n"))
		errs[n++] = (struct page_error){ srv_error_line(line, path), line };
	return n;
}

/* The scenario's page: with errors (from msg) when it does not parse. */
static void scenario_page(struct server *sv, struct evhttp_request *req, const struct named *n,
			  const char *kernel, int code)
{
	struct srv_buf b = { 0 }, msg = { .limit = 1 << 16 };
	FILE *err = srv_buf_open(&msg), *f;
	struct scn *s = scn_parse(n->path, n->text, n->len, err);
	struct page_error errs[64];
	char *copy, title[SRV_MAX_VALUE + 64];
	struct page_scn p = { .title = title, .id = n->id, .edit = n->edit, .text = n->text,
			      .len = n->len, .kernels = sv->kernels, .nkernels = sv->nkernels,
			      .kernel = kernel, .strategies = sv->strategies, .nstrategies = XS__COUNT, .errors = errs, .token = sv->token };

	fclose(err);
	copy = malloc(msg.len + 1);
	if (!copy)
		abort();
	p.nerrors = msg.len ? page_errors(msg.data, n->path, errs, 64, copy) : 0;
	p.has_schedule = s && s->has_schedule;
	if (s && !kernel)
		p.kernel = kw_model_find(s->kernel)->name;
	snprintf(title, sizeof(title), "%s%s", n->edit ? "edited scenario " : "", n->id);
	f = srv_buf_open(&b);
	page_scenario(f, &p);
	fclose(f);
	reply(req, code, reason_of(code), "text/html; charset=utf-8", b.data, b.len);
	srv_buf_free(&b);
	srv_buf_free(&msg);
	free(copy);
	scn_free(s);
}

static void route_scenario(struct server *sv, struct evhttp_request *req, const struct params *p)
{
	struct named n;
	char why[1024];
	int code = named(sv, p, &n, why, sizeof(why));

	if (code) {
		refuse(sv, req, code, "%s", why);
		return;
	}
	scenario_page(sv, req, &n, NULL, 200);
	free(n.text);
}

/* --- simulations: each in a child of the pool (tools/lib/jobs.h), within the server's limits -------- */

/*
 * A run or an exploration takes as long as it takes: the server forks a
 * child for it and goes on serving. The child sets its own CPU-time and
 * address-space limits (setrlimit) and sends its result back through the
 * pool's pipe (srv_result_send's frame); the server kills it past the wall
 * time or past the output limit, or when its client has gone. The bytes a
 * page gets are those the child computed, unchanged: determinism is the
 * child's, as it was the single process's.
 */
enum sim_kind { SIM_RUN, SIM_RESULT, SIM_PLAY, SIM_EXPLORE, SIM_EXPLORE_API };
enum sim_kill { KILL_NONE, KILL_WALL, KILL_OUTPUT, KILL_GONE, KILL_STOP };

/* A child that ran out of memory (errno ENOMEM when it aborted) exits with this. */
#define SIM_EXIT_NOMEM 99

struct sim {
	struct server *sv;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;	/* NULL once the client has gone */
	enum sim_kind kind;
	enum sim_kill killed;
	unsigned int index;
	struct named n;
	char id[SRV_MAX_VALUE + 16];	/* n.id's copy: an edit may be dropped meanwhile */
	struct srv_query q;
	uint64_t ms;			/* playback's pace */
	char *dir;			/* an exploration's findings */
	struct event *timer;		/* the wall-time limit */
	struct srv_buf got;		/* the child's frame so far */
	bool started;			/* its child forked (else it waits its turn) */
	struct sim *next;
};

/* Under RLIMIT_AS (sim_limit): an abort() after an allocation failed is the memory limit's. */
static void __attribute__((unused)) sim_abort_handler(int sig)
{
	if (errno == ENOMEM)
		_exit(SIM_EXIT_NOMEM);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* In the child: its limits, and nothing of the server's but the pipe to it. */
static void sim_limit(const struct server *sv, int fd)
{
	struct rlimit cpu = { sv->lim.cpu_s, sv->lim.cpu_s + 1 };

	/* libevent's handlers are the parent's: a signal here must do what it says */
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (fd > 3)
		close_range(3, (unsigned int)fd - 1, 0);
	close_range((unsigned int)fd + 1, ~0u, 0);
	if (sv->lim.cpu_s)
		setrlimit(RLIMIT_CPU, &cpu);
#if !SRV_SANITIZED	/* AddressSanitizer's shadow is terabytes of address space */
	if (sv->lim.mem_mb) {
		struct rlimit as = { sv->lim.mem_mb << 20, sv->lim.mem_mb << 20 };
		struct sigaction sa = { .sa_handler = sim_abort_handler };

		setrlimit(RLIMIT_AS, &as);
		sigemptyset(&sa.sa_mask);
		sigaction(SIGABRT, &sa, NULL);
	}
#endif
}

static int sim_child(void *arg, unsigned int index, FILE *out)
{
	struct sim *s = arg;
	struct srv_result res;
	struct srv_explored *files = NULL;
	size_t nfiles = 0;

	(void)index;
	sim_limit(s->sv, fileno(out));
	if (s->kind == SIM_EXPLORE || s->kind == SIM_EXPLORE_API)
		srv_explore(s->n.path, s->n.text, s->n.len, &s->q, s->dir, &res, &files, &nfiles);
	else
		srv_run(s->n.path, s->n.text, s->n.len, &s->q, &res);
	srv_result_send(out, &res, files, nfiles);
	srv_explored_free(files, nfiles);
	srv_result_free(&res);
	return 0;
}

static void sim_end(void *arg, unsigned int index, int status);

static void sim_kill(struct sim *s, enum sim_kill why)
{
	if (s->killed == KILL_NONE)
		s->killed = why;
	if (s->started)
		jobs_signal(s->sv->jobs, s->index, SIGKILL);
	else
		sim_end(s, s->index, SIGKILL);	/* never started: it ends here */
}

static void sim_data(void *arg, unsigned int index, const char *data, size_t len)
{
	struct sim *s = arg;

	(void)index;
	if (s->killed)
		return;		/* what follows is dropped until the pipe's end */
	srv_buf_add(&s->got, data, len);
	if (s->got.overflow)
		sim_kill(s, KILL_OUTPUT);
}

static void sim_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sim_kill(arg, KILL_WALL);
}

/* The client left while its simulation ran: evhttp has let the request go, unanswered. */
static void sim_gone(struct evhttp_connection *evcon, void *arg)
{
	struct sim *s = arg;

	(void)evcon;
	s->evcon = NULL;
	sim_kill(s, KILL_GONE);
}

static void sim_free(struct sim *s)
{
	struct sim **pp = &s->sv->sims;

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	s->sv->nsims--;
	s->sv->nrunning -= s->started;
	s->sv->nplays -= s->kind == SIM_PLAY;
	event_free(s->timer);
	srv_buf_free(&s->got);
	if (s->dir) {
		srv_remove_dir(s->dir);
		free(s->dir);
	}
	free(s->n.text);
	free(s);
}

static void sim_done(struct sim *s, struct srv_result *res, struct srv_explored *files,
		     size_t nfiles);
static void sim_next(struct server *sv);

/* Why a child ended without a result: the limit it met, or its crash. 0: it sent one. */
static int sim_failed(const struct sim *s, int status, char *why, size_t wlen)
{
	const struct srv_limits *l = &s->sv->lim;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (s->killed == KILL_STOP) {
		snprintf(why, wlen, "the server is stopping");
		return 503;
	}
	if (s->killed == KILL_WALL) {
		snprintf(why, wlen, "the simulation passed the server's wall-time limit of %llu s "
			 "(kwsim serve --time-limit)", (unsigned long long)l->wall_s);
		return 503;
	}
	if (s->killed == KILL_OUTPUT) {
		snprintf(why, wlen, "the simulation's result passed the server's output limit of "
			 "%llu MB (kwsim serve --output-limit)", (unsigned long long)l->out_mb);
		return 413;
	}
	if (sig == SIGXCPU) {
		snprintf(why, wlen, "the simulation passed the server's CPU-time limit of %llu s "
			 "(kwsim serve --cpu-limit)", (unsigned long long)l->cpu_s);
		return 503;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == SIM_EXIT_NOMEM) {
		snprintf(why, wlen, "the simulation ran out of memory within the server's limit of "
			 "%llu MB of address space (kwsim serve --mem-limit)",
			 (unsigned long long)l->mem_mb);
		return 503;
	}
	if (sig) {
		snprintf(why, wlen, "the simulation crashed: SIG%s (%s)",
			 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", strsignal(sig));
		return 500;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, wlen, "the simulation's process exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 500;
	}
	return 0;
}

static void sim_end(void *arg, unsigned int index, int status)
{
	struct sim *s = arg;
	struct server *sv = s->sv;
	struct srv_result res;
	struct srv_explored *files;
	size_t nfiles;
	char why[512];
	int code;

	(void)index;
	if (!s->evcon) {
		/* a request evhttp let go of is freed by the answer it cannot send */
		evhttp_send_reply(s->req, 500, "Gone", NULL);
		sim_free(s);
		sim_next(sv);
		return;
	}
	evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	code = sim_failed(s, status, why, sizeof(why));
	if (!code && !srv_result_take(s->got.data ? s->got.data : "", s->got.len, &res, &files,
				      &nfiles)) {
		code = 500;
		snprintf(why, sizeof(why), "the simulation's result came back cut");
	}
	if (code) {
		if (code == 503)
			evhttp_add_header(evhttp_request_get_output_headers(s->req), "Retry-After", "5");
		refuse(s->sv, s->req, code, "%s", why);
	} else if (res.status != 200) {
		refuse(s->sv, s->req, res.status, "%s", res.msg.data ? res.msg.data :
		       "the simulation failed");
	} else {
		sim_done(s, &res, files, nfiles);
	}
	if (!code) {
		srv_explored_free(files, nfiles);
		srv_result_free(&res);
	}
	sim_free(s);
	sim_next(sv);
}

/* Start s's child, and its wall-time limit: false when it cannot (s then answered and gone). */
static bool sim_launch(struct sim *s)
{
	struct server *sv = s->sv;
	struct job_ops ops = { .child = sim_child, .data = sim_data, .end = sim_end, .arg = s };
	struct timeval wall = { (time_t)sv->lim.wall_s, 0 };

	s->started = true;
	sv->nrunning++;
	if (jobs_start(sv->jobs, s->index, &ops, "kwsim serve")) {
		if (s->evcon) {
			evhttp_connection_set_closecb(s->evcon, NULL, NULL);
			refuse(sv, s->req, 500, "the server could not start a child process");
		} else {
			evhttp_send_reply(s->req, 500, "Gone", NULL);
		}
		sim_free(s);
		return false;
	}
	if (sv->lim.wall_s)
		evtimer_add(s->timer, &wall);
	return true;
}

/* A child has ended: the longest waiting simulation starts (the list is newest first). */
static void sim_next(struct server *sv)
{
	while (!sv->stopping && sv->nrunning < sv->lim.max_sims) {
		struct sim *oldest = NULL;

		for (struct sim *s = sv->sims; s; s = s->next)
			if (!s->started)
				oldest = s;
		if (!oldest || sim_launch(oldest))
			return;
	}
}

/*
 * Start what p names in a child, answered when it ends; past --max-sims it
 * waits its turn (SRV_MAX_WAITING at most); or a refusal now.
 */
static void sim_start(struct server *sv, struct evhttp_request *req, const struct params *p,
		      enum sim_kind kind)
{
	bool explore = kind == SIM_EXPLORE || kind == SIM_EXPLORE_API;
	struct sim *s = calloc(1, sizeof(*s));
	char why[1024];
	int code;

	if (!s)
		abort();
	*s = (struct sim){ .sv = sv, .req = req, .kind = kind, .ms = 100,
			   .got = { .limit = (size_t)sv->lim.out_mb << 20 } };
	if (kind == SIM_PLAY && sv->nstreams + sv->nplays >= SRV_MAX_STREAMS) {
		refuse(sv, req, 429, "%d playbacks are in progress: try again when one ends",
		       SRV_MAX_STREAMS);
		free(s);
		return;
	}
	if (p->ms)
		(void)parse_u64(p->ms, SRV_MAX_PACE_MS, &s->ms);	/* query_of() checks it */
	code = query_of(sv, p, explore, &s->q, why, sizeof(why));
	if (!code)
		code = named(sv, p, &s->n, why, sizeof(why));
	if (!code && (sv->stopping || sv->nsims >= sv->lim.max_sims + SRV_MAX_WAITING)) {
		code = 503;
		if (sv->stopping)
			snprintf(why, sizeof(why), "the server is stopping");
		else
			snprintf(why, sizeof(why), "%llu simulations are running and %d waiting "
				 "(kwsim serve --max-sims): try again when one ends",
				 (unsigned long long)sv->lim.max_sims, SRV_MAX_WAITING);
		evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", "1");
	}
	if (!code && explore && !(s->dir = srv_temp_dir(why, sizeof(why))))
		code = 500;
	if (code) {
		refuse(sv, req, code, "%s", why);
		free(s->n.text);
		free(s);
		return;
	}
	snprintf(s->id, sizeof(s->id), "%s", s->n.id);
	s->n.id = s->id;
	s->index = sv->next_sim++;
	s->evcon = evhttp_request_get_connection(req);
	s->timer = evtimer_new(sv->base, sim_timeout, s);
	s->next = sv->sims;
	sv->sims = s;
	sv->nsims++;
	sv->nplays += kind == SIM_PLAY;
	evhttp_connection_set_closecb(s->evcon, sim_gone, s);
	if (sv->nrunning < sv->lim.max_sims)
		sim_launch(s);
}

/* --- routes that simulate: the answers once the child's result is back ------------------------ */

/* The run document, whole (/api/run), or the result as kwsim run --json prints it (/api/result). */
static void reply_run(struct evhttp_request *req, const struct srv_result *res, bool result)
{
	struct srv_buf b = { .limit = 2 * SRV_MAX_OUTPUT };

	if (result) {
		reply_buf(req, "application/json", &res->json);
		return;
	}
	/* html.h: the head left open, the records, then ],"end":{...}} */
	srv_buf_add(&b, res->whole_head.data, res->whole_head.len);
	srv_buf_add(&b, res->records.data ? res->records.data : "", res->records.len);
	srv_buf_add(&b, "\n],\"end\":", 9);
	srv_buf_add(&b, res->end.data, res->end.len);
	srv_buf_add(&b, "}", 1);
	reply_buf(req, "application/json", &b);
	srv_buf_free(&b);
}

/* A playback: the run's document as server-sent events, paced (HEAD: its headers). */
static void reply_play(struct server *sv, struct evhttp_request *req, struct srv_result *res,
		       uint64_t ms)
{
	struct stream *st;

	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		reply(req, 200, "OK", "text/event-stream", "", 0);
		return;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		abort();
	st->res = *res;
	memset(res, 0, sizeof(*res));	/* the stream's now */
	st->sv = sv;
	st->req = req;
	st->evcon = evhttp_request_get_connection(req);
	st->every = (struct timeval){ (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
	st->timer = evtimer_new(sv->base, stream_tick, st);
	st->next = sv->streams;
	sv->streams = st;
	sv->nstreams++;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/event-stream");
	evhttp_add_header(evhttp_request_get_output_headers(req), "Cache-Control", "no-store");
	evhttp_send_reply_start(req, 200, "OK");
	evhttp_connection_set_closecb(st->evcon, stream_closed, st);
	event_active(st->timer, EV_TIMEOUT, 0);
}

/* An exploration's page: the first SRV_MAX_EDITS findings kept as edits, to play; the rest listed. */
static void reply_explored(struct server *sv, struct evhttp_request *req, const char *id,
			   const struct srv_result *res, const struct srv_explored *files,
			   size_t nfiles)
{
	size_t nplay = nfiles < SRV_MAX_EDITS ? nfiles : SRV_MAX_EDITS;
	char (*ids)[sizeof(sv->edits[0].id)] = calloc(nplay + 1, sizeof(*ids));
	const char **idp = calloc(nplay + 1, sizeof(*idp));
	const char **whats = calloc(nplay + 1, sizeof(*whats));
	struct srv_buf b = { 0 };
	FILE *f;
	char title[SRV_MAX_VALUE + 32];

	if (!ids || !idp || !whats)
		abort();
	for (size_t i = 0; i < nplay; i++) {
		strcpy(ids[i], keep_edit(sv, files[i].text, strlen(files[i].text)));
		idp[i] = ids[i];
		whats[i] = files[i].what;
	}
	snprintf(title, sizeof(title), "explored %s", id);
	f = srv_buf_open(&b);
	page_explored(f, title, res->json.data, idp, whats, nplay);
	fclose(f);
	reply_buf(req, "text/html; charset=utf-8", &b);
	srv_buf_free(&b);
	free(ids);
	free(idp);
	free(whats);
}

static void sim_done(struct sim *s, struct srv_result *res, struct srv_explored *files,
		     size_t nfiles)
{
	switch (s->kind) {
	case SIM_RUN:
	case SIM_RESULT:
		reply_run(s->req, res, s->kind == SIM_RESULT);
		break;
	case SIM_PLAY:
		reply_play(s->sv, s->req, res, s->ms);
		break;
	case SIM_EXPLORE_API:
		reply_buf(s->req, "application/json", &res->json);
		break;
	case SIM_EXPLORE:
		reply_explored(s->sv, s->req, s->id, res, files, nfiles);
		break;
	}
}

static void route_play_page(struct server *sv, struct evhttp_request *req, const struct params *p)
{
	struct srv_query q;
	struct named n;
	char why[1024];
	int code = query_of(sv, p, false, &q, why, sizeof(why));
	struct srv_buf b = { 0 };
	FILE *f;

	if (!code)
		code = named(sv, p, &n, why, sizeof(why));
	if (code) {
		refuse(sv, req, code, "%s", why);
		return;
	}
	free(n.text);
	f = srv_buf_open(&b);
	/* the timeline page without a document: it plays /api/play + its query */
	html_write_page(f, p->file ? p->file : "edited scenario", NULL);
	fclose(f);
	reply_buf(req, "text/html; charset=utf-8", &b);
	srv_buf_free(&b);
}

/* POST /edit: the edited text parses, and runs; or its page, errors at their lines. */
static void route_edit(struct server *sv, struct evhttp_request *req)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	const char *type = evhttp_find_header(evhttp_request_get_input_headers(req), "Content-Type");
	size_t len = evbuffer_get_length(in);
	struct params p = { 0 };
	struct srv_query q;
	struct named n = { 0 };
	char why[1024], *body;
	int code;

	if (!type || strncmp(type, "application/x-www-form-urlencoded", 33)) {
		refuse(sv, req, 415, "POST /edit takes a form (application/x-www-form-urlencoded)");
		return;
	}
	body = malloc(len + 1);
	if (!body)
		abort();
	evbuffer_copyout(in, body, len);
	body[len] = '\0';
	code = memchr(body, '\0', len) ? 400 : parse_params(body, &p, edit_keys, why, sizeof(why));
	if (code == 400 && memchr(body, '\0', len))
		snprintf(why, sizeof(why), "the form holds a NUL byte");
	if (!code && (!p.token || strcmp(p.token, sv->token))) {
		code = 403;
		snprintf(why, sizeof(why), "the form's token is %s: POST /edit takes the edit form of "
			 "this server's pages (reload the scenario's page)",
			 p.token ? "not this server's" : "missing");
	}
	if (!code && !p.text) {
		code = 400;
		snprintf(why, sizeof(why), "the form has no text field");
	}
	if (!code)
		code = query_of(sv, &p, false, &q, why, sizeof(why));
	if (code) {
		refuse(sv, req, code, "%s", why);
	} else {
		struct srv_buf msg = { .limit = 1 << 16 };
		FILE *err = srv_buf_open(&msg);
		struct scn *s = scn_parse("edit", p.text, strlen(p.text), err);

		fclose(err);
		n.id = keep_edit(sv, p.text, strlen(p.text));
		n.text = (char *)p.text;
		n.len = strlen(p.text);
		n.edit = true;
		strcpy(n.path, "edit");
		if (!s) {
			scenario_page(sv, req, &n, q.kernel, 400);
		} else {
			struct srv_buf loc = { 0 };
			FILE *f = srv_buf_open(&loc);

			fprintf(f, "/play?edit=%s&live=1", n.id);
			if (q.kernel)
				fprintf(f, "&kernel=%s", q.kernel);
			if (q.strategy)
				fprintf(f, "&strategy=%s", q.strategy);
			if (q.has_seed)
				fprintf(f, "&seed=%llu", (unsigned long long)q.seed);
			fclose(f);
			evhttp_add_header(evhttp_request_get_output_headers(req), "Location", loc.data);
			reply(req, 303, "See Other", "text/plain; charset=utf-8", loc.data, loc.len);
			srv_buf_free(&loc);
		}
		scn_free(s);
		srv_buf_free(&msg);
	}
	free_params(&p);
	free(body);
}

/*
 * Bound to the loopback address, the server answers only requests that
 * name it so: a page elsewhere that gets a browser to resolve its own name
 * to 127.0.0.1 (DNS rebinding) sends that name as Host, and is refused.
 */
static bool host_ok(const struct server *sv, struct evhttp_request *req)
{
	const char *h = evhttp_find_header(evhttp_request_get_input_headers(req), "Host");
	size_t n;

	if (!h)
		return true;	/* HTTP/1.0 may send none */
	if (h[0] == '[') {
		n = strcspn(h, "]");
		if (h[n] != ']')
			return false;
		n++;
	} else {
		n = strcspn(h, ":");
	}
	if (h[n] && (h[n] != ':' || strspn(h + n + 1, "0123456789") != strlen(h + n + 1)))
		return false;
	if ((n == 9 && !strncasecmp(h, "localhost", 9)) || (n == 5 && !strncmp(h, "[::1]", 5)) ||
	    (n >= 9 && n <= 15 && !strncmp(h, "127.", 4) && strspn(h, "0123456789.") == n))
		return true;
	for (size_t i = 0; !sv->loopback && i < sv->nnames; i++)
		if (strlen(sv->names[i]) == n && !strncasecmp(h, sv->names[i], n))
			return true;
	return false;
}

/*
 * A request that changes state (POST) comes from this server's own pages:
 * a browser says where a request comes from (Origin, Sec-Fetch-Site), so a
 * page elsewhere cannot make it run anything. A client that says nothing
 * (curl) still needs the form's token, which only this server's pages hold.
 */
static bool same_origin(struct evhttp_request *req, char *why, size_t wlen)
{
	const struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	const char *origin = evhttp_find_header(in, "Origin");
	const char *site = evhttp_find_header(in, "Sec-Fetch-Site");
	const char *host = evhttp_find_header(in, "Host");

	if (site && strcmp(site, "same-origin") && strcmp(site, "none")) {
		snprintf(why, wlen, "a %.32s request (Sec-Fetch-Site): POST is for this server's own "
			 "pages", site);
		return false;
	}
	if (origin && (!host || strncasecmp(origin, "http://", 7) || strcasecmp(origin + 7, host))) {
		snprintf(why, wlen, "a request from %.128s (Origin), not from this server's own pages",
			 origin);
		return false;
	}
	return true;
}

static void handle(struct evhttp_request *req, void *arg)
{
	struct server *sv = arg;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const char *target = evhttp_request_get_uri(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *raw = uri ? evhttp_uri_get_path(uri) : NULL, *query;
	const char *const *keys = no_keys;
	struct params p = { 0 };
	char why[1024], *path = NULL;
	size_t plen;
	int code;

	sv->served++;
	if (!(cmd & KNOWN_METHODS)) {
		refuse(sv, req, 400, "not an HTTP method this server knows");
		return;
	}
	for (struct evkeyval *h = evhttp_request_get_input_headers(req)->tqh_first; h;
	     h = h->next.tqe_next) {
		if (!*h->key || h->key[strspn(h->key, "!#$%&'*+-.^_`|~0123456789"
						 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")]) {
			refuse(sv, req, 400, "a header's name is not a token");
			return;
		}
	}
	if (!host_ok(sv, req)) {
		refuse(sv, req, 400, "the Host header names another machine: this server answers "
		       "%s only", sv->loopback ? "127.0.0.1, localhost and [::1]" :
		       "this machine's addresses and host name");
		return;
	}
	if (strlen(target) > SRV_MAX_URI) {
		refuse(sv, req, 414, "the request's target is longer than %d bytes", SRV_MAX_URI);
		return;
	}
	if (!uri || !raw || raw[0] != '/') {
		refuse(sv, req, 400, "the request's target is not a path");
		return;
	}
	if (bad_encoding(raw)) {
		refuse(sv, req, 400, "the path has %s", bad_encoding(raw));
		return;
	}
	path = evhttp_uridecode(raw, 0, &plen);
	if (!path || plen != strlen(path)) {
		free(path);
		refuse(sv, req, 400, "the path does not decode");
		return;
	}
	query = evhttp_uri_get_query(uri);
	if (cmd == EVHTTP_REQ_POST) {
		if (strcmp(path, "/edit"))
			refuse(sv, req, 405, "POST is for /edit only");
		else if (!same_origin(req, why, sizeof(why)))
			refuse(sv, req, 403, "%s", why);
		else if (query)
			refuse(sv, req, 400, "POST /edit takes its fields in the body");
		else
			route_edit(sv, req);
		free(path);
		return;
	}
	if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		refuse(sv, req, 405, "only GET, HEAD and POST (to /edit) are served");
		free(path);
		return;
	}
	if (evbuffer_get_length(evhttp_request_get_input_buffer(req))) {
		refuse(sv, req, 400, "a GET has no body");
		free(path);
		return;
	}
	if (!strcmp(path, "/api/run") || !strcmp(path, "/api/result"))
		keys = run_keys;
	else if (!strcmp(path, "/api/play") || !strcmp(path, "/play"))
		keys = run_keys;
	else if (!strcmp(path, "/explore") || !strcmp(path, "/api/explore"))
		keys = explore_keys;
	else if (!strcmp(path, "/scenario"))
		keys = page_keys;
	code = parse_params(query, &p, keys, why, sizeof(why));
	if (code)
		refuse(sv, req, code, "%s", why);
	else if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
		route_index(sv, req);
	else if (!strcmp(path, "/api/scenarios"))
		route_list(sv, req);
	else if (!strncmp(path, "/files/", 7))
		route_file(sv, req, path + 7);
	else if (!strcmp(path, "/scenario"))
		route_scenario(sv, req, &p);
	else if (!strcmp(path, "/api/run") || !strcmp(path, "/api/result"))
		sim_start(sv, req, &p, !strcmp(path, "/api/result") ? SIM_RESULT : SIM_RUN);
	else if (!strcmp(path, "/api/play"))
		sim_start(sv, req, &p, SIM_PLAY);
	else if (!strcmp(path, "/play"))
		route_play_page(sv, req, &p);
	else if (!strcmp(path, "/explore") || !strcmp(path, "/api/explore"))
		sim_start(sv, req, &p, path[1] == 'a' ? SIM_EXPLORE_API : SIM_EXPLORE);
	else
		refuse(sv, req, 404, "no route '%.200s' (GET / lists the scenarios)", path);
	free_params(&p);
	free(path);
}

/* --- the server ------------------------------------------------------------------------------- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

/* The edit form's token: random, from the system (the deterministic core never sees it). */
static int make_token(struct server *sv)
{
	unsigned char r[16];
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = f ? fread(r, 1, sizeof(r), f) : 0;

	if (f)
		fclose(f);
	if (got != sizeof(r)) {
		fprintf(stderr, "kwsim serve: cannot read /dev/urandom for the edit form's token\n");
		return -1;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(sv->token + 2 * i, 3, "%02x", r[i]);
	return 0;
}

/* Bound beyond the loopback: the names a request may give as Host (addresses, host name). */
static void machine_names(struct server *sv)
{
	struct ifaddrs *ifs, *i;
	char a[INET6_ADDRSTRLEN];

	if (!gethostname(sv->names[0], sizeof(sv->names[0]) - 1) && sv->names[0][0])
		sv->nnames = 1;
	if (getifaddrs(&ifs))
		return;
	for (i = ifs; i && sv->nnames < 32; i = i->ifa_next) {
		int fam = i->ifa_addr ? i->ifa_addr->sa_family : AF_UNSPEC;

		if (fam == AF_INET &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a, sizeof(a)))
			snprintf(sv->names[sv->nnames++], sizeof(sv->names[0]), "%s", a);
		else if (fam == AF_INET6 &&
			 inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a,
				   sizeof(a)))
			snprintf(sv->names[sv->nnames++], sizeof(sv->names[0]), "[%s]", a);
	}
	freeifaddrs(ifs);
}

/* The limit an option sets (srv.h's struct srv_limits), or NULL. */
static uint64_t *limit_option(struct srv_limits *l, const char *opt)
{
	return !strcmp(opt, "--time-limit") ? &l->wall_s : !strcmp(opt, "--cpu-limit") ? &l->cpu_s :
	       !strcmp(opt, "--mem-limit") ? &l->mem_mb : !strcmp(opt, "--output-limit") ? &l->out_mb :
	       !strcmp(opt, "--max-sims") ? &l->max_sims : NULL;
}

/* The repository's scenarios/: beside the binary's tree, else where it was built from. */
static char *library_dir(void)
{
	char self[PATH_MAX], *slash, *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			/* build/kwsim -> build/../scenarios */
			if (asprintf(&dir, "%s/../scenarios", self) < 0)
				abort();
			char *real = realpath(dir, NULL);

			free(dir);
			if (real)
				return real;
		}
	}
	return realpath(KWSIM_SCENARIOS, NULL);
}

static void server_free(struct server *sv)
{
	/* simulations in progress are killed, and answered so, before their connections go */
	sv->stopping = true;
	for (struct sim *s = sv->sims, *next; s; s = next) {
		next = s->next;		/* one that waits ends, and goes, here */
		sim_kill(s, KILL_STOP);
	}
	while (sv->jobs && jobs_running(sv->jobs))
		event_base_loop(sv->base, EVLOOP_ONCE);
	/* the last answers are short: a few turns of the loop write them before evhttp_free() */
	for (int i = 0; sv->base && i < 4; i++)
		event_base_loop(sv->base, EVLOOP_NONBLOCK);
	jobs_free(sv->jobs);
	/* playbacks in progress end here; evhttp_free() then frees their connections */
	while (sv->streams) {
		evhttp_connection_set_closecb(sv->streams->evcon, NULL, NULL);
		evhttp_send_reply_end(sv->streams->req);
		stream_free(sv->streams);
	}
	if (sv->http)
		evhttp_free(sv->http);
	for (size_t i = 0; i < SRV_MAX_EDITS; i++)
		free(sv->edits[i].text);
	for (size_t i = 0; i < sv->nroots; i++)
		free(sv->roots[i].dir);
}

/* The address it listens on, on stdout; beyond the loopback, a warning and the Host names. */
static void announce(struct server *sv, struct evhttp_bound_socket *sock)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256] = "?";
	unsigned int p = 0;

	getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		sv->loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
		evutil_inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		p = ntohs(in->sin_port);
		printf("http://%s:%u/\n", host, p);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		sv->loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
		evutil_inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		p = ntohs(in6->sin6_port);
		printf("http://[%s]:%u/\n", host, p);
	}
	fflush(stdout);
	if (!sv->loopback) {
		machine_names(sv);
		fprintf(stderr, "kwsim serve: warning: listening on %s, beyond this machine: "
			"whoever reaches it can run scenarios on it (it has no "
			"authentication); it answers requests that name it by this "
			"machine's addresses or host name only\n", host);
	}
}

int kwsim_serve(int argc, char **argv)
{
	const char *bind = "127.0.0.1", *root = NULL;
	uint64_t port = 8080;
	struct server sv = { .lim = SRV_LIMITS_DEFAULT };
	struct event *sigint, *sigterm;
	struct evhttp_bound_socket *sock;

	/* every option but --help takes a value */
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = cmd_value(argc, argv, i);
		uint64_t *limit = limit_option(&sv.lim, a);

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: kwsim serve [--port P] [--bind ADDR] [--root DIR] "
			       "[--time-limit S] [--cpu-limit S]\n"
			       "                   [--mem-limit MB] [--output-limit MB] "
			       "[--max-sims N]\n"
			       "(docs/browser.md \"kwsim serve\" lists its pages, limits and bounds)\n");
			return 0;
		}
		if (strcmp(a, "--port") && strcmp(a, "--bind") && strcmp(a, "--root") && !limit)
			return cmd_usage_error("serve", "unknown option '%s'", a);
		if (!v)
			return cmd_usage_error("serve", "option %s needs a value", a);
		if (limit && (!parse_u64(v, 1u << 20, limit) ||
			      (!*limit && (limit == &sv.lim.out_mb || limit == &sv.lim.max_sims))))
			return cmd_usage_error("serve", limit == &sv.lim.out_mb || limit == &sv.lim.max_sims
					   ? "%s wants a number from 1 to 1048576" :
					   "%s wants a number from 0 (no limit) to 1048576", a);
		if (!strcmp(a, "--port") && !parse_u64(v, 65535, &port))
			return cmd_usage_error("serve", "--port wants a number from 0 to 65535, not '%s'", v);
		if (!strcmp(a, "--bind"))
			bind = v;
		if (!strcmp(a, "--root"))
			root = v;
	}
	sv.roots[0] = (struct srv_root){ "lib", library_dir() };
	sv.nroots = 1;
	if (root) {
		sv.roots[1] = (struct srv_root){ "root", realpath(root, NULL) };
		sv.nroots = 2;
		if (!sv.roots[1].dir) {
			fprintf(stderr, "kwsim serve: --root %s: %s\n", root, strerror(errno));
			server_free(&sv);
			return 2;
		}
	}
	if (!sv.roots[0].dir)
		fprintf(stderr, "kwsim serve: the scenario library (%s) is not there: serving "
			"--root only\n", KWSIM_SCENARIOS);
	for (size_t i = 0; i < kw_model_count() && sv.nkernels < 64; i++)
		sv.kernels[sv.nkernels++] = kw_model_get(i)->name;
	for (size_t i = 0; i < kw_tree_count() && sv.nkernels < 64; i++)
		sv.kernels[sv.nkernels++] = kw_tree_get(i)->name;
	for (unsigned int i = 0; i < XS__COUNT; i++)
		sv.strategies[i] = xs_kind_name(xs_listed(i, true));

	if (make_token(&sv)) {
		server_free(&sv);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	sv.base = event_base_new();
	sv.http = evhttp_new(sv.base);
	if (!sv.base || !sv.http)
		abort();
	evhttp_set_max_body_size(sv.http, SRV_MAX_BODY);
	evhttp_set_max_headers_size(sv.http, SRV_MAX_HEADERS);
	evhttp_set_timeout(sv.http, SRV_TIMEOUT_S);
	/*
	 * Every method reaches handle(), which answers 405 or 400 with a reason:
	 * evhttp would answer a method it does not know with a 501 of its own.
	 */
	evhttp_set_allowed_methods(sv.http, KNOWN_METHODS | EVHTTP_REQ_UNKNOWN);
	evhttp_set_gencb(sv.http, handle, &sv);
	sv.jobs = jobs_new(sv.base);
	sock = evhttp_bind_socket_with_handle(sv.http, bind, (ev_uint16_t)port);
	if (!sock) {
		fprintf(stderr, "kwsim serve: cannot listen on %s port %llu: %s\n", bind,
			(unsigned long long)port, strerror(errno));
		server_free(&sv);
		event_base_free(sv.base);
		return 2;
	}
	announce(&sv, sock);
	sigint = evsignal_new(sv.base, SIGINT, on_signal, sv.base);
	sigterm = evsignal_new(sv.base, SIGTERM, on_signal, sv.base);
	evsignal_add(sigint, NULL);
	evsignal_add(sigterm, NULL);
	event_base_dispatch(sv.base);
	fprintf(stderr, "kwsim serve: stopped after %lu requests, %lu refused\n", sv.served,
		sv.refused);
	event_free(sigint);
	event_free(sigterm);
	server_free(&sv);
	event_base_free(sv.base);
	libevent_global_shutdown();
	return 0;
}
