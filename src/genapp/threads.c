/* threads.c — a rank's threads in a generated program: what orders them,
 * or why a trace cannot be made into one.
 *
 * A trace recorded with several threads per rank becomes one pthread per
 * recorded thread, each making its own events in order (tree.c). What the
 * threads of the recording ordered between them, the program orders the
 * same way where an object carries it (doc/GENAPP.md "Threads"): a
 * communicator, datatype, ... one thread makes and another uses is waited
 * for (the runtime's shared maps), and a call that frees an object waits
 * until every other thread has made the calls the recording completed
 * before it (events are recorded in completion order): per thread, a
 * value set of TFG_NTHREADS counts per free, from each rank's events in
 * order (`tracefold unroll`). A request or message one thread makes and
 * another completes or receives is not ordered so (its completion may
 * depend on the other thread's progress), and requests made on two
 * threads of a rank cannot be decoded by each thread alone (the trace
 * stores a request id as its distance from the rank's previous one,
 * whichever thread made that, doc/FORMAT.md 2.5): such a trace is
 * refused, naming the first of each. */
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

static const char *kind_name(int kind) {
  switch (kind) {
  case TF_FIELD_COMM: return "communicator";
  case TF_FIELD_DTYPE: return "datatype";
  case TF_FIELD_OP: return "op";
  case TF_FIELD_REQ: return "request";
  case TF_FIELD_GROUP: return "group";
  case TF_FIELD_MSG: return "message";
  case TF_FIELD_WIN: return "window";
  default: return "file";
  }
}

static made *find_made(made *m, size_t n, int kind, int64_t id) {
  for (size_t k = n; k-- > 0;) /* the latest: an id can be reused after a free */
    if (m[k].kind == kind && m[k].id == id) return &m[k];
  return NULL;
}

/* Into why: per kind of object that stays with its thread (requests, messages), the first of rank `rank`
 * one thread makes and another uses; and the first request made on a second thread ("" if none). */
static void first_crossings(tfg_gen *g, int32_t rank, char *why, size_t len) {
  why[0] = 0;
  uint8_t told[TF_FIELD_KIND_COUNT] = {0};
  int64_t req_thread = -1; /* the thread of the rank's first request */
  char second[256] = "";
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
          if (kind == TF_FIELD_REQ && req_thread != ev.thread && !second[0])
            snprintf(second, sizeof second, "on rank %d, threads %lld and %u both make requests (%s makes request "
                     "%lld): the trace numbers requests in the rank's order across its threads (doc/FORMAT.md 2.5), "
                     "which the threads of a program do not follow", (int)rank, (long long)req_thread, ev.thread,
                     d->name, (long long)id);
        } else if (o && o->thread != ev.thread && !told[kind] && (kind == TF_FIELD_REQ || kind == TF_FIELD_MSG)) {
          size_t used = strlen(why);
          snprintf(why + used, len - used, "%son rank %d, %s %lld, which %s makes on thread %u, is then used by %s on "
                   "thread %u", used ? "; " : "", (int)rank, kind_name(kind), (long long)id,
                   g->info->funcs[o->fn].name, o->thread, d->name, ev.thread);
          told[kind] = 1;
        }
      }
      at += nv;
    }
  }
  if (second[0]) {
    size_t used = strlen(why);
    snprintf(why + used, len - used, "%s%s", used ? "; " : "", second);
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

typedef struct waits { /* one thread's frees on one rank: per free, every thread's calls made before it */
  int64_t *v;
  uint32_t n, cap;
} waits;

/* The free waits of rank `rank`, per thread, into w[thread] (w has g->nthreads entries). 0 or -1. */
static int rank_waits(tfg_gen *g, int32_t rank, waits *w) {
  tf_rank_cursor *c = NULL;
  char err[256];
  if (tf_rank_cursor_open(g->trace, rank, &c, err, sizeof err) != TF_OK)
    return tfg_fail(g, "cannot read rank %d's events: %s", (int)rank, err);
  uint64_t *made = calloc(g->nthreads, sizeof *made);
  int rc = made ? 0 : -1;
  tf_event ev;
  while (rc == 0 && tf_rank_cursor_next(c, &ev) > 0) {
    if (ev.thread >= g->nthreads) continue;
    if (frees(g, ev.fn)) {
      waits *x = &w[ev.thread];
      if (x->n + g->nthreads > x->cap) {
        uint32_t cap = 2 * x->cap + g->nthreads;
        int64_t *grown = realloc(x->v, cap * sizeof *grown);
        if (!grown) {
          rc = -1;
          break;
        }
        x->v = grown, x->cap = cap;
      }
      for (uint32_t t = 0; t < g->nthreads; t++) x->v[x->n++] = (int64_t)made[t];
    }
    made[ev.thread]++;
  }
  free(made);
  tf_rank_cursor_close(c);
  return rc ? tfg_fail(g, "out of memory") : 0;
}

int tfg_threads_check(tfg_gen *g) {
  if (g->nthreads <= 1) return 0;
  char why[1024] = "";
  for (int32_t r = 0; r < g->mt->nranks && !why[0]; r++) first_crossings(g, r, why, sizeof why);
  if (why[0])
    return tfg_fail(g, "the trace's threads share requests or messages, which a program of one pthread per "
                    "recorded thread cannot follow: %s; tracefold-replay replays this trace (doc/GENAPP.md \"Threads\")",
                    why);
  int32_t nranks = g->mt->nranks;
  uint32_t T = g->nthreads;
  waits *w = calloc((size_t)nranks * T, sizeof *w);
  const int64_t **vals = malloc(((size_t)nranks + 1) * sizeof *vals);
  uint32_t *n = malloc(((size_t)nranks + 1) * sizeof *n);
  uint8_t *has = malloc((size_t)nranks + 1);
  g->free_waits = calloc(T, sizeof *g->free_waits);
  int rc = w && vals && n && has && g->free_waits ? 0 : tfg_fail(g, "out of memory");
  for (int32_t r = 0; r < nranks && rc == 0; r++) rc = rank_waits(g, r, &w[(size_t)r * T]);
  for (uint32_t t = 0; t < T && rc == 0; t++) {
    int any = 0;
    for (int32_t r = 0; r < nranks; r++) {
      const waits *x = &w[(size_t)r * T + t];
      vals[r] = x->v, n[r] = x->n, has[r] = x->n > 0;
      any |= has[r];
    }
    if (any) tfg_sequences_name(g, vals, n, has, nranks, g->free_waits[t], sizeof g->free_waits[t]);
  }
  for (size_t k = 0; w && k < (size_t)nranks * T; k++) free(w[k].v);
  free(w);
  free(vals);
  free(n);
  free(has);
  return rc;
}

void tfg_free_wait_stmt(tfg_gen *g, const tf_mnode *x, tfg_text *t) {
  if (g->nthreads > 1 && frees(g, x->fn) && x->thread < g->nthreads && g->free_waits[x->thread][0])
    tfg_put(t, "tfg_wait_others(&%s); /* the other threads' calls the recording completed before this one */\n",
            g->free_waits[x->thread]);
}
