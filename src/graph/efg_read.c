/* efg_read.c — an event flow graph's JSON read back (json.c), and each
 * rank's event sequence regenerated from it alone (doc/EFG.md
 * "Reconstruction"): the structure is walked over node ids, each loop
 * takes its next iteration count, each event its next value count and
 * values from its sequences (the rank's variant in merged graphs), request
 * ids are restored as the trace's cursors restore them, and every step is
 * checked to be an edge of the graph; at the end the transitions counted
 * must equal the edge weights, node counts and initial nodes the graph
 * gives for the rank, and every sequence must be read to its end. Nothing
 * here reads the trace: only the JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "efg_impl.h"
#include "fold/request_transform.h"
#include "json.h"

#define SEQ_MAXDEPTH 64 /* repeats nested deeper are refused */

/* ------------------------------------------------------------ the document */

typedef struct ditem { /* a value sequence item */
  int64_t base, step;  /* run: first value, difference; repeat: -, shift per repetition */
  uint64_t count;      /* run: values; repeat: repetitions */
  struct ditem *body;  /* repeat */
  uint32_t nbody;
} ditem;

typedef struct dseq {
  ditem *items;
  uint32_t n, depth;
  int constant; /* 1: the value `value` at every read (written as a bare number) */
  int64_t value;
} dseq;

typedef struct dranks { /* a rank list, expanded: ascending */
  int32_t *r;
  uint32_t n;
} dranks;

typedef struct dvar {
  const dranks *ranks;
  dseq seq;
} dvar;

typedef struct dvset { /* one sequence for every rank of its item, or variants by rank */
  dvar *v;
  uint32_t n;
  int by_rank;
} dvset;

typedef struct dcount { /* a per-rank count: one value (one-rank graph) or (count, ranks) pairs */
  uint64_t total;
  uint64_t *count;
  const dranks **ranks;
  uint32_t n;
} dcount;

typedef struct dstruct { /* a structure item */
  int is_loop;
  uint32_t node, index; /* event's node; preorder number */
  const dranks *ranks;  /* its own or its parent's */
  dvset count;          /* iteration counts / value counts */
  dvset *slots;
  uint32_t nslots;
  struct dstruct *body;
  uint32_t nbody;
} dstruct;

typedef struct dnode {
  uint32_t fn, thread;
  uint64_t sig;
  dcount occ;
} dnode;

typedef struct dedge {
  uint32_t from, to;
  dcount cnt;
} dedge;

typedef struct dinit {
  uint32_t thread, node;
  const dranks *ranks; /* NULL: the graph's one rank */
} dinit;

struct tf_efg_doc {
  json_doc *json;
  const char *text, *name;
  int32_t nranks;   /* of the run */
  int32_t one_rank; /* a one-rank graph: its rank; else -1 */
  dranks all;       /* the ranks the graph holds */
  tf_func_desc *funcs;
  uint32_t nfuncs;
  uint64_t *sigs;
  uint32_t nsites;
  dnode *nodes;
  uint32_t nnodes;
  dedge *edges;
  uint32_t nedges;
  efg_map edgemap;
  dinit *inits;
  uint32_t ninits;
  dstruct *top;
  uint32_t ntop, nitems;
  int has_structure;
  dvset order[3]; /* ranks with several streams (threads): sizes, runs, lengths (fold/streams.h) */
  uint32_t maxslots;
  /* allocations: one list, freed together */
  void **allocs;
  uint32_t nallocs, capallocs;
};

typedef struct rd {
  tf_efg_doc *d;
  char *err;
  size_t errlen;
  int failed;
} rd;

static void *dalloc(rd *r, size_t n) {
  tf_efg_doc *d = r->d;
  if (d->nallocs == d->capallocs) {
    uint32_t cap = d->capallocs ? 2 * d->capallocs : 64;
    void **na = realloc(d->allocs, cap * sizeof *na);
    if (!na) goto nomem;
    d->allocs = na;
    d->capallocs = cap;
  }
  void *p = calloc(1, n ? n : 1);
  if (!p) goto nomem;
  d->allocs[d->nallocs++] = p;
  return p;
nomem:
  if (!r->failed) snprintf(r->err, r->errlen, "%s: out of memory", d->name);
  r->failed = 1;
  return NULL;
}

/* "NAME:LINE:COL: what" at value v (NULL: no position). -1. */
static int bad(rd *r, const json *v, const char *fmt, ...) {
  if (r->failed) return -1;
  r->failed = 1;
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (v) {
    uint32_t line, col;
    json_where(r->d->text, v->at, &line, &col);
    snprintf(r->err, r->errlen, "%s:%u:%u: not an event flow graph: %s", r->d->name, line, col, what);
  } else {
    snprintf(r->err, r->errlen, "%s: not an event flow graph: %s", r->d->name, what);
  }
  return -1;
}

static const json *member(rd *r, const json *obj, const char *key, json_type t, const char *what) {
  const json *v = json_get(obj, key);
  if (!v) {
    bad(r, obj, "%s has no \"%s\"", what, key);
    return NULL;
  }
  if (v->type != t) {
    bad(r, v, "%s: \"%s\" is %s, not %s", what, key, json_type_name(v->type), json_type_name(t));
    return NULL;
  }
  return v;
}

static int get_u32(rd *r, const json *obj, const char *key, uint32_t below, const char *what, uint32_t *out) {
  const json *v = member(r, obj, key, JSON_INT, what);
  if (!v) return -1;
  if (v->i < 0 || (uint64_t)v->i >= below)
    return bad(r, v, "%s: \"%s\" is %" PRId64 ", outside 0..%" PRIu32, what, key, v->i, below ? below - 1 : 0);
  *out = (uint32_t)v->i;
  return 0;
}

/* ---- rank lists: "<d start c1 s1 ... cd sd>" blocks and "(...)xN+S" repeats, expanded */

typedef struct rparse {
  rd *r;
  const json *v;
  const char *p;
  int32_t *out;
  uint32_t n, cap;
} rparse;

static int r_int(rparse *rp, int64_t *x) {
  while (*rp->p == ' ') rp->p++;
  char *end;
  errno = 0;
  long long v = strtoll(rp->p, &end, 10);
  if (end == rp->p || errno) return bad(rp->r, rp->v, "rank list \"%s\": expected a number", rp->v->s);
  rp->p = end;
  *x = v;
  return 0;
}

static int r_emit(rparse *rp, int64_t rank) {
  tf_efg_doc *d = rp->r->d;
  if (rank < 0 || rank >= d->nranks || rp->n >= (uint32_t)d->nranks || (rp->n && rank <= rp->out[rp->n - 1]))
    return bad(rp->r, rp->v, "rank list \"%s\": ranks must increase within 0..%d", rp->v->s, d->nranks - 1);
  if (rp->n == rp->cap) {
    uint32_t cap = rp->cap ? 2 * rp->cap : 16;
    int32_t *no = realloc(rp->out, cap * sizeof *no);
    if (!no) return bad(rp->r, NULL, "out of memory");
    rp->out = no;
    rp->cap = cap;
  }
  rp->out[rp->n++] = (int32_t)rank;
  return 0;
}

/* a + k * b modulo 2^64 (values out of range are refused by r_emit) */
static int64_t wadd64(int64_t a, int64_t k, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)k * (uint64_t)b); }

static int r_block(rparse *rp, int64_t base, const int64_t *cs, uint32_t dims) {
  if (!dims) return r_emit(rp, base);
  for (int64_t k = 0; k < cs[0]; k++)
    if (r_block(rp, wadd64(base, k, cs[1]), cs + 2, dims - 1)) return -1;
  return 0;
}

static int r_list(rparse *rp, int64_t shift, int depth) {
  for (;;) {
    while (*rp->p == ' ') rp->p++;
    if (!*rp->p || *rp->p == ')') return 0;
    if (*rp->p == '<') {
      rp->p++;
      int64_t dims, start, cs[2 * 8];
      if (r_int(rp, &dims) || r_int(rp, &start)) return -1;
      if (dims < 1 || dims > 8) return bad(rp->r, rp->v, "rank list \"%s\": 1 to 8 dimensions", rp->v->s);
      for (int64_t k = 0; k < 2 * dims; k++)
        if (r_int(rp, &cs[k])) return -1;
      for (int64_t k = 0; k < dims; k++)
        if (cs[2 * k] < 1 || cs[2 * k] > rp->r->d->nranks)
          return bad(rp->r, rp->v, "rank list \"%s\": a block count outside 1..%d", rp->v->s, rp->r->d->nranks);
      while (*rp->p == ' ') rp->p++;
      if (*rp->p != '>') return bad(rp->r, rp->v, "rank list \"%s\": expected '>'", rp->v->s);
      rp->p++;
      if (r_block(rp, wadd64(start, 1, shift), cs, (uint32_t)dims)) return -1;
    } else if (*rp->p == '(') {
      if (depth > 16) return bad(rp->r, rp->v, "rank list \"%s\": nested too deep", rp->v->s);
      const char *body = ++rp->p;
      uint32_t before = rp->n;
      if (r_list(rp, shift, depth + 1)) return -1; /* repetition 0, and where the body ends */
      if (rp->n == before) return bad(rp->r, rp->v, "rank list \"%s\": an empty repeat", rp->v->s);
      if (*rp->p != ')') return bad(rp->r, rp->v, "rank list \"%s\": expected ')'", rp->v->s);
      const char *after = ++rp->p;
      int64_t count, step;
      if (*rp->p != 'x') return bad(rp->r, rp->v, "rank list \"%s\": expected 'x' after ')'", rp->v->s);
      rp->p++;
      if (r_int(rp, &count)) return -1;
      if (*rp->p != '+') return bad(rp->r, rp->v, "rank list \"%s\": expected '+' after the count", rp->v->s);
      rp->p++;
      if (r_int(rp, &step)) return -1;
      if (count < 1 || count > rp->r->d->nranks)
        return bad(rp->r, rp->v, "rank list \"%s\": a repeat count outside 1..%d", rp->v->s, rp->r->d->nranks);
      const char *end = rp->p;
      for (int64_t k = 1; k < count; k++) {
        rp->p = body;
        if (r_list(rp, wadd64(shift, k, step), depth + 1)) return -1;
      }
      (void)after;
      rp->p = end;
    } else {
      return bad(rp->r, rp->v, "rank list \"%s\": expected '<' or '('", rp->v->s);
    }
  }
}

static const dranks *parse_ranks(rd *r, const json *v) {
  if (v->type != JSON_STR) {
    bad(r, v, "a rank list is %s, not a string", json_type_name(v->type));
    return NULL;
  }
  dranks *out = dalloc(r, sizeof *out);
  rparse rp = {.r = r, .v = v, .p = v->s};
  if (!out) return NULL;
  int rc = r_list(&rp, 0, 0);
  if (!rc && *rp.p) rc = bad(r, v, "rank list \"%s\": unbalanced ')'", v->s);
  if (!rc && (out->r = dalloc(r, rp.n * sizeof *out->r))) {
    if (rp.n) memcpy(out->r, rp.out, rp.n * sizeof *out->r);
    out->n = rp.n;
  }
  free(rp.out);
  return rc || !out->r ? NULL : out;
}

static int has_rank(const dranks *s, int32_t rank) {
  uint32_t lo = 0, hi = s->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->r[mid] < rank)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->n && s->r[lo] == rank;
}

/* ---- value sequences */

static int parse_items(rd *r, const json *arr, ditem **out, uint32_t *n, uint32_t *depth, int level) {
  if (arr->type != JSON_ARR) return bad(r, arr, "a value sequence is %s, not an array", json_type_name(arr->type));
  if (level > SEQ_MAXDEPTH) return bad(r, arr, "repeats nested deeper than %d", SEQ_MAXDEPTH);
  *n = arr->n;
  *depth = 0;
  if (!(*out = dalloc(r, arr->n * sizeof **out))) return -1;
  for (uint32_t i = 0; i < arr->n; i++) {
    const json *x = &arr->a[i];
    ditem *it = &(*out)[i];
    if (x->type == JSON_INT) { /* one value */
      *it = (ditem){.base = x->i, .count = 1};
    } else if (x->type == JSON_ARR) {
      if (x->n != 3 || x->a[0].type != JSON_INT || x->a[1].type != JSON_INT || x->a[2].type != JSON_INT ||
          x->a[2].i < 1)
        return bad(r, x, "a run is [base, step, count] with integers and count >= 1");
      *it = (ditem){.base = x->a[0].i, .step = x->a[1].i, .count = (uint64_t)x->a[2].i};
    } else if (x->type == JSON_OBJ) {
      const json *c = member(r, x, "x", JSON_INT, "a repeat"), *s = c ? member(r, x, "shift", JSON_INT, "a repeat") : NULL;
      const json *b = s ? member(r, x, "body", JSON_ARR, "a repeat") : NULL;
      if (!b) return -1;
      if (c->i < 1 || !b->n) return bad(r, x, "a repeat needs \"x\" >= 1 and a non-empty body");
      uint32_t d;
      *it = (ditem){.step = s->i, .count = (uint64_t)c->i};
      if (parse_items(r, b, &it->body, &it->nbody, &d, level + 1)) return -1;
      if (d + 1 > *depth) *depth = d + 1;
    } else {
      return bad(r, x, "a value sequence item is %s, not a value, a run [base, step, count] or a repeat {\"x\", "
                       "\"shift\", \"body\"}", json_type_name(x->type));
    }
  }
  return 0;
}

/* A sequence: a number (that value at every read) or an array of items. */
static int parse_seq(rd *r, const json *v, dseq *q) {
  *q = (dseq){0};
  if (v->type == JSON_INT) {
    q->constant = 1;
    q->value = v->i;
    return 0;
  }
  return parse_items(r, v, &q->items, &q->n, &q->depth, 0);
}

static int parse_vset(rd *r, const json *v, dvset *out) {
  *out = (dvset){0};
  if (v->type == JSON_ARR || v->type == JSON_INT) {
    if (!(out->v = dalloc(r, sizeof *out->v))) return -1;
    out->n = 1;
    return parse_seq(r, v, &out->v[0].seq);
  }
  const json *br = v->type == JSON_OBJ ? json_get(v, "by_rank") : NULL;
  if (!br || br->type != JSON_ARR)
    return bad(r, v, "a value sequence is %s, not a number, an array or {\"by_rank\": [...]}", json_type_name(v->type));
  if (!(out->v = dalloc(r, br->n * sizeof *out->v))) return -1;
  out->n = br->n;
  out->by_rank = 1;
  for (uint32_t i = 0; i < br->n; i++) {
    const json *e = &br->a[i], *rk = member(r, e, "ranks", JSON_STR, "a by_rank variant");
    const json *sq = json_get(e, "seq");
    if (!rk) return -1;
    if (!sq) return bad(r, e, "a by_rank variant has no \"seq\"");
    if (!(out->v[i].ranks = parse_ranks(r, rk)) || parse_seq(r, sq, &out->v[i].seq)) return -1;
  }
  return 0;
}

/* The sequence of `rank` (NULL: none). */
static const dseq *vset_find(const dvset *v, int32_t rank) {
  if (!v->by_rank) return v->n ? &v->v[0].seq : NULL;
  for (uint32_t i = 0; i < v->n; i++)
    if (has_rank(v->v[i].ranks, rank)) return &v->v[i].seq;
  return NULL;
}

/* ---- counts, nodes, edges */

static int parse_count(rd *r, const json *obj, const char *what, dcount *c) {
  const json *t = member(r, obj, "count", JSON_INT, what);
  if (!t) return -1;
  if (t->i < 0) return bad(r, t, "%s: a negative count", what);
  c->total = (uint64_t)t->i;
  if (r->d->one_rank >= 0) return 0;
  const json *cs = member(r, obj, "counts", JSON_ARR, what);
  if (!cs) return -1;
  c->n = cs->n;
  c->count = dalloc(r, cs->n * sizeof *c->count);
  c->ranks = dalloc(r, cs->n * sizeof *c->ranks);
  if (!c->count || !c->ranks) return -1;
  for (uint32_t i = 0; i < cs->n; i++) {
    const json *p = &cs->a[i];
    if (p->type != JSON_ARR || p->n != 2 || p->a[0].type != JSON_INT || p->a[0].i < 0)
      return bad(r, p, "%s: \"counts\" holds [count, \"ranks\"] pairs", what);
    c->count[i] = (uint64_t)p->a[0].i;
    if (!(c->ranks[i] = parse_ranks(r, &p->a[1]))) return -1;
  }
  return 0;
}

/* The count on `rank` (0 when it has none). */
static uint64_t count_of(const tf_efg_doc *d, const dcount *c, int32_t rank) {
  if (d->one_rank >= 0) return c->total;
  for (uint32_t i = 0; i < c->n; i++)
    if (has_rank(c->ranks[i], rank)) return c->count[i];
  return 0;
}

static int parse_structure(rd *r, const json *arr, const dranks *parent, dstruct **out, uint32_t *n, int depth) {
  tf_efg_doc *d = r->d;
  if (depth > TF_FOLD_MAXDEPTH + 1) return bad(r, arr, "loops nested deeper than %d", TF_FOLD_MAXDEPTH);
  *n = arr->n;
  if (!(*out = dalloc(r, arr->n * sizeof **out))) return -1;
  for (uint32_t i = 0; i < arr->n; i++) {
    const json *x = &arr->a[i];
    dstruct *s = &(*out)[i];
    if (x->type != JSON_OBJ) return bad(r, x, "a structure item is %s, not an object", json_type_name(x->type));
    s->index = d->nitems++;
    s->ranks = parent;
    const json *rk = json_get(x, "ranks");
    if (rk && !(s->ranks = parse_ranks(r, rk))) return -1;
    const json *loop = json_get(x, "loop");
    if (loop) {
      s->is_loop = 1;
      const json *it = json_get(x, "iters");
      if (!it) return bad(r, x, "a loop has no \"iters\"");
      if (loop->type != JSON_ARR) return bad(r, loop, "\"loop\" is %s, not an array", json_type_name(loop->type));
      if (!loop->n) return bad(r, loop, "a loop with an empty body");
      if (parse_vset(r, it, &s->count)) return -1;
      if (parse_structure(r, loop, s->ranks, &s->body, &s->nbody, depth + 1)) return -1;
      continue;
    }
    if (get_u32(r, x, "n", d->nnodes, "a structure event", &s->node)) return -1;
    const json *nv = json_get(x, "nvals"), *sl = member(r, x, "slots", JSON_ARR, "a structure event");
    if (!sl) return -1;
    if (!nv) return bad(r, x, "a structure event has no \"nvals\"");
    if (parse_vset(r, nv, &s->count)) return -1;
    s->nslots = sl->n;
    if (sl->n > d->maxslots) d->maxslots = sl->n;
    if (!(s->slots = dalloc(r, sl->n * sizeof *s->slots))) return -1;
    for (uint32_t j = 0; j < sl->n; j++)
      if (parse_vset(r, &sl->a[j], &s->slots[j])) return -1;
  }
  return 0;
}

static int field_kind(const char *name) {
  for (unsigned k = 0; k < TF_FIELD_KIND_COUNT; k++)
    if (strcmp(tf_field_kind_name(k), name) == 0) return (int)k;
  return -1;
}

static int parse_doc(rd *r, const json *root) {
  tf_efg_doc *d = r->d;
  if (root->type != JSON_OBJ) return bad(r, root, "the document is %s, not an object", json_type_name(root->type));
  const json *fmt = json_get(root, "format");
  if (!fmt || fmt->type != JSON_STR || strcmp(fmt->s, "tracefold-efg") != 0)
    return bad(r, fmt ? fmt : root, "\"format\" is not \"tracefold-efg\"");
  const json *ver = member(r, root, "version", JSON_INT, "the document");
  if (!ver) return -1;
  if (ver->i != 1) return bad(r, ver, "version %" PRId64 " (this reader knows version 1)", ver->i);
  const json *nr = member(r, root, "nranks", JSON_INT, "the document");
  if (!nr) return -1;
  if (nr->i < 1 || nr->i > INT32_MAX) return bad(r, nr, "\"nranks\" is %" PRId64, nr->i);
  d->nranks = (int32_t)nr->i;
  const json *one = json_get(root, "rank");
  d->one_rank = -1;
  if (one) {
    if (one->type != JSON_INT || one->i < 0 || one->i >= d->nranks) return bad(r, one, "\"rank\" is not a rank of the run");
    d->one_rank = (int32_t)one->i;
    if (!(d->all.r = dalloc(r, sizeof *d->all.r))) return -1;
    d->all.r[0] = d->one_rank;
    d->all.n = 1;
  } else {
    const json *rk = member(r, root, "ranks", JSON_STR, "the document (without \"rank\")");
    const dranks *a = rk ? parse_ranks(r, rk) : NULL;
    if (!a) return -1;
    d->all = *a;
  }

  const json *fs = member(r, root, "functions", JSON_ARR, "the document");
  if (!fs) return -1;
  d->nfuncs = fs->n;
  if (!(d->funcs = dalloc(r, fs->n * sizeof *d->funcs))) return -1;
  for (uint32_t i = 0; i < fs->n; i++) {
    const json *f = &fs->a[i], *nm = member(r, f, "name", JSON_STR, "a function");
    const json *fl = nm ? member(r, f, "fields", JSON_ARR, "a function") : NULL;
    if (!fl) return -1;
    tf_field_desc *fd = dalloc(r, fl->n * sizeof *fd);
    if (!fd) return -1;
    for (uint32_t j = 0; j < fl->n; j++) {
      const json *e = &fl->a[j];
      int kind = e->type == JSON_ARR && e->n == 3 && e->a[0].type == JSON_STR && e->a[1].type == JSON_STR &&
                         e->a[2].type == JSON_INT
                     ? field_kind(e->a[1].s)
                     : -2;
      if (kind == -2) return bad(r, e, "a field is [\"name\", \"kind\", is_array]");
      if (kind < 0) return bad(r, &e->a[1], "unknown field kind \"%s\"", e->a[1].s);
      fd[j] = (tf_field_desc){.name = e->a[0].s, .kind = (uint8_t)kind, .is_array = e->a[2].i != 0};
    }
    d->funcs[i] = (tf_func_desc){.name = nm->s, .nfields = fl->n, .fields = fd};
  }
  const json *cs = member(r, root, "callsites", JSON_ARR, "the document");
  if (!cs) return -1;
  d->nsites = cs->n;
  if (!(d->sigs = dalloc(r, cs->n * sizeof *d->sigs))) return -1;
  for (uint32_t i = 0; i < cs->n; i++) {
    const json *sg = member(r, &cs->a[i], "sig", JSON_STR, "a call site");
    if (!sg) return -1;
    char *end;
    d->sigs[i] = strtoull(sg->s, &end, 16);
    if (strlen(sg->s) != 16 || *end) return bad(r, sg, "a call-site signature is 16 hexadecimal digits");
  }
  const json *ns = member(r, root, "nodes", JSON_ARR, "the document");
  if (!ns) return -1;
  d->nnodes = ns->n;
  if (!(d->nodes = dalloc(r, ns->n * sizeof *d->nodes))) return -1;
  for (uint32_t i = 0; i < ns->n; i++) {
    const json *x = &ns->a[i];
    dnode *n = &d->nodes[i];
    uint32_t site;
    if (get_u32(r, x, "fn", d->nfuncs, "a node", &n->fn) || get_u32(r, x, "thread", 1u << 16, "a node", &n->thread) ||
        get_u32(r, x, "site", d->nsites, "a node", &site) || parse_count(r, x, "a node", &n->occ))
      return -1;
    n->sig = d->sigs[site];
  }
  const json *in = member(r, root, "initial", JSON_ARR, "the document");
  if (!in) return -1;
  d->ninits = in->n;
  if (!(d->inits = dalloc(r, in->n * sizeof *d->inits))) return -1;
  for (uint32_t i = 0; i < in->n; i++) {
    const json *x = &in->a[i];
    dinit *t = &d->inits[i];
    if (get_u32(r, x, "thread", 1u << 16, "an initial node", &t->thread) ||
        get_u32(r, x, "node", d->nnodes, "an initial node", &t->node))
      return -1;
    if (d->one_rank < 0) {
      const json *rk = member(r, x, "ranks", JSON_STR, "an initial node");
      if (!rk || !(t->ranks = parse_ranks(r, rk))) return -1;
    }
  }
  const json *es = member(r, root, "edges", JSON_ARR, "the document");
  if (!es) return -1;
  d->nedges = es->n;
  if (!(d->edges = dalloc(r, es->n * sizeof *d->edges))) return -1;
  for (uint32_t i = 0; i < es->n; i++) {
    const json *x = &es->a[i];
    dedge *e = &d->edges[i];
    if (get_u32(r, x, "from", d->nnodes, "an edge", &e->from) || get_u32(r, x, "to", d->nnodes, "an edge", &e->to) ||
        parse_count(r, x, "an edge", &e->cnt))
      return -1;
    if (d->nodes[e->from].thread != d->nodes[e->to].thread)
      return bad(r, x, "an edge joins nodes of two threads (%u and %u)", d->nodes[e->from].thread,
                 d->nodes[e->to].thread);
    uint64_t key = (uint64_t)e->from << 32 | e->to;
    if (efg_map_get(&d->edgemap, key) != EFG_NONE) return bad(r, x, "the edge %u -> %u twice", e->from, e->to);
    if (efg_map_put(&d->edgemap, key, i)) return bad(r, NULL, "out of memory");
  }
  const json *st = json_get(root, "structure");
  if (st) {
    if (st->type != JSON_ARR) return bad(r, st, "\"structure\" is %s, not an array", json_type_name(st->type));
    d->has_structure = 1;
    if (parse_structure(r, st, &d->all, &d->top, &d->ntop, 0)) return -1;
  }
  const json *ord = json_get(root, "order");
  if (ord) {
    static const char *const key[3] = {"sizes", "runs", "lengths"};
    if (ord->type != JSON_OBJ) return bad(r, ord, "\"order\" is %s, not an object", json_type_name(ord->type));
    for (int k = 0; k < 3; k++) {
      const json *v = json_get(ord, key[k]);
      if (!v) return bad(r, ord, "\"order\" has no \"%s\"", key[k]);
      if (parse_vset(r, v, &d->order[k])) return -1;
      for (uint32_t i = 0; i < d->order[k].n; i++) /* a bare number would repeat without end */
        if (d->order[k].v[i].seq.constant) return bad(r, v, "\"order\": \"%s\" is a number, not a list", key[k]);
    }
  }
  return 0;
}

tf_status tf_efg_doc_parse(const char *text, size_t len, const char *name, tf_efg_doc **out, char *err,
                           size_t errlen) {
  *out = NULL;
  tf_efg_doc *d = calloc(1, sizeof *d);
  if (!d) {
    snprintf(err, errlen, "%s: out of memory", name);
    return TF_ERR_NOMEM;
  }
  d->name = name;
  d->text = text;
  const json *root;
  if (json_parse(text, len, name, &d->json, &root, err, errlen)) {
    tf_efg_doc_free(d);
    return strstr(err, "out of memory") ? TF_ERR_NOMEM : TF_ERR_FORMAT;
  }
  rd r = {.d = d, .err = err, .errlen = errlen};
  if (parse_doc(&r, root)) {
    tf_efg_doc_free(d);
    return strstr(err, "out of memory") ? TF_ERR_NOMEM : TF_ERR_FORMAT;
  }
  d->text = NULL; /* the caller's: positions are not needed after this */
  *out = d;
  return TF_OK;
}

void tf_efg_doc_free(tf_efg_doc *d) {
  if (!d) return;
  for (uint32_t i = 0; i < d->nallocs; i++) free(d->allocs[i]);
  free(d->allocs);
  efg_map_free(&d->edgemap);
  json_free(d->json);
  free(d);
}

int tf_efg_doc_ranks(const tf_efg_doc *d, const int32_t **ranks) {
  *ranks = d->all.r;
  return (int)d->all.n;
}

int tf_efg_doc_has_structure(const tf_efg_doc *d) { return d->has_structure; }

/* ------------------------------------------------------------ regeneration */

typedef struct dlevel {
  const ditem *items;
  uint32_t n, i;
  uint64_t k;
  uint64_t offset;
} dlevel;

typedef struct diter {
  const dseq *s; /* NULL: the rank has no such sequence */
  uint32_t depth;
  dlevel *lv;    /* s->depth + 1 levels */
} diter;

static void iter_init(diter *it, const dseq *s) {
  it->s = s;
  it->depth = 0;
  if (s && s->n && !s->constant) {
    it->lv[0] = (dlevel){.items = s->items, .n = s->n};
    it->depth = 1;
  }
}

/* 1 and *v, or 0 at the end. Arithmetic modulo 2^64, as the trace's. */
static int iter_next(diter *it, int64_t *v) {
  if (it->s && it->s->constant) {
    *v = it->s->value;
    return 1;
  }
  while (it->depth > 0) {
    dlevel *L = &it->lv[it->depth - 1];
    if (L->i == L->n) {
      if (--it->depth == 0) return 0;
      dlevel *P = &it->lv[it->depth - 1];
      if (++P->k == P->items[P->i].count) {
        P->i++;
        P->k = 0;
      }
      continue;
    }
    const ditem *x = &L->items[L->i];
    if (!x->nbody) {
      *v = (int64_t)(L->offset + (uint64_t)x->base + (uint64_t)x->step * L->k);
      if (++L->k == x->count) {
        L->i++;
        L->k = 0;
      }
      return 1;
    }
    it->lv[it->depth++] = (dlevel){.items = x->body, .n = x->nbody, .offset = L->offset + (uint64_t)x->step * L->k};
  }
  return 0;
}

typedef struct held_event {
  uint32_t node, nvals;
  uint64_t at; /* its values in the pool */
} held_event;

typedef struct regen {
  const tf_efg_doc *d;
  int32_t rank;
  diter **it; /* per structure item (index): [0] counts, [1 + j] slot j; NULL until first used */
  int64_t *vals;
  tf_req_transform codec;
  uint32_t *prev;      /* per thread: the last node, EFG_NONE before its first event */
  uint32_t *firstnode; /* per thread: its first node */
  uint32_t nthreads;
  uint64_t *ecount, *ncount; /* per edge / node: counted on this rank */
  uint64_t *want;            /* per node: the graph's count on this rank (regeneration stops beyond it) */
  uint64_t nevents;
  tf_efg_event_fn fn;
  void *arg;
  int stop;
  /* a rank with several streams: its events are regenerated stream after
   * stream into `held` (values as stored), then given out in the order of
   * its runs (streams.h), where the request transform is undone */
  int streams;
  held_event *held;
  uint64_t nheld, capheld;
  int64_t *pool;
  uint64_t npool, cappool;
  char *err;
  size_t errlen;
} regen;

static int rfail(regen *g, const char *fmt, ...) {
  char what[500];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(g->err, g->errlen, "%s: rank %" PRId32 ": %s", g->d->name, g->rank, what);
  return -1;
}

/* The item's readers (one allocation: the readers, then their levels). */
static diter *iters_of(regen *g, const dstruct *s) {
  if (g->it[s->index]) return g->it[s->index];
  uint32_t k = s->is_loop ? 1 : 1 + s->nslots;
  const dseq *q[k];
  size_t levels = 0;
  for (uint32_t j = 0; j < k; j++) {
    q[j] = vset_find(j ? &s->slots[j - 1] : &s->count, g->rank);
    levels += q[j] ? q[j]->depth + 1 : 0;
  }
  diter *it = malloc(k * sizeof *it + levels * sizeof(dlevel));
  if (!it) return NULL;
  dlevel *lv = (dlevel *)(it + k);
  for (uint32_t j = 0; j < k; j++) {
    it[j].lv = lv;
    lv += q[j] ? q[j]->depth + 1 : 0;
    iter_init(&it[j], q[j]);
  }
  return g->it[s->index] = it;
}

/* An event to the caller's function. */
static int give(regen *g, uint32_t node, const int64_t *vals, uint32_t nv) {
  if (!g->fn) return 0;
  const dnode *n = &g->d->nodes[node];
  tf_efg_event ev = {
      .fd = &g->d->funcs[n->fn], .thread = n->thread, .callsite = n->sig, .nvals = nv, .vals = vals, .node = node};
  int rc = g->fn(&ev, g->arg);
  if (rc) {
    g->stop = rc;
    return -1;
  }
  return 0;
}

/* An event (its values in g->vals, as stored) kept for later. */
static int hold(regen *g, uint32_t node, uint32_t nv) {
  if (g->nheld == g->capheld) {
    uint64_t cap = g->capheld ? 2 * g->capheld : 256;
    held_event *h = realloc(g->held, cap * sizeof *h);
    if (!h) return rfail(g, "out of memory");
    g->held = h;
    g->capheld = cap;
  }
  while (g->npool + nv > g->cappool) {
    uint64_t cap = g->cappool ? 2 * g->cappool : 1024;
    int64_t *p = realloc(g->pool, cap * sizeof *p);
    if (!p) return rfail(g, "out of memory");
    g->pool = p;
    g->cappool = cap;
  }
  if (nv) memcpy(g->pool + g->npool, g->vals, nv * sizeof *g->vals); /* (no pool yet for an event without values) */
  g->held[g->nheld++] = (held_event){.node = node, .nvals = nv, .at = g->npool};
  g->npool += nv;
  return 0;
}

static int emit(regen *g, const dstruct *s, diter *it) {
  const tf_efg_doc *d = g->d;
  const dnode *n = &d->nodes[s->node];
  int64_t v;
  if (!it[0].s) return rfail(g, "structure item %u (node %u) has no value counts for this rank", s->index, s->node);
  if (!iter_next(&it[0], &v)) return rfail(g, "node %u: its value counts run out", s->node);
  if (v < 0 || (uint64_t)v > s->nslots)
    return rfail(g, "node %u: an occurrence with %" PRId64 " values, the item has %u value positions", s->node, v,
                 s->nslots);
  uint32_t nv = (uint32_t)v;
  for (uint32_t j = 0; j < nv; j++) {
    if (!it[1 + j].s) return rfail(g, "node %u: value position %u has no values for this rank", s->node, j);
    if (!iter_next(&it[1 + j], &g->vals[j])) return rfail(g, "node %u: value position %u runs out", s->node, j);
  }
  const tf_func_desc *fd = &d->funcs[n->fn];
  if (!g->streams && tf_req_transform_undo(&g->codec, fd, g->vals, nv))
    return rfail(g, "node %u: %u values do not fit %s's fields", s->node, nv, fd->name);
  /* the step through the graph */
  uint32_t th = n->thread;
  if (th >= g->nthreads) return rfail(g, "node %u: thread %u beyond the graph's threads", s->node, th);
  if (g->prev[th] == EFG_NONE) {
    g->firstnode[th] = s->node;
  } else {
    uint32_t e = efg_map_get(&d->edgemap, (uint64_t)g->prev[th] << 32 | s->node);
    if (e == EFG_NONE)
      return rfail(g, "event %" PRIu64 ": thread %u goes from node %u to node %u, which is not an edge", g->nevents,
                   th, g->prev[th], s->node);
    g->ecount[e]++;
  }
  g->prev[th] = s->node;
  if (++g->ncount[s->node] > g->want[s->node])
    return rfail(g, "node %u: more events than the graph's count for this rank (%" PRIu64 ")", s->node,
                 g->want[s->node]);
  g->nevents++;
  if (g->streams) return hold(g, s->node, nv);
  return give(g, s->node, g->vals, nv);
}

static int regen_list(regen *g, const dstruct *items, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const dstruct *s = &items[i];
    if (!has_rank(s->ranks, g->rank)) continue;
    diter *it = iters_of(g, s);
    if (!it) return rfail(g, "out of memory");
    if (!s->is_loop) {
      if (emit(g, s, it)) return -1;
      continue;
    }
    int64_t c;
    if (!it[0].s) return rfail(g, "structure item %u (a loop) has no iteration counts for this rank", s->index);
    if (!iter_next(&it[0], &c)) return rfail(g, "structure item %u: its iteration counts run out", s->index);
    if (c < 1) return rfail(g, "structure item %u: an iteration count of %" PRId64, s->index, c);
    for (int64_t k = 0; k < c; k++) {
      uint64_t before = g->nevents;
      if (regen_list(g, s->body, s->nbody)) return -1;
      if (g->nevents == before) return rfail(g, "structure item %u: a loop with no events for this rank", s->index);
    }
  }
  return 0;
}

/* Every sequence the rank used read to its end. */
static int all_read(regen *g, const dstruct *items, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const dstruct *s = &items[i];
    if (!has_rank(s->ranks, g->rank)) continue;
    diter *it = g->it[s->index];
    int64_t v;
    if (!it) return rfail(g, "structure item %u is never reached", s->index);
    for (uint32_t j = 0; j < (s->is_loop ? 1u : 1 + s->nslots); j++)
      if (!(it[j].s && it[j].s->constant) && iter_next(&it[j], &v))
        return rfail(g, "structure item %u: %s holds values no event uses", s->index,
                     s->is_loop ? "its iteration counts" : j ? "a value position" : "its value counts");
    if (s->is_loop && all_read(g, s->body, s->nbody)) return -1;
  }
  return 0;
}

/* The transitions, node counts and initial nodes counted against the graph's. */
static int check_graph(regen *g) {
  const tf_efg_doc *d = g->d;
  for (uint32_t e = 0; e < d->nedges; e++) {
    uint64_t want = count_of(d, &d->edges[e].cnt, g->rank);
    if (want != g->ecount[e])
      return rfail(g, "edge %u -> %u: the graph says %" PRIu64 " transitions, the regenerated events make %" PRIu64,
                   d->edges[e].from, d->edges[e].to, want, g->ecount[e]);
  }
  for (uint32_t i = 0; i < d->nnodes; i++) {
    uint64_t want = count_of(d, &d->nodes[i].occ, g->rank);
    if (want != g->ncount[i])
      return rfail(g, "node %u: the graph says %" PRIu64 " events, the regenerated events make %" PRIu64, i, want,
                   g->ncount[i]);
  }
  for (uint32_t th = 0; th < g->nthreads; th++) {
    uint32_t found = EFG_NONE;
    for (uint32_t k = 0; k < d->ninits; k++)
      if (d->inits[k].thread == th && (!d->inits[k].ranks || has_rank(d->inits[k].ranks, g->rank))) {
        if (found != EFG_NONE) return rfail(g, "thread %u has two initial nodes", th);
        found = d->inits[k].node;
      }
    uint32_t got = g->prev[th] == EFG_NONE ? EFG_NONE : g->firstnode[th];
    if (found != got)
      return rfail(g, "thread %u: the graph's initial node is %s%d, the regenerated events start at %s%d", th,
                   found == EFG_NONE ? "none " : "", found == EFG_NONE ? -1 : (int)found,
                   got == EFG_NONE ? "none " : "", got == EFG_NONE ? -1 : (int)got);
  }
  return 0;
}

/* A reader of the rank's order sequence k (NULL: none; free it). */
static diter *order_iter(regen *g, int k) {
  const dseq *q = vset_find(&g->d->order[k], g->rank);
  diter *it = malloc(sizeof *it + ((q ? q->depth : 0) + 1) * sizeof(dlevel));
  if (!it) return NULL;
  it->lv = (dlevel *)(it + 1);
  iter_init(it, q);
  return it;
}

/* A rank with several streams: the top-level items stream after stream
 * (each stream's share from `sizes`, the last one the rest), held, then
 * given out run by run (`runs`, and `lengths` but for the last run, which
 * takes the events left). */
static int regen_streams(regen *g, diter *sizes) {
  const tf_efg_doc *d = g->d;
  uint64_t *start = NULL, nstreams = 0, cap = 0, left = 0;
  int64_t v;
  int more = 1, rc = 0;
  for (uint32_t i = 0; !rc && i <= d->ntop; i++) {
    if (i < d->ntop && !has_rank(d->top[i].ranks, g->rank)) continue;
    /* the streams that begin here: empty ones, then the one this item is in */
    while (!rc && (i == d->ntop ? more : !left && more)) {
      if (nstreams == cap) {
        cap = cap ? 2 * cap : 8;
        uint64_t *s = realloc(start, cap * sizeof *s);
        if (!s) {
          rc = rfail(g, "out of memory");
          break;
        }
        start = s;
      }
      start[nstreams++] = g->nheld;
      if (nstreams > TF_STREAMS_MAX) rc = rfail(g, "more streams than a reader accepts");
      more = iter_next(sizes, &v);
      if (more && v < 0) rc = rfail(g, "a stream of %" PRId64 " nodes", v);
      left = more ? (uint64_t)v : UINT64_MAX; /* the last stream takes the rest */
      if (i == d->ntop) break;
    }
    if (rc || i == d->ntop) break;
    if (!left) {
      rc = rfail(g, "more top-level items than its streams' sizes");
      break;
    }
    left--;
    rc = regen_list(g, &d->top[i], 1);
  }
  if (!rc && more) rc = rfail(g, "its streams' sizes name more top-level items than it has");
  diter *runs = rc ? NULL : order_iter(g, 1), *lengths = rc ? NULL : order_iter(g, 2);
  uint64_t *at = rc ? NULL : malloc((nstreams + 1) * sizeof *at), given = 0;
  if (!rc && (!runs || !lengths || !at)) rc = rfail(g, "out of memory");
  for (uint64_t s = 0; !rc && s < nstreams; s++) at[s] = start[s];
  int64_t run, len;
  while (!rc && iter_next(runs, &run)) {
    if (run < 0 || (uint64_t)run >= nstreams) {
      rc = rfail(g, "a run of stream %" PRId64 ", it has %" PRIu64 " streams", run, nstreams);
      break;
    }
    uint64_t end = (uint64_t)run + 1 < nstreams ? start[run + 1] : g->nheld;
    uint64_t n = iter_next(lengths, &len) ? (uint64_t)len : g->nheld - given;
    for (uint64_t k = 0; !rc && k < n; k++) {
      if (at[run] >= end) {
        rc = rfail(g, "a run of stream %" PRId64 " beyond its events", run);
        break;
      }
      const held_event *h = &g->held[at[run]++];
      const tf_func_desc *fd = &d->funcs[d->nodes[h->node].fn];
      int64_t *vals = g->pool + h->at;
      if (tf_req_transform_undo(&g->codec, fd, vals, h->nvals))
        rc = rfail(g, "node %u: %u values do not fit %s's fields", h->node, h->nvals, fd->name);
      else
        rc = give(g, h->node, vals, h->nvals);
      given++;
    }
  }
  if (!rc && given != g->nheld)
    rc = rfail(g, "its runs give out %" PRIu64 " of its %" PRIu64 " events", given, g->nheld);
  free(runs);
  free(lengths);
  free(at);
  free(start);
  return rc;
}

int tf_efg_doc_regenerate(const tf_efg_doc *d, int32_t rank, tf_efg_event_fn fn, void *arg, uint64_t *nevents,
                          char *err, size_t errlen) {
  regen g = {.d = d, .rank = rank, .fn = fn, .arg = arg, .err = err, .errlen = errlen};
  if (nevents) *nevents = 0;
  if (!d->has_structure) return rfail(&g, "the graph has no \"structure\" (written without it): nothing to regenerate");
  if (!has_rank(&d->all, rank)) return rfail(&g, "not a rank of this graph");
  for (uint32_t i = 0; i < d->nnodes; i++)
    if (d->nodes[i].thread + 1 > g.nthreads) g.nthreads = d->nodes[i].thread + 1;
  g.it = calloc(d->nitems + 1, sizeof *g.it);
  g.vals = malloc((d->maxslots + 1) * sizeof *g.vals);
  g.prev = malloc((g.nthreads + 1) * sizeof *g.prev);
  g.firstnode = malloc((g.nthreads + 1) * sizeof *g.firstnode);
  g.ecount = calloc(d->nedges + 1, sizeof *g.ecount);
  g.ncount = calloc(d->nnodes + 1, sizeof *g.ncount);
  g.want = calloc(d->nnodes + 1, sizeof *g.want);
  int rc = 0;
  if (!g.it || !g.vals || !g.prev || !g.firstnode || !g.ecount || !g.ncount || !g.want) {
    rc = rfail(&g, "out of memory");
  } else {
    for (uint32_t i = 0; i < d->nnodes; i++) g.want[i] = count_of(d, &d->nodes[i].occ, rank);
    for (uint32_t t = 0; t < g.nthreads; t++) g.prev[t] = g.firstnode[t] = EFG_NONE;
    diter *sizes = order_iter(&g, 0), *runs = order_iter(&g, 1);
    int64_t v;
    g.streams = sizes && runs && iter_next(runs, &v); /* runs are empty for a rank with one stream */
    free(runs);
    if (!sizes)
      rc = rfail(&g, "out of memory");
    else if (g.streams)
      rc = regen_streams(&g, sizes);
    else
      rc = regen_list(&g, d->top, d->ntop);
    free(sizes);
    if (!rc) rc = all_read(&g, d->top, d->ntop);
    if (!rc) rc = check_graph(&g);
  }
  if (g.stop) rc = g.stop;
  if (nevents) *nevents = g.nevents;
  for (uint32_t i = 0; g.it && i < d->nitems; i++) free(g.it[i]);
  free(g.it);
  free(g.vals);
  free(g.prev);
  free(g.firstnode);
  free(g.ecount);
  free(g.ncount);
  free(g.want);
  free(g.held);
  free(g.pool);
  return rc;
}
