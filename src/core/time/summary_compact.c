/* summary_compact.c — the compact form of one time summary, in merged
 * traces from version 5 (doc/FORMAT.md 4.10): the sum relative to min x n,
 * a summary of one or two samples without its sum and deviation (min and
 * max are its samples), of three without its deviation (min, max, sum),
 * bin edges and means on a grid of 2^e steps from min, cut to [min, max]
 * (e so that max - min spans at most TF_QUANTA_MAX steps, implied by them;
 * between ranks exact edges), the last bin's count implied, the per-rank
 * mean extremes relative to the minimum and their ranks only where they
 * differ from the sample extremes' ranks. Count, min, max and sum stay exact.
 */
#include "time/timing_impl.h"

#include <math.h>

/* Grid steps over [min, max]: a bin inside it takes a byte for its width and
 * one for its mean. e depends on min and max alone, which the file keeps
 * exactly, so a decoded summary encodes again to the same bytes. */
#define TF_QUANTA_MAX 100

enum { RF_LO_RANK = 1, RF_HI_RANK = 2 }; /* rank-field flags: that rank is written */

/* How the bins are laid: exact (step 1 from min - below, between ranks) or
 * on the file's grid (2^e from min, e from min and max: grid_exponent). */
enum { GRID_EXACT = 0, GRID_FILE = 1 };

/* The end of the run of bins written as one from bin i (runs of empty bins as one). */
static uint32_t run_end(const tf_dstat *d, uint32_t i) {
  uint32_t j = i + 1;
  if (!d->bins[i].n)
    while (j < d->nbins && !d->bins[j].n) j++;
  return j;
}

/* One bin as written: its end (in steps from the first edge), count, mean. */
typedef struct wbin {
  uint64_t edge, n;
  double mean;
} wbin;

/* A run's samples joined to those of the bin being built. */
static void wbin_take(wbin *w, uint64_t n, double mean) {
  if (!n) return;
  w->mean = w->n ? w->mean + (mean - w->mean) * ((double)n / (double)(w->n + n)) : mean;
  w->n += n;
}

/* The bins of d as written from `lo` on a grid of 2^e steps. Exact (not
 * quantise: e = 0, lo = the first bin's lo), runs of empty bins as one and
 * the rest as it is. Quantised (lo = min), the bins are cut to [min, max]: empty runs wholly outside it are left out (they
 * say nothing: readers cut bins to [min, max]), every inner edge is rounded
 * to the nearest step but kept at or below the last step at or below max,
 * and a run whose end falls on or before the previous edge joins the next
 * run. So every non-empty bin as read holds a value of [min, max]: a run of
 * one sample, max, whose start rounded above max once made a bin beyond it,
 * and merging such bins left the bins that readers show apart (cut to
 * [min, max], wl.nbconform). Returns the number of bins (at most nbins). */
static uint32_t written_bins(const tf_dstat *d, uint64_t lo, unsigned e, int quantise, wbin *out) {
  uint64_t q = (uint64_t)1 << e, top = (d->max - lo) >> e, need = (d->max - lo + q - 1) >> e;
  uint32_t first = 0, end = d->nbins, m = 0;
  if (quantise) {
    while (first < end && !d->bins[first].n && d->bins[first].hi <= d->min) first++;
    while (end > first && !d->bins[end - 1].n && d->bins[end - 1].lo > d->max) end--;
  }
  wbin cur = {0};
  uint64_t prev = 0;
  for (uint32_t i = first, j; i < end; i = j) {
    j = run_end(d, i);
    if (j > end) j = end;
    uint64_t hi = d->bins[j - 1].hi;
    wbin_take(&cur, d->bins[i].n, d->bins[i].mean);
    if (j == end) break; /* the last bin ends below */
    uint64_t edge = hi > lo ? (hi - lo + (quantise ? q / 2 : 0)) >> e : 0;
    if (quantise && edge > top) edge = top;
    if (edge <= prev) continue; /* no room on the grid: joins the next run */
    cur.edge = prev = edge;
    out[m++] = cur;
    cur = (wbin){0};
  }
  uint64_t hi = end > first ? d->bins[end - 1].hi : d->max, edge = need;
  if (!quantise && hi > lo && ((hi - lo + q - 1) >> e) > edge) edge = (hi - lo + q - 1) >> e; /* exact: the bins' own end */
  cur.edge = edge > prev ? edge : prev + 1;
  out[m++] = cur;
  return m;
}

/* The grid step exponent of a summary's bins in a file: the smallest e
 * with (max - min) >> e <= TF_QUANTA_MAX. */
static unsigned grid_exponent(uint64_t min, uint64_t max) {
  unsigned e = 0;
  while (((max - min) >> e) > TF_QUANTA_MAX) e++;
  return e;
}

static void put_bins(tf_buf *b, const tf_dstat *d, int quantise) {
  if (!d->nbins) {
    tf_buf_put_uvar(b, 0);
    return;
  }
  if (d->max > UINT64_MAX / 4) quantise = 0; /* near 2^64 the rounded-up end could overflow: exact */
  unsigned e = quantise ? grid_exponent(d->min, d->max) : 0;
  uint64_t q = (uint64_t)1 << e;
  uint64_t below = quantise ? 0 : d->min - d->bins[0].lo, lo = d->min - below; /* quantised: from min */
  wbin w[TF_BINS_MAX];
  uint32_t m = written_bins(d, lo, e, quantise, w);
  tf_buf_put_uvar(b, m);
  tf_buf_put_uvar(b, quantise ? GRID_FILE : GRID_EXACT);
  if (!quantise) tf_buf_put_uvar(b, below);
  uint64_t prev = 0; /* the last edge written, in steps from lo */
  for (uint32_t i = 0; i < m; i++) {
    uint64_t width = w[i].edge - prev;
    tf_buf_put_uvar(b, width);
    if (i + 1 < m) tf_buf_put_uvar(b, w[i].n);
    if (w[i].n) {
      double start = (double)lo + (double)prev * (double)q;
      tf_buf_put_uvar(b, round_within((w[i].mean - start) / (double)q, 0, width));
    }
    prev = w[i].edge;
  }
}

void tf_dstat_encode_compact(tf_buf *b, const tf_dstat *d, int merged, int quantise) {
  if (!d->n) return; /* the count is the path's */
  tf_buf_put_uvar(b, d->min);
  if (d->n >= 2) tf_buf_put_uvar(b, d->max - d->min);
  if (d->n >= 3) { /* one or two samples: min and max are the samples, sum and sd follow from them */
    u128 lowest = (u128)d->min * d->n;
    tf_buf_put_uvar(b, d->sum - (lowest > UINT64_MAX ? UINT64_MAX : (uint64_t)lowest));
    if (d->n >= 4) /* three samples: min, max and sum are all three, the deviation follows (three_m2) */
      tf_buf_put_uvar(b, round_within(tf_dstat_stddev(d), 0, (d->max - d->min) / 2 + 1));
  }
  if (quantise && d->n <= 2 && d->nbins && d->max <= UINT64_MAX / 4)
    tf_buf_put_uvar(b, 0); /* a file: the bins of one or two samples are the samples (implied_bins) */
  else
    put_bins(b, d, quantise);
  if (merged) {
    unsigned f = (d->rmean_lo_rank != d->min_rank ? RF_LO_RANK : 0) | (d->rmean_hi_rank != d->max_rank ? RF_HI_RANK : 0);
    tf_buf_put_uvar(b, f);
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->min_rank);
    tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->max_rank);
    if (f & RF_LO_RANK) tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->rmean_lo_rank);
    if (f & RF_HI_RANK) tf_buf_put_uvar(b, (uint64_t)(uint32_t)d->rmean_hi_rank);
    uint64_t lo = round_within(d->rmean_lo, d->min, d->max);
    tf_buf_put_uvar(b, lo - d->min);
    tf_buf_put_uvar(b, round_within(d->rmean_hi, lo, d->max) - lo);
  }
}

/* ------------------------------------------------------------ decoding */

typedef struct cdec {
  tf_cursor *c;
  const char *why;
} cdec;

static int get(cdec *x, uint64_t *v) {
  *v = tf_cur_uvar(x->c);
  if (x->c->bad) return x->why = "truncated time statistics", -1;
  return 0;
}

static int reject(cdec *x, const char *why) { return x->why = why, -1; }

/* The bins of one or two samples, min and max, as a file implies them:
 * each sample in a bin of its own ([min, max) and [max, max + 1]), both in
 * one ([min, max + 1] when they are equal, [min, max] when k is 1). */
static int implied_bins(cdec *x, tf_dstat *d, uint32_t max_bins, tf_mem *m) {
  uint32_t nb = d->min < d->max && max_bins >= 2 ? 2 : 1;
  if (!(d->bins = tf_bins_alloc(nb, m))) return reject(x, "time statistics: out of memory");
  d->nbins = nb;
  if (nb == 2) {
    bin_empty(&d->bins[0], d->min, d->max);
    bin_empty(&d->bins[1], d->max, d->max + 1);
    d->bins[0].n = d->bins[1].n = 1;
    d->bins[0].mean = (double)d->min;
    d->bins[1].mean = (double)d->max;
  } else {
    bin_empty(&d->bins[0], d->min, d->min < d->max ? d->max : d->min + 1);
    d->bins[0].n = d->n;
    d->bins[0].mean = ((double)d->min + (double)d->max) / 2;
  }
  return 0;
}

static int get_bins(cdec *x, tf_dstat *d, uint32_t max_bins, tf_mem *m) {
  uint64_t nbins, grid, below = 0;
  if (get(x, &nbins)) return -1;
  if (!max_bins && nbins) return reject(x, "time statistics: bins where the timing mode keeps none");
  if (max_bins && !nbins && d->n <= 2 && d->max <= UINT64_MAX / 4) return implied_bins(x, d, max_bins, m);
  if (max_bins && (nbins < 1 || nbins > max_bins)) return reject(x, "time statistics: number of bins outside 1..k");
  if (!nbins) return 0;
  if (get(x, &grid)) return -1;
  if (grid != GRID_EXACT && grid != GRID_FILE) return reject(x, "time statistics: unknown bin grid");
  if (grid == GRID_EXACT && get(x, &below)) return -1;
  if (grid == GRID_FILE && d->max > UINT64_MAX / 4) return reject(x, "time statistics: a bin grid near 2^64");
  unsigned e = grid == GRID_FILE ? grid_exponent(d->min, d->max) : 0;
  uint64_t q = (uint64_t)1 << e;
  if ((u128)below * q > d->min) return reject(x, "time statistics: first bin starts below 0");
  if (!(d->bins = tf_bins_alloc((uint32_t)nbins, m))) return reject(x, "time statistics: out of memory");
  d->nbins = (uint32_t)nbins;
  uint64_t lo = d->min - below * q, counted = 0;
  for (uint32_t i = 0; i < d->nbins; i++) {
    tf_bin *b = &d->bins[i];
    uint64_t width, count, offset = 0;
    bin_empty(b, lo, lo);
    if (get(x, &width)) return -1;
    if (width < 1 || (u128)width * q > UINT64_MAX - lo) return reject(x, "time statistics: empty or overflowing bin");
    if (i + 1 < d->nbins) {
      if (get(x, &count)) return -1;
      if (count > d->n - counted) return reject(x, "time statistics: bin counts exceed the sample count");
    } else {
      count = d->n - counted; /* the last bin: the samples left */
    }
    if (count && get(x, &offset)) return -1;
    if (offset > width) return reject(x, "time statistics: bin mean outside its bin");
    bin_empty(b, lo, lo + width * q);
    b->n = count;
    if (count) b->mean = (double)lo + (double)offset * (double)q;
    bin_clamp_mean(b);
    if (count && (lo > d->max || (i + 1 < d->nbins && b->hi <= d->min)))
      return reject(x, "time statistics: a bin with samples outside [min, max]");
    counted += count;
    lo += width * q;
  }
  if (lo < d->max) return reject(x, "time statistics: bins end below the maximum");
  return 0;
}

/* The sum and M2 of one or two samples, min and max. */
static void implied(tf_dstat *d) {
  uint64_t range = d->max - d->min;
  if (d->n == 1) d->sum = d->min;
  else d->sum = (u128)d->min + d->max > UINT64_MAX ? UINT64_MAX : d->min + d->max; /* saturated */
  tf_dstat_set_m2(d, d->n == 2 ? (double)range * (double)range / 2 : 0);
}

/* The M2 of three samples: min, max and the third from the sum (clamped to
 * [min, max] should the sum have saturated). */
static double three_m2(const tf_dstat *d) {
  u128 ends = (u128)d->min + d->max;
  uint64_t mid = d->sum < ends ? d->min : d->sum - (uint64_t)ends;
  if (mid < d->min) mid = d->min;
  if (mid > d->max) mid = d->max;
  double x[3] = {(double)d->min, (double)mid, (double)d->max}, mean = (x[0] + x[1] + x[2]) / 3, m2 = 0;
  for (int i = 0; i < 3; i++) m2 += (x[i] - mean) * (x[i] - mean);
  return m2;
}

int tf_dstat_decode_compact(tf_cursor *c, tf_dstat *d, uint64_t n, tf_timing_mode mode, uint32_t k, int merged,
                            int32_t nranks, tf_mem *m, const char **why) {
  *d = (tf_dstat){0};
  cdec x = {.c = c};
  uint64_t min, range = 0, sumx = 0, sd = 0;
  int rc = 0;
  if (!n) rc = reject(&x, "time statistics: a path without samples");
  else if (get(&x, &min) || (n >= 2 && get(&x, &range)) || (n >= 3 && get(&x, &sumx)) || (n >= 4 && get(&x, &sd))) rc = -1;
  else if (range > UINT64_MAX - min) rc = reject(&x, "time statistics: maximum above 2^64 - 1");
  if (!rc && n <= 2) {
    d->n = n;
    d->min = min;
    d->max = min + range;
    implied(d);
  } else if (!rc) {
    d->n = n;
    d->min = min;
    d->max = min + range;
    u128 lowest = (u128)min * n, highest = (u128)d->max * n;
    if (lowest > UINT64_MAX) lowest = UINT64_MAX; /* a saturated sum */
    if (sumx > UINT64_MAX - (uint64_t)lowest || lowest + sumx > highest)
      rc = reject(&x, "time statistics: sum outside [min*n, max*n]");
    else
      d->sum = (uint64_t)lowest + sumx;
  }
  if (!rc && n >= 4 && sd > range / 2 + 1) rc = reject(&x, "time statistics: standard deviation above what the range allows");
  if (!rc && n >= 4) tf_dstat_set_m2(d, (double)sd * (double)sd * (double)n);
  if (!rc && n == 3) tf_dstat_set_m2(d, three_m2(d));
  if (!rc) rc = get_bins(&x, d, mode_bins(mode, k), m);
  if (!rc && merged) {
    uint64_t f, r[4], lo_off, range_m;
    if (get(&x, &f) || get(&x, &r[0]) || get(&x, &r[1])) rc = -1;
    else if (f > (RF_LO_RANK | RF_HI_RANK)) rc = reject(&x, "time statistics: unknown rank fields");
    else {
      r[2] = r[0], r[3] = r[1];
      if ((f & RF_LO_RANK) && get(&x, &r[2])) rc = -1;
      else if ((f & RF_HI_RANK) && get(&x, &r[3])) rc = -1;
      else if (get(&x, &lo_off) || get(&x, &range_m)) rc = -1;
    }
    for (int i = 0; i < 4 && !rc; i++)
      if (nranks <= 0 || r[i] >= (uint64_t)nranks) rc = reject(&x, "time statistics: rank out of range");
    if (!rc && (lo_off > range || range_m > range - lo_off))
      rc = reject(&x, "time statistics: per-rank means not ordered inside [min, max]");
    if (!rc) {
      d->min_rank = (int32_t)r[0];
      d->max_rank = (int32_t)r[1];
      d->rmean_lo_rank = (int32_t)r[2];
      d->rmean_hi_rank = (int32_t)r[3];
      d->rmean_lo = (double)(min + lo_off);
      d->rmean_hi = (double)(min + lo_off + range_m);
    }
  }
  if (rc) {
    tf_dstat_free(d, m);
    *why = x.why;
  }
  return rc;
}

void tf_dstat_rmeans_written(const tf_dstat *d, int32_t one_rank, uint64_t *lo, uint64_t *hi, int32_t *lo_rank,
                             int32_t *hi_rank) {
  if (one_rank >= 0) { /* a group of one rank: its mean, its rank */
    *lo = *hi = round_within(tf_dstat_mean(d), d->min, d->max);
    *lo_rank = *hi_rank = one_rank;
    return;
  }
  *lo = round_within(d->rmean_lo, d->min, d->max);
  *hi = round_within(d->rmean_hi, *lo, d->max);
  *lo_rank = d->rmean_lo_rank;
  *hi_rank = d->rmean_hi_rank;
}
