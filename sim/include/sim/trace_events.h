/*
 * Every trace record described once, as the kernel's TRACE_EVENT() does:
 * the record type, its own name (sim_rec_type_name), the tracefs event it
 * prints as, that event's system (events/SYSTEM/), and its fields in
 * TP_printk()'s order: each the slot of struct sim_rec it is read from and
 * its type. A view iterates over the description (sim_rec_desc()): the
 * text view prints "event: name=value ..." from it and names events and
 * systems by it; the JSON and HTML views give a plain event's args its
 * field names (records they draw as slices, or whose args the page's script
 * reads by other names, keep theirs). Where the kernel's format is not
 * "name=value" (sched_switch's prev_state and "==>", timer_start's
 * [timeout=], lock_acquire's bare fields, softirq's vector) the event is
 * marked OWN: its fields are still listed, and a view writes it by hand.
 *
 * Adding a record: one line here (its enum value comes from it too), the
 * call that makes it, and hand code in a view only for an OWN format.
 *
 * This file is read twice, like the kernel's define_trace.h: sim/trace.h
 * takes the enum from it, sim/trace.c the descriptions. It has no include
 * guard on purpose. Field slots: A B C D (the record's a..d), S S2 (its
 * strings), COMM (the running task's comm), and K() a constant the kernel
 * prints (prio=120: every kwsim task is a normal-priority kthread).
 * Types: PTR %016llx, INT %d, ULONG %lu, U64 %llu, CPU %03d, STR %s
 * (NULL prints "(null)"), COMM %.16s, OWN a value the view computes
 * (prev_state from b and d, timeout from b and the time, vec from s).
 */

/* SIM_TRACE_EVENT(type, name, event, system, print, fields) */
/* d: TRACE_SWITCH_PREEMPT, a preemption ("R+" in prev_state) */
SIM_TRACE_EVENT(REC_SCHED_SWITCH, "sched_switch", "sched_switch", "sched", OWN,
	F(prev_comm, S, STR) F(prev_pid, A, INT) K(prev_prio, "120") F(prev_state, B, OWN)
	F(next_comm, S2, STR) F(next_pid, C, INT) K(next_prio, "120"))
SIM_TRACE_EVENT(REC_SCHED_WAKING, "sched_waking", "sched_waking", "sched", FIELDS,
	F(comm, S, STR) F(pid, A, INT) K(prio, "120") F(target_cpu, B, CPU))
/* d: flags | cpu, idx << 32 */
SIM_TRACE_EVENT(REC_TIMER_START, "timer_start", "timer_start", "timer", OWN,
	F(timer, A, PTR) F(function, S, STR) F(expires, B, ULONG) F(timeout, B, OWN)
	F(bucket_expiry, C, ULONG) F(cpu, D, OWN) F(idx, D, OWN) F(flags, D, OWN))
SIM_TRACE_EVENT(REC_TIMER_EXPIRE_ENTRY, "timer_expire_entry", "timer_expire_entry", "timer",
	FIELDS, F(timer, A, PTR) F(function, S, STR) F(now, B, ULONG) F(baseclk, C, ULONG))
SIM_TRACE_EVENT(REC_TIMER_EXPIRE_EXIT, "timer_expire_exit", "timer_expire_exit", "timer",
	FIELDS, F(timer, A, PTR))
SIM_TRACE_EVENT(REC_TIMER_CANCEL, "timer_cancel", "timer_cancel", "timer", FIELDS,
	F(timer, A, PTR))
SIM_TRACE_EVENT(REC_LOCK_CONTENDED, "lock_contended", "kwsim_lock_contended", "kwsim", FIELDS,
	F(lock, A, PTR) F(name, S, STR) F(spun_ns, B, U64))
SIM_TRACE_EVENT(REC_IRQ_ENTRY, "irq_handler_entry", "irq_handler_entry", "irq", FIELDS,
	F(irq, A, INT) F(name, S, STR))
SIM_TRACE_EVENT(REC_IRQ_EXIT, "irq_handler_exit", "irq_handler_exit", "irq", FIELDS,
	F(irq, A, INT) K(ret, "handled"))
SIM_TRACE_EVENT(REC_SOFTIRQ_ENTRY, "softirq_entry", "softirq_entry", "irq", OWN,
	F(vec, S, OWN) F(action, S, STR))
SIM_TRACE_EVENT(REC_SOFTIRQ_EXIT, "softirq_exit", "softirq_exit", "irq", OWN,
	F(vec, S, OWN) F(action, S, STR))
/* b: its cause's time, c: its cause's cpu (a use-after-free's: the kfree's; others: 0) */
SIM_TRACE_EVENT(REC_FINDING, "kwsim_finding", "kwsim_finding", "kwsim", FIELDS,
	F(kind, S, STR) F(index, A, U64))
/* the suspend's steps as suspend_resume traces them (s: action "suspend_enter",
   "sync_filesystems", "freeze_processes", "machine_suspend", "thaw_processes"; b: val,
   c: 1 begin / 0 end, d: ns slept in all), or a task's ("frozen", "thawed": a: its pid,
   s2: its comm), printed as kwsim_freezer */
SIM_TRACE_EVENT(REC_FREEZER, "kwsim_freezer", "kwsim_freezer", "kwsim", OWN,
	F(action, S, STR) F(pid, A, U64) F(comm, S2, STR) F(val, B, U64) F(start, C, U64))
/* clone_flags: kernel_thread() from kthreadd, CLONE_FS | CLONE_FILES | CLONE_VM |
   CLONE_UNTRACED with the exit signal masked off: every kwsim task is a kthread */
SIM_TRACE_EVENT(REC_TASK_NEW, "task_newtask", "task_newtask", "task", FIELDS,
	F(pid, A, INT) F(comm, S, STR) K(clone_flags, "800700") K(oom_score_adj, "0"))
SIM_TRACE_EVENT(REC_TASK_EXIT, "sched_process_exit", "sched_process_exit", "sched", FIELDS,
	F(comm, COMM, COMM) F(pid, A, INT) K(prio, "120"))
/* the model's tracepoints: the event is the record's s (sched_kthread_work_*, kwsim_*) */
SIM_TRACE_EVENT(REC_MODEL, "model", NULL, NULL, OWN,
	F(work, A, PTR) F(worker, B, PTR) F(function, S2, STR))
/* a: log level (4 with no KERN_ prefix); s: the line, no newline */
SIM_TRACE_EVENT(REC_PRINTK, "console", "console", "printk", OWN,
	F(msg, S, STR))
/* b: TRACE_LOCK_TRY | TRACE_LOCK_READ, printed "try " and "read " before the name */
SIM_TRACE_EVENT(REC_LOCK_ACQUIRE, "lock_acquire", "lock_acquire", "lock", OWN,
	F(lock, A, PTR) F(flags, B, U64) F(name, S, STR))
SIM_TRACE_EVENT(REC_LOCK_RELEASE, "lock_release", "lock_release", "lock", OWN,
	F(lock, A, PTR) F(name, S, STR))
/* the CPU held up from the record's time (stall.c): a: ns, b: what it waits for
   (struct sim_question's until, as int64_t), c: its decision's index, d: the held
   context's line (sim_note_line; 0: none); s: its name (NULL: idle), s2: its sim_note()
   text, or NULL */
SIM_TRACE_EVENT(REC_STALL, "kwsim_stall", "kwsim_stall", "kwsim", OWN,
	F(held_ns, A, U64) F(until, B, OWN) F(decision, C, U64) F(ctx, S, STR)
	F(line, D, U64) F(note, S2, STR))
