/*
 * A pool of child processes, each running one job and sending lines back
 * through a pipe, multiplexed with libevent in the parent: kwsim explore
 * --jobs and kwsim fuzz --jobs use it through jobs_batch_run(); a server
 * can start jobs in its own event loop with jobs_start(). The parent never
 * blocks on a child: a job has ended once its pipe is at EOF and it has
 * been reaped, whichever comes first, and then its end callback runs once.
 * libevent is the parent's only: a job's function never sees it.
 */
#ifndef KWSIM_JOBS_H
#define KWSIM_JOBS_H

#include <stdbool.h>
#include <stdio.h>

struct event_base;
struct jobs;

/* In the child: job index's work, writing lines to out. Returns the exit status. */
typedef int (*job_fn)(void *arg, unsigned int index, FILE *out);
/* In the parent: a line job index sent, without its newline (the pool frees it). */
typedef void (*job_line_fn)(void *arg, unsigned int index, char *line);
/* In the parent: bytes job index sent, as they come (a body of its own framing). */
typedef void (*job_data_fn)(void *arg, unsigned int index, const char *data, size_t len);
/* In the parent, once: job index ended with this status (as waitpid() gives it). */
typedef void (*job_end_fn)(void *arg, unsigned int index, int status);

struct job_ops {
	job_fn child;
	job_line_fn line;	/* NULL: lines are dropped */
	job_data_fn data;	/* instead of line: the bytes unsplit (kwsim serve's results) */
	job_end_fn end;		/* NULL: nothing to say */
	void *arg;		/* given to all three */
	void (*on_sigint)(int);	/* the child's SIGINT handler (its own stop); NULL: default */
};

/* A pool in base; it reaps its children itself (a SIGCHLD event in base). */
struct jobs *jobs_new(struct event_base *base);
/* Fork job index. Returns 0, or -1 with "CMD: why" on stderr. */
int jobs_start(struct jobs *j, unsigned int index, const struct job_ops *ops, const char *cmd);
/* Send sig to every child not yet reaped. */
void jobs_kill(struct jobs *j, int sig);
/* Send sig to job index's child, if not yet reaped (a server's limit on one job). */
void jobs_signal(struct jobs *j, unsigned int index, int sig);
/* How many jobs have not ended yet. */
unsigned int jobs_running(const struct jobs *j);
/* Only once no job runs: the pool's events go (each job's went when it ended). */
void jobs_free(struct jobs *j);

/*
 * The commands' case: n jobs at once, in an event loop of their own, with
 * SIGINT passed on to every child (each stops after its current run and
 * sends what it has). Returns when all have ended: 0, or -1 when a fork or
 * a pipe failed (the jobs started were stopped and waited for; those not
 * started ended with status -1). status[i] is job i's.
 */
struct jobs_batch {
	unsigned int n;
	struct job_ops ops;
	int *status;		/* n of them */
	bool interrupted;	/* SIGINT came, or jobs_batch_stop() */
	struct jobs *pool;	/* during jobs_batch_run() */
};
int jobs_batch_run(struct jobs_batch *b, const char *cmd);
/* From a line callback: stop every job as a SIGINT would (explore's --stop-on-first). */
void jobs_batch_stop(struct jobs_batch *b);

/*
 * --shard I/N of explore and fuzz: "I/N", decimal, 0 <= I < N <= 1,000,000,
 * nothing else (no sign, space or tail). Returns false for anything else.
 */
bool jobs_parse_shard(const char *v, unsigned int *i, unsigned int *n);

#endif
