#include "model_harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct kw_model *M;

void m_use(int variant)
{
	M = kw_model_get((size_t)variant);
	ck_assert_ptr_nonnull(M);
	M->register_symbols();
}

bool m_is(const char *name)
{
	return M && !strcmp(M->name, name);
}

int m_index(const char *name)
{
	for (size_t i = 0; i < kw_model_count(); i++)
		if (!strcmp(kw_model_get(i)->name, name))
			return (int)i;
	ck_abort_msg("no variant %s", name);
	return -1;
}

/* Every object handed out, so that it stays reachable until the process exits. */
static void **objects;
static size_t nobjects, capobjects;

void *m_zalloc(size_t size)
{
	void *p = calloc(1, size);

	ck_assert_ptr_nonnull(p);
	if (nobjects == capobjects) {
		capobjects = capobjects ? 2 * capobjects : 64;
		objects = realloc(objects, capobjects * sizeof(*objects));
		ck_assert_ptr_nonnull(objects);
	}
	objects[nobjects++] = p;
	return p;
}

struct kthread_work *m_work(kw_work_fn fn)
{
	struct kthread_work *w = m_zalloc(M->work_size);

	M->init_work(w, fn);
	return w;
}

struct kthread_delayed_work *m_dwork(kw_work_fn fn)
{
	struct kthread_delayed_work *dw = m_zalloc(M->dwork_size);

	M->init_delayed_work(dw, fn);
	return dw;
}

struct kthread_worker *m_worker_struct(void)
{
	return m_zalloc(M->worker_size);
}

/* --- checks inside the machine ---------------------------------------------- */

static unsigned int nfailed;
static char first_failure[512];

void m_check_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (nfailed++)
		return;
	n = snprintf(first_failure, sizeof(first_failure), "%s:%d: check failed at %llu ns: ",
		     file, line, (unsigned long long)sim_now());
	if (n < 0 || (size_t)n >= sizeof(first_failure))
		return;
	va_start(ap, fmt);
	vsnprintf(first_failure + n, sizeof(first_failure) - (size_t)n, fmt, ap);
	va_end(ap);
}

unsigned int m_check_failures(void)
{
	return nfailed;
}

const char *m_first_check_failure(void)
{
	return nfailed ? first_failure : "";
}

void m_reset_checks(void)
{
	nfailed = 0;
	first_failure[0] = '\0';
}

void m_assert_checks(const char *what)
{
	if (nfailed)
		h_dump_findings();
	ck_assert_msg(!nfailed, "%s: %u failed checks, first: %s", what, nfailed, first_failure);
}

/* --- findings ------------------------------------------------------------------- */

void m_assert_no_findings(const char *what)
{
	size_t n = sim_finding_count();

	if (n)
		h_dump_findings();
	ck_assert_msg(n == 0, "%s: %zu findings, first: %s", what, n,
		      n ? sim_finding(0)->msg : "");
}

size_t m_warn_count(const char *func, const char *cond)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_finding_count(); i++) {
		const struct sim_finding *f = sim_finding(i);

		if (f->kind != SIM_F_WARN || !f->site.func)
			continue;
		n += !strcmp(f->site.func, func) && strstr(f->msg, cond);
	}
	return n;
}

size_t m_trace_count_s(enum sim_rec_type type, const char *s)
{
	size_t n = 0;

	for (size_t i = 0; i < sim_trace_count(); i++) {
		const struct sim_rec *r = &sim_trace_records()[i];

		n += r->type == type && r->s && !strcmp(r->s, s);
	}
	return n;
}

struct sim_config m_explore_config(int ncpus, enum sim_preempt preempt, uint64_t seed)
{
	struct sim_config cfg = h_config(ncpus);

	cfg.preempt = preempt;
	cfg.strategy = SIM_STRATEGY_RANDOM;
	cfg.seed = seed;
	cfg.keep_trace = false;
	return cfg;
}
