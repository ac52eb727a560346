/* bytes.c — growable buffer and CRC-32 for bytes.h. */
#include "bytes.h"

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

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

uint32_t tf_crc32(uint32_t crc, const void *data, size_t n) {
  pthread_once(&crc_once, crc_init);
  const uint8_t *p = data;
  crc = ~crc;
  while (n--) crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return ~crc;
}
