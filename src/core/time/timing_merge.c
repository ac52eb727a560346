/* timing_merge.c — merging time summaries (timing.h): two histograms are cut
 * at each other's bin edges and the cheapest adjacent pairs re-merged until
 * k bins remain; statistics merge exactly (Chan et al.); path summaries
 * merge path by path. The cost depends on the number of bins and paths
 * only, not on the samples (the timing paper, §3.2–3.3). */
#include "time/timing_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ merging histograms */

/* Merge adjacent bins, the cheapest pair first (tf_bins_merge_cost; the first of
 * equals), until at most k remain (of a summary with [dmin, dmax]). The
 * costs of the pairs are kept: a merge changes only its two neighbours'.
 * O(n * (n - k)) comparisons, O(n) costs. */
static uint32_t bins_reduce(tf_bin *b, uint32_t n, uint32_t k, uint64_t dmin, uint64_t dmax) {
  if (n <= k || n < 2) return n;
  double cost[PIECES_MAX]; /* cost[i]: of merging b[i] and b[i + 1] */
  for (uint32_t i = 0; i + 1 < n; i++) cost[i] = tf_bins_merge_cost(&b[i], &b[i + 1], i + 2 == n, dmin, dmax);
  while (n > k && n > 1) {
    uint32_t pair = 0;
    for (uint32_t i = 1; i + 1 < n; i++)
      if (cost[i] < cost[pair]) pair = i;
    tf_bins_merge_pair(b, n, pair);
    if (pair + 2 < n) memmove(&cost[pair + 1], &cost[pair + 2], (n - pair - 3) * sizeof *cost);
    n--;
    if (pair > 0) cost[pair - 1] = tf_bins_merge_cost(&b[pair - 1], &b[pair], pair + 1 == n, dmin, dmax);
    if (pair + 1 < n) cost[pair] = tf_bins_merge_cost(&b[pair], &b[pair + 1], pair + 2 == n, dmin, dmax);
  }
  return n;
}

/* Spread the samples of bin `src` (of a summary with [dmin, dmax]; the last
 * bin of its histogram if `last`) over the pieces p[0..np) that tile it
 * exactly. A bin that is one piece is added as it is. Otherwise its count
 * follows its spread (a point mass goes to one piece); piece t covers the
 * reals [p[t].lo - 1/2, p[t].hi - 1/2), so that integer samples fall where
 * they belong. Counts are apportioned by rounding the cumulative share, so
 * they are integers summing to the bin's count; each share's mean is the
 * centre of its part of the spread, its M2 that of a uniform spread there. */
static void bin_spread_over(const tf_bin *src, int last, uint64_t dmin, uint64_t dmax, tf_bin *p, uint32_t np) {
  if (np == 1) {
    tf_bin_absorb(&p[0], src);
    return;
  }
  double centre, half;
  tf_bin_spread(src, last, dmin, dmax, &centre, &half);
  double from = centre - half, to = centre + half;
  uint64_t given = 0; /* of src->n, to pieces before t */
  for (uint32_t t = 0; t < np; t++) {
    double cut_lo = (double)p[t].lo - 0.5, cut_hi = (double)p[t].hi - 0.5;
    uint64_t upto = src->n; /* samples in pieces 0..t */
    if (t + 1 < np) {
      double share = half > 0 ? clampd((cut_hi - from) / (to - from), 0, 1) : (centre < cut_hi ? 1.0 : 0.0);
      double want = round((double)src->n * share);
      upto = !(want > 0) ? 0 : want >= (double)src->n ? src->n : (uint64_t)want;
    }
    if (upto < given) upto = given;
    tf_bin part = {.lo = p[t].lo, .hi = p[t].hi, .n = upto - given};
    given = upto;
    if (!part.n) continue;
    double a = fmax(from, cut_lo), z = fmin(to, cut_hi), width = z > a ? z - a : 0;
    part.mean = half > 0 && z >= a ? (a + z) / 2 : centre;
    part.m2 = (double)part.n * width * width / 12;
    bin_clamp_mean(&part);
    tf_bin_absorb(&p[t], &part);
  }
}

/* A histogram's cut points worth keeping, in order, without repeats: both
 * ends of its range and the boundaries of its non-empty bins. (Empty bins
 * say little about where samples are, so their inner boundaries are not
 * worth cutting the other side's bins at; the ends keep [min, max]
 * covered, since estimated counts need not match where samples are.) */
static uint32_t useful_cuts(const tf_dstat *d, uint64_t *cuts) {
  uint32_t n = 0, last = d->nbins - 1;
  for (uint32_t i = 0; i <= last; i++) {
    if (i == 0 || d->bins[i].n || d->bins[i - 1].n)
      if (!n || cuts[n - 1] != d->bins[i].lo) cuts[n++] = d->bins[i].lo;
  }
  cuts[n++] = d->bins[last].hi;
  return n;
}

/* The bins of two non-empty histograms merged into out (room for
 * PIECES_MAX bins): the union of both ranges is cut at the useful cut
 * points of either side (useful_cuts), each non-empty bin's samples are
 * spread over the pieces it covers (bin_spread_over), then adjacent pieces
 * are merged, cheapest first, until at most k remain. The cost depends on
 * k only (O(k^2) comparisons at worst), not on the sample counts; the
 * counts stay integers summing to na + nb. Returns the number of bins. */
static uint32_t hist_merge(const tf_dstat *a, const tf_dstat *b, uint32_t k, tf_bin *out) {
  uint64_t ca[TF_BINS_MAX + 1], cb[TF_BINS_MAX + 1], cuts[PIECES_MAX + 1];
  uint32_t na = useful_cuts(a, ca), nb = useful_cuts(b, cb), ncuts = 0, i = 0, j = 0;
  while (i < na || j < nb) { /* the two sorted lists merged */
    uint64_t c = j >= nb || (i < na && ca[i] <= cb[j]) ? ca[i++] : cb[j++];
    if (!ncuts || cuts[ncuts - 1] != c) cuts[ncuts++] = c;
  }
  uint32_t np = ncuts - 1;
  for (uint32_t t = 0; t < np; t++) bin_empty(&out[t], cuts[t], cuts[t + 1]);
  const tf_dstat *side[2] = {a, b};
  for (int s = 0; s < 2; s++) {
    uint32_t t = 0;
    for (uint32_t q = 0; q < side[s]->nbins; q++) {
      const tf_bin *src = &side[s]->bins[q];
      if (!src->n) continue;
      while (out[t].lo < src->lo) t++;
      uint32_t first = t;
      while (t < np && out[t].hi <= src->hi) t++;
      bin_spread_over(src, q + 1 == side[s]->nbins, side[s]->min, side[s]->max, &out[first], t - first);
    }
  }
  return bins_reduce(out, np, k, min_u64(a->min, b->min), max_u64(a->max, b->max));
}

/* ------------------------------------------------------------ merging summaries */

/* A summary merge computed without touching its target: the resulting
 * statistics and bins, then committed once memory is secured, so that a
 * path's two summaries change together or not at all. */
typedef struct dstat_merge {
  tf_dstat result; /* all but bins / nbins */
  uint32_t nbins;
  tf_bin bins[PIECES_MAX];
} dstat_merge;

static void merge_prepare(dstat_merge *r, const tf_dstat *a, const tf_dstat *b, uint32_t k, int across_ranks) {
  const tf_dstat *bins_from = NULL;
  if (!b->n) {
    r->result = *a;
    bins_from = a;
  } else if (!a->n) {
    r->result = *b;
    bins_from = b;
    if (!across_ranks) r->result.rmean_lo = r->result.rmean_hi = tf_dstat_mean(&r->result);
  } else {
    tf_dstat s = *a;
    s.n = a->n + b->n;
    s.sum = a->sum <= UINT64_MAX - b->sum ? a->sum + b->sum : UINT64_MAX;
    s.min = min_u64(a->min, b->min);
    s.max = max_u64(a->max, b->max);
    tf_dstat_union_sq(&s, a, b);
    if (across_ranks) {
      if (b->min < a->min) s.min_rank = b->min_rank;
      if (b->max > a->max) s.max_rank = b->max_rank;
      if (b->rmean_lo < a->rmean_lo) s.rmean_lo = b->rmean_lo, s.rmean_lo_rank = b->rmean_lo_rank;
      if (b->rmean_hi > a->rmean_hi) s.rmean_hi = b->rmean_hi, s.rmean_hi_rank = b->rmean_hi_rank;
    } else {
      s.rmean_lo = s.rmean_hi = tf_dstat_mean(&s);
    }
    r->result = s;
  }
  r->result.bins = NULL;
  r->result.nbins = 0;
  r->nbins = 0;
  if (!k || !r->result.n) return;
  if (bins_from) { /* one side only: its bins, at most k */
    if (!bins_from->nbins) return;
    memcpy(r->bins, bins_from->bins, bins_from->nbins * sizeof *r->bins);
    r->nbins = bins_reduce(r->bins, bins_from->nbins, k, bins_from->min, bins_from->max);
  } else if (a->nbins && b->nbins) { /* both sides need bins, else none can be made */
    r->nbins = hist_merge(a, b, k, r->bins);
  }
}

/* The bin array the commit needs (NULL: none needed, d's own is reused or
 * no bins). -1 out of memory. */
static int merge_reserve(const dstat_merge *r, const tf_dstat *d, tf_bin **fresh, tf_mem *m) {
  *fresh = NULL;
  if (!r->nbins || r->nbins == d->nbins) return 0;
  return (*fresh = tf_bins_alloc(r->nbins, m)) ? 0 : -1;
}

static void merge_commit(const dstat_merge *r, tf_dstat *d, tf_bin *fresh, tf_mem *m) {
  tf_bin *bins = d->bins;
  if (fresh || !r->nbins) {
    tf_bins_release(d->bins, d->nbins, m);
    bins = fresh;
  }
  *d = r->result;
  d->bins = bins;
  d->nbins = r->nbins;
  if (r->nbins) memcpy(bins, r->bins, r->nbins * sizeof *bins);
}

/* A summary of few samples merged into a histogram: its statistics exactly,
 * its bins as samples (each bin's count at its mean) added one by one as
 * Algorithm 2 adds them, rebalancing included. This is what folding does
 * most (an inner loop's events of one outer iteration, a few samples each,
 * into the loop's): far cheaper than cutting and re-merging the two bin
 * lists, and it keeps the histogram balanced. */
#define FEW_SAMPLES 64
static int few_into(tf_dstat *a, const tf_dstat *b, uint32_t k, int across_ranks, tf_mem *m) {
  dstat_merge r;
  merge_prepare(&r, a, b, 0, across_ranks); /* statistics only */
  tf_dstat u = r.result;
  uint64_t n = a->n;
  a->min = u.min; /* the end bins widen to the union's extremes, as single adds do */
  a->max = u.max;
  int rc = 0;
  for (uint32_t i = 0; i < b->nbins; i++)
    for (uint64_t c = 0; c < b->bins[i].n; c++) {
      a->n = ++n;
      if (tf_hist_add(a, round_within(b->bins[i].mean, b->min, b->max), k, m)) rc = -1;
    }
  if (a->nbins) { /* the extremes themselves need not have been added (bin means stand for samples) */
    if (a->bins[0].lo > u.min) a->bins[0].lo = u.min;
    if (a->bins[a->nbins - 1].hi < u.max) a->bins[a->nbins - 1].hi = u.max;
  }
  u.bins = a->bins;
  u.nbins = a->nbins;
  *a = u;
  return rc;
}

/* Merge path b into path a, both summaries or neither. 0 or -1. */
int tf_tpath_merge(tf_tpath *a, const tf_tpath *b, uint32_t k, int across_ranks, tf_mem *m) {
  if (b->compute.n && b->compute.n <= FEW_SAMPLES && b->duration.n <= FEW_SAMPLES && a->compute.n &&
      a->compute.nbins && b->compute.nbins && a->duration.nbins && b->duration.nbins) {
    int rc = few_into(&a->compute, &b->compute, k, across_ranks, m);
    return few_into(&a->duration, &b->duration, k, across_ranks, m) || rc ? -1 : 0;
  }
  dstat_merge rc, rd;
  merge_prepare(&rc, &a->compute, &b->compute, k, across_ranks);
  merge_prepare(&rd, &a->duration, &b->duration, k, across_ranks);
  tf_bin *fc, *fd;
  if (merge_reserve(&rc, &a->compute, &fc, m)) return -1;
  if (merge_reserve(&rd, &a->duration, &fd, m)) {
    tf_bins_release(fc, rc.nbins, m);
    return -1;
  }
  merge_commit(&rc, &a->compute, fc, m);
  merge_commit(&rd, &a->duration, fd, m);
  return 0;
}



void tf_rankmeans_merge(tf_rankmeans *a, const tf_rankmeans *b) {
  if (b->lo < a->lo) {
    a->lo = b->lo;
    a->lo_rank = b->lo_rank;
  }
  if (b->hi > a->hi) {
    a->hi = b->hi;
    a->hi_rank = b->hi_rank;
  }
}

int tf_timing_merge(tf_timing *a, const tf_timing *b, uint32_t k, int across_ranks, tf_mem *m) {
  k = bins_cap(k);
  int rc = 0;
  if (across_ranks && tf_timing_count(b)) {
    if (!tf_timing_count(a)) {
      a->compute = b->compute;
      a->duration = b->duration;
    } else {
      tf_rankmeans_merge(&a->compute, &b->compute);
      tf_rankmeans_merge(&a->duration, &b->duration);
    }
  }
  for (uint32_t i = 0; i < b->npaths; i++) {
    const tf_tpath *q = &b->paths[i];
    if (!q->compute.n && !q->duration.n) continue;
    tf_tpath *p = tf_timing_path_find(a, q->prev_fn, q->prev_site);
    if (p) {
      if (tf_tpath_merge(p, q, k, across_ranks, m)) rc = -1;
      continue;
    }
    tf_tpath fresh = {.prev_fn = q->prev_fn, .prev_site = q->prev_site};
    if (tf_tpath_merge(&fresh, q, k, 1, m)) {
      rc = -1;
    } else if (tf_timing_paths_append(a, &fresh, m)) {
      tf_dstat_free(&fresh.compute, m);
      tf_dstat_free(&fresh.duration, m);
      rc = -1;
    }
  }
  return rc;
}

static int dstat_copy(tf_dstat *dst, const tf_dstat *src, tf_mem *m) {
  *dst = *src;
  dst->bins = NULL;
  dst->nbins = 0;
  if (!src->nbins) return 0;
  if (!(dst->bins = tf_bins_alloc(src->nbins, m))) return -1;
  dst->nbins = src->nbins;
  memcpy(dst->bins, src->bins, src->nbins * sizeof *dst->bins);
  return 0;
}

int tf_tpath_copy(tf_tpath *dst, const tf_tpath *src, tf_mem *m) {
  *dst = (tf_tpath){.prev_fn = src->prev_fn, .prev_site = src->prev_site};
  if (dstat_copy(&dst->compute, &src->compute, m) || dstat_copy(&dst->duration, &src->duration, m)) {
    tf_tpath_free(dst, m);
    return -1;
  }
  return 0;
}

void tf_tpath_free(tf_tpath *p, tf_mem *m) {
  tf_dstat_free(&p->compute, m);
  tf_dstat_free(&p->duration, m);
}

/* ------------------------------------------------------------ rank groups */

static double moved(const tf_dstat *a, const tf_dstat *b) {
  if (!a->n || !b->n) return 0;
  double na = (double)a->n, nb = (double)b->n;
  return fabs(tf_dstat_mean(a) - tf_dstat_mean(b)) * na * nb / (na + nb);
}

double tf_tpath_moved(const tf_tpath *a, const tf_tpath *b) { return moved(&a->compute, &b->compute); }

static int dstat_agree(const tf_dstat *a, const tf_dstat *b, int noise) {
  if (!a->n || !b->n) return 1;
  double ma = tf_dstat_mean(a), mb = tf_dstat_mean(b), d = fabs(ma - mb), top = fmax(ma, mb);
  if (d <= TF_GROUP_TOLERANCE * top || moved(a, b) <= TF_GROUP_FLOOR) return 1;
  if (!noise || d > TF_GROUP_NOISE_MAX * top) return 0;
  /* the standard error of the difference of the means: sqrt(var_a / n_a + var_b / n_b) */
  double se = sqrt(tf_dstat_m2(a) / ((double)a->n * (double)a->n) + tf_dstat_m2(b) / ((double)b->n * (double)b->n));
  return d <= TF_GROUP_Z * se;
}

int tf_tpath_agree(const tf_tpath *a, const tf_tpath *b, int noise) {
  return dstat_agree(&a->compute, &b->compute, noise);
}

int tf_timing_copy(tf_timing *dst, const tf_timing *src, tf_mem *m) {
  *dst = (tf_timing){.compute = src->compute, .duration = src->duration};
  if (!src->npaths) return 0;
  if (!(dst->paths = malloc((size_t)src->npaths * sizeof *dst->paths))) {
    m->failed = 1;
    return -1;
  }
  m->bytes += (size_t)src->npaths * sizeof *dst->paths;
  for (uint32_t i = 0; i < src->npaths; i++) {
    tf_tpath *p = &dst->paths[i];
    const tf_tpath *q = &src->paths[i];
    *p = (tf_tpath){.prev_fn = q->prev_fn, .prev_site = q->prev_site};
    dst->npaths = i + 1;
    if (dstat_copy(&p->compute, &q->compute, m) || dstat_copy(&p->duration, &q->duration, m)) {
      tf_timing_free(dst, m);
      return -1;
    }
  }
  return 0;
}

int tf_timing_total(const tf_timing *t, uint32_t k, tf_tpath *out, tf_mem *m) {
  *out = (tf_tpath){.prev_fn = TF_PREV_NONE, .prev_site = TF_PREV_NONE};
  k = bins_cap(k);
  for (uint32_t i = 0; i < t->npaths; i++)
    if (tf_tpath_merge(out, &t->paths[i], k, 1, m)) {
      tf_dstat_free(&out->compute, m);
      tf_dstat_free(&out->duration, m);
      return -1;
    }
  out->compute.rmean_lo = t->compute.lo;
  out->compute.rmean_hi = t->compute.hi;
  out->compute.rmean_lo_rank = t->compute.lo_rank;
  out->compute.rmean_hi_rank = t->compute.hi_rank;
  out->duration.rmean_lo = t->duration.lo;
  out->duration.rmean_hi = t->duration.hi;
  out->duration.rmean_lo_rank = t->duration.lo_rank;
  out->duration.rmean_hi_rank = t->duration.hi_rank;
  return 0;
}
