/*
 * The .kws lexer and the parser's state, shared by scn_lex.c (tokens, the
 * arena, errors) and the grammar's files (scn_parse.h lists them). Private
 * to tools/scenario.
 */
#ifndef KWSIM_SCN_LEX_H
#define KWSIM_SCN_LEX_H

#include "scn.h"

#include <setjmp.h>
#include <stdbool.h>

struct scn_chunk {
	struct scn_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

enum tok {
	T_EOF, T_IDENT, T_INT, T_TIME, T_STR,
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_SEMI, T_COMMA, T_ASSIGN,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT, T_PLUS, T_MINUS,
	T_INC, T_DEC, T_ADD_ASSIGN, T_SUB_ASSIGN, T_ARROW, T_COLON, T_AT_SIGN, T_DOT, T_AMP,
	T_DOTDOT,		/* a range's '..': at 20ms..30ms, udelay(100..1000) */
};

struct parser {
	struct scn *s;
	const char *text;
	size_t len, pos;
	struct scn_loc loc;		/* of pos */
	/* the current token */
	enum tok tok;
	struct scn_loc tloc;
	size_t tstart, tend;
	size_t pend;			/* where the token before it ended: a construct's end */
	char ident[64];
	long num;			/* T_INT; T_TIME: nanoseconds */
	char *str;			/* T_STR, in the arena */
	int depth;
	struct scn_prog *prog;		/* the program being parsed, for registers */
	/* the objects declared so far by name, open addressing: see find_obj() */
	struct scn_obj **names;
	size_t names_cap;
	int nkind[OBJ_PROGRAM + 1];	/* objects of each kind so far */
	/* the functions a finding can name, sorted, made when a condition needs them */
	const char **site_funcs;
	size_t nsite_funcs;
	bool in_fn;
	bool in_invariant;		/* in always/never: events may be named */
	bool release_next;		/* the next number names a release (era = 6.1), not a time */
	FILE *err;
	jmp_buf fail;
};


/* The arena: every node of a scenario lives in it, freed with the scenario. */
void *scn_alloc(struct scn *s, size_t size);
char *scn_strndup(struct scn *s, const char *p, size_t n);
/* Make room for element n of an array in the arena, doubling it at each power of two. */
void *scn_append(struct scn *s, void *array, int n, size_t size);

/* Print "file:line:col: error: ..." and abandon the parse. */
__attribute__((format(printf, 3, 4), noreturn))
void lex_fail_at(struct parser *p, struct scn_loc loc, const char *fmt, ...);
#define fail(p, ...) lex_fail_at(p, (p)->tloc, __VA_ARGS__)

int lex_peekc(struct parser *p, size_t ahead);
void lex_advance(struct parser *p, size_t n);
void lex_skip_space(struct parser *p);
/* Read the next token into p->tok (and p->ident, p->num, p->str). */
void lex_next(struct parser *p);
/* The current token as the source spells it, for messages. */
const char *lex_tok_text(struct parser *p);
void lex_expect(struct parser *p, enum tok t, const char *what);
bool lex_accept(struct parser *p, enum tok t);
bool lex_is_word(struct parser *p, const char *w);

#endif
