/*
 * The machine's own API, for tools/ and tests/: configure, populate, run,
 * and read back findings, the decision log and the trace. Kernel code never
 * includes this; it sees only the kernel-named headers in linux/.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_MAX_CPUS	64

enum sim_preempt { SIM_PREEMPT_NONE, SIM_PREEMPT_VOLUNTARY, SIM_PREEMPT_FULL };

/*
 * Who gets a contended spinlock when its holder lets go: the longest
 * waiter, as qspinlock's pending bit and MCS queue hand it on (x86 since
 * 4.2); or whoever's test-and-set lands first, a newcomer included, as in
 * a guest whose spinlocks fall back to test-and-set without paravirt
 * spinlocks (virt_spin_lock()): which spinner wins is then a decision.
 */
enum sim_spinlock { SIM_SPINLOCK_FIFO, SIM_SPINLOCK_UNFAIR };

/*
 * What a suspend to RAM is (/sys/power/mem_sleep): "deep" (S3) takes the
 * non-boot CPUs down before the machine sleeps; "s2idle" (suspend to idle)
 * does not (kernel/power/suspend.c:431 in 6.12: s2idle_loop() comes before
 * pm_sleep_disable_secondary_cpus()).
 */
enum sim_mem_sleep { SIM_MEM_SLEEP_DEEP, SIM_MEM_SLEEP_S2IDLE };

/* skew_ns: no bound at all. */
#define SIM_SKEW_UNBOUNDED	UINT64_MAX
/* The default skew, 20 us: the reasons are in machine.c. */
#define SIM_SKEW_DEFAULT_NS	20000ULL

enum sim_strategy {
	SIM_STRATEGY_FAITHFUL,	/* earliest local clock first, ties to the lowest CPU */
	SIM_STRATEGY_RANDOM,	/* uniform over the candidates, from the seed */
	SIM_STRATEGY_REPLAY,	/* answers come from a recorded decision log */
};

struct sim_question;
struct sim_rf;

/*
 * A strategy of the caller's own (an explorer's PCT, POS, systematic
 * search, a fuzzer's byte stream): it answers every choice the machine
 * makes, 0 .. q->n - 1, and the answer is logged as any other. It must be
 * a function of what it was given (its ctx, the questions so far), so a
 * run stays reproducible; the log it leaves replays without it.
 */
typedef unsigned int (*sim_chooser_fn)(void *ctx, const struct sim_question *q);

/* Virtual cost, in nanoseconds, of each primitive step. */
struct sim_costs {
	uint64_t point;		/* any scheduling point */
	uint64_t lock;		/* taking an uncontended lock */
	uint64_t unlock;
	uint64_t irq_toggle;	/* local_irq_disable / enable, preempt count changes */
	uint64_t ctx_switch;	/* a task switch on a CPU */
	uint64_t wakeup;
	uint64_t timer_op;
	uint64_t completion;
	uint64_t irq_entry;	/* entering a hardirq or softirq handler */
	uint64_t alloc;
};

/*
 * The kernel release whose services the machine follows (timers, the
 * freezer, kthread_stop, the debug checks' messages): SIM_ERA(4, 9) for
 * 4.9, SIM_ERA(6, 12) for 6.12. Tools set it from the model variant they
 * run, so that the machine under a variant is of the variant's own era.
 */
#define SIM_ERA(major, minor)	((unsigned int)(major) << 8 | (unsigned int)(minor))

struct sim_config {
	int ncpus;			/* 1 .. SIM_MAX_CPUS */
	unsigned int era;		/* SIM_ERA(major, minor); the default is 6.12 */
	/*
	 * CONFIG_DEBUG_OBJECTS_TIMERS: 1 reports misuse of timers (ODEBUG) and
	 * repairs it as lib/debugobjects.c's fixups do; 0, as distribution
	 * kernels are built, lets the misuse go on unseen.
	 */
	unsigned int debug_objects;
	unsigned int hz;		/* jiffies per second */
	enum sim_preempt preempt;
	enum sim_spinlock spinlock;
	enum sim_mem_sleep mem_sleep;
	enum sim_strategy strategy;
	uint64_t seed;
	/*
	 * When set, chooser answers in place of strategy (a replayed log still
	 * comes first). strategy then only says what a saved schedule records.
	 */
	sim_chooser_fn chooser;
	void *chooser_ctx;
	bool footprints;		/* record each step's footprint (sim_step_footprints) */
	/*
	 * Called at every scheduling point, before the machine picks who runs
	 * next, on the running context's stack (the machine's own between
	 * events): invariants and coverage read state here. It must not block
	 * or reach a scheduling point itself; it may report (sim_raise).
	 */
	void (*on_point)(void *arg);
	void *on_point_arg;
	/*
	 * Called each time a context reads what another context wrote last
	 * (sim/readsfrom.c says what counts): coverage of communication. It
	 * must not block or reach a scheduling point; it changes no run. NULL:
	 * nothing is recorded and nothing is paid.
	 */
	void (*on_rf)(void *arg, const struct sim_rf *rf);
	void *on_rf_arg;
	/*
	 * Called while the machine runs with each list entry whose links a
	 * list operation changes (<linux/list.h>: initialised, added, taken
	 * off), before the next scheduling point: what a step touched, for a
	 * reader of objects' state. The same rules as on_rf; NULL: none.
	 */
	void (*on_list)(void *arg, const void *entry);
	void *on_list_arg;
	uint64_t hung_task_ns;		/* 0: no hung-task detector */
	/* kernel.watchdog_thresh: a CPU that does not schedule for twice this is a soft lockup */
	uint64_t watchdog_thresh_ns;	/* 0: no soft-lockup detector */
	uint64_t time_limit_ns;		/* the run stops here; 0: no limit */
	uint64_t max_decisions;		/* the run stops after this many; 0: no limit */
	uint64_t max_steps;		/* ... or after this many scheduling points; 0: no limit */
	/*
	 * How far ahead of the earliest ready CPU's clock a strategy may run
	 * another CPU (see machine.c); SIM_SKEW_UNBOUNDED models a vCPU that
	 * its host may preempt for any time.
	 */
	uint64_t skew_ns;
	/*
	 * The longest a CPU may be held up at one point (a stall, stall.c):
	 * a strategy is asked SIM_WHY_STALL where an interrupt could come.
	 * 0: never asked, no stall, the log has no such question.
	 */
	uint64_t stall_ns;
	size_t stack_size;		/* per simulated context */
	/*
	 * Tasks a run may make (threads and kthreads, each with its own
	 * stack); past it, and when the host has no mapping left for a stack,
	 * kthread creation fails with -ENOMEM as the kernel's does when it
	 * cannot allocate a task. 0: only the host's limit.
	 */
	unsigned int max_tasks;
	bool keep_trace;		/* keep records, not just their hash */
	bool drop_decisions;		/* count decisions, keep no log: none is written */
	struct sim_costs costs;
};

/*
 * Fill in the defaults: 2 CPUs, HZ=250, voluntary preemption, faithful,
 * 120 s hung task, 10 s watchdog_thresh, 20 us skew, 6.12's services, no
 * debug objects.
 */
void sim_config_default(struct sim_config *cfg);

/* Set up a fresh machine. Returns 0, or -EINVAL with a message in sim_error(). */
int sim_init(const struct sim_config *cfg);
/*
 * Make the machine fresh for the next run, as sim_fini() then sim_init()
 * would, but keep what costs system calls to make again: coroutine stacks
 * with their guard pages, the allocator's mappings, the buffers' capacity,
 * the fault handler. A run after a reset gives the same output as a run in
 * a new process. On a machine not set up (or torn down), this is sim_init().
 * On a bad cfg the machine is left as it was.
 */
int sim_reset(const struct sim_config *cfg);
/* Tear the machine down and give back all it holds; nothing on a machine not set up. */
void sim_fini(void);
const char *sim_error(void);

enum sim_end {
	SIM_END_QUIESCENT,	/* nothing runnable and nothing pending */
	SIM_END_DEADLOCK,	/* nothing can run, nothing pending, something blocked */
	SIM_END_FATAL,		/* a finding that stops the machine (stack overflow, BUG, bad access) */
	SIM_END_TIME_LIMIT,
	SIM_END_DECISION_LIMIT,
	SIM_END_STEP_LIMIT,	/* max_steps: a livelock or a run far longer than meant */
	SIM_END_DIVERGED,	/* a replayed log no longer fits */
};
const char *sim_end_name(enum sim_end end);

/* Run until the machine ends. May be called once per sim_init or sim_reset. */
enum sim_end sim_run(void);
/* End the run at the next scheduling point with this reason (from any context). */
void sim_halt(enum sim_end end);

/* --- populating the machine -------------------------------------------- */

struct task_struct;

/*
 * A scenario thread: a kernel task running fn(arg) that starts at time
 * 'at' on 'cpu' (bound to it when bind is set); NULL when the run has
 * made max_tasks tasks, or the host has no stack left.
 */
struct task_struct *sim_spawn(const char *name, int (*fn)(void *), void *arg,
			      int cpu, bool bind, uint64_t at);

/* A hard interrupt: handler(arg) runs in hardirq context on cpu at time 'at'. */
void sim_irq_at(uint64_t at, int cpu, const char *name, void (*handler)(void *), void *arg);

/* A plain event on the machine's own stack: fn must not block. */
void sim_event_at(uint64_t at, void (*fn)(void *), void *arg);

/*
 * A suspend to RAM that starts at boot-clock time 'at', and a wake-up at
 * 'at' (sim/freezer.c): the machine sleeps from when its suspend has frozen
 * everything until the first wake-up not yet taken.
 */
void sim_suspend_at(uint64_t at);
void sim_resume_at(uint64_t at);
/* Whether tasks are frozen for a suspend: from the freeze until the thaw. */
bool sim_suspended(void);
/* How many times the machine has slept (sim_slept_ns(): for how long in all). */
unsigned int sim_sleeps(void);

/*
 * CPU hotplug (sim/hotplug.c), from a task: remove_cpu() and add_cpu() of
 * kernel/cpu.c with their answers: 0 done, 1 already so (device_offline(),
 * device_online()), -EPERM for the boot CPU (its device is not hotpluggable),
 * -EINVAL for a CPU the machine does not have, -EBUSY while a suspend has
 * the hotplug disabled. They sleep until the CPU is down or up.
 */
int sim_cpu_down(int cpu);
int sim_cpu_up(int cpu);
/* The same from a task of their own that starts at boot-clock time 'at'. */
void sim_cpu_down_at(int cpu, uint64_t at);
void sim_cpu_up_at(int cpu, uint64_t at);
/* Whether the CPU exists and is online. */
bool sim_cpu_online(int cpu);
/* The CPUs the machine was given (nr_cpu_ids), online or not. */
int sim_possible_cpus(void);

/* --- time ---------------------------------------------------------------- */

uint64_t sim_now(void);			/* local clock of the running CPU */
/*
 * The boot clock (CLOCK_BOOTTIME): sim_now() plus the time spent suspended.
 * The machine's clock, jiffies and the trace stand still while it sleeps;
 * scenario times (thread starts, irqs, suspend, resume) are boot-clock times.
 */
uint64_t sim_boot_now(void);
uint64_t sim_slept_ns(void);
uint64_t sim_max_time(void);		/* the latest local clock: how far the run got */
/* Sleep (uninterruptibly) until the virtual time t, exactly; from a task. */
void sim_sleep_until(uint64_t t);
void sim_sleep_until_boot(uint64_t t);	/* ... until the boot clock reads t */
unsigned long sim_ns_to_jiffies(uint64_t ns);
uint64_t sim_jiffies_to_ns(unsigned long j);	/* when jiffies first reads j */
int sim_this_cpu(void);
/*
 * Who runs now, for a caller's look at a scheduling point (on_point): the
 * context's name ("hardirq", "softirq" or its task's comm) and the work
 * function it executes (NULL: none); NULL on the machine's own stack.
 */
const char *sim_running(const char **work_fn);
/*
 * Who runs now, as an identity only (NULL: the machine's own): the same
 * pointer for the whole life of a task, an interrupt or a softirq run, at
 * its every step and scheduling point, so that a caller can tell which of
 * its records belong to the context at hand.
 */
const void *sim_running_ctx(void);

/*
 * p is in a simulated stack frame that has returned: what is there now is
 * another frame's, or nothing. CONFIG_DEBUG_LIST's check of a list entry
 * (sim/list_debug.c), for a caller that walks the model's lists from
 * outside the kernel's code (a scenario's invariants, queued(D)): a list a
 * misuse corrupted can lead into such a frame (a flush item), and the
 * walk must stop before it reads there. The same bounds as the check's:
 * exact for a task that has exited, below the part in use for a live one;
 * under ASan also an entry in a redzone of the frame that covers it now.
 */
bool sim_in_dead_frame(const void *p);

/*
 * p can be read as a list entry by such a walk: it lies in a live slab
 * block, in an object the scenario registered, or in a simulated stack
 * outside its dead frames (sim_in_dead_frame()), and is aligned. A list a
 * misuse corrupted can lead anywhere, and the host must not follow it
 * where nothing of the machine's lives: the read would fault the host, or
 * read bytes that differ from build to build.
 */
bool sim_list_entry_readable(const void *p);

/* --- findings -------------------------------------------------------------- */

enum sim_finding_kind {
	SIM_F_WARN, SIM_F_BUG, SIM_F_MIGHT_SLEEP, SIM_F_LOCKDEP, SIM_F_DEADLOCK,
	SIM_F_HUNG, SIM_F_UAF, SIM_F_DOUBLE_FREE, SIM_F_BAD_FREE, SIM_F_LEAK,
	SIM_F_FREEZE_FAILED, SIM_F_STACK_OVERFLOW, SIM_F_ATOMIC_LEAK,
	SIM_F_INVARIANT,	/* a caller's always/never broken (sim_raise) */
	SIM_F_CONTRACT,		/* a caller's check of an API promise broken (sim_raise) */
	SIM_F__COUNT
};

struct sim_site {
	const char *file;
	int line;
	const char *func;
};

struct sim_finding {
	enum sim_finding_kind kind;
	char msg[1024];			/* continuation lines follow a '\n' */
	uint64_t time;
	int cpu;
	char context[24];		/* comm of the task, or "hardirq" / "softirq" */
	struct sim_site site;
	uint64_t decision;		/* index in the decision log when it was raised */
	char note[96];			/* the context's sim_note() then, e.g. a scenario line */
};

/*
 * Say what the running context is doing, in the caller's terms (a scenario
 * file and line, say): findings raised in this context carry the note.
 */
void sim_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The same as sim_note("%s:%d", file, line), but formatted only when a
 * finding or a report reads it: an interpreter notes every statement it
 * runs. file must stay as it is until the run ends.
 */
void sim_note_line(const char *file, int line);

/*
 * A finding the caller raises (an invariant of its own broken): in the
 * running context, at its time, CPU and note, as the machine's are. From
 * on_point or a task; not fatal, the run goes on.
 */
void sim_raise(enum sim_finding_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ... at a site of the caller's (sim_site_at(): a scenario's line), as the finding's source. */
void sim_raise_at(enum sim_finding_kind kind, const struct sim_site *site, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ... with its text written already (no printf: a caller's finding in most explored runs). */
void sim_raise_text(enum sim_finding_kind kind, const struct sim_site *site, const char *text);

const char *sim_finding_kind_name(enum sim_finding_kind kind);
size_t sim_finding_count(void);
const struct sim_finding *sim_finding(size_t i);
size_t sim_finding_count_kind(enum sim_finding_kind kind);

/* --- decisions ---------------------------------------------------------- */

/*
 * What a choice is about: which CPU advances, whether an interrupt waits a
 * step, where a woken task is placed, whether it preempts the task running
 * there (wakeup_preempt), which spinner takes an unfair spinlock; and time
 * where the real world leaves it open: whether, and for how long, a CPU is
 * held up (a stall), and which value of a scenario's time range is taken.
 * New kinds go at the end: a saved schedule names them by these letters.
 */
enum sim_why {
	SIM_WHY_CPU, SIM_WHY_IRQ, SIM_WHY_PLACE, SIM_WHY_WAKE, SIM_WHY_SPIN,
	SIM_WHY_STALL,		/* 'h': a CPU held up; answer 0: not held */
	SIM_WHY_RANGE,		/* 'r': a value of a time range; answer 0: its lower bound */
	SIM_WHY__COUNT
};
#define SIM_WHY_LETTERS "cipwshr"
/* The kind's name in messages ("cpu", "irq", ... "stall", "range"). */
const char *sim_why_name(unsigned int why);

struct sim_decision {
	uint16_t n;		/* how many candidates there were */
	uint16_t pick;
	uint8_t why;
};

/* struct sim_question's until[i] for a stall that waits for no CPU (stall.c). */
#define SIM_STALL_EVENT	(-1)	/* just past the next pending event: a timer, an irq, a start */
#define SIM_STALL_FIXED	(-2)	/* a rung of the fixed ladder, 10 us, 100 us, ... the bound */

/*
 * A choice as a strategy sees it. Candidate 0 is always the faithful
 * answer. ids[i] says who candidate i is, so a strategy can keep
 * something per contender (a PCT priority): for SIM_WHY_CPU and
 * SIM_WHY_PLACE a CPU number; for SIM_WHY_SPIN the CPU the spinner runs
 * on; for SIM_WHY_IRQ and SIM_WHY_WAKE, two
 * answers (0: the kernel's usual, 1: the other), ids[i] is the CPU it is
 * about, the same for both.
 */
struct sim_question {
	unsigned int n;
	enum sim_why why;
	const int *ids;		/* NULL: candidate i is i */
	size_t index;		/* its place in the run's decision log */
	int cpu;		/* the CPU that last ran (-1 before any) */
	/*
	 * For SIM_WHY_CPU, where candidate i's running context stands (the
	 * innermost of its CPU): the site of the shared access it makes when it
	 * goes on - a spinlock it is about to take, a READ_ONCE / WRITE_ONCE
	 * about to be done, a completion it waits for or completes - or, for
	 * an unlock, has just made (its point follows the release); an
	 * interrupt may still come first (a SIM_WHY_IRQ question follows).
	 * sites[i] is NULL where unknown (any other point); sites itself is
	 * NULL for other questions, and when no chooser is set (the machine's
	 * own strategies do not read it).
	 */
	const struct sim_site *const *sites;
	/*
	 * For SIM_WHY_RANGE, the range [lo, hi] (lo < hi) in the unit its
	 * asker uses (a scenario's nanoseconds, or a call's own unit); candidate
	 * i is the value sim_range_value(lo, hi, n, i): candidate 0 is lo,
	 * candidate n - 1 is hi. 0, 0 for other questions.
	 */
	uint64_t lo, hi;
	/*
	 * For SIM_WHY_STALL (stall.c), q->cpu is the CPU that may be held up
	 * before it goes on, and ids[i] is that CPU for every i. Candidate i
	 * holds it up for durations[i] ns: durations[0] is 0 (not held), the
	 * rest ascend, none is over cfg.stall_ns. until[i] says what candidate
	 * i waits for: a CPU number k (just long enough that CPU k's clock
	 * passes this one's: k may then go first, even beyond the skew
	 * window), SIM_STALL_EVENT (until just after the next pending event),
	 * SIM_STALL_FIXED (a fixed rung); until[0] is q->cpu. With a chooser,
	 * sites[0] is where the held CPU stands and sites[i] where CPU
	 * until[i] stands (NULL for no CPU). NULL for other questions.
	 */
	const uint64_t *durations;
	const int *until;
};

/*
 * What a stall waits for (a question's until[i], a REC_STALL record's b),
 * as every view names it: "cpu1", "event", "fixed"; written into buf.
 */
const char *sim_stall_until_name(int64_t until, char *buf, size_t len);

/*
 * The random strategies' stall policy (the machine's own, and an
 * explorer's random). Uniform over all answers would hold up nearly every
 * point and wreck every run; a fixed small rate finds either the races
 * that want many stalls or those that want none. So each run draws its
 * rate, sim_stall_odds(): it holds up one point in 2, 16, 128 or 1024 (a
 * quarter of runs each), and sim_stall_random() answers one question at
 * that rate, the duration uniform over the candidates. r: 64 random bits.
 */
unsigned int sim_stall_odds(uint64_t r);
unsigned int sim_stall_random(const struct sim_question *q, uint64_t r, unsigned int odds);

/* Every choice the machine makes goes through here. Returns 0 .. n-1. */
unsigned int sim_choose(unsigned int n, enum sim_why why);
/* ... with who the candidates are (struct sim_question's ids; NULL: 0 .. n-1). */
unsigned int sim_choose_among(unsigned int n, enum sim_why why, const int *ids);

/*
 * A value of the range [lo, hi], chosen (SIM_WHY_RANGE). A decision holds
 * at most SIM_RANGE_VALUES candidates, so a range of that many values or
 * fewer offers each of them (msleep(5..20): 16, one per millisecond), and a
 * wider one offers SIM_RANGE_VALUES evenly spaced values, both bounds
 * included: its resolution is (hi - lo) / (SIM_RANGE_VALUES - 1), rounded
 * down (20ms..30ms: about 153 ns). One decision, not a coarse and a fine
 * one: a strategy sees the whole range at once, and a saved schedule
 * writes it as r<pick>/<n>. lo == hi asks nothing (no decision logged).
 * The faithful strategy answers lo, the machine's random one draws the
 * candidates uniformly.
 */
#define SIM_RANGE_VALUES 65535u
uint64_t sim_choose_range(uint64_t lo, uint64_t hi);
/* How many candidates sim_choose_range(lo, hi) offers, and candidate i's value. */
unsigned int sim_range_candidates(uint64_t lo, uint64_t hi);
uint64_t sim_range_value(uint64_t lo, uint64_t hi, unsigned int n, unsigned int i);

size_t sim_decision_count(void);
const struct sim_decision *sim_decisions(void);
/*
 * Follow a log (after sim_init; the machine copies it). With
 * SIM_STRATEGY_REPLAY the log alone decides. With another strategy, the one
 * that made the log, every logged pick must also be that strategy's pick
 * (faithful's, or random's from the configured seed), so a log cannot claim
 * a strategy it does not follow: a pick that differs is a divergence.
 */
void sim_replay_log(const struct sim_decision *log, size_t n);
/* After a diverged replay: where and why. */
const char *sim_divergence(void);
/* ... and where the run was then: time, CPU, context and its note. */
const char *sim_divergence_where(void);

/* --- footprints: which steps commute (sim/footprint.c) ------------------- */

/*
 * What a step of the machine did: a step is a CPU's run from the moment it
 * is picked to its next scheduling point, with what fires before the next
 * pick. Its footprint is the CPU, the CPUs whose state it touched, and the
 * objects it touched (see footprint.c for what is recorded). Objects are
 * keys that name the same object in every run that reaches it the same way
 * (a block's allocation number, a stack slot's task), so a search can
 * compare a step of one run with a step of the next. Recorded only when
 * cfg.footprints is set; other runs pay nothing.
 */
#define SIM_FOOTPRINT_MAX 16
#define SIM_FOOTPRINT_STEPS 8

struct sim_footprint {
	int cpu;			/* who was picked; -1: several steps merged */
	uint64_t cpus;			/* bit i: CPU i's state was touched */
	bool global;			/* touched what every step depends on */
	unsigned int n;
	uint64_t obj[SIM_FOOTPRINT_MAX];
	bool write[SIM_FOOTPRINT_MAX];
};

/*
 * The steps since the last CPU answer, in order, from a chooser's CPU
 * question (or after the run: since its last): the chosen CPU's first,
 * then one for each CPU picked as the only candidate. Past
 * SIM_FOOTPRINT_STEPS the last holds the rest, merged (cpu -1).
 */
const struct sim_footprint *sim_step_footprints(size_t *n);
/* Whether two steps may not commute: a CPU in common, global, or a write to a common object. */
bool sim_footprints_conflict(const struct sim_footprint *a, const struct sim_footprint *b);
/* A touch of shared state of the caller's own (a scenario's counter) by the running step. */
void sim_footprint_touch(const void *obj, bool write);

/* --- reads-from: communication between contexts (sim/readsfrom.c) ------ */

/*
 * Who ran it, as coverage tells contexts apart: a thread (a kthread_worker's
 * own thread apart, by its thread function kthread_worker_fn), a hard
 * interrupt handler, a softirq (timer callbacks).
 */
enum sim_rf_ctx { SIM_RF_THREAD, SIM_RF_WORKER, SIM_RF_HARDIRQ, SIM_RF_SOFTIRQ, SIM_RF__COUNT };

/* How the value went from one context to the other. */
enum sim_rf_via {
	SIM_RF_LOCK,		/* a spinlock: its last release -> its acquire */
	SIM_RF_ONCE,		/* WRITE_ONCE -> READ_ONCE of the same object */
	SIM_RF_COMPLETION,	/* complete() -> the waiter's return */
	SIM_RF_TIMER,		/* a timer armed -> its callback running */
	SIM_RF_VIA__COUNT
};

/*
 * One reads-from pair: the reader at reader, in a context of kind
 * reader_kind, took what the writer at writer, in another context of kind
 * writer_kind, left last. Sites live as long as the run (a site made by
 * sim_site_at() goes at the next reset): keep hashes, not pointers. The
 * machine hands them over computed: hash is sim_rf_hash() of the pair,
 * writer_hash and reader_hash the sites' sim_site_hash().
 */
struct sim_rf {
	const struct sim_site *writer, *reader;
	enum sim_rf_ctx writer_kind, reader_kind;
	enum sim_rf_via via;
	uint64_t hash, writer_hash, reader_hash;
};

/*
 * A site's and a pair's name as a number: the same in every run, build
 * and compiler (the file's base name, line and function are hashed, never
 * an address). A NULL site hashes as unknown. sim_rf_hash() reads the
 * pair's sites, kinds and via (not its hash fields).
 */
uint64_t sim_site_hash(const struct sim_site *site);
uint64_t sim_rf_hash(const struct sim_rf *rf);
/*
 * sim_site_hash() of a site of the run under way (a question's, a pair's),
 * from a cache: a site compiled in is hashed once per process.
 */
uint64_t sim_site_hash_cached(const struct sim_site *site);
/* The same from its sites' sim_site_hash(), for a caller that keeps them. */
uint64_t sim_rf_hash_of(uint64_t writer, uint64_t reader, const struct sim_rf *rf);
const char *sim_rf_ctx_name(enum sim_rf_ctx kind);
const char *sim_rf_via_name(enum sim_rf_via via);

/* --- the trace ------------------------------------------------------------ */

#include <sim/trace.h>

/* Fake, deterministic addresses for printed pointers. */
uint64_t sim_fake_addr(const void *p);
/* The same, for an object being born now (set up, queued): a fresh number if on a stack. */
uint64_t sim_fake_addr_new(const void *p);
/* Register an object the machine did not allocate, so its address prints stably. */
void sim_register_object(const void *p, size_t size, const char *name);
/*
 * Whether p lies in a block that kfree() gave back in this run, which a
 * touch would report as a use-after-free: a reader from outside the run
 * (an invariant at a scheduling point) checks before it follows a pointer
 * the run may have freed (a destroyed worker).
 */
bool sim_freed(const void *p);
/* A function's printable name, for %ps. */
void sim_register_symbol(const void *fn, const char *name);
const char *sim_symbol(const void *fn);
/*
 * Code linked several times under symbol prefixes (the model's variants)
 * registers each prefix, so findings name functions as the source does.
 */
void sim_register_symbol_prefix(const char *prefix);
const char *sim_unprefix(const char *name);

/* --- statistics, for benchmarks ---------------------------------------- */

struct sim_stats {
	uint64_t switches;	/* coroutine switches */
	uint64_t points;	/* scheduling points passed */
	uint64_t events;	/* events fired from the queue */
	uint64_t tasks;
};
void sim_get_stats(struct sim_stats *st);

#endif
