/* rankclass.h — the classes of ranks by their place in a Cartesian rank
 * space (extrapolation's per-class times, doc/EXTRAPOLATE.md "Times").
 *
 * A rank's class is, per dimension, whether its coordinate is the first,
 * an inner one or the last (a dimension of one rank: the first): 3^nd
 * classes, the corners, edges, faces and the inside of a grid, the same at
 * every size where each dimension has at least 3 ranks. Ranks of one class
 * do the same work in a regular code. Extrapolation keeps the times of two
 * unions of them apart, the surface and the inside (extrapolate.c
 * fit_parts): their rank lists stay a few items at any size.
 */
#ifndef TF_EXTRAP_RANKCLASS_H
#define TF_EXTRAP_RANKCLASS_H

#include <stdint.h>

#include "extrap/topology.h"
#include "fold/vseq.h"

#define TF_RANKCLASS_MAX 27 /* 3^TF_TOPO_MAXDIMS */

/* The class of rank r, ranks row-major over dims[0..nd) (the last fastest). */
uint32_t tf_rankclass_of(int64_t r, int nd, const int64_t *dims);

/* The ranks of `ranks` (a sorted rank list) by class into lists:
 * out[bucket[c]] gets class c's (bucket[c] == UINT32_MAX: nowhere), in
 * order; out[0..TF_RANKCLASS_MAX) initialised by the caller, sealed here.
 * The list's runs of consecutive ranks go a row segment at a time (three
 * pieces a row of the last dimension), other ranks one at a time: all P
 * ranks cost P / dims[nd-1] rows. 0, or -1 out of memory. */
int tf_rankclass_lists(const tf_vseq *ranks, int nd, const int64_t *dims, const uint32_t *bucket, tf_vseq *out,
                       tf_mem *m);

#endif
