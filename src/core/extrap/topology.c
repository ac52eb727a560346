/* topology.c — the Cartesian rank space of a trace (topology.h): recorded
 * (MPI_Dims_create / MPI_Cart_create), by MPI_Dims_create's rule, or
 * detected from the relative peers of point-to-point calls (2-D or 3-D). */
#include "extrap/topology.h"

#include <stdlib.h>
#include <string.h>

static int find_ndims(const tf_mtrace *t, tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop) {
      int nd = find_ndims(t, x[i]->body, x[i]->nbody);
      if (nd) return nd;
      continue;
    }
    const tf_func_desc *f = &t->ft.funcs[x[i]->fn];
    if (strcmp(f->name, "MPI_Dims_create") != 0 && strcmp(f->name, "MPI_Cart_create") != 0) continue;
    for (uint32_t j = 0; j < f->nfields && j < x[i]->nslots; j++) {
      if (strcmp(f->fields[j].name, "ndims") != 0 || !x[i]->slots[j].n) continue;
      int64_t nd = tf_vseq_value_at(&x[i]->slots[j].seq[0], 0);
      if (nd >= 1 && nd <= TF_TOPO_MAXDIMS) return (int)nd;
    }
  }
  return 0;
}

int tf_topo_ndims(const tf_mtrace *t) { return find_ndims(t, t->top, t->ntop); }

static int each_peer_field(const tf_mtrace *t, tf_mnode *const *x, uint32_t n,
                           int (*visit)(void *, const tf_vset *), void *ctx) {
  for (uint32_t i = 0; i < n; i++) {
    int rc = 0;
    if (x[i]->is_loop) {
      rc = each_peer_field(t, x[i]->body, x[i]->nbody, visit, ctx);
    } else {
      const tf_func_desc *f = &t->ft.funcs[x[i]->fn];
      for (uint32_t j = 0; j < f->nfields && j < x[i]->nslots && !rc; j++)
        if (f->fields[j].kind == TF_FIELD_PEER) rc = visit(ctx, &x[i]->slots[j]);
    }
    if (rc) return rc;
  }
  return 0;
}

int tf_topo_each_peer_field(const tf_mtrace *t, int (*visit)(void *ctx, const tf_vset *v), void *ctx) {
  return each_peer_field(t, t->top, t->ntop, visit, ctx);
}

typedef struct seen_offsets {
  int64_t p;
  uint8_t *seen; /* seen[m] = 1 for every peer offset +-m (0 < m < p) */
} seen_offsets;

static int mark_peers(void *ctx, const tf_vset *v) {
  seen_offsets *s = ctx;
  for (uint32_t g = 0; g < v->n; g++) {
    tf_vseq_iter *it = malloc(tf_vseq_iter_size(&v->seq[g]));
    if (!it) return -1;
    tf_vseq_iter_init(it, &v->seq[g]);
    int64_t val;
    while (tf_vseq_iter_next(it, &val))
      if (val > -s->p && val < s->p && val != 0) s->seen[val < 0 ? -val : val] = 1;
    free(it);
  }
  return 0;
}

/* The smallest stride m (lo < m < p, m a multiple of unit, p a multiple of
 * m) seen, except one whose next (m + unit) also qualifies and is seen:
 * then m is the wrap of a periodic dimension of m + unit. 0: none. */
static int64_t stride_seen(const uint8_t *seen, int64_t p, int64_t lo, int64_t unit) {
  for (int64_t m = lo + 1; m < p; m++) {
    if (!seen[m] || p % m || m % unit) continue;
    int64_t next = m + unit;
    if (next < p && seen[next] && p % next == 0) continue;
    return m;
  }
  return 0;
}

int tf_topo_detect(const tf_mtrace *t, int64_t *row, int64_t *plane) {
  int64_t p = t->nranks;
  uint8_t *seen = calloc(p > 0 ? (size_t)p : 1, 1);
  if (!seen || tf_topo_each_peer_field(t, mark_peers, &(seen_offsets){p, seen})) {
    free(seen);
    return -1;
  }
  *row = stride_seen(seen, p, 1, 1);
  *plane = 0;
  if (*row) { /* a longer stride that rows tile and that tiles P: a 3-D grid's plane */
    int64_t m = stride_seen(seen, p, *row, *row);
    if (m && m / *row >= 2 && p / m >= 2) *plane = m;
  }
  free(seen);
  return 0;
}

void tf_topo_dims(int64_t p, int nd, int64_t *dims) {
  for (int i = 0; i < nd; i++) dims[i] = 1;
  int64_t f[64];
  int nf = 0;
  for (int64_t q = 2; q * q <= p; q++)
    while (p % q == 0) f[nf++] = q, p /= q;
  if (p > 1) f[nf++] = p;
  for (int i = nf - 1; i >= 0; i--) { /* largest factor first, onto the smallest dimension */
    int s = 0;
    for (int j = 1; j < nd; j++)
      if (dims[j] < dims[s]) s = j;
    dims[s] *= f[i];
  }
  for (int i = 0; i < nd; i++) /* non-increasing */
    for (int j = i + 1; j < nd; j++)
      if (dims[j] > dims[i]) {
        int64_t x = dims[i];
        dims[i] = dims[j];
        dims[j] = x;
      }
}
