/*
 * The .kws parser: recursive descent over scn_lex.c's tokens. The first
 * error stops the parse with "file:line:col: error: ...", and a misspelt
 * call or name gets a suggestion. Every node lives in the scenario's arena,
 * so an error part-way through leaks nothing.
 */
#include "scn_lex.h"
#include "scn_api.h"

#include <model.h>
#include <sim/site.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- names ------------------------------------------------------------------------------ */

/*
 * Every setting, in one table for the init block, the schedule section and
 * the command line (--set): its name (cost.lock is "cost" and "lock"), the
 * field of struct sim_config it sets, its range, and for a named value the
 * names by the enum's values (for a time, names[0] is its word for "no
 * bound", stored as UINT64_MAX). A saved schedule writes them all, in this order.
 */
enum setting_type { SET_NUMBER, SET_TIME, SET_NAME, SET_KERNEL };

static const char *const preempt_names[] = { "none", "voluntary", "full", NULL };
static const char *const spinlock_names[] = { "fifo", "unfair", NULL };
static const char *const strategy_names[] = { "faithful", "random", NULL };
static const char *const unbounded_names[] = { "unbounded", NULL };
static const char *const off_on_names[] = { "off", "on", NULL };

#define CFG(field) offsetof(struct sim_config, field), sizeof(((struct sim_config *)0)->field)

static const struct setting {
	const char *name, *sub;
	enum setting_type type;
	size_t off, size;
	long min, max;
	const char *const *names;
} settings[] = {
	{ "kernel", NULL, SET_KERNEL, 0, 0, 0, 0, NULL },
	{ "cpus", NULL, SET_NUMBER, CFG(ncpus), 1, SIM_MAX_CPUS, NULL },
	{ "hz", NULL, SET_NUMBER, CFG(hz), 1, 10000, NULL },
	{ "preempt", NULL, SET_NAME, CFG(preempt), 0, 0, preempt_names },
	{ "spinlock", NULL, SET_NAME, CFG(spinlock), 0, 0, spinlock_names },
	{ "strategy", NULL, SET_NAME, CFG(strategy), 0, 0, strategy_names },
	{ "seed", NULL, SET_NUMBER, CFG(seed), 0, LONG_MAX, NULL },
	{ "hung_task", NULL, SET_TIME, CFG(hung_task_ns), 0, LONG_MAX, NULL },
	{ "watchdog_thresh", NULL, SET_TIME, CFG(watchdog_thresh_ns), 0, LONG_MAX, NULL },
	{ "debug_objects", NULL, SET_NAME, CFG(debug_objects), 0, 0, off_on_names },
	{ "time_limit", NULL, SET_TIME, CFG(time_limit_ns), 0, LONG_MAX, NULL },
	{ "max_decisions", NULL, SET_NUMBER, CFG(max_decisions), 0, LONG_MAX, NULL },
	{ "max_steps", NULL, SET_NUMBER, CFG(max_steps), 0, LONG_MAX, NULL },
	{ "skew", NULL, SET_TIME, CFG(skew_ns), 0, LONG_MAX, unbounded_names },
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

static const char *const keywords[] = {
	"fn", "worker", "work", "delayed_work", "spinlock", "completion", "int", "if", "else",
	"repeat", "while", "at", "log", "true", "false", "exists", "forall", "irq", "suspend",
	"resume", "schedule", "KTW_FREEZABLE", "kthread_worker_fn",
};

/* --- the objects' names: open addressing, so that 100,000 declarations stay linear -------- */

static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return (size_t)h;
}

static struct scn_obj *find_obj(struct parser *p, const char *name)
{
	if (!p->names_cap)
		return NULL;
	for (size_t i = name_hash(name) & (p->names_cap - 1);; i = (i + 1) & (p->names_cap - 1)) {
		struct scn_obj *o = p->names[i];

		if (!o || !strcmp(o->name, name))
			return o;
	}
}

static void insert_name(struct parser *p, struct scn_obj *o)
{
	size_t i = name_hash(o->name) & (p->names_cap - 1);

	while (p->names[i])
		i = (i + 1) & (p->names_cap - 1);
	p->names[i] = o;
}

/* Index o by its name; the table stays at most half full. */
static void index_obj(struct parser *p, struct scn_obj *o)
{
	if (2 * ((size_t)p->s->nobjs + 1) > p->names_cap) {
		struct scn_obj **old = p->names;
		size_t oldcap = p->names_cap;

		/* the old tables stay in the arena: together no larger than the last */
		p->names_cap = oldcap ? 2 * oldcap : 64;
		p->names = scn_alloc(p->s, p->names_cap * sizeof(*p->names));
		for (size_t i = 0; i < oldcap; i++)
			if (old[i])
				insert_name(p, old[i]);
	}
	insert_name(p, o);
}

/* Append to an array that lives in the arena and doubles at each power of two. */
static void *append(struct parser *p, void *array, int n, size_t size)
{
	char *grown;

	if (n & (n - 1))
		return array;
	grown = scn_alloc(p->s, (size_t)(n ? 2 * n : 1) * size);
	if (n)
		memcpy(grown, array, (size_t)n * size);
	return grown;
}

__attribute__((noreturn))
static void unknown_name(struct parser *p, const char *what)
{
	size_t nkw = sizeof(keywords) / sizeof(keywords[0]);
	size_t nset = NSETTINGS;
	size_t max = (size_t)p->s->nobjs + 64 + nkw + nset, n = 0;
	const char **words = scn_alloc(p->s, max * sizeof(*words));
	const char *hint;

	for (int i = 0; i < p->s->nobjs; i++)
		words[n++] = p->s->objs[i]->name;
	n += scn_api_names(words + n, 64);
	for (size_t i = 0; i < nkw; i++)
		words[n++] = keywords[i];
	for (size_t i = 0; i < nset; i++)
		words[n++] = settings[i].name;
	hint = scn_did_you_mean(p->ident, words, n);
	if (hint)
		fail(p, "unknown %s '%s'; did you mean '%s'?", what, p->ident, hint);
	fail(p, "unknown %s '%s'", what, p->ident);
}

static struct scn_obj *declare(struct parser *p, enum scn_obj_kind kind)
{
	struct scn *s = p->s;
	struct scn_obj *o;

	if (p->tok != T_IDENT)
		fail(p, "expected a name, found %s", lex_tok_text(p));
	if (find_obj(p, p->ident))
		fail(p, "'%s' is already declared", p->ident);
	if (scn_api_find(p->ident))
		fail(p, "'%s' is the name of a call", p->ident);
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(keywords[i], p->ident))
			fail(p, "'%s' is a keyword", p->ident);
	if (kind == OBJ_FN && s->nfns == SCN_MAX_FNS)
		fail(p, "more than %d work functions: each fn is a C function of its own, so that "
		     "traces can name it, and kwsim has %d (works can share a fn)", SCN_MAX_FNS,
		     SCN_MAX_FNS);
	if (s->nobjs == SCN_MAX_OBJS)
		fail(p, "more than %d declarations", SCN_MAX_OBJS);
	o = scn_alloc(s, sizeof(*o));
	o->kind = kind;
	o->loc = p->tloc;
	o->index = p->nkind[kind]++;
	snprintf(o->name, sizeof(o->name), "%s", p->ident);
	s->objs = append(p, s->objs, s->nobjs, sizeof(*s->objs));
	s->objs[s->nobjs] = o;
	index_obj(p, o);
	s->nobjs++;
	if (kind == OBJ_FN) {
		s->fns = append(p, s->fns, s->nfns, sizeof(*s->fns));
		s->fns[s->nfns++] = o;
	}
	lex_next(p);
	return o;
}

static const char *kind_name(enum scn_obj_kind k)
{
	static const char *const names[] = { "worker", "work", "delayed_work", "spinlock",
					     "completion", "int", "fn", "program" };
	return names[k];
}

/* --- expressions ------------------------------------------------------------------------- */

static struct scn_expr *new_expr(struct parser *p, enum scn_expr_kind kind)
{
	struct scn_expr *e = scn_alloc(p->s, sizeof(*e));

	e->kind = kind;
	e->loc = p->tloc;
	/* a leaf's type; built() gives the others theirs */
	switch (kind) {
	case EX_INT: case EX_FINDING: case EX_RAN:
		e->type = TY_INT;
		break;
	case EX_BOOL: case EX_BEFORE:
		e->type = TY_BOOL;
		break;
	case EX_REG:
		e->type = TY_NUM;
		break;
	default:
		e->type = TY_NONE;
		break;
	}
	return e;
}

static void enter(struct parser *p)
{
	if (++p->depth > SCN_MAX_DEPTH)
		fail(p, "nesting deeper than %d", SCN_MAX_DEPTH);
}

/* --- types: numbers, truth values, and names of things that are neither ------------------ */

/*
 * The scenario's values are C's: a truth value is 0 or 1 and may be counted
 * (n += kthread_queue_work(W, A)). Where mixing them is a mistake it is a
 * type error: an object used as a value (a counter compared with a worker),
 * a truth value where a quantity goes (a delay, a CPU, the rounds of a
 * repeat, either side of <), and a number compared with true or false
 * (ran(f) == true holds only when f ran exactly once).
 */
__attribute__((noreturn))
static void not_a_value(struct parser *p, const struct scn_expr *e)
{
	switch (e->kind) {
	case EX_OBJ:
		if (!e->obj)
			lex_fail_at(p, e->loc, "type error: kthread_worker_fn is a function, not a "
				"number or truth value");
		lex_fail_at(p, e->loc, "type error: '%s' is a %s, not a number or truth value",
			e->obj->name, kind_name(e->obj->kind));
	case EX_TASK_OF:
		lex_fail_at(p, e->loc, "type error: %s->task is a task, not a number or truth value",
			e->obj->name);
	case EX_CALL:
		lex_fail_at(p, e->loc, "type error: %s() makes a worker, not a number or truth value",
			e->api->name);
	default:
		lex_fail_at(p, e->loc, "type error: a string is not a number or truth value");
	}
}

/* e is used as a value: tested, compared for equality, counted or stored. */
static void want_value(struct parser *p, const struct scn_expr *e)
{
	if (e->type == TY_NONE)
		not_a_value(p, e);
}

/* e is used as a quantity: what it is used for completes "true or false, but ...". */
static void want_number(struct parser *p, const struct scn_expr *e, const char *use)
{
	want_value(p, e);
	if (e->type == TY_BOOL)
		lex_fail_at(p, e->loc, "type error: this is true or false, but %s", use);
}

/*
 * A chain such as 1 + 1 + ... or a /\ b /\ ... nests no brackets, yet it
 * is a tree as tall as the chain is long, and the interpreter and the
 * printers recurse on trees: bound their height too, as each node is made.
 * A node made is also typed, its operands checked.
 */
static struct scn_expr *built(struct parser *p, struct scn_expr *e)
{
	int h = 0;

	if (e->lhs && e->lhs->height > h)
		h = e->lhs->height;
	if (e->rhs && e->rhs->height > h)
		h = e->rhs->height;
	for (int i = 0; i < e->nargs; i++)
		if (e->args[i]->height > h)
			h = e->args[i]->height;
	e->height = h + 1;
	if (e->height > SCN_MAX_HEIGHT)
		lex_fail_at(p, e->loc, "expression more than %d operators deep; split it",
			SCN_MAX_HEIGHT);
	if (e->kind == EX_CALL) {
		e->type = e->api->ret == RET_BOOL ? TY_BOOL :
			  e->api->ret == RET_INT ? TY_INT : TY_NONE;
		return e;
	}
	want_value(p, e->lhs);
	if (e->rhs)
		want_value(p, e->rhs);
	switch (e->op) {
	case OP_NEG: case OP_ADD: case OP_SUB:
		e->type = TY_INT;
		break;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		want_number(p, e->lhs, "only numbers are ordered");
		want_number(p, e->rhs, "only numbers are ordered");
		e->type = TY_BOOL;
		break;
	case OP_EQ: case OP_NE:
		if ((e->lhs->type == TY_INT && e->rhs->type == TY_BOOL) ||
		    (e->lhs->type == TY_BOOL && e->rhs->type == TY_INT))
			lex_fail_at(p, e->loc, "type error: a number compared with true or false "
				"(true is 1: a count of 2 is not true); compare the number with a "
				"number, or test it alone");
		e->type = TY_BOOL;
		break;
	default:
		e->type = TY_BOOL;
		break;
	}
	return e;
}

static struct scn_expr *parse_expr(struct parser *p);

static enum scn_op op_of(enum tok t, bool unary)
{
	switch (t) {
	case T_NOT: return OP_NOT;
	case T_MINUS: return unary ? OP_NEG : OP_SUB;
	case T_PLUS: return OP_ADD;
	case T_EQ: return OP_EQ;
	case T_NE: return OP_NE;
	case T_LT: return OP_LT;
	case T_LE: return OP_LE;
	case T_GT: return OP_GT;
	case T_GE: return OP_GE;
	case T_AND: return OP_AND;
	default: return OP_OR;
	}
}

static bool arg_fits(enum scn_arg want, const struct scn_expr *e)
{
	enum scn_obj_kind k = e->obj ? e->obj->kind : OBJ_PROGRAM;

	switch (want) {
	case ARG_INT:
	case ARG_NSECS: case ARG_USECS: case ARG_MSECS: case ARG_MSECS_UINT: case ARG_JIFFIES:
		return e->type == TY_INT || e->type == TY_NUM;
	case ARG_STR:
		return e->kind == EX_STR;
	case ARG_WORKER:
		return e->kind == EX_OBJ && k == OBJ_WORKER;
	case ARG_WORK:
		return e->kind == EX_OBJ && k == OBJ_WORK;
	case ARG_DWORK:
		return e->kind == EX_OBJ && k == OBJ_DWORK;
	case ARG_ANYWORK:
		return e->kind == EX_OBJ && (k == OBJ_WORK || k == OBJ_DWORK);
	case ARG_FN:
		return e->kind == EX_OBJ && k == OBJ_FN;
	case ARG_LOCK:
		return e->kind == EX_OBJ && k == OBJ_LOCK;
	case ARG_COMPLETION:
		return e->kind == EX_OBJ && k == OBJ_COMPLETION;
	case ARG_TASK:
		return e->kind == EX_TASK_OF;
	case ARG_WORKER_FN:
		return e->kind == EX_OBJ && !e->obj && e->value == -1;
	}
	return false;
}

static const char *arg_name(enum scn_arg a)
{
	static const char *const names[] = {
		"a number", "a string", "a worker", "a work", "a delayed_work",
		"a work or delayed_work", "a fn", "a spinlock", "a completion",
		"a task (W->task)", "kthread_worker_fn", "a number of nanoseconds",
		"a number of microseconds", "a number of milliseconds", "a number of milliseconds",
		"a number of jiffies",
	};
	return names[a];
}

/* The value of an expression made of constants only, as the interpreter would compute it. */
static bool constant(const struct scn_expr *e, long *v)
{
	long l, r = 0;

	switch (e->kind) {
	case EX_INT:
	case EX_BOOL:
		*v = e->value;
		return true;
	case EX_UNARY:
	case EX_BINARY:
		if (!constant(e->lhs, &l) || (e->rhs && !constant(e->rhs, &r)))
			return false;
		*v = scn_apply(e->op, l, r);
		return true;
	default:
		return false;
	}
}

static struct scn_expr *parse_call(struct parser *p, const struct scn_api *api)
{
	struct scn_expr *e = new_expr(p, EX_CALL);

	e->api = api;
	lex_next(p);
	if (api->id == API_JIFFIES && p->tok != T_LPAREN)
		return built(p, e);
	lex_expect(p, T_LPAREN, "'('");
	while (p->tok != T_RPAREN) {
		struct scn_loc at = p->tloc;
		struct scn_expr *a;
		char why[160];
		long v;

		if (e->nargs == api->nargs)
			fail(p, "too many arguments to %s (it takes %d)", api->name, api->nargs);
		a = parse_expr(p);
		if (!arg_fits(api->args[e->nargs], a))
			lex_fail_at(p, at, "type error: argument %d of %s must be %s%s",
				e->nargs + 1, api->name, arg_name(api->args[e->nargs]),
				a->type == TY_BOOL ? ", not true or false" : "");
		/* a constant time is checked now; a computed one when the call is made */
		if (constant(a, &v) && !scn_api_arg_fits(api, e->nargs, v, why, sizeof(why)))
			lex_fail_at(p, at, "%s", why);
		e->args[e->nargs++] = a;
		if (p->tok != T_RPAREN)
			lex_expect(p, T_COMMA, "',' or ')'");
	}
	if (e->nargs != api->nargs)
		fail(p, "%s takes %d argument%s, not %d", api->name, api->nargs,
		     api->nargs == 1 ? "" : "s", e->nargs);
	lex_next(p);
	return built(p, e);
}

static int find_reg(struct scn_prog *prog, const char *name, bool create)
{
	for (int i = 0; i < prog->nregs; i++)
		if (!strcmp(prog->regnames[i], name))
			return i;
	if (!create || prog->nregs == SCN_MAX_REGS)
		return -1;
	if (strlen(name) >= sizeof(prog->regnames[0]))
		return -1;
	snprintf(prog->regnames[prog->nregs], sizeof(prog->regnames[0]), "%.15s", name);
	return prog->nregs++;
}

static bool is_reg_name(const char *s)
{
	if (s[0] != 'r' || !s[1])
		return false;
	for (s++; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static struct scn_expr *parse_primary(struct parser *p)
{
	struct scn_expr *e;
	const struct scn_api *api;
	struct scn_obj *o;

	switch (p->tok) {
	case T_TIME:
		/* udelay(5ms) would wait 5,000,000 us: calls take numbers in their own unit */
		fail(p, "a time such as %s goes after 'at' or in a time setting; a call takes a "
		     "plain number in its own unit, as in udelay(5000) or msleep(5)", lex_tok_text(p));
	case T_INT:
		e = new_expr(p, EX_INT);
		e->value = p->num;
		lex_next(p);
		return e;
	case T_STR:
		e = new_expr(p, EX_STR);
		e->str = p->str;
		lex_next(p);
		return e;
	case T_LPAREN:
		enter(p);
		lex_next(p);
		e = parse_expr(p);
		lex_expect(p, T_RPAREN, "')'");
		p->depth--;
		return e;
	case T_IDENT:
		break;
	default:
		fail(p, "expected an expression, found %s", lex_tok_text(p));
	}
	if (lex_is_word(p, "true") || lex_is_word(p, "false")) {
		e = new_expr(p, EX_BOOL);
		e->value = lex_is_word(p, "true");
		lex_next(p);
		return e;
	}
	if (lex_is_word(p, "KTW_FREEZABLE")) {
		e = new_expr(p, EX_INT);
		e->value = 1;
		lex_next(p);
		return e;
	}
	if (lex_is_word(p, "kthread_worker_fn")) {
		e = new_expr(p, EX_OBJ);
		e->value = -1;
		lex_next(p);
		return e;
	}
	api = scn_api_find(p->ident);
	if (api) {
		if (api->ret == RET_VOID)
			fail(p, "%s returns nothing", api->name);
		return parse_call(p, api);
	}
	o = find_obj(p, p->ident);
	if (o) {
		if (o->kind == OBJ_PROGRAM)
			fail(p, "'%s' is a program, not a value", o->name);
		e = new_expr(p, EX_OBJ);
		e->obj = o;
		if (o->kind == OBJ_COUNTER)
			e->type = TY_INT;
		lex_next(p);
		if (lex_accept(p, T_ARROW)) {
			if (o->kind != OBJ_WORKER || !lex_is_word(p, "task"))
				fail(p, "only a worker's ->task can be named here");
			e->kind = EX_TASK_OF;
			lex_next(p);
		}
		return e;
	}
	if (is_reg_name(p->ident) && p->prog) {
		int r = find_reg(p->prog, p->ident, false);

		if (r < 0)
			fail(p, "register '%s' is read before any assignment", p->ident);
		e = new_expr(p, EX_REG);
		e->prog = -1;
		e->reg = r;
		lex_next(p);
		return e;
	}
	unknown_name(p, "name");
}

static struct scn_expr *parse_unary(struct parser *p)
{
	struct scn_expr *e;

	if (p->tok == T_NOT || p->tok == T_MINUS) {
		enter(p);
		e = new_expr(p, EX_UNARY);
		e->op = op_of(p->tok, true);
		lex_next(p);
		e->lhs = parse_unary(p);
		p->depth--;
		return built(p, e);
	}
	return parse_primary(p);
}

static int precedence(enum tok t)
{
	switch (t) {
	case T_OR:
		return 1;
	case T_AND:
		return 2;
	case T_EQ: case T_NE:
		return 3;
	case T_LT: case T_LE: case T_GT: case T_GE:
		return 4;
	case T_PLUS: case T_MINUS:
		return 5;
	default:
		return 0;
	}
}

static struct scn_expr *parse_binary(struct parser *p, int min_prec)
{
	struct scn_expr *lhs = parse_unary(p);

	for (;;) {
		int prec = precedence(p->tok);
		struct scn_expr *e;

		if (!prec || prec < min_prec)
			return lhs;
		enter(p);
		e = new_expr(p, EX_BINARY);
		e->op = op_of(p->tok, false);
		lex_next(p);
		e->lhs = lhs;
		e->rhs = parse_binary(p, prec + 1);
		p->depth--;
		lhs = built(p, e);
	}
}

static struct scn_expr *parse_expr(struct parser *p)
{
	return parse_binary(p, 1);
}

/* --- statements --------------------------------------------------------------------------- */

static struct scn_stmt *new_stmt(struct parser *p, enum scn_stmt_kind kind)
{
	struct scn_stmt *st = scn_alloc(p->s, sizeof(*st));

	st->kind = kind;
	st->loc = p->tloc;
	return st;
}

static struct scn_stmt *parse_block(struct parser *p);

static uint64_t parse_time(struct parser *p)
{
	long v = p->num;

	if (p->tok != T_TIME)
		fail(p, "expected a time such as 5ms, found %s", lex_tok_text(p));
	lex_next(p);
	return (uint64_t)v;
}

static struct scn_stmt *parse_stmt(struct parser *p)
{
	struct scn_stmt *st;
	const struct scn_api *api;
	struct scn_obj *o;

	if (p->tok == T_LBRACE)
		return parse_block(p);
	if (p->tok != T_IDENT)
		fail(p, "expected a statement, found %s", lex_tok_text(p));
	if (lex_is_word(p, "if")) {
		st = new_stmt(p, ST_IF);
		lex_next(p);
		lex_expect(p, T_LPAREN, "'(' after if");
		st->e = parse_expr(p);
		want_value(p, st->e);
		lex_expect(p, T_RPAREN, "')'");
		enter(p);
		st->body = parse_stmt(p);
		if (lex_is_word(p, "else")) {
			lex_next(p);
			st->orelse = parse_stmt(p);
		}
		p->depth--;
		return st;
	}
	if (lex_is_word(p, "repeat") || lex_is_word(p, "while")) {
		st = new_stmt(p, lex_is_word(p, "repeat") ? ST_REPEAT : ST_WHILE);
		lex_next(p);
		lex_expect(p, T_LPAREN, "'('");
		st->e = parse_expr(p);
		if (st->kind == ST_REPEAT)
			want_number(p, st->e, "repeat takes a number of rounds");
		else
			want_value(p, st->e);
		lex_expect(p, T_RPAREN, "')'");
		enter(p);
		st->body = parse_stmt(p);
		p->depth--;
		return st;
	}
	if (lex_is_word(p, "at")) {
		if (p->in_fn)
			fail(p, "'at' waits are for programs, not work functions");
		st = new_stmt(p, ST_AT);
		lex_next(p);
		st->ns = parse_time(p);
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	if (lex_is_word(p, "log")) {
		st = new_stmt(p, ST_LOG);
		lex_next(p);
		lex_expect(p, T_LPAREN, "'('");
		if (p->tok != T_STR)
			fail(p, "log takes a string");
		st->str = p->str;
		lex_next(p);
		lex_expect(p, T_RPAREN, "')'");
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	api = scn_api_find(p->ident);
	if (api) {
		if (api->ret == RET_WORKER)
			fail(p, "%s makes a worker: assign it, as in 'worker W = %s(...);'",
			     api->name, api->name);
		st = new_stmt(p, ST_EXPR);
		st->e = parse_call(p, api);
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	o = find_obj(p, p->ident);
	if (o && o->kind == OBJ_COUNTER) {
		struct scn_loc at = p->tloc;

		lex_next(p);
		if (p->tok == T_INC || p->tok == T_DEC) {
			st = new_stmt(p, ST_ADD_COUNTER);
			st->e = new_expr(p, EX_INT);
			st->e->value = p->tok == T_INC ? 1 : -1;
		} else if (p->tok == T_ADD_ASSIGN || p->tok == T_SUB_ASSIGN) {
			bool sub = p->tok == T_SUB_ASSIGN;

			st = new_stmt(p, ST_ADD_COUNTER);
			lex_next(p);
			st->e = parse_expr(p);
			want_value(p, st->e);
			if (sub) {
				struct scn_expr *neg = new_expr(p, EX_UNARY);

				neg->op = OP_NEG;
				neg->lhs = st->e;
				st->e = built(p, neg);
			}
			st->obj = o;
			st->loc = at;
			lex_expect(p, T_SEMI, "';'");
			return st;
		} else if (p->tok == T_ASSIGN) {
			st = new_stmt(p, ST_SET_COUNTER);
			lex_next(p);
			st->e = parse_expr(p);
			want_value(p, st->e);
			st->obj = o;
			st->loc = at;
			lex_expect(p, T_SEMI, "';'");
			return st;
		} else {
			fail(p, "expected ++, --, +=, -= or = after counter '%s'", o->name);
		}
		st->obj = o;
		st->loc = at;
		lex_next(p);
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	if (o && o->kind == OBJ_WORKER) {
		/* W = kthread_create_worker(...); later in a program */
		struct scn_loc at = p->tloc;

		lex_next(p);
		lex_expect(p, T_ASSIGN, "'='");
		st = new_stmt(p, ST_SET_COUNTER);
		st->loc = at;
		st->obj = o;
		st->e = parse_expr(p);
		if (st->e->kind != EX_CALL || st->e->api->ret != RET_WORKER)
			lex_fail_at(p, at, "a worker can only be assigned a kthread_create_worker*() call");
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	if (!o && is_reg_name(p->ident)) {
		struct scn_loc at = p->tloc;
		char name[64];

		if (!p->prog)
			fail(p, "registers such as '%s' belong to programs (P0 { ... })", p->ident);
		snprintf(name, sizeof(name), "%s", p->ident);
		lex_next(p);
		lex_expect(p, T_ASSIGN, "'='");
		st = new_stmt(p, ST_SET_REG);
		st->loc = at;
		st->e = parse_expr(p);
		want_value(p, st->e);
		if (strlen(name) >= sizeof(p->prog->regnames[0]))
			lex_fail_at(p, at, "a register's name has at most %zu characters",
				sizeof(p->prog->regnames[0]) - 1);
		st->reg = find_reg(p->prog, name, true);
		if (st->reg < 0)
			lex_fail_at(p, at, "more than %d registers in %s", SCN_MAX_REGS, p->prog->name);
		lex_expect(p, T_SEMI, "';'");
		return st;
	}
	if (o)
		fail(p, "a %s '%s' cannot start a statement", kind_name(o->kind), o->name);
	unknown_name(p, "call or name");
}

static bool is_thread_name(const char *w);

/* Whether the word at the source position pos is w, as a whole word. */
static bool word_at(struct parser *p, size_t pos, const char *w)
{
	size_t n = strlen(w);

	while (pos < p->len && isspace((unsigned char)p->text[pos]))
		pos++;
	return pos + n <= p->len && !memcmp(p->text + pos, w, n) &&
	       (pos + n == p->len || !(isalnum((unsigned char)p->text[pos + n]) ||
				       p->text[pos + n] == '_'));
}

/*
 * What can only start the next part of the file (a program, an irq, a
 * system event, the condition, the schedule), or its end: met inside a
 * block, the block's '}' is missing. Said so, with the line that opened the
 * block, rather than as an unknown statement.
 */
static bool starts_part(struct parser *p)
{
	size_t after;

	if (p->tok == T_EOF)
		return true;
	if (p->tok == T_NOT)
		return word_at(p, p->tend, "exists");
	if (p->tok != T_IDENT || find_obj(p, p->ident))
		return false;
	if (lex_is_word(p, "irq") || lex_is_word(p, "suspend") || lex_is_word(p, "resume") ||
	    lex_is_word(p, "exists") || lex_is_word(p, "forall") || lex_is_word(p, "schedule"))
		return true;
	/* P1 { ..., P1 @cpu1 ..., P1 at 5ms ... */
	after = p->tend;
	while (after < p->len && isspace((unsigned char)p->text[after]))
		after++;
	return is_thread_name(p->ident) && after < p->len &&
	       (p->text[after] == '{' || p->text[after] == '@' || word_at(p, after, "at"));
}

__attribute__((noreturn))
static void missing_brace(struct parser *p, struct scn_loc opened)
{
	fail(p, "missing '}' to close the block opened at line %d", opened.line);
}

static struct scn_stmt *parse_block(struct parser *p)
{
	struct scn_stmt *block = new_stmt(p, ST_BLOCK), **tail = &block->body;

	enter(p);
	lex_expect(p, T_LBRACE, "'{'");
	while (p->tok != T_RBRACE) {
		if (starts_part(p))
			missing_brace(p, block->loc);
		*tail = parse_stmt(p);
		tail = &(*tail)->next;
	}
	lex_next(p);
	p->depth--;
	return block;
}

/* --- settings: the init block's, the schedule's, the command line's ------------------------- */

/*
 * Settings come in blocks: the init block, the schedule section, the command
 * line. In each, a seed means the random strategy unless the block names
 * one; a seed with strategy = faithful would do nothing, and is refused.
 */
struct setting_block {
	bool seed, strategy;
	struct scn_loc seed_at;
};

_Static_assert(sizeof(enum sim_preempt) == sizeof(unsigned int) &&
	       sizeof(enum sim_spinlock) == sizeof(unsigned int) &&
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
	if (!kw_model_find(v)) {
		if (!strncmp(v, "tree:", 5))
			lex_fail_at(p, at, "kernel %s is not built into this kwsim ('kwsim help' lists "
				    "the trees it has; KWSIM_KERNEL_TREES builds more)", v);
		lex_fail_at(p, at, "kernel must be v4.9, mainline or tree:LABEL, not '%s'", v);
	}
	snprintf(p->s->kernel, sizeof(p->s->kernel), "%s", v);
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

static const struct setting *parse_setting(struct parser *p, struct setting_block *b)
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
	lex_expect(p, T_ASSIGN, "'='");
	if (st->type == SET_KERNEL) {
		parse_kernel(p);
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
		if ((st->type == SET_TIME) != is_time)
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
	return st;
}

static void settings_done(struct parser *p, const struct setting_block *b)
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
static void check_cpus(struct parser *p)
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
static bool setting_follows(struct parser *p)
{
	size_t i = p->pos;

	if (p->tok != T_IDENT || !is_setting(p->ident) || find_obj(p, p->ident))
		return false;
	if (strcmp(p->ident, "spinlock"))
		return true;
	while (i < p->len && strchr(" \t\r\n", p->text[i]))
		i++;
	return i < p->len && p->text[i] == '=';
}

const char *scn_setting_text(const struct scn *s, size_t i, char *buf, size_t len)
{
	const struct setting *st = &settings[i];
	const struct kw_model *m;
	char name[80];
	uint64_t v;

	if (i >= NSETTINGS)
		return NULL;
	full_name(st, name, sizeof(name));
	switch (st->type) {
	case SET_KERNEL:
		m = kw_model_find(s->kernel);
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
	case SET_NAME:
		v = load(&s->cfg, st);
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
		if (!strcmp(st->name, "seed") && s->cfg.strategy != SIM_STRATEGY_RANDOM) {
			buf[0] = '\0';
			return buf;
		}
		snprintf(buf, len, "%s = %llu;", name, (unsigned long long)load(&s->cfg, st));
		return buf;
	case SET_TIME: {
		static const struct { const char *unit; uint64_t ns; } units[] = {
			{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
		};
		size_t u = 0;

		v = load(&s->cfg, st);
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
	p.err = open_memstream(&out, &outlen);
	if (!p.err)
		abort();
	if (!setjmp(p.fail)) {
		lex_next(&p);
		if (p.tok != T_IDENT)
			fail(&p, "expected a setting's name, found %s", lex_tok_text(&p));
		*which = parse_setting(&p, b);
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
	check_cpus(&p);
	return 0;
}

/* --- the init block ------------------------------------------------------------------------ */

/*
 * A fn body may name works declared after it (a work that requeues itself
 * is declared with its fn), so bodies are skipped here and parsed once the
 * init block is complete.
 */
static void skip_fn_body(struct parser *p, struct scn_obj *o)
{
	struct scn_loc opened[SCN_MAX_DEPTH + 1];
	int depth = 0;

	if (p->tok != T_LBRACE)
		fail(p, "expected '{' to open the body of fn %s", o->name);
	o->body_at = p->tstart;
	o->body_loc = p->tloc;
	do {
		/* declarations belong to the init block: a fn body cannot hold one */
		if (depth && (starts_part(p) || lex_is_word(p, "fn") || lex_is_word(p, "worker") ||
			      lex_is_word(p, "work") || lex_is_word(p, "delayed_work") ||
			      lex_is_word(p, "spinlock") || lex_is_word(p, "completion") ||
			      lex_is_word(p, "int")))
			missing_brace(p, opened[depth - 1]);
		if (p->tok == T_LBRACE) {
			if (depth == SCN_MAX_DEPTH)
				fail(p, "nesting deeper than %d", SCN_MAX_DEPTH);
			opened[depth++] = p->tloc;
		}
		if (p->tok == T_RBRACE)
			depth--;
		lex_next(p);
	} while (depth);
}

static void parse_fn_bodies(struct parser *p)
{
	size_t pos = p->pos;
	struct scn_loc loc = p->loc;

	for (int i = 0; i < p->s->nfns; i++) {
		struct scn_obj *o = p->s->fns[i];

		p->pos = o->body_at;
		p->loc = o->body_loc;
		lex_next(p);
		p->in_fn = true;
		o->body = parse_block(p);
		p->in_fn = false;
	}
	p->pos = pos;
	p->loc = loc;
	lex_next(p);
}

static void parse_init(struct parser *p)
{
	struct scn_stmt **tail = &p->s->setup;
	struct setting_block settings_given = { 0 };
	struct scn_loc opened = p->tloc;

	lex_expect(p, T_LBRACE, "'{' to open the init block");
	while (p->tok != T_RBRACE) {
		struct scn_obj *o;

		if (starts_part(p))
			missing_brace(p, opened);
		if (setting_follows(p)) {
			parse_setting(p, &settings_given);
		} else if (lex_is_word(p, "fn")) {
			lex_next(p);
			o = declare(p, OBJ_FN);
			skip_fn_body(p, o);
		} else if (lex_is_word(p, "worker") || lex_is_word(p, "work") || lex_is_word(p, "delayed_work") ||
			   lex_is_word(p, "spinlock") || lex_is_word(p, "completion") || lex_is_word(p, "int")) {
			static const struct { const char *w; enum scn_obj_kind k; } decls[] = {
				{ "worker", OBJ_WORKER }, { "work", OBJ_WORK },
				{ "delayed_work", OBJ_DWORK }, { "spinlock", OBJ_LOCK },
				{ "completion", OBJ_COMPLETION }, { "int", OBJ_COUNTER },
			};
			enum scn_obj_kind k = OBJ_WORKER;

			for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
				if (lex_is_word(p, decls[i].w))
					k = decls[i].k;
			lex_next(p);
			o = declare(p, k);
			if (lex_accept(p, T_ASSIGN)) {
				struct scn_loc at = p->tloc;
				struct scn_expr *e = parse_expr(p);

				if (k == OBJ_WORKER) {
					struct scn_stmt *st = new_stmt(p, ST_SET_COUNTER);

					if (e->kind != EX_CALL || e->api->ret != RET_WORKER)
						lex_fail_at(p, at, "a worker is made by kthread_create_worker() "
							"or kthread_create_worker_on_cpu()");
					o->init = e;
					st->loc = at;
					st->obj = o;
					st->e = e;
					*tail = st;
					tail = &st->next;
				} else if (k == OBJ_WORK || k == OBJ_DWORK) {
					if (e->kind != EX_OBJ || !e->obj || e->obj->kind != OBJ_FN)
						lex_fail_at(p, at, "a %s is initialised with a fn name",
							kind_name(k));
					o->fn = e->obj;
				} else if (k == OBJ_COUNTER) {
					if (e->kind != EX_INT && !(e->kind == EX_UNARY &&
								   e->lhs->kind == EX_INT))
						lex_fail_at(p, at, "an int starts at a number");
					o->value = e->kind == EX_INT ? e->value : -e->lhs->value;
				} else {
					lex_fail_at(p, at, "a %s takes no initial value", kind_name(k));
				}
			} else if (k == OBJ_WORK || k == OBJ_DWORK) {
				fail(p, "a %s needs its function: %s %s = fn_name;", kind_name(k),
				     kind_name(k), o->name);
			}
			lex_expect(p, T_SEMI, "';'");
		} else {
			*tail = parse_stmt(p);
			tail = &(*tail)->next;
		}
	}
	settings_done(p, &settings_given);
	parse_fn_bodies(p);
}

/* --- programs, condition, schedule ------------------------------------------------------------- */

static int parse_cpu(struct parser *p)
{
	long cpu;

	lex_expect(p, T_AT_SIGN, "'@'");
	if (p->tok != T_IDENT || strncmp(p->ident, "cpu", 3) || !p->ident[3])
		fail(p, "expected a CPU such as cpu0, found %s", lex_tok_text(p));
	errno = 0;
	cpu = strtol(p->ident + 3, NULL, 10);
	for (const char *c = p->ident + 3; *c; c++)
		if (!isdigit((unsigned char)*c))
			fail(p, "expected a CPU such as cpu0, found %s", lex_tok_text(p));
	if (cpu >= p->s->cfg.ncpus)
		fail(p, "cpu%ld does not exist: the scenario has %d CPUs (cpus = N; sets more)",
		     cpu, p->s->cfg.ncpus);
	lex_next(p);
	return (int)cpu;
}

static struct scn_prog *new_prog(struct parser *p, enum scn_prog_kind kind, const char *name)
{
	struct scn *s = p->s;
	struct scn_prog *prog;

	if (strlen(name) >= sizeof(prog->name))
		fail(p, "a program's name has at most %zu characters",
		     sizeof(((struct scn_prog *)0)->name) - 1);
	for (int i = 0; i < s->nprogs; i++)
		if (name[0] && !strcmp(s->progs[i]->name, name))
			fail(p, "program '%s' is defined twice", name);
	if (s->nprogs == 256)
		fail(p, "too many programs");
	prog = scn_alloc(s, sizeof(*prog));
	prog->kind = kind;
	prog->loc = p->tloc;
	prog->cpu = -1;
	snprintf(prog->name, sizeof(prog->name), "%s", name);
	if (!(s->nprogs & (s->nprogs - 1))) {
		struct scn_prog **grown = scn_alloc(s, (size_t)(s->nprogs ? 2 * s->nprogs : 1) *
						      sizeof(*grown));

		if (s->nprogs)
			memcpy(grown, s->progs, (size_t)s->nprogs * sizeof(*grown));
		s->progs = grown;
	}
	s->progs[s->nprogs++] = prog;
	return prog;
}

static bool is_thread_name(const char *w)
{
	if (w[0] != 'P' || !w[1])
		return false;
	for (w++; *w; w++)
		if (!isdigit((unsigned char)*w))
			return false;
	return true;
}

static void parse_program(struct parser *p)
{
	struct scn_prog *prog;

	if (lex_is_word(p, "suspend") || lex_is_word(p, "resume")) {
		prog = new_prog(p, lex_is_word(p, "suspend") ? PROG_SUSPEND : PROG_RESUME, "");
		snprintf(prog->name, sizeof(prog->name), "%.15s", p->ident);
		lex_next(p);
		if (!lex_is_word(p, "at"))
			fail(p, "expected 'at' and a time after %s", prog->name);
		lex_next(p);
		prog->at = parse_time(p);
		lex_expect(p, T_SEMI, "';'");
		return;
	}
	if (lex_is_word(p, "irq")) {
		lex_next(p);
		if (p->tok != T_IDENT)
			fail(p, "expected the interrupt's name after 'irq'");
		prog = new_prog(p, PROG_IRQ, p->ident);
		lex_next(p);
		prog->cpu = parse_cpu(p);
		if (!lex_is_word(p, "at"))
			fail(p, "an irq needs 'at' and a time");
		lex_next(p);
		prog->at = parse_time(p);
	} else {
		prog = new_prog(p, PROG_THREAD, p->ident);
		lex_next(p);
		if (p->tok == T_AT_SIGN)
			prog->cpu = parse_cpu(p);
		if (lex_is_word(p, "at")) {
			lex_next(p);
			prog->at = parse_time(p);
		}
	}
	p->prog = prog;
	prog->body = parse_block(p);
	p->prog = NULL;
}

static struct scn_prog *prog_by_name(struct scn *s, const char *name)
{
	for (int i = 0; i < s->nprogs; i++)
		if (!strcmp(s->progs[i]->name, name))
			return s->progs[i];
	return NULL;
}

/* A register in the condition: P0:r0, 0:r0, or a bare r0 assigned by one program only. */
static struct scn_expr *parse_cond_reg(struct parser *p, const char *progname, bool numbered)
{
	struct scn_expr *e = new_expr(p, EX_REG);
	struct scn_prog *prog = NULL;

	if (progname) {
		char name[24];

		snprintf(name, sizeof(name), numbered ? "P%s" : "%s", progname);
		prog = prog_by_name(p->s, name);
		if (!prog)
			fail(p, "no program %s", name);
		if (p->tok != T_IDENT || (e->reg = find_reg(prog, p->ident, false)) < 0)
			fail(p, "%s has no register %s", name, p->tok == T_IDENT ? p->ident : "here");
	} else {
		for (int i = 0; i < p->s->nprogs; i++) {
			if (find_reg(p->s->progs[i], p->ident, false) < 0)
				continue;
			if (prog)
				fail(p, "'%s' is assigned by %s and %s: write %s:%s", p->ident,
				     prog->name, p->s->progs[i]->name, prog->name, p->ident);
			prog = p->s->progs[i];
		}
		if (!prog)
			fail(p, "no program assigns register '%s'", p->ident);
		e->reg = find_reg(prog, p->ident, false);
	}
	for (int i = 0; i < p->s->nprogs; i++)
		if (p->s->progs[i] == prog)
			e->prog = i;
	lex_next(p);
	return e;
}

/* --- the functions a finding can name ----------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every model variant: our own and the kernel trees'. */
static const struct kw_model *any_model(size_t i)
{
	return i < kw_model_count() ? kw_model_get(i) : kw_tree_get(i - kw_model_count());
}

/* A model variant's function as findings name it: without the variant's symbol prefix. */
static const char *unprefixed(const char *func)
{
	for (size_t i = 0; i < kw_model_count() + kw_tree_count(); i++) {
		const struct kw_model *m = any_model(i);
		size_t n = strlen(m->ns);

		if (!strncmp(func, m->ns, n))
			return func + n;
	}
	return func;
}

/*
 * A finding's site is a SIM_HERE: in a function of a model variant (any of
 * them, the kernel trees' too), of the machine (its timers, sleeps, locks)
 * or of the interpreter. Those functions, and those the variants name in
 * traces (a report may name the function that was running), sorted, once.
 */
static void collect_site_funcs(struct parser *p)
{
	size_t nmodels = kw_model_count() + kw_tree_count(), n = sim_site_count(), k = 0;
	const char **names;

	for (size_t i = 0; i < nmodels; i++)
		for (const char *const *sym = any_model(i)->symbols; *sym; sym++)
			k++;
	names = scn_alloc(p->s, (n + k + 1) * sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = unprefixed(sim_site_get(i)->func);
	for (size_t i = 0; i < nmodels; i++)
		for (const char *const *sym = any_model(i)->symbols; *sym; sym++)
			names[n++] = *sym;
	k = 0;
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(names[k - 1], names[i]))
			names[k++] = names[i];
	p->site_funcs = names;
	p->nsite_funcs = k;
}

/* warn("fn") and the like: fn must be a function a finding can name, or one of the scenario's. */
static void check_finding_func(struct parser *p, const char *kind)
{
	struct scn_obj *o = find_obj(p, p->str);
	const char **words;
	const char *hint;
	size_t n;

	if (o && o->kind == OBJ_FN)
		return;
	if (!p->site_funcs)
		collect_site_funcs(p);
	if (bsearch(&p->str, p->site_funcs, p->nsite_funcs, sizeof(*p->site_funcs), by_name))
		return;
	words = scn_alloc(p->s, (p->nsite_funcs + (size_t)p->s->nfns + 1) * sizeof(*words));
	memcpy(words, p->site_funcs, p->nsite_funcs * sizeof(*words));
	n = p->nsite_funcs;
	for (int i = 0; i < p->s->nfns; i++)
		words[n++] = p->s->fns[i]->name;
	hint = scn_did_you_mean(p->str, words, n);
	fail(p, "no function '%s' in the model, the machine or the scenario: %s(\"%s\") could "
	     "never count anything%s%s%s", p->str, kind, p->str, hint ? "; did you mean '" : "",
	     hint ? hint : "", hint ? "'?" : "");
}

static struct scn_expr *parse_cond(struct parser *p);

static struct scn_expr *parse_cond_atom(struct parser *p)
{
	struct scn_expr *e;

	if (p->tok == T_NOT) {
		enter(p);
		e = new_expr(p, EX_UNARY);
		e->op = OP_NOT;
		lex_next(p);
		e->lhs = parse_cond_atom(p);
		p->depth--;
		return built(p, e);
	}
	if (p->tok == T_LPAREN) {
		enter(p);
		lex_next(p);
		e = parse_cond(p);
		lex_expect(p, T_RPAREN, "')'");
		p->depth--;
		return e;
	}
	if (p->tok == T_INT) {
		char num[24];

		snprintf(num, sizeof(num), "%ld", p->num);
		lex_next(p);
		if (p->tok == T_COLON) {
			lex_next(p);
			return parse_cond_reg(p, num, true);
		}
		e = new_expr(p, EX_INT);
		e->value = strtol(num, NULL, 10);
		return e;
	}
	if (p->tok == T_IDENT) {
		for (int i = 0; i < SIM_F__COUNT; i++) {
			if (!lex_is_word(p, sim_finding_kind_name((enum sim_finding_kind)i)))
				continue;
			e = new_expr(p, EX_FINDING);
			e->value = (long)i;
			lex_next(p);
			if (lex_accept(p, T_LPAREN)) {
				if (p->tok == T_STR) {
					check_finding_func(p, sim_finding_kind_name(
						(enum sim_finding_kind)i));
					e->str = p->str;
					lex_next(p);
				}
				lex_expect(p, T_RPAREN, "')'");
			}
			return e;
		}
		if (lex_is_word(p, "ran") || lex_is_word(p, "before")) {
			bool ran = lex_is_word(p, "ran");

			e = new_expr(p, ran ? EX_RAN : EX_BEFORE);
			lex_next(p);
			lex_expect(p, T_LPAREN, "'('");
			for (int i = 0; i < (ran ? 1 : 2); i++) {
				struct scn_obj *o;

				if (i)
					lex_expect(p, T_COMMA, "','");
				if (p->tok != T_IDENT || !(o = find_obj(p, p->ident)) ||
				    (o->kind != OBJ_FN && o->kind != OBJ_WORK && o->kind != OBJ_DWORK))
					fail(p, "expected a fn, work or delayed_work name");
				if (o->kind != OBJ_FN)
					o = o->fn;
				if (i)
					e->obj2 = o;
				else
					e->obj = o;
				lex_next(p);
			}
			lex_expect(p, T_RPAREN, "')'");
			return e;
		}
		if (is_thread_name(p->ident) || prog_by_name(p->s, p->ident)) {
			char name[64];

			snprintf(name, sizeof(name), "%s", p->ident);
			lex_next(p);
			lex_expect(p, T_COLON, "':' after a program name");
			return parse_cond_reg(p, name, false);
		}
		if (is_reg_name(p->ident))
			return parse_cond_reg(p, NULL, false);
	}
	{
		struct scn_prog *saved = p->prog;

		p->prog = NULL;
		e = parse_primary(p);
		p->prog = saved;
		return e;
	}
}

/* Sums and differences of atoms, as in 0:r1 - 0:r0 == 2. */
static struct scn_expr *parse_cond_sum(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_atom(p);

	while (p->tok == T_PLUS || p->tok == T_MINUS) {
		struct scn_expr *e = new_expr(p, EX_BINARY);

		e->op = op_of(p->tok, false);
		lex_next(p);
		e->lhs = lhs;
		e->rhs = parse_cond_atom(p);
		lhs = built(p, e);
	}
	return lhs;
}

static struct scn_expr *parse_cond_cmp(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_sum(p);
	int prec = precedence(p->tok);

	if (prec == 3 || prec == 4) {
		struct scn_expr *e = new_expr(p, EX_BINARY);

		e->op = op_of(p->tok, false);
		lex_next(p);
		e->lhs = lhs;
		e->rhs = parse_cond_sum(p);
		return built(p, e);
	}
	return lhs;
}

static struct scn_expr *parse_cond(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_cmp(p);

	while (p->tok == T_AND || p->tok == T_OR) {
		struct scn_expr *e = new_expr(p, EX_BINARY);

		enter(p);
		e->op = op_of(p->tok, false);
		lex_next(p);
		e->lhs = lhs;
		e->rhs = parse_cond_cmp(p);
		lhs = built(p, e);
		p->depth--;
	}
	return lhs;
}

static void parse_condition(struct parser *p)
{
	size_t start;

	if (p->tok == T_NOT) {
		lex_next(p);
		if (!lex_is_word(p, "exists"))
			fail(p, "expected 'exists' after '~'");
		p->s->quant = Q_NOT_EXISTS;
	} else {
		p->s->quant = lex_is_word(p, "exists") ? Q_EXISTS : Q_FORALL;
	}
	lex_next(p);
	start = p->tstart;
	lex_expect(p, T_LPAREN, "'(' after the quantifier");
	p->s->cond = parse_cond(p);
	want_value(p, p->s->cond);
	if (p->tok != T_RPAREN)
		fail(p, "expected ')' to close the condition, found %s", lex_tok_text(p));
	p->s->cond_text = scn_strndup(p->s, p->text + start, p->tend - start);
	lex_next(p);
}

static void parse_schedule(struct parser *p)
{
	struct scn *s = p->s;
	struct setting_block given = { 0 };
	size_t cap = 0;

	s->schedule_at = p->tstart;
	s->has_schedule = true;
	lex_next(p);
	lex_expect(p, T_LBRACE, "'{' after schedule");
	/* the settings of the run that made the log: they override the init block's */
	while (!lex_is_word(p, "decisions")) {
		if (p->tok != T_IDENT)
			fail(p, "a schedule holds the run's settings (name = value;) and its "
			     "decisions { ... }, not %s", lex_tok_text(p));
		parse_setting(p, &given);
	}
	settings_done(p, &given);
	s->log_strategy = given.strategy || given.seed;
	lex_next(p);
	if (p->tok != T_LBRACE)
		fail(p, "expected '{' after decisions");
	/* Decisions are read by hand: WHY PICK '/' N, e.g. c1/2 is candidate 1 of 2 of a cpu choice. */
	for (;;) {
		static const char whys[] = SIM_WHY_LETTERS;
		const char *w;
		unsigned long pick, n;
		char *end;
		struct scn_loc at;

		while (lex_peekc(p, 0) == ' ' || lex_peekc(p, 0) == '\n' || lex_peekc(p, 0) == '\t' ||
		       lex_peekc(p, 0) == '\r')
			lex_advance(p, 1);
		at = p->loc;
		if (lex_peekc(p, 0) == '}')
			break;
		if (lex_peekc(p, 0) == -1)
			lex_fail_at(p, at, "unexpected end of file in the decisions");
		if (!(w = strchr(whys, lex_peekc(p, 0))) || !*w || !isdigit(lex_peekc(p, 1)))
			lex_fail_at(p, at, "expected a decision such as c1/2");
		lex_advance(p, 1);
		pick = strtoul(p->text + p->pos, &end, 10);
		lex_advance(p, (size_t)(end - (p->text + p->pos)));
		if (lex_peekc(p, 0) != '/' || !isdigit(lex_peekc(p, 1)))
			lex_fail_at(p, at, "expected '/' and the number of candidates in a decision");
		lex_advance(p, 1);
		n = strtoul(p->text + p->pos, &end, 10);
		lex_advance(p, (size_t)(end - (p->text + p->pos)));
		if (n < 2 || n > 65535 || pick >= n)
			lex_fail_at(p, at, "a decision picks one of 2 to 65535 candidates");
		if (s->nlog == cap) {
			cap = cap ? 2 * cap : 256;
			s->log = realloc(s->log, cap * sizeof(*s->log));
			if (!s->log)
				abort();
		}
		s->log[s->nlog++] = (struct sim_decision){ .n = (uint16_t)n, .pick = (uint16_t)pick,
							   .why = (uint8_t)(w - whys) };
	}
	lex_advance(p, 1);
	lex_next(p);
	lex_expect(p, T_RBRACE, "'}' to close the schedule");
}

static void parse_file(struct parser *p)
{
	struct scn *s = p->s;
	const char *nl;
	size_t n;

	lex_skip_space(p);
	if (p->len - p->pos < 3 || memcmp(p->text + p->pos, "KW ", 3))
		lex_fail_at(p, p->loc, "a scenario starts with 'KW name'");
	lex_advance(p, 3);
	nl = memchr(p->text + p->pos, '\n', p->len - p->pos);
	n = nl ? (size_t)(nl - (p->text + p->pos)) : p->len - p->pos;
	while (n && (p->text[p->pos + n - 1] == ' ' || p->text[p->pos + n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(s->name))
		lex_fail_at(p, p->loc, "the scenario's name must be 1 to %zu characters", sizeof(s->name) - 1);
	memcpy(s->name, p->text + p->pos, n);
	lex_advance(p, n);
	/* the first comment is the scenario's description */
	while (lex_peekc(p, 0) == ' ' || lex_peekc(p, 0) == '\n' || lex_peekc(p, 0) == '\r' || lex_peekc(p, 0) == '\t')
		lex_advance(p, 1);
	if (lex_peekc(p, 0) == '(' && lex_peekc(p, 1) == '*') {
		const char *end = NULL;

		for (size_t i = p->pos + 2; i + 1 < p->len; i++) {
			if (p->text[i] == '*' && p->text[i + 1] == ')') {
				end = p->text + i;
				break;
			}
		}
		if (end)
			s->comment = scn_strndup(s, p->text + p->pos + 2,
						   (size_t)(end - (p->text + p->pos + 2)));
	}
	lex_next(p);
	parse_init(p);
	while (p->tok == T_IDENT && !lex_is_word(p, "exists") && !lex_is_word(p, "forall") &&
	       !lex_is_word(p, "schedule")) {
		if (!is_thread_name(p->ident) && !lex_is_word(p, "irq") && !lex_is_word(p, "suspend") &&
		    !lex_is_word(p, "resume"))
			fail(p, "expected a program (P0 { ... }), an irq, suspend, resume or the "
			     "condition, found %s", lex_tok_text(p));
		parse_program(p);
	}
	if (p->tok == T_NOT || lex_is_word(p, "exists") || lex_is_word(p, "forall"))
		parse_condition(p);
	if (lex_is_word(p, "schedule"))
		parse_schedule(p);
	if (p->tok != T_EOF)
		fail(p, "expected the end of the file, found %s", lex_tok_text(p));
	check_cpus(p);
}

struct scn *scn_parse(const char *path, const char *text, size_t len, FILE *err)
{
	struct scn *s = calloc(1, sizeof(*s));
	struct parser p = { 0 };

	if (!s)
		abort();
	s->path = strdup(path);
	s->text = malloc(len + 1);
	if (!s->path || !s->text)
		abort();
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->text_len = len;
	s->schedule_at = len;
	sim_config_default(&s->cfg);
	s->cfg.max_steps = SCN_MAX_STEPS;
	snprintf(s->kernel, sizeof(s->kernel), "mainline");
	p.s = s;
	p.text = s->text;
	p.len = len;
	p.loc = (struct scn_loc){ 1, 1 };
	p.err = err;
	if (memchr(text, '\0', len)) {
		fprintf(err, "%s:1:1: error: this is a binary file, not a scenario\n", path);
		scn_free(s);
		return NULL;
	}
	/* after setjmp only p.s: a local kept in a register may be clobbered by longjmp */
	if (setjmp(p.fail)) {
		scn_free(p.s);
		return NULL;
	}
	parse_file(&p);
	return p.s;
}

struct scn *scn_load(const char *path, FILE *err)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0;
	char *buf = NULL;
	struct scn *s;

	if (!f) {
		fprintf(err, "%s: error: cannot open: %s\n", path, strerror(errno));
		return NULL;
	}
	/* read up to one byte past the limit, growing as the file turns out longer */
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > SCN_MAX_FILE + 1)
				cap = SCN_MAX_FILE + 1;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n += fread(buf + n, 1, cap - n, f);
	} while (n == cap && cap <= SCN_MAX_FILE && !ferror(f));
	if (ferror(f)) {
		fprintf(err, "%s: error: cannot read: %s\n", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (n > SCN_MAX_FILE) {
		fprintf(err, "%s:1:1: error: file larger than %d bytes; a scenario is text\n",
			path, SCN_MAX_FILE);
		free(buf);
		return NULL;
	}
	s = scn_parse(path, buf, n, err);
	free(buf);
	return s;
}

void scn_free(struct scn *s)
{
	if (!s)
		return;
	while (s->arena) {
		struct scn_chunk *c = s->arena;

		s->arena = c->next;
		free(c);
	}
	free(s->log);
	free(s->path);
	free(s->text);
	free(s);
}
