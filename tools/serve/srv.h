/*
 * kwsim serve's parts, which know nothing of each other's insides: the
 * library of scenario files under the server's roots (srv_lib.c), one run
 * or campaign of a scenario as bounded text (srv_run.c), the HTML of its
 * own pages (srv_page.c), and the HTTP side (serve.c).
 */
#ifndef KWSIM_SRV_H
#define KWSIM_SRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* --- bounds: what a request may ask, what a run may take --------------------------------- */

#define SRV_MAX_BODY	(256 << 10)	/* a request's body: an edited scenario */
#define SRV_MAX_HEADERS	(8 << 10)	/* the request line and headers together */
#define SRV_MAX_URI	2048		/* the request's target, query string included */
#define SRV_MAX_VALUE	512		/* one query parameter's value, decoded */
#define SRV_MAX_FILE	(1 << 20)	/* a scenario file served or run */
#define SRV_MAX_LIST	4096		/* scenario files listed per root */
#define SRV_MAX_STEPS	2000000		/* a run's scheduling points, whatever its file says */
#define SRV_MAX_OUTPUT	(16 << 20)	/* a run's result, and its document's records */
#define SRV_MAX_RECORDS	20000		/* records a run's document keeps (the rest counted) */
#define SRV_MAX_RUNS	1000		/* an exploration's runs per variant */
#define SRV_MAX_STREAMS	8		/* playbacks in progress at once */
#define SRV_MAX_WAITING	64		/* simulations waiting for a child, past --max-sims */
#define SRV_MAX_EDITS	32		/* edited scenarios kept, oldest dropped first */
#define SRV_TIMEOUT_S	10		/* a connection idle this long is closed */
/* A playback's pace, ms between chunks: well inside the idle timeout, which a gap would trip. */
#define SRV_MAX_PACE_MS	5000

/*
 * What a simulation's child may take (kwsim serve's options; 0: no limit,
 * but for the output and the count). Past one, the request is answered
 * with the limit named: 503 for time and memory, 413 for output.
 */
struct srv_limits {
	uint64_t wall_s;		/* --time-limit: the server kills the child */
	uint64_t cpu_s;			/* --cpu-limit: RLIMIT_CPU in the child */
	uint64_t mem_mb;		/* --mem-limit: RLIMIT_AS in the child */
	uint64_t out_mb;		/* --output-limit: the server stops reading, kills */
	uint64_t max_sims;		/* --max-sims: children at once; more wait their turn */
};
#define SRV_LIMITS_DEFAULT { .wall_s = 60, .cpu_s = 30, .mem_mb = 4096, .out_mb = 64, \
			     .max_sims = 4 }

/* AddressSanitizer reserves terabytes of address space: no RLIMIT_AS under it. */
#if defined(__SANITIZE_ADDRESS__)
#define SRV_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SRV_SANITIZED 1
#endif
#endif
#ifndef SRV_SANITIZED
#define SRV_SANITIZED 0
#endif

/* --- a growing buffer of bytes, bounded ------------------------------------------------------- */

struct srv_buf {
	char *data;
	size_t len, cap, limit;		/* limit 0: SRV_MAX_OUTPUT */
	bool overflow;			/* a write passed the limit: the rest was dropped */
};

/* A stream writing into b (a fopencookie): writes past the limit are dropped. */
FILE *srv_buf_open(struct srv_buf *b);
void srv_buf_add(struct srv_buf *b, const char *p, size_t n);
void srv_buf_free(struct srv_buf *b);

/* --- the library ------------------------------------------------------------------------------ */

/* A root: "lib" (the repository's scenarios/) or "root" (--root DIR). */
struct srv_root {
	const char *name;
	char *dir;			/* realpath'd */
};

/*
 * The file a request names, "ROOT/REL" (lib/races/x.kws): REL relative, no
 * "." or ".." component, ending in .kws, and the file it resolves to
 * (symlinks followed) inside the root's directory and regular. Returns a
 * malloc'd real path, or NULL with why (for a 4xx answer) in why.
 */
char *srv_resolve(const struct srv_root *roots, size_t nroots, const char *id, char *why,
		  size_t len);
/* Read a resolved file (at most SRV_MAX_FILE bytes): malloc'd, or NULL with why. */
char *srv_read_file(const char *path, size_t *len, char *why, size_t wlen);
/*
 * The ids of every .kws file under the roots, sorted: "lib/races/x.kws" each,
 * at most SRV_MAX_LIST per root. cut[] (nroots of them) names the roots
 * that hold more, in order, then NULL.
 */
size_t srv_list(const struct srv_root *roots, size_t nroots, char ***ids, const char **cut);
void srv_list_free(char **ids, size_t n);

/* Remove a directory of files (a campaign's temporary one), its files first. */
void srv_remove_dir(const char *dir);

/* --- runs ------------------------------------------------------------------------------------- */

struct srv_query {
	const char *kernel;		/* NULL: the scenario's */
	const char *strategy;		/* run: faithful|random; explore: random|pct|pos|dfs|portfolio */
	bool has_seed;
	uint64_t seed;
	bool replay;			/* follow the file's schedule section */
	uint64_t runs;			/* explore */
};

/*
 * The outcome of a run: status 200 with the result as kwsim run --json
 * prints it (json) and the run document of the HTML view (tools/html/html.h)
 * in its served parts: head (a whole object), records (each a JSON object,
 * separated by ",\n": nrecords of them), end (the end object). Or a 4xx
 * status and a plain-text message (msg: the parser's "file:line:col:
 * error: ..." lines, or why the request was refused).
 */
struct srv_result {
	int status;
	struct srv_buf json, head, whole_head, records, end, msg;
	size_t nrecords;
	char title[128];
};

/* Run text (named path in messages) once as q asks. */
void srv_run(const char *path, const char *text, size_t len, const struct srv_query *q,
	     struct srv_result *out);
/*
 * Explore it: the campaign's JSON summary (kwsim explore --json's) in json,
 * and each distinct finding's replay file, in files[0..nfiles).
 */
struct srv_explored {
	char *text;			/* a replay file: the scenario with its schedule */
	char *what;			/* the finding, one line */
};
void srv_explore(const char *path, const char *text, size_t len, const struct srv_query *q,
		 const char *dir, struct srv_result *out, struct srv_explored **files,
		 size_t *nfiles);
void srv_explored_free(struct srv_explored *files, size_t nfiles);
void srv_result_free(struct srv_result *r);
/* A campaign's directory (in TMPDIR, else /tmp): malloc'd, or NULL with why. */
char *srv_temp_dir(char *why, size_t wlen);

/*
 * A result through a pipe: a child runs the scenario (serve.c), the server
 * takes the result back. The frame: "kwsim-result STATUS NRECORDS NFILES\n",
 * then each part as "LEN\n" and LEN bytes: title, json, head, whole_head,
 * records, end, msg, then each file's text and what. take() is false for a
 * frame that is cut or malformed (a child that died mid-way).
 */
void srv_result_send(FILE *out, const struct srv_result *r, const struct srv_explored *files,
		     size_t nfiles);
bool srv_result_take(const char *data, size_t len, struct srv_result *r,
		     struct srv_explored **files, size_t *nfiles);

/* The parser's messages "PATH:LINE:COL: error: ..." in msg: the line of each (0: none). */
int srv_error_line(const char *msg_line, const char *path);

#endif
