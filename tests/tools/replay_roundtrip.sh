#!/usr/bin/env bash
# kwsim run --save-schedule, then kwsim replay: the replay must reproduce the
# run byte for byte. Every race in scenarios/races, on every kernel variant it
# applies to (a file that sets 'kernel = ...;' names its only one; otherwise
# v4.9, mainline and every tree 'kwsim help' lists), runs with the random
# strategy and two seeds derived from its name and the variant (so the test
# is the same every time); the replay must print the same stdout and the same
# text trace, and end with the same exit status. Then what a schedule must
# keep and check: settings given with --set, a kernel tree that is not built
# in, an empty log, a log that does not follow the strategy it names, and a
# schedule that cannot be written.
# Usage: replay_roundtrip.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: replay_roundtrip.sh KWSIM}")	# the runs cd
here=$(cd "$(dirname "$0")" && pwd)
races=$here/../../scenarios/races
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/run" "$tmp/replay"

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# Run and replay print the file's path: both run in a directory of their
# own on a file of the same name, so that the paths print the same.
# roundtrip NAME.kws VARIANT SEED [ARGS]: run $tmp/run/NAME.kws, save, replay
roundtrip() {
	local name=$1 variant=$2 seed=$3 what rc_run rc_rep
	shift 3
	what="$name on $variant, seed $seed${*:+ ($*)}"
	checks=$((checks + 1))
	(cd "$tmp/run" && "$kwsim" run "$name" --kernel "$variant" --seed "$seed" "$@" \
		--trace text -o trace --save-schedule "../replay/$name" >out 2>err)
	rc_run=$?
	if [ "$rc_run" -eq 2 ] || [ "$rc_run" -gt 3 ]; then
		fail "$what: the run exited $rc_run: $(head -3 "$tmp/run/err")"
		return 1
	fi
	if ! grep -q "^kernel $variant, .*strategy random, seed $seed\$" "$tmp/run/out"; then
		fail "$what: the run's header is not 'kernel $variant, ... strategy random, seed $seed'"
		return 1
	fi
	(cd "$tmp/replay" && "$kwsim" replay "$name" --trace text -o trace >out 2>err)
	rc_rep=$?
	if [ "$rc_rep" -ne "$rc_run" ]; then
		fail "$what: the run exited $rc_run, the replay $rc_rep: $(head -3 "$tmp/replay/err")"
	elif ! cmp -s "$tmp/run/out" "$tmp/replay/out"; then
		fail "$what: the replay printed other output than the run"
		diff "$tmp/run/out" "$tmp/replay/out" | head -10
	elif ! cmp -s "$tmp/run/trace" "$tmp/replay/trace"; then
		fail "$what: the replay's trace differs from the run's"
		diff "$tmp/run/trace" "$tmp/replay/trace" | head -10
	else
		return 0
	fi
	return 1
}

# --- every race, every variant, two seeds each --------------------------------------------------
variants=(v4.9 mainline)
while read -r tree _; do
	variants+=("$tree")
done < <("$kwsim" help | grep -E '^  tree:')
pairs=0
for file in "$races"/*.kws; do
	name=$(basename "$file")
	cp "$file" "$tmp/run/$name"
	# as tests/CMakeLists.txt reads it for the scenario tests
	pinned=$(grep -oE 'kernel[[:space:]]*=[[:space:]]*(v4\.9|mainline)[[:space:]]*;' "$file" |
		 head -1 | sed -E 's/.*=[[:space:]]*//; s/[[:space:]]*;//')
	for variant in ${pinned:-"${variants[@]}"}; do
		sum=$(printf '%s/%s' "$name" "$variant" | cksum | cut -d' ' -f1)
		for seed in $((sum % 1000 + 1)) $((sum / 1000 % 100000 + 1)); do
			roundtrip "$name" "$variant" "$seed"
			pairs=$((pairs + 1))
		done
	done
done
echo "$pairs runs of $(ls "$races"/*.kws | wc -l) races on ${variants[*]} replayed"

# --- CPU hotplug (issue 19.3): the probes, and statements at ranged times -----------------------
# Which CPU goes down when, where its tasks and timers go, and the times
# drawn for `cpu_down(1) at LO..HI;`: the schedule carries them all.
cat >"$tmp/run/hotplug-ranges.kws" <<'EOF'
KW hotplug-ranges
{
  cpus = 3; hz = 250;
  int c = -1; int r = -9;
  fn f { c = smp_processor_id(); }
  fn g { r++; }
  worker W = kthread_create_worker_on_cpu(2, 0, "kw");
  work A = f;
  timer T = g;
}
cpu_down(2) at 1ms..3ms;
P1 @cpu1 { mod_timer(T, jiffies + 2); kthread_queue_work(W, A); cpu_down(1); }
cpu_up(2) at 4ms..9ms;
exists (c == 0)
EOF
for file in "$here"/../../scenarios/kernel/cpu-down-*.kws "$tmp/run/hotplug-ranges.kws"; do
	name=$(basename "$file")
	# (a file with its own era prints it in the header roundtrip() reads)
	grep -q 'era[[:space:]]*=' "$file" && continue
	[ -f "$tmp/run/$name" ] || cp "$file" "$tmp/run/$name"
	pinned=$(grep -oE 'kernel[[:space:]]*=[[:space:]]*(v4\.9|mainline)[[:space:]]*;' "$file" |
		 head -1 | sed -E 's/.*=[[:space:]]*//; s/[[:space:]]*;//')
	for variant in ${pinned:-"${variants[@]}"}; do
		for seed in 1 7; do
			roundtrip "$name" "$variant" "$seed"
		done
	done
done

# --- the case that diverged: a v4.9 race found with a seed replays on v4.9 ----------------------
name=queue-vs-flush-running.kws
if roundtrip "$name" v4.9 7; then
	checks=$((checks + 1))
	grep -q '^  kernel = v4.9; ' "$tmp/replay/$name" && grep -q ' seed = 7;' "$tmp/replay/$name" &&
		grep -q ' strategy = random;' "$tmp/replay/$name" ||
		fail "the saved schedule does not say kernel = v4.9, strategy = random, seed = 7"
fi

# --- settings from --set are part of the run, and of its schedule ------------------------------
if roundtrip "$name" mainline 11 --set cpus=4 --set hz=1000 --set preempt=full \
	--set cost.lock=40ns --set time_limit=2s; then
	checks=$((checks + 1))
	for want in 'cpus = 4;' 'hz = 1000;' 'preempt = full;' 'cost.lock = 40ns;' 'time_limit = 2s;'; do
		grep -qF " $want" "$tmp/replay/$name" || fail "the saved schedule lacks '$want'"
	done
	grep -q '^kernel mainline, 4 cpus, HZ=1000, preempt full,' "$tmp/replay/out" ||
		fail "the replay did not run with the --set settings: $(sed -n 2p "$tmp/replay/out")"
fi

# --- a faithful run records strategy faithful and no seed, and replays -------------------------
checks=$((checks + 1))
(cd "$tmp/run" && "$kwsim" run "$name" --save-schedule ../replay/faithful.kws >out 2>&1)
(cd "$tmp/replay" && "$kwsim" replay faithful.kws >out 2>&1)
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q '^kernel mainline, 3 cpus, .*strategy faithful$' "$tmp/replay/out"; then
	fail "a faithful run's schedule: replay exit $rc, header '$(sed -n 2p "$tmp/replay/out")'"
elif ! grep -q ' strategy = faithful;' "$tmp/replay/faithful.kws" ||
     grep -q 'seed =' "$tmp/replay/faithful.kws"; then
	fail "a faithful run's schedule must say strategy = faithful and hold no seed"
fi

# replay EXPECTED_RC MESSAGE_REGEX FILE: replay a file; exit status and stderr
replay() {
	local want_rc=$1 want=$2 file=$3
	checks=$((checks + 1))
	"$kwsim" replay "$file" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want_rc" ]; then
		fail "replay of $(basename "$file"): exit $rc, want $want_rc: $(head -3 "$tmp/err")"
	elif [ -n "$want" ] && ! grep -qE -- "$want" "$tmp/err"; then
		fail "replay of $(basename "$file"): stderr does not match '$want': $(head -3 "$tmp/err")"
	else
		return 0
	fi
	return 1
}

# --- a log must follow the strategy it names ---------------------------------------------------
# The first decision of the faithful schedule picks 0; make it pick 1.
sed -E '/decisions \{/{n;s/([a-z])0\//\11\//}' "$tmp/replay/faithful.kws" >"$tmp/liar.kws"
replay 2 "decision 0: the log picks candidate 1 of 2, but the faithful strategy it names picks 0" \
	"$tmp/liar.kws"
# A random schedule with another seed written in: the picks are no longer that seed's.
roundtrip "$name" v4.9 7
sed '/^schedule/,$ s/seed = 7;/seed = 8;/' "$tmp/replay/$name" >"$tmp/reseeded.kws"
replay 2 "but the random strategy it names picks" "$tmp/reseeded.kws"
# Without a strategy line the log alone decides, and the header says so.
sed '/^schedule/,$ s/ strategy = faithful;//' "$tmp/liar.kws" >"$tmp/lonelog.kws"
if replay 0 "" "$tmp/lonelog.kws"; then
	grep -q 'strategy replay$' "$tmp/out" || fail "a log without a strategy: the header does not say 'strategy replay'"
fi

# --- a kernel tree this kwsim was not built with ----------------------------------------------
sed '/^schedule/,$ s/kernel = v4.9;/kernel = tree:no-such-tree;/' "$tmp/replay/$name" >"$tmp/notree.kws"
replay 2 "^$tmp/notree.kws:[0-9]+:[0-9]+: error: no kernel variant 'tree:no-such-tree': this kwsim has v4.9, mainline" \
	"$tmp/notree.kws"

# --- an empty log: nothing to memcpy (UBSan stopped here), and nothing to follow ---------------
cat >"$tmp/empty1.kws" <<'EOF'
KW empty-log-one-cpu
{ cpus = 1; int n = 0; }
P0 { n = 1; udelay(10); }
exists (n == 1)
schedule { decisions { } }
EOF
replay 0 "" "$tmp/empty1.kws"
sed 's/cpus = 1; //' "$tmp/empty1.kws" >"$tmp/empty2.kws"
replay 2 "no longer fits the scenario: decision 0: the log ends here" "$tmp/empty2.kws"

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
