/* check_timing.c — checks what a merged trace keeps of delta times against
 * the exact deltas of the flat (reference) files of the same run
 * (TRACEFOLD_MODE=both). Public API only.
 *
 *   check_timing paths [--all] TRACE FUNC
 *     For every event node of FUNC, one line per path (--all: one line for
 *     TF_PATHS_ALL, "path all prev=(all)"):
 *       path <i> prev=<function|(start)|(any)> n=<count> mean=<ns> min=<ns> max=<ns> node=<j> cs=<sig>
 *            [bins=<lo>:<hi>:<n>@<mean>,...]
 *     (prev=(any): the trace keeps one path, stats or histogram mode.)
 *
 *   check_timing exact [--fn FUNC] TRACE FLATDIR
 *     The independent oracle. Groups the exact deltas of every rank's flat
 *     file by event key (function, thread, call site) and sums the trace's
 *     nodes per key (TF_PATHS_ALL of each node: counts and sums added, min
 *     of the mins, max of the maxes). Checks per key, for the compute and
 *     the duration delta:
 *       - the counts are equal; min, max and sum are equal (kept exactly);
 *       - the bins (when kept) sum to n, are sorted and contiguous, cover
 *         [min, max], and a non-empty bin's mean lies inside it; the
 *         paths' compute counts and sums add up to the node's;
 *       - the standard deviation is within 1% (+2 ns) of the exact
 *         population standard deviation (two-pass).
 *     Then the normalised 1-Wasserstein error of the compute distribution
 *     the trace describes: W1 = integral_0^1 |Q_exact(u) - Q_rec(u)| du /
 *     exact mean, with K = 2000 midpoints u = (k + 0.5) / K. Q_exact is the
 *     empirical quantile, Q_rec the quantile of the reconstruction: every
 *     bin's count spread uniformly over the bin, a summary without bins all
 *     its mass at its mean. Three reconstructions:
 *       w1     every path of every node, each bin cut to its summary's
 *              [min, max] (bins reach from 0 to twice the largest sample:
 *              outside [min, max] there are no samples) — what the trace keeps;
 *       w1all  each node's TF_PATHS_ALL summary (paths merged into k bins), cut;
 *       w1raw  TF_PATHS_ALL, each bin uniform over its whole [lo, hi].
 *     Output:
 *       key <fn> cs=<sig> thread=<t> n=<n> w1=<e> w1all=<e> w1raw=<e>
 *       overall w1=<count-weighted mean> w1all=<...> w1raw=<...> keys=<k>
 *     --fn FUNC: only the events of FUNC (its w1 on the overall line).
 *     Exit 1 with a message if any exact check fails, 2 on a usage or
 *     reading error.
 *
 *   check_timing ranks [--within PCT] TRACE FLATDIR
 *     Each rank's compute as the trace keeps it (the sum of the compute
 *     deltas its cursor reports: its rank groups' path means, doc/TIMING.md
 *     "Rank groups") against its exact compute (the flat files' deltas),
 *     MPI_Init's and MPI_Init_thread's aside (process start-up):
 *       rank <r> trace=<s> exact=<s> error=<%>
 *       worst error=<%> rank=<r> ranks=<P> groups=<total groups of all paths> paths=<paths> largest=<groups of one path>
 *     --within PCT: exit 1 if a rank is further off than PCT percent.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefold.h"

#define K_QUANT 2000

static int failures;
#define FAILF(...)                                                                                              \
  do {                                                                                                         \
    fprintf(stderr, "check_timing: FAIL: " __VA_ARGS__);                                                       \
    fputc('\n', stderr);                                                                                       \
    failures++;                                                                                                \
  } while (0)

static void die(const char *what) {
  fprintf(stderr, "check_timing: %s\n", what);
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory");
  return q;
}

/* ---------------------------------------------------------------- paths */

static void print_paths(const tf_trace *t, const tf_node *const *nodes, uint32_t n, const char *fn, int all,
                        int *nodeno) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      print_paths(t, ni.body, ni.nbody, fn, all, nodeno);
      continue;
    }
    if (strcmp(ti->funcs[ni.fn].name, fn) != 0) continue;
    int j = (*nodeno)++;
    uint32_t np = tf_node_paths(nodes[i]);
    uint32_t lines = all ? (np ? 1 : 0) : np;
    for (uint32_t line = 0; line < lines; line++) {
      uint32_t p = all ? TF_PATHS_ALL : line;
      tf_time_path tp;
      if (tf_node_path(t, nodes[i], p, &tp)) die("tf_node_path failed on an existing path");
      const char *prev = all                          ? "(all)"
                         : ti->timing != TF_TIMING_PATH ? "(any)"
                         : tp.has_prev                  ? ti->funcs[tp.prev_fn].name
                                                        : "(start)";
      char idx[16] = "all";
      if (!all) snprintf(idx, sizeof idx, "%u", p);
      printf("path %s prev=%s n=%" PRIu64 " mean=%.0f min=%" PRIu64 " max=%" PRIu64 " node=%d cs=%016" PRIx64, idx,
             prev, tp.compute.n, tp.compute.mean, tp.compute.min, tp.compute.max, j, ni.callsite);
      for (uint32_t b = 0; b < tp.compute.nbins; b++)
        printf("%s%" PRIu64 ":%" PRIu64 ":%" PRIu64 "@%" PRIu64, b ? "," : " bins=", tp.compute.bins[b].lo,
               tp.compute.bins[b].hi, tp.compute.bins[b].n, tp.compute.bins[b].mean);
      printf("\n");
    }
  }
}

static int cmd_paths(int argc, char **argv) {
  int all = argc >= 1 && strcmp(argv[0], "--all") == 0;
  argc -= all, argv += all;
  if (argc != 2) die("usage: check_timing paths [--all] TRACE FUNC");
  char err[1024];
  tf_trace *t;
  if (tf_trace_open(argv[0], 0, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "check_timing: %s\n", err);
    return 2;
  }
  const tf_node *const *top;
  uint32_t n = tf_trace_top(t, &top);
  int nodes = 0;
  print_paths(t, top, n, argv[1], all, &nodes);
  if (!nodes) fprintf(stderr, "check_timing: note: no event node of %s\n", argv[1]);
  tf_trace_close(t);
  return 0;
}

/* ---------------------------------------------------------------- exact */

/* a piece of the reconstructed distribution: n samples uniform on [lo, hi] (lo == hi: a point mass) */
typedef struct piece {
  double lo, hi, n;
} piece;

typedef struct pieces {
  piece *p;
  size_t n, cap;
} pieces;

static void piece_add(pieces *ps, double lo, double hi, double n) {
  if (n <= 0) return;
  if (ps->n == ps->cap) {
    ps->cap = ps->cap ? 2 * ps->cap : 16;
    ps->p = xrealloc(ps->p, ps->cap * sizeof *ps->p);
  }
  ps->p[ps->n++] = (piece){lo, hi, n};
}

/* what the trace says about one delta of one key (several nodes summed) */
typedef struct agg {
  uint64_t n, min, max, sum;
  double m2; /* combined from the nodes' mean and stddev (Chan et al.) */
  int any;
} agg;

static void agg_add(agg *a, const tf_time_stat *s) {
  if (!s->n) return;
  double mean_s = (double)s->sum / (double)s->n, m2_s = (double)s->n * s->stddev * s->stddev;
  if (!a->any) {
    *a = (agg){.n = s->n, .min = s->min, .max = s->max, .sum = s->sum, .m2 = m2_s, .any = 1};
    return;
  }
  double mean_a = (double)a->sum / (double)a->n, na = (double)a->n, nb = (double)s->n, d = mean_s - mean_a;
  a->m2 += m2_s + d * d * na * nb / (na + nb);
  a->n += s->n;
  a->sum += s->sum;
  if (s->min < a->min) a->min = s->min;
  if (s->max > a->max) a->max = s->max;
}

typedef struct key {
  char fn[64];
  uint32_t thread;
  uint64_t cs;
  /* exact */
  uint64_t *comp, *dur;
  size_t nexact, cap;
  /* trace */
  agg tc, td;
  pieces rec, recall, recraw; /* per path cut to [min, max]; all paths cut; all paths uncut */
  int nnodes;
} key;

static key *keys;
static size_t nkeys, capkeys;

static key *key_get(const char *fn, uint32_t thread, uint64_t cs, int create) {
  for (size_t i = 0; i < nkeys; i++)
    if (keys[i].thread == thread && keys[i].cs == cs && strcmp(keys[i].fn, fn) == 0) return &keys[i];
  if (!create) return NULL;
  if (nkeys == capkeys) {
    capkeys = capkeys ? 2 * capkeys : 32;
    keys = xrealloc(keys, capkeys * sizeof *keys);
  }
  key *k = &keys[nkeys++];
  memset(k, 0, sizeof *k);
  snprintf(k->fn, sizeof k->fn, "%s", fn);
  k->thread = thread;
  k->cs = cs;
  return k;
}

static void read_exact(const char *dir, const char *only) {
  char err[1024];
  tf_trace *t;
  if (tf_trace_open(dir, TF_OPEN_PREFER_FLAT, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "check_timing: %s\n", err);
    exit(2);
  }
  const tf_trace_info *ti = tf_trace_get_info(t);
  if (ti->source != TF_SOURCE_FLAT) die("the reference directory holds no flat files (record with TRACEFOLD_MODE=both)");
  int present = 0;
  for (int32_t r = 0; r < ti->nranks; r++) {
    if (!tf_trace_rank(t, r, NULL, NULL)) continue;
    present++;
    tf_rank_cursor *c;
    if (tf_rank_cursor_open(t, r, &c, err, sizeof err) != TF_OK) {
      fprintf(stderr, "check_timing: %s\n", err);
      exit(2);
    }
    tf_event ev;
    int rc;
    while ((rc = tf_rank_cursor_next(c, &ev)) == 1) {
      const char *fn = ti->funcs[ev.fn].name;
      if (only && strcmp(fn, only) != 0) continue;
      key *k = key_get(fn, ev.thread, ev.callsite, 1);
      if (k->nexact == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        k->comp = xrealloc(k->comp, k->cap * sizeof *k->comp);
        k->dur = xrealloc(k->dur, k->cap * sizeof *k->dur);
      }
      k->comp[k->nexact] = ev.compute_ns;
      k->dur[k->nexact++] = ev.duration_ns;
    }
    if (rc < 0) {
      fprintf(stderr, "check_timing: %s\n", tf_rank_cursor_error(c));
      exit(2);
    }
    tf_rank_cursor_close(c);
  }
  printf("reference: %s, %d ranks of flat files\n", dir, present);
  tf_trace_close(t);
}

/* bins of one summary: sorted, contiguous, covering [min, max], summing to
 * n, every non-empty bin's mean inside the bin */
static void check_bins(const key *k, const char *what, const tf_time_stat *s) {
  if (!s->nbins) return;
  uint64_t sum = 0;
  for (uint32_t b = 0; b < s->nbins; b++) {
    const tf_time_bin *x = &s->bins[b];
    sum += x->n;
    if (x->lo > x->hi) FAILF("%s cs=%016" PRIx64 " %s: bin %u has lo %" PRIu64 " > hi %" PRIu64, k->fn, k->cs, what, b,
                             x->lo, x->hi);
    if (b && s->bins[b - 1].hi != x->lo)
      FAILF("%s cs=%016" PRIx64 " %s: bins %u and %u are not contiguous (hi %" PRIu64 ", lo %" PRIu64 ")", k->fn, k->cs,
            what, b - 1, b, s->bins[b - 1].hi, x->lo);
    if (x->n && (x->mean < x->lo || x->mean > x->hi))
      FAILF("%s cs=%016" PRIx64 " %s: bin %u [%" PRIu64 ", %" PRIu64 "] has its mean %" PRIu64 " outside", k->fn, k->cs,
            what, b, x->lo, x->hi, x->mean);
  }
  if (s->n && (s->bins[0].lo > s->min || s->bins[s->nbins - 1].hi < s->max))
    FAILF("%s cs=%016" PRIx64 " %s: the bins [%" PRIu64 ", %" PRIu64 "] do not cover [min %" PRIu64 ", max %" PRIu64 "]",
          k->fn, k->cs, what, s->bins[0].lo, s->bins[s->nbins - 1].hi, s->min, s->max);
  if (sum != s->n)
    FAILF("%s cs=%016" PRIx64 " %s: the bins hold %" PRIu64 " samples, the summary %" PRIu64, k->fn, k->cs, what, sum,
          s->n);
}

/* The reconstruction of one summary. Bins: each bin's count uniform over
 * the bin; `cut`: over the bin cut to the summary's [min, max] (where its
 * samples can be: bins may reach from 0 to twice the largest sample). No
 * bins: all mass at the mean. */
static void add_recon(pieces *ps, const tf_time_stat *s, int cut) {
  if (!s->n) return;
  if (!s->nbins) {
    piece_add(ps, s->mean, s->mean, (double)s->n);
    return;
  }
  for (uint32_t b = 0; b < s->nbins; b++) {
    double lo = (double)s->bins[b].lo, hi = (double)s->bins[b].hi;
    if (cut) {
      double clo = fmax(lo, (double)s->min), chi = fmin(hi, (double)s->max);
      if (clo <= chi) lo = clo, hi = chi;
    }
    piece_add(ps, lo, hi, (double)s->bins[b].n);
  }
}

static void read_trace_nodes(const tf_trace *t, const tf_node *const *nodes, uint32_t n, const char *only) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      read_trace_nodes(t, ni.body, ni.nbody, only);
      continue;
    }
    const char *fn = ti->funcs[ni.fn].name;
    if (only && strcmp(fn, only) != 0) continue;
    key *k = key_get(fn, ni.thread, ni.callsite, 0);
    if (!k) {
      FAILF("the trace has an event %s thread %u cs=%016" PRIx64 " that no flat file has", fn, ni.thread, ni.callsite);
      k = key_get(fn, ni.thread, ni.callsite, 1);
    }
    k->nnodes++;
    uint32_t np = tf_node_paths(nodes[i]);
    if (!np) {
      FAILF("%s cs=%016" PRIx64 ": an event node keeps no paths", fn, ni.callsite);
      continue;
    }
    tf_time_path all;
    if (tf_node_path(t, nodes[i], TF_PATHS_ALL, &all)) {
      FAILF("%s cs=%016" PRIx64 ": tf_node_path(TF_PATHS_ALL) failed", fn, ni.callsite);
      continue;
    }
    if (all.compute.n != ni.occurrences)
      FAILF("%s cs=%016" PRIx64 ": the node occurs %" PRIu64 " times, its compute summary counts %" PRIu64, fn,
            ni.callsite, ni.occurrences, all.compute.n);
    agg_add(&k->tc, &all.compute);
    agg_add(&k->td, &all.duration);
    check_bins(k, "compute (all paths)", &all.compute);
    check_bins(k, "duration (all paths)", &all.duration);
    add_recon(&k->recall, &all.compute, 1);
    add_recon(&k->recraw, &all.compute, 0);
    uint64_t pn = 0, psum = 0;
    for (uint32_t p = 0; p < np; p++) {
      tf_time_path tp;
      if (tf_node_path(t, nodes[i], p, &tp)) {
        FAILF("%s cs=%016" PRIx64 ": tf_node_path(%u) failed", fn, ni.callsite, p);
        continue;
      }
      pn += tp.compute.n;
      psum += tp.compute.sum;
      check_bins(k, "compute (one path)", &tp.compute);
      add_recon(&k->rec, &tp.compute, 1);
    }
    if (pn != all.compute.n || psum != all.compute.sum)
      FAILF("%s cs=%016" PRIx64 ": the paths hold %" PRIu64 " samples summing to %" PRIu64 ", all paths %" PRIu64
            " summing to %" PRIu64, fn, ni.callsite, pn, psum, all.compute.n, all.compute.sum);
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* CDF of the reconstruction at x (mass at or below x) */
static double rec_cdf(const pieces *ps, double x) {
  double f = 0;
  for (size_t i = 0; i < ps->n; i++) {
    const piece *p = &ps->p[i];
    if (x >= p->hi) f += p->n;
    else if (x > p->lo) f += p->n * (x - p->lo) / (p->hi - p->lo);
  }
  return f;
}

/* inf { x : F(x) >= u * total } by bisection */
static double rec_quantile(const pieces *ps, double total, double u) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < ps->n; i++) {
    if (ps->p[i].lo < lo) lo = ps->p[i].lo;
    if (ps->p[i].hi > hi) hi = ps->p[i].hi;
  }
  double target = u * total;
  if (rec_cdf(ps, lo) >= target) return lo;
  for (int it = 0; it < 200 && hi - lo > 1e-6 * (1 + fabs(hi)); it++) {
    double mid = 0.5 * (lo + hi);
    if (rec_cdf(ps, mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* normalised W1 between the sorted exact samples and the reconstruction */
static double w1_error(const uint64_t *sorted, size_t n, const pieces *ps, double exact_mean) {
  if (!n || !ps->n) return NAN;
  double total = 0;
  for (size_t i = 0; i < ps->n; i++) total += ps->p[i].n;
  double acc = 0;
  for (int k = 0; k < K_QUANT; k++) {
    double u = (k + 0.5) / K_QUANT;
    size_t idx = (size_t)ceil(u * (double)n); /* empirical quantile: the ceil(u n)-th smallest */
    if (idx < 1) idx = 1;
    if (idx > n) idx = n;
    acc += fabs((double)sorted[idx - 1] - rec_quantile(ps, total, u));
  }
  acc /= K_QUANT;
  return exact_mean > 0 ? acc / exact_mean : acc;
}

static void exact_stat(const uint64_t *v, size_t n, uint64_t *min, uint64_t *max, uint64_t *sum, double *sd) {
  *min = n ? v[0] : 0, *max = 0, *sum = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i] < *min) *min = v[i];
    if (v[i] > *max) *max = v[i];
    *sum += v[i];
  }
  double mean = n ? (double)*sum / (double)n : 0, m2 = 0;
  for (size_t i = 0; i < n; i++) m2 += ((double)v[i] - mean) * ((double)v[i] - mean);
  *sd = n ? sqrt(m2 / (double)n) : 0;
}

static void compare(const key *k, const char *what, const uint64_t *v, size_t n, const agg *a) {
  uint64_t mn, mx, sum;
  double sd;
  exact_stat(v, n, &mn, &mx, &sum, &sd);
  const char *f = k->fn;
  if (a->n != n) {
    FAILF("%s cs=%016" PRIx64 " thread %u %s: count %" PRIu64 " in the trace, %zu exact", f, k->cs, k->thread, what,
          a->n, n);
    return;
  }
  if (!n) return;
  if (a->min != mn) FAILF("%s cs=%016" PRIx64 " %s: min %" PRIu64 " in the trace, %" PRIu64 " exact", f, k->cs, what, a->min, mn);
  if (a->max != mx) FAILF("%s cs=%016" PRIx64 " %s: max %" PRIu64 " in the trace, %" PRIu64 " exact", f, k->cs, what, a->max, mx);
  if (a->sum != sum) FAILF("%s cs=%016" PRIx64 " %s: sum %" PRIu64 " in the trace, %" PRIu64 " exact", f, k->cs, what, a->sum, sum);
  double tsd = a->m2 > 0 ? sqrt(a->m2 / (double)a->n) : 0;
  if (fabs(tsd - sd) > 0.01 * sd + 2.0)
    FAILF("%s cs=%016" PRIx64 " %s: stddev %.1f in the trace, %.1f exact (more than 1%% + 2 apart)", f, k->cs, what, tsd,
          sd);
}

static int cmd_exact(int argc, char **argv) {
  const char *only = NULL;
  if (argc >= 2 && strcmp(argv[0], "--fn") == 0) {
    only = argv[1];
    argc -= 2;
    argv += 2;
  }
  if (argc != 2) die("usage: check_timing exact [--fn FUNC] TRACE FLATDIR");
  read_exact(argv[1], only);

  char err[1024];
  tf_trace *t;
  if (tf_trace_open(argv[0], 0, &t, err, sizeof err) != TF_OK) {
    fprintf(stderr, "check_timing: %s\n", err);
    return 2;
  }
  const tf_trace_info *ti = tf_trace_get_info(t);
  if (ti->source == TF_SOURCE_FLAT) die("TRACE is flat files: give the merged trace (trace.tf)");
  if (ti->timing == TF_TIMING_NONE) {
    fprintf(stderr, "check_timing: %s keeps no times (TRACEFOLD_TIMING=none): nothing to check\n", argv[0]);
    tf_trace_close(t);
    return 1;
  }
  printf("trace: %s, timing %s, %u bins, compute in %s\n", argv[0], tf_timing_mode_name(ti->timing), ti->bins,
         tf_time_unit_name(ti->unit));
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(t, &top);
  read_trace_nodes(t, top, ntop, only);

  double wsum = 0, wpsum = 0, wrsum = 0, nsum = 0;
  size_t used = 0;
  for (size_t i = 0; i < nkeys; i++) {
    key *k = &keys[i];
    if (!k->nnodes) FAILF("%s thread %u cs=%016" PRIx64 ": %zu exact events, no node in the trace", k->fn, k->thread,
                          k->cs, k->nexact);
    compare(k, "compute", k->comp, k->nexact, &k->tc);
    compare(k, "duration", k->dur, k->nexact, &k->td);
    if (!k->nexact) continue;
    qsort(k->comp, k->nexact, sizeof *k->comp, cmp_u64);
    uint64_t sum = 0;
    for (size_t j = 0; j < k->nexact; j++) sum += k->comp[j];
    double mean = (double)sum / (double)k->nexact;
    double w = w1_error(k->comp, k->nexact, &k->rec, mean), wp = w1_error(k->comp, k->nexact, &k->recall, mean);
    double wr = w1_error(k->comp, k->nexact, &k->recraw, mean);
    printf("key %s cs=%016" PRIx64 " thread=%u n=%zu w1=%.6f w1all=%.6f w1raw=%.6f\n", k->fn, k->cs, k->thread,
           k->nexact, w, wp, wr);
    if (isnan(w) || isnan(wp) || isnan(wr)) continue;
    wsum += w * (double)k->nexact;
    wpsum += wp * (double)k->nexact;
    wrsum += wr * (double)k->nexact;
    nsum += (double)k->nexact;
    used++;
  }
  if (only && !nkeys) FAILF("no event of %s in the reference", only);
  printf("overall w1=%.6f w1all=%.6f w1raw=%.6f keys=%zu\n", nsum ? wsum / nsum : NAN, nsum ? wpsum / nsum : NAN,
         nsum ? wrsum / nsum : NAN, used);
  tf_trace_close(t);
  for (size_t i = 0; i < nkeys; i++) {
    free(keys[i].comp);
    free(keys[i].dur);
    free(keys[i].rec.p);
    free(keys[i].recraw.p);
    free(keys[i].recall.p);
  }
  free(keys);
  if (failures) {
    fprintf(stderr, "check_timing: %d exact check(s) failed: the trace's times do not match the flat files\n", failures);
    return 1;
  }
  printf("exact checks passed: counts, min, max, sum, bins and stddev of every key\n");
  return 0;
}

/* ---------------------------------------------------------------- ranks */

/* A rank's compute deltas summed (MPI_Init and MPI_Init_thread aside), s. */
static double rank_compute(tf_trace *t, int32_t r) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  tf_rank_cursor *c;
  char err[1024];
  if (tf_rank_cursor_open(t, r, &c, err, sizeof err) != TF_OK) die(err);
  tf_event ev;
  int rc;
  double s = 0;
  while ((rc = tf_rank_cursor_next(c, &ev)) == 1) {
    const char *name = ti->funcs[ev.fn].name;
    if (strcmp(name, "MPI_Init") != 0 && strcmp(name, "MPI_Init_thread") != 0) s += (double)ev.compute_ns * 1e-9;
  }
  if (rc < 0) die(tf_rank_cursor_error(c));
  tf_rank_cursor_close(c);
  return s;
}

static void count_groups(const tf_node *const *nodes, uint32_t n, uint64_t *groups, uint64_t *paths, uint32_t *largest) {
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      count_groups(ni.body, ni.nbody, groups, paths, largest);
      continue;
    }
    for (uint32_t p = 0; p < tf_node_paths(nodes[i]); p++) {
      uint32_t g = tf_node_path_groups(nodes[i], p);
      *groups += g;
      (*paths)++;
      if (g > *largest) *largest = g;
    }
  }
}

static int cmd_ranks(int argc, char **argv) {
  double within = -1;
  if (argc >= 2 && strcmp(argv[0], "--within") == 0) {
    within = atof(argv[1]);
    argc -= 2, argv += 2;
  }
  if (argc != 2) die("usage: check_timing ranks [--within PCT] TRACE FLATDIR");
  char err[1024];
  tf_trace *t, *f;
  if (tf_trace_open(argv[0], 0, &t, err, sizeof err) != TF_OK || tf_trace_open(argv[1], TF_OPEN_PREFER_FLAT, &f, err, sizeof err) != TF_OK) {
    fprintf(stderr, "check_timing: %s\n", err);
    return 2;
  }
  if (tf_trace_get_info(f)->source != TF_SOURCE_FLAT) die("FLATDIR holds no flat files");
  const tf_trace_info *ti = tf_trace_get_info(t);
  double worst = 0;
  int32_t worst_rank = -1;
  for (int32_t r = 0; r < ti->nranks; r++) {
    if (!tf_trace_rank(t, r, NULL, NULL)) continue;
    double a = rank_compute(t, r), e = rank_compute(f, r), d = e > 0 ? 100 * fabs(a - e) / e : 0;
    printf("rank %d trace=%.9f exact=%.9f error=%.4f\n", r, a, e, d);
    if (worst_rank < 0 || d > worst) worst = d, worst_rank = r;
  }
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(t, &top), largest = 0;
  uint64_t groups = 0, paths = 0;
  count_groups(top, ntop, &groups, &paths, &largest);
  printf("worst error=%.4f rank=%d ranks=%d groups=%" PRIu64 " paths=%" PRIu64 " largest=%u\n", worst, worst_rank,
         ti->nranks_present, groups, paths, largest);
  tf_trace_close(t);
  tf_trace_close(f);
  if (within >= 0 && worst > within) {
    FAILF("rank %d's compute is %.3f %% off its exact compute (at most %.3f %%)", worst_rank, worst, within);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "paths") == 0) return cmd_paths(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "exact") == 0) return cmd_exact(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "ranks") == 0) return cmd_ranks(argc - 2, argv + 2);
  fprintf(stderr, "usage: check_timing paths TRACE FUNC\n"
                  "       check_timing exact [--fn FUNC] TRACE FLATDIR\n"
                  "       check_timing ranks [--within PCT] TRACE FLATDIR\n");
  return 2;
}
