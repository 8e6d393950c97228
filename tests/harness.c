#include "harness.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(KWSIM_ASAN)
/*
 * The sanitizer exit statuses that CTest gives every test (CMakeLists.txt,
 * KWSIM_TEST_ENVIRONMENT), as the defaults of a suite run by hand too; the
 * environment's options still come after these. A test that expects a
 * report expects its status.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "exitcode=86";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "exitcode=86";
}

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:exitcode=87:print_stacktrace=1";
}
#endif

struct sim_config h_config(int ncpus)
{
	struct sim_config cfg;

	sim_config_default(&cfg);
	cfg.ncpus = ncpus;
	cfg.keep_trace = true;
	return cfg;
}

void h_init_cfg(const struct sim_config *cfg)
{
	ck_assert_msg(sim_init(cfg) == 0, "sim_init: %s", sim_error());
}

void h_init(int ncpus)
{
	struct sim_config cfg = h_config(ncpus);

	h_init_cfg(&cfg);
}

enum sim_end h_run(void)
{
	return sim_run();
}

size_t h_count(enum sim_finding_kind kind)
{
	return sim_finding_count_kind(kind);
}

const struct sim_finding *h_first(enum sim_finding_kind kind)
{
	for (size_t i = 0; i < sim_finding_count(); i++)
		if (sim_finding(i)->kind == kind)
			return sim_finding(i);
	return NULL;
}

void h_dump_findings(void)
{
	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

		fprintf(stderr, "finding %s at %llu ns cpu%d %s: %s\n", sim_finding_kind_name(f->kind),
			(unsigned long long)f->time, f->cpu, f->context, f->msg);
	}
}

size_t h_trace_count(enum sim_rec_type type)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_trace_count(); i++)
		n += sim_trace_records()[i].type == type;
	return n;
}

int h_main(Suite *(*make)(void))
{
	SRunner *sr;
	int failed;

	/*
	 * Check kills a test after 4 s unless told otherwise: a wall-clock
	 * limit that the sanitizer build on a loaded machine could reach. Each
	 * test's work is bounded by counts, so the timeout is only a backstop
	 * against a hang: generous, for every test case that sets none itself
	 * (read when make() creates them; the caller's own setting wins).
	 */
	setenv("CK_DEFAULT_TIMEOUT", "120", 0);
	sr = srunner_create(make());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Far deeper than any stack: the guard page comes first. */
static volatile int overflow_depth = 1 << 30;

static __attribute__((noinline)) int recurse(volatile char *prev, int depth)
{
	volatile char frame[512];

	if (depth >= overflow_depth)
		return 0;
	frame[0] = (char)depth;
	frame[511] = prev ? prev[0] : 0;
	return recurse(frame, depth + 1) + frame[0] + frame[511];
}

int h_overflow(void)
{
	return recurse(NULL, 0);
}

int h_overflow_fn(void *arg)
{
	(void)arg;
	return h_overflow();
}
