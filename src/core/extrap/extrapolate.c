/* extrapolate.c — walk k merged traces of one program in step and rewrite
 * the one with most ranks into a trace for the target rank count
 * (extrapolate.h): exact fits of the structure, model fits of the times. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "extrap/extrapolate.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/coords.h"
#include "extrap/corners.h"
#include "extrap/fit.h"
#include "extrap/topology.h"
#include "extrap/rankclass.h"
#include "extrap/xorpeer.h"
#include "merge/ranklist.h"

typedef struct parts_cache { /* events' ranks at the target by part (fit_timing), for the events of the same ranks */
  struct {
    tf_vseq ranks, part[2];
  } e[8];
  uint32_t n, next;
  tf_mem mem; /* its own accounting */
} parts_cache;

typedef struct ctx {
  tf_mtrace *const *in;
  const char *const *names;
  uint32_t k, base;
  tf_fit_space sp;
  int nd;                                      /* dimensions of the rank space */
  int64_t dims[TF_FIT_MAXIN + 1][TF_TOPO_MAXDIMS]; /* per input, then the target's */
  FILE *explain;
  char *err;
  size_t errlen;
  char where[512]; /* the node being fitted, for messages */
  struct parts_cache *pc; /* event_parts's */
} ctx;

static int fail(ctx *c, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(c->err, c->errlen, "%s: %s", c->where, msg);
  return -1;
}

/* "v1 @P=a, v2 @P=b, ..." */
static void values_text(const ctx *c, const int64_t *y, const uint8_t *known, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t i = 0; i < c->k && at < len; i++) {
    if (known && !known[i]) continue;
    at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64 " at P=%d", at ? ", " : "", y[i], c->in[i]->nranks);
  }
}

/* Fit one number seen in every input; what names it. */
static int fit_one(ctx *c, const int64_t *y, const uint8_t *known, const char *what, int64_t *out) {
  uint32_t used;
  int fit = tf_fit_exact(&c->sp, y, known, out, &used);
  if (fit > 0) return 0;
  char vals[256];
  values_text(c, y, known, vals, sizeof vals);
  if (!fit) return fail(c, "%s: no exact fit in the features (1, P, dimension sizes) to the values %s", what, vals);
  char sets[2][64] = {"", ""};
  for (int x = 0; x < 2; x++)
    for (uint32_t j = 0, at = 0; j < c->sp.nfeat; j++)
      if ((used >> (16 * x)) >> j & 1)
        at += (uint32_t)snprintf(sets[x] + at, sizeof sets[x] - at, "%s%s", at ? "," : "", c->sp.name[j]);
  return fail(c, "%s: the values %s fit exactly in (%s) and in (%s), which differ at P=%" PRId64
              " (the inputs do not tell them apart: choose others)", what, vals, sets[0], sets[1], c->sp.target[1]);
}

/* ------------------------------------------------------------ value sequences */

typedef struct view { /* an item list, the open run of a sequence as one more item */
  const tf_vitem *items;
  uint32_t n;
  tf_vitem tail;
  int has_tail;
} view;

static int fit_items(ctx *c, const tf_vitem *const *items, uint32_t n, tf_vitem *out, const char *what);

/* out (the base input's item) becomes item `which` of every input, fitted. */
static int fit_item(ctx *c, const tf_vitem *const *given, tf_vitem *out, const char *what, uint32_t index) {
  int64_t base[TF_FIT_MAXIN], step[TF_FIT_MAXIN], count[TF_FIT_MAXIN];
  uint8_t all[TF_FIT_MAXIN], baseknown[TF_FIT_MAXIN], stepknown[TF_FIT_MAXIN];
  /* A block of ranks whose inner extent is 1 at a small size (ranks 1, 3
   * of a 2x2 grid: a run) is the repeat of a one-value run it becomes at
   * larger sizes ({1..2} x3 +3 on 3x3): lift the run to that form. A
   * repeat of one value where the base input has a run is that run. */
  tf_vitem lifted[TF_FIT_MAXIN], lifted_body[TF_FIT_MAXIN];
  const tf_vitem *it[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < c->k; i++) {
    it[i] = given[i];
    if (given[i] && out->nbody == 1 && !out->body[0].nbody && !given[i]->nbody) {
      lifted_body[i] = (tf_vitem){.base = given[i]->base, .count = 1};
      lifted[i] = (tf_vitem){.base = given[i]->base, .step = given[i]->step, .count = given[i]->count, .nbody = 1,
                             .body = &lifted_body[i]};
      it[i] = &lifted[i];
    } else if (given[i] && !out->nbody && given[i]->nbody == 1 && !given[i]->body[0].nbody &&
               given[i]->body[0].count == 1) { /* the other way: a repeat of one value is a run */
      lifted[i] = (tf_vitem){.base = given[i]->base, .step = given[i]->step, .count = given[i]->count};
      it[i] = &lifted[i];
    }
  }
  for (uint32_t i = 0; i < c->k; i++) {
    if (!it[i]) { /* absent (fit_vseq): an empty run */
      base[i] = step[i] = count[i] = 0;
      all[i] = 1;
      baseknown[i] = stepknown[i] = 0;
      continue;
    }
    if (it[i]->nbody != out->nbody)
      return fail(c, "%s: item %u is %s at P=%d but %s at P=%d (the traces differ in shape)", what, index,
                  it[i]->nbody ? "a repeat" : "a run", c->in[i]->nranks, out->nbody ? "a repeat" : "a run",
                  c->in[c->base]->nranks);
    base[i] = it[i]->base;
    step[i] = it[i]->step;
    count[i] = (int64_t)it[i]->count;
    all[i] = baseknown[i] = 1;
    stepknown[i] = given[i]->nbody || it[i]->count > 1;
  }
  char name[320];
  int64_t b, s, n;
  snprintf(name, sizeof name, "%s, item %u start", what, index);
  if (fit_one(c, base, baseknown, name, &b)) return -1;
  snprintf(name, sizeof name, "%s, item %u %s", what, index, out->nbody ? "shift" : "step");
  if (fit_one(c, step, stepknown, name, &s)) return -1;
  snprintf(name, sizeof name, "%s, item %u count", what, index);
  if (fit_one(c, count, all, name, &n)) return -1;
  if (n < (out->nbody ? 2 : 1))
    return fail(c, "%s, item %u: its count would be %" PRId64 " at P=%" PRId64 " (too few ranks for this structure)",
                what, index, n, c->sp.target[1]);
  out->base = b;
  out->step = out->nbody || n > 1 ? s : 0;
  out->count = (uint64_t)n;
  if (out->nbody) {
    const tf_vitem *body[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) body[i] = it[i]->body;
    if (fit_items(c, body, out->nbody, out->body, what)) return -1;
    out->depth = 0;
    for (uint32_t j = 0; j < out->nbody; j++)
      if (out->body[j].depth + 1 > out->depth) out->depth = out->body[j].depth + 1;
  }
  tf_vitem_reshape(out);
  return 0;
}

static int fit_items(ctx *c, const tf_vitem *const *items, uint32_t n, tf_vitem *out, const char *what) {
  for (uint32_t j = 0; j < n; j++) {
    const tf_vitem *it[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) it[i] = &items[i][j];
    if (fit_item(c, it, &out[j], what, j)) return -1;
  }
  return 0;
}

static uint64_t items_values(const tf_vitem *it, uint32_t n) {
  uint64_t v = 0;
  for (uint32_t j = 0; j < n; j++) v += it[j].nbody ? it[j].count * items_values(it[j].body, it[j].nbody) : it[j].count;
  return v;
}

/* The base input's sequence `out` becomes the fit of s[0..k). A
 * sequence's open run counts as its last item (decoded sequences may end
 * with one where others closed it). pad (rank lists): an input may lack
 * trailing runs of the base's, taken as empty there (the ranks of an
 * inner grid row that a small grid does not have yet). */
static int fit_vseq(ctx *c, const tf_vseq *const *s, tf_vseq *out, int pad, const char *what) {
  uint32_t n = out->n + (out->tcount > 0);
  for (uint32_t i = 0; i < c->k; i++) {
    uint32_t ni = s[i]->n + (s[i]->tcount > 0);
    int padded = pad && ni < n;
    for (uint32_t j = ni; padded && j < out->n; j++) padded = !out->items[j].nbody;
    if (ni != n && !padded) {
      char a[128], b[128];
      tf_vseq_format(s[i], a, sizeof a);
      tf_vseq_format(out, b, sizeof b);
      return fail(c, "%s: the sequences differ in shape (%s at P=%d, %s at P=%d)", what, a, c->in[i]->nranks, b,
                  c->in[c->base]->nranks);
    }
  }
  tf_vitem tails[TF_FIT_MAXIN], otail = tf_vseq_tail(out);
  for (uint32_t i = 0; i < c->k; i++) tails[i] = tf_vseq_tail(s[i]);
  for (uint32_t j = 0; j < n; j++) {
    const tf_vitem *it[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++)
      it[i] = j < s[i]->n ? &s[i]->items[j] : j == s[i]->n && s[i]->tcount ? &tails[i] : NULL;
    if (fit_item(c, it, j < out->n ? &out->items[j] : &otail, what, j)) return -1;
  }
  if (out->tcount) {
    out->tbase = otail.base;
    out->tstep = otail.step;
    out->tcount = otail.count;
  }
  out->nvalues = items_values(out->items, out->n) + out->tcount;
  return 0;
}

/* The refusal of value sets whose number of groups differs. */
static int groups_differ(ctx *c, const tf_vset *const *v, const tf_vset *out, const char *what) {
  int64_t ng[TF_FIT_MAXIN];
  for (uint32_t x = 0; x < c->k; x++) ng[x] = v[x]->n;
  char vals[256], first[160] = "", a[64];
  values_text(c, ng, NULL, vals, sizeof vals);
  for (uint32_t g = 0; g < out->n && g < 4; g++) {
    tf_vseq_format(&out->seq[g], a, sizeof a);
    size_t at = strlen(first);
    snprintf(first + at, sizeof first - at, "%s%s", g ? " | " : "", a);
  }
  return fail(c, "%s: the number of value groups differs between the inputs (%s; at P=%d: %s%s), also taken as "
              "affine functions of the rank's coordinates",
              what, vals, c->in[c->base]->nranks, first, out->n > 4 ? " | ..." : "");
}

static int fit_group(ctx *c, const tf_vset *const *v, uint32_t const *g, tf_vset *out, uint32_t go,
                     const char *what) {
  char name[320];
  const tf_vseq *s[TF_FIT_MAXIN], *r[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < c->k; i++) s[i] = &v[i]->seq[g[i]], r[i] = &v[i]->ranks[g[i]];
  snprintf(name, sizeof name, "%s, rank group %u's values", what, go);
  if (fit_vseq(c, s, &out->seq[go], 0, name)) return -1;
  snprintf(name, sizeof name, "%s, rank group %u's ranks", what, go);
  if (fit_vseq(c, r, &out->ranks[go], 1, name)) return -1;
  out->hash[go] = tf_vseq_hash(&out->seq[go]);
  return 0;
}

typedef int64_t layout[TF_FIT_MAXIN + 1][TF_TOPO_MAXDIMS]; /* sizes per input, then the target's */

/* The entries of v[0..k) with coordinates over lay (groups of one rank
 * first, then all): 1 if they agree between the inputs, 0 if not, -1. */
static int split_layout(ctx *c, const tf_vset *const *v, layout lay, tf_coord_entry **e, uint32_t *ne) {
  tf_mem *m = &c->in[c->base]->mem;
  int same = 0;
  for (int wide = 0; wide < 2 && !same; wide++) {
    for (uint32_t i = 0; i < c->k; i++) {
      if (e[i]) tf_coord_free(e[i], ne[i], m);
      e[i] = NULL;
    }
    for (uint32_t i = 0; i < c->k; i++)
      if (tf_coord_split(v[i], c->nd, lay[i], wide, &e[i], &ne[i], m)) return fail(c, "out of memory");
    same = 1;
    for (uint32_t i = 0; i < c->k && same; i++) {
      same = ne[i] == ne[c->base];
      for (uint32_t j = 0; same && j < ne[i]; j++) same = e[i][j].is_class == e[c->base][j].is_class;
    }
  }
  return same;
}

/* out (v[base]) becomes the groups the entries e give at the target. */
static int fit_entries(ctx *c, const tf_vset *const *v, tf_vset *out, const char *what, tf_coord_entry **e,
                       const uint32_t *ne, layout lay, int slot) {
  tf_mem *m = &c->in[c->base]->mem;
  int rc = 0;
  tf_vset fitted = {0};
  for (uint32_t j = 0; j < ne[c->base] && !rc; j++) {
    char name[400];
    if (!e[c->base][j].is_class) { /* a group by itself: fitted in place, moved over */
      uint32_t g[TF_FIT_MAXIN];
      for (uint32_t i = 0; i < c->k; i++) g[i] = e[i][j].first;
      if ((rc = fit_group(c, v, g, out, g[c->base], what))) break;
      rc = tf_vset_add(&fitted, &out->seq[g[c->base]], &out->ranks[g[c->base]], out->hash[g[c->base]], m);
      continue;
    }
    const tf_vseq *s[TF_FIT_MAXIN];
    int64_t y[TF_FIT_MAXIN], coef[1 + TF_TOPO_MAXDIMS];
    uint8_t known[TF_FIT_MAXIN];
    tf_coord_entry *b = &e[c->base][j];
    for (uint32_t i = 0; i < c->k; i++) s[i] = &e[i][j].ranks;
    snprintf(name, sizeof name, "%s, class %u (groups affine in the coordinates)'s ranks", what, j);
    if ((rc = fit_vseq(c, s, &b->ranks, 1, name))) break;
    for (uint32_t i = 0; i < c->k; i++) s[i] = &e[i][j].shape;
    snprintf(name, sizeof name, "%s, class %u's values", what, j);
    if ((rc = fit_vseq(c, s, &b->shape, 0, name))) break;
    for (int f = 0; f <= c->nd && !rc; f++) {
      for (uint32_t i = 0; i < c->k; i++) y[i] = e[i][j].coef[f], known[i] = !f || lay[i][f - 1] > 1;
      snprintf(name, sizeof name, "%s, class %u's coefficient %d (0: constant, then the coordinates)", what, j, f);
      rc = fit_one(c, y, known, name, &coef[f]);
    }
    if (!rc && tf_coord_expand(&fitted, &b->ranks, &b->shape, coef, c->nd, lay[c->k], slot, m))
      rc = fail(c, "out of memory");
  }
  if (rc) {
    tf_vset_free(&fitted, m);
    return -1;
  }
  tf_vset_free(out, m);
  *out = fitted;
  return 0;
}

static int vset_copy(tf_vset *dst, const tf_vset *src, tf_mem *m) {
  for (uint32_t g = 0; g < src->n; g++) {
    tf_vseq seq, ranks;
    if (tf_vseq_copy(&seq, &src->seq[g], m)) return -1;
    if (tf_vseq_copy(&ranks, &src->ranks[g], m)) {
      tf_vseq_free(&seq, m);
      return -1;
    }
    if (tf_vset_add(dst, &seq, &ranks, src->hash[g], m)) return -1;
  }
  return 0;
}

/* a and b give every rank 0 .. p-1 the same sequence (or none): O(p x groups). */
static int same_per_rank(const tf_vset *a, const tf_vset *b, int64_t p) {
  for (int64_t r = 0; r < p; r++) {
    const tf_vseq *x = tf_vset_find(a, r), *y = tf_vset_find(b, r);
    if (!x != !y || (x && !tf_vseq_equal(x, y))) return 0;
  }
  return 1;
}

/* Value sets whose number of groups differs: entries of groups that are
 * affine in the rank's coordinates (coords.h), each fitted, and the base's
 * groups replaced by those the entries give at the target. The
 * coordinates are row-major over the dimension sizes, else (2-D, 3-D:
 * when their entries do not agree between the inputs) over the sizes in
 * reverse order (a transpose's partner on a d0 x d1 grid is affine in the
 * coordinates of the d1 x d0 layout). When no input grid tells the
 * layouts apart (each symmetric or with a size-1 dimension), both agree at
 * the inputs and the target's grid is not symmetric, both are fitted and
 * must give every rank the same values, else the set is refused as
 * ambiguous. A coefficient of a coordinate whose dimension has size 1 at
 * an input is unknown there. */
static int fit_vset_classes(ctx *c, const tf_vset *const *v, tf_vset *out, const char *what, int slot) {
  tf_coord_entry *e[2][TF_FIT_MAXIN] = {{0}};
  uint32_t ne[2][TF_FIT_MAXIN] = {{0}};
  layout lay[2];
  tf_mem *m = &c->in[c->base]->mem;
  /* the layouts can differ at the target (not symmetric) and no input
   * tells them apart (every input grid symmetric or with a size-1 dimension) */
  int undecided = 1;
  for (uint32_t i = 0; i <= c->k && undecided; i++) {
    int tells = 1, asym = 0;
    for (int d = 0; d < c->nd; d++) tells &= c->dims[i][d] > 1, asym |= c->dims[i][d] != c->dims[i][c->nd - 1 - d];
    undecided = i < c->k ? !(tells && asym) : asym;
  }
  int agree[2] = {0, 0}, rc = 0;
  for (int f = 0; f < (c->nd > 1 ? 2 : 1) && !rc; f++) {
    for (uint32_t i = 0; i <= c->k; i++)
      for (int d = 0; d < c->nd; d++) lay[f][i][d] = c->dims[i][f ? c->nd - 1 - d : d];
    if ((agree[f] = split_layout(c, v, lay[f], e[f], ne[f])) < 0) rc = -1;
    if (agree[0] && !undecided) break;
  }
  if (!rc && !agree[0] && !agree[1]) rc = groups_differ(c, v, out, what);
  if (!rc && agree[0] && agree[1]) { /* both layouts: they must agree at the target */
    tf_vset alt = {0};
    const tf_vset *v2[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) v2[i] = i == c->base ? &alt : v[i];
    if (vset_copy(&alt, out, m)) rc = fail(c, "out of memory");
    int alt_fits = !rc && !fit_entries(c, v2, &alt, what, e[1], ne[1], lay[1], slot);
    if (!rc) rc = fit_entries(c, v, out, what, e[0], ne[0], lay[0], slot);
    if (!rc && alt_fits && !same_per_rank(out, &alt, c->sp.target[1]))
      rc = fail(c, "%s: its values are affine in the coordinates of the rank grid and of the grid with the sizes "
                "reversed at every input, which differ at P=%" PRId64 " (the inputs do not tell them apart: add a "
                "non-square grid)", what, c->sp.target[1]);
    tf_vset_free(&alt, m);
  } else if (!rc) {
    int f = agree[0] ? 0 : 1;
    if (f && c->explain)
      fprintf(c->explain, "%s %s: coordinates over the dimension sizes in reverse order\n", c->where, what);
    rc = fit_entries(c, v, out, what, e[f], ne[f], lay[f], slot);
  }
  for (int f = 0; f < 2; f++)
    for (uint32_t i = 0; i < c->k; i++)
      if (e[f][i]) tf_coord_free(e[f][i], ne[f][i], m);
  return rc ? -1 : 0;
}

/* A value set that follows the butterfly rule at every input
 * (xorpeer.h): written by the rule at the target, its number of values per
 * rank fitted. 1 done, 0 not the rule, -1 refused. */
static int fit_vset_xor(ctx *c, const tf_vset *const *v, tf_vset *out, const char *what) {
  int64_t n[TF_FIT_MAXIN], nt;
  uint8_t all[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < c->k; i++) {
    uint64_t ni;
    int match = tf_xor_match(v[i], c->in[i]->nranks, &ni);
    if (match < 0) return fail(c, "out of memory");
    if (!match) return 0;
    n[i] = (int64_t)ni;
    all[i] = 1;
  }
  char name[320];
  snprintf(name, sizeof name, "%s (partners rank XOR 2^(i mod log2 P)), values per rank", what);
  if (fit_one(c, n, all, name, &nt)) return -1;
  int64_t p = c->sp.target[1];
  if (tf_xor_log2(p) < 0)
    return fail(c, "%s: the partners are rank XOR 2^(i mod log2 P) at every input, but the target P=%" PRId64
                " is not a power of two", what, p);
  if (nt < 1) return fail(c, "%s: %" PRId64 " values per rank at the target", what, nt);
  tf_mem *m = &c->in[c->base]->mem;
  tf_vset rule = {0};
  if (tf_xor_expand(&rule, p, (uint64_t)nt, m)) {
    tf_vset_free(&rule, m);
    return fail(c, "out of memory");
  }
  if (c->explain) fprintf(c->explain, "%s %s: partners rank XOR 2^(i mod log2 P), %" PRId64 " per rank\n", c->where, what, nt);
  tf_vset_free(out, m);
  *out = rule;
  return 1;
}

/* slot: an event's parameter (its pairs may have rules at the target). */
static int fit_vset(ctx *c, const tf_vset *const *v, tf_vset *out, const char *what, int slot) {
  for (uint32_t i = 0; i < c->k; i++)
    if (tf_vset_has_rule(v[i]))
      return fail(c, "%s: the trace of %d ranks has value groups with rules (an extrapolated trace), which are "
                  "not extrapolated again", what, c->in[i]->nranks);
  int xor_rule = fit_vset_xor(c, v, out, what);
  if (xor_rule) return xor_rule < 0 ? -1 : 0;
  for (uint32_t i = 0; i < c->k; i++)
    if (v[i]->n != out->n) return fit_vset_classes(c, v, out, what, slot);
  for (uint32_t g = 0; g < out->n; g++) {
    uint32_t gs[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) gs[i] = g;
    if (fit_group(c, v, gs, out, g, what)) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ times */

typedef struct pooled {
  double n, mean, min, max, sd;
} pooled;

/* One path's summaries of one delta pooled over its rank groups. */
static pooled pool(const tf_gpath *p, int duration) {
  double n = 0, sum = 0, m2 = 0, mn = INFINITY, mx = 0;
  for (uint32_t g = 0; g < p->n; g++) {
    const tf_dstat *d = duration ? &p->g[g].t.duration : &p->g[g].t.compute;
    n += (double)d->n;
    sum += (double)d->sum;
    if (d->n && (double)d->min < mn) mn = (double)d->min;
    if ((double)d->max > mx) mx = (double)d->max;
  }
  double mean = n ? sum / n : 0;
  for (uint32_t g = 0; g < p->n; g++) {
    const tf_dstat *d = duration ? &p->g[g].t.duration : &p->g[g].t.compute;
    double gm = d->n ? (double)d->sum / (double)d->n : 0;
    m2 += tf_dstat_m2(d) + (double)d->n * (gm - mean) * (gm - mean);
  }
  return (pooled){n, mean, n ? mn : 0, mx, n ? sqrt(m2 / n) : 0};
}

static const tf_gpath *find_path(const ctx *c, uint32_t in, const tf_gtiming *g, const tf_gpath *bp) {
  const tf_mtrace *b = c->in[c->base], *t = c->in[in];
  for (uint32_t p = 0; p < g->npaths; p++) {
    const tf_gpath *x = &g->paths[p];
    if ((x->prev_fn == TF_PREV_NONE) != (bp->prev_fn == TF_PREV_NONE)) continue;
    if (x->prev_fn == TF_PREV_NONE) return x;
    if (strcmp(t->ft.funcs[x->prev_fn].name, b->ft.funcs[bp->prev_fn].name) == 0 &&
        t->callsites[x->prev_site].sig == b->callsites[bp->prev_site].sig)
      return x;
  }
  return NULL;
}

static const char *const field_name[4] = {"mean", "min", "max", "sd"};

/* One delta's summary at the target from its pooled inputs: each field by
 * the timing model its fit picks (an undecided field takes the model of
 * a decided one of the same summary). */
static void fit_dstat(ctx *c, const pooled *in, uint64_t n, const int32_t rank, uint32_t bins, tf_dstat *out,
                      const char *what, tf_mem *m) {
  double np[TF_FIT_MAXIN], t[4][TF_FIT_MAXIN], v[4];
  tf_tfit f[4];
  uint32_t k = 0; /* the inputs with samples (all of them, but a rank class may have none at a small size) */
  for (uint32_t i = 0; i < c->k; i++) {
    if (!(in[i].n > 0)) continue;
    np[k] = (double)c->in[i]->nranks;
    t[0][k] = in[i].mean, t[1][k] = in[i].min, t[2][k] = in[i].max, t[3][k] = in[i].sd;
    k++;
  }
  int decided = -1;
  for (int j = 0; j < 4; j++) {
    tf_tfit_run(np, t[j], k, (double)c->sp.target[1], &f[j]);
    if (f[j].decisive && decided < 0) decided = f[j].best;
  }
  for (int j = 0; j < 4; j++) {
    int model = f[j].best; /* undecided: a decided field's model, if it is as close here */
    if (!f[j].decisive && decided >= 0 && f[j].dev[decided] <= f[j].dev[f[j].best] + 0.05) model = decided;
    v[j] = f[j].value[model];
    if (c->explain) {
      fprintf(c->explain, "%s %s: %s", what, field_name[j], tf_tfit_name[model]);
      for (int x = 0; x < TF_TFIT_NMODELS; x++) fprintf(c->explain, " %s=%.3g", tf_tfit_name[x], f[j].dev[x]);
      fprintf(c->explain, "%s -> %.6g\n", f[j].decisive ? "" : " (undecided)", v[j]);
    }
  }
  double cap = (double)(UINT64_MAX / 4) / (double)n; /* sums stay within 64 bits */
  for (int j = 0; j < 4; j++)
    if (v[j] > cap) v[j] = cap;
  uint64_t mn = (uint64_t)llround(v[1]), mx = (uint64_t)llround(v[2]);
  if (mx < mn) mx = mn;
  double mean = v[0] < (double)mn ? (double)mn : v[0] > (double)mx ? (double)mx : v[0];
  if (n <= 2) mn = mx = (uint64_t)llround(mean); /* a file keeps one or two samples as min and max alone */
  *out = (tf_dstat){0};
  out->n = n;
  out->min = mn;
  out->max = mx;
  out->sum = (uint64_t)llround(mean * (double)n);
  if (out->sum < mn * n) out->sum = mn * n;
  if (out->sum > mx * n) out->sum = mx * n;
  mean = (double)out->sum / (double)n;
  double m2 = mn == mx || n < 2 ? 0 : v[3] * v[3] * (double)n;
  tf_dstat_set_m2(out, m2);
  out->min_rank = out->max_rank = out->rmean_lo_rank = out->rmean_hi_rank = rank;
  out->rmean_lo = out->rmean_hi = mean;
  if (bins) {
    out->nbins = 1;
    out->bins = calloc(1, sizeof *out->bins);
    if (!out->bins) {
      m->failed = 1;
      out->nbins = 0;
      return;
    }
    m->bytes += sizeof *out->bins;
    out->bins[0] = (tf_bin){mn, mx > mn ? mx : mx + 1, n, mean, m2}; /* a bin is never empty */
  }
}

/* Each path's occurrences at the target, out[p]: fitted exactly
 * from the inputs' per-path counts; if those fits do not sum to the
 * event's occurrences at the target (its fitted value counts), split the
 * occurrences in their proportion instead (largest remainders). A path's
 * count is exact where every input's is a linear function of the rank grid
 * (each rank's own counts, or groups whose ranks take a path alike); the
 * inputs merged again rank by rank (tf_mtrace_remerge) share a group's
 * counts among its ranks, which need not be. */
static int path_counts(ctx *c, tf_mnode *const *x, const char *evname, uint64_t *out) {
  const tf_gtiming *g = &x[c->base]->timing;
  const tf_vset *cnt = &x[c->base]->count;
  uint64_t occ = 0, sum = 0;
  for (uint32_t i = 0; i < cnt->n; i++) occ += cnt->seq[i].nvalues * cnt->ranks[i].nvalues;
  for (uint32_t p = 0; p < g->npaths; p++) {
    int64_t n[TF_FIT_MAXIN], nt = 0;
    uint8_t all[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) {
      const tf_gpath *ip = find_path(c, i, &x[i]->timing, &g->paths[p]);
      if (!ip) return fail(c, "no time summary of %s after one of its previous calls at P=%d", evname, c->in[i]->nranks);
      n[i] = (int64_t)pool(ip, 0).n;
      all[i] = 1;
    }
    if (fit_one(c, n, all, "occurrences per path", &nt)) return -1;
    if (nt < 1) return fail(c, "%s: %" PRId64 " occurrences on one path at the target", evname, nt);
    out[p] = (uint64_t)nt;
    sum += out[p];
  }
  if (sum == occ || !g->npaths) return 0;
  if (c->explain) fprintf(c->explain, "%s: paths fitted to %" PRIu64 " occurrences, %" PRIu64 " at the target: shared in proportion\n", evname, sum, occ);
  double w[g->npaths], rem[g->npaths];
  for (uint32_t p = 0; p < g->npaths; p++) w[p] = (double)out[p];
  tf_share_counts(w, g->npaths, occ, out, rem);
  for (uint32_t p = 0; p < g->npaths; p++)
    if (!out[p]) return fail(c, "%s: no occurrence left on one path at the target", evname);
  return 0;
}

/* The two parts of a grid whose times are extrapolated apart: the
 * surface (a rank with a coordinate first or last in some dimension) and
 * the inside (every coordinate inner). Both are compact rank lists at any
 * size (a block; the block's frame), where arbitrary unions of the 3^nd
 * place classes of rankclass.h are not (they made stencil3d's 1,048,576-
 * rank file 2.6-3.3x its input). */
enum { PART_SURFACE, PART_INSIDE, NPARTS };

static void part_buckets(int nd, uint32_t *bucket) {
  uint32_t inside = 0;
  for (int d = 0; d < nd; d++) inside = inside * 3 + 1; /* code 1 (inner) in every dimension */
  for (uint32_t q = 0; q < TF_RANKCLASS_MAX; q++) bucket[q] = q == inside ? PART_INSIDE : PART_SURFACE;
}

/* One path's summaries of one delta pooled per part: each group's samples
 * shared evenly among its ranks (a merged trace keeps no rank's own inside
 * a group), each rank's share added to its part; and (with the compute
 * deltas) the ranks on the path per part added to nranks. 0 or -1. */
static int pool_parts(const tf_gpath *p, int duration, int nd, const int64_t *dims, pooled *out, double *nranks) {
  uint32_t bucket[TF_RANKCLASS_MAX];
  part_buckets(nd, bucket);
  double n[NPARTS] = {0}, sum[NPARTS] = {0}, m2[NPARTS] = {0}, sq[NPARTS] = {0}, mn[NPARTS] = {INFINITY, INFINITY},
         mx[NPARTS] = {0};
  int64_t r;
  for (uint32_t g = 0; g < p->n; g++) {
    const tf_dstat *d = duration ? &p->g[g].t.duration : &p->g[g].t.compute;
    const tf_vseq *list = &p->g[g].ranks;
    if (!d->n || !list->nvalues) continue;
    tf_vseq_iter *it = malloc(tf_vseq_iter_size(list));
    if (!it) return -1;
    tf_vseq_iter_init(it, list);
    double share = 1.0 / (double)list->nvalues, gm = (double)d->sum / (double)d->n;
    while (tf_vseq_iter_next(it, &r)) {
      uint32_t q = bucket[tf_rankclass_of(r, nd, dims)];
      nranks[q] += !duration; /* the ranks on the path, counted once (with the compute deltas) */
      n[q] += (double)d->n * share;
      sum[q] += (double)d->sum * share;
      m2[q] += tf_dstat_m2(d) * share;
      sq[q] += (double)d->n * share * gm * gm;
      if ((double)d->min < mn[q]) mn[q] = (double)d->min;
      if ((double)d->max > mx[q]) mx[q] = (double)d->max;
    }
    free(it);
  }
  for (uint32_t q = 0; q < NPARTS; q++) {
    double mean = n[q] > 0 ? sum[q] / n[q] : 0, var = n[q] > 0 ? (m2[q] + sq[q] - n[q] * mean * mean) / n[q] : 0;
    out[q] = (pooled){n[q], mean, n[q] > 0 ? mn[q] : 0, mx[q], var > 0 ? sqrt(var) : 0};
  }
  return 0;
}

/* Path p of the base event as two groups at the target, surface and
 * inside (op, nt occurrences; part: the event's ranks at the target by
 * part), when the inputs tell them apart: each part's fields fitted over
 * the inputs where it has samples (at least 2), its occurrences the path's
 * shared in proportion to its ranks at the target times its occurrences
 * per rank at the largest input. 1 done; 0 when a part is missing at the
 * target or at all but one input, or when the two fits agree
 * (tf_tpath_agree, as ranks merge: the caller then pools the path, as
 * before); -1 error. */
static int fit_parts(ctx *c, const tf_gpath *const *ip, uint64_t nt, const tf_vseq *part,
                     const char *what, tf_gpath *op) {
  tf_mtrace *b = c->in[c->base];
  tf_mem *m = &b->mem;
  pooled in[2][NPARTS][TF_FIT_MAXIN], tmp[NPARTS];
  double rate[NPARTS] = {0}, weight[NPARTS];
  int32_t rate_p[NPARTS] = {0};
  uint32_t seen[NPARTS] = {0};
  if (!part[PART_SURFACE].nvalues || !part[PART_INSIDE].nvalues || nt < NPARTS) return 0;
  for (uint32_t i = 0; i < c->k; i++) {
    double cnt[NPARTS] = {0};
    for (int j = 0; j < 2; j++) {
      if (pool_parts(ip[i], j, c->nd, c->dims[i], tmp, cnt)) return fail(c, "out of memory");
      for (uint32_t q = 0; q < NPARTS; q++) in[j][q][i] = tmp[q];
    }
    for (uint32_t q = 0; q < NPARTS; q++) {
      seen[q] += in[0][q][i].n > 0;
      if (in[0][q][i].n > 0 && cnt[q] > 0 && c->in[i]->nranks > rate_p[q])
        rate[q] = in[0][q][i].n / cnt[q], rate_p[q] = c->in[i]->nranks;
    }
  }
  if (seen[PART_SURFACE] < 2 || seen[PART_INSIDE] < 2) return 0;
  for (uint32_t q = 0; q < NPARTS; q++) weight[q] = rate[q] * (double)part[q].nvalues;
  if (!(weight[0] + weight[1] > 0)) return 0;
  uint64_t count[NPARTS];
  count[PART_INSIDE] = (uint64_t)(weight[PART_INSIDE] * (double)nt / (weight[0] + weight[1]) + 0.5);
  if (count[PART_INSIDE] >= nt) count[PART_INSIDE] = nt - 1;
  if (count[PART_INSIDE] < 1) count[PART_INSIDE] = 1;
  count[PART_SURFACE] = nt - count[PART_INSIDE];
  uint32_t bins = b->timing == TF_TIMING_HISTOGRAM || b->timing == TF_TIMING_PATH;
  tf_tpath t[NPARTS];
  for (uint32_t q = 0; q < NPARTS; q++) {
    int32_t first = (int32_t)tf_ranks_first(&part[q]);
    t[q] = (tf_tpath){.prev_fn = op->prev_fn, .prev_site = op->prev_site};
    char w2[760];
    snprintf(w2, sizeof w2, "%s, %s compute", what, q == PART_INSIDE ? "inside" : "surface");
    fit_dstat(c, in[0][q], count[q], first, bins, &t[q].compute, w2, m);
    snprintf(w2, sizeof w2, "%s, %s call", what, q == PART_INSIDE ? "inside" : "surface");
    fit_dstat(c, in[1][q], count[q], first, bins, &t[q].duration, w2, m);
  }
  int apart = !tf_tpath_agree(&t[PART_SURFACE], &t[PART_INSIDE], 1);
  if (apart && (op->g = calloc(NPARTS, sizeof *op->g))) {
    for (uint32_t q = 0; q < NPARTS; q++) {
      tf_tgroup *g = &op->g[op->n];
      if (tf_vseq_copy(&g->ranks, &part[q], m)) break;
      g->t = t[q];
      t[q] = (tf_tpath){0};
      op->n++;
    }
    op->cap = NPARTS;
  }
  for (uint32_t q = 0; q < NPARTS; q++) {
    tf_dstat_free(&t[q].compute, m);
    tf_dstat_free(&t[q].duration, m);
  }
  if (apart && op->n != NPARTS) return fail(c, "out of memory");
  return apart;
}

/* The event's ranks at the target by part (part[0..TF_RANKCLASS_MAX),
 * initialised), through a small cache: most events of a program run on
 * one of a few rank lists, and splitting one of a million ranks costs a
 * division per rank where its runs are not consecutive ranks. 0 or -1. */
static int event_parts(ctx *c, const tf_vseq *ranks, tf_vseq *part) {
  tf_mem *m = &c->in[c->base]->mem;
  parts_cache *pc = c->pc;
  for (uint32_t i = 0; i < pc->n; i++)
    if (tf_vseq_equal(&pc->e[i].ranks, ranks))
      return tf_vseq_copy(&part[0], &pc->e[i].part[0], m) || tf_vseq_copy(&part[1], &pc->e[i].part[1], m);
  uint32_t bucket[TF_RANKCLASS_MAX];
  part_buckets(c->nd, bucket);
  if (tf_rankclass_lists(ranks, c->nd, c->dims[c->k], bucket, part, m)) return -1;
  uint32_t at = pc->next;
  pc->next = (pc->next + 1) % 8;
  if (pc->n == 8) {
    tf_vseq_free(&pc->e[at].ranks, &pc->mem);
    tf_vseq_free(&pc->e[at].part[0], &pc->mem);
    tf_vseq_free(&pc->e[at].part[1], &pc->mem);
  } else {
    pc->n++;
  }
  tf_vseq_init(&pc->e[at].ranks);
  tf_vseq_init(&pc->e[at].part[0]);
  tf_vseq_init(&pc->e[at].part[1]);
  return tf_vseq_copy(&pc->e[at].ranks, ranks, &pc->mem) || tf_vseq_copy(&pc->e[at].part[0], &part[0], &pc->mem) ||
         tf_vseq_copy(&pc->e[at].part[1], &part[1], &pc->mem);
}

/* The base event's times become, per path, one summary for the grid's
 * surface and one for its inside where the inputs tell them apart
 * (fit_parts), else one pooled over all its ranks. */
static int fit_timing(ctx *c, tf_mnode *const *x, const char *evname) {
  tf_mnode *bx = x[c->base];
  tf_mtrace *b = c->in[c->base];
  tf_gtiming *g = &bx->timing;
  if (!g->npaths) return 0;
  for (uint32_t i = 0; i < c->k; i++)
    if (x[i]->timing.npaths != g->npaths)
      return fail(c, "time summaries after %u different previous calls at P=%d, %u at P=%d", x[i]->timing.npaths,
                  c->in[i]->nranks, g->npaths, b->nranks);
  tf_gpath *paths = calloc(g->npaths, sizeof *paths);
  uint64_t *nts = calloc(g->npaths, sizeof *nts);
  if (!paths || !nts) {
    free(paths);
    free(nts);
    return fail(c, "out of memory");
  }
  int32_t first = (int32_t)tf_ranks_first(&bx->ranks);
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
  int32_t lo_rank[2] = {first, first}, hi_rank[2] = {first, first};
  int rc = path_counts(c, x, evname, nts);
  tf_vseq part[TF_RANKCLASS_MAX] = {{0}}; /* the event's ranks at the target: surface, inside */
  if (!rc && event_parts(c, &bx->ranks, part)) rc = fail(c, "out of memory");
  for (uint32_t p = 0; p < g->npaths && !rc; p++) {
    const tf_gpath *bp = &g->paths[p];
    pooled in[2][TF_FIT_MAXIN];
    const tf_gpath *ips[TF_FIT_MAXIN];
    char what[640];
    snprintf(what, sizeof what, "%s after %s", evname,
             bp->prev_fn == TF_PREV_NONE ? "(start)" : b->ft.funcs[bp->prev_fn].name);
    for (uint32_t i = 0; i < c->k && !rc; i++) {
      const tf_gpath *ip = find_path(c, i, &x[i]->timing, bp);
      if (!ip) {
        rc = fail(c, "no time summary %s at P=%d", what, c->in[i]->nranks);
        break;
      }
      in[0][i] = pool(ip, 0);
      in[1][i] = pool(ip, 1);
      ips[i] = ip;
    }
    if (rc) break;
    tf_gpath *op = &paths[p];
    uint64_t nt = nts[p];
    op->prev_fn = bp->prev_fn;
    op->prev_site = bp->prev_site;
    int by_part = fit_parts(c, ips, nt, part, what, op);
    if (by_part < 0) {
      rc = -1;
      break;
    }
    if (!by_part && !(op->g = calloc(1, sizeof *op->g))) {
      rc = fail(c, "out of memory");
      break;
    }
    if (!by_part) { /* one summary pooled over all the event's ranks */
      op->n = op->cap = 1;
      op->g->t.prev_fn = bp->prev_fn;
      op->g->t.prev_site = bp->prev_site;
      if (tf_vseq_copy(&op->g->ranks, &bx->ranks, &b->mem)) {
        rc = fail(c, "out of memory");
        break;
      }
      uint32_t bins = b->timing == TF_TIMING_HISTOGRAM || b->timing == TF_TIMING_PATH;
      char w2[700];
      snprintf(w2, sizeof w2, "%s compute", what);
      fit_dstat(c, in[0], nt, first, bins, &op->g->t.compute, w2, &b->mem);
      snprintf(w2, sizeof w2, "%s call", what);
      fit_dstat(c, in[1], nt, first, bins, &op->g->t.duration, w2, &b->mem);
    }
    for (uint32_t q = 0; q < op->n; q++) { /* the event's per-rank means: its groups' extremes */
      const tf_dstat *d[2] = {&op->g[q].t.compute, &op->g[q].t.duration};
      int32_t r = (int32_t)tf_ranks_first(&op->g[q].ranks);
      for (int j = 0; j < 2; j++) {
        double mean = (double)d[j]->sum / (double)d[j]->n;
        if (mean < lo[j]) lo[j] = mean, lo_rank[j] = r;
        if (mean > hi[j]) hi[j] = mean, hi_rank[j] = r;
      }
    }
  }
  for (uint32_t q = 0; q < TF_RANKCLASS_MAX; q++) tf_vseq_free(&part[q], &b->mem);
  free(nts);
  uint32_t np = g->npaths;
  tf_gtiming_free(g, &b->mem);
  g->paths = paths;
  g->npaths = np;
  b->mem.bytes += np * sizeof *paths;
  g->compute = (tf_rankmeans){lo[0], hi[0], lo_rank[0], hi_rank[0]};
  g->duration = (tf_rankmeans){lo[1], hi[1], lo_rank[1], hi_rank[1]};
  return rc;
}

/* ------------------------------------------------------------ nodes */

static int fit_nodes(ctx *c, tf_mnode **const *x, const uint32_t *n, const char *at);

static int fit_node(ctx *c, tf_mnode *const *x, const char *at) {
  tf_mtrace *b = c->in[c->base];
  tf_mnode *bx = x[c->base];
  const char *evname = bx->is_loop ? "loop" : b->ft.funcs[bx->fn].name;
  snprintf(c->where, sizeof c->where, "%.300s (%.100s)", at, evname);
  for (uint32_t i = 0; i < c->k; i++) {
    const char *name = x[i]->is_loop ? "loop" : c->in[i]->ft.funcs[x[i]->fn].name;
    if (x[i]->is_loop != bx->is_loop || strcmp(name, evname) != 0)
      return fail(c, "the traces differ in structure: %s at P=%d, %s at P=%d", name, c->in[i]->nranks, evname,
                  b->nranks);
    if (bx->is_loop) continue;
    if (x[i]->thread != bx->thread || c->in[i]->callsites[x[i]->site].sig != b->callsites[bx->site].sig)
      return fail(c, "the traces differ in structure: another thread or call site at P=%d", c->in[i]->nranks);
    if (x[i]->nslots != bx->nslots)
      return fail(c,
                  "the traces differ in structure: %u parameter values at P=%d, %u at P=%d (an array whose "
                  "length depends on P, e.g. per-rank counts, is not extrapolated)",
                  x[i]->nslots, c->in[i]->nranks, bx->nslots, b->nranks);
  }
  const tf_vseq *r[TF_FIT_MAXIN];
  const tf_vset *v[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < c->k; i++) r[i] = &x[i]->ranks, v[i] = &x[i]->count;
  if (fit_vseq(c, r, &bx->ranks, 1, "rank list")) return -1;
  if (fit_vset(c, v, &bx->count, bx->is_loop ? "iteration count" : "value count", 0)) return -1;
  if (bx->is_loop) {
    tf_mnode **const *body[TF_FIT_MAXIN];
    uint32_t nb[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) body[i] = &x[i]->body, nb[i] = x[i]->nbody;
    tf_mnode **bodies[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) bodies[i] = *body[i];
    char sub[512];
    snprintf(sub, sizeof sub, "%.400s/", at);
    return fit_nodes(c, bodies, nb, sub);
  }
  const tf_func_desc *f = &b->ft.funcs[bx->fn];
  for (uint32_t j = 0; j < bx->nslots; j++) {
    char what[128];
    snprintf(what, sizeof what, "parameter %s", j < f->nfields ? f->fields[j].name : "(array element)");
    for (uint32_t i = 0; i < c->k; i++) v[i] = &x[i]->slots[j];
    if (fit_vset(c, v, &bx->slots[j], what, 1)) return -1;
  }
  return fit_timing(c, x, evname);
}

static int fit_nodes(ctx *c, tf_mnode **const *x, const uint32_t *n, const char *at) {
  for (uint32_t i = 0; i < c->k; i++)
    if (n[i] != n[c->base]) {
      snprintf(c->where, sizeof c->where, "%s", *at ? at : "top level");
      return fail(c, "the traces differ in structure: %u nodes at P=%d, %u at P=%d", n[i], c->in[i]->nranks,
                  n[c->base], c->in[c->base]->nranks);
    }
  for (uint32_t j = 0; j < n[c->base]; j++) {
    tf_mnode *y[TF_FIT_MAXIN];
    for (uint32_t i = 0; i < c->k; i++) y[i] = x[i][j];
    char here[512];
    snprintf(here, sizeof here, "%.400snode %u", at, j);
    if (fit_node(c, y, here)) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ the trace */

static void dims_text(int nd, const int64_t *dims, char *buf, size_t len) {
  size_t at = 0;
  for (int d = 0; d < nd && at < len; d++) at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, d ? "x" : "", dims[d]);
}

/* One input's corner ranks (corners.h) against the grid dims[0..nd) its
 * peer offsets give: 1 they agree (they are its corner group, some
 * dimensions periodic or none), 0 no evidence (every rank has as many
 * peers, or the group fits no grid), -1 refused: they are the corners of
 * a non-periodic grid of other sizes, or out of memory. */
static int corner_vote(ctx *c, uint32_t i, int nd, const int64_t *dims) {
  int64_t p = c->in[i]->nranks;
  uint32_t *npeers = malloc((size_t)p * sizeof *npeers);
  int64_t *corner = malloc((size_t)p * sizeof *corner), own[3];
  int rc = !npeers || !corner ? -1 : tf_corners_peer_counts(c->in[i], npeers), vote = 0;
  uint32_t n = rc ? 0 : tf_corners_group(npeers, p, corner);
  char grid[64], list[160] = "";
  dims_text(nd, dims, grid, sizeof grid);
  for (uint32_t j = 0, at = 0; j < n && at < sizeof list; j++)
    at += (uint32_t)snprintf(list + at, sizeof list - at, "%s%" PRId64, j ? "," : "", corner[j]);
  if (rc < 0) {
    vote = fail(c, "out of memory");
  } else if (rc > 0 || !n) {
    if (c->explain)
      fprintf(c->explain, "topology: %s (P=%" PRId64 "): peer offsets give %s; no corner ranks (%s)\n", c->names[i], p,
              grid, rc ? "too many ranks to count" : "every rank has as many distinct peers");
  } else {
    int mask = tf_corners_match(corner, n, p, nd, dims), own_nd = mask < 0 ? tf_corners_grid(corner, n, p, own) : 0;
    if (mask >= 0) {
      vote = 1;
      if (c->explain)
        fprintf(c->explain, "topology: %s (P=%" PRId64 "): peer offsets give %s; corner ranks %s agree (periodic dimension mask %d)\n",
                c->names[i], p, grid, list, mask);
    } else if (own_nd) {
      char other[64];
      dims_text(own_nd, own, other, sizeof other);
      vote = fail(c, "%s (P=%" PRId64 "): its peer offsets give a %s rank grid but its corner ranks (the %u with the "
                  "fewest peers: %s) are those of a %s grid: give --dims",
                  c->names[i], p, grid, n, list, other);
    } else if (c->explain) {
      fprintf(c->explain, "topology: %s (P=%" PRId64 "): peer offsets give %s; the %u ranks with the fewest peers (%s) "
              "are no grid's corners: offsets only\n", c->names[i], p, grid, n, list);
    }
  }
  free(npeers);
  free(corner);
  return vote;
}

/* The corner votes of every input for the grids in c->dims (nd): the
 * number that agree, or -1 (refused). */
static int corner_votes(ctx *c, int nd) {
  int agree = 0;
  for (uint32_t i = 0; i < c->k; i++) {
    int v = corner_vote(c, i, nd, c->dims[i]);
    if (v < 0) return -1;
    agree += v;
  }
  return agree;
}

/* Dimension sizes of every input and the target: recorded topology or
 * --dims: MPI_Dims_create's rule at the inputs; else a 3-D grid detected at
 * every input, confirmed by the corner ranks of one input at least (none:
 * taken as 2-D), that follows that rule (the rule at the target); else a 2-D
 * grid detected at every input (the rule at the target if the inputs follow
 * it, else an exact fit of the row length in P); else 1-D. nd, or -1. */
static int find_dims(ctx *c, const tf_extrap_opts *o) {
  int nd = o->ndims ? o->ndims : tf_topo_ndims(c->in[c->base]);
  for (uint32_t i = 0; i <= c->k; i++) {
    c->dims[i][0] = i < c->k ? c->in[i]->nranks : o->ranks;
    if (nd > 1) tf_topo_dims(c->dims[i][0], nd, c->dims[i]);
  }
  if (o->ndims) memcpy(c->dims[c->k], o->dims, sizeof o->dims);
  if (nd) return nd;
  int64_t row[TF_FIT_MAXIN], plane[TF_FIT_MAXIN], rule[3];
  int follows = 1, grid3 = 1;
  for (uint32_t i = 0; i < c->k; i++) {
    if (tf_topo_detect(c->in[i], &row[i], &plane[i])) return fail(c, "out of memory");
    if (!row[i]) return 1;
    grid3 &= plane[i] > 0;
  }
  if (grid3) { /* 3-D offsets at every input: corner ranks must confirm it at one input at least */
    for (uint32_t i = 0; i < c->k; i++)
      c->dims[i][0] = c->in[i]->nranks / plane[i], c->dims[i][1] = plane[i] / row[i], c->dims[i][2] = row[i];
    int agree = corner_votes(c, 3);
    if (agree < 0) return -1;
    if (!agree) {
      grid3 = 0;
      if (c->explain)
        fprintf(c->explain, "topology: 3-D peer offsets at every input, but no input shows the corner ranks of such "
                "a grid (a hypercube, e.g. butterfly's partners at 8 ranks, has the offsets of 2x2x2): taken as 2-D; "
                "--dims gives a periodic 3-D grid\n");
    }
  }
  if (grid3) { /* 3-D at every input: MPI_Dims_create's rule at each, and then at the target */
    for (uint32_t i = 0; i < c->k; i++) {
      tf_topo_dims(c->in[i]->nranks, 3, rule);
      follows &= rule[2] == row[i] && rule[1] * rule[2] == plane[i];
    }
    if (!follows)
      return fail(c, "a 3-D rank grid is detected (planes of %" PRId64 " ranks in rows of %" PRId64 " at P=%d, ...) "
                  "that does not follow MPI_Dims_create's rule: give --dims",
                  plane[0], row[0], c->in[0]->nranks);
    for (uint32_t i = 0; i < c->k; i++) tf_topo_dims(c->in[i]->nranks, 3, c->dims[i]);
    tf_topo_dims(o->ranks, 3, c->dims[c->k]);
    return 3;
  }
  for (uint32_t i = 0; i < c->k; i++) { /* else 2-D: rows of row[i] */
    tf_topo_dims(c->in[i]->nranks, 2, rule);
    follows &= rule[1] == row[i];
  }
  for (uint32_t i = 0; i < c->k; i++) c->dims[i][0] = c->in[i]->nranks / row[i], c->dims[i][1] = row[i];
  if (corner_votes(c, 2) < 0) return -1;
  if (follows) {
    tf_topo_dims(o->ranks, 2, c->dims[c->k]);
    return 2;
  }
  tf_fit_space line = {.nin = c->k, .nfeat = 2};
  uint8_t all[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < c->k; i++) line.feat[i][0] = 1, line.feat[i][1] = c->in[i]->nranks, all[i] = 1;
  line.target[0] = 1;
  line.target[1] = o->ranks;
  int64_t r;
  uint32_t used;
  if (tf_fit_exact(&line, row, all, &r, &used) != 1 || r < 1 || o->ranks % r)
    return fail(c, "a 2-D rank grid is detected (rows of %" PRId64 " at P=%d, ...) whose row length at P=%" PRId64
                " neither follows MPI_Dims_create's rule nor fits exactly: give --dims",
                row[0], c->in[0]->nranks, o->ranks);
  c->dims[c->k][0] = o->ranks / r;
  c->dims[c->k][1] = r;
  return 2;
}

/* A sequence of one value per rank (per_rank; else a rank list): as it is
 * when the inputs' sequences fit item by item, else (the values of corner,
 * edge and inner ranks of a grid) through the value set of its distinct
 * values, fitted and spread over the target's n ranks again. */
static int fit_per_rank(ctx *c, const tf_vseq *const *s, tf_vseq *out, int per_rank, int64_t n, const char *what) {
  if (!per_rank) return fit_vseq(c, s, out, 0, what);
  tf_mem *m = &c->in[c->base]->mem;
  tf_vseq direct;
  if (tf_vseq_copy(&direct, out, m)) return fail(c, "out of memory");
  if (!fit_vseq(c, s, &direct, 0, what)) { /* the sequences fit as they are */
    tf_vseq_free(out, m);
    *out = direct;
    return 0;
  }
  tf_vseq_free(&direct, m);
  tf_vset v[TF_FIT_MAXIN] = {0};
  const tf_vset *vp[TF_FIT_MAXIN];
  int rc = 0;
  for (uint32_t i = 0; i < c->k && !rc; i++) {
    vp[i] = &v[i];
    if (tf_coord_groups(s[i], &v[i], m)) rc = fail(c, "out of memory");
  }
  if (!rc) rc = fit_vset(c, vp, &v[c->base], what, 0);
  if (!rc) {
    tf_vseq_free(out, m);
    if (tf_coord_per_rank(&v[c->base], n, out, m)) rc = fail(c, "out of memory");
  }
  for (uint32_t i = 0; i < c->k; i++) tf_vset_free(&v[i], m);
  return rc;
}

/* A dimension of the rank grid of one size at every input: a value that
 * depends on its size fits a constant as well, so a target where its size
 * differs is refused, not guessed (27, 36, 48 -> 64 = 4x4x4, d2 = 3 at every
 * input, gave the ranks of the last z-plane an invalid trace). And a
 * dimension of a 3-D grid with at most 2 ranks at every input has no inner
 * ranks there: what a rank inside it does (a grid's inner planes) no input
 * shows, so a target where it is longer is refused too (8, 12, 18 -> 36 =
 * 4x3x3 gave ranks of the inner z-plane an invalid trace). In 2-D the exact
 * fits refuse this already (P = 2 d0 when d1 is 2 at every input: (1,P) and
 * (1,d0) fit alike), and butterfly's rows of 1 and 2 ranks are exact at any
 * power of two (extrap.butterfly). 0 or -1. */
static int check_dims_seen(ctx *c, int nd, int64_t p) {
  for (int d = 0; d < nd && nd > 1; d++) {
    int64_t most = 0;
    int same = 1;
    for (uint32_t i = 0; i < c->k; i++) {
      if (c->dims[i][d] > most) most = c->dims[i][d];
      same &= c->dims[i][d] == c->dims[0][d];
    }
    if (same && c->dims[c->k][d] != most)
      return fail(c, "dimension %d of the rank grid has %" PRId64 " rank%s at every input and %" PRId64 " at P=%" PRId64
                  ": how the program's values depend on it no input shows (a constant fits them as well as the "
                  "dimension's size); record inputs where it varies",
                  d, most, most == 1 ? "" : "s", c->dims[c->k][d], p);
    if (nd == 3 && most <= 2 && c->dims[c->k][d] > most)
      return fail(c, "dimension %d of the rank grid has at most %" PRId64 " ranks at every input (%" PRId64
                  " at P=%d, ...) and %" PRId64 " at P=%" PRId64 ": what its inner ranks do, which may differ from "
                  "its edges, no input shows; record an input where it has 3 or more ranks",
                  d, most, c->dims[0][d], c->in[0]->nranks, c->dims[c->k][d], p);
  }
  return 0;
}

static int setup_space(ctx *c, const tf_extrap_opts *o) {
  int nd = find_dims(c, o);
  if (nd < 0 || check_dims_seen(c, nd, o->ranks)) return -1;
  tf_fit_space *s = &c->sp;
  c->nd = nd;
  static const char *const dn[3] = {"d0", "d1", "d2"};
  s->nin = c->k;
  s->nfeat = 2 + (nd > 1 ? (uint32_t)nd : 0) + (nd == 3 ? 3 : 0);
  s->name[0] = "1";
  s->name[1] = "P";
  for (int d = 0; d < nd && nd > 1; d++) s->name[2 + d] = dn[d];
  static const char *const planes[3] = {"d0d1", "d0d2", "d1d2"}; /* products of sizes (fit.h) */
  static const int plane_dims[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int q = 0; q < 3 && nd == 3; q++) s->name[5 + q] = planes[q];
  for (uint32_t i = 0; i <= c->k; i++) {
    int64_t *f = i < c->k ? s->feat[i] : s->target;
    f[0] = 1;
    f[1] = i < c->k ? c->in[i]->nranks : o->ranks;
    for (int d = 0; d < nd && nd > 1; d++) f[2 + d] = c->dims[i][d];
    for (int q = 0; q < 3 && nd == 3; q++) f[5 + q] = c->dims[i][plane_dims[q][0]] * c->dims[i][plane_dims[q][1]];
  }
  if (c->explain) {
    fprintf(c->explain, "topology: %d dimension%s; features", nd, nd > 1 ? "s" : "");
    for (uint32_t j = 0; j < s->nfeat; j++) fprintf(c->explain, " %s", s->name[j]);
    fprintf(c->explain, "; target");
    for (uint32_t j = 1; j < s->nfeat; j++) fprintf(c->explain, " %s=%" PRId64, s->name[j], s->target[j]);
    fprintf(c->explain, "\n");
  }
  return nd;
}

static int extrapolate(ctx *cp, const tf_extrap_opts *o);

int tf_extrapolate(tf_mtrace *const *in, const char *const *names, uint32_t k, const tf_extrap_opts *o, char *err,
                   size_t errlen) {
  parts_cache pc = {0};
  ctx c = {.in = in, .names = names, .k = k, .explain = o->explain, .err = err, .errlen = errlen, .pc = &pc};
  int rc = extrapolate(&c, o);
  for (uint32_t i = 0; i < pc.n; i++) {
    tf_vseq_free(&pc.e[i].ranks, &pc.mem);
    tf_vseq_free(&pc.e[i].part[0], &pc.mem);
    tf_vseq_free(&pc.e[i].part[1], &pc.mem);
  }
  return rc;
}

static int extrapolate(ctx *cp, const tf_extrap_opts *o) {
  ctx c = *cp; /* the cache is shared through c.pc */
  tf_mtrace *const *in = c.in;
  const char *const *names = c.names;
  uint32_t k = c.k;
  snprintf(c.where, sizeof c.where, "inputs");
  if (k < 3 || k > TF_FIT_MAXIN) return fail(&c, "%u traces given; extrapolation takes 3 to %d", k, TF_FIT_MAXIN);
  for (uint32_t i = 0; i < k; i++) {
    if (in[i]->partial || (int64_t)in[i]->present.nvalues != in[i]->nranks)
      return fail(&c, "%s is partial or lacks ranks; extrapolation needs complete runs", names[i]);
    for (uint32_t j = 0; j < i; j++)
      if (in[i]->nranks == in[j]->nranks)
        return fail(&c, "%s and %s both have %d ranks; the inputs need distinct rank counts", names[j], names[i],
                    in[i]->nranks);
    if (in[i]->nranks > in[c.base]->nranks) c.base = i;
    if (in[i]->timing != in[0]->timing || in[i]->bins != in[0]->bins || in[i]->unit != in[0]->unit)
      return fail(&c, "%s was recorded with other timing settings than %s", names[i], names[0]);
  }
  int nd = setup_space(&c, o);
  if (nd < 0) return -1;
  tf_mtrace *b = in[c.base];
  const tf_vseq *s[TF_FIT_MAXIN];
  snprintf(c.where, sizeof c.where, "RANKS");
  const tf_vseq *ranks_of[4][TF_FIT_MAXIN];
  for (uint32_t i = 0; i < k; i++) {
    ranks_of[0][i] = &in[i]->present;
    ranks_of[1][i] = &in[i]->nevents;
    ranks_of[2][i] = &in[i]->lost;
    ranks_of[3][i] = &in[i]->why;
  }
  static const char *const rname[4] = {"ranks present", "events per rank", "lost events per rank",
                                       "partial reasons"};
  tf_vseq *rout[4] = {&b->present, &b->nevents, &b->lost, &b->why};
  for (int q = 0; q < 4; q++) {
    for (uint32_t i = 0; i < k; i++) s[i] = ranks_of[q][i];
    if (fit_per_rank(&c, s, rout[q], q > 0, o->ranks, rname[q])) return -1;
  }
  tf_mnode **tops[TF_FIT_MAXIN];
  uint32_t ntop[TF_FIT_MAXIN];
  for (uint32_t i = 0; i < k; i++) tops[i] = in[i]->top, ntop[i] = in[i]->ntop;
  if (fit_nodes(&c, tops, ntop, "")) return -1;
  snprintf(c.where, sizeof c.where, "stream order");
  for (int q = 0; q < 3; q++) {
    const tf_vset *v[TF_FIT_MAXIN];
    int any = 0;
    for (uint32_t i = 0; i < k; i++) v[i] = &in[i]->order[q], any |= in[i]->order[q].n > 0;
    if (any && fit_vset(&c, v, &b->order[q], "streams", 0)) return -1;
  }
  if (b->mem.failed) return fail(&c, "out of memory");
  /* INFO: the target's size, and where it comes from (optional EXTRAP section) */
  char note[2048];
  size_t at = (size_t)snprintf(note, sizeof note, "extrapolated to %" PRId64 " ranks (%d-D) from", o->ranks, nd);
  for (uint32_t i = 0; i < k && at < sizeof note; i++)
    at += (size_t)snprintf(note + at, sizeof note - at, " %s (%d ranks)%s", names[i], in[i]->nranks,
                           i + 1 < k ? "," : "");
  if (at < sizeof note)
    snprintf(note + at, sizeof note - at,
             "; structure: exact linear fits in (1, P%s); times: per path, pooled over the grid's surface and its inside "
             "(apart where they differ), 4 models per field",
             nd > 1 ? ", dimension sizes" : "");
  b->nranks = (int32_t)o->ranks;
  free(b->extrap);
  if (!(b->extrap = strdup(note))) return fail(&c, "out of memory");
  return (int)c.base;
}
