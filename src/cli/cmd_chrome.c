/* cmd_chrome.c — `tracefold export chrome [--ranks LIST] [--from T] [--to T]
 * [--flat] [--progress] TRACE FILE.json`: the trace in the Trace Event
 * Format (chrome://tracing, Perfetto). Parses, prints; the exporter is
 * src/export/chrome.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "progress.h"

const char tf_help_export_chrome[] =
    "usage: tracefold export chrome [--ranks LIST] [--from T] [--to T] [--flat] [--progress] TRACE FILE.json\n"
    "  writes FILE.json in the Trace Event Format: open it in https://ui.perfetto.dev or chrome://tracing\n"
    "  (a process per rank, a thread per MPI thread, slices for calls and compute, arrows for messages)\n"
    "  --ranks LIST  only these ranks: 0,2,5-8\n"
    "  --from T      only what happens from T on: seconds (1.5, 1.5s, 20ms, 300us) or a percentage of\n"
    "                the trace's length (25%)\n"
    "  --to T        ... and up to T\n"
    "  --flat        read the trace directory's flat files (TRACEFOLD_MODE=both): exact times\n"
    "  --progress    a progress line on stderr even when it is not a terminal\n"
    "example: tracefold export chrome --ranks 0-3 --from 10% --to 20% tracefold-app-64p app.json\n";

/* "0,2,5-8" -> ranks (malloc'ed, ascending, no repeats); 0 or -1 */
static int parse_ranks(const char *s, int32_t **out, size_t *n) {
  size_t cap = 16, k = 0;
  int32_t *v = malloc(cap * sizeof *v);
  const char *p = s;
  while (v && *p) {
    char *end;
    errno = 0;
    long a = strtol(p, &end, 10), b = a;
    if (end == p || a < 0 || errno) break;
    p = end;
    if (*p == '-') {
      b = strtol(p + 1, &end, 10);
      if (end == p + 1 || b < a || b > (1L << 24)) break;
      p = end;
    }
    for (long r = a; r <= b; r++) {
      int dup = 0;
      for (size_t i = 0; i < k && !dup; i++) dup = v[i] == r;
      if (dup) continue;
      if (k == cap) {
        int32_t *nv = realloc(v, (cap *= 2) * sizeof *nv);
        if (!nv) goto bad;
        v = nv;
      }
      v[k++] = (int32_t)r;
    }
    if (*p == ',') p++;
    else if (*p) break;
    if (!*p) {
      for (size_t i = 1; i < k; i++) /* ascending */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
          int32_t t = v[j];
          v[j] = v[j - 1];
          v[j - 1] = t;
        }
      *out = v;
      *n = k;
      return k ? 0 : -1;
    }
  }
bad:
  free(v);
  return -1;
}

static int parse_when(const char *s, tf_export_when *w) {
  size_t len = strlen(s);
  if (len > 1 && s[len - 1] == '%') {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end != s + len - 1 || !(v >= 0 && v <= 100)) return -1;
    *w = (tf_export_when){v, 1, 1};
    return 0;
  }
  uint64_t ns;
  if (tf_parse_time(s, &ns)) return -1;
  *w = (tf_export_when){(double)ns / 1e9, 0, 1};
  return 0;
}

int cmd_export_chrome(int argc, char **argv) {
  tf_export_chrome_opts o = TF_EXPORT_CHROME_DEFAULTS;
  int progress = 0, flat = 0;
  const char *ranks_s = NULL, *from_s = NULL, *to_s = NULL;
  tf_opt opts[] = {{"--ranks", &ranks_s, NULL}, {"--from", &from_s, NULL}, {"--to", &to_s, NULL},
                   {"--flat", NULL, &flat},      {"--progress", NULL, &progress}};
  int rc = tf_options(&argc, argv, "export chrome", opts, (int)(sizeof opts / sizeof *opts));
  if (rc) return rc;
  o.flat = flat;
  const char *bad_when = from_s && parse_when(from_s, &o.from) ? "--from" : to_s && parse_when(to_s, &o.to) ? "--to" : NULL;
  if (bad_when) {
    fprintf(stderr, "tracefold export chrome: %s %s: expected seconds (1.5, 20ms) or a percentage (25%%)\n", bad_when,
            strcmp(bad_when, "--from") == 0 ? from_s : to_s);
    return TF_EXIT_USAGE;
  }
  int32_t *ranks = NULL;
  if (ranks_s && parse_ranks(ranks_s, &ranks, &o.nranks)) {
    fprintf(stderr, "tracefold export chrome: --ranks %s: expected ranks and ranges (0,2,5-8)\n", ranks_s);
    return TF_EXIT_USAGE;
  }
  if (argc != 2) {
    fprintf(stderr, "tracefold export chrome: %s (see tracefold export chrome --help)\n",
            argc < 2 ? "give the trace and the output file" : "one trace and one output file");
    free(ranks);
    return TF_EXIT_USAGE;
  }
  o.ranks = ranks;
  tf_progress p;
  tf_progress_init(&p, "tracefold export chrome", progress);
  o.progress = tf_progress_cb;
  o.progress_arg = &p;
  o.note = tf_progress_note;
  o.note_arg = &p;
  static char msg[16384];
  tf_export_status st = tf_export_chrome(argv[0], argv[1], &o, msg, sizeof msg);
  free(ranks);
  return tf_export_outcome(&p, st == TF_EXPORT_OK, msg);
}
