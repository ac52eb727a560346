/* payload.c — the payload buffers the replayed calls send from and receive
 * into (contents arbitrary), sized from each buffer's layout; see
 * payload.h. */
#include <stdlib.h>

#include "fields.h"
#include "handles.h"
#include "payload.h"
#include "scratch.h"

/* ------------------------------------------------------------ buffers */

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
