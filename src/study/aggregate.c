/* Aggregates over repeats x folds. */
#include "study/aggregate.h"

#include <math.h>
#include <stdlib.h>

#include "config/config.h"

static int cmp_(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Moves the non-NaN values to the front; returns their count. */
static int compact_(double *v, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i]))
      v[k++] = v[i];
  return k;
}

static double mean_(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return s / n;
}

double aggregate_std(const double *v, int n) {
  int k = 0;
  double mean = 0, m2 = 0;
  for (int i = 0; i < n; i++) {
    if (isnan(v[i]))
      continue;
    k++;
    double d = v[i] - mean;
    mean += d / k;
    m2 += d * (v[i] - mean);
  }
  return k < 2 ? NAN : sqrt(m2 / (k - 1));
}

double aggregate(double *v, int n, int how, int maximize) {
  n = compact_(v, n);
  if (n == 0)
    return NAN;
  switch (how) {
  case FOX_AGG_MEDIAN:
    qsort(v, (size_t)n, sizeof *v, cmp_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  case FOX_AGG_IQM: {
    qsort(v, (size_t)n, sizeof *v, cmp_);
    int cut = n / 4;
    return mean_(v + cut, n - 2 * cut);
  }
  case FOX_AGG_LCB: {
    double m = mean_(v, n);
    if (n < 2)
      return m;
    double half = aggregate_std(v, n) / sqrt((double)n);
    return maximize ? m - half : m + half;
  }
  default:
    return mean_(v, n);
  }
}
