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
#include "cmd/cmd_run.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <model.h>
#include <sim/sim.h>
#include <sim/trace.h>

#include "scenario/scn.h"
#include "view/trace_view.h"

#define NEAR_RECORDS 12
#define NEAR_NS 20000u
#define MIN_SPAN_NS 1000u

/* The two windows followed at once: the first finding's wins over the first overlap's. */
enum { W_FINDING, W_OVERLAP, NWINDOWS };

struct call {
	uint64_t t;		/* when the call in progress began */
	int cpu;
	bool open;		/* a call is in progress */
	unsigned int awaited;	/* bit per window it was in progress at: runs to its return */
};

struct window {
	bool found;
	uint64_t t, lo, hi;
	int awaited;		/* calls open at its focus, not returned yet */
	int after;		/* records seen since the focus, when no call was in progress */
};

struct focus {
	struct call *calls;	/* by pid */
	size_t ncalls;
	bool oom;
	struct window w[NWINDOWS];
	uint64_t before[NEAR_RECORDS];	/* the last records' times, a ring */
	size_t nbefore;
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

/* Window k's focus is at t: the calls in progress now are its. */
static void found(struct focus *f, int k, uint64_t t)
{
	struct window *w = &f->w[k];

	w->found = true;
	w->t = w->lo = w->hi = t;
	for (size_t i = 0; i < f->ncalls; i++) {
		struct call *c = &f->calls[i];

		if (!c->open)
			continue;
		c->awaited |= 1u << k;
		w->awaited++;
		if (c->t < w->lo)
			w->lo = c->t;
	}
	if (w->awaited)
		w->after = NEAR_RECORDS;	/* the calls' return ends the window, not records */
	else if (f->nbefore)
		w->lo = f->before[f->nbefore < NEAR_RECORDS ? 0 : f->nbefore % NEAR_RECORDS];
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
	if (!f->w[W_OVERLAP].found && begins(ev) && open_elsewhere(f, ev->cpu))
		found(f, W_OVERLAP, ev->time);
	if (begins(ev)) {
		*c = (struct call){ .t = ev->time, .cpu = ev->cpu, .open = true };
		return;
	}
	for (int k = 0; k < NWINDOWS; k++) {
		struct window *w = &f->w[k];

		if (!(c->awaited & (1u << k)))
			continue;
		if (ev->time > w->hi)
			w->hi = ev->time;
		w->awaited--;
	}
	c->open = false;
	c->awaited = 0;
}

static bool starts_work(const struct sim_rec *r)
{
	return sim_rec_work_step(r) == SIM_WORK_START;
}

static void on_record(void *arg, const struct sim_rec *r)
{
	struct focus *f = arg;

	for (int k = 0; k < NWINDOWS; k++) {
		struct window *w = &f->w[k];

		if (w->found && w->after < NEAR_RECORDS) {
			w->after++;
			if (r->time > w->hi)
				w->hi = r->time;
		}
	}
	if (!f->w[W_FINDING].found && r->type == REC_FINDING)
		found(f, W_FINDING, r->time);
	if (!f->w[W_OVERLAP].found && (r->type == REC_TIMER_EXPIRE_ENTRY || starts_work(r)) &&
	    open_elsewhere(f, r->cpu))
		found(f, W_OVERLAP, r->time);
	f->before[f->nbefore++ % NEAR_RECORDS] = r->time;
}

int timeline_around_finding(const struct scn *s, const struct kw_model *m,
			    struct trace_timeline_opts *tl)
{
	struct focus f = { 0 };
	struct scn_run run = { .on_event = on_event, .event_arg = &f };
	struct sim_config cfg = s->cfg;
	const struct window *w;
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
	w = f.w[W_FINDING].found ? &f.w[W_FINDING] : &f.w[W_OVERLAP];
	if (!w->found)
		return 0;
	lo = w->t > NEAR_NS ? w->t - NEAR_NS : 0;
	if (w->lo > lo)
		lo = w->lo;
	hi = w->t + (w->t - lo) / 4;
	if (w->hi > hi)
		hi = w->hi;
	if (hi > w->t + NEAR_NS)
		hi = w->t + NEAR_NS;
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
