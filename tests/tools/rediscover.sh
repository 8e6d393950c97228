#!/usr/bin/env bash
# tools/rediscover, small: two v4.9 seeds of 160 programs and a mainline
# campaign of 30 (bounded by programs, so the same findings on any machine).
# Its table has a row for every fix; the three fixes the contract oracles see
# at once are found by both seeds and on no fixed variant; --parse-only
# makes the same table from the campaigns kept; it writes only into an
# empty or new directory; usage errors exit 2.
# Usage: rediscover.sh KWSIM SOURCE_DIR
set -uo pipefail
kwsim=${1:?usage: rediscover.sh KWSIM SOURCE_DIR}
src=${2:?usage: rediscover.sh KWSIM SOURCE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$src/tools/rediscover" "$kwsim" "$tmp/r" --seeds 2 --programs 160 --fixed-programs 30 \
	--cross-runs 10 >"$tmp/table" 2>"$tmp/err" || fail "the campaigns: exit $?: $(tail -1 "$tmp/err")"
rows=$(($(grep -c '^| ' "$tmp/table") - 1))	# less the heading
fixes=$(grep -c "'commit':" "$src/tools/rediscover")
[ "$rows" -eq $((fixes + 1)) ] || fail "$rows rows for $fixes fixes and the unfixed flush-armed"
# column 4: seeds that found it, 5: programs to find, 7: shown on a fixed variant
for fix in 6993d0fdbee0 34b3d5344719 d71ba1649fa3; do
	row=$(grep "^| $fix " "$tmp/table")
	[ -n "$row" ] || { fail "no row for $fix"; continue; }
	found=$(echo "$row" | awk -F' [|] ' '{print $4}')
	case "$found" in "2 of 2 (contract "*) ;; *) fail "$fix: found '$found', not by both seeds' contract oracles" ;; esac
	shown=$(echo "$row" | awk -F' [|] ' '{print $7}')
	[ "$shown" = "no |" ] || fail "$fix: shown on a fixed variant: $shown"
	echo "$row" | awk -F' [|] ' '{print $5}' | grep -Eq '^1: [0-9]+, 2: [0-9]+$' ||
		fail "$fix: programs to find not one per seed"
done
grep -q '^Campaigns (.*v4.9-1: 160 programs, .*v4.9-2: 160 programs, .*mainline-1: 30 programs' "$tmp/table" ||
	fail "the campaigns line does not say each campaign's programs"
"$src/tools/rediscover" "$kwsim" "$tmp/r" --parse-only >"$tmp/again" 2>/dev/null || fail "--parse-only: exit $?"
cmp -s "$tmp/table" "$tmp/again" || fail "--parse-only makes another table"
# a directory with anything in it is not written to
mkdir "$tmp/full" && echo keep >"$tmp/full/mine"
"$src/tools/rediscover" "$kwsim" "$tmp/full" --seeds 1 --programs 1 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "a non-empty directory: not exit 2"
grep -q 'not empty' "$tmp/err" || fail "a non-empty directory: no message"
[ "$(ls "$tmp/full")" = mine ] && [ "$(cat "$tmp/full/mine")" = keep ] || fail "a non-empty directory was written to"
"$src/tools/rediscover" "$kwsim" "$tmp/x" --seeds 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--seeds 0: not exit 2"
"$src/tools/rediscover" "$kwsim" "$tmp/x" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "an unknown option: not exit 2"
"$src/tools/rediscover" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no arguments: not exit 2"
"$src/tools/rediscover" "$kwsim" "$tmp/none" --parse-only >/dev/null 2>&1; [ $? -eq 2 ] || fail "--parse-only of nothing: not exit 2"
[ -e "$tmp/x" ] && fail "a refused command made its directory"
echo "rediscover: $failed failed"
((failed == 0))
