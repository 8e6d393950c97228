#!/usr/bin/env bash
# patches/0001 (kthread_flush_work() on an armed delayed work) on a tree
# built from it, against the tree it patches (patches/README.md):
#  - the flush-armed findings (scenarios/found/tree-BASE: kwsim fuzz's, and
#    races/flush-armed-delayed-work.kws): replayed, they show the hang on
#    BASE; their programs explored (200 runs each, stalls as explore's
#    default) show it on BASE, and on the patched tree no hang and nothing
#    BASE does not show too, but a leak: a run that hung on BASE now ends,
#    and a worker the file never destroys is then reported
#    (flush-armed-delayed-work.kws's);
#  - the race library explored (300 runs a file, both kernels): every
#    result the same on both (states and their counts, verdicts, coverage,
#    findings, once the kernel's name and kthread.c's line numbers are taken
#    out), except flush-armed-delayed-work.kws, whose deadlock only BASE has;
#  - a bounded kwsim fuzz campaign (300 programs, seed 1): on BASE it finds
#    the flush-armed deadlock, on the patched tree nothing.
# Every bound is runs or programs, never time.
# Usage: flushfix.sh KWSIM SCENARIO_DIR tree:BASE tree:PATCHED
set -uo pipefail
kwsim=$(realpath "${1:?usage: flushfix.sh KWSIM SCENARIO_DIR tree:BASE tree:PATCHED}")
dir=${2:?} base=${3:?} fixed=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
compare=$here/flushfix/compare.py
armed=flush-armed-delayed-work.kws
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# explore FILE OUT: both kernels, bounded by runs, as JSON
explore() {
	run explore "$1" --kernel "$base,$fixed" --runs "$3" --json >"$2" 2>"$2.err"
	((rc <= 1)) || fail "explore $1: exit $rc: $(head -3 "$2.err")"
}

# the finding keys of one kernel in an explore document, kthread.c's lines taken out
keys() {
	python3 -c 'import json,re,sys
d = json.load(open(sys.argv[1]))
for k in d["kernels"]:
    if k["kernel"] == sys.argv[2]:
        for f in k["findings"]:
            print(re.sub(r"([A-Za-z_]\w*):[0-9]+", r"\1:-", f["key"]))' "$1" "$2" | LC_ALL=C sort
}

# --- the findings: the hang on BASE, none on the patched tree ----------------------------
found=("$dir/races/$armed")
for f in "$dir/found/tree-${base#tree:}"/*.kws; do
	[[ -e $f ]] && grep -q 'deadlock("kthread_flush_work' "$f" && found+=("$f")
done
for f in "${found[@]}"; do
	n=${f#"$dir"/}
	if grep -q '^schedule' "$f"; then
		check
		run replay "$f" >"$tmp/replay" 2>&1
		((rc == 0)) || fail "$n: replay on $base exits $rc, not 0 (its finding)"
	fi
	# the program without its schedule and its pinned kernel: explored on both
	sed -e '/^schedule/,$d' -e "s/^  kernel = $base;\$//" "$f" >"$tmp/prog.kws"
	check
	explore "$tmp/prog.kws" "$tmp/prog.json" 200
	keys "$tmp/prog.json" "$base" | grep -q '^deadlock kthread_flush_work' ||
		fail "$n: 200 runs on $base show no deadlock in kthread_flush_work: $(keys "$tmp/prog.json" "$base" | head -3)"
	check
	keys "$tmp/prog.json" "$base" >"$tmp/keys.base"
	keys "$tmp/prog.json" "$fixed" >"$tmp/keys.fixed"
	if grep -Eq '^(deadlock|hung)' "$tmp/keys.fixed" ||
		[[ -n $(comm -13 "$tmp/keys.base" "$tmp/keys.fixed" | grep -v '^leak ') ]]; then
		fail "$n: 200 runs on $fixed find: $(head -3 "$tmp/keys.fixed")"
	fi
done
((${#found[@]} >= 2)) || fail "no flush-armed finding in $dir/found/tree-${base#tree:}"

# --- the race library: the same on both, but for flush-armed ------------------------------
same=0
for f in "$dir"/races/*.kws; do
	n=${f##*/}
	check
	explore "$f" "$tmp/race.json" 300
	if [[ $n == "$armed" ]]; then
		keys "$tmp/race.json" "$base" | grep -q '^deadlock kthread_flush_work' ||
			fail "$n: $base shows no deadlock in kthread_flush_work"
		keys "$tmp/race.json" "$fixed" | grep -q '^deadlock' &&
			fail "$n: $fixed deadlocks: $(keys "$tmp/race.json" "$fixed" | grep deadlock)"
	elif python3 "$compare" "$tmp/race.json" "$base" "$fixed" >"$tmp/cmp"; then
		same=$((same + 1))
	else
		fail "$n: $base and $fixed differ:"
		cat "$tmp/cmp"
	fi
done
((same > 0)) || fail "no race file in $dir/races"

# --- a bounded fuzz campaign --------------------------------------------------------------
for k in "$base" "$fixed"; do
	check
	run fuzz --kernel "$k" --seed 1 --runs 300 --schedules 8 --cpus 4 --cross-runs 0 \
		--out "$tmp/fuzz-${k#tree:}" >"$tmp/fuzz.out" 2>&1
	if [[ $k == "$base" ]]; then
		((rc == 1)) && ls "$tmp/fuzz-${k#tree:}" | grep -q 'deadlock-kthread_flush_work' ||
			fail "fuzz on $base (300 programs): exit $rc, no flush-armed finding: $(ls "$tmp/fuzz-${k#tree:}" 2>/dev/null)"
	elif ((rc != 0)) || [[ -n $(ls "$tmp/fuzz-${k#tree:}" 2>/dev/null) ]]; then
		fail "fuzz on $fixed (300 programs): exit $rc, found $(ls "$tmp/fuzz-${k#tree:}" 2>/dev/null)"
	fi
done

echo "$base vs $fixed: ${#found[@]} flush-armed files hang on $base only; $same race files" \
	"explored alike; $checks checks, $failed failed"
((failed == 0))
