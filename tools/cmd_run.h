#ifndef KWSIM_CMD_RUN_H
#define KWSIM_CMD_RUN_H

int kwsim_run(int argc, char **argv);
int kwsim_replay(int argc, char **argv);

#endif
