/* coords.h — value groups whose value is a function of the rank's place in
 * the Cartesian rank space (extrapolation, doc/EXTRAPOLATE.md).
 *
 * A value set whose number of groups grows with P (a row number as an
 * MPI_Comm_split color; the source MPICH reports for receives from
 * MPI_PROC_NULL, rank 0, recorded relative to each rank of the top row)
 * still has a fixed number of entries when groups that each hold one value
 * throughout (the same number of times) are taken together while their
 * value is an affine function, with whole coefficients, of the coordinates
 * of their ranks (row-major over the dimension sizes): in group order, each
 * joins the first class it fits, else starts one. Groups of one rank are
 * taken together first (a group of several ranks with one value is most
 * often a relative peer of them all, and three points fit any plane);
 * only "wide" splits take groups of several ranks (row colors). Such a
 * class is extrapolated through its coefficients, the union of its ranks
 * and the shape of its sequences; any other group is an entry by itself.
 */
#ifndef TF_EXTRAP_COORDS_H
#define TF_EXTRAP_COORDS_H

#include <stdint.h>

#include "extrap/topology.h"
#include "merge/mtrace.h"

typedef struct tf_coord_entry {
  uint32_t first;                    /* its first group in the value set (the only one if not a class) */
  int is_class;                      /* the groups hold one value each: value = coef . (1, coordinates) */
  int64_t coef[1 + TF_TOPO_MAXDIMS]; /* class */
  tf_vseq ranks;                     /* class: the union of its groups' ranks */
  tf_vseq shape;                     /* class: the first group's sequence less its value (all zeros) */
} tf_coord_entry;

/* The entries of v, ranks at coordinates row-major over dims[0..nd); wide:
 * groups of several ranks join classes too. 0 and
 * *out (n entries, free with tf_coord_free), or -1 (out of memory). */
int tf_coord_split(const tf_vset *v, int nd, const int64_t *dims, int wide, tf_coord_entry **out, uint32_t *n,
                   tf_mem *m);
void tf_coord_free(tf_coord_entry *e, uint32_t n, tf_mem *m);

/* Append to v the groups of a class on `ranks` at dims: one per value the
 * coefficients give, its ranks in order, its sequence shape plus the value.
 * rule_ok (an event's slot): when a rule (mtrace.h, doc/FORMAT.md 3.5)
 * gives every rank its value — value + rank the same on all its ranks (an
 * absolute rank recorded relative, e.g. MPICH's source 0 of a receive from
 * MPI_PROC_NULL), or a value that is one coordinate times a coefficient
 * (a row or column as an MPI_Comm_split color or key) — one pair with that
 * rule instead, whatever the number of ranks. 0, or -1 (out of memory). */
int tf_coord_expand(tf_vset *v, const tf_vseq *ranks, const tf_vseq *shape, const int64_t *coef, int nd,
                    const int64_t *dims, int rule_ok, tf_mem *m);

/* A sequence of one value per rank (rank r's at position r) as the value
 * set of its distinct values, one group each in the order of their first
 * ranks (appended to out); and back, for ranks 0 .. n-1 (a rank no group
 * holds gets 0). 0, or -1 (out of memory). */
int tf_coord_groups(const tf_vseq *per_rank, tf_vset *out, tf_mem *m);
int tf_coord_per_rank(const tf_vset *v, int64_t n, tf_vseq *out, tf_mem *m);

#endif
