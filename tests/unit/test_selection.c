/* src/report/selection.c: the deflated Sharpe ratio's published example, PSR/DSR/MinTRL worked
 * by hand, their edge cases, and CSCV's enumeration, a hand-worked PBO, the null (pure noise:
 * PBO ~ 0.5), a real edge (PBO ~ 0) and determinism. The e2e test selection_ref.sh compares
 * everything with an independent Python reference on larger matrices. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fox_check.h"
#include "report/selection.h"
#include "util/rng.h"

static struct sr_moments moments_(long t, double sr, double skew, double kurt) {
  struct sr_moments m = {t, sr, skew, kurt};
  return m;
}

/* Phi and Phi^-1 against scipy.stats.norm (cephes' ndtri and ndtr, not AS 241), one point per
 * branch of AS 241: the centre (|p - 1/2| <= 0.425), the tail up to r = 5, the far tail. */
static void test_normal(void) {
  CHECK_NEAR(selection_norm_ppf(0.5), 0.0, 1e-300, 0.0);
  CHECK_NEAR(selection_norm_ppf(0.8), 0.8416212335729143, 0, 1e-15);
  CHECK_NEAR(selection_norm_ppf(0.95), 1.6448536269514722, 0, 1e-15);
  CHECK_NEAR(selection_norm_ppf(0.975), 1.959963984540054, 0, 1e-15);
  CHECK_NEAR(selection_norm_ppf(0.99), 2.3263478740408408, 0, 1e-15);
  CHECK_NEAR(selection_norm_ppf(1e-10), -6.361340902404056, 0, 1e-15);
  CHECK_NEAR(selection_norm_ppf(1e-300), -37.0470962993612, 0, 1e-14);
  CHECK(isinf(selection_norm_ppf(0.0)) && selection_norm_ppf(0.0) < 0, "ppf(0) = -inf");
  CHECK(isinf(selection_norm_ppf(1.0)) && selection_norm_ppf(1.0) > 0, "ppf(1) = +inf");
  CHECK(isnan(selection_norm_ppf(-0.1)) && isnan(selection_norm_ppf(1.5)) &&
            isnan(selection_norm_ppf(NAN)),
        "ppf outside [0, 1] is NaN");
  CHECK_NEAR(selection_norm_cdf(1.0), 0.8413447460685429, 0, 1e-15);
  CHECK_NEAR(selection_norm_cdf(-5.0), 2.866515718791933e-07, 0, 1e-14);
  /* Round trips and symmetry over the whole range, every branch. p = i/2048 and 1 - p are exact
   * in binary, so the symmetry must be exact too. A round trip's error is the ppf's times the
   * condition number of Phi, |x phi(x) / Phi(x)| ~ max(1, x^2) in the lower tail. */
  double worst = 0.0;
  for (int i = 1; i < 2048; i++) {
    double p = i / 2048.0, x = selection_norm_ppf(p);
    worst = fmax(worst, fabs(selection_norm_cdf(x) - p) / p / fmax(1.0, x * x));
    CHECK(selection_norm_ppf(1.0 - p) == -x, "ppf(1-p) = %.17g, -ppf(p) = %.17g at p = %g",
          selection_norm_ppf(1.0 - p), -x, p);
  }
  for (int k = 3; k <= 300; k += 3) {
    double p = pow(10.0, -k), x = selection_norm_ppf(p);
    worst = fmax(worst, fabs(selection_norm_cdf(x) - p) / p / (x * x));
  }
  CHECK(worst < 1e-15, "cdf(ppf(p)) = p to %.3g relative per unit of condition", worst);
}

static void test_dsr_paper(void) {
  double sr = 2.5 / sqrt(250.0), v = 0.5 / 250.0;
  double sr0 = selection_expected_max_sr(v, 100);
  CHECK(fabs(sr0 - 0.1132) <= 0.00005, "SR*_0 = %.6f, the paper prints 0.1132", sr0);
  CHECK_NEAR(sr0, 0.11317200186513214, 0, 1e-13);
  struct sr_moments m = moments_(1250, sr, -3.0, 10.0);
  double dsr = selection_dsr(&m, v, 100);
  CHECK(fabs(dsr - 0.9004) <= 0.00005, "DSR = %.6f, the paper prints 0.9004", dsr);
  CHECK_NEAR(dsr, 0.9003968344493903, 0, 1e-12);
  /* Without the selection (N = 1) it is PSR(0): z = 0.158113883 * 35.341194 / 1.2371708. */
  CHECK_NEAR(selection_dsr(&m, v, 1), 0.9999968595078976, 0, 1e-12);
  CHECK(selection_dsr(&m, v, 1) == selection_psr(&m, 0.0), "DSR with one trial is PSR(0)");
}

static void test_psr_min_trl(void) {
  /* sr = 0.1 over t = 101 normal returns (skew 0, kurt 3), against 0:
   *   variance term 1 - 0 + (3 - 1)/4 * 0.01 = 1.005
   *   z = 0.1 * sqrt(100) / sqrt(1.005) = 1 / 1.002496883 = 0.997509336
   *   PSR = Phi(0.997509336) = 0.840741328 */
  struct sr_moments m = moments_(101, 0.1, 0.0, 3.0);
  CHECK_NEAR(selection_psr(&m, 0.0), 0.8407413278013518, 0, 1e-13);
  /* MinTRL at 95%: 1 + 1.005 (Phi^-1(0.95) / 0.1)^2 = 1 + 1.005 * (16.448536270)^2
   *   = 1 + 1.005 * 270.554345410 = 272.907117137 bars. */
  double trl = selection_min_trl(&m, 0.0, 0.05);
  CHECK_NEAR(trl, 272.907117136589, 0, 1e-13);
  /* By construction PSR reaches 0.95 at t = MinTRL: below it at 272 bars, above at 273. */
  struct sr_moments lo = moments_(272, 0.1, 0.0, 3.0), hi = moments_(273, 0.1, 0.0, 3.0);
  CHECK(selection_psr(&lo, 0.0) < 0.95 && selection_psr(&hi, 0.0) > 0.95,
        "PSR(272) = %.6f, PSR(273) = %.6f bracket 0.95", selection_psr(&lo, 0.0),
        selection_psr(&hi, 0.0));
  /* Negative skew and fat tails: sr = 0.2, skew -1, kurt 6, against sr* = 0.05 at 99%:
   *   variance term 1 + 0.2 + 5/4 * 0.04 = 1.25
   *   (Phi^-1(0.99) / 0.15)^2 = (2.326347874 / 0.15)^2 = 15.508985827^2 = 240.528641380
   *   MinTRL = 1 + 1.25 * 240.528641380 = 301.660801725 */
  struct sr_moments f = moments_(50, 0.2, -1.0, 6.0);
  CHECK_NEAR(selection_min_trl(&f, 0.05, 0.01), 301.66080172524113, 0, 1e-13);
  /* Normal returns at the same sr: variance term 1 + 2/4 * 0.04 = 1.02 < 1.25. */
  struct sr_moments fn = moments_(50, 0.2, 0.0, 3.0);
  CHECK(selection_min_trl(&fn, 0.05, 0.01) < selection_min_trl(&f, 0.05, 0.01),
        "fat tails and negative skew lengthen the track record");

  /* Edge cases. */
  CHECK(isinf(selection_min_trl(&m, 0.1, 0.05)) && selection_min_trl(&m, 0.1, 0.05) > 0,
        "sr = sr* needs an infinite track record");
  CHECK(isinf(selection_min_trl(&m, 0.3, 0.05)), "sr < sr* needs an infinite track record");
  CHECK(isnan(selection_min_trl(&m, 0.0, 0.0)) && isnan(selection_min_trl(&m, 0.0, 1.0)),
        "alpha must be inside (0, 1)");
  struct sr_moments one = moments_(1, 0.0, NAN, NAN);
  CHECK(isnan(selection_psr(&one, 0.0)), "PSR of one return is NaN");
  struct sr_moments bad = moments_(100, 2.0, 3.0, 3.0); /* 1 - 6 + 2 = -3 < 0 */
  CHECK(isnan(selection_psr(&bad, 0.0)) && isnan(selection_min_trl(&bad, 0.0, 0.05)),
        "a non-positive variance term gives NaN");
  CHECK(selection_expected_max_sr(0.7, 1) == 0.0, "one trial: nothing to deflate");
  /* n = 2, V = 1: (1 - g) Phi^-1(1/2) + g Phi^-1(1 - 1/(2e)) = 0 + 0.577215665 * 0.900452597
   *   = 0.519755344 */
  CHECK_NEAR(selection_expected_max_sr(1.0, 2), 0.5197553442805939, 0, 1e-13);
  CHECK(selection_expected_max_sr(0.0, 50) == 0.0, "no dispersion across trials, no bias");
  CHECK(isnan(selection_expected_max_sr(1.0, 0)) && isnan(selection_expected_max_sr(-1.0, 5)),
        "n < 1 or a negative variance is NaN");
  CHECK(selection_expected_max_sr(1.0, 1000) > selection_expected_max_sr(1.0, 100),
        "more trials, higher expected maximum");
}

static void test_moments(void) {
  struct fox_err e = {0};
  struct sr_moments m;
  /* r = (0, 0, 0, 4): mean 1, deviations (-1, -1, -1, 3).
   *   sample variance (1 + 1 + 1 + 9) / 3 = 4, std 2, sr = 1/2
   *   m2 = 12/4 = 3, m3 = (-1 - 1 - 1 + 27)/4 = 6, m4 = (1 + 1 + 1 + 81)/4 = 21
   *   skew = 6 / 3^1.5 = 2/sqrt(3) = 1.154700538, kurt = 21 / 9 = 7/3
   *   PSR(0): variance term 1 - (2/sqrt 3)(1/2) + (7/3 - 1)/4 (1/4) = 1 - 0.577350269 + 1/12
   *   = 0.505983064; z = 0.5 sqrt(3) / sqrt(0.505983064) = 1.217482259; Phi(z) = 0.888289609 */
  double r[4] = {0, 0, 0, 4};
  CHECK(selection_moments(r, 4, &m, &e) == 0, "%s", e.msg);
  CHECK(m.t == 4, "t = %ld", m.t);
  CHECK_NEAR(m.sr, 0.5, 0, 1e-15);
  CHECK_NEAR(m.skew, 2.0 / sqrt(3.0), 0, 1e-15);
  CHECK_NEAR(m.kurt, 7.0 / 3.0, 0, 1e-15);
  CHECK_NEAR(selection_psr(&m, 0.0), 0.8882896087382457, 0, 1e-13);
  /* The same shape around a mean 1e8 times its spread, where sum r^2 - (sum r)^2 / n would
   * have no digit left: sr = (1 + 1e-8) / 2e-8, skew and kurt unchanged. */
  double big[4];
  for (int i = 0; i < 4; i++)
    big[i] = 1.0 + 1e-8 * r[i];
  CHECK(selection_moments(big, 4, &m, &e) == 0, "%s", e.msg);
  CHECK_NEAR(m.sr, (1.0 + 1e-8) / 2e-8, 0, 1e-7);
  CHECK_NEAR(m.skew, 2.0 / sqrt(3.0), 0, 1e-6);
  CHECK_NEAR(m.kurt, 7.0 / 3.0, 0, 1e-6);
  /* Zero std: sr 0, skew and kurt undefined, so PSR too; a constant that a two-pass mean
   * would not reproduce exactly (3 x 0.1 / 3 != 0.1) still has std exactly 0. */
  double flat[3] = {0.1, 0.1, 0.1};
  CHECK(selection_moments(flat, 3, &m, &e) == 0, "%s", e.msg);
  CHECK(m.sr == 0.0 && isnan(m.skew) && isnan(m.kurt), "constant: sr %g skew %g kurt %g", m.sr,
        m.skew, m.kurt);
  CHECK(isnan(selection_psr(&m, 0.0)), "PSR of a constant series is NaN");
  /* Nearly constant: (1, 1 + eps, 1) has m2 = eps^2 / 3 <= (eps * mean)^2, all rounding noise
   * (its skewness would read sqrt 3). scipy.stats.skew and kurtosis give NaN here too. */
  double noise[3] = {1.0, 1.0 + DBL_EPSILON, 1.0};
  CHECK(selection_moments(noise, 3, &m, &e) == 0, "%s", e.msg);
  CHECK(isnan(m.skew) && isnan(m.kurt), "rounding noise: skew %g kurt %g", m.skew, m.kurt);
  CHECK(selection_moments(flat, 1, &m, &e) == 0 && m.sr == 0.0 && m.t == 1, "one return");
  CHECK(isnan(selection_psr(&m, 0.0)), "PSR needs t >= 2");
  /* Refusals. */
  CHECK(selection_moments(r, 0, &m, &e) == FOX_EUSAGE, "t = 0 refused");
  fox_err_clear(&e);
  double holes[3] = {0.1, NAN, 0.2};
  CHECK(selection_moments(holes, 3, &m, &e) == FOX_EDATA && strstr(e.msg, "return 1 "),
        "NaN refused naming its index: %s", e.msg);
  fox_err_clear(&e);
  holes[1] = INFINITY;
  CHECK(selection_moments(holes, 3, &m, &e) == FOX_EDATA, "inf refused");
  fox_err_clear(&e);
}

/* Every set of k = s/2 of s blocks exactly once, in increasing lexicographic order, each with
 * its complement at the mirrored position, against the brute force over all 2^s subsets. */
static void test_enumeration(void) {
  for (int s = 2; s <= 6; s += 2) {
    int k = s / 2, c[3], count = 0;
    int seen[64] = {0}, order[64];
    long prev = -1;
    for (int i = 0; i < k; i++)
      c[i] = i;
    do {
      int mask = 0;
      long key = 0;
      for (int i = 0; i < k; i++) {
        CHECK(c[i] >= 0 && c[i] < s && (i == 0 || c[i] > c[i - 1]), "s %d: bad set", s);
        mask |= 1 << c[i];
        key = key * s + c[i];
      }
      CHECK(key > prev, "s %d: set %d not after the previous one", s, count);
      prev = key;
      seen[mask]++;
      order[count++ % 64] = mask;
    } while (selection_combo_next(c, k, s) && count < 100);
    int expect = 0;
    for (int mask = 0; mask < (1 << s); mask++) {
      if (__builtin_popcount((unsigned)mask) != k)
        continue;
      expect++;
      CHECK(seen[mask] == 1, "s %d: set %#x seen %d times", s, mask, seen[mask]);
      CHECK(seen[((1 << s) - 1) ^ mask] == 1, "s %d: complement of %#x missing", s, mask);
    }
    CHECK(count == expect, "s %d: %d sets, expected C(%d, %d) = %d", s, count, s, k, expect);
    /* Complementing reverses lexicographic order, so set c's OOS half is set count-1-c. */
    for (int i = 0; i < count && count == expect; i++)
      CHECK(order[count - 1 - i] == (((1 << s) - 1) ^ order[i]), "s %d: set %d's complement "
            "is not set %d", s, i, count - 1 - i);
    for (int i = 0; i < k; i++)
      CHECK(c[i] == s - k + i, "s %d: the last set is {s-k .. s-1}", s);
  }
}

/* A T x 3 matrix cut in S = 4 blocks of 2 rows; a block with mean mu holds (mu - 1, mu + 1).
 *   block means    0   1   2   3
 *   A             +1  +1  -1  -1   (strong early, weak late)
 *   B              0   0  +1  +1
 *   C              0   0   0   0   (all zero: Sharpe 0 everywhere)
 * A half of two blocks with means (m1, m2) has mean (m1 + m2)/2 and, around it, squares
 * 4 * 1 + (m1 - m2)^2, so Sharpe = (m1 + m2)/2 / sqrt((4 + (m1 - m2)^2) / 3):
 *   (1, 1) or (-1, -1): +-1 / sqrt(4/3) = +-sqrt(3)/2 = +-0.866025404 = +-a
 *   (1, -1): 0;  (0, 0): 0;  (0, 1): 0.5 / sqrt(5/3) = sqrt(3/20) = 0.387298335 = b
 * The C(4, 2) = 6 in-sample halves in lexicographic order, the OOS half the complement:
 *   IS {0,1}: A a, B 0, C 0 -> n* = A. OOS {2,3}: A -a, B a, C 0 -> rank 1 of 3
 *             w = 1/4, logit = ln(1/3) = -1.098612289
 *   IS {0,2}, {0,3}, {1,2}, {1,3}: A 0, B b, C 0 -> n* = B; OOS likewise A 0, B b, C 0
 *             -> rank 3, w = 3/4, logit = ln 3 = +1.098612289 (four times)
 *   IS {2,3}: A -a, B a, C 0 -> n* = B. OOS {0,1}: A a, B 0, C 0 -> B and C tie for ranks
 *             1 and 2: mid-rank 1.5, w = 1.5/4 = 0.375, logit = ln(0.375/0.625) = -0.510825624
 *   PBO = 2/6 (logits <= 0); prob_oos_loss = 1/6 (only the first OOS Sharpe, -a, is < 0).
 * Regression of y = OOS on x = IS over (a, -a), 4 x (b, b), (a, 0):
 *   x mean (2a + 4b)/6 = 0.546874024, y mean (4b - a)/6 = 0.113861322
 *   deviations of x: 2(a - b)/3 twice, -(a - b)/3 four times
 *   Sxx = 8(a-b)^2/9 + 4(a-b)^2/9 = 4(a-b)^2/3 = 0.305572809
 *   Sxy = sum (x - mean x) y = 2(a-b)/3 (-a + 0) - (a-b)/3 * 4b = -2(a-b)(a+2b)/3 = -0.523606798
 *   slope = Sxy / Sxx = -(a + 2b) / (2(a - b)) = -1.640622073 / 0.957454138 = -1.713525492
 *   intercept = 0.113861322 + 1.713525492 * 0.546874024 = 1.050943904
 *   Syy = a^2 + 4b^2 - 6 (mean y)^2 = 0.75 + 0.6 - 0.077786405 = 1.272213595
 *   r2 = Sxy^2 / (Sxx Syy) = 0.274163693 / 0.388752920 = 0.705238176 */
static void test_pbo_by_hand(void) {
  static const double mu[3][4] = {{1, 1, -1, -1}, {0, 0, 1, 1}, {0, 0, 0, 0}};
  const double a = sqrt(3.0) / 2.0, b = sqrt(3.0 / 20.0);
  /* With a leading junk row: T = 9, 9 mod 4 = 1 oldest row dropped, so it must not count. */
  for (int junk = 0; junk <= 1; junk++) {
    for (int dup = 0; dup <= 1; dup++) {
      /* dup: a 4th column D identical to B. IS ties B-D go to B (the lower index), OOS ties
       * share the mid-rank: N = 4 and the logits become ln(1/4), ln(3.5/1.5) = ln(7/3) four
       * times, and ln(2/3) (B, C and D tie for ranks 1-3: rank 2, w = 2/5). */
      int n = dup ? 4 : 3;
      long t = 8 + junk;
      double x[9 * 4];
      for (int j = 0; j < n; j++)
        x[j] = junk ? 1e6 : 0.0;
      for (int blk = 0; blk < 4; blk++)
        for (int i = 0; i < 2; i++)
          for (int j = 0; j < n; j++) {
            double m = mu[j == 3 ? 1 : j][blk];
            x[(junk + blk * 2 + i) * n + j] = j == 2 ? 0.0 : m + (i ? 1.0 : -1.0);
          }
      struct pbo_result r;
      struct fox_err e = {0};
      CHECK(selection_pbo(x, t, n, 4, &r, &e) == 0, "%s", e.msg);
      CHECK(r.blocks == 4 && r.block_rows == 2 && r.dropped_rows == junk && r.combos == 6,
            "layout %d %ld %ld %ld", r.blocks, r.block_rows, r.dropped_rows, r.combos);
      double want_logit[6], want_is[6] = {a, b, b, b, b, a}, want_oos[6] = {-a, b, b, b, b, 0};
      int want_best[6] = {0, 1, 1, 1, 1, 1};
      want_logit[0] = dup ? log(1.0 / 4.0) : log(1.0 / 3.0);
      for (int c = 1; c < 5; c++)
        want_logit[c] = dup ? log(7.0 / 3.0) : log(3.0);
      want_logit[5] = dup ? log(2.0 / 3.0) : log(0.6);
      for (int c = 0; c < 6; c++) {
        CHECK(r.best[c] == want_best[c], "junk %d dup %d combo %d: n* %d", junk, dup, c,
              r.best[c]);
        CHECK_NEAR(r.logits[c], want_logit[c], 1e-15, 1e-14);
        CHECK_NEAR(r.is_sr[c], want_is[c], 1e-15, 1e-14);
        CHECK_NEAR(r.oos_sr[c], want_oos[c], 1e-15, 1e-14);
      }
      CHECK(r.pbo == 2.0 / 6.0, "pbo %g", r.pbo);
      CHECK(r.prob_oos_loss == 1.0 / 6.0, "prob_oos_loss %g", r.prob_oos_loss);
      CHECK_NEAR(r.slope, -(a + 2 * b) / (2 * (a - b)), 0, 1e-13);
      CHECK_NEAR(r.slope, -1.7135254915624214, 0, 1e-13);
      CHECK_NEAR(r.intercept, 1.0509439038330555, 0, 1e-13);
      CHECK_NEAR(r.r2, 0.7052381759427501, 0, 1e-13);
      selection_pbo_free(&r);
      CHECK(r.logits == NULL && r.best == NULL, "free clears the result");
    }
  }
}

/* S = 2, T = 4, N = 3, block means A (3, 2), B (2, 1), C (1, 3); a block of mean mu holds
 * (mu - 1, mu + 1), so its Sharpe is mu / sqrt 2.
 *   IS {0}: A 3, B 2, C 1 -> n* = A. OOS {1}: B 1, A 2, C 3 -> rank 2 of 3, w = 1/2, logit 0:
 *           exactly at the median, which counts as overfit (logit <= 0).
 *   IS {1}: C 3 -> n* = C. OOS {0}: C 1, B 2, A 3 -> rank 1, logit ln(1/3).
 *   PBO = 2/2 = 1; OOS Sharpes 2/sqrt 2 and 1/sqrt 2, no loss. Both IS Sharpes are 3/sqrt 2:
 *   no regression line through one x. */
static void test_pbo_median(void) {
  static const double mu[3][2] = {{3, 2}, {2, 1}, {1, 3}};
  double x[4 * 3];
  for (int blk = 0; blk < 2; blk++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        x[(blk * 2 + i) * 3 + j] = mu[j][blk] + (i ? 1.0 : -1.0);
  struct pbo_result r;
  struct fox_err e = {0};
  CHECK(selection_pbo(x, 4, 3, 2, &r, &e) == 0, "%s", e.msg);
  CHECK(r.combos == 2 && r.best[0] == 0 && r.best[1] == 2, "n* %d %d", r.best[0], r.best[1]);
  CHECK(r.logits[0] == 0.0, "logit at the median %.17g", r.logits[0]);
  CHECK_NEAR(r.logits[1], log(1.0 / 3.0), 0, 1e-15);
  CHECK(r.pbo == 1.0, "a logit of exactly 0 counts: pbo %g", r.pbo);
  CHECK(r.prob_oos_loss == 0.0, "prob_oos_loss %g", r.prob_oos_loss);
  CHECK_NEAR(r.oos_sr[0], sqrt(2.0), 0, 1e-15);
  CHECK_NEAR(r.oos_sr[1], 1.0 / sqrt(2.0), 0, 1e-15);
  CHECK(isnan(r.slope) && isnan(r.intercept) && isnan(r.r2), "one IS Sharpe: slope %g",
        r.slope);
  selection_pbo_free(&r);

  /* The same, where the mean of the equal IS Sharpes is not exactly their value: A's four
   * blocks all hold (6, 8), so every half of A has mean 7 and Sharpe 7 / sqrt(4/3) =
   * 6.062177826491071, whose six copies sum and divide to 6.062177826491072. A is n* in and out
   * of sample every time (B: blocks (0, 0), C: (-1, 1)), and the regression is still
   * undefined, not a slope fitted to rounding. */
  double y[8 * 3];
  for (int i = 0; i < 8; i++) {
    y[i * 3 + 0] = i % 2 ? 8.0 : 6.0;
    y[i * 3 + 1] = 0.0;
    y[i * 3 + 2] = i % 2 ? 1.0 : -1.0;
  }
  CHECK(selection_pbo(y, 8, 3, 4, &r, &e) == 0, "%s", e.msg);
  CHECK(r.combos == 6 && r.best[0] == 0 && r.best[5] == 0 && r.pbo == 0.0, "pbo %g", r.pbo);
  CHECK_NEAR(r.is_sr[3], 7.0 / sqrt(4.0 / 3.0), 0, 1e-15);
  CHECK(isnan(r.slope) && isnan(r.intercept) && isnan(r.r2), "constant IS Sharpe: slope %g, "
        "intercept %g, r2 %g", r.slope, r.intercept, r.r2);
  selection_pbo_free(&r);
}

/* A strategy that never moves, 0.1 every bar, has std exactly 0 and Sharpe 0 in every half:
 * merged as (0.1 + 0.1 + 0.1) / 3 = 0.10000000000000002 its halves would show a std of ~1e-17
 * and a Sharpe of ~1e16, and win every in-sample half. S = 6 gives halves of 3 blocks. */
static void test_pbo_constant(void) {
  double x[12 * 2];
  for (int i = 0; i < 12; i++) {
    x[i * 2] = 0.1;
    x[i * 2 + 1] = i % 2 ? 1.5 : -0.5; /* mean 0.5, Sharpe 0.5 / sqrt(12/11) in any half */
  }
  struct pbo_result r;
  struct fox_err e = {0};
  CHECK(selection_pbo(x, 12, 2, 6, &r, &e) == 0, "%s", e.msg);
  long won = 0;
  for (long c = 0; c < r.combos; c++)
    won += r.best[c] == 0;
  CHECK(r.combos == 20 && won == 0, "the constant strategy won %ld of %ld halves", won,
        r.combos);
  CHECK_NEAR(r.is_sr[0], 0.5 / sqrt(6.0 / 5.0), 0, 1e-15);
  selection_pbo_free(&r);
}

/* Each half's Sharpe is the Sharpe of its rows as one series (selection_moments, checked above
 * around a mean 1e8 times its spread), here for returns of 1e-3 +- 1e-7: a Sharpe of ~1e4, where
 * merging blocks by sum r^2 - (sum r)^2 / n would keep ~4 digits. T = 403 drops 3 rows. */
static void test_pbo_halves(void) {
  enum { T = 403, N = 5, S = 6, K = S / 2, L = T / S };
  static double x[T * N], half[K * L];
  struct rng g;
  rng_seed(&g, 11);
  for (int i = 0; i < T * N; i++)
    x[i] = 1e-3 + 1e-7 * rng_normal(&g);
  struct pbo_result r;
  struct fox_err e = {0};
  CHECK(selection_pbo(x, T, N, S, &r, &e) == 0, "%s", e.msg);
  int in[K] = {0, 1, 2};
  double worst = 0.0;
  for (long c = 0; c < r.combos; c++) {
    for (int side = 0; side < 2; side++) {
      int rows = 0;
      for (int b = 0, taken = 0; b < S; b++) {
        int is_in = taken < K && in[taken] == b;
        taken += is_in;
        if (is_in != (side == 0))
          continue;
        for (int i = 0; i < L; i++)
          half[rows++] = x[(T % S + b * L + i) * N + r.best[c]];
      }
      struct sr_moments m;
      CHECK(selection_moments(half, rows, &m, &e) == 0, "%s", e.msg);
      double got = side == 0 ? r.is_sr[c] : r.oos_sr[c];
      worst = fmax(worst, fabs(got - m.sr) / fabs(m.sr));
    }
    selection_combo_next(in, K, S);
  }
  printf("# halves: worst %.3g\n", worst);
  CHECK(worst < 1e-10, "half Sharpes ~1e4 off the concatenated rows' by %.3g relative", worst);
  CHECK(r.is_sr[0] > 1e3, "offset Sharpe %g", r.is_sr[0]);
  selection_pbo_free(&r);
}

static void fill_noise_(struct rng *g, double *x, long t, int n, int edge_col, double edge) {
  for (long i = 0; i < t; i++)
    for (int j = 0; j < n; j++)
      x[i * n + j] = 1e-6 + 1e-4 * rng_normal(g) + (j == edge_col ? edge * 1e-4 : 0.0);
}

/* Under the null every strategy is noise: the IS best's OOS rank is uniform on 1..N, so with N
 * even P(rank <= (N+1)/2) = 1/2 exactly and PBO averages 1/2 over draws; the combinations share
 * their blocks, so single draws scatter widely around it. A strategy with a real edge in every
 * block (0.35 per-bar Sharpe, against 1/sqrt(330) = 0.055 of noise in a half) is picked
 * in-sample and stays on top out of sample: PBO ~ 0. */
static void test_pbo_null_and_edge(void) {
  enum { T = 665, N = 20, S = 12, DRAWS = 120 };
  double *x = malloc(sizeof *x * T * N);
  struct rng g;
  rng_seed(&g, 20240611);
  double sum = 0.0, sum2 = 0.0, lo = 1.0, hi = 0.0;
  for (int d = 0; d < DRAWS; d++) {
    fill_noise_(&g, x, T, N, -1, 0.0);
    struct pbo_result r;
    struct fox_err e = {0};
    CHECK(selection_pbo(x, T, N, S, &r, &e) == 0, "%s", e.msg);
    CHECK(r.combos == 924 && r.dropped_rows == T % S, "combos %ld", r.combos);
    sum += r.pbo;
    sum2 += r.pbo * r.pbo;
    lo = fmin(lo, r.pbo);
    hi = fmax(hi, r.pbo);
    selection_pbo_free(&r);
  }
  double mean = sum / DRAWS, sd = sqrt((sum2 - sum * sum / DRAWS) / (DRAWS - 1));
  printf("# noise: PBO over %d draws (T %d, N %d, S %d): mean %.4f, std %.4f, range "
         "[%.3f, %.3f]\n", DRAWS, T, N, S, mean, sd, lo, hi);
  CHECK(fabs(mean - 0.5) <= 0.06, "noise: mean PBO %.4f, expected 0.5 +- 0.06", mean);
  CHECK(sd > 0.05 && sd < 0.3, "noise: PBO std %.4f over draws, expected in (0.05, 0.3)", sd);

  double worst = 0.0;
  for (int d = 0; d < 10; d++) {
    fill_noise_(&g, x, T, N, 7, 0.35);
    struct pbo_result r;
    struct fox_err e = {0};
    CHECK(selection_pbo(x, T, N, S, &r, &e) == 0, "%s", e.msg);
    long picked = 0;
    for (long c = 0; c < r.combos; c++)
      picked += r.best[c] == 7;
    worst = fmax(worst, r.pbo);
    CHECK(r.pbo < 0.05, "edge: PBO %.4f", r.pbo);
    CHECK(picked > r.combos * 9 / 10, "edge: picked in %ld of %ld", picked, r.combos);
    CHECK(r.prob_oos_loss < 0.05, "edge: P(OOS loss) %.4f", r.prob_oos_loss);
    selection_pbo_free(&r);
  }
  printf("# edge: worst PBO over 10 draws %.4f\n", worst);
  free(x);
}

/* Same input, same output to the bit (no state, no threads, no clock). */
static void test_pbo_deterministic(void) {
  enum { T = 400, N = 30, S = 10 };
  double *x = malloc(sizeof *x * T * N);
  struct rng g;
  rng_seed(&g, 7);
  fill_noise_(&g, x, T, N, 3, 0.05);
  struct pbo_result r1, r2;
  struct fox_err e = {0};
  CHECK(selection_pbo(x, T, N, S, &r1, &e) == 0 && selection_pbo(x, T, N, S, &r2, &e) == 0,
        "%s", e.msg);
  size_t bytes = sizeof(double) * (size_t)r1.combos;
  CHECK(r1.combos == r2.combos && !memcmp(r1.logits, r2.logits, bytes) &&
            !memcmp(r1.is_sr, r2.is_sr, bytes) && !memcmp(r1.oos_sr, r2.oos_sr, bytes) &&
            !memcmp(r1.best, r2.best, sizeof(int) * (size_t)r1.combos),
        "two runs differ");
  CHECK(!memcmp(&r1.pbo, &r2.pbo, sizeof r1.pbo) && !memcmp(&r1.slope, &r2.slope, sizeof r1.slope),
        "two runs differ in the summary");
  selection_pbo_free(&r1);
  selection_pbo_free(&r2);
  free(x);
}

static void test_pbo_refusals(void) {
  double x[40] = {0};
  x[0] = 1.0; /* not all zero, so only the checked condition can fail */
  struct pbo_result r;
  struct fox_err e = {0};
  int bad_s[] = {0, 1, 3, 26, -2};
  for (size_t i = 0; i < sizeof bad_s / sizeof *bad_s; i++) {
    CHECK(selection_pbo(x, 20, 2, bad_s[i], &r, &e) == FOX_EUSAGE && strstr(e.msg, "even"),
          "S = %d: %s", bad_s[i], e.msg);
    CHECK(r.logits == NULL, "no memory on failure");
    fox_err_clear(&e);
  }
  CHECK(selection_pbo(x, 40, 1, 4, &r, &e) == FOX_EDATA && strstr(e.msg, "2 strategies"),
        "N = 1: %s", e.msg);
  fox_err_clear(&e);
  /* 7 rows in 4 blocks: 1 per block, no Sharpe. 8 rows: 2 per block, accepted. */
  CHECK(selection_pbo(x, 7, 2, 4, &r, &e) == FOX_EDATA && strstr(e.msg, "per block"),
        "T/S < 2: %s", e.msg);
  fox_err_clear(&e);
  CHECK(selection_pbo(x, 8, 2, 4, &r, &e) == 0, "T/S = 2: %s", e.msg);
  selection_pbo_free(&r);
  x[2 * 2 + 1] = NAN;
  CHECK(selection_pbo(x, 8, 2, 4, &r, &e) == FOX_EDATA && strstr(e.msg, "row 2, column 1"),
        "NaN: %s", e.msg);
  fox_err_clear(&e);
  x[2 * 2 + 1] = 0.0;
  x[7 * 2 + 0] = -INFINITY;
  CHECK(selection_pbo(x, 8, 2, 4, &r, &e) == FOX_EDATA && strstr(e.msg, "row 7, column 0"),
        "-inf: %s", e.msg);
  fox_err_clear(&e);
  /* A non-finite entry among the dropped oldest rows is still bad data. */
  x[7 * 2 + 0] = 0.0;
  x[0] = NAN;
  CHECK(selection_pbo(x, 9, 2, 4, &r, &e) == FOX_EDATA, "NaN in a dropped row: %s", e.msg);
  fox_err_clear(&e);
}

int main(void) {
  test_normal();
  test_dsr_paper();
  test_psr_min_trl();
  test_moments();
  test_enumeration();
  test_pbo_by_hand();
  test_pbo_median();
  test_pbo_constant();
  test_pbo_halves();
  test_pbo_null_and_edge();
  test_pbo_deterministic();
  test_pbo_refusals();
  return fox_check_done("test_selection");
}
