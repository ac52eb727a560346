/* tracefold.c — the `tracefold` command: a thin dispatcher over verbs that
 * call the public library API (include/tracefold.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*run)(int, char **);
  const char *help;
} verbs[] = {
    {"show", cmd_show, "[--rank R] [--no-time] TRACE    the loop structure, with rank lists and times"},
    {"unroll", cmd_unroll, "[--rank R] [--no-time] TRACE  every event of every (or one) rank, one line each"},
    {"dump", cmd_dump, "[--rank R] [--no-time] TRACE    the same, from the flat files if there are any"},
    {"stats", cmd_stats, "TRACE                         ranks, events by function, bytes vs flat, call sites"},
    {"summary", cmd_summary, "TRACE                       calls and bytes by function and rank"},
    {"counts", cmd_counts, "[--rank R] TRACE            one rank's calls by function (MPI_Name count)"},
    {"time", cmd_time, "[--rank R] T... TRACE          the event each rank was in at time T (1.5s, 20ms, 50%, ...)"},
    {"imbalance", cmd_imbalance, "[--top N] TRACE         events by compute-delta spread across ranks"},
    {"replay", cmd_replay, "[-n P] [options] TRACE     run the trace's MPI calls again (mpirun tracefold-replay)"},
    {"simulate", cmd_simulate, "[options] TRACE            replay the trace in SimGrid on another platform (what-if)"},
    {"merge", cmd_merge, "DIR [-o FILE]                 merge per-rank compressed files into one trace file"},
    {"export", cmd_export, "smpi|otf2|chrome [options] TRACE OUT  SimGrid actions, an OTF2 archive, Chrome/Perfetto JSON"},
    {"report", cmd_report, "[-o FILE.html] TRACE         one self-contained HTML page: summary, matrix, loops, times"},
    {"efg", cmd_efg, "[--rank R] [--format F] TRACE   the event flow graph (JSON, DOT, SVG), exactly reconstructible"},
};

static void usage(FILE *f) {
  fprintf(f, "usage: tracefold <verb> [args]\n\nverbs:\n");
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) fprintf(f, "  %-9s %s\n", verbs[i].name, verbs[i].help);
  fprintf(f, "\nTRACE is a trace directory (tracefold-<program>-<P>p), its trace.tf, or one rank's file (rank-<R>.tfc,\n"
             "rank-<R>.flat).\n"
             "Record with: mpirun -np P env LD_PRELOAD=/path/to/libtracefold.so ./program\n"
             "Exit status: 0, or 3 (and a LOSSY line) when the trace lost calls (its recorder stopped recording), or\n"
             "1 or 2 on errors; replay, simulate and export refuse such a trace.\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("tracefold %s\n", TF_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    if (strcmp(argv[1], verbs[i].name) == 0) return tf_input_lossy(verbs[i].run(argc - 2, argv + 2));
  fprintf(stderr, "tracefold: unknown verb \"%s\"\n\n", argv[1]);
  usage(stderr);
  return 2;
}
