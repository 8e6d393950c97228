/*
 * The machine's private state, shared by the sim/ modules and nobody else.
 * One machine per process: sim_init() builds it, sim_reset() makes it ready
 * for the next run keeping its pools and capacities, sim_fini() tears it down.
 */
#ifndef SIM_MACHINE_H
#define SIM_MACHINE_H

#include <sim/sim.h>
#include <sim/site.h>
#include <linux/sched.h>
#include <linux/list.h>
#include <sim/lock.h>
#include <linux/lockdep.h>

/* preempt_count layout, as the kernel's <linux/preempt.h> */
#define PREEMPT_BITS		8
#define SOFTIRQ_BITS		8
#define HARDIRQ_BITS		4
#define PREEMPT_SHIFT		0
#define SOFTIRQ_SHIFT		(PREEMPT_SHIFT + PREEMPT_BITS)
#define HARDIRQ_SHIFT		(SOFTIRQ_SHIFT + SOFTIRQ_BITS)


struct sim_irq_req {
	struct list_head node;
	int irq;			/* its number, by name */
	int cpu;
	const char *name;
	void (*handler)(void *);
	void *arg;
};

struct sim_cpu {
	int id;
	uint64_t clock;			/* local virtual time, ns */
	struct task_struct *curr;	/* the running task, or the idle task */
	struct task_struct idle;
	struct sim_ctx *stack[3];	/* task, softirq, hardirq: innermost last */
	int depth;
	unsigned int preempt_count;
	bool irqs_disabled;
	bool need_resched;
	uint64_t slice_start;		/* when curr was switched in */
	uint64_t fair_vtime;		/* time tasks ran here, to the last switch (sched_fair.c) */
	struct {			/* the EEVDF tick's last answer, for its inputs (sched_fair.c) */
		uint64_t deadline, queued, due;
		bool valid;
	} tick_due;
	bool preemptible_point;		/* the top task stopped where it may be preempted */
	bool softirq_pending;
	struct list_head runqueue;
	struct list_head irqs;		/* pending hard interrupts */
	struct sim_ctx hardirq;
	struct sim_ctx softirq;
	struct sim_irq_req *irq_now;	/* the one the hardirq context runs */
	struct list_head timers;	/* armed timers, by expiry then arming order */
	struct sim_event *tick;		/* the pending timer-softirq event */
	const struct timer_list *running_timer;	/* whose callback runs here now */
	uint64_t sched_touch;		/* when it last switched or could be preempted */
	uint64_t lockup_watch;		/* sched_touch + 1 a soft-lockup check is asked for */
	struct sim_event *lockup_ev;	/* the one pending check, or NULL (oracle.c) */
	unsigned long timer_clk;	/* the timer base's clk (timer.c) */
	bool timer_clk_set;		/* ... once the base has been used */
	bool stall_held;		/* held up since it was last entered: not asked again (stall.c) */
	bool offline;			/* taken down (hotplug.c): nothing runs or is placed here */
	bool dying;			/* going down: not active, its stopper is on its way */
	uint64_t dying_at;		/* ... woken then, by the control task (hotplug.c) */
	struct task_struct *hotplug_waiter;	/* the cpu_down() caller waiting for it */
	bool suspend_frozen;		/* taken down by the suspend: up again at its resume */
};

/* A ready CPU, as pick_next() sees it: from when it can go on. */
struct sim_cand {
	struct sim_cpu *cpu;
	uint64_t when;
};

struct sim_event {
	uint64_t time;
	uint64_t seq;
	void (*fn)(void *arg);
	void *arg;
	uint64_t data;		/* a second argument, for callbacks that need one */
	bool watchdog;		/* does not keep the machine alive */
	bool boot;		/* set by the outside world's clock, which runs on through a suspend */
	size_t heap_idx;
};

/*
 * The modules' parts of the machine that a reset keeps (their buffers'
 * capacity); each module's init starts its run over.
 */
struct sim_choice_log {			/* choose.c */
	uint64_t rng[4];		/* xoshiro256** state */
	unsigned int stall_odds;	/* the run's stall rate (sim_stall_odds()), from the seed */
	struct sim_decision *log_buf;
	size_t log_len, log_cap;
	struct sim_decision *replay;	/* the log being followed, if any */
	size_t replay_len;
	char divergence[256];
	char where[192];
};

struct sim_findings {			/* oracle.c */
	struct sim_finding *findings;
	size_t nfindings, capfindings;
	/* sim_site_at()'s sites: open addressing over (file, line, func), lookups only */
	struct sim_site **sites;
	size_t nsites, capsites;
};

struct sim_slab {			/* slab.c */
	struct slab_block *blocks;	/* sorted by ptr, for lookups only */
	size_t nblocks, capblocks;
	uint64_t next_id;
	struct slab_spare *spares;	/* mappings of earlier runs, last kept last */
	size_t nspares, capspares;
	/* the leak scan's arrays, for capscan blocks: a reset keeps them */
	struct slab_block **live;
	bool *ref;
	size_t *queue;
	size_t capscan;
};

struct sim_suspend {			/* freezer.c */
	bool suspended;
	/* system_transition_mutex: held from enter_state() until the suspend ends */
	bool in_transition;
	/* The wake-ups to come (boot-clock times), taken in order by the sleeps. */
	uint64_t *wakeups;
	size_t nwakeups, capwakeups;
	unsigned int nsleeps;
	bool hotplug_disabled;		/* cpu_hotplug_disabled: from the CPUs' freeze to their thaw */
};

/* Open addressing over pointer values: lookups only, never iterated. */
struct trace_unknowns {
	struct trace_unknown *v;
	size_t n, cap;
	uint64_t next_id;
};

struct sim_trace {			/* trace.c */
	struct sim_rec *recs;
	size_t nrecs, caprecs;
	uint64_t hash;
	/*
	 * Strings' hashes by address, direct-mapped: a record's strings are
	 * literals or interned, unchanging until the interned strings are
	 * freed, so a hit is the hash of the same text. Kept across resets
	 * (each run names the same strings again, and hashing them anew was
	 * as much as the rest of the run's strings cost); emptied with the
	 * interned strings.
	 */
	struct { const char *s; uint64_t h; } strhash[256];
	struct trace_interned *strs;
	size_t nstrs, capstrs;		/* open addressing; capstrs is a power of two */
	/*
	 * sim_intern()'s answers by the address asked about, direct-mapped:
	 * a hit whose text is still the interned one's is the table's answer
	 * (callers ask again every run, from the same places). Emptied when
	 * the interned strings are freed.
	 */
	struct { const char *s, *interned; } interned_at[64];
	struct trace_object *objs;	/* sorted by address, for lookups only */
	size_t nobjs, capobjs;
	struct trace_symbol *syms;
	size_t nsyms, capsyms;
	const char *prefixes[8];
	size_t nprefixes;
	/*
	 * Objects numbered by sight: those the kernel's records name, and apart
	 * those only kwsim's own records (trace/events/kwsim.h) name, so that
	 * these leave the kernel's records' addresses as they would be without.
	 */
	struct trace_unknowns unknown, unknown_own;
};

struct sim_rf_table {			/* readsfrom.c: each object's last writer */
	struct rf_last *slots;		/* open addressing over object keys */
	size_t n, cap;
#define SIM_RF_FNS 8
	struct {			/* thread functions seen in the run, and their kinds */
		int (*fn)(void *);
		enum sim_rf_ctx kind;
	} fns[SIM_RF_FNS];
	unsigned int nfns;
#define SIM_RF_SITE_CACHE 256
	uint64_t run;			/* counts runs, from 1: a slot's and a cache entry's life */
	struct {			/* sites' hashes by address, direct-mapped */
		const struct sim_site *site;
		uint64_t run;		/* the run it holds for; 0: for good */
		uint64_t hash;
	} cache[SIM_RF_SITE_CACHE];
};

/* An address range's owner: a context's stack (ctx) or a task_struct (task). */
struct sim_owner {
	uintptr_t lo, hi;
	struct sim_ctx *ctx;
	struct task_struct *task;
};
struct sim_owner_map {			/* owner.c: host page -> owner records */
	uintptr_t *page;		/* a slot's page; 0: an empty slot */
	uint32_t *rec;			/* a slot's record, in owners */
	size_t *used;			/* the n slots filled: emptying costs what was added */
	size_t n, cap;
	struct sim_owner *owners;
	size_t nowners, capowners;
	uintptr_t span_lo, span_hi;	/* [lowest lo, highest hi) of the records; 0, 0: none */
};
struct sim_owners {			/* owner.c */
	struct sim_owner_map tasks;	/* this run's task_structs */
	struct sim_owner_map stacks;	/* every stack mapped, kept across resets */
	uint32_t *named;		/* the stacks' records this run names a context in */
	size_t nnamed, capnamed;
};

/*
 * task.c: task_structs a reset keeps for the next run's tasks. At 1.6 KiB
 * one is past malloc's per-thread cache, and making and freeing a run's
 * few tasks cost malloc's slow path (and its consolidation) every run.
 */
#define SIM_SPARE_TASKS 64
struct sim_spare_tasks {
	struct task_struct *p[SIM_SPARE_TASKS];
	size_t n;
};

/*
 * event.c: events done with (fired or cancelled), for the next ones, this
 * run's or a later one's: a run makes and fires a few, and each was a
 * calloc() and a free().
 */
#define SIM_SPARE_EVENTS 64
struct sim_spare_events {
	struct sim_event *ev[SIM_SPARE_EVENTS];
	size_t n;
};

/*
 * A kept object (a spare task or event) is poisoned in the sanitizer build
 * until it is taken again, so ASan still reports a stale pointer to it, as
 * it did when each was freed. LeakSanitizer does not look for pointers in
 * poisoned memory: one that holds the only pointer to a block it keeps
 * leaves that pointer out (sim_spare_keep_head(), its first n bytes), or a
 * process that exits without sim_fini() reports the block leaked.
 */
#if defined(KWSIM_ASAN) || defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define sim_spare_keep_head(p, n)	__asan_poison_memory_region(p, n)
#define sim_spare_take(p)	__asan_unpoison_memory_region(p, sizeof(*(p)))
#else
#define sim_spare_keep_head(p, n)	do { } while (0)
#define sim_spare_take(p)	do { } while (0)
#endif
#define sim_spare_keep(p)	sim_spare_keep_head(p, sizeof(*(p)))

struct sim_lockdep {			/* lockdep.c */
	struct sim_lock_class **classes;
	int nclasses, capclasses;
	int nspare;			/* classes[nclasses .. nspare): kept by a reset */
};

struct sim {
	struct sim_config cfg;
	struct sim_ctx *cur;		/* the running context */
	struct sim_cpu *cur_cpu;
	struct coro host;
	bool running;
	bool stop;
	enum sim_end end;

	struct list_head tasks;		/* every task, creation order */
	int next_pid;

	/* events */
	struct sim_event **heap;
	size_t nheap, capheap;
	uint64_t next_seq;
	size_t nlive_events;		/* non-watchdog, not cancelled */

	uint64_t next_timer_seq;
#define SIM_MAX_IRQ_NAMES 64
	const char *irq_names[SIM_MAX_IRQ_NAMES];
	int nirq_names;
	uint64_t ev_data;		/* the firing event's data */
	uint64_t ev_time;		/* the firing event's time */
	bool in_event;			/* an event callback runs: no CPU is current */
	struct sim_cpu *entering;	/* chosen, not yet running: see sim_trace_watermark() */
	uint64_t jiffies_ns;		/* the latest time jiffies was read at (clock.c) */
	uint64_t spin_tickets;		/* spinners so far: the next one's ticket */
	uint64_t slept_ns;		/* time spent suspended: boot clock - machine clock */
	enum sim_finding_kind fault_kind;
	struct completion hotplug_lock;	/* hotplug.c: one hotplug operation at a time */

	/* statistics */
	struct sim_stats stats;
	struct {			/* the steps since the last CPU answer (footprint.c) */
		struct sim_footprint fp[SIM_FOOTPRINT_STEPS];
		size_t n;
	} steps;

	/* kept by sim_reset() (with the heap's array above): from built on */
	bool built;			/* sim_init() done, sim_fini() not yet */
	struct coro_pool stacks;	/* every context's stack comes from here */
	struct sim_choice_log choose;
	struct sim_findings oracle;
	struct sim_slab slab;
	struct sim_suspend suspend;
	struct sim_trace trace;
	struct sim_lockdep lockdep;
	struct sim_rf_table rf;
	struct sim_owners owners;
	struct sim_spare_tasks spare_tasks;
	struct sim_spare_events spare_events;

	/*
	 * Last, so that a reset clears the CPUs the run used and no more: those
	 * from cfg.ncpus up are all zeroes between runs.
	 */
	struct sim_cpu cpus[SIM_MAX_CPUS];
};

extern struct sim sim;

#define for_each_sim_cpu(c) for (c = sim.cpus; c < sim.cpus + sim.cfg.ncpus; c++)

static inline struct sim_cpu *this_cpu(void) { return sim.cur_cpu; }
/* Whether the machine's services are those of kernel major.minor or later. */
static inline bool sim_era_since(unsigned int major, unsigned int minor)
{
	return sim.cfg.era >= SIM_ERA(major, minor);
}
static inline struct sim_ctx *top_ctx(struct sim_cpu *c)
{
	return c->depth ? c->stack[c->depth - 1] : NULL;
}

/* --- sim.c ------------------------------------------------------------------- */

/*
 * The machine's arrays grow by doubling (from 'first' items): p with room for
 * at least one more item than *cap had. Out of memory the machine cannot go
 * on, so it aborts rather than return NULL.
 */
void *sim_grow(void *p, size_t *cap, size_t size, size_t first);

/* --- machine.c: the scheduling loop -------------------------------------- */

/* Give the host back its SIGSEGV and SIGBUS handlers (sim_run() takes them). */
void sim_fault_handler_remove(void);

/* Why a context stops at a scheduling point: decides whether it may be preempted. */
enum sim_point_kind {
	POINT_PLAIN,		/* preemptible under PREEMPT (full) when preempt_count is 0 */
	POINT_MIGHT_SLEEP,	/* also under voluntary preemption */
	POINT_COND_RESCHED,	/* under every model */
	POINT_ATOMIC,		/* never preemptible here */
};

/*
 * c receives something sent at 'sent' (a lock, a wake-up, a completion, an
 * interrupt or tick arriving at its time): its clock becomes at least that.
 */
void sim_handover(struct sim_cpu *c, uint64_t sent);
/* Spend 'cost' ns on this CPU, then let the machine choose who runs next. */
void sim_point(uint64_t cost, enum sim_point_kind kind);
/*
 * Stop the running context for good (its frame or task has ended). Returns
 * only when the machine picked the same interrupt frame to run again.
 */
bool sim_exit_ctx(void);
/* Spin on obj until sim_spin_release(obj); the CPU stays busy. */
void sim_spin_wait(struct sim_spin_obj *obj);
/* The same spin again, after it ended and the condition did not hold: spin_start stays. */
void sim_spin_wait_again(struct sim_spin_obj *obj);
/* End every spin on obj. */
void sim_spin_release(struct sim_spin_obj *obj);
/* At most this many contexts spin at once: a task and its two interrupt frames per CPU. */
#define SIM_MAX_SPINNERS (3 * SIM_MAX_CPUS)
/* The contexts spinning on obj, longest waiter first; returns how many. */
unsigned int sim_spinners(const struct sim_spin_obj *obj, struct sim_ctx **out);
/* End x's spin on obj only: the others go on spinning. */
void sim_spin_release_one(struct sim_spin_obj *obj, struct sim_ctx *x);
/* Busy-wait ns of virtual time; interrupts may arrive meanwhile. */
void sim_busy_wait(uint64_t ns);
/* A task entered a sleep: arm the hung-task check. */
void sim_hung_watch(struct task_struct *p);

/*
 * Each module's fini(keep) ends what a run made; with keep (sim_reset()) it
 * keeps its buffers' capacity and its pools for the next run, which its
 * init then starts as if on a fresh machine.
 */

/* --- task.c ----------------------------------------------------------------- */
void sim_tasks_init(void);
void sim_tasks_fini(bool keep);
/* A new task, or NULL past max_tasks or when the host has no stack for it. */
struct task_struct *sim_task_create(const char *name, int (*fn)(void *), void *arg, int cpu);
/* Put the next runnable task on c, or leave it idle. */
void sim_switch_task(struct sim_cpu *c);
/* try_to_wake_up without the scheduling point: safe from event callbacks. */
bool sim_wake(struct task_struct *p, unsigned int state);
/* Take the running task off its CPU until someone wakes it. */
void sim_block(const char *what, const void *obj, const struct sim_site *site);
/* Preempt the running task of c: to the tail of its run queue, and switch. */
void sim_preempt_task(struct sim_cpu *c);
/* The dying CPU c's tasks, the running one first, go where select_fallback_rq() sends them. */
void sim_push_tasks(struct sim_cpu *c);
const char *sim_ctx_name(const struct sim_ctx *x);
/* p's comm, interned for a trace record: looked up again only when it changed. */
const char *sim_task_comm(struct task_struct *p);
void sim_comm_numbered(char *comm, size_t len, const char *prefix, unsigned int n);
/* Each blocked context, a line each, every line starting with "\n". */
void sim_report_blocked(char *buf, size_t len);
/* The first context sim_report_blocked() lists, or NULL. */
struct sim_ctx *sim_first_blocked(void);
bool sim_anyone_blocked(void);
/* Whether p lies on a simulated stack (a task's, or a CPU's interrupt frames'). */
bool sim_on_stack(const void *p);
/* p on a simulated stack (the whole stack's key) or in a task (by offset): keyed by pid or CPU. */
bool sim_task_key(const void *p, uint64_t *key);

/* --- owner.c: which stack or task an address is in, in constant time ---------- */
void sim_owner_add_stack(struct sim_ctx *x);
void sim_owner_add_task(struct task_struct *p);
/* The stack or task_struct p falls in, or NULL. */
const struct sim_owner *sim_owner_of(const void *p);
/* m's live record (one that names its context or task) covering a, or NULL. */
const struct sim_owner *sim_owner_live(const struct sim_owner_map *m, uintptr_t a);
/*
 * Whether a lies in m's span, outside which it has no record. Inline, as is
 * sim_stack_owner_of(): the list checks ask of every list pointer, most of
 * them on the heap, far from any stack.
 */
static inline bool sim_owner_span_has(const struct sim_owner_map *m, uintptr_t a)
{
	return a - m->span_lo < m->span_hi - m->span_lo;
}
/*
 * The stack p falls in, or NULL: sim_owner_of() for those who want no
 * task. A pooled stack no context of this run took has no owner.
 */
static inline const struct sim_owner *sim_stack_owner_of(const void *p)
{
	const struct sim_owner_map *m = &sim.owners.stacks;

	return sim_owner_span_has(m, (uintptr_t)p) ? sim_owner_live(m, (uintptr_t)p) : NULL;
}
void sim_owners_fini(bool keep);

/* --- event.c ----------------------------------------------------------------- */
struct sim_event *sim_event_add(uint64_t at, void (*fn)(void *), void *arg, bool watchdog);
struct sim_event *sim_event_add_boot(uint64_t at, void (*fn)(void *), void *arg);
void sim_events_slept(uint64_t at, uint64_t slept);
void sim_event_cancel(struct sim_event *ev);
struct sim_event *sim_event_peek(void);
/* The first event after time t that keeps the machine alive (no watchdog's check), or NULL. */
struct sim_event *sim_event_next_after(uint64_t t);
struct sim_event *sim_event_pop(void);
/* Take ev out of the queue without freeing it (its caller runs it, then frees it). */
void sim_event_unlink(struct sim_event *ev);
/* Done with ev, out of the queue: kept for a later event. */
void sim_event_free(struct sim_event *ev);
void sim_events_fini(bool keep);

/* --- cpu.c -------------------------------------------------------------------- */
void sim_cpus_init(void);
void sim_cpus_fini(bool keep);
/* inline: pick_next() asks both of every CPU at every pass */
static inline bool sim_irq_deliverable(const struct sim_cpu *c)
{
	return !list_empty(&c->irqs) && !c->irqs_disabled && !(c->preempt_count & HARDIRQ_MASK);
}

static inline bool sim_softirq_runnable(const struct sim_cpu *c)
{
	return c->softirq_pending && !c->irqs_disabled &&
	       !(c->preempt_count & (HARDIRQ_MASK | SOFTIRQ_MASK));
}

struct sim_ctx *sim_enter_hardirq(struct sim_cpu *c);
struct sim_ctx *sim_enter_softirq(struct sim_cpu *c);
/* preempt_count -= val unless that underflows its field (a warning then): true when done */
bool sim_preempt_count_sub(struct sim_cpu *c, unsigned int val);
/* fixup_irqs(): the interrupts pending on the dying CPU c go to 'to'. */
void sim_irqs_move(struct sim_cpu *c, struct sim_cpu *to);

/* --- stall.c ----------------------------------------------------------------- */
/*
 * pick_next() chose c (cand[k], of the n ready CPUs by when) to go on: ask
 * whether it is held up first. True when it was: its clock has moved, pick again.
 */
bool sim_stall(const struct sim_cand *cand, unsigned int n, unsigned int k);
/*
 * Whether c may be held up at all, which pick_next() asks before it calls
 * sim_stall(): stalls are on, c's interrupts are on (a stall falls where
 * an interrupt could) and c has not been held up since it was last
 * entered (it is asked once per time it is picked). Inline: a third of the
 * picks end here.
 */
static inline bool sim_stall_may(const struct sim_cpu *c)
{
	return sim.cfg.stall_ns && !c->stall_held && !c->irqs_disabled;
}

/* --- timer.c ----------------------------------------------------------------- */
void sim_run_timer_softirq(struct sim_cpu *c);
/* timers_dead_cpu(): the dead CPU's timers move to the running CPU's base. */
void sim_timers_dead_cpu(struct sim_cpu *dead);
/* timers_prepare_cpu(): a CPU coming up starts with a fresh base. */
void sim_timers_prepare_cpu(struct sim_cpu *c);
struct timer_list;
const char *sim_timer_fn_name(const struct timer_list *timer);

/* --- choose.c ---------------------------------------------------------------- */
void sim_choose_init(void);
void sim_choose_fini(bool keep);
uint64_t sim_random(void);
/* sim_choose_among() with where each candidate stands (struct sim_question's sites). */
unsigned int sim_choose_at(unsigned int n, enum sim_why why, const int *ids,
			   const struct sim_site *const *sites);
/*
 * Ask q (its n, why, cpu and what the kind says; index is filled in): the
 * one door, for a question made whole by its asker (a stall's durations, a
 * range's bounds).
 */
unsigned int sim_ask(struct sim_question *q);
/* A replay that ended before its log did: records the divergence. */
bool sim_replay_unfinished(void);

/* --- oracle.c ----------------------------------------------------------------- */
void sim_oracles_init(void);
void sim_oracles_fini(bool keep);
/* The soft-lockup detector: when a CPU that stops scheduling at start is reported. */
uint64_t sim_softlockup_time(uint64_t start, unsigned int *secs);
void sim_softlockup_report(struct sim_cpu *c, unsigned int secs, const char *what);
/* c busy-waits where nothing may preempt it: check it at its soft-lockup time. */
void sim_softlockup_watch(struct sim_cpu *c);
/* After a fatal finding of the running context: the run ends as at BUG(), from its stack. */
void sim_die(void) __attribute__((noreturn));
struct sim_finding *sim_report(enum sim_finding_kind kind, const struct sim_site *site,
			       const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * A finding caused by what a CPU did at 'sent' (sent_cpu): the running CPU's
 * clock moves to at least that first (sim_handover), as a hand-over's does.
 */
struct sim_finding *sim_report_after(uint64_t sent, uint16_t sent_cpu, enum sim_finding_kind kind,
				     const struct sim_site *site, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A finding the machine makes about context x (NULL: about no context), at the latest time. */
struct sim_finding *sim_report_for(struct sim_ctx *x, enum sim_finding_kind kind,
				   const struct sim_site *site, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * The model function context x is in, as far as the machine knows: the
 * site of the lock call it is making, else the work function or timer
 * callback it runs, the interrupt it handles, or its thread function.
 * out->file is NULL when only the function is known, func NULL if nothing.
 */
void sim_ctx_site(const struct sim_ctx *x, struct sim_site *out);
/* x's note (sim_note, sim_note_line), "" for none. */
const char *sim_ctx_note(struct sim_ctx *x);

/* --- lockdep.c ---------------------------------------------------------------- */
void sim_lockdep_init(void);
void sim_lockdep_fini(bool keep);
/* Before spinning: recursion, order and irq-safety checks. */
void sim_lockdep_acquire(struct sim_lock *l, const struct sim_site *site);
void sim_lockdep_acquired(struct sim_lock *l, const struct sim_site *site);
void sim_lockdep_release(struct sim_lock *l, const struct sim_site *site);


/* --- slab.c -------------------------------------------------------------------- */
void sim_slab_init(void);
void sim_slab_fini(bool keep);
void sim_slab_check_leaks(void);
/*
 * A touch of freed memory at addr, by context x in function func (NULL:
 * unknown): writes KASAN's report into msg and returns true; false if addr
 * is no freed block's.
 */
bool sim_slab_fault(const void *addr, const char *func, const struct sim_ctx *x, char *msg,
		    size_t len, uint64_t *freed_at, uint16_t *free_cpu);
bool sim_slab_fake_addr(const void *p, uint64_t *out);

/* --- kasan.c -------------------------------------------------------------------- */
/* The slab's arena: one reservation, so that the access check is one compare. */
#define SIM_ARENA_SIZE	((uintptr_t)4 << 30)
/* The arena starts at lo (slab.c reserves it, once per process). */
void sim_kasan_arena(const void *lo);
/* Granules of the arena holding a freed block (poisoned) or a live one or nothing. */
void sim_kasan_poison(const void *p, size_t len);
void sim_kasan_unpoison(const void *p, size_t len);
bool sim_kasan_poisoned(const void *p);
/*
 * sim_kasan_check(p, n) (<linux/kasan-checks.h>) is for the machine's code
 * that is not instrumented (lockdep.c) too: at its first touch of a block
 * of model memory; its later touches in the same call are covered, since
 * nothing is freed in between.
 */
#include <linux/kasan-checks.h>
/*
 * An instrumented access touched freed memory at addr (machine.c): the
 * finding the fault on a freed page gives, and the run ends there.
 */
void sim_bad_access(const void *addr);

/* --- freezer.c ------------------------------------------------------------------ */
void sim_freezer_init(void);
void sim_freezer_fini(bool keep);
/* The suspend_resume tracepoint: "CPU_OFF[1] begin" and the like. */
void sim_trace_suspend_resume(const char *action, int val, bool start);

/* --- hotplug.c ------------------------------------------------------------------ */
void sim_hotplug_init(void);
/* Whether tasks may be placed on c: online and not going down (cpu_active()). */
static inline bool sim_cpu_active(const struct sim_cpu *c)
{
	return !c->offline && !c->dying;
}
/* The CPU select_fallback_rq() and the irq fix-up pick: the first active one. */
struct sim_cpu *sim_first_active_cpu(void);
/* enter_cpu() found c going down and able to stop (idle, or at a preemptible point). */
bool sim_hotplug_can_stop(struct sim_cpu *c);
/* The stopper's part on the dying CPU c, then the cpu_down() caller is woken. */
void sim_hotplug_take_down(struct sim_cpu *c);
/* suspend_disable_secondary_cpus() / suspend_enable_secondary_cpus(), from the suspend task. */
int sim_freeze_secondary_cpus(void);
void sim_thaw_secondary_cpus(void);

/* --- trace.c -------------------------------------------------------------------- */
void sim_trace_init(void);
void sim_trace_fini(bool keep);
void sim_objects_fini(bool keep);

const char *sim_intern(const char *s);
/*
 * sim_fake_addr() or, fresh, sim_fake_addr_new() for a record of kwsim's own:
 * an object known to no one is numbered apart, from 0xffffc98000000000.
 */
uint64_t sim_fake_addr_own(const void *p, bool fresh);
/* Record on behalf of CPU c (which need not be running). */
void sim_trace_on(struct sim_cpu *c, enum sim_rec_type type, uint64_t a, uint64_t b, uint64_t c2,
		  uint64_t d, const char *s, const char *s2);
const char *sim_object_name(const void *obj);
/* p in an object sim_register_object() was told of: its fake address, with no side effect. */
bool sim_registered_addr(const void *p, uint64_t *out);
/* What a context spins on, by name: a lock's own name, else the object's. */
const char *sim_spin_obj_name(const struct sim_spin_obj *obj);
/* " held by X" for a lock, "" when unknown. */
const char *sim_spin_owner_text(const struct sim_spin_obj *obj);

/* --- footprint.c ---------------------------------------------------------------- */
/* A CPU decision was answered: the steps since are recorded anew. */
void sim_footprint_start(void);
/* CPU c was picked: its step begins. */
void sim_footprint_step(const struct sim_cpu *c);
/* The current step touched CPU c's state (queued a task there, ended its spin). */
void sim_footprint_cpu(const struct sim_cpu *c);
/* The step touched what every step depends on. */
void sim_footprint_global(void);
/* The machine's shared structures, as footprint objects. */
#define SIM_FP_TASKS	((const void *)&sim.tasks)		/* the task list, pids */
#define SIM_FP_EVENTS	((const void *)&sim.heap)		/* the event queue */
#define SIM_FP_TIMERS	((const void *)&sim.next_timer_seq)	/* the timer wheel */
#define SIM_FP_JIFFIES	((const void *)&sim.jiffies_ns)
#define SIM_FP_ALLOC	((const void *)&sim.slab)

/* The key footprints and reads-from name obj by, alike in every run and build. */
uint64_t sim_object_key(const void *obj);

/* --- readsfrom.c ---------------------------------------------------------------- */
void sim_rf_init(void);
void sim_rf_fini(bool keep);
/* The running context wrote obj at site / read it there: callers test cfg.on_rf first. */
void sim_rf_write(const void *obj, const struct sim_site *site);
void sim_rf_read(const void *obj, const struct sim_site *site, enum sim_rf_via via);
/* The running context's function as a site (sim_ctx_site), for calls that take none. */
const struct sim_site *sim_rf_here(void);

/* --- sched_fair.c: the fair class's preemption rules, era by era ------------------ */
/* sysctl_sched_base_slice as scaled for the machine's CPUs. */
uint64_t sim_fair_base_slice(void);
/* p goes on c's run queue at 'now': woken (placed anew) or preempted. */
void sim_fair_enqueue(struct sim_cpu *c, struct task_struct *p, bool woken, uint64_t now);
/* prev, a task, leaves c (at c's clock, before the switch): preempted, or to sleep. */
void sim_fair_put_prev(struct sim_cpu *c, struct task_struct *prev, bool preempted);
/* The usual answer to whether p, woken onto c at 'now', preempts c's task. */
bool sim_fair_wakeup_preempt(const struct sim_cpu *c, const struct task_struct *p, uint64_t now);
/* Whether a scheduler tick by c's clock has rescheduled its running task. */
bool sim_fair_tick_resched(struct sim_cpu *c);

/* --- clock.c -------------------------------------------------------------------- */
unsigned long sim_jiffies(void);

#endif
