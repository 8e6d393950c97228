#!/usr/bin/env bash
# Every line of every library scenario's text trace, on every kernel variant
# the scenario applies to (a file that sets 'kernel = v4.9' names its only
# one; the kernel trees built in run what mainline runs), read as Linux
# 6.12's tracefs prints it: trace_text_check.awk. The asan build runs a fixed
# sample of the library (library_sample.sh says why).
# Usage: trace_text_check.sh KWSIM SCENARIO_DIR
set -euo pipefail
kwsim=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/library_sample.sh
. "$here/library_sample.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the trees this kwsim was built with, as 'kwsim help' lists them
mapfile -t trees < <("$kwsim" help | awk '$1 ~ /^tree:/ && $1 != "tree:LABEL" { print $1 }')

fails=0 runs=0
mapfile -t files < <(find "$dir" -name '*.kws' | LC_ALL=C sort)
mapfile -t files < <(library_files "$dir" "${files[@]}")
for f in "${files[@]}"; do
	if grep -Eq 'kernel[[:space:]]*=[[:space:]]*v4\.9[[:space:]]*;' "$f"; then
		kernels=(v4.9)
	elif grep -Eq 'kernel[[:space:]]*=[[:space:]]*mainline[[:space:]]*;' "$f"; then
		kernels=(mainline "${trees[@]}")
	else
		kernels=(v4.9 mainline "${trees[@]}")
	fi
	for k in "${kernels[@]}"; do
		runs=$((runs + 1))
		# the run's own verdict (0 or 1) is not this test's business, only its trace
		rm -f "$tmp/trace"
		rc=0
		"$kwsim" run "$f" --kernel "$k" --trace text -o "$tmp/trace" >"$tmp/out" 2>&1 || rc=$?
		if ((rc > 1)) || [[ ! -s $tmp/trace ]]; then
			head -5 "$tmp/out"
			echo "FAIL: ${f#"$dir"/} ($k) exited $rc without a trace"
			fails=$((fails + 1))
			continue
		fi
		if ! awk -v NAME="${f#"$dir"/} ($k)" -f "$here/trace_text_check.awk" "$tmp/trace"; then
			fails=$((fails + 1))
		fi
		# the events it shows, for the sample's check
		awk -v f="$f" '!/^#/ && match($0, /: [a-z_0-9]+: /) {
			print f, "trace", substr($0, RSTART + 2, RLENGTH - 4) }' "$tmp/trace" | sort -u >>"$tmp/kinds"
	done
done

if ((runs == 0)); then
	echo "FAIL: no scenarios under $dir"
	exit 1
fi
if ! library_sampled && ! sample_covers "$dir" "$tmp/kinds"; then
	fails=$((fails + 1))
fi
if ((fails)); then
	echo "FAIL: $fails of $runs traces do not read as 6.12's (or the sample lacks a kind)"
	exit 1
fi
echo "ok: $runs traces, every line as 6.12 prints it$(library_sampled && echo " (the sample of library_sample.txt)")"
