#!/usr/bin/env bash
# kwsim run/replay --timeline: the drawing of library scenarios against
# expected files, byte for byte (the timeline block, from "Timeline:" to the
# result block: the summary above it has tests of its own), its options
# (--width, --from/--to, --lanes), replay drawing what run drew, colour only
# on a terminal without NO_COLOR, and bad options (exit 2, a clear message).
# KWSIM_UPDATE=1 rewrites the expected files instead of comparing.
# Usage: timeline.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: timeline.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
lib=$here/../../scenarios
want=$here/timeline
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checks=0 failed=0

fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# kw ARGS: kwsim with stdout and stderr in $tmp; rc its status, a crash or sanitizer report fails
kw() {
	local problem
	timeout 300 "$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	problem=$(kw_status_problem "$rc")
	[ -z "$problem" ] || fail "kwsim $*: $problem"
}

# the timeline block of $tmp/out
block() {
	awk '/^Timeline:/ { on = 1 } /^Test / { on = 0 } on' "$tmp/out" | sed -e '${/^$/d}'
}

# expect NAME SCENARIO ARGS...: the drawing matches timeline/NAME.txt
expect() {
	local name=$1 file=$lib/$2
	shift 2
	checks=$((checks + 1))
	kw run "$file" --timeline "$@"
	block >"$tmp/$name.txt"
	if [ "${KWSIM_UPDATE:-}" = 1 ]; then
		cp "$tmp/$name.txt" "$want/$name.txt"
	elif ! [ -s "$tmp/$name.txt" ]; then
		fail "$name: no timeline in the output (exit $rc)"
	elif ! cmp -s "$tmp/$name.txt" "$want/$name.txt"; then
		fail "$name: the drawing differs from timeline/$name.txt"
		diff "$want/$name.txt" "$tmp/$name.txt" | sed -n '1,20p'
	fi
}

# the default: CPU lanes, 100 columns when stdout is no terminal
expect 03-one-work-one-worker teaching/03-one-work-one-worker.kws
expect flush-from-own-worker races/flush-from-own-worker.kws --lanes both --width 90
expect freezable-idle-suspend races/freezable-idle-suspend.kws --lanes both --width 80
# a window: tasks only, the suspend's 1 ms to 3 ms
expect freezable-idle-suspend-zoom races/freezable-idle-suspend.kws --lanes tasks \
	--from 1ms --to 3ms --width 72
expect spinlock-fifo kernel/spinlock-fifo.kws --lanes both --width 60
expect self-requeue teaching/10-self-requeue.kws --width 120

# each line is as wide as asked, at most
checks=$((checks + 1))
for w in 60 67 133; do
	kw run "$lib/races/freezable-idle-suspend.kws" --timeline --lanes both --width "$w"
	long=$(block | awk -v w="$w" 'length($0) > w' | head -1)
	[ -z "$long" ] || fail "--width $w: a line is wider: '$long'"
done

# --from/--to: the header says the window, and nothing is drawn before or after it
checks=$((checks + 1))
kw run "$lib/races/freezable-idle-suspend.kws" --timeline --from 2ms --to 2010us
block | grep -q '^Timeline: 2ms to 2.01ms, 1 column = 120ns$' ||
	fail "--from 2ms --to 2010us: header '$(block | head -1)'"
kw run "$lib/teaching/03-one-work-one-worker.kws" --timeline --from 1s
block | grep -q "^Timeline: nothing from 1s on: the run's last record is at 11.535us$" ||
	fail "--from past the end: '$(block | head -1)'"

# replay draws what run drew
checks=$((checks + 1))
kw run "$lib/races/flush-from-own-worker.kws" --seed 3 --timeline --lanes both \
	--save-schedule "$tmp/sched.kws"
block >"$tmp/run.txt"
kw replay "$tmp/sched.kws" --timeline --lanes both
block >"$tmp/replay.txt"
[ -s "$tmp/run.txt" ] && cmp -s "$tmp/run.txt" "$tmp/replay.txt" ||
	fail "replay --timeline draws other than run"

# with the text trace on stdout too: the timeline comes first, the trace after it all
checks=$((checks + 1))
kw run "$lib/teaching/03-one-work-one-worker.kws" --timeline --trace text
t=$(grep -n '^Timeline:' "$tmp/out" | cut -d: -f1)
r=$(grep -n '^# tracer: nop' "$tmp/out" | cut -d: -f1)
[ -n "$t" ] && [ -n "$r" ] && [ "$t" -lt "$r" ] || fail "--timeline --trace text: order"

# colour on a terminal only, and never with NO_COLOR
checks=$((checks + 1))
esc=$(printf '\033')
if [ -z "${KWSIM_UPDATE:-}" ] && command -v script >/dev/null; then
	f=$lib/races/flush-from-own-worker.kws
	TERM=xterm script -qec "'$kwsim' run '$f' --timeline --width 80" /dev/null >"$tmp/tty" 2>&1
	grep -q "$esc\[" "$tmp/tty" || fail "no colour on a terminal"
	NO_COLOR=1 TERM=xterm script -qec "'$kwsim' run '$f' --timeline --width 80" /dev/null \
		>"$tmp/tty" 2>&1
	! grep -q "$esc\[" "$tmp/tty" || fail "colour with NO_COLOR set"
fi
kw run "$lib/races/flush-from-own-worker.kws" --timeline
! grep -q "$esc" "$tmp/out" || fail "colour into a pipe"
! LC_ALL=C grep -q '[^ -~]' "$tmp/out" || fail "a character beyond ASCII in the plain timeline"

# bad options: exit 2 and the reason
bad() {
	local want=$1
	shift
	checks=$((checks + 1))
	kw "$@"
	if [ "$rc" -ne 2 ]; then
		fail "kwsim $*: exit $rc, want 2"
	elif ! grep -qE -- "^kwsim (run|replay): .*$want" "$tmp/err"; then
		fail "kwsim $*: message '$(head -1 "$tmp/err")' does not say '$want'"
	fi
}
f=$lib/teaching/03-one-work-one-worker.kws
bad "--width wants a number of columns from 60 to 1000, not '59'" run "$f" --timeline --width 59
bad "--width wants .* not '1001'" run "$f" --timeline --width 1001
bad "--width wants .* not 'wide'" run "$f" --timeline --width wide
bad "option --width needs a value" run "$f" --timeline --width
bad "--from wants a time such as 5ms, 100us or 0, not '5'" run "$f" --timeline --from 5
bad "--to wants a time .* not '3 ms'" run "$f" --timeline --to "3 ms"
bad "--to wants a time .* not '2xs'" run "$f" --timeline --to 2xs
bad "--to must come after --from" run "$f" --timeline --from 2ms --to 1ms
bad "--to must come after --from" run "$f" --timeline --from 2ms --to 2ms
bad "--lanes must be cpus, tasks or both, not 'all'" run "$f" --timeline --lanes all
bad "give --timeline too" run "$f" --width 80
bad "give --timeline too" run "$f" --lanes tasks
bad "give --timeline too" replay "$f" --from 1ms
bad "--timeline draws for people, --json is for programs" run "$f" --timeline --json

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
