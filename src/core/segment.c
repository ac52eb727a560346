/* segment.c — encode / decode-and-validate folded node sequences; see segment.h. */
#include "segment.h"

#include <stdlib.h>

#include "hash.h"

enum { IT_SINGLE = 0, IT_RUN = 1, IT_REPEAT = 2 };
enum { ND_EVENT = 0, ND_LOOP = 1 };

/* ------------------------------------------------------------- encode */

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

static void put_vseq(tf_buf *b, const tf_vseq *s) {
  tf_buf_put_uvar(b, s->n + (s->tcount ? 1 : 0));
  put_items(b, s->items, s->n);
  if (s->tcount) {
    tf_vitem tail = tf_vseq_tail(s);
    put_items(b, &tail, 1);
  }
}

static void put_stat(tf_buf *b, const tf_timestat *t, uint64_t occ) {
  tf_buf_put_uvar(b, t->min);
  tf_buf_put_uvar(b, t->max);
  tf_buf_put_uvar(b, occ ? t->sum / occ : 0);
}

void tf_segment_encode(tf_buf *b, tf_fnode *const *nodes, uint32_t n) {
  tf_buf_put_uvar(b, n);
  for (uint32_t i = 0; i < n; i++) {
    const tf_fnode *x = nodes[i];
    if (x->is_loop) {
      tf_buf_put_u8(b, ND_LOOP);
      put_vseq(b, &x->iters);
      tf_segment_encode(b, x->body, x->nbody);
    } else {
      tf_buf_put_u8(b, ND_EVENT);
      tf_buf_put_uvar(b, x->fn);
      tf_buf_put_uvar(b, x->thread);
      tf_buf_put_uvar(b, x->site);
      put_vseq(b, &x->nvals);
      tf_buf_put_uvar(b, x->nslots);
      for (uint32_t j = 0; j < x->nslots; j++) put_vseq(b, &x->slots[j]);
      put_stat(b, &x->compute, x->nvals.nvalues);
      put_stat(b, &x->duration, x->nvals.nvalues);
    }
  }
}

/* ------------------------------------------------------------- decode */

#define LIMIT ((__int128)1 << 62) /* occurrence, value and event counts above this are refused */

typedef struct dec {
  tf_cursor *c;
  uint32_t nfuncs, ncallsites;
  tf_mem *m;
  const char *why;
} dec;

static int bad(dec *d, const char *why) {
  if (!d->why) d->why = why;
  return -1;
}

static __int128 clampv(__int128 v) { return v > LIMIT ? LIMIT + 1 : v < -LIMIT ? -LIMIT - 1 : v; }

/* Range facts about an item list: number of values, and (clamped) min,
 * max and sum of the values as exact integers. */
typedef struct vfacts {
  __int128 count, min, max, sum;
} vfacts;

static int get_items(dec *d, tf_vitem **out, uint32_t n, uint32_t depth, vfacts *f);

static int get_item(dec *d, tf_vitem *it, uint32_t depth, vfacts *f) {
  uint8_t kind = tf_cur_u8(d->c);
  *it = (tf_vitem){0};
  if (kind == IT_SINGLE || kind == IT_RUN) {
    it->base = tf_cur_svar(d->c);
    it->step = kind == IT_RUN ? tf_cur_svar(d->c) : 0;
    it->count = kind == IT_RUN ? tf_cur_uvar(d->c) : 1;
    if (d->c->bad) return bad(d, "truncated value sequence");
    if (it->count < 1 || (kind == IT_RUN && it->count < 2) || it->count > (uint64_t)LIMIT)
      return bad(d, "bad run length");
    __int128 last = (__int128)it->base + (__int128)it->step * (__int128)(it->count - 1);
    f->count = it->count;
    f->min = it->base < last ? it->base : last;
    f->max = it->base < last ? last : it->base;
    f->sum = clampv(clampv((__int128)it->base + last) * (__int128)it->count / 2);
    return 0;
  }
  if (kind != IT_REPEAT) return bad(d, "unknown value-sequence item");
  it->step = tf_cur_svar(d->c);
  it->count = tf_cur_uvar(d->c);
  uint64_t nbody = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated value sequence");
  if (it->count < 2 || it->count > (uint64_t)LIMIT || nbody < 1 || nbody > (uint64_t)(d->c->end - d->c->p))
    return bad(d, "bad repeat");
  if (depth >= TF_VSEQ_MAXDEPTH) return bad(d, "value sequence nested too deep");
  vfacts bf;
  int rc = get_items(d, &it->body, (uint32_t)nbody, depth + 1, &bf);
  if (it->body) it->nbody = (uint32_t)nbody; /* a partial body is freed with the item */
  if (rc) return -1;
  it->base = it->body[0].base;
  for (uint32_t i = 0; i < it->nbody; i++)
    if (it->body[i].depth + 1 > it->depth) it->depth = it->body[i].depth + 1;
  __int128 span = clampv((__int128)it->step * (__int128)(it->count - 1));
  f->count = clampv(bf.count * (__int128)it->count);
  f->min = clampv(bf.min + (span < 0 ? span : 0));
  f->max = clampv(bf.max + (span > 0 ? span : 0));
  /* sum over repetitions r of (body sum + r*shift*body count) */
  __int128 tri = clampv((__int128)it->count * (__int128)(it->count - 1) / 2);
  f->sum = clampv(clampv(bf.sum * (__int128)it->count) + clampv(clampv((__int128)it->step * bf.count) * tri));
  if (f->count > LIMIT) return bad(d, "value sequence too long");
  return 0;
}

static int get_items(dec *d, tf_vitem **out, uint32_t n, uint32_t depth, vfacts *f) {
  tf_vitem *it = calloc(n ? n : 1, sizeof *it);
  *out = it;
  if (!it) return bad(d, "out of memory");
  d->m->bytes += n * sizeof *it;
  *f = (vfacts){.min = LIMIT + 1, .max = -LIMIT - 1};
  for (uint32_t i = 0; i < n; i++) {
    vfacts g;
    if (get_item(d, &it[i], depth, &g)) return -1;
    f->count = clampv(f->count + g.count);
    f->sum = clampv(f->sum + g.sum);
    if (g.min < f->min) f->min = g.min;
    if (g.max > f->max) f->max = g.max;
    it[i].shape = 0; /* shapes only matter while folding */
  }
  return 0;
}

/* A value sequence of exactly `expect` values (expect < 0: any number up to
 * the limit); its facts in *f. */
static int get_vseq(dec *d, tf_vseq *s, __int128 expect, vfacts *f) {
  uint64_t n = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated value sequence");
  if (n > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad value-sequence length");
  tf_vseq_init(s);
  int rc = get_items(d, &s->items, (uint32_t)n, 0, f);
  if (s->items) s->n = s->cap = (uint32_t)n;
  if (rc) return -1;
  if (f->count > LIMIT || (expect >= 0 && f->count != expect)) return bad(d, "value count does not match occurrences");
  s->nvalues = (uint64_t)f->count;
  return 0;
}

static int get_nodes(dec *d, tf_fnode ***out, uint32_t *nout, __int128 occ, uint32_t depth, __int128 *events);

static int get_stat(dec *d, tf_timestat *t, __int128 occ) {
  t->min = tf_cur_uvar(d->c);
  t->max = tf_cur_uvar(d->c);
  uint64_t mean = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated time statistics");
  t->sum = (uint64_t)((unsigned __int128)mean * (unsigned __int128)occ);
  return 0;
}

static int get_node(dec *d, tf_fnode **out, __int128 occ, uint32_t depth, __int128 *events) {
  uint8_t kind = tf_cur_u8(d->c);
  if (d->c->bad) return bad(d, "truncated node");
  vfacts f;
  if (kind == ND_LOOP) {
    tf_fnode *x = *out = tf_fnode_new_loop(d->m);
    if (!x) return bad(d, "out of memory");
    if (depth >= TF_SEGMENT_MAXDEPTH) return bad(d, "loops nested too deep");
    if (get_vseq(d, &x->iters, occ, &f)) return -1;
    if (f.min < 1) return bad(d, "loop with fewer than one iteration");
    if (f.sum > LIMIT) return bad(d, "too many iterations");
    return get_nodes(d, &x->body, &x->nbody, f.sum, depth + 1, events);
  }
  if (kind != ND_EVENT) return bad(d, "unknown node kind");
  uint64_t fn = tf_cur_uvar(d->c), thread = tf_cur_uvar(d->c), site = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated event");
  if (fn >= d->nfuncs) return bad(d, "unknown function index");
  if (site >= d->ncallsites) return bad(d, "undeclared call site");
  if (thread > UINT32_MAX) return bad(d, "bad thread index");
  tf_fnode *x = *out = tf_fnode_new_event((uint32_t)fn, (uint32_t)thread, (uint32_t)site, d->m);
  if (!x) return bad(d, "out of memory");
  if (get_vseq(d, &x->nvals, occ, &f)) return -1;
  uint64_t nslots = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated event");
  if (nslots > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad slot count");
  if (f.min < 0 || f.max > (__int128)nslots) return bad(d, "value count outside the event's slots");
  x->slots = calloc(nslots ? nslots : 1, sizeof *x->slots);
  if (!x->slots) return bad(d, "out of memory");
  d->m->bytes += nslots * sizeof *x->slots;
  x->nslots = (uint32_t)nslots;
  for (uint32_t j = 0; j < x->nslots; j++) {
    vfacts g;
    if (get_vseq(d, &x->slots[j], -1, &g)) return -1;
    if (g.count > occ) return bad(d, "more values than occurrences");
  }
  if (get_stat(d, &x->compute, occ) || get_stat(d, &x->duration, occ)) return -1;
  *events = clampv(*events + occ);
  return 0;
}

static int get_nodes(dec *d, tf_fnode ***out, uint32_t *nout, __int128 occ, uint32_t depth, __int128 *events) {
  uint64_t n = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated node list");
  if (n < 1 || n > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad node count");
  tf_fnode **nodes = calloc(n, sizeof *nodes);
  *out = nodes;
  if (!nodes) return bad(d, "out of memory");
  d->m->bytes += n * sizeof *nodes;
  *nout = (uint32_t)n;
  for (uint32_t i = 0; i < n; i++)
    if (get_node(d, &nodes[i], occ, depth, events)) return -1;
  return 0;
}

int tf_segment_decode(tf_cursor *c, uint64_t nevents, uint32_t nfuncs, uint32_t ncallsites, tf_fnode ***nodes,
                      uint32_t *n, tf_mem *m, const char **why) {
  dec d = {.c = c, .nfuncs = nfuncs, .ncallsites = ncallsites, .m = m};
  __int128 events = 0;
  *nodes = NULL;
  *n = 0;
  int rc = get_nodes(&d, nodes, n, 1, 0, &events);
  if (!rc && events != (__int128)nevents) rc = bad(&d, "event count does not match the segment header");
  *why = d.why;
  return rc;
}
