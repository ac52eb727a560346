/* test_extrap_coords.c — value groups as affine functions of the rank's
 * coordinates (src/core/extrap/coords.h, tf_fit_affine of fit.h), against
 * values computed rank by rank here.
 *
 *   affine     tf_fit_affine: the smallest exact fit with whole
 *              coefficients, none when no whole fit exists;
 *   planes     a 2x3x2 grid whose value is the plane (a color of
 *              MPI_Comm_split by plane): one class only when groups of
 *              several ranks may join (wide), value = c0; spread over a
 *              3x3x2 grid it gives each rank its own plane;
 *   edge_row   relative sources -r on the top row of a 3x3 grid (one rank
 *              each) and -3 below: the top row is one class, the rest a
 *              group of its own; no wide split needed; where pairs may
 *              have rules, the top row is one pair (rule -r, 0) at
 *              100x100 instead of 100, and the planes of 3x3x2 one pair
 *              (rule r/6, 0) instead of 3;
 *   per_rank   one value per rank through its value groups and back;
 *   rank_class tf_rankclass_lists (rankclass.h) on random rank lists
 *              (runs of consecutive ranks, strided runs, repeats) over 1-D,
 *              2-D and 3-D grids: each bucket's list is exactly the ranks
 *              of its classes, in order, against tf_rankclass_of rank by
 *              rank and against the class worked out from the coordinates
 *              here; all ranks of a 1024x1024 grid split into surface and
 *              inside as two compact lists.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "extrap/coords.h"
#include "extrap/fit.h"
#include "extrap/rankclass.h"
#include "merge/tgroups.h"

/* A value set with one group per value of value_of(rank) over p ranks (in
 * order of first rank), each the value `times` times. */
static void make_set(tf_vset *v, int64_t p, int64_t (*value_of)(int64_t, const int64_t *), const int64_t *dims,
                     uint64_t times, tf_mem *m) {
  int64_t *val = malloc((size_t)p * sizeof *val);
  uint8_t *done = calloc((size_t)p, 1);
  for (int64_t r = 0; r < p; r++) val[r] = value_of(r, dims);
  for (int64_t r = 0; r < p; r++) {
    if (done[r]) continue;
    tf_vseq seq = {0}, ranks = {0};
    tf_vseq_push_run(&seq, val[r], 0, times, m);
    for (int64_t q = r; q < p; q++)
      if (val[q] == val[r]) tf_vseq_push(&ranks, q, m), done[q] = 1;
    uint64_t h = tf_vseq_hash(&seq);
    tf_vset_add(v, &seq, &ranks, h, m);
  }
  free(val);
  free(done);
}

/* Every rank of v's groups has value_of(rank), `times` times; p ranks in all. */
static void check_set(const tf_vset *v, int64_t p, int64_t (*value_of)(int64_t, const int64_t *),
                      const int64_t *dims, uint64_t times) {
  int64_t seen = 0;
  tf_mem m = {0};
  for (int64_t r = 0; r < p; r++) {
    tf_vseq mine; /* the rank's own values (a pair with a rule: shifted to the rank) */
    int found = tf_vset_rank_seq(v, r, &mine, &m);
    const tf_vseq *s = &mine;
    CHECKF(found == 1, "rank %lld in no group", (long long)r);
    int64_t value;
    if (found == 1)
      CHECKF(tf_vseq_is_constant(s, &value) && value == value_of(r, dims) && s->nvalues == times,
             "rank %lld: value %lld x%llu, expected %lld x%llu", (long long)r, (long long)tf_vseq_value_at(s, 0),
             (unsigned long long)s->nvalues, (long long)value_of(r, dims), (unsigned long long)times);
    tf_vseq_free(&mine, &m);
  }
  for (uint32_t g = 0; g < v->n; g++) seen += (int64_t)v->ranks[g].nvalues;
  CHECKF(seen == p, "%lld ranks in the groups, expected %lld", (long long)seen, (long long)p);
}

static void test_affine(void) {
  /* y = 3 - 2 c1 on (c0, c1) points where c0 is always 0: c0 unused */
  const int64_t x[] = {1, 0, 0, 1, 0, 1, 1, 0, 2};
  const int64_t y[] = {3, 1, -1};
  int64_t coef[3] = {9, 9, 9};
  CHECK(tf_fit_affine(x, y, 3, 3, coef) == 1);
  CHECKF(coef[0] == 3 && coef[1] == 0 && coef[2] == -2, "coef %lld %lld %lld", (long long)coef[0],
         (long long)coef[1], (long long)coef[2]);
  const int64_t half[] = {0, 1, 1}; /* y = c1 / 2 + ...: no whole fit */
  const int64_t x1[] = {1, 0, 1, 1, 1, 2};
  CHECK(tf_fit_affine(x1, half, 3, 2, coef) == 0);
}

static int64_t plane_of(int64_t r, const int64_t *dims) { return r / (dims[1] * dims[2]); }

static void test_planes(void) {
  tf_mem m = {0};
  const int64_t small[3] = {2, 3, 2}, big[3] = {3, 3, 2};
  tf_vset v = {0};
  make_set(&v, 12, plane_of, small, 4, &m);
  CHECK(v.n == 2);
  tf_coord_entry *e;
  uint32_t n;
  CHECK(tf_coord_split(&v, 3, small, 0, &e, &n, &m) == 0);
  CHECKF(n == 2, "%u entries without wide groups, expected 2", n);
  tf_coord_free(e, n, &m);
  CHECK(tf_coord_split(&v, 3, small, 1, &e, &n, &m) == 0);
  CHECKF(n == 1 && e[0].is_class, "%u entries with wide groups, expected 1 class", n);
  if (n == 1) {
    CHECKF(e[0].coef[0] == 0 && e[0].coef[1] == 1 && e[0].coef[2] == 0 && e[0].coef[3] == 0,
           "coefficients %lld %lld %lld %lld", (long long)e[0].coef[0], (long long)e[0].coef[1],
           (long long)e[0].coef[2], (long long)e[0].coef[3]);
    tf_vseq all = {0};
    tf_vseq_push_run(&all, 0, 1, 18, &m);
    tf_vset out = {0};
    CHECK(tf_coord_expand(&out, &all, &e[0].shape, e[0].coef, 3, big, 0, &m) == 0);
    CHECK(out.n == 3);
    check_set(&out, 18, plane_of, big, 4);
    tf_vset_free(&out, &m);
    CHECK(tf_coord_expand(&out, &all, &e[0].shape, e[0].coef, 3, big, 1, &m) == 0);
    const tf_vrule *q = tf_vset_pair_rule(&out, 0);
    CHECKF(out.n == 1 && q && q->a == 1 && q->d == 6 && q->m == 0, "%u groups with rules, expected 1 (r/6)", out.n);
    check_set(&out, 18, plane_of, big, 4);
    tf_vset_free(&out, &m);
    tf_vseq_free(&all, &m);
  }
  tf_coord_free(e, n, &m);
  tf_vset_free(&v, &m);
}

/* MPICH's source of a receive from MPI_PROC_NULL: rank 0, relative */
static int64_t north_source(int64_t r, const int64_t *dims) { return r < dims[1] ? -r : -dims[1]; }

static void test_edge_row(void) {
  tf_mem m = {0};
  const int64_t d33[2] = {3, 3}, d43[2] = {4, 3};
  tf_vset v = {0};
  make_set(&v, 9, north_source, d33, 5, &m);
  CHECK(v.n == 4);
  tf_coord_entry *e;
  uint32_t n;
  CHECK(tf_coord_split(&v, 2, d33, 0, &e, &n, &m) == 0);
  CHECKF(n == 2 && e[0].is_class && e[1].is_class, "%u entries, expected 2 classes", n);
  if (n == 2) {
    CHECKF(e[0].coef[0] == 0 && e[0].coef[1] == 0 && e[0].coef[2] == -1, "top row: %lld %lld %lld",
           (long long)e[0].coef[0], (long long)e[0].coef[1], (long long)e[0].coef[2]);
    CHECK(e[0].ranks.nvalues == 3 && e[1].ranks.nvalues == 6);
    /* at 4x3 the classes keep their coefficients except the inner constant -3 */
    tf_vseq top = {0}, rest = {0};
    tf_vseq_push_run(&top, 0, 1, 3, &m);
    tf_vseq_push_run(&rest, 3, 1, 9, &m);
    tf_vset out = {0};
    const int64_t inner[3] = {-3, 0, 0};
    CHECK(tf_coord_expand(&out, &top, &e[0].shape, e[0].coef, 2, d43, 0, &m) == 0);
    CHECK(tf_coord_expand(&out, &rest, &e[1].shape, inner, 2, d43, 0, &m) == 0);
    check_set(&out, 12, north_source, d43, 5);
    tf_vset_free(&out, &m);
    tf_vseq_free(&top, &m);
    tf_vseq_free(&rest, &m);
    /* at 100x100: the top row is long enough for the counting sort */
    const int64_t d100[2] = {100, 100}, inner100[3] = {-100, 0, 0};
    tf_vseq_push_run(&top, 0, 1, 100, &m);
    tf_vseq_push_run(&rest, 100, 1, 9900, &m);
    CHECK(tf_coord_expand(&out, &top, &e[0].shape, e[0].coef, 2, d100, 0, &m) == 0);
    CHECK(tf_coord_expand(&out, &rest, &e[1].shape, inner100, 2, d100, 0, &m) == 0);
    CHECKF(out.n == 101, "%u groups at 100x100, expected 101", out.n);
    check_set(&out, 10000, north_source, d100, 5);
    tf_vset_free(&out, &m);
    /* where pairs may have rules (an event's slot): the top row's -r is one pair, absolute 0 */
    CHECK(tf_coord_expand(&out, &top, &e[0].shape, e[0].coef, 2, d100, 1, &m) == 0);
    CHECK(tf_coord_expand(&out, &rest, &e[1].shape, inner100, 2, d100, 1, &m) == 0);
    const tf_vrule *q = tf_vset_pair_rule(&out, 0);
    CHECKF(out.n == 2 && q && q->a == -1 && q->d == 1 && q->m == 0 && !tf_vset_pair_rule(&out, 1),
           "%u groups at 100x100 with rules, expected 2, the first with the rule -r", out.n);
    check_set(&out, 10000, north_source, d100, 5);
    tf_vset_free(&out, &m);
    tf_vseq_free(&top, &m);
    tf_vseq_free(&rest, &m);
  }
  tf_coord_free(e, n, &m);
  tf_vset_free(&v, &m);
}

static void test_per_rank(void) {
  tf_mem m = {0};
  const int64_t vals[] = {14, 14, 18, 18, 18, 18, 14, 14, 7};
  tf_vseq s = {0}, back = {0};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) tf_vseq_push(&s, vals[i], &m);
  tf_vset v = {0};
  CHECK(tf_coord_groups(&s, &v, &m) == 0);
  CHECKF(v.n == 3, "%u groups, expected 3", v.n);
  CHECK(tf_coord_per_rank(&v, 9, &back, &m) == 0);
  CHECK(back.nvalues == 9);
  for (int64_t r = 0; r < 9; r++)
    CHECKF(tf_vseq_value_at(&back, r) == vals[r], "rank %lld: %lld", (long long)r,
           (long long)tf_vseq_value_at(&back, r));
  tf_vset_free(&v, &m);
  tf_vseq_free(&s, &m);
  tf_vseq_free(&back, &m);
}

/* The partner of a transpose on a square grid, relative: rank (i, j) talks
 * to (j, i), (n-1) * (j - i) away; its value depends on both coordinates. */
static int64_t transpose_partner(int64_t r, const int64_t *dims) {
  int64_t n = dims[1], i = r / n, j = r % n;
  return j * n + i - r;
}

static void test_transpose(void) {
  tf_mem m = {0};
  const int64_t d44[2] = {4, 4}, d100[2] = {100, 100};
  tf_vset v = {0};
  make_set(&v, 16, transpose_partner, d44, 3, &m);
  CHECKF(v.n == 7, "%u groups at 4x4, expected 7 (one per diagonal)", v.n);
  tf_coord_entry *e;
  uint32_t n;
  CHECK(tf_coord_split(&v, 2, d44, 1, &e, &n, &m) == 0);
  CHECKF(n == 1 && e[0].is_class, "%u entries, expected 1 class", n);
  if (n == 1) {
    CHECKF(e[0].coef[0] == 0 && e[0].coef[1] == -3 && e[0].coef[2] == 3, "coefficients %lld %lld %lld",
           (long long)e[0].coef[0], (long long)e[0].coef[1], (long long)e[0].coef[2]);
    const int64_t coef[3] = {0, -99, 99}; /* the class at 100x100, as the fit gives it */
    tf_vseq all = {0};
    tf_vseq_push_run(&all, 0, 1, 10000, &m);
    tf_vset out = {0};
    CHECK(tf_coord_expand(&out, &all, &e[0].shape, coef, 2, d100, 0, &m) == 0); /* no rules: one group per value */
    CHECKF(out.n == 199, "%u groups at 100x100 without rules, expected 199", out.n);
    check_set(&out, 10000, transpose_partner, d100, 3);
    tf_vset_free(&out, &m);
    CHECK(tf_coord_expand(&out, &all, &e[0].shape, coef, 2, d100, 1, &m) == 0); /* one pair, a rule of two terms */
    const tf_vrule *q = tf_vset_pair_rule(&out, 0);
    CHECKF(out.n == 1 && q && q->a == -99 && q->d == 100 && q->m == 0 && q->a2 == 99 && q->d2 == 1 && q->m2 == 100 &&
               tf_vrule_valid(q),
           "%u groups at 100x100 with rules, expected 1 with -99*(r/100)+99*(r%%100)", out.n);
    check_set(&out, 10000, transpose_partner, d100, 3);
    char text[128];
    if (q) tf_vrule_format(q, text, sizeof text);
    CHECKF(q && strcmp(text, "-99*(r/100)+99*(r%100)") == 0, "rule shown as %s", q ? text : "(none)");
    tf_vset_free(&out, &m);
    tf_vseq_free(&all, &m);
  }
  tf_coord_free(e, n, &m);
  tf_vset_free(&v, &m);
}

/* The class of r worked out here: per dimension 0 first, 2 last, 1 inner
 * (a dimension of one rank: 0), the last dimension weighing 1. */
static uint32_t class_here(int64_t r, int nd, const int64_t *dims) {
  int64_t x[3];
  for (int d = nd - 1; d >= 0; d--) x[d] = r % dims[d], r /= dims[d];
  uint32_t c = 0;
  for (int d = 0; d < nd; d++) c = c * 3 + (x[d] == 0 ? 0u : x[d] == dims[d] - 1 ? 2u : 1u);
  return c;
}

static void test_rank_class(void) {
  tf_mem m = {0};
  uint64_t seed = 12345;
  for (int round = 0; round < 300; round++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    int nd = 1 + (int)(seed >> 60) % 3;
    int64_t dims[3], p = 1;
    for (int d = 0; d < nd; d++) dims[d] = 1 + (int64_t)((seed >> (8 * d + 8)) % 7), p *= dims[d];
    /* a sorted list: runs of consecutive ranks and strided runs, as a merge builds them */
    tf_vseq list;
    tf_vseq_init(&list);
    uint8_t *in = calloc((size_t)p, 1);
    int64_t r = (int64_t)(seed >> 20) % 3;
    while (r < p) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      int64_t step = (seed >> 62) ? 1 : 1 + (int64_t)(seed >> 40) % 5, n = 1 + (int64_t)(seed >> 33) % 9;
      for (int64_t i = 0; i < n && r < p; i++, r += step) tf_vseq_push(&list, r, &m), in[r] = 1;
      r += 1 + (int64_t)(seed >> 50) % 4;
    }
    tf_vseq_seal(&list, &m);
    uint32_t bucket[TF_RANKCLASS_MAX];
    for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) bucket[c] = (uint32_t)((seed >> c) % 4 == 3 ? UINT32_MAX : c % 5);
    tf_vseq out[TF_RANKCLASS_MAX];
    for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) tf_vseq_init(&out[c]);
    CHECK(tf_rankclass_lists(&list, nd, dims, bucket, out, &m) == 0);
    for (uint32_t b = 0; b < 5; b++) { /* bucket b: the ranks of the list whose class maps to b, in order */
      tf_vseq_iter *it = malloc(tf_vseq_iter_size(&out[b]));
      tf_vseq_iter_init(it, &out[b]);
      int64_t v, want = -1;
      uint64_t got = 0;
      int ok = 1;
      for (int64_t q = 0; q < p; q++) {
        if (!in[q] || bucket[class_here(q, nd, dims)] != b) continue;
        CHECK(tf_rankclass_of(q, nd, dims) == class_here(q, nd, dims));
        ok &= tf_vseq_iter_next(it, &v) && v == q;
        got++;
        want = q;
      }
      ok &= !tf_vseq_iter_next(it, &v) && out[b].nvalues == got;
      CHECKF(ok, "round %d: %d-D %lldx%lldx%lld, bucket %u: not the list's ranks of its classes (last %lld)", round,
             nd, (long long)dims[0], (long long)(nd > 1 ? dims[1] : 1), (long long)(nd > 2 ? dims[2] : 1), b,
             (long long)want);
      free(it);
    }
    for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) tf_vseq_free(&out[c], &m);
    tf_vseq_free(&list, &m);
    free(in);
  }
  /* all ranks of 1024x1024: surface and inside, each a few items */
  int64_t dims[2] = {1024, 1024};
  tf_vseq all, out[TF_RANKCLASS_MAX];
  tf_vseq_init(&all);
  tf_vseq_push_run(&all, 0, 1, 1024 * 1024, &m);
  uint32_t bucket[TF_RANKCLASS_MAX];
  for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) bucket[c] = c == 4 ? 1 : 0, tf_vseq_init(&out[c]);
  CHECK(tf_rankclass_lists(&all, 2, dims, bucket, out, &m) == 0);
  CHECKF(out[1].nvalues == 1022 * 1022 && out[0].nvalues == 1024 * 1024 - 1022 * 1022,
         "1024x1024: %llu inside, %llu on the surface", (unsigned long long)out[1].nvalues,
         (unsigned long long)out[0].nvalues);
  CHECKF(tf_ranks_cost(&out[1]) <= 2 && tf_ranks_cost(&out[0]) <= 8, "1024x1024: %u and %u rank-list items",
         tf_ranks_cost(&out[1]), tf_ranks_cost(&out[0]));
  printf("rank_class: 300 random lists split as their ranks' classes; 1024x1024 all ranks: inside %u items, "
         "surface %u\n", tf_ranks_cost(&out[1]), tf_ranks_cost(&out[0]));
  for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) tf_vseq_free(&out[c], &m);
  tf_vseq_free(&all, &m);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"affine", test_affine},
      {"planes", test_planes},
      {"edge_row", test_edge_row},
      {"per_rank", test_per_rank},
      {"transpose", test_transpose},
      {"rank_class", test_rank_class},
  };
  return run_cases("test_extrap_coords", cases, TEST_NCASES(cases), argc, argv);
}
