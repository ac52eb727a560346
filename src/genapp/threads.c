/* threads.c — why a threaded trace is refused: the first object that
 * crosses threads.
 *
 * A generated program is single-threaded (doc/GENAPP.md). One pthread per
 * recorded thread would make each thread's calls, but not the order
 * between threads that the application kept: a communicator, datatype,
 * request, ... one thread makes and another uses, completes or frees.
 * This file finds, for each kind of object, the first such object of a
 * rank (its events in order, `tracefold unroll`), so the refusal names the
 * dependencies a threaded program would have to carry: the object, the
 * call and thread that make it, and the call and thread that then use it. */
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

/* Into why: per kind of object, the first of rank `rank` one thread makes and another uses ("" if none). */
static void first_crossings(tfg_gen *g, int32_t rank, char *why, size_t len) {
  why[0] = 0;
  uint8_t told[TF_FIELD_KIND_COUNT] = {0};
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
        } else if (o && o->thread != ev.thread && !told[kind]) {
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
  free(m);
  tf_rank_cursor_close(c);
}

int tfg_refuse_thread(tfg_gen *g, const char *name, uint32_t thread) {
  char why[1024] = "";
  for (int32_t r = 0; r < g->mt->nranks && !why[0]; r++) first_crossings(g, r, why, sizeof why);
  return tfg_fail(g, "the trace calls %s on thread %u: genapp makes single-threaded programs only. A program with one "
                  "thread per recorded thread would have to carry the order between them, which the loop structure "
                  "does not: %s%s; tracefold-replay replays this trace (doc/GENAPP.md)",
                  name, thread, why[0] ? why : "no object crosses threads here, but their calls share communicators",
                  why[0] ? ". Each such thread would have to wait for the call that makes the object" : "");
}
