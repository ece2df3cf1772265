/* PED-ANOVA importance (src/report/importance.c) on hand-made trials: an objective of x alone,
 * two parameters of equal weight, the cases with no answer, and the golden figures of Optuna's
 * own evaluator on every kind of parameter (tests/ref/importance_golden.py). */
#include <math.h>
#include <string.h>

#include "fox_check.h"
#include "report/importance.h"

static struct space_param *param_(struct space *sp, const char *key, int dist, double lo,
                                  double hi) {
  struct space_param *p = &sp->p[sp->n++];
  memset(p, 0, sizeof *p);
  snprintf(p->key, sizeof p->key, "%s", key);
  p->dist = dist;
  p->lo = lo;
  p->hi = hi;
  p->agent = -1;
  return p;
}

/* A low-discrepancy point of [0, 1) from k: exact binary fractions, different per stream. */
static double u_(int k, int stream) {
  static const int mult[3] = {37, 23, 53};
  return ((k * mult[stream]) % 256) / 256.0 + 1 / 512.0;
}

/* x in [0, 1] decides everything, y is noise: x takes nearly all the importance. */
static void test_one_parameter_(void) {
  struct space sp = {0};
  param_(&sp, "x", FOX_DIST_UNIFORM, 0, 1);
  param_(&sp, "y", FOX_DIST_UNIFORM, 0, 1);
  double x[200][2], v[200];
  for (int k = 0; k < 200; k++) {
    x[k][0] = u_(k, 0);
    x[k][1] = u_(k, 1);
    v[k] = x[k][0];
  }
  struct importance im;
  struct fox_err e = {0};
  CHECK(importance_ped_anova(&sp, &x[0][0], 200, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_DONE, "status %d", im.status);
  CHECK(im.n == 200 && im.n_top == 20, "n %d, top %d", im.n, im.n_top);
  CHECK(im.imp[0] > 0.99, "x: %.4f", im.imp[0]);
  CHECK_NEAR(im.imp[0] + im.imp[1], 1.0, 1e-12, 0);
  CHECK(im.rank[0] == 1 && im.rank[1] == 2, "ranks %d %d", im.rank[0], im.rank[1]);
  /* Maximising -x is the same question. */
  double neg[200];
  for (int k = 0; k < 200; k++)
    neg[k] = -v[k];
  struct importance mx;
  CHECK(importance_ped_anova(&sp, &x[0][0], 200, neg, FOX_MAXIMIZE, &mx, &e) == 0, "%s", e.msg);
  CHECK(mx.imp[0] == im.imp[0] && mx.imp[1] == im.imp[1], "maximize: %.6f %.6f", mx.imp[0],
        mx.imp[1]);
  /* Maximising x itself asks for the other end: x still decides. */
  CHECK(importance_ped_anova(&sp, &x[0][0], 200, v, FOX_MAXIMIZE, &mx, &e) == 0, "%s", e.msg);
  CHECK(mx.imp[0] > 0.99, "maximize x: %.4f", mx.imp[0]);
}

/* f = (x - 0.3)^2 + (y - 0.3)^2 on a 16 x 16 lattice: swapping x and y maps the trials onto
 * themselves, so the two importances are equal. With y's term 10 times smaller, x leads. */
static void test_equal_weight_(void) {
  struct space sp = {0};
  param_(&sp, "x", FOX_DIST_UNIFORM, 0, 1);
  param_(&sp, "y", FOX_DIST_UNIFORM, 0, 1);
  double x[256][2], v[256], w[256];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      int k = 16 * i + j;
      x[k][0] = (i + 0.5) / 16;
      x[k][1] = (j + 0.5) / 16;
      double a = (x[k][0] - 0.3) * (x[k][0] - 0.3), b = (x[k][1] - 0.3) * (x[k][1] - 0.3);
      v[k] = a + b;
      w[k] = a + b / 10;
    }
  struct importance im;
  struct fox_err e = {0};
  CHECK(importance_ped_anova(&sp, &x[0][0], 256, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK_NEAR(im.imp[0], 0.5, 1e-12, 0);
  CHECK_NEAR(im.imp[1], 0.5, 1e-12, 0);
  CHECK(im.rank[0] == 1 && im.rank[1] == 1, "tied ranks %d %d", im.rank[0], im.rank[1]);
  CHECK(importance_ped_anova(&sp, &x[0][0], 256, w, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.imp[0] > 0.8 && im.imp[0] < 0.95, "x with y's term / 10: %.4f", im.imp[0]);
}

/* No answer: under FOX_IMP_MIN_TRIALS finite values, or every trial tied (the top set is all
 * of them); a parameter active in one trial or with one value gets 0 and says why. */
static void test_no_answer_(void) {
  struct space sp = {0};
  param_(&sp, "x", FOX_DIST_UNIFORM, 0, 1);
  param_(&sp, "rare", FOX_DIST_UNIFORM, 0, 1);
  struct space_param *one = param_(&sp, "one", FOX_DIST_FIXED, 0, 0);
  one->n_choices = 1;
  double x[40][3], v[40];
  for (int k = 0; k < 40; k++) {
    x[k][0] = u_(k, 0);
    x[k][1] = k == 3 ? 0.5 : NAN;
    x[k][2] = 0;
    v[k] = k < 20 ? x[k][0] : NAN; /* 20 trials, one of them (7) without a value */
  }
  v[7] = INFINITY;
  struct importance im;
  struct fox_err e = {0};
  CHECK(importance_ped_anova(&sp, &x[0][0], 40, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_FEW && im.n == 19, "19 finite values: status %d, n %d", im.status,
        im.n);
  CHECK(isnan(im.imp[0]) && isnan(im.imp[1]), "no importance under 20 trials");
  v[21] = 0.9;
  CHECK(importance_ped_anova(&sp, &x[0][0], 40, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_DONE && im.n == 20, "20 finite values: status %d, n %d",
        im.status, im.n);
  CHECK(im.n_top == 2, "top %d", im.n_top);
  CHECK_NEAR(im.imp[0], 1.0, 0, 0);
  CHECK(im.raw[1] == 0 && im.why[1] == FOX_IMP_WHY_RARE && im.n_active[1] == 1,
        "rare: raw %g why %d active %d", im.raw[1], im.why[1], im.n_active[1]);
  CHECK(im.raw[2] == 0 && im.why[2] == FOX_IMP_WHY_SINGLE, "one value: raw %g why %d",
        im.raw[2], im.why[2]);
  /* the trials differ, but "x" is now one value: no parameter can separate them */
  struct space_param *x0 = &sp.p[0];
  x0->dist = FOX_DIST_FIXED, x0->n_choices = 1;
  for (int k = 0; k < 40; k++)
    x[k][0] = 0, v[k] = k < 30 ? k : NAN;
  CHECK(importance_ped_anova(&sp, &x[0][0], 40, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_ZERO && im.n == 30 && im.n_top == 3 && report_importance_table(&im),
        "no parameter can matter: status %d, n %d, top %d", im.status, im.n, im.n_top);
  CHECK(im.imp[0] == 0 && im.imp[1] == 0 && im.imp[2] == 0 && im.why[0] == FOX_IMP_WHY_SINGLE,
        "all 0 with their notes: %g %g %g, why %d", im.imp[0], im.imp[1], im.imp[2], im.why[0]);
  /* a parameter spread among the best as among all (its divergence 0) says so too */
  struct space sc = {0};
  struct space_param *c = param_(&sc, "c", FOX_DIST_CATEGORICAL, 0, 0);
  c->n_choices = 2;
  param_(&sc, "f", FOX_DIST_FIXED, 0, 0)->n_choices = 1;
  double xc[20][2], vc[20];
  for (int k = 0; k < 20; k++)
    xc[k][0] = k % 2, xc[k][1] = 0, vc[k] = k;
  CHECK(importance_ped_anova(&sc, &xc[0][0], 20, vc, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  char note[96];
  report_importance_note(&im, 0, note, sizeof note);
  CHECK(im.status == FOX_IMP_ZERO && im.why[0] == FOX_IMP_WHY_NONE &&
            strcmp(note, "spread among the best as among all") == 0,
        "c: status %d why %d note '%s'", im.status, im.why[0], note);
  for (int k = 0; k < 40; k++)
    v[k] = 1.5;
  CHECK(importance_ped_anova(&sp, &x[0][0], 40, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_FLAT && im.n_top == 40, "all tied: status %d, top %d", im.status,
        im.n_top);
  CHECK(isnan(im.imp[0]), "no importance when all are tied");
}

/* tests/ref/importance_golden.py's trials (the same formulas). */
static double golden_point_(int k, double *p) {
  double a = ((k * 37) % 64) / 64.0 + 1 / 128.0;
  int m = (k * 7) % 13;
  double b = ldexp(1.0, -m);
  int c = 1 + (k * 5) % 8;
  int d = 1 + (k * k * 13) % 1000;
  double e = ((k * 3) % 5) * 0.25;
  double f = k % 3 == 0 ? NAN : (k * 7) % 3;
  double y = 4 * ((a - 0.3) * (a - 0.3)) + 0.05 * c + (e - 0.5) * (e - 0.5) + 0.01 * m;
  y += isnan(f) ? 0.15 : f == 1 ? 0.0 : 0.3;
  double q[7] = {a, b, c, d, e, f, 0};
  memcpy(p, q, sizeof q);
  return y;
}

/* python tests/ref/importance_golden.py, Optuna 5.1.0 */
static const double golden_raw_[7] = {0.0071514400544968005, 0.0002769173677881455,
                                      0.0034327047683589697, 0.0009115269610366026,
                                      0.0011863933887048264, 0.0011631027554500721, 0.0};
static const double golden_imp_[7] = {0.5064011372743763, 0.019608815694507103,
                                      0.2430735048294369, 0.06454620135352183,
                                      0.08400978777933683, 0.08236055306882119, 0.0};

static void test_golden_(void) {
  struct space sp = {0};
  param_(&sp, "a", FOX_DIST_UNIFORM, 0, 1);
  param_(&sp, "b", FOX_DIST_LOG_UNIFORM, 1e-4, 1);
  param_(&sp, "c", FOX_DIST_INT_UNIFORM, 1, 8)->integer = 1;
  param_(&sp, "d", FOX_DIST_LOG_UNIFORM, 1, 1000)->integer = 1;
  param_(&sp, "e", FOX_DIST_Q_UNIFORM, 0, 1)->q = 0.25;
  param_(&sp, "f", FOX_DIST_CATEGORICAL, 0, 0)->n_choices = 3;
  param_(&sp, "g", FOX_DIST_FIXED, 0, 0)->n_choices = 1;
  /* 40 trials, then 3 without a finite value that must change nothing */
  double x[43][7], v[43];
  for (int k = 0; k < 40; k++)
    v[k] = golden_point_(k, x[k]);
  for (int k = 40; k < 43; k++)
    golden_point_(k - 40, x[k]);
  v[40] = NAN, v[41] = INFINITY, v[42] = -INFINITY;
  struct importance im;
  struct fox_err e = {0};
  CHECK(importance_ped_anova(&sp, &x[0][0], 43, v, FOX_MINIMIZE, &im, &e) == 0, "%s", e.msg);
  CHECK(im.status == FOX_IMP_DONE && im.n == 40 && im.n_top == 4, "status %d n %d top %d",
        im.status, im.n, im.n_top);
  for (int i = 0; i < 7; i++) {
    CHECK_NEAR(im.raw[i], golden_raw_[i], 1e-15, 1e-9);
    CHECK_NEAR(im.imp[i], golden_imp_[i], 1e-15, 1e-9);
  }
  CHECK(im.n_active[5] == 26, "f active in %d trials", im.n_active[5]);
  CHECK(im.why[6] == FOX_IMP_WHY_SINGLE, "g: why %d", im.why[6]);
}

int main(void) {
  test_one_parameter_();
  test_equal_weight_();
  test_no_answer_();
  test_golden_();
  return fox_check_done("test_importance");
}
