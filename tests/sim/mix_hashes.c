/*
 * Prints "seed hash decisions end" for the mix's seeds 0 .. N-1 (N from
 * the command line, 200 by default). tools/test compares the output of the
 * debug, release and sanitizer builds byte for byte: a run must not depend
 * on the optimiser, the sanitizers or where anything sits in memory.
 */
#include "mix.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = 200;
	char *end;

	if (argc > 2 || (argc == 2 && (errno = 0, n = strtoul(argv[1], &end, 10), errno || *end ||
				       end == argv[1]))) {
		fprintf(stderr, "usage: mix_hashes [SEEDS]\n");
		return 2;
	}
	for (unsigned long seed = 0; seed < n; seed++) {
		struct mix_run r = { .seed = seed, .strategy = SIM_STRATEGY_RANDOM };

		mix_run(&r);
		printf("%lu %016" PRIx64 " %zu %s\n", seed, r.hash, r.decisions, sim_end_name(r.end));
	}
	return fflush(stdout) ? 1 : 0;
}
