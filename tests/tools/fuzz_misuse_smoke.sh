#!/usr/bin/env bash
# kwsim fuzz --misuse on campaigns that once crashed kwsim (exit 139): a
# program that breaks the contract makes the kernel do what it would, and
# kwsim reports it. Mainline, seed 3: its first program reinitialises a
# delayed work while it is being cancelled; the cancel unlocks &NULL->lock,
# the kernel's oops (model/README.md, Deliberate departures). Bounded by
# --runs; a finding exits 1.
# Usage: fuzz_misuse_smoke.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: fuzz_misuse_smoke.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"

run fuzz --kernel mainline --runs 1 --seed 3 --misuse --out "$tmp/found" >"$tmp/out.txt" 2>"$tmp/err.txt"
check
[[ $rc == 1 ]] || fail "mainline seed 3: exit $rc, want 1 (findings)"
check
grep -q 'BUG: kernel NULL pointer dereference' "$tmp/out.txt" ||
	fail "mainline seed 3: no NULL pointer dereference finding"
check
shopt -s nullglob
files=("$tmp"/found/*-bug-kthread_cancel_delayed_work_timer.kws)
[[ ${#files[@]} -gt 0 ]] || fail "mainline seed 3: no file for the oops"
for file in "${files[@]}"; do
	# the shrunk program replays to the same oops
	run replay "$file" >"$tmp/replay.txt" 2>&1
	check
	grep -q 'NULL pointer dereference' "$tmp/replay.txt" || fail "$file: its replay shows no oops"
done

# --json: the same campaign, a summary that parses
run fuzz --kernel mainline --runs 1 --seed 3 --misuse --json >"$tmp/out.json" 2>/dev/null
check
[[ $rc == 1 ]] || fail "mainline seed 3 --json: exit $rc, want 1"
check
/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out.json" 2>/dev/null ||
	fail "mainline seed 3 --json: not JSON"

summary
