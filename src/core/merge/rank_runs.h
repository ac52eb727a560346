/* rank_runs.h — the present ranks of a merged trace cut into runs of
 * consecutive ranks that read alike, so that checks and totals over all
 * ranks cost one rank per run instead of one per rank (doc/EXTRAPOLATE.md
 * "Scale").
 *
 * A rank's projection (tf_mtrace_project) depends only on which rank lists
 * of the trace hold it (nodes, value sets, time groups, stream orders) and
 * on its event count. Every list and the per-rank counts (events, lost,
 * partial) are walked for the places where they can change; between two
 * such places every rank is in the same lists with the same counts, so its
 * projection, and so every event it unrolls to, is the same as the first
 * rank's. Regular codes have a few runs whatever the number of ranks (a
 * ring: the first rank, the interior, the last; a 2-D stencil: a few per
 * row of the grid). A list of strided single ranks costs one place per
 * rank: at worst one run per rank, as before.
 */
#ifndef TF_RANK_RUNS_H
#define TF_RANK_RUNS_H

#include <stdint.h>

#include "merge/mtrace.h"

typedef struct tf_rank_run {
  int32_t first; /* ranks first .. first + n - 1, all present */
  int32_t n;
} tf_rank_run;

/* The runs of t's present ranks, in rank order, into *runs (malloc'ed) and
 * *n. 0, or -1 out of memory. */
int tf_mtrace_rank_runs(const tf_mtrace *t, tf_rank_run **runs, uint32_t *n);
/* The same for an opened trace; flat files: one run per rank. */
int tf_trace_rank_runs(tf_trace *t, tf_rank_run **runs, uint32_t *n);

#endif
