#!/usr/bin/env python3
"""emit_fortran.py — writes tf_fortran.c: Fortran entry points of the recorder.

For MPI libraries whose Fortran bindings call PMPI_ directly (Open MPI; the
build compiles the file only there): for each function of mpi.table whose
Fortran form maps mechanically onto the C one, the mpif.h / use mpi symbols
(everything by reference) convert their arguments to C, record through the
C wrapper's code (emit_wrappers.py's Body and wrapper(), so the same fields
and ids) and convert the outputs back. Also writes tf_fortran_list.txt, the
names of the functions that got one.

Usage: emit_fortran.py mpi.table OUTDIR
"""
import re
import sys

import emit_wrappers
import mpitable

F_HANDLE = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Group": "Group",
            "MPI_Request": "Request", "MPI_Message": "Message"}


def fortran_ok(f):
    """Functions whose Fortran form maps mechanically onto the C one."""
    if not f.fortran:  # {nofortran}, varargs
        return False
    for p in f.params:
        b = p.base.rstrip("*")
        if p.base in ("MPI_Status*", "MPI_Status") or b in F_HANDLE or b in ("int", "void", "MPI_Aint"):
            continue
        if "skip" in p.ann and b in ("MPI_Info", "MPI_User_function"):
            continue
        return False
    return True


def entry_point(f):
    """The Fortran entry points of f (None if its arguments do not map):
    convert arguments to C, call the C recording code (tf_fortran_X: the
    wrapper body, calling the C PMPI_X), convert outputs back."""
    lname = f.name.lower()
    fparams, conv, back, cargs = [], [], [], []
    for p in f.params:
        b = p.base
        bare = b.rstrip("*")
        if b in ("void*",):
            fparams.append("void *%s" % p.name)
            cargs.append("tf_fortran_buf(%s)" % p.name)
        elif bare in F_HANDLE and not p.is_array:
            fparams.append("MPI_Fint *%s" % p.name)
            h = F_HANDLE[bare]
            conv.append("%s c_%s = PMPI_%s_f2c(*%s);" % (bare, p.name, h, p.name))
            if b.endswith("*"):
                cargs.append("&c_%s" % p.name)
                back.append("*%s = PMPI_%s_c2f(c_%s);" % (p.name, h, p.name))
            else:
                cargs.append("c_%s" % p.name)
        elif bare in F_HANDLE and p.is_array:
            fparams.append("MPI_Fint *%s" % p.name)
            h = F_HANDLE[bare]
            n = "*" + p.ann["n"] if p.ann.get("n") in [q.name for q in f.params] else None
            if n is None:
                return None
            conv.append("%s *c_%s = tf_fortran_scratch_%s(%s, %s);" % (bare, p.name, h.lower(), p.name, n))
            conv.append("if (!c_%s) { *ierr = MPI_ERR_NO_MEM; return; }" % p.name)
            cargs.append("c_%s" % p.name)
            if bare == "MPI_Request":
                back.append("for (int i = 0; i < %s; i++) %s[i] = PMPI_Request_c2f(c_%s[i]);" % (n, p.name, p.name))
        elif b == "MPI_Status*":
            fparams.append("MPI_Fint *%s" % p.name)
            conv.append("MPI_Status c_%s; int ign_%s = %s == MPI_F_STATUS_IGNORE;" % (p.name, p.name, p.name))
            cargs.append("ign_%s ? MPI_STATUS_IGNORE : &c_%s" % (p.name, p.name))
            back.append("if (!ign_%s) PMPI_Status_c2f(&c_%s, %s);" % (p.name, p.name, p.name))
        elif b == "MPI_Status" and p.is_array:
            fparams.append("MPI_Fint *%s" % p.name)
            n = "*" + p.ann["n"]
            conv.append("int ign_%s = %s == MPI_F_STATUSES_IGNORE;" % (p.name, p.name))
            conv.append("MPI_Status *c_%s = ign_%s ? MPI_STATUSES_IGNORE : tf_fortran_scratch_status(%s);"
                        % (p.name, p.name, n))
            conv.append("if (!ign_%s && !c_%s) { *ierr = MPI_ERR_NO_MEM; return; }" % (p.name, p.name))
            cargs.append("c_%s" % p.name)
            back.append("if (!ign_%s) for (int i = 0; i < %s; i++) PMPI_Status_c2f(&c_%s[i], %s + i * TF_F_STATUS_SIZE);"
                        % (p.name, n, p.name, p.name))
        elif bare in ("int", "MPI_Aint"):
            t = "MPI_Fint" if bare == "int" else "MPI_Aint"
            fparams.append("%s *%s" % (t, p.name))
            if p.name == "index":  # Fortran indices are 1-based
                back.append("if (*ierr == MPI_SUCCESS && *index != MPI_UNDEFINED) *index += 1;")
            if p.name == "array_of_indices":
                back.append("if (*ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED)"
                            " for (int i = 0; i < *outcount; i++) array_of_indices[i] += 1;")
            if p.is_array or b.endswith("*"):
                if p.name.endswith("weights"):
                    cargs.append("(int *)tf_fortran_weights(%s)" % p.name)
                elif bare == "int" and p.dims.count("[") == 2:
                    cargs.append("(int (*)%s)%s" % (p.dims[p.dims.index("]") + 1:], p.name))
                elif bare == "int" and p.is_array:
                    cargs.append("(int *)%s" % p.name)  # MPI_Fint == int on this ABI
                else:
                    cargs.append("(%s *)%s" % (bare, p.name))
            else:
                cargs.append("(%s)*%s" % (bare, p.name))
        elif b == "MPI_Info":
            fparams.append("MPI_Fint *%s" % p.name)
            cargs.append("PMPI_Info_f2c(*%s)" % p.name)
        elif "skip" in p.ann:
            fparams.append("void *%s" % p.name)
            cargs.append("NULL")
        else:
            return None
    fparams.append("MPI_Fint *ierr")
    sig = ", ".join(fparams)
    pnames = ", ".join(re.match(r".*?(\w+)$", x).group(1) for x in fparams)
    lines = ["static void tf_fw_%s(void *tf_ra, %s) {" % (f.short, sig)]
    lines.append("  MPI_Fint tf_ierr_unused;")
    lines.append("  if (!ierr) ierr = &tf_ierr_unused; /* optional in mpi_f08 */")
    lines += ["  " + x for x in conv]
    lines.append("  *ierr = tf_fortran_%s(tf_ra%s);" % (f.short, "".join(", " + a for a in cargs)))
    lines += ["  " + x for x in back]
    lines.append("}")
    # mpif.h / use mpi manglings, and Open MPI's mpi_f08 symbols (same
    # by-reference ABI: handles are one-integer derived types, ierror optional)
    for sym in (lname + "_", lname, lname + "__", f.name.upper(), lname + "_f08_"):
        lines.append("void %s(%s);" % (sym, sig))
        lines.append("void %s(%s) { tf_fw_%s(__builtin_return_address(0), %s); }" % (sym, sig, f.short, pnames))
    return "\n".join(lines)


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    # static C recorders (wrapper bodies calling the C PMPI), then the
    # Fortran symbols
    fo = ["/* tf_fortran.c — generated by gen/emit_fortran.py from gen/mpi.table; do not edit.",
          " * Fortran entry points for MPI libraries whose Fortran bindings call PMPI_",
          " * directly (Open MPI): convert handles, record through the C path. */",
          '#include "recorder.h"', '#include "tf_schema.h"', ""]
    names = []
    for f in mpitable.parse_table(table):
        if not fortran_ok(f):
            continue
        text = entry_point(f)
        if text is None:
            continue
        rec = emit_wrappers.wrapper(f, emit_wrappers.Body(f), "TF_FN_" + f.name)
        head = "static int tf_fortran_%s(void *tf_ra%s" % (f.short, ", " if f.params else "")
        rec = rec.replace("int MPI_%s(" % f.short, head, 1).replace("(void *tf_ravoid)", "(void *tf_ra)")
        rec = rec.replace("__builtin_return_address(0)", "tf_ra")
        fo.append(rec)
        fo.append(text)
        fo.append("")
        names.append(f.name)
    open(outdir + "/tf_fortran.c", "w").write("\n".join(fo))
    open(outdir + "/tf_fortran_list.txt", "w").write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
