#!/usr/bin/env python3
"""gen_wrappers.py — generate tracefold's MPI wrappers from mpi.table.

One table (mpi.table) lists the C prototypes of every intercepted MPI
function. From it this script writes:

  tf_schema.h / tf_schema.c  function ids (TF_FN_MPI_Send, ...) and each
                             function's field list: the schema of its
                             parameter vector in the trace;
  tf_wrappers.c              one C wrapper per function: record the
                             parameters, call PMPI_<name>, record outcomes;
  tf_fortran.c               Fortran (mpif.h / use mpi) entry points that
                             convert handles, record through the same code
                             and call the Fortran PMPI symbol. Only built
                             for MPI libraries whose Fortran bindings bypass
                             the C MPI_ symbols (Open MPI).

Field rules: what a parameter records follows from its type and name.
  void* buffers           nothing (contents and addresses are never kept);
                          a collective's sendbuf records "inplace"
  int dest/source         peer: offset from the caller's rank in comm
  int root                root (absolute)     int *tag                tag
  int *count*             count               other ints              int
  MPI_Datatype            id and size; with the matching count, bytes
  MPI_Comm / MPI_Comm*    communicator id / new or freed communicator id
  MPI_Request*            new request id, or (use) the request consumed
  MPI_Status*             matched source, tag and bytes (receives only)
  MPI_Op, MPI_Group, MPI_Message: ids, created or used
Annotations in {} adjust this (see the head of mpi.table).

Usage: gen_wrappers.py mpi.table OUTDIR
"""
import re
import sys

# ---------------------------------------------------------------- parsing

def annotations(text):
    """Split a trailing {a, k=v} off text: (text, {a: True, k: "v"})."""
    ann = {}
    m = re.search(r"\{([^}]*)\}\s*$", text)
    if not m:
        return text, ann
    for part in split_top(m.group(1), ","):
        part = part.strip()
        if "=" in part:
            k, v = part.split("=", 1)
            ann[k.strip()] = v.strip()
        elif part:
            ann[part] = True
    return text[: m.start()].strip(), ann


class Param:
    def __init__(self, text):
        text, ann = annotations(text)
        m = re.match(r"^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$", text.strip())
        if not m:
            raise SystemExit("cannot parse parameter: %r" % text)
        self.decl = text.strip()
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.dims = m.group(3)
        self.ann = ann
        self.base = self.ctype.replace("const", "").replace(" ", "")
        self.is_array = bool(self.dims)

    def c_param(self):
        return self.decl


def split_top(s, sep):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


class Func:
    def __init__(self, name, params, ann, category):
        self.name = name
        self.params = params
        self.ann = ann
        self.category = category
        self.short = name[4:]


def parse_table(path):
    funcs, category = [], None
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^\[(\w+)\]$", line)
        if m:
            category = m.group(1)
            continue
        proto, ann = annotations(line) if line.endswith("}") else (line, {})
        m = re.match(r"^(MPI_\w+)\((.*)\)$", proto)
        if not m:
            raise SystemExit("bad table line: %r" % line)
        plist = [] if m.group(2).strip() == "void" else [Param(p) for p in split_top(m.group(2), ",")]
        funcs.append(Func(m.group(1), plist, ann, category))
    return funcs

# ---------------------------------------------------------- field rules

PEER_NAMES = {"dest", "source", "rank_source", "rank_dest"}
TAG_NAMES = {"tag", "sendtag", "recvtag"}
COMM_CTX_NAMES = ["comm", "comm_old", "local_comm", "intercomm", "comm1"]
NEWCOMM_NAMES = {"newcomm", "comm_cart", "comm_graph", "comm_dist_graph", "newintercomm", "newintracomm"}


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


def count_prefix(name):
    for suffix in ("counts", "count"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def dtype_prefix(name):
    if name in ("datatype", "oldtype"):
        return ""
    for suffix in ("types", "type"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


class Gen:
    """Builds the schema and the C code of one wrapper."""

    def __init__(self, f):
        self.f = f
        self.fields = []  # (name, kind, is_array)
        self.pre = []
        self.post = []
        self.decl = []  # declarations before the pre code
        self.call_args = []
        self.uses_nbr = False
        self.bytes_done = set()
        self.snap = False  # a request of the call's, looked up before it (use)
        self.snap_freed = False  # ... and released by it (free: MPI_Request_free)
        self.snaps_n = None  # the length of its array of requests (use)

    def field(self, name, kind, is_array=False):
        self.fields.append((name, kind, is_array))

    def build(self):
        f = self.f
        ctx = None
        for p in f.params:
            if p.base == "MPI_Comm" and p.name in COMM_CTX_NAMES and ctx is None:
                ctx = p.name
        self.ctx = ctx
        if ctx:
            self.decl.append("tf_comm_info ci = tf_comm_get(%s);" % ctx)
        names = {p.name for p in f.params}
        for p in f.params:
            if re.search(r"\b(INDEG|OUTDEG)\b", p.ann.get("n", "")):
                self.uses_nbr = True
        if self.uses_nbr:
            self.decl.append("tf_degrees tf_nbr = tf_neighbor_degrees(%s);" % ctx)
        self.dtypes = {}  # prefix -> (param, cond)
        self.counts = {}  # prefix -> (param, cond)
        for p in f.params:
            self.param(p, names)
            self.call_args.append(self.call_arg(p))
        self.finish_category()

    # -- helpers
    def cond(self, p):
        c = p.ann.get("if")
        return expand(c) if c else None

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

    def param(self, p, names):
        f, a, b, n = self.f, p.ann, p.base, p.name
        if "skip" in a:
            return
        cond = self.cond(p)
        # ---- buffers
        if b in ("void*",):
            if (n == "sendbuf" and f.category == "coll") or "inplace" in a:
                self.field(n.replace("buf", "") + "inplace" if n != "sendbuf" else "inplace", "INPLACE")
                self.pre.append("tf_put(&c, (const void *)%s == MPI_IN_PLACE);" % n)
            return
        # ---- integers
        if b == "int" and not p.is_array:
            if n in PEER_NAMES:
                self.field(n, "PEER")
                self.put_scalar(self.pre, cond, "tf_peer(&ci, %s)" % n)
            elif n == "root":
                self.field(n, "ROOT")
                self.put_scalar(self.pre, cond, "tf_root_val(%s)" % n)
            elif n in TAG_NAMES:
                self.field(n, "TAG")
                self.put_scalar(self.pre, cond, "tf_tag_val(%s)" % n)
            elif n.endswith("count") and f.category in ("p2p", "coll"):
                self.field(n, "COUNT")
                self.put_scalar(self.pre, cond, n)
                self.counts[count_prefix(n)] = (p, cond)
                self.maybe_bytes(count_prefix(n))
            else:
                self.field(n, "INT")
                self.put_scalar(self.pre, cond, "tf_int_val(%s)" % n)
            return
        if b == "MPI_Aint" and not p.is_array:
            self.field(n, "INT")
            self.put_scalar(self.pre, cond, "(int64_t)%s" % n)
            return
        if b in ("int", "MPI_Aint") and p.is_array and "n" in a:
            kind = "COUNT" if n.endswith("counts") else "INT"
            src = "((const int *)%s)" % n if b == "int" else n
            self.field(n, kind, True)
            self.put_array(self.pre, cond, a["n"], "(int64_t)%s[i]" % src)
            if kind == "COUNT":
                self.counts[count_prefix(n)] = (p, cond)
                self.maybe_bytes(count_prefix(n))
            return
        if b == "int" and p.is_array and n == "array_of_indices":
            return  # recorded by the completion logic
        if b == "int*":
            if n == "flag":
                self.field(n, "FLAG")
                self.post.append("tf_put(&c, *flag);")
            elif n == "index":
                self.field(n, "INDEX")
                self.post.append("tf_put(&c, *index == MPI_UNDEFINED ? TF_UNDEFINED : *index);")
            elif n == "outcount":
                pass  # recorded with array_of_indices
            elif "out" in a:
                if n in PEER_NAMES:
                    self.field(n, "PEER")
                    self.post.append("tf_put(&c, tf_peer(&ci, *%s));" % n)
                else:
                    self.field(n, "INT")
                    self.post.append("tf_put(&c, tf_int_val(*%s));" % n)
            else:
                raise SystemExit("%s: int* %s needs {out} or {skip}" % (f.name, n))
            return
        if b == "MPI_Aint*" and "out" in a:
            self.field(n, "INT")
            self.post.append("tf_put(&c, (int64_t)*%s);" % n)
            return
        # ---- datatypes
        if b == "MPI_Datatype" and not p.is_array:
            self.field(n, "DTYPE")
            self.field(n + "_size", "DTSIZE")
            c = cond or "1"
            self.decl.append("tf_dtype_ref dt_%s = (%s) ? tf_dtype_get(%s) : tf_dtype_none();" % (n, c, n))
            self.pre.append("tf_put(&c, dt_%s.id); tf_put(&c, dt_%s.size);" % (n, n))
            pre = dtype_prefix(n)
            self.dtypes[pre if pre is not None else n] = (p, cond)
            self.maybe_bytes(pre)
            return
        if b == "MPI_Datatype" and p.is_array:
            self.field(n, "DTYPE", True)
            self.field(n + "_size", "DTSIZE", True)
            c = cond or "1"
            self.put_array(self.pre, c, a["n"], "tf_dtype_get(%s[i]).id" % n)
            self.put_array(self.pre, c, a["n"], "tf_dtype_get(%s[i]).size" % n)
            self.dtypes[dtype_prefix(n)] = (p, cond)
            self.maybe_bytes(dtype_prefix(n))
            return
        if b == "MPI_Datatype*":
            if "use" in a:
                self.field(n, "DTYPE")
                self.field(n + "_size", "DTSIZE")
                self.decl.append("tf_dtype_ref dt_%s = tf_dtype_get(*%s);" % (n, n))
                self.pre.append("tf_put(&c, dt_%s.id); tf_put(&c, dt_%s.size);" % (n, n))
                if "free" in a:
                    self.decl.append("MPI_Datatype old_%s = *%s;" % (n, n))
                    self.post.append("if (rc == MPI_SUCCESS) tf_dtype_forget(old_%s);" % n)
            else:
                self.field(n, "DTYPE_NEW")
                self.field(n + "_size", "DTSIZE")
                self.post.append("{ tf_dtype_ref nd = tf_dtype_new(rc == MPI_SUCCESS ? *%s : MPI_DATATYPE_NULL);"
                                 " tf_put(&c, nd.id); tf_put(&c, nd.size); }" % n)
            return
        # ---- communicators
        if b == "MPI_Comm":
            self.field(n, "COMM")
            if n == self.ctx:
                self.pre.append("tf_put(&c, ci.id);")
            else:
                self.put_scalar(self.pre, cond, "tf_comm_get(%s).id" % n)
            return
        if b == "MPI_Comm*":
            if "use" in a:
                self.field(n, "COMM")
                self.decl.append("tf_comm_info ci = tf_comm_get(*%s);" % n)
                self.pre.append("tf_put(&c, ci.id);")
                if "free" in a:
                    self.decl.append("MPI_Comm old_%s = *%s;" % (n, n))
                    self.post.append("if (rc == MPI_SUCCESS) tf_comm_forget(old_%s);" % n)
            elif n in NEWCOMM_NAMES:
                self.field(n, "COMM_NEW")
                salt = "tag" if "tag" in names else "0"
                kind = "TF_NEWCOMM_" + {"inter": "INTER", "group": "GROUP", None: "PARENT"}[a.get("id")]
                self.post.append("tf_put(&c, tf_comm_new(&ci, rc == MPI_SUCCESS ? *%s : MPI_COMM_NULL, %s, %s));"
                                 % (n, kind, salt))
            else:
                raise SystemExit("%s: unknown MPI_Comm* %s" % (f.name, n))
            return
        # ---- ops, groups, messages
        if b == "MPI_Op":
            self.field(n, "OP")
            self.pre.append("tf_put(&c, tf_op_get(%s));" % n)
            return
        if b == "MPI_Op*":
            if "use" in a:
                self.field(n, "OP")
                self.decl.append("MPI_Op old_%s = *%s;" % (n, n))
                self.pre.append("tf_put(&c, tf_op_get(old_%s));" % n)
                if "free" in a:
                    self.post.append("if (rc == MPI_SUCCESS) tf_op_forget(old_%s);" % n)
            else:
                self.field(n, "OP_NEW")
                self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_op_new(*%s) : TF_NULL_HANDLE);" % n)
            return
        if b == "MPI_Group":
            self.field(n, "GROUP")
            self.pre.append("tf_put(&c, tf_group_get(%s));" % n)
            return
        if b == "MPI_Group*":
            if "use" in a:
                self.field(n, "GROUP")
                self.decl.append("MPI_Group old_%s = *%s;" % (n, n))
                self.pre.append("tf_put(&c, tf_group_get(old_%s));" % n)
                if "free" in a:
                    self.post.append("if (rc == MPI_SUCCESS) tf_group_forget(old_%s);" % n)
            else:
                self.field(n, "GROUP_NEW")
                self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_group_new(*%s) : TF_NULL_HANDLE);" % n)
            return
        if b == "MPI_Message*":
            if "use" in a:
                self.field(n, "MSG")
                self.decl.append("tf_msg_snap msg = tf_msg_take(*%s);" % n)
                self.decl.append("tf_comm_info ci = msg.ci;")
                self.pre.append("tf_put(&c, msg.id);")
            else:
                self.field(n, "MSG_NEW")
                flag = "*flag" if "flag" in names else "1"
                self.post.append("tf_put(&c, (rc == MPI_SUCCESS && %s) ? tf_msg_new(*%s, &ci) : TF_NONE);" % (flag, n))
            return
        # ---- requests
        if b == "MPI_Request*" and not p.is_array:
            if "use" in a:
                self.field(n, "REQ")
                self.decl.append("tf_req_snap snap = tf_req_get(*%s);" % n)
                self.pre.append("tf_put(&c, snap.id);")
                self.snap, self.snap_freed = True, "free" in a
            else:
                self.field(n, "REQ_NEW")
                kind = "TF_REQ_RECV" if "recv" in a else (
                    "TF_REQ_SEND" if f.category == "p2p" else "TF_REQ_COLL")
                pers = "1" if "persistent" in f.ann else "0"
                self.post.append("tf_put(&c, rc == MPI_SUCCESS ? tf_req_new(*%s, %s, %s, &ci) : TF_NULL_HANDLE);"
                                 % (n, kind, pers))
            return
        if b == "MPI_Request" and not p.is_array and "use" in a:
            self.field(n, "REQ")
            self.decl.append("tf_req_snap snap = tf_req_get(%s);" % n)
            self.pre.append("tf_put(&c, snap.id);")
            self.snap, self.snap_freed = True, "free" in a
            return
        if b == "MPI_Request" and p.is_array and "use" in a:
            self.field(n, "REQ", True)
            self.decl.append("tf_req_snap *snaps = tf_req_get_all(&c, %s, %s);" % (n, expand(a["n"])))
            self.snaps_n = expand(a["n"])
            self.pre.append("tf_put_req_ids(&c, snaps, %s);" % expand(a["n"]))
            return
        # ---- statuses
        if b == "MPI_Status*" and not p.is_array:
            self.decl.append("MPI_Status tf_st_local; MPI_Status *tf_st = %s == MPI_STATUS_IGNORE ? &tf_st_local : %s;"
                             % (n, n))
            for suffix, kind in (("src", "SRC"), ("tag", "MTAG"), ("bytes", "MBYTES")):
                self.field("status." + suffix, kind)
            self.status_post_single()
            return
        if b == "MPI_Status" and p.is_array:
            self.decl.append("MPI_Status *tf_sts = %s == MPI_STATUSES_IGNORE ? tf_statuses_scratch(&c, %s) : %s;"
                             % (n, expand(a["n"]), n))
            if f.ann.get("complete") == "some":
                self.field("array_of_indices", "INDEX", True)
            for suffix, kind in (("src", "SRC"), ("tag", "MTAG"), ("bytes", "MBYTES")):
                self.field("statuses." + suffix, kind, True)
            self.status_post_array()
            return
        raise SystemExit("%s: no rule for parameter %r" % (f.name, p.decl))

    def maybe_bytes(self, prefix):
        """Emit a bytes field for each count whose datatype is now known: the
        datatype of the same prefix (sendcount/sendtype), else the plain
        "datatype" (MPI_Reduce_scatter's recvcounts)."""
        if prefix is None or self.f.category not in ("p2p", "coll"):
            return
        for cprefix in list(self.counts):
            dprefix = cprefix if cprefix in self.dtypes else ("" if "" in self.dtypes else None)
            if dprefix is not None and cprefix not in self.bytes_done:
                self.bytes_done.add(cprefix)
                self.emit_bytes(cprefix, dprefix)

    def emit_bytes(self, prefix, dprefix):
        cp, ccond = self.counts[prefix]
        dp, dcond = self.dtypes[dprefix]
        name = prefix + "bytes"
        self.field(name, "BYTES")
        conds = [x for x in (ccond, dcond) if x]
        cond = " && ".join("(%s)" % x for x in dict.fromkeys(conds)) or "1"
        if cp.is_array and dp.is_array:
            val = "tf_bytes_w(%s, %s, %s)" % (cp.name, dp.name, expand(cp.ann["n"]))
        elif cp.is_array:
            val = "tf_bytes(tf_sum_ints(%s, %s), dt_%s.size)" % (cp.name, expand(cp.ann["n"]), dp.name)
        else:
            val = "tf_bytes(%s, dt_%s.size)" % (cp.name, dp.name)
        self.pre.append("tf_put(&c, (%s) ? (int64_t)(%s) : TF_NONE);" % (cond, val))

    def flag(self):
        """" && *flag" when the call has a flag output (the Test forms, Iprobe):
        what it reports happened only if *flag is set."""
        return " && *flag" if any(p.name == "flag" for p in self.f.params) else ""

    def status_post_single(self):
        how = self.f.ann.get("complete")
        if how == "any":
            ok = "rc == MPI_SUCCESS && *index != MPI_UNDEFINED" + self.flag()
            self.post.append("tf_put_req_status(&c, (%s) && snaps ? &snaps[*index] : NULL, tf_st, %s);" % (ok, ok))
        elif self.snap:  # the status of the call's request (completed, or only looked at)
            self.post.append("tf_put_req_status(&c, &snap, tf_st, rc == MPI_SUCCESS%s);" % self.flag())
        else:  # a receive or a probe: the status of the matched message
            self.post.append("tf_put_status(&c, &ci, tf_st, rc == MPI_SUCCESS%s);" % self.flag())

    def status_post_array(self):
        how = self.f.ann.get("complete")
        if how == "all":
            self.post.append("tf_put_req_statuses(&c, snaps, %s, tf_sts, rc == MPI_SUCCESS%s);"
                             % (self.snaps_n, self.flag()))
        elif how == "some":
            self.post.append("tf_put_some_statuses(&c, snaps, rc == MPI_SUCCESS ? *outcount : MPI_UNDEFINED,"
                             " array_of_indices, tf_sts);")
        else:
            raise SystemExit("%s: an array of statuses needs {complete=all} or {complete=some}" % self.f.name)

    def finish_category(self):
        """Request bookkeeping after completion calls ({complete=...}) and
        MPI_Request_free ({free} request)."""
        how, flag = self.f.ann.get("complete"), self.flag()
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
        elif how is not None:
            raise SystemExit("%s: unknown {complete=%s}" % (self.f.name, how))
        if self.snap_freed:
            self.post.append("if (rc == MPI_SUCCESS) tf_req_forget(&snap);")

# ------------------------------------------------------------- emitting

def proto(f, prefix="MPI_"):
    params = ", ".join(p.c_param() for p in f.params) or "void"
    if "varargs" in f.ann:
        params += ", ..."
    return "int %s%s(%s)" % (prefix, f.short, params)


def emit_wrapper(f, g, fn_id):
    args = ", ".join(g.call_args)
    out = [proto(f) + " {"]
    pmpi = "PMPI_%s(%s)" % (f.short, args)
    plain = "PMPI_%s(%s)" % (f.short, ", ".join(p.name for p in f.params))
    if "init" in f.ann:
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
    if "finalize" in f.ann:
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
    if "abort" in f.ann:
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
    out.append("  return rc;")
    out.append("}")
    return "\n".join(out)


# ---- Fortran entry points (mpif.h / use mpi ABI: everything by reference)

F_HANDLE = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Group": "Group",
            "MPI_Request": "Request", "MPI_Message": "Message"}


def fortran_ok(f):
    """Functions whose Fortran form maps mechanically onto the C one."""
    if "varargs" in f.ann or "nofortran" in f.ann:
        return False
    for p in f.params:
        b = p.base.rstrip("*")
        if p.base in ("MPI_Status*", "MPI_Status") or b in F_HANDLE or b in ("int", "void", "MPI_Aint"):
            continue
        if "skip" in p.ann and b in ("MPI_Info", "MPI_User_function"):
            continue
        return False
    return True


def emit_fortran(f, fn_id):
    """A Fortran entry point: convert arguments to C, run the C recording code
    (the wrapper body, with PMPI_X replaced by the Fortran pmpi_x_), convert
    outputs back."""
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
    funcs = parse_table(table)
    gens = []
    for f in funcs:
        g = Gen(f)
        g.build()
        gens.append(g)
    # schema
    h = ["/* tf_schema.h — generated by gen_wrappers.py from mpi.table; do not edit. */",
         "#ifndef TF_SCHEMA_H", "#define TF_SCHEMA_H", '#include "tracefold.h"', "enum tf_fn_id {"]
    for i, f in enumerate(funcs):
        h.append("  TF_FN_%s = %d," % (f.name, i))
    h += ["  TF_FN_COUNT = %d" % len(funcs), "};",
          "extern const tf_func_desc tf_schema[TF_FN_COUNT];", "#endif", ""]
    open(outdir + "/tf_schema.h", "w").write("\n".join(h))
    c = ["/* tf_schema.c — generated by gen_wrappers.py from mpi.table; do not edit. */",
         '#include "tf_schema.h"', ""]
    for f, g in zip(funcs, gens):
        if g.fields:
            c.append("static const tf_field_desc fields_%s[] = {%s};" % (f.name, ", ".join(
                '{"%s", TF_FIELD_%s, %d}' % (n, k, int(a)) for n, k, a in g.fields)))
    c.append("const tf_func_desc tf_schema[TF_FN_COUNT] = {")
    for f, g in zip(funcs, gens):
        c.append('  {"%s", %d, %s},' % (f.name, len(g.fields), ("fields_" + f.name) if g.fields else "0"))
    c += ["};", ""]
    open(outdir + "/tf_schema.c", "w").write("\n".join(c))
    # C wrappers
    w = ["/* tf_wrappers.c — generated by gen_wrappers.py from mpi.table; do not edit.",
         " * One PMPI wrapper per intercepted MPI function. */",
         '#include "recorder.h"', '#include "tf_schema.h"', ""]
    for f, g in zip(funcs, gens):
        w.append(emit_wrapper(f, g, "TF_FN_" + f.name))
        w.append("")
    open(outdir + "/tf_wrappers.c", "w").write("\n".join(w))
    # Fortran entry points: static inline C recorders (wrapper bodies calling
    # the C PMPI), then the Fortran symbols.
    fo = ["/* tf_fortran.c — generated by gen_wrappers.py from mpi.table; do not edit.",
          " * Fortran entry points for MPI libraries whose Fortran bindings call PMPI_",
          " * directly (Open MPI): convert handles, record through the C path. */",
          '#include "recorder.h"', '#include "tf_schema.h"', ""]
    names = []
    for f, g in zip(funcs, gens):
        if not fortran_ok(f):
            continue
        text = emit_fortran(f, "TF_FN_" + f.name)
        if text is None:
            continue
        rec = emit_wrapper(f, g, "TF_FN_" + f.name)
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
