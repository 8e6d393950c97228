/*
 * The trace views (tools/view/trace_text.c, tools/view/trace_json.c). Pins: the text
 * header, line for line; the exact line of every record type, the flags
 * column's combinations and the timestamp's rounding, from hand-built
 * records; the merge of the CPUs' streams by time; that the JSON is valid
 * JSON and carries the work slices, running slices and flow arrows of a
 * hand-built queue -> execute_start -> execute_end sequence, each flow end
 * right after the slice it binds to, a flow id per queueing; that both
 * views of a real run are well formed and name what the run did; that
 * rendering is a pure function of the records (twice: byte-identical);
 * --trace-filter's syntax and selection, slices shown whole or not at all;
 * the size limit; a slice open too long written in pieces.
 */
#include "../harness.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include "view/trace_view.h"

/* --- rendering into memory ---------------------------------------------------------- */

typedef void (*view_fn)(FILE *, const struct sim_rec *, size_t, const struct trace_view_opts *);

static char *render(view_fn fn, const struct sim_rec *recs, size_t n,
		    const struct trace_view_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(f, recs, n, o);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(buf), len);	/* no NUL byte inside */
	return buf;
}

/* The n-th line of a text (0-based), without its newline; NULL past the end. */
static char *nth_line(const char *text, size_t nth)
{
	const char *end;

	while (nth--) {
		text = strchr(text, '\n');
		if (!text)
			return NULL;
		text++;
	}
	if (!*text)
		return NULL;
	end = strchr(text, '\n');
	return strndup(text, end ? (size_t)(end - text) : strlen(text));
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

static void assert_line(const char *text, size_t nth, const char *want)
{
	char *got = nth_line(text, nth);

	ck_assert_msg(got && !strcmp(got, want), "line %zu:\n got '%s'\nwant '%s'", nth,
		      got ? got : "(none)", want);
	free(got);
}

/* --- a JSON validator (RFC 8259), recursive descent ------------------------------------ */

struct jp {
	const char *p;
	int depth;
};

static bool j_value(struct jp *j);

static void j_ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static bool j_lit(struct jp *j, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static bool j_string(struct jp *j)
{
	if (*j->p++ != '"')
		return false;
	for (;;) {
		unsigned char c = (unsigned char)*j->p++;

		if (c == '"')
			return true;
		if (c < 0x20)		/* includes the NUL of a truncated text */
			return false;
		if (c != '\\')
			continue;
		c = (unsigned char)*j->p++;
		if (c == 'u') {
			for (int i = 0; i < 4; i++)
				if (!isxdigit((unsigned char)*j->p++))
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
}

static bool j_digits(struct jp *j)
{
	if (!isdigit((unsigned char)*j->p))
		return false;
	while (isdigit((unsigned char)*j->p))
		j->p++;
	return true;
}

static bool j_number(struct jp *j)
{
	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (!j_digits(j))
		return false;
	if (*j->p == '.') {
		j->p++;
		if (!j_digits(j))
			return false;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!j_digits(j))
			return false;
	}
	return true;
}

/* object or array: members separated by commas, no trailing comma */
static bool j_members(struct jp *j, char close, bool keyed)
{
	j->p++;
	j_ws(j);
	if (*j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		j_ws(j);
		if (keyed) {
			if (!j_string(j))
				return false;
			j_ws(j);
			if (*j->p++ != ':')
				return false;
		}
		if (!j_value(j))
			return false;
		j_ws(j);
		if (*j->p == close) {
			j->p++;
			return true;
		}
		if (*j->p++ != ',')
			return false;
	}
}

static bool j_value(struct jp *j)
{
	bool ok;

	j_ws(j);
	if (++j->depth > 64)
		return false;
	switch (*j->p) {
	case '{':
		ok = j_members(j, '}', true);
		break;
	case '[':
		ok = j_members(j, ']', false);
		break;
	case '"':
		ok = j_string(j);
		break;
	case 't':
		ok = j_lit(j, "true");
		break;
	case 'f':
		ok = j_lit(j, "false");
		break;
	case 'n':
		ok = j_lit(j, "null");
		break;
	default:
		ok = j_number(j);
		break;
	}
	j->depth--;
	return ok;
}

/* Valid JSON: one value and nothing after it. Returns where it failed, or NULL. */
static const char *json_error(const char *text)
{
	struct jp j = { text, 0 };

	if (!j_value(&j))
		return j.p;
	j_ws(&j);
	return *j.p ? j.p : NULL;
}

static void assert_json(const char *text)
{
	const char *err = json_error(text);

	ck_assert_msg(!err, "invalid JSON at offset %td: '%.60s'", err - text, err);
}

START_TEST(validator_self_test)
{
	static const char *const good[] = {
		"{}", "[]", "{\"a\":[1,-2.5,3e4,true,false,null,\"x\\n\\u00e9\"]}", " [ 0 , {} ] ",
	};
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "\"\x01\"", "[\"\\x\"]",
		"{} {}", "[tru]", "[\"abc",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(!json_error(good[i]), "rejected %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(json_error(bad[i]), "accepted %s", bad[i]);
}
END_TEST

/* --- hand-built records ------------------------------------------------------------------ */

#define IRQS_OFF	TRACE_FLAG_IRQS_OFF
#define RESCHED		TRACE_FLAG_NEED_RESCHED
#define HARD		TRACE_FLAG_HARDIRQ
#define SOFT		TRACE_FLAG_SOFTIRQ
#define BH_OFF		TRACE_FLAG_BH_OFF

#define TIMER		0xffffffffc0001000ULL
#define LOCK		0xffffffffc0002000ULL
#define WORK		0xffff888000001000ULL
#define WORKER		0xffff888000002000ULL

/* A record: when, where and in which task, then its fields. */
static struct sim_rec rec(uint64_t time, int cpu, int pid, const char *comm, int flags,
			  int preempt, enum sim_rec_type type, uint64_t a, uint64_t b,
			  uint64_t c, uint64_t d, const char *s, const char *s2)
{
	struct sim_rec r = {
		.time = time, .a = a, .b = b, .c = c, .d = d, .s = s, .s2 = s2, .pid = pid,
		.cpu = (uint16_t)cpu, .type = (uint8_t)type, .flags = (uint8_t)flags,
		.preempt = (uint8_t)preempt,
	};

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

/*
 * HZ=250: INITIAL_JIFFIES is (unsigned int)-75000 = 4294892296, and at
 * 8 ms jiffies reads two more.
 */
#define J0	4294892296UL

static const char *const header[] = {
	"# tracer: nop",
	"#",
	"# entries-in-buffer/entries-written: %zu/%zu   #P:%d",
	"#",
	"#                                _-----=> irqs-off/BH-disabled",
	"#                               / _----=> need-resched",
	"#                              | / _---=> hardirq/softirq",
	"#                              || / _--=> preempt-depth",
	"#                              ||| / _-=> migrate-disable",
	"#                              |||| /     delay",
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
	"#              | |         |   |||||     |         |",
};
#define NHEADER (sizeof(header) / sizeof(header[0]))

static void assert_header(const char *text, size_t n, int ncpus)
{
	char entries[128];

	for (size_t i = 0; i < NHEADER; i++) {
		if (i == 2) {
			snprintf(entries, sizeof(entries), header[i], n, n, ncpus);
			assert_line(text, i, entries);
		} else {
			assert_line(text, i, header[i]);
		}
	}
}

struct case_line {
	struct sim_rec r;
	const char *line;
};

static struct case_line *all_types(size_t *n)
{
	static struct case_line c[64];
	size_t i = 0;

#define CASE(line_, ...) (c[i++] = (struct case_line){ rec(__VA_ARGS__), (line_) })
	/* the machine's own context is the idle task's; ns round to the nearest us */
	CASE("          <idle>-0       [000] .....     0.000001: task_newtask: pid=3 "
	     "comm=kworker/0:1 clone_flags=800700 oom_score_adj=0",
	     500, 0, 0, "", 0, 0, REC_TASK_NEW, 3, 0, 0, 0, "kworker/0:1", NULL);
	CASE("          <idle>-0       [000] .....     0.000001: sched_waking: comm=kworker/0:1 "
	     "pid=3 prio=120 target_cpu=001",
	     1499, 0, 0, "", 0, 0, REC_SCHED_WAKING, 3, 1, 0, 0, "kworker/0:1", NULL);
	/* sched_switch is in prev's context, whoever the record names */
	CASE("          <idle>-0       [000] d..2.     1.234568: sched_switch: prev_comm=swapper/0 "
	     "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/0:1 next_pid=3 "
	     "next_prio=120",
	     1234567891, 0, 3, "kworker/0:1", IRQS_OFF, 2, REC_SCHED_SWITCH, 0, TASK_RUNNING, 3,
	     0, "swapper/0", "kworker/0:1");
	CASE("     kworker/0:1-3       [000] .N...     1.234568: sched_kthread_work_queue_work: "
	     "work struct=ffff888000001000 function=my_work_fn worker=ffff888000002000",
	     1234568499, 0, 3, "kworker/0:1", RESCHED, 0, REC_MODEL, WORK, WORKER, 0, 0,
	     "sched_kthread_work_queue_work", "my_work_fn");
	CASE("     kworker/0:1-3       [000] ...1.     1.234569: sched_kthread_work_execute_start: "
	     "work struct ffff888000001000: function my_work_fn",
	     1234568500, 0, 3, "kworker/0:1", 0, 1, REC_MODEL, WORK, 0, 0, 0,
	     "sched_kthread_work_execute_start", "my_work_fn");
	CASE("     kworker/0:1-3       [000] ...a.     2.000000: sched_kthread_work_execute_end: "
	     "work struct ffff888000001000: function my_work_fn",
	     2000000000, 0, 3, "kworker/0:1", 0, 10, REC_MODEL, WORK, 0, 0, 0,
	     "sched_kthread_work_execute_end", "my_work_fn");
	/* preempt depth saturates at f, as the kernel's 4-bit field does */
	CASE("     kworker/0:1-3       [000] dN.f.     2.000001: my_event: a=0x1 b=0x2 c=0x3 "
	     "d=0x4 function=(null)",
	     2000001000, 0, 3, "kworker/0:1", IRQS_OFF | RESCHED, 20, REC_MODEL, 1, 2, 3, 4,
	     "my_event", NULL);
	/* now = J0 + 502 at 2.008 s: timeout 10; cpu 1, idx 3, pinned and irqsafe */
	CASE("     kworker/0:1-3       [000] .....     2.008000: timer_start: timer=ffffffffc0001000 "
	     "function=tick_fn expires=4294892808 [timeout=10] bucket_expiry=4294892809 cpu=1 "
	     "idx=3 flags=P|I",
	     2008000000, 0, 3, "kworker/0:1", 0, 0, REC_TIMER_START, TIMER, J0 + 500 + 12,
	     J0 + 500 + 13, 1 | 0x100000 | 0x200000 | (3ULL << 32), "tick_fn", NULL);
	CASE("     kworker/0:1-3       [000] .....     2.008000: timer_start: timer=ffffffffc0001000 "
	     "function=tick_fn expires=4294892797 [timeout=-1] bucket_expiry=4294892797 cpu=0 "
	     "idx=0 flags=",
	     2008000000, 0, 3, "kworker/0:1", 0, 0, REC_TIMER_START, TIMER, J0 + 501,
	     J0 + 501, 0, "tick_fn", NULL);
	CASE("     kworker/0:1-3       [000] .Ns..     2.012000: softirq_entry: vec=1 [action=TIMER]",
	     2012000000, 0, 3, "kworker/0:1", RESCHED | SOFT, 0, REC_SOFTIRQ_ENTRY, 0, 0, 0, 0,
	     "TIMER", NULL);
	CASE("     kworker/0:1-3       [000] ..s..     2.012001: timer_expire_entry: "
	     "timer=ffffffffc0001000 function=tick_fn now=4294892799 baseclk=4294892798",
	     2012001000, 0, 3, "kworker/0:1", SOFT, 0, REC_TIMER_EXPIRE_ENTRY, TIMER, J0 + 503,
	     J0 + 502, 0, "tick_fn", NULL);
	/* a hardirq on top of the softirq */
	CASE("     kworker/0:1-3       [000] d.H..     2.012002: irq_handler_entry: irq=0 "
	     "name=test_irq",
	     2012002000, 0, 3, "kworker/0:1", IRQS_OFF | HARD | SOFT, 0, REC_IRQ_ENTRY, 0, 0, 0,
	     0, "test_irq", NULL);
	CASE("     kworker/0:1-3       [000] d.h..     2.012003: irq_handler_exit: irq=0 ret=handled",
	     2012003000, 0, 3, "kworker/0:1", IRQS_OFF | HARD, 0, REC_IRQ_EXIT, 0, 0, 0, 0,
	     "test_irq", NULL);
	CASE("     kworker/0:1-3       [000] ..s1.     2.012004: timer_expire_exit: "
	     "timer=ffffffffc0001000",
	     2012004000, 0, 3, "kworker/0:1", SOFT, 1, REC_TIMER_EXPIRE_EXIT, TIMER, 0, 0, 0,
	     NULL, NULL);
	CASE("     kworker/0:1-3       [000] ..s..     2.012005: softirq_exit: vec=1 [action=TIMER]",
	     2012005000, 0, 3, "kworker/0:1", SOFT, 0, REC_SOFTIRQ_EXIT, 0, 0, 0, 0, "TIMER",
	     NULL);
	CASE("     kworker/0:1-3       [000] ..s..     2.012005: softirq_entry: vec=3 [action=NET_RX]",
	     2012005000, 0, 3, "kworker/0:1", SOFT, 0, REC_SOFTIRQ_ENTRY, 0, 0, 0, 0, "NET_RX",
	     NULL);
	CASE("     kworker/0:1-3       [000] .....     2.020000: timer_cancel: timer=ffffffffc0001000",
	     2020000000, 0, 3, "kworker/0:1", 0, 0, REC_TIMER_CANCEL, TIMER, 0, 0, 0, NULL, NULL);
	CASE("     kworker/0:1-3       [000] d..1.     2.030000: kwsim_lock_contended: "
	     "lock=ffffffffc0002000 name=worker->lock spun_ns=12345",
	     2030000000, 0, 3, "kworker/0:1", IRQS_OFF, 1, REC_LOCK_CONTENDED, LOCK, 12345, 0, 0,
	     "worker->lock", NULL);
	/* lock.h: "%p %s%s%s" (try, read, name), "%p %s" */
	CASE("     kworker/0:1-3       [000] d..1.     2.030001: lock_acquire: ffffffffc0002000 "
	     "worker->lock",
	     2030001000, 0, 3, "kworker/0:1", IRQS_OFF, 1, REC_LOCK_ACQUIRE, LOCK, 0, 0, 0,
	     "worker->lock", NULL);
	CASE("     kworker/0:1-3       [000] ...1.     2.030002: lock_acquire: ffffffffc0002000 "
	     "try worker->lock",
	     2030002000, 0, 3, "kworker/0:1", 0, 1, REC_LOCK_ACQUIRE, LOCK, TRACE_LOCK_TRY, 0, 0,
	     "worker->lock", NULL);
	CASE("     kworker/0:1-3       [000] ...1.     2.030003: lock_release: ffffffffc0002000 "
	     "worker->lock",
	     2030003000, 0, 3, "kworker/0:1", 0, 1, REC_LOCK_RELEASE, LOCK, 0, 0, 0,
	     "worker->lock", NULL);
	CASE("     kworker/0:1-3       [000] .....     2.040000: console: hello world",
	     2040000000, 0, 3, "kworker/0:1", 0, 0, REC_PRINTK, 6, 0, 0, 0, "hello world\n", NULL);
	/* bottom halves off: 'b', and 'D' with irqs off too (trace_print_lat_fmt) */
	CASE("     kworker/0:1-3       [000] b....     2.040001: console: bh off",
	     2040001000, 0, 3, "kworker/0:1", BH_OFF, 0, REC_PRINTK, 6, 0, 0, 0, "bh off", NULL);
	CASE("     kworker/0:1-3       [000] DN.1.     2.040002: console: bh and irqs off",
	     2040002000, 0, 3, "kworker/0:1", BH_OFF | IRQS_OFF | RESCHED, 1, REC_PRINTK, 6, 0, 0,
	     0, "bh and irqs off", NULL);
	CASE("     kworker/0:1-3       [000] .....     2.050000: kwsim_finding: kind=WARN index=0",
	     2050000000, 0, 3, "kworker/0:1", 0, 0, REC_FINDING, 0, 0, 0, 0, "WARN", NULL);
	CASE("     kworker/0:1-3       [000] .....     2.060000: kwsim_freezer: frozen pid=3 "
	     "comm=kworker/0:1",
	     2060000000, 0, 3, "kworker/0:1", 0, 0, REC_FREEZER, 3, 0, 0, 0, "frozen",
	     "kworker/0:1");
	/* a 15-character comm fills the field; a 7-digit pid fills its own */
	CASE(" abcdefghijklmno-1234567 [000] .....     2.070000: suspend_resume: "
	     "machine_suspend[3] begin",
	     2070000000, 0, 1234567, "abcdefghijklmno", 0, 0, REC_FREEZER, 0, 3, 1, 0,
	     "machine_suspend", NULL);
	CASE("     kworker/0:1-3       [000] .....     2.080000: sched_process_exit: comm=kworker/0:1 "
	     "pid=3 prio=120",
	     2080000000, 0, 3, "kworker/0:1", 0, 0, REC_TASK_EXIT, 3, 0, 0, 0, NULL, NULL);
	/* a running task that sleeps, one preempted, one that dies, one idle-sleeping */
	CASE("     kworker/0:1-3       [000] d..2.     3.000000: sched_switch: prev_comm=kworker/0:1 "
	     "prev_pid=3 prev_prio=120 prev_state=S ==> next_comm=other next_pid=4 next_prio=120",
	     3000000000, 0, 4, "other", IRQS_OFF, 2, REC_SCHED_SWITCH, 3, TASK_INTERRUPTIBLE, 4,
	     0, "kworker/0:1", "other");
	CASE("           other-4       [000] d..2.     3.000001: sched_switch: prev_comm=other "
	     "prev_pid=4 prev_prio=120 prev_state=R+ ==> next_comm=kworker/0:1 next_pid=3 "
	     "next_prio=120",
	     3000001000, 0, 3, "kworker/0:1", IRQS_OFF, 2, REC_SCHED_SWITCH, 4, TASK_RUNNING, 3,
	     TRACE_SWITCH_PREEMPT, "other", "kworker/0:1");
	CASE("     kworker/0:1-3       [000] d..2.     3.000002: sched_switch: prev_comm=kworker/0:1 "
	     "prev_pid=3 prev_prio=120 prev_state=X ==> next_comm=other next_pid=4 next_prio=120",
	     3000002000, 0, 4, "other", IRQS_OFF, 2, REC_SCHED_SWITCH, 3, TASK_DEAD, 4, 0,
	     "kworker/0:1", "other");
	CASE("           other-4       [000] d..2.     3.000003: sched_switch: prev_comm=other "
	     "prev_pid=4 prev_prio=120 prev_state=I ==> next_comm=swapper/0 next_pid=0 "
	     "next_prio=120",
	     3000003000, 0, 0, "swapper/0", IRQS_OFF, 2, REC_SCHED_SWITCH, 4, TASK_IDLE, 0, 0,
	     "other", "swapper/0");
	CASE("           other-4       [000] d..2.     3.000004: sched_switch: prev_comm=other "
	     "prev_pid=4 prev_prio=120 prev_state=D ==> next_comm=swapper/0 next_pid=0 "
	     "next_prio=120",
	     3000004000, 0, 0, "swapper/0", IRQS_OFF, 2, REC_SCHED_SWITCH, 4, TASK_KILLABLE, 0, 0,
	     "other", "swapper/0");
	/* a task with no comm on record: ftrace's unknown-comm marker */
	CASE("           <...>-9       [000] .....  4321.000000: console: x",
	     4321000000000ULL, 0, 9, "", 0, 0, REC_PRINTK, 4, 0, 0, 0, "x", NULL);
	/* only one trailing newline is cut: the other makes an empty line (last, so it is) */
	CASE("     kworker/0:1-3       [000] .....  4321.000001: console: two",
	     4321000001000ULL, 0, 3, "kworker/0:1", 0, 0, REC_PRINTK, 4, 0, 0, 0, "two\n\n", NULL);
#undef CASE
	*n = i;
	return c;
}

START_TEST(text_every_record_type)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2 };
	struct sim_rec recs[64];
	size_t n;
	struct case_line *c = all_types(&n);
	char *text;

	for (size_t i = 0; i < n; i++)
		recs[i] = c[i].r;
	text = render(trace_write_text, recs, n, &o);
	assert_header(text, n, 2);
	for (size_t i = 0; i < n; i++)
		assert_line(text, NHEADER + i, c[i].line);
	/* one message carried an extra newline: the line is split, as the kernel's would be */
	ck_assert_uint_eq(count_lines(text), NHEADER + n + 1);
	free(text);
}
END_TEST

START_TEST(text_empty)
{
	struct trace_view_opts o = { .hz = 100, .ncpus = 4 };
	char *text = render(trace_write_text, NULL, 0, &o);

	assert_header(text, 0, 4);
	ck_assert_uint_eq(count_lines(text), NHEADER);
	free(text);
}
END_TEST

/*
 * Each CPU's stream keeps its order; the smallest next timestamp goes
 * first, the lower CPU on a tie.
 */
START_TEST(text_merges_cpus_by_time)
{
	struct trace_view_opts o = { .hz = 250 };
	struct sim_rec recs[] = {
		rec(5000, 1, 7, "b", 0, 0, REC_PRINTK, 4, 0, 0, 0, "b1", NULL),
		rec(3000, 0, 6, "a", 0, 0, REC_PRINTK, 4, 0, 0, 0, "a1", NULL),
		rec(9000, 0, 6, "a", 0, 0, REC_PRINTK, 4, 0, 0, 0, "a2", NULL),
		rec(2000, 0, 6, "a", 0, 0, REC_PRINTK, 4, 0, 0, 0, "a3", NULL),	/* behind a2 */
		rec(5000, 0, 6, "a", 0, 0, REC_PRINTK, 4, 0, 0, 0, "a4", NULL),
		rec(5000, 2, 8, "c", 0, 0, REC_PRINTK, 4, 0, 0, 0, "c1", NULL),
	};
	static const char *const order[] = { "a1", "b1", "c1", "a2", "a3", "a4" };
	size_t n = sizeof(recs) / sizeof(recs[0]);
	char *text = render(trace_write_text, recs, n, &o);

	assert_header(text, n, 3);	/* #P from the records when the options say 0 */
	for (size_t i = 0; i < n; i++) {
		char *line = nth_line(text, NHEADER + i);
		size_t len = strlen(line);

		ck_assert_msg(len > 2 && !strcmp(line + len - 2, order[i]), "line %zu: '%s', want %s",
			      i, line, order[i]);
		free(line);
	}
	free(text);
}
END_TEST

/* --- JSON from hand-built records --------------------------------------------------- */

#define W2	0xffff888000003000ULL

/*
 * CPU0's kworker/0:0 (pid 5) runs two queueings of one work, the second
 * from a timer callback; the queuer (pid 7) is on CPU1.
 */
static size_t work_sequence(struct sim_rec *r)
{
	size_t n = 0;

	r[n++] = rec(1000, 0, 5, "kworker/0:0", IRQS_OFF, 2, REC_SCHED_SWITCH, 0, 0, 5, 0,
		     "swapper/0", "kworker/0:0");
	r[n++] = rec(2000, 1, 7, "queuer", 0, 0, REC_MODEL, WORK, WORKER, 0, 0,
		     "sched_kthread_work_queue_work", "my_work_fn");
	r[n++] = rec(3000, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		     "sched_kthread_work_execute_start", "my_work_fn");
	r[n++] = rec(4000, 0, 5, "kworker/0:0", IRQS_OFF, 1, REC_LOCK_CONTENDED, LOCK, 500, 0, 0,
		     "my_lock", NULL);
	r[n++] = rec(5500, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		     "sched_kthread_work_execute_end", "my_work_fn");
	r[n++] = rec(6000, 1, 7, "queuer", 0, 0, REC_SOFTIRQ_ENTRY, 0, 0, 0, 0, "TIMER", NULL);
	r[n++] = rec(6100, 1, 7, "queuer", 0, 0, REC_TIMER_EXPIRE_ENTRY, TIMER, J0, J0, 0,
		     "kthread_delayed_work_timer_fn", NULL);
	r[n++] = rec(6200, 1, 7, "queuer", SOFT, 0, REC_MODEL, WORK, WORKER, 0, 0,
		     "sched_kthread_work_queue_work", "my_work_fn");
	r[n++] = rec(6300, 1, 7, "queuer", SOFT, 0, REC_TIMER_EXPIRE_EXIT, TIMER, 0, 0, 0, NULL,
		     NULL);
	r[n++] = rec(6400, 1, 7, "queuer", SOFT, 0, REC_SOFTIRQ_EXIT, 0, 0, 0, 0, "TIMER", NULL);
	r[n++] = rec(7000, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		     "sched_kthread_work_execute_start", "my_work_fn");
	r[n++] = rec(7100, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		     "sched_kthread_work_execute_end", "my_work_fn");
	r[n++] = rec(8000, 0, 0, "swapper/0", IRQS_OFF, 2, REC_SCHED_SWITCH, 5,
		     TASK_INTERRUPTIBLE, 0, 0, "kworker/0:0", "swapper/0");
	/* a work that never ran to its end, never queued in the records */
	r[n++] = rec(8500, 1, 7, "queuer", 0, 0, REC_MODEL, W2, 0, 0, 0,
		     "sched_kthread_work_execute_start", "other_fn");
	r[n++] = rec(9000, 1, 7, "queuer", 0, 0, REC_FINDING, 0, 0, 0, 0, "WARN", NULL);
	return n;
}

/* Where an event line is in the JSON text; fails the test if it is not there. */
static const char *find_event(const char *json, const char *event)
{
	size_t len = strlen(event);

	for (const char *p = strstr(json, event); p; p = strstr(p + 1, event))
		if (p[-1] == '\n' && (p[len] == ',' || p[len] == '\n'))
			return p;
	ck_abort_msg("no event line %s in\n%s", event, json);
	return NULL;
}

#define CPU0	"\"pid\":4194304,\"tid\":4194304"
#define CPU1IRQ	"\"pid\":4194306,\"tid\":4194307"
#define KW	"\"pid\":5,\"tid\":5"
#define Q	"\"pid\":7,\"tid\":7"

START_TEST(json_work_slices_and_flows)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2, .title = "a \"quoted\"\ttitle" };
	struct sim_rec recs[32];
	size_t n = work_sequence(recs);
	char *json = render(trace_write_json, recs, n, &o);
	const char *x1, *f1, *x2, *f2, *q1, *s1;

	assert_json(json);
	ck_assert_ptr_eq(strstr(json, "{\"traceEvents\":[\n"), json);
	/* Perfetto would read displayTimeUnit as the unit of ts, which is us */
	ck_assert_ptr_null(strstr(json, "displayTimeUnit"));
	ck_assert_ptr_nonnull(strstr(json, "\"title\":\"a \\\"quoted\\\"\\ttitle\""));
	/* the tracks: CPUs first, then the tasks that have events of their own */
	find_event(json, "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0," CPU0
		   ",\"args\":{\"name\":\"CPU 0\"}}");
	find_event(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":4194306,"
		   "\"tid\":4194307,\"args\":{\"name\":\"irq\"}}");
	find_event(json, "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0," KW
		   ",\"args\":{\"name\":\"kworker/0:0\"}}");
	find_event(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0," Q
		   ",\"args\":{\"name\":\"queuer\"}}");
	/* kworker/0:0 ran on CPU0 from its switch-in to its switch-out */
	find_event(json, "{\"name\":\"kworker/0:0-5\",\"cat\":\"sched\",\"ph\":\"X\",\"ts\":1.000,"
		   "\"dur\":7.000," CPU0 ",\"args\":{\"cpu\":0,\"end_state\":\"S\"}}");
	/* the first queueing: marker and flow start on the queuer's track */
	q1 = find_event(json, "{\"name\":\"queue_work: my_work_fn\",\"cat\":\"kthread_work\","
			"\"ph\":\"X\",\"ts\":2.000,\"dur\":0.000," Q ",\"args\":{\"work\":"
			"\"0xffff888000001000\",\"function\":\"my_work_fn\",\"worker\":"
			"\"0xffff888000002000\",\"queueing\":1}}");
	/* each queueing its own flow id, the queueing's number: not the work's address */
	s1 = find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"s\","
			"\"id\":\"0x1\",\"ts\":2.000," Q "}");
	ck_assert(q1 < s1);
	/* its execution, and the flow's end right after it */
	x1 = find_event(json, "{\"name\":\"my_work_fn\",\"cat\":\"kthread_work\",\"ph\":\"X\","
			"\"ts\":3.000,\"dur\":2.500," KW ",\"args\":{\"work\":\"0xffff888000001000\","
			"\"function\":\"my_work_fn\",\"worker\":\"0xffff888000002000\",\"queued_by\":"
			"\"queuer-7\",\"queued_on_cpu\":1,\"queueing\":1,\"wait_ns\":1000}}");
	f1 = find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"f\","
			"\"bp\":\"e\",\"id\":\"0x1\",\"ts\":3.000," KW "}");
	ck_assert_ptr_eq(strchr(x1, '\n') + 1, f1);
	/* the spinning inside it: a slice that ends at the record */
	find_event(json, "{\"name\":\"lock_contended: my_lock\",\"cat\":\"lock\",\"ph\":\"X\","
		   "\"ts\":3.500,\"dur\":0.500," KW ",\"args\":{\"lock\":\"0xffffffffc0002000\","
		   "\"name\":\"my_lock\",\"spun_ns\":500}}");
	/* the second queueing, from a timer callback in the softirq, on CPU1's irq track */
	find_event(json, "{\"name\":\"softirq: TIMER\",\"cat\":\"irq\",\"ph\":\"X\",\"ts\":6.000,"
		   "\"dur\":0.400," CPU1IRQ ",\"args\":{\"vec\":1,\"cpu\":1}}");
	find_event(json, "{\"name\":\"timer: kthread_delayed_work_timer_fn\",\"cat\":\"timer\","
		   "\"ph\":\"X\",\"ts\":6.100,\"dur\":0.200," CPU1IRQ ",\"args\":{\"timer\":"
		   "\"0xffffffffc0001000\",\"function\":\"kthread_delayed_work_timer_fn\","
		   "\"now\":4294892296,\"baseclk\":4294892296,\"cpu\":1}}");
	find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"s\","
		   "\"id\":\"0x2\",\"ts\":6.200," CPU1IRQ "}");
	x2 = find_event(json, "{\"name\":\"my_work_fn\",\"cat\":\"kthread_work\",\"ph\":\"X\","
			"\"ts\":7.000,\"dur\":0.100," KW ",\"args\":{\"work\":\"0xffff888000001000\","
			"\"function\":\"my_work_fn\",\"worker\":\"0xffff888000002000\",\"queued_by\":"
			"\"queuer-7\",\"queued_in\":\"softirq\",\"queued_on_cpu\":1,\"queueing\":2,"
			"\"wait_ns\":800}}");
	f2 = find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"f\","
			"\"bp\":\"e\",\"id\":\"0x2\",\"ts\":7.000," KW "}");
	ck_assert_ptr_eq(strchr(x2, '\n') + 1, f2);
	/* unfinished at the end of the records: closed there, and said so */
	find_event(json, "{\"name\":\"other_fn\",\"cat\":\"kthread_work\",\"ph\":\"X\","
		   "\"ts\":8.500,\"dur\":0.500," Q ",\"args\":{\"work\":\"0xffff888000003000\","
		   "\"function\":\"other_fn\",\"unfinished\":true}}");
	find_event(json, "{\"name\":\"finding: WARN\",\"cat\":\"kwsim\",\"ph\":\"i\",\"ts\":9.000,"
		   "\"s\":\"g\",\"pid\":4194306,\"tid\":4194306,\"args\":{\"kind\":\"WARN\","
		   "\"index\":0,\"cpu\":1,\"task\":\"queuer-7\"}}");
	/* exactly two flows each way */
	ck_assert_ptr_null(strstr(json, "\"id\":\"0x3\""));
	free(json);
}
END_TEST

/* Every record type, and strings that need escaping, still make valid JSON. */
START_TEST(json_every_record_type_is_valid)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 1 };
	struct sim_rec recs[72];
	size_t n;
	struct case_line *c = all_types(&n);
	char *json;

	for (size_t i = 0; i < n; i++)
		recs[i] = c[i].r;
	recs[n++] = rec(5, 0, 2, "q\"uote\\", 0, 0, REC_PRINTK, 4, 0, 0, 0,
			"ctl \x01\x1f\x7f tab\t nl\n utf8 \xc3\xa9 bad \xff\xc3(", NULL);
	recs[n++] = rec(6, 3, 2, "x", HARD, 0, REC_IRQ_EXIT, 0, 0, 0, 0, "lonely", NULL);
	recs[n++] = rec(7, 3, 2, "x", 0, 0, REC_MODEL, WORK, 0, 0, 0,
			"sched_kthread_work_execute_end", NULL);
	recs[n++] = rec(8, 3, 2, "x", 0, 0, (enum sim_rec_type)REC__COUNT, 0, 0, 0, 0, NULL, NULL);
	/* re-armed with another function after the cancel: the cancel keeps the old name */
	recs[n++] = rec(9, 0, 2, "x", 0, 0, REC_TIMER_START, TIMER, 0, 0, 0, "other_fn", NULL);
	json = render(trace_write_json, recs, n, &o);
	assert_json(json);
	ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"timer_cancel: tick_fn\",\"cat\":\"timer\""));
	ck_assert_ptr_nonnull(strstr(json, "\"ctl \\u0001\\u001f\\u007f tab\\t nl\\n utf8 \xc3\xa9 "
					   "bad \\ufffd\\ufffd(\""));
	/* the CPU count grows to the records' */
	ck_assert_ptr_nonnull(strstr(json, "\"args\":{\"name\":\"CPU 3\"}"));
	free(json);
	/* the text view takes the unknown type too */
	free(render(trace_write_text, recs, n, &o));
}
END_TEST

/*
 * A taken, B taken, A let go, B let go: B's holding is cut where A's ends
 * and goes on in a second piece, so each track's slices nest.
 */
START_TEST(json_locks_held_nest)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 1 };
	struct sim_rec r[8];
	size_t n = 0;
	char *json;

	r[n++] = rec(1000, 0, 5, "kw", 0, 0, REC_SCHED_SWITCH, 0, 0, 5, 0, "swapper/0", "kw");
	r[n++] = rec(2000, 0, 5, "kw", IRQS_OFF, 1, REC_LOCK_ACQUIRE, LOCK, 0, 0, 0, "A", NULL);
	r[n++] = rec(3000, 0, 5, "kw", IRQS_OFF, 2, REC_LOCK_ACQUIRE, LOCK + 8, TRACE_LOCK_TRY,
		     0, 0, "B", NULL);
	r[n++] = rec(4000, 0, 5, "kw", 0, 1, REC_LOCK_RELEASE, LOCK, 0, 0, 0, "A", NULL);
	r[n++] = rec(6000, 0, 5, "kw", 0, 1, REC_LOCK_RELEASE, LOCK + 8, 0, 0, 0, "B", NULL);
	r[n++] = rec(7000, 0, 5, "kw", 0, 1, REC_LOCK_ACQUIRE, LOCK, 0, 0, 0, "A", NULL);
	json = render(trace_write_json, r, n, &o);
	assert_json(json);
	find_event(json, "{\"name\":\"lock held: A\",\"cat\":\"lock\",\"ph\":\"X\",\"ts\":2.000,"
		   "\"dur\":2.000," KW ",\"args\":{\"lock\":\"0xffffffffc0002000\",\"name\":\"A\","
		   "\"cpu\":0}}");
	find_event(json, "{\"name\":\"lock held: B\",\"cat\":\"lock\",\"ph\":\"X\",\"ts\":3.000,"
		   "\"dur\":1.000," KW ",\"args\":{\"lock\":\"0xffffffffc0002008\",\"name\":\"B\","
		   "\"trylock\":true,\"cpu\":0,\"continues\":true}}");
	find_event(json, "{\"name\":\"lock held: B\",\"cat\":\"lock\",\"ph\":\"X\",\"ts\":4.000,"
		   "\"dur\":2.000," KW ",\"args\":{\"lock\":\"0xffffffffc0002008\",\"name\":\"B\","
		   "\"trylock\":true,\"cpu\":0,\"continued\":true}}");
	/* still held when the records end */
	find_event(json, "{\"name\":\"lock held: A\",\"cat\":\"lock\",\"ph\":\"X\",\"ts\":7.000,"
		   "\"dur\":0.000," KW ",\"args\":{\"lock\":\"0xffffffffc0002000\",\"name\":\"A\","
		   "\"cpu\":0,\"unfinished\":true}}");
	free(json);
}
END_TEST

START_TEST(json_empty)
{
	char *json = render(trace_write_json, NULL, 0, NULL);

	assert_json(json);
	ck_assert_ptr_nonnull(strstr(json, "\"args\":{\"name\":\"CPU 0\"}"));
	free(json);
}
END_TEST

/* --- a run of the machine ------------------------------------------------------------- */

static DEFINE_SPINLOCK(lk);
static struct timer_list tm, far_tm;

static void tick_fn(struct timer_list *t)
{
	WARN_ON(t != &tm);
	WARN_ON(1);	/* a finding, from softirq context */
}

static int holder_fn(void *arg)
{
	(void)arg;
	spin_lock(&lk);
	udelay(50);
	spin_unlock(&lk);
	printk(KERN_INFO "holder done\n");
	timer_setup(&tm, tick_fn, 0);
	mod_timer(&tm, jiffies + 2);
	timer_setup(&far_tm, tick_fn, 0);
	mod_timer(&far_tm, jiffies + 1000);
	msleep(20);
	del_timer(&far_tm);
	return 0;
}

static int spinner_fn(void *arg)
{
	(void)arg;
	udelay(10);
	spin_lock(&lk);		/* the holder has it for 50 us: contended */
	spin_unlock(&lk);
	pr_info("spinner got it\n");
	return 0;
}

static DEFINE_SPINLOCK(irq_lk);

static void irq_fn(void *arg)
{
	(void)arg;
	spin_lock(&irq_lk);
	spin_unlock(&irq_lk);
}

/* The machine set up for the run below; records go to sink too if not NULL. */
static void setup_machine(sim_trace_sink_fn sink, void *arg)
{
	struct sim_config cfg = h_config(2);

	h_init_cfg(&cfg);
	sim_trace_set_sink(sink, arg);
	spin_lock_init(&lk);
	spin_lock_init(&irq_lk);
	sim_register_symbol((const void *)tick_fn, "tick_fn");
	sim_spawn("holder", holder_fn, NULL, 0, true, 0);
	sim_spawn("spinner", spinner_fn, NULL, 1, true, 0);
	sim_irq_at(30000, 1, "test_irq", irq_fn, NULL);
}

static void run_machine(void)
{
	setup_machine(NULL, NULL);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
}

/* The fixed columns of every event line (pids of up to 7 digits, under 27 hours). */
static void assert_line_shape(const char *line)
{
	size_t len = strlen(line);

	ck_assert_msg(len > 52, "short line '%s'", line);
	ck_assert_msg(line[16] == '-' && line[25] == '[' && line[29] == ']' && line[30] == ' ' &&
		      line[36] == ' ' && line[42] == '.' && line[49] == ':' && line[50] == ' ',
		      "bad shape '%s'", line);
	for (int i = 31; i < 35; i++)
		ck_assert_msg(strchr(".dDbNhHs0123456789abcdef", line[i]), "bad flag in '%s'", line);
	ck_assert_msg(line[35] == '.', "migrate-disable set in '%s'", line);
}

START_TEST(views_of_a_run)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2, .title = "views_of_a_run" };
	static const char *const want[] = {
		"sched_switch: prev_comm=", "sched_waking: comm=", "task_newtask: pid=",
		"sched_process_exit: comm=holder", "kwsim_lock_contended: lock=",
		"console: holder done\n", "console: spinner got it\n", "kwsim_finding: kind=",
		"timer_start: timer=", "timer_expire_entry: timer=", "function=tick_fn",
		"timer_expire_exit: timer=", "timer_cancel: timer=", "irq_handler_entry: irq=1 name=test_irq",
		"irq_handler_exit: irq=1 ret=handled", "softirq_entry: vec=1 [action=TIMER]",
		"softirq_exit: vec=1 [action=TIMER]",
	};
	const struct sim_rec *recs;
	size_t n;
	char *text, *json, *again;

	run_machine();
	ck_assert_uint_ge(h_count(SIM_F_WARN), 1);
	ck_assert_uint_ge(h_trace_count(REC_LOCK_CONTENDED), 1);
	recs = sim_trace_records();
	n = sim_trace_count();
	text = render(trace_write_text, recs, n, &o);
	assert_header(text, n, 2);
	ck_assert_uint_eq(count_lines(text), NHEADER + n);
	for (size_t i = 0; i < n; i++) {
		char *line = nth_line(text, NHEADER + i);

		assert_line_shape(line);
		free(line);
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(text, want[i]), "no '%s' in\n%s", want[i], text);
	json = render(trace_write_json, recs, n, &o);
	assert_json(json);
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"lock_contended: "));
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"finding: warn\""));
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"holder done\""));
	/* a pure function of the records */
	again = render(trace_write_text, recs, n, &o);
	ck_assert_str_eq(again, text);
	free(again);
	again = render(trace_write_json, recs, n, &o);
	ck_assert_str_eq(again, json);
	free(again);
	free(text);
	free(json);
}
END_TEST

/* Both views streamed from the machine's sink, released at its watermark. */
struct streamed {
	struct trace_text *text;
	struct trace_json *json;
	uint64_t released;	/* the last watermark */
	size_t n, held_max;
};

static void stream_sink(void *arg, const struct sim_rec *r)
{
	struct streamed *st = arg;
	uint64_t w;

	/* the watermark's promise: nothing comes that is older than it */
	ck_assert_uint_ge(r->time, st->released);
	if (r->type == REC_LOCK_CONTENDED)
		ck_assert_uint_ge(r->time - r->b, st->released);
	trace_text_record(st->text, r);
	trace_json_record(st->json, r);
	st->n++;
	if (trace_text_held(st->text) > st->held_max)
		st->held_max = trace_text_held(st->text);
	/* 0 outside the machine's run; while it runs, it only grows */
	w = sim_trace_watermark();
	if (w)
		ck_assert_uint_ge(w, st->released);
	if (w > st->released)
		st->released = w;
	trace_text_release(st->text, w);
	trace_json_release(st->json, w);
}

static char *end_stream(int (*end)(void *, FILE *), void *view)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(end(view, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static int end_text(void *v, FILE *f)
{
	return trace_text_end(v, f);
}

static int end_json(void *v, FILE *f)
{
	return trace_json_end(v, f);
}

START_TEST(streamed_views_are_the_views)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2, .title = "streamed" };
	struct streamed st = { .text = trace_text_begin(&o), .json = trace_json_begin(&o) };
	char *text, *json, *want;

	ck_assert_ptr_nonnull(st.text);
	ck_assert_ptr_nonnull(st.json);
	setup_machine(stream_sink, &st);
	ck_assert_int_eq(h_run(), SIM_END_QUIESCENT);
	ck_assert_uint_eq(st.n, sim_trace_count());
	/* it streamed: never all records at once */
	ck_assert_uint_lt(st.held_max, st.n / 2);
	text = end_stream(end_text, st.text);
	json = end_stream(end_json, st.json);
	want = render(trace_write_text, sim_trace_records(), sim_trace_count(), &o);
	ck_assert_str_eq(text, want);
	free(want);
	want = render(trace_write_json, sim_trace_records(), sim_trace_count(), &o);
	ck_assert_str_eq(json, want);
	free(want);
	free(text);
	free(json);
}
END_TEST

/* The same hand-built records twice: the same bytes, for both views. */
START_TEST(views_are_deterministic)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2, .title = "t" };
	struct sim_rec recs[32];
	size_t n = work_sequence(recs);
	view_fn views[] = { trace_write_text, trace_write_json };

	for (size_t v = 0; v < 2; v++) {
		char *a = render(views[v], recs, n, &o);
		char *b = render(views[v], recs, n, &o);

		ck_assert_str_eq(a, b);
		free(a);
		free(b);
	}
}
END_TEST

/* --- filter, limit, pieces -------------------------------------------------------------- */

/* trace_view_event_name() is the name the text line prints: what a user filters by. */
START_TEST(event_name_is_the_lines)
{
	size_t n;
	struct case_line *c = all_types(&n);

	for (size_t i = 0; i < n; i++) {
		const char *p = strstr(strchr(c[i].line, ']'), ": ") + 2;
		size_t len = strcspn(p, ":");

		ck_assert_msg(strlen(trace_view_event_name(&c[i].r)) == len &&
			      !strncmp(p, trace_view_event_name(&c[i].r), len),
			      "'%s' names its event '%s'", c[i].line, trace_view_event_name(&c[i].r));
	}
}
END_TEST

/*
 * Every record type has a description (sim/trace_events.h), and a plain
 * one's line is its description: the event, then each field's "name=" in
 * that order, nothing else. A field added, dropped or moved in one place
 * only fails here.
 */
START_TEST(descriptions_are_the_lines)
{
	size_t n, plain = 0;
	struct case_line *c = all_types(&n);

	for (unsigned int t = 0; t < REC__COUNT; t++) {
		const struct sim_rec_desc *d = sim_rec_desc(t);

		ck_assert_ptr_nonnull(d);
		ck_assert_msg(d->name && d->nfields > 0 && d->nfields <= SIM_REC_FIELDS_MAX,
			      "type %u: a name and its fields", t);
		ck_assert_msg(d->print == SIM_PRINT_OWN || (d->event && d->system),
			      "type %u (%s): a plain event needs its event and system", t, d->name);
	}
	ck_assert_ptr_null(sim_rec_desc(REC__COUNT));
	for (size_t i = 0; i < n; i++) {
		const struct sim_rec_desc *d = sim_rec_desc(c[i].r.type);
		const char *p = strstr(strchr(c[i].line, ']'), ": ") + 2;
		size_t len = strlen(d->event ? d->event : "");

		if (d->print != SIM_PRINT_FIELDS)
			continue;
		plain++;
		ck_assert_msg(!strncmp(p, d->event, len) && p[len] == ':', "'%s' is %s", c[i].line,
			      d->event);
		ck_assert_str_eq(trace_view_event_system(&c[i].r), d->system);
		p += len + 1;
		for (unsigned int k = 0; k < d->nfields; k++) {
			size_t nl = strlen(d->field[k].name);

			ck_assert_msg(p[0] == ' ' && !strncmp(p + 1, d->field[k].name, nl) &&
				      p[1 + nl] == '=', "'%s': field %u is %s", c[i].line, k,
				      d->field[k].name);
			p = strpbrk(p + 1, " ");
			if (!p)
				p = "";
		}
		ck_assert_msg(!*p, "'%s': more than its description's fields", c[i].line);
	}
	ck_assert_uint_ge(plain, 10);
}
END_TEST

static bool passes(const struct trace_filter *f, struct sim_rec r)
{
	return trace_filter_pass(f, &r);
}

#define TSTART(t, cpu, pid, comm) \
	rec(t, cpu, pid, comm, IRQS_OFF, 1, REC_TIMER_START, TIMER, J0, J0, 0, "fn", NULL)

START_TEST(filter_selects)
{
	const char *spec = "events=timer:*,sched_kthread_work_queue_work,!timer_cancel;"
			   "cpus=1-2;tasks=kw*,7;from=2us;to=10us";
	struct trace_filter *f = NULL, *g = NULL;
	char err[256];

	ck_assert_int_eq(trace_filter_parse(&f, spec, err, sizeof(err)), 0);
	ck_assert_str_eq(trace_filter_text(f), spec);
	ck_assert(trace_filter_pass(NULL, &(struct sim_rec){ 0 }));
	ck_assert(passes(f, TSTART(3000, 1, 5, "kworker")));
	ck_assert(passes(f, TSTART(2000, 2, 7, "x")));		/* by pid; from inclusive */
	ck_assert(passes(f, TSTART(10000, 1, 5, "kw")));	/* to inclusive */
	ck_assert(!passes(f, TSTART(1999, 1, 5, "kw")));
	ck_assert(!passes(f, TSTART(10001, 1, 5, "kw")));
	ck_assert(!passes(f, TSTART(3000, 0, 5, "kw")));	/* cpu */
	ck_assert(!passes(f, TSTART(3000, 3, 5, "kw")));
	ck_assert(!passes(f, TSTART(3000, 1, 8, "other")));	/* task */
	ck_assert(!passes(f, rec(3000, 1, 5, "kw", 0, 0, REC_TIMER_CANCEL, TIMER, 0, 0, 0,
				  NULL, NULL)));		/* excluded */
	ck_assert(passes(f, rec(3000, 1, 5, "kw", 0, 0, REC_MODEL, WORK, WORKER, 0, 0,
				 "sched_kthread_work_queue_work", "fn")));
	ck_assert(!passes(f, rec(3000, 1, 5, "kw", 0, 0, REC_MODEL, WORK, 0, 0, 0,
				  "sched_kthread_work_execute_start", "fn")));
	/* set_event_pid's rules: sched_switch by prev or next, sched_waking by waker or wakee */
	ck_assert_int_eq(trace_filter_parse(&g, "tasks=kw", err, sizeof(err)), 0);
	ck_assert(passes(g, rec(1, 0, 5, "kw", 0, 0, REC_SCHED_SWITCH, 5, 1, 0, 0, "kw",
				 "swapper/0")));
	ck_assert(passes(g, rec(1, 0, 0, "swapper/0", 0, 0, REC_SCHED_SWITCH, 0, 0, 5, 0,
				 "swapper/0", "kw")));
	ck_assert(!passes(g, rec(1, 0, 6, "p", 0, 0, REC_SCHED_SWITCH, 6, 1, 0, 0, "p",
				  "swapper/0")));
	ck_assert(passes(g, rec(1, 0, 6, "p", 0, 0, REC_SCHED_WAKING, 5, 0, 0, 0, "kw", NULL)));
	ck_assert(!passes(g, rec(1, 0, 6, "p", 0, 0, REC_SCHED_WAKING, 8, 0, 0, 0, "q", NULL)));
	/* a system name: its events */
	trace_filter_free(g);
	g = NULL;
	ck_assert_int_eq(trace_filter_parse(&g, "events=sched,kwsim,power", err, sizeof(err)), 0);
	ck_assert(passes(g, rec(1, 0, 5, "kw", 0, 0, REC_MODEL, WORK, 0, 0, 0,
				 "sched_kthread_work_execute_start", "fn")));
	ck_assert(passes(g, rec(1, 0, 5, "kw", 0, 0, REC_LOCK_CONTENDED, 0, 0, 0, 0, "l", NULL)));
	ck_assert(passes(g, rec(1, 0, 5, "kw", 0, 0, REC_FREEZER, 0, 1, 1, 0, "suspend_enter",
				 NULL)));
	/* kwsim_freezer is kwsim's */
	ck_assert(passes(g, rec(1, 0, 5, "kw", 0, 0, REC_FREEZER, 5, 0, 0, 0, "frozen", "kw")));
	ck_assert(!passes(g, TSTART(1, 0, 5, "kw")));
	trace_filter_free(g);
	trace_filter_free(f);
}
END_TEST

START_TEST(filter_refuses)
{
	static const char *const bad[] = {
		"", "events=", "events=a b", "events=:x", "events=x:", "events=a:b:c", "cpus=a",
		"cpus=2-1", "cpus=1-", "cpus=999", "cpus=0,,1", "cpus=0,", "tasks=", "from=5",
		"from=5xs", "from=-1ms", "to=1ms;from=2ms", "foo=1", "cpus", "events=x;events=y",
		"cpus=0;", ";cpus=0", "cpus=0;;tasks=a",
	};
	static const char *const sizes[] = { "", "M", "1.5M", "10MB", "0", "-1", "10 M" };
	unsigned long long b;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct trace_filter *f = NULL;
		char err[256] = "";

		ck_assert_msg(trace_filter_parse(&f, bad[i], err, sizeof(err)) == -1 && err[0],
			      "'%s' taken", bad[i]);
		trace_filter_free(f);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_msg(trace_limit_parse(sizes[i], &b) == -1, "size '%s' taken", sizes[i]);
	ck_assert(!trace_limit_parse("10M", &b) && b == 10ULL << 20);
	ck_assert(!trace_limit_parse("512K", &b) && b == 512ULL << 10);
	ck_assert(!trace_limit_parse("1G", &b) && b == 1ULL << 30);
	ck_assert(!trace_limit_parse("4096", &b) && b == 4096);
	ck_assert(!trace_limit_parse("none", &b) && b == 0);
}
END_TEST

/* A slice is shown with both its records or not at all; an arrow with its three. */
START_TEST(json_filter_keeps_slices_whole)
{
	struct trace_filter *f = NULL;
	struct trace_view_opts o = { .hz = 250, .ncpus = 2 };
	struct sim_rec recs[32];
	size_t n = work_sequence(recs);
	char err[256], *json;

	ck_assert_int_eq(trace_filter_parse(&f, "events=sched_kthread_work_execute_*", err,
					    sizeof(err)), 0);
	o.filter = f;
	json = render(trace_write_json, recs, n, &o);
	assert_json(json);
	/* the executions, without their (filtered) queueings: no arrow, no queued_by */
	find_event(json, "{\"name\":\"my_work_fn\",\"cat\":\"kthread_work\",\"ph\":\"X\","
		   "\"ts\":3.000,\"dur\":2.500," KW ",\"args\":{\"work\":\"0xffff888000001000\","
		   "\"function\":\"my_work_fn\"}}");
	ck_assert_ptr_null(strstr(json, "\"ph\":\"s\""));
	ck_assert_ptr_null(strstr(json, "\"ph\":\"f\""));
	ck_assert_ptr_null(strstr(json, "queue_work: "));
	/* nor anything else: the running slices need sched_switch */
	ck_assert_ptr_null(strstr(json, "\"cat\":\"sched\""));
	ck_assert_ptr_nonnull(strstr(json, "\"filter\":\"events=sched_kthread_work_execute_*\""));
	free(json);
	trace_filter_free(f);
	/* the start without the end: no slice at all (other_fn has no end in the records) */
	f = NULL;
	ck_assert_int_eq(trace_filter_parse(&f, "events=sched_kthread_work_execute_start", err,
					    sizeof(err)), 0);
	o.filter = f;
	json = render(trace_write_json, recs, n, &o);
	assert_json(json);
	ck_assert_ptr_null(strstr(json, "\"name\":\"my_work_fn\""));
	ck_assert_ptr_nonnull(strstr(json, "\"name\":\"other_fn\""));
	free(json);
	trace_filter_free(f);
	/* the queueing on CPU1, its execution on CPU0: the arrow's start, never its end */
	f = NULL;
	ck_assert_int_eq(trace_filter_parse(&f, "cpus=1", err, sizeof(err)), 0);
	o.filter = f;
	json = render(trace_write_json, recs, n, &o);
	assert_json(json);
	ck_assert_ptr_nonnull(strstr(json, "\"ph\":\"s\",\"id\":\"0x1\""));
	ck_assert_ptr_null(strstr(json, "\"ph\":\"f\""));
	ck_assert_ptr_null(strstr(json, "\"name\":\"kworker/0:0-5\""));
	free(json);
	trace_filter_free(f);
}
END_TEST

/* A queueing the kernel cancelled (it traces no cancel) and the next one: two ids. */
START_TEST(json_flow_per_queueing)
{
	struct trace_view_opts o = { .hz = 250, .ncpus = 2 };
	struct sim_rec r[4];
	char *json;

	r[0] = rec(1000, 1, 7, "queuer", 0, 0, REC_MODEL, WORK, WORKER, 0, 0,
		   "sched_kthread_work_queue_work", "my_work_fn");
	r[1] = rec(2000, 1, 7, "queuer", 0, 0, REC_MODEL, WORK, WORKER, 0, 0,
		   "sched_kthread_work_queue_work", "my_work_fn");
	r[2] = rec(3000, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		   "sched_kthread_work_execute_start", "my_work_fn");
	r[3] = rec(4000, 0, 5, "kworker/0:0", 0, 0, REC_MODEL, WORK, 0, 0, 0,
		   "sched_kthread_work_execute_end", "my_work_fn");
	json = render(trace_write_json, r, 4, &o);
	assert_json(json);
	find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"s\","
		   "\"id\":\"0x1\",\"ts\":1.000," Q "}");
	find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"s\","
		   "\"id\":\"0x2\",\"ts\":2.000," Q "}");
	/* the execution is the second queueing's, and only its arrow ends */
	find_event(json, "{\"name\":\"queue_work\",\"cat\":\"kthread_work\",\"ph\":\"f\","
		   "\"bp\":\"e\",\"id\":\"0x2\",\"ts\":3.000," KW "}");
	ck_assert_ptr_nonnull(strstr(json, "\"queueing\":2,\"wait_ns\":1000}"));
	/* the second queueing's marker names the one it follows, which never ran */
	ck_assert_ptr_nonnull(strstr(json, "\"queueing\":2,\"cancelled_queueing\":1}}"));
	ck_assert_ptr_null(strstr(json, "\"queueing\":1,\"cancelled_queueing\""));
	ck_assert_ptr_null(strstr(json, "\"ph\":\"f\",\"bp\":\"e\",\"id\":\"0x1\""));
	free(json);
}
END_TEST

/*
 * A task that runs while 3 x SPLIT_EVENTS events are made: its running
 * slice is written in pieces, so the stream holds a window, not the run;
 * the pieces nest and say so; streamed and whole give the same bytes.
 */
START_TEST(json_long_slice_in_pieces)
{
	enum { N = 3 * 4096 + 10 };
	struct trace_view_opts o = { .hz = 250, .ncpus = 1 };
	struct sim_rec *r = calloc(N + 2, sizeof(*r));
	struct trace_json *w = trace_json_begin(&o);
	size_t held_max = 0;
	char *whole, *streamed, *p;
	int pieces = 0;

	ck_assert_ptr_nonnull(r);
	r[0] = rec(1000, 0, 5, "kw", IRQS_OFF, 2, REC_SCHED_SWITCH, 0, 0, 5, 0, "swapper/0",
		   "kw");
	for (size_t i = 1; i <= N; i++)
		r[i] = rec(1000 + 10 * i, 0, 5, "kw", 0, 0, REC_PRINTK, 4, 0, 0, 0, "tick", NULL);
	r[N + 1] = rec(1000 + 10 * (N + 1), 0, 0, "swapper/0", IRQS_OFF, 2, REC_SCHED_SWITCH, 5,
		       TASK_INTERRUPTIBLE, 0, 0, "kw", "swapper/0");
	whole = render(trace_write_json, r, N + 2, &o);
	assert_json(whole);
	for (size_t i = 0; i < N + 2; i++) {
		trace_json_record(w, &r[i]);
		trace_json_release(w, r[i].time);
		if (trace_json_held(w) > held_max)
			held_max = trace_json_held(w);
	}
	streamed = end_stream(end_json, w);
	ck_assert_str_eq(streamed, whole);
	ck_assert_uint_lt(held_max, 2 * 4096 + 64);
	for (p = strstr(whole, "\"name\":\"kw-5\""); p; p = strstr(p + 1, "\"name\":\"kw-5\""))
		pieces++;
	ck_assert_int_eq(pieces, 4);
	/* the first piece from the switch, the last to the switch out, in between both marks */
	ck_assert_ptr_nonnull(strstr(whole, "\"ts\":1.000,\"dur\":"));
	ck_assert_ptr_nonnull(strstr(whole, "\"end_state\":\"running\",\"continues\":true}"));
	ck_assert_ptr_nonnull(strstr(whole, "\"end_state\":\"running\",\"continued\":true,"
				     "\"continues\":true}"));
	ck_assert_ptr_nonnull(strstr(whole, "\"end_state\":\"S\",\"continued\":true}"));
	free(whole);
	free(streamed);
	free(r);
}
END_TEST

/* The limit: the whole file within it, complete lines, and each view says what it lost. */
START_TEST(views_stop_at_the_limit)
{
	enum { N = 2000 };
	unsigned long long lost = 0;
	struct trace_view_opts o = { .hz = 250, .ncpus = 1, .limit = 8192, .lost = &lost };
	struct sim_rec *r = calloc(N, sizeof(*r));
	char *text, *json, entries[128];
	size_t lines;

	ck_assert_ptr_nonnull(r);
	for (size_t i = 0; i < N; i++)
		r[i] = rec(1000 + 10 * i, 0, 5, "kw", 0, 0, REC_PRINTK, 4, 0, 0, 0, "tick", NULL);
	text = render(trace_write_text, r, N, &o);
	ck_assert_uint_le(strlen(text), 8192);
	ck_assert_uint_gt(strlen(text), 8192 - 200);
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	lines = count_lines(text) - NHEADER;
	ck_assert_uint_eq(lost, N - lines);
	snprintf(entries, sizeof(entries), "# entries-in-buffer/entries-written: %zu/%d   #P:1",
		 lines, N);
	assert_line(text, 2, entries);
	lost = 0;
	json = render(trace_write_json, r, N, &o);
	ck_assert_uint_le(strlen(json), 8192);
	ck_assert_uint_gt(strlen(json), 8192 - 400);
	assert_json(json);
	ck_assert_uint_gt(lost, 0);
	snprintf(entries, sizeof(entries), "\"cut\":{\"limit\":8192,\"events_written\":%llu,"
		 "\"events_lost\":%llu}", N - lost, lost);
	ck_assert_ptr_nonnull(strstr(json, entries));
	free(text);
	free(json);
	free(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("trace_view");
	TCase *text = tcase_create("text");
	TCase *json = tcase_create("json");
	TCase *run = tcase_create("run");

	tcase_add_test(text, text_every_record_type);
	tcase_add_test(text, text_empty);
	tcase_add_test(text, text_merges_cpus_by_time);
	tcase_add_test(json, validator_self_test);
	tcase_add_test(json, json_work_slices_and_flows);
	tcase_add_test(json, json_every_record_type_is_valid);
	tcase_add_test(json, json_empty);
	tcase_add_test(json, json_locks_held_nest);
	tcase_add_test(run, views_of_a_run);
	tcase_add_test(run, streamed_views_are_the_views);
	tcase_add_test(run, views_are_deterministic);
	tcase_add_test(text, event_name_is_the_lines);
	tcase_add_test(text, descriptions_are_the_lines);
	tcase_add_test(text, filter_selects);
	tcase_add_test(text, filter_refuses);
	tcase_add_test(json, json_filter_keeps_slices_whole);
	tcase_add_test(json, json_flow_per_queueing);
	tcase_add_test(json, json_long_slice_in_pieces);
	tcase_add_test(run, views_stop_at_the_limit);
	suite_add_tcase(s, text);
	suite_add_tcase(s, json);
	suite_add_tcase(s, run);
	return s;
}

H_MAIN(suite)
