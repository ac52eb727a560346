/* topology.c — the Cartesian rank space of a trace (topology.h). */
#include "extrap/topology.h"

#include <string.h>

static int find_ndims(const tf_mtrace *t, tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (x[i]->is_loop) {
      int nd = find_ndims(t, x[i]->body, x[i]->nbody);
      if (nd) return nd;
      continue;
    }
    const tf_func_desc *f = &t->ft.funcs[x[i]->fn];
    if (strcmp(f->name, "MPI_Dims_create") != 0 && strcmp(f->name, "MPI_Cart_create") != 0) continue;
    for (uint32_t j = 0; j < f->nfields && j < x[i]->nslots; j++) {
      if (strcmp(f->fields[j].name, "ndims") != 0 || !x[i]->slots[j].n) continue;
      int64_t nd = tf_vseq_value_at(&x[i]->slots[j].seq[0], 0);
      if (nd >= 1 && nd <= TF_TOPO_MAXDIMS) return (int)nd;
    }
  }
  return 0;
}

int tf_topo_ndims(const tf_mtrace *t) {
  int nd = find_ndims(t, t->top, t->ntop);
  return nd ? nd : 1;
}

void tf_topo_dims(int64_t p, int nd, int64_t *dims) {
  for (int i = 0; i < nd; i++) dims[i] = 1;
  int64_t f[64];
  int nf = 0;
  for (int64_t q = 2; q * q <= p; q++)
    while (p % q == 0) f[nf++] = q, p /= q;
  if (p > 1) f[nf++] = p;
  for (int i = nf - 1; i >= 0; i--) { /* largest factor first, onto the smallest dimension */
    int s = 0;
    for (int j = 1; j < nd; j++)
      if (dims[j] < dims[s]) s = j;
    dims[s] *= f[i];
  }
  for (int i = 0; i < nd; i++) /* non-increasing */
    for (int j = i + 1; j < nd; j++)
      if (dims[j] > dims[i]) {
        int64_t x = dims[i];
        dims[i] = dims[j];
        dims[j] = x;
      }
}
