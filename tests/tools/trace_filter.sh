#!/usr/bin/env bash
# --trace-filter, --trace-limit and the JSON's flow ids (issue 12 §5):
#  - each filter dimension (events, cpus, tasks, time) and their
#    combination keeps exactly the text lines that satisfy it, read back
#    from the unfiltered trace, and the header counts what is there;
#  - the run, its summary and its hash are the same with any filter or limit;
#  - the JSON stays valid and consistent under filters (check_trace_json.py:
#    no half slice, no flow end without its start, each flow bound to the
#    queueing and the execution it names), and a slice or arrow whose
#    records are filtered out is not shown;
#  - a queueing that was cancelled has a flow id of its own, and the
#    execution is bound to the queueing it consumed;
#  - the limit: the 20 ms self-requeue run (180 MB of JSON in issue 12) cut
#    at the limit, complete lines, valid JSON that says it was cut, the run
#    unchanged, memory bounded;
#  - bad options: exit 2 with a clear message.
# Usage: trace_filter.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: trace_filter.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
scenarios=$here/../../scenarios
check_json=$here/check_trace_json.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
# shellcheck source=SCRIPTDIR/library_sample.sh
. "$here/library_sample.sh"


# run OUT ARGS...: kwsim run ARGS, stdout to OUT, exit 0, 1 or 3 (a verdict, or cut short)
run() {
	local out=$1 rc problem
	shift
	"$kwsim" run "$@" >"$out" 2>"$tmp/err"
	rc=$?
	problem=$(kw_status_problem "$rc")
	if [ -n "$problem" ] || [ "$rc" -eq 2 ]; then
		fail "kwsim run $*: exit $rc $problem: $(head -3 "$tmp/err")"
		return 1
	fi
}

# --- the text view: each dimension against the unfiltered trace --------------------------

# the line's fields for the predicates: comm, pid, cpu, us, event
fields='
function parse() {
	ctx = $1; n = split(ctx, p, "-"); pid = p[n]; comm = substr(ctx, 1, length(ctx) - length(pid) - 1)
	cpu = substr($2, 2, 3) + 0
	ts = $4; sub(/:$/, "", ts); us = ts * 1000000
	ev = $5; sub(/:$/, "", ev)
}
function has(field,   i) { for (i = 6; i <= NF; i++) if ($i == field) return 1; return 0 }
'

# filtered SCN SPEC PREDICATE: the filtered trace's lines are the unfiltered trace's lines
# that satisfy PREDICATE (awk, on parse()'s variables), and there is at least one
filtered() {
	local scn=$1 spec=$2 pred=$3 name
	name=$(basename "$scn" .kws)
	checks=$((checks + 1))
	run "$tmp/all.out" "$scn" --trace text -o "$tmp/all.txt" || return
	run "$tmp/f.out" "$scn" --trace text --trace-filter "$spec" -o "$tmp/f.txt" || return
	if ! cmp -s "$tmp/all.out" "$tmp/f.out"; then
		fail "$name [$spec]: the run's output differs with the filter"
		return
	fi
	if ! awk -v NAME="$name [$spec]" -v PARTIAL=1 -f "$here/trace_text_check.awk" "$tmp/f.txt"; then
		fail "$name [$spec]: not 6.12's tracefs (header or lines)"
		return
	fi
	grep -v '^#' "$tmp/f.txt" >"$tmp/got"
	grep -v '^#' "$tmp/all.txt" | awk "$fields { parse(); if ($pred) print }" >"$tmp/want"
	if [ ! -s "$tmp/want" ]; then
		fail "$name [$spec]: the test selects nothing"
	elif ! diff "$tmp/want" "$tmp/got" >"$tmp/diff"; then
		fail "$name [$spec]: not the lines it selects: $(head -5 "$tmp/diff")"
	elif [ "$(grep -c . "$tmp/got")" -ge "$(grep -vc '^#' "$tmp/all.txt")" ]; then
		fail "$name [$spec]: the filter left out nothing"
	fi
}

requeue=$scenarios/teaching/10-self-requeue.kws
delayed=$scenarios/api/kthread_queue_delayed_work.kws
hardirq=$scenarios/races/queue-from-hardirq.kws
cancel=$scenarios/api/kthread_cancel_work_sync.kws

# events: names, globs, systems, SYSTEM:EVENT, exclusion
filtered "$requeue" 'events=sched_kthread_work_*' 'ev ~ /^sched_kthread_work_/'
filtered "$requeue" 'events=sched_switch,sched_waking' 'ev == "sched_switch" || ev == "sched_waking"'
filtered "$delayed" 'events=timer' 'ev ~ /^timer_/'
filtered "$delayed" 'events=timer:timer_start,irq:*' 'ev == "timer_start" || ev ~ /^softirq_/'
filtered "$delayed" 'events=sched,!sched_switch' 'ev ~ /^sched_/ && ev != "sched_switch"'
filtered "$delayed" 'events=!sched_s*' 'ev !~ /^sched_s/'
filtered "$hardirq" 'events=irq_handler_*,kwsim' 'ev ~ /^irq_handler_/ || ev == "kwsim_finding"'
# cpus: a cpulist
filtered "$requeue" 'cpus=1' 'cpu == 1'
filtered "$requeue" 'cpus=1-3' 'cpu >= 1'
# tasks: a comm (glob) or a pid; sched_switch by prev or next, sched_waking by waker or wakee
filtered "$requeue" 'tasks=kw' 'comm == "kw" || (ev == "sched_switch" && (has("prev_comm=kw") || has("next_comm=kw"))) || (ev == "sched_waking" && has("comm=kw"))'
filtered "$requeue" 'tasks=3' 'pid == 3 || (ev == "sched_switch" && (has("prev_pid=3") || has("next_pid=3"))) || (ev == "sched_waking" && has("pid=3"))'
filtered "$hardirq" 'tasks=P*' 'comm ~ /^P/ || (ev == "sched_switch" && (has("prev_comm=P0") || has("next_comm=P0"))) || (ev == "sched_waking" && has("comm=P0"))'
# time: from and to, inclusive; no line within a microsecond of either, so the printed
# microseconds decide as the nanoseconds do
checks=$((checks + 1))
run "$tmp/all.out" "$requeue" --trace text -o "$tmp/all.txt" &&
	if grep -v '^#' "$tmp/all.txt" | awk "$fields"' { parse(); if ((us > 99 && us < 101) || (us > 299 && us < 301)) bad = 1 } END { exit !bad }'; then
		fail "08-self-requeue: a line within 1 us of the time filter's edges: move them"
	fi
filtered "$requeue" 'from=100us;to=300us' 'us >= 100 && us <= 300'
filtered "$requeue" 'from=100us' 'us >= 100'
filtered "$requeue" 'to=0ms' 'us <= 0'
# all of them together: every clause holds
filtered "$requeue" 'events=sched_kthread_work_*,sched_switch;cpus=1;tasks=kw;from=100us;to=300us' \
	'(ev ~ /^sched_kthread_work_/ || ev == "sched_switch") && cpu == 1 && (comm == "kw" || has("prev_comm=kw") || has("next_comm=kw")) && us >= 100 && us <= 300'
# the option given twice: its clauses together
checks=$((checks + 1))
run "$tmp/a.out" "$requeue" --trace text --trace-filter 'cpus=1;tasks=kw' -o "$tmp/a.txt" &&
	run "$tmp/b.out" "$requeue" --trace text --trace-filter cpus=1 --trace-filter tasks=kw -o "$tmp/b.txt" &&
	{ cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "--trace-filter twice is not its clauses joined"; }
# a replay filters as the run did
checks=$((checks + 1))
run "$tmp/r.out" "$requeue" --seed 5 --save-schedule "$tmp/s.kws" --trace text \
	--trace-filter 'events=sched_kthread_work_*' -o "$tmp/r1.txt" &&
	"$kwsim" replay "$tmp/s.kws" --trace text --trace-filter 'events=sched_kthread_work_*' \
		-o "$tmp/r2.txt" >/dev/null 2>&1
cmp -s "$tmp/r1.txt" "$tmp/r2.txt" || fail "replay --trace-filter: not the run's filtered trace"

# --- the JSON view ------------------------------------------------------------------------

# json SCN SPEC EXPR: the filtered JSON passes the consumers' rules, and EXPR is true: a
# Python expression over s (the checker's summary), xwork (the work executions' slices),
# marks (the queueings' markers) and runs (the running slices); kernel=NAME before it runs
# that variant
json() {
	local scn=$1 spec=$2 expr=$3 name
	name=$(basename "$scn" .kws)${kernel:+ ($kernel)}
	checks=$((checks + 1))
	run "$tmp/j.out" "$scn" ${kernel:+--kernel "$kernel"} --trace json ${spec:+--trace-filter "$spec"} \
		-o "$tmp/j.json" || return
	if ! "$check_json" "$tmp/j.json" >"$tmp/sum"; then
		fail "$name [$spec]: $(cat "$tmp/sum")"
	elif ! /usr/bin/python3 - "$tmp/sum" "$tmp/j.json" "$expr" <<-'EOF'
		import json, sys
		s = json.load(open(sys.argv[1]))
		ev = json.load(open(sys.argv[2]))["traceEvents"]
		x = [e for e in ev if e["ph"] == "X"]
		marks = [e for e in x if e["name"].startswith("queue_work: ")]
		xwork = [e for e in x if e["cat"] in ("kthread_work", "kwsim") and e not in marks]
		runs = [e for e in x if e["cat"] == "sched"]
		sys.exit(0 if eval(" ".join(sys.argv[3].split())) else 1)
	EOF
	then
		fail "$name [$spec]: not '$expr': $(cat "$tmp/sum")"
	fi
}

# every library scenario, unfiltered, on both variants: the consumers' rules hold, and
# the work slices and arrows are the kernel's tracepoints' on mainline and kwsim's own
# records' on v4.9 (which has no sched_kthread_work_* tracepoints). The asan build runs
# the library's sample (library_sample.sh): the rules are on the view's output, the same
# bytes in every build, and the sample shows every trace event the library shows
# (trace_text_6.12 checks that in the full pass), so the sanitizers still see the view
# draw each record the library makes.
mapfile -t lib < <(library_files "$scenarios" "$scenarios"/*/*.kws)
for f in "${lib[@]}"; do
	for k in mainline v4.9; do
		checks=$((checks + 1))
		"$kwsim" run "$f" --kernel $k --trace json -o "$tmp/all.json" >/dev/null 2>&1
		"$check_json" "$tmp/all.json" >"$tmp/sum" || { fail "$k: $(cat "$tmp/sum")"; continue; }
		want=kthread_work
		[ $k = v4.9 ] && want=kwsim
		/usr/bin/python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["work_cats"]
sys.exit(0 if c in ([], [sys.argv[2]]) else 1)' "$tmp/sum" $want ||
			fail "$f ($k): work slices and arrows of $(cat "$tmp/sum"), not $want"
	done
done
# the cancelled queueing (2: A behind the busy worker, cancelled) has its own id and no
# arrow; A's execution is bound to its later queueing (4), whose marker names the
# cancelled one; every other flow ends
json "$cancel" '' 's["unended"] == [2] and s["flows_started"] == 6 and s["flows_ended"] == 5 and
	[e["args"]["queueing"] for e in xwork if e["name"] == "fa"] == [4] and
	[(e["args"]["queueing"], e["args"].get("cancelled_queueing")) for e in marks
	 if e["args"]["function"] == "fa"] == [(2, None), (4, 2)]'
# a slice is shown only with both its records; an arrow only with its three
json "$cancel" 'events=sched_kthread_work_queue_work' \
	'xwork == [] and len(marks) == 6 and s["flows_started"] == 6 and s["flows_ended"] == 0'
json "$cancel" 'events=sched_kthread_work_execute_*' \
	'len(xwork) == 5 and s["flows_started"] == 0 and s["flows_ended"] == 0 and
	 all("queueing" not in e["args"] for e in xwork)'
json "$cancel" 'events=sched_kthread_work_execute_start' 'xwork == [] and s["slices"] == 0'
json "$cancel" 'events=sched_kthread_work_*' \
	'len(xwork) == 5 and s["flows_ended"] == 5 and s["filter"] == "events=sched_kthread_work_*"'
json "$cancel" 'events=!sched_switch' 'runs == [] and s["flows_ended"] == 5'
json "$cancel" 'events=sched_switch;tasks=kw/1' \
	'len(runs) > 0 and all(e["name"] == "kw/1-2" for e in runs)'
json "$requeue" 'cpus=0' 's["flows_ended"] == 0 and all(e["args"]["cpu"] == 0 for e in runs)'
# the executions inside the window; their queueings before it: no arrows
json "$requeue" 'from=100us;to=300us' \
	'len(xwork) == 2 and all(e["ts"] >= 100 and e["ts"] + e["dur"] <= 300 for e in xwork) and
	 s["flows_ended"] == 0 and len(marks) == 2'
json "$hardirq" 'events=irq' 's["slices"] == 1 and x[0]["name"].startswith("hardirq: ")'
# v4.9: the same slices and arrows as mainline's from kwsim's own records, under the
# category kwsim; each flow starts where its marker does (check_trace_json.py); a filter
# selects them by their own names, and the kernel's names select nothing
kernel=v4.9 json "$cancel" '' 's["unended"] == [2] and s["flows_started"] == 6 and
	s["flows_ended"] == 5 and s["work_cats"] == ["kwsim"] and len(xwork) == 5 and
	all(e["cat"] == "kwsim" for e in marks + xwork) and
	[e["args"]["queueing"] for e in xwork if e["name"] == "fa"] == [4]'
kernel=v4.9 json "$cancel" 'events=kwsim_work_*' 'len(xwork) == 5 and s["flows_ended"] == 5'
kernel=v4.9 json "$cancel" 'events=sched_kthread_work_*' 's["slices"] == 0 and s["flows_started"] == 0'
# a queueing's marker is its call's section under worker->lock: a wake-up in it takes time
kernel=v4.9 json "$cancel" '' 'any(m["dur"] > 0 for m in marks)'
json "$cancel" '' 'any(m["dur"] > 0 for m in marks)'
# ... and the text view stays 4.9's tracefs: none of kwsim's work records, no kernel's
checks=$((checks + 1))
run "$tmp/v.out" "$cancel" --kernel v4.9 --trace text -o "$tmp/v.txt" &&
	if grep -q 'kwsim_work_\|sched_kthread_work_' "$tmp/v.txt"; then
		fail "v4.9's text trace shows work events: $(grep -m1 'kwsim_work_\|sched_kthread_work_' "$tmp/v.txt")"
	fi

# --- the limit ------------------------------------------------------------------------------

long=$here/trace/self-requeue-20ms.kws
# the run alone, for its summary and hash
checks=$((checks + 1))
run "$tmp/plain.out" "$long"
grep -q 'trace hash' "$tmp/plain.out" || fail "self-requeue-20ms: no trace hash in its summary"
for view in text json; do
	checks=$((checks + 1))
	run "$tmp/l.out" "$long" --trace $view --trace-limit 1M -o "$tmp/l.$view" || continue
	size=$(stat -c %s "$tmp/l.$view")
	cmp -s "$tmp/plain.out" "$tmp/l.out" || fail "--trace $view --trace-limit: the run's output differs"
	grep -qE "^kwsim: the trace reached --trace-limit 1048576 bytes: its last [0-9]+ events" "$tmp/err" ||
		fail "--trace $view --trace-limit: stderr does not say the trace was cut: $(cat "$tmp/err")"
	# at the limit: within it, and within the longest line of it
	if [ "$size" -gt 1048576 ] || [ "$size" -lt $((1048576 - 4096)) ]; then
		fail "--trace $view --trace-limit 1M: $size bytes"
	fi
	[ "$(tail -c 1 "$tmp/l.$view" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "--trace $view --trace-limit: the file does not end with a complete line"
done
# text: complete lines, and the header counts the lines it lost as entries-written
awk -v NAME="self-requeue-20ms (1M)" -f "$here/trace_text_check.awk" "$tmp/l.text" ||
	fail "--trace-limit: the cut text trace is not 6.12's tracefs"
read -r kept written < <(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\) .*/\1 \2/p' "$tmp/l.text")
[ "${kept:-0}" -gt 0 ] && [ "${written:-0}" -gt "$((kept * 10))" ] ||
	fail "--trace-limit: the header says $kept/$written entries"
# json: valid, consistent, and says it was cut
if "$check_json" "$tmp/l.json" >"$tmp/sum"; then
	/usr/bin/python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); c = s["cut"]
sys.exit(0 if c["limit"] == 1048576 and c["events_written"] == s["events"] and
	 c["events_lost"] > s["events"] else 1)' "$tmp/sum" ||
		fail "--trace-limit: otherData.cut is not right: $(cat "$tmp/sum")"
else
	fail "--trace-limit: $(cat "$tmp/sum")"
fi
# the default limit (64M), and memory flat however long the trace: the peak RSS of the
# whole 170 MB trace made and cut is that of a window of the run (it was 330 MB). Not in
# the sanitizer build (KWSIM_SANITIZED, tests/CMakeLists.txt): its shadow memory and
# ASan's quarantine of freed blocks (up to 256 MB) are not the view's, so the peak says
# nothing there, and the 1M runs above took the same paths (the whole trace made and cut);
# the other builds check the default and the peak.
if [[ -z ${KWSIM_SANITIZED:-} ]]; then
	checks=$((checks + 1))
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f 'maxrss %M' -o "$tmp/rss" "$kwsim" run "$long" --trace json -o "$tmp/d.json" \
			>"$tmp/d.out" 2>"$tmp/err"
		rss=$(sed -n 's/^maxrss //p' "$tmp/rss")
		[ "${rss:-999999999}" -le $((32 * 1024)) ] || fail "--trace json of the 20 ms run: peak RSS $rss KiB"
	else
		"$kwsim" run "$long" --trace json -o "$tmp/d.json" >"$tmp/d.out" 2>"$tmp/err"
	fi
	cmp -s "$tmp/plain.out" "$tmp/d.out" || fail "the default limit: the run's output differs"
	grep -q "reached --trace-limit 67108864 bytes" "$tmp/err" || fail "the default limit is not 64M: $(cat "$tmp/err")"
	[ "$(stat -c %s "$tmp/d.json")" -le 67108864 ] || fail "the default limit: $(stat -c %s "$tmp/d.json") bytes"
	rm -f "$tmp/d.json"
fi
# none: no limit (a small run is not cut by any)
checks=$((checks + 1))
run "$tmp/n.out" "$requeue" --trace text --trace-limit none -o "$tmp/n.txt" &&
	run "$tmp/m.out" "$requeue" --trace text --trace-limit 4K -o "$tmp/m.txt" &&
	{ [ "$(stat -c %s "$tmp/m.txt")" -le 4096 ] && [ "$(stat -c %s "$tmp/n.txt")" -gt 4096 ] &&
		awk -v NAME=4K -f "$here/trace_text_check.awk" "$tmp/m.txt" ||
		fail "--trace-limit 4K / none: $(stat -c %s "$tmp/m.txt") / $(stat -c %s "$tmp/n.txt") bytes"; }

# --- bad options ----------------------------------------------------------------------------

# bad MESSAGE_REGEX ARGS...: exit 2, the message on stderr, nothing on stdout
bad() {
	local want=$1
	shift
	checks=$((checks + 1))
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 2 ]; then
		fail "kwsim $*: exit $rc, want 2"
	elif ! grep -qE -- "$want" "$tmp/err"; then
		fail "kwsim $*: stderr does not match '$want': $(cat "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "kwsim $*: wrote to stdout"
	fi
}
f=$requeue
bad "^kwsim run: --trace-filter: an empty filter" run "$f" --trace text --trace-filter ''
bad "events wants a list" run "$f" --trace text --trace-filter 'events='
bad "not an event name, a system or a glob" run "$f" --trace text --trace-filter 'events=a b'
bad "not an event name, a system or SYSTEM:EVENT" run "$f" --trace text --trace-filter 'events=sched:'
bad "cpus wants a cpulist such as 0,2-3, not 'a'" run "$f" --trace text --trace-filter 'cpus=a'
bad "cpus wants a cpulist such as 0,2-3, not '3-1'" run "$f" --trace text --trace-filter 'cpus=3-1'
bad "the machine has at most 256 CPUs" run "$f" --trace text --trace-filter 'cpus=0-300'
bad "cpus has an empty item" run "$f" --trace text --trace-filter 'cpus=0,,1'
bad "tasks wants a list" run "$f" --trace text --trace-filter 'tasks='
bad "from wants a time such as 5ms, 100us or 2s, not '5'" run "$f" --trace text --trace-filter 'from=5'
bad "to wants a time such as 5ms, 100us or 2s, not '5 ms'" run "$f" --trace text --trace-filter 'to=5 ms'
bad "from is after to" run "$f" --trace json --trace-filter 'to=1ms;from=2ms'
bad "'foo=1' is not KEY=VALUE with KEY events, cpus, tasks, from or to" run "$f" --trace text --trace-filter 'foo=1'
bad "'cpus' is not KEY=VALUE" run "$f" --trace text --trace-filter 'cpus'
bad "events is given twice" run "$f" --trace text --trace-filter 'events=sched' --trace-filter 'events=timer'
bad "an empty clause" run "$f" --trace text --trace-filter 'cpus=0;'
bad "an empty clause" run "$f" --trace text --trace-filter ';cpus=0'
bad "option --trace-filter needs a value" run "$f" --trace text --trace-filter
bad "shape the trace: give --trace too" run "$f" --trace-filter cpus=0
bad "shape the trace: give --trace too" run "$f" --trace-limit 1M
bad "--trace-limit wants a size of at least 4K \(e.g. 10M, 512K\) or none, not '1000'" run "$f" --trace text --trace-limit 1000
bad "not '10X'" run "$f" --trace text --trace-limit 10X
bad "not '0'" run "$f" --trace text --trace-limit 0
bad "not '-5M'" run "$f" --trace text --trace-limit -5M
bad "^kwsim replay: --trace-filter: cpus wants" replay "$f" --trace text --trace-filter cpus=x

if ((failed)); then
	echo "FAIL: $failed of $checks checks"
	exit 1
fi
echo "ok: $checks checks"
