/* The Parzen estimator behind TPE, as Optuna 5.1's _ParzenEstimator: a weighted mixture of one
 * kernel per observation plus a prior kernel, each kernel a product over the dimensions (one
 * dimension is the univariate case) of a truncated normal (discrete and/or in log space) for a
 * numeric parameter or a smoothed one-hot row for a categorical one. */
#ifndef FOX_PARZEN_H
#define FOX_PARZEN_H

#include "util/error.h"
#include "util/rng.h"

/* One dimension in natural units (space_numeric's view). */
struct parzen_dim {
  int n_choices;          /* > 0: categorical with that many choices (values are indices) */
  double low, high, step; /* numeric: bounds, grid step (0: continuous) */
  int log;                /* numeric: the kernels live in log space */
};

struct parzen {
  int n_dims, n_kernels;
  int n_discrete; /* numeric dimensions with a step */
  const struct parzen_dim *dim; /* the caller's, not copied */
  double *cum_w;     /* [n_kernels] cumulative mixture weights, last = 1 */
  double *log_norm;  /* [n_kernels] log weight minus the numeric dimensions' normalisers */
  double *mu, *sig;  /* [n_kernels][n_dims] numeric kernels, in the transformed units */
  double *isig;      /* 1 / sig */
  double *lo, *hi;   /* [n_dims] the truncation bounds in transformed units (step-widened) */
  double *cat;       /* categorical kernels' probabilities, [n_kernels][n_choices] per dimension */
  double *log_cat;   /* their logs */
  int *cat_off;      /* [n_dims] where dimension d starts in cat (per kernel: off * n_kernels) */
};

/* Optuna's default_weights: 1 for the newest 25 observations, a ramp from 1/n up to 1 for the
 * older ones (w[n], oldest first). */
void parzen_default_weights(int n, double *w);

/* The estimator of `n_obs` observations (rows of `obs`, [n_obs][n_dims], natural units, in
 * trial order: the weights favour the newest) with the prior kernel of weight `prior_weight`. */
int parzen_build(struct parzen *pe, const struct parzen_dim *dim, int n_dims, const double *obs,
                 int n_obs, double prior_weight, struct fox_err *e);
/* The same with the observations' weights given (weights[n_obs], >= 0; Optuna's
 * predetermined_weights) instead of default_weights; NULL: default_weights. */
int parzen_build_weighted(struct parzen *pe, const struct parzen_dim *dim, int n_dims,
                          const double *obs, int n_obs, const double *weights,
                          double prior_weight, struct fox_err *e);
void parzen_free(struct parzen *pe);

/* m draws ([m][n_dims], natural units: inside the bounds, on the step grid). */
void parzen_sample(const struct parzen *pe, struct rng *r, int m, double *x);
/* log density (log mass for discrete and categorical dimensions) of m points; the density of a
 * log dimension is taken in log space, as Optuna does (the Jacobian cancels in l/g). */
int parzen_log_pdf(const struct parzen *pe, const double *x, int m, double *out,
                   struct fox_err *e);

#endif
