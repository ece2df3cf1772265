/* The standard normal truncated to [a, b], in log space: log Phi accurate in both tails, the
 * log mass of an interval, and the inverse CDF, after Optuna's _truncnorm.py (itself after
 * SciPy), so that a kernel far from its bounds gives finite densities and samples. */
#ifndef FOX_TRUNCNORM_H
#define FOX_TRUNCNORM_H

/* log Phi(a): exact to rounding for a > -20, the asymptotic series below, -0 far right. */
double truncnorm_log_ndtr(double a);
/* log(Phi(b) - Phi(a)) for a <= b, computed in whichever tail loses no digits; -inf when
 * a >= b. */
double truncnorm_log_mass(double a, double b);
/* x with log Phi(x) = y (y <= 0): Newton's method on log Phi from an asymptotic start. */
double truncnorm_ndtri_exp(double y);
/* The q-quantile (0 <= q <= 1) of N(0, 1) truncated to [a, b]; always inside [a, b]. */
double truncnorm_ppf(double q, double a, double b);

#endif
