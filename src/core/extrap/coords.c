/* coords.c — value groups as affine functions of rank coordinates
 * (coords.h): split a value set into entries, expand a class at the target. */
#include "extrap/coords.h"

#include <stdlib.h>
#include <string.h>

#include "extrap/fit.h"
#include "merge/ranklist.h"

/* Coordinates of rank r, row-major over dims[0..nd): x = (1, c0, .., c_nd-1). */
static void rank_features(int64_t r, int nd, const int64_t *dims, int64_t *x) {
  x[0] = 1;
  for (int d = nd - 1; d >= 0; d--) {
    x[1 + d] = r % dims[d];
    r /= dims[d];
  }
}

/* The values of s in a new array (*n of them), or NULL. */
static int64_t *values_of(const tf_vseq *s, uint64_t *n) {
  *n = s->nvalues;
  int64_t *out = malloc((s->nvalues ? s->nvalues : 1) * sizeof *out);
  tf_vseq_iter *it = malloc(tf_vseq_iter_size(s));
  if (!out || !it) {
    free(out);
    free(it);
    return NULL;
  }
  tf_vseq_iter_init(it, s);
  uint64_t k = 0;
  while (k < *n && tf_vseq_iter_next(it, &out[k])) k++;
  *n = k;
  free(it);
  return out;
}

typedef struct points { /* (features, value) of every rank of a class so far */
  int64_t *x, *y;
  uint64_t n, cap;
} points;

static int add_points(points *p, const tf_vseq *ranks, int64_t value, int nd, const int64_t *dims) {
  uint64_t nr;
  int64_t *r = values_of(ranks, &nr);
  if (!r) return -1;
  if (p->n + nr > p->cap) {
    uint64_t cap = 2 * (p->n + nr);
    int64_t *x = realloc(p->x, cap * (1 + TF_TOPO_MAXDIMS) * sizeof *x);
    if (x) p->x = x;
    int64_t *y = x ? realloc(p->y, cap * sizeof *y) : NULL;
    if (!y) {
      free(r);
      return -1;
    }
    p->y = y;
    p->cap = cap;
  }
  for (uint64_t i = 0; i < nr; i++, p->n++) {
    rank_features(r[i], nd, dims, &p->x[p->n * (uint64_t)(1 + nd)]);
    p->y[p->n] = value;
  }
  free(r);
  return 0;
}

/* The class's values fit an affine form: 1 and coef, 0, or -1. */
static int fit_points(const points *p, int nd, int64_t *coef) {
  if (p->n > UINT32_MAX) return 0;
  return tf_fit_affine(p->x, p->y, (uint32_t)p->n, (uint32_t)(1 + nd), coef);
}

static int by_rank(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* out: the ranks of the groups of v whose member[] is entry, in
 * increasing order (a rank list). */
static int union_of(tf_vseq *out, const tf_vset *v, const uint32_t *member, uint32_t entry, tf_mem *m) {
  uint64_t total = 0, at = 0, groups = 0;
  for (uint32_t g = 0; g < v->n; g++) total += member[g] == entry ? v->ranks[g].nvalues : 0;
  for (uint32_t g = 0; g < v->n; g++) groups += member[g] == entry;
  for (uint32_t g = 0; g < v->n && groups == 1; g++) /* one group: its list as it is */
    if (member[g] == entry) return tf_vseq_copy(out, &v->ranks[g], m);
  int64_t *all = malloc((total ? total : 1) * sizeof *all);
  if (!all) return -1;
  for (uint32_t g = 0; g < v->n; g++) {
    if (member[g] != entry) continue;
    uint64_t nr;
    int64_t *r = values_of(&v->ranks[g], &nr);
    if (!r) {
      free(all);
      return -1;
    }
    for (uint64_t i = 0; i < nr && at < total; i++) all[at++] = r[i];
    free(r);
  }
  qsort(all, at, sizeof *all, by_rank);
  for (uint64_t i = 0; i < at; i++) tf_vseq_push(out, all[i], m);
  tf_vseq_seal(out, m);
  free(all);
  return 0;
}

void tf_coord_free(tf_coord_entry *e, uint32_t n, tf_mem *m) {
  for (uint32_t i = 0; i < n; i++) {
    tf_vseq_free(&e[i].ranks, m);
    tf_vseq_free(&e[i].shape, m);
  }
  free(e);
}

/* Group g (one value, `value`, throughout) joins class x if the class's
 * values stay affine with it: 1, 0, or -1 (out of memory). */
static int try_join(tf_coord_entry *x, points *p, const tf_vset *v, uint32_t g, int64_t value, int nd,
                    const int64_t *dims, tf_mem *m) {
  if (v->seq[g].nvalues != x->shape.nvalues) return 0;
  tf_vseq shape = {0};
  tf_vseq_append_items(&shape, &v->seq[g], -value, m);
  int same = tf_vseq_equal(&shape, &x->shape);
  tf_vseq_free(&shape, m);
  if (!same) return 0;
  uint64_t was = p->n;
  int64_t coef[1 + TF_TOPO_MAXDIMS];
  if (add_points(p, &v->ranks[g], value, nd, dims)) return -1;
  int fit = fit_points(p, nd, coef);
  if (fit != 1) {
    p->n = was;
    return fit;
  }
  memcpy(x->coef, coef, sizeof coef);
  return 1;
}

int tf_coord_split(const tf_vset *v, int nd, const int64_t *dims, int wide, tf_coord_entry **out, uint32_t *n,
                   tf_mem *m) {
  tf_coord_entry *e = calloc(v->n ? v->n : 1, sizeof *e);
  points *p = calloc(v->n ? v->n : 1, sizeof *p);     /* per entry */
  uint32_t *member = calloc(v->n ? v->n : 1, sizeof *member); /* group -> entry */
  uint32_t ne = 0;
  int rc = e && p && member ? 0 : -1;
  for (uint32_t g = 0; g < v->n && !rc; g++) {
    int64_t value;
    int joined = 0;
    int constant = tf_vseq_is_constant(&v->seq[g], &value) && v->seq[g].nvalues;
    int joins = constant && (wide || v->ranks[g].nvalues == 1);
    for (uint32_t j = 0; joins && j < ne && !joined; j++) /* the first class it fits */
      if (e[j].is_class && (wide || v->ranks[e[j].first].nvalues == 1) && (joined = try_join(&e[j], &p[j], v, g, value, nd, dims, m)) == 1) member[g] = j;
    if (joined < 0) rc = -1;
    if (joined) continue;
    tf_coord_entry *x = &e[ne];
    member[g] = ne;
    x->first = g;
    if (constant) {
      x->is_class = 1;
      tf_vseq_append_items(&x->shape, &v->seq[g], -value, m);
      if (add_points(&p[ne], &v->ranks[g], value, nd, dims) || fit_points(&p[ne], nd, x->coef) != 1) rc = -1;
    }
    ne++;
  }
  for (uint32_t j = 0; j < ne && !rc; j++) {
    if (e[j].is_class) rc = union_of(&e[j].ranks, v, member, j, m);
  }
  for (uint32_t j = 0; p && j < ne; j++) {
    free(p[j].x);
    free(p[j].y);
  }
  free(p);
  free(member);
  if (rc || m->failed) {
    if (e) tf_coord_free(e, ne, m);
    return -1;
  }
  *out = e;
  *n = ne;
  return 0;
}

typedef struct rank_value {
  int64_t value, rank;
} rank_value;

static int by_value_then_rank(const void *a, const void *b) {
  const rank_value *x = a, *y = b;
  if (x->value != y->value) return x->value < y->value ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* rv by value, then rank. A counting sort (linear: the values of a
 * class over a grid span about as many numbers as it has ranks) when
 * the ranks come increasing and the span is small; else qsort. 0 or -1. */
static int sort_by_value(rank_value *rv, uint64_t n) {
  int64_t lo = n ? rv[0].value : 0, hi = lo;
  int increasing = 1;
  for (uint64_t i = 1; i < n; i++) {
    lo = rv[i].value < lo ? rv[i].value : lo;
    hi = rv[i].value > hi ? rv[i].value : hi;
    increasing &= rv[i].rank > rv[i - 1].rank;
  }
  uint64_t span = n ? (uint64_t)hi - (uint64_t)lo + 1 : 0;
  if (!increasing || n < 64 || span > 4 * n) {
    qsort(rv, n, sizeof *rv, by_value_then_rank);
    return 0;
  }
  uint64_t *at = calloc(span + 1, sizeof *at); /* first slot of each value */
  rank_value *sorted = at ? malloc(n * sizeof *sorted) : NULL;
  if (!sorted) {
    free(at);
    return -1;
  }
  for (uint64_t i = 0; i < n; i++) at[(uint64_t)rv[i].value - (uint64_t)lo + 1]++;
  for (uint64_t k = 1; k <= span; k++) at[k] += at[k - 1];
  for (uint64_t i = 0; i < n; i++) sorted[at[(uint64_t)rv[i].value - (uint64_t)lo]++] = rv[i];
  memcpy(rv, sorted, n * sizeof *rv);
  free(sorted);
  free(at);
  return 0;
}

/* Coordinate j of a rank, (r / stride) mod dims[j] (row-major; the first
 * needs no mod), as the stride and modulus of a rule's term. */
static void coord_term(int j, int nd, const int64_t *dims, int64_t *stride, int64_t *mod) {
  *stride = 1;
  for (int f = j + 1; f < nd; f++) *stride *= dims[f];
  *mod = j ? dims[j] : 0;
}

/* A rule (mtrace.h) that gives every rank of rv[0..n) its value less one
 * stored value (in *base): -r (an absolute rank recorded relative), or the
 * coordinates times their coefficients when the class uses one or two
 * (two: a transpose's partner). 1 and *q, or 0. */
static int find_rule(const rank_value *rv, uint64_t n, const int64_t *coef, int nd, const int64_t *dims, tf_vrule *q,
                     int64_t *base) {
  tf_vrule cand[2];
  int64_t cbase[2];
  int nc = 0, used = 0, j[2] = {0, 0};
  cand[nc] = (tf_vrule){-1, 1, 0, 0, 1, 0}, cbase[nc++] = tf_wadd(rv[0].value, rv[0].rank);
  for (int f = 1; f <= nd; f++)
    if (coef[f]) {
      if (used < 2) j[used] = f - 1;
      used++;
    }
  if (used == 1 || used == 2) {
    tf_vrule t = {0};
    t.a = coef[1 + j[0]];
    coord_term(j[0], nd, dims, &t.d, &t.m);
    if (used == 2) {
      t.a2 = coef[1 + j[1]];
      coord_term(j[1], nd, dims, &t.d2, &t.m2);
    }
    cand[nc] = t, cbase[nc++] = coef[0];
  }
  for (int c = 0; c < nc; c++) {
    uint64_t i = 0;
    while (i < n && tf_wadd(cbase[c], tf_vrule_at(&cand[c], rv[i].rank)) == rv[i].value) i++;
    if (i == n) {
      *q = cand[c];
      *base = cbase[c];
      return 1;
    }
  }
  return 0;
}

int tf_coord_expand(tf_vset *v, const tf_vseq *ranks, const tf_vseq *shape, const int64_t *coef, int nd,
                    const int64_t *dims, int rule_ok, tf_mem *m) {
  int constant = 1;
  for (int j = 1; j <= nd; j++) constant &= coef[j] == 0;
  if (constant) { /* one value over the whole class: its rank list as it is */
    tf_vseq seq = {0}, group = {0};
    tf_vseq_append_items(&seq, shape, coef[0], m);
    if (tf_vseq_copy(&group, ranks, m)) {
      tf_vseq_free(&seq, m);
      return -1;
    }
    return tf_vset_add(v, &seq, &group, tf_vseq_hash(&seq), m) || m->failed ? -1 : 0;
  }
  uint64_t nr;
  int64_t *r = values_of(ranks, &nr);
  rank_value *rv = r ? malloc((nr ? nr : 1) * sizeof *rv) : NULL;
  if (!rv) {
    free(r);
    return -1;
  }
  for (uint64_t i = 0; i < nr; i++) {
    int64_t x[1 + TF_TOPO_MAXDIMS];
    rank_features(r[i], nd, dims, x);
    rv[i].rank = r[i];
    rv[i].value = 0;
    for (int j = 0; j <= nd; j++) rv[i].value += coef[j] * x[j];
  }
  free(r);
  tf_vrule rule;
  int64_t base;
  if (rule_ok && nr > 1 && find_rule(rv, nr, coef, nd, dims, &rule, &base)) { /* one pair with the rule */
    tf_vseq seq = {0}, group = {0};
    tf_vseq_append_items(&seq, shape, base, m);
    free(rv);
    if (tf_vseq_copy(&group, ranks, m)) {
      tf_vseq_free(&seq, m);
      return -1;
    }
    return tf_vset_add_rule(v, &seq, &group, tf_vseq_hash(&seq), &rule, m) || m->failed ? -1 : 0;
  }
  if (sort_by_value(rv, nr)) {
    free(rv);
    return -1;
  }
  int rc = 0;
  for (uint64_t i = 0; i < nr && !rc;) {
    tf_vseq seq = {0}, group = {0};
    tf_vseq_append_items(&seq, shape, rv[i].value, m);
    uint64_t j = i;
    for (; j < nr && rv[j].value == rv[i].value; j++) tf_vseq_push(&group, rv[j].rank, m);
    tf_vseq_seal(&group, m);
    uint64_t hash = tf_vseq_hash(&seq);
    rc = tf_vset_add(v, &seq, &group, hash, m);
    i = j;
  }
  free(rv);
  return rc || m->failed ? -1 : 0;
}

static int by_first_rank(const void *a, const void *b) {
  const rank_value *x = a, *y = b;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

int tf_coord_groups(const tf_vseq *per_rank, tf_vset *out, tf_mem *m) {
  uint64_t n;
  int64_t *val = values_of(per_rank, &n);
  rank_value *rv = val ? malloc((n ? n : 1) * sizeof *rv) : NULL;
  rank_value *first = rv ? malloc((n ? n : 1) * sizeof *first) : NULL; /* (value, its first rank) */
  int rc = first ? 0 : -1;
  uint64_t nfirst = 0;
  for (uint64_t r = 0; r < n && !rc; r++) rv[r] = (rank_value){val[r], (int64_t)r};
  if (!rc) qsort(rv, n, sizeof *rv, by_value_then_rank);
  for (uint64_t i = 0; i < n && !rc; i++)
    if (!i || rv[i].value != rv[i - 1].value) first[nfirst++] = (rank_value){rv[i].value, rv[i].rank};
  if (!rc) qsort(first, nfirst, sizeof *first, by_first_rank);
  for (uint64_t g = 0; g < nfirst && !rc; g++) {
    tf_vseq seq = {0}, ranks = {0};
    tf_vseq_push(&seq, first[g].value, m);
    for (uint64_t r = (uint64_t)first[g].rank; r < n; r++)
      if (val[r] == first[g].value) tf_vseq_push(&ranks, (int64_t)r, m);
    tf_vseq_seal(&ranks, m);
    uint64_t hash = tf_vseq_hash(&seq);
    rc = tf_vset_add(out, &seq, &ranks, hash, m);
  }
  free(val);
  free(rv);
  free(first);
  return rc || m->failed ? -1 : 0;
}

int tf_coord_per_rank(const tf_vset *v, int64_t n, tf_vseq *out, tf_mem *m) {
  int64_t *val = calloc(n > 0 ? (size_t)n : 1, sizeof *val);
  if (!val) return -1;
  for (uint32_t g = 0; g < v->n; g++) {
    uint64_t nr;
    int64_t *r = values_of(&v->ranks[g], &nr), value;
    if (!r) {
      free(val);
      return -1;
    }
    if (!tf_vseq_is_constant(&v->seq[g], &value)) value = 0;
    for (uint64_t i = 0; i < nr; i++)
      if (r[i] >= 0 && r[i] < n) val[r[i]] = value;
    free(r);
  }
  for (int64_t r = 0; r < n; r++) tf_vseq_push(out, val[r], m);
  free(val);
  return m->failed ? -1 : 0;
}
