/* segment.h — the byte encoding of a folded node sequence (one segment of a
 * compressed trace file), and its validating decoder.
 *
 * The layout is specified in doc/FORMAT.md, "Segment". The decoder trusts
 * nothing: it bounds nesting, checks every count, and checks that the
 * iteration counts and value counts agree (a loop occurrence has >= 1
 * iterations, an event has one value count per occurrence, the events add
 * up to the declared total), so that unrolling a decoded segment can only
 * fail on a parameter sequence that is too short, which it reports.
 */
#ifndef TF_SEGMENT_H
#define TF_SEGMENT_H

#include "util/bytes.h"
#include "fold/folder.h"
#include "fold/streams.h"

#define TF_SEGMENT_MAXDEPTH TF_FOLD_MAXDEPTH /* loop nesting accepted by the decoder: what the folder builds */
#define TF_SEGMENT_MERGED_TIMING 0x100u
/* or'ed into timing: a flat run (kind 2) stays one node holding the run
 * (tf_fnode.run, owned), checked but not expanded; the streams' order
 * counts it as its events (the merge at MPI_Finalize, merge/flat_mnode.c) */
#define TF_SEGMENT_KEEP_RUNS 0x200u
/* with TF_SEGMENT_KEEP_RUNS: a run's bytes stay where they are in the
 * decoded buffer (tf_flatrun.borrowed), which must outlive the nodes */
#define TF_SEGMENT_BORROW_RUNS 0x400u

/* The segment of the top-level nodes of its streams, one stream after the
 * other, and the order of their events (NULL: one stream). */
void tf_segment_encode(tf_buf *b, tf_fnode *const *nodes, uint32_t n, const tf_order *order);
/* The same for the folders' live structure, without changing it: a fresh
 * node's pending sample (folder.h) is counted in a temporary copy of its
 * timing (kept as `mode` with at most `bins` bins). 0, or -1 out of memory
 * (b->failed may also be set). */
int tf_segment_encode_live(tf_buf *b, tf_fnode *const *nodes, uint32_t n, const tf_order *order, tf_timing_mode mode,
                           uint32_t bins);

/* Decode the nodes of a segment declared to hold `nevents` events, with
 * timing kept as `timing` (tf_timing_mode) with at most `bins` bins. With
 * TF_SEGMENT_MERGED_TIMING or'ed into timing, the segment is a rank's
 * projection of a merged trace: its time summaries count the occurrences
 * of all the ranks, so they are not checked against the rank's own.
 * version: of the file (TF_COMP_VERSION or TF_TRACE_VERSION): from 3 on,
 * the node list is followed by the order of its streams (streams.h), which
 * is checked as far as it can be without unrolling; version 2 segments are
 * one stream (*order empty). 0, or -1 with a reason in *why (static
 * string); *nodes and *order are then to be freed all the same. */
int tf_segment_decode(tf_cursor *c, uint64_t nevents, uint32_t nfuncs, uint32_t ncallsites, uint32_t timing,
                      uint32_t bins, uint32_t version, tf_fnode ***nodes, uint32_t *n, tf_order *order, tf_mem *m,
                      const char **why);

#endif
