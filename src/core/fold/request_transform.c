/* request_transform.c — relative request ids; see request_transform.h. */
#include "fold/request_transform.h"

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

int tf_values_fit(const tf_func_desc *fd, const int64_t *vals, uint32_t nvals) {
  uint64_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    if (pos >= nvals) return 0;
    if (fd->fields[k].is_array) {
      int64_t n = vals[pos];
      if (n < 0 || (uint64_t)n > nvals - pos - 1) return 0;
      pos += 1 + (uint64_t)n;
    } else {
      pos++;
    }
  }
  return pos == nvals;
}

static int transform(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals, int decode) {
  if (!tf_values_fit(fd, vals, nvals)) return -1;
  uint64_t pos = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    uint64_t n = 1;
    if (fd->fields[k].is_array) n = (uint64_t)vals[pos++];
    unsigned kind = fd->fields[k].kind;
    for (uint64_t j = 0; j < n; j++, pos++) {
      int64_t *v = &vals[pos];
      if (is_special(*v) || (kind != TF_FIELD_REQ && kind != TF_FIELD_REQ_NEW)) continue;
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
  }
  return 0;
}

int tf_req_transform_apply(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals) {
  return transform(c, fd, vals, nvals, 0);
}
int tf_req_transform_undo(tf_req_transform *c, const tf_func_desc *fd, int64_t *vals, uint32_t nvals) {
  return transform(c, fd, vals, nvals, 1);
}
