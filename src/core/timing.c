/* timing.c — the delta-time summaries of folded events (timing.h):
 * statistics with an exact sum and Welford's M2, dynamically balanced
 * histograms (Algorithms 1 and 2 of the timing paper, §3.2), one summary
 * pair per preceding call in path mode (§3.3), merges whose cost depends on
 * the number of bins and paths only, and the encoding in trace files
 * (doc/FORMAT.md part 4, "Timing").
 *
 * Histogram model. Bins hold integer samples: [lo, hi), the last one also
 * hi. Bins are sorted and contiguous, the first starts at or below the
 * smallest sample and the last ends at or above the largest, and their
 * counts sum to the summary's count exactly (counts of bins that were split
 * or cut are estimates, but always integers). Where a bin's samples have to
 * be guessed (a split, a merge of two histograms, the error metric), they
 * are taken as spread uniformly over the widest interval centred on the
 * bin's mean that stays inside the bin and inside [min, max] of the
 * summary ("the bin's spread").
 */
#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* A rebalancing step (O(k)) is tried every smooth_interval samples added
 * to a histogram (the paper counts per bin; a count per histogram bounds
 * the cost): n / 16 rounded down to a power of two, at least 4 and at most
 * 16k. A young histogram, whose bins from the first sample may be far off,
 * is reshaped quickly; an old one costs O(1) per sample. */
static inline uint64_t pow2_floor(uint64_t x) { return x ? (uint64_t)1 << (63 - __builtin_clzll(x)) : 0; }
static uint64_t smooth_interval(uint64_t n, uint32_t k) {
  uint64_t interval = pow2_floor(n / 16), most = pow2_floor(16 * (uint64_t)k);
  if (interval > most) interval = most;
  return interval < 4 ? 4 : interval;
}

/* Splitting a bin, each half's mean is put this many standard deviations
 * from the bin's mean: the halves of a uniform distribution have their
 * means at sqrt(3)/2 sigma from its mean, and sigma/2 as their own
 * standard deviation. (The paper says sigma/2 for the distance, which
 * does not fit the uniform assumption it states, and puts the halves too
 * close: in our measurements splits then made reconstructions worse.) */
#define HALF_MEAN_OFFSET 0.86602540378443865

/* A merge of two histograms first cuts both at cut points of either (at
 * most TF_BINS_MAX + 1 each): at most 2 * TF_BINS_MAX + 1 pieces. */
#define PIECES_MAX (2 * TF_BINS_MAX + 1)

static double clampd(double x, double lo, double hi) {
  if (!(x >= lo)) return lo; /* also NaN */
  return x > hi ? hi : x;
}
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* x rounded to the nearest integer, limited to [lo, hi] (NaN: lo). */
static uint64_t round_within(double x, uint64_t lo, uint64_t hi) {
  if (!(x > (double)lo)) return lo;
  if (x >= (double)hi) return hi;
  uint64_t r = (uint64_t)(x + 0.5);
  return r < lo ? lo : r > hi ? hi : r;
}

static uint32_t bins_cap(uint32_t k) { return k < TF_BINS_MAX ? k : TF_BINS_MAX; }

/* Bins per histogram for a mode: 0 when the mode keeps none. */
static uint32_t mode_bins(tf_timing_mode mode, uint32_t k) {
  return mode == TF_TIMING_HISTOGRAM || mode == TF_TIMING_PATH ? bins_cap(k) : 0;
}

/* ------------------------------------------------------------ memory */

/* A bin array holds exactly d->nbins bins (accounted as such); NULL when 0. */
static tf_bin *bins_alloc(uint32_t n, tf_mem *m) {
  tf_bin *b = malloc((size_t)n * sizeof *b);
  if (!b) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += (size_t)n * sizeof *b;
  return b;
}

static void bins_release(tf_bin *b, uint32_t n, tf_mem *m) {
  if (!b) return;
  free(b);
  m->bytes -= (size_t)n * sizeof *b;
}

void tf_dstat_free(tf_dstat *d, tf_mem *m) {
  bins_release(d->bins, d->nbins, m);
  *d = (tf_dstat){0};
}

void tf_timing_free(tf_timing *t, tf_mem *m) {
  for (uint32_t i = 0; i < t->npaths; i++) {
    tf_dstat_free(&t->paths[i].compute, m);
    tf_dstat_free(&t->paths[i].duration, m);
  }
  if (t->paths) {
    free(t->paths);
    m->bytes -= (size_t)t->npaths * sizeof *t->paths;
  }
  *t = (tf_timing){0};
}

/* Append `p` to t's paths (the array grows by one). 0 or -1 (t unchanged). */
static int paths_append(tf_timing *t, const tf_tpath *p, tf_mem *m) {
  if (t->npaths == UINT32_MAX) {
    m->failed = 1;
    return -1;
  }
  tf_tpath *grown = realloc(t->paths, ((size_t)t->npaths + 1) * sizeof *grown);
  if (!grown) {
    m->failed = 1;
    return -1;
  }
  m->bytes += sizeof *grown;
  t->paths = grown;
  t->paths[t->npaths++] = *p;
  return 0;
}

/* ------------------------------------------------------------ statistics */

/* sum / n; a saturated sum makes it a lower bound, kept inside [min, max]. */
double tf_dstat_mean(const tf_dstat *d) {
  return d->n ? clampd((double)d->sum / (double)d->n, (double)d->min, (double)d->max) : 0.0;
}

double tf_dstat_stddev(const tf_dstat *d) { return d->n && d->m2 > 0 ? sqrt(d->m2 / (double)d->n) : 0.0; }

/* v * n - s, computed exactly in 128 bits, then rounded to a double: n times
 * the deviation of v from the mean s / n. */
static double scaled_deviation(uint64_t v, uint64_t n, uint64_t s) {
  if (!((v | n) >> 32)) { /* the usual case, in 64 bits */
    uint64_t a = v * n;
    return a >= s ? (double)(a - s) : -(double)(s - a);
  }
  u128 a = (u128)v * n, b = s;
  return a >= b ? (double)(a - b) : -(double)(b - a);
}

/* Welford's update with the running mean taken from the exact sum:
 * M2 += (v - mean_old)(v - mean_new), both factors from exact 128-bit
 * numerators, so every term is correct to a rounding error whatever the
 * offset of the samples. Once the sum saturates (2^64 - 1) the mean is no
 * longer known and M2 stays as it was. */
static void stats_add(tf_dstat *d, uint64_t v) {
  if (d->n == 0) {
    d->n = 1;
    d->min = d->max = d->sum = v;
    d->m2 = 0;
    return;
  }
  uint64_t n0 = d->n, s0 = d->sum;
  int exact = s0 != UINT64_MAX && s0 <= UINT64_MAX - v;
  d->n = n0 + 1;
  d->sum = exact ? s0 + v : UINT64_MAX;
  if (v < d->min) d->min = v;
  if (v > d->max) d->max = v;
  if (exact) {
    double before = scaled_deviation(v, n0, s0), after = scaled_deviation(v, d->n, d->sum);
    double nn = (double)n0 * (double)d->n;
    d->m2 += nn < 9e15 ? before * after / nn : before / (double)n0 * (after / (double)d->n); /* one division */
  }
}

/* M2 of the union of two non-empty summaries (Chan et al.):
 * M2a + M2b + delta^2 na nb / n, with delta = sb/nb - sa/na = D / (na nb),
 * D = sb na - sa nb exact in 128 bits. A saturated sum leaves the means
 * unknown: then M2a + M2b (a lower bound). */
static double union_m2(const tf_dstat *a, const tf_dstat *b) {
  double n = (double)a->n + (double)b->n, delta_term = 0;
  if (a->sum != UINT64_MAX && b->sum != UINT64_MAX) {
    u128 p = (u128)b->sum * a->n, q = (u128)a->sum * b->n;
    double diff = p >= q ? (double)(p - q) : (double)(q - p);
    delta_term = diff / (double)a->n * (diff / (double)b->n) / n;
  }
  return fmax(a->m2, 0) + fmax(b->m2, 0) + delta_term;
}

/* ------------------------------------------------------------ bins */

static void bin_empty(tf_bin *b, uint64_t lo, uint64_t hi) { *b = (tf_bin){.lo = lo, .hi = hi, .mean = (double)lo}; }

static void bin_clamp_mean(tf_bin *b) {
  if (!b->n) {
    b->mean = (double)b->lo;
    b->m2 = 0;
  } else {
    b->mean = clampd(b->mean, (double)b->lo, (double)b->hi);
    if (!(b->m2 > 0)) b->m2 = 0;
  }
}

/* Welford within one bin (in doubles: bin means are estimates). */
static void bin_add(tf_bin *b, uint64_t v) {
  b->n++;
  double x = (double)v, delta = x - b->mean;
  b->mean += delta / (double)b->n;
  b->m2 += delta * (x - b->mean);
  bin_clamp_mean(b);
}

/* a takes b's samples and its range grows to cover b's (Chan et al.). */
static void bin_absorb(tf_bin *a, const tf_bin *b) {
  if (b->n) {
    if (!a->n) {
      a->mean = b->mean;
      a->m2 = b->m2;
    } else {
      double n = (double)a->n + (double)b->n, delta = b->mean - a->mean;
      a->mean += delta * ((double)b->n / n);
      a->m2 += b->m2 + delta * delta * ((double)a->n * (double)b->n / n);
    }
  }
  a->n += b->n;
  a->lo = min_u64(a->lo, b->lo);
  a->hi = max_u64(a->hi, b->hi);
  bin_clamp_mean(a);
}

/* Room for one more bin at the end of d's array (nbins unchanged). 0, or
 * -1 out of memory (m->failed set; d unchanged). */
static int bins_grow(tf_dstat *d, tf_mem *m) {
  tf_bin *grown = realloc(d->bins, ((size_t)d->nbins + 1) * sizeof *grown);
  if (!grown) {
    m->failed = 1;
    return -1;
  }
  m->bytes += sizeof *grown;
  d->bins = grown;
  return 0;
}

/* Merge bins pair and pair + 1 of the n in b into one; the later ones move down. */
static void bins_merge_pair(tf_bin *b, uint32_t n, uint32_t pair) {
  bin_absorb(&b[pair], &b[pair + 1]);
  memmove(&b[pair + 1], &b[pair + 2], (n - pair - 2) * sizeof *b);
}

/* Where a bin's samples can be: the bin (its last value hi only for the
 * last bin) cut to the summary's [min, max]; the whole bin if that is empty. */
static void bin_extent(const tf_bin *b, int last, uint64_t dmin, uint64_t dmax, uint64_t *lo, uint64_t *hi) {
  uint64_t top = last ? b->hi : b->hi - 1;
  *lo = max_u64(b->lo, dmin);
  *hi = min_u64(top, dmax);
  if (*lo > *hi) *lo = b->lo, *hi = top;
}

/* The bin's spread: [centre - half, centre + half]. */
static void bin_spread(const tf_bin *b, int last, uint64_t dmin, uint64_t dmax, double *centre, double *half) {
  uint64_t lo, hi;
  bin_extent(b, last, dmin, dmax, &lo, &hi);
  double m = clampd(b->mean, (double)lo, (double)hi);
  *centre = m;
  *half = fmax(0, fmin(m - (double)lo, (double)hi - m));
}

/* The integral over [0, 1] of |d0 + (d1 - d0) t|. */
static double abs_linear_integral(double d0, double d1) {
  if ((d0 >= 0) == (d1 >= 0)) return fabs(d0 + d1) / 2;
  return (d0 * d0 + d1 * d1) / (2 * (fabs(d0) + fabs(d1)));
}

/* What merging adjacent bins a and b (b the last bin if b_last) costs in
 * accuracy: (na + nb) times the 1-Wasserstein distance between the two
 * bins' spreads (weighted by their counts) and the merged bin's spread,
 * from their quantile functions (linear on each bin). Pairs are merged
 * cheapest first, so that bins far apart (a long tail, a second mode) stay
 * apart while close bins of the bulk are joined. */
static double merge_cost(const tf_bin *a, const tf_bin *b, int b_last, uint64_t dmin, uint64_t dmax) {
  double total = (double)a->n + (double)b->n;
  if (total == 0) return 0;
  tf_bin merged = *a;
  bin_absorb(&merged, b);
  double ca, ha, cb, hb, cm, hm;
  bin_spread(a, 0, dmin, dmax, &ca, &ha);
  bin_spread(b, b_last, dmin, dmax, &cb, &hb);
  bin_spread(&merged, b_last, dmin, dmax, &cm, &hm);
  double w = (double)a->n / total;    /* quantile where a's part ends */
  double qm_w = cm - hm + 2 * hm * w; /* merged quantile function at w */
  double left = abs_linear_integral(ca - ha - (cm - hm), ca + ha - qm_w);
  double right = abs_linear_integral(cb - hb - qm_w, cb + hb - (cm + hm));
  return total * (w * left + (1 - w) * right);
}

/* Index of the bin holding v (v inside the bins' range). */
static uint32_t find_bin(const tf_bin *b, uint32_t nb, uint64_t v) {
  uint32_t lo = 0, hi = nb - 1; /* the answer is in [lo, hi] */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (b[mid].lo <= v)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Algorithm 1: k equal bins over [0, 2v] (at least [0, k], so that every
 * bin is at least 1 wide; 2v saturates at 2^64 - 1). */
static void hist_create(tf_bin *b, uint32_t k, uint64_t v) {
  uint64_t range = v > UINT64_MAX / 2 ? UINT64_MAX : 2 * v;
  if (range < k) range = k;
  for (uint32_t i = 0; i < k; i++)
    bin_empty(&b[i], (uint64_t)((u128)range * i / k), (uint64_t)((u128)range * (i + 1) / k));
}

/* Split bin `src` (width >= 2, the last bin if `last`) along its mean into
 * low = [lo, s) and high = [s, hi), s = the mean rounded (inside the bin).
 * If the bin's samples can only be on one side (its extent, or a point mass:
 * M2 = 0), that side takes them all, with the bin's mean and M2. Otherwise
 * each side takes half the count (the odd one goes to the side of the
 * mean), its mean at HALF_MEAN_OFFSET sigma below / above the bin's and its
 * sigma halved (the paper's uniform assumption), means kept inside each
 * side's extent. */
static void bin_split(const tf_bin *src, int last, uint64_t dmin, uint64_t dmax, tf_bin *low, tf_bin *high) {
  tf_bin b = *src;
  uint64_t s = round_within(b.mean, b.lo + 1, b.hi - 1), elo, ehi;
  bin_extent(&b, last, dmin, dmax, &elo, &ehi);
  double m = b.mean, sigma = b.n && b.m2 > 0 ? sqrt(b.m2 / (double)b.n) : 0;
  bin_empty(low, b.lo, s);
  bin_empty(high, s, b.hi);
  int side; /* -1 all low, 1 all high, 0 both */
  if (ehi < s)
    side = -1;
  else if (elo >= s)
    side = 1;
  else if (!(b.m2 > 0))
    side = m < (double)s ? -1 : 1;
  else
    side = 0;
  if (side < 0) {
    low->n = b.n;
    low->mean = clampd(m, (double)elo, (double)min_u64(ehi, s - 1));
    low->m2 = b.m2;
  } else if (side > 0) {
    high->n = b.n;
    high->mean = clampd(m, (double)max_u64(elo, s), (double)ehi);
    high->m2 = b.m2;
  } else {
    low->n = b.n / 2 + (b.n % 2 && m < (double)s);
    high->n = b.n - low->n;
    low->mean = clampd(m - HALF_MEAN_OFFSET * sigma, (double)elo, (double)(s - 1));
    high->mean = clampd(m + HALF_MEAN_OFFSET * sigma, (double)s, (double)ehi);
    low->m2 = (double)low->n * sigma * sigma / 4;
    high->m2 = (double)high->n * sigma * sigma / 4;
  }
  bin_clamp_mean(low);
  bin_clamp_mean(high);
}

/* One rebalancing step (Algorithm 2). B = the bin whose split along its
 * mean (bin_split) gains most: the merge_cost of its two halves, i.e. the
 * accuracy that merging them back would lose (the first of equals; only
 * bins at least 2 wide with 2 samples). The paper splits the most populated
 * bin; a bin holding a distant mode or a tail gains far more from a split
 * than a bin of the bulk, however many samples the latter holds. With fewer
 * than k bins the histogram just grows. Otherwise the adjacent pair without
 * B that costs least to merge (merge_cost; the first of equals) is merged
 * to make room, only if that costs less than the split gains. 0, or -1 if
 * growing failed (the histogram is unchanged and valid). */
static int hist_rebalance(tf_dstat *d, uint32_t k, tf_mem *m) {
  tf_bin *b = d->bins, low = {0}, high = {0};
  uint32_t nb = d->nbins, big = UINT32_MAX;
  double gain = 0;
  if (nb >= k && nb < 3) return 0; /* no room, and no pair apart from B to make some */
  for (uint32_t i = 0; i < nb; i++) {
    if (b[i].hi - b[i].lo < 2 || b[i].n < 2) continue;
    tf_bin l, h;
    bin_split(&b[i], i + 1 == nb, d->min, d->max, &l, &h);
    double g = merge_cost(&l, &h, i + 1 == nb, d->min, d->max);
    if (g > gain) big = i, gain = g, low = l, high = h;
  }
  if (big == UINT32_MAX) return 0;
  if (nb < k) {
    if (bins_grow(d, m)) return -1;
    b = d->bins;
  } else {
    uint32_t pair = UINT32_MAX;
    double best = 0;
    for (uint32_t i = 0; i + 1 < nb; i++) {
      if (i == big || i + 1 == big) continue;
      double c = merge_cost(&b[i], &b[i + 1], i + 2 == nb, d->min, d->max);
      if (pair == UINT32_MAX || c < best) pair = i, best = c;
    }
    if (pair == UINT32_MAX || !(best < gain)) return 0;
    bins_merge_pair(b, nb, pair);
    if (big > pair) big--;
    nb--; /* bins in use until the split below */
  }
  memmove(&b[big + 2], &b[big + 1], (nb - big - 1) * sizeof *b);
  b[big] = low;
  b[big + 1] = high;
  d->nbins = nb + 1;
  return 0;
}

/* A new extreme v beyond the bins' range by at least 2 (high: above the
 * last bin's hi, else below the first bin's lo). The paper widens the end
 * bin; that mixes a far outlier with the bulk in one bin, whose spread then
 * describes neither. So v gets a bin of its own, [hi + 1, v] (or [v, lo)),
 * when that is cheaper than widening: with fewer than k bins it always is;
 * otherwise the cheapest adjacent pair is merged to make room if its
 * merge_cost is below that of merging v into the end bin. Returns 1 if v
 * took a new bin, 0 if the caller widens the end bin, -1 if growing failed
 * (the caller widens). */
static int hist_outlier(tf_dstat *d, uint64_t v, int high, uint32_t k, tf_mem *m) {
  tf_bin *b = d->bins;
  uint32_t nb = d->nbins;
  tf_bin *end = high ? &b[nb - 1] : &b[0];
  tf_bin single = {.lo = v, .hi = high ? v : v + 1, .n = 1, .mean = (double)v}; /* holds exactly v */
  if (nb < k) {
    if (bins_grow(d, m)) return -1;
    b = d->bins;
  } else {
    uint32_t pair = UINT32_MAX;
    double best =
        high ? merge_cost(end, &single, 1, d->min, d->max) : merge_cost(&single, end, nb == 1, d->min, d->max);
    for (uint32_t i = 0; i + 1 < nb; i++) {
      double c = merge_cost(&b[i], &b[i + 1], i + 2 == nb, d->min, d->max);
      if (c < best) pair = i, best = c;
    }
    if (pair == UINT32_MAX) return 0;
    bins_merge_pair(b, nb, pair);
    nb--;
  }
  if (high) {
    single.lo = b[nb - 1].hi + 1; /* the old last bin keeps its value hi */
    b[nb - 1].hi = single.lo;
    b[nb] = single;
  } else {
    single.hi = b[0].lo;
    memmove(&b[1], &b[0], nb * sizeof *b);
    b[0] = single;
  }
  d->nbins = nb + 1;
  return 1;
}

/* Algorithm 2: a sample into an existing histogram (d's statistics already
 * count it): a far new extreme may take a bin of its own (hist_outlier),
 * else the end bin widens to it; the sample updates its bin's count, mean
 * and M2; then maybe one rebalancing step. 0 or -1 (out of memory; the
 * sample is counted, the histogram valid). */
static int hist_add(tf_dstat *d, uint64_t v, uint32_t k, tf_mem *m) {
  int rc = 0;
  if (v > d->bins[d->nbins - 1].hi) {
    if (v - d->bins[d->nbins - 1].hi >= 2 && (rc = hist_outlier(d, v, 1, k, m)) == 1) return 0;
    d->bins[d->nbins - 1].hi = v;
  } else if (v < d->bins[0].lo) {
    if (d->bins[0].lo - v >= 2 && (rc = hist_outlier(d, v, 0, k, m)) == 1) return 0;
    d->bins[0].lo = v;
  }
  tf_bin *b = d->bins;
  uint32_t nb = d->nbins, i = find_bin(b, nb, v);
  bin_add(&b[i], v);
  if ((d->n & (smooth_interval(d->n, k) - 1)) == 0 && hist_rebalance(d, k, m)) rc = -1; /* a power of two */
  return rc < 0 ? -1 : 0;
}

/* One sample into a summary. `fresh`: a bin array of k bins for a summary
 * without samples (it starts a histogram), else NULL. 0, or -1 if a
 * rebalancing could not grow the histogram (the sample is counted). */
static int dstat_add(tf_dstat *d, uint64_t v, uint32_t k, tf_bin *fresh, tf_mem *m) {
  stats_add(d, v);
  if (fresh) {
    bins_release(d->bins, d->nbins, m);
    d->bins = fresh;
    d->nbins = k;
    hist_create(fresh, k, v);
    bin_add(&fresh[find_bin(fresh, k, v)], v);
    return 0;
  }
  return d->nbins ? hist_add(d, v, k, m) : 0;
}

/* ------------------------------------------------------------ merging histograms */

/* Merge adjacent bins, the cheapest pair first (merge_cost; the first of
 * equals), until at most k remain (of a summary with [dmin, dmax]). The
 * costs of the pairs are kept: a merge changes only its two neighbours'.
 * O(n * (n - k)) comparisons, O(n) costs. */
static uint32_t bins_reduce(tf_bin *b, uint32_t n, uint32_t k, uint64_t dmin, uint64_t dmax) {
  if (n <= k || n < 2) return n;
  double cost[PIECES_MAX]; /* cost[i]: of merging b[i] and b[i + 1] */
  for (uint32_t i = 0; i + 1 < n; i++) cost[i] = merge_cost(&b[i], &b[i + 1], i + 2 == n, dmin, dmax);
  while (n > k && n > 1) {
    uint32_t pair = 0;
    for (uint32_t i = 1; i + 1 < n; i++)
      if (cost[i] < cost[pair]) pair = i;
    bins_merge_pair(b, n, pair);
    if (pair + 2 < n) memmove(&cost[pair + 1], &cost[pair + 2], (n - pair - 3) * sizeof *cost);
    n--;
    if (pair > 0) cost[pair - 1] = merge_cost(&b[pair - 1], &b[pair], pair + 1 == n, dmin, dmax);
    if (pair + 1 < n) cost[pair] = merge_cost(&b[pair], &b[pair + 1], pair + 2 == n, dmin, dmax);
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
    bin_absorb(&p[0], src);
    return;
  }
  double centre, half;
  bin_spread(src, last, dmin, dmax, &centre, &half);
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
    bin_absorb(&p[t], &part);
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
    s.m2 = union_m2(a, b);
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
  return (*fresh = bins_alloc(r->nbins, m)) ? 0 : -1;
}

static void merge_commit(const dstat_merge *r, tf_dstat *d, tf_bin *fresh, tf_mem *m) {
  tf_bin *bins = d->bins;
  if (fresh || !r->nbins) {
    bins_release(d->bins, d->nbins, m);
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
      if (hist_add(a, round_within(b->bins[i].mean, b->min, b->max), k, m)) rc = -1;
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
static int path_merge(tf_tpath *a, const tf_tpath *b, uint32_t k, int across_ranks, tf_mem *m) {
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
    bins_release(fc, rc.nbins, m);
    return -1;
  }
  merge_commit(&rc, &a->compute, fc, m);
  merge_commit(&rd, &a->duration, fd, m);
  return 0;
}

static tf_tpath *find_path(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site) {
  for (uint32_t i = 0; i < t->npaths; i++)
    if (t->paths[i].prev_fn == prev_fn && t->paths[i].prev_site == prev_site) return &t->paths[i];
  return NULL;
}

const tf_tpath *tf_timing_find(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site) {
  return find_path(t, prev_fn, prev_site);
}

/* The per-rank mean extremes of two rank sets together (ties keep a's). */
static void rankmeans_merge(tf_rankmeans *a, const tf_rankmeans *b) {
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
      rankmeans_merge(&a->compute, &b->compute);
      rankmeans_merge(&a->duration, &b->duration);
    }
  }
  for (uint32_t i = 0; i < b->npaths; i++) {
    const tf_tpath *q = &b->paths[i];
    if (!q->compute.n && !q->duration.n) continue;
    tf_tpath *p = find_path(a, q->prev_fn, q->prev_site);
    if (p) {
      if (path_merge(p, q, k, across_ranks, m)) rc = -1;
      continue;
    }
    tf_tpath fresh = {.prev_fn = q->prev_fn, .prev_site = q->prev_site};
    if (path_merge(&fresh, q, k, 1, m)) {
      rc = -1;
    } else if (paths_append(a, &fresh, m)) {
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
  if (!(dst->bins = bins_alloc(src->nbins, m))) return -1;
  dst->nbins = src->nbins;
  memcpy(dst->bins, src->bins, src->nbins * sizeof *dst->bins);
  return 0;
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
    if (path_merge(out, &t->paths[i], k, 1, m)) {
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

/* ------------------------------------------------------------ adding, ranks, counts */

int tf_timing_add(tf_timing *t, tf_timing_mode mode, uint32_t k, uint32_t prev_fn, uint32_t prev_site, uint64_t compute,
                  uint64_t duration, tf_mem *m) {
  if (mode != TF_TIMING_STATS && mode != TF_TIMING_HISTOGRAM && mode != TF_TIMING_PATH) return 0;
  uint32_t nb = mode_bins(mode, k);
  if (mode != TF_TIMING_PATH || prev_fn == TF_PREV_NONE) prev_fn = prev_site = TF_PREV_NONE;
  tf_tpath *p = find_path(t, prev_fn, prev_site);
  /* secure every allocation first: the sample goes into both summaries or neither */
  tf_bin *fc = NULL, *fd = NULL;
  if (nb && (!p || !p->compute.n) && !(fc = bins_alloc(nb, m))) return -1;
  if (nb && (!p || !p->duration.n) && !(fd = bins_alloc(nb, m))) {
    bins_release(fc, nb, m);
    return -1;
  }
  if (!p) {
    tf_tpath fresh = {.prev_fn = prev_fn, .prev_site = prev_site};
    if (paths_append(t, &fresh, m)) {
      bins_release(fc, nb, m);
      bins_release(fd, nb, m);
      return -1;
    }
    p = &t->paths[t->npaths - 1];
  }
  int rc = dstat_add(&p->compute, compute, nb, fc, m);
  return dstat_add(&p->duration, duration, nb, fd, m) || rc ? -1 : 0;
}

static void dstat_set_rank(tf_dstat *d, int32_t rank) {
  d->min_rank = d->max_rank = d->rmean_lo_rank = d->rmean_hi_rank = rank;
  d->rmean_lo = d->rmean_hi = tf_dstat_mean(d);
}

void tf_timing_set_rank(tf_timing *t, int32_t rank) {
  double cs = 0, ds = 0, n = 0;
  for (uint32_t i = 0; i < t->npaths; i++) {
    dstat_set_rank(&t->paths[i].compute, rank);
    dstat_set_rank(&t->paths[i].duration, rank);
    cs += tf_dstat_mean(&t->paths[i].compute) * (double)t->paths[i].compute.n; /* the sum may saturate */
    ds += tf_dstat_mean(&t->paths[i].duration) * (double)t->paths[i].duration.n;
    n += (double)t->paths[i].compute.n;
  }
  double cm = n > 0 ? cs / n : 0, dm = n > 0 ? ds / n : 0;
  t->compute = (tf_rankmeans){cm, cm, rank, rank};
  t->duration = (tf_rankmeans){dm, dm, rank, rank};
}

uint64_t tf_timing_count(const tf_timing *t) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < t->npaths; i++) n += t->paths[i].compute.n;
  return n;
}

/* ------------------------------------------------------------ error metric */

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* W1 = integral over u in [0, 1] of |Q_exact(u) - Q_summary(u)| (quantile
 * functions). Q_exact is a step per sample, Q_summary is linear on each
 * piece of the summary's distribution; both are walked together. */
double tf_dstat_w1_error(const tf_dstat *d, const uint64_t *exact, size_t n) {
  if (!n) return 0;
  if (!d->n) return NAN;
  uint64_t *sorted = malloc(n * sizeof *sorted);
  if (!sorted) return NAN;
  memcpy(sorted, exact, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_u64);
  double from[TF_BINS_MAX + 1], to[TF_BINS_MAX + 1], upto[TF_BINS_MAX + 1]; /* pieces; cumulative share */
  uint32_t np = 0;
  if (!d->nbins) {
    from[0] = to[0] = tf_dstat_mean(d);
    upto[np++] = 1;
  } else {
    uint64_t total = 0, cum = 0;
    for (uint32_t i = 0; i < d->nbins; i++) total += d->bins[i].n;
    for (uint32_t i = 0; i < d->nbins && np <= TF_BINS_MAX; i++) {
      if (!d->bins[i].n) continue;
      double centre, half;
      bin_spread(&d->bins[i], i + 1 == d->nbins, d->min, d->max, &centre, &half);
      cum += d->bins[i].n;
      from[np] = centre - half;
      to[np] = centre + half;
      upto[np++] = (double)cum / (double)total;
    }
  }
  if (!np) {
    free(sorted);
    return NAN;
  }
  double w1 = 0, u = 0, mean = 0;
  size_t i = 0;
  uint32_t j = 0;
  while (i < n && j < np) {
    double sample_end = (double)(i + 1) / (double)n, piece_start = j ? upto[j - 1] : 0;
    double next = fmin(sample_end, upto[j]), span = upto[j] - piece_start;
    double g0 = span > 0 ? from[j] + (to[j] - from[j]) * (u - piece_start) / span : from[j];
    double g1 = span > 0 ? from[j] + (to[j] - from[j]) * (next - piece_start) / span : to[j];
    double f = (double)sorted[i];
    w1 += abs_linear_integral(f - g0, f - g1) * (next - u);
    u = next;
    if (next >= sample_end) i++;
    if (next >= upto[j]) j++;
  }
  for (size_t s = 0; s < n; s++) mean += (double)sorted[s];
  mean /= (double)n;
  free(sorted);
  return mean > 0 ? w1 / mean : w1;
}

/* ------------------------------------------------------------ encoding */

/* The end of the run of bins written as one from bin i: a run of empty
 * bins is written as one empty bin (they say nothing but where no samples
 * are; a young histogram is mostly empty bins). */
static uint32_t run_end(const tf_dstat *d, uint32_t i) {
  uint32_t j = i + 1;
  if (!d->bins[i].n)
    while (j < d->nbins && !d->bins[j].n) j++;
  return j;
}

static void put_dstat(tf_buf *b, const tf_dstat *d, int merged) {
  if (!d->n) return; /* the count is the path's */
  tf_buf_put_uvar(b, d->min);
  tf_buf_put_uvar(b, d->max - d->min);
  tf_buf_put_uvar(b, d->sum);
  tf_buf_put_uvar(b, round_within(tf_dstat_stddev(d), 0, (d->max - d->min) / 2 + 1));
  uint32_t written = 0;
  for (uint32_t i = 0; i < d->nbins; i = run_end(d, i)) written++;
  tf_buf_put_uvar(b, written);
  for (uint32_t i = 0, j; i < d->nbins; i = j) {
    j = run_end(d, i);
    const tf_bin *x = &d->bins[i];
    uint64_t width = d->bins[j - 1].hi - x->lo;
    if (i == 0) tf_buf_put_uvar(b, d->min - x->lo);
    tf_buf_put_uvar(b, width);
    tf_buf_put_uvar(b, x->n);
    if (x->n) tf_buf_put_uvar(b, round_within(x->mean - (double)x->lo, 0, width));
  }
  if (merged) {
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->min_rank);
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->max_rank);
    uint64_t lo = round_within(d->rmean_lo, d->min, d->max);
    tf_buf_put_uvar(b, lo);
    tf_buf_put_uvar(b, round_within(d->rmean_hi, lo, d->max));
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->rmean_lo_rank);
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->rmean_hi_rank);
  }
}

void tf_timing_encode(tf_buf *b, const tf_timing *t, int merged) {
  tf_buf_put_uvar(b, t->npaths);
  for (uint32_t i = 0; i < t->npaths; i++) {
    const tf_tpath *p = &t->paths[i];
    if (p->prev_fn == TF_PREV_NONE) {
      tf_buf_put_uvar(b, 0);
    } else {
      tf_buf_put_uvar(b, (uint64_t)p->prev_fn + 1);
      tf_buf_put_uvar(b, p->prev_site);
    }
    tf_buf_put_uvar(b, p->compute.n);
    put_dstat(b, &p->compute, merged);
    put_dstat(b, &p->duration, merged);
  }
  if (merged && t->npaths)
    for (int d = 0; d < 2; d++) {
      const tf_rankmeans *r = d ? &t->duration : &t->compute;
      uint64_t smin = UINT64_MAX, smax = 0; /* rounded into the samples' range, as decoders check */
      for (uint32_t i = 0; i < t->npaths; i++) {
        const tf_dstat *s = d ? &t->paths[i].duration : &t->paths[i].compute;
        if (s->n && s->min < smin) smin = s->min;
        if (s->n && s->max > smax) smax = s->max;
      }
      if (smin > smax) smin = smax = 0;
      uint64_t lo = round_within(r->lo, smin, smax), hi = round_within(r->hi, smin, smax);
      tf_buf_put_uvar(b, lo);
      tf_buf_put_uvar(b, hi >= lo ? hi - lo : 0);
      tf_buf_put_uvar(b, (uint64_t)r->lo_rank);
      tf_buf_put_uvar(b, (uint64_t)r->hi_rank);
    }
}

/* What the decoder checks against. */
typedef struct dec_ctx {
  tf_cursor *c;
  uint32_t max_bins; /* nbins must be 1..max_bins when n > 0 (0: no bins) */
  int merged;
  int32_t nranks;
  tf_mem *m;
  const char *why;
} dec_ctx;

#define TRUNCATED "truncated time statistics"

/* Read a varint into *v; 0, or -1 (reason set) if the input ended. */
static int get(dec_ctx *x, uint64_t *v) {
  *v = tf_cur_uvar(x->c);
  if (x->c->bad) {
    x->why = TRUNCATED;
    return -1;
  }
  return 0;
}

static int reject(dec_ctx *x, const char *why) {
  x->why = why;
  return -1;
}

/* A summary's bins (d->n, min and max known); d->bins / nbins stay freeable. */
static int get_bins(dec_ctx *x, tf_dstat *d) {
  uint64_t nbins, below_min;
  if (get(x, &nbins)) return -1;
  if (!x->max_bins && nbins) return reject(x, "time statistics: bins where the timing mode keeps none");
  if (x->max_bins && (nbins < 1 || nbins > x->max_bins))
    return reject(x, "time statistics: number of bins outside 1..k");
  if (!nbins) return 0;
  if (get(x, &below_min)) return -1;
  if (below_min > d->min) return reject(x, "time statistics: first bin starts below 0");
  if (!(d->bins = bins_alloc((uint32_t)nbins, x->m))) return reject(x, "time statistics: out of memory");
  d->nbins = (uint32_t)nbins;
  uint64_t lo = d->min - below_min, counted = 0;
  for (uint32_t i = 0; i < d->nbins; i++) {
    tf_bin *b = &d->bins[i];
    uint64_t width, count, offset = 0;
    bin_empty(b, lo, lo); /* keeps the array consistent whatever happens below */
    if (get(x, &width) || get(x, &count)) return -1;
    if (width < 1 || width > UINT64_MAX - lo) return reject(x, "time statistics: empty or overflowing bin");
    if (count > d->n - counted) return reject(x, "time statistics: bin counts exceed the sample count");
    if (count && get(x, &offset)) return -1;
    if (offset > width) return reject(x, "time statistics: bin mean outside its bin");
    bin_empty(b, lo, lo + width);
    b->n = count;
    if (count) b->mean = (double)lo + (double)offset;
    bin_clamp_mean(b);
    counted += count;
    lo += width;
  }
  if (counted != d->n) return reject(x, "time statistics: bin counts do not sum to the sample count");
  if (lo < d->max) return reject(x, "time statistics: bins end below the maximum");
  return 0;
}

/* One summary of n samples (n from the path). */
static int get_dstat(dec_ctx *x, tf_dstat *d, uint64_t n) {
  uint64_t min, range, sum, sd;
  if (get(x, &min) || get(x, &range) || get(x, &sum) || get(x, &sd)) return -1;
  if (range > UINT64_MAX - min) return reject(x, "time statistics: maximum above 2^64 - 1");
  d->n = n;
  d->min = min;
  d->max = min + range;
  u128 lowest = (u128)min * n, highest = (u128)d->max * n;
  if (lowest > UINT64_MAX) lowest = UINT64_MAX; /* a saturated sum */
  if (sum < lowest || sum > highest) return reject(x, "time statistics: sum outside [min*n, max*n]");
  d->sum = sum;
  if (sd > range / 2 + 1) return reject(x, "time statistics: standard deviation above what the range allows");
  d->m2 = (double)sd * (double)sd * (double)n;
  if (get_bins(x, d)) return -1;
  if (x->merged) {
    uint64_t ranks[2], rmean[2], rmean_ranks[2];
    if (get(x, &ranks[0]) || get(x, &ranks[1]) || get(x, &rmean[0]) || get(x, &rmean[1]) || get(x, &rmean_ranks[0]) ||
        get(x, &rmean_ranks[1]))
      return -1;
    for (int i = 0; i < 2; i++)
      if (x->nranks <= 0 || ranks[i] >= (uint64_t)x->nranks || rmean_ranks[i] >= (uint64_t)x->nranks)
        return reject(x, "time statistics: rank out of range");
    if (rmean[0] < d->min || rmean[0] > rmean[1] || rmean[1] > d->max)
      return reject(x, "time statistics: per-rank means not ordered inside [min, max]");
    d->min_rank = (int32_t)ranks[0];
    d->max_rank = (int32_t)ranks[1];
    d->rmean_lo = (double)rmean[0];
    d->rmean_hi = (double)rmean[1];
    d->rmean_lo_rank = (int32_t)rmean_ranks[0];
    d->rmean_hi_rank = (int32_t)rmean_ranks[1];
  }
  return 0;
}

static int cmp_key(const void *x, const void *y) { return cmp_u64(x, y); }

/* No two paths with the same previous call. -1 (reason set) otherwise. */
static int check_unique_paths(dec_ctx *x, const tf_timing *t) {
  const char *dup = "time statistics: two paths after the same call";
  if (t->npaths <= 16) {
    for (uint32_t i = 0; i < t->npaths; i++)
      for (uint32_t j = i + 1; j < t->npaths; j++)
        if (t->paths[i].prev_fn == t->paths[j].prev_fn && t->paths[i].prev_site == t->paths[j].prev_site)
          return reject(x, dup);
    return 0;
  }
  size_t bytes = (size_t)t->npaths * sizeof(uint64_t);
  uint64_t *keys = malloc(bytes);
  if (!keys) {
    x->m->failed = 1;
    return reject(x, "time statistics: out of memory");
  }
  x->m->bytes += bytes;
  for (uint32_t i = 0; i < t->npaths; i++) keys[i] = (uint64_t)t->paths[i].prev_fn << 32 | t->paths[i].prev_site;
  qsort(keys, t->npaths, sizeof *keys, cmp_key);
  int rc = 0;
  for (uint32_t i = 1; i < t->npaths && !rc; i++)
    if (keys[i] == keys[i - 1]) rc = reject(x, dup);
  free(keys);
  x->m->bytes -= bytes;
  return rc;
}

/* Smallest encoding of one path: previous call, count, and per summary
 * min, range, sum, stddev, nbins (the merged fields add 6 per summary). */
#define PATH_BYTES_MIN 12
#define PATH_BYTES_MIN_MERGED 24

static int decode_paths(dec_ctx *x, tf_timing *t, tf_timing_mode mode, __int128 occ, uint32_t nfuncs,
                        uint32_t ncallsites) {
  uint64_t npaths;
  if (get(x, &npaths)) return -1;
  if (mode == TF_TIMING_NONE && npaths) return reject(x, "time statistics: paths in timing mode none");
  if ((mode == TF_TIMING_STATS || mode == TF_TIMING_HISTOGRAM) && npaths != 1)
    return reject(x, "time statistics: not exactly one path");
  size_t left = (size_t)(x->c->end - x->c->p);
  if (npaths > left / (x->merged ? PATH_BYTES_MIN_MERGED : PATH_BYTES_MIN) || npaths > UINT32_MAX)
    return npaths > UINT32_MAX ? reject(x, "time statistics: too many paths") : reject(x, TRUNCATED);
  if (!npaths) {
    if (mode != TF_TIMING_NONE && occ > 0)
      return reject(x, "time statistics: path counts do not sum to the occurrences");
    return 0;
  }
  if (!(t->paths = calloc(npaths, sizeof *t->paths))) {
    x->m->failed = 1;
    return reject(x, "time statistics: out of memory");
  }
  x->m->bytes += npaths * sizeof *t->paths;
  t->npaths = (uint32_t)npaths;
  __int128 total = 0;
  for (uint32_t i = 0; i < t->npaths; i++) {
    tf_tpath *p = &t->paths[i];
    uint64_t fn, site = TF_PREV_NONE, n;
    if (get(x, &fn)) return -1;
    if (fn) {
      if (mode != TF_TIMING_PATH) return reject(x, "time statistics: a previous call outside path mode");
      if (fn - 1 >= nfuncs) return reject(x, "time statistics: previous function out of range");
      if (get(x, &site)) return -1;
      if (site >= ncallsites) return reject(x, "time statistics: previous call site out of range");
    }
    p->prev_fn = fn ? (uint32_t)(fn - 1) : TF_PREV_NONE;
    p->prev_site = (uint32_t)site;
    if (get(x, &n)) return -1;
    if (!n) return reject(x, "time statistics: a path without samples");
    if (get_dstat(x, &p->compute, n) || get_dstat(x, &p->duration, n)) return -1;
    total += n;
  }
  if (check_unique_paths(x, t)) return -1;
  if (occ >= 0 && total != occ) return reject(x, "time statistics: path counts do not sum to the occurrences");
  return 0;
}

int tf_timing_decode(tf_cursor *c, tf_timing *t, tf_timing_mode mode, uint32_t k, __int128 occ, int merged,
                     uint32_t nfuncs, uint32_t ncallsites, int32_t nranks, tf_mem *m, const char **why) {
  *t = (tf_timing){0};
  dec_ctx x = {.c = c, .max_bins = mode_bins(mode, k), .merged = merged, .nranks = nranks, .m = m};
  int rc;
  if (mode != TF_TIMING_NONE && mode != TF_TIMING_STATS && mode != TF_TIMING_HISTOGRAM && mode != TF_TIMING_PATH)
    rc = reject(&x, "time statistics: unknown timing mode");
  else
    rc = decode_paths(&x, t, mode, occ, nfuncs, ncallsites);
  if (!rc && merged && t->npaths) { /* the event's per-rank mean extremes */
    uint64_t lo = 0, hi = 0, cmin = UINT64_MAX, cmax = 0;
    for (int d = 0; d < 2 && !rc; d++) {
      uint64_t range, lr, hr;
      cmin = UINT64_MAX, cmax = 0;
      for (uint32_t i = 0; i < t->npaths; i++) {
        const tf_dstat *s = d ? &t->paths[i].duration : &t->paths[i].compute;
        if (s->n && s->min < cmin) cmin = s->min;
        if (s->n && s->max > cmax) cmax = s->max;
      }
      if (get(&x, &lo) || get(&x, &range) || get(&x, &lr) || get(&x, &hr)) rc = -1;
      else if (range > UINT64_MAX - lo || (hi = lo + range) > cmax || lo < cmin)
        rc = reject(&x, "time statistics: per-rank means outside the samples");
      else if (lr >= (uint64_t)nranks || hr >= (uint64_t)nranks)
        rc = reject(&x, "time statistics: rank of a per-rank mean out of range");
      else
        *(d ? &t->duration : &t->compute) = (tf_rankmeans){(double)lo, (double)hi, (int32_t)lr, (int32_t)hr};
    }
  }
  if (rc) {
    tf_timing_free(t, m);
    if (why) *why = x.why;
  }
  return rc;
}
