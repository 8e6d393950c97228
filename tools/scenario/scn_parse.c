/*
 * The .kws parser: recursive descent over scn_lex.c's tokens. This file
 * reads the file's parts (init block, programs, schedule), their blocks and
 * statements; scn_parse.h says where the rest is. The first error stops the
 * parse with "file:line:col: error: ...", and a misspelt call or name gets a
 * suggestion. Every node lives in the scenario's arena, so an error
 * part-way through leaks nothing.
 */
#include "scn_parse.h"

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* --- statements --------------------------------------------------------------------------- */

static struct scn_stmt *new_stmt(struct parser *p, enum scn_stmt_kind kind)
{
	struct scn_stmt *st = scn_alloc(p->s, sizeof(*st));

	st->kind = kind;
	st->loc = p->tloc;
	return st;
}

static struct scn_stmt *parse_block(struct parser *p);
static struct scn_stmt *parse_stmt(struct parser *p);

static uint64_t parse_time(struct parser *p)
{
	long v = p->num;

	if (p->tok != T_TIME)
		fail(p, "expected a time such as 5ms, found %s", lex_tok_text(p));
	lex_next(p);
	return (uint64_t)v;
}

/* A time, or a range of times 'LO..HI' (LO <= HI, both times): *lo == *hi for a time. */
static void parse_time_range(struct parser *p, uint64_t *lo, uint64_t *hi)
{
	struct scn_loc at = p->tloc;
	size_t start = p->tstart;

	*lo = *hi = parse_time(p);
	if (p->tok != T_DOTDOT)
		return;
	lex_next(p);
	*hi = parse_time(p);
	if (*hi < *lo)
		lex_fail_at(p, at, "empty range '%.*s': its lower bound is above its upper bound",
			    (int)(p->pend - start), p->text + start);
}

/* if (e) stmt [else stmt] */
static struct scn_stmt *parse_if(struct parser *p)
{
	struct scn_stmt *st = new_stmt(p, ST_IF);

	lex_next(p);
	lex_expect(p, T_LPAREN, "'(' after if");
	st->e = expr_parse(p);
	expr_want_value(p, st->e);
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

/* repeat (n) stmt, while (e) stmt */
static struct scn_stmt *parse_loop(struct parser *p)
{
	struct scn_stmt *st = new_stmt(p, lex_is_word(p, "repeat") ? ST_REPEAT : ST_WHILE);

	lex_next(p);
	lex_expect(p, T_LPAREN, "'('");
	st->e = expr_parse(p);
	if (st->kind == ST_REPEAT)
		expr_want_number(p, st->e, "repeat takes a number of rounds");
	else
		expr_want_value(p, st->e);
	lex_expect(p, T_RPAREN, "')'");
	enter(p);
	st->body = parse_stmt(p);
	p->depth--;
	return st;
}

/* at TIME[..TIME]; in a program */
static struct scn_stmt *parse_at(struct parser *p)
{
	struct scn_stmt *st;

	if (p->in_fn)
		fail(p, "'at' waits are for programs, not work functions or timer callbacks");
	st = new_stmt(p, ST_AT);
	lex_next(p);
	parse_time_range(p, &st->ns, &st->ns_hi);
	lex_expect(p, T_SEMI, "';'");
	return st;
}

/* log("text"); */
static struct scn_stmt *parse_log(struct parser *p)
{
	struct scn_stmt *st = new_stmt(p, ST_LOG);

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

/* call(args); a worker's constructor is assigned, not called alone */
static struct scn_stmt *parse_call_stmt(struct parser *p, const struct scn_api *api)
{
	struct scn_stmt *st;

	if (api->ret == RET_WORKER)
		fail(p, "%s makes a worker: assign it, as in 'worker W = %s(...);'",
		     api->name, api->name);
	st = new_stmt(p, ST_EXPR);
	st->e = expr_call(p, api);
	lex_expect(p, T_SEMI, "';'");
	return st;
}

/* N++; N--; N += e; N -= e; N = e; */
static struct scn_stmt *parse_counter_stmt(struct parser *p, struct scn_obj *o)
{
	struct scn_loc at = p->tloc;
	struct scn_stmt *st;

	lex_next(p);
	if (p->tok == T_INC || p->tok == T_DEC) {
		st = new_stmt(p, ST_ADD_COUNTER);
		st->e = expr_new(p, EX_INT);
		st->e->value = p->tok == T_INC ? 1 : -1;
	} else if (p->tok == T_ADD_ASSIGN || p->tok == T_SUB_ASSIGN) {
		bool sub = p->tok == T_SUB_ASSIGN;

		st = new_stmt(p, ST_ADD_COUNTER);
		lex_next(p);
		st->e = expr_parse(p);
		expr_want_value(p, st->e);
		if (sub) {
			struct scn_expr *neg = expr_new(p, EX_UNARY);

			neg->op = OP_NEG;
			neg->lhs = st->e;
			st->e = expr_built(p, neg);
		}
		st->obj = o;
		st->loc = at;
		lex_expect(p, T_SEMI, "';'");
		return st;
	} else if (p->tok == T_ASSIGN) {
		st = new_stmt(p, ST_SET_COUNTER);
		lex_next(p);
		st->e = expr_parse(p);
		expr_want_value(p, st->e);
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

/* W = kthread_create_worker(...); later in a program */
static struct scn_stmt *parse_worker_assign(struct parser *p, struct scn_obj *o)
{
	struct scn_loc at = p->tloc;
	struct scn_stmt *st;

	/* 'worker W;' is the scenario's own struct, for kthread_init_worker() */
	if (!o->init)
		lex_fail_at(p, at, "worker '%s' is declared without kthread_create_worker "
			    "(the scenario's own, for kthread_init_worker): declare it "
			    "'worker %s = kthread_create_worker(...);' to assign it later",
			    o->name, o->name);
	lex_next(p);
	lex_expect(p, T_ASSIGN, "'='");
	st = new_stmt(p, ST_SET_COUNTER);
	st->loc = at;
	st->obj = o;
	st->e = expr_parse(p);
	if (st->e->kind != EX_CALL || st->e->api->ret != RET_WORKER)
		lex_fail_at(p, at, "a worker can only be assigned a kthread_create_worker*() call");
	lex_expect(p, T_SEMI, "';'");
	return st;
}

/* r0 = e; a program's register */
static struct scn_stmt *parse_reg_assign(struct parser *p)
{
	struct scn_loc at = p->tloc;
	struct scn_stmt *st;
	char name[64];

	if (!p->prog)
		fail(p, "registers such as '%s' belong to programs (P0 { ... })", p->ident);
	snprintf(name, sizeof(name), "%s", p->ident);
	lex_next(p);
	lex_expect(p, T_ASSIGN, "'='");
	st = new_stmt(p, ST_SET_REG);
	st->loc = at;
	st->e = expr_parse(p);
	expr_want_value(p, st->e);
	if (strlen(name) >= sizeof(p->prog->regnames[0]))
		lex_fail_at(p, at, "a register's name has at most %zu characters",
			sizeof(p->prog->regnames[0]) - 1);
	st->reg = decl_find_reg(p->prog, name, true);
	if (st->reg < 0)
		lex_fail_at(p, at, "more than %d registers in %s", SCN_MAX_REGS, p->prog->name);
	lex_expect(p, T_SEMI, "';'");
	return st;
}

/* A statement: by its first word, a keyword, a call, or an object it assigns. */
static struct scn_stmt *parse_stmt_at(struct parser *p)
{
	const struct scn_api *api;
	struct scn_obj *o;

	if (p->tok == T_LBRACE)
		return parse_block(p);
	if (p->tok != T_IDENT)
		fail(p, "expected a statement, found %s", lex_tok_text(p));
	if (lex_is_word(p, "if"))
		return parse_if(p);
	if (lex_is_word(p, "repeat") || lex_is_word(p, "while"))
		return parse_loop(p);
	if (lex_is_word(p, "at"))
		return parse_at(p);
	if (lex_is_word(p, "log"))
		return parse_log(p);
	api = scn_api_find(p->ident);
	if (api)
		return parse_call_stmt(p, api);
	o = decl_find(p, p->ident);
	if (o && o->kind == OBJ_COUNTER)
		return parse_counter_stmt(p, o);
	if (o && o->kind == OBJ_WORKER)
		return parse_worker_assign(p, o);
	if (!o && decl_is_reg(p->ident))
		return parse_reg_assign(p);
	if (o)
		fail(p, "a %s '%s' cannot start a statement", decl_kind_name(o->kind), o->name);
	decl_unknown(p, "call or name");
}

/* A statement with the bytes it spans, so that a shrinker can cut it out. */
static struct scn_stmt *parse_stmt(struct parser *p)
{
	size_t start = p->tstart;
	struct scn_stmt *st = parse_stmt_at(p);

	st->start = start;
	st->end = p->pend;
	return st;
}

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

/* always ( or never (: an invariant's clause, not a name someone declared. */
static bool is_invariant(struct parser *p)
{
	return (lex_is_word(p, "always") || lex_is_word(p, "never")) &&
	       !decl_find(p, p->ident);
}

/*
 * What can only start the next part of the file (a program, an irq, a
 * system event, the condition, the schedule), or its end: met inside a
 * block, the block's '}' is missing. Said so, with the line that opened the
 * block, rather than as an unknown statement.
 */
static bool is_hotplug(struct parser *p)
{
	return lex_is_word(p, "cpu_down") || lex_is_word(p, "cpu_up");
}

/*
 * `cpu_down(1) at 5ms;` starts a part of its own; `cpu_down(1);` in a block
 * is a call: the word after the closing bracket tells them apart.
 */
static bool hotplug_at(struct parser *p)
{
	const char *close;

	if (!is_hotplug(p))
		return false;
	/* a CPU number's worth of text: "(63)", spaces aside */
	close = memchr(p->text + p->tend, ')', p->len - p->tend < 32 ? p->len - p->tend : 32);
	return close && word_at(p, (size_t)(close - p->text) + 1, "at");
}

static bool starts_part(struct parser *p)
{
	size_t after;

	if (p->tok == T_EOF)
		return true;
	if (p->tok == T_NOT)
		return word_at(p, p->tend, "exists");
	if (p->tok != T_IDENT || decl_find(p, p->ident))
		return false;
	if (lex_is_word(p, "irq") || lex_is_word(p, "suspend") || lex_is_word(p, "resume") ||
	    hotplug_at(p) || lex_is_word(p, "exists") || lex_is_word(p, "forall") ||
	    lex_is_word(p, "schedule") || is_invariant(p))
		return true;
	/* P1 { ..., P1 @cpu1 ..., P1 at 5ms ... */
	after = p->tend;
	while (after < p->len && isspace((unsigned char)p->text[after]))
		after++;
	return decl_is_thread(p->ident) && after < p->len &&
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
			      lex_is_word(p, "timer") || lex_is_word(p, "spinlock") || lex_is_word(p, "completion") ||
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
		struct scn_obj *o = NULL;
		size_t start = p->tstart;

		if (starts_part(p))
			missing_brace(p, opened);
		if (set_follows(p)) {
			struct scn_given *g;

			p->s->given = scn_append(p->s, p->s->given, p->s->ngiven, sizeof(*g));
			g = &p->s->given[p->s->ngiven++];
			g->loc = p->tloc;
			set_text_name(set_parse(p, &settings_given), g->name, sizeof(g->name));
		} else if (lex_is_word(p, "fn")) {
			lex_next(p);
			o = decl_new(p, OBJ_FN);
			skip_fn_body(p, o);
		} else if (lex_is_word(p, "worker") || lex_is_word(p, "work") || lex_is_word(p, "delayed_work") ||
			   lex_is_word(p, "timer") || lex_is_word(p, "spinlock") ||
			   lex_is_word(p, "completion") || lex_is_word(p, "int")) {
			static const struct { const char *w; enum scn_obj_kind k; } decls[] = {
				{ "worker", OBJ_WORKER }, { "work", OBJ_WORK },
				{ "delayed_work", OBJ_DWORK }, { "timer", OBJ_TIMER },
				{ "spinlock", OBJ_LOCK },
				{ "completion", OBJ_COMPLETION }, { "int", OBJ_COUNTER },
			};
			enum scn_obj_kind k = OBJ_WORKER;

			for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
				if (lex_is_word(p, decls[i].w))
					k = decls[i].k;
			lex_next(p);
			o = decl_new(p, k);
			if (lex_accept(p, T_ASSIGN)) {
				struct scn_loc at = p->tloc;
				struct scn_expr *e = expr_parse(p);

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
				} else if (k == OBJ_WORK || k == OBJ_DWORK || k == OBJ_TIMER) {
					if (e->kind != EX_OBJ || !e->obj || e->obj->kind != OBJ_FN)
						lex_fail_at(p, at, "a %s is initialised with a fn name",
							decl_kind_name(k));
					o->fn = e->obj;
					decl_fn_use(p, o->fn, k == OBJ_TIMER ? FN_TIMER : FN_WORK, at);
				} else if (k == OBJ_COUNTER) {
					if (e->kind != EX_INT && !(e->kind == EX_UNARY &&
								   e->lhs->kind == EX_INT))
						lex_fail_at(p, at, "an int starts at a number");
					o->value = e->kind == EX_INT ? e->value : -e->lhs->value;
				} else {
					lex_fail_at(p, at, "a %s takes no initial value", decl_kind_name(k));
				}
			} else if (k == OBJ_WORK || k == OBJ_DWORK || k == OBJ_TIMER) {
				fail(p, "a %s needs its function: %s %s = fn_name;", decl_kind_name(k),
				     decl_kind_name(k), o->name);
			}
			lex_expect(p, T_SEMI, "';'");
		} else {
			*tail = parse_stmt(p);
			tail = &(*tail)->next;
		}
		if (o) {
			o->start = start;
			o->end = p->pend;
		}
	}
	set_done(p, &settings_given);
	parse_fn_bodies(p);
}

/* --- programs, schedule ------------------------------------------------------------------ */

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
	s->progs = scn_append(s, s->progs, s->nprogs, sizeof(*s->progs));
	prog->id = s->nprogs;
	s->progs[s->nprogs++] = prog;
	return prog;
}

/*
 * `cpu_down(1) at 5ms;` and `cpu_up(1) at 9ms;`: a write to
 * /sys/devices/system/cpu/cpu1/online at that time, by a task of its own
 * (sim/hotplug.c). The CPU must be one the machine has; the boot CPU
 * cannot go down (remove_cpu(0) answers -EPERM, which a statement on its
 * own could not show, so it is an error here).
 */
static void parse_hotplug(struct parser *p, struct scn_prog *prog)
{
	lex_next(p);
	lex_expect(p, T_LPAREN, "'('");
	if (p->tok != T_INT)
		fail(p, "%s takes a CPU number, found %s", prog->name, lex_tok_text(p));
	if (p->num < 0 || p->num >= p->s->cfg.ncpus)
		fail(p, "%s(%ld): the machine has cpu0 to cpu%d (cpus = %d)", prog->name, p->num,
		     p->s->cfg.ncpus - 1, p->s->cfg.ncpus);
	if (p->num == 0 && prog->kind == PROG_CPU_DOWN)
		fail(p, "cpu_down(0): the boot CPU cannot go offline (cpu0 is not hotpluggable: "
		     "remove_cpu(0) returns -EPERM)");
	prog->cpu = (int)p->num;
	lex_next(p);
	lex_expect(p, T_RPAREN, "')'");
	if (!lex_is_word(p, "at"))
		fail(p, "expected 'at' and a time after %s(%d)", prog->name, prog->cpu);
	lex_next(p);
	parse_time_range(p, &prog->at, &prog->at_hi);
	lex_expect(p, T_SEMI, "';'");
}

static void parse_program(struct parser *p)
{
	struct scn_prog *prog;
	size_t start = p->tstart;

	if (is_hotplug(p)) {
		prog = new_prog(p, lex_is_word(p, "cpu_down") ? PROG_CPU_DOWN : PROG_CPU_UP, "");
		snprintf(prog->name, sizeof(prog->name), "%.15s", p->ident);
		parse_hotplug(p, prog);
		prog->start = start;
		prog->end = p->pend;
		return;
	}
	if (lex_is_word(p, "suspend") || lex_is_word(p, "resume")) {
		prog = new_prog(p, lex_is_word(p, "suspend") ? PROG_SUSPEND : PROG_RESUME, "");
		snprintf(prog->name, sizeof(prog->name), "%.15s", p->ident);
		lex_next(p);
		if (!lex_is_word(p, "at"))
			fail(p, "expected 'at' and a time after %s", prog->name);
		lex_next(p);
		parse_time_range(p, &prog->at, &prog->at_hi);
		lex_expect(p, T_SEMI, "';'");
		prog->start = start;
		prog->end = p->pend;
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
		parse_time_range(p, &prog->at, &prog->at_hi);
	} else {
		prog = new_prog(p, PROG_THREAD, p->ident);
		lex_next(p);
		if (p->tok == T_AT_SIGN)
			prog->cpu = parse_cpu(p);
		if (lex_is_word(p, "at")) {
			lex_next(p);
			parse_time_range(p, &prog->at, &prog->at_hi);
		}
	}
	p->prog = prog;
	prog->body = parse_block(p);
	p->prog = NULL;
	prog->start = start;
	prog->end = p->pend;
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
		set_parse(p, &given);
	}
	set_done(p, &given);
	s->log_strategy = given.strategy || given.seed;
	lex_next(p);
	if (p->tok != T_LBRACE)
		fail(p, "expected '{' after decisions");
	/* Decisions are read by hand: WHY PICK '/' N, e.g. c1/2 is candidate 1 of 2 of a cpu choice. */
	for (;;) {
		static const char whys[] = SIM_WHY_LETTERS;
		const char *w;
		unsigned long pick, n;
		const char *pick_text, *n_text;
		int pick_len, n_len;
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
		pick_text = p->text + p->pos;
		pick = strtoul(pick_text, &end, 10);
		pick_len = (int)(end - pick_text);
		lex_advance(p, (size_t)pick_len);
		if (lex_peekc(p, 0) != '/' || !isdigit(lex_peekc(p, 1)))
			lex_fail_at(p, at, "expected '/' and the number of candidates in a decision");
		lex_advance(p, 1);
		n_text = p->text + p->pos;
		n = strtoul(n_text, &end, 10);
		n_len = (int)(end - n_text);
		lex_advance(p, (size_t)n_len);
		/* the numbers as written: strtoul saturates a huge one */
		if (n < 2 || n > 65535)
			lex_fail_at(p, at, "a decision has 2 to 65535 candidates, not %.*s", n_len,
				    n_text);
		if (pick >= n)
			lex_fail_at(p, at, "pick %.*s of %lu candidates (0..%lu)", pick_len, pick_text, n,
				    n - 1);
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
	       !lex_is_word(p, "schedule") && !is_invariant(p)) {
		if (!decl_is_thread(p->ident) && !lex_is_word(p, "irq") && !lex_is_word(p, "suspend") &&
		    !lex_is_word(p, "resume") && !is_hotplug(p))
			fail(p, "expected a program (P0 { ... }), an irq, suspend, resume, cpu_down, "
			     "cpu_up, an invariant (always, never) or the condition, found %s",
			     lex_tok_text(p));
		parse_program(p);
	}
	/* invariants, any number, before or after the one condition */
	for (;;) {
		if (is_invariant(p)) {
			cond_parse_invariant(p);
		} else if (p->tok == T_NOT || lex_is_word(p, "exists") || lex_is_word(p, "forall")) {
			if (s->quant != Q_NONE)
				fail(p, "a scenario has one condition (exists, ~exists or forall); "
				     "join them with /\\ or \\/, or state invariants with always or "
				     "never");
			cond_parse(p);
		} else {
			break;
		}
	}
	if (lex_is_word(p, "schedule"))
		parse_schedule(p);
	if (p->tok != T_EOF)
		fail(p, "expected the end of the file, found %s", lex_tok_text(p));
	set_check_cpus(p);
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

/* Whether a relative path stays under the directory it is relative to: no ".." in it. */
static bool stays_under(const char *path)
{
	for (const char *c = path; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : "") {
		size_t n = strcspn(c, "/");

		if (n == 2 && !strncmp(c, "..", 2))
			return false;
	}
	return path[0] != '/';
}

char *scn_shown_path(const char *path)
{
	char *file = realpath(path, NULL), *cwd = realpath(".", NULL), *shown;
	const char *slash = strrchr(path, '/');
	size_t n = cwd ? strlen(cwd) : 0;

	while (!strncmp(path, "./", 2))
		path += 2;
	if (stays_under(path))
		shown = strdup(path);
	else if (file && cwd && !strncmp(file, cwd, n) && (file[n] == '/' || n == 1))
		shown = strdup(file + n + (n > 1));
	else
		shown = strdup(slash ? slash + 1 : path);
	free(file);
	free(cwd);
	if (!shown)
		abort();
	return shown;
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
