/* unroll.h — regenerate the event sequence of folded segments, one event at
 * a time, without expanding them: per stream (thread, fold/streams.h) a
 * stack of loop frames, one reader per value sequence, and the segment's
 * order that says from which stream each event comes. Memory is
 * proportional to the folded size.
 */
#ifndef TF_UNROLL_H
#define TF_UNROLL_H

#include "time/prev_event.h"
#include "fold/folder.h"
#include "fold/streams.h"
#include "fold/request_transform.h"

typedef struct tf_unroll_frame {
  tf_fnode *const *nodes;
  uint32_t n, i;
  uint64_t left; /* iterations left after the current one */
} tf_unroll_frame;

/* One stream of the current segment: its top-level nodes and where it is. */
typedef struct tf_unroll_stream {
  tf_unroll_frame *stack;
  uint32_t depth, cap;
  tf_fnode *const *top;
  uint32_t ntop;
  int started;
} tf_unroll_stream;

typedef struct tf_unroll_event {
  uint32_t fn, thread, site;
  const tf_fnode *node; /* the folded event it is an occurrence of */
  /* its delta times as the trace keeps them: the mean of the path taken
   * (the previous event of the thread) in path mode, else of all the
   * event's occurrences; 0 when the trace keeps no times */
  uint64_t compute_ns, duration_ns;
  const tf_tpath *path; /* the summary those means come from; NULL: all paths (or no times) */
  uint32_t nvals;
  const int64_t *vals;
} tf_unroll_event;

typedef struct tf_unroll {
  tf_fnode **const *segs; /* segment node lists (borrowed) */
  const uint32_t *segn;
  const tf_order *orders; /* per segment (borrowed); NULL: every segment is one stream */
  uint32_t nsegs, seg;
  const tf_func_desc *funcs;
  tf_req_transform codec;
  /* the current segment */
  tf_unroll_stream *streams;
  uint32_t nstreams;
  struct tf_vseq_iter *runs, *lengths; /* readers of its order */
  uint32_t cur;      /* stream of the current run */
  uint64_t run_left; /* events left in it; UINT64_MAX: the last run (to the stream's end) */
  int in_seg;
  int64_t *vals;
  uint32_t cap;
  tf_prev_events prev; /* previous event of each thread (path timing) */
  const char *error;
} tf_unroll;

/* The delta times kept for an occurrence of event x that follows
 * (prev_fn, prev_site) on its thread: the path's means, else the means
 * over all paths (0, 0 without times). Returns that path, or NULL when the
 * means are over all paths. */
const tf_tpath *tf_timing_estimate(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site, uint64_t *compute_ns,
                                   uint64_t *duration_ns);

/* Attach value readers to every node; orders: one per segment, or NULL
 * when each segment is one stream. 0 or -1 (out of memory). */
int tf_unroll_init(tf_unroll *u, tf_fnode **const *segs, const uint32_t *segn, const tf_order *orders,
                   uint32_t nsegs, const tf_func_desc *funcs);
void tf_unroll_rewind(tf_unroll *u);
/* 1 and *ev, 0 at the end, -1 malformed (u->error says why). */
int tf_unroll_next(tf_unroll *u, tf_unroll_event *ev);
/* Detach the value readers. */
void tf_unroll_free(tf_unroll *u);

#endif
