/* Test functions from the optimisation literature (Branin, Hartmann-6 as in Surjanovic and
 * Bingham's library) and a mixed one with categorical, integer and log-scale variables. */
#include "study/objective.h"

#include <math.h>
#include <stddef.h>

/* Branin-Hoo on x0 in [-5, 10], x1 in [0, 15]; minimum 0.397887 at three points. */
static double branin_(const double *x) {
  const double pi = 3.14159265358979323846;
  double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
  double u = x[1] - b * x[0] * x[0] + c * x[0] - 6;
  return u * u + 10 * (1 - t) * cos(x[0]) + 10;
}

/* Hartmann-6 on [0, 1]^6; minimum -3.32237. */
static double hartmann6_(const double *x) {
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                 {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                 {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                 {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double s = 0;
  for (int i = 0; i < 4; i++) {
    double in = 0;
    for (int j = 0; j < 6; j++)
      in += a[i][j] * (x[j] - p[i][j]) * (x[j] - p[i][j]);
    s += alpha[i] * exp(-in);
  }
  return -s;
}

/* Mixed: Branin/10 on (x0, x1), a categorical x2 in {0, 1, 2, 3} (1 is best), a learning-rate
 * like x3 searched in log space (best 1e-3), an integer x4 (best 7). Minimum 0.0397887. */
static double mixed_(const double *x) {
  static const double cat[4] = {0.5, 0.0, 1.0, 2.0};
  int c = (int)lround(x[2]);
  double lr = log10(x[3] > 0 ? x[3] : 1e-300) + 3;
  return branin_(x) / 10 + (c >= 0 && c < 4 ? cat[c] : 3.0) + lr * lr / 4 +
         (x[4] - 7) * (x[4] - 7) / 50;
}

static const char *const vars_[] = {"x0", "x1", "x2", "x3", "x4", "x5"};

static const struct test_function functions_[] = {
    {"branin", 2, vars_, branin_, 0.39788735772973816},
    {"hartmann6", 6, vars_, hartmann6_, -3.32237},
    {"mixed", 5, vars_, mixed_, 0.039788735772973816},
};

const struct test_function *objective_function(int which) {
  if (which < 1 || which > (int)(sizeof functions_ / sizeof *functions_))
    return NULL;
  return &functions_[which - 1];
}
