/* compressor.c — transform, fold each thread apart, keep their order, and
 * write segments under a memory cap; see compressor.h. */
#include "format/compressor.h"

#include <stdlib.h>
#include <string.h>

#include "fold/cst_guide.h"
#include "format/segment.h"
#include "util/fields.h"

int tf_compressor_init(tf_compressor *c, const tf_func_desc *funcs, uint32_t nfuncs, size_t cap_bytes) {
  *c = (tf_compressor){.funcs = funcs, .nfuncs = nfuncs, .cap_bytes = cap_bytes, .timing = TF_TIMING_DEFAULT,
                       .bins = TF_BINS_DEFAULT};
  tf_order_build_init(&c->order);
  c->shape = calloc(nfuncs ? nfuncs : 1, 1);
  if (!c->shape) return -1;
  for (uint32_t f = 0; f < nfuncs; f++) {
    int reqs = 0;
    for (uint32_t k = 0; k < funcs[f].nfields; k++)
      reqs |= funcs[f].fields[k].kind == TF_FIELD_REQ || funcs[f].fields[k].kind == TF_FIELD_REQ_NEW;
    c->shape[f] = !tf_func_all_scalar(&funcs[f]) ? TF_SHAPE_ARRAYS : reqs ? TF_SHAPE_SCALAR_REQS : TF_SHAPE_PLAIN;
  }
  return 0;
}

static void recount(tf_compressor *c) {
  size_t b = c->order_mem.bytes + c->nfolders * sizeof *c->folders;
  for (uint32_t t = 0; t < c->nfolders; t++) b += c->folders[t].mem.bytes;
  c->folded_bytes = b;
}

/* The folder of `thread`, made (with the timing settings) if new; NULL out of memory. */
static tf_folder *folder_of(tf_compressor *c, uint32_t thread) {
  if (thread < c->nfolders) return &c->folders[thread];
  if (thread >= TF_STREAMS_MAX) return NULL;
  uint32_t n = thread + 1;
  tf_folder *f = realloc(c->folders, n * sizeof *f); /* a folder owns heap memory only: it may move */
  if (!f) return NULL;
  c->folders = f;
  for (uint32_t t = c->nfolders; t < n; t++) {
    tf_folder_init(&f[t]);
    f[t].timing = c->timing;
    f[t].bins = c->bins;
    f[t].guided = c->cst_guided;
    f[t].flat_window = c->cst_guided ? 0 : c->flat_window;
  }
  c->nfolders = n;
  recount(c);
  return &f[thread];
}

static int write_segment(tf_compressor *c, tf_file_writer *w) {
  if (c->failed) return -1;
  if (!c->nevents) return 0;
  uint32_t total = 0, decoded;
  for (uint32_t t = 0; t < c->nthreads; t++) {
    tf_folder_seal(&c->folders[t]);
    if (c->folders[t].mem.failed) return -1;
    total += tf_folder_stream_nodes(&c->folders[t], NULL, &decoded);
  }
  tf_fnode **nodes = malloc((total ? total : 1) * sizeof *nodes);
  if (!nodes) return -1;
  uint32_t k = 0;
  for (uint32_t t = 0; t < c->nthreads; t++) {
    k += tf_folder_stream_nodes(&c->folders[t], nodes + k, &decoded);
    tf_order_build_stream(&c->order, decoded, &c->order_mem);
  }
  tf_order order;
  tf_order_build_end(&c->order, &order, &c->order_mem);
  int rc = c->order_mem.failed ? -1 : 0;
  c->seg.len = 0;
  if (!rc) tf_segment_encode(&c->seg, nodes, total, &order);
  free(nodes);
  tf_order_free(&order, &c->order_mem);
  if (!rc) rc = c->seg.failed ? -1 : tf_file_writer_segment(w, c->seg.data, c->seg.len, c->nevents);
  for (uint32_t t = 0; t < c->nfolders; t++) tf_folder_reset(&c->folders[t]);
  tf_order_build_free(&c->order, &c->order_mem);
  c->nevents = 0;
  c->nthreads = 0;
  recount(c);
  if (c->seg.cap > (1u << 20)) { /* do not keep a large encoding buffer between segments */
    tf_buf_free(&c->seg);
    c->seg = (tf_buf){0};
  }
  return rc;
}

int tf_compressor_event(tf_compressor *c, tf_file_writer *w, uint32_t fn, uint32_t thread, uint32_t site,
                        uint64_t compute_ns, uint64_t duration_ns, uint32_t nvals, const int64_t *vals) {
  if (fn >= c->nfuncs || c->failed) return -1;
  if (c->shape[fn] != TF_SHAPE_ARRAYS && nvals != c->funcs[fn].nfields) return -1; /* the values must fit */
  if (c->shape[fn] != TF_SHAPE_PLAIN) { /* request ids to transform */
    if (nvals > c->nscratch) {
      int64_t *s = realloc(c->scratch, nvals * sizeof *s);
      if (!s) return -1;
      c->scratch = s;
      c->nscratch = nvals;
    }
    memcpy(c->scratch, vals, nvals * sizeof *vals);
    /* in the rank's event order, whatever the thread (doc/FORMAT.md 2.5) */
    if (c->shape[fn] == TF_SHAPE_SCALAR_REQS) tf_req_transform_apply_scalars(&c->codec, &c->funcs[fn], c->scratch);
    else if (tf_req_transform_apply(&c->codec, &c->funcs[fn], c->scratch, nvals)) return -1;
    vals = c->scratch;
  }
  /* from here on the function is named by its index in the file, which
   * declares it before its first use (doc/FORMAT.md 2.1) */
  int64_t file_fn = tf_file_writer_function(w, fn);
  tf_folder *f = file_fn < 0 ? NULL : folder_of(c, thread);
  if (!f) {
    c->failed = 1;
    return -1;
  }
  uint32_t prev_fn, prev_site;
  tf_prev_get(&c->prev, thread, &prev_fn, &prev_site);
  if (tf_prev_set(&c->prev, thread, (uint32_t)file_fn, site)) f->mem.failed = 1;
  size_t before = f->mem.bytes + c->order_mem.bytes;
  int was_flat = f->flat;
  if (tf_folder_push(f, (uint32_t)file_fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals)) {
    c->failed = 1;
    return -1;
  }
  tf_order_build_events(&c->order, thread, 1, &c->order_mem);
  if (c->order_mem.failed) {
    c->failed = 1;
    return -1;
  }
  c->folded_bytes += f->mem.bytes + c->order_mem.bytes - before;
  c->nevents++;
  if (thread + 1 > c->nthreads) c->nthreads = thread + 1;
  if (f->flat) {
    c->flat_events += was_flat ? 1 : f->run.nevents; /* a switch: the window's events too, if shadowed */
    if (f->run.nevents >= f->flat_retry) { /* try folding again, in a new segment (folder.h) */
      if (write_segment(c, w)) return -1;
      f->flat = 0;
      c->flat_trials++;
      return 0;
    }
    if (f->run.bytes.len >= TF_FLATRUN_MAX_BYTES) { /* a long run: its segment is written, the stream stays flat */
      f->flat_retry -= f->run.nevents; /* the trial still comes after as many events (more than these, above) */
      c->flat_trials++;
      return write_segment(c, w) ? -1 : 0;
    }
  }
  if (c->folded_bytes <= c->cap_bytes) return 0;
  c->spills++;
  return write_segment(c, w) ? -1 : 1;
}

int tf_compressor_cst_markers(tf_compressor *c, uint32_t thread, const uint64_t *markers, uint32_t n) {
  tf_folder *f = c->failed ? NULL : folder_of(c, thread);
  if (!f) return -1;
  size_t before = f->mem.bytes;
  if (n && tf_folder_unflat(f)) { /* guided folding takes the events that follow, after the run's */
    c->failed = 1;
    return -1;
  }
  for (uint32_t i = 0; i < n; i++)
    if (tf_cst_guide_marker(f, markers[i])) {
      c->failed = 1;
      return -1;
    }
  c->folded_bytes += f->mem.bytes - before;
  return 0;
}

void tf_compressor_set_flat_window(tf_compressor *c, uint32_t window) {
  c->flat_window = window;
  for (uint32_t t = 0; t < c->nfolders; t++)
    if (!c->folders[t].guided) c->folders[t].flat_window = window;
}

void tf_compressor_set_timing(tf_compressor *c, tf_timing_mode mode, uint32_t bins) {
  c->timing = mode;
  c->bins = bins;
  for (uint32_t t = 0; t < c->nfolders; t++) {
    c->folders[t].timing = mode;
    c->folders[t].bins = bins;
  }
}

int tf_compressor_snapshot(tf_compressor *c, tf_buf *seg, uint64_t *nevents) {
  *nevents = 0;
  if (c->failed || c->order_mem.failed) return -1;
  if (!c->nevents) return 0;
  uint32_t total = 0, decoded;
  for (uint32_t t = 0; t < c->nthreads; t++) { /* a guided folder's open loops are added as they are, unchanged */
    if (!c->folders[t].guided && tf_folder_flush(&c->folders[t])) return -1;
    if (tf_cst_guide_unhold(&c->folders[t])) return -1; /* a held iteration: its nodes, same stream */
    total += tf_folder_stream_nodes(&c->folders[t], NULL, &decoded) + tf_cst_guide_pending(&c->folders[t], NULL);
  }
  /* the order as write_segment would end it, built on a copy of the builder */
  tf_mem m = {0};
  tf_order_builder b = c->order;
  tf_order order;
  if (tf_order_copy(&b.o, &c->order.o, &m)) return -1;
  for (uint32_t t = 0; t < c->nthreads; t++) {
    tf_folder_stream_nodes(&c->folders[t], NULL, &decoded);
    tf_order_build_stream(&b, decoded + tf_cst_guide_pending(&c->folders[t], NULL), &m);
  }
  tf_order_build_end(&b, &order, &m);
  tf_fnode **nodes = malloc((total ? total : 1) * sizeof *nodes);
  int rc = !nodes || m.failed ? -1 : 0;
  if (!rc) {
    uint32_t k = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
      k += tf_folder_stream_nodes(&c->folders[t], nodes + k, &decoded); /* a guided folder has no flat run */
      k += tf_cst_guide_pending(&c->folders[t], nodes + k);
    }
    rc = tf_segment_encode_live(seg, nodes, total, &order, c->timing, c->bins) || seg->failed ? -1 : 0;
  }
  free(nodes);
  tf_order_free(&order, &m);
  if (!rc) *nevents = c->nevents;
  return rc;
}

int tf_compressor_finish(tf_compressor *c, tf_file_writer *w) { return write_segment(c, w); }

void tf_compressor_free(tf_compressor *c) {
  for (uint32_t t = 0; t < c->nfolders; t++) tf_folder_reset(&c->folders[t]);
  free(c->folders);
  tf_order_build_free(&c->order, &c->order_mem);
  tf_prev_free(&c->prev);
  free(c->scratch);
  free(c->shape);
  tf_buf_free(&c->seg);
  *c = (tf_compressor){0};
}
