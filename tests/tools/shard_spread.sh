#!/usr/bin/env bash
# Shards spread as docs/explore.md "Scale-out" and docs/fuzz.md show: kwsim explore
# --shard and kwsim fuzz --shard run by GNU parallel (local jobs) and by a
# Slurm array job (the docs' array scripts, through sbatch --wait, on a
# single-node Slurm this script starts on localhost with a slurm.conf of its
# own under its temp dir), then kwsim merge. What must hold: explore's N
# shards merged print the one-process summary byte for byte; fuzz's N shards
# merged (--out, --corpus) print what --jobs N (the campaign of N streams)
# prints, with the same files and corpus byte for byte, also from a
# starting --corpus and with --shard I/N --jobs J (= --jobs N J); merge
# refuses another campaign's shard and a shard given twice (exit 2), says
# which streams are missing; bad --shard values are exit 2.
# Without `parallel` (tools/setup installs it) the script skips (77); without
# slurm-wlm, or when its daemons do not come up, the array scripts' bodies
# run once per index with the variables Slurm sets (KWSIM_TEST_NO_SLURM=1 asks
# for that path where Slurm would come up). Work is bounded by runs
# and programs; the only wait is for Slurm's daemons (at most 60 polls).
# Usage: shard_spread.sh KWSIM DOCS SCENARIOS (DOCS: the docs/ folder, whose pages hold the scripts)
set -uo pipefail
kwsim=${1:?usage: shard_spread.sh KWSIM DOCS SCENARIOS}
docs=${2:?usage: shard_spread.sh KWSIM DOCS SCENARIOS}
scenarios=$(cd "${3:?usage: shard_spread.sh KWSIM DOCS SCENARIOS}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
ctld_pid="" slurmd_pid=""
cleanup() {
	# only the daemons this script started, by their pid files
	[[ -n $slurmd_pid ]] && kill "$slurmd_pid" 2>/dev/null
	[[ -n $ctld_pid ]] && kill "$ctld_pid" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		{ [[ -n $slurmd_pid ]] && kill -0 "$slurmd_pid" 2>/dev/null; } ||
			{ [[ -n $ctld_pid ]] && kill -0 "$ctld_pid" 2>/dev/null; } || break
		sleep 0.5
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"

# expect RC STDERR_REGEX ARGS...: kwsim's exit status RC, stderr matching (empty: anything)
expect() {
	local want_rc=$1 want_err=$2
	shift 2
	check
	run "$@" >"$tmp/out" 2>"$tmp/err"
	if [[ $rc -ne $want_rc ]]; then
		fail "kwsim $*: exit $rc, want $want_rc: $(head -3 "$tmp/err")"
	elif [[ -n $want_err ]] && ! grep -qE -- "$want_err" "$tmp/err"; then
		fail "kwsim $*: stderr does not match '$want_err': $(head -3 "$tmp/err")"
	fi
}

# same A B WHAT: two files or trees equal byte for byte
same() {
	check
	diff -r "$1" "$2" >"$tmp/diff" 2>&1 || fail "$3: $(head -8 "$tmp/diff")"
}

race=$scenarios/races/mod-delayed-work-vs-cancel-v4.9.kws
# the fuzz campaign of every check: small, and it finds (seed 6's streams, cli_fuzz.sh's)
F=(--kernel v4.9 --seed 6 --runs 12 --schedules 6 --cross-runs 20)

# --- bad --shard values and merges of what is not one campaign: no parallel needed ---------
expect 2 "kwsim fuzz: --shard wants I/N with 0 <= I < N, not '3/2'" fuzz "${F[@]}" --shard 3/2 --out "$tmp/x"
expect 2 "kwsim fuzz: --shard wants I/N" fuzz "${F[@]}" --shard 0/0 --out "$tmp/x"
expect 2 "kwsim fuzz: --shard wants I/N" fuzz "${F[@]}" --shard junk --out "$tmp/x"
expect 2 "kwsim fuzz: --shard wants I/N" fuzz "${F[@]}" --shard 1/2/3 --out "$tmp/x"
expect 2 "kwsim fuzz: --shard wants I/N" fuzz "${F[@]}" --shard -1/2 --out "$tmp/x"
expect 2 "kwsim fuzz: --shard wants I/N" fuzz "${F[@]}" --shard 99999999999/2 --out "$tmp/x"
expect 2 "kwsim fuzz: --shard writes its result to --out DIR" fuzz "${F[@]}" --shard 0/2
expect 2 "kwsim explore: --shard wants I/N" explore "$race" --strategy random --shard 2/2
[[ -e $tmp/x ]] && fail "a refused --shard made its --out"

small=(--kernel v4.9 --seed 3 --runs 2 --schedules 2 --cross-runs 0)
expect 0 "" fuzz "${small[@]}" --shard 0/2 --out "$tmp/m0"
expect 0 "" fuzz "${small[@]}" --shard 1/2 --out "$tmp/m1"
expect 0 "" fuzz "${small[@]}" --seed 4 --shard 1/2 --out "$tmp/m1s4"
expect 0 "" fuzz "${small[@]}" --schedules 3 --shard 1/2 --out "$tmp/m1k3"
expect 0 "" fuzz "${small[@]}" --shard 1/3 --out "$tmp/m1of3"
check
grep -qE "^campaign	v4\.9	3	2	" "$tmp/m0/result.txt" && grep -q "^shard	0	2	1	" "$tmp/m0/result.txt" ||
	fail "a shard's result.txt does not record the campaign and the shard: $(head -3 "$tmp/m0/result.txt")"
expect 2 "a shard of another campaign \(--seed differs\)" merge "$tmp/m0" "$tmp/m1s4"
expect 2 "a shard of another campaign \(--schedules differs\)" merge "$tmp/m0" "$tmp/m1k3"
expect 2 "a shard of another campaign \(the number of streams" merge "$tmp/m0" "$tmp/m1of3"
expect 2 "stream 0 of 2 is there twice" merge "$tmp/m0" "$tmp/m0"
expect 3 "1 of the 2 streams are missing" merge "$tmp/m1"
grep -q "^stopped after 2 of 4 programs" "$tmp/out" || fail "a merge with a stream missing: $(cat "$tmp/out")"
expect 0 "" merge "$tmp/m0" "$tmp/m1"
expect 2 "kwsim merge: cannot read .*result.txt" merge "$tmp/m0" "$tmp/m1" "$scenarios"
check
cp -r "$tmp/m1" "$tmp/m1cut" && head -4 "$tmp/m1/result.txt" >"$tmp/m1cut/result.txt"
expect 2 "not a whole kwsim fuzz --shard result" merge "$tmp/m0" "$tmp/m1cut"
# an explore shard and a fuzz shard are not one campaign's
expect 1 "" explore "$race" --strategy random --runs 20 --shard 0/2 --out "$tmp/e0"
expect 2 "not a whole kwsim fuzz --shard result" merge "$tmp/m0" "$tmp/e0"
expect 2 "" merge "$tmp/e0" "$tmp/m0"

if ! command -v parallel >/dev/null; then
	echo "SKIP: GNU parallel is not installed (Debian's 'parallel'; tools/setup installs it)"
	summary
	exit 77
fi
export PATH="$tmp/bin:$PATH"
# parallel's own files (~/.parallel by default) under the temp dir too
export PARALLEL_HOME=$tmp/parallel-home TMPDIR=$tmp
mkdir -p "$PARALLEL_HOME"
mkdir -p "$tmp/bin" && ln -s "$(cd "$(dirname "$kwsim")" && pwd)/$(basename "$kwsim")" "$tmp/bin/kwsim"

# --- GNU parallel, local jobs: explore's 3 shards merged = one process --------------------
ex=(--strategy random --runs 300 --kernel v4.9,mainline)
expect 1 "" explore "$race" "${ex[@]}" --out "$tmp/one-x"
cp "$tmp/out" "$tmp/explore-one.txt"
check
(cd "$tmp" && parallel -j 2 kwsim explore "$race" "${ex[@]}" --shard {}/3 --out "par-x{}" \
	">/dev/null" ::: 0 1 2) || [[ $? -eq 3 ]] || fail "parallel explore: exit $?"
expect 1 "" merge "$tmp/par-x0" "$tmp/par-x1" "$tmp/par-x2"
same "$tmp/explore-one.txt" "$tmp/out" "explore: 3 shards by parallel, merged, differ from one process"

# --- GNU parallel: fuzz's 3 shards merged = --jobs 3 (summary, files, corpus) ---------------
mkdir -p "$tmp/jobs3" "$tmp/par3"
(cd "$tmp/jobs3" && kwsim fuzz "${F[@]}" --jobs 3 --out found --corpus corpus >summary.txt 2>err.txt)
rc=$?
check
[[ $rc -eq 1 ]] || fail "fuzz --jobs 3: exit $rc, want 1 (a finding): $(head -3 "$tmp/jobs3/err.txt")"
grep -qE '^implementation findings: [1-9]' "$tmp/jobs3/summary.txt" ||
	fail "fuzz --jobs 3 found nothing: the equality below would be weak"
check
(cd "$tmp/par3" && parallel -j 2 kwsim fuzz "${F[@]}" --shard {}/3 --out "shard-{}" \
	">/dev/null" "2>/dev/null" ::: 0 1 2) || [[ $? -le 3 ]] || fail "parallel fuzz: exit $?"
(cd "$tmp/par3" && kwsim merge --out found --corpus corpus shard-0 shard-1 shard-2 \
	>summary.txt 2>err.txt)
rc=$?
check
[[ $rc -eq 1 ]] || fail "merge of 3 fuzz shards: exit $rc, want 1: $(head -3 "$tmp/par3/err.txt")"
same "$tmp/jobs3/summary.txt" "$tmp/par3/summary.txt" "fuzz: 3 shards merged, summary differs from --jobs 3"
same "$tmp/jobs3/found" "$tmp/par3/found" "fuzz: 3 shards merged, files differ from --jobs 3"
same "$tmp/jobs3/corpus" "$tmp/par3/corpus" "fuzz: 3 shards merged, corpus differs from --jobs 3"
check
ls "$tmp/jobs3/corpus"/*.kwp >/dev/null 2>&1 || fail "fuzz --jobs 3 saved no corpus"
# the merge's JSON is --jobs's (without --out, merge names the files where they are)
(cd "$tmp/jobs3" && kwsim fuzz "${F[@]}" --jobs 3 --out found-j --json >json.txt 2>/dev/null)
(cd "$tmp/par3" && kwsim merge --json --out found-j shard-0 shard-1 shard-2 >json.txt 2>/dev/null)
same "$tmp/jobs3/json.txt" "$tmp/par3/json.txt" "fuzz: 3 shards merged, --json differs from --jobs 3"

# from a starting corpus (the one above): 2 shards go on from it as --jobs 2 does
cp -r "$tmp/jobs3/corpus" "$tmp/start-a" && cp -r "$tmp/jobs3/corpus" "$tmp/start-b"
G=(--kernel v4.9 --seed 9 --runs 6 --schedules 4 --cross-runs 0)
(cd "$tmp" && kwsim fuzz "${G[@]}" --jobs 2 --corpus start-a --out go-a >go-a.txt 2>/dev/null)
(cd "$tmp" && parallel -j 2 kwsim fuzz "${G[@]}" --corpus start-b --shard {}/2 --out "go-{}" \
	">/dev/null" "2>/dev/null" ::: 0 1)
same "$tmp/jobs3/corpus" "$tmp/start-b" "a shard wrote to the --corpus it started from"
(cd "$tmp" && kwsim merge --out go-m --corpus start-b go-0 go-1 >go-m.txt 2>/dev/null)
sed -i 's/go-a/go-m/' "$tmp/go-a.txt"
same "$tmp/go-a.txt" "$tmp/go-m.txt" "fuzz from a corpus: 2 shards merged differ from --jobs 2"
same "$tmp/go-a" "$tmp/go-m" "fuzz from a corpus: 2 shards' files merged differ from --jobs 2's"
same "$tmp/start-a" "$tmp/start-b" "fuzz from a corpus: the merged corpus differs from --jobs 2's"
# shards that started from another corpus are another campaign's
expect 0 "" fuzz "${small[@]}" --corpus "$tmp/start-a" --shard 1/2 --out "$tmp/m1c"
expect 2 "a shard of another campaign \(--corpus \(the starting corpus's programs\) differs\)" \
	merge "$tmp/m0" "$tmp/m1c"

# --- Slurm: the docs' array scripts, through sbatch --wait -------------------------------------
# A page's script: its block after the line naming it (in docs/explore.md or docs/fuzz.md); the
# test's sizes put in.
script() {
	awk -v mark="$1" 'index($0, mark) { on = 1; next } on && /^ *```(sh)?$/ { if (n++) exit; next }
		on && n == 1 { sub(/^  /, ""); print }' "$docs"/explore.md "$docs"/fuzz.md
}
script "sbatch --array=0-63 explore.sh" | sed -e 's/--runs 10000000/--runs 300 --strategy random --kernel v4.9,mainline/' \
	-e 's/--jobs 4/--jobs 2/' -e 's/cpus-per-task=4/cpus-per-task=1/' -e "s|race.kws|$race|" >"$tmp/explore.sh"
script "sbatch --array=0-1 fuzz.sh" | sed -e 's/--kernel tree:6.12 --seed 1 --runs 100000/--kernel v4.9 --seed 6 --runs 12 --schedules 6 --cross-runs 20/' \
	-e 's/--jobs 4/--jobs 2/' -e 's/cpus-per-task=4/cpus-per-task=1/' >"$tmp/fuzz.sh"
check
grep -q -- '--runs 300 --strategy random' "$tmp/explore.sh" && grep -q 'SLURM_ARRAY_TASK_ID' "$tmp/explore.sh" ||
	fail "docs/explore.md's array script is not where or what this test expects: $(cat "$tmp/explore.sh")"
check
grep -q -- '--runs 12 --schedules 6' "$tmp/fuzz.sh" && grep -q 'SLURM_ARRAY_TASK_COUNT' "$tmp/fuzz.sh" ||
	fail "docs/fuzz.md's array script is not where or what this test expects: $(cat "$tmp/fuzz.sh")"
chmod +x "$tmp/explore.sh" "$tmp/fuzz.sh"

# A single-node Slurm on localhost: its files under $tmp, ports of its own, no munge.
slurm_up() {
	local s=$tmp/slurm host cpus
	[[ -z ${KWSIM_TEST_NO_SLURM:-} ]] || { why="KWSIM_TEST_NO_SLURM is set"; return 1; }
	command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null ||
		{ why="slurm-wlm is not installed"; return 1; }
	((EUID == 0)) || { why="slurmd must run as root"; return 1; }
	host=$(hostname -s) cpus=$(nproc)
	mkdir -p "$s/state" "$s/spool"
	cat >"$s/slurm.conf" <<EOF
ClusterName=kwsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$((17000 + $$ % 2000))
SlurmdPort=$((19000 + $$ % 2000))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=kwsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$s/slurm.conf
	slurmctld -f "$SLURM_CONF" -i || { why="slurmctld did not start"; return 1; }
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[[ -s $s/slurmctld.pid ]] && break
		sleep 0.5
	done
	ctld_pid=$(cat "$s/slurmctld.pid" 2>/dev/null)
	slurmd -f "$SLURM_CONF" || { why="slurmd did not start"; return 1; }
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[[ -s $s/slurmd.pid ]] && break
		sleep 0.5
	done
	slurmd_pid=$(cat "$s/slurmd.pid" 2>/dev/null)
	for _ in $(seq 60); do
		sinfo -h -o %T 2>/dev/null | grep -q idle && return 0
		sleep 1
	done
	why="the node was not idle after 60 polls: $(tail -2 "$s/slurmctld.log" "$s/slurmd.log" 2>&1)"
	return 1
}

# array SCRIPT N: indices 0..N-1 run in $tmp/slurm-run (sbatch --wait, or the body per index)
array() {
	mkdir -p "$tmp/slurm-run/out"
	if ((slurm)); then
		# its status is the tasks' highest: kwsim's 1 is "found something"
		(cd "$tmp/slurm-run" && sbatch --wait --quiet --array=0-$(($2 - 1)) -o /dev/null "$1") ||
			[[ $? -eq 1 ]] || fail "sbatch --wait $1: exit $?"
	else
		for ((i = 0; i < $2; i++)); do
			(cd "$tmp/slurm-run" && SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$2 sh "$1" >/dev/null 2>&1)
		done
	fi
}

why=""
slurm=0
slurm_up && slurm=1
((slurm)) && echo "Slurm: slurmctld and slurmd up on localhost; the array scripts run through sbatch --wait" ||
	echo "Slurm: not used ($why): the array scripts' bodies run once per index"
array "$tmp/explore.sh" 3
expect 1 "" merge "$tmp/slurm-run/out/shard-0" "$tmp/slurm-run/out/shard-1" "$tmp/slurm-run/out/shard-2"
same "$tmp/explore-one.txt" "$tmp/out" "explore: 3 shards of the Slurm array, merged, differ from one process"
# 2 shards of --jobs 2 each: the campaign of 4 streams, --jobs 4
array "$tmp/fuzz.sh" 2
F2=(--kernel v4.9 --seed 6 --runs 12 --schedules 6 --cross-runs 20)
mkdir -p "$tmp/jobs4"
(cd "$tmp/jobs4" && kwsim fuzz "${F2[@]}" --jobs 4 --out found --corpus corpus >summary.txt 2>/dev/null)
(cd "$tmp/slurm-run" && kwsim merge --out found --corpus corpus out/fuzz-* >summary.txt 2>err.txt)
check
grep -qE '^implementation findings: [1-9]' "$tmp/jobs4/summary.txt" || fail "fuzz --jobs 4 found nothing"
same "$tmp/jobs4/summary.txt" "$tmp/slurm-run/summary.txt" "fuzz: the Slurm array's 2 shards x --jobs 2 merged, summary differs from --jobs 4"
same "$tmp/jobs4/found" "$tmp/slurm-run/found" "fuzz: the Slurm array's shards merged, files differ from --jobs 4"
same "$tmp/jobs4/corpus" "$tmp/slurm-run/corpus" "fuzz: the Slurm array's shards merged, corpus differs from --jobs 4"

summary
