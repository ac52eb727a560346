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

int tf_unroll_init(tf_unroll *u, tf_fnode **const *segs, const uint32_t *segn, const tf_order *orders,
                   uint32_t nsegs, const tf_func_desc *funcs) {
  *u = (tf_unroll){.segs = segs, .segn = segn, .orders = orders, .nsegs = nsegs, .funcs = funcs};
  for (uint32_t s = 0; s < nsegs; s++)
    if (attach(segs[s], segn[s])) {
      tf_unroll_free(u);
      return -1;
    }
  tf_unroll_rewind(u);
  return 0;
}

/* Leave the current segment: its streams and order readers. */
static void leave_segment(tf_unroll *u) {
  for (uint32_t i = 0; i < u->nstreams; i++) free(u->streams[i].stack);
  free(u->streams);
  free(u->runs);
  free(u->lengths);
  u->streams = NULL;
  u->runs = u->lengths = NULL;
  u->nstreams = 0;
  u->in_seg = 0;
}

void tf_unroll_rewind(tf_unroll *u) {
  for (uint32_t s = 0; s < u->nsegs; s++) restart(u->segs[s], u->segn[s]);
  leave_segment(u);
  u->seg = 0;
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

/* Enter segment u->seg: cut its top-level nodes into streams, start its
 * order. 0, or -1 (u->error). */
static int enter_segment(tf_unroll *u) {
  static const tf_order one;
  const tf_order *o = u->orders ? &u->orders[u->seg] : &one;
  uint64_t ns = tf_order_nstreams(o);
  tf_fnode *const *top = u->segs[u->seg];
  uint32_t ntop = u->segn[u->seg];
  if (ns > TF_STREAMS_MAX) return fail(u, "too many streams");
  u->streams = calloc(ns, sizeof *u->streams);
  u->runs = malloc(tf_vseq_iter_size(&o->runs));
  u->lengths = malloc(tf_vseq_iter_size(&o->lengths));
  if (!u->streams || !u->runs || !u->lengths) return fail(u, "out of memory");
  u->nstreams = (uint32_t)ns;
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(&o->sizes));
  if (!it) return fail(u, "out of memory");
  tf_vseq_iter_init(it, &o->sizes);
  uint32_t at = 0;
  for (uint32_t i = 0; i < u->nstreams; i++) {
    int64_t size;
    if (i + 1 < u->nstreams) {
      if (!tf_vseq_iter_next(it, &size) || size < 0 || (uint64_t)size > ntop - at) {
        free(it);
        return fail(u, "stream sizes do not fit the nodes");
      }
    } else {
      size = ntop - at;
    }
    u->streams[i].top = top + at;
    u->streams[i].ntop = (uint32_t)size;
    at += (uint32_t)size;
  }
  free(it);
  tf_vseq_iter_init(u->runs, &o->runs);
  tf_vseq_iter_init(u->lengths, &o->lengths);
  u->in_seg = 1;
  u->cur = 0;
  u->run_left = UINT64_MAX; /* one stream: one run to its end */
  if (o->runs.nvalues) {
    int64_t r, len;
    if (!tf_vseq_iter_next(u->runs, &r) || r < 0 || (uint64_t)r >= u->nstreams) return fail(u, "a run of an unknown stream");
    u->cur = (uint32_t)r;
    if (tf_vseq_iter_next(u->lengths, &len)) {
      if (len < 1) return fail(u, "an empty run");
      u->run_left = (uint64_t)len;
    }
  }
  return 0;
}

/* The next event node of stream st, or NULL at its end (-1 in *rc when malformed). */
static tf_fnode *stream_next(tf_unroll *u, tf_unroll_stream *st, int *rc) {
  *rc = 0;
  if (!st->started) {
    st->started = 1;
    if (!st->ntop) return NULL;
    if (!st->cap) {
      if (!(st->stack = malloc(4 * sizeof *st->stack))) return *rc = fail(u, "out of memory"), NULL;
      st->cap = 4;
    }
    st->stack[0] = (tf_unroll_frame){.nodes = st->top, .n = st->ntop};
    st->depth = 1;
  }
  while (st->depth) {
    tf_unroll_frame *fr = &st->stack[st->depth - 1];
    if (fr->i == fr->n) {
      if (fr->left) {
        fr->left--;
        fr->i = 0;
      } else {
        st->depth--;
      }
      continue;
    }
    tf_fnode *x = fr->nodes[fr->i++];
    if (!x->is_loop) return x;
    int64_t v;
    if (!tf_vseq_iter_next(x->rd[0], &v) || v < 1) return *rc = fail(u, "loop iteration counts run out"), NULL;
    if (st->depth == st->cap) {
      uint32_t cap = 2 * st->cap;
      tf_unroll_frame *ns = cap > TF_FOLD_MAXDEPTH + 2 ? NULL : realloc(st->stack, cap * sizeof *ns);
      if (!ns) return *rc = fail(u, cap > TF_FOLD_MAXDEPTH + 2 ? "loops nested too deep" : "out of memory"), NULL;
      st->stack = ns;
      st->cap = cap;
    }
    st->stack[st->depth++] = (tf_unroll_frame){.nodes = x->body, .n = x->nbody, .left = (uint64_t)v - 1};
  }
  return NULL;
}

/* A stream that has given all its events (its frames may still be there,
 * each at its end). */
static int stream_done(const tf_unroll_stream *st) {
  if (!st->started) return st->ntop == 0;
  for (uint32_t d = 0; d < st->depth; d++)
    if (st->stack[d].i != st->stack[d].n || st->stack[d].left) return 0;
  return 1;
}

/* The next event node of the segment in the order's sequence; NULL at the
 * segment's end (-1 in *rc when malformed). */
static tf_fnode *segment_next(tf_unroll *u, int *rc) {
  for (;;) {
    if (u->run_left == 0) { /* the next run */
      int64_t r, len;
      if (!tf_vseq_iter_next(u->runs, &r) || r < 0 || (uint64_t)r >= u->nstreams || (uint32_t)r == u->cur)
        return *rc = fail(u, "bad order of runs"), NULL;
      u->cur = (uint32_t)r;
      u->run_left = UINT64_MAX;
      if (tf_vseq_iter_next(u->lengths, &len)) {
        if (len < 1) return *rc = fail(u, "an empty run"), NULL;
        u->run_left = (uint64_t)len;
      }
    }
    tf_fnode *x = stream_next(u, &u->streams[u->cur], rc);
    if (*rc) return NULL;
    if (x) {
      if (u->run_left != UINT64_MAX) u->run_left--;
      return x;
    }
    /* the stream ended: only the last run may end so, and every stream must be done */
    if (u->run_left != UINT64_MAX) return *rc = fail(u, "a run holds more events than its stream"), NULL;
    for (uint32_t i = 0; i < u->nstreams; i++)
      if (!stream_done(&u->streams[i])) return *rc = fail(u, "a stream holds events the order never reaches"), NULL;
    return NULL;
  }
}

int tf_unroll_next(tf_unroll *u, tf_unroll_event *ev) {
  if (u->error) return -1;
  tf_fnode *x = NULL;
  while (!x) {
    if (!u->in_seg) {
      if (u->seg > 0 && !all_read(u->segs[u->seg - 1], u->segn[u->seg - 1]))
        return fail(u, "a parameter sequence holds values no event uses");
      if (u->seg == u->nsegs) return 0;
      if (enter_segment(u)) return -1;
      u->seg++;
    }
    int rc;
    x = segment_next(u, &rc);
    if (rc) return -1;
    if (!x) {
      int64_t v;
      if (tf_vseq_iter_next(u->runs, &v)) return fail(u, "the order holds runs after the last event");
      leave_segment(u);
    }
  }
  int64_t v;
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

void tf_unroll_free(tf_unroll *u) {
  leave_segment(u);
  for (uint32_t s = 0; s < u->nsegs; s++) detach(u->segs[s], u->segn[s]);
  free(u->vals);
  u->vals = NULL;
  u->cap = 0;
  tf_prev_free(&u->prev);
}
