/* rankclass.c — ranks classed by their place in the grid (rankclass.h). */
#include "extrap/rankclass.h"

#include <stdlib.h>

uint32_t tf_rankclass_of(int64_t r, int nd, const int64_t *dims) {
  uint32_t c = 0, w = 1;
  for (int d = nd - 1; d >= 0; d--) {
    int64_t x = r % dims[d];
    r /= dims[d];
    c += w * (x == 0 ? 0u : x == dims[d] - 1 ? 2u : 1u);
    w *= 3;
  }
  return c;
}

typedef struct lists {
  int nd;
  const int64_t *dims;
  const uint32_t *bucket;
  tf_vseq *out;
  tf_mem *m;
} lists;

/* count ranks from base by step, into their classes' lists: a run of
 * consecutive ranks a row segment at a time (three pieces a row: the first
 * rank, the inner ones, the last), any other rank by rank. */
static void put_run(lists *l, int64_t base, int64_t step, uint64_t count) {
  int64_t d = l->dims[l->nd - 1];
  if (step != 1) {
    for (uint64_t i = 0; i < count; i++) {
      int64_t r = base + (int64_t)i * step;
      uint32_t b = l->bucket[tf_rankclass_of(r, l->nd, l->dims)];
      if (b != UINT32_MAX) tf_vseq_push(&l->out[b], r, l->m);
    }
    return;
  }
  int64_t end = base + (int64_t)count;
  while (base < end) {
    int64_t w = base / d, row_end = (w + 1) * d < end ? (w + 1) * d : end;
    uint32_t lead = l->nd > 1 ? tf_rankclass_of(w, l->nd - 1, l->dims) : 0;
    int64_t cut[4] = {w * d, w * d + 1, w * d + (d > 1 ? d - 1 : 1), w * d + d}; /* first, inner, last */
    for (int q = 0; q < 3; q++) {
      int64_t lo = cut[q] > base ? cut[q] : base, hi = cut[q + 1] < row_end ? cut[q + 1] : row_end;
      uint32_t b = l->bucket[lead * 3 + (uint32_t)q];
      if (lo < hi && b != UINT32_MAX) tf_vseq_push_run(&l->out[b], lo, 1, (uint64_t)(hi - lo), l->m);
    }
    base = row_end;
  }
}

/* The items of a sequence, repeats unrolled into their runs (shifted). */
static void put_items(lists *l, const tf_vitem *it, uint32_t n, int64_t shift) {
  for (uint32_t i = 0; i < n && !l->m->failed; i++) {
    if (!it[i].nbody) {
      put_run(l, it[i].base + shift, it[i].step, it[i].count);
      continue;
    }
    for (uint64_t k = 0; k < it[i].count; k++) put_items(l, it[i].body, it[i].nbody, shift + (int64_t)k * it[i].step);
  }
}

int tf_rankclass_lists(const tf_vseq *ranks, int nd, const int64_t *dims, const uint32_t *bucket, tf_vseq *out,
                       tf_mem *m) {
  lists l = {nd, dims, bucket, out, m};
  put_items(&l, ranks->items, ranks->n, 0);
  if (ranks->tcount) put_run(&l, ranks->tbase, ranks->tstep, ranks->tcount);
  for (uint32_t c = 0; c < TF_RANKCLASS_MAX; c++) tf_vseq_seal(&out[c], m);
  return m->failed ? -1 : 0;
}
