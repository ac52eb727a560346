/* mtrace.c — merged traces: building one from a rank's file, value sets,
 * projection back to one rank, freeing; see mtrace.h. Merging is in
 * merge.c, the file format in merged_codec.c. */
#define _POSIX_C_SOURCE 200809L
#include "merge/mtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "merge/ranklist.h"
#include "format/segment.h"
#include "format/rank_reader.h"
#include "fold/unroll.h"

/* ------------------------------------------------------------ value sets */

/* A pair's room: its sequence, its ranks and its hash. The three arrays of
 * a set share one allocation (seq at its start, then ranks, then hash): a
 * merged node holds a set per parameter, most of one pair. */
#define VSET_PAIR_BYTES (2 * sizeof(tf_vseq) + sizeof(uint64_t))

void tf_vset_free(tf_vset *v, tf_mem *m) {
  for (uint32_t i = 0; i < v->n; i++) {
    tf_vseq_free(&v->seq[i], m);
    tf_vseq_free(&v->ranks[i], m);
  }
  free(v->seq); /* the block of seq, ranks and hash */
  free(v->rule);
  m->bytes -= v->cap * VSET_PAIR_BYTES;
  *v = (tf_vset){0};
}

/* Append a pair; seq and ranks are moved in (the caller's copies are
 * emptied). 0 or -1 (out of memory: the pair is freed). */
int tf_vset_add(tf_vset *v, tf_vseq *seq, tf_vseq *ranks, uint64_t hash, tf_mem *m) {
  if (v->n == v->cap) {
    uint32_t cap = v->cap ? 2 * v->cap : 1;
    uint8_t *block = malloc(cap * VSET_PAIR_BYTES);
    tf_vrule *q = block && v->rule ? realloc(v->rule, cap * sizeof *q) : NULL;
    if (!block || (v->rule && !q)) {
      free(block);
      m->failed = 1;
      tf_vseq_free(seq, m);
      tf_vseq_free(ranks, m);
      return -1;
    }
    tf_vseq *s = (tf_vseq *)block, *r = s + cap;
    uint64_t *h = (uint64_t *)(r + cap);
    if (v->n) {
      memcpy(s, v->seq, v->n * sizeof *s);
      memcpy(r, v->ranks, v->n * sizeof *r);
      memcpy(h, v->hash, v->n * sizeof *h);
    }
    free(v->seq);
    v->seq = s;
    v->ranks = r;
    v->hash = h;
    if (q) memset(q + v->cap, 0, (cap - v->cap) * sizeof *q), v->rule = q;
    m->bytes += (cap - v->cap) * VSET_PAIR_BYTES;
    v->cap = cap;
  }
  v->seq[v->n] = *seq;
  v->ranks[v->n] = *ranks;
  v->hash[v->n] = hash;
  v->n++;
  tf_vseq_init(seq);
  tf_vseq_init(ranks);
  return 0;
}

int tf_vset_add_rule(tf_vset *v, tf_vseq *seq, tf_vseq *ranks, uint64_t hash, const tf_vrule *rule, tf_mem *m) {
  if (tf_vset_add(v, seq, ranks, hash, m)) return -1;
  if (!v->rule && !(v->rule = calloc(v->cap, sizeof *v->rule))) {
    m->failed = 1;
    return -1;
  }
  v->rule[v->n - 1] = *rule;
  return 0;
}

const tf_vrule *tf_vset_pair_rule(const tf_vset *v, uint32_t i) {
  return v->rule && i < v->n && v->rule[i].a ? &v->rule[i] : NULL;
}

int tf_vset_has_rule(const tf_vset *v) {
  for (uint32_t i = 0; v->rule && i < v->n; i++)
    if (v->rule[i].a) return 1;
  return 0;
}

int tf_vrule_valid(const tf_vrule *q) {
  return q->a != 0 && q->d >= 1 && q->m >= 0 && (q->a2 == 0 || (q->d2 >= 1 && q->m2 >= 0)); /* a2 0: d2, m2 unused */
}

static int64_t term_at(int64_t a, int64_t d, int64_t m, int64_t r) {
  int64_t x = r / d;
  if (m) x %= m;
  return tf_wmul(a, (uint64_t)x);
}

int64_t tf_vrule_at(const tf_vrule *q, int64_t r) {
  int64_t v = term_at(q->a, q->d, q->m, r);
  return q->a2 ? tf_wadd(v, term_at(q->a2, q->d2, q->m2, r)) : v;
}

/* "a*((r/d)%m)" in its shortest form, at most len - 1 characters. */
static void term_format(int64_t a, int64_t d, int64_t m, char *buf, size_t len) {
  char term[64];
  if (d == 1) snprintf(term, sizeof term, "r");
  else snprintf(term, sizeof term, "(r/%lld)", (long long)d);
  if (m) {
    char t[96];
    snprintf(t, sizeof t, "(%s%%%lld)", term, (long long)m);
    snprintf(term, sizeof term, "%.63s", t);
  }
  if (a == 1) snprintf(buf, len, "%s", term);
  else if (a == -1) snprintf(buf, len, "-%s", term);
  else snprintf(buf, len, "%lld*%s", (long long)a, term);
}

void tf_vrule_format(const tf_vrule *q, char *buf, size_t len) {
  term_format(q->a, q->d, q->m, buf, len);
  size_t at = strlen(buf);
  if (q->a2 && at + 2 < len) {
    if (q->a2 > 0) buf[at++] = '+';
    term_format(q->a2, q->d2, q->m2, buf + at, len - at);
  }
}

/* The pair whose ranks hold `rank`, or v->n. */
static uint32_t vset_pair_of(const tf_vset *v, int64_t rank) {
  uint32_t i = 0;
  while (i < v->n && !tf_ranks_contains(&v->ranks[i], rank)) i++;
  return i;
}

/* The pair whose ranks hold `rank`, or NULL (its values as stored). */
const tf_vseq *tf_vset_find(const tf_vset *v, int64_t rank) {
  uint32_t i = vset_pair_of(v, rank);
  return i < v->n ? &v->seq[i] : NULL;
}

int tf_vset_rank_seq(const tf_vset *v, int64_t rank, tf_vseq *out, tf_mem *m) {
  tf_vseq_init(out);
  uint32_t i = vset_pair_of(v, rank);
  if (i == v->n) return 0;
  const tf_vrule *q = tf_vset_pair_rule(v, i);
  if (q)
    tf_vseq_append_items(out, &v->seq[i], tf_vrule_at(q, rank), m);
  else
    tf_vseq_copy(out, &v->seq[i], m);
  return m->failed ? -1 : 1;
}

/* ------------------------------------------------------------ nodes */

void tf_mnode_free(tf_mnode *x, tf_mem *m) {
  if (!x) return;
  if (x->run) {
    tf_flatrun_clear(x->run, m);
    free(x->run);
    m->bytes -= sizeof *x->run;
  }
  for (uint32_t i = 0; i < x->nbody; i++) tf_mnode_free(x->body[i], m);
  free(x->body);
  m->bytes -= x->nbody * sizeof *x->body;
  for (uint32_t j = 0; j < x->nslots; j++) tf_vset_free(&x->slots[j], m);
  free(x->slots);
  m->bytes -= x->nslots * sizeof *x->slots;
  tf_vset_free(&x->count, m);
  tf_vseq_free(&x->ranks, m);
  tf_gtiming_free(&x->timing, m);
  free(x);
  m->bytes -= sizeof *x;
}

enum { K_EVENT = 0x4d45, K_LOOP = 0x4d4c, K_CST = 0x4d43 };

uint64_t tf_mnode_event_key(uint32_t fn, uint32_t thread, uint64_t site_sig) {
  return tf_mix(tf_mix(tf_mix(K_EVENT, fn), thread), site_sig);
}

void tf_mnode_rekey(tf_mnode *x) {
  if (x->cst) { /* a source loop: the same loop on every rank, whatever its body there (merge.c) */
    x->key = tf_mix(K_CST, x->cst);
    return;
  }
  uint64_t h = tf_mix(K_LOOP, x->nbody);
  for (uint32_t i = 0; i < x->nbody; i++) h = tf_mix(h, x->body[i]->key);
  x->key = h;
}

static void drop_cst(tf_mnode *const *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (x[i]->is_loop) {
      drop_cst(x[i]->body, x[i]->nbody);
      x[i]->cst = 0;
      tf_mnode_rekey(x[i]);
    }
}

void tf_mtrace_drop_cst(tf_mtrace *t) { drop_cst(t->top, t->ntop); }

/* ------------------------------------------------------------ renumbering */

static uint32_t map_index(const tf_index_map *m, uint32_t i) {
  return !m->to ? i : i < m->n ? m->to[i] : m->new_n + (i - m->n);
}

uint32_t tf_index_map_at(const tf_index_map *m, uint32_t i) { return map_index(m, i); }

void tf_mnodes_renumber(tf_mnode *const *x, uint32_t n, const tf_index_map *fns, const tf_index_map *sites) {
  for (uint32_t i = 0; i < n; i++) {
    tf_mnode *y = x[i];
    if (y->run) {
      tf_mnode_run_renumber(y, fns, sites);
      continue;
    }
    if (y->is_loop) {
      tf_mnodes_renumber(y->body, y->nbody, fns, sites);
      tf_mnode_rekey(y);
      continue;
    }
    y->fn = map_index(fns, y->fn);
    y->site = map_index(sites, y->site);
    y->key = tf_mnode_event_key(y->fn, y->thread, y->site_sig);
    for (uint32_t p = 0; p < y->timing.npaths; p++) {
      tf_gpath *tp = &y->timing.paths[p];
      if (tp->prev_fn == TF_PREV_NONE) continue;
      tp->prev_fn = map_index(fns, tp->prev_fn);
      tp->prev_site = map_index(sites, tp->prev_site);
      for (uint32_t g = 0; g < tp->n; g++) {
        tp->g[g].t.prev_fn = tp->prev_fn;
        tp->g[g].t.prev_site = tp->prev_site;
      }
    }
  }
}

/* used[fn] = 1 for every function the nodes name (in range); runs: 0 the flat runs are skipped, 1 only they
 * are walked. */
static void mark_funcs(tf_mnode *const *x, uint32_t n, uint8_t *used, uint32_t nfuncs, int runs) {
  for (uint32_t i = 0; i < n; i++) {
    const tf_mnode *y = x[i];
    if (!y->run != !runs) continue;
    if (y->run) { /* walked until every function is named (the runs' megabytes, most often a few events) */
      tf_mnode_run_mark_funcs(y, used, nfuncs);
      continue;
    }
    if (y->is_loop) {
      mark_funcs(y->body, y->nbody, used, nfuncs, 0);
      continue;
    }
    if (y->fn < nfuncs) used[y->fn] = 1;
    for (uint32_t p = 0; p < y->timing.npaths; p++)
      if (y->timing.paths[p].prev_fn < nfuncs) used[y->timing.paths[p].prev_fn] = 1;
  }
}

int tf_mtrace_compact_funcs(tf_mtrace *t) {
  uint32_t n = t->ft.n;
  uint8_t *used = calloc(n + 1, 1);
  uint32_t *to = malloc((n + 1) * sizeof *to);
  tf_functable kept = {0};
  int rc = used && to ? 0 : -1;
  if (!rc) mark_funcs(t->top, t->ntop, used, n, 0);
  if (!rc) mark_funcs(t->top, t->ntop, used, n, 1); /* the top level's runs last (runs are there only) */
  for (uint32_t i = 0; !rc && i < n; i++) {
    to[i] = used[i] ? kept.n : UINT32_MAX; /* an unused function is named nowhere */
    if (used[i]) rc = tf_functable_add(&kept, &t->ft.funcs[i]);
  }
  if (!rc && kept.n < n) {
    tf_index_map fns = {.to = to, .n = n, .new_n = kept.n}, sites = {0};
    tf_mnodes_renumber(t->top, t->ntop, &fns, &sites);
    tf_functable_free(&t->ft);
    t->ft = kept;
    kept = (tf_functable){0};
  }
  tf_functable_free(&kept);
  free(used);
  free(to);
  return rc;
}

/* Bytes a value sequence's items hold, nested repeat bodies too, as tf_mem counts them. */
static size_t body_bytes(const tf_vitem *it, uint32_t n) {
  size_t b = 0;
  for (uint32_t i = 0; i < n; i++)
    if (it[i].body) b += it[i].nbody * sizeof(tf_vitem) + body_bytes(it[i].body, it[i].nbody);
  return b;
}

/* *dst = *src (copied, or moved when xm is not NULL: src is emptied and its
 * memory goes from xm's account to m's). 0, or -1 out of memory. */
static int vseq_give(tf_vseq *dst, tf_vseq *src, tf_mem *m, tf_mem *xm) {
  if (!xm) return tf_vseq_copy(dst, src, m);
  size_t b = src->cap * sizeof(tf_vitem) + body_bytes(src->items, src->n);
  xm->bytes -= b;
  m->bytes += b;
  *dst = *src;
  tf_vseq_init(src);
  return 0;
}

/* One rank's folded node as a merged node of that rank alone; xm NULL: x
 * is copied (left as it is), else x's sequences and summaries are moved
 * into the node and x is freed (xm: the account x is in). */
static tf_mnode *mnode_of(tf_fnode *x, int64_t rank, const tf_callsite *cs, tf_mem *m, tf_mem *xm) {
  tf_mnode *y = calloc(1, sizeof *y);
  if (!y) {
    m->failed = 1;
    if (xm) tf_fnode_free(x, xm);
    return NULL;
  }
  m->bytes += sizeof *y;
  y->is_loop = x->is_loop;
  y->cst = x->cst;
  tf_vseq_push(&y->ranks, rank, m);
  tf_vseq one, rk;
  tf_vseq_init(&rk);
  tf_vseq_push(&rk, rank, m);
  tf_vseq *count = x->is_loop ? &x->iters : &x->nvals;
  uint64_t h = tf_vseq_hash(count);
  if (vseq_give(&one, count, m, xm) || tf_vset_add(&y->count, &one, &rk, h, m)) goto fail;
  if (x->is_loop) {
    y->body = calloc(x->nbody, sizeof *y->body);
    if (!y->body) goto fail;
    m->bytes += x->nbody * sizeof *y->body;
    y->nbody = x->nbody;
    for (uint32_t i = 0; i < x->nbody; i++) {
      y->body[i] = mnode_of(x->body[i], rank, cs, m, xm);
      if (xm) x->body[i] = NULL; /* freed */
      if (!y->body[i]) goto fail;
    }
    tf_mnode_rekey(y);
    if (xm) tf_fnode_free(x, xm);
    return y;
  }
  y->fn = x->fn;
  y->thread = x->thread;
  y->site = x->site;
  y->site_sig = cs[x->site].sig;
  y->key = tf_mnode_event_key(x->fn, x->thread, y->site_sig);
  if (xm ? tf_gtiming_take_rank(&y->timing, &x->timing, (int32_t)rank, m, xm)
         : tf_gtiming_from_rank(&y->timing, &x->timing, (int32_t)rank, m))
    goto fail;
  y->slots = calloc(x->nslots ? x->nslots : 1, sizeof *y->slots);
  if (!y->slots) goto fail;
  m->bytes += x->nslots * sizeof *y->slots;
  y->nslots = x->nslots;
  for (uint32_t j = 0; j < x->nslots; j++) {
    tf_vseq_init(&rk);
    tf_vseq_push(&rk, rank, m);
    h = tf_vseq_hash(&x->slots[j]);
    if (vseq_give(&one, &x->slots[j], m, xm) || tf_vset_add(&y->slots[j], &one, &rk, h, m)) goto fail;
  }
  if (xm) tf_fnode_free(x, xm);
  return y;
fail:
  m->failed = 1;
  tf_vseq_free(&rk, m);
  tf_mnode_free(y, m);
  if (xm) tf_fnode_free(x, xm);
  return NULL;
}

tf_mnode *tf_mnode_from_fnode(const tf_fnode *x, int64_t rank, const tf_callsite *cs, tf_mem *m) {
  return mnode_of((tf_fnode *)x, rank, cs, m, NULL); /* only read: copied */
}

static char *dup_str(const char *s) { return strdup(s ? s : ""); }

int tf_mtrace_add_callsite(tf_mtrace *t, const tf_callsite *c) {
  if (t->ncallsites == t->capcs) {
    uint32_t cap = t->capcs ? 2 * t->capcs : 16;
    tf_callsite *n = realloc(t->callsites, cap * sizeof *n);
    if (!n) return -1;
    t->callsites = n;
    t->capcs = cap;
  }
  char *mod = dup_str(c->module);
  if (!mod) return -1;
  t->callsites[t->ncallsites++] = (tf_callsite){.sig = c->sig, .module = mod, .offset = c->offset};
  return 0;
}

/* A kept flat run's node, its bytes moved out of x (accounted in xm), NULL
 * for other nodes or out of memory. */
static tf_mnode *run_take(tf_fnode *x, int64_t rank, tf_mem *m, tf_mem *xm) {
  if (!x->run) return NULL;
  tf_flatrun r = *x->run;
  size_t counted = r.borrowed ? 0 : r.bytes.cap; /* a borrowed run's bytes are in the file, counted nowhere */
  if (x->run_owned) { /* moved (borrowed: still in the file) */
    x->run->bytes = (tf_buf){0};
    xm->bytes -= counted;
  } else { /* copied */
    r.bytes = (tf_buf){0};
    r.borrowed = 0;
    if (tf_buf_reserve(&r.bytes, x->run->bytes.len + 1)) {
      m->failed = 1;
      return NULL;
    }
    tf_buf_put_bytes(&r.bytes, x->run->bytes.data, x->run->bytes.len);
  }
  if (!r.borrowed) m->bytes += r.bytes.cap;
  tf_mnode *y = tf_mnode_from_run(&r, rank, m);
  if (!y) tf_flatrun_clear(&r, m);
  return y;
}

/* One rank's stream order becomes t's three order sets (order is consumed). 0 or -1. */
static int take_order(tf_mtrace *t, int64_t rank, tf_order *order) {
  tf_mem *m = &t->mem;
  tf_vseq *parts[3] = {&order->sizes, &order->runs, &order->lengths};
  for (int k = 0; k < 3; k++) {
    tf_vseq rk;
    tf_vseq_init(&rk);
    tf_vseq_push(&rk, rank, m);
    uint64_t h = tf_vseq_hash(parts[k]);
    if (tf_vset_add(&t->order[k], parts[k], &rk, h, m)) {
      for (int j = k + 1; j < 3; j++) tf_vseq_free(parts[j], m);
      return -1;
    }
  }
  return 0;
}

/* t's header (no ranks, no nodes) as src's, or else as the file's. 0 or -1. */
static int take_header(tf_mtrace *t, const tf_mtrace *src, const tf_file_info *in) {
  *t = (tf_mtrace){0};
  t->nranks = src ? src->nranks : in->nranks;
  t->thread_level = src ? src->thread_level : in->thread_level;
  t->timing = src ? src->timing : in->timing;
  t->bins = src ? src->bins : in->bins;
  t->unit = src ? src->unit : in->unit;
  t->partial = src ? 0 : in->partial; /* a merged trace's ranks bring their own (tf_mtrace_merge) */
  t->start_unix_ns = src ? src->start_unix_ns : in->start_unix_ns;
  t->run_id = src ? src->run_id : in->run_id;
  t->run_start_unix_ns = src ? src->run_start_unix_ns : in->run_start_unix_ns;
  const tf_callsite *cs = src ? src->callsites : in->callsites;
  uint32_t ncs = src ? src->ncallsites : in->ncallsites;
  if (!(t->exe = dup_str(src ? src->exe : in->exe)) || !(t->mpi = dup_str(src ? src->mpi : in->mpi)) ||
      tf_functable_copy(&t->ft, src ? src->ft.funcs : in->funcs, src ? src->ft.n : in->nfuncs))
    return -1;
  for (uint32_t i = 0; i < ncs; i++)
    if (tf_mtrace_add_callsite(t, &cs[i])) return -1;
  return 0;
}

int tf_mtrace_from_file(tf_mtrace *t, tf_file_reader *r) {
  const tf_file_info *in = tf_file_get_info(r);
  tf_mem *m = &t->mem, *rm;
  uint64_t *seg_events = NULL;
  uint32_t *seg_nodes = NULL;
  if (take_header(t, NULL, in)) goto fail;
  tf_vseq_push(&t->present, in->rank, m);
  tf_vseq_push(&t->nevents, (int64_t)in->nevents, m);
  tf_vseq_push(&t->lost, (int64_t)in->lost_events, m);
  tf_vseq_push(&t->why, (int64_t)in->partial, m);
  uint32_t ns, total = 0;
  const uint32_t *segn;
  const tf_order *orders;
  tf_fnode ***segs = tf_file_folded_take(r, &ns, &segn, &orders, &rm);
  /* per segment, what its order counts, before its nodes go */
  seg_events = calloc(ns ? ns : 1, sizeof *seg_events);
  seg_nodes = calloc(ns ? ns : 1, sizeof *seg_nodes);
  if (!seg_events || !seg_nodes) goto fail;
  for (uint32_t s = 0; s < ns; s++) {
    total += segn[s];
    seg_nodes[s] = segn[s]; /* a kept flat run counts as its events (segment.h TF_SEGMENT_KEEP_RUNS) */
    for (uint32_t i = 0; i < segn[s]; i++) {
      seg_events[s] += tf_fnode_events(segs[s][i]);
      if (segs[s][i]->run) seg_nodes[s] += (uint32_t)segs[s][i]->run->nevents - 1;
    }
  }
  t->top = calloc(total ? total : 1, sizeof *t->top);
  if (!t->top) goto fail;
  m->bytes += total * sizeof *t->top;
  /* each node is moved into its merged node and freed: the file's nodes and
   * the merged ones are never all held at once */
  for (uint32_t s = 0; s < ns; s++)
    for (uint32_t i = 0; i < segn[s]; i++) {
      tf_fnode *f = segs[s][i];
      tf_mnode *x = run_take(f, in->rank, m, rm);
      if (f->run) tf_fnode_free(f, rm);
      else x = mnode_of(f, in->rank, in->callsites, m, rm); /* frees f */
      segs[s][i] = NULL;
      if (!x) goto fail;
      t->top[t->ntop++] = x;
    }
  /* the segments' streams one after the other: one order */
  tf_order order;
  if (ns == 1) {
    if (tf_order_copy(&order, &orders[0], m)) goto fail;
  } else {
    tf_order_builder b;
    tf_order_build_init(&b);
    for (uint32_t s = 0; s < ns; s++) tf_order_build_segment(&b, &orders[s], seg_nodes[s], seg_events[s], m);
    tf_order_build_end(&b, &order, m);
  }
  free(seg_events);
  free(seg_nodes);
  seg_events = NULL;
  seg_nodes = NULL;
  if (take_order(t, in->rank, &order) || m->failed) goto fail;
  return 0;
fail:
  free(seg_events);
  free(seg_nodes);
  tf_mtrace_free(t);
  return -1;
}

void tf_mtrace_free(tf_mtrace *t) {
  tf_mem *m = &t->mem;
  for (uint32_t i = 0; i < t->ntop; i++) tf_mnode_free(t->top[i], m);
  free(t->top);
  for (int k = 0; k < 3; k++) tf_vset_free(&t->order[k], m);
  for (uint32_t i = 0; i < t->ncallsites; i++) free((char *)t->callsites[i].module);
  free(t->callsites);
  tf_vseq_free(&t->present, m);
  tf_vseq_free(&t->nevents, m);
  tf_vseq_free(&t->lost, m);
  tf_vseq_free(&t->why, m);
  tf_functable_free(&t->ft);
  free(t->exe);
  free(t->extrap);
  free(t->mpi);
  *t = (tf_mtrace){0};
}

/* ------------------------------------------------------------ one rank */

int64_t tf_mtrace_rank_index(const tf_mtrace *t, int32_t rank) { return tf_ranks_index(&t->present, rank); }

/* Projection: per-rank nodes that borrow the merged value sequences. They
 * are encoded as a per-rank segment at once and decoded again (validated,
 * owning), then these shells are freed. */
static void shell_free(tf_fnode *x) {
  if (!x) return;
  for (uint32_t i = 0; i < x->nbody; i++) shell_free(x->body[i]);
  free(x->body);
  free(x->slots);
  free(x->timing.paths); /* the array only: the summaries are the merged ones */
  free(x);
}

/* One rank's projection under way: the rank, why it failed, and the
 * sequences it made (the slots of pairs with a rule, shifted to the
 * rank), which the shells borrow until they are encoded. */
typedef struct projection {
  int64_t rank;
  const char **why;
  tf_vseq *made;
  uint32_t nmade, cap;
  tf_mem mem;
} projection;

static void projection_free(projection *p) {
  for (uint32_t i = 0; i < p->nmade; i++) tf_vseq_free(&p->made[i], &p->mem);
  free(p->made);
}

/* Slot set v's sequence for the rank into *out (borrowed, or made and kept
 * in p): 1, none 0, out of memory -1. */
static int project_slot(projection *p, const tf_vset *v, tf_vseq *out) {
  uint32_t i = 0;
  while (i < v->n && !tf_ranks_contains(&v->ranks[i], p->rank)) i++;
  if (i == v->n) return 0;
  if (!tf_vset_pair_rule(v, i)) {
    *out = v->seq[i];
    return 1;
  }
  if (p->nmade == p->cap) {
    uint32_t cap = p->cap ? 2 * p->cap : 8;
    tf_vseq *made = realloc(p->made, cap * sizeof *made);
    if (!made) return -1;
    p->made = made;
    p->cap = cap;
  }
  if (tf_vset_rank_seq(v, p->rank, &p->made[p->nmade], &p->mem) < 0) {
    tf_vseq_free(&p->made[p->nmade], &p->mem);
    return -1;
  }
  *out = p->made[p->nmade++];
  return 1;
}

static int project_list(tf_mnode *const *in, uint32_t nin, projection *p, tf_fnode ***out, uint32_t *nout);

static tf_fnode *project_node(const tf_mnode *x, projection *p) {
  int64_t rank = p->rank;
  const char **why = p->why;
  tf_fnode *y = calloc(1, sizeof *y);
  if (!y) return NULL;
  if (x->run) { /* borrowed: the segment encoder writes it as a flat run, its decoder expands it */
    y->run = x->run;
    return y;
  }
  y->is_loop = x->is_loop;
  y->cst = x->cst;
  const tf_vseq *count = tf_vset_find(&x->count, rank);
  if (!count) {
    *why = x->is_loop ? "no iteration counts for this rank" : "no value counts for this rank";
    free(y);
    return NULL;
  }
  if (x->is_loop) {
    y->iters = *count;
    if (project_list(x->body, x->nbody, p, &y->body, &y->nbody) || !y->nbody) {
      if (!*why) *why = "a loop with no events for this rank";
      shell_free(y);
      return NULL;
    }
    return y;
  }
  y->fn = x->fn;
  y->thread = x->thread;
  y->site = x->site;
  y->nvals = *count;
  for (uint32_t j = 0; j < x->nslots; j++)
    if (tf_vset_find(&x->slots[j], rank)) y->nslots = j + 1;
  y->slots = calloc(y->nslots ? y->nslots : 1, sizeof *y->slots);
  if (!y->slots) {
    free(y);
    return NULL;
  }
  for (uint32_t j = 0; j < y->nslots; j++)
    if (project_slot(p, &x->slots[j], &y->slots[j]) < 0) {
      *why = "out of memory";
      shell_free(y);
      return NULL;
    }
  /* borrowed: on each path the summary of the rank's group (decoded without
   * the count check: a group's counts are those of all its ranks) */
  if (tf_gtiming_project(&x->timing, rank, &y->timing)) {
    *why = "out of memory";
    shell_free(y);
    return NULL;
  }
  return y;
}

static int project_list(tf_mnode *const *in, uint32_t nin, projection *p, tf_fnode ***out, uint32_t *nout) {
  int64_t rank = p->rank;
  const char **why = p->why;
  *out = NULL;
  *nout = 0;
  uint32_t k = 0;
  for (uint32_t i = 0; i < nin; i++) k += tf_ranks_contains(&in[i]->ranks, rank);
  if (!k) return 0;
  *out = calloc(k, sizeof **out);
  if (!*out) {
    *why = "out of memory";
    return -1;
  }
  for (uint32_t i = 0; i < nin; i++) {
    if (!tf_ranks_contains(&in[i]->ranks, rank)) continue;
    tf_fnode *y = project_node(in[i], p);
    if (!y) {
      if (!*why) *why = "out of memory";
      return -1;
    }
    (*out)[(*nout)++] = y;
  }
  return 0;
}

int tf_mtrace_project_bytes(const tf_mtrace *t, int32_t rank, tf_buf *b, uint64_t *nevents, const char **why) {
  *why = NULL;
  b->len = 0;
  int64_t idx = tf_mtrace_rank_index(t, rank);
  if (idx < 0) {
    *why = "rank not in this trace";
    return -1;
  }
  *nevents = (uint64_t)tf_vseq_value_at(&t->nevents, idx);
  tf_fnode **shell;
  uint32_t nshell;
  projection p = {.rank = rank, .why = why};
  int rc = project_list(t->top, t->ntop, &p, &shell, &nshell);
  if (!rc && nshell == 0 && *nevents != 0) {
    *why = "no events for a rank that declares some";
    rc = -1;
  }
  if (!rc && nshell) {
    /* the rank's order (borrowed; a version-2 trace has none: one stream) */
    tf_order mine;
    tf_order_init(&mine);
    tf_vseq *parts[3] = {&mine.sizes, &mine.runs, &mine.lengths};
    for (int k = 0; k < 3; k++) {
      const tf_vseq *s = tf_vset_find(&t->order[k], rank);
      if (s) *parts[k] = *s;
    }
    tf_segment_encode(b, shell, nshell, &mine);
    if (b->failed) rc = (*why = "out of memory", -1);
  }
  for (uint32_t i = 0; i < nshell; i++) shell_free(shell[i]);
  free(shell);
  projection_free(&p);
  return rc;
}

/* flags: TF_SEGMENT_KEEP_RUNS or 0 (segment.h) */
static int decode_projection(const tf_mtrace *t, const tf_buf *b, uint64_t nevents, unsigned flags, tf_fnode ***nodes,
                             uint32_t *n, tf_order *order, tf_mem *m, const char **why) {
  *nodes = NULL;
  *n = 0;
  tf_order_init(order);
  if (!b->len) return 0;
  tf_cursor c = {b->data, b->data + b->len, 0};
  int rc = tf_segment_decode(&c, nevents, t->ft.n, t->ncallsites, t->timing | TF_SEGMENT_MERGED_TIMING | flags,
                             t->bins, TF_TRACE_VERSION, nodes, n, order, m, why);
  if (!rc && c.p != c.end) rc = (*why = "trailing bytes", -1);
  if (rc) {
    for (uint32_t i = 0; i < *n; i++) tf_fnode_free((*nodes)[i], m);
    free(*nodes);
    *nodes = NULL;
    *n = 0;
    tf_order_free(order, m);
  }
  return rc;
}

int tf_mtrace_decode_projection(const tf_mtrace *t, const tf_buf *b, uint64_t nevents, tf_fnode ***nodes,
                                uint32_t *n, tf_order *order, tf_mem *m, const char **why) {
  return decode_projection(t, b, nevents, 0, nodes, n, order, m, why);
}

int tf_mtrace_project(const tf_mtrace *t, int32_t rank, tf_fnode ***nodes, uint32_t *n, tf_order *order,
                      uint64_t *nevents, tf_mem *m, const char **why) {
  *nodes = NULL;
  *n = 0;
  tf_order_init(order);
  tf_buf b = {0};
  int rc = tf_mtrace_project_bytes(t, rank, &b, nevents, why);
  if (!rc) rc = tf_mtrace_decode_projection(t, &b, *nevents, nodes, n, order, m, why);
  tf_buf_free(&b);
  return rc;
}

/* ------------------------------------------------------------ merged again in rank order */

/* A projection's events (y, as project_list made them from x) carry their
 * rank group's summaries: cut each down to the rank's own share. */
static void share_timing(tf_mnode *const *x, uint32_t nx, tf_fnode *const *y, uint32_t ny, int64_t rank,
                         tf_mem *m) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < nx && j < ny; i++) {
    if (!tf_ranks_contains(&x[i]->ranks, rank)) continue;
    tf_fnode *f = y[j++];
    if (x[i]->run || f->run) continue;
    if (x[i]->is_loop) {
      share_timing(x[i]->body, x[i]->nbody, f->body, f->nbody, rank, m);
      continue;
    }
    const tf_gtiming *g = &x[i]->timing;
    double w[g->npaths ? g->npaths : 1];
    uint32_t np = 0;
    for (uint32_t p = 0; p < g->npaths; p++)
      for (uint32_t q = 0; q < g->paths[p].n; q++)
        if (tf_ranks_contains(&g->paths[p].g[q].ranks, rank)) {
          const tf_tgroup *grp = &g->paths[p].g[q];
          w[np++] = (double)grp->t.compute.n / (double)(grp->ranks.nvalues ? grp->ranks.nvalues : 1);
          break;
        }
    if (np == f->timing.npaths) tf_timing_share(&f->timing, w, f->nvals.nvalues, m);
  }
}

/* Rank `rank` (the i-th present one) of t as a one-rank merged trace, from its projection. */
static int rank_alone(const tf_mtrace *t, uint64_t i, tf_mtrace *one, const char **why) {
  int32_t rank = (int32_t)tf_vseq_value_at(&t->present, (int64_t)i);
  tf_mem *m = &one->mem;
  tf_fnode **nodes = NULL;
  uint32_t n = 0;
  tf_order order;
  uint64_t nevents;
  *why = "out of memory";
  if (take_header(one, t, NULL)) goto fail;
  tf_buf b = {0}; /* the projection with its flat runs kept as run nodes, one per node of t */
  int rc = tf_mtrace_project_bytes(t, rank, &b, &nevents, why);
  if (!rc) rc = decode_projection(t, &b, nevents, TF_SEGMENT_KEEP_RUNS, &nodes, &n, &order, m, why);
  tf_buf_free(&b);
  if (rc) goto fail;
  *why = "out of memory";
  share_timing(t->top, t->ntop, nodes, n, rank, m);
  int64_t partial = tf_vseq_value_at(&t->why, (int64_t)i);
  one->partial = (uint32_t)partial;
  tf_vseq_push(&one->present, rank, m);
  tf_vseq_push(&one->nevents, (int64_t)nevents, m);
  tf_vseq_push(&one->lost, tf_vseq_value_at(&t->lost, (int64_t)i), m);
  tf_vseq_push(&one->why, partial, m);
  if (!(one->top = calloc(n ? n : 1, sizeof *one->top))) goto fail_nodes;
  m->bytes += n * sizeof *one->top;
  for (uint32_t k = 0; k < n; k++) {
    tf_mnode *x = run_take(nodes[k], rank, m, m);
    if (!nodes[k]->run) x = tf_mnode_from_fnode(nodes[k], rank, t->callsites, m);
    if (!x) goto fail_nodes;
    one->top[one->ntop++] = x;
  }
  for (uint32_t k = 0; k < n; k++) tf_fnode_free(nodes[k], m);
  free(nodes);
  if (take_order(one, rank, &order) || m->failed) goto fail;
  return 0;
fail_nodes:
  for (uint32_t k = 0; k < n; k++) tf_fnode_free(nodes[k], m);
  free(nodes);
  tf_order_free(&order, m);
fail:
  tf_mtrace_free(one);
  return -1;
}

int tf_mtrace_remerge(tf_mtrace *t, char *err, size_t errlen) {
  tf_mtrace out = {0};
  uint64_t nranks = t->present.nvalues;
  if (!nranks) return 0; /* nothing to merge: t as it is */
  for (uint64_t i = 0; i < nranks; i++) {
    tf_mtrace one;
    const char *why;
    if (rank_alone(t, i, &one, &why)) {
      snprintf(err, errlen, "rank %lld: %s", (long long)tf_vseq_value_at(&t->present, (int64_t)i), why);
      tf_mtrace_free(&out);
      return -1;
    }
    if (i == 0) {
      out = one;
    } else if (tf_mtrace_merge(&out, &one, err, errlen)) {
      tf_mtrace_free(&out);
      return -1;
    }
  }
  out.merge_ns = t->merge_ns;
  out.extrap = t->extrap;
  t->extrap = NULL;
  tf_mtrace_free(t);
  tf_mtrace_seal(&out);
  *t = out;
  return 0;
}

/* ------------------------------------------------------------ sealing */

static void seal_vset(tf_vset *v, tf_mem *m) {
  for (uint32_t i = 0; i < v->n; i++) tf_vseq_seal(&v->ranks[i], m);
}

static void seal_nodes(tf_mnode *const *x, uint32_t n, tf_mem *m) {
  for (uint32_t i = 0; i < n; i++) {
    tf_vseq_seal(&x[i]->ranks, m);
    seal_vset(&x[i]->count, m);
    for (uint32_t j = 0; j < x[i]->nslots; j++) seal_vset(&x[i]->slots[j], m);
    tf_gtiming_seal(&x[i]->timing, m);
    seal_nodes(x[i]->body, x[i]->nbody, m);
  }
}

void tf_mtrace_seal(tf_mtrace *t) {
  for (int k = 0; k < 3; k++) seal_vset(&t->order[k], &t->mem);
  tf_vseq_seal(&t->present, &t->mem);
  tf_vseq_seal(&t->nevents, &t->mem);
  tf_vseq_seal(&t->lost, &t->mem);
  tf_vseq_seal(&t->why, &t->mem);
  seal_nodes(t->top, t->ntop, &t->mem);
}
