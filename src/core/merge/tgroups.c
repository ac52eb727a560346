/* tgroups.c — time summaries per path and rank group in merged traces; see tgroups.h. */
#include "merge/tgroups.h"

#include <stdlib.h>
#include <string.h>

#include "merge/ranklist.h"

/* ------------------------------------------------------------ rank lists */

static uint32_t items_cost(const tf_vitem *it, uint32_t n) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++) c += 1 + (it[i].nbody ? items_cost(it[i].body, it[i].nbody) : 0);
  return c;
}

uint32_t tf_ranks_cost(const tf_vseq *ranks) { return items_cost(ranks->items, ranks->n) + (ranks->tcount ? 1 : 0); }

int tf_ranks_union(tf_vseq *out, const tf_vseq *a, const tf_vseq *b, tf_mem *m) {
  tf_vseq_init(out);
  if (!a->nvalues) return tf_vseq_copy(out, b, m);
  if (!b->nvalues) return tf_vseq_copy(out, a, m);
  if (tf_ranks_last(a) < tf_ranks_first(b) || tf_ranks_last(b) < tf_ranks_first(a)) {
    const tf_vseq *lo = tf_ranks_last(a) < tf_ranks_first(b) ? a : b, *hi = lo == a ? b : a;
    if (tf_vseq_copy(out, lo, m)) return -1;
    tf_vseq_append(out, hi, m);
    return m->failed ? -1 : 0;
  }
  tf_vseq_iter *ia = malloc(tf_vseq_iter_size(a)), *ib = malloc(tf_vseq_iter_size(b));
  if (!ia || !ib) {
    free(ia);
    free(ib);
    m->failed = 1;
    return -1;
  }
  tf_vseq_iter_init(ia, a);
  tf_vseq_iter_init(ib, b);
  int64_t x, y;
  int hx = tf_vseq_iter_next(ia, &x), hy = tf_vseq_iter_next(ib, &y);
  while (hx || hy) {
    if (hx && (!hy || x < y)) {
      tf_vseq_push(out, x, m);
      hx = tf_vseq_iter_next(ia, &x);
    } else if (hy && (!hx || y < x)) {
      tf_vseq_push(out, y, m);
      hy = tf_vseq_iter_next(ib, &y);
    } else { /* in both (not in a valid split, but harmless) */
      tf_vseq_push(out, x, m);
      hx = tf_vseq_iter_next(ia, &x);
      hy = tf_vseq_iter_next(ib, &y);
    }
  }
  free(ia);
  free(ib);
  return m->failed ? -1 : 0;
}

/* ------------------------------------------------------------ groups */

static void group_free(tf_tgroup *g, tf_mem *m) {
  tf_vseq_free(&g->ranks, m);
  tf_tpath_free(&g->t, m);
}

static void gpath_free(tf_gpath *p, tf_mem *m) {
  for (uint32_t i = 0; i < p->n; i++) group_free(&p->g[i], m);
  free(p->g);
  m->bytes -= p->cap * sizeof *p->g;
  *p = (tf_gpath){0};
}

void tf_gtiming_free(tf_gtiming *g, tf_mem *m) {
  for (uint32_t i = 0; i < g->npaths; i++) gpath_free(&g->paths[i], m);
  free(g->paths);
  m->bytes -= g->npaths * sizeof *g->paths;
  *g = (tf_gtiming){0};
}

void tf_gtiming_seal(tf_gtiming *g, tf_mem *m) {
  for (uint32_t i = 0; i < g->npaths; i++)
    for (uint32_t x = 0; x < g->paths[i].n; x++) tf_vseq_seal(&g->paths[i].g[x].ranks, m);
}

/* Append a group (moved in: emptied on success and on failure, when it is freed). 0 or -1. */
static int gpath_add(tf_gpath *p, tf_tgroup *x, tf_mem *m) {
  if (p->n == p->cap) {
    uint32_t cap = p->cap ? 2 * p->cap : 1;
    tf_tgroup *ng = realloc(p->g, cap * sizeof *ng);
    if (!ng) {
      group_free(x, m);
      m->failed = 1;
      return -1;
    }
    m->bytes += (cap - p->cap) * sizeof *ng;
    p->g = ng;
    p->cap = cap;
  }
  p->g[p->n++] = *x;
  *x = (tf_tgroup){0};
  return 0;
}

/* Append an empty path for (prev_fn, prev_site). NULL out of memory. */
static tf_gpath *path_add(tf_gtiming *g, uint32_t prev_fn, uint32_t prev_site, tf_mem *m) {
  tf_gpath *np = realloc(g->paths, (g->npaths + 1) * sizeof *np);
  if (!np) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += sizeof *np;
  g->paths = np;
  tf_gpath *p = &np[g->npaths++];
  *p = (tf_gpath){.prev_fn = prev_fn, .prev_site = prev_site};
  return p;
}

/* One rank's timing `own` (moved in, accounted in m; freed) as groups of that rank alone. 0 or -1. */
static int from_own(tf_gtiming *g, tf_timing own, int32_t rank, tf_mem *m) {
  tf_timing_set_rank(&own, rank);
  g->compute = own.compute;
  g->duration = own.duration;
  for (uint32_t i = 0; i < own.npaths; i++) {
    tf_gpath *p = path_add(g, own.paths[i].prev_fn, own.paths[i].prev_site, m);
    tf_tgroup x = {.t = own.paths[i]};
    own.paths[i] = (tf_tpath){0};
    tf_vseq_init(&x.ranks);
    tf_vseq_push(&x.ranks, rank, m);
    if (!p || gpath_add(p, &x, m)) {
      group_free(&x, m);
      tf_timing_free(&own, m);
      tf_gtiming_free(g, m);
      return -1;
    }
  }
  tf_timing_free(&own, m);
  return 0;
}

int tf_gtiming_from_rank(tf_gtiming *g, const tf_timing *t, int32_t rank, tf_mem *m) {
  *g = (tf_gtiming){0};
  tf_timing own;
  if (tf_timing_copy(&own, t, m)) return -1;
  return from_own(g, own, rank, m);
}

/* Bytes of a summary's bins, as tf_bins_alloc counts them. */
static size_t dstat_bytes(const tf_dstat *d) { return (size_t)d->nbins * sizeof *d->bins; }

int tf_gtiming_take_rank(tf_gtiming *g, tf_timing *t, int32_t rank, tf_mem *m, tf_mem *tm) {
  *g = (tf_gtiming){0};
  size_t moved = (size_t)t->npaths * sizeof *t->paths;
  for (uint32_t i = 0; i < t->npaths; i++)
    moved += dstat_bytes(&t->paths[i].compute) + dstat_bytes(&t->paths[i].duration);
  tm->bytes -= moved;
  m->bytes += moved;
  tf_timing own = *t;
  *t = (tf_timing){0};
  return from_own(g, own, rank, m);
}

int tf_gtiming_from_pooled(tf_gtiming *g, tf_timing *t, const tf_vseq *ranks, tf_mem *m) {
  *g = (tf_gtiming){.compute = t->compute, .duration = t->duration};
  int rc = 0;
  for (uint32_t i = 0; i < t->npaths; i++) {
    tf_tgroup x = {.t = t->paths[i]};
    t->paths[i] = (tf_tpath){0};
    tf_gpath *p = rc ? NULL : path_add(g, x.t.prev_fn, x.t.prev_site, m);
    if (!p || tf_vseq_copy(&x.ranks, ranks, m) || gpath_add(p, &x, m)) {
      group_free(&x, m);
      rc = -1;
    }
  }
  tf_timing_free(t, m);
  if (rc) tf_gtiming_free(g, m);
  return rc;
}

/* Group j of p merges into group i (i < j); j is removed. 0 or -1. */
static int groups_join(tf_gpath *p, uint32_t i, uint32_t j, uint32_t k, tf_mem *m) {
  tf_vseq u;
  if (tf_ranks_union(&u, &p->g[i].ranks, &p->g[j].ranks, m)) {
    tf_vseq_free(&u, m);
    return -1;
  }
  /* the summaries merge across ranks: the per-rank mean extremes combine */
  if (tf_tpath_merge(&p->g[i].t, &p->g[j].t, k, 1, m)) {
    tf_vseq_free(&u, m);
    return -1;
  }
  tf_vseq_free(&p->g[i].ranks, m);
  p->g[i].ranks = u;
  group_free(&p->g[j], m);
  memmove(&p->g[j], &p->g[j + 1], (p->n - j - 1) * sizeof *p->g);
  p->n--;
  return 0;
}

/* The caps: while the path has more than TF_GROUPS_MAX groups, or its rank
 * lists take more than TF_GROUP_RANK_ITEMS items, the pair whose merge
 * moves the least time merges. 0 or -1. */
static int enforce_caps(tf_gpath *p, uint32_t k, tf_mem *m) {
  for (;;) {
    if (p->n <= 1) return 0;
    uint32_t cost = 0;
    for (uint32_t i = 0; i < p->n; i++) cost += tf_ranks_cost(&p->g[i].ranks);
    if (p->n <= TF_GROUPS_MAX && cost <= TF_GROUP_RANK_ITEMS) return 0;
    uint32_t bi = 0, bj = 1;
    double best = -1;
    for (uint32_t i = 0; i < p->n; i++)
      for (uint32_t j = i + 1; j < p->n; j++) {
        double c = tf_tpath_moved(&p->g[i].t, &p->g[j].t);
        if (best < 0 || c < best) best = c, bi = i, bj = j;
      }
    if (groups_join(p, bi, bj, k, m)) return -1;
  }
}

int tf_gtiming_merge(tf_gtiming *a, tf_gtiming *b, uint32_t k, tf_mem *m) {
  int rc = 0;
  if (tf_gtiming_count(b)) {
    if (!tf_gtiming_count(a)) {
      a->compute = b->compute;
      a->duration = b->duration;
    } else {
      tf_rankmeans_merge(&a->compute, &b->compute);
      tf_rankmeans_merge(&a->duration, &b->duration);
    }
  }
  for (uint32_t q = 0; q < b->npaths && !rc; q++) {
    tf_gpath *bp = &b->paths[q], *p = NULL;
    for (uint32_t i = 0; i < a->npaths && !p; i++)
      if (a->paths[i].prev_fn == bp->prev_fn && a->paths[i].prev_site == bp->prev_site) p = &a->paths[i];
    if (!p && !(p = path_add(a, bp->prev_fn, bp->prev_site, m))) {
      rc = -1;
      break;
    }
    for (uint32_t y = 0; y < bp->n && !rc; y++) {
      tf_tgroup *gy = &bp->g[y];
      uint32_t best = UINT32_MAX;
      double bestc = 0;
      for (uint32_t x = 0; x < p->n; x++) {
        /* noise is pooled only between groups that pool several ranks already */
        if (!tf_tpath_agree(&p->g[x].t, &gy->t, p->g[x].ranks.nvalues > 1 && gy->ranks.nvalues > 1)) continue;
        double c = tf_tpath_moved(&p->g[x].t, &gy->t);
        if (best == UINT32_MAX || c < bestc) best = x, bestc = c;
      }
      if (best == UINT32_MAX) {
        rc = gpath_add(p, gy, m);
        continue;
      }
      tf_vseq u;
      if (tf_ranks_union(&u, &p->g[best].ranks, &gy->ranks, m) || tf_tpath_merge(&p->g[best].t, &gy->t, k, 1, m)) {
        tf_vseq_free(&u, m);
        rc = -1;
        continue;
      }
      tf_vseq_free(&p->g[best].ranks, m);
      p->g[best].ranks = u;
    }
    if (!rc) rc = enforce_caps(p, k, m);
  }
  tf_gtiming_free(b, m);
  return rc || m->failed ? -1 : 0;
}

/* ------------------------------------------------------------ reading */

int tf_gtiming_project(const tf_gtiming *g, int64_t rank, tf_timing *shell) {
  *shell = (tf_timing){.compute = g->compute, .duration = g->duration};
  if (!g->npaths) return 0;
  if (!(shell->paths = malloc(g->npaths * sizeof *shell->paths))) return -1;
  for (uint32_t i = 0; i < g->npaths; i++) {
    const tf_gpath *p = &g->paths[i];
    for (uint32_t x = 0; x < p->n; x++)
      if (tf_ranks_contains(&p->g[x].ranks, rank)) {
        shell->paths[shell->npaths] = p->g[x].t;
        shell->paths[shell->npaths].prev_fn = p->prev_fn;
        shell->paths[shell->npaths].prev_site = p->prev_site;
        shell->npaths++;
        break;
      }
  }
  return 0;
}

int tf_gtiming_pooled(const tf_gtiming *g, uint32_t k, tf_timing *out, tf_mem *m) {
  *out = (tf_timing){.compute = g->compute, .duration = g->duration};
  if (!g->npaths) return 0;
  if (!(out->paths = calloc(g->npaths, sizeof *out->paths))) {
    m->failed = 1;
    return -1;
  }
  m->bytes += g->npaths * sizeof *out->paths;
  out->npaths = g->npaths;
  for (uint32_t i = 0; i < g->npaths; i++) {
    tf_tpath *o = &out->paths[i];
    const tf_gpath *p = &g->paths[i];
    for (uint32_t x = 0; x < p->n; x++)
      if (x == 0 ? tf_tpath_copy(o, &p->g[0].t, m) : tf_tpath_merge(o, &p->g[x].t, k, 1, m)) {
        tf_timing_free(out, m);
        return -1;
      }
    o->prev_fn = p->prev_fn;
    o->prev_site = p->prev_site;
  }
  return 0;
}

uint64_t tf_gtiming_count(const tf_gtiming *g) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < g->npaths; i++)
    for (uint32_t x = 0; x < g->paths[i].n; x++) n += g->paths[i].g[x].t.compute.n;
  return n;
}
