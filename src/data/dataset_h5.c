/* dataset.h5 (DESIGN.md s4): /bars, /features (+names), /prices, /norm and the root attributes.
 * Written to a temporary sibling and renamed, so a failed import never leaves half a file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "util/fsutil.h"
#include "util/h5io.h"

/* /bars compress well (shuffled ticks and integer times); the f32 features and prices are noisy
 * mantissas that deflate shrinks by a third at ten times the write time, so they stay raw and
 * load at disk speed. */
#define DS_DEFLATE_BARS 1
#define DS_DEFLATE_FLOATS 0

static const char *const bar_cols_[6] = {"timestamp", "open", "high", "low", "close", "volume"};
static const char *const split_attr_[3] = {"split_train", "split_val", "split_test"};

static int write_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct dataset *ds = ctx;
  size_t n = ds->n;
  hid_t g = H5Gcreate2(f, "bars", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/bars");
  const double *cols[5] = {ds->bars.open, ds->bars.high, ds->bars.low, ds->bars.close,
                           ds->bars.volume};
  int rc = h5io_write(g, bar_cols_[0], H5T_NATIVE_INT64, ds->bars.ts, n, 0, DS_DEFLATE_BARS, e);
  for (int i = 0; rc == 0 && i < 5; i++)
    rc = h5io_write(g, bar_cols_[i + 1], H5T_NATIVE_DOUBLE, cols[i], n, 0, DS_DEFLATE_BARS, e);
  H5Gclose(g);
  FOX_TRY(rc);

  size_t w = (size_t)ds->ncol;
  FOX_TRY(h5io_write(f, "features", H5T_NATIVE_FLOAT, ds->features, n, w, DS_DEFLATE_FLOATS, e));
  const char **names = malloc(w * sizeof *names);
  mallocCheck(names, e);
  for (size_t c = 0; c < w; c++)
    names[c] = ds->names[c];
  hid_t d = H5Dopen2(f, "features", H5P_DEFAULT);
  rc = d < 0 ? h5io_fail(e, FOX_EFAIL, __FILE__, __LINE__, "/features")
             : h5io_attr_write_strs(d, "names", names, w, e);
  if (d >= 0)
    H5Dclose(d);
  free(names);
  FOX_TRY(rc);
  /* The names again as a dataset: the attribute for h5py readers, this for ours (any width). */
  FOX_TRY(h5io_write_strs(f, "feature_names", ds->names[0], w, FOX_FEAT_NAME, e));
  FOX_TRY(h5io_write(f, "prices", H5T_NATIVE_FLOAT, ds->prices, n, 4, DS_DEFLATE_FLOATS, e));

  g = H5Gcreate2(f, "norm", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/norm");
  rc = h5io_write(g, "mean", H5T_NATIVE_FLOAT, ds->norm_mean, w, 0, 0, e);
  if (rc == 0)
    rc = h5io_write(g, "std", H5T_NATIVE_FLOAT, ds->norm_std, w, 0, 0, e);
  H5Gclose(g);
  FOX_TRY(rc);

  FOX_TRY(h5io_attr_write(f, "bar_seconds", H5T_NATIVE_INT64, &ds->bar_seconds, 1, e));
  FOX_TRY(h5io_attr_write(f, "bars_per_year", H5T_NATIVE_DOUBLE, &ds->bars_per_year, 1, e));
  for (int s = 0; s < 3; s++)
    FOX_TRY(h5io_attr_write(f, split_attr_[s], H5T_NATIVE_INT64, ds->split[s], 2, e));
  FOX_TRY(h5io_attr_write(f, "warmup", H5T_NATIVE_INT64, &ds->warmup, 1, e));
  FOX_TRY(h5io_attr_write_str(f, "source", ds->source, e));
  FOX_TRY(h5io_attr_write_str(f, "foxopt_version", ds->version, e));
  FOX_TRY(h5io_attr_write_str(f, "kind", "dataset", e));
  const struct csv_report *r = &ds->report;
  int64_t rep[7] = {(int64_t)r->rows,    (int64_t)r->skipped,     (int64_t)r->repaired_opens,
                    (int64_t)r->gaps,    (int64_t)r->longest_gap, (int64_t)r->missing,
                    (int64_t)r->filled};
  static const char *const rep_names[7] = {"import_rows",    "import_skipped_rows",
                                           "import_repaired_opens", "import_gaps",
                                           "import_longest_gap",    "import_missing_bars",
                                           "import_filled_bars"};
  for (int i = 0; i < 7; i++)
    FOX_TRY(h5io_attr_write(f, rep_names[i], H5T_NATIVE_INT64, &rep[i], 1, e));
  FOX_TRY(h5io_attr_write_str(f, "import_format", csv_format_name(r->format), e));
  return 0;
}

int dataset_write_h5(const struct dataset *ds, const char *path, struct fox_err *e) {
  return h5io_create_atomic(path, write_body_, ds, e);
}

/* NaN before the warm-up by design (FEATURES.md), never after: a NaN or inf there would reach
 * the networks as clamp(NaN) through every state of that bar. */
static int read_features_(hid_t f, struct dataset *ds, const char *path, struct fox_err *e) {
  size_t n = ds->n, from = n < FOX_WARMUP ? n : FOX_WARMUP;
  return h5io_read_finite(f, "/features", H5T_NATIVE_FLOAT, ds->features, n, (size_t)ds->ncol,
                          from, -INFINITY, path, e);
}

/* The columns: /features' width, /feature_names (a file from before user features has 51
 * columns and no such dataset: the built-in names) and their /norm statistics. The built-in
 * features come first, by name: the market's barrier reads ewm_vol's column. */
static int read_columns_(hid_t f, struct dataset *ds, const char *path, struct fox_err *e) {
  size_t n, w;
  FOX_TRY(h5io_dims(f, "/features", &n, &w, path, e));
  if (n != ds->n || w < FOX_NFEAT || w > FOX_NFEAT + FOX_MAX_USER)
    return fox_errf(e, FOX_EDATA, "%s: /features has shape [%zu, %zu], expected [%zu, 51 to %d]",
                    path, n, w, ds->n, FOX_NFEAT + FOX_MAX_USER);
  FOX_TRY(dataset_alloc_columns(ds, (int)w, e));
  int has = h5io_exists(f, "/feature_names");
  if (has < 0)
    return fox_errf(e, FOX_EDATA, "%s: /feature_names cannot be read (damaged metadata)", path);
  if (has)
    FOX_TRY(h5io_read_strs(f, "/feature_names", ds->names[0], w, FOX_FEAT_NAME, path, e));
  else if (w != FOX_NFEAT)
    return fox_errf(e, FOX_EDATA, "%s: /features has %zu columns but no /feature_names", path, w);
  for (size_t c = 0; c < w; c++) {
    if (c < FOX_NFEAT && strcmp(ds->names[c], feature_names[c]) != 0)
      return fox_errf(e, FOX_EDATA, "%s: /feature_names[%zu] is '%s', this foxopt's feature %zu "
                                    "is '%s'", path, c, ds->names[c], c, feature_names[c]);
    if (!ds->names[c][0])
      return fox_errf(e, FOX_EDATA, "%s: /feature_names[%zu] is empty", path, c);
  }
  FOX_TRY(h5io_read_finite(f, "/norm/mean", H5T_NATIVE_FLOAT, ds->norm_mean, w, 0, 0, -INFINITY,
                           path, e));
  /* A zero std is a constant feature (the network sees 0); a negative one is no statistic. */
  return h5io_read_finite(f, "/norm/std", H5T_NATIVE_FLOAT, ds->norm_std, w, 0, 0, 0.0, path, e);
}

/* lean: /features read last, after /bars are checked against /prices and all of /bars but the
 * close freed, so that the f64 bars and the features are never held at once. */
static int read_body_(hid_t f, struct dataset *ds, const char *path, int lean,
                      struct fox_err *e) {
  size_t n, d1;
  FOX_TRY(h5io_dims(f, "/bars/timestamp", &n, &d1, path, e));
  ds->n = n;
  FOX_TRY(bars_reserve(&ds->bars, n ? n : 1, e));
  ds->bars.n = n;
  double *cols[5] = {ds->bars.open, ds->bars.high, ds->bars.low, ds->bars.close, ds->bars.volume};
  FOX_TRY(h5io_read(f, "/bars/timestamp", H5T_NATIVE_INT64, ds->bars.ts, n, 0, path, e));
  /* as import made them: rising (the splits' dates, bars_per_year and the plots' axes read them) */
  for (size_t i = 1; i < n; i++)
    if (ds->bars.ts[i] <= ds->bars.ts[i - 1])
      return fox_errf(e, FOX_EDATA, "%s: /bars/timestamp[%zu] = %lld is not after [%zu] = %lld: "
                                    "a dataset's bar times rise", path, i,
                      (long long)ds->bars.ts[i], i - 1, (long long)ds->bars.ts[i - 1]);
  char name[64];
  for (int i = 0; i < 5; i++) {
    snprintf(name, sizeof name, "/bars/%s", bar_cols_[i + 1]);
    FOX_TRY(h5io_read_finite(f, name, H5T_NATIVE_DOUBLE, cols[i], n, 0, 0, -INFINITY, path, e));
  }
  /* The warm-up first: it says from which row the features must be numbers. */
  FOX_TRY(h5io_attr_read(f, "warmup", H5T_NATIVE_INT64, &ds->warmup, 1, path, e));
  /* Everything downstream indexes prices and features by these: check them once here. */
  if (ds->warmup != FOX_WARMUP)
    return fox_errf(e, FOX_EDATA, "%s: attribute warmup = %lld, this foxopt computes %d", path,
                    (long long)ds->warmup, FOX_WARMUP);
  FOX_TRY(read_columns_(f, ds, path, e));
  ds->features = malloc((n ? n : 1) * (size_t)ds->ncol * sizeof *ds->features);
  ds->prices = malloc((n ? n : 1) * 4 * sizeof *ds->prices);
  mallocCheck(ds->features, e);
  mallocCheck(ds->prices, e);
  if (!lean)
    FOX_TRY(read_features_(f, ds, path, e));
  FOX_TRY(h5io_read_finite(f, "/prices", H5T_NATIVE_FLOAT, ds->prices, n, 4, 0, -INFINITY, path,
                           e));
  FOX_TRY(h5io_attr_read(f, "bar_seconds", H5T_NATIVE_INT64, &ds->bar_seconds, 1, path, e));
  FOX_TRY(h5io_attr_read(f, "bars_per_year", H5T_NATIVE_DOUBLE, &ds->bars_per_year, 1, path, e));
  for (int s = 0; s < 3; s++) {
    FOX_TRY(h5io_attr_read(f, split_attr_[s], H5T_NATIVE_INT64, ds->split[s], 2, path, e));
    if (ds->split[s][0] < 0 || ds->split[s][1] < ds->split[s][0] || ds->split[s][1] > (int64_t)n)
      return fox_errf(e, FOX_EDATA, "%s: attribute %s = [%lld, %lld) is outside [0, %zu]", path,
                      split_attr_[s], (long long)ds->split[s][0], (long long)ds->split[s][1], n);
  }
  if (ds->split[0][0] < ds->warmup || ds->split[0][1] != ds->split[1][0] ||
      ds->split[1][1] != ds->split[2][0] || ds->split[2][1] != (int64_t)n)
    return fox_errf(e, FOX_EDATA,
                    "%s: splits [%lld, %lld) [%lld, %lld) [%lld, %lld) must be consecutive, from "
                    "the warm-up (%lld) to the last bar (%zu)",
                    path, (long long)ds->split[0][0], (long long)ds->split[0][1],
                    (long long)ds->split[1][0], (long long)ds->split[1][1],
                    (long long)ds->split[2][0], (long long)ds->split[2][1],
                    (long long)ds->warmup, n);
  if (!(ds->bars_per_year > 0) || ds->bar_seconds <= 0)
    return fox_errf(e, FOX_EDATA, "%s: bars_per_year %g and bar_seconds %lld must be positive",
                    path, ds->bars_per_year, (long long)ds->bar_seconds);
  for (size_t t = 0; t < n; t++) {
    const float *p = ds->prices + 4 * t;
    if (!(p[0] > 0 && p[1] > 0 && p[2] > 0 && p[3] > 0 && p[2] <= p[1] && isfinite(p[1])))
      return fox_errf(e, FOX_EDATA, "%s: /prices row %zu (%g, %g, %g, %g) is not a valid bar",
                      path, t, p[0], p[1], p[2], p[3]);
  }
  /* /prices is /bars in f32 (dataset_build): the backtest reads one, the reward scale and the
   * report the other, so they must be the same bars; volume is a count. */
  const double *ohlc[4] = {ds->bars.open, ds->bars.high, ds->bars.low, ds->bars.close};
  for (size_t t = 0; t < n; t++) {
    for (int k = 0; k < 4; k++)
      if ((float)ohlc[k][t] != ds->prices[4 * t + (size_t)k])
        return fox_errf(e, FOX_EDATA, "%s: /bars/%s[%zu] = %.17g is not /prices[%zu, %d] = %g",
                        path, bar_cols_[k + 1], t, ohlc[k][t], t, k, ds->prices[4 * t + k]);
    if (!(ds->bars.volume[t] >= 0))
      return fox_errf(e, FOX_EDATA, "%s: /bars/volume[%zu] = %g, expected a number >= 0", path,
                      t, ds->bars.volume[t]);
  }
  if (lean) {
    double *close = ds->bars.close;
    ds->bars.close = NULL;
    bars_free(&ds->bars);
    ds->bars = (struct bars){.n = n, .cap = n, .close = close};
    FOX_TRY(read_features_(f, ds, path, e));
  }
  FOX_TRY(h5io_attr_read_str(f, "source", ds->source, sizeof ds->source, path, e));
  FOX_TRY(dataset_select(ds, NULL, 0, path, e));
  FOX_TRY(h5io_attr_read_str(f, "foxopt_version", ds->version, sizeof ds->version, path, e));
  int64_t v;
  struct fox_err ignore = {0};
  /* The import report is informative: older or foreign files may lack it. */
  if (h5io_attr_read(f, "import_rows", H5T_NATIVE_INT64, &v, 1, path, &ignore) == 0)
    ds->report.rows = (size_t)v;
  size_t *dst[6] = {&ds->report.skipped, &ds->report.repaired_opens, &ds->report.gaps,
                    &ds->report.longest_gap, &ds->report.missing, &ds->report.filled};
  static const char *const names[6] = {"import_skipped_rows", "import_repaired_opens",
                                       "import_gaps",         "import_longest_gap",
                                       "import_missing_bars", "import_filled_bars"};
  for (int i = 0; i < 6; i++) {
    fox_err_clear(&ignore);
    if (h5io_attr_read(f, names[i], H5T_NATIVE_INT64, &v, 1, path, &ignore) == 0)
      *dst[i] = (size_t)v;
  }
  return 0;
}

static int read_(struct dataset *ds, const char *path, int lean, struct fox_err *e) {
  memset(ds, 0, sizeof *ds);
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a dataset from foxopt import", &f, e));
  int rc = read_body_(f, ds, path, lean, e);
  H5Fclose(f);
  if (rc != 0)
    dataset_free(ds);
  return rc;
}

int dataset_read_h5(struct dataset *ds, const char *path, struct fox_err *e) {
  return read_(ds, path, 0, e);
}

int dataset_read_h5_lean(struct dataset *ds, const char *path, struct fox_err *e) {
  return read_(ds, path, 1, e);
}

static int read_columns_only_(hid_t f, struct dataset *ds, const char *path,
                              struct fox_err *e) {
  size_t w;
  FOX_TRY(h5io_dims(f, "/features", &ds->n, &w, path, e));
  FOX_TRY(read_columns_(f, ds, path, e));
  FOX_TRY(h5io_attr_read_str(f, "source", ds->source, sizeof ds->source, path, e));
  return dataset_select(ds, NULL, 0, path, e);
}

int dataset_read_columns(struct dataset *ds, const char *path, struct fox_err *e) {
  memset(ds, 0, sizeof *ds);
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a dataset from foxopt import", &f, e));
  int rc = read_columns_only_(f, ds, path, e);
  H5Fclose(f);
  if (rc != 0)
    dataset_free(ds);
  return rc;
}
