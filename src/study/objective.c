/* Test functions from the optimisation literature (Branin, Hartmann-6 as in Surjanovic and
 * Bingham's library), a mixed one with categorical, integer and log-scale variables, and the
 * multi-objective ZDT1, ZDT2 (Zitzler, Deb & Thiele 2000) and Binh-Korn (constrained; the
 * problem of Optuna's constraints_func example). */
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

/* ZDT1 and ZDT2 on [0, 1]^30: f0 = x0, g = 1 + 9 sum(x1..x29) / 29, f1 = g (1 - sqrt(f0 / g))
 * (ZDT1, a convex front) or g (1 - (f0 / g)^2) (ZDT2, a concave one); the front is g = 1. */
static double zdt_g_(const double *x) {
  double s = 0;
  for (int i = 1; i < 30; i++)
    s += x[i];
  return 1 + 9 * s / 29;
}

static void zdt1_(const double *x, double *out) {
  double g = zdt_g_(x);
  out[0] = x[0];
  out[1] = g * (1 - sqrt(x[0] / g));
}

static void zdt2_(const double *x, double *out) {
  double g = zdt_g_(x), r = x[0] / g;
  out[0] = x[0];
  out[1] = g * (1 - r * r);
}

/* Binh and Korn (1997) on x0 in [0, 5], x1 in [0, 3]: f0 = 4 x0^2 + 4 x1^2,
 * f1 = (x0 - 5)^2 + (x1 - 5)^2, feasible when c0 = (x0 - 5)^2 + x1^2 <= 25 and
 * c1 = (x0 - 8)^2 + (x1 + 3)^2 >= 7.7 (study.constraints: ["c0 <= 25", "c1 >= 7.7"]). */
static void binh_korn_(const double *x, double *out) {
  out[0] = 4 * x[0] * x[0] + 4 * x[1] * x[1];
  out[1] = (x[0] - 5) * (x[0] - 5) + (x[1] - 5) * (x[1] - 5);
  out[2] = (x[0] - 5) * (x[0] - 5) + x[1] * x[1];
  out[3] = (x[0] - 8) * (x[0] - 8) + (x[1] + 3) * (x[1] + 3);
}

static const char *const vars_[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
                                    "x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
                                    "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
                                    "x24", "x25", "x26", "x27", "x28", "x29"};
static const char *const value_[] = {"value"};
/* config_function_metrics names the same outputs, for the config's checks. */
static const char *const outs_[] = {"f0", "f1", "c0", "c1"};

/* In the order of config_function_names (after "none"). */
static const struct test_function functions_[] = {
    {"branin", 2, vars_, branin_, 0.39788735772973816, 1, value_, NULL},
    {"hartmann6", 6, vars_, hartmann6_, -3.32237, 1, value_, NULL},
    {"mixed", 5, vars_, mixed_, 0.039788735772973816, 1, value_, NULL},
    {"zdt1", 30, vars_, NULL, NAN, 2, outs_, zdt1_},
    {"zdt2", 30, vars_, NULL, NAN, 2, outs_, zdt2_},
    {"binh_korn", 2, vars_, NULL, NAN, 4, outs_, binh_korn_},
};

void objective_eval(const struct test_function *tf, const double *x, double *out) {
  if (tf->fm)
    tf->fm(x, out);
  else
    out[0] = tf->f(x);
}

int objective_outputs(const struct test_function *tf, const char *const **names) {
  *names = tf->outs;
  return tf->n_out;
}

const struct test_function *objective_function(int which) {
  if (which < 1 || which > (int)(sizeof functions_ / sizeof *functions_))
    return NULL;
  return &functions_[which - 1];
}
