/*
 * --around-finding: the window of the terminal timeline around the run's
 * first finding, or, in a run without one, around its first overlap: where
 * something starts on one CPU (an API call, a timer callback, a work) while
 * an API call is in progress on another, where a race can happen. The same
 * rule as the timeline page's focus() (tools/html/page.js), so that both
 * open on the same moment.
 *
 * The window is known only once the run has reached it, and the timeline
 * draws as the run streams: so the run is made twice, this pass quiet. A
 * run is a pure function of the scenario, its settings and the version,
 * so the second draws the run this one saw.
 *
 * The window: the API calls in progress at the focus, from their start to
 * their return, else the NEAR_RECORDS records either side of it; within
 * NEAR_NS of the focus, at least MIN_SPAN_NS wide, 8% more on each side.
 */
#include "cmd_run.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <model.h>
#include <sim/sim.h>
#include <sim/trace.h>

#include "scenario/scn.h"
#include "trace_view.h"

#define NEAR_RECORDS 12
#define NEAR_NS 20000u
#define MIN_SPAN_NS 1000u

struct call {
	uint64_t t;		/* when the call in progress began */
	int cpu;
	bool open;		/* a call is in progress */
	bool awaited;		/* it was at the focus: the window runs to its return */
};

struct focus {
	struct call *calls;	/* by pid */
	size_t ncalls;
	bool found, oom;
	uint64_t t, lo, hi;
	int awaited;		/* calls open at the focus, not returned yet */
	uint64_t before[NEAR_RECORDS];	/* the last records' times, a ring */
	size_t nbefore;
	int after;		/* records seen since the focus, when no call was in progress */
};

static struct call *call_of(struct focus *f, int pid)
{
	if (pid <= 0)
		return NULL;
	if ((size_t)pid >= f->ncalls) {
		size_t n = (size_t)pid * 2;
		struct call *c = realloc(f->calls, n * sizeof(*c));

		if (!c) {
			f->oom = true;
			return NULL;
		}
		memset(c + f->ncalls, 0, (n - f->ncalls) * sizeof(*c));
		f->calls = c;
		f->ncalls = n;
	}
	return &f->calls[pid];
}

/* A call in progress on another CPU than cpu. */
static bool open_elsewhere(const struct focus *f, int cpu)
{
	for (size_t i = 0; i < f->ncalls; i++)
		if (f->calls[i].open && f->calls[i].cpu != cpu)
			return true;
	return false;
}

/* The focus is at t: the calls in progress now are the window's. */
static void found(struct focus *f, uint64_t t)
{
	f->found = true;
	f->t = f->lo = f->hi = t;
	for (size_t i = 0; i < f->ncalls; i++) {
		struct call *c = &f->calls[i];

		if (!c->open)
			continue;
		c->awaited = true;
		f->awaited++;
		if (c->t < f->lo)
			f->lo = c->t;
	}
	if (f->awaited)
		f->after = NEAR_RECORDS;	/* the calls' return ends the window, not records */
	else if (f->nbefore)
		f->lo = f->before[f->nbefore < NEAR_RECORDS ? 0 : f->nbefore % NEAR_RECORDS];
}

static bool begins(const struct scn_event *ev)
{
	size_t n = strlen(ev->what);

	return n >= 7 && !strcmp(ev->what + n - 7, " begins");
}

static void on_event(void *arg, const struct scn_event *ev)
{
	struct focus *f = arg;
	struct call *c = call_of(f, ev->pid);

	if (!c)
		return;
	if (!f->found && begins(ev) && open_elsewhere(f, ev->cpu))
		found(f, ev->time);
	if (begins(ev)) {
		*c = (struct call){ .t = ev->time, .cpu = ev->cpu, .open = true };
		return;
	}
	if (c->awaited) {
		if (ev->time > f->hi)
			f->hi = ev->time;
		f->awaited--;
	}
	c->open = c->awaited = false;
}

static bool starts_work(const struct sim_rec *r)
{
	return r->type == REC_MODEL && r->s && !strcmp(r->s, "sched_kthread_work_execute_start");
}

static void on_record(void *arg, const struct sim_rec *r)
{
	struct focus *f = arg;

	if (!f->found) {
		if (r->type == REC_FINDING ||
		    ((r->type == REC_TIMER_EXPIRE_ENTRY || starts_work(r)) && open_elsewhere(f, r->cpu)))
			found(f, r->time);
		else
			f->before[f->nbefore++ % NEAR_RECORDS] = r->time;
	} else if (f->after < NEAR_RECORDS) {
		f->after++;
		if (r->time > f->hi)
			f->hi = r->time;
	}
}

int timeline_around_finding(const struct scn *s, const struct kw_model *m,
			    struct trace_timeline_opts *tl)
{
	struct focus f = { 0 };
	struct scn_run run = { .on_event = on_event, .event_arg = &f };
	struct sim_config cfg = s->cfg;
	uint64_t lo, hi, pad;
	int rc;

	cfg.keep_trace = false;
	cfg.drop_decisions = true;
	run.config = &cfg;
	sim_trace_set_sink(on_record, &f);
	rc = scn_run(s, m, &run, stderr);
	sim_trace_set_sink(NULL, NULL);
	scn_run_free(&run);
	free(f.calls);
	if (rc || f.oom)
		return -1;
	if (!f.found)
		return 0;
	lo = f.t > NEAR_NS ? f.t - NEAR_NS : 0;
	if (f.lo > lo)
		lo = f.lo;
	hi = f.t + (f.t - lo) / 4;
	if (f.hi > hi)
		hi = f.hi;
	if (hi > f.t + NEAR_NS)
		hi = f.t + NEAR_NS;
	if (hi - lo < MIN_SPAN_NS) {
		uint64_t mid = lo + (hi - lo) / 2;

		lo = mid < MIN_SPAN_NS / 2 ? 0 : mid - MIN_SPAN_NS / 2;
		hi = lo + MIN_SPAN_NS;
	}
	pad = (hi - lo) * 8 / 100;
	tl->from = lo < pad ? 0 : lo - pad;
	tl->to = hi + pad;
	return 1;
}
