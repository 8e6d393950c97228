/* Between the campaign's files (campaign.c, campaign_finding.c, campaign_out.c): not an API. */
#ifndef KWSIM_FUZZ_CAMPAIGN_IMPL_H
#define KWSIM_FUZZ_CAMPAIGN_IMPL_H

#include "campaign.h"

struct scn;
struct scn_run;
struct kw_model;
struct xs;
struct xset;

char *fz_strdup(const char *s);
/* A new zeroed finding at the end of r's list (campaign_finding.c; merge's too). */
struct fz_finding *fz_finding_add(struct fz_result *r);

/* A sink for the scenario layer's messages: the first one is kept for the summary. */
struct fz_quiet {
	FILE *f;
	char *buf;
	size_t len;
};
void fz_quiet_rewind(struct fz_quiet *q);
const char *fz_quiet_text(struct fz_quiet *q);
void fz_quiet_free(struct fz_quiet *q);

/* The rotation's strategies for a program (campaign.h), x[] of FZ_NSTRAT. */
#define FZ_NSTRAT 5
void fz_strategies(struct xs *x[], uint64_t seed, size_t est_steps, unsigned int cpus);
void fz_strategies_free(struct xs *x[]);
/* "faithful", "pos run 3", ...: schedule j (-1 the faithful run). */
const char *fz_schedule_name(int j, char *buf, size_t len);
/*
 * Run s on m with schedule j (-1: faithful) of the rotation x, a step
 * limit, the tuples to tuples and the reads-from pairs' hashes to rfs
 * (NULL: none); the run keeps its log.
 */
int fz_run_schedule(const struct scn *s, const struct kw_model *m, struct xs *x[], int j,
		    uint64_t max_steps, struct xset *tuples, struct xset *rfs, struct scn_run *run,
		    FILE *err);

/* A finding as a campaign sees it: the run that showed it and where that run was. */
struct fz_seen {
	const struct kp *p;		/* the program */
	const struct scn_run *run;	/* the run */
	size_t fi;			/* the finding: run->findings[fi] */
	const char *id;			/* its identity (fz_identity) */
	uint64_t program;		/* the program's number in the campaign */
	int schedule;			/* the schedule's among the program's */
	uint64_t pseed;			/* the seed of that schedule's strategies */
};

/*
 * A finding was seen: counted, or, new, shrunk, written and tried on the
 * other variants (campaign_finding.c). Returns 0, or 2 (a file not written).
 */
int fz_finding_seen(struct fz_result *r, const struct fz_seen *seen, const struct kw_model *m,
		    const struct fz_opts *o, FILE *err);

#endif
