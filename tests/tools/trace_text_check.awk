# Reads a `kwsim run --trace text` file as a 6.12 tracefs `trace` file and
# checks every line against what the trace itself says of each CPU's state:
# the header is 6.12's print_func_help_header_irq() word for word; each line
# is trace_print_context()'s "%16s-%-7d [%03d] FLAGS %5lu.%06lu: "; the task
# of a line is the one the CPU's last sched_switch put there; the
# hardirq/softirq column follows irq_handler_entry/exit and
# softirq_entry/exit; interrupts are off where the kernel has them off
# (sched_switch under the rq lock, timer_start and timer_cancel under the
# timer base lock, hard interrupts, TIMER_IRQSAFE callbacks) and on where it
# has them on (softirq entry and exit, other timer callbacks' entry and
# exit); the preempt depth counts those locks and the idle task's own
# preempt_disable(); a lock_acquire and lock_release are lock.h's
# "%p %s%s%s" and "%p %s", with the lock held (preemption or bottom halves
# off), a lock taken by one holder at a time and released on the CPU that
# took it, under the name it was taken by. It is an independent reading:
# nothing here comes from the simulator's code, only from its output and the kernel's rules.
#
# Usage: awk -f trace_text_check.awk NAME=label TRACE
# Prints one line per mismatch and exits 1 if there was any. With -v
# PARTIAL=1 (a --trace-filter trace: lines are missing) only what one line
# shows by itself is checked, and the header's count.

function fail(msg) {
	printf "%s:%d: %s\n    %s\n", NAME, NR, msg, $0
	bad++
	if (bad > 20) {
		print NAME ": too many mismatches, stopping"
		exit 1
	}
}

function depth(c) {
	return c == "." ? 0 : index("0123456789abcdef", c) - 1
}

BEGIN {
	hdr[1] = "# tracer: nop"
	hdr[2] = "#"
	hdr[4] = "#"
	hdr[5] = "#                                _-----=> irqs-off/BH-disabled"
	hdr[6] = "#                               / _----=> need-resched"
	hdr[7] = "#                              | / _---=> hardirq/softirq"
	hdr[8] = "#                              || / _--=> preempt-depth"
	hdr[9] = "#                              ||| / _-=> migrate-disable"
	hdr[10] = "#                              |||| /     delay"
	hdr[11] = "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION"
	hdr[12] = "#              | |         |   |||||     |         |"
	bad = 0
	events = 0
}

NR <= 12 {
	if (NR == 3) {
		if ($0 !~ /^# entries-in-buffer\/entries-written: [0-9]+\/[0-9]+   #P:[0-9]+$/)
			fail("not print_event_info()'s entries line")
		split($0, w, "[ /:]+")
		declared = w[4]
	} else if ($0 != hdr[NR]) {
		fail("header line differs from 6.12's: want \"" hdr[NR] "\"")
	}
	next
}

{
	events++
	line = $0
	if (length(line) < 52 || substr(line, 17, 1) != "-") {
		fail("not a trace_print_context() line")
		next
	}
	comm = substr(line, 1, 16)
	sub(/^ +/, "", comm)
	rest = substr(line, 18)
	pid = rest
	sub(/ .*/, "", pid)
	rest = substr(rest, length(pid) + 1)
	sub(/^ +/, "", rest)
	cpu = substr(rest, 2, 3)
	flags = substr(rest, 7, 5)
	ts = substr(rest, 13)
	sub(/^ +/, "", ts)
	sub(/:.*/, "", ts)
	ev = substr(line, index(line, ": ") + 2)
	name = ev
	sub(/:.*/, "", name)
	split(ts, t, ".")
	want = sprintf("%16s-%-7d [%03d] %s %5d.%06d: ", comm, pid, cpu + 0, flags, t[1], t[2])
	if (substr(line, 1, length(want)) != want || flags !~ /^[.dDb][.N][.hsH][.1-9a-f]\.$/ ||
	    pid !~ /^[0-9]+$/ || cpu !~ /^[0-9][0-9][0-9]$/ || t[2] !~ /^[0-9][0-9][0-9][0-9][0-9][0-9]$/) {
		fail("columns are not 6.12's \"%16s-%-7d [%03d] %c%c%c%c%c %5lu.%06lu: \"")
		next
	}
	cpu += 0
	f_irq = substr(flags, 1, 1)
	f_nr = substr(flags, 2, 1)
	f_ctx = substr(flags, 3, 1)
	f_pc = depth(substr(flags, 4, 1))

	# the task: whoever the CPU's last sched_switch put there, the idle task at first
	cur = (cpu in curpid) ? curpid[cpu] : 0
	curc = cur == 0 ? "<idle>" : curcomm[cpu]
	if (name == "lock_acquire" || name == "lock_release") {
		nw = split(ev, kv, " ")
		if (kv[2] !~ /^[0-9a-f]+$/ || length(kv[2]) != 16 ||
		    name == "lock_acquire" && ev !~ /^lock_acquire: [0-9a-f]+ (try )?(read )?[^ ]+$/ ||
		    name == "lock_release" && ev !~ /^lock_release: [0-9a-f]+ [^ ]+$/)
			fail("not lock.h's " name " text")
		if (f_pc < 1 && f_irq != "b" && f_irq != "D")
			fail(name " with the lock held but preemption and bottom halves on")
	}
	if (PARTIAL) {
		# what the line shows by itself
		if (name == "sched_switch" && flags != "d..2.")
			fail("sched_switch is traced under the rq lock: d..2.")
		if ((name == "timer_start" || name == "timer_cancel") && f_pc < 1)
			fail(name " is traced under the timer base lock: depth at least 1")
		next
	}
	if (pid != cur || comm != curc)
		fail("line is in " comm "-" pid " but cpu" cpu " runs " curc "-" cur)

	if (name == "irq_handler_entry")
		hard[cpu]++
	if (name == "softirq_entry") {
		soft[cpu]++
		softpc[cpu] = f_pc
	}
	if (name == "timer_start" && ev ~ /flags=[A-Z|]*I/) {
		split(ev, kv, "[ =]")
		irqsafe[kv[3]] = 1
	}
	if (name == "timer_expire_entry") {
		split(ev, kv, "[ =]")
		incb[cpu] = kv[3]
	}

	# hardirq/softirq column
	h = hard[cpu] > 0
	s = soft[cpu] > 0
	wctx = h && s ? "H" : h ? "h" : s ? "s" : "."
	if (f_ctx != wctx)
		fail("hardirq/softirq column is " f_ctx ", the CPU is in " (wctx == "." ? "task context" : wctx))

	# irqs-off (a kwsim_finding record may report just that a handler broke it)
	cb_irqsafe = (cpu in incb) && (incb[cpu] in irqsafe)
	if ((name == "sched_switch" || name == "timer_start" || name == "timer_cancel" ||
	     (h && name != "kwsim_finding") ||
	     cb_irqsafe) && f_irq != "d" && f_irq != "D")
		fail(name " with interrupts on")
	if ((name == "softirq_entry" || name == "softirq_exit" ||
	     ((name == "timer_expire_entry" || name == "timer_expire_exit") && !cb_irqsafe)) &&
	    f_irq != ".")
		fail(name " with interrupts off")

	# preempt depth
	if (name == "sched_switch" && flags != "d..2.")
		fail("sched_switch is traced under the rq lock: d..2.")
	if ((name == "timer_start" || name == "timer_cancel") && f_pc < 1)
		fail(name " is traced under the timer base lock: depth at least 1")
	if (cur == 0 && f_pc < 1)
		fail("the idle task runs with preemption off: depth at least 1")
	if (s && !h && (name == "timer_expire_entry" || name == "timer_expire_exit" ||
			name == "softirq_exit") && f_pc != softpc[cpu])
		fail(name " depth differs from its softirq_entry's")
	if (s && !h && name == "timer_cancel" && !(cpu in incb) && f_pc != softpc[cpu] + 1)
		fail("timer_cancel in __run_timers holds the base lock: depth of softirq_entry + 1")

	# one holder at a time; released where taken, under the same name
	if (name == "lock_acquire" || name == "lock_release") {
		nw = split(ev, kv, " ")
		lk = kv[2]
		lname = kv[nw]
		# CPUs tied at one timestamp print in CPU order, so a hand-over
		# may show the taker first: an overlap is allowed only if the
		# holder's release comes at the taker's timestamp
		if (name == "lock_acquire") {
			if ((lk, cpu) in held)
				fail("lock " lk " taken again on cpu" cpu ", which holds it")
			for (k in held) {
				split(k, kk, SUBSEP)
				if (kk[1] == lk)
					tied[k] = ts
			}
			held[lk, cpu] = lname
		} else if (!((lk, cpu) in held)) {
			fail("lock " lk " released on cpu" cpu ", which does not hold it")
		} else {
			if (held[lk, cpu] != lname)
				fail("lock " lk " released as " lname ", taken as " held[lk, cpu])
			if (((lk, cpu) in tied) && tied[lk, cpu] != ts)
				fail("lock " lk " taken at " tied[lk, cpu] " while cpu" cpu " held it")
			delete held[lk, cpu]
			delete tied[lk, cpu]
		}
	}

	# leaving a context: after its closing line
	if (name == "irq_handler_exit")
		hard[cpu]--
	if (name == "softirq_exit")
		soft[cpu]--
	if (name == "timer_expire_exit")
		delete incb[cpu]
	if (name == "sched_switch") {
		split(ev, kv, " ")
		for (i in kv) {
			if (kv[i] ~ /^prev_pid=/ && substr(kv[i], 10) != cur)
				fail("sched_switch's prev is not the CPU's task")
			if (kv[i] ~ /^next_pid=/)
				curpid[cpu] = substr(kv[i], 10) + 0
			if (kv[i] ~ /^next_comm=/)
				curcomm[cpu] = substr(kv[i], 11)
		}
	}
}

END {
	for (k in tied) {
		split(k, kk, SUBSEP)
		print NAME ": lock " kk[1] " taken at " tied[k] " while cpu" kk[2] " held it"
		bad++
	}
	if (NR < 12) {
		print NAME ": no 6.12 header"
		exit 1
	}
	if (declared != events) {
		print NAME ": header says " declared " entries, the file has " events
		bad++
	}
	exit bad ? 1 : 0
}
