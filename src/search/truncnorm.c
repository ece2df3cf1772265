/* Truncated standard normal numerics in log space, ported from Optuna 5.1's _truncnorm.py
 * (BSD-3, after SciPy's truncnorm): every difference of CDFs is taken in the tail where it
 * keeps its digits, so kernels ten or a hundred sigmas from a bound stay finite. */
#include "search/truncnorm.h"

#include <float.h>
#include <math.h>

#define LOG_SQRT_2PI 0.91893853320467274178 /* log sqrt(2 pi) */

/* Phi(a) from erf near 0 and erfc in the tails, as Optuna's _ndtr_single. */
static double ndtr_(double a) {
  double x = a * 0.70710678118654752440;
  if (x < -0.70710678118654752440)
    return 0.5 * erfc(-x);
  if (x < 0.70710678118654752440)
    return 0.5 + 0.5 * erf(x);
  return 1.0 - 0.5 * erfc(x);
}

double truncnorm_log_ndtr(double a) {
  if (a > 6)
    return -ndtr_(-a); /* log(1 - t) = -t to rounding for t < 1e-9 */
  if (a > -20)
    return log(ndtr_(a));
  if (isnan(a))
    return a;
  /* Phi(a) = phi(a)/(-a) (1 - 1/a^2 + 3/a^4 - ...): for a <= -20 the terms shrink fast enough
   * that the series meets double precision within a few terms. */
  double log_lhs = -0.5 * a * a - log(-a) - LOG_SQRT_2PI;
  double last = 0.0, rhs = 1.0, num = 1.0, den = 1.0, den_step = 1.0 / (a * a);
  int sign = 1;
  for (int i = 1; i < 100 && fabs(last - rhs) > DBL_EPSILON; i++) {
    last = rhs;
    sign = -sign;
    den *= den_step;
    num *= 2 * i - 1;
    rhs += sign * num * den;
  }
  return log_lhs + log(rhs);
}

/* log(e^p - e^q) for p >= q. */
static double log_diff_(double p, double q) { return p + log1p(-exp(q - p)); }

/* log(e^p + e^q). */
static double log_sum_(double p, double q) {
  double m = p > q ? p : q;
  if (m == -INFINITY)
    return -INFINITY;
  return m + log1p(exp(-fabs(p - q)));
}

double truncnorm_log_mass(double a, double b) {
  if (!(a < b))
    return -INFINITY;
  if (b <= 0)
    return log_diff_(truncnorm_log_ndtr(b), truncnorm_log_ndtr(a));
  if (a > 0) /* the right tail, mirrored into the left where log Phi is accurate */
    return log_diff_(truncnorm_log_ndtr(-a), truncnorm_log_ndtr(-b));
  /* Straddling 0: 1 - Phi(a) - Phi(-b) avoids the cancellation of a mass near 1. */
  return log1p(-ndtr_(a) - ndtr_(-b));
}

double truncnorm_ndtri_exp(double y) {
  if (y >= 0)
    return INFINITY;
  if (y == -INFINITY || isnan(y))
    return -INFINITY;
  /* Near y = 0 solve for -x in the left tail instead: log Phi(-x) = log(1 - e^y). */
  int flipped = y > -1e-2;
  double z = flipped ? log(-expm1(y)) : y;
  /* Start: the tail asymptote for small z, the logistic approximation of Phi otherwise. */
  double x = z < -5 ? -sqrt(-2.0 * (z + LOG_SQRT_2PI))
                    : -0.55132889542179204575 * log(expm1(-z)); /* sqrt(3) / pi */
  for (int it = 0; it < 100; it++) {
    double l = truncnorm_log_ndtr(x);
    double dx = (l - z) * exp(l + 0.5 * x * x + LOG_SQRT_2PI); /* (l - z) Phi / phi */
    x -= dx;
    if (!(fabs(dx) >= 1e-8 * fabs(x)) || dx == 0)
      break;
  }
  return flipped ? -x : x;
}

double truncnorm_ppf(double q, double a, double b) {
  if (!(a < b))
    return a;
  if (q <= 0)
    return a;
  if (q >= 1)
    return b;
  double log_mass = truncnorm_log_mass(a, b), x;
  if (a < 0)
    x = truncnorm_ndtri_exp(log_sum_(truncnorm_log_ndtr(a), log(q) + log_mass));
  else /* mirrored, for the accuracy of the left tail */
    x = -truncnorm_ndtri_exp(log_sum_(truncnorm_log_ndtr(-b), log1p(-q) + log_mass));
  /* Newton stops at a relative 1e-8, so a quantile at a bound may step a hair outside it. */
  if (!(x >= a))
    x = isnan(x) ? 0.5 * (a + b) : a;
  return x > b ? b : x;
}
