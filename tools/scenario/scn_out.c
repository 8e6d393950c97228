/*
 * What a run prints: the readable summary, the result block in herd7's
 * shape, the same as JSON, and the scenario with its decision log appended.
 */
#include "scn.h"

#include <model.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"

static void collect_state(FILE *out, const struct scn_run *run, const struct scn_expr *e,
			  bool live);

const char *scn_quant_name(enum scn_quant q)
{
	switch (q) {
	case Q_EXISTS: return "exists";
	case Q_NOT_EXISTS: return "~exists";
	case Q_FORALL: return "forall";
	case Q_NONE: break;
	}
	return "";
}

static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		(unsigned long long)(ns % 1000000000ULL));
}

/*
 * The length of the UTF-8 sequence at c if it is valid and printable, else
 * 0: overlong forms, surrogates, C1 controls and the bidirectional
 * overrides (which can make a line read other than it is) are not.
 */
static size_t printable_len(const unsigned char *c)
{
	size_t n;
	uint32_t cp;

	if (*c < 0x80)
		return *c >= 0x20 && *c != 0x7f;
	if (*c >= 0xc2 && *c <= 0xdf) {
		n = 2;
		cp = *c & 0x1f;
	} else if ((*c & 0xf0) == 0xe0) {
		n = 3;
		cp = *c & 0x0f;
	} else if (*c >= 0xf0 && *c <= 0xf4) {
		n = 4;
		cp = *c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((c[i] & 0xc0) != 0x80)	/* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (c[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0) ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return n;
}

/* scn_put_text, returning the columns written (one per character) */
static int put_text(FILE *out, const char *text)
{
	const unsigned char *c = (const unsigned char *)(text ? text : "");
	int cols = 0;

	while (*c) {
		size_t n = printable_len(c);

		if (n) {
			fwrite(c, 1, n, out);
			c += n;
			cols++;
		} else if (*c == '\t') {
			fputs("\\t", out);
			c++;
			cols += 2;
		} else {
			fprintf(out, "\\x%02x", *c++);
			cols += 4;
		}
	}
	return cols;
}

void scn_put_text(FILE *out, const char *text)
{
	put_text(out, text);
}

const char *scn_ev_kind_name(enum scn_ev_kind kind)
{
	static const char *const names[] = {
		[SCN_EV_CALL] = "call", [SCN_EV_BEGINS] = "begins", [SCN_EV_RETURNS] = "returns",
		[SCN_EV_FAILED] = "failed", [SCN_EV_ASSIGN] = "assign", [SCN_EV_RANGE] = "range",
		[SCN_EV_WORK] = "work", [SCN_EV_TIMER] = "timer", [SCN_EV_START] = "start",
		[SCN_EV_END] = "end", [SCN_EV_IRQ] = "irq", [SCN_EV_POWER] = "power",
		[SCN_EV_AT] = "at", [SCN_EV_LOG] = "log", [SCN_EV_MACHINE] = "machine",
	};

	return (size_t)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static void print_line(FILE *out, uint64_t time, int cpu, const char *who, const char *what)
{
	fputs("  ", out);
	print_time(out, time);
	fprintf(out, "  cpu%d  ", cpu);
	for (int cols = put_text(out, who); cols < 12; cols++)
		fputc(' ', out);
	fputc(' ', out);
	put_text(out, what);
	fputc('\n', out);
}

/* The machine's own steps worth a line: timers firing, the freezer's progress, stalls. */
static bool machine_line(const struct sim_rec *r, struct scn_event *ev)
{
	char *what = ev->what, until[16];
	size_t len = sizeof(ev->what);

	ev->kind = SCN_EV_MACHINE;
	switch (r->type) {
	case REC_STALL:
		sim_stall_until_name((int64_t)r->b, until, sizeof(until));
		snprintf(what, len, "stall: cpu%u held up for %llu.%03llu us (until %s) in %s",
			 (unsigned int)r->cpu, (unsigned long long)(r->a / 1000),
			 (unsigned long long)(r->a % 1000), until, r->s ? r->s : "idle");
		if (r->d)
			snprintf(what + strlen(what), len - strlen(what), " at line %llu",
				 (unsigned long long)r->d);
		else if (r->s2)
			snprintf(what + strlen(what), len - strlen(what), " (%s)", r->s2);
		snprintf(ev->call, sizeof(ev->call), "stall");
		snprintf(ev->result, sizeof(ev->result), "%s", until);
		snprintf(ev->obj, sizeof(ev->obj), "%s", r->s ? r->s : "idle");
		snprintf(ev->text, sizeof(ev->text), "%s", r->s2 ? r->s2 : "");
		ev->num[0] = (long long)r->a;
		ev->num[1] = (long long)r->d;
		return true;
	case REC_TIMER_EXPIRE_ENTRY:
		snprintf(what, len, "timer fires: %s", r->s ? r->s : "?");
		snprintf(ev->call, sizeof(ev->call), "timer_fires");
		snprintf(ev->text, sizeof(ev->text), "%s", r->s ? r->s : "?");
		return true;
	case REC_FREEZER:
		snprintf(ev->call, sizeof(ev->call), r->s2 ? "freezer" : "suspend");
		if (r->s2) {
			snprintf(what, len, "freezer: %s %s", r->s2, r->s);
			snprintf(ev->obj, sizeof(ev->obj), "%s", r->s2);
			snprintf(ev->text, sizeof(ev->text), "%s", r->s);
		} else if (!strcmp(r->s, "freeze_processes")) {
			snprintf(what, len, "suspend: %s", r->c ? "freezing tasks" : "freezing ends");
			snprintf(ev->text, sizeof(ev->text), r->c ? "freezing_tasks" : "freezing_ends");
		} else if (!strcmp(r->s, "machine_suspend")) {
			if (r->c)
				snprintf(what, len, "suspend: the machine sleeps");
			else
				snprintf(what, len, "suspend: the machine wakes; its clock and jiffies "
					 "stood still, the boot clock reads %llu.%03llu ms more",
					 (unsigned long long)(r->d / 1000000),
					 (unsigned long long)(r->d / 1000 % 1000));
			snprintf(ev->text, sizeof(ev->text), r->c ? "sleeps" : "wakes");
			ev->num[0] = r->c ? 0 : (long long)r->d;
		} else if (!strcmp(r->s, "thaw_processes") && !r->c) {
			snprintf(what, len, "suspend: tasks thawed");
			snprintf(ev->text, sizeof(ev->text), "thawed");
		} else {	/* the other steps are the trace's */
			return false;
		}
		return true;
	default:
		return false;
	}
}

/* A string field, or null when empty. */
static void json_str_or_null(FILE *out, const char *key, const char *s)
{
	fprintf(out, ",\"%s\":", key);
	if (s[0])
		json_str(out, s);
	else
		fputs("null", out);
}

/* A machine's step in parts (machine_line()). */
static void json_machine(FILE *out, const struct scn_event *ev)
{
	if (!strcmp(ev->call, "stall")) {
		fprintf(out, ",\"held_ns\":%lld,\"until\":", ev->num[0]);
		json_str(out, ev->result);
		fputs(",\"context\":", out);
		json_str(out, ev->obj);
		if (ev->num[1])
			fprintf(out, ",\"line\":%lld", ev->num[1]);
		else
			fputs(",\"line\":null", out);
		json_str_or_null(out, "note", ev->text);
	} else if (!strcmp(ev->call, "timer_fires")) {
		fputs(",\"function\":", out);
		json_str(out, ev->text);
	} else if (!strcmp(ev->call, "freezer")) {
		fputs(",\"task\":", out);
		json_str(out, ev->obj);
		fputs(",\"action\":", out);
		json_str(out, ev->text);
	} else {
		fputs(",\"step\":", out);
		json_str(out, ev->text);
		if (!strcmp(ev->text, "wakes"))
			fprintf(out, ",\"slept_ns\":%lld", ev->num[0]);
	}
}

/* A line of the account in parts: what run --json's events hold (its schema). */
static void json_event(FILE *out, const struct scn_event *ev)
{
	fputs(",\"event\":", out);
	json_str(out, ev->kind == SCN_EV_MACHINE ? ev->call : scn_ev_kind_name(ev->kind));
	switch ((enum scn_ev_kind)ev->kind) {
	case SCN_EV_CALL:
	case SCN_EV_BEGINS:
	case SCN_EV_RETURNS:
	case SCN_EV_RANGE:
		fputs(",\"call\":", out);
		json_str(out, ev->call);
		fputs(",\"args\":[", out);
		for (int i = 0; i < ev->nargs; i++) {
			if (i)
				fputc(',', out);
			json_str(out, ev->args[i]);
		}
		fputc(']', out);
		if (ev->kind == SCN_EV_RANGE) {
			fputs(",\"range\":", out);
			json_str(out, ev->text);
			break;
		}
		fputs(",\"result\":", out);
		if (ev->result[0])
			json_value(out, ev->result);
		else
			fputs("null", out);
		break;
	case SCN_EV_FAILED:
		fputs(",\"call\":", out);
		json_str(out, ev->call);
		fputs(",\"args\":null,\"result\":", out);
		json_value(out, ev->result);
		json_str_or_null(out, "note", ev->text);
		break;
	case SCN_EV_ASSIGN:
		fputs(",\"call\":", out);
		json_str(out, ev->call);
		fputs(",\"object\":", out);
		json_str(out, ev->obj);
		break;
	case SCN_EV_WORK:
	case SCN_EV_TIMER:
		fprintf(out, ",\"%s\":", ev->kind == SCN_EV_WORK ? "work" : "timer");
		json_str(out, ev->obj);
		fputs(",\"function\":", out);
		json_str(out, ev->call);
		break;
	case SCN_EV_START:
	case SCN_EV_END:
	case SCN_EV_IRQ:
	case SCN_EV_POWER:
		fputs(",\"program\":", out);
		json_str(out, ev->obj);
		if (ev->kind != SCN_EV_END)
			json_str_or_null(out, "at", ev->text);
		break;
	case SCN_EV_AT:
		fputs(",\"at\":", out);
		json_str(out, ev->text);
		break;
	case SCN_EV_LOG:
		fputs(",\"text\":", out);
		json_str(out, ev->text);
		break;
	case SCN_EV_MACHINE:
		json_machine(out, ev);
		break;
	}
}

/* --- what ran, as it runs --------------------------------------------------------------- */

/*
 * The interpreter's account (calls, results, work runs) and the machine's
 * steps from the trace come in the machine's order, which is not time
 * order: each CPU has its own clock. A line waits in a heap until the
 * machine's watermark has passed it, and lines leave in (time, CPU, order
 * of making) order, so the account reads as a timeline across CPUs.
 */
struct tl_line {
	uint64_t time;
	int cpu;
	bool machine;
	uint64_t seq;
	char *packed;		/* the event, tl_pack()ed */
};

struct scn_timeline {
	FILE *out;
	bool json, written;
	struct tl_line *v;	/* a heap */
	size_t n, cap;
	uint64_t seq;
};

/*
 * A held event, packed: its numbers, then each string with its NUL. A
 * loop of log() calls passes no time, so nothing is released until the run
 * ends: the whole struct (1.5 KB, its strings' fixed arrays) held per line
 * took a GB a million lines; packed, a line's text and a few numbers.
 */
struct tl_nums {
	uint64_t time;
	int cpu, pid, line;
	uint8_t kind, nargs;
	long long num[2];
};

#define TL_NSTRINGS	(6 + SCN_EV_MAX_ARGS)

/* ev's strings, and the size of each one's array */
static void tl_strings(const struct scn_event *ev, const char *str[TL_NSTRINGS],
		       size_t size[TL_NSTRINGS])
{
	const char *s[] = { ev->who, ev->what, ev->call, ev->result, ev->obj, ev->text };
	const size_t z[] = { sizeof(ev->who), sizeof(ev->what), sizeof(ev->call),
			     sizeof(ev->result), sizeof(ev->obj), sizeof(ev->text) };
	int n = 0;

	for (; n < 6; n++) {
		str[n] = s[n];
		size[n] = z[n];
	}
	for (int a = 0; a < SCN_EV_MAX_ARGS; a++, n++) {
		str[n] = ev->args[a];
		size[n] = sizeof(ev->args[a]);
	}
}

static char *tl_pack(const struct scn_event *ev)
{
	struct tl_nums nums = { ev->time, ev->cpu, ev->pid, ev->line, ev->kind, ev->nargs,
				{ ev->num[0], ev->num[1] } };
	const char *str[TL_NSTRINGS];
	size_t size[TL_NSTRINGS], len[TL_NSTRINGS], total = sizeof(nums);
	char *p, *at;

	tl_strings(ev, str, size);
	for (int i = 0; i < TL_NSTRINGS; i++) {
		len[i] = strnlen(str[i], size[i] - 1);
		total += len[i] + 1;
	}
	p = malloc(total);
	if (!p)
		abort();
	memcpy(p, &nums, sizeof(nums));
	at = p + sizeof(nums);
	for (int i = 0; i < TL_NSTRINGS; i++) {
		memcpy(at, str[i], len[i]);
		at[len[i]] = '\0';
		at += len[i] + 1;
	}
	return p;
}

static void tl_unpack(const char *p, struct scn_event *ev)
{
	struct tl_nums nums;
	const char *str[TL_NSTRINGS];
	size_t size[TL_NSTRINGS];

	memcpy(&nums, p, sizeof(nums));
	*ev = (struct scn_event){ .time = nums.time, .cpu = nums.cpu, .pid = nums.pid,
				  .line = nums.line, .kind = nums.kind, .nargs = nums.nargs,
				  .num = { nums.num[0], nums.num[1] } };
	tl_strings(ev, str, size);
	p += sizeof(nums);
	for (int i = 0; i < TL_NSTRINGS; i++) {
		size_t len = strlen(p);

		memcpy((char *)str[i], p, len + 1);
		p += len + 1;
	}
}

static bool tl_before(const struct tl_line *a, const struct tl_line *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu;
	return a->seq < b->seq;
}

static void tl_swap(struct tl_line *a, struct tl_line *b)
{
	struct tl_line t = *a;

	*a = *b;
	*b = t;
}

static void tl_push(struct scn_timeline *t, const struct scn_event *ev, bool machine)
{
	size_t i = t->n;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v)
			abort();
	}
	t->v[t->n++] = (struct tl_line){ ev->time, ev->cpu, machine, t->seq++, tl_pack(ev) };
	for (; i && tl_before(&t->v[i], &t->v[(i - 1) / 2]); i = (i - 1) / 2)
		tl_swap(&t->v[i], &t->v[(i - 1) / 2]);
}

static void tl_write(struct scn_timeline *t, const struct tl_line *l)
{
	FILE *out = t->out;
	struct scn_event ev;

	tl_unpack(l->packed, &ev);
	if (!t->json) {
		print_line(out, ev.time, ev.cpu, ev.who, ev.what);
		return;
	}
	fprintf(out, "%s{\"time_ns\":%llu,\"cpu\":%d,\"source\":\"%s\",\"who\":",
		t->written ? "," : "", (unsigned long long)ev.time, ev.cpu,
		l->machine ? "machine" : "scenario");
	json_str(out, ev.who);
	json_event(out, &ev);
	fputc('}', out);
	t->written = true;
}

static void tl_release(struct scn_timeline *t, uint64_t watermark, bool all)
{
	while (t->n && (all || t->v[0].time < watermark)) {
		struct tl_line top = t->v[0];
		size_t i = 0;

		t->v[0] = t->v[--t->n];
		for (;;) {
			size_t l = 2 * i + 1, m = i;

			if (l < t->n && tl_before(&t->v[l], &t->v[m]))
				m = l;
			if (l + 1 < t->n && tl_before(&t->v[l + 1], &t->v[m]))
				m = l + 1;
			if (m == i)
				break;
			tl_swap(&t->v[i], &t->v[m]);
			i = m;
		}
		tl_write(t, &top);
		free(top.packed);
	}
}

struct scn_timeline *scn_timeline_begin(FILE *out, const struct scn *s,
					const struct kw_model *m, bool json)
{
	struct scn_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->out = out;
	t->json = json;
	if (!json) {
		fputs("kwsim: ", out);
		put_text(out, s->name);
		fputs(" (", out);
		put_text(out, s->path);
		fprintf(out, ")\nkernel %s", m->name);
		/* a machine not of the variant's own era says so */
		if (s->era)
			fprintf(out, " (era %u.%u)", s->era >> 8, s->era & 0xff);
		fprintf(out, ", %d cpu%s, HZ=%u, preempt %s, strategy %s", s->cfg.ncpus,
			s->cfg.ncpus == 1 ? "" : "s", s->cfg.hz, scn_preempt_name(s->cfg.preempt),
			scn_strategy_name(s->cfg.strategy));
		/* only the random strategy draws from the seed */
		if (s->cfg.strategy == SIM_STRATEGY_RANDOM)
			fprintf(out, ", seed %llu", (unsigned long long)s->cfg.seed);
		fputs("\n\nWhat ran:\n", out);
		return t;
	}
	fprintf(out, "{\"kwsim_run\":%d,\"scenario\":", SCN_JSON_VERSION);
	json_str(out, s->name);
	fputs(",\"file\":", out);
	json_str(out, s->path);
	fputs(",\"kernel\":", out);
	json_str(out, m->name);
	fprintf(out, ",\"cpus\":%d,\"hz\":%u,\"preempt\":\"%s\",\"strategy\":\"%s\",\"seed\":%llu,"
		"\"time_limit_ns\":%llu,\"events\":[", s->cfg.ncpus, s->cfg.hz,
		scn_preempt_name(s->cfg.preempt), scn_strategy_name(s->cfg.strategy),
		(unsigned long long)s->cfg.seed, (unsigned long long)s->cfg.time_limit_ns);
	return t;
}

void scn_timeline_event(struct scn_timeline *t, const struct scn_event *ev)
{
	tl_push(t, ev, false);
}

void scn_timeline_record(struct scn_timeline *t, const struct sim_rec *r)
{
	struct scn_event ev = { .time = r->time, .cpu = r->cpu };
	const char *who = r->flags & TRACE_FLAG_SOFTIRQ ? "softirq" :
			  r->flags & TRACE_FLAG_HARDIRQ ? "hardirq" : r->comm;

	if (!machine_line(r, &ev))
		return;
	snprintf(ev.who, sizeof(ev.who), "%.16s", who[0] ? who : "machine");
	tl_push(t, &ev, true);
}

void scn_timeline_release(struct scn_timeline *t, uint64_t watermark)
{
	tl_release(t, watermark, false);
}

size_t scn_timeline_held(const struct scn_timeline *t)
{
	return t->n;
}

void scn_timeline_end(struct scn_timeline *t)
{
	tl_release(t, 0, true);
	free(t->v);
	free(t);
}

static bool stopped_by_time_limit(const struct scn_run *run)
{
	return run->end == SIM_END_TIME_LIMIT;
}

void scn_print_summary(FILE *out, const struct scn *s, const struct scn_run *run)
{
	if (stopped_by_time_limit(run)) {
		fprintf(out, "  -- stopped at the time limit (time_limit = ");
		print_time(out, s->cfg.time_limit_ns);
		fprintf(out, " s): what was still to come did not run --\n");
	}
	for (int i = 0; i < s->nobjs; i++)
		if (s->objs[i]->kind == OBJ_FN)
			fprintf(out, "  fn %s ran %ld time%s\n", s->objs[i]->name, run->objs[i].count,
				run->objs[i].count == 1 ? "" : "s");
	fprintf(out, "\nFindings: %zu\n", run->nfindings);
	for (size_t i = 0; i < run->nfindings; i++) {
		const struct sim_finding *f = &run->findings[i];

		fprintf(out, "  [%zu] %s at ", i + 1, sim_finding_kind_name(f->kind));
		print_time(out, f->time);
		if (f->cpu >= 0)
			fprintf(out, " cpu%d", f->cpu);
		fputc(' ', out);
		put_text(out, f->context);
		if (f->site.file)
			fprintf(out, " (%s:%d %s)", f->site.file, f->site.line, f->site.func);
		else if (f->site.func)	/* a function the machine knows without its line */
			fprintf(out, " (%s)", f->site.func);
		fprintf(out, " decision %llu\n", (unsigned long long)f->decision);
		if (f->note[0]) {
			fputs("      during ", out);
			put_text(out, f->note);
			fputc('\n', out);
		}
		/* the message's continuation lines stay under it */
		for (const char *line = f->msg; *line;) {
			size_t n = strcspn(line, "\n");
			char buf[sizeof(f->msg)];

			memcpy(buf, line, n);
			buf[n] = '\0';
			fputs("      ", out);
			put_text(out, buf);
			fputc('\n', out);
			line += n + (line[n] == '\n');
		}
	}
	fprintf(out, "\nEnd: %s at ", sim_end_name(run->end));
	print_time(out, run->end_time);
	fprintf(out, " s, %zu decisions, trace hash %016llx\n", run->ndecisions,
		(unsigned long long)run->hash);
	if (stopped_by_time_limit(run))
		fprintf(out, "the run stopped at its time limit, not at its end: a longer "
			"time_limit shows the rest\n");
	if (run->end == SIM_END_DIVERGED)
		fprintf(out, "divergence: %s\n", run->divergence);
}

/* The values the expression looks at, as herd7 lists a state: each once. */
static void print_state(FILE *out, const struct scn_run *run, const struct scn_expr *e, bool live)
{
	char small[512], *buf = small;
	size_t len = scn_state_text(run, e, live, small, sizeof(small));

	if (len >= sizeof(small)) {
		buf = malloc(len + 1);
		if (!buf)
			abort();
		scn_state_text(run, e, live, buf, len + 1);
	}
	put_text(out, buf);
	if (buf != small)
		free(buf);
}

void scn_print_state(FILE *out, const struct scn_run *run, const struct scn_expr *e, bool live)
{
	print_state(out, run, e, live);
}

/* A state predicate as the state lists it: its arguments, and what it is compared with. */
static void state_name(FILE *out, const struct scn *s, const struct scn_expr *e)
{
	const char *name = scn_pred_name((enum scn_pred)e->value);

	switch ((enum scn_pred)e->value) {
	case PRED_CURRENT_WORK:
		fprintf(out, "%s(%s)==%s", name, e->obj->name, e->obj2 ? e->obj2->name : "NULL");
		return;
	case PRED_TASK_STATE:
	case PRED_TASK_CURR:
		if (e->obj)
			fprintf(out, "%s(%s->task)", name, e->obj->name);
		else
			fprintf(out, "%s(%s)", name, s->progs[e->prog]->name);
		if (e->value == PRED_TASK_STATE)
			fprintf(out, "==%s", scn_task_state_name((enum scn_task_state)e->reg));
		return;
	default:
		fprintf(out, "%s(%s)", name, e->obj->name);
		return;
	}
}

bool scn_atom_name(const struct scn *s, const struct scn_expr *e, FILE *out)
{
	switch (e->kind) {
	case EX_REG:
		fprintf(out, "%s:%s", s->progs[e->prog]->name, s->progs[e->prog]->regnames[e->reg]);
		return true;
	case EX_STATE:
		state_name(out, s, e);
		return true;
	case EX_OBJ:
		if (!e->obj || e->obj->kind != OBJ_COUNTER)
			return false;
		fputs(e->obj->name, out);
		return true;
	case EX_FINDING:
		fprintf(out, "%s%s%s%s", sim_finding_kind_name((enum sim_finding_kind)e->value),
			e->str ? "(" : "", e->str ? e->str : "", e->str ? ")" : "");
		return true;
	case EX_RAN:
		fprintf(out, "ran(%s)", e->obj->name);
		return true;
	case EX_BEFORE:
		fprintf(out, "before(%s,%s)", e->obj->name, e->obj2->name);
		return true;
	default:
		return false;
	}
}

static void collect_state(FILE *out, const struct scn_run *run, const struct scn_expr *e,
			  bool live)
{
	if (!e)
		return;
	if (scn_atom_name(run->scn, e, out)) {
		fprintf(out, "=%ld\n", live ? scn_eval_now(run, e) : scn_eval_final(run, e));
		return;
	}
	if (e->kind == EX_OBJ)
		return;
	collect_state(out, run, e->lhs, live);
	collect_state(out, run, e->rhs, live);
}

size_t scn_state_text(const struct scn_run *run, const struct scn_expr *e, bool live, char *buf,
		      size_t len)
{
	char *items;
	size_t n, at = 0;
	FILE *mem = memstream_open(&items, &n);

	collect_state(mem, run, e, live);
	fclose(mem);
	if (len)
		buf[0] = '\0';
	for (char *item = strtok(items, "\n"); item; item = strtok(NULL, "\n")) {
		bool seen = false;

		for (char *prev = items; prev < item; prev += strlen(prev) + 1)
			seen |= !strcmp(prev, item);
		if (seen)
			continue;
		if (at < len)
			snprintf(buf + at, len - at, "%s; ", item);
		at += strlen(item) + 2;
	}
	free(items);
	return at;
}

/* herd7's verdict: exists wants a positive witness, ~exists none, forall no negative. */
static bool verdict(const struct scn *s, const struct scn_run *run)
{
	if (s->quant == Q_NOT_EXISTS)
		return !run->cond_holds;
	return run->cond_holds;
}

bool scn_cut_short(const struct scn_run *run)
{
	return run->end == SIM_END_TIME_LIMIT || run->end == SIM_END_STEP_LIMIT ||
	       run->end == SIM_END_DECISION_LIMIT;
}

bool scn_expectations_hold(const struct scn *s, const struct scn_run *run)
{
	if (run->end == SIM_END_DIVERGED)
		return false;
	/* without a condition, a run cut short by a limit has not shown it is clean */
	if (s->quant == Q_NONE)
		return run->nfindings == 0 && !scn_cut_short(run);
	return verdict(s, run);
}

void scn_print_result(FILE *out, const struct scn *s, const struct scn_run *run)
{
	int pos = run->cond_holds;

	fputs("\nTest ", out);
	put_text(out, s->name);
	if (s->quant == Q_NONE) {
		fprintf(out, ": no condition; %s\n", run->nfindings ? "findings reported" :
			scn_cut_short(run) ? "the run was cut short by a limit" : "nothing found");
		return;
	}
	fprintf(out, " %s\n", s->quant == Q_NOT_EXISTS ? "Forbidden" :
		s->quant == Q_FORALL ? "Required" : "Allowed");
	fprintf(out, "States 1\n");
	print_state(out, run, s->cond, false);
	fputc('\n', out);
	fprintf(out, "%s\n", verdict(s, run) ? "Ok" : "No");
	fprintf(out, "Witnesses\nPositive: %d Negative: %d\n", pos, !pos);
	fprintf(out, "Condition %s ", scn_quant_name(s->quant));
	put_text(out, s->cond_text);
	/*
	 * One run shows whether the state was observed, no more: herd7's
	 * Always / Sometimes / Never summarise many runs.
	 */
	fputs("\nObservation ", out);
	put_text(out, s->name);
	fprintf(out, " %s\n", pos ? "Observed" : "Not observed");
	fprintf(out, "Hash=%016llx\n", (unsigned long long)run->hash);
	if (scn_cut_short(run))
		fprintf(out, "Partial: the run stopped at its %s, so the verdict covers only what "
			"ran before\n", sim_end_name(run->end));
}

/* The result block's state: "name=value" items, each once, as print_state lists them. */
static void json_state(FILE *out, const struct scn_run *run, const struct scn_expr *e)
{
	char *buf;
	size_t len;
	FILE *mem = memstream_open(&buf, &len);

	collect_state(mem, run, e, false);
	fclose(mem);
	json_state_pairs(out, buf, "\n");
	free(buf);
}

static void json_objects(FILE *out, const struct scn *s, const struct scn_run *run,
			 enum scn_obj_kind kind, const char *key)
{
	bool first = true;

	fputc('[', out);
	for (int i = 0; i < s->nobjs; i++) {
		if (s->objs[i]->kind != kind)
			continue;
		fputs(first ? "{\"name\":" : ",{\"name\":", out);
		json_str(out, s->objs[i]->name);
		fprintf(out, ",\"%s\":%ld}", key, run->objs[i].count);
		first = false;
	}
	fputc(']', out);
}

static void json_registers(FILE *out, const struct scn *s, const struct scn_run *run)
{
	bool first = true;

	fputc('[', out);
	for (int p = 0; p < s->nprogs; p++) {
		const struct scn_prog *prog = s->progs[p];

		for (int r = 0; r < prog->nregs; r++) {
			fputs(first ? "{\"program\":" : ",{\"program\":", out);
			json_str(out, prog->name);
			fputs(",\"name\":", out);
			json_str(out, prog->regnames[r]);
			fprintf(out, ",\"value\":%ld,\"assigned\":%s}", run->progs[p].regs[r],
				run->progs[p].regset[r] ? "true" : "false");
			first = false;
		}
	}
	fputc(']', out);
}

void scn_print_json(FILE *out, const struct scn *s, const struct scn_run *run)
{
	fputs("],\"functions\":", out);
	json_objects(out, s, run, OBJ_FN, "runs");
	fputs(",\"registers\":", out);
	json_registers(out, s, run);
	fputs(",\"counters\":", out);
	json_objects(out, s, run, OBJ_COUNTER, "value");
	fputs(",\"findings\":[", out);
	for (size_t i = 0; i < run->nfindings; i++) {
		const struct sim_finding *f = &run->findings[i];

		fprintf(out, "%s{\"kind\":\"%s\",\"time_ns\":%llu,\"cpu\":%d,\"context\":",
			i ? "," : "", sim_finding_kind_name(f->kind), (unsigned long long)f->time,
			f->cpu);
		json_str(out, f->context);
		fputs(",\"file\":", out);
		json_str(out, f->site.file);
		fprintf(out, ",\"line\":%d,\"function\":", f->site.line);
		json_str(out, f->site.func);
		fputs(",\"during\":", out);
		json_str(out, f->note);
		fprintf(out, ",\"decision\":%llu,\"message\":", (unsigned long long)f->decision);
		json_str(out, f->msg);
		fputc('}', out);
	}
	fprintf(out, "],\"end\":\"%s\",\"end_time_ns\":%llu,\"stopped_at_time_limit\":%s,"
		"\"decisions\":%zu,\"trace_hash\":\"%016llx\"", sim_end_name(run->end),
		(unsigned long long)run->end_time, stopped_by_time_limit(run) ? "true" : "false",
		run->ndecisions, (unsigned long long)run->hash);
	if (run->end == SIM_END_DIVERGED) {
		fputs(",\"divergence\":", out);
		json_str(out, run->divergence);
	}
	if (s->quant != Q_NONE) {
		fprintf(out, ",\"condition\":{\"quantifier\":\"%s\",\"test\":\"%s\",\"text\":",
			scn_quant_name(s->quant), s->quant == Q_NOT_EXISTS ? "Forbidden" :
			s->quant == Q_FORALL ? "Required" : "Allowed");
		json_str(out, s->cond_text);
		fputs(",\"state\":", out);
		json_state(out, run, s->cond);
		fprintf(out, ",\"holds\":%s,\"verdict\":\"%s\",\"positive\":%d,\"negative\":%d}",
			run->cond_holds ? "true" : "false", verdict(s, run) ? "Ok" : "No",
			run->cond_holds ? 1 : 0, run->cond_holds ? 0 : 1);
	}
	fprintf(out, ",\"cut_short\":%s,\"expectations_hold\":%s}\n", scn_cut_short(run) ? "true" : "false",
		scn_expectations_hold(s, run) ? "true" : "false");
}

int scn_write_with_schedule(FILE *out, const struct scn *s, const struct scn_run *run,
			    const char *comment)
{
	static const char whys[] = SIM_WHY_LETTERS;
	const struct sim_decision *d = run->log;
	size_t n = run->nlog;
	size_t keep = s->schedule_at;
	const char *line;
	char buf[300];

	/* drop the old schedule section and the blank lines before it */
	while (keep && (s->text[keep - 1] == '\n' || s->text[keep - 1] == ' '))
		keep--;
	fwrite(s->text, 1, keep, out);
	if (comment)
		fprintf(out, "\n\n(* %s *)", comment);
	/* every setting the run had, as the init block writes them, a line at most 80 wide */
	fputs("\n\nschedule {", out);
	for (size_t i = 0, col = 80; (line = scn_setting_text(run, i, buf, sizeof(buf))); i++) {
		if (!*line)
			continue;
		if (col + 1 + strlen(line) > 80) {
			fputs("\n ", out);
			col = 1;
		}
		fprintf(out, " %s", line);
		col += 1 + strlen(line);
	}
	fputs("\n  decisions {", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%c%u/%u", i % 16 ? " " : "\n    ", whys[d[i].why], d[i].pick, d[i].n);
	fputs("\n  }\n}\n", out);
	return ferror(out) ? -1 : 0;
}
