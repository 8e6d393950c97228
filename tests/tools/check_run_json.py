#!/usr/bin/python3
"""Validate `kwsim run --json` documents against tools/schema/kwsim-run.schema.json.

Usage: check_run_json.py SCHEMA FILE...

Each FILE must be one JSON document (UTF-8, strict: no NaN, no duplicate
keys) that the schema accepts, with its events in (time, CPU) order. The
schema itself is checked first, and must refuse a document that lacks a
field or has one too many, so that a field the output loses fails here.
"""
import json
import sys

import jsonschema


def strict_pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")  # invalid UTF-8 fails here
    return json.loads(text, object_pairs_hook=strict_pairs,
                      parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = load(sys.argv[1])
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    failed = 0
    docs = 0
    for path in sys.argv[2:]:
        try:
            doc = load(path)
        except (UnicodeDecodeError, ValueError) as e:
            print(f"FAIL: {path}: not strict UTF-8 JSON: {e}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:3]:
            print(f"FAIL: {path}: {'/'.join(map(str, e.path))}: {e.message}")
        failed += bool(errors)
        keys = [(e["time_ns"], e["cpu"]) for e in doc.get("events", [])]
        if keys != sorted(keys):
            print(f"FAIL: {path}: events are not in (time, cpu) order")
            failed += 1
        docs += 1
        if docs == 1 and not errors:
            # the schema is strict: a missing or an extra field is refused
            for key in list(doc):
                if key in ("divergence", "condition"):
                    continue
                less = {k: v for k, v in doc.items() if k != key}
                if validator.is_valid(less):
                    print(f"FAIL: the schema accepts a run without '{key}'")
                    failed += 1
            if validator.is_valid(dict(doc, unknown_field=1)):
                print("FAIL: the schema accepts an unknown field")
                failed += 1
            if doc["events"] and validator.is_valid(
                    dict(doc, events=[{k: v for k, v in doc["events"][0].items()
                                       if k != "source"}])):
                print("FAIL: the schema accepts an event without 'source'")
                failed += 1
    print(f"{docs} documents checked, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
