/* flatrun.c — a stream's events kept as flat bytes, and their expansion
 * back into event nodes; see flatrun.h. */
#include "fold/flatrun.h"

#include <stdlib.h>

#include "fold/folder.h"
#include "time/timing.h"

int tf_flatrun_push(tf_flatrun *r, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                    uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals,
                    tf_mem *m) {
  tf_buf *b = &r->bytes;
  size_t cap = b->cap;
  if (tf_buf_reserve(b, (5 + (size_t)nvals) * 10)) { /* worst case: an event is appended whole or not at all */
    m->failed = 1;
    return -1;
  }
  m->bytes += b->cap - cap;
  if (!r->nevents) {
    r->thread = thread;
    r->prev_fn = prev_fn;
    r->prev_site = prev_site;
  }
  uint8_t *p = b->data + b->len; /* b->len stored once, not after every varint */
  p = tf_uvar_at(p, fn);
  p = tf_uvar_at(p, site);
  p = tf_uvar_at(p, compute_ns);
  p = tf_uvar_at(p, duration_ns);
  p = tf_uvar_at(p, nvals);
  for (uint32_t i = 0; i < nvals; i++) p = tf_uvar_at(p, tf_zigzag(vals[i]));
  b->len = (size_t)(p - b->data);
  r->nevents++;
  return 0;
}

void tf_flatrun_clear(tf_flatrun *r, tf_mem *m) {
  if (!r->borrowed) {
    m->bytes -= r->bytes.cap;
    tf_buf_free(&r->bytes);
  }
  *r = (tf_flatrun){0};
}

/* TF_PREV_NONE as 0, an index as index + 1 */
static uint64_t put_prev(uint32_t v) { return v == TF_PREV_NONE ? 0 : (uint64_t)v + 1; }

void tf_flatrun_encode_head(tf_buf *b, const tf_flatrun *r) {
  tf_buf_put_uvar(b, r->thread);
  tf_buf_put_uvar(b, put_prev(r->prev_fn));
  tf_buf_put_uvar(b, put_prev(r->prev_site));
  tf_buf_put_uvar(b, r->nevents);
  tf_buf_put_uvar(b, r->bytes.len);
}

void tf_flatrun_encode(tf_buf *b, const tf_flatrun *r) {
  tf_flatrun_encode_head(b, r);
  tf_buf_put_bytes(b, r->bytes.data, r->bytes.len);
}

static int fail(const char **why, const char *w) {
  *why = w;
  return -1;
}

/* A value sequence of the single value v, sealed as a folder seals it. */
static void single(tf_vseq *s, int64_t v, tf_mem *m) {
  tf_vseq_push(s, v, m);
  tf_vseq_seal(s, m);
}

int tf_flatrun_next(tf_cursor *e, uint32_t nfuncs, uint32_t ncallsites, tf_flat_event *ev, const char **why) {
  ev->fn = tf_cur_uvar(e);
  ev->site = tf_cur_uvar(e);
  ev->compute = tf_cur_uvar(e);
  ev->duration = tf_cur_uvar(e);
  ev->nvals = tf_cur_uvar(e);
  if (e->bad) return fail(why, "truncated event in a flat run");
  if (ev->fn >= nfuncs) return fail(why, "unknown function index in a flat run");
  if (ev->site >= ncallsites) return fail(why, "undeclared call site in a flat run");
  if (ev->nvals > (uint64_t)(e->end - e->p)) return fail(why, "bad value count in a flat run");
  return 0;
}

/* The run's header from c; *e: a cursor over its events (c steps past them). */
static int read_head(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, uint32_t nmade, tf_flatrun *r, tf_cursor *e,
                     const char **why) {
  uint64_t thread = tf_cur_uvar(c), pfn = tf_cur_uvar(c), psite = tf_cur_uvar(c), nev = tf_cur_uvar(c),
           len = tf_cur_uvar(c);
  if (c->bad) return fail(why, "truncated flat run");
  if (thread > UINT32_MAX) return fail(why, "bad thread index in a flat run");
  if (pfn > nfuncs || psite > ncallsites || (pfn == 0) != (psite == 0))
    return fail(why, "bad previous event of a flat run");
  if (len > (uint64_t)(c->end - c->p)) return fail(why, "truncated flat run");
  if (nev < 1 || nev > len / 5 || nev > UINT32_MAX - nmade) return fail(why, "bad event count of a flat run");
  *e = (tf_cursor){c->p, c->p + len, 0};
  c->p += len;
  r->thread = (uint32_t)thread;
  r->prev_fn = pfn ? (uint32_t)pfn - 1 : TF_PREV_NONE;
  r->prev_site = psite ? (uint32_t)psite - 1 : TF_PREV_NONE;
  r->nevents = nev;
  return 0;
}

/* Note fn among the functions r names (r->fns_known cleared for one of 256 or more). */
static inline void name_fn(tf_flatrun *r, uint64_t fn) {
  if (fn < 256) r->fns[fn >> 6] |= (uint64_t)1 << (fn & 63);
  else r->fns_known = 0;
}

/* Past n varints of e (each 10 bytes at most); 0, or -1 if one is malformed or runs past the end. The values
 * of a run are its bulk: read byte by byte without decoding them. */
static int skip_uvars(tf_cursor *e, uint64_t n) {
  const uint8_t *p = e->p, *end = e->end;
  for (uint64_t j = 0; j < n; j++) {
    const uint8_t *first = p;
    while (p < end && (*p & 0x80)) p++;
    if (p == end || p - first >= 10) return e->bad = 1, -1;
    p++;
  }
  e->p = p;
  return 0;
}

int tf_flatrun_read(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, int borrow, tf_flatrun *r, tf_mem *m,
                    const char **why) {
  tf_cursor e;
  *r = (tf_flatrun){0};
  if (read_head(c, nfuncs, ncallsites, 0, r, &e, why)) return -1;
  const uint8_t *start = e.p;
  r->fns_known = 1;
  if (r->prev_fn != TF_PREV_NONE) name_fn(r, r->prev_fn);
  for (uint64_t k = 0; k < r->nevents; k++) {
    tf_flat_event ev;
    if (tf_flatrun_next(&e, nfuncs, ncallsites, &ev, why)) return -1;
    name_fn(r, ev.fn);
    if (skip_uvars(&e, ev.nvals)) return fail(why, "truncated event in a flat run");
  }
  if (e.p != e.end) return fail(why, "flat run longer than its events");
  size_t len = (size_t)(e.end - start);
  if (borrow) {
    r->bytes = (tf_buf){(uint8_t *)start, len, len, 0};
    r->borrowed = 1;
    return 0;
  }
  if (tf_buf_reserve(&r->bytes, len ? len : 1)) return fail(why, "out of memory");
  m->bytes += r->bytes.cap;
  tf_buf_put_bytes(&r->bytes, start, len);
  return 0;
}

/* Past an event's compute, duration, value count and values (its fn and
 * site read already); e->bad if they run past the end. */
static void skip_event_rest(tf_cursor *e) {
  tf_cur_uvar(e);
  tf_cur_uvar(e);
  uint64_t nvals = tf_cur_uvar(e);
  if (!e->bad) skip_uvars(e, nvals);
}

int tf_flatrun_renumber(tf_flatrun *r, uint32_t (*fn_to)(const void *, uint32_t), const void *ctx_fn,
                        uint32_t (*site_to)(const void *, uint32_t), const void *ctx_site, tf_mem *m) {
  int same = r->prev_fn == TF_PREV_NONE ||
             (fn_to(ctx_fn, r->prev_fn) == r->prev_fn && site_to(ctx_site, r->prev_site) == r->prev_site);
  tf_cursor s = {r->bytes.data, r->bytes.data + r->bytes.len, 0};
  for (uint64_t k = 0; k < r->nevents && same && !s.bad; k++) { /* most often the indices stay: nothing to copy */
    uint64_t fn = tf_cur_uvar(&s), site = tf_cur_uvar(&s);
    same = fn_to(ctx_fn, (uint32_t)fn) == fn && site_to(ctx_site, (uint32_t)site) == site;
    skip_event_rest(&s);
  }
  if (same && !s.bad) return 0;
  tf_buf out = {0};
  if (tf_buf_reserve(&out, r->bytes.len + r->bytes.len / 4 + 16)) return -1; /* indices may grow a byte each */
  tf_cursor e = {r->bytes.data, r->bytes.data + r->bytes.len, 0};
  tf_flatrun named = {.fns_known = 1};
  if (r->prev_fn != TF_PREV_NONE) name_fn(&named, fn_to(ctx_fn, r->prev_fn));
  for (uint64_t k = 0; k < r->nevents && !e.bad; k++) {
    uint64_t fn = tf_cur_uvar(&e), site = tf_cur_uvar(&e);
    name_fn(&named, fn_to(ctx_fn, (uint32_t)fn));
    tf_buf_put_uvar(&out, fn_to(ctx_fn, (uint32_t)fn));
    tf_buf_put_uvar(&out, site_to(ctx_site, (uint32_t)site));
    const uint8_t *rest = e.p;
    skip_event_rest(&e);
    tf_buf_put_bytes(&out, rest, (size_t)(e.p - rest)); /* compute, duration, nvals, values: as they are */
  }
  if (out.failed || e.bad) {
    tf_buf_free(&out);
    return -1;
  }
  if (r->prev_fn != TF_PREV_NONE) {
    r->prev_fn = fn_to(ctx_fn, r->prev_fn);
    r->prev_site = site_to(ctx_site, r->prev_site);
  }
  m->bytes += out.cap;
  if (!r->borrowed) {
    m->bytes -= r->bytes.cap;
    tf_buf_free(&r->bytes);
  }
  r->borrowed = 0;
  r->bytes = out;
  r->fns_known = named.fns_known;
  for (int k = 0; k < 4; k++) r->fns[k] = named.fns[k];
  return 0;
}

int tf_flatrun_decode(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, uint32_t mode, uint32_t bins,
                      struct tf_fnode ***nodes, uint32_t *n, uint32_t *cap, tf_mem *m, const char **why) {
  tf_flatrun h;
  tf_cursor e;
  if (read_head(c, nfuncs, ncallsites, *n, &h, &e, why)) return -1;
  uint64_t nev = h.nevents;
  if (*n + nev > *cap) {
    uint64_t want = *n + nev;
    tf_fnode **g = realloc(*nodes, want * sizeof *g);
    if (!g) return fail(why, "out of memory");
    m->bytes += (want - *cap) * sizeof *g;
    *nodes = g;
    *cap = (uint32_t)want;
  }
  uint32_t prev_fn = h.prev_fn, prev_site = h.prev_site;
  for (uint64_t k = 0; k < nev; k++) {
    tf_flat_event ev;
    if (tf_flatrun_next(&e, nfuncs, ncallsites, &ev, why)) return -1;
    tf_fnode *x = tf_fnode_new_event((uint32_t)ev.fn, h.thread, (uint32_t)ev.site, m);
    if (!x) return fail(why, "out of memory");
    (*nodes)[(*n)++] = x;
    x->slots = calloc(ev.nvals ? ev.nvals : 1, sizeof *x->slots);
    if (!x->slots) return fail(why, "out of memory");
    m->bytes += ev.nvals * sizeof *x->slots;
    x->nslots = (uint32_t)ev.nvals;
    single(&x->nvals, (int64_t)ev.nvals, m);
    for (uint32_t j = 0; j < x->nslots; j++) single(&x->slots[j], tf_cur_svar(&e), m);
    if (e.bad) return fail(why, "truncated event in a flat run");
    if (tf_timing_add(&x->timing, (tf_timing_mode)mode, bins, prev_fn, prev_site, ev.compute, ev.duration, m) ||
        m->failed)
      return fail(why, "out of memory");
    prev_fn = (uint32_t)ev.fn;
    prev_site = (uint32_t)ev.site;
  }
  if (e.p != e.end) return fail(why, "flat run longer than its events");
  return 0;
}
