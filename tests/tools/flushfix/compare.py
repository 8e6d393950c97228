#!/usr/bin/env python3
"""Compare two kernels' results in one `kwsim explore --json` document.

Usage: compare.py EXPLORE.json KERNEL_A KERNEL_B

Prints nothing and exits 0 when the two kernels' results are the same once
what legitimately differs is taken out: the kernel's name (in tokens too)
and kernel/kthread.c line numbers (a patch moves them). Otherwise prints the
first fields that differ and exits 1.
"""
import json
import re
import sys


def normalise(value, name):
    if isinstance(value, dict):
        return {k: normalise(v, name) for k, v in value.items() if k != "kernel"}
    if isinstance(value, list):
        return [normalise(v, name) for v in value]
    if isinstance(value, str):
        value = value.replace(":" + name + ":", ":KERNEL:")
        value = re.sub(r"kthread\.c:[0-9]+", "kthread.c:-", value)
        # a finding's key names the function and its line: "deadlock kthread_flush_work:1186 P0"
        value = re.sub(r"([A-Za-z_][A-Za-z0-9_]*):[0-9]+\b", r"\1:-", value)
        return value
    return value


def flatten(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from flatten(v, f"{path}[{i}]")
    else:
        yield path, value


def main():
    doc = json.load(open(sys.argv[1]))
    a, b = sys.argv[2], sys.argv[3]
    by = {k["kernel"]: k for k in doc["kernels"]}
    if a not in by or b not in by:
        print(f"{sys.argv[1]}: kernels {sorted(by)}, not {a} and {b}")
        return 1
    fa = dict(flatten(normalise(by[a], a)))
    fb = dict(flatten(normalise(by[b], b)))
    diff = [p for p in sorted(set(fa) | set(fb)) if fa.get(p) != fb.get(p)]
    for p in diff[:10]:
        print(f"  {p}: {a} {fa.get(p)!r}, {b} {fb.get(p)!r}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
