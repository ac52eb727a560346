/* corners.c — corner ranks of a rank grid (corners.h): distinct peers per
 * rank from a merged trace, the group with the fewest, and the grid whose
 * corners they are. */
#include "extrap/corners.h"

#include <stdlib.h>
#include <string.h>

#include "extrap/topology.h"

typedef struct peer_sets {
  int64_t p;
  int64_t *off;  /* off[r * TF_CORNERS_MAXPEERS ..]: rank r's distinct peers */
  uint32_t *n;   /* npeers of the caller */
} peer_sets;

static void add_peer(peer_sets *s, int64_t r, int64_t v) {
  if (r < 0 || r >= s->p || v == 0 || v <= -s->p || v >= s->p) return;
  int64_t *o = s->off + r * TF_CORNERS_MAXPEERS;
  uint32_t k = s->n[r] < TF_CORNERS_MAXPEERS ? s->n[r] : TF_CORNERS_MAXPEERS;
  for (uint32_t i = 0; i < k; i++)
    if (o[i] == v) return;
  if (s->n[r] < TF_CORNERS_MAXPEERS) o[s->n[r]] = v;
  if (s->n[r] <= TF_CORNERS_MAXPEERS) s->n[r]++;
}

/* Every value of pair g of v on each of its ranks (plus the pair's rule). */
static int add_pair(peer_sets *s, const tf_vset *v, uint32_t g) {
  const tf_vrule *rule = tf_vset_has_rule(v) ? tf_vset_pair_rule(v, g) : NULL;
  if (rule && !rule->a) rule = NULL;
  tf_vseq_iter *ri = malloc(tf_vseq_iter_size(&v->ranks[g]));
  tf_vseq_iter *vi = malloc(tf_vseq_iter_size(&v->seq[g]));
  if (!ri || !vi) {
    free(ri);
    free(vi);
    return -1;
  }
  tf_vseq_iter_init(ri, &v->ranks[g]);
  int64_t r, val;
  while (tf_vseq_iter_next(ri, &r)) {
    tf_vseq_iter_init(vi, &v->seq[g]);
    while (tf_vseq_iter_next(vi, &val)) {
      if (val <= -s->p || val >= s->p) continue; /* MPI_PROC_NULL and the other specials */
      add_peer(s, r, rule ? val + tf_vrule_at(rule, r) : val);
    }
  }
  free(ri);
  free(vi);
  return 0;
}

static int add_field(void *ctx, const tf_vset *v) {
  for (uint32_t g = 0; g < v->n; g++)
    if (add_pair(ctx, v, g)) return -1;
  return 0;
}

int tf_corners_peer_counts(const tf_mtrace *t, uint32_t *npeers) {
  peer_sets s = {.p = t->nranks, .n = npeers};
  if (s.p < 1 || s.p > TF_CORNERS_MAXRANKS) return 1;
  memset(npeers, 0, (size_t)s.p * sizeof *npeers);
  if (!(s.off = malloc((size_t)s.p * TF_CORNERS_MAXPEERS * sizeof *s.off))) return -1;
  int rc = tf_topo_each_peer_field(t, add_field, &s);
  free(s.off);
  return rc;
}

uint32_t tf_corners_group(const uint32_t *npeers, int64_t p, int64_t *corners) {
  uint32_t least = UINT32_MAX, n = 0;
  for (int64_t r = 0; r < p; r++)
    if (npeers[r] < least) least = npeers[r];
  for (int64_t r = 0; r < p; r++)
    if (npeers[r] == least) corners[n++] = r;
  return (int64_t)n == p ? 0 : n;
}

/* Row-major strides of dims[0..nd). */
static void strides_of(int nd, const int64_t *dims, int64_t *stride) {
  stride[nd - 1] = 1;
  for (int d = nd - 2; d >= 0; d--) stride[d] = stride[d + 1] * dims[d + 1];
}

/* Whether rank r is in the corner group of dims with the dimensions in
 * `periodic` periodic: every other coordinate at an end. */
static int in_group(int64_t r, int nd, const int64_t *dims, const int64_t *stride, int periodic) {
  for (int d = 0; d < nd; d++) {
    int64_t x = r / stride[d] % dims[d];
    if (!(periodic >> d & 1) && x != 0 && x != dims[d] - 1) return 0;
  }
  return 1;
}

static int group_is(const int64_t *c, uint32_t n, int64_t p, int nd, const int64_t *dims, int periodic) {
  int64_t stride[3];
  strides_of(nd, dims, stride);
  uint32_t k = 0;
  for (int64_t r = 0; r < p; r++)
    if (in_group(r, nd, dims, stride, periodic) && (k >= n || c[k++] != r)) return 0;
  return k == n;
}

int tf_corners_grid(const int64_t *c, uint32_t n, int64_t p, int64_t *dims) {
  int nd = n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : 0;
  if (!nd || c[0] != 0 || c[n - 1] != p - 1) return 0;
  /* the corners in rank order: 0, then the last of the first row (row - 1),
   * then the first of the last row of the first plane (plane - row) */
  int64_t row = nd > 1 ? c[1] + 1 : p, plane = nd > 2 ? c[2] + row : p;
  if (nd > 1 && (row < 2 || plane % row || p % plane || plane / row < 2 || (nd > 2 && p / plane < 2))) return 0;
  int64_t g[3];
  if (nd == 1) g[0] = p;
  if (nd == 2) g[0] = p / row, g[1] = row;
  if (nd == 3) g[0] = p / plane, g[1] = plane / row, g[2] = row;
  if (!group_is(c, n, p, nd, g, 0)) return 0;
  memcpy(dims, g, (size_t)nd * sizeof *g);
  return nd;
}

int tf_corners_match(const int64_t *c, uint32_t n, int64_t p, int nd, const int64_t *dims) {
  int64_t prod = 1;
  for (int d = 0; d < nd; d++) prod *= dims[d];
  if (nd < 1 || nd > 3 || prod != p) return -1;
  for (int mask = 0; mask < (1 << nd) - 1; mask++)
    if (group_is(c, n, p, nd, dims, mask)) return mask;
  return -1;
}
