/* messages.c — the point-to-point messages of a rank's events; see messages.h. */
#include "messages.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

typedef enum cls {
  C_NONE = 0, C_SEND, C_ISEND, C_PSEND, C_RECV, C_IRECV, C_PRECV, C_SENDRECV, C_MPROBE, C_MRECV, C_IMRECV,
  C_START, C_STARTALL, C_FREE
} cls;

static const struct {
  const char *name;
  cls c;
} classes[] = {
    {"MPI_Send", C_SEND},           {"MPI_Bsend", C_SEND},        {"MPI_Ssend", C_SEND},
    {"MPI_Rsend", C_SEND},          {"MPI_Isend", C_ISEND},       {"MPI_Ibsend", C_ISEND},
    {"MPI_Issend", C_ISEND},        {"MPI_Irsend", C_ISEND},      {"MPI_Send_init", C_PSEND},
    {"MPI_Bsend_init", C_PSEND},    {"MPI_Ssend_init", C_PSEND},  {"MPI_Rsend_init", C_PSEND},
    {"MPI_Recv", C_RECV},           {"MPI_Irecv", C_IRECV},       {"MPI_Recv_init", C_PRECV},
    {"MPI_Sendrecv", C_SENDRECV},   {"MPI_Sendrecv_replace", C_SENDRECV},
    {"MPI_Mprobe", C_MPROBE},       {"MPI_Improbe", C_MPROBE},    {"MPI_Mrecv", C_MRECV},
    {"MPI_Imrecv", C_IMRECV},       {"MPI_Start", C_START},       {"MPI_Startall", C_STARTALL},
    {"MPI_Request_free", C_FREE},
};

enum {
  F_DEST, F_SOURCE, F_TAG, F_STAG, F_RTAG, F_BYTES, F_SBYTES, F_RBYTES, F_COMM, F_REQ, F_REQS, F_SRC, F_MTAG,
  F_MBYTES, F_MSG, F_MSGNEW, F_FLAG, NSPECS
};
static const xp_field_spec specs[NSPECS] = {
    {"dest", 0},     {"source", 0},     {"tag", 0},        {"sendtag", 0},      {"recvtag", 0},      {"bytes", 0},
    {"sendbytes", 0}, {"recvbytes", 0}, {NULL, TF_FIELD_COMM}, {"request", 0}, {"array_of_requests", 0},
    {"status.src", 0}, {"status.tag", 0}, {"status.bytes", 0}, {NULL, TF_FIELD_MSG}, {NULL, TF_FIELD_MSG_NEW},
    {"flag", 0},
};

/* a request: what it sends or receives */
struct xp_preq {
  int64_t id;
  int recv, persistent, real; /* real 0: MPI_PROC_NULL, nothing moves */
  int64_t comm, src, tag;     /* src: offset (receive: may be ANY_SOURCE) */
  uint64_t bytes;
  int idle; /* persistent: not started since made or last completed (completing it then moves nothing) */
};

/* a matched probe: the message MPI_Mrecv/MPI_Imrecv will receive */
struct xp_pmsg {
  int64_t id, comm, src, tag;
  uint64_t bytes;
};

int xp_msgs_init(xp_msgs *m, const tf_trace_info *info, const xp_comms *comms) {
  *m = (xp_msgs){.comms = comms};
  m->cls = calloc(info->nfuncs + 1, 1);
  if (!m->cls || xp_completions_init(&m->comp, info) || xp_fieldmap_init(&m->map, info, specs, NSPECS)) {
    xp_msgs_free(m);
    return -1;
  }
  for (uint32_t fn = 0; fn < info->nfuncs; fn++)
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
      if (strcmp(info->funcs[fn].name, classes[i].name) == 0) m->cls[fn] = (uint8_t)classes[i].c;
  return 0;
}

void xp_msgs_free(xp_msgs *m) {
  free(m->cls);
  xp_completions_free(&m->comp);
  xp_fieldmap_free(&m->map);
  free(m->reqs);
  free(m->probed);
  xp_done_list_free(&m->done);
  free(m->out);
  *m = (xp_msgs){0};
}

void xp_msgs_rank(xp_msgs *m, int32_t rank) {
  m->rank = rank;
  m->nreqs = m->nprobed = m->n = 0;
}

int xp_msgs_is_p2p(const xp_msgs *m, uint32_t fn) {
  return fn < m->map.nfuncs && (m->cls[fn] != C_NONE || m->comp.kind[fn] != XP_NOT_A_COMPLETION);
}

static uint64_t ubytes(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

/* One message of the current event; 0 or -1. */
static int put(xp_msgs *m, xp_msg_kind kind, int64_t comm, int64_t off, int64_t tag, uint64_t bytes, int64_t req) {
  xp_msg *nv = xp_grow(m->out, m->n, &m->cap, sizeof *nv);
  if (!nv) return -1;
  m->out = nv;
  xp_msg x = {.kind = kind, .comm = comm, .local = -1, .peer = -1, .tag = tag >= 0 ? tag : -1, .bytes = bytes,
              .req = req};
  uint32_t idx;
  x.inst = xp_comms_of(m->comms, m->rank, comm, &idx);
  if (off > TF_SPECIAL_MAX) {
    if (x.inst >= 0) x.local = (int64_t)idx + off;
    x.peer = xp_comms_peer(m->comms, m->rank, comm, off);
  }
  m->out[m->n++] = x;
  return 0;
}

static struct xp_preq *req_find(xp_msgs *m, int64_t id) {
  for (size_t i = m->nreqs; i-- > 0;)
    if (m->reqs[i].id == id) return &m->reqs[i];
  return NULL;
}

static int req_add(xp_msgs *m, struct xp_preq r) {
  if (r.id <= TF_SPECIAL_MAX) return 0;
  r.idle = r.persistent; /* a persistent request is made inactive (MPI_*_init); MPI_Start makes it active */
  struct xp_preq *o = req_find(m, r.id);
  if (o) {
    *o = r;
    return 0;
  }
  struct xp_preq *nv = xp_grow(m->reqs, m->nreqs, &m->capreqs, sizeof *nv);
  if (!nv) return -1;
  m->reqs = nv;
  m->reqs[m->nreqs++] = r;
  return 0;
}

static void req_drop(xp_msgs *m, struct xp_preq *r) { *r = m->reqs[--m->nreqs]; }

/* a posted or started request's message */
static int post(xp_msgs *m, const struct xp_preq *r) {
  if (!r->real) return 0;
  return r->recv ? put(m, XP_IRECV_POST, r->comm, r->src == TF_ANY_SOURCE ? TF_NONE : r->src, r->tag, r->bytes, r->id)
                 : put(m, XP_ISEND, r->comm, r->src, r->tag, r->bytes, r->id);
}


/* A completed request's message. */
static int complete(xp_msgs *m, struct xp_preq *r, const xp_done *d) {
  int rc = 0;
  if (r->persistent && r->idle) return 0; /* an inactive request: an empty status, no message */
  if (r->real && !r->recv) {
    rc = put(m, XP_ISEND_DONE, r->comm, r->src, r->tag, r->bytes, r->id);
  } else if (r->real && d->src != TF_PROC_NULL) {
    int64_t src = d->src > TF_SPECIAL_MAX ? d->src : r->src;
    rc = put(m, XP_IRECV_DONE, r->comm, src == TF_ANY_SOURCE ? TF_NONE : src, d->tag >= 0 ? d->tag : r->tag,
             d->bytes > TF_SPECIAL_MAX ? ubytes(d->bytes) : r->bytes, r->id);
  }
  if (!r->persistent) req_drop(m, r);
  else r->idle = 1;
  return rc;
}

static int by_id(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* The requests the completion call in m->done completed. MPICH hands out
 * one handle for every request that is complete when created (a send it
 * finished at once, a receive from MPI_PROC_NULL), so the recorder names
 * them all by the id of the last one: a call that completes id X k times
 * completed X and the k - 1 requests of X's direction pending before it
 * (the most recent ones, not otherwise named by the call). */
static int completed(xp_msgs *m) {
  size_t n = m->done.n;
  int64_t *ids = n > 1 ? malloc(2 * n * sizeof *ids) : NULL;
  if (n > 1 && !ids) return -1;
  int64_t *dir = ids ? ids + n : NULL; /* per slot: 1 receive, 0 send, -1 unknown */
  for (size_t k = 0; k < n; k++) {
    struct xp_preq *r = req_find(m, m->done.v[k].id);
    if (dir) dir[k] = r ? r->recv : -1;
    if (r && complete(m, r, &m->done.v[k])) {
      free(ids);
      return -1;
    }
  }
  if (n < 2) return 0;
  for (size_t k = 0; k < n; k++) ids[k] = m->done.v[k].id;
  qsort(ids, n, sizeof *ids, by_id);
  int rc = 0;
  for (size_t a = 0, b; rc == 0 && a < n; a = b) {
    for (b = a + 1; b < n && ids[b] == ids[a];) b++;
    if (b - a < 2 || ids[a] <= TF_SPECIAL_MAX) continue;
    const xp_done *d = NULL; /* the status of X's last slot, and X's direction */
    int recv = -1;
    for (size_t k = 0; k < n; k++)
      if (m->done.v[k].id == ids[a]) {
        d = &m->done.v[k];
        if (dir[k] >= 0) recv = (int)dir[k];
      }
    for (size_t extra = b - a - 1; rc == 0 && extra > 0; extra--) {
      struct xp_preq *best = NULL;
      for (size_t i = 0; i < m->nreqs; i++) {
        struct xp_preq *r = &m->reqs[i];
        if (r->persistent || r->id >= ids[a] || (best && r->id < best->id) || (recv >= 0 && r->recv != recv)) continue;
        if (bsearch(&r->id, ids, n, sizeof *ids, by_id)) continue; /* named by the call itself */
        best = r;
      }
      if (!best) break;
      recv = best->recv;
      rc = complete(m, best, d);
    }
  }
  free(ids);
  return rc;
}

int xp_msgs_event(xp_msgs *m, const xp_events *e) {
  m->n = 0;
  m->done.n = 0;
  if (!e->fits || e->ev.fn >= m->map.nfuncs) return 0;
  const int32_t *at = xp_fieldmap_row(&m->map, e->ev.fn);
  const tf_field_value *f = e->fields;
#define SV(k) xp_scalar(f, at[k])
  int64_t comm = SV(F_COMM);
  switch ((cls)m->cls[e->ev.fn]) {
  case C_SEND:
    return SV(F_DEST) == TF_PROC_NULL ? 0 : put(m, XP_SEND, comm, SV(F_DEST), SV(F_TAG), ubytes(SV(F_BYTES)), 0);
  case C_ISEND:
  case C_PSEND: {
    int64_t dest = SV(F_DEST);
    struct xp_preq r = {SV(F_REQ), 0, m->cls[e->ev.fn] == C_PSEND, dest != TF_PROC_NULL, comm, dest, SV(F_TAG),
                        ubytes(SV(F_BYTES)), 0};
    if (req_add(m, r)) return -1;
    return r.persistent ? 0 : post(m, &r);
  }
  case C_RECV: {
    int64_t src = SV(F_SOURCE), tag = SV(F_TAG), ms = SV(F_SRC), mt = SV(F_MTAG), mb = SV(F_MBYTES);
    if (src == TF_PROC_NULL || ms == TF_PROC_NULL) return 0;
    return put(m, XP_RECV, comm, ms > TF_SPECIAL_MAX ? ms : src, mt >= 0 ? mt : tag,
               mb > TF_SPECIAL_MAX ? ubytes(mb) : ubytes(SV(F_BYTES)), 0);
  }
  case C_IRECV:
  case C_PRECV: {
    int64_t src = SV(F_SOURCE);
    struct xp_preq r = {SV(F_REQ), 1, m->cls[e->ev.fn] == C_PRECV, src != TF_PROC_NULL, comm, src, SV(F_TAG),
                        ubytes(SV(F_BYTES)), 0};
    if (req_add(m, r)) return -1;
    return r.persistent ? 0 : post(m, &r);
  }
  case C_SENDRECV: {
    int64_t dest = SV(F_DEST), src = SV(F_SOURCE), ms = SV(F_SRC), mt = SV(F_MTAG), mb = SV(F_MBYTES);
    int have_s = at[F_SBYTES] >= 0;
    uint64_t sb = ubytes(SV(have_s ? F_SBYTES : F_BYTES)), rb = ubytes(SV(have_s ? F_RBYTES : F_BYTES));
    if (dest != TF_PROC_NULL && put(m, XP_SEND, comm, dest, SV(F_STAG), sb, 0)) return -1;
    if (src == TF_PROC_NULL || ms == TF_PROC_NULL) return 0;
    return put(m, XP_RECV, comm, ms > TF_SPECIAL_MAX ? ms : src, mt >= 0 ? mt : SV(F_RTAG),
               mb > TF_SPECIAL_MAX ? ubytes(mb) : rb, 0);
  }
  case C_MPROBE: {
    int64_t id = SV(F_MSGNEW);
    if (id <= TF_SPECIAL_MAX || (at[F_FLAG] >= 0 && SV(F_FLAG) != 1)) return 0;
    struct xp_pmsg *nv = xp_grow(m->probed, m->nprobed, &m->capprobed, sizeof *nv);
    if (!nv) return -1;
    m->probed = nv;
    m->probed[m->nprobed++] = (struct xp_pmsg){id, comm, SV(F_SRC), SV(F_MTAG), ubytes(SV(F_MBYTES))};
    return 0;
  }
  case C_MRECV:
  case C_IMRECV: {
    int64_t id = SV(F_MSG);
    for (size_t i = 0; i < m->nprobed; i++)
      if (m->probed[i].id == id) {
        struct xp_pmsg p = m->probed[i];
        m->probed[i] = m->probed[--m->nprobed];
        if (p.src == TF_PROC_NULL) return 0;
        if (m->cls[e->ev.fn] == C_MRECV) return put(m, XP_RECV, p.comm, p.src, p.tag, p.bytes, 0);
        struct xp_preq r = {SV(F_REQ), 1, 0, 1, p.comm, p.src, p.tag, p.bytes, 0};
        if (req_add(m, r)) return -1;
        return post(m, &r);
      }
    return 0; /* MPI_MESSAGE_NO_PROC, or a probe the trace does not hold */
  }
  case C_START:
  case C_STARTALL: {
    uint32_t nr = 1;
    int64_t one = SV(F_REQ);
    const int64_t *ids = m->cls[e->ev.fn] == C_START ? &one : xp_array(f, at[F_REQS], &nr);
    for (uint32_t k = 0; k < nr; k++) {
      struct xp_preq *r = req_find(m, ids[k]);
      if (r) r->idle = 0;
      if (r && post(m, r)) return -1;
    }
    return 0;
  }
  case C_FREE: {
    struct xp_preq *r = req_find(m, SV(F_REQ));
    if (r) req_drop(m, r);
    return 0;
  }
  case C_NONE: break;
  }
#undef SV
  if (xp_completed(&m->comp, e->ev.fn, f, &m->done)) return -1;
  return completed(m);
}
