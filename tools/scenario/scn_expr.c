/*
 * Expressions: C's operators over numbers, truth values and the scenario's
 * objects, typed as each node is made; calls, their arguments checked
 * against the API table (a constant time's range too, at parse time).
 */
#include "scn_parse.h"

struct scn_expr *expr_new(struct parser *p, enum scn_expr_kind kind)
{
	struct scn_expr *e = scn_alloc(p->s, sizeof(*e));

	e->kind = kind;
	e->loc = p->tloc;
	/* a leaf's type; expr_built() gives the others theirs */
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
			e->obj->name, decl_kind_name(e->obj->kind));
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
void expr_want_value(struct parser *p, const struct scn_expr *e)
{
	if (e->type == TY_NONE)
		not_a_value(p, e);
}

/* e is used as a quantity: what it is used for completes "true or false, but ...". */
void expr_want_number(struct parser *p, const struct scn_expr *e, const char *use)
{
	expr_want_value(p, e);
	if (e->type == TY_BOOL)
		lex_fail_at(p, e->loc, "type error: this is true or false, but %s", use);
}

/*
 * A chain such as 1 + 1 + ... or a /\ b /\ ... nests no brackets, yet it
 * is a tree as tall as the chain is long, and the interpreter and the
 * printers recurse on trees: bound their height too, as each node is made.
 * A node made is also typed, its operands checked.
 */
struct scn_expr *expr_built(struct parser *p, struct scn_expr *e)
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
	expr_want_value(p, e->lhs);
	if (e->rhs)
		expr_want_value(p, e->rhs);
	switch (e->op) {
	case OP_NEG: case OP_ADD: case OP_SUB:
		e->type = TY_INT;
		break;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		expr_want_number(p, e->lhs, "only numbers are ordered");
		expr_want_number(p, e->rhs, "only numbers are ordered");
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

enum scn_op expr_op(enum tok t, bool unary)
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
	case ARG_TIMER:
		return e->kind == EX_OBJ && k == OBJ_TIMER;
	}
	return false;
}

static const char *arg_name(enum scn_arg a)
{
	static const char *const names[] = {
		"a number", "a string", "a worker", "a work", "a delayed_work",
		"a work or delayed_work", "a fn", "a spinlock", "a completion",
		"a task (W->task)", "kthread_worker_fn", "a timer", "a number of nanoseconds",
		"a number of microseconds", "a number of milliseconds", "a number of milliseconds",
		"a number of jiffies",
	};
	return names[a];
}

/* What to write instead, where a kernel habit is the likely cause of a type error. */
static const char *arg_hint(enum scn_arg want, const struct scn_expr *a)
{
	enum scn_obj_kind k = a->kind == EX_OBJ && a->obj ? a->obj->kind : OBJ_PROGRAM;

	if (want == ARG_WORK && k == OBJ_DWORK)
		return ": a delayed_work is queued with kthread_queue_delayed_work(W, D, DELAY) "
		       "(DELAY in jiffies, 0: at once), as the kernel's &D.work would be";
	if (want == ARG_DWORK && k == OBJ_WORK)
		return ": a work is queued with kthread_queue_work(W, A); a delayed_work is "
		       "declared as 'delayed_work D = fn;'";
	return "";
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

/* A constant bound of a range, as a leaf: the interpreter reads its value. */
static struct scn_expr *range_bound(struct parser *p, const struct scn_api *api, int i,
				    struct scn_expr *a)
{
	struct scn_expr *leaf;
	char why[160];
	long v;

	expr_want_number(p, a, "a range's bounds are numbers");
	if (!constant(a, &v))
		lex_fail_at(p, a->loc, "a range's bounds are constants: each run takes a value "
			    "of it, decided before the call (a computed length is one value)");
	if (!scn_api_arg_fits(api, i, v, why, sizeof(why)))
		lex_fail_at(p, a->loc, "%s", why);
	leaf = expr_new(p, EX_INT);
	leaf->loc = a->loc;
	leaf->value = v;
	return leaf;
}

/*
 * Argument i of api written as a range, lo its lower bound, the '..' the
 * current token: only a length the caller spends may be one (scn.h).
 */
static struct scn_expr *expr_range(struct parser *p, const struct scn_api *api, int i,
				   struct scn_expr *lo)
{
	struct scn_expr *e;

	if (api->args[i] == ARG_JIFFIES)
		lex_fail_at(p, lo->loc, "the delay of %s cannot be a range: it is the API's "
			    "argument, not a timing, and stays as written; make the time of the "
			    "call a range instead ('at 5ms..8ms;' before it, or a "
			    "udelay(100..1000))", api->name);
	if (!scn_api_spends(api))
		lex_fail_at(p, lo->loc, "argument %d of %s cannot be a range: only the length of "
			    "a delay or sleep (udelay, ndelay, mdelay, msleep, "
			    "msleep_interruptible) and a time after 'at' can", i + 1, api->name);
	e = expr_new(p, EX_RANGE);
	e->loc = lo->loc;
	e->type = TY_INT;
	e->lhs = range_bound(p, api, i, lo);
	lex_next(p);
	e->rhs = range_bound(p, api, i, expr_parse(p));
	if (e->rhs->value < e->lhs->value)
		lex_fail_at(p, e->loc, "empty range %ld..%ld: its lower bound is above its upper "
			    "bound", e->lhs->value, e->rhs->value);
	e->height = 1;
	return e;
}

struct scn_expr *expr_call(struct parser *p, const struct scn_api *api)
{
	struct scn_expr *e = expr_new(p, EX_CALL);

	e->api = api;
	lex_next(p);
	/* jiffies and HZ are read as the kernel's variable and macro are: no () */
	if ((api->id == API_JIFFIES || api->id == API_HZ) && p->tok != T_LPAREN)
		return expr_built(p, e);
	if (api->id == API_HZ)
		fail(p, "HZ is a constant (the hz setting), not a function: write HZ, as in "
		     "msleep(HZ) or kthread_queue_delayed_work(W, D, HZ)");
	lex_expect(p, T_LPAREN, "'('");
	while (p->tok != T_RPAREN) {
		struct scn_loc at = p->tloc;
		struct scn_expr *a;
		char why[160];
		long v;

		if (e->nargs == api->nargs)
			fail(p, "too many arguments to %s (it takes %d)", api->name, api->nargs);
		a = expr_parse(p);
		if (p->tok == T_DOTDOT)
			a = expr_range(p, api, e->nargs, a);
		if (!arg_fits(api->args[e->nargs], a))
			lex_fail_at(p, at, "type error: argument %d of %s must be %s%s%s",
				e->nargs + 1, api->name, arg_name(api->args[e->nargs]),
				a->type == TY_BOOL ? ", not true or false" : "",
				arg_hint(api->args[e->nargs], a));
		/* a constant time is checked now; a computed one when the call is made */
		if (constant(a, &v) && !scn_api_arg_fits(api, e->nargs, v, why, sizeof(why)))
			lex_fail_at(p, at, "%s", why);
		/* kthread_init_work(A, f): f is a work's function from here on */
		if (api->args[e->nargs] == ARG_FN)
			decl_fn_use(p, a->obj, FN_WORK, at);
		e->args[e->nargs++] = a;
		if (p->tok != T_RPAREN)
			lex_expect(p, T_COMMA, "',' or ')'");
	}
	if (e->nargs != api->nargs)
		fail(p, "%s takes %d argument%s, not %d", api->name, api->nargs,
		     api->nargs == 1 ? "" : "s", e->nargs);
	lex_next(p);
	return expr_built(p, e);
}

struct scn_expr *expr_bracket(struct parser *p, struct scn_expr *(*inner)(struct parser *))
{
	struct scn_expr *e;

	enter(p);
	lex_next(p);
	e = inner(p);
	lex_expect(p, T_RPAREN, "')'");
	p->depth--;
	return e;
}

struct scn_expr *expr_prefix(struct parser *p, enum scn_op op,
			     struct scn_expr *(*operand)(struct parser *))
{
	struct scn_expr *e;

	enter(p);
	e = expr_new(p, EX_UNARY);
	e->op = op;
	lex_next(p);
	e->lhs = operand(p);
	p->depth--;
	return expr_built(p, e);
}

/*
 * &A, as kernel code passes a struct kthread_work: the object itself (a
 * scenario's objects are passed by reference already). Only an object
 * kernel code would take the address of; a number has none here.
 */
static struct scn_expr *expr_address(struct parser *p)
{
	struct scn_loc at = p->tloc;
	struct scn_obj *o;

	lex_next(p);
	o = p->tok == T_IDENT ? decl_find(p, p->ident) : NULL;
	if (!o || o->kind == OBJ_COUNTER || o->kind == OBJ_PROGRAM || o->kind == OBJ_FN)
		lex_fail_at(p, at, "'&' takes the address of a worker, work, delayed_work, timer, "
			    "spinlock or completion (&A is A here); %s", o ? "a counter, a fn or a "
			    "program has none: write the name alone" : "write a declared object's "
			    "name after it");
	return expr_primary(p);
}

struct scn_expr *expr_primary(struct parser *p)
{
	struct scn_expr *e;
	const struct scn_api *api;
	struct scn_obj *o;

	switch (p->tok) {
	case T_TIME:
		/* udelay(5ms) would wait 5,000,000 us: calls take numbers in their own unit */
		fail(p, "a time such as %s goes after 'at' or in a time setting; a call takes a "
		     "plain number in its own unit, as in udelay(5000) or msleep(5), and so do a "
		     "range's bounds: udelay(100..1000)", lex_tok_text(p));
	case T_INT:
		e = expr_new(p, EX_INT);
		e->value = p->num;
		lex_next(p);
		return e;
	case T_STR:
		e = expr_new(p, EX_STR);
		e->str = p->str;
		lex_next(p);
		return e;
	case T_LPAREN:
		return expr_bracket(p, expr_parse);
	case T_IDENT:
		break;
	case T_AMP:
		return expr_address(p);
	default:
		fail(p, "expected an expression, found %s", lex_tok_text(p));
	}
	if (lex_is_word(p, "true") || lex_is_word(p, "false")) {
		e = expr_new(p, EX_BOOL);
		e->value = lex_is_word(p, "true");
		lex_next(p);
		return e;
	}
	if (lex_is_word(p, "KTW_FREEZABLE")) {
		e = expr_new(p, EX_INT);
		e->value = 1;
		lex_next(p);
		return e;
	}
	if (lex_is_word(p, "kthread_worker_fn")) {
		e = expr_new(p, EX_OBJ);
		e->value = -1;
		lex_next(p);
		return e;
	}
	api = scn_api_find(p->ident);
	if (api) {
		if (api->ret == RET_VOID)
			fail(p, "%s returns nothing", api->name);
		return expr_call(p, api);
	}
	o = decl_find(p, p->ident);
	if (o) {
		if (o->kind == OBJ_PROGRAM)
			fail(p, "'%s' is a program, not a value", o->name);
		e = expr_new(p, EX_OBJ);
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
	if (decl_is_reg(p->ident) && p->prog) {
		int r = decl_find_reg(p->prog, p->ident, false);

		if (r < 0)
			fail(p, "register '%s' is read before any assignment", p->ident);
		e = expr_new(p, EX_REG);
		e->prog = -1;
		e->reg = r;
		lex_next(p);
		return e;
	}
	decl_unknown(p, "name");
}

static struct scn_expr *parse_unary(struct parser *p)
{
	if (p->tok == T_NOT || p->tok == T_MINUS)
		return expr_prefix(p, expr_op(p->tok, true), parse_unary);
	return expr_primary(p);
}

int expr_precedence(enum tok t)
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
		int prec = expr_precedence(p->tok);
		struct scn_expr *e;

		if (!prec || prec < min_prec)
			return lhs;
		enter(p);
		e = expr_new(p, EX_BINARY);
		e->op = expr_op(p->tok, false);
		lex_next(p);
		e->lhs = lhs;
		e->rhs = parse_binary(p, prec + 1);
		p->depth--;
		lhs = expr_built(p, e);
	}
}

struct scn_expr *expr_parse(struct parser *p)
{
	return parse_binary(p, 1);
}
