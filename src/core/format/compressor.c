/* compressor.c — transform, fold, and write segments under a memory cap; see compressor.h. */
#include "format/compressor.h"

#include <stdlib.h>

#include "format/segment.h"

int tf_compressor_init(tf_compressor *c, const tf_func_desc *funcs, uint32_t nfuncs, size_t cap_bytes) {
  *c = (tf_compressor){.funcs = funcs, .nfuncs = nfuncs, .cap_bytes = cap_bytes};
  tf_folder_init(&c->folder);
  c->plain = calloc(nfuncs ? nfuncs : 1, 1);
  if (!c->plain) return -1;
  for (uint32_t f = 0; f < nfuncs; f++) {
    c->plain[f] = 1;
    for (uint32_t k = 0; k < funcs[f].nfields; k++) {
      const tf_field_desc *d = &funcs[f].fields[k];
      if (d->is_array || d->kind == TF_FIELD_REQ || d->kind == TF_FIELD_REQ_NEW) c->plain[f] = 0;
    }
  }
  return 0;
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
  if (fn >= c->nfuncs) return -1;
  if (c->plain[fn]) { /* nothing to transform: the values only have to fit the fields */
    if (nvals != c->funcs[fn].nfields) return -1;
  } else {
    if (nvals > c->nscratch) {
      int64_t *s = realloc(c->scratch, nvals * sizeof *s);
      if (!s) return -1;
      c->scratch = s;
      c->nscratch = nvals;
    }
    for (uint32_t i = 0; i < nvals; i++) c->scratch[i] = vals[i];
    if (tf_req_transform_apply(&c->codec, &c->funcs[fn], c->scratch, nvals)) return -1;
    vals = c->scratch;
  }
  uint32_t prev_fn, prev_site;
  tf_prev_get(&c->prev, thread, &prev_fn, &prev_site);
  if (tf_prev_set(&c->prev, thread, fn, site)) c->folder.mem.failed = 1;
  if (tf_folder_push(&c->folder, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals)) return -1;
  if (c->folder.mem.bytes <= c->cap_bytes) return 0;
  c->spills++;
  return write_segment(c, w) ? -1 : 1;
}

void tf_compressor_set_timing(tf_compressor *c, tf_timing_mode mode, uint32_t bins) {
  c->folder.timing = mode;
  c->folder.bins = bins;
}

int tf_compressor_snapshot(const tf_compressor *c, tf_buf *seg, uint64_t *nevents) {
  const tf_folder *f = &c->folder;
  *nevents = 0;
  if (f->mem.failed) return -1;
  if (f->n == 0) return 0;
  *nevents = f->nevents;
  return tf_segment_encode_live(seg, f->seq, f->n, f->timing, f->bins) || seg->failed ? -1 : 0;
}

int tf_compressor_finish(tf_compressor *c, tf_file_writer *w) { return write_segment(c, w); }

void tf_compressor_free(tf_compressor *c) {
  tf_folder_reset(&c->folder);
  tf_prev_free(&c->prev);
  free(c->scratch);
  free(c->plain);
  tf_buf_free(&c->seg);
  *c = (tf_compressor){0};
}
