#!/usr/bin/env bash
# kwsim run / replay on bad input. Every malformed file must give a clean
# "FILE:LINE:COL: error: ..." on stderr and exit 2: never a crash (exit >= 128),
# a hang, or a sanitizer report such as a leak (exit 86 or 87 in the sanitizer
# build; see ../status.sh). Files that cannot be read at all say
# "FILE: error: ...", and a schedule that no longer fits says so.
#
# Every check's work is bounded by counts (the scenario's size, max_steps), so
# each takes milliseconds in any build. The timeout is only a backstop against
# a real hang, far beyond what any check needs on a loaded machine.
# Usage: cli_bad_input.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: cli_bad_input.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
scenarios=$here/../../scenarios
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
backstop=120
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
# Past this many failures kwsim is broken wholesale: the first ones say how,
# and the rest would only repeat them, at one kwsim run each.
max_failed=20
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
	[ -s "$tmp/err" ] && sed -n '1,5p' "$tmp/err" | sed 's/^/    /'
	if [ "$failed" -ge "$max_failed" ]; then
		echo "stopped after $failed failures ($checks checks)"
		exit 1
	fi
}

# kw CMD FILE [ARGS]: run kwsim (with the backstop); sets rc, leaves stdout/stderr in $tmp
kw() {
	timeout "$backstop" "$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# The exit status alone rules out crashes, hangs, leaks and other sanitizer reports.
sane() {
	local problem

	if [ "$rc" -eq 124 ]; then
		fail "$1: hung (killed after $backstop s)"
		return 1
	fi
	problem=$(kw_status_problem "$rc")
	if [ -n "$problem" ]; then
		fail "$1: $problem"
		return 1
	fi
}

# bad NAME TEXT_REGEX CMD FILE [ARGS]: exit 2, with FILE:LINE:COL: error: and TEXT_REGEX
bad() {
	local name=$1 want=$2 file=$4
	shift 2
	checks=$((checks + 1))
	kw "$@"
	sane "$name" || return
	if [ "$rc" -ne 2 ]; then
		fail "$name: exit $rc, want 2"
	elif ! grep -qF "$file:" "$tmp/err" ||
	     ! grep -qE "^.*:[0-9]+:[0-9]+: error: " "$tmp/err"; then
		fail "$name: no '$file:LINE:COL: error:' message"
	elif ! grep -qE -- "$want" "$tmp/err"; then
		fail "$name: message does not match '$want'"
	fi
}

# bad_noloc NAME TEXT_REGEX CMD FILE [ARGS]: exit 2 with "error:" and TEXT_REGEX, no position
bad_noloc() {
	local name=$1 want=$2
	shift 2
	checks=$((checks + 1))
	kw "$@"
	sane "$name" || return
	if [ "$rc" -ne 2 ]; then
		fail "$name: exit $rc, want 2"
	elif ! grep -q "error: " "$tmp/err" || ! grep -qE -- "$want" "$tmp/err"; then
		fail "$name: message does not match 'error: ... $want'"
	fi
}

# scn NAME BODY [INIT]: a scenario file with a small init block (plus INIT) and BODY after it
scn() {
	cat >"$tmp/$1.kws" <<EOF
KW $1
{
  cpus = 2;
  int n = 0;
  fn f { n++; }
  worker W = kthread_create_worker(0, "kw");
  work A = f;
  delayed_work D = f;
  ${3:-}
}
$2
EOF
	echo "$tmp/$1.kws"
}

# --- truncated files: every prefix of a real scenario, at every 7th byte ----------------
# A prefix that ends inside the init block, a program, the condition or the
# schedule is malformed; one that ends between two parts is a shorter valid
# scenario and may run (exit 0 or 1). Either way: no crash, hang or leak.
src=$scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws
size=$(wc -c <"$src")
init_end=$(grep -b '^}' "$src" | head -1 | cut -d: -f1)	# offset of the init block's '}'
sched=$(grep -b '^schedule' "$src" | cut -d: -f1)
ran=0 errs=0
for ((n = 0; n < size; n += 7)); do
	f=$tmp/cut.kws
	head -c "$n" "$src" >"$f"
	checks=$((checks + 1))
	kw run "$f"
	sane "prefix of $n bytes" || continue
	if [ "$rc" -eq 2 ]; then
		errs=$((errs + 1))
		grep -qE "^$f:[0-9]+:[0-9]+: error: " "$tmp/err" ||
			fail "prefix of $n bytes: exit 2 without '$f:LINE:COL: error:'"
	else
		ran=$((ran + 1))
		if [ "$n" -le "$init_end" ] || [ "$n" -gt "$sched" ]; then
			fail "prefix of $n bytes (inside the init block or the schedule) ran: exit $rc"
		fi
	fi
	# the same prefix, replayed: never a schedule that fits, so always exit 2
	checks=$((checks + 1))
	kw replay "$f"
	sane "replay of the prefix of $n bytes" || continue
	[ "$rc" -eq 2 ] || fail "replay of the prefix of $n bytes: exit $rc, want 2"
done
echo "prefixes of $(basename "$src"): $errs rejected, $ran ran as shorter scenarios"
checks=$((checks + 1))
kw replay "$src"
sane "the whole of $(basename "$src"), replayed" && [ "$rc" -ne 0 ] && fail "the whole of $(basename "$src") does not replay (exit $rc)"

# --- files that are not scenarios -------------------------------------------------------
head -c 4096 /dev/zero >"$tmp/zeros.kws"
bad "NUL bytes" "binary file" run "$tmp/zeros.kws"
# running out of tasks is the kernel's -ENOMEM or a clear error, never an abort (it was)
printf 'KW owned\n{ worker W; }\nP0 { W = kthread_create_worker(0, "kw"); }\n' >"$tmp/owned.kws"
bad "assigning a worker declared without kthread_create_worker" \
	"worker 'W' is declared without kthread_create_worker" run "$tmp/owned.kws"
printf 'KW progs\n{ cpus = 1; }\nP0 { }\nP1 { }\nP2 { }\n' >"$tmp/progs.kws"
bad "more threads than max_tasks" "P1 cannot start: the run has made 2 tasks, its max_tasks" \
	run "$tmp/progs.kws" --set max_tasks=2
printf 'KW many\n{ cpus = 1; worker W = kthread_create_worker(0, "kw"); }\nP0 { repeat (400) W = kthread_create_worker(0, "kw"); }\n' >"$tmp/many.kws"
checks=$((checks + 1))
kw run "$tmp/many.kws" --set max_tasks=50
if sane "400 workers, max_tasks = 50"; then
	# the 48 workers made are no leak: each one's thread still runs (kmemleak's view)
	[ "$rc" -eq 0 ] || fail "400 workers, max_tasks = 50: exit $rc, want 0 (live threads hold their workers)"
	# init, P0 and the first worker, then 47 more: the other 353 fail
	[ "$(grep -c 'failed: -12 (-ENOMEM: the run has made max_tasks = 50 tasks)' "$tmp/out")" -eq 353 ] ||
		fail "400 workers, max_tasks = 50: not 353 creations failed with -ENOMEM"
fi
checks=$((checks + 1))
kw run "$tmp/many.kws" --set max_tasks=2000000
[ "$rc" -eq 2 ] && grep -q "max_tasks=2000000: max_tasks out of range" "$tmp/err" ||
	fail "max_tasks=2000000: exit $rc, $(cat "$tmp/err")"
{ printf 'KW bin\n{\n  cpus = 2;\n'; printf '\x00\x01\x02\xff\xfe\x80'; } >"$tmp/nul.kws"
bad "NUL after text" "binary file" run "$tmp/nul.kws"
{ printf 'KW bin\n{\n  cpus = 2;\n  '; printf '\xff\xfe\x80\x81'; printf '\n}\n'; } >"$tmp/high.kws"
bad "high bytes" "unexpected byte 0xff" run "$tmp/high.kws"
printf '' >"$tmp/empty.kws"
bad "empty file" "starts with 'KW name'" run "$tmp/empty.kws"
printf 'KW \n{ }\n' >"$tmp/noname.kws"
bad "no name" "name must be" run "$tmp/noname.kws"
{ printf 'KW huge\n(* '; head -c 17000000 /dev/zero | tr '\0' 'x'; printf ' *)\n{ }\n'; } >"$tmp/huge.kws"
bad "a file over 16 MiB" "larger than 16777216 bytes" run "$tmp/huge.kws"
{ printf 'KW big\n(* '; head -c 1000000 /dev/zero | tr '\0' 'x'; printf ' *)\n{ }\n'; } >"$tmp/big.kws"
checks=$((checks + 1))
kw run "$tmp/big.kws"
sane "a 1,000,000-byte comment" && { [ "$rc" -eq 0 ] || fail "a 1,000,000-byte comment: exit $rc, want 0"; }

# --- deep nesting and long chains ----------------------------------------------------------
# rep STRING N: STRING N times (through the environment: awk -v would read its backslashes)
rep() { S=$1 awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", ENVIRON["S"] }'; }
p10k=$(rep '(' 10000) q10k=$(rep ')' 10000)
b10k=$(rep '{' 10000) c10k=$(rep '}' 10000)
bad "10,000 nested ( in an expression" "nesting deeper than 32" \
	run "$(scn parens "P0 { n = ${p10k}1${q10k}; }")"
bad "10,000 nested { in a program" "nesting deeper than 32" \
	run "$(scn braces "P0 ${b10k}${c10k}")"
bad "10,000 unclosed {" "nesting deeper than 32" \
	run "$(scn open "P0 ${b10k}")"
cat >"$tmp/fnbraces.kws" <<EOF
KW fnbraces
{
  fn f ${b10k}${c10k}
}
EOF
bad "10,000 nested { in a fn" "nesting deeper than 32" run "$tmp/fnbraces.kws"
bad "10,000 nested ( in the condition" "nesting deeper than 32" \
	run "$(scn condparens "P0 { n = 1; }
exists (${p10k}n == 1${q10k})")"
bad "10,000 ! in a row" "nesting deeper than 32" \
	run "$(scn nots "P0 { n = $(rep '!' 10000)1; }")"
bad "10,000 ~ in the condition" "nesting deeper than 32" \
	run "$(scn tildes "P0 { n = 1; }
exists ($(rep '~' 10000)n == 1)")"
bad "10,000 nested ifs" "nesting deeper than 32" \
	run "$(scn ifs "P0 { $(rep 'if (1) ' 10000)n++; }")"
bad "100,000 terms in a sum" "more than 256 operators deep" \
	run "$(scn sum "P0 { n = 1$(rep '+1' 100000); }")"
bad "100,000 conjuncts in the condition" "more than 256 operators deep" \
	run "$(scn conj "P0 { n = 1; }
exists (n$(rep '/\n' 100000))")"

# --- unknown names, with a suggestion -------------------------------------------------------
bad "misspelt call" "unknown call or name 'kthread_queue_wrok'; did you mean 'kthread_queue_work'\?" \
	run "$(scn typo1 'P0 { kthread_queue_wrok(W, A); }')"
bad "misspelt call in an expression" "unknown name 'kthread_mod_delayed_wrok'; did you mean 'kthread_mod_delayed_work'\?" \
	run "$(scn typo2 'P0 { r0 = kthread_mod_delayed_wrok(W, D, 1); }')"
bad "misspelt object" "unknown name 'AA'; did you mean 'A'\?" \
	run "$(scn typo3 'P0 { kthread_queue_work(W, AA); }')"
bad "misspelt keyword" "unknown call or name 'delayd_work'; did you mean 'delayed_work'\?" \
	run "$(scn typo4 'P0 { delayd_work E = f; }')"
bad "misspelt setting" "unknown call or name 'cpu'; did you mean 'cpus'\?" \
	run "$(scn typo7 'P0 { }' 'cpu = 2;')"
bad "debug_objects neither off nor on" "debug_objects must be off or on, not 'yes'" \
	run "$(scn dobj 'P0 { }' 'debug_objects = yes;')"
bad "watchdog_thresh without a unit" "watchdog_thresh is a time: write it with a unit" \
	run "$(scn wdt 'P0 { }' 'watchdog_thresh = 10;')"
bad "usleep_range with one argument" "usleep_range takes 2 arguments, not 1" \
	run "$(scn usr 'P0 { usleep_range(10); }')"
bad "misspelt counter" "unknown name 'nn'; did you mean 'n'\?" \
	run "$(scn typo5 'P0 { r0 = nn; }')"
bad "unknown name, nothing close" "unknown call or name 'zzzzzzzzzz'$" \
	run "$(scn typo6 'P0 { zzzzzzzzzz(); }')"
bad "unknown time unit" "unknown time unit 'min'" run "$(scn unit 'P0 at 5min { }')"

# --- wrong argument kinds and counts --------------------------------------------------------
bad "work where a worker goes" "argument 1 of kthread_queue_work must be a worker" \
	run "$(scn kind1 'P0 { kthread_queue_work(A, W); }')"
bad "work where a delayed_work goes" "argument 2 of kthread_queue_delayed_work must be a delayed_work" \
	run "$(scn kind2 'P0 { kthread_queue_delayed_work(W, A, 1); }')"
bad "worker where a task goes" "argument 1 of kthread_stop must be a task \(W->task\)" \
	run "$(scn kind3 'P0 { kthread_stop(W); }')"
bad "string where a number goes" "argument 1 of msleep must be a number" \
	run "$(scn kind4 'P0 { msleep("ten"); }')"
bad "fn where a work goes" "argument 1 of kthread_flush_work must be a work or delayed_work" \
	run "$(scn kind5 'P0 { kthread_flush_work(f); }')"
bad "too few arguments" "kthread_queue_work takes 2 arguments, not 1" \
	run "$(scn count1 'P0 { kthread_queue_work(W); }')"
bad "too many arguments" "too many arguments to kthread_flush_worker" \
	run "$(scn count2 'P0 { kthread_flush_worker(W, W); }')"
bad "value of a void call" "kthread_flush_worker returns nothing" \
	run "$(scn void 'P0 { r0 = kthread_flush_worker(W); }')"
bad "a work without its fn" "a work needs its function" \
	run "$(scn nofn 'P0 { }' 'work B;')"
bad "->task of a work" "only a worker's ->task" \
	run "$(scn task 'P0 { kthread_stop(A->task); }')"

# --- registers --------------------------------------------------------------------------------
bad "register read before assignment" "register 'r0' is read before any assignment" \
	run "$(scn reg1 'P0 { r1 = r0; r0 = 1; }')"
bad "condition on a register nobody assigns" "no program assigns register 'r5'" \
	run "$(scn reg2 'P0 { r0 = 1; }
exists (r5 == 1)')"
bad "condition on a missing program" "no program P3" \
	run "$(scn reg3 'P0 { r0 = 1; }
exists (3:r0 == 1)')"
bad "register in a fn" "registers such as 'r0' belong to programs" \
	run "$(scn reg4 'P0 { }' 'fn g { r0 = 1; }')"
bad "ambiguous bare register" "'r0' is assigned by P0 and P1" \
	run "$(scn reg5 'P0 { r0 = 1; }
P1 { r0 = 2; }
exists (r0 == 1)')"

# --- CPUs -------------------------------------------------------------------------------------
bad "program on a missing cpu" "cpu2 does not exist: the scenario has 2 CPUs" \
	run "$(scn cpu1 'P0 @cpu2 { }')"
bad "irq on a missing cpu" "cpu9 does not exist" \
	run "$(scn cpu2 'irq I0 @cpu9 at 1ms { }')"
bad "a huge cpu number" "does not exist" \
	run "$(scn cpu3 'P0 @cpu99999999999999999999999 { }')"
bad "worker on a missing cpu (at run time)" "cpu 5 does not exist" \
	run "$(scn cpu4 'P0 { W = kthread_create_worker_on_cpu(5, 0, "kw/5"); }')"
bad "worker on cpu -1 (at run time)" "cpu -1 does not exist" \
	run "$(scn cpu5 'P0 { W = kthread_create_worker_on_cpu(-1, 0, "kw"); }')"
bad "too many cpus" "cpus out of range" \
	run "$(scn cpu6 'P0 { }' 'cpus = 65;')"
# CPU hotplug (issue 19.3): errors in the file, remove_cpu()/add_cpu()'s answers at run time
bad "cpu_down of the boot cpu" "cpu_down\(0\): the boot CPU cannot go offline" \
	run "$(scn cpu7 'cpu_down(0) at 1ms;')"
bad "cpu_down of a missing cpu" "cpu_down\(2\): the machine has cpu0 to cpu1" \
	run "$(scn cpu8 'cpu_down(2) at 1ms;')"
bad "cpu_up of a missing cpu" "cpu_up\(9\): the machine has cpu0 to cpu1" \
	run "$(scn cpu9 'cpu_up(9) at 1ms;')"
bad "cpu_down without a time" "expected 'at' and a time after cpu_down\(1\)" \
	run "$(scn cpu10 'cpu_down(1);')"
bad "cpu_down of a missing cpu (at run time)" "cpu 3 does not exist \(cpus = 2\)" \
	run "$(scn cpu11 'P0 { r0 = cpu_down(3); }')"
checks=$((checks + 1))
scn cpu12 'P0 { r0 = cpu_down(0); r1 = cpu_down(1); r2 = cpu_down(1); r3 = cpu_up(1); r4 = cpu_up(1); }
forall (0:r0 + 1 == 0 /\ 0:r1 == 0 /\ 0:r2 == 1 /\ 0:r3 == 0 /\ 0:r4 == 1)'
kw run "$tmp/cpu12.kws"
[ "$rc" -eq 0 ] || fail "cpu_down/cpu_up's answers (-EPERM for cpu0, 1 when already so): exit $rc"

# --- run-time misuse the interpreter catches ---------------------------------------------------
cat >"$tmp/legacy.kws" <<'EOF'
KW legacy
{
  fn f { }
  worker L;
  work A = f;
}
P0 { kthread_queue_work(L, A); }
EOF
bad "legacy worker used before kthread_init_worker" "worker L is used before kthread_init_worker\(L\)" \
	run "$tmp/legacy.kws"
bad "->task of a worker whose thread has not started" "L->task is NULL" \
	run "$(scn notask 'P0 { kthread_init_worker(L); r0 = kthread_stop(L->task); }' 'worker L;')"

# --- scenarios that would run forever stop at max_steps -------------------------------------
# The bound is the test's: a small max_steps, so each stops after a fixed amount
# of work in every build, however fast the machine (the default, SCN_MAX_STEPS,
# is meant for real scenarios and takes seconds to reach).
bad "nested loops without calls" \
	"^$tmp/loops.kws:11:26: error: more than 100000 loop rounds: the scenario seems to loop forever \\(raise max_steps if it is meant to\\)$" \
	run "$(scn loops 'P0 { repeat (2000000000) repeat (2000000000) n++; }' 'max_steps = 100000;')"
checks=$((checks + 1))
kw run "$(scn spin 'P0 { while (true) { n++; } }' 'max_steps = 100000;')"
if sane "while (true) to the step limit"; then
	if [ "$rc" -ne 3 ] || ! grep -q "step-limit" "$tmp/out"; then
		fail "while (true): exit $rc, want 3 (cut short) with the run ending at step-limit"
	fi
fi

# --- schedules ---------------------------------------------------------------------------------
plain=$scenarios/races/one-work-two-workers.kws
bad "replay of a file without a schedule" "nothing to replay: the file has no schedule" replay "$plain"
sed 's/udelay(100);/udelay(5);/' "$src" >"$tmp/stale1.kws"
bad_noloc "schedule of a changed scenario" "no longer fits" replay "$tmp/stale1.kws"
sed 's/P1 @cpu1 at 100us/P1 @cpu1 at 5ms/' "$src" >"$tmp/stale2.kws"
bad_noloc "schedule of a retimed scenario" "no longer fits" replay "$tmp/stale2.kws"
awk '/^    c/ { last = NR } { line[NR] = $0 }
     END { for (i = 1; i <= NR; i++) print line[i] (i == last ? " c1/2 c1/2" : "") }' \
	"$src" >"$tmp/stale3.kws"
bad_noloc "schedule with decisions left over" "no longer fits" replay "$tmp/stale3.kws"
awk '/^    c/ { last = NR } { line[NR] = $0 } END { for (i = 1; i <= NR; i++) if (i != last) print line[i] }' \
	"$src" >"$tmp/stale4.kws"
bad_noloc "schedule that ends early" "no longer fits" replay "$tmp/stale4.kws"
sed '/^schedule/,$ s/c1\/2/c7\/2/' "$src" >"$tmp/sched1.kws"
bad "decision out of range" "pick 7 of 2 candidates \\(0\\.\\.1\\)" replay "$tmp/sched1.kws"
sed '/^schedule/,$ s/c1\/2/x1\/2/' "$src" >"$tmp/sched2.kws"
bad "decision of no kind" "expected a decision such as c1/2" replay "$tmp/sched2.kws"
sed '/^schedule/,$ s/c1\/2/c1\/99999999999999999999999/' "$src" >"$tmp/sched3.kws"
bad "decision with a huge count" "a decision has 2 to 65535 candidates, not 99999999999999999999999" replay "$tmp/sched3.kws"
sed '/^schedule/,$ s/c1\/2/c0\/1/' "$src" >"$tmp/sched5.kws"
bad "decision of one candidate" "a decision has 2 to 65535 candidates, not 1" replay "$tmp/sched5.kws"
sed '/^schedule/,$ s/seed = [0-9]*;/colour = 7;/' "$src" >"$tmp/sched4.kws"
bad "unknown schedule setting" "unknown setting 'colour'" replay "$tmp/sched4.kws"

# --- conditions, types, braces and times (the scenario language's checks) ------------------
# holds NAME FILE: the file parses and runs, and its condition holds (exit 0)
holds() {
	checks=$((checks + 1))
	kw run "$2"
	sane "$1" || return
	[ "$rc" -eq 0 ] || fail "$1: exit $rc, want 0"
}
bad "warn() of a function nobody has" "no function 'nosuchfn' in the model, the machine or the scenario" \
	run "$(scn nofunc 'P0 { }
~exists (warn("nosuchfn"))')"
bad "warn() of a misspelt function" "did you mean 'kthread_insert_work_sanity_check'\?" \
	run "$(scn typofunc 'P0 { }
~exists (warn("kthread_insert_work_sanity_chek"))')"
bad "uaf() of a function nobody has" "no function 'kthread_frob'" \
	run "$(scn nofunc2 'P0 { }
~exists (uaf("kthread_frob"))')"
holds "warn() of a model function, of a traced one, of the scenario's fn" "$(scn okfunc 'P0 { }
~exists (warn("kthread_insert_work_sanity_check") \/ uaf("kthread_flush_work_fn") \/ warn("f"))')"
bad "a counter compared with a worker" "type error: 'W' is a worker, not a number or truth value" \
	run "$(scn cmpworker 'P0 { n = 1; }
exists (n == W)')"
bad "a work tested by if" "type error: 'A' is a work, not a number or truth value" \
	run "$(scn ifwork 'P0 { if (A) n++; }')"
bad "a worker stored in a counter" "type error: 'W' is a worker" run "$(scn setworker 'P0 { n = W; }')"
bad "a string in a sum" "type error: a string is not a number" run "$(scn strsum 'P0 { n = 1 + "x"; }')"
bad "a count compared with true" "type error: a number compared with true or false" \
	run "$(scn cmptrue 'P0 { kthread_queue_work(W, A); kthread_flush_work(A); }
exists (ran(f) == true)')"
bad "truth values ordered" "type error: this is true or false, but only numbers are ordered" \
	run "$(scn order 'P0 { r0 = kthread_queue_work(W, A) < 2; }')"
bad "repeat (true)" "type error: this is true or false, but repeat takes a number of rounds" \
	run "$(scn reptrue 'P0 { repeat (true) n++; }')"
bad "a truth value as a delay" "type error: argument 1 of udelay must be a number of microseconds, not true or false" \
	run "$(scn udtrue 'P0 { udelay(true); }')"
bad "a work where a delayed_work goes, in a cancel" "argument 1 of kthread_cancel_delayed_work_sync must be a delayed_work" \
	run "$(scn cancelkind 'P0 { r0 = kthread_cancel_delayed_work_sync(A); }')"
bad "513 work functions" "more than 512 work functions: each fn is a C function of its own" \
	run "$(scn fns513 'P0 { }' "$(awk 'BEGIN { for (i = 0; i < 513; i++) printf "fn g%d { }\n", i }')")"
holds "counters as numbers, truth values counted" "$(scn counters 'P0 { n = 3; udelay(n); n += kthread_queue_work(W, A); kthread_flush_work(A); }
exists (n == 5 /\ ran(f) == 1)')"
printf 'KW brace1\n{\n  int n = 0;\n}\nP0 {\n  n++;\nP1 { n++; }\nexists (n == 2)\n' >"$tmp/brace1.kws"
bad "a program's missing }" "brace1.kws:7:1: error: missing '\}' to close the block opened at line 5" \
	run "$tmp/brace1.kws"
printf 'KW brace2\n{\n  int n = 0;\n}\nP0 {\n  if (n == 0) {\n    n++;\n' >"$tmp/brace2.kws"
bad "an if's missing } at the end of the file" "brace2.kws:8:1: error: missing '\}' to close the block opened at line 6" \
	run "$tmp/brace2.kws"
printf 'KW brace3\n{\n  int n = 0;\n  fn f { if (n == 0) { n++; }\n  work A = f;\n}\nP0 { n++; }\n' >"$tmp/brace3.kws"
bad "a fn's missing }" "brace3.kws:5:3: error: missing '\}' to close the block opened at line 4" \
	run "$tmp/brace3.kws"
printf 'KW brace4\n{\n  int n = 0;\n\n~exists (n == 2)\n' >"$tmp/brace4.kws"
bad "the init block's missing }" "brace4.kws:5:1: error: missing '\}' to close the block opened at line 2" \
	run "$tmp/brace4.kws"
# every time argument: constants at parse time, computed values when the call is made
bad "udelay(LONG_MAX)" "argument 1 of udelay is 9223372036854775807 microseconds, out of range: it takes 0 to 9223372036854775 " \
	run "$(scn udmax 'P0 { udelay(9223372036854775807); n++; }')"
bad "ndelay(-1)" "argument 1 of ndelay is -1 nanoseconds, out of range" run "$(scn ndneg 'P0 { ndelay(-1); }')"
bad "mdelay past the clock" "argument 1 of mdelay is 9223372036855 milliseconds, out of range" \
	run "$(scn mdmax 'P0 { mdelay(9223372036855); }')"
bad "msleep past unsigned int" "argument 1 of msleep is 4294967296 milliseconds, out of range: it takes 0 to 4294967295 " \
	run "$(scn msmax 'P0 { msleep(4294967296); }')"
bad "msecs_to_jiffies(-1)" "argument 1 of msecs_to_jiffies is -1 milliseconds, out of range" \
	run "$(scn mtj 'P0 { r0 = msecs_to_jiffies(0 - 1); }')"
bad "a negative delay in jiffies" "argument 3 of kthread_queue_delayed_work is -1 jiffies, out of range: it takes 0 to 4611686018427387902 " \
	run "$(scn qdneg 'P0 { r0 = kthread_queue_delayed_work(W, D, -1); }')"
bad "a delay past MAX_JIFFY_OFFSET" "argument 3 of kthread_mod_delayed_work is 4611686018427387903 jiffies, out of range" \
	run "$(scn mdmaxj 'P0 { r0 = kthread_mod_delayed_work(W, D, 4611686018427387903); }')"
bad "at past the clock" "time too large: a time is at most 9223372036854775807 ns" \
	run "$(scn atmax 'P0 { at 100000000000s; }')"
bad "a program at a time past the clock" "time too large" run "$(scn patmax 'P0 at 9223372037s { }')"
bad "a time literal as a call argument" "a time such as '5ms' goes after 'at'" \
	run "$(scn udms 'P0 { udelay(5ms); }')"
bad "a computed negative udelay (at run time)" "udrun.kws:12:10: error: argument 1 of udelay is -5 microseconds, out of range" \
	run "$(scn udrun 'P0 { n = 0 - 5;
  udelay(n); }')"
bad "a computed msleep past unsigned int (at run time)" "argument 1 of msleep is 4294967296 milliseconds, out of range" \
	run "$(scn msrun 'P0 { n = 4294967295; n++; msleep(n); }')"
bad "a computed delay that wraps (at run time)" "argument 1 of ndelay is -9223372036854775808 nanoseconds" \
	run "$(scn ndwrap 'P0 { r0 = 9223372036854775807; ndelay(r0 + 1); }')"
bad "a computed negative delay in jiffies (at run time)" "argument 3 of kthread_mod_delayed_work is -2 jiffies" \
	run "$(scn mdrun 'P0 { n = -2; r0 = kthread_mod_delayed_work(W, D, n); }')"
# accepted NAME FILE: the file parses and runs to its end, whatever the verdict (exit 0 or 1)
accepted() {
	checks=$((checks + 1))
	kw run "$2"
	sane "$1" || return
	if [ "$rc" -eq 2 ] || grep -q "error: " "$tmp/err"; then
		fail "$1: exit $rc, want a run"
	fi
}

# --- ranges (docs/machine.md "Ranges"): bounds checked where they are written -------------------------------
bad "an empty range of a start" "rgstart.kws:11:7: error: empty range '3ms..2ms': its lower bound is above its upper bound" \
	run "$(scn rgstart 'P0 at 3ms..2ms { n++; }')"
bad "an empty range of an irq" "rgirq.kws:11:17: error: empty range '2ms..1999us'" \
	run "$(scn rgirq 'irq I0 @cpu1 at 2ms..1999us { n++; }')"
bad "an empty range of a suspend" "rgsusp.kws:11:12: error: empty range" run "$(scn rgsusp 'suspend at 5ms..4ms;')"
bad "an empty range of an at wait" "rgat.kws:11:9: error: empty range '9ms..1ms'" \
	run "$(scn rgat 'P0 { at 9ms..1ms; }')"
bad "an empty range of a udelay" "rgud.kws:11:13: error: empty range 1000..100: its lower bound is above" \
	run "$(scn rgud 'P0 { udelay(1000..100); }')"
bad "a range's upper bound without a unit" "rgnounit.kws:11:13: error: expected a time such as 5ms, found '30'" \
	run "$(scn rgnounit 'P0 at 20ms..30 { }')"
bad "a range of times in a call" "a time such as '100us' goes after 'at' .*udelay\(100..1000\)" \
	run "$(scn rgudus 'P0 { udelay(100us..1ms); }')"
bad "a computed bound of a range" "rgcomp.kws:11:18: error: a range's bounds are constants" \
	run "$(scn rgcomp 'P0 { udelay(100..n); }')"
bad "a range's bound past msleep's unsigned int" "rgmsmax.kws:11:16: error: argument 1 of msleep is 4294967296 milliseconds, out of range" \
	run "$(scn rgmsmax 'P0 { msleep(5..4294967296); }')"
bad "a range's bound out of a udelay's range" "argument 1 of udelay is -1 microseconds, out of range" \
	run "$(scn rgudneg 'P0 { udelay(-1..5); }')"
bad "a range of truth values" "type error: this is true or false, but a range's bounds are numbers" \
	run "$(scn rgbool 'P0 { udelay(false..true); }')"
bad "a range as a delayed work's delay" "rgqdw.kws:11:39: error: the delay of kthread_queue_delayed_work cannot be a range: it is the API's argument, not a timing, and stays as written" \
	run "$(scn rgqdw 'P0 { kthread_queue_delayed_work(W, D, 1..5); }')"
bad "a range as a mod's delay" "the delay of kthread_mod_delayed_work cannot be a range: it is the API's argument" \
	run "$(scn rgmdw 'P0 { kthread_mod_delayed_work(W, D, 1..5); }')"
bad "a range as another call's argument" "argument 1 of msecs_to_jiffies cannot be a range: only the length of a delay or sleep" \
	run "$(scn rgm2j 'P0 { n = msecs_to_jiffies(1..5); }')"
bad "a range as usleep_range's argument" "argument 1 of usleep_range cannot be a range" \
	run "$(scn rgusr 'P0 { usleep_range(1..5, 10); }')"
bad "a range outside a call" "expected ';', found '..'" run "$(scn rgexpr 'P0 { n = 1..5; }')"
accepted "a range of one value, and the widest ones" "$(scn rgwide 'P0 at 1ms..1ms { ndelay(0..9223372036854775807); n++; }
irq I0 @cpu1 at 0ns..9223372036854775807ns { n++; }
exists (n == 1)')"
accepted "the longest udelay" "$(scn udlong 'P0 { udelay(9223372036854775); n++; }
exists (n == 0)')"
accepted "the longest delay in jiffies" "$(scn qdlong 'P0 { r0 = kthread_queue_delayed_work(W, D, 4611686018427387902); }
exists (0:r0 == true /\ ran(f) == 0)')"

# --- the model's state in conditions; always/never invariants -----------------------------------
bad "timer_pending() of a work" "timer_pending\(\) takes a timer or a delayed_work: 'A' is a work, which has no timer" \
	run "$(scn tpwork 'P0 { }
exists (timer_pending(A))')"
bad "pending() of a worker" "pending\(\) takes a work or delayed_work: 'W' is a worker" \
	run "$(scn pendworker 'P0 { }
exists (pending(W))')"
bad "queued() of nothing declared" "queued\(\) takes a work or delayed_work, found 'Z'" \
	run "$(scn queuednone 'P0 { }
exists (queued(Z))')"
bad "current_work() of a work" "current_work\(\) takes a worker: 'A' is a work" \
	run "$(scn cwwork 'P0 { }
exists (current_work(A) == NULL)')"
bad "current_work() not compared" "current_work\(\) is compared with a work, a delayed_work or NULL: expected '==' or '!='" \
	run "$(scn cwalone 'P0 { }
exists (current_work(W))')"
bad "current_work() compared with a counter" "current_work\(\) takes a work or delayed_work: 'n' is a int" \
	run "$(scn cwcounter 'P0 { }
exists (current_work(W) == n)')"
bad "task_state() of an interrupt" "I0 is an interrupt, not a task" \
	run "$(scn tsirq 'P0 { }
irq I0 @cpu0 at 1ms { }
exists (task_state(I0) == TASK_RUNNING)')"
bad "task_state() of a work" "task_state\(\) takes a thread \(P0\) or a worker's W->task, found 'A'" \
	run "$(scn tswork 'P0 { }
exists (task_state(A) == TASK_RUNNING)')"
bad "task_state() of a worker without ->task" "expected '->task' after the worker" \
	run "$(scn tsworker 'P0 { }
exists (task_state(W) == TASK_RUNNING)')"
bad "a misspelt task state" "expected a task state .*did you mean 'TASK_INTERRUPTIBLE'\?" \
	run "$(scn tsname 'P0 { }
exists (task_state(P0) == TASK_INTERUPTIBLE)')"
bad "a task state compared as a number" "task_state\(\) is compared with a task state, such as TASK_RUNNING" \
	run "$(scn tsnum 'P0 { }
exists (task_state(P0) < 2)')"
bad "a state predicate in a program" "unknown name 'pending'" run "$(scn predstmt 'P0 { r0 = pending(D); }')"
bad "an invariant without brackets" "expected '\(' after never" run "$(scn invnobr 'P0 { }
never canceling(D)')"
bad "an invariant not closed" "expected '\)' to close the invariant" run "$(scn invopen 'P0 { }
always (n == 0 n')"
bad "an invariant of a worker" "type error: 'W' is a worker, not a number or truth value" \
	run "$(scn invworker 'P0 { }
always (W)')"
bad "two conditions" "a scenario has one condition" run "$(scn twoconds 'P0 { }
exists (n == 0)
always (n == 0)
forall (n == 0)')"
bad "an invariant in a program" "expected a program .*an invariant \(always, never\) or the condition" \
	run "$(scn invmissing 'P0 { }
sometimes (n == 0)')"
# --- timers: timer T = fn; mod_timer, del_timer, del_timer_sync, timer_pending(T) -------------
bad "a timer's fn that is a work's" "fn f is a work's function \(line 7\), so it cannot be a timer's callback: the kernel's types differ" \
	run "$(scn timerworkfn 'P0 { }' 'timer T = f;')"
bad "a work's fn that is a timer's" "fn g is a timer's callback \(line 9\), so it cannot be a work's function" \
	run "$(scn worktimerfn 'P0 { }' 'fn g { } timer T = g; work B = g;')"
bad "a timer's fn given to kthread_init_work" "fn g is a timer's callback \(line 9\), so it cannot be a work's function" \
	run "$(scn initworktimerfn 'P0 { kthread_init_work(A, g); }' 'fn g { } timer T = g;')"
bad "a timer's fn given to kthread_init_delayed_work first" "fn g is a work's function \(line 9\), so it cannot be a timer's callback" \
	run "$(scn initdworktimerfn 'P0 { }' 'fn g { } kthread_init_delayed_work(D, g); timer T = g;')"
bad "a timer without a fn" "a timer needs its function: timer T = fn_name;" \
	run "$(scn timernofn 'P0 { }' 'timer T;')"
bad "a timer of a work" "a timer is initialised with a fn name" \
	run "$(scn timerwork 'P0 { }' 'timer T = A;')"
bad "a timer called timer" "expected a name, found 'timer'|'timer' is a keyword" \
	run "$(scn timertimer 'P0 { }' 'int timer = 0;')"
bad "mod_timer of a delayed_work" "type error: argument 1 of mod_timer must be a timer" \
	run "$(scn modtimerdw 'P0 { mod_timer(D, jiffies + 1); }')"
bad "mod_timer with a truth value" "type error: argument 2 of mod_timer must be a number, not true or false" \
	run "$(scn modtimerbool 'P0 { mod_timer(T, true); }' 'fn g { } timer T = g;')"
bad "mod_timer with one argument" "mod_timer takes 2 arguments, not 1" \
	run "$(scn modtimer1 'P0 { mod_timer(T); }' 'fn g { } timer T = g;')"
bad "del_timer of a work" "type error: argument 1 of del_timer must be a timer" \
	run "$(scn deltimerwork 'P0 { del_timer(A); }')"
bad "del_timer_sync of a worker" "type error: argument 1 of del_timer_sync must be a timer" \
	run "$(scn deltimersyncw 'P0 { del_timer_sync(W); }')"
bad "kthread_queue_work of a timer" "type error: argument 2 of kthread_queue_work must be a work" \
	run "$(scn queuetimer 'P0 { kthread_queue_work(W, T); }' 'fn g { } timer T = g;')"
bad "a timer as a value" "type error: 'T' is a timer, not a number or truth value" \
	run "$(scn timervalue 'P0 { n = T; }' 'fn g { } timer T = g;')"
bad "pending() of a timer" "pending\(\) takes a work or delayed_work: 'T' is a timer" \
	run "$(scn pendtimer 'P0 { }
exists (pending(T))' 'fn g { } timer T = g;')"
bad "timer_pending() of a worker" "timer_pending\(\) takes a timer or a delayed_work: 'W' is a worker" \
	run "$(scn tpworker 'P0 { }
exists (timer_pending(W))')"
bad "at in a timer callback" "'at' waits are for programs, not work functions or timer callbacks" \
	run "$(scn attimer 'P0 { }' 'fn g { at 5ms; } timer T = g;')"
bad "a timer declared in a fn body" "missing '}' to close the block opened at line" \
	run "$(scn timerinfn 'P0 { }' 'fn g { timer T = g; }')"
holds "warn() of a call the scenario makes: del_timer_sync in a hard irq" "$(scn irqdelsync 'P0 @cpu0 { mod_timer(T, jiffies + 10); }
irq I0 @cpu1 at 1ms { r0 = del_timer_sync(T); }
exists (I0:r0 == true /\ warn("del_timer_sync") == 1 /\ warn == 1)' 'fn g { } timer T = g;')"
holds "timer_pending() of a timer and of a delayed_work; ran() of a timer" "$(scn tpboth 'P0 @cpu0 { r0 = mod_timer(T, jiffies + 1); r1 = kthread_queue_delayed_work(W, D, 1); }
never (timer_pending(T) /\ timer_pending(D))
exists (r0 == false /\ r1 == true /\ invariant == 1 /\ ~timer_pending(T) /\ ran(T) == 1)' 'fn g { } timer T = g;')"
holds "invariants before and after the condition, a counter called pending" "$(scn invorder 'P0 { kthread_queue_work(W, A); pending = 1; }
always (pending == 0 \/ pending == 1)
exists (pending == 1 /\ ~queued(A) /\ current_work(W) != A /\ task_state(P0) == TASK_DEAD)
never (canceling(A) > 0)' 'int pending = 0;')"
holds "a broken invariant is a finding the condition can count" "$(scn invcount 'P0 { n = 1; n = 2; }
never (n > 0)
always (n < 2)
exists (invariant == 2 /\ n == 2)')"
checks=$((checks + 1))
kw run "$(scn invexit 'P0 { r0 = kthread_queue_work(W, A); kthread_flush_work(A); }
never (running(A))')"
if sane "a broken invariant without a condition"; then
	[ "$rc" -eq 1 ] || fail "a broken invariant without a condition: exit $rc, want 1 (a finding)"
	grep -q "\[1\] invariant at .*(.*invexit.kws:12 never)" "$tmp/out" &&
	grep -q "^      invariant broken: never (running(A))$" "$tmp/out" ||
		fail "a broken invariant without a condition: no finding naming it and its line"
fi

# --- files that cannot be read ------------------------------------------------------------------
bad_noloc "a file that does not exist" "cannot open: No such file or directory" run "$tmp/missing.kws"
bad_noloc "a directory as the file" "cannot read: Is a directory" run "$tmp"
bad_noloc "a directory, replayed" "cannot read: Is a directory" replay "$tmp"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
