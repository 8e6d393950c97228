/*
 * The scenario library under the server's roots, and the bounded buffer
 * every answer is written into.
 *
 * A request names a file as ROOT/REL. REL is checked as written (relative,
 * no empty, "." or ".." component, a .kws name) and then as resolved: the
 * real path, symlinks followed, must lie inside the root's real directory
 * and be a regular file. The first check gives the clearer message; the
 * second is the one that holds against a symlink pointing out.
 */
#define _GNU_SOURCE
#include "srv.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- buffers ---------------------------------------------------------------------------------- */

void srv_buf_add(struct srv_buf *b, const char *p, size_t n)
{
	size_t limit = b->limit ? b->limit : SRV_MAX_OUTPUT;

	if (b->overflow || n > limit - b->len) {
		b->overflow = true;
		return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (!b->data)
			abort();
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static ssize_t buf_write(void *cookie, const char *p, size_t n)
{
	srv_buf_add(cookie, p, n);
	return (ssize_t)n;	/* dropped bytes are the overflow flag's to report */
}

FILE *srv_buf_open(struct srv_buf *b)
{
	FILE *f = fopencookie(b, "w", (cookie_io_functions_t){ .write = buf_write });

	if (!f)
		abort();
	return f;
}

void srv_buf_free(struct srv_buf *b)
{
	free(b->data);
	*b = (struct srv_buf){ 0 };
}

/* --- names ------------------------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* REL as written: relative, each component a name, a .kws file. */
static bool rel_ok(const char *rel, char *why, size_t len)
{
	const char *p = rel;

	if (!*rel) {
		snprintf(why, len, "no file named after the root");
		return false;
	}
	if (rel[0] == '/') {
		snprintf(why, len, "'%s' is an absolute path: name a file inside the root", rel);
		return false;
	}
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(why, len, "'%s' has an empty, '.' or '..' component", rel);
			return false;
		}
		p += n + (e != NULL);
	}
	if (!ends_with(rel, ".kws")) {
		snprintf(why, len, "'%s' is not a scenario file (.kws)", rel);
		return false;
	}
	return true;
}

char *srv_resolve(const struct srv_root *roots, size_t nroots, const char *id, char *why,
		  size_t len)
{
	const char *slash = strchr(id, '/');
	const struct srv_root *root = NULL;
	char *joined, *real;
	struct stat st;
	size_t dl;

	for (size_t i = 0; slash && i < nroots; i++)
		if (roots[i].dir && (size_t)(slash - id) == strlen(roots[i].name) &&
		    !strncmp(id, roots[i].name, (size_t)(slash - id)))
			root = &roots[i];
	if (!root) {
		snprintf(why, len, "'%s' names no root: files are lib/NAME.kws%s", id,
			 nroots > 1 && roots[1].dir ? " or root/NAME.kws" : "");
		return NULL;
	}
	if (!rel_ok(slash + 1, why, len))
		return NULL;
	if (asprintf(&joined, "%s/%s", root->dir, slash + 1) < 0)
		abort();
	real = realpath(joined, NULL);
	free(joined);
	if (!real) {
		snprintf(why, len, "no scenario '%s'", id);
		return NULL;
	}
	dl = strlen(root->dir);
	if (strncmp(real, root->dir, dl) || real[dl] != '/') {
		snprintf(why, len, "'%s' resolves outside its root", id);
		free(real);
		return NULL;
	}
	if (stat(real, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "'%s' is not a regular file", id);
		free(real);
		return NULL;
	}
	return real;
}

char *srv_read_file(const char *path, size_t *len, char *why, size_t wlen)
{
	FILE *f = fopen(path, "rb");
	struct srv_buf b = { .limit = SRV_MAX_FILE };
	char chunk[8192];
	size_t n;

	if (!f) {
		snprintf(why, wlen, "cannot read the file: %s", strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		srv_buf_add(&b, chunk, n);
	fclose(f);
	if (b.overflow) {
		snprintf(why, wlen, "the file is larger than the server's limit of %d bytes",
			 SRV_MAX_FILE);
		srv_buf_free(&b);
		return NULL;
	}
	if (!b.data)
		srv_buf_add(&b, "", 0);
	*len = b.len;
	return b.data;
}

void srv_remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			abort();
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* --- listing ---------------------------------------------------------------------------------- */

struct list {
	char **ids;
	size_t n, cap, per_root;
	bool cut;			/* this root holds more than SRV_MAX_LIST */
};

static void list_add(struct list *l, char *id)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->ids = realloc(l->ids, l->cap * sizeof(*l->ids));
		if (!l->ids)
			abort();
	}
	l->ids[l->n++] = id;
	l->per_root++;
}

/* The .kws files under dir (the root's real directory; rel its path from there), depth-bounded. */
static void walk(struct list *l, const struct srv_root *root, const char *rel, int depth)
{
	char *dir;
	DIR *d;
	struct dirent *e;

	if (depth > 8 || asprintf(&dir, "%s%s%s", root->dir, *rel ? "/" : "", rel) < 0)
		return;
	d = opendir(dir);
	free(dir);
	if (!d)
		return;
	while (!l->cut && (e = readdir(d))) {
		char *sub, *id, why[256], *real;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) < 0)
			abort();
		if (asprintf(&id, "%s/%s", root->name, sub) < 0)
			abort();
		real = NULL;
		if (asprintf(&real, "%s/%s", root->dir, sub) < 0)
			abort();
		if (!lstat(real, &st) && S_ISDIR(st.st_mode)) {
			walk(l, root, sub, depth + 1);
			free(id);
		} else {
			char *ok = ends_with(sub, ".kws") ? srv_resolve(root, 1, id, why, sizeof(why))
							  : NULL;

			/* a file listed is a file served: a symlink out is neither */
			if (ok && l->per_root == SRV_MAX_LIST)
				l->cut = true;
			if (ok && !l->cut)
				list_add(l, id);
			else
				free(id);
			free(ok);
		}
		free(real);
		free(sub);
	}
	closedir(d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t srv_list(const struct srv_root *roots, size_t nroots, char ***ids, const char **cut)
{
	struct list l = { 0 };
	size_t ncut = 0;

	for (size_t i = 0; i < nroots; i++) {
		cut[i] = NULL;
		if (!roots[i].dir)
			continue;
		l.per_root = 0;
		l.cut = false;
		walk(&l, &roots[i], "", 0);
		if (l.cut)
			cut[ncut++] = roots[i].name;
	}
	if (l.n)
		qsort(l.ids, l.n, sizeof(*l.ids), by_name);
	*ids = l.ids;
	return l.n;
}

void srv_list_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}
