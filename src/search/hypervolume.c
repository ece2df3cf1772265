/* Hypervolume by slicing and Optuna 5.1's greedy HSSP (hssp.py), step for step: the same
 * lexsorted unique points, the same two-objective sweep of rectangle diagonals, the same lazy
 * update of upper bounds for three objectives and more. With two objectives ties fall as
 * Optuna's do; with three or four Optuna computes volumes by _compute_3d / WFG and this file by
 * slicing, so candidates whose contributions are exactly equal (integer-valued metrics) can
 * round apart and the greedy pick among them differ: an equally good subset, not Optuna's. */
#include "search/hypervolume.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp2_(const void *a, const void *b) {
  const double *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* p: n points strictly inside ref, m >= 1 columns; p is reordered. */
static double hv_inside_(double *p, int n, int m, const double *ref) {
  if (n == 0)
    return 0.0;
  if (m == 1) {
    double lo = p[0];
    for (int i = 1; i < n; i++)
      lo = fmin(lo, p[i]);
    return ref[0] - lo;
  }
  if (m == 2) {
    qsort(p, (size_t)n, 2 * sizeof *p, cmp2_);
    double hv = 0, y = ref[1];
    for (int i = 0; i < n; i++)
      if (p[2 * i + 1] < y) {
        hv += (ref[0] - p[2 * i]) * (y - p[2 * i + 1]);
        y = p[2 * i + 1];
      }
    return hv;
  }
  /* Rows by the last objective (insertion sort: a few dozen rows), then one slab per row:
   * the first i + 1 points, less their last objective, span the slab up to the next one. */
  double *row = malloc((size_t)m * sizeof *row);
  double *q = malloc((size_t)n * (m - 1) * sizeof *q);
  if (!row || !q) {
    free(row);
    free(q);
    return NAN;
  }
  for (int i = 1; i < n; i++) {
    memcpy(row, p + (size_t)i * m, (size_t)m * sizeof *row);
    int j = i;
    while (j > 0 && p[(size_t)(j - 1) * m + m - 1] > row[m - 1]) {
      memcpy(p + (size_t)j * m, p + (size_t)(j - 1) * m, (size_t)m * sizeof *row);
      j--;
    }
    memcpy(p + (size_t)j * m, row, (size_t)m * sizeof *row);
  }
  double hv = 0;
  for (int i = 0; i < n; i++) {
    double top = i + 1 < n ? p[(size_t)(i + 1) * m + m - 1] : ref[m - 1];
    double h = top - p[(size_t)i * m + m - 1];
    if (!(h > 0))
      continue;
    for (int r = 0; r <= i; r++)
      memcpy(q + (size_t)r * (m - 1), p + (size_t)r * m, (size_t)(m - 1) * sizeof *q);
    hv += hv_inside_(q, i + 1, m - 1, ref) * h;
  }
  free(row);
  free(q);
  return hv;
}

double hv_compute(const double *values, int n, int m, const double *ref) {
  double *p = malloc((size_t)(n ? n : 1) * m * sizeof *p);
  if (!p)
    return NAN;
  int k = 0;
  for (int i = 0; i < n; i++) {
    int in = 1;
    for (int j = 0; j < m; j++)
      in &= values[(size_t)i * m + j] < ref[j];
    if (in)
      memcpy(p + (size_t)k++ * m, values + (size_t)i * m, (size_t)m * sizeof *p);
  }
  double hv = hv_inside_(p, k, m, ref);
  free(p);
  return hv;
}

void hv_reference_point(const double *values, int n, int m, double *ref) {
  for (int j = 0; j < m; j++) {
    double w = -INFINITY;
    for (int i = 0; i < n; i++)
      w = fmax(w, values[(size_t)i * m + j]);
    ref[j] = fmax(1.1 * w, 0.9 * w);
    if (ref[j] == 0)
      ref[j] = 1e-12;
  }
}

/* The product of (ref - p) over the objectives, left to right as numpy's prod. */
static double box_(const double *ref, const double *p, int m) {
  double v = 1.0;
  for (int j = 0; j < m; j++)
    v *= ref[j] - p[j];
  return v;
}

struct lex_ {
  const double *row;
  int m, i;
};

static int lex_cmp_(const void *pa, const void *pb) {
  const struct lex_ *a = pa, *b = pb;
  for (int j = 0; j < a->m; j++)
    if (a->row[j] != b->row[j])
      return a->row[j] < b->row[j] ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static int same_row_(const double *a, const double *b, int m) {
  for (int j = 0; j < m; j++)
    if (a[j] != b[j])
      return 0;
  return 1;
}

/* _solve_hssp_2d over u[nu] (lexsorted, distinct): sel[k] are positions in u. */
static void hssp2_(const double *u, int nu, int k, const double *ref, int *pos, double *diag,
                   int *sel) {
  for (int i = 0; i < nu; i++) {
    pos[i] = i;
    diag[2 * i] = ref[0];
    diag[2 * i + 1] = ref[1];
  }
  int left = nu;
  for (int s = 0; s < k; s++) {
    int best = 0;
    double best_v = -INFINITY;
    for (int i = 0; i < left; i++) {
      const double *p = u + 2 * (size_t)pos[i];
      double c = (diag[2 * i] - p[0]) * (diag[2 * i + 1] - p[1]);
      if (i == 0 || c > best_v) {
        best_v = c;
        best = i;
      }
    }
    sel[s] = pos[best];
    double l0 = u[2 * (size_t)pos[best]], l1 = u[2 * (size_t)pos[best] + 1];
    for (int i = best; i + 1 < left; i++) {
      pos[i] = pos[i + 1];
      diag[2 * i] = diag[2 * i + 2];
      diag[2 * i + 1] = diag[2 * i + 3];
    }
    left--;
    for (int i = 0; i < best; i++)
      diag[2 * i] = fmin(l0, diag[2 * i]);
    for (int i = best; i < left; i++)
      diag[2 * i + 1] = fmin(l1, diag[2 * i + 1]);
  }
}

/* _solve_hssp_on_unique_loss_vals for m >= 3 with _lazy_contribs_update: contrib[] holds upper
 * bounds (submodularity) and only a candidate whose bound reaches the best exact contribution
 * found so far is computed again. */
static int hsspn_(const double *u, int nu, int m, int k, const double *ref, int *sel) {
  int *pos = malloc((size_t)nu * sizeof *pos), *ord = malloc((size_t)nu * sizeof *ord);
  double *contrib = malloc((size_t)nu * sizeof *contrib);
  double *svec = malloc((size_t)(k + 1) * m * sizeof *svec);
  double *inter = malloc((size_t)(k + 1) * m * sizeof *inter);
  int rc = -1;
  if (!pos || !ord || !contrib || !svec || !inter)
    goto done;
  for (int i = 0; i < nu; i++) {
    pos[i] = i;
    contrib[i] = box_(ref, u + (size_t)i * m, m);
  }
  int left = nu;
  double hv = 0;
  for (int s = 0; s < k; s++) {
    int best = 0;
    for (int i = 1; i < left; i++)
      if (contrib[i] > contrib[best])
        best = i;
    hv += contrib[best];
    sel[s] = pos[best];
    memcpy(svec + (size_t)s * m, u + (size_t)pos[best] * m, (size_t)m * sizeof *svec);
    for (int i = best; i + 1 < left; i++) {
      pos[i] = pos[i + 1];
      contrib[i] = contrib[i + 1];
    }
    left--;
    if (s == k - 1)
      break;
    if (isinf(hv)) {
      for (int i = 0; i < left; i++)
        contrib[i] = INFINITY;
      continue;
    }
    const double *last = svec + (size_t)s * m;
    for (int i = 0; i < left; i++) {
      const double *p = u + (size_t)pos[i] * m;
      double cap = 1.0;
      for (int j = 0; j < m; j++)
        cap *= ref[j] - fmax(p[j], last[j]);
      contrib[i] = fmin(contrib[i], box_(ref, p, m) - cap);
      ord[i] = i;
    }
    /* Largest bound first (stable: numpy's argsort order among equal bounds only decides
     * which of them is computed first, never the result). */
    for (int i = 1; i < left; i++) {
      int o = ord[i], j = i;
      while (j > 0 && contrib[ord[j - 1]] < contrib[o]) {
        ord[j] = ord[j - 1];
        j--;
      }
      ord[j] = o;
    }
    double max_c = 0.0;
    for (int t = 0; t < left; t++) {
      int i = ord[t];
      const double *p = u + (size_t)pos[i] * m;
      if (isinf(box_(ref, p, m))) {
        max_c = contrib[i] = INFINITY;
        continue;
      }
      if (contrib[i] < max_c)
        continue;
      if (m <= 3) { /* H(S + i) - H(S), H(S) as Optuna sums it */
        memcpy(svec + (size_t)(s + 1) * m, p, (size_t)m * sizeof *svec);
        contrib[i] = hv_compute(svec, s + 2, m, ref) - hv;
      } else { /* H({i}) - H(S ^ {i}) */
        for (int r = 0; r <= s; r++)
          for (int j = 0; j < m; j++)
            inter[(size_t)r * m + j] = fmax(p[j], svec[(size_t)r * m + j]);
        contrib[i] = box_(ref, p, m) - hv_compute(inter, s + 1, m, ref);
      }
      max_c = fmax(contrib[i], max_c);
    }
  }
  rc = 0;
done:
  free(pos);
  free(ord);
  free(contrib);
  free(svec);
  free(inter);
  return rc;
}

int hv_hssp(const double *values, int n, int m, int k, const double *ref, int *chosen) {
  if (k >= n) {
    for (int i = 0; i < n; i++)
      chosen[i] = i;
    return 0;
  }
  struct lex_ *lx = malloc((size_t)n * sizeof *lx);
  double *u = malloc((size_t)n * m * sizeof *u);
  int *first = malloc((size_t)n * sizeof *first), *sel = malloc((size_t)n * 2 * sizeof *sel);
  double *diag = malloc((size_t)n * 2 * sizeof *diag);
  int rc = -1;
  if (!lx || !u || !first || !sel || !diag)
    goto done;
  for (int i = 0; i < n; i++)
    lx[i] = (struct lex_){values + (size_t)i * m, m, i};
  qsort(lx, (size_t)n, sizeof *lx, lex_cmp_);
  int nu = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || !same_row_(lx[i].row, lx[i - 1].row, m)) {
      memcpy(u + (size_t)nu * m, lx[i].row, (size_t)m * sizeof *u);
      first[nu++] = lx[i].i; /* the earliest of equal rows: qsort ties go by index */
    }
  if (nu < k) { /* every distinct point, then the earliest duplicates */
    char *in = calloc((size_t)n, 1);
    if (!in)
      goto done;
    int c = 0;
    for (int i = 0; i < nu; i++)
      in[first[i]] = 1;
    for (int i = 0; i < n && c < k - nu; i++)
      if (!in[i]) {
        in[i] = 1;
        c++;
      }
    c = 0;
    for (int i = 0; i < n; i++)
      if (in[i])
        chosen[c++] = i;
    free(in);
    rc = 0;
    goto done;
  }
  int finite = 1;
  for (int j = 0; j < m; j++)
    finite &= isfinite(ref[j]) != 0;
  if (!finite || nu == k) {
    for (int s = 0; s < k; s++)
      chosen[s] = first[s];
    rc = 0;
    goto done;
  }
  if (m == 2)
    hssp2_(u, nu, k, ref, sel + n, diag, sel);
  else if (hsspn_(u, nu, m, k, ref, sel) != 0)
    goto done;
  for (int s = 0; s < k; s++)
    chosen[s] = first[sel[s]];
  rc = 0;
done:
  free(lx);
  free(u);
  free(first);
  free(sel);
  free(diag);
  return rc;
}
