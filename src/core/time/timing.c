/* timing.c — the delta-time summaries of folded events (timing.h):
 * statistics with an exact sum and sum of squares, dynamically balanced
 * histograms (Algorithms 1 and 2 of the timing paper, §3.2), one summary
 * pair per preceding call in path mode (§3.3), merges whose cost depends on
 * the number of bins and paths only, and the encoding in trace files
 * (timing_codec.c; doc/FORMAT.md part 4).
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
#include "time/timing_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* A rebalancing step (O(k)) is tried every smooth_interval samples added
 * to a histogram (the paper counts per bin; a count per histogram bounds
 * the cost): n / 16 rounded down to a power of two, at least 4 and at most
 * 256k. A young histogram, whose bins from the first sample may be far off,
 * is reshaped quickly; an old one costs O(1) per sample: at k = 5 a step
 * (about 20 merge costs of 100 instructions) every 1024 samples. The bound
 * was 16k, a step every 64 samples, about 50 instructions a sample
 * (bench/RESULTS.md "callgrind instructions"). */
static inline uint64_t pow2_floor(uint64_t x) { return x ? (uint64_t)1 << (63 - __builtin_clzll(x)) : 0; }
static uint64_t smooth_interval(uint64_t n, uint32_t k) {
  uint64_t interval = pow2_floor(n / 16), most = pow2_floor(256 * (uint64_t)k);
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





/* ------------------------------------------------------------ memory */

/* A bin array holds exactly d->nbins bins (accounted as such); NULL when 0. */
tf_bin *tf_bins_alloc(uint32_t n, tf_mem *m) {
  tf_bin *b = malloc((size_t)n * sizeof *b);
  if (!b) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += (size_t)n * sizeof *b;
  return b;
}

void tf_bins_release(tf_bin *b, uint32_t n, tf_mem *m) {
  if (!b) return;
  free(b);
  m->bytes -= (size_t)n * sizeof *b;
}

void tf_dstat_free(tf_dstat *d, tf_mem *m) {
  tf_bins_release(d->bins, d->nbins, m);
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

void tf_share_counts(const double *w, uint32_t n, uint64_t total, uint64_t *out, double *rem) {
  double wsum = 0;
  uint64_t given = 0;
  for (uint32_t i = 0; i < n; i++) wsum += w[i];
  for (uint32_t i = 0; i < n; i++) {
    double exact = wsum > 0 ? w[i] * (double)total / wsum : 0;
    out[i] = (uint64_t)exact;
    if (out[i] > total - given) out[i] = total - given;
    rem[i] = exact - (double)out[i];
    given += out[i];
  }
  while (given < total && n) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
      if (rem[i] > rem[best]) best = i;
    out[best]++;
    rem[best] = -1;
    given++;
  }
}

/* d cut down to n of its samples (n < d->n): the mean kept, the counts of
 * the bins scaled, and the samples a summary must hold kept: the bins of
 * min and max each keep one; one sample is its mean (min = max = sum). */
static void dstat_share(tf_dstat *d, uint64_t n, tf_mem *m) {
  if (d->n == n) return;
  if (n == 0) {
    tf_dstat_free(d, m);
    return;
  }
  double f = (double)n / (double)d->n;
  uint64_t sum = (uint64_t)((double)d->sum * f + 0.5);
  if (n == 1) {
    sum = sum < d->min ? d->min : sum > d->max ? d->max : sum;
    d->min = d->max = sum;
  }
  if (sum < d->min * n) sum = d->min * n;
  if (sum > d->max * n) sum = d->max * n;
  double m2 = n == 1 ? 0 : tf_dstat_m2(d) * f;
  d->sum = sum;
  d->n = n;
  tf_dstat_set_m2(d, m2);
  if (d->nbins) {
    double w[d->nbins], rem[d->nbins];
    uint64_t out[d->nbins];
    uint32_t lo = d->nbins, hi = 0; /* the bins of min and max */
    for (uint32_t i = 0; i < d->nbins; i++) {
      w[i] = (double)d->bins[i].n;
      if (d->bins[i].n && lo == d->nbins) lo = i;
      if (d->bins[i].n) hi = i;
    }
    if (n == 1) { /* the one sample's bin */
      for (uint32_t i = 0; i < d->nbins; i++) out[i] = 0;
      uint32_t at = 0;
      while (at + 1 < d->nbins && sum >= d->bins[at].hi) at++;
      out[at] = 1;
      d->bins[at].mean = (double)sum;
    } else {
      tf_share_counts(w, d->nbins, n, out, rem);
      for (uint32_t e = 0; e < 2 && lo < d->nbins; e++) {
        uint32_t need = e ? hi : lo, most = 0;
        if (out[need]) continue;
        for (uint32_t i = 1; i < d->nbins; i++)
          if (out[i] > out[most]) most = i;
        if (out[most] > 1) out[most]--, out[need] = 1;
      }
    }
    for (uint32_t i = 0; i < d->nbins; i++) {
      d->bins[i].n = out[i];
      d->bins[i].m2 = out[i] > 1 ? d->bins[i].m2 * f : 0;
    }
  }
}

void tf_timing_share(tf_timing *t, const double *w, uint64_t occ, tf_mem *m) {
  if (t->npaths == 0 || tf_timing_count(t) == occ) return;
  uint64_t out[t->npaths];
  double rem[t->npaths];
  tf_share_counts(w, t->npaths, occ, out, rem);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < t->npaths; i++) {
    tf_tpath *p = &t->paths[i];
    dstat_share(&p->compute, out[i], m);
    dstat_share(&p->duration, out[i], m);
    if (out[i]) t->paths[kept++] = *p;
  }
  m->bytes -= (size_t)(t->npaths - kept) * sizeof *t->paths;
  t->npaths = kept; /* the array keeps its length; freed as one block */
}

/* Append `p` to t's paths (the array grows by one). 0 or -1 (t unchanged). */
int tf_timing_paths_append(tf_timing *t, const tf_tpath *p, tf_mem *m) {
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

/* The squares are a fixed-point number with SQ_FRAC fractional bits: whole
 * for recorded samples, but a summary read from a file (or cut down to
 * fewer samples) gets them from its M2, and sum^2 / n is rarely whole. A
 * sample's square fits when v < 2^(64 - SQ_FRAC / 2) ns (36 years); the
 * squares saturate (the deviation is then unknown, reported as 0) only
 * if samples that long add up to 2^(128 - SQ_FRAC) ns^2. */
#define SQ_FRAC 8
#define U128_MAX (~(u128)0)
static inline u128 dstat_sq(const tf_dstat *d) { return (u128)d->sq_hi << 64 | d->sq_lo; }
static inline void dstat_put_sq(tf_dstat *d, u128 sq) {
  d->sq_lo = (uint64_t)sq;
  d->sq_hi = (uint64_t)(sq >> 64);
}
static inline u128 sq_add(u128 a, u128 b) { return a <= U128_MAX - b ? a + b : U128_MAX; }
static inline u128 sq_of(uint64_t v) { return v >> (64 - SQ_FRAC / 2) ? U128_MAX : ((u128)v * v) << SQ_FRAC; }

/* sum^2 / n = q + r / n, or -1 when q does not fit the squares' whole part. */
static int mean_square(const tf_dstat *d, u128 *q, uint64_t *r) {
  u128 s2 = (u128)d->sum * d->sum;
  *q = s2 / d->n;
  *r = (uint64_t)(s2 % d->n);
  return *q >> (128 - SQ_FRAC) ? -1 : 0;
}

double tf_dstat_m2(const tf_dstat *d) {
  u128 sq = dstat_sq(d), q;
  uint64_t r;
  if (!d->n || d->sum == UINT64_MAX || sq == U128_MAX || mean_square(d, &q, &r)) return 0;
  q <<= SQ_FRAC;
  if (sq < q) return 0; /* a deviation of 0, set with rounding */
  double m2 = (double)(sq - q) / (1 << SQ_FRAC) - (double)r / (double)d->n;
  return m2 > 0 ? m2 : 0;
}

void tf_dstat_set_m2(tf_dstat *d, double m2) {
  u128 q;
  uint64_t r;
  if (!d->n || mean_square(d, &q, &r)) {
    dstat_put_sq(d, d->n ? U128_MAX : 0);
    return;
  }
  double extra = ((m2 > 0 ? m2 : 0) + (double)r / (double)d->n) * (1 << SQ_FRAC) + 0.5;
  dstat_put_sq(d, sq_add(q << SQ_FRAC, extra >= 0x1p128 ? U128_MAX : (u128)extra));
}

double tf_dstat_stddev(const tf_dstat *d) {
  double m2 = tf_dstat_m2(d);
  return m2 > 0 ? sqrt(m2 / (double)d->n) : 0.0;
}

/* One sample into the exact statistics: count, extremes, sum and squares
 * (each saturating, the sum at 2^64 - 1, the squares at 2^128 - 1). */
__attribute__((always_inline)) static inline void stats_add(tf_dstat *d, uint64_t v) {
  if (d->n == 0) {
    d->n = 1;
    d->min = d->max = d->sum = v;
    dstat_put_sq(d, sq_of(v));
    return;
  }
  d->n++;
  d->sum = d->sum <= UINT64_MAX - v ? d->sum + v : UINT64_MAX;
  if (v < d->min) d->min = v;
  if (v > d->max) d->max = v;
  dstat_put_sq(d, sq_add(dstat_sq(d), sq_of(v)));
}

/* The squares of the union of two summaries (saturating). */
void tf_dstat_union_sq(tf_dstat *out, const tf_dstat *a, const tf_dstat *b) {
  dstat_put_sq(out, sq_add(dstat_sq(a), dstat_sq(b)));
}

/* ------------------------------------------------------------ bins */

/* Welford within one bin (in doubles: bin means are estimates). The new
 * mean lies between the old one and x, both inside the bin: it is kept from
 * rounding past x, so it stays inside the bin and delta * (x - mean) >= 0. */
static inline void bin_add(tf_bin *b, uint64_t v) {
  b->n++;
  double x = (double)v, delta = x - b->mean, mean = b->mean + delta / (double)b->n;
  b->mean = delta >= 0 ? (mean > x ? x : mean) : (mean < x ? x : mean);
  b->m2 += delta * (x - b->mean);
}

/* a takes b's samples and its range grows to cover b's (Chan et al.). */
void tf_bin_absorb(tf_bin *a, const tf_bin *b) {
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
void tf_bins_merge_pair(tf_bin *b, uint32_t n, uint32_t pair) {
  tf_bin_absorb(&b[pair], &b[pair + 1]);
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
void tf_bin_spread(const tf_bin *b, int last, uint64_t dmin, uint64_t dmax, double *centre, double *half) {
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
double tf_bins_merge_cost(const tf_bin *a, const tf_bin *b, int b_last, uint64_t dmin, uint64_t dmax) {
  double total = (double)a->n + (double)b->n;
  if (total == 0) return 0;
  tf_bin merged = *a;
  tf_bin_absorb(&merged, b);
  double ca, ha, cb, hb, cm, hm;
  tf_bin_spread(a, 0, dmin, dmax, &ca, &ha);
  tf_bin_spread(b, b_last, dmin, dmax, &cb, &hb);
  tf_bin_spread(&merged, b_last, dmin, dmax, &cm, &hm);
  double w = (double)a->n / total;    /* quantile where a's part ends */
  double qm_w = cm - hm + 2 * hm * w; /* merged quantile function at w */
  double left = abs_linear_integral(ca - ha - (cm - hm), ca + ha - qm_w);
  double right = abs_linear_integral(cb - hb - qm_w, cb + hb - (cm + hm));
  return total * (w * left + (1 - w) * right);
}

/* Index of the bin holding v (v inside the bins' range). A few bins (the
 * default is 5) are scanned, which costs fewer instructions and branches
 * than halving; more are halved. */
static uint32_t find_bin(const tf_bin *b, uint32_t nb, uint64_t v) {
  if (nb <= 8) {
    uint32_t i = 0;
    while (i + 1 < nb && b[i + 1].lo <= v) i++;
    return i;
  }
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
 * mean (bin_split) gains most: the tf_bins_merge_cost of its two halves, i.e. the
 * accuracy that merging them back would lose (the first of equals; only
 * bins at least 2 wide with 2 samples). The paper splits the most populated
 * bin; a bin holding a distant mode or a tail gains far more from a split
 * than a bin of the bulk, however many samples the latter holds. With fewer
 * than k bins the histogram just grows. Otherwise the adjacent pair without
 * B that costs least to merge (tf_bins_merge_cost; the first of equals) is merged
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
    double g = tf_bins_merge_cost(&l, &h, i + 1 == nb, d->min, d->max);
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
      double c = tf_bins_merge_cost(&b[i], &b[i + 1], i + 2 == nb, d->min, d->max);
      if (pair == UINT32_MAX || c < best) pair = i, best = c;
    }
    if (pair == UINT32_MAX || !(best < gain)) return 0;
    tf_bins_merge_pair(b, nb, pair);
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
 * tf_bins_merge_cost is below that of merging v into the end bin. Returns 1 if v
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
        high ? tf_bins_merge_cost(end, &single, 1, d->min, d->max) : tf_bins_merge_cost(&single, end, nb == 1, d->min, d->max);
    for (uint32_t i = 0; i + 1 < nb; i++) {
      double c = tf_bins_merge_cost(&b[i], &b[i + 1], i + 2 == nb, d->min, d->max);
      if (c < best) pair = i, best = c;
    }
    if (pair == UINT32_MAX) return 0;
    tf_bins_merge_pair(b, nb, pair);
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

/* The end of Algorithm 2 for a sample v inside the bins' range: its bin
 * updated, then maybe one rebalancing step (tf_hist_add below). */
__attribute__((always_inline)) static inline int hist_add_inside(tf_dstat *d, uint64_t v, uint32_t k, tf_mem *m) {
  bin_add(&d->bins[find_bin(d->bins, d->nbins, v)], v);
  /* the interval is a power of two, at least 4: most samples are ruled out by n's last two bits */
  return (d->n & 3) == 0 && (d->n & (smooth_interval(d->n, k) - 1)) == 0 && hist_rebalance(d, k, m) ? -1 : 0;
}

/* Algorithm 2: a sample into an existing histogram (d's statistics already
 * count it): a far new extreme may take a bin of its own (hist_outlier),
 * else the end bin widens to it; the sample updates its bin's count, mean
 * and M2; then maybe one rebalancing step. 0 or -1 (out of memory; the
 * sample is counted, the histogram valid). */
int tf_hist_add(tf_dstat *d, uint64_t v, uint32_t k, tf_mem *m) {
  int rc = 0;
  if (v > d->bins[d->nbins - 1].hi) {
    if (v - d->bins[d->nbins - 1].hi >= 2 && (rc = hist_outlier(d, v, 1, k, m)) == 1) return 0;
    d->bins[d->nbins - 1].hi = v;
  } else if (v < d->bins[0].lo) {
    if (d->bins[0].lo - v >= 2 && (rc = hist_outlier(d, v, 0, k, m)) == 1) return 0;
    d->bins[0].lo = v;
  }
  return hist_add_inside(d, v, k, m) || rc < 0 ? -1 : 0;
}

/* One sample into a summary. `fresh`: a bin array of k bins for a summary
 * without samples (it starts a histogram), else NULL. 0, or -1 if a
 * rebalancing could not grow the histogram (the sample is counted).
 * Inlined into its caller: it runs twice for every recorded call, and the
 * call itself cost about a tenth of it (bench/RESULTS.md, callgrind). */
__attribute__((always_inline)) static inline int dstat_add(tf_dstat *d, uint64_t v, uint32_t k, tf_bin *fresh,
                                                            tf_mem *m) {
  stats_add(d, v);
  if (fresh) {
    tf_bins_release(d->bins, d->nbins, m);
    d->bins = fresh;
    d->nbins = k;
    hist_create(fresh, k, v);
    bin_add(&fresh[find_bin(fresh, k, v)], v);
    return 0;
  }
  if (!d->nbins) return 0;
  if (v > d->bins[d->nbins - 1].hi || v < d->bins[0].lo) return tf_hist_add(d, v, k, m);
  return hist_add_inside(d, v, k, m); /* the common case, without tf_hist_add's call */
}

/* ------------------------------------------------------------ adding, ranks, counts */

tf_tpath *tf_timing_path_find(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site) {
  for (uint32_t i = 0; i < t->npaths; i++)
    if (t->paths[i].prev_fn == prev_fn && t->paths[i].prev_site == prev_site) return &t->paths[i];
  return NULL;
}

const tf_tpath *tf_timing_find(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site) {
  return tf_timing_path_find(t, prev_fn, prev_site);
}

int tf_timing_add(tf_timing *t, tf_timing_mode mode, uint32_t k, uint32_t prev_fn, uint32_t prev_site, uint64_t compute,
                  uint64_t duration, tf_mem *m) {
  if (mode != TF_TIMING_STATS && mode != TF_TIMING_HISTOGRAM && mode != TF_TIMING_PATH) return 0;
  uint32_t nb = mode_bins(mode, k);
  if (mode != TF_TIMING_PATH || prev_fn == TF_PREV_NONE) prev_fn = prev_site = TF_PREV_NONE;
  tf_tpath *p = t->last < t->npaths ? &t->paths[t->last] : NULL; /* a loop's event comes from the same path again */
  if (!p || p->prev_fn != prev_fn || p->prev_site != prev_site) {
    p = tf_timing_path_find(t, prev_fn, prev_site);
    if (p) t->last = (uint32_t)(p - t->paths);
  }
  /* secure every allocation first: the sample goes into both summaries or neither */
  tf_bin *fc = NULL, *fd = NULL;
  if (nb && (!p || !p->compute.n) && !(fc = tf_bins_alloc(nb, m))) return -1;
  if (nb && (!p || !p->duration.n) && !(fd = tf_bins_alloc(nb, m))) {
    tf_bins_release(fc, nb, m);
    return -1;
  }
  if (!p) {
    tf_tpath fresh = {.prev_fn = prev_fn, .prev_site = prev_site};
    if (tf_timing_paths_append(t, &fresh, m)) {
      tf_bins_release(fc, nb, m);
      tf_bins_release(fd, nb, m);
      return -1;
    }
    p = &t->paths[t->npaths - 1];
    t->last = t->npaths - 1;
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
      tf_bin_spread(&d->bins[i], i + 1 == d->nbins, d->min, d->max, &centre, &half);
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
