/* Every rule of DESIGN.md s5 on tiny hand-made markets, with the expected cash, units, exits,
 * labels and rewards worked out by hand. Settings chosen for round numbers: spread 0.02 (ask =
 * 1.01 open, bid = 0.99 price), fee 0.01, cash reserve 0.1, capital 1000, pt = sl = 1, H = 4,
 * sigma = 0.025 so sigma*sqrt(H) = 0.05: an entry at ask 101 has upper 106.05, lower 95.95. */
#include <stdlib.h>
#include <string.h>

#include "backtest/backtest.h"
#include "env/venv.h"
#include "fox_check.h"

#define SD_ (FOX_NFEAT + FOX_NPORTFOLIO) /* a state of the built-in features */

#define MAXB 16

static struct config cfg_;

/* A dataset of n bars from rows {open, high, low, close}; ewm_vol 0.025 on every bar. */
static void make_(struct dataset *ds, int n, const double (*px)[4]) {
  memset(ds, 0, sizeof *ds);
  ds->n = (size_t)n;
  struct fox_err e = {0};
  CHECK(dataset_alloc_columns(ds, FOX_NFEAT, &e) == 0 && dataset_select(ds, NULL, 0, "test", &e) == 0,
        "%s", e.msg);
  ds->features = calloc((size_t)n * FOX_NFEAT, sizeof(float));
  ds->prices = calloc((size_t)n * 4, sizeof(float));
  for (int t = 0; t < n; t++) {
    for (int j = 0; j < 4; j++)
      ds->prices[4 * t + j] = (float)px[t][j];
    ds->features[t * FOX_NFEAT + FOX_EWM_VOL_COL] = 0.025f;
  }
  for (int f = 0; f < FOX_NFEAT; f++)
    ds->norm_std[f] = 1.0f;
  ds->split[FOX_SPLIT_VAL][0] = 0;
  ds->split[FOX_SPLIT_VAL][1] = n;
  ds->split[FOX_SPLIT_TRAIN][1] = n;
  ds->bars_per_year = 525600;
}

/* Runs `actions` over all bars of `ds` on the CPU backend. */
static void run_(struct dataset *ds, const uint8_t *actions, struct backtest_run *r) {
  struct device_dataset dev;
  struct fox_err e = {0};
  CHECK(backend_cpu()->dataset_upload(ds, &dev, &e) == 0, "%s", e.msg);
  CHECK(backtest_run(backend_cpu(), ds, &dev, &cfg_, FOX_SPLIT_VAL, 1, actions, r, &e) == 0,
        "%s", e.msg);
  backend_cpu()->dataset_release(&dev);
}

static const double units0 = 900.0 / (1.01 * 101.0); /* outlay 0.9 * 1000 at ask 101 plus fee */
/* The barriers use the stored f32 sigma: 0.025f is 0.025 + 3.7e-10. */
#define WIDTH ((double)0.025f * 2.0)
#define LOWER (101.0 * (1.0 - WIDTH))
#define UPPER (101.0 * (1.0 + WIDTH))
#define BID_NET(px) ((px) * 0.99 * 0.99)             /* per unit, after spread and fee */

int main(void) {
  config_defaults(&cfg_);
  struct market_params *p = &cfg_.market;
  p->initial_capital = 1000, p->spread = 0.02, p->fee = 0.01, p->cash_reserve = 0.1;
  p->pt = 1, p->sl = 1, p->horizon = 4, p->bonus = 0;
  p->reward_scale = 1; /* the raw log returns: the rules below are worked out on them */
  struct dataset ds;
  struct backtest_run r;

  /* A buy, a hold, a sell; the last action never executes. */
  const double flat[4][4] = {{100, 100, 100, 100}, {100, 100, 100, 100}, {100, 100, 100, 100},
                             {100, 100, 100, 100}};
  make_(&ds, 4, flat);
  run_(&ds, (uint8_t[]){1, 0, 2, 1}, &r);
  CHECK_NEAR(r.equity[0], 1000, 0, 0);
  CHECK_NEAR(r.equity[1], 100 + units0 * 100, 1e-9, 1e-12); /* cash 100 + units at the close */
  CHECK_NEAR(r.equity[2], 100 + units0 * 100, 1e-9, 1e-12);
  CHECK_NEAR(r.equity[3], 100 + units0 * BID_NET(100), 1e-9, 1e-12);
  CHECK(r.position[1] == 1 && r.position[2] == 1 && r.position[3] == 0, "positions 0 1 1 0");
  CHECK_NEAR(r.rewards[1], log(r.equity[1] / 1000), 1e-6, 1e-6);
  CHECK_NEAR(r.mean.trades, 1, 0, 0);
  CHECK_NEAR(r.mean.win_rate, 0, 0, 0); /* pnl = 864.71 - 900 < 0 */
  CHECK_NEAR(r.mean.profit_factor, 0, 0, 0);
  CHECK_NEAR(r.mean.exposure, 0.5, 0, 1e-12);
  CHECK_NEAR(r.mean.final_equity, 100 + units0 * BID_NET(100), 1e-9, 1e-12);
  backtest_free(&r);

  /* A buy while long and a sell while flat do nothing. */
  run_(&ds, (uint8_t[]){2, 1, 1, 0}, &r);
  CHECK_NEAR(r.equity[1], 1000, 0, 0);                      /* sell while flat */
  CHECK_NEAR(r.equity[2], 100 + units0 * 100, 1e-9, 1e-12);
  CHECK_NEAR(r.equity[3], 100 + units0 * BID_NET(100), 1e-9, 1e-12); /* same units: ignored */
  backtest_free(&r);
  dataset_free(&ds);

  /* Stop and take inside one bar: the stop is checked first and fills at the lower barrier. */
  const double both[3][4] = {{100, 100, 100, 100}, {100, 110, 90, 100}, {100, 100, 100, 100}};
  make_(&ds, 3, both);
  run_(&ds, (uint8_t[]){1, 0, 0}, &r);
  CHECK(r.labels[1] == FOX_LABEL_STOP, "label %d, expected stop", r.labels[1]);
  CHECK_NEAR(r.equity[1], 100 + units0 * BID_NET(LOWER), 1e-9, 1e-12);
  CHECK(r.position[1] == 0, "closed by the stop");
  backtest_free(&r);

  /* enforce off: the label is written, nothing is closed, and the barrier fires only once. */
  p->enforce = 0;
  run_(&ds, (uint8_t[]){1, 0, 0}, &r);
  CHECK(r.labels[1] == FOX_LABEL_STOP && r.position[1] == 1, "label without a close");
  CHECK_NEAR(r.equity[1], 100 + units0 * 100, 1e-9, 1e-12);
  CHECK_NEAR(r.equity[2], 100 + units0 * BID_NET(100), 1e-9, 1e-12); /* forced close at the end */
  backtest_free(&r);
  p->enforce = 1;
  dataset_free(&ds);

  /* A gap through the stop fills at the open, below the barrier. */
  const double gap[3][4] = {{100, 100, 100, 100}, {100, 100, 100, 100}, {90, 91, 89, 90}};
  make_(&ds, 3, gap);
  run_(&ds, (uint8_t[]){1, 0, 0}, &r);
  CHECK(r.labels[2] == FOX_LABEL_STOP, "gap label %d", r.labels[2]);
  CHECK_NEAR(r.equity[2], 100 + units0 * BID_NET(90), 1e-9, 1e-12);
  backtest_free(&r);
  dataset_free(&ds);

  /* Take-profit at the upper barrier, with a bonus added to that step's reward; a gap up
   * through it fills at the open. */
  p->bonus = 0.1;
  const double take[3][4] = {{100, 100, 100, 100}, {100, 100, 100, 100}, {100, 107, 100, 103}};
  make_(&ds, 3, take);
  run_(&ds, (uint8_t[]){1, 0, 0}, &r);
  CHECK(r.labels[2] == FOX_LABEL_TAKE, "take label %d", r.labels[2]);
  double e_take = 100 + units0 * BID_NET(UPPER);
  CHECK_NEAR(r.equity[2], e_take, 1e-9, 1e-12);
  CHECK_NEAR(r.rewards[2], log(e_take / r.equity[1]) + 0.1, 1e-6, 1e-6);
  CHECK_NEAR(r.mean.win_rate, 1, 0, 0);
  CHECK(isinf(r.mean.profit_factor), "wins without losses: profit factor inf, got %g",
        r.mean.profit_factor);
  backtest_free(&r);
  dataset_free(&ds);
  const double gap_up[3][4] = {{100, 100, 100, 100}, {100, 100, 100, 100}, {110, 112, 109, 111}};
  make_(&ds, 3, gap_up);
  run_(&ds, (uint8_t[]){1, 0, 0}, &r);
  CHECK_NEAR(r.equity[2], 100 + units0 * BID_NET(110), 1e-9, 1e-12);
  backtest_free(&r);
  dataset_free(&ds);
  p->bonus = 0;

  /* Time-out: entry at bar 1, vertical barrier at 1 + H = 5, exit at bar 5's close. */
  double slow[7][4];
  for (int t = 0; t < 7; t++)
    for (int j = 0; j < 4; j++)
      slow[t][j] = t == 5 ? 102 : 100;
  make_(&ds, 7, (const double(*)[4])slow);
  run_(&ds, (uint8_t[]){1, 0, 0, 0, 0, 0, 0}, &r);
  CHECK(r.labels[4] == FOX_LABEL_NONE && r.labels[5] == FOX_LABEL_TIME, "time-out at bar 5");
  CHECK_NEAR(r.equity[5], 100 + units0 * BID_NET(102), 1e-9, 1e-12);
  CHECK(r.position[5] == 0 && r.position[4] == 1, "closed at the vertical barrier");
  backtest_free(&r);
  dataset_free(&ds);

  /* The forced close at the split's last bar, at its close. */
  const double end[3][4] = {{100, 100, 100, 100}, {100, 100, 100, 100}, {100, 101, 99, 101}};
  make_(&ds, 3, end);
  run_(&ds, (uint8_t[]){0, 1, 0}, &r); /* the buy executes at bar 2, the last */
  CHECK_NEAR(r.equity[2], 100 + (900.0 / (1.01 * 101.0)) * BID_NET(101), 1e-9, 1e-12);
  CHECK(r.position[2] == 0 && r.mean.trades == 1, "forced close counted as a trip");
  backtest_free(&r);
  dataset_free(&ds);

  /* Training environments. All-in (no reserve), barriers out of reach. */
  p->cash_reserve = 0, p->sl = 1e5, p->pt = 1e5;
  struct device_dataset dev;
  struct fox_err e = {0};
  struct venv v;
  uint8_t buy[4] = {1, 1, 1, 1}, hold[4] = {0}, dones[4];
  float states[4 * SD_], next[4 * SD_], rew[4];

  /* Bankruptcy is terminal: bought at 100, bar 1 closes at 0.5 (equity 0.5% of capital). The
   * split [0, 2) starts every episode at bar 0 and ends it at bar 1. */
  const double crash[3][4] = {{100, 100, 100, 100}, {100, 100, 0.5, 0.5}, {0.5, 0.5, 0.5, 0.5}};
  make_(&ds, 3, crash);
  CHECK(backend_cpu()->dataset_upload(&ds, &dev, &e) == 0, "%s", e.msg);
  CHECK(venv_create(&v, backend_cpu(), &dev, p, 4, 100, 0, 2, 7, &e) == 0, "%s", e.msg);
  CHECK(venv_reset(&v, &e) == 0, "%s", e.msg);
  CHECK(venv_step(&v, buy, VENV_STATES | VENV_NEXT, &e) == 0, "%s", e.msg);
  CHECK(venv_read(&v, states, next, rew, dones, NULL, &e) == 0, "%s", e.msg);
  CHECK(dones[0] == FOX_DONE_TERMINAL, "bankruptcy is terminal, got done %d", dones[0]);
  CHECK_NEAR(rew[0], log((1000.0 / (1.01 * 101.0)) * 0.5 / 1000.0), 1e-6, 1e-6);
  CHECK(next[51] == 1.0f && states[51] == 0.0f, "next state long, the reset state flat");
  CHECK_NEAR(next[52], log(0.5 / 101.0), 1e-5, 1e-6); /* log(close / ask) */
  CHECK_NEAR(next[53], 0, 0, 0);                      /* entered this bar */
  /* Holding through the same bar: the episode simply ends (truncation, bootstrap). */
  CHECK(venv_reset(&v, &e) == 0, "%s", e.msg);
  CHECK(venv_step(&v, hold, VENV_STATES, &e) == 0, "%s", e.msg);
  CHECK(venv_read(&v, NULL, NULL, rew, dones, NULL, &e) == 0, "%s", e.msg);
  CHECK(dones[0] == FOX_DONE_TRUNCATED && rew[0] == 0.0f, "truncated, reward %g", rew[0]);
  venv_free(&v);
  backend_cpu()->dataset_release(&dev);
  dataset_free(&ds);

  /* Episodes start uniformly in [b, e-2] and end after episode_bars or at e-1; the bars-held
   * feature counts up; with reward.normalize the reward is divided by the running std. */
  double walk[64][4];
  for (int t = 0; t < 64; t++)
    for (int j = 0; j < 4; j++)
      walk[t][j] = 100 + (t % 7) - (t % 3);
  make_(&ds, 64, (const double(*)[4])walk);
  CHECK(backend_cpu()->dataset_upload(&ds, &dev, &e) == 0, "%s", e.msg);
  CHECK(venv_create(&v, backend_cpu(), &dev, p, 4, 5, 10, 60, 11, &e) == 0, "%s", e.msg);
  CHECK(venv_reset(&v, &e) == 0, "%s", e.msg);
  struct env_cursor cur[4];
  int seen_lo = 100, seen_hi = 0;
  double raw[3][4];
  for (int step = 0; step < 40; step++) {
    CHECK(venv_read_env(&v, NULL, cur, &e) == 0, "%s", e.msg);
    for (int i = 0; i < 4; i++) {
      CHECK(cur[i].t >= 10 && cur[i].t <= 58 && cur[i].end <= 59 && cur[i].end > cur[i].t,
            "cursor t %d end %d inside the split", cur[i].t, cur[i].end);
      seen_lo = cur[i].t < seen_lo ? cur[i].t : seen_lo;
      seen_hi = cur[i].t > seen_hi ? cur[i].t : seen_hi;
    }
    CHECK(venv_step(&v, step == 0 ? buy : hold, VENV_STATES, &e) == 0, "%s", e.msg);
    CHECK(venv_read(&v, states, NULL, rew, dones, NULL, &e) == 0, "%s", e.msg);
    if (step < 3)
      for (int i = 0; i < 4; i++)
        raw[step][i] = rew[i];
    if (step == 2)
      for (int i = 0; i < 4; i++)
        if (!dones[i] && states[i * SD_ + 51] == 1.0f)
          CHECK_NEAR(states[i * SD_ + 53], 2.0 / 4, 1e-7, 0); /* entered 2 bars ago, H 4 */
  }
  CHECK(seen_hi - seen_lo > 20, "starts spread over the split: [%d, %d]", seen_lo, seen_hi);
  venv_free(&v);
  p->reward_normalize = 1;
  CHECK(venv_create(&v, backend_cpu(), &dev, p, 4, 5, 10, 60, 11, &e) == 0, "%s", e.msg);
  CHECK(venv_reset(&v, &e) == 0, "%s", e.msg);
  for (int step = 0; step < 3; step++) {
    CHECK(venv_step(&v, step == 0 ? buy : hold, VENV_STATES, &e) == 0, "%s", e.msg);
    CHECK(venv_read(&v, NULL, NULL, rew, NULL, NULL, &e) == 0, "%s", e.msg);
    for (int i = 0; i < 4; i++) {
      /* Welford over this env's rewards so far (ddof 1); the first step has no std yet. */
      double m = 0, m2 = 0;
      for (int k = 0; k <= step; k++) {
        double d = raw[k][i] - m;
        m += d / (k + 1);
        m2 += d * (raw[k][i] - m);
      }
      double sd = step > 0 ? sqrt(m2 / step) : 0;
      CHECK_NEAR(rew[i], sd > 0 ? raw[step][i] / sd : raw[step][i], 1e-5, 1e-4);
    }
  }
  p->reward_normalize = 0;
  venv_free(&v);
  backend_cpu()->dataset_release(&dev);
  dataset_free(&ds);
  return fox_check_done("test_market");
}
