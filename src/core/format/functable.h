/* functable.h — a trace's function table: the recorded MPI functions it
 * uses and the fields of their parameter vectors, stored in each trace so
 * that files describe themselves (doc/FORMAT.md, "Function table"). */
#ifndef TF_FUNCTABLE_H
#define TF_FUNCTABLE_H

#include "util/bytes.h"
#include "tracefold.h"

#define TF_FUNCTABLE_MAX 65536 /* functions of one table (readers' limit) */

typedef struct tf_functable {
  uint32_t n;
  tf_func_desc *funcs;
  tf_field_desc *fields; /* every function's fields, back to back, in function order */
  uint64_t nfields;
  char **strings; /* names, owned */
  size_t nstrings;
} tf_functable;

/* A table: its size, then each function (tf_functable_encode_one). */
void tf_functable_encode(tf_buf *b, const tf_func_desc *funcs, uint32_t n);
/* One function: name, field count, fields (doc/FORMAT.md 1.5). */
void tf_functable_encode_one(tf_buf *b, const tf_func_desc *fd);
/* 0; -1 malformed or truncated; -2 out of memory. ft is always freeable. */
int tf_functable_decode(tf_cursor *c, tf_functable *ft);
/* Decode one function and append it to ft (at most TF_FUNCTABLE_MAX in
 * all). 0; -1 malformed or truncated; -2 out of memory. */
int tf_functable_decode_one(tf_cursor *c, tf_functable *ft);
/* Deep copy. 0 or -1 (out of memory; ft freeable). */
int tf_functable_copy(tf_functable *ft, const tf_func_desc *funcs, uint32_t n);
/* Append a deep copy of fd. 0 or -1 (out of memory; ft unchanged but for capacity). */
int tf_functable_add(tf_functable *ft, const tf_func_desc *fd);
/* Index of the first function named `name` in ft, or UINT32_MAX. */
uint32_t tf_functable_find(const tf_functable *ft, const char *name);
/* 1 if both functions have the same name and fields. */
int tf_func_same(const tf_func_desc *a, const tf_func_desc *b);
/* 1 if both tables hold the same functions, in the same order. */
int tf_functable_same(const tf_func_desc *a, uint32_t na, const tf_func_desc *b, uint32_t nb);
void tf_functable_free(tf_functable *ft);

#endif
