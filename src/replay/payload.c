/* payload.c — the payload buffers the replayed calls send from and receive
 * into (contents arbitrary), sized from each buffer's layout; see
 * payload.h. */
#include <stdlib.h>

#include "fields.h"
#include "handles.h"
#include "payload.h"
#include "scratch.h"

/* ------------------------------------------------------------ spans */

rp_span rp_span_union(rp_span a, rp_span b) {
  return (rp_span){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

/* n elements of a datatype whose extent and true bounds are ts, the first
 * at byte off: element k's data is at off + k x extent + [true_lb, true_ub). */
static rp_span elements(rp_thread *T, int64_t n, rp_typespan ts, int64_t off) {
  if (n <= 0) return RP_SPAN_NONE;
  const int64_t limit = (int64_t)1 << 50; /* beyond any memory: a corrupted trace */
  if (n > limit || ts.extent > limit || ts.extent < -limit || (ts.extent && n > limit / llabs(ts.extent)))
    rp_die(T, "a buffer of %lld elements of extent %lld: too large", (long long)n, (long long)ts.extent);
  int64_t last = (n - 1) * (int64_t)ts.extent; /* where the last element starts */
  return (rp_span){off + ts.true_lb + (last < 0 ? last : 0), off + ts.true_ub + (last > 0 ? last : 0)};
}

static int64_t scalar(const rp_thread *T, int i) { return T->field[i].n ? T->field[i].v[0] : TF_NONE; }

static rp_typespan span_at(rp_thread *T, int dtype, uint32_t k) {
  const tf_field_value *f = &T->field[dtype];
  return rp_dtype_span(T, k < f->n ? f->v[k] : TF_NONE);
}

rp_span rp_span_block(rp_thread *T, int count, int dtype, int64_t times) {
  int64_t n = scalar(T, count), id = scalar(T, dtype);
  if (n <= 0 || times <= 0 || id == TF_NONE) return RP_SPAN_NONE; /* "-": not significant here */
  return elements(T, n * times, rp_dtype_span(T, id), 0);
}

rp_span rp_span_displs(rp_thread *T, int counts, int displs, int dtype) {
  const tf_field_value *c = &T->field[counts], *d = &T->field[displs];
  int w = T->field[dtype].desc->is_array; /* per-peer datatypes: displacements in bytes */
  rp_typespan one = w ? (rp_typespan){1, 0, 1} : span_at(T, dtype, 0);
  rp_span s = RP_SPAN_NONE;
  for (uint32_t k = 0; k < c->n && k < d->n; k++) {
    if (c->v[k] <= 0 || d->v[k] <= TF_SPECIAL_MAX) continue;
    rp_typespan ts = w ? span_at(T, dtype, k) : one;
    s = rp_span_union(s, elements(T, c->v[k], ts, w ? d->v[k] : d->v[k] * (int64_t)ts.extent));
  }
  return s;
}

rp_span rp_span_sum(rp_thread *T, int counts, int dtype) {
  const tf_field_value *c = &T->field[counts];
  int64_t n = 0;
  for (uint32_t k = 0; k < c->n; k++)
    if (c->v[k] > 0) n += c->v[k];
  return scalar(T, dtype) == TF_NONE ? RP_SPAN_NONE : elements(T, n, span_at(T, dtype, 0), 0);
}

rp_span rp_span_mine(rp_thread *T, int counts, int dtype, MPI_Comm comm) {
  const tf_field_value *c = &T->field[counts];
  int r = rp_comm_rank(comm);
  if (r < 0 || (uint32_t)r >= c->n || scalar(T, dtype) == TF_NONE) return RP_SPAN_NONE;
  return elements(T, c->v[r], span_at(T, dtype, 0), 0);
}

rp_span rp_span_bytes(rp_thread *T, int n) {
  int64_t b = scalar(T, n);
  return b > 0 ? (rp_span){0, b} : RP_SPAN_NONE;
}

rp_span rp_span_one(rp_thread *T, int dtype) {
  int64_t id = scalar(T, dtype);
  return id == TF_NONE ? RP_SPAN_NONE : elements(T, 1, rp_dtype_span(T, id), 0);
}

/* ------------------------------------------------------------ buffers */

/* A buffer of *cap bytes at *buf holding s: the pointer p with [p + s.lo,
 * p + s.hi) inside it (p itself inside too, for the calls' sake). */
static void *hold(rp_thread *T, void **buf, size_t *cap, rp_span s) {
  if (s.lo > s.hi) s = (rp_span){0, 0};
  int64_t lo = s.lo < 0 ? s.lo : 0, hi = s.hi > 0 ? s.hi : 0;
  size_t need = (size_t)(hi - lo) + 64;
  if (*cap < need || !*buf) {
    size_t ncap = *cap ? *cap : 4096;
    while (ncap < need) ncap *= 2;
    void *nb = calloc(1, ncap);
    if (!nb) rp_die(T, "out of memory (a payload buffer of %zu bytes)", ncap);
    if (*buf) { /* a pending nonblocking call may still use the old one */
      void **nr = realloc(T->retired, (T->nretired + 1) * sizeof *nr);
      if (!nr) rp_die(T, "out of memory");
      T->retired = nr;
      T->retired[T->nretired++] = *buf;
    }
    *buf = nb;
    *cap = ncap;
  }
  return (char *)*buf - lo;
}

void *rp_sbuf(rp_thread *T, rp_span s) { return hold(T, &T->sbuf, &T->scap, s); }
void *rp_rbuf(rp_thread *T, rp_span s) { return hold(T, &T->rbuf, &T->rcap, s); }

void *rp_win_mem(rp_thread *T, rp_span s) {
  size_t n = s.hi > 0 ? (size_t)s.hi : 0;
  void *m = calloc(1, n + 64);
  if (!m) rp_die(T, "out of memory (window memory of %zu bytes)", n);
  return m;
}

void rp_buffers_free(rp_thread *T) {
  for (size_t i = 0; i < T->nretired; i++) free(T->retired[i]);
  free(T->retired);
  free(T->sbuf);
  free(T->rbuf);
  T->retired = NULL;
  T->sbuf = T->rbuf = NULL;
  T->nretired = 0;
}
