#!/usr/bin/env python3
"""request_ids.py — the request ids of a trace tell one consistent story.

Reads `tracefold dump --no-time` (or `tracefold unroll --no-time`) of a
trace on stdin or from a file and checks, on every rank, what MPI
guarantees of the requests the program used, whatever its threads did:

  - a call that creates a request (MPI_Isend, MPI_Irecv, MPI_Iallreduce,
    MPI_Imrecv, MPI_Send_init, ...) creates an id never seen before;
  - every other call names only ids created before it, and never one that
    was completed or freed already (MPI_REQUEST_NULL, NULL in the dump, is
    fine);
  - a nonpersistent request is completed (MPI_Wait, MPI_Test with flag 1,
    MPI_Waitall, MPI_Testall with flag 1, the index of MPI_Waitany and of
    MPI_Testany with flag 1, the indices of MPI_Waitsome/Testsome) or freed
    (MPI_Request_free) exactly once;
  - a persistent request is started (MPI_Start, MPI_Startall) only when
    inactive, reported complete by MPI_Waitany/Testany/Waitsome/Testsome
    only when active (the others accept an inactive one and return at once,
    as MPI allows), and freed once.

A recorder that gave two threads' calls one request, or named a request it
never created, fails here even when its folded trace equals its reference
trace (both would carry the same wrong ids). Exit 0 and one summary line,
or 1 and the first problems found.

usage: request_ids.py [DUMP]
"""
import sys

COMPLETE_ONE = {"MPI_Wait", "MPI_Test"}
COMPLETE_ALL = {"MPI_Waitall", "MPI_Testall"}
COMPLETE_ANY = {"MPI_Waitany", "MPI_Testany"}
COMPLETE_SOME = {"MPI_Waitsome", "MPI_Testsome"}
USE_ONE = {"MPI_Start", "MPI_Request_free", "MPI_Cancel", "MPI_Request_get_status"}
USE_ALL = {"MPI_Startall"}


def fields(words):
    f = {}
    for kv in words:
        k, _, v = kv.partition("=")
        f[k] = v
    return f


def array(v):
    v = v.strip("[]")
    return v.split(",") if v else []


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    problems = []
    state = {}  # (rank, id) -> [persistent, active, done]
    created = completed = 0

    def bad(where, what):
        if len(problems) < 20:
            problems.append(f"{where}: {what}")

    for line in src:
        w = line.split()
        if len(w) < 4:
            continue
        rank, fn, f = w[0], w[3], fields(w[4:])
        where = f"rank {rank}, event {w[2]} (thread {w[1]}, {fn})"
        named, done = [], []
        if fn in COMPLETE_ONE or fn in USE_ONE:
            named = [f.get("request", "NULL")]
            if fn == "MPI_Wait" or (fn == "MPI_Test" and f.get("flag") == "1"):
                done = named
        elif fn in COMPLETE_ALL or fn in USE_ALL:
            named = array(f.get("array_of_requests", "[]"))
            if fn == "MPI_Waitall" or (fn == "MPI_Testall" and f.get("flag") == "1"):
                done = named
        elif fn in COMPLETE_ANY:
            named = array(f.get("array_of_requests", "[]"))
            idx = f.get("index", "-")
            if idx.isdigit() and (fn == "MPI_Waitany" or f.get("flag") == "1"):
                done = [named[int(idx)]]
        elif fn in COMPLETE_SOME:
            named = array(f.get("array_of_requests", "[]"))
            done = [named[int(i)] for i in array(f.get("array_of_indices", "[]"))]
        elif "request" in f and f["request"] not in ("NULL", "-"):
            key = (rank, f["request"])
            if key in state:
                bad(where, f"creates request {f['request']}, which exists already")
            state[key] = [fn.endswith("_init"), False, False]
            created += 1
            continue
        else:
            continue
        for r in named:
            if r in ("NULL", "-"):
                continue
            s = state.get((rank, r))
            if s is None:
                bad(where, f"names request {r}, which was never created")
            elif s[2]:
                bad(where, f"names request {r}, which was completed or freed already")
        for r in (x for x in named if x not in ("NULL", "-")):
            s = state.get((rank, r))
            if s is None or s[2]:
                continue
            if fn in ("MPI_Start", "MPI_Startall"):
                if not s[0]:
                    bad(where, f"starts request {r}, which is not persistent")
                elif s[1]:
                    bad(where, f"starts request {r}, which is active")
                s[1] = True
            elif fn == "MPI_Request_free":
                s[2] = True
        for r in done:
            if r in ("NULL", "-"):
                continue
            s = state.get((rank, r))
            if s is None or s[2]:
                continue
            if s[0]:
                if not s[1] and (fn in COMPLETE_ANY or fn in COMPLETE_SOME):
                    bad(where, f"completes persistent request {r}, which is not active")
                completed += s[1]
                s[1] = False
            else:
                completed += 1
                s[2] = True
    for (rank, r), s in sorted(state.items()):
        if not s[2]:
            bad(f"rank {rank}", f"request {r} was never {'freed' if s[0] else 'completed or freed'}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"request ids consistent: {created} requests created, {completed} completions, each named as MPI allows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
