/* efg_dot.c — an event flow graph as Graphviz DOT, for people: one box per
 * node ("MPI_Send\nring.c:61\nx100"), the initial node of each thread drawn
 * with a double border, edges labelled with their counts (a range and the
 * ranks in merged graphs where they differ), with --time the mean (min ..
 * max) compute delta before the call, one cluster per thread when there
 * are several. tf_efg_render_svg pipes it through `dot -Tsvg`.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "efg_impl.h"

#define LABEL_RANKS_MAX 48 /* longer rank lists are cut in labels (the JSON has them whole) */

/* A DOT string's content: quotes and backslashes escaped. */
static void put_esc(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
}

static void put_ranks(FILE *f, const tf_vseq *ranks) {
  char *t = efg_ranks_text(ranks);
  if (!t) return;
  if (strlen(t) > LABEL_RANKS_MAX) strcpy(t + LABEL_RANKS_MAX - 3, "...");
  fputs("\\n@", f);
  put_esc(f, t);
  free(t);
}

/* "x100" (every rank the same), "x90..100" (per rank), and "@<ranks>" when not on every rank. */
static void put_count(const tf_efg *g, FILE *f, const efg_counts *c, const char *prefix) {
  uint64_t lo, hi;
  efg_counts_range(c, &lo, &hi);
  if (lo == hi)
    fprintf(f, "%s%" PRIu64, prefix, lo);
  else
    fprintf(f, "%s%" PRIu64 "..%" PRIu64, prefix, lo, hi);
  if (g->o.rank < 0 && c->ranks.nvalues != (uint64_t)g->nranks) put_ranks(f, &c->ranks);
}

/* A compute delta (unit: tf_time_unit) as "850ns", "1.2us", "3.1M ins". */
static void fmt_delta(double v, unsigned unit, char *buf, size_t len) {
  if (unit == TF_UNIT_INSTRUCTIONS) {
    if (v >= 1e9)
      snprintf(buf, len, "%.3gG ins", v / 1e9);
    else if (v >= 1e6)
      snprintf(buf, len, "%.3gM ins", v / 1e6);
    else if (v >= 1e3)
      snprintf(buf, len, "%.3gk ins", v / 1e3);
    else
      snprintf(buf, len, "%.0f ins", v);
    return;
  }
  if (v >= 1e9)
    snprintf(buf, len, "%.3gs", v / 1e9);
  else if (v >= 1e6)
    snprintf(buf, len, "%.3gms", v / 1e6);
  else if (v >= 1e3)
    snprintf(buf, len, "%.3gus", v / 1e3);
  else
    snprintf(buf, len, "%.0fns", v);
}

static void put_time(const tf_efg *g, FILE *f, const efg_times *t, const char *what) {
  if (!t->n) return;
  tf_tpath all;
  tf_mem m = {0};
  if (efg_times_total(g, t, &all, &m)) return;
  if (all.compute.n) {
    char mean[32], lo[32], hi[32];
    fmt_delta(tf_dstat_mean(&all.compute), g->mt->unit, mean, sizeof mean);
    fmt_delta((double)all.compute.min, g->mt->unit, lo, sizeof lo);
    fmt_delta((double)all.compute.max, g->mt->unit, hi, sizeof hi);
    fprintf(f, "\\n%s%s (%s..%s)", what, mean, lo, hi);
  }
  tf_dstat_free(&all.compute, &m);
  tf_dstat_free(&all.duration, &m);
}

static void put_node(const tf_efg *g, FILE *f, uint32_t i, const char *indent) {
  const efg_node *x = &g->nodes[i];
  char site[512];
  efg_site_label(g, x->site, site, sizeof site);
  fprintf(f, "%sn%" PRIu32 " [label=\"", indent, x->out);
  put_esc(f, g->mt->ft.funcs[x->fn].name);
  fputs("\\n", f);
  put_esc(f, site);
  fputs("\\n", f);
  put_count(g, f, &x->occ, "x");
  if (g->o.time && g->mt->timing != TF_TIMING_PATH) put_time(g, f, &x->entry, "compute ");
  fputs("\"", f);
  for (uint32_t k = 0; k < g->ninits; k++)
    if (g->inits[k].node == i) {
      fputs(", peripheries=2", f);
      break;
    }
  fputs("];\n", f);
}

int tf_efg_write_dot(const tf_efg *g, FILE *f) {
  const tf_trace_info *ti = g->info;
  fputs("digraph efg {\n  graph [fontname=\"Helvetica\", fontsize=11, labelloc=t, label=\"", f);
  const char *prog = strrchr(ti->exe, '/');
  put_esc(f, prog ? prog + 1 : ti->exe);
  if (g->o.rank >= 0)
    fprintf(f, ": rank %" PRId32 " of %" PRId32, g->o.rank, ti->nranks);
  else
    fprintf(f, ": %" PRId32 " ranks", g->nranks);
  fprintf(f, ", %" PRIu64 " events (tracefold efg)\"];\n", g->nevents);
  fputs("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=9];\n",
        f);
  int threads = 0;
  for (uint32_t th = 0; th < g->nthreads; th++)
    for (uint32_t i = 0; i < g->nnodes; i++)
      if (g->nodes[i].out != EFG_NONE && g->nodes[i].thread == th) {
        threads++;
        break;
      }
  for (uint32_t th = 0; th < g->nthreads; th++) {
    int open = 0;
    for (uint32_t i = 0; i < g->nnodes; i++) {
      if (g->nodes[i].out == EFG_NONE || g->nodes[i].thread != th) continue;
      if (threads > 1 && !open) {
        fprintf(f, "  subgraph cluster_thread%" PRIu32 " {\n    label=\"thread %" PRIu32 "\";\n", th, th);
        open = 1;
      }
      put_node(g, f, i, threads > 1 ? "    " : "  ");
    }
    if (open) fputs("  }\n", f);
  }
  for (uint32_t i = 0; i < g->nedges; i++) {
    const efg_edge *e = &g->edges[i];
    fprintf(f, "  n%" PRIu32 " -> n%" PRIu32 " [label=\"", g->nodes[e->from].out, g->nodes[e->to].out);
    put_count(g, f, &e->cnt, "");
    if (g->o.time) put_time(g, f, &e->time, "");
    uint64_t lo, hi;
    efg_counts_range(&e->cnt, &lo, &hi);
    double w = 1 + log10((double)(hi ? hi : 1)) / 2;
    fprintf(f, "\", penwidth=%.2f];\n", w > 4 ? 4 : w);
  }
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}

tf_status tf_efg_render_svg(const tf_efg *g, const char *svg_path, char *err, size_t errlen) {
  int fd[2];
  if (pipe(fd)) {
    snprintf(err, errlen, "%s: cannot run dot: %s", svg_path, strerror(errno));
    return TF_ERR_IO;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    snprintf(err, errlen, "%s: cannot run dot: %s", svg_path, strerror(errno));
    return TF_ERR_IO;
  }
  if (pid == 0) {
    dup2(fd[0], 0);
    close(fd[0]);
    close(fd[1]);
    execlp("dot", "dot", "-Tsvg", "-o", svg_path, (char *)NULL);
    _exit(127);
  }
  close(fd[0]);
  /* dot may stop reading early (it failed): writing must not kill us */
  struct sigaction ign = {.sa_handler = SIG_IGN}, old;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old);
  FILE *f = fdopen(fd[1], "w");
  int wrote = f ? tf_efg_write_dot(g, f) : -1;
  if (f)
    fclose(f);
  else
    close(fd[1]);
  sigaction(SIGPIPE, &old, NULL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    snprintf(err, errlen, "%s: Graphviz's dot was not found (Debian: apt-get install graphviz)", svg_path);
    return TF_ERR_IO;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || wrote) {
    snprintf(err, errlen, "%s: dot -Tsvg failed (exit status %d)", svg_path,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return TF_ERR_IO;
  }
  return TF_OK;
}
