/* The module generator's parts (kmod_gen.c, kmod_cond.c), sharing one state. */
#ifndef KWSIM_KMOD_GEN_H
#define KWSIM_KMOD_GEN_H

#include <stdint.h>
#include <stdio.h>

struct scn;
struct scn_stmt;
struct kmod_steer;

struct kgen {
	FILE *out;
	const struct scn *s;
	int prog;		/* whose registers a body writes */
	const char *who;	/* the context a body is, for log() */
	int depth;		/* of blocks: indentation, loop counters' names */
	uint64_t last_at;	/* the latest `at` statement (a range's upper bound), ns */
	int nranges;		/* range sites numbered so far (kw_range()'s site) */
	const struct kmod_steer *steer;	/* NULL: not steered */
	const struct scn_stmt **sites;	/* the statements the orderings name, by site */
	int nsites;
};

/* text as a C string literal: quotes, backslashes and bytes outside ASCII escaped */
void kgen_cstr(FILE *out, const char *text);
/* kw_print_unobserved(), kw_observe(): the state's atoms, the condition */
void kgen_cond(struct kgen *g);
/* kw_refuse(): the settings as load-time checks */
void kgen_refuse(struct kgen *g);
/* The range sites of s: its statements' and programs' ranges (KW_NRANGES). */
int kgen_count_ranges(const struct scn *s);
/* g->last_at from the programs' `at` statements */
void kgen_last_at(struct kgen *g);
/*
 * How late (us) a context may start or reach an `at` before its iteration
 * is not counted: a quarter of the shortest gap between two of the
 * scenario's times, at least 1 ms; 0 (not checked) with one context and
 * no `at`, where nothing's timing is relative to anything else's.
 */
unsigned int kgen_late_us(const struct scn *s);

#endif
