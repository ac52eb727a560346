/* otf2.c — a trace as an OTF2 archive (the Open Trace Format 2 of Score-P,
 * read by Vampir, Scalasca and otf2-print), written with the OTF2 library
 * (tf_export_otf2, export.h; doc/EXPORT.md "OTF2").
 *
 * Definitions: a location group (process) per rank, a location (CPU thread)
 * per MPI thread of it, a region per MPI function, a group and a
 * communicator per communicator instance (comms.h: MPI_COMM_WORLD, each
 * rank's MPI_COMM_SELF, and each communicator a constructor made, with its
 * members in world ranks). Events: Enter and Leave around every call;
 * inside them MpiSend/MpiRecv, MpiIsend/MpiIsendComplete and
 * MpiIrecvRequest/MpiIrecv for point-to-point messages (messages.h),
 * MpiCollectiveBegin/End for blocking collectives and
 * NonBlockingCollectiveRequest/Complete for nonblocking ones, with the
 * bytes, root, tag and communicator the call recorded. Timestamps are
 * regenerated from the trace's delta times (clock.h), in ns: exact for flat
 * input, else each event's mean (per path) — the archive's properties
 * TRACEFOLD::TIMESTAMPS and TRACEFOLD::TIMING say which.
 *
 * Built only when CMake found the OTF2 library (TF_HAVE_OTF2); otherwise
 * tf_export_otf2 refuses, saying so.
 */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"
#include "failure.h"

#ifndef TF_HAVE_OTF2

int tf_export_otf2_available(void) { return 0; }

tf_export_status tf_export_otf2(const char *trace, const char *outdir, const tf_export_otf2_opts *o, char *msg,
                                size_t msglen) {
  (void)trace;
  (void)outdir;
  (void)o;
  snprintf(msg, msglen, "this tracefold was built without the OTF2 library (Debian: libopen-trace-format2-dev; "
                        "reconfigure and rebuild with it)");
  return TF_EXPORT_REFUSED;
}

#else

#include <otf2/otf2.h>

#include "clock.h"
#include "comms.h"
#include "events.h"
#include "grow.h"
#include "messages.h"
#include "outdir.h"

int tf_export_otf2_available(void) { return 1; }

/* ------------------------------------------------------------ what each function is */

static const struct {
  const char *name; /* without "MPI_" or "MPI_I" */
  OTF2_CollectiveOp op;
  OTF2_RegionRole role;
} collectives[] = {
    {"Barrier", OTF2_COLLECTIVE_OP_BARRIER, OTF2_REGION_ROLE_BARRIER},
    {"Bcast", OTF2_COLLECTIVE_OP_BCAST, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Gather", OTF2_COLLECTIVE_OP_GATHER, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Scatter", OTF2_COLLECTIVE_OP_SCATTER, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, OTF2_REGION_ROLE_COLL_ONE2ALL},
    {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Reduce", OTF2_COLLECTIVE_OP_REDUCE, OTF2_REGION_ROLE_COLL_ALL2ONE},
    {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, OTF2_REGION_ROLE_COLL_ALL2ALL},
    {"Scan", OTF2_COLLECTIVE_OP_SCAN, OTF2_REGION_ROLE_COLL_OTHER},
    {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN, OTF2_REGION_ROLE_COLL_OTHER},
};

typedef struct fninfo {
  int coll;              /* -1: not a collective; else its OTF2_CollectiveOp */
  int nonblocking;       /* MPI_I<collective> */
  OTF2_RegionRole role;
} fninfo;

static fninfo classify(const tf_func_desc *d) {
  fninfo f = {.coll = -1, .role = OTF2_REGION_ROLE_FUNCTION};
  const char *n = d->name;
  if (strncmp(n, "MPI_", 4) == 0) n += 4;
  for (int nb = 0; nb < 2; nb++) {
    const char *m = nb ? (n[0] == 'I' ? n + 1 : NULL) : n;
    for (size_t i = 0; m && i < sizeof collectives / sizeof collectives[0]; i++)
      if (strcasecmp(m, collectives[i].name) == 0) return (fninfo){(int)collectives[i].op, nb, collectives[i].role};
  }
  for (uint32_t k = 0; k < d->nfields; k++)
    if (d->fields[k].kind == TF_FIELD_PEER) f.role = OTF2_REGION_ROLE_POINT2POINT;
  return f;
}

/* the fields a collective's sizes and root come from */
enum { F_ROOT, F_SBYTES, F_RBYTES, F_BYTES, F_COMM, F_REQ, NSPECS };
static const xp_field_spec specs[NSPECS] = {{"root", 0},  {"sendbytes", 0},       {"recvbytes", 0},
                                            {"bytes", 0}, {NULL, TF_FIELD_COMM}, {NULL, TF_FIELD_REQ_NEW}};

/* ------------------------------------------------------------ the exporter */

typedef struct loc {
  int32_t rank;
  uint32_t thread;
  uint64_t nevents;
} loc;

typedef struct pcoll { /* a pending nonblocking collective */
  int64_t req;
  OTF2_CollectiveOp op;
  OTF2_CommRef comm;
  uint32_t root;
  uint64_t sent, recvd;
} pcoll;

typedef struct ox {
  tf_trace *t;
  const tf_trace_info *info;
  const tf_export_otf2_opts *o;
  xp_comms comms;
  xp_msgs msgs;
  xp_clock clk;
  xp_fieldmap map;
  fninfo *fns;
  OTF2_Archive *ar;
  loc *locs;
  size_t nlocs, caplocs;
  pcoll *pend;
  size_t npend, cappend;
  OTF2_EvtWriter **w; /* the current rank's writers, per thread */
  uint32_t nw;
  uint64_t first, last; /* timestamps */
  uint64_t done;        /* events read */
  xp_failure failure;
} ox;

static ox *the_ox; /* for the OTF2 error callback */

static OTF2_ErrorCode otf2_error(void *data, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                 const char *fmt, va_list va) {
  (void)data;
  (void)file;
  (void)line;
  (void)fn;
  if (the_ox && !the_ox->failure.rc) {
    char m[512];
    vsnprintf(m, sizeof m, fmt ? fmt : "", va);
    snprintf(the_ox->failure.err, sizeof the_ox->failure.err, "OTF2: %s: %s", OTF2_Error_GetName(code), m);
    the_ox->failure.rc = 1;
  }
  return code;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final) {
  (void)u;
  (void)ft;
  (void)l;
  (void)c;
  (void)final;
  return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_cbs = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

static OTF2_LocationRef loc_of(const ox *x, int32_t rank, uint32_t thread) {
  return (OTF2_LocationRef)thread * (OTF2_LocationRef)x->info->nranks + (OTF2_LocationRef)rank;
}

static OTF2_EvtWriter *writer(ox *x, int32_t rank, uint32_t thread) {
  if (thread >= x->nw) {
    OTF2_EvtWriter **nw = realloc(x->w, (thread + 1) * sizeof *nw);
    if (!nw) return xp_fail(&x->failure, 1, "out of memory"), NULL;
    for (uint32_t i = x->nw; i <= thread; i++) nw[i] = NULL;
    x->w = nw;
    x->nw = thread + 1;
  }
  if (!x->w[thread]) {
    x->w[thread] = OTF2_Archive_GetEvtWriter(x->ar, loc_of(x, rank, thread));
    if (!x->w[thread]) xp_fail(&x->failure, 1, "OTF2: no event writer for rank %d thread %u", rank, thread);
  }
  return x->w[thread];
}

static OTF2_CommRef comm_ref(int32_t inst) { return inst < 0 ? OTF2_UNDEFINED_COMM : (OTF2_CommRef)inst; }
static uint32_t u32(int64_t v) { return v < 0 || v > (int64_t)UINT32_MAX - 3 ? OTF2_UNDEFINED_UINT32 : (uint32_t)v; }

/* The messages of the event: the ones at its start (sends, posts) or at its end. */
static void messages(ox *x, OTF2_EvtWriter *w, uint64_t t, int at_end) {
  for (size_t i = 0; i < x->msgs.n; i++) {
    const xp_msg *m = &x->msgs.out[i];
    OTF2_CommRef c = comm_ref(m->inst);
    uint32_t peer = u32(m->local), tag = u32(m->tag);
    uint64_t req = (uint64_t)m->req;
    int end = m->kind == XP_ISEND_DONE || m->kind == XP_RECV || m->kind == XP_IRECV_DONE;
    if (end != at_end) continue;
    switch (m->kind) {
    case XP_SEND: OTF2_EvtWriter_MpiSend(w, NULL, t, peer, c, tag, m->bytes); break;
    case XP_ISEND: OTF2_EvtWriter_MpiIsend(w, NULL, t, peer, c, tag, m->bytes, req); break;
    case XP_ISEND_DONE: OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, req); break;
    case XP_RECV: OTF2_EvtWriter_MpiRecv(w, NULL, t, peer, c, tag, m->bytes); break;
    case XP_IRECV_POST: OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, req); break;
    case XP_IRECV_DONE: OTF2_EvtWriter_MpiIrecv(w, NULL, t, peer, c, tag, m->bytes, req); break;
    }
  }
}

/* A collective's sizes and root, as the call's own arguments give them. */
static void coll_args(ox *x, const xp_events *e, int32_t rank, pcoll *p) {
  const int32_t *at = xp_fieldmap_row(&x->map, e->ev.fn);
  const tf_field_value *f = e->fields;
  int64_t root = xp_scalar(f, at[F_ROOT]), sb = xp_scalar(f, at[F_SBYTES]), rb = xp_scalar(f, at[F_RBYTES]);
  int64_t b = xp_scalar(f, at[F_BYTES]);
  uint32_t idx = 0;
  p->comm = comm_ref(xp_comms_of(&x->comms, rank, xp_scalar(f, at[F_COMM]), &idx));
  p->root = at[F_ROOT] < 0 ? OTF2_COLLECTIVE_ROOT_NONE : u32(root);
  int isroot = at[F_ROOT] >= 0 && root == (int64_t)idx;
  int64_t sent = at[F_SBYTES] >= 0 ? sb : b, recvd = at[F_RBYTES] >= 0 ? rb : b;
  if (p->op == OTF2_COLLECTIVE_OP_BCAST) (isroot ? &recvd : &sent)[0] = 0;
  if (p->op == OTF2_COLLECTIVE_OP_REDUCE && !isroot) recvd = 0;
  p->sent = sent > 0 ? (uint64_t)sent : 0;
  p->recvd = recvd > 0 ? (uint64_t)recvd : 0;
}

static int event(ox *x, const xp_events *e, int32_t rank) {
  uint64_t cs, s, end;
  if (xp_clock_event(&x->clk, e, &cs, &s, &end)) return xp_fail(&x->failure, 1, "out of memory");
  OTF2_EvtWriter *w = writer(x, rank, e->ev.thread);
  if (!w) return -1;
  if (s < x->first) x->first = s;
  if (end > x->last) x->last = end;
  if (xp_msgs_event(&x->msgs, e)) return xp_fail(&x->failure, 1, "out of memory");
  const fninfo *fi = &x->fns[e->ev.fn];
  OTF2_EvtWriter_Enter(w, NULL, s, (OTF2_RegionRef)e->ev.fn);
  messages(x, w, s, 0);
  pcoll p = {.op = (OTF2_CollectiveOp)(fi->coll < 0 ? 0 : fi->coll)};
  if (fi->coll >= 0 && e->fits) {
    coll_args(x, e, rank, &p);
    if (!fi->nonblocking) {
      OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, s);
      OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, end, p.op, p.comm, p.root, p.sent, p.recvd);
    } else {
      p.req = xp_scalar(e->fields, xp_fieldmap_row(&x->map, e->ev.fn)[F_REQ]);
      OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, s, (uint64_t)p.req);
      pcoll *nv = xp_grow(x->pend, x->npend, &x->cappend, sizeof *nv);
      if (!nv) return xp_fail(&x->failure, 1, "out of memory");
      x->pend = nv;
      x->pend[x->npend++] = p;
    }
  }
  messages(x, w, end, 1);
  /* nonblocking collectives this call completed */
  const xp_done_list *d = &x->msgs.done;
  for (size_t k = 0; x->npend && d->n && k < d->n; k++)
    for (size_t i = 0; i < x->npend; i++)
      if (x->pend[i].req == d->v[k].id) {
        const pcoll *q = &x->pend[i];
        OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, end, q->op, q->comm, q->root, q->sent, q->recvd,
                                                     (uint64_t)q->req);
        x->pend[i] = x->pend[--x->npend];
        break;
      }
  OTF2_EvtWriter_Leave(w, NULL, end, (OTF2_RegionRef)e->ev.fn);
  return x->failure.rc ? -1 : 0;
}

static int export_rank(ox *x, int32_t rank) {
  xp_events e;
  char err[1024];
  tf_status st = xp_events_open(&e, x->t, rank, err, sizeof err);
  if (st != TF_OK) return xp_fail(&x->failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  xp_msgs_rank(&x->msgs, rank);
  xp_clock_rank(&x->clk, rank);
  x->npend = 0;
  int got, rc = 0;
  while (rc == 0 && (got = xp_events_next(&e)) == 1) {
    if (!e.fd) {
      rc = xp_fail(&x->failure, 2, "rank %d event %" PRIu64 ": function %u is not in the trace's function table", rank, e.seq,
                e.ev.fn);
      break;
    }
    rc = event(x, &e, rank);
    if ((++x->done & 4095) == 0 && x->o->progress) x->o->progress(x->done, x->info->nevents, x->o->progress_arg);
  }
  if (rc == 0 && got < 0) rc = xp_fail(&x->failure, 2, "%s", xp_events_error(&e));
  xp_events_close(&e);
  for (uint32_t th = 0; th < x->nw; th++) {
    if (!x->w[th]) continue;
    uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(x->w[th], &n);
    loc *nv = xp_grow(x->locs, x->nlocs, &x->caplocs, sizeof *nv);
    if (!nv) {
      rc = xp_fail(&x->failure, 1, "out of memory");
    } else {
      x->locs = nv;
      x->locs[x->nlocs++] = (loc){rank, th, n};
    }
    if (OTF2_Archive_CloseEvtWriter(x->ar, x->w[th]) != OTF2_SUCCESS)
      rc = xp_fail(&x->failure, 1, "OTF2: closing an event writer failed");
    x->w[th] = NULL;
  }
  return rc;
}

/* ------------------------------------------------------------ definitions */

typedef struct strings {
  OTF2_GlobalDefWriter *g;
  OTF2_StringRef next;
} strings;

static OTF2_StringRef str(strings *s, const char *text) {
  OTF2_GlobalDefWriter_WriteString(s->g, s->next, text);
  return s->next++;
}

static int definitions(ox *x) {
  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
  if (!g) return xp_fail(&x->failure, 1, "OTF2: no global definition writer");
  const tf_trace_info *info = x->info;
  strings s = {g, 0};
  OTF2_StringRef empty = str(&s, "");
  uint64_t first = x->first <= x->last ? x->first : 0;
  OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, first, x->last - first + 1,
                                            info->start_unix_ns ? info->start_unix_ns : OTF2_UNDEFINED_TIMESTAMP);
  OTF2_StringRef mpi = str(&s, "MPI");
  OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, mpi, OTF2_PARADIGM_CLASS_PROCESS);
  for (uint32_t fn = 0; fn < info->nfuncs; fn++) {
    OTF2_StringRef name = str(&s, info->funcs[fn].name);
    OTF2_GlobalDefWriter_WriteRegion(g, fn, name, name, empty, x->fns[fn].role, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, mpi, 0, 0);
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", info->exe && *info->exe ? info->exe : "traced program");
  OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str(&s, buf), str(&s, "program"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  for (int32_t r = 0; r < info->nranks; r++) {
    snprintf(buf, sizeof buf, "MPI Rank %d", r);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r, str(&s, buf),
                                            OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
  }
  for (size_t i = 0; i < x->nlocs; i++) {
    const loc *l = &x->locs[i];
    if (l->thread) snprintf(buf, sizeof buf, "rank %d thread %u", l->rank, l->thread);
    else snprintf(buf, sizeof buf, "rank %d", l->rank);
    OTF2_GlobalDefWriter_WriteLocation(g, loc_of(x, l->rank, l->thread), str(&s, buf), OTF2_LOCATION_TYPE_CPU_THREAD,
                                       l->nevents, (OTF2_LocationGroupRef)l->rank);
  }
  /* group 0: the locations of the ranks (thread 0 of each); group i + 1: instance i's ranks */
  uint64_t *mem = malloc(((size_t)info->nranks + 1) * sizeof *mem);
  if (!mem) return xp_fail(&x->failure, 1, "out of memory");
  for (int32_t r = 0; r < info->nranks; r++) mem[r] = loc_of(x, r, 0);
  OTF2_GlobalDefWriter_WriteGroup(g, 0, str(&s, "MPI ranks"), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, (uint32_t)info->nranks, mem);
  for (size_t i = 0; i < x->comms.n; i++) {
    const xp_comm *c = &x->comms.v[i];
    for (uint32_t k = 0; k < c->n; k++) mem[k] = (uint64_t)c->members[k];
    if (c->id == 1) snprintf(buf, sizeof buf, "MPI_COMM_WORLD");
    else if (c->id == 2) snprintf(buf, sizeof buf, "MPI_COMM_SELF (rank %d)", c->members[0]);
    else snprintf(buf, sizeof buf, "%s id %" PRId64 " (ranks %d..)%s", c->made_by, c->id, c->n ? c->members[0] : -1,
                  c->exact ? "" : " [members inferred]");
    OTF2_StringRef name = str(&s, buf);
    OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(i + 1), name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, c->n, mem);
    OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, name, (OTF2_GroupRef)(i + 1),
                                   c->parent < 0 ? OTF2_UNDEFINED_COMM : (OTF2_CommRef)c->parent, OTF2_COMM_FLAG_NONE);
  }
  free(mem);
  if (OTF2_Archive_CloseGlobalDefWriter(x->ar, g) != OTF2_SUCCESS)
    return xp_fail(&x->failure, 1, "OTF2: writing definitions failed");
  return x->failure.rc ? -1 : 0;
}

static int local_definitions(ox *x) {
  if (OTF2_Archive_OpenDefFiles(x->ar) != OTF2_SUCCESS) return xp_fail(&x->failure, 1, "OTF2: cannot open definition files");
  for (size_t i = 0; i < x->nlocs; i++) {
    OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->ar, loc_of(x, x->locs[i].rank, x->locs[i].thread));
    if (!d) return xp_fail(&x->failure, 1, "OTF2: no definition writer");
    OTF2_Archive_CloseDefWriter(x->ar, d);
  }
  return OTF2_Archive_CloseDefFiles(x->ar) == OTF2_SUCCESS ? 0 : xp_fail(&x->failure, 1, "OTF2: cannot close definition files");
}

static void properties(ox *x) {
  const tf_trace_info *info = x->info;
  char v[512];
  if (info->source == TF_SOURCE_FLAT)
    snprintf(v, sizeof v, "exact: from the flat trace's own delta times (per-thread clocks, ranks aligned at the end "
                          "of MPI_Init)");
  else if (info->timing == TF_TIMING_NONE)
    snprintf(v, sizeof v, "none: the trace keeps no times (TRACEFOLD_TIMING=none); every call takes 0 ns");
  else
    snprintf(v, sizeof v, "regenerated: each event's mean compute and call time as the trace keeps it (%s mode%s), "
                          "not the times of that occurrence; ranks aligned at the end of MPI_Init",
             tf_timing_mode_name(info->timing), info->timing == TF_TIMING_PATH ? ": the mean of its path" : "");
  OTF2_Archive_SetProperty(x->ar, "TRACEFOLD::TIMESTAMPS", v, true);
  snprintf(v, sizeof v, "%s, compute in %s%s", tf_timing_mode_name(info->timing), tf_time_unit_name(info->unit),
           info->unit == TF_UNIT_INSTRUCTIONS ? " (1 instruction counts as 1 ns)" : "");
  OTF2_Archive_SetProperty(x->ar, "TRACEFOLD::TIMING", v, true);
  snprintf(v, sizeof v, "%s",
           info->source == TF_SOURCE_FLAT ? "flat" : info->source == TF_SOURCE_MERGED ? "merged" : "compressed");
  OTF2_Archive_SetProperty(x->ar, "TRACEFOLD::SOURCE", v, true);
  snprintf(v, sizeof v, "%zu communicators; %u with members inferred (doc/EXPORT.md)", x->comms.n, x->comms.inexact);
  OTF2_Archive_SetProperty(x->ar, "TRACEFOLD::COMMUNICATORS", v, true);
  OTF2_Archive_SetProperty(x->ar, "TRACEFOLD::VERSION", TF_VERSION_STRING, true);
}

tf_export_status tf_export_otf2(const char *trace, const char *outdir, const tf_export_otf2_opts *o, char *msg,
                                size_t msglen) {
  ox x = {.o = o, .first = UINT64_MAX};
  xp_outdir od;
  if (xp_outdir_check(&od, outdir, msg, msglen)) return TF_EXPORT_REFUSED;
  char err[1024];
  if (tf_trace_open(trace, o->flat ? TF_OPEN_PREFER_FLAT : 0, &x.t, err, sizeof err) != TF_OK) {
    snprintf(msg, msglen, "%s", err);
    return TF_EXPORT_REFUSED;
  }
  x.info = tf_trace_get_info(x.t);
  int rc = 0;
  tf_status st;
  if ((st = xp_comms_build(&x.comms, x.t, err, sizeof err)) != TF_OK ||
      (st = xp_clock_init(&x.clk, x.t, err, sizeof err)) != TF_OK)
    rc = xp_fail(&x.failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  x.fns = malloc((x.info->nfuncs + 1) * sizeof *x.fns);
  if (rc == 0 && (!x.fns || xp_msgs_init(&x.msgs, x.info, &x.comms) || xp_fieldmap_init(&x.map, x.info, specs, NSPECS)))
    rc = xp_fail(&x.failure, 1, "out of memory");
  for (uint32_t fn = 0; rc == 0 && fn < x.info->nfuncs; fn++) x.fns[fn] = classify(&x.info->funcs[fn]);
  if (rc == 0 && xp_outdir_begin(&od, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1;
  if (rc == 0) {
    the_ox = &x;
    OTF2_Error_RegisterCallback(otf2_error, NULL);
    x.ar = OTF2_Archive_Open(od.tmp, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                             OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!x.ar) rc = xp_fail(&x.failure, 1, "OTF2: cannot create an archive in %s", od.tmp);
  }
  if (rc == 0) {
    OTF2_Archive_SetFlushCallbacks(x.ar, &flush_cbs, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(x.ar);
    OTF2_Archive_SetCreator(x.ar, "tracefold " TF_VERSION_STRING);
    OTF2_Archive_SetDescription(x.ar, x.info->exe ? x.info->exe : "");
    if (OTF2_Archive_OpenEvtFiles(x.ar) != OTF2_SUCCESS) rc = xp_fail(&x.failure, 1, "OTF2: cannot open event files");
  }
  for (int32_t r = 0; rc == 0 && r < x.info->nranks; r++)
    if (tf_trace_rank(x.t, r, NULL, NULL)) rc = export_rank(&x, r);
  if (x.ar && rc == 0 && OTF2_Archive_CloseEvtFiles(x.ar) != OTF2_SUCCESS)
    rc = xp_fail(&x.failure, 1, "OTF2: cannot close event files");
  if (rc == 0) rc = local_definitions(&x);
  if (rc == 0) rc = definitions(&x);
  if (rc == 0) properties(&x);
  if (x.ar && OTF2_Archive_Close(x.ar) != OTF2_SUCCESS && rc == 0) rc = xp_fail(&x.failure, 1, "OTF2: closing the archive failed");
  if (rc == 0 && x.failure.rc) rc = -1;
  if (x.o->progress && rc == 0) x.o->progress(x.done, x.info->nevents, x.o->progress_arg);
  the_ox = NULL;
  if (rc == 0 && xp_outdir_commit(&od, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1;
  if (rc != 0) xp_outdir_discard(&od);
  if (rc == 0 && x.comms.inexact)
    xp_note(x.o->note, x.o->note_arg, "%u communicators were made by calls whose members the trace does not tell (MPI_Comm_create, "
             "MPI_Comm_split_type, graphs, intercommunicators, or MPI_Cart_create with reorder): their members are "
             "the ranks that hold them, in rank order", x.comms.inexact);
  if (rc == 0 && x.info->source != TF_SOURCE_FLAT && x.info->timing != TF_TIMING_NONE)
    xp_note(x.o->note, x.o->note_arg, "timestamps regenerated from the trace's mean times per event%s (exact from flat files: record with "
             "TRACEFOLD_MODE=both and export with --flat)",
         x.info->timing == TF_TIMING_PATH ? " and path" : "");
  if (rc != 0)
    snprintf(msg, msglen, "%s: %s", trace, x.failure.err);
  else
    snprintf(msg, msglen, "%s/traces.otf2: OTF2 archive of %d ranks, %zu locations, %" PRIu64 " calls", od.path,
             x.info->nranks, x.nlocs, x.done);
  free(x.fns);
  free(x.locs);
  free(x.pend);
  free(x.w);
  xp_fieldmap_free(&x.map);
  xp_msgs_free(&x.msgs);
  xp_clock_free(&x.clk);
  xp_comms_free(&x.comms);
  tf_trace_close(x.t);
  return rc == 0 ? TF_EXPORT_OK : (tf_export_status)(x.failure.rc ? x.failure.rc : 1);
}

#endif
