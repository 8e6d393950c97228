#!/usr/bin/env bash
# Output that cannot be written: every command that writes a file the user
# named, or standard output, says "cannot write PATH: REASON" (or "error
# writing standard output: REASON") and exits 2; a file that was there is
# left as it was (written beside and renamed, tools/lib/outfile.h) and no
# temporary file is left (explore --out: no part of a finding's file); a path
# that is not a regular file (a device) is written straight and is still
# there, as it was, afterwards.
#
# A full disk is made with RLIMIT_FSIZE (ulimit -f 0, SIGXFSZ ignored: a
# write past it fails with EFBIG), which works as root and as anyone, on
# any machine, without a device node: the suite must never write through
# /dev/full (as root, an earlier version unlinked it).
# Usage: write_errors.sh KWSIM SCENARIOS_DIR
set -uo pipefail
kwsim=$(realpath "${1:?usage: write_errors.sh KWSIM SCENARIOS_DIR}")
scenarios=$(realpath "${2:?usage: write_errors.sh KWSIM SCENARIOS_DIR}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

checks=0 failed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $1"
}
ok() {
	checks=$((checks + 1))
	echo "ok:   $1"
}

# full CMD...: CMD where no file may grow past 0 bytes
full() {
	(
		trap '' XFSZ
		ulimit -f 0
		exec "$@"
	)
}

race=$scenarios/races/flush-from-own-worker.kws
saved=$tmp/saved.kws
"$kwsim" run "$race" --save-schedule "$saved" >/dev/null
[ -s "$saved" ] || fail "setup: --save-schedule wrote nothing"
big="File too large"

# --- standard output -------------------------------------------------------------------------
for args in "run $race" "run $race --json" "run $race --trace text" "replay $saved" \
	"help" "--version" "run --help"; do
	# (stderr through a pipe: a file would be full too)
	# shellcheck disable=SC2086
	err=$(full "$kwsim" $args 2>&1 >"$tmp/stdout")
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qx "kwsim: error writing standard output: $big" <<<"$err"; then
		ok "kwsim $args, standard output full: exit 2"
	else
		fail "kwsim $args >full: exit $rc, stderr '$err'; want 2 and '$big'"
	fi
done

# --- files the user named: exit 2, the old file kept, nothing left beside it -------------------
# named LABEL WANT-MSG-PREFIX PATH CMD...: PATH holds "old" before; CMD fails on the full disk
named() {
	local label=$1 prefix=$2 path=$3 rc
	shift 3
	rm -rf "$tmp/out"
	mkdir -p "$tmp/out"
	echo old >"$path"
	err=$(full "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$err" != "${prefix}cannot write $path: $big" ]; then
		fail "$label: exit $rc, stderr '$err'; want 2 and 'cannot write $path: $big'"
	elif [ "$(cat "$path")" != old ]; then
		fail "$label: the file that was there was changed"
	elif [ "$(find "$tmp/out" -mindepth 1 | wc -l)" -ne 1 ]; then
		fail "$label: left $(find "$tmp/out" -mindepth 1 | tr '\n' ' ')"
	else
		ok "$label: exit 2, the old file kept, nothing left"
	fi
}
named "run -o" "kwsim: " "$tmp/out/t.txt" "$kwsim" run "$race" --trace text -o "$tmp/out/t.txt"
named "run --trace json -o" "kwsim: " "$tmp/out/t.json" "$kwsim" run "$race" --trace json -o "$tmp/out/t.json"
named "run --save-schedule" "kwsim: " "$tmp/out/s.kws" "$kwsim" run "$race" --save-schedule "$tmp/out/s.kws"
named "export --html" "kwsim export: " "$tmp/out/p.html" "$kwsim" export "$race" --html "$tmp/out/p.html"
named "shrink --out" "kwsim shrink: " "$tmp/out/s.kws" "$kwsim" shrink "$saved" --out "$tmp/out/s.kws"

# explore --out DIR (one process and --jobs): a finding's replay file that cannot be written is
# said, exit 2, and DIR holds no part of a file (no 0-byte finding, no temporary, no job's dir)
for jobs in 1 2; do
	rm -rf "$tmp/out" && mkdir -p "$tmp/out"
	err=$(full "$kwsim" explore "$race" --runs 20 --jobs "$jobs" --out "$tmp/out/found" 2>&1 >/dev/null)
	rc=$?
	left=$(find "$tmp/out/found" -mindepth 1 2>/dev/null | tr '\n' ' ')
	if [ "$rc" -ne 2 ] || ! grep -qE "^kwsim explore: cannot write $tmp/out/found/[^ ]+\.kws: $big$" <<<"$err"; then
		fail "explore --jobs $jobs --out, disk full: exit $rc, stderr '$err'; want 2 and 'cannot write DIR/FILE.kws: $big'"
	elif [ -n "$left" ]; then
		fail "explore --jobs $jobs --out, disk full: left $left"
	else
		ok "explore --jobs $jobs --out, disk full: exit 2, said, nothing left in DIR"
	fi
done

# --- written and renamed when all went well; a new file gets the umask's mode -------------------
rm -rf "$tmp/out" && mkdir "$tmp/out"
echo old >"$tmp/out/p.html"
chmod 640 "$tmp/out/p.html"
if "$kwsim" export "$race" --html "$tmp/out/p.html" >/dev/null 2>"$tmp/err" &&
	grep -q kwsim-doc "$tmp/out/p.html" && [ "$(stat -c %a "$tmp/out/p.html")" = 640 ] &&
	[ "$(find "$tmp/out" -mindepth 1 | wc -l)" -eq 1 ]; then
	ok "export --html over a file: replaced, its mode kept, nothing left"
else
	fail "export --html over a file: $(cat "$tmp/err"); mode $(stat -c %a "$tmp/out/p.html")"
fi
(umask 027 && "$kwsim" run "$race" --save-schedule "$tmp/out/new.kws" >/dev/null)
mode=$(stat -c %a "$tmp/out/new.kws" 2>/dev/null)
[ "$mode" = 640 ] && ok "a new file: 0666 less the umask" || fail "a new file has mode '$mode', want 640"

# --- a device is written straight and left in place --------------------------------------------
before=$(stat -c '%F %t:%T' /dev/null)
if "$kwsim" export "$race" --html /dev/null >/dev/null 2>"$tmp/err" &&
	"$kwsim" run "$race" --trace text -o /dev/null --save-schedule /dev/null >/dev/null 2>>"$tmp/err" &&
	[ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ]; then
	ok "/dev/null as OUT: written, still the device it was"
else
	fail "/dev/null as OUT: $(cat "$tmp/err"); now $(stat -c '%F %t:%T' /dev/null)"
fi
# a symbolic link is written through, not replaced
echo old >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.kws"
"$kwsim" run "$race" --save-schedule "$tmp/link.kws" >/dev/null
if [ -L "$tmp/link.kws" ] && grep -q '^schedule' "$tmp/target"; then
	ok "a symbolic link as OUT: written through, still a link"
else
	fail "a symbolic link as OUT was replaced or not written"
fi

echo "$checks checks passed, $failed failed"
[ "$failed" -eq 0 ]
