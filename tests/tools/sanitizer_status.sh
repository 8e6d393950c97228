#!/usr/bin/env bash
# Sanitizer reports get exit statuses of their own (86: AddressSanitizer and
# LeakSanitizer, 87: UndefinedBehaviorSanitizer), and every check sees them:
#  1. this test's environment carries the options that set them (CTest's
#     ENVIRONMENT_MODIFICATION, from KWSIM_TEST_ENVIRONMENT in CMakeLists.txt);
#  2. so does every other test of the build;
#  3. each test script fails on those statuses and says "a sanitizer report";
#  4. in the sanitizer build (PROBE given): a real report of each kind exits
#     with its status, the options being read as the runtime really reads them.
# Usage: sanitizer_status.sh CTEST BUILD_DIR [PROBE]
set -uo pipefail
ctest=${1:?usage: sanitizer_status.sh CTEST BUILD_DIR [PROBE]}
build=${2:?usage: sanitizer_status.sh CTEST BUILD_DIR [PROBE]}
probe=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tests=$here/..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}

# --- 1. the environment this test was given (before ../status.sh adds to it) -----------

# last VAR NAME: the last NAME=value setting in $VAR (the one the runtime keeps)
last() {
	tr ':' '\n' <<<"${!1:-}" | sed -n "s/^$2=//p" | tail -n 1
}
for want in ASAN_OPTIONS:exitcode:86 LSAN_OPTIONS:exitcode:86 \
	UBSAN_OPTIONS:exitcode:87 UBSAN_OPTIONS:halt_on_error:1; do
	IFS=: read -r var name value <<<"$want"
	checks=$((checks + 1))
	got=$(last "$var" "$name")
	[ "$got" = "$value" ] ||
		fail "the environment's $var='${!var:-}' does not end with $name=$value"
done

# --- 2. every test of the build gets the same ------------------------------------------

checks=$((checks + 1))
total=$("$ctest" --test-dir "$build" -N | sed -n 's/^Total Tests: //p')
with=$("$ctest" --test-dir "$build" --show-only=json-v1 |
	grep -c '"ASAN_OPTIONS=path_list_append:exitcode=86"')
if [ -z "$total" ] || [ "$total" -eq 0 ]; then
	fail "ctest lists no tests in $build"
elif [ "$with" -ne "$total" ]; then
	fail "$with of $total tests set ASAN_OPTIONS=...exitcode=86: call kwsim_test_environment in every directory that adds tests"
fi

# --- 3. each test script fails on a sanitizer's status, and says so ---------------------

# A stand-in for kwsim that only reports, as a sanitizer would.
fake() { # STATUS
	printf '#!/bin/sh\necho "==1==ERROR: a stand-in sanitizer report" >&2\nexit %s\n' "$1" \
		>"$tmp/kwsim-$1"
	chmod +x "$tmp/kwsim-$1"
	echo "$tmp/kwsim-$1"
}
mkdir "$tmp/scenarios"
printf 'KW one\n{ }\nP0 { }\n' >"$tmp/scenarios/one.kws"

# script_sees STATUS WORDS NAME COMMAND...: COMMAND fails and its output names the report
script_sees() {
	local status=$1 words=$2 name=$3 rc=0
	shift 3
	checks=$((checks + 1))
	"$@" >"$tmp/script.out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$name passed although kwsim exited $status"
	elif ! grep -qF "$words (exit $status" "$tmp/script.out"; then
		fail "$name failed without saying '$words (exit $status'; it said:"
		sed -n '1,5p' "$tmp/script.out" | sed 's/^/    /'
	fi
}
for s in 86 87; do
	script_sees $s "a sanitizer report" "scenarios/check.sh" \
		"$tests/scenarios/check.sh" "$(fake $s)" "$tmp/scenarios/one.kws" mainline
done
script_sees 86 "a sanitizer report" "scenarios/check.sh (replay)" \
	"$tests/scenarios/check.sh" "$(fake 86)" "$tmp/scenarios/one.kws" - replay
script_sees 86 "a sanitizer report" "scenarios/fidelity.sh" \
	"$tests/scenarios/fidelity.sh" "$(fake 86)" "$tmp/scenarios" tree:x 6.12
script_sees 87 "a sanitizer report" "tools/cli_usage.sh" \
	"$tests/tools/cli_usage.sh" "$(fake 87)" 0
script_sees 86 "a sanitizer report" "tools/cli_bad_input.sh" \
	"$tests/tools/cli_bad_input.sh" "$(fake 86)"

# --- 4. real reports -------------------------------------------------------------------

# probe_exits KIND STATUS TEXT: the probe's report of KIND exits STATUS and says TEXT
probe_exits() {
	local rc=0
	checks=$((checks + 1))
	"$probe" "$1" >/dev/null 2>"$tmp/probe.err" || rc=$?
	if [ "$rc" -ne "$2" ]; then
		fail "sanitizer_probe $1: exit $rc, want $2"
		sed -n '1,5p' "$tmp/probe.err" | sed 's/^/    /'
	elif ! grep -qF "$3" "$tmp/probe.err"; then
		fail "sanitizer_probe $1: exit $rc but no '$3' on stderr"
	fi
}
if [ -n "$probe" ]; then
	probe_exits use-after-free 86 "AddressSanitizer: heap-use-after-free"
	probe_exits leak 86 "LeakSanitizer: detected memory leaks"
	probe_exits overflow 87 "runtime error: signed integer overflow"
else
	echo "(not the sanitizer build: no real report tried)"
fi

echo "$checks checks, $failed failed"
[ "$failed" -eq 0 ]
