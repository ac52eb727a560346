/* forge_trace.c — hostile traces for the tests: a real merged trace
 * changed in one respect and encoded again, so that every checksum is
 * valid and only what the change breaks gives it away.
 *
 *   forge_trace nranks N IN OUT       INFO says N ranks (the ranks present stay)
 *   forge_trace nevents R D IN OUT    RANKS: rank R's event count + D (D may be negative)
 *   forge_trace run ID IN OUT         the run id (hex) of the trace
 *   forge_trace lost R N IN OUT       RANKS: rank R lost N calls (as if its
 *                                     recorder had stopped recording)
 *
 * IN is a merged trace file (trace.tf). Exit 0, or 1 with a message. Used
 * by tests/launch_bounds.sh, tests/cli.sh, tests/lossy.sh and tests/replay_errors.sh, and for the fuzz regression
 * inputs (tests/fuzz/regressions/README.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge/mtrace.h"
#include "util/file_io.h"

static int usage(void) {
  fprintf(stderr, "usage: forge_trace nranks N IN OUT | nevents RANK DELTA IN OUT | lost RANK N IN OUT | run HEXID IN OUT\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 5) return usage();
  const char *op = argv[1], *in = argv[argc - 2], *out = argv[argc - 1];
  int two = strcmp(op, "nevents") == 0 || strcmp(op, "lost") == 0; /* operations with two numbers */
  if (two != (argc == 6)) return usage();
  uint8_t *data;
  size_t len;
  char err[1024];
  tf_mtrace t;
  if (tf_load_file(in, &data, &len, err, sizeof err) != TF_OK || tf_mtrace_decode(data, len, in, &t, err, sizeof err)) {
    fprintf(stderr, "forge_trace: %s\n", err);
    return 1;
  }
  free(data);
  if (strcmp(op, "nranks") == 0) {
    t.nranks = (int32_t)strtol(argv[2], NULL, 10);
  } else if (strcmp(op, "run") == 0) {
    t.run_id = strtoull(argv[2], NULL, 16);
  } else if (two) {
    int64_t k = tf_mtrace_rank_index(&t, (int32_t)strtol(argv[2], NULL, 10));
    if (k < 0) {
      fprintf(stderr, "forge_trace: rank %s is not in %s\n", argv[2], in);
      return 1;
    }
    int lost = strcmp(op, "lost") == 0;
    tf_vseq *field = lost ? &t.lost : &t.nevents, counts;
    long long n = strtoll(argv[3], NULL, 10);
    tf_vseq_init(&counts);
    for (int64_t i = 0; i < (int64_t)t.present.nvalues; i++) {
      int64_t was = (int64_t)field->nvalues > i ? tf_vseq_value_at(field, i) : 0;
      tf_vseq_push(&counts, i != k ? was : lost ? n : was + n, &t.mem);
    }
    tf_vseq_free(field, &t.mem);
    *field = counts;
  } else {
    return usage();
  }
  tf_buf b = {0};
  FILE *f = NULL;
  int bad = tf_mtrace_encode(&t, &b, TF_TRACE_ZSTD_LEVEL) || !(f = fopen(out, "wb")) || fwrite(b.data, 1, b.len, f) != b.len;
  if (f && fclose(f)) bad = 1;
  if (bad) fprintf(stderr, "forge_trace: cannot write %s\n", out);
  tf_buf_free(&b);
  tf_mtrace_free(&t);
  return bad;
}
