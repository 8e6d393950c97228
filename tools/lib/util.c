#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
