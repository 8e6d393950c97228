/*
 * The process pool (jobs.h). Each job is a forked child with a pipe; the
 * parent reads its lines with a bufferevent and reaps it on SIGCHLD. A
 * child closes the pipes of the jobs started before it, so each pipe's EOF
 * means its own child is gone. A job is freed once it has ended: a server
 * runs jobs without end, and keeps only those that run.
 */
#include "lib/jobs.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct job {
	struct job *next;
	struct jobs *pool;
	struct job_ops ops;
	unsigned int index;
	pid_t pid;
	int status;
	bool reaped, eof, ended;
	struct bufferevent *bev;
};

struct jobs {
	struct event_base *base;
	struct event *sigchld;
	struct job *list;	/* newest first */
	unsigned int running;
};

static void on_sigchld(evutil_socket_t sig, short what, void *arg);

struct jobs *jobs_new(struct event_base *base)
{
	struct jobs *j = calloc(1, sizeof(*j));

	if (!j)
		abort();
	j->base = base;
	/* before any child exists, so that no SIGCHLD is missed */
	j->sigchld = evsignal_new(base, SIGCHLD, on_sigchld, j);
	if (!j->sigchld || evsignal_add(j->sigchld, NULL))
		abort();
	return j;
}

/* Both halves of an end seen: the end callback, once; then the job goes. */
static void maybe_ended(struct job *c)
{
	struct job **pp = &c->pool->list;

	if (c->ended || !c->reaped || !c->eof)
		return;
	c->ended = true;
	c->pool->running--;
	if (c->ops.end)
		c->ops.end(c->ops.arg, c->index, c->status);
	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	bufferevent_free(c->bev);	/* safe in its own callback: libevent defers it */
	free(c);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct job *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	char *line;
	size_t len;

	if (c->ops.data) {
		while ((len = evbuffer_get_contiguous_space(in))) {
			c->ops.data(c->ops.arg, c->index, (const char *)evbuffer_pullup(in, (ssize_t)len),
				    len);
			evbuffer_drain(in, len);
		}
		return;
	}
	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF))) {
		if (c->ops.line)
			c->ops.line(c->ops.arg, c->index, line);
		free(line);
	}
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct job *c = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	on_read(bev, c);
	c->eof = true;
	bufferevent_disable(bev, EV_READ);
	maybe_ended(c);
}

static void on_sigchld(evutil_socket_t sig, short what, void *arg)
{
	struct jobs *j = arg;
	struct job *next;
	int status;
	pid_t pid;

	(void)sig;
	(void)what;
	/* only our own children: a server may have others */
	for (struct job *c = j->list; c; c = next) {
		next = c->next;		/* c goes if it has ended */
		if (c->reaped || (pid = waitpid(c->pid, &status, WNOHANG)) <= 0)
			continue;
		c->reaped = true;
		c->status = status;
		maybe_ended(c);
	}
}

static void child(struct jobs *j, struct job *c, int fd)
{
	struct sigaction sa = { .sa_handler = c->ops.on_sigint ? c->ops.on_sigint : SIG_DFL };
	FILE *out;
	int rc;

	/* the child's own handlers: libevent's are the parent's */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGCHLD, SIG_DFL);
	for (struct job *o = j->list; o; o = o->next)
		if (o != c && o->bev)
			close(bufferevent_getfd(o->bev));
	out = fdopen(fd, "w");
	if (!out)
		_exit(2);
	rc = c->ops.child(c->ops.arg, c->index, out);
	if (fclose(out) && !rc)
		rc = 2;
	fflush(stderr);
	_exit(rc);
}

int jobs_start(struct jobs *j, unsigned int index, const struct job_ops *ops, const char *cmd)
{
	struct job *c = calloc(1, sizeof(*c));
	int fds[2];

	if (!c)
		abort();
	if (pipe(fds)) {
		fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
		free(c);
		return -1;
	}
	*c = (struct job){ .next = j->list, .pool = j, .ops = *ops, .index = index };
	j->list = c;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", cmd, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		j->list = c->next;
		free(c);
		return -1;
	}
	if (!c->pid) {
		close(fds[0]);
		child(j, c, fds[1]);
	}
	close(fds[1]);
	j->running++;
	evutil_make_socket_nonblocking(fds[0]);
	c->bev = bufferevent_socket_new(j->base, fds[0], BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev)
		abort();
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	bufferevent_enable(c->bev, EV_READ);
	return 0;
}

void jobs_kill(struct jobs *j, int sig)
{
	for (struct job *c = j->list; c; c = c->next)
		if (!c->reaped)
			kill(c->pid, sig);
}

void jobs_signal(struct jobs *j, unsigned int index, int sig)
{
	for (struct job *c = j->list; c; c = c->next)
		if (c->index == index && !c->reaped)
			kill(c->pid, sig);
}

unsigned int jobs_running(const struct jobs *j)
{
	return j->running;
}

void jobs_free(struct jobs *j)
{
	struct job *c, *next;

	if (!j)
		return;
	for (c = j->list; c; c = next) {
		next = c->next;
		if (c->bev)
			bufferevent_free(c->bev);
		free(c);
	}
	event_free(j->sigchld);
	free(j);
}

/* --- a batch: the commands' --jobs ------------------------------------------------------- */

struct batch_run {
	struct jobs_batch *b;
	struct event_base *base;
	job_end_fn end;
};

static void batch_end(void *arg, unsigned int index, int status)
{
	struct batch_run *r = arg;

	r->b->status[index] = status;
	if (r->end)
		r->end(r->b->ops.arg, index, status);
	if (!jobs_running(r->b->pool))
		event_base_loopbreak(r->base);
}

static void batch_line(void *arg, unsigned int index, char *line)
{
	struct batch_run *r = arg;

	if (r->b->ops.line)
		r->b->ops.line(r->b->ops.arg, index, line);
}

static int batch_child(void *arg, unsigned int index, FILE *out)
{
	struct batch_run *r = arg;

	return r->b->ops.child(r->b->ops.arg, index, out);
}

static void batch_sigint(evutil_socket_t sig, short what, void *arg)
{
	(void)sig;
	(void)what;
	jobs_batch_stop(arg);
}

void jobs_batch_stop(struct jobs_batch *b)
{
	b->interrupted = true;
	jobs_kill(b->pool, SIGINT);
}

int jobs_batch_run(struct jobs_batch *b, const char *cmd)
{
	struct batch_run r = { .b = b, .base = event_base_new(), .end = b->ops.end };
	struct job_ops ops = { .child = batch_child, .line = batch_line, .end = batch_end,
			       .arg = &r, .on_sigint = b->ops.on_sigint };
	struct event *sigint;
	int rc = 0;

	if (!r.base)
		abort();
	b->pool = jobs_new(r.base);
	b->interrupted = false;
	sigint = evsignal_new(r.base, SIGINT, batch_sigint, b);
	if (!sigint || evsignal_add(sigint, NULL))
		abort();
	for (unsigned int i = 0; i < b->n; i++)
		b->status[i] = -1;
	for (unsigned int i = 0; i < b->n && !rc; i++)
		rc = jobs_start(b->pool, i, &ops, cmd);
	if (rc)		/* the jobs started so far stop */
		jobs_kill(b->pool, SIGINT);
	if (jobs_running(b->pool))
		event_base_dispatch(r.base);
	event_free(sigint);
	jobs_free(b->pool);
	b->pool = NULL;
	event_base_free(r.base);
	return rc;
}

bool jobs_parse_shard(const char *v, unsigned int *i, unsigned int *n)
{
	char tail;

	const char *slash = strchr(v, '/');

	/* digits only, one slash, no number longer than 1,000,000's (sscanf would wrap) */
	if (!slash || strspn(v, "0123456789/") != strlen(v) || slash != strrchr(v, '/') ||
	    slash - v > 7 || strlen(slash + 1) > 7)
		return false;
	if (sscanf(v, "%u/%u%c", i, n, &tail) != 2 || !*n || *i >= *n || *n > 1000000)
		return false;
	return true;
}
