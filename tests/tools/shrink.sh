#!/usr/bin/env bash
# kwsim shrink on replay files: every race of the library with a schedule
# section, and a race padded with statements, a program and declarations it
# does not need, run with a seed that shows its deadlock and saved. For each:
# the shrunk file shows the same target when replayed (the finding's kind,
# context and kernel function:line in the replay's findings, or the
# condition's positive witness), as the original's replay does; two replays
# print the same bytes and the same text trace; the bug depth and the size
# did not grow, the deviations shrank, and the padding is gone; shrinking
# again gives the same bytes. Then a file of explore --out (its named finding
# kept), --finding, --budget, standard output, a
# shrunk file shrunk again, and bad input: exit 2 with
# "file:line:col: error: ..." or "kwsim shrink: ...", nothing on stdout.
# Usage: shrink.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: shrink.sh KWSIM}")
here=$(cd "$(dirname "$0")" && pwd)
races=$here/../../scenarios/races
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# num JSON SECTION FIELD: a number of the --json summary's SECTION object
num() {
	sed -E "s/.*\"$2\":\\{[^}]*\"$3\":([0-9]+).*/\\1/" "$1"
}

# shows FILE TARGET [run]: a replay of FILE (with run: its faithful run)
# shows TARGET ("KIND FUNC:LINE CONTEXT", or "condition" for an exists
# condition's witness)
shows() {
	local file=$1 target=$2 kind func line ctx
	"$kwsim" "${3:-replay}" "$file" >"$tmp/shows" 2>&1
	if [ "$target" = condition ]; then
		grep -qx "Positive: 1 Negative: 0" "$tmp/shows"
		return
	fi
	read -r kind site ctx <<<"$target"
	func=${site%:*}
	line=${site##*:}
	awk -v k="$kind" -v f="$func)" -v l=":$line" -v c="$ctx" '
		$1 ~ /^\[[0-9]+\]$/ && $2 == k && $3 == "at" && $6 == c &&
		substr($7, length($7) - length(l) + 1) == l && $8 == f { found = 1 }
		END { exit !found }' "$tmp/shows"
}

# shrink_file IN NAME: shrink IN to $tmp/NAME.kws (summary $tmp/NAME.json) and check it
shrink_file() {
	local in=$1 name=$2 out=$tmp/$2.kws json=$tmp/$2.json target kept rc f
	checks=$((checks + 1))
	"$kwsim" shrink "$in" --out "$out" --json >"$json" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name: kwsim shrink exited $rc $(kw_status_problem "$rc"): $(head -3 "$tmp/err")"
		return 1
	fi
	target=$(sed -E 's/.*"target":"([^"]*)".*/\1/' "$json")
	kept=$(sed -E 's/.*"kept":"([^"]*)".*/\1/' "$json")
	# the checker sees the target in the original, and in the shrunk file
	shows "$in" "$target" || fail "$name: the original's replay does not show '$target'"
	shows "$out" "$kept" || fail "$name: the shrunk file's replay does not show '$kept'"
	# replays: the same bytes, the same trace, the same status
	(cd "$tmp" && "$kwsim" replay "$out" --trace text -o "$tmp/t1" >"$tmp/r1" 2>&1; echo $? >"$tmp/rc1")
	(cd "$tmp" && "$kwsim" replay "$out" --trace text -o "$tmp/t2" >"$tmp/r2" 2>&1; echo $? >"$tmp/rc2")
	if ! cmp -s "$tmp/r1" "$tmp/r2" || ! cmp -s "$tmp/t1" "$tmp/t2" || ! cmp -s "$tmp/rc1" "$tmp/rc2"; then
		fail "$name: two replays of the shrunk file differ"
	elif [ "$(cat "$tmp/rc1")" -gt 1 ]; then
		fail "$name: the replay exited $(cat "$tmp/rc1"): $(grep error "$tmp/r1" | head -2)"
	fi
	# the depth and the size did not grow; the deviations shrank
	for f in deviations preemptions statements programs declarations; do
		[ "$(num "$json" after $f)" -le "$(num "$json" before $f)" ] ||
			fail "$name: $f grew from $(num "$json" before $f) to $(num "$json" after $f)"
	done
	[ "$(num "$json" after deviations)" -lt "$(num "$json" before deviations)" ] ||
		fail "$name: the deviations did not shrink ($(num "$json" before deviations))"
	[ "$(num "$json" depth deviations)" -eq "$(num "$json" after deviations)" ] ||
		fail "$name: the depth is not the deviations after"
	# depth 0: the faithful run of the shrunk scenario shows the target; a depth
	# above 0 said to be the fewest: it does not
	sed '/^schedule {/,$d' "$out" >"$tmp/faithful.kws"
	if [ "$(num "$json" depth deviations)" -eq 0 ]; then
		shows "$tmp/faithful.kws" "$kept" run || fail "$name: depth 0, but the faithful run does not show it"
	elif grep -q '"minimal":true' "$json"; then
		! shows "$tmp/faithful.kws" "$kept" run || fail "$name: the faithful run shows it, yet the depth is not 0"
	fi
	# the same input, the same bytes
	"$kwsim" shrink "$in" --out "$out.again" >/dev/null 2>&1
	cmp -s "$out" "$out.again" || fail "$name: shrinking twice gave two files"
	echo "$name: $target: $(num "$json" before deviations) -> $(num "$json" after deviations)" \
	     "deviations, $(num "$json" before preemptions) -> $(num "$json" after preemptions)" \
	     "preemptions, $(num "$json" before statements) -> $(num "$json" after statements)" \
	     "statements, $(sed -E 's/.*"runs":([0-9]+).*/\1/' "$json") runs"
}

# --- the library's replay files -----------------------------------------------------------------
for file in "$races"/*.kws; do
	grep -q '^schedule' "$file" || continue
	shrink_file "$file" "$(basename "$file" .kws)"
done

# --- a race padded with what it does not need, saved from a seed that deadlocks ------------------
cat >"$tmp/padded.kws" <<'EOF'
KW mod-delayed-work-vs-cancel-padded
(* scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws with statements, a
   program and declarations that its deadlock does not need. *)
{
  cpus = 3;
  kernel = v4.9;
  int done = 0;
  int extra = 0;
  fn f { udelay(300); }
  fn g { extra++; }
  worker W = kthread_create_worker_on_cpu(2, 0, "kw/2");
  work A = g;
  delayed_work D = f;
}
P0 @cpu0 {
  log("P0 begins");
  r0 = kthread_queue_delayed_work(W, D, 0);
  extra = extra + 1; if (extra > 5) { udelay(1); } else extra--;
  udelay(100);
  r1 = kthread_mod_delayed_work(W, D, 5);
}
P1 @cpu1 at 100us {
  r2 = kthread_cancel_delayed_work_sync(D);
  done = 1;
}
P2 @cpu0 at 10ms {
  repeat (3) { extra += 2; }
}
exists (0:r0 == true /\ 0:r1 == false /\ done == 0 /\ deadlock)
EOF
seed=""
for s in $(seq 1 300); do
	"$kwsim" run "$tmp/padded.kws" --seed "$s" >"$tmp/out" 2>&1
	if grep -q '^  \[[0-9]*\] deadlock at ' "$tmp/out"; then
		seed=$s
		break
	fi
done
checks=$((checks + 1))
if [ -z "$seed" ]; then
	fail "no seed from 1 to 300 shows the padded race's deadlock"
else
	"$kwsim" run "$tmp/padded.kws" --seed "$seed" --save-schedule "$tmp/padded-$seed.kws" >/dev/null 2>&1
	if shrink_file "$tmp/padded-$seed.kws" padded-shrunk; then
		# the scenario part, before the shrinker's comment: the padding is gone
		sed '/^(\* kwsim shrink:/,$d' "$tmp/padded-shrunk.kws" >"$tmp/scn-part"
		for gone in extra 'log(' 'P2 ' 'fn g' 'work A' 'done = 1'; do
			checks=$((checks + 1))
			! grep -qF "$gone" "$tmp/scn-part" || fail "padded: '$gone' is still there"
		done
		# whole lines went, and the rest is as written
		checks=$((checks + 1))
		grep -q ' $' "$tmp/scn-part" && fail "padded: a line ends in a blank"
		grep -qx '  r1 = kthread_mod_delayed_work(W, D, 5);' "$tmp/scn-part" ||
			fail "padded: the statements left are not as written"
	fi
fi

# --- a finding at a scenario line: its line moves as the lines above it go -------------------------
cat >"$tmp/sleepy.kws" <<'EOF'
KW sleepy
{
  cpus = 2; hz = 250;
  int x = 0;
}
P0 @cpu0 {
  x = 1;
  log("a");
  udelay(5);
  local_irq_disable(); msleep(1); local_irq_enable();
  msleep(1500);
}
P1 @cpu1 { x = 2; udelay(3); }
EOF
"$kwsim" run "$tmp/sleepy.kws" --seed 3 --save-schedule "$tmp/sleepy-saved.kws" >/dev/null
if shrink_file "$tmp/sleepy-saved.kws" sleepy-shrunk; then
	checks=$((checks + 1))
	grep -q '"target":"might_sleep msleep:10 P0","kept":"might_sleep msleep:[1-9] P0"' \
		"$tmp/sleepy-shrunk.json" ||
		fail "sleepy: the finding's line did not move up with the lines cut: $(cat "$tmp/sleepy-shrunk.json")"
fi

# --- the search proves a depth of 1 the fewest: the mainline timer vs cancel witness -------------
checks=$((checks + 1))
grep -q '"depth":{"deviations":1,"preemptions":0,"minimal":true}' \
	"$tmp/timer-callback-vs-cancel-delayed-work-sync-mainline.json" ||
	fail "the mainline timer vs cancel witness: not depth 1, the fewest: $(cat "$tmp/timer-callback-vs-cancel-delayed-work-sync-mainline.json")"

# --- what to keep: --finding N, a finding's key, the condition -----------------------------------
lib=$races/mod-delayed-work-vs-cancel-v4.9.kws
# (the first finding: the contract oracles' cancel-block, where the race happens; the
# deadlock it leads to is the second)
for which in 1 'contract kthread_cancel_delayed_work_sync:29 P0'; do
	checks=$((checks + 1))
	"$kwsim" shrink "$lib" --finding "$which" --out "$tmp/which.kws" >/dev/null 2>"$tmp/err" &&
		cmp -s "$tmp/which.kws" "$tmp/mod-delayed-work-vs-cancel-v4.9.kws" ||
		fail "--finding '$which' did not give what the first finding gives: $(head -2 "$tmp/err")"
done
checks=$((checks + 1))
if "$kwsim" shrink "$lib" --finding condition --out "$tmp/cond.kws" --json >"$tmp/cond.json" 2>"$tmp/err"; then
	grep -q '"target":"condition"' "$tmp/cond.json" || fail "--finding condition: the target is not the condition"
	shows "$tmp/cond.kws" condition || fail "--finding condition: the replay is no witness"
else
	fail "--finding condition: $(head -2 "$tmp/err")"
fi

# --- a file of explore --out: its own finding, though its run shows another first -----------------
checks=$((checks + 1))
"$kwsim" explore "$races/mod-delayed-work-vs-cancel-v4.9.kws" --kernel v4.9 --runs 30 \
	--out "$tmp/explored" >/dev/null 2>&1
named=$(ls "$tmp"/explored/v4.9-deadlock-kthread_flush_work-*.kws 2>/dev/null | head -1)
if [ -z "$named" ]; then
	fail "explore --out (30 runs) wrote no deadlock file to shrink"
elif ! "$kwsim" shrink "$named" --out "$tmp/named.kws" --json >"$tmp/named.json" 2>"$tmp/err"; then
	fail "shrink of explore's deadlock file: $(head -2 "$tmp/err")"
else
	# the key its comment names: "deadlock kthread_flush_work:LINE P1"
	key=$(sed -n 's/^(\* Found by kwsim explore: \(deadlock [^ ]* P1\) @ .*/\1/p' "$named")
	[ -n "$key" ] || fail "explore's deadlock file names no deadlock of P1 in its comment"
	grep -qF "\"target\":\"$key\"" "$tmp/named.json" ||
		fail "shrink of explore's deadlock file kept another target: $(grep -o '"target":"[^"]*"' "$tmp/named.json")"
	shows "$tmp/named.kws" "$key" || fail "the shrunk deadlock file's replay shows no '$key'"
fi

# --- the budget bounds the runs; what it leaves still shows the target ---------------------------
checks=$((checks + 1))
if "$kwsim" shrink "$lib" --budget 4 --out "$tmp/budget.kws" --json >"$tmp/budget.json" 2>"$tmp/err"; then
	runs=$(sed -E 's/.*"runs":([0-9]+).*/\1/' "$tmp/budget.json")
	[ "$runs" -le 6 ] || fail "--budget 4 made $runs runs (the budget, the final run and its replay: 6)"
	grep -q '"budget_spent":true' "$tmp/budget.json" || fail "--budget 4: the budget is not said to be spent"
	shows "$tmp/budget.kws" 'contract kthread_cancel_delayed_work_sync:29 P0' || fail "--budget 4: the target is lost"
else
	fail "--budget 4: $(head -2 "$tmp/err")"
fi

# --- without --out: the file on stdout, the summary on stderr --------------------------------------
checks=$((checks + 1))
"$kwsim" shrink "$lib" >"$tmp/stdout.kws" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/stdout.kws" "$tmp/mod-delayed-work-vs-cancel-v4.9.kws"; then
	fail "without --out: exit $rc, or stdout is not the shrunk file"
elif ! grep -q '^bug depth 2: 2 deviations from the faithful schedule, 0 preemptions (the fewest)$' "$tmp/err"; then
	fail "without --out: the summary on stderr lacks the bug depth: $(head -3 "$tmp/err")"
fi

# --- a shrunk file shrunk again: its comment replaced, its depth kept ------------------------------
checks=$((checks + 1))
"$kwsim" shrink "$tmp/mod-delayed-work-vs-cancel-v4.9.kws" --out "$tmp/twice.kws" --json >"$tmp/twice.json" 2>"$tmp/err"
if [ "$(grep -c '^(\* kwsim shrink:' "$tmp/twice.kws")" -ne 1 ]; then
	fail "shrunk twice: not exactly one shrinker's comment"
elif [ "$(num "$tmp/twice.json" after deviations)" -gt "$(num "$tmp/twice.json" before deviations)" ]; then
	fail "shrunk twice: the depth grew"
elif ! diff <(sed '/^(\* kwsim shrink:/,/\*)$/d' "$tmp/twice.kws") \
	    <(sed '/^(\* kwsim shrink:/,/\*)$/d' "$tmp/mod-delayed-work-vs-cancel-v4.9.kws") >/dev/null; then
	fail "shrunk twice: a shrunk file is not its own shrinking"
fi

# --- bad input: exit 2, the message on stderr, nothing on stdout -----------------------------------
# bad WANT ARGS...: kwsim shrink ARGS exits 2 and says WANT (a fixed string) on stderr
bad() {
	local want=$1 problem
	shift
	checks=$((checks + 1))
	"$kwsim" shrink "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	problem=$(kw_status_problem "$rc")
	if [ -n "$problem" ] || [ "$rc" -ne 2 ]; then
		fail "shrink $*: exit $rc $problem, want 2: $(head -3 "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "shrink $*: printed on stdout"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		fail "shrink $*: stderr does not say '$want': $(head -3 "$tmp/err")"
	fi
}
bad "kwsim shrink: needs a replay file (kwsim run --save-schedule writes one) (try 'kwsim help')"
bad "kwsim shrink: unknown option '--frob' (try 'kwsim help')" "$lib" --frob
bad "kwsim shrink: --budget wants a number of runs, 1 or more, not '0'" "$lib" --budget 0
bad "kwsim shrink: --budget wants a number of runs, 1 or more, not 'many'" "$lib" --budget many
bad "kwsim shrink: --budget wants a number of runs, 1 or more, not '99999999999999999999999'" \
	"$lib" --budget 99999999999999999999999
bad "kwsim shrink: option --out needs a value" "$lib" --out
bad "kwsim shrink: with --json, write the shrunk file with --out" "$lib" --json
bad "kwsim shrink: one replay file at a time, not also 'b.kws'" a.kws b.kws
bad "nope.kws: error: cannot open" nope.kws
bad "$races/delayed-timer-vs-reinit.kws:1:1: error: nothing to shrink: the file has no schedule section" \
	"$races/delayed-timer-vs-reinit.kws"
bad "kwsim shrink: $lib: the run shows 2 findings, no finding 3" "$lib" --finding 3
bad "kwsim shrink: $lib: the run shows no finding 'warn nowhere:1 P0'" "$lib" --finding 'warn nowhere:1 P0'
printf 'KW broken\n{ cpus = ; }\n' >"$tmp/broken.kws"
bad "$tmp/broken.kws:2:10: error: " "$tmp/broken.kws"
# a log that no longer follows the strategy it names
sed -E '/decisions \{/{n;s/c0\/2/c1\/2/}' "$lib" >"$tmp/liar.kws"
bad "$tmp/liar.kws: error: the schedule no longer fits the scenario: decision 0:" "$tmp/liar.kws"
# a run that shows nothing: no finding, its condition not seen
printf 'KW nothing\n{ int n = 0; }\nP0 { n = 1; }\nexists (n == 2)\n' >"$tmp/nothing.kws"
"$kwsim" run "$tmp/nothing.kws" --save-schedule "$tmp/nothing-saved.kws" >/dev/null
bad "kwsim shrink: $tmp/nothing-saved.kws: the run is no witness of its condition (exists not seen, forall or ~exists not broken), and the run shows no finding: nothing to keep" \
	"$tmp/nothing-saved.kws"
bad "kwsim shrink: cannot write $tmp/no/such/dir.kws: No such file or directory" "$lib" --out "$tmp/no/such/dir.kws"

# --- help -----------------------------------------------------------------------------------------
checks=$((checks + 1))
"$kwsim" shrink --help >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
	head -1 "$tmp/out" | grep -q '^usage: kwsim shrink FILE' || fail "kwsim shrink --help"
checks=$((checks + 1))
# the whole help first: grep -q leaving early would make kwsim's write fail (pipefail)
help_text=$("$kwsim" help)
grep -qE '^  shrink FILE' <<<"$help_text" || fail "kwsim help does not list shrink"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
