/* fit.c — exact fits by Gaussian elimination over the rationals, and the
 * four timing models with their deviation metrics (fit.h). */
#include "extrap/fit.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  __int128 num, den; /* den > 0, reduced */
} rat;

static __int128 gcd128(__int128 a, __int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    __int128 t = a % b;
    a = b;
    b = t;
  }
  return a ? a : 1;
}

static rat mk(__int128 n, __int128 d) {
  if (d < 0) n = -n, d = -d;
  __int128 g = gcd128(n, d);
  return (rat){n / g, d / g};
}
static rat sub(rat a, rat b) { return mk(a.num * b.den - b.num * a.den, a.den * b.den); }
static rat mul(rat a, rat b) { return mk(a.num * b.num, a.den * b.den); }
static rat dvd(rat a, rat b) { return mk(a.num * b.den, a.den * b.num); }

/* Gaussian elimination on the nr x (nc + 1) augmented matrix a (row-major):
 * 1 and coef[0..nc) if the columns are independent and every row is
 * reproduced exactly, else 0. */
static int eliminate(rat *a, uint32_t nr, uint32_t nc, rat *coef) {
  const uint32_t w = nc + 1;
  uint32_t r = 0;
  for (uint32_t c = 0; c < nc; c++, r++) {
    uint32_t p = r;
    while (p < nr && a[p * w + c].num == 0) p++;
    if (p == nr) return 0; /* the features are not independent on these rows */
    for (uint32_t x = 0; x <= nc; x++) {
      rat t = a[p * w + x];
      a[p * w + x] = a[r * w + x];
      a[r * w + x] = t;
    }
    for (uint32_t q = 0; q < nr; q++) {
      if (q == r || a[q * w + c].num == 0) continue;
      rat f = dvd(a[q * w + c], a[r * w + c]);
      for (uint32_t x = c; x <= nc; x++) a[q * w + x] = sub(a[q * w + x], mul(f, a[r * w + x]));
    }
  }
  for (uint32_t q = nc; q < nr; q++)
    if (a[q * w + nc].num != 0) return 0; /* a row the fit does not reproduce */
  for (uint32_t c = 0; c < nc; c++) coef[c] = dvd(a[c * w + nc], a[c * w + c]);
  return 1;
}

/* Solve with the features of mask over the known inputs: 1 and the value
 * at the target if the solution is unique and exact on every row. */
static int solve(const tf_fit_space *s, uint32_t mask, const int64_t *y, const uint8_t *known, int spare,
                 rat *value) {
  uint32_t col[TF_FIT_MAXFEAT], nc = 0, nr = 0;
  for (uint32_t j = 0; j < s->nfeat; j++)
    if (mask >> j & 1) col[nc++] = j;
  rat a[TF_FIT_MAXIN * (TF_FIT_MAXFEAT + 1)], coef[TF_FIT_MAXFEAT];
  for (uint32_t i = 0; i < s->nin; i++) {
    if (!known[i]) continue;
    for (uint32_t c = 0; c < nc; c++) a[nr * (nc + 1) + c] = mk(s->feat[i][col[c]], 1);
    a[nr * (nc + 1) + nc] = mk(y[i], 1);
    nr++;
  }
  if (nr < nc + (uint32_t)spare && !(nc == 1 && nr == 1)) return 0; /* no input left to check the fit */
  if (!eliminate(a, nr, nc, coef)) return 0;
  rat v = mk(0, 1);
  for (uint32_t c = 0; c < nc; c++) {
    if (!spare && coef[c].den != 1) return 0; /* unchecked fits: whole coefficients only */
    rat t = mul(coef[c], mk(s->target[col[c]], 1));
    v = mk(v.num * t.den + t.num * v.den, v.den * t.den);
  }
  *value = v;
  return 1;
}

int tf_fit_affine(const int64_t *x, const int64_t *y, uint32_t rows, uint32_t nfeat, int64_t *coef) {
  rat *a = malloc((size_t)rows * (nfeat + 1) * sizeof *a);
  if (!a) return -1;
  int found = 0;
  for (uint32_t size = 1; size <= nfeat && !found; size++)
    for (uint32_t mask = 1; mask < 1u << nfeat && !found; mask += 2) { /* with the constant, smallest first */
      if ((uint32_t)__builtin_popcount(mask) != size) continue;
      uint32_t col[TF_FIT_MAXFEAT], nc = 0;
      for (uint32_t j = 0; j < nfeat; j++)
        if (mask >> j & 1) col[nc++] = j;
      for (uint32_t r = 0; r < rows; r++) {
        for (uint32_t c = 0; c < nc; c++) a[r * (nc + 1) + c] = mk(x[r * nfeat + col[c]], 1);
        a[r * (nc + 1) + nc] = mk(y[r], 1);
      }
      rat k[TF_FIT_MAXFEAT];
      if (!eliminate(a, rows, nc, k)) continue;
      int whole = 1;
      for (uint32_t c = 0; c < nc; c++) whole &= k[c].den == 1 && k[c].num <= INT64_MAX && k[c].num >= INT64_MIN;
      if (!whole) continue;
      for (uint32_t j = 0; j < nfeat; j++) coef[j] = 0;
      for (uint32_t c = 0; c < nc; c++) coef[col[c]] = (int64_t)k[c].num;
      found = 1;
    }
  free(a);
  return found;
}

int tf_fit_exact(const tf_fit_space *s, const int64_t *y, const uint8_t *known, int64_t *out, uint32_t *used) {
  uint32_t nknown = 0;
  for (uint32_t i = 0; i < s->nin; i++) nknown += known[i] != 0;
  *used = 0;
  *out = 0;
  if (!nknown) return 1;
  /* feature sets with the constant, smallest first; checked by a spare
   * input, else (last resort) exactly determined by the inputs */
  int found = 0;
  for (int spare = 1; spare >= 0 && !found; spare--)
    for (uint32_t size = 1; size <= s->nfeat && !found; size++)
      for (uint32_t mask = 1; mask < 1u << s->nfeat; mask += 2) {
        if ((uint32_t)__builtin_popcount(mask) != size) continue;
        rat v;
        if (!solve(s, mask, y, known, spare, &v)) continue;
        if (v.den != 1 || v.num > INT64_MAX || v.num < INT64_MIN) continue; /* not a whole number at the target */
        if (found) { /* another checked set of the same size: it must agree at the target */
          if ((int64_t)v.num != *out) {
            *used |= mask << 16;
            return -1;
          }
          continue;
        }
        *out = (int64_t)v.num;
        *used = spare ? mask : mask | 1u << 31;
        found = 1;
        if (!spare) break; /* unchecked: the first */
      }
  return found;
}

/* ------------------------------------------------------------ timing */

const char *const tf_tfit_name[TF_TFIT_NMODELS] = {"constant", "linear", "inverse", "inverse+constant"};

#define SLOPE_MIN 0.2 /* ScalaExtrap: a linear fit with a smaller slope is a constant */
#define DEV_THRESHOLD 0.05

/* Mean and std. dev. / mean of v without the value farthest from the mean
 * (when there are at least 3). */
static double mean_wo_outlier(const double *v, uint32_t k, double *rel_sd) {
  double m = 0;
  for (uint32_t i = 0; i < k; i++) m += v[i] / k;
  uint32_t drop = k;
  if (k >= 3) {
    double worst = -1;
    for (uint32_t i = 0; i < k; i++)
      if (fabs(v[i] - m) > worst) worst = fabs(v[i] - m), drop = i;
  }
  double s = 0, ss = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < k; i++)
    if (i != drop) s += v[i], n++;
  m = s / n;
  for (uint32_t i = 0; i < k; i++)
    if (i != drop) ss += (v[i] - m) * (v[i] - m);
  *rel_sd = m != 0 ? sqrt(ss / n) / fabs(m) : (ss == 0 ? 0 : INFINITY);
  return m;
}

/* Least squares y = a x + b; sqrt(residual) / mean of the estimates. */
static double lsq(const double *x, const double *y, uint32_t k, double *a, double *b) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (uint32_t i = 0; i < k; i++) sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  double d = k * sxx - sx * sx;
  *a = d != 0 ? (k * sxy - sx * sy) / d : 0;
  *b = (sy - *a * sx) / k;
  double res = 0, est = 0;
  for (uint32_t i = 0; i < k; i++) {
    double e = *a * x[i] + *b;
    res += (y[i] - e) * (y[i] - e);
    est += e / k;
  }
  return est != 0 ? sqrt(res) / fabs(est) : (res == 0 ? 0 : INFINITY);
}

void tf_tfit_run(const double *n, const double *t, uint32_t k, double nt, tf_tfit *f) {
  double kv[TF_FIT_MAXIN], tn[TF_FIT_MAXIN], a, b;
  f->value[TF_TFIT_CONST] = mean_wo_outlier(t, k, &f->dev[TF_TFIT_CONST]);
  f->dev[TF_TFIT_LINEAR] = lsq(n, t, k, &a, &b);
  f->value[TF_TFIT_LINEAR] = a * nt + b;
  if (fabs(a) < SLOPE_MIN) f->dev[TF_TFIT_LINEAR] = INFINITY;
  for (uint32_t i = 0; i < k; i++) kv[i] = t[i] * n[i], tn[i] = t[i] * n[i];
  f->value[TF_TFIT_INVERSE] = mean_wo_outlier(kv, k, &f->dev[TF_TFIT_INVERSE]) / nt;
  f->dev[TF_TFIT_INVCONST] = lsq(n, tn, k, &a, &b); /* t n = c n + k */
  f->value[TF_TFIT_INVCONST] = a + b / nt;
  f->best = 0;
  for (int m = 1; m < TF_TFIT_NMODELS; m++)
    if (f->dev[m] < f->dev[f->best]) f->best = m;
  f->decisive = 1;
  for (int m = 0; m < TF_TFIT_NMODELS; m++)
    if (m != f->best && !(f->dev[f->best] + DEV_THRESHOLD < f->dev[m])) f->decisive = 0;
  for (int m = 0; m < TF_TFIT_NMODELS; m++)
    if (!(f->value[m] >= 0)) f->value[m] = 0; /* times are never negative */
}
