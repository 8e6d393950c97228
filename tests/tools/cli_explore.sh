#!/usr/bin/env bash
# kwsim explore and kwsim merge: a race of the library is found, its replay
# file replays the run byte for byte and so does its token; the outcome
# table's counts sum to the runs; the same command gives the same bytes;
# shards merged and --jobs give exactly the one-process summary and files;
# a SIGINT leaves the summary of the runs done; every bad flag is exit 2
# with a message; the exit statuses (0 clean, 1 findings, 3 stopped, 4 a --jobs
# job died: the others' summary and files, the lost shard said).
# Every campaign is bounded by --runs, never by time.
# Usage: cli_explore.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: cli_explore.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
scenarios=$here/../../scenarios
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/../status.sh"

# sane RC WHAT: RC is one of kwsim's statuses (no sanitizer report, no crash)
sane() {
	local problem
	problem=$(kw_status_problem "$1")
	[ -z "$problem" ] || { fail "$2: $problem"; return 1; }
}

# interrupt PID DIR: once DIR exists (the campaign handles SIGINT by then), SIGINT it
interrupt() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -e "$2" ] && break
		sleep 0.02
	done
	kill -INT "$1"
}

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# expect RC STDERR_REGEX ARGS...: exit status RC, stderr matching (empty: anything)
expect() {
	local want_rc=$1 want_err=$2
	shift 2
	checks=$((checks + 1))
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sane "$rc" "kwsim $*" || return 1
	if [ "$rc" -ne "$want_rc" ]; then
		fail "kwsim $*: exit $rc, want $want_rc: $(head -3 "$tmp/err")"
		return 1
	elif [ -n "$want_err" ] && ! grep -qE -- "$want_err" "$tmp/err"; then
		fail "kwsim $*: stderr does not match '$want_err': $(head -3 "$tmp/err")"
		return 1
	fi
	return 0
}

race=$scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws
clean=$scenarios/races/destroy-with-queued-works.kws
two=(--kernel v4.9,mainline)

# --- a race is found, and its replay file and token show the same run -----------------------
if expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --out "$tmp/one"; then
	cp "$tmp/out" "$tmp/one.txt"
	grep -q '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" ||
		fail "the race's condition is not among the findings"
	grep -A2 '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" | grep -q '^      witness of exists (.*): a run shows it$' ||
		fail "the exists condition's finding does not say it is a witness: $(grep -A2 ': condition$' "$tmp/one.txt")"
	grep -q '^  \[[0-9]*\] v4.9: deadlock kthread_flush_work' "$tmp/one.txt" ||
		fail "the race's deadlock is not among the findings"
	file=$(sed -n 's/^      replay file \(v4.9-condition-.*\)$/\1/p' "$tmp/one.txt")
	token=$(grep -A4 '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" | sed -n 's/^      token //p')
	[ -f "$tmp/one/$file" ] || fail "no replay file '$file' in --out DIR"
	[ -f "$tmp/one/result.txt" ] || fail "no result.txt in --out DIR"
	checks=$((checks + 1))
	"$kwsim" replay "$tmp/one/$file" >"$tmp/replay.txt" 2>"$tmp/err"
	rc=$?
	sane "$rc" "kwsim replay"
	# the condition holds in the replay: the exists clause's Ok, exit 0
	[ "$rc" -eq 0 ] || fail "kwsim replay $file: exit $rc, want 0 (the condition seen)"
	grep -q '^Observation .* Observed$' "$tmp/replay.txt" || fail "the replay does not show the race"
	checks=$((checks + 1))
	"$kwsim" explore "$race" --token "$token" --save-schedule "$tmp/tok.kws" >"$tmp/token.txt" 2>"$tmp/err"
	rc=$?
	sane "$rc" "kwsim explore --token"
	[ "$rc" -eq 0 ] || fail "kwsim explore --token $token: exit $rc: $(head -2 "$tmp/err")"
	# the token's run is the run found: it shows the race too, and its saved
	# schedule replays as that run
	grep -q '^Observation .* Observed$' "$tmp/token.txt" || fail "the token's run does not show the race"
	"$kwsim" replay "$tmp/tok.kws" >"$tmp/tokreplay.txt" 2>"$tmp/err" ||
		fail "the token's saved schedule does not replay: $(head -2 "$tmp/err")"
	cmp -s <(tail -n +2 "$tmp/token.txt" | sed "s|$race|FILE|g") \
	       <(tail -n +2 "$tmp/tokreplay.txt" | sed "s|$tmp/tok.kws|FILE|g") ||
		fail "the token's saved schedule replays another run than the token's"
	# the replay file is that run shrunk: its comments name the token and the
	# bug depth the summary gives
	grep -qF "replay token $token" "$tmp/one/$file" || fail "the replay file does not name its token"
	depth=$(grep -A6 '^  \[[0-9]*\] v4.9: condition$' "$tmp/one.txt" | sed -n 's/^      bug depth \(at most \)\{0,1\}\([0-9]*\) .*/\2/p')
	[ -n "$depth" ] || fail "the summary gives the condition no bug depth"
	grep -q "bug depth $depth\b" "$tmp/one/$file" || fail "the replay file's shrink comment does not say bug depth $depth"
	# every replay file replays without divergence
	for f in "$tmp"/one/*.kws; do
		checks=$((checks + 1))
		"$kwsim" replay "$f" >/dev/null 2>"$tmp/err"
		rc=$?
		[ "$rc" -le 1 ] || fail "kwsim replay $f: exit $rc: $(head -2 "$tmp/err")"
	done
fi

# --- the outcome table: its counts sum to the runs, per kernel -------------------------------
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --json
if ! /usr/bin/python3 - "$tmp/out" <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for k in d["kernels"]:
    total = sum(s["count"] for s in k["states"])
    pos = sum(s["count"] for s in k["states"] if s["positive"])
    if total != k["runs"] or k["runs"] != 300 or pos != k["positive"] or \
       k["positive"] + k["negative"] != k["runs"]:
        print("kernel %s: states sum to %d, positive %d, of %d runs" % (k["kernel"], total, pos, k["runs"]))
        bad = 1
    obs = "Never" if pos == 0 else "Always" if pos == k["runs"] else "Sometimes"
    if obs != k["observation"]:
        print("kernel %s: observation %s, want %s" % (k["kernel"], k["observation"], obs))
        bad = 1
sys.exit(bad)
EOF
	fail "the outcome table's counts do not add up"
fi
checks=$((checks + 1))

# --- determinism: the same command twice gives the same bytes --------------------------------
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --out "$tmp/again"
cmp -s "$tmp/out" "$tmp/one.txt" || fail "the same campaign twice prints differently"
for f in "$tmp"/one/*; do
	cmp -s "$f" "$tmp/again/$(basename "$f")" || fail "the same campaign writes $(basename "$f") differently"
done

# --- shards merged: the one-process summary, byte for byte -------------------------------------
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --shard 1/2 --out "$tmp/s1"
grep -q ', shard 1/2$' "$tmp/out" || fail "a shard's summary does not say which it is"
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --shard 0/2 --out "$tmp/s0"
if expect 1 "" merge "$tmp/s1" "$tmp/s0"; then
	cmp -s "$tmp/out" "$tmp/one.txt" ||
		fail "2 shards merged differ from 1 run: $(diff "$tmp/one.txt" "$tmp/out" | head -6)"
fi
expect 1 "1 of the 2 shards are missing" merge "$tmp/s1"
expect 0 "" explore "$clean" --strategy random --runs 20 --shard 0/3 --out "$tmp/c0"
expect 3 "2 of the 3 shards are missing" merge "$tmp/c0"
expect 2 "shard 0/2 is there twice" merge "$tmp/s0" "$tmp/s0"
expect 1 "" explore "$race" --strategy random --runs 301 "${two[@]}" --shard 0/2 --out "$tmp/s0b"
expect 2 "another campaign" merge "$tmp/s1" "$tmp/s0b"
mkdir -p "$tmp/bogus" "$tmp/empty"
echo "not a result" >"$tmp/bogus/result.txt"
expect 2 "not a kwsim explore result" merge "$tmp/bogus"
: >"$tmp/empty/result.txt"
expect 2 "is empty" merge "$tmp/empty"
mkdir -p "$tmp/isdir/result.txt"
expect 2 "result.txt is a directory" merge "$tmp/isdir"
head -5 "$tmp/s0/result.txt" >"$tmp/empty/result.txt"
expect 2 "cut short" merge "$tmp/empty"

# --- the condition's finding says what the run showed, in the condition's sense ---------------
for q in "~exists" forall; do
	sed "s/^exists (/$q (/" "$race" >"$tmp/q.kws"
	checks=$((checks + 1))
	"$kwsim" explore "$tmp/q.kws" --strategy random --runs 300 --kernel v4.9 >"$tmp/out" 2>"$tmp/err"
	what=$(grep -A2 '^  \[[0-9]*\] v4.9: condition$' "$tmp/out" | sed -n 3p)
	case $q:$what in
	"~exists:      a run shows ("*"), which ~exists forbids") ;;
	"forall:      counterexample of forall ("*"): a run where it does not hold") ;;
	*) fail "$q: the condition's finding reads '$what'" ;;
	esac
done

# --- --jobs: the one-process summary and replay files ----------------------------------------
if expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --jobs 3 --out "$tmp/jobs"; then
	cmp -s "$tmp/out" "$tmp/one.txt" ||
		fail "--jobs 3 differs from one process: $(diff "$tmp/one.txt" "$tmp/out" | head -6)"
	for f in "$tmp"/one/*; do
		cmp -s "$f" "$tmp/jobs/$(basename "$f")" || fail "--jobs 3 writes $(basename "$f") differently"
	done
	[ "$(ls -A "$tmp/jobs" | wc -l)" -eq "$(ls -A "$tmp/one" | wc -l)" ] ||
		fail "--jobs leaves other files in DIR: $(ls -A "$tmp/jobs")"
fi
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --jobs 2 --json
cp "$tmp/out" "$tmp/jobs.json"
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --json
cmp -s "$tmp/out" "$tmp/jobs.json" || fail "--jobs 2 --json differs from one process"
# a job killed (the test hook: job 1 kills itself after 32 runs, bound by runs): the others'
# summary and files, which job died and which shard of the runs is lost, exit 4
checks=$((checks + 1))
KWSIM_EXPLORE_KILL_JOB=1:32 "$kwsim" explore "$race" --strategy random --runs 300 "${two[@]}" \
	--jobs 2 --out "$tmp/killed" >"$tmp/out" 2>"$tmp/err"
rc=$?
sane "$rc" "--jobs 2, job 1 killed"
[ "$rc" -eq 4 ] || fail "--jobs 2, job 1 killed: exit $rc, want 4: $(head -3 "$tmp/err")"
grep -q "^kwsim explore: job 1 died of signal 9 .*shard 1/2 of the campaign's, are lost" "$tmp/err" ||
	fail "--jobs 2, job 1 killed: not said: $(cat "$tmp/err")"
grep -q "^Findings: [1-9]" "$tmp/out" || fail "--jobs 2, job 1 killed: no summary of job 0's findings"
grep -q "^Stopped before the runs asked" "$tmp/out" || fail "--jobs 2, job 1 killed: a summary that claims every run"
[ -s "$tmp/killed/result.txt" ] || fail "--jobs 2, job 1 killed: no result.txt"
for f in $(sed -n 's/^      replay file //p' "$tmp/out"); do
	[ -s "$tmp/killed/$f" ] || fail "--jobs 2, job 1 killed: the summary names $f, DIR has not it"
done
# job 0's runs are shard 0/2's: the same findings
"$kwsim" explore "$race" --strategy random --runs 300 "${two[@]}" --shard 0/2 >"$tmp/half.txt" 2>/dev/null
[ "$(grep -c '^  \[' "$tmp/out")" -eq "$(grep -c '^  \[' "$tmp/half.txt")" ] ||
	fail "--jobs 2, job 1 killed: the summary is not job 0's (shard 0/2's) findings"
# a shard split again by --jobs: the shard's summary
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --shard 1/2 --jobs 2
cp "$tmp/out" "$tmp/shardjobs.txt"
expect 1 "" explore "$race" --strategy random --runs 300 "${two[@]}" --shard 1/2
cmp -s "$tmp/out" "$tmp/shardjobs.txt" || fail "--shard 1/2 --jobs 2 differs from --shard 1/2"

# --- exit statuses, and SIGINT: the summary of the runs done --------------------------------
expect 0 "" explore "$clean" --strategy random --runs 200
cp "$tmp/out" "$tmp/clean.txt"
grep -q '^Findings: 0 distinct$' "$tmp/clean.txt" || fail "a clean campaign reports findings"
expect 0 "" explore "$clean" --strategy random --runs 150
cp "$tmp/out" "$tmp/clean150.txt"
checks=$((checks + 1))
KWSIM_EXPLORE_SIGINT_AFTER=150 "$kwsim" explore "$clean" --strategy random --runs 100000 \
	>"$tmp/int.txt" 2>"$tmp/err"
rc=$?
sane "$rc" "kwsim explore, SIGINT after 150 runs"
[ "$rc" -eq 3 ] || fail "a campaign stopped by SIGINT: exit $rc, want 3"
grep -q '^Stopped before the runs asked were done' "$tmp/int.txt" || fail "a stopped campaign does not say so"
# the summary is the one of --runs 150 but for the runs asked and the stop
cmp -s <(grep -v '^strategy \|^Stopped\|^$' "$tmp/int.txt") <(grep -v '^strategy \|^$' "$tmp/clean150.txt") ||
	fail "the summary after SIGINT is not that of the runs done: $(diff <(grep -v '^strategy \|^Stopped\|^$' "$tmp/int.txt") <(grep -v '^strategy \|^$' "$tmp/clean150.txt") | head -6)"
# and a real SIGINT from outside, once the campaign has run a while
checks=$((checks + 1))
"$kwsim" explore "$clean" --strategy random --runs 100000000 --json --out "$tmp/int1" \
	>"$tmp/int.json" 2>"$tmp/err" &
pid=$!
interrupt "$pid" "$tmp/int1"
wait "$pid"
rc=$?
sane "$rc" "kill -INT"
[ "$rc" -eq 3 ] || fail "kill -INT: exit $rc, want 3"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernels"][0]
assert d["stopped"] and not d["complete"], "not marked stopped"
assert k["runs"] < 100000000, "runs %d" % k["runs"]
assert sum(s["count"] for s in k["states"]) == k["runs"], "states do not sum to the runs"
' "$tmp/int.json" || fail "the summary after kill -INT is wrong"
# --jobs: the children stop, the parent merges what they did
checks=$((checks + 1))
"$kwsim" explore "$clean" --strategy random --runs 100000000 --jobs 2 --json --out "$tmp/int2" \
	>"$tmp/int.json" 2>"$tmp/err" &
pid=$!
interrupt "$pid" "$tmp/int2/.job-1"
wait "$pid"
rc=$?
sane "$rc" "--jobs 2, kill -INT"
[ "$rc" -eq 3 ] || fail "--jobs 2, kill -INT: exit $rc, want 3: $(head -3 "$tmp/err")"
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k = d["kernels"][0]
assert d["stopped"], "not marked stopped"
assert sum(s["count"] for s in k["states"]) == k["runs"], "states do not sum to the runs"
' "$tmp/int.json" || fail "the summary of --jobs 2 after kill -INT is wrong"
# --stop-on-first: one finding's worth of runs
expect 1 "" explore "$race" --strategy random --runs 300 --stop-on-first --kernel v4.9
grep -q '^Runs  *1$' "$tmp/out" || fail "--stop-on-first did not stop at run 0's finding"
# no progress line when stderr is not a terminal
expect 1 "" explore "$race" --strategy random --runs 50
[ -s "$tmp/err" ] && fail "explore writes to stderr when it is not a terminal: $(head -2 "$tmp/err")"

# --- bad input: a message and exit 2, never a crash ----------------------------------------------
expect 2 "needs a scenario file" explore
expect 2 "unknown option '--bogus'" explore "$race" --bogus
expect 2 "--strategy must be" explore "$race" --strategy fast
expect 2 "--runs wants a positive number" explore "$race" --runs 0
expect 2 "--runs wants a positive number" explore "$race" --runs -5
expect 2 "--runs wants a positive number" explore "$race" --runs 12x
expect 2 "--time wants a positive number" explore "$race" --time 0
expect 2 "--time wants a positive number" explore "$race" --time nan
expect 2 "--seed wants" explore "$race" --seed -1
expect 2 "--depth wants" explore "$race" --depth 0
expect 2 "--preemptions wants" explore "$race" --preemptions 99
expect 2 "no variant 'v5.0'" explore "$race" --kernel v5.0
expect 2 "names 'mainline' twice" explore "$race" --kernel mainline,mainline
expect 2 "--kernel wants a variant" explore "$race" --kernel ,
expect 2 "--jobs wants" explore "$race" --jobs 0
expect 2 "--jobs wants" explore "$race" --jobs 1000
for s in 2/2 1 a/b -1/2 1/0 0/2x " 0/2"; do
	expect 2 "--shard wants I/N" explore "$race" --shard "$s"
done
expect 2 "cannot be split" explore "$race" --strategy dfs --shard 0/2
expect 2 "cannot be split" explore "$race" --strategy dfs --jobs 2
# rff learns from the runs before: its token's run is had by running the campaign up to it
if expect 1 "" explore "$race" --strategy rff --runs 300 --kernel v4.9; then
	token=$(grep -A4 '^  \[[0-9]*\] v4.9: condition$' "$tmp/out" | sed -n 's/^      token //p')
	case $token in *:v4.9:rff:0:*) ;; *) fail "rff's condition token is '$token'" ;; esac
	checks=$((checks + 1))
	"$kwsim" explore "$race" --token "$token" >"$tmp/token.txt" 2>"$tmp/err" ||
		fail "kwsim explore --token $token: $(head -2 "$tmp/err")"
	grep -q '^Observation .* Observed$' "$tmp/token.txt" || fail "rff's token's run does not show the race"
fi
expect 2 "cannot be split" explore "$race" --strategy rff --shard 0/2
expect 2 "cannot be split" explore "$race" --strategy rff --jobs 2
# delay-bounded search: its space exhausted, split into shards whose merge is exhausted
# only as a whole, its findings' tokens replayed (a shard's names its part)
ow=$here/strategy/off-window.kws
if expect 1 "" explore "$ow" --strategy delay --preemptions 1; then
	grep -q '^mainline: the space bounded by 1 delays is exhausted after 6 schedules$' "$tmp/out" ||
		fail "delay(k=1) on off-window.kws: not exhausted after 6: $(tail -1 "$tmp/out")"
	grep -q 'bug depth 1 (1 stall: ' "$tmp/out" || fail "delay's finding does not name its stall"
fi
for i in 0 1; do
	checks=$((checks + 1))
	"$kwsim" explore "$ow" --strategy delay --preemptions 1 --shard $i/2 --out "$tmp/dl$i" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if sane "$rc" "delay shard $i/2" && { [ "$rc" -le 1 ] || { fail "delay shard $i/2: exit $rc"; false; }; }; then
		grep -q "exhausted after .* (this shard's part)" "$tmp/out" || fail "delay shard $i/2 not exhausted"
		token=$(sed -n 's/^      token //p' "$tmp/out" | head -1)
		if [ -n "$token" ]; then
			case $token in *:"delay(k=1,s=$i/2)":*) ;; *) fail "delay shard $i's token is '$token'" ;; esac
			"$kwsim" explore "$ow" --token "$token" >"$tmp/token.txt" 2>"$tmp/err" ||
				fail "kwsim explore --token $token: $(head -2 "$tmp/err")"
			grep -q '^Observation .* Observed$' "$tmp/token.txt" || fail "delay's token's run does not show the race"
		fi
	fi
done
if expect 1 "" merge "$tmp/dl0" "$tmp/dl1"; then
	grep -q '^mainline: the space bounded by 1 delays is exhausted after 7 schedules$' "$tmp/out" ||
		fail "delay's shards merged: not exhausted after 7 (6, the faithful one in each): $(tail -1 "$tmp/out")"
fi
expect 2 "cannot be split" explore "$race" --strategy delay --jobs 2
expect 2 "cannot be split" explore "$race" --strategy pair --shard 0/2
expect 2 "option --runs needs a value" explore "$race" --runs
expect 2 "one scenario file at a time" explore "$race" "$race"
expect 2 "--token replays one run" explore "$race" --token 0000000000000000:mainline:random:0:0 --runs 5
expect 2 "--save-schedule writes a token" explore "$race" --save-schedule "$tmp/x.kws"
expect 2 "--token wants" explore "$race" --token nonsense
expect 2 "--token wants" explore "$race" --token 0000000000000000:mainline:random:x:0
expect 2 "another scenario" explore "$race" --token 0000000000000000:mainline:random:0:0
expect 2 "has no kernel" explore "$race" --token 0000000000000000:v9.9:random:0:0
expect 2 "cpus=0: cpus out of range" explore "$race" --set cpus=0
expect 2 "error" explore "$tmp/does-not-exist.kws"
expect 2 "cannot make /proc/no/such/dir" explore "$race" --runs 5 --out /proc/no/such/dir
expect 2 "needs the --out DIR" merge
expect 2 "unknown option" merge --bogus
expect 2 "cannot read" merge "$tmp/nowhere"

echo "cli_explore: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
