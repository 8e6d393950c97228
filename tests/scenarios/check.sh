#!/usr/bin/env bash
# One scenario on one kernel variant: it must meet its own expectations
# (exit 0), and a second run must print exactly the same bytes.
# Usage: check.sh KWSIM FILE KERNEL [replay]
set -euo pipefail
kwsim=$1 file=$2 kernel=$3 mode=${4:-run}
# shellcheck source=SCRIPTDIR/../status.sh
. "$(dirname "$0")/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {
	if [ "$mode" = replay ]; then
		"$kwsim" replay "$file" --trace text -o "$tmp/trace$1" >"$tmp/out$1" 2>&1
	else
		"$kwsim" run "$file" --kernel "$kernel" --trace text -o "$tmp/trace$1" >"$tmp/out$1" 2>&1
	fi
}

for n in 1 2; do
	rc=0
	run $n || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$tmp/out$n"
		problem=$(kw_status_problem "$rc")
		echo "FAIL: $file on $kernel ($mode), run $n: ${problem:-exit $rc}; its expectations must hold (exit 0)"
		exit 1
	fi
done
if ! cmp -s "$tmp/out1" "$tmp/out2" || ! cmp -s "$tmp/trace1" "$tmp/trace2"; then
	diff "$tmp/out1" "$tmp/out2" | head -20 || true
	echo "FAIL: $file on $kernel ($mode): two runs printed different output"
	exit 1
fi
echo "ok: $file on $kernel ($mode)"
