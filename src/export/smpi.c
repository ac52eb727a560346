/* smpi.c — a trace as SimGrid's time-independent (TI) action files, what
 * `smpirun -replay OUTDIR/index.txt` (SimGrid 3.32) reads: OUTDIR/rank-<r>.txt
 * holds every event of rank r unrolled into actions ("<r> isend 1 0 32 0"),
 * OUTDIR/index.txt the absolute paths of those files in rank order
 * (tf_export_smpi, export.h). Here: what each MPI function becomes, the
 * state of the rank being written (communicators, pending requests) and
 * the action lines; the walk over a rank's events, completions, wildcard
 * receives and the output directory are the shared pieces beside it.
 *
 * TI actions name peers and roots as MPI_COMM_WORLD ranks and run every
 * collective on MPI_COMM_WORLD, so only calls on MPI_COMM_WORLD or on a
 * communicator with the same ranks (dup, Cartesian without reordering)
 * export; point-to-point calls on MPI_COMM_SELF too. Calls with no action
 * (probes, persistent requests, nonblocking collectives, ...) are refused;
 * the output directory then never appears. doc/EXPORT.md has the mapping
 * and the reasons.
 */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "completions.h"
#include "events.h"
#include "export.h"
#include "failure.h"
#include "grow.h"
#include "outdir.h"
#include "tracefold_predefined.h"
#include "wildcards.h"

/* ------------------------------------------------------------ what each function becomes */

typedef enum act {
  A_REFUSE = 0, /* no TI action */
  A_LOCAL,      /* no communication: omitted (its compute delta carries over) */
  A_INIT, A_FINALIZE,
  A_SEND, A_RECV, A_ISEND, A_IRECV, A_SENDRECV, A_SENDRECV_REPLACE,
  A_WAIT, A_WAITANY, A_WAITSOME, A_WAITALL, A_TEST, A_TESTANY, A_TESTSOME, A_TESTALL, A_REQUEST_FREE,
  A_BARRIER, A_BCAST, A_REDUCE, A_ALLREDUCE, A_SCAN, A_EXSCAN, A_ALLTOALL, A_ALLTOALLV, A_GATHER, A_GATHERV,
  A_ALLGATHER, A_ALLGATHERV, A_SCATTER, A_SCATTERV, A_REDUCE_SCATTER, A_REDUCE_SCATTER_BLOCK,
  A_COMM_DUP, A_CART_CREATE, A_CART_SUB, A_COMM_OTHER, A_COMM_FREE
} act;

static const struct {
  const char *name;
  act a;
} mapped[] = {
    {"MPI_Init", A_INIT}, {"MPI_Init_thread", A_INIT}, {"MPI_Finalize", A_FINALIZE},
    {"MPI_Send", A_SEND}, {"MPI_Bsend", A_SEND}, {"MPI_Ssend", A_SEND}, {"MPI_Rsend", A_SEND},
    {"MPI_Recv", A_RECV},
    {"MPI_Isend", A_ISEND}, {"MPI_Ibsend", A_ISEND}, {"MPI_Issend", A_ISEND}, {"MPI_Irsend", A_ISEND},
    {"MPI_Irecv", A_IRECV},
    {"MPI_Sendrecv", A_SENDRECV}, {"MPI_Sendrecv_replace", A_SENDRECV_REPLACE},
    {"MPI_Wait", A_WAIT}, {"MPI_Waitany", A_WAITANY}, {"MPI_Waitsome", A_WAITSOME}, {"MPI_Waitall", A_WAITALL},
    {"MPI_Test", A_TEST}, {"MPI_Testany", A_TESTANY}, {"MPI_Testsome", A_TESTSOME}, {"MPI_Testall", A_TESTALL},
    {"MPI_Request_free", A_REQUEST_FREE},
    {"MPI_Barrier", A_BARRIER}, {"MPI_Bcast", A_BCAST}, {"MPI_Reduce", A_REDUCE}, {"MPI_Allreduce", A_ALLREDUCE},
    {"MPI_Scan", A_SCAN}, {"MPI_Exscan", A_EXSCAN}, {"MPI_Alltoall", A_ALLTOALL}, {"MPI_Alltoallv", A_ALLTOALLV},
    {"MPI_Gather", A_GATHER}, {"MPI_Gatherv", A_GATHERV}, {"MPI_Allgather", A_ALLGATHER},
    {"MPI_Allgatherv", A_ALLGATHERV}, {"MPI_Scatter", A_SCATTER}, {"MPI_Scatterv", A_SCATTERV},
    {"MPI_Reduce_scatter", A_REDUCE_SCATTER}, {"MPI_Reduce_scatter_block", A_REDUCE_SCATTER_BLOCK},
    {"MPI_Comm_dup", A_COMM_DUP}, {"MPI_Comm_dup_with_info", A_COMM_DUP}, {"MPI_Cart_create", A_CART_CREATE},
    {"MPI_Cart_sub", A_CART_SUB}, {"MPI_Comm_free", A_COMM_FREE},
};

/* Calls that communicate nothing (queries, topology arithmetic, datatypes,
 * ops, buffers): no action. MPI_Group_* and MPI_Type_* are matched by prefix. */
static const char *const local_calls[] = {
    "MPI_Comm_size", "MPI_Comm_remote_size", "MPI_Comm_rank", "MPI_Comm_compare", "MPI_Comm_test_inter",
    "MPI_Comm_group", "MPI_Comm_remote_group", "MPI_Dims_create", "MPI_Cart_coords", "MPI_Cart_rank",
    "MPI_Cart_get", "MPI_Cartdim_get", "MPI_Cart_shift", "MPI_Cart_map", "MPI_Graph_map", "MPI_Graph_neighbors",
    "MPI_Graph_neighbors_count", "MPI_Graphdims_get", "MPI_Graph_get", "MPI_Topo_test", "MPI_Dist_graph_neighbors",
    "MPI_Dist_graph_neighbors_count", "MPI_Get_count", "MPI_Get_elements", "MPI_Pack", "MPI_Unpack",
    "MPI_Pack_size", "MPI_Op_create", "MPI_Op_free", "MPI_Op_commutative", "MPI_Reduce_local", "MPI_Buffer_attach",
    "MPI_Buffer_detach", "MPI_Pcontrol", "MPI_Request_get_status", "MPI_Test_cancelled",
};

/* The fields the export reads, found by name in each function's field list. */
enum slot {
  F_COUNT, F_DTYPE, F_DTSIZE, F_DEST, F_SOURCE, F_TAG, F_COMM, F_REQ, F_REQS, F_ROOT, F_INPLACE, F_RINPLACE,
  F_SCOUNT, F_STYPE, F_STSIZE, F_RCOUNT, F_RTYPE, F_RTSIZE, F_SCOUNTS, F_RCOUNTS,
  F_ST_SRC, F_ST_TAG, F_FLAG, F_COMM_OLD, F_DIMS, F_REORDER, F_REMAIN,
  F_NEWCOMM, /* the field of kind newcomm, whatever its name */
  F_NSLOTS
};
static const xp_field_spec slot_specs[F_NSLOTS] = {
    {"count", 0}, {"datatype", 0}, {"datatype_size", 0}, {"dest", 0}, {"source", 0}, {"tag", 0}, {"comm", 0},
    {"request", 0}, {"array_of_requests", 0}, {"root", 0}, {"inplace", 0}, {"recvinplace", 0},
    {"sendcount", 0}, {"sendtype", 0}, {"sendtype_size", 0}, {"recvcount", 0}, {"recvtype", 0},
    {"recvtype_size", 0}, {"sendcounts", 0}, {"recvcounts", 0}, {"status.src", 0}, {"status.tag", 0},
    {"flag", 0}, {"comm_old", 0}, {"dims", 0}, {"reorder", 0}, {"remain_dims", 0}, {NULL, TF_FIELD_COMM_NEW},
};

static act classify(const tf_func_desc *d) {
  for (size_t i = 0; i < sizeof mapped / sizeof mapped[0]; i++)
    if (strcmp(d->name, mapped[i].name) == 0) return mapped[i].a;
  for (size_t i = 0; i < sizeof local_calls / sizeof local_calls[0]; i++)
    if (strcmp(d->name, local_calls[i]) == 0) return A_LOCAL;
  if (strncmp(d->name, "MPI_Group_", 10) == 0 || strncmp(d->name, "MPI_Type_", 9) == 0) return A_LOCAL;
  /* other blocking communicator constructors (split, create, graphs,
   * intercommunicators): no action, and their communicators have ranks of
   * their own; one that returns a request (MPI_Comm_idup) is refused */
  int newcomm = 0, newreq = 0;
  for (uint32_t k = 0; k < d->nfields; k++) {
    newcomm |= d->fields[k].kind == TF_FIELD_COMM_NEW;
    newreq |= d->fields[k].kind == TF_FIELD_REQ_NEW;
  }
  return newcomm && !newreq ? A_COMM_OTHER : A_REFUSE;
}

/* ------------------------------------------------------------ SimGrid's datatypes */

/* SimGrid 3.32's datatype ids (Datatype::encode, as `smpirun -trace-ti`
 * writes them) and sizes in bytes, by MPI name: measured with smpicc on
 * x86_64 (doc/EXPORT.md). A predefined datatype whose size in the trace is
 * not SimGrid's, or a derived one, goes as bytes (MPI_BYTE). */
static const struct {
  const char *name;
  int id, size;
} sg_types[] = {
    {"MPI_DOUBLE", 0, 8}, {"MPI_INT", 1, 4}, {"MPI_CHAR", 2, 1}, {"MPI_SHORT", 3, 2}, {"MPI_LONG", 4, 8},
    {"MPI_FLOAT", 5, 4}, {"MPI_BYTE", 6, 1}, {"MPI_LONG_LONG", 7, 8}, {"MPI_SIGNED_CHAR", 8, 1},
    {"MPI_UNSIGNED_CHAR", 9, 1}, {"MPI_UNSIGNED_SHORT", 10, 2}, {"MPI_UNSIGNED", 11, 4}, {"MPI_UNSIGNED_LONG", 12, 8},
    {"MPI_UNSIGNED_LONG_LONG", 13, 8}, {"MPI_LONG_DOUBLE", 14, 16}, {"MPI_WCHAR", 15, 4}, {"MPI_C_BOOL", 16, 1},
    {"MPI_INT8_T", 17, 1}, {"MPI_INT16_T", 18, 2}, {"MPI_INT32_T", 19, 4}, {"MPI_INT64_T", 20, 8},
    {"MPI_UINT8_T", 21, 1}, {"MPI_UINT16_T", 22, 2}, {"MPI_UINT32_T", 23, 4}, {"MPI_UINT64_T", 24, 8},
    {"MPI_C_FLOAT_COMPLEX", 25, 8}, {"MPI_C_DOUBLE_COMPLEX", 26, 16}, {"MPI_C_LONG_DOUBLE_COMPLEX", 27, 32},
    {"MPI_AINT", 28, 8}, {"MPI_OFFSET", 29, 8}, {"MPI_FLOAT_INT", 30, 8}, {"MPI_LONG_INT", 31, 16},
    {"MPI_DOUBLE_INT", 32, 16}, {"MPI_SHORT_INT", 33, 8}, {"MPI_2INT", 34, 8}, {"MPI_2REAL", 35, 8},
    {"MPI_2DOUBLE_PRECISION", 36, 16}, {"MPI_REAL", 38, 4}, {"MPI_REAL4", 39, 4}, {"MPI_REAL8", 40, 8},
    {"MPI_INTEGER1", 45, 4}, {"MPI_INTEGER2", 46, 2}, {"MPI_INTEGER4", 47, 4}, {"MPI_INTEGER8", 48, 8},
    {"MPI_LONG_DOUBLE_INT", 50, 32}, {"MPI_PACKED", 57, 1}, {"MPI_COUNT", 59, 8},
    /* SMPI defines these as aliases of the types above */
    {"MPI_INTEGER", 1, 4}, {"MPI_LOGICAL", 1, 4}, {"MPI_DOUBLE_PRECISION", 0, 8}, {"MPI_COMPLEX", 25, 8},
    {"MPI_CHARACTER", 2, 1}, {"MPI_DOUBLE_COMPLEX", 26, 16}, {"MPI_2INTEGER", 34, 8},
};
#define SG_BYTE 6

#define TF_DTYPE_NAME(n) #n,
static const char *const tf_dtype_names[] = {TF_PREDEFINED_DTYPES(TF_DTYPE_NAME)};
#define TF_NPREDEF (sizeof tf_dtype_names / sizeof tf_dtype_names[0])

/* A (count, datatype) of the trace as a TI (count x mult, id). */
typedef struct sgtype {
  int64_t mult; /* 1, or the datatype's size when sent as bytes */
  int id;
} sgtype;

static sgtype sg_type(int64_t dtype, int64_t dtsize) {
  if (dtype >= 1 && (uint64_t)dtype <= TF_NPREDEF)
    for (size_t i = 0; i < sizeof sg_types / sizeof sg_types[0]; i++)
      if (strcmp(sg_types[i].name, tf_dtype_names[dtype - 1]) == 0 && sg_types[i].size == dtsize)
        return (sgtype){1, sg_types[i].id};
  return (sgtype){dtsize > 0 ? dtsize : 1, SG_BYTE};
}

/* ------------------------------------------------------------ one event's fields */

typedef struct xfields {
  act a;                    /* what its function becomes */
  uint32_t fn;
  const int32_t *at;        /* where each slot is in its fields (-1: none) */
  const tf_field_value *f;  /* its fields */
} xfields;

static int64_t sv(const xfields *F, int slot) { return xp_scalar(F->f, F->at[slot]); }
static const int64_t *av(const xfields *F, int slot, uint32_t *len) { return xp_array(F->f, F->at[slot], len); }

/* ------------------------------------------------------------ state of the rank being exported */

typedef enum comm_kind { C_WORLD, C_SELF, C_OTHER } comm_kind;

typedef struct xcomm {
  int64_t id;
  comm_kind kind;
  const char *made_by; /* C_OTHER: the function that made it */
  uint32_t ndims;      /* Cartesian: its dimensions (0: none known) */
  int64_t dims[16];
} xcomm;

typedef struct xreq { /* a pending nonblocking request */
  int64_t id;
  int real;           /* 0: to or from MPI_PROC_NULL (no action was written) */
  int32_t src, dst;   /* world ranks */
  int64_t tag;
} xreq;

typedef struct exporter {
  tf_trace *t;
  const tf_trace_info *info;
  act *acts;                /* per function: what it becomes */
  xp_fieldmap slots;        /* per function: where its slots are */
  xp_completions comp;
  xp_wildcards wild;        /* the source and tag wildcard receives matched */
  const tf_export_smpi_opts *opts;
  int32_t nranks; /* world size */
  /* the rank being written */
  int32_t rank;
  uint64_t seq; /* index of the current event */
  const char *fname;
  FILE *out;
  char *obuf;               /* its buffer */
  xfields F;                /* the current event */
  double flops;             /* compute not yet written */
  xcomm *comms;
  size_t ncomms, capcomms;
  xreq *reqs;
  size_t nreqs, capreqs;
  xp_done_list done;        /* the requests the current call completed */
  uint64_t shared_keys; /* requests posted while another with the same (src, dst, tag) was pending */
  xp_failure failure;
} exporter;

/* "rank R event N: ..." */
static int refuse(exporter *x, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return xp_fail(&x->failure, 2, "rank %d event %" PRIu64 ": %s", x->rank, x->seq, what);
}

static int no_action(exporter *x) {
  return refuse(x, "%s has no action in SimGrid's time-independent format", x->fname);
}

/* The requests the call in F completed, into x->done: 0, or -1. */
static int completions(exporter *x, const xfields *F) {
  return xp_completed(&x->comp, F->fn, F->f, &x->done) ? xp_fail(&x->failure, 1, "out of memory") : 0;
}

/* ------------------------------------------------------------ writing actions */

/* One action line, after the compute that precedes it. */
static int emit(exporter *x, const char *fmt, ...) {
  if (x->flops > 0) fprintf(x->out, "%d compute %.15g\n", x->rank, x->flops);
  x->flops = 0;
  fprintf(x->out, "%d ", x->rank);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(x->out, fmt, ap);
  va_end(ap);
  fputc('\n', x->out);
  return 0;
}

static double flops_of(const exporter *x, uint64_t v) {
  return x->info->unit == TF_UNIT_INSTRUCTIONS ? (double)v : (double)v * 1e-9 * x->opts->ref_speed;
}

/* ------------------------------------------------------------ communicators, peers, requests */

static xcomm *comm_find(exporter *x, int64_t id) {
  for (size_t i = 0; i < x->ncomms; i++)
    if (x->comms[i].id == id) return &x->comms[i];
  return NULL;
}

static int comm_set(exporter *x, int64_t id, xcomm c) {
  if (id <= TF_SPECIAL_MAX) return 0; /* MPI_COMM_NULL on this rank */
  c.id = id;
  xcomm *o = comm_find(x, id);
  if (o) {
    *o = c;
    return 0;
  }
  xcomm *na = xp_grow(x->comms, x->ncomms, &x->capcomms, sizeof *na);
  if (!na) return xp_fail(&x->failure, 1, "out of memory");
  x->comms = na;
  x->comms[x->ncomms++] = c;
  return 0;
}

/* Is `id` usable by an action (collective: on MPI_COMM_WORLD's ranks)? */
static int comm_ok(exporter *x, int64_t id, int collective) {
  const xcomm *c = comm_find(x, id);
  if (c && (c->kind == C_WORLD || (c->kind == C_SELF && !collective))) return 0;
  const char *what = !c ? "an unknown communicator" : c->kind == C_SELF ? "MPI_COMM_SELF" : NULL;
  char buf[160];
  if (!what) {
    snprintf(buf, sizeof buf, "a communicator made by %s", c->made_by);
    what = buf;
  }
  return refuse(x, "%s on %s has no action in SimGrid's time-independent format (its actions name "
                   "MPI_COMM_WORLD ranks and run collectives on MPI_COMM_WORLD)", x->fname, what);
}

/* A recorded peer (offset from the caller in comm) as a world rank. */
static int peer(exporter *x, int64_t comm, int64_t off, int32_t *out) {
  const xcomm *c = comm_find(x, comm);
  int64_t p = c && c->kind == C_SELF ? (off == 0 ? x->rank : -1) : x->rank + off;
  if (off <= TF_SPECIAL_MAX || p < 0 || p >= x->nranks)
    return refuse(x, "%s: peer offset %" PRId64 " is outside the %d ranks", x->fname, off, x->nranks);
  *out = (int32_t)p;
  return 0;
}

static int root_of(exporter *x, int64_t root, int32_t *out) {
  if (root < 0 || root >= x->nranks) return refuse(x, "%s: root %" PRId64 " is not a rank", x->fname, root);
  *out = (int32_t)root;
  return 0;
}

static xreq *req_find(exporter *x, int64_t id) {
  for (size_t i = 0; i < x->nreqs; i++)
    if (x->reqs[i].id == id) return &x->reqs[i];
  return NULL;
}

static int req_add(exporter *x, xreq r) {
  if (r.id <= TF_SPECIAL_MAX) return 0;
  for (size_t i = 0; r.real && i < x->nreqs; i++)
    if (x->reqs[i].real && x->reqs[i].src == r.src && x->reqs[i].dst == r.dst && x->reqs[i].tag == r.tag) {
      x->shared_keys++;
      break;
    }
  xreq *o = req_find(x, r.id);
  if (o) {
    *o = r;
    return 0;
  }
  xreq *na = xp_grow(x->reqs, x->nreqs, &x->capreqs, sizeof *na);
  if (!na) return xp_fail(&x->failure, 1, "out of memory");
  x->reqs = na;
  x->reqs[x->nreqs++] = r;
  return 0;
}

static void req_drop(exporter *x, xreq *r) { *r = x->reqs[--x->nreqs]; }

/* ------------------------------------------------------------ wildcard receives */

/* The source offset and tag the current wildcard receive matched. */
static int wildcard_match(exporter *x, int64_t *src, int64_t *tag) {
  char err[1024];
  switch (xp_wildcard_match(&x->wild, x->seq, src, tag, err, sizeof err)) {
  case 0: return 0;
  case 1:
    return refuse(x, "%s from MPI_ANY_SOURCE or with MPI_ANY_TAG never completes in the trace: the source and tag a "
                     "time-independent action needs are unknown", x->fname);
  case -2: return xp_fail(&x->failure, 1, "out of memory");
  default: return xp_fail(&x->failure, 2, "%s", err);
  }
}

/* ------------------------------------------------------------ the actions of one event */

/* Per (count, type) pair of a collective: "count id" pieces. */
typedef struct cpair {
  int64_t count;
  sgtype t;
} cpair;

static cpair pair_of(int64_t count, int64_t dtype, int64_t dtsize) {
  cpair p = {count > 0 ? count : 0, sg_type(dtype, dtsize)};
  p.count *= p.t.mult;
  return p;
}

static int p2p(exporter *x) {
  const xfields *F = &x->F;
  act a = F->a;
  int64_t comm = sv(F, F_COMM);
  if (comm_ok(x, comm, 0)) return -1;
  cpair c = pair_of(sv(F, F_COUNT), sv(F, F_DTYPE), sv(F, F_DTSIZE));
  int32_t p;
  if (a == A_SEND || a == A_ISEND) {
    int64_t dest = sv(F, F_DEST), tag = sv(F, F_TAG);
    if (dest == TF_PROC_NULL)
      return a == A_ISEND ? req_add(x, (xreq){sv(F, F_REQ), 0, 0, 0, 0}) : 0;
    if (peer(x, comm, dest, &p)) return -1;
    emit(x, "%s %d %" PRId64 " %" PRId64 " %d", a == A_SEND ? "send" : "isend", p, tag, c.count, c.t.id);
    return a == A_ISEND ? req_add(x, (xreq){sv(F, F_REQ), 1, x->rank, p, tag}) : 0;
  }
  int64_t src = sv(F, F_SOURCE), tag = sv(F, F_TAG);
  if (src == TF_PROC_NULL) return a == A_IRECV ? req_add(x, (xreq){sv(F, F_REQ), 0, 0, 0, 0}) : 0;
  if (a == A_RECV) { /* a wildcard takes what the status says it matched */
    if (src == TF_ANY_SOURCE) src = sv(F, F_ST_SRC);
    if (tag == TF_ANY_TAG) tag = sv(F, F_ST_TAG);
  } else if (src == TF_ANY_SOURCE || tag == TF_ANY_TAG) {
    int64_t msrc = TF_NONE, mtag = TF_NONE;
    if (wildcard_match(x, &msrc, &mtag)) return -1;
    if (src == TF_ANY_SOURCE) src = msrc;
    if (tag == TF_ANY_TAG) tag = mtag;
  }
  if (src == TF_PROC_NULL) return a == A_IRECV ? req_add(x, (xreq){sv(F, F_REQ), 0, 0, 0, 0}) : 0;
  if (tag < 0) return refuse(x, "%s: the matched tag is unknown", x->fname);
  if (peer(x, comm, src, &p)) return -1;
  emit(x, "%s %d %" PRId64 " %" PRId64 " %d", a == A_RECV ? "recv" : "irecv", p, tag, c.count, c.t.id);
  return a == A_IRECV ? req_add(x, (xreq){sv(F, F_REQ), 1, p, x->rank, tag}) : 0;
}

/* MPI_Sendrecv(_replace) -> sendRecv SENDCOUNT DST RECVCOUNT SRC SENDTYPE RECVTYPE.
 * SimGrid's replay sends and receives it with tag 0: the half that remains
 * when the other peer is MPI_PROC_NULL is written with tag 0 too, to match. */
static int sendrecv(exporter *x) {
  const xfields *F = &x->F;
  int64_t comm = sv(F, F_COMM);
  if (comm_ok(x, comm, 0)) return -1;
  int replace = F->a == A_SENDRECV_REPLACE;
  cpair s = replace ? pair_of(sv(F, F_COUNT), sv(F, F_DTYPE), sv(F, F_DTSIZE))
                    : pair_of(sv(F, F_SCOUNT), sv(F, F_STYPE), sv(F, F_STSIZE));
  cpair r = replace ? s : pair_of(sv(F, F_RCOUNT), sv(F, F_RTYPE), sv(F, F_RTSIZE));
  int64_t dest = sv(F, F_DEST), src = sv(F, F_SOURCE);
  if (src == TF_ANY_SOURCE) src = sv(F, F_ST_SRC);
  int32_t d = -1, sr = -1;
  if (dest != TF_PROC_NULL && peer(x, comm, dest, &d)) return -1;
  if (src != TF_PROC_NULL && peer(x, comm, src, &sr)) return -1;
  if (d >= 0 && sr >= 0)
    emit(x, "sendRecv %" PRId64 " %d %" PRId64 " %d %d %d", s.count, d, r.count, sr, s.t.id, r.t.id);
  else if (d >= 0)
    emit(x, "send %d 0 %" PRId64 " %d", d, s.count, s.t.id);
  else if (sr >= 0)
    emit(x, "recv %d 0 %" PRId64 " %d", sr, r.count, r.t.id);
  return 0;
}

static void wait_line(exporter *x, const char *verb, const xreq *r) {
  emit(x, "%s %d %d %" PRId64, verb, r->src, r->dst, r->tag);
}

static int completion(exporter *x) {
  const xfields *F = &x->F;
  act a = F->a;
  if (a == A_REQUEST_FREE) { /* the request goes on; nothing will wait for it */
    xreq *r = req_find(x, sv(F, F_REQ));
    if (r) req_drop(x, r);
    return 0;
  }
  if (a == A_TEST) { /* test names its request whatever the outcome */
    xreq *r = req_find(x, sv(F, F_REQ));
    if (!r) return 0;
    if (r->real) wait_line(x, "test", r);
    if (sv(F, F_FLAG) == 1) req_drop(x, r);
    return 0;
  }
  uint32_t nr = 0;
  if (a == A_WAITALL) {
    /* waitall waits for every request the rank has pending: written when the
     * call's requests are all of those (the same ids, as many slots) */
    const int64_t *reqs = av(F, F_REQS, &nr);
    size_t used = 0, real = 0;
    int all = 1;
    for (uint32_t k = 0; k < nr; k++) {
      if (reqs[k] <= TF_SPECIAL_MAX) continue;
      used++;
      if (!req_find(x, reqs[k])) all = 0;
    }
    if (all && used > 0 && used == x->nreqs) {
      for (size_t i = 0; i < x->nreqs; i++) real += (size_t)x->reqs[i].real;
      if (real) emit(x, "waitall %zu", real);
      x->nreqs = 0;
      return 0;
    }
  }
  if (completions(x, F)) return -1;
  for (size_t k = 0; k < x->done.n; k++) {
    xreq *r = req_find(x, x->done.v[k].id);
    if (!r) continue;
    if (r->real) wait_line(x, a == A_TESTANY || a == A_TESTSOME || a == A_TESTALL ? "test" : "wait", r);
    req_drop(x, r);
  }
  return 0;
}

/* A collective on MPI_COMM_WORLD's ranks. In-place buffers take the other
 * side's count and type; arguments MPI ignores off the root are written
 * like the root's so that every rank's action agrees. */
static int collective(exporter *x) {
  const xfields *F = &x->F;
  act a = F->a;
  if (comm_ok(x, sv(F, F_COMM), 1)) return -1;
  int32_t root = 0;
  if (F->at[F_ROOT] >= 0 && root_of(x, sv(F, F_ROOT), &root)) return -1;
  int isroot = root == x->rank;
  cpair one = pair_of(sv(F, F_COUNT), sv(F, F_DTYPE), sv(F, F_DTSIZE));
  cpair snd = pair_of(sv(F, F_SCOUNT), sv(F, F_STYPE), sv(F, F_STSIZE));
  cpair rcv = pair_of(sv(F, F_RCOUNT), sv(F, F_RTYPE), sv(F, F_RTSIZE));
  int sendless = sv(F, F_INPLACE) == 1 || sv(F, F_STYPE) == TF_NONE;
  int recvless = sv(F, F_RINPLACE) == 1 || sv(F, F_RTYPE) == TF_NONE;
  switch (a) {
  case A_BARRIER: return emit(x, "barrier");
  case A_BCAST: return emit(x, "bcast %" PRId64 " %d %d", one.count, root, one.t.id);
  case A_REDUCE: return emit(x, "reduce %" PRId64 " 0 %d %d", one.count, root, one.t.id);
  case A_ALLREDUCE: return emit(x, "allreduce %" PRId64 " 0 %d", one.count, one.t.id);
  case A_SCAN: return emit(x, "scan %" PRId64 " 0 %d", one.count, one.t.id);
  case A_EXSCAN: return emit(x, "exscan %" PRId64 " 0 %d", one.count, one.t.id);
  case A_ALLTOALL:
  case A_ALLGATHER:
    if (sendless) snd = rcv;
    return emit(x, "%s %" PRId64 " %" PRId64 " %d %d", a == A_ALLTOALL ? "alltoall" : "allgather", snd.count,
                rcv.count, snd.t.id, rcv.t.id);
  case A_GATHER:
    if (sendless) snd = rcv;
    if (!isroot || recvless) rcv = snd;
    return emit(x, "gather %" PRId64 " %" PRId64 " %d %d %d", snd.count, rcv.count, root, snd.t.id, rcv.t.id);
  case A_SCATTER:
    if (recvless) rcv = snd;
    if (!isroot || sendless) snd = rcv;
    return emit(x, "scatter %" PRId64 " %" PRId64 " %d %d %d", snd.count, rcv.count, root, snd.t.id, rcv.t.id);
  default: break;
  }
  /* the v forms and reduce-scatter: one count per rank */
  uint32_t nc = 0, ns = 0;
  const int64_t *rc = av(F, F_RCOUNTS, &nc), *sc = av(F, F_SCOUNTS, &ns);
  int32_t n = x->nranks;
  char *line = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&line, &len);
  if (!m) return xp_fail(&x->failure, 1, "out of memory");
  switch (a) {
  case A_GATHERV: /* gatherv SENDCOUNT RECVCOUNTS... ROOT SENDTYPE RECVTYPE */
    if (sendless && isroot && nc == (uint32_t)n) snd = pair_of(rc[root], sv(F, F_RTYPE), sv(F, F_RTSIZE));
    if (!isroot || recvless) rcv = (cpair){0, snd.t};
    fprintf(m, "gatherv %" PRId64, snd.count);
    for (int32_t k = 0; k < n; k++)
      fprintf(m, " %" PRId64, isroot && !recvless && nc == (uint32_t)n && rc[k] > 0 ? rc[k] * rcv.t.mult : 0);
    fprintf(m, " %d %d %d", root, snd.t.id, rcv.t.id);
    break;
  case A_SCATTERV: /* scatterv SENDCOUNTS... RECVCOUNT ROOT SENDTYPE RECVTYPE */
    if (recvless && isroot && ns == (uint32_t)n) rcv = pair_of(sc[root], sv(F, F_STYPE), sv(F, F_STSIZE));
    if (!isroot || sendless) snd = (cpair){0, rcv.t};
    fprintf(m, "scatterv");
    for (int32_t k = 0; k < n; k++)
      fprintf(m, " %" PRId64, isroot && !sendless && ns == (uint32_t)n && sc[k] > 0 ? sc[k] * snd.t.mult : 0);
    fprintf(m, " %" PRId64 " %d %d %d", rcv.count, root, snd.t.id, rcv.t.id);
    break;
  case A_ALLGATHERV: { /* allgatherv SENDCOUNT RECVCOUNTS... TYPE TYPE DISPLS...: one type, the
                        * long form with displacements (the short one is misread at 1 rank) */
    if (nc != (uint32_t)n) break;
    int64_t rsize = sv(F, F_RTSIZE), ssize = sendless ? rsize : sv(F, F_STSIZE);
    int64_t scount = sendless ? rc[x->rank] : sv(F, F_SCOUNT);
    sgtype st = sg_type(sendless ? sv(F, F_RTYPE) : sv(F, F_STYPE), ssize), rt = sg_type(sv(F, F_RTYPE), rsize);
    if (st.id != rt.id || st.mult != rt.mult) { /* differing types: bytes on both sides */
      st = (sgtype){ssize > 0 ? ssize : 1, SG_BYTE};
      rt = (sgtype){rsize > 0 ? rsize : 1, SG_BYTE};
    }
    fprintf(m, "allgatherv %" PRId64, scount > 0 ? scount * st.mult : 0);
    for (int32_t k = 0; k < n; k++) fprintf(m, " %" PRId64, rc[k] > 0 ? rc[k] * rt.mult : 0);
    fprintf(m, " %d %d", rt.id, rt.id);
    int64_t disp = 0;
    for (int32_t k = 0; k < n; k++) {
      fprintf(m, " %" PRId64, disp);
      disp += rc[k] > 0 ? rc[k] * rt.mult : 0;
    }
    break;
  }
  case A_ALLTOALLV: { /* alltoallv SENDSUM SENDCOUNTS... RECVSUM RECVCOUNTS... SENDTYPE RECVTYPE */
    if (nc != (uint32_t)n) break;
    if (sendless) {
      sc = rc;
      ns = nc;
      snd = pair_of(1, sv(F, F_RTYPE), sv(F, F_RTSIZE));
    } else {
      snd = pair_of(1, sv(F, F_STYPE), sv(F, F_STSIZE));
    }
    rcv = pair_of(1, sv(F, F_RTYPE), sv(F, F_RTSIZE));
    if (ns != (uint32_t)n) break;
    int64_t ssum = 0, rsum = 0;
    for (int32_t k = 0; k < n; k++) {
      ssum += sc[k] > 0 ? sc[k] * snd.t.mult : 0;
      rsum += rc[k] > 0 ? rc[k] * rcv.t.mult : 0;
    }
    fprintf(m, "alltoallv %" PRId64, ssum);
    for (int32_t k = 0; k < n; k++) fprintf(m, " %" PRId64, sc[k] > 0 ? sc[k] * snd.t.mult : 0);
    fprintf(m, " %" PRId64, rsum);
    for (int32_t k = 0; k < n; k++) fprintf(m, " %" PRId64, rc[k] > 0 ? rc[k] * rcv.t.mult : 0);
    fprintf(m, " %d %d", snd.t.id, rcv.t.id);
    break;
  }
  case A_REDUCE_SCATTER:
  case A_REDUCE_SCATTER_BLOCK: /* reducescatter RECVCOUNTS... 0 TYPE */
    if (a == A_REDUCE_SCATTER && nc != (uint32_t)n) break;
    fprintf(m, "reducescatter");
    for (int32_t k = 0; k < n; k++) {
      int64_t c = a == A_REDUCE_SCATTER ? rc[k] : sv(F, F_RCOUNT);
      fprintf(m, " %" PRId64, c > 0 ? c * one.t.mult : 0);
    }
    fprintf(m, " 0 %d", one.t.id);
    break;
  default: break;
  }
  int bad = fclose(m) != 0 || !line;
  if (!bad && len == 0) bad = 2; /* counts not one per rank */
  if (!bad) emit(x, "%s", line);
  free(line);
  if (bad == 2) return refuse(x, "%s: its counts are not one per rank", x->fname);
  return bad ? xp_fail(&x->failure, 1, "out of memory") : 0;
}

/* Communicators: which have MPI_COMM_WORLD's ranks in its order. */
static int communicator(exporter *x) {
  const xfields *F = &x->F;
  act a = F->a;
  int64_t nc = sv(F, F_NEWCOMM);
  if (a == A_COMM_FREE) {
    xcomm *c = comm_find(x, sv(F, F_COMM));
    if (c) *c = x->comms[--x->ncomms];
    return 0;
  }
  xcomm made = {.kind = C_OTHER, .made_by = x->fname};
  const xcomm *old = comm_find(x, sv(F, a == A_CART_CREATE ? F_COMM_OLD : F_COMM));
  if (a == A_COMM_DUP && old) {
    made = *old;
  } else if (a == A_CART_CREATE && old && old->kind == C_WORLD) {
    uint32_t nd;
    const int64_t *dims = av(F, F_DIMS, &nd);
    int64_t prod = 1;
    for (uint32_t k = 0; k < nd; k++) prod *= dims[k];
    if (sv(F, F_REORDER) == 0 && prod == x->nranks && nd <= 16) {
      made.kind = C_WORLD;
      made.ndims = nd;
      memcpy(made.dims, dims, nd * sizeof *dims);
    }
  } else if (a == A_CART_SUB && old && old->kind == C_WORLD && old->ndims) {
    /* the same ranks in the same order when every dropped dimension is 1 wide */
    uint32_t nr;
    const int64_t *remain = av(F, F_REMAIN, &nr);
    int same = nr == old->ndims;
    xcomm sub = {.kind = C_WORLD};
    for (uint32_t k = 0; same && k < nr; k++) {
      if (remain[k]) sub.dims[sub.ndims++] = old->dims[k];
      else if (old->dims[k] != 1) same = 0;
    }
    if (same) made = sub;
  }
  return comm_set(x, nc, made);
}

static int event_actions(exporter *x) {
  switch (x->F.a) {
  case A_REFUSE: return no_action(x);
  case A_LOCAL: return 0;
  case A_INIT: return emit(x, "init");
  case A_FINALIZE: return emit(x, "finalize");
  case A_SEND:
  case A_RECV:
  case A_ISEND:
  case A_IRECV: return p2p(x);
  case A_SENDRECV:
  case A_SENDRECV_REPLACE: return sendrecv(x);
  case A_WAIT:
  case A_WAITANY:
  case A_WAITSOME:
  case A_WAITALL:
  case A_TEST:
  case A_TESTANY:
  case A_TESTSOME:
  case A_TESTALL:
  case A_REQUEST_FREE: return completion(x);
  case A_COMM_DUP:
  case A_CART_CREATE:
  case A_CART_SUB:
  case A_COMM_OTHER:
  case A_COMM_FREE: return communicator(x);
  default: return collective(x);
  }
}

/* ------------------------------------------------------------ one rank, the whole trace */

static void rank_reset(exporter *x, int32_t rank) {
  x->rank = rank;
  x->seq = 0;
  x->flops = 0;
  x->ncomms = x->nreqs = 0;
  x->shared_keys = 0;
  comm_set(x, 1, (xcomm){.kind = C_WORLD});
  comm_set(x, 2, (xcomm){.kind = C_SELF});
  xp_wildcards_rank(&x->wild, rank);
}

static int export_rank(exporter *x, int32_t rank, const char *path) {
  rank_reset(x, rank);
  if (x->failure.rc) return -1;
  x->out = fopen(path, "w");
  if (!x->out) return xp_fail(&x->failure, 1, "cannot create %s: %s", path, strerror(errno));
  setvbuf(x->out, x->obuf, _IOFBF, 1 << 16);
  char err[1024];
  xp_events e;
  int rc = 0;
  tf_status st = xp_events_open(&e, x->t, rank, err, sizeof err);
  if (st != TF_OK) {
    rc = xp_fail(&x->failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  } else {
    int got;
    while (rc == 0 && (got = xp_events_next(&e)) == 1) {
      x->seq = e.seq;
      if (!e.fd) {
        rc = refuse(x, "function %u is not in the trace's function table", e.ev.fn);
        break;
      }
      x->fname = e.fd->name;
      x->F = (xfields){x->acts[e.ev.fn], e.ev.fn, xp_fieldmap_row(&x->slots, e.ev.fn), e.fields};
      if (!e.fits) {
        rc = refuse(x, "%s: its %u values do not fit the function's %u fields", e.fd->name, e.ev.nvals,
                    e.fd->nfields);
      } else if (e.ev.thread != 0) {
        rc = refuse(x, "%s on thread %u has no action in SimGrid's time-independent format (one sequence of "
                       "actions per rank)", e.fd->name, e.ev.thread);
      } else {
        if (x->opts->compute && x->F.a != A_INIT) x->flops += flops_of(x, e.ev.compute_ns);
        rc = event_actions(x);
      }
    }
    if (rc == 0 && got < 0) rc = xp_fail(&x->failure, 2, "%s", xp_events_error(&e));
    xp_events_close(&e);
  }
  if (rc == 0 && x->shared_keys)
    xp_note(x->opts->note, x->opts->note_arg, "rank %d: %" PRIu64 " requests were posted while another with the same source, destination and tag was "
            "pending; SimGrid's replay keeps one request per (source, destination, tag), so a wait or waitall may "
            "not wait for them", rank, x->shared_keys);
  if (ferror(x->out) && rc == 0) rc = xp_fail(&x->failure, 1, "%s: write failed", path);
  if (fclose(x->out) != 0 && rc == 0) rc = xp_fail(&x->failure, 1, "%s: write failed: %s", path, strerror(errno));
  x->out = NULL;
  return rc;
}

/* What keeps a trace from being exported at all: NULL, or why. */
static const char *unexportable(const exporter *x) {
  const tf_trace_info *info = x->info;
  if (info->partial || info->nranks_present != info->nranks)
    return "is a partial trace (the run stopped before MPI_Finalize, or ranks are missing): SimGrid's replay needs "
           "every rank's whole run";
  if (info->lost_events)
    return "lost calls (the recorder stopped after an internal failure): its ranks' actions would not match";
  if (x->opts->compute && info->source != TF_SOURCE_FLAT && info->timing == TF_TIMING_NONE)
    return "keeps no times (recorded with TRACEFOLD_TIMING=none): export it with --compute none";
  return NULL;
}

tf_export_status tf_export_smpi(const char *trace, const char *outdir, const tf_export_smpi_opts *o, char *msg,
                                size_t msglen) {
  exporter x = {.opts = o};
  xp_outdir od;
  if (xp_outdir_check(&od, outdir, msg, msglen)) return TF_EXPORT_REFUSED;
  char err[1024];
  if (tf_trace_open(trace, 0, &x.t, err, sizeof err) != TF_OK) {
    snprintf(msg, msglen, "%s", err);
    return TF_EXPORT_REFUSED;
  }
  x.info = tf_trace_get_info(x.t);
  x.nranks = x.info->nranks;
  const char *why = unexportable(&x);
  if (why) {
    snprintf(msg, msglen, "%s: %s", trace, why);
    tf_trace_close(x.t);
    return TF_EXPORT_REFUSED;
  }
  /* per function: what it becomes and where its fields are */
  int rc = 0;
  x.acts = malloc((x.info->nfuncs + 1) * sizeof *x.acts);
  x.obuf = malloc(1 << 16);
  if (!x.acts || !x.obuf || xp_fieldmap_init(&x.slots, x.info, slot_specs, F_NSLOTS) ||
      xp_completions_init(&x.comp, x.info) || xp_wildcards_init(&x.wild, x.t, &x.comp))
    rc = xp_fail(&x.failure, 1, "out of memory");
  for (uint32_t fn = 0; rc == 0 && fn < x.info->nfuncs; fn++) x.acts[fn] = classify(&x.info->funcs[fn]);
  /* written beside OUTDIR, renamed when complete */
  if (rc == 0 && xp_outdir_begin(&od, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1; /* x.failure.err says why */
  char path[PATH_MAX + 64];
  for (int32_t r = 0; rc == 0 && r < x.nranks; r++) {
    snprintf(path, sizeof path, "%s/rank-%d.txt", od.tmp, r);
    rc = export_rank(&x, r, path);
  }
  if (rc == 0) {
    snprintf(path, sizeof path, "%s/index.txt", od.tmp);
    FILE *f = fopen(path, "w");
    for (int32_t r = 0; f && r < x.nranks; r++) fprintf(f, "%s/rank-%d.txt\n", od.path, r);
    if (!f || ferror(f) | (fclose(f) != 0)) rc = xp_fail(&x.failure, 1, "cannot write %s", path);
  }
  if (rc == 0 && xp_outdir_commit(&od, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1; /* x.failure.err says why */
  if (rc != 0) xp_outdir_discard(&od);
  if (rc != 0)
    snprintf(msg, msglen, "%s: %s", trace, x.failure.err);
  else
    snprintf(msg, msglen, "%s/index.txt: %d rank files of SimGrid time-independent actions", od.path, x.nranks);
  xp_wildcards_free(&x.wild);
  xp_completions_free(&x.comp);
  xp_fieldmap_free(&x.slots);
  xp_done_list_free(&x.done);
  free(x.comms);
  free(x.reqs);
  free(x.acts);
  free(x.obuf);
  tf_trace_close(x.t);
  return rc == 0 ? TF_EXPORT_OK : (tf_export_status)x.failure.rc;
}
