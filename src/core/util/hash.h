/* hash.h — the 64-bit mixing function behind every structural hash
 * (value-sequence item shapes, event and loop shapes, window hashes).
 * Hashes only select candidates; every fold is verified field by field. */
#ifndef TF_HASH_H
#define TF_HASH_H

#include <stdint.h>

static inline uint64_t tf_mix(uint64_t h, uint64_t v) {
  uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Wrapping (mod 2^64) arithmetic on values, without signed-overflow UB. */
static inline int64_t tf_wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t tf_wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t tf_wmul(int64_t a, uint64_t k) { return (int64_t)((uint64_t)a * k); }

#endif
