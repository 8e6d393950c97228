#ifndef KWSIM_CMD_FUZZ_H
#define KWSIM_CMD_FUZZ_H

/* kwsim fuzz: programs generated and explored, no scenario given (tools/cmd_fuzz.c). */
int kwsim_fuzz(int argc, char **argv);

#endif
