/* TA-Lib indicators on an 8-bar series, against values worked out by hand from the published
 * definitions (the arithmetic is in the comments). */
#include <math.h>
#include <string.h>

#include "data/ta.h"
#include "fox_check.h"

#define N 8
static const double c[N] = {10, 11, 12, 11, 10, 11, 13, 12};
static const double h[N] = {11, 12, 13, 12, 11, 12, 14, 13};
static const double l[N] = {9, 10, 11, 10, 9, 10, 12, 11};
static const double v[N] = {100, 200, 300, 400, 500, 600, 700, 800};

static void expect_(const char *what, const double *got, const double *want) {
  for (int i = 0; i < N; i++)
    CHECK((isnan(got[i]) && isnan(want[i])) ||
              (!isnan(got[i]) && !isnan(want[i]) && fabs(got[i] - want[i]) <= 1e-9 * (1 + fabs(want[i]))),
          "%s[%d] = %.12g, expected %.12g", what, i, got[i], want[i]);
}

int main(void) {
  double o[N], o2[N], o3[N];
  const double X = NAN;

  /* SMA(3): (10+11+12)/3 = 11, (11+12+11)/3, ... */
  ta_sma(c, N, 3, o);
  expect_("sma3", o, (double[N]){X, X, 11, 34.0 / 3, 11, 32.0 / 3, 34.0 / 3, 12});

  /* EMA(3): alpha = 2/4 = 0.5, seeded by SMA = 11 at bar 2; then prev + 0.5*(x - prev). */
  ta_ema(c, N, 0, 3, o);
  expect_("ema3", o, (double[N]){X, X, 11, 11, 10.5, 10.75, 11.875, 11.9375});

  /* RSI(3): diffs +1,+1,-1 give avg gain 2/3, loss 1/3 -> 66.67 at bar 3; Wilder after:
   * bar 4 (d=-1): G=(2/3*2)/3=4/9, L=(1/3*2+1)/3=5/9 -> 44.44; bar 5 (+1): 17/27, 10/27;
   * bar 6 (+2): 88/81, 20/81; bar 7 (-1): 176/243, 121/243. */
  ta_rsi(c, N, 3, o);
  expect_("rsi3", o,
          (double[N]){X, X, X, 200.0 / 3, 400.0 / 9, 1700.0 / 27, 8800.0 / 108, 17600.0 / 297});

  /* ATR(3): TR = 2,2,2,2,2,3,2 for bars 1..7; first ATR = mean(TR1..3) = 2 at bar 3, then
   * (prev*2 + TR)/3: 2, 2, 7/3, 20/9. */
  ta_atr(h, l, c, N, 3, o);
  expect_("atr3", o, (double[N]){X, X, X, 2, 2, 2, 7.0 / 3, 20.0 / 9});

  /* WILLR(3) at bar 2: HH 13, LL 9, C 12 -> (13-12)/(13-9) * -100 = -25; bar 6: HH 14, LL 9,
   * C 13 -> -20. */
  ta_willr(h, l, c, N, 3, o);
  CHECK_NEAR(o[2], -25, 1e-12, 0);
  CHECK_NEAR(o[6], -20, 1e-12, 0);
  CHECK(isnan(o[1]), "willr before its window is NaN");

  /* STOCHF(3, 2): %K bar 2 = (12-9)/(13-9)*100 = 75, bar 3 = (11-10)/(13-10)*100 = 33.33;
   * %D bar 3 = (75 + 33.33)/2; TA-Lib starts %K together with %D, at bar 3. */
  ta_stochf(h, l, c, N, 3, 2, o, o2);
  CHECK(isnan(o[2]), "fast %%K is aligned with the first %%D (NaN at bar 2, got %g)", o[2]);
  CHECK_NEAR(o[3], 100.0 / 3, 1e-12, 1e-12);
  CHECK_NEAR(o2[3], (75 + 100.0 / 3) / 2, 1e-12, 1e-12);

  /* CCI(3): the typical price equals the close here. Bar 2: mean 11, mean |dev| 2/3 ->
   * (12-11)/(0.015*2/3) = 100; bar 3: mean 34/3, mean |dev| 4/9 -> (-1/3)/(0.015*4/9) = -50. */
  ta_cci(h, l, c, N, 3, o);
  CHECK_NEAR(o[2], 100, 1e-9, 1e-12);
  CHECK_NEAR(o[3], -50, 1e-9, 1e-12);

  /* OBV: starts at V0 = 100; +200, +300, -400, -500, +600, +700, -800. */
  ta_obv(c, v, N, o);
  expect_("obv", o, (double[N]){100, 300, 600, 200, -300, 300, 1000, 200});

  /* MFI(3): flows TP*V = +2200, +3600, -4400 (bars 1..3) -> 100*5800/10200 at bar 3; bar 4
   * adds -5000 and drops +2200 -> 100*3600/13000. */
  ta_mfi(h, l, c, v, N, 3, o);
  CHECK_NEAR(o[3], 100.0 * 5800 / 10200, 1e-9, 1e-12);
  CHECK_NEAR(o[4], 100.0 * 3600 / 13000, 1e-9, 1e-12);
  double flat[N] = {5, 5, 5, 5, 5, 5, 5, 5}, zero[N] = {0};
  ta_mfi(flat, flat, flat, zero, N, 3, o);
  CHECK_NEAR(o[5], 0, 0, 0); /* no flow at all -> 0 */
  /* A cheap instrument keeps its index: TA-Lib 0.8 dropped 0.4's "total flow < 1 -> 0". */
  double hs[N], ls[N], cs[N], vs[N];
  for (int i = 0; i < N; i++)
    hs[i] = h[i] * 1e-7, ls[i] = l[i] * 1e-7, cs[i] = c[i] * 1e-7, vs[i] = v[i] * 1e-3;
  ta_mfi(hs, ls, cs, vs, N, 3, o);
  CHECK_NEAR(o[3], 100.0 * 5800 / 10200, 1e-9, 1e-9);
  ta_rsi(cs, N, 3, o);
  CHECK_NEAR(o[3], 200.0 / 3, 1e-9, 1e-9);

  /* BBANDS(3, 2): bar 2 mean 11, population std sqrt(2/3). A flat window has std 0. */
  ta_bbands(c, N, 3, 2.0, o, o2, o3);
  CHECK_NEAR(o[2], 11 + 2 * sqrt(2.0 / 3), 1e-12, 1e-12);
  CHECK_NEAR(o3[2], 11 - 2 * sqrt(2.0 / 3), 1e-12, 1e-12);
  CHECK_NEAR(o2[2], 11, 1e-12, 0);
  ta_bbands(flat, N, 3, 2.0, o, o2, o3);
  CHECK(o[5] == o3[5], "bands meet on a flat window (%g vs %g)", o[5], o3[5]);

  /* ADX(2), first value at bar 2k-1 = 3. Bar 1: +DM 1, TR 2. Bar 2: +DM = 1 - 1/2 + 1 = 1.5,
   * TR = 2 - 1 + 2 = 3, +DI 50, -DI 0, DX 100. Bar 3: +DM 0.75, -DM 1, TR 3.5, +DI 150/7,
   * -DI 200/7, DX 100/7; ADX = (100 + 100/7)/2 = 400/7. Bar 4: +DM .375, -DM 1.5, TR 3.75,
   * DI 10 and 40, DX 60; ADX = (400/7 + 60)/2 = 410/7. */
  ta_adx(h, l, c, N, 2, o);
  CHECK(isnan(o[2]), "adx before bar 3 is NaN");
  CHECK_NEAR(o[3], 400.0 / 7, 1e-9, 1e-12);
  CHECK_NEAR(o[4], 410.0 / 7, 1e-9, 1e-12);

  /* MACD seeding: on a linear ramp c_t = t both EMAs of a ramp lag by a constant
   * (period-1)/2 once seeded by an SMA, so macd = (26-1)/2 - (12-1)/2 = 7 exactly, and the
   * signal of a constant is that constant. */
  enum { M = 60 };
  double ramp[M], m[M], s[M], hh[M];
  for (int i = 0; i < M; i++)
    ramp[i] = i;
  ta_macd(ramp, M, 12, 26, 9, m, s, hh);
  CHECK(isnan(m[32]) && !isnan(m[33]), "first MACD at bar 33 (got %g, %g)", m[32], m[33]);
  CHECK_NEAR(m[40], 7, 1e-9, 0);
  CHECK_NEAR(s[40], 7, 1e-9, 0);
  CHECK_NEAR(hh[40], 0, 1e-9, 0);
  return fox_check_done("test_ta");
}
