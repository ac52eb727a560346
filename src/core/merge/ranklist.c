/* ranklist.c — membership and ends of rank lists; see ranklist.h (their text is in vseq_text.c). */
#include "merge/ranklist.h"

static int64_t item_last(const tf_vitem *it) {
  if (!it->nbody) return it->base + it->step * (int64_t)(it->count - 1);
  return item_last(&it->body[it->nbody - 1]) + it->step * (int64_t)(it->count - 1);
}

static int items_contain(const tf_vitem *it, uint32_t n, int64_t r);

/* Lists are strictly increasing: a run has step > 0, and a repeat's shift
 * exceeds its body's span, so at most one repetition can hold r. */
static int item_contains(const tf_vitem *it, int64_t r) {
  if (r < it->base || r > item_last(it)) return 0;
  if (!it->nbody) return it->count == 1 ? r == it->base : it->step > 0 && (r - it->base) % it->step == 0;
  int64_t k = it->step > 0 ? (r - it->base) / it->step : 0;
  if (k >= (int64_t)it->count) k = (int64_t)it->count - 1;
  return items_contain(it->body, it->nbody, r - k * it->step);
}

static int items_contain(const tf_vitem *it, uint32_t n, int64_t r) {
  for (uint32_t i = 0; i < n; i++) {
    if (r < it[i].base) return 0;
    if (item_contains(&it[i], r)) return 1;
  }
  return 0;
}

int tf_ranks_contains(const tf_vseq *ranks, int64_t r) {
  if (items_contain(ranks->items, ranks->n, r)) return 1;
  if (!ranks->tcount) return 0;
  tf_vitem t = tf_vseq_tail(ranks);
  return item_contains(&t, r);
}

int64_t tf_ranks_first(const tf_vseq *ranks) { return ranks->n ? ranks->items[0].base : ranks->tbase; }

int64_t tf_ranks_last(const tf_vseq *ranks) {
  if (ranks->tcount) {
    tf_vitem t = tf_vseq_tail(ranks);
    return item_last(&t);
  }
  return ranks->n ? item_last(&ranks->items[ranks->n - 1]) : -1;
}
