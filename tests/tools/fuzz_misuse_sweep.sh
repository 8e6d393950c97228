#!/usr/bin/env bash
# A bounded kwsim fuzz --misuse sweep: no campaign may crash kwsim. v4.9,
# seed 2, 40 programs once did (exit 139): a work re-initialised while
# queued left the worker's list corrupted, and the mainline cross-check of
# a shrunk finding ran a kthread_flush_worker() flush item from a stack
# frame that had returned, jumping through garbage. CONFIG_DEBUG_LIST's
# checks (sim/list_debug.c) report the corruption as the era's kernel does:
# 4.9 WARNs in __list_add/__list_del_entry, 6.x BUG()s. Under ASan the same
# campaign also showed the scenario invariants' walk of that list reading the
# flush item (model/variant.c on_list), which now stops at a returned frame
# (sim_in_dead_frame()). Then a few seeds on both kernels. Bounded by --runs and --cross-runs; exit 0 or 1 (findings).
# Usage: fuzz_misuse_sweep.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: fuzz_misuse_sweep.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"

# campaign KERNEL SEED RUNS: rc and output in $tmp/$1-$2.txt
campaign() {
	run fuzz --kernel "$1" --runs "$3" --seed "$2" --misuse --cross-runs 20 \
		--out "$tmp/found-$1-$2" >"$tmp/$1-$2.txt" 2>&1
	check
	[[ $rc == 0 || $rc == 1 ]] || fail "fuzz --kernel $1 --seed $2 --runs $3 --misuse: exit $rc, want 0 or 1"
}

campaign v4.9 2 40
check
grep -q 'at lib/list_debug.c:[0-9]* __list_add: list_add corruption' "$tmp/v4.9-2.txt" ||
	fail "v4.9 seed 2: no list_add corruption WARN (lib/list_debug.c)"
for seed in 1 3 4; do
	for kernel in v4.9 mainline; do
		campaign "$kernel" "$seed" 5
	done
done
# seed 7: a task's own exit path unlinks an entry on its stack after TASK_DEAD
# is set; that is no returned frame (it was reported as one, a false finding)
for kernel in v4.9 mainline; do
	campaign "$kernel" 7 10
	check
	! grep -q 'stack-use-after-return' "$tmp/$kernel-7.txt" ||
		fail "$kernel seed 7: a stack-use-after-return finding in a task's exit path"
done

summary
