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

# a narrow window far from 0: the axis labels never read alike (not 7.999ms 7.999ms 8ms 8ms)
l15=$lib/teaching/15-race-timer-vs-cancel.kws
for win in "7999us 8001us 100" "7999us 8001us 60" "7999900ns 8000100ns 100" \
	"7990us 8010us 133" "7999990ns 8000010ns 100"; do
	set -- $win
	checks=$((checks + 1))
	kw run "$l15" --kernel v4.9 --timeline --from "$1" --to "$2" --width "$3"
	labels=$(block | awk '/^time / { $1 = ""; print; exit }' | tr -s ' ' '\n' | sed '/^$/d')
	[ "$(echo "$labels" | wc -l)" -ge 2 ] && [ -z "$(echo "$labels" | sort | uniq -d)" ] ||
		fail "--from $1 --to $2 --width $3: axis labels alike or too few: $(echo $labels)"
done

# --around-finding: the window is the first finding's neighbourhood (v4.9: the cancel in
# progress on cpu1, the timer callback queueing on cpu0), else the first overlap's (mainline:
# the timer fires while the cancel runs), else the whole run; in ns from the header
window() {
	block | awk 'function ns(x) { u = x; sub(/^[0-9.]+/, "", u); sub(/[a-z]+$/, "", x)
		return x * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
		/^Timeline: / { sub(/,$/, "", $4); printf "%d %d\n", ns($2), ns($4); exit }'
}
for k in v4.9 mainline; do
	checks=$((checks + 1))
	kw run "$l15" --kernel "$k" --timeline --around-finding --lanes both
	read -r lo hi <<EOW
$(window)
EOW
	# the cancel begins at 7999950 ns; the timer fires at 8000500, the finding is at 8000820
	if [ "${lo:-x}" = x ] || [ "$lo" -ge 7999950 ] || [ "$hi" -le 8000820 ] ||
		[ $((hi - lo)) -ge 10000 ]; then
		fail "--around-finding on $k: window $lo to $hi ns, want the race's few us"
	fi
	if [ "$k" = v4.9 ]; then
		block | grep -q '^  events .*!' || fail "--around-finding on v4.9: no finding (!) drawn"
	fi
done
checks=$((checks + 1))
kw run "$lib/teaching/01-reading-the-result.kws" --timeline --around-finding
block >"$tmp/around.txt"
kw run "$lib/teaching/01-reading-the-result.kws" --timeline
block | cmp -s - "$tmp/around.txt" ||
	fail "--around-finding without a finding or an overlap: not the whole run"

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
bad "--around-finding chooses the window itself" run "$f" --timeline --around-finding --from 1ms
bad "--around-finding and --lanes shape the timeline: give --timeline too" run "$f" \
	--around-finding

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
