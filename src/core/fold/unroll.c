/* unroll.c — walk folded segments event by event; see unroll.h. */
#include "fold/unroll.h"

#include <stdlib.h>

static uint32_t nreaders(const tf_fnode *x) { return x->is_loop ? 1 : 1 + x->nslots; }
static const tf_vseq *reader_seq(const tf_fnode *x, uint32_t k) {
  return x->is_loop ? &x->iters : k == 0 ? &x->nvals : &x->slots[k - 1];
}

static int attach(tf_fnode *const *nodes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_fnode *x = nodes[i];
    uint32_t k = nreaders(x);
    x->rd = calloc(k, sizeof *x->rd);
    if (!x->rd) return -1;
    for (uint32_t j = 0; j < k; j++) {
      const tf_vseq *s = reader_seq(x, j);
      if (!(x->rd[j] = malloc(tf_vseq_iter_size(s)))) return -1;
      tf_vseq_iter_init(x->rd[j], s);
    }
    if (x->is_loop && attach(x->body, x->nbody)) return -1;
  }
  return 0;
}

static void detach(tf_fnode *const *nodes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_fnode *x = nodes[i];
    if (!x->rd) continue;
    for (uint32_t j = 0; j < nreaders(x); j++) free(x->rd[j]);
    free(x->rd);
    x->rd = NULL;
    if (x->is_loop) detach(x->body, x->nbody);
  }
}

static void restart(tf_fnode *const *nodes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_fnode *x = nodes[i];
    for (uint32_t j = 0; j < nreaders(x); j++) tf_vseq_iter_init(x->rd[j], reader_seq(x, j));
    if (x->is_loop) restart(x->body, x->nbody);
  }
}

/* After the last event: every value sequence must have been read to its end. */
static int all_read(tf_fnode *const *nodes, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tf_fnode *x = nodes[i];
    int64_t v;
    for (uint32_t j = 0; j < nreaders(x); j++)
      if (tf_vseq_iter_next(x->rd[j], &v)) return 0;
    if (x->is_loop && !all_read(x->body, x->nbody)) return 0;
  }
  return 1;
}

int tf_unroll_init(tf_unroll *u, tf_fnode **const *segs, const uint32_t *segn, uint32_t nsegs,
                   const tf_func_desc *funcs) {
  *u = (tf_unroll){.segs = segs, .segn = segn, .nsegs = nsegs, .funcs = funcs};
  for (uint32_t s = 0; s < nsegs; s++)
    if (attach(segs[s], segn[s])) {
      tf_unroll_free(u);
      return -1;
    }
  tf_unroll_rewind(u);
  return 0;
}

void tf_unroll_rewind(tf_unroll *u) {
  for (uint32_t s = 0; s < u->nsegs; s++) restart(u->segs[s], u->segn[s]);
  u->seg = 0;
  u->depth = 0;
  u->codec = (tf_req_transform){0};
  tf_prev_free(&u->prev);
  u->error = NULL;
}

static uint64_t mean_of(uint64_t sum, uint64_t n) { return n ? (sum + n / 2) / n : 0; }

const tf_tpath *tf_timing_estimate(const tf_timing *t, uint32_t prev_fn, uint32_t prev_site, uint64_t *compute_ns,
                                   uint64_t *duration_ns) {
  const tf_tpath *p = t->npaths == 1 ? &t->paths[0] : tf_timing_find(t, prev_fn, prev_site);
  if (p) {
    *compute_ns = mean_of(p->compute.sum, p->compute.n);
    *duration_ns = mean_of(p->duration.sum, p->duration.n);
    return p;
  }
  uint64_t cs = 0, cn = 0, ds = 0, dn = 0;
  for (uint32_t i = 0; i < t->npaths; i++) {
    cs += t->paths[i].compute.sum;
    cn += t->paths[i].compute.n;
    ds += t->paths[i].duration.sum;
    dn += t->paths[i].duration.n;
  }
  *compute_ns = mean_of(cs, cn);
  *duration_ns = mean_of(ds, dn);
  return NULL;
}

static int fail(tf_unroll *u, const char *why) {
  u->error = why;
  return -1;
}

int tf_unroll_next(tf_unroll *u, tf_unroll_event *ev) {
  if (u->error) return -1;
  for (;;) {
    if (u->depth == 0) {
      if (u->seg > 0 && !all_read(u->segs[u->seg - 1], u->segn[u->seg - 1]))
        return fail(u, "a parameter sequence holds values no event uses");
      if (u->seg == u->nsegs) return 0;
      u->stack[0] = (tf_unroll_frame){.nodes = u->segs[u->seg], .n = u->segn[u->seg]};
      u->seg++;
      u->depth = 1;
    }
    tf_unroll_frame *fr = &u->stack[u->depth - 1];
    if (fr->i == fr->n) {
      if (fr->left) {
        fr->left--;
        fr->i = 0;
      } else {
        u->depth--;
      }
      continue;
    }
    tf_fnode *x = fr->nodes[fr->i++];
    int64_t v;
    if (x->is_loop) {
      if (!tf_vseq_iter_next(x->rd[0], &v) || v < 1) return fail(u, "loop iteration counts run out");
      u->stack[u->depth++] = (tf_unroll_frame){.nodes = x->body, .n = x->nbody, .left = (uint64_t)v - 1};
      continue;
    }
    if (!tf_vseq_iter_next(x->rd[0], &v) || v < 0 || (uint64_t)v > x->nslots)
      return fail(u, "event value counts run out");
    uint32_t nv = (uint32_t)v;
    if (nv > u->cap) {
      int64_t *nvv = realloc(u->vals, nv * sizeof *nvv);
      if (!nvv) return fail(u, "out of memory");
      u->vals = nvv;
      u->cap = nv;
    }
    for (uint32_t j = 0; j < nv; j++)
      if (!tf_vseq_iter_next(x->rd[1 + j], &u->vals[j])) return fail(u, "a parameter sequence runs out");
    if (tf_req_transform_undo(&u->codec, &u->funcs[x->fn], u->vals, nv))
      return fail(u, "event values do not fit the function's parameters");
    *ev = (tf_unroll_event){.fn = x->fn, .thread = x->thread, .site = x->site, .node = x, .nvals = nv, .vals = u->vals};
    uint32_t pf, ps;
    tf_prev_get(&u->prev, x->thread, &pf, &ps);
    ev->path = tf_timing_estimate(&x->timing, pf, ps, &ev->compute_ns, &ev->duration_ns);
    if (tf_prev_set(&u->prev, x->thread, x->fn, x->site)) return fail(u, "out of memory");
    return 1;
  }
}

void tf_unroll_free(tf_unroll *u) {
  for (uint32_t s = 0; s < u->nsegs; s++) detach(u->segs[s], u->segn[s]);
  free(u->vals);
  u->vals = NULL;
  u->cap = 0;
  tf_prev_free(&u->prev);
}
