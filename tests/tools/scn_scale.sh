#!/usr/bin/env bash
# A scenario at scale: 100,000 declarations (512 fns, the most there are;
# workers, works, delayed works, locks, completions, counters), every work
# queued once, by name, from one program. It must parse and run, each fn
# running its works' count of times. Asserts the counts, never the time.
# Usage: scn_scale.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: scn_scale.sh KWSIM}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fns=512 workers=16 works=60000 dworks=4000 locks=2000 completions=2000
counters=$((100000 - fns - workers - works - dworks - locks - completions))
# fn f runs once for each work and delayed work i with i % fns == f
runs() { echo $((works / fns + ($1 < works % fns) + dworks / fns + ($1 < dworks % fns))); }
first=$(runs 0) last=$(runs $((fns - 1)))

awk -v fns=$fns -v workers=$workers -v works=$works -v dworks=$dworks -v locks=$locks \
    -v completions=$completions -v counters=$counters -v first=$first -v last=$last 'BEGIN {
	print "KW scale"
	print "(* 100,000 declarations; every work queued once. *)"
	print "{"
	print "  cpus = 4;"
	for (i = 0; i < counters; i++)
		printf "  int c%d = %d;\n", i, i
	for (i = 0; i < fns; i++)
		printf "  fn f%d { c%d++; }\n", i, i
	for (i = 0; i < workers; i++)
		printf "  worker W%d = kthread_create_worker(0, \"kw%d\");\n", i, i
	for (i = 0; i < works; i++)
		printf "  work w%d = f%d;\n", i, i % fns
	for (i = 0; i < dworks; i++)
		printf "  delayed_work d%d = f%d;\n", i, i % fns
	for (i = 0; i < locks; i++)
		printf "  spinlock L%d;\n", i
	for (i = 0; i < completions; i++)
		printf "  completion C%d;\n", i
	print "}"
	print "P0 @cpu0 {"
	for (i = 0; i < works; i++)
		printf "  kthread_queue_work(W%d, w%d);\n", i % workers, i
	for (i = 0; i < dworks; i++)
		printf "  kthread_queue_delayed_work(W%d, d%d, %d);\n", i % workers, i, 1 + i % 50
	printf "  spin_lock(L%d); spin_unlock(L%d);\n", locks - 1, locks - 1
	printf "  complete(C%d); wait_for_completion(C%d);\n", completions - 1, completions - 1
	print "  msleep(100);"
	for (i = 0; i < workers; i++)
		printf "  kthread_flush_worker(W%d);\n", i
	print "}"
	# the counter of fn f starts at f and goes up once per run
	printf "exists (c0 == %d /\\ c%d == %d /\\ c%d == %d /\\ ran(f0) == %d /\\ c%d == %d)\n",
		first, fns - 1, fns - 1 + last, fns, fns, first, counters - 1, counters - 1
}' >"$tmp/scale.kws"

decls=$(grep -cE '^  (int|fn|worker|work|delayed_work|spinlock|completion) ' "$tmp/scale.kws")
if [ "$decls" -ne 100000 ]; then
	echo "FAIL: the generated scenario has $decls declarations, not 100000"
	exit 1
fi
"$kwsim" run "$tmp/scale.kws" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: a scenario of 100,000 declarations: exit $rc, want 0"
	sed -n '1,5p' "$tmp/err" "$tmp/out" | sed 's/^/    /'
	exit 1
fi
if ! grep -q "^  fn f0 ran $first times" "$tmp/out" ||
   ! grep -q "^  fn f$((fns - 1)) ran $last times" "$tmp/out"; then
	echo "FAIL: the summary does not say fn f0 ran $first times, f$((fns - 1)) $last times"
	grep -E "fn f(0|$((fns - 1))) ran" "$tmp/out" | sed 's/^/    /'
	exit 1
fi
echo "100000 declarations: parsed and ran, every count right"
