/* fields.c — an event's value vector split into its function's fields
 * (tf_event_fields in tracefold.h): the one place that knows the layout of
 * tf_event.vals. Depends on nothing but the public header, so every stage
 * of the core (fold/ included), the tools and the replay can use it. */
#include "tracefold.h"

tf_status tf_event_fields(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, tf_field_value *out) {
  if (!fd || (!vals && nvals)) return TF_ERR_ARG;
  uint32_t pos = 0, k = 0;
  for (; k < fd->nfields && pos < nvals; k++) {
    uint32_t at = pos, n = 1;
    if (fd->fields[k].is_array) {
      int64_t len = vals[pos];
      if (len < 0 || (uint64_t)len > nvals - pos - 1) break;
      at = pos + 1;
      n = (uint32_t)len;
    }
    if (out) out[k] = (tf_field_value){&fd->fields[k], n, vals + at};
    pos = at + n;
  }
  if (k == fd->nfields && pos == nvals) return TF_OK;
  for (; out && k < fd->nfields; k++) out[k] = (tf_field_value){&fd->fields[k], 0, NULL};
  return TF_ERR_FORMAT;
}
