/* The study's return matrix, read from its trial files. */
#include "report/returns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/selection.h"
#include "study/rankfile.h"
#include "util/fsutil.h"
#include "util/h5io.h"

long returns_from_equity(const double *eq, long n, const int32_t *folds, int nf, long begin,
                         double *out) {
  long k = 0;
  for (int j = 0; j < nf; j++)
    for (long i = folds[2 * j] - begin + 1; i < folds[2 * j + 1] - begin && i < n; i++)
      out[k++] = eq[i] / eq[i - 1] - 1;
  return k;
}

void returns_free_equity(struct equity_series *q) {
  free(q->eq);
  free(q->folds);
  memset(q, 0, sizeof *q);
}

int returns_read_equity(const char *path, struct equity_series *q, struct fox_err *e) {
  memset(q, 0, sizeof *q);
  q->epochs = -1;
  if (!fs_exists(path))
    return 0;
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a trial file from foxopt run", &f, e));
  int has = h5io_find(f, "backtest/equity", path, e);
  if (has <= 0) {
    H5Fclose(f);
    return has < 0 ? has : 0;
  }
  size_t n = 0, d1 = 0, nf = 1, two = 2;
  int rc = h5io_dims(f, "backtest/equity", &n, &d1, path, e);
  int folds_kept = rc == 0 ? h5io_find(f, "backtest/folds", path, e) : 0;
  if (folds_kept < 0)
    rc = folds_kept;
  if (rc == 0 && folds_kept)
    rc = h5io_dims(f, "backtest/folds", &nf, &two, path, e);
  if (rc == 0 && (d1 != 0 || n < 2 || two != 2 || nf < 1 || nf > n / 2))
    rc = fox_errf(e, FOX_EDATA, "%s: /backtest/equity [%zu] and /backtest/folds [%zu, %zu]: "
                                "expected >= 2 bars per fold", path, n, nf, two);
  double *eq = rc == 0 ? malloc(n * sizeof *eq) : NULL;
  int32_t *folds = rc == 0 ? malloc(2 * nf * sizeof *folds) : NULL;
  if (rc == 0 && (!eq || !folds))
    rc = fox_errf(e, FOX_EFAIL, "%s: out of memory for %zu bars", path, n);
  if (rc == 0)
    rc = h5io_read_finite(f, "backtest/equity", H5T_NATIVE_DOUBLE, eq, n, 0, 0, 0, path, e);
  if (rc == 0 && folds_kept)
    rc = h5io_read(f, "backtest/folds", H5T_NATIVE_INT32, folds, nf, 2, path, e);
  else if (rc == 0)
    folds[0] = 0, folds[1] = (int32_t)n; /* a file from before folds: one fold */
  if (rc == 0 && H5Aexists(f, "epochs") > 0)
    rc = h5io_attr_read(f, "epochs", H5T_NATIVE_INT, &q->epochs, 1, path, e);
  H5Fclose(f);
  long begin = rc == 0 ? folds[0] : 0;
  for (size_t j = 0; rc == 0 && j < nf; j++)
    if (folds[2 * j + 1] - folds[2 * j] < 2 ||
        folds[2 * j + 1] > begin + (long)n || (j > 0 && folds[2 * j] != folds[2 * j - 1]) ||
        (j == nf - 1 && folds[2 * j + 1] != begin + (long)n))
      rc = fox_errf(e, FOX_EDATA, "%s: /backtest/folds[%zu] = [%d, %d): not consecutive folds "
                                  "of >= 2 bars covering the %zu bars of /backtest/equity", path,
                    j, folds[2 * j], folds[2 * j + 1], n);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (!(eq[i] > 0))
      rc = fox_errf(e, FOX_EDATA, "%s: /backtest/equity[%zu] = %g, expected > 0", path, i,
                    eq[i]);
  if (rc != 0) {
    free(eq);
    free(folds);
    q->epochs = -1;
    return rc;
  }
  q->n = (long)n;
  q->eq = eq;
  q->nf = (int)nf;
  q->folds = folds;
  return 0;
}

/* One repeat's returns from its trial file: 0 and *t = -1 when it holds no evaluation. */
static int read_one_(const char *path, double **ret, long *t, struct fox_err *e) {
  *t = -1;
  *ret = NULL;
  struct equity_series q;
  FOX_TRY(returns_read_equity(path, &q, e));
  if (q.n == 0)
    return 0;
  int rc = 0;
  if (!(*ret = malloc((size_t)q.n * sizeof **ret)))
    rc = fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  else
    *t = returns_from_equity(q.eq, q.n, q.folds, q.nf, q.folds[0], *ret);
  returns_free_equity(&q);
  return rc;
}

int returns_load(const struct study *s, const char *outdir, struct return_matrix *m,
                 struct fox_err *e) {
  memset(m, 0, sizeof *m);
  m->t = -1;
  size_t cap = (size_t)(s->n ? s->n : 1);
  m->trial = malloc(cap * sizeof *m->trial);
  m->status = malloc(cap * sizeof *m->status);
  m->sr = malloc(cap * sizeof *m->sr);
  m->ctrial = malloc(cap * sizeof *m->ctrial);
  double **cols = calloc(cap, sizeof *cols);
  int rc = m->trial && m->status && m->sr && m->ctrial && cols
               ? 0
               : fox_errf(e, FOX_EFAIL, "out of memory");
  char first[4200] = "";
  for (int i = 0; rc == 0 && i < s->n; i++) {
    const struct study_trial *tr = &s->trials[i];
    double *sum = NULL;
    int have = 1;
    for (int r = 0; r < s->repeats; r++)
      have = have && tr->rep[r].epochs > 0;
    if (!have)
      continue;
    m->n_counted++;
    m->counted[tr->status]++;
    for (int r = 0; rc == 0 && have && r < s->repeats; r++) {
      char path[4200];
      rankfile_trial_path(outdir, i, r, path, sizeof path);
      double *ret;
      long t;
      rc = read_one_(path, &ret, &t, e);
      if (rc != 0 || t < 0) {
        have = 0;
        break;
      }
      if (m->t < 0) {
        m->t = t;
        snprintf(first, sizeof first, "%s", path);
      }
      if (t != m->t) {
        free(ret);
        rc = fox_errf(e, FOX_EDATA, "%s: %ld returns on the evaluation split, %s has %ld: not "
                                    "the same bars", path, t, first, m->t);
        break;
      }
      if (!sum) {
        sum = ret;
      } else {
        for (long k = 0; k < t; k++)
          sum[k] += ret[k];
        free(ret);
      }
    }
    struct sr_moments mo = {0, 0, NAN, NAN};
    if (rc == 0 && have) {
      for (long k = 0; k < m->t; k++)
        sum[k] /= s->repeats;
      rc = m->t >= 1 ? selection_moments(sum, m->t, &mo, e) : 0;
    }
    if (rc == 0 && have) {
      m->trial[m->n] = i;
      m->status[m->n] = tr->status;
      m->sr[m->n] = mo.sr;
      m->n++;
      if (tr->status == FOX_ST_COMPLETE) {
        m->ctrial[m->nc] = i;
        cols[m->nc++] = sum;
        sum = NULL;
      }
    }
    free(sum);
  }
  if (rc == 0 && m->nc > 0) {
    m->r = malloc((size_t)m->t * (size_t)m->nc * sizeof *m->r);
    if (!m->r)
      rc = fox_errf(e, FOX_EFAIL, "out of memory for %ld x %d returns", m->t, m->nc);
    for (int j = 0; rc == 0 && j < m->nc; j++)
      for (long k = 0; k < m->t; k++)
        m->r[(size_t)k * (size_t)m->nc + (size_t)j] = cols[j][k];
  }
  for (size_t j = 0; cols && j < cap; j++)
    free(cols[j]);
  free(cols);
  if (m->t < 0)
    m->t = 0;
  if (rc != 0)
    returns_free(m);
  return rc;
}

void returns_free(struct return_matrix *m) {
  free(m->trial);
  free(m->status);
  free(m->sr);
  free(m->ctrial);
  free(m->r);
  memset(m, 0, sizeof *m);
}
