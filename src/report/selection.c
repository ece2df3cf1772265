/* PSR, DSR, MinTRL and CSCV's probability of backtest overfitting (conventions in selection.h). */
#include "report/selection.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SELECTION_EULER_GAMMA 0.57721566490153286061
#define SELECTION_E 2.71828182845904523536
#define SELECTION_MAX_BLOCKS 24

double selection_norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* Wichura, M. J. (1988), Algorithm AS 241: the percentage points of the normal distribution,
 * Applied Statistics 37(3), 477-484: PPND16, three rational approximations of degree 7 (the
 * centre |p - 1/2| <= 0.425, then r = sqrt(-ln min(p, 1-p)) up to 5 and beyond). */
double selection_norm_ppf(double p) {
  if (isnan(p) || p < 0.0 || p > 1.0)
    return NAN;
  if (p == 0.0)
    return -INFINITY;
  if (p == 1.0)
    return INFINITY;
  double q = p - 0.5;
  if (fabs(q) <= 0.425) {
    double r = 0.180625 - q * q;
    return q *
           (((((((2509.0809287301226727 * r + 33430.575583588128105) * r +
                 67265.770927008700853) * r + 45921.953931549871457) * r +
               13731.693765509461125) * r + 1971.5909503065514427) * r +
             133.14166789178437745) * r + 3.387132872796366608) /
           (((((((5226.495278852854561 * r + 28729.085735721942674) * r +
                 39307.89580009271061) * r + 21213.794301586595867) * r +
               5394.1960214247511077) * r + 687.1870074920579083) * r +
             42.313330701600911252) * r + 1.0);
  }
  /* 1 - p is exact for p >= 1/2 (Sterbenz), so the upper tail loses nothing here. */
  double r = sqrt(-log(q < 0.0 ? p : 1.0 - p)), x;
  if (r <= 5.0) {
    r -= 1.6;
    x = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r +
              0.24178072517745061177) * r + 1.27045825245236838258) * r +
            3.64784832476320460504) * r + 5.7694972214606914055) * r +
          4.6303378461565452959) * r + 1.42343711074968357734) /
        (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r +
              0.0151986665636164571966) * r + 0.14810397642748007459) * r +
            0.68976733498510000455) * r + 1.6763848301838038494) * r +
          2.05319162663775882187) * r + 1.0);
  } else {
    r -= 5.0;
    x = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r +
              0.0012426609473880784386) * r + 0.026532189526576123093) * r +
            0.29656057182850489123) * r + 1.7848265399172913358) * r +
          5.4637849111641143699) * r + 6.6579046435011037772) /
        (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r +
              1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
            0.0148753612908506148525) * r + 0.13692988092273580531) * r +
          0.59983220655588793769) * r + 1.0);
  }
  return q < 0.0 ? -x : x;
}

int selection_moments(const double *r, long t, struct sr_moments *out, struct fox_err *e) {
  if (t < 1)
    return fox_errf(e, FOX_EUSAGE, "selection: a return series needs at least one return, "
                                   "got %ld", t);
  if (r == NULL)
    return fox_errf(e, FOX_EUSAGE, "selection: no return series");
  double mean = 0.0, m2 = 0.0;
  for (long i = 0; i < t; i++) {
    if (!isfinite(r[i]))
      return fox_errf(e, FOX_EDATA, "selection: return %ld (counted from 0) is %g, not a "
                                    "finite number", i, r[i]);
    double d = r[i] - mean;
    mean += d / (double)(i + 1);
    m2 += d * (r[i] - mean);
  }
  double sd = t > 1 ? sqrt(m2 / (double)(t - 1)) : 0.0;
  out->t = t;
  out->sr = sd > 0.0 ? mean / sd : 0.0;
  /* The third and fourth moments about the Welford mean, in a second pass: centred, so that a
   * mean far from 0 costs nothing. */
  double s2 = 0.0, s3 = 0.0, s4 = 0.0;
  for (long i = 0; i < t; i++) {
    double d = r[i] - mean, d2 = d * d;
    s2 += d2;
    s3 += d2 * d;
    s4 += d2 * d2;
  }
  double b2 = s2 / (double)t, b3 = s3 / (double)t, b4 = s4 / (double)t;
  double eps_mean = DBL_EPSILON * mean;
  if (b2 <= eps_mean * eps_mean) {
    out->skew = out->kurt = NAN;
  } else {
    out->skew = b3 / (b2 * sqrt(b2));
    out->kurt = b4 / (b2 * b2);
  }
  return 0;
}

/* The variance term of the Sharpe estimator's standard error (Mertens 2002, as in PSR and
 * MinTRL): t - 1 times the variance of sr under non-normal IID returns. */
static double sr_var_term_(const struct sr_moments *m) {
  return 1.0 - m->skew * m->sr + (m->kurt - 1.0) / 4.0 * m->sr * m->sr;
}

double selection_psr(const struct sr_moments *m, double sr_star) {
  double v = sr_var_term_(m);
  if (m->t < 2 || !(v > 0.0) || isnan(sr_star))
    return NAN;
  return selection_norm_cdf((m->sr - sr_star) * sqrt((double)(m->t - 1)) / sqrt(v));
}

double selection_expected_max_sr(double var_sr, long n) {
  if (n < 1 || !(var_sr >= 0.0) || isinf(var_sr))
    return NAN;
  if (n == 1)
    return 0.0;
  double g = SELECTION_EULER_GAMMA, nn = (double)n;
  return sqrt(var_sr) * ((1.0 - g) * selection_norm_ppf(1.0 - 1.0 / nn) +
                         g * selection_norm_ppf(1.0 - 1.0 / (nn * SELECTION_E)));
}

double selection_sr_variance(const double *sr, long n) {
  double mean = 0, m2 = 0;
  for (long j = 0; j < n; j++) {
    double d = sr[j] - mean;
    mean += d / (double)(j + 1);
    m2 += d * (sr[j] - mean);
  }
  return n > 1 ? m2 / (double)(n - 1) : 0;
}

double selection_dsr(const struct sr_moments *m, double var_sr, long n) {
  return selection_psr(m, selection_expected_max_sr(var_sr, n));
}

double selection_min_trl(const struct sr_moments *m, double sr_star, double alpha) {
  double v = sr_var_term_(m);
  if (!(alpha > 0.0 && alpha < 1.0) || !(v > 0.0) || isnan(sr_star))
    return NAN;
  if (m->sr <= sr_star)
    return INFINITY;
  double z = selection_norm_ppf(1.0 - alpha) / (m->sr - sr_star);
  return 1.0 + v * z * z;
}

int selection_combo_next(int *c, int k, int s) {
  /* The rightmost index that can still move right; everything after it restarts packed. */
  int i = k - 1;
  while (i >= 0 && c[i] == s - k + i)
    i--;
  if (i < 0)
    return 0;
  c[i]++;
  for (int j = i + 1; j < k; j++)
    c[j] = c[j - 1] + 1;
  return 1;
}

static long binomial_(int s, int k) {
  long b = 1;
  for (int i = 1; i <= k; i++)
    b = b * (s - k + i) / i; /* b * (s-k+i) = C(s-k+i, i) * i: the division is exact */
  return b;
}

void selection_pbo_free(struct pbo_result *r) {
  free(r->best);
  free(r->logits);
  free(r->is_sr);
  free(r->oos_sr);
  memset(r, 0, sizeof *r);
}

/* Per-bar Sharpe of every strategy over the union of k blocks set[0..k): the blocks' Welford
 * (mean, M2) merged one block at a time by Chan et al.'s pairwise update, which with equal
 * counts L reads mean += delta / (i+1), M2 += M2_b + delta^2 L i / (i+1). Strategies are the
 * inner loop, contiguous in bmean/bm2, so the merge vectorises. */
static void half_sharpe_(const double *bmean, const double *bm2, const int *set, int k, long l,
                         int n, double *mean, double *m2, double *sr) {
  memcpy(mean, bmean + (size_t)set[0] * n, sizeof *mean * (size_t)n);
  memcpy(m2, bm2 + (size_t)set[0] * n, sizeof *m2 * (size_t)n);
  for (int i = 1; i < k; i++) {
    const double *bm = bmean + (size_t)set[i] * n, *bv = bm2 + (size_t)set[i] * n;
    double inv = 1.0 / (double)(i + 1), w = (double)l * (double)i / (double)(i + 1);
    for (int j = 0; j < n; j++) {
      double d = bm[j] - mean[j];
      mean[j] += d * inv;
      m2[j] += bv[j] + d * d * w;
    }
  }
  double dof = (double)k * (double)l - 1.0;
  for (int j = 0; j < n; j++) {
    double sd = sqrt(m2[j] / dof);
    sr[j] = sd > 0.0 ? mean[j] / sd : 0.0;
  }
}

/* Ordinary least squares of y on x over n points, from centred sums. All-equal x (or y) is
 * tested directly: the centred sums of n equal values need not be exactly 0, since their
 * computed mean need not be exactly that value. */
static void ols_(const double *x, const double *y, long n, double *slope, double *intercept,
                 double *r2) {
  double mx = 0.0, my = 0.0, xmin = x[0], xmax = x[0], ymin = y[0], ymax = y[0];
  for (long i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
    xmin = fmin(xmin, x[i]);
    xmax = fmax(xmax, x[i]);
    ymin = fmin(ymin, y[i]);
    ymax = fmax(ymax, y[i]);
  }
  mx /= (double)n;
  my /= (double)n;
  if (xmin == xmax) {
    *slope = *intercept = *r2 = NAN;
    return;
  }
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (long i = 0; i < n; i++) {
    double dx = x[i] - mx, dy = y[i] - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  *slope = sxy / sxx;
  *intercept = my - *slope * mx;
  *r2 = ymin == ymax ? NAN : sxy * sxy / (sxx * syy);
}

int selection_pbo(const double *m, long t, int n, int s, struct pbo_result *out,
                  struct fox_err *e) {
  memset(out, 0, sizeof *out);
  if (s < 2 || s > SELECTION_MAX_BLOCKS || s % 2 != 0)
    return fox_errf(e, FOX_EUSAGE, "selection: CSCV needs an even number of blocks between 2 "
                                   "and %d, got %d", SELECTION_MAX_BLOCKS, s);
  if (n < 2)
    return fox_errf(e, FOX_EDATA, "selection: a selection needs at least 2 strategies, got %d",
                    n);
  if (t < 0 || t / s < 2)
    return fox_errf(e, FOX_EDATA, "selection: %ld bars in %d blocks leave %ld per block; "
                                  "CSCV needs at least 2 (a Sharpe ratio needs two returns)",
                    t, s, t < 0 ? 0L : t / s);
  if (m == NULL)
    return fox_errf(e, FOX_EUSAGE, "selection: no return matrix");
  for (long i = 0; i < t; i++)
    for (int j = 0; j < n; j++)
      if (!isfinite(m[(size_t)i * n + j]))
        return fox_errf(e, FOX_EDATA, "selection: row %ld, column %d (counted from 0) is %g, "
                                      "not a finite return", i, j, m[(size_t)i * n + j]);
  int k = s / 2;
  long l = t / s, drop = t % s, combos = binomial_(s, k);

  /* Per block and strategy: Welford's mean and M2 over the block's L rows. */
  double *bmean = calloc((size_t)s * n, sizeof *bmean);
  double *bm2 = calloc((size_t)s * n, sizeof *bm2);
  double *work = malloc(sizeof *work * (size_t)n * 4);
  out->best = malloc(sizeof *out->best * (size_t)combos);
  out->logits = malloc(sizeof *out->logits * (size_t)combos);
  out->is_sr = malloc(sizeof *out->is_sr * (size_t)combos);
  out->oos_sr = malloc(sizeof *out->oos_sr * (size_t)combos);
  if (!bmean || !bm2 || !work || !out->best || !out->logits || !out->is_sr || !out->oos_sr) {
    free(bmean);
    free(bm2);
    free(work);
    selection_pbo_free(out);
    return fox_errf(e, FOX_EFAIL, "out of memory (%ld combinations of %d strategies)%s", combos,
                    n, fox_src_at(__FILE__, __LINE__));
  }
  for (int b = 0; b < s; b++) {
    double *mu = bmean + (size_t)b * n, *v = bm2 + (size_t)b * n;
    for (long i = 0; i < l; i++) {
      const double *row = m + (size_t)(drop + b * l + i) * n;
      double inv = 1.0 / (double)(i + 1);
      for (int j = 0; j < n; j++) {
        double d = row[j] - mu[j];
        mu[j] += d * inv;
        v[j] += d * (row[j] - mu[j]);
      }
    }
  }

  double *mean = work, *m2 = work + n, *is = work + 2 * (size_t)n, *oos = work + 3 * (size_t)n;
  int in[SELECTION_MAX_BLOCKS / 2], rest[SELECTION_MAX_BLOCKS / 2];
  for (int i = 0; i < k; i++)
    in[i] = i;
  long below = 0, losses = 0;
  for (long c = 0; c < combos; c++) {
    int taken = 0, r = 0;
    for (int b = 0; b < s; b++) {
      if (taken < k && in[taken] == b)
        taken++;
      else
        rest[r++] = b;
    }
    half_sharpe_(bmean, bm2, in, k, l, n, mean, m2, is);
    half_sharpe_(bmean, bm2, rest, k, l, n, mean, m2, oos);
    int best = 0;
    for (int j = 1; j < n; j++)
      if (is[j] > is[best])
        best = j;
    long less = 0, equal = 0;
    for (int j = 0; j < n; j++) {
      less += oos[j] < oos[best];
      equal += oos[j] == oos[best];
    }
    double rank = (double)less + 0.5 * (double)(equal + 1); /* mid-rank of the tied run */
    double logit = log(rank / ((double)n + 1.0 - rank));
    out->best[c] = best;
    out->logits[c] = logit;
    out->is_sr[c] = is[best];
    out->oos_sr[c] = oos[best];
    below += 2.0 * rank <= (double)n + 1.0; /* logit <= 0, without trusting log(1) */
    losses += oos[best] < 0.0;
    selection_combo_next(in, k, s);
  }
  free(bmean);
  free(bm2);
  free(work);

  out->blocks = s;
  out->block_rows = l;
  out->dropped_rows = drop;
  out->combos = combos;
  out->pbo = (double)below / (double)combos;
  out->prob_oos_loss = (double)losses / (double)combos;
  ols_(out->is_sr, out->oos_sr, combos, &out->slope, &out->intercept, &out->r2);
  return 0;
}
