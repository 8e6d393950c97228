/*
 * Findings: what the run found wrong. Each carries where (file, line,
 * function), when, on which CPU and in which context, and how far into the
 * decision log it was raised, so that a replay reaches it again.
 */
#include "machine.h"
#include <linux/bug.h>
#include <linux/printk.h>
#include <sim/text.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned int sim_boot_seq;

void sim_oracles_init(void)
{
	sim.oracle.nfindings = 0;
	sim_boot_seq++;		/* a new boot: every *_ONCE site may warn again */
}

void sim_oracles_fini(bool keep)
{
	sim.oracle.nfindings = 0;
	/* most runs make no site: a reset walks the table only as far as its last one */
	for (size_t i = 0; sim.oracle.nsites && i < sim.oracle.capsites; i++) {
		if (!sim.oracle.sites[i])
			continue;
		free(sim.oracle.sites[i]);
		sim.oracle.sites[i] = NULL;
		sim.oracle.nsites--;
	}
	if (keep)
		return;
	free(sim.oracle.findings);
	sim.oracle.findings = NULL;
	sim.oracle.capfindings = 0;
	free(sim.oracle.sites);
	sim.oracle.sites = NULL;
	sim.oracle.nsites = sim.oracle.capsites = 0;
}

static size_t site_slot(struct sim_site **tab, size_t cap, const char *file, int line,
			const char *func)
{
	uint64_t h = ((uint64_t)(uintptr_t)file * 31 + (uint64_t)line) * 31 + (uintptr_t)func;
	size_t i;

	h ^= h >> 29;
	for (i = (size_t)(h * 0x9e3779b97f4a7c15ULL >> 7) & (cap - 1); tab[i];
	     i = (i + 1) & (cap - 1))
		if (tab[i]->file == file && tab[i]->line == line && tab[i]->func == func)
			break;
	return i;
}

const struct sim_site *sim_site_at(const char *file, int line, const char *func)
{
	size_t i;

	if (2 * (sim.oracle.nsites + 1) > sim.oracle.capsites) {
		struct sim_site **old = sim.oracle.sites;
		size_t oldcap = sim.oracle.capsites;

		sim.oracle.capsites = sim.oracle.capsites ? 2 * sim.oracle.capsites : 64;
		sim.oracle.sites = calloc(sim.oracle.capsites, sizeof(*sim.oracle.sites));
		if (!sim.oracle.sites)
			abort();
		for (size_t j = 0; j < oldcap; j++)
			if (old[j])
				sim.oracle.sites[site_slot(sim.oracle.sites, sim.oracle.capsites, old[j]->file, old[j]->line,
						old[j]->func)] = old[j];
		free(old);
	}
	i = site_slot(sim.oracle.sites, sim.oracle.capsites, file, line, func);
	if (!sim.oracle.sites[i]) {
		sim.oracle.sites[i] = malloc(sizeof(*sim.oracle.sites[i]));
		if (!sim.oracle.sites[i])
			abort();
		*sim.oracle.sites[i] = (struct sim_site){ file, line, func };
		sim.oracle.nsites++;
	}
	return sim.oracle.sites[i];
}

const char *sim_finding_kind_name(enum sim_finding_kind kind)
{
	static const char *const names[SIM_F__COUNT] = {
		[SIM_F_WARN] = "warn",
		[SIM_F_BUG] = "bug",
		[SIM_F_MIGHT_SLEEP] = "might_sleep",
		[SIM_F_LOCKDEP] = "lockdep",
		[SIM_F_DEADLOCK] = "deadlock",
		[SIM_F_HUNG] = "hung",
		[SIM_F_UAF] = "uaf",
		[SIM_F_DOUBLE_FREE] = "double_free",
		[SIM_F_BAD_FREE] = "bad_free",
		[SIM_F_LEAK] = "leak",
		[SIM_F_FREEZE_FAILED] = "freeze_failed",
		[SIM_F_STACK_OVERFLOW] = "stack_overflow",
		[SIM_F_ATOMIC_LEAK] = "atomic_leak",
		[SIM_F_INVARIANT] = "invariant",
		[SIM_F_CONTRACT] = "contract",
	};
	return kind < SIM_F__COUNT ? names[kind] : "?";
}

/*
 * A finding in context x (NULL: the machine's own), at time t on cpu (-1:
 * none), with every field written but its message, which the caller
 * writes before anything reads it. x's note says what it was doing in its
 * caller's terms. The text fields are strings, read only up to their NUL:
 * what lies after it is not cleared (a finding is raised in most explored
 * runs, and clearing 1.2 KiB each was a share of the run).
 */
static struct sim_finding *add(struct sim_ctx *x, uint64_t t, int cpu, enum sim_finding_kind kind,
			       const struct sim_site *site)
{
	struct sim_finding *f;
	size_t n = 0;

	if (sim.oracle.nfindings == sim.oracle.capfindings)
		sim.oracle.findings = sim_grow(sim.oracle.findings, &sim.oracle.capfindings, sizeof(*sim.oracle.findings), 16);
	f = &sim.oracle.findings[sim.oracle.nfindings++];
	f->kind = kind;
	f->msg[0] = '\0';
	f->time = t;
	f->cpu = cpu;
	sim_put_str(f->context, sizeof(f->context), &n, x ? sim_ctx_name(x) : "machine");
	f->site = (struct sim_site){ NULL, 0, NULL };
	if (site) {
		f->site = *site;
		f->site.func = sim_unprefix(site->func);
	}
	f->decision = sim_decision_count();
	if (x)
		memcpy(f->note, sim_ctx_note(x), sizeof(f->note));
	else
		f->note[0] = '\0';
	return f;
}

/* A finding by the running context, its message still to write. */
static struct sim_finding *add_here(enum sim_finding_kind kind, const struct sim_site *site)
{
	bool in_ctx = sim.cur && !sim.in_event;

	/* raised by the machine itself between steps (a leak at the end): as far as the run got */
	return add(in_ctx ? sim.cur : NULL, sim.in_event || sim.cur_cpu ? sim_now() : sim_max_time(),
		   sim.cur_cpu && !sim.in_event ? sim.cur_cpu->id : -1, kind, site);
}

/* The record of the finding just written; its b, c: a cause's time and CPU, or 0. */
static void trace_here(uint64_t after, uint16_t after_cpu, enum sim_finding_kind kind)
{
	sim_trace(REC_FINDING, sim.oracle.nfindings - 1, after, after_cpu, 0,
		  sim_finding_kind_name(kind), NULL);
}

static struct sim_finding *report_here(uint64_t after, uint16_t after_cpu,
				       enum sim_finding_kind kind, const struct sim_site *site,
				       const char *fmt, va_list ap)
{
	struct sim_finding *f = add_here(kind, site);

	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	trace_here(after, after_cpu, kind);
	return f;
}

struct sim_finding *sim_report(enum sim_finding_kind kind, const struct sim_site *site,
			       const char *fmt, ...)
{
	struct sim_finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = report_here(0, 0, kind, site, fmt, ap);
	va_end(ap);
	return f;
}

/*
 * A finding that something another CPU did at 'sent' made (a touch of
 * memory freed then): what was handed over carries time, so the finding
 * comes no earlier (sim_handover), and its record names the cause for the
 * causality checker.
 */
struct sim_finding *sim_report_after(uint64_t sent, uint16_t sent_cpu, enum sim_finding_kind kind,
				     const struct sim_site *site, const char *fmt, ...)
{
	struct sim_finding *f;
	va_list ap;

	if (sim.cur_cpu && !sim.in_event)
		sim_handover(sim.cur_cpu, sent);
	va_start(ap, fmt);
	f = report_here(sent, sent_cpu, kind, site, fmt, ap);
	va_end(ap);
	return f;
}

void sim_raise(enum sim_finding_kind kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_here(0, 0, kind, NULL, fmt, ap);
	va_end(ap);
}

void sim_raise_at(enum sim_finding_kind kind, const struct sim_site *site, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_here(0, 0, kind, site, fmt, ap);
	va_end(ap);
}

void sim_raise_text(enum sim_finding_kind kind, const struct sim_site *site, const char *text)
{
	struct sim_finding *f = add_here(kind, site);
	size_t n = 0;

	sim_put_str(f->msg, sizeof(f->msg), &n, text);
	trace_here(0, 0, kind);
}

struct sim_finding *sim_report_for(struct sim_ctx *x, enum sim_finding_kind kind,
				   const struct sim_site *site, const char *fmt, ...)
{
	struct sim_cpu *c = x ? x->cpu : NULL;
	struct sim_finding *f;
	va_list ap;

	f = add(x, sim_max_time(), c ? c->id : -1, kind, site);
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	if (f)
		sim_trace_on(c, REC_FINDING, sim.oracle.nfindings - 1, 0, 0, 0, sim_finding_kind_name(kind),
			     NULL);
	return f;
}

/*
 * The soft-lockup detector (kernel/watchdog.c). A per-CPU hrtimer every
 * sample_period (2 * watchdog_thresh / 5: 4 s) has the CPU's stopper work
 * (4.9: its watchdog/N thread) touch watchdog_touch_ts, which needs the CPU
 * to schedule: the machine counts a task switch, or a point where the task
 * could be preempted (struct sim_cpu's sched_touch). A CPU that stops
 * scheduling at 'start' keeps the touch of the last period before it, and
 * the hrtimer reports it at the first period where now > touch + 2 *
 * watchdog_thresh, in get_timestamp()'s units of 2^30 ns: at the default
 * 10 s, 24 s after that touch, "stuck for 22s!". Returns when, and the
 * seconds it will say; 0 when off.
 */
uint64_t sim_softlockup_time(uint64_t start, unsigned int *secs)
{
	uint64_t thresh = 2 * sim.cfg.watchdog_thresh_ns, period = thresh / 5, touch, t;

	*secs = 0;
	if (!period)
		return 0;
	touch = start / period * period;
	for (t = touch + period;; t += period)
		if ((t >> 30) > (touch >> 30) + thresh / 1000000000ULL)
			break;
	*secs = (unsigned int)((t >> 30) - (touch >> 30));
	return t;
}

/* The report, in the era's words; 'what' says what the machine saw the CPU do. */
void sim_softlockup_report(struct sim_cpu *c, unsigned int secs, const char *what)
{
	struct task_struct *p = c->curr;
	struct sim_finding *f;

	f = sim_report(SIM_F_HUNG, NULL, "%sBUG: soft lockup - CPU#%d stuck for %us! [%s:%d]\n%s",
		       sim_era_since(4, 13) ? "watchdog: " : "NMI watchdog: ", c->id, secs,
		       p->comm, p->pid, what);
	/* the watchdog's hrtimer interrupt of that CPU reports it, about its task */
	if (f) {
		f->cpu = c->id;
		snprintf(f->context, sizeof(f->context), "%s", p->comm);
	}
}

static void cpu_lockup_check(void *arg);

static void lockup_arm(struct sim_cpu *c, uint64_t at, uint64_t touch)
{
	c->lockup_ev = sim_event_add(at, cpu_lockup_check, c, true);
	c->lockup_ev->data = touch;
}

/*
 * Nothing has let the CPU schedule since the touch the check was armed for:
 * a lockup. A CPU that was touched since, and busy-waited after, gets the
 * check for its latest touch now (the earlier touches can no longer match).
 */
static void cpu_lockup_check(void *arg)
{
	struct sim_cpu *c = arg;
	uint64_t latest = c->lockup_watch - 1, at;
	unsigned int secs;
	char what[128];

	c->lockup_ev = NULL;
	if (c->sched_touch != sim.ev_data) {
		if (latest != sim.ev_data && (at = sim_softlockup_time(latest, &secs)))
			lockup_arm(c, at, latest);
		return;
	}
	sim_softlockup_time(c->sched_touch, &secs);
	snprintf(what, sizeof(what), "%s has run on cpu%d without scheduling since %llu.%06llu s",
		 c->curr->comm, c->id, (unsigned long long)(c->sched_touch / 1000000000ULL),
		 (unsigned long long)(c->sched_touch % 1000000000ULL / 1000));
	sim_softlockup_report(c, secs, what);
}

/*
 * A busy-wait (udelay, mdelay) where nothing may preempt it: if the CPU
 * has not scheduled by its soft-lockup time, counted from its last touch,
 * it is reported, however many waits that takes. One check pending per
 * CPU: a loop that busy-waits after every touch would otherwise queue an
 * event per round for the whole 2 * watchdog_thresh ahead (a self-requeueing
 * work with a udelay: 23 MB of events at 0.4 s). The pending check, when
 * it finds the CPU touched since, re-arms for the latest touch asked about,
 * at that touch's own time, so the report comes when it always did.
 */
void sim_softlockup_watch(struct sim_cpu *c)
{
	unsigned int secs;
	uint64_t at = sim_softlockup_time(c->sched_touch, &secs);

	if (!at || c->lockup_watch == c->sched_touch + 1)
		return;
	c->lockup_watch = c->sched_touch + 1;
	if (!c->lockup_ev)
		lockup_arm(c, at, c->sched_touch);
}

void sim_ctx_site(const struct sim_ctx *x, struct sim_site *out)
{
	const char *fn = NULL;

	*out = (struct sim_site){ NULL, 0, NULL };
	if (x->in_call) {
		*out = *x->in_call;
		out->func = sim_unprefix(out->func);
		return;
	}
	if (x->work_fn) {
		out->func = x->work_fn;
		return;
	}
	switch (x->kind) {
	case CTX_SOFTIRQ:
		fn = x->cpu->running_timer ? sim_timer_fn_name(x->cpu->running_timer)
					   : "run_timer_softirq";
		break;
	case CTX_HARDIRQ:
		fn = x->cpu->irq_now ? x->cpu->irq_now->name : NULL;
		break;
	case CTX_TASK:
		fn = x->task->threadfn ? sim_symbol((const void *)x->task->threadfn) : NULL;
		break;
	}
	if (fn && strcmp(fn, "?"))
		out->func = sim_unprefix(fn);
}

void sim_note(const char *fmt, ...)
{
	va_list ap;

	if (!sim.cur || sim.in_event)
		return;
	sim.cur->note_file = NULL;
	sim.cur->note_line = 0;		/* the note is no line now (stall.c reads it) */
	va_start(ap, fmt);
	vsnprintf(sim.cur->note, sizeof(sim.cur->note), fmt, ap);
	va_end(ap);
}

void sim_note_line(const char *file, int line)
{
	if (!sim.cur || sim.in_event)
		return;
	sim.cur->note_file = file;
	sim.cur->note_line = line;
}

const char *sim_ctx_note(struct sim_ctx *x)
{
	if (x->note_file) {
		snprintf(x->note, sizeof(x->note), "%s:%d", x->note_file, x->note_line);
		x->note_file = NULL;
	}
	return x->note;
}

size_t sim_finding_count(void)
{
	return sim.oracle.nfindings;
}

const struct sim_finding *sim_finding(size_t i)
{
	return i < sim.oracle.nfindings ? &sim.oracle.findings[i] : NULL;
}

size_t sim_finding_count_kind(enum sim_finding_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < sim.oracle.nfindings; i++)
		n += sim.oracle.findings[i].kind == kind;
	return n;
}

void sim_warn(const struct sim_site *site, const char *macro, const char *cond)
{
	struct task_struct *p = sim_current();

	sim_report(SIM_F_WARN, site, "WARNING: CPU: %d PID: %d at %s:%d %s: %s(%s)",
		   sim_this_cpu(), p ? p->pid : 0, site->file, site->line, sim_unprefix(site->func),
		   macro, cond);
}

void sim_warnf(const struct sim_site *site, const char *fmt, ...)
{
	struct task_struct *p = sim_current();
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sim_report(SIM_F_WARN, site, "WARNING: CPU: %d PID: %d at %s:%d %s: %s",
		   sim_this_cpu(), p ? p->pid : 0, site->file, site->line, sim_unprefix(site->func),
		   msg);
}

void sim_bug(const struct sim_site *site, const char *cond)
{
	struct sim_site where;

	if (site) {
		sim_report(SIM_F_BUG, site, "kernel BUG at %s:%d! %s: BUG_ON(%s)", site->file,
			   site->line, sim_unprefix(site->func), cond);
	} else {
		/* report_bug() without CONFIG_DEBUG_BUGVERBOSE: only where the code is */
		where = (struct sim_site){ NULL, 0, NULL };
		if (sim.cur && !sim.in_event)
			sim_ctx_site(sim.cur, &where);
		sim_report(SIM_F_BUG, where.func ? &where : NULL,
			   "Kernel BUG at %s [verbose debug info unavailable]: BUG_ON(%s)",
			   where.func ? where.func : "an unknown function", cond);
	}
	sim_die();
}

void sim_die(void)
{
	sim_halt(SIM_END_FATAL);
	sim_exit_ctx();		/* the machine has halted: nothing is chosen again */
	__builtin_unreachable();
}

/* The "<N>" prefix of KERN_*; without one, MESSAGE_LOGLEVEL_DEFAULT (4). */
static unsigned int printk_level(const char **msg)
{
	const char *s = *msg;

	if (s[0] != '<' || s[1] < '0' || s[1] > '7' || s[2] != '>')
		return 4;
	*msg = s + 3;
	return (unsigned int)(s[1] - '0');
}

int printk(const char *fmt, ...)
{
	char buf[512];
	const char *msg = buf;
	unsigned int level;
	va_list ap;
	size_t len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	level = printk_level(&msg);
	/* as the console tracepoint: the record holds the line without its newline */
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	sim_trace(REC_PRINTK, level, 0, 0, 0, sim_intern(msg), NULL);
	return n;
}
