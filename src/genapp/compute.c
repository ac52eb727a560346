/* compute.c — the compute before each call, as a calibrated busy-wait.
 *
 * The trace keeps each event's compute delay (the time from the previous
 * call's return to this call) as summaries per path and per group of ranks
 * whose delays agree (doc/TIMING.md). The program spends, before each
 * call, its rank's mean over the event's paths (--compute mean), or the
 * mean of a bin drawn from its rank's histogram of the most frequent path,
 * each bin with the probability of its share of the samples (--compute
 * histogram; the bins' means as the replay engine's src/replay/delay.c
 * spends them), times --scale: tfg_compute busy-waits until that long
 * after the previous call returned. Ranks with the same figure share one entry
 * (a table of rank lists, looked up once). */
#include <stdlib.h>
#include <string.h>

#include "genapp_impl.h"

/* rank r's mean compute (ns) over all paths of x: 1 and *mean, or 0 if r never calls it */
static int rank_mean(tfg_gen *g, const tf_mnode *x, int32_t r, double *mean) {
  const tf_node *n = (const tf_node *)x;
  double sum = 0, count = 0;
  tf_time_path p;
  for (uint32_t i = 0; i < tf_node_paths(n); i++)
    if (tf_node_path_rank(g->trace, n, i, r, &p) == 0 && p.compute.n) {
      sum += p.compute.mean * (double)p.compute.n;
      count += (double)p.compute.n;
    }
  if (count == 0) return 0;
  *mean = sum / count;
  return 1;
}

/* rank r's histogram of its most frequent path of x, as table text; 0 if none */
static int rank_bins(tfg_gen *g, const tf_mnode *x, int32_t r, tfg_text *t) {
  const tf_node *n = (const tf_node *)x;
  tf_time_path p, best;
  uint64_t most = 0;
  for (uint32_t i = 0; i < tf_node_paths(n); i++)
    if (tf_node_path_rank(g->trace, n, i, r, &p) == 0 && p.compute.n > most) {
      most = p.compute.n;
      best = p;
    }
  if (!most) return 0;
  if (!best.compute.nbins) { /* no bins kept: the mean */
    tfg_put(t, "{%.0f, 1}", best.compute.mean);
    return 1;
  }
  /* each bin as its mean, scaled so that the bins give the summary's exact sum (split bins hold estimated
   * counts), and its count: the draw's expectation is the recorded mean (a bin's edges can be far apart: the
   * balanced top bin runs to the largest sample) */
  const tf_time_stat *s = &best.compute;
  double implied = 0;
  for (uint32_t b = 0; b < s->nbins; b++) implied += (double)s->bins[b].n * s->bins[b].mean;
  double scale = implied > 0 && s->sum != UINT64_MAX ? (double)s->sum / implied : 1; /* a saturated sum says nothing */
  for (uint32_t b = 0; b < s->nbins; b++)
    tfg_put(t, "%s{%.0f, %llu}", b ? ", " : "", s->bins[b].mean * scale, (unsigned long long)s->bins[b].n);
  return 1;
}

/* The place of table hb_<id> among the histograms (tfg_hists, genapp.c), added if new. */
static int64_t hist_index(tfg_gen *g, uint32_t id, const char *bins) {
  for (uint32_t i = 0; i < g->nhists; i++)
    if (g->hists[i] == id) return i;
  if (g->nhists == g->caphists) {
    uint32_t cap = g->caphists ? 2 * g->caphists : 32;
    uint32_t *h = realloc(g->hists, cap * sizeof *h), *nb = h ? realloc(g->hist_nb, cap * sizeof *nb) : NULL;
    if (h) g->hists = h;
    if (!h || !nb) {
      g->code.failed = 1;
      return 0;
    }
    g->hist_nb = nb;
    g->caphists = cap;
  }
  uint32_t nb = 1;
  for (const char *p = bins ? bins : ""; *p; p++) nb += *p == '}' && p[1] == ',';
  g->hists[g->nhists] = id;
  g->hist_nb[g->nhists] = nb;
  return g->nhists++;
}

void tfg_compute_stmt(tfg_gen *g, const tf_mnode *x, tfg_text *t) {
  if (g->opt->compute == TFG_COMPUTE_NONE) return;
  int32_t nr = g->mt->nranks;
  int64_t *value = calloc((size_t)nr + 1, sizeof *value);
  uint8_t *has = calloc((size_t)nr + 1, 1);
  if (!value || !has) {
    g->code.failed = 1;
    goto out;
  }
  uint32_t nhas = 0;
  int same = 1;
  for (int32_t r = 0; r < nr; r++) {
    if (g->opt->compute == TFG_COMPUTE_MEAN) {
      double m;
      if (!rank_mean(g, x, r, &m)) continue;
      value[r] = (int64_t)(m + 0.5);
    } else {
      tfg_text b = {0};
      if (!rank_bins(g, x, r, &b)) {
        tfg_text_free(&b);
        continue;
      }
      char name[32];
      tfg_table_name(g, "tfg_bin", "hb", b.p ? b.p : "", name, sizeof name);
      value[r] = hist_index(g, (uint32_t)atoi(name + 3), b.p);
      tfg_text_free(&b);
    }
    has[r] = 1;
    if (nhas++ && value[r] != value[0]) same = 0;
  }
  if (!nhas) goto out;
  char expr[64];
  if (same && nhas == (uint32_t)nr) snprintf(expr, sizeof expr, "%lld", (long long)value[0]);
  else {
    char name[32];
    tfg_constants_name(g, value, has, nr, name, sizeof name);
    snprintf(expr, sizeof expr, "tfg_pick(&%s)", name);
  }
  if (g->opt->compute == TFG_COMPUTE_MEAN) tfg_put(t, "tfg_compute(%s);\n", expr);
  else tfg_put(t, "tfg_compute(tfg_draw_table(%s));\n", expr);
out:
  free(value);
  free(has);
}
