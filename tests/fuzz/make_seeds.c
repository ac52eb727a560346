/* make_seeds.c — fuzzer seeds from real traces (scripts/fuzz.sh).
 *
 *   make_seeds merged OUT TRACE.tf
 *       writes OUT.stored.tf, the merged trace with its sections stored raw
 *       (what the mutator can work on: mutated zstd data is only ever a
 *       decompression error), and OUT.zstd.tf, compressed as a run writes it.
 *   make_seeds tfc OUT.tfc RANK.flat [CAP]
 *       the compressed per-rank file the recorder would have written for
 *       that rank's reference trace (a run now writes one only when it stops
 *       before MPI_Finalize): the same compressor and writer, memory cap CAP
 *       bytes (default 256M; a small one makes several segments).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "file_io.h"
#include "file_writer.h"
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

static int merged(const char *out, const char *in) {
  char err[1024];
  uint8_t *data;
  size_t len;
  if (tf_load_file(in, &data, &len, err, sizeof err)) return die(in, err);
  tf_mtrace t;
  tf_status st = tf_mtrace_decode(data, len, in, &t, err, sizeof err);
  free(data);
  if (st) return die(in, err);
  int rc = write_out(out, "stored", &t, 0) || write_out(out, "zstd", &t, 3);
  tf_mtrace_free(&t);
  return rc;
}

static int compress(const char *out, const char *in, size_t cap) {
  char err[1024];
  tf_file_reader *r;
  if (tf_file_open(in, &r, err, sizeof err)) return die(in, err);
  const tf_file_info *info = tf_file_get_info(r);
  if (info->kind != TF_FILE_FLAT) {
    tf_file_close(r);
    return die(in, "not a flat trace file");
  }
  tf_file_writer *w = tf_file_writer_open(out, TF_FILE_COMPRESSED, info, err, sizeof err);
  if (!w) {
    tf_file_close(r);
    return die(out, err);
  }
  tf_compressor c;
  if (tf_compressor_init(&c, info->funcs, info->nfuncs, cap)) return die(out, "out of memory");
  uint32_t declared = 0;
  int rc = 0;
  tf_event ev;
  while (!rc && tf_file_next(r, &ev) == 1) {
    uint32_t site = 0; /* call sites are declared in order of first use, as the recorder does */
    while (site < info->ncallsites && info->callsites[site].sig != ev.callsite) site++;
    if (site == info->ncallsites) {
      rc = die(in, "event with an undeclared call site");
      break;
    }
    for (; declared <= site; declared++) {
      const tf_callsite *cs = &info->callsites[declared];
      if (tf_file_writer_callsite(w, declared, cs->sig, cs->module, cs->offset)) rc = die(out, "write failed");
    }
    if (tf_compressor_event(&c, w, ev.fn, ev.thread, site, ev.compute_ns, ev.duration_ns, ev.nvals, ev.vals) < 0)
      rc = die(out, "compressor failed");
  }
  if (!rc && tf_compressor_finish(&c, w)) rc = die(out, "compressor failed");
  tf_compressor_free(&c);
  if (info->lost_events) tf_file_writer_lost(w, info->lost_events);
  if (info->partial) tf_file_writer_partial(w, info->partial);
  tf_file_close(r);
  if (tf_file_writer_close(w, err, sizeof err) != TF_OK && !rc) rc = die(out, err);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "merged") == 0) return merged(argv[2], argv[3]);
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "tfc") == 0)
    return compress(argv[2], argv[3], argc == 5 ? strtoul(argv[4], NULL, 0) : (size_t)256 << 20);
  fprintf(stderr, "usage: make_seeds merged OUT TRACE.tf | make_seeds tfc OUT.tfc RANK.flat [CAP]\n");
  return 2;
}
