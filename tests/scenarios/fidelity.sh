#!/usr/bin/env bash
# Every scenario file, run with --json on our mainline variant and on a
# kernel tree's own code: the two results must be the same, trace hash and
# exit status included, once what legitimately differs is taken out: the
# kernel's name, and where findings point in the source (our file and line
# against kernel/kthread.c's). Both run on the machine of the tree's era
# (--set era=ERA, the release the tree is of): the kernel services around
# the kthread code (msleep's extra jiffy before 6.12, the freezer, ...) are
# then the same, and every difference left is the kthread code's.
#
# Usage: fidelity.sh KWSIM SCENARIO_DIR tree:LABEL ERA [--no-destroy-delayed-warn]
#
# --no-destroy-delayed-warn: the tree's kthread_destroy_worker() lacks the
# WARN_ON(!list_empty(&worker->delayed_work_list)) of 6.12 and mainline (as
# 6.1 does). Where mainline raises it, it is taken out of mainline's result,
# and what it decides (the trace hash, the condition's verdict, the exit
# status) is not compared; everything else still is.
set -euo pipefail
usage() {
	echo "usage: fidelity.sh KWSIM SCENARIO_DIR tree:LABEL ERA [--no-destroy-delayed-warn]" >&2
	exit 2
}
(($# >= 4 && $# <= 5)) || usage
kwsim=$1 dir=$2 tree=$3 era=$4 allow=${5:-}
case "$allow" in
'' | --no-destroy-delayed-warn) ;;
*) usage ;;
esac
[[ $era =~ ^[0-9]+\.[0-9]+$ ]] || usage
# shellcheck source=SCRIPTDIR/../status.sh
. "$(dirname "$0")/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The kernel's name, and file:line wherever a finding names one.
normalise() {
	sed -E -e 's/"kernel":"[^"]*"/"kernel":"-"/' \
		-e 's/"file":"[^"]*","line":[0-9]+/"file":"-","line":0/g' \
		-e 's#[A-Za-z0-9_./+-]+\.[ch]:[0-9]+#SITE#g'
}

warn='\{"kind":"warn"[^{}]*"function":"kthread_destroy_worker"[^{}]*'
warn+='WARN_ON\(!list_empty\(&worker->delayed_work_list\)\)"\}'
drop_warn() {
	sed -E -e "s/,$warn//g" -e "s/$warn,?//g"
}
# What the left-out WARN decides: the hash, the condition's state, verdict and
# witnesses, and whether the expectations hold.
blank_outcome() {
	sed -E -e 's/"trace_hash":"[0-9a-f]*"/"trace_hash":"-"/' \
		-e 's/"state":\[[^]]*\]/"state":"-"/' \
		-e 's/"holds":(true|false),"verdict":"[A-Za-z]*"/"holds":"-","verdict":"-"/' \
		-e 's/"positive":[0-9]+,"negative":[0-9]+/"positive":"-","negative":"-"/' \
		-e 's/"expectations_hold":(true|false)/"expectations_hold":"-"/'
}

same=0
allowed=0
failed=0
# Each file as it is, and once more held up by stalls where it has no
# schedule of its own (random, seed 1, stall = 10ms): both sides alike.
while IFS= read -r line; do
	f=${line% *}
	mode=${line##* }
	# the tree's era on both sides: a file that names another is run on it too
	sets=(--set "era=$era")
	if [[ $mode == stall ]]; then
		sets+=(--set stall=10ms --seed 1)
	fi
	rc1=0
	rc2=0
	"$kwsim" run "$f" --kernel mainline "${sets[@]}" --json >"$tmp/mainline.raw" \
		2>"$tmp/mainline.err" || rc1=$?
	"$kwsim" run "$f" --kernel "$tree" "${sets[@]}" --json >"$tmp/tree.raw" \
		2>"$tmp/tree.err" || rc2=$?
	normalise <"$tmp/mainline.raw" >"$tmp/mainline"
	normalise <"$tmp/tree.raw" >"$tmp/tree"
	known=0
	if [[ -n $allow ]] && grep -qE "$warn" "$tmp/mainline"; then
		known=1
		drop_warn <"$tmp/mainline" | blank_outcome >"$tmp/mainline.cut"
		blank_outcome <"$tmp/tree" >"$tmp/tree.cut"
		mv "$tmp/mainline.cut" "$tmp/mainline"
		mv "$tmp/tree.cut" "$tmp/tree"
	fi
	p1=$(kw_status_problem "$rc1")
	p2=$(kw_status_problem "$rc2")
	if [[ -n $p1 || -n $p2 ]]; then
		echo "FAIL: $f ($mode): ${p1:+mainline: $p1}${p1:+${p2:+; }}${p2:+$tree: $p2}"
		cat "$tmp/mainline.err" "$tmp/tree.err"
		failed=$((failed + 1))
	elif ((rc1 == 2 || rc2 == 2)); then
		echo "FAIL: $f ($mode): bad input (exit $rc1 on mainline, $rc2 on $tree)"
		cat "$tmp/mainline.err" "$tmp/tree.err"
		failed=$((failed + 1))
	elif ! cmp -s "$tmp/mainline" "$tmp/tree"; then
		echo "FAIL: $f ($mode): mainline and $tree differ:"
		# one JSON object per line: split it at the fields to show where
		diff <(tr ',' '\n' <"$tmp/mainline") <(tr ',' '\n' <"$tmp/tree") | head -n 20 || true
		failed=$((failed + 1))
	elif ((!known && rc1 != rc2)); then
		echo "FAIL: $f ($mode): exit $rc1 on mainline, $rc2 on $tree"
		failed=$((failed + 1))
	elif ((known)); then
		echo "ok (but destroy's delayed_work_list WARN, which $tree lacks): $f"
		allowed=$((allowed + 1))
	else
		same=$((same + 1))
	fi
done < <(find "$dir" -name '*.kws' | LC_ALL=C sort | while IFS= read -r f; do
	echo "$f plain"
	grep -q '^schedule' "$f" || echo "$f stall"
done)

echo "$tree vs mainline: $same runs identical, $allowed identical but for" \
	"the known difference, $failed differ (machine of era $era)"
if ((same + allowed + failed == 0)); then
	echo "FAIL: no scenario found in $dir"
	exit 1
fi
((failed == 0))
