/* ranklist.h — sets of ranks as sorted value sequences.
 *
 * A rank list is a strictly increasing value sequence (vseq.h), so that
 * strided blocks compress by themselves: ranks 6,7,8, 11,12,13, 16,17,18 are
 * one repeat (x3, +5) of one run (6, +1, x3) — a 3x3 block from rank 6 with
 * strides 5 and 1, written "<2 6 3 5 3 1>" (dimensions, start, then count
 * and stride per dimension, outermost first), as in ScalaTrace. Lists grow
 * by appending higher ranks, which is how ranks merge (in rank order).
 */
#ifndef TF_RANKLIST_H
#define TF_RANKLIST_H

#include <stddef.h>
#include <stdint.h>

#include "fold/vseq.h"

/* 1 if the (strictly increasing) list holds rank r. O(items x depth). */
int tf_ranks_contains(const tf_vseq *ranks, int64_t r);
/* Position of rank r in the list (from 0), or -1 if it does not hold r. O(items x depth). */
int64_t tf_ranks_index(const tf_vseq *ranks, int64_t r);
/* First and last rank (the list is not empty). */
int64_t tf_ranks_first(const tf_vseq *ranks);
int64_t tf_ranks_last(const tf_vseq *ranks);
/* Text form: one "<d start c1 s1 ... cd sd>" per block, blocks separated by
 * spaces; a repeat of several blocks as "(...)xN+S". Truncated to fit. */
void tf_ranks_format(const tf_vseq *ranks, char *buf, size_t len);

#endif
