/* rank_merge.h — the merge of every rank's trace at MPI_Finalize
 * (rank_merge.c, doc/MERGING.md). */
#ifndef TF_RECORDER_RANK_MERGE_H
#define TF_RECORDER_RANK_MERGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Collective over comm: merge every rank's per-rank compressed file bytes
 * (mine) into one merged trace that rank 0 writes to out_path. 0 on every
 * rank if the file was written, else -1 on every rank (err says why where
 * it went wrong). Rank 0 gets the merge time in *merge_ns. */
int tf_merge_ranks(MPI_Comm comm, int rank, int nranks, const uint8_t *mine, size_t len, const char *out_path,
                   uint64_t *merge_ns, char *err, size_t errlen);

#endif
