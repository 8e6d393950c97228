#!/usr/bin/env bash
# Stalls (issue 17): a CPU held up for a time the strategy chooses.
#  - the setting: stall = 0 (or none) changes nothing, the trace hash and the
#    saved schedule are those of a run without it; bad values are refused
#    with file:line:col (in a file) or "kwsim run: --set ..." (exit 2);
#  - a random run's stalls replay byte for byte from its saved schedule,
#    which carries stall = 10ms; every view shows them (ftrace text, Perfetto
#    JSON that check_trace_json.py accepts, the timeline, What ran, HTML);
#  - kwsim explore stalls by default (10 ms): its --out files carry the bound
#    and replay; with stall = 0 they do not stall; kwsim shrink keeps it;
#  - a race that only a stall shows (stall/mod-vs-cancel-5ms-late.kws): found
#    by explore with stalls within 2,000 runs, never without in as many.
# Usage: stall.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: stall.sh KWSIM}")
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../..
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
late=$here/stall/mod-vs-cancel-5ms-late.kws
race=$src/scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hash_of() { grep -o '"trace_hash":"[0-9a-f]*"' "$1"; }

# --- stall = 0 is the machine without stalls ---------------------------------------
for f in "$race" "$src/scenarios/api/mod_timer.kws" "$late"; do
	for mode in "" "--seed 3"; do
		check
		# shellcheck disable=SC2086
		run run "$f" $mode --json >"$tmp/a.json" 2>/dev/null
		# shellcheck disable=SC2086
		run run "$f" $mode --set stall=0 --json >"$tmp/b.json" 2>/dev/null
		[[ -s $tmp/a.json && $(hash_of "$tmp/a.json") == "$(hash_of "$tmp/b.json")" ]] ||
			fail "$f $mode: stall=0 changes the trace hash"
	done
done
check
run run "$late" --seed 3 --save-schedule "$tmp/none.kws" >/dev/null 2>&1
run run "$late" --seed 3 --set stall=0 --save-schedule "$tmp/zero.kws" >/dev/null 2>&1
if sed -n '/^schedule/,$p' "$tmp/none.kws" | grep -q 'stall' ||
	! cmp -s "$tmp/none.kws" "$tmp/zero.kws"; then
	fail "a schedule saved with stall=0 is not the one saved without it"
fi

# --- bad values --------------------------------------------------------------------
for v in 5 -1ms unbounded 3601s fast; do
	check
	run run "$late" --set "stall=$v" >/dev/null 2>"$tmp/err"
	[[ $rc == 2 ]] && grep -q "kwsim run: --set stall=$v: " "$tmp/err" ||
		fail "--set stall=$v: exit $rc: $(head -1 "$tmp/err")"
done
for v in 5 2h; do
	check
	sed "s/  cpus = 3;/  cpus = 3;\n  stall = $v;/" "$late" >"$tmp/bad.kws"
	run run "$tmp/bad.kws" >/dev/null 2>"$tmp/err"
	[[ $rc == 2 ]] && grep -qE "^$tmp/bad.kws:11:[0-9]+: error: " "$tmp/err" ||
		fail "stall = $v; in a file: exit $rc: $(head -1 "$tmp/err")"
done

# --- a random run's stalls replay byte for byte, and show in every view -------------
seed=
for s in $(seq 1 40); do
	run run "$late" --seed "$s" --set stall=10ms --trace text -o "$tmp/t1" \
		--save-schedule "$tmp/s.kws" >"$tmp/out1" 2>&1
	if grep -q 'kwsim_stall' "$tmp/t1"; then
		seed=$s
		break
	fi
done
check
if [[ -z $seed ]]; then
	fail "no random run of 40 seeds held a CPU up"
else
	grep -q 'stall = 10ms;' "$tmp/s.kws" || fail "the saved schedule has no stall = 10ms"
	grep -qE '\bh[1-9][0-9]*/[0-9]+' "$tmp/s.kws" || fail "the saved schedule has no stall taken"
	run replay "$tmp/s.kws" --trace text -o "$tmp/t2" >"$tmp/out2" 2>&1
	tail -n +2 "$tmp/out1" >"$tmp/o1"
	tail -n +2 "$tmp/out2" >"$tmp/o2"
	cmp -s "$tmp/t1" "$tmp/t2" && cmp -s "$tmp/o1" "$tmp/o2" ||
		fail "seed $seed: the replay of a stalled run differs"
	grep -q 'stall: cpu[0-9] held up for' "$tmp/out1" || fail "What ran has no stall line"
	run replay "$tmp/s.kws" --trace json -o "$tmp/t.json" >/dev/null 2>&1
	python3 "$here/check_trace_json.py" "$tmp/t.json" >/dev/null ||
		fail "the stalled run's Perfetto JSON does not check"
	grep -q '"cat":"stall","ph":"X"' "$tmp/t.json" || fail "no stall slice in the JSON"
	run replay "$tmp/s.kws" --timeline --width 100 >"$tmp/tl" 2>&1
	grep -q 'h held up (a stall)' "$tmp/tl" && grep -qE '^cpu[0-9] +[^ ]*h' "$tmp/tl" ||
		fail "the timeline shows no stall"
	run export "$tmp/s.kws" --html "$tmp/page.html" >/dev/null 2>&1
	grep -q 'kwsim_stall' "$tmp/page.html" || fail "the HTML page has no stall record"
	# the log does not fit a machine without stalls: a divergence, said
	sed 's/ stall = 10ms;//' "$tmp/s.kws" >"$tmp/nostall.kws"
	run replay "$tmp/nostall.kws" >"$tmp/out3" 2>&1
	[[ $rc != 0 ]] && grep -q "a 'stall' one\|'stall' choice" "$tmp/out3" ||
		fail "the stalled log replayed on a machine without stalls (exit $rc)"
fi

# --- explore stalls by default; its files carry the bound; shrink keeps it -----------
check
run explore "$late" --strategy random --runs 2000 --seed 1 --out "$tmp/found" >"$tmp/x1" 2>&1
dead=$(ls "$tmp/found"/*deadlock* 2>/dev/null | head -1)
if [[ -z $dead ]]; then
	fail "explore with its default stalls did not find the 5 ms late race in 2000 runs"
else
	grep -q 'stall = 10ms;' "$dead" || fail "explore's replay file has no stall = 10ms"
	run replay "$dead" >"$tmp/r1" 2>&1
	grep -q 'deadlock' "$tmp/r1" || fail "explore's replay file does not replay its deadlock"
	run shrink "$dead" --out "$tmp/shrunk.kws" >"$tmp/sh" 2>&1
	if [[ -s $tmp/shrunk.kws ]]; then
		grep -q 'stall = 10ms;' "$tmp/shrunk.kws" || fail "the shrunk file lost its stall bound"
		run replay "$tmp/shrunk.kws" >"$tmp/r2" 2>&1
		grep -q 'deadlock' "$tmp/r2" || fail "the shrunk file does not replay its deadlock"
	else
		fail "kwsim shrink wrote nothing: $(head -3 "$tmp/sh")"
	fi
fi
check
run explore "$late" --strategy random --runs 2000 --seed 1 --set stall=0 --out "$tmp/none" \
	>"$tmp/x2" 2>&1
if ls "$tmp/none"/*deadlock* >/dev/null 2>&1; then
	fail "explore without stalls found the 5 ms late race"
fi
if cat "$tmp/none"/*.kws | sed -n '/^schedule/,$p' | grep -q 'stall'; then
	fail "explore's files with stall=0 name a stall"
fi

summary
