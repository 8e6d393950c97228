#ifndef KWSIM_CMD_FUZZ_H
#define KWSIM_CMD_FUZZ_H

#include <stdbool.h>

/* kwsim fuzz: programs generated and explored, no scenario given (tools/cmd/cmd_fuzz.c). */
int kwsim_fuzz(int argc, char **argv);
/* kwsim merge of fuzz --shard outputs: DIR/result.txt is a fuzz shard's (kwsim_merge asks). */
bool kwsim_fuzz_shard_dir(const char *dir);
int kwsim_merge_fuzz(int argc, char **argv);

#endif
