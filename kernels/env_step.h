/* The market, one bar of one environment (DESIGN.md s5): execute the pending action at the
 * open, triple-barrier checks, the forced close, equity, reward, and the state (the selected
 * features, then 3 portfolio features).
 * Called by the CPU loops (src/env) and by the CUDA kernels (kernels/env_kernels.cu) alike. */
#ifndef FOX_ENV_STEP_H
#define FOX_ENV_STEP_H

#include <math.h>
#include <stdint.h>

#include "fox_hd.h"
#include "norm_step.h"

#define FOX_NPORTFOLIO 3 /* the portfolio features that follow the market ones in a state */
#define FOX_EWM_VOL_COL 15 /* the per-bar sigma of the triple barrier (a built-in column) */

enum { FOX_HOLD = 0, FOX_BUY = 1, FOX_SELL = 2 };
enum { FOX_LABEL_NONE = 0, FOX_LABEL_TAKE = 1, FOX_LABEL_STOP = 2, FOX_LABEL_TIME = 3 };
enum { FOX_DONE_TERMINAL = 1, FOX_DONE_TRUNCATED = 2 };

/* Market, barrier and reward settings (DESIGN.md s8), plain data for the device. */
struct market_params {
  double initial_capital, spread, fee, cash_reserve;
  double pt, sl, bonus;
  int horizon, enforce;
  int reward_normalize;
  double reward_scale;
  int nfeat; /* the state's market features (data.features; the dataset fixes it, not config) */
};

/* The floats of one state: the selected features, then the portfolio's. */
#define FOX_STATE_DIM(p) ((p)->nfeat + FOX_NPORTFOLIO)

/* One environment's portfolio and barrier. `outlay` is the cash spent on the open position,
 * so a round trip's net pnl is proceeds - outlay. */
struct env_state {
  double cash, units, entry, outlay, equity;
  double upper, lower;
  int32_t entry_bar, vertical, active, pad_;
};

/* What one bar did, for rewards, labels and the round-trip statistics. */
struct bar_event {
  double reward; /* log(E_k / E_{k-1}) plus/minus the barrier bonus, unscaled */
  int label;     /* FOX_LABEL_* of this bar */
  int closed;    /* a round trip ended this bar */
  double pnl;    /* its net pnl */
};

FOX_HD static inline void env_portfolio_reset(const struct market_params *p, struct env_state *s) {
  s->cash = p->initial_capital;
  s->units = 0.0;
  s->entry = s->outlay = 0.0;
  s->equity = p->initial_capital;
  s->upper = s->lower = 0.0;
  s->entry_bar = s->vertical = 0;
  s->active = 0;
  s->pad_ = 0;
}

/* Sells the whole position at `price` (bid side, fee) and returns the trip's net pnl. */
FOX_HD static inline double env_close_(const struct market_params *p, struct env_state *s,
                                       double price) {
  double proceeds = s->units * price * (1.0 - 0.5 * p->spread) * (1.0 - p->fee);
  double pnl = proceeds - s->outlay;
  s->cash += proceeds;
  s->units = 0.0;
  s->outlay = 0.0;
  s->active = 0;
  return pnl;
}

/* Bar k: `px` = open, high, low, close of bar k; `sigma_prev` = ewm_vol of bar k-1;
 * `last` forces a close at the close (the backtest's final bar). Steps 1-3 of s5. */
FOX_HD static inline struct bar_event env_bar(const struct market_params *p, struct env_state *s,
                                              int action, int32_t k, const float *px,
                                              float sigma_prev, int last) {
  struct bar_event ev = {0.0, FOX_LABEL_NONE, 0, 0.0};
  double open = px[0], high = px[1], low = px[2], close = px[3];
  double prev_equity = s->equity;
  int long_ = s->units > 0.0;
  if (action == FOX_BUY && !long_) {
    double ask = open * (1.0 + 0.5 * p->spread);
    double outlay = (1.0 - p->cash_reserve) * s->cash;
    s->units = outlay / ((1.0 + p->fee) * ask);
    s->cash -= outlay;
    s->outlay = outlay;
    s->entry = ask;
    s->entry_bar = k;
    double width = (double)sigma_prev * sqrt((double)p->horizon);
    s->upper = ask * (1.0 + p->pt * width);
    s->lower = ask * (1.0 - p->sl * width);
    s->vertical = k + p->horizon;
    s->active = 1;
    long_ = s->units > 0.0;
  } else if (action == FOX_SELL && long_) {
    ev.pnl = env_close_(p, s, open);
    ev.closed = 1;
    long_ = 0;
  }
  if (long_ && s->active) {
    double exit_px = 0.0;
    if (low <= s->lower) { /* the stop is checked first: a bar that spans both is a loss */
      ev.label = FOX_LABEL_STOP;
      exit_px = open < s->lower ? open : s->lower;
    } else if (high >= s->upper) {
      ev.label = FOX_LABEL_TAKE;
      exit_px = open > s->upper ? open : s->upper;
    } else if (k >= s->vertical) {
      ev.label = FOX_LABEL_TIME;
      exit_px = close;
    }
    if (ev.label != FOX_LABEL_NONE) {
      s->active = 0; /* one label per position, with enforce off too */
      if (p->enforce) {
        ev.pnl = env_close_(p, s, exit_px);
        ev.closed = 1;
        if (ev.label == FOX_LABEL_TAKE)
          ev.reward += p->bonus;
        else if (ev.label == FOX_LABEL_STOP)
          ev.reward -= p->bonus;
      }
    }
  }
  if (last && s->units > 0.0) {
    ev.pnl = env_close_(p, s, close);
    ev.closed = 1;
  }
  s->equity = s->cash + s->units * close;
  ev.reward += log(s->equity / prev_equity);
  return ev;
}

/* The 3 portfolio features after bar t: in position, log(close / entry), bars held / H. */
FOX_HD static inline void env_portfolio_features(const struct market_params *p,
                                                 const struct env_state *s, int32_t t,
                                                 float close, float *out) {
  int long_ = s->units > 0.0;
  out[0] = long_ ? 1.0f : 0.0f;
  out[1] = long_ ? (float)log((double)close / s->entry) : 0.0f;
  out[2] = long_ ? (float)((double)(t - s->entry_bar) / p->horizon) : 0.0f;
}

/* The state after bar t: its normalised features (p->nfeat), then the portfolio features. */
FOX_HD static inline void env_observe(const struct market_params *p, const struct env_state *s,
                                      int32_t t, const float *norm_row, float close, float *out) {
  for (int f = 0; f < p->nfeat; f++)
    out[f] = norm_row[f];
  env_portfolio_features(p, s, t, close, out + p->nfeat);
}

/* Running reward statistics (Welford), one stream per environment so that the step needs no
 * reduction across threads; with reward_normalize the reward is divided by their std. */
struct reward_stats {
  double count, mean, m2;
};

FOX_HD static inline double env_reward_shape(const struct market_params *p,
                                             struct reward_stats *rs, double raw) {
  double r = p->reward_scale * raw;
  if (!p->reward_normalize)
    return r;
  rs->count += 1.0;
  double d = r - rs->mean;
  rs->mean += d / rs->count;
  rs->m2 += d * (r - rs->mean);
  double var = rs->count > 1.0 ? rs->m2 / (rs->count - 1.0) : 0.0;
  return var > 0.0 ? r / sqrt(var) : r;
}

#endif
