/*
 * The module's C source: the runtime's first half (kmod_head.c), the
 * scenario (its objects, its fns and programs as C functions, walking the
 * syntax tree), the runtime's second half (kmod_main.c). Deterministic: the
 * same scenario gives the same bytes.
 */
#include "kmod/kmod.h"
#include "kmod/kmod_gen.h"
#include "scenario/scn.h"
#include "scenario/scn_api.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "kmod_assets.h"

/* --- names and text ------------------------------------------------------------------- */

void kgen_cstr(FILE *out, const char *text)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f || *c == '?')	/* '?': no trigraphs */
			fprintf(out, "\\%03o", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/* The scenario's object as the module's C expression: the object itself, or its address. */
static void obj_ref(FILE *out, const struct scn_obj *o)
{
	switch (o->kind) {
	case OBJ_WORKER:
		fprintf(out, "&kw_workers[%d]", o->index);
		return;
	case OBJ_WORK:
		fprintf(out, "&kw.work_%s", o->name);
		return;
	case OBJ_DWORK:
		fprintf(out, "&kw.dwork_%s", o->name);
		return;
	case OBJ_TIMER:
		fprintf(out, "&kw.timer_%s", o->name);
		return;
	case OBJ_LOCK:
		fprintf(out, "&kw.lock_%s", o->name);
		return;
	case OBJ_COMPLETION:
		fprintf(out, "&kw.comp_%s", o->name);
		return;
	default:
		fprintf(out, "kw_%s", o->name);
	}
}

/* A work argument: a delayed_work's own work where a struct kthread_work is taken. */
static void work_ref(FILE *out, const struct scn_obj *o)
{
	if (o->kind == OBJ_DWORK)
		fprintf(out, "&kw.dwork_%s.work", o->name);
	else
		obj_ref(out, o);
}

static void fn_ref(FILE *out, const struct scn_obj *fn)
{
	fprintf(out, "%s_%s", fn->use == FN_TIMER ? "kw_tfn" : "kw_fn", fn->name);
}

/* --- expressions ------------------------------------------------------------------------ */

static void expr(struct kgen *g, const struct scn_expr *e);

static void op_text(FILE *out, enum scn_op op)
{
	static const char *const ops[] = {
		[OP_NOT] = "!", [OP_NEG] = "-", [OP_ADD] = " + ", [OP_SUB] = " - ",
		[OP_EQ] = " == ", [OP_NE] = " != ", [OP_LT] = " < ", [OP_LE] = " <= ",
		[OP_GT] = " > ", [OP_GE] = " >= ", [OP_AND] = " && ", [OP_OR] = " || ",
	};
	fputs(ops[op], out);
}

static void arg(struct kgen *g, const struct scn_expr *e, int i)
{
	expr(g, e->args[i]);
}

/* A call of the API with a value: worker and work calls through the runtime's guards. */
static bool value_call(struct kgen *g, const struct scn_expr *e)
{
	FILE *out = g->out;
	const struct scn_expr *const *a = (const struct scn_expr *const *)e->args;
	int line = e->loc.line;

	switch (e->api->id) {
	case API_KTHREAD_STOP:
		fprintf(out, "kw_stop_worker(&kw_workers[%d])", a[0]->obj->index);
		return true;
	case API_QUEUE_WORK:
		fprintf(out, "kw_queue_work(&kw_workers[%d], ", a[0]->obj->index);
		work_ref(out, a[1]->obj);
		fprintf(out, ", %d)", line);
		return true;
	case API_QUEUE_DELAYED_WORK:
	case API_MOD_DELAYED_WORK:
		fprintf(out, "kw_dwork(%s, &kw_workers[%d], &kw.dwork_%s, ", e->api->name,
			a[0]->obj->index, a[1]->obj->name);
		arg(g, e, 2);
		fprintf(out, ", %d)", line);
		return true;
	case API_CANCEL_WORK_SYNC:
		fputs("kw_cancel_work_sync(", out);
		work_ref(out, a[0]->obj);
		fprintf(out, ", %d)", line);
		return true;
	case API_CANCEL_DELAYED_WORK_SYNC:
		fprintf(out, "kw_cancel_dwork_sync(&kw.dwork_%s, %d)", a[0]->obj->name, line);
		return true;
	case API_MSLEEP_INTERRUPTIBLE:
		fputs("(long)msleep_interruptible((unsigned int)kw_arg(", out);
		arg(g, e, 0);
		fputs("))", out);
		return true;
	case API_COND_RESCHED:
		fputs("(long)cond_resched()", out);
		return true;
	case API_MSECS_TO_JIFFIES:
		fputs("(long)msecs_to_jiffies((unsigned int)kw_arg(", out);
		arg(g, e, 0);
		fputs("))", out);
		return true;
	case API_JIFFIES:
		fputs("kw_jiffies()", out);
		return true;
	case API_HZ:
		fputs("(long)HZ", out);
		return true;
	case API_SMP_PROCESSOR_ID:	/* preemptible: smp_processor_id() would complain */
		fputs("(long)raw_smp_processor_id()", out);
		return true;
	case API_MOD_TIMER:
		fprintf(out, "(long)mod_timer(&kw.timer_%s, kw_expires(", a[0]->obj->name);
		arg(g, e, 1);
		fputs("))", out);
		return true;
	case API_DEL_TIMER:
	case API_DEL_TIMER_SYNC:
		fprintf(out, "(long)%s(&kw.timer_%s)",
			e->api->id == API_DEL_TIMER ? "kw_timer_del" : "kw_timer_del_sync",
			a[0]->obj->name);
		return true;
	default:
		return false;
	}
}

static void expr(struct kgen *g, const struct scn_expr *e)
{
	FILE *out = g->out;

	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		fprintf(out, "%ldL", e->value);
		return;
	case EX_REG:
		fprintf(out, "kw.reg[%d][%d]", e->prog < 0 ? g->prog : e->prog, e->reg);
		return;
	case EX_OBJ:
		if (e->obj && e->obj->kind == OBJ_COUNTER)
			fprintf(out, "atomic_long_read(&kw.cnt_%s)", e->obj->name);
		else
			fputs("0L", out);
		return;
	case EX_CALL:
		if (!value_call(g, e))
			abort();	/* the parser gives a value only to calls listed there */
		return;
	case EX_RANGE:		/* a call's time argument: a value drawn per iteration */
		fprintf(out, "(long)kw_range(%d, %ldULL, %ldULL)", g->nranges++, e->lhs->value,
			e->rhs->value);
		return;
	case EX_UNARY:
		fputc('(', out);
		op_text(out, e->op);
		expr(g, e->lhs);
		fputc(')', out);
		return;
	case EX_BINARY:
		fputc('(', out);
		expr(g, e->lhs);
		op_text(out, e->op);
		expr(g, e->rhs);
		fputc(')', out);
		return;
	default:
		abort();	/* condition atoms are kgen_cond()'s */
	}
}

/* --- statements ------------------------------------------------------------------------- */

static void indent(struct kgen *g)
{
	for (int i = 0; i < g->depth + 1; i++)
		fputc('\t', g->out);
}

/* Calls with no value: a statement of their own (spin_lock_irqsave is one). */
static void void_call(struct kgen *g, const struct scn_expr *e)
{
	FILE *out = g->out;
	const struct scn_expr *const *a = (const struct scn_expr *const *)e->args;
	int line = e->loc.line;
	const char *name = e->api->name;

	switch (e->api->id) {
	case API_CREATE_WORKER:
	case API_CREATE_WORKER_ON_CPU:
		abort();	/* only in a worker's declaration: stmt() */
	case API_INIT_WORKER:
		fprintf(out, "kw_init_worker(&kw_workers[%d], %d);\n", a[0]->obj->index, line);
		return;
	case API_KTHREAD_RUN:
		fprintf(out, "kw_run_worker(&kw_workers[%d], ", a[1]->obj->index);
		kgen_cstr(out, a[2]->str);
		fprintf(out, ", %d);\n", line);
		return;
	case API_INIT_WORK:
	case API_INIT_DELAYED_WORK:
		fprintf(out, "%s(", e->api->id == API_INIT_WORK ? "kw_init_work" : "kw_init_dwork");
		if (e->api->id == API_INIT_WORK)
			work_ref(out, a[0]->obj);
		else
			obj_ref(out, a[0]->obj);
		fputs(", ", out);
		fn_ref(out, a[1]->obj);
		fprintf(out, ", %d);\n", line);
		return;
	case API_FLUSH_WORK:
		fputs("kw_flush_work(", out);
		work_ref(out, a[0]->obj);
		fprintf(out, ", %d);\n", line);
		return;
	case API_FLUSH_WORKER:
		fprintf(out, "kw_flush_worker(&kw_workers[%d], %d);\n", a[0]->obj->index, line);
		return;
	case API_DESTROY_WORKER:
		fprintf(out, "if (!kw_destroy_worker(&kw_workers[%d], %d))\n", a[0]->obj->index,
			line);
		indent(g);
		fputs("\tKW_GIVE_UP();\n", out);
		return;
	case API_UDELAY:
	case API_MDELAY:
	case API_NDELAY:
	case API_MSLEEP:
		fprintf(out, "%s%s(%skw_arg(", e->api->id == API_MSLEEP ? "" : "kw_", name,
			e->api->id == API_MSLEEP ? "(unsigned int)" : "");
		arg(g, e, 0);
		fputs("));\n", out);
		return;
	case API_USLEEP_RANGE:
		fputs("usleep_range(kw_arg(", out);
		arg(g, e, 0);
		fputs("), kw_arg(", out);
		arg(g, e, 1);
		fputs("));\n", out);
		return;
	case API_SPIN_LOCK_IRQSAVE:
	case API_SPIN_UNLOCK_IRQRESTORE:
		fprintf(out, "%s(&kw.lock_%s, kw.flags_%s);\n", name, a[0]->obj->name,
			a[0]->obj->name);
		return;
	case API_WAIT_FOR_COMPLETION:
		fprintf(out, "if (!kw_wait_completion(&kw.comp_%s))\n", a[0]->obj->name);
		indent(g);
		fputs("\tKW_GIVE_UP();\n", out);
		return;
	default:
		break;
	}
	/* the kernel's call as it is: cpu_relax(), spin_lock(&L), complete(&C), ... */
	fprintf(out, "%s(", name);
	if (e->nargs)
		obj_ref(out, a[0]->obj);
	fputs(");\n", out);
}

static void stmts(struct kgen *g, const struct scn_stmt *st);

static void block(struct kgen *g, const struct scn_stmt *st)
{
	fputs(" {\n", g->out);
	g->depth++;
	stmts(g, st);
	g->depth--;
	indent(g);
	fputs("}\n", g->out);
}

static void loop(struct kgen *g, const struct scn_stmt *st)
{
	FILE *out = g->out;

	if (st->kind == ST_REPEAT) {
		fprintf(out, "for (long kw_n%d = ", g->depth);
		expr(g, st->e);
		fprintf(out, "; kw_n%d > 0; kw_n%d--)", g->depth, g->depth);
		block(g, st->body);
		return;
	}
	/* bounded by the deadline, as kwsim's by max_steps */
	fputs("while (", out);
	expr(g, st->e);
	fputs(") {\n", out);
	indent(g);
	fputs("\tif (kw_late())\n", out);
	indent(g);
	fputs("\t\tKW_GIVE_UP();\n", out);
	g->depth++;
	stmts(g, st->body);
	g->depth--;
	indent(g);
	fputs("}\n", out);
}

/* The steering site of st (an ordering names it), or -1. */
static int site_of(const struct kgen *g, const struct scn_stmt *st)
{
	for (int i = 0; i < g->nsites; i++)
		if (g->sites[i] == st)
			return i;
	return -1;
}

static void stmt_code(struct kgen *g, const struct scn_stmt *st);

/* A statement; one an ordering names waits first (kw_steer_enter) and says it ended after. */
static void stmt(struct kgen *g, const struct scn_stmt *st)
{
	int site = site_of(g, st);

	if (site >= 0) {
		indent(g);
		fprintf(g->out, "kw_steer_enter(%d);\n", site);
	}
	stmt_code(g, st);
	if (site >= 0) {
		indent(g);
		fprintf(g->out, "kw_steer_leave(%d);\n", site);
	}
}

static void stmt_code(struct kgen *g, const struct scn_stmt *st)
{
	FILE *out = g->out;

	indent(g);
	fprintf(out, "KW_LINE(%d);\n", st->loc.line);
	indent(g);
	switch (st->kind) {
	case ST_EXPR:
		if (st->e->kind == EX_CALL && st->e->api->ret == RET_VOID) {
			void_call(g, st->e);
			return;
		}
		fputs("(void)", out);
		expr(g, st->e);
		fputs(";\n", out);
		return;
	case ST_SET_REG:
		fprintf(out, "kw.reg[%d][%d] = ", g->prog, st->reg);
		expr(g, st->e);
		fputs(";\n", out);
		return;
	case ST_SET_COUNTER:
		if (st->obj->kind == OBJ_WORKER) {
			const struct scn_expr *e = st->e;
			bool on_cpu = e->api->id == API_CREATE_WORKER_ON_CPU;

			fprintf(out, "kw_create_worker(&kw_workers[%d], ", st->obj->index);
			if (on_cpu)
				arg(g, e, 0);
			else
				fputs("-1", out);
			fputs(", (unsigned int)", out);
			arg(g, e, on_cpu);
			fputs(", ", out);
			kgen_cstr(out, e->args[on_cpu + 1]->str);
			fprintf(out, ", %d);\n", st->loc.line);
			return;
		}
		fprintf(out, "atomic_long_set(&kw.cnt_%s, ", st->obj->name);
		expr(g, st->e);
		fputs(");\n", out);
		return;
	case ST_ADD_COUNTER:
		fprintf(out, "atomic_long_add(");
		expr(g, st->e);
		fprintf(out, ", &kw.cnt_%s);\n", st->obj->name);
		return;
	case ST_IF:
		fputs("if (", out);
		expr(g, st->e);
		fputc(')', out);
		block(g, st->body);
		if (st->orelse) {
			indent(g);
			fputs("else", out);
			block(g, st->orelse);
		}
		return;
	case ST_REPEAT:
	case ST_WHILE:
		loop(g, st);
		return;
	case ST_AT:
		if (st->ns_hi > st->ns)
			fprintf(out, "if (!kw_at(kw_range(%d, %lluULL, %lluULL)))\n", g->nranges++,
				(unsigned long long)st->ns, (unsigned long long)st->ns_hi);
		else
			fprintf(out, "if (!kw_at(%lluULL))\n", (unsigned long long)st->ns);
		indent(g);
		fputs("\tKW_GIVE_UP();\n", out);
		return;
	case ST_LOG:
		fputs("pr_info_ratelimited(\"kwsim: log %s line %d: %s\\n\", ", out);
		kgen_cstr(out, g->who);
		fprintf(out, ", %d, ", st->loc.line);
		kgen_cstr(out, st->str);
		fputs(");\n", out);
		return;
	case ST_BLOCK:
		fputs("{\n", out);
		g->depth++;
		stmts(g, st->body);
		g->depth--;
		indent(g);
		fputs("}\n", out);
		return;
	}
}

static void stmts(struct kgen *g, const struct scn_stmt *st)
{
	for (; st; st = st->next)
		stmt(g, st);
}

/* --- bodies ----------------------------------------------------------------------------- */

static void fn_body(struct kgen *g, const struct scn_obj *fn)
{
	FILE *out = g->out;
	bool timer = fn->use == FN_TIMER;

	fprintf(out, "\nstatic void __maybe_unused ");
	fn_ref(out, fn);
	fprintf(out, "(%s)\n{\n", timer ? "struct timer_list *kw_t" : "struct kthread_work *kw_w");
	fprintf(out, "\tint *kw_line __maybe_unused = &kw_fns[%d].line;\n", fn->index);
	fprintf(out, "\tint *kw_stuck __maybe_unused = &kw_fns[%d].stuck_line;\n\n", fn->index);
	fprintf(out, "\tkw_fn_enter(&kw_fns[%d], &kw.ran[%d], &kw.first[%d]);\n", fn->index,
		fn->index, fn->index);
	g->prog = 0;
	g->who = fn->name;
	g->depth = 0;
	stmts(g, fn->body);
	fprintf(out, "kw_out: __maybe_unused\n\tkw_fn_leave(&kw_fns[%d]);\n}\n", fn->index);
}

static void ctx_body(struct kgen *g, const char *name, int prog, const struct scn_stmt *body)
{
	FILE *out = g->out;

	fprintf(out, "\nstatic void kw_body_%s(struct kw_ctx *c)\n{\n", name);
	fputs("\tint *kw_line __maybe_unused = &c->line;\n", out);
	fputs("\tint *kw_stuck __maybe_unused = &c->stuck_line;\n\n", out);
	g->prog = prog;
	g->who = name;
	g->depth = 0;
	stmts(g, body);
	fputs("kw_out: __maybe_unused\n\treturn;\n}\n", out);
}

static bool is_context(const struct scn_prog *p)
{
	return p->kind == PROG_THREAD || p->kind == PROG_IRQ;
}

static void contexts(struct kgen *g)
{
	const struct scn *s = g->s;
	FILE *out = g->out;

	ctx_body(g, "init", 0, s->setup);
	for (int i = 0; i < s->nprogs; i++)
		if (is_context(s->progs[i]))
			ctx_body(g, s->progs[i]->name, i, s->progs[i]->body);
	fputs("\n/* the init block first: kw_iterate() runs it before the rest */\n", out);
	fputs("static struct kw_ctx kw_ctxs[KW_NCTX] = {\n", out);
	fputs("\t{ .name = \"init\", .cpu = 0, .at_range = -1, .body = kw_body_init },\n", out);
	for (int i = 0; i < s->nprogs; i++) {
		const struct scn_prog *p = s->progs[i];

		if (!is_context(p))
			continue;
		fprintf(out, "\t{ .name = \"%s\", .cpu = %d, .irq = %s, .at_lo = %lluULL, "
			".at_hi = %lluULL, .at_range = %d, .body = kw_body_%s },\n", p->name,
			p->cpu, p->kind == PROG_IRQ ? "true" : "false", (unsigned long long)p->at,
			(unsigned long long)p->at_hi, p->at_hi > p->at ? g->nranges++ : -1,
			p->name);
	}
	fputs("};\n", out);
}

/* --- the scenario's objects ---------------------------------------------------------------- */

static int count_kind(const struct scn *s, enum scn_obj_kind k)
{
	int n = 0;

	for (int i = 0; i < s->nobjs; i++)
		n += s->objs[i]->kind == k;
	return n;
}

static void objects(struct kgen *g)
{
	const struct scn *s = g->s;
	FILE *out = g->out;

	fputs("\n/* The scenario's objects, zeroed and set up again for each iteration. */\n", out);
	fputs("static struct {\n", out);
	for (int i = 0; i < s->nobjs; i++) {
		const struct scn_obj *o = s->objs[i];

		switch (o->kind) {
		case OBJ_WORK:
			fprintf(out, "\tstruct kthread_work work_%s;\n", o->name);
			break;
		case OBJ_DWORK:
			fprintf(out, "\tstruct kthread_delayed_work dwork_%s;\n", o->name);
			break;
		case OBJ_TIMER:
			fprintf(out, "\tstruct timer_list timer_%s;\n", o->name);
			break;
		case OBJ_LOCK:
			fprintf(out, "\tspinlock_t lock_%s;\n\tunsigned long flags_%s;\n", o->name,
				o->name);
			break;
		case OBJ_COMPLETION:
			fprintf(out, "\tstruct completion comp_%s;\n", o->name);
			break;
		case OBJ_COUNTER:
			fprintf(out, "\tatomic_long_t cnt_%s;\n", o->name);
			break;
		default:
			break;
		}
	}
	fprintf(out, "\tlong reg[%d][%d];\t/* the programs' registers */\n",
		s->nprogs ? s->nprogs : 1, SCN_MAX_REGS);
	fprintf(out, "\tatomic_t ran[%d];\t/* ran(f) */\n", s->nfns ? s->nfns : 1);
	fprintf(out, "\tatomic_long_t first[%d];\t/* when f first ran: kw_seq's order */\n",
		s->nfns ? s->nfns : 1);
	fputs("} kw;\n", out);
	fputs("\nstatic struct kw_fn kw_fns[KW_NFNS ? KW_NFNS : 1] = {\n", out);
	for (int i = 0; i < s->nfns; i++)
		fprintf(out, "\t{ .name = \"%s\" },\n", s->fns[i]->name);
	fputs("};\n\n", out);
	for (int i = 0; i < s->nfns; i++) {
		fputs("static void __maybe_unused ", out);
		fn_ref(out, s->fns[i]);
		fprintf(out, "(%s);\n", s->fns[i]->use == FN_TIMER ? "struct timer_list *" :
			"struct kthread_work *");
	}
}

/* kw_reset(): the objects as the declarations make them, before the init block runs. */
static void reset(struct kgen *g)
{
	const struct scn *s = g->s;
	FILE *out = g->out;

	fputs("\nstatic void kw_reset(void)\n{\n\tmemset(&kw, 0, sizeof(kw));\n", out);
	fputs("\tmemset(kw_workers, 0, sizeof(kw_workers));\n", out);
	fputs("\tfor (int i = 0; i < KW_NFNS; i++) {\n\t\tkw_fns[i].line = 0;\n", out);
	fputs("\t\tkw_fns[i].stuck_line = 0;\n\t\tatomic_set(&kw_fns[i].active, 0);\n\t}\n", out);
	for (int i = 0; i < s->nobjs; i++) {
		const struct scn_obj *o = s->objs[i];

		switch (o->kind) {
		case OBJ_WORKER:
			fprintf(out, "\tkw_workers[%d].name = \"%s\";\n\tkw_workers[%d].line = %d;\n",
				o->index, o->name, o->index, o->loc.line);
			break;
		case OBJ_WORK:
		case OBJ_DWORK:
			fprintf(out, "\tkthread_init_%swork(", o->kind == OBJ_DWORK ? "delayed_" : "");
			obj_ref(out, o);
			fputs(", ", out);
			fn_ref(out, o->fn);
			fputs(");\n", out);
			break;
		case OBJ_TIMER:
			fprintf(out, "\ttimer_setup(&kw.timer_%s, ", o->name);
			fn_ref(out, o->fn);
			fputs(", 0);\n", out);
			break;
		case OBJ_LOCK:
			fprintf(out, "\tspin_lock_init(&kw.lock_%s);\n", o->name);
			break;
		case OBJ_COMPLETION:
			fprintf(out, "\tinit_completion(&kw.comp_%s);\n", o->name);
			break;
		case OBJ_COUNTER:
			fprintf(out, "\tatomic_long_set(&kw.cnt_%s, %ldL);\n", o->name, o->value);
			break;
		default:
			break;
		}
	}
	fputs("}\n", out);
}

/*
 * kw_settled(): every fn returned, every worker idle, no timer armed: the
 * state may be read. kw_teardown(): what the scenario left made, unmade.
 */
static void settle_and_teardown(struct kgen *g)
{
	const struct scn *s = g->s;
	FILE *out = g->out;

	fputs("\nstatic bool kw_timers_idle(void)\n{\n\treturn true", out);
	for (int i = 0; i < s->nobjs; i++) {
		const struct scn_obj *o = s->objs[i];

		if (o->kind == OBJ_TIMER)
			fprintf(out, " &&\n\t       !timer_pending(&kw.timer_%s)", o->name);
		else if (o->kind == OBJ_DWORK)
			fprintf(out, " &&\n\t       !timer_pending(&kw.dwork_%s.timer)", o->name);
	}
	fputs(";\n}\n", out);
	fputs("\nstatic bool __maybe_unused kw_armed_on(struct kthread_worker *w)\n{\n\treturn false", out);
	for (int i = 0; i < s->nobjs; i++)
		if (s->objs[i]->kind == OBJ_DWORK)
			fprintf(out, " ||\n\t       (timer_pending(&kw.dwork_%s.timer) && "
				"READ_ONCE(kw.dwork_%s.work.worker) == w)", s->objs[i]->name,
				s->objs[i]->name);
	fputs(";\n}\n", out);
	fputs("\nstatic bool kw_settled(void)\n{\n", out);
	fputs("\tfor (int i = 0; i < KW_NFNS; i++)\n\t\tif (atomic_read(&kw_fns[i].active))\n"
	      "\t\t\treturn false;\n", out);
	fputs("\tfor (int i = 0; i < KW_NWORKERS; i++)\n\t\tif (!kw_worker_idle(&kw_workers[i]))\n"
	      "\t\t\treturn false;\n\treturn kw_timers_idle();\n}\n", out);
	fputs("\nstatic void kw_report_unsettled(void)\n{\n", out);
	fputs("\tfor (int i = 0; i < KW_NWORKERS; i++)\n\t\tif (!kw_worker_idle(&kw_workers[i]))\n"
	      "\t\t\tpr_info(\"kwsim: stuck 1 %s line %d\\n\", kw_workers[i].name, "
	      "kw_workers[i].line);\n", out);
	fputs("\tif (!kw_timers_idle())\n\t\tpr_info(\"kwsim: note a timer is still armed\\n\");\n",
	      out);
	fputs("}\n", out);
	fputs("\nstatic void kw_teardown(void)\n{\n", out);
	for (int i = 0; i < s->nobjs; i++) {
		const struct scn_obj *o = s->objs[i];

		if (o->kind == OBJ_TIMER)
			fprintf(out, "\tkw_timer_del_sync(&kw.timer_%s);\n", o->name);
		else if (o->kind == OBJ_DWORK)
			fprintf(out, "\tkw_timer_del_sync(&kw.dwork_%s.timer);\n", o->name);
	}
	fputs("\tfor (int i = 0; i < KW_NWORKERS; i++) {\n"
	      "\t\tstruct kw_worker *wk = &kw_workers[i];\n\n"
	      "\t\tif (wk->w == &wk->store)\n\t\t\tkw_stop_worker(wk);\n"
	      "\t\telse if (wk->w && !wk->dead)\n\t\t\tkthread_destroy_worker(wk->w);\n"
	      "\t}\n}\n", out);
}

static void defines(struct kgen *g, const char *version)
{
	const struct scn *s = g->s;
	FILE *out = g->out;
	char *shown;
	uint64_t last = 0;
	int nctx = 1;

	for (int i = 0; i < s->nprogs; i++) {
		nctx += is_context(s->progs[i]);
		if (s->progs[i]->at_hi > last)
			last = s->progs[i]->at_hi;
	}
	if (g->last_at > last)
		last = g->last_at;
	/* the module is handed to others, as a page is: no author's directories in it */
	shown = scn_shown_path(s->path);
	fprintf(out, "/*\n * Generated by kwsim %s (kwsim export --module) from %s: do not edit.\n",
		version, shown);
	free(shown);
	fputs(" * tools/kmod/README.md in kwsim says what it does and what it prints.\n */\n", out);
	fputs("#define KW_NAME ", out);
	kgen_cstr(out, s->name);
	/* the last start or `at`, and 10 s for what follows it */
	fprintf(out, "\n#define KW_TIMEOUT_MS %lluU\n",
		(unsigned long long)(last / 1000000 + 10000));
	fprintf(out, "#define KW_LATE_US %uU\n", kgen_late_us(s));
	fprintf(out, "#define KW_NCTX %d\n#define KW_NFNS %d\n#define KW_NWORKERS %d\n", nctx,
		s->nfns, count_kind(s, OBJ_WORKER));
	fprintf(out, "#define KW_NRANGES %d\n", kgen_count_ranges(s));
	fprintf(out, "#define KW_STEERED %d\n#define KW_NSITES %d\n\n",
		g->steer ? g->steer->norders : 0, g->nsites);
}

/* The sites: each statement an ordering names, once, in the orderings' order. */
static void steer_sites(struct kgen *g)
{
	const struct kmod_steer *st = g->steer;

	if (!st)
		return;
	g->sites = calloc((size_t)st->norders * 2 + 1, sizeof(*g->sites));
	if (!g->sites)
		abort();
	for (int i = 0; i < st->norders; i++) {
		if (site_of(g, st->orders[i].a) < 0)
			g->sites[g->nsites++] = st->orders[i].a;
		if (site_of(g, st->orders[i].b) < 0)
			g->sites[g->nsites++] = st->orders[i].b;
	}
}

/* kw_steers[] (declared in kmod_head.c) and what is not steered, as kw_unsteered[]. */
static void steer_table(struct kgen *g)
{
	const struct kmod_steer *st = g->steer;
	FILE *out = g->out;
	char text[900];

	fputs("\n/* The orderings of the steering schedule's run the module enforces. */\n", out);
	fputs("static struct kw_steer kw_steers[KW_STEERED ? KW_STEERED : 1] = {\n", out);
	for (int i = 0; st && i < st->norders; i++) {
		const struct kmod_order *k = &st->orders[i];

		kmod_order_text(g->s, k, text, sizeof(text));
		fprintf(out, "\t{ .a = %d, .a_end = %s, .a_nth = %ld, .b = %d, .b_end = %s, "
			".b_nth = %ld,\n\t  .text = ", site_of(g, k->a), k->a_end ? "true" : "false",
			k->a_nth, site_of(g, k->b), k->b_end ? "true" : "false", k->b_nth);
		kgen_cstr(out, text);
		fputs(" },\n", out);
	}
	fputs("};\n\nstatic const char *const kw_unsteered[] = {\n", out);
	for (size_t i = 0; st && i < st->nnotes; i++) {
		snprintf(text, sizeof(text), "%s", st->notes[i]);
		fputc('\t', out);
		kgen_cstr(out, text);
		fputs(",\n", out);
	}
	fputs("\tNULL\n};\n", out);
}

void kmod_gen(const struct scn *s, const struct kmod_steer *steer, const char *version, FILE *out)
{
	struct kgen g = { .out = out, .s = s, .steer = steer };

	steer_sites(&g);
	kgen_last_at(&g);
	defines(&g, version);
	fwrite(kmod_kmod_head_c, 1, kmod_kmod_head_c_len, out);
	steer_table(&g);
	objects(&g);
	for (int i = 0; i < s->nfns; i++)
		fn_body(&g, s->fns[i]);
	contexts(&g);
	reset(&g);
	settle_and_teardown(&g);
	kgen_cond(&g);
	kgen_refuse(&g);
	assert(g.nranges == kgen_count_ranges(s));	/* every site drawn from has its counter */
	fputc('\n', out);
	fwrite(kmod_kmod_main_c, 1, kmod_kmod_main_c_len, out);
	free(g.sites);
}
