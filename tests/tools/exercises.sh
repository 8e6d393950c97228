#!/usr/bin/env bash
# The course's exercises (scenarios/teaching/exercises/) and their checker,
# tools/check-exercise: every answer passes; every exercise as handed out
# (its placeholder not yet replaced) fails; a deliberately wrong answer per
# exercise, made from the answer by the edit below, fails; and the
# checker's bad inputs get exit 2. Bounded by the runs each answer names.
# Usage: exercises.sh KWSIM SOURCE_DIR
set -euo pipefail
kwsim=$1 src=$2
dir=$src/scenarios/teaching/exercises
check=$src/tools/check-exercise
# shellcheck source=SCRIPTDIR/../status.sh
. "$(dirname "$0")/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# One wrong answer per exercise: a sed edit of its answer, each a plausible mistake.
declare -A wrong=(
	[01-cancel-lost]='s/^exists (.*)$/exists (ran(f) == 0)/'                      # the cancel won
	[02-timer-vs-cancel]='s/^exists (.*)$/exists (1:r1 == false)/'                # also the runs it ran
	[03-destroy-race]='s/^exists (.*)$/exists (warn)/'                           # a warning is not the use-after-free
	[04-mod-vs-cancel]='s/^forall (.*)$/forall (done == 1 \/\\ ran(f) == 1)/'      # more than the promise
	[05-fix-the-teardown]='s/kthread_cancel_delayed_work_sync(D);/kthread_flush_worker(W);/' # a flush waits for no timer
)

# expect STATUS LABEL CHECKER-ARGS...: the checker exits STATUS
expect() {
	local want=$1 label=$2 rc=0 problem
	shift 2
	KWSIM=$kwsim "$check" "$@" >"$tmp/out" 2>&1 || rc=$?
	problem=$(kw_status_problem "$rc")
	if [[ -n $problem || $rc -ne $want ]]; then
		cat "$tmp/out"
		fail "$label: exit $rc${problem:+ ($problem)}, wanted $want"
	fi
}

n=0
for ex in "$dir"/[0-9][0-9]-*.kws; do
	case $ex in *.answer.kws) continue ;; esac
	name=$(basename "$ex" .kws)
	answer=$dir/$name.answer.kws
	n=$((n + 1))
	[[ -f $answer ]] || { fail "$name has no answer $name.answer.kws"; continue; }
	[[ -n ${wrong[$name]:-} ]] || { fail "$name has no wrong answer in this test"; continue; }
	expect 0 "$name: the answer against itself" "$answer" --answer "$answer"
	expect 1 "$name: the exercise as handed out" "$ex"
	grep -q 'tools/check-exercise FILE' "$ex" || fail "$name does not say how to check it"
	sed "${wrong[$name]}" "$answer" >"$tmp/$name.wrong.kws"
	if cmp -s "$answer" "$tmp/$name.wrong.kws"; then
		fail "$name: the wrong answer's edit changed nothing"
	else
		expect 1 "$name: a wrong answer" "$tmp/$name.wrong.kws" --answer "$answer"
	fi
done
((n == ${#wrong[@]})) || fail "$n exercises, ${#wrong[@]} wrong answers in this test"

# An answer written differently but meaning the same passes: ~exists as forall, other atoms.
sed 's/^exists (.*)$/exists (~(1:r1 == true) \/\\ ran(f) > 0)/' "$dir/01-cancel-lost.answer.kws" \
	>"$tmp/same.kws"
expect 0 "an equivalent condition" "$tmp/same.kws" --answer "$dir/01-cancel-lost.answer.kws"
sed 's/^forall (.*)$/~exists (done != 1)/' "$dir/04-mod-vs-cancel.answer.kws" >"$tmp/notexists.kws"
expect 0 "~exists for forall" "$tmp/notexists.kws" --answer "$dir/04-mod-vs-cancel.answer.kws"
# The quantifier is part of the answer.
sed 's/^exists (/forall (/' "$dir/01-cancel-lost.answer.kws" >"$tmp/forall.kws"
expect 1 "the wrong quantifier" "$tmp/forall.kws" --answer "$dir/01-cancel-lost.answer.kws"
# A program exercise keeps its condition.
sed 's/^forall (.*)$/forall (0:r0 == true)/' "$dir/05-fix-the-teardown.answer.kws" >"$tmp/cond.kws"
expect 1 "a program exercise's condition changed" "$tmp/cond.kws" \
	--answer "$dir/05-fix-the-teardown.answer.kws"
# A disagreement is shown as a run of the student's file, saved with --keep.
mkdir "$tmp/keep"
expect 1 "--keep" "$dir/01-cancel-lost.kws" --keep "$tmp/keep"
if ! grep -q '^  for example run [0-9]* on ' "$tmp/out" ||
	! "$kwsim" replay "$tmp/keep/01-cancel-lost.disagree.kws" >/dev/null; then
	cat "$tmp/out"
	fail "--keep: no replayable run where the conditions disagree"
fi

# Bad input: exit 2 with a message.
printf 'KW broken\n{\n}\nP0 { udelay(; }\nexists (true)\n' >"$tmp/broken.kws"
expect 2 "an exercise that does not parse" "$tmp/broken.kws" --answer "$dir/01-cancel-lost.answer.kws"
grep -q "broken.kws:4:" "$tmp/out" || { cat "$tmp/out"; fail "the parse error is not shown at its line"; }
# A student's copy elsewhere is checked against the course's answer of its name.
mkdir "$tmp/student"
sed 's/^exists (true)$/exists (ran(f) == 1)/' "$dir/01-cancel-lost.kws" >"$tmp/student/01-cancel-lost.kws"
expect 0 "a copy of an exercise, answered" "$tmp/student/01-cancel-lost.kws"
cp "$dir/01-cancel-lost.kws" "$tmp/lonely.kws"
expect 2 "an exercise without its answer" "$tmp/lonely.kws"
expect 2 "a bad --runs" "$dir/01-cancel-lost.kws" --runs 0
expect 2 "no exercise" --runs 5

if ((fails)); then
	echo "$fails failure(s)"
	exit 1
fi
echo "ok: $n exercises: answers pass, the handed-out files and wrong answers fail"
