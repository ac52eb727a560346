/* cst_graph.c — interprocedural reachability of MPI over the raw trees of
 * all the analysed sources, and the CST that keeps only what reaches it.
 *
 * A function reaches MPI when its body calls an MPI function, a function
 * that reaches MPI, or a function pointer that may point to one. A call
 * through a pointer may reach every function of the sources whose address
 * is taken (named other than in a call) and whose type equals the
 * pointer's: that is the resolution, and the CST lists those targets under
 * the indirect call. Pointers to functions outside the sources, or of no
 * matching type, are unresolved (noted). Functions are matched by name
 * across files (two static functions of one name in two files are one). */
#include <stdlib.h>
#include <string.h>

#include "cst_impl.h"

typedef struct graph {
  const cst *raw;
  const cst_raw *r;
  int *first_child, *next_sibling;
  char *reaches;  /* per raw function node: it reaches MPI */
  char *kept;     /* per raw node */
  int *callee;    /* per raw call node: the index of its func node, or -1 */
  int *target;    /* per address-taken function: the index of its func node, or -1 */
} graph;

/* does indirect node i have a target that reaches MPI? (reach == NULL: any target at all) */
static int indirect_reaches(const graph *g, int i, const char *reach) {
  for (int k = 0; k < g->r->ntaken; k++) {
    if (strcmp(g->r->taken[k].fntype, g->raw->nodes[i].fntype ? g->raw->nodes[i].fntype : "") != 0) continue;
    int f = g->target[k];
    if (f >= 0 && (!reach || reach[f])) return 1;
  }
  return 0;
}

/* mark node i kept when it is or holds something that reaches MPI; whether it is */
static int mark(graph *g, int i) {
  const cst_node *n = &g->raw->nodes[i];
  int keep = 0;
  for (int c = g->first_child[i]; c >= 0; c = g->next_sibling[c]) keep |= mark(g, c);
  switch (n->kind) {
  case CST_MPI: keep = 1; break;
  case CST_CALL: {
    int f = g->callee[i];
    keep = f >= 0 && g->reaches[f];
    break;
  }
  case CST_INDIRECT: keep = indirect_reaches(g, i, g->reaches); break;
  default: break;
  }
  if (n->kind == CST_BRANCH && keep) /* every arm of a kept branch: the branch selects one */
    for (int c = g->first_child[i]; c >= 0; c = g->next_sibling[c])
      if (g->raw->nodes[c].kind == CST_ARM) g->kept[c] = 1;
  g->kept[i] = (char)keep;
  return keep;
}

static int copy_node(const cst_node *n, int parent, cst *out) {
  int j = cst_add(out, parent, n->kind, n->name, n->file, n->line, n->col);
  if (j < 0) return -1;
  cst_node *m = &out->nodes[j];
  m->begin = n->begin;
  m->end = n->end;
  m->body_begin = n->body_begin;
  m->body_end = n->body_end;
  m->body_compound = n->body_compound;
  m->has_ranges = n->has_ranges;
  return j;
}

static int emit(const graph *g, int i, int parent, cst *out) {
  const cst_node *n = &g->raw->nodes[i];
  int j = copy_node(n, parent, out);
  if (j < 0) return -1;
  if (n->kind == CST_INDIRECT)
    for (int k = 0; k < g->r->ntaken; k++) {
      int f = g->target[k];
      if (f >= 0 && g->reaches[f] && strcmp(g->r->taken[k].fntype, n->fntype ? n->fntype : "") == 0 &&
          cst_add(out, j, CST_CALL, g->raw->nodes[f].name, n->file, n->line, n->col) < 0)
        return -1;
    }
  for (int c = g->first_child[i]; c >= 0; c = g->next_sibling[c])
    if (g->kept[c] && emit(g, c, j, out)) return -1;
  return 0;
}

int cst_reduce(const cst_raw *r, cst *out, FILE *notes) {
  const cst *raw = &r->tree;
  graph g = {raw, r, malloc(((size_t)raw->n + 1) * sizeof(int)), malloc(((size_t)raw->n + 1) * sizeof(int)),
             calloc((size_t)raw->n + 1, 1), calloc((size_t)raw->n + 1, 1),
             malloc(((size_t)raw->n + 1) * sizeof(int)), malloc(((size_t)r->ntaken + 1) * sizeof(int))};
  int rc = -1;
  memset(out, 0, sizeof *out);
  if (!g.first_child || !g.next_sibling || !g.reaches || !g.kept || !g.callee || !g.target) goto done;
  for (int i = 0; i < raw->n; i++)
    g.callee[i] = raw->nodes[i].kind == CST_CALL ? cst_find_func(raw, raw->nodes[i].name) : -1;
  for (int k = 0; k < r->ntaken; k++) g.target[k] = cst_find_func(raw, r->taken[k].name);
  for (int i = 0; i < raw->n; i++) g.first_child[i] = g.next_sibling[i] = -1;
  for (int i = raw->n - 1; i >= 0; i--) /* children in source order */
    if (raw->nodes[i].parent >= 0) {
      g.next_sibling[i] = g.first_child[raw->nodes[i].parent];
      g.first_child[raw->nodes[i].parent] = i;
    }
  /* fixpoint: a function reaches MPI once anything in it is kept */
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < raw->n; i++)
      if (raw->nodes[i].kind == CST_FUNC && !g.reaches[i]) {
        int keep = 0;
        for (int c = g.first_child[i]; c >= 0; c = g.next_sibling[c]) keep |= mark(&g, c);
        if (keep) g.reaches[i] = changed = 1;
      }
  }
  for (int i = 0; i < raw->n; i++)
    if (raw->nodes[i].kind == CST_FUNC && g.reaches[i]) mark(&g, i);
  if (notes)
    for (int i = 0; i < raw->n; i++)
      if (raw->nodes[i].kind == CST_INDIRECT && !indirect_reaches(&g, i, NULL))
        fprintf(notes, "tracefold cst: %s:%u: call through %s: unresolved (no function of the analysed sources of "
                       "its type has its address taken)\n",
                raw->nodes[i].file, raw->nodes[i].line, raw->nodes[i].name);
  for (int i = 0; i < raw->n; i++)
    if (raw->nodes[i].kind == CST_FUNC && g.reaches[i] && emit(&g, i, -1, out)) goto done;
  rc = 0;
done:
  if (rc) {
    fprintf(stderr, "tracefold cst: out of memory\n");
    cst_free(out);
  }
  free(g.first_child);
  free(g.next_sibling);
  free(g.reaches);
  free(g.kept);
  free(g.callee);
  free(g.target);
  return rc;
}

int cst_analyse(const char *const *files, int nfiles, const char *const *args, int nargs, cst *out, FILE *notes) {
  cst_raw raw;
  memset(&raw, 0, sizeof raw);
  int rc = 0;
  for (int i = 0; i < nfiles && rc == 0; i++) rc = cst_parse_file(files[i], args, nargs, &raw);
  if (rc == 0) rc = cst_reduce(&raw, out, notes);
  cst_raw_free(&raw);
  return rc;
}

void cst_raw_free(cst_raw *raw) {
  cst_free(&raw->tree);
  for (int i = 0; i < raw->ntaken; i++) {
    free(raw->taken[i].name);
    free(raw->taken[i].fntype);
  }
  free(raw->taken);
  memset(raw, 0, sizeof *raw);
}
