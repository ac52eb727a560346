/* cmd_export.c — `tracefold export FORMAT ...`: dispatches to the formats
 * (otf2 and chrome: cmd_otf2.c, cmd_chrome.c), and is
 * `tracefold export smpi [--ref-speed FLOPS] [--compute none|mean] TRACE OUTDIR`:
 * the trace as SimGrid's time-independent action files (OUTDIR/rank-<r>.txt,
 * OUTDIR/index.txt for `smpirun -replay`). The verb parses the options and
 * prints the outcome; the exporter is src/export/ (tf_export_smpi), the
 * mapping doc/EXPORT.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"

const char tf_help_export[] =
    "usage: tracefold export smpi|otf2|chrome [options] TRACE OUT\n"
    "  the trace in another tool's format:\n"
    "  smpi    SimGrid's time-independent action files, for smpirun -replay (OUT: a directory)\n"
    "  otf2    an OTF2 archive, for Vampir, Scalasca or otf2-print (OUT: a directory)\n"
    "  chrome  Trace Event Format JSON, for Perfetto and chrome://tracing (OUT: a file)\n"
    "  tracefold export FORMAT --help (or tracefold help export FORMAT): the format's options\n"
    "example: tracefold export chrome tracefold-app-16p app.json\n";

const char tf_help_export_smpi[] =
    "usage: tracefold export smpi [--ref-speed FLOPS] [--compute none|mean] TRACE OUTDIR\n"
    "  writes OUTDIR/rank-<r>.txt (SimGrid time-independent actions) and OUTDIR/index.txt;\n"
    "  replay with: smpirun -np P -platform PLATFORM.xml -hostfile HOSTS -replay OUTDIR/index.txt\n"
    "  --ref-speed  flop/s of the reference host that compute deltas are converted at (default 1e9;\n"
    "               suffixes k, M, G, T and a trailing f accepted: 1Gf)\n"
    "  --compute    mean: a compute action before each call with the recorded compute delta (default);\n"
    "               none: communication only\n"
    "example: tracefold export smpi --ref-speed 2Gf tracefold-app-16p app-smpi\n";

/* "1e9", "2.5G", "1Gf" -> flop/s; 0 or -1. */
static int parse_speed(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s) return -1;
  const char *units = "kMGTP";
  const char *u = *end ? strchr(units, *end) : NULL;
  if (u) {
    for (const char *p = units; p <= u; p++) v *= 1000;
    end++;
  }
  if (*end == 'f') end++;
  if (*end || !(v > 0) || v > 1e30) return -1;
  *out = v;
  return 0;
}

static int export_smpi(int argc, char **argv) {
  tf_export_smpi_opts o = TF_EXPORT_SMPI_DEFAULTS;
  tf_progress p; /* no progress line: the notes only */
  tf_progress_init(&p, "tracefold export smpi", 0);
  o.note = tf_progress_note;
  o.note_arg = &p;
  const char *speed = NULL, *compute = NULL;
  tf_opt opts[] = {{"--ref-speed", &speed, NULL}, {"--compute", &compute, NULL}};
  int rc = tf_options(&argc, argv, "export smpi", opts, 2);
  if (rc) return rc;
  if (speed && parse_speed(speed, &o.ref_speed)) {
    fprintf(stderr, "tracefold export smpi: --ref-speed takes flop/s (1e9, 2.5Gf), not \"%s\"\n", speed);
    return TF_EXIT_USAGE;
  }
  if (compute) {
    if (strcmp(compute, "mean") && strcmp(compute, "none")) {
      fprintf(stderr, "tracefold export smpi: --compute takes none or mean, not \"%s\"\n", compute);
      return TF_EXIT_USAGE;
    }
    o.compute = strcmp(compute, "mean") == 0;
  }
  if (argc != 2) {
    fprintf(stderr, "tracefold export smpi: %s (see tracefold export smpi --help)\n",
            argc < 2 ? "give the trace and the output directory" : "one trace and one output directory");
    return TF_EXIT_USAGE;
  }
  static char msg[16384]; /* paths and a message */
  tf_export_status st = tf_export_smpi(argv[0], argv[1], &o, msg, sizeof msg);
  return tf_export_outcome(&p, st == TF_EXPORT_OK, msg);
}

int tf_export_outcome(tf_progress *p, int ok, const char *msg) {
  if (p) tf_progress_end(p);
  if (ok)
    printf("%s\n", msg);
  else
    fprintf(stderr, "%s: %s\n", p ? p->what : "tracefold", msg);
  return ok ? TF_EXIT_OK : TF_EXIT_FAILED; /* refused (the trace) or failed (writing) */
}

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} formats[] = {{"smpi", export_smpi, tf_help_export_smpi},
               {"otf2", cmd_export_otf2, tf_help_export_otf2},
               {"chrome", cmd_export_chrome, tf_help_export_chrome}};

int cmd_export(int argc, char **argv) {
  for (size_t i = 0; argc >= 1 && i < sizeof formats / sizeof *formats; i++) {
    if (strcmp(argv[0], formats[i].name) != 0) continue;
    int rc = formats[i].run(argc - 1, argv + 1);
    if (rc != TF_EXIT_HELP) return rc;
    fputs(formats[i].help, stdout); /* the format's help, not export's */
    return fflush(stdout) == 0 && !ferror(stdout) ? TF_EXIT_OK : TF_EXIT_FAILED;
  }
  for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) /* no format: --help anywhere is export's */
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return TF_EXIT_HELP;
  fprintf(stderr, "tracefold export: %s%s%s; the formats are smpi (SimGrid's time-independent actions), otf2 (an OTF2 "
                  "archive) and chrome (Trace Event Format JSON) (see tracefold export --help)\n",
          argc < 1 ? "no format given" : "unknown format \"", argc < 1 ? "" : argv[0], argc < 1 ? "" : "\"");
  return TF_EXIT_USAGE;
}
