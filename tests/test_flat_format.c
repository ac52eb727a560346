/* test_flat_format.c — unit tests of the flat trace format: the writer's
 * output reads back event-for-event, and damaged files (truncated at every
 * length, any single byte flipped, wrong version, wrong magic) are refused
 * with an error status instead of a crash. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"
#include "check.h"
#include "format/flat_writer.h"
#include "tracefold.h"


static const tf_field_desc send_fields[] = {{"count", TF_FIELD_COUNT, 0}, {"dest", TF_FIELD_PEER, 0},
                                            {"counts", TF_FIELD_COUNT, 1}};
static const tf_func_desc funcs[] = {{"MPI_Init", 0, NULL}, {"MPI_Send", 3, send_fields}};

static void write_sample(const char *path, int nevents) {
  tf_file_info info = {.rank = 1, .nranks = 4, .thread_level = 0, .start_unix_ns = 42, .exe = "prog",
                       .mpi = "MPI x", .nfuncs = 2, .funcs = funcs};
  char err[256];
  tf_file_writer *w = tf_file_writer_open(path, TF_FILE_FLAT, &info, err, sizeof err);
  CHECK(w != NULL);
  if (!w) return;
  tf_file_writer_callsite(w, 0, 0x1234, "prog", 77);
  tf_file_writer_event(w, 0, 0, 0, 5, 6, 0, NULL);
  for (int i = 0; i < nevents; i++) {
    int64_t v[] = {i, i % 2 ? -1 : TF_PROC_NULL, 2, INT64_MAX, TF_NONE};
    tf_file_writer_event(w, 1, (uint32_t)(i % 3), 0, (uint64_t)i * 1000, 17, 5, v);
  }
  CHECK(tf_file_writer_close(w, err, sizeof err) == TF_OK);
}

static void test_round_trip(void) {
  const char *path = "flat_rt.flat";
  write_sample(path, 1000);
  tf_file_reader *r;
  char err[256];
  CHECK(tf_file_open(path, &r, err, sizeof err) == TF_OK);
  if (!r) return;
  const tf_file_info *fi = tf_file_get_info(r);
  CHECK(fi->rank == 1 && fi->nranks == 4 && fi->nevents == 1001 && fi->ncallsites == 1);
  CHECK(strcmp(fi->exe, "prog") == 0 && strcmp(fi->funcs[1].name, "MPI_Send") == 0);
  CHECK(fi->funcs[1].fields[2].is_array == 1 && fi->callsites[0].sig == 0x1234 && fi->callsites[0].offset == 77);
  tf_event ev;
  CHECK(tf_file_next(r, &ev) == 1 && ev.fn == 0 && ev.compute_ns == 5 && ev.duration_ns == 6);
  for (int i = 0; i < 1000; i++) {
    CHECK(tf_file_next(r, &ev) == 1);
    CHECK(ev.fn == 1 && ev.nvals == 5 && ev.vals[0] == i && ev.vals[1] == (i % 2 ? -1 : TF_PROC_NULL));
    CHECK(ev.vals[3] == INT64_MAX && ev.vals[4] == TF_NONE && ev.thread == (uint32_t)(i % 3));
    CHECK(ev.compute_ns == (uint64_t)i * 1000 && ev.callsite == 0x1234);
  }
  CHECK(tf_file_next(r, &ev) == 0);
  tf_file_close(r);
  remove(path);
}

static long file_bytes(const char *path, unsigned char **data) {
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  *data = malloc((size_t)n);
  if (fread(*data, 1, (size_t)n, f) != (size_t)n) n = -1;
  fclose(f);
  return n;
}

static void put_bytes(const char *path, const unsigned char *d, long n) {
  FILE *f = fopen(path, "wb");
  fwrite(d, 1, (size_t)n, f);
  fclose(f);
}

static void test_damaged(void) {
  write_sample("flat_ok.flat", 20);
  unsigned char *d;
  long n = file_bytes("flat_ok.flat", &d);
  CHECK(n > 40);
  char err[256];
  tf_file_reader *r;
  for (long len = 0; len < n; len++) { /* every truncation */
    put_bytes("flat_bad.flat", d, len);
    tf_status st = tf_file_open("flat_bad.flat", &r, err, sizeof err);
    CHECK(st != TF_OK && r == NULL);
    CHECK(strstr(err, "flat_bad.flat") != NULL);
  }
  for (long i = 0; i < n; i++) { /* every single-byte corruption */
    unsigned char *c = malloc((size_t)n);
    memcpy(c, d, (size_t)n);
    c[i] ^= 0x5a;
    put_bytes("flat_bad.flat", c, n);
    CHECK(tf_file_open("flat_bad.flat", &r, err, sizeof err) != TF_OK);
    free(c);
  }
  unsigned char *c = malloc((size_t)n);
  memcpy(c, d, (size_t)n);
  c[8] = 99; /* version */
  put_bytes("flat_bad.flat", c, n);
  CHECK(tf_file_open("flat_bad.flat", &r, err, sizeof err) == TF_ERR_VERSION);
  CHECK(strstr(err, "version 99") != NULL);
  memcpy(c, d, (size_t)n);
  c[0] = 'X';
  put_bytes("flat_bad.flat", c, n);
  CHECK(tf_file_open("flat_bad.flat", &r, err, sizeof err) == TF_ERR_FORMAT);
  CHECK(tf_file_open("does-not-exist.flat", &r, err, sizeof err) == TF_ERR_IO);
  CHECK(strstr(err, "does-not-exist.flat") != NULL);
  free(c);
  free(d);
  remove("flat_ok.flat");
  remove("flat_bad.flat");
}

static void test_crc32(void) {
  /* the standard check value, and equality of split and whole computations at every split */
  CHECK(tf_crc32(0, "123456789", 9) == 0xCBF43926u);
  unsigned char buf[100];
  for (int i = 0; i < 100; i++) buf[i] = (unsigned char)(i * 37 + 11);
  uint32_t whole = tf_crc32(0, buf, sizeof buf);
  for (size_t k = 0; k <= sizeof buf; k++) CHECK(tf_crc32(tf_crc32(0, buf, k), buf + k, sizeof buf - k) == whole);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"crc32", test_crc32},
      {"round_trip", test_round_trip},
      {"damaged", test_damaged},
  };
  return run_cases("test_flat_format", cases, TEST_NCASES(cases), argc, argv);
}
