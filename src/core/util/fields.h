/* fields.h — why an event's values do not fit its function's fields
 * (fields.c; the split itself is tf_event_fields of the public API). For
 * the messages of every place that checks values against a schema: the
 * recorder before it writes an event, the flat writer, the readers. */
#ifndef TF_UTIL_FIELDS_H
#define TF_UTIL_FIELDS_H

#include <stddef.h>

#include "tracefold.h"

/* TF_OK if vals fit fd's fields (tf_event_fields); otherwise
 * TF_ERR_FORMAT with a message naming the function and the first field
 * that does not fit, or the values left over, in why. */
tf_status tf_event_fields_why(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, char *why, size_t len);

/* 1 if vals fit fd's fields, 0 if not: tf_event_fields's answer without
 * the split, for the hot paths (the recorder's check of every call, the
 * request transform). */
int tf_event_fits(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals);

/* 1 if fd has no array field: its values fit when there are exactly
 * fd->nfields of them (the hot paths' shortcut past tf_event_fields_why). */
int tf_func_all_scalar(const tf_func_desc *fd);

#endif
