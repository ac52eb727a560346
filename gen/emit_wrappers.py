#!/usr/bin/env python3
"""emit_wrappers.py — writes tf_wrappers.c: tracefold's C PMPI wrappers.

One wrapper per function of mpi.table: record the parameters, call
PMPI_<name>, record the outputs. What is recorded, and in which order, is
the schema mpitable.py derives; this file only turns each of its record
rules (Rec.role) into C. emit_fortran.py reuses Body and wrapper() for the
recording code of the Fortran entry points.

Usage: emit_wrappers.py mpi.table OUTDIR
"""
import re
import sys

import emit_portable
import mpitable


def expand(expr):
    """Annotation expression -> C expression."""
    expr = re.sub(r"\bINPLACE\((\w+)\)", r"((const void *)(\1) == MPI_IN_PLACE)", expr)
    expr = re.sub(r"\bISROOT\b", "tf_is_root(&ci, root)", expr)
    expr = re.sub(r"\bINROOTGROUP\b", "(root == MPI_ROOT || root == MPI_PROC_NULL)", expr)
    expr = re.sub(r"\bLOCALSIZE\b", "ci.size", expr)
    expr = re.sub(r"\bSIZE\b", "tf_coll_size(&ci)", expr)
    expr = re.sub(r"\bINDEG\b", "tf_nbr.in", expr)
    expr = re.sub(r"\bOUTDEG\b", "tf_nbr.out", expr)
    expr = re.sub(r"\bCARTDIM\b", "tf_cartdim(comm)", expr)
    return expr


class Body:
    """The C code of one wrapper: declarations, the recording before the
    call (pre) and after it (post), and the arguments of the PMPI call."""

    def __init__(self, f):
        self.f = f
        self.decl, self.pre, self.post = [], [], []
        self.after_end = []  # after tf_call_end: once the event is in the trace
        self.snap = None  # the Rec of a request looked up before the call ({use})
        self.snaps_n = None  # the length of its array of requests ({use})
        if f.ctx:
            self.decl.append("tf_comm_info ci = tf_%s_get(%s);" % ("win" if f.ctx_is_win else "comm", f.ctx))
        elif f.file:  # [io]: the file's communicator (its requests belong to it)
            self.decl.append("tf_file_ref fr = tf_file_get(%s%s);" % (
                "*" if any(p.name == f.file and p.base == "MPI_File*" for p in f.params) else "", f.file))
            if f.creates_request():
                self.decl.append("tf_comm_info ci = fr.ci;")
        if any(re.search(r"\b(INDEG|OUTDEG)\b", p.ann.get("n", "")) for p in f.params):
            self.decl.append("tf_degrees tf_nbr = tf_neighbor_degrees(%s);" % f.ctx)
        for r in f.recs:
            getattr(self, "rec_" + r.role)(r, r.param)
        for p in f.params:  # memory attached to a dynamic window ({expose} with a window there already)
            if "expose" in p.ann and f.ctx_is_win:
                self.post.append("if (rc == MPI_SUCCESS) tf_win_attach(%s, %s);" % (f.ctx, p.name))
        self.completion()
        self.call_args = [self.call_arg(p) for p in f.params]

    # -- helpers
    def cond(self, r):
        return expand(r.cond) if r.cond else None

    def put_scalar(self, where, cond, value):
        if cond:
            where.append("tf_put(&c, (%s) ? (int64_t)(%s) : TF_NONE);" % (cond, value))
        else:
            where.append("tf_put(&c, %s);" % value)

    def put_array(self, where, cond, n, fmt):
        """fmt: C expression of element i."""
        n = expand(n)
        c = cond or "1"
        where.append("{ int tf_n = (%s) ? (int)(%s) : 0; tf_put_len(&c, tf_n);" % (c, n))
        where.append("  for (int i = 0; i < tf_n; i++) tf_put(&c, %s); }" % fmt)

    def call_arg(self, p):
        if p.base == "MPI_Status*" and not p.is_array and "skip" not in p.ann:
            return "tf_st"
        if p.base == "MPI_Status" and p.is_array:
            return "tf_sts"
        return p.name

    def flag(self):
        """" && *flag" when what the call reports happened only if *flag."""
        return " && *flag" if self.f.flag else ""

    # -- one method per record rule of mpitable.derive, in its order
    def rec_inplace(self, r, p):
        self.pre.append("tf_put(&c, (const void *)%s == MPI_IN_PLACE);" % p.name)

    def rec_peer(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "tf_peer(&ci, %s)" % p.name)

    def rec_root(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "tf_root_val(%s)" % p.name)

    def rec_tag(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "tf_tag_val(%s)" % p.name)

    def rec_count(self, r, p):
        self.put_scalar(self.pre, self.cond(r), p.name)

    def rec_int(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "%s(%s)" % (portable(p), p.name))

    def rec_aint(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "(int64_t)%s" % p.name)

    def rec_ints(self, r, p):
        src = "((const int *)%s)" % p.name if p.base == "int" else p.name
        val = "%s(%s[i])" % (portable(p), src) if "portable" in p.ann else "(int64_t)%s[i]" % src
        self.put_array(self.pre, self.cond(r), p.ann["n"], val)

    def rec_bytes(self, r, p):
        cp, dp = r.count, r.dtype
        conds = [expand(x.ann["if"]) for x in (cp, dp) if x.ann.get("if")]
        cond = " && ".join("(%s)" % x for x in dict.fromkeys(conds)) or "1"
        if cp.is_array and dp.is_array:
            val = "tf_bytes_w(%s, %s, %s)" % (cp.name, dp.name, expand(cp.ann["n"]))
        elif cp.is_array:
            val = "tf_bytes(tf_sum_ints(%s, %s), dt_%s.size)" % (cp.name, expand(cp.ann["n"]), dp.name)
        else:
            val = "tf_bytes(%s, dt_%s.size)" % (cp.name, dp.name)
        if r.times:  # partitioned: `partitions` blocks of count elements
            val = "tf_bytes(%s, %s)" % (r.times, val)
        self.pre.append("tf_put(&c, (%s) ? (int64_t)(%s) : TF_NONE);" % (cond, val))

    def rec_assert(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "tf_assert_val(%s)" % p.name)

    def rec_lock_type(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "tf_lock_type_val(%s)" % p.name)

    def rec_region(self, r, p):
        self.pre.append("tf_put(&c, tf_win_region(%s, %s));" % (self.f.ctx, p.name))
        self.post.append("if (rc == MPI_SUCCESS) tf_win_detach(%s, %s);" % (self.f.ctx, p.name))

    def rec_win(self, r, p):
        self.pre.append("tf_put(&c, ci.id);" if p.name == self.f.ctx else "tf_put(&c, tf_win_get(%s).id);" % p.name)

    def rec_win_use(self, r, p):
        n = p.name
        self.decl.append("tf_comm_info ci = tf_win_get(*%s);" % n)
        self.pre.append("tf_put(&c, ci.id);")
        if r.free:
            self.decl.append("MPI_Win old_%s = *%s;" % (n, n))
            self.post.append("if (rc == MPI_SUCCESS) tf_win_forget(old_%s);" % n)

    def rec_win_new(self, r, p):
        self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_win_new(&ci, *%s) : TF_NULL_HANDLE);" % p.name)
    # -- MPI-IO
    def rec_offset(self, r, p):
        self.put_scalar(self.pre, self.cond(r), "(int64_t)%s" % p.name)

    def rec_out_offset(self, r, p):
        self.post.append("tf_put(&c, (int64_t)*%s);" % p.name)

    def rec_name(self, r, p):
        self.pre.append("tf_put_string(&c, %s);" % p.name)

    def rec_file(self, r, p):
        self.pre.append("tf_put(&c, fr.id);")

    def rec_file_use(self, r, p):
        n = p.name
        self.decl.append("MPI_File old_%s = *%s;" % (n, n))
        self.pre.append("tf_put(&c, fr.id);")
        if r.free:
            self.post.append("if (rc == MPI_SUCCESS) tf_file_forget(old_%s);" % n)

    def rec_file_new(self, r, p):
        self.post.append("tf_put(&c, tf_file_new(&ci, rc == MPI_SUCCESS ? *%s : MPI_FILE_NULL));" % p.name)

    def rec_io_status(self, r, p):
        n = p.name
        self.decl.append("MPI_Status tf_st_local; MPI_Status *tf_st = %s == MPI_STATUS_IGNORE ? &tf_st_local : %s;"
                         % (n, n))
        self.post.append("tf_put_io_status(&c, tf_st, rc == MPI_SUCCESS);")

    def rec_flag(self, r, p):
        self.post.append("tf_put(&c, *flag);")

    def rec_index(self, r, p):
        self.post.append("tf_put(&c, *index == MPI_UNDEFINED ? TF_UNDEFINED : *index);")

    def rec_out_peer(self, r, p):
        self.post.append("tf_put(&c, tf_peer(&ci, *%s));" % p.name)

    def rec_out_int(self, r, p):
        self.post.append("tf_put(&c, %s(*%s));" % (portable(p), p.name))

    def rec_out_aint(self, r, p):
        self.post.append("tf_put(&c, (int64_t)*%s);" % p.name)

    def rec_dtype(self, r, p):
        n = p.name
        self.decl.append("tf_dtype_ref dt_%s = (%s) ? tf_dtype_get(%s) : tf_dtype_none();" % (n, self.cond(r) or "1", n))
        self.pre.append("tf_put(&c, dt_%s.id); tf_put(&c, dt_%s.size);" % (n, n))

    def rec_dtypes(self, r, p):
        c = self.cond(r) or "1"
        self.put_array(self.pre, c, p.ann["n"], "tf_dtype_get(%s[i]).id" % p.name)
        self.put_array(self.pre, c, p.ann["n"], "tf_dtype_get(%s[i]).size" % p.name)

    def rec_dtype_use(self, r, p):
        n = p.name
        self.decl.append("tf_dtype_ref dt_%s = tf_dtype_get(*%s);" % (n, n))
        self.pre.append("tf_put(&c, dt_%s.id); tf_put(&c, dt_%s.size);" % (n, n))
        if r.free:
            self.decl.append("MPI_Datatype old_%s = *%s;" % (n, n))
            self.post.append("if (rc == MPI_SUCCESS) tf_dtype_forget(old_%s);" % n)

    def rec_dtype_new(self, r, p):
        self.post.append("{ tf_dtype_ref nd = tf_dtype_new(rc == MPI_SUCCESS ? *%s : MPI_DATATYPE_NULL);"
                         " tf_put(&c, nd.id); tf_put(&c, nd.size); }" % p.name)

    def rec_comm(self, r, p):
        if r.is_ctx:
            self.pre.append("tf_put(&c, ci.id);")
        else:
            self.put_scalar(self.pre, self.cond(r), "tf_comm_get(%s).id" % p.name)

    def rec_comm_use(self, r, p):
        n = p.name
        self.decl.append("tf_comm_info ci = tf_comm_get(*%s);" % n)
        self.pre.append("tf_put(&c, ci.id);")
        if r.free:
            self.decl.append("MPI_Comm old_%s = *%s;" % (n, n))
            self.post.append("if (rc == MPI_SUCCESS) tf_comm_forget(old_%s);" % n)

    def rec_comm_new(self, r, p):
        self.post.append("tf_put(&c, tf_comm_new(&ci, rc == MPI_SUCCESS ? *%s : MPI_COMM_NULL, TF_NEWCOMM_%s, %s));"
                         % (p.name, r.how.upper(), r.salt or "0"))

    def rec_op(self, r, p):
        self.pre.append("tf_put(&c, tf_op_get(%s));" % p.name)

    def rec_op_use(self, r, p):
        n = p.name
        self.decl.append("MPI_Op old_%s = *%s;" % (n, n))
        self.pre.append("tf_put(&c, tf_op_get(old_%s));" % n)
        if r.free:
            self.post.append("if (rc == MPI_SUCCESS) tf_op_forget(old_%s);" % n)

    def rec_op_new(self, r, p):
        self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_op_new(*%s) : TF_NULL_HANDLE);" % p.name)

    def rec_group(self, r, p):
        self.pre.append("tf_put(&c, tf_group_get(%s));" % p.name)

    def rec_group_use(self, r, p):
        n = p.name
        self.decl.append("MPI_Group old_%s = *%s;" % (n, n))
        self.pre.append("tf_put(&c, tf_group_get(old_%s));" % n)
        if r.free:
            self.post.append("if (rc == MPI_SUCCESS) tf_group_forget(old_%s);" % n)

    def rec_group_new(self, r, p):
        self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_group_new(*%s) : TF_NULL_HANDLE);" % p.name)

    def rec_msg_use(self, r, p):
        self.decl.append("tf_msg_snap msg = tf_msg_take(*%s);" % p.name)
        self.decl.append("tf_comm_info ci = msg.ci;")
        self.pre.append("tf_put(&c, msg.id);")

    def rec_msg_new(self, r, p):
        flag = "*flag" if self.f.flag else "1"
        self.post.append("tf_put(&c, (rc == MPI_SUCCESS && %s) ? tf_msg_new(*%s, &ci) : TF_NONE);" % (flag, p.name))

    def rec_req_use(self, r, p):
        # a call that completes or frees the request claims it (object_ids.c)
        self.decl.append("tf_req_snap snap = tf_req_get(%s%s, %d);"
                         % ("*" if p.base == "MPI_Request*" else "", p.name, int(bool(self.f.complete or r.free))))
        self.pre.append("tf_put(&c, snap.id);")
        self.snap = r

    def rec_req_new(self, r, p):
        v = "tf_new_" + p.name
        self.post.append("int64_t %s = rc == MPI_SUCCESS ? tf_req_new(*%s, TF_REQ_%s, %d, &ci) : TF_NULL_HANDLE;"
                         % (v, p.name, r.kind, int(r.persistent)))
        self.post.append("tf_put(&c, %s);" % v)
        # other threads' calls may take it once its event is in the trace (object_ids.c)
        self.after_end.append("if (%s != TF_NULL_HANDLE) tf_req_published(*%s, %s);" % (v, p.name, v))

    def rec_reqs_use(self, r, p):
        self.snaps_n = expand(p.ann["n"])
        self.decl.append("tf_req_snap *snaps = tf_req_get_all(&c, %s, %s, %d);"
                         % (p.name, self.snaps_n, int(bool(self.f.complete))))
        self.pre.append("tf_put_req_ids(&c, snaps, %s);" % self.snaps_n)

    def rec_status(self, r, p):
        n = p.name
        self.decl.append("MPI_Status tf_st_local; MPI_Status *tf_st = %s == MPI_STATUS_IGNORE ? &tf_st_local : %s;"
                         % (n, n))
        if self.f.complete == "any":
            ok = "rc == MPI_SUCCESS && *index != MPI_UNDEFINED" + self.flag()
            self.post.append("tf_put_req_status(&c, (%s) && snaps ? &snaps[*index] : NULL, tf_st, %s);" % (ok, ok))
        elif self.snap:  # the status of the call's request (completed, or only looked at)
            self.post.append("tf_put_req_status(&c, &snap, tf_st, rc == MPI_SUCCESS%s);" % self.flag())
        else:  # a receive or a probe: the status of the matched message
            self.post.append("tf_put_status(&c, &ci, tf_st, rc == MPI_SUCCESS%s);" % self.flag())

    def rec_statuses(self, r, p):
        n = p.name
        self.decl.append("MPI_Status *tf_sts = %s == MPI_STATUSES_IGNORE ? tf_statuses_scratch(&c, %s) : %s;"
                         % (n, expand(p.ann["n"]), n))
        if self.f.complete == "all":
            self.post.append("tf_put_req_statuses(&c, snaps, %s, tf_sts, rc == MPI_SUCCESS%s);"
                             % (self.snaps_n, self.flag()))
        else:  # some
            self.post.append("tf_put_some_statuses(&c, snaps, rc == MPI_SUCCESS ? *outcount : MPI_UNDEFINED,"
                             " array_of_indices, tf_sts);")

    def completion(self):
        """Request bookkeeping after completion calls ({complete=...}) and
        MPI_Request_free (a {use, free} request)."""
        how, flag = self.f.complete, self.flag()
        if how == "one":
            self.post.append("if (rc == MPI_SUCCESS%s) tf_req_completed(&snap);" % flag)
        elif how == "any":
            self.post.append("if (rc == MPI_SUCCESS%s && *index != MPI_UNDEFINED && snaps)"
                             " tf_req_completed(&snaps[*index]);" % flag)
        elif how == "all":
            self.post.append("if (rc == MPI_SUCCESS%s && snaps) for (int i = 0; i < %s; i++)"
                             " tf_req_completed(&snaps[i]);" % (flag, self.snaps_n))
        elif how == "some":
            self.post.append("if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && snaps)"
                             " for (int i = 0; i < *outcount; i++) tf_req_completed(&snaps[array_of_indices[i]]);")
        # the requests it took snapshots of and did not complete are released, once its event is in the
        # trace: a call that takes one of them next is recorded after this one (object_ids.c)
        if how == "one":
            self.after_end.append("tf_req_settled(&snap);")
        elif how in ("any", "all", "some"):
            self.after_end.append("if (snaps) for (int i = 0; i < %s; i++) tf_req_settled(&snaps[i]);"
                                  % self.snaps_n)
        if self.snap and self.snap.free:
            self.post.append("if (rc == MPI_SUCCESS) tf_req_forget(&snap);")
            self.after_end.append("tf_req_settled(&snap);")

# ------------------------------------------------------------- emitting

def proto(f, prefix="MPI_"):
    params = ", ".join(p.decl for p in f.params) or "void"
    if f.varargs:
        params += ", ..."
    return "int %s%s(%s)" % (prefix, f.short, params)


def wrapper(f, g, fn_id, call=None):
    """The C wrapper of f (g: its Body) recording as function fn_id. call:
    the expression that makes the MPI call, given its C arguments (default
    PMPI_X(args); emit_fortran.py's entry points may call the library's own
    Fortran routine instead)."""
    if call is None:
        def call(args):
            return "PMPI_%s(%s)" % (f.short, ", ".join(args))
    out = [proto(f) + " {"]
    pmpi = call(g.call_args)
    plain = call([p.name for p in f.params])
    if f.lifecycle == "init":
        out.append("  uint64_t tf_t0 = tf_now_ns();")
        out.append("  int rc = %s;" % plain)
        out.append("  uint64_t tf_t1 = tf_now_ns();")
        out.append("  tf_recorder_start(rc);")
        out.append("  tf_call c;")
        out.append("  if (!tf_call_begin(&c, %s, __builtin_return_address(0))) return rc;" % fn_id)
        body_pre = g.decl + g.pre
        out += ["  " + line for line in body_pre]
        out.append("  c.t0 = tf_t0;")
        out.append("  c.t1 = tf_t1;")
        out += ["  " + line for line in g.post]
        out.append("  tf_call_end(&c);")
        out.append("  tf_call_clock_resume();")
        out.append("  return rc;")
        out.append("}")
        return "\n".join(out)
    out.append("  tf_call c;")
    if f.lifecycle == "finalize":
        # the recorder must be closed whether or not this call is recorded
        # recorded before the merge, which needs MPI: its own duration is not known (0)
        out.append("  if (tf_call_begin(&c, %s, __builtin_return_address(0))) {" % fn_id)
        out.append("    tf_call_clock_start(&c);")
        out.append("    tf_call_clock_stop(&c);")
        out.append("    tf_call_end(&c);")
        out.append("  }")
        out.append("  tf_recorder_before_finalize();")
        out.append("  int rc = %s;" % plain)
        out.append("  tf_recorder_stop();")
        out.append("  return rc;")
        out.append("}")
        return "\n".join(out)
    out.append("  if (!tf_call_begin(&c, %s, __builtin_return_address(0))) return %s;" % (fn_id, plain))
    out += ["  " + line for line in g.decl + g.pre]
    if f.lifecycle == "abort":
        out.append("  tf_call_clock_start(&c);")
        out.append("  tf_call_clock_stop(&c);")
        out.append("  tf_call_end(&c);")
        out.append("  tf_recorder_abort();")
        out.append("  return %s;" % pmpi)
        out.append("}")
        return "\n".join(out)
    out.append("  tf_call_clock_start(&c);")
    out.append("  int rc = %s;" % pmpi)
    out.append("  tf_call_clock_stop(&c);")
    out += ["  " + line for line in g.post]
    out.append("  tf_call_end(&c);")
    out += ["  " + line for line in g.after_end]
    out.append("  return rc;")
    out.append("}")
    return "\n".join(out)


def since(f, code):
    """code, compiled only where the MPI library provides f ({mpi=4}: an
    MPI-3.1 library, such as Open MPI 4.1, has no MPI_Isendrecv)."""
    if f.mpi <= 3:
        return code
    return "#if MPI_VERSION >= %d /* %s is MPI %d.0 */\n%s\n#endif" % (f.mpi, f.name, f.mpi, code)


def portable(p):
    """How an int parameter's value is kept: through its set of portable.table, or as is."""
    return "tf_portable_%s" % p.ann["portable"] if "portable" in p.ann else "tf_int_val"


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    w = ["/* tf_wrappers.c — generated by gen/emit_wrappers.py from gen/mpi.table; do not edit.",
         " * One PMPI wrapper per intercepted MPI function. */",
         '#include "recorder.h"', '#include "tf_portable.h"', '#include "tf_schema.h"', ""]
    h = ["/* tf_portable.h — generated by gen/emit_wrappers.py from gen/portable.table; do not edit.",
         " * The trace's portable values of MPI constants that differ between libraries. */",
         "#ifndef TF_PORTABLE_H", "#define TF_PORTABLE_H", "#include <mpi.h>", "#include <stdint.h>", "",
         '#include "tracefold.h"', ""] + emit_portable.to_portable(emit_portable.sets(table)) + ["", "#endif", ""]
    open(outdir + "/tf_portable.h", "w").write("\n".join(h))
    for f in mpitable.parse_table(table):
        w.append(since(f, wrapper(f, Body(f), "TF_FN_" + f.name)))
        w.append("")
    open(outdir + "/tf_wrappers.c", "w").write("\n".join(w))


if __name__ == "__main__":
    main()
