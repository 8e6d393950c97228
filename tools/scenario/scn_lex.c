/*
 * The .kws lexer: tokens, comments, numbers with time units, strings; the
 * arena the syntax tree lives in; errors and did-you-mean suggestions.
 */
#include "scn_lex.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- arena and errors --------------------------------------------------------------- */

void *scn_alloc(struct scn *s, size_t size)
{
	struct scn_chunk *c = s->arena;

	size = (size + 15) & ~(size_t)15;
	if (!c || c->used + size > c->size) {
		size_t cap = size > 16384 ? size : 16384;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			abort();
		c->next = s->arena;
		c->used = 0;
		c->size = cap;
		s->arena = c;
	}
	c->used += size;
	return memset(c->data + c->used - size, 0, size);
}

char *scn_strndup(struct scn *s, const char *p, size_t n)
{
	char *d = scn_alloc(s, n + 1);

	memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

void *scn_append(struct scn *s, void *array, int n, size_t size)
{
	char *grown;

	if (n & (n - 1))
		return array;
	grown = scn_alloc(s, (size_t)(n ? 2 * n : 1) * size);
	if (n)
		memcpy(grown, array, (size_t)n * size);
	return grown;
}

void lex_fail_at(struct parser *p, struct scn_loc loc, const char *fmt, ...)
{
	va_list ap;

	fprintf(p->err, "%s:%d:%d: error: ", p->s->path, loc.line, loc.col);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
	longjmp(p->fail, 1);
}


/* Levenshtein distance, for suggestions. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);

			row[j] = sub;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (cur + 1 < row[j])
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[lb];
}

const char *scn_did_you_mean(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	size_t bestd = (strlen(word) + 2) / 3 + 1;	/* about a third may differ */

	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, words[i]);

		if (d < bestd) {
			bestd = d;
			best = words[i];
		}
	}
	return best;
}

/* --- lexer ------------------------------------------------------------------------------ */

int lex_peekc(struct parser *p, size_t ahead)
{
	return p->pos + ahead < p->len ? (unsigned char)p->text[p->pos + ahead] : -1;
}

void lex_advance(struct parser *p, size_t n)
{
	while (n-- && p->pos < p->len) {
		if (p->text[p->pos++] == '\n') {
			p->loc.line++;
			p->loc.col = 1;
		} else {
			p->loc.col++;
		}
	}
}

void lex_skip_space(struct parser *p)
{
	for (;;) {
		int c = lex_peekc(p, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			lex_advance(p, 1);
		} else if (c == '/' && lex_peekc(p, 1) == '/') {
			while (lex_peekc(p, 0) != -1 && lex_peekc(p, 0) != '\n')
				lex_advance(p, 1);
		} else if ((c == '(' || c == '/') && lex_peekc(p, 1) == '*') {
			/* (* litmus *) and, as kernel code writes them, C's block comments */
			struct scn_loc start = p->loc;
			int close = c == '(' ? ')' : '/';

			lex_advance(p, 2);
			while (!(lex_peekc(p, 0) == '*' && lex_peekc(p, 1) == close)) {
				if (lex_peekc(p, 0) == -1)
					lex_fail_at(p, start, "unterminated comment: %s opens it, %s would "
						    "close it", close == ')' ? "(*" : "/*",
						    close == ')' ? "*)" : "*/");
				lex_advance(p, 1);
			}
			lex_advance(p, 2);
		} else {
			return;
		}
	}
}

static uint64_t unit_ns(const char *u)
{
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i].u))
			return units[i].ns;
	return 0;
}

/*
 * WHOLE.FRAC (ndigits of it) of unit as nanoseconds: 28.002ms is 28002000.
 * 0, or -1 when it is past SCN_MAX_TIME_NS, or -2 when it is not a whole
 * number of nanoseconds (1.5ns).
 */
static int decimal_ns(uint64_t whole, uint64_t frac, int ndigits, uint64_t unit, uint64_t *ns)
{
	uint64_t scale = 1, part;

	for (int i = 0; i < ndigits; i++)
		scale *= 10;
	if (whole > (uint64_t)SCN_MAX_TIME_NS / unit)
		return -1;
	/* frac < scale <= 10^9 and unit <= 10^9: the product fits in 64 bits */
	if (frac * unit % scale)
		return -2;
	part = frac * unit / scale;
	if (whole * unit > (uint64_t)SCN_MAX_TIME_NS - part)
		return -1;
	*ns = whole * unit + part;
	return 0;
}

/* Digits at *c into v (at most max, else -1); how many in *n. */
static int digits(const char **c, uint64_t max, uint64_t *v, int *n)
{
	*v = 0;
	*n = 0;
	for (; isdigit((unsigned char)**c); (*c)++, (*n)++) {
		if (*v > max / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(**c - '0');
	}
	return 0;
}

int scn_parse_time(const char *text, uint64_t *ns)
{
	uint64_t v, frac = 0, unit;
	const char *c = text;
	int n, nfrac = 0;

	if (digits(&c, (uint64_t)SCN_MAX_TIME_NS, &v, &n) || !n)
		return -1;
	if (*c == '.') {
		c++;
		if (digits(&c, 1000000000ULL, &frac, &nfrac) || !nfrac || nfrac > 9)
			return -1;
	}
	unit = *c ? unit_ns(c) : v || nfrac ? 0 : 1;
	if (!unit)
		return -1;
	return decimal_ns(v, frac, nfrac, unit, ns) ? -1 : 0;
}

/* 0x1f: a C hex constant, as udelay(0x10) is written in kernel code. */
static void lex_hex(struct parser *p)
{
	unsigned long long v = 0;
	int n = 0;

	lex_advance(p, 2);
	while (lex_peekc(p, 0) != -1 && isxdigit(lex_peekc(p, 0))) {
		int c = lex_peekc(p, 0);

		if (v > (unsigned long long)LONG_MAX / 16)
			fail(p, "number too large");
		v = v * 16 + (unsigned long long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
		lex_advance(p, 1);
		n++;
	}
	if (!n)
		fail(p, "expected hex digits after 0x");
	if (lex_peekc(p, 0) != -1 && (isalnum(lex_peekc(p, 0)) || lex_peekc(p, 0) == '_'))
		fail(p, "a hex number is a plain number: a time is written in decimal with its "
		     "unit, as 16us");
	p->tok = T_INT;
	p->num = (long)v;
}

/* A number: 42, 0x2a; a time: 5ms, 28.002ms (a decimal of a unit, to the nanosecond). */
static void lex_number(struct parser *p)
{
	char unit[8];
	size_t n = 0;
	unsigned long long v = 0, frac = 0;
	int nfrac = 0;
	bool point = false;
	uint64_t ns;

	if (lex_peekc(p, 0) == '0' && (lex_peekc(p, 1) == 'x' || lex_peekc(p, 1) == 'X')) {
		lex_hex(p);
		return;
	}
	while (lex_peekc(p, 0) != -1 && isdigit(lex_peekc(p, 0))) {
		if (v > (unsigned long long)(LONG_MAX / 10))
			fail(p, "number too large");
		v = v * 10 + (unsigned long long)(lex_peekc(p, 0) - '0');
		lex_advance(p, 1);
	}
	/* "1." then a digit: a fraction; "1.." is a range */
	if (lex_peekc(p, 0) == '.' && lex_peekc(p, 1) != -1 && isdigit(lex_peekc(p, 1))) {
		point = true;
		lex_advance(p, 1);
		while (lex_peekc(p, 0) != -1 && isdigit(lex_peekc(p, 0))) {
			if (nfrac == 9)
				fail(p, "a time has at most 9 digits after the point (a nanosecond "
				     "of a second)");
			frac = frac * 10 + (unsigned long long)(lex_peekc(p, 0) - '0');
			nfrac++;
			lex_advance(p, 1);
		}
	}
	p->tok = T_INT;
	while (lex_peekc(p, 0) != -1 && isalpha(lex_peekc(p, 0)) && n < sizeof(unit) - 1) {
		unit[n++] = (char)lex_peekc(p, 0);
		lex_advance(p, 1);
	}
	unit[n] = '\0';
	if (!n && point && !p->release_next)
		fail(p, "a number with a point is a time and needs its unit, as 28.002ms; a "
		     "number is whole (the machine counts nanoseconds, jiffies and loops)");
	if (n) {
		uint64_t un = unit_ns(unit);
		int rc;

		if (!un)
			fail(p, "unknown time unit '%s' (use ns, us, ms or s)", unit);
		rc = decimal_ns(v, frac, nfrac, un, &ns);
		if (rc == -2)
			fail(p, "%llu.%0*llu%s is not a whole number of nanoseconds", v, nfrac, frac,
			     unit);
		if (rc)
			fail(p, "time too large: a time is at most %lld ns, about 292 years (the "
			     "machine's clock holds 2^63 ns)", (long long)SCN_MAX_TIME_NS);
		v = ns;
		p->tok = T_TIME;
	}
	if (v > (unsigned long long)LONG_MAX)
		fail(p, "number too large");
	p->num = (long)v;
}

static void lex_string(struct parser *p)
{
	char buf[256];
	size_t n = 0;

	lex_advance(p, 1);
	for (;;) {
		int c = lex_peekc(p, 0);

		if (c == -1 || c == '\n')
			fail(p, "unterminated string");
		if (c == '"')
			break;
		if (c == '\\') {
			lex_advance(p, 1);
			c = lex_peekc(p, 0);
			if (c != '"' && c != '\\')
				fail(p, "unknown escape in string");
		}
		if (n == sizeof(buf) - 1)
			fail(p, "string longer than %zu characters", sizeof(buf) - 1);
		buf[n++] = (char)c;
		lex_advance(p, 1);
	}
	lex_advance(p, 1);
	p->str = scn_strndup(p->s, buf, n);
	p->tok = T_STR;
}

void lex_next(struct parser *p)
{
	static const struct { const char *s; enum tok t; } punct[] = {
		{ "/\\", T_AND }, { "\\/", T_OR }, { "&&", T_AND }, { "||", T_OR },
		{ "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE }, { "++", T_INC },
		{ "--", T_DEC }, { "+=", T_ADD_ASSIGN }, { "-=", T_SUB_ASSIGN }, { "->", T_ARROW },
		{ "{", T_LBRACE }, { "}", T_RBRACE }, { "(", T_LPAREN }, { ")", T_RPAREN },
		{ ";", T_SEMI }, { ",", T_COMMA }, { "=", T_ASSIGN }, { "<", T_LT }, { ">", T_GT },
		{ "!", T_NOT }, { "~", T_NOT }, { "+", T_PLUS }, { "-", T_MINUS }, { ":", T_COLON },
		{ "@", T_AT_SIGN }, { "..", T_DOTDOT }, { ".", T_DOT }, { "&", T_AMP },
	};
	int c;

	p->pend = p->tend;
	lex_skip_space(p);
	p->tloc = p->loc;
	p->tstart = p->pos;
	c = lex_peekc(p, 0);
	if (c == -1) {
		p->tok = T_EOF;
	} else if (isalpha(c) || c == '_') {
		size_t n = 0;

		while (lex_peekc(p, 0) != -1 && (isalnum(lex_peekc(p, 0)) || lex_peekc(p, 0) == '_')) {
			if (n == sizeof(p->ident) - 1)
				fail(p, "name longer than %zu characters", sizeof(p->ident) - 1);
			p->ident[n++] = (char)lex_peekc(p, 0);
			lex_advance(p, 1);
		}
		p->ident[n] = '\0';
		p->tok = T_IDENT;
	} else if (isdigit(c)) {
		lex_number(p);
	} else if (c == '"') {
		lex_string(p);
	} else {
		for (size_t i = 0; i < sizeof(punct) / sizeof(punct[0]); i++) {
			size_t n = strlen(punct[i].s);

			if (p->pos + n <= p->len && !memcmp(p->text + p->pos, punct[i].s, n)) {
				lex_advance(p, n);
				p->tok = punct[i].t;
				p->tend = p->pos;
				return;
			}
		}
		if (isprint(c))
			fail(p, "unexpected character '%c'", c);
		fail(p, "unexpected byte 0x%02x", c);
	}
	p->tend = p->pos;
}

const char *lex_tok_text(struct parser *p)
{
	static char buf[48];
	size_t n = p->tend - p->tstart;

	if (p->tok == T_EOF)
		return "end of file";
	if (n > sizeof(buf) - 3)
		n = sizeof(buf) - 3;
	snprintf(buf, sizeof(buf), "'%.*s'", (int)n, p->text + p->tstart);
	return buf;
}

void lex_expect(struct parser *p, enum tok t, const char *what)
{
	if (p->tok != t)
		fail(p, "expected %s, found %s", what, lex_tok_text(p));
	lex_next(p);
}

bool lex_accept(struct parser *p, enum tok t)
{
	if (p->tok != t)
		return false;
	lex_next(p);
	return true;
}

bool lex_is_word(struct parser *p, const char *w)
{
	return p->tok == T_IDENT && !strcmp(p->ident, w);
}

