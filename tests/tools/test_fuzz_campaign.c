/*
 * Pins kwsim fuzz's campaign (tools/fuzz/campaign.h):
 *  - a finding's identity keeps the kind, the kernel's function:line and the
 *    context's kind, and drops what changes from program to program: the
 *    scenario line, the objects' numbers in an invariant's clause, a
 *    thread's or worker's own name;
 *  - a campaign bounded by programs is a function of its options: two runs,
 *    the same summary bytes; another seed, another campaign;
 *  - the corpus stays within its bound however many programs add to it;
 *  - a corpus saved and loaded back is the same programs, and a file that
 *    is not an entry is refused with its name.
 */
#include <fuzz/campaign.h>
#include <scenario/scn.h>
#undef fail			/* the parser's, not Check's */

#include "../harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sim_finding finding(enum sim_finding_kind kind, const char *func, int line,
				  const char *context, const char *msg, const char *note)
{
	struct sim_finding f;

	memset(&f, 0, sizeof(f));
	f.kind = kind;
	f.site.func = func;
	f.site.line = line;
	f.site.file = func ? "kernel/kthread.c" : NULL;
	snprintf(f.context, sizeof(f.context), "%s", context);
	snprintf(f.msg, sizeof(f.msg), "%s", msg);
	snprintf(f.note, sizeof(f.note), "%s", note);
	return f;
}

START_TEST(identity)
{
	char a[512], b[512];
	struct sim_finding w1 = finding(SIM_F_WARN, "kthread_insert_work_sanity_check", 812, "kw0",
					"WARNING: at kthread.c:812", "fuzz.kws:14");
	struct sim_finding w2 = finding(SIM_F_WARN, "kthread_insert_work_sanity_check", 812, "kw2",
					"WARNING: at kthread.c:812", "fuzz.kws:40");
	struct sim_finding w3 = finding(SIM_F_WARN, "kthread_insert_work_sanity_check", 815, "kw0",
					"WARNING: at kthread.c:815", "fuzz.kws:14");
	struct sim_finding t = finding(SIM_F_WARN, "kthread_insert_work_sanity_check", 812, "P3",
				       "WARNING", "fuzz.kws:14");
	struct sim_finding i1 = finding(SIM_F_INVARIANT, "never", 30, "softirq",
					"invariant broken: never (queued(A0) /\\ delayed(A0))\nq=1",
					"fuzz.kws:30");
	struct sim_finding i2 = finding(SIM_F_INVARIANT, "never", 57, "softirq",
					"invariant broken: never (queued(A12) /\\ delayed(A12))\nq=1",
					"fuzz.kws:57");

	/* another program: other names and lines, the same bug */
	ck_assert_str_eq(fz_identity(&w1, a, sizeof(a)), fz_identity(&w2, b, sizeof(b)));
	ck_assert_ptr_nonnull(strstr(a, "kthread_insert_work_sanity_check:812"));
	ck_assert_ptr_nonnull(strstr(a, "worker"));
	/* another kernel line, another context kind: another finding */
	ck_assert_str_ne(a, fz_identity(&w3, b, sizeof(b)));
	ck_assert_str_ne(a, fz_identity(&t, b, sizeof(b)));
	ck_assert_ptr_nonnull(strstr(b, "thread"));
	/* a finding at an API call of the program: the call, not its line */
	struct sim_finding s1 = finding(SIM_F_MIGHT_SLEEP, "kthread_stop", 24, "hardirq", "BUG", "");
	struct sim_finding s2 = finding(SIM_F_MIGHT_SLEEP, "kthread_stop", 26, "hardirq", "BUG", "");

	s1.site.file = s2.site.file = "fuzz.kws";
	ck_assert_str_eq(fz_identity(&s1, a, sizeof(a)), fz_identity(&s2, b, sizeof(b)));
	ck_assert_str_eq(a, "might_sleep kthread_stop hardirq");
	/* an invariant: its clause without object numbers, never its line */
	ck_assert_str_eq(fz_identity(&i1, a, sizeof(a)), fz_identity(&i2, b, sizeof(b)));
	ck_assert_str_eq(a, "invariant never (queued(A) /\\ delayed(A)) softirq");
}
END_TEST

static char *summary(const struct fz_opts *o, struct fz_corpus *c, struct fz_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	ck_assert_int_eq(fz_run(o, c, r, stderr), 0);
	m = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(m);
	fz_print(m, r, NULL);
	fclose(m);
	return text;
}

static void small(struct fz_opts *o, const char *kernel, uint64_t seed, uint64_t programs)
{
	fz_opts_default(o);
	o->kernel = kernel;
	o->seed = seed;
	o->programs = programs;
	o->schedules = 2;
	o->cross_runs = 0;
	o->shrink_runs = 40;
	o->xshrink_runs = 100;
}

START_TEST(deterministic)
{
	struct fz_opts o;
	struct fz_corpus c1 = { 0 }, c2 = { 0 }, c3 = { 0 };
	struct fz_result r1, r2, r3;
	char *a, *b, *d;

	small(&o, "mainline", 7, 12);
	a = summary(&o, &c1, &r1);
	b = summary(&o, &c2, &r2);
	ck_assert_str_eq(a, b);
	ck_assert_uint_eq(r1.st.programs, 12);
	ck_assert_uint_ge(r1.st.runs, 12 * 3);
	ck_assert_uint_eq(c1.n, c2.n);
	for (size_t i = 0; i < c1.n; i++)
		ck_assert(!memcmp(&c1.e[i].p, &c2.e[i].p, sizeof(c1.e[i].p)));
	/* the first program reaches something: the corpus is not empty, coverage counted */
	ck_assert_uint_ge(c1.n, 1);
	ck_assert_uint_ge(r1.st.features, 1);
	ck_assert_uint_eq(r1.st.rejected, 0);
	o.seed = 8;
	d = summary(&o, &c3, &r3);
	ck_assert_str_ne(a, d);
	free(a);
	free(b);
	free(d);
	fz_result_free(&r1);
	fz_result_free(&r2);
	fz_result_free(&r3);
	fz_corpus_free(&c1);
	fz_corpus_free(&c2);
	fz_corpus_free(&c3);
}
END_TEST

START_TEST(corpus_bounded)
{
	struct fz_opts o;
	struct fz_corpus c = { 0 };
	struct fz_result r;
	char *a;

	small(&o, "mainline", 3, 40);
	o.schedules = 1;
	o.corpus_max = 3;
	a = summary(&o, &c, &r);
	ck_assert_uint_le(c.n, 3);
	ck_assert_uint_eq(r.st.corpus, c.n);
	free(a);
	fz_result_free(&r);
	fz_corpus_free(&c);
}
END_TEST

START_TEST(corpus_files)
{
	struct fz_opts o;
	struct fz_corpus c = { 0 }, back = { 0 }, bad = { 0 };
	struct fz_result r;
	char dir[] = "/tmp/kwsim-fuzz-corpus-XXXXXX", path[300], *a, *msg = NULL;
	size_t len = 0;
	FILE *f, *err;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	small(&o, "mainline", 11, 10);
	a = summary(&o, &c, &r);
	ck_assert_uint_ge(c.n, 1);
	ck_assert_int_eq(fz_corpus_save(dir, &c, stderr), 0);
	ck_assert_int_eq(fz_corpus_load(dir, &back, 1000, stderr), 0);
	ck_assert_uint_eq(back.n, c.n);
	/* in name order, not the corpus's: every program comes back, equal */
	for (size_t i = 0; i < c.n; i++) {
		bool found = false;

		for (size_t k = 0; k < back.n && !found; k++)
			found = !memcmp(&c.e[i].p, &back.e[k].p, sizeof(c.e[i].p));
		ck_assert(found);
	}
	snprintf(path, sizeof(path), "%s/prog-zz.kwp", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("kwsim-prog 999\n", f);
	fclose(f);
	/* a damaged entry is skipped and said; the others load */
	err = open_memstream(&msg, &len);
	ck_assert_int_eq(fz_corpus_load(dir, &bad, 1000, err), 0);
	fclose(err);
	ck_assert_ptr_nonnull(strstr(msg, "prog-zz.kwp"));
	ck_assert_ptr_nonnull(strstr(msg, "kwsim fuzz: "));
	ck_assert_ptr_nonnull(strstr(msg, "skipped"));
	ck_assert_uint_eq(bad.n, c.n);
	/* and a save leaves it for its owner to look at */
	ck_assert_int_eq(fz_corpus_save(dir, &bad, stderr), 0);
	ck_assert_int_eq(access(path, F_OK), 0);
	/* clean up: save an empty corpus (removes every entry), then the directory */
	unlink(path);
	fz_corpus_free(&bad);
	bad.n = 0;
	ck_assert_int_eq(fz_corpus_save(dir, &bad, stderr), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	free(msg);
	free(a);
	fz_result_free(&r);
	fz_corpus_free(&c);
	fz_corpus_free(&back);
}
END_TEST

/* A stream's result with findings named ids (misuse when the name starts with 'm'). */
static void stream_result(struct fz_result *r, uint64_t programs, size_t features, const char *ids)
{
	memset(r, 0, sizeof(*r));
	r->st.programs = programs;
	r->st.runs = 10 * programs;
	r->st.corpus = 3;
	r->st.features = features;
	for (const char *c = ids; *c; c++) {
		struct fz_finding *f;
		char id[32], file[32];

		r->f = realloc(r->f, (r->nf + 1) * sizeof(*r->f));
		ck_assert_ptr_nonnull(r->f);
		f = &r->f[r->nf++];
		memset(f, 0, sizeof(*f));
		snprintf(id, sizeof(id), "warn f:%c\tworker", *c);
		snprintf(file, sizeof(file), "%03zu-warn-%c.kws", r->nf, *c);
		f->id = strdup(id);
		f->what = strdup("a what\nwith a newline \\ and a backslash");
		f->file = strdup(file);
		f->misuse = *c == 'm';
		f->program = programs + (uint64_t)(c - ids);
		f->count = 2;
		f->depth = -1;
		f->cross = calloc(1, sizeof(*f->cross));
		f->cross[0].kernel = strdup("mainline");
		f->cross[0].runs = 7;
		f->cross[0].shown = true;
		f->ncross = 1;
	}
}

/* Written as lines and read back: the same lines again. */
static void round_trip(const struct fz_result *r, struct fz_result *back)
{
	char *text = NULL, *again = NULL, *line, *save = NULL, *copy;
	size_t len = 0, alen = 0;
	FILE *f = open_memstream(&text, &len);
	int last = 0;

	ck_assert_ptr_nonnull(f);
	fz_result_write(f, r);
	fclose(f);
	memset(back, 0, sizeof(*back));
	copy = strdup(text);

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ck_assert_int_ge(last = fz_result_line(back, line), 0);
	ck_assert_int_eq(last, 1);	/* it ended with "end" */
	f = open_memstream(&again, &alen);
	fz_result_write(f, back);
	fclose(f);
	ck_assert_str_eq(text, again);
	free(copy);
	free(text);
	free(again);
}

START_TEST(streams_merged)
{
	struct fz_result a, b, c, r = { 0 };
	struct fz_part p[3] = { { .dir = "s-0" }, { .dir = "s-1" }, { .dir = "s-2" } };
	char bad[] = "bogus\t1";

	stream_result(&a, 5, 40, "xy");
	stream_result(&b, 9, 55, "ym");
	stream_result(&c, 7, 30, "");
	round_trip(&a, &p[0].r);
	round_trip(&b, &p[1].r);
	round_trip(&c, &p[2].r);
	ck_assert_int_eq(fz_result_line(&r, bad), -1);
	ck_assert_int_eq(fz_merge(p, 3, NULL, NULL, 256, &r, "fuzz", stderr), 0);
	ck_assert_uint_eq(r.st.programs, 21);
	ck_assert_uint_eq(r.st.runs, 210);
	ck_assert_uint_eq(r.st.corpus, 9);	/* no corpus merged: the streams' summed */
	ck_assert_uint_eq(r.st.features, 55);	/* coverage overlaps: the most any reached */
	/* by identity, in stream order: x, y (stream 0's, counted twice), m */
	ck_assert_uint_eq(r.nf, 3);
	ck_assert_str_eq(r.f[0].id, "warn f:x\tworker");
	ck_assert_str_eq(r.f[1].id, "warn f:y\tworker");
	ck_assert_uint_eq(r.f[1].count, 4);
	ck_assert_uint_eq(r.f[1].program, 6);	/* stream 0's (stream 1's is 9) */
	ck_assert_str_eq(r.f[1].file, "s-0/002-warn-y.kws");
	ck_assert_str_eq(r.f[2].id, "warn f:m\tworker");
	ck_assert_str_eq(r.f[2].file, "s-1/002-warn-m.kws");
	ck_assert_str_eq(r.f[0].what, "a what\nwith a newline \\ and a backslash");
	ck_assert_uint_eq(r.f[2].ncross, 1);
	ck_assert_str_eq(r.f[2].cross[0].kernel, "mainline");
	ck_assert_uint_eq(r.st.findings, 2);
	ck_assert_uint_eq(r.st.misuse_findings, 1);
	for (int i = 0; i < 3; i++)
		fz_result_free(&p[i].r);
	fz_result_free(&a);
	fz_result_free(&b);
	fz_result_free(&c);
	fz_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fuzz_campaign");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, identity);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, corpus_bounded);
	tcase_add_test(tc, corpus_files);
	tcase_add_test(tc, streams_merged);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
