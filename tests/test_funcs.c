/* test_funcs.c — a trace's function table holds the functions it uses,
 * no others (doc/FORMAT.md 2.1, 3.3), and readers refuse an event that
 * names a function outside it. The table given to the writers is the
 * recorder's whole schema (gen/mpi.table, 281 functions and more); the
 * events use a few of them. Cases:
 *
 *   compressed  a per-rank compressed file declares exactly the functions
 *               its events use, in order of first use, with the schema's
 *               fields, and its events read back under their names;
 *   merged      two ranks using different functions merge into a trace
 *               whose FUNCS is exactly their union, each rank's events
 *               named right; functions added to a merged structure but
 *               named by no node are left out of the file;
 *   forged      an event (or a previous call of a time path) naming a
 *               function outside FUNCS, in a merged trace, and a segment
 *               naming a function its file has not declared before it, are
 *               refused with a message naming the problem.
 *
 * Command line: tests/check.h. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fold/folder.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "format/rank_reader.h"
#include "format/segment.h"
#include "merge/mtrace.h"
#include "tf_schema.h"
#include "tracefold.h"

/* The schema's index of function `name` (the test stops if it is missing). */
static uint32_t schema_fn(const char *name) {
  for (uint32_t f = 0; f < TF_FN_COUNT; f++)
    if (strcmp(tf_schema[f].name, name) == 0) return f;
  fprintf(stderr, "test_funcs: %s is not in the schema\n", name);
  exit(2);
}

/* Values that fit any function's fields: 7 for a scalar, an empty array. */
static uint32_t fitting_values(uint32_t fn, int64_t *vals) {
  for (uint32_t k = 0; k < tf_schema[fn].nfields; k++) vals[k] = tf_schema[fn].fields[k].is_array ? 0 : 7;
  return tf_schema[fn].nfields;
}

static tf_file_info info_for(int rank, int nranks) {
  return (tf_file_info){.rank = rank, .nranks = nranks, .exe = "funcs", .mpi = "none", .timing = TF_TIMING_PATH,
                        .bins = TF_BINS_DEFAULT, .run_id = 42, .run_start_unix_ns = 1, .nfuncs = TF_FN_COUNT,
                        .funcs = tf_schema};
}

/* Rank `rank`'s compressed file, in memory (*len bytes; NULL on failure):
 * 20 rounds of the functions named in `names` (n of them), one call site
 * each. */
static uint8_t *write_rank(int rank, int nranks, const char *const *names, uint32_t n, size_t *len) {
  char err[512] = "";
  tf_file_info info = info_for(rank, nranks);
  tf_file_writer *w = tf_file_writer_open_lazy("funcs.tfc", TF_FILE_COMPRESSED, &info, err, sizeof err);
  CHECKF(w != NULL, "%s", err);
  if (!w) return NULL;
  tf_compressor c;
  CHECK(tf_compressor_init(&c, tf_schema, TF_FN_COUNT, (size_t)1 << 20) == 0);
  tf_compressor_set_timing(&c, TF_TIMING_PATH, TF_BINS_DEFAULT);
  for (uint32_t s = 0; s < n; s++) CHECK(tf_file_writer_callsite(w, s, 0x1000 + s, "funcs", s) == 0);
  int64_t vals[64];
  for (int round = 0; round < 20; round++)
    for (uint32_t s = 0; s < n; s++) {
      uint32_t fn = schema_fn(names[s]);
      uint32_t nv = fitting_values(fn, vals);
      CHECKF(tf_compressor_event(&c, w, fn, 0, s, 100 + (uint64_t)round, 5, nv, vals) == 0, "event of %s", names[s]);
    }
  CHECK(tf_compressor_finish(&c, w) == 0);
  tf_compressor_free(&c);
  uint8_t *data = NULL;
  int on_disk = 0;
  CHECKF(tf_file_writer_finish_mem(w, &data, len, &on_disk, err, sizeof err) == TF_OK && !on_disk, "%s", err);
  return data;
}

/* The table (funcs, n) holds exactly the functions named in `names`, in
 * that order, each with the schema's fields. */
static void check_table(const tf_func_desc *funcs, uint32_t n, const char *const *names, uint32_t nnames,
                        const char *what) {
  CHECKF(n == nnames, "%s: %u functions in the table, the events use %u", what, n, nnames);
  for (uint32_t f = 0; f < n && f < nnames; f++) {
    const tf_func_desc *want = &tf_schema[schema_fn(names[f])];
    int same = strcmp(funcs[f].name, want->name) == 0 && funcs[f].nfields == want->nfields;
    for (uint32_t k = 0; same && k < want->nfields; k++)
      same = funcs[f].fields[k].kind == want->fields[k].kind && funcs[f].fields[k].is_array == want->fields[k].is_array &&
             strcmp(funcs[f].fields[k].name, want->fields[k].name) == 0;
    CHECKF(same, "%s: function %u is %s, expected %s with the schema's fields", what, f, funcs[f].name, want->name);
  }
}

static const char *const rank0_names[] = {"MPI_Barrier", "MPI_Allreduce", "MPI_Isend", "MPI_Wait"};
static const char *const rank1_names[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Irecv", "MPI_Wait"};
static const char *const union_names[] = {"MPI_Barrier", "MPI_Allreduce", "MPI_Isend", "MPI_Wait", "MPI_Bcast",
                                          "MPI_Irecv"};
#define NNAMES(a) ((uint32_t)(sizeof a / sizeof a[0]))

static void test_compressed(void) {
  size_t len;
  uint8_t *data = write_rank(0, 1, rank0_names, NNAMES(rank0_names), &len);
  if (!data) return;
  tf_file_reader *r;
  char err[512];
  tf_status st = tf_file_open_mem(data, len, "rank 0", &r, err, sizeof err);
  CHECKF(st == TF_OK, "%s", err);
  if (st != TF_OK) return;
  const tf_file_info *in = tf_file_get_info(r);
  check_table(in->funcs, in->nfuncs, rank0_names, NNAMES(rank0_names), "compressed file");
  tf_event ev;
  uint64_t k = 0;
  int rc;
  while ((rc = tf_file_next(r, &ev)) == 1) {
    const char *want = rank0_names[k % NNAMES(rank0_names)];
    CHECKF(ev.fn < in->nfuncs && strcmp(in->funcs[ev.fn].name, want) == 0, "event %" PRIu64 ": function %u, expected %s",
           k, ev.fn, want);
    k++;
  }
  CHECK(rc == 0 && k == 20 * NNAMES(rank0_names));
  printf("   %zu bytes, %u of the schema's %u functions declared\n", len, in->nfuncs, (unsigned)TF_FN_COUNT);
  tf_file_close(r);
}

/* The merged structure of ranks 0 and 1 (0, or -1 after a failed check). */
static int merged_pair(tf_mtrace *t) {
  const char *const *names[2] = {rank0_names, rank1_names};
  uint32_t nnames[2] = {NNAMES(rank0_names), NNAMES(rank1_names)};
  tf_mtrace part[2];
  char err[512];
  for (int rank = 0; rank < 2; rank++) {
    size_t len;
    uint8_t *data = write_rank(rank, 2, names[rank], nnames[rank], &len);
    tf_file_reader *r = NULL;
    if (!data || tf_file_open_mem(data, len, "a rank", &r, err, sizeof err) != TF_OK) {
      CHECKF(0, "rank %d: %s", rank, data ? err : "not written");
      if (rank) tf_mtrace_free(&part[0]);
      return -1;
    }
    CHECK(tf_mtrace_from_file(&part[rank], r) == 0);
    tf_file_close(r);
  }
  CHECKF(tf_mtrace_merge(&part[0], &part[1], err, sizeof err) == 0, "%s", err);
  *t = part[0];
  return 0;
}

/* t encoded (zstd level 0) and opened as a trace; NULL with the reader's
 * message in err. */
static tf_trace *encode_open(tf_mtrace *t, char *err, size_t errlen) {
  tf_buf b = {0};
  CHECK(tf_mtrace_encode(t, &b, 0) == 0);
  tf_trace *tr = NULL;
  if (tf_trace_open_mem(b.data, b.len, "trace.tf", &tr, err, errlen) != TF_OK) tr = NULL;
  tf_buf_free(&b);
  return tr;
}

static void test_merged(void) {
  tf_mtrace t;
  if (merged_pair(&t)) return;
  /* two functions the nodes do not name: the file leaves them out */
  CHECK(tf_functable_add(&t.ft, &tf_schema[schema_fn("MPI_Send")]) == 0);
  CHECK(tf_functable_add(&t.ft, &tf_schema[schema_fn("MPI_Finalize")]) == 0);
  char err[512];
  tf_trace *tr = encode_open(&t, err, sizeof err);
  tf_mtrace_free(&t);
  CHECKF(tr != NULL, "%s", err);
  if (!tr) return;
  const tf_trace_info *in = tf_trace_get_info(tr);
  check_table(in->funcs, in->nfuncs, union_names, NNAMES(union_names), "merged trace");
  const char *const *names[2] = {rank0_names, rank1_names};
  for (int rank = 0; rank < 2; rank++) {
    tf_rank_cursor *c = NULL;
    CHECK(tf_rank_cursor_open(tr, rank, &c, err, sizeof err) == TF_OK);
    if (!c) continue;
    tf_event ev;
    uint64_t k = 0;
    int rc;
    while ((rc = tf_rank_cursor_next(c, &ev)) == 1) {
      const char *want = names[rank][k % 4];
      CHECKF(ev.fn < in->nfuncs && strcmp(in->funcs[ev.fn].name, want) == 0,
             "rank %d event %" PRIu64 ": function %u, expected %s", rank, k, ev.fn, want);
      k++;
    }
    CHECKF(rc == 0 && k == 80, "rank %d: %" PRIu64 " events, rc %d", rank, k, rc);
    tf_rank_cursor_close(c);
  }
  printf("   FUNCS: %u functions, the union of the ranks'\n", in->nfuncs);
  tf_trace_close(tr);
}

/* The first event node of a node list (depth first), or NULL. */
static tf_mnode *first_event(tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_mnode *e = x[i]->is_loop ? first_event(x[i]->body, x[i]->nbody) : x[i];
    if (e) return e;
  }
  return NULL;
}

/* The first time path (depth first) that follows a previous call, or NULL. */
static tf_gpath *first_prev_path(tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop) {
      tf_gpath *p = first_prev_path(x[i]->body, x[i]->nbody);
      if (p) return p;
      continue;
    }
    for (uint32_t j = 0; j < x[i]->timing.npaths; j++)
      if (x[i]->timing.paths[j].prev_fn != TF_PREV_NONE) return &x[i]->timing.paths[j];
  }
  return NULL;
}

/* A compressed file whose one-event segment names function 1 of the file;
 * `declare` functions declared before the segment (schema order), `after`
 * after it. Returns what the reader says (message in err). */
static tf_status hand_file(uint32_t declare, uint32_t after, char *err, size_t errlen) {
  tf_file_info info = info_for(0, 1);
  tf_file_writer *w = tf_file_writer_open_lazy("hand.tfc", TF_FILE_COMPRESSED, &info, err, errlen);
  if (!w) return TF_ERR_IO;
  uint32_t fns[2] = {schema_fn("MPI_Barrier"), schema_fn("MPI_Finalize")};
  for (uint32_t i = 0; i < declare; i++) CHECK(tf_file_writer_function(w, fns[i]) == i);
  CHECK(tf_file_writer_callsite(w, 0, 0x77, "hand", 1) == 0);
  tf_folder f;
  tf_folder_init(&f);
  int64_t vals[64];
  CHECK(tf_folder_push(&f, 1, 0, 0, 10, 2, TF_PREV_NONE, TF_PREV_NONE, fitting_values(fns[1], vals), vals) == 0);
  tf_folder_seal(&f);
  tf_buf seg = {0};
  tf_segment_encode(&seg, f.seq, f.n, NULL);
  CHECK(!seg.failed && tf_file_writer_segment(w, seg.data, seg.len, f.nevents) == 0);
  tf_buf_free(&seg);
  tf_folder_reset(&f);
  for (uint32_t i = declare; i < declare + after; i++) CHECK(tf_file_writer_function(w, fns[i]) == i);
  uint8_t *data = NULL;
  size_t len = 0;
  int on_disk = 0;
  CHECK(tf_file_writer_finish_mem(w, &data, &len, &on_disk, err, errlen) == TF_OK);
  tf_file_reader *r = NULL;
  tf_status st = tf_file_open_mem(data, len, "hand.tfc", &r, err, errlen);
  tf_file_close(r);
  return st;
}

static void test_forged(void) {
  char err[512];
  /* merged: an event node, then a time path, naming the function just past FUNCS */
  for (int path = 0; path < 2; path++) {
    tf_mtrace t;
    if (merged_pair(&t)) return;
    tf_mnode *e = first_event(t.top, t.ntop);
    tf_gpath *p = first_prev_path(t.top, t.ntop);
    CHECK(e != NULL && p != NULL);
    if (!e || !p) {
      tf_mtrace_free(&t);
      return;
    }
    if (path) {
      p->prev_fn = t.ft.n;
      for (uint32_t g = 0; g < p->n; g++) p->g[g].t.prev_fn = t.ft.n;
    } else {
      e->fn = t.ft.n;
    }
    tf_trace *tr = encode_open(&t, err, sizeof err);
    tf_mtrace_free(&t);
    const char *want = path ? "previous function out of range" : "unknown function index";
    CHECKF(tr == NULL && strstr(err, "trace.tf") && strstr(err, "NODES") && strstr(err, want),
           "a merged trace naming a function outside FUNCS (%s): %s", path ? "time path" : "event",
           tr ? "accepted" : err);
    printf("   refused: %s\n", err);
    tf_trace_close(tr);
  }
  /* compressed: a segment may name only functions declared before it */
  tf_status st = hand_file(2, 0, err, sizeof err);
  CHECKF(st == TF_OK, "both functions declared first: %s", err);
  for (uint32_t declare = 0; declare < 2; declare++) {
    st = hand_file(declare, 2 - declare, err, sizeof err);
    CHECKF(st == TF_ERR_FORMAT && strstr(err, "hand.tfc") && strstr(err, "unknown function index"),
           "%u function(s) declared before the segment, %u after: %s", declare, 2 - declare, err);
    printf("   refused: %s\n", err);
  }
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"compressed", test_compressed},
      {"merged", test_merged},
      {"forged", test_forged},
  };
  return run_cases("test_funcs", cases, TEST_NCASES(cases), argc, argv);
}
