#!/usr/bin/env bash
# A long run's memory is flat: kwsim run streams what ran and the trace, so
# what it holds at once is bounded by a small count, not by the run's
# length. Bounds counts (records in, records held), never time.
# Usage: long_run.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: long_run.sh KWSIM}
max_held=256 failed=0

for trace in none text json; do
	args=(bench --long=1)
	[ "$trace" = none ] || args+=(--trace "$trace")
	out=$("$kwsim" "${args[@]}" 2>&1)
	rc=$?
	records=$(sed -n 's/.*(\([0-9]*\) records.*/\1/p' <<<"$out")
	held=$(sed -n 's/.*at most \([0-9]*\) held.*/\1/p' <<<"$out")
	if [ "$rc" -ne 0 ] || [ -z "$records" ] || [ -z "$held" ]; then
		echo "FAIL: kwsim ${args[*]} exited $rc: $out"
		failed=1
		continue
	fi
	# a minute of a per-jiffy work at HZ=1000: 60,000 runs of six records
	if [ "$records" -lt 300000 ] || [ "$held" -gt "$max_held" ]; then
		echo "FAIL: trace $trace: $records records, $held held at once (want <= $max_held)"
		failed=1
		continue
	fi
	echo "ok: trace $trace: $records records, at most $held held"
done
exit $failed
