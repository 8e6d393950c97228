/*
 * kwsim export --module: a scenario as a Linux kernel module that runs it
 * N times on a real kernel and prints its outcome table (klitmus7's idea).
 * tools/kmod/README.md says what the module does, what it prints (the
 * protocol a runner parses) and which statements cannot be exported.
 *
 * kmod_check.c refuses what the module cannot do safely or faithfully;
 * kmod_gen.c writes the module's C source, between the two halves of the
 * runtime (kmod_head.c, kmod_main.c, embedded at build time); kmod.c writes
 * the files.
 */
#ifndef KWSIM_KMOD_H
#define KWSIM_KMOD_H

#include <stdbool.h>
#include <stdio.h>

struct scn;

/*
 * 0 when s can be exported, else 2 after "FILE:LINE:COL: error: ... cannot
 * be exported to a kernel module: WHY" on err (the first such statement).
 */
int kmod_check(const struct scn *s, FILE *err);

struct scn_stmt;

/*
 * An ordering of a recorded run the module enforces: before statement b
 * begins (b_end false) or ends (b_end true) for the b_nth time, statement a
 * has begun (a_end false) or ended (a_end true) a_nth times. Contexts
 * (owners): 0 the init block, 1 + i program i, 1 + nprogs + i fn i.
 */
struct kmod_order {
	const struct scn_stmt *a, *b;	/* the exported scenario's statements */
	int a_owner, b_owner;
	bool a_end, b_end;
	long a_nth, b_nth;
};

/* What --steer makes of a schedule: the orderings, and what could not be enforced, why. */
struct kmod_steer {
	const char *path;		/* the schedule's file */
	size_t decisions;		/* of its run */
	struct kmod_order *orders;
	int norders;
	char **notes;			/* one line each: what is not enforced, and why */
	size_t nnotes;
};

/*
 * Replays the schedule in the file at path (a replay file of s's scenario,
 * else exit 2 with a message) and reads the orderings of its run the module
 * can enforce (kmod_steer.c). 0, or 2 after a message on err.
 */
int kmod_steer_plan(const struct scn *s, const char *path, struct kmod_steer *out, FILE *err);
void kmod_steer_free(struct kmod_steer *st);
/* A context's name (init, P0, I0, a fn's); a statement as "P0 line 20 'r0 = ...;'". */
const char *kmod_owner_name(const struct scn *s, int owner);
void kmod_step_text(const struct scn *s, const struct scn_stmt *st, int owner, char *buf,
		    size_t len);
/* An ordering in words: "P0 line 20 '...' ends before P1 line 23 '...' begins". */
void kmod_order_text(const struct scn *s, const struct kmod_order *k, char *buf, size_t len);

/* The module's C source for s (kmod_check() passed) to out; steer NULL: unsteered. */
void kmod_gen(const struct scn *s, const struct kmod_steer *steer, const char *version,
	      FILE *out);

/* The module's name: "kws_" and the scenario's name, C-identifier characters only. */
void kmod_name(const struct scn *s, char *buf, size_t len);

/*
 * kwsim export FILE --module DIR: check, then write DIR/NAME.c, DIR/Kbuild
 * and DIR/Makefile, each beside its place and renamed (DIR is made if
 * missing; nothing else in it is touched). Returns 0, or 2 with a message.
 */
int kmod_export(const struct scn *s, const char *dir, const char *steer, const char *version,
		FILE *err);

#endif
