/* topology.h — the rank space of a traced program for extrapolation: its
 * number of Cartesian dimensions (from a recorded MPI_Dims_create or
 * MPI_Cart_create; else a 2-D or 3-D row-major grid detected from the peer
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
/* A row-major rank grid seen in the relative peers (TF_FIELD_PEER) of the
 * trace: *row, the smallest offset m > 1 that divides P, except one whose
 * successor also does and is seen (then m is the wrap of a periodic row of
 * m + 1), or 0 (a 1-D space); *plane, the smallest longer offset that is a
 * multiple of at least 2 rows and divides P into at least 2 planes (the
 * same exception for a wrap), or 0 (2-D). 0, or -1: out of memory. Offsets
 * alone cannot tell every pattern apart (butterfly's XOR partners at 8
 * ranks are those of a 2x2x2 grid): callers check the inputs agree. */
int tf_topo_detect(const tf_mtrace *t, int64_t *row, int64_t *plane);
/* visit(ctx, v) for the value sets v of every relative-peer field
 * (TF_FIELD_PEER) of t's events, inside loops too; stops at the first
 * non-zero result and returns it, else 0. */
int tf_topo_each_peer_field(const tf_mtrace *t, int (*visit)(void *ctx, const tf_vset *v), void *ctx);
/* dims[0..nd) for p ranks, as MPI_Dims_create(p, nd) with no fixed sizes. */
void tf_topo_dims(int64_t p, int nd, int64_t *dims);

#endif
