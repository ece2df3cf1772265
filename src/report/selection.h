/* The statistics of a selection you can trust: the probabilistic and deflated Sharpe ratios, the
 * minimum track record length, and the probability of backtest overfitting by combinatorially
 * symmetric cross-validation. Pure arithmetic on arrays: no file I/O, no globals. */
#ifndef FOX_SELECTION_H
#define FOX_SELECTION_H

#include "util/error.h"

/* Conventions shared by every function here:
 * - Returns are per bar, and every Sharpe ratio is per bar (not annualised): mean / std with
 *   std the sample standard deviation (ddof = 1), and 0 when that std is exactly 0 (as the
 *   metrics' sharpe before annualisation). Mean and variance are accumulated by Welford's
 *   update and blocks are merged by Chan et al.'s pairwise formula, never as
 *   sum r^2 - (sum r)^2 / n: per-bar returns of ~1e-4 around a mean of ~1e-6 lose every digit
 *   to that cancellation. Both updates keep a constant series exactly constant, so its std is
 *   exactly 0 (a two-pass mean of n copies of 0.1 is not exactly 0.1 and leaves ~1e-17 of std).
 * - Skewness and kurtosis are the biased (population) moments of scipy.stats.skew and
 *   scipy.stats.kurtosis(fisher=False) with bias=True: m3 / m2^1.5 and m4 / m2^2 with
 *   mk = mean((r - mean)^k). Kurtosis is non-excess: 3 for a normal distribution. Both are NaN
 *   when m2 <= (DBL_EPSILON * mean)^2, the level at which m2 is rounding noise (scipy's rule).
 * - A figure that is undefined is NaN; the functions returning double never fail otherwise. */

/* The standard normal CDF, Phi(x) = erfc(-x / sqrt 2) / 2: erfc keeps the lower tail's relative
 * precision where 1 + erf(x) would cancel to 0. */
double selection_norm_cdf(double x);
/* Its inverse, Phi^-1(p), by Wichura's AS 241 (PPND16), accurate to about 1e-16 relative:
 * -inf at p = 0, +inf at p = 1, NaN outside [0, 1]. */
double selection_norm_ppf(double p);

/* The moments of one per-bar return series r[0..t). */
struct sr_moments {
  long t;     /* number of returns */
  double sr;  /* per-bar Sharpe ratio, mean / std (ddof = 1); 0 when t < 2 or std = 0 */
  double skew, kurt; /* biased skewness and non-excess kurtosis; NaN when m2 is 0 */
};
/* Fails (FOX_EUSAGE) when t < 1 and (FOX_EDATA) on a non-finite return, naming its index
 * (counted from 0). */
int selection_moments(const double *r, long t, struct sr_moments *out, struct fox_err *e);

/* Probabilistic Sharpe ratio (Bailey & Lopez de Prado 2012, "The Sharpe ratio efficient
 * frontier"): the probability that the true per-bar Sharpe exceeds sr_star,
 *   Phi((sr - sr_star) sqrt(t - 1) / sqrt(1 - skew sr + (kurt - 1) / 4 sr^2)).
 * NaN when t < 2 or the variance term under the root is not > 0 (or NaN). */
double selection_psr(const struct sr_moments *m, double sr_star);

/* Expected maximum per-bar Sharpe of n independent trials whose true Sharpe is 0 and whose
 * estimated Sharpes have cross-trial variance var_sr (Bailey & Lopez de Prado 2014, "The
 * deflated Sharpe ratio", SR*_0 with gamma the Euler-Mascheroni constant):
 *   sqrt(var_sr) ((1 - gamma) Phi^-1(1 - 1/n) + gamma Phi^-1(1 - 1/(n e))).
 * 0 for n = 1 (no selection, nothing to deflate); NaN for n < 1 or var_sr < 0, inf or NaN. */
double selection_expected_max_sr(double var_sr, long n);

/* The sample variance (ddof = 1, Welford) of n per-bar Sharpe ratios, the V of the deflated
 * Sharpe ratio; 0 for n < 2 (one trial: nothing was selected). */
double selection_sr_variance(const double *sr, long n);

/* Deflated Sharpe ratio: PSR against the expected maximum of n null trials,
 * selection_psr(m, selection_expected_max_sr(var_sr, n)). m is the selected trial's series
 * and var_sr the variance of the per-bar Sharpes across all n trials, in the same units. */
double selection_dsr(const struct sr_moments *m, double var_sr, long n);

/* Minimum track record length in bars (Bailey & Lopez de Prado 2012): the t at which PSR at
 * sr_star reaches 1 - alpha for these moments,
 *   1 + (1 - skew sr + (kurt - 1) / 4 sr^2) (Phi^-1(1 - alpha) / (sr - sr_star))^2.
 * +inf when sr <= sr_star (no length is enough); NaN when alpha is not in (0, 1) or the
 * variance term is not > 0 (or NaN). */
double selection_min_trl(const struct sr_moments *m, double sr_star, double alpha);

/* Combinatorially symmetric cross-validation (Bailey, Borwein, Lopez de Prado & Zhu 2017, "The
 * probability of backtest overfitting") over a T x N matrix of per-bar returns, row-major:
 * m[t * n + j] is the return of strategy j at bar t, row 0 the oldest.
 * - The rows are cut into s blocks of L = floor(T / s) consecutive rows; the T mod s OLDEST
 *   rows are dropped, so that the most recent data always counts.
 * - Every one of the C(s, s/2) sets of s/2 blocks, in lexicographic order of the block
 *   indices (selection_combo_next), is the in-sample (IS) half once; the other s/2 blocks are
 *   its out-of-sample (OOS) half. Combination c's complement is combination combos - 1 - c.
 * - The performance of a strategy on a half is the per-bar Sharpe of that half's rows (mean /
 *   std, ddof = 1, 0 when std = 0), as if those rows were one series.
 * - n* is the IS best (ties: the lowest index). Its OOS relative rank is w = rank / (N + 1),
 *   rank its 1-based ascending position among the N OOS Sharpes (ties: the mid-rank, so two
 *   strategies tied for 1st and 2nd both rank 1.5); logit = ln(w / (1 - w)).
 * - pbo is the share of combinations with logit <= 0 (n* at or below the OOS median).
 * - slope, intercept, r2: the ordinary least squares line of n*'s OOS Sharpe on its IS Sharpe
 *   across combinations (the performance degradation); NaN when every IS Sharpe is equal, and
 *   r2 also NaN when every OOS Sharpe is equal.
 * - prob_oos_loss: the share of combinations whose n* has an OOS Sharpe < 0. */
struct pbo_result {
  int blocks;          /* s */
  long block_rows;     /* L = floor(T / s) */
  long dropped_rows;   /* T mod s, the oldest */
  long combos;         /* C(s, s/2) */
  double pbo, slope, intercept, r2, prob_oos_loss;
  /* Per combination, in enumeration order: */
  int *best;           /* n* */
  double *logits, *is_sr, *oos_sr; /* n*'s logit, IS and OOS Sharpe */
};
/* Fails (FOX_EUSAGE) unless s is even with 2 <= s <= 24: C(24, 12) = 2,704,156 combinations
 * already take ~25 s at N = 500 on one core (C(16, 8) = 12,870 take ~0.1 s). Fails (FOX_EDATA)
 * when n < 2, when T / s < 2 rows per block (a block's Sharpe needs two returns), or on a
 * non-finite entry (naming its row and column, counted from 0). On failure *out holds no
 * memory. Free with selection_pbo_free. */
int selection_pbo(const double *m, long t, int n, int s, struct pbo_result *out,
                  struct fox_err *e);
void selection_pbo_free(struct pbo_result *r);

/* The enumeration selection_pbo walks: c[0..k) strictly increasing block indices in [0, s),
 * starting from {0, 1, ..., k-1}; advances c to the next set in lexicographic order and
 * returns 1, or returns 0 (c unchanged) after the last, {s-k, ..., s-1}. */
int selection_combo_next(int *c, int k, int s);

#endif
