/* cst_guide.c — CST-guided folding: loops built from the program's loop
 * markers instead of found by pattern search; see cst_guide.h.
 *
 * Per open loop (a frame): `cur`, the nodes of the iteration in progress
 * (events, and the runs of the inner loops that have ended); `out`, the
 * runs of this occurrence of the loop so far (loop nodes, in order); `tail`,
 * the iterations ended since the last run that are not in a run yet. At the
 * end of an iteration:
 *   - empty (no MPI call in it): nothing; the loop's counts are those of
 *     the iterations that made calls;
 *   - the next iteration of the last run's body (which holds `period`
 *     iterations, 1 unless a branch alternates): waits in tail until the
 *     period is complete, then is absorbed into it (the values of every
 *     node appended, as folder.c's extension does), count + 1;
 *   - else, when tail holds 2 GUIDE_PERIOD iterations, the period p <=
 *     GUIDE_PERIOD whose repetitions cover most of its start becomes a run
 *     (its repetitions absorbed), or, none, the oldest iteration a run of
 *     count 1 (an iteration that would nest loops too deep stays unrolled).
 * At the loop's end its tail is folded the same way, and its runs move
 * into the enclosing frame's `cur`, or to the folder's top level, which
 * does not fold when guided: a source loop is never a repeat of other nodes. A loop with a run of count 1 stays a loop
 * (x1), so that an outer iteration whose inner loop ran once has the same
 * shape as one where it ran more often.
 *
 * Held iterations (the common case, as folder.c's fast path): while the
 * innermost loop's last run has a period of one iteration of events only,
 * with nothing in tail or cur, the events of its next iteration are only
 * compared with the run's body and their values held (tf_folder_hold, in
 * the folder's held arrays, f->fast the run); at the iteration's end they
 * extend the run directly, and the next iteration is held again. Anything
 * else (an event that does not match, an iteration cut short, any other
 * marker, a snapshot) first makes them the nodes they would have been
 * (unhold), so the result is the slow path's, node for node.
 *
 * A branch's arm is a frame of its own (keyed by the branch's id, its runs
 * keeping the arm's id): opened by the arm's marker, closed by the
 * branch's end, so it has one iteration and becomes a node of count 1
 * around the calls the arm made, and an iteration of the loop around it
 * compares which arms it took.
 *
 * Like the markers, nothing is assumed about their order: an enter of a
 * loop already open (its function left it by return and runs it again),
 * or an arm of a branch already open (a fall-through), first closes it and
 * every frame inside; an iteration or exit of a loop, or an end of a
 * branch, below the innermost one closes the ones above; an iteration of a
 * loop not open opens it; an exit or end of one not open is ignored. Every event is
 * put exactly once, in order, so unrolling gives the stream whatever the
 * markers were.
 */
#include "fold/cst_guide.h"

#include <stdlib.h>
#include <string.h>

#include "fold/folder.h"
#include "util/hash.h"

typedef struct node_list {
  tf_fnode **v;
  uint32_t n, cap;
} node_list;

#define GUIDE_PERIOD 8 /* runs whose body is up to this many iterations (branches, patterns such as 4 x A, B) */

typedef struct guide_frame {
  uint32_t loop;  /* CST id of the loop, or of the branch whose arm this is (what the markers name) */
  uint32_t node;  /* CST id its runs keep: the loop's, or the arm's */
  node_list cur;  /* the iteration in progress */
  node_list out;  /* this occurrence's runs so far, in order */
  node_list tail; /* the iterations ended since the last run, not yet in one (their nodes in order) */
  uint32_t tbeg[2 * GUIDE_PERIOD + 1]; /* iteration k of tail: tail.v[tbeg[k] .. tbeg[k + 1]) */
  uint32_t ntail;
  tf_fnode *last_run; /* the last node of out while the iterations in tail may still extend it, else NULL */
  uint32_t period;    /* its body: `period` iterations, the k-th at body[pbeg[k] .. pbeg[k + 1]) */
  uint32_t pbeg[GUIDE_PERIOD + 1];
} guide_frame;

struct tf_cst_guide {
  guide_frame *frames; /* [0]: outermost open loop */
  uint32_t n, cap;
};

#define GUIDE_MAXFRAMES TF_FOLD_MAXDEPTH /* deeper enters are ignored (their events go to the innermost frame) */

static int list_add(tf_folder *f, node_list *l, tf_fnode *x) {
  if (l->n == l->cap) {
    uint32_t cap = l->cap ? 2 * l->cap : 16;
    tf_fnode **v = realloc(l->v, cap * sizeof *v);
    if (!v) {
      f->mem.failed = 1;
      tf_fnode_free(x, &f->mem);
      return -1;
    }
    f->mem.bytes += (cap - l->cap) * sizeof *v;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = x;
  return 0;
}

static void list_free(tf_folder *f, node_list *l) {
  for (uint32_t i = 0; i < l->n; i++) tf_fnode_free(l->v[i], &f->mem);
  free(l->v);
  f->mem.bytes -= l->cap * sizeof *l->v;
  *l = (node_list){0};
}

static struct tf_cst_guide *guide_of(tf_folder *f) {
  if (f->guide) return f->guide;
  f->guide = calloc(1, sizeof *f->guide);
  if (!f->guide) f->mem.failed = 1;
  else f->mem.bytes += sizeof *f->guide;
  return f->guide;
}

/* Where a finished node goes: the innermost open iteration, or the top level. */
static int put(tf_folder *f, tf_fnode *x) {
  struct tf_cst_guide *g = f->guide;
  if (g && g->n) return list_add(f, &g->frames[g->n - 1].cur, x);
  return tf_folder_append(f, x);
}

/* A run of count 1 (or, nested too deep, the nodes themselves) at the end of out. */
static int add_run(tf_folder *f, guide_frame *fr, tf_fnode **nodes, uint32_t n, tf_fnode **run) {
  tf_fnode *l = tf_folder_new_loop(f, nodes, n);
  *run = l;
  if (l) {
    l->cst = fr->node + 1; /* the trace keeps which source loop or arm this is (the merge aligns by it) */
    l->shape = tf_mix(l->shape, l->cst);
    return list_add(f, &fr->out, l);
  }
  if (f->mem.failed) return -1;
  for (uint32_t i = 0; i < n; i++)
    if (list_add(f, &fr->out, nodes[i])) return -1;
  return 0;
}

static uint32_t tail_len(const guide_frame *fr, uint32_t k) { return fr->tbeg[k + 1] - fr->tbeg[k]; }

/* Iterations tail[a..a+n) and tail[b..b+n) have the same shapes. */
static int same_iterations(const guide_frame *fr, uint32_t a, uint32_t b, uint32_t n) {
  for (uint32_t k = 0; k < n; k++)
    if (tail_len(fr, a + k) != tail_len(fr, b + k) ||
        !tf_fnode_same_list(fr->tail.v + fr->tbeg[a + k], fr->tail.v + fr->tbeg[b + k], tail_len(fr, a + k)))
      return 0;
  return 1;
}

/* Drop the first k iterations of tail (their nodes have been moved). */
static void tail_drop(guide_frame *fr, uint32_t k) {
  uint32_t skip = fr->tbeg[k];
  if (fr->tail.n > skip) memmove(fr->tail.v, fr->tail.v + skip, (fr->tail.n - skip) * sizeof *fr->tail.v);
  fr->tail.n -= skip;
  for (uint32_t j = 0; j + k <= fr->ntail; j++) fr->tbeg[j] = fr->tbeg[j + k] - skip;
  fr->ntail -= k;
}

/* The first k iterations of tail become runs of count 1. */
static int tail_flush(tf_folder *f, guide_frame *fr, uint32_t k) {
  tf_fnode *run;
  fr->last_run = NULL;
  for (uint32_t j = 0; j < k; j++)
    if (add_run(f, fr, fr->tail.v + fr->tbeg[j], tail_len(fr, j), &run)) return -1;
  tail_drop(fr, k);
  return 0;
}

/* How many iterations from the start of tail repeat with period p: the
 * first p, then every one equal in shape to the one p before. */
static uint32_t periodic_prefix(const guide_frame *fr, uint32_t p) {
  uint32_t i = p;
  while (i < fr->ntail && same_iterations(fr, i - p, i, 1)) i++;
  return i;
}

/* Fold the start of tail: the period p <= GUIDE_PERIOD whose whole
 * repetitions (at least 2) cover the most iterations from the start (the
 * smallest on a tie) becomes a run; its repetitions are absorbed. When the
 * repetition reaches the end of tail, the run stays open (last_run) with
 * the rest of a period waiting in tail. No period: the oldest iteration
 * becomes a run of count 1. */
static int fold_tail(tf_folder *f, guide_frame *fr) {
  uint32_t n = fr->ntail, best = 0, best_cover = 0, best_reach = 0;
  for (uint32_t p = 1; p <= GUIDE_PERIOD && 2 * p <= n; p++) {
    uint32_t reach = periodic_prefix(fr, p), cover = reach / p * p;
    if (cover >= 2 * p && cover > best_cover) best = p, best_cover = cover, best_reach = reach;
  }
  if (!best) return tail_flush(f, fr, 1);
  tf_fnode *r;
  if (add_run(f, fr, fr->tail.v, fr->tbeg[best], &r)) return -1;
  if (!r) { /* nested too deep: every copy stays unrolled */
    if (f->mem.failed) return -1;
    tail_drop(fr, best);
    return tail_flush(f, fr, best_cover - best);
  }
  for (uint32_t j = best; j < best_cover; j += best)
    tf_folder_absorb_list(f, r->body, fr->tail.v + fr->tbeg[j], r->nbody);
  tf_vseq_set_single(&r->iters, best_cover / best);
  memcpy(fr->pbeg, fr->tbeg, (best + 1) * sizeof *fr->pbeg);
  fr->period = best;
  fr->last_run = best_reach == n ? r : NULL;
  tail_drop(fr, best_cover);
  return f->mem.failed ? -1 : 0;
}

/* The iteration in cur has ended: into tail, then
 *   1. the next iteration of the last run's period? when the period is
 *      complete, it is absorbed: count + 1;
 *   2. else, when tail holds 2 GUIDE_PERIOD iterations, its start is
 *      folded (fold_tail): the period is chosen over that many iterations,
 *      so that a pattern such as 4 x A then B is one period of 5, not runs
 *      of A broken by B. */
static int end_iteration(tf_folder *f, guide_frame *fr) {
  if (!fr->cur.n) return 0;
  if (!fr->ntail) fr->tbeg[0] = 0;
  for (uint32_t i = 0; i < fr->cur.n; i++)
    if (list_add(f, &fr->tail, fr->cur.v[i])) return -1;
  fr->cur.n = 0;
  fr->tbeg[++fr->ntail] = fr->tail.n;
  uint32_t n = fr->ntail;
  tf_fnode *r = fr->last_run;
  if (r) {
    uint32_t k = n - 1, len = fr->pbeg[k + 1] - fr->pbeg[k];
    if (tail_len(fr, k) == len && tf_fnode_same_list(r->body + fr->pbeg[k], fr->tail.v + fr->tbeg[k], len)) {
      if (n < fr->period) return 0;
      tf_folder_absorb_list(f, r->body, fr->tail.v, r->nbody);
      tf_vseq_set_single(&r->iters, tf_vseq_single(&r->iters) + 1);
      fr->tail.n = fr->ntail = 0;
      return f->mem.failed ? -1 : 0;
    }
    fr->last_run = NULL;
  }
  return n >= 2 * GUIDE_PERIOD ? fold_tail(f, fr) : 0;
}

/* ------------------------------------------------------ held iterations */

/* The held events become the nodes of the innermost iteration (cur) they
 * would have been; nothing held. 0, or -1 out of memory. */
static int unhold(tf_folder *f) {
  if (!f->fast) return 0;
  guide_frame *fr = &f->guide->frames[f->guide->n - 1];
  const int64_t *v = f->held_vals;
  int rc = 0;
  f->fast = NULL;
  for (uint32_t i = 0; i < f->nheld && !rc; i++) {
    const tf_held *h = &f->held[i];
    tf_fnode *x = tf_folder_new_occurrence(f, h->fn, h->thread, h->site, h->compute, h->duration, h->prev_fn,
                                           h->prev_site, h->nvals, v);
    rc = x ? list_add(f, &fr->cur, x) : -1;
    v += h->nvals;
  }
  f->nheld = f->nheld_vals = 0;
  return rc;
}

/* The run the innermost iteration fr, about to start, can be held against:
 * nothing in cur or tail, a last run of period 1 whose body is events. */
static tf_fnode *holdable(tf_folder *f, const guide_frame *fr) {
  tf_fnode *r = fr->last_run;
  if (f->no_fast || !r || fr->cur.n || fr->ntail || fr->period != 1 || r->nbody > TF_FOLD_FAST_BODY) return NULL;
  for (uint32_t i = 0; i < r->nbody; i++)
    if (r->body[i]->is_loop) return NULL;
  return tf_folder_hold_room(f, r->nbody) ? NULL : r;
}

int tf_cst_guide_unhold(tf_folder *f) { return f->guided && f->guide && f->guide->n ? unhold(f) : 0; }

/* The loop occurrence ends: fold what waits in tail. */
static int fold_all(tf_folder *f, guide_frame *fr) {
  while (fr->ntail)
    if (fold_tail(f, fr)) return -1;
  fr->last_run = NULL;
  return 0;
}

/* Close the innermost frame: its runs go to the enclosing iteration. */
static int close_top(tf_folder *f) {
  struct tf_cst_guide *g = f->guide;
  guide_frame *fr = &g->frames[g->n - 1];
  int rc = end_iteration(f, fr);
  if (!rc) rc = fold_all(f, fr);
  g->n--; /* put() now sees the enclosing frame; fr's lists stay for reuse */
  for (uint32_t i = 0; i < fr->out.n && !rc; i++) {
    rc = put(f, fr->out.v[i]);
    fr->out.v[i] = NULL;
  }
  fr->out.n = 0;
  fr->last_run = NULL;
  return rc;
}

/* Close frames until only `keep` remain. */
static int close_to(tf_folder *f, uint32_t keep) {
  while (f->guide->n > keep)
    if (close_top(f)) return -1;
  return 0;
}

static int open_frame(tf_folder *f, uint32_t loop, uint32_t node) {
  struct tf_cst_guide *g = f->guide;
  if (g->n == GUIDE_MAXFRAMES) return 0;
  if (g->n == g->cap) {
    uint32_t cap = g->cap ? 2 * g->cap : 8;
    guide_frame *v = realloc(g->frames, cap * sizeof *v);
    if (!v) {
      f->mem.failed = 1;
      return -1;
    }
    f->mem.bytes += (cap - g->cap) * sizeof *v;
    memset(v + g->cap, 0, (cap - g->cap) * sizeof *v);
    g->frames = v;
    g->cap = cap;
  }
  g->frames[g->n].loop = loop;
  g->frames[g->n++].node = node;
  return 0;
}

/* Position of the innermost open frame of `loop`, or -1. */
static int64_t find(const struct tf_cst_guide *g, uint32_t loop) {
  for (uint32_t k = g->n; k-- > 0;)
    if (g->frames[k].loop == loop) return k;
  return -1;
}

int tf_cst_guide_marker(tf_folder *f, tf_cst_marker marker) {
  if (f->mem.failed) return -1;
  if (!f->guided) { /* events held by the dynamic folder's fast path go first */
    if (tf_folder_flush(f)) return -1;
    f->guided = 1;
  }
  struct tf_cst_guide *g = guide_of(f);
  if (!g) return -1;
  uint32_t loop = tf_cst_id_of(marker);
  int64_t k = find(g, loop);
  if (f->fast) { /* an iteration held: the end of the innermost one extends the run, anything else unholds */
    if (tf_cst_kind_of(marker) == TF_CST_ITER && k == (int64_t)g->n - 1 &&
        (f->nheld == f->fast->nbody || !f->nheld)) {
      if (f->nheld) tf_folder_commit(f);
      return f->mem.failed ? -1 : 0;
    }
    if (unhold(f)) return -1;
  }
  switch (tf_cst_kind_of(marker)) {
    case TF_CST_ENTER:
    case TF_CST_ARM: /* a loop starts again, or a branch takes an arm again (a switch's fall-through) */
      if (k >= 0 && close_to(f, (uint32_t)k)) return -1;
      return open_frame(f, loop, tf_cst_kind_of(marker) == TF_CST_ARM ? tf_cst_arm_of(marker) : loop);
    case TF_CST_ITER:
      if (k < 0) {
        if (open_frame(f, loop, loop)) return -1;
        k = find(g, loop);
        if (k < 0) return 0; /* nested too deep */
      }
      if (close_to(f, (uint32_t)k + 1)) return -1;
      return end_iteration(f, &g->frames[k]);
    case TF_CST_EXIT:
    case TF_CST_END:
      return k >= 0 ? close_to(f, (uint32_t)k) : 0;
  }
  return 0;
}

int tf_cst_guide_event(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                       uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                       const int64_t *vals) {
  struct tf_cst_guide *g = f->guide;
  if (g && g->n) {
    if (!f->fast && !g->frames[g->n - 1].cur.n) f->fast = holdable(f, &g->frames[g->n - 1]);
    if (f->fast) {
      const tf_fnode *b = f->nheld < f->fast->nbody ? f->fast->body[f->nheld] : NULL;
      if (b && b->fn == fn && b->thread == thread && b->site == site) {
        f->nfast++;
        return tf_folder_hold(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
      }
      if (unhold(f)) return -1;
    }
  }
  tf_fnode *x = tf_folder_new_occurrence(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
  if (!x) return -1;
  return put(f, x);
}

int tf_cst_guide_close_all(tf_folder *f) {
  if (!f->guide) return 0;
  return tf_cst_guide_unhold(f) || close_to(f, 0) ? -1 : 0;
}

static uint32_t copy_list(const node_list *l, tf_fnode **dst, uint32_t at) {
  if (dst && l->n) memcpy(dst + at, l->v, l->n * sizeof *l->v);
  return at + l->n;
}

uint32_t tf_cst_guide_pending(const tf_folder *f, tf_fnode **dst) {
  const struct tf_cst_guide *g = f->guide;
  uint32_t n = 0;
  for (uint32_t k = 0; g && k < g->n; k++) {
    n = copy_list(&g->frames[k].out, dst, n);
    n = copy_list(&g->frames[k].tail, dst, n);
    n = copy_list(&g->frames[k].cur, dst, n);
  }
  return n;
}

void tf_cst_guide_free(tf_folder *f) {
  struct tf_cst_guide *g = f->guide;
  if (!g) return;
  f->fast = NULL; /* a held iteration's run is freed below */
  f->nheld = f->nheld_vals = 0;
  for (uint32_t k = 0; k < g->cap; k++) {
    list_free(f, &g->frames[k].cur);
    list_free(f, &g->frames[k].out);
    list_free(f, &g->frames[k].tail);
  }
  free(g->frames);
  f->mem.bytes -= g->cap * sizeof *g->frames + sizeof *g;
  free(g);
  f->guide = NULL;
}
