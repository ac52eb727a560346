/* test_timing.c — unit tests of the delta-time summaries (timing.h), each
 * against an oracle of its own: the samples the test generated.
 *
 *   stats        count, min, max, sum exact and Welford's M2 within 1e-9
 *                of an exact 128-bit two-pass computation, by sequential
 *                adds and by random trees of merges of partial summaries;
 *   algorithms   Algorithms 1 and 2 sample by sample: bins of the first
 *                sample, where samples land, far extremes;
 *   invariants   histograms after every add and every merge, on random and
 *                adversarial streams: sorted, contiguous, covering
 *                [min, max], counts summing to n, at most k bins;
 *   accuracy     1-Wasserstein distance (tf_dstat_w1_error, itself checked
 *                against direct computations) of histogram and stats-only
 *                reconstructions to the exact samples, printed, for one
 *                summary, summaries merged, and summaries decoded then
 *                merged: bins must beat the mean alone fourfold and stay
 *                within 5 % of the mean (bimodal: 1 %);
 *   merge_cost   a merge of two histograms of 10^6 samples each;
 *   paths        path mode: paths in creation order, find, total, the rank
 *                extremes of merges across ranks;
 *   codec        encode/decode round trips in every mode, merged or not,
 *                and the decoder's validation of hand-made encodings;
 *   hostile      every truncation of valid encodings fails cleanly, random
 *                byte flips never crash, memory accounting returns to 0;
 *   compact      the compact form of merged traces from version 5: the bins
 *                of wl.nbconform's failure read back and merged, random
 *                summaries quantised (count, min, max, sum exact, bins
 *                valid, every bin with samples holding a value of [min,
 *                max]) and exact, forged encodings rejected.
 *
 * Usage: test_timing [CASE...]   (all cases, or only those named; --list: tests/check.h)
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "check.h"
#include "test_gen.h"
#include "time/timing.h"

typedef unsigned __int128 u128;

#define NFUNCS_T 10 /* functions and call sites the decoder is told about */
#define NSITES_T 20
#define NRANKS_T 8

/* ------------------------------------------------------------ helpers */

/* The exact statistics of a sample set: sum and sum of squares in 128
 * bits, so that M2 = (n * sumsq - sum^2) / n comes from one exact integer. */
typedef struct oracle {
  uint64_t n, min, max;
  u128 sum, sumsq;
} oracle;

static void oracle_add(oracle *o, uint64_t v) {
  if (!o->n || v < o->min) o->min = v;
  if (!o->n || v > o->max) o->max = v;
  o->n++;
  o->sum += v;
  o->sumsq += (u128)v * v;
}

static double oracle_m2(const oracle *o) { /* exact while n * sumsq < 2^128 */
  if (!o->n) return 0;
  u128 num = o->n * o->sumsq - o->sum * o->sum;
  return (double)num / (double)o->n;
}

/* The summary holds exactly the oracle's count, extremes and sum, and its
 * M2 within 1e-9 (relative; absolute 1e-9 when the variance is 0). */
static int stats_match(const tf_dstat *d, const oracle *o, const char *what, uint64_t seed) {
  int ok = d->n == o->n && (!o->n || (d->min == o->min && d->max == o->max)) && (u128)d->sum == o->sum;
  double want = oracle_m2(o), got = tf_dstat_m2(d), err = fabs(got - want);
  ok = ok && err <= 1e-9 * fmax(want, 1.0);
  CHECKF(ok,
         "seed %" PRIu64 " %s: n %" PRIu64 "/%" PRIu64 " min %" PRIu64 "/%" PRIu64 " max %" PRIu64 "/%" PRIu64
         " m2 %.17g, exact %.17g",
         seed, what, d->n, o->n, d->min, o->min, d->max, o->max, got, want);
  return ok;
}

/* Every structural invariant of a summary. want_bins: a histogram mode
 * with k bins (1..k once n > 0), else no bins. */
static int dstat_valid(const tf_dstat *d, uint32_t k, int want_bins, const char *what, uint64_t seed) {
  const char *bad = NULL;
  if (!d->n) {
    if (d->nbins) bad = "bins without samples";
  } else if (d->min > d->max) {
    bad = "min above max";
  } else if (!(tf_dstat_m2(d) >= 0)) {
    bad = "negative or NaN M2";
  } else {
    u128 lo = (u128)d->min * d->n, hi = (u128)d->max * d->n;
    if (lo > UINT64_MAX) lo = UINT64_MAX;
    if (d->sum < lo || d->sum > hi) bad = "sum outside [min*n, max*n]";
  }
  if (!bad && d->n && want_bins && (d->nbins < 1 || d->nbins > k)) bad = "number of bins outside 1..k";
  if (!bad && !want_bins && d->nbins) bad = "bins where none are kept";
  uint64_t total = 0;
  for (uint32_t i = 0; i < d->nbins && !bad; i++) {
    const tf_bin *b = &d->bins[i];
    if (b->lo >= b->hi)
      bad = "empty bin range";
    else if (i + 1 < d->nbins && b->hi != d->bins[i + 1].lo)
      bad = "bins not contiguous";
    else if (b->n && !(b->mean >= (double)b->lo && b->mean <= (double)b->hi))
      bad = "bin mean outside its bin";
    total += b->n;
  }
  if (!bad && d->nbins) {
    if (d->bins[0].lo > d->min)
      bad = "first bin starts above min";
    else if (d->bins[d->nbins - 1].hi < d->max)
      bad = "last bin ends below max";
    else if (total != d->n)
      bad = "bin counts do not sum to n";
  }
  CHECKF(!bad, "seed %" PRIu64 " %s: %s (n %" PRIu64 ", nbins %u, k %u)", seed, what, bad, d->n, d->nbins, k);
  return !bad;
}

static int timing_valid(const tf_timing *t, tf_timing_mode mode, uint32_t k, const char *what, uint64_t seed) {
  int ok = 1, hist = (mode == TF_TIMING_HISTOGRAM || mode == TF_TIMING_PATH) && k > 0;
  for (uint32_t i = 0; i < t->npaths && ok; i++) {
    ok = dstat_valid(&t->paths[i].compute, k, hist, what, seed) &&
         dstat_valid(&t->paths[i].duration, k, hist, what, seed);
    CHECKF(t->paths[i].compute.n == t->paths[i].duration.n, "seed %" PRIu64 " %s: path %u counts differ", seed, what,
           i);
  }
  return ok;
}

/* What a timing's structures hold, as tf_mem should account it. */
static size_t timing_bytes(const tf_timing *t) {
  size_t b = (size_t)t->npaths * sizeof(tf_tpath);
  for (uint32_t i = 0; i < t->npaths; i++)
    b += (size_t)(t->paths[i].compute.nbins + t->paths[i].duration.nbins) * sizeof(tf_bin);
  return b;
}

/* Sample streams: random and adversarial shapes. */
enum { S_UNIFORM, S_NARROW, S_CONST, S_ZERO, S_INC, S_DEC, S_BIMODAL, S_HUGE, S_ALTERNATE, S_DOUBLING, S_SHAPES };
static const char *shape_name[S_SHAPES] = {"uniform",    "narrow",  "constant", "zeros",     "increasing",
                                           "decreasing", "bimodal", "huge",     "alternate", "doubling"};

static uint64_t shape_value(int shape, uint64_t i, uint64_t n, uint64_t scale) {
  switch (shape) {
  case S_UNIFORM:
    return rndn(scale + 1);
  case S_NARROW:
    return scale + rndn(5);
  case S_CONST:
    return scale;
  case S_ZERO:
    return 0;
  case S_INC:
    return i * (scale / 64 + 1);
  case S_DEC:
    return (n - i) * (scale / 64 + 1);
  case S_BIMODAL:
    return permille(900) ? 1000 + rndn(100) : 10000 + rndn(1000);
  case S_HUGE:
    return ((uint64_t)1 << 62) + rndn(1u << 20) - (1u << 19);
  case S_ALTERNATE:
    return i % 2 ? ((uint64_t)1 << 62) + rndn(3) : rndn(3);
  default:
    return (uint64_t)1 << (i % 63); /* S_DOUBLING */
  }
}

static double normalish(double mean, double sd) { /* sum of 12 uniforms */
  double s = 0;
  for (int i = 0; i < 12; i++) s += (double)rndn(1u << 30) / (double)(1u << 30);
  return mean + (s - 6) * sd;
}

/* ====================================================== statistics */

/* A sample set: random size and spread (values below 2^40 so the oracle's
 * sums of squares stay exact), sometimes on a large offset. */
static size_t sample_set(uint64_t *v, size_t cap) {
  size_t n = 1 + rndn(permille(100) ? 4 : cap);
  unsigned bits = 1 + (unsigned)rndn(30);
  uint64_t offset = permille(300) ? rndn((uint64_t)1 << 39) : 0;
  int constant = permille(50);
  for (size_t i = 0; i < n; i++) v[i] = offset + (constant ? 7 : rndn((uint64_t)1 << bits));
  return n;
}

static void test_stats(void) {
  enum { CAP = 3000 };
  static uint64_t v[CAP], w[CAP];
  for (uint64_t seed = 1; seed <= 400; seed++) {
    rng = seed * 7919;
    size_t n = sample_set(v, CAP);
    for (size_t i = 0; i < n; i++) w[i] = rndn(1000000);
    tf_timing_mode mode = (tf_timing_mode)(1 + seed % 3);
    uint32_t k = 1 + (uint32_t)rndn(TF_BINS_MAX);
    oracle oc = {0}, od = {0};
    tf_mem m = {0};
    tf_timing seq = {0};
    for (size_t i = 0; i < n; i++) {
      oracle_add(&oc, v[i]);
      oracle_add(&od, w[i]);
      CHECK(tf_timing_add(&seq, mode, k, TF_PREV_NONE, TF_PREV_NONE, v[i], w[i], &m) == 0);
    }
    CHECK(seq.npaths == 1);
    stats_match(&seq.paths[0].compute, &oc, "sequential compute", seed);
    stats_match(&seq.paths[0].duration, &od, "sequential duration", seed);
    CHECKF(fabs(tf_dstat_mean(&seq.paths[0].compute) - (double)oc.sum / (double)n) <= 1e-9 * (double)oc.sum / (double)n,
           "seed %" PRIu64 " mean", seed);
    CHECKF(fabs(tf_dstat_stddev(&seq.paths[0].compute) - sqrt(oracle_m2(&oc) / (double)n)) <=
               1e-9 * fmax(1, sqrt(oracle_m2(&oc) / (double)n)),
           "seed %" PRIu64 " stddev", seed);
    timing_valid(&seq, mode, k, "sequential", seed);

    /* the same samples in random chunks, merged along a random tree */
    enum { PARTS = 12 };
    tf_timing part[PARTS] = {{0}};
    size_t nparts = 1 + rndn(PARTS), at = 0;
    for (size_t p = 0; p < nparts; p++) {
      size_t len = p + 1 == nparts ? n - at : rndn(n - at + 1);
      for (size_t i = at; i < at + len; i++)
        CHECK(tf_timing_add(&part[p], mode, k, TF_PREV_NONE, TF_PREV_NONE, v[i], w[i], &m) == 0);
      at += len;
    }
    while (nparts > 1) {
      size_t a = rndn(nparts), b = rndn(nparts - 1);
      if (b >= a) b++;
      CHECK(tf_timing_merge(&part[a], &part[b], k, (int)rndn(2), &m) == 0);
      timing_valid(&part[a], mode, k, "after merge", seed);
      tf_timing_free(&part[b], &m);
      part[b] = part[--nparts];
    }
    CHECK(part[0].npaths == 1);
    if (part[0].npaths == 1) {
      stats_match(&part[0].paths[0].compute, &oc, "merged compute", seed);
      stats_match(&part[0].paths[0].duration, &od, "merged duration", seed);
    }
    CHECKF(m.bytes == timing_bytes(&seq) + timing_bytes(&part[0]), "seed %" PRIu64 " accounting", seed);
    tf_timing_free(&part[0], &m);
    tf_timing_free(&seq, &m);
    CHECKF(m.bytes == 0 && !m.failed, "seed %" PRIu64 ": %zu bytes left after free", seed, m.bytes);
  }

  /* sums beyond 2^64 saturate; the rest stays exact and valid */
  tf_mem m = {0};
  tf_timing t = {0};
  for (int i = 0; i < 10; i++)
    tf_timing_add(&t, TF_TIMING_HISTOGRAM, 8, 0, 0, ((uint64_t)1 << 62) + (uint64_t)i, 5, &m);
  const tf_dstat *c = &t.paths[0].compute;
  CHECK(c->n == 10 && c->sum == UINT64_MAX && c->min == (uint64_t)1 << 62 && c->max == ((uint64_t)1 << 62) + 9);
  timing_valid(&t, TF_TIMING_HISTOGRAM, 8, "saturated sum", 0);
  tf_timing_free(&t, &m);
  CHECK(m.bytes == 0);

  /* a summary read from a file gets its squares from M2 (n sd^2): M2 comes back to within 1/512 */
  for (int rep = 0; rep < 20000; rep++) {
    uint64_t n = 1 + rndn(rep % 2 ? 5 : 100000), mean = rndn((uint64_t)1 << rndn(40)), sd = rndn(mean / 2 + 2);
    tf_dstat d = {.n = n, .min = 0, .max = 2 * mean, .sum = mean * n + rndn(n)};
    double want = n == 1 ? 0 : (double)sd * (double)sd * (double)n;
    tf_dstat_set_m2(&d, want);
    double got = tf_dstat_m2(&d);
    CHECKF(fabs(got - want) <= 1.0 / 512 + 1e-15 * want, "n %" PRIu64 " sum %" PRIu64 ": M2 %.17g back as %.17g", n,
           d.sum, want, got);
  }
}

/* ====================================================== histogram invariants */

static void test_invariants(void) {
  static const uint32_t ks[] = {1, 2, 3, 5, 16, 64};
  uint64_t seed = 0;
  for (int shape = 0; shape < S_SHAPES; shape++)
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
      uint32_t k = ks[ki];
      rng = ++seed * 104729;
      uint64_t n = 500 + rndn(3000), scale = 1 + rndn(1000000);
      tf_mem m = {0};
      enum { PARTS = 6 };
      tf_timing part[PARTS] = {{0}};
      oracle whole = {0};
      int ok = 1;
      for (uint64_t i = 0; i < n && ok; i++) {
        uint64_t v = shape_value(shape, i, n, scale);
        tf_timing *t = &part[i * PARTS / n];
        CHECK(tf_timing_add(t, TF_TIMING_HISTOGRAM, k, 3, 4, v, v / 2, &m) == 0);
        oracle_add(&whole, v);
        ok = timing_valid(t, TF_TIMING_HISTOGRAM, k, shape_name[shape], seed);
      }
      for (int p = 1; p < PARTS && ok; p++) {
        CHECK(tf_timing_merge(&part[0], &part[p], k, p % 2, &m) == 0);
        ok = timing_valid(&part[0], TF_TIMING_HISTOGRAM, k, shape_name[shape], seed);
      }
      const tf_dstat *d = part[0].npaths == 1 ? &part[0].paths[0].compute : NULL;
      CHECKF(d && d->n == whole.n && d->min == whole.min && d->max == whole.max, "seed %" PRIu64 " %s: merged stats",
             seed, shape_name[shape]);
      CHECK(m.bytes == timing_bytes(&part[0]) + timing_bytes(&part[1]) + timing_bytes(&part[2]) +
                           timing_bytes(&part[3]) + timing_bytes(&part[4]) + timing_bytes(&part[5]));
      for (int p = 0; p < PARTS; p++) tf_timing_free(&part[p], &m);
      CHECK(m.bytes == 0);
    }

  /* random streams, random k, random merge trees (histograms of histograms) */
  for (uint64_t s = 1; s <= 200; s++) {
    rng = s * 31337;
    uint32_t k = 1 + (uint32_t)rndn(TF_BINS_MAX);
    tf_mem m = {0};
    enum { PARTS = 8 };
    tf_timing part[PARTS] = {{0}};
    size_t nparts = PARTS;
    for (int p = 0; p < PARTS; p++) {
      int shape = (int)rndn(S_SHAPES);
      uint64_t n = 1 + rndn(400), scale = rndn(1u << 20);
      for (uint64_t i = 0; i < n; i++) {
        uint64_t v = shape_value(shape, i, n, scale);
        tf_timing_add(&part[p], TF_TIMING_HISTOGRAM, k, 0, 0, v, rndn(100), &m);
      }
    }
    while (nparts > 1) {
      size_t a = rndn(nparts), b = rndn(nparts - 1);
      if (b >= a) b++;
      uint64_t before = part[a].paths[0].compute.n + part[b].paths[0].compute.n;
      CHECK(tf_timing_merge(&part[a], &part[b], k, 1, &m) == 0);
      timing_valid(&part[a], TF_TIMING_HISTOGRAM, k, "random merge tree", s);
      CHECK(part[a].paths[0].compute.n == before);
      tf_timing_free(&part[b], &m);
      part[b] = part[--nparts];
    }
    tf_timing_free(&part[0], &m);
    CHECK(m.bytes == 0 && !m.failed);
  }
}

/* Algorithms 1 and 2 step by step, before any rebalancing (the first is
 * tried at the 4th sample): the first sample's bins, where samples land
 * (bins hold [lo, hi), the last one also hi), a far new extreme getting a
 * bin of its own. */
static void test_algorithms(void) {
  tf_mem m = {0};
  tf_timing t = {0};
  static const uint64_t lo[] = {0, 50, 100, 150, 200};
  static const uint64_t runs[][3] = {{100, 50, 99}, {100, 149, 150}, {100, 200, 0}, {100, 100, 49}};
  static const uint64_t counts[][4] = {{0, 2, 1, 0}, {0, 0, 2, 1}, {1, 0, 1, 1}, {1, 0, 2, 0}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    for (int i = 0; i < 3; i++) tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, runs[r][i], 1, &m);
    const tf_dstat *d = &t.paths[0].compute;
    CHECK(d->nbins == 4);
    for (uint32_t i = 0; i < 4 && d->nbins == 4; i++) {
      double sum = 0;
      for (int j = 0; j < 3; j++)
        if (runs[r][j] >= lo[i] && (runs[r][j] < lo[i + 1] || (i == 3 && runs[r][j] == lo[4])))
          sum += (double)runs[r][j];
      CHECKF(d->bins[i].lo == lo[i] && d->bins[i].hi == lo[i + 1] && d->bins[i].n == counts[r][i] &&
                 (!counts[r][i] || fabs(d->bins[i].mean - sum / (double)counts[r][i]) < 1e-9),
             "run %zu bin %u: [%" PRIu64 ", %" PRIu64 ") n %" PRIu64 " mean %g", r, i, d->bins[i].lo, d->bins[i].hi,
             d->bins[i].n, d->bins[i].mean);
    }
    tf_timing_free(&t, &m);
  }
  /* 100, 150, then 1000: merging two empty bins costs nothing, widening
   * [150, 200] to 1000 would mix 150 with 1000: 1000 gets [201, 1000] */
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, 100, 1, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, 150, 1, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, 1000, 1, &m);
  const tf_dstat *d = &t.paths[0].compute;
  CHECK(d->nbins == 4 && d->bins[0].lo == 0 && d->bins[0].hi == 100 && d->bins[0].n == 0);
  CHECK(d->nbins == 4 && d->bins[2].lo == 150 && d->bins[2].hi == 201 && d->bins[2].n == 1);
  CHECK(d->nbins == 4 && d->bins[3].lo == 201 && d->bins[3].hi == 1000 && d->bins[3].n == 1);
  dstat_valid(d, 4, 1, "far maximum", 0);
  tf_timing_free(&t, &m);

  /* below the first bin, in a histogram whose range does not start at 0 (as
   * a merge or a decoder may leave it): bins [250, 305) {300} [305, 400)
   * {310, 320} [400, 600]; then 7 */
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 3, 0, 0, 300, 1, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 3, 0, 0, 310, 1, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 3, 0, 0, 320, 1, &m);
  tf_bin *b = t.paths[0].compute.bins;
  b[0] = (tf_bin){250, 305, 1, 300, 0};
  b[1] = (tf_bin){305, 400, 2, 315, 50};
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 3, 0, 0, 7, 1, &m);
  d = &t.paths[0].compute;
  CHECK(d->nbins == 3 && d->bins[0].lo == 7 && d->bins[0].hi == 250 && d->bins[0].n == 1 && d->min == 7);
  CHECK(d->nbins == 3 && d->bins[1].lo == 250 && d->bins[1].n == 1 && d->bins[2].lo == 305 && d->bins[2].n == 2);
  dstat_valid(d, 3, 1, "far minimum", 0);
  tf_timing_free(&t, &m);

  /* Algorithm 1 at the edges: 0 (bins [0, k]) and values whose double (2v) overflows */
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, 0, 1, &m);
  d = &t.paths[0].compute;
  CHECK(d->nbins == 4 && d->bins[0].lo == 0 && d->bins[0].hi == 1 && d->bins[3].hi == 4 && d->bins[0].n == 1);
  tf_timing_free(&t, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, UINT64_MAX - 1, 1, &m);
  tf_timing_add(&t, TF_TIMING_HISTOGRAM, 4, 0, 0, UINT64_MAX, 1, &m);
  d = &t.paths[0].compute;
  CHECK(d->nbins == 4 && d->bins[3].hi == UINT64_MAX && d->bins[3].n == 2 && d->sum == UINT64_MAX);
  dstat_valid(d, 4, 1, "2^64 - 1", 0);
  tf_timing_free(&t, &m);
  CHECK(m.bytes == 0);
}

/* ====================================================== accuracy */

/* W1 of a summary without bins is the mean absolute deviation from the
 * mean, and a histogram with one point-mass bin per distinct value is
 * exact: two direct checks of the metric. */
static void check_metric(void) {
  uint64_t s[1000];
  double sum = 0;
  for (int i = 0; i < 1000; i++) sum += (double)(s[i] = 100 + rndn(900));
  tf_mem m = {0};
  tf_timing t = {0};
  for (int i = 0; i < 1000; i++) tf_timing_add(&t, TF_TIMING_STATS, 0, 0, 0, s[i], 0, &m);
  double mean = sum / 1000, mad = 0;
  for (int i = 0; i < 1000; i++) mad += fabs((double)s[i] - mean);
  double w = tf_dstat_w1_error(&t.paths[0].compute, s, 1000);
  CHECKF(fabs(w - mad / 1000 / mean) < 1e-9, "W1 of the mean alone %.12g, expected %.12g", w, mad / 1000 / mean);
  tf_timing_free(&t, &m);

  /* values 10, 20, 30 (counts 1, 2, 3): one bin per value, means exact */
  tf_bin bins[3] = {{10, 20, 1, 10, 0}, {20, 30, 2, 20, 0}, {30, 31, 3, 30, 0}};
  tf_dstat d = {.n = 6, .min = 10, .max = 30, .sum = 140, .nbins = 3, .bins = bins};
  uint64_t exact[6] = {30, 20, 10, 30, 20, 30};
  CHECKF(tf_dstat_w1_error(&d, exact, 6) < 1e-12, "W1 of an exact histogram: %g", tf_dstat_w1_error(&d, exact, 6));
  /* one bin [0, 10] with mean 5: uniform over [0, 10] against 0 and 10:
   * W1 = integral of |Q| = 2 * (integral over [0, 1/2] of 10u du) = 2.5 */
  tf_bin one = {0, 10, 2, 5, 0};
  tf_dstat u = {.n = 2, .min = 0, .max = 10, .sum = 10, .nbins = 1, .bins = &one};
  uint64_t ends[2] = {10, 0};
  CHECKF(fabs(tf_dstat_w1_error(&u, ends, 2) - 2.5 / 5) < 1e-12, "W1 uniform vs ends: %g",
         tf_dstat_w1_error(&u, ends, 2));
}

typedef struct dist {
  const char *name;
  uint64_t (*draw)(void);
  int cold_start; /* every rank's first sample is 200000: Algorithm 1's bins are far too wide */
  int shift;      /* every rank's second half of samples is drawn around 5000 (first half: around 1000) */
} dist;

static uint64_t draw_unimodal(void) { return (uint64_t)fmax(0, normalish(5000, 500)); }
static uint64_t draw_bimodal(void) {
  return permille(900) ? (uint64_t)fmax(0, normalish(1000, 50)) : (uint64_t)fmax(0, normalish(10000, 500));
}
static uint64_t draw_uniform(void) { return rndn(20001); }
static uint64_t draw_heavy(void) { /* mostly small, a long tail */
  return permille(990) ? 200 + rndn(50) : 200 + rndn(1000000);
}
static uint64_t draw_before_shift(void) { return (uint64_t)fmax(0, normalish(1000, 50)); }
static uint64_t draw_close_modes(void) {
  return permille(900) ? (uint64_t)fmax(0, normalish(1000, 50)) : (uint64_t)fmax(0, normalish(3000, 100));
}

static void test_accuracy(void) {
  rng = 4242;
  check_metric();
  static const dist dists[] = {{"unimodal", draw_unimodal, 0, 0},      {"bimodal", draw_bimodal, 0, 0},
                               {"uniform", draw_uniform, 0, 0},        {"long tail", draw_heavy, 0, 0},
                               {"cold start", draw_close_modes, 1, 0}, {"shift", draw_before_shift, 0, 1}};
  static const uint32_t ks[] = {8, 16, 64};
  enum { N = 100000, RANKS = 8 };
  static uint64_t samples[N];
  printf("   W1 / mean   stats: all mass at the mean; hist: the bins of one summary; merged: %d summaries\n"
         "               merged in memory; decoded+merged: the same encoded, decoded, then merged\n",
         RANKS);
  for (size_t di = 0; di < sizeof dists / sizeof dists[0]; di++) {
    rng = 1000 + di;
    for (size_t i = 0; i < N; i++)
      samples[i] = dists[di].cold_start && i % (N / RANKS) == 0          ? 200000
                   : dists[di].shift && i % (N / RANKS) >= N / RANKS / 2 ? (uint64_t)normalish(5000, 200)
                                                                         : dists[di].draw();
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
      uint32_t k = ks[ki];
      tf_mem m = {0};
      tf_timing whole = {0}, part[RANKS] = {{0}};
      for (size_t i = 0; i < N; i++) {
        tf_timing_add(&whole, TF_TIMING_HISTOGRAM, k, 0, 0, samples[i], 0, &m);
        tf_timing_add(&part[i * RANKS / N], TF_TIMING_HISTOGRAM, k, 0, 0, samples[i], 0, &m);
      }
      /* ranks are merged from their files: decoded summaries, whose bins have lost their M2 */
      tf_timing files = {0};
      for (int r = 0; r < RANKS; r++) {
        tf_buf b = {0};
        tf_timing_encode(&b, &part[r], 0);
        tf_cursor c = {b.data, b.data + b.len, 0};
        tf_timing back;
        const char *why = NULL;
        CHECK(tf_timing_decode(&c, &back, TF_TIMING_HISTOGRAM, k, -1, 0, 1, 1, 1, &m, &why) == 0);
        CHECK(tf_timing_merge(&files, &back, k, 1, &m) == 0);
        tf_timing_free(&back, &m);
        tf_buf_free(&b);
      }
      for (int r = 1; r < RANKS; r++) tf_timing_merge(&part[0], &part[r], k, 1, &m);
      tf_dstat *h = &whole.paths[0].compute, stats = *h;
      stats.nbins = 0;
      stats.bins = NULL;
      double e_stats = tf_dstat_w1_error(&stats, samples, N), e_hist = tf_dstat_w1_error(h, samples, N);
      double e_merged = tf_dstat_w1_error(&part[0].paths[0].compute, samples, N);
      double e_files = tf_dstat_w1_error(&files.paths[0].compute, samples, N);
      printf("   %-10s k=%-2u  stats %.5f  hist %.5f  merged %.5f  decoded+merged %.5f\n", dists[di].name, k, e_stats,
             e_hist, e_merged, e_files);
      timing_valid(&files, TF_TIMING_HISTOGRAM, k, dists[di].name, di);
      timing_valid(&whole, TF_TIMING_HISTOGRAM, k, dists[di].name, di);
      timing_valid(&part[0], TF_TIMING_HISTOGRAM, k, dists[di].name, di);
      /* bins must describe the distribution better than its mean */
      CHECKF(e_hist < e_stats / 4 && e_merged < e_stats / 4 && e_files < e_stats / 4,
             "%s k=%u: hist %.5f merged %.5f decoded+merged %.5f, stats %.5f", dists[di].name, k, e_hist, e_merged,
             e_files, e_stats);
      /* and well: a few percent of the mean at most (the bimodal case: 1 %) */
      double bound = strcmp(dists[di].name, "bimodal") == 0 ? 0.01 : 0.05;
      CHECKF(e_hist < bound && e_merged < bound && e_files < bound, "%s k=%u: hist %.5f merged %.5f decoded %.5f",
             dists[di].name, k, e_hist, e_merged, e_files);
      tf_timing_free(&whole, &m);
      tf_timing_free(&files, &m);
      for (int r = 0; r < RANKS; r++) tf_timing_free(&part[r], &m);
      CHECK(m.bytes == 0);
    }
  }
}

/* ====================================================== merge cost */

static void test_merge_cost(void) {
  enum { N = 1000000 };
  rng = 777;
  tf_mem m = {0};
  tf_timing a = {0}, b = {0};
  oracle oa = {0};
  static uint64_t x[N], y[N];
  for (uint64_t i = 0; i < N; i++) {
    oracle_add(&oa, x[i] = draw_bimodal());
    oracle_add(&oa, y[i] = draw_unimodal() * 3);
  }
  double t0 = cpu_seconds();
  for (uint64_t i = 0; i < N; i++) {
    tf_timing_add(&a, TF_TIMING_HISTOGRAM, 64, 0, 0, x[i], i % 100, &m);
    tf_timing_add(&b, TF_TIMING_HISTOGRAM, 64, 0, 0, y[i], i % 7, &m);
  }
  double t1 = cpu_seconds();
  CHECK(tf_timing_merge(&a, &b, 64, 1, &m) == 0);
  double t2 = cpu_seconds();
  printf("   k=64: %d adds (compute and duration) %.1f ns each; merge of two %d-sample histograms: %.1f us\n", 2 * N,
         (t1 - t0) / (2.0 * N) * 1e9, N, (t2 - t1) * 1e6);
  timing_valid(&a, TF_TIMING_HISTOGRAM, 64, "merge of 10^6 + 10^6", 0);
  stats_match(&a.paths[0].compute, &oa, "merge of 10^6 + 10^6", 0);
  tf_timing_free(&a, &m);
  tf_timing_free(&b, &m);
  CHECK(m.bytes == 0);
}

/* ====================================================== paths and ranks */

static void test_paths(void) {
  tf_mem m = {0};
  tf_timing t = {0};
  /* mode none keeps nothing; stats and histogram ignore the previous call */
  CHECK(tf_timing_add(&t, TF_TIMING_NONE, 8, 1, 2, 10, 20, &m) == 0 && t.npaths == 0 && m.bytes == 0);
  for (int mode = TF_TIMING_STATS; mode <= TF_TIMING_HISTOGRAM; mode++) {
    for (uint32_t i = 0; i < 30; i++) tf_timing_add(&t, (tf_timing_mode)mode, 8, i % 3, i % 5, 100 + i, i, &m);
    CHECK(t.npaths == 1 && t.paths[0].prev_fn == TF_PREV_NONE && t.paths[0].prev_site == TF_PREV_NONE);
    CHECK(tf_timing_count(&t) == 30 && (mode == TF_TIMING_STATS) == (t.paths[0].compute.nbins == 0));
    tf_timing_free(&t, &m);
  }

  /* path mode: three previous calls, paths in order of creation */
  static const uint32_t keys[3][2] = {{4, 7}, {TF_PREV_NONE, TF_PREV_NONE}, {2, 7}};
  uint64_t count[3] = {0}, sum[3] = {0};
  for (uint32_t i = 0; i < 300; i++) {
    uint32_t p = i < 3 ? i : (uint32_t)rndn(3);
    uint64_t v = 1000 * (p + 1) + rndn(100);
    CHECK(tf_timing_add(&t, TF_TIMING_PATH, 16, keys[p][0], keys[p][1], v, 5, &m) == 0);
    count[p]++, sum[p] += v;
  }
  CHECK(t.npaths == 3);
  for (uint32_t p = 0; p < 3 && t.npaths == 3; p++) {
    CHECK(t.paths[p].prev_fn == keys[p][0] && t.paths[p].prev_site == keys[p][1]);
    const tf_tpath *f = tf_timing_find(&t, keys[p][0], keys[p][1]);
    CHECK(f == &t.paths[p] && f->compute.n == count[p] && f->compute.sum == sum[p]);
  }
  CHECK(tf_timing_find(&t, 4, 8) == NULL && tf_timing_find(&t, 2, TF_PREV_NONE) == NULL);
  CHECK(tf_timing_count(&t) == 300);
  tf_tpath all;
  CHECK(tf_timing_total(&t, 5, &all, &m) == 0);
  CHECK(all.prev_fn == TF_PREV_NONE && all.compute.n == 300 && all.duration.n == 300);
  CHECK(all.compute.sum == sum[0] + sum[1] + sum[2] && all.compute.nbins >= 1 && all.compute.nbins <= 5);
  dstat_valid(&all.compute, 5, 1, "total", 0);
  tf_dstat_free(&all.compute, &m);
  tf_dstat_free(&all.duration, &m);
  CHECK(tf_timing_total(&t, 0, &all, &m) == 0 && all.compute.nbins == 0 && all.compute.n == 300);
  tf_dstat_free(&all.compute, &m);
  tf_dstat_free(&all.duration, &m);
  CHECK(m.bytes == timing_bytes(&t));

  /* merge: matched paths add up, unmatched ones are appended in b's order */
  tf_timing b = {0};
  tf_timing_add(&b, TF_TIMING_PATH, 16, 9, 9, 1, 1, &m);
  tf_timing_add(&b, TF_TIMING_PATH, 16, 2, 7, 3000, 1, &m);
  tf_timing_add(&b, TF_TIMING_PATH, 16, 8, 1, 1, 1, &m);
  CHECK(tf_timing_merge(&t, &b, 16, 0, &m) == 0);
  CHECK(t.npaths == 5 && t.paths[3].prev_fn == 9 && t.paths[4].prev_fn == 8 && t.paths[2].compute.n == count[2] + 1);
  timing_valid(&t, TF_TIMING_PATH, 16, "path merge", 0);
  tf_timing copy;
  CHECK(tf_timing_copy(&copy, &t, &m) == 0 && copy.npaths == 5 && copy.paths[2].compute.n == count[2] + 1);
  CHECK(copy.paths[1].compute.bins != t.paths[1].compute.bins);
  CHECK(m.bytes == timing_bytes(&t) + timing_bytes(&b) + timing_bytes(&copy));
  tf_timing_free(&copy, &m);
  tf_timing_free(&b, &m);
  tf_timing_free(&t, &m);
  CHECK(m.bytes == 0);

  /* ranks: rank r's samples are known, so are its extremes and its mean */
  static const uint64_t data[4][3] = {{50, 60, 70}, {40, 90, 95}, {40, 200, 10}, {55, 55, 55}};
  /* min 10 and max 200 on rank 2; means 60, 75, 83.3 (rank 2), 55 (rank 3) */
  tf_timing r[4] = {{0}};
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 3; i++) tf_timing_add(&r[k], TF_TIMING_HISTOGRAM, 4, 0, 0, data[k][i], data[k][i] + 1, &m);
    tf_timing_set_rank(&r[k], k);
    const tf_dstat *d = &r[k].paths[0].compute;
    CHECK(d->min_rank == k && d->max_rank == k && d->rmean_lo_rank == k && d->rmean_hi_rank == k);
    CHECK(d->rmean_lo == tf_dstat_mean(d) && d->rmean_hi == tf_dstat_mean(d));
  }
  tf_timing acc;
  CHECK(tf_timing_copy(&acc, &r[0], &m) == 0);
  for (int k = 1; k < 4; k++) CHECK(tf_timing_merge(&acc, &r[k], 4, 1, &m) == 0);
  const tf_dstat *c = &acc.paths[0].compute, *d = &acc.paths[0].duration;
  CHECK(c->n == 12 && c->min == 10 && c->max == 200 && c->min_rank == 2 && c->max_rank == 2);
  CHECK(c->rmean_lo == 55 && c->rmean_lo_rank == 3 && fabs(c->rmean_hi - 250.0 / 3) < 1e-9 && c->rmean_hi_rank == 2);
  CHECK(d->n == 12 && d->min == 11 && d->min_rank == 2 && d->rmean_lo == 56 && d->rmean_lo_rank == 3);
  dstat_valid(c, 4, 1, "merged ranks", 0);
  /* ties keep a's rank: one sample 40 on rank 5 against rank 1 (min 40);
   * one sample 60 on rank 6 against rank 0 (mean 60) */
  tf_timing s40 = {0}, s60 = {0}, lo1, eq0;
  tf_timing_add(&s40, TF_TIMING_HISTOGRAM, 4, 0, 0, 40, 0, &m);
  tf_timing_set_rank(&s40, 5);
  tf_timing_add(&s60, TF_TIMING_HISTOGRAM, 4, 0, 0, 60, 0, &m);
  tf_timing_set_rank(&s60, 6);
  CHECK(tf_timing_copy(&lo1, &r[1], &m) == 0 && tf_timing_merge(&lo1, &s40, 4, 1, &m) == 0);
  c = &lo1.paths[0].compute;
  CHECK(c->min == 40 && c->min_rank == 1 && c->max_rank == 1 && c->rmean_lo == 40 && c->rmean_lo_rank == 5);
  CHECK(tf_timing_copy(&eq0, &r[0], &m) == 0 && tf_timing_merge(&eq0, &s60, 4, 1, &m) == 0);
  c = &eq0.paths[0].compute;
  CHECK(c->rmean_lo == 60 && c->rmean_lo_rank == 0 && c->rmean_hi == 60 && c->rmean_hi_rank == 0);
  /* the same rank folded: ranks stay a's, the per-rank mean is the new mean */
  CHECK(tf_timing_merge(&r[0], &s40, 4, 0, &m) == 0);
  c = &r[0].paths[0].compute;
  CHECK(c->min == 40 && c->min_rank == 0 && c->rmean_lo == 55 && c->rmean_hi == 55 && c->rmean_lo_rank == 0);
  /* an empty side contributes no extremes; merging into an empty timing copies */
  tf_timing empty = {0}, none = {0};
  CHECK(tf_timing_merge(&lo1, &empty, 4, 1, &m) == 0 && lo1.paths[0].compute.min_rank == 1);
  CHECK(tf_timing_merge(&none, &r[2], 4, 1, &m) == 0 && none.paths[0].compute.min_rank == 2 &&
        none.paths[0].compute.rmean_hi_rank == 2 && none.paths[0].compute.nbins == r[2].paths[0].compute.nbins);
  /* totals of several paths keep the extreme ranks */
  tf_timing pr = {0};
  tf_timing_add(&pr, TF_TIMING_PATH, 4, 1, 1, 30, 0, &m);
  tf_timing_add(&pr, TF_TIMING_PATH, 4, 2, 1, 10, 0, &m);
  tf_timing_add(&pr, TF_TIMING_PATH, 4, 3, 1, 90, 0, &m);
  tf_timing_set_rank(&pr, 3);
  pr.paths[1].compute.min_rank = 1; /* as if merged from rank 1 */
  pr.paths[2].compute.max_rank = 7;
  CHECK(tf_timing_total(&pr, 4, &all, &m) == 0);
  CHECK(all.compute.min == 10 && all.compute.min_rank == 1 && all.compute.max == 90 && all.compute.max_rank == 7);
  /* the per-rank mean extremes are the event's (all paths of one rank: one mean), not the paths' */
  CHECK(fabs(all.compute.rmean_lo - 130.0 / 3) < 1e-9 && all.compute.rmean_hi == all.compute.rmean_lo &&
        all.compute.rmean_lo_rank == 3 && all.compute.rmean_hi_rank == 3);
  tf_dstat_free(&all.compute, &m);
  tf_dstat_free(&all.duration, &m);
  tf_timing *all_t[] = {&acc, &s40, &s60, &lo1, &eq0, &none, &pr, &r[0], &r[1], &r[2], &r[3]};
  for (size_t i = 0; i < sizeof all_t / sizeof all_t[0]; i++) tf_timing_free(all_t[i], &m);
  CHECK(m.bytes == 0 && !m.failed);
}

/* ====================================================== encoding */

/* A random timing of `mode`: random streams on random paths, sometimes
 * built from several ranks' summaries merged (merged traces). */
static void random_timing(tf_timing *t, tf_timing_mode mode, uint32_t k, int merged, uint64_t most, tf_mem *m) {
  *t = (tf_timing){0};
  int ranks = merged ? 1 + (int)rndn(NRANKS_T) : 1;
  for (int r = 0; r < ranks; r++) {
    tf_timing part = {0};
    int shape = (int)rndn(S_SHAPES);
    uint64_t n = 1 + rndn(permille(300) ? 5 : most), scale = rndn((uint64_t)1 << rndn(40));
    for (uint64_t i = 0; i < n; i++) {
      uint32_t fn = permille(200) ? TF_PREV_NONE : (uint32_t)rndn(NFUNCS_T);
      uint32_t site = fn == TF_PREV_NONE ? TF_PREV_NONE : (uint32_t)rndn(NSITES_T);
      tf_timing_add(&part, mode, k, fn, site, shape_value(shape, i, n, scale), rndn(1000), m);
    }
    if (merged) tf_timing_set_rank(&part, r);
    tf_timing_merge(t, &part, k, merged, m);
    tf_timing_free(&part, m);
  }
}

static int decode_bytes(const uint8_t *p, size_t len, tf_timing *t, tf_timing_mode mode, uint32_t k, __int128 occ,
                        int merged, tf_mem *m, const char **why, size_t *used) {
  tf_cursor c = {p, p + len, 0};
  int rc = tf_timing_decode(&c, t, mode, k, occ, merged, NFUNCS_T, NSITES_T, NRANKS_T, m, why);
  if (used) *used = (size_t)(c.p - p);
  return rc;
}

/* A summary's bins as a file keeps them: each run of empty bins as one. */
static uint32_t written_bins(const tf_dstat *d, tf_bin *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < d->nbins; i++)
    if (n && !d->bins[i].n && !out[n - 1].n)
      out[n - 1].hi = d->bins[i].hi;
    else
      out[n++] = d->bins[i];
  return n;
}

/* The field in which a decoded summary differs from the original, or NULL
 * (what the encoding rounds: stddev, bin means, per-rank means, to 1/2). */
static const char *dstat_diff(const tf_dstat *a, const tf_dstat *b, int merged) {
  if (a->n != b->n || a->min != b->min || a->max != b->max || a->sum != b->sum) return "n, min, max or sum";
  tf_bin bins[TF_BINS_MAX];
  if (written_bins(a, bins) != b->nbins) return "nbins";
  double slack = 0.5 + 1e-12 * (double)a->max;
  if (fabs(tf_dstat_stddev(a) - tf_dstat_stddev(b)) > slack) return "stddev";
  for (uint32_t i = 0; i < b->nbins; i++) {
    const tf_bin *x = &bins[i], *y = &b->bins[i];
    if (x->lo != y->lo || x->hi != y->hi || x->n != y->n) return "bin range or count";
    if (x->n && fabs(x->mean - y->mean) > slack) return "bin mean";
  }
  if (merged && (a->min_rank != b->min_rank || a->max_rank != b->max_rank || a->rmean_lo_rank != b->rmean_lo_rank ||
                 a->rmean_hi_rank != b->rmean_hi_rank))
    return "ranks";
  if (merged && (fabs(a->rmean_lo - b->rmean_lo) > slack || fabs(a->rmean_hi - b->rmean_hi) > slack))
    return "per-rank means";
  return NULL;
}

static void test_codec(void) {
  uint64_t seed = 0;
  size_t total_bytes = 0, total_paths = 0;
  for (int mode = TF_TIMING_NONE; mode <= TF_TIMING_PATH; mode++)
    for (int merged = 0; merged <= 1; merged++)
      for (int rep = 0; rep < 60; rep++) {
        rng = ++seed * 65537;
        uint32_t k = 1 + (uint32_t)rndn(TF_BINS_MAX);
        tf_mem m = {0};
        tf_timing t, back;
        random_timing(&t, (tf_timing_mode)mode, k, merged, 2000, &m);
        tf_buf b = {0}, again = {0};
        tf_timing_encode(&b, &t, merged);
        const char *why = NULL;
        size_t used = 0;
        int rc = decode_bytes(b.data, b.len, &back, (tf_timing_mode)mode, k, (__int128)tf_timing_count(&t), merged, &m,
                              &why, &used);
        CHECKF(rc == 0, "seed %" PRIu64 " mode %d merged %d: %s", seed, mode, merged, why ? why : "?");
        if (rc == 0) {
          CHECKF(used == b.len, "seed %" PRIu64 ": decode used %zu of %zu bytes", seed, used, b.len);
          const char *diff = back.npaths == t.npaths ? NULL : "npaths";
          for (uint32_t i = 0; !diff && i < t.npaths; i++) {
            if (t.paths[i].prev_fn != back.paths[i].prev_fn || t.paths[i].prev_site != back.paths[i].prev_site)
              diff = "previous call";
            else if (!(diff = dstat_diff(&t.paths[i].compute, &back.paths[i].compute, merged)))
              diff = dstat_diff(&t.paths[i].duration, &back.paths[i].duration, merged);
          }
          CHECKF(!diff, "seed %" PRIu64 " mode %d merged %d: decoded %s differs", seed, mode, merged, diff);
          timing_valid(&back, (tf_timing_mode)mode, k, "decoded", seed);
          /* what was decoded encodes to the same bytes (while means, doubles, hold integers exactly) */
          int exact = 1;
          for (uint32_t i = 0; i < t.npaths; i++)
            exact = exact && t.paths[i].compute.max < (1ull << 53) && t.paths[i].duration.max < (1ull << 53);
          tf_timing_encode(&again, &back, merged);
          CHECKF(!exact || (again.len == b.len && memcmp(again.data, b.data, b.len) == 0),
                 "seed %" PRIu64 ": re-encoding differs", seed);
          /* the decoded timing merges like any other */
          CHECK(tf_timing_merge(&back, &t, k, 1, &m) == 0);
          timing_valid(&back, (tf_timing_mode)mode, k, "decoded and merged", seed);
          CHECK(tf_timing_count(&back) == 2 * tf_timing_count(&t));
          CHECK(m.bytes == timing_bytes(&t) + timing_bytes(&back));
        }
        if (mode == TF_TIMING_PATH) total_bytes += b.len, total_paths += t.npaths;
        tf_buf_free(&b);
        tf_buf_free(&again);
        tf_timing_free(&back, &m);
        tf_timing_free(&t, &m);
        CHECK(m.bytes == 0);
      }
  printf("   path mode: %.1f bytes per path encoded on average\n", (double)total_bytes / (double)total_paths);

  /* validation against the context: occurrences, mode, k, ranges */
  rng = 99;
  tf_mem m = {0};
  tf_timing t, back;
  random_timing(&t, TF_TIMING_PATH, 8, 1, 2000, &m);
  while (t.npaths < 2) {
    tf_timing_free(&t, &m);
    random_timing(&t, TF_TIMING_PATH, 8, 1, 2000, &m);
  }
  uint32_t maxbins = 0;
  for (uint32_t i = 0; i < t.npaths; i++)
    if (t.paths[i].compute.nbins > maxbins) maxbins = t.paths[i].compute.nbins;
  tf_buf b = {0};
  tf_timing_encode(&b, &t, 1);
  __int128 occ = tf_timing_count(&t);
  const char *why = NULL;
  tf_cursor c;
  CHECK(decode_bytes(b.data, b.len, &back, TF_TIMING_PATH, 8, occ + 1, 1, &m, &why, NULL) == -1 && why &&
        strstr(why, "occurrences"));
  CHECK(back.npaths == 0 && m.bytes == timing_bytes(&t));
  CHECK(decode_bytes(b.data, b.len, &back, TF_TIMING_PATH, 8, -1, 1, &m, &why, NULL) == 0); /* not checked */
  tf_timing_free(&back, &m);
  CHECK(decode_bytes(b.data, b.len, &back, TF_TIMING_HISTOGRAM, 8, occ, 1, &m, &why, NULL) == -1);
  if (maxbins > 1)
    CHECK(decode_bytes(b.data, b.len, &back, TF_TIMING_PATH, maxbins - 1, occ, 1, &m, &why, NULL) == -1 && why &&
          strstr(why, "bins"));
  c = (tf_cursor){b.data, b.data + b.len, 0};
  CHECK(tf_timing_decode(&c, &back, TF_TIMING_PATH, 8, occ, 1, 1, NSITES_T, NRANKS_T, &m, &why) == -1);
  c = (tf_cursor){b.data, b.data + b.len, 0};
  CHECK(tf_timing_decode(&c, &back, TF_TIMING_PATH, 8, occ, 1, NFUNCS_T, NSITES_T, 1, &m, &why) == -1 && why &&
        strstr(why, "rank"));
  CHECK(m.bytes == timing_bytes(&t));
  tf_buf_free(&b);
  tf_timing_free(&t, &m);

  /* hand-made encodings, each broken in one way */
  enum { NO = TF_TIMING_NONE, ST = TF_TIMING_STATS, HI = TF_TIMING_HISTOGRAM, PA = TF_TIMING_PATH };
  struct {
    int mode;
    uint32_t k;
    int occ;
    const char *why;
    uint8_t bytes[40];
    size_t len;
  } cases[] = {
      /* npaths 1, prev none, n 2, compute: min 5 range 5 sum 15 sd 2 nbins 0, duration the same */
      {ST, 0, 2, NULL, {1, 0, 2, 5, 5, 15, 2, 0, 5, 5, 15, 2, 0}, 13},
      {ST, 0, 2, "sum", {1, 0, 2, 5, 5, 21, 2, 0, 5, 5, 15, 2, 0}, 13},
      {ST, 0, 2, "sum", {1, 0, 2, 5, 5, 9, 2, 0, 5, 5, 15, 2, 0}, 13},
      {ST, 0, 2, "standard deviation", {1, 0, 2, 5, 5, 15, 4, 0, 5, 5, 15, 2, 0}, 13},
      {ST, 0, 2, "bins", {1, 0, 2, 5, 5, 15, 2, 1, 0, 11, 2, 5, 5, 5, 15, 2, 0}, 17},
      {NO, 0, 2, "mode none", {1, 0, 2, 5, 5, 15, 2, 0, 5, 5, 15, 2, 0}, 13},
      {ST, 0, 2, "one path", {0}, 1},
      {ST, 0, 0, "without samples", {1, 0, 0}, 15},
      {ST, 0, 2, "outside path mode", {1, 1, 0, 2, 5, 5, 15, 2, 0, 5, 5, 15, 2, 0}, 14},
      /* histogram, k 4: one bin from 5 - 1 = 4, width 7, count 2, mean offset 3 */
      {HI, 4, 2, NULL, {1, 0, 2, 5, 5, 15, 2, 1, 1, 7, 2, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "sum to the sample count", {1, 0, 2, 5, 5, 15, 2, 1, 1, 7, 1, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "exceed", {1, 0, 2, 5, 5, 15, 2, 1, 1, 7, 3, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "below the maximum", {1, 0, 2, 5, 5, 15, 2, 1, 1, 5, 2, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "below 0", {1, 0, 2, 5, 5, 15, 2, 1, 6, 17, 2, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "mean outside", {1, 0, 2, 5, 5, 15, 2, 1, 1, 7, 2, 8, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 21},
      {HI, 4, 2, "empty or overflowing", {1, 0, 2, 5, 5, 15, 2, 2, 1, 0, 0, 7, 2, 3, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 23},
      {HI, 4, 2, "outside 1..k", {1, 0, 2, 5, 5, 15, 2, 0, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 17},
      {HI, 1, 2, "outside 1..k", {1, 0, 2, 5, 5, 15, 2, 2, 1, 3, 1, 0, 4, 1, 0, 5, 5, 15, 2, 1, 0, 6, 2, 2}, 24},
      /* path mode, no bins (k 0): a path after function 2 (stored 3) at site 4, one after no call; then the
       * first path twice; a function and a site out of range (10 functions, 20 sites) */
      {PA, 0, 2, NULL, {2, 3, 4, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0, 0, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0}, 26},
      {PA, 0, 2, "same call", {2, 3, 4, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0, 3, 4, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0}, 27},
      {PA, 0, 1, "function out of range", {1, 11, 4, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0}, 14},
      {PA, 0, 1, "site out of range", {1, 3, 20, 1, 5, 0, 5, 0, 0, 5, 0, 5, 0, 0}, 14},
      /* max = 2 + (2^64 - 1) */
      {ST, 0, 2, "maximum", {1, 0, 2, 2, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1, 4, 0, 0, 5, 5, 15, 2, 0}, 22},
  };
  /* merged (ranks below 8): n 2, min 5, max 15, sum 20, sd 5, no bins, then
   * min_rank, max_rank, per-rank means lo and hi, their ranks */
  struct {
    const char *why;
    uint8_t bytes[40];
    size_t len;
  } merged_cases[] = {
      {NULL, {1, 0, 2, 5, 10, 20, 5, 0, 3, 4, 8, 12, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 0, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
      {"means not ordered", {1, 0, 2, 5, 10, 20, 5, 0, 3, 4, 12, 8, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 0, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
      {"means not ordered", {1, 0, 2, 5, 10, 20, 5, 0, 3, 4, 4, 12, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 0, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
      {"means not ordered", {1, 0, 2, 5, 10, 20, 5, 0, 3, 4, 8, 16, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 0, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
      {"rank out of range", {1, 0, 2, 5, 10, 20, 5, 0, 3, 8, 8, 12, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 0, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
      {"rank out of range", {1, 0, 2, 5, 10, 20, 5, 0, 3, 4, 8, 12, 5, 6, 5, 10, 20, 5, 0, 0, 0, 5, 15, 0, 9, 8, 4, 5, 6, 5, 10, 0, 0}, 33},
  };
  for (size_t i = 0; i < sizeof merged_cases / sizeof merged_cases[0]; i++) {
    why = NULL;
    size_t used = 0;
    int rc = decode_bytes(merged_cases[i].bytes, merged_cases[i].len, &back, TF_TIMING_STATS, 0, 2, 1, &m, &why, &used);
    if (!merged_cases[i].why)
      CHECKF(rc == 0 && used == merged_cases[i].len && back.paths[0].compute.max_rank == 4 &&
                 back.paths[0].compute.rmean_hi == 12 && back.paths[0].duration.rmean_lo == 5 &&
                 back.compute.lo == 8 && back.compute.hi == 12 && back.compute.lo_rank == 5 &&
                 back.compute.hi_rank == 6 && back.duration.hi == 15,
             "merged case %zu: %s", i, why ? why : "bytes left or fields wrong");
    else
      CHECKF(rc == -1 && why && strstr(why, merged_cases[i].why), "merged case %zu: got %s, expected '%s'", i,
             rc ? why : "success", merged_cases[i].why);
    tf_timing_free(&back, &m);
    CHECK(m.bytes == 0);
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    why = NULL;
    size_t used = 0;
    int rc =
        decode_bytes(cases[i].bytes, cases[i].len, &back, cases[i].mode, cases[i].k, cases[i].occ, 0, &m, &why, &used);
    if (!cases[i].why)
      CHECKF(rc == 0 && used == cases[i].len, "hand-made case %zu: %s", i, why ? why : "bytes left");
    else
      CHECKF(rc == -1 && why && strstr(why, cases[i].why), "hand-made case %zu: got %s, expected '%s'", i,
             rc ? why : "success", cases[i].why);
    tf_timing_free(&back, &m);
    CHECK(m.bytes == 0);
  }
}

/* ====================================================== hostile input */

static void test_hostile(void) {
  uint64_t seed = 0;
  size_t truncations = 0, flips = 0, accepted = 0;
  for (int mode = TF_TIMING_NONE; mode <= TF_TIMING_PATH; mode++)
    for (int merged = 0; merged <= 1; merged++)
      for (int rep = 0; rep < 6; rep++) {
        rng = ++seed * 2654435761u;
        uint32_t k = 1 + (uint32_t)rndn(16);
        tf_mem m = {0};
        tf_timing t, back;
        random_timing(&t, (tf_timing_mode)mode, k, merged, 150, &m);
        tf_buf b = {0};
        tf_timing_encode(&b, &t, merged);
        __int128 occ = tf_timing_count(&t);
        size_t base = m.bytes;
        for (size_t len = 0; len < b.len; len++) {
          uint8_t *copy = malloc(len ? len : 1); /* exactly len bytes, so ASan sees any over-read */
          memcpy(copy, b.data, len);
          const char *why = NULL;
          int rc = decode_bytes(copy, len, &back, (tf_timing_mode)mode, k, occ, merged, &m, &why, NULL);
          CHECKF(rc == -1 && why && strcmp(why, "truncated time statistics") == 0,
                 "seed %" PRIu64 ": %zu of %zu bytes: %s", seed, len, b.len, rc ? why : "accepted");
          CHECK(back.npaths == 0 && back.paths == NULL && m.bytes == base);
          free(copy);
          truncations++;
        }
        for (int f = 0; f < 300; f++) {
          uint8_t *copy = malloc(b.len);
          memcpy(copy, b.data, b.len);
          for (int j = 0, nflips = 1 + (int)rndn(3); j < nflips; j++) copy[rndn(b.len)] ^= (uint8_t)(1u << rndn(8));
          const char *why = NULL;
          int rc = decode_bytes(copy, b.len, &back, (tf_timing_mode)mode, k, permille(500) ? occ : -1, merged, &m, &why,
                                NULL);
          if (rc == 0) { /* whatever was accepted is a valid timing */
            accepted++;
            timing_valid(&back, (tf_timing_mode)mode, k, "accepted flip", seed);
            tf_buf re = {0};
            tf_timing_encode(&re, &back, merged);
            tf_buf_free(&re);
          } else {
            CHECK(why != NULL && back.npaths == 0);
          }
          tf_timing_free(&back, &m);
          CHECK(m.bytes == base);
          free(copy);
          flips++;
        }
        tf_buf_free(&b);
        tf_timing_free(&t, &m);
        CHECK(m.bytes == 0);
      }
  printf("   %zu truncations rejected; %zu flipped encodings decoded safely (%zu accepted as valid)\n", truncations,
         flips, accepted);
}

/* ====================================================== compact summaries */

/* Every bin with samples holds a value of [min, max]: what readers show, the
 * bins cut to [min, max], is then contiguous (tf_node_path). */
static int bins_hold_samples(const tf_dstat *d, const char *what, uint64_t seed) {
  for (uint32_t i = 0; i < d->nbins; i++) {
    const tf_bin *b = &d->bins[i];
    int last = i + 1 == d->nbins;
    CHECKF(!b->n || (b->lo <= d->max && (last || b->hi > d->min)),
           "seed %" PRIu64 " %s: bin %u [%" PRIu64 ", %" PRIu64 ") holds %" PRIu64 " samples outside [%" PRIu64
           ", %" PRIu64 "]",
           seed, what, i, b->lo, b->hi, b->n, d->min, d->max);
    if (b->n && !(b->lo <= d->max && (last || b->hi > d->min))) return 0;
  }
  return 1;
}

/* d through its compact form (quantised: as in a file; else exact, as
 * between ranks) into back. 0, or -1 with why. */
static int compact_roundtrip(const tf_dstat *d, int merged, int quantise, uint32_t k, tf_dstat *back, tf_buf *b,
                             tf_mem *m, const char **why) {
  tf_buf_free(b);
  tf_dstat_encode_compact(b, d, merged, quantise);
  tf_cursor c = {b->data, b->data + b->len, 0};
  int rc = tf_dstat_decode_compact(&c, back, d->n, TF_TIMING_PATH, k, merged, NRANKS_T, m, why);
  if (!rc && c.p != b->data + b->len) rc = -1, *why = "bytes left over";
  return rc;
}

/* A summary of 9 samples around 1100 and one at 1322, its bins as a
 * histogram leaves them: the last, holding only the maximum, starts at it.
 * On the grid of 4 ns the writer once rounded that start up to 1324, above
 * the maximum: the bin read back held its sample outside [min, max], and
 * merged with another (a node's paths pooled) left the bins people see
 * apart (wl.nbconform: "bins not contiguous (hi 1324, lo 1329)"). */
static void failing_edges(tf_dstat *d, tf_bin *bins) {
  bins[0] = (tf_bin){.lo = 0, .hi = 1000, .mean = 0};
  bins[1] = (tf_bin){.lo = 1000, .hi = 1322, .n = 9, .mean = 1100, .m2 = 900};
  bins[2] = (tf_bin){.lo = 1322, .hi = 2644, .n = 1, .mean = 1322};
  *d = (tf_dstat){.n = 10, .min = 1000, .max = 1322, .sum = 9 * 1100 + 1322, .bins = bins, .nbins = 3};
  tf_dstat_set_m2(d, 44000);
}

static void test_compact(void) {
  tf_mem m = {0};
  tf_buf b = {0}, again = {0};
  const char *why = NULL;
  /* the failing case, deterministic: read back and merged, its bins hold their samples */
  tf_bin fb[3];
  tf_tpath one = {0}, merged = {0};
  failing_edges(&one.compute, fb);
  CHECK(dstat_valid(&one.compute, 8, 1, "failing edges", 0) && bins_hold_samples(&one.compute, "failing edges", 0));
  tf_dstat back;
  int rc = compact_roundtrip(&one.compute, 0, 1, 8, &back, &b, &m, &why);
  CHECKF(rc == 0, "failing edges: %s", rc ? why : "");
  if (rc == 0) {
    dstat_valid(&back, 8, 1, "failing edges read back", 0);
    bins_hold_samples(&back, "failing edges read back", 0);
    tf_tpath p = {.compute = back}, q = {0};
    tf_dstat other;
    failing_edges(&q.compute, fb);
    q.compute.max = 1329, q.compute.sum += 7, fb[2].mean = 1329; /* the other path: its maximum further up */
    CHECK(compact_roundtrip(&q.compute, 0, 1, 8, &other, &b, &m, &why) == 0);
    q.compute = other;
    for (int side = 0; side < 2; side++) /* duration as compute: a path's two summaries merge together */
      CHECK(tf_dstat_decode_compact(&(tf_cursor){b.data, b.data + b.len, 0}, side ? &q.duration : &p.duration, 10,
                                    TF_TIMING_PATH, 8, 0, NRANKS_T, &m, &why) == 0);
    CHECK(tf_tpath_merge(&merged, &p, 8, 1, &m) == 0 && tf_tpath_merge(&merged, &q, 8, 1, &m) == 0);
    dstat_valid(&merged.compute, 8, 1, "failing edges merged", 0);
    bins_hold_samples(&merged.compute, "failing edges merged", 0);
    CHECK(merged.compute.n == 20 && merged.compute.min == 1000 && merged.compute.max == 1329);
    tf_tpath_free(&p, &m);
    tf_tpath_free(&q, &m);
    tf_tpath_free(&merged, &m);
  }
  /* random summaries: quantised, what is exact stays exact, the bins valid and holding their samples, a
   * decoded summary encodes to the same bytes; exact (between ranks), everything as the plain codec keeps it */
  uint64_t seed = 0;
  size_t bytes[2] = {0, 0};
  for (int rep = 0; rep < 200; rep++) {
    rng = ++seed * 40503;
    uint32_t k = 1 + (uint32_t)rndn(TF_BINS_MAX);
    int mg = (int)(seed & 1);
    tf_timing t;
    random_timing(&t, TF_TIMING_PATH, k, mg, 3000, &m);
    for (uint32_t i = 0; i < t.npaths; i++)
      for (int side = 0; side < 2; side++) {
        const tf_dstat *d = side ? &t.paths[i].duration : &t.paths[i].compute;
        bins_hold_samples(d, "recorded", seed);
        for (int quantise = 0; quantise <= 1; quantise++) {
          rc = compact_roundtrip(d, mg, quantise, k, &back, &b, &m, &why);
          CHECKF(rc == 0, "seed %" PRIu64 " quantise %d: %s", seed, quantise, rc ? why : "");
          if (rc) continue;
          bytes[quantise] += b.len;
          if (!quantise) {
            const char *diff = dstat_diff(d, &back, mg);
            CHECKF(!diff, "seed %" PRIu64 ": exact compact form: %s differs", seed, diff);
          } else {
            CHECKF(back.n == d->n && back.min == d->min && back.max == d->max && back.sum == d->sum,
                   "seed %" PRIu64 ": count, min, max or sum not kept", seed);
            CHECKF(back.nbins <= d->nbins || d->n <= 2, "seed %" PRIu64 ": %u bins from %u", seed, back.nbins,
                   d->nbins);
            if (d->n <= 2 && k > 1 && d->max <= UINT64_MAX / 4) /* one or two samples: the bins are the samples */
              CHECKF(back.nbins == 1 + (d->min < d->max) && back.bins[0].n == (d->min < d->max ? 1 : d->n) &&
                         back.bins[0].mean == (double)d->min,
                     "seed %" PRIu64 ": bins of %" PRIu64 " samples not implied (%u bins, min %" PRIu64 ")", seed, d->n, back.nbins, d->min);
            dstat_valid(&back, k, 1, "quantised", seed);
            bins_hold_samples(&back, "quantised", seed);
            tf_buf_free(&again);
            tf_dstat_encode_compact(&again, &back, mg, 1);
            CHECKF(d->max >= (1ull << 53) || (again.len == b.len && memcmp(again.data, b.data, b.len) == 0),
                   "seed %" PRIu64 ": re-encoding differs", seed);
          }
          tf_dstat_free(&back, &m);
        }
      }
    /* the paths read back from a file, pooled (what readers show) */
    tf_timing read = {.paths = calloc(t.npaths ? t.npaths : 1, sizeof(tf_tpath)), .npaths = t.npaths};
    m.bytes += (size_t)t.npaths * sizeof(tf_tpath); /* as tf_timing_free accounts it */
    for (uint32_t i = 0; i < t.npaths; i++) {
      tf_tpath *p = &read.paths[i];
      *p = (tf_tpath){.prev_fn = t.paths[i].prev_fn, .prev_site = t.paths[i].prev_site};
      CHECK(compact_roundtrip(&t.paths[i].compute, mg, 1, k, &p->compute, &b, &m, &why) == 0);
      CHECK(compact_roundtrip(&t.paths[i].duration, mg, 1, k, &p->duration, &b, &m, &why) == 0);
    }
    tf_tpath all;
    CHECK(tf_timing_total(&read, k, &all, &m) == 0);
    dstat_valid(&all.compute, k, 1, "read back and pooled", seed);
    bins_hold_samples(&all.compute, "read back and pooled", seed);
    bins_hold_samples(&all.duration, "read back and pooled", seed);
    tf_tpath_free(&all, &m);
    tf_timing_free(&read, &m);
    tf_timing_free(&t, &m);
  }
  /* forged encodings: rejected with the reason */
  static const struct {
    uint8_t bytes[16];
    size_t len;
    const char *why;
  } forged[] = {
      /* n 2, min 10, range 5; 2 bins from 10: [10, 16) empty, [16, 19] with both samples, above max 15 */
      {{10, 5, 2, 0, 0, 6, 0, 3, 0}, 9, "time statistics: a bin with samples outside [min, max]"},
      /* the first bin [5, 10) with a sample, below min 10 */
      {{10, 5, 2, 0, 5, 5, 1, 0, 6, 0}, 10, "time statistics: a bin with samples outside [min, max]"},
      /* bins ending at 14, below max 15 */
      {{10, 5, 1, 0, 0, 4, 0}, 7, "time statistics: bins end below the maximum"},
      /* on the file's grid (from min 10, step 1): bins ending at 14, below max 15 */
      {{10, 5, 1, 1, 4, 0}, 6, "time statistics: bins end below the maximum"},
      /* a grid of neither kind */
      {{10, 5, 1, 2, 0, 1, 0}, 7, "time statistics: unknown bin grid"},
  };
  for (size_t f = 0; f < sizeof forged / sizeof *forged; f++) {
    tf_cursor c = {forged[f].bytes, forged[f].bytes + forged[f].len, 0};
    why = NULL;
    rc = tf_dstat_decode_compact(&c, &back, 2, TF_TIMING_PATH, 8, 0, NRANKS_T, &m, &why);
    CHECKF(rc == -1 && why && strcmp(why, forged[f].why) == 0, "forged %zu: %s, want %s", f,
           rc ? (why ? why : "?") : "accepted", forged[f].why);
    for (size_t len = 0; len < forged[f].len; len++) { /* and every truncation */
      c = (tf_cursor){forged[f].bytes, forged[f].bytes + len, 0};
      CHECK(tf_dstat_decode_compact(&c, &back, 2, TF_TIMING_PATH, 8, 0, NRANKS_T, &m, &why) == -1);
    }
  }
  tf_buf_free(&b);
  tf_buf_free(&again);
  CHECKF(m.bytes == 0, "%zu bytes still accounted", m.bytes);
  printf("   compact summaries: %zu bytes exact, %zu quantised\n", bytes[0], bytes[1]);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"stats", test_stats},       {"algorithms", test_algorithms}, {"invariants", test_invariants},
      {"accuracy", test_accuracy}, {"merge_cost", test_merge_cost}, {"paths", test_paths},
      {"codec", test_codec},       {"hostile", test_hostile},     {"compact", test_compact},
  };
  return run_cases("test_timing", cases, TEST_NCASES(cases), argc, argv);
}
