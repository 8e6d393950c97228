/*
 * kwsim fuzz: find kthread_worker races with no scenario written.
 *
 *   kwsim fuzz --kernel V [--runs N | --time S] [--seed S] [--schedules K] [--misuse]
 *              [--out DIR] [--corpus DIR] [--jobs J] [--json] [--max-steps N]
 *              [--corpus-max N] [--save-every N] [--cross-runs N] [--shrink-runs N]
 *              [--cpus N]
 *
 * The campaign is tools/fuzz/campaign.c (what a program's runs are, the
 * corpus, the findings' identity, shrinking, the cross-variant report);
 * here: the options, the progress line, SIGINT, --corpus, --jobs.
 *
 * --jobs J: J child processes, child i running the campaign's stream i
 * (programs seeded from (seed, i, program)), each with the --runs asked.
 * What they share: the --corpus they start from (each loads it). What they
 * do not: coverage, the corpus as it grows and the findings, each its own
 * while it runs. At the end the parent, which multiplexes the children's
 * pipes and signals with libevent as explore does, merges: counts summed,
 * findings deduplicated by identity (the first in job order kept, with its
 * file renumbered into DIR), the children's corpora taken in turn up to
 * --corpus-max. A --jobs J campaign is a function of (kernel, seed,
 * options, runs, J).
 *
 * Exit status: 0 nothing found, 1 findings, 2 bad input or usage,
 * 3 stopped (SIGINT) before the programs asked were done, nothing found.
 */
#include "cmd_fuzz.h"
#include "util.h"
#include "fuzz/campaign.h"
#include "jobs.h"
#include "scenario/scn.h"

#include <model.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 64

struct fuzz_opts {
	struct fz_opts fz;
	bool runs_given, time_given, json, kernel_given;
	unsigned int jobs;
	const char *corpus;
};

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int parse_opts(int argc, char **argv, struct fuzz_opts *o)
{
	memset(o, 0, sizeof(*o));
	fz_opts_default(&o->fz);
	o->fz.programs = 1000;
	o->jobs = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "--kernel") || !strcmp(a, "--runs") || !strcmp(a, "--time") ||
			     !strcmp(a, "--seed") || !strcmp(a, "--jobs") || !strcmp(a, "--out") ||
			     !strcmp(a, "--corpus") || !strcmp(a, "--schedules") ||
			     !strcmp(a, "--max-steps") || !strcmp(a, "--corpus-max") ||
			     !strcmp(a, "--cross-runs") || !strcmp(a, "--shrink-runs") ||
			     !strcmp(a, "--cpus") || !strcmp(a, "--save-every");
		uint64_t n;

		if (takes && !v)
			return cmd_usage_error("fuzz", "option %s needs a value", a);
		if (!strcmp(a, "--kernel")) {
			const struct kw_model *m = kw_model_find(v);

			if (!m)
				return cmd_usage_error("fuzz", "--kernel: no variant '%s': this kwsim has %s", v,
						   scn_kernels_built());
			o->fz.kernel = m->name;
			o->kernel_given = true;
		} else if (!strcmp(a, "--runs")) {
			if (!cmd_parse_u64(v, &o->fz.programs) || !o->fz.programs)
				return cmd_usage_error("fuzz", "--runs wants a positive number of programs, not '%s'",
						   v);
			o->runs_given = true;
		} else if (!strcmp(a, "--time")) {
			char *end;

			errno = 0;
			o->fz.time_s = strtod(v, &end);
			if (errno || *end || !*v || !(o->fz.time_s > 0) || !isfinite(o->fz.time_s))
				return cmd_usage_error("fuzz", "--time wants a positive number of seconds, not '%s'",
						   v);
			o->time_given = true;
		} else if (!strcmp(a, "--seed")) {
			if (!cmd_parse_u64(v, &o->fz.seed))
				return cmd_usage_error("fuzz", "--seed wants a non-negative number, not '%s'", v);
		} else if (!strcmp(a, "--jobs")) {
			if (!cmd_parse_u64(v, &n) || !n || n > MAX_JOBS)
				return cmd_usage_error("fuzz", "--jobs wants 1 to 64 processes, not '%s'", v);
			o->jobs = (unsigned int)n;
		} else if (!strcmp(a, "--out")) {
			o->fz.out_dir = v;
		} else if (!strcmp(a, "--corpus")) {
			o->corpus = v;
		} else if (!strcmp(a, "--schedules")) {
			/* 0 would explore nothing but the faithful run: no race could show */
			if (!cmd_parse_u64(v, &n) || !n || n > 1000)
				return cmd_usage_error("fuzz", "--schedules wants 1 to 1000 schedules per program, "
						   "not '%s'", v);
			o->fz.schedules = (unsigned int)n;
		} else if (!strcmp(a, "--max-steps")) {
			if (!cmd_parse_u64(v, &o->fz.max_steps) || !o->fz.max_steps)
				return cmd_usage_error("fuzz", "--max-steps wants a positive number, not '%s'", v);
		} else if (!strcmp(a, "--corpus-max")) {
			if (!cmd_parse_u64(v, &n) || !n || n > 100000)
				return cmd_usage_error("fuzz", "--corpus-max wants 1 to 100000 programs, not '%s'", v);
			o->fz.corpus_max = (size_t)n;
		} else if (!strcmp(a, "--save-every")) {
			if (!cmd_parse_u64(v, &o->fz.save_every) || o->fz.save_every > 100000000)
				return cmd_usage_error("fuzz", "--save-every wants a number of programs between "
						   "saves of --corpus (0: at the end only), not '%s'", v);
		} else if (!strcmp(a, "--cross-runs")) {
			if (!cmd_parse_u64(v, &o->fz.cross_runs) || o->fz.cross_runs > 100000000)
				return cmd_usage_error("fuzz", "--cross-runs wants 0 (no cross-variant report) or a "
						   "number of runs, not '%s'", v);
		} else if (!strcmp(a, "--shrink-runs")) {
			if (!cmd_parse_u64(v, &o->fz.shrink_runs) || o->fz.shrink_runs > 100000000)
				return cmd_usage_error("fuzz", "--shrink-runs wants a number of runs, not '%s'", v);
		} else if (!strcmp(a, "--cpus")) {
			if (!cmd_parse_u64(v, &n) || !n || n > 4)
				return cmd_usage_error("fuzz", "--cpus wants 1 to 4, not '%s'", v);
			o->fz.max_cpus = (unsigned int)n;
		} else if (!strcmp(a, "--misuse")) {
			o->fz.misuse = true;
			continue;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: kwsim fuzz --kernel V [--runs N | --time S] [--seed S]"
			       " [--schedules K]\n"
			       "                  [--misuse] [--out DIR] [--corpus DIR] [--jobs J]"
			       " [--json]\n"
			       "                  [--max-steps N] [--corpus-max N] [--cross-runs N]"
			       " [--shrink-runs N] [--cpus N]\n"
			       "                  [--save-every N]\n"
			       "(the options are explained by 'kwsim help')\n");
			return -1;
		} else if (a[0] == '-') {
			return cmd_usage_error("fuzz", "unknown option '%s'", a);
		} else {
			return cmd_usage_error("fuzz", "takes no file: it writes its own programs, not '%s'", a);
		}
		i++;
	}
	if (!o->kernel_given)
		return cmd_usage_error("fuzz", "%s", "needs --kernel V: the variant to fuzz");
	if (o->time_given && !o->runs_given)
		o->fz.programs = 0;	/* --time alone: as many programs as fit */
	o->fz.corpus_dir = o->corpus;
	return 0;
}

/* --- the progress line: on a terminal only ------------------------------------------------------- */

struct progress {
	double t0, last;
};

static void progress_line(struct progress *p, const struct fz_stats *s, bool final)
{
	double now = host_seconds(CLOCK_MONOTONIC), dt = now - p->t0 > 0 ? now - p->t0 : 1;

	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (now - p->last < 0.2)
		return;
	p->last = now;
	fprintf(stderr, "\r\033[Kfuzz: %" PRIu64 " programs, %" PRIu64 " schedules, %.0f programs/s, "
		"%.0f schedules/s, corpus %zu, coverage %zu, findings %zu+%zu misuse, %.0f s",
		s->programs, s->runs, s->programs / dt, s->runs / dt, s->corpus, s->features,
		s->findings, s->misuse_findings, now - p->t0);
}

static void on_progress(void *arg, const struct fz_stats *s, bool final)
{
	progress_line(arg, s, final);
}

static void rates(const struct fz_stats *s, double dt)
{
	if (dt <= 0)
		dt = 1e-9;
	fprintf(stderr, "kwsim fuzz: %" PRIu64 " programs, %" PRIu64 " schedules in %.1f s: %.1f "
		"programs/s, %.0f schedules/s\n", s->programs, s->runs, dt, s->programs / dt,
		s->runs / dt);
}

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "kwsim fuzz: cannot make %s: %s\n", dir, strerror(errno));
		return 2;
	}
	return 0;
}

static int run_jobs(struct fuzz_opts *o, struct fz_corpus *c, struct fz_result *r);

static int fuzz(struct fuzz_opts *o)
{
	struct progress prog = { host_seconds(CLOCK_MONOTONIC), 0 };
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	const char *hook = getenv("KWSIM_FUZZ_SIGINT_AFTER");
	struct fz_corpus c = { 0 };
	struct fz_result r;
	double t0 = host_seconds(CLOCK_MONOTONIC);
	int rc;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	if ((o->fz.out_dir && make_dir(o->fz.out_dir)) ||
	    (o->corpus && fz_corpus_load(o->corpus, &c, o->fz.corpus_max, stderr))) {
		sigaction(SIGINT, &old, NULL);
		fz_corpus_free(&c);
		return 2;
	}
	o->fz.stop = &stop_flag;
	if (isatty(STDERR_FILENO)) {
		o->fz.progress = on_progress;
		o->fz.progress_arg = &prog;
	}
	/* tests: a SIGINT after this many programs, without a race against their speed */
	if (hook)
		(void)cmd_parse_u64(hook, &o->fz.raise_sigint_at);
	memset(&r, 0, sizeof(r));
	if (o->jobs > 1)
		rc = run_jobs(o, &c, &r);
	else
		rc = fz_run(&o->fz, &c, &r, stderr);
	sigaction(SIGINT, &old, NULL);
	if (!rc && o->corpus)
		rc = fz_corpus_save(o->corpus, &c, stderr);
	if (!rc) {
		if (o->json)
			fz_print_json(stdout, &r, o->fz.out_dir);
		else
			fz_print(stdout, &r, o->fz.out_dir);
		rates(&r.st, host_seconds(CLOCK_MONOTONIC) - t0);
		rc = fz_status(&r);
	}
	fz_result_free(&r);
	fz_corpus_free(&c);
	return rc;
}

int kwsim_fuzz(int argc, char **argv)
{
	struct fuzz_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (!rc)
		rc = fuzz(&o);
	return rc < 0 ? 0 : rc;
}

/* --- --jobs: child processes, multiplexed with libevent ------------------------------------- */

/* A string on one line of the pipe: backslash, tab and newline escaped. */
static void put_str(FILE *out, const char *v)
{
	fputc('\t', out);
	if (!v) {
		fputs("\\0", out);
		return;
	}
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", out);
		else if (*v == '\t')
			fputs("\\t", out);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

/* The next field of line (tabs between), unescaped in place; NULL for "\0". */
static char *get_str(char **line)
{
	char *f = *line, *o, *p;

	if (!f)
		return NULL;
	p = strchr(f, '\t');
	*line = p ? p + 1 : NULL;
	if (p)
		*p = '\0';
	if (!strcmp(f, "\\0"))
		return NULL;
	for (o = p = f; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			*o++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return f;
}

static uint64_t get_u64(char **line)
{
	char *f = get_str(line);

	return f ? strtoull(f, NULL, 10) : 0;
}

static void write_result(FILE *out, const struct fz_result *r)
{
	const struct fz_stats *s = &r->st;

	fprintf(out, "result\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%"
		PRIu64 "\t%" PRIu64 "\t%zu\t%zu\t%zu\t%zu\t%d", s->programs, s->runs, s->generated,
		s->mutated, s->spliced, s->rejected, s->cut_short, s->corpus, s->features, s->tuples,
		s->rf_pairs, r->stopped);
	put_str(out, r->first_error);
	fputc('\n', out);
	for (size_t i = 0; i < r->nf; i++) {
		const struct fz_finding *f = &r->f[i];

		fputs("finding", out);
		put_str(out, f->id);
		put_str(out, f->what);
		put_str(out, f->file);
		fprintf(out, "\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%zu\t%d\t%d\n",
			f->misuse, f->rules, f->program, f->schedules, f->count, f->stmts_before,
			f->stmts_after, f->depth, f->schedule_shrunk);
		for (size_t k = 0; k < f->ncross; k++) {
			fputs("cross", out);
			put_str(out, f->cross[k].kernel);
			fprintf(out, "\t%" PRIu64 "\t%d\t%d\n", f->cross[k].runs, f->cross[k].shown,
				f->cross[k].error);
		}
	}
	fputs("end\n", out);
}

/* A job's part, as it sent it (--jobs: tools/jobs.h runs them). */
struct job {
	bool ended;		/* it sent its "end" line */
	struct fz_stats progress;
	struct fz_result r;	/* what it sent */
	char out[4096], corpus[4096];	/* its --out and --corpus directories */
};

struct jobs {
	struct fuzz_opts *o;
	const struct fz_corpus *c0;	/* the --corpus every job starts from */
	struct job *c;
	unsigned int n;
	struct progress prog;
	bool tty;
};

static void child_progress(void *arg, const struct fz_stats *s, bool final)
{
	FILE *out = arg;

	(void)final;
	fprintf(out, "progress\t%" PRIu64 "\t%" PRIu64 "\t%zu\t%zu\t%zu\t%zu\n", s->programs, s->runs,
		s->corpus, s->features, s->findings, s->misuse_findings);
	fflush(out);
}

static void jobs_progress(struct jobs *j, bool final)
{
	struct fz_stats t = { 0 };

	if (!j->tty)
		return;
	for (unsigned int i = 0; i < j->n; i++) {
		const struct fz_stats *s = &j->c[i].progress;

		t.programs += s->programs;
		t.runs += s->runs;
		t.corpus += s->corpus;
		/* the jobs' coverage and findings overlap: the line shows the most any has */
		t.features = t.features > s->features ? t.features : s->features;
		t.findings = t.findings > s->findings ? t.findings : s->findings;
		t.misuse_findings = t.misuse_findings > s->misuse_findings ? t.misuse_findings
									      : s->misuse_findings;
	}
	progress_line(&j->prog, &t, final);
}

static void take_line(struct jobs *j, struct job *c, char *line)
{
	char *p = line, *kind = get_str(&p);
	struct fz_result *r = &c->r;

	if (!kind)
		return;
	if (!strcmp(kind, "progress")) {
		c->progress.programs = get_u64(&p);
		c->progress.runs = get_u64(&p);
		c->progress.corpus = (size_t)get_u64(&p);
		c->progress.features = (size_t)get_u64(&p);
		c->progress.findings = (size_t)get_u64(&p);
		c->progress.misuse_findings = (size_t)get_u64(&p);
		jobs_progress(j, false);
	} else if (!strcmp(kind, "result")) {
		struct fz_stats *s = &r->st;
		char *e;

		s->programs = get_u64(&p);
		s->runs = get_u64(&p);
		s->generated = get_u64(&p);
		s->mutated = get_u64(&p);
		s->spliced = get_u64(&p);
		s->rejected = get_u64(&p);
		s->cut_short = get_u64(&p);
		s->corpus = (size_t)get_u64(&p);
		s->features = (size_t)get_u64(&p);
		s->tuples = (size_t)get_u64(&p);
		s->rf_pairs = (size_t)get_u64(&p);
		r->stopped = get_u64(&p) != 0;
		e = get_str(&p);
		snprintf(r->first_error, sizeof(r->first_error), "%s", e ? e : "");
	} else if (!strcmp(kind, "finding")) {
		struct fz_finding *f;
		char *v;

		if (r->nf == r->capf) {
			r->capf = r->capf ? 2 * r->capf : 8;
			r->f = realloc(r->f, r->capf * sizeof(*r->f));
			if (!r->f)
				abort();
		}
		f = &r->f[r->nf++];
		memset(f, 0, sizeof(*f));
		v = get_str(&p);
		f->id = strdup(v ? v : "");
		v = get_str(&p);
		f->what = strdup(v ? v : "");
		v = get_str(&p);
		f->file = v ? strdup(v) : NULL;
		if (!f->id || !f->what)
			abort();
		f->misuse = get_u64(&p) != 0;
		f->rules = get_u64(&p);
		f->program = get_u64(&p);
		f->schedules = get_u64(&p);
		f->count = get_u64(&p);
		f->stmts_before = (size_t)get_u64(&p);
		f->stmts_after = (size_t)get_u64(&p);
		v = get_str(&p);
		f->depth = v ? atoi(v) : -1;
		f->schedule_shrunk = get_u64(&p) != 0;
	} else if (!strcmp(kind, "cross") && r->nf) {
		struct fz_finding *f = &r->f[r->nf - 1];
		char *v = get_str(&p);

		f->cross = realloc(f->cross, (f->ncross + 1) * sizeof(*f->cross));
		if (!f->cross)
			abort();
		f->cross[f->ncross].kernel = strdup(v ? v : "");
		f->cross[f->ncross].runs = get_u64(&p);
		f->cross[f->ncross].shown = get_u64(&p) != 0;
		f->cross[f->ncross++].error = get_u64(&p) != 0;
	} else if (!strcmp(kind, "end")) {
		c->ended = true;
	}
}

static void child_line(void *arg, unsigned int i, char *line)
{
	struct jobs *j = arg;

	take_line(j, &j->c[i], line);
}

/* Child i: stream i of the campaign, its result to out. */
static int child_main(void *arg, unsigned int i, FILE *out)
{
	struct jobs *j = arg;
	struct fuzz_opts *o = j->o;
	const struct fz_corpus *c0 = j->c0;
	struct job *me = &j->c[i];
	struct fz_opts fo = o->fz;
	struct fz_corpus c = { 0 };
	struct fz_result r;
	int rc;

	fo.job = i;
	fo.njobs = o->jobs;
	fo.out_dir = o->fz.out_dir ? me->out : NULL;
	fo.corpus_dir = o->corpus ? me->corpus : NULL;	/* its save points: DIR/.job-I */
	fo.progress = child_progress;
	fo.progress_arg = out;
	if (c0->n) {
		c.e = malloc(c0->n * sizeof(*c.e));
		if (!c.e)
			return 2;
		memcpy(c.e, c0->e, c0->n * sizeof(*c.e));
		c.n = c.cap = c0->n;
	}
	rc = fz_run(&fo, &c, &r, stderr);
	if (!rc && o->corpus)
		rc = fz_corpus_save(me->corpus, &c, stderr);
	if (!rc)
		write_result(out, &r);
	fz_result_free(&r);
	fz_corpus_free(&c);
	return rc;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, n;
	char buf[8192];
	FILE *m;

	if (!f)
		return NULL;
	m = open_memstream(&text, &len);
	if (!m)
		abort();
	while ((n = fread(buf, 1, sizeof(buf), f)))
		fwrite(buf, 1, n, m);
	fclose(f);
	fclose(m);
	return text;
}

/* Job i's file of finding f as DIR/NNN-... of the merged numbering (its name in its text too). */
static int move_file(const struct job *c, struct fz_finding *f, size_t n, const char *dir)
{
	char from[8300], to[8300], name[300], *text, *at;
	FILE *out;
	int rc = 0;

	snprintf(from, sizeof(from), "%s/%s", c->out, f->file);
	snprintf(name, sizeof(name), "%03zu%s", n, f->file + strspn(f->file, "0123456789"));
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	text = read_file(from);
	if (!text) {
		fprintf(stderr, "kwsim fuzz: cannot read %s: %s\n", from, strerror(errno));
		return 2;
	}
	out = fopen(to, "w");
	/* "replay: kwsim replay NAME" in its comment */
	at = strstr(text, f->file);
	if (!out || (at ? fprintf(out, "%.*s%s%s", (int)(at - text), text, name,
				  at + strlen(f->file)) < 0 : fputs(text, out) == EOF) || fclose(out)) {
		fprintf(stderr, "kwsim fuzz: cannot write %s: %s\n", to, strerror(errno));
		rc = 2;
	}
	free(text);
	free(f->file);
	f->file = strdup(name);
	if (!f->file)
		abort();
	return rc;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[8300];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The jobs' results as one: counts summed, findings by identity, the first in job order. */
static int merge(struct jobs *j, struct fuzz_opts *o, struct fz_corpus *c, struct fz_result *r)
{
	int rc = 0;

	r->kernel = strdup(o->fz.kernel);
	if (!r->kernel)
		abort();
	r->seed = o->fz.seed;
	r->programs_asked = o->fz.programs * o->jobs;
	r->schedules = o->fz.schedules;
	r->misuse = o->fz.misuse;
	for (unsigned int i = 0; i < j->n; i++) {
		struct fz_result *p = &j->c[i].r;

		r->st.programs += p->st.programs;
		r->st.runs += p->st.runs;
		r->st.generated += p->st.generated;
		r->st.mutated += p->st.mutated;
		r->st.spliced += p->st.spliced;
		r->st.rejected += p->st.rejected;
		r->st.cut_short += p->st.cut_short;
		r->st.corpus += p->st.corpus;
		r->st.features = r->st.features > p->st.features ? r->st.features : p->st.features;
		r->st.tuples = r->st.tuples > p->st.tuples ? r->st.tuples : p->st.tuples;
		r->st.rf_pairs = r->st.rf_pairs > p->st.rf_pairs ? r->st.rf_pairs : p->st.rf_pairs;
		r->stopped |= p->stopped;
		if (!r->first_error[0])
			memcpy(r->first_error, p->first_error, sizeof(r->first_error));
		for (size_t k = 0; k < p->nf; k++) {
			struct fz_finding *f = &p->f[k];
			bool seen = false;

			for (size_t m = 0; m < r->nf && !seen; m++) {
				if (!strcmp(r->f[m].id, f->id)) {
					r->f[m].count += f->count;
					seen = true;
				}
			}
			if (seen)
				continue;
			if (r->nf == r->capf) {
				r->capf = r->capf ? 2 * r->capf : 8;
				r->f = realloc(r->f, r->capf * sizeof(*r->f));
				if (!r->f)
					abort();
			}
			r->f[r->nf++] = *f;
			memset(f, 0, sizeof(*f));	/* moved */
			if (r->f[r->nf - 1].misuse)
				r->st.misuse_findings++;
			else
				r->st.findings++;
			if (o->fz.out_dir && r->f[r->nf - 1].file && !rc)
				rc = move_file(&j->c[i], &r->f[r->nf - 1], r->nf, o->fz.out_dir);
		}
	}
	if (o->corpus && !rc) {
		/* the jobs' corpora in turn, up to the bound */
		struct fz_corpus part[MAX_JOBS] = { { 0 } };
		bool more = true;

		fz_corpus_free(c);
		for (unsigned int i = 0; i < j->n && !rc; i++)
			rc = fz_corpus_load(j->c[i].corpus, &part[i], o->fz.corpus_max, stderr);
		for (size_t k = 0; more && !rc; k++) {
			more = false;
			for (unsigned int i = 0; i < j->n && c->n < o->fz.corpus_max; i++) {
				if (k >= part[i].n)
					continue;
				more = true;
				if (c->n == c->cap) {
					c->cap = c->cap ? 2 * c->cap : 64;
					c->e = realloc(c->e, c->cap * sizeof(*c->e));
					if (!c->e)
						abort();
				}
				c->e[c->n++] = part[i].e[k];
			}
		}
		for (unsigned int i = 0; i < j->n; i++)
			fz_corpus_free(&part[i]);
		r->st.corpus = c->n;
	}
	return rc;
}

static int run_jobs(struct fuzz_opts *o, struct fz_corpus *c, struct fz_result *r)
{
	struct jobs j = { .o = o, .c0 = c, .n = o->jobs, .prog = { host_seconds(CLOCK_MONOTONIC), 0 },
			  .tty = isatty(STDERR_FILENO) };
	int *status = calloc(o->jobs, sizeof(*status));
	struct jobs_batch b;
	int rc = 0;

	j.c = calloc(j.n, sizeof(*j.c));
	if (!j.c || !status)
		abort();
	for (unsigned int i = 0; i < j.n && !rc; i++) {
		struct job *cj = &j.c[i];

		if (o->fz.out_dir) {
			snprintf(cj->out, sizeof(cj->out), "%s/.job-%u", o->fz.out_dir, i);
			rc = make_dir(cj->out);
		}
		if (o->corpus && !rc) {
			rc = make_dir(o->corpus);
			snprintf(cj->corpus, sizeof(cj->corpus), "%s/.job-%u", o->corpus, i);
		}
	}
	b = (struct jobs_batch){ .n = j.n, .status = status,
		.ops = { .child = child_main, .line = child_line, .arg = &j, .on_sigint = on_sigint } };
	if (!rc && jobs_batch_run(&b, "kwsim fuzz"))
		rc = 2;
	jobs_progress(&j, true);
	for (unsigned int i = 0; i < j.n && !rc; i++) {
		if (status[i] == -1 || !WIFEXITED(status[i]) || WEXITSTATUS(status[i]) ||
		    !j.c[i].ended) {
			if (status[i] != -1 && WIFSIGNALED(status[i]))
				fprintf(stderr, "kwsim fuzz: job %u died of signal %d\n", i,
					WTERMSIG(status[i]));
			else
				fprintf(stderr, "kwsim fuzz: job %u sent no result\n", i);
			rc = 2;
		}
	}
	if (!rc)
		rc = merge(&j, o, c, r);
	if (!rc && (stop_flag || b.interrupted) && r->st.programs < r->programs_asked)
		r->stopped = true;
	for (unsigned int i = 0; i < j.n; i++) {
		fz_result_free(&j.c[i].r);
		if (j.c[i].out[0])
			remove_dir(j.c[i].out);
		if (j.c[i].corpus[0])
			remove_dir(j.c[i].corpus);
	}
	free(status);
	free(j.c);
	return rc;
}
