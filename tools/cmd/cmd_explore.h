#ifndef KWSIM_CMD_EXPLORE_H
#define KWSIM_CMD_EXPLORE_H

/* kwsim explore: race exploration of a scenario (tools/cmd/cmd_explore.c). */
int kwsim_explore(int argc, char **argv);
/* kwsim merge: shards' results as one campaign's. */
int kwsim_merge(int argc, char **argv);

#endif
