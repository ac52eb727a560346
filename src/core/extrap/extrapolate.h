/* extrapolate.h — a merged trace for P ranks from merged traces of the same
 * program at other rank counts (ScalaExtrap; doc/EXTRAPOLATE.md).
 *
 * The inputs must have the same loop structure (the same nodes, events and
 * call sites, the same number of rank groups in every value set and rank
 * lists and value sequences of the same item shape). Every number of that
 * structure — rank list starts, strides and counts, relative peers, counts,
 * bytes, iteration counts, communicator sizes, per-rank event counts — is
 * fitted exactly (fit.h) over the features 1, P and the dimension sizes
 * (topology.h) and evaluated at P; a number no exact fit explains stops
 * the extrapolation with a message naming the event, the parameter and
 * the values seen. Time summaries are pooled per path over rank groups and
 * each field is fitted with the four timing models.
 */
#ifndef TF_EXTRAP_EXTRAPOLATE_H
#define TF_EXTRAP_EXTRAPOLATE_H

#include <stdio.h>

#include "merge/mtrace.h"

typedef struct tf_extrap_opts {
  int64_t ranks;   /* target P */
  int ndims;       /* 0: from the trace (topology.h); else with dims below */
  int64_t dims[3]; /* --dims: the target's dimension sizes (ndims of them) */
  FILE *explain;   /* non-NULL: the fits chosen, one line each */
} tf_extrap_opts;

/* Extrapolate in[0..k) (k >= 3, distinct rank counts, names for messages)
 * to o->ranks. The result replaces *in[i] for the input with most ranks,
 * whose index is returned; the others are left as they were. -1 with a
 * message in err. */
int tf_extrapolate(tf_mtrace *const *in, const char *const *names, uint32_t k, const tf_extrap_opts *o, char *err,
                   size_t errlen);

#endif
