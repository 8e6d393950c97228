#!/usr/bin/env bash
# Ranges (docs/machine.md "Ranges"): times written as ranges round-trip. The
# time-faithful run takes every lower bound and says so in "What ran"; a
# run with a seed draws values, its saved schedule holds them as 'r'
# decisions and replays byte for byte (stdout and text trace), and the JSON
# and HTML carry the values; explore's replay file and token show the run found,
# shards merged give the one-process summary and files, and a shrunk file
# still shows the race, with its range's value no higher than before; a log
# whose range does not fit the scenario diverges. The HTML page carries the
# values too. Bounded by runs.
# Usage: ranges.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: ranges.sh KWSIM}")	# the runs cd
here=$(cd "$(dirname "$0")" && pwd)
ranges=$here/../../scenarios/ranges
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run" "$tmp/replay"

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}
check() { checks=$((checks + 1)); "$@"; }

# kw ARGS: run kwsim, stdout in $tmp/out, stderr in $tmp/err, status in rc
kw() {
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	local problem
	problem=$(kw_status_problem "$rc")
	[ -z "$problem" ] || fail "kwsim $*: $problem"
}

every=every-kind-of-range.kws
race=mod-delayed-work-vs-cancel-v4.9-range.kws
cp "$ranges/$every" "$tmp/run/$every"
# the race without its schedule: runs and campaigns of the scenario as written
sed '/^schedule {/,$d' "$ranges/$race" >"$tmp/run/$race"

# --- the faithful run takes the lower bounds and names them --------------------------------------
kw run "$tmp/run/$every"
for want in 'P0 starts (at 0 of 0..2ms)' 'irq I0 (at 1ms of 1ms..15ms)' 'suspend at 40ms of 40ms..45ms' \
	    'resume at 60ms of 60ms..70ms' 'msleep(1) of 1..10' 'at 20ms of 20ms..30ms' \
	    'udelay(10) of 10..200' 'ndelay(100) of 100..5000' 'mdelay(1) of 1..3' \
	    'msleep_interruptible(0) of 0..2' 'P1 starts (at 80ms of 80ms..100ms)'; do
	check grep -qF -- "$want" "$tmp/out" || fail "the faithful run does not say '$want'"
done

# --- a seed draws values; the saved schedule replays them byte for byte ----------------------------
for seed in 3 17 40; do
	for name in "$every" "$race"; do
		checks=$((checks + 1))
		(cd "$tmp/run" && "$kwsim" run "$name" --seed "$seed" --trace text -o trace \
			--save-schedule "../replay/$name" >out 2>err)
		rc_run=$?
		(cd "$tmp/replay" && "$kwsim" replay "$name" --trace text -o trace >out 2>err)
		rc_rep=$?
		if [ "$rc_run" -gt 1 ] || [ "$rc_rep" -ne "$rc_run" ]; then
			fail "$name, seed $seed: run exit $rc_run, replay exit $rc_rep: $(head -2 "$tmp/replay/err")"
		elif ! cmp -s "$tmp/run/out" "$tmp/replay/out" || ! cmp -s "$tmp/run/trace" "$tmp/replay/trace"; then
			fail "$name, seed $seed: the replay differs from the run"
			diff "$tmp/run/out" "$tmp/replay/out" | head -6
		elif ! grep -qE ' r[0-9]+/65535 ' "$tmp/replay/$name"; then
			fail "$name, seed $seed: the saved schedule has no range decision"
		fi
	done
	# the values differ from the lower bounds, and the JSON carries them
	kw run "$tmp/run/$every" --seed "$seed"
	start=$(grep -o 'P0 starts (at [^)]*)' "$tmp/out")
	check grep -qE 'P0 starts \(at [0-9.]+(ns|us|ms) of 0..2ms\)' "$tmp/out" ||
		fail "seed $seed: P0's start is not a value of its range: $(grep 'P0 starts' "$tmp/out")"
	kw run "$tmp/run/$every" --seed "$seed" --json
	at=${start#P0 starts (at }
	check grep -qF "\"event\":\"start\",\"program\":\"P0\",\"at\":\"${at%)}\"" "$tmp/out" ||
		fail "seed $seed: the JSON does not carry P0's start as the summary names it ($start)"
done
# ... and so does the HTML page (kwsim export; kwsim serve's page is the same)
kw export "$tmp/run/$every" --seed 40 --html "$tmp/page.html"
check grep -qF "$start" "$tmp/page.html" || fail "the HTML page does not carry P0's start ($start)"

# --- a log whose range does not fit: the replay diverges ------------------------------------------
sed -E '/decisions \{/{n;s/r([0-9]+)\/65535/r0\/901/}' "$tmp/replay/$every" >"$tmp/misfit.kws"
kw replay "$tmp/misfit.kws"
check [ "$rc" -eq 2 ] && grep -q "the log has 901 candidates, the run has 65535" "$tmp/err" ||
	fail "a range decision with another n: exit $rc: $(head -2 "$tmp/err")"

# --- explore: the race found; its replay file and its token show the same run ----------------------
kw explore "$tmp/run/$race" --strategy random --runs 1000 --seed 1 --out "$tmp/one"
cp "$tmp/out" "$tmp/one.txt"
token=$(grep -A4 '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" | sed -n 's/^      token //p')
file=$(grep -A6 '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" | sed -n 's/^      replay file //p')
if check [ -n "$token" ] && [ -n "$file" ]; then
	kw replay "$tmp/one/$file"
	check grep -q '^Observation .* Observed$' "$tmp/out" || fail "explore's replay file does not show the race"
	grep -o 'P1 starts (at [^)]*)' "$tmp/out" >"$tmp/shrunk-start"
	kw explore "$tmp/run/$race" --token "$token" --save-schedule "$tmp/tok.kws"
	check grep -q '^Observation .* Observed$' "$tmp/out" || fail "the token's run does not show the race"
	grep -o 'P1 starts (at [^)]*)' "$tmp/out" >"$tmp/token-start"
	"$kwsim" replay "$tmp/tok.kws" >"$tmp/tokrep" 2>&1
	check cmp -s <(tail -n +2 "$tmp/out") <(tail -n +2 "$tmp/tokrep" | sed "s|$tmp/tok.kws|$tmp/run/$race|g") ||
		fail "the token's saved schedule replays another run than the token's"
	# shrinking brought the range's value down, or kept it
	v_tok=$(sed -E 's/.*at ([0-9.]+)us of.*/\1/' "$tmp/token-start")
	v_shr=$(sed -E 's/.*at ([0-9.]+)us of.*/\1/' "$tmp/shrunk-start")
	check awk -v a="$v_shr" -v b="$v_tok" 'BEGIN { exit !(a + 0 <= b + 0 && a + 0 > 0) }' ||
		fail "the shrunk replay file's start ($v_shr us) is above the found run's ($v_tok us)"
	# kwsim shrink on the token's schedule keeps the race
	kw shrink "$tmp/tok.kws" --out "$tmp/shrunk.kws" --budget 300 --finding condition
	kw replay "$tmp/shrunk.kws"
	check grep -q '^Observation .* Observed$' "$tmp/out" || fail "kwsim shrink's file does not show the race"
else
	fail "explore found no race with the range in 1000 runs (seed 1)"
fi

# --- shards merged: the one-process summary and files ---------------------------------------------
kw explore "$tmp/run/$race" --strategy random --runs 1000 --seed 1 --shard 0/2 --out "$tmp/s0"
kw explore "$tmp/run/$race" --strategy random --runs 1000 --seed 1 --shard 1/2 --out "$tmp/s1"
kw merge "$tmp/s0" "$tmp/s1"
check cmp -s "$tmp/out" "$tmp/one.txt" ||
	fail "2 shards merged differ from 1 run: $(diff "$tmp/one.txt" "$tmp/out" | head -6)"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
