/* rank_merge.h — the merge of every rank's trace at MPI_Finalize
 * (rank_merge.c, doc/MERGING.md). */
#ifndef TF_RECORDER_RANK_MERGE_H
#define TF_RECORDER_RANK_MERGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "util/bytes.h"

/* Collective over comm: merge every rank's per-rank compressed file bytes
 * (*mine, len bytes; NULL: this rank has none, a failure mark) into one
 * merged trace, which rank 0 gets encoded in *out (the file's bytes, to be
 * written by the caller). drop: *mine is freed (and set to NULL) as soon
 * as the merged trace made from it is gone (its flat runs' bytes are read
 * in place until then; its file is complete on disk: the caller needs it
 * no more). 0 on every rank if rank 0 has it, else -1 on every rank (err
 * says why on the ranks where it went wrong, "" elsewhere). Rank 0 gets
 * the merge time in *merge_ns. */
int tf_merge_ranks(MPI_Comm comm, int rank, int nranks, uint8_t **mine, size_t len, int drop, tf_buf *out,
                   uint64_t *merge_ns, char *err, size_t errlen);

#endif
