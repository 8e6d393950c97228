#!/usr/bin/env bash
# A long run's memory is flat: kwsim run streams what ran and the trace, so
# what it holds at once is bounded by a small count, not by the run's
# length. Bounds counts (records in, records held), never time.
#
# Where no time passes (a loop of log() calls) nothing can be released until
# the run ends, as a CPU's clock may still hold an earlier line: then what is
# bounded is a held line's size, its text and a few numbers, not the 1.5 KB
# event with its arrays (200,000 lines peaked at 186 MB so; now 25 MB). The
# peak RSS is not checked under the sanitizers (KWSIM_SANITIZED): their shadow
# and quarantine are not kwsim's memory.
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

if [[ -z ${KWSIM_SANITIZED:-} ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	printf 'KW loglines\n{ cpus = 1; }\nP0 @cpu0 { repeat (200000) log("a line"); }\n' >"$tmp/log.kws"
	for json in "" --json; do
		# the peak RSS of the run (python3's getrusage: no time(1) to install), in KiB
		peak=$(python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0
      else "exit status %d" % r.returncode)' "$kwsim" run "$tmp/log.kws" $json)
		if ! [[ $peak =~ ^[0-9]+$ ]]; then
			echo "FAIL: 200,000 log() lines (run $json): kwsim's $peak"
			failed=1
		elif [ "$peak" -gt $((64 * 1024)) ]; then
			echo "FAIL: 200,000 log() lines, no time passing (run $json): peak RSS $peak KiB (want <= 64 MiB)"
			failed=1
		else
			echo "ok: 200,000 log() lines held to the end (run $json): peak RSS $peak KiB"
		fi
	done
fi
exit $failed
