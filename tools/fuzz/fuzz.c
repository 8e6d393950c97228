/* The fuzz targets' shared part: bounds, KWSIM_FUZZ_ABORT_ON (fuzz.h). */
#include "fuzz.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool abort_on[SIM_F__COUNT];
static FILE *devnull;

static int kind_by_name(const char *name, size_t len)
{
	for (int k = 0; k < SIM_F__COUNT; k++) {
		const char *kn = sim_finding_kind_name((enum sim_finding_kind)k);

		if (strlen(kn) == len && !strncmp(kn, name, len))
			return k;
	}
	return -1;
}

bool fuzz_init(const char *extra)
{
	const char *list = getenv("KWSIM_FUZZ_ABORT_ON");
	bool extra_on = false;

	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("kwsim fuzz: /dev/null");
		exit(2);
	}
	while (list && *list) {
		size_t len = strcspn(list, ",");
		int k = kind_by_name(list, len);

		if (extra && strlen(extra) == len && !strncmp(list, extra, len)) {
			extra_on = true;
		} else if (len == 3 && !strncmp(list, "any", 3)) {
			for (k = 0; k < SIM_F__COUNT; k++)
				abort_on[k] = true;
		} else if (k < 0) {
			fprintf(stderr, "kwsim fuzz: KWSIM_FUZZ_ABORT_ON: unknown finding kind '%.*s'; "
				"one of: any%s%s", (int)len, list, extra ? ", " : "", extra ? extra : "");
			for (k = 0; k < SIM_F__COUNT; k++)
				fprintf(stderr, ", %s", sim_finding_kind_name((enum sim_finding_kind)k));
			fputc('\n', stderr);
			exit(2);
		} else {
			abort_on[k] = true;
		}
		list += len + (list[len] == ',');
	}
	return extra_on;
}

static void lower(uint64_t *limit, uint64_t bound)
{
	if (!*limit || *limit > bound)
		*limit = bound;
}

void fuzz_bound(struct sim_config *cfg)
{
	lower(&cfg->max_steps, FUZZ_MAX_STEPS);
	lower(&cfg->max_decisions, FUZZ_MAX_DECISIONS);
	lower(&cfg->time_limit_ns, FUZZ_TIME_LIMIT_NS);
	cfg->keep_trace = false;
}

void fuzz_check(const struct sim_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!abort_on[f[i].kind])
			continue;
		fprintf(stderr, "kwsim fuzz: finding %s at %s:%d (%s): %s\n",
			sim_finding_kind_name(f[i].kind), f[i].site.file ? f[i].site.file : "?",
			f[i].site.line, f[i].site.func ? f[i].site.func : "?", f[i].msg);
		abort();
	}
}

FILE *fuzz_devnull(void)
{
	return devnull;
}
