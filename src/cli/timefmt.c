/* timefmt.c — delta times and volumes as people read them ("1.25ms",
 * "3.1M ins"), and times given on the command line ("1.5s", "20ms"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void tf_fmt_delta(double v, unsigned unit, char *buf, size_t len) {
  if (unit == TF_UNIT_INSTRUCTIONS) {
    if (v >= 1e9) snprintf(buf, len, "%.4gG ins", v / 1e9);
    else if (v >= 1e6) snprintf(buf, len, "%.4gM ins", v / 1e6);
    else if (v >= 1e3) snprintf(buf, len, "%.4gK ins", v / 1e3);
    else snprintf(buf, len, "%.0f ins", v);
    return;
  }
  const char *cpu = unit == TF_UNIT_CPU_NS ? " cpu" : "";
  if (v >= 1e9) snprintf(buf, len, "%.4gs%s", v / 1e9, cpu);
  else if (v >= 1e6) snprintf(buf, len, "%.4gms%s", v / 1e6, cpu);
  else if (v >= 1e3) snprintf(buf, len, "%.4gus%s", v / 1e3, cpu);
  else snprintf(buf, len, "%.0fns%s", v, cpu);
}

int tf_parse_time(const char *s, uint64_t *ns) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !(v >= 0) || isinf(v)) return -1;
  double scale = 1e9; /* no unit: seconds */
  if (strcmp(end, "ns") == 0) scale = 1;
  else if (strcmp(end, "us") == 0) scale = 1e3;
  else if (strcmp(end, "ms") == 0) scale = 1e6;
  else if (strcmp(end, "s") == 0 || !*end) scale = 1e9;
  else return -1;
  if (v * scale >= 1.8e19) return -1;
  *ns = (uint64_t)(v * scale + 0.5);
  return 0;
}

/* "mean (min @r..max @r)" of one delta */
static void put_stat(const tf_time_stat *s, unsigned unit, int ranks) {
  char a[32], b[32], c[32];
  tf_fmt_delta(s->mean, unit, a, sizeof a);
  tf_fmt_delta((double)s->min, unit, b, sizeof b);
  tf_fmt_delta((double)s->max, unit, c, sizeof c);
  if (ranks) printf("%s (%s @%d .. %s @%d)", a, b, s->min_rank, c, s->max_rank);
  else printf("%s (%s .. %s)", a, b, c);
}

static void put_bins(const tf_time_stat *s, unsigned unit) {
  for (uint32_t b = 0; b < s->nbins; b++) {
    char lo[32], hi[32];
    tf_fmt_delta((double)s->bins[b].lo, unit, lo, sizeof lo);
    tf_fmt_delta((double)s->bins[b].hi, unit, hi, sizeof hi);
    printf("%s[%s, %s%c %llu", b ? " | " : "", lo, hi, b + 1 == s->nbins ? ']' : ')',
           (unsigned long long)s->bins[b].n);
  }
}

/* "xN compute mean (min .. max), call ..." and, on its own line, the compute bins */
static void put_summary(const tf_time_path *p, const tf_trace_info *ti, int ranks, int indent, int bins) {
  printf("x%llu compute ", (unsigned long long)p->compute.n);
  put_stat(&p->compute, ti->unit, ranks);
  if (ti->unit == TF_UNIT_NS) {
    printf(", call ");
    put_stat(&p->duration, TF_UNIT_NS, ranks);
  }
  printf("\n");
  if (bins && p->compute.nbins > 1) {
    printf("%*s  compute bins ", indent, "");
    put_bins(&p->compute, ti->unit);
    printf("\n");
  }
}

void tf_put_times(const tf_trace *t, const tf_node *n, int indent, long rank) {
  const tf_trace_info *ti = tf_trace_get_info(t);
  uint32_t np = tf_node_paths(n);
  int ranks = ti->nranks_present > 1;
  for (uint32_t i = 0; i < np; i++) {
    tf_time_path p;
    uint32_t ng = tf_node_path_groups(n, i);
    if (rank >= 0 ? tf_node_path_rank(t, n, i, (int32_t)rank, &p) : tf_node_path(t, n, i, &p)) continue;
    printf("%*s", indent, "");
    if (ti->timing == TF_TIMING_PATH) printf("after %s: ", p.has_prev ? ti->funcs[p.prev_fn].name : "(start)");
    if (rank < 0 && ng > 1) printf("%u rank groups, together ", ng);
    put_summary(&p, ti, ranks, indent, rank >= 0 || ng <= 1);
    if (rank >= 0 || ng <= 1) continue;
    for (uint32_t g = 0; g < ng; g++) { /* each group: its ranks, its summaries, the spread of its ranks' means */
      char rl[1024];
      if (tf_node_path_group(t, n, i, g, &p, rl, sizeof rl)) continue;
      printf("%*s  ranks %s: ", indent, "", rl);
      put_summary(&p, ti, ranks, indent + 2, 1);
      if (p.compute.rank_mean_lo_rank != p.compute.rank_mean_hi_rank) {
        char lo[32], hi[32];
        tf_fmt_delta(p.compute.rank_mean_lo, ti->unit, lo, sizeof lo);
        tf_fmt_delta(p.compute.rank_mean_hi, ti->unit, hi, sizeof hi);
        printf("%*s    compute mean per rank %s @%d .. %s @%d\n", indent, "", lo, p.compute.rank_mean_lo_rank, hi,
               p.compute.rank_mean_hi_rank);
      }
    }
  }
}
