/* fit.h — the two kinds of fits of trace extrapolation (doc/EXTRAPOLATE.md).
 *
 * Exact fits (communication parameters, rank lists, counts): a value seen
 * at K input traces is a linear form with rational coefficients in the
 * features of each input (feature 0 is the constant 1, then the number of
 * ranks and the dimension sizes, and in 3-D the sizes of the three planes,
 * d0 d1, d0 d2, d1 d2: d1 d2 is the rank distance of a step along d0 in
 * row-major order, as ScalaExtrap's rank distances are sums of products of
 * the sizes, and a plane's size counts the ranks of one coordinate value
 * along the third dimension), solved by Gaussian elimination over the
 * rationals. The smallest set of features (constant first) whose solution
 * is unique and reproduces every input exactly, with at least one input to
 * spare as a check, wins; failing that, the smallest set the inputs
 * determine exactly (no check: bit 31 of *used; more inputs make it
 * checked). Its value at the target's features must be a whole number. No
 * such set: no fit (the caller refuses).
 *
 * Timing fits (ScalaExtrap's four models): constant, linear, inverse and
 * inverse + constant in the number of ranks n, each with its deviation
 * metric; the smallest deviation wins when it beats every other by 0.05.
 */
#ifndef TF_EXTRAP_FIT_H
#define TF_EXTRAP_FIT_H

#include <stdint.h>

#define TF_FIT_MAXIN 16  /* input traces */
#define TF_FIT_MAXFEAT 8 /* 1, P, up to 3 dimension sizes, a 3-D grid's planes d0 d1, d0 d2, d1 d2 */

typedef struct tf_fit_space {
  uint32_t nin, nfeat;
  int64_t feat[TF_FIT_MAXIN][TF_FIT_MAXFEAT]; /* per input */
  int64_t target[TF_FIT_MAXFEAT];
  const char *name[TF_FIT_MAXFEAT]; /* "1", "P", "d0", ..., "d0d1", "d0d2", "d1d2" */
} tf_fit_space;

/* y[i] seen at input i (known[i] == 0: no value there, e.g. the step of a
 * one-value run). 1 and *out = the value at the target, *used = the feature
 * set (bit j: feature j); 0 if no exact fit exists. No known value at all:
 * 1 and *out = 0. -1: ambiguous, two checked feature sets of the smallest
 * size fit but differ at the target (*out: the first's value; *used: the
 * first set, the other in bits 16..). */
int tf_fit_exact(const tf_fit_space *s, const int64_t *y, const uint8_t *known, int64_t *out, uint32_t *used);

/* Fit y[r] = coef . x[r] (rows of nfeat features, feature 0 the constant
 * 1) exactly with whole coefficients, by the smallest feature set (with the
 * constant) that reproduces every row; unused features get 0. 1, 0 (no
 * such fit), -1 (out of memory). Used on ranks: y a value, x (1, the
 * rank's coordinates). */
int tf_fit_affine(const int64_t *x, const int64_t *y, uint32_t rows, uint32_t nfeat, int64_t *coef);

enum { TF_TFIT_CONST, TF_TFIT_LINEAR, TF_TFIT_INVERSE, TF_TFIT_INVCONST, TF_TFIT_NMODELS };
extern const char *const tf_tfit_name[TF_TFIT_NMODELS];

typedef struct tf_tfit {
  double dev[TF_TFIT_NMODELS];   /* deviation of each model (inf: not applicable) */
  double value[TF_TFIT_NMODELS]; /* each model's value at the target */
  int best;                      /* the model with the smallest deviation */
  int decisive;                  /* it beats every other by the threshold */
} tf_tfit;

/* Fit t[i] seen at n[i] ranks (k inputs) and evaluate at n_target. */
void tf_tfit_run(const double *n, const double *t, uint32_t k, double n_target, tf_tfit *f);

#endif
