/* vseq_codec.h — the byte encoding of a value sequence (doc/FORMAT.md,
 * "Value sequence"), and its validating decoder, shared by per-rank
 * segments and merged traces.
 *
 * The decoder bounds nesting and every count, recomputes the items' shapes
 * (so a decoded sequence folds further when values are appended), and
 * reports range facts about the values — their number and exact min, max
 * and sum, clamped just beyond TF_VSEQ_LIMIT — from which callers check
 * counts against occurrences without reading the values.
 */
#ifndef TF_VSEQ_CODEC_H
#define TF_VSEQ_CODEC_H

#include "util/bytes.h"
#include "fold/vseq.h"

#define TF_VSEQ_LIMIT ((__int128)1 << 62) /* counts and values beyond this are refused */

typedef struct tf_vfacts {
  __int128 count, min, max, sum;
  int increasing; /* every value is larger than the one before (rank lists) */
} tf_vfacts;

void tf_vseq_encode(tf_buf *b, const tf_vseq *s);

/* Decode into s (uninitialised). A last item that is a run becomes the
 * sequence's open run again, so that appended values extend it. 0, or -1 with a reason in *why (static
 * string); s is then partly filled and must be freed. */
int tf_vseq_decode(tf_cursor *c, tf_vseq *s, tf_mem *m, tf_vfacts *f, const char **why);

/* Clamp an exact intermediate into [-LIMIT-1, LIMIT+1]. */
static inline __int128 tf_vclamp(__int128 v) {
  return v > TF_VSEQ_LIMIT ? TF_VSEQ_LIMIT + 1 : v < -TF_VSEQ_LIMIT ? -TF_VSEQ_LIMIT - 1 : v;
}

#endif
