# shellcheck shell=bash
# Sourced by the tests that run the whole scenario library to check what a
# view prints (run_json_schema.sh, trace_text_check.sh, findings_check.sh,
# trace_filter.sh's --trace json of every file).
#
# The asan build runs them on a fixed sample of the library
# (library_sample.txt, KWSIM_LIBRARY_SAMPLE=1 in its ctest), the release
# build on all of it. What they check is the output's form, the same bytes in
# every build (the determinism contract); the sanitizers' part is the code
# that prints it, and the asan build runs that over the whole library anyway
# (scenario/*: the text summary and trace of every file on v4.9 and mainline;
# fidelity/scenarios: --json of every file on mainline and each tree). The
# sample is one file of each folder and a file for every kind of output the
# library shows: each trace event, finding kind, --json event, finding and
# end. The full pass checks that: a kind only files outside the sample show
# fails it, naming a file to add.
#
#   library_files DIR FILE...  FILE... (scenario files under DIR), less those
#                              outside the sample when sampled, one a line
#   library_sampled            true in a sampled run (KWSIM_LIBRARY_SAMPLE=1)
#   sample_covers DIR KEYS     KEYS: lines "FILE KIND" (a file and a kind
#                              its runs showed); prints a FAIL line per kind
#                              that files under DIR show and no sampled file
#                              does, false if any
library_sample_list=${BASH_SOURCE[0]%/*}/library_sample.txt

library_sampled() { [[ ${KWSIM_LIBRARY_SAMPLE:-0} == 1 ]]; }

library_files() {
	local dir=$1
	shift
	if library_sampled; then
		printf '%s\n' "$@" | awk -v dir="$dir/" -v list="$library_sample_list" '
			BEGIN { while ((getline l < list) > 0) want[dir l] = 1 }
			index($0, dir) != 1 || want[$0]'
	else
		printf '%s\n' "$@"
	fi
}

sample_covers() {
	local dir=$1 keys=$2
	awk -v dir="$dir/" -v list="$library_sample_list" '
		BEGIN { while ((getline l < list) > 0) want[dir l] = 1 }
		# (files outside the library, which every run runs, count for neither)
		index($1, dir) != 1 { next }
		{ k = $2; for (i = 3; i <= NF; i++) k = k " " $i }
		want[$1] { have[k] = 1; next }
		!(k in other) { other[k] = $1 }
		END {
			for (k in other)
				if (!(k in have)) {
					printf "FAIL: no file of %s shows %s: add %s to it\n",
						list, k, substr(other[k], length(dir) + 1)
					bad = 1
				}
			exit bad
		}' "$keys"
}
