#!/usr/bin/env python3
"""emit_replay.py — writes tf_replay_calls.c: the replay engine's MPI calls.

mpitable.py's schema says which value of an event's parameter vector each
MPI parameter became. This emitter inverts it: for every function it writes
a C function that turns a recorded event back into the same MPI call, with
live handles for recorded ids, buffers as large as each buffer's layout
(mpitable.py, {layout=...}: the spans rp_span_* of payload.h, over the
communicator or the neighbours, at displacements, with per-peer datatypes;
when a buffer is MPI_IN_PLACE the call's other buffer spans both), peers
made absolute again, and the created objects registered under their
recorded ids.

Output: tf_replay_calls.c with
  rp_call_MPI_X(rp_thread *T)        one per function (fields in T->f)
  const rp_call_fn rp_calls[TF_FN_COUNT]   by schema id (NULL: done by the
                                     engine, {engine})
  rp_start_MPI_X(rp_thread *T, MPI_Request req[2])  for blocking functions
                                     with a nonblocking form (MPI_IX, or Isend
                                     + Irecv for MPI_Sendrecv): the same call,
                                     started; the request(s) it made
  const rp_start_fn rp_starts[TF_FN_COUNT]  by schema id (NULL: none)
  const uint8_t rp_nosim[TF_FN_COUNT]       by schema id: 1 if SimGrid's SMPI
                                     lacks the function ({nosim})
  const uint8_t rp_io[TF_FN_COUNT]          by schema id: 1 for MPI-IO ([io]):
                                     performed in the scratch directory, or
                                     timed from the trace (--io skip)

Functions with {outcome} or {complete=...} are wrapped in
rp_outcome_before/after (outcome.c), which make the recorded outcome happen.
The runtime helpers (rp_int, rp_peer, rp_dtype, ...) are in replay.h.
Usage: emit_replay.py mpi.table OUTDIR
"""
import os
import sys

import emit_portable
import emit_wrappers
import mpitable


def recv_side(f, p):
    """Does this buffer receive data (else it is sent)? Its name says so, or
    {recv}."""
    n = p.name.lower()
    if "send" in n or n in ("inbuf",):
        return False
    if "recv" in n or n in ("outbuf", "inoutbuf"):
        return True
    return "recv" in p.ann


class Call:
    def __init__(self, f):
        self.f = f
        self.idx = f.field_index
        self.decl, self.post, self.args = [], [], []

    def fi(self, name):
        return self.idx[name]

    def build(self):
        f = self.f
        ctx = f.ctx
        # the context communicator first: peers are relative to it
        if ctx:
            self.decl.append("MPI_%s %s = rp_%s(T, %d);" % (("Win", ctx, "win", self.fi(ctx)) if f.ctx_is_win else
                                                           ("Comm", ctx, "comm", self.fi(ctx))))
        self.spans()
        for p in f.params:
            self.args.append(self.param(p))

    SIZES = {"SIZE": "rp_coll_size(%s)", "LOCALSIZE": "rp_local_size(%s)", "INDEG": "rp_neighbors(%s, 0)",
             "OUTDEG": "rp_neighbors(%s, 1)"}

    def span(self, lay):
        """C expression of a buffer layout's span (payload.h)."""
        k, a = lay.kind, lay.args
        if k == "block":
            return "rp_span_block(T, %d, %d, 1)" % (self.fi(a[0]), self.fi(a[1]))
        if k == "blocks" and a[2] in self.SIZES:
            return "rp_span_block(T, %d, %d, %s)" % (self.fi(a[0]), self.fi(a[1]), self.SIZES[a[2]] % self.ctx_comm())
        if k == "blocks":  # as many blocks as a recorded parameter says (partitions)
            return "rp_span_block(T, %d, %d, rp_int(T, %d))" % (self.fi(a[0]), self.fi(a[1]), self.fi(a[2]))
        if k == "displs":
            return "rp_span_displs(T, %d, %d, %d)" % tuple(self.fi(x) for x in a)
        if k == "sum":
            return "rp_span_sum(T, %d, %d)" % (self.fi(a[0]), self.fi(a[1]))
        if k == "mine":
            return "rp_span_mine(T, %d, %d, %s)" % (self.fi(a[0]), self.fi(a[1]), self.ctx_comm())
        if k == "bytes":
            return "rp_span_bytes(T, %d)" % self.fi(a[0])
        if k == "one":
            return "rp_span_one(T, %d)" % self.fi(a[0])
        if k == "none":
            return "RP_SPAN_NONE"
        raise SystemExit("%s: no replay rule for layout %s" % (self.f.name, k))

    # {simoutofplace}: the send-side parameter standing for each receive-side one
    SEND_OF = {"sendcount": "recvcount", "sendtype": "recvtype", "sendcounts": "recvcounts", "sdispls": "rdispls",
               "sendtypes": "recvtypes"}

    def sim_inplace(self):
        """The C condition "made out of place under SimGrid although
        recorded in place" ({simoutofplace}), or None."""
        if not self.f.sim_out_of_place:
            return None
        return "(RP_SIMGRID && rp_int(T, %d) == 1)" % self.fi("inplace")

    def spans(self):
        """s_<buffer>: the span of each buffer; a buffer recorded as
        MPI_IN_PLACE is replaced by the call's other buffer, which then
        spans both ({simoutofplace} under SimGrid: the send buffer spans the
        receive buffer's layout too)."""
        bufs = [p for p in self.f.params if p.base == "void*" and p.layout]
        for p in bufs:
            self.decl.append("rp_span s_%s = %s;" % (p.name, self.span(p.layout)))
        if self.sim_inplace():
            self.decl.append("if %s s_sendbuf = rp_span_union(s_sendbuf, s_recvbuf);" % self.sim_inplace())
        for p in bufs:
            if p.rec and p.rec.role == "inplace":
                other = [q for q in bufs if q is not p]
                if len(other) != 1:
                    raise SystemExit("%s: %s can be MPI_IN_PLACE, but which buffer stands in for it?" % (self.f.name, p.name))
                self.decl.append("if (rp_int(T, %d) == 1) s_%s = rp_span_union(s_%s, s_%s);" % (
                    self.fi(p.rec.fields[0].name), other[0].name, other[0].name, p.name))

    def kept(self):
        """The suffix of the array helpers: "_kept" in a call that makes a
        request (a nonblocking collective: MPI may read its arrays until the
        operation completes, handles.c rp_req_new keeps them until then)."""
        return "_kept" if self.f.creates_request() else ""

    def buffer(self, p):
        return "%s(T, s_%s)" % ("rp_rbuf" if recv_side(self.f, p) else "rp_sbuf", p.name)

    def ctx_comm(self):
        return self.f.ctx or "MPI_COMM_NULL"

    def param(self, p):
        expr = self.param_expr(p)
        if self.sim_inplace() and p.name in self.SEND_OF:  # out of place under SimGrid: the receive side's
            return "%s ? %s : %s" % (self.sim_inplace(), self.param_expr(self.param_named(self.SEND_OF[p.name])), expr)
        return expr

    def param_named(self, name):
        return next(q for q in self.f.params if q.name == name)

    def param_expr(self, p):
        f, a, b, n = self.f, p.ann, p.base, p.name
        has = n in self.idx
        if "skip" in a:
            return self.skipped(p)
        if b == "void*" and "expose" in a:  # memory a window exposes: the engine's, for the window's life
            self.decl.append("void *m_%s = rp_win_mem(T, s_%s);" % (n, n))
            if f.ctx_is_win:  # attached to a dynamic window
                self.post.append("if (rc == MPI_SUCCESS) rp_win_attached(T, %d, m_%s);" % (self.fi(f.ctx), n))
            return "m_%s" % n
        if b == "void*" and "region" in a:  # a region attached earlier, by its number
            self.post.append("if (rc == MPI_SUCCESS) rp_win_detached(T, %d, %d);" % (self.fi(f.ctx), self.fi(n)))
            return "rp_win_region(T, %d, %d)" % (self.fi(f.ctx), self.fi(n))
        if b == "void*":
            buf = self.buffer(p)
            if p.rec:  # its "inplace" field
                sim = " && !RP_SIMGRID" if self.sim_inplace() and p.name == "sendbuf" else ""
                return "rp_int(T, %d) == 1%s ? MPI_IN_PLACE : %s" % (self.fi(p.rec.fields[0].name), sim, buf)
            return buf
        if b == "int" and not p.is_array:
            if p.rec.role == "peer" and f.ctx_is_win:  # a rank in the window's group
                return "rp_win_peer(T, %d, %d)" % (self.fi(f.ctx), self.fi(n))
            if p.rec.role == "assert":
                return "rp_assert(T, %d)" % self.fi(n)
            if p.rec.role == "lock_type":
                return "rp_lock_type(T, %d)" % self.fi(n)
            if p.rec.role == "peer":
                src = self.idx.get("status.src", -1)
                req = next((i for i, x in enumerate(f.fields) if x.kind == "REQ_NEW"), -1)
                if n == "dest" or f.persistent:
                    src = req = -1  # a persistent receive keeps its wildcard: every start may match another
                return "rp_peer(T, %s, %d, %d, %d)" % (self.ctx_comm(), self.fi(n), src, req)
            if p.rec.role == "root":
                return "rp_root(T, %d)" % self.fi(n)
            if p.rec.role == "tag":
                return "rp_tag(T, %d)" % self.fi(n)
            if "portable" in a:  # this library's constant (portable.table)
                return "rp_mpi_%s(rp_int64(T, %d))" % (a["portable"], self.fi(n))
            return "rp_int(T, %d)" % self.fi(n)
        if b in ("MPI_Aint", "MPI_Count") and not p.is_array:
            return "(%s)rp_int64(T, %d)" % (b, self.fi(n))
        if b == "int" and p.is_array and n == "array_of_indices":  # an output: room for incount
            return "rp_scratch_ints(T, rp_int(T, %d))" % self.fi("incount")
        if b in ("int", "MPI_Aint") and p.is_array and has:
            if p.dims.count("[") == 2:  # int ranges[][3]
                return "(int (*)[3])rp_ints(T, %d)" % self.fi(n)
            if "portable" in a:
                i = self.fi(n)
                return "rp_mpi_%s_ints(rp_ints%s(T, %d), T->field[%d].v, T->field[%d].n)" % (a["portable"], self.kept(),
                                                                                             i, i, i)
            return ("rp_ints%s(T, %d)" if b == "int" else "rp_aints%s(T, %d)") % (self.kept(), self.fi(n))
        if b == "int*":
            self.decl.append("int o_%s = 0;" % n)
            return "&o_%s" % n
        if b == "MPI_Aint*":
            self.decl.append("MPI_Aint o_%s = 0;" % n)
            return "&o_%s" % n
        if b == "MPI_Datatype" and not p.is_array:
            return "rp_dtype(T, %d)" % self.fi(n)
        if b == "MPI_Datatype" and p.is_array:
            return "rp_dtypes%s(T, %d)" % (self.kept(), self.fi(n))
        if b == "MPI_Datatype*":
            return self.handle_ptr(p, "MPI_Datatype", "dtype")
        if b == "MPI_Comm":
            if n == f.ctx:
                return n
            return "rp_comm(T, %d)" % self.fi(n)
        if b == "MPI_Comm*":
            return self.handle_ptr(p, "MPI_Comm", "comm")
        if b == "MPI_Op":
            return "rp_op(T, %d)" % self.fi(n)
        if b == "MPI_Op*":
            return self.handle_ptr(p, "MPI_Op", "op")
        if b == "MPI_Group":
            return "rp_group(T, %d)" % self.fi(n)
        if b == "MPI_Group*":
            return self.handle_ptr(p, "MPI_Group", "group")
        if b == "MPI_Message*":
            i = self.fi(n)
            if "use" in a:  # received
                self.decl.append("MPI_Message h_%s = rp_msg(T, %d);" % (n, i))
                self.post.append("if (rc == MPI_SUCCESS) rp_msg_forget(T, %d);" % i)
            else:
                self.decl.append("MPI_Message h_%s = MPI_MESSAGE_NULL;" % n)
                self.post.append("if (rc == MPI_SUCCESS) rp_msg_new(T, %d, h_%s);" % (i, n))
            return "&h_%s" % n
        if b == "MPI_Win":
            return n if n == f.ctx else "rp_win(T, %d)" % self.fi(n)
        if b == "MPI_Win*":
            i = self.fi(n)
            if "use" in a:  # freed
                self.decl.append("MPI_Win h_%s = rp_win(T, %d);" % (n, i))
                self.post.append("if (rc == MPI_SUCCESS) rp_win_forget(T, %d);" % i)
            else:
                mem = next(("m_" + q.name for q in f.params if "expose" in q.ann), "NULL")
                self.decl.append("MPI_Win h_%s = MPI_WIN_NULL;" % n)
                self.post.append("if (rc == MPI_SUCCESS) rp_win_new(T, %d, h_%s, %s);" % (i, n, mem))
            return "&h_%s" % n
        if b == "MPI_Request*" and not p.is_array:
            i = self.fi(n)
            if "use" in a:
                self.decl.append("MPI_Request h_%s = rp_req(T, %d);" % (n, i))
                if not f.outcome:
                    self.post.append("if (rc == MPI_SUCCESS) rp_req_%s(T, %d%s);" % (
                        ("forget", i, "") if "free" in a else ("back", i, ", h_" + n)))
            else:
                self.decl.append("MPI_Request h_%s = MPI_REQUEST_NULL;" % n)
                self.post.append("if (rc == MPI_SUCCESS) rp_req_new(T, %d, h_%s);" % (i, n))
            return "&h_%s" % n
        if b == "MPI_Request" and not p.is_array:
            return "rp_req(T, %d)" % self.fi(n)
        if b == "MPI_Request" and p.is_array:
            i = self.fi(n)
            self.decl.append("MPI_Request *h_%s = rp_reqs(T, %d);" % (n, i))
            if not f.outcome:  # completion calls: rp_outcome_after takes the array back
                self.post.append("if (rc == MPI_SUCCESS) rp_reqs_back(T, %d, h_%s);" % (i, n))
            return "h_%s" % n
        # ---- MPI-IO
        if b == "MPI_Offset" and not p.is_array:
            return "(MPI_Offset)rp_int64(T, %d)" % self.fi(n)
        if b == "MPI_Offset*":
            self.decl.append("MPI_Offset o_%s = 0;" % n)
            return "&o_%s" % n
        if b == "char*":  # a file name: mapped into the scratch directory; else the string itself
            return ("rp_io_name(T, %d)" if n == "filename" else "rp_string(T, %d)") % self.fi(n)
        if b == "MPI_File":
            return "rp_file(T, %d)" % self.fi(n)
        if b == "MPI_File*":
            i = self.fi(n)
            if "use" in a:
                self.decl.append("MPI_File h_%s = rp_file(T, %d);" % (n, i))
                self.post.append("if (rc == MPI_SUCCESS) rp_file_forget(T, %d);" % i)
            else:
                self.decl.append("MPI_File h_%s = MPI_FILE_NULL;" % n)
                self.post.append("if (rc == MPI_SUCCESS) rp_file_new(T, %d, h_%s);" % (i, n))
            return "&h_%s" % n
        if b == "MPI_Status*" and not p.is_array and f.category == "io":
            self.decl.append("MPI_Status o_%s;" % n)
            return "&o_%s" % n
        if b == "MPI_Status*" and not p.is_array:
            return "rp_status(T, %d)" % self.fi("status.src")
        if b == "MPI_Status" and p.is_array:
            return "rp_statuses(T, %d, %d)" % (self.fi("statuses.src"), self.fi(p.ann["n"]) if p.ann["n"] in self.idx else -1)
        raise SystemExit("%s: no replay rule for %r" % (f.name, p.decl))

    def handle_ptr(self, p, ctype, what):
        n, a, i = p.name, p.ann, self.fi(p.name)
        if "use" in a:
            self.decl.append("%s h_%s = rp_%s(T, %d);" % (ctype, n, what, i))
            if "free" in a:
                self.post.append("if (rc == MPI_SUCCESS) rp_%s_forget(T, %d);" % (what, i))
            else:
                self.post.append("if (rc == MPI_SUCCESS) rp_%s_back(T, %d, h_%s);" % (what, i, n))
        else:
            self.decl.append("%s h_%s = %s;" % (ctype, n, {"MPI_Datatype": "MPI_DATATYPE_NULL", "MPI_Op": "MPI_OP_NULL",
                                                          "MPI_Group": "MPI_GROUP_NULL", "MPI_Comm": "MPI_COMM_NULL"}[ctype]))
            self.post.append("if (rc == MPI_SUCCESS) rp_%s_new(T, %d, h_%s);" % (what, i, n))
        return "&h_%s" % n

    def skipped(self, p):
        """Parameters the trace does not keep: what the call needs instead."""
        b, n = p.base, p.name
        if b == "void*" and "addr" in p.ann:  # where the call stores a C pointer (MPI_Win_allocate's baseptr)
            self.decl.append("void *o_%s = NULL;" % n)
            return "&o_%s" % n
        if b in ("void*", "constvoid*"):
            return self.buffer(p)
        if b == "MPI_Info":
            return "MPI_INFO_NULL"
        if b == "MPI_User_function*":
            return "rp_user_function"
        if b == "MPI_Status*":
            return "rp_last_status(T)"
        if b == "int" and not p.is_array:  # a rank the trace leaves out: the caller's own
            return "rp_comm_rank(%s)" % self.ctx_comm()
        if b == "int" and p.is_array:
            if n.endswith("weights"):
                return "rp_unweighted()"
            return "rp_scratch_ints(T, rp_max_int(T))"
        if b == "int*":
            self.decl.append("int o_%s = 0;" % n)
            return "&o_%s" % n
        if b == "MPI_Datatype*":  # MPI_File_get_view's etype, filetype
            self.decl.append("MPI_Datatype o_%s = MPI_DATATYPE_NULL;" % n)
            return "&o_%s" % n
        if b == "char*":  # MPI_File_get_view's datarep
            self.decl.append("char o_%s[MPI_MAX_DATAREP_STRING + 1];" % n)
            return "o_%s" % n
        raise SystemExit("%s: no replay rule for skipped %r" % (self.f.name, p.decl))

    def emit(self):
        f = self.f
        out = ["static int rp_call_%s(rp_thread *T) {" % f.short]
        out += ["  " + x for x in self.decl]
        if f.outcome:
            arr = "h_array_of_requests" if any(p.name == "array_of_requests" for p in f.params) else (
                "&h_request" if any(p.name == "request" and p.base == "MPI_Request*" for p in f.params) else "NULL")
            out.append("  rp_outcome_before(T, TF_FN_%s, %s);" % (f.name, arr))
        out.append("  int rc = %s(%s);" % (f.name, ", ".join(self.args)))
        out.append("  T->last_return = rp_now();")
        out += ["  " + x for x in self.post]
        if f.outcome:
            # the live request(s) after the call (MPI_Request_get_status completes none)
            live = "h_array_of_requests" if any(p.name == "array_of_requests" for p in f.params) else (
                "&h_request" if any(p.name == "request" and p.base == "MPI_Request*" for p in f.params) else "NULL")
            out.append("  rp_outcome_after(T, TF_FN_%s, rc, %s);" % (f.name, live))
        out.append("  return rc;")
        out.append("}")
        return "\n".join(out)

    def emit_start(self):
        """The call started in its nonblocking form, or None: MPI_IX with the
        same arguments but the status, or MPI_Irecv + MPI_Isend for
        MPI_Sendrecv. Only calls that create no object and have no outcome."""
        f = self.f
        if f.outcome or self.post or f.engine:
            return None
        keep = [a for p, a in zip(f.params, self.args) if p.base != "MPI_Status*"]
        out = ["static int rp_start_%s(rp_thread *T, MPI_Request *req) {" % f.short]
        out += ["  " + x for x in self.decl]
        if f.name == "MPI_Sendrecv":
            # a name test on purpose: the one call started as two calls, code of its own
            # keep: sbuf scount stype dest stag rbuf rcount rtype src rtag comm
            out.append("  int rc = MPI_Irecv(%s, &req[0]);" % ", ".join(keep[5:11]))
            out.append("  if (rc == MPI_SUCCESS) rc = MPI_Isend(%s, %s, &req[1]);" % (", ".join(keep[0:5]), keep[10]))
            out.append("  else req[1] = MPI_REQUEST_NULL;")
        elif f.nonblocking:
            out.append("  int rc = %s(%s, &req[0]);" % (f.nonblocking.name, ", ".join(keep)))
            out.append("  req[1] = MPI_REQUEST_NULL;")
        else:
            return None
        out.append("  return rc;")
        out.append("}")
        return "\n".join(out)


def fn_table(ctype, name, entries):
    """A table by schema id; entries: (Func, C expression). An entry of a
    function the MPI library may lack ({mpi=4}: an MPI-3.1 library, or
    SimGrid's SMPI) is 0 there: the engine refuses a trace that calls it
    before any call (rp_mpi_version)."""
    out = ["const %s %s[TF_FN_COUNT] = {" % (ctype, name)]
    for f, e in entries:
        if f.mpi <= 3 or e == "0":
            out.append("  %s," % e)
        else:
            out += ["#if MPI_VERSION >= %d" % f.mpi, "  %s," % e, "#else", "  0, /* %s is MPI %d.0 */" % (f.name, f.mpi),
                    "#endif"]
    return out + ["};", ""]


def main():
    table, outdir = sys.argv[1], sys.argv[2]
    funcs = mpitable.parse_table(table)
    out = ["/* tf_replay_calls.c — generated by gen/emit_replay.py from gen/mpi.table; do not edit.",
           " * One function per MPI function: the recorded event back into the call. */",
           '#include "replay.h"', ""]
    portable = emit_portable.from_portable(emit_portable.sets(table))
    out += ['#include "tf_replay_portable.h"', ""] + portable + [""]
    h = ["/* tf_replay_portable.h — generated by gen/emit_replay.py from gen/portable.table; do not edit.",
         " * This MPI library's constant for each portable value the trace keeps. */",
         "#ifndef TF_REPLAY_PORTABLE_H", "#define TF_REPLAY_PORTABLE_H", "#include <stdint.h>", ""]
    h += [l.rstrip(" {") + ";" for l in portable if l.startswith("int")]
    h += ["", "#endif", ""]
    open(outdir + "/tf_replay_portable.h", "w").write("\n".join(h))
    names, starts = [], []
    for f in funcs:
        if f.engine:
            names.append((f, "0"))
            starts.append((f, "0"))
            continue
        c = Call(f)
        c.build()
        code = [c.emit()]
        names.append((f, "rp_call_" + f.short))
        start = c.emit_start()
        if start:
            code.append(start)
        out.append(emit_wrappers.since(f, "\n\n".join(code)))
        out.append("")
        starts.append((f, "rp_start_" + f.short if start else "0"))
    out += fn_table("rp_call_fn", "rp_calls", names)
    out += fn_table("rp_start_fn", "rp_starts", starts)
    out.append("const uint8_t rp_mpi_version[TF_FN_COUNT] = {")
    out += ["  %d, /* %s */" % (f.mpi, f.name) for f in funcs]
    out += ["};", ""]
    out.append("const uint8_t rp_io[TF_FN_COUNT] = {")
    out += ["  %d, /* %s */" % (1 if f.category == "io" else 0, f.name) for f in funcs]
    out += ["};", ""]
    out.append("const uint8_t rp_nosim[TF_FN_COUNT] = {")
    out += ["  %d, /* %s */" % (0 if f.sim else 1, f.name) for f in funcs]
    out += ["};", ""]
    open(os.path.join(outdir, "tf_replay_calls.c"), "w").write("\n".join(out))


if __name__ == "__main__":
    main()
