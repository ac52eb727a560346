/* grow.h — the exporters' growing arrays. */
#ifndef TF_EXPORT_GROW_H
#define TF_EXPORT_GROW_H

#include <stdlib.h>

/* arr (n elements of elem bytes, room for *cap) with room for element n:
 * doubled when full. NULL when memory is short (arr and *cap unchanged). */
static inline void *xp_grow(void *arr, size_t n, size_t *cap, size_t elem) {
  if (n < *cap) return arr;
  size_t ncap = *cap ? 2 * *cap : 16;
  while (ncap <= n) ncap *= 2;
  void *na = realloc(arr, ncap * elem);
  if (na) *cap = ncap;
  return na;
}

#endif
