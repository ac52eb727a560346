/* functable.h — a trace's function table: every recorded MPI function and
 * the fields of its parameter vector, stored in each trace so that files
 * describe themselves (doc/FORMAT.md, "Function table"). */
#ifndef TF_FUNCTABLE_H
#define TF_FUNCTABLE_H

#include "util/bytes.h"
#include "tracefold.h"

typedef struct tf_functable {
  uint32_t n;
  tf_func_desc *funcs;
  tf_field_desc *fields;
  char **strings; /* names, owned */
  size_t nstrings;
} tf_functable;

void tf_functable_encode(tf_buf *b, const tf_func_desc *funcs, uint32_t n);
/* 0; -1 malformed or truncated; -2 out of memory. ft is always freeable. */
int tf_functable_decode(tf_cursor *c, tf_functable *ft);
/* Deep copy. 0 or -1 (out of memory; ft freeable). */
int tf_functable_copy(tf_functable *ft, const tf_func_desc *funcs, uint32_t n);
/* 1 if both tables describe the same functions and fields. */
int tf_functable_same(const tf_func_desc *a, uint32_t na, const tf_func_desc *b, uint32_t nb);
void tf_functable_free(tf_functable *ft);

#endif
