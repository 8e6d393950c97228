#!/usr/bin/env bash
# The scheduler's and the spinlock's choices (scenarios/kernel/): the
# faithful run gives the kernel's usual answer, and random runs over a
# bounded set of seeds give every answer the kernel could, and no other.
# Usage: sched_choices.sh KWSIM SCENARIOS_DIR
set -uo pipefail
kwsim=$1 dir=$2
seeds=40
failures=0 checks=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# The States line's values of one run: "P0:r0=1; P0:r1=0;" and the like.
state() {
	"$kwsim" run "$@" 2>&1 | grep -E '^([A-Za-z0-9_]+:)?[a-z0-9_]+=[0-9-]+; ' | head -1
}

# expect_states DESCRIPTION WANT FILE ARGS...: the states random seeds 1..$seeds give, sorted.
expect_states() {
	local what=$1 want=$2 file=$3 got
	shift 3
	checks=$((checks + 1))
	got=$(for s in $(seq 1 $seeds); do state "$file" "$@" --seed "$s"; done | sort -u | tr '\n' '|')
	[ "$got" = "$want" ] || fail "$what: seeds 1..$seeds gave '$got', want '$want'"
}

expect_faithful() {
	local what=$1 want=$2 file=$3 got
	shift 3
	checks=$((checks + 1))
	got=$(state "$file" "$@")
	[ "$got" = "$want" ] || fail "$what: the faithful run gave '$got', want '$want'"
}

wake=$dir/kernel/wake-preempt-queue-twice.kws
for k in v4.9 mainline; do
	for m in full voluntary none; do
		expect_faithful "wake-up on $k, preempt=$m" "P0:r0=1; P0:r1=0; " "$wake" \
			--kernel $k --set preempt=$m
	done
	expect_states "wake-up on $k, preempt=full" "P0:r0=1; P0:r1=0; |P0:r0=1; P0:r1=1; |" \
		"$wake" --kernel $k --set preempt=full
	# the need_resched waits for a might_sleep or cond_resched the two calls do not have
	for m in voluntary none; do
		expect_states "wake-up on $k, preempt=$m" "P0:r0=1; P0:r1=0; |" "$wake" \
			--kernel $k --set preempt=$m
	done
done

spin=$dir/kernel/spinlock-fifo.kws
fifo="s1=2; s2=3; h2=4; "
expect_faithful "spinlock=fifo" "$fifo" "$spin"
expect_faithful "spinlock=unfair" "$fifo" "$spin" --set spinlock=unfair
expect_states "spinlock=fifo" "$fifo|" "$spin"
checks=$((checks + 1))
unfair=$(for s in $(seq 1 $seeds); do state "$spin" --set spinlock=unfair --seed "$s"; done | sort -u)
# every one of the three may be second: S1, S2, or H barging back in
for second in "s1=2;" "s2=2;" "h2=2;"; do
	grep -q "$second" <<<"$unfair" || fail "spinlock=unfair: no seed of 1..$seeds has $second"
done

# The setting: in the init block beside a spinlock declaration, saved with a schedule
# (its 's' decisions too) and replayed from it; a bad value is bad input.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^  cpus = 3;/  cpus = 3;\n  spinlock = unfair;/' "$spin" >"$tmp/unfair.kws"
checks=$((checks + 1))
"$kwsim" run "$tmp/unfair.kws" --seed 5 --save-schedule "$tmp/saved.kws" >"$tmp/run" 2>&1
grep -q "spinlock = unfair;" "$tmp/saved.kws" || fail "spinlock = unfair: not saved with the schedule"
grep -Eq "(^| )s[0-9]+/[0-9]+" "$tmp/saved.kws" || fail "spinlock = unfair: no spinner decision saved"
"$kwsim" replay "$tmp/saved.kws" >"$tmp/replay" 2>&1
cmp -s <(tail -n +2 "$tmp/run") <(tail -n +2 "$tmp/replay") || fail "spinlock = unfair: the replay differs"
checks=$((checks + 1))
"$kwsim" run "$spin" --set spinlock=ticket >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "spinlock must be fifo or unfair, not 'ticket'" "$tmp/err" ||
	fail "--set spinlock=ticket: exit $rc, $(head -1 "$tmp/err")"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
