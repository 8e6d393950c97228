/*
 * The settings: one table for the init block, the schedule section and the
 * command line's --set NAME=VALUE, each read by the same parser; and their
 * text, as a saved schedule writes them.
 */
#include "scn_parse.h"
#include "lib/util.h"

#include <model.h>

#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/*
 * Every setting, in one table for the init block, the schedule section and
 * the command line (--set): its name (cost.lock is "cost" and "lock"), the
 * field of struct sim_config it sets, its range, and for a named value the
 * names by the enum's values (for a time, names[0] is its word for "no
 * bound", stored as UINT64_MAX). A saved schedule writes them all, in this order.
 */
enum setting_type { SET_NUMBER, SET_TIME, SET_NAME, SET_KERNEL, SET_ERA };

static const char *const preempt_names[] = { "none", "voluntary", "full", NULL };
static const char *const spinlock_names[] = { "fifo", "unfair", NULL };
static const char *const strategy_names[] = { "faithful", "random", NULL };
static const char *const unbounded_names[] = { "unbounded", NULL };
static const char *const off_on_names[] = { "off", "on", NULL };
static const char *const mem_sleep_names[] = { "deep", "s2idle", NULL };

const char *scn_preempt_name(enum sim_preempt p)
{
	return preempt_names[p];
}

/* a replay is not a setting's value: a saved schedule says faithful or random */
const char *scn_strategy_name(enum sim_strategy st)
{
	return st == SIM_STRATEGY_REPLAY ? "replay" : strategy_names[st];
}

#define CFG(field) offsetof(struct sim_config, field), sizeof(((struct sim_config *)0)->field)

static const struct setting {
	const char *name, *sub;
	enum setting_type type;
	size_t off, size;
	long min, max;
	const char *const *names;
} settings[] = {
	{ "kernel", NULL, SET_KERNEL, 0, 0, 0, 0, NULL },
	/* the machine's era, in struct scn (0: the variant's), as kernel stays in s->kernel */
	{ "era", NULL, SET_ERA, 0, 0, 0, 0, NULL },
	{ "cpus", NULL, SET_NUMBER, CFG(ncpus), 1, SIM_MAX_CPUS, NULL },
	{ "hz", NULL, SET_NUMBER, CFG(hz), 1, 10000, NULL },
	{ "preempt", NULL, SET_NAME, CFG(preempt), 0, 0, preempt_names },
	{ "spinlock", NULL, SET_NAME, CFG(spinlock), 0, 0, spinlock_names },
	{ "strategy", NULL, SET_NAME, CFG(strategy), 0, 0, strategy_names },
	{ "seed", NULL, SET_NUMBER, CFG(seed), 0, LONG_MAX, NULL },
	{ "hung_task", NULL, SET_TIME, CFG(hung_task_ns), 0, LONG_MAX, NULL },
	{ "watchdog_thresh", NULL, SET_TIME, CFG(watchdog_thresh_ns), 0, LONG_MAX, NULL },
	{ "debug_objects", NULL, SET_NAME, CFG(debug_objects), 0, 0, off_on_names },
	{ "mem_sleep", NULL, SET_NAME, CFG(mem_sleep), 0, 0, mem_sleep_names },
	{ "time_limit", NULL, SET_TIME, CFG(time_limit_ns), 0, LONG_MAX, NULL },
	{ "max_decisions", NULL, SET_NUMBER, CFG(max_decisions), 0, LONG_MAX, NULL },
	{ "max_steps", NULL, SET_NUMBER, CFG(max_steps), 0, LONG_MAX, NULL },
	{ "skew", NULL, SET_TIME, CFG(skew_ns), 0, LONG_MAX, unbounded_names },
	{ "max_tasks", NULL, SET_NUMBER, CFG(max_tasks), 0, 1000000, NULL },
	/* at most an hour, the longest time_limit a run is given by default */
	{ "stall", NULL, SET_TIME, CFG(stall_ns), 0, 3600L * 1000000000L, NULL },
	{ "cost", "point", SET_TIME, CFG(costs.point), 0, LONG_MAX, NULL },
	{ "cost", "lock", SET_TIME, CFG(costs.lock), 0, LONG_MAX, NULL },
	{ "cost", "unlock", SET_TIME, CFG(costs.unlock), 0, LONG_MAX, NULL },
	{ "cost", "irq_toggle", SET_TIME, CFG(costs.irq_toggle), 0, LONG_MAX, NULL },
	{ "cost", "ctx_switch", SET_TIME, CFG(costs.ctx_switch), 0, LONG_MAX, NULL },
	{ "cost", "wakeup", SET_TIME, CFG(costs.wakeup), 0, LONG_MAX, NULL },
	{ "cost", "timer_op", SET_TIME, CFG(costs.timer_op), 0, LONG_MAX, NULL },
	{ "cost", "completion", SET_TIME, CFG(costs.completion), 0, LONG_MAX, NULL },
	{ "cost", "irq_entry", SET_TIME, CFG(costs.irq_entry), 0, LONG_MAX, NULL },
	{ "cost", "alloc", SET_TIME, CFG(costs.alloc), 0, LONG_MAX, NULL },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

_Static_assert(sizeof(enum sim_preempt) == sizeof(unsigned int) &&
	       sizeof(enum sim_spinlock) == sizeof(unsigned int) &&
	       sizeof(enum sim_mem_sleep) == sizeof(unsigned int) &&
	       sizeof(enum sim_strategy) == sizeof(unsigned int),
	       "named settings are stored as unsigned int");

static const struct setting *find_setting(const char *name, const char *sub)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].name, name) &&
		    !strcmp(settings[i].sub ? settings[i].sub : "", sub))
			return &settings[i];
	return NULL;
}

/* "cost.lock" for cost and lock */
static const char *full_name(const struct setting *st, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", st->name, st->sub ? "." : "", st->sub ? st->sub : "");
	return buf;
}

static void store(struct sim_config *cfg, const struct setting *st, uint64_t v)
{
	unsigned int u = (unsigned int)v;

	if (st->size == sizeof(v))
		memcpy((char *)cfg + st->off, &v, sizeof(v));
	else
		memcpy((char *)cfg + st->off, &u, sizeof(u));
}

static uint64_t load(const struct sim_config *cfg, const struct setting *st)
{
	uint64_t v;
	unsigned int u;

	if (st->size == sizeof(v)) {
		memcpy(&v, (const char *)cfg + st->off, sizeof(v));
		return v;
	}
	memcpy(&u, (const char *)cfg + st->off, sizeof(u));
	return u;
}

void set_text_name(const struct setting *st, char *buf, size_t len)
{
	full_name(st, buf, len);
}

/* A kernel's name may hold dots, colons and slashes (v4.9, tree:6.12, tree:DIR). */
static bool kernel_char(int c)
{
	return isalnum(c) || (c && strchr("_.:/+-", c));
}

static void parse_kernel(struct parser *p)
{
	struct scn_loc at = p->tloc;
	char v[sizeof(p->s->kernel)];
	size_t end = p->tstart;

	if (p->tok == T_STR) {
		if (strlen(p->str) >= sizeof(v))
			fail(p, "kernel name longer than %zu characters", sizeof(v) - 1);
		snprintf(v, sizeof(v), "%s", p->str);
	} else {
		/* read as written: v4.9 would lex as v4 . 9 */
		while (end < p->len && kernel_char((unsigned char)p->text[end]))
			end++;
		if (end == p->tstart || end < p->tend)
			fail(p, "expected a kernel name (v4.9, mainline or tree:LABEL), found %s",
			     lex_tok_text(p));
		if (end - p->tstart >= sizeof(v))
			fail(p, "kernel name longer than %zu characters", sizeof(v) - 1);
		memcpy(v, p->text + p->tstart, end - p->tstart);
		v[end - p->tstart] = '\0';
		lex_advance(p, end - p->pos);
	}
	if (!kw_model_find(v))
		lex_fail_at(p, at, "no kernel variant '%s': this kwsim has %s", v, scn_kernels_built());
	snprintf(p->s->kernel, sizeof(p->s->kernel), "%s", v);
	lex_next(p);
}

/*
 * An era is named as kernel releases are, MAJOR.MINOR (6.1, 6.12), each part
 * written as the kernel writes it (no leading zero, so that it reads back as
 * written) and fitting SIM_ERA's byte; from 4.9 on, where the machine's
 * services begin. A later release than any the machine tells apart is
 * served as the latest it knows, as a tree of that release would be.
 */
static bool era_from_text(const char *v, unsigned int *era)
{
	const char *minor_at;
	unsigned long major, minor;
	char *end;

	if (!isdigit((unsigned char)v[0]))
		return false;
	major = strtoul(v, &end, 10);
	if (*end != '.' || (v[0] == '0' && end - v > 1))
		return false;
	minor_at = end + 1;
	if (!isdigit((unsigned char)minor_at[0]))
		return false;
	minor = strtoul(minor_at, &end, 10);
	if (*end || (minor_at[0] == '0' && end - minor_at > 1) || major > 255 || minor > 255)
		return false;
	*era = SIM_ERA(major, minor);
	return *era >= SIM_ERA(4, 9);
}

static void parse_era(struct parser *p)
{
	struct scn_loc at = p->tloc;
	char v[32];
	size_t end = p->tstart;

	if (p->tok == T_STR) {
		if (strlen(p->str) >= sizeof(v))
			lex_fail_at(p, at, "era must be a kernel release, MAJOR.MINOR from 4.9 on "
				    "(4.9, 6.1, 6.12), not a string of %zu characters", strlen(p->str));
		snprintf(v, sizeof(v), "%s", p->str);
	} else {
		/* read as written: 6.1 would lex as 6 . 1, and 6.10 as 6 . 10 */
		while (end < p->len && (isdigit((unsigned char)p->text[end]) || p->text[end] == '.'))
			end++;
		if (end == p->tstart || end < p->tend)
			fail(p, "expected an era, a kernel release as 6.1 or 6.12, found %s",
			     lex_tok_text(p));
		if (end - p->tstart >= sizeof(v))
			lex_fail_at(p, at, "era must be a kernel release, MAJOR.MINOR from 4.9 on "
				    "(4.9, 6.1, 6.12), not %zu characters of digits", end - p->tstart);
		memcpy(v, p->text + p->tstart, end - p->tstart);
		v[end - p->tstart] = '\0';
		lex_advance(p, end - p->pos);
	}
	if (!era_from_text(v, &p->s->era))
		lex_fail_at(p, at, "era must be a kernel release, MAJOR.MINOR from 4.9 on "
			    "(4.9, 6.1, 6.12), not '%s'", v);
	lex_next(p);
}

static void parse_name(struct parser *p, const struct setting *st, const char *name)
{
	char v[64], all[128] = "";
	size_t n = 0;

	if (p->tok != T_IDENT && p->tok != T_STR)
		fail(p, "expected a name for %s", name);
	snprintf(v, sizeof(v), "%s", p->tok == T_IDENT ? p->ident : p->str);
	for (; st->names[n]; n++) {
		if (!strcmp(st->names[n], v)) {
			store(&p->s->cfg, st, n);
			lex_next(p);
			return;
		}
	}
	for (size_t i = 0; i < n; i++)
		snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", st->names[i]);
	fail(p, "%s must be %s, not '%s'", name, all, v);
}

const struct setting *set_parse(struct parser *p, struct setting_block *b)
{
	struct scn_loc at = p->tloc;
	char key[64], sub[64] = "", name[2 * 64 + 2];
	const struct setting *st;

	snprintf(key, sizeof(key), "%s", p->ident);
	lex_next(p);
	if (lex_accept(p, T_DOT)) {
		if (p->tok != T_IDENT)
			fail(p, "expected a cost name after '%s.'", key);
		snprintf(sub, sizeof(sub), "%s", p->ident);
		lex_next(p);
	}
	st = find_setting(key, sub);
	if (!st) {
		const char *words[NSETTINGS], *hint;
		char names[NSETTINGS][80];

		for (size_t i = 0; i < NSETTINGS; i++)
			words[i] = full_name(&settings[i], names[i], sizeof(names[i]));
		snprintf(name, sizeof(name), "%s%s%s", key, sub[0] ? "." : "", sub);
		hint = scn_did_you_mean(name, words, NSETTINGS);
		if (hint)
			lex_fail_at(p, at, "unknown setting '%s'; did you mean '%s'?", name, hint);
		lex_fail_at(p, at, "unknown setting '%s'", name);
	}
	full_name(st, name, sizeof(name));
	/* parse_era() reads the release as written: 6.1 is no time without its unit */
	p->release_next = st->type == SET_ERA;
	lex_expect(p, T_ASSIGN, "'='");
	p->release_next = false;
	if (st->type == SET_KERNEL) {
		parse_kernel(p);
	} else if (st->type == SET_ERA) {
		parse_era(p);
	} else if (st->type == SET_NAME) {
		parse_name(p, st, name);
	} else if (st->names && p->tok == T_IDENT && !strcmp(p->ident, st->names[0])) {
		store(&p->s->cfg, st, UINT64_MAX);
		lex_next(p);
	} else {
		long v = p->num;
		bool is_time = p->tok == T_TIME;

		if (p->tok != T_INT && p->tok != T_TIME)
			fail(p, st->names ? "expected a time or '%s' for %s" : "expected a number for %s%s",
			     st->names ? st->names[0] : "", name);
		lex_next(p);
		/* a time of 0 needs no unit: stall = 0 */
		if ((st->type == SET_TIME) != is_time && !(st->type == SET_TIME && v == 0))
			lex_fail_at(p, at, is_time ? "%s is a plain number" :
				    "%s is a time: write it with a unit, as 20%s", name,
				    st->sub ? "ns" : "s");
		if (v < st->min || v > st->max)
			lex_fail_at(p, at, "%s out of range", name);
		store(&p->s->cfg, st, (uint64_t)v);
	}
	lex_expect(p, T_SEMI, "';'");
	if (!strcmp(st->name, "seed")) {
		b->seed = true;
		b->seed_at = at;
	}
	b->strategy |= !strcmp(st->name, "strategy");
	p->s->stall_set |= !strcmp(st->name, "stall");
	return st;
}

void set_done(struct parser *p, const struct setting_block *b)
{
	if (!b->seed)
		return;
	if (!b->strategy)
		p->s->cfg.strategy = SIM_STRATEGY_RANDOM;
	else if (p->s->cfg.strategy != SIM_STRATEGY_RANDOM)
		lex_fail_at(p, b->seed_at, "a seed is for the random strategy; with strategy = %s "
			    "it would do nothing (drop one of them)",
			    strategy_names[p->s->cfg.strategy]);
}

/* The schedule's settings and the command line's come last: every program's CPU must exist. */
void set_check_cpus(struct parser *p)
{
	for (int i = 0; i < p->s->nprogs; i++) {
		const struct scn_prog *prog = p->s->progs[i];

		if (prog->cpu >= p->s->cfg.ncpus)
			lex_fail_at(p, prog->loc, "%s is on cpu%d, which does not exist: the run has "
				    "%d CPU%s", prog->name, prog->cpu, p->s->cfg.ncpus,
				    p->s->cfg.ncpus == 1 ? "" : "s");
	}
}

static bool is_setting(const char *w)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].name, w))
			return true;
	return false;
}

/* "spinlock = fifo;" sets, "spinlock L;" declares: the '=' after the word tells. */
bool set_follows(struct parser *p)
{
	size_t i = p->pos;

	if (p->tok != T_IDENT || !is_setting(p->ident) || decl_find(p, p->ident))
		return false;
	if (strcmp(p->ident, "spinlock"))
		return true;
	while (i < p->len && strchr(" \t\r\n", p->text[i]))
		i++;
	return i < p->len && p->text[i] == '=';
}

void scn_stall_default(struct scn *s)
{
	if (!s->stall_set)
		s->cfg.stall_ns = SCN_STALL_DEFAULT_NS;
	s->stall_set = true;
}

const char *set_name(size_t i)
{
	return i < NSETTINGS ? settings[i].name : NULL;
}

const char *scn_setting_text(const struct scn_run *run, size_t i, char *buf, size_t len)
{
	const struct scn *s = run->scn;
	const struct sim_config *cfg = &run->cfg;
	const struct setting *st = &settings[i];
	const struct kw_model *m;
	char name[80];
	uint64_t v;

	if (i >= NSETTINGS)
		return NULL;
	full_name(st, name, sizeof(name));
	switch (st->type) {
	case SET_KERNEL:
		m = run->model ? run->model : kw_model_find(s->kernel);
		snprintf(buf, len, "%s = ", name);
		if (m && strlen(m->name) < sizeof(s->kernel)) {
			bool plain = true;

			for (const char *c = m->name; *c; c++)
				plain &= kernel_char((unsigned char)*c);
			if (plain) {
				snprintf(buf + strlen(buf), len - strlen(buf), "%s;", m->name);
				return buf;
			}
		}
		/* a name the bare form cannot hold: a string, as the lexer reads one */
		snprintf(buf + strlen(buf), len - strlen(buf), "\"");
		for (const char *c = m ? m->name : s->kernel; *c; c++)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%c",
				 *c == '"' || *c == '\\' ? "\\" : "", *c);
		snprintf(buf + strlen(buf), len - strlen(buf), "\";");
		return buf;
	case SET_ERA:
		/* the variant's own era is no setting: schedules without one stay as they were */
		if (!s->era)
			buf[0] = '\0';
		else
			snprintf(buf, len, "%s = %u.%u;", name, s->era >> 8, s->era & 0xff);
		return buf;
	case SET_NAME:
		v = load(cfg, st);
		/* a chooser's log needs no strategy to replay: the log alone decides */
		if (!strcmp(st->name, "strategy") && cfg->chooser) {
			buf[0] = '\0';
			return buf;
		}
		for (size_t k = 0; k <= v; k++) {
			/* a value with no name here (strategy replay) is not a setting */
			if (!st->names[k]) {
				buf[0] = '\0';
				return buf;
			}
		}
		snprintf(buf, len, "%s = %s;", name, st->names[v]);
		return buf;
	case SET_NUMBER:
		/* the seed of a run that does not draw from it is no part of the run */
		if (!strcmp(st->name, "seed") && (cfg->strategy != SIM_STRATEGY_RANDOM || cfg->chooser)) {
			buf[0] = '\0';
			return buf;
		}
		snprintf(buf, len, "%s = %llu;", name, (unsigned long long)load(cfg, st));
		return buf;
	case SET_TIME: {
		static const struct { const char *unit; uint64_t ns; } units[] = {
			{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
		};
		size_t u = 0;

		v = load(cfg, st);
		/* no stall is how schedules were before there were stalls: they stay as they were */
		if (!v && !strcmp(st->name, "stall")) {
			buf[0] = '\0';
			return buf;
		}
		if (st->names && v == UINT64_MAX) {
			snprintf(buf, len, "%s = %s;", name, st->names[0]);
			return buf;
		}
		while (v % units[u].ns)
			u++;
		snprintf(buf, len, "%s = %llu%s;", name, (unsigned long long)(v / units[u].ns),
			 units[u].unit);
		return buf;
	}
	}
	return NULL;
}

/* One NAME=VALUE from the command line, parsed as the init block's "NAME = VALUE;". */
static int set_one(struct scn *s, const char *arg, struct setting_block *b,
		   const struct setting **which, char *msg, size_t len)
{
	const char *eq = strchr(arg, '=');
	struct parser p = { 0 };
	char *text = NULL, *out = NULL;
	size_t outlen = 0;

	msg[0] = '\0';
	if (!eq || eq == arg) {
		snprintf(msg, len, "expected NAME=VALUE, as in cpus=4");
		return -1;
	}
	text = malloc(strlen(arg) + 8);
	if (!text)
		abort();
	sprintf(text, "%.*s = %s;", (int)(eq - arg), arg, eq + 1);
	p.s = s;
	p.text = text;
	p.len = strlen(text);
	p.loc = (struct scn_loc){ 1, 1 };
	p.err = memstream_open(&out, &outlen);
	if (!setjmp(p.fail)) {
		lex_next(&p);
		if (p.tok != T_IDENT)
			fail(&p, "expected a setting's name, found %s", lex_tok_text(&p));
		*which = set_parse(&p, b);
		if (p.tok != T_EOF)
			fail(&p, "unexpected %s after the value", lex_tok_text(&p));
	}
	fclose(p.err);
	/* a failed parse said why; nothing else writes there */
	if (outlen) {
		/* the message without its "file:1:col: error: " */
		const char *why = strstr(out, ": error: ");

		snprintf(msg, len, "%s", why ? why + 9 : out);
		msg[strcspn(msg, "\n")] = '\0';
	}
	free(out);
	free(text);
	return msg[0] ? -1 : 0;
}

int scn_set(struct scn *s, const char *cmd, const struct scn_set *sets, size_t n, FILE *err)
{
	struct scn *scratch = NULL;
	struct setting_block b = { 0 };
	const char *seed_said = NULL, *strategy_said = NULL;
	struct parser p = { 0 };
	char msg[256];

	if (!s) {
		s = scratch = calloc(1, sizeof(*s));
		if (!s || !(s->path = strdup(cmd)))
			abort();
		sim_config_default(&s->cfg);
		snprintf(s->kernel, sizeof(s->kernel), "mainline");
	}
	for (size_t i = 0; i < n; i++) {
		const struct setting *which = NULL;

		if (set_one(s, sets[i].arg, &b, &which, msg, sizeof(msg))) {
			fprintf(err, "kwsim %s: %s: %s (try 'kwsim help')\n", cmd, sets[i].said, msg);
			scn_free(scratch);
			return 2;
		}
		if (!strcmp(which->name, "seed"))
			seed_said = sets[i].said;
		if (!strcmp(which->name, "strategy"))
			strategy_said = sets[i].said;
	}
	if (b.seed && !b.strategy) {
		s->cfg.strategy = SIM_STRATEGY_RANDOM;
	} else if (b.seed && s->cfg.strategy != SIM_STRATEGY_RANDOM) {
		fprintf(err, "kwsim %s: %s: a seed is for the random strategy, and %s names another "
			"(try 'kwsim help')\n", cmd, seed_said, strategy_said);
		scn_free(scratch);
		return 2;
	}
	if (scratch) {
		scn_free(scratch);
		return 0;
	}
	p.s = s;
	p.err = err;
	if (setjmp(p.fail))
		return 2;
	set_check_cpus(&p);
	return 0;
}

const char *scn_kernels_built(void)
{
	static char text[1024];
	size_t len = 0, nmodels = kw_model_count(), ntrees = kw_tree_count();

	if (text[0])
		return text;
	for (size_t i = 0; i < nmodels + ntrees && len < sizeof(text); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s", i ? ", " : "",
					i < nmodels ? kw_model_get(i)->name :
						      kw_tree_get(i - nmodels)->name);
	/* a tree: variant is compiled from a kernel's source: without one, say where it comes from */
	if (!ntrees && len < sizeof(text))
		snprintf(text + len, sizeof(text) - len,
			 " (no tree: variant: tools/fetch-kernels fetches Debian's 6.1 and 6.12 "
			 "sources and the next build compiles them; tools/setup does both)");
	return text;
}
