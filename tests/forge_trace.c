/* forge_trace.c — hostile traces for the tests: a real merged trace
 * changed in one respect and encoded again, so that every checksum is
 * valid and only what the change breaks gives it away.
 *
 *   forge_trace nranks N IN OUT       INFO says N ranks (the ranks present stay)
 *   forge_trace nevents R D IN OUT    RANKS: rank R's event count + D (D may be negative)
 *   forge_trace run ID IN OUT         the run id (hex) of the trace
 *   forge_trace lost R N IN OUT       RANKS: rank R lost N calls (as if its
 *                                     recorder had stopped recording)
 *   forge_trace stored IN OUT         nothing changed, the body stored without
 *                                     compression (doc/FORMAT.md 3.1, codec 0),
 *                                     for byte edits by scripts
 *   forge_trace bins IN OUT           the first compute summary of 3 samples or
 *                                     more: its samples all in a last bin
 *                                     [max + 1, max + 2], above max (written
 *                                     with exact bins, as ranks send them)
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

/* The first event's compute summary below nodes x[0..n) with 3 samples or
 * more and bins: its samples moved into a bin above max. 1 if found. */
static int bins_above_max(tf_mnode **x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop) {
      if (bins_above_max(x[i]->body, x[i]->nbody)) return 1;
      continue;
    }
    for (uint32_t p = 0; p < x[i]->timing.npaths; p++)
      for (uint32_t g = 0; g < x[i]->timing.paths[p].n; g++) {
        tf_dstat *d = &x[i]->timing.paths[p].g[g].t.compute;
        if (d->n < 3 || d->nbins < 2 || d->max > UINT64_MAX / 4) continue;
        d->nbins = 2; /* the array holds at least two */
        d->bins[0] = (tf_bin){.lo = d->bins[0].lo, .hi = d->max + 1, .mean = (double)d->bins[0].lo};
        d->bins[1] = (tf_bin){.lo = d->max + 1, .hi = d->max + 2, .n = d->n, .mean = (double)d->max + 1};
        return 1;
      }
  }
  return 0;
}

static int usage(void) {
  fprintf(stderr,
          "usage: forge_trace nranks N IN OUT | nevents RANK DELTA IN OUT | lost RANK N IN OUT | run HEXID IN OUT | bins IN OUT | stored IN OUT\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 4 || (argc < 5 && strcmp(argv[1], "bins") != 0 && strcmp(argv[1], "stored") != 0)) return usage();
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
  int exact = 0; /* bins as they are (tf_mtrace_encode_exact) */
  int level = TF_TRACE_ZSTD_LEVEL;
  if (strcmp(op, "stored") == 0) {
    if (argc != 4) return usage();
    level = 0;
  } else if (strcmp(op, "bins") == 0) {
    if (argc != 4) return usage();
    if (!bins_above_max(t.top, t.ntop)) {
      fprintf(stderr, "forge_trace: %s has no summary of 3 samples or more with bins\n", in);
      return 1;
    }
    exact = 1;
  } else if (strcmp(op, "nranks") == 0) {
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
  int bad = (exact ? tf_mtrace_encode_exact(&t, &b) : tf_mtrace_encode(&t, &b, level)) || !(f = fopen(out, "wb")) || fwrite(b.data, 1, b.len, f) != b.len;
  if (f && fclose(f)) bad = 1;
  if (bad) fprintf(stderr, "forge_trace: cannot write %s\n", out);
  tf_buf_free(&b);
  tf_mtrace_free(&t);
  return bad;
}
