/* test_container.c — the merged trace's container of version 6
 * (doc/FORMAT.md 3.1; src/core/merge/container.c) and its built-in
 * dictionary (src/core/format/trace_dict.c):
 *
 *   dictionary  its bytes are frozen (their CRC-32 is the one documented)
 *               and are what they say: a function table that decodes, of
 *               281 MPI functions;
 *   round_trip  sections in, the same sections out, for each codec the
 *               writer can pick: stored (level 0), zstd, and zstd over the
 *               dictionary, which it picks for a body of function names;
 *   damaged     every truncation is TF_ERR_TRUNCATED, every flipped byte
 *               TF_ERR_CHECKSUM (or, in magic and version, their errors),
 *               a body with a section running past its end or of id 0,
 *               CRC made valid, TF_ERR_FORMAT. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format/functable.h"
#include "format/trace_dict.h"
#include "merge/container.h"

static void test_dictionary(void) {
  size_t len;
  const uint8_t *d = tf_trace_dict(&len);
  CHECKF(tf_crc32(0, d, len) == TF_TRACE_DICT_CRC, "dictionary CRC %08x, documented %08x: its bytes changed",
         tf_crc32(0, d, len), TF_TRACE_DICT_CRC);
  tf_functable ft = {0};
  tf_cursor c = {d, d + len, 0};
  CHECK(tf_functable_decode(&c, &ft) == 0 && c.p == c.end);
  CHECKF(ft.n == 281, "%u functions", ft.n);
  for (uint32_t i = 0; i < ft.n; i++) CHECKF(strncmp(ft.funcs[i].name, "MPI_", 4) == 0, "function %u: %s", i, ft.funcs[i].name);
  tf_functable_free(&ft);
}

/* A body of three sections: INFO-like bytes, the dictionary's first
 * functions (names the dictionary holds), and a long run. */
static void sample_body(tf_body *body) {
  size_t len;
  const uint8_t *d = tf_trace_dict(&len);
  tf_buf s = {0};
  tf_buf_put_str(&s, "/some/where/wl_ring");
  tf_container_put_section(body, 1, &s);
  s.len = 0;
  tf_buf_put_bytes(&s, d + 2, 600);
  tf_container_put_section(body, 2, &s);
  s.len = 0;
  for (int i = 0; i < 300; i++) tf_buf_put_u8(&s, (uint8_t)(i % 7));
  tf_container_put_section(body, 5, &s);
  tf_buf_free(&s);
}

static void test_round_trip(void) {
  tf_body body = {0};
  sample_body(&body);
  for (int level = 0; level <= 9; level += 9) {
    tf_buf f = {0};
    tf_container_put_file(&f, &body, level);
    CHECKF(f.len > 13 && f.data[12] == (level ? 2 : 0), "level %d: codec %u", level, f.len > 13 ? f.data[12] : 255);
    tf_container c;
    char err[256];
    CHECKF(tf_container_read(f.data, f.len, "sample", &c, err, sizeof err) == TF_OK, "level %d: %s", level, err);
    CHECK(c.version == TF_TRACE_VERSION && c.n == 3);
    tf_body again = {0};
    for (uint32_t i = 0; i < c.n; i++) {
      tf_buf s = {.data = (uint8_t *)c.sec[i].data, .len = c.sec[i].len};
      tf_container_put_section(&again, c.sec[i].id, &s);
    }
    CHECK(again.b.len == body.b.len && memcmp(again.b.data, body.b.data, body.b.len) == 0);
    uint32_t version;
    tf_section first;
    uint8_t buf[4096];
    CHECK(tf_container_first_section(f.data, f.len, buf, sizeof buf, &version, &first) == TF_OK && first.id == 1 &&
          first.len == c.sec[0].len && memcmp(first.data, c.sec[0].data, first.len) == 0);
    tf_body_free(&again);
    tf_container_free(&c);
    tf_buf_free(&f);
  }
  tf_body_free(&body);
}

/* A section written in place around ranges of the caller's (tf_body_put_ext, as a trace's flat runs are):
 * the file reads back as the same section with the ranges copied in, small (compressed whole) and large
 * (streamed), stored too. */
static void test_ranges(void) {
  for (size_t big = 0; big < 2; big++) {
    size_t n = big ? (size_t)3 << 20 : 2000;
    uint8_t *r1 = malloc(n), *r2 = malloc(n / 3);
    for (size_t i = 0; i < n; i++) r1[i] = (uint8_t)((i * 2654435761u) >> 13 & (i % 5 ? 0x0f : 0xff));
    for (size_t i = 0; i < n / 3; i++) r2[i] = (uint8_t)(i % 11);
    tf_body body = {0};
    tf_buf s = {0}, want = {0};
    tf_buf_put_str(&s, "info");
    tf_container_put_section(&body, 1, &s);
    size_t at = tf_container_open_section(&body, 5);
    tf_buf_put_uvar(&body.b, 2);
    tf_buf_put_uvar(&want, 2);
    tf_body_put_ext(&body, r1, n);
    tf_buf_put_bytes(&want, r1, n);
    tf_buf_put_u8(&body.b, 7);
    tf_buf_put_u8(&want, 7);
    tf_body_put_ext(&body, r2, n / 3);
    tf_buf_put_bytes(&want, r2, n / 3);
    tf_container_close_section(&body, at);
    tf_container_put_section(&body, 6, &s);
    for (int level = 0; level <= 9; level += 9) {
      tf_buf f = {0};
      tf_container_put_file(&f, &body, level);
      tf_container c;
      char err[256];
      CHECKF(tf_container_read(f.data, f.len, "ranges", &c, err, sizeof err) == TF_OK, "%zu bytes, level %d: %s", n,
             level, err);
      CHECKF(c.n == 3 && c.sec[1].id == 5 && c.sec[1].len == want.len && memcmp(c.sec[1].data, want.data, want.len) == 0 &&
                 c.sec[2].id == 6 && c.sec[2].len == s.len,
             "%zu bytes, level %d: the sections differ", n, level);
      CHECKF(level ? f.len < want.len : f.len > want.len, "%zu bytes, level %d: file of %zu bytes", n, level, f.len);
      tf_container_free(&c);
      tf_buf_free(&f);
    }
    tf_body_free(&body);
    tf_buf_free(&s);
    tf_buf_free(&want);
    free(r1);
    free(r2);
  }
}

static tf_status read_status(const uint8_t *d, size_t n) {
  tf_container c;
  char err[256];
  tf_status st = tf_container_read(d, n, "damaged", &c, err, sizeof err);
  if (st == TF_OK) tf_container_free(&c);
  return st;
}

static void put_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void test_damaged(void) {
  tf_body body = {0};
  tf_buf f = {0};
  sample_body(&body);
  tf_container_put_file(&f, &body, 9);
  uint8_t *c = malloc(f.len);
  for (size_t n = 0; n < f.len; n++) {
    memcpy(c, f.data, n);
    tf_status st = read_status(c, n);
    CHECKF(n < 12 ? st != TF_OK : st == TF_ERR_TRUNCATED, "truncated to %zu: %s", n, tf_status_name(st));
  }
  for (size_t i = 0; i < f.len; i++) {
    memcpy(c, f.data, f.len);
    c[i] ^= 0x10;
    tf_status st = read_status(c, f.len);
    CHECKF(i < 12 ? st != TF_OK : st == TF_ERR_CHECKSUM, "byte %zu flipped: %s", i, tf_status_name(st));
  }
  /* stored bodies whose sections are malformed, CRC valid */
  static const uint8_t bodies[][4] = {{1, 5, 0, 0}, {0, 1, 0, 0}};
  for (int k = 0; k < 2; k++) {
    uint8_t d[32];
    memcpy(d, TF_TRACE_MAGIC, 8);
    put_le32(d + 8, TF_TRACE_VERSION);
    d[12] = 0, d[13] = 4, d[14] = 4;
    memcpy(d + 15, bodies[k], 4);
    put_le32(d + 19, tf_crc32(0, d, 19));
    tf_status st = read_status(d, 23);
    CHECKF(st == TF_ERR_FORMAT, "malformed body %d: %s", k, tf_status_name(st));
  }
  free(c);
  tf_buf_free(&f);
  tf_body_free(&body);
}

int main(int argc, char **argv) {
  static const test_case cases[] = {
      {"dictionary", test_dictionary},
      {"round_trip", test_round_trip},
      {"ranges", test_ranges},
      {"damaged", test_damaged},
  };
  return run_cases("test_container", cases, TEST_NCASES(cases), argc, argv);
}
