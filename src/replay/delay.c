/* delay.c — how long to compute before each replayed call.
 *
 *   none       no delay: communication only;
 *   mean       the mean the trace keeps for the occurrence (its path's mean
 *              in path mode; the exact delta for flat traces);
 *   histogram  a bin of the occurrence's histogram, chosen so that over
 *              the replay each bin is chosen as often as its share of the
 *              samples, and that bin's mean. The bins are dealt by smooth
 *              weighted round robin (each draw adds every bin's count to
 *              its credit and takes the bin with the most, which pays the
 *              total back): over as many draws as the summary holds
 *              samples, every bin is chosen exactly as often as it holds
 *              samples, and the choices are spread evenly in between. So
 *              a rank whose rank group is its own (doc/TIMING.md "Rank
 *              groups") replays exactly the compute it recorded: the bins'
 *              means are scaled by the summary's exact sum over the sum
 *              the bins imply (split bins hold estimated counts, so the
 *              two differ by a fraction of a percent). The credits start at
 *              seeded fractions per event path (ties broken differently
 *              for each seed, rank and thread; reproducible). Without bins
 *              (stats mode), the mean.
 * The result is multiplied by --scale; time-independent traces (compute in
 * instructions or CPU ns) are converted to seconds by --rate.
 */
#include <stdlib.h>

#include "replay.h"

struct rp_draw {
  const void *key;               /* the summary (tf_rank_cursor_times) */
  double scale;                  /* its exact sum / the sum its bins imply */
  double credit[TF_TIME_BINS_MAX]; /* per bin */
};

const char *rp_delay_check(const rp_options *o, const tf_trace_info *info) {
  if (o->compute != RP_COMPUTE_NONE && info->source != TF_SOURCE_FLAT && info->timing == TF_TIMING_NONE)
    return "the trace keeps no times (recorded with TRACEFOLD_TIMING=none): replay it with --compute none";
  if (o->compute != RP_COMPUTE_NONE && info->unit == TF_UNIT_INSTRUCTIONS && o->rate <= 0)
    return "the trace is time-independent (compute in instructions): give --rate INSTRUCTIONS_PER_SECOND";
  return NULL;
}

static uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static struct rp_draw *draw_state(rp_thread *T, const void *key, const tf_time_stat *s) {
  for (uint32_t i = 0; i < T->ndraws; i++) /* few (event, path) pairs per rank */
    if (T->draws[i].key == key) return &T->draws[i];
  T->draws = rp_grow(T, T->draws, T->ndraws, &T->draws_cap, sizeof *T->draws);
  /* the start depends on the seed, the rank, the thread and the order in
   * which paths are first met: the same on every replay of one trace */
  uint64_t h = splitmix(T->E->opt.seed ^ splitmix(((uint64_t)T->E->rank << 20) ^ ((uint64_t)T->thread << 52) ^ T->ndraws));
  struct rp_draw *d = &T->draws[T->ndraws++];
  d->key = key;
  double implied = 0;
  for (uint32_t b = 0; b < s->nbins; b++) implied += (double)s->bins[b].n * (double)s->bins[b].mean;
  d->scale = implied > 0 && s->sum != UINT64_MAX ? (double)s->sum / implied : 1; /* a saturated sum says nothing */
  for (int b = 0; b < TF_TIME_BINS_MAX; b++) {
    h = splitmix(h);
    d->credit[b] = (double)(h >> 11) / 9007199254740992.0; /* in [0, 1): breaks ties only */
  }
  return d;
}

static uint64_t draw(rp_thread *T, const tf_time_stat *s, const void *key) {
  struct rp_draw *d = draw_state(T, key, s);
  double total = 0;
  for (uint32_t b = 0; b < s->nbins; b++) total += (double)s->bins[b].n;
  uint32_t best = 0;
  for (uint32_t b = 0; b < s->nbins; b++) {
    d->credit[b] += (double)s->bins[b].n;
    if (d->credit[b] > d->credit[best]) best = b;
  }
  if (!s->nbins || !(total > 0)) return (uint64_t)(s->mean + 0.5);
  d->credit[best] -= total;
  return (uint64_t)((double)s->bins[best].mean * d->scale + 0.5);
}

double rp_delay(rp_thread *T) {
  const rp_options *o = &T->E->opt;
  if (o->compute == RP_COMPUTE_NONE) return 0;
  uint64_t v = T->ev.compute_ns;
  if (o->compute == RP_COMPUTE_HISTOGRAM) {
    const tf_time_path *p = tf_rank_cursor_times(T->cur);
    if (p && p->compute.nbins) v = draw(T, &p->compute, p);
  }
  double s = T->E->info->unit == TF_UNIT_NS ? (double)v * 1e-9 : (double)v / o->rate;
  return s * o->scale;
}

void rp_draws_free(rp_thread *T) {
  free(T->draws);
  T->draws = NULL;
  T->ndraws = T->draws_cap = 0;
}
