/* segment.c — encode / decode-and-validate folded node sequences; see segment.h. */
#include "format/segment.h"

#include <stdlib.h>

#include "fold/flatrun.h"
#include "format/vseq_codec.h"

enum { ND_EVENT = 0, ND_LOOP = 1, ND_FLAT = 2, ND_CST = 0x10 /* with ND_LOOP: the loop's CST node id follows */ };

/* ------------------------------------------------------------- encode */

#define put_vseq tf_vseq_encode

/* The nodes; live: a fresh node's pending sample is counted in a temporary
 * copy of its timing (sealed nodes have none). 0, or -1 out of memory. */
static int encode_nodes(tf_buf *b, tf_fnode *const *nodes, uint32_t n, int live, tf_timing_mode mode, uint32_t bins) {
  tf_buf_put_uvar(b, n);
  for (uint32_t i = 0; i < n; i++) {
    const tf_fnode *x = nodes[i];
    if (x->run) { /* a stream's flat run, at the top level (flatrun.h) */
      tf_buf_put_u8(b, ND_FLAT);
      tf_flatrun_encode(b, x->run);
      continue;
    }
    if (x->is_loop) {
      tf_buf_put_u8(b, x->cst ? ND_LOOP | ND_CST : ND_LOOP);
      if (x->cst) tf_buf_put_uvar(b, x->cst - 1);
      put_vseq(b, &x->iters);
      if (encode_nodes(b, x->body, x->nbody, live, mode, bins)) return -1;
      continue;
    }
    tf_buf_put_u8(b, ND_EVENT);
    tf_buf_put_uvar(b, x->fn);
    tf_buf_put_uvar(b, x->thread);
    tf_buf_put_uvar(b, x->site);
    put_vseq(b, &x->nvals);
    tf_buf_put_uvar(b, x->nslots);
    for (uint32_t j = 0; j < x->nslots; j++) put_vseq(b, &x->slots[j]);
    if (!live || !x->sample.pending) {
      tf_timing_encode(b, &x->timing, 0);
      continue;
    }
    tf_timing t = {0};
    tf_mem m = {0};
    const tf_tsample *s = &x->sample;
    int rc = tf_timing_copy(&t, &x->timing, &m) ||
             tf_timing_add(&t, mode, bins, s->prev_fn, s->prev_site, s->compute, s->duration, &m);
    if (!rc) tf_timing_encode(b, &t, 0);
    tf_timing_free(&t, &m);
    if (rc) return -1;
  }
  return b->failed ? -1 : 0;
}

/* The streams' order after the nodes (NULL: one stream). */
static void put_order(tf_buf *b, const tf_order *order) {
  static const tf_order none;
  if (!order) order = &none;
  put_vseq(b, &order->sizes);
  put_vseq(b, &order->runs);
  put_vseq(b, &order->lengths);
}

void tf_segment_encode(tf_buf *b, tf_fnode *const *nodes, uint32_t n, const tf_order *order) {
  encode_nodes(b, nodes, n, 0, TF_TIMING_NONE, 0);
  put_order(b, order);
}

int tf_segment_encode_live(tf_buf *b, tf_fnode *const *nodes, uint32_t n, const tf_order *order, tf_timing_mode mode,
                           uint32_t bins) {
  if (encode_nodes(b, nodes, n, 1, mode, bins)) return -1;
  put_order(b, order);
  return b->failed ? -1 : 0;
}

/* ------------------------------------------------------------- decode */

#define LIMIT TF_VSEQ_LIMIT

typedef struct dec {
  tf_cursor *c;
  uint32_t nfuncs, ncallsites, timing, bins;
  tf_mem *m;
  const char *why;
  uint64_t run_extra; /* TF_SEGMENT_KEEP_RUNS: events of the kept runs beyond one node each */
} dec;

static int bad(dec *d, const char *why) {
  if (!d->why) d->why = why;
  return -1;
}

/* A value sequence of exactly `expect` values (expect < 0: any number up to
 * the limit); its facts in *f. */
static int get_vseq(dec *d, tf_vseq *s, __int128 expect, tf_vfacts *f) {
  const char *why = NULL;
  if (tf_vseq_decode(d->c, s, d->m, f, &why)) return bad(d, why);
  if (expect >= 0 && f->count != expect) return bad(d, "value count does not match occurrences");
  return 0;
}

static int get_nodes(dec *d, tf_fnode ***out, uint32_t *nout, __int128 occ, uint32_t depth, __int128 *events);

static int get_node(dec *d, tf_fnode **out, __int128 occ, uint32_t depth, __int128 *events) {
  uint8_t kind = tf_cur_u8(d->c);
  if (d->c->bad) return bad(d, "truncated node");
  tf_vfacts f;
  if (kind == ND_LOOP || kind == (ND_LOOP | ND_CST)) {
    tf_fnode *x = *out = tf_fnode_new_loop(d->m);
    if (!x) return bad(d, "out of memory");
    if (depth >= TF_SEGMENT_MAXDEPTH) return bad(d, "loops nested too deep");
    if (kind & ND_CST) {
      uint64_t id = tf_cur_uvar(d->c);
      if (d->c->bad) return bad(d, "truncated loop");
      if (id >= UINT32_MAX) return bad(d, "CST node id out of range");
      x->cst = (uint32_t)id + 1;
    }
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
    tf_vfacts g;
    if (get_vseq(d, &x->slots[j], -1, &g)) return -1;
    if (g.count > occ) return bad(d, "more values than occurrences");
  }
  const char *why = NULL;
  __int128 tocc = d->timing & TF_SEGMENT_MERGED_TIMING ? -1 : occ; /* -1: counts not checked */
  if (tf_timing_decode(d->c, &x->timing, (tf_timing_mode)(d->timing & 0xff), d->bins, tocc, 0, d->nfuncs,
                       d->ncallsites, 0, d->m, &why))
    return bad(d, why);
  *events = tf_vclamp(*events + occ);
  return 0;
}

/* A node list's count *n (>= 1, bounded by the bytes left) and *out, an
 * array of *n NULL nodes. */
static int new_list(dec *d, tf_fnode ***out, uint64_t *n) {
  *n = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated node list");
  if (*n < 1 || *n > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad node count");
  *out = calloc(*n, sizeof **out);
  if (!*out) return bad(d, "out of memory");
  d->m->bytes += *n * sizeof **out;
  return 0;
}

/* Room for `want` nodes in *out (cap entries). */
static int grow(dec *d, tf_fnode ***out, uint32_t *cap, uint64_t want) {
  if (want <= *cap) return 0;
  if (want > UINT32_MAX) return bad(d, "too many nodes");
  tf_fnode **g = realloc(*out, want * sizeof *g);
  if (!g) return bad(d, "out of memory");
  d->m->bytes += (want - *cap) * sizeof *g;
  *out = g;
  *cap = (uint32_t)want;
  return 0;
}

/* A flat run kept as one node (TF_SEGMENT_KEEP_RUNS), checked. */
static int keep_run(dec *d, tf_fnode **x, __int128 *events) {
  tf_fnode *y = *x = calloc(1, sizeof *y);
  tf_flatrun *r = y ? calloc(1, sizeof *r) : NULL;
  if (!r) {
    free(y);
    *x = NULL;
    return bad(d, "out of memory");
  }
  d->m->bytes += sizeof *y + sizeof *r;
  y->run = r;
  y->run_owned = 1;
  const char *why = NULL;
  if (tf_flatrun_read(d->c, d->nfuncs, d->ncallsites, !!(d->timing & TF_SEGMENT_BORROW_RUNS), r, d->m, &why))
    return bad(d, why);
  *events = tf_vclamp(*events + r->nevents);
  d->run_extra += r->nevents - 1;
  return 0;
}

/* The top level: nodes, and flat runs (ND_FLAT: per-rank files, and the
 * projections of a merged trace's runs), each expanded into its events'
 * nodes unless kept; *nout counts the nodes made so far. */
static int get_top(dec *d, tf_fnode ***out, uint32_t *nout, __int128 *events) {
  uint64_t n;
  if (new_list(d, out, &n)) return -1;
  uint32_t cap = (uint32_t)n;
  for (uint64_t i = 0; i < n; i++) {
    if (d->c->p < d->c->end && *d->c->p == ND_FLAT) {
      d->c->p++;
      if (d->timing & TF_SEGMENT_KEEP_RUNS) {
        tf_fnode **x = &(*out)[(*nout)++];
        *x = NULL;
        if (keep_run(d, x, events)) return -1;
        continue;
      }
      uint32_t before = *nout;
      const char *why = NULL;
      int rc = tf_flatrun_decode(d->c, d->nfuncs, d->ncallsites, d->timing & 0xff, d->bins, out, nout, &cap, d->m,
                                 &why);
      *events = tf_vclamp(*events + (*nout - before));
      if (rc) return bad(d, why);
      if (grow(d, out, &cap, *nout + (n - i - 1))) return -1; /* room for the items after the run */
      continue;
    }
    tf_fnode **x = &(*out)[(*nout)++];
    *x = NULL;
    if (get_node(d, x, 1, 0, events)) return -1;
  }
  return 0;
}

static int get_nodes(dec *d, tf_fnode ***out, uint32_t *nout, __int128 occ, uint32_t depth, __int128 *events) {
  uint64_t n;
  if (new_list(d, out, &n)) return -1;
  *nout = (uint32_t)n;
  for (uint32_t i = 0; i < n; i++)
    if (get_node(d, &(*out)[i], occ, depth, events)) return -1;
  return 0;
}

int tf_segment_decode(tf_cursor *c, uint64_t nevents, uint32_t nfuncs, uint32_t ncallsites, uint32_t timing,
                      uint32_t bins, uint32_t version, tf_fnode ***nodes, uint32_t *n, tf_order *order, tf_mem *m,
                      const char **why) {
  dec d = {.c = c, .nfuncs = nfuncs, .ncallsites = ncallsites, .timing = timing, .bins = bins, .m = m};
  __int128 events = 0;
  *nodes = NULL;
  *n = 0;
  tf_order_init(order);
  int rc = get_top(&d, nodes, n, &events);
  if (!rc && events != (__int128)nevents) rc = bad(&d, "event count does not match the segment header");
  if (!rc && version >= 3) {
    tf_vfacts s = {0}, r = {0}, l = {0};
    rc = get_vseq(&d, &order->sizes, -1, &s) || get_vseq(&d, &order->runs, -1, &r) ||
         get_vseq(&d, &order->lengths, -1, &l) ? -1 : 0;
    tf_order_facts f = {s.count, s.min, s.sum, r.count, r.min, r.max, l.count, l.min, l.sum};
    const char *w = NULL;
    if (!rc && tf_order_check(&f, *n + d.run_extra, nevents, &w)) rc = bad(&d, w);
  }
  *why = d.why;
  return rc;
}
