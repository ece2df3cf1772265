/* Optuna 5.1's Parzen estimator (parzen_estimator.py, probability_distributions.py) in C:
 * kernel bandwidths from neighbour distances, the magic clip, the prior kernel, truncated
 * normals (discrete, log) and categorical rows, sampling and log densities. */
#include "search/parzen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/truncnorm.h"

#define LOG_SQRT_2PI 0.91893853320467274178
#define LOG_CUT 60.0

void parzen_default_weights(int n, double *w) {
  int ramp = n < 25 ? 0 : n - 25;
  /* numpy.linspace(1/n, 1, ramp): the last point exactly 1, a single point the start. */
  for (int i = 0; i < ramp; i++)
    w[i] = ramp == 1 ? 1.0 / n
                     : i == ramp - 1 ? 1.0
                                     : 1.0 / n + i * ((1.0 - 1.0 / n) / (ramp - 1));
  for (int i = ramp; i < n; i++)
    w[i] = 1.0;
}

struct keyed_ {
  double v;
  int i;
};

/* By value, ties by position: a stable order, so equal observations get their bandwidths in
 * trial order. */
static int keyed_less_(const struct keyed_ *a, const struct keyed_ *b) {
  return a->v < b->v || (a->v == b->v && a->i < b->i);
}

/* Bottom-up merge sort through tmp[n]: a proposal sorts every dimension of two histories, and
 * qsort's comparator calls were a fifth of its time. */
static void keyed_sort_(struct keyed_ *s, struct keyed_ *tmp, int n) {
  for (int w = 1; w < n; w *= 2) {
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = keyed_less_(&s[j], &s[i]) ? s[j++] : s[i++];
      while (i < mid)
        tmp[k++] = s[i++];
      while (j < hi)
        tmp[k++] = s[j++];
    }
    memcpy(s, tmp, (size_t)n * sizeof *s);
  }
}

/* The transformed truncation interval of a numeric dimension: widened by half a step for a
 * discrete one (each grid point owns the interval around it), then logged. */
static void bounds_(const struct parzen_dim *d, double *lo, double *hi) {
  *lo = d->low;
  *hi = d->high;
  if (d->step > 0) {
    *lo -= d->step / 2;
    *hi += d->step / 2;
  }
  if (d->log) {
    *lo = log(*lo);
    *hi = log(*hi);
  }
}

/* Kernel centres and bandwidths of numeric dimension d: the larger distance to a sorted
 * neighbour (the bounds count as neighbours, except that the two outermost observations use
 * their inner neighbour only: consider_endpoints=False), clipped to [range / min(100, 1 +
 * n_kernels), range]; the prior kernel at the middle with bandwidth = range. */
static int numeric_kernels_(struct parzen *pe, int d, const double *obs, int n_obs,
                            struct fox_err *e) {
  const struct parzen_dim *dm = &pe->dim[d];
  int D = pe->n_dims, K = pe->n_kernels;
  double low = pe->lo[d], high = pe->hi[d];
  struct keyed_ *s = malloc((size_t)(n_obs > 0 ? n_obs : 1) * 2 * sizeof *s);
  double *ends = malloc((size_t)(n_obs + 2) * sizeof *ends);
  if (!s || !ends) {
    free(s);
    free(ends);
    mallocCheck(NULL, e);
  }
  for (int k = 0; k < n_obs; k++) {
    double v = obs[(size_t)k * D + d];
    if (!(v >= dm->low && v <= dm->high)) {
      free(s);
      free(ends);
      return fox_errf(e, FOX_EDATA, "observation %d: %g is outside [%g, %g]", k, v, dm->low,
                      dm->high);
    }
    s[k].v = dm->log ? log(v) : v;
    s[k].i = k;
    pe->mu[(size_t)k * D + d] = s[k].v;
  }
  keyed_sort_(s, s + n_obs, n_obs);
  ends[0] = low;
  for (int j = 0; j < n_obs; j++)
    ends[j + 1] = s[j].v;
  ends[n_obs + 1] = high;
  double maxsig = high - low, minsig = (high - low) / fmin(100.0, 1.0 + K);
  for (int j = 0; j < n_obs; j++) {
    double left = ends[j + 1] - ends[j], right = ends[j + 2] - ends[j + 1];
    double sg = left > right ? left : right;
    if (n_obs >= 2 && j == 0)
      sg = right;
    if (n_obs >= 2 && j == n_obs - 1)
      sg = left;
    pe->sig[(size_t)s[j].i * D + d] = sg < minsig ? minsig : sg > maxsig ? maxsig : sg;
  }
  free(s);
  free(ends);
  pe->mu[(size_t)n_obs * D + d] = 0.5 * (low + high);
  pe->sig[(size_t)n_obs * D + d] = high - low;
  for (int k = 0; k < K; k++) {
    double mu = pe->mu[(size_t)k * D + d], sg = pe->sig[(size_t)k * D + d];
    pe->isig[(size_t)k * D + d] = 1.0 / sg;
    /* Continuous: a density, so log sigma and log sqrt(2 pi) join the normaliser; discrete:
     * a mass, normalised by the mass of the widened range alone. */
    double norm = truncnorm_log_mass((low - mu) / sg, (high - mu) / sg);
    if (dm->step <= 0)
      norm += log(sg) + LOG_SQRT_2PI;
    pe->log_norm[k] -= norm;
  }
  return 0;
}

/* Categorical dimension d: every row prior_weight / n_kernels on each choice, +1 on the
 * observed one, normalised; the prior row is uniform. */
static int categorical_kernels_(struct parzen *pe, int d, const double *obs, int n_obs,
                                double prior_weight, struct fox_err *e) {
  int D = pe->n_dims, K = pe->n_kernels, nc = pe->dim[d].n_choices;
  double *cat = pe->cat + (size_t)pe->cat_off[d] * K;
  double *log_cat = pe->log_cat + (size_t)pe->cat_off[d] * K;
  for (int k = 0; k < K; k++) {
    double *row = cat + (size_t)k * nc;
    for (int c = 0; c < nc; c++)
      row[c] = n_obs == 0 ? 1.0 / nc : prior_weight / K;
    if (k < n_obs) {
      double v = obs[(size_t)k * D + d];
      if (!(v >= 0 && v < nc && v == floor(v)))
        return fox_errf(e, FOX_EDATA, "observation %d: %g is not a choice index in [0, %d)", k,
                        v, nc);
      row[(int)v] += 1;
    }
    double sum = 0;
    for (int c = 0; c < nc; c++)
      sum += row[c];
    for (int c = 0; c < nc; c++) {
      row[c] /= sum > 0 ? sum : 1;
      log_cat[(size_t)k * nc + c] = log(row[c]);
    }
  }
  return 0;
}

int parzen_build(struct parzen *pe, const struct parzen_dim *dim, int n_dims, const double *obs,
                 int n_obs, double prior_weight, struct fox_err *e) {
  return parzen_build_weighted(pe, dim, n_dims, obs, n_obs, NULL, prior_weight, e);
}

int parzen_build_weighted(struct parzen *pe, const struct parzen_dim *dim, int n_dims,
                          const double *obs, int n_obs, const double *weights,
                          double prior_weight, struct fox_err *e) {
  memset(pe, 0, sizeof *pe);
  int K = n_obs + 1, D = n_dims, C = 0;
  pe->n_dims = D;
  pe->n_kernels = K;
  pe->dim = dim;
  pe->cat_off = malloc((size_t)(D > 0 ? D : 1) * sizeof *pe->cat_off);
  mallocCheck(pe->cat_off, e);
  for (int d = 0; d < D; d++) {
    pe->cat_off[d] = C;
    C += dim[d].n_choices;
    pe->n_discrete += dim[d].n_choices == 0 && dim[d].step > 0;
  }
  size_t kd = (size_t)K * (D > 0 ? D : 1);
  pe->cum_w = malloc((size_t)K * sizeof(double));
  pe->log_norm = malloc((size_t)K * sizeof(double));
  pe->mu = malloc(kd * sizeof(double));
  pe->sig = malloc(kd * sizeof(double));
  pe->isig = malloc(kd * sizeof(double));
  pe->lo = malloc((size_t)(D > 0 ? D : 1) * sizeof(double));
  pe->hi = malloc((size_t)(D > 0 ? D : 1) * sizeof(double));
  pe->cat = malloc((size_t)K * (C > 0 ? C : 1) * sizeof(double));
  pe->log_cat = malloc((size_t)K * (C > 0 ? C : 1) * sizeof(double));
  if (!pe->cum_w || !pe->log_norm || !pe->mu || !pe->sig || !pe->isig || !pe->lo || !pe->hi ||
      !pe->cat || !pe->log_cat) {
    parzen_free(pe);
    mallocCheck(NULL, e);
  }

  /* Mixture weights: the observations' (given, or default_weights), then the prior's;
   * normalised. With no observation the prior alone. */
  double sum = 0;
  if (n_obs == 0) {
    pe->cum_w[0] = 1.0;
  } else {
    if (weights)
      memcpy(pe->cum_w, weights, (size_t)n_obs * sizeof *pe->cum_w);
    else
      parzen_default_weights(n_obs, pe->cum_w);
    pe->cum_w[n_obs] = prior_weight;
  }
  for (int k = 0; k < K; k++)
    sum += pe->cum_w[k];
  double acc = 0;
  for (int k = 0; k < K; k++) {
    double w = pe->cum_w[k] / sum;
    pe->log_norm[k] = log(w);
    acc += w;
    pe->cum_w[k] = acc;
  }
  for (int k = 0; k < K; k++) /* numpy's choice divides by the total: the last is exactly 1 */
    pe->cum_w[k] /= acc;

  for (int d = 0; d < D; d++) {
    int rc;
    if (dim[d].n_choices > 0) {
      rc = categorical_kernels_(pe, d, obs, n_obs, prior_weight, e);
    } else {
      bounds_(&dim[d], &pe->lo[d], &pe->hi[d]);
      rc = numeric_kernels_(pe, d, obs, n_obs, e);
    }
    if (rc != 0) {
      parzen_free(pe);
      return fox_err_wrap(e, "dimension %d", d);
    }
  }
  return 0;
}

void parzen_free(struct parzen *pe) {
  free(pe->cum_w);
  free(pe->log_norm);
  free(pe->mu);
  free(pe->sig);
  free(pe->isig);
  free(pe->lo);
  free(pe->hi);
  free(pe->cat);
  free(pe->log_cat);
  free(pe->cat_off);
  memset(pe, 0, sizeof *pe);
}

void parzen_sample(const struct parzen *pe, struct rng *r, int m, double *x) {
  int D = pe->n_dims, K = pe->n_kernels;
  for (int i = 0; i < m; i++) {
    /* The kernel: the first whose cumulative weight exceeds u (numpy's searchsorted right). */
    double u = rng_uniform(r);
    int lo = 0, hi = K - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (pe->cum_w[mid] > u)
        hi = mid;
      else
        lo = mid + 1;
    }
    int k = lo;
    for (int d = 0; d < D; d++) {
      const struct parzen_dim *dm = &pe->dim[d];
      double q = rng_uniform(r), v;
      if (dm->n_choices > 0) {
        const double *row = pe->cat + (size_t)pe->cat_off[d] * K + (size_t)k * dm->n_choices;
        int c = 0;
        double cum = row[0];
        while (c < dm->n_choices - 1 && cum < q)
          cum += row[++c];
        v = c;
      } else {
        double mu = pe->mu[(size_t)k * D + d], sg = pe->sig[(size_t)k * D + d];
        v = mu + sg * truncnorm_ppf(q, (pe->lo[d] - mu) / sg, (pe->hi[d] - mu) / sg);
        if (dm->log)
          v = exp(v);
        if (dm->step > 0)
          v = dm->low + round((v - dm->low) / dm->step) * dm->step;
        v = v < dm->low ? dm->low : v > dm->high ? dm->high : v;
      }
      x[(size_t)i * D + d] = v;
    }
  }
}

int parzen_log_pdf(const struct parzen *pe, const double *x, int m, double *out,
                   struct fox_err *e) {
  int D = pe->n_dims, K = pe->n_kernels;
  double *s = malloc((size_t)K * sizeof *s);
  double *xt = malloc((size_t)(D > 0 ? D : 1) * 2 * sizeof *xt);
  if (!s || !xt) {
    free(s);
    free(xt);
    mallocCheck(NULL, e);
  }
  for (int i = 0; i < m; i++) {
    const double *xi = x + (size_t)i * D;
    int outside = 0;
    /* The point in transformed units: a continuous value, or a grid point's interval. */
    for (int d = 0; d < D; d++) {
      const struct parzen_dim *dm = &pe->dim[d];
      if (dm->n_choices > 0)
        continue;
      outside |= !(xi[d] >= dm->low && xi[d] <= dm->high);
      double a = xi[d], b = xi[d];
      if (dm->step > 0) {
        a -= dm->step / 2;
        b += dm->step / 2;
      }
      xt[2 * d] = dm->log ? log(a) : a;
      xt[2 * d + 1] = dm->log ? log(b) : b;
    }
    if (outside) {
      out[i] = -INFINITY;
      continue;
    }
    /* Kernels more than LOG_CUT below the best add under e^-60 each to a sum of at least 1:
     * nothing a double can hold, so they are skipped, and with them the costly discrete masses
     * of every kernel already that far behind on its other dimensions (the masses are <= 1). */
    double best = -INFINITY;
    for (int k = 0; k < K; k++) {
      double lp = pe->log_norm[k], quad = 0;
      const double *mu = pe->mu + (size_t)k * D, *isig = pe->isig + (size_t)k * D;
      for (int d = 0; d < D; d++) {
        const struct parzen_dim *dm = &pe->dim[d];
        if (dm->n_choices > 0) {
          lp += pe->log_cat[(size_t)pe->cat_off[d] * K + (size_t)k * dm->n_choices + (int)xi[d]];
        } else if (dm->step <= 0) {
          double z = (xt[2 * d] - mu[d]) * isig[d];
          quad += z * z;
        }
      }
      lp -= 0.5 * quad;
      for (int d = 0; d < D && pe->n_discrete && lp >= best - LOG_CUT; d++) {
        const struct parzen_dim *dm = &pe->dim[d];
        if (dm->n_choices == 0 && dm->step > 0)
          lp += truncnorm_log_mass((xt[2 * d] - mu[d]) * isig[d],
                                   (xt[2 * d + 1] - mu[d]) * isig[d]);
      }
      s[k] = lp;
      if (lp > best)
        best = lp;
    }
    /* log-sum-exp; an all-zero mixture stays -inf rather than NaN. */
    if (best == -INFINITY) {
      out[i] = -INFINITY;
      continue;
    }
    double sum = 0;
    for (int k = 0; k < K; k++)
      if (s[k] >= best - LOG_CUT)
        sum += exp(s[k] - best);
    out[i] = best + log(sum);
  }
  free(s);
  free(xt);
  return 0;
}
