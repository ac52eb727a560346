#!/usr/bin/env python3
"""chrome_check.py — check a file written by `tracefold export chrome`
against the Trace Event Format's documented fields and the trace.

usage: chrome_check.py FILE.json UNROLL COUNTS_PREFIX NRANKS [--ranks LIST] [--from NS] [--to NS]

  UNROLL         `tracefold unroll --no-time TRACE`
  COUNTS_PREFIX  COUNTS_PREFIX.<r>: `tracefold counts --rank r TRACE`
  --ranks, --from, --to: the window the file was cut to (ranks written;
                 every slice must overlap [from, to], in ns)

The format (Trace Event Format, the document chrome://tracing and Perfetto
follow): a JSON object whose "traceEvents" is a list of events; each has
"ph" (the phase) and "pid"; "X" (complete) events have "name", "cat",
"ts" and "dur" (microseconds, numbers >= 0), "tid", optional "args" (an
object); "M" (metadata) events are process_name / thread_name with
args.name, or process_sort_index / thread_sort_index with
args.sort_index; flow events "s" (start) and "f" (finish, "bp": "e" binds
it to the enclosing slice) have "id", "name", "cat", "ts", "tid".
Checked besides: every flow id has one start and one finish, each inside
an MPI slice of its thread; MPI slices per rank and function = the
trace's calls (without a window); arrows = the trace's messages between
written ranks (without a time window).
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otf2_check import expected_from_unroll  # noqa: E402

problems = []


def fail(msg):
    problems.append(msg)


def num(e, k):
    return isinstance(e.get(k), (int, float)) and not isinstance(e.get(k), bool) and e[k] >= 0


def main():
    args = sys.argv[1:]
    path, unroll, counts_prefix, nranks = args[:4]
    nranks = int(nranks)
    opts = dict(zip(args[4::2], args[5::2]))
    ranks = list(range(nranks))
    if "--ranks" in opts:
        ranks = [int(r) for r in opts["--ranks"].split(",")]
    t_from = float(opts.get("--from", 0)) / 1000
    t_to = float(opts.get("--to", "inf")) / 1000
    windowed = "--from" in opts or "--to" in opts
    doc = json.load(open(path))
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("chrome_check: not an object with a traceEvents list", file=sys.stderr)
        sys.exit(1)
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        fail(f"displayTimeUnit {doc.get('displayTimeUnit')!r} is neither ms nor ns")
    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, end)] of MPI slices
    calls = collections.Counter()  # (pid, name)
    flows = collections.defaultdict(list)
    names = {}
    ncompute = 0
    for e in doc["traceEvents"]:
        ph = e.get("ph")
        if not isinstance(e.get("pid"), int):
            fail(f"event without an integer pid: {e}")
            continue
        if ph == "X":
            if not (isinstance(e.get("name"), str) and isinstance(e.get("cat"), str) and num(e, "ts") and num(e, "dur")
                    and isinstance(e.get("tid"), int)):
                fail(f"X event without name, cat, ts, dur or tid: {e}")
                continue
            if "args" in e and not isinstance(e["args"], dict):
                fail(f"X event whose args is not an object: {e}")
            if e["pid"] not in ranks:
                fail(f"X event of rank {e['pid']}, not written: {e}")
            if windowed and (e["ts"] + e["dur"] < t_from - 1e-3 or e["ts"] > t_to + 1e-3):
                fail(f"slice outside the window [{t_from}, {t_to}] us: {e}")
            if e["cat"] == "mpi":
                calls[(e["pid"], e["name"])] += 1
                slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
            elif e["cat"] == "compute":
                ncompute += 1
            else:
                fail(f"X event of category {e['cat']!r}")
        elif ph == "M":
            a = e.get("args")
            if e.get("name") in ("process_name", "thread_name"):
                ok = isinstance(a, dict) and isinstance(a.get("name"), str)
            elif e.get("name") in ("process_sort_index", "thread_sort_index"):
                ok = isinstance(a, dict) and isinstance(a.get("sort_index"), int)
            else:
                ok = False
            if not ok or (e["name"].startswith("thread") and not isinstance(e.get("tid"), int)):
                fail(f"bad metadata event: {e}")
            if e.get("name") == "process_name":
                names[e["pid"]] = a["name"]
        elif ph in ("s", "f"):
            if not (isinstance(e.get("id"), int) and isinstance(e.get("name"), str) and isinstance(e.get("cat"), str)
                    and num(e, "ts") and isinstance(e.get("tid"), int)):
                fail(f"flow event without id, name, cat, ts or tid: {e}")
                continue
            if ph == "f" and e.get("bp") != "e":
                fail(f"flow finish without bp=e: {e}")
            flows[e["id"]].append(e)
        else:
            fail(f"unexpected phase {ph!r}: {e}")
    if sorted(names) != sorted(ranks):
        fail(f"process names for ranks {sorted(names)}, not {sorted(ranks)}")
    for v in slices.values():
        v.sort()
    import bisect

    def inside(e):
        v = slices.get((e["pid"], e["tid"]), [])
        i = bisect.bisect_right(v, (e["ts"], float("inf"))) - 1
        return i >= 0 and v[i][0] <= e["ts"] <= v[i][1] + 1e-3

    for fid, es in flows.items():
        phases = sorted(x["ph"] for x in es)
        if phases != ["f", "s"]:
            fail(f"flow {fid}: phases {phases}, not one s and one f")
        for x in es:
            if not inside(x):
                fail(f"flow {fid}: {x['ph']} at {x['ts']} us is in no MPI slice of rank {x['pid']} thread {x['tid']}")
    if not windowed:
        for r in ranks:
            want = dict(line.split() for line in open(f"{counts_prefix}.{r}"))
            got = {name: str(n) for (pid, name), n in calls.items() if pid == r}
            if got != want:
                fail(f"rank {r}: MPI slices per function {sorted(set(got.items()) ^ set(want.items()))} differ "
                     f"from the trace's calls")
        if len(ranks) == nranks:
            exp = expected_from_unroll(unroll)
            nsend = sum(exp[(r, "send")] for r in ranks)
            if len(flows) != nsend:
                fail(f"{len(flows)} message arrows, {nsend} messages in the trace")
    if problems:
        for p in problems[:30]:
            print("chrome_check: " + p, file=sys.stderr)
        sys.exit(1)
    print(f"valid JSON, {len(doc['traceEvents'])} events: {sum(calls.values())} MPI slices"
          f"{' = the trace' + chr(39) + 's calls' if not windowed else ''}, {ncompute} compute slices, "
          f"{len(flows)} arrows, ranks {','.join(map(str, ranks))}")


if __name__ == "__main__":
    main()
