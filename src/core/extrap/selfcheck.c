/* selfcheck.c — an extrapolation re-run to each input's own rank count and
 * compared with that input, one rank per group of ranks that read alike
 * (selfcheck.h). */
#include "extrap/selfcheck.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/fit.h"
#include "extrap/topology.h"
#include "merge/rank_runs.h"
#include "merge/ranklist.h"

typedef struct cmp {
  const tf_mtrace *got, *want;
  int64_t rank;
  char *err;
  size_t errlen;
  tf_mem mem;
} cmp;

static int differ(cmp *s, const char *fmt, ...) {
  int at = snprintf(s->err, s->errlen, "rank %" PRId64 ", ", s->rank);
  va_list ap;
  va_start(ap, fmt);
  if (at >= 0 && (size_t)at < s->errlen) vsnprintf(s->err + at, s->errlen - (size_t)at, fmt, ap);
  va_end(ap);
  return 1;
}

/* Rank s->rank's values in a and b, value by value: 0 equal, 1 differ
 * (first difference at *at, values in *va, *vb; *va or *vb is the count
 * when one sequence is shorter), -1 out of memory. */
static int values_differ(cmp *s, const tf_vset *a, const tf_vset *b, uint64_t *at, int64_t *va, int64_t *vb) {
  tf_vseq sa, sb;
  int fa = tf_vset_rank_seq(a, s->rank, &sa, &s->mem), fb = tf_vset_rank_seq(b, s->rank, &sb, &s->mem), rc = 0;
  if (fa < 0 || fb < 0) {
    if (fa >= 0) tf_vseq_free(&sa, &s->mem);
    if (fb >= 0) tf_vseq_free(&sb, &s->mem);
    return -1;
  }
  *at = 0;
  if (sa.nvalues != sb.nvalues) {
    *va = (int64_t)sa.nvalues, *vb = (int64_t)sb.nvalues, *at = UINT64_MAX, rc = 1;
  } else {
    tf_vseq_iter *ia = malloc(tf_vseq_iter_size(&sa)), *ib = malloc(tf_vseq_iter_size(&sb));
    if (!ia || !ib) {
      rc = -1;
    } else {
      tf_vseq_iter_init(ia, &sa);
      tf_vseq_iter_init(ib, &sb);
      while (!rc && tf_vseq_iter_next(ia, va) && tf_vseq_iter_next(ib, vb))
        if (*va != *vb) rc = 1;
        else ++*at;
    }
    free(ia);
    free(ib);
  }
  tf_vseq_free(&sa, &s->mem);
  tf_vseq_free(&sb, &s->mem);
  return rc;
}

static int check_values(cmp *s, const tf_vset *a, const tf_vset *b, const char *event, const char *path,
                        const char *what) {
  uint64_t at;
  int64_t va, vb;
  int rc = values_differ(s, a, b, &at, &va, &vb);
  if (rc < 0) return differ(s, "out of memory"), -1;
  if (!rc) return 0;
  if (at == UINT64_MAX)
    return differ(s, "%s at %s, %s: %" PRId64 " values extrapolated, %" PRId64 " recorded", event, path, what, va, vb);
  return differ(s, "%s at %s, %s, value %" PRIu64 ": %" PRId64 " extrapolated, %" PRId64 " recorded", event, path, what,
                at, va, vb);
}

static int compare_nodes(cmp *s, tf_mnode *const *a, uint32_t na, tf_mnode *const *b, uint32_t nb, const char *path) {
  if (na != nb) return differ(s, "%s: %u nodes extrapolated, %u recorded", path, na, nb);
  for (uint32_t i = 0; i < na; i++) {
    char here[256];
    snprintf(here, sizeof here, "%s/%u", path, i);
    const char *name = a[i]->is_loop ? "loop" : s->got->ft.funcs[a[i]->fn].name;
    if (a[i]->is_loop != b[i]->is_loop ||
        (!a[i]->is_loop && strcmp(name, s->want->ft.funcs[b[i]->fn].name)))
      return differ(s, "node %s: %s extrapolated, another node recorded", here, name);
    int ina = tf_ranks_contains(&a[i]->ranks, s->rank), inb = tf_ranks_contains(&b[i]->ranks, s->rank);
    if (ina != inb)
      return differ(s, "%s at %s: %s on this rank", name, here, ina ? "extrapolated, not recorded" : "recorded, not extrapolated");
    if (!ina) continue;
    int rc = check_values(s, &a[i]->count, &b[i]->count, name, here,
                          a[i]->is_loop ? "iteration count" : "occurrences");
    if (rc) return rc;
    if (a[i]->is_loop) {
      if ((rc = compare_nodes(s, a[i]->body, a[i]->nbody, b[i]->body, b[i]->nbody, here))) return rc;
      continue;
    }
    if (a[i]->nslots != b[i]->nslots)
      return differ(s, "%s at %s: %u parameters extrapolated, %u recorded", name, here, a[i]->nslots, b[i]->nslots);
    const tf_func_desc *f = &s->got->ft.funcs[a[i]->fn];
    for (uint32_t j = 0; j < a[i]->nslots; j++) {
      char what[96];
      if (j < f->nfields)
        snprintf(what, sizeof what, "parameter %s", f->fields[j].name);
      else
        snprintf(what, sizeof what, "parameter (array element, slot %u)", j);
      if ((rc = check_values(s, &a[i]->slots[j], &b[i]->slots[j], name, here, what))) return rc;
    }
  }
  return 0;
}

static int compare_rank(cmp *s, int64_t r) {
  s->rank = r;
  int64_t ia = tf_mtrace_rank_index(s->got, (int32_t)r), ib = tf_mtrace_rank_index(s->want, (int32_t)r);
  if ((ia < 0) != (ib < 0)) return differ(s, "present in one trace only");
  if (ia < 0) return 0;
  int64_t ea = tf_vseq_value_at(&s->got->nevents, ia), eb = tf_vseq_value_at(&s->want->nevents, ib);
  if (ea != eb) return differ(s, "%" PRId64 " events extrapolated, %" PRId64 " recorded", ea, eb);
  return compare_nodes(s, s->got->top, s->got->ntop, s->want->top, s->want->ntop, "top");
}

int tf_extrap_compare(const tf_mtrace *got, const tf_mtrace *want, char *err, size_t errlen) {
  cmp s = {.got = got, .want = want, .err = err, .errlen = errlen};
  if (got->nranks != want->nranks)
    return snprintf(err, errlen, "%d ranks extrapolated, %d recorded", got->nranks, want->nranks), 1;
  const tf_mtrace *both[2] = {got, want};
  int rc = 0;
  for (int t = 0; t < 2 && !rc; t++) { /* one rank of every run of either trace: its first and last */
    tf_rank_run *runs;
    uint32_t n;
    if (tf_mtrace_rank_runs(both[t], &runs, &n)) return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t i = 0; i < n && !rc; i++) {
      rc = compare_rank(&s, runs[i].first);
      if (!rc && runs[i].n > 1) rc = compare_rank(&s, runs[i].first + runs[i].n - 1);
    }
    free(runs);
  }
  return rc;
}

/* One extrapolation of in[] (enc[]: their exact encodings, for the
 * self-check's copies), re-run to each input's own count. */
static int attempt(tf_mtrace *const *in, const tf_buf *enc, const char *const *names, uint32_t k,
                   const tf_extrap_opts *o, char *err, size_t errlen) {
  int base = tf_extrapolate(in, names, k, o, err, errlen);
  for (uint32_t i = 0; i < k && base >= 0; i++) { /* again to input i's own count, from copies */
    tf_mtrace copy[TF_FIT_MAXIN], want;
    tf_mtrace *cp[TF_FIT_MAXIN];
    uint32_t ok = 0;
    char why[1024];
    int bad = 0;
    for (; ok < k; ok++) {
      cp[ok] = &copy[ok];
      if (tf_mtrace_decode(enc[ok].data, enc[ok].len, names[ok], &copy[ok], why, sizeof why) != TF_OK) break;
    }
    int have_want = ok == k && tf_mtrace_decode(enc[i].data, enc[i].len, names[i], &want, why, sizeof why) == TF_OK;
    if (!have_want) {
      snprintf(err, errlen, "self-check: cannot copy the inputs: %s", why);
      bad = 1;
    } else {
      tf_extrap_opts again = *o;
      again.ranks = want.nranks;
      again.explain = NULL;
      if (o->ndims) tf_topo_dims(again.ranks, o->ndims, again.dims);
      int b = tf_extrapolate(cp, names, k, &again, why, sizeof why);
      if (b < 0) { /* the template's structure may not shrink to a small input (groups it lacks): unchecked there */
        if (o->explain)
          fprintf(o->explain, "self-check: %s (P=%d): not re-extrapolated: %s\n", names[i], want.nranks, why);
      } else if ((bad = tf_extrap_compare(cp[b], &want, why, sizeof why))) {
        snprintf(err, errlen, "self-check: extrapolated back to %s's %d ranks, the model does not reproduce it: %s",
                 names[i], want.nranks, why);
      } else if (o->explain) {
        fprintf(o->explain, "self-check: %s (P=%d): re-extrapolated, equal on one rank of every group\n", names[i],
                want.nranks);
      }
      tf_mtrace_free(&want);
    }
    for (uint32_t j = 0; j < ok; j++) tf_mtrace_free(&copy[j]);
    if (bad) base = -1;
  }
  return base;
}

static int encode_all(tf_mtrace *const *in, uint32_t k, tf_buf *enc) {
  for (uint32_t i = 0; i < k; i++)
    if (tf_mtrace_encode_exact(in[i], &enc[i])) return -1;
  return 0;
}

int tf_extrapolate_checked(tf_mtrace *const *in, const char *const *names, uint32_t k, const tf_extrap_opts *o,
                           char *err, size_t errlen) {
  if (k < 3 || k > TF_FIT_MAXIN) return tf_extrapolate(in, names, k, o, err, errlen); /* refused there */
  tf_buf enc[TF_FIT_MAXIN] = {{0}}, again[TF_FIT_MAXIN] = {{0}};
  int base = -1;
  if (encode_all(in, k, enc)) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  if ((base = attempt(in, enc, names, k, o, err, errlen)) >= 0) goto out;
  /* Refused as recorded: the recorder's reduction tree pairs ranks
   * differently at each count, and the merge's alignment follows the
   * pairing (MERGING.md). Merged again in rank order, the inputs have one
   * merge order; try once more from those (the first refusal stands if
   * this one fails too). */
  char why[1024];
  size_t at = strlen(err);
  int rc = 0;
  for (uint32_t i = 0; i < k && !rc; i++) { /* in[] back as given (the failed attempt changed its base) */
    tf_mtrace_free(in[i]);
    if (tf_mtrace_decode(enc[i].data, enc[i].len, names[i], in[i], why, sizeof why) != TF_OK ||
        tf_mtrace_remerge(in[i], why, sizeof why))
      rc = -1;
  }
  if (!rc && encode_all(in, k, again)) rc = -1, snprintf(why, sizeof why, "out of memory");
  if (!rc && (base = attempt(in, again, names, k, o, why, sizeof why)) >= 0) {
    if (o->explain) fprintf(o->explain, "inputs as recorded refused (%s); merged again in rank order, they fit\n", err);
  } else if (at < errlen && strcmp(err, why) != 0) {
    snprintf(err + at, errlen - at, " (and merged again in rank order: %s)", why);
  }
out:
  for (uint32_t i = 0; i < k; i++) tf_buf_free(&enc[i]), tf_buf_free(&again[i]);
  return base;
}
