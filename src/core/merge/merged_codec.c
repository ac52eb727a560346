/* merged_codec.c — the merged trace file (doc/FORMAT.md part 3): encode,
 * and decode with every field validated.
 *
 * Sections (framed, compressed and checked by container.c): 1 INFO,
 * 2 FUNCS, 3 CALLSITES, 4 RANKS, 5 NODES, each once, in this order; ids >= 64
 * are optional and skipped by readers that do not know them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file_io.h"
#include "merge/container.h"
#include "util/callsite_sig.h"
#include "merge/mtrace.h"
#include "merge/ranklist.h"
#include "format/segment.h"
#include "format/vseq_codec.h"

enum { SEC_END = 0, SEC_INFO = 1, SEC_FUNCS = 2, SEC_CALLSITES = 3, SEC_RANKS = 4, SEC_NODES = 5, SEC_OPTIONAL = 64,
       SEC_EXTRAP = 64 /* optional: text saying the trace is extrapolated, from what (doc/FORMAT.md 3.8a) */ };
enum { NF_LOOP = 1, NF_RANKS = 2, NF_CST = 0x10 /* with NF_LOOP: the loop's CST node id follows its ranks */,
       NF_FLAT = 0x20 /* with NF_RANKS (one rank), top level: a flat run (3.5, flat_mnode.c) */ };

static const char *const section_name[] = {"END", "INFO", "FUNCS", "CALLSITES", "RANKS", "NODES"};

/* ------------------------------------------------------------ encode */

/* One term of a value pair's rule (doc/FORMAT.md 3.5): svar a, uvar d, uvar m. */
static void put_rule_term(tf_buf *b, int64_t a, int64_t d, int64_t m) {
  tf_buf_put_svar(b, a);
  tf_buf_put_uvar(b, (uint64_t)d);
  tf_buf_put_uvar(b, (uint64_t)m);
}

static void put_vset(tf_buf *b, const tf_vset *v, const tf_vseq *node_ranks) {
  if (tf_vset_has_rule(v)) { /* the form with rules (doc/FORMAT.md 3.5): a flag (and rule) before each pair */
    tf_buf_put_uvar(b, (uint64_t)(v->n + 1) << 1 | 1);
    for (uint32_t i = 0; i < v->n; i++) {
      const tf_vrule *q = tf_vset_pair_rule(v, i);
      tf_buf_put_uvar(b, q ? (q->a2 ? 2 : 1) : 0); /* the rule's terms */
      if (q) put_rule_term(b, q->a, q->d, q->m);
      if (q && q->a2) put_rule_term(b, q->a2, q->d2, q->m2);
      tf_vseq_encode(b, &v->seq[i]);
      tf_vseq_encode(b, &v->ranks[i]);
    }
    return;
  }
  if (v->n == 1 && tf_vseq_equal(&v->ranks[0], node_ranks)) {
    tf_buf_put_uvar(b, 1 << 1 | 1);
    tf_vseq_encode(b, &v->seq[0]);
    return;
  }
  tf_buf_put_uvar(b, (uint64_t)v->n << 1);
  for (uint32_t i = 0; i < v->n; i++) {
    tf_vseq_encode(b, &v->seq[i]);
    tf_vseq_encode(b, &v->ranks[i]);
  }
}

/* An event's time summaries per path and rank group (doc/FORMAT.md 4.4;
 * the version-5 form, 4.10). */
static void put_gtiming(tf_buf *b, const tf_gtiming *g, const tf_vseq *node_ranks, int quantise) {
  uint64_t smin[2] = {UINT64_MAX, UINT64_MAX}, smax[2] = {0, 0};
  for (uint32_t i = 0; i < g->npaths; i++)
    for (uint32_t x = 0; x < g->paths[i].n; x++) {
      const tf_dstat *d[2] = {&g->paths[i].g[x].t.compute, &g->paths[i].g[x].t.duration};
      for (int k = 0; k < 2; k++)
        if (d[k]->n) {
          if (d[k]->min < smin[k]) smin[k] = d[k]->min;
          if (d[k]->max > smax[k]) smax[k] = d[k]->max;
        }
    }
  /* the event's per-rank means, rounded into the samples' range, as decoders check */
  uint64_t lo[2] = {0, 0}, hi[2] = {0, 0};
  int implied = g->npaths == 1 && g->paths[0].n == 1; /* one group: its own per-rank means are the event's */
  for (int k = 0; k < 2 && g->npaths; k++) {
    const tf_rankmeans *r = k ? &g->duration : &g->compute;
    if (smin[k] > smax[k]) smin[k] = smax[k] = 0;
    lo[k] = (uint64_t)(r->lo + 0.5), hi[k] = (uint64_t)(r->hi + 0.5);
    if (!(r->lo >= 0)) lo[k] = 0;
    if (!(r->hi >= 0)) hi[k] = 0;
    lo[k] = lo[k] < smin[k] ? smin[k] : lo[k] > smax[k] ? smax[k] : lo[k];
    hi[k] = hi[k] < smin[k] ? smin[k] : hi[k] > smax[k] ? smax[k] : hi[k];
    if (hi[k] < lo[k]) hi[k] = lo[k];
    if (implied) {
      const tf_tgroup *gr = &g->paths[0].g[0];
      uint64_t glo, ghi;
      int32_t glr, ghr;
      tf_dstat_rmeans_written(k ? &gr->t.duration : &gr->t.compute,
                              gr->ranks.nvalues == 1 ? (int32_t)tf_ranks_first(&gr->ranks) : -1, &glo, &ghi, &glr, &ghr);
      implied = glo == lo[k] && ghi == hi[k] && glr == r->lo_rank && ghr == r->hi_rank;
    }
  }
  tf_buf_put_uvar(b, (uint64_t)g->npaths << 1 | (uint64_t)(g->npaths && implied));
  for (uint32_t i = 0; i < g->npaths; i++) {
    const tf_gpath *p = &g->paths[i];
    if (p->prev_fn == TF_PREV_NONE) {
      tf_buf_put_uvar(b, 0);
    } else {
      tf_buf_put_uvar(b, (uint64_t)p->prev_fn + 1);
      tf_buf_put_uvar(b, p->prev_site);
    }
    int all = p->n == 1 && tf_vseq_equal(&p->g[0].ranks, node_ranks);
    tf_buf_put_uvar(b, all ? 1 << 1 | 1 : (uint64_t)p->n << 1);
    for (uint32_t x = 0; x < p->n; x++) {
      const tf_tpath *t = &p->g[x].t;
      if (!all) tf_vseq_encode(b, &p->g[x].ranks);
      /* a group of one rank: its rank fields are that rank and its means (not written) */
      int one = p->g[x].ranks.nvalues == 1;
      tf_buf_put_uvar(b, t->compute.n);
      tf_dstat_encode_compact(b, &t->compute, !one, quantise);
      tf_dstat_encode_compact(b, &t->duration, !one, quantise);
    }
  }
  if (!g->npaths || implied) return;
  for (int k = 0; k < 2; k++) {
    const tf_rankmeans *r = k ? &g->duration : &g->compute;
    tf_buf_put_uvar(b, lo[k] - smin[k]); /* relative to the smallest sample */
    tf_buf_put_uvar(b, hi[k] - lo[k]);
    tf_buf_put_uvar(b, (uint64_t)r->lo_rank);
    tf_buf_put_uvar(b, (uint64_t)r->hi_rank);
  }
}

static void put_nodes(tf_buf *b, tf_mnode *const *x, uint32_t n, const tf_vseq *parent_ranks, int quantise);

static void put_node(tf_buf *b, const tf_mnode *x, const tf_vseq *parent_ranks, int quantise) {
  if (x->run) { /* its rank, then the run as in a per-rank segment (FORMAT.md 2.2 kind 2) */
    tf_buf_put_u8(b, NF_FLAT | NF_RANKS);
    tf_vseq_encode(b, &x->ranks);
    tf_flatrun_encode(b, x->run);
    if (x->run->bytes.failed) b->failed = 1; /* its renumbering ran out of memory */
    return;
  }
  int explicit_ranks = !tf_vseq_equal(&x->ranks, parent_ranks);
  tf_buf_put_u8(b, (uint8_t)((x->is_loop ? NF_LOOP : 0) | (explicit_ranks ? NF_RANKS : 0) | (x->cst ? NF_CST : 0)));
  if (explicit_ranks) tf_vseq_encode(b, &x->ranks);
  if (x->cst) tf_buf_put_uvar(b, x->cst - 1);
  if (x->is_loop) {
    put_vset(b, &x->count, &x->ranks);
    put_nodes(b, x->body, x->nbody, &x->ranks, quantise);
    return;
  }
  tf_buf_put_uvar(b, x->fn);
  tf_buf_put_uvar(b, x->thread);
  tf_buf_put_uvar(b, x->site);
  put_vset(b, &x->count, &x->ranks);
  tf_buf_put_uvar(b, x->nslots);
  for (uint32_t j = 0; j < x->nslots; j++) put_vset(b, &x->slots[j], &x->ranks);
  put_gtiming(b, &x->timing, &x->ranks, quantise);
}

static void put_nodes(tf_buf *b, tf_mnode *const *x, uint32_t n, const tf_vseq *parent_ranks, int quantise) {
  tf_buf_put_uvar(b, n);
  for (uint32_t i = 0; i < n; i++) put_node(b, x[i], parent_ranks, quantise);
}

#define GIVE_BACK_MIN ((size_t)4 << 20) /* bytes of t freed between two tf_mem_give_back, at least */

/* t's top level; a flat run's bytes stay where they are, a range of the
 * body (container.h), so the run nodes stay until the file is put; free_t:
 * each other node freed once written (the body grows as t shrinks: a
 * node's value sets are never held twice, and what is freed goes back to
 * the system each time an eighth of t, and at least 4 MB, has been: a few
 * calls, each of which walks the heap's free blocks) */
static void put_top(tf_body *d, tf_mtrace *t, int quantise, int free_t) {
  tf_buf *b = &d->b;
  size_t held = t->mem.bytes, every = held / 8 > GIVE_BACK_MIN ? held / 8 : GIVE_BACK_MIN;
  tf_buf_put_uvar(b, t->ntop);
  for (uint32_t i = 0; i < t->ntop; i++) {
    const tf_mnode *x = t->top[i];
    if (x->run) { /* as put_node writes it, the run's bytes not copied */
      tf_buf_put_u8(b, NF_FLAT | NF_RANKS);
      tf_vseq_encode(b, &x->ranks);
      tf_flatrun_encode_head(b, x->run);
      tf_body_put_ext(d, x->run->bytes.data, x->run->bytes.len);
      if (x->run->bytes.failed) d->failed = 1; /* its renumbering ran out of memory */
      continue;
    }
    put_node(b, t->top[i], &t->present, quantise);
    if (!free_t) continue;
    tf_mnode_free(t->top[i], &t->mem);
    t->top[i] = NULL; /* tf_mtrace_free skips it */
    if (held - t->mem.bytes < every) continue;
    tf_mem_give_back();
    held = t->mem.bytes;
  }
}

/* quantise: time summaries' bins on their grid (a file) or exact (between ranks); free_t: t is freed
 * while the body is built (on failure too: put_top), before the compression */
static int encode(tf_mtrace *t, tf_buf *out, int zstd_level, int quantise, int free_t) {
  tf_buf s = {0};
  tf_body body = {0};
  tf_mtrace_seal(t);
  if (tf_mtrace_compact_funcs(t)) { /* FUNCS: the functions the nodes name, no others (version 4) */
    if (free_t) tf_mtrace_free(t);
    return -1;
  }

  tf_buf_put_uvar(&s, (uint64_t)t->nranks);
  tf_buf_put_svar(&s, t->thread_level);
  tf_buf_put_uvar(&s, t->start_unix_ns);
  tf_buf_put_str(&s, t->exe);
  tf_buf_put_str(&s, t->mpi);
  tf_buf_put_uvar(&s, t->partial);
  tf_buf_put_uvar(&s, t->merge_ns);
  tf_buf_put_uvar(&s, t->timing);
  tf_buf_put_uvar(&s, t->bins);
  tf_buf_put_uvar(&s, t->unit);
  tf_buf_put_u64(&s, t->run_id); /* version 3 */
  tf_buf_put_uvar(&s, t->run_start_unix_ns);
  tf_container_put_section(&body, SEC_INFO, &s);

  s.len = 0;
  tf_functable_encode(&s, t->ft.funcs, t->ft.n);
  tf_container_put_section(&body, SEC_FUNCS, &s);

  s.len = 0;
  tf_buf_put_uvar(&s, t->ncallsites);
  for (uint32_t i = 0; i < t->ncallsites; i++) { /* version 6: the signature only where it is not the usual one */
    const tf_callsite *cs = &t->callsites[i];
    int derived = cs->sig == tf_callsite_sig(cs->module, cs->offset);
    tf_buf_put_str(&s, cs->module);
    tf_buf_put_uvar(&s, cs->offset);
    tf_buf_put_u8(&s, derived ? 0 : 1);
    if (!derived) tf_buf_put_u64(&s, cs->sig);
  }
  tf_container_put_section(&body, SEC_CALLSITES, &s);

  s.len = 0;
  tf_vseq_encode(&s, &t->present);
  tf_vseq_encode(&s, &t->nevents);
  tf_vseq_encode(&s, &t->lost);
  tf_vseq_encode(&s, &t->why); /* version 3 */
  tf_container_put_section(&body, SEC_RANKS, &s);

  size_t nodes = tf_container_open_section(&body, SEC_NODES); /* the bulk: written once, in place */
  put_top(&body, t, quantise, free_t);
  for (int k = 0; k < 3; k++) { /* each rank's order of its streams; none known: one stream each */
    if (t->order[k].n) {
      put_vset(&body.b, &t->order[k], &t->present);
    } else {
      tf_buf_put_uvar(&body.b, 1 << 1 | 1);
      tf_buf_put_uvar(&body.b, 0);
    }
  }
  tf_container_close_section(&body, nodes);

  if (t->extrap) {
    s.len = 0;
    tf_buf_put_str(&s, t->extrap);
    tf_container_put_section(&body, SEC_EXTRAP, &s);
  }

  int failed = s.failed || body.failed || body.b.failed;
  tf_buf_free(&s);
  if (free_t) tf_mem_give_back(); /* before the compressor's tables */
  tf_container_put_file(out, &body, zstd_level);
  tf_body_free(&body);
  if (free_t) tf_mtrace_free(t); /* the flat runs, read until now */
  return failed || out->failed ? -1 : 0;
}

int tf_mtrace_encode(tf_mtrace *t, tf_buf *out, int zstd_level) { return encode(t, out, zstd_level, 1, 0); }

int tf_mtrace_encode_free(tf_mtrace *t, tf_buf *out, int zstd_level) { return encode(t, out, zstd_level, 1, 1); }

int tf_mtrace_encode_exact(tf_mtrace *t, tf_buf *out) { return encode(t, out, 0, 0, 0); }

/* ------------------------------------------------------------ decode */

#define MAXDEPTH TF_SEGMENT_MAXDEPTH

typedef struct dec {
  tf_cursor *c;
  tf_mtrace *t;
  uint32_t version;
  const char *why;
  int top; /* get_node: at the top level */
} dec;

static int bad(dec *d, const char *why) {
  if (!d->why) d->why = why;
  return -1;
}

/* One term of a value pair's rule (doc/FORMAT.md 3.5): svar a, uvar d, uvar
 * m; values out of range are made invalid for tf_vrule_valid. */
static void get_rule_term(dec *d, int64_t *a, int64_t *dd, int64_t *m) {
  *a = tf_cur_svar(d->c);
  uint64_t dv = tf_cur_uvar(d->c), mv = tf_cur_uvar(d->c);
  *dd = dv > INT64_MAX ? 0 : (int64_t)dv;
  *m = mv > INT64_MAX ? -1 : (int64_t)mv;
}

/* A rank list: strictly increasing, inside [0, nranks). */
static int get_ranks(dec *d, tf_vseq *s) {
  tf_vfacts f;
  const char *why = NULL;
  if (tf_vseq_decode(d->c, s, &d->t->mem, &f, &why)) return bad(d, why);
  if (f.count < 1 || !f.increasing || f.min < 0 || f.max >= d->t->nranks) return bad(d, "bad rank list");
  return 0;
}

static int get_vseq(dec *d, tf_vseq *s, tf_vfacts *f) {
  const char *why = NULL;
  return tf_vseq_decode(d->c, s, &d->t->mem, f, &why) ? bad(d, why) : 0;
}

/* Occurrences of an event over all its ranks: per pair, values per rank times ranks. */
static __int128 occurrences(const tf_vset *count) {
  __int128 occ = 0;
  for (uint32_t i = 0; i < count->n; i++) occ += (__int128)count->seq[i].nvalues * (__int128)count->ranks[i].nvalues;
  return occ;
}

/* A value set; counts: values must lie in [lo, hi] (counts of values or
 * iterations); slot: an event's slot, whose pairs may have rules. */
static int get_vset(dec *d, tf_vset *v, const tf_vseq *node_ranks, int counts, int64_t lo, int64_t hi, int slot) {
  uint64_t h = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated value set");
  uint64_t n = h >> 1;
  int flagged = (h & 1) && n >= 2; /* n - 1 pairs, each after its flag */
  if (flagged && !slot) return bad(d, "value pairs with rules outside an event's slot");
  if (flagged) n--;
  if (n < 1 || n > (uint64_t)(d->c->end - d->c->p) || ((h & 1) && !flagged && n != 1))
    return bad(d, "bad value-set size");
  for (uint64_t i = 0; i < n; i++) {
    tf_vseq seq, ranks;
    tf_vfacts f;
    tf_vseq_init(&ranks);
    uint64_t has_rule = flagged ? tf_cur_uvar(d->c) : 0; /* the rule's terms */
    tf_vrule rule = {0, 1, 0, 0, 1, 0};
    if (has_rule == 1 || has_rule == 2) get_rule_term(d, &rule.a, &rule.d, &rule.m);
    if (has_rule == 2) get_rule_term(d, &rule.a2, &rule.d2, &rule.m2);
    if (d->c->bad) return bad(d, "truncated value set");
    if (has_rule > 2) return bad(d, "unknown value-pair flag");
    if (has_rule && !tf_vrule_valid(&rule)) return bad(d, "bad value-pair rule (a 0, d 0 or out of range)");
    int rc = get_vseq(d, &seq, &f);
    if (!rc && counts && (f.count < 1 || f.min < lo || f.max > hi)) rc = bad(d, "bad counts");
    if (!rc) rc = (h & 1) && !flagged ? tf_vseq_copy(&ranks, node_ranks, &d->t->mem) : get_ranks(d, &ranks);
    if (rc) {
      tf_vseq_free(&seq, &d->t->mem);
      tf_vseq_free(&ranks, &d->t->mem);
      return bad(d, "out of memory");
    }
    if (has_rule ? tf_vset_add_rule(v, &seq, &ranks, tf_vseq_hash(&seq), &rule, &d->t->mem)
                 : tf_vset_add(v, &seq, &ranks, tf_vseq_hash(&seq), &d->t->mem))
      return bad(d, "out of memory");
  }
  return 0;
}

static int get_nodes(dec *d, tf_mnode ***out, uint32_t *nout, const tf_vseq *parent, uint32_t depth, int top);

static int cmp_u64(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

/* Smallest encoding of one path (previous call, a group header, one group:
 * count and two summaries of at least 11 bytes each in the merged form). */
#define GPATH_BYTES_MIN 24
/* version 5: previous call, group header, count, and two summaries of one
 * sample of one rank (its minimum and a bin count) */
#define GPATH_BYTES_MIN_V5 7

/* An event's grouped time summaries (version 3; doc/FORMAT.md 4.4), with
 * the checks of 4.5: occ, the occurrences over all the event's ranks. */
static int get_gtiming(dec *d, tf_gtiming *g, const tf_vseq *node_ranks, __int128 occ) {
  tf_mem *m = &d->t->mem;
  tf_timing_mode mode = (tf_timing_mode)d->t->timing;
  uint32_t k = d->t->bins;
  *g = (tf_gtiming){0};
  uint64_t npaths = tf_cur_uvar(d->c), implied = 0;
  if (d->c->bad) return bad(d, "truncated time statistics");
  if (d->version >= 5) { /* bit 0: the event's per-rank means are its one group's */
    implied = npaths & 1;
    npaths >>= 1;
    if (implied && npaths != 1) return bad(d, "time statistics: per-rank means implied by more than one path");
  }
  if (mode == TF_TIMING_NONE && npaths) return bad(d, "time statistics: paths in timing mode none");
  if ((mode == TF_TIMING_STATS || mode == TF_TIMING_HISTOGRAM) && npaths != 1)
    return bad(d, "time statistics: not exactly one path");
  if (npaths > (uint64_t)(d->c->end - d->c->p) / (d->version >= 5 ? GPATH_BYTES_MIN_V5 : GPATH_BYTES_MIN))
    return bad(d, "truncated time statistics");
  if (!npaths) return mode != TF_TIMING_NONE && occ > 0 ? bad(d, "time statistics: path counts do not sum to the occurrences") : 0;
  if (!(g->paths = calloc(npaths, sizeof *g->paths))) return bad(d, "out of memory");
  m->bytes += npaths * sizeof *g->paths;
  g->npaths = (uint32_t)npaths;
  __int128 total = 0;
  uint64_t smin[2] = {UINT64_MAX, UINT64_MAX}, smax[2] = {0, 0};
  uint64_t *keys = malloc(npaths * sizeof *keys);
  if (!keys) return bad(d, "out of memory");
  int rc = 0;
  for (uint32_t i = 0; i < g->npaths && !rc; i++) {
    tf_gpath *p = &g->paths[i];
    uint64_t fn = tf_cur_uvar(d->c), site = TF_PREV_NONE;
    if (fn) {
      if (mode != TF_TIMING_PATH) rc = bad(d, "time statistics: a previous call outside path mode");
      else if (fn - 1 >= d->t->ft.n) rc = bad(d, "time statistics: previous function out of range");
      site = tf_cur_uvar(d->c);
      if (!rc && site >= d->t->ncallsites) rc = bad(d, "time statistics: previous call site out of range");
    }
    uint64_t h = tf_cur_uvar(d->c);
    if (!rc && d->c->bad) rc = bad(d, "truncated time statistics");
    if (rc) break;
    p->prev_fn = fn ? (uint32_t)(fn - 1) : TF_PREV_NONE;
    p->prev_site = (uint32_t)site;
    keys[i] = (uint64_t)p->prev_fn << 32 | p->prev_site;
    uint64_t ng = h >> 1;
    if (ng < 1 || ((h & 1) && ng != 1) || ng > (uint64_t)(d->c->end - d->c->p) / 3) { /* a group takes 3 bytes at least: a count and two summaries */
      rc = bad(d, "time statistics: bad number of rank groups");
      break;
    }
    if (!(p->g = calloc(ng, sizeof *p->g))) {
      rc = bad(d, "out of memory");
      break;
    }
    m->bytes += ng * sizeof *p->g;
    p->cap = (uint32_t)ng;
    for (uint32_t x = 0; x < ng && !rc; x++) {
      tf_tgroup *gr = &p->g[x];
      p->n = x + 1;
      gr->t.prev_fn = p->prev_fn;
      gr->t.prev_site = p->prev_site;
      if ((h & 1) ? tf_vseq_copy(&gr->ranks, node_ranks, m) : get_ranks(d, &gr->ranks)) {
        rc = d->why ? -1 : bad(d, "out of memory");
        break;
      }
      uint64_t n = tf_cur_uvar(d->c);
      const char *why = NULL;
      int one = gr->ranks.nvalues == 1; /* one rank: its rank fields are implied */
      if (d->c->bad) rc = bad(d, "truncated time statistics");
      else if (!n) rc = bad(d, "time statistics: a path without samples");
      else if (d->version >= 5 ? tf_dstat_decode_compact(d->c, &gr->t.compute, n, mode, k, !one, d->t->nranks, m, &why) ||
                                     tf_dstat_decode_compact(d->c, &gr->t.duration, n, mode, k, !one, d->t->nranks, m, &why)
                               : tf_dstat_decode(d->c, &gr->t.compute, n, mode, k, !one, d->t->nranks, m, &why) ||
                                     tf_dstat_decode(d->c, &gr->t.duration, n, mode, k, !one, d->t->nranks, m, &why))
        rc = bad(d, why);
      if (rc) break;
      if (one) {
        int32_t r = (int32_t)tf_ranks_first(&gr->ranks);
        tf_dstat *ds[2] = {&gr->t.compute, &gr->t.duration};
        for (int j = 0; j < 2; j++) {
          ds[j]->min_rank = ds[j]->max_rank = ds[j]->rmean_lo_rank = ds[j]->rmean_hi_rank = r;
          ds[j]->rmean_lo = ds[j]->rmean_hi = tf_dstat_mean(ds[j]);
        }
      }
      total += n;
      const tf_dstat *ds[2] = {&gr->t.compute, &gr->t.duration};
      for (int j = 0; j < 2; j++) {
        if (ds[j]->min < smin[j]) smin[j] = ds[j]->min;
        if (ds[j]->max > smax[j]) smax[j] = ds[j]->max;
      }
    }
  }
  if (!rc) { /* no two paths after the same call */
    qsort(keys, g->npaths, sizeof *keys, cmp_u64);
    for (uint32_t i = 1; i < g->npaths && !rc; i++)
      if (keys[i] == keys[i - 1]) rc = bad(d, "time statistics: two paths after the same call");
  }
  free(keys);
  if (!rc && occ >= 0 && total != occ) rc = bad(d, "time statistics: path counts do not sum to the occurrences");
  if (!rc && implied) { /* taken from the one group, as the writer checked */
    const tf_tgroup *gr = &g->paths[0].g[0];
    if (g->paths[0].n != 1) return bad(d, "time statistics: per-rank means implied by more than one group");
    for (int j = 0; j < 2; j++) {
      uint64_t lo, hi;
      int32_t lr, hr;
      tf_dstat_rmeans_written(j ? &gr->t.duration : &gr->t.compute, -1, &lo, &hi, &lr, &hr);
      *(j ? &g->duration : &g->compute) = (tf_rankmeans){(double)lo, (double)hi, lr, hr};
    }
    return 0;
  }
  for (int j = 0; j < 2 && !rc; j++) { /* the event's per-rank means */
    uint64_t lo = tf_cur_uvar(d->c), range = tf_cur_uvar(d->c), lr = tf_cur_uvar(d->c), hr = tf_cur_uvar(d->c);
    if (d->version >= 5) { /* relative to the smallest sample */
      if (lo > UINT64_MAX - smin[j]) lo = UINT64_MAX; /* fails the check below */
      else lo += smin[j];
    }
    if (d->c->bad) rc = bad(d, "truncated time statistics");
    else if (range > UINT64_MAX - lo || lo + range > smax[j] || lo < smin[j])
      rc = bad(d, "time statistics: per-rank means outside the samples");
    else if (lr >= (uint64_t)d->t->nranks || hr >= (uint64_t)d->t->nranks)
      rc = bad(d, "time statistics: rank of a per-rank mean out of range");
    else
      *(j ? &g->duration : &g->compute) = (tf_rankmeans){(double)lo, (double)(lo + range), (int32_t)lr, (int32_t)hr};
  }
  return rc;
}

/* A flat run's node (after its flags): one rank of the parent's, the run checked. */
static int get_run(dec *d, tf_mnode **out, const tf_vseq *parent) {
  tf_mem *m = &d->t->mem;
  tf_vseq ranks;
  tf_vseq_init(&ranks);
  if (get_ranks(d, &ranks)) { /* a refused list may hold what it read */
    tf_vseq_free(&ranks, m);
    return -1;
  }
  int64_t rank = ranks.nvalues == 1 ? tf_ranks_first(&ranks) : -1;
  int one = rank >= 0 && tf_ranks_contains(parent, rank);
  tf_vseq_free(&ranks, m);
  if (!one) return bad(d, "a flat run not on exactly one present rank");
  tf_flatrun r;
  const char *why = NULL;
  if (tf_flatrun_read(d->c, d->t->ft.n, d->t->ncallsites, 0, &r, m, &why)) {
    tf_flatrun_clear(&r, m);
    return bad(d, why);
  }
  if (!(*out = tf_mnode_from_run(&r, rank, m))) {
    tf_flatrun_clear(&r, m);
    return bad(d, "out of memory");
  }
  return 0;
}

static int get_node(dec *d, tf_mnode **out, const tf_vseq *parent, uint32_t depth) {
  tf_mem *m = &d->t->mem;
  uint8_t flags = tf_cur_u8(d->c);
  if (d->c->bad) return bad(d, "truncated node");
  if (flags & NF_FLAT) {
    if (flags != (NF_FLAT | NF_RANKS) || !d->top || d->version < 6) return bad(d, "a flat run out of place");
    return get_run(d, out, parent);
  }
  if (flags & ~(NF_LOOP | NF_RANKS | NF_CST)) return bad(d, "unknown node flags");
  d->top = 0;
  if ((flags & NF_CST) && !(flags & NF_LOOP)) return bad(d, "a CST node id on an event");
  tf_mnode *x = *out = calloc(1, sizeof *x);
  if (!x) return bad(d, "out of memory");
  m->bytes += sizeof *x;
  x->is_loop = flags & NF_LOOP;
  if ((flags & NF_RANKS) ? get_ranks(d, &x->ranks) : tf_vseq_copy(&x->ranks, parent, m)) return bad(d, "out of memory");
  if (flags & NF_CST) {
    uint64_t id = tf_cur_uvar(d->c);
    if (d->c->bad) return bad(d, "truncated loop");
    if (id >= UINT32_MAX) return bad(d, "CST node id out of range");
    x->cst = (uint32_t)id + 1;
  }
  if (x->is_loop) {
    if (depth >= MAXDEPTH) return bad(d, "loops nested too deep");
    if (get_vset(d, &x->count, &x->ranks, 1, 1, INT64_MAX, 0)) return -1;
    if (get_nodes(d, &x->body, &x->nbody, &x->ranks, depth + 1, 0)) return -1;
    tf_mnode_rekey(x);
    return 0;
  }
  uint64_t fn = tf_cur_uvar(d->c), thread = tf_cur_uvar(d->c), site = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated event");
  if (fn >= d->t->ft.n) return bad(d, "unknown function index");
  if (site >= d->t->ncallsites) return bad(d, "undeclared call site");
  if (thread > UINT32_MAX) return bad(d, "bad thread index");
  x->fn = (uint32_t)fn;
  x->thread = (uint32_t)thread;
  x->site = (uint32_t)site;
  x->site_sig = d->t->callsites[site].sig;
  x->key = tf_mnode_event_key(x->fn, x->thread, x->site_sig);
  if (get_vset(d, &x->count, &x->ranks, 1, 0, INT32_MAX, 0)) return -1;
  uint64_t nslots = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated event");
  if (nslots > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad slot count");
  x->slots = calloc(nslots ? nslots : 1, sizeof *x->slots);
  if (!x->slots) return bad(d, "out of memory");
  m->bytes += nslots * sizeof *x->slots;
  x->nslots = (uint32_t)nslots;
  for (uint32_t j = 0; j < x->nslots; j++)
    if (get_vset(d, &x->slots[j], &x->ranks, 0, 0, 0, 1)) return -1;
  if (d->version >= 3) return get_gtiming(d, &x->timing, &x->ranks, occurrences(&x->count));
  /* version 2: one summary per path over all the event's ranks */
  const char *why = NULL;
  tf_timing pooled;
  if (tf_timing_decode(d->c, &pooled, (tf_timing_mode)d->t->timing, d->t->bins, occurrences(&x->count), 1,
                       d->t->ft.n, d->t->ncallsites, d->t->nranks, m, &why))
    return bad(d, why);
  return tf_gtiming_from_pooled(&x->timing, &pooled, &x->ranks, m) ? bad(d, "out of memory") : 0;
}

static int get_nodes(dec *d, tf_mnode ***out, uint32_t *nout, const tf_vseq *parent, uint32_t depth, int top) {
  uint64_t n = tf_cur_uvar(d->c);
  if (d->c->bad) return bad(d, "truncated node list");
  if ((!top && n < 1) || n > (uint64_t)(d->c->end - d->c->p)) return bad(d, "bad node count");
  tf_mnode **nodes = calloc(n ? n : 1, sizeof *nodes);
  *out = nodes;
  if (!nodes) return bad(d, "out of memory");
  d->t->mem.bytes += n * sizeof *nodes;
  *nout = (uint32_t)n;
  for (uint32_t i = 0; i < n; i++) {
    d->top = top;
    if (get_node(d, &nodes[i], parent, depth)) return -1;
  }
  return 0;
}

static char *get_str(tf_cursor *c) {
  uint64_t n = tf_cur_uvar(c);
  const uint8_t *p = c->bad ? NULL : tf_cur_bytes(c, (size_t)n);
  if (!p) return NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  memcpy(s, p, (size_t)n);
  s[n] = 0;
  return s;
}

/* Parse one section's content (raw bytes). 0, -1 malformed (d->why), -2 out of memory. */
static int parse_section(dec *d, uint8_t id) {
  tf_mtrace *t = d->t;
  tf_cursor *c = d->c;
  switch (id) {
  case SEC_INFO: {
    uint64_t nranks = tf_cur_uvar(c);
    int64_t level = tf_cur_svar(c);
    t->start_unix_ns = tf_cur_uvar(c);
    t->exe = get_str(c);
    t->mpi = get_str(c);
    uint64_t partial = tf_cur_uvar(c);
    t->merge_ns = tf_cur_uvar(c);
    uint64_t timing = tf_cur_uvar(c), bins = tf_cur_uvar(c), unit = tf_cur_uvar(c);
    if (d->version >= 3) {
      t->run_id = tf_cur_u64(c);
      t->run_start_unix_ns = tf_cur_uvar(c);
    }
    if (c->bad || !t->exe || !t->mpi) return bad(d, "truncated");
    if (timing > TF_TIMING_PATH || bins > TF_BINS_MAX || unit > TF_UNIT_CPU_NS ||
        (bins == 0 && (timing == TF_TIMING_HISTOGRAM || timing == TF_TIMING_PATH)))
      return bad(d, "bad timing settings");
    t->timing = (uint32_t)timing;
    t->bins = (uint32_t)bins;
    t->unit = (uint32_t)unit;
    if (nranks < 1 || nranks > INT32_MAX) return bad(d, "bad number of ranks");
    if (level < INT32_MIN || level > INT32_MAX || partial > 255) return bad(d, "bad field");
    t->nranks = (int32_t)nranks;
    t->thread_level = (int32_t)level;
    t->partial = (uint32_t)partial;
    return 0;
  }
  case SEC_FUNCS: {
    int rc = tf_functable_decode(c, &t->ft);
    return rc == -2 ? -2 : rc ? bad(d, "bad function table") : 0;
  }
  case SEC_CALLSITES: {
    uint64_t n = tf_cur_uvar(c);
    if (c->bad || n > (uint64_t)(c->end - c->p)) return bad(d, "bad call-site count");
    for (uint64_t i = 0; i < n; i++) {
      tf_callsite cs = {0};
      char *mod;
      if (d->version >= 6) { /* module, offset, then the signature if it is not the usual one */
        mod = get_str(c);
        cs.offset = tf_cur_uvar(c);
        uint8_t written = tf_cur_u8(c);
        if (written > 1) {
          free(mod);
          return bad(d, "bad call-site signature flag");
        }
        cs.sig = written ? tf_cur_u64(c) : mod ? tf_callsite_sig(mod, cs.offset) : 0;
      } else {
        cs.sig = tf_cur_u64(c);
        mod = get_str(c);
        cs.offset = tf_cur_uvar(c);
      }
      cs.module = mod;
      int rc = c->bad || !mod ? -1 : tf_mtrace_add_callsite(t, &cs);
      free(mod);
      if (rc) return bad(d, "bad call site");
    }
    return 0;
  }
  case SEC_RANKS: {
    tf_vfacts f, g, w;
    if (get_ranks(d, &t->present) || get_vseq(d, &t->nevents, &f) || get_vseq(d, &t->lost, &g)) return -1;
    if (f.count != (__int128)t->present.nvalues || g.count != (__int128)t->present.nvalues || f.min < 0 || g.min < 0)
      return bad(d, "per-rank counts do not match the ranks");
    if (d->version < 3) { /* every rank's part is as partial as the trace */
      tf_vseq_push_run(&t->why, t->partial, 0, t->present.nvalues, &t->mem);
      return t->mem.failed ? bad(d, "out of memory") : 0;
    }
    if (get_vseq(d, &t->why, &w)) return -1;
    if (w.count != (__int128)t->present.nvalues || w.min < 0 || w.max > 255)
      return bad(d, "per-rank partial reasons do not match the ranks");
    return 0;
  }
  case SEC_NODES:
    if (get_nodes(d, &t->top, &t->ntop, &t->present, 0, 1)) return -1;
    for (int k = 0; d->version >= 3 && k < 3; k++) /* checked per rank when projected (3.7) */
      if (get_vset(d, &t->order[k], &t->present, 0, 0, 0, 0)) return -1;
    return 0;
  case SEC_EXTRAP:
    free(t->extrap);
    if (!(t->extrap = get_str(c))) return bad(d, "truncated");
    return 0;
  }
  return 0; /* other optional sections are skipped */
}

tf_status tf_mtrace_decode(const uint8_t *data, size_t len, const char *name, tf_mtrace *t, char *err,
                           size_t errlen) {
  tf_status st = tf_mtrace_decode_runs(data, len, name, t, err, errlen);
  const char *why = NULL;
  if (st == TF_OK && tf_mtrace_expand_runs(t, &why)) {
    st = tf_failf(err, errlen, strcmp(why, "out of memory") ? TF_ERR_FORMAT : TF_ERR_NOMEM,
                  "%s: malformed section NODES: %s", name, why);
    tf_mtrace_free(t);
  }
  return st;
}

tf_status tf_mtrace_decode_runs(const uint8_t *data, size_t len, const char *name, tf_mtrace *t, char *err,
                                size_t errlen) {
  *t = (tf_mtrace){0};
  tf_container box;
  tf_status st = tf_container_read(data, len, name, &box, err, errlen);
  if (st != TF_OK) return st;
  const char *where = box.version >= 6 ? " of the body" : "";
  int next = SEC_INFO;
  for (uint32_t i = 0; i < box.n && st == TF_OK; i++) {
    const tf_section *sec = &box.sec[i];
    const char *sname = sec->id <= SEC_NODES ? section_name[sec->id] : "optional";
    if (sec->id < SEC_OPTIONAL) {
      if (sec->id != next) {
        st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: unexpected section %u at byte %zu%s (expected %s)", name, sec->id,
                      sec->at, where, section_name[next < SEC_NODES + 1 ? next : 0]);
        break;
      }
      next++;
    } else if (sec->id != SEC_EXTRAP) {
      continue; /* optional sections this reader does not know */
    }
    tf_cursor sc = {sec->data, sec->data + sec->len, 0};
    dec d = {.c = &sc, .t = t, .version = box.version};
    int rc = parse_section(&d, sec->id);
    if (!rc && sc.p != sc.end) rc = bad(&d, "trailing bytes");
    if (rc == -2 || (rc && d.why && strcmp(d.why, "out of memory") == 0))
      st = tf_failf(err, errlen, TF_ERR_NOMEM, "%s: out of memory", name);
    else if (rc)
      st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: malformed section %s: %s (at byte %zu of the section)", name, sname,
                    d.why ? d.why : "?", (size_t)(sc.p - sec->data));
  }
  if (st == TF_OK && next != SEC_NODES + 1)
    st = tf_failf(err, errlen, TF_ERR_FORMAT, "%s: section %s missing", name, section_name[next]);
  tf_container_free(&box);
  if (st != TF_OK) tf_mtrace_free(t);
  return st;
}

/* ------------------------------------------------------------ the run, from INFO alone */

tf_status tf_mtrace_peek_run(const uint8_t *data, size_t len, tf_run_peek *out) {
  *out = (tf_run_peek){.rank = -1, .merged = 1};
  enum { INFO_MAX = 65536 };
  uint8_t *buf = malloc(INFO_MAX);
  if (!buf) return TF_ERR_NOMEM;
  uint32_t version;
  tf_section info;
  tf_status st = tf_container_first_section(data, len, buf, INFO_MAX, &version, &info);
  if (st == TF_OK && info.id != SEC_INFO) st = TF_ERR_FORMAT;
  if (st != TF_OK) {
    free(buf);
    return st;
  }
  tf_cursor s = {info.data, info.data + info.len, 0};
  tf_cur_uvar(&s); /* nranks */
  tf_cur_svar(&s); /* thread level */
  out->start_unix_ns = tf_cur_uvar(&s);
  uint64_t n = tf_cur_uvar(&s);
  const uint8_t *exe = s.bad ? NULL : tf_cur_bytes(&s, n > SIZE_MAX ? SIZE_MAX : (size_t)n);
  if (exe)
    snprintf(out->exe, sizeof out->exe, "%.*s", n < sizeof out->exe ? (int)n : (int)sizeof out->exe - 1,
             (const char *)exe);
  n = tf_cur_uvar(&s);
  tf_cur_bytes(&s, n > SIZE_MAX ? SIZE_MAX : (size_t)n); /* mpi */
  for (int k = 0; k < 5; k++) tf_cur_uvar(&s); /* partial, merge_ns, timing, bins, unit */
  if (version >= 3) {
    out->run_id = tf_cur_u64(&s);
    out->run_start_unix_ns = tf_cur_uvar(&s);
  }
  free(buf);
  return s.bad ? TF_ERR_TRUNCATED : TF_OK;
}
