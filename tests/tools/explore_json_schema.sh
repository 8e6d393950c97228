#!/usr/bin/env bash
# kwsim explore --json and kwsim merge --json against their documented
# schema (tools/schema/kwsim-explore.schema.json), validated by a real JSON
# Schema validator (python3-jsonschema): every race of the library on every
# variant built in, a clean campaign, a stopped one, merged shards. The
# schema is strict: a field the output loses or adds fails here.
# Usage: explore_json_schema.sh KWSIM SOURCE_DIR
set -uo pipefail
kwsim=${1:?usage: explore_json_schema.sh KWSIM SOURCE_DIR}
src=${2:?usage: explore_json_schema.sh KWSIM SOURCE_DIR}
schema=$src/tools/schema/kwsim-explore.schema.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	echo "FAIL: /usr/bin/python3 has no jsonschema: install python3-jsonschema (tools/setup --deps)"
	exit 1
fi

n=0
# run FILE ARGS...: explore --json into the next file; exit 0, 1 or 3
run() {
	n=$((n + 1))
	"$kwsim" "$@" --json >"$tmp/$n.json" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 3 ]; then
		echo "FAIL: kwsim $* --json exited $rc: $(head -3 "$tmp/err")"
		failed=1
	fi
}

for f in "$src"/scenarios/races/*.kws; do
	run explore "$f" --strategy random --runs 40 --kernel all
done
run explore "$src/scenarios/teaching/03-one-work-one-worker.kws" --strategy random --runs 20
KWSIM_EXPLORE_SIGINT_AFTER=7 run explore "$src/scenarios/races/destroy-with-queued-works.kws" \
	--strategy random --runs 50
f=$src/scenarios/races/timer-callback-vs-cancel-delayed-work-sync-v4.9.kws
"$kwsim" explore "$f" --strategy random --runs 30 --shard 0/2 --out "$tmp/s0" >/dev/null
"$kwsim" explore "$f" --strategy random --runs 30 --shard 1/2 --out "$tmp/s1" >/dev/null
run merge "$tmp/s0" "$tmp/s1"
run explore "$f" --strategy random --runs 30 --shard 1/2
# every strategy --strategy takes (explore --help's usage lists the registry's), a small campaign each
strategies=$("$kwsim" explore --help | tr -d '\n ' | sed -n 's/.*--strategy\([a-z|]*\)\].*/\1/p' | tr '|' ' ')
[ "$(echo $strategies | wc -w)" -ge 9 ] || { echo "FAIL: explore --help lists strategies '$strategies'"; failed=1; }
for s in $strategies; do
	run explore "$src/scenarios/races/queue-vs-flush-running.kws" --strategy "$s" --runs 10
done

/usr/bin/python3 - "$schema" "$tmp"/*.json <<'PY' || failed=1
import json, sys
import jsonschema

def strict_pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)

def load(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    return json.loads(text, object_pairs_hook=strict_pairs,
                      parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))

schema = load(sys.argv[1])
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
v = cls(schema)
bad = 0
for path in sys.argv[2:]:
    doc = load(path)
    errors = list(v.iter_errors(doc))
    for e in errors[:3]:
        print("FAIL: %s: %s at %s" % (path, e.message, list(e.absolute_path)))
    bad |= bool(errors)
# the schema must be able to fail: a lost field and an extra one are refused
doc = load(sys.argv[2])
lost = dict(doc); del lost["kernels"]
extra = dict(doc); extra["bogus"] = 1
for d, what in ((lost, "a document without kernels"), (extra, "a document with a field too many")):
    if v.is_valid(d):
        print("FAIL: the schema accepts %s" % what)
        bad = 1
sys.exit(bad)
PY
echo "explore_json_schema: $n documents"
exit $failed
