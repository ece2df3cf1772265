/* Features on series whose values follow in closed form: a geometric trend (constant return),
 * a flat market (every degenerate-window rule), and the calendar features of known dates. */
#include <stdlib.h>
#include <string.h>

#include "data/features.h"
#include "fox_check.h"

#define N 1600

static int col_(const char *name) {
  for (int f = 0; f < FOX_NFEAT; f++)
    if (strcmp(feature_names[f], name) == 0)
      return f;
  return -1;
}

static double at_(const float *x, size_t t, const char *name) {
  return x[t * FOX_NFEAT + col_(name)];
}

static void make_(struct bars *b, double growth, int64_t t0) {
  struct fox_err e = {0};
  *b = (struct bars){0};
  for (int t = 0; t < N; t++) {
    double c = 100.0 * pow(growth, t), o = t ? 100.0 * pow(growth, t - 1) : c;
    bars_push(b, t0 + 60 * t, o, c * 1.001, o * 0.999, c, 10.0, &e);
  }
}

int main(void) {
  struct bars b;
  struct fox_err e = {0};
  float *x = malloc((size_t)N * FOX_NFEAT * sizeof *x);
  const double q = 1.001, lq = log(q);
  make_(&b, q, 1514764800); /* 2018-01-01 00:00 UTC, a Monday */
  CHECK(features_compute(&b, x, &e) == 0, "%s", e.msg);
  size_t t = 1500;
  for (int f = 0; f < FOX_NFEAT; f++) {
    CHECK(isnan(x[(FOX_WARMUP - 1) * FOX_NFEAT + f]), "%s is NaN before warm-up", feature_names[f]);
    CHECK(isfinite(x[FOX_WARMUP * FOX_NFEAT + f]), "%s is finite from warm-up", feature_names[f]);
  }
  static const int ks[11] = {1, 2, 3, 5, 10, 15, 30, 60, 120, 240, 1440};
  char name[32];
  for (int i = 0; i < 11; i++) {
    snprintf(name, sizeof name, "ret_%d", ks[i]);
    CHECK_NEAR(at_(x, t, name), ks[i] * lq, 1e-9, 1e-5);
  }
  CHECK_NEAR(at_(x, t, "vol_60"), 0, 1e-6, 0);     /* constant returns */
  CHECK_NEAR(at_(x, t, "ewm_vol"), lq, 1e-9, 1e-5); /* sqrt of a mean of lq^2 */
  CHECK_NEAR(at_(x, t, "rsi_14"), 100, 0, 1e-6);    /* only gains */
  /* SMA of a geometric series: c_t * (1 - q^-k) / (k (1 - q^-1)). */
  double sma = (1 - pow(q, -10)) / (10 * (1 - 1 / q));
  CHECK_NEAR(at_(x, t, "sma_ratio_10"), 1 / sma - 1, 1e-7, 1e-5);
  CHECK_NEAR(at_(x, t, "body"), 1 - 1 / q, 1e-9, 1e-5);
  CHECK_NEAR(at_(x, t, "range"), 1.001 - 0.999 / q, 1e-9, 1e-5);
  CHECK_NEAR(at_(x, t, "upper_wick"), 0.001, 1e-9, 1e-4);
  CHECK_NEAR(at_(x, t, "volume_z"), 0, 0, 0);        /* constant volume */
  CHECK_NEAR(at_(x, t, "volume_ratio"), 0, 1e-7, 0); /* ln(11/11) */
  /* Bar 1500 opens at 01:00 + 1500 min = 2018-01-02 01:00 (Tuesday). */
  CHECK_NEAR(at_(x, t, "tod_sin"), sin(2 * M_PI * 3600 / 86400), 1e-6, 0);
  CHECK_NEAR(at_(x, t, "tod_cos"), cos(2 * M_PI * 3600 / 86400), 1e-6, 0);
  CHECK_NEAR(at_(x, t, "dow_sin"), sin(2 * M_PI / 7), 1e-6, 0);
  CHECK_NEAR(at_(x, t, "dow_cos"), cos(2 * M_PI / 7), 1e-6, 0);
  bars_free(&b);

  /* A flat market: every degenerate-window rule of FEATURES.md at once. */
  make_(&b, 1.0, 1514764800 + 6 * 86400 + 43200 - 1500 * 60); /* bar 1500: Sunday 12:00 */
  for (int i = 0; i < N; i++)
    b.high[i] = b.low[i] = b.open[i] = b.close[i] = 100.0;
  CHECK(features_compute(&b, x, &e) == 0, "%s", e.msg);
  static const char *const zero[] = {"ret_1",  "vol_15",   "ewm_vol",  "rsi_14",   "macd",
                                     "stoch_k", "stoch_d", "willr_14", "cci_20",   "adx_14",
                                     "mfi_14",  "obv_z",   "volume_z", "bb_width", "range"};
  for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
    CHECK_NEAR(at_(x, t, zero[i]), 0, 0, 0);
  CHECK_NEAR(at_(x, t, "bb_pctb"), 0.5, 0, 0);
  CHECK_NEAR(at_(x, t, "tod_cos"), -1, 1e-7, 0);
  CHECK_NEAR(at_(x, t, "dow_sin"), sin(2 * M_PI * 6 / 7), 1e-6, 0);
  bars_free(&b);
  free(x);
  return fox_check_done("test_features");
}
