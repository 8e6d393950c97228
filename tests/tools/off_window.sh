#!/usr/bin/env bash
# tools/off-window: a copy of every race file, each a scenario kwsim runs, the
# same bytes when made again, a moved start where the comment says, no
# schedule; the originals untouched; a file it did not make is never
# overwritten (exit 1); usage errors exit 2.
# Usage: off_window.sh KWSIM SOURCE_DIR
set -uo pipefail
kwsim=${1:?usage: off_window.sh KWSIM SOURCE_DIR}
src=${2:?usage: off_window.sh KWSIM SOURCE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$src/tools/off-window" "$tmp/a" "$src/scenarios/races" >/dev/null || fail "the first copy: exit $?"
"$src/tools/off-window" "$tmp/b" "$src/scenarios/races" >/dev/null || fail "the second copy: exit $?"
n=$(ls "$src"/scenarios/races/*.kws | wc -l)
[ "$(ls "$tmp"/a/*.kws | wc -l)" -eq "$n" ] || fail "not one copy per race file"
diff -r "$tmp/a" "$tmp/b" >/dev/null || fail "two copies differ"
"$src/tools/off-window" "$tmp/a" "$src/scenarios/races" >/dev/null || fail "remaking its own copies: exit $?"
for f in "$tmp"/a/*.kws; do
	"$kwsim" run "$f" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -le 1 ] || fail "$(basename "$f"): kwsim run exit $rc: $(head -1 "$tmp/err")"
	grep -q '^schedule {' "$f" && fail "$(basename "$f") keeps a schedule"
	grep -q 'made by tools/off-window: starts moved [0-9]* ms later' "$f" || fail "$(basename "$f"): no comment"
done
# the cancel of the v4.9 mod/cancel race moves from 100us by its file's shift
f=mod-delayed-work-vs-cancel-v4.9.kws
ms=$(sed -n 's/.*starts moved \([0-9]*\) ms later.*/\1/p' "$tmp/a/$f")
grep -q "^P1 @cpu1 at $((ms * 1000 + 100))us {" "$tmp/a/$f" || fail "$f: P1 not at $((ms * 1000 + 100))us"
grep -q '^P1 @cpu1 at 100us {' "$src/scenarios/races/$f" || fail "the original $f changed"
# not its own: left alone, nothing written
mkdir -p "$tmp/c"
echo keep >"$tmp/c/$f"
"$src/tools/off-window" "$tmp/c" "$src/scenarios/races" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "a foreign file: not exit 1"
[ "$(cat "$tmp/c/$f")" = keep ] || fail "a foreign file was overwritten"
[ "$(ls "$tmp/c" | wc -l)" -eq 1 ] || fail "files written beside a foreign one"
"$src/tools/off-window" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no OUT_DIR: not exit 2"
"$src/tools/off-window" "$tmp/d" "$tmp/none" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no SCENARIO_DIR: not exit 2"
echo "off_window: $failed failed"
[ "$failed" -eq 0 ]
