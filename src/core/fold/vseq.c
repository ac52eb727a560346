/* vseq.c — value sequences (runs and shifted repeats); see vseq.h. */
#include "fold/vseq.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

enum { K_RUN = 0x52554e, K_REP = 0x524550 };

static uint64_t run_shape(int64_t step, uint64_t count) { return tf_mix(tf_mix(K_RUN, (uint64_t)step), count); }

/* A repeat's shape leaves out its count, so that extending it (count + 1)
 * does not rehash its body; counts are compared exactly in same_items. */
static uint64_t rep_shape(const tf_vitem *r) {
  uint64_t h = tf_mix(tf_mix(K_REP, (uint64_t)r->step), r->nbody);
  for (uint32_t i = 0; i < r->nbody; i++) {
    h = tf_mix(h, r->body[i].shape);
    if (i) h = tf_mix(h, (uint64_t)tf_wsub(r->body[i].base, r->body[i - 1].base));
  }
  return h;
}

void tf_vitem_reshape(tf_vitem *it) { it->shape = it->nbody ? rep_shape(it) : run_shape(it->step, it->count); }

static void free_items(tf_vitem *it, uint32_t n, tf_mem *m) {
  for (uint32_t i = 0; i < n; i++)
    if (it[i].body) {
      free_items(it[i].body, it[i].nbody, m);
      free(it[i].body);
      m->bytes -= it[i].nbody * sizeof(tf_vitem);
    }
}

void tf_vseq_free(tf_vseq *s, tf_mem *m) {
  free_items(s->items, s->n, m);
  free(s->items);
  m->bytes -= s->cap * sizeof(tf_vitem);
  tf_vseq_init(s);
}

/* Windows a[0..d) and b[0..d) hold the same items up to one constant shift
 * of every value: same shapes, same steps and counts, same differences
 * between consecutive bases, recursively. */
static int same_items(const tf_vitem *a, const tf_vitem *b, uint32_t d) {
  for (uint32_t i = 0; i < d; i++) {
    if (a[i].shape != b[i].shape || a[i].step != b[i].step || a[i].count != b[i].count || a[i].nbody != b[i].nbody)
      return 0;
    if (i && tf_wsub(a[i].base, a[i - 1].base) != tf_wsub(b[i].base, b[i - 1].base)) return 0;
  }
  for (uint32_t i = 0; i < d; i++)
    if (a[i].nbody && !same_items(a[i].body, b[i].body, a[i].nbody)) return 0;
  return 1;
}

/* Fold the end of the item list: extend a repeat by its next repetition, or
 * turn two equal windows into a new repeat; again until nothing changes. */
static void fold_tail(tf_vseq *s, tf_mem *m) {
  for (;;) {
    uint32_t n = s->n;
    int changed = 0;
    for (uint32_t len = 1; len <= TF_VSEQ_MAXP && len < n && !changed; len++) {
      tf_vitem *r = &s->items[n - 1 - len], *y = &s->items[n - len];
      if (r->nbody != len || y[0].base != tf_wadd(r->body[0].base, tf_wmul(r->step, r->count)) ||
          !same_items(r->body, y, len))
        continue;
      free_items(y, len, m);
      r->count++;
      s->n = n - len;
      changed = 1;
    }
    for (uint32_t d = 1; d <= TF_VSEQ_MAXP && 2 * d <= n && !changed; d++) {
      tf_vitem *x = &s->items[n - 2 * d], *y = &s->items[n - d];
      if (x[d - 1].shape != y[d - 1].shape || !same_items(x, y, d)) continue;
      uint32_t depth = 0;
      for (uint32_t i = 0; i < d; i++)
        if (x[i].depth > depth) depth = x[i].depth;
      if (depth + 1 > TF_VSEQ_MAXDEPTH) continue;
      tf_vitem *body = malloc(d * sizeof *body);
      if (!body) {
        m->failed = 1;
        return;
      }
      m->bytes += d * sizeof *body;
      memcpy(body, x, d * sizeof *body);
      tf_vitem r = {.base = x[0].base, .step = tf_wsub(y[0].base, x[0].base), .count = 2, .body = body, .nbody = d,
                    .depth = depth + 1};
      r.shape = rep_shape(&r);
      free_items(y, d, m);
      s->items[n - 2 * d] = r;
      s->n = n - 2 * d + 1;
      changed = 1;
    }
    if (!changed) return;
  }
}

static void close_tail(tf_vseq *s, tf_mem *m) {
  if (s->n == s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 4;
    tf_vitem *ni = realloc(s->items, cap * sizeof *ni);
    if (!ni) {
      m->failed = 1;
      return;
    }
    m->bytes += (cap - s->cap) * sizeof *ni;
    s->items = ni;
    s->cap = cap;
  }
  tf_vitem run = tf_vseq_tail(s);
  run.shape = run_shape(run.step, run.count);
  s->items[s->n++] = run;
  s->tcount = 0;
  fold_tail(s, m);
}

void tf_vseq_push_other(tf_vseq *s, int64_t v, tf_mem *m) {
  if (s->tcount == 1) {
    s->tstep = tf_wsub(v, s->tbase);
    s->tcount = 2;
  } else {
    if (s->tcount) close_tail(s, m);
    s->tbase = v;
    s->tcount = 1;
  }
  s->nvalues++;
}

void tf_vseq_push_run(tf_vseq *s, int64_t base, int64_t step, uint64_t count, tf_mem *m) {
  while (count) {
    if (s->tcount >= 2 && step == s->tstep && base == tf_wadd(s->tbase, tf_wmul(s->tstep, s->tcount))) {
      s->tcount += count;
      s->nvalues += count;
      return;
    }
    tf_vseq_push(s, base, m);
    base = tf_wadd(base, step);
    count--;
  }
}

static void append_items(tf_vseq *dst, const tf_vitem *it, uint32_t n, int64_t offset, tf_mem *m) {
  for (uint32_t i = 0; i < n; i++) {
    if (!it[i].nbody) {
      tf_vseq_push_run(dst, tf_wadd(it[i].base, offset), it[i].step, it[i].count, m);
      continue;
    }
    for (uint64_t r = 0; r < it[i].count; r++)
      append_items(dst, it[i].body, it[i].nbody, tf_wadd(offset, tf_wmul(it[i].step, r)), m);
  }
}

void tf_vseq_append(tf_vseq *dst, const tf_vseq *src, tf_mem *m) {
  append_items(dst, src->items, src->n, 0, m);
  tf_vitem tail = tf_vseq_tail(src);
  if (tail.count) tf_vseq_push_run(dst, tail.base, tail.step, tail.count, m);
}

/* Deep copy of n items with every base moved by offset (the values of a
 * repeat's body are its bases plus the shift of each repetition, so moving
 * every base moves every value). NULL when out of memory. */
static tf_vitem *shifted_items(const tf_vitem *it, uint32_t n, int64_t offset, tf_mem *m) {
  tf_vitem *out = malloc((n ? n : 1) * sizeof *out);
  if (!out) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += n * sizeof *out;
  for (uint32_t i = 0; i < n; i++) {
    out[i] = it[i];
    out[i].base = tf_wadd(it[i].base, offset);
    out[i].body = NULL;
    if (it[i].nbody && !(out[i].body = shifted_items(it[i].body, it[i].nbody, offset, m))) {
      out[i].nbody = 0;
      free_items(out, i + 1, m);
      free(out);
      m->bytes -= n * sizeof *out;
      return NULL;
    }
  }
  return out;
}

void tf_vseq_append_items(tf_vseq *dst, const tf_vseq *src, int64_t offset, tf_mem *m) {
  if (src->n) {
    if (dst->tcount) close_tail(dst, m);
    tf_vitem *copy = shifted_items(src->items, src->n, offset, m);
    if (!copy) return;
    if (dst->n + src->n > dst->cap) {
      uint32_t cap = dst->n + src->n;
      tf_vitem *ni = realloc(dst->items, cap * sizeof *ni);
      if (!ni) {
        free_items(copy, src->n, m);
        free(copy);
        m->bytes -= src->n * sizeof *copy;
        m->failed = 1;
        return;
      }
      m->bytes += (cap - dst->cap) * sizeof *ni;
      dst->items = ni;
      dst->cap = cap;
    }
    memcpy(dst->items + dst->n, copy, src->n * sizeof *copy);
    dst->n += src->n;
    free(copy);
    m->bytes -= src->n * sizeof *copy;
    dst->nvalues += src->nvalues - src->tcount;
  }
  tf_vitem tail = tf_vseq_tail(src);
  if (tail.count) tf_vseq_push_run(dst, tf_wadd(tail.base, offset), tail.step, tail.count, m);
}

#define SUM_LIMIT ((__int128)1 << 120)
static __int128 sat(__int128 v) { return v > SUM_LIMIT ? SUM_LIMIT : v < -SUM_LIMIT ? -SUM_LIMIT : v; }

/* Sum and number of the values of n items. */
static void items_sum(const tf_vitem *it, uint32_t n, __int128 *sum, __int128 *count) {
  *sum = *count = 0;
  for (uint32_t i = 0; i < n; i++) {
    __int128 c = (__int128)it[i].count, s, k;
    if (!it[i].nbody) {
      k = c; /* base + step * j for j < c */
      s = sat(sat((__int128)it[i].base * c) + sat((__int128)it[i].step * sat(c * (c - 1) / 2)));
    } else {
      __int128 bs, bc;
      items_sum(it[i].body, it[i].nbody, &bs, &bc);
      k = sat(bc * c); /* repetition r adds r * step to each of its bc values */
      s = sat(sat(bs * c) + sat(sat((__int128)it[i].step * bc) * sat(c * (c - 1) / 2)));
    }
    *sum = sat(*sum + s);
    *count = sat(*count + k);
  }
}

__int128 tf_vseq_sum(const tf_vseq *s) {
  __int128 sum, count;
  items_sum(s->items, s->n, &sum, &count);
  tf_vitem tail = tf_vseq_tail(s);
  if (tail.count) {
    __int128 ts, tc;
    items_sum(&tail, 1, &ts, &tc);
    sum = sat(sum + ts);
  }
  return sum;
}

void tf_vseq_set_single(tf_vseq *s, int64_t v) { s->tbase = v; }

int tf_vseq_is_constant(const tf_vseq *s, int64_t *value) {
  if (s->n + (s->tcount ? 1 : 0) != 1) return 0;
  if (s->n) { /* one closed item (as read from a file) */
    const tf_vitem *x = &s->items[0];
    if (x->nbody || (x->count > 1 && x->step != 0)) return 0;
    *value = x->base;
    return 1;
  }
  if (s->tcount > 1 && s->tstep != 0) return 0;
  *value = s->tbase;
  return 1;
}

void tf_vseq_seal(tf_vseq *s, tf_mem *m) {
  if (s->tcount && s->n) close_tail(s, m); /* a lone open run stays open: it is already one item */
}

uint32_t tf_vseq_depth(const tf_vseq *s) {
  uint32_t d = 0;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->items[i].depth > d) d = s->items[i].depth;
  return d;
}

size_t tf_vseq_iter_size(const tf_vseq *s) {
  return sizeof(tf_vseq_iter) + (tf_vseq_depth(s) + 1) * sizeof(tf_vseq_level);
}

void tf_vseq_iter_init(tf_vseq_iter *it, const tf_vseq *s) {
  it->s = s;
  it->depth = 1;
  it->tk = 0;
  it->lv[0] = (tf_vseq_level){.items = s->items, .n = s->n};
}

int tf_vseq_iter_next(tf_vseq_iter *it, int64_t *v) {
  while (it->depth > 0) {
    tf_vseq_level *L = &it->lv[it->depth - 1];
    if (L->i == L->n) { /* this level is done: next repetition of the repeat above */
      if (--it->depth == 0) break;
      tf_vseq_level *P = &it->lv[it->depth - 1];
      if (++P->k == P->items[P->i].count) {
        P->i++;
        P->k = 0;
      }
      continue;
    }
    const tf_vitem *x = &L->items[L->i];
    if (!x->nbody) {
      *v = tf_wadd(tf_wadd(L->offset, x->base), tf_wmul(x->step, L->k));
      if (++L->k == x->count) {
        L->i++;
        L->k = 0;
      }
      return 1;
    }
    it->lv[it->depth++] = (tf_vseq_level){.items = x->body, .n = x->nbody, .offset = tf_wadd(L->offset, tf_wmul(x->step, L->k))};
  }
  const tf_vseq *s = it->s;
  if (it->tk >= s->tcount) return 0;
  tf_vitem tail = tf_vseq_tail(s);
  *v = tf_wadd(tail.base, tf_wmul(tail.step, it->tk++));
  return 1;
}

/* ---- random access ---- */

uint64_t tf_vitem_nvalues(const tf_vitem *it) {
  if (!it->nbody) return it->count;
  uint64_t n = 0;
  for (uint32_t i = 0; i < it->nbody; i++) n += tf_vitem_nvalues(&it->body[i]);
  return n * it->count;
}

/* Value k of items[0..n) (k below their number of values), offset added. */
static int64_t items_value_at(const tf_vitem *items, uint32_t n, uint64_t k, int64_t offset) {
  for (uint32_t i = 0; i < n; i++) {
    const tf_vitem *x = &items[i];
    uint64_t nv = tf_vitem_nvalues(x);
    if (k >= nv) {
      k -= nv;
      continue;
    }
    if (!x->nbody) return tf_wadd(tf_wadd(offset, x->base), tf_wmul(x->step, k));
    uint64_t per = nv / x->count; /* values of one repetition */
    return items_value_at(x->body, x->nbody, k % per, tf_wadd(offset, tf_wmul(x->step, k / per)));
  }
  return 0;
}

int64_t tf_vseq_value_at(const tf_vseq *s, int64_t k) {
  if (k < 0 || (uint64_t)k >= s->nvalues) return 0;
  uint64_t in_items = s->nvalues - s->tcount;
  if ((uint64_t)k < in_items) return items_value_at(s->items, s->n, (uint64_t)k, 0);
  tf_vitem tail = tf_vseq_tail(s);
  return tf_wadd(tail.base, tf_wmul(tail.step, (uint64_t)k - in_items));
}

/* ---- copies, comparison, hashing (merging across ranks) ---- */

static tf_vitem *copy_items(const tf_vitem *it, uint32_t n, tf_mem *m) {
  tf_vitem *c = malloc((n ? n : 1) * sizeof *c);
  if (!c) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += n * sizeof *c;
  memcpy(c, it, n * sizeof *c);
  for (uint32_t i = 0; i < n; i++)
    if (it[i].nbody && !(c[i].body = copy_items(it[i].body, it[i].nbody, m))) {
      for (uint32_t k = i; k < n; k++) c[k].nbody = 0, c[k].body = NULL;
      free_items(c, i, m);
      free(c);
      m->bytes -= n * sizeof *c;
      return NULL;
    }
  return c;
}

int tf_vseq_copy(tf_vseq *dst, const tf_vseq *src, tf_mem *m) {
  *dst = *src;
  dst->items = NULL;
  dst->n = dst->cap = 0;
  if (!src->n) return 0;
  if (!(dst->items = copy_items(src->items, src->n, m))) {
    tf_vseq_init(dst);
    return -1;
  }
  dst->n = dst->cap = src->n;
  return 0;
}

static int equal_items(const tf_vitem *a, const tf_vitem *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i].base != b[i].base || a[i].step != b[i].step || a[i].count != b[i].count || a[i].nbody != b[i].nbody ||
        (a[i].nbody && !equal_items(a[i].body, b[i].body, a[i].nbody)))
      return 0;
  return 1;
}

int tf_vseq_equal(const tf_vseq *a, const tf_vseq *b) {
  tf_vitem ta = tf_vseq_tail(a), tb = tf_vseq_tail(b);
  return a->n == b->n && a->nvalues == b->nvalues && ta.count == tb.count &&
         (!ta.count || (ta.base == tb.base && ta.step == tb.step)) && equal_items(a->items, b->items, a->n);
}

static uint64_t hash_items(uint64_t h, const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    h = tf_mix(tf_mix(tf_mix(tf_mix(h, (uint64_t)it[i].base), (uint64_t)it[i].step), it[i].count), it[i].nbody);
    if (it[i].nbody) h = hash_items(h, it[i].body, it[i].nbody);
  }
  return h;
}

uint64_t tf_vseq_hash(const tf_vseq *s) {
  tf_vitem t = tf_vseq_tail(s);
  uint64_t h = hash_items(tf_mix(0x5653, s->n), s->items, s->n);
  return t.count ? hash_items(h, &t, 1) : h;
}
