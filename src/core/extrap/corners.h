/* corners.h — topology detection from corner ranks, as in ScalaExtrap
 * (shared/papers/trace-extrapolation.txt): ranks with the same
 * communication shape form groups (corners, edges, faces, interior); the
 * corners of a non-periodic row-major grid are the ranks with the fewest
 * distinct peers, there are 2^d of them in d dimensions, and their rank
 * numbers give the dimension sizes (2-D: 0, d1 - 1, P - d1, P - 1).
 *
 * The trace-facing part counts each rank's distinct relative peers; the
 * rest works on those counts and rank numbers only, so it is tested on
 * synthetic groups (tests/test_extrap_corners.c). */
#ifndef TF_EXTRAP_CORNERS_H
#define TF_EXTRAP_CORNERS_H

#include <stdint.h>

#include "merge/mtrace.h"

/* Largest rank count whose peers are counted (the per-rank sets cost
 * TF_CORNERS_MAXPEERS x 8 bytes a rank). */
#define TF_CORNERS_MAXRANKS 65536
#define TF_CORNERS_MAXPEERS 32

/* npeers[r] (r < t->nranks): the number of distinct relative peers
 * (TF_FIELD_PEER values other than 0 and the MPI_PROC_NULL-like specials)
 * of rank r's point-to-point calls, at most TF_CORNERS_MAXPEERS + 1.
 * 0; 1: too many ranks (nothing counted); -1: out of memory. */
int tf_corners_peer_counts(const tf_mtrace *t, uint32_t *npeers);
/* The corner group: the ranks whose count is the smallest, into
 * corners[0..n) (sorted; corners has room for p). n, or 0 when every rank
 * has that count (no rank looks like a corner: a periodic grid, a ring,
 * a hypercube such as butterfly's partners, a 2x2x2 grid). */
uint32_t tf_corners_group(const uint32_t *npeers, int64_t p, int64_t *corners);
/* The non-periodic grid whose corners are exactly c[0..n): n = 2^nd
 * (nd 1 .. 3), dims[0..nd) row-major (dims[nd-1] fastest, every size >= 2,
 * their product p). nd, or 0 if c are no such corners. */
int tf_corners_grid(const int64_t *c, uint32_t n, int64_t p, int64_t *dims);
/* Whether c[0..n) are the corner group of the row-major grid dims[0..nd)
 * (product p) when the dimensions in a bit mask are periodic (a periodic
 * dimension has no edge: all its coordinates are in the group); at least
 * one dimension is not periodic. The smallest such mask, or -1. */
int tf_corners_match(const int64_t *c, uint32_t n, int64_t p, int nd, const int64_t *dims);

#endif
