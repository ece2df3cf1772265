/* Metric names, access by index and fold means (backtest.c writes them as JSON). */
#ifndef FOX_METRICS_H
#define FOX_METRICS_H

#include <stdio.h>

#include "metrics_step.h"

extern const char *const metrics_names[FOX_NMETRICS];

double metrics_get(const struct metrics *m, int i);
void metrics_set(struct metrics *m, int i, double x);
/* The index of a metric name ("sharpe"), -1 when unknown. */
int metrics_find(const char *name);
void metrics_mean(const struct metrics *folds, int k, struct metrics *out);

#endif
