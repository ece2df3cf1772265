/* The synthetic market: reproducible byte for byte, consistent OHLC, and the stylised facts its
 * docs/commands.md promises (fat tails, volatility clustering, intraday volume seasonality, regimes). */
#include <stdlib.h>
#include <string.h>

#include "data/csv.h"
#include "data/synth.h"
#include "fox_check.h"

#define BARS (60 * 1440)

static char *gen_(uint64_t seed, size_t *len) {
  struct synth_params p;
  synth_defaults(&p);
  p.seed = seed;
  p.bars = BARS;
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  struct fox_err e = {0};
  CHECK(synth_write(&p, f, "synth.csv", &e) == 0, "%s", e.msg);
  fclose(f);
  return buf;
}

int main(void) {
  size_t n1, n2, n3;
  char *a = gen_(7, &n1), *b = gen_(7, &n2), *c = gen_(8, &n3);
  CHECK(n1 == n2 && memcmp(a, b, n1) == 0, "same seed, same bytes");
  CHECK(n1 != n3 || memcmp(a, c, n1) != 0, "another seed, another file");

  /* The importer's strict checks are the consistency test: no row may be repaired or rejected. */
  struct bars bars = {0};
  struct csv_report r;
  struct fox_err e = {0};
  struct csv_options opt = {0};
  CHECK(csv_parse("synth", a, n1, &opt, &bars, &r, &e) == 0, "%s", e.msg);
  CHECK(bars.n == BARS && r.repaired_opens == 0 && r.gaps == 0, "bars %zu, repaired %zu",
        bars.n, r.repaired_opens);

  size_t n = bars.n - 1, zero_vol = 0;
  double *ret = malloc(n * sizeof *ret), m2 = 0, m4 = 0;
  for (size_t t = 0; t < n; t++) {
    ret[t] = log(bars.close[t + 1] / bars.close[t]);
    m2 += ret[t] * ret[t];
    zero_vol += bars.volume[t] == 0;
  }
  m2 /= n;
  for (size_t t = 0; t < n; t++)
    m4 += pow(ret[t], 4);
  double kurt = m4 / n / (m2 * m2);
  CHECK(kurt > 5, "fat tails: kurtosis %.2f should exceed 5 (normal: 3)", kurt);
  /* Volatility clustering: |r| is autocorrelated over an hour, raw r is not. */
  double ma = 0, va = 0, ca = 0, cr = 0;
  for (size_t t = 0; t < n; t++)
    ma += fabs(ret[t]) / n;
  for (size_t t = 0; t + 60 < n; t++) {
    ca += (fabs(ret[t]) - ma) * (fabs(ret[t + 60]) - ma);
    cr += ret[t] * ret[t + 1];
  }
  for (size_t t = 0; t < n; t++)
    va += (fabs(ret[t]) - ma) * (fabs(ret[t]) - ma);
  CHECK(ca / va > 0.05, "clustering: acf(|r|, 60) = %.3f should exceed 0.05", ca / va);
  CHECK(fabs(cr / (m2 * n)) < 0.05, "no linear predictability: acf(r, 1) = %.3f", cr / (m2 * n));
  /* Volume by hour: the US afternoon (15h) trades more than the Asian night (3h). */
  double v15 = 0, v3 = 0;
  for (size_t t = 0; t < bars.n; t++) {
    int hour = (int)((bars.ts[t] % 86400) / 3600);
    v15 += hour == 15 ? bars.volume[t] : 0;
    v3 += hour == 3 ? bars.volume[t] : 0;
  }
  CHECK(v15 > 2 * v3, "seasonality: volume at 15h %.0f vs 3h %.0f", v15, v3);
  CHECK(zero_vol > 0 && zero_vol < n / 100, "some trade-less minutes: %zu", zero_vol);
  /* Regimes: daily realised volatility varies by more than a factor of 2 over two months. */
  double lo = 1e9, hi = 0;
  for (size_t d = 0; d + 1440 <= n; d += 1440) {
    double s = 0;
    for (size_t t = d; t < d + 1440; t++)
      s += ret[t] * ret[t];
    lo = s < lo ? s : lo;
    hi = s > hi ? s : hi;
  }
  CHECK(hi / lo > 4, "daily variance range %.2f should exceed 4", hi / lo);
  free(ret);
  bars_free(&bars);
  free(a), free(b), free(c);
  return fox_check_done("test_synth");
}
