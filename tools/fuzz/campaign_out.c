/*
 * What a campaign says (the summary, its JSON; schema
 * tools/schema/kwsim-fuzz.schema.json) and keeps (--corpus DIR). The
 * summary is a function of the campaign's result: no wall time in it (the
 * command prints rates apart, on stderr).
 */
#include "campaign.h"
#include "campaign_impl.h"

#include "lib/json.h"
#include "lib/outfile.h"
#include "lib/util.h"

#include <sim/fnv.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fz_status(const struct fz_result *r)
{
	if (r->nf)
		return 1;
	return r->stopped ? 3 : 0;
}

static void rules_line(FILE *out, uint64_t rules)
{
	bool first = true;

	for (int i = 0; i < KP_RULE__COUNT; i++) {
		if (!(rules & (1ULL << i)))
			continue;
		fprintf(out, "%s%s", first ? "" : ", ", kp_rule_info((enum kp_rule)i)->id);
		first = false;
	}
}

static void print_section(FILE *out, const struct fz_result *r, bool misuse, const char *dir)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nf; i++)
		n += r->f[i].misuse == misuse;
	fprintf(out, "%s findings: %zu\n", misuse ? "misuse" : "implementation", n);
	for (size_t i = 0; i < r->nf; i++) {
		const struct fz_finding *f = &r->f[i];

		if (f->misuse != misuse)
			continue;
		fprintf(out, "  %03zu %s\n      %s\n", i + 1, f->id, f->what);
		if (misuse) {
			fprintf(out, "      breaks: ");
			rules_line(out, f->rules);
			fputc('\n', out);
		}
		fprintf(out, "      program %" PRIu64 " (after %" PRIu64 " schedules), seen in %" PRIu64
			" runs; shrunk %zu -> %zu statements", f->program, f->schedules, f->count,
			f->stmts_before, f->stmts_after);
		if (f->depth >= 0)
			fprintf(out, ", depth %d", f->depth);
		fputc('\n', out);
		if (f->file)
			fprintf(out, "      file: %s%s%s\n", dir ? dir : "", dir ? "/" : "", f->file);
		else if (dir)
			fprintf(out, "      file: none (it did not show again)\n");
		if (f->ncross) {
			fprintf(out, "      variants: %s yes", r->kernel);
			for (size_t k = 0; k < f->ncross; k++) {
				const struct fz_cross *c = &f->cross[k];

				if (c->error)
					fprintf(out, ", %s does not run it", c->kernel);
				else if (c->shown)
					fprintf(out, ", %s yes (run %" PRIu64 ")", c->kernel, c->runs);
				else
					fprintf(out, ", %s no (%" PRIu64 " runs)", c->kernel, c->runs);
			}
			fputc('\n', out);
		}
	}
}

void fz_print(FILE *out, const struct fz_result *r, const char *dir)
{
	const struct fz_stats *s = &r->st;

	fprintf(out, "kwsim fuzz: kernel %s, seed %" PRIu64 ", %u schedules per program%s\n",
		r->kernel, r->seed, r->schedules, r->misuse ? ", --misuse" : "");
	fprintf(out, "programs: %" PRIu64 " (generated %" PRIu64 ", mutated %" PRIu64 ", of them "
		"spliced %" PRIu64 "); runs: %" PRIu64 ", %" PRIu64 " cut short by the step limit\n",
		s->programs, s->generated, s->mutated, s->spliced, s->runs, s->cut_short);
	fprintf(out, "corpus: %zu programs; coverage: %zu features (%zu work-state tuples, %zu "
		"reads-from pairs)\n", s->corpus, s->features, s->tuples, s->rf_pairs);
	if (s->rejected)
		fprintf(out, "rejected: %" PRIu64 " (a generator's fault; the first: %s)\n",
			s->rejected, r->first_error);
	print_section(out, r, false, dir);
	print_section(out, r, true, dir);
	if (r->stopped)
		fprintf(out, "stopped after %" PRIu64 " of %" PRIu64 " programs\n", s->programs,
			r->programs_asked);
}

void fz_print_json(FILE *out, const struct fz_result *r, const char *dir)
{
	const struct fz_stats *s = &r->st;

	fprintf(out, "{\"kwsim_fuzz\": 1, \"kernel\": ");
	json_str(out, r->kernel);
	fprintf(out, ", \"seed\": %" PRIu64 ", \"programs_asked\": %" PRIu64 ", \"schedules\": %u, "
		"\"misuse\": %s, \"stopped\": %s,\n", r->seed, r->programs_asked, r->schedules,
		r->misuse ? "true" : "false", r->stopped ? "true" : "false");
	fprintf(out, " \"stats\": {\"programs\": %" PRIu64 ", \"generated\": %" PRIu64 ", "
		"\"mutated\": %" PRIu64 ", \"spliced\": %" PRIu64 ", \"runs\": %" PRIu64 ", "
		"\"cut_short\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"corpus\": %zu, "
		"\"features\": %zu, \"tuples\": %zu, \"rf_pairs\": %zu},\n", s->programs,
		s->generated, s->mutated, s->spliced, s->runs, s->cut_short, s->rejected, s->corpus,
		s->features, s->tuples, s->rf_pairs);
	fprintf(out, " \"findings\": [");
	for (size_t i = 0; i < r->nf; i++) {
		const struct fz_finding *f = &r->f[i];
		bool first = true;

		fprintf(out, "%s\n  {\"id\": ", i ? "," : "");
		json_str(out, f->id);
		fprintf(out, ", \"what\": ");
		json_str(out, f->what);
		fprintf(out, ", \"misuse\": %s, \"rules\": [", f->misuse ? "true" : "false");
		for (int k = 0; k < KP_RULE__COUNT; k++) {
			if (!(f->rules & (1ULL << k)))
				continue;
			fprintf(out, "%s", first ? "" : ", ");
			json_str(out, kp_rule_info((enum kp_rule)k)->id);
			first = false;
		}
		fprintf(out, "], \"program\": %" PRIu64 ", \"schedules\": %" PRIu64 ", \"count\": %"
			PRIu64 ", \"statements_before\": %zu, \"statements_after\": %zu, "
			"\"depth\": %d, \"file\": ", f->program, f->schedules, f->count,
			f->stmts_before, f->stmts_after, f->depth);
		if (f->file) {
			char path[4096];

			snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", f->file);
			json_str(out, path);
		} else {
			fprintf(out, "null");
		}
		fprintf(out, ", \"variants\": [");
		for (size_t k = 0; k < f->ncross; k++) {
			fprintf(out, "%s{\"kernel\": ", k ? ", " : "");
			json_str(out, f->cross[k].kernel);
			fprintf(out, ", \"shown\": %s, \"runs\": %" PRIu64 ", \"runs_there\": %s}",
				f->cross[k].shown ? "true" : "false", f->cross[k].runs,
				f->cross[k].error ? "false" : "true");
		}
		fprintf(out, "]}");
	}
	fprintf(out, "%s],\n \"status\": %d}\n", r->nf ? "\n " : "", fz_status(r));
}

/* --- --corpus DIR -------------------------------------------------------------------------------- */

static bool is_entry(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, ".kwp") && name[0] != '.';
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir that keep() accepts, sorted (a new array of malloc'd names). */
static char **names_in(const char *dir, bool (*keep)(const char *name), size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	while (d && (e = readdir(d))) {
		if (!keep(e->d_name))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				abort();
		}
		v[(*n)++] = fz_strdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Path's program in p: 0, or -1 with why (the file cannot be read, or is not one). */
static int load_entry_file(const char *path, struct kp *p, char *why, size_t len)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	why[0] = '\0';
	rc = kp_load(f, p, why, len);
	fclose(f);
	if (rc && !why[0])
		snprintf(why, len, "not a corpus entry");
	return rc;
}

/* Has c the program of key? (A corpus and a job's leftover may hold the same.) */
static bool has_key(const struct fz_corpus *c, uint64_t key)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].key == key)
			return true;
	return false;
}

/* The entries of dir into c, up to max; a damaged one is reported and skipped. */
static void load_dir(const char *dir, struct fz_corpus *c, size_t max, FILE *err)
{
	size_t n;
	char **names = names_in(dir, is_entry, &n);

	for (size_t i = 0; i < n && c->n < max; i++) {
		char path[4096], why[256];
		struct kp p;
		uint64_t key;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (load_entry_file(path, &p, why, sizeof(why))) {
			fprintf(err, "kwsim fuzz: %s: %s: skipped (the file is left as it is)\n",
				path, why);
			continue;
		}
		key = fz_prog_key(&p);
		if (has_key(c, key))
			continue;
		if (c->n == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 64;
			c->e = realloc(c->e, c->cap * sizeof(*c->e));
			if (!c->e)
				abort();
		}
		memset(&c->e[c->n], 0, sizeof(c->e[0]));
		c->e[c->n].key = key;
		c->e[c->n++].p = p;
	}
	free_names(names, n);
}

/* DIR/.job-N: a --jobs child's corpus, left behind when its campaign was killed. */
static bool is_job_dir(const char *name)
{
	return !strncmp(name, ".job-", 5) && name[5] && strspn(name + 5, "0123456789") ==
							     strlen(name + 5);
}

int fz_corpus_load(const char *dir, struct fz_corpus *c, size_t max, FILE *err)
{
	struct stat st;
	size_t nj;
	char **jobs;

	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;	/* a corpus to be: made when saved */
		fprintf(err, "kwsim fuzz: --corpus %s: %s\n", dir, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(err, "kwsim fuzz: --corpus %s: not a directory\n", dir);
		return 2;
	}
	load_dir(dir, c, max, err);
	/* what --jobs children saved before their campaign was killed */
	jobs = names_in(dir, is_job_dir, &nj);
	for (size_t i = 0; i < nj; i++) {
		char path[4096];
		size_t before = c->n;

		snprintf(path, sizeof(path), "%s/%s", dir, jobs[i]);
		load_dir(path, c, max, err);
		if (c->n > before)
			fprintf(err, "kwsim fuzz: %s: %zu entries a --jobs campaign saved and did "
				"not merge, taken\n", path, c->n - before);
	}
	free_names(jobs, nj);
	return 0;
}

uint64_t fz_prog_key(const struct kp *p)
{
	char *text;
	size_t len;
	FILE *m = memstream_open(&text, &len);
	uint64_t h;

	kp_save(m, p);
	fclose(m);
	h = sim_fnv(SIM_FNV_OFFSET, text, len);
	free(text);
	return h;
}

static char *entry_name(const struct kp *p)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "prog-%016" PRIx64 ".kwp", fz_prog_key(p));
	return fz_strdup(buf);
}

/*
 * dir's *.kwp that are not in keep: programs the corpus evicted since, gone
 * from dir. A file that is not a program (damaged: skipped when loaded) is
 * not kwsim's to judge: it stays for its owner to look at.
 */
static void drop_evicted(const char *dir, char **keep, size_t nkeep)
{
	size_t n;
	char **old = names_in(dir, is_entry, &n);

	for (size_t i = 0; i < n; i++) {
		char path[4096], why[256];
		bool kept = false;
		struct kp p;

		for (size_t k = 0; k < nkeep && !kept; k++)
			kept = keep[k] && !strcmp(keep[k], old[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, old[i]);
		if (!kept && !load_entry_file(path, &p, why, sizeof(why)))
			unlink(path);
	}
	free_names(old, n);
}

int fz_corpus_save(const char *dir, const struct fz_corpus *c, FILE *err)
{
	char **keep = calloc(c->n + 1, sizeof(*keep)), **jobs;
	size_t nj;
	int rc = 0;

	if (!keep)
		abort();
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(err, "kwsim fuzz: cannot make %s: %s\n", dir, strerror(errno));
		free(keep);
		return 2;
	}
	/* each entry beside and renamed, after an fsync: a kill or a full disk leaves whole files */
	for (size_t i = 0; i < c->n && !rc; i++) {
		char path[4096];
		struct outfile out;
		FILE *f;

		keep[i] = entry_name(&c->e[i].p);
		snprintf(path, sizeof(path), "%s/%s", dir, keep[i]);
		f = outfile_open(&out, path);
		if (!f || outfile_close(&out, !kp_save(f, &c->e[i].p))) {
			fprintf(err, "kwsim fuzz: cannot write %s: %s\n", path, strerror(errno));
			rc = 2;
		}
	}
	if (!rc) {
		drop_evicted(dir, keep, c->n);
		/* a killed --jobs campaign's leftovers were loaded with the corpus: saved now */
		jobs = names_in(dir, is_job_dir, &nj);
		for (size_t i = 0; i < nj; i++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", dir, jobs[i]);
			drop_evicted(path, NULL, 0);
			rmdir(path);	/* only if empty: a damaged file keeps it */
		}
		free_names(jobs, nj);
	}
	free_names(keep, c->n);
	return rc;
}

/* --corpus DIR's save point: every save_every programs (campaign.h). */
int fz_corpus_checkpoint(const struct fz_opts *o, const struct fz_corpus *c, uint64_t programs,
			 FILE *err)
{
	int rc;

	if (!o->corpus_dir || !o->save_every || !programs || programs % o->save_every)
		return 0;
	rc = fz_corpus_save(o->corpus_dir, c, err);
	if (!rc)
		fprintf(err, "kwsim fuzz: saved %zu corpus entries to %s after %" PRIu64
			" programs\n", c->n, o->corpus_dir, programs);
	return rc;
}
