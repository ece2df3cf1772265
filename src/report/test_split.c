/* The test split: each chosen configuration's policies replayed there, and the record of it. */
#include "report/test_split.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backtest/backtest.h"
#include "report/returns.h"
#include "study/aggregate.h"
#include "study/rankfile.h"
#include "train/agent.h"
#include "util/fsutil.h"
#include "util/h5io.h"
#include "train/trial.h"

static void test_path_(const char *outdir, char *out, size_t n) {
  snprintf(out, n, "%s/test.h5", outdir);
}

void test_record_free(struct test_record *r) {
  free(r->seen);
  free(r->sr);
  free(r->last_rows);
  memset(r, 0, sizeof *r);
}

/* The last look's rows (write_body_'s last_*). */
static int read_last_(hid_t f, const char *path, struct test_record *r, struct fox_err *e) {
  size_t k = 0, d1 = 0;
  FOX_TRY(h5io_dims(f, "last_trials", &k, &d1, path, e));
  if (d1 != 0 || k > (size_t)r->n_seen)
    return fox_errf(e, FOX_EDATA, "%s: /last_trials of %zu: more than the %d configurations "
                                  "looked at", path, k, r->n_seen);
  r->last_rows = calloc(k ? k : 1, sizeof *r->last_rows);
  int *ids = malloc((k ? k : 1) * sizeof *ids);
  double *d = malloc((k ? k : 1) * FOX_NMETRICS * sizeof *d);
  int rc = r->last_rows && ids && d ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  if (rc == 0)
    rc = h5io_read(f, "last_trials", H5T_NATIVE_INT, ids, k, 0, path, e);
  for (size_t i = 0; rc == 0 && i < k; i++)
    r->last_rows[i].trial = ids[i];
  for (int which = 0; rc == 0 && which < 2; which++) {
    rc = h5io_read(f, which ? "last_spread" : "last_metrics", H5T_NATIVE_DOUBLE, d, k,
                   FOX_NMETRICS, path, e);
    for (size_t i = 0; rc == 0 && i < k; i++)
      memcpy(which ? r->last_rows[i].spread : r->last_rows[i].metrics, d + i * FOX_NMETRICS,
             FOX_NMETRICS * sizeof *d);
  }
  for (int which = 0; rc == 0 && which < 2; which++) {
    rc = h5io_read(f, which ? "last_dsr" : "last_psr", H5T_NATIVE_DOUBLE, d, k, 0, path, e);
    for (size_t i = 0; rc == 0 && i < k; i++)
      *(which ? &r->last_rows[i].dsr : &r->last_rows[i].psr) = d[i];
  }
  free(ids);
  free(d);
  if (rc == 0)
    r->n_last = (int)k;
  return rc;
}

int test_record_read(const char *outdir, int n_trials, struct test_record *r,
                     struct fox_err *e) {
  memset(r, 0, sizeof *r);
  char path[4200];
  test_path_(outdir, path, sizeof path);
  if (!fs_exists(path))
    return 0;
  hid_t f;
  FOX_TRY(h5io_open_read(path, "test.h5 from foxopt report --test", &f, e));
  int rc = h5io_attr_read(f, "looks", H5T_NATIVE_INT, &r->looks, 1, path, e);
  if (rc == 0)
    rc = h5io_attr_read_str(f, "first_look", r->first, sizeof r->first, path, e);
  if (rc == 0)
    rc = h5io_attr_read_str(f, "last_look", r->last, sizeof r->last, path, e);
  size_t n = 0, d1 = 0;
  if (rc == 0)
    rc = h5io_dims(f, "seen_trials", &n, &d1, path, e);
  if (rc == 0 && (r->looks < 1 || d1 != 0 || n > 100000000))
    rc = fox_errf(e, FOX_EDATA, "%s: %d looks and /seen_trials of %zu: not a record of looks",
                  path, r->looks, n);
  if (rc == 0) {
    r->seen = malloc((n ? n : 1) * sizeof *r->seen);
    r->sr = malloc((n ? n : 1) * sizeof *r->sr);
    rc = r->seen && r->sr ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  }
  if (rc == 0)
    rc = h5io_read(f, "seen_trials", H5T_NATIVE_INT, r->seen, n, 0, path, e);
  if (rc == 0)
    rc = h5io_read(f, "seen_sharpe", H5T_NATIVE_DOUBLE, r->sr, n, 0, path, e);
  r->n_seen = (int)n;
  if (rc == 0)
    rc = read_last_(f, path, r, e);
  H5Fclose(f);
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (r->seen[i] < 0 || r->seen[i] >= n_trials)
      rc = fox_errf(e, FOX_EDATA, "%s: /seen_trials[%zu] = %d, expected a trial id below %d",
                    path, i, r->seen[i], n_trials);
    else if (!isfinite(r->sr[i]))
      rc = fox_errf(e, FOX_EDATA, "%s: /seen_sharpe[%zu] = %g, expected a finite number", path,
                    i, r->sr[i]);
  if (rc != 0)
    test_record_free(r);
  return rc;
}

/* The dataset uploaded once per backend the policies run on. */
struct uploads_ {
  int n;
  const struct backend *be[4];
  struct device_dataset dev[4];
};

static int upload_(struct uploads_ *u, const struct backend *be, struct dataset *ds,
                   struct device_dataset **dev, struct fox_err *e) {
  for (int i = 0; i < u->n; i++)
    if (u->be[i] == be) {
      *dev = &u->dev[i];
      return 0;
    }
  if (u->n == 4)
    return fox_errf(e, FOX_EFAIL, "more than 4 backends");
  memset(&u->dev[u->n], 0, sizeof u->dev[u->n]);
  FOX_TRY(be->dataset_upload(ds, &u->dev[u->n], e));
  u->be[u->n] = be;
  *dev = &u->dev[u->n++];
  return 0;
}

/* One configuration on the test split: every repeat's policy, the study's folds. */
static int run_one_(const struct study *s, const char *outdir, int id, const char *backend,
                    struct dataset *ds, struct uploads_ *up, struct test_row *row, double *ret,
                    double *cells, struct fox_err *e) {
  memset(row, 0, sizeof *row);
  row->trial = id;
  size_t n = (size_t)(ds->split[FOX_SPLIT_TEST][1] - ds->split[FOX_SPLIT_TEST][0]);
  double *one = malloc(n * sizeof *one);
  mallocCheck(one, e);
  int rc = 0;
  row->t = -1;
  for (int r = 0; rc == 0 && r < s->repeats; r++) {
    char trained[16] = "auto";
    const struct backend *be = NULL;
    rc = backend ? 0
                 : rankfile_read_policy(outdir, id, r, NULL, NULL, NULL, trained, sizeof trained,
                                        e);
    if (rc == 0)
      rc = backend_select(backend ? backend : trained, &be, e);
    struct config cfg;
    struct agent ag;
    if (rc == 0)
      rc = rankfile_read_policy(outdir, id, r, be, &cfg, &ag, trained, sizeof trained, e);
    if (rc != 0)
      break;
    struct device_dataset *dev = NULL;
    struct backtest_run run = {0};
    rc = upload_(up, be, ds, &dev, e);
    if (rc == 0)
      rc = agent_backtest(&ag, be, ds, dev, &cfg, FOX_SPLIT_TEST, s->folds, &run, e);
    agent_free(&ag);
    if (rc != 0)
      break;
    for (int f = 0; f < s->folds; f++)
      for (int m = 0; m < FOX_NMETRICS; m++)
        cells[((size_t)r * (size_t)s->folds + (size_t)f) * FOX_NMETRICS + (size_t)m] =
            metrics_get(&run.fold_metrics[f], m);
    long t = returns_from_equity(run.equity, (long)n, run.folds, run.nfolds, (long)run.begin, one);
    backtest_free(&run);
    for (long k = 0; k < t; k++)
      ret[k] = r ? ret[k] + one[k] : one[k];
    row->t = t;
  }
  free(one);
  FOX_TRY(rc);
  for (long k = 0; k < row->t; k++)
    ret[k] /= s->repeats;
  /* The aggregate as the study's: lcb on the objective's metric, the mean elsewhere. */
  int nc = s->repeats * s->folds;
  double v[FOX_REPEATS_MAX * FOX_FOLDS_MAX];
  for (int m = 0; m < FOX_NMETRICS; m++) {
    for (int c = 0; c < nc; c++)
      v[c] = cells[(size_t)c * FOX_NMETRICS + (size_t)m];
    row->spread[m] = aggregate_std(v, nc);
    row->metrics[m] = study_aggregate_metric(s, m, v, nc);
  }
  return selection_moments(ret, row->t, &row->m, e);
}

struct write_ctx_ {
  const struct study *s;
  const struct test_record *rec;
  const struct test_row *rows;
  int k;
};

static int write_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct write_ctx_ *c = ctx;
  const struct test_record *r = c->rec;
  FOX_TRY(h5io_attr_write_str(f, "kind", "test looks", e));
  FOX_TRY(h5io_attr_write(f, "looks", H5T_NATIVE_INT, &r->looks, 1, e));
  FOX_TRY(h5io_attr_write_str(f, "first_look", r->first, e));
  FOX_TRY(h5io_attr_write_str(f, "last_look", r->last, e));
  FOX_TRY(h5io_write(f, "seen_trials", H5T_NATIVE_INT, r->seen, (size_t)r->n_seen, 0, 0, e));
  FOX_TRY(h5io_write(f, "seen_sharpe", H5T_NATIVE_DOUBLE, r->sr, (size_t)r->n_seen, 0, 0, e));
  /* The last look's rows, as the report printed them. */
  size_t k = (size_t)c->k;
  double *d = malloc((k ? k : 1) * FOX_NMETRICS * sizeof *d);
  int *ids = malloc((k ? k : 1) * sizeof *ids);
  int rc = d && ids ? 0 : fox_errf(e, FOX_EFAIL, "test.h5: out of memory");
  for (size_t i = 0; rc == 0 && i < k; i++)
    ids[i] = c->rows[i].trial;
  if (rc == 0)
    rc = h5io_write(f, "last_trials", H5T_NATIVE_INT, ids, k, 0, 0, e);
  for (int which = 0; rc == 0 && which < 2; which++) {
    for (size_t i = 0; i < k; i++)
      memcpy(d + i * FOX_NMETRICS, which ? c->rows[i].spread : c->rows[i].metrics,
             FOX_NMETRICS * sizeof *d);
    rc = h5io_write(f, which ? "last_spread" : "last_metrics", H5T_NATIVE_DOUBLE, d, k,
                    FOX_NMETRICS, 0, e);
  }
  for (int which = 0; rc == 0 && which < 2; which++) {
    for (size_t i = 0; i < k; i++)
      d[i] = which ? c->rows[i].dsr : c->rows[i].psr;
    rc = h5io_write(f, which ? "last_dsr" : "last_psr", H5T_NATIVE_DOUBLE, d, k, 0, 0, e);
  }
  if (rc == 0) {
    const char *names[FOX_NMETRICS];
    for (int m = 0; m < FOX_NMETRICS; m++)
      names[m] = metrics_names[m];
    hid_t ds = H5Dopen2(f, "last_metrics", H5P_DEFAULT);
    rc = ds < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/last_metrics")
                : h5io_attr_write_strs(ds, "names", names, FOX_NMETRICS, e);
    if (ds >= 0)
      H5Dclose(ds);
  }
  free(d), free(ids);
  return rc;
}

int test_split_run(const struct study *s, const char *outdir, const int *ids, int k,
                   const char *backend, struct test_row *rows, struct test_record *rec,
                   struct fox_err *e) {
  struct dataset ds;
  FOX_TRY(dataset_read_h5(&ds, s->cfg.data_path, e));
  size_t n = (size_t)(ds.split[FOX_SPLIT_TEST][1] - ds.split[FOX_SPLIT_TEST][0]);
  struct config sel = s->cfg;
  char where[1100];
  snprintf(where, sizeof where, "data.features in %s", s->cfg.data_path);
  int rc = trial_select_features(&sel, &ds, where, e);
  if (rc == 0 && n < 2 * (size_t)s->folds)
    rc = fox_errf(e, FOX_EDATA, "%s: the test split has %zu bars: %d fold%s of >= 2 bars cannot "
                                "be cut from it", s->cfg.data_path, n, s->folds,
                  s->folds > 1 ? "s" : "");
  double *ret = rc == 0 ? malloc(n * sizeof *ret) : NULL;
  double *cells = rc == 0 ? malloc((size_t)s->repeats * (size_t)s->folds * FOX_NMETRICS *
                                   sizeof *cells)
                          : NULL;
  if (rc == 0 && (!ret || !cells))
    rc = fox_errf(e, FOX_EFAIL, "out of memory for the test split");
  struct uploads_ up = {0};
  for (int i = 0; rc == 0 && i < k; i++)
    rc = run_one_(s, outdir, ids[i], backend, &ds, &up, &rows[i], ret, cells, e);
  for (int i = 0; i < up.n; i++)
    up.be[i]->dataset_release(&up.dev[i]);
  free(ret);
  free(cells);
  dataset_free(&ds);
  FOX_TRY(rc);
  /* The population: every configuration ever looked at on test, this look's latest. */
  int *seen = malloc((size_t)(rec->n_seen + k) * sizeof *seen);
  double *sr = malloc((size_t)(rec->n_seen + k) * sizeof *sr);
  if (!seen || !sr) {
    free(seen), free(sr);
    return fox_errf(e, FOX_EFAIL, "out of memory");
  }
  int ns = rec->n_seen;
  if (ns > 0) { /* the first look has no record: memcpy from NULL is undefined even for 0 */
    memcpy(seen, rec->seen, (size_t)ns * sizeof *seen);
    memcpy(sr, rec->sr, (size_t)ns * sizeof *sr);
  }
  for (int i = 0; i < k; i++) {
    int at = -1;
    for (int j = 0; j < ns; j++)
      if (seen[j] == rows[i].trial)
        at = j;
    if (at < 0)
      at = ns++;
    seen[at] = rows[i].trial;
    sr[at] = rows[i].m.sr;
  }
  free(rec->seen), free(rec->sr);
  rec->seen = seen, rec->sr = sr, rec->n_seen = ns;
  double var = selection_sr_variance(sr, ns);
  for (int i = 0; i < k; i++) {
    rows[i].psr = selection_psr(&rows[i].m, 0);
    rows[i].dsr = selection_dsr(&rows[i].m, var, ns);
  }
  time_t now = time(NULL);
  struct tm tm;
  char when[32] = "unknown";
  if (now != (time_t)-1 && gmtime_r(&now, &tm))
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  rec->looks++;
  if (rec->looks == 1)
    snprintf(rec->first, sizeof rec->first, "%s", when);
  snprintf(rec->last, sizeof rec->last, "%s", when);
  char path[4200];
  test_path_(outdir, path, sizeof path);
  struct write_ctx_ c = {s, rec, rows, k};
  FOX_TRY(h5io_create_own(path, write_body_, &c, e));
  struct test_row *last = malloc((size_t)(k ? k : 1) * sizeof *last);
  mallocCheck(last, e);
  memcpy(last, rows, (size_t)k * sizeof *last);
  free(rec->last_rows);
  rec->last_rows = last;
  rec->n_last = k;
  return 0;
}
