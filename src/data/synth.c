/* Synthetic bars: a log-price random walk whose per-minute variance follows GARCH(1,1), driven by
 * unit-variance Student-t(4) shocks, with a hidden Markov regime that shifts drift and volatility
 * (the walk's last days and cannot be traded; the regimes kind's trends last hours and can),
 * intraday seasonality in volume (and mildly in volatility), trade-less minutes, and OHLC from a
 * Brownian bridge of sub-steps inside each bar. */
#include "data/synth.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/rng.h"

#define SYNTH_SUBSTEPS 8

struct regime_ {
  double drift;    /* per-bar log drift */
  double vol_mult; /* multiplies the GARCH volatility */
};

/* The hidden chain: it starts in regime 0, leaves its regime with probability switch_p a bar, and
 * then moves to one of the others with equal probability. */
struct model_ {
  int n;
  const struct regime_ *regime;
  double switch_p;
};

/* walk: calm, bull, bear, turbulent, about three days each. Drifts of a few percent a day at most,
 * too little to pay for trading on them; the turbulent regime doubles volatility. */
static const struct regime_ walk_[] = {{0.0, 0.8}, {4e-6, 1.0}, {-5e-6, 1.2}, {0.0, 2.2}};
/* regimes: flat, up, down, about SYNTH_TREND_BARS bars each. A trend's drift of SYNTH_TREND_DRIFT
 * a bar is a quarter of a bar's noise at the default volatility (0.00083), so an hour of 60 bars
 * shows it at about two standard errors, and it makes 1.2 % an hour, many times the 0.13 % a round
 * trip costs at the default market. Deliberately strong: a demo of a few CPU minutes learns it. */
#define SYNTH_TREND_DRIFT 2e-4
#define SYNTH_TREND_BARS 240.0
static const struct regime_ trend_[] = {
    {0.0, 0.8}, {SYNTH_TREND_DRIFT, 1.0}, {-SYNTH_TREND_DRIFT, 1.2}};

static const struct model_ models_[] = {
    [SYNTH_WALK] = {4, walk_, 1.0 / (3.0 * 1440.0)},
    [SYNTH_REGIMES] = {3, trend_, 1.0 / SYNTH_TREND_BARS}};
static const char *const kind_names_[] = {[SYNTH_WALK] = "walk", [SYNTH_REGIMES] = "regimes"};

void synth_defaults(struct synth_params *p) {
  p->kind = SYNTH_WALK;
  p->seed = 1;
  p->start = 1704067200; /* 2024-01-01 00:00 UTC */
  p->bars = 0;
  p->price0 = 10000.0;
  p->annual_vol = 0.6;
}

int synth_kind_parse(const char *name, enum synth_kind *kind, struct fox_err *e) {
  for (int k = 0; k < (int)(sizeof kind_names_ / sizeof *kind_names_); k++)
    if (strcmp(name, kind_names_[k]) == 0) {
      *kind = (enum synth_kind)k;
      return 0;
    }
  return fox_errf(e, FOX_EUSAGE, "--kind '%s': expected walk or regimes", name);
}

const char *synth_kind_name(enum synth_kind kind) {
  return (unsigned)kind < sizeof kind_names_ / sizeof *kind_names_ ? kind_names_[kind] : "?";
}

/* Activity by UTC hour of day: a peak in the US afternoon, a trough in the Asian night. */
static double season_(int64_t ts) {
  double hour = (double)(((ts % 86400) + 86400) % 86400) / 3600.0;
  return 1.0 + 0.6 * cos(2.0 * M_PI * (hour - 15.0) / 24.0);
}

static double round2_(double x) { return floor(x * 100.0 + 0.5) / 100.0; }

int synth_write(const struct synth_params *p, FILE *out, const char *name, struct fox_err *e) {
  if (p->bars < 1)
    return fox_errf(e, FOX_EUSAGE, "--bars must be at least 1");
  if ((unsigned)p->kind >= sizeof models_ / sizeof *models_)
    return fox_errf(e, FOX_EUSAGE, "unknown synthetic kind %d", (int)p->kind);
  const struct model_ *m = &models_[p->kind];
  struct rng rng;
  rng_seed(&rng, p->seed);
  const double var0 = p->annual_vol * p->annual_vol / 525600.0;
  const double alpha = 0.06, beta = 0.93, omega = var0 * (1.0 - alpha - beta);
  const double switch_p = m->switch_p;
  double h = var0, logp = log(p->price0), close = round2_(p->price0);
  int regime = 0;
  if (fprintf(out, "timestamp,open,high,low,close,volume\n") < 0)
    return fox_errf(e, FOX_EFAIL, "%s: writing it failed: %s", name, strerror(errno));
  for (int64_t i = 0; i < p->bars; i++) {
    int64_t ts = p->start + 60 * i;
    if (rng_uniform(&rng) < switch_p)
      regime = (regime + 1 + (int)(rng_uniform(&rng) * (m->n - 1))) % m->n;
    double s = season_(ts);
    double sigma = sqrt(h) * m->regime[regime].vol_mult * sqrt(0.5 + 0.5 * s);
    double eps = rng_student_t(&rng, 4.0);
    double open = close;
    double hi = open, lo = open, vol = 0.0;
    if (rng_uniform(&rng) < 0.002 / s) {
      /* A minute without trades: the exchange repeats the previous close, volume 0. */
      eps = 0.0;
    } else {
      double r = m->regime[regime].drift + sigma * eps;
      /* Brownian bridge from logp to logp + r through SYNTH_SUBSTEPS points. */
      double z[SYNTH_SUBSTEPS], zsum = 0;
      for (int k = 0; k < SYNTH_SUBSTEPS; k++) {
        z[k] = rng_normal(&rng);
        zsum += z[k];
      }
      double x = logp, sub = sigma / sqrt((double)SYNTH_SUBSTEPS);
      for (int k = 0; k < SYNTH_SUBSTEPS; k++) {
        x += r / SYNTH_SUBSTEPS + sub * (z[k] - zsum / SYNTH_SUBSTEPS);
        double px = round2_(exp(x));
        hi = px > hi ? px : hi;
        lo = px < lo ? px : lo;
      }
      logp += r;
      close = round2_(exp(logp));
      if (close < 0.01)
        return fox_errf(e, FOX_EFAIL, "synthetic price fell below 0.01 at bar %lld",
                        (long long)i);
      hi = close > hi ? close : hi;
      lo = close < lo ? close : lo;
      double activity = s * m->regime[regime].vol_mult * (1.0 + 1.5 * fabs(eps));
      vol = floor(1000.0 * 40.0 * activity * exp(0.5 * rng_normal(&rng) - 0.125)) / 1000.0;
    }
    /* GARCH(1,1) on the base variance; regime and season scale it without feeding back. */
    h = omega + alpha * h * eps * eps + beta * h;
    if (fprintf(out, "%lld,%.2f,%.2f,%.2f,%.2f,%.3f\n", (long long)ts, open, hi, lo, close, vol) <
        0)
      return fox_errf(e, FOX_EFAIL, "%s: writing it failed at bar %lld: %s", name, (long long)i,
                      strerror(errno));
  }
  return 0;
}

int synth_dataset(struct dataset *ds, int64_t bars, uint64_t seed, struct fox_err *e) {
  struct synth_params p;
  synth_defaults(&p);
  p.bars = bars;
  p.seed = seed;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return fox_errf(e, FOX_EFAIL, "out of memory");
  int rc = synth_write(&p, f, "a synthetic dataset in memory", e);
  fclose(f);
  struct bars b = {0};
  struct csv_report rep;
  struct csv_options opt = {0};
  if (rc == 0)
    rc = csv_parse("synth", buf, len, &opt, &b, &rep, e);
  free(buf);
  if (rc != 0) {
    bars_free(&b);
    return rc;
  }
  const double frac[3] = {0.7, 0.15, 0.15};
  rc = dataset_build(ds, &b, frac, 0, rep.bar_seconds, "synthetic bars", e);
  ds->report = rep;
  return rc;
}
