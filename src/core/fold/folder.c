/* folder.c — online loop folding of one rank's event stream; see folder.h. */
#include "fold/folder.h"

#include <stdlib.h>
#include <string.h>

#include "fold/cst_guide.h"
#include "util/hash.h"

#define HASH_B 0x100000001b3ull /* odd multiplier of the window hash (mod 2^64) */
enum { K_EVENT = 0x4556, K_LOOP = 0x4c4f };

/* ------------------------------------------------------------------ nodes */

tf_fnode *tf_fnode_new_event(uint32_t fn, uint32_t thread, uint32_t site, tf_mem *m) {
  tf_fnode *x = calloc(1, sizeof *x);
  if (!x) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += sizeof *x;
  x->fn = fn;
  x->thread = thread;
  x->site = site;
  x->shape = tf_mix(tf_mix(tf_mix(K_EVENT, fn), thread), site);
  return x;
}

tf_fnode *tf_fnode_new_loop(tf_mem *m) {
  tf_fnode *x = calloc(1, sizeof *x);
  if (!x) {
    m->failed = 1;
    return NULL;
  }
  m->bytes += sizeof *x;
  x->is_loop = 1;
  return x;
}

void tf_fnode_free(tf_fnode *x, tf_mem *m) {
  if (!x) return;
  if (x->run_owned) {
    tf_flatrun_clear(x->run, m);
    free(x->run);
    m->bytes -= sizeof *x->run;
  }
  if (x->is_loop) {
    for (uint32_t i = 0; i < x->nbody; i++) tf_fnode_free(x->body[i], m);
    free(x->body);
    m->bytes -= x->nbody * sizeof *x->body;
    tf_vseq_free(&x->iters, m);
  } else {
    tf_vseq_free(&x->nvals, m);
    for (uint32_t j = 0; j < x->nslots; j++) tf_vseq_free(&x->slots[j], m);
    free(x->slots);
    m->bytes -= x->nslots * sizeof *x->slots;
    tf_timing_free(&x->timing, m);
  }
  free(x);
  m->bytes -= sizeof *x;
}

uint64_t tf_fnode_events(const tf_fnode *x) {
  if (x->run) return x->run->nevents;
  if (!x->is_loop) return x->nvals.nvalues;
  uint64_t n = 0;
  for (uint32_t i = 0; i < x->nbody; i++) n += tf_fnode_events(x->body[i]);
  return n;
}

/* Move a fresh node's pending sample into its timing. */
static void settle(tf_folder *f, tf_fnode *x) {
  tf_tsample *s = &x->sample;
  if (!s->pending) return;
  s->pending = 0;
  tf_timing_add(&x->timing, f->timing, f->bins, s->prev_fn, s->prev_site, s->compute, s->duration, &f->mem);
}

/* Same structure (shapes, recursively); values do not matter. */
static int same_list(tf_fnode *const *a, tf_fnode *const *b, uint32_t n);
static int same_node(const tf_fnode *a, const tf_fnode *b) {
  if (a->shape != b->shape || a->is_loop != b->is_loop) return 0;
  if (!a->is_loop) return a->fn == b->fn && a->thread == b->thread && a->site == b->site;
  return a->cst == b->cst && a->nbody == b->nbody && same_list(a->body, b->body, a->nbody);
}
static int same_list(tf_fnode *const *a, tf_fnode *const *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!same_node(a[i], b[i])) return 0;
  return 1;
}

static int grow_slots(tf_fnode *x, uint32_t n, tf_mem *m) {
  if (n <= x->nslots) return 0;
  tf_vseq *ns = realloc(x->slots, n * sizeof *ns);
  if (!ns) {
    m->failed = 1;
    return -1;
  }
  m->bytes += (n - x->nslots) * sizeof *ns;
  for (uint32_t j = x->nslots; j < n; j++) tf_vseq_init(&ns[j]);
  x->slots = ns;
  x->nslots = n;
  return 0;
}

/* ------------------------------------------------- recycled event nodes */

static inline int fresh(const tf_vseq *s) { return s->n == 0 && s->tcount == 1; } /* one value, never folded */

/* Free an event node, or keep it for reuse when its pool bucket has room. */
static void recycle(tf_folder *f, tf_fnode *y) {
  tf_mem *m = &f->mem;
  uint32_t k = y->nslots;
  if (y->is_loop || k >= TF_FOLD_POOL_SLOTS || f->npool[k] >= TF_FOLD_POOL_DEPTH) {
    tf_fnode_free(y, m);
    return;
  }
  if (!fresh(&y->nvals)) tf_vseq_free(&y->nvals, m);
  for (uint32_t j = 0; j < k; j++)
    if (y->slots[j].items) tf_vseq_free(&y->slots[j], m);
  tf_timing_free(&y->timing, m);
  y->sample.pending = 0;
  y->body = (tf_fnode **)f->pool[k];
  f->pool[k] = y;
  f->npool[k]++;
  f->pool_bytes += sizeof *y + k * sizeof *y->slots;
}

/* A node for one occurrence of an event with nvals values. */
static tf_fnode *new_event(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint32_t nvals) {
  tf_fnode *x = NULL;
  if (nvals < TF_FOLD_POOL_SLOTS && f->pool[nvals]) {
    x = f->pool[nvals];
    f->pool[nvals] = (tf_fnode *)x->body;
    f->npool[nvals]--;
    f->pool_bytes -= sizeof *x + nvals * sizeof *x->slots;
    x->body = NULL;
    x->fn = fn;
    x->thread = thread;
    x->site = site;
    x->shape = tf_mix(tf_mix(tf_mix(K_EVENT, fn), thread), site);
    return x;
  }
  x = tf_fnode_new_event(fn, thread, site, &f->mem);
  if (x && grow_slots(x, nvals, &f->mem)) {
    tf_fnode_free(x, &f->mem);
    return NULL;
  }
  return x;
}

static void pool_free(tf_folder *f) {
  for (uint32_t k = 0; k < TF_FOLD_POOL_SLOTS; k++)
    while (f->pool[k]) {
      tf_fnode *x = f->pool[k];
      f->pool[k] = (tf_fnode *)x->body;
      x->body = NULL;
      tf_fnode_free(x, &f->mem);
    }
  memset(f->npool, 0, sizeof f->npool);
  f->pool_bytes = 0;
}

/* Merge the later occurrence(s) y into x (same structure): values and
 * counts are appended, y is freed. */
static void absorb_list(tf_folder *f, tf_fnode **x, tf_fnode **y, uint32_t n);
static void absorb(tf_folder *f, tf_fnode *x, tf_fnode *y) {
  tf_mem *m = &f->mem;
  if (x->is_loop) {
    tf_vseq_append(&x->iters, &y->iters, m);
    absorb_list(f, x->body, y->body, x->nbody);
    m->bytes -= y->nbody * sizeof *y->body;
    y->nbody = 0; /* the body nodes were freed by absorb_list; tf_fnode_free frees the array */
    tf_fnode_free(y, m);
    return;
  }
  if (fresh(&y->nvals)) { /* the common case: one occurrence, push its values */
    tf_vseq_push(&x->nvals, y->nvals.tbase, m);
    if (grow_slots(x, y->nslots, m) == 0)
      for (uint32_t j = 0; j < y->nslots; j++) tf_vseq_push(&x->slots[j], y->slots[j].tbase, m);
  } else {
    tf_vseq_append(&x->nvals, &y->nvals, m);
    if (grow_slots(x, y->nslots, m) == 0)
      for (uint32_t j = 0; j < y->nslots; j++) tf_vseq_append(&x->slots[j], &y->slots[j], m);
  }
  settle(f, x);
  if (y->sample.pending) {
    tf_tsample *t = &y->sample;
    tf_timing_add(&x->timing, f->timing, f->bins, t->prev_fn, t->prev_site, t->compute, t->duration, m);
  } else {
    tf_timing_merge(&x->timing, &y->timing, f->bins, 0, m);
  }
  recycle(f, y);
}
static void absorb_list(tf_folder *f, tf_fnode **x, tf_fnode **y, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) absorb(f, x[i], y[i]);
}
void tf_folder_absorb_list(tf_folder *f, tf_fnode **x, tf_fnode **y, uint32_t n) { absorb_list(f, x, y, n); }
int tf_fnode_same_list(tf_fnode *const *a, tf_fnode *const *b, uint32_t n) { return same_list(a, b, n); }

/* -------------------------------------------------------- K-gram index */

static int32_t kmap_get(const tf_folder *f, uint64_t key) {
  if (!f->kcap) return -1;
  for (uint32_t i = (uint32_t)key & (f->kcap - 1);; i = (i + 1) & (f->kcap - 1)) {
    if (!f->kmap[i].used) return -1;
    if (f->kmap[i].key == key) return f->kmap[i].pos;
  }
}

static int kmap_set(tf_folder *f, uint64_t key, int32_t pos) {
  if ((f->kused + 1) * 4 > f->kcap * 3) {
    uint32_t ncap = f->kcap ? 2 * f->kcap : 64;
    tf_kgram_slot *nm = calloc(ncap, sizeof *nm);
    if (!nm) {
      f->mem.failed = 1;
      return -1;
    }
    for (uint32_t i = 0; i < f->kcap; i++) {
      if (!f->kmap[i].used) continue;
      uint32_t j = (uint32_t)f->kmap[i].key & (ncap - 1);
      while (nm[j].used) j = (j + 1) & (ncap - 1);
      nm[j] = f->kmap[i];
    }
    free(f->kmap);
    f->mem.bytes += (size_t)(ncap - f->kcap) * sizeof *nm;
    f->kmap = nm;
    f->kcap = ncap;
  }
  uint32_t i = (uint32_t)key & (f->kcap - 1);
  while (f->kmap[i].used && f->kmap[i].key != key) i = (i + 1) & (f->kcap - 1);
  if (!f->kmap[i].used) {
    f->kmap[i] = (tf_kgram_slot){.key = key, .used = 1};
    f->kused++;
  }
  f->kmap[i].pos = pos;
  return 0;
}

/* ------------------------------------------------------------ top level */

void tf_folder_init(tf_folder *f) {
  memset(f, 0, sizeof *f);
  f->timing = TF_TIMING_DEFAULT;
  f->bins = TF_BINS_DEFAULT;
}

void tf_folder_reset(tf_folder *f) {
  tf_mem *m = &f->mem;
  for (uint32_t i = 0; i < f->n; i++) tf_fnode_free(f->seq[i], m);
  pool_free(f);
  free(f->seq);
  free(f->pre);
  free(f->pw);
  free(f->kprev);
  free(f->ext_head);
  free(f->ext_next);
  free(f->kmap);
  free(f->held);
  free(f->held_vals);
  tf_cst_guide_free(f);
  tf_flatrun_clear(&f->run, m);
  int failed = m->failed, no_fast = f->no_fast, guided = f->guided, flat = f->flat;
  tf_timing_mode timing = f->timing;
  uint32_t bins = f->bins, flat_window = f->flat_window;
  uint64_t flat_retry = f->flat_retry, flat_backoff = f->flat_backoff, flat_switches = f->flat_switches;
  memset(f, 0, sizeof *f);
  f->flat = flat;
  f->flat_window = flat_window;
  f->flat_retry = flat_retry;
  f->flat_backoff = flat_backoff;
  f->flat_switches = flat_switches;
  f->mem.failed = failed;
  f->timing = timing;
  f->bins = bins;
  f->no_fast = no_fast;
  f->guided = guided;
}

/* hash of the shapes of seq[a..b) */
static inline uint64_t win(const tf_folder *f, uint32_t a, uint32_t b) { return f->pre[b] - f->pre[a] * f->pw[b - a]; }

static int reserve(tf_folder *f) {
  if (f->n < f->cap) return 0;
  uint32_t cap = f->cap ? 2 * f->cap : 64;
  tf_fnode **s = realloc(f->seq, cap * sizeof *s);
  if (s) f->seq = s;
  uint64_t *pre = s ? realloc(f->pre, (cap + 1) * sizeof *pre) : NULL;
  if (pre) f->pre = pre;
  uint64_t *pw = pre ? realloc(f->pw, (cap + 1) * sizeof *pw) : NULL;
  if (pw) f->pw = pw;
  int32_t *kp = pw ? realloc(f->kprev, cap * sizeof *kp) : NULL;
  if (kp) f->kprev = kp;
  int32_t *eh = kp ? realloc(f->ext_head, (cap + 1) * sizeof *eh) : NULL;
  if (eh) f->ext_head = eh;
  int32_t *en = eh ? realloc(f->ext_next, cap * sizeof *en) : NULL;
  if (en) f->ext_next = en;
  if (!en) {
    f->mem.failed = 1;
    return -1;
  }
  if (!f->cap) {
    f->pre[0] = 0;
    f->pw[0] = 1;
    f->ext_head[0] = -1;
  }
  for (uint32_t i = f->cap + 1; i <= cap; i++) {
    f->pw[i] = f->pw[i - 1] * HASH_B;
    f->ext_head[i] = -1;
  }
  f->mem.bytes += (size_t)(cap - f->cap) * (sizeof *s + sizeof *pre + sizeof *pw + sizeof *kp + sizeof *eh + sizeof *en);
  f->cap = cap;
  return 0;
}

static void push_node(tf_folder *f, tf_fnode *x) {
  uint32_t i = f->n++;
  f->seq[i] = x;
  f->pre[i + 1] = f->pre[i] * HASH_B + x->shape;
  f->kprev[i] = -1;
  if (i + 1 >= TF_FOLD_K) {
    uint64_t g = win(f, i + 1 - TF_FOLD_K, i + 1);
    f->kprev[i] = kmap_get(f, g);
    kmap_set(f, g, (int32_t)i);
  }
  f->ext_next[i] = -2;
  if (x->is_loop) { /* its next iteration would be complete at length i + 1 + nbody */
    uint32_t t = i + 1 + x->nbody;
    f->ext_next[i] = f->ext_head[t];
    f->ext_head[t] = (int32_t)i;
  }
}

/* Drop top-level positions >= t from the indexes (the nodes themselves
 * have been moved or freed by the caller). */
static void truncate_to(tf_folder *f, uint32_t t) {
  for (uint32_t i = f->n; i-- > t;) {
    if (i + 1 >= TF_FOLD_K) kmap_set(f, win(f, i + 1 - TF_FOLD_K, i + 1), f->kprev[i]);
    if (f->ext_next[i] != -2) {
      uint32_t tg = i + 1 + f->seq[i]->nbody;
      int32_t *p = &f->ext_head[tg];
      while (*p != -1 && *p != (int32_t)i) p = &f->ext_next[*p];
      if (*p == (int32_t)i) *p = f->ext_next[i];
    }
  }
  f->n = t;
}

/* A loop of `count` iterations with body[0..d) (copied) whose shapes hash
 * to bodyhash. NULL: it would nest too deep, or out of memory (mem.failed). */
static tf_fnode *loop_of(tf_folder *f, tf_fnode *const *body, uint32_t d, uint64_t bodyhash, int64_t count) {
  uint32_t depth = 0;
  for (uint32_t i = 0; i < d; i++)
    if (body[i]->depth > depth) depth = body[i]->depth;
  if (depth + 1 > TF_FOLD_MAXDEPTH) return NULL; /* leave unfolded */
  tf_fnode *l = tf_fnode_new_loop(&f->mem);
  tf_fnode **copy = l ? malloc(d * sizeof *copy) : NULL;
  if (!copy) {
    f->mem.failed = 1;
    tf_fnode_free(l, &f->mem);
    return NULL;
  }
  f->mem.bytes += d * sizeof *copy;
  memcpy(copy, body, d * sizeof *copy);
  l->body = copy;
  l->nbody = d;
  l->depth = depth + 1;
  l->bodyhash = bodyhash;
  l->shape = tf_mix(tf_mix(K_LOOP, l->bodyhash), d);
  tf_vseq_push(&l->iters, count, &f->mem);
  return l;
}

tf_fnode *tf_folder_new_loop(tf_folder *f, tf_fnode *const *body, uint32_t n) {
  uint64_t h = 0; /* what win() gives for these shapes on the top level */
  for (uint32_t i = 0; i < n; i++) h = h * HASH_B + body[i]->shape;
  return loop_of(f, body, n, h, 1);
}

int tf_folder_append(tf_folder *f, tf_fnode *x) {
  if (reserve(f)) {
    tf_fnode_free(x, &f->mem);
    return -1;
  }
  /* not in the K-gram and extension indexes: a guided top level never folds
   * (and a long loop's next-iteration length would be past the table) */
  uint32_t i = f->n++;
  f->seq[i] = x;
  f->pre[i + 1] = f->pre[i] * HASH_B + x->shape;
  f->kprev[i] = -1;
  f->ext_next[i] = -2;
  return 0;
}

/* seq[a..a+d) and seq[a+d..a+2d) are equal: make them one loop. 0 done,
 * 1 refused (the loop would nest too deep), -1 out of memory. */
static int fold_new(tf_folder *f, uint32_t a, uint32_t d) {
  tf_fnode *l = loop_of(f, f->seq + a, d, win(f, a, a + d), 2);
  if (!l) return f->mem.failed ? -1 : 1;
  tf_fnode **body = l->body;
  tf_fnode **y = f->seq + a + d;
  truncate_to(f, a);         /* indexes first: they read the nodes */
  absorb_list(f, body, y, d);
  push_node(f, l);
  return 0;
}

/* Try one fold at the end of the top level: 2 a loop's extension, 1 a new
 * loop, 0 none. */
static int fold_once(tf_folder *f) {
  uint32_t n = f->n;
  for (int32_t q = f->ext_head[n]; q >= 0; q = f->ext_next[q]) {
    tf_fnode *l = f->seq[q];
    uint32_t m = l->nbody;
    if ((uint32_t)q + 1 + m != n || win(f, (uint32_t)q + 1, n) != l->bodyhash ||
        !same_list(l->body, f->seq + q + 1, m))
      continue;
    tf_fnode **y = f->seq + q + 1;
    truncate_to(f, (uint32_t)q + 1);
    absorb_list(f, l->body, y, m);
    tf_vseq_set_single(&l->iters, tf_vseq_single(&l->iters) + 1);
    return 2;
  }
  for (uint32_t d = 1; d < TF_FOLD_K && 2 * d <= n; d++)
    if (win(f, n - 2 * d, n - d) == win(f, n - d, n) && same_list(f->seq + n - 2 * d, f->seq + n - d, d))
      if (fold_new(f, n - 2 * d, d) != 1) return 1; /* folded, or failed (mem.failed stops the caller) */
  if (n >= TF_FOLD_K) {
    int32_t p = f->kprev[n - 1];
    for (int k = 0; k < TF_FOLD_CHAIN && p >= 0; k++, p = f->kprev[p]) {
      uint32_t d = n - 1 - (uint32_t)p;
      if (2 * d > n) break; /* earlier occurrences are even further */
      if (d >= TF_FOLD_K && win(f, n - 2 * d, n - d) == win(f, n - d, n) &&
          same_list(f->seq + n - 2 * d, f->seq + n - d, d) && fold_new(f, n - 2 * d, d) != 1)
        return 1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------ fast path
 *
 * The slow path's decisions depend only on the shapes of the top level and
 * its indexes. When the last top-level node is a loop L of events only and
 * its last iteration came as m pushes of which the first m - 1 folded
 * nothing and the last extended L (and nothing more), the indexes are back
 * where they were before that iteration: the next m events, if their
 * shapes are L's body, would be folded the same way again. So they are
 * only compared with the body and held; the m-th extends L directly (the
 * same absorb as the slow path's). An event that does not match pushes the
 * held ones, then itself, the slow way: the result is the slow path's,
 * node for node (tests/test_folding.c checks it). */

/* Arm for loop l (the last top-level node) if it qualifies. */
static void arm(tf_folder *f, tf_fnode *l) {
  if (f->no_fast || f->flushing || l->nbody > TF_FOLD_FAST_BODY || f->quiet + 1 < l->nbody) return;
  for (uint32_t i = 0; i < l->nbody; i++)
    if (l->body[i]->is_loop) return;
  if (tf_folder_hold_room(f, l->nbody)) return; /* the slow path goes on */
  f->fast = l;
  f->nheld = f->nheld_vals = 0;
}

int tf_folder_hold_room(tf_folder *f, uint32_t n) {
  if (!f->held_vals) { /* never NULL once armed: the held values are walked by pointer */
    f->held_vals = malloc(64 * sizeof *f->held_vals);
    if (!f->held_vals) return -1;
    f->mem.bytes += 64 * sizeof *f->held_vals;
    f->held_vals_cap = 64;
  }
  if (n > f->held_cap) {
    tf_held *h = realloc(f->held, n * sizeof *h);
    if (!h) return -1;
    f->mem.bytes += (n - f->held_cap) * sizeof *h;
    f->held = h;
    f->held_cap = n;
  }
  return 0;
}

tf_fnode *tf_folder_new_occurrence(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                                   const int64_t *vals) {
  if (f->mem.failed) return NULL;
  tf_fnode *x = new_event(f, fn, thread, site, nvals);
  if (!x) return NULL;
  x->nvals = (tf_vseq){.tcount = 1, .tbase = nvals, .nvalues = 1};
  for (uint32_t j = 0; j < nvals; j++) x->slots[j] = (tf_vseq){.tcount = 1, .tbase = vals[j], .nvalues = 1};
  x->sample = (tf_tsample){compute_ns, duration_ns, prev_fn, prev_site, 1};
  return x;
}

static int slow_push(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                     uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals) {
  tf_mem *m = &f->mem;
  if (m->failed || reserve(f)) return -1;
  tf_fnode *x = tf_folder_new_occurrence(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
  if (!x) return -1;
  push_node(f, x);
  int folds = 0, first = 0, r;
  while (!m->failed && (r = fold_once(f)))
    if (!folds++) first = r;
  if (m->failed) return -1;
  if (folds == 1 && first == 2) arm(f, f->seq[f->n - 1]); /* one extension, of the last node */
  f->quiet = folds ? 0 : f->quiet + 1;
  return 0;
}

/* Hold one event of the iteration in progress. 0, or -1 out of memory. */
static int hold(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns, uint64_t duration_ns,
                uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals) {
  if (f->nheld_vals + nvals > f->held_vals_cap) {
    uint32_t cap = f->held_vals_cap;
    while (cap < f->nheld_vals + nvals) cap *= 2;
    int64_t *v = realloc(f->held_vals, cap * sizeof *v);
    if (!v) {
      f->mem.failed = 1;
      return -1;
    }
    f->mem.bytes += (cap - f->held_vals_cap) * sizeof *v;
    f->held_vals = v;
    f->held_vals_cap = cap;
  }
  if (nvals) memcpy(f->held_vals + f->nheld_vals, vals, nvals * sizeof *vals);
  f->nheld_vals += nvals;
  f->held[f->nheld++] = (tf_held){fn, thread, site, nvals, compute_ns, duration_ns, prev_fn, prev_site};
  return 0;
}

/* One occurrence of body node x of f->fast: its values and times appended
 * (as the slow path's extension absorbs a fresh event node). */
static void commit_event(tf_folder *f, tf_fnode *x, uint32_t nvals, const int64_t *v, uint32_t prev_fn,
                         uint32_t prev_site, uint64_t compute, uint64_t duration) {
  tf_mem *m = &f->mem;
  tf_vseq_push(&x->nvals, nvals, m);
  if (grow_slots(x, nvals, m) == 0)
    for (uint32_t j = 0; j < nvals; j++) tf_vseq_push(&x->slots[j], v[j], m);
  settle(f, x);
  tf_timing_add(&x->timing, f->timing, f->bins, prev_fn, prev_site, compute, duration, m);
}

/* The held events, the first f->nheld of an iteration of f->fast, appended. */
static void commit_held(tf_folder *f) {
  const int64_t *v = f->held_vals;
  for (uint32_t i = 0; i < f->nheld; i++) {
    const tf_held *h = &f->held[i];
    commit_event(f, f->fast->body[i], h->nvals, v, h->prev_fn, h->prev_site, h->compute, h->duration);
    v += h->nvals;
  }
}

static void end_iteration(tf_folder *f) {
  tf_vseq_set_single(&f->fast->iters, tf_vseq_single(&f->fast->iters) + 1);
  f->nheld = f->nheld_vals = 0;
}

/* The held events are one iteration of f->fast: extend it. */
static void commit(tf_folder *f) {
  commit_held(f);
  end_iteration(f);
}

int tf_folder_hold(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals) {
  return hold(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
}
void tf_folder_commit(tf_folder *f) { commit(f); }

int tf_folder_flush(tf_folder *f) {
  if (f->guided) return tf_cst_guide_close_all(f); /* guided: the fast path is never armed */
  if (!f->fast) return f->mem.failed ? -1 : 0;
  uint32_t n = f->nheld;
  f->fast = NULL; /* the held events go the slow way, without arming (they are read from the buffers) */
  f->flushing = 1;
  const int64_t *v = f->held_vals;
  int rc = 0;
  for (uint32_t i = 0; i < n && !rc; i++) {
    const tf_held *h = &f->held[i];
    rc = slow_push(f, h->fn, h->thread, h->site, h->compute, h->duration, h->prev_fn, h->prev_site, h->nvals, v);
    v += h->nvals;
  }
  f->flushing = 0;
  f->nheld = f->nheld_vals = 0;
  return rc;
}

/* ------------------------------------------------------------ flat runs
 *
 * At the end of each window of flat_window events, the growth of the top
 * level (held events count as nodes) over the window is what folding did
 * not fold: more than half of the window's events, and the events that
 * follow go to the flat run. The first switch waits for 8 windows of run
 * before the compressor tries folding again, each further switch twice
 * as long as the one before; a window that folds resets the wait. */

/* A shadowed window that did not pay: the folder held nothing before it,
 * so its nodes are the window's events, which the shadow run holds as
 * well. The nodes go (reset), the run and the event count stay. */
static void drop_window(tf_folder *f) {
  tf_flatrun run = f->run;
  uint64_t nevents = f->nevents;
  f->mem.bytes -= run.bytes.cap; /* the reset must not free it */
  f->run = (tf_flatrun){0};
  tf_folder_reset(f); /* counts back to 0: nothing else is held */
  f->run = run;
  f->mem.bytes += run.bytes.cap;
  f->nevents = f->win_events = nevents;
}

static int measure(tf_folder *f) {
  uint64_t grown = f->n + f->nheld > f->win_n ? f->n + f->nheld - f->win_n : 0;
  f->win_n = f->n + f->nheld;
  f->win_events = f->nevents;
  uint64_t first = 8 * (uint64_t)f->flat_window;
  if (2 * grown <= f->flat_window) {
    f->flat_backoff = first;
    if (f->shadow) tf_flatrun_clear(&f->run, &f->mem); /* folded: the shadow is not needed */
    f->shadow = 0;
    return 0;
  }
  if (f->shadow) drop_window(f); /* the window's events are all in the run already */
  else if (tf_folder_flush(f)) return -1; /* the held events join the top level, before the run */
  f->flat = 1;
  f->flat_backoff = f->flat_backoff < first ? first : f->flat_backoff;
  f->flat_retry = f->flat_backoff;
  if (f->flat_backoff < ((uint64_t)1 << 40)) f->flat_backoff *= 2;
  f->flat_switches++;
  return 0;
}

static int push_folded(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                       uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                       const int64_t *vals);

int tf_folder_push(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                   uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals, const int64_t *vals) {
  if (f->mem.failed) return -1;
  f->nevents++;
  if (f->guided) return tf_cst_guide_event(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
  if (f->flat)
    return tf_flatrun_push(&f->run, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals,
                           &f->mem);
  if (f->flat_window && f->nevents - 1 == f->win_events && !f->n && !f->nheld) f->shadow = 1; /* an empty start */
  if (f->shadow && tf_flatrun_push(&f->run, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals,
                                   vals, &f->mem))
    return -1;
  if (push_folded(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals)) return -1;
  if (f->flat_window && f->nevents - f->win_events >= f->flat_window) return measure(f);
  return 0;
}

uint32_t tf_folder_stream_nodes(tf_folder *f, tf_fnode **out, uint32_t *decoded) {
  uint32_t n = f->n;
  *decoded = f->n;
  if (out)
    for (uint32_t i = 0; i < f->n; i++) out[i] = f->seq[i];
  if (!f->run.nevents || f->shadow) return n; /* a shadow: its events are the nodes' */
  f->runnode = (tf_fnode){.run = &f->run};
  if (out) out[n] = &f->runnode;
  *decoded += (uint32_t)f->run.nevents;
  return n + 1;
}

int tf_folder_unflat(tf_folder *f) {
  f->flat_window = 0;
  f->flat = 0;
  if (f->shadow) tf_flatrun_clear(&f->run, &f->mem); /* its events are nodes already */
  f->shadow = 0;
  if (!f->run.nevents) return f->mem.failed ? -1 : 0;
  tf_buf b = {0};
  tf_flatrun_encode(&b, &f->run);
  tf_flatrun_clear(&f->run, &f->mem);
  tf_cursor c = {b.data, b.data + b.len, 0};
  tf_fnode **nodes = NULL;
  uint32_t n = 0, cap = 0;
  const char *why = NULL;
  int rc = b.failed || tf_flatrun_decode(&c, UINT32_MAX, UINT32_MAX, f->timing, f->bins, &nodes, &n, &cap, &f->mem,
                                         &why) ? -1 : 0;
  for (uint32_t i = 0; i < n; i++)
    if (rc) tf_fnode_free(nodes[i], &f->mem);
    else rc = tf_folder_append(f, nodes[i]);
  f->mem.bytes -= cap * sizeof *nodes;
  free(nodes);
  tf_buf_free(&b);
  if (rc) f->mem.failed = 1;
  return rc;
}

static int push_folded(tf_folder *f, uint32_t fn, uint32_t thread, uint32_t site, uint64_t compute_ns,
                       uint64_t duration_ns, uint32_t prev_fn, uint32_t prev_site, uint32_t nvals,
                       const int64_t *vals) {
  if (f->fast) {
    const tf_fnode *b = f->fast->body[f->nheld];
    if (b->fn == fn && b->thread == thread && b->site == site) {
      f->nfast++;
      if (f->nheld + 1 < f->fast->nbody) /* held until the iteration is whole */
        return hold(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
      /* the iteration's last event completes it: the held ones and this one go in, this one without a copy */
      commit_held(f);
      commit_event(f, f->fast->body[f->nheld], nvals, vals, prev_fn, prev_site, compute_ns, duration_ns);
      end_iteration(f);
      return f->mem.failed ? -1 : 0;
    }
    if (tf_folder_flush(f)) return -1;
  }
  return slow_push(f, fn, thread, site, compute_ns, duration_ns, prev_fn, prev_site, nvals, vals);
}

static void seal_node(tf_folder *f, tf_fnode *x) {
  tf_mem *m = &f->mem;
  if (x->is_loop) {
    tf_vseq_seal(&x->iters, m);
    for (uint32_t i = 0; i < x->nbody; i++) seal_node(f, x->body[i]);
  } else {
    settle(f, x);
    tf_vseq_seal(&x->nvals, m);
    for (uint32_t j = 0; j < x->nslots; j++) tf_vseq_seal(&x->slots[j], m);
  }
}

void tf_folder_seal(tf_folder *f) {
  if (tf_folder_flush(f)) return; /* mem.failed tells the caller */
  for (uint32_t i = 0; i < f->n; i++) seal_node(f, f->seq[i]);
}
