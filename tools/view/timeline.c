/*
 * The timeline view: a run drawn in the terminal, one column per slice of
 * simulated time, so a kernel developer sees the shape of a race and a
 * student sees what "the worker sleeps, the queueing wakes it" looks like.
 *
 *  - per CPU, a lane: which context runs (a letter per task, '.' idle, H
 *    hardirq, S softirq, '~' spinning on a lock), under it the works it
 *    executes (a letter per work function), 'h' where it is held up (a
 *    stall: nothing ran on it), where it holds a lock ('#'
 *    from lock_acquire to lock_release, any lock), and marks for what
 *    happens at a point (queueings, timers armed, cancelled and firing,
 *    wake-ups, freezing, findings);
 *  - per task on request: running, running a work, spinning, runnable,
 *    blocked (D), sleeping (S), frozen;
 *  - a machine lane when the run suspends (freezing, thawing); the
 *    machine's sleep takes no time on its clock, so it is a mark with a
 *    note below saying how long the boot clock counted;
 *  - a time axis with units, the legend, and the findings with their times.
 *
 * A column shows what mattered in it, not only what took longest: a 1 us
 * work in a 100 us column still shows. In a CPU lane an irq beats a stall (h),
 * which beats a
 * softirq, which beats a spin, which beats the task that ran longest; idle
 * shows only when nothing else ran. The works row shows the first work to
 * begin in the column (one that takes no time is not hidden by the next),
 * else the one that ran longest. Marks have a rank ("!" first); task lanes
 * rank being on a CPU over waiting, and among the ways of waiting the
 * longest wins.
 *
 * Records arrive in the machine's order; they are taken in time order
 * (trace_merge) once the watermark has passed them, so every state is
 * followed as time runs, and painted into cells at once. Without --to the
 * run's length is not known in advance: the cells start at 1 ns each and
 * double (two cells merge into one) whenever a record lands past the last,
 * so there are always between R / 2 and R cells per column to come. At the
 * end each column takes a whole number of cells, so the drawing fills 80 to
 * 100% of the width. Memory: the cells (about 200 bytes each, R times the
 * columns per lane), the tasks, and the records the watermark has not
 * passed yet; at most MAX_TASK_LANES task lanes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "view/trace_view.h"

#define CELLS_PER_COL	8	/* R above: how finely an open window is kept */
#define TOP		3	/* candidates kept per cell for "the longest" */
#define MAX_TASK_LANES	32
#define MAX_WORKS	62	/* A-Z, a-z, 0-9; the rest share '+' */
#define MAX_NOTES	32	/* findings and suspends listed; the rest counted */
#define LABEL_W		16	/* the lane names' column */
#define NSEC_PER_SEC	1000000000ULL

enum kind {
	K_HARDIRQ, K_STALL, K_SOFTIRQ, K_SPIN, K_RUN, K_HELD,	/* on a CPU */
	K_RUNNABLE, K_BLOCKED, K_SLEEP, K_FROZEN,		/* a task waiting */
	K_SUSPEND, K_FREEZE, K_THAW,				/* the machine */
	K_NKINDS
};

/* Marks, lowest rank first. */
static const char mark_rank[] = "wqtx*T!";

struct top {
	uint32_t id[TOP];
	uint64_t ns[TOP];
	uint8_t n;
};

struct cell {
	uint64_t ns[K_NKINDS];
	uint32_t present;	/* bit per kind: even for no time at all */
	struct top who;		/* CPU lanes: the tasks (symbol index) that ran */
	struct top work;	/* the work functions executed */
	uint8_t first;		/* 1 + the work function whose execution began first, 0: none */
	char mark;
};

enum tstate { T_NONE, T_RUN, T_RUNNABLE, T_BLOCKED, T_SLEEP, T_FROZEN, T_DEAD };

struct task {
	char comm[17];
	int sym;		/* index in syms, -1 before it has a name */
	int lane;		/* index in task lanes, or -1 */
	enum tstate state;
	bool frozen;		/* the freezer took it: it sleeps frozen */
	int work;		/* the work function it executes, or -1 */
	uint64_t since;
};

struct cpu {
	int32_t pid;		/* running: 0 idle */
	int hardirq, softirq;	/* nesting */
	uint64_t since;
	int held;		/* locks held */
	uint64_t held_since;	/* the first of them taken */
	struct cell *cells;
};

struct note {
	uint64_t time;
	uint64_t a, d;
	const char *s;
	int cpu;
	char comm[17];
};

struct trace_timeline {
	struct trace_timeline_opts o;
	struct trace_merge m;
	int cols;		/* the drawing's columns at most */
	uint64_t dt;		/* ns per cell */
	size_t ncells;
	bool open;		/* no --to: cells double as the run goes on */
	uint64_t end;		/* the last record's time */
	bool any;
	bool stalls;		/* a CPU was held up: the legend says what 'h' is */

	struct cpu *cpu;
	size_t ncpu;
	struct task *task;	/* by pid */
	size_t ntask;
	struct cell **tlane;	/* task lanes' cells, in order of their tasks' births */
	int32_t *tlane_pid;
	size_t ntlane;
	size_t nolane;		/* tasks past MAX_TASK_LANES */
	struct cell *machine;	/* the suspend lane, once the run suspends */
	uint64_t step_at[3];	/* when each suspend step began, while step_on */
	bool step_on[3];

	char syms[64];		/* task symbols, by index */
	const char *symname[64];
	size_t nsyms;
	char wsym[MAX_WORKS + 1];
	const char *work[MAX_WORKS + 1];	/* function names (interned by the machine) */
	size_t nworks;

	struct note findings[MAX_NOTES], sleeps[MAX_NOTES];
	size_t nfindings, nsleeps;
	const char *locks[8];
	size_t nlocks;
};

/* --- cells --------------------------------------------------------------------------- */

static void top_add(struct top *t, uint32_t id, uint64_t ns)
{
	uint8_t min = 0;

	for (uint8_t i = 0; i < t->n; i++) {
		if (t->id[i] == id) {
			t->ns[i] += ns;
			return;
		}
		if (t->ns[i] < t->ns[min])
			min = i;
	}
	if (t->n < TOP) {
		t->id[t->n] = id;
		t->ns[t->n++] = ns;
	} else if (ns > t->ns[min]) {	/* the least is dropped: first of the least on a tie */
		t->id[min] = id;
		t->ns[min] = ns;
	}
}

/* The candidate with the most time; the first seen on a tie. -1: none. */
static int top_best(const struct top *t)
{
	int best = -1;

	for (uint8_t i = 0; i < t->n; i++)
		if (best < 0 || t->ns[i] > t->ns[best])
			best = i;
	return best < 0 ? -1 : (int)t->id[best];
}

static void cell_merge(struct cell *into, const struct cell *c)
{
	for (int k = 0; k < K_NKINDS; k++)
		into->ns[k] += c->ns[k];
	into->present |= c->present;
	if (!into->first)	/* into is the earlier cell */
		into->first = c->first;
	for (uint8_t i = 0; i < c->who.n; i++)
		top_add(&into->who, c->who.id[i], c->who.ns[i]);
	for (uint8_t i = 0; i < c->work.n; i++)
		top_add(&into->work, c->work.id[i], c->work.ns[i]);
	if (c->mark && (!into->mark || strchr(mark_rank, c->mark) > strchr(mark_rank, into->mark)))
		into->mark = c->mark;
}

static struct cell *new_cells(const struct trace_timeline *t)
{
	struct cell *c = calloc(t->ncells, sizeof(*c));

	if (!c)
		abort();
	return c;
}

static void halve(struct trace_timeline *t, struct cell *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < t->ncells / 2; i++) {
		struct cell m = c[2 * i];

		cell_merge(&m, &c[2 * i + 1]);
		c[i] = m;
	}
	memset(&c[t->ncells / 2], 0, (t->ncells - t->ncells / 2) * sizeof(*c));
}

/* An open window grows until time `last` has a cell. */
static void reach(struct trace_timeline *t, uint64_t last)
{
	if (!t->open || last < t->o.from)
		return;
	while (t->dt <= (last - t->o.from) / t->ncells) {
		for (size_t i = 0; i < t->ncpu; i++)
			halve(t, t->cpu[i].cells);
		for (size_t i = 0; i < t->ntlane; i++)
			halve(t, t->tlane[i]);
		halve(t, t->machine);
		t->dt *= 2;
	}
}

/* Whether time x is in the window; *i its cell. */
static bool cell_of(const struct trace_timeline *t, uint64_t x, size_t *i)
{
	if (x < t->o.from || (t->o.to && x >= t->o.to))
		return false;
	*i = (size_t)((x - t->o.from) / t->dt);
	return *i < t->ncells;
}

/*
 * [a, b) spent as kind (-1: none), by task symbol who and work function
 * work (-1: none), into cells c; a span of no time still shows where it is.
 */
static void paint(struct trace_timeline *t, struct cell *c, uint64_t a, uint64_t b, int kind,
		  int who, int work)
{
	bool point = a == b;
	size_t i;

	if (!c)
		return;
	if (t->o.to && b > t->o.to)
		b = t->o.to;
	/* a span that ends where the window begins is not in it; a point there is */
	if (!point && b <= t->o.from)
		return;
	if (a < t->o.from)
		a = t->o.from;
	if (b < a || (!point && b == a))
		return;
	reach(t, b > a ? b - 1 : a);
	if (!cell_of(t, a, &i))
		return;
	do {
		uint64_t start = t->o.from + i * t->dt, stop = start + t->dt;
		uint64_t ns = (b < stop ? b : stop) - (a > start ? a : start);

		if (kind >= 0) {
			c[i].ns[kind] += ns;
			c[i].present |= 1U << kind;
		}
		if (who >= 0)
			top_add(&c[i].who, (uint32_t)who, ns);
		if (work >= 0)
			top_add(&c[i].work, (uint32_t)work, ns);
		a = stop;
	} while (a < b && ++i < t->ncells);
}

static void mark(struct trace_timeline *t, struct cell *c, uint64_t x, char m)
{
	size_t i;

	if (!c)
		return;
	reach(t, x);
	if (cell_of(t, x, &i) &&
	    (!c[i].mark || strchr(mark_rank, m) > strchr(mark_rank, c[i].mark)))
		c[i].mark = m;
}

/*
 * A work's execution begins at x: the first to begin in a column is the
 * one it shows, so that one that takes no time is not hidden by the next.
 */
static void begin_work(struct trace_timeline *t, struct cell *c, uint64_t x, int work)
{
	size_t i;

	if (!c)
		return;
	reach(t, x);
	if (cell_of(t, x, &i) && !c[i].first)
		c[i].first = (uint8_t)(work + 1);
}

/* --- symbols ------------------------------------------------------------------------- */

/*
 * A letter for a name: its own first free letter or digit (cased as
 * wanted), else the first free of the alphabet, else '+'.
 */
static char pick_sym(const char *used, size_t nused, const char *name, bool upper,
		     const char *alphabet)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *c = pass ? alphabet : name;

		for (; c && *c; c++) {
			char ch = (char)(upper ? toupper((unsigned char)*c) : tolower((unsigned char)*c));

			if (isalnum((unsigned char)ch) && !memchr(used, ch, nused))
				return ch;
		}
	}
	return '+';
}

static struct task *task_get(struct trace_timeline *t, uint64_t pid)
{
	if (!pid || pid > INT32_MAX)
		return NULL;
	if (pid >= t->ntask) {
		size_t n = t->ntask ? t->ntask : 16;

		while (n <= pid)
			n *= 2;
		t->task = realloc(t->task, n * sizeof(*t->task));
		if (!t->task)
			abort();
		for (size_t i = t->ntask; i < n; i++)
			t->task[i] = (struct task){ .sym = -1, .lane = -1, .work = -1 };
		t->ntask = n;
	}
	return &t->task[pid];
}

static void name_task(struct trace_timeline *t, uint64_t pid, const char *comm)
{
	struct task *k = task_get(t, pid);

	if (!k || k->sym >= 0 || !comm || !comm[0])
		return;
	snprintf(k->comm, sizeof(k->comm), "%.16s", comm);
	if (t->nsyms < sizeof(t->syms)) {
		t->syms[t->nsyms] = pick_sym(t->syms, t->nsyms, k->comm, false,
					     "abcdefghijklmnopqrstuvwxyz0123456789");
		t->symname[t->nsyms] = NULL;
		k->sym = (int)t->nsyms++;
	}
	if (t->o.task_lanes && t->ntlane < MAX_TASK_LANES) {
		t->tlane = realloc(t->tlane, (t->ntlane + 1) * sizeof(*t->tlane));
		t->tlane_pid = realloc(t->tlane_pid, (t->ntlane + 1) * sizeof(*t->tlane_pid));
		if (!t->tlane || !t->tlane_pid)
			abort();
		t->tlane[t->ntlane] = new_cells(t);
		t->tlane_pid[t->ntlane] = (int32_t)pid;
		k->lane = (int)t->ntlane++;
	} else if (t->o.task_lanes) {
		t->nolane++;
	}
}

static int work_index(struct trace_timeline *t, const char *fn)
{
	fn = trace_view_str(fn);
	for (size_t i = 0; i < t->nworks; i++)
		if (t->work[i] == fn || !strcmp(t->work[i], fn))
			return (int)i;
	if (t->nworks == MAX_WORKS)
		return MAX_WORKS;	/* '+' */
	t->wsym[t->nworks] = pick_sym(t->wsym, t->nworks, fn, true,
				      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
	t->work[t->nworks] = fn;
	return (int)t->nworks++;
}

/* --- following the run --------------------------------------------------------------- */

static struct cpu *cpu_get(struct trace_timeline *t, size_t n)
{
	if (n >= t->ncpu) {
		t->cpu = realloc(t->cpu, (n + 1) * sizeof(*t->cpu));
		if (!t->cpu)
			abort();
		for (size_t i = t->ncpu; i <= n; i++)
			t->cpu[i] = (struct cpu){ .cells = t->o.cpu_lanes ? new_cells(t) : NULL };
		t->ncpu = n + 1;
	}
	return &t->cpu[n];
}

/* What the CPU did since its last change, up to now. */
static void cpu_close(struct trace_timeline *t, struct cpu *c, uint64_t now)
{
	struct task *k = c->pid ? task_get(t, (uint64_t)c->pid) : NULL;

	if (c->hardirq)
		paint(t, c->cells, c->since, now, K_HARDIRQ, -1, -1);
	else if (c->softirq)
		paint(t, c->cells, c->since, now, K_SOFTIRQ, -1, -1);
	else if (k)
		paint(t, c->cells, c->since, now, K_RUN, k->sym, k->work);
	c->since = now;
}

static void task_close(struct trace_timeline *t, struct task *k, uint64_t now)
{
	static const int kinds[] = {
		[T_RUN] = K_RUN, [T_RUNNABLE] = K_RUNNABLE, [T_BLOCKED] = K_BLOCKED,
		[T_SLEEP] = K_SLEEP, [T_FROZEN] = K_FROZEN,
	};

	if (k->lane >= 0 && k->state != T_NONE && k->state != T_DEAD)
		paint(t, t->tlane[k->lane], k->since, now, kinds[k->state], -1,
		      k->state == T_RUN ? k->work : -1);
	k->since = now;
}

static void task_set(struct trace_timeline *t, uint64_t pid, enum tstate st, uint64_t now)
{
	struct task *k = task_get(t, pid);

	if (!k)
		return;
	task_close(t, k, now);
	k->state = st;
}

static void on_switch(struct trace_timeline *t, const struct sim_rec *r)
{
	struct cpu *c = cpu_get(t, r->cpu);
	const char *st = trace_view_prev_state(r);
	struct task *prev = task_get(t, r->a);
	enum tstate to;

	name_task(t, r->a, r->s);
	name_task(t, r->c, r->s2);
	cpu_close(t, c, r->time);
	c->pid = (int32_t)r->c;
	if (st[0] == 'R')
		to = T_RUNNABLE;
	else if (st[0] == 'X' || st[0] == 'Z')
		to = T_DEAD;
	else if (prev && prev->frozen)
		to = T_FROZEN;
	else
		to = st[0] == 'S' || st[0] == 'I' ? T_SLEEP : T_BLOCKED;
	task_set(t, r->a, to, r->time);
	task_set(t, r->c, T_RUN, r->time);
}

static void on_work(struct trace_timeline *t, const struct sim_rec *r)
{
	struct task *k = task_get(t, (uint64_t)r->pid);
	struct cpu *c = cpu_get(t, r->cpu);
	enum sim_work_step step = sim_rec_work_step(r);
	bool start = step == SIM_WORK_START;

	if (step == SIM_WORK_QUEUE) {
		mark(t, c->cells, r->time, 'q');
		return;
	}
	if (!k || (!start && step != SIM_WORK_END))
		return;
	cpu_close(t, c, r->time);
	task_close(t, k, r->time);
	k->work = start ? work_index(t, r->s2) : -1;
	if (start) {
		begin_work(t, c->cells, r->time, k->work);
		if (k->lane >= 0)
			begin_work(t, t->tlane[k->lane], r->time, k->work);
	}
}

static void note(struct note *v, size_t *n, const struct sim_rec *r)
{
	if (*n < MAX_NOTES) {
		v[*n] = (struct note){ .time = r->time, .a = r->a, .d = r->d, .s = r->s,
				       .cpu = r->cpu };
		snprintf(v[*n].comm, sizeof(v[*n].comm), "%.16s",
			 r->pid ? r->comm : "<idle>");
	}
	(*n)++;
}

static const struct {
	const char *action;
	int kind;
} steps[] = {
	{ "suspend_enter", K_SUSPEND }, { "freeze_processes", K_FREEZE }, { "thaw_processes", K_THAW },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static void on_freezer(struct trace_timeline *t, const struct sim_rec *r)
{
	const char *s = trace_view_str(r->s);

	if (r->s2) {	/* a task: frozen or thawed */
		struct task *k = task_get(t, r->a);

		if (k)
			k->frozen = !strcmp(s, "frozen");
		mark(t, cpu_get(t, r->cpu)->cells, r->time, '*');
		return;
	}
	if (!t->machine)
		t->machine = new_cells(t);
	if (!strcmp(s, "machine_suspend")) {
		mark(t, t->machine, r->time, 'Z');
		if (!r->c)
			note(t->sleeps, &t->nsleeps, r);
		return;
	}
	/* a step's span is painted when it ends, from when it began */
	for (size_t i = 0; i < NSTEPS; i++) {
		if (strcmp(s, steps[i].action))
			continue;
		if (r->c) {
			t->step_at[i] = r->time;
			t->step_on[i] = true;
		} else if (t->step_on[i]) {
			paint(t, t->machine, t->step_at[i], r->time, steps[i].kind, -1, -1);
			t->step_on[i] = false;
		}
	}
}

static void take(struct trace_timeline *t, const struct sim_rec *r)
{
	struct cpu *c = cpu_get(t, r->cpu);

	if (r->pid > 0 && r->comm[0] && memchr(r->comm, '\0', sizeof(r->comm)))
		name_task(t, (uint64_t)r->pid, r->comm);
	t->end = r->time;
	t->any = true;
	switch (r->type) {
	case REC_SCHED_SWITCH:
		on_switch(t, r);
		break;
	case REC_SCHED_WAKING: {
		struct task *k = task_get(t, r->a);

		name_task(t, r->a, r->s);
		if (k && k->state != T_RUN)
			task_set(t, r->a, T_RUNNABLE, r->time);
		mark(t, c->cells, r->time, 'w');
		break;
	}
	case REC_TASK_NEW:
		name_task(t, r->a, r->s);
		task_set(t, r->a, T_SLEEP, r->time);	/* until its first wake-up */
		break;
	case REC_TIMER_START:
		mark(t, c->cells, r->time, 't');
		break;
	case REC_TIMER_EXPIRE_ENTRY:
		mark(t, c->cells, r->time, 'T');
		break;
	case REC_TIMER_CANCEL:
		mark(t, c->cells, r->time, 'x');
		break;
	case REC_IRQ_ENTRY:
	case REC_IRQ_EXIT:
		cpu_close(t, c, r->time);
		c->hardirq += r->type == REC_IRQ_ENTRY ? 1 : c->hardirq ? -1 : 0;
		break;
	case REC_SOFTIRQ_ENTRY:
	case REC_SOFTIRQ_EXIT:
		cpu_close(t, c, r->time);
		c->softirq += r->type == REC_SOFTIRQ_ENTRY ? 1 : c->softirq ? -1 : 0;
		break;
	case REC_LOCK_CONTENDED: {
		/* the spin is known when it ends: paint it back from where it began */
		uint64_t from = r->time - (r->b < r->time ? r->b : r->time);
		struct task *k = task_get(t, (uint64_t)r->pid);
		size_t i;

		paint(t, c->cells, from, r->time, K_SPIN, -1, -1);
		if (k && k->lane >= 0)
			paint(t, t->tlane[k->lane], from, r->time, K_SPIN, -1, -1);
		for (i = 0; i < t->nlocks; i++)
			if (!strcmp(t->locks[i], trace_view_str(r->s)))
				break;
		if (i == t->nlocks && t->nlocks < sizeof(t->locks) / sizeof(t->locks[0]))
			t->locks[t->nlocks++] = trace_view_str(r->s);
		break;
	}
	case REC_LOCK_ACQUIRE:
		if (!c->held++)
			c->held_since = r->time;
		break;
	case REC_LOCK_RELEASE:
		/* in any order: the row shows that some lock is held */
		if (c->held && !--c->held)
			paint(t, c->cells, c->held_since, r->time, K_HELD, -1, -1);
		break;
	case REC_STALL:
		/* what ran up to the stall is painted; nothing runs until it ends */
		cpu_close(t, c, r->time);
		paint(t, c->cells, r->time, r->time + r->a, K_STALL, -1, -1);
		c->since = r->time + r->a;
		t->stalls = true;
		break;
	case REC_FINDING: {
		struct task *k = task_get(t, (uint64_t)r->pid);

		mark(t, c->cells, r->time, '!');
		if (k && k->lane >= 0)
			mark(t, t->tlane[k->lane], r->time, '!');
		note(t->findings, &t->nfindings, r);
		break;
	}
	case REC_FREEZER:
		on_freezer(t, r);
		break;
	case REC_MODEL:
		on_work(t, r);
		break;
	default:	/* exits show as the switch away (X); printk has no mark */
		break;
	}
}

/* --- drawing ------------------------------------------------------------------------- */

enum row { ROW_RUN, ROW_WORK, ROW_HELD, ROW_MARK, ROW_TASK, ROW_MACHINE };

/* A time for people: "0", "750ns", "13.035us", "2ms": three decimals at most. */
/*
 * ns in its largest unit, with the decimals a step of step_ns needs (at
 * least three: 1 or 0 for none), trailing zeros dropped: labels a step
 * apart never read alike (7.9995ms, 8ms, not 7.999ms twice).
 */
static void human_step(char *buf, size_t len, uint64_t ns, uint64_t step_ns)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ NSEC_PER_SEC, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" },
	};
	size_t u = 0;
	uint64_t scale = 1000;
	int n, dec = 3;

	if (!ns) {
		snprintf(buf, len, "0");
		return;
	}
	while (ns < units[u].ns)
		u++;
	while (scale < units[u].ns && units[u].ns / scale > step_ns)
		scale *= 10, dec++;
	n = snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(ns / units[u].ns), dec,
		     (unsigned long long)(ns % units[u].ns * scale / units[u].ns));
	while (n > 0 && (size_t)n < len && (buf[n - 1] == '0' || buf[n - 1] == '.')) {
		bool dot = buf[n - 1] == '.';

		buf[--n] = '\0';
		if (dot)
			break;
	}
	snprintf(buf + n, len > (size_t)n ? len - (size_t)n : 0, "%s", units[u].unit);
}

/* ns in its largest unit, to three decimals at most (5.2ms, 112ns). */
static void human(char *buf, size_t len, uint64_t ns)
{
	human_step(buf, len, ns, UINT64_MAX);
}

/* As "What ran" prints times: seconds, to the nanosecond. */
static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%09llu", (unsigned long long)(ns / NSEC_PER_SEC),
		(unsigned long long)(ns % NSEC_PER_SEC));
}

struct frame {
	uint64_t from, col_ns;	/* column j is [from + j * col_ns, from + (j + 1) * col_ns) */
	size_t g;		/* cells per column */
	int ncols;		/* drawn */
	int room;		/* columns the lines have, for the axis' labels */
	int ran;		/* columns before the run's last record ended: the rest is blank */
};

static struct cell column(const struct trace_timeline *t, const struct cell *c,
			  const struct frame *f, int j)
{
	struct cell m = { 0 };
	size_t i = (size_t)j * f->g;

	for (size_t k = 0; k < f->g && i + k < t->ncells; k++)
		cell_merge(&m, &c[i + k]);
	return m;
}

/* The character a column shows in a row, and *idx the symbol it stands for (colour). */
static char cell_char(const struct trace_timeline *t, const struct cell *c, enum row row,
		      int *idx)
{
	static const struct { int kind; char ch; } waits[] = {
		{ K_RUNNABLE, '-' }, { K_BLOCKED, ':' }, { K_SLEEP, '.' }, { K_FROZEN, '*' },
	};
	int w = c->first ? c->first - 1 : top_best(&c->work), who = top_best(&c->who), best = -1;

	*idx = -1;
	switch (row) {
	case ROW_RUN:
		if (c->present & 1U << K_HARDIRQ)
			return 'H';
		if (c->present & 1U << K_STALL)
			return 'h';
		if (c->present & 1U << K_SOFTIRQ)
			return 'S';
		if (c->present & 1U << K_SPIN)
			return '~';
		if (who >= 0) {
			*idx = who;
			return t->syms[who];
		}
		return c->present & 1U << K_RUN ? '+' : '.';	/* past the symbols: '+' */
	case ROW_WORK:
		*idx = w;
		return w < 0 ? ' ' : w == MAX_WORKS ? '+' : t->wsym[w];
	case ROW_HELD:
		return c->present & 1U << K_HELD ? '#' : ' ';
	case ROW_MARK:
		return c->mark ? c->mark : ' ';
	case ROW_TASK:
		if (c->mark == '!')
			return '!';
		if (c->present & 1U << K_SPIN)
			return '~';
		if (w >= 0) {
			*idx = w;
			return w == MAX_WORKS ? '+' : t->wsym[w];
		}
		if (c->present & 1U << K_RUN)
			return '=';
		for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
			if (c->present & 1U << waits[i].kind &&
			    (best < 0 || c->ns[waits[i].kind] > c->ns[waits[best].kind]))
				best = (int)i;
		return best < 0 ? ' ' : waits[best].ch;
	case ROW_MACHINE:
		if (c->mark)
			return c->mark;
		return c->present & 1U << K_THAW ? 'T' : c->present & 1U << K_FREEZE ? 'F' :
		       c->present & 1U << K_SUSPEND ? 's' : ' ';
	}
	return ' ';
}

/* SGR parameters for a character of a row; NULL: plain. */
static const char *colour(enum row row, char ch, int idx)
{
	static const char *const fg[] = { "32", "36", "35", "34", "33" };
	static const char *const bg[] = { "30;42", "30;46", "30;45", "30;44", "30;43" };

	if (ch == '!')
		return "1;97;41";
	if (ch == ' ')
		return NULL;
	if (idx >= 0)
		return row == ROW_RUN ? fg[idx % 5] : bg[idx % 5];
	switch (ch) {
	case '.': case 'w':
		return "2";
	case 'H': case '~': case '#':
		return "1;33";
	case 'S': case '*':
		return "1;34";
	case '=':
		return "32";
	case '-':
		return "33";
	case ':':
		return "31";
	case 'F': case 'T': case 'Z': case 's':
		return row == ROW_MACHINE ? "1;34" : "36";
	default:
		return "36";
	}
}

/* One lane's row; false (nothing printed) when it would be blank and may be left out. */
static bool draw_row(FILE *out, const struct trace_timeline *t, const struct frame *f,
		     const struct cell *cells, enum row row, const char *label, bool always)
{
	char line[1024];
	int idx[1024], end = 0;
	const char *on = NULL;

	for (int j = 0; j < f->ncols; j++) {
		struct cell c = column(t, cells, f, j);

		idx[j] = -1;
		line[j] = j < f->ran ? cell_char(t, &c, row, &idx[j]) : ' ';
		if (line[j] != ' ')
			end = j + 1;
	}
	if (!end && !always)
		return false;
	fprintf(out, "%-*.*s", LABEL_W, LABEL_W - 1, label);
	for (int j = 0; j < end; j++) {
		const char *want = t->o.color ? colour(row, line[j], idx[j]) : NULL;

		if (want != on && (!want || !on || strcmp(want, on))) {
			fprintf(out, want ? "\033[0;%sm" : "\033[0m", want);
			on = want;
		}
		fputc(line[j], out);
	}
	if (on)
		fputs("\033[0m", out);
	fputc('\n', out);
	return true;
}

static void draw_axis(FILE *out, const struct frame *f)
{
	char labels[1100], ruler[1024], text[32];
	uint64_t step = 1, first, last = f->from + (uint64_t)f->ncols * f->col_ns;
	int next = 0;

	/* a label every ten columns or more, at 1, 2 or 5 times a power of ten */
	for (uint64_t p = 1;; p *= 10)
		if ((step = p) >= 10 * f->col_ns || (step = 2 * p) >= 10 * f->col_ns ||
		    (step = 5 * p) >= 10 * f->col_ns)
			break;
	memset(labels, ' ', sizeof(labels));
	memset(ruler, '-', (size_t)f->ncols);
	first = (f->from + step - 1) / step * step;
	for (uint64_t x = first; x < last; x += step) {
		int c = (int)((x - f->from) / f->col_ns);
		int n;

		human_step(text, sizeof(text), x, step);
		n = (int)strlen(text);

		ruler[c] = '|';
		if (c < next || c + n > f->room)
			continue;
		memcpy(&labels[c], text, (size_t)n);
		next = c + n + 1;
	}
	while (next > 0 && labels[next - 1] == ' ')
		next--;
	fprintf(out, "%-*s%.*s\n", LABEL_W, "time", next, labels);
	fprintf(out, "%-*s%.*s\n", LABEL_W, "", f->ncols, ruler);
}

/* "sym name" items, wrapped to the width under a heading. */
/* Items under a heading, separated by sep, wrapped to the width (an item too long cut). */
static void draw_items(FILE *out, const struct trace_timeline *t, const char *head,
		       const char *const *items, size_t n, const char *sep)
{
	int col = 0, room = t->o.width - LABEL_W, gap = (int)strlen(sep);

	for (size_t i = 0; i < n; i++) {
		int len = (int)strlen(items[i]);

		if (len > room)
			len = room;
		if (!col || col + gap + len > t->o.width) {
			fprintf(out, "%s%-*s", col ? "\n" : "", LABEL_W, col ? "" : head);
			col = LABEL_W;
		} else {
			fputs(sep, out);
			col += gap;
		}
		fprintf(out, "%.*s", len, items[i]);
		col += len;
	}
	if (col)
		fputc('\n', out);
}

/* "x name" for each symbol used, and what more stands for, as items. */
static void draw_list(FILE *out, const struct trace_timeline *t, const char *head,
		      const char *const *names, const char *syms, const bool *used, size_t n,
		      const char *more)
{
	char text[MAX_WORKS + 2][64];
	const char *items[MAX_WORKS + 2];
	size_t k = 0;

	for (size_t i = 0; i < n && k < MAX_WORKS + 1; i++) {
		if (!used[i] || syms[i] == '+')
			continue;
		snprintf(text[k], sizeof(text[k]), "%c %s", syms[i], names[i]);
		items[k] = text[k];
		k++;
	}
	if (more)
		items[k++] = more;
	draw_items(out, t, head, items, k, "  ");
}

static void draw_legend(FILE *out, const struct trace_timeline *t, const struct frame *f)
{
	bool tused[64] = { false }, wused[MAX_WORKS + 1] = { false }, more = false;
	char tnames[64][48];
	const char *tn[64];

	/* the symbols that show: a task on a CPU, a work anywhere */
	for (size_t i = 0; i < t->ncpu && t->o.cpu_lanes; i++) {
		for (int j = 0; j < f->ncols; j++) {
			struct cell c = column(t, t->cpu[i].cells, f, j);
			int idx, w = c.first ? c.first - 1 : top_best(&c.work);

			if (cell_char(t, &c, ROW_RUN, &idx) == '+')
				more = true;
			else if (idx >= 0)
				tused[idx] = true;
			if (w >= 0)
				wused[w] = true;
		}
	}
	for (size_t i = 0; i < t->ntlane; i++)
		for (int j = 0; j < f->ncols; j++) {
			struct cell c = column(t, t->tlane[i], f, j);
			int w = c.first ? c.first - 1 : top_best(&c.work);

			if (w >= 0)
				wused[w] = true;
		}
	for (size_t i = 0; i < t->nsyms; i++) {
		tn[i] = tnames[i];
		more |= tused[i] && t->syms[i] == '+';	/* past the alphabet */
	}
	for (size_t pid = 1; pid < t->ntask; pid++) {
		const struct task *k = &t->task[pid];

		if (k->sym >= 0)
			snprintf(tnames[k->sym], sizeof(tnames[k->sym]), "%s-%zu", k->comm, pid);
	}
	fputs("\nLegend:\n", out);
	if (t->o.cpu_lanes) {
		static const char *const run[] = {
			"letters: tasks (below)", "the one that ran longest", ". idle",
			"H hardirq", "S softirq (timers fire there)", "~ spinning on a lock",
			"h held up (a stall)",
		};
		static const char *const works[] = {
			"letters: works (below)", "the first to begin in the column",
			"else the longest",
		};
		static const char *const held[] = { "# holding a lock (lock_acquire to lock_release)" };
		static const char *const marks[] = {
			"! finding", "T timer fires", "x timer cancelled", "t timer armed",
			"q work queued", "* a task froze or thawed", "w wake-up",
			"(of several: the first listed)",
		};

		draw_items(out, t, "cpuN", run, t->stalls ? 7 : 6, ", ");
		draw_items(out, t, "  works", works, 3, ", ");
		draw_items(out, t, "  locks", held, 1, ", ");
		draw_items(out, t, "  events", marks, 8, ", ");
	}
	if (t->o.task_lanes) {
		static const char *const task[] = {
			"= running", "letters: running a work", "~ spinning", "- runnable",
			": blocked (D)", ". sleeping (S)", "* frozen", "! finding",
		};

		draw_items(out, t, "comm-pid", task, 8, ", ");
	}
	if (t->machine) {
		static const char *const machine[] = {
			"s suspending", "F freezing tasks", "T thawing",
			"Z the machine sleeps: its clock stops",
		};

		draw_items(out, t, "machine", machine, 4, ", ");
	}
	draw_list(out, t, "tasks", tn, t->syms, tused, t->nsyms, more ? "+ other tasks" : NULL);
	draw_list(out, t, "works", t->work, t->wsym, wused, t->nworks,
		  wused[MAX_WORKS] ? "+ other works" : NULL);
	if (t->nlocks)
		draw_items(out, t, "locks spun on", t->locks, t->nlocks, ", ");
}

static void draw_notes(FILE *out, const struct trace_timeline *t, const struct frame *f)
{
	uint64_t last = f->from + (uint64_t)f->ncols * f->col_ns, slept = 0;
	size_t outside = 0;
	char h[32];

	if (t->nfindings)
		fputs("\nFindings (! above; [N] as in Findings):\n", out);
	for (size_t i = 0; i < t->nfindings && i < MAX_NOTES; i++) {
		const struct note *n = &t->findings[i];

		if (n->time < f->from || n->time >= last) {
			outside++;
			continue;
		}
		fputs("  ", out);
		print_time(out, n->time);
		fprintf(out, "  cpu%d  %-16s %s [%llu]\n", n->cpu, n->comm, trace_view_str(n->s),
			(unsigned long long)n->a + 1);
	}
	if (t->nfindings > MAX_NOTES)
		fprintf(out, "  and %zu more\n", t->nfindings - MAX_NOTES);
	if (outside)
		fprintf(out, "  %zu outside the window\n", outside);
	for (size_t i = 0; i < t->nsleeps && i < MAX_NOTES; i++) {
		const struct note *n = &t->sleeps[i];

		if (!i)
			fputs("\nSuspend (Z above):\n", out);
		human(h, sizeof(h), n->d - slept);
		slept = n->d;
		fputs("  ", out);
		print_time(out, n->time);
		fprintf(out, "  the machine slept %s by the boot clock\n%*s(its own clock and "
			"jiffies stood still)\n", h, 15, "");
	}
}

static void draw(FILE *out, const struct trace_timeline *t)
{
	uint64_t stop = t->o.to ? t->o.to : t->end + 1, span;
	struct frame f = { .from = t->o.from };
	char a[32], b[32], c[32], label[40];

	human(a, sizeof(a), t->o.from);
	if (!t->any || stop <= t->o.from) {
		human(b, sizeof(b), t->end);
		fprintf(out, "\nTimeline: nothing from %s on: the run's last record is at %s\n", a, b);
		return;
	}
	span = stop - t->o.from;
	f.g = t->open ? (size_t)((span + (uint64_t)t->cols * t->dt - 1) / ((uint64_t)t->cols * t->dt))
		      : 1;
	f.col_ns = f.g * t->dt;
	f.ncols = (int)((span + f.col_ns - 1) / f.col_ns);
	f.room = t->cols;
	f.ran = t->end < t->o.from ? 0 : (int)((t->end - t->o.from) / f.col_ns) + 1;
	/* to a column's precision: a narrow window far from 0 reads as it was asked */
	human_step(a, sizeof(a), t->o.from, f.col_ns);
	human_step(b, sizeof(b), stop, f.col_ns);
	human(c, sizeof(c), f.col_ns);
	fprintf(out, "\nTimeline: %s to %s, 1 column = %s\n", a, b, c);
	draw_axis(out, &f);
	if (t->machine)
		draw_row(out, t, &f, t->machine, ROW_MACHINE, "machine", true);
	for (size_t i = 0; i < t->ncpu && t->o.cpu_lanes; i++) {
		snprintf(label, sizeof(label), "cpu%zu", i);
		draw_row(out, t, &f, t->cpu[i].cells, ROW_RUN, label, true);
		draw_row(out, t, &f, t->cpu[i].cells, ROW_WORK, "  works", false);
		draw_row(out, t, &f, t->cpu[i].cells, ROW_HELD, "  locks", false);
		draw_row(out, t, &f, t->cpu[i].cells, ROW_MARK, "  events", false);
	}
	for (size_t i = 0; i < t->ntlane; i++) {
		int32_t pid = t->tlane_pid[i];

		snprintf(label, sizeof(label), "%.*s-%d", LABEL_W - 9, t->task[pid].comm, (int)pid);
		draw_row(out, t, &f, t->tlane[i], ROW_TASK, label, false);
	}
	if (t->nolane)
		fprintf(out, "%-*s(%zu more tasks: the first %d have lanes)\n", LABEL_W, "",
			t->nolane, MAX_TASK_LANES);
	draw_legend(out, t, &f);
	draw_notes(out, t, &f);
}

/* --- the stream ---------------------------------------------------------------------- */

struct trace_timeline *trace_timeline_begin(const struct trace_view_opts *vo,
					    const struct trace_timeline_opts *o)
{
	struct trace_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		abort();
	t->o = *o;
	t->cols = o->width - LABEL_W;
	if (o->to) {
		uint64_t span = o->to - o->from;

		t->dt = (span + (uint64_t)t->cols - 1) / (uint64_t)t->cols;
		t->ncells = (size_t)((span + t->dt - 1) / t->dt);
	} else {
		t->open = true;
		t->dt = 1;
		t->ncells = (size_t)t->cols * CELLS_PER_COL;
	}
	if (vo && vo->ncpus > 0)
		cpu_get(t, (size_t)vo->ncpus - 1);
	return t;
}

void trace_timeline_record(struct trace_timeline *t, const struct sim_rec *r)
{
	trace_merge_push(&t->m, r);
}

static void release(struct trace_timeline *t, uint64_t watermark, bool all)
{
	const struct sim_rec *r;

	while ((r = trace_merge_next(&t->m, watermark, all)))
		take(t, r);
}

void trace_timeline_release(struct trace_timeline *t, uint64_t watermark)
{
	release(t, watermark, false);
}

size_t trace_timeline_held(const struct trace_timeline *t)
{
	return t->m.held;
}

void trace_timeline_end(struct trace_timeline *t, FILE *out)
{
	release(t, 0, true);
	/* what was still going on goes on to the last record */
	for (size_t i = 0; i < t->ncpu; i++) {
		cpu_close(t, &t->cpu[i], t->end);
		if (t->cpu[i].held)
			paint(t, t->cpu[i].cells, t->cpu[i].held_since, t->end, K_HELD, -1, -1);
	}
	for (size_t pid = 1; pid < t->ntask; pid++)
		task_close(t, &t->task[pid], t->end);
	for (size_t i = 0; i < NSTEPS; i++)
		if (t->step_on[i])
			paint(t, t->machine, t->step_at[i], t->end, steps[i].kind, -1, -1);
	if (out)
		draw(out, t);
	trace_merge_free(&t->m);
	for (size_t i = 0; i < t->ncpu; i++)
		free(t->cpu[i].cells);
	for (size_t i = 0; i < t->ntlane; i++)
		free(t->tlane[i]);
	free(t->cpu);
	free(t->task);
	free(t->tlane);
	free(t->tlane_pid);
	free(t->machine);
	free(t);
}
