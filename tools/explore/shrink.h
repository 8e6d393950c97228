/*
 * Shrinking a counterexample: a run that shows a finding (or witnesses its
 * scenario's condition) becomes the smallest replay file found that still
 * shows it, within a budget of runs. kwsim shrink calls it on a replay
 * file; kwsim explore on each finding it writes.
 *
 * Every run is made with one chooser, a lenient follower: it answers each
 * question with the candidate schedule's answer while the question fits
 * (same number of candidates, same kind), and with the faithful 0 from the
 * first question that does not fit, or once the schedule runs out. So a
 * candidate may be any edit of a schedule, or a schedule for a scenario
 * with statements cut out, and every run still completes; what a run
 * answered is its log, and the log of an accepted candidate becomes the
 * schedule from then on, so the result replays strictly.
 *
 * The target is the same finding in the sense of xf_bug() (kind, kernel
 * function and line, context; a site in the scenario moves with its line
 * as lines are cut), or the condition's witness (xf_condition_witness()).
 *
 * The steps, repeated while one of them helps and the budget lasts:
 *   ranges     each time range's value (SIM_WHY_RANGE) that is not its
 *              lower bound, brought down toward it by bisection over its
 *              candidates (at most 16 runs a range): the smallest value
 *              found that still shows the target; the lower bound itself
 *              is tried by the schedule step's ddmin, as any answer 0;
 *   schedule   the faithful schedule alone; the log cut short (binary
 *              search on its length); the stalls first: ddmin over the
 *              held-up answers (a CPU held up at a point, SIM_WHY_STALL),
 *              each dropped one answering 0 (not held), then each stall
 *              left shortened to each shorter duration its question
 *              offered; then delta debugging (ddmin, Zeller and
 *              Hildebrandt, TSE 2002) over the set of non-zero answers,
 *              each dropped one answering 0; then each remaining non-zero
 *              answer changed to another (a range's is the ranges step's), or moved
 *              one question earlier or later. A schedule step is taken
 *              only when it lowers the measure below in its order
 *              (stalls, their total duration, deviations, preemptions,
 *              decisions, context switches, the ranges' values above
 *              their lower bounds).
 *   scenario   ddmin over the statements' source spans (the init block's,
 *              fn bodies', programs'), then over whole programs and
 *              declarations; a text that no longer parses (a register the
 *              condition reads was cut, a declaration still used) is
 *              rejected. The file's name, comment, settings and condition
 *              stay. A scenario step is taken only when the bug depth
 *              (deviations, preemptions) does not grow.
 * Then, with what is left of the budget, a search for fewer deviations
 * than cutting found: every schedule with 1, then 2 (XSHRINK_SEARCH_DEPTH)
 * deviations from the faithful order, as a preemption-bounded search
 * enumerates them (the first at each question of the faithful run, the
 * next at each later question of the run that made; a range deviates to
 * its upper bound only, and a search that passed one claims no minimal
 * depth); if one shows the
 * target, the steps above go on from it. When every schedule with fewer
 * deviations than the result was tried, the depth is the fewest
 * (depth_minimal).
 *
 * Bug depth: how many ordering constraints beyond the time-faithful order
 * the target needs, measured on the shrunk schedule: its stalls (each with
 * its duration: a CPU held up that long) and its other forced orders. In a
 * machine with time the stalls say what a race needs from the world (an
 * interrupt that long, there); deviations counts the
 * answers other than the faithful 0 (a CPU run out of time order, an
 * interrupt held back, a wake-up that preempts or does not, a task placed
 * elsewhere, another spinner winning, a time range's value above its lower
 * bound); preemptions counts those of them
 * that take the machine from the CPU that ran last while it could have
 * gone on. Depth 0 (0 deviations) means the time-faithful run shows the
 * target: no race window has to be hit. ddmin's result is 1-minimal (no
 * single remaining deviation can go); the search above makes depths up to
 * 3 exact, deeper ones are upper bounds.
 *
 * Deterministic: the result is a function of the scenario text, the run's
 * settings and log, the target and the budget. Bounded by runs, never by
 * time; each candidate run also gets a step limit of four times the
 * original run's scheduling points (plus 100), so a candidate that
 * loops costs no more than a few runs, and one cut short by it is
 * rejected. The limit is the candidates' only: the final run, the one the
 * file's schedule replays, has the file's own (max_steps), and must match
 * the candidate that was taken.
 */
#ifndef KWSIM_SHRINK_H
#define KWSIM_SHRINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario/scn.h"

/* The default --budget: runs (candidates tried) at most. */
#define XSHRINK_BUDGET	2000
/*
 * A candidate's step limit: XSHRINK_STEP_FACTOR times the original run's
 * points plus XSHRINK_STEP_SLACK, within the scenario's max_steps (0: none).
 * The slack was 100,000: a short run's candidates that loop (a stall taken
 * away, a work queued again before it is reinitialised, run by the worker
 * for ever) then cost a thousand runs each, with the invariants checked at
 * every point; kwsim fuzz's findings of stall-aiming schedules made 2,027
 * such candidates in 300 programs (203M of 206M points, 72 s of 80).
 */
#define XSHRINK_STEP_FACTOR	4
#define XSHRINK_STEP_SLACK	100
uint64_t xshrink_step_bound(uint64_t points, uint64_t max_steps);

/* The search for fewer deviations tries every schedule with up to this many. */
#define XSHRINK_SEARCH_DEPTH	2

/* What a run costs, the measures shrinking lowers. */
#define XSHRINK_STALLS_SHOWN	8	/* the durations a measure keeps, in log order */

struct xshrink_measure {
	/* first, time: the stalls (SIM_WHY_STALL answers other than 0, not held) */
	size_t stalls;
	uint64_t stall_ns;	/* their durations, summed */
	uint64_t stall_each[XSHRINK_STALLS_SHOWN];	/* the first ones' */
	size_t deviations;	/* answers other than the faithful 0, stalls included */
	size_t preemptions;	/* of them, cpu answers that leave the CPU that ran last */
	size_t decisions;	/* the log's length */
	size_t switches;	/* context switches: the trace's sched_switch records */
	size_t range_steps;	/* the ranges' values above their lower bounds, in candidates */
	/* the scenario's size */
	size_t statements;	/* in programs, fn bodies and the init block, nested ones too */
	size_t programs;	/* threads, irqs, suspend and resume events */
	size_t declarations;	/* workers, works, fns, locks, completions, counters */
};

struct xshrink_result {
	/*
	 * The shrunk replay file: the scenario with statements cut, a comment
	 * saying what was kept and the measures, and a schedule section with
	 * the run's settings and log (no strategy: the log alone decides).
	 * malloc'd, NUL-terminated; write it as it is.
	 */
	char *text;
	size_t len;
	char target[200];	/* what the run showed: xf_bug()'s text, or XF_CONDITION_KEY */
	char kept[200];		/* the same as the shrunk file shows it (a scenario line moves) */
	struct xshrink_measure before, after;	/* after.deviations, .preemptions: the depth */
	uint64_t runs;		/* runs made, a final replay check included */
	bool budget_spent;	/* it stopped for the budget, not because no step helped */
	/*
	 * No schedule of the shrunk scenario with fewer deviations shows the
	 * target: the search tried them all (depth at most XSHRINK_SEARCH_DEPTH + 1).
	 */
	bool depth_minimal;
	char error[512];	/* after a failure: why */
};

/*
 * Shrink what run found (a run of s on model m that kept its decision log:
 * cfg.drop_decisions false) shows: the finding whose xf_key() or xf_bug()
 * text is target, or with target XF_CONDITION_KEY the condition's witness;
 * with target NULL its first finding, else the witness. At most budget
 * runs (0: XSHRINK_BUDGET). s is only read: every run is of a parse of its
 * text, with found's settings (found->cfg, without its chooser, its
 * on_point and its on_rf: the shrinker's runs must not feed a caller's
 * coverage or a strategy's state, which may be gone by then). The
 * machine is left as the last run ended (sim_fini() is the caller's).
 * Returns 0 with out filled in (xshrink_result_free() it), or -1 with
 * out->error: nothing to shrink for, a target the run does not show, or a
 * run that does not show it again.
 */
int xshrink(const struct scn *s, const struct kw_model *m, const struct scn_run *found,
	    const char *target, uint64_t budget, struct xshrink_result *out);
void xshrink_result_free(struct xshrink_result *r);
/*
 * A measure's stalls as text, in schedule order, each in the largest unit
 * it reaches, whole or to three decimals: "4.998ms, 20ms" ("..." after
 * XSHRINK_STALLS_SHOWN;
 * "" with none). malloc'd.
 */
char *xshrink_stall_text(const struct xshrink_measure *m);
/*
 * The stalls (if any) and the measures before and after, a line each, every
 * line begun with indent: the shrunk file's comment and shrink's summary.
 */
void xshrink_print_measures(FILE *f, const char *indent, const struct xshrink_result *r);

#endif
