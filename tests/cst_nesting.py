#!/usr/bin/env python3
"""cst_nesting.py — does the loop structure of a CST-guided trace have exactly
the source's loops? (cst.sh --part nesting; doc/CST.md "CST-guided folding").

  cst_nesting.py SRCDIR PROG.cst SITES SHOW...

PROG.cst: the program's CST file (tracefold cst / TRACEFOLD_CC_CST), its
file names relative to SRCDIR. SITES:
"SIGNATURE FILE:LINE" per call site (tracefold stats, resolved). SHOW: the
output of `tracefold show --rank R --no-time --sites` of one rank each.

The CST is expanded from main, and from every function that main does not
reach (thread bodies), through call and indirect nodes (a function already
on the path is not expanded again: recursion). Each MPI call site (and each
call site of a function: its tail call of MPI returns there) gets the set of
its loop chains, the CST loops around it from the outermost on. A loop
made by a macro (its text does not start with for/while/do: the CST puts
it at the macro's use) has no markers, as tracefold-cc decides it, and is
left out of the chains. A function that main does not reach (a thread's
body, a callback such as a user-defined reduction op run inside an MPI
call) may run inside any loops: its chains are any loops, then its own.

"Matches" means, for every call in the trace (every rank given):
  1. its depth (the trace loops around it) is the length of a loop chain of
     its call site: no loop of the trace without a loop of the source around
     the call, and no source loop around it missing;
  2. every trace loop is one source loop: the loops at its level in the
     chains of all the calls inside it (of the right length) have a loop in
     common. A rotated loop (its body starting inside a source iteration) or
     a loop made of several source loops, or of a loop and what follows it,
     fails 1 or 2.
A source loop that made no call, or none in some iterations, is simply
absent there (the guide drops empty iterations); a loop whose iterations
alternate shapes (a branch) holds several iterations per trace iteration,
which is still that one loop. Prints the first problems, exit 1 if any.
"""
import os
import re
import sys


def read_cst(path):
    funcs = {}  # name -> root node
    stack = []
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines[1:]:
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 2
        kind, nid, name, loc = line.split()
        node = {"kind": kind, "id": int(nid), "name": name, "loc": loc, "kids": []}
        del stack[depth:]
        if depth == 0:
            funcs.setdefault(name, node)
        else:
            stack[-1]["kids"].append(node)
        stack.append(node)
    return funcs


def file_line(loc):
    if loc == "-":
        return None
    file, line, _col = loc.rsplit(":", 2)
    return f"{file.split('/')[-1]}:{line}"


def marked(loop, srcdir):
    """tracefold-cc's rule: the loop's text starts with its keyword at its location."""
    file, line, col = loop["loc"].rsplit(":", 2)
    try:
        with open(os.path.join(srcdir, file)) as f:
            text = f.read().splitlines()[int(line) - 1]
    except (OSError, IndexError):
        return False
    return re.match(loop["name"] + r"\b", text[int(col) - 1:]) is not None


def chains_of(funcs, srcdir):
    chains = {}  # file:line -> set of tuples of loop ids; ANY first: any loops before the rest
    reached = set()

    def walk(node, loops, path):
        for k in node["kids"]:
            where = file_line(k["loc"])
            if k["kind"] in ("mpi", "call") and where:
                chains.setdefault(where, set()).add(loops)
            if k["kind"] == "loop":
                walk(k, loops + (k["id"],) if marked(k, srcdir) else loops, path)
            elif k["kind"] == "call":
                callee = funcs.get(k["name"])
                if callee is not None and k["name"] not in path:
                    reached.add(k["name"])
                    walk(callee, loops, path | {k["name"]})
            else:
                walk(k, loops, path)

    roots = ["main"] if "main" in funcs else []
    if roots:
        walk(funcs["main"], (), {"main"})
    for name, node in funcs.items():  # not reached from main: a thread's body, a callback
        if name != "main" and name not in reached:
            walk(node, (ANY,), {name})
    return chains


ANY = -1


def fitting(chain, depth):
    """chain as the loop ids at each of `depth` levels (ANY: any loop there), or None."""
    if chain[:1] == (ANY,):
        own = chain[1:]
        return (ANY,) * (depth - len(own)) + own if len(own) <= depth else None
    return chain if len(chain) == depth else None


def check(show_path, chains, sites, problems):
    loops = []  # open trace loops: [line number, candidate source loops or None]
    for no, line in enumerate(open(show_path), 1):
        text = line.strip()
        if text.startswith("loop x"):
            loops.append([no, None])
            continue
        if text == "}":
            loops.pop()
            continue
        m = re.match(r"(MPI_\w+|PMPI_\w+) cs=([0-9a-f]+)", text)
        if not m:
            continue
        where = sites.get(m.group(2))
        depth = len(loops)
        fits = [f for f in (fitting(c, depth) for c in chains.get(where, ())) if f is not None]
        if not fits:
            have = sorted(len(c) - (c[:1] == (ANY,)) for c in chains.get(where, ()))
            problems.append(f"{show_path}:{no}: {m.group(1)} at {where} is inside {depth} loop(s); "
                            f"the source has {have or 'no CST node there'}")
            continue
        for level, open_loop in enumerate(loops):
            ids = {c[level] for c in fits}
            if ANY in ids:
                continue
            open_loop[1] = ids if open_loop[1] is None else open_loop[1] & ids
            if not open_loop[1]:
                problems.append(f"{show_path}:{open_loop[0]}: this loop holds calls of different source loops "
                                f"(at {m.group(1)} {where}, line {no})")
                open_loop[1] = ids  # report each loop once per change


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: cst_nesting.py SRCDIR PROG.cst SITES SHOW...")
    chains = chains_of(read_cst(sys.argv[2]), sys.argv[1])
    sites = {}
    for line in open(sys.argv[3]):
        sig, where = line.split()
        sites[sig] = where
    problems = []
    for show in sys.argv[4:]:
        check(show, chains, sites, problems)
    for p in problems[:10]:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
