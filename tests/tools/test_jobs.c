/*
 * The process pool (tools/lib/jobs.h): every job's lines reach the parent in
 * the order each sent them, every job ends once with its own status, a
 * stop reaches every running child, a pool in a caller's event loop
 * reaps only its own children, a job's bytes reach a data callback whole,
 * and a signal to one job reaches it alone.
 */
#include "lib/jobs.h"

#include "../harness.h"

#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 4

struct seen {
	char lines[N][8][32];
	int nlines[N];
	int ends[N];
	int status[N];
	bool stop_on_first;
	struct jobs_batch *b;
};

static volatile sig_atomic_t stopped;

static void child_sigint(int sig)
{
	(void)sig;
	stopped = 1;
}

/* Job i sends i+1 lines, then exits with status i. */
static int counting(void *arg, unsigned int i, FILE *out)
{
	(void)arg;
	for (unsigned int k = 0; k <= i; k++)
		fprintf(out, "job %u line %u\n", i, k);
	return (int)i;
}

/*
 * Sends one line, then waits for the stop (a SIGINT), then says so. SIGINT
 * stays blocked but in sigsuspend(): a stop that lands between the check
 * and the wait would otherwise be lost, and the child would wait forever.
 */
static int waiting(void *arg, unsigned int i, FILE *out)
{
	sigset_t intr, old;

	(void)arg;
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	sigprocmask(SIG_BLOCK, &intr, &old);
	fprintf(out, "started %u\n", i);
	fflush(out);
	while (!stopped)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	fprintf(out, "stopped %u\n", i);
	return 0;
}

static void on_line(void *arg, unsigned int i, char *line)
{
	struct seen *s = arg;

	ck_assert_uint_lt(i, N);
	ck_assert_int_lt(s->nlines[i], 8);
	snprintf(s->lines[i][s->nlines[i]++], 32, "%s", line);
	/* every job has started: stop them all (explore's --stop-on-first does this) */
	if (s->stop_on_first && !strncmp(line, "started", 7)) {
		int started = 0;

		for (int k = 0; k < N; k++)
			started += s->nlines[k] > 0;
		if (started == N)
			jobs_batch_stop(s->b);
	}
}

static void on_end(void *arg, unsigned int i, int status)
{
	struct seen *s = arg;

	s->ends[i]++;
	s->status[i] = status;
}

START_TEST(batch_lines_and_statuses)
{
	struct seen s = { 0 };
	int status[N];
	struct jobs_batch b = { .n = N, .status = status,
		.ops = { .child = counting, .line = on_line, .end = on_end, .arg = &s } };

	ck_assert_int_eq(jobs_batch_run(&b, "test_jobs"), 0);
	ck_assert(!b.interrupted);
	for (unsigned int i = 0; i < N; i++) {
		ck_assert_int_eq(s.ends[i], 1);
		ck_assert(WIFEXITED(status[i]));
		ck_assert_int_eq(WEXITSTATUS(status[i]), (int)i);
		ck_assert_int_eq(s.status[i], status[i]);
		ck_assert_int_eq(s.nlines[i], (int)i + 1);
		for (unsigned int k = 0; k <= i; k++) {
			char want[32];

			snprintf(want, sizeof(want), "job %u line %u", i, k);
			ck_assert_str_eq(s.lines[i][k], want);
		}
	}
}
END_TEST

START_TEST(batch_stop_reaches_every_child)
{
	struct seen s = { .stop_on_first = true };
	int status[N];
	struct jobs_batch b = { .n = N, .status = status,
		.ops = { .child = waiting, .line = on_line, .arg = &s, .on_sigint = child_sigint } };

	s.b = &b;
	ck_assert_int_eq(jobs_batch_run(&b, "test_jobs"), 0);
	ck_assert(b.interrupted);
	for (unsigned int i = 0; i < N; i++) {
		char want[32];

		ck_assert(WIFEXITED(status[i]) && WEXITSTATUS(status[i]) == 0);
		ck_assert_int_eq(s.nlines[i], 2);
		snprintf(want, sizeof(want), "stopped %u", i);
		ck_assert_str_eq(s.lines[i][1], want);
	}
}
END_TEST

static void loopbreak_when_done(void *arg, unsigned int i, int status)
{
	struct event_base *base = arg;

	(void)i;
	(void)status;
	event_base_loopbreak(base);
}

/* A pool in the caller's loop leaves the caller's other children to the caller. */
START_TEST(pool_reaps_only_its_own)
{
	struct event_base *base = event_base_new();
	struct jobs *j = jobs_new(base);
	struct job_ops ops = { .child = counting, .end = loopbreak_when_done, .arg = base };
	pid_t other = fork();
	int st;

	ck_assert_int_ge(other, 0);
	if (!other)
		_exit(7);
	ck_assert_int_eq(jobs_start(j, 2, &ops, "test_jobs"), 0);
	ck_assert_uint_eq(jobs_running(j), 1);
	while (jobs_running(j))
		event_base_dispatch(base);
	ck_assert_int_eq(waitpid(other, &st, 0), other);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	jobs_free(j);
	event_base_free(base);
}
END_TEST

/* A body of its own framing: bytes with newlines inside and none at the end. */
static int sending_bytes(void *arg, unsigned int i, FILE *out)
{
	(void)arg;
	if (i == 0) {
		for (int k = 0; k < 20000; k++)
			fputs("a\nb", out);
		return 0;
	}
	pause();	/* job 1 waits for jobs_signal() */
	return 0;
}

struct bytes {
	size_t len[2], a;
	int status[2];
	unsigned int ended;
	struct jobs *j;
	struct event_base *base;
};

static void got_bytes(void *arg, unsigned int i, const char *data, size_t len)
{
	struct bytes *b = arg;

	b->len[i] += len;
	for (size_t k = 0; k < len; k++)
		b->a += data[k] == 'a';
}

static void bytes_end(void *arg, unsigned int i, int status)
{
	struct bytes *b = arg;

	b->status[i] = status;
	if (i == 0)		/* job 0 is done: job 1, and only it, is signalled */
		jobs_signal(b->j, 1, SIGKILL);
	if (++b->ended == 2)
		event_base_loopbreak(b->base);
}

/* The data callback gets every byte, unsplit; jobs_signal() reaches one job only. */
START_TEST(pool_data_and_one_signal)
{
	struct bytes b = { .base = event_base_new() };
	struct job_ops ops = { .child = sending_bytes, .data = got_bytes, .end = bytes_end,
			       .arg = &b };

	b.j = jobs_new(b.base);
	ck_assert_int_eq(jobs_start(b.j, 1, &ops, "test_jobs"), 0);
	ck_assert_int_eq(jobs_start(b.j, 0, &ops, "test_jobs"), 0);
	while (jobs_running(b.j))
		event_base_dispatch(b.base);
	ck_assert_uint_eq(b.len[0], 3 * 20000);
	ck_assert_uint_eq(b.a, 20000);
	ck_assert(WIFEXITED(b.status[0]) && WEXITSTATUS(b.status[0]) == 0);
	ck_assert(WIFSIGNALED(b.status[1]) && WTERMSIG(b.status[1]) == SIGKILL);
	ck_assert_uint_eq(b.len[1], 0);
	jobs_free(b.j);
	event_base_free(b.base);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("jobs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, batch_lines_and_statuses);
	tcase_add_test(tc, batch_stop_reaches_every_child);
	tcase_add_test(tc, pool_reaps_only_its_own);
	tcase_add_test(tc, pool_data_and_one_signal);
	suite_add_tcase(s, tc);
	return s;
}

H_MAIN(suite)
