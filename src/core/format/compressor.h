/* compressor.h — one rank's online compression: value transform
 * (fold/request_transform.h), loop folding (folder.h) of each thread's
 * events apart, the order in which the threads' events interleave
 * (fold/streams.h), and the memory cap.
 *
 * Events go in as they happen. Each thread's events fold in a folder of
 * their own (a stream), so that threads that interleave differently from
 * one iteration to the next still fold into loops; the interleaving itself
 * is kept exactly, as runs of consecutive events of one thread. While the
 * folded structure stays under the memory cap, the whole run becomes one
 * segment, written at the end. When the structure reaches the cap, it is
 * written out as a segment and folding starts afresh (later loops cannot
 * fold with earlier ones, but nothing is lost and memory stays bounded).
 */
#ifndef TF_COMPRESSOR_H
#define TF_COMPRESSOR_H

#include "util/bytes.h"
#include "format/flat_writer.h"
#include "fold/folder.h"
#include "fold/streams.h"
#include "time/prev_event.h"
#include "fold/request_transform.h"

/* A function's values before folding (tf_compressor.shape) */
enum {
  TF_SHAPE_PLAIN,       /* no array, no request field: they only have to fit the fields */
  TF_SHAPE_SCALAR_REQS, /* no array: value k is field k; request ids transformed */
  TF_SHAPE_ARRAYS       /* arrays: split to check and to find the request ids */
};

typedef struct tf_compressor {
  tf_folder *folders;  /* [thread]: the events of each thread, folded apart */
  uint32_t nfolders;   /* folders made (threads seen) */
  uint32_t nthreads;   /* threads with events since the last segment: highest index + 1 */
  tf_order_builder order; /* how their events interleave since the last segment */
  tf_mem order_mem;
  size_t folded_bytes; /* memory of the folders and the order, as the cap counts it */
  uint64_t nevents;    /* events since the last segment */
  int failed;          /* out of memory: the folded structure is not to be trusted */
  tf_timing_mode timing;
  uint32_t bins;
  tf_req_transform codec;
  const tf_func_desc *funcs;
  uint32_t nfuncs;
  size_t cap_bytes;   /* memory cap of the folded structure */
  uint64_t spills;    /* segments written because of the cap */
  int64_t *scratch;   /* transformed values of the current event */
  uint32_t nscratch;
  tf_buf seg;         /* encoding buffer of a segment */
  uint8_t *shape;     /* [fn]: TF_SHAPE_* below: what the values need before folding */
  tf_prev_events prev; /* previous event of each thread, across segments (path timing) */
  int cst_guided;     /* a program built by tracefold-cc: every thread's folder is CST-guided from its first event */
  uint32_t flat_window; /* folders measure whether folding pays every that many events (0: never; folder.h) */
  uint64_t flat_events; /* events that went to flat runs */
  uint64_t flat_trials; /* segments written for flat runs: to try folding again, or at TF_FLATRUN_MAX_BYTES */
} tf_compressor;

#define TF_FLAT_WINDOW_DEFAULT 4096u /* events per window of the "folding pays" measure (doc/FOLDING.md "Flat runs") */
/* bytes of a flat run before its segment is written (the stream stays flat): what the run, its segment's
 * encoding and the file writer's buffer hold at most while recording (bench/RESULTS.md "Irregular streams") */
#define TF_FLATRUN_MAX_BYTES ((size_t)1 << 20)

/* 0, or -1 when out of memory. */
int tf_compressor_init(tf_compressor *c, const tf_func_desc *funcs, uint32_t nfuncs, size_t cap_bytes);
/* What is kept of delta times (default TF_TIMING_DEFAULT, TF_BINS_DEFAULT bins). */
void tf_compressor_set_timing(tf_compressor *c, tf_timing_mode mode, uint32_t bins);
/* Flat runs (fold/flatrun.h): every `window` events each thread's folder
 * measures whether folding pays, and when it does not, keeps the events
 * that follow flat; 0 never (CST-guided folders never do). Default 0: the
 * caller sets it. */
void tf_compressor_set_flat_window(tf_compressor *c, uint32_t window);
/* Event of function fn (an index into the table given at init); the
 * folded structure names it by its index in w's file (which declares it
 * first: tf_file_writer_function).
 * 0: folded (or kept in a flat run; a segment may have been written to try
 * folding again); 1: folded, and the cap was reached so a segment was written;
 * -1: failure (memory or I/O; the caller stops recording). */
int tf_compressor_event(tf_compressor *c, tf_file_writer *w, uint32_t fn, uint32_t thread, uint32_t site,
                        uint64_t compute_ns, uint64_t duration_ns, uint32_t nvals, const int64_t *vals);
/* CST markers (fold/cst_guide.h, packed by tf_cst_pack/tf_cst_pack_arm) of `thread`,
 * in their order and before its next event: from then on that thread's
 * events fold by them. 0, or -1 out of memory. */
int tf_compressor_cst_markers(tf_compressor *c, uint32_t thread, const uint64_t *markers, uint32_t n);
/* What has been folded since the last segment, encoded (segment.c) into
 * seg without changing what will be written (*nevents events; seg stays
 * empty when there are none): for checkpoints. The only change: events
 * the fast path holds join the folded structure (tf_folder_flush); a CST-guided
 * folder's open loops are encoded after its top level as they are
 * (tf_cst_guide_pending), unchanged. 0, or -1 out of memory or when the
 * folder has failed. */
int tf_compressor_snapshot(tf_compressor *c, tf_buf *seg, uint64_t *nevents);
/* Write what remains as the last segment. 0 or -1. */
int tf_compressor_finish(tf_compressor *c, tf_file_writer *w);
void tf_compressor_free(tf_compressor *c);
/* Memory held by the folded structure (what the cap bounds). */
static inline size_t tf_compressor_bytes(const tf_compressor *c) { return c->folded_bytes; }

#endif
