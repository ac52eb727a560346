/* cmd_imbalance.c — `tracefold imbalance [--top N] TRACE`: the events whose
 * compute delta differs most between ranks, straight from the merged
 * trace (doc/TIMING.md "What the tools report").
 *
 * Every event node keeps the smallest and largest per-rank mean of its
 * compute delta and the ranks they belong to. Events are ranked by the time
 * that spread costs: (largest - smallest rank mean) x occurrences per rank;
 * each line names the slowest and fastest rank, then the extreme samples
 * with their ranks and the histogram. The compute before MPI_Init is
 * process start-up, not imbalance between MPI calls: MPI_Init and
 * MPI_Init_thread are left out.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char tf_help_imbalance[] =
    "usage: tracefold imbalance [--top N] TRACE\n"
    "  the calls whose compute time before them differs most between ranks, ranked by what the spread\n"
    "  costs, with the slowest and fastest rank (needs a trace recorded with times)\n"
    "  --top N     the N first (default 10)\n"
    "example: tracefold imbalance --top 5 tracefold-app-16p\n";

typedef struct entry {
  const tf_node *n;
  tf_node_info ni;
  tf_time_path p;
  double per_rank, spread, cost;
} entry;

typedef struct list {
  entry *e;
  size_t n, cap;
} list;

static int collect(const tf_trace *t, const tf_node *const *nodes, uint32_t n, list *l) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  for (uint32_t i = 0; i < n; i++) {
    entry e = {.n = nodes[i]};
    tf_node_get(nodes[i], &e.ni);
    if (e.ni.is_loop) {
      if (collect(t, e.ni.body, e.ni.nbody, l)) return -1;
      continue;
    }
    const char *name = ti->funcs[e.ni.fn].name;
    if (strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0) continue;
    if (!tf_node_paths(nodes[i]) || tf_node_path(t, nodes[i], TF_PATHS_ALL, &e.p)) continue;
    e.per_rank = e.ni.nranks ? (double)e.ni.occurrences / e.ni.nranks : 0;
    e.spread = e.p.compute.rank_mean_hi - e.p.compute.rank_mean_lo;
    e.cost = e.spread * e.per_rank;
    if (l->n == l->cap) {
      size_t cap = l->cap ? 2 * l->cap : 64;
      entry *ne = realloc(l->e, cap * sizeof *ne);
      if (!ne) return -1;
      l->e = ne;
      l->cap = cap;
    }
    l->e[l->n++] = e;
  }
  return 0;
}

static int by_cost(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->cost < y->cost ? 1 : x->cost > y->cost ? -1 : 0;
}

int cmd_imbalance(int argc, char **argv) {
  long long top = 10;
  const char *top_s = NULL;
  tf_opt opts[] = {{"--top", &top_s, NULL}};
  int rc = tf_options(&argc, argv, "imbalance", opts, 1);
  if (!rc && top_s) rc = tf_opt_number("imbalance", "--top", top_s, 1, INT32_MAX, "a number of events", &top);
  tf_input in;
  if (rc || (rc = tf_input_open(argc, argv, TF_INPUT_VALIDATE, "imbalance", &in))) return rc;
  if (in.info->source == TF_SOURCE_FLAT || in.info->timing == TF_TIMING_NONE) {
    fprintf(stderr, "tracefold imbalance: %s keeps no time statistics (%s); record with TRACEFOLD_TIMING=stats, "
                    "histogram or path\n", argv[0], in.info->source == TF_SOURCE_FLAT ? "flat files" : "TRACEFOLD_TIMING=none");
    tf_input_close(&in);
    return 1;
  }
  const tf_node *const *nodes;
  uint32_t n = tf_trace_top(in.t, &nodes);
  list l = {0};
  if (collect(in.t, nodes, n, &l)) {
    fprintf(stderr, "tracefold imbalance: out of memory\n");
    rc = 1;
    goto out;
  }
  qsort(l.e, l.n, sizeof *l.e, by_cost);
  unsigned unit = in.info->unit;
  printf("compute-delta imbalance over %d ranks (%s times, compute in %s): events by spread of the per-rank mean "
         "x occurrences per rank\n", in.info->nranks_present, tf_timing_mode_name(in.info->timing),
         tf_time_unit_name(unit));
  for (size_t i = 0; i < l.n && (long long)i < top; i++) {
    const entry *e = &l.e[i];
    const tf_time_stat *c = &e->p.compute;
    char lo[32], hi[32], sp[32], cost[32];
    tf_fmt_delta(c->rank_mean_lo, unit, lo, sizeof lo);
    tf_fmt_delta(c->rank_mean_hi, unit, hi, sizeof hi);
    tf_fmt_delta(e->spread, unit, sp, sizeof sp);
    tf_fmt_delta(e->cost, unit, cost, sizeof cost);
    printf("%2zu. %s cs=%016" PRIx64 " x%.0f per rank: slowest rank %d (mean %s), fastest rank %d (mean %s), "
           "spread %s, costs %s\n", i + 1, in.info->funcs[e->ni.fn].name, e->ni.callsite, e->per_rank,
           c->rank_mean_hi_rank, hi, c->rank_mean_lo_rank, lo, sp, cost);
    tf_put_times(in.t, e->n, 4, -1);
  }
  if (!l.n) printf("no events with compute deltas\n");
out:
  free(l.e);
  tf_input_close(&in);
  return rc ? rc : ferror(stdout) ? 1 : 0;
}
