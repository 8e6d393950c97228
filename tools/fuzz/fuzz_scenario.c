/*
 * libFuzzer target: the scenario parser and interpreter. The input is a
 * scenario's text; when it parses, it runs once on the machine, bounded
 * (fuzz.h), the machine reset between inputs but kept for the whole process
 * (scn_run() resets it: pools and stacks are reused).
 *
 * Byte mutations barely get past the lexer, so a custom mutator works on
 * the language's tokens (split as scn_lex.c splits them): it inserts,
 * deletes, replaces, swaps and duplicates tokens, taking new ones from a
 * dictionary of the language's keywords, API names, settings, predicates
 * and finding kinds (from the parser's own tables) and from the tokens of
 * the inputs it has mutated; a replaced token is mostly one of the same
 * class (a name for a name), and whole statements seen in the inputs are
 * inserted after a ';' or a brace. A share of the mutations is libFuzzer's own
 * (BYTE_SHARE).
 *
 * Environment: KWSIM_FUZZ_ABORT_ON (fuzz.h); KWSIM_FUZZ_BYTES=1 uses
 * libFuzzer's byte mutations only (the baseline README's table compares
 * with); KWSIM_FUZZ_WRITE_DICT=FILE writes the dictionary in libFuzzer's
 * -dict format (AFL++'s -x reads it too) and exits.
 */
#include "fuzz.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sim/fnv.h"

#include "scenario/scn.h"
#include "scenario/scn_api.h"
#include "scenario/scn_parse.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* --- the dictionary ------------------------------------------------------------ */

#define BYTE_SHARE	25
#define DICT_MAX	8192
#define TOKEN_MAX	64

static const char *const keywords[] = {
	"KW", "worker", "work", "delayed_work", "timer", "fn", "lock", "spinlock", "completion", "int",
	"task", "if", "else", "repeat", "while", "at", "log", "irq", "suspend", "resume",
	"schedule", "decisions", "always", "never", "exists", "forall", "ran", "before", "true",
	"false", "NULL", "none", "KTW_FREEZABLE", "kthread_worker_fn", "freeze_processes",
	"thaw_processes", "machine_suspend", "P0", "P1", "P2", "I0", "I1", "r0", "r1", "@cpu0",
	"@cpu1", "@cpu2", "cpu0", "cpu1", "->task", "(*", "*)", "//",
	"{", "}", "(", ")", ";", ",", "=", "==", "!=", "<", "<=", ">", ">=", "/\\", "\\/",
	"&&", "||", "!", "~", "+", "-", "++", "--", "+=", "-=", "->", ":", "@", ".", "&",
	"0", "1", "2", "3", "100", "1000", "0ns", "1us", "100us", "1ms", "4ms", "10ms", "1s",
	"9223372036854775807", "\"kw\"", "\"x\"",
	"faithful", "random", "voluntary", "full", "fifo", "unfair", "off", "on", "unbounded",
	"v4.9", "mainline", "tree:6.1", "tree:6.12", "\"v4.9\"", "\"mainline\"",
};

static char dict[DICT_MAX][TOKEN_MAX];
static size_t ndict, nfixed;	/* [0, nfixed): the language's; then tokens seen */

static bool dict_has(const char *t, size_t n)
{
	for (size_t i = 0; i < ndict; i++) {
		if (!strncmp(dict[i], t, n) && dict[i][n] == '\0')
			return true;
	}
	return false;
}

static void dict_add(const char *t, size_t n)
{
	if (!n || n >= TOKEN_MAX || ndict == DICT_MAX || dict_has(t, n))
		return;
	memcpy(dict[ndict], t, n);
	dict[ndict][n] = '\0';
	ndict++;
}

static void dict_add_str(const char *t)
{
	dict_add(t, strlen(t));
}

static void dict_init(void)
{
	const char *api[256];
	size_t napi = scn_api_names(api, sizeof(api) / sizeof(api[0]));
	const char *name;

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		dict_add_str(keywords[i]);
	for (size_t i = 0; i < napi; i++)
		dict_add_str(api[i]);
	for (size_t i = 0; (name = set_name(i)); i++)
		dict_add_str(name);
	for (int p = PRED_PENDING; p <= PRED_TASK_CURR; p++)
		dict_add_str(scn_pred_name((enum scn_pred)p));
	for (int t = 0; t < TS__COUNT; t++)
		dict_add_str(scn_task_state_name((enum scn_task_state)t));
	for (int k = 0; k < SIM_F__COUNT; k++)
		dict_add_str(sim_finding_kind_name((enum sim_finding_kind)k));
	nfixed = ndict;
}

static void dict_write(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "# kwsim scenario language: keywords, API names, settings, predicates,\n"
		   "# finding kinds (written by fuzz_scenario, KWSIM_FUZZ_WRITE_DICT)\n");
	for (size_t i = 0; i < nfixed; i++) {
		fputc('"', f);
		for (const char *c = dict[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				fprintf(f, "\\%c", *c);
			else
				fputc(*c, f);
		}
		fprintf(f, "\"\n");
	}
	if (fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* --- tokens ------------------------------------------------------------------------ */

struct span {
	size_t start, len;
};

#define TOKS_MAX	4096

static bool ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * Split text as the scenario lexer does: names, numbers with their unit
 * (100us), strings, comments, two-character operators, any other byte
 * alone. White space separates; the mutated text is joined with spaces.
 */
static size_t tokenize(const uint8_t *d, size_t n, struct span *t, size_t max)
{
	static const char *const two[] = {
		"/\\", "\\/", "&&", "||", "==", "!=", "<=", ">=", "++", "--", "+=", "-=", "->", "(*",
	};
	size_t i = 0, nt = 0;

	while (i < n && nt < max) {
		size_t s = i;

		if (isspace(d[i])) {
			i++;
			continue;
		}
		if (ident_char(d[i])) {
			while (i < n && ident_char(d[i]))
				i++;
		} else if (d[i] == '"') {
			for (i++; i < n && d[i] != '"' && d[i] != '\n'; i++)
				if (d[i] == '\\' && i + 1 < n)
					i++;
			i += i < n;
		} else if (d[i] == '/' && i + 1 < n && d[i + 1] == '/') {
			while (i < n && d[i] != '\n')
				i++;
		} else if (d[i] == '(' && i + 1 < n && d[i + 1] == '*') {
			for (i += 2; i < n && !(d[i] == '*' && i + 1 < n && d[i + 1] == ')'); i++)
				;
			i = i + 2 <= n ? i + 2 : n;
		} else {
			i++;
			for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++) {
				if (s + 1 < n && d[s] == (uint8_t)two[k][0] && d[s + 1] == (uint8_t)two[k][1]) {
					i = s + 2;
					break;
				}
			}
		}
		t[nt].start = s;
		t[nt].len = i - s;
		nt++;
	}
	return nt;
}

/* The mutator's own generator: a function of libFuzzer's seed, as libFuzzer asks. */
static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

/* A token's text: from the dictionary, or another token of the same input. */
struct piece {
	const char *p;
	size_t len;
};

static struct piece pick_new(const uint8_t *d, const struct span *t, size_t nt)
{
	struct piece pc;

	if (nt && rnd(3) == 0) {
		const struct span *o = &t[rnd((uint32_t)nt)];

		pc.p = (const char *)d + o->start;
		pc.len = o->len;
	} else {
		pc.p = dict[rnd((uint32_t)ndict)];
		pc.len = strlen(pc.p);
	}
	return pc;
}

/* What a token is: a name, a number or time, a string, a comment, punctuation. */
static int token_class(struct piece pc)
{
	if (!pc.len)
		return 4;
	if (isalpha((unsigned char)pc.p[0]) || pc.p[0] == '_')
		return 0;
	if (isdigit((unsigned char)pc.p[0]))
		return 1;
	if (pc.p[0] == '"')
		return 2;
	if (pc.len > 1 && (!memcmp(pc.p, "(*", 2) || !memcmp(pc.p, "//", 2)))
		return 3;
	return 4;
}

/*
 * A token to put in another's place: mostly one of its class (a name for a
 * name, a time for a time), so the statement still parses and takes
 * another path; sometimes any.
 */
static struct piece pick_like(struct piece old, const uint8_t *d, const struct span *t, size_t nt)
{
	int want = token_class(old);
	struct piece pc = pick_new(d, t, nt);

	if (rnd(4) == 0)
		return pc;
	for (int tries = 0; tries < 32 && token_class(pc) != want; tries++)
		pc = pick_new(d, t, nt);
	return pc;
}

/*
 * Statements and declarations seen in the inputs (the tokens from after a
 * ';', '{' or '}' to the next ';'), to insert whole: a call with its
 * arguments, a declaration, a setting.
 */
#define SNIP_MAX	2048
#define SNIP_LEN	128

static char snip[SNIP_MAX][SNIP_LEN];
static uint64_t snip_hash[SNIP_MAX];
static size_t nsnip;

static bool is_punct(const uint8_t *d, const struct span *t, char c)
{
	return t->len == 1 && d[t->start] == (uint8_t)c;
}

static void learn_snippets(const uint8_t *d, const struct span *t, size_t nt)
{
	size_t from = 0;

	for (size_t i = 0; i < nt && nsnip < SNIP_MAX; i++) {
		if (is_punct(d, &t[i], '{') || is_punct(d, &t[i], '}')) {
			from = i + 1;
		} else if (is_punct(d, &t[i], ';')) {
			size_t a = t[from].start, len = t[i].start + 1 - a;
			uint64_t h;
			bool seen = false;

			from = i + 1;
			if (len >= SNIP_LEN)
				continue;
			h = sim_fnv(SIM_FNV_OFFSET, d + a, len);
			for (size_t k = 0; k < nsnip && !seen; k++)
				seen = snip_hash[k] == h;
			if (seen)
				continue;
			memcpy(snip[nsnip], d + a, len);
			snip[nsnip][len] = '\0';
			snip_hash[nsnip++] = h;
		}
	}
}

/* Remember the names and numbers of an input (its objects, its times), and its statements. */
static void learn(const uint8_t *d, const struct span *t, size_t nt)
{
	for (size_t i = 0; i < nt && ndict < DICT_MAX; i++) {
		if (t[i].len < 24 && ident_char(d[t[i].start]))
			dict_add((const char *)d + t[i].start, t[i].len);
	}
	learn_snippets(d, t, nt);
}

/* Join pieces with single spaces into out; 0 if they do not fit. */
static size_t join(uint8_t *out, size_t max, const struct piece *pc, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (len + pc[i].len + 1 > max)
			return 0;
		memcpy(out + len, pc[i].p, pc[i].len);
		len += pc[i].len;
		out[len++] = i + 1 < n ? ' ' : '\n';
	}
	return len;
}

static bool bytes_only;
/*
 * The share of mutations, in percent, left to libFuzzer's own: they bring
 * what its comparison tracing learns (the parser's strcmp()s of names) and
 * the lexer's byte-level paths. KWSIM_FUZZ_BYTE_SHARE changes it.
 */
static uint32_t byte_share = BYTE_SHARE;

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct span t[TOKS_MAX];
	static struct piece pc[TOKS_MAX + 8];
	static uint8_t copy[1 << 20];
	size_t nt, np = 0, len;
	uint32_t op, at, k, span;

	if (bytes_only || size > sizeof(copy))
		return LLVMFuzzerMutate(data, size, max_size);
	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	if (rnd(100) < byte_share)
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(copy, data, size);
	nt = tokenize(copy, size, t, TOKS_MAX - 8);
	learn(copy, t, nt);
	for (size_t i = 0; i < nt; i++)
		pc[np++] = (struct piece){ (const char *)copy + t[i].start, t[i].len };
	op = nt ? rnd(7) : 0;
	at = rnd((uint32_t)np + 1);
	switch (op) {
	case 0:	/* insert a token */
		memmove(pc + at + 1, pc + at, (np - at) * sizeof(pc[0]));
		pc[at] = pick_new(copy, t, nt);
		np++;
		break;
	case 1:	/* delete one to four tokens */
		at = rnd((uint32_t)np);
		span = 1 + rnd(4);
		if (span > np - at)
			span = (uint32_t)(np - at);
		memmove(pc + at, pc + at + span, (np - at - span) * sizeof(pc[0]));
		np -= span;
		break;
	case 2:	/* replace a token, mostly by one of its class */
	case 3:
		at = rnd((uint32_t)np);
		pc[at] = pick_like(pc[at], copy, t, nt);
		break;
	case 6:	/* insert a statement seen before, after a ';', '{' or '}' */
		while (at < np && !(pc[at].len == 1 && strchr(";{}", pc[at].p[0])))
			at++;
		at += at < np;
		if (!nsnip)
			break;
		memmove(pc + at + 1, pc + at, (np - at) * sizeof(pc[0]));
		pc[at].p = snip[rnd((uint32_t)nsnip)];
		pc[at].len = strlen(pc[at].p);
		np++;
		break;
	case 4:	/* swap two tokens */
		at = rnd((uint32_t)np);
		k = rnd((uint32_t)np);
		{
			struct piece x = pc[at];

			pc[at] = pc[k];
			pc[k] = x;
		}
		break;
	default: /* duplicate a run of up to 16 tokens elsewhere: a statement, a declaration */
		k = rnd((uint32_t)np);
		span = 1 + rnd(16);
		if (span > np - k)
			span = (uint32_t)(np - k);
		if (np + span > TOKS_MAX + 8)
			break;
		memmove(pc + at + span, pc + at, (np - at) * sizeof(pc[0]));
		/* the run's source moved if it was at or after the insertion point */
		memmove(pc + at, pc + (k >= at ? k + span : k), span * sizeof(pc[0]));
		np += span;
		break;
	}
	len = join(data, max_size, pc, np);
	return len ? len : LLVMFuzzerMutate(data, size, max_size);
}

/* Crossover: the first tokens of one input, the last of another. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t n1, const uint8_t *d2, size_t n2,
				 uint8_t *out, size_t max_out, unsigned int seed)
{
	static struct span t1[TOKS_MAX], t2[TOKS_MAX];
	static struct piece pc[2 * TOKS_MAX];
	size_t nt1 = tokenize(d1, n1, t1, TOKS_MAX), nt2 = tokenize(d2, n2, t2, TOKS_MAX);
	size_t a, b, np = 0;

	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 7;
	if (!nt1 || !nt2)
		return 0;
	a = rnd((uint32_t)nt1 + 1);
	b = rnd((uint32_t)nt2 + 1);
	for (size_t i = 0; i < a; i++)
		pc[np++] = (struct piece){ (const char *)d1 + t1[i].start, t1[i].len };
	for (size_t i = b; i < nt2; i++)
		pc[np++] = (struct piece){ (const char *)d2 + t2[i].start, t2[i].len };
	return join(out, max_out, pc, np);
}

/* --- the target ----------------------------------------------------------------------- */

static struct scn_run run;

static void at_exit(void)
{
	sim_fini();
	scn_run_free(&run);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *out = getenv("KWSIM_FUZZ_WRITE_DICT");

	fuzz_init(NULL);
	dict_init();
	if (out) {
		dict_write(out);
		exit(0);
	}
	bytes_only = getenv("KWSIM_FUZZ_BYTES") && strcmp(getenv("KWSIM_FUZZ_BYTES"), "0");
	if (getenv("KWSIM_FUZZ_BYTE_SHARE"))
		byte_share = (uint32_t)strtoul(getenv("KWSIM_FUZZ_BYTE_SHARE"), NULL, 10);
	atexit(at_exit);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scn *s = scn_parse("fuzz.kws", (const char *)data, size, fuzz_devnull());
	const struct kw_model *m;

	if (!s)
		return 0;
	m = kw_model_find(s->kernel);
	fuzz_bound(&s->cfg);
	s->cfg.drop_decisions = true;
	run.config = NULL;
	if (m && !scn_run(s, m, &run, fuzz_devnull()))
		fuzz_check(run.findings, run.nfindings);
	scn_free(s);
	return 0;
}
