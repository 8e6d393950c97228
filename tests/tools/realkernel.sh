#!/usr/bin/env bash
# tools/realkernel's comparison, without QEMU: saved serial logs (--log) of
# modules that printed a consistent table, a state kwsim never produces, a
# WARNING kwsim never gives, a hang kwsim does not find (a fake kwsim table
# via --explore-json), an expected reproduction that is missing; each must
# give its exit status and name what is wrong. Bad logs and flags are exit 2.
# Usage: realkernel.sh KWSIM VARIANT   (VARIANT: what 6.1 is compared with,
#        tree:6.1 when the build has the kernel trees, else mainline)
set -uo pipefail
kwsim=${1:?usage: realkernel.sh KWSIM VARIANT}
variant=${2:?usage: realkernel.sh KWSIM VARIANT}
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
races=$root/scenarios/races
runner=$root/tools/realkernel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# expect RC PATTERN WHAT -- ARGS...: the runner exits RC and prints PATTERN
expect() {
	local want=$1 pattern=$2 what=$3 rc=0
	shift 4
	checks=$((checks + 1))
	python3 "$runner" --kwsim "$kwsim" --variant "6.1=$variant" --runs 50 "$@" \
		>"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$what: exit $rc, not $want"
		sed 's/^/    /' "$tmp/out"
	elif ! grep -qE -- "$pattern" "$tmp/out"; then
		fail "$what: no '$pattern' in the output"
		sed 's/^/    /' "$tmp/out"
	fi
}

boot() { # the kernel's first line, and the init's, as a serial log starts
	echo "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP"
	echo "[    3.100000] kwsim-init: up 3.10"
}

# --- flush-armed: the module leaves P0 stuck in kthread_flush_work() ----------
fa=$races/flush-armed-delayed-work.kws
{
	boot
	echo "[    3.200000] kwsim-init: load 00-flush-armed-delayed-work iterations=1"
	echo "[    3.300000] kwsim: begin flush-armed-delayed-work iterations=1 release=6.1.0-57-amd64 cpus=2 steered=0"
	echo "[    3.300100] kwsim: unobserved deadlock"
	echo "[    8.300000] kwsim: stuck 1 P0 line 20"
	echo "[    8.300100] kwsim: note 0 of 1 iterations ran"
	echo "[    8.300200] kwsim: end flush-armed-delayed-work positive=0 negative=0"
	echo "[   10.900000] INFO: task kw-P0:105 blocked for more than 5 seconds."
	echo "[   10.900100]       Tainted: G           OE      6.1.0-57-amd64 #1 Debian 6.1.192-3"
	echo "[   10.900200] task:kw-P0        state:D stack:0     pid:105   ppid:2      flags:0x00004000"
	echo "[   10.900300] Call Trace:"
	echo "[   10.900400]  <TASK>"
	echo "[   10.900500]  __schedule+0x34d/0xa00"
	echo "[   10.900600]  __wait_for_common+0x94/0x1e0"
	echo "[   10.900700]  kthread_flush_work+0x9a/0xe0"
	echo "[   10.900800]  </TASK>"
	echo "[   11.900000] kwsim-init: done 00-flush-armed-delayed-work 11.90"
} >"$tmp/fa-hang.log"
expect 0 'reached \[condition\]' "flush-armed hang, expected" -- \
	--log "6.1=$tmp/fa-hang.log" --expect "$fa" "$fa"
expect 0 'hung task kw-P0 \(D state in kthread_flush_work\)' "the hung-task report is read" -- \
	--log "6.1=$tmp/fa-hang.log" "$fa"
expect 0 'P0 stuck at scenario line 20; kwsim: deadlock kthread_flush_work' \
	"the stuck context is matched with kwsim's finding" -- --log "6.1=$tmp/fa-hang.log" "$fa"

# a deliberately wrong expectation: a kwsim table with no deadlock at all
cat >"$tmp/fake.json" <<'EOF'
{"scenario": "flush-armed-delayed-work", "condition": {"quantifier": "exists"},
 "kernels": [{"kernel": "fake", "runs": 10, "findings": [],
   "states": [{"state": "P0:r0=1; done=1; ran(f)=1; deadlock=0; ", "count": 10, "positive": false}]}]}
EOF
expect 1 'FIDELITY: P0 stuck at line 20 on the kernel; kwsim finds no deadlock' \
	"a hang against a fake kwsim table that never hangs" -- \
	--log "6.1=$tmp/fa-hang.log" --explore-json "$fa=$tmp/fake.json" "$fa"
expect 1 'expected the condition \(exists\) to be witnessed' \
	"the fake table's condition cannot be witnessed" -- \
	--log "6.1=$tmp/fa-hang.log" --explore-json "$fa=$tmp/fake.json" --expect "$fa" "$fa"

# the flush returned: a state kwsim never produces, and the hang is missing
sed -e 's/kwsim: stuck 1 P0 line 20/kwsim: state 1 P0:r0=1; done=1; ran(f)=1; /' \
	-e '/blocked for more than/,/<\/TASK>/d' "$tmp/fa-hang.log" >"$tmp/fa-done.log"
expect 1 "FIDELITY: the kernel showed 'P0:r0=1; done=1; ran\(f\)=1;' 1 times; kwsim never produces it" \
	"a flush that returns" -- --log "6.1=$tmp/fa-done.log" --expect "$fa" "$fa"
expect 1 'expected the condition' "the flush-armed hang does not reproduce" -- \
	--log "6.1=$tmp/fa-done.log" --expect "$fa" "$fa"

# --- timer callback vs cancel: three states kwsim finds ------------------------
tc=$races/timer-callback-vs-cancel-delayed-work-sync-mainline.kws
table() { # STATE-LINES...: a log of that scenario with these state lines
	boot
	echo "[    3.200000] kwsim-init: load 00-x iterations=100"
	echo "[    3.300000] kwsim: begin timer-callback-vs-cancel-delayed-work-sync-mainline iterations=100 release=6.1.0-57-amd64 cpus=2 steered=0"
	echo "[    3.300100] kwsim: unobserved warn"
	echo "[    3.300200] kwsim: unobserved leak"
	for s in "$@"; do
		echo "[    5.000000] kwsim: state $s"
	done
	echo "[    6.300000] kwsim: end timer-callback-vs-cancel-delayed-work-sync-mainline positive=0 negative=100"
}
table "70 P0:r0=1; P1:r1=1; P1:r2=0; ran(f)=0; " "30 P0:r0=1; P1:r1=0; P1:r2=1; ran(f)=1; " \
	>"$tmp/tc-ok.log"
expect 0 'P0:r0=1; P1:r1=0; P1:r2=0; ran\(f\)=0; warn=0; leak=0; +[0-9]+/50 +0/100 .*not reached in 100 \[condition\]' \
	"a consistent table: kwsim's window not reached is no error" -- --log "6.1=$tmp/tc-ok.log" "$tc"
expect 0 'not observable on the kernel: leak' "what the kernel cannot show is said" -- \
	--log "6.1=$tmp/tc-ok.log" "$tc"
expect 1 'expected the condition' "the same table, the window expected" -- \
	--log "6.1=$tmp/tc-ok.log" --expect "$tc" "$tc"
table "99 P0:r0=1; P1:r1=1; P1:r2=0; ran(f)=0; " "1 P0:r0=1; P1:r1=1; P1:r2=1; ran(f)=1; " \
	>"$tmp/tc-bad.log"
expect 1 "FIDELITY: the kernel showed 'P0:r0=1; P1:r1=1; P1:r2=1; ran\(f\)=1;' 1 times" \
	"a cancel that returned true although the work ran" -- --log "6.1=$tmp/tc-bad.log" "$tc"
expect 1 'INCONSISTENT' "the verdict line" -- --log "6.1=$tmp/tc-bad.log" "$tc"
table "70 P0:r0=1; P1:r1=1; P1:r2=0; ran(f)=0; " >"$tmp/tc-short.log"
expect 1 'the states count 70 iterations \(\+0 unsafe, \+0 late\), not 100' "lost iterations" -- \
	--log "6.1=$tmp/tc-short.log" "$tc"

{
	sed '/kwsim: end/d' "$tmp/tc-short.log"
	echo "[    6.200000] kwsim: late 30 (iterations in which a context started more than late_us=25 after its time; their states are not counted)"
	echo "[    6.300000] kwsim: end timer-callback-vs-cancel-delayed-work-sync-mainline positive=0 negative=70"
} >"$tmp/tc-late.log"
expect 0 'module: 30 iterations not counted: a context started late' \
	"late iterations are accounted for" -- --log "6.1=$tmp/tc-late.log" "$tc"

# a steered module's table: its orderings and how often each held are the module's notes
{
	sed -e 's/steered=0/steered=1 seed=1/' -e '/kwsim: end/d' "$tmp/tc-ok.log"
	echo "[    3.300050] kwsim: note steer 1: P0 line 20 'r0 = kthread_queue_delayed_work(W, D, 1);' ends before P1 line 23 'r1 = kthread_cancel_delayed_work_sync(D);' begins"
	echo "[    6.200000] kwsim: note steer 1 held 97 waited 2 unenforced 1 (of 100 iterations; unenforced: the wait timed out after steer_us=100000)"
	echo "[    6.300000] kwsim: end timer-callback-vs-cancel-delayed-work-sync-mainline positive=0 negative=100"
} >"$tmp/tc-steered.log"
expect 0 'timer-callback-vs-cancel-delayed-work-sync-mainline on 6.1 .*steered=1' \
	"a steered module's table says steered=1" -- --log "6.1=$tmp/tc-steered.log" "$tc"
expect 0 'module: steer 1 held 97 waited 2 unenforced 1' "its orderings' counts are shown" -- \
	--log "6.1=$tmp/tc-steered.log" "$tc"

# --- WARNINGs from the log ------------------------------------------------------
ow=$races/one-work-two-workers.kws
warnlog() { # FUNCTION LINE
	boot
	echo "[    3.300000] kwsim: begin one-work-two-workers iterations=10 release=6.1.0-57-amd64 cpus=2 steered=0"
	echo "[    3.300100] kwsim: unobserved warn(\"kthread_insert_work_sanity_check\")"
	echo "[    3.400000] ------------[ cut here ]------------"
	echo "[    3.400100] WARNING: CPU: 0 PID: 120 at kernel/kthread.c:$2 $1+0x4b/0x60"
	echo "[    4.000000] kwsim: state 10 P0:r0=1; P0:r1=1; ran(f)=2; "
	echo "[    4.100000] kwsim: end one-work-two-workers positive=0 negative=10"
}
warnlog kthread_insert_work_sanity_check 975 >"$tmp/ow.log"
expect 0 'warn\(kthread_insert_work_sanity_check\): seen\) +reached \[condition\]' \
	"the WARN is read from the log" -- --log "6.1=$tmp/ow.log" --expect "$ow" "$ow"
expect 0 'kernel: WARNING at kernel/kthread.c:975 kthread_insert_work_sanity_check' \
	"the WARN's place is printed" -- --log "6.1=$tmp/ow.log" "$ow"
warnlog kthread_queue_work 880 >"$tmp/ow-other.log"
expect 1 'expected the condition' "another function's WARN is not this one" -- \
	--log "6.1=$tmp/ow-other.log" --expect "$ow" "$ow"
if [ "$variant" = tree:6.1 ]; then
	# 6.1 inlines the static helper: its WARN names the caller, at the helper's line
	warnlog kthread_insert_work 975 >"$tmp/ow-inlined.log"
	expect 0 'warn\(kthread_insert_work_sanity_check\): seen\)' \
		"an inlined helper's WARN, matched by its line" -- \
		--log "6.1=$tmp/ow-inlined.log" --expect "$ow" "$ow"
fi
dq=$races/destroy-with-queued-works.kws
{
	boot
	echo "[    3.300000] kwsim: begin destroy-with-queued-works iterations=5 release=6.1.0-57-amd64 cpus=2 steered=0"
	echo "[    3.400100] WARNING: CPU: 1 PID: 121 at kernel/kthread.c:880 kthread_destroy_worker+0x4b/0x60"
	echo "[    4.000000] kwsim: state 5 ran(fa)=1; ran(fb)=1; a_at=1; b_at=2; "
	echo "[    4.100000] kwsim: end destroy-with-queued-works positive=5 negative=0"
} >"$tmp/dq.log"
expect 1 'FIDELITY: the kernel log shows warn, which kwsim never produces' \
	"a WARNING where kwsim never warns" -- --log "6.1=$tmp/dq.log" "$dq"

# --- several scenarios in one boot ----------------------------------------------
cat "$tmp/tc-ok.log" >"$tmp/two.log"
sed -n '/kwsim-init: load/,$p' "$tmp/fa-hang.log" >>"$tmp/two.log"
expect 0 'every state the real kernels showed is one kwsim produces' "two modules in one boot" -- \
	--log "6.1=$tmp/two.log" --expect "$fa" "$tc" "$fa"
expect 1 "flush-armed-delayed-work on 6.1: the module printed nothing" "a module missing from the boot" -- \
	--log "6.1=$tmp/tc-ok.log" "$tc" "$fa"
{
	head -n 7 "$tmp/tc-ok.log"
	echo "[   60.000000] kwsim-init: timeout 00-x after 60 s"
} >"$tmp/cut.log"
expect 1 'the module did not finish \(the init.s deadline\)' "a module that never ended" -- \
	--log "6.1=$tmp/cut.log" "$tc"

# --- bad input --------------------------------------------------------------------
echo "[    3.300000] kwsim: state 1 P0:r0=1; " >"$tmp/orphan.log"
expect 2 "orphan.log:1: error: 'kwsim: state' before any 'kwsim: begin'" "a state outside a module" -- \
	--log "6.1=$tmp/orphan.log" "$fa"
expect 2 'no scenario FILE given' "no FILE" -- --log "6.1=$tmp/fa-hang.log"
expect 2 "'6.2' is not one of 6.1, 6.12" "an unknown kernel in --log" -- --log "6.2=$tmp/fa-hang.log" "$fa"
expect 2 'no such file' "a missing scenario" -- --log "6.1=$tmp/fa-hang.log" "$tmp/none.kws"
expect 2 'not one of the FILEs' "--expect of a file not run" -- --log "6.1=$tmp/fa-hang.log" --expect "$tc" "$fa"
expect 2 'positive number' "--iterations 0" -- --iterations 0 "$fa"
expect 2 '--steer .*not one of the FILEs' "--steer of a file not run" -- \
	--log "6.1=$tmp/fa-hang.log" --steer "$tc=$tc" "$fa"
expect 2 '--steer .*no such file' "--steer with a missing schedule" -- \
	--log "6.1=$tmp/fa-hang.log" --steer "$fa=$tmp/none.kws" "$fa"
expect 2 'want NAME=VALUE' "a bad --param" -- --param 'x' "$fa"
echo '{"kernels": []}' >"$tmp/empty.json"
expect 2 'not a kwsim explore --json summary' "a bad --explore-json" -- \
	--log "6.1=$tmp/fa-hang.log" --explore-json "$fa=$tmp/empty.json" "$fa"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
