/*
 * A program with a bug of each kind the sanitizer build reports, one per
 * argument, so the tests can see the exit status each report gets
 * (tests/tools/sanitizer_status.sh). Built in the sanitizer build only; it
 * is not part of kwsim.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "";

	if (!strcmp(what, "use-after-free")) {
		char *volatile p = malloc(16);

		free(p);
		return p[argc & 1];
	}
	if (!strcmp(what, "leak")) {
		void *volatile p = malloc(64);

		p = NULL;
		return p != NULL;
	}
	if (!strcmp(what, "overflow")) {
		volatile int i = INT_MAX;

		i += argc;
		return i & 1;
	}
	fprintf(stderr, "usage: sanitizer_probe use-after-free|leak|overflow\n");
	return 2;
}
