#!/usr/bin/env python3
"""check_recorder_includes.py — the recorder's modules depend on each other one way.

    scripts/check_recorder_includes.py [src/recorder]

A module is a .c file of src/recorder; its own header is the first header of
src/recorder it includes (recorder.c: session.h). Module A depends on module
B when A includes, directly or through other headers, B's own header. The
check fails (exit 1) on a dependency cycle, on a header of src/recorder that
is nobody's own header other than recorder.h, and on a hand-written source
that includes recorder.h (which only the generated wrappers include: it
switches them to default visibility). On success it prints each module with
what it depends on, lowest layer first.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FACADE = "recorder.h"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src", "recorder")
    files = sorted(f for f in os.listdir(root) if f.endswith((".c", ".h")))
    local = {f: [i for i in INCLUDE.findall(open(os.path.join(root, f)).read()) if i in files] for f in files}
    problems = []

    own = {}  # header -> module (.c) it belongs to
    for c in (f for f in files if f.endswith(".c")):
        if FACADE in local[c]:
            problems.append(f"{c} includes {FACADE}, which only the generated wrappers may include")
        if local[c]:
            h = local[c][0]
            if h in own:
                problems.append(f"{h} is the own header of both {own[h]} and {c}")
            own[h] = c
    for h in (f for f in files if f.endswith(".h") and f != FACADE and f not in own):
        problems.append(f"{h} is no module's own header (include it first in the .c that defines what it declares)")

    def closure(f, seen):
        for i in local[f]:
            if i not in seen:
                seen.add(i)
                closure(i, seen)
        return seen

    deps = {}
    for c in (f for f in files if f.endswith(".c")):
        deps[c] = sorted({own[h] for h in closure(c, set()) if h in own and own[h] != c})

    # cycles: depth-first search over modules
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in deps[m]:
            if state.get(d) == 1:
                problems.append("cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(deps):
        if m not in state:
            visit(m)

    if problems:
        for p in problems:
            print("check_recorder_includes: " + p, file=sys.stderr)
        return 1
    layer = {}

    def depth(m):
        if m not in layer:
            layer[m] = 1 + max((depth(d) for d in deps[m]), default=-1)
        return layer[m]

    for m in sorted(deps, key=lambda m: (depth(m), m)):
        print(f"layer {layer[m]}  {m:<20} -> {', '.join(deps[m]) or '(nothing)'}")
    print(f"no cycle among {len(deps)} modules; only generated sources include {FACADE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
