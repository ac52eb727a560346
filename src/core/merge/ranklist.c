/* ranklist.c — membership, position and ends of rank lists; see ranklist.h (their text is in vseq_text.c). */
#include "merge/ranklist.h"

static int64_t item_last(const tf_vitem *it) {
  if (!it->nbody) return it->base + it->step * (int64_t)(it->count - 1);
  return item_last(&it->body[it->nbody - 1]) + it->step * (int64_t)(it->count - 1);
}

static int64_t items_index(const tf_vitem *it, uint32_t n, int64_t r);

/* Position of r in an item that spans it (base <= r <= last), or -1.
 * Lists are strictly increasing: a run has step > 0, and a repeat's shift
 * exceeds its body's span, so at most one repetition can hold r. */
static int64_t item_index(const tf_vitem *it, int64_t r) {
  if (!it->nbody) {
    if (it->count == 1) return r == it->base ? 0 : -1;
    return it->step > 0 && (r - it->base) % it->step == 0 ? (r - it->base) / it->step : -1;
  }
  int64_t k = it->step > 0 ? (r - it->base) / it->step : 0;
  if (k >= (int64_t)it->count) k = (int64_t)it->count - 1;
  int64_t j = items_index(it->body, it->nbody, r - k * it->step);
  return j < 0 ? -1 : k * (int64_t)(tf_vitem_nvalues(it) / it->count) + j;
}

static int64_t items_index(const tf_vitem *it, uint32_t n, int64_t r) {
  int64_t before = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (r < it[i].base) return -1;
    if (r <= item_last(&it[i])) {
      int64_t j = item_index(&it[i], r);
      return j < 0 ? -1 : before + j;
    }
    before += (int64_t)tf_vitem_nvalues(&it[i]);
  }
  return -1;
}

int64_t tf_ranks_index(const tf_vseq *ranks, int64_t r) {
  int64_t k = items_index(ranks->items, ranks->n, r);
  if (k >= 0 || !ranks->tcount) return k;
  tf_vitem t = tf_vseq_tail(ranks);
  if (r < t.base || r > item_last(&t)) return -1;
  int64_t j = item_index(&t, r);
  return j < 0 ? -1 : (int64_t)(ranks->nvalues - ranks->tcount) + j;
}

int tf_ranks_contains(const tf_vseq *ranks, int64_t r) { return tf_ranks_index(ranks, r) >= 0; }

int64_t tf_ranks_first(const tf_vseq *ranks) { return ranks->n ? ranks->items[0].base : ranks->tbase; }

int64_t tf_ranks_last(const tf_vseq *ranks) {
  if (ranks->tcount) {
    tf_vitem t = tf_vseq_tail(ranks);
    return item_last(&t);
  }
  return ranks->n ? item_last(&ranks->items[ranks->n - 1]) : -1;
}
