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
#include "cmd/cmd_fuzz.h"
#include "lib/util.h"
#include "fuzz/campaign.h"
#include "lib/jobs.h"
#include "scenario/scn.h"
#include "lib/outfile.h"

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
	bool runs_given, time_given, json, kernel_given, shard_given;
	unsigned int jobs;
	unsigned int shard, nshards;	/* --shard I/N: streams I + N j of N J */
	const char *corpus;
};

#define FUZZ_USAGE								\
	"fuzz --kernel V [--runs N | --time S] [--seed S] [--schedules K]\n"	\
	"                  [--misuse] [--out DIR] [--corpus DIR] [--jobs J] [--json]\n" \
	"                  [--max-steps N] [--corpus-max N] [--cross-runs N]"	\
	" [--shrink-runs N] [--cpus N]\n"					\
	"                  [--save-every N] [--shard I/N]"

static const char *const fuzz_valued[] = {
	"--kernel", "--runs", "--time", "--seed", "--jobs", "--out", "--corpus", "--schedules",
	"--max-steps", "--corpus-max", "--cross-runs", "--shrink-runs", "--cpus", "--save-every",
	"--shard", NULL,
};

static int parse_opts(int argc, char **argv, struct fuzz_opts *o)
{
	memset(o, 0, sizeof(*o));
	fz_opts_default(&o->fz);
	o->fz.programs = 1000;
	o->jobs = 1;
	o->nshards = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		uint64_t n;

		if (cmd_option_value("fuzz", argc, argv, i, fuzz_valued, &v))
			return 2;
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
			if (!cmd_parse_seconds(v, &o->fz.time_s))
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
		} else if (!strcmp(a, "--shard")) {
			if (!jobs_parse_shard(v, &o->shard, &o->nshards))
				return cmd_usage_error("fuzz", "--shard wants I/N with 0 <= I < N, not '%s'", v);
			o->shard_given = true;
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
		} else {
			return cmd_other_arg("fuzz", a, NULL, "takes no file: it writes its own programs",
					     FUZZ_USAGE);
		}
		i++;
	}
	if (!o->kernel_given)
		return cmd_usage_error("fuzz", "%s", "needs --kernel V: the variant to fuzz");
	if (o->time_given && !o->runs_given)
		o->fz.programs = 0;	/* --time alone: as many programs as fit */
	if (o->shard_given && !o->fz.out_dir)
		return cmd_usage_error("fuzz", "%s", "--shard writes its result to --out DIR (kwsim merge reads "
				   "it): give --out");
	/* a stream's index is 16 bits of its programs' seeds */
	if ((uint64_t)o->nshards * o->jobs > 65536)
		return cmd_usage_error("fuzz", "%s", "--shard N times --jobs J is more than 65,536 streams");
	o->fz.corpus_dir = o->corpus;
	return 0;
}

/* --- the progress line: on a terminal only ------------------------------------------------------- */

static void progress_line(struct cmd_progress *p, const struct fz_stats *s, bool final)
{
	double e, dt;

	if (!cmd_progress_due(p, final, &e))
		return;
	dt = e > 0 ? e : 1;
	fprintf(stderr, "\r\033[Kfuzz: %" PRIu64 " programs, %" PRIu64 " schedules, %.0f programs/s, "
		"%.0f schedules/s, corpus %zu, coverage %zu, findings %zu+%zu misuse, %.0f s",
		s->programs, s->runs, s->programs / dt, s->runs / dt, s->corpus, s->features,
		s->findings, s->misuse_findings, e);
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
	struct cmd_progress prog = { host_seconds(CLOCK_MONOTONIC), 0 };
	struct sigaction old;
	struct fz_corpus c = { 0 };
	struct fz_result r;
	double t0 = host_seconds(CLOCK_MONOTONIC);
	int rc;

	cmd_catch_sigint(&old);
	if ((o->fz.out_dir && make_dir(o->fz.out_dir)) ||
	    (o->corpus && fz_corpus_load(o->corpus, &c, o->fz.corpus_max, stderr))) {
		sigaction(SIGINT, &old, NULL);
		fz_corpus_free(&c);
		return 2;
	}
	if (cmd_campaign_hooks("KWSIM_FUZZ_SIGINT_AFTER", &o->fz.stop, &o->fz.raise_sigint_at)) {
		o->fz.progress = on_progress;
		o->fz.progress_arg = &prog;
	}
	memset(&r, 0, sizeof(r));
	if (o->jobs > 1 || o->shard_given)
		rc = run_jobs(o, &c, &r);
	else
		rc = fz_run(&o->fz, &c, &r, stderr);
	sigaction(SIGINT, &old, NULL);
	/* a shard's streams keep theirs in DIR/stream-S: kwsim merge --corpus writes the campaign's */
	if (!rc && o->corpus && !o->shard_given)
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

/* --- --jobs and --shard: streams as child processes, multiplexed with libevent ---------------- */

/* A stream's part, as its child sent it (--jobs: tools/lib/jobs.h runs them). */
struct job {
	bool ended;		/* it sent its "end" line */
	struct fz_stats progress;
	struct fz_result r;	/* what it sent */
	unsigned int stream;	/* its stream of the campaign's */
	char out[4096], corpus[4200];	/* its findings' files and its corpus, or "" */
};

struct jobs {
	struct fuzz_opts *o;
	const struct fz_corpus *c0;	/* the --corpus every job starts from */
	struct job *c;
	unsigned int n;
	struct cmd_progress prog;
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

static void child_line(void *arg, unsigned int i, char *line)
{
	struct jobs *j = arg;
	struct job *c = &j->c[i];
	char *p = line;

	if (!strncmp(line, "progress\t", 9)) {
		(void)fz_get_str(&p);
		c->progress.programs = fz_get_u64(&p);
		c->progress.runs = fz_get_u64(&p);
		c->progress.corpus = (size_t)fz_get_u64(&p);
		c->progress.features = (size_t)fz_get_u64(&p);
		c->progress.findings = (size_t)fz_get_u64(&p);
		c->progress.misuse_findings = (size_t)fz_get_u64(&p);
		jobs_progress(j, false);
	} else if (fz_result_line(&c->r, line) == 1) {
		c->ended = true;
	}
}

/* Child i: its stream of the campaign, its result to out. */
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

	fo.job = me->stream;
	fo.njobs = o->nshards * o->jobs;
	fo.out_dir = o->fz.out_dir ? me->out : NULL;
	fo.corpus_dir = me->corpus[0] ? me->corpus : NULL;	/* its save points */
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
	if (!rc && me->corpus[0])
		rc = fz_corpus_save(me->corpus, &c, stderr);
	if (!rc)
		fz_result_write(out, &r);
	fz_result_free(&r);
	fz_corpus_free(&c);
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

/* The starting corpus's name: FNV-1a 64 over its programs' keys, in load order. */
static uint64_t corpus_hash(const struct fz_corpus *c)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < c->n; i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ ((c->e[i].key >> b) & 0xff)) * 0x100000001b3ULL;
	return h;
}

/*
 * A shard's DIR/result.txt: the campaign's settings (each a field; merge
 * takes only shards of one campaign), the shard, and each stream's result
 * as its child sent it, its files in DIR/stream-S, its corpus in
 * DIR/stream-S/corpus.
 */
#define SHARD_MAGIC "kwsim-fuzz-result\t1"
static const char *const setting_name[] = {
	"--kernel", "--seed", "--runs", "--time", "--schedules", "--max-steps", "--misuse",
	"--cpus", "--corpus-max", "--shrink-runs", "--cross-runs", "--corpus (the starting "
	"corpus's programs)", "--corpus (the starting corpus's size)", "the number of streams "
	"(--shard N times --jobs J)",
};
#define NSETTINGS (sizeof(setting_name) / sizeof(setting_name[0]))

static void campaign_line(FILE *out, const struct fuzz_opts *o, const struct fz_corpus *c0)
{
	fputs("campaign", out);
	fz_put_str(out, o->fz.kernel);
	fprintf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%.17g\t%u\t%" PRIu64 "\t%d\t%u\t%zu\t%" PRIu64 "\t%"
		PRIu64 "\t%016" PRIx64 "\t%zu\t%u\n", o->fz.seed, o->fz.programs, o->fz.time_s,
		o->fz.schedules, o->fz.max_steps, o->fz.misuse, o->fz.max_cpus, o->fz.corpus_max,
		o->fz.shrink_runs, o->fz.cross_runs, corpus_hash(c0), c0->n, o->nshards * o->jobs);
}

static int write_shard(const struct jobs *j)
{
	const struct fuzz_opts *o = j->o;
	char path[4200];
	struct outfile of;
	FILE *f;

	snprintf(path, sizeof(path), "%s/result.txt", o->fz.out_dir);
	f = outfile_open(&of, path);
	if (f) {
		fprintf(f, "%s\n", SHARD_MAGIC);
		campaign_line(f, o, j->c0);
		fprintf(f, "shard\t%u\t%u\t%u\t%" PRIu64 "\n", o->shard, o->nshards, o->jobs,
			o->fz.save_every);
		for (unsigned int i = 0; i < j->n; i++) {
			fprintf(f, "stream\t%u\n", j->c[i].stream);
			fz_result_write(f, &j->c[i].r);
		}
	}
	if (!f || outfile_close(&of, !ferror(f))) {
		fprintf(stderr, "kwsim fuzz: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

/* The campaign's head of a result: what fz_print's first line says. */
static void result_head(struct fz_result *r, const struct fz_opts *fz, uint64_t streams)
{
	r->kernel = strdup(fz->kernel);
	if (!r->kernel)
		abort();
	r->seed = fz->seed;
	r->programs_asked = fz->programs * streams;
	r->schedules = fz->schedules;
	r->misuse = fz->misuse;
}

/* The jobs' results as one (tools/fuzz/campaign_merge.c). */
static int merge(struct jobs *j, struct fuzz_opts *o, struct fz_corpus *c, struct fz_result *r)
{
	struct fz_part *p = calloc(j->n, sizeof(*p));
	char (*dir)[32] = calloc(j->n, sizeof(*dir));
	int rc;

	if (!p || !dir)
		abort();
	result_head(r, &o->fz, j->n);
	for (unsigned int i = 0; i < j->n; i++) {
		p[i].r = j->c[i].r;
		memset(&j->c[i].r, 0, sizeof(j->c[i].r));
		/* a shard's files stay in DIR/stream-S: the summary names them there */
		snprintf(dir[i], sizeof(dir[i]), "stream-%u", j->c[i].stream);
		p[i].dir = o->shard_given ? dir[i] : j->c[i].out;
		p[i].corpus = j->c[i].corpus[0] ? j->c[i].corpus : NULL;
	}
	rc = fz_merge(p, j->n, o->shard_given ? NULL : o->fz.out_dir,
		      o->corpus && !o->shard_given ? c : NULL, o->fz.corpus_max, r, "fuzz", stderr);
	for (unsigned int i = 0; i < j->n; i++)
		fz_result_free(&p[i].r);
	free(p);
	free(dir);
	return rc;
}

/* Job i's stream and directories: --jobs, DIR/.job-I (gone at the end); --shard, DIR/stream-S. */
static int job_dirs(struct fuzz_opts *o, struct job *cj, unsigned int i)
{
	int rc = 0;

	cj->stream = o->shard + o->nshards * i;
	if (o->shard_given) {
		snprintf(cj->out, sizeof(cj->out), "%s/stream-%u", o->fz.out_dir, cj->stream);
		snprintf(cj->corpus, sizeof(cj->corpus), "%s/corpus", cj->out);
		return make_dir(cj->out);
	}
	if (o->fz.out_dir) {
		snprintf(cj->out, sizeof(cj->out), "%s/.job-%u", o->fz.out_dir, i);
		rc = make_dir(cj->out);
	}
	if (o->corpus && !rc) {
		rc = make_dir(o->corpus);
		snprintf(cj->corpus, sizeof(cj->corpus), "%s/.job-%u", o->corpus, i);
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
	for (unsigned int i = 0; i < j.n && !rc; i++)
		rc = job_dirs(o, &j.c[i], i);
	b = (struct jobs_batch){ .n = j.n, .status = status,
		.ops = { .child = child_main, .line = child_line, .arg = &j, .on_sigint = cmd_on_sigint } };
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
	if (!rc && o->shard_given && !(rc = write_shard(&j))) {
		fprintf(stderr, "kwsim fuzz: shard %u/%u, stream%s", o->shard, o->nshards,
			j.n > 1 ? "s" : "");
		for (unsigned int i = 0; i < j.n; i++)
			fprintf(stderr, "%s %u", i ? "," : "", j.c[i].stream);
		fprintf(stderr, " of %u, in %s/result.txt (kwsim merge takes the shards' --out "
			"DIRs)\n", o->nshards * o->jobs, o->fz.out_dir);
	}
	if (!rc)
		rc = merge(&j, o, c, r);
	if (!rc && (cmd_stop || b.interrupted) && r->st.programs < r->programs_asked)
		r->stopped = true;
	for (unsigned int i = 0; i < j.n; i++) {
		fz_result_free(&j.c[i].r);
		if (o->shard_given)
			continue;
		if (j.c[i].out[0])
			remove_dir(j.c[i].out);
		if (j.c[i].corpus[0])
			remove_dir(j.c[i].corpus);
	}
	free(status);
	free(j.c);
	return rc;
}

/* --- kwsim merge of fuzz shards ------------------------------------------------------------------ */

bool kwsim_fuzz_shard_dir(const char *dir)
{
	char path[4200], line[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/result.txt", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return !strncmp(line, "kwsim-fuzz-result\t", 18);
}

struct shard_in {
	char *campaign;		/* the campaign line, as written */
	unsigned int shard, nshards, jobs;
	struct fz_opts fz;	/* its settings, from the campaign line */
	uint64_t streams;
};

/* The campaign line's settings into s->fz (the strings in s->campaign's copy). */
static bool read_campaign(struct shard_in *s, char *line)
{
	char *p = line, *f[NSETTINGS + 1], *end;
	size_t n = 0;

	while (p && n < NSETTINGS + 1)
		f[n++] = fz_get_str(&p);
	if (n != NSETTINGS + 1 || p || !f[1] || strcmp(f[0], "campaign") || !kw_model_find(f[1]))
		return false;
	s->fz.kernel = kw_model_find(f[1])->name;
	s->fz.seed = strtoull(f[2], NULL, 10);
	s->fz.programs = strtoull(f[3], NULL, 10);
	s->fz.time_s = strtod(f[4], &end);
	s->fz.schedules = (unsigned int)strtoul(f[5], NULL, 10);
	s->fz.max_steps = strtoull(f[6], NULL, 10);
	s->fz.misuse = atoi(f[7]) != 0;
	s->fz.max_cpus = (unsigned int)strtoul(f[8], NULL, 10);
	s->fz.corpus_max = (size_t)strtoull(f[9], NULL, 10);
	s->streams = strtoull(f[NSETTINGS], NULL, 10);
	return s->fz.corpus_max && s->streams;
}

/* The first setting two campaign lines differ in, or NULL. */
static const char *differs(const char *a, const char *b)
{
	size_t k = 0;

	for (; *a && *a == *b; a++, b++)
		k += *a == '\t';
	if (!*a && !*b)
		return NULL;
	return k >= 1 && k <= NSETTINGS ? setting_name[k - 1] : "the campaign line";
}

/* DIR/result.txt into s and its streams into parts (at their stream index). */
static int read_shard(const char *dir, struct shard_in *s, const char *expect,
		      struct fz_part **parts, char ***dirs)
{
	const char *what;
	char path[4200], *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	struct fz_part *cur = NULL;
	FILE *f;
	int rc = 2;

	snprintf(path, sizeof(path), "%s/result.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kwsim merge: cannot read %s: %s\n", path, strerror(errno));
		return 2;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		unsigned int a, b, c;
		unsigned long long se;
		char tail;
		int k;

		lineno++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (lineno == 1) {
			if (strcmp(line, SHARD_MAGIC))
				goto bad;
		} else if (lineno == 2) {
			s->campaign = strdup(line);
			if (!s->campaign)
				abort();
			if (!read_campaign(s, line))
				goto bad;
			/* another campaign's shard is refused before its streams are taken */
			if (expect && (what = differs(expect, s->campaign))) {
				fprintf(stderr, "kwsim merge: %s: a shard of another campaign (%s "
					"differs): merge takes the shards of one campaign\n", dir, what);
				goto out;
			}
		} else if (lineno == 3) {
			if (sscanf(line, "shard\t%u\t%u\t%u\t%llu%c", &a, &b, &c, &se, &tail) != 4 ||
			    !b || a >= b || !c || (uint64_t)b * c != s->streams)
				goto bad;
			s->shard = a;
			s->nshards = b;
			s->jobs = c;
			if (!*parts) {
				*parts = calloc(s->streams, sizeof(**parts));
				*dirs = calloc(s->streams, sizeof(**dirs));
				if (!*parts || !*dirs)
					abort();
			}
		} else if (cur) {
			int k = fz_result_line(&cur->r, line);

			if (k < 0)
				goto bad;
			if (k == 1)
				cur = NULL;
		} else if (sscanf(line, "stream\t%u%c", &a, &tail) == 1 && *parts &&
			   a < s->streams && a % s->nshards == s->shard) {
			if ((*parts)[a].dir) {
				fprintf(stderr, "kwsim merge: %s: stream %u of %" PRIu64 " is there "
					"twice (shard %u/%u given twice?)\n", dir, a, s->streams,
					s->shard, s->nshards);
				goto out;
			}
			cur = &(*parts)[a];
			/* its files' directory, then its corpus's, in one block */
			(*dirs)[a] = malloc(2 * strlen(dir) + 64);
			if (!(*dirs)[a])
				abort();
			k = sprintf((*dirs)[a], "%s/stream-%u", dir, a);
			sprintf((*dirs)[a] + k + 1, "%s/stream-%u/corpus", dir, a);
			cur->dir = (*dirs)[a];
			cur->corpus = (*dirs)[a] + k + 1;
		} else {
			goto bad;
		}
	}
	if (lineno >= 3 && !cur) {
		rc = 0;
		goto out;
	}
bad:
	fprintf(stderr, "kwsim merge: %s: not a whole kwsim fuzz --shard result (line %zu)\n", path,
		lineno);
out:
	free(line);
	fclose(f);
	return rc;
}

struct merge_opts {
	bool json;
	const char *out, *corpus;
};

static int merge_args(int argc, char **argv, struct merge_opts *m, int *ndirs)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			m->json = true;
		} else if (!strcmp(a, "--out") || !strcmp(a, "--corpus")) {
			if (i + 1 >= argc)
				return cmd_usage_error("fuzz", "option %s needs a value", a);
			*(!strcmp(a, "--out") ? &m->out : &m->corpus) = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "kwsim merge: unknown option '%s' (try 'kwsim help')\n", a);
			return 2;
		} else {
			(*ndirs)++;
		}
	}
	if (!*ndirs) {
		fprintf(stderr, "kwsim merge: needs the --out DIR of each shard (try 'kwsim help')\n");
		return 2;
	}
	return 0;
}

/* The shards' streams as the campaign of them all: what --jobs of as many streams prints. */
static int merge_streams(struct merge_opts *m, const struct shard_in *first, struct fz_part *p,
			 struct fz_result *r)
{
	struct fz_corpus c = { 0 };
	struct fz_part *given = calloc(first->streams, sizeof(*given));
	unsigned int n = 0;
	int rc = 0;

	if (!given)
		abort();
	result_head(r, &first->fz, first->streams);
	for (uint64_t s = 0; s < first->streams; s++) {
		if (p[s].dir) {
			given[n++] = p[s];
			memset(&p[s].r, 0, sizeof(p[s].r));	/* moved */
		} else {
			r->stopped = true;
		}
	}
	if (n < first->streams)
		fprintf(stderr, "kwsim merge: %" PRIu64 " of the %" PRIu64 " streams are missing: the "
			"summary covers those given\n", first->streams - n, first->streams);
	if (m->out && mkdir(m->out, 0777) && errno != EEXIST) {
		fprintf(stderr, "kwsim merge: cannot make %s: %s\n", m->out, strerror(errno));
		rc = 2;
	}
	if (!rc)
		rc = fz_merge(given, n, m->out, m->corpus ? &c : NULL, first->fz.corpus_max, r,
			      "merge", stderr);
	if (!rc && m->corpus)
		rc = fz_corpus_save(m->corpus, &c, stderr);
	for (unsigned int i = 0; i < n; i++)
		fz_result_free(&given[i].r);
	free(given);
	fz_corpus_free(&c);
	return rc;
}

int kwsim_merge_fuzz(int argc, char **argv)
{
	struct merge_opts m = { 0 };
	struct shard_in first = { 0 };
	struct fz_part *parts = NULL;
	char **dirs = NULL;
	struct fz_result r = { 0 };
	int ndirs = 0, rc = merge_args(argc, argv, &m, &ndirs);
	bool have = false;

	for (int i = 1; i < argc && !rc; i++) {
		const char *d = argv[i];
		struct shard_in one = { 0 };

		if (!strcmp(d, "--out") || !strcmp(d, "--corpus")) {
			i++;
			continue;
		}
		if (d[0] == '-' && d[1])
			continue;
		rc = read_shard(d, have ? &one : &first, have ? first.campaign : NULL, &parts, &dirs);
		have = true;
		free(one.campaign);
	}
	if (!rc)
		rc = merge_streams(&m, &first, parts, &r);
	if (!rc) {
		if (m.json)
			fz_print_json(stdout, &r, m.out);
		else
			fz_print(stdout, &r, m.out);
		rc = fz_status(&r);
	}
	for (uint64_t s = 0; parts && s < first.streams; s++) {
		fz_result_free(&parts[s].r);
		free(dirs[s]);
	}
	free(parts);
	free(dirs);
	free(first.campaign);
	fz_result_free(&r);
	return rc;
}
