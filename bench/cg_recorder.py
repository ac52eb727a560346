"""cg_recorder.py — the instructions the recorder itself executes in one
callgrind profile, whatever the MPI library does meanwhile (its polling
inside waits varies from run to run and with the partner ranks).

    python3 bench/cg_recorder.py PROFILE [RECORDER_OBJECT [MPI_OBJECT_PART]]

prints one number: the SELF instructions of every function of the recorder's
ELF object (RECORDER_OBJECT, a substring of the object path
[libtracefold.so]), plus the inclusive instructions of each call the
recorder's functions make into another object that is not the MPI library
(libzstd, libc, libm, the loader, the vDSO: an object whose path contains
MPI_OBJECT_PART [libmpi] is the MPI library), minus the calls those other
shared libraries make back into the recorder (a qsort comparator, a
pthread_once routine: counted once, as recorder self; calls from the
program, the loader's constructors and a thread's entry are not callbacks). Everything inside the MPI
library is left out, the recorder's own MPI calls (MPI_Get_count, the
merge's messages) included.

PROFILE is callgrind's output (callgrind_out format, compressed names or
not; --dump-instr=no, the default; the first event is Ir).
"""
import re
import sys

THREAD_ROOTS = ("start_thread", "clone", "clone3")  # a thread's entry: not a callback from inside a recorder call


def library_callback(caller_obj, caller_fn, mpi):
    """a call into the recorder from a function of a shared library the recorder calls (libc's
    qsort, pthread_once), not from the program, the loader (constructors) or MPI"""
    base = (caller_obj or "").rsplit("/", 1)[-1]
    return ".so" in base and not base.startswith("ld-") and mpi not in base and \
        not caller_fn.startswith(THREAD_ROOTS)


def recorder_instructions(path, recorder="libtracefold.so", mpi="libmpi"):
    names = {"ob": {}, "fn": {}}
    ob = cob = fn_obj = fn_name = None
    in_call = False  # the next cost line is a call's inclusive cost
    self_ir = out_ir = back_ir = 0

    def name(kind, value):
        m = re.match(r"\((\d+)\)(?: (.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "")

    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line or line[0] == "#":
            continue
        key, eq, value = line.partition("=")
        if eq and key in ("ob", "cob", "fn", "cfn", "cfi", "cfl", "fl", "fi", "fe", "calls"):
            if key == "ob":
                ob = name("ob", value)
            elif key == "cob":
                cob = name("ob", value)
            elif key == "fn":
                fn_obj, fn_name = ob, name("fn", value)
                cob = None
            elif key == "cfn":
                name("fn", value)
            elif key == "calls":
                in_call = True
            continue
        if not (line[0].isdigit() or line[0] in "+-*"):
            continue  # headers: version, cmd, events, summary, totals...
        fields = line.split()
        ir = int(fields[1]) if len(fields) > 1 else 0
        caller_rec = fn_obj is not None and recorder in fn_obj
        if in_call:
            callee = cob if cob is not None else fn_obj
            callee_rec = callee is not None and recorder in callee
            callee_mpi = callee is not None and mpi in callee
            if caller_rec and not callee_rec and not callee_mpi:
                out_ir += ir
            elif callee_rec and not caller_rec and library_callback(fn_obj, fn_name, mpi):
                back_ir += ir
            in_call = False
            cob = None
        elif caller_rec:
            self_ir += ir
    return self_ir + out_ir - back_ir


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: cg_recorder.py PROFILE [RECORDER_OBJECT [MPI_OBJECT_PART]]")
    print(recorder_instructions(*sys.argv[1:4]))
