#!/bin/sh
# abort_on.sh FUZZ_SCHEDULE SEEDS: KWSIM_FUZZ_ABORT_ON turns the chosen
# finding kind, and only it, into a crash, and the decisions of an input
# choose the schedule. mod-delayed-work-vs-cancel-v4.9's schedule section
# reaches the deadlock of 4.9's kthread_mod_delayed_work(); the faithful
# schedule (its index alone, no decisions) does not.
set -u
target=$1 seeds=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/kwsim-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
	echo "abort_on.sh: $*" >&2
	exit 1
}
seed=$(ls "$seeds"/race-*-mod-delayed-work-vs-cancel-v4.9) || fail "no seed for the race"
"$target" "$seed" >"$work/out" 2>&1 || fail "a finding crashed with no KWSIM_FUZZ_ABORT_ON"
KWSIM_FUZZ_ABORT_ON=warn,hung "$target" "$seed" >"$work/out" 2>&1 ||
	fail "another kind's finding crashed: $(grep 'kwsim fuzz' "$work/out")"
KWSIM_FUZZ_ABORT_ON=warn,deadlock "$target" "$seed" >"$work/out" 2>&1 &&
	fail "the deadlock did not abort"
grep -q '^kwsim fuzz: finding deadlock at model/v4.9/kthread_worker.c' "$work/out" ||
	fail "no deadlock report: $(tail -n 5 "$work/out")"
head -c 1 "$seed" >"$work/faithful"
KWSIM_FUZZ_ABORT_ON=deadlock "$target" "$work/faithful" >"$work/out" 2>&1 ||
	fail "the faithful schedule deadlocked: $(grep 'kwsim fuzz' "$work/out")"
rc=0
KWSIM_FUZZ_ABORT_ON=warn,nonsense "$target" "$seed" >"$work/out" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "an unknown kind exited $rc, not 2"
grep -q "KWSIM_FUZZ_ABORT_ON: unknown finding kind 'nonsense'" "$work/out" ||
	fail "no message for an unknown kind"
echo "abort_on.sh: ok"
