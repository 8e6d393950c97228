#!/usr/bin/env bash
# The kwsim command line: for each request, its exit status and its text, and
# where the text goes. Asking for help or the version exits 0 with the text on
# stdout and nothing on stderr; a usage error exits 2 with its message on
# stderr and nothing on stdout; bench --quick exits 0 (it enforces no
# target, so 1 would mean a benchmark run went wrong). Any other status, a
# sanitizer report among them, fails the check (../status.sh).
# Usage: cli_usage.sh KWSIM VERSION
set -uo pipefail
kwsim=${1:?usage: cli_usage.sh KWSIM VERSION}
version=${2:?usage: cli_usage.sh KWSIM VERSION}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: kwsim $what: $1"
	sed -n '1,5p' "$tmp/err" | sed 's/^/    stderr: /'
}

# kw ARGS...: run kwsim; sets rc and what, leaves stdout and stderr in $tmp
kw() {
	what="$*"
	checks=$((checks + 1))
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# status WANT: the exit status is WANT (and not a crash or a sanitizer report)
status() {
	local problem
	problem=$(kw_status_problem "$rc")
	if [ -n "$problem" ]; then
		fail "$problem"
	elif [ "$rc" -ne "$1" ]; then
		fail "exit $rc, want $1"
	else
		return 0
	fi
	return 1
}

# ok ARGS... : exit 0, something on stdout, nothing on stderr
ok() {
	kw "$@"
	status 0 || return 1
	if [ -s "$tmp/err" ]; then
		fail "exit 0 but wrote to stderr"
	elif [ ! -s "$tmp/out" ]; then
		fail "exit 0 but printed nothing"
	else
		return 0
	fi
	return 1
}

# out_has FIXED_STRING: stdout holds this line, whole
out_has() {
	grep -qxF -- "$1" "$tmp/out" || fail "stdout lacks the line '$1'"
}

# usage_error MESSAGE ARGS...: exit 2, MESSAGE on stderr, nothing on stdout
usage_error() {
	local want=$1
	shift
	kw "$@"
	status 2 || return
	if [ -s "$tmp/out" ]; then
		fail "a usage error printed on stdout"
	elif ! grep -qF -- "$want" "$tmp/err"; then
		fail "stderr does not say '$want'"
	fi
}

# --- asking for the version and for help -----------------------------------------------

if ok --version && [ "$(cat "$tmp/out")" != "kwsim $version" ]; then
	fail "stdout is '$(head -c 200 "$tmp/out")', want 'kwsim $version'"
fi

for ask in help --help -h; do
	if ok "$ask"; then
		out_has "usage: kwsim <command> [options]"
		for cmd in run replay bench help; do
			grep -qE "^  $cmd( |$)" "$tmp/out" || fail "the command list lacks '$cmd'"
		done
		grep -q "^exit codes: " "$tmp/out" || fail "no 'exit codes:' line"
	fi
done

for cmd in run replay; do
	for ask in --help -h; do
		ok "$cmd" "$ask" &&
			{ head -n 1 "$tmp/out" | grep -q "^usage: kwsim $cmd FILE" ||
				fail "the first line is not 'usage: kwsim $cmd FILE ...'"; }
	done
done

ok bench --help && out_has "usage: kwsim bench [--quick | --long[=MINUTES] [--trace text|json] | --races DIR]"

# --- bench --quick: small sizes, every figure printed ----------------------------------

if ok bench --quick; then
	grep -q "^kwsim $version bench (.*--quick: targets not enforced)$" "$tmp/out" ||
		fail "no header line 'kwsim $version bench (... --quick: targets not enforced)'"
	for figure in "coroutine switches/s" "scheduling decisions/s" "events/s" "memory per idle task" \
		      "in-process runs/s" "exploration decisions/s"; do
		grep -qE "^$figure: [0-9.]+[kMG]? " "$tmp/out" || fail "no '$figure: N' line"
	done
	for row in "10 works" "100 works" "1 simulated seconds" "1000 destroyed workers"; do
		grep -qE "^cost, $row: .* s CPU \(.* s wall\)" "$tmp/out" || fail "no 'cost, $row' row"
	done
	grep -q "^FAIL" "$tmp/out" && fail "--quick enforces no target, but a line says FAIL"
fi

# --- bench --races DIR: the exploration figures over DIR's files ---------------------------
# A race with a condition, and a finding's replay file (no condition, a schedule
# section): a run finds it when it shows the finding the schedule shows.
mkdir -p "$tmp/races"
cp "$here/../../scenarios/races/flush-from-own-worker.kws" "$tmp/races/a-race.kws"
cat >"$tmp/self.kws" <<'EOF'
KW self-flush
{
  fn selfish { kthread_flush_work(A); }
  worker W = kthread_create_worker(0, "kw");
  work A = selfish;
}
P0 { kthread_queue_work(W, A); }
EOF
"$kwsim" run "$tmp/self.kws" --save-schedule "$tmp/races/b-finding.kws" >/dev/null 2>&1
if ok bench --races "$tmp/races" --quick; then
	for name in "a-race \(mainline\)" "b-finding \(mainline\)"; do
		grep -qE "^  $name +[0-9]+ .* 1/1 +[0-9]" "$tmp/out" ||
			fail "no 'runs to the first finding' row found by every strategy for $name"
	done
	grep -q "^coroutine switches/s" "$tmp/out" && fail "--races measures exploration only"
	grep -q "^note:" "$tmp/out" && fail "--races: the targets are the library's, yet a note names one"
fi
usage_error "kwsim bench: --races wants a directory of scenarios" bench --races
usage_error "kwsim bench: --races wants a directory of scenarios ($tmp/none: cannot read it)" \
	bench --races "$tmp/none"
usage_error "kwsim bench: --races and --long measure different things: one at a time" \
	bench --races "$tmp/races" --long

# --- usage errors: exit 2 and a message on stderr, never a crash -----------------------

usage_error "usage: kwsim"
usage_error "kwsim: unknown command 'frobnicate' (try 'kwsim help')" frobnicate
usage_error "kwsim: unknown command '--frob' (try 'kwsim help')" --frob
usage_error "kwsim run: needs a scenario file (try 'kwsim help')" run
usage_error "kwsim replay: needs a scenario file (try 'kwsim help')" replay
usage_error "kwsim run: unknown option '--frob' (try 'kwsim help')" run x.kws --frob
usage_error "kwsim run: --kernel: no variant 'v5': this kwsim has v4.9, mainline" \
	run x.kws --kernel v5
usage_error "no variant 'tree:no-such-tree': this kwsim has v4.9, mainline" \
	run x.kws --kernel tree:no-such-tree
# the variants named are the ones built: every tree this build has, or how to get them
if "$kwsim" help | grep -q "^kernel trees built in.*: none"; then
	usage_error "(no tree: variant: tools/fetch-kernels fetches Debian's 6.1 and 6.12 sources" \
		run x.kws --kernel tree:6.12
else
	for t in $("$kwsim" help | sed -n '/^kernel trees built in/,/^$/s/^  \(tree:[^ ]*\) .*/\1/p'); do
		usage_error ", $t" run x.kws --kernel tree:no-such-tree
	done
fi
usage_error "kwsim run: --seed wants a non-negative number, not '-1'" run x.kws --seed -1
usage_error "kwsim run: option --seed needs a value" run x.kws --seed
usage_error "kwsim run: --trace must be text or json, not 'xml'" run x.kws --trace xml
usage_error "kwsim replay: option --seed does not apply to a replay" replay x.kws --seed 3
usage_error "x.kws: error: cannot open" run x.kws
usage_error "kwsim: unknown option '--frob' for bench (try 'kwsim help')" bench --frob
usage_error "kwsim: help takes no arguments (try 'kwsim help')" help extra
usage_error "kwsim: --version takes no arguments (try 'kwsim help')" --version extra

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
