/*
 * Scenario files (.kws): the language's syntax tree, the parser and the
 * interpreter that runs a scenario on the machine with one model variant.
 *
 * A scenario is shaped like a litmus test of the kernel memory model:
 *
 *   KW name
 *   (* what it shows *)
 *   { settings; fn bodies; declarations }
 *   P0 @cpu0 { statements }            threads
 *   irq I0 @cpu1 at 3ms { statements } hard interrupts
 *   suspend at 10ms; resume at 2s;     system events
 *   never (condition)                  invariants: always / never, any number,
 *                                      checked at every scheduling point
 *   exists (condition)                 or ~exists / forall
 *   schedule { ... }                   an optional recorded decision log
 */
#ifndef KWSIM_SCN_H
#define KWSIM_SCN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sim/sim.h>
#include <sim/trace.h>

#define SCN_MAX_FILE	(16 << 20)	/* bytes: room for 100,000 declarations and more */
#define SCN_MAX_DEPTH	32		/* nesting of blocks and expressions */
#define SCN_MAX_HEIGHT	256		/* operators on one path of an expression tree */
#define SCN_MAX_OBJS	1000000		/* declarations: workers, works, counters, ... */
/*
 * Work functions and timer callbacks. The trace names a work's function (a
 * timer's callback) by its address, as the kernel's %ps does, so each fn
 * needs a C function of its own: a trampoline compiled into kwsim
 * (scn_run.c), of which there are this many of each type. Works and timers
 * share fns freely; only distinct fns count.
 */
#define SCN_MAX_FNS	512
/*
 * Times. The machine's clock counts nanoseconds in 64 bits and a duration is
 * added to it, so every time a scenario gives ('at 5ms', udelay, ndelay,
 * mdelay, msleep) is 0 to SCN_MAX_TIME_NS once in nanoseconds (about 292
 * years), and fits its kernel parameter's type (msleep's is unsigned int).
 * Delays in jiffies (kthread_queue_delayed_work, kthread_mod_delayed_work)
 * are 0 to SCN_MAX_JIFFIES, the kernel's MAX_JIFFY_OFFSET, its longest
 * timeout: a timer beyond the wheel's reach (about 12 days at HZ=1000) fires
 * at that reach, in the machine as in the kernel. Constants are checked as
 * the file is parsed, computed values when the call is made.
 *
 * Any of those times may be a range instead ('at 20ms..30ms',
 * udelay(100..1000)): each run takes a value of it, a decision
 * (SIM_WHY_RANGE; sim.h says how a range maps onto one), the lower bound
 * in the faithful run. A start's value is decided as the init block
 * starts the programs, in their order in the file; a statement's as it
 * runs. A delay in jiffies is the API's argument, never a range.
 */
#define SCN_MAX_TIME_NS	INT64_MAX
#define SCN_MAX_JIFFIES	((INT64_MAX >> 1) - 1)
/*
 * Default bound on a run's work (scheduling points, and rounds of repeat and
 * while): a scenario that loops forever stops in seconds, not hours. The
 * setting max_steps changes it; 0 lifts it.
 */
#define SCN_MAX_STEPS	100000000

struct scn_loc {
	int line, col;
};

/* --- objects: everything a scenario names ------------------------------------ */

enum scn_obj_kind {
	OBJ_WORKER, OBJ_WORK, OBJ_DWORK, OBJ_LOCK, OBJ_COMPLETION, OBJ_COUNTER, OBJ_FN,
	OBJ_TIMER,		/* timer T = fn; a struct timer_list, fn its callback */
	OBJ_PROGRAM,
};

/*
 * What a fn is called as. A work's function and a timer's callback have
 * different types in the kernel (struct kthread_work * and struct
 * timer_list *): one fn is one or the other, never both.
 */
enum scn_fn_use { FN_UNUSED, FN_WORK, FN_TIMER };

struct scn_expr;
struct scn_stmt;

struct scn_obj {
	enum scn_obj_kind kind;
	char name[64];
	struct scn_loc loc;
	int index;			/* among objects of its kind */
	int id;				/* in scn->objs: its run state's place */
	/* declarations */
	struct scn_expr *init;		/* worker W = kthread_create_worker(...); */
	struct scn_obj *fn;		/* work A = fn; timer T = fn; */
	enum scn_fn_use use;		/* fns: a work's function or a timer's callback */
	struct scn_loc use_loc;		/* fns: where first used so */
	struct scn_stmt *body;		/* fn bodies */
	size_t body_at;			/* where the body starts, parsed after the init block */
	struct scn_loc body_loc;
	long value;			/* counter initial value */
	size_t start, end;		/* declarations: the source's bytes [start, end) */
};

/* --- expressions and statements -------------------------------------------------- */

enum scn_expr_kind {
	EX_INT, EX_BOOL, EX_STR, EX_OBJ, EX_REG, EX_TASK_OF,	/* W->task */
	EX_CALL, EX_UNARY, EX_BINARY,
	/* condition atoms */
	EX_FINDING,		/* warn("fn"), deadlock, hung, ... : count */
	EX_RAN,			/* ran(A): executions of a work's function */
	EX_BEFORE,		/* before(A, B) */
	EX_STATE,		/* pending(D), ..., task_state(T) == S: the model's state */
	EX_RANGE,		/* udelay(100..1000): lhs..rhs, two EX_INT, lhs <= rhs */
};

/*
 * The model's state an EX_STATE reads (its value field): of a work
 * (obj: a work or delayed_work), of a worker (obj), or of a task (W->task:
 * obj is the worker; a thread P0: obj NULL, prog its index).
 */
enum scn_pred {
	PRED_PENDING,		/* pending(D): work_pending() */
	PRED_QUEUED,		/* queued(D): on its worker's work_list */
	PRED_DELAYED,		/* delayed(D): on its worker's delayed_work_list */
	PRED_RUNNING,		/* running(D): its worker's current_work */
	PRED_CANCELING,		/* canceling(D): work->canceling, a count */
	PRED_TIMER_PENDING,	/* timer_pending(D), D a delayed_work */
	PRED_CURRENT_WORK,	/* current_work(W) == A (obj2), or == none (obj2 NULL) */
	PRED_TASK_STATE,	/* task_state(T) == TASK_...: the state in reg */
	PRED_TASK_CURR,		/* task_curr(T): on its CPU now */
	/*
	 * Events (scn_contract.h): true at the first scheduling point after
	 * they happen, in always/never only.
	 */
	PRED_INSERTED,		/* inserted(D): linked onto its worker's work_list */
	PRED_ARMED,		/* armed(D): onto the delayed list, or its timer armed */
	PRED_STARTED,		/* started(D): its function began executing */
	PRED_FINISHED,		/* finished(D): ... returned */
	PRED_DURING,		/* during(FN, X): a call FN naming X is in progress (api) */
	PRED_RETURNED,		/* returned(FN, X): such a call returned */
};

/* A task's state as task_state(T) names it: one of these at any time, or none. */
enum scn_task_state {
	TS_RUNNING,		/* TASK_RUNNING: on a CPU or runnable */
	TS_INTERRUPTIBLE,	/* TASK_INTERRUPTIBLE: asleep, a signal would wake it */
	TS_UNINTERRUPTIBLE,	/* TASK_UNINTERRUPTIBLE: blocked (a new kthread too) */
	TS_FROZEN,		/* in the refrigerator (4.9's PF_FROZEN, 6.1's TASK_FROZEN) */
	TS_DEAD,		/* TASK_DEAD: it has exited */
	TS__COUNT
};
const char *scn_task_state_name(enum scn_task_state st);
const char *scn_pred_name(enum scn_pred pred);

struct scn_api;
struct scn_chunk;

/* What an expression's value is: checked as the parser builds each node. */
enum scn_type {
	TY_NONE,		/* no value: objects, strings, W->task, kthread_worker_fn */
	TY_INT,			/* numbers, counters, counts of findings, ran() */
	TY_BOOL,		/* true, false, comparisons, the API's bool results */
	TY_NUM,			/* a register: whatever was assigned, number or truth */
};

enum scn_op {
	OP_NOT, OP_NEG, OP_ADD, OP_SUB, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR,
};

/* The value of a unary (rhs unused) or binary operation. */
long scn_apply(enum scn_op op, long lhs, long rhs);

struct scn_expr {
	enum scn_expr_kind kind;
	struct scn_loc loc;
	long value;			/* EX_INT, EX_BOOL; EX_FINDING: kind */
	char *str;			/* EX_STR; EX_FINDING: function filter or NULL */
	struct scn_obj *obj;		/* EX_OBJ, EX_TASK_OF, EX_RAN */
	struct scn_obj *obj2;		/* EX_BEFORE */
	int prog, reg;			/* EX_REG; EX_STATE: a thread, a task state */
	int slot;			/* EX_STATE in the final condition: run->state[slot] */
	const struct scn_api *api;	/* EX_CALL */
	struct scn_expr *args[4];
	int nargs;
	enum scn_op op;			/* EX_UNARY, EX_BINARY */
	struct scn_expr *lhs, *rhs;
	int height;			/* 0 for a leaf; bounded by SCN_MAX_HEIGHT */
	enum scn_type type;
};

enum scn_stmt_kind {
	ST_EXPR, ST_SET_REG, ST_SET_COUNTER, ST_ADD_COUNTER, ST_IF, ST_REPEAT, ST_WHILE,
	ST_AT, ST_LOG, ST_BLOCK,
};

struct scn_stmt {
	enum scn_stmt_kind kind;
	struct scn_loc loc;
	struct scn_expr *e;
	struct scn_obj *obj;		/* ST_SET_COUNTER, ST_ADD_COUNTER */
	int reg;			/* ST_SET_REG */
	uint64_t ns, ns_hi;		/* ST_AT: a time, or the range ns..ns_hi */
	char *str;			/* ST_LOG */
	struct scn_stmt *body, *orelse;	/* ST_IF, ST_REPEAT, ST_WHILE, ST_BLOCK */
	struct scn_stmt *next;
	size_t start, end;		/* the source's bytes [start, end); 0, 0: a part of a declaration */
};

/* --- programs: threads, interrupts, system events ---------------------------------- */

enum scn_prog_kind { PROG_THREAD, PROG_IRQ, PROG_SUSPEND, PROG_RESUME, PROG_CPU_DOWN, PROG_CPU_UP };

#define SCN_MAX_REGS 16

struct scn_prog {
	enum scn_prog_kind kind;
	char name[16];			/* P0, I0, ... */
	int id;				/* in scn->progs: its run state's place */
	struct scn_loc loc;
	int cpu;			/* -1: any (threads only) */
	uint64_t at, at_hi;		/* start time, ns: at, or a value of the range at..at_hi */
	struct scn_stmt *body;
	char regnames[SCN_MAX_REGS][16];
	int nregs;
	size_t start, end;		/* the source's bytes [start, end) */
};

/* --- the scenario --------------------------------------------------------------------- */

/* A setting the init block gives ("cost.lock"), and where: kwsim export --module checks them. */
struct scn_given {
	char name[32];
	struct scn_loc loc;
};

enum scn_quant { Q_NONE, Q_EXISTS, Q_NOT_EXISTS, Q_FORALL };

/*
 * always (C) / never (C): C must hold / must not hold at every scheduling
 * point of the run; the first point where it does not is a finding
 * (SIM_F_INVARIANT), once per invariant per run.
 */
struct scn_invariant {
	bool never;
	struct scn_expr *cond;
	char *text;			/* the clause as written: "never (...)" */
	struct scn_loc loc;
};

/*
 * The parse. Its caller may change it (scn_set(), cfg, replay) before the
 * first run; from then on it is only read: what a run writes is in its
 * struct scn_run, so one parse serves any number of runs.
 */
struct scn {
	char *path;
	char *text;			/* the source, as read */
	size_t text_len;
	size_t schedule_at;		/* offset of the schedule section, or text_len */
	char name[128];
	char *comment;

	struct sim_config cfg;
	char kernel[128];		/* v4.9, mainline, tree:LABEL or tree:DIR */
	/*
	 * The era setting, SIM_ERA(major, minor): the machine's services are
	 * those of that release whatever the variant's own; 0, as unless set,
	 * the variant's (struct kw_model's era).
	 */
	unsigned int era;
	struct scn_given *given;	/* the init block's settings, as written, in order */
	int ngiven;
	/* the init block, the schedule or --set said stall: explore and fuzz keep it */
	bool stall_set;

	struct scn_obj **objs;
	int nobjs;
	struct scn_obj **fns;		/* the OBJ_FN objects, by their index */
	int nfns;
	struct scn_stmt *setup;		/* declarations that run, in order */
	struct scn_prog **progs;
	int nprogs;

	enum scn_quant quant;
	struct scn_expr *cond;
	char *cond_text;
	int nstate;			/* EX_STATE nodes of cond: a run keeps their values */

	struct scn_invariant *invariants;
	int ninvariants;

	bool has_schedule;
	bool log_strategy;		/* the schedule names the strategy that made its log */
	bool replay;			/* kwsim replay: the run follows the log (set by the caller) */
	struct sim_decision *log;
	size_t nlog;

	struct scn_chunk *arena;	/* every node above lives here */
};

/*
 * The stall bound kwsim explore and kwsim fuzz give a scenario that names
 * none (docs/explore.md "Stalls: time as a decision" says why 10 ms); kwsim run's
 * is 0, the faithful machine. scn_stall_default() gives it to s.
 */
#define SCN_STALL_DEFAULT_NS 10000000ULL
void scn_stall_default(struct scn *s);

/* Parse a file. On error prints "file:line:col: error: ..." to err and returns NULL. */
struct scn *scn_load(const char *path, FILE *err);
struct scn *scn_parse(const char *path, const char *text, size_t len, FILE *err);
void scn_free(struct scn *s);

/*
 * The path a page handed to others shows for a scenario file (kwsim export):
 * relative to the current directory when the file is under it, else the
 * file's name, so that no page names the author's directories. Returns a
 * string to free.
 */
char *scn_shown_path(const char *path);

/*
 * Settings given on the command line, each NAME=VALUE with the init block's
 * names and values ("cpus=4", "kernel=v4.9", "cost.lock=20ns"), and how the
 * user wrote it, for messages ("--set cpus=4", "--seed 7").
 */
struct scn_set {
	const char *arg;
	const char *said;
};

/*
 * Apply them to s, over the file's settings and its schedule's, with the
 * same rule as in a file: a seed means the random strategy unless one is
 * named, and a seed with another strategy is refused. With s NULL they are
 * only checked. Returns 0, or 2 with "kwsim CMD: SAID: why" on err.
 */
int scn_set(struct scn *s, const char *cmd, const struct scn_set *sets, size_t n, FILE *err);

/*
 * A time written as a scenario writes one ("5ms", "100us", "0"): digits,
 * then ns, us, ms or s (0 needs none). Returns 0 with *ns set, or -1.
 */
int scn_parse_time(const char *text, uint64_t *ns);

/*
 * The kernel variants this kwsim was built with, for an error that refuses
 * another: "v4.9, mainline, tree:6.1, tree:6.12", or with no tree variant a
 * hint saying how to get them (the kernel sources, then a build).
 */
const char *scn_kernels_built(void);

/* Whether the scenario has always/never clauses, which scn_run() checks at every point. */
bool scn_has_invariants(const struct scn *s);

struct scn_run;

/*
 * Setting i of a run as the init block writes it ("kernel = v4.9;"), in
 * buf: "" for a seed that the run's strategy does not use, and for the
 * strategy of a run whose chooser was the caller's (its log replays on its
 * own); NULL past the last setting. A saved schedule holds them all.
 */
const char *scn_setting_text(const struct scn_run *run, size_t i, char *buf, size_t len);
/* The settings' words for a preemption model, a strategy ("replay" for a replay) */
const char *scn_preempt_name(enum sim_preempt p);
const char *scn_strategy_name(enum sim_strategy st);
/* A condition's quantifier as written: "exists", "~exists", "forall" ("" for none) */
const char *scn_quant_name(enum scn_quant q);

/* --- running ------------------------------------------------------------------------------ */

struct kw_model;

/*
 * What a line of the account is, as run --json names it ("event"), and
 * which of its parts it has (struct scn_event).
 */
enum scn_ev_kind {
	SCN_EV_CALL,		/* call(args), = result when it has one */
	SCN_EV_BEGINS,		/* call(args) begins: a call that may block */
	SCN_EV_RETURNS,		/* call(args) returns, or = result */
	SCN_EV_FAILED,		/* call(...) failed: result the error, text why */
	SCN_EV_ASSIGN,		/* obj = call(...) */
	SCN_EV_RANGE,		/* call's time args[0] of the range text ("lo..hi") */
	SCN_EV_WORK,		/* work obj runs the fn call */
	SCN_EV_TIMER,		/* timer obj runs the fn call */
	SCN_EV_START,		/* program obj starts (at text) */
	SCN_EV_END,		/* program obj ends */
	SCN_EV_IRQ,		/* interrupt program obj runs (at text) */
	SCN_EV_POWER,		/* suspend or resume program obj at text */
	SCN_EV_AT,		/* at text */
	SCN_EV_LOG,		/* log(text) */
	SCN_EV_MACHINE,		/* the machine's step call (timer_fires, stall, freezer, suspend) */
};

#define SCN_EV_MAX_ARGS	4

/* One line of the readable account of a run: what it says, and the same in parts. */
struct scn_event {
	uint64_t time;
	int cpu;
	int pid;			/* the task, 0 in an interrupt's context */
	int line;			/* on_line: the scenario line started; else 0 */
	char who[24];
	char what[200];			/* the line as the text account prints it */
	uint8_t kind;			/* enum scn_ev_kind */
	uint8_t nargs;
	char call[72];
	char args[SCN_EV_MAX_ARGS][72];
	char result[24];		/* "" when none */
	char obj[72];
	char text[200];
	long long num[2];		/* the machine's numbers: a stall's ns and line, ... */
};

/* The "event" run --json gives a kind. */
const char *scn_ev_kind_name(enum scn_ev_kind kind);

/*
 * A run's state of an object and of a program: the parse stays as it was
 * read, so one parse serves any number of runs.
 */
struct scn_run_obj {
	void *ptr;			/* the kernel object, during the run */
	long count;			/* counters: value; fns: executions */
	uint64_t first_start;		/* fns: when the first execution began (0: never) */
	struct task_struct *task;	/* workers: the thread made for it (W->task) */
};

struct scn_run_prog {
	long regs[SCN_MAX_REGS];
	bool regset[SCN_MAX_REGS];
	struct task_struct *task;	/* threads: once the init block has started it */
	uint64_t at;			/* its start time in this run: a value of a range */
	char said[96];			/* and the account's words for it, "" for no range */
};

struct scn_work_ref;

struct scn_run {
	/*
	 * Set by the caller before scn_run() (which keeps them): each line of
	 * the account as it happens, in the machine's order, not time order.
	 */
	void (*on_event)(void *arg, const struct scn_event *ev);
	void *event_arg;
	/* Also the caller's, or NULL: each scenario line a context starts (what ""). */
	void (*on_line)(void *arg, const struct scn_event *ev);
	/*
	 * Also the caller's, or NULL: each simple statement (a call, an
	 * assignment, `at`, `log`; not if/repeat/while/a block) as it begins
	 * (end false) and as it ends (end true), in the machine's order, with
	 * the task it runs in (0 in an interrupt's context): kwsim export
	 * --module --steer reads the orderings of a run's steps from it.
	 */
	void (*on_step)(void *arg, const struct scn_stmt *st, bool end, int pid);
	/*
	 * Also set by the caller, or NULL for s->cfg: the machine's
	 * configuration for this run, so that runs of one parse differ (a
	 * campaign's seeds) without writing to it. A scenario with invariants
	 * puts its own on_point in the run's cfg, which checks them and then
	 * calls config's on_point (with its arg), if any, at every point.
	 */
	const struct sim_config *config;
	struct sim_config cfg;		/* the run's: config or s->cfg, of the variant's era */
	const struct kw_model *model;
	/*
	 * The result, a value: it outlives the machine's next reset, so output
	 * and explorers read it here, never from the machine.
	 */
	enum sim_end end;
	uint64_t end_time;
	bool cond_holds;
	size_t nevents;			/* lines of the account */
	uint64_t hash;
	size_t ndecisions;
	struct sim_finding *findings;	/* what the machine reported, in order */
	size_t nfindings;
	struct sim_decision *log;	/* the decisions, unless cfg.drop_decisions */
	size_t nlog;
	char divergence[512];		/* after SIM_END_DIVERGED: why, and where */
	size_t findings_cap, log_cap;	/* kept by a run struct used again */
	/*
	 * What the run left, by object and program id: scn_run_free() frees it.
	 * A run struct used again keeps these buffers (and works below), each
	 * its own allocation of the length it was last given.
	 */
	struct {
		size_t objs, progs, state, broken, works;
	} cap;
	const struct scn *scn;
	struct scn_run_obj *objs;
	struct scn_run_prog *progs;
	long *state;			/* EX_STATE values at the run's end, by slot */
	bool *broken;			/* by invariant: reported in this run */
	/* the interpreter's, during scn_run() */
	FILE *err;
	bool failed;
	uint64_t rounds;		/* of repeat and while loops */
	void (*chain)(void *arg);	/* config's on_point, after the invariants' */
	void *chain_arg;
	struct scn_work_ref *works;	/* the scenario's works by address */
	size_t nworks;
	struct scn_contract *contract;	/* the contract oracles' monitor (scn_contract.h) */
	struct scn_contract *contract_kept;	/* ... after the run, for the next one */
};

/*
 * Run the scenario once on the machine configured in s->cfg, or
 * run->config (s is only read). The result is in run, a value; the machine
 * is left as the run ended (for its trace records, its stats), reset by the
 * next run or torn down by sim_fini(). A run struct may be used again
 * (its buffers are kept); scn_run_free(run) when done. One machine, one run
 * at a time: the machine is the process's. Returns 0, or -1 with a message
 * on err.
 */
int scn_run(const struct scn *s, const struct kw_model *model, struct scn_run *run, FILE *err);
void scn_run_free(struct scn_run *run);

/*
 * Evaluate an expression of a condition after the run (conditions,
 * register values; the model's state as the run ended), or during it, as
 * the run is now (at a scheduling point: invariants).
 */
long scn_eval_final(const struct scn_run *run, const struct scn_expr *e);
long scn_eval_now(const struct scn_run *run, const struct scn_expr *e);

/* --- output --------------------------------------------------------------------------------- */

/*
 * What ran, as it runs: _begin() prints the summary's head (or opens the
 * JSON object and its events array), _event() and _record() take the
 * interpreter's lines and the machine's records in the machine's order,
 * _release() prints what the watermark (sim_trace_watermark()) has passed,
 * in (time, CPU) order, and _end() the rest. Then scn_print_summary()
 * prints the summary's tail, or scn_print_json() closes the JSON object.
 */
struct scn_timeline;
struct scn_timeline *scn_timeline_begin(FILE *out, const struct scn *s,
					const struct kw_model *m, bool json);
void scn_timeline_event(struct scn_timeline *t, const struct scn_event *ev);
void scn_timeline_record(struct scn_timeline *t, const struct sim_rec *r);
void scn_timeline_release(struct scn_timeline *t, uint64_t watermark);
size_t scn_timeline_held(const struct scn_timeline *t);
void scn_timeline_end(struct scn_timeline *t);

/*
 * The kthread_worker state of the run's works and workers now, as the
 * conditions' predicates read it (pending, queued, delayed, running,
 * canceling, timer_pending, current_work): plain reads, no scheduling
 * point, so any caller during the run (a trace sink, on_point) may look
 * without changing it. One entry per work, delayed work and worker that
 * exists, in declaration order, at most max; returns how many.
 */
struct scn_obj_state {
	const struct scn_obj *obj;
	bool pending, queued, delayed, running, timer;	/* works; timer: delayed works */
	int canceling;
	const struct scn_obj *cur_work;	/* workers: the work it runs now, or NULL */
};
size_t scn_state_objs(const struct scn_run *run, struct scn_obj_state *out, size_t max);

/*
 * A state as the result block's States line lists it: the atoms of e (the
 * condition, an invariant), each once ("0:r0=1; done=0; deadlock=1; "),
 * as the run ended or now (live, during it), in buf as snprintf writes;
 * returns the length it needs. Raw text: print it with scn_put_text().
 */
size_t scn_state_text(const struct scn_run *run, const struct scn_expr *e, bool live, char *buf,
		      size_t len);

/*
 * The name an atom of a condition has in a state ("0:r0" as "P0:r0",
 * "ran(f)", "pending(D)", "warn(fn)") to out; false (nothing written) when e
 * is no atom (numbers, operators). scn_state_text() lists each as
 * "NAME=VALUE; ", and kwsim export --module prints them the same way.
 */
bool scn_atom_name(const struct scn *s, const struct scn_expr *e, FILE *out);

void scn_print_summary(FILE *out, const struct scn *s, const struct scn_run *run);
/*
 * The values a condition looks at, "name=value; " each once, as the result
 * block's state: after the run, or now (live, during it).
 */
void scn_print_state(FILE *out, const struct scn_run *run, const struct scn_expr *e, bool live);
void scn_print_result(FILE *out, const struct scn *s, const struct scn_run *run);
/*
 * --json (tools/schema/kwsim-run.schema.json) ends what scn_timeline_begin()
 * began with json. Its first field, "kwsim_run", is the document's version:
 * 2 gave events in parts (event, call, args, result ...) instead of a line
 * of prose.
 */
#define SCN_JSON_VERSION 2
void scn_print_json(FILE *out, const struct scn *s, const struct scn_run *run);
/* 0 for the exit status: the condition's verdict, or no findings when there is none. */
bool scn_expectations_hold(const struct scn *s, const struct scn_run *run);
/* The run stopped at a limit (time_limit, max_steps, max_decisions): it is partial. */
bool scn_cut_short(const struct scn_run *run);
/*
 * Text from the scenario or the run (names, log() strings, messages) for a
 * terminal: control characters and bytes that are not UTF-8 as \xHH (tab as
 * \t), valid UTF-8 as it is.
 */
void scn_put_text(FILE *out, const char *text);
/*
 * The scenario text with a run's settings and decision log as its schedule
 * section (the run kept its log: cfg.drop_decisions was false); comment,
 * if not NULL, goes before it as a (* ... *) block.
 */
int scn_write_with_schedule(FILE *out, const struct scn *s, const struct scn_run *run,
			    const char *comment);

const char *scn_did_you_mean(const char *word, const char *const *words, size_t n);

#endif
