/* streams.h — the threads of a rank fold apart (doc/FOLDING.md "Threads").
 *
 * Each thread's events fold in a folder of their own: a *stream*. A segment
 * keeps the streams' top-level nodes one stream after the other (stream 0
 * first), and how the streams' events interleaved on the rank, exactly, as
 * three value sequences (a tf_order):
 *   sizes    the top-level nodes of each stream but the last (so there are
 *            sizes.nvalues + 1 streams; the last one takes the nodes left);
 *   runs     the stream of each run of consecutive events from one stream,
 *            in order; empty when there is one stream;
 *   lengths  the events of each run but the last (the last run takes the
 *            events left).
 * A rank whose events all come from one stream has three empty sequences:
 * the order of a single-threaded rank costs nothing, and every such rank
 * shares it in a merged trace. Interleavings that repeat (two threads
 * taking turns) fold like any value sequence; the rest costs about one item
 * per change of thread.
 *
 * What is checked where: the cheap facts (counts, ranges, sums of the
 * sequences, tf_order_check) when a segment is decoded; that each run finds
 * its events in its stream, and that no stream has events left at the end,
 * while unrolling (unroll.c), as for parameter sequences.
 */
#ifndef TF_STREAMS_H
#define TF_STREAMS_H

#include <stdint.h>

#include "fold/vseq.h"

#define TF_STREAMS_MAX 65536 /* streams per segment a reader accepts (threads per rank) */

typedef struct tf_order {
  tf_vseq sizes, runs, lengths;
} tf_order;

static inline void tf_order_init(tf_order *o) { *o = (tf_order){0}; }
void tf_order_free(tf_order *o, tf_mem *m);
/* Deep copy (dst uninitialised). 0 or -1 (dst empty). */
int tf_order_copy(tf_order *dst, const tf_order *src, tf_mem *m);
/* Streams it describes (>= 1). */
static inline uint64_t tf_order_nstreams(const tf_order *o) { return o->sizes.nvalues + 1; }
/* 1 when there is one stream (all three sequences empty). */
static inline int tf_order_single(const tf_order *o) {
  return !o->sizes.nvalues && !o->runs.nvalues && !o->lengths.nvalues;
}
void tf_order_seal(tf_order *o, tf_mem *m);

/* Building an order from the runs of a rank's events (the compressor) or
 * from segments (concatenation): streams are added with their sizes, and
 * events one run (or one event) at a time; consecutive events of one stream
 * make one run. tf_order_build_end moves the result into *out. */
typedef struct tf_order_builder {
  tf_order o;
  uint64_t nstreams;
  int64_t last_size;     /* the last stream's size, not yet in sizes */
  int has_run;
  int64_t run;           /* the open run's stream ... */
  uint64_t run_len;      /* ... and its events so far */
} tf_order_builder;

static inline void tf_order_build_init(tf_order_builder *b) { *b = (tf_order_builder){0}; }
void tf_order_build_stream(tf_order_builder *b, int64_t size, tf_mem *m);
void tf_order_build_events(tf_order_builder *b, int64_t stream, uint64_t count, tf_mem *m);
/* Append the order of a whole segment (its streams after the ones already
 * built, so its stream numbers shift by that many). n: its top-level
 * nodes; nevents: its events. O(items). */
void tf_order_build_segment(tf_order_builder *b, const tf_order *o, uint64_t n, uint64_t nevents, tf_mem *m);
void tf_order_build_end(tf_order_builder *b, tf_order *out, tf_mem *m);
void tf_order_build_free(tf_order_builder *b, tf_mem *m);

/* The facts of an order's sequences a decoder checks against a segment of
 * n top-level nodes and nevents events (without reading the values):
 * 0, or -1 with a reason in *why. sizes_sum etc. are the sequences' sums
 * and extremes (from the decoder). */
typedef struct tf_order_facts {
  __int128 sizes_count, sizes_min, sizes_sum;
  __int128 runs_count, runs_min, runs_max;
  __int128 lengths_count, lengths_min, lengths_sum;
} tf_order_facts;
int tf_order_check(const tf_order_facts *f, uint64_t n, uint64_t nevents, const char **why);

#endif
