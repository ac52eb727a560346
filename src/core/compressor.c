/* compressor.c — transform, fold, and write segments under a memory cap; see compressor.h. */
#include "compressor.h"

#include <stdlib.h>

#include "segment.h"

void tf_compressor_init(tf_compressor *c, const tf_func_desc *funcs, uint32_t nfuncs, size_t cap_bytes) {
  *c = (tf_compressor){.funcs = funcs, .nfuncs = nfuncs, .cap_bytes = cap_bytes};
  tf_folder_init(&c->folder);
}

static int write_segment(tf_compressor *c, tf_file_writer *w) {
  tf_folder *f = &c->folder;
  if (f->mem.failed) return -1;
  if (f->n == 0) return 0;
  tf_folder_seal(f);
  if (f->mem.failed) return -1;
  c->seg.len = 0;
  tf_segment_encode(&c->seg, f->seq, f->n);
  int rc = c->seg.failed ? -1 : tf_file_writer_segment(w, c->seg.data, c->seg.len, f->nevents);
  tf_folder_reset(f);
  if (c->seg.cap > (1u << 20)) { /* do not keep a large encoding buffer between segments */
    tf_buf_free(&c->seg);
    c->seg = (tf_buf){0};
  }
  return rc;
}

int tf_compressor_event(tf_compressor *c, tf_file_writer *w, uint32_t fn, uint32_t thread, uint32_t site,
                        uint64_t compute_ns, uint64_t duration_ns, uint32_t nvals, const int64_t *vals) {
  if (nvals > c->nscratch) {
    int64_t *s = realloc(c->scratch, nvals * sizeof *s);
    if (!s) return -1;
    c->scratch = s;
    c->nscratch = nvals;
  }
  for (uint32_t i = 0; i < nvals; i++) c->scratch[i] = vals[i];
  if (fn >= c->nfuncs || tf_codec_encode(&c->codec, &c->funcs[fn], c->scratch, nvals)) return -1;
  if (tf_folder_push(&c->folder, fn, thread, site, compute_ns, duration_ns, nvals, c->scratch)) return -1;
  if (c->folder.mem.bytes <= c->cap_bytes) return 0;
  c->spills++;
  return write_segment(c, w) ? -1 : 1;
}

int tf_compressor_finish(tf_compressor *c, tf_file_writer *w) { return write_segment(c, w); }

void tf_compressor_free(tf_compressor *c) {
  tf_folder_reset(&c->folder);
  free(c->scratch);
  tf_buf_free(&c->seg);
  *c = (tf_compressor){0};
}
