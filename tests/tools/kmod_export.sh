#!/usr/bin/env bash
# kwsim export FILE --module DIR (tools/kmod/README.md): the three files,
# the same bytes twice, nothing else in DIR touched; every scenario of
# scenarios/races and scenarios/api exported or refused as the README's list
# says; each refused statement an error at its file:line:col, exit 2, no
# file written; usage errors; and the state a module prints named as kwsim
# names it (the atoms of `kwsim run`'s States line, minus the unobserved).
# Usage: kmod_export.sh KWSIM SCENARIOS_DIR
set -uo pipefail
kwsim=$(realpath "${1:?usage: kmod_export.sh KWSIM SCENARIOS_DIR}")
scenarios=$(realpath "${2:?usage: kmod_export.sh KWSIM SCENARIOS_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}
ok() {
	checks=$((checks + 1))
	echo "ok:   $1"
}

# --- the files, deterministic, beside what DIR already holds --------------------------
f=$scenarios/races/queue-vs-flush-running.kws
mkdir "$tmp/a"
echo keep >"$tmp/a/mine.txt"
"$kwsim" export "$f" --module "$tmp/a" >"$tmp/out" 2>"$tmp/err"
rc=$?
src=$tmp/a/kws_queue_vs_flush_running.c
if [ $rc -eq 0 ] && [ -s "$src" ] && [ -s "$tmp/a/Kbuild" ] && [ -s "$tmp/a/Makefile" ]; then
	ok "export --module writes NAME.c, Kbuild and Makefile"
else
	fail "export --module: exit $rc$(kw_status_problem $rc), $(ls "$tmp/a"): $(cat "$tmp/err")"
fi
if [ "$(cat "$tmp/a/mine.txt")" = keep ] && [ "$(ls -A "$tmp/a" | wc -l)" -eq 4 ]; then
	ok "DIR keeps its own file and holds no temporary one"
else
	fail "DIR holds: $(ls -A "$tmp/a")"
fi
grep -q '^obj-m += kws_queue_vs_flush_running.o$' "$tmp/a/Kbuild" && ok "Kbuild names the module" ||
	fail "Kbuild: $(cat "$tmp/a/Kbuild")"
grep -q 'M=$(CURDIR)' "$tmp/a/Makefile" && ok "the Makefile builds with M=" ||
	fail "Makefile: $(cat "$tmp/a/Makefile")"
"$kwsim" export "$f" --module "$tmp/b" >/dev/null 2>&1
if cmp -s "$src" "$tmp/b/kws_queue_vs_flush_running.c" && cmp -s "$tmp/a/Kbuild" "$tmp/b/Kbuild"; then
	ok "the same scenario gives the same bytes"
else
	fail "two exports of one scenario differ"
fi
"$kwsim" export "$f" --module "$tmp/a" >/dev/null 2>&1
cmp -s "$src" "$tmp/b/kws_queue_vs_flush_running.c" && ok "export over an earlier export" ||
	fail "a second export into the same DIR differs"
for s in 'kwsim: begin %s iterations=%u release=%s cpus=%u steered=%d' 'kwsim: state %u %s' \
	'kwsim: stuck 1 %s line %d' 'kwsim: end %s positive=%u negative=%u'; do
	if grep -qF "$s" "$src"; then ok "the module prints '$s'"; else fail "no '$s' in the module"; fi
done

# --- the state the module prints is kwsim's, minus what it cannot observe ----------------
# names NAME.c: the atoms kw_observe() prints, "NAME=" each, in order
names() {
	sed -n 's/.*"%s=%ld; ", "\([^"]*\)", v\[.*/\1=/p' "$1" | tr -d '\n'
}
for f in races/timer-callback-vs-cancel-delayed-work-sync-mainline races/destroy-with-queued-works \
	api/kthread_flush_worker races/queue-from-hardirq; do
	name=$(sed -n 's/^KW //p' "$scenarios/$f.kws")
	mod=$tmp/m-${f//\//-}
	"$kwsim" export "$scenarios/$f.kws" --module "$mod" >/dev/null 2>&1
	c=$(ls "$mod"/*.c)
	unobserved=$(sed -n 's/.*"kwsim: unobserved %s\\n", "\([^"]*\)".*/\1/p' "$c")
	state=$("$kwsim" run "$scenarios/$f.kws" 2>/dev/null | sed -n '/^States 1$/{n;p}')
	want=""
	IFS=';' read -ra items <<<"$state"
	for item in "${items[@]}"; do
		item=${item# }
		[ -z "$item" ] && continue
		atom=${item%=*}
		if ! grep -qxF "$atom" <<<"$unobserved"; then want="$want$atom="; fi
	done
	got=$(names "$c")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok "$name: the module's state names kwsim's atoms ($got)"
	else
		fail "$name: module $got, kwsim $want (from '$state')"
	fi
done

# --- the library: exported, or refused as the README says ---------------------------------
refused="freezable-blocks-past-timeout
freezable-idle-suspend
KTW_FREEZABLE
timer-rearm-vs-del-timer-mainline
kthread_destroy_worker-armed-mainline
kthread_destroy_worker-armed-v4.9"
nexp=0
for f in "$scenarios"/races/*.kws "$scenarios"/api/*.kws; do
	n=$(basename "$f" .kws)
	rc=0
	"$kwsim" export "$f" --module "$tmp/lib-$n" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if grep -qxF -- "$n" <<<"$refused"; then
		if [ $rc -eq 2 ] && grep -q "^$f:[0-9]*:[0-9]*: error: .* cannot be exported to a kernel module: " \
			"$tmp/err" && [ ! -e "$tmp/lib-$n" ]; then
			ok "$n refused: $(cut -d: -f4- "$tmp/err" | cut -c1-60)..."
		else
			fail "$n: exit $rc$(kw_status_problem $rc), $(cat "$tmp/err")"
		fi
	elif [ $rc -eq 0 ]; then
		nexp=$((nexp + 1))
	else
		fail "$n does not export: exit $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
	fi
done
[ $nexp -eq 35 ] && ok "35 library scenarios export" || fail "$nexp library scenarios export, not 35"

# --- each refused statement: file:line:col, exit 2, nothing written ---------------------------
# refuse NAME LINE:COL WORDS BODY: the scenario BODY (after "KW NAME") is refused at LINE:COL
refuse() {
	local name=$1 at=$2 words=$3 rc
	printf 'KW %s\n%s\n' "$name" "$4" >"$tmp/$name.kws"
	"$kwsim" export "$tmp/$name.kws" --module "$tmp/r-$name" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "^$tmp/$name.kws:$at: error: .*cannot be exported to a kernel module: .*$words" \
		"$tmp/err" && [ ! -e "$tmp/r-$name" ] && [ ! -s "$tmp/out" ]; then
		ok "refused: $name at $at"
	else
		fail "$name: exit $rc$(kw_status_problem $rc), wanted $at '$words': $(cat "$tmp/err")"
	fi
}
pre='{
  cpus = 2;
  fn f { }
  worker W = kthread_create_worker(0, "kw");
  work A = f;
  spinlock L;
  completion C;
}'
refuse suspend 11:1 "suspend the machine" "$pre
P0 { }
suspend at 1ms;"
refuse invariant 11:1 "every scheduling point" "$pre
P0 { kthread_queue_work(W, A); }
never (pending(A))"
refuse task-state 11:9 "race-free" "$pre
P0 { kthread_queue_work(W, A); }
exists (task_state(W->task) == TASK_RUNNING)"
refuse jiffies-in-condition 11:9 "simulated boot" "$pre
P0 { kthread_queue_work(W, A); }
exists (jiffies > 0)"
refuse looks-for-uaf 11:24 "use after" "$pre
P0 { kthread_destroy_worker(W); }
exists (ran(f) == 0 /\\ uaf)"
refuse sleep-in-irq 10:23 "hard irq" "$pre
irq I0 @cpu1 at 1ms { msleep(1); }"
refuse flush-in-timer 3:13 "timer callback" '{
  fn tick { kthread_flush_worker(W); }
  worker W = kthread_create_worker(0, "kw");
  timer T = tick;
}
P0 { mod_timer(T, jiffies + 1); }'
refuse sleep-under-lock 10:20 "line 10" "$pre
P0 { spin_lock(L); wait_for_completion(C); spin_unlock(L); }"
refuse at-under-irqs-off 10:27 "sleeps" "$pre
P0 { local_irq_disable(); at 1ms; local_irq_enable(); }"
refuse while-under-lock 10:20 "deadline" "$pre
P0 { spin_lock(L); while (true) cpu_relax(); spin_unlock(L); }"
refuse ends-locked 10:6 "ends with a spinlock" "$pre
P0 { preempt_disable(); }"
refuse lock-on-one-branch 10:6 "one path only" "$pre
P0 { if (kthread_queue_work(W, A)) spin_lock(L); spin_unlock(L); }"
refuse stop-a-made-worker 10:6 "no thread" "$pre
P0 { kthread_stop(W->task); }"
refuse destroy-a-legacy-worker 7:6 "never allocated" '{
  worker W;
  kthread_init_worker(W);
  kthread_run(kthread_worker_fn, W, "kw");
}
P0 { kthread_destroy_worker(W); }'
refuse del-timer-sync-in-own-callback 3:13 "waits for itself" '{
  fn tick { del_timer_sync(T); }
  timer T = tick;
}
P0 { mod_timer(T, jiffies + 1); }'
refuse cost 3:3 "cost" '{
  cost.lock = 40ns;
}
P0 { }'
refuse seed 3:3 "seed" '{
  seed = 3;
}
P0 { }'
refuse hung-task 3:3 "sysctl" '{
  hung_task = 1s;
}
P0 { }'
refuse unfair 3:3 "queued" '{
  spinlock = unfair;
}
P0 { }'
refuse cpu-down-statement 11:1 "CPUs down" "$pre
P0 { }
cpu_down(1) at 1ms;"
refuse cpu-down-call 10:6 "CPUs down" "$pre
P0 { cpu_down(1); }"

# the absence of a memory error may be exported; a finding is unobserved, not refused
printf 'KW absence\n%s\nP0 { kthread_queue_work(W, A); kthread_destroy_worker(W); }\nforall (~uaf /\\ uaf == 0 /\\ ran(f) == 1 /\\ ~warn)\n' \
	"$pre" >"$tmp/absence.kws"
if "$kwsim" export "$tmp/absence.kws" --module "$tmp/absence" >/dev/null 2>"$tmp/err" &&
	grep -qF '"kwsim: unobserved %s\n", "warn"' "$tmp/absence"/*.c; then
	ok "the absence of a use after free exports; warn is named unobserved"
else
	fail "absence: $(cat "$tmp/err")"
fi

# --- ranges: each drawn per iteration from the module's seed, never its lower bound only --------
printf 'KW ranged\n%s\n%s\n%s\n%s\n' "$pre" \
	'P0 @cpu0 at 1ms..3ms { r0 = kthread_queue_work(W, A); udelay(100..1000); msleep(5..20); at 30ms..40ms; }' \
	'irq I0 @cpu1 at 2ms..10ms { r1 = kthread_queue_work(W, A); }' \
	'exists (0:r0 == true)' >"$tmp/ranged.kws"
rc=0
"$kwsim" export "$tmp/ranged.kws" --module "$tmp/ranged" >/dev/null 2>"$tmp/err" || rc=$?
c=$(ls "$tmp/ranged"/*.c 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$c" ]; then
	ok "a scenario with ranges exports"
	for want in 'kw_udelay(kw_arg((long)kw_range(0, 100ULL, 1000ULL)));' \
		'msleep((unsigned int)kw_arg((long)kw_range(1, 5ULL, 20ULL)));' \
		'if (!kw_at(kw_range(2, 30000000ULL, 40000000ULL)))' \
		'.at_lo = 1000000ULL, .at_hi = 3000000ULL, .at_range = 3,' \
		'.at_lo = 2000000ULL, .at_hi = 10000000ULL, .at_range = 4,' \
		'#define KW_NRANGES 5' 'module_param(seed, ulong, 0444);' 'cpus=%u steered=%d seed=%lu'; do
		grep -qF -- "$want" "$c" && ok "ranged: '$want'" || fail "ranged: no '$want' in the module"
	done
	# the timeout covers the latest `at` a range can draw: 40 ms + 10 s
	grep -q '^#define KW_TIMEOUT_MS 10040U$' "$c" && ok "ranged: the deadline from the upper bound" ||
		fail "ranged: $(grep KW_TIMEOUT_MS "$c" | head -1)"
else
	fail "ranged: exit $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
fi

# --- steering: a known schedule's orderings, enforced; a foreign schedule refused -----------------
tc=$scenarios/races/timer-callback-vs-cancel-delayed-work-sync-mainline.kws
rc=0
"$kwsim" export "$tc" --module "$tmp/st" --steer "$tc" >"$tmp/out" 2>"$tmp/err" || rc=$?
c=$(ls "$tmp/st"/*.c 2>/dev/null)
if [ $rc -eq 0 ] && [ -n "$c" ]; then
	ok "export --steer: exit 0"
	for want in "orderings enforced" \
		"steer 1: P0 line 20 'r0 = kthread_queue_delayed_work(W, D, 1);' ends before P1 line 23 'r1 = kthread_cancel_delayed_work_sync(D);' begins" \
		"not steered: the kernel's timer callback kthread_delayed_work_timer_fn ran on cpu0"; do
		grep -qF -- "$want" "$tmp/out" && ok "steer says '${want:0:50}...'" ||
			fail "steer: no '$want' in: $(cat "$tmp/out")"
	done
	[ "$(grep -c '^  steer [0-9]*:' "$tmp/out")" -eq 1 ] && ok "steer: one ordering" ||
		fail "steer: $(grep -c '^  steer [0-9]*:' "$tmp/out") orderings, not 1"
	for want in '#define KW_STEERED 1' '#define KW_NSITES 2' \
		'{ .a = 0, .a_end = true, .a_nth = 1, .b = 1, .b_end = false, .b_nth = 1,'; do
		grep -qF -- "$want" "$c" && ok "steered module: '$want'" || fail "steered module: no '$want'"
	done
	# the cancel waits for the queueing's end: enter before its line, leave after its call
	if grep -A2 'kw_steer_enter(1);' "$c" | grep -q 'kw_cancel_dwork_sync' &&
		grep -B1 'kw_steer_leave(0);' "$c" | grep -q 'kw_dwork(kthread_queue_delayed_work,'; then
		ok "steered module: P1's cancel waits (kw_steer_enter), P0's queueing marks its end"
	else
		fail "steered module: the wait is not where the ordering says"
	fi
else
	fail "export --steer: exit $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
fi
mk=$scenarios/races/mod-delayed-work-vs-cancel-mainline.kws
"$kwsim" export "$mk" --module "$tmp/st2" --steer "$mk" >"$tmp/out" 2>"$tmp/err"
n=$(grep -c '^  steer [0-9]*:' "$tmp/out")
if [ "$n" -gt 1 ] && grep -q "^#define KW_STEERED $n\$" "$tmp/st2"/*.c &&
	grep -qF "P1 line 25 'r2 = kthread_cancel_delayed_work_sync(D);' has begun before P0 line 22 'r1 = kthread_mod_delayed_work(W, D, 5);' begins" "$tmp/out"; then
	ok "mod-vs-cancel steered: $n orderings, the cancel in flight before the mod, steered=$n"
	# an overlap is held from both sides: the work does not end before the cancel has begun
	grep -qF "P1 line 25 'r2 = kthread_cancel_delayed_work_sync(D);' has begun before f line 15 'udelay(300);' ends" "$tmp/out" &&
		grep -qF '.b_end = true,' "$tmp/st2"/*.c &&
		ok "mod-vs-cancel steered: f's end waits for the cancel's begin" ||
		fail "mod-vs-cancel steered: no ordering on f's end: $(cat "$tmp/out")"
else
	fail "mod-vs-cancel steered: $n orderings: $(cat "$tmp/out" "$tmp/err")"
fi
# v4.9's run: the cancel's statement begins first, the mod takes worker->lock first: that
# ordering is said, not made (it would push the calls' lock sections the other way)
m49=$scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws
"$kwsim" export "$m49" --module "$tmp/st4" --steer "$m49" >"$tmp/out" 2>"$tmp/err"
if grep -qF "not steered: P1 line 29 'r2 = kthread_cancel_delayed_work_sync(D);' has begun before P0 line 26 'r1 = kthread_mod_delayed_work(W, D, 5);' begins: not made, as the second took the lock" "$tmp/out" &&
	! grep -q "^  steer [0-9]*: P1 line 29 .* has begun before P0 line 26" "$tmp/out" &&
	grep -q "^#define KW_STEERED $(grep -c '^  steer [0-9]*:' "$tmp/out")\$" "$tmp/st4"/*.c; then
	ok "mod-vs-cancel v4.9 steered: the ordering the calls' lock order contradicts is not made"
else
	fail "mod-vs-cancel v4.9 steered: $(cat "$tmp/out" "$tmp/err")"
fi
"$kwsim" export "$tc" --module "$tmp/st3" --steer "$tc" >/dev/null 2>&1
cmp -s "$c" "$tmp/st3"/*.c && ok "a steered export is the same bytes twice" ||
	fail "two steered exports differ"
"$kwsim" export "$tc" --module "$tmp/un" >/dev/null 2>&1
grep -q '^#define KW_STEERED 0$' "$tmp/un"/*.c && ! grep -q 'kw_steer_enter([0-9]' "$tmp/un"/*.c &&
	ok "unsteered: KW_STEERED 0, no wait" || fail "the unsteered module waits"
# a schedule of another scenario, a file with no schedule: exit 2, clear, nothing written
steer_refused() {
	local what=$1 words=$2 rc=0
	shift 2
	"$kwsim" export "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ $rc -eq 2 ] && grep -q "^kwsim export: --steer .*$words" "$tmp/err" &&
		[ ! -e "$tmp/sr" ]; then
		ok "steer refused: $what"
	else
		fail "steer: $what: exit $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
	fi
}
steer_refused "another scenario's schedule" "its schedule is not of .*differ from line 1 on" \
	"$tc" --module "$tmp/sr" --steer "$mk"
sed 's/kthread_queue_delayed_work(W, D, 1)/kthread_queue_delayed_work(W, D, 2)/' "$tc" >"$tmp/edited.kws"
steer_refused "the schedule of an edited copy" "differ from line 20 on" \
	"$tc" --module "$tmp/sr" --steer "$tmp/edited.kws"
steer_refused "a file with no schedule" "no schedule section" \
	"$scenarios/races/queue-vs-flush-running.kws" --module "$tmp/sr" \
	--steer "$scenarios/races/queue-vs-flush-running.kws"

# --- usage ------------------------------------------------------------------------------------
usage() {
	local what=$1 rc
	shift
	"$kwsim" export "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "^kwsim export: " "$tmp/err"; then
		ok "usage: $what"
	else
		fail "usage: $what: exit $rc$(kw_status_problem $rc): $(cat "$tmp/err")"
	fi
}
f=$scenarios/races/queue-vs-flush-running.kws
usage "--module with --html" "$f" --module "$tmp/u1" --html "$tmp/u1.html"
usage "--module with --set" "$f" --module "$tmp/u2" --set cpus=4
usage "--module without a value" "$f" --module
usage "--module in a missing parent" "$f" --module "$tmp/no/such/dir"
usage "--steer without --module" "$f" --html "$tmp/u3.html" --steer "$f"
[ ! -e "$tmp/u1" ] && [ ! -e "$tmp/u2" ] && [ ! -e "$tmp/u3.html" ] && ok "usage errors write nothing" || fail "a usage error wrote"

echo "$checks checks passed, $failed failed"
[ $failed -eq 0 ]
