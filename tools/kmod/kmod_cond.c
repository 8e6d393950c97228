/*
 * What the module reads after each iteration: the condition's atoms, named
 * as kwsim's state names them (scn_atom_name()), each once, in the order
 * kwsim lists them, so that a module's "kwsim: state COUNT STATE" line holds
 * the text kwsim prints for the same state. Atoms the module cannot observe
 * (findings: the kernel log is the runner's) are left out of the state and
 * count as 0 in the condition; the module names them once, at its start.
 * Also the settings as load-time checks (kw_refuse()).
 */
#include "kmod/kmod_gen.h"
#include "lib/util.h"
#include "scenario/scn.h"

#include <stdlib.h>
#include <string.h>

struct atom {
	char *name;
	const struct scn_expr *e;
};

struct atoms {
	struct atom *v;
	int n;
};

static char *atom_name(const struct scn *s, const struct scn_expr *e)
{
	char *buf;
	size_t len;
	FILE *mem = memstream_open(&buf, &len);
	bool atom = scn_atom_name(s, e, mem);

	fclose(mem);
	if (!atom) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int atom_find(const struct atoms *a, const char *name)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].name, name))
			return i;
	return -1;
}

/* In scn_state_text()'s order: left before right, each name once. */
static void collect(const struct scn *s, const struct scn_expr *e, struct atoms *a)
{
	char *name;

	if (!e)
		return;
	name = atom_name(s, e);
	if (name) {
		if (atom_find(a, name) >= 0) {
			free(name);
			return;
		}
		a->v = realloc(a->v, (size_t)(a->n + 1) * sizeof(*a->v));
		if (!a->v)
			abort();
		a->v[a->n].name = name;
		a->v[a->n++].e = e;
		return;
	}
	if (e->kind == EX_OBJ)
		return;
	collect(s, e->lhs, a);
	collect(s, e->rhs, a);
}

static bool observed(const struct scn_expr *e)
{
	return e->kind != EX_FINDING;
}

static void work_of(FILE *out, const struct scn_obj *o)
{
	if (o->kind == OBJ_DWORK)
		fprintf(out, "&kw.dwork_%s.work", o->name);
	else
		fprintf(out, "&kw.work_%s", o->name);
}

/* The value of a state predicate (task_state and task_curr are refused: kmod_check.c). */
static void pred_value(FILE *out, const struct scn_expr *e)
{
	static const char *const list[] = {
		[PRED_QUEUED] = "KW_QUEUED", [PRED_DELAYED] = "KW_DELAYED",
		[PRED_RUNNING] = "KW_RUNNING",
	};

	switch ((enum scn_pred)e->value) {
	case PRED_PENDING:
		fputs("!list_empty(&(", out);
		work_of(out, e->obj);
		fputs(")->node)", out);
		return;
	case PRED_QUEUED:
	case PRED_DELAYED:
	case PRED_RUNNING:
		fputs("kw_work_pred(", out);
		work_of(out, e->obj);
		fprintf(out, ", %s)", list[e->value]);
		return;
	case PRED_CANCELING:
		fputs("READ_ONCE((", out);
		work_of(out, e->obj);
		fputs(")->canceling)", out);
		return;
	case PRED_TIMER_PENDING:
		if (e->obj->kind == OBJ_TIMER)
			fprintf(out, "timer_pending(&kw.timer_%s)", e->obj->name);
		else
			fprintf(out, "timer_pending(&kw.dwork_%s.timer)", e->obj->name);
		return;
	case PRED_CURRENT_WORK:
		fprintf(out, "kw_current_work_is(&kw_workers[%d], ", e->obj->index);
		if (e->obj2)
			work_of(out, e->obj2);
		else
			fputs("NULL", out);
		fputc(')', out);
		return;
	default:
		abort();
	}
}

static void atom_value(FILE *out, const struct scn_expr *e)
{
	switch (e->kind) {
	case EX_REG:
		fprintf(out, "kw.reg[%d][%d]", e->prog, e->reg);
		return;
	case EX_OBJ:
		fprintf(out, "atomic_long_read(&kw.cnt_%s)", e->obj->name);
		return;
	case EX_RAN:
		fprintf(out, "atomic_read(&kw.ran[%d])", e->obj->index);
		return;
	case EX_BEFORE:
		fprintf(out, "kw_before(&kw.first[%d], &kw.first[%d])", e->obj->index,
			e->obj2->index);
		return;
	case EX_STATE:
		pred_value(out, e);
		return;
	default:
		abort();
	}
}

static const char *const ops[] = {
	[OP_NOT] = "!", [OP_NEG] = "-", [OP_ADD] = " + ", [OP_SUB] = " - ",
	[OP_EQ] = " == ", [OP_NE] = " != ", [OP_LT] = " < ", [OP_LE] = " <= ",
	[OP_GT] = " > ", [OP_GE] = " >= ", [OP_AND] = " && ", [OP_OR] = " || ",
};

/* The condition over v[], the atoms' values (an unobserved atom's is 0). */
static void cond_expr(FILE *out, const struct scn *s, const struct atoms *a,
		      const struct scn_expr *e)
{
	char *name = atom_name(s, e);

	if (name) {
		fprintf(out, "v[%d]", atom_find(a, name));
		free(name);
		return;
	}
	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		fprintf(out, "%ldL", e->value);
		return;
	case EX_UNARY:
		fprintf(out, "(%s", ops[e->op]);
		cond_expr(out, s, a, e->lhs);
		fputc(')', out);
		return;
	case EX_BINARY:
		fputc('(', out);
		cond_expr(out, s, a, e->lhs);
		fputs(ops[e->op], out);
		cond_expr(out, s, a, e->rhs);
		fputc(')', out);
		return;
	default:
		abort();	/* refused by kmod_check(): jiffies */
	}
}

static void observe(FILE *out, const struct scn *s, const struct atoms *a)
{
	fputs("\n/* The state as kwsim prints it, observed atoms only; whether the condition holds. */\n",
	      out);
	fputs("static bool kw_observe(char *text, size_t len)\n{\n", out);
	fprintf(out, "\tlong v[%d] = { 0 };\n\tsize_t at = 0;\n\n", a->n ? a->n : 1);
	for (int i = 0; i < a->n; i++) {
		if (!observed(a->v[i].e))
			continue;
		fprintf(out, "\tv[%d] = ", i);
		atom_value(out, a->v[i].e);
		fputs(";\n", out);
	}
	fputs("\ttext[0] = '\\0';\n", out);
	for (int i = 0; i < a->n; i++) {
		if (!observed(a->v[i].e))
			continue;
		fputs("\tat += scnprintf(text + at, len - at, \"%s=%ld; \", ", out);
		kgen_cstr(out, a->v[i].name);
		fprintf(out, ", v[%d]);\n", i);
	}
	/* as explore's table prints it: no space after the last ';' */
	fputs("\tif (at && text[at - 1] == ' ')\n\t\ttext[at - 1] = '\\0';\n\treturn ", out);
	if (s->cond)
		cond_expr(out, s, a, s->cond);
	else
		fputs("false", out);
	fputs(";\n}\n", out);
	fputs("\nstatic void kw_print_unobserved(void)\n{\n", out);
	for (int i = 0; i < a->n; i++) {
		if (observed(a->v[i].e))
			continue;
		fputs("\tpr_info(\"kwsim: unobserved %s\\n\", ", out);
		kgen_cstr(out, a->v[i].name);
		fputs(");\n", out);
	}
	fputs("}\n", out);
}

void kgen_cond(struct kgen *g)
{
	struct atoms a = { NULL, 0 };

	collect(g->s, g->s->cond, &a);
	observe(g->out, g->s, &a);
	for (int i = 0; i < a.n; i++)
		free(a.v[i].name);
	free(a.v);
}

/* --- the settings at load time ---------------------------------------------------------- */

static void cpus_used(const struct scn *s, FILE *out)
{
	bool used[SIM_MAX_CPUS] = { false };

	for (int i = 0; i < s->nprogs; i++)
		if (s->progs[i]->cpu >= 0 && s->progs[i]->cpu < SIM_MAX_CPUS)
			used[s->progs[i]->cpu] = true;
	for (int c = 0; c < SIM_MAX_CPUS; c++)
		if (used[c])
			fprintf(out, "\tif (!cpu_online(%d))\n\t\treturn \"a program runs on cpu%d, "
				"which is not online\";\n", c, c);
}

void kgen_refuse(struct kgen *g)
{
	const struct scn *s = g->s;
	const struct sim_config *cfg = &s->cfg;
	FILE *out = g->out;
	static const char *const models[] = { "none", "voluntary", "full" };

	fputs("\n/* The scenario's settings that are the kernel's: checked, never changed. */\n", out);
	fputs("static const char *kw_refuse(void)\n{\n", out);
	fprintf(out, "\tif (num_online_cpus() < %u)\n\t\treturn \"the scenario needs %u CPUs "
		"online (cpus = %u)\";\n", cfg->ncpus, cfg->ncpus, cfg->ncpus);
	cpus_used(s, out);
	fprintf(out, "\tif (HZ != %u)\n\t\treturn \"the scenario's jiffies are at hz = %u, this "
		"kernel's HZ differs\";\n", cfg->hz, cfg->hz);
	for (int i = 0; i < s->ngiven; i++) {
		const char *name = s->given[i].name;

		if (!strcmp(name, "preempt") && cfg->preempt < 3) {
			fputs("#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 19, 0)\n", out);
			fprintf(out, "\tif (!preempt_model_%s())\n\t\treturn \"the scenario's "
				"preemption model (preempt = %s) is not this kernel's\";\n",
				models[cfg->preempt], models[cfg->preempt]);
			fputs("#endif\n", out);
		}
		if (!strcmp(name, "debug_objects"))
			fprintf(out, "\tif (%sIS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS))\n\t\treturn "
				"\"the scenario has debug_objects = %s, this kernel's "
				"CONFIG_DEBUG_OBJECTS_TIMERS differs\";\n",
				cfg->debug_objects ? "!" : "", cfg->debug_objects ? "on" : "off");
	}
	fputs("\treturn NULL;\n}\n", out);
}

static int expr_ranges(const struct scn_expr *e)
{
	int n;

	if (!e)
		return 0;
	n = e->kind == EX_RANGE;
	if (e->kind == EX_CALL)
		for (int i = 0; i < e->nargs; i++)
			n += expr_ranges(e->args[i]);
	else if (e->kind != EX_RANGE)
		n += expr_ranges(e->lhs) + expr_ranges(e->rhs);
	return n;
}

static int stmt_ranges(const struct scn_stmt *st)
{
	int n = 0;

	for (; st; st = st->next)
		n += (st->kind == ST_AT && st->ns_hi > st->ns) + expr_ranges(st->e) +
		     stmt_ranges(st->body) + stmt_ranges(st->orelse);
	return n;
}

int kgen_count_ranges(const struct scn *s)
{
	int n = stmt_ranges(s->setup);

	for (int i = 0; i < s->nfns; i++)
		n += stmt_ranges(s->fns[i]->body);
	for (int i = 0; i < s->nprogs; i++) {
		const struct scn_prog *p = s->progs[i];

		if (p->kind == PROG_THREAD || p->kind == PROG_IRQ)
			n += (p->at_hi > p->at) + stmt_ranges(p->body);
	}
	return n;
}

static uint64_t last_at(const struct scn_stmt *st, uint64_t last)
{
	for (; st; st = st->next) {
		if (st->kind == ST_AT && st->ns_hi > last)
			last = st->ns_hi;
		last = last_at(st->body, last_at(st->orelse, last));
	}
	return last;
}

struct times {
	uint64_t v[64];
	int n;
};

static void add_time(struct times *t, uint64_t ns)
{
	for (int i = 0; i < t->n; i++)
		if (t->v[i] == ns)
			return;
	if (t->n < 64)
		t->v[t->n++] = ns;
}

static void at_times(const struct scn_stmt *st, struct times *t)
{
	for (; st; st = st->next) {
		if (st->kind == ST_AT)
			add_time(t, st->ns);
		at_times(st->body, t);
		at_times(st->orelse, t);
	}
}

unsigned int kgen_late_us(const struct scn *s)
{
	struct times t = { .n = 0 };
	uint64_t gap = UINT64_MAX;
	int nctx = 0;

	for (int i = 0; i < s->nprogs; i++) {
		if (s->progs[i]->kind != PROG_THREAD && s->progs[i]->kind != PROG_IRQ)
			continue;
		nctx++;
		add_time(&t, s->progs[i]->at);
		at_times(s->progs[i]->body, &t);
	}
	if (nctx <= 1 && t.n <= 1)
		return 0;
	for (int i = 0; i < t.n; i++)
		for (int j = 0; j < t.n; j++)
			if (t.v[i] > t.v[j] && t.v[i] - t.v[j] < gap)
				gap = t.v[i] - t.v[j];
	if (gap == UINT64_MAX || gap / 4000 < 1000)
		return 1000;
	return gap / 4000 > 1000000 ? 1000000 : (unsigned int)(gap / 4000);
}

void kgen_last_at(struct kgen *g)
{
	for (int i = 0; i < g->s->nprogs; i++)
		g->last_at = last_at(g->s->progs[i]->body, g->last_at);
}
