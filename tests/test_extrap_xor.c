/* test_extrap_xor.c — butterfly partners as a rule of the rank's bits
 * (src/core/extrap/xorpeer.h) and ambiguous exact fits (fit.h), against
 * values computed rank by rank here.
 *
 *   round_trip  the rule written at 8 ranks (5 values per rank) is
 *               recognised, every rank's sequence is (r XOR 2^(i mod 3)) - r,
 *               and at 16 ranks with 2 values per rank it is 4 groups of
 *               strided ranks;
 *   not_rule    a ring's relative peers, a set lacking a rank, and P = 6 are
 *               not the rule;
 *   ambiguous   values that fit exactly both in (1, P) and in (1, d0) but
 *               differ at the target: -1; agreeing there: 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "check.h"
#include "extrap/fit.h"
#include "extrap/xorpeer.h"

static int64_t expected(int64_t r, uint64_t i, int levels) { return (r ^ ((int64_t)1 << (i % (uint64_t)levels))) - r; }

static void check_rule(const tf_vset *v, int64_t p, uint64_t n) {
  int levels = tf_xor_log2(p);
  uint64_t seen = 0;
  for (int64_t r = 0; r < p; r++) {
    const tf_vseq *s = tf_vset_find(v, r);
    CHECKF(s && s->nvalues == n, "rank %lld: no group or not %llu values", (long long)r, (unsigned long long)n);
    for (uint64_t i = 0; s && i < n; i++)
      CHECKF(tf_vseq_value_at(s, i) == expected(r, i, levels), "rank %lld value %llu: %lld", (long long)r,
             (unsigned long long)i, (long long)tf_vseq_value_at(s, i));
  }
  for (uint32_t g = 0; g < v->n; g++) seen += v->ranks[g].nvalues;
  CHECKF(seen == (uint64_t)p, "%llu ranks in the groups", (unsigned long long)seen);
}

static void test_round_trip(void) {
  tf_mem m = {0};
  tf_vset v = {0}, w = {0};
  uint64_t n = 0;
  CHECK(tf_xor_expand(&v, 8, 5, &m) == 0);
  check_rule(&v, 8, 5);
  CHECK(tf_xor_match(&v, 8, &n) == 1 && n == 5);
  CHECK(tf_xor_match(&v, 16, &n) == 0); /* ranks 8..15 missing, and other partners */
  CHECK(tf_xor_expand(&w, 16, 2, &m) == 0);
  check_rule(&w, 16, 2);
  CHECKF(w.n == 4, "%u groups at 16 ranks, 2 values each; expected 4", w.n);
  for (uint32_t g = 0; g < w.n; g++)
    CHECK(w.ranks[g].nvalues == 4 && tf_vseq_value_at(&w.ranks[g], 1) - tf_vseq_value_at(&w.ranks[g], 0) == 4);
  CHECK(tf_xor_expand(&w, 12, 2, &m) == -1);
  tf_vset_free(&v, &m);
  tf_vset_free(&w, &m);
}

static void test_not_rule(void) {
  tf_mem m = {0};
  tf_vset ring = {0}, part = {0}, six = {0};
  uint64_t n = 0;
  for (int64_t r = 0; r < 4; r++) { /* a periodic ring: +1, and -3 on the last rank */
    tf_vseq seq = {0}, ranks = {0};
    tf_vseq_push_run(&seq, r == 3 ? -3 : 1, 0, 2, &m);
    tf_vseq_push(&ranks, r, &m);
    tf_vset_add(&ring, &seq, &ranks, tf_vseq_hash(&seq), &m);
  }
  CHECK(tf_xor_match(&ring, 4, &n) == 0);
  tf_xor_expand(&part, 4, 2, &m);
  tf_vseq_free(&part.seq[3], &m); /* drop rank 3's group */
  tf_vseq_free(&part.ranks[3], &m);
  part.n = 3;
  CHECK(tf_xor_match(&part, 4, &n) == 0);
  tf_xor_expand(&six, 8, 1, &m);
  CHECK(tf_xor_match(&six, 6, &n) == 0);
  CHECK(tf_xor_log2(6) == -1 && tf_xor_log2(1) == -1 && tf_xor_log2(1024) == 10);
  tf_vset_free(&ring, &m);
  tf_vset_free(&part, &m);
  tf_vset_free(&six, &m);
}

static void test_ambiguous(void) {
  /* n x 2 x 1 grids at P = 4, 6, 10: d0 = P / 2 at every input */
  tf_fit_space s = {.nin = 3, .nfeat = 5, .name = {"1", "P", "d0", "d1", "d2"}};
  const int64_t p[3] = {4, 6, 10};
  for (int i = 0; i < 3; i++) {
    int64_t f[5] = {1, p[i], p[i] / 2, 2, 1};
    for (int j = 0; j < 5; j++) s.feat[i][j] = f[j];
  }
  const int64_t y[3] = {2, 3, 5};
  const uint8_t known[3] = {1, 1, 1};
  int64_t out;
  uint32_t used;
  int64_t t16[5] = {1, 16, 4, 2, 2}, t14[5] = {1, 14, 7, 2, 1};
  for (int j = 0; j < 5; j++) s.target[j] = t16[j];
  CHECK(tf_fit_exact(&s, y, known, &out, &used) == -1); /* 8 by (1, P), 4 by (1, d0) */
  CHECKF((used & 0xffff) == 0x3 && used >> 16 == 0x5, "sets %#x", used);
  for (int j = 0; j < 5; j++) s.target[j] = t14[j];
  CHECK(tf_fit_exact(&s, y, known, &out, &used) == 1 && out == 7);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"round_trip", test_round_trip},
      {"not_rule", test_not_rule},
      {"ambiguous", test_ambiguous},
  };
  return run_cases("test_extrap_xor", cases, TEST_NCASES(cases), argc, argv);
}
