/* bytes.h — the byte-level encodings every tracefold file uses.
 *
 * Unsigned integers are LEB128 varints (7 bits per byte, low first, high bit
 * = more). Signed integers are zigzag-mapped first so that small magnitudes
 * of either sign stay short. Strings are a varint length and the bytes.
 * Fixed-width integers are little-endian. tf_buf is a growable output
 * buffer; tf_cursor is a bounds-checked input window that never reads past
 * its end (it latches an error instead).
 */
#ifndef TF_BYTES_H
#define TF_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t tf_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t tf_unzigzag(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

/* ---- output ---- */
typedef struct tf_buf {
  uint8_t *data;
  size_t len, cap;
  int failed; /* 1 after a put_* could not grow the buffer (the content is then incomplete) */
} tf_buf;

/* Make room for `extra` more bytes: 0, or -1 (buffer unchanged) if memory is short. */
int tf_buf_reserve(tf_buf *b, size_t extra);
void tf_buf_free(tf_buf *b);

static inline void tf_buf_put_bytes(tf_buf *b, const void *p, size_t n) {
  if (tf_buf_reserve(b, n)) {
    b->failed = 1;
    return;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
}
static inline void tf_buf_put_u8(tf_buf *b, uint8_t v) { tf_buf_put_bytes(b, &v, 1); }
/* A varint at p, in room reserved beforehand (10 bytes): the byte after it.
 * For runs of varints (an event's values) kept in a local pointer, so that
 * the buffer's length is stored once, not after every value. */
static inline uint8_t *tf_uvar_at(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}
/* A varint into room reserved beforehand (tf_buf_reserve: 10 bytes each). */
static inline void tf_buf_put_uvar_reserved(tf_buf *b, uint64_t v) {
  b->len = (size_t)(tf_uvar_at(b->data + b->len, v) - b->data);
}
static inline void tf_buf_put_uvar(tf_buf *b, uint64_t v) {
  if (tf_buf_reserve(b, 10)) {
    b->failed = 1;
    return;
  }
  tf_buf_put_uvar_reserved(b, v);
}
static inline void tf_buf_put_svar(tf_buf *b, int64_t v) { tf_buf_put_uvar(b, tf_zigzag(v)); }
static inline void tf_buf_put_u32(tf_buf *b, uint32_t v) {
  uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  tf_buf_put_bytes(b, t, 4);
}
static inline void tf_buf_put_u64(tf_buf *b, uint64_t v) {
  tf_buf_put_u32(b, (uint32_t)v);
  tf_buf_put_u32(b, (uint32_t)(v >> 32));
}
static inline void tf_buf_put_str(tf_buf *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  tf_buf_put_uvar(b, n);
  tf_buf_put_bytes(b, s, n);
}

/* ---- input ---- */
typedef struct tf_cursor {
  const uint8_t *p, *end;
  int bad; /* 1 once any read ran past the end or was malformed */
} tf_cursor;

static inline uint64_t tf_cur_uvar(tf_cursor *c) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (c->p >= c->end) {
      c->bad = 1;
      return 0;
    }
    uint8_t byte = *c->p++;
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return v;
  }
  c->bad = 1; /* more than 10 bytes */
  return 0;
}
static inline int64_t tf_cur_svar(tf_cursor *c) { return tf_unzigzag(tf_cur_uvar(c)); }
static inline const uint8_t *tf_cur_bytes(tf_cursor *c, size_t n) {
  if ((size_t)(c->end - c->p) < n) {
    c->bad = 1;
    c->p = c->end;
    return NULL;
  }
  const uint8_t *r = c->p;
  c->p += n;
  return r;
}
static inline uint8_t tf_cur_u8(tf_cursor *c) {
  const uint8_t *p = tf_cur_bytes(c, 1);
  return p ? p[0] : 0;
}
static inline uint32_t tf_cur_u32(tf_cursor *c) {
  const uint8_t *p = tf_cur_bytes(c, 4);
  return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}
static inline uint64_t tf_cur_u64(tf_cursor *c) {
  uint64_t lo = tf_cur_u32(c);
  return lo | (uint64_t)tf_cur_u32(c) << 32;
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32). Pass 0 to start. */
uint32_t tf_crc32(uint32_t crc, const void *data, size_t n);

#endif
