/* payload.c — the payload buffers the replayed calls send from and receive
 * into (contents arbitrary), sized from each call's counts, displacements
 * and datatype extents; see payload.h. */
#include <stdlib.h>

#include "fields.h"
#include "handles.h"
#include "payload.h"
#include "scratch.h"

/* ------------------------------------------------------------ payload buffers */

size_t rp_payload_need(rp_thread *T) {
  const uint8_t *role = rp_info[T->fn].role;
  int64_t count = 0, displ = 0;
  MPI_Aint ext = 1;
  for (uint32_t i = 0; i < T->nf; i++) {
    if (role[i] == RP_ROLE_NONE || role[i] == RP_ROLE_BYTES) continue;
    for (uint32_t k = 0; k < T->field[i].n; k++) {
      int64_t v = T->field[i].v[k];
      if (v <= TF_SPECIAL_MAX) continue;
      if (role[i] == RP_ROLE_COUNT) {
        if (v > count) count = v;
      } else if (role[i] == RP_ROLE_DISPL) {
        if (v > displ) displ = v;
      } else {
        MPI_Aint e = rp_dtype_extent(T, v);
        if (e > ext) ext = e;
      }
    }
  }
  /* (largest displacement + largest count) x largest extent covers every
   * (count, datatype, displacement) of the call, whatever unit the
   * displacements are in (elements, or bytes for the w forms) */
  return (size_t)((displ + count) * ext) + 64;
}

static void *grow(rp_thread *T, void **buf, size_t *cap) {
  if (*cap >= T->need && *buf) return *buf;
  size_t ncap = *cap ? *cap : 4096;
  while (ncap < T->need) ncap *= 2;
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
  return nb;
}

void *rp_sbuf(rp_thread *T) { return grow(T, &T->sbuf, &T->scap); }
void *rp_rbuf(rp_thread *T) { return grow(T, &T->rbuf, &T->rcap); }

void rp_buffers_free(rp_thread *T) {
  for (size_t i = 0; i < T->nretired; i++) free(T->retired[i]);
  free(T->retired);
  free(T->sbuf);
  free(T->rbuf);
  T->retired = NULL;
  T->sbuf = T->rbuf = NULL;
  T->nretired = 0;
}

