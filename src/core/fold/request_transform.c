/* request_transform.c — relative request ids; see request_transform.h. */
#include "fold/request_transform.h"

#include "util/fields.h"

/* Non-special values N = [TF_SPECIAL_MAX+1, INT64_MAX] are the ring Z/M,
 * M = 2^64 - 7, through D(v) = v - (TF_SPECIAL_MAX+1). A difference r in
 * [0, M) is stored as r when it fits an int64 and as r - M (negative,
 * still non-special) otherwise, so small differences stay small. */
#define NSPECIAL 7u
#define RING_M ((uint64_t)0 - NSPECIAL)
static inline int is_special(int64_t v) { return v <= TF_SPECIAL_MAX; }
static inline uint64_t D(int64_t v) { return (uint64_t)v - (uint64_t)(TF_SPECIAL_MAX + 1); }
static inline int64_t Dinv(uint64_t d) { return (int64_t)(d + (uint64_t)(TF_SPECIAL_MAX + 1)); }
static inline uint64_t ring_sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + (RING_M - b); }
static inline uint64_t ring_add(uint64_t a, uint64_t b) { return b >= RING_M - a ? b - (RING_M - a) : a + b; }
static inline int64_t store(uint64_t r) { return (int64_t)(r <= (uint64_t)INT64_MAX ? r : r + NSPECIAL); }
static inline uint64_t load(int64_t s) { return s >= 0 ? (uint64_t)s : (uint64_t)s - NSPECIAL; }

/* One value of a request field (kind TF_FIELD_REQ or TF_FIELD_REQ_NEW), in place. */
static void transform_value(tf_req_transform *c, unsigned kind, int64_t *v, int decode) {
  if (is_special(*v)) return;
  uint64_t last = D(c->last_req);
  if (kind == TF_FIELD_REQ_NEW) {
    uint64_t expect = ring_add(last, 1);
    int64_t id = decode ? Dinv(ring_add(expect, load(*v))) : *v;
    *v = decode ? id : store(ring_sub(D(id), expect));
    c->last_req = id;
  } else {
    *v = decode ? Dinv(ring_sub(last, load(*v))) : store(ring_sub(last, D(*v)));
  }
}

static int is_req(unsigned kind) { return kind == TF_FIELD_REQ || kind == TF_FIELD_REQ_NEW; }

/* fd without array fields: field k is value k (tf_event_fields would say so) */
static void transform_scalars(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, int decode) {
  for (uint32_t k = 0; k < fd->nfields; k++)
    if (is_req(fd->fields[k].kind)) transform_value(c, fd->fields[k].kind, &vals[k], decode);
}

/* The request fields' values transformed in place, walking the values as
 * tf_event_fits does; -1 and nothing changed if they do not fit. */
static int transform(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals, int decode) {
  if (!tf_event_fits(fd, vals, nvals)) return -1;
  for (uint32_t k = 0, pos = 0; k < fd->nfields; k++) {
    const tf_field_desc *f = &fd->fields[k];
    uint32_t n = f->is_array ? (uint32_t)vals[pos++] : 1;
    if (is_req(f->kind))
      for (uint32_t j = 0; j < n; j++) transform_value(c, f->kind, &vals[pos + j], decode);
    pos += n;
  }
  return 0;
}

int tf_req_transform_apply(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals) {
  return transform(c, fd, vals, nvals, 0);
}
void tf_req_transform_apply_scalars(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals) {
  transform_scalars(c, fd, vals, 0);
}
int tf_req_transform_undo(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals) {
  return transform(c, fd, vals, nvals, 1);
}
