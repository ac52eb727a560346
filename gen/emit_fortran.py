#!/usr/bin/env python3
"""emit_fortran.py — writes tf_fortran.c: Fortran entry points of the recorder.

For each function of mpi.table whose Fortran form maps onto the C one, the
Fortran symbols convert their arguments to C, record through the C
wrapper's code (emit_wrappers.py's Body and wrapper(), so the same fields
and ids) and call the C PMPI_ function, then convert the outputs back. The
program's call thus reaches the recorder directly (its return address is
the call site) and the library's own Fortran binding, which would call
PMPI_ (Open MPI, MPICH's mpi_f08) or the C MPI_ function (MPICH's mpif.h:
recorded a second time), is never entered. The symbols:

  mpif.h / use mpi   mpi_x_, mpi_x, mpi_x__, MPI_X: every argument by
                     reference, handles MPI_Fint, choice buffers addresses
  use mpi_f08        Open MPI: mpi_x_f08_, the same ABI.
                     MPICH (TF_F08_MPICH): mpi_x_f08_ for a routine without
                     a choice buffer (a status is an MPI_F08_status),
                     mpi_x_f08ts_ for one with choice buffers, each a
                     gfortran array descriptor; a non-contiguous one is
                     handed to the library's own routine (tf_lib_call).

The sentinels (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS(ES)_IGNORE,
MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY) and status conversions of each ABI are
in src/recorder/fortran_support.c. Also writes tf_fortran_list.txt, the
names of the functions that got entry points.

Usage: emit_fortran.py mpi.table OUTDIR
"""
import re
import sys

import emit_wrappers
import mpitable

F_HANDLE = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Group": "Group",
            "MPI_Request": "Request", "MPI_Message": "Message", "MPI_Win": "Win"}


def buffers(f):
    """f's choice buffers (void *), which mpi_f08 passes as descriptors;
    not {addr} (a C pointer's address: MPI_Buffer_detach)."""
    return [p for p in f.params if p.base == "void*" and "addr" not in p.ann]


def fortran_ok(f):
    """Functions whose Fortran form maps onto the C one."""
    if not f.fortran:  # {nofortran}
        return False
    for p in f.params:
        b = p.base.rstrip("*")
        if b in F_HANDLE or b in ("int", "void", "MPI_Aint", "MPI_Count", "MPI_Status", "MPI_Info"):
            continue
        return False
    return True


def fexpr(expr, conv_name):
    """An {n=...} or {if=...} expression of mpi.table over the entry point's
    converted (C) values."""
    names = set(re.findall(r"\b[a-z_]\w*\b", expr))
    for n in sorted(names, key=len, reverse=True):
        expr = re.sub(r"\b%s\b" % n, lambda m, n=n: conv_name(n), expr)
    expr = re.sub(r"\bINPLACE\((\w+)\)", r"((const void *)(\1) == MPI_IN_PLACE)", expr)
    expr = re.sub(r"\bSIZE\b", "tf_fortran_coll_size(c_comm)", expr)
    expr = re.sub(r"\bINDEG\b", "tf_neighbor_degrees(c_comm).in", expr)
    expr = re.sub(r"\bOUTDEG\b", "tf_neighbor_degrees(c_comm).out", expr)
    if re.search(r"\b(LOCALSIZE|ISROOT|INROOTGROUP|CARTDIM)\b", expr):
        raise SystemExit("emit_fortran.py: no Fortran form of %r" % expr)
    return expr


class Entry:
    """The conversion of one function's Fortran arguments in one ABI: abi
    "fh" (mpif.h, use mpi; Open MPI's mpi_f08) or "f08" (MPICH's mpi_f08)."""

    def __init__(self, f, abi):
        self.f, self.abi = f, abi
        self.ts = abi == "f08" and bool(buffers(f))  # mpi_x_f08ts_: descriptors
        self.fparams, self.conv, self.conv_arrays, self.back, self.cargs = [], [], [], [], []
        self.cname = {}  # parameter -> the C value's name in the entry point
        self.nslot = 0
        for p in f.params:
            self.param(p)
        if self.ts:
            self.conv.insert(0, "int tf_contig = 1;")
        # Fortran has no ierror in MPI_PCONTROL (mpif.h; Open MPI's mpi_f08); MPICH's mpi_f08 has an optional one
        self.ierr = not (f.varargs and not (abi == "f08"))

    def status_ignore(self, plural=False):
        s = "statuses" if plural else "status"
        return ("tf_f08_%s_ignore" if self.abi == "f08" else "tf_fortran_%s_ignore") % s

    def status_c2f(self, c, fortran, i="0"):
        if self.abi == "f08":
            return "tf_f08_status_c2f(%s, %s, %s);" % (c, fortran, i)
        return "PMPI_Status_c2f(%s, %s + (%s) * TF_F_STATUS_SIZE);" % (c, fortran, i)

    def value(self, n):
        """C value of parameter n, for {n=}/{if=} expressions."""
        return self.cname.get(n, "(*%s)" % n)

    def param(self, p):
        f, b, n = self.f, p.base, p.name
        bare = b.rstrip("*")
        if b == "void*" and "addr" in p.ann:  # the address of a C pointer, passed through
            self.fparams.append("void *%s" % n)
            self.cargs.append(n)
        elif b == "void*":
            self.fparams.append("void *%s" % n)
            if self.ts:
                self.conv.append("void *c_%s = tf_f08_buf(%s, &tf_contig);" % (n, n))
            else:
                self.conv.append("void *c_%s = tf_fortran_buf(%s);" % (n, n))
            self.cname[n] = "c_" + n
            self.cargs.append("c_" + n)
        elif bare in F_HANDLE and not p.is_array:
            h = F_HANDLE[bare]
            self.fparams.append("MPI_Fint *%s" % n)
            self.conv.append("%s c_%s = PMPI_%s_f2c(*%s);" % (bare, n, h, n))
            self.cname[n] = "c_" + n
            if b.endswith("*"):
                self.cargs.append("&c_" + n)
                self.back.append("*%s = PMPI_%s_c2f(c_%s);" % (n, h, n))
            else:
                self.cargs.append("c_" + n)
        elif bare in F_HANDLE and p.is_array:
            h = F_HANDLE[bare]
            self.fparams.append("MPI_Fint *%s" % n)
            cnt = fexpr(p.ann["n"], self.value)
            cond = fexpr(p.ann["if"], self.value) if p.ann.get("if") else "1"
            if h == "Request":
                scratch = "tf_fortran_scratch_request(%s, %s)" % (n, cnt)
            elif h == "Type":
                scratch = "tf_fortran_scratch_type(%s, %s, %d)" % (n, cnt, self.nslot)
                self.nslot += 1
                if self.nslot > 2:
                    raise SystemExit("emit_fortran.py: %s: more than two arrays of datatypes" % f.name)
            else:
                raise SystemExit("emit_fortran.py: %s: no Fortran form of an array of %s" % (f.name, bare))
            # after every scalar handle: the length may be the communicator's size
            # not significant ({if=}): passed on unconverted, never read
            self.conv_arrays.append("%s *c_%s = (%s) ? %s : (%s *)%s;" % (bare, n, cond, scratch, bare, n))
            self.conv_arrays.append("if ((%s) && !c_%s) { *ierr = MPI_ERR_NO_MEM; return; }" % (cond, n))
            self.cargs.append("c_" + n)
            if h == "Request":
                self.back.append("for (int i = 0; i < %s; i++) %s[i] = PMPI_Request_c2f(c_%s[i]);" % (cnt, n, n))
        elif b == "MPI_Status*" and "skip" in p.ann:  # an input status (MPI_Get_count)
            self.fparams.append("MPI_Fint *%s" % n)
            if self.abi == "f08":
                self.conv.append("MPI_Status c_%s; tf_f08_status_f2c(%s, &c_%s);" % (n, n, n))
            else:
                self.conv.append("MPI_Status c_%s; PMPI_Status_f2c(%s, &c_%s);" % (n, n, n))
            self.cargs.append("&c_" + n)
        elif b == "MPI_Status*":
            self.fparams.append("MPI_Fint *%s" % n)
            self.conv.append("MPI_Status c_%s; int ign_%s = %s(%s);" % (n, n, self.status_ignore(), n))
            self.cargs.append("ign_%s ? MPI_STATUS_IGNORE : &c_%s" % (n, n))
            self.back.append("if (!ign_%s) %s" % (n, self.status_c2f("&c_" + n, n)))
        elif b == "MPI_Status" and p.is_array:
            self.fparams.append("MPI_Fint *%s" % n)
            cnt = fexpr(p.ann["n"], self.value)
            self.conv.append("int ign_%s = %s(%s);" % (n, self.status_ignore(True), n))
            self.conv.append("MPI_Status *c_%s = ign_%s ? MPI_STATUSES_IGNORE : tf_fortran_scratch_status(%s);"
                             % (n, n, cnt))
            self.conv.append("if (!ign_%s && !c_%s) { *ierr = MPI_ERR_NO_MEM; return; }" % (n, n))
            self.cargs.append("c_" + n)
            self.back.append("if (!ign_%s) for (int i = 0; i < %s; i++) %s"
                             % (n, cnt, self.status_c2f("&c_%s[i]" % n, n, "i")))
        elif bare in ("int", "MPI_Aint", "MPI_Count"):
            t = "MPI_Fint" if bare == "int" else bare  # INTEGER(KIND=MPI_ADDRESS_KIND / MPI_COUNT_KIND)
            self.fparams.append("%s *%s" % (t, n))
            # Fortran indices are 1-based (but see TF_F08_INDEX_BASE)
            base = "TF_F08_INDEX_BASE" if self.abi == "f08" else "1"
            if n == "index":
                self.back.append("if (*ierr == MPI_SUCCESS && *index != MPI_UNDEFINED) *index += %s;" % base)
            if n == "array_of_indices":
                self.back.append("if (*ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED)"
                                 " for (int i = 0; i < *outcount; i++) array_of_indices[i] += %s;" % base)
            if p.is_array or b.endswith("*"):
                if n.endswith("weights"):
                    w = "tf_f08_weights" if self.abi == "f08" else "tf_fortran_weights"
                    self.cargs.append("(int *)%s(%s)" % (w, n))
                elif bare == "int" and p.dims.count("[") == 2:
                    self.cargs.append("(int (*)%s)%s" % (p.dims[p.dims.index("]") + 1:], n))
                elif bare == "int":
                    self.cargs.append("(int *)%s" % n)  # MPI_Fint == int on this ABI
                else:
                    self.cargs.append("(%s *)%s" % (bare, n))
            else:
                self.cname[n] = "(%s)*%s" % (bare, n)
                self.cargs.append("(%s)*%s" % (bare, n))
        elif b == "MPI_Info":
            self.fparams.append("MPI_Fint *%s" % n)
            self.cargs.append("PMPI_Info_f2c(*%s)" % n)
        else:
            raise SystemExit("emit_fortran.py: %s: no Fortran form of %r" % (f.name, p.decl))

    def all_fparams(self):
        return self.fparams + (["MPI_Fint *ierr"] if self.ierr else [])

    def function(self, fname):
        """The static function fname(void *tf_ra, the Fortran arguments):
        convert, record and call, convert back."""
        f = self.f
        lines = ["static void %s(void *tf_ra%s) {" % (fname, "".join(", " + x for x in self.all_fparams()))]
        lines.append("  MPI_Fint tf_ierr_unused;")
        if self.ierr:
            lines.append("  if (!ierr) ierr = &tf_ierr_unused; /* optional in mpi_f08 */")
        else:
            lines.append("  MPI_Fint *ierr = &tf_ierr_unused; /* Fortran's MPI_PCONTROL has none */")
        lines += ["  " + x for x in self.conv + self.conv_arrays]
        cargs = list(self.cargs)
        if buffers(f):
            if self.ts:
                descs = [p.name for p in buffers(f)] + ["NULL"] * (3 - len(buffers(f)))  # TF_LIB_MAXBUFS
                sym = f.name.lower() + "_f08ts_"
                lines.append("  static tf_lib_fn tf_lib; /* %s of the MPI library */" % sym)
                lines.append("  tf_lib_pass tf_pass = {tf_contig ? NULL : tf_lib_lookup(\"%s\", &tf_lib), {%s}};"
                             % (sym, ", ".join(descs)))
                cargs.append("tf_contig ? NULL : &tf_pass")
            else:
                cargs.append("NULL")
        lines.append("  *ierr = tf_fortran_%s(tf_ra%s);" % (f.short, "".join(", " + a for a in cargs)))
        lines += ["  " + x for x in self.back]
        lines.append("}")
        return "\n".join(lines)

    def symbols(self, fname, symbols):
        """The exported entry points symbols, calling fname with the
        program's return address."""
        fp = self.all_fparams()
        sig = ", ".join(fp) or "void"
        args = "".join(", " + re.match(r".*?(\w+)$", x).group(1) for x in fp)
        lines = []
        for s in symbols:
            lines.append("void %s(%s);" % (s, sig))
            lines.append("void %s(%s) { %s(__builtin_return_address(0)%s); }" % (s, sig, fname, args))
        return "\n".join(lines)


def recorder(f):
    """The C wrapper's code as static int tf_fortran_X(void *tf_ra, C
    parameters[, const tf_lib_pass *tf_pass]): a function with choice
    buffers takes the library's mpi_f08 routine to call instead of PMPI_X
    (MPICH, a non-contiguous buffer)."""
    bufs = buffers(f)
    call = None
    if bufs:
        if any(p.base == "MPI_Status" and p.is_array for p in f.params):
            raise SystemExit("emit_fortran.py: %s: statuses in a routine with choice buffers" % f.name)

        def call(args):
            ptrs = []
            for p, a in zip(f.params, args):
                if p in bufs:
                    ptrs.append("tf_pass->desc[%d]" % bufs.index(p))
                elif p.base == "MPI_Status*" and "skip" not in p.ann:
                    ptrs.append("tf_f08_status_arg(%s)" % a)
                elif p.is_array or p.base.endswith("*"):
                    ptrs.append("(void *)%s" % a)
                else:
                    ptrs.append("(void *)&%s" % a)
            return "(tf_pass ? tf_lib_call(tf_pass, %d, (void *const[]){%s}) : PMPI_%s(%s))" % (
                len(ptrs), ", ".join(ptrs), f.short, ", ".join(args))
    rec = emit_wrappers.wrapper(f, emit_wrappers.Body(f), "TF_FN_" + f.name, call=call)
    params = ", ".join(["void *tf_ra"] + [p.decl for p in f.params] + (["const tf_lib_pass *tf_pass"] if bufs else []))
    head, rest = rec.split("\n", 1)
    if not head.startswith("int MPI_%s(" % f.short):
        raise SystemExit("emit_fortran.py: unexpected wrapper of %s: %r" % (f.name, head))
    return "static int tf_fortran_%s(%s) {\n%s" % (f.short, params, rest.replace("__builtin_return_address(0)", "tf_ra"))


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    fo = ["/* tf_fortran.c — generated by gen/emit_fortran.py from gen/mpi.table; do not edit.",
          " * Fortran entry points: convert the Fortran arguments, record through the",
          " * C wrappers' code and call the C PMPI_ function (see emit_fortran.py). */",
          '#include "recorder.h"', '#include "tf_portable.h"', '#include "tf_schema.h"', ""]
    names = []
    for f in mpitable.parse_table(table):
        if not fortran_ok(f):
            continue
        lname = f.name.lower()
        fh = Entry(f, "fh")
        f08 = Entry(f, "f08")
        code = [recorder(f), fh.function("tf_fw_" + f.short),
                fh.symbols("tf_fw_" + f.short, [lname + "_", lname, lname + "__", f.name.upper()]),
                "#if TF_F08_MPICH",
                f08.function("tf_f8_" + f.short),
                f08.symbols("tf_f8_" + f.short, [lname + ("_f08ts_" if f08.ts else "_f08_")]),
                "#else /* Open MPI's mpi_f08: the mpif.h ABI */",
                fh.symbols("tf_fw_" + f.short, [lname + "_f08_"]),
                "#endif"]
        fo.append(emit_wrappers.since(f, "\n".join(code)))
        fo.append("")
        names.append(f.name)
    open(outdir + "/tf_fortran.c", "w").write("\n".join(fo))
    open(outdir + "/tf_fortran_list.txt", "w").write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
