/* report.c — one self-contained HTML page about a trace (tf_report_html,
 * export.h; doc/REPORT.md). Everything it shows is gathered here in one
 * pass over every rank's events (clock.h, messages.h) and one walk of the
 * loop structure; the page carries its stylesheet and script
 * (report.css, report.js, embedded at build time as xp_report_css and
 * xp_report_js) and its data (a JSON island the script draws the charts
 * from), and loads nothing from the network.
 *
 * Sections: run summary; calls, bytes and time per function; the rank x
 * rank matrix of point-to-point messages (bytes and counts; ranks in blocks
 * beyond 64); compute and MPI time per rank with the imbalance ranking;
 * the loop structure as a tree of <details>; histograms of call times;
 * the merged event flow graph as inline SVG (report_graph.c).
 */
#define _XOPEN_SOURCE 700
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "comms.h"
#include "events.h"
#include "export.h"
#include "failure.h"
#include "json.h"
#include "messages.h"
#include "outdir.h"
#include "report_graph.h"

extern const char xp_report_css[], xp_report_js[];

#define MATRIX_MAX 64   /* matrix cells per side: ranks in blocks beyond */
#define HBINS 40        /* histogram buckets: log10 from 10 ns to 100 s, 4 per decade */
#define HLO 1.0         /* log10 of the first bucket's lower edge (10 ns) */
#define TREE_MAX 2500   /* loop-structure nodes shown */
#define TOP_IMBALANCE 12

typedef struct fstat {
  uint64_t calls, bytes;
  double time;           /* ns in calls */
  uint64_t hist[HBINS];  /* call times */
} fstat;

typedef struct rstat {
  double compute, mpi;   /* ns (compute: after MPI_Init) */
  uint64_t end, events;
  uint32_t threads;
} rstat;

typedef struct rx {
  tf_trace *t;
  const tf_trace_info *info;
  const tf_report_opts *o;
  xp_comms comms;
  xp_msgs msgs;
  xp_clock clk;
  fstat *fs;
  rstat *rs;
  uint32_t mside, block;  /* matrix: cells per side, ranks per cell */
  double *mbytes, *mmsgs;
  uint64_t compute_hist[HBINS];
  uint64_t done, messages, msgbytes;
  int hist_exact;         /* histograms from every event (flat input) or from the trace's bins */
  uint32_t tree_nodes;
  FILE *f;
  const char *trace;      /* as the user named it */
  xp_failure failure;
} rx;

static int bucket(double ns) {
  if (!(ns > 0)) return 0;
  int b = (int)floor((log10(ns) - HLO) * 4);
  return b < 0 ? 0 : b >= HBINS ? HBINS - 1 : b;
}

/* ------------------------------------------------------------ the pass over every event */

static int bytes_of(const xp_events *e, uint64_t *out) {
  *out = 0;
  if (!e->fits) return 0;
  for (uint32_t k = 0; k < e->fd->nfields; k++) {
    const tf_field_value *f = &e->fields[k];
    if (!f->desc->is_array && f->desc->kind == TF_FIELD_BYTES && f->n && f->v[0] > 0) *out += (uint64_t)f->v[0];
  }
  return 0;
}

static int pass_rank(rx *x, int32_t rank) {
  xp_events e;
  char err[1024];
  tf_status st = xp_events_open(&e, x->t, rank, err, sizeof err);
  if (st != TF_OK) return xp_fail(&x->failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  xp_msgs_rank(&x->msgs, rank);
  xp_clock_rank(&x->clk, rank);
  rstat *R = &x->rs[rank];
  int got, rc = 0;
  while (rc == 0 && (got = xp_events_next(&e)) == 1) {
    if (!e.fd) {
      rc = xp_fail(&x->failure, 2, "rank %d event %" PRIu64 ": function %u is not in the trace's function table", rank, e.seq,
          e.ev.fn);
      break;
    }
    uint64_t cs, s, end, b;
    if (xp_clock_event(&x->clk, &e, &cs, &s, &end) || xp_msgs_event(&x->msgs, &e)) {
      rc = xp_fail(&x->failure, 1, "out of memory");
      break;
    }
    fstat *F = &x->fs[e.ev.fn];
    F->calls++;
    bytes_of(&e, &b);
    F->bytes += b;
    F->time += (double)(end - s);
    if (x->hist_exact) F->hist[bucket((double)(end - s))]++;
    if (e.seq > 0) {
      R->compute += (double)(s - cs);
      if (x->hist_exact && s > cs) x->compute_hist[bucket((double)(s - cs))]++;
    }
    if (e.seq > 0) R->mpi += (double)(end - s); /* MPI_Init: start-up, not the run */
    R->events++;
    if (end > R->end) R->end = end;
    if (e.ev.thread + 1 > R->threads) R->threads = e.ev.thread + 1;
    for (size_t i = 0; i < x->msgs.n; i++) {
      const xp_msg *m = &x->msgs.out[i];
      if ((m->kind != XP_SEND && m->kind != XP_ISEND) || m->peer < 0) continue;
      size_t cell = (size_t)(rank / (int32_t)x->block) * x->mside + (size_t)(m->peer / (int32_t)x->block);
      x->mmsgs[cell] += 1;
      x->mbytes[cell] += (double)m->bytes;
      x->messages++;
      x->msgbytes += m->bytes;
    }
    if ((++x->done & 4095) == 0 && x->o->progress) x->o->progress(x->done, x->info->nevents, x->o->progress_arg);
  }
  if (rc == 0 && got < 0) rc = xp_fail(&x->failure, 2, "%s", xp_events_error(&e));
  xp_events_close(&e);
  return rc;
}

/* Histograms from the trace's own bins (folded traces): every event node's
 * bins (all paths summed) into the buckets of their means. */
static void tree_hists(rx *x, const tf_node *const *nodes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    if (ni.is_loop) {
      tree_hists(x, ni.body, ni.nbody);
      continue;
    }
    tf_time_path p;
    if (ni.fn >= x->info->nfuncs || !tf_node_paths(nodes[i])) continue;
    if (tf_node_path(x->t, nodes[i], TF_PATHS_ALL, &p)) continue;
    uint64_t *h = x->fs[ni.fn].hist;
    if (p.duration.nbins)
      for (uint32_t b = 0; b < p.duration.nbins; b++) h[bucket((double)p.duration.bins[b].mean)] += p.duration.bins[b].n;
    else if (p.duration.n)
      h[bucket(p.duration.mean)] += p.duration.n;
    if (x->info->unit != TF_UNIT_NS) continue;
    const char *name = x->info->funcs[ni.fn].name;
    int init = strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0;
    if (init) continue;
    if (p.compute.nbins)
      for (uint32_t b = 0; b < p.compute.nbins; b++)
        x->compute_hist[bucket((double)p.compute.bins[b].mean)] += p.compute.bins[b].n;
    else if (p.compute.n)
      x->compute_hist[bucket(p.compute.mean)] += p.compute.n;
  }
}

/* ------------------------------------------------------------ text */

static void fmt_ns(double v, char *buf, size_t len) {
  if (v >= 1e9) snprintf(buf, len, "%.3g s", v / 1e9);
  else if (v >= 1e6) snprintf(buf, len, "%.3g ms", v / 1e6);
  else if (v >= 1e3) snprintf(buf, len, "%.3g µs", v / 1e3);
  else snprintf(buf, len, "%.0f ns", v);
}

static void fmt_bytes(double v, char *buf, size_t len) {
  if (v >= 1e9) snprintf(buf, len, "%.3g GB", v / 1e9);
  else if (v >= 1e6) snprintf(buf, len, "%.3g MB", v / 1e6);
  else if (v >= 1e3) snprintf(buf, len, "%.3g kB", v / 1e3);
  else snprintf(buf, len, "%.0f B", v);
}

static void fmt_count(double v, char *buf, size_t len) {
  if (v >= 1e9) snprintf(buf, len, "%.3gG", v / 1e9);
  else if (v >= 1e6) snprintf(buf, len, "%.3gM", v / 1e6);
  else if (v >= 1e4) snprintf(buf, len, "%.3gk", v / 1e3);
  else snprintf(buf, len, "%.0f", v);
}

/* ------------------------------------------------------------ the page */

static void card(FILE *f, const char *label, const char *value, const char *note) {
  fputs("<div class=\"card\"><div class=\"label\">", f);
  xp_html_text(f, label);
  fputs("</div><div class=\"value\">", f);
  xp_html_text(f, value);
  fputs("</div>", f);
  if (note && *note) {
    fputs("<div class=\"note\">", f);
    xp_html_text(f, note);
    fputs("</div>", f);
  }
  fputs("</div>\n", f);
}

static void summary(rx *x) {
  FILE *f = x->f;
  const tf_trace_info *in = x->info;
  char a[64], b[128];
  double compute = 0, mpi = 0;
  uint64_t end = 0;
  uint32_t threads = 0;
  for (int32_t r = 0; r < in->nranks; r++) {
    compute += x->rs[r].compute;
    mpi += x->rs[r].mpi;
    if (x->rs[r].end > end) end = x->rs[r].end;
    if (x->rs[r].threads > threads) threads = x->rs[r].threads;
  }
  fputs("<section id=\"summary\"><h2>Run summary</h2>\n<div class=\"cards\">\n", f);
  snprintf(a, sizeof a, "%d", in->nranks);
  snprintf(b, sizeof b, "%s%s", threads > 1 ? "up to " : "", threads > 1 ? "" : "one thread each");
  if (threads > 1) snprintf(b, sizeof b, "up to %u MPI threads per rank", threads);
  card(f, "ranks", a, in->nranks_present < in->nranks ? "partial: some ranks missing" : b);
  fmt_count((double)in->nevents, a, sizeof a);
  card(f, "MPI calls", a, "recorded, all ranks");
  fmt_ns((double)end, a, sizeof a);
  card(f, "run time", a, in->source == TF_SOURCE_FLAT ? "slowest rank, exact" : "slowest rank, from mean times");
  snprintf(a, sizeof a, "%.1f %%", compute + mpi > 0 ? 100 * mpi / (compute + mpi) : 0);
  card(f, "time in MPI", a, "of compute + MPI, all ranks, after MPI_Init");
  fmt_bytes((double)x->msgbytes, a, sizeof a);
  fmt_count((double)x->messages, b, sizeof b);
  strcat(b, " point-to-point messages");
  card(f, "bytes sent", a, b);
  fmt_bytes((double)in->bytes, a, sizeof a);
  snprintf(b, sizeof b, "%s",
           in->source == TF_SOURCE_MERGED ? "one merged trace.tf"
           : in->source == TF_SOURCE_FLAT ? "flat per-rank files"
                                          : "per-rank compressed files");
  card(f, "trace size", a, b);
  fputs("</div>\n<table class=\"kv\">\n", f);
  fputs("<tr><th>program</th><td>", f);
  xp_html_text(f, in->exe);
  fputs("</td></tr>\n<tr><th>MPI</th><td>", f);
  xp_html_text(f, in->mpi);
  fputs("</td></tr>\n", f);
  if (in->start_unix_ns) {
    time_t t = (time_t)(in->start_unix_ns / 1000000000u);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fprintf(f, "<tr><th>recorded</th><td>%s</td></tr>\n", a);
  }
  fprintf(f, "<tr><th>times kept</th><td>%s, compute in %s%s</td></tr>\n", tf_timing_mode_name(in->timing),
          tf_time_unit_name(in->unit),
          in->source == TF_SOURCE_FLAT ? " (flat files: every event's own times)"
          : in->timing == TF_TIMING_NONE ? " (no times: time figures below are 0)"
                                           : " (per event: the times below use each event's mean)");
  if (in->merge_ns) {
    fmt_ns((double)in->merge_ns, a, sizeof a);
    fprintf(f, "<tr><th>merge at MPI_Finalize</th><td>%s on rank 0</td></tr>\n", a);
  }
  if (in->partial) fputs("<tr><th>partial</th><td>the run stopped before MPI_Finalize</td></tr>\n", f);
  if (in->lost_events) fprintf(f, "<tr><th>lost calls</th><td>%" PRIu64 "</td></tr>\n", in->lost_events);
  fputs("</table>\n</section>\n", f);
}

static int by_time(const void *a, const void *b, void *arg) {
  const fstat *fs = arg;
  double x = fs[*(const uint32_t *)a].time, y = fs[*(const uint32_t *)b].time;
  return x < y ? 1 : x > y ? -1 : (int)(*(const uint32_t *)a) - (int)(*(const uint32_t *)b);
}

/* functions by time in calls (the order: called ones only), into order; their number */
static uint32_t order_fns(const rx *x, uint32_t *order) {
  uint32_t n = 0;
  for (uint32_t fn = 0; fn < x->info->nfuncs; fn++)
    if (x->fs[fn].calls) order[n++] = fn;
  for (uint32_t i = 1; i < n; i++) /* insertion sort: function tables are small */
    for (uint32_t j = i; j > 0 && by_time(&order[j - 1], &order[j], x->fs) > 0; j--) {
      uint32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return n;
}

static void functions(rx *x, const uint32_t *order, uint32_t n) {
  FILE *f = x->f;
  double total = 0, maxt = 0;
  for (uint32_t i = 0; i < n; i++) {
    total += x->fs[order[i]].time;
    if (x->fs[order[i]].time > maxt) maxt = x->fs[order[i]].time;
  }
  fputs("<section id=\"functions\"><h2>Calls and bytes per function</h2>\n"
        "<p class=\"lead\">Every MPI function the program called, by the time spent in it (all ranks).</p>\n"
        "<table class=\"data\" id=\"fn-table\"><thead><tr><th>function</th><th class=\"num\">calls</th>"
        "<th class=\"num\">calls/rank</th><th class=\"num\">bytes</th><th class=\"num\">time in calls</th>"
        "<th class=\"num\">mean/call</th><th class=\"bar\">share of MPI time</th></tr></thead><tbody>\n", f);
  for (uint32_t i = 0; i < n; i++) {
    const fstat *F = &x->fs[order[i]];
    char c[32], cr[32], b[32], t[32], m[32];
    fmt_count((double)F->calls, c, sizeof c);
    snprintf(cr, sizeof cr, "%.4g", (double)F->calls / (x->info->nranks_present ? x->info->nranks_present : 1));
    fmt_bytes((double)F->bytes, b, sizeof b);
    fmt_ns(F->time, t, sizeof t);
    fmt_ns(F->calls ? F->time / (double)F->calls : 0, m, sizeof m);
    double share = total > 0 ? 100 * F->time / total : 0, w = maxt > 0 ? 100 * F->time / maxt : 0;
    fprintf(f, "<tr><td class=\"fn\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
               "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"bar\"><span class=\"hbar\" "
               "style=\"width:%.1f%%\"></span><span class=\"pct\">%.1f %%</span></td></tr>\n",
            x->info->funcs[order[i]].name, c, cr, F->bytes ? b : "–", t, m, w * 0.7, share);
  }
  fputs("</tbody></table>\n</section>\n", f);
}

/* ------------------------------------------------------------ imbalance (as `tracefold imbalance`) */

typedef struct imb {
  const tf_node *n;
  tf_node_info ni;
  tf_time_path p;
  double per_rank, cost;
} imb;

typedef struct imbs {
  imb *v;
  size_t n, cap;
} imbs;

static int collect_imb(rx *x, const tf_node *const *nodes, uint32_t n, imbs *l) {
  for (uint32_t i = 0; i < n; i++) {
    imb e = {.n = nodes[i]};
    tf_node_get(nodes[i], &e.ni);
    if (e.ni.is_loop) {
      if (collect_imb(x, e.ni.body, e.ni.nbody, l)) return -1;
      continue;
    }
    const char *name = e.ni.fn < x->info->nfuncs ? x->info->funcs[e.ni.fn].name : "";
    if (!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) continue;
    if (!tf_node_paths(nodes[i]) || tf_node_path(x->t, nodes[i], TF_PATHS_ALL, &e.p)) continue;
    e.per_rank = e.ni.nranks ? (double)e.ni.occurrences / e.ni.nranks : 0;
    e.cost = (e.p.compute.rank_mean_hi - e.p.compute.rank_mean_lo) * e.per_rank;
    if (l->n == l->cap) {
      size_t cap = l->cap ? 2 * l->cap : 64;
      imb *nv = realloc(l->v, cap * sizeof *nv);
      if (!nv) return -1;
      l->v = nv;
      l->cap = cap;
    }
    l->v[l->n++] = e;
  }
  return 0;
}

static int by_cost(const void *a, const void *b) {
  const imb *x = a, *y = b;
  return x->cost < y->cost ? 1 : x->cost > y->cost ? -1 : 0;
}

static void ranks_section(rx *x) {
  FILE *f = x->f;
  fputs("<section id=\"ranks\"><h2>Compute and MPI time per rank</h2>\n"
        "<p class=\"lead\">Each rank's time after MPI_Init, split into compute (between MPI calls) and time inside "
        "MPI calls (summed over its threads when it has several). A rank that computes longer makes the others wait in MPI.</p>\n"
        "<div class=\"chart\" id=\"rank-bars\"></div>\n", f);
  fputs("<h3>Imbalance ranking</h3>\n", f);
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(x->t, &top);
  imbs l = {0};
  if (x->info->timing == TF_TIMING_NONE || x->info->source == TF_SOURCE_FLAT || !ntop) {
    fputs("<p class=\"muted\" id=\"imbalance-none\">No ranking: it reads the per-rank time summaries of a folded trace "
          "(this one is flat or keeps no times). The bars above show the totals.</p>\n", f);
  } else if (collect_imb(x, top, ntop, &l)) {
    fputs("<p class=\"muted\">Out of memory for the ranking.</p>\n", f);
  } else {
    qsort(l.v, l.n, sizeof *l.v, by_cost);
    fputs("<p class=\"lead\">Calls whose compute phase before them differs most between ranks, ranked by what the "
          "spread costs: (slowest rank's mean − fastest rank's mean) × occurrences per rank "
          "(as <code>tracefold imbalance</code>).</p>\n<table class=\"data\" id=\"imbalance\"><thead><tr><th>#</th>"
          "<th>call</th><th class=\"num\">per rank</th><th class=\"num\">slowest rank (mean)</th>"
          "<th class=\"num\">fastest rank (mean)</th><th class=\"num\">costs</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < l.n && i < TOP_IMBALANCE; i++) {
      const imb *e = &l.v[i];
      char hi[32], lo[32], cost[32];
      fmt_ns(e->p.compute.rank_mean_hi, hi, sizeof hi);
      fmt_ns(e->p.compute.rank_mean_lo, lo, sizeof lo);
      fmt_ns(e->cost, cost, sizeof cost);
      fprintf(f, "<tr><td>%zu</td><td class=\"fn\">%s <span class=\"muted\">cs %016" PRIx64 "</span></td>"
                 "<td class=\"num\">%.4g</td><td class=\"num\">%d (%s)</td><td class=\"num\">%d (%s)</td>"
                 "<td class=\"num\">%s</td></tr>\n",
              i + 1, x->info->funcs[e->ni.fn].name, e->ni.callsite, e->per_rank, e->p.compute.rank_mean_hi_rank, hi,
              e->p.compute.rank_mean_lo_rank, lo, cost);
    }
    if (!l.n) fputs("<tr><td colspan=\"6\" class=\"muted\">no calls with compute times</td></tr>\n", f);
    fputs("</tbody></table>\n", f);
  }
  free(l.v);
  fputs("</section>\n", f);
}

/* ------------------------------------------------------------ the loop structure */

static void node_times(rx *x, const tf_node *n, FILE *f) {
  tf_time_path p;
  if (!tf_node_paths(n) || tf_node_path(x->t, n, TF_PATHS_ALL, &p)) return;
  char cm[32], cmin[32], cmax[32], dm[32], dmin[32], dmax[32];
  fmt_ns(p.compute.mean, cm, sizeof cm);
  fmt_ns((double)p.compute.min, cmin, sizeof cmin);
  fmt_ns((double)p.compute.max, cmax, sizeof cmax);
  fmt_ns(p.duration.mean, dm, sizeof dm);
  fmt_ns((double)p.duration.min, dmin, sizeof dmin);
  fmt_ns((double)p.duration.max, dmax, sizeof dmax);
  fprintf(f, " <span class=\"t\" title=\"compute before the call: mean (min @rank .. max @rank)\">compute %s "
             "<small>(%s @%d .. %s @%d)</small></span> <span class=\"t\" title=\"the call: mean (min .. max)\">call %s "
             "<small>(%s @%d .. %s @%d)</small></span>",
          cm, cmin, p.compute.min_rank, cmax, p.compute.max_rank, dm, dmin, p.duration.min_rank, dmax,
          p.duration.max_rank);
}

static void tree(rx *x, const tf_node *const *nodes, uint32_t n, int depth, const char *parent_ranks) {
  FILE *f = x->f;
  char ranks[512], vals[512];
  for (uint32_t i = 0; i < n; i++) {
    if (x->tree_nodes >= TREE_MAX) {
      if (x->tree_nodes++ == TREE_MAX)
        fprintf(f, "<div class=\"leaf muted\">… the structure goes on (%d nodes shown)</div>\n", TREE_MAX);
      return;
    }
    x->tree_nodes++;
    tf_node_info ni;
    tf_node_get(nodes[i], &ni);
    tf_node_ranks(nodes[i], ranks, sizeof ranks);
    int show_ranks = strcmp(ranks, parent_ranks) != 0;
    if (ni.is_loop) {
      tf_node_values(nodes[i], -1, 0, vals, sizeof vals, NULL, 0);
      fprintf(f, "<details%s><summary><span class=\"loop\">loop ×", depth < 2 ? " open" : "");
      xp_html_text(f, vals);
      fprintf(f, "</span> <span class=\"muted\">%u node%s in its body, on %u rank%s</span>", ni.nbody,
              ni.nbody == 1 ? "" : "s", ni.nranks, ni.nranks == 1 ? "" : "s");
      if (show_ranks) {
        fputs(" <span class=\"ranks\">@", f);
        xp_html_text(f, ranks);
        fputs("</span>", f);
      }
      fputs("</summary>\n<div class=\"body\">\n", f);
      tree(x, ni.body, ni.nbody, depth + 1, ranks);
      fputs("</div></details>\n", f);
    } else {
      fprintf(f, "<div class=\"leaf\"><span class=\"fn\">%s</span>",
              ni.fn < x->info->nfuncs ? x->info->funcs[ni.fn].name : "?");
      if (ni.thread) fprintf(f, " <span class=\"muted\">thread %u</span>", ni.thread);
      fprintf(f, " <span class=\"count\">×%" PRIu64 "</span>", ni.occurrences);
      if (show_ranks) {
        fputs(" <span class=\"ranks\">@", f);
        xp_html_text(f, ranks);
        fputs("</span>", f);
      }
      node_times(x, nodes[i], f);
      fputs("</div>\n", f);
    }
  }
}

static void structure(rx *x) {
  FILE *f = x->f;
  fputs("<section id=\"structure\"><h2>Loop structure</h2>\n", f);
  const tf_node *const *top;
  uint32_t ntop = tf_trace_top(x->t, &top);
  if (!ntop) {
    fputs("<p class=\"muted\">This trace is read from flat files: it has no loop structure (report on its "
          "trace.tf for the folded loops).</p>\n</section>\n", f);
    return;
  }
  char all[512];
  tf_node_ranks(top[0], all, sizeof all);
  fputs("<p class=\"lead\">The program's MPI calls as the trace folded them: loops with their iteration counts, "
        "calls with how often they ran (all ranks), and what the trace keeps of their times: the compute before "
        "the call and the call itself, mean (min @rank .. max @rank). Ranks are shown where a node holds for "
        "fewer ranks than the loop around it (<code>&lt;dims start count stride&gt;</code> blocks).</p>\n"
        "<div class=\"tree\" id=\"loop-tree\">\n", f);
  tree(x, top, ntop, 0, all);
  fputs("</div>\n</section>\n", f);
}

/* ------------------------------------------------------------ data for the charts */

static void data(rx *x, const uint32_t *order, uint32_t nfn) {
  FILE *f = x->f;
  const tf_trace_info *in = x->info;
  fputs("<script type=\"application/json\" id=\"tf-data\">{\"ranks\":[", f);
  int first = 1;
  for (int32_t r = 0; r < in->nranks; r++) {
    if (!tf_trace_rank(x->t, r, NULL, NULL)) continue;
    const rstat *R = &x->rs[r];
    fprintf(f, "%s{\"rank\":%d,\"compute\":%.0f,\"mpi\":%.0f,\"end\":%" PRIu64 ",\"events\":%" PRIu64 "}",
            first ? "" : ",", r, R->compute, R->mpi, R->end, R->events);
    first = 0;
  }
  fprintf(f, "],\"matrix\":{\"nranks\":%d,\"side\":%u,\"block\":%u,\"messages\":[", in->nranks, x->mside, x->block);
  size_t cells = (size_t)x->mside * x->mside;
  for (size_t i = 0; i < cells; i++) fprintf(f, "%s%.0f", i ? "," : "", x->mmsgs[i]);
  fputs("],\"bytes\":[", f);
  for (size_t i = 0; i < cells; i++) fprintf(f, "%s%.0f", i ? "," : "", x->mbytes[i]);
  fprintf(f, "]},\"hist\":{\"lo\":%g,\"perDecade\":4,\"exact\":%s,\"series\":[", HLO, x->hist_exact ? "true" : "false");
  int ns = 0;
  if (in->unit == TF_UNIT_NS) {
    fputs("{\"name\":\"compute phases\",\"kind\":\"compute\",\"counts\":[", f);
    for (int b = 0; b < HBINS; b++) fprintf(f, "%s%" PRIu64, b ? "," : "", x->compute_hist[b]);
    fputs("]}", f);
    ns++;
  }
  for (uint32_t i = 0; i < nfn && i < 8; i++) {
    const fstat *F = &x->fs[order[i]];
    uint64_t tot = 0;
    for (int b = 0; b < HBINS; b++) tot += F->hist[b];
    if (!tot) continue;
    fprintf(f, "%s{\"name\":", ns++ ? "," : "");
    xp_json_str(f, in->funcs[order[i]].name);
    fputs(",\"kind\":\"call\",\"counts\":[", f);
    for (int b = 0; b < HBINS; b++) fprintf(f, "%s%" PRIu64, b ? "," : "", F->hist[b]);
    fputs("]}", f);
  }
  fputs("]}}</script>\n", f);
}

static void page(rx *x) {
  FILE *f = x->f;
  const tf_trace_info *in = x->info;
  const char *prog = in->exe && strrchr(in->exe, '/') ? strrchr(in->exe, '/') + 1 : in->exe;
  uint32_t *order = calloc(in->nfuncs + 1, sizeof *order);
  if (!order) {
    xp_fail(&x->failure, 1, "out of memory");
    return;
  }
  uint32_t nfn = order_fns(x, order);
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"generator\" content=\"tracefold " TF_VERSION_STRING "\">\n<title>tracefold report: ", f);
  xp_html_text(f, prog);
  fprintf(f, " on %d ranks</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<div class=\"brand\">tracefold report</div>\n<h1>",
          in->nranks, xp_report_css);
  xp_html_text(f, prog);
  fprintf(f, " <span class=\"muted\">on %d rank%s</span></h1>\n<nav><a href=\"#summary\">Summary</a>"
             "<a href=\"#functions\">Functions</a><a href=\"#matrix\">Communication</a><a href=\"#ranks\">Ranks</a>"
             "<a href=\"#structure\">Loops</a><a href=\"#histograms\">Times</a><a href=\"#flow-graph\">Flow graph</a></nav>\n</header>\n<main>\n",
          in->nranks, in->nranks == 1 ? "" : "s");
  summary(x);
  functions(x, order, nfn);
  fputs("<section id=\"matrix\"><h2>Communication matrix</h2>\n<p class=\"lead\">Point-to-point messages from each "
        "sending rank (row) to each receiving rank (column); collectives are not included.", f);
  if (x->block > 1) fprintf(f, " Ranks are grouped in blocks of %u.", x->block);
  fputs("</p>\n<div class=\"toggle\" role=\"group\"><button type=\"button\" data-metric=\"bytes\" class=\"on\">bytes"
        "</button><button type=\"button\" data-metric=\"messages\">messages</button></div>\n"
        "<div class=\"chart\" id=\"matrix-chart\"></div>\n</section>\n", f);
  ranks_section(x);
  structure(x);
  fprintf(f, "<section id=\"histograms\"><h2>Time histograms</h2>\n<p class=\"lead\">How long calls and the compute "
             "phases between them took: %s. Logarithmic time axis.</p>\n<div class=\"hists\" id=\"hist-charts\"></div>\n"
             "</section>\n",
          x->hist_exact ? "every event's own time (flat trace)"
                        : "the balanced histogram bins the trace keeps for each call (counts at each bin's mean)");
  if (xp_report_flow_graph(f, x->t, x->trace, x->o->graph_limit)) {
    free(order);
    xp_fail(&x->failure, 1, "out of memory");
    return;
  }
  fputs("</main>\n<footer>Written by tracefold " TF_VERSION_STRING " (<code>tracefold report</code>) from ", f);
  xp_html_text(f, in->source == TF_SOURCE_FLAT ? "flat per-rank files" : "the merged trace");
  fputs(". This page is self-contained: it loads nothing from the network.</footer>\n", f);
  data(x, order, nfn);
  fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", xp_report_js);
  free(order);
}

tf_export_status tf_report_html(const char *trace, const char *file, const tf_report_opts *o, char *msg,
                                size_t msglen) {
  rx x = {.o = o, .trace = trace};
  char err[1024];
  if (tf_trace_open(trace, o->flat ? TF_OPEN_PREFER_FLAT : 0, &x.t, err, sizeof err) != TF_OK) {
    snprintf(msg, msglen, "%s", err);
    return TF_EXPORT_REFUSED;
  }
  x.info = tf_trace_get_info(x.t);
  x.hist_exact = x.info->source == TF_SOURCE_FLAT;
  int32_t n = x.info->nranks;
  x.block = n <= MATRIX_MAX ? 1 : (uint32_t)((n + MATRIX_MAX - 1) / MATRIX_MAX);
  x.mside = (uint32_t)((n + (int32_t)x.block - 1) / (int32_t)x.block);
  int rc = 0;
  tf_status st;
  x.fs = calloc(x.info->nfuncs + 1, sizeof *x.fs);
  x.rs = calloc((size_t)n + 1, sizeof *x.rs);
  x.mmsgs = calloc((size_t)x.mside * x.mside + 1, sizeof *x.mmsgs);
  x.mbytes = calloc((size_t)x.mside * x.mside + 1, sizeof *x.mbytes);
  if (!x.fs || !x.rs || !x.mmsgs || !x.mbytes) rc = xp_fail(&x.failure, 1, "out of memory");
  if (rc == 0 && ((st = xp_comms_build(&x.comms, x.t, err, sizeof err)) != TF_OK ||
                  (st = xp_clock_init(&x.clk, x.t, err, sizeof err)) != TF_OK))
    rc = xp_fail(&x.failure, st == TF_ERR_NOMEM ? 1 : 2, "%s", err);
  if (rc == 0 && xp_msgs_init(&x.msgs, x.info, &x.comms)) rc = xp_fail(&x.failure, 1, "out of memory");
  for (int32_t r = 0; rc == 0 && r < n; r++)
    if (tf_trace_rank(x.t, r, NULL, NULL)) rc = pass_rank(&x, r);
  if (rc == 0 && !x.hist_exact) {
    const tf_node *const *top;
    uint32_t ntop = tf_trace_top(x.t, &top);
    tree_hists(&x, top, ntop);
  }
  xp_outfile of = {0};
  if (rc == 0 && xp_outfile_open(&of, file, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 2;
  if (rc == 0) {
    x.f = of.f;
    page(&x);
    rc = x.failure.rc ? -1 : 0;
    if (rc == 0 && xp_outfile_commit(&of, x.failure.err, sizeof x.failure.err)) rc = x.failure.rc = 1;
  }
  if (rc != 0) xp_outfile_discard(&of);
  if (o->progress && rc == 0) o->progress(x.done, x.info->nevents, o->progress_arg);
  if (rc != 0)
    snprintf(msg, msglen, "%s: %s", trace, x.failure.err);
  else
    snprintf(msg, msglen, "%s: HTML report of %d ranks, %" PRIu64 " calls (one self-contained file; open it in a "
                          "browser)", of.path, n, x.done);
  free(x.fs);
  free(x.rs);
  free(x.mmsgs);
  free(x.mbytes);
  xp_msgs_free(&x.msgs);
  xp_clock_free(&x.clk);
  xp_comms_free(&x.comms);
  tf_trace_close(x.t);
  return rc == 0 ? TF_EXPORT_OK : (tf_export_status)(x.failure.rc ? x.failure.rc : 1);
}
