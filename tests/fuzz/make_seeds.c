/* make_seeds.c — merged-trace seeds for the fuzzer, from real traces.
 *
 *   make_seeds OUT FILE...
 *
 * FILE... is either one merged trace file (trace.tf) or per-rank compressed
 * files in rank order (merged here as tf_trace_open merges them). Writes
 * OUT.stored.tf (sections stored raw: what the mutator can work on, since
 * mutated zstd data is just a decompression error) and OUT.zstd.tf
 * (sections compressed, as a run writes them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_io.h"
#include "mtrace.h"

static int die(const char *what, const char *msg) {
  fprintf(stderr, "make_seeds: %s: %s\n", what, msg);
  return 1;
}

static int write_out(const char *out, const char *suffix, const tf_mtrace *t, int level) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%s.tf", out, suffix);
  tf_buf b = {0};
  if (tf_mtrace_encode(t, &b, level)) return die(path, "out of memory");
  FILE *f = fopen(path, "wb");
  int bad = !f || fwrite(b.data, 1, b.len, f) != b.len;
  if (f && fclose(f)) bad = 1;
  tf_buf_free(&b);
  return bad ? die(path, "cannot write") : 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: make_seeds OUT TRACE.tf | make_seeds OUT RANK-FILE.tfc...\n");
    return 2;
  }
  char err[1024];
  tf_mtrace t = {0};
  uint8_t *data;
  size_t len;
  if (tf_load_file(argv[2], &data, &len, err, sizeof err)) return die(argv[2], err);
  int merged = len >= 8 && memcmp(data, TF_TRACE_MAGIC, 8) == 0;
  tf_status st = merged ? tf_mtrace_decode(data, len, argv[2], &t, err, sizeof err) : TF_OK;
  free(data);
  if (st) return die(argv[2], err);
  for (int i = 2; !merged && i < argc; i++) {
    tf_file_reader *r;
    if (tf_file_open(argv[i], &r, err, sizeof err)) return die(argv[i], err);
    tf_mtrace one;
    int rc = tf_mtrace_from_file(i == 2 ? &t : &one, r);
    tf_file_close(r);
    if (rc) return die(argv[i], "out of memory");
    if (i > 2 && tf_mtrace_merge(&t, &one, err, sizeof err)) return die(argv[i], err);
  }
  int rc = write_out(argv[1], "stored", &t, 0) || write_out(argv[1], "zstd", &t, 3);
  tf_mtrace_free(&t);
  return rc;
}
