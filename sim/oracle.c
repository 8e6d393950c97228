/*
 * Findings: what the run found wrong. Each carries where (file, line,
 * function), when, on which CPU and in which context, and how far into the
 * decision log it was raised, so that a replay reaches it again.
 */
#include "machine.h"
#include <linux/bug.h>
#include <linux/printk.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct sim_finding *findings;
static size_t nfindings, capfindings;

unsigned int sim_boot_seq;

void sim_oracles_init(void)
{
	nfindings = 0;
	sim_boot_seq++;		/* a new boot: every *_ONCE site may warn again */
}

void sim_oracles_fini(void)
{
	free(findings);
	findings = NULL;
	nfindings = capfindings = 0;
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
	};
	return kind < SIM_F__COUNT ? names[kind] : "?";
}

/* might_sleep reports once per site, as the kernel's ratelimit makes them rare. */
static bool seen_before(enum sim_finding_kind kind, const struct sim_site *site)
{
	if (kind != SIM_F_MIGHT_SLEEP || !site)
		return false;
	for (size_t i = 0; i < nfindings; i++)
		if (findings[i].kind == kind && findings[i].site.file == site->file &&
		    findings[i].site.line == site->line)
			return true;
	return false;
}

struct sim_finding *sim_report(enum sim_finding_kind kind, const struct sim_site *site,
			       const char *fmt, ...)
{
	struct sim_finding *f;
	va_list ap;

	if (seen_before(kind, site))
		return NULL;
	if (nfindings == capfindings) {
		capfindings = capfindings ? 2 * capfindings : 16;
		findings = realloc(findings, capfindings * sizeof(*findings));
		if (!findings)
			abort();
	}
	f = &findings[nfindings];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof(f->msg), fmt, ap);
	va_end(ap);
	/* raised by the machine itself between steps (a leak at the end): as far as the run got */
	f->time = sim.in_event || sim.cur_cpu ? sim_now() : sim_max_time();
	f->cpu = sim.cur_cpu && !sim.in_event ? sim.cur_cpu->id : -1;
	snprintf(f->context, sizeof(f->context), "%s",
		 sim.cur && !sim.in_event ? sim_ctx_name(sim.cur) : "machine");
	if (site) {
		f->site = *site;
		f->site.func = sim_unprefix(site->func);
	}
	f->decision = sim_decision_count();
	if (sim.cur && !sim.in_event)
		memcpy(f->note, sim.cur->note, sizeof(f->note));
	nfindings++;
	sim_trace(REC_FINDING, nfindings - 1, 0, 0, 0, sim_finding_kind_name(kind), NULL);
	return f;
}

void sim_note(const char *fmt, ...)
{
	va_list ap;

	if (!sim.cur || sim.in_event)
		return;
	va_start(ap, fmt);
	vsnprintf(sim.cur->note, sizeof(sim.cur->note), fmt, ap);
	va_end(ap);
}

size_t sim_finding_count(void)
{
	return nfindings;
}

const struct sim_finding *sim_finding(size_t i)
{
	return i < nfindings ? &findings[i] : NULL;
}

size_t sim_finding_count_kind(enum sim_finding_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < nfindings; i++)
		n += findings[i].kind == kind;
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
	sim_report(SIM_F_BUG, site, "kernel BUG at %s:%d! %s: BUG_ON(%s)", site ? site->file : "?",
		   site ? site->line : 0, site ? sim_unprefix(site->func) : "?", cond);
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
