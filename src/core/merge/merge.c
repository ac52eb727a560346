/* merge.c — merging the folded structures of two groups of ranks
 * (doc/MERGING.md).
 *
 * Two node lists are aligned, and aligned nodes merge into one: their rank
 * lists are joined, their value sets pooled (ranks with an equal sequence
 * share it), loop bodies are merged the same way, recursively. Nodes left
 * unaligned keep their own rank lists; each rank later sees exactly its
 * own nodes, in its own order, so any alignment is lossless — a better one
 * only makes the trace smaller.
 *
 * Alignment of two lists of m and n nodes:
 *   1. common prefix and suffix of equal nodes: linear, and all of it when
 *      the ranks folded to the same structure (the regular case);
 *   2. the rest by Myers' O((m+n)·D) difference algorithm on node keys,
 *      where D, the number of unaligned nodes, is capped at TF_ALIGN_MAXD
 *      (time O((m+n)·MAXD), memory O(MAXD²) words); beyond the cap the
 *      middle is left unaligned;
 *   3. inside each unaligned stretch, loops whose bodies differ but share
 *      events (boundary ranks skip some calls of the interior's loop) are
 *      paired in order, at most TF_ALIGN_TRIES candidates each, and merged
 *      with their bodies aligned recursively.
 * A loop recorded with CST guidance is keyed by its CST node id
 * (tf_mnode_rekey): loops of one source loop correspond whatever their
 * bodies (a branch taken differently per rank), so steps 1-2 align them
 * directly; loops of different ids never correspond, in step 3 neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/mtrace.h"
#include "merge/ranklist.h"

#define TF_ALIGN_MAXD 512  /* unaligned nodes searched by Myers' algorithm */
#define TF_ALIGN_TRIES 8   /* candidate loops tried per loop in an unaligned stretch */
#define TF_LEAF_KEYS 64    /* event keys sampled per loop for similarity */

typedef struct merger {
  tf_mem *m;
  uint32_t bins; /* per histogram of merged times */
} merger;

static int merge_lists(merger *g, tf_mnode **a, uint32_t na, tf_mnode **b, uint32_t nb, tf_mnode ***out,
                       uint32_t *nout);

/* Exactly the same node shape (keys select; this verifies). */
static int same(const tf_mnode *a, const tf_mnode *b) {
  if (a->key != b->key || a->is_loop != b->is_loop || a->run || b->run) return 0; /* a flat run stands alone */
  if (!a->is_loop) return a->fn == b->fn && a->thread == b->thread && a->site == b->site;
  if (a->cst || b->cst) return a->cst == b->cst; /* one source loop: aligned whatever the bodies */
  if (a->nbody != b->nbody) return 0;
  for (uint32_t i = 0; i < a->nbody; i++)
    if (!same(a->body[i], b->body[i])) return 0;
  return 1;
}

/* Pool src's pairs into dst: a sequence dst already has gains src's ranks
 * (appended: they are higher), a new one becomes a pair. Pairs are found by
 * hash, through a small table when there are many (data-dependent values
 * give one pair per rank). */
static void vset_merge(merger *g, tf_vset *dst, tf_vset *src) {
  uint32_t cap = 0, *table = NULL;
  if ((uint64_t)dst->n * src->n > 64) {
    for (cap = 16; cap < 2 * (dst->n + src->n); cap *= 2) {}
    if ((table = malloc(cap * sizeof *table))) {
      memset(table, 0xff, cap * sizeof *table);
      for (uint32_t i = 0; i < dst->n; i++) {
        uint32_t h = (uint32_t)dst->hash[i] & (cap - 1);
        while (table[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
        table[h] = i;
      }
    }
  }
  for (uint32_t k = 0; k < src->n; k++) {
    uint32_t i = dst->n;
    if (table) {
      for (uint32_t h = (uint32_t)src->hash[k] & (cap - 1); table[h] != UINT32_MAX; h = (h + 1) & (cap - 1))
        if (dst->hash[table[h]] == src->hash[k] && tf_vseq_equal(&dst->seq[table[h]], &src->seq[k])) {
          i = table[h];
          break;
        }
    } else {
      i = 0;
      while (i < dst->n && !(dst->hash[i] == src->hash[k] && tf_vseq_equal(&dst->seq[i], &src->seq[k]))) i++;
    }
    if (i < dst->n) {
      tf_vseq_append(&dst->ranks[i], &src->ranks[k], g->m);
    } else if (tf_vset_add(dst, &src->seq[k], &src->ranks[k], src->hash[k], g->m) == 0 && table) {
      uint32_t h = (uint32_t)src->hash[k] & (cap - 1);
      while (table[h] != UINT32_MAX) h = (h + 1) & (cap - 1);
      table[h] = dst->n - 1;
    }
  }
  free(table);
  tf_vset_free(src, g->m);
}

/* a absorbs b (same shape, or two loops to merge); b is freed. */
static void merge_node(merger *g, tf_mnode *a, tf_mnode *b) {
  tf_vseq_append(&a->ranks, &b->ranks, g->m);
  vset_merge(g, &a->count, &b->count);
  if (a->is_loop) {
    tf_mnode **body;
    uint32_t n;
    if (merge_lists(g, a->body, a->nbody, b->body, b->nbody, &body, &n) == 0) {
      free(a->body);
      free(b->body);
      g->m->bytes -= (a->nbody + b->nbody) * sizeof *body;
      a->body = body;
      a->nbody = n;
      b->body = NULL;
      b->nbody = 0;
      tf_mnode_rekey(a);
    }
  } else {
    if (b->nslots > a->nslots) {
      tf_vset *s = realloc(a->slots, b->nslots * sizeof *s);
      if (!s) {
        g->m->failed = 1;
      } else {
        memset(s + a->nslots, 0, (b->nslots - a->nslots) * sizeof *s);
        g->m->bytes += (b->nslots - a->nslots) * sizeof *s;
        a->slots = s;
        a->nslots = b->nslots;
      }
    }
    for (uint32_t j = 0; j < b->nslots && j < a->nslots; j++) vset_merge(g, &a->slots[j], &b->slots[j]);
    tf_gtiming_merge(&a->timing, &b->timing, g->bins, g->m);
  }
  tf_mnode_free(b, g->m);
}

/* ------------------------------------------------------------ Myers' algorithm */

/* Aligned pairs of a[0..na) and b[0..nb) (ascending), by the greedy
 * shortest edit script. Returns the number of pairs, or -1 if more than
 * TF_ALIGN_MAXD nodes would stay unaligned (or memory ran out). */
static int64_t myers(tf_mnode *const *a, int64_t na, tf_mnode *const *b, int64_t nb, int64_t *pa, int64_t *pb) {
  int64_t maxd = na + nb < TF_ALIGN_MAXD ? na + nb : TF_ALIGN_MAXD;
  int64_t off = maxd + 1, width = 2 * maxd + 3;
  int64_t *v = calloc((size_t)width, sizeof *v);
  /* trace[d] is V after step d, for the diagonals -d..d */
  int64_t **trace = calloc((size_t)maxd + 1, sizeof *trace);
  int64_t found = -1;
  if (!v || !trace) goto done;
  for (int64_t d = 0; d <= maxd && found < 0; d++) {
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
      int64_t y = x - k;
      while (x < na && y < nb && same(a[x], b[y])) x++, y++;
      v[off + k] = x;
      if (x == na && y == nb) found = d; /* paths past either end never come back */
    }
    if (!(trace[d] = malloc((size_t)(2 * d + 1) * sizeof **trace))) {
      found = -1;
      break;
    }
    memcpy(trace[d], v + off - d, (size_t)(2 * d + 1) * sizeof **trace);
  }
  if (found < 0) goto done;
  /* walk back from (na, nb), collecting the diagonal moves */
  int64_t x = na, y = nb, np = 0;
  for (int64_t d = found; d >= 0; d--) {
    int64_t k = x - y, px, py;
    if (d == 0) {
      px = py = 0;
    } else {
      const int64_t *prev = trace[d - 1]; /* diagonals -(d-1)..d-1 */
      int64_t up = k + 1 <= d - 1 ? prev[k + 1 + d - 1] : -1, left = k - 1 >= -(d - 1) ? prev[k - 1 + d - 1] : -1;
      int64_t pk = (k == -d || (k != d && left < up)) ? k + 1 : k - 1;
      px = prev[pk + d - 1];
      py = px - pk;
      /* the step itself: from (px,py) one insertion or deletion */
      int64_t sx = pk == k + 1 ? px : px + 1, sy = sx - k;
      while (x > sx && y > sy) pa[np] = --x, pb[np] = --y, np++;
      x = px;
      y = py;
      continue;
    }
    while (x > px && y > py) pa[np] = --x, pb[np] = --y, np++;
  }
  /* reverse into ascending order */
  for (int64_t i = 0; i < np / 2; i++) {
    int64_t t = pa[i];
    pa[i] = pa[np - 1 - i], pa[np - 1 - i] = t;
    t = pb[i];
    pb[i] = pb[np - 1 - i], pb[np - 1 - i] = t;
  }
  found = np;
done:
  if (trace)
    for (int64_t d = 0; d <= maxd; d++) free(trace[d]);
  free(trace);
  free(v);
  return found;
}

/* ------------------------------------------------------------ loops that differ */

static uint32_t leaf_keys(const tf_mnode *x, uint64_t *keys, uint32_t n) {
  for (uint32_t i = 0; i < x->nbody && n < TF_LEAF_KEYS; i++) {
    if (x->body[i]->is_loop)
      n = leaf_keys(x->body[i], keys, n);
    else
      keys[n++] = x->body[i]->key;
  }
  return n;
}

static int similar(const tf_mnode *a, const tf_mnode *b) {
  if (!a->is_loop || !b->is_loop || a->cst != b->cst) return 0; /* other source loops never align */
  uint64_t ka[TF_LEAF_KEYS], kb[TF_LEAF_KEYS];
  uint32_t na = leaf_keys(a, ka, 0), nb = leaf_keys(b, kb, 0);
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++)
      if (ka[i] == kb[j]) return 1;
  return 0;
}

/* An unaligned stretch a[0..na), b[0..nb): pair similar loops in order,
 * emit everything, each rank's nodes in their order. */
static void merge_stretch(merger *g, tf_mnode **a, uint32_t na, tf_mnode **b, uint32_t nb, tf_mnode **out,
                          uint32_t *nout) {
  uint32_t ia = 0, ib = 0; /* next not yet emitted */
  for (uint32_t i = 0; i < na; i++) {
    if (!a[i]->is_loop) continue;
    uint32_t tries = 0, j, hit = 0;
    for (j = ib; j < nb && tries < TF_ALIGN_TRIES && !hit; j++) {
      if (!b[j]->is_loop) continue;
      tries++;
      hit = similar(a[i], b[j]);
    }
    if (!hit) continue;
    j--; /* the loop stepped past the hit */
    while (ia < i) out[(*nout)++] = a[ia++];
    while (ib < j) out[(*nout)++] = b[ib++];
    merge_node(g, a[i], b[j]);
    out[(*nout)++] = a[i];
    ia = i + 1;
    ib = j + 1;
  }
  while (ia < na) out[(*nout)++] = a[ia++];
  while (ib < nb) out[(*nout)++] = b[ib++];
}

static int merge_lists(merger *g, tf_mnode **a, uint32_t na, tf_mnode **b, uint32_t nb, tf_mnode ***out,
                       uint32_t *nout) {
  tf_mnode **o = malloc(((size_t)na + nb ? (size_t)na + nb : 1) * sizeof *o);
  if (!o) {
    g->m->failed = 1;
    return -1;
  }
  g->m->bytes += ((size_t)na + nb) * sizeof *o;
  uint32_t n = 0, pre = 0, suf = 0;
  while (pre < na && pre < nb && same(a[pre], b[pre])) pre++;
  while (suf < na - pre && suf < nb - pre && same(a[na - 1 - suf], b[nb - 1 - suf])) suf++;
  for (uint32_t i = 0; i < pre; i++) {
    merge_node(g, a[i], b[i]);
    o[n++] = a[i];
  }
  uint32_t ma = na - pre - suf, mb = nb - pre - suf;
  tf_mnode **am = a + pre, **bm = b + pre;
  int64_t *pa = ma && mb ? malloc(((size_t)(ma < mb ? ma : mb)) * 2 * sizeof *pa) : NULL;
  int64_t np = pa ? myers(am, ma, bm, mb, pa, pa + (ma < mb ? ma : mb)) : -1;
  if (np < 0) {
    merge_stretch(g, am, ma, bm, mb, o, &n);
  } else {
    int64_t *pb = pa + (ma < mb ? ma : mb);
    uint32_t ia = 0, ib = 0;
    for (int64_t k = 0; k <= np; k++) {
      uint32_t ea = k < np ? (uint32_t)pa[k] : ma, eb = k < np ? (uint32_t)pb[k] : mb;
      merge_stretch(g, am + ia, ea - ia, bm + ib, eb - ib, o, &n);
      if (k == np) break;
      merge_node(g, am[ea], bm[eb]);
      o[n++] = am[ea];
      ia = ea + 1;
      ib = eb + 1;
    }
  }
  free(pa);
  for (uint32_t i = 0; i < suf; i++) {
    merge_node(g, a[na - suf + i], b[nb - suf + i]);
    o[n++] = a[na - suf + i];
  }
  *out = o;
  *nout = n;
  return 0; /* nodes have moved into o: failures (g->m->failed) are reported by the caller */
}

/* ------------------------------------------------------------ traces */

static uint32_t find_site(const tf_mtrace *t, uint64_t sig) {
  for (uint32_t i = 0; i < t->ncallsites; i++)
    if (t->callsites[i].sig == sig) return i;
  return UINT32_MAX;
}

/* Where each function of src's table is in dst's (fn[i]), adding those dst
 * lacks when `add`; a function dst has under the same name but with other
 * fields makes the tables incompatible. 0; 1 incompatible; -1 out of memory. */
static int union_funcs(tf_mtrace *dst, const tf_mtrace *src, uint32_t *fn, int add) {
  for (uint32_t i = 0; i < src->ft.n; i++) {
    const tf_func_desc *f = &src->ft.funcs[i];
    uint32_t j = i < dst->ft.n && tf_func_same(&dst->ft.funcs[i], f) ? i : tf_functable_find(&dst->ft, f->name);
    if (j != UINT32_MAX && !tf_func_same(&dst->ft.funcs[j], f)) return 1;
    if (j == UINT32_MAX && add) {
      if (tf_functable_add(&dst->ft, f)) return -1;
      j = dst->ft.n - 1;
    }
    fn[i] = j;
  }
  return 0;
}

int tf_mtrace_merge(tf_mtrace *dst, tf_mtrace *src, char *err, size_t errlen) {
  const char *why = NULL;
  uint32_t *fn_map = malloc((src->ft.n ? src->ft.n : 1) * sizeof *fn_map);
  if (!fn_map) {
    tf_mtrace_free(src);
    goto nomem;
  }
  if (dst->nranks != src->nranks)
    why = "the traces come from runs with different numbers of ranks";
  else if (union_funcs(dst, src, fn_map, 0) == 1)
    why = "the traces have different function tables (recorded by different tracefold versions)";
  else if (dst->timing != src->timing || dst->bins != src->bins || dst->unit != src->unit)
    why = "the traces keep different timing (TRACEFOLD_TIMING, TRACEFOLD_BINS or TRACEFOLD_VOLUME differ)";
  else if (dst->run_id != src->run_id || dst->run_start_unix_ns != src->run_start_unix_ns)
    why = "the traces come from different runs (their run ids differ)";
  else if (src->present.nvalues && dst->present.nvalues &&
           tf_ranks_first(&src->present) <= tf_ranks_last(&dst->present))
    why = "ranks must be merged in increasing order, each once";
  if (why) {
    snprintf(err, errlen, "%s", why);
    free(fn_map);
    tf_mtrace_free(src);
    return -1;
  }
  merger g = {.m = &dst->mem, .bins = dst->bins};
  uint32_t *map = malloc((src->ncallsites ? src->ncallsites : 1) * sizeof *map);
  for (uint32_t i = 0; map && i < src->ncallsites; i++) {
    map[i] = find_site(dst, src->callsites[i].sig);
    if (map[i] == UINT32_MAX) {
      if (tf_mtrace_add_callsite(dst, &src->callsites[i])) {
        free(map);
        map = NULL;
        break;
      }
      map[i] = dst->ncallsites - 1;
    }
  }
  if (!map || union_funcs(dst, src, fn_map, 1)) { /* src's functions dst lacks join its table */
    free(map);
    free(fn_map);
    tf_mtrace_free(src);
    goto nomem;
  }
  tf_index_map fns = {.to = fn_map, .n = src->ft.n, .new_n = dst->ft.n},
               sites = {.to = map, .n = src->ncallsites, .new_n = dst->ncallsites};
  tf_mnodes_renumber(src->top, src->ntop, &fns, &sites);
  free(map);
  free(fn_map);
  tf_mnode **top;
  uint32_t ntop;
  /* src's nodes are accounted in dst from here on */
  dst->mem.bytes += src->mem.bytes;
  src->mem.bytes = 0;
  int rc = merge_lists(&g, dst->top, dst->ntop, src->top, src->ntop, &top, &ntop);
  if (rc == 0) {
    free(dst->top);
    free(src->top);
    dst->mem.bytes -= ((size_t)dst->ntop + src->ntop) * sizeof *top;
    dst->top = top;
    dst->ntop = ntop;
    src->top = NULL;
    src->ntop = 0;
  }
  for (int k = 0; k < 3; k++) vset_merge(&g, &dst->order[k], &src->order[k]);
  tf_vseq_append(&dst->present, &src->present, &dst->mem);
  tf_vseq_append(&dst->nevents, &src->nevents, &dst->mem);
  tf_vseq_append(&dst->lost, &src->lost, &dst->mem);
  tf_vseq_append(&dst->why, &src->why, &dst->mem);
  if (src->partial && (!dst->partial || src->partial < dst->partial))
    dst->partial = src->partial; /* the first cause: MPI_Abort, a signal, an exit, then a checkpoint */
  if (src->start_unix_ns && (!dst->start_unix_ns || src->start_unix_ns < dst->start_unix_ns))
    dst->start_unix_ns = src->start_unix_ns;
  tf_mtrace_free(src);
  if (rc || dst->mem.failed) goto nomem;
  return 0;
nomem:
  snprintf(err, errlen, "out of memory while merging");
  return -1;
}
