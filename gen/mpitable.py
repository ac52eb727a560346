"""mpitable.py — reads mpi.table and derives the trace schema from it.

This is the one place that knows what the table means: the functions, their
parameters and annotations, every per-function property (the annotations
after a prototype), and each function's schema: the fields of its value
vector in the trace, in order, with the field rules below. The emitters
(emit_*.py) import it and turn the result into code; none of them decides
what is recorded.

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
  MPI_Win / MPI_Win*      window id / new or freed window id ([rma]: the
                          window is the context; target_rank and rank are
                          peers relative to the caller's rank in its group)
  int assert, lock_type   ([rma]) portable values: MPI_MODE_* bits and
                          MPI_LOCK_* as tracefold.h's TF_MODE_* / TF_LOCK_*
  MPI_File / MPI_File*    ([io]) file id (symbolic, the same on every rank
                          that opened it together) / new or closed file id
  MPI_Offset, MPI_Offset* offset or displacement (64-bit), in or out
  MPI_Count count         a count (64-bit; partitioned communication's
                          count per partition: its bytes are partitions x
                          count x size)
  char *                  ([io]) a string: its characters (NAME array)
  MPI_Status* ([io])      the bytes read or written (status.bytes)
Annotations in {} adjust this (see the head of mpi.table).

Buffer layouts: what memory a buffer argument spans, from the call's
other arguments (the replay engine sizes its buffers from it; nothing of it
is recorded). A buffer's {layout=...} annotation says it, and every buffer
of a collective ([coll]) must have one; elsewhere, a buffer without one
whose name gives a prefix (sendbuf: send, recvbuf: recv; buf, buffer,
inbuf, inoutbuf: none) spans one block of the count and datatype of that
prefix (sendcount and sendtype; count and datatype). See Layout and
derive_layout.

The result, per function (Func): params (Param, each with .rec, and
.layout for buffers), ann (its annotations), the properties below, ctx (the
communicator peers are relative to), recs (Rec: how each recorded
parameter, or derived value, becomes fields, in value-vector order) and
fields (Field: name, kind, is_array; the schema).
"""
import os
import re
from collections import namedtuple

# ---------------------------------------------------------------- parsing


def split_top(s, sep):
    """Split s at sep outside brackets."""
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
        self.decl = text.strip()  # the C declaration, without annotations
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.dims = m.group(3)
        self.ann = ann
        self.base = self.ctype.replace("const", "").replace(" ", "")
        self.is_array = bool(self.dims)
        self.rec = None  # how it is recorded (derive), None if it is not
        self.layout = None  # buffers: the memory they span (Layout, derive_layout)


FUNC_ANN = {"init", "finalize", "abort", "varargs", "complete", "outcome", "persistent", "engine", "nofortran",
            "nosim", "simoutofplace", "mpi"}
PARAM_ANN = {"n", "if", "out", "use", "free", "inplace", "recv", "id", "skip", "addr", "layout", "portable", "expose",
             "region"}
COMPLETE = ("one", "any", "all", "some")
SMPI_MPI_VERSION = 3  # the MPI version SimGrid's SMPI declares (smpi.h, SimGrid 3.32)


class Func:
    def __init__(self, name, params, ann, category):
        self.name = name
        self.params = params
        self.ann = ann
        self.category = category
        self.short = name[4:]
        # properties (function annotations, see the head of mpi.table)
        self.lifecycle = next((k for k in ("init", "finalize", "abort") if k in ann), None)
        self.varargs = "varargs" in ann
        self.complete = ann.get("complete")  # one any all some, or None
        self.outcome = "outcome" in ann or self.complete is not None
        self.persistent = "persistent" in ann
        self.engine = "engine" in ann
        self.fortran = "nofortran" not in ann  # a generated Fortran entry point (emit_fortran.py)
        # {mpi=4}: the MPI version that introduced it; the generated code is
        # compiled only where the library's MPI_VERSION is as high
        self.mpi = int(ann.get("mpi", 3))
        if self.mpi not in (3, 4):
            raise SystemExit("%s: unknown {mpi=%s} (3 or 4)" % (name, ann["mpi"]))
        # SimGrid's SMPI implements it (SMPI 3.32 is an MPI 3.1 library: none of MPI 4.0)
        self.sim = "nosim" not in ann and self.mpi <= SMPI_MPI_VERSION
        self.sim_out_of_place = "simoutofplace" in ann  # ... but not in place
        # derived: an int *flag output says whether what the call reports
        # happened (the Test forms, MPI_Iprobe, MPI_Improbe)
        self.flag = any(p.name == "flag" for p in params)
        self.nonblocking = None  # its nonblocking form (Func), see parse_table
        for k in ann:
            if k not in FUNC_ANN:
                raise SystemExit("%s: unknown function annotation {%s}" % (name, k))
        if self.complete not in (None,) + COMPLETE:
            raise SystemExit("%s: unknown {complete=%s}" % (name, self.complete))
        for p in params:
            for k in p.ann:
                if k not in PARAM_ANN:
                    raise SystemExit("%s: %s: unknown annotation {%s}" % (name, p.name, k))
        derive(self)

    def creates_request(self):
        return any(p.base == "MPI_Request*" and not p.is_array and "use" not in p.ann for p in self.params)


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
    sets = parse_portable(os.path.join(os.path.dirname(os.path.abspath(path)), "portable.table"))
    for f in funcs:
        for p in f.params:
            if "portable" in p.ann and p.ann["portable"] not in sets:
                raise SystemExit("%s: %s {portable=%s}: no such set in portable.table" % (f.name, p.name,
                                                                                        p.ann["portable"]))
    # The nonblocking form of MPI_X is MPI_IX (MPI's naming) when the table
    # has it, it creates a request (not MPI_Iprobe for MPI_Probe, nor
    # MPI_Intercomm_create for itself) and every library that has MPI_X has
    # it (not MPI_Isendrecv_replace, MPI 4.0, for MPI_Sendrecv_replace).
    by_name = {f.name: f for f in funcs}
    for f in funcs:
        nb = by_name.get("MPI_I" + f.name[4].lower() + f.name[5:])
        if nb is not None and nb is not f and nb.creates_request() and nb.mpi <= f.mpi:
            f.nonblocking = nb
    return funcs

def parse_portable(path):
    """portable.table: {set: (closed, [(portable value, MPI constant), ...])}, in the file's order."""
    sets = {}
    for raw in open(path):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        w = line.split()
        if len(w) != 4 or w[1] not in ("closed", "open") or not re.match(r"^-?\d+$", w[2]):
            raise SystemExit("portable.table: bad line %r" % raw)
        closed, pairs = sets.setdefault(w[0], (w[1] == "closed", []))
        if closed != (w[1] == "closed"):
            raise SystemExit("portable.table: set %s is both open and closed" % w[0])
        pairs.append((int(w[2]), w[3]))
    return sets


# ---------------------------------------------------------- field rules

PEER_NAMES = {"dest", "source", "rank_source", "rank_dest"}
TAG_NAMES = {"tag", "sendtag", "recvtag"}
COMM_CTX_NAMES = ["comm", "comm_old", "local_comm", "intercomm", "comm1"]
RMA_PEER_NAMES = {"target_rank", "rank"}  # [rma]: ranks in the window's group
NEWCOMM_NAMES = {"newcomm", "comm_cart", "comm_graph", "comm_dist_graph", "newintercomm", "newintracomm"}

Field = namedtuple("Field", "name kind is_array")


class Rec:
    """How one parameter (or, for "bytes", a count with its datatype) is
    recorded. role names the rule (the emitters switch on it); cond is the
    parameter's if= expression (None: always); fields are what it adds to
    the value vector. The roles in POST (outputs) are taken after the call,
    the others before it."""

    def __init__(self, role, param, fields, **extra):
        self.role = role
        self.param = param
        self.cond = param.ann.get("if") if param is not None else None
        self.fields = [Field(n, k, a) for n, k, a in fields]
        self.__dict__.update(extra)


POST = {"flag", "index", "out_peer", "out_int", "out_aint", "dtype_new", "comm_new", "op_new", "group_new",
        "msg_new", "req_new", "status", "statuses", "win_new", "out_offset", "file_new", "io_status"}
COUNTED = ("p2p", "coll", "rma", "io")  # categories whose counts are counts of elements (with bytes)


def count_prefix(name):
    for suffix in ("counts", "count"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def dtype_prefix(name):
    if name in ("datatype", "oldtype"):
        return ""
    if name.endswith("_datatype"):  # [rma]: origin_datatype, target_datatype, result_datatype
        return name[: -len("datatype")]
    for suffix in ("types", "type"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def derive(f):
    """f.ctx, f.recs, f.fields and each parameter's .rec."""
    f.ctx = None
    for p in f.params:
        if p.base == "MPI_Comm" and p.name in COMM_CTX_NAMES and f.ctx is None:
            f.ctx = p.name
    # [rma]: the window is the context (peers are ranks in its group), or,
    # where the call makes a window, the communicator it is made over
    f.ctx_is_win = False
    if f.category == "rma" and f.ctx is None:
        for p in f.params:
            if p.base == "MPI_Win" and p.name == "win":
                f.ctx, f.ctx_is_win = p.name, True
    # [io]: the file whose communicator the call's requests belong to
    f.file = next((p.name for p in f.params if p.base in ("MPI_File", "MPI_File*")), None)
    f.recs = []
    counts, dtypes, done = {}, {}, set()  # prefix -> Param; prefixes with bytes
    names = {p.name for p in f.params}

    def rec(role, p, *fields, **extra):
        r = Rec(role, p, fields, **extra)
        f.recs.append(r)
        p.rec = r

    def maybe_bytes(prefix):
        """A bytes field for each count whose datatype is now known: the
        datatype of the same prefix (sendcount/sendtype), else the plain
        "datatype" (MPI_Reduce_scatter's recvcounts)."""
        if prefix is None or f.category not in COUNTED:
            return
        for cprefix in list(counts):
            dprefix = cprefix if cprefix in dtypes else ("" if "" in dtypes else None)
            if cprefix == "target_":  # [rma]: the target side moves what the origin (or result) side does
                continue
            if dprefix is not None and cprefix not in done:
                done.add(cprefix)
                f.recs.append(Rec("bytes", None, [(cprefix + "bytes", "BYTES", False)],
                                  count=counts[cprefix], dtype=dtypes[dprefix]))

    for p in f.params:
        a, b, n = p.ann, p.base, p.name
        if "skip" in a:
            continue
        # ---- buffers
        if b == "void*":
            if "region" in a:  # the base of a region attached earlier: its number on the window
                rec("region", p, (n, "INT", False))
                continue
            if (n == "sendbuf" and f.category == "coll") or "inplace" in a:
                rec("inplace", p, (n.replace("buf", "") + "inplace" if n != "sendbuf" else "inplace", "INPLACE", False))
            continue
        # ---- integers
        if b == "int" and not p.is_array:
            if n in PEER_NAMES or (f.category == "rma" and n in RMA_PEER_NAMES):
                rec("peer", p, (n, "PEER", False))
            elif f.category == "rma" and n in ("assert", "lock_type"):
                rec(n, p, (n, "INT", False))
            elif n == "root":
                rec("root", p, (n, "ROOT", False))
            elif n in TAG_NAMES:
                rec("tag", p, (n, "TAG", False))
            elif n.endswith("count") and f.category in COUNTED:
                rec("count", p, (n, "COUNT", False))
                counts[count_prefix(n)] = p
                maybe_bytes(count_prefix(n))
            else:
                rec("int", p, (n, "INT", False))
            continue
        if b == "MPI_Aint" and not p.is_array:
            rec("aint", p, (n, "INT", False))
            continue
        if b == "MPI_Count" and not p.is_array and n.endswith("count") and f.category in COUNTED:
            rec("count", p, (n, "COUNT", False))  # partitioned communication: the count of one partition
            counts[count_prefix(n)] = p
            maybe_bytes(count_prefix(n))
            continue
        if b in ("int", "MPI_Aint") and p.is_array and "n" in a:
            kind = "COUNT" if n.endswith("counts") else "INT"
            rec("ints", p, (n, kind, True))
            if kind == "COUNT":
                counts[count_prefix(n)] = p
                maybe_bytes(count_prefix(n))
            continue
        if b == "int" and p.is_array and n == "array_of_indices":
            continue  # recorded with the statuses ({complete=some})
        if b == "int*":
            if n == "flag":
                rec("flag", p, (n, "FLAG", False))
            elif n == "index":
                rec("index", p, (n, "INDEX", False))
            elif n == "outcount":
                pass  # recorded with array_of_indices
            elif "out" in a:
                if n in PEER_NAMES:
                    rec("out_peer", p, (n, "PEER", False))
                else:
                    rec("out_int", p, (n, "INT", False))
            else:
                raise SystemExit("%s: int* %s needs {out} or {skip}" % (f.name, n))
            continue
        if b == "MPI_Aint*" and "out" in a:
            rec("out_aint", p, (n, "INT", False))
            continue
        # ---- MPI-IO: offsets, strings, files, the bytes of a status
        if b == "MPI_Offset" and not p.is_array:
            rec("offset", p, (n, "INT", False))
            continue
        if b == "MPI_Offset*" and "out" in a:
            rec("out_offset", p, (n, "INT", False))
            continue
        if b in ("constchar*", "char*") and not p.is_array:
            rec("name", p, (n, "NAME", True))
            continue
        if b == "MPI_File":
            rec("file", p, (n, "FILE", False))
            continue
        if b == "MPI_File*":
            if "use" in a:
                rec("file_use", p, (n, "FILE", False), free="free" in a)
            else:
                rec("file_new", p, (n, "FILE_NEW", False))
            continue
        if b == "MPI_Status*" and not p.is_array and f.category == "io":
            rec("io_status", p, ("status.bytes", "MBYTES", False))
            continue
        # ---- datatypes
        if b == "MPI_Datatype" and not p.is_array:
            rec("dtype", p, (n, "DTYPE", False), (n + "_size", "DTSIZE", False))
            pre = dtype_prefix(n)
            dtypes[pre if pre is not None else n] = p
            maybe_bytes(pre)
            continue
        if b == "MPI_Datatype" and p.is_array:
            rec("dtypes", p, (n, "DTYPE", True), (n + "_size", "DTSIZE", True))
            dtypes[dtype_prefix(n)] = p
            maybe_bytes(dtype_prefix(n))
            continue
        if b == "MPI_Datatype*":
            if "use" in a:
                rec("dtype_use", p, (n, "DTYPE", False), (n + "_size", "DTSIZE", False), free="free" in a)
            else:
                rec("dtype_new", p, (n, "DTYPE_NEW", False), (n + "_size", "DTSIZE", False))
            continue
        # ---- communicators
        if b == "MPI_Comm":
            rec("comm", p, (n, "COMM", False), is_ctx=n == f.ctx)
            continue
        if b == "MPI_Comm*":
            if "use" in a:
                rec("comm_use", p, (n, "COMM", False), free="free" in a)
            elif n in NEWCOMM_NAMES:
                how = a.get("id", "parent")
                if how not in ("parent", "group", "inter"):
                    raise SystemExit("%s: unknown {id=%s}" % (f.name, how))
                rec("comm_new", p, (n, "COMM_NEW", False), how=how, salt="tag" if "tag" in names else None)
            else:
                raise SystemExit("%s: unknown MPI_Comm* %s" % (f.name, n))
            continue
        # ---- ops, groups, messages
        if b == "MPI_Op":
            rec("op", p, (n, "OP", False))
            continue
        if b == "MPI_Op*":
            if "use" in a:
                rec("op_use", p, (n, "OP", False), free="free" in a)
            else:
                rec("op_new", p, (n, "OP_NEW", False))
            continue
        if b == "MPI_Group":
            rec("group", p, (n, "GROUP", False))
            continue
        if b == "MPI_Group*":
            if "use" in a:
                rec("group_use", p, (n, "GROUP", False), free="free" in a)
            else:
                rec("group_new", p, (n, "GROUP_NEW", False))
            continue
        if b == "MPI_Message*":
            if "use" in a:  # received ({use, free}): MPI_Mrecv, MPI_Imrecv
                rec("msg_use", p, (n, "MSG", False))
            else:
                rec("msg_new", p, (n, "MSG_NEW", False))
            continue
        # ---- windows
        if b == "MPI_Win":
            rec("win", p, (n, "WIN", False))
            continue
        if b == "MPI_Win*":
            if "use" in a:
                rec("win_use", p, (n, "WIN", False), free="free" in a)
            else:
                rec("win_new", p, (n, "WIN_NEW", False))
            continue
        # ---- requests
        if b == "MPI_Request*" and not p.is_array:
            if "use" in a:
                rec("req_use", p, (n, "REQ", False), free="free" in a)
            else:
                kind = "RECV" if "recv" in a else ("SEND" if f.category == "p2p" else "COLL")
                rec("req_new", p, (n, "REQ_NEW", False), kind=kind, persistent=f.persistent)
            continue
        if b == "MPI_Request" and not p.is_array and "use" in a:
            rec("req_use", p, (n, "REQ", False), free="free" in a)
            continue
        if b == "MPI_Request" and p.is_array and "use" in a:
            rec("reqs_use", p, (n, "REQ", True))
            continue
        # ---- statuses
        if b == "MPI_Status*" and not p.is_array:
            rec("status", p, *[("status." + s, k, False) for s, k in (("src", "SRC"), ("tag", "MTAG"), ("bytes", "MBYTES"))])
            continue
        if b == "MPI_Status" and p.is_array:
            if f.complete not in ("all", "some"):
                raise SystemExit("%s: an array of statuses needs {complete=all} or {complete=some}" % f.name)
            indices = [("array_of_indices", "INDEX", True)] if f.complete == "some" else []
            rec("statuses", p, *(indices + [("statuses." + s, k, True)
                                            for s, k in (("src", "SRC"), ("tag", "MTAG"), ("bytes", "MBYTES"))]))
            continue
        raise SystemExit("%s: no rule for parameter %r" % (f.name, p.decl))
    # partitioned communication: a message is `partitions` blocks of count elements
    for r in f.recs:
        if r.role == "bytes":
            r.times = "partitions" if "partitions" in names else None
    # the recorder puts the values taken before the call, then the outputs
    post = [r.role in POST for r in f.recs]
    if post != sorted(post):
        raise SystemExit("%s: an input follows an output in the value vector" % f.name)
    f.fields = [x for r in f.recs for x in r.fields]
    f.field_index = {x.name: i for i, x in enumerate(f.fields)}
    for p in f.params:
        if p.base == "void*":
            p.layout = derive_layout(f, p)

# ---------------------------------------------------------- buffer layouts

# The layouts a buffer can have ({layout=KIND(ARGS)}); ARGS name recorded
# parameters of the function (or, for N, a size):
#   block(COUNT, TYPE)          COUNT elements of TYPE
#   blocks(COUNT, TYPE, N)      N consecutive blocks of COUNT elements of TYPE
#                               (N: SIZE, LOCALSIZE, INDEG, OUTDEG as in n=,
#                               or a recorded int parameter: partitions)
#   displs(COUNTS, DISPLS, TYPE)  block i: COUNTS[i] elements of TYPE at
#                               DISPLS[i] extents of TYPE; if TYPE is an
#                               array (the w forms): COUNTS[i] elements of
#                               TYPE[i] at DISPLS[i] bytes
#   sum(COUNTS, TYPE)           COUNTS[0] + ... elements of TYPE
#   mine(COUNTS, TYPE)          COUNTS[rank] elements of TYPE (the caller's
#                               rank in the call's communicator)
#   bytes(N)                    N bytes
#   one(TYPE)                   one element of TYPE (MPI_Fetch_and_op, ...)
#   none()                      nothing: the buffer of an earlier call (the
#                               _end of a split collective MPI-IO call)
# A count or datatype recorded as "-" (not significant on this rank) spans
# nothing. In place: when a buffer is MPI_IN_PLACE (its "inplace" field),
# the other buffer of the call stands in for it and spans what both span.
LAYOUT_ARGS = {"block": 2, "blocks": 3, "displs": 3, "sum": 2, "mine": 2, "bytes": 1, "one": 1, "none": 0}
LAYOUT_SIZES = ("SIZE", "LOCALSIZE", "INDEG", "OUTDEG")
Layout = namedtuple("Layout", "kind args")

BUFFER_PREFIX = {"sendbuf": "send", "recvbuf": "recv", "buf": "", "buffer": "", "inbuf": "", "inoutbuf": ""}


def derive_layout(f, p):
    """p's Layout: its {layout=} annotation, else (not in [coll]) one block
    of the count and datatype its name gives; None where the replay passes
    no buffer ({engine} functions)."""
    spec = p.ann.get("layout")
    if spec is None and ("addr" in p.ann or "region" in p.ann):
        return None  # not memory the call reads or writes
    if spec is None and f.category == "coll" and not f.engine:
        raise SystemExit("%s: buffer %s of a collective needs a {layout=...} annotation" % (f.name, p.name))
    if spec is None:
        pre = BUFFER_PREFIX.get(p.name)
        count = (pre + "count") if pre is not None else None
        dtype = (pre + "type") if pre else "datatype"
        if pre is not None and count in f.field_index and dtype in f.field_index:
            return Layout("block", (count, dtype))
        if f.engine:
            return None
        raise SystemExit("%s: buffer %s needs a {layout=...} annotation (no %s and %s fields)" %
                         (f.name, p.name, count or "<prefix>count", dtype))
    m = re.match(r"^(\w+)\((.*)\)$", spec.strip())
    if not m or m.group(1) not in LAYOUT_ARGS:
        raise SystemExit("%s: %s: unknown layout %r (known: %s)" % (f.name, p.name, spec, ", ".join(LAYOUT_ARGS)))
    kind, args = m.group(1), tuple(a.strip() for a in m.group(2).split(",") if a.strip())
    if len(args) != LAYOUT_ARGS[kind]:
        raise SystemExit("%s: %s: layout %s takes %d arguments" % (f.name, p.name, kind, LAYOUT_ARGS[kind]))
    fields = args[:2] if kind == "blocks" else args
    for a in fields:
        if a not in f.field_index:
            raise SystemExit("%s: %s: layout %s: %s is not a recorded field" % (f.name, p.name, spec, a))
    if kind == "blocks" and args[2] not in LAYOUT_SIZES and args[2] not in f.field_index:
        raise SystemExit("%s: %s: layout %s: the block count is one of %s or a recorded field" % (
            f.name, p.name, spec, LAYOUT_SIZES))
    return Layout(kind, args)
