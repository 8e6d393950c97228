/*
 * kwsim explore and kwsim merge: race exploration of a scenario, in process.
 *
 *   kwsim explore FILE [--strategy random|pct|pos|dfs|portfolio|rff|tpct|delay|pair]
 *                      [--runs N | --time S]
 *                      [--seed S] [--depth D] [--preemptions K] [--kernel V[,V...]|all]
 *                      [--jobs J] [--shard I/N] [--out DIR] [--stop-on-first] [--json]
 *                      [--set NAME=VALUE]...
 *   kwsim explore FILE --token TOKEN [--save-schedule OUT] [--set NAME=VALUE]...
 *   kwsim merge DIR... [--json]
 *
 * The campaign engine is tools/explore/explore.c, its result and summary
 * tools/explore/result.c. Here: the options, the progress line, SIGINT,
 * replay tokens, --jobs (child processes whose pipes and signals the parent
 * multiplexes with libevent) and merge.
 *
 * Exit status (docs/commands.md "Exit codes", 'kwsim help'):
 *   0  nothing found: every run asked was done and none showed a finding
 *      (nor what the condition asks about)
 *   1  findings
 *   2  bad input or usage, or output that could not be written
 *   3  stopped (SIGINT, --time) before the runs asked were done, nothing
 *      found in the runs that were; merge: shards missing
 *   4  --jobs: a job died (killed, crashed) or sent no whole result: the summary
 *      and --out cover the other jobs' runs (with their findings), stderr
 *      says which job and which shard of the runs is missing
 * With --token the status is kwsim run's for that run.
 */
#include "cmd/cmd_explore.h"
#include "lib/util.h"
#include "cmd/cmd_fuzz.h"
#include "cmd/cmd_run.h"
#include "explore/explore.h"
#include "lib/outfile.h"
#include "explore/finding.h"
#include "lib/jobs.h"
#include "scenario/scn.h"

#include <model.h>

#include <dirent.h>
#include <errno.h>
#include <event2/buffer.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS 256

struct explore_opts {
	const char *file;
	struct xc_opts xc;
	bool runs_given, time_given, json;
	unsigned int jobs;
	bool shard_given;
	const char *token, *save;
	const char **kernels;
	size_t nkernels;
	char *kernel_list;	/* --kernel's value, split in place */
	struct scn_set *sets;
	size_t nsets;
	char *sets_text;	/* the --set values, for the scenario's hash */
};

static void free_opts(struct explore_opts *o)
{
	free(o->kernels);
	free(o->kernel_list);
	free(o->sets);
	free(o->sets_text);
}

/* --kernel V[,V...] or all: every variant once, in the order given (all: ours, then trees). */
static int parse_kernels(struct explore_opts *o, const char *v)
{
	size_t cap = kw_model_count() + kw_tree_count() + 1;

	free(o->kernels);
	free(o->kernel_list);
	o->nkernels = 0;
	o->kernel_list = strdup(v);
	if (!o->kernel_list)
		abort();
	if (!strcmp(v, "all")) {
		o->kernels = calloc(cap, sizeof(*o->kernels));
		if (!o->kernels)
			abort();
		for (size_t i = 0; i < kw_model_count(); i++)
			o->kernels[o->nkernels++] = kw_model_get(i)->name;
		for (size_t i = 0; i < kw_tree_count(); i++)
			o->kernels[o->nkernels++] = kw_tree_get(i)->name;
		return 0;
	}
	cap = strlen(v) + 1;
	o->kernels = calloc(cap, sizeof(*o->kernels));
	if (!o->kernels)
		abort();
	for (char *save = NULL, *k = strtok_r(o->kernel_list, ",", &save); k;
	     k = strtok_r(NULL, ",", &save)) {
		const struct kw_model *m = kw_model_find(k);

		if (!m)
			return cmd_usage_error("explore", "--kernel: no variant '%s': this kwsim has %s "
					   "(or all; tree:DIR names a tree by its directory)", k,
					   scn_kernels_built());
		for (size_t i = 0; i < o->nkernels; i++)
			if (!strcmp(o->kernels[i], m->name))
				return cmd_usage_error("explore", "--kernel names '%s' twice", m->name);
		o->kernels[o->nkernels++] = m->name;
	}
	if (!o->nkernels)
		return cmd_usage_error("explore", "--kernel wants a variant, not '%s'", v);
	return 0;
}

static void add_set(struct explore_opts *o, const char *v)
{
	size_t len = o->sets_text ? strlen(o->sets_text) : 0;

	o->sets[o->nsets].arg = v;
	o->sets[o->nsets++].said = v;
	o->sets_text = realloc(o->sets_text, len + strlen(v) + 2);
	if (!o->sets_text)
		abort();
	sprintf(o->sets_text + len, "%s\n", v);
}

static const char *const explore_valued[] = {
	"--strategy", "--runs", "--time", "--seed", "--depth", "--preemptions", "--kernel",
	"--jobs", "--shard", "--out", "--token", "--save-schedule", "--set", NULL,
};

static int parse_opts(int argc, char **argv, struct explore_opts *o)
{
	const char *cmd = "explore";
	bool campaign_flag = false;

	memset(o, 0, sizeof(*o));
	o->xc.sp.kind = XS_DEFAULT;
	o->xc.sp.depth = 3;
	o->xc.sp.preemptions = 2;
	o->xc.runs = 10000;
	o->xc.nshards = 1;
	o->jobs = 1;
	o->sets = cmd_set_slots(argc, sizeof(*o->sets));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		uint64_t n;

		if (cmd_option_value(cmd, argc, argv, i, explore_valued, &v))
			return 2;
		if (v && cmd_takes_value(a, explore_valued) && strcmp(a, "--token") && strcmp(a, "--save-schedule") && strcmp(a, "--set"))
			campaign_flag = true;
		if (!strcmp(a, "--strategy")) {
			char names[256];

			if (!xs_kind_from_name(v, &o->xc.sp.kind))
				return cmd_usage_error(cmd, "--strategy must be %s, not '%s'",
						       xs_names(names, sizeof(names), ", ", " or "), v);
		} else if (!strcmp(a, "--runs")) {
			if (!cmd_parse_u64(v, &o->xc.runs) || !o->xc.runs)
				return cmd_usage_error(cmd, "--runs wants a positive number, not '%s'", v);
			o->runs_given = true;
		} else if (!strcmp(a, "--time")) {
			if (!cmd_parse_seconds(v, &o->xc.time_s))
				return cmd_usage_error(cmd, "--time wants a positive number of seconds, "
						   "not '%s'", v);
			o->time_given = true;
		} else if (!strcmp(a, "--seed")) {
			if (!cmd_parse_u64(v, &o->xc.sp.seed))
				return cmd_usage_error(cmd, "--seed wants a non-negative number, not '%s'", v);
		} else if (!strcmp(a, "--depth")) {
			if (!cmd_parse_u64(v, &n) || !n || n > 64)
				return cmd_usage_error(cmd, "--depth wants a bug depth of 1 to 64, not '%s'", v);
			o->xc.sp.depth = (unsigned int)n;
		} else if (!strcmp(a, "--preemptions")) {
			if (!cmd_parse_u64(v, &n) || n > 64)
				return cmd_usage_error(cmd, "--preemptions wants 0 to 64, not '%s'", v);
			o->xc.sp.preemptions = (unsigned int)n;
		} else if (!strcmp(a, "--kernel")) {
			if (parse_kernels(o, v))
				return 2;
		} else if (!strcmp(a, "--jobs")) {
			if (!cmd_parse_u64(v, &n) || !n || n > MAX_JOBS)
				return cmd_usage_error(cmd, "--jobs wants 1 to 256 processes, not '%s'", v);
			o->jobs = (unsigned int)n;
		} else if (!strcmp(a, "--shard")) {
			unsigned int si, sn;

			if (!jobs_parse_shard(v, &si, &sn))
				return cmd_usage_error(cmd, "--shard wants I/N with 0 <= I < N, not '%s'", v);
			o->xc.shard = si;
			o->xc.nshards = sn;
			o->shard_given = true;
		} else if (!strcmp(a, "--out")) {
			o->xc.out_dir = v;
		} else if (!strcmp(a, "--token")) {
			o->token = v;
		} else if (!strcmp(a, "--save-schedule")) {
			o->save = v;
		} else if (!strcmp(a, "--set")) {
			add_set(o, v);
		} else if (!strcmp(a, "--stop-on-first")) {
			o->xc.stop_on_first = true;
			campaign_flag = true;
			continue;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
			continue;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			/* the strategies' names come from their registry */
			fputs("usage: kwsim explore FILE [--strategy ", stdout);
			xs_print_names(stdout, "|", false, "]\n", 38, 34, 72);
			printf("                     [--runs N | --time S] [--seed S] [--depth D]"
			       " [--preemptions K]\n"
			       "                     [--kernel V[,V...]|all] [--jobs J] [--shard I/N]"
			       " [--out DIR]\n"
			       "                     [--stop-on-first] [--json] [--set NAME=VALUE]...\n"
			       "       kwsim explore FILE --token TOKEN [--save-schedule OUT]\n"
			       "(the options are explained by 'kwsim help')\n");
			return -1;
		} else {
			int rc = cmd_other_arg(cmd, a, &o->file, "scenario", NULL);

			if (rc)
				return rc;
			continue;
		}
		i++;
	}
	if (!o->file)
		return cmd_usage_error(cmd, "%s", "needs a scenario file");
	if (o->token && (campaign_flag || o->json))
		return cmd_usage_error(cmd, "%s", "--token replays one run: it takes only --save-schedule "
				   "and --set");
	if (o->save && !o->token)
		return cmd_usage_error(cmd, "%s", "--save-schedule writes a token's run: give --token "
				   "(--out DIR writes every finding's)");
	if (o->time_given && !o->runs_given)
		o->xc.runs = 0;	/* --time alone: as many runs as fit */
	if (o->shard_given && !xs_shardable(o->xc.sp.kind))
		return cmd_usage_error(cmd, "--shard: the %s strategy's runs depend on the runs before "
				   "them, so they cannot be split", xs_kind_name(o->xc.sp.kind));
	if (o->jobs > 1 && !xs_independent(o->xc.sp.kind))
		return cmd_usage_error(cmd, "--jobs: the %s strategy's runs depend on the runs before "
				   "them, so they cannot be split", xs_kind_name(o->xc.sp.kind));
	if ((uint64_t)o->xc.nshards * o->jobs > 1000000)
		return cmd_usage_error(cmd, "%s", "--shard N times --jobs J is more than 1,000,000 slices");
	return scn_set(NULL, cmd, o->sets, o->nsets, stderr);
}

/* --- the progress line: on a terminal only ----------------------------------------------------- */

static void progress_line(struct cmd_progress *p, uint64_t runs, size_t findings, size_t traces,
			  size_t tuples, bool final)
{
	double e;

	if (!cmd_progress_due(p, final, &e))
		return;
	fprintf(stderr, "\r\033[Kexplore: %" PRIu64 " runs, %.0f runs/s, %zu findings, coverage %zu "
		"traces %zu work states, %.1f s", runs, runs / (e > 0 ? e : 1), findings, traces, tuples, e);
}

static void totals(const struct xr *r, size_t *findings, size_t *traces, size_t *tuples)
{
	*findings = *traces = *tuples = 0;
	for (size_t i = 0; i < r->nv; i++) {
		*findings += r->v[i].nfindings;
		*traces += xset_count(&r->v[i].traces);
		*tuples += xset_count(&r->v[i].tuples);
	}
}

static void on_progress(void *arg, const struct xr *r, uint64_t runs, bool final)
{
	size_t f, t, u;

	totals(r, &f, &t, &u);
	progress_line(arg, runs, f, t, u, final);
}

/* --- one process ------------------------------------------------------------------------------ */

static struct scn *load(const struct explore_opts *o)
{
	struct scn *s = scn_load(o->file, stderr);

	if (s && scn_set(s, "explore", o->sets, o->nsets, stderr)) {
		scn_free(s);
		return NULL;
	}
	if (s)
		scn_stall_default(s);
	return s;
}

static void result_init(struct xr *r, const struct explore_opts *o, const struct scn *s)
{
	memset(r, 0, sizeof(*r));
	r->nv = o->nkernels ? o->nkernels : 1;
	r->v = calloc(r->nv, sizeof(*r->v));
	if (!r->v)
		abort();
	for (size_t i = 0; i < r->nv; i++) {
		const char *k = o->nkernels ? o->kernels[i] : kw_model_find(s->kernel)->name;

		r->v[i].kernel = strdup(k);
		if (!r->v[i].kernel)
			abort();
	}
}

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "kwsim explore: cannot make %s: %s\n", dir, strerror(errno));
		return 2;
	}
	return 0;
}

static int write_result(const char *dir, const struct xr *r)
{
	char path[4096];
	struct outfile out;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/result.txt", dir);
	f = outfile_open(&out, path);
	if (!f) {
		fprintf(stderr, "kwsim explore: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	rc = xr_write(f, r);
	if (outfile_close(&out, !rc) || rc) {
		fprintf(stderr, "kwsim explore: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	return 0;
}

static int summary(const struct explore_opts *o, const struct xr *r)
{
	if (o->json)
		xr_print_json(stdout, r);
	else
		xr_print(stdout, r);
	if (o->xc.out_dir && write_result(o->xc.out_dir, r))
		return 2;
	return xr_status(r);
}

static int run_jobs(struct explore_opts *o, const struct scn *s, struct xr *r,
		    unsigned int *died);

/* The status when --jobs lost died jobs: 4 unless the output could not be written (2). */
#define EXIT_JOB_DIED 4

static int explore_campaign(struct explore_opts *o)
{
	struct scn *s = load(o);
	struct cmd_progress prog = { host_seconds(CLOCK_MONOTONIC), 0 };
	struct sigaction old;
	struct xr r;
	unsigned int died = 0;
	int rc;

	if (!s)
		return 2;
	/* SIGINT is ours before DIR exists: a script may wait for DIR, then interrupt */
	cmd_catch_sigint(&old);
	if (o->xc.out_dir && make_dir(o->xc.out_dir)) {
		sigaction(SIGINT, &old, NULL);
		scn_free(s);
		return 2;
	}
	result_init(&r, o, s);
	o->xc.sets_text = o->sets_text;
	if (cmd_campaign_hooks("KWSIM_EXPLORE_SIGINT_AFTER", &o->xc.stop, &o->xc.raise_sigint_at)) {
		o->xc.progress = on_progress;
		o->xc.progress_arg = &prog;
	}
	if (o->jobs > 1)
		rc = run_jobs(o, s, &r, &died);
	else
		rc = xc_run(s, &o->xc, &r, stderr);
	sigaction(SIGINT, &old, NULL);
	if (!rc)
		rc = summary(o, &r);
	if (died && rc != 2)
		rc = EXIT_JOB_DIED;
	xr_free(&r);
	scn_free(s);
	return rc;
}

/* --- replay tokens ---------------------------------------------------------------------------- */

struct token {
	uint64_t hash, seed, run;
	char kernel[256], strategy[160];
	struct xs_params sp;
};

/* "hash:kernel:strategy:seed:run"; a kernel name may hold ':' (tree:6.12), the rest do not. */
static bool parse_token(const char *t, struct token *k)
{
	const char *c1 = strchr(t, ':'), *last = strrchr(t, ':'), *mid;
	char buf[32];

	memset(k, 0, sizeof(*k));
	if (!c1 || c1 - t != 16 || last == c1)
		return false;
	memcpy(buf, t, 16);
	buf[16] = '\0';
	for (int i = 0; i < 16; i++)
		if (!strchr("0123456789abcdef", buf[i]))
			return false;
	k->hash = strtoull(buf, NULL, 16);
	if (!cmd_parse_u64(last + 1, &k->run))
		return false;
	for (mid = last - 1; mid > c1 && *mid != ':'; mid--)
		;
	if (mid == c1 || (size_t)(last - mid - 1) >= sizeof(buf))
		return false;
	memcpy(buf, mid + 1, (size_t)(last - mid - 1));
	buf[last - mid - 1] = '\0';
	if (!cmd_parse_u64(buf, &k->seed))
		return false;
	for (last = mid, mid--; mid > c1 && *mid != ':'; mid--)
		;
	/* the strategy field holds no ':' itself, the kernel's name may */
	if (mid == c1 || (size_t)(last - mid - 1) >= sizeof(k->strategy) ||
	    (size_t)(mid - c1 - 1) >= sizeof(k->kernel) || mid - c1 - 1 == 0)
		return false;
	memcpy(k->strategy, mid + 1, (size_t)(last - mid - 1));
	memcpy(k->kernel, c1 + 1, (size_t)(mid - c1 - 1));
	k->sp.seed = k->seed;
	return xs_parse_name(k->strategy, &k->sp);
}

static int explore_token(struct explore_opts *o)
{
	struct token k;
	struct scn *s = NULL, *show = NULL;
	const struct kw_model *m;
	struct xs *x = NULL;
	struct scn_run run = { 0 };
	struct sim_config cfg;
	char name[160];
	int rc = 2;

	if (!parse_token(o->token, &k))
		return cmd_usage_error("explore", "--token wants HASH:KERNEL:STRATEGY:SEED:RUN as explore "
				   "prints it, not '%s'", o->token);
	m = kw_model_find(k.kernel);
	if (!m) {
		fprintf(stderr, "kwsim explore: --token: this kwsim has no kernel '%s'\n", k.kernel);
		return 2;
	}
	s = load(o);
	if (!s)
		return 2;
	if (xc_scenario_hash(s, o->sets_text) != k.hash) {
		fprintf(stderr, "kwsim explore: --token: the token is of another scenario (hash "
			"%016" PRIx64 "; %s with these --set is %016" PRIx64 ")\n", k.hash, s->path,
			xc_scenario_hash(s, o->sets_text));
		goto out;
	}
	if (xs_calibrate(&k.sp, s, m, &run, stderr))
		goto out;
	x = xs_new(&k.sp);
	if (!x) {
		fprintf(stderr, "kwsim explore: the %s strategy is not built into this kwsim\n",
			xs_kind_name(k.sp.kind));
		goto out;
	}
	/* dfs learns from the runs before: run the search up to the token's run */
	for (uint64_t r = 0; r <= k.run; r++) {
		if (r < k.run && xs_independent(k.sp.kind))
			continue;
		cfg = s->cfg;
		cfg.keep_trace = false;
		cfg.drop_decisions = false;
		if (!xs_begin(x, r, &cfg)) {
			fprintf(stderr, "kwsim explore: --token: the strategy has no run %" PRIu64
				" (its space was exhausted before)\n", k.run);
			goto out;
		}
		run.config = &cfg;
		if (scn_run(s, m, &run, stderr))
			goto out;
		xs_end(x, r, run.log, run.nlog);
	}
	if (strcmp(xs_token_name(x, k.run, name, sizeof(name)), k.strategy)) {
		fprintf(stderr, "kwsim explore: --token: run %" PRIu64 " is %s here, not %s: a token "
			"of another kwsim's strategies\n", k.run, name, k.strategy);
		goto out;
	}
	if (o->save) {
		struct outfile out;
		FILE *f = outfile_open(&out, o->save);
		char comment[800];

		snprintf(comment, sizeof(comment), "kwsim explore --token %s", o->token);
		if (!f || (scn_write_with_schedule(f, s, &run, comment), outfile_close(&out, true))) {
			fprintf(stderr, "kwsim explore: cannot write %s: %s\n", o->save, strerror(errno));
			goto out;
		}
	}
	/* what the run printed: kwsim replay of its decisions, as a replay file would run */
	show = load(o);
	if (!show)
		goto out;
	snprintf(show->kernel, sizeof(show->kernel), "%s", m->name);
	free(show->log);
	show->log = malloc((run.nlog + 1) * sizeof(*show->log));
	if (!show->log)
		abort();
	memcpy(show->log, run.log, run.nlog * sizeof(*show->log));
	show->nlog = run.nlog;
	show->has_schedule = true;
	show->log_strategy = false;
	show->replay = true;
	show->cfg.strategy = SIM_STRATEGY_REPLAY;
	sim_fini();
	rc = kwsim_run_scenario(show, NULL, stdout, NULL);
	show = NULL;
out:
	xs_free(x);
	sim_fini();
	scn_run_free(&run);
	scn_free(show);
	scn_free(s);
	return rc;
}

int kwsim_explore(int argc, char **argv)
{
	struct explore_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (!rc)
		rc = o.token ? explore_token(&o) : explore_campaign(&o);
	free_opts(&o);
	return rc < 0 ? 0 : rc;
}

/* --- merge -------------------------------------------------------------------------------------- */

static int read_result(const char *dir, struct xr *r)
{
	char path[4096], err[256];
	struct stat st;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/result.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kwsim merge: cannot read %s: %s\n", path, strerror(errno));
		return 2;
	}
	/* fopen() opens a directory; reading it fails (EISDIR), which would read as empty */
	if (!fstat(fileno(f), &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "kwsim merge: %s is %s, not a kwsim explore result file\n", path,
			S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		fclose(f);
		return 2;
	}
	rc = xr_read(f, r, err, sizeof(err));
	fclose(f);
	if (rc) {
		fprintf(stderr, "kwsim merge: %s: %s\n", path, err);
		return 2;
	}
	return 0;
}

int kwsim_merge(int argc, char **argv)
{
	struct xr all = { 0 }, one;
	bool json = false, *seen = NULL;
	unsigned int nshards = 0, have = 0;
	int ndirs = 0, rc = 0;
	char err[256];

	/* the shards of kwsim fuzz: their own merge (tools/cmd/cmd_fuzz.c), by the first's result */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--corpus")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-' || !argv[i][1]) {
			if (kwsim_fuzz_shard_dir(argv[i]))
				return kwsim_merge_fuzz(argc, argv);
			break;
		}
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: kwsim merge DIR... [--json] [--out DIR] [--corpus DIR]\n"
			       "(the options are explained by 'kwsim help')\n");
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1])
			return cmd_usage_error("merge", "unknown option '%s'", argv[i]);
		else
			ndirs++;
	}
	if (!ndirs)
		return cmd_usage_error("merge", "%s", "needs the --out DIR of each shard");
	for (int i = 1; i < argc && !rc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		if (read_result(argv[i], have ? &one : &all)) {
			rc = 2;
			break;
		}
		if (!have) {
			nshards = all.nshards;
			seen = calloc(nshards, sizeof(*seen));
			if (!seen)
				abort();
			one = all;
			one.shard = all.shard;
		} else if (one.nshards != nshards) {
			fprintf(stderr, "kwsim merge: %s: a shard of %u, not of %u\n", argv[i],
				one.nshards, nshards);
			rc = 2;
		} else if (xr_merge(&all, &one, err, sizeof(err))) {
			fprintf(stderr, "kwsim merge: %s: %s\n", argv[i], err);
			rc = 2;
		}
		if (!rc && seen[one.shard]) {
			fprintf(stderr, "kwsim merge: %s: shard %u/%u is there twice\n", argv[i],
				one.shard, nshards);
			rc = 2;
		}
		if (!rc)
			seen[one.shard] = true;
		if (have)
			xr_free(&one);
		have++;
	}
	if (!rc) {
		unsigned int missing = 0;

		for (unsigned int i = 0; i < nshards; i++)
			missing += !seen[i];
		if (!missing) {
			all.shard = 0;
			all.nshards = 1;
		} else {
			fprintf(stderr, "kwsim merge: %u of the %u shards are missing: the summary "
				"covers the runs of those given\n", missing, nshards);
			all.stopped = true;
			all.complete = false;
		}
		if (json)
			xr_print_json(stdout, &all);
		else
			xr_print(stdout, &all);
		rc = xr_status(&all);
	}
	free(seen);
	if (have)
		xr_free(&all);
	return rc;
}

/* --- --jobs: child processes (tools/lib/jobs.h) ------------------------------------------------- */

struct child {
	struct evbuffer *result;	/* the result's lines, once it starts */
	uint64_t runs;
	size_t findings, traces, tuples;
	char dir[4096];		/* its replay files, under --out DIR */
	bool dead;		/* it died or sent no result: its runs are not in the summary */
};

struct jobs {
	struct explore_opts *o;
	const struct scn *s;
	struct child *c;
	unsigned int n;
	struct cmd_progress prog;
	bool tty;
	struct jobs_batch batch;
};

/* tests, in a child: SIGKILL itself once it has made this many runs (0: never) */
static uint64_t kill_self_at;

/* A child's progress, for the parent's line: "progress RUNS FINDINGS TRACES TUPLES". */
static void child_progress(void *arg, const struct xr *r, uint64_t runs, bool final)
{
	FILE *out = arg;
	size_t f, t, u;

	(void)final;
	totals(r, &f, &t, &u);
	fprintf(out, "progress\t%" PRIu64 "\t%zu\t%zu\t%zu\n", runs, f, t, u);
	fflush(out);
	if (kill_self_at && runs >= kill_self_at)
		raise(SIGKILL);
}

/*
 * tests: KWSIM_EXPLORE_KILL_JOB="J:RUNS" kills job J (SIGKILL, from itself)
 * once it has made RUNS runs (its progress comes every 16), a job's death
 * bound by runs, not by a race against the machine's speed.
 */
static void kill_hook(unsigned int j)
{
	const char *hook = getenv("KWSIM_EXPLORE_KILL_JOB");
	unsigned int victim;
	unsigned long long runs;

	if (hook && sscanf(hook, "%u:%llu", &victim, &runs) == 2 && victim == j)
		kill_self_at = runs;
}

static void jobs_progress(struct jobs *j, bool final)
{
	uint64_t runs = 0;
	size_t f = 0, t = 0, u = 0;

	if (!j->tty)
		return;
	/* the children's findings and coverage overlap: the line shows the most any has */
	for (unsigned int i = 0; i < j->n; i++) {
		runs += j->c[i].runs;
		f = f > j->c[i].findings ? f : j->c[i].findings;
		t = t > j->c[i].traces ? t : j->c[i].traces;
		u = u > j->c[i].tuples ? u : j->c[i].tuples;
	}
	progress_line(&j->prog, runs, f, t, u, final);
}

static void child_line(void *arg, unsigned int i, char *line)
{
	struct jobs *j = arg;
	struct child *c = &j->c[i];
	unsigned long long runs;
	size_t f, t, u;

	if (!c->result && sscanf(line, "progress\t%llu\t%zu\t%zu\t%zu", &runs, &f, &t, &u) == 4) {
		c->runs = runs;
		c->findings = f;
		c->traces = t;
		c->tuples = u;
		jobs_progress(j, false);
		if (f && j->o->xc.stop_on_first && !j->batch.interrupted)
			jobs_batch_stop(&j->batch);
		return;
	}
	if (!c->result)
		c->result = evbuffer_new();
	evbuffer_add(c->result, line, strlen(line));
	evbuffer_add(c->result, "\n", 1);
}

/* The child: shard (I + N j) of (N J), its result to out. */
static int child_main(void *arg, unsigned int j, FILE *out)
{
	struct jobs *jobs = arg;
	struct explore_opts *o = jobs->o;
	struct xc_opts xo = o->xc;
	struct xr r;
	int rc;

	xo.shard = o->xc.shard + o->xc.nshards * j;
	xo.nshards = o->xc.nshards * o->jobs;
	xo.out_dir = o->xc.out_dir ? jobs->c[j].dir : NULL;
	xo.progress = child_progress;
	xo.progress_arg = out;
	kill_hook(j);
	result_init(&r, o, jobs->s);
	rc = xc_run(jobs->s, &xo, &r, stderr);
	if (!rc && xr_write(out, &r))
		rc = 2;
	xr_free(&r);
	return rc;
}

/*
 * Move the replay file of each merged finding (its first run's) from its
 * child's directory. A dead child's directory stays as it is: its files
 * are whole (each written beside and renamed), findings of runs the
 * summary does not cover.
 */
static void gather_files(struct jobs *j, struct xr *all, struct xr *parts, const char *dir)
{
	for (size_t v = 0; v < all->nv; v++) {
		for (size_t f = 0; f < all->v[v].nfindings; f++) {
			const struct xr_finding *g = &all->v[v].findings[f];

			for (unsigned int i = 0; i < j->n && g->file; i++) {
				const struct xr_variant *pv = &parts[i].v[v];

				if (j->c[i].dead)
					continue;
				for (size_t k = 0; k < pv->nfindings; k++) {
					char from[8300], to[8300];

					if (strcmp(pv->findings[k].key, g->key) ||
					    strcmp(pv->findings[k].token, g->token))
						continue;
					snprintf(from, sizeof(from), "%s/%s", j->c[i].dir, g->file);
					snprintf(to, sizeof(to), "%s/%s", dir, g->file);
					if (rename(from, to))
						fprintf(stderr, "kwsim explore: cannot move %s to %s: %s\n",
							from, to, strerror(errno));
				}
			}
		}
	}
	/* the children's other files are later runs of the same findings */
	for (unsigned int i = 0; i < j->n; i++) {
		DIR *d = j->c[i].dead ? NULL : opendir(j->c[i].dir);
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char p[8300];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", j->c[i].dir, e->d_name);
			unlink(p);
		}
		if (d)
			closedir(d);
		rmdir(j->c[i].dir);	/* a dead child's: only when it wrote nothing */
	}
}

/* A child's result lines into r: 0, or 2 when it sent none (or not a whole one). */
static int read_child(struct child *c, struct xr *r)
{
	size_t len = c->result ? evbuffer_get_length(c->result) : 0;
	char *text = len ? (char *)evbuffer_pullup(c->result, -1) : NULL;
	FILE *f = text ? fmemopen(text, len, "r") : NULL;
	char err[256];
	int rc = 0;

	xr_free(r);
	if (!f || xr_read(f, r, err, sizeof(err)))
		rc = 2;
	if (f)
		fclose(f);
	return rc;
}

/* Does DIR hold a file? (A dead child's directory is named only when it does.) */
static bool has_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	if (d)
		closedir(d);
	return any;
}

/* Job i is dead: which it was, how it ended, which runs the summary lacks, what is kept. */
static void say_dead(const struct jobs *j, unsigned int i, int status)
{
	const struct explore_opts *o = j->o;
	const struct child *c = &j->c[i];
	unsigned int shard = o->xc.shard + o->xc.nshards * i, nshards = o->xc.nshards * o->jobs;
	char how[64];

	if (status != -1 && WIFSIGNALED(status))
		snprintf(how, sizeof(how), "died of signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(how, sizeof(how), "sent no result");
	fprintf(stderr, "kwsim explore: job %u %s after at least %" PRIu64 " runs: its runs, "
		"shard %u/%u of the campaign's, are lost and not in the summary (explore "
		"--shard %u/%u with the same options runs them)", i, how, c->runs, shard,
		nshards, shard, nshards);
	if (o->xc.out_dir && has_files(c->dir))
		fprintf(stderr, "; the replay files it wrote are kept in %s", c->dir);
	fputc('\n', stderr);
}

/*
 * The children's results as one: the first live child's read twice, as the
 * sum and as its part, the other live ones merged in; a dead child is said
 * and counted in *died, its runs missing from the sum.
 */
static int merge_children(struct jobs *j, const int *status, struct xr *r, struct xr *parts,
			  unsigned int *died)
{
	bool first = true;
	char err[256];

	for (unsigned int i = 0; i < j->n; i++) {
		/* a job's own failure (an --out file not written) is said by it: bad output */
		if (status[i] != -1 && WIFEXITED(status[i]) && WEXITSTATUS(status[i]))
			return 2;
	}
	for (unsigned int i = 0; i < j->n; i++) {
		if (status[i] == -1 || read_child(&j->c[i], &parts[i])) {
			j->c[i].dead = true;
			(*died)++;
			say_dead(j, i, status[i]);
			continue;
		}
		if (first && read_child(&j->c[i], r))
			return 2;	/* read once already: cannot fail */
		if (!first && xr_merge(r, &parts[i], err, sizeof(err))) {
			fprintf(stderr, "kwsim explore: job %u: %s\n", i, err);
			return 2;
		}
		first = false;
	}
	if (*died) {
		/* a campaign with holes: never complete, merge and the summary say so */
		r->stopped = true;
		r->complete = false;
		fprintf(stderr, "kwsim explore: %u of %u jobs died: the summary covers the others' "
			"runs (exit status 4)\n", *died, j->n);
	}
	return 0;
}

static int run_jobs(struct explore_opts *o, const struct scn *s, struct xr *r,
		    unsigned int *died)
{
	struct jobs j = { .o = o, .s = s, .n = o->jobs, .prog = { host_seconds(CLOCK_MONOTONIC), 0 },
			  .tty = isatty(STDERR_FILENO) };
	int *status = calloc(o->jobs, sizeof(*status));
	struct xr *parts = calloc(o->jobs, sizeof(*parts));
	int rc = 0;

	j.c = calloc(j.n, sizeof(*j.c));
	if (!j.c || !parts || !status)
		abort();
	for (unsigned int i = 0; i < j.n && !rc && o->xc.out_dir; i++) {
		snprintf(j.c[i].dir, sizeof(j.c[i].dir), "%s/.job-%u", o->xc.out_dir, i);
		rc = make_dir(j.c[i].dir);
	}
	j.batch = (struct jobs_batch){ .n = j.n, .status = status,
		.ops = { .child = child_main, .line = child_line, .arg = &j, .on_sigint = cmd_on_sigint } };
	if (!rc && jobs_batch_run(&j.batch, "kwsim explore"))
		rc = 2;
	jobs_progress(&j, true);
	if (!rc)
		rc = merge_children(&j, status, r, parts, died);
	if (!rc) {
		r->shard = o->xc.shard;
		r->nshards = o->xc.nshards;
		/* a stop (SIGINT, or another child's first finding) is the campaign's */
		if ((cmd_stop || j.batch.interrupted) && !r->complete)
			r->stopped = true;
		if (o->xc.out_dir)
			gather_files(&j, r, parts, o->xc.out_dir);
	}
	for (unsigned int i = 0; i < j.n; i++) {
		if (rc && j.c[i].dir[0])
			rmdir(j.c[i].dir);	/* only if empty: a failed campaign leaves what it wrote */
		if (j.c[i].result)
			evbuffer_free(j.c[i].result);
		xr_free(&parts[i]);
	}
	free(parts);
	free(status);
	free(j.c);
	return rc;
}
