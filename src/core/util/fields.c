/* fields.c — an event's value vector split into its function's fields
 * (tf_event_fields in tracefold.h): the one place that knows the layout of
 * tf_event.vals. Depends on nothing but the public header, so every stage
 * of the core (fold/ included), the tools and the replay can use it; and
 * why values do not fit (util/fields.h), for the messages. */
#include "util/fields.h"

#include <stdio.h>

/* The one walk over the values: fields 0..*k-1 fit, the first *pos values
 * used; TF_OK if every field fits and every value is used. */
static tf_status split(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, tf_field_value *out, uint32_t *kp,
                       uint32_t *posp) {
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
  *kp = k;
  *posp = pos;
  if (k == fd->nfields && pos == nvals) return TF_OK;
  for (; out && k < fd->nfields; k++) out[k] = (tf_field_value){&fd->fields[k], 0, NULL};
  return TF_ERR_FORMAT;
}

/* split's answer alone: one pass without the fields' output. */
int tf_event_fits(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals) {
  uint32_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    if (pos >= nvals) return 0;
    if (fd->fields[k].is_array) {
      int64_t len = vals[pos++];
      if (len < 0 || (uint64_t)len > nvals - pos) return 0;
      pos += (uint32_t)len;
    } else {
      pos++;
    }
  }
  return pos == nvals;
}

tf_status tf_event_fields(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, tf_field_value *out) {
  if (!fd || (!vals && nvals)) return TF_ERR_ARG;
  uint32_t k, pos;
  return split(fd, vals, nvals, out, &k, &pos);
}

tf_status tf_event_fields_why(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals, char *why, size_t len) {
  if (!fd || (!vals && nvals)) {
    if (why && len) snprintf(why, len, "no function, or values missing");
    return TF_ERR_ARG;
  }
  if (tf_event_fits(fd, vals, nvals)) return TF_OK;
  uint32_t k, pos;
  tf_status st = split(fd, vals, nvals, NULL, &k, &pos);
  if (!why || !len) return st;
  if (k == fd->nfields)
    snprintf(why, len, "%s: %u values, but its %u fields take %u", fd->name, nvals, fd->nfields, pos);
  else if (pos >= nvals)
    snprintf(why, len, "%s: its %u values end before field %s (field %u of %u)", fd->name, nvals,
             fd->fields[k].name, k + 1, fd->nfields);
  else
    snprintf(why, len, "%s: field %s, an array, has length %lld at value %u, where %u values remain", fd->name,
             fd->fields[k].name, (long long)vals[pos], pos, nvals - pos - 1);
  return st;
}

int tf_field_is_text(const tf_field_value *f) {
  if (!f || !f->desc || f->desc->kind != TF_FIELD_NAME || !f->desc->is_array) return 0;
  for (uint32_t j = 0; j < f->n; j++)
    if (f->v[j] < 0x20 || f->v[j] > 0x7e || f->v[j] == '"' || f->v[j] == '\\') return 0;
  return 1;
}

int tf_func_all_scalar(const tf_func_desc *fd) {
  for (uint32_t k = 0; k < fd->nfields; k++)
    if (fd->fields[k].is_array) return 0;
  return 1;
}
