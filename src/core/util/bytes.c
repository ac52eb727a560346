/* bytes.c — growable buffer and CRC-32 for bytes.h. */
#include "util/bytes.h"

#include <pthread.h>
#include <stdlib.h>

int tf_buf_reserve(tf_buf *b, size_t extra) {
  if (b->failed) return -1;
  if (b->len + extra <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + extra) cap *= 2;
  uint8_t *d = realloc(b->data, cap);
  if (!d) return -1; /* the buffer stays as it was: the caller drops its record */
  b->data = d;
  b->cap = cap;
  return 0;
}

void tf_buf_free(tf_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* CRC-32, slicing-by-8: table k maps a byte to its CRC contribution k
 * positions further on, so eight bytes are folded per step (about 5x the
 * byte-at-a-time loop). Same result as zlib's crc32(). */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++) crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t tf_crc32(uint32_t crc, const void *data, size_t n) {
  pthread_once(&crc_once, crc_init);
  const uint8_t *p = data;
  crc = ~crc;
  while (n >= 8) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
          crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
          crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
