/* file_io.h — whole-file reads and error messages shared by the readers. */
#ifndef TF_FILE_IO_H
#define TF_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "tracefold.h"

/* Read all of `path` into *data (malloc'ed). Errors name the file. */
tf_status tf_load_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);
/* Write `len` bytes to `path` atomically: into path.part, then renamed, so
 * that `path` is either what it was or complete. 0, or the errno of the
 * first failure (path.part is then removed; `path` is untouched). */
int tf_save_file(const char *path, const void *data, size_t len);
/* Format a message into err (if not NULL) and return st. */
tf_status tf_failf(char *err, size_t errlen, tf_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
