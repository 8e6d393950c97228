#!/usr/bin/python3
"""The events of `kwsim run --json` say what the text's "What ran" says.

Usage: run_json_lines.py TEXT JSON [TEXT JSON]...

Each TEXT is `kwsim run FILE` and JSON `kwsim run FILE --json` of the same run.
Each event is given in parts (event, call, args, result, ...): rendered
back as the text account writes a line, the events must be the lines of
"What ran", one for one, so that no part of a line is lost from the JSON
and no event carries prose in place of its parts. Exits 1 when they differ.
"""
import json
import re
import sys


def at(e):
    return f" (at {e['at']})" if e.get("at") else ""


def call(e):
    return f"{e['call']}({', '.join(e['args'])})"


def result(v):
    return "true" if v is True else "false" if v is False else str(v)


def line(e):
    ev = e["event"]
    if ev == "call":
        return call(e) + ("" if e["result"] is None else " = " + result(e["result"]))
    if ev == "begins":
        return call(e) + " begins"
    if ev == "returns":
        return call(e) + (" returns" if e["result"] is None else " = " + result(e["result"]))
    if ev == "failed":
        return f"{e['call']}(...) failed: {result(e['result'])}{e['note'] or ''}"
    if ev == "assign":
        return f"{e['object']} = {e['call']}(...)"
    if ev == "range":
        return f"{call(e)} of {e['range']}"
    if ev in ("work", "timer"):
        return f"{ev} {e[ev]} runs {e['function']}"
    if ev == "start":
        return f"{e['program']} starts{at(e)}"
    if ev == "end":
        return f"{e['program']} ends"
    if ev == "irq":
        return f"irq {e['program']}{at(e)}"
    if ev == "power":
        return f"{e['program']} at {e['at']}"
    if ev == "at":
        return f"at {e['at']}"
    if ev == "log":
        return f"log: {e['text']}"
    if ev == "timer_fires":
        return f"timer fires: {e['function']}"
    if ev == "freezer":
        return f"freezer: {e['task']} {e['action']}"
    if ev == "suspend":
        step = e["step"]
        if step == "wakes":
            ns = e["slept_ns"]
            return ("suspend: the machine wakes; its clock and jiffies stood still, the boot "
                    f"clock reads {ns // 1000000}.{ns // 1000 % 1000:03d} ms more")
        return "suspend: " + {"freezing_tasks": "freezing tasks", "freezing_ends": "freezing ends",
                              "sleeps": "the machine sleeps", "thawed": "tasks thawed"}[step]
    if ev == "stall":
        ns = e["held_ns"]
        s = (f"stall: cpu{e['cpu']} held up for {ns // 1000}.{ns % 1000:03d} us "
             f"(until {e['until']}) in {e['context']}")
        if e["line"]:
            s += f" at line {e['line']}"
        elif e["note"]:
            s += f" ({e['note']})"
        return s
    raise ValueError(f"unknown event {ev!r}")


def check(text_path, json_path):
    text = open(text_path, encoding="utf-8", errors="replace").read().split("\n")
    doc = json.load(open(json_path, encoding="utf-8"))
    lines, on = [], False
    for t in text:
        if t.startswith("What ran:"):
            on = True
        elif on and (t.startswith("  fn ") or not t):
            on = False
        elif on:
            m = re.match(r"^  (\d+)\.(\d{9})  cpu(\d+)  (\S+)\s+ (.*)$", t)
            if m:
                ns = int(m.group(1)) * 10**9 + int(m.group(2))
                lines.append((ns, int(m.group(3)), m.group(4), m.group(5)))
    got = [(e["time_ns"], e["cpu"], e["who"], line(e)) for e in doc["events"]]
    for i, (a, b) in enumerate(zip(lines, got)):
        if a != b:
            print(f"FAIL: {json_path}: event {i} renders as {b}, the text says {a}")
            return 1
    if len(lines) != len(got):
        print(f"FAIL: {json_path}: {len(got)} events, {len(lines)} lines of What ran")
        return 1
    return 0


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = sum(check(args[i], args[i + 1]) for i in range(0, len(args), 2))
    print(f"run_json_lines: {len(args) // 2} runs, {bad} whose events differ from the text")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
