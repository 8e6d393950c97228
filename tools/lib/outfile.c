/*
 * Output files: written beside and renamed into place, or written
 * straight where the path is not a regular file (outfile.h says why).
 */
#define _GNU_SOURCE
#include "lib/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void clear(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

/* The mode a new file gets from fopen(): 0666 less the umask; an old file keeps its own. */
static mode_t new_mode(const struct stat *old, bool exists)
{
	mode_t mask;

	if (exists)
		return old->st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

FILE *outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	bool exists = lstat(path, &st) == 0;
	int fd, saved;

	memset(o, 0, sizeof(*o));
	if (exists && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		return o->f;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.kwsim-XXXXXX", path) < 0) {
		o->tmp = NULL;
		clear(o);
		errno = ENOMEM;
		return NULL;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		saved = errno;
		clear(o);
		errno = saved;
		return NULL;
	}
	if (fchmod(fd, new_mode(&st, exists)) || !(o->f = fdopen(fd, "w"))) {
		saved = errno;
		close(fd);
		unlink(o->tmp);
		clear(o);
		errno = saved;
		return NULL;
	}
	return o->f;
}

int outfile_close(struct outfile *o, bool ok)
{
	int failed = ferror(o->f), saved = errno, rc = 0;

	if (fflush(o->f) || failed) {
		saved = failed && saved ? saved : errno ? errno : EIO;
		rc = -1;
	} else if (o->tmp && fsync(fileno(o->f))) {
		saved = errno;
		rc = -1;
	}
	if (fclose(o->f) && !rc) {
		saved = errno;
		rc = -1;
	}
	if (o->tmp) {
		if (ok && !rc && rename(o->tmp, o->path)) {
			saved = errno;
			rc = -1;
		}
		if (!ok || rc)
			unlink(o->tmp);	/* ours: mkstemp made it */
	}
	clear(o);
	errno = saved;
	return ok ? rc : -1;
}
