#!/usr/bin/env bash
# kwsim run --json carries what the text shows and matches its documented
# schema (tools/schema/kwsim-run.schema.json): every scenario of the library
# on every kernel variant built in, validated by a real JSON Schema
# validator (python3-jsonschema), events in time order, strict UTF-8 also
# for names and text that are not valid UTF-8; its events, given in parts
# (event, call, args, result), render back to the text's "What ran" lines one
# for one (run_json_lines.py). The text summary's "What ran" is in time order too.
# The asan build runs a fixed sample of the library (library_sample.sh says why).
# Usage: run_json_schema.sh KWSIM SOURCE_DIR
set -uo pipefail
kwsim=${1:?usage: run_json_schema.sh KWSIM SOURCE_DIR}
src=${2:?usage: run_json_schema.sh KWSIM SOURCE_DIR}
# shellcheck source=SCRIPTDIR/library_sample.sh
. "$src/tests/tools/library_sample.sh"
schema=$src/tools/schema/kwsim-run.schema.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	echo "FAIL: /usr/bin/python3 has no jsonschema: install python3-jsonschema (tools/setup --deps)"
	exit 1
fi

variants=(v4.9 mainline)
while read -r tree; do
	variants+=("$tree")
done < <("$kwsim" help | sed -n 's/^  \(tree:[^ ]*\) .*/\1/p')

# non-ASCII text, and bytes that are not UTF-8, in the name and in a log line
printf 'KW caf\xc3\xa9-\xff\n{\n  fn f { }\n  worker W = kthread_create_worker(0, "kw");\n  work A = f;\n}\nP0 @cpu0 { kthread_queue_work(W, A); log("caf\xc3\xa9 \xe2\x9c\x93 \xff\xc3"); kthread_flush_work(A); kthread_destroy_worker(W); }\n' >"$tmp/utf8.kws"

# a run that its time limit stops
cat >"$tmp/limit.kws" <<'EOS'
KW stopped-by-time-limit
{
  hz = 1000; time_limit = 10ms;
  fn tick { kthread_queue_delayed_work(W, D, 1); }
  worker W = kthread_create_worker(0, "kw");
  delayed_work D = tick;
}
P0 @cpu0 { kthread_queue_delayed_work(W, D, 1); }
EOS
"$kwsim" run "$tmp/limit.kws" >"$tmp/limit.txt"
if ! grep -q '^  -- stopped at the time limit (time_limit = 0.010000000 s)' "$tmp/limit.txt" ||
   ! grep -q '^End: time-limit at ' "$tmp/limit.txt" ||
   ! grep -q '^the run stopped at its time limit, not at its end' "$tmp/limit.txt"; then
	echo "FAIL: a run stopped by its time limit does not say so:"
	sed 's/^/    /' "$tmp/limit.txt" | tail -12
	failed=1
fi
"$kwsim" run "$tmp/limit.kws" --json >"$tmp/limit.json"
if ! grep -q '"end":"time-limit","end_time_ns":[0-9]*,"stopped_at_time_limit":true,' "$tmp/limit.json"; then
	echo "FAIL: --json of a run stopped by its time limit does not say so"
	failed=1
fi

n=0 pairs=()
mapfile -t files < <(library_files "$src/scenarios" "$src"/scenarios/*/*.kws "$tmp/utf8.kws")
for f in "${files[@]}"; do
	# a file written for one kernel ('kernel = ...') may livelock on another, cut
	# short by its own max_steps (kernel/list-corruption-flush-reinit.kws on 4.9):
	# exit 3 there, its JSON checked all the same
	pin=$(sed -n 's/^[[:space:]]*kernel[[:space:]]*=[[:space:]]*\([^ ;]*\)[[:space:]]*;.*/\1/p' "$f" | head -1)
	for k in "${variants[@]}"; do
		n=$((n + 1))
		"$kwsim" run "$f" --kernel "$k" --json >"$tmp/$n.json" 2>"$tmp/err"
		rc=$?
		if [ "$rc" -gt 1 ] && ! [ "$rc" = 3 -a -n "$pin" -a "$pin" != "$k" ]; then
			echo "FAIL: kwsim run $f --kernel $k --json exited $rc: $(head -3 "$tmp/err")"
			failed=1
		fi
		# the kinds of event, finding and end it shows, for the sample's check
		grep -o '"\(event\|kind\|end\)":"[^"]*"' "$tmp/$n.json" | sort -u | sed "s|^|$f json |" \
			>>"$tmp/kinds"
		"$kwsim" run "$f" --kernel "$k" >"$tmp/text" 2>/dev/null
		[ "$f" != "$tmp/utf8.kws" ] && cp "$tmp/text" "$tmp/$n.txt" && pairs+=("$tmp/$n.txt" "$tmp/$n.json")
		# "What ran" lines: "  S.NNNNNNNNN  cpuN  ..." until the fn counts
		if ! awk '/^What ran:/ { on = 1; next } /^  fn |^$/ { on = 0 }
			  on && $2 ~ /^cpu[0-9]+$/ {
				split($1, t, "."); c = substr($2, 4) + 0
				if (n++ && (t[1] + 0 < s || (t[1] + 0 == s && (t[2] < ns ||
				    (t[2] == ns && c < pc))))) { print "out of order: " $0; bad = 1 }
				s = t[1] + 0; ns = t[2]; pc = c
			  } END { exit bad }' "$tmp/text"; then
			echo "FAIL: $f on $k: What ran is not in (time, cpu) order"
			failed=1
		fi
	done
done
if ! grep -q '"event":"log","text":"café ✓ \\ufffd\\ufffd"' "$tmp/$n.json"; then
	echo "FAIL: non-ASCII text is not passed through as UTF-8: $(grep -o '"event":"log[^}]*' "$tmp/$n.json")"
	failed=1
fi
/usr/bin/python3 "$src/tests/tools/check_run_json.py" "$schema" "$tmp"/*.json || failed=1
# the events in parts say what the text's lines say, one for one
/usr/bin/python3 "$src/tests/tools/run_json_lines.py" "${pairs[@]}" || failed=1
if library_sampled; then
	echo "sampled: ${#files[@]} files of the library and the UTF-8 one (library_sample.txt)"
else
	sample_covers "$src/scenarios" "$tmp/kinds" || failed=1
fi
exit $failed
