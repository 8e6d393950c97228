/*
 * The names a scenario gives: its declared objects, found by name in an
 * open-addressing table (100,000 declarations stay linear), and the names
 * it need not declare, programs' P0 and registers' r0. A misspelt name gets
 * a suggestion from every word it could have meant.
 */
#include "scn_parse.h"

#include <sim/fnv.h>

#include <ctype.h>
#include <string.h>

static const char *const keywords[] = {
	"fn", "worker", "work", "delayed_work", "timer", "spinlock", "completion", "int", "if", "else",
	"repeat", "while", "at", "log", "true", "false", "exists", "forall", "irq", "suspend",
	"resume", "schedule", "KTW_FREEZABLE", "kthread_worker_fn",
};

static size_t name_hash(const char *name)
{
	return (size_t)sim_fnv_str(SIM_FNV_OFFSET, name);
}

struct scn_obj *decl_find(struct parser *p, const char *name)
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

void decl_unknown(struct parser *p, const char *what)
{
	size_t nkw = sizeof(keywords) / sizeof(keywords[0]), nset = 0, max, n = 0;
	const char **words;
	const char *hint;

	while (set_name(nset))
		nset++;
	max = (size_t)p->s->nobjs + 64 + nkw + nset;
	words = scn_alloc(p->s, max * sizeof(*words));
	for (int i = 0; i < p->s->nobjs; i++)
		words[n++] = p->s->objs[i]->name;
	n += scn_api_names(words + n, 64);
	for (size_t i = 0; i < nkw; i++)
		words[n++] = keywords[i];
	for (size_t i = 0; i < nset; i++)
		words[n++] = set_name(i);
	hint = scn_did_you_mean(p->ident, words, n);
	if (hint)
		fail(p, "unknown %s '%s'; did you mean '%s'?", what, p->ident, hint);
	fail(p, "unknown %s '%s'", what, p->ident);
}

struct scn_obj *decl_new(struct parser *p, enum scn_obj_kind kind)
{
	struct scn *s = p->s;
	struct scn_obj *o;

	if (p->tok != T_IDENT)
		fail(p, "expected a name, found %s", lex_tok_text(p));
	if (decl_find(p, p->ident))
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
	s->objs = scn_append(s, s->objs, s->nobjs, sizeof(*s->objs));
	o->id = s->nobjs;
	s->objs[s->nobjs] = o;
	index_obj(p, o);
	s->nobjs++;
	if (kind == OBJ_FN) {
		s->fns = scn_append(s, s->fns, s->nfns, sizeof(*s->fns));
		s->fns[s->nfns++] = o;
	}
	lex_next(p);
	return o;
}

const char *decl_kind_name(enum scn_obj_kind k)
{
	static const char *const names[] = { "worker", "work", "delayed_work", "spinlock",
					     "completion", "int", "fn", "timer", "program" };
	return names[k];
}

void decl_fn_use(struct parser *p, struct scn_obj *fn, enum scn_fn_use use, struct scn_loc at)
{
	if (fn->use == FN_UNUSED) {
		fn->use = use;
		fn->use_loc = at;
		return;
	}
	if (fn->use == use)
		return;
	if (use == FN_TIMER)
		lex_fail_at(p, at, "fn %s is a work's function (line %d), so it cannot be a timer's "
			    "callback: the kernel's types differ (struct kthread_work *, struct "
			    "timer_list *); give the timer a fn of its own", fn->name,
			    fn->use_loc.line);
	lex_fail_at(p, at, "fn %s is a timer's callback (line %d), so it cannot be a work's "
		    "function: the kernel's types differ (struct timer_list *, struct "
		    "kthread_work *); give the work a fn of its own", fn->name, fn->use_loc.line);
}

int decl_find_reg(struct scn_prog *prog, const char *name, bool create)
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

/* A letter and a number: r0, P12. */
static bool letter_number(const char *s, char letter)
{
	if (s[0] != letter || !s[1])
		return false;
	for (s++; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool decl_is_reg(const char *s)
{
	return letter_number(s, 'r');
}

bool decl_is_thread(const char *w)
{
	return letter_number(w, 'P');
}
