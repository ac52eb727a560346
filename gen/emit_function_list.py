#!/usr/bin/env python3
"""emit_function_list.py — doc/RECORDED.md's list of every function of the MPI
standard, as the MPI library's header declares it: for each, whether it is
recorded, replayed and simulated, or why not.

  emit_function_list.py --write DOC --header MPI_H[,MPI_H...]
      rewrites the list in DOC (between its BEGIN/END markers) from the
      functions the MPI_H declare (and the headers each includes from its
      own folder, but the C++ bindings'), gen/mpi.table and
      gen/unrecorded.table;
  emit_function_list.py --check DOC --header MPI_H --wrappers W --replay R
      the test (ctest unit.function_list): every function the installed
      header declares is in DOC's list; the list is what --write would write
      for its own functions (so it agrees with mpi.table and
      unrecorded.table); every recorded function has its wrapper in the
      generated W (tf_wrappers.c) and, unless the replay engine does it by
      hand ({engine}), its call in the generated R (tf_replay_calls.c).

Exit 0, 1 with what differs, 2 on a usage error or an unreadable input.
"""
import fnmatch
import os
import re
import sys

import mpitable

HERE = os.path.dirname(os.path.abspath(__file__))
BEGIN = "<!-- BEGIN every-function (gen/emit_function_list.py --write; do not edit by hand) -->"
END = "<!-- END every-function -->"


def die(msg, code=2):
    sys.stderr.write("emit_function_list: %s\n" % msg)
    sys.exit(code)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        die("cannot read %s: %s" % (path, e.strerror))


def header_functions(path, seen=None):
    """The MPI_ functions path declares, and those of the headers it includes from its folder."""
    seen = set() if seen is None else seen
    if path in seen:
        return set()
    seen.add(path)
    names = set()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), read(path), flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    for line in text.split("\n"):
        m = None if line.lstrip().startswith("typedef") else re.match(r"^[A-Za-z_ \*]*\b(MPI_[A-Za-z0-9_]+)\s*\(", line)
        if m:
            names.add(m.group(1))
        inc = re.match(r"^\s*#\s*include\s+[\"<]([^\">]+)[\">]", line)
        if inc and "cxx" not in inc.group(1):  # not the C++ bindings' header (mpicxx.h)
            other = os.path.join(os.path.dirname(path), inc.group(1))
            if os.path.exists(other):
                names |= header_functions(other, seen)
    return names


def header_version(path):
    text = read(path)
    v = re.search(r"#\s*define\s+MPI_VERSION\s+(\d+)", text)
    s = re.search(r"#\s*define\s+MPI_SUBVERSION\s+(\d+)", text)
    return "%s.%s" % (v.group(1), s.group(1)) if v and s else "?"


def reasons():
    rules = []
    for line in read(os.path.join(HERE, "unrecorded.table")).split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        pats, _, why = line.partition("\t")
        rules.append((pats.split(), why.strip()))
    return rules


def why_not(name, rules):
    for pats, why in rules:
        if any(fnmatch.fnmatchcase(name, p) for p in pats):
            return why
    return None


def section(names, funcs, version):
    """The list's text for the functions `names`."""
    rules = reasons()
    rows, missing = [], []
    nrec = nsim = 0
    for n in sorted(names):
        f = funcs.get(n)
        if f is not None:
            nrec += 1
            nsim += f.sim
            replayed = "no: a run that calls it leaves a partial trace" if f.lifecycle == "abort" else "yes"
            simulated = "yes" if f.sim else "no: SimGrid's SMPI does not implement it"
            since = "" if f.mpi <= 3 else ", MPI %d.0: where the library implements it" % f.mpi
            if f.mpi > mpitable.SMPI_MPI_VERSION:
                simulated += " (an MPI %d.1 library)" % mpitable.SMPI_MPI_VERSION
            rows.append("| `%s` | yes (`[%s]`%s) | %s | %s |" % (n, f.category, since, replayed, simulated))
            continue
        why = why_not(n, rules)
        if why is None:
            missing.append(n)
            why = "?"
        rows.append("| `%s` | no: %s | | |" % (n, why))
    text = [BEGIN, "",
            "%d functions (MPI %s): %d recorded, and replayed; %d of them simulated. "
            "Generated from `gen/mpi.table` and `gen/unrecorded.table` (the reasons)." % (
                len(names), version, nrec, nsim), "",
            "| Function | Recorded (category) | Replayed | Simulated |", "| --- | --- | --- | --- |"]
    return "\n".join(text + rows + ["", END]), missing


def split_doc(doc_text, doc):
    a, b = doc_text.find(BEGIN), doc_text.find(END)
    if a < 0 or b < a:
        die("%s has no list between the markers %s and %s" % (doc, BEGIN, END), 1)
    return doc_text[:a], doc_text[a:b + len(END)], doc_text[b + len(END):]


def main(argv):
    args = dict(zip(argv[1::2], argv[2::2]))
    if len(argv) % 2 != 1 or not (("--write" in args) ^ ("--check" in args)) or "--header" not in args:
        die("usage: emit_function_list.py (--write DOC | --check DOC --wrappers W --replay R) --header MPI_H[,MPI_H...]")
    funcs = {f.name: f for f in mpitable.parse_table(os.path.join(HERE, "mpi.table"))}
    headers = args["--header"].split(",")
    declared = set().union(*(header_functions(h) for h in headers))
    if not declared:
        die("%s declares no MPI_ function" % args["--header"])
    doc = args.get("--write") or args["--check"]
    before, old, after = split_doc(read(doc), doc)
    if "--write" in args:
        text, missing = section(declared | set(funcs), funcs, max(header_version(h) for h in headers))
        if missing:
            die("no reason in gen/unrecorded.table for: %s" % " ".join(missing), 1)
        with open(doc, "w") as f:
            f.write(before + text + after)
        print("emit_function_list: %s: %d functions" % (doc, len(declared | set(funcs))))
        return 0
    problems = []
    listed = set(re.findall(r"^\| `(MPI_[A-Za-z0-9_]+)` \|", old, re.M))
    version = re.search(r"functions \(MPI ([0-9.?]+)\)", old)
    text, missing = section(listed | set(funcs), funcs, version.group(1) if version else "?")
    for n in sorted(declared - listed):
        problems.append("%s: declared by %s, not in %s's list" % (n, args["--header"], doc))
    if missing:
        problems.append("no reason in gen/unrecorded.table for: %s" % " ".join(missing))
    if text != old:
        problems.append("%s's list is not what gen/mpi.table and gen/unrecorded.table give: run "
                        "gen/emit_function_list.py --write %s --header <the MPI's mpi.h>" % (doc, doc))
    wrappers, replay = read(args.get("--wrappers", "")), read(args.get("--replay", ""))
    for n, f in sorted(funcs.items()):
        if not re.search(r"\b%s\s*\(" % n, wrappers):
            problems.append("%s: recorded, but the generated wrappers do not define it" % n)
        if not f.engine and "rp_call_%s(" % f.short not in replay:
            problems.append("%s: recorded, but the generated replay has no call for it" % n)
    for p in problems:
        sys.stderr.write("emit_function_list: %s\n" % p)
    if problems:
        return 1
    print("function list: %d functions in %s, %d declared by %s, %d recorded (each with its wrapper and replay)"
          % (len(listed), doc, len(declared), args["--header"], len(funcs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
