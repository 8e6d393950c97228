# shellcheck shell=bash
# Sourced by the test scripts: what an exit status of kwsim (or of any
# program the tests run) says when it is none of kwsim's own, 0 to 4 (4: explore
# --jobs lost a job).
#
# The sanitizer builds exit with statuses of their own, so that a report can
# never pass for "the condition does not hold" (1) or "bad input" (2):
# AddressSanitizer and LeakSanitizer 86, UndefinedBehaviorSanitizer 87. CTest
# sets them for every test (KWSIM_TEST_ENVIRONMENT in CMakeLists.txt) and
# tools/test for its own runs; a script run by hand gets them from here. The
# caller's own options are kept, ours appended: the last setting wins.

# kw_append_options VAR OPTION...: append to $VAR each OPTION it lacks, and export it
kw_append_options() {
	local var=$1 opt cur
	shift
	for opt in "$@"; do
		cur=${!var:-}
		case ":$cur:" in
		*":$opt:"*) ;;
		*) printf -v "$var" '%s' "${cur:+$cur:}$opt" ;;
		esac
	done
	export "${var?}"
}
kw_append_options ASAN_OPTIONS exitcode=86
kw_append_options LSAN_OPTIONS exitcode=86
kw_append_options UBSAN_OPTIONS halt_on_error=1 exitcode=87 print_stacktrace=1

# kw_status_problem RC: prints what is wrong with exit status RC, or nothing
# when it is one of kwsim's (whether it is the right one is the caller's to say)
kw_status_problem() {
	local rc=$1
	if ((rc == 86)); then
		echo "a sanitizer report (exit 86: AddressSanitizer or LeakSanitizer)"
	elif ((rc == 87)); then
		echo "a sanitizer report (exit 87: UndefinedBehaviorSanitizer)"
	elif ((rc >= 128)); then
		echo "crashed (exit $rc: signal $((rc - 128)), $(kill -l $((rc - 128)) 2>/dev/null || echo '?'))"
	elif ((rc > 4)); then
		echo "exit $rc, which kwsim never returns"
	fi
}
