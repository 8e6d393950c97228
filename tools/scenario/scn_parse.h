/*
 * What the parser's files share, private to tools/scenario: scn_decl.c
 * (the names a scenario gives), scn_expr.c (expressions and their types),
 * scn_cond.c (the final condition), scn_settings.c (the settings, wherever
 * they are given) and scn_parse.c (the file, its blocks and statements).
 * The parser's state and the lexer are scn_lex.h's.
 */
#ifndef KWSIM_SCN_PARSE_H
#define KWSIM_SCN_PARSE_H

#include "scn_lex.h"
#include "scn_api.h"

/* One level deeper into brackets or blocks: the interpreter and printers recurse on them. */
static inline void enter(struct parser *p)
{
	if (++p->depth > SCN_MAX_DEPTH)
		fail(p, "nesting deeper than %d", SCN_MAX_DEPTH);
}

/* --- scn_decl.c ----------------------------------------------------------------------- */

struct scn_obj *decl_find(struct parser *p, const char *name);
/* Declare the name at the current token as an object of kind k. */
struct scn_obj *decl_new(struct parser *p, enum scn_obj_kind kind);
/* "unknown WHAT 'ident'", with a suggestion if one is near. */
__attribute__((noreturn)) void decl_unknown(struct parser *p, const char *what);
const char *decl_kind_name(enum scn_obj_kind k);
/* fn is used at 'at' as a work's function or a timer's callback: never both. */
void decl_fn_use(struct parser *p, struct scn_obj *fn, enum scn_fn_use use, struct scn_loc at);
/* A program's register by name, made if create and there is room; -1 if none. */
int decl_find_reg(struct scn_prog *prog, const char *name, bool create);
bool decl_is_reg(const char *s);		/* r0, r1, ... */
bool decl_is_thread(const char *w);		/* P0, P1, ... */

/* --- scn_expr.c ----------------------------------------------------------------------- */

struct scn_expr *expr_new(struct parser *p, enum scn_expr_kind kind);
/* Check a node just made: its height, its operands' types; give it its own. */
struct scn_expr *expr_built(struct parser *p, struct scn_expr *e);
void expr_want_value(struct parser *p, const struct scn_expr *e);
void expr_want_number(struct parser *p, const struct scn_expr *e, const char *use);
enum scn_op expr_op(enum tok t, bool unary);
int expr_precedence(enum tok t);
/* '(' inner ')', and a prefix operator before its operand: each one level deeper. */
struct scn_expr *expr_bracket(struct parser *p, struct scn_expr *(*inner)(struct parser *));
struct scn_expr *expr_prefix(struct parser *p, enum scn_op op,
			     struct scn_expr *(*operand)(struct parser *));
struct scn_expr *expr_call(struct parser *p, const struct scn_api *api);
struct scn_expr *expr_primary(struct parser *p);
struct scn_expr *expr_parse(struct parser *p);

/* --- scn_cond.c ----------------------------------------------------------------------- */

/* The condition: exists, ~exists or forall, and its expression. */
void cond_parse(struct parser *p);
/* always (C) or never (C), at the current token. */
void cond_parse_invariant(struct parser *p);

/* --- scn_settings.c ------------------------------------------------------------------- */

/*
 * Settings come in blocks: the init block, the schedule section, the command
 * line. In each, a seed means the random strategy unless the block names
 * one; a seed with strategy = faithful would do nothing, and is refused.
 */
struct setting_block {
	bool seed, strategy;
	struct scn_loc seed_at;
};

struct setting;

/* Whether the current token starts a setting ("NAME = VALUE;") rather than a declaration. */
bool set_follows(struct parser *p);
const struct setting *set_parse(struct parser *p, struct setting_block *b);
/* The end of a block of settings: a seed alone asks for the random strategy. */
void set_done(struct parser *p, const struct setting_block *b);
void set_check_cpus(struct parser *p);
/* A setting's name as written: "cpus", "cost.lock". */
void set_text_name(const struct setting *st, char *buf, size_t len);
/* The settings' names, for suggestions: NULL past the last. */
const char *set_name(size_t i);

#endif
