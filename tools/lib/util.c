#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kwsim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try 'kwsim help')\n", stderr);
	return 2;
}

bool cmd_takes_value(const char *a, const char *const names[])
{
	for (; *names; names++)
		if (!strcmp(a, *names))
			return true;
	return false;
}

int cmd_other_arg(const char *cmd, const char *a, const char **file, const char *what,
		  const char *usage)
{
	if (usage && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
		printf("usage: kwsim %s\n(the options are explained by 'kwsim help')\n", usage);
		return -1;
	}
	/* "-" alone may name a file, for a command that reads one */
	if (a[0] == '-' && (a[1] || !file))
		return cmd_usage_error(cmd, "unknown option '%s'", a);
	if (!file)
		return cmd_usage_error(cmd, "%s, not '%s'", what, a);
	if (*file)
		return cmd_usage_error(cmd, "one %s file at a time, not also '%s'", what, a);
	*file = a;
	return 0;
}

bool cmd_parse_u64(const char *v, uint64_t *out)
{
	char *end;

	/* strtoull accepts a sign and leading space: a count has neither */
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return !*end && !errno;
}

double host_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

volatile sig_atomic_t cmd_stop;

void cmd_on_sigint(int sig)
{
	(void)sig;
	cmd_stop = 1;
}

void cmd_catch_sigint(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = cmd_on_sigint };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old);
}

bool cmd_campaign_hooks(const char *env, volatile sig_atomic_t **stop, uint64_t *raise_at)
{
	const char *hook = getenv(env);

	*stop = &cmd_stop;
	if (hook)
		(void)cmd_parse_u64(hook, raise_at);
	return isatty(STDERR_FILENO);
}

void *cmd_set_slots(int argc, size_t size)
{
	void *p = calloc((size_t)argc, size);

	if (!p)
		abort();
	return p;
}

const char *cmd_value(int argc, char **argv, int i)
{
	return i + 1 < argc ? argv[i + 1] : NULL;
}

bool cmd_parse_seconds(const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return !errno && !*end && *v && *out > 0 && isfinite(*out);
}

int cmd_option_value(const char *cmd, int argc, char **argv, int i, const char *const valued[],
		     const char **v)
{
	*v = cmd_value(argc, argv, i);
	if (!*v && cmd_takes_value(argv[i], valued))
		return cmd_usage_error(cmd, "option %s needs a value", argv[i]);
	return 0;
}

bool cmd_progress_due(struct cmd_progress *p, bool final, double *elapsed)
{
	double now = host_seconds(CLOCK_MONOTONIC);

	if (final) {
		fputs("\r\033[K", stderr);
		return false;
	}
	if (now - p->last < 0.2)
		return false;
	p->last = now;
	*elapsed = now - p->t0;
	return true;
}

FILE *memstream_open(char **buf, size_t *len)
{
	FILE *f;

	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (!f)
		abort();
	return f;
}
