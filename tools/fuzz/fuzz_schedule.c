/*
 * libFuzzer target: the decision stream. The race scenarios of
 * scenarios/races are parsed once; an input's first byte picks one, and the
 * rest answer the machine's choices in order (struct sim_config's chooser):
 * byte % n (a time range of more than 256 values: two bytes, little-endian),
 * 0 (the faithful answer) once the input runs out. So libFuzzer
 * searches schedules directly, kept by the coverage they reach.
 *
 * What a run finds is the simulated kernel's, not a crash: set
 * KWSIM_FUZZ_ABORT_ON (fuzz.h) to make a finding one, e.g.
 * KWSIM_FUZZ_ABORT_ON=warn to hunt the schedule of a WARN. A run also
 * fails when the scenario's condition does not hold and
 * KWSIM_FUZZ_ABORT_ON names "condition".
 *
 * Environment: KWSIM_FUZZ_SCENARIOS=DIR reads the races from DIR
 * (default: the source tree's scenarios/races); KWSIM_FUZZ_WRITE_SEEDS=DIR
 * writes a seed per race (its index, then the decisions of its schedule
 * section, if it has one) and exits.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#include "scenario/scn.h"

#define MAX_RACES 255	/* picked by one byte */

static struct race {
	struct scn *s;
	const struct kw_model *m;
} races[MAX_RACES];
static size_t nraces;
static bool abort_on_condition;

static struct scn_run run;

struct stream {
	const uint8_t *d;
	size_t n, at;
};

static unsigned int answer(void *ctx, const struct sim_question *q)
{
	struct stream *st = ctx;
	unsigned int v;

	if (st->at >= st->n)
		return 0;
	v = st->d[st->at++];
	/* a time range's up to 65,535 values: two bytes, so all of them are reachable */
	if (q->why == SIM_WHY_RANGE && q->n > 256 && st->at < st->n)
		v |= (unsigned int)st->d[st->at++] << 8;
	return v % q->n;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .kws files of dir, sorted: a byte picks the same race on every machine. */
static void load(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char *names[MAX_RACES];
	size_t n = 0;

	if (!dp) {
		fprintf(stderr, "kwsim fuzz: %s: %s\n", dir, strerror(errno));
		exit(2);
	}
	while ((e = readdir(dp)) && n < MAX_RACES) {
		size_t len = strlen(e->d_name);

		if (len > 4 && !strcmp(e->d_name + len - 4, ".kws")) {
			names[n] = malloc(strlen(dir) + len + 2);
			if (!names[n])
				abort();
			sprintf(names[n], "%s/%s", dir, e->d_name);
			n++;
		}
	}
	closedir(dp);
	qsort(names, n, sizeof(names[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		struct scn *s = scn_load(names[i], stderr);

		if (!s)
			exit(2);	/* the library must parse: its own tests say so */
		races[nraces].s = s;
		races[nraces].m = kw_model_find(s->kernel);
		if (!races[nraces].m) {
			fprintf(stderr, "kwsim fuzz: %s: kernel %s is not built in\n", names[i],
				s->kernel);
			exit(2);
		}
		fuzz_bound(&s->cfg);
		s->cfg.drop_decisions = true;
		nraces++;
		free(names[i]);
	}
	if (!nraces) {
		fprintf(stderr, "kwsim fuzz: no .kws file in %s\n", dir);
		exit(2);
	}
}

static void write_seeds(const char *dir)
{
	for (size_t i = 0; i < nraces; i++) {
		const struct scn *s = races[i].s;
		const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
		char path[4096];
		FILE *f;

		/* race-NN-NAME: its index (the first byte), then the file's name */
		snprintf(path, sizeof(path), "%s/race-%02zu-%.*s", dir, i,
			 (int)(strlen(base) - 4), base);
		f = fopen(path, "wb");
		if (!f) {
			perror(path);
			exit(2);
		}
		fputc((int)i, f);
		for (size_t k = 0; k < s->nlog; k++)
			fputc(s->log[k].pick, f);
		if (fclose(f)) {
			perror(path);
			exit(2);
		}
	}
}

static void at_exit(void)
{
	sim_fini();
	scn_run_free(&run);
	for (size_t i = 0; i < nraces; i++)
		scn_free(races[i].s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("KWSIM_FUZZ_SCENARIOS");
	const char *seeds = getenv("KWSIM_FUZZ_WRITE_SEEDS");

	abort_on_condition = fuzz_init("condition");
	load(dir ? dir : KWSIM_RACES);
	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	atexit(at_exit);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream st = { data + 1, size ? size - 1 : 0, 0 };
	const struct race *r;
	struct sim_config cfg;

	if (!size)
		return 0;
	r = &races[data[0] % nraces];
	cfg = r->s->cfg;
	cfg.chooser = answer;
	cfg.chooser_ctx = &st;
	run.config = &cfg;
	if (scn_run(r->s, r->m, &run, fuzz_devnull())) {
		fprintf(stderr, "kwsim fuzz: %s: the run could not start\n", r->s->path);
		abort();
	}
	fuzz_check(run.findings, run.nfindings);
	if (abort_on_condition && r->s->quant != Q_NONE && !scn_expectations_hold(r->s, &run)) {
		fprintf(stderr, "kwsim fuzz: %s: the condition does not hold\n", r->s->path);
		abort();
	}
	return 0;
}
