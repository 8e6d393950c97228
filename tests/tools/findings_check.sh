#!/usr/bin/env bash
# Findings read like the kernel's (issue 8, item 9): in every library
# scenario's run and in tests/tools/findings/*.kws, no interpreter path
# where a scenario line belongs, no "?:0" site, no "machine:0 fault", and
# every line of the findings block is a "[n]" header or indented under it.
# Then what each case must say: the scenario line of a sleep under a lock,
# "scheduling while atomic" for a sleep in an interrupt, a deadlock that is
# the blocked tasks' and not the last interrupt's, a use-after-free that
# names the timer callback and the line that freed the object. The asan build
# runs a fixed sample of the library (library_sample.sh says why).
# Usage: findings_check.sh KWSIM SCENARIO_DIR
set -euo pipefail
kwsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
lib=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/library_sample.sh
. "$here/library_sample.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The findings block of a run's output: from "Findings:" to the blank line.
block() { awk '/^Findings: /{p=1; next} p && /^$/{exit} p' "$1"; }

shape() { # label output
	local label=$1 out=$2 bad
	if grep -n 'tools/scenario/\|?:0\|machine:0\|kernel BUG at ?' "$out" >"$tmp/bad"; then
		fail "$label: internal or unknown sites: $(head -3 "$tmp/bad")"
	fi
	bad=$(block "$out" | grep -v '^  \[[0-9][0-9]*\] \|^      ' || true)
	[[ -z $bad ]] || fail "$label: lines not under their finding: $(head -3 <<<"$bad")"
}

runs=0
mapfile -t files < <(find "$lib" "$here/findings" -name '*.kws' | LC_ALL=C sort)
mapfile -t files < <(library_files "$lib" "${files[@]}")
for f in "${files[@]}"; do
	if grep -Eq 'kernel[[:space:]]*=[[:space:]]*v4\.9[[:space:]]*;' "$f"; then
		kernels=(v4.9)
	elif grep -Eq 'kernel[[:space:]]*=[[:space:]]*mainline[[:space:]]*;' "$f"; then
		kernels=(mainline)
	else
		kernels=(v4.9 mainline)
	fi
	for k in "${kernels[@]}"; do
		runs=$((runs + 1))
		(cd "$(dirname "$f")" && "$kwsim" run "$(basename "$f")" --kernel "$k") \
			>"$tmp/out" 2>&1 || true
		shape "$(basename "$f") ($k)" "$tmp/out"
		cp "$tmp/out" "$tmp/$(basename "$f" .kws).$k"
		# the kinds of finding it shows, for the sample's check
		block "$tmp/out" | sed -n "s|^  \[[0-9]*\] \([a-z_-]*\) at .*|$f finding \1|p" >>"$tmp/kinds"
	done
done
((runs > 3)) || fail "only $runs runs"
if ! library_sampled; then
	touch "$tmp/kinds"
	sample_covers "$lib" "$tmp/kinds" || fails=$((fails + 1))
fi

expect() { # file pattern...
	local file=$1
	shift
	for p in "$@"; do
		grep -qF -- "$p" "$tmp/$file" || fail "$file lacks: $p"
	done
}

expect sleep-under-lock.v4.9 \
	"[1] might_sleep at 0.000003070 cpu0 P0 (sleep-under-lock.kws:10 msleep)" \
	"      BUG: sleeping function called from invalid context at sleep-under-lock.kws:10" \
	"      in_atomic(): 1, irqs_disabled(): 0, pid: 2, name: P0" \
	"      BUG: scheduling while atomic: P0/2/0x00000001"
expect sleep-in-irq.mainline \
	"(sleep-in-irq.kws:11 msleep)" \
	"      BUG: sleeping function called from invalid context at sleep-in-irq.kws:11" \
	"      BUG: scheduling while atomic: P0/2/0x00010000"
expect deadlock-then-irq.mainline \
	"cpu0 kw (model/mainline/kthread_worker.c:" \
	"      during deadlock-then-irq.kws:7" \
	"        kw:2 sleeps in wait_for_completion (kthread_flush_work at model/mainline/kthread_worker.c:" \
	") during deadlock-then-irq.kws:7 since " \
	"        P0:3 sleeps in wait_for_completion (wait_for_completion at deadlock-then-irq.kws:13) since "
if grep -q 'deadlock at.* hardirq' "$tmp/deadlock-then-irq.mainline"; then
	fail "the deadlock is blamed on the hardirq"
fi
expect kthread_destroy_worker-armed-mainline.mainline \
	"uaf at 0.012000520 cpu0 softirq (model/mainline/kthread_worker.c:" \
	"      BUG: KASAN: slab-use-after-free in kthread_delayed_work_timer_fn" \
	"        Access at addr ffff888100000038 by task swapper/0/0 (softirq)" \
	"        Freed by P0 in kthread_destroy_worker during kthread_destroy_worker-armed-mainline.kws:17"

if ((fails)); then
	echo "FAIL: $fails problems in $runs runs' findings"
	exit 1
fi
echo "ok: $runs runs, findings as the kernel words them"
