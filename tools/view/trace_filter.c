/*
 * --trace-filter: see trace_filter.h for the syntax. A record's event name
 * is the text view's (trace_view_event_name), so what a user reads in one
 * trace is what they filter the next one by.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/trace_filter.h"
#include "view/trace_view.h"

struct pattern {
	char *sys, *name;	/* name NULL: a bare word, matched as an event or a system */
	bool exclude;
};

struct trace_filter {
	char *text;
	struct pattern *ev;
	size_t nev;
	bool has_events, has_cpus, has_tasks, has_from, has_to;
	unsigned char cpus[256 / 8];	/* the machine has fewer CPUs than that */
	char **comms;
	size_t ncomms;
	long *pids;
	size_t npids;
	uint64_t from, to;
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		abort();
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* A decimal number at s's start, *end after it: 0, or -1 when none or too big. */
static int parse_leading(const char *s, unsigned long long *v, char **end)
{
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

static int parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	unsigned long long v;
	char *end;

	if (parse_leading(s, &v, &end))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v > UINT64_MAX / units[i].ns)
			return -1;
		*ns = v * units[i].ns;
		return 0;
	}
	return -1;
}

static int add_cpus(struct trace_filter *f, const char *item, char *err, size_t len)
{
	unsigned long lo, hi;
	char *end;

	if (!isdigit((unsigned char)item[0]))
		goto bad;
	lo = hi = strtoul(item, &end, 10);
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			goto bad;
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end || hi < lo)
		goto bad;
	if (hi >= sizeof(f->cpus) * 8)
		return fail(err, len, "cpus=%s: the machine has at most %zu CPUs", item,
			    sizeof(f->cpus) * 8);
	for (unsigned long c = lo; c <= hi; c++)
		f->cpus[c / 8] |= (unsigned char)(1u << (c % 8));
	return 0;
bad:
	return fail(err, len, "cpus wants a cpulist such as 0,2-3, not '%s'", item);
}

static int add_task(struct trace_filter *f, const char *item, char *err, size_t len)
{
	char *end;
	long pid;

	if (!*item)
		return fail(err, len, "tasks wants comms or pids, not an empty name");
	pid = strtol(item, &end, 10);
	if (isdigit((unsigned char)item[0]) && !*end) {
		f->pids = realloc(f->pids, (f->npids + 1) * sizeof(*f->pids));
		if (!f->pids)
			abort();
		f->pids[f->npids++] = pid;
		return 0;
	}
	f->comms = realloc(f->comms, (f->ncomms + 1) * sizeof(*f->comms));
	if (!f->comms)
		abort();
	f->comms[f->ncomms++] = dup_n(item, strlen(item));
	return 0;
}

static int add_event(struct trace_filter *f, const char *item, char *err, size_t len)
{
	struct pattern p = { 0 };
	const char *colon;

	if (*item == '!') {
		p.exclude = true;
		item++;
	}
	for (const char *c = item; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_*?[]:-", *c))
			return fail(err, len, "events: '%s' is not an event name, a system or a "
				    "glob of them", item);
	colon = strchr(item, ':');
	if (!*item || (colon && (colon == item || !colon[1] || strchr(colon + 1, ':'))))
		return fail(err, len, "events: '%s' is not an event name, a system or "
			    "SYSTEM:EVENT", item);
	if (colon) {
		p.sys = dup_n(item, (size_t)(colon - item));
		p.name = dup_n(colon + 1, strlen(colon + 1));
	} else {
		p.sys = dup_n(item, strlen(item));
	}
	f->ev = realloc(f->ev, (f->nev + 1) * sizeof(*f->ev));
	if (!f->ev)
		abort();
	f->ev[f->nev++] = p;
	return 0;
}

static int clause(struct trace_filter *f, const char *c, size_t n, char *err, size_t len)
{
	static const char *const keys[] = { "events", "cpus", "tasks", "from", "to" };
	bool *seen[] = { &f->has_events, &f->has_cpus, &f->has_tasks, &f->has_from, &f->has_to };
	char *text = dup_n(c, n), *eq = strchr(text, '='), *item, *save = NULL;
	size_t k;
	int rc = 0;

	for (k = 0; eq && k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k]) == (size_t)(eq - text) && !strncmp(text, keys[k], (size_t)(eq - text)))
			break;
	if (!eq || k == sizeof(keys) / sizeof(keys[0])) {
		rc = fail(err, len, "'%s' is not KEY=VALUE with KEY events, cpus, tasks, from or to",
			  text);
		goto out;
	}
	if (*seen[k]) {
		rc = fail(err, len, "%s is given twice", keys[k]);
		goto out;
	}
	*seen[k] = true;
	if (k >= 3) {
		if (parse_time(eq + 1, k == 3 ? &f->from : &f->to))
			rc = fail(err, len, "%s wants a time such as 5ms, 100us or 2s, not '%s'",
				  keys[k], eq + 1);
		else if (f->has_from && f->has_to && f->from > f->to)
			rc = fail(err, len, "from is after to");
		goto out;
	}
	if (!eq[1]) {
		rc = fail(err, len, "%s wants a list, not nothing", keys[k]);
		goto out;
	}
	/* "a,,b": strtok would skip the empty item, which is a typo */
	if (strstr(eq + 1, ",,") || eq[1] == ',' || text[n - 1] == ',') {
		rc = fail(err, len, "%s has an empty item", keys[k]);
		goto out;
	}
	for (item = strtok_r(eq + 1, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save))
		rc = k == 0 ? add_event(f, item, err, len) : k == 1 ? add_cpus(f, item, err, len)
								  : add_task(f, item, err, len);
out:
	free(text);
	return rc;
}

int trace_filter_parse(struct trace_filter **fp, const char *spec, char *err, size_t len)
{
	struct trace_filter *f = *fp;
	size_t tl;

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			abort();
		*fp = f;
	}
	tl = f->text ? strlen(f->text) : 0;
	f->text = realloc(f->text, tl + strlen(spec) + 2);
	if (!f->text)
		abort();
	sprintf(f->text + tl, "%s%s", tl ? ";" : "", spec);
	if (!*spec)
		return fail(err, len, "an empty filter selects nothing: leave the option out");
	for (const char *c = spec; *c;) {
		size_t n = strcspn(c, ";");

		if (!n)
			return fail(err, len, "an empty clause (';;' or a ';' at an end)");
		if (clause(f, c, n, err, len))
			return -1;
		c += n;
		if (*c && !*++c)
			return fail(err, len, "an empty clause (';;' or a ';' at an end)");
	}
	return 0;
}

static bool event_match(const struct pattern *p, const char *ev, const char *sys)
{
	if (p->name)
		return !fnmatch(p->sys, sys, 0) && !fnmatch(p->name, ev, 0);
	return !fnmatch(p->sys, ev, 0) || !fnmatch(p->sys, sys, 0);
}

static bool task_match(const struct trace_filter *f, long pid, const char *comm)
{
	for (size_t i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	for (size_t i = 0; comm && i < f->ncomms; i++)
		if (!fnmatch(f->comms[i], comm, 0))
			return true;
	return false;
}

bool trace_filter_pass(const struct trace_filter *f, const struct sim_rec *r)
{
	if (!f)
		return true;
	if (f->has_from && r->time < f->from)
		return false;
	if (f->has_to && r->time > f->to)
		return false;
	if (f->has_cpus && (r->cpu >= sizeof(f->cpus) * 8 ||
			    !(f->cpus[r->cpu / 8] & (1u << (r->cpu % 8)))))
		return false;
	if (f->has_events) {
		const char *ev = trace_view_event_name(r), *sys = trace_view_event_system(r);
		bool any_include = false, in = false;

		for (size_t i = 0; i < f->nev; i++) {
			if (!f->ev[i].exclude)
				any_include = true;
			if (event_match(&f->ev[i], ev, sys)) {
				if (f->ev[i].exclude)
					return false;
				in = true;
			}
		}
		if (any_include && !in)
			return false;
	}
	if (f->has_tasks) {
		char comm[17];
		bool in;

		/* the context's task: the idle task is pid 0, "<idle>" in the text view */
		snprintf(comm, sizeof(comm), "%.16s", r->pid > 0 ? r->comm : "<idle>");
		in = task_match(f, r->pid > 0 ? r->pid : 0, comm);
		if (r->type == REC_SCHED_SWITCH)	/* prev or next, as set_event_pid */
			in = task_match(f, (long)r->a, r->a ? r->s : "<idle>") ||
			     task_match(f, (long)r->c, r->c ? r->s2 : "<idle>");
		else if (r->type == REC_SCHED_WAKING)	/* the waker or the wakee */
			in = in || task_match(f, (long)r->a, r->s);
		if (!in)
			return false;
	}
	return true;
}

const char *trace_filter_text(const struct trace_filter *f)
{
	return f ? f->text : NULL;
}

void trace_filter_free(struct trace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nev; i++) {
		free(f->ev[i].sys);
		free(f->ev[i].name);
	}
	for (size_t i = 0; i < f->ncomms; i++)
		free(f->comms[i]);
	free(f->ev);
	free(f->comms);
	free(f->pids);
	free(f->text);
	free(f);
}

int trace_limit_parse(const char *s, unsigned long long *bytes)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!strcmp(s, "none")) {
		*bytes = 0;
		return 0;
	}
	if (parse_leading(s, &v, &end))
		return -1;
	if (*end == 'K' || *end == 'k')
		mul = 1ULL << 10;
	else if (*end == 'M')
		mul = 1ULL << 20;
	else if (*end == 'G')
		mul = 1ULL << 30;
	if (mul > 1)
		end++;
	if (*end || v == 0 || v > UINT64_MAX / mul)
		return -1;
	*bytes = v * mul;
	return 0;
}
