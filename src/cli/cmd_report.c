/* cmd_report.c — `tracefold report [-o FILE.html] [--flat] [--progress]
 * TRACE`: one self-contained HTML page about the trace (doc/REPORT.md).
 * Parses, prints; the report is src/export/report.c. */
#include <stdio.h>

#include "cli.h"
#include "export.h"
#include "progress.h"

const char tf_help_report[] =
    "usage: tracefold report [-o FILE.html] [--flat] [--progress] [--graph-limit N] TRACE\n"
    "  writes one self-contained HTML page (no network needed): run summary, calls and bytes per function,\n"
    "  the rank x rank communication matrix, compute and MPI time per rank with the imbalance ranking,\n"
    "  the loop structure with counts and times, time histograms, the merged event flow graph (drawn by\n"
    "  Graphviz dot when it is installed)\n"
    "  -o FILE.html     where to write it (default: report.html in the current directory; also --output)\n"
    "  --flat           read the trace directory's flat files (TRACEFOLD_MODE=both)\n"
    "  --progress       a progress line on stderr even when it is not a terminal\n"
    "  --graph-limit N  draw the flow graph when it has up to N nodes and 4N edges (default 300; 0: never)\n"
    "example: tracefold report -o app.html tracefold-app-16p && xdg-open app.html\n";

int cmd_report(int argc, char **argv) {
  tf_report_opts o = TF_REPORT_DEFAULTS;
  const char *out = NULL, *out_long = NULL, *limit_s = NULL;
  int progress = 0, flat = 0;
  tf_opt opts[] = {{"-o", &out, NULL}, {"--output", &out_long, NULL}, {"--flat", NULL, &flat},
                   {"--progress", NULL, &progress}, {"--graph-limit", &limit_s, NULL}};
  int rc = tf_options(&argc, argv, "report", opts, (int)(sizeof opts / sizeof *opts));
  long long limit = TF_REPORT_GRAPH_LIMIT;
  if (!rc && limit_s) rc = tf_opt_number("report", "--graph-limit", limit_s, 0, 100000, "a number of nodes", &limit);
  if (rc) return rc;
  o.graph_limit = (uint32_t)limit;
  if (out && out_long) {
    fprintf(stderr, "tracefold report: -o %s and --output %s: give one output file\n", out, out_long);
    return TF_EXIT_USAGE;
  }
  if (!out) out = out_long ? out_long : "report.html";
  o.flat = flat;
  if (argc != 1) {
    fprintf(stderr, "tracefold report: %s (see tracefold report --help)\n",
            argc ? "give one trace (a directory or a file)" : "no trace given");
    return TF_EXIT_USAGE;
  }
  const char *trace = argv[0];
  tf_progress p;
  tf_progress_init(&p, "tracefold report", progress);
  o.progress = tf_progress_cb;
  o.progress_arg = &p;
  o.note = tf_progress_note;
  o.note_arg = &p;
  static char msg[16384];
  tf_export_status st = tf_report_html(trace, out, &o, msg, sizeof msg);
  return tf_export_outcome(&p, st == TF_EXPORT_OK, msg);
}
