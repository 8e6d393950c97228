#!/usr/bin/python3
"""Check a `kwsim run --trace json` file by the rules its consumers apply.

Usage: check_trace_json.py FILE

No Perfetto trace_processor can be installed from the registries this
project uses (Debian, npm), so this applies the documented rules of
Chrome's Trace Event Format and of Perfetto's JSON importer strictly:

- one strict UTF-8 JSON object (no duplicate keys, no NaN) with traceEvents
  and otherData;
- every event has name, ph, ts, pid and tid; ph is one kwsim writes (M, X,
  i, s, f); X has dur >= 0, i has s (g, p or t);
- events after the metadata come in time order (the importers bind a flow
  to the slice open when they read it);
- on each track (pid, tid) X slices nest: a slice that starts inside another
  ends inside it;
- v1 flows: each "s" and each "f" id once (a queueing has its own id), each
  "f" has "bp":"e" and comes after an "s" with the same cat, name and id,
  not earlier in time; an "s" binds to the innermost slice open on its track
  at its ts, an "f" with "bp":"e" to the innermost slice enclosing it. kwsim's
  rule on top: the "s" binds to the queueing's marker and the "f" to the
  execution of that queueing (args.queueing == the id), both of the flow's
  category (kthread_work for the kernel's tracepoints, kwsim for kwsim's own
  records where the kernel has none, as 4.9);
- a flow starts where its queueing's marker ("queue_work: ...", the
  queueing call's section under the worker's lock) starts, and comes right
  after it: the "s" binds to it by containment when the section took time,
  and by the marker being the slice read last when it took none (counted in
  the summary as zero_marks).

Prints one JSON object: events, slices, flows started and ended, the ids of
flows that never end (queueings no execution consumed), the categories of
the work slices and flows (work_cats), otherData's cut and filter. Exits 1
on the first broken rule.
"""
import decimal
import json
import sys


def strict_pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)


def fail(msg):
    print(f"FAIL: {sys.argv[1]}: {msg}")
    sys.exit(1)


class Track:
    """The slices open on one track, innermost last."""

    def __init__(self):
        self.stack = []

    def at(self, ts, end):
        """Pop what ended before [ts, end]; return the innermost still open."""
        while self.stack:
            top = self.stack[-1]
            top_end = top["ts"] + top["dur"]
            if top_end < ts or (top_end == ts and end > ts):
                self.stack.pop()
            else:
                break
        return self.stack[-1] if self.stack else None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    try:
        # times in exact microseconds: kwsim writes ns as us with 3 decimals
        doc = json.loads(raw.decode("utf-8"), object_pairs_hook=strict_pairs,
                         parse_float=decimal.Decimal,
                         parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except (UnicodeDecodeError, ValueError) as e:
        fail(f"not strict UTF-8 JSON: {e}")
    if set(doc) != {"traceEvents", "otherData"}:
        fail(f"top-level keys {sorted(doc)}")
    tracks = {}
    starts, ends = {}, {}
    last_ts = None
    nslices = nevents = 0
    marks = []
    work_cats = set()
    for i, e in enumerate(doc["traceEvents"]):
        for k in ("name", "ph", "ts", "pid", "tid"):
            if k not in e:
                fail(f"event {i} has no {k}: {e}")
        ph = e["ph"]
        if ph not in ("M", "X", "i", "s", "f"):
            fail(f"event {i}: ph {ph!r}")
        if ph == "M":
            if last_ts is not None:
                fail(f"event {i}: metadata after events")
            continue
        nevents += 1
        ts = e["ts"]
        if not isinstance(ts, (int, decimal.Decimal)) or ts < 0:
            fail(f"event {i}: ts {ts!r}")
        if last_ts is not None and ts < last_ts:
            fail(f"event {i}: ts {ts} before the previous event's {last_ts}")
        last_ts = ts
        track = tracks.setdefault((e["pid"], e["tid"]), Track())
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, decimal.Decimal)) or dur < 0:
                fail(f"event {i}: X with dur {dur!r}")
            parent = track.at(ts, ts + dur)
            if parent is not None and ts + dur > parent["ts"] + parent["dur"]:
                fail(f"event {i}: slice {e['name']!r} [{ts}, {ts + dur}] overlaps "
                     f"{parent['name']!r} [{parent['ts']}, {parent['ts'] + parent['dur']}] "
                     "on its track without nesting")
            track.stack.append(e)
            nslices += 1
            if e["name"].startswith("queue_work: "):
                marks.append((i, e))
            if "queueing" in e.get("args", {}):
                work_cats.add(e.get("cat"))
        elif ph == "i":
            if e.get("s") not in ("g", "p", "t"):
                fail(f"event {i}: instant scope {e.get('s')!r}")
        else:
            key = (e.get("cat"), e["name"], e.get("id"))
            if e.get("id") is None:
                fail(f"event {i}: flow without id")
            bound = track.at(ts, ts)
            if bound is None or not (bound["ts"] <= ts <= bound["ts"] + bound["dur"]):
                fail(f"event {i}: flow {ph} id {e['id']} at {ts} has no slice to bind to")
            want = int(e["id"], 16)
            got = bound.get("args", {}).get("queueing")
            work_cats.add(e.get("cat"))
            if bound.get("cat") != e.get("cat"):
                fail(f"event {i}: flow {ph} id {e['id']} of category {e.get('cat')!r} binds to "
                     f"{bound['name']!r} of category {bound.get('cat')!r}")
            if ph == "s":
                if key in starts:
                    fail(f"event {i}: a second flow start with id {e['id']}")
                if not bound["name"].startswith("queue_work: ") or got != want:
                    fail(f"event {i}: flow start {e['id']} binds to {bound['name']!r} "
                         f"(queueing {got})")
                if bound["ts"] != ts:
                    fail(f"event {i}: flow start {e['id']} at {ts}, not where its marker "
                         f"starts ({bound['ts']})")
                starts[key] = e
            else:
                if e.get("bp") != "e":
                    fail(f"event {i}: flow end without bp e")
                if key in ends:
                    fail(f"event {i}: a second flow end with id {e['id']}")
                if key not in starts:
                    fail(f"event {i}: flow end {e['id']} with no start before it")
                if starts[key]["ts"] > ts:
                    fail(f"event {i}: flow end {e['id']} before its start")
                if bound["name"].startswith("queue_work: ") or got != want:
                    fail(f"event {i}: flow end {e['id']} binds to {bound['name']!r} "
                         f"(queueing {got}), not the execution of queueing {want}")
                ends[key] = e
    other = doc["otherData"]
    print(json.dumps({
        "events": nevents,
        "slices": nslices,
        "flows_started": len(starts),
        "flows_ended": len(ends),
        "unended": sorted(int(k[2], 16) for k in starts if k not in ends),
        "work_cats": sorted(work_cats),
        "zero_marks": sum(1 for _, m in marks if m["dur"] <= 0),
        "cut": other.get("cut"),
        "filter": other.get("filter"),
    }, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
