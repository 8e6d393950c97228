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

#include <stdio.h>

struct scn;

/*
 * 0 when s can be exported, else 2 after "FILE:LINE:COL: error: ... cannot
 * be exported to a kernel module: WHY" on err (the first such statement).
 */
int kmod_check(const struct scn *s, FILE *err);

/* The module's C source for s (kmod_check() passed) to out. */
void kmod_gen(const struct scn *s, const char *version, FILE *out);

/* The module's name: "kws_" and the scenario's name, C-identifier characters only. */
void kmod_name(const struct scn *s, char *buf, size_t len);

/*
 * kwsim export FILE --module DIR: check, then write DIR/NAME.c, DIR/Kbuild
 * and DIR/Makefile, each beside its place and renamed (DIR is made if
 * missing; nothing else in it is touched). Returns 0, or 2 with a message.
 */
int kmod_export(const struct scn *s, const char *dir, const char *version, FILE *err);

#endif
