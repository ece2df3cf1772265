/* Feature assembly: each column is computed in double over the full series, then stored as f32.
 * Rolling sums use long-double prefix sums so that a flat stretch gives exactly zero. */
#include "data/features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/ta.h"

struct cols_ {
  size_t n;
  float *out;
};

static void put_(struct cols_ *c, int f, const double *x) {
  for (size_t t = 0; t < c->n; t++)
    c->out[t * FOX_NFEAT + f] = (float)x[t];
}

/* Sample std (ddof 1) of r over windows of k ending at t, r defined from index 1. */
static void rolling_std_(const double *r, size_t n, int k, const long double *s1,
                         const long double *s2, double *out) {
  for (size_t t = 0; t < n; t++) {
    if (t < (size_t)k) {
      out[t] = NAN;
      continue;
    }
    long double a = s1[t + 1] - s1[t + 1 - k], b = s2[t + 1] - s2[t + 1 - k];
    long double var = (b - a * a / k) / (k - 1);
    out[t] = var > 0 ? (double)sqrtl(var) : 0.0;
  }
  (void)r;
}

/* Population z-score of x_t within the last k values; 0 on a constant window. */
static void rolling_z_(const double *x, size_t n, int k, double *out) {
  for (size_t t = 0; t < n; t++) {
    if (t + 1 < (size_t)k) {
      out[t] = NAN;
      continue;
    }
    double mean = 0, lo = x[t], hi = x[t];
    for (size_t i = t + 1 - k; i <= t; i++) {
      mean += x[i];
      lo = x[i] < lo ? x[i] : lo;
      hi = x[i] > hi ? x[i] : hi;
    }
    mean /= k;
    double var = 0;
    for (size_t i = t + 1 - k; i <= t; i++)
      var += (x[i] - mean) * (x[i] - mean);
    out[t] = hi == lo || var <= 0 ? 0.0 : (x[t] - mean) / sqrt(var / k);
  }
}

int features_compute(const struct bars *b, float *out, struct fox_err *e) {
  size_t n = b->n;
  const double *o = b->open, *h = b->high, *l = b->low, *c = b->close, *v = b->volume;
  struct cols_ cols = {n, out};
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  double *r = malloc(n * sizeof *r);
  long double *s1 = malloc((n + 1) * sizeof *s1), *s2 = malloc((n + 1) * sizeof *s2);
  if (!x || !y || !z || !r || !s1 || !s2) {
    free(x), free(y), free(z), free(r), free(s1), free(s2);
    return fox_errf(e, FOX_EFAIL, "features: out of memory for %zu bars", n);
  }

  static const int ret_k[11] = {1, 2, 3, 5, 10, 15, 30, 60, 120, 240, 1440};
  for (int i = 0; i < 11; i++) {
    for (size_t t = 0; t < n; t++)
      x[t] = t >= (size_t)ret_k[i] ? log(c[t] / c[t - ret_k[i]]) : NAN;
    put_(&cols, i, x);
  }

  r[0] = 0;
  s1[0] = s2[0] = s1[1] = s2[1] = 0;
  for (size_t t = 1; t < n; t++) {
    r[t] = log(c[t] / c[t - 1]);
    s1[t + 1] = s1[t] + r[t];
    s2[t + 1] = s2[t] + (long double)r[t] * r[t];
  }
  static const int vol_k[4] = {15, 60, 240, 1440};
  for (int i = 0; i < 4; i++) {
    rolling_std_(r, n, vol_k[i], s1, s2, x);
    put_(&cols, 11 + i, x);
  }

  const double a = 2.0 / 101.0;
  double var = 0;
  for (size_t t = 0; t < n; t++) {
    if (t == 0) {
      x[t] = NAN;
      continue;
    }
    var = t == 1 ? r[1] * r[1] : (1 - a) * var + a * r[t] * r[t];
    x[t] = sqrt(var);
  }
  put_(&cols, 15, x);

  static const int rsi_k[3] = {7, 14, 28};
  for (int i = 0; i < 3; i++) {
    ta_rsi(c, n, rsi_k[i], x);
    put_(&cols, 16 + i, x);
  }

  ta_macd(c, n, 12, 26, 9, x, y, z);
  for (size_t t = 0; t < n; t++) {
    x[t] /= c[t];
    y[t] /= c[t];
    z[t] /= c[t];
  }
  put_(&cols, 19, x);
  put_(&cols, 20, y);
  put_(&cols, 21, z);

  ta_bbands(c, n, 20, 2.0, x, y, z); /* upper, middle, lower */
  for (size_t t = 0; t < n; t++) {
    double w = x[t] - z[t];
    double pctb = w == 0 ? 0.5 : (c[t] - z[t]) / w;
    x[t] = isnan(w) ? NAN : pctb;
    z[t] = w / y[t];
  }
  put_(&cols, 22, x);
  put_(&cols, 23, z);

  static const int atr_k[2] = {14, 60};
  for (int i = 0; i < 2; i++) {
    ta_atr(h, l, c, n, atr_k[i], x);
    for (size_t t = 0; t < n; t++)
      x[t] /= c[t];
    put_(&cols, 24 + i, x);
  }

  static const int ma_k[4] = {10, 30, 60, 240};
  for (int i = 0; i < 4; i++) {
    ta_sma(c, n, ma_k[i], x);
    ta_ema(c, n, 0, ma_k[i], y);
    for (size_t t = 0; t < n; t++) {
      x[t] = c[t] / x[t] - 1;
      y[t] = c[t] / y[t] - 1;
    }
    put_(&cols, 26 + i, x);
    put_(&cols, 30 + i, y);
  }

  ta_stochf(h, l, c, n, 14, 3, x, y);
  put_(&cols, 34, x);
  put_(&cols, 35, y);
  ta_willr(h, l, c, n, 14, x);
  put_(&cols, 36, x);
  ta_cci(h, l, c, n, 20, x);
  put_(&cols, 37, x);
  ta_adx(h, l, c, n, 14, x);
  put_(&cols, 38, x);
  ta_mfi(h, l, c, v, n, 14, x);
  put_(&cols, 39, x);

  ta_obv(c, v, n, y);
  rolling_z_(y, n, 60, x);
  put_(&cols, 40, x);
  rolling_z_(v, n, 60, x);
  put_(&cols, 41, x);
  ta_sma(v, n, 60, y);
  for (size_t t = 0; t < n; t++)
    x[t] = log((v[t] + 1) / (y[t] + 1));
  put_(&cols, 42, x);

  for (size_t t = 0; t < n; t++) {
    double hi_body = o[t] > c[t] ? o[t] : c[t], lo_body = o[t] < c[t] ? o[t] : c[t];
    float *row = out + t * FOX_NFEAT;
    row[43] = (float)((h[t] - l[t]) / c[t]);
    row[44] = (float)((c[t] - o[t]) / c[t]);
    row[45] = (float)((h[t] - hi_body) / c[t]);
    row[46] = (float)((lo_body - l[t]) / c[t]);
    int64_t sec = b->ts[t] % 86400, day = b->ts[t] / 86400;
    if (sec < 0) {
      sec += 86400;
      day -= 1;
    }
    int dow = (int)(((day + 3) % 7 + 7) % 7); /* 1970-01-01 was a Thursday; Monday = 0 */
    const double two_pi = 6.283185307179586476925286766559;
    row[47] = (float)sin(two_pi * (double)sec / 86400.0);
    row[48] = (float)cos(two_pi * (double)sec / 86400.0);
    row[49] = (float)sin(two_pi * dow / 7.0);
    row[50] = (float)cos(two_pi * dow / 7.0);
  }

  size_t warm = n < FOX_WARMUP ? n : FOX_WARMUP;
  for (size_t t = 0; t < warm; t++)
    for (int f = 0; f < FOX_NFEAT; f++)
      out[t * FOX_NFEAT + f] = NAN;

  free(x), free(y), free(z), free(r), free(s1), free(s2);
  return 0;
}
