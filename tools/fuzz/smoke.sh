#!/bin/sh
# smoke.sh TARGET RUNS SEEDS [LIBFUZZER FLAGS...]: run a fuzz target for RUNS
# executions from its seeds (read, never written: new inputs go to a
# scratch directory), seed 1. It passes when libFuzzer finishes them: a
# crash, a sanitizer report or a leak fails it with libFuzzer's status.
set -eu
target=$1 runs=$2 seeds=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/kwsim-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$work/log"
rc=0
"$target" -runs="$runs" -seed=1 -max_len=4096 -print_final_stats=1 "$@" "$work" "$seeds" \
	>"$log" 2>&1 || rc=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::' "$log" || true
if [ "$rc" -ne 0 ] || ! grep -q "^Done $runs runs" "$log"; then
	tail -n 60 "$log"
	echo "smoke.sh: $target exited $rc" >&2
	exit 1
fi
