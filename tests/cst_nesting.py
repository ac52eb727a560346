#!/usr/bin/env python3
"""cst_nesting.py — does the loop structure of a CST-guided trace have exactly
the source's loops and branch arms? (cst.sh --part nesting; doc/CST.md
"CST-guided folding").

  cst_nesting.py SRCDIR PROG.cst SITES SHOW...

PROG.cst: the program's CST file (tracefold cst / TRACEFOLD_CC_CST), its
file names relative to SRCDIR. SITES:
"SIGNATURE FILE:LINE" per call site (tracefold stats, resolved). SHOW: the
output of `tracefold show --rank R --no-time --sites` of one rank each.

The CST is expanded from main, and from every function that main does not
reach (thread bodies), through call and indirect nodes (a function already
on the path is not expanded again: recursion). Each MPI call site (and each
call site of a function: its tail call of MPI returns there) gets the set of
its chains: the CST loops and branch arms around it from the outermost on,
by id. A loop or branch made by a macro (its text does not start with its
keyword: the CST puts it at the macro's use) has no markers, as
tracefold-cc decides it, and is left out of the chains. A function that
main does not reach (a thread's body, a callback such as a user-defined
reduction op run inside an MPI call) may run inside any nodes: its chains
are any nodes, then its own.

"Matches" means, for every call in the trace (every rank given): the CST
ids of the trace loops around it (`loop x.. {  cst#ID` in show), from the
outermost on, are one of the chains of its call site. So no trace loop
without a source loop or arm around the call, no source loop or arm around
it missing, and every trace loop is the very source node it names, around
calls that are in that node in the source: a rotated loop, a loop made of
several source loops, a loop without an id (the dynamic folder's), an arm
node around a call of the other arm, all fail.
A source loop that made no call, or none in some iterations, is simply
absent there (the guide drops empty iterations), and so is an arm that made
no call; a loop whose iterations alternate shapes (a branch) holds several
iterations per trace iteration, which is still that one loop. Prints the
first problems, exit 1 if any.
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
    """tracefold-cc's rule: the loop's (branch's) text starts with its keyword at its location."""
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
            elif k["kind"] == "branch":  # its arms are nodes of the trace when the branch has markers
                m = marked(k, srcdir)
                for a in k["kids"]:
                    if a["kind"] == "arm":
                        walk(a, loops + (a["id"],) if m else loops, path)
                    else:
                        walk({"kids": [a]}, loops, path)
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
    loops = []  # CST ids of the open trace loops (None: a loop without one)
    for no, line in enumerate(open(show_path), 1):
        text = line.strip()
        if text.startswith("loop x"):  # its count may be a value sequence: "x[2 x2, 3..2/-1] {"
            m = re.search(r" cst#(\d+)", text)
            loops.append(int(m.group(1)) if m else None)
            continue
        if text == "}":
            loops.pop()
            continue
        m = re.match(r"(MPI_\w+|PMPI_\w+) cs=([0-9a-f]+)", text)
        if not m:
            continue
        where = sites.get(m.group(2))
        fits = [f for f in (fitting(c, len(loops)) for c in chains.get(where, ())) if f is not None]
        if not any(all(c == ANY or c == t for c, t in zip(f, loops)) for f in fits):
            have = sorted(chains.get(where, ()))
            problems.append(f"{show_path}:{no}: {m.group(1)} at {where} is inside the trace loops "
                            f"{['cst#%d' % t if t is not None else 'no id' for t in loops]}; "
                            f"the source's loops and arms there: {have or 'no CST node there'}")


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
