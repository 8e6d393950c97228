/* The server's own HTML pages (srv_page.c): every text from a file or a run is escaped. */
#ifndef KWSIM_SRV_PAGE_H
#define KWSIM_SRV_PAGE_H

#include "srv.h"

void page_text(FILE *out, const char *s, size_t n);
void page_str(FILE *out, const char *s);
void page_url(FILE *out, const char *s);
void page_head(FILE *out, const char *title);
void page_tail(FILE *out);

/* The index: a heading per folder; cut names the roots listed only in part (NULL-ended). */
void page_index(FILE *out, char **ids, size_t n, const char *const *cut);

struct page_error {
	int line;			/* 0: none of the text's */
	const char *text;
};

struct page_scn {
	const char *title;
	const char *id;			/* lib/x.kws, or an edit's id */
	bool edit;
	const char *text;
	size_t len;
	bool has_schedule;
	const char *const *kernels;
	size_t nkernels;
	const char *kernel;		/* selected */
	const char *const *strategies;	/* explore's, the default first (and selected) */
	size_t nstrategies;
	const struct page_error *errors;
	size_t nerrors;
	const char *token;		/* the server's, for the edit form (POST /edit checks it) */
};
void page_scenario(FILE *out, const struct page_scn *p);
void page_explored(FILE *out, const char *title, const char *summary,
		   const char *const *edits, const char *const *whats, size_t n);

#endif
