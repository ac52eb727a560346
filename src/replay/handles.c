/* handles.c — recorded object ids -> live MPI objects of the replay.
 *
 * The recorder gives every communicator, datatype, op, group, request and
 * message an id (handles.c of the recorder; doc/FORMAT.md): predefined
 * datatypes and ops by their place in tracefold_predefined.h, world = 1,
 * self = 2, created objects by creation order (communicators by parent and
 * child number). The replay creates the same objects in the same order and
 * registers each under the id the trace gives it. One map per kind, open
 * addressing; shared by the rank's threads under a lock. See handles.h.
 */
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "handles.h"
#include "scratch.h"
#include "tracefold_predefined.h"

#define COMM_WORLD_ID 1
#define COMM_SELF_ID 2
#define GROUP_EMPTY_ID 1

void rp_lock(rp_engine *E) {
  if (E->threaded) rp_sync_lock(E->objs);
}
void rp_unlock(rp_engine *E) {
  if (E->threaded) rp_sync_unlock(E->objs);
}

/* ------------------------------------------------------------ maps */

static uint64_t hash_id(int64_t id) {
  uint64_t x = (uint64_t)id * 0x9E3779B97F4A7C15ull;
  return x ^ (x >> 29);
}

static rp_obj *map_find(rp_map *m, int64_t id) {
  if (!m->cap) return NULL;
  for (size_t i = hash_id(id) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    rp_obj *o = &m->slots[i];
    if (o->used == 0) return NULL;
    if (o->used == 1 && o->id == id) return o;
  }
}

/* Rehash without the deleted slots: into twice the room if live objects
 * fill a quarter of it, else into the same room (requests come and go by
 * the million; a few are live at a time). */
static int map_grow(rp_map *m) {
  size_t cap = !m->cap ? 64 : 4 * (m->live + 1) > m->cap ? m->cap * 2 : m->cap;
  rp_obj *ns = calloc(cap, sizeof *ns);
  if (!ns) return -1;
  size_t used = 0;
  for (size_t k = 0; k < m->cap; k++) {
    if (m->slots[k].used != 1) continue;
    size_t i = hash_id(m->slots[k].id) & (cap - 1);
    while (ns[i].used) i = (i + 1) & (cap - 1);
    ns[i] = m->slots[k];
    used++;
  }
  free(m->slots);
  m->slots = ns;
  m->cap = cap;
  m->used = m->live = used;
  return 0;
}

/* The object of id, created if new (fields zeroed). NULL: out of memory. */
static rp_obj *map_put(rp_map *m, int64_t id) {
  rp_obj *o = map_find(m, id);
  if (o) return o;
  if (2 * (m->used + 1) > m->cap && map_grow(m)) return NULL;
  size_t i = hash_id(id) & (m->cap - 1);
  while (m->slots[i].used == 1) i = (i + 1) & (m->cap - 1);
  if (m->slots[i].used == 0) m->used++; /* a deleted slot is reused without counting again */
  m->live++;
  o = &m->slots[i];
  memset(o, 0, sizeof *o);
  o->used = 1;
  o->id = id;
  return o;
}

static void map_del(rp_map *m, int64_t id) {
  rp_obj *o = map_find(m, id);
  if (o) {
    o->used = 2;
    m->live--;
  }
}

/* Threaded replay: an object another thread creates may not exist yet;
 * wait until it is registered (a minute without any registration: the
 * trace is taken as wrong). Called with the lock held; returns with it held. */
static rp_obj *find_or_wait(rp_thread *T, rp_map *m, int64_t id) {
  rp_obj *o = map_find(m, id);
  while (!o && T->E->threaded && rp_sync_wait(T->E->objs, 60.0) == 0) o = map_find(m, id);
  return o;
}

static int64_t id_at(const rp_thread *T, int i) { return T->field[i].n ? T->field[i].v[0] : TF_NONE; }

/* A copy of the object registered under id (taken under the lock); if
 * there is none, stop with `missing` (a format taking the id). */
static rp_obj lookup(rp_thread *T, rp_map *m, int64_t id, const char *missing) {
  rp_lock(T->E);
  rp_obj *o = find_or_wait(T, m, id), copy = o ? *o : (rp_obj){0};
  rp_unlock(T->E);
  if (!o) rp_die(T, missing, (long long)id);
  return copy;
}

/* Drop the object of field i's id. */
static void forget(rp_thread *T, rp_map *m, int i) {
  rp_lock(T->E);
  map_del(m, id_at(T, i));
  rp_unlock(T->E);
}

/* Register id (lock held); threads waiting for an object look again. */
static rp_obj *put_or_die(rp_thread *T, rp_map *m, int64_t id) {
  rp_obj *o = map_put(m, id);
  if (!o) rp_die(T, "out of memory (object map)");
  if (T->E->threaded) rp_sync_broadcast(T->E->objs);
  return o;
}

/* d's extent and true bounds (a null datatype: one byte). */
static rp_typespan span_of(MPI_Datatype d) {
  MPI_Aint lb = 0, ext = 1, tlb = 0, text = 1;
  if (d != MPI_DATATYPE_NULL) {
    PMPI_Type_get_extent(d, &lb, &ext);
    PMPI_Type_get_true_extent(d, &tlb, &text);
  }
  return (rp_typespan){ext, tlb, tlb + text};
}

/* ------------------------------------------------------------ set-up */

int rp_handles_init(rp_engine *E) {
  if (!(E->objs = rp_sync_new())) return -1;
#define X(d) E->predef_dtypes[E->npredef_dtypes++] = d;
  TF_PREDEFINED_DTYPES(X)
#undef X
  for (uint32_t k = 0; k < E->npredef_dtypes; k++) E->predef_spans[k] = span_of(E->predef_dtypes[k]);
#define X(o) E->predef_ops[E->npredef_ops++] = o;
  TF_PREDEFINED_OPS(X)
#undef X
  rp_obj *w = map_put(&E->comms, COMM_WORLD_ID), *s = w ? map_put(&E->comms, COMM_SELF_ID) : NULL;
  if (!s) return -1;
  w->h.comm = MPI_COMM_WORLD;
  w->rank = E->rank;
  s->h.comm = MPI_COMM_SELF;
  s->rank = 0;
  return 0;
}

void rp_handles_free(rp_engine *E) {
  rp_map *owning[] = {&E->wins, &E->regions}; /* the memory of windows the trace did not free */
  for (size_t i = 0; i < sizeof owning / sizeof *owning; i++)
    for (size_t k = 0; k < owning[i]->cap; k++)
      if (owning[i]->slots[k].used == 1) free(owning[i]->slots[k].mem);
  rp_map *maps[] = {&E->comms, &E->dtypes, &E->ops, &E->groups, &E->reqs, &E->msgs, &E->wins, &E->regions, &E->files};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
    free(maps[i]->slots);
    *maps[i] = (rp_map){0};
  }
  rp_sync_free(E->objs);
  E->objs = NULL;
}

/* ------------------------------------------------------------ communicators */

MPI_Comm rp_comm(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_COMM_NULL;
  return lookup(T, &T->E->comms, id, "communicator %lld is used before the trace creates it").h.comm;
}

void rp_comm_new(rp_thread *T, int i, MPI_Comm c) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX || c == MPI_COMM_NULL) return; /* MPI_COMM_NULL for this rank, as recorded */
  int r = rp_comm_rank(c);
  rp_lock(T->E);
  rp_obj *o = put_or_die(T, &T->E->comms, id);
  o->h.comm = c;
  o->rank = r;
  rp_unlock(T->E);
}

void rp_comm_forget(rp_thread *T, int i) { forget(T, &T->E->comms, i); }

/* ------------------------------------------------------------ datatypes */

static MPI_Datatype dtype_of(rp_thread *T, int64_t id, rp_typespan *span) {
  rp_engine *E = T->E;
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_DATATYPE_NULL;
  if (id >= 1 && id <= (int64_t)E->npredef_dtypes) {
    if (span) *span = E->predef_spans[id - 1];
    return E->predef_dtypes[id - 1];
  }
  rp_obj o = lookup(T, &E->dtypes, id, "datatype %lld is used before the trace creates it");
  if (span) *span = o.span;
  return o.h.dtype;
}

MPI_Datatype rp_dtype(rp_thread *T, int i) { return dtype_of(T, id_at(T, i), NULL); }

static MPI_Datatype *dtypes_in(rp_thread *T, int i, int keep) {
  size_t bytes = (T->field[i].n + 1) * sizeof(MPI_Datatype);
  MPI_Datatype *a = keep ? rp_alloc_kept(T, bytes) : rp_alloc(T, bytes);
  for (uint32_t k = 0; k < T->field[i].n; k++) a[k] = dtype_of(T, T->field[i].v[k], NULL);
  return a;
}
MPI_Datatype *rp_dtypes(rp_thread *T, int i) { return dtypes_in(T, i, 0); }
MPI_Datatype *rp_dtypes_kept(rp_thread *T, int i) { return dtypes_in(T, i, 1); }

rp_typespan rp_dtype_span(rp_thread *T, int64_t id) {
  rp_typespan s = {1, 0, 1};
  dtype_of(T, id, &s);
  return s;
}

static void dtype_set(rp_thread *T, int64_t id, MPI_Datatype d) {
  if (id <= TF_SPECIAL_MAX || id < TF_DTYPE_DERIVED_BASE || d == MPI_DATATYPE_NULL) return;
  rp_typespan span = span_of(d);
  rp_lock(T->E);
  rp_obj *o = put_or_die(T, &T->E->dtypes, id);
  o->h.dtype = d;
  o->span = span;
  rp_unlock(T->E);
}

void rp_dtype_new(rp_thread *T, int i, MPI_Datatype d) { dtype_set(T, id_at(T, i), d); }
void rp_dtype_back(rp_thread *T, int i, MPI_Datatype d) { dtype_set(T, id_at(T, i), d); }
void rp_dtype_forget(rp_thread *T, int i) { forget(T, &T->E->dtypes, i); }

/* ------------------------------------------------------------ graph weights */

/* MPI_UNWEIGHTED from a function of its own: Open MPI defines it as the
 * address of a zero-size object, which GCC's array-bounds checks reject when
 * it is passed to an int[] parameter directly. */
/* ------------------------------------------------------------ ops */

MPI_Op rp_op(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  rp_engine *E = T->E;
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_OP_NULL;
  if (id >= 1 && id <= (int64_t)E->npredef_ops) return E->predef_ops[id - 1];
  return lookup(T, &E->ops, id, "op %lld is used before the trace creates it").h.op;
}

void rp_op_new(rp_thread *T, int i, MPI_Op op) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX) return;
  rp_lock(T->E);
  put_or_die(T, &T->E->ops, id)->h.op = op;
  rp_unlock(T->E);
}
void rp_op_forget(rp_thread *T, int i) { forget(T, &T->E->ops, i); }

/* ------------------------------------------------------------ groups */

MPI_Group rp_group(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_GROUP_NULL;
  if (id == GROUP_EMPTY_ID) return MPI_GROUP_EMPTY;
  return lookup(T, &T->E->groups, id, "group %lld is used before the trace creates it").h.group;
}

void rp_group_new(rp_thread *T, int i, MPI_Group g) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX || id == GROUP_EMPTY_ID) return;
  rp_lock(T->E);
  put_or_die(T, &T->E->groups, id)->h.group = g;
  rp_unlock(T->E);
}
void rp_group_forget(rp_thread *T, int i) { forget(T, &T->E->groups, i); }

/* ------------------------------------------------------------ MPI-IO files */

MPI_File rp_file(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX) return MPI_FILE_NULL;
  return lookup(T, &T->E->files, id, "file %lld is used before the trace opens it").h.file;
}

void rp_file_new(rp_thread *T, int i, MPI_File f) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX) return;
  rp_lock(T->E);
  put_or_die(T, &T->E->files, id)->h.file = f;
  rp_unlock(T->E);
}
void rp_file_forget(rp_thread *T, int i) { forget(T, &T->E->files, i); }

/* ------------------------------------------------------------ matched messages */

MPI_Message rp_msg(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id == TF_PROC_NULL) return MPI_MESSAGE_NO_PROC;
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_MESSAGE_NULL;
  return lookup(T, &T->E->msgs, id, "message %lld is received before the trace probes it").h.msg;
}

void rp_msg_new(rp_thread *T, int i, MPI_Message m) {
  int64_t id = id_at(T, i);
  m = rp_msg_matched(T, id > TF_SPECIAL_MAX, m);
  if (id <= TF_SPECIAL_MAX || m == MPI_MESSAGE_NULL) return;
  rp_lock(T->E);
  put_or_die(T, &T->E->msgs, id)->h.msg = m;
  rp_unlock(T->E);
}

void rp_msg_forget(rp_thread *T, int i) { forget(T, &T->E->msgs, i); }

/* ------------------------------------------------------------ windows */

MPI_Win rp_win(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id == TF_NONE || id == TF_NULL_HANDLE) return MPI_WIN_NULL;
  return lookup(T, &T->E->wins, id, "window %lld is used before the trace creates it").h.win;
}

int rp_win_peer(rp_thread *T, int win_i, int i) {
  int64_t v = id_at(T, i), id = id_at(T, win_i);
  if (v == TF_PROC_NULL) return MPI_PROC_NULL;
  if (v <= TF_SPECIAL_MAX) return 0;
  if (id <= TF_SPECIAL_MAX) return (int)v;
  rp_obj w = lookup(T, &T->E->wins, id, "window %lld is used before the trace creates it");
  int64_t r = w.rank + v;
  if (r < 0 || r >= w.group_size) /* e.g. a node's window simulated with one rank per node */
    rp_die(T, "target rank %lld (offset %lld from %d) is outside window %lld of %d ranks: the ranks share windows "
              "differently than when recorded", (long long)r, (long long)v, w.rank, (long long)id, w.group_size);
  return (int)r;
}

void rp_win_new(rp_thread *T, int i, MPI_Win w, void *mem) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX || w == MPI_WIN_NULL) {
    free(mem);
    return;
  }
  int rank = 0, size = 0;
  MPI_Group g = MPI_GROUP_NULL;
  if (PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
    PMPI_Group_rank(g, &rank);
    PMPI_Group_size(g, &size);
    PMPI_Group_free(&g);
  }
  rp_lock(T->E);
  rp_obj *o = put_or_die(T, &T->E->wins, id);
  o->h.win = w;
  o->rank = rank;
  o->group_size = size;
  o->mem = mem;
  o->nregions = 0;
  rp_unlock(T->E);
}

/* the key of region number n of window id: both in one id (window ids are 31-bit) */
static int64_t region_key(int64_t win, int64_t n) { return (int64_t)((uint64_t)win << 32 | ((uint64_t)n & 0xffffffffu)); }

void rp_win_forget(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  rp_lock(T->E);
  rp_obj *o = map_find(&T->E->wins, id);
  if (o) {
    free(o->mem);
    for (int64_t n = 1; n <= o->nregions; n++) { /* regions still attached go with it */
      rp_obj *r = map_find(&T->E->regions, region_key(id, n));
      if (r) free(r->mem);
      map_del(&T->E->regions, region_key(id, n));
    }
    map_del(&T->E->wins, id);
  }
  rp_unlock(T->E);
}

int rp_win_over(rp_thread *T, int i) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX) return 0;
  return lookup(T, &T->E->wins, id, "window %lld is used before the trace creates it").done;
}

void rp_win_set_over(rp_thread *T, int i, int over) {
  rp_lock(T->E);
  rp_obj *o = map_find(&T->E->wins, id_at(T, i));
  if (o) o->done = (uint8_t)over;
  rp_unlock(T->E);
}

void rp_win_attached(rp_thread *T, int win_i, void *mem) {
  int64_t id = id_at(T, win_i);
  rp_lock(T->E);
  rp_obj *o = map_find(&T->E->wins, id);
  if (o) {
    int64_t n = ++o->nregions;
    put_or_die(T, &T->E->regions, region_key(id, n))->mem = mem;
  }
  rp_unlock(T->E);
  if (!o) free(mem);
}

void *rp_win_region(rp_thread *T, int win_i, int i) {
  int64_t id = id_at(T, win_i), n = id_at(T, i);
  if (n <= TF_SPECIAL_MAX) rp_die(T, "MPI_Win_detach of a region the recording did not see attached");
  return lookup(T, &T->E->regions, region_key(id, n), "region %lld is detached before the trace attaches it").mem;
}

void rp_win_detached(rp_thread *T, int win_i, int i) {
  int64_t key = region_key(id_at(T, win_i), id_at(T, i));
  rp_lock(T->E);
  rp_obj *r = map_find(&T->E->regions, key);
  if (r) free(r->mem);
  map_del(&T->E->regions, key);
  rp_unlock(T->E);
}

/* ------------------------------------------------------------ readiness */

int rp_objects_ready(rp_thread *T) {
  tf_field_value f[RP_MAXFIELDS];
  rp_engine *E = T->E;
  if (rp_layout(T->fn, &T->ev, f)) return 1; /* malformed: the call says so */
  const tf_func_desc *d = &tf_schema[T->fn];
  for (uint32_t i = 0; i < d->nfields; i++) {
    rp_map *m;
    int64_t predefined_below; /* ids below it need no object */
    switch (d->fields[i].kind) {
    case TF_FIELD_COMM: m = &E->comms, predefined_below = 0; break;
    case TF_FIELD_DTYPE: m = &E->dtypes, predefined_below = TF_DTYPE_DERIVED_BASE; break;
    case TF_FIELD_OP: m = &E->ops, predefined_below = (int64_t)E->npredef_ops + 1; break;
    case TF_FIELD_GROUP: m = &E->groups, predefined_below = GROUP_EMPTY_ID + 1; break;
    case TF_FIELD_WIN: m = &E->wins, predefined_below = 0; break;
    case TF_FIELD_FILE: /* --io skip opens no file: nothing to wait for */
      if (E->opt.io_skip) continue;
      m = &E->files, predefined_below = 0;
      break;
    default: continue;
    }
    for (uint32_t k = 0; k < f[i].n; k++) {
      int64_t id = f[i].v[k];
      if (id > TF_SPECIAL_MAX && id >= predefined_below && !map_find(m, id)) return 0;
    }
  }
  return 1;
}

/* ------------------------------------------------------------ requests */

rp_obj *rp_req_obj(rp_engine *E, int64_t id) { return map_find(&E->reqs, id); }
void rp_req_completed(rp_obj *o) {
  rp_kept_free(o->kept);
  o->kept = NULL;
}

void rp_req_drop(rp_engine *E, rp_obj *o) {
  rp_req_completed(o);
  o->used = 2;
  E->reqs.live--;
}

static MPI_Request req_of(rp_thread *T, int64_t id) {
  if (id <= TF_SPECIAL_MAX) return MPI_REQUEST_NULL;
  /* MPI_REQUEST_NULL if it completed earlier than recorded (done) */
  return lookup(T, &T->E->reqs, id, "request %lld is used before the trace creates it").h.req;
}

MPI_Request rp_req(rp_thread *T, int i) { return req_of(T, id_at(T, i)); }

MPI_Request *rp_reqs(rp_thread *T, int i) {
  MPI_Request *a = rp_alloc(T, (T->field[i].n + 1) * sizeof *a);
  for (uint32_t k = 0; k < T->field[i].n; k++) a[k] = req_of(T, T->field[i].v[k]);
  return a;
}

/* A request the call returned, under its recorded id. MPI_REQUEST_NULL (a
 * nonblocking call some MPI completed at once, as SMPI does for a
 * collective of one rank) is kept as completed early: later calls pass
 * MPI_REQUEST_NULL for it, as for any request done before its wait. */
void rp_req_new(rp_thread *T, int i, MPI_Request r) {
  int64_t id = id_at(T, i);
  if (id <= TF_SPECIAL_MAX) return;
  rp_lock(T->E);
  rp_obj *o = put_or_die(T, &T->E->reqs, id);
  o->h.req = r;
  o->persistent = rp_info[T->fn].persistent;
  o->done = r == MPI_REQUEST_NULL && !o->persistent;
  o->kept = T->kept; /* the call's array arguments live as long as the operation */
  T->kept = NULL;
  if (o->done) rp_req_completed(o);
  rp_unlock(T->E);
}

static void req_set(rp_thread *T, int64_t id, MPI_Request r) {
  if (id <= TF_SPECIAL_MAX) return;
  rp_lock(T->E);
  rp_obj *o = find_or_wait(T, &T->E->reqs, id);
  if (o) o->h.req = r; /* completed ones are dropped by rp_outcome_after, as recorded */
  rp_unlock(T->E);
}

void rp_req_back(rp_thread *T, int i, MPI_Request r) { req_set(T, id_at(T, i), r); }

void rp_reqs_back(rp_thread *T, int i, const MPI_Request *r) {
  for (uint32_t k = 0; k < T->field[i].n; k++)
    if (!T->hidden || !T->hidden[k]) req_set(T, T->field[i].v[k], r[k]);
}

void rp_req_forget(rp_thread *T, int i) {
  rp_lock(T->E);
  rp_obj *o = map_find(&T->E->reqs, id_at(T, i));
  if (o) rp_req_completed(o);
  rp_unlock(T->E);
  forget(T, &T->E->reqs, i);
}
