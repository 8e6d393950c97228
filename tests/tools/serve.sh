#!/usr/bin/env bash
# kwsim serve on an ephemeral port, driven by real HTTP requests
# (serve_client.py: good requests answered as the command line answers,
# then over 1,000 malformed ones each refused with a 4xx or, when not HTTP
# at all, a closed connection, the server answering a good request after
# each batch); then SIGTERM during a playback: exit 0, and in the sanitizer build no leak
# (LeakSanitizer's exit status 86 otherwise). Then the command line's own
# refusals: a bad option, a port in use, a --root that is not there.
# Usage: serve.sh KWSIM
set -uo pipefail
kwsim=$(realpath "${1:?usage: serve.sh KWSIM}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../status.sh
. "$here/../status.sh"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=0
fail() {
	failed=1
	echo "FAIL: $1"
}

# the --root: good files, a broken one, symlinks out, a run without end
root=$tmp/root
mkdir -p "$root/sub" "$tmp/outside" "$tmp/lib/races" "$tmp/t"
# kwsim run on a file of the same name as the served one: the same bytes
cp "$here/../../scenarios/races/delayed-timer-vs-reinit-debug-objects.kws" "$tmp/lib/races/"
cp "$here/../../scenarios/api/kthread_queue_work.kws" "$root/good.kws"
cp "$root/good.kws" "$root/sub/nested.kws"
printf 'KW broken\n{ cpus = 2; }\nP0 @cpu0 { nope(); }\n' >"$root/broken.kws"
printf 'KW forever\n{ cpus = 1; int c = 0; }\nP0 @cpu0 { while (true) { c = c + 1; } }\n' \
	>"$root/forever.kws"
printf 'KW chatty\n{ cpus = 1; int c = 0; }\nP0 @cpu0 { while (true) { c = c + 1; log("%s"); } }\n' \
	"a line of the account, again and again" >"$root/chatty.kws"
cp "$root/good.kws" "$tmp/outside/secret.kws"
ln -s "$tmp/outside/secret.kws" "$root/out.kws"
ln -s "$tmp/outside" "$root/outdir"
mkdir "$root/dir.kws"

TMPDIR=$tmp/t "$kwsim" serve --port 0 --root "$root" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 1 600); do
	[ -s "$tmp/out" ] && break
	sleep 0.1
done
url=$(head -n 1 "$tmp/out")
case $url in
http://127.0.0.1:[0-9]*/) ;;
*) fail "the first line is not the bound address: '$url'"; cat "$tmp/err"; exit 1 ;;
esac

# it ends by sending SIGTERM during a playback
/usr/bin/python3 "$here/serve_client.py" "$url" "$kwsim" "$root" "$pid" >"$tmp/client" ||
	fail "serve_client.py"
cat "$tmp/client"
# if the client did not get that far (a second one would end the server's cleanup)
grep -q '^serve_client.py: sent SIGTERM$' "$tmp/client" || kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
problem=$(kw_status_problem "$rc")
if [ -n "$problem" ] || [ "$rc" -ne 0 ]; then
	fail "kwsim serve on SIGTERM: exit $rc ${problem:-}"
	cat "$tmp/err"
fi
grep -q '^kwsim serve: stopped after [0-9]* requests, [0-9]* refused$' "$tmp/err" ||
	fail "no closing line: $(cat "$tmp/err")"
# explorations leave no temporary directory behind
[ -z "$(ls -A "$tmp/t")" ] || fail "left in TMPDIR: $(ls -A "$tmp/t")"

# SIGINT too
"$kwsim" serve --port 0 >"$tmp/out2" 2>/dev/null &
pid=$!
for _ in $(seq 1 600); do
	[ -s "$tmp/out2" ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] || fail "kwsim serve on SIGINT: exit $rc $(kw_status_problem "$rc")"

# a --root past the listing's bound (4,096 files) says so, in the index and the listing
mkdir -p "$tmp/many/a" "$tmp/many/b"
for i in $(seq 1 2100); do
	: >"$tmp/many/a/f$i.kws"
	: >"$tmp/many/b/f$i.kws"
done
"$kwsim" serve --port 0 --root "$tmp/many" >"$tmp/out3" 2>/dev/null &
pid=$!
for _ in $(seq 1 600); do
	[ -s "$tmp/out3" ] && break
	sleep 0.1
done
url=$(head -n 1 "$tmp/out3")
/usr/bin/python3 - "$url" <<'EOF' || fail "a --root of 4,200 files"
import json, sys, urllib.request
url = sys.argv[1]
page = urllib.request.urlopen(url).read().decode()
listing = json.loads(urllib.request.urlopen(url + "api/scenarios").read())
ok = "more than 4096" in page and listing.get("cut") == ["root"] and \
    sum(n.startswith("root/") for n in listing["scenarios"]) == 4096
print("a --root of 4,200 files: the index %s, the listing's cut %s" %
      ("says so" if "more than 4096" in page else "is silent", listing.get("cut")))
sys.exit(0 if ok else 1)
EOF
kill -TERM "$pid"
wait "$pid"
pid=

# --bind beyond the loopback: a warning, and the Host check kept
"$kwsim" serve --port 0 --bind 0.0.0.0 >"$tmp/out4" 2>"$tmp/err4" &
pid=$!
for _ in $(seq 1 600); do
	[ -s "$tmp/out4" ] && break
	sleep 0.1
done
port=$(head -n 1 "$tmp/out4" | sed 's/.*:\([0-9]*\)\/$/\1/')
grep -q '^kwsim serve: warning: .*0\.0\.0\.0' "$tmp/err4" ||
	fail "--bind 0.0.0.0 without a warning: '$(cat "$tmp/err4")'"
/usr/bin/python3 - "$port" <<'EOF' || fail "--bind 0.0.0.0 and the Host check"
import http.client, sys
port = int(sys.argv[1])
def status(host):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/api/scenarios", headers={"Host": host})
    return c.getresponse().status
got = {h: status(h) for h in ("evil.example", "evil.example:%d" % port, "127.0.0.1:%d" % port)}
print("--bind 0.0.0.0: %s" % got)
sys.exit(0 if got == {"evil.example": 400, "evil.example:%d" % port: 400,
                      "127.0.0.1:%d" % port: 200} else 1)
EOF
kill -TERM "$pid"
wait "$pid"
pid=

# the command line
expect2() {
	local what=$1 rc
	shift
	"$kwsim" serve "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -q '^kwsim serve: ' "$tmp/e" || [ -s "$tmp/o" ]; then
		fail "$what: exit $rc $(kw_status_problem "$rc"), stderr '$(cat "$tmp/e")'"
	fi
}
expect2 "an unknown option" --bogus
expect2 "--port without a value" --port
expect2 "a port out of range" --port 65536
expect2 "a port that is no number" --port -1
expect2 "a --root that is not there" --root "$tmp/none"
expect2 "an address that is no address" --bind 999.1.1.1 --port 0

if [ "$failed" -ne 0 ]; then
	echo "kwsim serve: FAILED"
	exit 1
fi
echo "kwsim serve: ok"
