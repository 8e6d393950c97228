#!/usr/bin/env bash
# What a kernel developer writes out of habit (issue 20, item 17): what is
# unambiguous is read as meant, the rest is refused with what to write.
#   - &W, &A, C comments, hex numbers: the same run, byte for byte (trace
#     hash), as the plain scenario;
#   - at 28.002ms: a decimal of a unit, to the nanosecond;
#   - HZ: the run's hz setting, read when the call is made (--set hz=1000);
#   - kthread_queue_work(W, D) for a delayed work, &n for a counter, HZ(),
#     1.5 without a unit, 1.5ns, 0x10us, an unclosed /*: exit 2 with
#     FILE:LINE:COL: error: and the hint.
# Usage: kernel_habits.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: kernel_habits.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"


# scn NAME P0-BODY [P1-LINE]: a scenario file; prints its path
scn() {
	cat >"$tmp/$1.kws" <<KWS
KW $1
{
  cpus = 2;
  int n = 0;
  fn f { n++; }
  worker W = kthread_create_worker(0, "kw");
  work A = f;
  delayed_work D = f;
}
P0 @cpu0 { $2 }
${3:-}
KWS
	echo "$tmp/$1.kws"
}

# run FILE [ARGS]: kwsim run, its stdout in $tmp/out; the status in rc
run() {
	"$kwsim" run "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	local problem
	problem=$(kw_status_problem "$rc")
	[ -z "$problem" ] || fail "kwsim run $*: $problem: $(head -3 "$tmp/err")"
}

hash_of() {
	run "$@"
	sed -n 's/^End: .*trace hash \([0-9a-f]*\)$/\1/p' "$tmp/out"
}

# --- read as meant: the same run as the plain text ------------------------------------------
checks=$((checks + 1))
plain=$(hash_of "$(scn plain 'kthread_queue_work(W, A); udelay(16); kthread_queue_delayed_work(W, D, 2);')")
habit=$(hash_of "$(scn habit 'kthread_queue_work(&W, &A); /* as
  kernel code */ udelay(0x10); kthread_queue_delayed_work(&W, &D, 0x2);')")
[ -n "$plain" ] && [ "$plain" = "$habit" ] ||
	fail "&W, &A, /* */, 0x10: trace hash '$habit', the plain scenario's '$plain'"

checks=$((checks + 1))
run "$(scn at 'n++;' 'P1 @cpu1 at 28002us { n++; }')" --trace text
want=$(grep 'P1 starts' "$tmp/out")
run "$(scn at 'n++;' 'P1 @cpu1 at 28.002ms { n++; }')" --trace text
got=$(grep 'P1 starts' "$tmp/out")
[ -n "$want" ] && [ "$got" = "$want" ] && grep -q '^ *0\.02800' <<<"$got" ||
	fail "at 28.002ms: '$got', at 28002us: '$want'"

checks=$((checks + 1))
hz=$(scn hz 'r0 = HZ; r1 = msecs_to_jiffies(1000);' 'exists (0:r0 == 0:r1)')
run "$hz"
[ "$rc" -eq 0 ] || fail "HZ is not msecs_to_jiffies(1000) at hz 250: exit $rc"
grep -q 'P0:r0=250; P0:r1=250;' "$tmp/out" || fail "HZ at hz 250: $(grep 'r0=' "$tmp/out")"
run "$hz" --set hz=1000
grep -q 'P0:r0=1000; P0:r1=1000;' "$tmp/out" || fail "HZ with --set hz=1000: $(grep 'r0=' "$tmp/out")"

# --- refused, with what to write ------------------------------------------------------------
# bad NAME TEXT_REGEX FILE: exit 2, FILE:LINE:COL: error:, and TEXT_REGEX
bad() {
	checks=$((checks + 1))
	run "$3"
	if [ "$rc" -ne 2 ]; then
		fail "$1: exit $rc, want 2"
	elif ! grep -qE "^$3:[0-9]+:[0-9]+: error: .*$2" "$tmp/err"; then
		fail "$1: message does not match '$2': $(head -2 "$tmp/err")"
	fi
}
bad "a delayed_work queued as a work" "must be a work: a delayed_work is queued with kthread_queue_delayed_work\(W, D, DELAY\)" \
	"$(scn dw 'kthread_queue_work(W, D);')"
bad "a work queued as a delayed_work" "a work is queued with kthread_queue_work\(W, A\)" \
	"$(scn w 'kthread_queue_delayed_work(W, A, 1);')"
bad "& of a counter" "'&' takes the address of a worker, work.*write the name alone" "$(scn amp1 'n = &n;')"
bad "& of a number" "'&' takes the address of .*write a declared object's name" "$(scn amp2 'udelay(&5);')"
bad "HZ()" "HZ is a constant \(the hz setting\), not a function" "$(scn hzcall 'udelay(HZ());')"
bad "a decimal without a unit" "a number with a point is a time and needs its unit, as 28.002ms" \
	"$(scn frac 'udelay(1.5);')"
bad "a part of a nanosecond" "1.5ns is not a whole number of nanoseconds" \
	"$(scn ns '' 'P1 at 1.5ns { }')"
bad "ten digits after the point" "at most 9 digits after the point" "$(scn digits '' 'P1 at 1.0000000001s { }')"
bad "a hex time" "a hex number is a plain number: a time is written in decimal" "$(scn hext '' 'P1 at 0x10us { }')"
bad "0x alone" "expected hex digits after 0x" "$(scn hex0 'udelay(0x);')"
bad "an unclosed C comment" "unterminated comment: /\* opens it, \*/ would close it" "$(scn open 'udelay(1); /* no end')"

echo "kernel_habits: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
