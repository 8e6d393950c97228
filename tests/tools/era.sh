#!/usr/bin/env bash
# The era setting: the machine's services of another release than the
# variant's own (model/README.md, "The machine's era").
#  - it changes what the era changes: msleep(2) at HZ=100 on mainline sleeps
#    2 jiffies on its own era (6.12) and with era = 6.12, 3 with era = 6.1 or
#    4.9 (the extra jiffy before 6.12); the command line's era overrides the
#    file's; v4.9's code on era 6.12 sleeps as mainline does;
#  - it round-trips: a saved schedule carries it (and only when set), kwsim
#    replay reproduces the run, trace hash and all; an explore token is of
#    the scenario with its --set, and its --save-schedule carries the era,
#    as do explore's replay files, shrunk in process;
#  - a bad value is refused: "kwsim run: --set era=...", or file:line:col in
#    a file's init block or schedule, exit 2.
# Usage: era.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: era.sh KWSIM}")
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
plain=$src/scenarios/kernel/usleep-range.kws
probe=$src/scenarios/kernel/usleep-range-era-6.1.kws
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hash_of() { grep -o 'trace hash [0-9a-f]*' "$1"; }
# the jiffies msleep(2) took: r2 - r0 of the run's one state
slept() {
	sed -n 's/^P0:r1=[0-9]*; P0:r0=\([0-9]*\); P0:r2=\([0-9]*\);.*/\2 \1/p' "$1" |
		awk '{ print $1 - $2 }'
}

# --- what the era changes -------------------------------------------------------------
while read -r file kernel sets want; do
	check
	args=(run "$file" --kernel "$kernel")
	[[ $sets == - ]] || args+=(--set "$sets")
	run "${args[@]}" >"$tmp/out" 2>&1
	got=$(slept "$tmp/out")
	[[ $got == "$want" ]] ||
		fail "${file##*/} on $kernel with ${sets/#-/no era}: msleep(2) took '$got' jiffies, not $want"
done <<EOF
$plain mainline - 2
$plain mainline era=6.12 2
$plain mainline era=6.1 3
$plain mainline era=4.9 3
$plain v4.9 - 3
$plain v4.9 era=6.12 2
$probe mainline - 3
$probe mainline era=6.12 2
EOF
# the file's era is the run's: the probe meets its expectation, and says its era
check
run run "$probe" >"$tmp/probe" 2>&1
((rc == 0)) || fail "usleep-range-era-6.1.kws: exit $rc, not 0: $(tail -3 "$tmp/probe")"
grep -q '^kernel mainline (era 6.1), ' "$tmp/probe" ||
	fail "the run's header does not name the era: $(sed -n 2p "$tmp/probe")"
check
run run "$plain" >"$tmp/plain" 2>&1
grep -q '^kernel mainline, ' "$tmp/plain" ||
	fail "a run without era names one: $(sed -n 2p "$tmp/plain")"
# mainline on era 6.1 is the probe's machine: the same trace as the file's era
check
run run "$plain" --set era=6.1 >"$tmp/set" 2>&1
[[ -n $(hash_of "$tmp/set") && $(hash_of "$tmp/set") == "$(hash_of "$tmp/probe")" ]] ||
	fail "--set era=6.1 and the file's era = 6.1 give different traces"

# --- round trip: the saved schedule, replay, a token ---------------------------------------
check
run run "$plain" --set era=6.1 --save-schedule "$tmp/era.kws" >/dev/null 2>&1
run run "$plain" --save-schedule "$tmp/none.kws" >/dev/null 2>&1
if ! sed -n '/^schedule/,$p' "$tmp/era.kws" | grep -q ' era = 6\.1;'; then
	fail "the schedule saved with --set era=6.1 does not carry it"
fi
if sed -n '/^schedule/,$p' "$tmp/none.kws" | grep -q 'era'; then
	fail "a schedule saved without an era names one"
fi
check
run replay "$tmp/era.kws" >"$tmp/replay" 2>&1
[[ $(hash_of "$tmp/replay") == "$(hash_of "$tmp/set")" && $(slept "$tmp/replay") == 3 ]] ||
	fail "replay of the schedule saved with era 6.1: $(hash_of "$tmp/replay"), not $(hash_of "$tmp/set")"
check
run explore "$plain" --set era=6.1 --runs 3 >"$tmp/explore" 2>&1
token=$(grep -o 'token [0-9a-f]*:mainline:[^ ]*' "$tmp/explore" | head -1 | cut -d' ' -f2)
if [[ -z $token ]]; then
	fail "explore --set era=6.1 printed no token: $(tail -5 "$tmp/explore")"
else
	run explore "$plain" --set era=6.1 --token "$token" --save-schedule "$tmp/tok.kws" \
		>"$tmp/tok" 2>&1
	[[ $rc == 1 && $(slept "$tmp/tok") == 3 ]] ||
		fail "--token $token with its era: exit $rc, msleep took '$(slept "$tmp/tok")' jiffies"
	sed -n '/^schedule/,$p' "$tmp/tok.kws" 2>/dev/null | grep -q ' era = 6\.1;' ||
		fail "the token's saved schedule does not carry era = 6.1"
	check
	run explore "$plain" --token "$token" >/dev/null 2>"$tmp/tokerr"
	[[ $rc == 2 ]] && grep -q 'another scenario' "$tmp/tokerr" ||
		fail "--token without its era: exit $rc, $(cat "$tmp/tokerr")"
fi

# explore's replay files (shrunk in process: the era is no part of the text) carry it
check
run explore "$plain" --set era=6.1 --runs 3 --out "$tmp/xout" >"$tmp/explore" 2>&1
shrunk=$(ls "$tmp/xout"/*.kws 2>/dev/null | head -1)
if [[ -z $shrunk ]]; then
	fail "explore --set era=6.1 --out wrote no replay file: $(tail -3 "$tmp/explore")"
else
	grep -q 'bug depth unknown' "$tmp/explore" &&
		fail "explore --set era=6.1: shrinking lost the finding (its era)"
	sed -n '/^schedule/,$p' "$shrunk" | grep -q ' era = 6\.1;' ||
		fail "explore's replay file does not carry era = 6.1"
	run replay "$shrunk" >"$tmp/replay2" 2>&1
	((rc == 1)) && grep -q '^kernel mainline (era 6.1), ' "$tmp/replay2" ||
		fail "explore's replay file: exit $rc, not 1 (its finding), on $(sed -n 2p "$tmp/replay2")"
fi

# --- bad values --------------------------------------------------------------------------
for v in 6 x 6.1.2 3.0 4.8 6.01 06.1 256.1 6.1x 6.1ms -6.1 "" 99999999999999999999.1; do
	check
	run run "$plain" --set "era=$v" >/dev/null 2>"$tmp/err"
	[[ $rc == 2 ]] && grep -q "^kwsim run: --set era=$v: " "$tmp/err" ||
		fail "--set era='$v': exit $rc, $(head -1 "$tmp/err")"
done
check
sed 's/^  kernel = mainline;$/  kernel = mainline; era = 61;/' "$plain" >"$tmp/bad.kws"
run run "$tmp/bad.kws" >/dev/null 2>"$tmp/err"
[[ $rc == 2 ]] && grep -q "^$tmp/bad.kws:[0-9]*:[0-9]*: error: era must be" "$tmp/err" ||
	fail "era = 61 in the init block: exit $rc, $(head -1 "$tmp/err")"
check
sed 's/ era = 6\.1;/ era = 6.x;/' "$tmp/era.kws" >"$tmp/bad2.kws"
run replay "$tmp/bad2.kws" >/dev/null 2>"$tmp/err"
[[ $rc == 2 ]] && grep -q "^$tmp/bad2.kws:[0-9]*:[0-9]*: error: " "$tmp/err" ||
	fail "era = 6.x in the schedule: exit $rc, $(head -1 "$tmp/err")"

summary
