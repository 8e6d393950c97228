# shellcheck shell=bash
# Sourced by the test scripts: status.sh's reading of exit statuses, the
# counters every script reports, and the helpers they had each copied:
#   fail MSG...  counts a failure and says it ("FAIL: MSG")
#   check        counts a check
#   run ARGS...  runs $kwsim ARGS with its status in $rc, and fails on a
#                crash or a sanitizer report (whether rc is the right one
#                is the caller's to say)
#   summary      "N checks, M failed", true when nothing failed
# A script with a run() of its own (other output files, another command)
# defines it after sourcing this one.
# shellcheck source=status.sh
. "${BASH_SOURCE[0]%/*}/status.sh"

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}
check() { checks=$((checks + 1)); }

run() {
	rc=0
	"$kwsim" "$@" || rc=$?
	local p
	p=$(kw_status_problem "$rc")
	[[ -z $p ]] || fail "kwsim $*: $p"
}

summary() {
	echo "$checks checks, $failed failed"
	((failed == 0))
}
