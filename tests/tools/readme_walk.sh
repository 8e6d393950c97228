#!/usr/bin/env bash
# README's walk from a scenario to a trace, as a newcomer types it: every
# command of its sh blocks after "## A race, from a scenario to a trace" runs
# (build-release/kwsim being the kwsim under test) in a directory of the
# test's own, from which scenarios/ is the repository's; each exits as the
# README implies (explore 1: it found something; the others 0) and writes
# what the next one reads. The scenario the README shows is the library
# file's, line for line, and every line of the output it shows (but "...")
# is in what explore printed.
# Usage: readme_walk.sh KWSIM README
set -uo pipefail
kwsim=$(realpath "${1:?usage: readme_walk.sh KWSIM README}")
readme=$(realpath "${2:?usage: readme_walk.sh KWSIM README}")
root=$(dirname "$readme")
# shellcheck source=../lib.sh
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$root/scenarios" "$tmp/scenarios"

# block N KIND: the Nth fenced block (from 1) of the walk whose fence says KIND ("sh" or "")
block() {
	awk -v want="$1" -v kind="$2" '
		/^## A race, from a scenario to a trace/ { on = 1; next }
		on && /^## / { exit }
		on && !inside && /^```/ { inside = 1; k = substr($0, 4); if (k == kind) n++; next }
		on && inside && /^```$/ { inside = 0; next }
		on && inside && k == kind && n == want { print }' "$readme"
}

# --- the scenario shown is the library's -----------------------------------------------------------
check
block 1 "" >"$tmp/shown.kws"
file=$(sed -n '/^## A race, from a scenario to a trace/,$p' "$readme" |
	grep -o 'scenarios/races/[a-z0-9.-]*\.kws' | head -1)
if [ ! -s "$tmp/shown.kws" ] || [ ! -f "$root/$file" ]; then
	fail "README's walk shows no scenario, or names no library file ($file)"
else
	while IFS= read -r line; do
		grep -qxF -- "$line" "$root/$file" || fail "README shows '$line', which $file does not have"
	done <"$tmp/shown.kws"
fi

# --- the quick start's run: tools/setup && build-release/kwsim run ... ---------------------------------
cd "$tmp" || exit 1
check
first=$(awk '/^## Quick start/ { on = 1 } on && /^```sh/ { getline; print; exit }' "$readme")
case "$first" in
"tools/setup && build-release/kwsim run "*)
	eval "set -- ${first#tools/setup && build-release/kwsim }"
	"$kwsim" "$@" >"$tmp/quick" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || fail "the quick start's run exits $rc $(kw_status_problem "$rc")"
	# what the README says it prints: the callback's WARN and the run as a trace file
	grep -q 'WARN_ON_ONCE(!worker)' "$tmp/quick" && grep -q '^# tracer: nop' "$tmp/quick" ||
		fail "the quick start's run shows no WARN_ON_ONCE(!worker) or no trace"
	;;
*) fail "README's first command is not 'tools/setup && build-release/kwsim run ...': $first" ;;
esac

# --- every command of the walk, in order ----------------------------------------------------------
n=0
for b in 1 2 3 4; do
	while IFS= read -r cmd; do
		[ -n "$cmd" ] || continue
		n=$((n + 1))
		check
		case "$cmd" in
		build-release/kwsim\ *) ;;
		*) fail "README's walk runs '$cmd', not kwsim"; continue ;;
		esac
		want=0
		case "$cmd" in build-release/kwsim\ explore\ *) want=1 ;; esac
		# the words as a shell reads them (the shrink's glob too), kwsim the one under test
		eval "set -- ${cmd#build-release/kwsim }"
		"$kwsim" "$@" >"$tmp/out.$n" 2>"$tmp/err.$n"
		rc=$?
		p=$(kw_status_problem "$rc")
		[ -z "$p" ] || fail "$cmd: $p"
		[ "$rc" -eq "$want" ] || fail "$cmd: exit $rc, not $want: $(head -3 "$tmp/err.$n")"
	done < <(block "$b" sh)
done
check
[ "$n" -ge 6 ] || fail "README's walk has $n commands, fewer than the six it describes"

# --- what they wrote, and what explore printed ----------------------------------------------------
for f in found/result.txt small.kws small.trace small.html small.json; do
	check
	[ -s "$f" ] || fail "the walk wrote no $f"
done
check
grep -q '^# tracer: nop' small.trace || fail "small.trace is no ftrace trace file"
check
block 2 "" | grep -vxF '  ...' | while IFS= read -r line; do
	# explore names the scenario as it was given, relative here as in the README
	grep -qF -- "$line" "$tmp/out.1" || echo "$line"
done >"$tmp/missing"
[ ! -s "$tmp/missing" ] || fail "README shows explore lines it does not print: $(head -3 "$tmp/missing"); it printed: $(grep -A6 deadlock "$tmp/out.1" | head -12)"

summary
