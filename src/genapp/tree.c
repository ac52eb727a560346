/* tree.c — the merged trace's loop structure as C.
 *
 * Each node holds for a list of ranks. A node whose ranks are its
 * parent's is written as is; another is guarded by a branch on its rank
 * list (tfg_in). A loop is a `for` over its trip count (a literal when
 * every occurrence on every rank runs as often, else read from the loop's
 * value table at each occurrence); an event is its compute (compute.c),
 * its values (values.c) and its call (calls.c). Each top-level loop nest
 * becomes a function named after its first call site; top-level calls
 * stay in main, or, of a recorded thread other than the main one, in that
 * thread's function (tfg_thread_N, threads.c). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"

static void indent(tfg_text *t, int depth) {
  for (int i = 0; i < depth; i++) tfg_puts(t, "  ");
}

/* every line of s, indented */
static void put_block(tfg_text *t, const char *s, int depth) {
  while (*s) {
    size_t n = strcspn(s, "\n");
    indent(t, depth);
    tfg_put(t, "%.*s\n", (int)n, s);
    s += n + (s[n] == '\n');
  }
}

static const tf_mnode *first_event(const tf_mnode *x) {
  while (x && x->is_loop) x = x->nbody ? x->body[0] : NULL;
  return x;
}

static void emit_nodes(tfg_gen *g, tf_mnode *const *x, uint32_t n, const tf_vseq *ranks, int depth, int top,
                       tfg_text *t);

static void emit_event(tfg_gen *g, const tf_mnode *x, int depth, tfg_text *t) {
  const char *fname = g->info->funcs[x->fn].name;
  indent(t, depth);
  tfg_put(t, "{ /* %s at %s */\n", fname, x->site < g->mt->ncallsites ? g->site_names[x->site] : "an unknown site");
  tfg_text body = {0};
  tfg_compute_stmt(g, x, &body);
  char nv[64];
  tfg_value_expr(g, &x->count, nv, sizeof nv);
  char **vals = calloc(x->nslots + 1, sizeof *vals);
  int literal = 1;
  for (uint32_t j = 0; vals && j < x->nslots; j++) {
    char e[64];
    tfg_value_expr(g, &x->slots[j], e, sizeof e);
    vals[j] = strdup(e);
    if (!vals[j]) body.failed = 1;
    else if (strncmp(e, "tfg_", 4) == 0) literal = 0;
  }
  if (!vals) body.failed = 1;
  int fixed = strncmp(nv, "tfg_", 4) != 0; /* every occurrence has the same number of values */
  if (fixed && literal && x->nslots) {
    tfg_put(&body, "int64_t v[] = {");
    for (uint32_t j = 0; j < x->nslots; j++) tfg_put(&body, "%s%s", j ? ", " : "", vals[j]);
    tfg_put(&body, "};\n");
  } else if (fixed) {
    tfg_put(&body, "int64_t v[%u];\n", x->nslots ? x->nslots : 1);
    const tf_func_desc *fd = &g->info->funcs[x->fn];
    int named = fd->nfields == x->nslots; /* scalars only: value j is field j */
    for (uint32_t j = 0; named && j < fd->nfields; j++) named = !fd->fields[j].is_array;
    for (uint32_t j = 0; j < x->nslots; j++)
      tfg_put(&body, "v[%u] = %s;%s%s%s\n", j, vals[j], named ? " /* " : "", named ? fd->fields[j].name : "",
              named ? " */" : "");
    if (!x->nslots) tfg_put(&body, "v[0] = 0;\n");
  } else { /* slot j is read only by the occurrences with more than j values */
    tfg_put(&body, "int64_t v[%u];\nint64_t nv = %s;\n", x->nslots ? x->nslots : 1, nv);
    for (uint32_t j = 0; j < x->nslots; j++) tfg_put(&body, "if (nv > %u) v[%u] = %s;\n", j, j, vals[j]);
    snprintf(nv, sizeof nv, "(uint32_t)nv");
  }
  if (fixed) {
    char *end;
    long long k = strtoll(nv, &end, 10);
    snprintf(nv, sizeof nv, "%lld", k);
  }
  tfg_call_stmt(g, x, "v", nv, &body);
  for (uint32_t j = 0; vals && j < x->nslots; j++) free(vals[j]);
  free(vals);
  if (body.failed) g->code.failed = 1;
  if (body.p) put_block(t, body.p, depth + 1);
  tfg_text_free(&body);
  indent(t, depth);
  tfg_puts(t, "}\n");
}

static void emit_loop(tfg_gen *g, const tf_mnode *x, int depth, tfg_text *t) {
  char trip[64];
  tfg_value_expr(g, &x->count, trip, sizeof trip);
  indent(t, depth);
  if (strncmp(trip, "tfg_", 4) == 0)
    tfg_put(t, "for (int64_t i%d = 0, n%d = %s; i%d < n%d; i%d++) {\n", depth, depth, trip, depth, depth, depth);
  else tfg_put(t, "for (int64_t i%d = 0; i%d < %" PRId64 "; i%d++) {\n", depth, depth, (int64_t)strtoll(trip, NULL, 10), depth);
  emit_nodes(g, x->body, x->nbody, &x->ranks, depth + 1, 0, t);
  indent(t, depth);
  tfg_puts(t, "}\n");
}

/* a top-level loop nest: its function, and its call into t */
static void emit_nest(tfg_gen *g, const tf_mnode *x, int depth, tfg_text *t) {
  const tf_mnode *e = first_event(x);
  const char *site = e && e->site < g->mt->ncallsites ? g->site_names[e->site] : "site_unknown";
  char name[1300];
  snprintf(name, sizeof name, "nest_%u_%s", ++g->nnests, site + 5);
  tfg_put(&g->code, "/* a loop nest (first call: %s at %s) */\nstatic void %s(void) {\n",
          e ? g->info->funcs[e->fn].name : "none", site, name);
  emit_loop(g, x, 1, &g->code);
  tfg_puts(&g->code, "}\n\n");
  indent(t, depth);
  tfg_put(t, "%s();\n", name);
}

/* nodes x[0..n) under a node of `ranks`; top: the thread's top level (a loop nest becomes a function) */
static void emit_nodes(tfg_gen *g, tf_mnode *const *x, uint32_t n, const tf_vseq *ranks, int depth, int top,
                       tfg_text *t) {
  for (uint32_t i = 0; i < n; i++) {
    int guard = !tfg_same_ranks(&x[i]->ranks, ranks);
    int d = depth;
    if (guard) {
      char rk[32];
      tfg_ranks_name(g, &x[i]->ranks, rk, sizeof rk);
      indent(t, depth);
      tfg_put(t, "if (tfg_in(&%s)) {\n", rk);
      d++;
    }
    if (!x[i]->is_loop) emit_event(g, x[i], d, t);
    else if (top) emit_nest(g, x[i], d, t);
    else emit_loop(g, x[i], d, t);
    if (guard) {
      indent(t, depth);
      tfg_puts(t, "}\n");
    }
  }
}

static uint32_t thread_of(const tf_mnode *x) {
  const tf_mnode *e = first_event(x);
  return e ? e->thread : 0;
}

int tfg_tree_emit(tfg_gen *g) {
  tf_mnode **mine = malloc((g->mt->ntop + 1) * sizeof *mine);
  if (!mine) return tfg_fail(g, "out of memory");
  for (g->thread = 0; g->thread < g->nthreads; g->thread++) { /* the thread's top-level nodes, in order */
    uint32_t n = 0, t = g->thread;
    for (uint32_t i = 0; i < g->mt->ntop; i++)
      if (thread_of(g->mt->top[i]) == t) mine[n++] = g->mt->top[i];
    if (t == 0) {
      tfg_req_order_stmt(g, 0, &g->main);
      emit_nodes(g, mine, n, &g->mt->present, 1, 1, &g->main);
      continue;
    }
    tfg_text body = {0};
    tfg_req_order_stmt(g, t, &body);
    emit_nodes(g, mine, n, &g->mt->present, 1, 1, &body);
    tfg_put(&g->code, "/* recorded thread %u: its calls, in order */\nstatic void *tfg_thread_%u(void *arg) {\n"
            "  (void)arg;\n  tfg_thread_begin(%u);\n%s  return NULL;\n}\n\n", t, t, t, body.p ? body.p : "");
    if (body.failed) g->code.failed = 1;
    tfg_text_free(&body);
  }
  free(mine);
  if (g->code.failed || g->main.failed || g->tables.failed) return tfg_fail(g, "out of memory");
  return 0;
}
