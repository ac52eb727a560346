/* timing.h — what a trace keeps of the delta times of one folded event
 * (doc/TIMING.md; encoding in doc/FORMAT.md).
 *
 * Every occurrence of an event has two deltas: compute (time since the
 * previous MPI call of its thread returned, or in time-independent mode a
 * volume: instructions or CPU ns) and duration (the call itself). Per
 * TRACEFOLD_TIMING an event keeps:
 *   none       nothing;
 *   stats      one distribution summary (tf_dstat) per delta: count, exact
 *              min, max, sum and sum of squares (the variance);
 *   histogram  the same plus at most k dynamically balanced bins
 *              (Algorithms 1 and 2 of the timing paper);
 *   path       one (compute, duration) pair per preceding call (function
 *              and call site of the previous event on the thread), each
 *              with bins, so that loop entry, iteration and exit deltas
 *              stay apart.
 * A summary with its paths is a tf_timing. Adding a sample is O(k);
 * merging two summaries (folding inside a rank, or merging ranks) is
 * O(k + paths), independent of how many samples they hold. In a merged
 * trace each summary also keeps the rank of its smallest and largest
 * sample and the smallest and largest per-rank mean with their ranks.
 */
#ifndef TF_TIMING_H
#define TF_TIMING_H

#include <stdint.h>

#include "util/bytes.h"
#include "tracefold.h"
#include "util/mem.h"

#define TF_BINS_MAX 64    /* TRACEFOLD_BINS accepts 1..TF_BINS_MAX */
#define TF_BINS_DEFAULT 5 /* as in the paper's experiments */
#define TF_TIMING_DEFAULT TF_TIMING_PATH /* TRACEFOLD_TIMING unset (doc/TIMING.md says why) */
#define TF_PREV_NONE UINT32_MAX /* no previous event on the thread (or not path mode) */

typedef struct tf_bin {
  uint64_t lo, hi; /* holds samples v with lo <= v < hi; the last bin also v == hi */
  uint64_t n;      /* samples in the bin (after a split: the estimate of Algorithm 2) */
  double mean, m2; /* of those samples (m2 is kept in memory only, not in files) */
} tf_bin;

typedef struct tf_dstat {
  uint64_t n;              /* samples */
  uint64_t min, max, sum;  /* exact; min = max = sum = 0 when n == 0 */
  uint64_t sq_lo, sq_hi;   /* the sum of the samples' squares, 128-bit fixed point (timing.c),
                              saturating: exact for recorded samples, from the deviation for
                              a summary read from a file; tf_dstat_m2 and tf_dstat_set_m2 convert */
  /* merged traces only (a rank's own data: all four ranks are that rank) */
  int32_t min_rank, max_rank;      /* rank of the smallest / largest sample */
  double rmean_lo, rmean_hi;       /* smallest / largest mean of one rank's samples */
  int32_t rmean_lo_rank, rmean_hi_rank;
  uint32_t nbins; /* histogram and path modes: 1..k once n > 0, sorted, contiguous */
  tf_bin *bins;
} tf_dstat;

typedef struct tf_tpath {
  uint32_t prev_fn, prev_site; /* path mode: the previous event (site: index into the
                                  trace's call sites); otherwise TF_PREV_NONE */
  tf_dstat compute, duration;
} tf_tpath;

/* Merged traces: the smallest and largest mean of one rank's occurrences of
 * the event over all its paths (the per-path extremes cannot give it). */
typedef struct tf_rankmeans {
  double lo, hi;
  int32_t lo_rank, hi_rank;
} tf_rankmeans;
/* The per-rank mean extremes of two rank sets together, into a (ties keep a's). */
void tf_rankmeans_merge(tf_rankmeans *a, const tf_rankmeans *b);

typedef struct tf_timing {
  uint32_t npaths; /* 0 in mode none; 1 in stats and histogram modes */
  uint32_t last;   /* tf_timing_add: the path it found last, looked at first (a hint: checked) */
  tf_tpath *paths;
  tf_rankmeans compute, duration; /* merged traces only (tf_timing_set_rank) */
} tf_timing;

/* Add one occurrence (mode none: nothing). k = bins per histogram. In path
 * mode the path of (prev_fn, prev_site) is found or created; other modes
 * ignore prev. 0, or -1 out of memory (m->failed set; t stays valid). */
int tf_timing_add(tf_timing *t, tf_timing_mode mode, uint32_t k, uint32_t prev_fn, uint32_t prev_site,
                  uint64_t compute, uint64_t duration, tf_mem *m);

/* Merge b into a (b unchanged). Paths are matched by (prev_fn, prev_site),
 * which the caller has made comparable. across_ranks: a and b hold
 * different ranks (the per-rank mean extremes then combine; otherwise a and
 * b are the same rank and the per-rank mean is recomputed). Bins of the
 * result: at most k. 0, or -1 out of memory. */
int tf_timing_merge(tf_timing *a, const tf_timing *b, uint32_t k, int across_ranks, tf_mem *m);

/* A deep copy. 0 or -1. */
int tf_timing_copy(tf_timing *dst, const tf_timing *src, tf_mem *m);

/* One path: merge b into a (both summaries, or neither, change: 0 or -1
 * out of memory); a deep copy (0 or -1); free. */
int tf_tpath_merge(tf_tpath *a, const tf_tpath *b, uint32_t k, int across_ranks, tf_mem *m);
int tf_tpath_copy(tf_tpath *dst, const tf_tpath *src, tf_mem *m);
void tf_tpath_free(tf_tpath *p, tf_mem *m);

/* ---- rank groups (merged traces; doc/TIMING.md "Rank groups")
 * In a merged trace each path of an event keeps one summary pair (compute
 * and duration) per group of ranks whose compute delays agree: what replay
 * and simulation draw from. Two summaries of one path agree when their
 * compute means m_a, m_b
 *   - differ by at most TF_GROUP_TOLERANCE of the larger, or
 *   - differ so little that sharing one summary moves at most
 *     TF_GROUP_FLOOR (ns, or units of a time-independent trace) between
 *     them: |m_a - m_b| n_a n_b / (n_a + n_b), the change of each side's
 *     total when both take the pooled mean, or
 *   - (`noise`: both summaries pool several ranks already) differ by less
 *     than TF_GROUP_Z standard errors of the difference, sqrt(var_a / n_a +
 *     var_b / n_b), and by at most TF_GROUP_NOISE_MAX of the larger: what
 *     the samples cannot tell from noise. A rank alone keeps its own
 *     delays on that ground (each rank's recorded time is what replay
 *     gives back); only the caps pool it.
 * A path keeps at most TF_GROUPS_MAX groups, whose rank lists take at most
 * TF_GROUP_RANK_ITEMS value-sequence items together (ranks that noise
 * alone sets apart make irregular lists, which cost bytes in proportion to
 * the ranks); beyond either, the pair whose merge moves the least compute
 * time merges. */
#define TF_GROUP_TOLERANCE 0.01
#define TF_GROUP_FLOOR 1000.0
#define TF_GROUP_Z 3.0
#define TF_GROUP_NOISE_MAX 0.10
#define TF_GROUPS_MAX 8
#define TF_GROUP_RANK_ITEMS 8
/* The compute time sharing one summary would move (ns or units): what the
 * caps minimise. */
double tf_tpath_moved(const tf_tpath *a, const tf_tpath *b);
/* 1 when a's and b's compute deltas agree (as above; noise: the third
 * ground is open), else 0. */
int tf_tpath_agree(const tf_tpath *a, const tf_tpath *b, int noise);

/* One summary in a file (part 4 "summary"; merged: with the rank fields):
 * encode (nothing when d->n is 0: the count is the caller's), and decode n
 * samples' summary with every check of tf_timing_decode. 0, or -1 with a
 * reason in *why. */
void tf_dstat_encode(tf_buf *b, const tf_dstat *d, int merged);
int tf_dstat_decode(tf_cursor *c, tf_dstat *d, uint64_t n, tf_timing_mode mode, uint32_t k, int merged, int32_t nranks,
                    tf_mem *m, const char **why);

/* The same in the compact form of merged traces from version 5 (doc/FORMAT.md
 * 4.10; summary_compact.c): quantise 1 puts the bins on a grid of at most
 * 100 steps over [min, max] (a file), 0 keeps them exact (between ranks,
 * where the summaries are merged again). */
void tf_dstat_encode_compact(tf_buf *b, const tf_dstat *d, int merged, int quantise);
/* A summary's per-rank mean extremes as a reader of the file gets them
 * (rounded into [min, max]); one_rank >= 0: the summary is that rank's
 * alone (its group holds one rank, whose fields are not written). */
void tf_dstat_rmeans_written(const tf_dstat *d, int32_t one_rank, uint64_t *lo, uint64_t *hi, int32_t *lo_rank,
                             int32_t *hi_rank);
int tf_dstat_decode_compact(tf_cursor *c, tf_dstat *d, uint64_t n, tf_timing_mode mode, uint32_t k, int merged,
                            int32_t nranks, tf_mem *m, const char **why);

/* Mark every summary as `rank`'s own (merged-trace fields). */
void tf_timing_set_rank(tf_timing *t, int32_t rank);

/* The path taken after (prev_fn, prev_site): that path, else NULL. */
const tf_tpath *tf_timing_find(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site);

/* All paths summed into one (bins merged to at most k; its per-rank mean
 * extremes are the event's, tf_rankmeans). 0 or -1. */
int tf_timing_total(const tf_timing *t, uint32_t k, tf_tpath *out, tf_mem *m);

uint64_t tf_timing_count(const tf_timing *t); /* occurrences: the paths' compute counts summed */
/* Split `total` over n parts in proportion to w[i] (largest remainders,
 * ties to the first; rem[0..n): scratch): out[i] sums to total. */
void tf_share_counts(const double *w, uint32_t n, uint64_t total, uint64_t *out, double *rem);
/* A rank's projection from a merged trace carries, on each path, its rank
 * group's summaries: cut them down to the rank's own share of `occ`
 * occurrences, split over the paths in proportion to w[path] (the group's
 * count per rank; largest remainders, so the counts sum to occ exactly;
 * paths left with none are dropped). Counts, sums, spreads and bins scale;
 * means, extremes and bin edges stay. Used to merge a trace's ranks again
 * (tf_mtrace_remerge) without counting a group's samples once per rank. */
void tf_timing_share(tf_timing *t, const double *w, uint64_t occ, tf_mem *m);
double tf_dstat_mean(const tf_dstat *d);
double tf_dstat_stddev(const tf_dstat *d); /* population standard deviation */
/* M2, the sum of squared deviations from the mean: sq - sum^2 / n (0 once
 * the sum or the squares have saturated: the mean is no longer known). */
double tf_dstat_m2(const tf_dstat *d);
/* Set the squares so that tf_dstat_m2 gives m2 (to within 1; n and sum set first). */
void tf_dstat_set_m2(tf_dstat *d, double m2);

/* How far the distribution a summary describes is from the exact samples
 * (any order): the 1-Wasserstein distance between the two, divided by the
 * exact mean (not divided when that mean is 0). The summary's distribution:
 * with bins, each bin's count spread uniformly over the widest interval
 * centred on its mean inside the bin and inside [min, max]; without bins,
 * all mass at the mean. 0 for no samples, NaN if d is empty or memory is
 * short. O(n log n). */
double tf_dstat_w1_error(const tf_dstat *d, const uint64_t *exact, size_t n);

void tf_dstat_free(tf_dstat *d, tf_mem *m);
void tf_timing_free(tf_timing *t, tf_mem *m);

/* Encoding (doc/FORMAT.md "Timing"). merged: with the rank fields.
 * decode validates: the paths' counts sum to `occ` for both deltas (mode
 * none: no paths; occ < 0: not checked), min <= mean <= max, bins contiguous,
 * covering [min, max] and summing to n, at most k of them, prev functions
 * below nfuncs and sites below ncallsites, ranks below nranks. 0, or -1
 * with a reason in *why. */
void tf_timing_encode(tf_buf *b, const tf_timing *t, int merged);
int tf_timing_decode(tf_cursor *c, tf_timing *t, tf_timing_mode mode, uint32_t k, __int128 occ, int merged,
                     uint32_t nfuncs, uint32_t ncallsites, int32_t nranks, tf_mem *m, const char **why);

#endif
