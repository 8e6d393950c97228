/*
 * Files the user names for output (--html OUT, -o, --save-schedule,
 * --out DIR's files, a corpus). A regular file, or a path with nothing
 * there yet, is written to a temporary file beside it and renamed over it
 * only when everything was written: a failure (a full disk, an error of
 * the run) leaves what was there before, and never a part of a file.
 * Anything else the path names (a device such as /dev/null or /dev/full, a
 * FIFO, a terminal, a symbolic link) is written straight and never removed
 * or replaced: kwsim removes only what it created.
 */
#ifndef KWSIM_OUTFILE_H
#define KWSIM_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *f;		/* write here */
	char *path;		/* what the user named */
	char *tmp;		/* the file beside it, or NULL when written straight */
};

/* Open path for writing. Returns o->f, or NULL with errno set (o is then clear). */
FILE *outfile_open(struct outfile *o, const char *path);

/*
 * Finish: with ok, flush to the disk and put the file in place; returns 0,
 * or -1 with errno set when a write, the flush or the rename failed (then
 * the path is as it was). Without ok (the caller's own failure), drop what
 * was written to the temporary file; returns -1. o is clear afterwards.
 */
int outfile_close(struct outfile *o, bool ok);

#endif
