/* test_schema_roundtrip — every function of gen/mpi.table, with extreme and
 * absent arguments, written and read back through every writer and reader:
 * the flat writer and reader, the compressor (folding, relative request
 * ids, segments under a small memory cap) and the per-rank reader, and the
 * merge across ranks (tf_mtrace, over the wire) with the public reader
 * (tf_trace_open_mem, rank cursors). Values come back identical. And what
 * the readers would refuse, the flat writer refuses.
 *
 * The schema is the recorder's own (tf_schema.c, generated from mpi.table:
 * library tracefold_schema), so a function added to the table is tested
 * here without a change to this file.
 *
 * Values, per field and kind (a deterministic choice per function, event
 * and rank): every special (TF_NONE, TF_ANY_SOURCE, TF_PROC_NULL, TF_ROOT,
 * TF_ANY_TAG, TF_UNDEFINED, TF_NULL_HANDLE), INT64_MAX, the smallest
 * non-special value (TF_SPECIAL_MAX + 1), the INT32 and UINT32 limits, 0,
 * -1, 1; arrays empty, of one element, and long (1,000 and 5,000
 * elements). Each event is repeated, so that loops fold over extreme
 * values too.
 *
 * Cases: flat, compressed, merged, refused (test_schema_roundtrip --list). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "merge/mtrace.h"
#include "tf_schema.h"
#include "tracefold.h"
#include "util/bytes.h"
#include "util/fields.h"

enum { NRANKS = 3, VARIANTS = 9, REPEAT = 3 };

static const int64_t extremes[] = {
    TF_NONE,          TF_ANY_SOURCE, TF_PROC_NULL, TF_ROOT, TF_ANY_TAG, TF_UNDEFINED, TF_NULL_HANDLE,
    INT64_MAX,        TF_SPECIAL_MAX + 1,          INT32_MAX, INT32_MIN, (int64_t)UINT32_MAX + 1,
    0,                -1,            1,            INT64_MAX - 1, 1000, -((int64_t)1 << 40),
};
#define NEXTREME (sizeof extremes / sizeof extremes[0])

static uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* One event's values: function fn, variant v (0..VARIANTS-1), rank r. */
typedef struct vec {
  int64_t *v;
  uint32_t n, cap;
} vec;

static void put(vec *x, int64_t v) {
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 64;
    x->v = realloc(x->v, x->cap * sizeof *x->v);
    if (!x->v) abort();
  }
  x->v[x->n++] = v;
}

static int64_t pick(uint32_t fn, uint32_t field, uint32_t k, int v, int r) {
  if (v == 0) return TF_NONE; /* every argument absent */
  if (v == 1) return extremes[(fn + field + k) % NEXTREME];
  if (v == 2) return INT64_MAX - (int64_t)k;
  if (v == 3) return TF_SPECIAL_MAX + 1 + (int64_t)k; /* the smallest ordinary values */
  if (v == 4) return extremes[mix(fn * 131 + field, (uint64_t)k * 7 + (uint64_t)r) % NEXTREME];
  return (int64_t)(mix(fn, ((uint64_t)field << 32) + (uint64_t)k * 64 + (uint64_t)(v * 8 + r)) >> (v % 4 * 16));
}

static uint32_t array_len(uint32_t fn, uint32_t field, int v, int r) {
  switch (v) {
  case 0: return 0;
  case 1: return 1;
  case 6: return 1000;
  case 7: return (fn + field) % 3 == 0 ? 5000 : 0;
  default: return (uint32_t)(mix(fn + (uint64_t)r, field * 10 + (uint64_t)v) % 5);
  }
}

static void make(vec *x, uint32_t fn, int v, int r) {
  const tf_func_desc *d = &tf_schema[fn];
  x->n = 0;
  for (uint32_t f = 0; f < d->nfields; f++) {
    if (!d->fields[f].is_array) {
      put(x, pick(fn, f, 0, v, r));
      continue;
    }
    uint32_t n = array_len(fn, f, v, r);
    put(x, n);
    for (uint32_t k = 0; k < n; k++) put(x, pick(fn, f, k, v, r));
  }
}

/* The events of rank r, in order: for every function and variant, REPEAT
 * times the same event (loops fold), then the next. */
typedef struct ev_ref {
  uint32_t fn;
  int v;
} ev_ref;

static size_t nevents(void) { return (size_t)TF_FN_COUNT * VARIANTS * REPEAT; }
static ev_ref event_at(size_t i) { return (ev_ref){(uint32_t)(i / (VARIANTS * REPEAT)), (int)(i / REPEAT % VARIANTS)}; }

static const char *dir_name = "schema_rt";

static void path_of(char *buf, size_t len, const char *what, int r) {
  snprintf(buf, len, "%s.%s.%d", dir_name, what, r);
}

static tf_file_info info_for(int r) {
  return (tf_file_info){.rank = r, .nranks = NRANKS, .thread_level = 0, .start_unix_ns = 1, .exe = "schema_rt",
                        .mpi = "none", .timing = TF_TIMING_STATS, .bins = TF_BINS_DEFAULT, .nfuncs = TF_FN_COUNT,
                        .funcs = tf_schema};
}

/* Compare event i of rank r with what a reader gave. */
static int same(const tf_event *ev, size_t i, int r, vec *want, const char *what) {
  ev_ref e = event_at(i);
  make(want, e.fn, e.v, r);
  int ok = ev->fn == e.fn && ev->nvals == want->n &&
           (want->n == 0 || memcmp(ev->vals, want->v, want->n * sizeof *want->v) == 0);
  if (!ok) {
    uint32_t k = 0;
    while (k < want->n && k < ev->nvals && ev->vals[k] == want->v[k]) k++;
    CHECKF(0, "%s: rank %d event %zu (%s, variant %d): fn %u (expected %u), %u values (expected %u), first difference at "
              "value %u: %" PRId64 " (expected %" PRId64 ")", what, r, i, tf_schema[e.fn].name, e.v, ev->fn, e.fn,
           ev->nvals, want->n, k, k < ev->nvals ? ev->vals[k] : 0, k < want->n ? want->v[k] : 0);
  }
  return ok;
}

/* Write rank r's events as a flat file, and (cap > 0) as a compressed file. */
static int write_rank(int r, size_t cap) {
  char fpath[256], cpath[256], err[512];
  path_of(fpath, sizeof fpath, "flat", r);
  path_of(cpath, sizeof cpath, "tfc", r);
  tf_file_info info = info_for(r);
  tf_file_writer *fw = tf_file_writer_open(fpath, TF_FILE_FLAT, &info, err, sizeof err);
  tf_file_writer *cw = tf_file_writer_open(cpath, TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(fw && cw, "%s", err);
  if (!fw || !cw) return -1;
  tf_compressor c;
  CHECK(tf_compressor_init(&c, tf_schema, TF_FN_COUNT, cap) == 0);
  tf_compressor_set_timing(&c, TF_TIMING_STATS, TF_BINS_DEFAULT);
  CHECK(tf_file_writer_callsite(fw, 0, 0x1234, "schema_rt", 16) == 0);
  CHECK(tf_file_writer_callsite(cw, 0, 0x1234, "schema_rt", 16) == 0);
  vec x = {0};
  int ok = 1;
  for (size_t i = 0; i < nevents() && ok; i++) {
    ev_ref e = event_at(i);
    make(&x, e.fn, e.v, r);
    int rc = tf_file_writer_event(fw, e.fn, 0, 0, 10, 1, x.n, x.v);
    CHECKF(rc == 0, "flat writer: rank %d event %zu (%s, variant %d): %d", r, i, tf_schema[e.fn].name, e.v, rc);
    rc = tf_compressor_event(&c, cw, e.fn, 0, 0, 10, 1, x.n, x.v);
    CHECKF(rc == 0 || rc == 1, "compressor: rank %d event %zu (%s, variant %d): %d", r, i, tf_schema[e.fn].name, e.v,
           rc);
    ok = rc == 0 || rc == 1;
  }
  free(x.v);
  CHECK(tf_compressor_finish(&c, cw) == 0);
  tf_compressor_free(&c);
  CHECK(tf_file_writer_close(fw, err, sizeof err) == TF_OK);
  CHECK(tf_file_writer_close(cw, err, sizeof err) == TF_OK);
  return ok ? 0 : -1;
}

/* Read a per-rank file back, every event compared. */
static void read_rank(const char *what, int r) {
  char path[256], err[512], label[64];
  path_of(path, sizeof path, what, r);
  snprintf(label, sizeof label, "%s reader", what);
  tf_file_reader *fr;
  tf_status st = tf_file_open(path, &fr, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  if (st != TF_OK) return;
  tf_event ev;
  vec want = {0};
  size_t i = 0;
  int rc;
  while ((rc = tf_file_next(fr, &ev)) == 1 && i < nevents())
    if (!same(&ev, i++, r, &want, label)) break;
  CHECKF(rc >= 0, "%s: rank %d: reading failed after %zu events", label, r, i);
  CHECKF(i == nevents(), "%s: rank %d: %zu events read, %zu written", label, r, i, nevents());
  free(want.v);
  tf_file_close(fr);
}

static int written;
static void ensure_written(void) {
  if (written) return;
  written = 1;
  for (int r = 0; r < NRANKS; r++) write_rank(r, r == 1 ? 16 << 10 : 64 << 20); /* rank 1: many segments */
}

static void test_flat(void) {
  ensure_written();
  for (int r = 0; r < NRANKS; r++) read_rank("flat", r);
  printf("   %u functions x %d variants x %d repeats, %d ranks: the flat reader gives every value back\n", TF_FN_COUNT,
         VARIANTS, REPEAT, NRANKS);
}

static void test_compressed(void) {
  ensure_written();
  for (int r = 0; r < NRANKS; r++) read_rank("tfc", r);
  printf("   the compressor (folded, relative request ids, segments on rank 1) and its reader: every value back\n");
}

static void test_merged(void) {
  ensure_written();
  tf_mtrace t[NRANKS];
  char path[256], err[512] = "";
  for (int r = 0; r < NRANKS; r++) {
    path_of(path, sizeof path, "tfc", r);
    tf_file_reader *fr;
    tf_status st = tf_file_open(path, &fr, err, sizeof err);
    CHECKF(st == TF_OK, "%s", err);
    if (st != TF_OK) return;
    CHECK(tf_mtrace_from_file(&t[r], fr) == 0);
    tf_file_close(fr);
  }
  /* ranks 1 and 2 merged, sent over the wire, then merged into rank 0 */
  CHECKF(tf_mtrace_merge(&t[1], &t[2], err, sizeof err) == 0, "%s", err);
  tf_buf b = {0};
  CHECK(tf_mtrace_encode(&t[1], &b, 3) == 0 && !b.failed);
  tf_mtrace_free(&t[1]);
  CHECKF(tf_mtrace_decode(b.data, b.len, "ranks 1-2", &t[1], err, sizeof err) == TF_OK, "%s", err);
  tf_buf_free(&b);
  CHECKF(tf_mtrace_merge(&t[0], &t[1], err, sizeof err) == 0, "%s", err);
  CHECK(tf_mtrace_encode(&t[0], &b, 0) == 0 && !b.failed);
  tf_mtrace_free(&t[0]);
  tf_trace *tr;
  tf_status st = tf_trace_open_mem(b.data, b.len, "merged", &tr, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  tf_buf_free(&b);
  if (st != TF_OK) return;
  CHECK(tf_trace_get_info(tr)->nranks_present == NRANKS);
  vec want = {0};
  for (int r = 0; r < NRANKS; r++) {
    tf_rank_cursor *c;
    st = tf_rank_cursor_open(tr, r, &c, err, sizeof err);
    CHECKF(st == TF_OK, "%s", err);
    if (st != TF_OK) continue;
    tf_event ev;
    size_t i = 0;
    int rc;
    while ((rc = tf_rank_cursor_next(c, &ev)) == 1 && i < nevents())
      if (!same(&ev, i++, r, &want, "merged trace")) break;
    CHECKF(rc >= 0, "merged trace: rank %d: %s", r, tf_rank_cursor_error(c));
    CHECKF(i == nevents(), "merged trace: rank %d: %zu events, %zu written", r, i, nevents());
    tf_rank_cursor_close(c);
  }
  free(want.v);
  tf_trace_close(tr);
  printf("   merged over %d ranks (one merge over the wire), read by rank cursors: every value back\n", NRANKS);
}

/* What a reader refuses, the flat writer does not write: values one short,
 * one too many, an array longer than the values, for every function. */
static void test_refused(void) {
  char path[256], err[512];
  path_of(path, sizeof path, "refused", 0);
  tf_file_info info = info_for(0);
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_FLAT, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return;
  CHECK(tf_file_writer_event(w, 0, 0, 0, 1, 1, 0, NULL) == -2); /* no call site declared yet */
  CHECK(tf_file_writer_callsite(w, 1, 0x1, "m", 0) == -2);      /* not the next index */
  CHECK(tf_file_writer_callsite(w, 0, 0x1, "m", 0) == 0);
  CHECK(tf_file_writer_event(w, TF_FN_COUNT, 0, 0, 1, 1, 0, NULL) == -2); /* no such function */
  vec x = {0};
  uint32_t refused = 0, arrays = 0;
  for (uint32_t fn = 0; fn < TF_FN_COUNT; fn++) {
    make(&x, fn, 5, 0);
    char why[256] = "";
    CHECKF(tf_file_writer_event(w, fn, 0, 0, 1, 1, x.n, x.v) == 0, "%s: a fitting event refused", tf_schema[fn].name);
    put(&x, 7); /* one too many */
    CHECKF(tf_file_writer_event(w, fn, 0, 0, 1, 1, x.n, x.v) == -2, "%s: one value too many written",
           tf_schema[fn].name);
    CHECKF(tf_event_fields_why(&tf_schema[fn], x.v, x.n, why, sizeof why) != TF_OK && strstr(why, tf_schema[fn].name),
           "%s: no reason given: %s", tf_schema[fn].name, why);
    x.n -= 2; /* one short */
    if (tf_schema[fn].nfields)
      CHECKF(tf_file_writer_event(w, fn, 0, 0, 1, 1, x.n, x.v) == -2, "%s: one value short written",
             tf_schema[fn].name);
    refused++;
    for (uint32_t f = 0; f < tf_schema[fn].nfields; f++) { /* the first array (its fields before are scalars) */
      if (!tf_schema[fn].fields[f].is_array) continue;
      make(&x, fn, 5, 0);
      x.v[f] = (int64_t)x.n; /* longer than what follows */
      CHECKF(tf_file_writer_event(w, fn, 0, 0, 1, 1, x.n, x.v) == -2, "%s: array %s past the values written",
             tf_schema[fn].name, tf_schema[fn].fields[f].name);
      arrays++;
      break;
    }
  }
  free(x.v);
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
  tf_file_reader *fr;
  tf_status st = tf_file_open(path, &fr, err, sizeof err);
  CHECKF(st == TF_OK, "the file the writer wrote is refused: %s", err);
  if (st == TF_OK) {
    CHECK(tf_file_get_info(fr)->nevents == TF_FN_COUNT);
    tf_file_close(fr);
  }
  printf("   %u functions: values one short or one too many refused (-2), %u arrays past the end refused; the file "
         "reads\n", refused, arrays);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"flat", test_flat},
      {"compressed", test_compressed},
      {"merged", test_merged},
      {"refused", test_refused},
  };
  return run_cases("test_schema_roundtrip", cases, TEST_NCASES(cases), argc, argv);
}
