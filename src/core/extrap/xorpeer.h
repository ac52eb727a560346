/* xorpeer.h — the partners of a butterfly (recursive doubling) as a rule of
 * the rank's bits (extrapolation, doc/EXTRAPOLATE.md).
 *
 * At P = 2^L ranks, rank r's i-th partner is r XOR 2^(i mod L); it is
 * recorded relative to r, so rank r's value set sequence holds
 * (1 - 2 bit_k(r)) 2^k, k = i mod L. That is no affine function of the
 * rank's coordinates, and its sequence changes shape with L. A value set
 * that follows the rule exactly at every input (every rank of 0 .. P-1 in
 * one group, n values each) is written at the target by the rule: one
 * group per combination of the bits k < min(n, L), its ranks the strided
 * run of the ranks with those low bits.
 */
#ifndef TF_EXTRAP_XORPEER_H
#define TF_EXTRAP_XORPEER_H

#include <stdint.h>

#include "merge/mtrace.h"

/* log2 p if p is a power of two >= 2, else -1. */
int tf_xor_log2(int64_t p);

/* v (a value set at p ranks) follows the rule: 1 and *n, the number of
 * values per rank; 0 if not (or p is no power of two >= 2). -1: out of
 * memory. */
int tf_xor_match(const tf_vset *v, int64_t p, uint64_t *n);

/* Append to out the rule's groups at p ranks (a power of two >= 2), n
 * values per rank. 0, or -1 (out of memory). */
int tf_xor_expand(tf_vset *out, int64_t p, uint64_t n, tf_mem *m);

#endif
