/*
 * The text view: the tracefs `trace` file of a 6.12 kernel with the nop
 * tracer and irq-info on, so kernel developers read a run as they read a
 * machine. Event names and field formats are the kernel's TP_printk() ones
 * (include/trace/events/{sched,timer,irq,task,printk}.h); the simulator's
 * own events (kwsim_*) use the same line shape.
 *
 * The five flag columns are 6.12's, from the machine's irq and preempt
 * state as tracing_gen_ctx_irq_test() reads the kernel's; the machine has
 * no migrate_disable(), so that column is always '.'. One thing differs
 * from a kernel on purpose: %p prints the simulator's fake addresses,
 * which are stable, where a kernel prints hashed ones.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "view/trace_view.h"

#include <sim/sim.h>

/* include/linux/sched.h values, which the machine's task states share */
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define EXIT_DEAD		0x0010
#define TASK_DEAD		0x0080
#define TASK_NOLOAD		0x0400
#define TASK_FROZEN		0x8000
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_REPORT		0x007f
#define TASK_REPORT_IDLE	(TASK_REPORT + 1)

/* include/linux/timer.h */
#define TIMER_CPUMASK		0x0003ffffULL
#define TIMER_MIGRATING		0x00040000ULL
#define TIMER_DEFERRABLE	0x00080000ULL
#define TIMER_PINNED		0x00100000ULL
#define TIMER_IRQSAFE		0x00200000ULL

#define NSEC_PER_SEC		1000000000ULL

unsigned int trace_view_hz(const struct trace_view_opts *o)
{
	return o && o->hz ? o->hz : 250;
}

unsigned long trace_view_jiffies(uint64_t ns, unsigned int hz)
{
	/* INITIAL_JIFFIES: jiffies wrap five minutes after boot */
	unsigned long initial = (unsigned long)(unsigned int)(-300 * (int)hz);

	/* split, so that ns * hz cannot overflow */
	return initial + (unsigned long)((ns / NSEC_PER_SEC) * hz +
					 (ns % NSEC_PER_SEC) * hz / NSEC_PER_SEC);
}

/* fls(): the 1-based index of the highest set bit, 0 for none */
static int fls32(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

const char *trace_view_prev_state(const struct sim_rec *r)
{
	/* sched_switch's __print_flags table, indexed by the reported bit */
	static const char *const names[] = { "S", "D", "T", "t", "X", "Z", "P", "I" };
	unsigned int st = (unsigned int)r->b;
	unsigned int rep;

	/* preemption ignores the task's state: always running */
	if (r->d & TRACE_SWITCH_PREEMPT)
		return "R+";
	rep = st & TASK_REPORT;
	/* a kthread has no parent to wait for it: it dies EXIT_DEAD at once */
	if (st & TASK_DEAD)
		rep |= EXIT_DEAD;
	/* __task_state_index(): idle sleeps and frozen tasks have their own letters */
	if ((st & TASK_IDLE) == TASK_IDLE)
		rep = TASK_REPORT_IDLE;
	if (st & TASK_FROZEN)
		rep = TASK_UNINTERRUPTIBLE;
	return rep ? names[fls32(rep) - 1] : "R";
}

static void timer_flags(char *buf, size_t len, uint64_t flags)
{
	static const struct {
		uint64_t mask;
		const char *name;
	} tab[] = {
		{ TIMER_MIGRATING, "M" },
		{ TIMER_DEFERRABLE, "D" },
		{ TIMER_PINNED, "P" },
		{ TIMER_IRQSAFE, "I" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!(flags & tab[i].mask))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? "|" : "", tab[i].name);
	}
}

void trace_view_timer_start(const struct sim_rec *r, unsigned int hz, struct trace_timer_start *t)
{
	t->expires = (unsigned long)r->b;
	t->timeout = (long)(t->expires - trace_view_jiffies(r->time, hz));
	t->bucket_expiry = (unsigned long)r->c;
	t->cpu = (unsigned int)(r->d & TIMER_CPUMASK);
	t->idx = (unsigned int)(r->d >> 32);
	timer_flags(t->flags, sizeof(t->flags), r->d);
}

int trace_view_softirq_vec(const char *name)
{
	/* SOFTIRQ_NAME_LIST, in vector order */
	static const char *const vecs[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
		"TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	if (!name)
		return 1;	/* the machine's only softirq is the timer's */
	for (int i = 0; i < (int)(sizeof(vecs) / sizeof(vecs[0])); i++)
		if (!strcmp(name, vecs[i]))
			return i;
	return -1;
}

const char *trace_view_str(const char *s)
{
	return s ? s : "(null)";
}

/* --- the header ----------------------------------------------------------------------- */

/*
 * s_show(), print_event_info() and print_func_help_header_irq() of 6.12,
 * without record-tgid (its precision of 2 spaces written out).
 */
static int header(char *buf, size_t len, size_t in_buffer, size_t written, int ncpus)
{
	/*
	 * get_total_entries(): what the buffer holds, then what was written to
	 * it, the lines the limit cut off included, as a full ring buffer's
	 * overrun counts.
	 */
	return snprintf(buf, len, "# tracer: nop\n#\n"
		       "# entries-in-buffer/entries-written: %zu/%zu   #P:%d\n#\n"
		       "#                                _-----=> irqs-off/BH-disabled\n"
		       "#                               / _----=> need-resched\n"
		       "#                              | / _---=> hardirq/softirq\n"
		       "#                              || / _--=> preempt-depth\n"
		       "#                              ||| / _-=> migrate-disable\n"
		       "#                              |||| /     delay\n"
		       "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		       "#              | |         |   |||||     |         |\n",
		       in_buffer, written, ncpus);
}

static void write_header(FILE *out, size_t in_buffer, size_t written, int ncpus)
{
	char buf[1024];

	header(buf, sizeof(buf), in_buffer, written, ncpus);
	fputs(buf, out);
}

/* --- merging the CPUs' streams ------------------------------------------------------- */

/*
 * The kernel's iterator takes, of the per-CPU buffers' next entries, the one
 * with the smallest timestamp, the lowest CPU on a tie; each CPU's own order
 * is kept. Records are per CPU in the order the machine made them. Streamed,
 * a CPU's next entry may not have been made yet, but it cannot be older
 * than the watermark: an entry older than the watermark that wins among the
 * entries present wins among all.
 */
struct trace_cpu_queue {
	struct sim_rec *v;	/* a ring */
	size_t head, n, cap;
};

void trace_merge_push(struct trace_merge *m, const struct sim_rec *r)
{
	struct trace_cpu_queue *q;

	if (r->cpu >= m->nq) {
		size_t n = (size_t)r->cpu + 1;

		m->q = realloc(m->q, n * sizeof(*m->q));
		if (!m->q)
			abort();
		memset(&m->q[m->nq], 0, (n - m->nq) * sizeof(*m->q));
		m->nq = n;
	}
	q = &m->q[r->cpu];
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct sim_rec *v = malloc(cap * sizeof(*v));

		if (!v)
			abort();
		for (size_t i = 0; i < q->n; i++)
			v[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = v;
		q->head = 0;
		q->cap = cap;
	}
	q->v[(q->head + q->n++) % q->cap] = *r;
	m->held++;
}

const struct sim_rec *trace_merge_next(struct trace_merge *m, uint64_t watermark, bool all)
{
	struct trace_cpu_queue *best = NULL;
	const struct sim_rec *r;

	for (size_t c = 0; c < m->nq; c++) {
		struct trace_cpu_queue *q = &m->q[c];

		/* strictly earlier: a tie goes to the lower CPU, seen first */
		if (q->n && (!best || q->v[q->head].time < best->v[best->head].time))
			best = q;
	}
	if (!best || (!all && best->v[best->head].time >= watermark))
		return NULL;
	r = &best->v[best->head];
	best->head = (best->head + 1) % best->cap;
	best->n--;
	m->held--;
	return r;
}

void trace_merge_free(struct trace_merge *m)
{
	for (size_t c = 0; c < m->nq; c++)
		free(m->q[c].v);
	free(m->q);
	memset(m, 0, sizeof(*m));
}

/* How many lines go by between two looks at the body's size. */
#define LIMIT_CHECK_EVERY	64

struct trace_text {
	FILE *body;
	unsigned int hz;
	int ncpus;		/* for the header's #P */
	size_t written;		/* lines, for the header's entries */
	size_t lost;		/* lines the limit cut off */
	const struct trace_filter *filter;
	unsigned long long limit;
	unsigned long long *lost_out;
	unsigned int since_check;
	bool cut;		/* the limit was reached: lines are counted, not written */
	struct trace_merge m;
};

/* --- one line ----------------------------------------------------------------------------- */

/*
 * The task the line is "in": the record's, except for sched_switch, which
 * the kernel always records in prev's context.
 */
static void line_task(const struct sim_rec *r, char comm[17], int *pid)
{
	const char *c = r->comm;

	*pid = r->pid;
	if (r->type == REC_SCHED_SWITCH) {
		*pid = (int)r->a;
		c = r->s ? r->s : "";
	}
	/* trace_find_cmdline(): the idle task has no comm of its own */
	if (*pid == 0)
		c = "<idle>";
	else if (!c[0])
		c = "<...>";
	snprintf(comm, 17, "%.16s", c);
}

/*
 * trace_print_lat_fmt() of 6.12. The machine sets need-resched as x86 does
 * for the running CPU, TIF_NEED_RESCHED and PREEMPT_NEED_RESCHED together:
 * 'N'. It has no NMIs, no irq-flags-less arch and no migrate_disable().
 */
static void flags_column(const struct sim_rec *r, char col[6])
{
	bool irqs_off = r->flags & TRACE_FLAG_IRQS_OFF, bh_off = r->flags & TRACE_FLAG_BH_OFF;
	bool hardirq = r->flags & TRACE_FLAG_HARDIRQ, softirq = r->flags & TRACE_FLAG_SOFTIRQ;
	unsigned int depth = r->preempt < 0xf ? r->preempt : 0xf;

	col[0] = irqs_off && bh_off ? 'D' : irqs_off ? 'd' : bh_off ? 'b' : '.';
	col[1] = r->flags & TRACE_FLAG_NEED_RESCHED ? 'N' : '.';
	col[2] = hardirq && softirq ? 'H' : hardirq ? 'h' : softirq ? 's' : '.';
	col[3] = depth ? "0123456789abcdef"[depth] : '.';
	col[4] = '.';	/* migrate-disable */
	col[5] = '\0';
}

static void write_context(FILE *out, const struct sim_rec *r)
{
	/* ns2usecs() rounds to the nearest microsecond */
	unsigned long long us = (r->time + 500) / 1000;
	char comm[17], col[6];
	int pid;

	line_task(r, comm, &pid);
	flags_column(r, col);
	fprintf(out, "%16s-%-7d [%03u] %s %5llu.%06llu: ", comm, pid, (unsigned int)r->cpu, col,
		us / 1000000, us % 1000000);
}

static void write_timer_start(FILE *out, const struct sim_rec *r, unsigned int hz)
{
	struct trace_timer_start t;

	trace_view_timer_start(r, hz, &t);
	fprintf(out, "timer_start: timer=%016llx function=%s expires=%lu [timeout=%ld] "
		"bucket_expiry=%lu cpu=%u idx=%u flags=%s\n",
		(unsigned long long)r->a, trace_view_str(r->s), t.expires, t.timeout,
		t.bucket_expiry, t.cpu, t.idx, t.flags);
}

static void write_model(FILE *out, const struct sim_rec *r)
{
	const char *ev = trace_view_str(r->s);

	if (!strcmp(ev, "sched_kthread_work_queue_work"))
		fprintf(out, "%s: work struct=%016llx function=%s worker=%016llx\n", ev,
			(unsigned long long)r->a, trace_view_str(r->s2), (unsigned long long)r->b);
	else if (!strcmp(ev, "sched_kthread_work_execute_start") ||
		 !strcmp(ev, "sched_kthread_work_execute_end"))
		fprintf(out, "%s: work struct %016llx: function %s\n", ev,
			(unsigned long long)r->a, trace_view_str(r->s2));
	else	/* a tracepoint this view does not know yet: every field, raw */
		fprintf(out, "%s: a=%#llx b=%#llx c=%#llx d=%#llx function=%s\n", ev,
			(unsigned long long)r->a, (unsigned long long)r->b,
			(unsigned long long)r->c, (unsigned long long)r->d, trace_view_str(r->s2));
}

static void write_printk(FILE *out, const struct sim_rec *r)
{
	const char *msg = trace_view_str(r->s);
	size_t len = strlen(msg);

	/* the console event cuts one trailing newline, to avoid blank lines */
	if (len && msg[len - 1] == '\n')
		len--;
	fprintf(out, "console: %.*s\n", (int)len, msg);
}

static void write_softirq(FILE *out, const char *ev, const struct sim_rec *r)
{
	int vec = trace_view_softirq_vec(r->s);

	if (vec < 0)
		fprintf(out, "%s: vec=? [action=%s]\n", ev, r->s);
	else
		fprintf(out, "%s: vec=%d [action=%s]\n", ev, vec, r->s ? r->s : "TIMER");
}

/* One field of a plain event, as its TP_printk() prints it (sim/trace_events.h). */
static void write_field(FILE *out, const struct sim_rec *r, const struct sim_rec_field *f)
{
	unsigned long long v = sim_rec_field_u64(r, f);

	switch (f->type) {
	case SIM_FT_PTR:
		fprintf(out, "%016llx", v);
		break;
	case SIM_FT_INT:
		fprintf(out, "%d", (int)v);
		break;
	case SIM_FT_ULONG:
		fprintf(out, "%lu", (unsigned long)v);
		break;
	case SIM_FT_U64:
		fprintf(out, "%llu", v);
		break;
	case SIM_FT_CPU:
		fprintf(out, "%03d", (int)v);
		break;
	case SIM_FT_COMM:
		fprintf(out, "%.16s", sim_rec_field_str(r, f));
		break;
	default:
		fputs(trace_view_str(sim_rec_field_str(r, f)), out);
		break;
	}
}

/* The events whose format is not "name=value": the kernel's own TP_printk() shapes. */
static void write_own(FILE *out, const struct sim_rec *r, unsigned int hz)
{
	unsigned long long a = r->a, b = r->b;

	switch (r->type) {
	case REC_SCHED_SWITCH:
		fprintf(out, "sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> "
			"next_comm=%s next_pid=%d next_prio=120\n", trace_view_str(r->s), (int)a,
			trace_view_prev_state(r), trace_view_str(r->s2), (int)r->c);
		break;
	case REC_TIMER_START:
		write_timer_start(out, r, hz);
		break;
	case REC_LOCK_ACQUIRE:	/* lock.h's "%p %s%s%s": flags, then the lockdep name */
		fprintf(out, "lock_acquire: %016llx %s%s%s\n", a, (b & TRACE_LOCK_TRY) ? "try " : "",
			(b & TRACE_LOCK_READ) ? "read " : "", trace_view_str(r->s));
		break;
	case REC_LOCK_RELEASE:
		fprintf(out, "lock_release: %016llx %s\n", a, trace_view_str(r->s));
		break;
	case REC_SOFTIRQ_ENTRY:
		write_softirq(out, "softirq_entry", r);
		break;
	case REC_SOFTIRQ_EXIT:
		write_softirq(out, "softirq_exit", r);
		break;
	case REC_FREEZER:
		if (r->s2)	/* a task's: frozen, thawed */
			fprintf(out, "kwsim_freezer: %s pid=%llu comm=%s\n", trace_view_str(r->s), a,
				trace_view_str(r->s2));
		else	/* the suspend's steps, as power.h's suspend_resume prints them */
			fprintf(out, "suspend_resume: %s[%u] %s\n", trace_view_str(r->s),
				(unsigned int)b, r->c ? "begin" : "end");
		break;
	case REC_MODEL:
		write_model(out, r);
		break;
	case REC_PRINTK:
		write_printk(out, r);
		break;
	case REC_STALL: {
		char until[16];

		fprintf(out, "kwsim_stall: held_ns=%llu until=%s decision=%llu ctx=%s line=%llu%s%s\n",
			a, sim_stall_until_name((int64_t)r->b, until, sizeof(until)),
			(unsigned long long)r->c, r->s ? r->s : "idle", (unsigned long long)r->d,
			r->s2 ? " note=" : "", r->s2 ? r->s2 : "");
		break;
	}
	default:
		fprintf(out, "kwsim_unknown: type=%u a=%#llx b=%#llx\n", (unsigned int)r->type, a, b);
		break;
	}
}

static void write_event(FILE *out, const struct sim_rec *r, unsigned int hz)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);

	if (!d || d->print == SIM_PRINT_OWN) {
		write_own(out, r, hz);
		return;
	}
	fprintf(out, "%s:", d->event);
	for (unsigned int i = 0; i < d->nfields; i++) {
		fprintf(out, " %s=", d->field[i].name);
		write_field(out, r, &d->field[i]);
	}
	fputc('\n', out);
}

const char *trace_view_event_name(const struct sim_rec *r)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);

	if (!d)
		return "kwsim_unknown";
	if (r->type == REC_MODEL)	/* the tracepoint's own name */
		return trace_view_str(r->s);
	if (r->type == REC_FREEZER && !r->s2)
		return "suspend_resume";
	return d->event;
}

enum trace_value trace_view_field(const struct sim_rec *r, const struct sim_rec_field *f,
				  struct trace_field_value *v)
{
	v->s = trace_view_str(sim_rec_field_str(r, f));
	v->n = (long long)sim_rec_field_u64(r, f);
	switch (f->type) {
	case SIM_FT_PTR:
		return TRACE_VALUE_ADDR;
	case SIM_FT_COMM:	/* a comm may fill its 16 bytes, unterminated */
		snprintf(v->comm, sizeof(v->comm), "%.16s", v->s);
		v->s = v->comm;
		return TRACE_VALUE_STR;
	case SIM_FT_STR:
		return TRACE_VALUE_STR;
	case SIM_FT_INT:
	case SIM_FT_CPU:
		v->n = (int)v->n;
		return TRACE_VALUE_INT;
	default:
		return TRACE_VALUE_UINT;
	}
}

const char *trace_view_event_system(const struct sim_rec *r)
{
	const struct sim_rec_desc *d = sim_rec_desc(r->type);

	if (!d)
		return "kwsim";
	if (r->type == REC_MODEL)	/* sched_kthread_work_*, or kwsim's own */
		return r->s && !strncmp(r->s, "sched_", 6) ? "sched" : "kwsim";
	if (r->type == REC_FREEZER && !r->s2)
		return "power";
	return d->system;
}

long long trace_view_fit(FILE *body, unsigned long long len, unsigned long long budget,
			 unsigned long long *dropped)
{
	char buf[4096];
	unsigned long long cut = 0, end = budget, n = 0;
	bool found = false;

	*dropped = 0;
	if (len <= budget)
		return (long long)len;
	if (fflush(body))
		return -1;
	/* the last newline before the budget: the line it ends is the last kept */
	while (end && !found) {
		size_t k = end < sizeof(buf) ? (size_t)end : sizeof(buf);

		if (fseeko(body, (off_t)(end - k), SEEK_SET) || fread(buf, 1, k, body) != k)
			return -1;
		for (size_t i = k; i-- > 0;) {
			if (buf[i] == '\n') {
				cut = end - k + i + 1;
				found = true;
				break;
			}
		}
		end -= k;
	}
	/* the lines after it */
	if (fseeko(body, (off_t)cut, SEEK_SET))
		return -1;
	for (unsigned long long at = cut; at < len;) {
		size_t k = len - at < sizeof(buf) ? (size_t)(len - at) : sizeof(buf);

		if (fread(buf, 1, k, body) != k)
			return -1;
		for (size_t i = 0; i < k; i++)
			n += buf[i] == '\n';
		at += k;
		if (at == len && buf[k - 1] != '\n')
			n++;
	}
	*dropped = n;
	return (long long)cut;
}

int trace_view_copy(FILE *out, FILE *body, unsigned long long len)
{
	char buf[65536];

	if (fflush(body) || fseeko(body, 0, SEEK_SET))
		return -1;
	while (len) {
		size_t k = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		if (fread(buf, 1, k, body) != k || fwrite(buf, 1, k, out) != k)
			return -1;
		len -= k;
	}
	return ferror(out) ? -1 : 0;
}

struct trace_text *trace_text_begin(const struct trace_view_opts *o)
{
	struct trace_text *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->hz = trace_view_hz(o);
	t->ncpus = o && o->ncpus > 0 ? o->ncpus : 1;
	t->filter = o ? o->filter : NULL;
	t->limit = o ? o->limit : 0;
	t->lost_out = o ? o->lost : NULL;
	t->body = tmpfile();
	if (!t->body) {
		free(t);
		return NULL;
	}
	return t;
}

void trace_text_record(struct trace_text *t, const struct sim_rec *r)
{
	/*
	 * a filtered event never reaches the kernel's buffer: it is not counted
	 * either; nor is a record of kwsim's own that stands in for a kernel's
	 * missing tracepoint (4.9's work records), which no tracefs shows
	 */
	if (!trace_filter_pass(t->filter, r) || sim_rec_kwsim_own(r))
		return;
	if (r->cpu >= t->ncpus)
		t->ncpus = r->cpu + 1;
	trace_merge_push(&t->m, r);
}

static void release(struct trace_text *t, uint64_t watermark, bool all)
{
	const struct sim_rec *r;

	while ((r = trace_merge_next(&t->m, watermark, all))) {
		if (t->limit && !t->cut && ++t->since_check == LIMIT_CHECK_EVERY) {
			t->since_check = 0;
			t->cut = ftello(t->body) >= (off_t)t->limit;
		}
		if (t->cut) {
			t->lost++;
		} else {
			write_context(t->body, r);
			write_event(t->body, r, t->hz);
			t->written++;
		}
	}
}

void trace_text_release(struct trace_text *t, uint64_t watermark)
{
	release(t, watermark, false);
}

size_t trace_text_held(const struct trace_text *t)
{
	return t->m.held;
}

int trace_text_end(struct trace_text *t, FILE *out)
{
	int rc = 0;

	release(t, 0, true);
	if (out) {
		off_t len = ftello(t->body);
		unsigned long long dropped = 0;
		long long kept = len;

		/* the whole file within the limit: the header's length with these counts at most */
		if (t->limit && len >= 0) {
			/* cutting lines only shortens the header: entries-written stays */
			unsigned long long hlen = (unsigned long long)header(
				NULL, 0, t->written, t->written + t->lost, t->ncpus);

			kept = trace_view_fit(t->body, (unsigned long long)len,
					      t->limit > hlen ? t->limit - hlen : 0, &dropped);
		}
		if (len < 0 || kept < 0) {
			rc = -1;
		} else {
			t->written -= dropped;
			t->lost += dropped;
			write_header(out, t->written, t->written + t->lost, t->ncpus);
			rc = trace_view_copy(out, t->body, (unsigned long long)kept);
		}
		if (ferror(t->body) || ferror(out))
			rc = -1;
	}
	if (t->lost_out)
		*t->lost_out = t->lost;
	fclose(t->body);
	trace_merge_free(&t->m);
	free(t);
	return rc;
}

void trace_write_text(FILE *out, const struct sim_rec *recs, size_t n,
		      const struct trace_view_opts *o)
{
	struct trace_text *t = trace_text_begin(o);

	if (!t)
		abort();
	for (size_t i = 0; i < n; i++)
		trace_text_record(t, &recs[i]);
	trace_text_end(t, out);
}
