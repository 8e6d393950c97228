#!/usr/bin/env bash
# kwsim run / replay on bad input. Every malformed file must give a clean
# "FILE:LINE:COL: error: ..." on stderr and exit 2: never a crash (exit >= 128),
# a hang (killed by timeout: 124) or a leak (in the sanitizer build
# LeakSanitizer reports it at exit, and the status is no longer 2). Files that
# cannot be read at all say "FILE: error: ...", and a schedule that no longer
# fits says so.
# Usage: cli_bad_input.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: cli_bad_input.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
scenarios=$here/../../scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
	[ -s "$tmp/err" ] && sed -n '1,5p' "$tmp/err" | sed 's/^/    /'
}

# kw CMD FILE [ARGS]: run kwsim under a timeout; sets rc, leaves stdout/stderr in $tmp
kw() {
	timeout 20 "$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# The exit status alone rules out crashes, hangs and leaks.
sane() {
	if [ "$rc" -ge 128 ]; then
		fail "$1: crashed (exit $rc)"
	elif [ "$rc" -eq 124 ]; then
		fail "$1: hung (killed after 20 s)"
	elif [ "$rc" -gt 3 ]; then	# 3: a run cut short by a limit
		fail "$1: exit $rc (a sanitizer report?)"
	else
		return 0
	fi
	return 1
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
[ "$rc" -eq 0 ] || fail "the whole of $(basename "$src") does not replay (exit $rc)"

# --- files that are not scenarios -------------------------------------------------------
head -c 4096 /dev/zero >"$tmp/zeros.kws"
bad "NUL bytes" "binary file" run "$tmp/zeros.kws"
{ printf 'KW bin\n{\n  cpus = 2;\n'; printf '\x00\x01\x02\xff\xfe\x80'; } >"$tmp/nul.kws"
bad "NUL after text" "binary file" run "$tmp/nul.kws"
{ printf 'KW bin\n{\n  cpus = 2;\n  '; printf '\xff\xfe\x80\x81'; printf '\n}\n'; } >"$tmp/high.kws"
bad "high bytes" "unexpected byte 0xff" run "$tmp/high.kws"
printf '' >"$tmp/empty.kws"
bad "empty file" "starts with 'KW name'" run "$tmp/empty.kws"
printf 'KW \n{ }\n' >"$tmp/noname.kws"
bad "no name" "name must be" run "$tmp/noname.kws"
{ printf 'KW huge\n(* '; head -c 1100000 /dev/zero | tr '\0' 'x'; printf ' *)\n{ }\n'; } >"$tmp/huge.kws"
bad "a file over 1 MiB" "larger than 1048576 bytes" run "$tmp/huge.kws"
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

# --- scenarios that would run forever stop at max_steps, in seconds ---------------------------
bad "nested loops without calls" "loop rounds: the scenario seems to loop forever" \
	run "$(scn loops 'P0 { repeat (2000000000) repeat (2000000000) n++; }')"
checks=$((checks + 1))
kw run "$(scn spin 'P0 { while (true) { n++; } }' 'max_steps = 1000000;')"
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
bad "decision out of range" "a decision picks one of 2 to 65535 candidates" replay "$tmp/sched1.kws"
sed '/^schedule/,$ s/c1\/2/x1\/2/' "$src" >"$tmp/sched2.kws"
bad "decision of no kind" "expected a decision such as c1/2" replay "$tmp/sched2.kws"
sed '/^schedule/,$ s/c1\/2/c1\/99999999999999999999999/' "$src" >"$tmp/sched3.kws"
bad "decision with a huge count" "a decision picks one of 2 to 65535 candidates" replay "$tmp/sched3.kws"
sed '/^schedule/,$ s/seed = [0-9]*;/colour = 7;/' "$src" >"$tmp/sched4.kws"
bad "unknown schedule setting" "unknown setting 'colour'" replay "$tmp/sched4.kws"

# --- files that cannot be read ------------------------------------------------------------------
bad_noloc "a file that does not exist" "cannot open: No such file or directory" run "$tmp/missing.kws"
bad_noloc "a directory as the file" "cannot read: Is a directory" run "$tmp"
bad_noloc "a directory, replayed" "cannot read: Is a directory" replay "$tmp"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
