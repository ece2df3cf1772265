/* Backtest metrics (DESIGN.md s6, empyrical's conventions) accumulated in one pass over the
 * equity series, so that a thread (or the CPU loop) carries them in registers. */
#ifndef FOX_METRICS_STEP_H
#define FOX_METRICS_STEP_H

#include <math.h>

#include "env_step.h"
#include "fox_hd.h"

struct metrics_acc {
  double e0, elast, peak, mdd;
  double nret, mean, m2, down2; /* Welford over r_t = E_t/E_{t-1} - 1, and sum of min(r,0)^2 */
  double trades, wins, gross_win, gross_loss;
  double bars, exposure_bars;
};

#define FOX_NMETRICS 12
/* In the order of metrics_names (src/backtest/metrics.c). */
struct metrics {
  double total_return, sharpe, sortino, max_drawdown, annual_return, calmar;
  double trades, win_rate, profit_factor, exposure, final_equity, bars;
};

FOX_HD static inline void metrics_begin(struct metrics_acc *a, double e0) {
  a->e0 = a->elast = a->peak = e0;
  a->mdd = a->nret = a->mean = a->m2 = a->down2 = 0.0;
  a->trades = a->wins = a->gross_win = a->gross_loss = 0.0;
  a->bars = 1.0; /* bar b: equity e0, flat */
  a->exposure_bars = 0.0;
}

FOX_HD static inline void metrics_add_bar(struct metrics_acc *a, double equity, int in_position,
                                          const struct bar_event *ev) {
  double r = equity / a->elast - 1.0;
  a->nret += 1.0;
  double d = r - a->mean;
  a->mean += d / a->nret;
  a->m2 += d * (r - a->mean);
  if (r < 0.0)
    a->down2 += r * r;
  a->elast = equity;
  if (equity > a->peak)
    a->peak = equity;
  double dd = equity / a->peak - 1.0;
  if (dd < a->mdd)
    a->mdd = dd;
  a->bars += 1.0;
  a->exposure_bars += in_position ? 1.0 : 0.0;
  if (ev->closed) {
    a->trades += 1.0;
    if (ev->pnl > 0.0) {
      a->wins += 1.0;
      a->gross_win += ev->pnl;
    } else {
      a->gross_loss -= ev->pnl;
    }
  }
}

/* Degenerate cases are 0, not NaN (std or downside 0, no drawdown, no trades); a profit factor
 * with wins and no losses is +inf. */
FOX_HD static inline void metrics_finish(const struct metrics_acc *a, double bars_per_year,
                                         struct metrics *m) {
  double ann = sqrt(bars_per_year);
  double sd = a->nret > 1.0 ? sqrt(a->m2 / (a->nret - 1.0)) : 0.0;
  double down = a->nret > 0.0 ? sqrt(a->down2 / a->nret) : 0.0;
  m->total_return = a->elast / a->e0 - 1.0;
  m->sharpe = sd > 0.0 ? a->mean / sd * ann : 0.0;
  m->sortino = down > 0.0 ? a->mean / down * ann : 0.0;
  m->max_drawdown = a->mdd;
  m->annual_return = a->nret > 0.0 ? pow(1.0 + m->total_return, bars_per_year / a->nret) - 1.0
                                   : 0.0;
  m->calmar = a->mdd < 0.0 ? m->annual_return / -a->mdd : 0.0;
  m->trades = a->trades;
  m->win_rate = a->trades > 0.0 ? a->wins / a->trades : 0.0;
  m->profit_factor = a->gross_loss > 0.0 ? a->gross_win / a->gross_loss
                     : a->gross_win > 0.0 ? INFINITY
                                          : 0.0;
  m->exposure = a->exposure_bars / a->bars;
  m->final_equity = a->elast;
  m->bars = a->bars;
}

#endif
