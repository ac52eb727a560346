/* selfcheck.h — extrapolation checked against its own inputs: before an
 * extrapolated trace is written, the inputs are extrapolated again to each
 * input's own rank count and the result must read, for one rank of every
 * group of ranks that read alike (rank_runs.h) in either trace, exactly as
 * that input: the same events on that rank, the same iteration counts and
 * the same parameter values (times are not compared: they are fitted, not
 * reproduced). A difference names the input, the rank, the event and the
 * parameter, and the extrapolation is refused rather than written wrong. */
#ifndef TF_EXTRAP_SELFCHECK_H
#define TF_EXTRAP_SELFCHECK_H

#include <stddef.h>

#include "extrap/extrapolate.h"
#include "merge/mtrace.h"

/* 0 if got reads like want on one rank of each of their rank runs (they
 * have the same rank count and tree shape); 1 with the first difference in
 * err ("rank R, EVENT at PATH, parameter NAME: ..."); -1 out of memory. */
int tf_extrap_compare(const tf_mtrace *got, const tf_mtrace *want, char *err, size_t errlen);
/* tf_extrapolate (same arguments and result), then the self-check above on
 * copies of the inputs taken before: -1 with the difference in err. If the
 * inputs as recorded are refused, once more from the inputs merged again
 * in rank order (tf_mtrace_remerge): the recorder's merge aligns ranks in
 * an order that changes with the rank count. */
int tf_extrapolate_checked(tf_mtrace *const *in, const char *const *names, uint32_t k, const tf_extrap_opts *o,
                           char *err, size_t errlen);

#endif
