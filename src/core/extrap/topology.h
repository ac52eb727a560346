/* topology.h — the rank space of a traced program for extrapolation: its
 * number of Cartesian dimensions (from a recorded MPI_Dims_create or
 * MPI_Cart_create; else a 2-D row-major grid detected from the peer
 * offsets of its point-to-point calls; else 1) and the dimension sizes at
 * P ranks by MPI_Dims_create's rule (balanced, non-increasing). */
#ifndef TF_EXTRAP_TOPOLOGY_H
#define TF_EXTRAP_TOPOLOGY_H

#include <stdint.h>

#include "merge/mtrace.h"

#define TF_TOPO_MAXDIMS 3

/* ndims the program passed to MPI_Dims_create or MPI_Cart_create (the
 * first such call of the trace, 1 .. TF_TOPO_MAXDIMS), or 0 if it made none. */
int tf_topo_ndims(const tf_mtrace *t);
/* The row length of a 2-D row-major rank grid seen in the relative peers
 * (TF_FIELD_PEER) of the trace: the smallest offset m > 1 that divides P,
 * except one whose successor also does and is seen (then m is the wrap of a
 * periodic row of m + 1). 0: none (a 1-D space); -1: out of memory. */
int64_t tf_topo_detect_row(const tf_mtrace *t);
/* dims[0..nd) for p ranks, as MPI_Dims_create(p, nd) with no fixed sizes. */
void tf_topo_dims(int64_t p, int nd, int64_t *dims);

#endif
