#!/usr/bin/python3
"""Drive `kwsim serve` with real HTTP requests, good and bad.

Usage: serve_client.py URL KWSIM ROOT PID

URL is the server's address (the first line it prints), KWSIM the binary
(to compare a served run with `kwsim run --json`), ROOT the temporary
directory given as --root: it holds good.kws, broken.kws, a symlink to a
file outside it (out.kws), a symlink to a directory outside it (outdir/)
and a scenario that never ends (forever.kws).

Good requests must get what the command line gives. Then batches of
malformed requests (standard library only: http.client and raw sockets):
each must be answered with a 4xx status and a plain-text reason, or, for
input that is not HTTP at all, with the connection closed; the summary
says which, per batch. After each batch a good request must still be
answered. The work is bounded by counts; the socket timeout is only a
guard against a hang.
"""
import http.client
import json
import random
import socket
import subprocess
import sys
import urllib.parse

URL, KWSIM, ROOT, PID = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
u = urllib.parse.urlsplit(URL)
HOST, PORT = u.hostname, u.port
GUARD = 60          # seconds: a hang, not a measure
RACE = "lib/races/delayed-timer-vs-reinit-debug-objects.kws"

failures = []
summary = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def raw(data, shut=True, read=True):
    """Send bytes on a fresh connection; (status or None, body bytes, closed_without_answer)."""
    s = socket.create_connection((HOST, PORT), timeout=GUARD)
    try:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server closed while we were still sending: read what it said
        if shut:
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        if not read:
            return None, b"", True
        got = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except ConnectionResetError:
            pass
    finally:
        s.close()
    if not got:
        return None, b"", True
    line = got.split(b"\r\n", 1)[0].split(b" ")
    try:
        status = int(line[1])
    except (IndexError, ValueError):
        fail("not an HTTP answer: %r" % got[:80])
        return None, got, False
    body = got.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in got else b""
    return status, body, False


def request(method, target, body=None, headers=None):
    c = http.client.HTTPConnection(HOST, PORT, timeout=GUARD)
    c.request(method, target, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    hdrs = dict(r.getheaders())
    c.close()
    return r.status, hdrs, data


def still_serving(after):
    status, _, data = request("GET", "/api/scenarios")
    if status != 200 or RACE.encode() not in data:
        fail("after %s: GET /api/scenarios answered %s" % (after, status))


def batch(name, reqs, closing_ok):
    """reqs: bytes each, sent raw. Each gets a 4xx (with a reason) or, if closing_ok, a close."""
    answered = closed = 0
    for data in reqs:
        status, body, was_closed = raw(data)
        if was_closed:
            if closing_ok:
                closed += 1
            else:
                fail("%s: %r: connection closed without an answer" % (name, data[:100]))
            continue
        if status is None or not 400 <= status < 500:
            fail("%s: %r: status %s, not 4xx" % (name, data[:100], status))
            continue
        answered += 1
        # our refusals say what was wrong; evhttp's own (unparseable input) are its HTML
        if b"kwsim serve: " not in body and b"<HTML>" not in body.upper():
            fail("%s: %r: a 4xx without a reason: %r" % (name, data[:100], body[:100]))
    summary.append((name, len(reqs), answered, closed))
    still_serving(name)
    return len(reqs)


def get(target, extra=""):
    return ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n" % (target, extra)).encode()


def sse_events(target):
    """The events of a playback: [(event, data)]."""
    status, hdrs, data = request("GET", target)
    if status != 200 or not hdrs.get("Content-Type", "").startswith("text/event-stream"):
        fail("GET %s: %s %s" % (target, status, hdrs.get("Content-Type")))
        return []
    events = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        ev, lines = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                ev = line[7:]
            elif line.startswith("data: "):
                lines.append(line[6:])
        events.append((ev, "\n".join(lines)))
    return events


# --- good requests ------------------------------------------------------------------------

status, hdrs, index = request("GET", "/")
if status != 200 or b"delayed-timer-vs-reinit-debug-objects.kws" not in index:
    fail("GET /: %s, or the library is not listed" % status)
status, _, data = request("GET", "/api/scenarios")
listing = json.loads(data)
names = listing["scenarios"]
if "root/good.kws" not in names or "root/out.kws" in names or any("outdir" in n for n in names):
    fail("the listing: root/good.kws listed, root/out.kws and outdir/ not: %s" %
         [n for n in names if n.startswith("root/")])
if "mainline" not in listing["kernels"] or "v4.9" not in listing["kernels"]:
    fail("the listing's kernels: %s" % listing["kernels"])
with open(ROOT + "/good.kws", "rb") as f:
    good_text = f.read()
status, _, data = request("GET", "/files/root/good.kws")
if status != 200 or data != good_text:
    fail("GET /files/root/good.kws: %s, not the file's bytes" % status)

# the index: one heading per folder, each folder's files under it
folders = sorted({n.rsplit("/", 1)[0] for n in names})
heads = [h.decode() for h in __import__("re").findall(rb"<h2>([^<]*)</h2>", index)]
if heads != folders:
    fail("GET /: %d headings for %d folders (%s...)" % (len(heads), len(folders), heads[:4]))


def keepalive(reqs):
    """Send reqs on one connection, the last with Connection: close; the raw answer."""
    s = socket.create_connection((HOST, PORT), timeout=GUARD)
    s.sendall(b"".join(reqs))
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    return got


# HEAD: GET's status and headers, Content-Length the GET's body's, no body; the keep-alive
# GET after it is answered alone
for target in ("/", "/files/root/good.kws", "/api/result?file=" + RACE, "/nope",
               "/api/run?file=root/broken.kws"):
    status, hdrs, body = request("GET", target)
    got = keepalive([("HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % target).encode(),
                     get("/api/scenarios")])
    head, _, rest = got.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    if not lines[0].startswith("HTTP/1.1 %d " % status) or \
            fields.get("content-length") != str(len(body)) or \
            not rest.startswith(b"HTTP/1.1 200 OK\r\n") or rest.count(b"HTTP/1.1 ") != 1:
        fail("HEAD %s: %r, Content-Length %s (the GET's body: %d), then %r" %
             (target, lines[0], fields.get("content-length"), len(body), rest[:40]))

# a run: /api/result is what kwsim run --json prints; /api/run is the run document
# kwsim export writes into its page; /api/play is that document in parts
def export_doc(args):
    out = ROOT + "/../export.html"
    subprocess.run([KWSIM, "export", RACE, "--html", out, "--max-events", "20000"] + args,
                   cwd=ROOT + "/..",
                   capture_output=True, check=False)
    with open(out, encoding="utf-8") as f:
        page = f.read()
    start = page.index('<script type="application/json" id="kwsim-doc">')
    start = page.index(">", start) + 1
    return json.loads(page[start:page.index("</script>", start)])


for q, args in (("", []), ("&kernel=v4.9", ["--kernel", "v4.9"]),
                ("&seed=7", ["--seed", "7"]),
                ("&strategy=random&seed=3&kernel=mainline",
                 ["--strategy", "random", "--seed", "3", "--kernel", "mainline"])):
    status, _, data = request("GET", "/api/result?file=" + RACE + q)
    # the same name, so the same bytes: ROOT/../lib is a copy of the library's file
    ref = subprocess.run([KWSIM, "run", RACE, "--json"] + args, cwd=ROOT + "/..",
                         capture_output=True, check=False).stdout
    if status != 200 or data != ref:
        fail("GET /api/result%s: %s, not what kwsim run --json %s prints" % (q, status, " ".join(args)))
    status, _, data = request("GET", "/api/run?file=" + RACE + q)
    if status != 200 or json.loads(data) != export_doc(args):
        fail("GET /api/run%s: %s, not the document kwsim export %s writes" % (q, status, " ".join(args)))
    doc = json.loads(data)
    # playback: doc-head, records, end; together the document
    evs = sse_events("/api/play?file=%s%s&ms=0&live=1" % (RACE, q))
    kinds = [e for e, _ in evs]
    if not kinds or kinds[0] != "doc-head" or kinds[-1] != "end" or \
            set(kinds[1:-1]) != {"records"} or len(kinds) < 4:
        fail("playback's events: %s" % kinds)
        continue
    head = json.loads(evs[0][1])
    head["records"] = [r for _, d in evs[1:-1] for r in json.loads(d)]
    head["end"] = json.loads(evs[-1][1])
    if head != doc:
        fail("playback%s: its parts are not the run's document" % q)

# pages
for target in ("/scenario?file=" + RACE, "/play?file=" + RACE + "&seed=2&live=1&ms=50"):
    status, hdrs, data = request("GET", target)
    if status != 200 or not hdrs["Content-Type"].startswith("text/html"):
        fail("GET %s: %s" % (target, status))
status, _, data = request("GET", "/play?file=" + RACE)
if b'id="kw-timeline"' not in data or b'id="kwsim-doc"' in data:
    fail("/play is not the timeline page that loads its document")
status, _, data = request("GET", "/scenario?file=" + RACE)
if b'<form id="edit" method="post" action="/edit"' not in data:
    fail("the scenario page has no edit box")

# a library file that does not parse: its page shows the error at its line, and no Run form
status, _, data = request("GET", "/scenario?file=root/broken.kws")
if status != 200 or b'<tr id="L3" class="err">' not in data or b"root/broken.kws:3:" not in data \
        or b'<form id="run"' in data:
    fail("GET /scenario?file=root/broken.kws: %s, its error not at line 3" % status)
status, _, data = request("GET", "/api/run?file=root/broken.kws")
if status != 400 or not data.startswith(b"kwsim serve: 400 Bad Request: root/broken.kws:3:"):
    fail("GET /api/run?file=root/broken.kws: %s %r" % (status, data[:120]))

# the edit box carries the server's token (a hidden field): a POST must send it back
status, _, data = request("GET", "/scenario?file=" + RACE)
m = __import__("re").search(rb'<input type="hidden" name="token" value="([0-9a-f]{32})">', data)
TOKEN = m.group(1).decode() if m else ""
if not m:
    fail("the edit form has no token")

# the edit box: errors at their line; a good edit runs
form = urllib.parse.urlencode({"text": "KW e\n{ cpus = 2; }\nP0 @cpu0 {\n  bogus(1);\n}\n",
                               "kernel": "v4.9", "token": TOKEN})
status, _, data = request("POST", "/edit", form,
                          {"Content-Type": "application/x-www-form-urlencoded"})
if status != 400 or b'<tr id="L4" class="err">' not in data or b"edit:4:" not in data:
    fail("POST /edit of a broken scenario: %s, its error not shown at line 4" % status)
form = urllib.parse.urlencode({"text": good_text.decode(), "seed": "5", "token": TOKEN})
status, hdrs, _ = request("POST", "/edit", form,
                          {"Content-Type": "application/x-www-form-urlencoded",
                           "Origin": "http://%s:%d" % (HOST, PORT), "Sec-Fetch-Site": "same-origin"})
loc = hdrs.get("Location", "")
if status != 303 or not loc.startswith("/play?edit=e") or "seed=5" not in loc:
    fail("POST /edit of a good scenario: %s, Location %r" % (status, loc))
else:
    status, _, data = request("GET", loc.replace("/play", "/api/result"))
    if status != 200 or json.loads(data)["seed"] != 5:
        fail("GET %s: %s" % (loc.replace("/play", "/api/result"), status))
    status, _, data = request("GET", loc)
    if status != 200 or b'id="kw-timeline"' not in data:
        fail("GET %s: %s, not the timeline page" % (loc, status))

# cross-site: a POST from another origin, or without this server's token, is refused (403),
# whatever it holds; this origin's own, with the token, is not
good_form = urllib.parse.urlencode({"text": good_text.decode(), "token": TOKEN})
for what, form, extra in (
        ("another Origin", good_form, {"Origin": "http://evil.example"}),
        ("another Origin, same port", good_form, {"Origin": "http://evil.example:%d" % PORT}),
        ("Origin: null", good_form, {"Origin": "null"}),
        ("Sec-Fetch-Site: cross-site", good_form, {"Sec-Fetch-Site": "cross-site"}),
        ("Sec-Fetch-Site: same-site", good_form, {"Sec-Fetch-Site": "same-site"}),
        ("no token", urllib.parse.urlencode({"text": good_text.decode()}), {}),
        ("a wrong token", urllib.parse.urlencode({"text": good_text.decode(), "token": "0" * 32}),
         {}),
        ("a token twice", good_form + "&token=" + TOKEN, {})):
    hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
    hdrs.update(extra)
    status, _, data = request("POST", "/edit", form, hdrs)
    if status != 403 and not (what == "a token twice" and status == 400):
        fail("POST /edit with %s: %s %r, not 403" % (what, status, data[:100]))
    elif status == 403 and not data.startswith(b"kwsim serve: 403 Forbidden: "):
        fail("POST /edit with %s: 403 without a reason: %r" % (what, data[:100]))
for origin in ("http://127.0.0.1:%d" % PORT, "http://localhost:%d" % PORT):
    status, _, _ = request("POST", "/edit", good_form,
                           {"Content-Type": "application/x-www-form-urlencoded", "Origin": origin,
                            "Host": origin[7:]})
    if status != 303:
        fail("POST /edit from its own origin %s: %s, not 303" % (origin, status))

# a run that never ends stops at the server's bound on steps
status, _, data = request("GET", "/api/result?file=root/forever.kws")
if status != 200 or json.loads(data)["end"] != "step-limit":
    fail("GET /api/run?file=root/forever.kws: %s %r" % (status, data[-200:]))

# a run whose output passes the server's bound on bytes is stopped and refused
status, _, data = request("GET", "/api/run?file=root/chatty.kws")
if status != 422 or b"the run's result passed the server's limit" not in data:
    fail("GET /api/run?file=root/chatty.kws: %s %r, not 422" % (status, data[:200]))

# explore: the campaign's summary; the findings' runs play by their edit ids
status, _, data = request("GET", "/api/explore?file=%s&strategy=random&runs=20&seed=1" % RACE)
if status != 200 or json.loads(data)["strategy"] != "random":
    fail("GET /api/explore: %s %r" % (status, data[:200]))
if set(listing.get("explore_strategies", [])) != {"portfolio", "random", "pct", "pos", "dfs", "rff",
                                                      "tpct", "delay", "pair"}:
    fail("the listing's explore strategies: %s" % listing.get("explore_strategies"))
status, _, data = request("GET", "/api/explore?file=%s&strategy=rff&runs=20&seed=1" % RACE)
if status != 200 or json.loads(data)["strategy"] != "rff":
    fail("GET /api/explore with rff: %s %r" % (status, data[:200]))
status, _, data = request("GET", "/explore?file=%s&strategy=random&runs=20&seed=1" % RACE)
plays = [p.decode().replace("&amp;", "&") for p in
         __import__("re").findall(rb'href="(/play\?edit=e[0-9a-f]+&amp;replay=1&amp;live=1)"', data)]
if status != 200 or not plays:
    fail("GET /explore: %s, no finding to play" % status)
for p in plays[:3]:
    status, _, data = request("GET", p.replace("/play", "/api/result"))
    if status != 200 or not json.loads(data)["findings"]:
        fail("a finding's replay %s: %s" % (p, status))

# --- bad requests --------------------------------------------------------------------------

rng = random.Random(12)
total = 0

# not HTTP: bad request lines; evhttp answers 400 or closes
bad_lines = [b"\r\n\r\n", b"GET\r\n\r\n", b"GET /\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
             b"GET / FOO/1.1\r\n\r\n", b"/ GET HTTP/1.1\r\n\r\n", b"GET  / HTTP/1.1\r\n\r\n",
             b"GET / HTTP/1.1 extra\r\n\r\n", b"\x00\x01\x02\r\n\r\n", b"GET \x00 HTTP/1.1\r\n\r\n",
             b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", b"GET / HTTP/1.1\r\n: empty\r\n\r\n",
             b"GET http://[::1 HTTP/1.1\r\n\r\n", b"GET / HTTP/1.x\r\n\r\n"]
while len(bad_lines) < 120:
    n = rng.randrange(1, 200)
    junk = bytes(rng.choice(b" \t/%?#:ABCXYZabc019\x7f\xff\x80\x01") for _ in range(n))
    bad_lines.append(junk + b"\r\n\r\n")
total += batch("bad request lines", bad_lines, True)

# methods: evhttp's own (405 from us), tokens it does not know (its 400 or a close)
methods = []
for m in ("PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT"):
    for t in ("/", "/api/run?file=" + RACE, "/edit"):
        methods.append(("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                        % (m, t)).encode())
known = len(methods)
total += batch("methods evhttp knows", methods, False)
odd = [("%s / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" %
        "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabc") for _ in range(rng.randrange(1, 40)))).encode()
       for _ in range(100 - known)] + [b"get / HTTP/1.1\r\n\r\n", b"POSTX /edit HTTP/1.1\r\n\r\n"]
total += batch("unknown methods", odd, True)
# POST anywhere but /edit, and /edit without its form
posts = [("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab" % t).encode()
         for t in ("/", "/api/run", "/files/lib/x.kws", "/edit?x=1", "/edit")]
posts += [("POST /edit HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: %s\r\n"
           "Content-Length: %d\r\n\r\n%s" % (ct, len(b), b)).encode()
          for ct, b in (("application/x-www-form-urlencoded", "kernel=v4.9&token=" + TOKEN),
                        ("application/x-www-form-urlencoded", "text=x&bogus=1&token=" + TOKEN),
                        ("application/x-www-form-urlencoded", "text=%zz&token=" + TOKEN),
                        ("application/x-www-form-urlencoded", "text=a&text=b&token=" + TOKEN),
                        ("application/x-www-form-urlencoded", "text=x&seed=-1&token=" + TOKEN),
                        ("application/x-www-form-urlencoded", "text=x&kernel=v9&token=" + TOKEN),
                        ("text/plain", "KW x"), ("multipart/form-data", "x"))]
total += batch("bad posts", posts, False)

# huge headers: one long value, many headers, a long request line
huge = []
for n in range(25):
    huge.append(get("/", "X-Big: %s\r\n" % ("a" * (9000 + 1000 * n))))
for n in range(25):
    huge.append(get("/", "".join("X-H%d: v\r\n" % i for i in range(1200 + 40 * n))))
for n in range(10):
    huge.append(get("/api/run?file=" + RACE + "&seed=" + "1" * (3000 + 500 * n)))
total += batch("huge headers", huge, True)

# huge bodies: a Content-Length past the bound (the body need not be sent), a GET with a body
bodies = []
for n in range(40):
    size = 256 * 1024 + 1 + n * 100003
    bodies.append(("POST /edit HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: "
                   "application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n" % size).encode()
                  + b"text=" + b"a" * min(size, 300000))
for n in range(10):
    bodies.append(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                   % (5 + n)).encode() + b"x" * (5 + n))
total += batch("huge bodies", bodies, True)

# bad percent-encoding, in the path and the query
enc = []
for bad in ("%", "%z", "%1", "%zz", "%g0", "%00", "%%", "%1%", "a%", "%0"):
    for t in ("/files/lib/races/x%s.kws", "/scenario?file=lib/x%s.kws", "/api/run?file=%s",
              "/api/run?file=" + RACE + "&kernel=%s", "/%s", "/api/run?file=" + RACE + "&seed=1%s",
              "/api/play?file=" + RACE + "&ms=%s", "/explore?file=" + RACE + "&runs=%s",
              "/api/scenarios?%s", "/play?%s=1", "/files/%s/x.kws", "/api/run?%s",
              "/scenario?%s"):
        enc.append(get(t % bad))
total += batch("bad percent-encoding", enc, False)

# paths outside the roots: .., absolute, symlinks out
outside = []
for rel in ("../etc/passwd.kws", "../../../../etc/passwd.kws", "races/../../tools/x.kws",
            "/etc/passwd.kws", "//etc/passwd.kws", "./races/x.kws", "races//x.kws",
            "%2e%2e/x.kws", "%2E%2E/%2E%2E/etc/x.kws", "..%2fx.kws", "races/%2e%2e/%2e%2e/x.kws",
            "races/..", "..", ".", "", "races/x.txt", "races/x", "nonexistent.kws"):
    for root in ("lib", "root", "nope", ""):
        outside.append(get("/files/%s/%s" % (root, rel)))
        outside.append(get("/scenario?file=%s/%s" % (root, rel)))
        outside.append(get("/api/run?file=%s/%s" % (root, rel)))
for t in ("root/out.kws", "root/outdir/x.kws", "root/outdir/../good.kws", "/" + ROOT + "/good.kws",
          ROOT + "/good.kws", "lib/../../" + ROOT + "/good.kws", "root/dir.kws"):
    for route in ("/files/%s", "/scenario?file=%s", "/api/run?file=%s", "/api/play?file=%s",
                  "/play?file=%s", "/explore?file=%s", "/api/explore?file=%s"):
        outside.append(get(route % t))
total += batch("paths outside the roots", outside, False)

# bad query values
values = []
run = "/api/run?file=" + RACE
for v in ("kernel=v9", "kernel=tree:/etc", "kernel=mainline%0A", "kernel=MAINLINE",
          "seed=-1", "seed=99999999999999999999999", "seed=9223372036854775808", "seed=1e3",
          "seed=0x10", "seed=+1", "seed= 1", "seed=1%20", "strategy=pct", "strategy=foo",
          "strategy=faithful&seed=3", "replay=1", "replay=2", "replay=1&seed=1", "ms=-1",
          "ms=5001", "live=2", "live=yes",
          "runs=5", "bogus=1", "file=" + RACE, "edit=e0000000000000000", "x", "=1", "&&",
          "kernel=%01", "kernel=" + "v" * 600, "seed=&seed=3", "kernel=v4.9&kernel="):
    values.append(get(run + "&" + v))
for v in ("", "file=", "edit=", "file=lib/x.kws&edit=e1", "edit=nope", "edit=e0123456789abcdef"):
    for route in ("/api/run", "/api/play", "/play", "/scenario", "/explore", "/api/explore"):
        values.append(get("%s?%s" % (route, v)))
for v in ("runs=0", "runs=1001", "runs=-5", "runs=abc", "runs=99999999999999999999",
          "strategy=faithful", "strategy=bogus", "seed=-3", "replay=1", "ms=0", "kernel=v5"):
    for route in ("/explore", "/api/explore"):
        values.append(get("%s?file=%s&%s" % (route, RACE, v)))
for v in ("ms=-1", "ms=5001", "ms=abc", "ms=1.5", "runs=3", "live=x"):
    for route in ("/api/play", "/play", "/api/result"):
        values.append(get("%s?file=%s&%s" % (route, RACE, v)))
for n in range(60):
    values.append(get(run + "&seed=%d" % -rng.randrange(1, 1 << 62)))
    values.append(get(run + "&kernel=" + "".join(rng.choice("abcv.0123456789:") for _ in range(8))))
    values.append(get(run + "&strategy=" + "".join(rng.choice("abcdefrandom") for _ in range(7))))
total += batch("bad query values", values, False)

# another machine's name as Host (DNS rebinding): refused; this machine's names: served
hosts = [("GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % h).encode()
         for h in ("evil.example", "evil.example:%d" % PORT, "127.0.0.1.evil.example",
                   "127.0.0.1:%d.evil" % PORT, "localhost.evil", "[::2]:%d" % PORT, "127.0.0.1:x",
                   "0.0.0.0:%d" % PORT, "10.0.0.1", "127.a.0.1", "[::1", "localhostx")]
total += batch("another machine's name as Host", hosts, False)
for h in ("localhost:%d" % PORT, "LOCALHOST:%d" % PORT, "[::1]:%d" % PORT, "127.0.0.1",
          "127.1.2.3:%d" % PORT):
    status, _, _ = raw(("GET /api/scenarios HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                        % h).encode())
    if status != 200:
        fail("Host: %s: %s, not 200" % (h, status))

# unknown routes and long targets
routes = [get(t) for t in ("/nope", "/api", "/api/", "/api/nope", "/files", "/files/",
                           "/index.htm", "/scenario/", "/play/", "/edit", "/API/run")]
routes += [get("/r%d" % rng.randrange(1 << 30)) for _ in range(60)]
routes += [get("/?" + "a=1&" * 700), get("/api/run?file=" + "a" * 3000)]
total += batch("unknown routes", routes, False)

# truncated requests: the client stops mid-request and shuts its side
full = get("/api/run?file=" + RACE)
trunc = [full[:rng.randrange(1, len(full) - 4)] for _ in range(100)]
total += batch("truncated requests", trunc, True)

# slowloris: 60 connections each holding part of a request; the server serves meanwhile
held = []
for i in range(60):
    s = socket.create_connection((HOST, PORT), timeout=GUARD)
    s.sendall(full[:rng.randrange(1, len(full) - 4)])
    held.append(s)
still_serving("60 partial requests held open")
for s in held:
    s.close()
summary.append(("slowloris partial requests, closed by the client", 60, 0, 60))
still_serving("the partial requests closed")
total += 60

# playbacks: the bound on those in progress, clients that leave mid-stream
streams = []
for i in range(8):
    s = socket.create_connection((HOST, PORT), timeout=GUARD)
    s.sendall(get("/api/play?file=%s&ms=5000" % RACE, ""))
    streams.append(s)
for s in streams:
    s.recv(100)     # its answer began: it is in progress
status, body, _ = raw(get("/api/play?file=%s&ms=0" % RACE))
if status != 429:
    fail("a ninth playback: %s, not 429" % status)
for s in streams:
    s.close()
still_serving("clients left their playbacks")
evs = sse_events("/api/play?file=%s&ms=0" % RACE)
if not evs or evs[-1][0] != "end":
    fail("a playback after the others left did not end")
total += 9

# the slowest pace a playback may ask (ms=5000) is inside the idle timeout: it plays to its end
evs = sse_events("/api/play?file=%s&ms=5000" % RACE)
if [e for e, _ in evs][-1:] != ["end"]:
    fail("a playback at ms=5000 did not reach its end: %s" % [e for e, _ in evs])

# SIGTERM with a playback in progress: the server closes it and exits (serve.sh checks how)
s = socket.create_connection((HOST, PORT), timeout=GUARD)
s.sendall(get("/api/play?file=%s&ms=5000" % RACE))
if b"event: doc-head" not in s.recv(65536):
    fail("a playback sent no doc-head first")
__import__("os").kill(PID, 15)
print("serve_client.py: sent SIGTERM")
try:
    while s.recv(65536):
        pass
except ConnectionResetError:
    pass
s.close()

print("%d malformed or refused requests:" % total)
for name, n, answered, closed in summary:
    print("  %-50s %4d: %4d answered 4xx, %4d closed" % (name, n, answered, closed))
if total < 1000:
    fail("only %d malformed requests" % total)
sys.exit(1 if failures else 0)
