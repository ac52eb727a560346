/* timing_codec.c — time summaries in trace files (doc/FORMAT.md part 4):
 * encode, and decode with every count, bin and path checked
 * against the event's occurrences. */
#include "time/timing_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void tf_dstat_encode(tf_buf *b, const tf_dstat *d, int merged) {
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
    tf_dstat_encode(b, &p->compute, merged);
    tf_dstat_encode(b, &p->duration, merged);
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
  if (!(d->bins = tf_bins_alloc((uint32_t)nbins, x->m))) return reject(x, "time statistics: out of memory");
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
  tf_dstat_set_m2(d, (double)sd * (double)sd * (double)n);
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

int tf_dstat_decode(tf_cursor *c, tf_dstat *d, uint64_t n, tf_timing_mode mode, uint32_t k, int merged, int32_t nranks,
                    tf_mem *m, const char **why) {
  *d = (tf_dstat){0};
  dec_ctx x = {.c = c, .max_bins = mode_bins(mode, k), .merged = merged, .nranks = nranks, .m = m};
  if (!n) return *why = "time statistics: a path without samples", -1;
  if (get_dstat(&x, d, n)) {
    tf_dstat_free(d, m);
    *why = x.why;
    return -1;
  }
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
