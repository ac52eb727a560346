/* request_transform.c — relative request ids; see request_transform.h. */
#include "fold/request_transform.h"

#include <stdlib.h>

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

/* Fields split on the stack for up to this many fields (the recorder's
 * functions have at most 32); more, from a trace's own function table, on
 * the heap. */
#define STACK_FIELDS 64

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

static int transform(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals, int decode) {
  if (nvals == fd->nfields && (vals || !nvals) && tf_func_all_scalar(fd)) { /* the usual case, without the splitter */
    transform_scalars(c, fd, vals, decode);
    return 0;
  }
  tf_field_value stack[STACK_FIELDS];
  tf_field_value *f = fd->nfields <= STACK_FIELDS ? stack : malloc(fd->nfields * sizeof *f);
  if (!f) return -1;
  int rc = tf_event_fields(fd, vals, nvals, f) == TF_OK ? 0 : -1;
  for (uint32_t k = 0; rc == 0 && k < fd->nfields; k++) {
    unsigned kind = f[k].desc->kind;
    if (!is_req(kind)) continue;
    int64_t *v = vals + (f[k].v - vals); /* the field's values, writable */
    for (uint32_t j = 0; j < f[k].n; j++) transform_value(c, kind, &v[j], decode);
  }
  if (f != stack) free(f);
  return rc;
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
