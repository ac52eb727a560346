/* flat_mnode.c — a merged trace's flat runs: one node per rank's run, its
 * events kept as the bytes the recorder wrote (doc/FORMAT.md 3.5, flags
 * bit 5; doc/FOLDING.md "Flat runs"), carried through the merge at
 * MPI_Finalize without a node per event, and expanded into event nodes
 * for the readers that walk the merged structure. */
#include <stdlib.h>

#include "merge/mtrace.h"
#include "merge/ranklist.h"
#include "util/hash.h"

enum { K_FLAT = 0x4d46 };

tf_mnode *tf_mnode_from_run(tf_flatrun *run, int64_t rank, tf_mem *m) {
  tf_mnode *y = calloc(1, sizeof *y);
  tf_flatrun *r = y ? malloc(sizeof *r) : NULL;
  if (!r) {
    free(y);
    m->failed = 1;
    return NULL;
  }
  m->bytes += sizeof *y + sizeof *r;
  *r = *run; /* taken over */
  *run = (tf_flatrun){0};
  y->run = r;
  y->thread = r->thread;
  y->key = tf_mix(tf_mix(K_FLAT, (uint64_t)rank), r->nevents); /* never the same as another node (merge.c same) */
  tf_vseq_push(&y->ranks, rank, m);
  return y;
}

static uint32_t fn_at(const void *map, uint32_t i) { return tf_index_map_at(map, i); }

void tf_mnode_run_renumber(tf_mnode *x, const tf_index_map *fns, const tf_index_map *sites) {
  tf_mem m = {0};
  if (tf_flatrun_renumber(x->run, fn_at, fns, fn_at, sites, &m)) x->run->bytes.failed = 1; /* the encoder fails */
}

void tf_mnode_run_mark_funcs(const tf_mnode *x, uint8_t *used, uint32_t nfuncs) {
  const tf_flatrun *r = x->run;
  if (r->fns_known) { /* as read (tf_flatrun_read): no walk */
    for (uint32_t k = 0; k < nfuncs && k < 256; k++)
      if (r->fns[k >> 6] >> (k & 63) & 1) used[k] = 1;
    return;
  }
  uint32_t unused = 0;
  for (uint32_t k = 0; k < nfuncs; k++) unused += !used[k];
  if (r->prev_fn < nfuncs && !used[r->prev_fn]) used[r->prev_fn] = 1, unused--;
  tf_cursor e = {r->bytes.data, r->bytes.data + r->bytes.len, 0};
  tf_flat_event ev;
  const char *why;
  for (uint64_t k = 0; unused && k < r->nevents && !tf_flatrun_next(&e, nfuncs, UINT32_MAX, &ev, &why); k++) {
    if (!used[ev.fn]) used[ev.fn] = 1, unused--; /* none left: the rest of the run names no new one */
    for (uint64_t j = 0; j < ev.nvals && !e.bad; j++) tf_cur_uvar(&e);
  }
}

/* The events of run node x (of rank `rank`) as one event node each, appended to out[*n]. */
static int expand(const tf_mtrace *t, const tf_mnode *x, int64_t rank, tf_mnode **out, uint32_t *n, tf_mem *m,
                  const char **why) {
  tf_buf body = {0};
  tf_flatrun_encode(&body, x->run);
  if (body.failed) return (*why = "out of memory", -1);
  tf_cursor c = {body.data, body.data + body.len, 0};
  tf_fnode **ev = NULL;
  uint32_t nev = 0, cap = 0;
  tf_mem fm = {0};
  int rc = tf_flatrun_decode(&c, t->ft.n, t->ncallsites, t->timing, t->bins, &ev, &nev, &cap, &fm, why);
  for (uint32_t i = 0; i < nev; i++) {
    if (!rc && !(out[(*n)++] = tf_mnode_from_fnode(ev[i], rank, t->callsites, m))) rc = (*why = "out of memory", -1);
    tf_fnode_free(ev[i], &fm);
  }
  free(ev);
  tf_buf_free(&body);
  return rc;
}

int tf_mtrace_expand_runs(tf_mtrace *t, const char **why) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < t->ntop; i++) total += t->top[i]->run ? t->top[i]->run->nevents : 1;
  if (total == t->ntop) return 0;
  if (total > UINT32_MAX) return (*why = "too many nodes", -1);
  tf_mnode **top = calloc(total, sizeof *top);
  if (!top) return (*why = "out of memory", -1);
  uint32_t n = 0;
  int rc = 0;
  for (uint32_t i = 0; i < t->ntop; i++) {
    tf_mnode *x = t->top[i];
    if (!x->run) {
      top[n++] = x;
      continue;
    }
    t->flat_runs++;
    t->flat_events += x->run->nevents;
    if (!rc) rc = expand(t, x, tf_ranks_first(&x->ranks), top, &n, &t->mem, why);
    tf_mnode_free(x, &t->mem);
  }
  t->mem.bytes += (total - t->ntop) * sizeof *top;
  free(t->top);
  t->top = top;
  t->ntop = n;
  return rc;
}
