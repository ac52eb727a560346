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
  tf_buf_put_uvar_reserved(b, fn);
  tf_buf_put_uvar_reserved(b, site);
  tf_buf_put_uvar_reserved(b, compute_ns);
  tf_buf_put_uvar_reserved(b, duration_ns);
  tf_buf_put_uvar_reserved(b, nvals);
  for (uint32_t i = 0; i < nvals; i++) tf_buf_put_uvar_reserved(b, tf_zigzag(vals[i]));
  r->nevents++;
  return 0;
}

void tf_flatrun_clear(tf_flatrun *r, tf_mem *m) {
  m->bytes -= r->bytes.cap;
  tf_buf_free(&r->bytes);
  *r = (tf_flatrun){0};
}

/* TF_PREV_NONE as 0, an index as index + 1 */
static uint64_t put_prev(uint32_t v) { return v == TF_PREV_NONE ? 0 : (uint64_t)v + 1; }

void tf_flatrun_encode(tf_buf *b, const tf_flatrun *r) {
  tf_buf_put_uvar(b, r->thread);
  tf_buf_put_uvar(b, put_prev(r->prev_fn));
  tf_buf_put_uvar(b, put_prev(r->prev_site));
  tf_buf_put_uvar(b, r->nevents);
  tf_buf_put_uvar(b, r->bytes.len);
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

int tf_flatrun_decode(tf_cursor *c, uint32_t nfuncs, uint32_t ncallsites, uint32_t mode, uint32_t bins,
                      struct tf_fnode ***nodes, uint32_t *n, uint32_t *cap, tf_mem *m, const char **why) {
  uint64_t thread = tf_cur_uvar(c), pfn = tf_cur_uvar(c), psite = tf_cur_uvar(c), nev = tf_cur_uvar(c),
           len = tf_cur_uvar(c);
  if (c->bad) return fail(why, "truncated flat run");
  if (thread > UINT32_MAX) return fail(why, "bad thread index in a flat run");
  if (pfn > nfuncs || psite > ncallsites || (pfn == 0) != (psite == 0))
    return fail(why, "bad previous event of a flat run");
  if (len > (uint64_t)(c->end - c->p)) return fail(why, "truncated flat run");
  if (nev < 1 || nev > len / 5 || nev > UINT32_MAX - *n) return fail(why, "bad event count of a flat run");
  tf_cursor e = {c->p, c->p + len, 0};
  c->p += len;
  if (*n + nev > *cap) {
    uint64_t want = *n + nev;
    tf_fnode **g = realloc(*nodes, want * sizeof *g);
    if (!g) return fail(why, "out of memory");
    m->bytes += (want - *cap) * sizeof *g;
    *nodes = g;
    *cap = (uint32_t)want;
  }
  uint32_t prev_fn = pfn ? (uint32_t)pfn - 1 : TF_PREV_NONE, prev_site = psite ? (uint32_t)psite - 1 : TF_PREV_NONE;
  for (uint64_t k = 0; k < nev; k++) {
    uint64_t fn = tf_cur_uvar(&e), site = tf_cur_uvar(&e), compute = tf_cur_uvar(&e), duration = tf_cur_uvar(&e),
             nvals = tf_cur_uvar(&e);
    if (e.bad) return fail(why, "truncated event in a flat run");
    if (fn >= nfuncs) return fail(why, "unknown function index in a flat run");
    if (site >= ncallsites) return fail(why, "undeclared call site in a flat run");
    if (nvals > (uint64_t)(e.end - e.p)) return fail(why, "bad value count in a flat run");
    tf_fnode *x = tf_fnode_new_event((uint32_t)fn, (uint32_t)thread, (uint32_t)site, m);
    if (!x) return fail(why, "out of memory");
    (*nodes)[(*n)++] = x;
    x->slots = calloc(nvals ? nvals : 1, sizeof *x->slots);
    if (!x->slots) return fail(why, "out of memory");
    m->bytes += nvals * sizeof *x->slots;
    x->nslots = (uint32_t)nvals;
    single(&x->nvals, (int64_t)nvals, m);
    for (uint32_t j = 0; j < x->nslots; j++) single(&x->slots[j], tf_cur_svar(&e), m);
    if (e.bad) return fail(why, "truncated event in a flat run");
    if (tf_timing_add(&x->timing, (tf_timing_mode)mode, bins, prev_fn, prev_site, compute, duration, m) || m->failed)
      return fail(why, "out of memory");
    prev_fn = (uint32_t)fn;
    prev_site = (uint32_t)site;
  }
  if (e.p != e.end) return fail(why, "flat run longer than its events");
  return 0;
}
