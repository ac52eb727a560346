/* cmd_replay.c — `tracefold replay [-n P] [--ranks-limit N] [options] TRACE`:
 * run the replay engine under mpirun with the trace's rank count. The
 * options are tracefold-replay's (--compute, --sleep, --scale, --rate,
 * --seed, --any-source, --flat, --quiet, --io-dir, --io), in any order, checked here
 * before anything is launched; the trace is checked whole (launch.c)
 * before mpirun starts, and a trace of more than --ranks-limit ranks
 * (4096) is refused. While the job runs, the time elapsed on a progress
 * line (a terminal, or --progress). The launcher is TRACEFOLD_MPIRUN (words split on
 * spaces) or the MPI this tracefold was built with; the engine is
 * TRACEFOLD_REPLAY, else tracefold-replay beside this program, else the
 * one of the build. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char tf_help_replay[] =
    "usage: tracefold replay [-n P] [--ranks-limit N] [--compute none|mean|histogram] [--sleep] [--scale X]\n"
    "                        [--rate R] [--seed N] [--any-source] [--flat] [--quiet] [--progress]\n"
    "                        [--io-dir DIR] [--io skip|perform] TRACE\n"
    "  run the trace's MPI calls again: mpirun -np P tracefold-replay TRACE (the trace is checked whole first;\n"
    "  a partial trace is refused)\n"
    "  -n P              the rank count (default and only choice: the trace's)\n"
    "  --ranks-limit N   launch traces of up to N ranks (default 4096)\n"
    "  --compute MODE    compute delays from the trace: none, mean or histogram (default)\n"
    "  --sleep           sleep through compute delays instead of busy-waiting\n"
    "  --scale X         multiply compute delays by X\n"
    "  --rate R          instruction traces: instructions per second\n"
    "  --seed N          seed of the histogram draws\n"
    "  --any-source      keep wildcard receives as MPI_ANY_SOURCE\n"
    "  --flat            replay a trace directory's flat files\n"
    "  --quiet           no per-function table\n"
    "  --progress        the time elapsed on stderr while the job runs, even when stderr is not a terminal\n"
    "  --io-dir DIR      MPI-IO calls open the recorded files in DIR (default: a new directory under $TMPDIR,\n"
    "                    removed at the end)\n"
    "  --io skip         MPI-IO calls touch no file: each takes its recorded duration\n"
    "  (TRACEFOLD_MPIRUN: the launcher; TRACEFOLD_REPLAY: the engine)\n"
    "example: tracefold replay --compute mean tracefold-app-16p\n";

static const char *engine_path(char *buf, size_t len) {
  const char *env = getenv("TRACEFOLD_REPLAY");
  if (env && *env) return env;
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n > 0) {
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash && (size_t)(slash - buf) + sizeof "/tracefold-replay" <= len) {
      strcpy(slash, "/tracefold-replay");
      if (access(buf, X_OK) == 0) return buf;
    }
  }
  return TF_REPLAY_PATH;
}

static int bad_value(const char *opt, const char *v, const char *want) {
  fprintf(stderr, "tracefold replay: %s %s: expected %s\n", opt, v, want);
  return TF_EXIT_USAGE;
}

static int number(const char *s, double lo) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  return !errno && end != s && !*end && v >= lo && v <= 1e30;
}

int cmd_replay(int argc, char **argv) {
  const char *np_s = NULL, *limit_s = NULL, *compute = NULL, *scale = NULL, *rate = NULL, *seed = NULL;
  const char *io_dir = NULL, *io = NULL;
  int sleep_f = 0, any_source = 0, flat = 0, quiet = 0, progress = 0;
  tf_opt opts[] = {{"-n", &np_s, NULL},           {"--ranks-limit", &limit_s, NULL}, {"--compute", &compute, NULL},
                   {"--scale", &scale, NULL},     {"--rate", &rate, NULL},           {"--seed", &seed, NULL},
                   {"--sleep", NULL, &sleep_f},   {"--any-source", NULL, &any_source}, {"--flat", NULL, &flat},
                   {"--quiet", NULL, &quiet},     {"--progress", NULL, &progress},
                   {"--io-dir", &io_dir, NULL},   {"--io", &io, NULL}};
  int rc = tf_options(&argc, argv, "replay", opts, (int)(sizeof opts / sizeof *opts));
  long long np = 0, limit;
  if (!rc && np_s) rc = tf_opt_number("replay", "-n", np_s, 1, INT32_MAX, "a rank count", &np);
  if (!rc) rc = tf_launch_limit("replay", limit_s, &limit);
  if (!rc && np > limit) {
    fprintf(stderr, "tracefold replay: -n %s: above the limit of %lld launched ranks (--ranks-limit N raises it)\n",
            np_s, limit);
    rc = TF_EXIT_USAGE;
  }
  if (!rc && compute && strcmp(compute, "none") && strcmp(compute, "mean") && strcmp(compute, "histogram"))
    rc = bad_value("--compute", compute, "none, mean or histogram");
  if (!rc && io && strcmp(io, "skip") != 0 && strcmp(io, "perform") != 0) rc = bad_value("--io", io, "skip or perform");
  if (!rc && scale && !number(scale, 0)) rc = bad_value("--scale", scale, "a number >= 0");
  if (!rc && rate && (!number(rate, 0) || strtod(rate, NULL) <= 0)) rc = bad_value("--rate", rate, "a number > 0");
  if (!rc && seed) {
    char *end;
    errno = 0;
    strtoull(seed, &end, 10);
    if (errno || !*seed || *end || *seed == '-') rc = bad_value("--seed", seed, "a whole number >= 0");
  }
  if (!rc && argc != 1) {
    fprintf(stderr, "tracefold replay: %s (see tracefold replay --help)\n", argc ? "one trace at a time" : "no trace given");
    rc = TF_EXIT_USAGE;
  }
  if (rc) return rc;
  const char *trace = argv[0];
  int ranks = tf_launch_check("replay", trace, flat ? TF_OPEN_PREFER_FLAT : 0, np, limit);
  if (ranks < 0) return TF_EXIT_FAILED;

  const char *launcher = getenv("TRACEFOLD_MPIRUN");
  char *words = strdup(launcher && *launcher ? launcher : TF_MPIRUN_DEFAULT);
  char *args[96];
  if (!words) {
    fprintf(stderr, "tracefold replay: out of memory\n");
    return TF_EXIT_FAILED;
  }
  int k = 0;
  for (char *w = strtok(words, " "); w && k < 56; w = strtok(NULL, " ")) args[k++] = w;
  char npbuf[32], pathbuf[PATH_MAX];
  snprintf(npbuf, sizeof npbuf, "%d", ranks);
  args[k++] = "-np";
  args[k++] = npbuf;
  args[k++] = (char *)engine_path(pathbuf, sizeof pathbuf);
  if (compute) args[k++] = "--compute", args[k++] = (char *)compute;
  if (scale) args[k++] = "--scale", args[k++] = (char *)scale;
  if (rate) args[k++] = "--rate", args[k++] = (char *)rate;
  if (seed) args[k++] = "--seed", args[k++] = (char *)seed;
  if (sleep_f) args[k++] = "--sleep";
  if (any_source) args[k++] = "--any-source";
  if (flat) args[k++] = "--flat";
  if (quiet) args[k++] = "--quiet";
  if (io_dir) args[k++] = "--io-dir", args[k++] = (char *)io_dir;
  if (io) args[k++] = "--io", args[k++] = (char *)io;
  args[k++] = (char *)trace;
  args[k] = NULL;
  tf_progress p;
  tf_progress_init(&p, "tracefold replay", progress);
  p.note = args[0]; /* the launcher */
  int st = tf_launch("replay", args, 0, &p);
  free(words);
  if (st != 0 && st != -1) fprintf(stderr, "tracefold replay: %s exited with status %d\n", args[0], st);
  return st == 0 ? TF_EXIT_OK : TF_EXIT_FAILED;
}
