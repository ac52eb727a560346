/* payload.c — the payload buffers the replayed calls send from and receive
 * into (contents arbitrary), sized from each buffer's layout; see
 * payload.h. */
#include <stdlib.h>

#include "fields.h"
#include "handles.h"
#include "payload.h"
#include "scratch.h"

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
