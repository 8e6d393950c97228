/*
 * dfs: systematic search of a scenario's decision tree, bounded by k
 * preemptions, with sleep sets (see dfs.c). The strategy interface
 * (strategy.h) drives it for `kwsim explore --strategy dfs`; tests drive it
 * directly to compare the search with and without sleep sets.
 *
 * Its runs are not independent: run r follows from what runs 0 .. r-1
 * showed, so a campaign cannot be split into shards, and xs_end() (dfs_end)
 * must see each run before the next begins, while the machine still holds
 * the run (the footprint of its last step is read from it). A search learns
 * one tree: one per scenario and model variant (a run of another variant
 * under the same search is reported as a machine that is not deterministic).
 */
#ifndef KWSIM_DFS_H
#define KWSIM_DFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sim/sim.h>

struct dfs;

/* The bound k; sleep_sets false searches every schedule within it. */
struct dfs *dfs_new(unsigned int preemptions, bool sleep_sets);
/*
 * Delay bounding instead (dfs.c): the faithful schedule and those with at
 * most 'delays' stalls until another CPU or the next event.
 */
struct dfs *dfs_new_delays(unsigned int delays);
/* Delay bounding's part I of N (before the first run): schedules whose first delay is its. */
void dfs_shard(struct dfs *d, unsigned int shard, unsigned int nshards);
void dfs_free(struct dfs *d);

/* As xs_begin(): false once the bounded space has been searched. */
bool dfs_begin(struct dfs *d, uint64_t r, struct sim_config *cfg);
/* As xs_end(): learns the tree from run r's decisions and picks the next run. */
void dfs_end(struct dfs *d, uint64_t r, const struct sim_decision *log, size_t n);
bool dfs_exhausted(const struct dfs *d);

struct dfs_stats {
	uint64_t schedules;	/* runs made */
	/*
	 * Of those, runs that came to a point where every candidate within
	 * the bound was asleep: the run went on by the default rule to its end
	 * (a real schedule, equivalent to one run before) and nothing below
	 * that point was searched.
	 */
	uint64_t sleep_blocked;
	size_t max_decisions;	/* the longest run's */
};
void dfs_get_stats(const struct dfs *d, struct dfs_stats *st);

#endif
