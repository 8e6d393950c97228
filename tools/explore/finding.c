#include "finding.h"

#include <stdio.h>
#include <string.h>

const char *xf_bug(const struct sim_finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s:%d %s", sim_finding_kind_name(f->kind),
		 f->site.func ? f->site.func : "-", f->site.func ? f->site.line : 0, f->context);
	return buf;
}

const char *xf_key(const struct sim_finding *f, char *buf, size_t len)
{
	size_t n;

	xf_bug(f, buf, len);
	n = strlen(buf);
	if (f->note[0] && n < len)
		snprintf(buf + n, len - n, " @ %s", f->note);
	return buf;
}

bool xf_condition_witness(const struct scn *s, const struct scn_run *run)
{
	switch (s->quant) {
	case Q_EXISTS:
		return run->cond_holds;
	case Q_NOT_EXISTS:
	case Q_FORALL:
		return s->quant == Q_FORALL ? !run->cond_holds : run->cond_holds;
	default:
		return false;
	}
}
