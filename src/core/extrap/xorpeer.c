/* xorpeer.c — butterfly partners r XOR 2^(i mod log2 P), recorded relative
 * to r: recognise them in a value set, write them at another P (xorpeer.h). */
#include "extrap/xorpeer.h"

#include <stdlib.h>

/* Rank r's i-th relative partner at 2^levels ranks. */
static int64_t partner_offset(int64_t r, uint64_t i, int levels) {
  int k = (int)(i % (uint64_t)levels);
  return (r >> k & 1) ? -((int64_t)1 << k) : (int64_t)1 << k;
}

int tf_xor_log2(int64_t p) {
  if (p < 2 || (p & (p - 1))) return -1;
  int l = 0;
  while ((int64_t)1 << l < p) l++;
  return l;
}

/* The values of group seq follow the rule for rank r: 1 or 0. */
static int group_follows(const tf_vseq *seq, tf_vseq_iter *it, int64_t r, int levels) {
  tf_vseq_iter_init(it, seq);
  int64_t v;
  for (uint64_t i = 0; tf_vseq_iter_next(it, &v); i++)
    if (v != partner_offset(r, i, levels)) return 0;
  return 1;
}

int tf_xor_match(const tf_vset *v, int64_t p, uint64_t *n) {
  int levels = tf_xor_log2(p);
  if (levels < 0 || !v->n || v->seq[0].nvalues == 0) return 0;
  size_t itsize = 0;
  for (uint32_t g = 0; g < v->n; g++) {
    size_t a = tf_vseq_iter_size(&v->seq[g]), b = tf_vseq_iter_size(&v->ranks[g]);
    itsize = a > itsize ? a : itsize;
    itsize = b > itsize ? b : itsize;
  }
  unsigned char *seen = calloc((size_t)p, 1);
  tf_vseq_iter *values = malloc(itsize), *ranks = malloc(itsize);
  int ok = seen && values && ranks ? 1 : -1;
  uint64_t covered = 0;
  for (uint32_t g = 0; g < v->n && ok == 1; g++) {
    ok = v->seq[g].nvalues == v->seq[0].nvalues;
    tf_vseq_iter_init(ranks, &v->ranks[g]);
    int64_t r;
    while (ok == 1 && tf_vseq_iter_next(ranks, &r)) {
      ok = r >= 0 && r < p && !seen[r] && group_follows(&v->seq[g], values, r, levels);
      if (ok) seen[r] = 1, covered++;
    }
  }
  if (ok == 1 && covered != (uint64_t)p) ok = 0;
  if (ok == 1) *n = v->seq[0].nvalues;
  free(seen);
  free(values);
  free(ranks);
  return ok;
}

int tf_xor_expand(tf_vset *out, int64_t p, uint64_t n, tf_mem *m) {
  int levels = tf_xor_log2(p);
  if (levels < 0) return -1;
  int bits = n < (uint64_t)levels ? (int)n : levels; /* the bits a rank's sequence depends on */
  int64_t period = (int64_t)1 << bits;
  for (int64_t low = 0; low < period; low++) {
    tf_vseq seq = {0}, ranks = {0};
    for (uint64_t i = 0; i < n; i++) tf_vseq_push(&seq, partner_offset(low, i, levels), m);
    tf_vseq_push_run(&ranks, low, period, (uint64_t)(p / period), m);
    tf_vseq_seal(&ranks, m);
    if (tf_vset_add(out, &seq, &ranks, tf_vseq_hash(&seq), m)) return -1;
  }
  return m->failed ? -1 : 0;
}
