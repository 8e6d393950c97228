#!/usr/bin/env bash
# The course's race lessons (scenarios/teaching/14-19) tell the student what
# kwsim explore shows them; this checks each claim with the command the
# lesson gives (300 random runs, seed 0, v4.9 and mainline), so that a
# change to the machine or the models that makes a lesson wrong fails here.
# Usage: course_lessons.sh KWSIM SOURCE_DIR
set -euo pipefail
kwsim=$1 src=$2
dir=$src/scenarios/teaching
# shellcheck source=SCRIPTDIR/../status.sh
. "$(dirname "$0")/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# claims LESSON PYTHON-EXPRESSION...: each expression holds of the summary, where
# k(NAME) is that kernel's part, states(NAME) its final states, kinds(NAME) the kinds
# of its findings (the first word of each key)
claims() {
	local lesson=$1 rc=0 problem
	shift
	"$kwsim" explore "$dir/$lesson.kws" --strategy random --runs 300 \
		--kernel v4.9,mainline --json >"$tmp/out.json" 2>"$tmp/err" || rc=$?
	problem=$(kw_status_problem "$rc")
	if [[ -n $problem ]] || ((rc > 1)); then
		cat "$tmp/err"
		echo "FAIL: $lesson: kwsim explore exited $rc ${problem:-}"
		fails=$((fails + 1))
		return
	fi
	if ! python3 - "$tmp/out.json" "$lesson" "$@" <<'EOF'; then
import json, sys
s = json.load(open(sys.argv[1]))
def k(name): return next(x for x in s["kernels"] if x["kernel"] == name)
def text(state): return "".join("%s=%s; " % (p["name"], p["value"]) for p in state)
def states(name): return [text(x["state"]) for x in k(name)["states"]]
def kinds(name): return {f["key"].split(" ", 1)[0] for f in k(name)["findings"]}
bad = [c for c in sys.argv[3:] if not eval(c)]
for c in bad:
    print(f"FAIL: {sys.argv[2]}: its text says what explore shows, but not: {c}")
sys.exit(1 if bad else 0)
EOF
		fails=$((fails + 1))
	fi
}

both='for n in ("v4.9", "mainline")'
claims 14-two-cpus \
	"all(len(states(n)) == 2 and k(n)['observation'] == 'Always' $both)"
claims 15-race-timer-vs-cancel \
	"all(k(n)['observation'] == 'Always' $both)" \
	"any('P1:r1=0; ran(f)=0;' in x for x in states('mainline'))" \
	"not any('P1:r1=0; ran(f)=0;' in x for x in states('v4.9'))" \
	"'invariant' in kinds('v4.9') and 'invariant' not in kinds('mainline')" \
	"'contract' in kinds('v4.9') and 'contract' not in kinds('mainline')" \
	"all((f['key'].startswith('invariant never:') or f['key'].startswith('contract kthread_cancel_delayed_work_sync:')) and ' softirq' in f['key'] for f in k('v4.9')['findings'] if f['key'] != 'condition')"
claims 16-race-mod-vs-cancel \
	"states('mainline') == ['P0:r0=1; ran(f)=1; warn=0; ']" \
	"k('mainline')['observation'] == 'Always'" \
	"len(states('v4.9')) == 3 and k('v4.9')['verdict'] == 'No' and k('v4.9')['observation'] == 'Sometimes'" \
	"'deadlock' in kinds('v4.9') and 'warn' in kinds('v4.9')"
claims 17-race-flush-ordering \
	"all(len(states(n)) == 2 and k(n)['observation'] == 'Always' $both)"
claims 18-race-destroy \
	"all(k(n)['verdict'] == 'No' and k(n)['observation'] == 'Sometimes' $both)" \
	"all('ran(f)=0; uaf=0; warn=1; leak=0; ' in states(n) and 'warn' in kinds(n) $both)"
claims 19-race-freezer \
	"all(k(n)['observation'] == 'Always' and 'invariant' in kinds(n) $both)" \
	"all(sum(x['count'] for x in k(n)['states'] if 'seen=0' in text(x['state'])) < sum(x['count'] for x in k(n)['states'] if 'seen=1' in text(x['state'])) $both)"

if ((fails)); then
	echo "$fails lesson(s) no longer show what they say"
	exit 1
fi
echo "ok: the race lessons show what they say"
