/* efg_build.c — the event flow graph of a trace, computed on its merged
 * loop structure without unrolling (doc/EFG.md "Computing the graph").
 *
 * Every node of the folded structure keeps value sequences over ALL its
 * occurrences, so a list of items executed E times (the top level once, a
 * loop body as often as the loop's iteration counts sum to) contributes,
 * for each thread, E transitions from the last event of the thread in one
 * item to the first in the next item holding the thread's events, and a
 * loop contributes sum(iterations) - occurrences wrap-around transitions
 * from the last to the first event of the thread in its body. Node counts
 * are the leaves' occurrences. One walk per rank group: ranks whose nodes,
 * presence and iteration counts are the same in the merged structure have
 * the same graph, so each group is walked once and its counts handed to its
 * ranks in rank order (value sets of (count, ranks) pairs).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"
#include "merge/ranklist.h"
#include "util/hash.h"

typedef unsigned __int128 u128;

/* ------------------------------------------------------------ maps */

static uint64_t map_hash(uint64_t k) { return tf_mix(0x6566, k); }

static int map_grow(efg_map *m) {
  uint32_t cap = m->cap ? 2 * m->cap : 64;
  uint64_t *k = calloc(cap, sizeof *k);
  uint32_t *v = calloc(cap, sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  for (uint32_t i = 0; i < m->cap; i++) {
    if (!m->v[i]) continue;
    uint32_t j = (uint32_t)map_hash(m->k[i]) & (cap - 1);
    while (v[j]) j = (j + 1) & (cap - 1);
    k[j] = m->k[i];
    v[j] = m->v[i];
  }
  free(m->k);
  free(m->v);
  m->k = k;
  m->v = v;
  m->cap = cap;
  return 0;
}

uint32_t efg_map_get(const efg_map *m, uint64_t key) {
  if (!m->cap) return EFG_NONE;
  for (uint32_t j = (uint32_t)map_hash(key) & (m->cap - 1); m->v[j]; j = (j + 1) & (m->cap - 1))
    if (m->k[j] == key) return m->v[j] - 1;
  return EFG_NONE;
}

int efg_map_put(efg_map *m, uint64_t key, uint32_t id) {
  if (2 * (m->used + 1) > m->cap && map_grow(m)) return -1;
  uint32_t j = (uint32_t)map_hash(key) & (m->cap - 1);
  while (m->v[j]) j = (j + 1) & (m->cap - 1);
  m->k[j] = key;
  m->v[j] = id + 1;
  m->used++;
  return 0;
}

void efg_map_free(efg_map *m) {
  free(m->k);
  free(m->v);
  *m = (efg_map){0};
}

/* ------------------------------------------------------------ value sequences */

/* Number and sum (modulo 2^64) of the values of items, without reading them. */
static void items_sum(const tf_vitem *it, uint32_t n, uint64_t *cnt, uint64_t *sum) {
  uint64_t c = 0, s = 0;
  for (uint32_t i = 0; i < n; i++) {
    const tf_vitem *x = &it[i];
    uint64_t tri = (uint64_t)((u128)x->count * (x->count - 1) / 2); /* 0 + 1 + ... + (count - 1) */
    if (!x->nbody) {
      c += x->count;
      s += x->count * (uint64_t)x->base + tri * (uint64_t)x->step;
    } else {
      uint64_t bc, bs;
      items_sum(x->body, x->nbody, &bc, &bs);
      c += x->count * bc;
      s += x->count * bs + tri * bc * (uint64_t)x->step;
    }
  }
  *cnt = c;
  *sum = s;
}

static void vseq_sum(const tf_vseq *q, uint64_t *cnt, uint64_t *sum) {
  items_sum(q->items, q->n, cnt, sum);
  if (q->tcount) {
    tf_vitem t = tf_vseq_tail(q);
    uint64_t c, s;
    items_sum(&t, 1, &c, &s);
    *cnt += c;
    *sum += s;
  }
}

/* ------------------------------------------------------------ counts and times */

static int counts_add(efg_counts *c, int32_t rank, uint64_t count, tf_mem *m) {
  uint32_t i = c->last;
  if (i >= c->n || c->v[i].count != count)
    for (i = 0; i < c->n && c->v[i].count != count; i++) {
    }
  if (i == c->n) {
    if (c->n == c->cap) {
      uint32_t cap = c->cap ? 2 * c->cap : 2;
      efg_vcount *v = realloc(c->v, cap * sizeof *v);
      if (!v) return -1;
      c->v = v;
      c->cap = cap;
    }
    c->v[c->n] = (efg_vcount){.count = count};
    tf_vseq_init(&c->v[c->n].ranks);
    c->n++;
  }
  c->last = i;
  tf_vseq_push(&c->v[i].ranks, rank, m);
  tf_vseq_push(&c->ranks, rank, m);
  c->total += count;
  return m->failed ? -1 : 0;
}

static void counts_seal(efg_counts *c, tf_mem *m) {
  tf_vseq_seal(&c->ranks, m);
  for (uint32_t i = 0; i < c->n; i++) tf_vseq_seal(&c->v[i].ranks, m);
}

static void counts_free(efg_counts *c, tf_mem *m) {
  for (uint32_t i = 0; i < c->n; i++) tf_vseq_free(&c->v[i].ranks, m);
  free(c->v);
  tf_vseq_free(&c->ranks, m);
  *c = (efg_counts){0};
}

void efg_counts_range(const efg_counts *c, uint64_t *lo, uint64_t *hi) {
  *lo = *hi = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    if (!i || c->v[i].count < *lo) *lo = c->v[i].count;
    if (c->v[i].count > *hi) *hi = c->v[i].count;
  }
}

/* 1 if two rank lists hold the same ranks. */
static int same_ranks(const tf_vseq *a, const tf_vseq *b) {
  if (a == b) return 1;
  if (a->nvalues != b->nvalues) return 0;
  tf_vseq_iter *ia = malloc(tf_vseq_iter_size(a)), *ib = malloc(tf_vseq_iter_size(b));
  int same = ia && ib;
  if (same) {
    tf_vseq_iter_init(ia, a);
    tf_vseq_iter_init(ib, b);
    int64_t x, y;
    while (same && tf_vseq_iter_next(ia, &x)) same = tf_vseq_iter_next(ib, &y) && x == y;
  }
  free(ia);
  free(ib);
  return same;
}

/* Add one path's summaries to the group of `ranks`. 0 or -1. */
static int times_add(tf_efg *g, efg_times *t, const tf_vseq *ranks, const tf_tpath *p) {
  uint32_t i = 0;
  while (i < t->n && !same_ranks(t->g[i].ranks, ranks)) i++;
  if (i == t->n) {
    if (t->n == t->cap) {
      uint32_t cap = t->cap ? 2 * t->cap : 2;
      efg_tgroup *n = realloc(t->g, cap * sizeof *n);
      if (!n) return -1;
      t->g = n;
      t->cap = cap;
    }
    t->g[t->n++] = (efg_tgroup){.ranks = ranks};
  }
  tf_timing view = {.npaths = 1, .paths = (tf_tpath *)p};
  return tf_timing_merge(&t->g[i].t, &view, g->mt->bins, 1, &g->mem);
}

static void times_free(efg_times *t, tf_mem *m) {
  for (uint32_t i = 0; i < t->n; i++) tf_timing_free(&t->g[i].t, m);
  free(t->g);
  *t = (efg_times){0};
}

int efg_times_total(const tf_efg *g, const efg_times *t, tf_tpath *out, tf_mem *m) {
  tf_timing all = {0};
  for (uint32_t i = 0; i < t->n; i++)
    if (tf_timing_merge(&all, &t->g[i].t, g->mt->bins, 1, m)) {
      tf_timing_free(&all, m);
      return -1;
    }
  *out = (tf_tpath){0};
  if (all.npaths) {
    *out = all.paths[0]; /* one key throughout: one path; moved out */
    all.npaths = 0;
  }
  tf_timing_free(&all, m);
  return 0;
}

/* ------------------------------------------------------------ text */

char *efg_ranks_text(const tf_vseq *ranks) {
  size_t len = 256;
  for (;;) {
    char *b = malloc(len);
    if (!b) return NULL;
    tf_ranks_format(ranks, b, len);
    if (strlen(b) + 1 < len) return b;
    free(b);
    if (len > ((size_t)1 << 40)) return NULL;
    len *= 4;
  }
}

void efg_site_label(const tf_efg *g, uint32_t site, char *buf, size_t len) {
  if (g->where && g->where[site]) {
    snprintf(buf, len, "%s", g->where[site]);
    return;
  }
  const tf_callsite *cs = &g->mt->callsites[site];
  const char *mod = cs->module && *cs->module ? cs->module : "?";
  const char *base = strrchr(mod, '/');
  snprintf(buf, len, "%s+0x%llx", base ? base + 1 : mod, (unsigned long long)cs->offset);
}

/* ------------------------------------------------------------ building */

static uint64_t node_key(uint32_t fn, uint32_t thread, uint32_t site) {
  return (uint64_t)fn << 44 | (uint64_t)thread << 32 | site;
}

/* Mirror the merged nodes; every event gets its graph node. 0 or -1 (memory, or an id too large for a key). */
static int mirror(tf_efg *g, tf_mnode *const *in, uint32_t n, efg_item **out) {
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) return -1;
  for (uint32_t i = 0; i < n; i++) {
    const tf_mnode *x = in[i];
    efg_item *it = &(*out)[i];
    it->m = x;
    it->node = EFG_NONE;
    if (x->is_loop) {
      it->nbody = x->nbody;
      if (mirror(g, x->body, x->nbody, &it->body)) return -1;
      continue;
    }
    if (x->fn >= (1u << 20) || x->thread >= (1u << 12)) return -1;
    if (x->thread + 1 > g->nthreads) g->nthreads = x->thread + 1;
    uint64_t key = node_key(x->fn, x->thread, x->site);
    uint32_t id = efg_map_get(&g->nodemap, key);
    if (id == EFG_NONE) {
      if (g->nnodes == g->capnodes) {
        uint32_t cap = g->capnodes ? 2 * g->capnodes : 32;
        efg_node *nn = realloc(g->nodes, cap * sizeof *nn);
        if (!nn) return -1;
        g->nodes = nn;
        g->capnodes = cap;
      }
      id = g->nnodes;
      g->nodes[g->nnodes++] = (efg_node){.fn = x->fn, .thread = x->thread, .site = x->site, .out = EFG_NONE};
      if (efg_map_put(&g->nodemap, key, id)) return -1;
    }
    it->node = id;
  }
  return 0;
}

static void items_free(efg_item *it, uint32_t n) {
  if (!it) return;
  for (uint32_t i = 0; i < n; i++) items_free(it[i].body, it[i].nbody);
  free(it);
}

/* ---- one rank group: the walk */

typedef struct walk {
  tf_efg *g;
  int64_t rank;
  uint64_t *eacc, *nacc; /* per edge id / node id, this rank */
  uint32_t capacc;       /* of eacc */
  uint32_t *etouch, netouch, capetouch;
  uint32_t *ntouch, nntouch;
  const char *why;
  int nomem;
} walk;

static int edge_add(walk *w, uint32_t from, uint32_t to, uint64_t count) {
  if (!count) return 0;
  tf_efg *g = w->g;
  uint64_t key = (uint64_t)from << 32 | to;
  uint32_t id = efg_map_get(&g->edgemap, key);
  if (id == EFG_NONE) {
    if (g->nedges == g->capedges) {
      uint32_t cap = g->capedges ? 2 * g->capedges : 64;
      efg_edge *ne = realloc(g->edges, cap * sizeof *ne);
      if (!ne) goto nomem;
      g->edges = ne;
      g->capedges = cap;
    }
    id = g->nedges;
    g->edges[g->nedges++] = (efg_edge){.from = from, .to = to};
    if (efg_map_put(&g->edgemap, key, id)) goto nomem;
  }
  if (id >= w->capacc) {
    uint32_t cap = w->capacc ? 2 * w->capacc : 64;
    while (cap <= id) cap *= 2;
    uint64_t *na = realloc(w->eacc, cap * sizeof *na);
    if (!na) goto nomem;
    memset(na + w->capacc, 0, (cap - w->capacc) * sizeof *na);
    w->eacc = na;
    w->capacc = cap;
  }
  if (!w->eacc[id]) {
    if (w->netouch == w->capetouch) {
      uint32_t cap = w->capetouch ? 2 * w->capetouch : 64;
      uint32_t *nt = realloc(w->etouch, cap * sizeof *nt);
      if (!nt) goto nomem;
      w->etouch = nt;
      w->capetouch = cap;
    }
    w->etouch[w->netouch++] = id;
  }
  w->eacc[id] += count;
  return 0;
nomem:
  w->nomem = 1;
  return -1;
}

/* Thread t's events of an item run from node a to node b: link them to what came before in the list. */
static int link_item(walk *w, uint32_t *first, uint32_t *last, uint32_t t, uint32_t a, uint32_t b, uint64_t E) {
  if (last[t] != EFG_NONE) {
    if (edge_add(w, last[t], a, E)) return -1;
  } else {
    first[t] = a;
  }
  last[t] = b;
  return 0;
}

/* The list executed E times on w->rank: its transitions into the
 * accumulators, and for each thread its first and last node (EFG_NONE:
 * no event of the thread) into first[] and last[]. 0 or -1 (w->why). */
static int walk_list(walk *w, const efg_item *items, uint32_t n, uint64_t E, uint32_t *first, uint32_t *last) {
  uint32_t T = w->g->nthreads;
  for (uint32_t t = 0; t < T; t++) first[t] = last[t] = EFG_NONE;
  for (uint32_t i = 0; i < n; i++) {
    const efg_item *it = &items[i];
    const tf_mnode *x = it->m;
    if (!tf_ranks_contains(&x->ranks, w->rank)) continue;
    const tf_vseq *count = tf_vset_find(&x->count, w->rank);
    if (!count) {
      w->why = x->is_loop ? "a loop without iteration counts for a rank it occurs on"
                          : "an event without value counts for a rank it occurs on";
      return -1;
    }
    uint64_t occ, sum;
    vseq_sum(count, &occ, &sum);
    if (occ != E) {
      w->why = x->is_loop ? "a loop's iteration counts do not match its occurrences"
                          : "an event's value counts do not match its occurrences";
      return -1;
    }
    if (!x->is_loop) {
      if (!w->nacc[it->node]) w->ntouch[w->nntouch++] = it->node;
      w->nacc[it->node] += E;
      if (link_item(w, first, last, x->thread, it->node, it->node, E)) return -1;
      continue;
    }
    if (sum < occ) {
      w->why = "a loop iteration count below 1";
      return -1;
    }
    uint32_t *bf = malloc(2 * (size_t)T * sizeof *bf);
    if (!bf) {
      w->nomem = 1;
      return -1;
    }
    uint32_t *bl = bf + T;
    int rc = walk_list(w, it->body, it->nbody, sum, bf, bl);
    for (uint32_t t = 0; t < T && !rc; t++) {
      if (bf[t] == EFG_NONE) continue;
      if (edge_add(w, bl[t], bf[t], sum - occ) || link_item(w, first, last, t, bf[t], bl[t], E)) rc = -1;
    }
    free(bf);
    if (rc) return -1;
  }
  return 0;
}

/* ---- rank groups: ranks that walk alike */

typedef struct sigvec {
  uint32_t *v;
  uint32_t n, cap;
} sigvec;

static int sig_push(sigvec *s, uint32_t x) {
  if (s->n == s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 64;
    uint32_t *nv = realloc(s->v, cap * sizeof *nv);
    if (!nv) return -1;
    s->v = nv;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  return 0;
}

/* What the walk reads of `rank`: which items hold it, and which iteration-count variant each loop takes. */
static int signature(const efg_item *items, uint32_t n, int64_t rank, sigvec *s) {
  for (uint32_t i = 0; i < n; i++) {
    const tf_mnode *x = items[i].m;
    if (!tf_ranks_contains(&x->ranks, rank)) {
      if (sig_push(s, 0)) return -1;
      continue;
    }
    if (!x->is_loop) {
      if (sig_push(s, 1)) return -1;
      continue;
    }
    uint32_t k = 0;
    while (k < x->count.n && !tf_ranks_contains(&x->count.ranks[k], rank)) k++;
    if (sig_push(s, 2 + k) || signature(items[i].body, items[i].nbody, rank, s)) return -1;
  }
  return 0;
}

typedef struct group {
  sigvec sig;
  uint64_t hash;
  uint32_t *eid, neid; /* its edges ... */
  uint64_t *ecnt;      /* ... and their counts */
  uint32_t *nid, nnid;
  uint64_t *ncnt;
  uint32_t *first; /* per thread: the initial node */
} group;

static void group_free(group *gr) {
  free(gr->sig.v);
  free(gr->eid);
  free(gr->ecnt);
  free(gr->nid);
  free(gr->ncnt);
  free(gr->first);
}

/* Walk a group's representative rank; keep its counts. */
static int walk_group(walk *w, group *gr, int64_t rank, uint64_t nevents) {
  tf_efg *g = w->g;
  w->rank = rank;
  uint32_t T = g->nthreads;
  gr->first = malloc(2 * (size_t)T * sizeof *gr->first);
  if (!gr->first) {
    w->nomem = 1;
    return -1;
  }
  if (walk_list(w, g->top, g->ntop, 1, gr->first, gr->first + T)) return -1;
  uint64_t events = 0, transitions = 0, threads = 0;
  gr->nid = malloc((w->nntouch + 1) * sizeof *gr->nid);
  gr->ncnt = malloc((w->nntouch + 1) * sizeof *gr->ncnt);
  gr->eid = malloc((w->netouch + 1) * sizeof *gr->eid);
  gr->ecnt = malloc((w->netouch + 1) * sizeof *gr->ecnt);
  if (!gr->nid || !gr->ncnt || !gr->eid || !gr->ecnt) {
    w->nomem = 1;
    return -1;
  }
  for (uint32_t i = 0; i < w->nntouch; i++) {
    uint32_t id = w->ntouch[i];
    gr->nid[gr->nnid] = id;
    gr->ncnt[gr->nnid++] = w->nacc[id];
    events += w->nacc[id];
    w->nacc[id] = 0;
  }
  for (uint32_t i = 0; i < w->netouch; i++) {
    uint32_t id = w->etouch[i];
    gr->eid[gr->neid] = id;
    gr->ecnt[gr->neid++] = w->eacc[id];
    transitions += w->eacc[id];
    w->eacc[id] = 0;
  }
  w->nntouch = w->netouch = 0;
  for (uint32_t t = 0; t < T; t++) threads += gr->first[t] != EFG_NONE;
  /* a thread's events are its transitions plus one */
  if (events != nevents || transitions + threads != events) {
    w->why = events != nevents ? "the structure's events differ from the rank's event count"
                               : "transitions and events disagree (internal error)";
    return -1;
  }
  return 0;
}

static int cmp_edge(const void *a, const void *b) {
  const efg_edge *x = a, *y = b;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* ---- time summaries: each event leaf's paths onto the edges they key */

static int attach_times(tf_efg *g, const efg_item *items, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const efg_item *it = &items[i];
    const tf_mnode *x = it->m;
    if (g->o.rank >= 0 && !tf_ranks_contains(&x->ranks, g->o.rank)) continue;
    if (x->is_loop) {
      if (attach_times(g, it->body, it->nbody)) return -1;
      continue;
    }
    for (uint32_t p = 0; p < x->timing.npaths; p++) {
      const tf_gpath *gp = &x->timing.paths[p];
      efg_times *slot;
      if (g->mt->timing != TF_TIMING_PATH || gp->prev_fn == TF_PREV_NONE) {
        slot = &g->nodes[it->node].entry;
      } else {
        uint32_t a = efg_map_get(&g->nodemap, node_key(gp->prev_fn, x->thread, gp->prev_site));
        uint32_t e = a == EFG_NONE ? EFG_NONE : efg_map_get(&g->edgemap, (uint64_t)a << 32 | it->node);
        /* a transition of a rank outside the graph's scope (--rank): not an edge here */
        if (e == EFG_NONE || !g->edges[e].cnt.total) continue;
        slot = &g->edges[e].time;
      }
      for (uint32_t k = 0; k < gp->n; k++) { /* the path's rank groups (doc/TIMING.md) */
        const tf_tgroup *grp = &gp->g[k];
        if (g->o.rank >= 0 && !tf_ranks_contains(&grp->ranks, g->o.rank)) continue;
        if (times_add(g, slot, &grp->ranks, &grp->t)) return -1;
      }
    }
  }
  return 0;
}

static uint32_t count_items(const tf_efg *g, const efg_item *items, uint32_t n) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (g->o.rank >= 0 && !tf_ranks_contains(&items[i].m->ranks, g->o.rank)) continue;
    k += 1 + count_items(g, items[i].body, items[i].nbody);
  }
  return k;
}

tf_status tf_efg_build(tf_trace *t, const char *name, const tf_efg_opts *o, tf_efg **out, char *err, size_t errlen) {
  *out = NULL;
  tf_status st = TF_OK;
  const tf_trace_info *ti = tf_trace_get_info(t);
  if (ti->source == TF_SOURCE_FLAT) {
    snprintf(err, errlen,
             "%s: holds flat (reference) files only: an event flow graph is built from the folded loop structure, "
             "which flat files do not have; record with TRACEFOLD_MODE=compressed (the default) or both, which "
             "write trace.tf",
             name);
    return TF_ERR_ARG;
  }
  if (o->rank >= 0 && !tf_trace_rank(t, o->rank, NULL, NULL)) {
    snprintf(err, errlen, "%s: rank %d is not in the trace", name, o->rank);
    return TF_ERR_ARG;
  }
  tf_efg *g = calloc(1, sizeof *g);
  if (!g || !(g->name = strdup(name))) {
    free(g);
    snprintf(err, errlen, "%s: out of memory", name);
    return TF_ERR_NOMEM;
  }
  g->t = t;
  g->mt = tf_trace_mtrace(t);
  g->info = ti;
  g->o = *o;
  const tf_mtrace *mt = g->mt;
  group *groups = NULL;
  uint32_t *grank = NULL; /* group of each rank in scope */
  walk w = {.g = g};
  sigvec sv = {0};

  /* the ranks in scope */
  g->ranks = malloc(((size_t)ti->nranks_present + 1) * sizeof *g->ranks);
  if (!g->ranks) goto nomem;
  if (o->rank >= 0) {
    g->ranks[g->nranks++] = o->rank;
  } else {
    for (int32_t r = 0; r < ti->nranks && g->nranks < ti->nranks_present; r++)
      if (tf_trace_rank(t, r, NULL, NULL)) g->ranks[g->nranks++] = r;
  }
  g->ntop = mt->ntop;
  if (mirror(g, mt->top, mt->ntop, &g->top)) goto nomem;
  if (!g->nthreads) g->nthreads = 1;
  w.nacc = calloc(g->nnodes + 1, sizeof *w.nacc);
  w.ntouch = malloc((g->nnodes + 1) * sizeof *w.ntouch);
  groups = calloc((size_t)g->nranks + 1, sizeof *groups);
  grank = malloc(((size_t)g->nranks + 1) * sizeof *grank);
  if (!w.nacc || !w.ntouch || !groups || !grank) goto nomem;

  /* rank groups, each walked once */
  for (int32_t i = 0; i < g->nranks; i++) {
    int32_t r = g->ranks[i];
    sv.n = 0;
    if (signature(g->top, g->ntop, r, &sv)) goto nomem;
    uint64_t h = tf_mix(0x7367, sv.n);
    for (uint32_t k = 0; k < sv.n; k++) h = tf_mix(h, sv.v[k]);
    uint32_t gi = 0;
    while (gi < g->ngroups && !(groups[gi].hash == h && groups[gi].sig.n == sv.n &&
                                !memcmp(groups[gi].sig.v, sv.v, sv.n * sizeof *sv.v)))
      gi++;
    if (gi == g->ngroups) {
      group *gr = &groups[g->ngroups++];
      gr->hash = h;
      gr->sig = sv;
      sv = (sigvec){0};
      uint64_t nev = 0;
      tf_trace_rank(t, r, &nev, NULL);
      if (walk_group(&w, gr, r, nev)) {
        if (w.nomem) goto nomem;
        snprintf(err, errlen, "%s: rank %d: malformed structure: %s", name, r, w.why);
        st = TF_ERR_FORMAT;
        goto out;
      }
    }
    grank[i] = gi;
  }

  /* counts to ranks, in rank order */
  for (int32_t i = 0; i < g->nranks; i++) {
    int32_t r = g->ranks[i];
    group *gr = &groups[grank[i]];
    for (uint32_t k = 0; k < gr->nnid; k++) {
      if (counts_add(&g->nodes[gr->nid[k]].occ, r, gr->ncnt[k], &g->mem)) goto nomem;
      g->nevents += gr->ncnt[k];
    }
    for (uint32_t k = 0; k < gr->neid; k++)
      if (counts_add(&g->edges[gr->eid[k]].cnt, r, gr->ecnt[k], &g->mem)) goto nomem;
    for (uint32_t th = 0; th < g->nthreads; th++) {
      uint32_t node = gr->first[th];
      if (node == EFG_NONE) continue;
      uint32_t k = 0;
      while (k < g->ninits && !(g->inits[k].thread == th && g->inits[k].node == node)) k++;
      if (k == g->ninits) {
        if (g->ninits == g->capinits) {
          uint32_t cap = g->capinits ? 2 * g->capinits : 4;
          efg_init *ni = realloc(g->inits, cap * sizeof *ni);
          if (!ni) goto nomem;
          g->inits = ni;
          g->capinits = cap;
        }
        g->inits[g->ninits++] = (efg_init){.thread = th, .node = node};
      }
      if (counts_add(&g->inits[k].on, r, 1, &g->mem)) goto nomem;
    }
  }
  for (uint32_t i = 0; i < g->nnodes; i++) counts_seal(&g->nodes[i].occ, &g->mem);
  for (uint32_t i = 0; i < g->nedges; i++) counts_seal(&g->edges[i].cnt, &g->mem);
  for (uint32_t i = 0; i < g->ninits; i++) counts_seal(&g->inits[i].on, &g->mem);

  if (o->time && mt->timing != TF_TIMING_NONE && attach_times(g, g->top, g->ntop)) goto nomem;

  /* ids as written: nodes with occurrences in scope, in order of first appearance */
  for (uint32_t i = 0; i < g->nnodes; i++)
    g->nodes[i].out = g->nodes[i].occ.n ? g->nout++ : EFG_NONE;
  qsort(g->edges, g->nedges, sizeof *g->edges, cmp_edge); /* the edge map is not used after this */
  efg_map_free(&g->edgemap);
  g->nitems = count_items(g, g->top, g->ntop);
  if (o->resolve && efg_resolve_sites(g)) goto nomem;
  if (g->mem.failed) goto nomem;
  goto out;
nomem:
  snprintf(err, errlen, "%s: out of memory", name);
  st = TF_ERR_NOMEM;
out:
  for (uint32_t i = 0; groups && i < g->ngroups; i++) group_free(&groups[i]);
  free(groups);
  free(grank);
  free(sv.v);
  free(w.eacc);
  free(w.nacc);
  free(w.etouch);
  free(w.ntouch);
  if (st != TF_OK) {
    tf_efg_free(g);
    return st;
  }
  *out = g;
  return TF_OK;
}

void tf_efg_free(tf_efg *g) {
  if (!g) return;
  tf_mem *m = &g->mem;
  for (uint32_t i = 0; i < g->nnodes; i++) {
    counts_free(&g->nodes[i].occ, m);
    times_free(&g->nodes[i].entry, m);
  }
  for (uint32_t i = 0; i < g->nedges; i++) {
    counts_free(&g->edges[i].cnt, m);
    times_free(&g->edges[i].time, m);
  }
  for (uint32_t i = 0; i < g->ninits; i++) counts_free(&g->inits[i].on, m);
  free(g->nodes);
  free(g->edges);
  free(g->inits);
  items_free(g->top, g->ntop);
  if (g->where)
    for (uint32_t s = 0; s < g->mt->ncallsites; s++) {
      free(g->where[s]);
      free(g->func[s]);
    }
  free(g->where);
  free(g->func);
  efg_map_free(&g->nodemap);
  efg_map_free(&g->edgemap);
  free(g->ranks);
  free(g->name);
  free(g);
}

void tf_efg_get_stats(const tf_efg *g, tf_efg_stats *s) {
  uint32_t threads = 0;
  for (uint32_t th = 0; th < g->nthreads; th++)
    for (uint32_t i = 0; i < g->ninits; i++)
      if (g->inits[i].thread == th) {
        threads++;
        break;
      }
  *s = (tf_efg_stats){.nodes = g->nout, .edges = g->nedges, .threads = threads, .items = g->nitems,
                      .rank_groups = g->ngroups, .nranks = g->nranks, .events = g->nevents};
}
