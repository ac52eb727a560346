/* test_runs.c — one run per trace, format versions 2 and 3, and what the
 * readers check about every rank before a tool prints anything.
 *
 *   versions   files of format version 2 (made from version-3 files by
 *              removing what version 3 added: the run identity in the
 *              per-rank header and the merged INFO, the per-rank partial
 *              reasons in RANKS) still read, with run 0 and every rank as
 *              partial as the trace; version 3 keeps the run and the
 *              reasons;
 *   mixed      a directory whose files come from two runs (same rank
 *              count) is refused naming the files of each run: flat
 *              files, compressed files, a trace.tf beside another run's
 *              flat files (read either way); tf_mtrace_merge refuses two
 *              runs; one run's files in one directory still read;
 *   partial    per-rank partial reasons (a signal, a checkpoint) survive
 *              opening a directory and the merged file;
 *   checkpoint the recorder's checkpoints (a snapshot of the compressor's
 *              live structure and of the writer, written atomically while
 *              folding goes on): at many points of a stream with loops and
 *              noise, under a small memory cap (segments spilled, over 1
 *              MiB flushed to the file, so snapshots copy its prefix), the
 *              snapshot reads back as exactly the events pushed so far,
 *              marked a checkpoint, and folding is not changed by taking
 *              them (the final file equals one written without);
 *   validate   tf_trace_validate accepts a sound merged trace and refuses
 *              one whose RANKS event count of a rank is wrong (checksums
 *              intact), naming the rank; flat input is valid as opened.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "format/vseq_codec.h"
#include "merge/mtrace.h"
#include "tracefold.h"
#include "util/bytes.h"
#include "util/file_io.h"

static const tf_field_desc send_fields[] = {{"count", TF_FIELD_COUNT, 0}, {"dest", TF_FIELD_PEER, 0}};
static const tf_func_desc funcs[] = {{"MPI_Init", 0, NULL}, {"MPI_Send", 2, send_fields}};

static char workdir[64];

typedef struct spec {
  int rank, P;
  uint64_t run, run_start;
  uint32_t partial;
  int nsend;
} spec;

/* A per-rank file of kind `kind`: MPI_Init, then nsend MPI_Send. */
static void write_rank(const char *path, tf_file_kind kind, const spec *s) {
  tf_file_info info = {.rank = s->rank, .nranks = s->P, .start_unix_ns = 1000 + (uint64_t)s->rank, .exe = "/bin/prog",
                       .mpi = "MPI x", .timing = TF_TIMING_STATS, .bins = 0, .nfuncs = 2, .funcs = funcs,
                       .run_id = s->run, .run_start_unix_ns = s->run_start};
  char err[512];
  tf_file_writer *w = tf_file_writer_open(path, kind, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return;
  CHECK(tf_file_writer_callsite(w, 0, 0xabcdef, "/bin/prog", 16) == 0);
  tf_compressor c;
  if (kind == TF_FILE_COMPRESSED) {
    CHECK(tf_compressor_init(&c, funcs, 2, (size_t)1 << 20) == 0);
    tf_compressor_set_timing(&c, TF_TIMING_STATS, 0);
  }
  for (int i = 0; i <= s->nsend; i++) {
    int64_t v[2] = {i, 1};
    uint32_t fn = i ? 1 : 0, nv = i ? 2 : 0;
    if (kind == TF_FILE_FLAT)
      CHECK(tf_file_writer_event(w, fn, 0, 0, 10, 20, nv, v) == 0);
    else
      CHECK(tf_compressor_event(&c, w, fn, 0, 0, 10, 20, nv, v) >= 0);
  }
  if (kind == TF_FILE_COMPRESSED) {
    CHECK(tf_compressor_finish(&c, w) == 0);
    tf_compressor_free(&c);
  }
  if (s->partial) tf_file_writer_partial(w, s->partial);
  CHECKF(tf_file_writer_close(w, err, sizeof err) == TF_OK, "%s", err);
}

static void path_of(char *buf, size_t len, const char *dir, int rank, tf_file_kind kind) {
  snprintf(buf, len, "%s/rank-%d.%s", dir, rank, kind == TF_FILE_FLAT ? "flat" : "tfc");
}

static void empty_dir(const char *dir) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  CHECK(system(cmd) == 0);
}

static int load(const char *path, uint8_t **d, size_t *n) {
  char err[512];
  return tf_load_file(path, d, n, err, sizeof err) == TF_OK ? 0 : -1;
}

static void store(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(d, 1, n, f) == n);
  if (f) fclose(f);
}

/* The merged trace of a directory's per-rank files, encoded (zstd level 0). */
static int merged_bytes(const char *dir, tf_buf *b) {
  tf_trace *t;
  char err[512];
  if (tf_trace_open(dir, 0, &t, err, sizeof err) != TF_OK) {
    CHECKF(0, "%s", err);
    return -1;
  }
  int rc = tf_mtrace_encode(tf_trace_mtrace(t), b, 0);
  tf_trace_close(t);
  return rc;
}

/* ------------------------------------------------------------ version 2 */

/* A version-3 per-rank file made version 2: the run fields after `unit`
 * removed, the version and the CRC fixed. */
static void per_rank_to_v2(const char *in, const char *out) {
  uint8_t *d;
  size_t n;
  if (load(in, &d, &n)) return;
  tf_cursor c = {d + 12, d + n, 0};
  tf_cur_uvar(&c);
  tf_cur_uvar(&c);
  tf_cur_svar(&c);
  tf_cur_uvar(&c);
  uint64_t l = tf_cur_uvar(&c);
  tf_cur_bytes(&c, (size_t)l);
  l = tf_cur_uvar(&c);
  tf_cur_bytes(&c, (size_t)l);
  tf_cur_uvar(&c);
  tf_cur_uvar(&c);
  tf_cur_uvar(&c);
  size_t from = (size_t)(c.p - d);
  tf_cur_u64(&c);
  tf_cur_uvar(&c);
  size_t to = (size_t)(c.p - d);
  CHECK(!c.bad);
  memmove(d + from, d + to, n - to);
  n -= to - from;
  d[8] = 2;
  uint32_t crc = tf_crc32(0, d, n - 4);
  for (int k = 0; k < 4; k++) d[n - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
  store(out, d, n);
  free(d);
}

static void test_versions(void) {
  char dir[128], p[256], q[256], err[512];
  snprintf(dir, sizeof dir, "%s/v2", workdir);
  empty_dir(dir);
  /* flat: the format differs from version 2 by the run alone; converted here */
  spec s = {.rank = 1, .P = 2, .run = 0x1234, .run_start = 99, .partial = TF_PARTIAL_SIGNAL, .nsend = 5};
  path_of(p, sizeof p, dir, 1, TF_FILE_FLAT);
  write_rank(p, TF_FILE_FLAT, &s);
  snprintf(q, sizeof q, "%s/old.flat", dir);
  per_rank_to_v2(p, q);
  tf_file_reader *r3, *r2;
  CHECK(tf_file_open(p, &r3, err, sizeof err) == TF_OK);
  tf_status st = tf_file_open(q, &r2, err, sizeof err);
  CHECKF(st == TF_OK, "a version-2 flat file: %s", err);
  if (st == TF_OK) {
    const tf_file_info *i3 = tf_file_get_info(r3), *i2 = tf_file_get_info(r2);
    CHECK(i3->run_id == 0x1234 && i3->run_start_unix_ns == 99);
    CHECK(i2->run_id == 0 && i2->run_start_unix_ns == 0);
    CHECK(i2->nevents == i3->nevents && i2->partial == TF_PARTIAL_SIGNAL && strcmp(i2->exe, "/bin/prog") == 0);
    tf_event a, b;
    int ra, rb;
    while ((ra = tf_file_next(r3, &a)) == 1 && (rb = tf_file_next(r2, &b)) == 1)
      CHECK(a.fn == b.fn && a.nvals == b.nvals && (!a.nvals || a.vals[0] == b.vals[0]));
    tf_file_close(r2);
  }
  tf_file_close(r3);
  remove(q);
  /* compressed per-rank files recorded by version 2 (tests/data/v2: a run
   * that exited without MPI_Finalize): no run, partial */
  for (int r = 0; r < 2; r++) {
    snprintf(q, sizeof q, "%s/abort/rank-%d.tfc", TF_DATA_V2, r);
    st = tf_file_open(q, &r2, err, sizeof err);
    CHECKF(st == TF_OK, "a version-2 compressed file: %s", err);
    if (st != TF_OK) continue;
    const tf_file_info *i2 = tf_file_get_info(r2);
    CHECK(i2->run_id == 0 && i2->run_start_unix_ns == 0 && i2->partial == TF_PARTIAL_EXIT);
    tf_file_close(r2);
  }
  /* a version 4 file is refused as a version error */
  {
    uint8_t *d;
    size_t n;
    path_of(p, sizeof p, dir, 1, TF_FILE_FLAT);
    snprintf(q, sizeof q, "%s/v4.flat", dir);
    if (!load(p, &d, &n)) {
      d[8] = 4;
      store(q, d, n);
      free(d);
      tf_file_reader *r;
      CHECK(tf_file_open(q, &r, err, sizeof err) == TF_ERR_VERSION);
      CHECKF(strstr(err, "versions 2 to 3") != NULL, "%s", err);
    }
  }
  /* merged: the run and the per-rank reasons in version 3 ... */
  spec s0 = {.rank = 0, .P = 2, .run = 0x1234, .run_start = 99, .partial = TF_PARTIAL_CHECKPOINT, .nsend = 3};
  path_of(p, sizeof p, dir, 0, TF_FILE_COMPRESSED);
  write_rank(p, TF_FILE_COMPRESSED, &s0);
  path_of(p, sizeof p, dir, 1, TF_FILE_COMPRESSED);
  write_rank(p, TF_FILE_COMPRESSED, &s);
  path_of(p, sizeof p, dir, 1, TF_FILE_FLAT);
  remove(p);
  tf_buf b3 = {0};
  tf_trace *t;
  if (merged_bytes(dir, &b3) == 0) {
    CHECK(tf_trace_open_mem(b3.data, b3.len, "v3", &t, err, sizeof err) == TF_OK);
    if (t) {
      const tf_trace_info *in = tf_trace_get_info(t);
      CHECK(in->run_id == 0x1234 && in->run_start_unix_ns == 99 && in->partial == TF_PARTIAL_SIGNAL);
      CHECK(tf_trace_rank_partial(t, 0) == TF_PARTIAL_CHECKPOINT && tf_trace_rank_partial(t, 1) == TF_PARTIAL_SIGNAL);
      tf_trace_close(t);
    }
  }
  tf_buf_free(&b3);
  /* ... and a merged trace recorded by version 2 reads with run 0, every rank as partial as the trace */
  snprintf(q, sizeof q, "%s/timed.tf", TF_DATA_V2);
  st = tf_trace_open(q, 0, &t, err, sizeof err);
  CHECKF(st == TF_OK, "a version-2 merged file: %s", err);
  if (st == TF_OK) {
    const tf_trace_info *in = tf_trace_get_info(t);
    CHECK(in->run_id == 0 && in->nranks_present >= 1);
    for (int32_t r = 0; r < in->nranks; r++) CHECK(tf_trace_rank_partial(t, r) == in->partial);
    CHECK(tf_trace_validate(t, err, sizeof err) == TF_OK);
    tf_trace_close(t);
  }
  empty_dir(dir);
}

/* ------------------------------------------------------------ mixed runs */

/* tf_trace_open(dir) is refused, and the message names every file in `names`. */
static void expect_refused(const char *dir, unsigned flags, const char *what, const char *const *names, int n) {
  tf_trace *t = NULL;
  char err[2048] = "";
  tf_status st = tf_trace_open(dir, flags, &t, err, sizeof err);
  CHECKF(st == TF_ERR_FORMAT, "%s: %s (%s)", what, tf_status_name(st), err);
  if (t) tf_trace_close(t);
  CHECKF(strstr(err, "different runs") != NULL, "%s: %s", what, err);
  for (int i = 0; i < n; i++) CHECKF(strstr(err, names[i]) != NULL, "%s: the message does not name %s: %s", what, names[i], err);
  printf("   %s: %s\n", what, err);
}

static void test_mixed(void) {
  char dir[128], p[256], err[512];
  snprintf(dir, sizeof dir, "%s/mixed", workdir);
  for (int k = 0; k < 2; k++) { /* ranks 0, 1 of run A, ranks 2, 3 of run B (4 ranks each) */
    tf_file_kind kind = k ? TF_FILE_COMPRESSED : TF_FILE_FLAT;
    empty_dir(dir);
    for (int r = 0; r < 4; r++) {
      spec s = {.rank = r, .P = 4, .run = r < 2 ? 0xaaaa : 0xbbbb, .run_start = r < 2 ? 1000 : 2000, .nsend = 3};
      path_of(p, sizeof p, dir, r, kind);
      write_rank(p, kind, &s);
    }
    static const char *const flat_names[] = {"rank-0.flat", "rank-1.flat", "rank-2.flat", "rank-3.flat",
                                             "000000000000aaaa", "000000000000bbbb"};
    static const char *const tfc_names[] = {"rank-0.tfc", "rank-1.tfc", "rank-2.tfc", "rank-3.tfc"};
    expect_refused(dir, 0, k ? "mixed .tfc" : "mixed flat", k ? tfc_names : flat_names, k ? 4 : 6);
    /* one run only: reads */
    path_of(p, sizeof p, dir, 2, kind);
    remove(p);
    path_of(p, sizeof p, dir, 3, kind);
    remove(p);
    tf_trace *t;
    tf_status st = tf_trace_open(dir, 0, &t, err, sizeof err);
    CHECKF(st == TF_OK, "one run's files: %s", err);
    if (st == TF_OK) {
      CHECK(tf_trace_get_info(t)->run_id == 0xaaaa && tf_trace_get_info(t)->nranks_present == 2);
      tf_trace_close(t);
    }
  }
  /* trace.tf of run A beside run B's flat files */
  empty_dir(dir);
  for (int r = 0; r < 2; r++) {
    spec s = {.rank = r, .P = 2, .run = 0xaaaa, .run_start = 1000, .nsend = 2};
    path_of(p, sizeof p, dir, r, TF_FILE_COMPRESSED);
    write_rank(p, TF_FILE_COMPRESSED, &s);
  }
  tf_buf b = {0};
  if (merged_bytes(dir, &b) == 0) {
    for (int r = 0; r < 2; r++) {
      path_of(p, sizeof p, dir, r, TF_FILE_COMPRESSED);
      remove(p);
      spec s = {.rank = r, .P = 2, .run = 0xbbbb, .run_start = 2000, .nsend = 2};
      path_of(p, sizeof p, dir, r, TF_FILE_FLAT);
      write_rank(p, TF_FILE_FLAT, &s);
    }
    snprintf(p, sizeof p, "%s/%s", dir, TF_TRACE_FILE);
    store(p, b.data, b.len);
    static const char *const names[] = {"trace.tf", "rank-0.flat", "rank-1.flat"};
    expect_refused(dir, 0, "trace.tf beside another run's flat files", names, 3);
    expect_refused(dir, TF_OPEN_PREFER_FLAT, "the same, flat files preferred", names, 3);
  }
  tf_buf_free(&b);
  /* the merge itself refuses two runs */
  {
    tf_mtrace a, c;
    tf_file_reader *r;
    path_of(p, sizeof p, dir, 0, TF_FILE_FLAT);
    spec s = {.rank = 0, .P = 2, .run = 1, .run_start = 1, .nsend = 1};
    write_rank(p, TF_FILE_FLAT, &s);
    CHECK(tf_file_open(p, &r, err, sizeof err) == TF_OK && tf_mtrace_from_file(&a, r) == 0);
    tf_file_close(r);
    s = (spec){.rank = 1, .P = 2, .run = 2, .run_start = 1, .nsend = 1};
    path_of(p, sizeof p, dir, 1, TF_FILE_FLAT);
    write_rank(p, TF_FILE_FLAT, &s);
    CHECK(tf_file_open(p, &r, err, sizeof err) == TF_OK && tf_mtrace_from_file(&c, r) == 0);
    tf_file_close(r);
    CHECK(tf_mtrace_merge(&a, &c, err, sizeof err) != 0 && strstr(err, "different runs"));
    tf_mtrace_free(&a);
  }
  empty_dir(dir);
}

/* ------------------------------------------------------------ partial reasons */

static void test_partial(void) {
  char dir[128], p[256], err[512];
  snprintf(dir, sizeof dir, "%s/partial", workdir);
  empty_dir(dir);
  static const uint32_t why[3] = {TF_PARTIAL_CHECKPOINT, TF_PARTIAL_SIGNAL, TF_PARTIAL_CHECKPOINT};
  for (int r = 0; r < 3; r++) {
    spec s = {.rank = r, .P = 3, .run = 7, .run_start = 7, .partial = why[r], .nsend = r + 1};
    path_of(p, sizeof p, dir, r, TF_FILE_COMPRESSED);
    write_rank(p, TF_FILE_COMPRESSED, &s);
  }
  tf_trace *t;
  tf_status st = tf_trace_open(dir, 0, &t, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  if (st != TF_OK) return;
  CHECK(tf_trace_get_info(t)->partial == TF_PARTIAL_SIGNAL);
  for (int r = 0; r < 3; r++) CHECKF(tf_trace_rank_partial(t, r) == why[r], "rank %d: %u", r, tf_trace_rank_partial(t, r));
  CHECK(tf_trace_rank_partial(t, 3) == 0 && tf_trace_rank_partial(t, -1) == 0);
  tf_buf b = {0};
  CHECK(tf_mtrace_encode(tf_trace_mtrace(t), &b, 3) == 0);
  tf_trace_close(t);
  st = tf_trace_open_mem(b.data, b.len, "merged", &t, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  if (st == TF_OK) {
    for (int r = 0; r < 3; r++) CHECK(tf_trace_rank_partial(t, r) == why[r]);
    CHECK(tf_trace_get_info(t)->run_id == 7);
    tf_trace_close(t);
  }
  tf_buf_free(&b);
  empty_dir(dir);
}

/* ------------------------------------------------------------ checkpoint */

/* Event i of the test stream: loops of MPI_Send with counts 0..k, and
 * noise (random dest) now and then. */
static void stream_event(uint64_t i, uint32_t *fn, int64_t v[2], uint32_t *nv) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  if (i == 0) {
    *fn = 0;
    *nv = 0;
    return;
  }
  *fn = 1;
  *nv = 2;
  v[0] = (int64_t)(i % 7);
  v[1] = z % 13 == 0 ? (int64_t)(z % 1000) : 1;
}

static void push_one(tf_compressor *c, tf_file_writer *w, uint64_t i, uint32_t *sites) {
  uint32_t fn, nv;
  int64_t v[2];
  stream_event(i, &fn, v, &nv);
  uint32_t site = (uint32_t)(i % 3);
  if (site >= *sites) { /* sites 0, 1, 2 declared in order of first use */
    CHECK(tf_file_writer_callsite(w, *sites, 0x1000 + *sites, "m", *sites) == 0);
    (*sites)++;
  }
  CHECK(tf_compressor_event(c, w, fn, 0, site, 10 + i % 5, 20, nv, v) >= 0);
}

static void test_checkpoint(void) {
  char dir[128], p[256], q[256], err[512];
  snprintf(dir, sizeof dir, "%s/ckpt", workdir);
  empty_dir(dir);
  snprintf(p, sizeof p, "%s/rank-0.tfc", dir);
  snprintf(q, sizeof q, "%s/plain.tfc", dir);
  enum { N = 150000 };
  for (int with = 1; with >= 0; with--) {
    tf_file_info info = {.rank = 0, .nranks = 1, .exe = "x", .mpi = "y", .timing = TF_TIMING_PATH, .bins = 5,
                         .nfuncs = 2, .funcs = funcs, .run_id = 5, .run_start_unix_ns = 5};
    tf_file_writer *w = tf_file_writer_open_lazy(with ? p : q, TF_FILE_COMPRESSED, &info, err, sizeof err);
    CHECK(w != NULL);
    if (!w) return;
    tf_compressor c;
    CHECK(tf_compressor_init(&c, funcs, 2, 4096) == 0); /* a small cap: many segments */
    tf_compressor_set_timing(&c, TF_TIMING_PATH, 5);
    uint32_t sites = 0;
    int checks = 0, copied = 0;
    for (uint64_t i = 0; i < N; i++) {
      push_one(&c, w, i, &sites);
      if (!with || !(i < 20 || i % 19997 == 0 || i == N - 1)) continue;
      tf_buf seg = {0};
      uint64_t segev;
      tf_file_snapshot snap;
      CHECK(tf_compressor_snapshot(&c, &seg, &segev) == 0);
      CHECK(tf_file_writer_snapshot(w, seg.data, seg.len, segev, 0, TF_PARTIAL_CHECKPOINT, &snap) == 0);
      copied += snap.prefix > 0;
      CHECK(tf_file_snapshot_write(&snap, p) == 0);
      tf_file_snapshot_free(&snap);
      tf_buf_free(&seg);
      tf_file_reader *r;
      tf_status st = tf_file_open(p, &r, err, sizeof err);
      CHECKF(st == TF_OK, "the checkpoint after event %" PRIu64 ": %s", i, err);
      if (st != TF_OK) break;
      const tf_file_info *in = tf_file_get_info(r);
      CHECKF(in->nevents == i + 1 && in->partial == TF_PARTIAL_CHECKPOINT && in->run_id == 5,
             "after event %" PRIu64 ": %" PRIu64 " events, partial %u", i, in->nevents, in->partial);
      tf_event ev;
      uint64_t k = 0;
      int rc;
      while ((rc = tf_file_next(r, &ev)) == 1) {
        uint32_t fn, nv;
        int64_t v[2];
        stream_event(k, &fn, v, &nv);
        if (ev.fn != fn || ev.nvals != nv || (nv && (ev.vals[0] != v[0] || ev.vals[1] != v[1]))) {
          CHECKF(0, "the checkpoint after event %" PRIu64 ": event %" PRIu64 " differs", i, k);
          break;
        }
        k++;
      }
      CHECKF(rc == 0 && k == i + 1, "the checkpoint after event %" PRIu64 ": %" PRIu64 " events read (%s)", i, k,
             tf_file_error(r));
      tf_file_close(r);
      checks++;
    }
    CHECK(tf_compressor_finish(&c, w) == 0);
    tf_compressor_free(&c);
    CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
    if (with) {
      CHECKF(copied > 0, "no checkpoint copied a flushed prefix (%d checkpoints)", checks);
      printf("   %d checkpoints read back, %d of them with a flushed prefix copied\n", checks, copied);
    }
  }
  uint8_t *a, *b;
  size_t na, nb;
  if (!load(p, &a, &na) && !load(q, &b, &nb)) {
    CHECKF(na == nb && memcmp(a, b, na) == 0, "checkpoints changed what was written (%zu vs %zu bytes)", na, nb);
    free(a);
    free(b);
  }
  empty_dir(dir);
}

/* ------------------------------------------------------------ validate */

static void test_validate(void) {
  char dir[128], p[256], err[512];
  snprintf(dir, sizeof dir, "%s/validate", workdir);
  empty_dir(dir);
  for (int r = 0; r < 4; r++) {
    spec s = {.rank = r, .P = 4, .run = 9, .run_start = 9, .nsend = 10 + r % 2};
    path_of(p, sizeof p, dir, r, TF_FILE_COMPRESSED);
    write_rank(p, TF_FILE_COMPRESSED, &s);
  }
  tf_trace *t;
  CHECK(tf_trace_open(dir, 0, &t, err, sizeof err) == TF_OK);
  if (!t) return;
  CHECKF(tf_trace_validate(t, err, sizeof err) == TF_OK, "%s", err);
  tf_mtrace *m = tf_trace_mtrace(t);
  /* rank 2 declares one event more than its part of the structure holds */
  tf_vseq_free(&m->nevents, &m->mem);
  for (int r = 0; r < 4; r++) tf_vseq_push(&m->nevents, 1 + 10 + r % 2 + (r == 2), &m->mem);
  tf_buf b = {0};
  CHECK(tf_mtrace_encode(m, &b, 9) == 0);
  tf_trace_close(t);
  tf_status st = tf_trace_open_mem(b.data, b.len, "forged", &t, err, sizeof err);
  CHECKF(st == TF_OK, "the forged trace (checksums intact) opens: %s", err);
  if (st == TF_OK) {
    err[0] = 0;
    st = tf_trace_validate(t, err, sizeof err);
    CHECKF(st == TF_ERR_FORMAT && strstr(err, "rank 2"), "%s: %s", tf_status_name(st), err);
    printf("   forged RANKS count: %s\n", err);
    tf_trace_close(t);
  }
  tf_buf_free(&b);
  /* flat input: valid as opened */
  empty_dir(dir);
  spec s = {.rank = 0, .P = 1, .run = 9, .run_start = 9, .nsend = 3};
  path_of(p, sizeof p, dir, 0, TF_FILE_FLAT);
  write_rank(p, TF_FILE_FLAT, &s);
  CHECK(tf_trace_open(dir, 0, &t, err, sizeof err) == TF_OK);
  if (t) {
    CHECK(tf_trace_validate(t, err, sizeof err) == TF_OK);
    tf_trace_close(t);
  }
  empty_dir(dir);
}

int main(int argc, char **argv) {
  snprintf(workdir, sizeof workdir, "runs_tmp_XXXXXX");
  if (!mkdtemp(workdir)) {
    perror("mkdtemp");
    return 2;
  }
  static const test_case cases[] = {
      {"versions", test_versions},
      {"mixed", test_mixed},
      {"partial", test_partial},
      {"checkpoint", test_checkpoint},
      {"validate", test_validate},
  };
  int rc = run_cases("test_runs", cases, TEST_NCASES(cases), argc, argv);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
  if (system(cmd) != 0) rc = rc ? rc : 1;
  return rc;
}
