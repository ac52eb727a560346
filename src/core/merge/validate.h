/* validate.h — a merged trace's rank projections checked by decoding them:
 * what `tracefold show`, replay and simulate check before they start, and
 * what `tracefold extrapolate` checks before it writes.
 *
 * Every rank of a run of ranks that read alike projects as the run's first
 * rank (rank_runs.h), and runs whose first ranks' projections have the same
 * bytes and event count alike: one full check (decoding) per distinct
 * projection. A trace of strided rank lists can have one run per rank
 * (butterfly's XOR partners at 1,048,576 ranks): `most` bounds the runs
 * checked, spread evenly over the ranks, the first and the last included. */
#ifndef TF_MERGE_VALIDATE_H
#define TF_MERGE_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "merge/mtrace.h"
#include "tracefold.h"

/* TF_OK, or the first rank whose projection does not decode (err names
 * it). *nchecked, *nruns (either may be NULL): the runs checked, of all. */
tf_status tf_mtrace_validate(const tf_mtrace *mt, uint32_t most, uint32_t *nchecked, uint32_t *nruns, char *err,
                             size_t errlen);

#endif
