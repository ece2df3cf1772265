/* Non-dominated sorting, crowding distance and the two-objective hypervolume. The sort is
 * Zhang et al.'s ENS-BS (points in lexicographic order, each put in the first front that does
 * not dominate it, found by binary search): O(n log n) with two objectives, where only the last
 * point of a front can dominate the next one, so a 16K-trial study ranks in milliseconds (the
 * plain O(fronts n^2) sort took minutes). test_pareto checks it against that plain sort and a
 * brute-force definition. */
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

static const double *lex_val_;
static int lex_m_;
static int lex_cmp_(const void *a, const void *b) {
  int i = *(const int *)a, j = *(const int *)b;
  const double *x = lex_val_ + (size_t)i * lex_m_, *y = lex_val_ + (size_t)j * lex_m_;
  for (int q = 0; q < lex_m_; q++)
    if (x[q] != y[q])
      return x[q] < y[q] ? -1 : 1;
  return (i > j) - (i < j);
}

/* ENS-BS over the NaN-free points idx[0 .. k) (idx is reordered). A dominator comes first in
 * lexicographic order, so a point's dominators are all placed when it is, and its front is
 * the first whose points do not dominate it: front f dominates it for every f below its rank
 * (a dominator of rank r has one of rank r - 1 above it) and none at or after it. Returns the
 * number of fronts. `fill` and `head` are k ints of room each. */
static int sort_fronts_ens_(const double *values, int *idx, int k, int m, int *rank, int *fill,
                            int *head) {
  lex_val_ = values;
  lex_m_ = m;
  qsort(idx, (size_t)k, sizeof *idx, lex_cmp_);
  /* front f's points, in the order placed: a singly linked list from head[f] through fill[]
   * (newest first), so that the last point placed is checked first */
  int fronts = 0;
  for (int a = 0; a < k; a++) {
    int p = idx[a];
    const double *v = values + (size_t)p * m;
    int lo = 0, hi = fronts; /* the answer is in [lo, hi] */
    while (lo < hi) {
      int f = lo + (hi - lo) / 2, dom = 0;
      /* with one or two objectives a front's points fall in the second objective as they are placed:
       * if any dominates p, so does the last (or it equals p, and then none does) */
      for (int q = head[f]; q >= 0 && !dom; q = m <= 2 ? -1 : fill[q])
        dom = pareto_dominates(values + (size_t)q * m, v, m);
      if (dom)
        lo = f + 1;
      else
        hi = f;
    }
    if (lo == fronts)
      head[fronts++] = -1;
    fill[p] = head[lo];
    head[lo] = p;
    rank[p] = lo;
  }
  return fronts;
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
  int *fill = idx + n, *head = idx + 2 * n, k = 0;
  for (int i = 0; i < n; i++)
    if (!violation || !(violation[i] > 0))
      idx[k++] = i;
  int fronts = sort_fronts_ens_(values, idx, k, m, rank, fill, head);
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
