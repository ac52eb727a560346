/* cmd_efg.c — `tracefold efg`: a trace's event flow graph (doc/EFG.md),
 * one rank's or one merged over all ranks, as JSON or Graphviz DOT (or SVG
 * through dot); `--replay-check` regenerates every rank's events from the
 * graph's JSON read back and compares them with the trace; `--regenerate`
 * prints the events a graph file regenerates, as `unroll --no-time` does.
 * The work is in src/graph (libtracefold-graph); this parses and prints.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "efg.h"
#include "util/file_io.h"

const char tf_help_efg[] =
    "usage: tracefold efg [--rank R | --all] [--format json|dot|svg] [--time] [--no-structure] [--no-resolve]\n"
    "                     TRACE [-o FILE]\n"
    "       tracefold efg --replay-check [--rank R] TRACE\n"
    "       tracefold efg --regenerate [--rank R] GRAPH.json\n"
    "  the event flow graph (doc/EFG.md): nodes are calls by function and call site, edges the transitions\n"
    "  between them with their counts; built from the compressed trace without unrolling it\n"
    "  --rank R        rank R's graph (default --all: one graph over all ranks, with rank lists)\n"
    "  --format F      json (default; the exact form), dot (Graphviz), svg (rendered by dot);\n"
    "                  by default taken from -o FILE's extension (.json, .dot/.gv, .svg)\n"
    "  -o FILE         where to write it (default: standard output; svg needs a file)\n"
    "  --time          edges carry the compute/call time summaries of their transitions\n"
    "  --no-structure  the graph only (no loop structure: smaller, but cannot regenerate the events)\n"
    "  --no-resolve    call sites as module+offset (no addr2line)\n"
    "  --replay-check  write the graphs as JSON, read them back, regenerate every rank's events from them\n"
    "                  alone and compare with the trace, every field (exit 1 at the first difference)\n"
    "  --regenerate    the events a graph file regenerates, one line each, as unroll --no-time prints them\n"
    "example: tracefold efg -o app.svg tracefold-app-16p\n";

/* A wrong command line: why, and where to look; TF_EXIT_USAGE. */
static int usage(const char *why) {
  fprintf(stderr, "tracefold efg: %s (see tracefold efg --help)\n", why);
  return TF_EXIT_USAGE;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct printer {
  int32_t rank;
  uint64_t seq;
} printer;

static int print_event(const tf_efg_event *ev, void *arg) {
  printer *p = arg;
  char line[8192];
  tf_efg_event_text(ev->fd, ev->callsite, ev->vals, ev->nvals, line, sizeof line);
  printf("%" PRId32 " %u %" PRIu64 " %s\n", p->rank, ev->thread, p->seq++, line);
  return ferror(stdout) ? 1 : 0;
}

static int regenerate(const char *path, long rank) {
  uint8_t *data;
  size_t len;
  char err[1500];
  if (tf_load_file(path, &data, &len, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold efg: %s\n", err);
    return 1;
  }
  tf_efg_doc *d;
  if (tf_efg_doc_parse((const char *)data, len, path, &d, err, sizeof err) != TF_OK) {
    fprintf(stderr, "tracefold efg: %s\n", err);
    free(data);
    return 1;
  }
  free(data);
  const int32_t *ranks;
  int n = tf_efg_doc_ranks(d, &ranks), bad = 0, found = rank < 0;
  for (int i = 0; i < n && !bad; i++) {
    if (rank >= 0 && ranks[i] != rank) continue;
    found = 1;
    printer p = {.rank = ranks[i]};
    int rc = tf_efg_doc_regenerate(d, ranks[i], print_event, &p, NULL, err, sizeof err);
    if (rc < 0) fprintf(stderr, "tracefold efg: %s\n", err);
    bad = rc != 0;
  }
  if (!found) {
    fprintf(stderr, "tracefold efg: %s: rank %ld is not in this graph\n", path, rank);
    bad = 1;
  }
  tf_efg_doc_free(d);
  return bad || ferror(stdout) ? 1 : 0;
}

int cmd_efg(int argc, char **argv) {
  tf_efg_opts o = TF_EFG_OPTS_DEFAULT;
  const char *format = NULL, *out = NULL, *trace = NULL;
  int all = 0, check = 0, regen = 0, with_time = 0, no_structure = 0, no_resolve = 0;
  const char *rank_s = NULL;
  long rank = -1;
  tf_opt opts[] = {{"--rank", &rank_s, NULL},         {"--all", NULL, &all},
                   {"--format", &format, NULL},       {"--time", NULL, &with_time},
                   {"--no-structure", NULL, &no_structure}, {"--no-resolve", NULL, &no_resolve},
                   {"-o", &out, NULL},                {"--replay-check", NULL, &check},
                   {"--regenerate", NULL, &regen}};
  int orc = tf_options(&argc, argv, "efg", opts, (int)(sizeof opts / sizeof *opts));
  if (orc || (orc = tf_opt_rank("efg", rank_s, &rank))) return orc;
  if (format && strcmp(format, "json") != 0 && strcmp(format, "dot") != 0 && strcmp(format, "svg") != 0) {
    fprintf(stderr, "tracefold efg: --format %s: expected json, dot or svg\n", format);
    return TF_EXIT_USAGE;
  }
  o.time = with_time;
  o.structure = !no_structure;
  o.resolve = !no_resolve;
  if (argc > 1) return usage(regen ? "give one graph file" : "give one trace (a directory or a file)");
  trace = argc ? argv[0] : NULL;
  if (!trace) return usage(regen ? "no graph file given" : "no trace given");
  if (all && rank >= 0) return usage("--rank and --all exclude each other");
  if (check + regen > 1) return usage("--replay-check and --regenerate exclude each other");
  if ((check || regen) && (format || out || o.time || !o.structure))
    return usage("--replay-check and --regenerate take only --rank and the trace (or graph file)");
  if (regen) return regenerate(trace, rank);
  if (!check && !format) format = out && (ends_with(out, ".dot") || ends_with(out, ".gv")) ? "dot"
                                  : out && ends_with(out, ".svg")                          ? "svg"
                                                                                           : "json";
  if (!check && strcmp(format, "svg") == 0 && !out) return usage("--format svg writes a file: give -o FILE.svg");
  o.rank = (int32_t)rank;

  tf_input in;
  char *one[1] = {(char *)trace};
  if ((orc = tf_input_open(1, one, 0, "efg", &in))) return orc;
  int32_t *picked;
  int npicked, rc = in.info->source == TF_SOURCE_FLAT ? 0 : tf_input_pick(&in, rank, "efg", &picked, &npicked);
  if (rc) {
    tf_input_close(&in);
    return rc;
  }
  char msg[4096];
  if (check) {
    if (in.info->source == TF_SOURCE_FLAT) o.resolve = 0; /* the build below says why not */
    tf_status st = tf_efg_replay_check(in.t, trace, o.rank, msg, sizeof msg);
    if (st != TF_OK)
      fprintf(stderr, "tracefold efg: replay check FAILED: %s\n", msg);
    else
      printf("efg replay check: %s\n", msg);
    tf_input_close(&in);
    return st == TF_OK && !ferror(stdout) ? 0 : 1;
  }
  if (o.time && in.info->timing == TF_TIMING_NONE)
    fprintf(stderr, "tracefold efg: note: %s keeps no times (recorded with TRACEFOLD_TIMING=none): --time adds "
                    "nothing\n", trace);
  else if (o.time && in.info->timing != TF_TIMING_PATH)
    fprintf(stderr, "tracefold efg: note: %s keeps times per event, not per transition (TRACEFOLD_TIMING=%s; path "
                    "is the default): the nodes carry them, the edges none\n", trace,
            tf_timing_mode_name(in.info->timing));
  tf_efg *g;
  tf_status st = tf_efg_build(in.t, trace, &o, &g, msg, sizeof msg);
  if (st != TF_OK) {
    fprintf(stderr, "tracefold efg: %s\n", msg);
    tf_input_close(&in);
    return 1;
  }
  int bad = 0;
  if (strcmp(format, "svg") == 0) {
    if (tf_efg_render_svg(g, out, msg, sizeof msg) != TF_OK) {
      fprintf(stderr, "tracefold efg: %s\n", msg);
      bad = 1;
    }
  } else {
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
      perror(out);
      bad = 1;
    } else {
      bad = strcmp(format, "dot") == 0 ? tf_efg_write_dot(g, f) : tf_efg_write_json(g, f);
      if (out && fclose(f)) bad = 1;
      if (bad) fprintf(stderr, "tracefold efg: %s: writing failed\n", out ? out : "standard output");
    }
  }
  tf_efg_free(g);
  tf_input_close(&in);
  return bad ? 1 : 0;
}
