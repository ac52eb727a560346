/* test_gen.h — what the unit tests share: a deterministic random source,
 * small file helpers, a function table, the generated event stream (the
 * oracle every round trip is checked against) and the random nested-loop
 * program generator (a template of loops and events, executed into a
 * stream; hooks vary one execution, e.g. per rank) and its folding into a
 * per-rank file through the recorder's compressor. Included by
 * test_folding.c, test_merge.c, test_timing.c and test_efg.c; header-only (static
 * inline). */
#ifndef TF_TEST_GEN_H
#define TF_TEST_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "format/compressor.h"
#include "format/flat_writer.h"
#include "tracefold.h"

/* ------------------------------------------------------------- helpers */

static uint64_t rng;
static inline uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline uint64_t rndn(uint64_t n) { return n ? rnd() % n : 0; }
static inline int permille(unsigned p) { return rndn(1000) < p; }
static inline int64_t rnd_range(int64_t lo, int64_t hi) { return lo + (int64_t)rndn((uint64_t)(hi - lo + 1)); }
/* wrapping arithmetic, no signed overflow */
static inline int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static const int64_t extremes[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, TF_SPECIAL_MAX, TF_SPECIAL_MAX + 1,
                                   -1, 0, 1, INT64_MAX - 1, TF_NULL_HANDLE};
#define NEXTREMES (sizeof extremes / sizeof extremes[0])

static inline double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static inline unsigned char *file_bytes(const char *path, long *n) {
  *n = file_size(path);
  if (*n <= 0) return NULL;
  FILE *f = fopen(path, "rb");
  unsigned char *d = malloc((size_t)*n);
  if (!f || !d || fread(d, 1, (size_t)*n, f) != (size_t)*n) {
    free(d);
    d = NULL;
  }
  if (f) fclose(f);
  return d;
}

/* n as a size, for a length known to be positive (keeps GCC's object-size
 * analysis quiet under sanitizers) */
static inline size_t file_len(long n) { return n > 0 && n < (1L << 30) ? (size_t)n : 1; }

/* Files are rewritten often here (tens of thousands of times). Truncating
 * a non-empty file (fopen "wb", O_TRUNC) makes ext4 flush it on close
 * (auto_da_alloc): about a millisecond each. So a file of the same size is
 * overwritten in place, and any other is removed and created anew. */
static inline void fresh(const char *path) { remove(path); }

static inline void put_bytes(const char *path, const unsigned char *d, long n) {
  FILE *f = file_size(path) == n ? fopen(path, "r+b") : NULL;
  if (!f) {
    fresh(path);
    f = fopen(path, "wb");
  }
  if (!f) return;
  if (n > 0) fwrite(d, 1, (size_t)n, f);
  fclose(f);
}

static const tf_field_desc fl_send[] = {{"count", TF_FIELD_COUNT, 0}, {"dest", TF_FIELD_PEER, 0},
                                        {"tag", TF_FIELD_TAG, 0}, {"comm", TF_FIELD_INT, 0}};
static const tf_field_desc fl_isend[] = {{"count", TF_FIELD_COUNT, 0}, {"dest", TF_FIELD_PEER, 0},
                                         {"tag", TF_FIELD_TAG, 0}, {"request", TF_FIELD_REQ_NEW, 0}};
static const tf_field_desc fl_irecv[] = {{"source", TF_FIELD_PEER, 0}, {"tag", TF_FIELD_TAG, 0},
                                         {"request", TF_FIELD_REQ_NEW, 0}};
static const tf_field_desc fl_wait[] = {{"request", TF_FIELD_REQ, 0}, {"status.tag", TF_FIELD_MTAG, 0}};
static const tf_field_desc fl_waitall[] = {{"count", TF_FIELD_INT, 0},
                                           {"array_of_requests", TF_FIELD_REQ, 1},
                                           {"statuses.tag", TF_FIELD_MTAG, 1}};
static const tf_field_desc fl_alltoallv[] = {{"sendcounts", TF_FIELD_COUNT, 1}, {"root", TF_FIELD_ROOT, 0},
                                             {"recvcounts", TF_FIELD_COUNT, 1}};
static const tf_field_desc fl_startall[] = {{"array_of_requests", TF_FIELD_REQ_NEW, 1}};
static const tf_func_desc funcs[] = {
    {"MPI_Barrier", 0, NULL},        {"MPI_Send", 4, fl_send},           {"MPI_Isend", 4, fl_isend},
    {"MPI_Irecv", 3, fl_irecv},      {"MPI_Wait", 2, fl_wait},           {"MPI_Waitall", 3, fl_waitall},
    {"MPI_Alltoallv", 3, fl_alltoallv}, {"MPI_Startall", 1, fl_startall},
};
#define NFUNCS ((uint32_t)(sizeof funcs / sizeof funcs[0]))

/* 1 if function `got` of a table read back (table, n) is funcs[want]: a
 * compressed or merged file numbers only the functions it uses (doc/FORMAT.md
 * 2.1, 3.3), so functions are matched by name. */
static inline int same_fn(const tf_func_desc *table, uint32_t n, uint32_t got, uint32_t want) {
  return got < n && want < NFUNCS && strcmp(table[got].name, funcs[want].name) == 0;
}

/* ---- the oracle: the generated event stream */
typedef struct oev {
  uint32_t fn, thread, site, nvals;
  uint64_t compute, duration;
  size_t off;
} oev;
typedef struct stream {
  oev *e;
  size_t n, cap;
  int64_t *v;
  size_t nv, capv;
} stream;

/* How many functions of funcs[] the events of s use. */
static inline uint32_t stream_nfuncs(const stream *s) {
  uint8_t used[NFUNCS] = {0};
  uint32_t k = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->e[i].fn < NFUNCS && !used[s->e[i].fn]) used[s->e[i].fn] = 1, k++;
  return k;
}

static inline void stream_add(stream *s, uint32_t fn, uint32_t thread, uint32_t site, uint64_t comp, uint64_t dur,
                       uint32_t nvals, const int64_t *vals) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->e = realloc(s->e, s->cap * sizeof *s->e);
  }
  while (!s->v || s->nv + nvals > s->capv) {
    s->capv = s->capv ? 2 * s->capv : 4096;
    s->v = realloc(s->v, s->capv * sizeof *s->v);
  }
  if (!s->e || !s->v) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  s->e[s->n++] = (oev){.fn = fn, .thread = thread, .site = site, .nvals = nvals, .compute = comp, .duration = dur,
                       .off = s->nv};
  if (nvals) memcpy(s->v + s->nv, vals, nvals * sizeof *vals);
  s->nv += nvals;
}
static inline void stream_free(stream *s) {
  free(s->e);
  free(s->v);
  *s = (stream){0};
}

static inline uint64_t site_sig(uint32_t site) { return (site + 1) * 0x9E3779B97F4A7C15ull ^ 0xabcdefull; }

/* Non-zero: the window of stream_compress's "folding pays" measure, so that
 * irregular streams switch to flat runs (doc/FOLDING.md "Flat runs"). */
static uint32_t stream_flat_window;

/* Folds stream s through the recorder's compressor (memory cap `cap`) into
 * the open per-rank writer w, call sites numbered in order of first use, as
 * the recorder does. 0, or -1 after a failed check. */
static inline int stream_compress(const stream *s, tf_file_writer *w, const tf_func_desc *table, uint32_t nfuncs,
                                  size_t cap, int rank) {
  tf_compressor c;
  CHECK(tf_compressor_init(&c, table, nfuncs, cap) == 0);
  if (stream_flat_window) tf_compressor_set_flat_window(&c, stream_flat_window);
  enum { MAXSITE = 4096 };
  static int64_t index_of[MAXSITE];
  for (int i = 0; i < MAXSITE; i++) index_of[i] = -1;
  uint32_t nsites = 0;
  int ok = 1;
  for (size_t i = 0; i < s->n && ok; i++) {
    const oev *e = &s->e[i];
    if (e->site >= MAXSITE) abort();
    if (index_of[e->site] < 0) {
      index_of[e->site] = nsites;
      CHECK(tf_file_writer_callsite(w, nsites, site_sig(e->site), "m", e->site * 16u) == 0);
      nsites++;
    }
    int rc = tf_compressor_event(&c, w, e->fn, e->thread, (uint32_t)index_of[e->site], e->compute, e->duration,
                                 e->nvals, s->v + e->off);
    ok = rc == 0 || rc == 1;
    CHECKF(ok, "rank %d: tf_compressor_event gives %d at event %zu", rank, rc, i);
  }
  CHECK(tf_compressor_finish(&c, w) == 0);
  tf_compressor_free(&c);
  return ok ? 0 : -1;
}

/* ---- random nested-loop programs */
enum { P_CONST, P_LIN, P_LIN2, P_MOD, P_EXTREME, P_RAND_SMALL, P_RAND_FULL, P_NREGULAR = P_RAND_SMALL };
typedef struct pparam {
  int mode;
  int64_t a, b, c;
  int l1, l2; /* loop levels (0 = the program's main loop) */
} pparam;
enum { L_CONST, L_INDEX, L_RAND };        /* array lengths */
enum { R_CONSEC, R_JUMP, R_NULL, R_FAR, R_WILD, R_NREGULAR = R_WILD }; /* created request ids */
enum { U_BACK, U_NULL, U_WILD };          /* used request ids */
typedef struct pfield {
  pparam p;        /* scalar value, or first element */
  int64_t estep;   /* array: element j adds j*estep */
  int len_mode, len_l;
  int64_t len_a;
  int req_mode;
  int64_t jump;
  int back; /* U_BACK: the request created `back` creations ago */
} pfield;

#define MAXBODY 5
#define MAXDEPTH 5 /* main loop + 4 */
typedef struct pnode {
  uint32_t id; /* 0, 1, ... in the order the template was made */
  int is_loop;
  uint32_t fn, thread, site;
  pfield f[4];
  int iter_mode, iter_l; /* L_CONST: iters; L_INDEX: iters + idx[iter_l] % 3; L_RAND: 1 + rand % iters */
  int64_t iters;
  struct pnode *body[MAXBODY];
  int nbody;
} pnode;

struct gen;
/* Variations of one execution of a template (test_merge.c: one "rank" of
 * an SPMD program); every hook is optional. */
typedef struct gen_hooks {
  void *ctx;
  int (*skip)(void *ctx, const pnode *x);                   /* 1: leave this occurrence of x out */
  int64_t (*iters)(void *ctx, const pnode *x, int64_t it);  /* a loop occurrence's iteration count */
  void (*values)(void *ctx, const pnode *x, int64_t *vals, uint32_t n); /* alter an event's values */
  void (*main_iter)(void *ctx, struct gen *g, int64_t k);   /* before iteration k of the main loop */
} gen_hooks;

typedef struct gen {
  stream s;
  size_t budget;
  int level; /* 0 irregular (random values, noise), 1 regular (deterministic), 2 simple (see gen_program_stream) */
  unsigned noise; /* per mille */
  int const_times;
  int64_t idx[MAXDEPTH + 1];
  int64_t next_req;
  int64_t hist[64];
  unsigned hpos;
  const gen_hooks *hooks; /* NULL: the template as it is */
  int64_t main_iters;     /* > 0: the main loop runs exactly this often (budget permitting) */
  int64_t main_done;      /* iterations of the main loop run_program began */
} gen;

static inline void gen_param(pparam *p, int depth, int level) {
  uint64_t modes = level == 2 ? P_EXTREME : level == 1 ? P_NREGULAR : P_RAND_FULL + 1;
  *p = (pparam){.mode = (int)rndn(modes), .l1 = (int)rndn((uint64_t)depth),
                .l2 = (int)rndn((uint64_t)depth)};
  p->a = permille(100) ? extremes[rndn(NEXTREMES)] : rnd_range(-100, 100);
  p->b = permille(100) ? (int64_t)rnd() : rnd_range(-4, 4);
  p->c = rnd_range(-50, 50);
  if (p->mode == P_MOD) p->c = rnd_range(2, 4);
}

static inline int64_t eval_param(gen *g, const pparam *p) {
  switch (p->mode) {
  case P_CONST: return p->a;
  case P_LIN: return wadd(p->a, wmul(p->b, g->idx[p->l1]));
  case P_LIN2: return wadd(wadd(p->a, wmul(p->b, g->idx[p->l1])), wmul(p->c, g->idx[p->l2]));
  case P_MOD: return wadd(p->a, wmul(p->b, g->idx[p->l1] % p->c));
  case P_EXTREME: return extremes[(uint64_t)wadd(g->idx[p->l1], p->a) % NEXTREMES];
  case P_RAND_SMALL: return rnd_range(0, 2);
  default: return permille(200) ? extremes[rndn(NEXTREMES)] : (int64_t)rnd();
  }
}

static inline void gen_field(pfield *f, int depth, int level) {
  gen_param(&f->p, depth, level);
  f->estep = rnd_range(-2, 2);
  f->len_mode = level == 2 ? L_CONST : (int)rndn(level ? L_RAND : L_RAND + 1);
  f->len_l = (int)rndn((uint64_t)depth);
  f->len_a = rnd_range(0, 4);
  f->req_mode = (int)rndn(level ? R_NREGULAR : R_WILD + 1);
  if (permille(300)) f->req_mode = R_CONSEC;
  f->jump = rnd_range(2, 9);
  f->back = (int)rnd_range(1, 6);
  if (permille(100)) f->back = (int)rnd_range(7, 63);
}

static uint32_t next_site; /* simple programs: the next unused call site */
static uint32_t next_node_id;

static inline pnode *gen_node(int depth, int level) {
  pnode *x = calloc(1, sizeof *x);
  if (!x) abort();
  x->id = next_node_id++;
  if (depth < MAXDEPTH && permille(depth == 1 ? 600 : 400)) {
    x->is_loop = 1;
    x->nbody = 1 + (int)rndn(MAXBODY);
    for (int i = 0; i < x->nbody; i++) x->body[i] = gen_node(depth + 1, level);
    static const int64_t counts[] = {1, 1, 2, 2, 3, 4, 5, 7, 10, 16, 50};
    x->iters = counts[rndn(sizeof counts / sizeof counts[0])];
    x->iter_mode = (int)rndn(level ? L_RAND : L_RAND + 1);
    x->iter_l = (int)rndn((uint64_t)depth);
    return x;
  }
  x->fn = (uint32_t)rndn(NFUNCS);
  /* regular and irregular programs share call sites between templates
   * (equal shapes, different values); simple ones give each its own */
  x->site = level == 2 ? next_site++ : (uint32_t)rndn(24);
  x->thread = permille(150) ? (uint32_t)rnd_range(1, 2) : 0;
  for (int k = 0; k < 4; k++) gen_field(&x->f[k], depth, level);
  return x;
}

static inline void free_node(pnode *x) {
  for (int i = 0; i < x->nbody; i++) free_node(x->body[i]);
  free(x);
}

static inline int64_t new_req(gen *g, const pfield *f) {
  int64_t id;
  switch (f->req_mode) {
  case R_CONSEC: id = g->next_req; g->next_req = wadd(g->next_req, 1); break;
  case R_JUMP: id = g->next_req; g->next_req = wadd(g->next_req, f->jump); break;
  case R_NULL: id = TF_NULL_HANDLE; break;
  case R_FAR: /* ids near the top of the range: they wrap past INT64_MAX */
    if (g->next_req < INT64_MAX - 100) g->next_req = INT64_MAX - 2;
    id = g->next_req;
    g->next_req = wadd(g->next_req, 1);
    break;
  default: id = permille(300) ? extremes[rndn(NEXTREMES)] : (int64_t)rnd(); break;
  }
  g->hist[g->hpos++ % 64] = id;
  return id;
}

static inline int64_t used_req(gen *g, const pfield *f, int back) {
  switch (f->req_mode % 3) {
  case U_BACK: return g->hist[(g->hpos - (unsigned)back) % 64];
  case U_NULL: return TF_NULL_HANDLE;
  default: return g->level ? g->hist[(g->hpos - 1) % 64] : (int64_t)rnd();
  }
}

/* Values of one event of x (template) or, with x NULL, of a noise event of function fn. */
static inline uint32_t event_values(gen *g, const pnode *x, uint32_t fn, int64_t *vals) {
  const tf_func_desc *fd = &funcs[fn];
  uint32_t n = 0;
  for (uint32_t k = 0; k < fd->nfields; k++) {
    const pfield *f = x ? &x->f[k] : NULL;
    pfield rf;
    if (!f) { /* noise: a random field description */
      gen_field(&rf, 0, 0);
      rf.p.mode = permille(500) ? P_RAND_FULL : P_RAND_SMALL;
      rf.len_mode = L_RAND;
      rf.req_mode = R_WILD - (int)rndn(2);
      f = &rf;
    }
    int64_t len = 1;
    if (fd->fields[k].is_array) {
      len = f->len_mode == L_CONST ? f->len_a
            : f->len_mode == L_INDEX ? f->len_a + g->idx[f->len_l] % 3
                                     : rnd_range(0, 6);
      vals[n++] = len;
    }
    int64_t base = eval_param(g, &f->p);
    for (int64_t j = 0; j < len; j++) {
      int64_t v = wadd(base, wmul(f->estep, j));
      if (fd->fields[k].kind == TF_FIELD_REQ_NEW) v = new_req(g, f);
      if (fd->fields[k].kind == TF_FIELD_REQ) v = used_req(g, f, f->back + (int)(len - 1 - j));
      vals[n++] = v;
    }
  }
  return n;
}

static inline void emit(gen *g, uint32_t fn, uint32_t thread, uint32_t site, const int64_t *vals, uint32_t n) {
  uint64_t comp = g->const_times ? 1000 : rndn(100000), dur = g->const_times ? 7 : rndn(5000);
  stream_add(&g->s, fn, thread, site, comp, dur, n, vals);
}

static inline void maybe_noise(gen *g) {
  if (!g->noise || !permille(g->noise)) return;
  int64_t vals[64];
  uint32_t fn = (uint32_t)rndn(NFUNCS);
  uint32_t n = event_values(g, NULL, fn, vals);
  emit(g, fn, (uint32_t)rndn(2), 40 + (uint32_t)rndn(20), vals, n);
}

static inline void exec_list(gen *g, pnode *const *nodes, int n, int depth) {
  for (int i = 0; i < n && g->s.n < g->budget; i++) {
    const pnode *x = nodes[i];
    const gen_hooks *h = g->hooks;
    if (h && h->skip && h->skip(h->ctx, x)) continue;
    if (x->is_loop) {
      int64_t it = x->iter_mode == L_CONST ? x->iters
                   : x->iter_mode == L_INDEX ? x->iters + g->idx[x->iter_l] % 3
                                             : 1 + (int64_t)rndn((uint64_t)x->iters);
      if (h && h->iters) it = h->iters(h->ctx, x, it);
      for (int64_t k = 0; k < it && g->s.n < g->budget; k++) {
        g->idx[depth] = k;
        exec_list(g, x->body, x->nbody, depth + 1);
      }
      continue;
    }
    int64_t vals[64];
    uint32_t nv = event_values(g, x, x->fn, vals);
    if (h && h->values) h->values(h->ctx, x, vals, nv);
    emit(g, x->fn, x->thread, x->site, vals, nv);
    maybe_noise(g);
  }
}

/* A program template: parameters and the top-level nodes of its main loop. */
typedef struct program {
  int level;
  unsigned noise;
  int const_times;
  size_t budget;
  int64_t next_req, hist[64];
  int ntop;
  pnode *top[4];
  uint32_t nnodes; /* template nodes (ids 0 .. nnodes-1) */
} program;

/* The template of one seed. Leaves rng where gen_program_stream goes on
 * executing it. */
static inline void gen_program(program *p, uint64_t seed) {
  rng = seed * 0x2545F4914F6CDD1Dull + 17;
  *p = (program){0};
  /* simple: parameters constant or affine in loop indices (or periodic in
   * one), constant array lengths, iteration counts constant or cycling with
   * an outer index; regular adds values cycling through the extremes and
   * array lengths that vary with a loop index (a changing slot alignment);
   * irregular adds random values, lengths, counts, request ids and noise. */
  p->level = seed % 10 < 3 ? 2 : seed % 10 < 6 ? 1 : 0;
  static const unsigned noises[] = {0, 1, 10, 100};
  p->noise = p->level ? 0 : noises[rndn(4)];
  p->const_times = seed % 4 == 0;
  static const size_t budgets[] = {20, 300, 2000, 5000, 12000};
  p->budget = budgets[rndn(5)];
  p->next_req = permille(100) ? INT64_MAX - 50 : rnd_range(0, 1000);
  for (unsigned i = 0; i < 64; i++) p->hist[i] = rnd_range(0, 5); /* requests made "before the trace" */
  p->ntop = 1 + (int)rndn(4);
  next_site = 100;
  next_node_id = 0;
  for (int i = 0; i < p->ntop; i++) p->top[i] = gen_node(1, p->level);
  p->nnodes = next_node_id;
}

static inline void free_program(program *p) {
  for (int i = 0; i < p->ntop; i++) free_node(p->top[i]);
  p->ntop = 0;
}

/* A generator state for executing p (g->s empty); adjust, then run_program. */
static inline void gen_init(gen *g, const program *p) {
  *g = (gen){0};
  g->level = p->level;
  g->noise = p->noise;
  g->const_times = p->const_times;
  g->budget = p->budget;
  g->next_req = p->next_req;
  memcpy(g->hist, p->hist, sizeof g->hist);
}

/* The main loop runs the top-level nodes until the budget is spent (or
 * g->main_iters times), drawing from rng. */
static inline void run_program(gen *g, const program *p) {
  for (int64_t k = 0; g->s.n < g->budget && (g->main_iters <= 0 || k < g->main_iters); k++) {
    g->idx[0] = k;
    if (g->hooks && g->hooks->main_iter) g->hooks->main_iter(g->hooks->ctx, g, k);
    size_t before = g->s.n;
    exec_list(g, p->top, p->ntop, 1);
    g->main_done = k + 1;
    if (g->s.n == before && g->main_iters <= 0) break; /* without hooks, cannot happen: every body holds an event */
  }
}

/* The stream of one seed: the main loop runs a random body until the budget is spent. */
static inline void gen_program_stream(gen *g, uint64_t seed) {
  program p;
  gen_program(&p, seed);
  gen_init(g, &p);
  run_program(g, &p);
  free_program(&p);
}

#endif
