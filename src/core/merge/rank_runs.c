/* rank_runs.c — runs of consecutive ranks that read alike; see rank_runs.h. */
#include "merge/rank_runs.h"

#include <stdlib.h>

#include "util/hash.h"
#include "merge/ranklist.h"

/* The places where a rank list or a per-rank count may change: ranks b
 * such that b - 1 and b may differ, one bit per rank (O(P / 8) bytes
 * whatever the trace says: a forged trace cannot make it grow; a list of
 * strided single ranks, which marks every rank, costs no sorting). */
typedef struct cuts {
  uint64_t *bits;
  int64_t nranks;
  int failed;
} cuts;

static void cut(cuts *c, int64_t r) {
  if (c->failed || r <= 0 || r >= c->nranks) return; /* 0 and nranks are always places */
  c->bits[r >> 6] |= (uint64_t)1 << (r & 63);
}

/* The places of a rank list: the ends of its blocks of consecutive ranks
 * (a run of step 1 is one block; other runs are one block per rank). */
static void cut_items(cuts *c, const tf_vitem *it, uint32_t n, int64_t offset) {
  for (uint32_t i = 0; i < n && !c->failed; i++) {
    const tf_vitem *x = &it[i];
    if (x->nbody) {
      for (uint64_t k = 0; k < x->count && !c->failed; k++)
        cut_items(c, x->body, x->nbody, tf_wadd(offset, tf_wmul(x->step, k)));
    } else if (x->count == 1 || x->step == 1) {
      int64_t first = tf_wadd(offset, x->base);
      cut(c, first);
      cut(c, tf_wadd(first, tf_wmul(x->step, x->count - 1)) + 1);
    } else {
      for (uint64_t k = 0; k < x->count && !c->failed; k++) {
        int64_t r = tf_wadd(tf_wadd(offset, x->base), tf_wmul(x->step, k));
        cut(c, r);
        cut(c, r + 1);
      }
    }
  }
}

static void cut_list(cuts *c, const tf_vseq *ranks) {
  cut_items(c, ranks->items, ranks->n, 0);
  tf_vitem tail = tf_vseq_tail(ranks);
  if (tail.count) cut_items(c, &tail, 1, 0);
}

/* The places of a per-present-rank sequence (events, lost, partial): where
 * its value may change, as ranks. Values index the present ranks. */
static void cut_values_items(cuts *c, const tf_vseq *present, const tf_vitem *it, uint32_t n, uint64_t *index) {
  for (uint32_t i = 0; i < n && !c->failed; i++) {
    const tf_vitem *x = &it[i];
    if (x->nbody) {
      for (uint64_t k = 0; k < x->count && !c->failed; k++) cut_values_items(c, present, x->body, x->nbody, index);
    } else if (x->count == 1 || x->step == 0) { /* one value on these ranks */
      cut(c, tf_vseq_value_at(present, (int64_t)*index));
      cut(c, tf_vseq_value_at(present, (int64_t)(*index + x->count - 1)) + 1);
      *index += x->count;
    } else {
      for (uint64_t k = 0; k < x->count && !c->failed; k++, (*index)++) {
        int64_t r = tf_vseq_value_at(present, (int64_t)*index);
        cut(c, r);
        cut(c, r + 1);
      }
    }
  }
}

static void cut_values(cuts *c, const tf_vseq *present, const tf_vseq *values) {
  uint64_t index = 0;
  cut_values_items(c, present, values->items, values->n, &index);
  tf_vitem tail = tf_vseq_tail(values);
  if (tail.count) cut_values_items(c, present, &tail, 1, &index);
}

/* Every rank of a list a place (its ranks read apart: a pair with a rule
 * gives each its own values). */
static void cut_each(cuts *c, const tf_vseq *ranks) {
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(ranks));
  if (!it) {
    c->failed = 1;
    return;
  }
  tf_vseq_iter_init(it, ranks);
  int64_t r;
  while (!c->failed && tf_vseq_iter_next(it, &r)) {
    cut(c, r);
    cut(c, r + 1);
  }
  free(it);
}

static void cut_vset(cuts *c, const tf_vset *v) {
  for (uint32_t i = 0; i < v->n; i++) (tf_vset_pair_rule(v, i) ? cut_each : cut_list)(c, &v->ranks[i]);
}

static void cut_nodes(cuts *c, tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n && !c->failed; i++) {
    cut_list(c, &x[i]->ranks);
    cut_vset(c, &x[i]->count);
    for (uint32_t j = 0; j < x[i]->nslots; j++) cut_vset(c, &x[i]->slots[j]);
    const tf_gtiming *g = &x[i]->timing;
    for (uint32_t p = 0; p < g->npaths; p++)
      for (uint32_t k = 0; k < g->paths[p].n; k++) cut_list(c, &g->paths[p].g[k].ranks);
    cut_nodes(c, x[i]->body, x[i]->nbody);
  }
}

int tf_mtrace_rank_runs(const tf_mtrace *t, tf_rank_run **runs, uint32_t *n) {
  *runs = NULL;
  *n = 0;
  cuts c = {.nranks = t->nranks};
  size_t words = ((size_t)(t->nranks > 0 ? t->nranks : 0) + 63) / 64;
  if (!(c.bits = calloc(words + 1, sizeof *c.bits))) return -1;
  cut_list(&c, &t->present);
  cut_values(&c, &t->present, &t->nevents);
  cut_values(&c, &t->present, &t->lost);
  cut_values(&c, &t->present, &t->why);
  for (int k = 0; k < 3; k++) cut_vset(&c, &t->order[k]);
  cut_nodes(&c, t->top, t->ntop);
  size_t places = 0;
  for (size_t w = 0; w < words && !c.failed; w++) places += (size_t)__builtin_popcountll(c.bits[w]);
  tf_rank_run *out = c.failed ? NULL : malloc((places + 1) * sizeof *out);
  if (!out) {
    free(c.bits);
    return -1;
  }
  /* the pieces between consecutive places, [0, first place) ... [last place, nranks), that are present */
  int64_t first = 0;
  for (size_t w = 0; w <= words; w++) {
    for (uint64_t b = w < words ? c.bits[w] : 0; b; b &= b - 1) {
      int64_t end = (int64_t)(w * 64) + __builtin_ctzll(b);
      if (tf_ranks_contains(&t->present, first))
        out[(*n)++] = (tf_rank_run){.first = (int32_t)first, .n = (int32_t)(end - first)};
      first = end;
    }
  }
  if (t->nranks > first && tf_ranks_contains(&t->present, first))
    out[(*n)++] = (tf_rank_run){.first = (int32_t)first, .n = (int32_t)(t->nranks - first)};
  free(c.bits);
  *runs = out;
  return 0;
}
