/* cmd_replay.c — `tracefold replay [-n P] [options] TRACE`: run the replay
 * engine under mpirun with the trace's rank count (or P). The options are
 * tracefold-replay's (--compute, --sleep, --scale, --rate, --seed,
 * --any-source, --flat, --quiet). The launcher is TRACEFOLD_MPIRUN (words split on
 * spaces) or the MPI this tracefold was built with; the engine is
 * TRACEFOLD_REPLAY, else tracefold-replay beside this program, else the one
 * of the build. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

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

int cmd_replay(int argc, char **argv) {
  long np = 0;
  if (argc >= 2 && strcmp(argv[0], "-n") == 0) {
    char *end;
    errno = 0;
    np = strtol(argv[1], &end, 10);
    if (errno || *end || np < 1 || np > 1 << 24) {
      fprintf(stderr, "tracefold replay: -n %s: expected a rank count >= 1\n", argv[1]);
      return 2;
    }
    argc -= 2;
    argv += 2;
  }
  if (argc < 1 || argv[argc - 1][0] == '-') {
    fprintf(stderr, "usage: tracefold replay [-n P] [--compute none|mean|histogram] [--sleep] [--scale X] [--rate R]\n"
                    "                        [--seed N] [--any-source] [--flat] [--quiet] TRACE\n");
    return 2;
  }
  const char *trace = argv[argc - 1];
  if (np == 0) { /* the trace's rank count */
    tf_trace *t;
    char err[600];
    if (tf_trace_open(trace, TF_OPEN_PREFER_FLAT, &t, err, sizeof err) != TF_OK) {
      fprintf(stderr, "tracefold replay: %s\n", err);
      return 2;
    }
    np = tf_trace_get_info(t)->nranks;
    tf_trace_close(t);
  }
  const char *launcher = getenv("TRACEFOLD_MPIRUN");
  char *words = strdup(launcher && *launcher ? launcher : TF_MPIRUN_DEFAULT);
  char **args = calloc((size_t)argc + 64, sizeof *args);
  if (!words || !args) {
    fprintf(stderr, "tracefold replay: out of memory\n");
    return 2;
  }
  int k = 0;
  for (char *w = strtok(words, " "); w && k < 56; w = strtok(NULL, " ")) args[k++] = w;
  char npbuf[32], pathbuf[PATH_MAX];
  snprintf(npbuf, sizeof npbuf, "%ld", np);
  args[k++] = "-np";
  args[k++] = npbuf;
  args[k++] = (char *)engine_path(pathbuf, sizeof pathbuf);
  for (int i = 0; i < argc; i++) args[k++] = argv[i];
  args[k] = NULL;
  fflush(stdout);
  execvp(args[0], args);
  fprintf(stderr, "tracefold replay: cannot run %s: %s (set TRACEFOLD_MPIRUN to the MPI launcher)\n", args[0],
          strerror(errno));
  return 2;
}
