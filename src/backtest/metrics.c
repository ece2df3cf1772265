/* Metrics as a table of named doubles: the struct's field order is metrics_names' order. */
#include "backtest/metrics.h"

#include <string.h>

const char *const metrics_names[FOX_NMETRICS] = {
    "total_return", "sharpe", "sortino",       "max_drawdown", "annual_return", "calmar",
    "trades",       "win_rate", "profit_factor", "exposure",     "final_equity",  "bars"};

double metrics_get(const struct metrics *m, int i) {
  const double v[FOX_NMETRICS] = {m->total_return,  m->sharpe,  m->sortino,       m->max_drawdown,
                                  m->annual_return, m->calmar,  m->trades,        m->win_rate,
                                  m->profit_factor, m->exposure, m->final_equity, m->bars};
  return v[i];
}

void metrics_set(struct metrics *m, int i, double x) {
  double *f[FOX_NMETRICS] = {&m->total_return,  &m->sharpe,  &m->sortino,      &m->max_drawdown,
                             &m->annual_return, &m->calmar,  &m->trades,       &m->win_rate,
                             &m->profit_factor, &m->exposure, &m->final_equity, &m->bars};
  *f[i] = x;
}

int metrics_find(const char *name) {
  for (int i = 0; i < FOX_NMETRICS; i++)
    if (strcmp(metrics_names[i], name) == 0)
      return i;
  return -1;
}

void metrics_mean(const struct metrics *folds, int k, struct metrics *out) {
  for (int i = 0; i < FOX_NMETRICS; i++) {
    double s = 0;
    for (int j = 0; j < k; j++)
      s += metrics_get(&folds[j], i);
    metrics_set(out, i, s / k);
  }
}
