/* Helpers for the model suites: the variant under test and its objects. */
#ifndef KWSIM_TEST_MODEL_HARNESS_H
#define KWSIM_TEST_MODEL_HARNESS_H

#include "../harness.h"
#include <model.h>

#include <stdint.h>

/* The variant a loop test runs (_i of tcase_add_loop_test), after h_init. */
extern const struct kw_model *M;
void m_use(int variant);
/* Whether the variant under test is the named one ("v4.9", "mainline"). */
bool m_is(const char *name);
/* The index of the named variant, for a test about one variant only. */
int m_index(const char *name);

/*
 * Zeroed objects of the variant's sizes, kept reachable from a table of the
 * harness: they live as long as the process (Check forks each test), and
 * the leak checker of a sanitizer build does not count them as leaks.
 */
struct kthread_work *m_work(kw_work_fn fn);
struct kthread_delayed_work *m_dwork(kw_work_fn fn);
struct kthread_worker *m_worker_struct(void);	/* for the legacy init + kthread_run start */
void *m_zalloc(size_t size);

/*
 * Checks made inside simulated contexts. A failing ck_assert there would
 * leave the machine from a coroutine stack; these record the first failure
 * instead, and m_assert_checks() reports it from the test's own context.
 */
void m_check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define M_CHECK(cond) do {						\
	if (!(cond))							\
		m_check_fail(__FILE__, __LINE__, "%s", #cond);		\
} while (0)
#define M_CHECK_INT(a, op, b) do {					\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (!(__a op __b))						\
		m_check_fail(__FILE__, __LINE__, "%s %s %s (%lld vs %lld)", \
			     #a, #op, #b, __a, __b);			\
} while (0)
/* How many checks failed since the last m_reset_checks(), and the first one. */
unsigned int m_check_failures(void);
const char *m_first_check_failure(void);
void m_reset_checks(void);
/* ck_assert that no check failed; 'what' names the run (seed, variant). */
void m_assert_checks(const char *what);

/* Fail the test, printing every finding, if the run found anything. */
void m_assert_no_findings(const char *what);
/*
 * The number of SIM_F_WARN findings raised in function 'func' whose message
 * carries 'cond' (the macro and its condition, e.g. "WARN_ON_ONCE(!worker)").
 */
size_t m_warn_count(const char *func, const char *cond);
/* How many kept trace records of a type carry 's' (timer records: the callback's name). */
size_t m_trace_count_s(enum sim_rec_type type, const char *s);

/* A small deterministic generator for scenario parameters, independent of the machine's. */
static inline uint64_t m_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A machine for one seed of an exploration: RANDOM strategy, the given preemption model. */
struct sim_config m_explore_config(int ncpus, enum sim_preempt preempt, uint64_t seed);

#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_USEC	1000ULL

#endif
