#ifndef KWSIM_CMD_SHRINK_H
#define KWSIM_CMD_SHRINK_H

/* kwsim shrink FILE [--out OUT] [--budget RUNS] [--finding KEY|N] [--json]: cmd_shrink.c */
int kwsim_shrink(int argc, char **argv);

#endif
