/* file_io.c — whole-file reads and the error messages of every reader; see file_io.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_io.h"

tf_status tf_failf(char *err, size_t errlen, tf_status st, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return st;
}

tf_status tf_load_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) return tf_failf(err, errlen, TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  uint8_t *d = malloc(cap);
  while (d) {
    n += fread(d + n, 1, cap - n, f);
    if (n < cap) break;
    uint8_t *nd = realloc(d, cap * 2);
    if (!nd) {
      free(d);
      d = NULL;
      break;
    }
    d = nd;
    cap *= 2;
  }
  int rerr = ferror(f);
  fclose(f);
  if (!d) return tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", path);
  if (rerr) {
    free(d);
    return tf_failf(err, errlen, TF_ERR_IO, "%s: read error", path);
  }
  *data = d;
  *len = n;
  return TF_OK;
}

