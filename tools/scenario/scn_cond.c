/*
 * The conditions after the programs: exists, ~exists or forall, and any
 * number of always/never invariants, over registers (P0:r0, 0:r0, r0),
 * findings (warn, warn("fn"): the function must be one a finding can
 * name), ran(f), before(f, g), the model's state (pending(D), queued(D),
 * delayed(D), running(D), canceling(D), timer_pending(D or T), current_work(W)
 * == A, task_state(T) == TASK_..., task_curr(T)), and C's operators joined
 * with /\ and \/.
 */
#include "scn_parse.h"

#include <model.h>
#include <sim/site.h>

#include <stdlib.h>
#include <string.h>

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
	struct scn_expr *e = expr_new(p, EX_REG);
	struct scn_prog *prog = NULL;

	if (progname) {
		char name[24];

		snprintf(name, sizeof(name), numbered ? "P%s" : "%s", progname);
		prog = prog_by_name(p->s, name);
		if (!prog)
			fail(p, "no program %s", name);
		if (p->tok != T_IDENT || (e->reg = decl_find_reg(prog, p->ident, false)) < 0)
			fail(p, "%s has no register %s", name, p->tok == T_IDENT ? p->ident : "here");
	} else {
		for (int i = 0; i < p->s->nprogs; i++) {
			if (decl_find_reg(p->s->progs[i], p->ident, false) < 0)
				continue;
			if (prog)
				fail(p, "'%s' is assigned by %s and %s: write %s:%s", p->ident,
				     prog->name, p->s->progs[i]->name, prog->name, p->ident);
			prog = p->s->progs[i];
		}
		if (!prog)
			fail(p, "no program assigns register '%s'", p->ident);
		e->reg = decl_find_reg(prog, p->ident, false);
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

/*
 * warn("fn") and the like: fn must be a function a finding can name, one of
 * the scenario's, or a call it can make.
 */
static void check_finding_func(struct parser *p, const char *kind)
{
	struct scn_obj *o = decl_find(p, p->str);
	const char **words;
	const char *hint;
	size_t n;

	if (o && o->kind == OBJ_FN)
		return;
	/* a call the scenario makes is the site of what it raises (msleep in a callback) */
	if (scn_api_find(p->str))
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

/* --- the model's state ------------------------------------------------------------------- */

static const char *const pred_names[] = {
	[PRED_PENDING] = "pending", [PRED_QUEUED] = "queued", [PRED_DELAYED] = "delayed",
	[PRED_RUNNING] = "running", [PRED_CANCELING] = "canceling",
	[PRED_TIMER_PENDING] = "timer_pending", [PRED_CURRENT_WORK] = "current_work",
	[PRED_TASK_STATE] = "task_state", [PRED_TASK_CURR] = "task_curr",
	[PRED_INSERTED] = "inserted", [PRED_ARMED] = "armed", [PRED_STARTED] = "started",
	[PRED_FINISHED] = "finished", [PRED_DURING] = "during", [PRED_RETURNED] = "returned",
};

static const char *const task_state_names[TS__COUNT] = {
	[TS_RUNNING] = "TASK_RUNNING", [TS_INTERRUPTIBLE] = "TASK_INTERRUPTIBLE",
	[TS_UNINTERRUPTIBLE] = "TASK_UNINTERRUPTIBLE", [TS_FROZEN] = "TASK_FROZEN",
	[TS_DEAD] = "TASK_DEAD",
};

const char *scn_pred_name(enum scn_pred pred)
{
	return pred < sizeof(pred_names) / sizeof(pred_names[0]) ? pred_names[pred] : "?";
}

const char *scn_task_state_name(enum scn_task_state st)
{
	return st < TS__COUNT ? task_state_names[st] : "?";
}

/*
 * The state predicate the current token starts, or -1. Only a name followed
 * by '(' is one: a counter may still be called pending.
 */
static int pred_at(struct parser *p)
{
	size_t at = p->tend;

	if (p->tok != T_IDENT)
		return -1;
	while (at < p->len && (p->text[at] == ' ' || p->text[at] == '\t' || p->text[at] == '\n' ||
			       p->text[at] == '\r'))
		at++;
	if (at == p->len || p->text[at] != '(')
		return -1;
	for (size_t i = 0; i < sizeof(pred_names) / sizeof(pred_names[0]); i++)
		if (lex_is_word(p, pred_names[i]))
			return (int)i;
	return -1;
}

/* The declared object at the current token, of one of the kinds wanted, or a parse error. */
static struct scn_obj *pred_obj(struct parser *p, enum scn_pred pred, bool work, bool dwork,
				bool worker)
{
	struct scn_obj *o = p->tok == T_IDENT ? decl_find(p, p->ident) : NULL;

	if (o && ((work && o->kind == OBJ_WORK) || (dwork && o->kind == OBJ_DWORK) ||
		  (worker && o->kind == OBJ_WORKER))) {
		lex_next(p);
		return o;
	}
	const char *want = worker ? "a worker" : pred == PRED_TIMER_PENDING ?
		"a timer or a delayed_work" : "a work or delayed_work";

	if (o && pred == PRED_TIMER_PENDING && o->kind == OBJ_WORK)
		fail(p, "timer_pending() takes a timer or a delayed_work: '%s' is a work, which has "
		     "no timer", o->name);
	if (o)
		fail(p, "%s() takes %s: '%s' is a %s", pred_names[pred], want, o->name,
		     decl_kind_name(o->kind));
	fail(p, "%s() takes %s, found %s", pred_names[pred], want, lex_tok_text(p));
}

/* A task in task_state(T) and task_curr(T): a worker's W->task, or a thread P0. */
static void pred_task(struct parser *p, struct scn_expr *e)
{
	struct scn_obj *o = p->tok == T_IDENT ? decl_find(p, p->ident) : NULL;
	struct scn_prog *prog = p->tok == T_IDENT ? prog_by_name(p->s, p->ident) : NULL;

	e->prog = -1;
	if (o && o->kind == OBJ_WORKER) {
		e->obj = o;
		lex_next(p);
		lex_expect(p, T_ARROW, "'->task' after the worker");
		if (!lex_is_word(p, "task"))
			fail(p, "expected 'task' after '->': a worker's thread is %s->task", o->name);
		lex_next(p);
		return;
	}
	if (prog && prog->kind == PROG_THREAD) {
		e->prog = prog->id;
		lex_next(p);
		return;
	}
	if (prog)
		fail(p, "%s is %s, not a task: %s() takes a thread (P0) or a worker's "
		     "W->task", prog->name, prog->kind == PROG_IRQ ? "an interrupt" :
		     "a system event", pred_names[e->value]);
	fail(p, "%s() takes a thread (P0) or a worker's W->task, found %s",
	     pred_names[e->value], lex_tok_text(p));
}

/* current_work(W) == and task_state(T) == compare with a name: '==' or '!=' and the name. */
static struct scn_expr *pred_compared(struct parser *p, struct scn_expr *e, const char *with)
{
	struct scn_expr *not;

	if (p->tok != T_EQ && p->tok != T_NE)
		fail(p, "%s() is compared with %s: expected '==' or '!=', found %s",
		     pred_names[e->value], with, lex_tok_text(p));
	if (p->tok == T_EQ) {
		lex_next(p);
		return NULL;
	}
	not = expr_new(p, EX_UNARY);
	not->op = OP_NOT;
	not->lhs = e;
	lex_next(p);
	return not;
}

/*
 * during(FN, X) and returned(FN, X): FN one of the calls the contract
 * oracles watch (scn_contract.h), X the work or worker it names.
 */
static void pred_call(struct parser *p, struct scn_expr *e)
{
	static const char *const calls[] = {
		"kthread_queue_work", "kthread_queue_delayed_work", "kthread_mod_delayed_work",
		"kthread_flush_work", "kthread_flush_worker", "kthread_cancel_work_sync",
		"kthread_cancel_delayed_work_sync", "kthread_destroy_worker",
	};
	const size_t ncalls = sizeof(calls) / sizeof(calls[0]);
	const char *hint;
	size_t i = ncalls;
	bool worker;

	if (p->tok == T_IDENT)
		for (i = 0; i < ncalls && !lex_is_word(p, calls[i]); i++)
			;
	if (i == ncalls) {
		hint = p->tok == T_IDENT ? scn_did_you_mean(p->ident, calls, ncalls) : NULL;
		fail(p, "%s() takes a kthread_worker call that queues, flushes, cancels or destroys "
		     "(kthread_queue_work, ..., kthread_destroy_worker), found %s%s%s%s",
		     pred_names[e->value], lex_tok_text(p), hint ? "; did you mean '" : "",
		     hint ? hint : "", hint ? "'?" : "");
	}
	e->api = scn_api_find(calls[i]);
	worker = e->api->id == API_FLUSH_WORKER || e->api->id == API_DESTROY_WORKER;
	lex_next(p);
	lex_expect(p, T_COMMA, "',' after the call's name");
	if (worker)
		e->obj = pred_obj(p, e->value, false, false, true);
	else
		e->obj = pred_obj(p, e->value, e->api->args[1] != ARG_DWORK &&
				  e->api->args[0] != ARG_DWORK, true, false);
	lex_expect(p, T_RPAREN, "')'");
}

static struct scn_expr *parse_pred(struct parser *p, enum scn_pred pred)
{
	struct scn_expr *e = expr_new(p, EX_STATE), *not = NULL;

	e->value = pred;
	e->slot = -1;
	e->type = pred == PRED_CANCELING ? TY_INT : TY_BOOL;
	lex_next(p);
	lex_expect(p, T_LPAREN, "'('");
	switch (pred) {
	case PRED_CURRENT_WORK:
		e->obj = pred_obj(p, pred, false, false, true);
		lex_expect(p, T_RPAREN, "')'");
		not = pred_compared(p, e, "a work, a delayed_work or NULL");
		if (lex_is_word(p, "NULL")) {
			lex_next(p);
			break;
		}
		if (p->tok != T_IDENT || !decl_find(p, p->ident))
			fail(p, "current_work(%s) is compared with a work, a delayed_work or NULL, "
			     "found %s", e->obj->name, lex_tok_text(p));
		e->obj2 = pred_obj(p, pred, true, true, false);
		break;
	case PRED_TASK_STATE: {
		const char *hint;

		pred_task(p, e);
		lex_expect(p, T_RPAREN, "')'");
		not = pred_compared(p, e, "a task state, such as TASK_RUNNING");
		for (e->reg = 0; e->reg < TS__COUNT; e->reg++)
			if (lex_is_word(p, task_state_names[e->reg]))
				break;
		if (e->reg < TS__COUNT) {
			lex_next(p);
			break;
		}
		hint = p->tok == T_IDENT ? scn_did_you_mean(p->ident, task_state_names, TS__COUNT) :
			NULL;
		fail(p, "expected a task state (TASK_RUNNING, TASK_INTERRUPTIBLE, "
		     "TASK_UNINTERRUPTIBLE, TASK_FROZEN or TASK_DEAD), found %s%s%s%s",
		     lex_tok_text(p), hint ? "; did you mean '" : "", hint ? hint : "",
		     hint ? "'?" : "");
	}
	case PRED_TASK_CURR:
		pred_task(p, e);
		lex_expect(p, T_RPAREN, "')'");
		break;
	case PRED_DURING:
	case PRED_RETURNED:
		pred_call(p, e);
		break;
	case PRED_TIMER_PENDING:
		/* a timer's own, or a delayed_work's */
		if (p->tok == T_IDENT && decl_find(p, p->ident) &&
		    decl_find(p, p->ident)->kind == OBJ_TIMER) {
			e->obj = decl_find(p, p->ident);
			lex_next(p);
		} else {
			e->obj = pred_obj(p, pred, false, true, false);
		}
		lex_expect(p, T_RPAREN, "')'");
		break;
	default:
		e->obj = pred_obj(p, pred, true, true, false);
		lex_expect(p, T_RPAREN, "')'");
		break;
	}
	return not ? expr_built(p, not) : e;
}

static struct scn_expr *parse_cond_atom(struct parser *p)
{
	struct scn_expr *e;

	if (p->tok == T_NOT)
		return expr_prefix(p, OP_NOT, parse_cond_atom);
	if (p->tok == T_LPAREN)
		return expr_bracket(p, parse_cond);
	if (p->tok == T_INT) {
		char num[24];

		snprintf(num, sizeof(num), "%ld", p->num);
		lex_next(p);
		if (p->tok == T_COLON) {
			lex_next(p);
			return parse_cond_reg(p, num, true);
		}
		e = expr_new(p, EX_INT);
		e->value = strtol(num, NULL, 10);
		return e;
	}
	if (pred_at(p) >= 0) {
		enum scn_pred pred = (enum scn_pred)pred_at(p);

		if (pred >= PRED_INSERTED && !p->in_invariant)
			fail(p, "%s() is an event, true at the scheduling point after it happens: "
			     "it belongs in always/never, not in the condition", pred_names[pred]);
		return parse_pred(p, pred);
	}
	if (p->tok == T_IDENT) {
		for (int i = 0; i < SIM_F__COUNT; i++) {
			if (!lex_is_word(p, sim_finding_kind_name((enum sim_finding_kind)i)))
				continue;
			e = expr_new(p, EX_FINDING);
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

			e = expr_new(p, ran ? EX_RAN : EX_BEFORE);
			lex_next(p);
			lex_expect(p, T_LPAREN, "'('");
			for (int i = 0; i < (ran ? 1 : 2); i++) {
				struct scn_obj *o;

				if (i)
					lex_expect(p, T_COMMA, "','");
				if (p->tok != T_IDENT || !(o = decl_find(p, p->ident)) ||
				    (o->kind != OBJ_FN && o->kind != OBJ_WORK && o->kind != OBJ_DWORK &&
				     o->kind != OBJ_TIMER))
					fail(p, "expected a fn, work, delayed_work or timer name");
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
		if (decl_is_thread(p->ident) || prog_by_name(p->s, p->ident)) {
			char name[64];

			snprintf(name, sizeof(name), "%s", p->ident);
			lex_next(p);
			lex_expect(p, T_COLON, "':' after a program name");
			return parse_cond_reg(p, name, false);
		}
		if (decl_is_reg(p->ident))
			return parse_cond_reg(p, NULL, false);
	}
	{
		struct scn_prog *saved = p->prog;

		p->prog = NULL;
		e = expr_primary(p);
		p->prog = saved;
		return e;
	}
}

/* lhs, the operator at the current token, and the right operand that rhs reads */
static struct scn_expr *infix(struct parser *p, struct scn_expr *lhs,
			      struct scn_expr *(*rhs)(struct parser *))
{
	struct scn_expr *e = expr_new(p, EX_BINARY);

	e->op = expr_op(p->tok, false);
	lex_next(p);
	e->lhs = lhs;
	e->rhs = rhs(p);
	return expr_built(p, e);
}

/* Sums and differences of atoms, as in 0:r1 - 0:r0 == 2. */
static struct scn_expr *parse_cond_sum(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_atom(p);

	while (p->tok == T_PLUS || p->tok == T_MINUS)
		lhs = infix(p, lhs, parse_cond_atom);
	return lhs;
}

static struct scn_expr *parse_cond_cmp(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_sum(p);
	int prec = expr_precedence(p->tok);

	if (prec == 3 || prec == 4)
		return infix(p, lhs, parse_cond_sum);
	return lhs;
}

static struct scn_expr *parse_cond(struct parser *p)
{
	struct scn_expr *lhs = parse_cond_cmp(p);

	while (p->tok == T_AND || p->tok == T_OR) {
		enter(p);
		lhs = infix(p, lhs, parse_cond_cmp);
		p->depth--;
	}
	return lhs;
}

/* The final condition's state nodes get a slot each: a run keeps their values at its end. */
static void number_state(struct scn *s, struct scn_expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_STATE)
		e->slot = s->nstate++;
	number_state(s, e->lhs);
	number_state(s, e->rhs);
}

bool scn_has_invariants(const struct scn *s)
{
	return s->ninvariants > 0;
}

/* A clause over several lines, as one line for its finding: each run of blanks one space. */
static void squeeze_space(char *text)
{
	char *out = text;

	for (const char *in = text; *in; in++) {
		bool blank = *in == ' ' || *in == '\t' || *in == '\n' || *in == '\r';

		if (!blank)
			*out++ = *in;
		else if (out > text && out[-1] != ' ')
			*out++ = ' ';
	}
	*out = '\0';
}

void cond_parse_invariant(struct parser *p)
{
	struct scn *s = p->s;
	struct scn_invariant *inv;
	size_t start = p->tstart;

	s->invariants = scn_append(s, s->invariants, s->ninvariants, sizeof(*s->invariants));
	inv = &s->invariants[s->ninvariants++];
	inv->never = lex_is_word(p, "never");
	inv->loc = p->tloc;
	lex_next(p);
	lex_expect(p, T_LPAREN, inv->never ? "'(' after never" : "'(' after always");
	p->in_invariant = true;
	inv->cond = parse_cond(p);
	p->in_invariant = false;
	expr_want_value(p, inv->cond);
	if (p->tok != T_RPAREN)
		fail(p, "expected ')' to close the invariant, found %s", lex_tok_text(p));
	inv->text = scn_strndup(s, p->text + start, p->tend - start);
	squeeze_space(inv->text);
	lex_next(p);
}

void cond_parse(struct parser *p)
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
	expr_want_value(p, p->s->cond);
	if (p->tok != T_RPAREN)
		fail(p, "expected ')' to close the condition, found %s", lex_tok_text(p));
	p->s->cond_text = scn_strndup(p->s, p->text + start, p->tend - start);
	number_state(p->s, p->s->cond);
	lex_next(p);
}
