/* tracefold.c — the `tracefold` command: a thin dispatcher over verbs that
 * call the public library API (include/tracefold.h). The one table of
 * verbs below drives dispatch, `tracefold help` and every verb's --help. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct verb {
  const char *name;
  const char *summary; /* one line in `tracefold help` */
  int (*run)(int, char **);
  const char *help;    /* usage, options and an example: --help, -h, `tracefold help VERB` */
} verb;

static const verb verbs[] = {
    {"show", "the loop structure, with rank lists and times", cmd_show, tf_help_show},
    {"unroll", "every event of every (or one) rank, one line each", cmd_unroll, tf_help_unroll},
    {"dump", "the same, from the flat files if there are any", cmd_dump, tf_help_dump},
    {"stats", "ranks, events by function, bytes vs flat, call sites", cmd_stats, tf_help_stats},
    {"summary", "calls and bytes by function and rank", cmd_summary, tf_help_summary},
    {"counts", "one rank's calls by function (MPI_Name count)", cmd_counts, tf_help_counts},
    {"time", "the event each rank was in at time T (1.5s, 20ms, 50%, ...)", cmd_time, tf_help_time},
    {"imbalance", "events by compute-delta spread across ranks", cmd_imbalance, tf_help_imbalance},
    {"replay", "run the trace's MPI calls again (mpirun tracefold-replay)", cmd_replay, tf_help_replay},
    {"simulate", "replay the trace in SimGrid on another platform (what-if)", cmd_simulate, tf_help_simulate},
    {"merge", "merge per-rank compressed files into one trace file", cmd_merge, tf_help_merge},
    {"extrapolate", "a trace for P ranks from traces at 3+ smaller rank counts", cmd_extrapolate,
     tf_help_extrapolate},
    {"export", "smpi|otf2|chrome: SimGrid actions, an OTF2 archive, Chrome/Perfetto JSON", cmd_export,
     tf_help_export},
    {"report", "one self-contained HTML page: summary, matrix, loops, times, flow graph", cmd_report, tf_help_report},
    {"efg", "the event flow graph (JSON, DOT, SVG), exactly reconstructible", cmd_efg, tf_help_efg},
    {"cst", "static analysis of C sources: loops, branches and MPI calls (libclang)", cmd_cst, tf_help_cst},
    {"genapp", "one self-contained C MPI program that makes the trace's calls again", cmd_genapp, tf_help_genapp},
};
enum { NVERBS = sizeof verbs / sizeof verbs[0] };

static void usage(FILE *f) {
  fprintf(f, "usage: tracefold <verb> [options] [args]\n\nverbs:\n");
  for (int i = 0; i < NVERBS; i++) fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
  fprintf(f, "  %-10s %s\n  %-10s %s\n", "help", "this list; help VERB: the verb's usage, options and an example",
          "version", "tracefold's version");
  fprintf(f, "\ntracefold VERB --help (or -h, or tracefold help VERB): the verb's usage, options and an example.\n"
             "TRACE is a trace directory (tracefold-<program>-<P>p), its trace.tf, or one rank's file (rank-<R>.tfc,\n"
             "rank-<R>.flat).\n"
             "Record with: mpirun -np P env LD_PRELOAD=/path/to/libtracefold.so ./program\n"
             "Exit status: 0 done; 1 the trace is missing, unreadable or refused, or the work failed; 2 a wrong\n"
             "command line; 3 (and a LOSSY line) the trace lost calls (its recorder stopped recording).\n");
}

static const verb *find_verb(const char *name) {
  for (int i = 0; i < NVERBS; i++)
    if (strcmp(name, verbs[i].name) == 0) return &verbs[i];
  return NULL;
}

static int unknown_verb(const char *name) {
  fprintf(stderr, "tracefold: unknown verb \"%s\" (see tracefold help)\n", name);
  return TF_EXIT_USAGE;
}

/* The verb's exit status; its help on stdout when it was asked for. */
static int run_verb(const verb *v, int argc, char **argv) {
  int rc = v->run(argc, argv);
  if (rc != TF_EXIT_HELP) return tf_input_lossy(rc);
  fputs(v->help, stdout);
  return fflush(stdout) == 0 && !ferror(stdout) ? TF_EXIT_OK : TF_EXIT_FAILED;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return TF_EXIT_USAGE;
  }
  int help = strcmp(argv[1], "help") == 0;
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      (help && (argc == 2 || strcmp(argv[2], "help") == 0 || strcmp(argv[2], "version") == 0))) {
    usage(stdout);
    return TF_EXIT_OK;
  }
  if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("tracefold %s\n", TF_VERSION_STRING);
    return TF_EXIT_OK;
  }
  if (help) { /* help VERB [FORMAT]: exactly VERB [FORMAT] --help */
    const verb *v = find_verb(argv[2]);
    if (!v) return unknown_verb(argv[2]);
    if (argc > 4) {
      fprintf(stderr, "tracefold help: one verb at a time (tracefold help VERB, or tracefold help export FORMAT)\n");
      return TF_EXIT_USAGE;
    }
    char *args[3] = {argc == 4 ? argv[3] : "--help", "--help", NULL};
    return run_verb(v, argc == 4 ? 2 : 1, args);
  }
  const verb *v = find_verb(argv[1]);
  return v ? run_verb(v, argc - 2, argv + 2) : unknown_verb(argv[1]);
}
