#!/usr/bin/env bash
# kwsim run's options and what its exit status and output promise: a seed
# means the random strategy; --set gives any setting; one run's Observation
# says only what one run shows; the exit status tells the verdict (0 Ok,
# 1 No) from bad input (2) and from a run cut short by a limit (3); output
# that cannot be written is exit 2 with the reason; text from the scenario
# reaches the terminal with its control characters escaped.
# Usage: cli_run.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: cli_run.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
scenarios=$here/../../scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# expect RC STDERR_REGEX STDOUT_REGEX ARGS...: exit status RC, stderr and stdout matching
# (an empty regex matches anything)
expect() {
	local want_rc=$1 want_err=$2 want_out=$3
	shift 3
	checks=$((checks + 1))
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		fail "kwsim $*: exit $rc, want $want_rc: $(head -3 "$tmp/err")"
	elif [ -n "$want_err" ] && ! grep -qE -- "$want_err" "$tmp/err"; then
		fail "kwsim $*: stderr does not match '$want_err': $(head -3 "$tmp/err")"
	elif [ -n "$want_out" ] && ! grep -qE -- "$want_out" "$tmp/out"; then
		fail "kwsim $*: stdout does not match '$want_out'"
	else
		return 0
	fi
	return 1
}

# scn NAME SETTINGS BODY: a small scenario with these settings in its init block
scn() {
	cat >"$tmp/$1.kws" <<EOF
KW $1
{
  $2
  int n = 0;
  fn f { n++; }
  worker W = kthread_create_worker(0, "kw");
  work A = f;
}
$3
EOF
	echo "$tmp/$1.kws"
}

race=$scenarios/races/queue-vs-flush-running.kws

# --- a seed means the random strategy --------------------------------------------------------
hashes=
for seed in 1 2 3; do
	if expect 0 "" "^kernel mainline, .*strategy random, seed $seed\$" run "$race" --seed "$seed"; then
		hashes="$hashes $(sed -n 's/^Hash=//p' "$tmp/out")"
	fi
done
[ "$(printf '%s\n' $hashes | sort -u | wc -l)" -ge 2 ] ||
	fail "--seed 1, 2 and 3 gave one trace hash ($hashes): the seed did nothing"
expect 2 "^kwsim run: --seed 3: a seed is for the random strategy, and --strategy faithful names another" "" \
	run "$race" --seed 3 --strategy faithful
expect 2 "^kwsim run: --set seed=3: a seed is for the random strategy, and --set strategy=faithful" "" \
	run "$race" --set seed=3 --set strategy=faithful
expect 0 "" "strategy faithful\$" run "$race" --strategy faithful
expect 0 "" "strategy random, seed 1\$" run "$race" --strategy random
# ... in a file too
clean='P0 { kthread_queue_work(W, A); kthread_flush_worker(W); kthread_destroy_worker(W); }'
seeded=$(scn seeded 'seed = 5;' "$clean")
expect 0 "" "strategy random, seed 5\$" run "$seeded"
expect 0 "" "strategy faithful\$" run "$seeded" --strategy faithful
both=$(scn both 'seed = 5; strategy = faithful;' "$clean")
expect 2 "^$both:3:3: error: a seed is for the random strategy; with strategy = faithful it would do nothing" "" \
	run "$both"

# --- --set: any setting, checked as in a file --------------------------------------------------
expect 0 "" "^kernel v4.9, 4 cpus, HZ=100, preempt full, strategy faithful\$" \
	run "$race" --set kernel=v4.9 --set cpus=4 --set hz=100 --set preempt=full
expect 2 "^kwsim run: --set cpu=4: unknown setting 'cpu'; did you mean 'cpus'\?" "" run "$race" --set cpu=4
expect 2 "^kwsim run: --set cost.lokc=4ns: unknown setting 'cost.lokc'; did you mean 'cost.lock'\?" "" \
	run "$race" --set cost.lokc=4ns
expect 2 "^kwsim run: --set cpus: expected NAME=VALUE" "" run "$race" --set cpus
expect 2 "^kwsim run: --set hz=fast: expected a number for hz" "" run "$race" --set hz=fast
expect 2 "^kwsim run: --set cpus=65: cpus out of range" "" run "$race" --set cpus=65
expect 2 "^kwsim run: --set time_limit=5: time_limit is a time" "" run "$race" --set time_limit=5
expect 2 "^kwsim run: --set preempt=some: preempt must be none, voluntary or full, not 'some'" "" \
	run "$race" --set preempt=some
expect 2 "^kwsim run: --set kernel=tree:no-such-tree: no kernel variant 'tree:no-such-tree': this kwsim has v4.9, mainline" "" \
	run "$race" --set kernel=tree:no-such-tree
expect 2 "^$race:[0-9]+:[0-9]+: error: P1 is on cpu1, which does not exist: the run has 1 CPU\$" "" \
	run "$race" --set cpus=1
expect 2 "^kwsim replay: option --set does not apply to a replay" "" replay "$race" --set cpus=2

# --- one run observes, or does not -------------------------------------------------------------
expect 0 "" "^Observation seen Observed\$" run "$(scn seen '' 'P0 { kthread_queue_work(W, A); kthread_flush_worker(W); }
exists (n == 1)')"
expect 1 "" "^Observation unseen Not observed\$" run "$(scn unseen '' 'P0 { kthread_queue_work(W, A); kthread_flush_worker(W); }
exists (n == 2)')"
expect 0 "" "^Observation forbidden Not observed\$" run "$(scn forbidden '' 'P0 { kthread_queue_work(W, A); kthread_flush_worker(W); }
~exists (n == 2)')"
grep -qE '^Observation .* (Always|Sometimes|Never)' "$tmp/out" &&
	fail "one run printed herd7's Always/Sometimes/Never"

# --- exit status: 0 Ok, 1 No, 2 bad input, 3 cut short --------------------------------------------
endless='P0 { while (true) { kthread_queue_work(W, A); msleep(1); } }
exists (n > 0)'
expect 3 "" "^End: time-limit .*" run "$(scn timelimit 'time_limit = 50ms;' "$endless")"
grep -q '^Partial: the run stopped at its time-limit' "$tmp/out" ||
	fail "a run cut short by time_limit does not say its verdict is partial"
grep -q '^Ok$' "$tmp/out" || fail "a run cut short still prints its verdict (Ok)"
expect 3 "" "^End: step-limit " run "$(scn steplimit 'max_steps = 2000;' "$endless")"
expect 3 "" "^End: decision-limit " run "$race" --seed 2 --set max_decisions=3
expect 3 "" "^Test steplimit: no condition; the run was cut short by a limit" \
	run "$(scn steplimit 'max_steps = 2000;' 'P0 { while (true) { kthread_queue_work(W, A); msleep(1); } }')"
# a deadlock ends the run, it does not cut it short: the condition names it, the verdict decides
expect 0 "" "^End: deadlock " run "$scenarios/races/flush-from-own-worker.kws"
sed 's/^exists (/~exists (/' "$scenarios/races/flush-from-own-worker.kws" >"$tmp/no-deadlock.kws"
expect 1 "" "^End: deadlock " run "$tmp/no-deadlock.kws"
expect 2 "error: " "" run "$(scn broken '' 'P0 { kthread_queue_wrok(W, A); }')"
expect 0 "" "^Test clean: no condition; nothing found" run "$(scn clean '' "$clean")"
expect 1 "" "^Test found: no condition; findings reported" \
	run "$(scn found '' 'P0 { kthread_queue_work(W, A); kthread_destroy_worker(W); kthread_queue_work(W, A); }')"

# --- control characters from the scenario are escaped; UTF-8 passes through --------------------
esc=$'\e'
printf 'KW esc\e[2Jname\n{\n  fn f { log("red \e[31mX\e[0m\ttab caf\xc3\xa9 \xe2\x80\xae bad\xff"); }\n  worker W = kthread_create_worker(0, "k\aw");\n  work A = f;\n}\nP0 { kthread_queue_work(W, A); kthread_flush_worker(W); kthread_destroy_worker(W); }\nexists (ran(f) == 1)\n' \
	>"$tmp/esc.kws"
if expect 0 "" "" run "$tmp/esc.kws"; then
	checks=$((checks + 1))
	if LC_ALL=C grep -q "[$esc$(printf '\a\t')]" "$tmp/out"; then
		fail "a raw control character reached the output"
	fi
	for want in 'kwsim: esc\x1b[2Jname (' 'log: red \x1b[31mX\x1b[0m\ttab café \xe2\x80\xae bad\xff' \
		    'k\x07w' 'Test esc\x1b[2Jname Allowed' 'Observation esc\x1b[2Jname Observed'; do
		grep -qF -- "$want" "$tmp/out" || fail "the output lacks '$want'"
	done
fi

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
