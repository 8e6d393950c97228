#!/usr/bin/env bash
# kwsim fuzz: the same seed and --runs give the same summary bytes (one
# process, twice; --json too); every --out file replays (kwsim replay shows
# its finding again); on v4.9 a bounded campaign with a fixed seed finds an
# implementation finding; SIGINT (the test hook) leaves the summary of the
# programs done, exit 1 or 3; --corpus saves (every --save-every programs, so a
# SIGKILL after a save line keeps its entries), loads and skips a damaged entry;
# --jobs merges its children's findings; bad flags are exit 2 with a message.
# Every campaign is bounded by --runs, never by time.
# Usage: cli_fuzz.sh KWSIM
set -uo pipefail
kwsim=${1:?usage: cli_fuzz.sh KWSIM}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../lib.sh
. "$here/../lib.sh"


# expect RC STDERR_REGEX ARGS...: exit status RC, stderr matching (empty: anything)
expect() {
	local want_rc=$1 want_err=$2 problem
	shift 2
	checks=$((checks + 1))
	"$kwsim" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	problem=$(kw_status_problem "$rc")
	if [ -n "$problem" ]; then
		fail "kwsim $*: $problem: $(head -3 "$tmp/err")"
		return 1
	elif [ "$rc" -ne "$want_rc" ]; then
		fail "kwsim $*: exit $rc, want $want_rc: $(head -3 "$tmp/err")"
		return 1
	elif [ -n "$want_err" ] && ! grep -qE -- "$want_err" "$tmp/err"; then
		fail "kwsim $*: stderr does not match '$want_err': $(head -3 "$tmp/err")"
		return 1
	fi
	return 0
}

# The v4.9 campaign every check below builds on: its run count is where this
# seed reliably finds an implementation finding (measured; see README). Seed
# 6 since programs have ranges (tools/prog/README.md): seed 1's first 100
# programs find none then (its first 400 find two).
V49="fuzz --kernel v4.9 --seed 6 --runs ${KWSIM_FUZZ_RUNS:-100} --schedules 6 --cross-runs 50"

# --- a bounded v4.9 campaign finds, shrinks and writes an implementation finding -------------
expect 1 "" $V49 --out "$tmp/found"
cp "$tmp/out" "$tmp/a.txt"
grep -qE '^implementation findings: [1-9]' "$tmp/a.txt" ||
	fail "v4.9, seed 6: no implementation finding: $(cat "$tmp/a.txt")"
grep -q '^misuse findings: 0$' "$tmp/a.txt" || fail "misuse findings without --misuse"
grep -qE 'variants: v4\.9 yes, mainline (yes|no)' "$tmp/a.txt" ||
	fail "no cross-variant report: $(cat "$tmp/a.txt")"
# the signal a kernel developer wants: a finding of v4.9's that mainline does not show
grep -qE 'variants: v4\.9 yes, mainline no' "$tmp/a.txt" ||
	fail "v4.9, seed 6: no v4.9-only finding: $(cat "$tmp/a.txt")"
nfiles=$(ls "$tmp/found"/*.kws 2>/dev/null | wc -l)
[ "$nfiles" -ge 1 ] || fail "--out wrote no file"
[ "$nfiles" -eq "$(grep -c '      file: ' "$tmp/a.txt")" ] || fail "--out files and the summary's differ"
# the same campaign again writes the same files, byte for byte (no wall time in them)
expect 1 "" $V49 --out "$tmp/found2"
checks=$((checks + 1))
diff -r "$tmp/found" "$tmp/found2" >"$tmp/diff" || fail "the same campaign's files differ: $(head -5 "$tmp/diff")"

# a longer one with the default schedules: rff's runs shrunk (xshrink once ran them with rff's
# freed on_rf: a crash)
expect 1 "" fuzz --kernel v4.9 --seed 1 --runs 300 --cross-runs 0

# --- every file replays: its run shows the finding it names again ----------------------------
for f in "$tmp/found"/*.kws; do
	checks=$((checks + 1))
	"$kwsim" replay "$f" >"$tmp/replay" 2>&1
	rc=$?
	problem=$(kw_status_problem "$rc")
	[ -z "$problem" ] || { fail "replay $f: $problem"; continue; }
	[ "$rc" -eq 1 ] || fail "replay $(basename "$f"): exit $rc, want 1 (the finding): $(head -5 "$tmp/replay")"
	kind=$(sed -n 's/^   Found by kwsim fuzz: \([a-z_-]*\) .*/\1/p; s/^(\* Found by kwsim fuzz: \([a-z_-]*\) .*/\1/p' "$f" | head -1)
	[ -n "$kind" ] || { fail "$(basename "$f"): no 'Found by kwsim fuzz' comment"; continue; }
	grep -qi -- "$kind" "$tmp/replay" || fail "replay $(basename "$f"): no $kind in its output"
	grep -q 'kwsim replay ' "$f" || fail "$(basename "$f"): no replay command in its comment"
	grep -q 'other variants: ' "$f" || fail "$(basename "$f"): no cross-variant line"
done

# --- the same seed and --runs: the same bytes; another seed: another campaign ----------------
expect 1 "" $V49
grep -v '^      file: ' "$tmp/a.txt" >"$tmp/a.norm"
cmp -s "$tmp/a.norm" "$tmp/out" || fail "the same seed and --runs twice: summaries differ"
expect 1 "" $V49 --json
cp "$tmp/out" "$tmp/a.json"
expect 1 "" $V49 --json
cmp -s "$tmp/out" "$tmp/a.json" || fail "the same --json twice: documents differ"
expect 0 "" fuzz --kernel mainline --seed 2 --runs 3 --schedules 2
expect 0 "" fuzz --kernel mainline --seed 3 --runs 3 --schedules 2
cp "$tmp/out" "$tmp/s3.txt"
expect 0 "" fuzz --kernel mainline --seed 2 --runs 3 --schedules 2
cmp -s "$tmp/out" "$tmp/s3.txt" && fail "seeds 2 and 3 give the same campaign"

# --- mainline, within the contract: only what is explained ------------------------------------
# The one family a contract-respecting program shows on mainline (and every variant): a
# kthread_flush_work() of a delayed work whose timer is armed waits behind it on the delayed list
# (scenarios/races/flush-armed-delayed-work.kws): a deadlock, or a hung task when its timer is far.
"$kwsim" fuzz --kernel mainline --seed 2 --runs 120 --schedules 6 --cross-runs 0 >"$tmp/ml.txt" 2>"$tmp/err"
checks=$((checks + 1))
unexplained=$(sed -n 's/^  [0-9][0-9][0-9] //p' "$tmp/ml.txt" |
	grep -vE '^(deadlock kthread_flush_work:[0-9]+|hung -) (thread|worker)$')
[ -z "$unexplained" ] || fail "mainline within the contract: unexplained findings: $unexplained"
grep -q '^misuse findings: 0$' "$tmp/ml.txt" || fail "mainline: misuse findings without --misuse"

# --- SIGINT: stop after the current run, the summary of what was done ------------------------
checks=$((checks + 1))
KWSIM_FUZZ_SIGINT_AFTER=3 "$kwsim" fuzz --kernel mainline --seed 2 --runs 50 --schedules 2 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 3 ] || [ "$rc" -eq 1 ] || fail "SIGINT: exit $rc, want 3 (or 1 with findings)"
grep -q '^stopped after 3 of 50 programs$' "$tmp/out" || fail "SIGINT: no 'stopped' line: $(tail -3 "$tmp/out")"
grep -q '^programs: 3 ' "$tmp/out" || fail "SIGINT: not the summary of 3 programs"

# --- --corpus: saved, loaded, a bad file refused ---------------------------------------------
expect 0 "" fuzz --kernel mainline --seed 4 --runs 20 --schedules 2 --corpus "$tmp/corpus"
n1=$(ls "$tmp/corpus"/*.kwp 2>/dev/null | wc -l)
[ "$n1" -ge 1 ] || fail "--corpus: nothing saved"
grep -q '^corpus: '"$n1"' programs' "$tmp/out" || fail "--corpus: $n1 files, the summary says: $(grep ^corpus "$tmp/out")"
expect 0 "" fuzz --kernel mainline --seed 5 --runs 2 --schedules 2 --corpus "$tmp/corpus"
grep -qE '^corpus: [1-9]' "$tmp/out" || fail "--corpus: the campaign did not go on from the saved corpus"
# a damaged entry (a full disk's 0 bytes, garbage) is skipped and said, the others load
n2=$(ls "$tmp/corpus"/*.kwp | wc -l)
echo "not a program" >"$tmp/corpus/prog-bad.kwp"
: >"$tmp/corpus/prog-empty.kwp"
expect 0 "^kwsim fuzz: .*/prog-bad.kwp: .*: skipped" fuzz --kernel mainline --runs 1 --schedules 1 \
	--corpus "$tmp/corpus"
grep -qE "^kwsim fuzz: .*/prog-empty.kwp: .*: skipped" "$tmp/err" ||
	fail "--corpus: the 0-byte entry is not reported: $(cat "$tmp/err")"
grep -qE "^corpus: ([0-9]+) programs" "$tmp/out" && n3=$(sed -n 's/^corpus: \([0-9]*\) programs.*/\1/p' "$tmp/out")
[ "${n3:-0}" -ge "$n2" ] || fail "--corpus: $n2 good entries, the resumed campaign has ${n3:-none}"
[ -f "$tmp/corpus/prog-bad.kwp" ] && [ -f "$tmp/corpus/prog-empty.kwp" ] ||
	fail "--corpus: a damaged entry was removed (it is the user's to look at)"
rm -f "$tmp/corpus/prog-bad.kwp" "$tmp/corpus/prog-empty.kwp"
expect 2 "^kwsim fuzz: --save-every wants" fuzz --kernel mainline --save-every x

# --save-every: a campaign killed (SIGKILL) after a save line keeps that save's entries. The
# wait is for the line, which comes after 4 programs whatever the machine's speed; --runs bounds
# the campaign if the kill comes late.
checks=$((checks + 1))
"$kwsim" fuzz --kernel mainline --seed 7 --runs 3000 --schedules 2 --corpus "$tmp/killed" \
	--save-every 4 >"$tmp/out" 2>"$tmp/err" &
pid=$!
while kill -0 "$pid" 2>/dev/null && ! grep -q "^kwsim fuzz: saved .* after 4 programs" "$tmp/err"; do
	sleep 0.05
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
saved=$(sed -n 's/^kwsim fuzz: saved \([0-9]*\) corpus entries .* after 4 programs$/\1/p' "$tmp/err")
[ -n "$saved" ] || fail "--save-every 4: no save line: $(cat "$tmp/err")"
have=$(ls "$tmp/killed"/*.kwp 2>/dev/null | wc -l)
[ "$have" -ge "${saved:-1}" ] || fail "SIGKILL after a save of $saved entries: $have left"
expect 0 "" fuzz --kernel mainline --runs 1 --schedules 1 --corpus "$tmp/killed"
grep -q "skipped" "$tmp/err" && fail "SIGKILL after a save: a damaged entry: $(cat "$tmp/err")"
echo x >"$tmp/plain"
expect 2 "^kwsim fuzz: --corpus .*: not a directory" fuzz --kernel mainline --runs 2 --corpus "$tmp/plain"

# --- --jobs: the children's findings merged, their files renumbered into DIR -----------------
expect 1 "" $V49 --jobs 2 --out "$tmp/jobs"
grep -qE '^implementation findings: [1-9]' "$tmp/out" || fail "--jobs 2: no implementation finding"
[ -z "$(ls -A "$tmp/jobs" | grep '^\.job')" ] || fail "--jobs: the children's directories are left"
njf=$(ls "$tmp/jobs"/*.kws 2>/dev/null | wc -l)
[ "$njf" -eq "$(grep -c '      file: ' "$tmp/out")" ] || fail "--jobs: files and the summary differ"
for f in "$tmp/jobs"/*.kws; do
	b=$(basename "$f")
	grep -q "kwsim replay $b" "$f" || fail "--jobs: $b names another file"
done
# twice, the same bytes: the campaign above without --out, less its file lines
grep -v '^      file: ' "$tmp/out" >"$tmp/j1.norm"
expect 1 "" $V49 --jobs 2
cmp -s "$tmp/out" "$tmp/j1.norm" || fail "--jobs 2 twice: summaries differ"

# --- --json against its schema (tools/schema/kwsim-fuzz.schema.json), strictly ----------------
KWSIM_FUZZ_SIGINT_AFTER=2 "$kwsim" fuzz --kernel mainline --seed 2 --runs 9 --schedules 2 --json \
	>"$tmp/stopped.json" 2>/dev/null
checks=$((checks + 1))
if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	fail "/usr/bin/python3 has no jsonschema: install python3-jsonschema (tools/setup --deps)"
else
	/usr/bin/python3 - "$here/../../tools/schema/kwsim-fuzz.schema.json" "$tmp/a.json" \
		"$tmp/stopped.json" <<'PY' || fail "--json does not follow its schema"
import json, sys
import jsonschema

def strict_pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)

def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"), object_pairs_hook=strict_pairs,
                          parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))

schema = load(sys.argv[1])
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
v = cls(schema)
bad = 0
for path in sys.argv[2:]:
    doc = load(path)
    for e in list(v.iter_errors(doc))[:3]:
        print("FAIL: %s: %s at %s" % (path, e.message, list(e.absolute_path)))
        bad = 1
doc = load(sys.argv[2])
if not doc["findings"]:
    print("FAIL: the v4.9 document has no finding to check")
    bad = 1
lost = dict(doc); del lost["stats"]
extra = dict(doc); extra["bogus"] = 1
for d, what in ((lost, "a document without stats"), (extra, "a document with a field too many")):
    if v.is_valid(d):
        print("FAIL: the schema accepts %s" % what)
        bad = 1
sys.exit(bad)
PY
fi

# --- bad flags: exit 2, a message, no campaign ------------------------------------------------
expect 2 "^kwsim fuzz: needs --kernel" fuzz --runs 3
expect 2 "^kwsim fuzz: --kernel: no variant 'v5'" fuzz --kernel v5
expect 2 "^kwsim fuzz: --runs wants" fuzz --kernel v4.9 --runs 0
expect 2 "^kwsim fuzz: --runs wants" fuzz --kernel v4.9 --runs -3
expect 2 "^kwsim fuzz: --time wants" fuzz --kernel v4.9 --time nan
expect 2 "^kwsim fuzz: --seed wants" fuzz --kernel v4.9 --seed x
expect 2 "^kwsim fuzz: --jobs wants" fuzz --kernel v4.9 --jobs 0
expect 2 "^kwsim fuzz: --schedules wants" fuzz --kernel v4.9 --schedules 1001
expect 2 "^kwsim fuzz: --schedules wants 1 to 1000" fuzz --kernel v4.9 --schedules 0
expect 2 "^kwsim fuzz: --cpus wants" fuzz --kernel v4.9 --cpus 5
expect 2 "^kwsim fuzz: --max-steps wants" fuzz --kernel v4.9 --max-steps 0
expect 2 "^kwsim fuzz: --corpus-max wants" fuzz --kernel v4.9 --corpus-max 0
expect 2 "^kwsim fuzz: option --out needs a value" fuzz --kernel v4.9 --out
expect 2 "^kwsim fuzz: unknown option '--bogus'" fuzz --kernel v4.9 --bogus
expect 2 "^kwsim fuzz: takes no file" fuzz --kernel v4.9 some.kws
expect 2 "^kwsim fuzz: cannot make" fuzz --kernel v4.9 --runs 1 --out "$tmp/plain/sub"
expect 0 "" fuzz --help

echo "cli_fuzz: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
