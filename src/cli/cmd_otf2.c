/* cmd_otf2.c — `tracefold export otf2 [--flat] [--progress] TRACE OUTDIR`:
 * the trace as an OTF2 archive (OUTDIR/traces.otf2) for Vampir, Scalasca
 * or otf2-print. Parses, prints; the exporter is src/export/otf2.c. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "progress.h"

static void usage(FILE *f) {
  fprintf(f, "usage: tracefold export otf2 [--flat] [--progress] TRACE OUTDIR\n"
             "  writes an OTF2 archive: OUTDIR/traces.otf2 (open it in Vampir, or otf2-print OUTDIR/traces.otf2),\n"
             "  OUTDIR/traces.def and OUTDIR/traces/; OUTDIR must not exist (or be empty)\n"
             "  --flat      read the trace directory's flat files (TRACEFOLD_MODE=both): exact timestamps\n"
             "  --progress  a progress line on stderr even when it is not a terminal\n"
             "example: tracefold export otf2 tracefold-app-16p app-otf2 && otf2-print app-otf2/traces.otf2 | head\n");
}

static void print_note(const char *text, void *arg) {
  tf_progress_end(arg); /* a note on a line of its own */
  fprintf(stderr, "tracefold export otf2: note: %s\n", text);
}

int cmd_export_otf2(int argc, char **argv) {
  tf_export_otf2_opts o = TF_EXPORT_OTF2_DEFAULTS;
  int progress = 0;
  for (; argc > 0 && argv[0][0] == '-' && argv[0][1]; argc--, argv++) {
    if (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[0], "--flat") == 0) {
      o.flat = 1;
    } else if (strcmp(argv[0], "--progress") == 0) {
      progress = 1;
    } else {
      fprintf(stderr, "tracefold export otf2: unknown option \"%s\" (see tracefold export otf2 --help)\n", argv[0]);
      return 2;
    }
  }
  if (argc != 2) {
    usage(stderr);
    return 2;
  }
  if (!tf_export_otf2_available()) {
    fprintf(stderr, "tracefold export otf2: this tracefold was built without the OTF2 library (Debian: "
                    "libopen-trace-format2-dev); install it, then reconfigure and rebuild\n");
    return 2;
  }
  tf_progress p;
  tf_progress_init(&p, "tracefold export otf2", progress);
  o.progress = tf_progress_cb;
  o.progress_arg = &p;
  o.note = print_note;
  o.note_arg = &p;
  static char msg[16384];
  tf_export_status st = tf_export_otf2(argv[0], argv[1], &o, msg, sizeof msg);
  tf_progress_end(&p);
  if (st == TF_EXPORT_OK)
    printf("%s\n", msg);
  else
    fprintf(stderr, "tracefold export otf2: %s\n", msg);
  return (int)st;
}
