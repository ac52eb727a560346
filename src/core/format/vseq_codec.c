/* vseq_codec.c — encode / decode-and-validate value sequences; see vseq_codec.h. */
#include "format/vseq_codec.h"

#include <stdlib.h>

enum { IT_SINGLE = 0, IT_RUN = 1, IT_REPEAT = 2 };

static void put_items(tf_buf *b, const tf_vitem *it, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (it[i].nbody) {
      tf_buf_put_u8(b, IT_REPEAT);
      tf_buf_put_svar(b, it[i].step);
      tf_buf_put_uvar(b, it[i].count);
      tf_buf_put_uvar(b, it[i].nbody);
      put_items(b, it[i].body, it[i].nbody);
    } else if (it[i].count == 1) {
      tf_buf_put_u8(b, IT_SINGLE);
      tf_buf_put_svar(b, it[i].base);
    } else {
      tf_buf_put_u8(b, IT_RUN);
      tf_buf_put_svar(b, it[i].base);
      tf_buf_put_svar(b, it[i].step);
      tf_buf_put_uvar(b, it[i].count);
    }
  }
}

void tf_vseq_encode(tf_buf *b, const tf_vseq *s) {
  tf_buf_put_uvar(b, s->n + (s->tcount ? 1 : 0));
  put_items(b, s->items, s->n);
  if (s->tcount) {
    tf_vitem tail = tf_vseq_tail(s);
    put_items(b, &tail, 1);
  }
}

typedef struct dec {
  tf_cursor *c;
  tf_mem *m;
  const char *why;
} dec;

static int bad(dec *d, const char *why) {
  if (!d->why) d->why = why;
  return -1;
}

static int get_items(dec *d, tf_vitem **out, uint32_t n, uint32_t depth, tf_vfacts *f);

static int get_item(dec *d, tf_vitem *it, uint32_t depth, tf_vfacts *f) {
  uint8_t kind = tf_cur_u8(d->c);
  *it = (tf_vitem){0};
  if (kind == IT_SINGLE || kind == IT_RUN) {
    it->base = tf_cur_svar(d->c);
    it->step = kind == IT_RUN ? tf_cur_svar(d->c) : 0;
    it->count = kind == IT_RUN ? tf_cur_uvar(d->c) : 1;
    if (d->c->bad) return bad(d, "truncated value sequence");
    if (it->count < 1 || (kind == IT_RUN && it->count < 2) || it->count > (uint64_t)TF_VSEQ_LIMIT)
      return bad(d, "bad run length");
    __int128 last = (__int128)it->base + (__int128)it->step * (__int128)(it->count - 1);
    f->count = it->count;
    f->min = it->base < last ? it->base : last;
    f->max = it->base < last ? last : it->base;
    f->sum = tf_vclamp(tf_vclamp((__int128)it->base + last) * (__int128)it->count / 2);
    f->increasing = it->count == 1 || it->step > 0;
    tf_vitem_reshape(it);
    return 0;
  }
  if (kind != IT_REPEAT) return bad(d, "unknown value-sequence item");
  it->step = tf_cur_svar(d->c);
  it->count = tf_cur_uvar(d->c);
  uint64_t nbody = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated value sequence");
  if (it->count < 2 || it->count > (uint64_t)TF_VSEQ_LIMIT || nbody < 1 || nbody > (uint64_t)(d->c->end - d->c->p))
    return bad(d, "bad repeat");
  if (depth >= TF_VSEQ_MAXDEPTH) return bad(d, "value sequence nested too deep");
  tf_vfacts bf;
  int rc = get_items(d, &it->body, (uint32_t)nbody, depth + 1, &bf);
  if (it->body) it->nbody = (uint32_t)nbody; /* a partial body is freed with the item */
  if (rc) return -1;
  it->base = it->body[0].base;
  for (uint32_t i = 0; i < it->nbody; i++)
    if (it->body[i].depth + 1 > it->depth) it->depth = it->body[i].depth + 1;
  tf_vitem_reshape(it);
  __int128 span = tf_vclamp((__int128)it->step * (__int128)(it->count - 1));
  f->count = tf_vclamp(bf.count * (__int128)it->count);
  f->min = tf_vclamp(bf.min + (span < 0 ? span : 0));
  f->max = tf_vclamp(bf.max + (span > 0 ? span : 0));
  /* sum over repetitions r of (body sum + r*shift*body count) */
  __int128 tri = tf_vclamp((__int128)it->count * (__int128)(it->count - 1) / 2);
  f->sum = tf_vclamp(tf_vclamp(bf.sum * (__int128)it->count) + tf_vclamp(tf_vclamp((__int128)it->step * bf.count) * tri));
  /* increasing if each repetition starts above the previous one's last value */
  f->increasing = bf.increasing && (__int128)it->step > bf.max - bf.min;
  if (f->count > TF_VSEQ_LIMIT) return bad(d, "value sequence too long");
  return 0;
}

static int get_items(dec *d, tf_vitem **out, uint32_t n, uint32_t depth, tf_vfacts *f) {
  tf_vitem *it = calloc(n ? n : 1, sizeof *it);
  *out = it;
  if (!it) return bad(d, "out of memory");
  d->m->bytes += n * sizeof *it;
  *f = (tf_vfacts){.min = TF_VSEQ_LIMIT + 1, .max = -TF_VSEQ_LIMIT - 1, .increasing = 1};
  for (uint32_t i = 0; i < n; i++) {
    tf_vfacts g;
    if (get_item(d, &it[i], depth, &g)) return -1;
    if (i && g.min <= f->max) f->increasing = 0; /* must start above everything before */
    f->increasing &= g.increasing;
    f->count = tf_vclamp(f->count + g.count);
    f->sum = tf_vclamp(f->sum + g.sum);
    if (g.min < f->min) f->min = g.min;
    if (g.max > f->max) f->max = g.max;
  }
  return 0;
}

int tf_vseq_decode(tf_cursor *c, tf_vseq *s, tf_mem *m, tf_vfacts *f, const char **why) {
  dec d = {.c = c, .m = m};
  tf_vseq_init(s);
  uint64_t n = tf_cur_uvar(c);
  int rc = -1;
  if (c->bad) {
    bad(&d, "truncated value sequence");
  } else if (n > (uint64_t)(c->end - c->p)) {
    bad(&d, "bad value-sequence length");
  } else {
    rc = get_items(&d, &s->items, (uint32_t)n, 0, f);
    if (s->items) s->n = s->cap = (uint32_t)n;
    if (!rc && f->count > TF_VSEQ_LIMIT) rc = bad(&d, "value sequence too long");
    if (!rc) s->nvalues = (uint64_t)f->count;
    if (!rc && s->n && !s->items[s->n - 1].nbody) { /* a last run is the open run, as when it was written */
      tf_vitem *t = &s->items[--s->n];
      s->tbase = t->base;
      s->tstep = t->step;
      s->tcount = t->count;
    }
  }
  *why = d.why;
  return rc;
}
