/*
 * The browser timeline's C side (html.h): the page, built from
 * tools/html/page.{html,css,js} that CMake embeds (embed.cmake), and the
 * run document, made from a run's records, account and scenario lines as
 * they stream. The document is a pure function of the run: records leave in
 * (time, CPU, order made) order, as "What ran" prints its lines, once the
 * machine's watermark has passed them.
 *
 * The document goes inside a <script> element, so every string is written
 * with '<' as \u003c: no "</script>" in a scenario's text can end it.
 */
#include "html.h"

#include "lib/json.h"
#include "scenario/scn.h"
#include "view/trace_view.h"

#include <model.h>
#include <sim/site.h>

#include <stdlib.h>
#include <string.h>

#include "html_assets.h"	/* generated: html_page_{html,css,js}[] and their lengths */

/* --- the page ----------------------------------------------------------------------- */

/* A part of page.html between markers: the markers are the page's own. */
static int write_until(FILE *out, const char **at, const char *marker)
{
	const char *end = (const char *)html_page_html + html_page_html_len;
	const char *m = marker ? strstr(*at, marker) : NULL;
	size_t n = m ? (size_t)(m - *at) : (size_t)(end - *at);

	if (fwrite(*at, 1, n, out) != n)
		return -1;
	*at += n + (m ? strlen(marker) : 0);
	return 0;
}

static void html_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out); break;
		}
	}
}

/* The page up to the document's place: its title, its style. */
static int write_to_doc(FILE *out, const char **at, const char *title)
{
	if (write_until(out, at, "@TITLE@"))
		return -1;
	html_text(out, title ? title : "kwsim");
	if (write_until(out, at, "@CSS@"))
		return -1;
	fwrite(html_page_css, 1, html_page_css_len, out);
	return write_until(out, at, "@DOC@");
}

/* The page from the document's place on: its script, its end. */
static int write_from_doc(FILE *out, const char **at)
{
	if (write_until(out, at, "@JS@"))
		return -1;
	fwrite(html_page_js, 1, html_page_js_len, out);
	if (write_until(out, at, NULL))
		return -1;
	return ferror(out) ? -1 : 0;
}

int html_write_page_head(FILE *out, const char *title)
{
	const char *at = (const char *)html_page_html;

	if (write_to_doc(out, &at, title))
		return -1;
	fputs("<script type=\"application/json\" id=\"kwsim-doc\">", out);
	return ferror(out) ? -1 : 0;
}

int html_write_page_tail(FILE *out)
{
	const char *at = (const char *)html_page_html;

	/* the page resumes after the document's place */
	at = strstr(at, "@DOC@") + strlen("@DOC@");
	fputs("</script>", out);
	return write_from_doc(out, &at);
}

int html_write_page(FILE *out, const char *title, const char *doc_json)
{
	const char *at = (const char *)html_page_html;

	if (doc_json) {
		if (html_write_page_head(out, title))
			return -1;
		/* '<' only ever stands in a JSON string, where \u003c is the same: no "</script" */
		for (const char *p = doc_json; *p; p++) {
			if (*p == '<')
				fputs("\\u003c", out);
			else
				fputc(*p, out);
		}
		return html_write_page_tail(out);
	}
	/* no document: the page asks the server for it */
	if (write_to_doc(out, &at, title))
		return -1;
	return write_from_doc(out, &at);
}

/* --- JSON for inside a script element ------------------------------------------------ */

static void doc_chars(FILE *out, const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end) {
		const char *lt = memchr(s, '<', (size_t)(end - s));
		size_t n = lt ? (size_t)(lt - s) : (size_t)(end - s);

		json_chars_n(out, s, n);
		s += n;
		if (lt) {
			fputs("\\u003c", out);
			s++;
		}
	}
}

static void doc_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	doc_chars(out, s, strlen(s));
	fputc('"', out);
}

/* "key":"value" after a comma */
static void doc_kv(FILE *out, const char *key, const char *s)
{
	fprintf(out, ",\"%s\":", key);
	doc_str(out, s);
}

static void doc_addr(FILE *out, const char *key, uint64_t a)
{
	fprintf(out, ",\"%s\":\"0x%llx\"", key, (unsigned long long)a);
}

/* --- the kernel's functions, by the sites compiled into kwsim ------------------------- */

/*
 * Records do not carry source sites; the sites every SIM_HERE compiled in
 * (sim_site_get) do. A kernel function's line is its first site in the
 * variant's file: where it first takes a lock or checks a condition.
 */
struct kfunc {
	const char *func;	/* unprefixed */
	const char *file;
	int line;
};

static int by_func(const void *a, const void *b)
{
	return strcmp(((const struct kfunc *)a)->func, ((const struct kfunc *)b)->func);
}

struct html_item {
	uint64_t time, seq;
	int cpu;
	bool is_rec, is_state;
	struct sim_rec r;
	struct scn_event ev;
	struct scn_obj_state st;	/* is_state: an object's new kthread_worker state */
};

#define HTML_MAX_WATCHED 64	/* works and workers whose state the document follows */

/* A context's current scenario line: by pid, or by CPU in an interrupt (-1 - cpu). */
struct ctx_line {
	long key;
	int line;
};

struct html_doc {
	const struct scn *s;
	const struct kw_model *m;
	FILE *recs;
	bool first;		/* the next record written is the first of its output */
	size_t max;
	size_t made, kept, dropped;
	uint64_t dropped_from;
	struct html_item *v;	/* a heap by (time, cpu, seq) */
	size_t n, cap;
	uint64_t seq;
	struct ctx_line *lines;	/* sorted by key */
	size_t nlines, caplines;
	struct kfunc *kf;	/* sorted by func */
	size_t nkf;
	const struct scn_run *run;	/* html_doc_watch(): whose objects' states to follow */
	struct scn_obj_state was[HTML_MAX_WATCHED];	/* as last written, by object id */
	bool seen[HTML_MAX_WATCHED];
};

static void learn_kfuncs(struct html_doc *d)
{
	char want[160];
	const char *file = NULL, *ns = d->m->ns ? d->m->ns : "";
	size_t n = sim_site_count(), nsl = strlen(ns);

	/* the variant's file: where its kthread_queue_work is */
	snprintf(want, sizeof(want), "%skthread_queue_work", ns);
	for (size_t i = 0; i < n && !file; i++)
		if (!strcmp(sim_site_get(i)->func, want))
			file = sim_site_get(i)->file;
	if (!file)
		return;
	d->kf = calloc(n, sizeof(*d->kf));
	if (!d->kf)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct sim_site *st = sim_site_get(i);

		if (strcmp(st->file, file))
			continue;
		/* the variant's global names carry its prefix (model/ns.h); static ones do not */
		d->kf[d->nkf++] = (struct kfunc){ st->func + (strncmp(st->func, ns, nsl) ? 0 : nsl),
						  st->file, st->line };
	}
	qsort(d->kf, d->nkf, sizeof(*d->kf), by_func);
	/* keep each function's first line */
	size_t w = 0;
	for (size_t i = 0; i < d->nkf; i++) {
		if (w && !strcmp(d->kf[w - 1].func, d->kf[i].func)) {
			if (d->kf[i].line < d->kf[w - 1].line)
				d->kf[w - 1].line = d->kf[i].line;
			continue;
		}
		d->kf[w++] = d->kf[i];
	}
	d->nkf = w;
}

static const struct kfunc *kfunc_find(const struct html_doc *d, const char *func, size_t len)
{
	char name[96];
	struct kfunc key = { name, NULL, 0 };

	if (!d->nkf || len >= sizeof(name))
		return NULL;
	memcpy(name, func, len);
	name[len] = '\0';
	return bsearch(&key, d->kf, d->nkf, sizeof(*d->kf), by_func);
}

static void doc_kfunc(FILE *out, const struct html_doc *d, const char *func, size_t len)
{
	const struct kfunc *k = kfunc_find(d, func, len);

	if (!k)
		return;
	doc_kv(out, "kfunc", k->func);
	doc_kv(out, "kfile", k->file);
	fprintf(out, ",\"kline\":%d", k->line);
}

/* --- taking records in ------------------------------------------------------------------ */

static bool item_before(const struct html_item *a, const struct html_item *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	return a->seq < b->seq;
}

static void item_swap(struct html_item *a, struct html_item *b)
{
	struct html_item t = *a;

	*a = *b;
	*b = t;
}

static struct html_item *push(struct html_doc *d, uint64_t time, int cpu)
{
	size_t i = d->n;

	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 256;
		d->v = realloc(d->v, d->cap * sizeof(*d->v));
		if (!d->v)
			abort();
	}
	d->v[d->n++] = (struct html_item){ .time = time, .cpu = cpu, .seq = d->seq++ };
	for (; i && item_before(&d->v[i], &d->v[(i - 1) / 2]); i = (i - 1) / 2)
		item_swap(&d->v[i], &d->v[(i - 1) / 2]);
	return &d->v[i];
}

static struct html_item pop(struct html_doc *d)
{
	struct html_item top = d->v[0];
	size_t i = 0;

	d->v[0] = d->v[--d->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < d->n && item_before(&d->v[l], &d->v[m]))
			m = l;
		if (l + 1 < d->n && item_before(&d->v[l + 1], &d->v[m]))
			m = l + 1;
		if (m == i)
			break;
		item_swap(&d->v[i], &d->v[m]);
		i = m;
	}
	return top;
}

static bool state_same(const struct scn_obj_state *a, const struct scn_obj_state *b)
{
	return a->pending == b->pending && a->queued == b->queued && a->delayed == b->delayed &&
	       a->running == b->running && a->timer == b->timer && a->canceling == b->canceling &&
	       a->cur_work == b->cur_work;
}

/*
 * After each record and line: the watched objects whose state changed since
 * it was last written get a kw_state item at this time and CPU, after what
 * came before it. The model changes a work's state under worker->lock, and
 * each lock section ends in a lock_release record, so a change is seen at
 * the record that ends its section, not later.
 */
static void sample(struct html_doc *d, uint64_t time, int cpu)
{
	struct scn_obj_state now[HTML_MAX_WATCHED];
	size_t n;

	if (!d->run)
		return;
	n = scn_state_objs(d->run, now, HTML_MAX_WATCHED);
	for (size_t i = 0; i < n; i++) {
		int id = now[i].obj->id;
		struct html_item *it;

		if (id >= HTML_MAX_WATCHED || (d->seen[id] && state_same(&d->was[id], &now[i])))
			continue;
		d->seen[id] = true;
		d->was[id] = now[i];
		it = push(d, time, cpu);
		it->is_state = true;
		it->st = now[i];
	}
}

void html_doc_watch(struct html_doc *d, const struct scn_run *run)
{
	d->run = run;
}

void html_doc_record(struct html_doc *d, const struct sim_rec *r)
{
	struct html_item *it = push(d, r->time, r->cpu);

	it->is_rec = true;
	it->r = *r;
	sample(d, r->time, r->cpu);
}

static long ctx_key(const struct scn_event *ev)
{
	return ev->pid > 0 ? ev->pid : -1L - ev->cpu;
}

/*
 * The account's line names the scenario line its context was running: the
 * last one that context started, in the machine's order, which within one
 * context is the order things happened.
 */
static struct ctx_line *ctx_line(struct html_doc *d, long key)
{
	size_t lo = 0, hi = d->nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->lines[mid].key == key)
			return &d->lines[mid];
		if (d->lines[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (d->nlines == d->caplines) {
		d->caplines = d->caplines ? 2 * d->caplines : 16;
		d->lines = realloc(d->lines, d->caplines * sizeof(*d->lines));
		if (!d->lines)
			abort();
	}
	memmove(&d->lines[lo + 1], &d->lines[lo], (d->nlines - lo) * sizeof(*d->lines));
	d->lines[lo] = (struct ctx_line){ key, 0 };
	d->nlines++;
	return &d->lines[lo];
}

void html_doc_event(struct html_doc *d, const struct scn_event *ev)
{
	struct html_item *it;
	int line = ctx_line(d, ctx_key(ev))->line;

	it = push(d, ev->time, ev->cpu);
	it->ev = *ev;
	it->ev.line = line;
	sample(d, ev->time, ev->cpu);
}

void html_doc_line(struct html_doc *d, const struct scn_event *ev)
{
	struct html_item *it;

	ctx_line(d, ctx_key(ev))->line = ev->line;
	it = push(d, ev->time, ev->cpu);
	it->ev = *ev;
	it->ev.what[0] = '\0';
}

/* --- writing records ---------------------------------------------------------------------- */

static const char *ctx_name(uint8_t flags)
{
	return flags & TRACE_FLAG_SOFTIRQ ? "softirq" : flags & TRACE_FLAG_HARDIRQ ? "hardirq"
										  : "task";
}

/* The kernel function that fires a model tracepoint (or makes kwsim's record in its place). */
static const char *tp_func(const struct sim_rec *r)
{
	switch (sim_rec_work_step(r)) {
	case SIM_WORK_QUEUE:
		return "kthread_insert_work";
	case SIM_WORK_START:
	case SIM_WORK_END:
		return "kthread_worker_fn";
	default:
		return NULL;
	}
}

/* A record's fields as its description names them (sim/trace_events.h): every one. */
static void doc_fields(FILE *out, const struct sim_rec *r)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);
	struct trace_field_value v;

	for (unsigned int i = 0; i < d->nfields; i++) {
		const char *name = d->field[i].name;

		switch (trace_view_field(r, &d->field[i], &v)) {
		case TRACE_VALUE_ADDR:
			doc_addr(out, name, (uint64_t)v.n);
			break;
		case TRACE_VALUE_STR:
			doc_kv(out, name, v.s);
			break;
		case TRACE_VALUE_INT:
			fprintf(out, ",\"%s\":%lld", name, v.n);
			break;
		default:
			fprintf(out, ",\"%s\":%llu", name, (unsigned long long)v.n);
			break;
		}
	}
}

static void write_rec_fields(FILE *out, const struct html_doc *d, const struct sim_rec *r)
{
	struct trace_timer_start ts;
	char comm[17];
	const char *name;

	switch (r->type) {
	case REC_SCHED_SWITCH:
		fprintf(out, ",\"prev_pid\":%llu", (unsigned long long)r->a);
		doc_kv(out, "prev_comm", r->a ? trace_view_str(r->s) : "<idle>");
		doc_kv(out, "prev_state", trace_view_prev_state(r));
		fprintf(out, ",\"next_pid\":%llu", (unsigned long long)r->c);
		doc_kv(out, "next_comm", r->c ? trace_view_str(r->s2) : "<idle>");
		return;
	case REC_SCHED_WAKING:
		fprintf(out, ",\"task_pid\":%llu", (unsigned long long)r->a);
		doc_kv(out, "task_comm", trace_view_str(r->s));
		fprintf(out, ",\"target_cpu\":%llu", (unsigned long long)r->b);
		return;
	case REC_TASK_NEW:
		fprintf(out, ",\"task_pid\":%llu", (unsigned long long)r->a);
		doc_kv(out, "task_comm", trace_view_str(r->s));
		return;
	case REC_TASK_EXIT:
		fprintf(out, ",\"task_pid\":%llu,\"code\":%lld", (unsigned long long)r->a,
			(long long)r->b);
		return;
	case REC_TIMER_START:
		trace_view_timer_start(r, d->s->cfg.hz, &ts);
		doc_addr(out, "timer", r->a);
		doc_kv(out, "function", trace_view_str(r->s));
		fprintf(out, ",\"expires\":%lu,\"timeout\":%ld", ts.expires, ts.timeout);
		return;
	case REC_TIMER_EXPIRE_ENTRY:
		doc_addr(out, "timer", r->a);
		doc_kv(out, "function", trace_view_str(r->s));
		fprintf(out, ",\"now\":%llu", (unsigned long long)r->b);
		return;
	case REC_LOCK_RELEASE:
		doc_fields(out, r);
		return;
	case REC_LOCK_ACQUIRE:
		doc_addr(out, "lock", r->a);
		doc_kv(out, "name", trace_view_str(r->s));
		fprintf(out, ",\"try\":%s", r->b & TRACE_LOCK_TRY ? "true" : "false");
		return;
	case REC_IRQ_ENTRY:
		doc_kv(out, "name", trace_view_str(r->s));
		return;
	case REC_SOFTIRQ_ENTRY:
		doc_kv(out, "name", r->s ? r->s : "TIMER");
		return;
	case REC_IRQ_EXIT:
	case REC_SOFTIRQ_EXIT:	/* the entry's fields say it all */
		return;
	case REC_FINDING:
		fprintf(out, ",\"index\":%llu", (unsigned long long)r->a);
		doc_kv(out, "kind", trace_view_str(r->s));
		return;
	case REC_FREEZER:
		if (!r->a && !r->s2) {
			doc_kv(out, "action", trace_view_str(r->s));
			fprintf(out, ",\"val\":%llu,\"start\":%s,\"slept_ns\":%llu",
				(unsigned long long)r->b, r->c ? "true" : "false",
				(unsigned long long)r->d);
			return;
		}
		fprintf(out, ",\"task_pid\":%llu", (unsigned long long)r->a);
		snprintf(comm, sizeof(comm), "%.16s", trace_view_str(r->s2));
		doc_kv(out, "task_comm", comm);
		return;
	case REC_MODEL:
		doc_addr(out, "work", r->a);
		doc_addr(out, "worker", r->b);
		doc_kv(out, "function", trace_view_str(r->s2));
		name = tp_func(r);
		if (name)
			doc_kfunc(out, d, name, strlen(name));
		return;
	case REC_PRINTK:
		fprintf(out, ",\"level\":%llu", (unsigned long long)r->a);
		doc_kv(out, "text", trace_view_str(r->s));
		return;
	case REC_STALL: {
		char until[16];

		fprintf(out, ",\"held_ns\":%llu,\"decision\":%llu", (unsigned long long)r->a,
			(unsigned long long)r->c);
		doc_kv(out, "until", sim_stall_until_name((int64_t)r->b, until, sizeof(until)));
		doc_kv(out, "held", r->s ? r->s : "idle");
		fprintf(out, ",\"line\":%llu", (unsigned long long)r->d);
		if (r->s2)
			doc_kv(out, "note", r->s2);
		return;
	}
	default:	/* a plain event: its description's fields */
		if (sim_rec_desc(r->type) && sim_rec_desc(r->type)->print == SIM_PRINT_FIELDS)
			doc_fields(out, r);
		return;
	}
}

static const char *rec_ev(const struct sim_rec *r)
{
	switch (r->type) {
	case REC_FINDING:
		return "finding";
	case REC_FREEZER:
		return !r->a && !r->s2 ? "suspend_resume" : trace_view_str(r->s);
	case REC_MODEL:
		return trace_view_str(r->s);
	default:
		return sim_rec_type_name((enum sim_rec_type)r->type);
	}
}

/* A kw_state item: an object's state from now on (html.h). */
static void write_state(FILE *out, const struct scn_obj_state *st)
{
	const struct scn_obj *o = st->obj;

	fputs(",\"pid\":0,\"comm\":\"\",\"ctx\":\"task\",\"ev\":\"kw_state\"", out);
	doc_kv(out, "obj", o->name);
	doc_kv(out, "kind", o->kind == OBJ_WORKER ? "worker" : o->kind == OBJ_DWORK ? "delayed_work"
										    : "work");
	if (o->kind == OBJ_WORKER) {
		fputs(",\"current_work\":", out);
		if (st->cur_work)
			doc_str(out, st->cur_work->name);
		else
			fputs("null", out);
		return;
	}
	fprintf(out, ",\"pending\":%d,\"queued\":%d,\"delayed\":%d,\"running\":%d,"
		"\"canceling\":%d", st->pending, st->queued, st->delayed, st->running, st->canceling);
	if (o->kind == OBJ_DWORK)
		fprintf(out, ",\"timer_pending\":%d", st->timer);
}

static void write_item(struct html_doc *d, const struct html_item *it)
{
	FILE *out = d->recs;
	char comm[17];

	if (!d->first)
		fputs(",\n", out);
	d->first = false;
	fprintf(out, "{\"t\":%llu,\"cpu\":%d", (unsigned long long)it->time, it->cpu);
	if (it->is_state) {
		write_state(out, &it->st);
	} else if (it->is_rec) {
		const struct sim_rec *r = &it->r;

		snprintf(comm, sizeof(comm), "%.16s", r->pid > 0 ? r->comm : "<idle>");
		fprintf(out, ",\"pid\":%d", r->pid > 0 ? (int)r->pid : 0);
		doc_kv(out, "comm", comm);
		doc_kv(out, "ctx", ctx_name(r->flags));
		doc_kv(out, "ev", rec_ev(r));
		write_rec_fields(out, d, r);
	} else {
		const struct scn_event *ev = &it->ev;
		bool irq = !strcmp(ev->who, "hardirq") || !strcmp(ev->who, "softirq");

		fprintf(out, ",\"pid\":%d", ev->pid);
		doc_kv(out, "comm", ev->who);
		doc_kv(out, "ctx", irq ? ev->who : "task");
		doc_kv(out, "ev", ev->what[0] ? "scn_say" : "scn_line");
		fprintf(out, ",\"line\":%d", ev->line);
		if (ev->what[0]) {
			doc_kv(out, "who", ev->who);
			doc_kv(out, "what", ev->what);
			/* an API call's kernel function: the name before its '(' */
			if (!strncmp(ev->what, "kthread_", 8) || !strncmp(ev->what, "wait_for_", 9))
				doc_kfunc(out, d, ev->what, strcspn(ev->what, "("));
		}
	}
	fputc('}', out);
}

static void emit(struct html_doc *d, const struct html_item *it)
{
	d->made++;
	/* findings always stay: the list links to their moments */
	if (d->kept >= d->max && !(it->is_rec && it->r.type == REC_FINDING)) {
		if (!d->dropped++)
			d->dropped_from = it->time;
		return;
	}
	d->kept++;
	write_item(d, it);
}

static void release(struct html_doc *d, uint64_t watermark, bool all)
{
	if (!d->recs)
		return;
	while (d->n && (all || d->v[0].time < watermark)) {
		struct html_item it = pop(d);

		emit(d, &it);
	}
}

void html_doc_release(struct html_doc *d, uint64_t watermark)
{
	release(d, watermark, false);
}

size_t html_doc_held(const struct html_doc *d)
{
	return d->n;
}

/* --- the document ------------------------------------------------------------------------ */

struct html_doc *html_doc_begin(const struct scn *s, const struct kw_model *m, size_t max_records)
{
	struct html_doc *d = calloc(1, sizeof(*d));

	if (!d)
		abort();
	d->s = s;
	d->m = m;
	d->max = max_records ? max_records : HTML_MAX_RECORDS;
	d->first = true;
	learn_kfuncs(d);
	return d;
}

void html_doc_output(struct html_doc *d, FILE *recs)
{
	d->recs = recs;
	d->first = true;
}

void html_doc_head(struct html_doc *d, FILE *out, bool whole)
{
	const struct scn *s = d->s;

	fputs("{\"kwsim_doc\":1", out);
	doc_kv(out, "title", s->name);
	fputs(",\"scenario\":{\"name\":", out);
	doc_str(out, s->name);
	doc_kv(out, "path", s->path);
	fputs(",\"text\":\"", out);
	doc_chars(out, s->text, s->text_len);
	fputs("\"},\"run\":{\"kernel\":", out);
	doc_str(out, d->m->name);
	fprintf(out, ",\"cpus\":%d,\"hz\":%u,\"preempt\":\"%s\",\"strategy\":\"%s\",\"seed\":%llu,"
		"\"replay\":%s,\"max_records\":%zu}", s->cfg.ncpus, s->cfg.hz,
		scn_preempt_name(s->cfg.preempt), scn_strategy_name(s->cfg.strategy),
		(unsigned long long)s->cfg.seed, s->replay ? "true" : "false", d->max);
	fputs(whole ? ",\"records\":[\n" : "}", out);
}

/* The scenario line a finding's note names ("path:line"), or 0. */
static int note_line(const struct scn *s, const char *note)
{
	size_t n = strlen(s->path);

	if (strncmp(note, s->path, n) || note[n] != ':')
		return 0;
	return atoi(note + n + 1);
}

void html_doc_end(struct html_doc *d, FILE *out, const struct scn_run *run, bool whole)
{
	const struct scn *s = d->s;

	release(d, 0, true);
	fputs(whole ? "\n],\"end\":{" : "{", out);
	fprintf(out, "\"outcome\":\"%s\",\"end_ns\":%llu,\"decisions\":%zu,\"hash\":\"%016llx\"",
		sim_end_name(run->end), (unsigned long long)run->end_time, run->ndecisions,
		(unsigned long long)run->hash);
	if (s->quant != Q_NONE) {
		fprintf(out, ",\"verdict\":\"%s\"", scn_expectations_hold(s, run) ? "Ok" : "No");
		doc_kv(out, "condition", s->cond_text);
	} else {
		fputs(",\"verdict\":null,\"condition\":null", out);
	}
	fputs(",\"findings\":[", out);
	for (size_t i = 0; i < run->nfindings; i++) {
		const struct sim_finding *f = &run->findings[i];

		fprintf(out, "%s{\"kind\":\"%s\"", i ? "," : "", sim_finding_kind_name(f->kind));
		doc_kv(out, "msg", f->msg);
		fprintf(out, ",\"t\":%llu,\"cpu\":%d", (unsigned long long)f->time, f->cpu);
		doc_kv(out, "context", f->context);
		doc_kv(out, "file", f->site.file);
		fprintf(out, ",\"line\":%d", f->site.line);
		doc_kv(out, "func", f->site.func);
		doc_kv(out, "note", f->note);
		fprintf(out, ",\"scn_line\":%d,\"decision\":%llu}", note_line(s, f->note),
			(unsigned long long)f->decision);
	}
	fprintf(out, "],\"records\":%zu,\"kept\":%zu,\"dropped\":%zu,\"dropped_from_ns\":",
		d->made, d->kept, d->dropped);
	if (d->dropped)
		fprintf(out, "%llu", (unsigned long long)d->dropped_from);
	else
		fputs("null", out);
	fputs(whole ? "}}" : "}", out);
}

void html_doc_free(struct html_doc *d)
{
	if (!d)
		return;
	free(d->v);
	free(d->lines);
	free(d->kf);
	free(d);
}
