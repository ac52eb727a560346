/* file_io.c — whole-file reads and the error messages of every reader; see file_io.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

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
  struct stat sb; /* room for the whole file at once (and one byte to see its end): no doubling */
  size_t cap = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size < SIZE_MAX / 2
                   ? (size_t)sb.st_size + 1
                   : 1 << 16,
         n = 0;
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


int tf_save_file(const char *path, const void *data, size_t len) {
  size_t n = strlen(path) + 6;
  char *tmp = malloc(n);
  if (!tmp) return ENOMEM;
  snprintf(tmp, n, "%s.part", path);
  int err = 0, fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) err = errno;
  for (size_t off = 0; !err && off < len;) {
    ssize_t k = write(fd, (const char *)data + off, len - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) err = k < 0 ? errno : EIO;
    else off += (size_t)k;
  }
  if (fd >= 0 && close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err && fd >= 0) unlink(tmp);
  free(tmp);
  return err;
}
