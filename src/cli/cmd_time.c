/* cmd_time.c — `tracefold time [--rank R] T... TRACE`: which event each rank
 * (or rank R) was in at time T of its timeline, found through the timing
 * tree (tf_timeline) without unrolling. One line per rank and time:
 *
 *   rank 3 t=0.5s: event 1234 MPI_Allreduce cs=<sig> in the call [0.4999s, 0.5001s] iterations [12, 3]
 *
 * T is a time (1.5s, 20ms, 300us, 1000ns; no unit: seconds) or a share of
 * each rank's timeline (50%).
 * "before the call" when T falls in the compute delta that precedes it;
 * iterations: of the loops around the event, outermost first, from 0.
 * Times count from the start of the rank's timeline (the recorder's load).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char tf_help_time[] =
    "usage: tracefold time [--rank R] T... TRACE\n"
    "  the event each rank (or rank R) was in, or computing before, at time T of its timeline, with the\n"
    "  iteration of every loop around it; found without unrolling\n"
    "  T           seconds with an optional unit (1.5s, 20ms, 300us, 1000ns; no unit: seconds) or a share\n"
    "              of each rank's timeline (50%)\n"
    "  --rank R    only rank R\n"
    "example: tracefold time --rank 3 25% 50% 1.5s tracefold-app-16p\n";

int cmd_time(int argc, char **argv) {
  long rank;
  int rc = tf_take_options(&argc, &argv, "time", &rank, NULL);
  if (rc) return rc;
  if (argc < 2) {
    fprintf(stderr, "tracefold time: %s (see tracefold time --help)\n",
            argc ? "give one or more times T (1.5s, 20ms, 50%), then the trace" : "no time and no trace given");
    return 2;
  }
  int nt = argc - 1;
  uint64_t *ts = calloc((size_t)nt, sizeof *ts);
  double *share = calloc((size_t)nt, sizeof *share); /* >= 0: a share of the timeline, in % */
  if (!ts || !share) {
    free(ts);
    free(share);
    return 1;
  }
  for (int i = 0; i < nt; i++) {
    size_t len = strlen(argv[i]);
    share[i] = -1;
    if (len > 1 && argv[i][len - 1] == '%') {
      char *end;
      share[i] = strtod(argv[i], &end);
      if (end != argv[i] + len - 1 || !(share[i] >= 0 && share[i] <= 100)) share[i] = -2;
    } else if (tf_parse_time(argv[i], &ts[i])) {
      share[i] = -2;
    }
    if (share[i] == -2) {
      fprintf(stderr, "tracefold time: \"%s\" is not a time (e.g. 1.5s, 20ms, 300us, 1000ns, or 50%% of the "
                      "timeline)\n", argv[i]);
      free(ts);
      free(share);
      return 2;
    }
  }
  tf_input in;
  if ((rc = tf_input_open(1, argv + nt, TF_INPUT_VALIDATE, "time", &in))) {
    free(ts);
    free(share);
    return rc;
  }
  int32_t *ranks;
  int n;
  if ((rc = tf_input_pick(&in, rank, "time", &ranks, &n))) goto out;
  if (in.info->timing == TF_TIMING_NONE && in.info->source != TF_SOURCE_FLAT)
    fprintf(stderr, "tracefold time: note: this trace keeps no times (TRACEFOLD_TIMING=none): every event takes 0\n");
  for (int r = 0; r < n && !rc; r++) {
    tf_timeline *tl;
    char err[512];
    if (tf_timeline_open(in.t, ranks[r], &tl, err, sizeof err) != TF_OK) {
      fprintf(stderr, "tracefold time: %s: %s\n", argv[nt], err);
      rc = 1;
      break;
    }
    for (int i = 0; i < nt; i++) {
      if (share[i] >= 0) ts[i] = (uint64_t)((double)tf_timeline_end(tl) * share[i] / 100.0);
      tf_time_point p;
      int found = tf_timeline_find(tl, ts[i], &p);
      printf("rank %d t=%.9fs: ", ranks[r], (double)ts[i] / 1e9);
      if (found < 0) {
        printf("?\n");
        fprintf(stderr, "tracefold time: %s: %s\n", argv[nt], tf_timeline_error(tl));
        rc = 1;
        break;
      }
      if (!found) {
        printf("after the last event (the timeline ends at %.9fs)\n", (double)tf_timeline_end(tl) / 1e9);
        continue;
      }
      printf("event %" PRIu64 " %s cs=%016" PRIx64 " %s [%.9fs, %.9fs]", p.index, in.info->funcs[p.fn].name,
             p.callsite, p.in_call ? "in the call" : "before the call", (double)p.start_ns / 1e9,
             (double)p.end_ns / 1e9);
      if (p.thread) printf(" thread %u", p.thread);
      if (p.depth) {
        printf(" iterations [");
        for (uint32_t d = 0; d < p.depth; d++) printf("%s%" PRIu64, d ? ", " : "", p.iteration[d]);
        printf("]");
      }
      printf("\n");
    }
    tf_timeline_close(tl);
  }
out:
  tf_input_close(&in);
  free(ts);
  free(share);
  return rc ? rc : ferror(stdout) ? 1 : 0;
}
