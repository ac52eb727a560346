/* test_folding.c — unit tests of online loop folding: every structure must
 * be lossless, checked by exact equality against an independent oracle (the
 * values or events the test generated itself), and compact for regular
 * input.
 *
 *   1. value sequences alone (vseq.h): random structured and unstructured
 *      sequences, pushed value by value, appended in halves, pushed as
 *      runs, sealed; compactness of structured ones;
 *   2. the whole pipeline (value codec, folder, compressor, segments, file
 *      reader) on random nested-loop programs with noise, against a flat
 *      file of the same events and against the generated stream;
 *   3. a 10,000-event loop body repeated 20 times folds into one loop;
 *      an irregular stream is processed in near-linear time;
 *   4. the memory cap: segments are written, the round trip stays exact,
 *      and the folder's byte accounting matches what it really holds;
 *   5. hostile compressed files: truncations, byte flips, and hand-made
 *      segments with a valid CRC but inconsistent content.
 *
 * Usage: test_folding            all tests (fixed seeds)
 *        test_folding CASE...    only those cases (--list lists them: tests/check.h)
 *        test_folding SEED       only the pipeline round trip of SEED (verbose)
 *        test_folding --seeds N  only the pipeline, seeds 1000 .. 1000+N-1
 * A failing check prints its seed (when it has one) and the first mismatch.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util/bytes.h"
#include "check.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "fold/cst_guide.h"
#include "fold/folder.h"
#include "format/segment.h"
#include "test_gen.h"
#include "tracefold.h"
#include "fold/request_transform.h"
#include "fold/vseq.h"

/* ====================================================== 1. value sequences */

static int64_t popcount(uint64_t x) {
  int64_t n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}
static int64_t ctz(uint64_t x) { /* x != 0 */
  int64_t n = 0;
  for (; !(x & 1); x >>= 1) n++;
  return n;
}

static uint32_t top_items(const tf_vseq *s) { return s->n + (s->tcount ? 1 : 0); }
static size_t count_items(const tf_vitem *it, uint32_t n) {
  size_t k = n;
  for (uint32_t i = 0; i < n; i++)
    if (it[i].nbody) k += count_items(it[i].body, it[i].nbody);
  return k;
}
static size_t all_items(const tf_vseq *s) { return count_items(s->items, s->n) + (s->tcount ? 1 : 0); }

/* The sequence reads back exactly vals[0..n): every value, then the end. */
static int vseq_equals(const tf_vseq *s, const int64_t *vals, size_t n, const char *what, uint64_t seed) {
  if (s->nvalues != n) {
    CHECKF(s->nvalues == n, "seed %" PRIu64 " %s: nvalues %" PRIu64 ", expected %zu", seed, what, s->nvalues, n);
    return 0;
  }
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(s));
  if (!it) return 0;
  tf_vseq_iter_init(it, s);
  int ok = 1;
  int64_t v;
  for (size_t i = 0; i < n && ok; i++) {
    if (!tf_vseq_iter_next(it, &v)) {
      CHECKF(0, "seed %" PRIu64 " %s: sequence ends after %zu of %zu values", seed, what, i, n);
      ok = 0;
    } else if (v != vals[i]) {
      CHECKF(0, "seed %" PRIu64 " %s: value %zu is %" PRId64 ", expected %" PRId64, seed, what, i, v, vals[i]);
      ok = 0;
    } else if ((i % (n / 32 + 1) == 0 || i == n - 1) && tf_vseq_value_at(s, (int64_t)i) != vals[i]) {
      /* random access agrees (at ~32 places: it costs O(items)) */
      CHECKF(0, "seed %" PRIu64 " %s: tf_vseq_value_at(%zu) is %" PRId64 ", expected %" PRId64, seed, what, i,
             tf_vseq_value_at(s, (int64_t)i), vals[i]);
      ok = 0;
    }
  }
  if (ok && tf_vseq_iter_next(it, &v)) {
    CHECKF(0, "seed %" PRIu64 " %s: sequence longer than %zu values", seed, what, n);
    ok = 0;
  }
  if (ok) CHECK(!tf_vseq_iter_next(it, &v)); /* stays at the end */
  free(it);
  return ok;
}

/* Sequence generators, all writing n values into out. */
enum {
  G_CONST, G_AP, G_PERIODIC, G_OUTER_INDEX, G_NESTED2, G_NESTED3, G_NOISE, G_SMALL_NOISE, G_EXTREMES, G_WRAP,
  G_SHIFTED_PATTERN, G_MIXTURE, G_NGEN
};

static void gen_seq(int kind, int64_t *out, size_t n) {
  switch (kind) {
  case G_CONST: {
    int64_t c = permille(200) ? extremes[rndn(NEXTREMES)] : rnd_range(-1000, 1000);
    for (size_t i = 0; i < n; i++) out[i] = c;
    break;
  }
  case G_AP: {
    int64_t a = rnd_range(-1000, 1000), d = permille(100) ? (int64_t)rnd() : rnd_range(-7, 7);
    for (size_t i = 0; i < n; i++) out[i] = wadd(a, wmul(d, (int64_t)i));
    break;
  }
  case G_PERIODIC: { /* a random pattern of period p, repeated */
    size_t p = 1 + rndn(20);
    int64_t pat[20];
    for (size_t j = 0; j < p; j++) pat[j] = permille(100) ? extremes[rndn(NEXTREMES)] : rnd_range(-50, 50);
    for (size_t i = 0; i < n; i++) out[i] = pat[i % p];
    break;
  }
  case G_OUTER_INDEX: { /* outer index repeated `inner` times (tag = outer-loop index) */
    size_t inner = 1 + rndn(8);
    int64_t a = rnd_range(-100, 100), b = rnd_range(-3, 3);
    for (size_t i = 0; i < n; i++) out[i] = a + b * (int64_t)(i / inner);
    break;
  }
  case G_NESTED2: { /* a + b*outer + c*inner */
    size_t inner = 1 + rndn(12);
    int64_t a = rnd_range(-100, 100), b = rnd_range(-100, 100), c = rnd_range(-3, 3);
    for (size_t i = 0; i < n; i++) out[i] = a + b * (int64_t)(i / inner) + c * (int64_t)(i % inner);
    break;
  }
  case G_NESTED3: { /* three loop levels, each value repeated r times */
    size_t r = 1 + rndn(3), m1 = 1 + rndn(5), m2 = 1 + rndn(5);
    int64_t b0 = rnd_range(-9, 9), b1 = rnd_range(-9, 9), b2 = rnd_range(-1000, 1000);
    for (size_t i = 0; i < n; i++) {
      size_t k = i / r;
      out[i] = b0 * (int64_t)(k % m1) + b1 * (int64_t)((k / m1) % m2) + b2 * (int64_t)(k / (m1 * m2));
    }
    break;
  }
  case G_NOISE:
    for (size_t i = 0; i < n; i++) out[i] = (int64_t)rnd();
    break;
  case G_SMALL_NOISE:
    for (size_t i = 0; i < n; i++) out[i] = rnd_range(0, 2);
    break;
  case G_EXTREMES:
    for (size_t i = 0; i < n; i++) out[i] = extremes[rndn(NEXTREMES)];
    break;
  case G_WRAP: { /* a progression that wraps around INT64_MAX -> INT64_MIN (or back) */
    int64_t d = rnd_range(1, 1000) * (permille(500) ? 1 : -1);
    int64_t a = d > 0 ? INT64_MAX - rnd_range(0, 3000) : INT64_MIN + rnd_range(0, 3000);
    for (size_t i = 0; i < n; i++) out[i] = wadd(a, wmul(d, (int64_t)i));
    break;
  }
  case G_SHIFTED_PATTERN: { /* pattern + k*shift, pattern of runs and singles; shift may be huge */
    size_t p = 1 + rndn(10);
    int64_t pat[10], shift = permille(200) ? (int64_t)rnd() : rnd_range(-20, 20);
    for (size_t j = 0; j < p; j++) pat[j] = rnd_range(-5, 5);
    for (size_t i = 0; i < n; i++) out[i] = wadd(pat[i % p], wmul(shift, (int64_t)(i / p)));
    break;
  }
  case G_MIXTURE: { /* segments of the other kinds */
    size_t i = 0;
    while (i < n) {
      size_t len = 1 + rndn(n - i < 300 ? n - i : 300);
      gen_seq((int)rndn(G_MIXTURE), out + i, len);
      i += len;
    }
    break;
  }
  }
}

/* Push vals as runs of random lengths (each chunk an arithmetic progression). */
static void push_as_runs(tf_vseq *s, const int64_t *vals, size_t n, tf_mem *m) {
  size_t i = 0;
  while (i < n) {
    size_t ext = 1; /* longest progression starting at i */
    if (i + 1 < n) {
      int64_t d = (int64_t)((uint64_t)vals[i + 1] - (uint64_t)vals[i]);
      ext = 2;
      while (i + ext < n && (int64_t)((uint64_t)vals[i + ext] - (uint64_t)vals[i + ext - 1]) == d) ext++;
    }
    size_t len = 1 + rndn(ext);
    int64_t step = len > 1 ? (int64_t)((uint64_t)vals[i + 1] - (uint64_t)vals[i]) : (int64_t)rnd();
    tf_vseq_push_run(s, vals[i], step, len, m);
    i += len;
  }
}

static void check_vseq_all_ways(const int64_t *vals, size_t n, uint64_t seed) {
  tf_mem m = {0};
  /* value by value; then sealed; then more values after the seal */
  tf_vseq s;
  tf_vseq_init(&s);
  for (size_t i = 0; i < n; i++) tf_vseq_push(&s, vals[i], &m);
  vseq_equals(&s, vals, n, "push", seed);
  tf_vseq_seal(&s, &m);
  vseq_equals(&s, vals, n, "push+seal", seed);
  CHECK(tf_vseq_depth(&s) <= TF_VSEQ_MAXDEPTH);
  tf_vseq_free(&s, &m);

  size_t h = n ? rndn(n + 1) : 0;
  tf_vseq_init(&s);
  for (size_t i = 0; i < h; i++) tf_vseq_push(&s, vals[i], &m);
  tf_vseq_seal(&s, &m);
  for (size_t i = h; i < n; i++) tf_vseq_push(&s, vals[i], &m);
  vseq_equals(&s, vals, n, "seal in the middle", seed);
  tf_vseq_seal(&s, &m);
  tf_vseq_seal(&s, &m); /* twice is harmless */
  vseq_equals(&s, vals, n, "seal in the middle+seal", seed);
  tf_vseq_free(&s, &m);

  /* two halves appended (dst sealed or not), and appended into an empty sequence */
  tf_vseq a, b, e;
  tf_vseq_init(&a);
  tf_vseq_init(&b);
  tf_vseq_init(&e);
  for (size_t i = 0; i < h; i++) tf_vseq_push(&a, vals[i], &m);
  for (size_t i = h; i < n; i++) tf_vseq_push(&b, vals[i], &m);
  if (permille(500)) tf_vseq_seal(&b, &m);
  if (permille(500)) tf_vseq_seal(&a, &m);
  tf_vseq_append(&e, &a, &m);
  tf_vseq_append(&e, &b, &m);
  tf_vseq_append(&a, &b, &m);
  vseq_equals(&a, vals, n, "append halves", seed);
  vseq_equals(&e, vals, n, "append into empty", seed);
  vseq_equals(&b, vals + h, n - h, "append source unchanged", seed);
  tf_vseq_seal(&a, &m);
  vseq_equals(&a, vals, n, "append halves+seal", seed);
  tf_vseq_free(&a, &m);
  tf_vseq_free(&b, &m);
  tf_vseq_free(&e, &m);

  /* as runs */
  tf_vseq_init(&s);
  push_as_runs(&s, vals, n, &m);
  vseq_equals(&s, vals, n, "push_run", seed);
  tf_vseq_seal(&s, &m);
  vseq_equals(&s, vals, n, "push_run+seal", seed);
  tf_vseq_free(&s, &m);

  CHECKF(m.bytes == 0 && !m.failed, "seed %" PRIu64 ": %zu bytes still accounted after every free", seed, m.bytes);
}

static void build(tf_vseq *s, const int64_t *vals, size_t n, tf_mem *m) {
  tf_vseq_init(s);
  for (size_t i = 0; i < n; i++) tf_vseq_push(s, vals[i], m);
  tf_vseq_seal(s, m);
}

static void test_vseq_compact(void) {
  enum { N = 40000 };
  int64_t *v = malloc(N * sizeof *v);
  tf_mem m = {0};
  tf_vseq s;

  for (int i = 0; i < 10000; i++) v[i] = i; /* 0..9999: one run */
  build(&s, v, 10000, &m);
  CHECK(all_items(&s) == 1 && tf_vseq_depth(&s) == 0);
  vseq_equals(&s, v, 10000, "0..9999", 0);
  tf_vseq_free(&s, &m);

  for (int i = 0; i < 4000; i++) v[i] = (int64_t)1 << (i % 4); /* 1 2 4 8, 1000 times */
  build(&s, v, 4000, &m);
  CHECKF(top_items(&s) == 1 && all_items(&s) <= 3, "1 2 4 8 x1000: %u top items, %zu in all", top_items(&s),
         all_items(&s));
  vseq_equals(&s, v, 4000, "1 2 4 8 x1000", 0);
  tf_vseq_free(&s, &m);

  for (int i = 0; i < 4000; i++) v[i] = i / 4; /* 0 0 0 0 1 1 1 1 ... 999 */
  build(&s, v, 4000, &m);
  CHECKF(top_items(&s) == 1 && all_items(&s) <= 2, "outer index x4: %u top items", top_items(&s));
  vseq_equals(&s, v, 4000, "outer index x4", 0);
  tf_vseq_free(&s, &m);

  for (int i = 0; i < N; i++) v[i] = 7 * (i / 400) + (i / 4) % 100; /* three levels */
  build(&s, v, N, &m);
  CHECKF(top_items(&s) == 1 && all_items(&s) <= 4, "three levels: %u top items, %zu in all", top_items(&s),
         all_items(&s));
  CHECK(tf_vseq_depth(&s) == 2);
  vseq_equals(&s, v, N, "three levels", 0);
  tf_vseq_free(&s, &m);

  for (int i = 0; i < N; i++) v[i] = wadd(INT64_MAX - 5, wmul(3, i)); /* wraps once: one run */
  build(&s, v, N, &m);
  CHECK(all_items(&s) == 1);
  vseq_equals(&s, v, N, "wrapping run", 0);
  tf_vseq_free(&s, &m);

  for (int i = 0; i < N; i++) v[i] = extremes[i % 3]; /* INT64_MIN INT64_MAX INT64_MIN+1, repeated */
  build(&s, v, N, &m);
  CHECKF(top_items(&s) <= 4 && all_items(&s) <= 5, "extremes pattern: %u top items, %zu in all", top_items(&s),
         all_items(&s));
  vseq_equals(&s, v, N, "extremes pattern", 0);
  tf_vseq_free(&s, &m);

  /* popcount(i): P(2k) = P(k), P(k)+1 nests one repeat per doubling, up to
   * the depth limit; the ruler sequence (trailing zeros of i+1) */
  {
    size_t n = (size_t)1 << 18;
    int64_t *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) w[i] = popcount(i);
    build(&s, w, n, &m);
    printf("value sequences: popcount of 0..2^18-1: %u top items, %zu in all, depth %u\n", top_items(&s),
           all_items(&s), tf_vseq_depth(&s));
    CHECK(tf_vseq_depth(&s) <= TF_VSEQ_MAXDEPTH && all_items(&s) < 200);
    vseq_equals(&s, w, n, "popcount", 0);
    tf_vseq_free(&s, &m);
    for (size_t i = 0; i < n; i++) w[i] = ctz(i + 1);
    build(&s, w, n, &m);
    vseq_equals(&s, w, n, "ruler", 0);
    tf_vseq_free(&s, &m);
    free(w);
  }

  int64_t c;
  for (int i = 0; i < 100; i++) v[i] = TF_NULL_HANDLE;
  build(&s, v, 100, &m);
  CHECK(tf_vseq_is_constant(&s, &c) && c == TF_NULL_HANDLE);
  tf_vseq_free(&s, &m);
  build(&s, v, 1, &m);
  CHECK(tf_vseq_is_constant(&s, &c) && c == TF_NULL_HANDLE && tf_vseq_single(&s) == TF_NULL_HANDLE);
  tf_vseq_free(&s, &m);
  for (int i = 0; i < 100; i++) v[i] = i;
  build(&s, v, 100, &m);
  CHECK(!tf_vseq_is_constant(&s, &c));
  tf_vseq_free(&s, &m);

  /* one big push_run is O(1) items; so is a long constant run pushed in pieces */
  tf_vseq_init(&s);
  tf_vseq_push_run(&s, INT64_MAX, 1, (uint64_t)1 << 40, &m);
  CHECK(s.nvalues == (uint64_t)1 << 40 && top_items(&s) == 1);
  tf_vseq_free(&s, &m);
  tf_vseq_init(&s);
  for (int i = 0; i < 1000; i++) tf_vseq_push_run(&s, 5, 0, 1 + (uint64_t)(i % 7), &m);
  tf_vseq_seal(&s, &m);
  CHECK(all_items(&s) == 1);
  tf_vseq_free(&s, &m);

  CHECK(m.bytes == 0 && !m.failed);
  free(v);
}

static void test_vseq_random(void) {
  enum { MAXN = 3000 };
  int64_t *v = malloc(MAXN * sizeof *v);
  for (uint64_t seed = 1; seed <= 1500; seed++) {
    rng = seed * 0x51ed27ull;
    size_t n = seed % 10 == 0 ? rndn(4) : 1 + rndn(seed % 3 ? 300 : MAXN);
    gen_seq((int)(seed % G_NGEN), v, n);
    check_vseq_all_ways(v, n, seed);
  }
  free(v);
}

/* ---- tf_event_fields: an event's values split into its fields */
static void test_event_fields(void) {
  tf_field_value f[4];
  const tf_func_desc *waitall = &funcs[5]; /* count, array_of_requests[], statuses.tag[] */
  int64_t v[6] = {3, 2, 10, 11, 1, 7};
  CHECK(tf_event_fields(waitall, v, 6, f) == TF_OK);
  CHECK(f[0].desc == &waitall->fields[0] && f[0].n == 1 && f[0].v == v);
  CHECK(f[1].desc == &waitall->fields[1] && f[1].n == 2 && f[1].v == v + 2);
  CHECK(f[2].n == 1 && f[2].v == v + 5);
  CHECK(tf_event_fields(waitall, v, 6, NULL) == TF_OK);
  int64_t empty[3] = {3, 0, 0}; /* empty arrays: no values, v just past the length */
  CHECK(tf_event_fields(waitall, empty, 3, f) == TF_OK && f[1].n == 0 && f[1].v == empty + 2 && f[2].v == empty + 3);
  /* too few values: the fields up to the first that does not fit, then n = 0, v = NULL */
  CHECK(tf_event_fields(waitall, v, 3, f) == TF_ERR_FORMAT);
  CHECK(f[0].n == 1 && f[0].v == v && f[1].desc == &waitall->fields[1] && f[1].n == 0 && !f[1].v && !f[2].v);
  CHECK(tf_event_fields(&funcs[1], v, 2, f) == TF_ERR_FORMAT && f[1].v == v + 1 && !f[2].v && !f[3].v);
  CHECK(tf_event_fields(&funcs[4], v, 3, f) == TF_ERR_FORMAT && f[1].v == v + 1); /* one value too many */
  int64_t neg[3] = {-1, 0, 0};
  CHECK(tf_event_fields(&funcs[7], neg, 3, f) == TF_ERR_FORMAT && !f[0].v); /* negative length */
  CHECK(tf_event_fields(&funcs[7], neg, 3, NULL) == TF_ERR_FORMAT);
  CHECK(tf_event_fields(&funcs[0], NULL, 0, f) == TF_OK); /* no fields, no values */
  CHECK(tf_event_fields(&funcs[0], v, 1, NULL) == TF_ERR_FORMAT);
  CHECK(tf_event_fields(NULL, v, 1, f) == TF_ERR_ARG && tf_event_fields(waitall, NULL, 1, f) == TF_ERR_ARG);
  /* more fields than the request transform splits on its stack */
  enum { MANY = 100 };
  tf_field_desc many[MANY];
  int64_t ids[MANY], enc[MANY];
  for (int k = 0; k < MANY; k++) {
    many[k] = (tf_field_desc){"request", TF_FIELD_REQ_NEW, 0};
    ids[k] = enc[k] = 1000 + k;
  }
  tf_func_desc fd = {"MPI_Many", MANY, many};
  tf_req_transform ce = {0}, cd = {0};
  CHECK(tf_req_transform_apply(&ce, &fd, enc, MANY) == 0 && enc[MANY - 1] == 0);
  CHECK(tf_req_transform_undo(&cd, &fd, enc, MANY) == 0 && memcmp(enc, ids, sizeof ids) == 0);
  CHECK(tf_req_transform_apply(&ce, &fd, enc, MANY - 1) == -1 && memcmp(enc, ids, sizeof ids) == 0);
}

/* ================================================ 2. the whole pipeline */

/* ---- the request-id codec alone: a bijection, constants for regular ids */
static void test_codec(void) {
  enum { N = 20000 };
  static const uint32_t fns[] = {2, 3, 4, 5, 7}; /* Isend Irecv Wait Waitall Startall */
  int64_t *orig = malloc(N * 16 * sizeof *orig), *enc = malloc(N * 16 * sizeof *enc);
  uint32_t *fn = malloc(N * sizeof *fn), *nv = malloc(N * sizeof *nv);
  tf_req_transform ce = {0}, cd = {0};
  rng = 555;
  int64_t next = INT64_MAX - 1000, made[8] = {0};
  for (int i = 0; i < N; i++) {
    int wild = i > N / 2;      /* first half: program-like ids; second: anything */
    if (i == N / 4) next = -7; /* consecutive ids through 0 */
    fn[i] = fns[rndn(5)];
    const tf_func_desc *fd = &funcs[fn[i]];
    int64_t *v = orig + (size_t)i * 16;
    uint32_t n = 0;
    for (uint32_t k = 0; k < fd->nfields; k++) {
      int64_t len = fd->fields[k].is_array ? rnd_range(0, 4) : 1;
      if (fd->fields[k].is_array) v[n++] = len;
      for (int64_t j = 0; j < len; j++) {
        int64_t x = rnd_range(-3, 3);
        if (fd->fields[k].kind == TF_FIELD_REQ_NEW) {
          x = wild ? (permille(300) ? extremes[rndn(NEXTREMES)] : (int64_t)rnd()) : next;
          if (!wild) next = wadd(next, 1);
          memmove(made + 1, made, 7 * sizeof *made);
          made[0] = x;
        } else if (fd->fields[k].kind == TF_FIELD_REQ) {
          x = wild ? (permille(300) ? extremes[rndn(NEXTREMES)] : (int64_t)rnd()) : made[rndn(3)];
        }
        v[n++] = x;
      }
    }
    nv[i] = n;
    memcpy(enc + (size_t)i * 16, v, n * sizeof *v);
    CHECK(tf_req_transform_apply(&ce, fd, enc + (size_t)i * 16, n) == 0);
  }
  int bad = 0;
  for (int i = 0; i < N && !bad; i++) {
    int64_t *e = enc + (size_t)i * 16;
    CHECK(tf_req_transform_undo(&cd, &funcs[fn[i]], e, nv[i]) == 0);
    for (uint32_t j = 0; j < nv[i]; j++)
      if (e[j] != orig[(size_t)i * 16 + j]) {
        CHECKF(0, "codec: event %d value %u decodes to %" PRId64 ", was %" PRId64, i, j, e[j],
               orig[(size_t)i * 16 + j]);
        bad = 1;
        break;
      }
  }
  /* consecutive creations encode to 0, "the one made just before" to 0 */
  tf_req_transform c = {0};
  int64_t first[4] = {1, 2, 3, INT64_MAX - 4};
  CHECK(tf_req_transform_apply(&c, &funcs[2], first, 4) == 0);
  for (int64_t id = INT64_MAX - 3; id != INT64_MIN + 20; id = wadd(id, 1)) {
    if (id <= TF_SPECIAL_MAX) continue; /* ids skip the special values */
    int64_t v[4] = {1, 2, 3, id}, w[2] = {id, 0};
    CHECK(tf_req_transform_apply(&c, &funcs[2], v, 4) == 0 && v[3] == 0);
    CHECK(tf_req_transform_apply(&c, &funcs[4], w, 2) == 0 && w[0] == 0);
  }
  /* values that do not fit the fields are refused and left unchanged */
  int64_t v[8] = {5, 1, 2, 3, 9, 9, 9, 9};
  CHECK(tf_req_transform_apply(&c, &funcs[5], v, 3) == -1 && v[0] == 5 && v[1] == 1); /* array runs past the end */
  CHECK(tf_req_transform_apply(&c, &funcs[2], v, 5) == -1 && v[3] == 3);             /* one value too many */
  CHECK(tf_req_transform_apply(&c, &funcs[4], v, 1) == -1);                          /* one value too few */
  int64_t neg[3] = {-1, 0, 0};
  CHECK(tf_req_transform_apply(&c, &funcs[7], neg, 3) == -1 && neg[0] == -1);        /* negative length */
  CHECK(tf_req_transform_undo(&c, &funcs[7], neg, 3) == -1);
  free(orig);
  free(enc);
  free(fn);
  free(nv);
}

/* ---- compare one reader with the oracle */
/* const_times: 1 every event must read compute 1000 and duration 7; -1 both 0; 0 not checked */
static int compare_reader(tf_file_reader *r, const stream *s, int times, int const_times, const char *what,
                          uint64_t seed) {
  const tf_file_info *fi = tf_file_get_info(r);
  tf_event ev;
  for (size_t i = 0; i < s->n; i++) {
    const oev *o = &s->e[i];
    int rc = tf_file_next(r, &ev);
    if (rc != 1) {
      CHECKF(rc == 1, "seed %" PRIu64 " %s: event %zu of %zu: tf_file_next gives %d (%s)", seed, what, i, s->n, rc,
             tf_file_error(r) ? tf_file_error(r) : "");
      return 0;
    }
    int ok = same_fn(fi->funcs, fi->nfuncs, ev.fn, o->fn) && ev.thread == o->thread &&
             ev.callsite == site_sig(o->site) && ev.nvals == o->nvals;
    for (uint32_t j = 0; ok && j < o->nvals; j++) ok = ev.vals[j] == s->v[o->off + j];
    if (ok && times) ok = ev.compute_ns == o->compute && ev.duration_ns == o->duration;
    if (ok && const_times > 0) ok = ev.compute_ns == 1000 && ev.duration_ns == 7;
    if (ok && const_times < 0) ok = ev.compute_ns == 0 && ev.duration_ns == 0; /* a trace without times */
    if (!ok) {
      fprintf(stderr, "seed %" PRIu64 " %s: event %zu differs:\n  expected fn %u thread %u site %u nvals %u:", seed,
              what, i, o->fn, o->thread, o->site, o->nvals);
      for (uint32_t j = 0; j < o->nvals; j++) fprintf(stderr, " %" PRId64, s->v[o->off + j]);
      fprintf(stderr, "\n  got      fn %u thread %u sig %" PRIx64 " nvals %u:", ev.fn, ev.thread, ev.callsite,
              ev.nvals);
      for (uint32_t j = 0; j < ev.nvals; j++) fprintf(stderr, " %" PRId64, ev.vals[j]);
      fprintf(stderr, "\n");
      CHECKF(0, "seed %" PRIu64 " %s: event %zu", seed, what, i);
      return 0;
    }
  }
  int rc = tf_file_next(r, &ev);
  CHECKF(rc == 0, "seed %" PRIu64 " %s: %d after the last event", seed, what, rc);
  CHECKF(tf_file_next(r, &ev) == 0, "seed %" PRIu64 " %s: end not stable", seed, what);
  return rc == 0;
}

typedef struct rt_result {
  long flat_size, comp_size;
  uint32_t nsegments;
  uint64_t spills, flat_events;
  int ok;
} rt_result;

typedef struct rt_opts {
  size_t cap;
  int const_times; /* every event has compute 1000, duration 7: the means are exact */
  int rewind;      /* rewind after a few events, read all, rewind, read all again */
  int check_cap;   /* the folder's accounted memory stays under cap after every event */
  tf_timing_mode timing; /* what the compressed file keeps of times (size checks use stats: they measure folding) */
  uint32_t markers; /* CST-guided folding: random loop markers before about one event in `markers` (0: none) */
  uint32_t flat_window; /* flat runs (fold/flatrun.h): the "folding pays" window, 0 none */
} rt_opts;

/* One CST marker of a random kind (loop enter, iteration, exit; a
 * branch's arm, its end) for nodes 0..7 (arms 8..15), whatever is open:
 * lossless folding must not depend on markers making sense. */
static tf_cst_marker random_marker(void) {
  uint64_t r = rnd();
  tf_cst_kind kind = (tf_cst_kind)(1 + r % 5);
  uint32_t id = (uint32_t)(r >> 8) % 8;
  return kind == TF_CST_ARM ? tf_cst_pack_arm(id, 8 + (uint32_t)(r >> 16) % 8) : tf_cst_pack(kind, id);
}

/* 1 to 4 random markers. */
static uint32_t random_markers(tf_cst_marker *m) {
  uint32_t n = 1 + (uint32_t)rndn(4);
  for (uint32_t k = 0; k < n; k++) m[k] = random_marker();
  return n;
}

/* Write s to a flat and a compressed file, read both back, compare with s. */
static rt_result round_trip(const stream *s, const rt_opts *o, uint64_t seed) {
  rt_result res = {0};
  const char *fpath = "folding_rt.flat", *cpath = "folding_rt.tfc";
  tf_file_info info = {.rank = 0, .nranks = 1, .exe = "synthetic", .mpi = "none", .timing = o->timing,
                       .bins = TF_BINS_DEFAULT, .nfuncs = NFUNCS, .funcs = funcs};
  char err[512];
  fresh(fpath);
  fresh(cpath);
  tf_file_writer *fw = tf_file_writer_open(fpath, TF_FILE_FLAT, &info, err, sizeof err);
  tf_file_writer *cw = tf_file_writer_open(cpath, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECK(fw && cw);
  if (!fw || !cw) return res;
  tf_compressor c;
  tf_compressor_init(&c, funcs, NFUNCS, o->cap);
  tf_compressor_set_timing(&c, (tf_timing_mode)o->timing, TF_BINS_DEFAULT);
  tf_compressor_set_flat_window(&c, o->flat_window);
  enum { MAXSITE = 4096 };
  static int64_t index_of[MAXSITE];
  for (int i = 0; i < MAXSITE; i++) index_of[i] = -1;
  uint32_t nsites = 0;
  int ok = 1;
  c.cst_guided = o->markers && seed % 2; /* a tracefold-cc program: guided from the first event */
  for (size_t i = 0; i < s->n && ok; i++) {
    const oev *e = &s->e[i];
    if (o->markers && rndn(o->markers) == 0) {
      tf_cst_marker m[4];
      uint32_t n = random_markers(m);
      CHECK(tf_compressor_cst_markers(&c, e->thread, m, n) == 0);
      if (i % 64 == 0) { /* a checkpoint with loops open: must change nothing */
        tf_buf snap = {0};
        uint64_t nev;
        CHECK(tf_compressor_snapshot(&c, &snap, &nev) == 0 && nev == c.nevents);
        tf_buf_free(&snap);
      }
    }
    if (e->site >= MAXSITE) abort();
    if (index_of[e->site] < 0) { /* declared before first use, dense from 0 */
      index_of[e->site] = nsites;
      CHECK(tf_file_writer_callsite(fw, nsites, site_sig(e->site), "m", e->site * 16u) == 0);
      CHECK(tf_file_writer_callsite(cw, nsites, site_sig(e->site), "m", e->site * 16u) == 0);
      nsites++;
    }
    if (o->flat_window && i % 500 == 499) { /* a checkpoint with a flat run open: must change nothing, and decode */
      tf_buf snap = {0};
      uint64_t nev;
      CHECK(tf_compressor_snapshot(&c, &snap, &nev) == 0 && nev == c.nevents);
      if (nev) {
        tf_cursor cur = {snap.data, snap.data + snap.len, 0};
        tf_fnode **nodes;
        uint32_t n;
        tf_order order;
        tf_mem m = {0};
        const char *why = NULL;
        CHECKF(tf_segment_decode(&cur, nev, NFUNCS, nsites, o->timing, TF_BINS_DEFAULT, TF_COMP_VERSION, &nodes, &n,
                                 &order, &m, &why) == 0 && cur.p == cur.end,
               "seed %" PRIu64 ": checkpoint at event %zu: %s", seed, i, why ? why : "bytes left");
        for (uint32_t k = 0; k < n; k++) tf_fnode_free(nodes[k], &m);
        free(nodes);
        tf_order_free(&order, &m);
      }
      tf_buf_free(&snap);
    }
    uint32_t idx = (uint32_t)index_of[e->site];
    CHECK(tf_file_writer_event(fw, e->fn, e->thread, idx, e->compute, e->duration, e->nvals, s->v + e->off) == 0);
    int rc = tf_compressor_event(&c, cw, e->fn, e->thread, idx, e->compute, e->duration, e->nvals, s->v + e->off);
    if (rc < 0 || rc > 1) {
      CHECKF(0, "seed %" PRIu64 ": tf_compressor_event gives %d at event %zu", seed, rc, i);
      ok = 0;
    }
    if (o->check_cap)
      CHECKF(tf_compressor_bytes(&c) <= o->cap, "seed %" PRIu64 ": folder holds %zu bytes > cap %zu after event %zu",
             seed, tf_compressor_bytes(&c), o->cap, i);
  }
  int last = c.nevents > 0; /* finish writes what remains, if anything */
  CHECK(tf_compressor_finish(&c, cw) == 0);
  res.spills = c.spills + c.flat_trials;
  res.flat_events = c.flat_events;
  tf_compressor_free(&c);
  CHECK(tf_file_writer_close(fw, err, sizeof err) == TF_OK);
  CHECK(tf_file_writer_close(cw, err, sizeof err) == TF_OK);
  if (!ok) return res;
  res.flat_size = file_size(fpath);
  res.comp_size = file_size(cpath);

  tf_file_reader *r;
  tf_status st = tf_file_open(fpath, &r, err, sizeof err);
  CHECKF(st == TF_OK, "seed %" PRIu64 ": %s", seed, err);
  if (st != TF_OK) return res;
  ok &= compare_reader(r, s, 1, 0, "flat", seed);
  tf_file_close(r);

  st = tf_file_open(cpath, &r, err, sizeof err);
  CHECKF(st == TF_OK, "seed %" PRIu64 ": %s", seed, err);
  if (st != TF_OK) return (rt_result){0};
  const tf_file_info *fi = tf_file_get_info(r);
  uint32_t nused = stream_nfuncs(s); /* the file declares exactly the functions its events use */
  CHECKF(fi->kind == TF_FILE_COMPRESSED && fi->nevents == s->n && fi->ncallsites == nsites && fi->nfuncs == nused,
         "seed %" PRIu64 ": info: nevents %" PRIu64 " (expected %zu), %u call sites (expected %u), %u functions "
         "(expected %u)", seed, fi->nevents, s->n, fi->ncallsites, nsites, fi->nfuncs, nused);
  CHECKF(fi->nsegments == res.spills + (uint64_t)last, "seed %" PRIu64 ": %u segments, %" PRIu64 " spills",
         seed, fi->nsegments, res.spills);
  res.nsegments = fi->nsegments;
  if (o->rewind) { /* a rewind in the middle starts over */
    tf_event ev;
    for (int k = 0; k < 37 && tf_file_next(r, &ev) == 1; k++) {
    }
    tf_file_rewind(r);
  }
  int ct = o->timing == TF_TIMING_NONE ? -1 : o->const_times; /* -1: no times kept */
  ok &= compare_reader(r, s, 0, ct, "compressed", seed);
  if (o->rewind) {
    tf_file_rewind(r);
    ok &= compare_reader(r, s, 0, ct, "compressed after rewind", seed);
  }
  tf_file_close(r);
  res.ok = ok;
  return res;
}

static void test_pipeline(int nseeds, uint64_t only_seed) {
  double worst[3] = {0};
  uint64_t worst_seed[3] = {0};
  long flat_total[3] = {0}, comp_total[3] = {0};
  int failed_seeds = 0, nflat_seeds = 0;
  for (int i = 0; i < nseeds; i++) {
    uint64_t seed = only_seed ? only_seed : 1000 + (uint64_t)i;
    gen g;
    gen_program_stream(&g, seed);
    rt_opts o = {.cap = (size_t)64 << 20, .const_times = g.const_times, .rewind = seed % 5 == 0,
                 .timing = (tf_timing_mode)(seed % 4)}; /* every timing mode */
    if (seed % 7 == 3) o.cap = 16 << 10; /* several segments: the codec state crosses them */
    if (seed % 7 == 5) o.flat_window = 64; /* flat runs where folding does not pay, and trials after them */
    int before = failures;
    rt_result r = round_trip(&g.s, &o, seed);
    nflat_seeds += r.flat_events > 0;
    if (failures != before) {
      fprintf(stderr, "pipeline: seed %" PRIu64 " failed (%zu events, level %d, noise %u, cap %zu)\n", seed, g.s.n,
              g.level, g.noise, o.cap);
      failed_seeds++;
    }
    if (only_seed)
      printf("seed %" PRIu64 ": %zu events, level %d, noise %u/1000, flat %ld bytes, compressed %ld bytes, %u "
             "segments\n",
             seed, g.s.n, g.level, g.noise, r.flat_size, r.comp_size, r.nsegments);
    /* simple programs compress well. The bound is loose: folding is
     * greedy, and a loop whose trip count changes with an outer index can
     * fold differently from one outer iteration to the next (lossless, but
     * a few more nodes), e.g. "E (A B)^k" with k = 5, 6, 7, 5, 6, 7, ... */
    if (r.ok && o.cap > (1u << 20) && !o.flat_window) {
      double ratio = (double)r.comp_size / (double)r.flat_size;
      if (g.s.n >= 2000 && ratio > worst[g.level]) {
        worst[g.level] = ratio;
        worst_seed[g.level] = seed;
      }
      flat_total[g.level] += r.flat_size;
      comp_total[g.level] += r.comp_size;
      if (g.level == 2 && g.s.n >= 2000 && o.timing <= TF_TIMING_STATS)
        CHECKF(r.comp_size * 3 < r.flat_size, "seed %" PRIu64 ": simple program of %zu events: compressed %ld "
               "bytes, flat %ld", seed, g.s.n, r.comp_size, r.flat_size);
    }
    stream_free(&g.s);
  }
  if (!only_seed) {
    printf("pipeline: %d seeds, %d failed; %d of them switched to flat runs (window 64)\n", nseeds, failed_seeds,
           nflat_seeds);
    static const char *const names[] = {"irregular", "regular", "simple"};
    for (int l = 2; l >= 0; l--)
      printf("pipeline: %s programs: compressed/flat %.3f overall, worst %.3f (seed %" PRIu64 ")\n", names[l],
             flat_total[l] ? (double)comp_total[l] / (double)flat_total[l] : 0.0, worst[l], worst_seed[l]);
    if (flat_total[2])
      CHECKF(comp_total[2] * 12 < flat_total[2], "simple programs: compressed %ld bytes in all, flat %ld", comp_total[2],
           flat_total[2]);
    if (flat_total[1])
      CHECKF(comp_total[1] * 6 < flat_total[1], "regular programs: compressed %ld bytes in all, flat %ld", comp_total[1],
           flat_total[1]);
  }
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

static void test_pipeline_all(void) { test_pipeline(200, 0); }

/* CST-guided folding (fold/cst_guide.c) with markers at random, sense or
 * nonsense (loops entered and never left, exits of loops not open,
 * iterations of others), checkpoints with loops open, the memory cap
 * closing them: every stream reads back exactly, event for event. */
static void test_cst_guide(void) {
  int failed_seeds = 0;
  for (uint64_t seed = 5000; seed < 5060; seed++) {
    gen g;
    gen_program_stream(&g, seed);
    rt_opts o = {.cap = seed % 5 == 0 ? 16 << 10 : (size_t)64 << 20, .const_times = g.const_times,
                 .timing = (tf_timing_mode)(seed % 4), .markers = 1 + (uint32_t)(seed % 3) * 7};
    int before = failures;
    round_trip(&g.s, &o, seed);
    if (failures != before) {
      fprintf(stderr, "cst_guide: seed %" PRIu64 " failed (%zu events, cap %zu, markers 1/%u)\n", seed, g.s.n, o.cap,
              o.markers);
      failed_seeds++;
    }
    stream_free(&g.s);
  }
  printf("cst_guide: 60 seeds, %d failed\n", failed_seeds);
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

/* A loop whose iterations repeat in a period longer than 4 (stencil2d: 4
 * exchanges, then an exchange and an Allreduce): guided, `iters` iterations
 * with an ITER marker after each (MPI_Barrier at site 0, then at site 1
 * every fifth); bytes of the compressed file. */
static long guided_period5_size(uint32_t iters) {
  const char *path = "folding_period5.tfc";
  tf_file_info info = {.rank = 0, .nranks = 1, .exe = "period5", .mpi = "none", .timing = TF_TIMING_NONE,
                       .bins = TF_BINS_DEFAULT, .nfuncs = NFUNCS, .funcs = funcs};
  char err[512];
  fresh(path);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECK(w != NULL);
  if (!w) return -1;
  for (uint32_t site = 0; site < 2; site++) CHECK(tf_file_writer_callsite(w, site, site_sig(site), "p5", site) == 0);
  tf_compressor c;
  tf_compressor_init(&c, funcs, NFUNCS, (size_t)64 << 20);
  tf_compressor_set_timing(&c, TF_TIMING_NONE, TF_BINS_DEFAULT);
  c.cst_guided = 1;
  tf_cst_marker enter = tf_cst_pack(TF_CST_ENTER, 1), iter = tf_cst_pack(TF_CST_ITER, 1),
                exit_ = tf_cst_pack(TF_CST_EXIT, 1);
  CHECK(tf_compressor_cst_markers(&c, 0, &enter, 1) == 0);
  for (uint32_t i = 0; i < iters; i++) {
    CHECK(tf_compressor_event(&c, w, 0, 0, 0, 1000, 7, 0, NULL) >= 0);
    if (i % 5 == 4) CHECK(tf_compressor_event(&c, w, 0, 0, 1, 1000, 7, 0, NULL) >= 0);
    CHECK(tf_compressor_cst_markers(&c, 0, i + 1 < iters ? &iter : &exit_, 1) == 0);
  }
  CHECK(tf_compressor_event(&c, w, 0, 0, 1, 1000, 7, 0, NULL) >= 0); /* the markers go in with the next event */
  CHECK(tf_compressor_finish(&c, w) == 0);
  tf_compressor_free(&c);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
  long size = file_size(path);
  remove(path);
  return size;
}

/* A period of 5 iterations folds into one run: 10x the iterations, the
 * same file up to the run's count (the greedy periods <= 4 made a pair of
 * runs per 5 iterations: 8,000 iterations cost more than 100 kB). */
static void test_cst_guide_period(void) {
  long small = guided_period5_size(100), large = guided_period5_size(1000);
  printf("cst_guide_period: 100 iterations %ld bytes, 1000 iterations %ld bytes\n", small, large);
  CHECKF(small > 0 && large <= small + 16, "period 5: %ld bytes at 100 iterations, %ld at 1000", small, large);
}

/* Held iterations of guided folding (cst_guide.c): a program of nested
 * loops with their markers (inner loops of a few events, sometimes an
 * iteration that differs, sometimes a stray marker, values that change
 * count), folded guided with and without the held path: the same nodes,
 * byte for byte, and most events held. */
static void guided_program(tf_folder *f, uint64_t seed) {
  rng = seed;
  const uint32_t outer = 1, inner = 2;
  uint32_t nbody = 1 + (uint32_t)rndn(5), sites[6];
  for (uint32_t i = 0; i < nbody; i++) sites[i] = (uint32_t)rndn(8);
  CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_ENTER, outer)) == 0);
  for (uint32_t o = 0; o < 6; o++) {
    CHECK(tf_folder_push(f, 2, 0, 20, 1000, 7, TF_PREV_NONE, TF_PREV_NONE, 0, NULL) == 0);
    CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_ENTER, inner)) == 0);
    for (uint32_t it = 0; it < 120; it++) {
      uint32_t odd = rndn(40) == 0; /* an iteration cut short or with one more event */
      for (uint32_t i = 0; i < nbody - (odd && nbody > 1); i++) {
        int64_t v[3] = {it, (int64_t)i, (int64_t)rndn(3)};
        CHECK(tf_folder_push(f, 1, 0, sites[i], 1000 + rndn(50), 7, TF_PREV_NONE, TF_PREV_NONE,
                             1 + (uint32_t)(rndn(20) == 0), v) == 0);
      }
      if (odd && nbody == 1) CHECK(tf_folder_push(f, 1, 0, 30, 1000, 7, TF_PREV_NONE, TF_PREV_NONE, 0, NULL) == 0);
      if (rndn(100) == 0) CHECK(tf_cst_guide_marker(f, random_marker()) == 0);
      CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_ITER, inner)) == 0);
    }
    CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_EXIT, inner)) == 0);
    CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_ITER, outer)) == 0);
  }
  CHECK(tf_cst_guide_marker(f, tf_cst_pack(TF_CST_EXIT, outer)) == 0);
  CHECK(tf_folder_flush(f) == 0);
  tf_folder_seal(f);
}

static void test_cst_guide_held(void) {
  int mismatches = 0;
  uint64_t events = 0, held = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    tf_folder fast, slow;
    tf_folder_init(&fast);
    tf_folder_init(&slow);
    slow.no_fast = 1;
    guided_program(&fast, seed);
    guided_program(&slow, seed);
    tf_buf a = {0}, b = {0};
    tf_segment_encode(&a, fast.seq, fast.n, NULL);
    tf_segment_encode(&b, slow.seq, slow.n, NULL);
    CHECK(!a.failed && !b.failed && slow.nfast == 0);
    if (!(fast.n == slow.n && a.len == b.len && memcmp(a.data, b.data, a.len) == 0) && mismatches++ < 5)
      fprintf(stderr, "cst_guide_held: seed %" PRIu64 ": %u top-level nodes and %zu bytes, without holding %u and %zu\n",
              seed, fast.n, a.len, slow.n, b.len);
    events += fast.nevents;
    held += fast.nfast;
    tf_buf_free(&a);
    tf_buf_free(&b);
    tf_folder_reset(&fast);
    tf_folder_reset(&slow);
  }
  printf("cst_guide_held: 40 programs, %" PRIu64 " events (%" PRIu64 " held), %d differ from the unheld guide\n", events,
         held, mismatches);
  CHECKF(mismatches == 0, "%d of 40 programs fold differently with held iterations", mismatches);
  CHECKF(held * 2 > events, "only %" PRIu64 " of %" PRIu64 " events were held", held, events);
}

/* ======================================= 3. long bodies, near-linear time */

/* A body of nbody events from 50 call sites, without two equal neighbours,
 * framed by two sites used nowhere else (so that nothing folds across
 * iterations but whole iterations), repeated `iters` times; values: per
 * position constants, the iteration index, the position. */
static void long_body_stream(stream *s, uint32_t nbody, uint32_t iters, uint64_t seed) {
  rng = seed;
  uint32_t *sites = malloc(nbody * sizeof *sites);
  int64_t *cnt = malloc(nbody * sizeof *cnt);
  sites[0] = 50;
  sites[nbody - 1] = 51;
  for (uint32_t i = 1; i + 1 < nbody; i++)
    do sites[i] = (uint32_t)rndn(50);
    while (sites[i] == sites[i - 1]);
  for (uint32_t i = 0; i < nbody; i++) cnt[i] = rnd_range(0, 1 << 20);
  for (uint32_t it = 0; it < iters; it++)
    for (uint32_t i = 0; i < nbody; i++) {
      int64_t v[4] = {cnt[i], it, (int64_t)i, 0};
      stream_add(s, 1, 0, sites[i], 1000, 7, 4, v);
    }
  free(sites);
  free(cnt);
}

static void feed_folder(tf_folder *f, const stream *s, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    const oev *e = &s->e[i];
    CHECK(tf_folder_push(f, e->fn, e->thread, e->site, e->compute, e->duration, TF_PREV_NONE, TF_PREV_NONE, e->nvals, s->v + e->off) == 0);
  }
}

static void test_long_body(void) {
  enum { NB = 10000, IT = 20 };
  stream s = {0};
  long_body_stream(&s, NB, IT, 4242);

  tf_folder one, f;
  tf_folder_init(&one);
  tf_folder_init(&f);
  feed_folder(&one, &s, 0, NB); /* one iteration alone: what the body folds into */
  feed_folder(&f, &s, 0, s.n);
  printf("long body: one iteration folds into %u top-level nodes; %d iterations into %u\n", one.n, IT, f.n);
  CHECKF(one.n > NB * 9 / 10, "the body folds internally into %u nodes", one.n);
  CHECKF(f.n == 1, "%u top-level nodes", f.n);
  if (f.n == 1) {
    const tf_fnode *l = f.seq[0];
    CHECK(l->is_loop);
    if (l->is_loop) {
      int64_t iters = 0;
      CHECK(tf_vseq_is_constant(&l->iters, &iters) && l->iters.nvalues == 1);
      CHECKF(iters == IT, "loop of %" PRId64 " iterations", iters);
      CHECKF(l->nbody == one.n, "loop body of %u nodes, one iteration folds into %u", l->nbody, one.n);
    }
  }
  tf_folder_reset(&one);
  tf_folder_reset(&f);

  /* the compressed file holds about one body, the flat file twenty */
  rt_opts o = {.cap = (size_t)256 << 20, .const_times = 1, .rewind = 1, .timing = TF_TIMING_STATS};
  rt_result r20 = round_trip(&s, &o, 4242);
  stream s1 = {0};
  long_body_stream(&s1, NB, 1, 4242);
  rt_result r1 = round_trip(&s1, &o, 4242);
  printf("long body: compressed %ld bytes for 1 iteration, %ld for %d (flat %ld)\n", r1.comp_size, r20.comp_size, IT,
         r20.flat_size);
  CHECK(r20.ok && r1.ok && r20.nsegments == 1);
  CHECKF(r20.comp_size < 2 * r1.comp_size, "%d iterations: %ld bytes, one: %ld", IT, r20.comp_size, r1.comp_size);
  CHECK(r20.comp_size * 5 < r20.flat_size);
  stream_free(&s);
  stream_free(&s1);
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

/* Random events from 30 call sites with random small values. */
static void irregular_stream(stream *s, size_t n, uint64_t seed) {
  rng = seed;
  for (size_t i = 0; i < n; i++) {
    uint32_t site = (uint32_t)rndn(30);
    int64_t v[4] = {rnd_range(0, 3), rnd_range(-1, 1), (int64_t)(site % 5), 0};
    stream_add(s, 1, 0, site, rndn(1000), rndn(100), 4, v);
  }
}

/* Flat runs (fold/flatrun.h), window 64: random events on two interleaved
 * threads switch to flat runs, then a regular phase folds again after a
 * trial; a regular stream never switches. Lossless each way (round_trip
 * compares every event). */
static void test_flat_runs(void) {
  stream s = {0};
  rng = 4242;
  for (size_t i = 0; i < 6000; i++) { /* irregular, two threads interleaved at random */
    uint32_t site = (uint32_t)rndn(30);
    int64_t v[4] = {rnd_range(0, 3), rnd_range(-1, 1), (int64_t)(site % 5), 0};
    stream_add(&s, 1, (uint32_t)rndn(2), site, rndn(1000), rndn(100), 4, v);
  }
  size_t irregular = s.n;
  for (int64_t it = 0; it < 4000; it++) /* regular: a loop of 3 calls on thread 0 */
    for (uint32_t k = 0; k < 3; k++) {
      int64_t v[4] = {it, (int64_t)k, 7, 0};
      stream_add(&s, 2, 0, 40 + k, 500, 20, 4, v);
    }
  rt_opts o = {.cap = (size_t)64 << 20, .timing = TF_TIMING_PATH, .flat_window = 64};
  rt_result r = round_trip(&s, &o, 1);
  printf("flat runs: %zu events (%zu irregular), %" PRIu64 " kept flat, %u segments, compressed %ld bytes, flat %ld\n",
         s.n, irregular, r.flat_events, r.nsegments, r.comp_size, r.flat_size);
  CHECK(r.ok);
  CHECKF(r.flat_events > irregular / 2, "only %" PRIu64 " of %zu irregular events went to flat runs", r.flat_events,
         irregular);
  /* at most one run (up to 32 windows here) reaches into the regular phase; the windows whose folding was tried
   * and did not pay are counted flat too (kept as the run they shadowed, folder.h) */
  CHECKF(r.flat_events < irregular + 64 * 32, "%" PRIu64 " events flat: the regular phase did not fold again",
         r.flat_events);
  CHECKF(r.comp_size * 2 < r.flat_size, "compressed %ld bytes, flat %ld", r.comp_size, r.flat_size);
  stream_free(&s);

  stream reg = {0};
  for (int64_t it = 0; it < 3000; it++)
    for (uint32_t k = 0; k < 5; k++) {
      int64_t v[4] = {it % 7, (int64_t)k, 3, 0};
      stream_add(&reg, 2, 0, 50 + k, 100 + (uint64_t)(it % 3), 9, 4, v);
    }
  r = round_trip(&reg, &o, 2);
  CHECK(r.ok);
  CHECKF(r.flat_events == 0 && r.nsegments == 1, "a regular stream: %" PRIu64 " events flat, %u segments",
         r.flat_events, r.nsegments);
  stream_free(&reg);
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

static double fold_seconds(const stream *s, size_t *bytes) {
  double best = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    tf_folder f;
    tf_folder_init(&f);
    double t0 = cpu_seconds();
    feed_folder(&f, s, 0, s->n);
    double t = cpu_seconds() - t0;
    *bytes = f.mem.bytes;
    tf_folder_reset(&f);
    if (t < best) best = t;
  }
  return best;
}

static void test_linear_time(void) {
  stream small = {0}, big = {0};
  irregular_stream(&small, 10000, 77);
  irregular_stream(&big, 200000, 78);
  size_t bs, bb;
  double ts = fold_seconds(&small, &bs), tb = fold_seconds(&big, &bb);
  printf("irregular stream: 10k events %.2f ms, 200k events %.2f ms (ratio %.1f; linear 20, quadratic 400)\n",
         ts * 1e3, tb * 1e3, tb / ts);
  /* generous (cache effects: the structure of 200k events is ~100 MB): 5x linear
   * plus 100 ms of noise; quadratic behaviour gives 400x */
  CHECKF(tb < 100 * ts + 0.1, "200k events take %.3f s, 10k take %.3f s", tb, ts);
  /* and memory: the irregular stream does not fold, its structure grows linearly */
  printf("irregular stream: folder holds %zu bytes for 10k events, %zu for 200k\n", bs, bb);
  CHECKF(bb < 25 * bs, "%zu bytes for 200k events, %zu for 10k", bb, bs);
  stream_free(&small);
  stream_free(&big);
}

/* ============================================== 4. memory cap, accounting */

/* What the folder really holds, by the rules of its accounting (folder.c:
 * reserve, kmap, nodes, bodies, slots; vseq.c: items and repeat bodies). */
static size_t items_bytes(const tf_vitem *it, uint32_t n) {
  size_t b = 0;
  for (uint32_t i = 0; i < n; i++)
    if (it[i].nbody) b += it[i].nbody * sizeof(tf_vitem) + items_bytes(it[i].body, it[i].nbody);
  return b;
}
static size_t vseq_bytes(const tf_vseq *s) { return s->cap * sizeof(tf_vitem) + items_bytes(s->items, s->n); }
static size_t node_bytes(const tf_fnode *x) {
  size_t b = sizeof *x;
  if (x->is_loop) {
    b += x->nbody * sizeof *x->body + vseq_bytes(&x->iters);
    for (uint32_t i = 0; i < x->nbody; i++) b += node_bytes(x->body[i]);
  } else {
    b += vseq_bytes(&x->nvals) + x->nslots * sizeof *x->slots + x->timing.npaths * sizeof *x->timing.paths;
    for (uint32_t j = 0; j < x->nslots; j++) b += vseq_bytes(&x->slots[j]);
    for (uint32_t p = 0; p < x->timing.npaths; p++)
      b += (x->timing.paths[p].compute.nbins + x->timing.paths[p].duration.nbins) * sizeof(tf_bin);
  }
  return b;
}
static size_t folder_bytes(const tf_folder *f) {
  size_t b = (size_t)f->cap * (sizeof *f->seq + sizeof *f->pre + sizeof *f->pw + sizeof *f->kprev +
                               sizeof *f->ext_head + sizeof *f->ext_next) +
             (size_t)f->kcap * sizeof *f->kmap + f->pool_bytes + f->held_cap * sizeof *f->held +
             f->held_vals_cap * sizeof *f->held_vals;
  for (uint32_t i = 0; i < f->n; i++) b += node_bytes(f->seq[i]);
  return b;
}

/* A regular program: outer loop of { 3 x (Isend, Irecv), Waitall of the 6 }. */
static void nested_stream(stream *s, uint32_t outer) {
  for (uint32_t o = 0; o < outer; o++) {
    for (int k = 0; k < 3; k++) {
      int64_t is[4] = {10, 1, o, 6 * (int64_t)o + 2 * k}, ir[3] = {-1, o, 6 * (int64_t)o + 2 * k + 1};
      stream_add(s, 2, 0, 1, 1000, 7, 4, is);
      stream_add(s, 3, 0, 2, 1000, 7, 3, ir);
    }
    int64_t wa[15] = {6, 6, 0, 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < 6; j++) wa[2 + j] = 6 * (int64_t)o + j;
    stream_add(s, 5, 0, 3, 1000, 7, 15, wa);
  }
}

static void test_accounting(void) {
  /* After every checkpoint the folder's accounted bytes equal what it holds:
   * the cap is only meaningful if the accounting neither drifts up (early,
   * needless segments) nor down (unbounded memory). */
  struct {
    const char *name;
    stream s;
  } cases[3] = {{"irregular", {0}}, {"long body", {0}}, {"nested loops", {0}}};
  irregular_stream(&cases[0].s, 20000, 5);
  long_body_stream(&cases[1].s, 500, 10, 6);
  nested_stream(&cases[2].s, 3000);
  for (int c = 0; c < 3; c++) {
    tf_folder f;
    tf_folder_init(&f);
    const stream *s = &cases[c].s;
    size_t step = s->n / 10, first_bad = SIZE_MAX, acc = 0, real = 0;
    for (size_t i = 0; i < s->n; i += step) {
      feed_folder(&f, s, i, i + step < s->n ? i + step : s->n);
      acc = f.mem.bytes;
      real = folder_bytes(&f);
      if (acc != real && first_bad == SIZE_MAX) first_bad = i + step;
    }
    printf("accounting, %s: %zu events, %u top-level nodes, accounted %zu bytes, held %zu\n", cases[c].name, s->n, f.n,
           acc, real);
    CHECKF(first_bad == SIZE_MAX, "%s: accounted %zu bytes but the folder holds %zu (first differs after %zu events)",
           cases[c].name, acc, real, first_bad);
    tf_folder_reset(&f);
    stream_free(&cases[c].s);
  }
}

static void test_memory_cap(void) {
  const size_t cap = 64 << 10;
  /* irregular: the cap is reached again and again */
  stream s = {0};
  irregular_stream(&s, 100000, 99);
  rt_opts o = {.cap = cap, .check_cap = 1, .rewind = 1, .timing = TF_TIMING_DEFAULT};
  rt_result r = round_trip(&s, &o, 99);
  printf("memory cap %zu: irregular stream of %zu events -> %u segments, %" PRIu64 " spills\n", cap, s.n, r.nsegments,
         r.spills);
  CHECK(r.ok && r.spills >= 1 && r.nsegments > 1);
  stream_free(&s);

  /* regular nested loops: the folded structure is a few nodes, so one
   * segment must hold the whole run under the same cap */
  stream n = {0};
  nested_stream(&n, 20000);
  rt_opts on = {.cap = cap, .check_cap = 1, .const_times = 1};
  rt_result rn = round_trip(&n, &on, 0);
  tf_folder f;
  tf_folder_init(&f);
  feed_folder(&f, &n, 0, n.n);
  printf("memory cap %zu: nested loops, %zu events fold into %u top-level nodes holding %zu bytes; accounted %zu; "
         "%u segments, %ld bytes compressed\n",
         cap, n.n, f.n, folder_bytes(&f), f.mem.bytes, rn.nsegments, rn.comp_size);
  CHECK(rn.ok);
  CHECK(f.n <= 2 && folder_bytes(&f) < cap);
  CHECKF(rn.nsegments == 1, "a regular run of %zu events whose folded form holds %zu bytes was cut into %u segments "
         "by a %zu-byte cap", n.n, folder_bytes(&f), rn.nsegments, cap);
  tf_folder_reset(&f);
  stream_free(&n);
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

/* Regular programs fold to a size independent of their iteration counts:
 * E (A B)^k per outer iteration, k constant or alternating; the nested
 * Isend/Irecv/Waitall program; a three-level loop nest. */
static void pattern_stream(stream *s, int kind, uint32_t outer) {
  int64_t v[4] = {0, 0, 0, 0};
  for (uint32_t o = 0; o < outer; o++) {
    v[1] = o;
    if (kind >= 4) { /* three levels, with affine values */
      for (int i = 0; i < 3; i++) {
        v[2] = i;
        stream_add(s, 1, 0, 0, 1000, 7, 4, v);
        for (int j = 0; j < 4; j++) {
          v[3] = 10 * j + i;
          stream_add(s, 1, 0, 1, 1000, 7, 4, v);
          stream_add(s, 0, 0, 2, 1000, 7, 0, NULL);
        }
      }
      continue;
    }
    static const int k[4][2] = {{3, 3}, {7, 2}, {1, 2}, {5, 7}};
    stream_add(s, 0, 0, 0, 1000, 7, 0, NULL);
    for (int j = 0; j < k[kind][o % 2]; j++) {
      v[2] = j;
      stream_add(s, 1, 0, 1, 1000, 7, 4, v);
      stream_add(s, 0, 0, 2, 1000, 7, 0, NULL);
    }
  }
}

static void test_size_independent(void) {
  rt_opts o = {.cap = (size_t)256 << 20, .const_times = 1, .timing = TF_TIMING_STATS};
  for (int kind = 0; kind <= 5; kind++) {
    long size[2] = {0, 0};
    size_t nev = 0;
    for (int big = 0; big < 2; big++) {
      stream s = {0};
      if (kind == 5)
        nested_stream(&s, big ? 20000 : 200);
      else
        pattern_stream(&s, kind, big ? 20000 : 200);
      rt_result r = round_trip(&s, &o, (uint64_t)kind);
      CHECK(r.ok);
      size[big] = r.comp_size;
      nev = s.n;
      stream_free(&s);
    }
    printf("size independence, pattern %d: %ld bytes for 200 outer iterations, %ld for 20000 (%zu events)\n", kind,
           size[0], size[1], nev);
    CHECKF(size[1] < size[0] + 64, "pattern %d: %ld bytes for 200 outer iterations, %ld for 20000", kind, size[0],
           size[1]);
  }
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

/* tf_folder_seal in the middle of the stream (here: at random points, or
 * after every event) must leave the folder exact: it seals, then folds on.
 * The folder is driven directly and written with tf_segment_encode. */
static void test_seal_midstream(void) {
  const char *path = "folding_seal.tfc";
  tf_file_info info = {.rank = 0, .nranks = 1, .exe = "seal", .mpi = "none", .timing = TF_TIMING_DEFAULT, .bins = TF_BINS_DEFAULT, .nfuncs = NFUNCS, .funcs = funcs};
  char err[512];
  int64_t tmp[64];
  for (uint64_t seed = 3000; seed < 3040; seed++) {
    gen g;
    gen_program_stream(&g, seed);
    const stream *s = &g.s;
    unsigned every = seed % 4 == 0 && s->n <= 5000 ? 1 : 50; /* a seal walks the whole structure */
    fresh(path);
    tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
    CHECK(w != NULL);
    if (!w) return;
    static int64_t index_of[4096];
    for (int i = 0; i < 4096; i++) index_of[i] = -1;
    uint32_t nsites = 0;
    for (size_t i = 0; i < s->n; i++)
      if (index_of[s->e[i].site] < 0) {
        index_of[s->e[i].site] = nsites;
        tf_file_writer_callsite(w, nsites, site_sig(s->e[i].site), "seal", 0);
        nsites++;
      }
    tf_folder f;
    tf_folder_init(&f);
    tf_req_transform codec = {0};
    for (size_t i = 0; i < s->n; i++) {
      const oev *e = &s->e[i];
      memcpy(tmp, s->v + e->off, e->nvals * sizeof *tmp);
      CHECK(tf_req_transform_apply(&codec, &funcs[e->fn], tmp, e->nvals) == 0);
      int64_t fn = tf_file_writer_function(w, e->fn); /* the file's index of the function, declared on first use */
      CHECK(fn >= 0);
      CHECK(tf_folder_push(&f, (uint32_t)fn, e->thread, (uint32_t)index_of[e->site], 1000, 7, TF_PREV_NONE, TF_PREV_NONE, e->nvals, tmp) == 0);
      if (rndn(every) == 0) tf_folder_seal(&f);
    }
    tf_folder_seal(&f);
    tf_buf b = {0};
    tf_segment_encode(&b, f.seq, f.n, NULL);
    CHECK(!b.failed && tf_file_writer_segment(w, b.data, b.len, f.nevents) == 0);
    tf_buf_free(&b);
    tf_folder_reset(&f);
    CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
    tf_file_reader *r;
    tf_status st = tf_file_open(path, &r, err, sizeof err);
    CHECKF(st == TF_OK, "seed %" PRIu64 ": %s", seed, err);
    if (st == TF_OK) {
      compare_reader(r, s, 0, 1, every == 1 ? "sealed after every event" : "sealed now and then", seed);
      tf_file_close(r);
    }
    stream_free(&g.s);
  }
  remove(path);
}

/* The fast path (folder.c: an iteration of the last loop matched against
 * its body and held) gives the slow path's structure node for node: the
 * same streams folded with and without it (and, with it, flushed at random
 * points as checkpoints do) encode to the same bytes, path timing included
 * (each event's previous event: the one before it in the stream). */
static void fold_both(const stream *s, tf_folder *fast, tf_folder *slow, unsigned flush_every) {
  uint32_t pfn = TF_PREV_NONE, psite = TF_PREV_NONE;
  for (size_t i = 0; i < s->n; i++) {
    const oev *e = &s->e[i];
    const int64_t *v = s->v + e->off;
    CHECK(tf_folder_push(fast, e->fn, e->thread, e->site, e->compute, e->duration, pfn, psite, e->nvals, v) == 0);
    CHECK(tf_folder_push(slow, e->fn, e->thread, e->site, e->compute, e->duration, pfn, psite, e->nvals, v) == 0);
    if (flush_every && rndn(flush_every) == 0) CHECK(tf_folder_flush(fast) == 0);
    pfn = e->fn;
    psite = e->site;
  }
}

static void test_fast_path(void) {
  int mismatches = 0, cases = 0;
  uint64_t events = 0, held = 0;
  for (uint64_t k = 0; k < 160; k++) {
    stream st = {0};
    gen g;
    const stream *s = &st;
    if (k < 120) {
      gen_program_stream(&g, 5000 + k);
      s = &g.s;
    } else if (k < 126) {
      pattern_stream(&st, (int)(k - 120), 300);
    } else if (k < 128) {
      nested_stream(&st, 500);
    } else if (k < 130) {
      long_body_stream(&st, k == 128 ? 40 : 300, 12, k);
    } else {
      irregular_stream(&st, 3000, k);
    }
    rng = k; /* the flush points */
    tf_folder fast, slow;
    tf_folder_init(&fast);
    tf_folder_init(&slow);
    slow.no_fast = 1;
    fold_both(s, &fast, &slow, k % 3 == 0 ? 40 : 0);
    tf_folder_seal(&fast);
    tf_folder_seal(&slow);
    tf_buf a = {0}, b = {0};
    tf_segment_encode(&a, fast.seq, fast.n, NULL);
    tf_segment_encode(&b, slow.seq, slow.n, NULL);
    CHECK(!a.failed && !b.failed);
    int same = fast.n == slow.n && fast.nevents == slow.nevents && a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
    if (!same && mismatches++ < 5)
      fprintf(stderr, "fast path: stream %" PRIu64 " (%zu events): %u top-level nodes and %zu bytes, slow path %u and %zu\n",
              k, s->n, fast.n, a.len, slow.n, b.len);
    cases++;
    events += fast.nevents;
    held += fast.nfast;
    tf_buf_free(&a);
    tf_buf_free(&b);
    tf_folder_reset(&fast);
    tf_folder_reset(&slow);
    if (k < 120) stream_free(&g.s);
    else stream_free(&st);
  }
  printf("fast path: %d streams, %" PRIu64 " events (%" PRIu64 " through the fast path), %d differ from the slow path\n",
         cases, events, held, mismatches);
  CHECKF(mismatches == 0, "%d of %d streams fold differently with the fast path", mismatches, cases);
  CHECKF(held * 3 > events, "only %" PRIu64 " of %" PRIu64 " events took the fast path", held, events);
}

/* ====================================================== 5. hostile files */

/* The events the small sample file holds: the start of a simple program
 * (loops, arrays, requests), of an irregular one, and two special events. */
static void sample_stream(stream *s) {
  static const uint64_t seeds[2] = {1002, 1006};
  static const size_t take[2] = {60, 12};
  for (int k = 0; k < 2; k++) {
    gen g;
    gen_program_stream(&g, seeds[k]);
    for (size_t i = 0; i < g.s.n && i < take[k]; i++) {
      const oev *e = &g.s.e[i];
      stream_add(s, e->fn, e->thread, e->site, e->compute, e->duration, e->nvals, g.s.v + e->off);
    }
    stream_free(&g.s);
  }
  int64_t v[8] = {3, 5, -1, TF_NULL_HANDLE};
  stream_add(s, 6, 1, 7, 5, 5, 8, (int64_t[]){2, 5, -1, INT64_MAX, 3, 1, 2, 3});
  stream_add(s, 4, 0, 9, 5, 5, 2, v + 2);
}

/* Open a damaged file: it must be refused or, if it opens, read to an end
 * or a reported error, never crash. Returns the open status. */
static tf_status open_hostile(const char *path, long *events) {
  tf_file_reader *r = NULL;
  char err[512] = "";
  tf_status st = tf_file_open(path, &r, err, sizeof err);
  *events = -1;
  if (st != TF_OK) {
    CHECKF(r == NULL && strstr(err, path) != NULL, "error message '%s' does not name the file", err);
    return st;
  }
  const tf_file_info *fi = tf_file_get_info(r);
  tf_event ev;
  long n = 0;
  int rc;
  while (n <= 2000000 && (rc = tf_file_next(r, &ev)) == 1) n++;
  if (n <= 2000000) {
    if (rc == 0)
      CHECKF((uint64_t)n == fi->nevents, "the file ends after %ld events, declares %" PRIu64, n, fi->nevents);
    else
      CHECKF(rc == -1 && tf_file_error(r) && strstr(tf_file_error(r), path), "rc %d, error '%s'", rc,
             tf_file_error(r) ? tf_file_error(r) : "(null)");
    *events = rc == 0 ? n : -1;
  }
  tf_file_close(r);
  return st;
}

static void write_crc(unsigned char *d, long n) {
  uint32_t crc = tf_crc32(0, d, (size_t)n - 4);
  for (int k = 0; k < 4; k++) d[n - 4 + k] = (unsigned char)(crc >> (8 * k));
}

static void test_damaged_compressed(void) {
  stream s = {0};
  sample_stream(&s);
  rt_opts o = {.cap = 1 << 20, .timing = TF_TIMING_DEFAULT};
  rt_result rr = round_trip(&s, &o, 1002);
  CHECK(rr.ok);
  long n;
  unsigned char *d = file_bytes("folding_rt.tfc", &n);
  CHECK(d && n > 40);
  if (!d || n <= 40) {
    free(d);
    return;
  }
  printf("hostile: sample compressed file of %ld bytes (%zu events)\n", n, s.n);
  const char *bad = "folding_bad.tfc";
  tf_file_reader *r;
  char err[512];
  long ev;
  for (long len = 0; len < n; len++) { /* every truncation */
    put_bytes(bad, d, len);
    CHECKF(open_hostile(bad, &ev) != TF_OK, "truncated to %ld bytes", len);
  }
  unsigned char *c = malloc(file_len(n));
  static const unsigned char flips[] = {0x01, 0x5a};
  for (long i = 0; i < n; i++) /* every single-byte flip: the CRC catches all */
    for (size_t k = 0; k < sizeof flips; k++) {
      memcpy(c, d, (size_t)n);
      c[i] ^= flips[k];
      put_bytes(bad, c, n);
      CHECKF(open_hostile(bad, &ev) != TF_OK, "byte %ld ^ 0x%02x", i, flips[k]);
    }
  memcpy(c, d, (size_t)n);
  c[8] = 99;
  put_bytes(bad, c, n);
  CHECK(tf_file_open(bad, &r, err, sizeof err) == TF_ERR_VERSION);

  /* the same flips with the CRC made valid again: the structural checks
   * alone must refuse the file or unroll it to an end or a reported error */
  static const unsigned char masks[] = {0x01, 0x40, 0x80, 0xff}; /* low bits, varint continuation, all */
  long opened = 0, read_through = 0;
  for (long i = 12; i < n - 4; i++)
    for (size_t k = 0; k < sizeof masks; k++) {
      memcpy(c, d, (size_t)n);
      c[i] ^= masks[k];
      write_crc(c, n);
      put_bytes(bad, c, n);
      if (open_hostile(bad, &ev) == TF_OK) {
        opened++;
        read_through += ev >= 0;
      }
    }
  /* and random multi-byte damage, CRC valid */
  rng = 31337;
  for (int t = 0; t < 1500; t++) {
    memcpy(c, d, (size_t)n);
    int nflips = 1 + (int)rndn(4);
    for (int k = 0; k < nflips; k++) c[12 + rndn((uint64_t)n - 16)] = (unsigned char)rnd();
    write_crc(c, n);
    put_bytes(bad, c, n);
    if (open_hostile(bad, &ev) == TF_OK) opened++;
  }
  printf("hostile: with a recomputed CRC, %ld damaged files opened (%ld read to the end), none crashed\n", opened,
         read_through);
  free(c);
  free(d);
  stream_free(&s);
  remove(bad);
  remove("folding_rt.flat");
  remove("folding_rt.tfc");
}

/* ---- hand-made segments: the writer computes the CRC, the content lies */
enum { IT_SINGLE = 0, IT_RUN = 1, IT_REPEAT = 2 }; /* segment.c */
enum { ND_EVENT = 0, ND_LOOP = 1 };

static void put_single_vseq(tf_buf *b, int64_t v) {
  tf_buf_put_uvar(b, 1);
  tf_buf_put_u8(b, IT_SINGLE);
  tf_buf_put_svar(b, v);
}
static void put_run_vseq(tf_buf *b, int64_t base, int64_t step, uint64_t count) {
  tf_buf_put_uvar(b, 1);
  tf_buf_put_u8(b, IT_RUN);
  tf_buf_put_svar(b, base);
  tf_buf_put_svar(b, step);
  tf_buf_put_uvar(b, count);
}
static void put_stats(tf_buf *b) { tf_buf_put_uvar(b, 0); } /* no time paths: the hand file keeps no times */
/* event header: fn 1 (MPI_Send, 4 scalar fields), thread 0, site 0 */
static void put_event_head(tf_buf *b, uint32_t fn, uint32_t site) {
  tf_buf_put_u8(b, ND_EVENT);
  tf_buf_put_uvar(b, fn);
  tf_buf_put_uvar(b, 0);
  tf_buf_put_uvar(b, site);
}

enum {
  H_VALID, H_COUNT_MISMATCH, H_SLOT_SHORT, H_SLOT_LONG, H_ZERO_ITERS, H_NVALS_OVER_SLOTS, H_NOT_FITTING, H_SITE,
  H_FN, H_DEEP_LOOPS, H_DEEP_REPEATS, H_TRAILING, H_EMPTY_LIST, H_HUGE_RUN, H_NEG_NVALS, H_BAD_ITEM, H_SLOT_UNUSED,
  H_TWO_STREAMS, H_ORDER_SIZES, H_ORDER_STREAM, H_ORDER_LENGTHS, H_ORDER_EMPTY_RUN, H_ORDER_ONE_STREAM_RUNS, H_NCASES
};
static const char *const hnames[] = {"valid", "event count mismatch", "slot too short", "slot too long",
                                     "zero iterations", "value count over slots", "values not fitting fields",
                                     "undeclared call site", "unknown function", "loops nested too deep",
                                     "repeats nested too deep", "trailing bytes", "empty node list",
                                     "huge run", "negative value count", "unknown item kind",
                                     "unused values in an extra slot", "two streams, the first empty",
                                     "stream sizes beyond the nodes", "a run of an unknown stream",
                                     "run lengths beyond the events", "a run of a stream without events",
                                     "runs for one stream"};

/* One segment: a loop of 3 iterations around one MPI_Send event (4 values
 * per event: slot j = 10*j + iteration), altered by `h`. Returns the
 * segment's declared event count. */
static uint64_t hand_segment(tf_buf *b, int h) {
  uint64_t nev = 3;
  int depth = h == H_DEEP_LOOPS ? 70 : 1;
  tf_buf_put_uvar(b, h == H_EMPTY_LIST ? 0 : 1);
  if (h == H_EMPTY_LIST) return 0;
  for (int k = 0; k < depth; k++) {
    tf_buf_put_u8(b, ND_LOOP);
    if (k == 0 && h == H_ZERO_ITERS)
      put_single_vseq(b, 0);
    else if (k == 0 && h == H_HUGE_RUN)
      put_run_vseq(b, 3, 0, UINT64_MAX);
    else if (k == 0)
      put_single_vseq(b, 3);
    else
      put_run_vseq(b, 1, 0, 3); /* inner loops: 1 iteration per outer occurrence */
    tf_buf_put_uvar(b, 1);
  }
  put_event_head(b, h == H_FN ? NFUNCS : 1, h == H_SITE ? 1 : 0);
  uint32_t nv = h == H_NOT_FITTING ? 3 : 4;
  if (h == H_NVALS_OVER_SLOTS)
    put_run_vseq(b, 9, 0, 3);
  else if (h == H_NEG_NVALS)
    put_run_vseq(b, -1, 0, 3);
  else
    put_run_vseq(b, nv, 0, 3);
  tf_buf_put_uvar(b, h == H_SLOT_UNUSED ? nv + 1 : nv);
  for (uint32_t j = 0; j < nv; j++) {
    if (j == 1 && h == H_SLOT_SHORT)
      put_run_vseq(b, 10, 1, 2);
    else if (j == 1 && h == H_SLOT_LONG)
      put_run_vseq(b, 10, 1, 4);
    else if (j == 2 && h == H_DEEP_REPEATS) { /* 20 nested repeats of one value: too deep for readers */
      tf_buf_put_uvar(b, 1);
      for (int k = 0; k < 20; k++) {
        tf_buf_put_u8(b, IT_REPEAT);
        tf_buf_put_svar(b, 0);
        tf_buf_put_uvar(b, 2);
        tf_buf_put_uvar(b, 1);
      }
      tf_buf_put_u8(b, IT_SINGLE);
      tf_buf_put_svar(b, 20);
    } else if (j == 3 && h == H_BAD_ITEM) {
      tf_buf_put_uvar(b, 1);
      tf_buf_put_u8(b, 7);
      tf_buf_put_svar(b, 30);
    } else
      put_run_vseq(b, 10 * (int64_t)j, 1, 3);
  }
  if (h == H_SLOT_UNUSED) put_run_vseq(b, 50, 1, 2); /* slot 4: no occurrence has 5 values */
  put_stats(b);
  /* the order of the streams (FORMAT.md 2.7): sizes, runs, lengths; one stream: all empty */
  switch (h) {
  case H_TWO_STREAMS: /* stream 0 empty, stream 1 the loop: one run of stream 1 */
    put_single_vseq(b, 0);
    put_single_vseq(b, 1);
    tf_buf_put_uvar(b, 0);
    break;
  case H_ORDER_SIZES: /* 7 nodes in stream 0, of 1 */
    put_single_vseq(b, 7);
    put_single_vseq(b, 1);
    tf_buf_put_uvar(b, 0);
    break;
  case H_ORDER_STREAM: /* stream 3 of 2 */
    put_single_vseq(b, 0);
    put_single_vseq(b, 3);
    tf_buf_put_uvar(b, 0);
    break;
  case H_ORDER_LENGTHS: /* a first run of 5 events, of 3 */
    put_single_vseq(b, 0);
    put_run_vseq(b, 1, -1, 2);
    put_single_vseq(b, 5);
    break;
  case H_ORDER_EMPTY_RUN: /* a first run of stream 0, which has no events: found while unrolling */
    put_single_vseq(b, 0);
    put_run_vseq(b, 0, 1, 2);
    put_single_vseq(b, 1);
    break;
  case H_ORDER_ONE_STREAM_RUNS:
    tf_buf_put_uvar(b, 0);
    put_single_vseq(b, 0);
    tf_buf_put_uvar(b, 0);
    break;
  default:
    for (int k = 0; k < 3; k++) tf_buf_put_uvar(b, 0);
  }
  if (h == H_TRAILING) tf_buf_put_u8(b, 0);
  return h == H_COUNT_MISMATCH ? nev + 1 : nev;
}

/* A compressed file with one call site (0x77) and one hand-encoded segment
 * of nev events; 1 if written. */
static int write_hand_file(const char *path, const tf_buf *seg, uint64_t nev) {
  tf_file_info info = {.rank = 0, .nranks = 1, .exe = "hand", .mpi = "none", .timing = TF_TIMING_NONE, .nfuncs = NFUNCS,
                       .funcs = funcs};
  char err[512];
  fresh(path);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return 0;
  CHECK(tf_file_writer_function(w, 0) == 0 && tf_file_writer_function(w, 1) == 1); /* the segment names function 1 */
  CHECK(tf_file_writer_callsite(w, 0, 0x77, "hand", 1) == 0);
  CHECK(!seg->failed && tf_file_writer_segment(w, seg->data, seg->len, nev) == 0);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
  return 1;
}

static void test_hand_made(void) {
  const char *path = "folding_hand.tfc";
  char err[512];
  for (int h = 0; h < H_NCASES; h++) {
    tf_buf b = {0};
    uint64_t nev = hand_segment(&b, h);
    int written = write_hand_file(path, &b, nev);
    tf_buf_free(&b);
    if (!written) return;

    tf_file_reader *r = NULL;
    err[0] = 0;
    tf_status st = tf_file_open(path, &r, err, sizeof err);
    /* A slot holding values no occurrence reads (FORMAT.md 2.6) is refused
     * when its segment has been unrolled: it falls to the generic check
     * below (refused at open, or -1 with a message naming the file). */
    if (h == H_VALID || h == H_TWO_STREAMS) {
      CHECKF(st == TF_OK, "%s", err);
      if (st != TF_OK) continue;
      tf_event ev;
      for (int k = 0; k < 3; k++) {
        CHECK(tf_file_next(r, &ev) == 1);
        CHECK(ev.fn == 1 && ev.callsite == 0x77 && ev.nvals == 4 && ev.compute_ns == 0);
        for (uint32_t j = 0; j < 4 && ev.nvals == 4; j++) CHECK(ev.vals[j] == 10 * (int64_t)j + k);
      }
      CHECK(tf_file_next(r, &ev) == 0);
      tf_file_close(r);
      continue;
    }
    /* refused at open, or fails while unrolling with a message */
    if (st != TF_OK) {
      CHECKF(r == NULL && st == TF_ERR_FORMAT && strstr(err, path), "%s: status %d, '%s'", hnames[h], st, err);
      printf("hand-made segment, %s: refused at open: %s\n", hnames[h], err);
      continue;
    }
    tf_event ev;
    int rc, k = 0;
    while ((rc = tf_file_next(r, &ev)) == 1 && k < 10) k++;
    CHECKF(rc == -1 && tf_file_error(r) && strstr(tf_file_error(r), path), "%s: opened, then %d after %d events",
           hnames[h], rc, k);
    printf("hand-made segment, %s: opened, tf_file_next -1 after %d events: %s\n", hnames[h], k,
           tf_file_error(r) ? tf_file_error(r) : "(null)");
    CHECK(tf_file_next(r, &ev) == -1); /* the error stays */
    tf_file_rewind(r);                 /* a rewind reads the good events again */
    CHECK(tf_file_next(r, &ev) == (k > 0 ? 1 : -1));
    tf_file_close(r);
  }

  /* a valid file patched by hand: the segment's event count + 1, CRC recomputed */
  {
    tf_buf b = {0};
    uint64_t nev = hand_segment(&b, H_VALID);
    if (!write_hand_file(path, &b, nev)) {
      tf_buf_free(&b);
      return;
    }
    long n;
    unsigned char *d = file_bytes(path, &n);
    /* the segment record: tag 4, nevents 3, length, then the payload */
    long at = -1;
    for (long i = 0; d && i + 3 + (long)b.len <= n; i++)
      if (d[i] == 4 && d[i + 1] == 3 && d[i + 2] == b.len && memcmp(d + i + 3, b.data, b.len) == 0) at = i;
    CHECK(at > 0);
    if (at > 0) {
      tf_file_reader *r;
      CHECK(tf_file_open(path, &r, err, sizeof err) == TF_OK);
      tf_file_close(r);
      d[at + 1] = 4; /* 4 events declared, 3 held; the end record still says 3 */
      write_crc(d, n);
      put_bytes(path, d, n);
      CHECK(tf_file_open(path, &r, err, sizeof err) == TF_ERR_FORMAT && strstr(err, "event count"));
      d[n - 5] = 4; /* the end record agrees too: still refused */
      write_crc(d, n);
      put_bytes(path, d, n);
      CHECK(tf_file_open(path, &r, err, sizeof err) == TF_ERR_FORMAT);
      printf("hand-patched segment event count: %s\n", err);
    }
    free(d);
    tf_buf_free(&b);
  }
  remove(path);
}

/* A run item whose values are huge: the decoder's range facts (segment.c,
 * get_item: the sum (base + last) * count) must not overflow __int128.
 * Found by the CRC-valid fuzzing above under UBSan; this is the minimal
 * case: one event, one slot holding 2^33 values from INT64_MAX by
 * INT64_MAX. The file is invalid (more values than occurrences) and must be
 * refused; a UBSan build reports the overflow (signed integer overflow is
 * undefined behaviour) while deciding so. */
static void test_decoder_overflow(void) {
  const char *path = "folding_hand.tfc";
  char err[512];
  tf_buf b = {0};
  tf_buf_put_uvar(&b, 1); /* one node: MPI_Send, one occurrence of 4 values */
  put_event_head(&b, 1, 0);
  put_single_vseq(&b, 4);
  tf_buf_put_uvar(&b, 4);
  put_run_vseq(&b, INT64_MAX, INT64_MAX, (uint64_t)1 << 33);
  for (int j = 1; j < 4; j++) put_single_vseq(&b, j);
  put_stats(&b);
  int written = write_hand_file(path, &b, 1);
  tf_buf_free(&b);
  if (!written) return;
  tf_file_reader *r = NULL;
  tf_status st = tf_file_open(path, &r, err, sizeof err);
  CHECKF(st == TF_ERR_FORMAT && r == NULL, "status %d: %s", st, err);
  if (r) tf_file_close(r);
  remove(path);
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "--seeds") == 0) { /* a longer search: seeds 1000 .. 1000+N-1 */
    test_pipeline(atoi(argv[2]), 0);
    return test_result("test_folding");
  }
  if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') { /* a seed; case names start with a letter */
    test_pipeline(1, strtoull(argv[1], NULL, 10));
    return test_result("test_folding");
  }
  static const test_case cases[] = {
      {"vseq_compact", test_vseq_compact},
      {"vseq_random", test_vseq_random},
      {"codec", test_codec},
      {"event_fields", test_event_fields},
      {"pipeline", test_pipeline_all},
      {"cst_guide", test_cst_guide},
      {"cst_guide_period", test_cst_guide_period},
      {"cst_guide_held", test_cst_guide_held},
      {"long_body", test_long_body},
      {"linear_time", test_linear_time},
      {"flat_runs", test_flat_runs},
      {"accounting", test_accounting},
      {"memory_cap", test_memory_cap},
      {"size_independent", test_size_independent},
      {"seal_midstream", test_seal_midstream},
      {"fast_path", test_fast_path},
      {"hand_made", test_hand_made},
      {"decoder_overflow", test_decoder_overflow},
      {"damaged_compressed", test_damaged_compressed},
  };
  return run_cases("test_folding", cases, TEST_NCASES(cases), argc, argv);
}
