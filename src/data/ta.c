/* TA-Lib's algorithms, transcribed from their published definitions (the ta_func sources):
 * Wilder smoothing as running averages, SMA-seeded EMAs. Degenerate windows follow TA-Lib C
 * 0.8 (what the PyPI wheels bundle): TA_EPSILON is 1e-14 and zero tests on quantities in the
 * quote unit are exact or relative, so a cheap instrument is not zeroed the way 0.4's 1e-8
 * and MFI's "flow < 1" did. Where a running sum would turn a constant window into rounding
 * noise we test the window itself (FEATURES.md: bands meet, constant typical price). */
#include "data/ta.h"

#include <math.h>

#define TA_EPS_ 1e-14
#define TA_IS_ZERO_(v) (-TA_EPS_ < (v) && (v) < TA_EPS_)

static void fill_nan_(double *out, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    out[i] = NAN;
}

void ta_sma(const double *in, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  if (n < (size_t)k)
    return;
  double sum = 0;
  for (int i = 0; i < k - 1; i++)
    sum += in[i];
  for (size_t t = (size_t)k - 1; t < n; t++) {
    sum += in[t];
    out[t] = sum / k;
    sum -= in[t - (size_t)k + 1];
  }
}

void ta_ema(const double *in, size_t n, size_t start, int k, double *out) {
  fill_nan_(out, 0, n);
  if (n < start + (size_t)k)
    return;
  double alpha = 2.0 / (k + 1), sum = 0;
  for (size_t i = start; i < start + (size_t)k; i++)
    sum += in[i];
  double prev = sum / k;
  size_t t = start + (size_t)k - 1;
  out[t] = prev;
  for (t++; t < n; t++) {
    prev = (in[t] - prev) * alpha + prev;
    out[t] = prev;
  }
}

void ta_rsi(const double *c, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  if (n <= (size_t)k)
    return;
  double gain = 0, loss = 0;
  for (int i = 1; i <= k; i++) {
    double d = c[i] - c[i - 1];
    if (d < 0)
      loss -= d;
    else
      gain += d;
  }
  gain /= k;
  loss /= k;
  out[k] = gain + loss == 0.0 ? 0.0 : 100.0 * (gain / (gain + loss));
  for (size_t t = (size_t)k + 1; t < n; t++) {
    double d = c[t] - c[t - 1];
    gain *= (k - 1);
    loss *= (k - 1);
    if (d < 0)
      loss -= d;
    else
      gain += d;
    gain /= k;
    loss /= k;
    out[t] = gain + loss == 0.0 ? 0.0 : 100.0 * (gain / (gain + loss));
  }
}

/* One EMA seeded at bar `at` with the SMA of the k values ending there (TA_INT_EMA's behaviour
 * when its start index lies past its own lookback, as in MACD). */
static void ema_seeded_at_(const double *in, size_t n, size_t at, int k, double *out) {
  double alpha = 2.0 / (k + 1), sum = 0;
  for (size_t i = at + 1 - (size_t)k; i <= at; i++)
    sum += in[i];
  double prev = sum / k;
  out[at] = prev;
  for (size_t t = at + 1; t < n; t++) {
    prev = (in[t] - prev) * alpha + prev;
    out[t] = prev;
  }
}

void ta_macd(const double *c, size_t n, int fast, int slow, int signal, double *macd, double *sig,
             double *hist) {
  fill_nan_(macd, 0, n);
  fill_nan_(sig, 0, n);
  fill_nan_(hist, 0, n);
  if (slow < fast) {
    int t = slow;
    slow = fast;
    fast = t;
  }
  size_t at = (size_t)slow - 1;
  if (n < at + (size_t)signal)
    return;
  /* Borrow the outputs as scratch for the two EMAs: sig holds the fast one, hist the slow. */
  ema_seeded_at_(c, n, at, fast, sig);
  ema_seeded_at_(c, n, at, slow, hist);
  for (size_t t = at; t < n; t++)
    macd[t] = sig[t] - hist[t];
  ta_ema(macd, n, at, signal, sig);
  for (size_t t = 0; t < n; t++)
    hist[t] = macd[t] - sig[t];
  for (size_t t = at; t < at + (size_t)signal - 1; t++)
    macd[t] = hist[t] = NAN; /* TA-Lib's first MACD output waits for the signal line */
}

void ta_bbands(const double *c, size_t n, int k, double nbdev, double *upper, double *middle,
               double *lower) {
  ta_sma(c, n, k, middle);
  fill_nan_(upper, 0, n);
  fill_nan_(lower, 0, n);
  for (size_t t = (size_t)k - 1; t < n; t++) {
    double mean = 0, lo = c[t], hi = c[t];
    for (size_t i = t + 1 - (size_t)k; i <= t; i++) {
      mean += c[i];
      lo = c[i] < lo ? c[i] : lo;
      hi = c[i] > hi ? c[i] : hi;
    }
    mean /= k;
    double var = 0;
    for (size_t i = t + 1 - (size_t)k; i <= t; i++)
      var += (c[i] - mean) * (c[i] - mean);
    double sd = hi == lo ? 0.0 : sqrt(var / k);
    upper[t] = middle[t] + nbdev * sd;
    lower[t] = middle[t] - nbdev * sd;
  }
}

static double true_range_(double h, double l, double prev_close) {
  double tr = h - l, a = fabs(h - prev_close), b = fabs(l - prev_close);
  if (a > tr)
    tr = a;
  if (b > tr)
    tr = b;
  return tr;
}

void ta_atr(const double *h, const double *l, const double *c, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  if (n <= (size_t)k)
    return;
  double atr = 0;
  for (int i = 1; i <= k; i++)
    atr += true_range_(h[i], l[i], c[i - 1]);
  atr /= k;
  out[k] = atr;
  for (size_t t = (size_t)k + 1; t < n; t++) {
    atr = (atr * (k - 1) + true_range_(h[t], l[t], c[t - 1])) / k;
    out[t] = atr;
  }
}

static void window_hilo_(const double *h, const double *l, size_t t, int k, double *hi,
                         double *lo) {
  *hi = h[t];
  *lo = l[t];
  for (size_t i = t + 1 - (size_t)k; i < t; i++) {
    if (h[i] > *hi)
      *hi = h[i];
    if (l[i] < *lo)
      *lo = l[i];
  }
}

void ta_stochf(const double *h, const double *l, const double *c, size_t n, int fastk, int fastd,
               double *k_out, double *d_out) {
  fill_nan_(k_out, 0, n);
  for (size_t t = (size_t)fastk - 1; t < n; t++) {
    double hi, lo;
    window_hilo_(h, l, t, fastk, &hi, &lo);
    double diff = (hi - lo) / 100.0;
    int flat = fabs(hi - lo) <= TA_EPS_ * (fabs(hi) + fabs(lo));
    k_out[t] = flat ? 0.0 : (c[t] - lo) / diff;
  }
  fill_nan_(d_out, 0, n);
  size_t first = (size_t)fastk - 1 + (size_t)fastd - 1;
  for (size_t t = first; t < n; t++) {
    double s = 0;
    for (size_t i = t + 1 - (size_t)fastd; i <= t; i++)
      s += k_out[i];
    d_out[t] = s / fastd;
  }
  for (size_t t = (size_t)fastk - 1; t < first && t < n; t++)
    k_out[t] = NAN; /* TA-Lib aligns fast %K with the first %D */
}

void ta_willr(const double *h, const double *l, const double *c, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  for (size_t t = (size_t)k - 1; t < n; t++) {
    double hi, lo;
    window_hilo_(h, l, t, k, &hi, &lo);
    double diff = (hi - lo) / -100.0;
    out[t] = diff != 0.0 ? (hi - c[t]) / diff : 0.0;
  }
}

void ta_cci(const double *h, const double *l, const double *c, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  for (size_t t = (size_t)k - 1; t < n; t++) {
    double mean = 0, tp_lo = INFINITY, tp_hi = -INFINITY;
    for (size_t i = t + 1 - (size_t)k; i <= t; i++) {
      double tp = (h[i] + l[i] + c[i]) / 3;
      mean += tp;
      tp_lo = tp < tp_lo ? tp : tp_lo;
      tp_hi = tp > tp_hi ? tp : tp_hi;
    }
    mean /= k;
    double dev = 0;
    for (size_t i = t + 1 - (size_t)k; i <= t; i++)
      dev += fabs((h[i] + l[i] + c[i]) / 3 - mean);
    double last = (h[t] + l[t] + c[t]) / 3 - mean;
    int zero = tp_hi == tp_lo || TA_IS_ZERO_(last) || TA_IS_ZERO_(dev);
    out[t] = zero ? 0.0 : last / (0.015 * (dev / k));
  }
}

/* Wilder's directional movement of bar t against bar t-1, with TA-Lib's tie rules. */
static void dm_(const double *h, const double *l, size_t t, double *plus, double *minus) {
  double up = h[t] - h[t - 1], down = l[t - 1] - l[t];
  *plus = *minus = 0;
  if (down > 0 && up < down)
    *minus = down;
  else if (up > 0 && up > down)
    *plus = up;
}

void ta_adx(const double *h, const double *l, const double *c, size_t n, int k, double *out) {
  fill_nan_(out, 0, n);
  size_t first = 2 * (size_t)k - 1;
  if (n <= first)
    return;
  double pdm = 0, mdm = 0, tr = 0, p, m;
  size_t t = 1;
  for (; t < (size_t)k; t++) {
    dm_(h, l, t, &p, &m);
    pdm += p;
    mdm += m;
    tr += true_range_(h[t], l[t], c[t - 1]);
  }
  double sum_dx = 0, adx = 0;
  for (; t < n; t++) {
    dm_(h, l, t, &p, &m);
    pdm = pdm - pdm / k + p;
    mdm = mdm - mdm / k + m;
    tr = tr - tr / k + true_range_(h[t], l[t], c[t - 1]);
    int have_dx = 0;
    double dx = 0;
    if (tr != 0.0) {
      double pdi = 100.0 * (pdm / tr), mdi = 100.0 * (mdm / tr), s = pdi + mdi;
      if (!TA_IS_ZERO_(s)) {
        dx = 100.0 * (fabs(mdi - pdi) / s);
        have_dx = 1;
      }
    }
    if (t < first) {
      sum_dx += dx;
    } else if (t == first) {
      sum_dx += dx;
      adx = sum_dx / k;
      out[t] = adx;
    } else {
      if (have_dx)
        adx = (adx * (k - 1) + dx) / k;
      out[t] = adx;
    }
  }
}

/* Money flow tp*V of bar t, positive or negative by the move of the typical price from bar t-1;
 * a move within 1e-14 of the prices is no move (TA-Lib 0.8). */
static void mfi_flow_(const double *h, const double *l, const double *c, const double *v,
                      size_t t, double *pos, double *neg) {
  double tp = (h[t] + l[t] + c[t]) / 3, prev = (h[t - 1] + l[t - 1] + c[t - 1]) / 3;
  double d = tp - prev, mf = tp * v[t];
  if (fabs(d) <= TA_EPS_ * (fabs(tp) + fabs(prev)))
    d = 0.0;
  *pos = d > 0 ? mf : 0.0;
  *neg = d < 0 ? mf : 0.0;
}

/* Window sums are taken afresh each bar: a running sum would leave rounding residue where the
 * window's flow is exactly zero, and the index is 0 only there. */
void ta_mfi(const double *h, const double *l, const double *c, const double *v, size_t n, int k,
            double *out) {
  fill_nan_(out, 0, n);
  for (size_t t = (size_t)k; t < n; t++) {
    double pos = 0, neg = 0, p, m;
    for (size_t i = t + 1 - (size_t)k; i <= t; i++) {
      mfi_flow_(h, l, c, v, i, &p, &m);
      pos += p;
      neg += m;
    }
    out[t] = pos + neg > 0.0 ? 100.0 * (pos / (pos + neg)) : 0.0;
  }
}

void ta_obv(const double *c, const double *v, size_t n, double *out) {
  if (n == 0)
    return;
  double obv = v[0];
  out[0] = obv;
  for (size_t t = 1; t < n; t++) {
    if (c[t] > c[t - 1])
      obv += v[t];
    else if (c[t] < c[t - 1])
      obv -= v[t];
    out[t] = obv;
  }
}
