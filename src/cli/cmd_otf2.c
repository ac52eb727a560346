/* cmd_otf2.c — `tracefold export otf2 [--flat] [--progress] TRACE OUTDIR`:
 * the trace as an OTF2 archive (OUTDIR/traces.otf2) for Vampir, Scalasca
 * or otf2-print. Parses, prints; the exporter is src/export/otf2.c. */
#include <stdio.h>

#include "cli.h"
#include "export.h"
#include "progress.h"

const char tf_help_export_otf2[] =
    "usage: tracefold export otf2 [--flat] [--progress] TRACE OUTDIR\n"
    "  writes an OTF2 archive: OUTDIR/traces.otf2 (open it in Vampir, or otf2-print OUTDIR/traces.otf2),\n"
    "  OUTDIR/traces.def and OUTDIR/traces/; OUTDIR must not exist (or be empty)\n"
    "  --flat      read the trace directory's flat files (TRACEFOLD_MODE=both): exact timestamps\n"
    "  --progress  a progress line on stderr even when it is not a terminal\n"
    "example: tracefold export otf2 tracefold-app-16p app-otf2 && otf2-print app-otf2/traces.otf2 | head\n";

int cmd_export_otf2(int argc, char **argv) {
  tf_export_otf2_opts o = TF_EXPORT_OTF2_DEFAULTS;
  int progress = 0, flat = 0;
  tf_opt opts[] = {{"--flat", NULL, &flat}, {"--progress", NULL, &progress}};
  int rc = tf_options(&argc, argv, "export otf2", opts, 2);
  if (rc) return rc;
  o.flat = flat;
  if (argc != 2) {
    fprintf(stderr, "tracefold export otf2: %s (see tracefold export otf2 --help)\n",
            argc < 2 ? "give the trace and the output directory" : "one trace and one output directory");
    return TF_EXIT_USAGE;
  }
  if (!tf_export_otf2_available()) {
    fprintf(stderr, "tracefold export otf2: this tracefold was built without the OTF2 library (Debian: "
                    "libopen-trace-format2-dev); install it, then reconfigure and rebuild\n");
    return TF_EXIT_FAILED;
  }
  tf_progress p;
  tf_progress_init(&p, "tracefold export otf2", progress);
  o.progress = tf_progress_cb;
  o.progress_arg = &p;
  o.note = tf_progress_note;
  o.note_arg = &p;
  static char msg[16384];
  tf_export_status st = tf_export_otf2(argv[0], argv[1], &o, msg, sizeof msg);
  return tf_export_outcome(&p, st == TF_EXPORT_OK, msg);
}
