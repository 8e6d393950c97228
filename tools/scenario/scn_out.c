/*
 * What a run prints: the readable summary, the result block in herd7's
 * shape, the same as JSON, and the scenario with its decision log appended.
 */
#include "scn.h"

#include <model.h>
#include <stdlib.h>
#include <string.h>

static void collect_state(FILE *out, const struct scn *s, const struct scn_expr *e);

static const char *quant_name(enum scn_quant q)
{
	switch (q) {
	case Q_EXISTS: return "exists";
	case Q_NOT_EXISTS: return "~exists";
	case Q_FORALL: return "forall";
	case Q_NONE: break;
	}
	return "";
}

static const char *preempt_name(enum sim_preempt p)
{
	return p == SIM_PREEMPT_NONE ? "none" : p == SIM_PREEMPT_FULL ? "full" : "voluntary";
}

static const char *strategy_name(enum sim_strategy st)
{
	return st == SIM_STRATEGY_RANDOM ? "random" : st == SIM_STRATEGY_REPLAY ? "replay"
									     : "faithful";
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

/* The machine's own steps worth a line: timers firing, the freezer's progress. */
static bool machine_line(const struct sim_rec *r, char *what, size_t len)
{
	switch (r->type) {
	case REC_TIMER_EXPIRE_ENTRY:
		snprintf(what, len, "timer fires: %s", r->s ? r->s : "?");
		return true;
	case REC_FREEZER:
		if (r->s2)
			snprintf(what, len, "freezer: %s %s", r->s2, r->s);
		else
			snprintf(what, len, "freezer: %s", r->s);
		return true;
	default:
		return false;
	}
}

/*
 * The interpreter's account (calls, results, work runs) merged by time with
 * the machine's steps from the trace, when the trace was kept; at equal
 * times the interpreter's lines come first.
 */
static void print_timeline(FILE *out, const struct scn_run *run)
{
	const struct sim_rec *recs = sim_trace_records();
	size_t nrecs = sim_trace_count(), i = 0, k = 0;
	char what[200];

	while (i < run->nevents || k < nrecs) {
		const struct scn_event *ev = i < run->nevents ? &run->events[i] : NULL;

		if (k < nrecs && (!ev || recs[k].time < ev->time)) {
			const struct sim_rec *r = &recs[k++];
			const char *who = r->flags & TRACE_FLAG_SOFTIRQ ? "softirq" :
					  r->flags & TRACE_FLAG_HARDIRQ ? "hardirq" : r->comm;

			if (machine_line(r, what, sizeof(what)))
				print_line(out, r->time, r->cpu, who[0] ? who : "machine", what);
			continue;
		}
		print_line(out, ev->time, ev->cpu, ev->who, ev->what);
		i++;
	}
}

void scn_print_summary(FILE *out, const struct scn *s, const struct scn_run *run)
{
	fputs("kwsim: ", out);
	put_text(out, s->name);
	fputs(" (", out);
	put_text(out, s->path);
	fprintf(out, ")\nkernel %s, %d cpus, HZ=%u, preempt %s, strategy %s", run->model->name,
		s->cfg.ncpus, s->cfg.hz, preempt_name(s->cfg.preempt), strategy_name(s->cfg.strategy));
	/* only the random strategy draws from the seed */
	if (s->cfg.strategy == SIM_STRATEGY_RANDOM)
		fprintf(out, ", seed %llu", (unsigned long long)s->cfg.seed);
	fputs("\n\n", out);
	fprintf(out, "What ran:\n");
	print_timeline(out, run);
	for (int i = 0; i < s->nobjs; i++)
		if (s->objs[i]->kind == OBJ_FN)
			fprintf(out, "  fn %s ran %ld time%s\n", s->objs[i]->name, s->objs[i]->count,
				s->objs[i]->count == 1 ? "" : "s");
	fprintf(out, "\nFindings: %zu\n", sim_finding_count());
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

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
	if (run->end == SIM_END_DIVERGED)
		fprintf(out, "divergence: %s\n", sim_divergence());
}

/* The values the condition looks at, as herd7 lists a state: each once. */
static void print_state(FILE *out, const struct scn *s, const struct scn_expr *e, int *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return;
	collect_state(mem, s, e);
	fclose(mem);
	for (char *item = strtok(buf, "\n"); item; item = strtok(NULL, "\n")) {
		bool seen = false;

		for (char *prev = buf; prev < item; prev += strlen(prev) + 1)
			seen |= !strcmp(prev, item);
		if (!seen) {
			put_text(out, item);
			fputs("; ", out);
			(*n)++;
		}
	}
	free(buf);
}

static void collect_state(FILE *out, const struct scn *s, const struct scn_expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_REG:
		fprintf(out, "%s:%s=%ld\n", s->progs[e->prog]->name,
			s->progs[e->prog]->regnames[e->reg], scn_eval_final((struct scn *)s, e));
		return;
	case EX_OBJ:
		if (e->obj && e->obj->kind == OBJ_COUNTER) {
			fprintf(out, "%s=%ld\n", e->obj->name, e->obj->count);
			}
		return;
	case EX_FINDING:
		fprintf(out, "%s%s%s%s=%ld\n", sim_finding_kind_name((enum sim_finding_kind)e->value),
			e->str ? "(" : "", e->str ? e->str : "", e->str ? ")" : "",
			scn_eval_final((struct scn *)s, e));
		return;
	case EX_RAN:
		fprintf(out, "ran(%s)=%ld\n", e->obj->name, e->obj->count);
		return;
	case EX_BEFORE:
		fprintf(out, "before(%s,%s)=%ld\n", e->obj->name, e->obj2->name,
			scn_eval_final((struct scn *)s, e));
		return;
	default:
		collect_state(out, s, e->lhs);
		collect_state(out, s, e->rhs);
	}
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
		return sim_finding_count() == 0 && !scn_cut_short(run);
	return verdict(s, run);
}

void scn_print_result(FILE *out, const struct scn *s, const struct scn_run *run)
{
	int pos = run->cond_holds, n = 0;

	fputs("\nTest ", out);
	put_text(out, s->name);
	if (s->quant == Q_NONE) {
		fprintf(out, ": no condition; %s\n", sim_finding_count() ? "findings reported" :
			scn_cut_short(run) ? "the run was cut short by a limit" : "nothing found");
		return;
	}
	fprintf(out, " %s\n", s->quant == Q_NOT_EXISTS ? "Forbidden" :
		s->quant == Q_FORALL ? "Required" : "Allowed");
	fprintf(out, "States 1\n");
	print_state(out, s, s->cond, &n);
	fputc('\n', out);
	fprintf(out, "%s\n", verdict(s, run) ? "Ok" : "No");
	fprintf(out, "Witnesses\nPositive: %d Negative: %d\n", pos, !pos);
	fprintf(out, "Condition %s ", quant_name(s->quant));
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

static void json_str(FILE *out, const char *str)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)(str ? str : ""); *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", out);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

void scn_print_json(FILE *out, const struct scn *s, const struct scn_run *run)
{
	fputs("{\"scenario\":", out);
	json_str(out, s->name);
	fputs(",\"file\":", out);
	json_str(out, s->path);
	fprintf(out, ",\"kernel\":\"%s\",\"cpus\":%d,\"hz\":%u,\"preempt\":\"%s\","
		"\"strategy\":\"%s\",\"seed\":%llu,", run->model->name, s->cfg.ncpus, s->cfg.hz,
		preempt_name(s->cfg.preempt), strategy_name(s->cfg.strategy),
		(unsigned long long)s->cfg.seed);
	fputs("\"events\":[", out);
	for (size_t i = 0; i < run->nevents; i++) {
		const struct scn_event *ev = &run->events[i];

		fprintf(out, "%s{\"time_ns\":%llu,\"cpu\":%d,\"who\":", i ? "," : "",
			(unsigned long long)ev->time, ev->cpu);
		json_str(out, ev->who);
		fputs(",\"what\":", out);
		json_str(out, ev->what);
		fputc('}', out);
	}
	fputs("],\"findings\":[", out);
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

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
	fprintf(out, "],\"end\":\"%s\",\"end_time_ns\":%llu,\"decisions\":%zu,"
		"\"trace_hash\":\"%016llx\"", sim_end_name(run->end),
		(unsigned long long)run->end_time, run->ndecisions, (unsigned long long)run->hash);
	if (run->end == SIM_END_DIVERGED) {
		fputs(",\"divergence\":", out);
		json_str(out, sim_divergence());
	}
	if (s->quant != Q_NONE) {
		fprintf(out, ",\"condition\":{\"quantifier\":\"%s\",\"text\":", quant_name(s->quant));
		json_str(out, s->cond_text);
		fprintf(out, ",\"holds\":%s,\"verdict\":\"%s\"}", run->cond_holds ? "true" : "false",
			verdict(s, run) ? "Ok" : "No");
	}
	fprintf(out, ",\"expectations_hold\":%s}\n", scn_expectations_hold(s, run) ? "true" : "false");
}

int scn_write_with_schedule(FILE *out, const struct scn *s)
{
	static const char whys[] = "cip";
	const struct sim_decision *d = sim_decisions();
	size_t n = sim_decision_count();
	size_t keep = s->schedule_at;
	const char *line;
	char buf[300];

	/* drop the old schedule section and the blank lines before it */
	while (keep && (s->text[keep - 1] == '\n' || s->text[keep - 1] == ' '))
		keep--;
	fwrite(s->text, 1, keep, out);
	/* every setting the run had, as the init block writes them, a line at most 80 wide */
	fputs("\n\nschedule {", out);
	for (size_t i = 0, col = 80; (line = scn_setting_text(s, i, buf, sizeof(buf))); i++) {
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
