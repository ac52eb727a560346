/* timing_impl.h — what the three files of the time summaries share
 * (timing.c: memory, statistics, bins, adding; timing_merge.c: merging
 * histograms and summaries; timing_codec.c: the encoding in trace files).
 * Internal to src/core/time/: nothing outside includes it. */
#ifndef TF_TIMING_IMPL_H
#define TF_TIMING_IMPL_H

#include <math.h>
#include <string.h>

#include "time/timing.h"

typedef unsigned __int128 u128;

/* A merge of two histograms first cuts both at cut points of either (at
 * most TF_BINS_MAX + 1 each): at most 2 * TF_BINS_MAX + 1 pieces. */
#define PIECES_MAX (2 * TF_BINS_MAX + 1)

static inline double clampd(double x, double lo, double hi) {
  if (!(x >= lo)) return lo; /* also NaN */
  return x > hi ? hi : x;
}

static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* x rounded to the nearest integer, limited to [lo, hi] (NaN: lo). */
static inline uint64_t round_within(double x, uint64_t lo, uint64_t hi) {
  if (!(x > (double)lo)) return lo;
  if (x >= (double)hi) return hi;
  uint64_t r = (uint64_t)(x + 0.5);
  return r < lo ? lo : r > hi ? hi : r;
}

static inline uint32_t bins_cap(uint32_t k) { return k < TF_BINS_MAX ? k : TF_BINS_MAX; }

/* Bins per histogram for a mode: 0 when the mode keeps none. */
static inline uint32_t mode_bins(tf_timing_mode mode, uint32_t k) {
  return mode == TF_TIMING_HISTOGRAM || mode == TF_TIMING_PATH ? bins_cap(k) : 0;
}

static inline void bin_empty(tf_bin *b, uint64_t lo, uint64_t hi) { *b = (tf_bin){.lo = lo, .hi = hi, .mean = (double)lo}; }

static inline void bin_clamp_mean(tf_bin *b) {
  if (!b->n) {
    b->mean = (double)b->lo;
    b->m2 = 0;
  } else {
    b->mean = clampd(b->mean, (double)b->lo, (double)b->hi);
    if (!(b->m2 > 0)) b->m2 = 0;
  }
}

static inline int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* Bin arrays: exactly n bins, accounted in m; NULL (m->failed) when out of memory. */
tf_bin *tf_bins_alloc(uint32_t n, tf_mem *m);
void tf_bins_release(tf_bin *b, uint32_t n, tf_mem *m);
int tf_timing_paths_append(tf_timing *t, const tf_tpath *p, tf_mem *m);
void tf_dstat_union_sq(tf_dstat *out, const tf_dstat *a, const tf_dstat *b);
void tf_bin_absorb(tf_bin *a, const tf_bin *b);
void tf_bins_merge_pair(tf_bin *b, uint32_t n, uint32_t pair);
void tf_bin_spread(const tf_bin *b, int last, uint64_t dmin, uint64_t dmax, double *centre, double *half);
double tf_bins_merge_cost(const tf_bin *a, const tf_bin *b, int b_last, uint64_t dmin, uint64_t dmax);
int tf_hist_add(tf_dstat *d, uint64_t v, uint32_t k, tf_mem *m);
/* The path of t that follows (prev_fn, prev_site), or NULL. */
tf_tpath *tf_timing_path_find(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site);

#endif
