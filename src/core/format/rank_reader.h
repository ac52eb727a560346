/* rank_reader.h — the per-rank file reader's internal entry points (its
 * public ones are tf_file_* in tracefold.h): files held in memory, and the
 * folded segments of a compressed file for code that walks its loops. */
#ifndef TF_RANK_READER_H
#define TF_RANK_READER_H

#include <stddef.h>
#include <stdint.h>

#include "fold/folder.h"
#include "fold/streams.h"
#include "tracefold.h"

/* Open a per-rank file held in memory (data is taken over, freed on close
 * or failure); like tf_file_open. */
tf_status tf_file_open_mem(uint8_t *data, size_t len, const char *name, tf_file_reader **out, char *err,
                           size_t errlen);

/* The same, for the merge (merge/mtrace.h tf_mtrace_from_file): flat runs
 * stay one node each (TF_SEGMENT_KEEP_RUNS, segment.h); the file's
 * segments are there for tf_file_folded, its events are not (tf_file_next
 * fails). data is only borrowed, never freed here, and the runs' bytes
 * stay in it (TF_SEGMENT_BORROW_RUNS): the merge at MPI_Finalize needs no
 * copy of the rank's file nor of its runs, and frees the file once the
 * nodes made from it (and their runs) are gone. */
tf_status tf_file_open_mem_runs(const uint8_t *data, size_t len, const char *name, tf_file_reader **out, char *err,
                                size_t errlen);

/* The folded segments of a compressed trace file, for tools that walk the
 * loop structure: number of segments (0 for a flat file), their node lists
 * and lengths, and (orders may be NULL) the order of each one's streams. */
uint32_t tf_file_folded(const tf_file_reader *r, tf_fnode **const **segs, const uint32_t **segn,
                        const tf_order **orders);
/* The same, for a caller that takes the nodes over one by one so that they
 * and what it makes of them are not all held at once (tf_mtrace_from_file):
 * the segments' node lists (the number of segments in *nsegs), which the
 * caller may empty: it frees a node with tf_fnode_free(node, *mem), *mem
 * being the reader's memory account, and sets its entry to NULL. The
 * reader's events are gone from then on (tf_file_next fails); it can only
 * be closed. */
tf_fnode ***tf_file_folded_take(tf_file_reader *r, uint32_t *nsegs, const uint32_t **segn, const tf_order **orders,
                                tf_mem **mem);

/* What a trace file says about the run it comes from, read from its first
 * bytes only: the header of a per-rank file, or the INFO section of a
 * merged one (merged_codec.c). */
typedef struct tf_run_peek {
  int merged;           /* 1: a merged trace file */
  int32_t rank;         /* per-rank files: the rank (-1 for a merged file) */
  uint64_t run_id, run_start_unix_ns; /* 0, 0 in version 2 files */
  uint64_t start_unix_ns;
  char exe[256];        /* truncated */
} tf_run_peek;

/* From the first bytes of a per-rank file (its header): TF_OK and *out,
 * or an error (the file is not a readable trace file: its full open says
 * why). A merged file's is tf_mtrace_peek_run (merge/mtrace.h). */
tf_status tf_file_peek_run(const uint8_t *data, size_t len, tf_run_peek *out);

#endif
