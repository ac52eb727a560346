/* report_graph.c — the report's event flow graph section (report_graph.h;
 * doc/REPORT.md, doc/EFG.md): the trace's merged event flow graph, built
 * by src/graph (tf_efg_build) without its loop structure, drawn by
 * Graphviz dot (tf_efg_render_svg into a temporary file) and embedded as
 * inline SVG, so that the page stays self-contained. */
#define _POSIX_C_SOURCE 200809L
#include "report_graph.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "efg.h"
#include "json.h"
#include "util/file_io.h"

static void section_start(FILE *f, const tf_efg_stats *s, int drawn) {
  fprintf(f, "<section id=\"flow-graph\" data-available=\"1\" data-nodes=\"%" PRIu32 "\" data-edges=\"%" PRIu32
             "\" data-drawn=\"%d\"><h2>Event flow graph</h2>\n",
          s ? s->nodes : 0, s ? s->edges : 0, drawn);
}

/* The section without a drawing: why (text, HTML-escaped). */
static void no_drawing(FILE *f, const tf_efg_stats *s, const char *why, const char *name) {
  section_start(f, s, 0);
  fputs("<p class=\"lead flow-missing\">No drawing of the event flow graph: ", f);
  xp_html_text(f, why);
  fputs(" Draw it with <code>tracefold efg -o graph.svg ", f);
  xp_html_text(f, name);
  fputs("</code>.</p>\n</section>\n", f);
}

/* The SVG document in `svg` from its <svg> element on (no XML prolog or
 * doctype: it is inline in HTML). */
static void put_svg(FILE *f, const char *svg, size_t len) {
  const char *start = strstr(svg, "<svg");
  if (!start) return;
  fwrite(start, 1, len - (size_t)(start - svg), f);
}

int xp_report_flow_graph(FILE *f, tf_trace *t, const char *name, uint32_t max_nodes) {
  tf_efg_opts o = TF_EFG_OPTS_DEFAULT; /* merged over all ranks, call sites resolved */
  o.structure = 0;                     /* the drawing needs the graph only */
  tf_efg *g;
  char err[2048], why[2600];
  tf_status st = tf_efg_build(t, name, &o, &g, err, sizeof err);
  if (st == TF_ERR_NOMEM) return -1;
  if (st != TF_OK) {
    snprintf(why, sizeof why, "%s.", err);
    no_drawing(f, NULL, why, name);
    return 0;
  }
  tf_efg_stats s;
  tf_efg_get_stats(g, &s);
  uint64_t max_edges = (uint64_t)max_nodes * XP_GRAPH_EDGES_PER_NODE;
  if (max_nodes == 0) {
    snprintf(why, sizeof why, "the graph has %" PRIu32 " nodes and %" PRIu32 " edges; this report was written with "
             "--graph-limit 0.", s.nodes, s.edges);
    no_drawing(f, &s, why, name);
    tf_efg_free(g);
    return 0;
  }
  if (s.nodes > max_nodes || s.edges > max_edges) {
    snprintf(why, sizeof why, "the graph has %" PRIu32 " nodes and %" PRIu32 " edges; this report draws graphs of up "
             "to %" PRIu32 " nodes and %" PRIu64 " edges (tracefold report --graph-limit N: N nodes, %d N edges).",
             s.nodes, s.edges, max_nodes, max_edges, XP_GRAPH_EDGES_PER_NODE);
    no_drawing(f, &s, why, name);
    tf_efg_free(g);
    return 0;
  }
  const char *tmpdir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%.4000s/tracefold-report-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    snprintf(why, sizeof why, "no temporary file for Graphviz's drawing in %s.", tmpdir && *tmpdir ? tmpdir : "/tmp");
    no_drawing(f, &s, why, name);
    tf_efg_free(g);
    return 0;
  }
  close(fd);
  st = tf_efg_render_svg(g, path, err, sizeof err);
  tf_efg_free(g);
  uint8_t *svg = NULL;
  size_t len = 0;
  if (st == TF_OK) st = tf_load_file(path, &svg, &len, err, sizeof err);
  unlink(path);
  if (st != TF_OK) {
    size_t k = strlen(path); /* the message names the temporary file: leave it out */
    const char *e = strncmp(err, path, k) == 0 && err[k] == ':' ? err + k + 2 : err;
    snprintf(why, sizeof why, "%s.", e);
    no_drawing(f, &s, why, name);
    return 0;
  }
  section_start(f, &s, 1);
  fprintf(f, "<p class=\"lead\">The trace's event flow graph, merged over its %" PRId32 " rank%s: a node per MPI call "
             "by function, call site and thread, with its count per rank (x100; x90..100 when ranks differ) and the "
             "ranks it occurs on when not all of them (@ and a rank list of &lt;dims start count stride&gt; blocks, "
             "as in the loop structure); an edge per observed transition between consecutive calls, with its "
             "count. The first call of each thread has a double border. %" PRIu32 " nodes, %" PRIu32
             " edges (doc/EFG.md).</p>\n<div class=\"flow-svg\">\n",
          s.nranks, s.nranks == 1 ? "" : "s", s.nodes, s.edges);
  put_svg(f, (const char *)svg, len);
  fputs("</div>\n</section>\n", f);
  free(svg);
  return 0;
}
