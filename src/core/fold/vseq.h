/* vseq.h — value sequences: the compact, lossless form of one parameter
 * across all the occurrences of one folded event.
 *
 * A sequence is built online, one value at a time (or a whole sequence at a
 * time, when two loop iterations fold). Values first gather into arithmetic
 * runs (base, step, count): a constant is a run of step 0, a counter a run of
 * step 1. When a value breaks the open run, the run is closed into the item
 * list, and the item list folds itself: the last d items (d <= TF_VSEQ_MAXP)
 * that repeat the d before them, up to a constant shift of every value,
 * become one repeat item (count, shift, body). A repeat is extended in place
 * when the following items are its next repetition. So
 *     5 5 5 5                 -> run(5, +0, x4)
 *     0 1 2 3 ... 99          -> run(0, +1, x100)
 *     1 2 4 8 1 2 4 8 ...     -> repeat(x N, +0)[run(1,+1,x2) run(4,+4,x2)]
 *     0 0 0 0 1 1 1 1 2 2 ... -> repeat(x N, +1)[run(0,+0,x4)]
 *     random values           -> a list of short runs (the last resort).
 * Cost: O(1) amortised per value while runs continue; O(TF_VSEQ_MAXP) item
 * comparisons (first item compared first, so mismatches are rejected at
 * once) when a run closes. See doc/FOLDING.md.
 *
 * All arithmetic on values is modulo 2^64, so any int64 sequence is stored
 * exactly.
 */
#ifndef TF_VSEQ_H
#define TF_VSEQ_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"
#include "util/mem.h"

#define TF_VSEQ_MAXP 16 /* longest item period searched for repeats */

typedef struct tf_vitem {
  int64_t base;          /* first value of the item */
  int64_t step;          /* run: difference between consecutive values; repeat: shift per repetition */
  uint64_t count;        /* run: number of values (>= 1); repeat: repetitions (>= 2) */
  uint64_t shape;        /* hash of kind, step, body and a run's count (not base, not a repeat's count) */
  struct tf_vitem *body; /* repeat: its items (their bases are absolute for repetition 0); run: NULL */
  uint32_t nbody;        /* repeat: number of body items; run: 0 */
  uint32_t depth;        /* run: 0; repeat: 1 + deepest body item */
} tf_vitem;

typedef struct tf_vseq {
  tf_vitem *items; /* closed items, in order */
  uint32_t n, cap;
  uint64_t tcount; /* the open run at the end: tcount values from tbase by tstep (0: none) */
  int64_t tbase, tstep;
  uint64_t nvalues; /* values in the whole sequence */
} tf_vseq;

static inline void tf_vseq_init(tf_vseq *s) { *s = (tf_vseq){0}; }
void tf_vseq_free(tf_vseq *s, tf_mem *m);

/* Append one value / a run of `count` values base, base+step, ... */
/* tf_vseq_push when v does not extend the open run (vseq.c). */
void tf_vseq_push_other(tf_vseq *s, int64_t v, tf_mem *m);
/* Inline: a value that extends the open run (a loop's counter, a constant)
 * is the common case of every folded event's every value. */
static inline void tf_vseq_push(tf_vseq *s, int64_t v, tf_mem *m) {
  if (s->tcount >= 2 && v == tf_wadd(s->tbase, tf_wmul(s->tstep, s->tcount))) {
    s->tcount++;
    s->nvalues++;
    return;
  }
  tf_vseq_push_other(s, v, m);
}
void tf_vseq_push_run(tf_vseq *s, int64_t base, int64_t step, uint64_t count, tf_mem *m);
/* Append all of `src` (left unchanged). */
void tf_vseq_append(tf_vseq *dst, const tf_vseq *src, tf_mem *m);
/* Append src's values, each plus `offset`, by copying its items: O(items),
 * where tf_vseq_append expands repeats (the items do not fold with dst's). */
void tf_vseq_append_items(tf_vseq *dst, const tf_vseq *src, int64_t offset, tf_mem *m);
/* Sum of the values, computed from the items (O(items)); saturates at
 * +-2^120. */
__int128 tf_vseq_sum(const tf_vseq *s);
/* The sequence holds exactly one value: replace it. */
void tf_vseq_set_single(tf_vseq *s, int64_t v);
/* The only value of a one-value sequence. */
static inline int64_t tf_vseq_single(const tf_vseq *s) { return s->tbase; }
/* The open run at the end as an item (count 0 when there is none). */
static inline tf_vitem tf_vseq_tail(const tf_vseq *s) {
  return (tf_vitem){.base = s->tbase, .step = s->tcount > 1 ? s->tstep : 0, .count = s->tcount};
}
/* The sequence is complete: close its open run into the items, so that it
 * can fold with them (before the sequence is written). */
void tf_vseq_seal(tf_vseq *s, tf_mem *m);
/* 1 if the sequence is `count` copies of one value (any count). */
int tf_vseq_is_constant(const tf_vseq *s, int64_t *value);

/* Recompute an item's shape from its fields (its body's shapes are set):
 * sequences read from a file fold further with appended values. */
void tf_vitem_reshape(tf_vitem *it);

/* Deep copy (dst uninitialised). 0, or -1 out of memory (dst empty). */
int tf_vseq_copy(tf_vseq *dst, const tf_vseq *src, tf_mem *m);
/* Same items (so the same values); sequences with equal values built in
 * different ways may compare unequal, which only costs space. */
int tf_vseq_equal(const tf_vseq *a, const tf_vseq *b);
uint64_t tf_vseq_hash(const tf_vseq *s);

/* Text for people ("0..99", "{1, 2} x8 +1", ...; vseq_text.c), truncated to fit. */
void tf_vseq_format(const tf_vseq *s, char *buf, size_t len);

/* Sequential reading: a stack of positions in nested repeats. */
#define TF_VSEQ_MAXDEPTH 16 /* repeats are never nested deeper than this */
typedef struct tf_vseq_level {
  const tf_vitem *items;
  uint32_t n, i;  /* items of this level, current item */
  uint64_t k;     /* index inside the current item: value of a run, repetition of a repeat */
  int64_t offset; /* added to every value read at this level */
} tf_vseq_level;

typedef struct tf_vseq_iter {
  const tf_vseq *s;
  uint32_t depth;   /* levels in use */
  uint64_t tk;      /* values of the open run read */
  tf_vseq_level lv[]; /* tf_vseq_depth(s) + 1 levels */
} tf_vseq_iter;

/* Bytes to allocate for a reader of `s` (the struct and its levels). */
size_t tf_vseq_iter_size(const tf_vseq *s);
void tf_vseq_iter_init(tf_vseq_iter *it, const tf_vseq *s);
/* Next value: 1 and *v, or 0 at the end. */
int tf_vseq_iter_next(tf_vseq_iter *it, int64_t *v);

/* Random access in O(items x depth), without reading the values before:
 * the number of values an item stands for, and value number k (from 0) of
 * a sequence (0 if it has fewer). */
uint64_t tf_vitem_nvalues(const tf_vitem *it);
int64_t tf_vseq_value_at(const tf_vseq *s, int64_t k);

/* Nesting depth of repeats (0: only runs). */
uint32_t tf_vseq_depth(const tf_vseq *s);

#endif
