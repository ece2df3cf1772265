/* Non-dominated sorting, crowding distance and the two-objective hypervolume. The sort is the
 * plain O(n^2 m) one: a study has thousands of trials at most, and it is checked against a
 * brute-force definition in test_pareto. */
#include "search/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pareto_dominates(const double *a, const double *b, int m) {
  int better = 0;
  for (int j = 0; j < m; j++) {
    if (a[j] > b[j])
      return 0;
    better |= a[j] < b[j];
  }
  return better;
}

int pareto_constrained_dominates(const double *a, double va, const double *b, double vb, int m) {
  int fa = !(va > 0), fb = !(vb > 0);
  if (fa && fb)
    return pareto_dominates(a, b, m);
  if (fa != fb)
    return fa;
  return va < vb;
}

/* Plain non-dominated sort of the points idx[0 .. k): rank[idx[i]] = base + front. */
static int sort_fronts_(const double *values, const int *idx, int k, int m, int base, int *rank,
                        int *count, int *todo) {
  int left = k, front = 0;
  for (int i = 0; i < k; i++)
    todo[i] = 1;
  while (left > 0) {
    for (int i = 0; i < k; i++) {
      count[i] = 0;
      if (!todo[i])
        continue;
      for (int j = 0; j < k && !count[i]; j++)
        count[i] = todo[j] && pareto_dominates(values + (size_t)idx[j] * m,
                                               values + (size_t)idx[i] * m, m);
    }
    for (int i = 0; i < k; i++)
      if (todo[i] && !count[i]) {
        rank[idx[i]] = base + front;
        todo[i] = 0;
        left--;
      }
    front++;
  }
  return front;
}

static const double *viol_key_;
static int viol_cmp_(const void *a, const void *b) {
  double x = viol_key_[*(const int *)a], y = viol_key_[*(const int *)b];
  if (x != y)
    return x < y ? -1 : 1;
  return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int pareto_rank(const double *values, const double *violation, int n, int m, int *rank) {
  int *idx = malloc((size_t)(n ? n : 1) * 3 * sizeof *idx);
  if (!idx)
    return -1;
  int *count = idx + n, *todo = idx + 2 * n, k = 0;
  for (int i = 0; i < n; i++)
    if (!violation || !(violation[i] > 0))
      idx[k++] = i;
  int fronts = sort_fronts_(values, idx, k, m, 0, rank, count, todo);
  int ni = 0;
  for (int i = 0; violation && i < n; i++)
    if (violation[i] > 0)
      idx[ni++] = i;
  viol_key_ = violation;
  qsort(idx, (size_t)ni, sizeof *idx, viol_cmp_);
  for (int i = 0, r = fronts - 1; i < ni; i++) {
    if (i == 0 || violation[idx[i]] != violation[idx[i - 1]])
      r++;
    rank[idx[i]] = r;
  }
  free(idx);
  return 0;
}

/* Optuna sorts the list in place by each objective in turn (stably), so ties meet their
 * neighbours in the order the previous objectives left; ord[] follows that order and ends in
 * the last objective's, which then breaks ties of distance. */
static void crowding_(const double *values, const int *idx, int k, int m, double *dist,
                      int *ord) {
  for (int i = 0; i < k; i++) {
    dist[i] = 0;
    ord[i] = i;
  }
  for (int j = 0; j < m && k > 0; j++) {
    for (int i = 1; i < k; i++) {
      int p = i, o = ord[i];
      double v = values[(size_t)idx[o] * m + j];
      while (p > 0 && values[(size_t)idx[ord[p - 1]] * m + j] > v) {
        ord[p] = ord[p - 1];
        p--;
      }
      ord[p] = o;
    }
#define V_(i) values[(size_t)idx[ord[i]] * m + j]
    if (V_(0) == V_(k - 1))
      continue;
    double vmin = NAN, vmax = NAN;
    for (int i = 0; i < k && isnan(vmin); i++)
      if (V_(i) != -INFINITY)
        vmin = V_(i);
    for (int i = k - 1; i >= 0 && isnan(vmax); i--)
      if (V_(i) != INFINITY)
        vmax = V_(i);
    double width = vmax - vmin;
    if (!(width > 0))
      width = 1.0;
    for (int i = 0; i < k; i++) {
      double below = i > 0 ? V_(i - 1) : -INFINITY, above = i + 1 < k ? V_(i + 1) : INFINITY;
      dist[ord[i]] += below == above ? 0.0 : (above - below) / width;
    }
#undef V_
  }
}

void pareto_crowding(const double *values, const int *idx, int k, int m, double *dist) {
  int *ord = malloc((size_t)(k ? k : 1) * sizeof *ord);
  if (!ord) {
    for (int i = 0; i < k; i++)
      dist[i] = NAN;
    return;
  }
  crowding_(values, idx, k, m, dist, ord);
  free(ord);
}

int pareto_crowding_sort(const double *values, int *idx, int k, int m) {
  double *dist = malloc((size_t)(k ? k : 1) * sizeof *dist);
  int *ord = malloc((size_t)(k ? k : 1) * sizeof *ord), *tmp = malloc((size_t)(k ? k : 1) * sizeof *tmp);
  if (!dist || !ord || !tmp) {
    free(dist), free(ord), free(tmp);
    return -1;
  }
  crowding_(values, idx, k, m, dist, ord);
  for (int i = 1; i < k; i++) { /* stable by distance, ascending */
    int p = i, o = ord[i];
    while (p > 0 && dist[ord[p - 1]] > dist[o]) {
      ord[p] = ord[p - 1];
      p--;
    }
    ord[p] = o;
  }
  for (int i = 0; i < k; i++) /* reversed */
    tmp[i] = idx[ord[k - 1 - i]];
  memcpy(idx, tmp, (size_t)k * sizeof *idx);
  free(dist), free(ord), free(tmp);
  return 0;
}

static int cmp2_(const void *a, const void *b) {
  const double *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

double pareto_hypervolume2(const double *values, int n, const double *ref) {
  double *p = malloc((size_t)(n ? n : 1) * 2 * sizeof *p);
  if (!p)
    return NAN;
  int k = 0;
  for (int i = 0; i < n; i++)
    if (values[2 * i] < ref[0] && values[2 * i + 1] < ref[1]) {
      p[2 * k] = values[2 * i];
      p[2 * k + 1] = values[2 * i + 1];
      k++;
    }
  qsort(p, (size_t)k, 2 * sizeof *p, cmp2_);
  double hv = 0, y = ref[1];
  for (int i = 0; i < k; i++)
    if (p[2 * i + 1] < y) {
      hv += (ref[0] - p[2 * i]) * (y - p[2 * i + 1]);
      y = p[2 * i + 1];
    }
  free(p);
  return hv;
}
