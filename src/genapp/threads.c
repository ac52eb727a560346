/* threads.c — a rank's threads in a generated program: what orders them,
 * or why a trace cannot be made into one.
 *
 * A trace recorded with several threads per rank becomes one pthread per
 * recorded thread, each making its own events in order (tree.c). What the
 * threads of the recording ordered between them, the program orders the
 * same way where an object carries it (doc/GENAPP.md "Threads"):
 *  - a communicator, datatype, ... one thread makes and another uses is
 *    waited for (the runtime's shared maps);
 *  - a call that frees an object waits until every other thread has made
 *    the calls the recording completed before it (events are recorded in
 *    completion order): per thread, a value set of TFG_NTHREADS counts per
 *    free, from each rank's events in order (`tracefold unroll`);
 *  - requests made on several threads, or made on one and used on another
 *    (mtstress: whoever is free completes them), are shared: the trace
 *    stores a request id as its distance from the rank's previous one,
 *    whichever thread made that (doc/FORMAT.md 2.5), so each thread reads
 *    its request events' ids in the rank's recorded order (per thread, a
 *    value set of its request events' places in that order), and the
 *    events naming one request run in their recorded order (the runtime,
 *    "shared requests").
 * A message one thread takes (MPI_Mprobe) and another receives is not
 * ordered so: such a trace is refused, naming the first. */
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"

typedef struct made { /* an object the rank's events created, by its kind and recorded id */
  int kind;           /* its field kind (TF_FIELD_COMM, ...) */
  int64_t id;
  uint32_t thread, fn; /* the thread and function that made it */
} made;

/* the kind an object id of a field has (the created kind maps to the used one); -1: not an object */
static int object_kind(int field_kind, int *creates) {
  static const int pairs[][2] = {
      {TF_FIELD_COMM, TF_FIELD_COMM_NEW}, {TF_FIELD_DTYPE, TF_FIELD_DTYPE_NEW}, {TF_FIELD_OP, TF_FIELD_OP_NEW},
      {TF_FIELD_REQ, TF_FIELD_REQ_NEW},   {TF_FIELD_GROUP, TF_FIELD_GROUP_NEW}, {TF_FIELD_MSG, TF_FIELD_MSG_NEW},
      {TF_FIELD_WIN, TF_FIELD_WIN_NEW},   {TF_FIELD_FILE, TF_FIELD_FILE_NEW}};
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
    if (field_kind == pairs[k][0] || field_kind == pairs[k][1]) {
      *creates = field_kind == pairs[k][1];
      return pairs[k][0];
    }
  return -1;
}

static made *find_made(made *m, size_t n, int kind, int64_t id) {
  for (size_t k = n; k-- > 0;) /* the latest: an id can be reused after a free */
    if (m[k].kind == kind && m[k].id == id) return &m[k];
  return NULL;
}

/* Into why: the first message of rank `rank` one thread makes and another uses ("" if none); sets
 * g->shared_reqs if a request is made on one thread and used on another, or requests are made on two. */
static void first_crossings(tfg_gen *g, int32_t rank, char *why, size_t len) {
  why[0] = 0;
  int64_t req_thread = -1; /* the thread of the rank's first request */
  tf_rank_cursor *c = NULL;
  char err[256];
  if (tf_rank_cursor_open(g->trace, rank, &c, err, sizeof err) != TF_OK) return;
  made *m = NULL;
  size_t n = 0, cap = 0;
  tf_event ev;
  while (tf_rank_cursor_next(c, &ev) > 0) {
    if (ev.fn >= g->info->nfuncs) continue;
    const tf_func_desc *d = &g->info->funcs[ev.fn];
    uint32_t at = 0;
    for (uint32_t f = 0; f < d->nfields && at < ev.nvals; f++) {
      uint32_t nv = 1;
      if (d->fields[f].is_array) nv = ev.vals[at] >= 0 && (uint64_t)ev.vals[at] < ev.nvals - at ? (uint32_t)ev.vals[at++] : 0;
      int creates = 0, kind = object_kind(d->fields[f].kind, &creates);
      for (uint32_t k = 0; k < nv && at + k < ev.nvals && kind >= 0; k++) {
        int64_t id = ev.vals[at + k];
        if (id <= TF_SPECIAL_MAX) continue;
        made *o = find_made(m, n, kind, id);
        if (creates) {
          if (n == cap) {
            made *grown = realloc(m, (cap = cap ? 2 * cap : 64) * sizeof *m);
            if (!grown) break;
            m = grown;
          }
          m[n++] = (made){kind, id, ev.thread, ev.fn};
          if (kind == TF_FIELD_REQ && req_thread < 0) req_thread = ev.thread;
          if (kind == TF_FIELD_REQ && req_thread != ev.thread) g->shared_reqs = 1;
        } else if (o && o->thread != ev.thread && kind == TF_FIELD_REQ) {
          g->shared_reqs = 1;
        } else if (o && o->thread != ev.thread && kind == TF_FIELD_MSG && !why[0]) {
          snprintf(why, len, "on rank %d, message %lld, which %s makes on thread %u, is then used by %s on thread %u",
                   (int)rank, (long long)id, g->info->funcs[o->fn].name, o->thread, d->name, ev.thread);
        }
      }
      at += nv;
    }
  }
  free(m);
  tf_rank_cursor_close(c);
}

/* 1 if the trace's function fn frees an object (MPI_*_free, as the replay engine's fields.c) */
static int frees(const tfg_gen *g, uint32_t fn) {
  const char *name = fn < g->info->nfuncs ? g->info->funcs[fn].name : "";
  size_t len = strlen(name);
  return len > 5 && strcmp(name + len - 5, "_free") == 0;
}

/* 1 if the trace's function fn has a request field: its events are the rank's request events */
static int names_requests(const tfg_gen *g, uint32_t fn) {
  const tf_func_desc *d = &g->info->funcs[fn];
  for (uint32_t f = 0; f < d->nfields; f++)
    if (d->fields[f].kind == TF_FIELD_REQ || d->fields[f].kind == TF_FIELD_REQ_NEW) return 1;
  return 0;
}

typedef struct list { /* values one thread reads in order on one rank */
  int64_t *v;
  uint32_t n, cap;
} list;

static int add(list *x, int64_t v) {
  if (x->n == x->cap) {
    uint32_t cap = x->cap ? 2 * x->cap : 64;
    int64_t *grown = realloc(x->v, cap * sizeof *grown);
    if (!grown) return -1;
    x->v = grown, x->cap = cap;
  }
  x->v[x->n++] = v;
  return 0;
}

/* Rank `rank`'s reads, per thread t: into w[t] its frees' waits (per free, every thread's calls made
 * before it), into q[t] (q: NULL unless requests are shared) its request events' places in the rank's
 * order of request events. w and q have g->nthreads entries. 0 or -1. */
static int rank_reads(tfg_gen *g, int32_t rank, list *w, list *q) {
  tf_rank_cursor *c = NULL;
  char err[256];
  if (tf_rank_cursor_open(g->trace, rank, &c, err, sizeof err) != TF_OK)
    return tfg_fail(g, "cannot read rank %d's events: %s", (int)rank, err);
  uint64_t *made = calloc(g->nthreads, sizeof *made), reqs = 0;
  int rc = made ? 0 : -1;
  tf_event ev;
  while (rc == 0 && tf_rank_cursor_next(c, &ev) > 0) {
    if (ev.thread >= g->nthreads || ev.fn >= g->info->nfuncs) continue;
    if (frees(g, ev.fn))
      for (uint32_t t = 0; t < g->nthreads && rc == 0; t++) rc = add(&w[ev.thread], (int64_t)made[t]);
    if (q && names_requests(g, ev.fn) && rc == 0) rc = add(&q[ev.thread], (int64_t)reqs++);
    made[ev.thread]++;
  }
  free(made);
  tf_rank_cursor_close(c);
  return rc ? tfg_fail(g, "out of memory") : 0;
}

/* Per thread t, the value set of lists x[r * T + t] over the ranks r, named into names[t] ("" if empty). */
static void name_per_thread(tfg_gen *g, const list *x, char (*names)[32], const int64_t **vals, uint32_t *n,
                            uint8_t *has) {
  int32_t nranks = g->mt->nranks;
  uint32_t T = g->nthreads;
  for (uint32_t t = 0; t < T; t++) {
    int any = 0;
    for (int32_t r = 0; r < nranks; r++) {
      const list *l = &x[(size_t)r * T + t];
      vals[r] = l->v, n[r] = l->n, has[r] = l->n > 0;
      any |= has[r];
    }
    if (any) tfg_sequences_name(g, vals, n, has, nranks, names[t], sizeof names[t]);
  }
}

int tfg_threads_check(tfg_gen *g) {
  if (g->nthreads <= 1) return 0;
  char why[1024] = "";
  for (int32_t r = 0; r < g->mt->nranks && !why[0]; r++) first_crossings(g, r, why, sizeof why);
  if (why[0])
    return tfg_fail(g, "the trace's threads share messages, which a program of one pthread per recorded thread "
                    "cannot follow: %s; tracefold-replay replays this trace (doc/GENAPP.md \"Threads\")", why);
  int32_t nranks = g->mt->nranks;
  uint32_t T = g->nthreads;
  size_t N = (size_t)nranks * T;
  list *w = calloc(N, sizeof *w), *q = g->shared_reqs ? calloc(N, sizeof *q) : NULL;
  const int64_t **vals = malloc(((size_t)nranks + 1) * sizeof *vals);
  uint32_t *n = malloc(((size_t)nranks + 1) * sizeof *n);
  uint8_t *has = malloc((size_t)nranks + 1);
  g->free_waits = calloc(T, sizeof *g->free_waits);
  g->req_order = calloc(T, sizeof *g->req_order);
  int rc = w && (q || !g->shared_reqs) && vals && n && has && g->free_waits && g->req_order
               ? 0
               : tfg_fail(g, "out of memory");
  for (int32_t r = 0; r < nranks && rc == 0; r++) rc = rank_reads(g, r, &w[(size_t)r * T], q ? &q[(size_t)r * T] : NULL);
  if (rc == 0) name_per_thread(g, w, g->free_waits, vals, n, has);
  if (rc == 0 && q) name_per_thread(g, q, g->req_order, vals, n, has);
  for (size_t k = 0; k < N; k++) {
    if (w) free(w[k].v);
    if (q) free(q[k].v);
  }
  free(w);
  free(q);
  free(vals);
  free(n);
  free(has);
  return rc;
}

void tfg_req_order_stmt(tfg_gen *g, uint32_t thread, tfg_text *t) {
  if (g->shared_reqs && thread < g->nthreads && g->req_order[thread][0])
    tfg_put(t, "  tfg_req_order = &%s; /* this thread's places in the rank's order of request events */\n",
            g->req_order[thread]);
}

void tfg_free_wait_stmt(tfg_gen *g, const tf_mnode *x, tfg_text *t) {
  if (g->nthreads > 1 && frees(g, x->fn) && x->thread < g->nthreads && g->free_waits[x->thread][0])
    tfg_put(t, "tfg_wait_others(&%s); /* the other threads' calls the recording completed before this one */\n",
            g->free_waits[x->thread]);
}
