/* cmd_report.c — `tracefold report [-o FILE.html] [--flat] [--progress]
 * TRACE`: one self-contained HTML page about the trace (doc/REPORT.md).
 * Parses, prints; the report is src/export/report.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "progress.h"

static void usage(FILE *f) {
  fprintf(f, "usage: tracefold report [-o FILE.html] [--flat] [--progress] TRACE\n"
             "  writes one self-contained HTML page (no network needed): run summary, calls and bytes per function,\n"
             "  the rank x rank communication matrix, compute and MPI time per rank with the imbalance ranking,\n"
             "  the loop structure with counts and times, time histograms\n"
             "  -o FILE.html  where to write it (default: report.html in the current directory)\n"
             "  --flat        read the trace directory's flat files (TRACEFOLD_MODE=both)\n"
             "  --progress    a progress line on stderr even when it is not a terminal\n"
             "example: tracefold report -o app.html tracefold-app-16p && xdg-open app.html\n");
}

static void print_note(const char *text, void *arg) {
  tf_progress_end(arg); /* a note on a line of its own */
  fprintf(stderr, "tracefold report: note: %s\n", text);
}

int cmd_report(int argc, char **argv) {
  tf_report_opts o = TF_REPORT_DEFAULTS;
  const char *out = "report.html", *trace = NULL;
  int progress = 0;
  for (; argc > 0; argc--, argv++) {
    const char *a = argv[0];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--flat") == 0) {
      o.flat = 1;
    } else if (strcmp(a, "--progress") == 0) {
      progress = 1;
    } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && argc >= 2) {
      out = argv[1];
      argc--, argv++;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "tracefold report: unknown option \"%s\"%s (see tracefold report --help)\n", a,
              strcmp(a, "-o") == 0 ? " without its file" : "");
      return 2;
    } else if (trace) {
      fprintf(stderr, "tracefold report: give one trace (a directory or a file), not \"%s\" and \"%s\"\n", trace, a);
      return 2;
    } else {
      trace = a;
    }
  }
  if (!trace) {
    usage(stderr);
    return 2;
  }
  tf_progress p;
  tf_progress_init(&p, "tracefold report", progress);
  o.progress = tf_progress_cb;
  o.progress_arg = &p;
  o.note = print_note;
  o.note_arg = &p;
  static char msg[16384];
  tf_export_status st = tf_report_html(trace, out, &o, msg, sizeof msg);
  tf_progress_end(&p);
  if (st == TF_EXPORT_OK)
    printf("%s\n", msg);
  else
    fprintf(stderr, "tracefold report: %s\n", msg);
  return (int)st;
}
