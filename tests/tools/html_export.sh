#!/usr/bin/env bash
# kwsim export FILE --html OUT: the page for a scenario (with run options),
# a replay file (its schedule replayed) and explore's finding files. Each
# page holds one run document (html.h) that parses as JSON, ends in the
# run's outcome with its findings, names no network resource, and is the
# same bytes twice; the "What ran" lines are in it with their scenario
# lines. A long run keeps --max-events records and says how many it left
# out, its findings kept. Bad input: exit 2, a message, no page.
# Usage: html_export.sh KWSIM SCENARIOS_DIR
set -uo pipefail
kwsim=$(realpath "${1:?usage: html_export.sh KWSIM SCENARIOS_DIR}")
scenarios=$(realpath "${2:?usage: html_export.sh KWSIM SCENARIOS_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}
ok() {
	checks=$((checks + 1))
	echo "ok:   $1"
}

# doc PAGE PYTHON: run PYTHON with d = the page's document; its exit status
doc() {
	python3 - "$1" "$2" <<'EOF'
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<script type="application/json" id="kwsim-doc">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
assert d['kwsim_doc'] == 1
assert 'http://' not in page.replace('http://www.w3.org/2000/svg', '') and 'https://' not in page
assert page.count('</script>') == 2, 'the document ended its element early'
sys.exit(0 if eval('(' + sys.argv[2] + ')') else 1)
EOF
}

# export NAME ARGS...: export to $tmp/NAME.html, expecting status 0
export_ok() {
	local name=$1 rc
	shift
	"$kwsim" export "$@" --html "$tmp/$name.html" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$tmp/$name.html" ]; then
		fail "export $* exits $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
		return 1
	fi
	ok "export $*"
}

# a race: its work, its finding, its account with scenario lines
if export_ok flush "$scenarios/races/flush-from-own-worker.kws"; then
	doc "$tmp/flush.html" "d['end']['outcome'] == 'deadlock' and
		[f['kind'] for f in d['end']['findings']] == ['deadlock'] and
		d['end']['findings'][0]['scn_line'] == 9 and
		any(r['ev'] == 'sched_kthread_work_execute_start' and r['function'] == 'selfish'
		    for r in d['records']) and
		any(r['ev'] == 'finding' and r['index'] == 0 for r in d['records']) and
		any(r['ev'] == 'scn_say' and r['what'] == 'kthread_flush_work(A) begins' and
		    r['line'] == 9 and r['kfunc'] == 'kthread_flush_work' for r in d['records']) and
		any(r['ev'] == 'scn_line' and r['line'] == 14 for r in d['records']) and
		[r['t'] for r in d['records']] == sorted(r['t'] for r in d['records']) and
		d['end']['dropped'] == 0 and d['end']['kept'] == len(d['records'])" &&
		ok "the page's document: the work, the finding, the account" ||
		fail "the page's document for flush-from-own-worker.kws"
	"$kwsim" export "$scenarios/races/flush-from-own-worker.kws" --html "$tmp/flush2.html" >/dev/null
	cmp -s "$tmp/flush.html" "$tmp/flush2.html" && ok "the same page twice" ||
		fail "two exports differ"
fi

# run options apply as in kwsim run
if export_ok seeded "$scenarios/races/one-work-two-workers.kws" --seed 3 --kernel v4.9 \
	--set cpus=3; then
	doc "$tmp/seeded.html" "d['run']['kernel'] == 'v4.9' and d['run']['cpus'] == 3 and
		d['run']['strategy'] == 'random' and d['run']['seed'] == 3" &&
		ok "--seed, --kernel and --set reach the run" || fail "run options in the document"
fi

# a replay file replays: its findings are the replay's
race=$scenarios/races/timer-callback-vs-cancel-delayed-work-sync-mainline.kws
if export_ok replay "$race"; then
	"$kwsim" replay "$race" --json >"$tmp/replay.json" 2>/dev/null
	want=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["trace_hash"], len(r["findings"]))' "$tmp/replay.json")
	doc "$tmp/replay.html" "d['run']['replay'] and '%s %d' % (d['end']['hash'], len(d['end']['findings'])) == '$want'" &&
		ok "a replay file's page is its replay ($want)" || fail "the replay's page is not the replay"
fi
"$kwsim" export "$race" --seed 1 --html "$tmp/bad.html" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "has a schedule" "$tmp/err" && [ ! -e "$tmp/bad.html" ] &&
	ok "a run option on a replay file: exit 2" || fail "--seed on a replay file exits $rc: $(cat "$tmp/err")"

# explore's finding files are scenario files with a schedule
"$kwsim" explore "$scenarios/races/one-work-two-workers.kws" --runs 100 --strategy random \
	--out "$tmp/found" --stop-on-first >/dev/null 2>&1
found=$(ls "$tmp"/found/*-warn-*.kws 2>/dev/null | head -1)
if [ -n "$found" ] && export_ok found "$found"; then
	doc "$tmp/found.html" "any(f['kind'] == 'warn' for f in d['end']['findings'])" &&
		ok "explore's finding file shows its warning" || fail "explore's finding file"
else
	fail "explore wrote no finding file to export"
fi

# a long run: the first N records, its findings kept, the rest counted
if export_ok capped "$scenarios/races/flush-from-own-worker.kws" --max-events 5; then
	doc "$tmp/capped.html" "d['end']['kept'] == 6 and len(d['records']) == 6 and
		d['end']['dropped'] == d['end']['records'] - 6 and d['end']['dropped'] > 0 and
		d['records'][-1]['ev'] == 'finding' and d['end']['dropped_from_ns'] is not None" &&
		ok "--max-events 5 keeps 5 records and the finding, and counts the rest" ||
		fail "--max-events"
fi

# the page names the file, never the author's directories: relative to the
# current directory when under it, else the file's name (a module likewise)
flush="$scenarios/races/flush-from-own-worker.kws"
if (cd "$tmp" && "$kwsim" export "$flush" --html "$tmp/away.html" >/dev/null 2>&1) &&
	doc "$tmp/away.html" "d['scenario']['path'] == 'flush-from-own-worker.kws' and
		d['end']['findings'][0]['scn_line'] == 9 and
		'flush-from-own-worker.kws:9' in d['end']['findings'][0]['note']" &&
	! grep -qF "$scenarios" "$tmp/away.html"; then
	ok "an absolute path outside the current directory: the page names only the file"
else
	fail "the page names the author's directories: $(grep -oF "$scenarios" "$tmp/away.html" | head -1)"
fi
above=$(dirname "$scenarios") below=$(basename "$scenarios")/races/flush-from-own-worker.kws
if (cd "$above" && "$kwsim" export "$flush" --html "$tmp/under.html" >/dev/null 2>&1) &&
	doc "$tmp/under.html" "d['scenario']['path'] == '$below'" &&
	! grep -qF "$scenarios" "$tmp/under.html"; then
	ok "an absolute path under the current directory: the page names it relative to it"
else
	fail "the page of an absolute path under the current directory"
fi
if (cd "$tmp" && "$kwsim" export "$flush" --module "$tmp/mod" >/dev/null 2>&1) &&
	grep -q "from flush-from-own-worker.kws: do not edit" "$tmp/mod"/*.c &&
	! grep -rqF "$scenarios" "$tmp/mod"; then
	ok "export --module names only the file"
else
	fail "export --module names the author's directories"
fi

# bad input: exit 2, a message, no page left behind
bad() {
	local what=$1 rc
	shift
	"$kwsim" export "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ -s "$tmp/err" ] && [ ! -s "$tmp/out" ]; then
		ok "$what: exit 2 ($(head -1 "$tmp/err"))"
	else
		fail "$what: exit $rc$(kw_status_problem $rc), stderr: $(cat "$tmp/err")"
	fi
}
flush=$scenarios/races/flush-from-own-worker.kws
bad "no --html" "$flush"
bad "--html without a value" "$flush" --html
bad "no file" --html "$tmp/x.html"
bad "an unknown option" "$flush" --html "$tmp/x.html" --frobnicate
bad "--trace" "$flush" --html "$tmp/x.html" --trace text
bad "--timeline" "$flush" --html "$tmp/x.html" --timeline
bad "--json" "$flush" --html "$tmp/x.html" --json
bad "--max-events 0" "$flush" --html "$tmp/x.html" --max-events 0
bad "--max-events x" "$flush" --html "$tmp/x.html" --max-events x
bad "a bad --kernel" "$flush" --html "$tmp/x.html" --kernel v1.0
bad "a bad --set" "$flush" --html "$tmp/x.html" --set cpus=0
bad "a missing file" "$tmp/none.kws" --html "$tmp/x.html"
bad "a directory as OUT" "$flush" --html "$tmp"
mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
if [ -w "$tmp/ro" ]; then
	echo "skip: running as root, a read-only directory is writable"
else
	bad "an unwritable OUT" "$flush" --html "$tmp/ro/x.html"
fi
bad "OUT in a missing directory" "$flush" --html "$tmp/none/x.html"
[ ! -e "$tmp/x.html" ] && ok "no page was left by bad input" || fail "bad input left a page"
printf 'KW broken\n{ cpus = 0; }\n' >"$tmp/broken.kws"
bad "a scenario with an error" "$tmp/broken.kws" --html "$tmp/x.html"

echo "$checks checks passed, $failed failed"
[ "$failed" -eq 0 ]
