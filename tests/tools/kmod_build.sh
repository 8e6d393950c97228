#!/usr/bin/env bash
# Every scenario of scenarios/races, scenarios/api and scenarios/ranges that exports
# (kwsim export --module) builds as a kernel module, warnings as errors,
# against each kernel's headers in KWSIM_KMOD_HEADERS: directories such as
# /usr/src/linux-headers-6.1.0-NN-amd64, separated by ':' (Debian's
# linux-headers-*-amd64, -common and linux-kbuild packages, unpacked).
# Unset, the headers tools/realkernel unpacked into its cache are used
# ($KWSIM_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/kwsim, realkernel/6.1 and
# realkernel/6.12: `tools/realkernel --fetch` puts them there, and tools/test
# runs it before this test). With neither the test is skipped (exit 77). The
# modules are built in one Kbuild directory per kernel (make -j2), as a
# runner booting several scenarios at once would.
# Usage: kmod_build.sh KWSIM SCENARIOS_DIR
set -uo pipefail
kwsim=$(realpath "${1:?usage: kmod_build.sh KWSIM SCENARIOS_DIR}")
scenarios=$(realpath "${2:?usage: kmod_build.sh KWSIM SCENARIOS_DIR}")
if [ -z "${KWSIM_KMOD_HEADERS:-}" ]; then
	cache=${KWSIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kwsim}/realkernel
	for series in 6.1 6.12; do
		for d in "$cache/$series"/usr/src/linux-headers-*-amd64; do
			[ -f "$d/Makefile" ] && KWSIM_KMOD_HEADERS=${KWSIM_KMOD_HEADERS:+$KWSIM_KMOD_HEADERS:}$d
		done
	done
	if [ -z "${KWSIM_KMOD_HEADERS:-}" ]; then
		echo "skipped: KWSIM_KMOD_HEADERS names no kernel headers, and $cache has none" \
			"(tools/realkernel --fetch unpacks Debian's 6.1 and 6.12 there)"
		exit 77
	fi
	echo "the headers tools/realkernel unpacked: $KWSIM_KMOD_HEADERS"
fi
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

mkdir "$tmp/src"
n=0
for f in "$scenarios"/races/*.kws "$scenarios"/api/*.kws "$scenarios"/ranges/*.kws; do
	name=$(basename "$f" .kws)
	"$kwsim" export "$f" --module "$tmp/x-$name" >/dev/null 2>&1 || continue
	cp "$tmp/x-$name"/*.c "$tmp/src/"
	n=$((n + 1))
	# a replay file also builds steered by its own schedule (kwsim export --steer)
	grep -q '^schedule {' "$f" || continue
	"$kwsim" export "$f" --module "$tmp/s-$name" --steer "$f" >/dev/null 2>&1 || continue
	# the same module name, kws_ made kss_: no longer (MODULE_NAME_LEN), and no clash
	for c in "$tmp/s-$name"/*.c; do b=$(basename "$c"); cp "$c" "$tmp/src/kss_${b#kws_}"; done
	n=$((n + 1))
	steered=$((${steered:-0} + 1))
done
[ "${steered:-0}" -gt 0 ] && ok "${steered} of them also steered by their schedules" ||
	fail "no scenario exported steered"
[ $n -gt 0 ] && ok "$n scenarios exported" || fail "no scenario exported"
(cd "$tmp/src" && for c in *.c; do echo "obj-m += ${c%.c}.o"; done) >"$tmp/src/Kbuild"

IFS=: read -ra kernels <<<"$KWSIM_KMOD_HEADERS"
for k in "${kernels[@]}"; do
	[ -d "$k" ] || { fail "$k: no such directory"; continue; }
	rm -rf "$tmp/build"
	cp -r "$tmp/src" "$tmp/build"
	# no BTF: it needs pahole and the kernel's vmlinux, and the modules need neither
	if make -j2 -C "$k" M="$tmp/build" KCFLAGS=-Werror CONFIG_DEBUG_INFO_BTF_MODULES= modules \
		>"$tmp/log" 2>&1; then
		built=$(ls "$tmp/build"/*.ko 2>/dev/null | wc -l)
		if [ "$built" -eq $n ]; then
			ok "$(basename "$k"): $built modules built"
		else
			fail "$(basename "$k"): $built modules of $n"
		fi
	else
		fail "$(basename "$k"): the build failed"
		grep -E 'error|warning' "$tmp/log" | head -20
	fi
done

echo "$checks checks passed, $failed failed"
[ $failed -eq 0 ]
