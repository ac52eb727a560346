#!/usr/bin/env python3
"""otf2_check.py — check an OTF2 archive written by `tracefold export otf2`
against the trace it came from, from the text otf2-print writes.

usage: otf2_check.py DEFS EVENTS UNROLL COUNTS_PREFIX NRANKS

  DEFS           `otf2-print -G ARCHIVE/traces.otf2` (global definitions)
  EVENTS         `otf2-print ARCHIVE/traces.otf2` (every event)
  UNROLL         `tracefold unroll --no-time TRACE` (every event of every rank)
  COUNTS_PREFIX  COUNTS_PREFIX.<r>: `tracefold counts --rank r TRACE` ("MPI_Name count" lines)

Checks, per rank (summing its threads' locations):
  1. Enter and Leave per region = the trace's calls per function (counts);
     every Enter has its Leave, properly nested, timestamps never decrease;
  2. MPI_SEND + MPI_ISEND = the rank's point-to-point sends in the trace,
     MPI_RECV + MPI_IRECV = its receives, MPI_IRECV_REQUEST = its posted
     receives, MPI_COLLECTIVE_BEGIN = END = its blocking collectives,
     NON_BLOCKING_COLLECTIVE_REQUEST = COMPLETE = its nonblocking ones
     (counted from UNROLL: calls to or from MPI_PROC_NULL move nothing);
  3. every send matches a receive: the multisets of (sender, receiver,
     communicator, tag, length) of sends and of receives are equal, with
     ranks in communicators mapped to world ranks through the archive's
     own group definitions.
Prints one summary line; exits 1 with the differences otherwise.
"""
import collections
import re
import sys

COLL = {"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall",
        "Alltoallv", "Alltoallw", "Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan"}
SENDS = {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend", "MPI_Ibsend", "MPI_Issend", "MPI_Irsend"}
PSENDS = {"MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init"}

problems = []


def fail(msg):
    problems.append(msg)


def parse_defs(path):
    loc_rank, groups, comms = {}, {}, {}
    for line in open(path):
        m = re.match(r'LOCATION\s+(\d+)\s.*Group: "[^"]*" <(\d+)>', line)
        if m:
            loc_rank[int(m.group(1))] = int(m.group(2))
        m = re.match(r'GROUP\s+(\d+)\s.*Type: COMM_GROUP.*Members?: (.*)$', line)
        if m:
            groups[int(m.group(1))] = [int(x) for x in re.findall(r'(\d+) \("', m.group(2))]
        m = re.match(r'COMM\s+(\d+)\s.*Group: "[^"]*" <(\d+)>', line)
        if m:
            comms[int(m.group(1))] = int(m.group(2))
    return loc_rank, {c: groups.get(g, []) for c, g in comms.items()}


def parse_events(path, loc_rank, comm_members):
    enter = collections.Counter()  # (rank, region)
    leave = collections.Counter()
    kinds = collections.Counter()  # (rank, kind)
    sends, recvs = collections.Counter(), collections.Counter()
    last = {}
    stacks = collections.defaultdict(list)
    for line in open(path):
        f = line.split(None, 3)
        if len(f) < 3 or not f[1].isdigit() or not f[2].isdigit():
            continue
        kind, loc, ts = f[0], int(f[1]), int(f[2])
        rest = f[3] if len(f) > 3 else ""
        if loc not in loc_rank:
            fail(f"event at undefined location {loc}")
            continue
        rank = loc_rank[loc]
        if ts < last.get(loc, 0):
            fail(f"location {loc}: timestamp {ts} before {last[loc]}")
        last[loc] = ts
        kinds[(rank, kind)] += 1
        if kind in ("ENTER", "LEAVE"):
            region = re.search(r'Region: "([^"]*)"', rest).group(1)
            if kind == "ENTER":
                enter[(rank, region)] += 1
                stacks[loc].append(region)
            else:
                leave[(rank, region)] += 1
                if not stacks[loc] or stacks[loc].pop() != region:
                    fail(f"location {loc}: Leave {region} does not close the open region")
        if kind in ("MPI_SEND", "MPI_ISEND", "MPI_RECV", "MPI_IRECV"):
            peer = int(re.search(r'(?:Receiver|Sender): (\d+)', rest).group(1))
            comm = int(re.search(r'Communicator: "[^"]*" <(\d+)>', rest).group(1))
            tag = int(re.search(r'Tag: (\d+)', rest).group(1))
            length = int(re.search(r'Length: (\d+)', rest).group(1))
            members = comm_members.get(comm, [])
            if peer >= len(members):
                fail(f"location {loc}: {kind} peer {peer} outside communicator {comm} ({len(members)} members)")
                continue
            world = members[peer]
            if kind in ("MPI_SEND", "MPI_ISEND"):
                sends[(rank, world, comm, tag, length)] += 1
            else:
                recvs[(world, rank, comm, tag, length)] += 1
    for loc, st in stacks.items():
        if st:
            fail(f"location {loc}: regions never left: {st}")
    return enter, leave, kinds, sends, recvs


def value(fields, name):
    return fields.get(name)


def expected_from_unroll(path):
    """per (rank, kind): what the trace says the archive must hold"""
    exp = collections.Counter()
    psend = collections.defaultdict(dict)  # rank -> persistent request id -> is a send (real)
    for line in open(path):
        f = line.split()
        if len(f) < 4 or not f[0].isdigit():
            continue
        rank, fn = int(f[0]), f[3]
        fields = dict(x.split("=", 1) for x in f[4:] if "=" in x)
        dest, src = fields.get("dest"), fields.get("source")
        if fn in SENDS and dest != "PROC_NULL":
            exp[(rank, "send")] += 1
        elif fn in ("MPI_Sendrecv", "MPI_Sendrecv_replace"):
            if dest != "PROC_NULL":
                exp[(rank, "send")] += 1
            if src != "PROC_NULL" and fields.get("status.src") != "PROC_NULL":
                exp[(rank, "recv")] += 1
        elif fn == "MPI_Recv" and src != "PROC_NULL" and fields.get("status.src") != "PROC_NULL":
            exp[(rank, "recv")] += 1
        elif fn == "MPI_Irecv" and src != "PROC_NULL":
            exp[(rank, "recv")] += 1
            exp[(rank, "post")] += 1
        elif fn in ("MPI_Mrecv", "MPI_Imrecv"):
            exp[(rank, "recv")] += 1
            if fn == "MPI_Imrecv":
                exp[(rank, "post")] += 1
        elif fn in PSENDS or fn == "MPI_Recv_init":
            peer = dest if fn in PSENDS else src
            psend[rank][fields.get("request")] = (fn in PSENDS, peer != "PROC_NULL")
        elif fn in ("MPI_Start", "MPI_Startall"):
            ids = fields.get("request") or fields.get("array_of_requests", "[]")
            for rid in ids.strip("[]").split(","):
                send, real = psend[rank].get(rid, (None, False))
                if real:
                    exp[(rank, "send" if send else "recv")] += 1
                    if not send:
                        exp[(rank, "post")] += 1
        elif fn.startswith("MPI_"):
            name = fn[4:]
            if name in COLL:
                exp[(rank, "coll")] += 1
            elif name[:1] == "I" and name[1:].capitalize() in {c.capitalize() for c in COLL}:
                exp[(rank, "nbcoll")] += 1
    return exp


def main():
    defs, events, unroll, counts_prefix, nranks = sys.argv[1:6]
    nranks = int(nranks)
    loc_rank, comm_members = parse_defs(defs)
    if sorted(set(loc_rank.values())) != list(range(nranks)):
        fail(f"locations belong to ranks {sorted(set(loc_rank.values()))}, not 0..{nranks - 1}")
    enter, leave, kinds, sends, recvs = parse_events(events, loc_rank, comm_members)
    exp = expected_from_unroll(unroll)
    total_calls = 0
    for r in range(nranks):
        want = {}
        for line in open(f"{counts_prefix}.{r}"):
            name, n = line.split()
            want[name] = int(n)
        got = {reg: n for (rank, reg), n in enter.items() if rank == r}
        if got != want:
            diff = sorted(set(got.items()) ^ set(want.items()))
            fail(f"rank {r}: Enter per region differs from the trace's calls per function: {diff}")
        gotl = {reg: n for (rank, reg), n in leave.items() if rank == r}
        if gotl != want:
            fail(f"rank {r}: Leave per region differs from the trace's calls per function")
        total_calls += sum(want.values())
        k = lambda *names: sum(kinds[(r, n)] for n in names)
        checks = [("sends (MPI_SEND + MPI_ISEND)", k("MPI_SEND", "MPI_ISEND"), exp[(r, "send")]),
                  ("receives (MPI_RECV + MPI_IRECV)", k("MPI_RECV", "MPI_IRECV"), exp[(r, "recv")]),
                  ("posted receives (MPI_IRECV_REQUEST)", k("MPI_IRECV_REQUEST"), exp[(r, "post")]),
                  ("MPI_COLLECTIVE_BEGIN", k("MPI_COLLECTIVE_BEGIN"), exp[(r, "coll")]),
                  ("MPI_COLLECTIVE_END", k("MPI_COLLECTIVE_END"), exp[(r, "coll")]),
                  ("NON_BLOCKING_COLLECTIVE_REQUEST", k("NON_BLOCKING_COLLECTIVE_REQUEST"), exp[(r, "nbcoll")]),
                  ("NON_BLOCKING_COLLECTIVE_COMPLETE", k("NON_BLOCKING_COLLECTIVE_COMPLETE"), exp[(r, "nbcoll")])]
        for what, got_n, want_n in checks:
            if got_n != want_n:
                fail(f"rank {r}: {got_n} {what} in the archive, {want_n} in the trace")
    if sends != recvs:
        only_s = sends - recvs
        only_r = recvs - sends
        fail(f"sends without a matching receive (sender, receiver, comm, tag, bytes): {sorted(only_s.items())[:8]}; "
             f"receives without a matching send: {sorted(only_r.items())[:8]}")
    if problems:
        for p in problems[:30]:
            print("otf2_check: " + p, file=sys.stderr)
        sys.exit(1)
    nmsg = sum(sends.values())
    ncoll = sum(n for (r, kind), n in kinds.items() if kind in ("MPI_COLLECTIVE_END", "NON_BLOCKING_COLLECTIVE_COMPLETE"))
    print(f"{total_calls} calls = Enter/Leave pairs on {len(set(loc_rank))} locations, {nmsg} messages "
          f"(every send matches a receive), {ncoll} collective events")


if __name__ == "__main__":
    main()
