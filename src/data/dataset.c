/* Dataset assembly from imported bars: features, f32 prices, splits and normalisation stats. */
#include "data/dataset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dataset_split_index(const char *name) {
  if (strcmp(name, "train") == 0)
    return FOX_SPLIT_TRAIN;
  if (strcmp(name, "val") == 0)
    return FOX_SPLIT_VAL;
  if (strcmp(name, "test") == 0)
    return FOX_SPLIT_TEST;
  return -1;
}

const char *dataset_split_name(int split) {
  return split == FOX_SPLIT_TRAIN ? "train" : split == FOX_SPLIT_VAL ? "val" : "test";
}

int dataset_parse_split(const char *s, double frac[3], struct fox_err *e) {
  char tail;
  if (sscanf(s, "%lf,%lf,%lf%c", &frac[0], &frac[1], &frac[2], &tail) != 3)
    return fox_errf(e, FOX_EUSAGE, "--split '%s': expected three fractions a,b,c", s);
  for (int i = 0; i < 3; i++)
    if (!(frac[i] >= 0 && frac[i] <= 1))
      return fox_errf(e, FOX_EUSAGE, "--split '%s': fraction %d must be in [0, 1]", s, i + 1);
  if (!(frac[0] > 0))
    return fox_errf(e, FOX_EUSAGE, "--split '%s': the train fraction must be > 0", s);
  if (fabs(frac[0] + frac[1] + frac[2] - 1.0) > 1e-6)
    return fox_errf(e, FOX_EUSAGE, "--split '%s': fractions must sum to 1 (they sum to %.6g)", s,
                    frac[0] + frac[1] + frac[2]);
  return 0;
}

/* Population mean and std over the train split, accumulated in double from the stored f32. */
static void norm_stats_(struct dataset *ds) {
  int64_t b = ds->split[FOX_SPLIT_TRAIN][0], en = ds->split[FOX_SPLIT_TRAIN][1];
  size_t w = (size_t)ds->ncol;
  for (int f = 0; f < ds->ncol; f++) {
    double mean = 0, m2 = 0;
    long k = 0;
    for (int64_t t = b; t < en; t++) {
      double x = ds->features[(size_t)t * w + (size_t)f], d = x - mean;
      k++;
      mean += d / k;
      m2 += d * (x - mean);
    }
    ds->norm_mean[f] = (float)mean;
    ds->norm_std[f] = k > 0 ? (float)sqrt(m2 / k) : 0.0f;
  }
}

int dataset_build(struct dataset *ds, struct bars *bars, const double frac[3],
                  double bars_per_year, int64_t bar_seconds, const char *source,
                  struct fox_err *e) {
  memset(ds, 0, sizeof *ds);
  ds->bars = *bars;
  *bars = (struct bars){0};
  size_t n = ds->n = ds->bars.n;
  ds->warmup = FOX_WARMUP;
  int64_t u = (int64_t)n - ds->warmup;
  /* Normalised by their sum: a sum within 1e-6 of 1 must not push val past the last bar. */
  double sum = frac[0] + frac[1] + frac[2];
  int64_t ntrain = (int64_t)floor(frac[0] / sum * (double)u);
  int64_t nval = (int64_t)floor(frac[1] / sum * (double)u);
  if (u > 0 && ntrain + nval > u)
    nval = u - ntrain;
  if (u < 3 || ntrain < 1 || (frac[1] > 0 && nval < 1) || (frac[2] > 0 && u - ntrain - nval < 1))
    return fox_errf(e, FOX_EDATA,
                    "%s: too few bars: %zu bars leave %lld after the %lld-bar feature warm-up, "
                    "too few for the splits %.3g,%.3g,%.3g",
                    source, n, (long long)(u > 0 ? u : 0), (long long)ds->warmup, frac[0], frac[1],
                    frac[2]);
  ds->split[0][0] = ds->warmup;
  ds->split[0][1] = ds->split[1][0] = ds->warmup + ntrain;
  ds->split[1][1] = ds->split[2][0] = ds->warmup + ntrain + nval;
  ds->split[2][1] = (int64_t)n;
  ds->bar_seconds = bar_seconds > 0 ? bar_seconds : 60;
  ds->bars_per_year = bars_per_year > 0 ? bars_per_year : 365.0 * 86400.0 / ds->bar_seconds;
  snprintf(ds->source, sizeof ds->source, "%s", source);
  snprintf(ds->version, sizeof ds->version, "%s", FOXOPT_VERSION);

  int nu = ds->bars.nuser;
  size_t w = (size_t)(FOX_NFEAT + nu);
  FOX_TRY(dataset_alloc_columns(ds, FOX_NFEAT + nu, e));
  for (int j = 0; j < nu; j++)
    memcpy(ds->names[FOX_NFEAT + j], ds->bars.user_names[j], FOX_FEAT_NAME);
  ds->features = malloc(n * w * sizeof *ds->features);
  ds->prices = malloc(n * 4 * sizeof *ds->prices);
  mallocCheck(ds->features, e);
  mallocCheck(ds->prices, e);
  if (nu == 0) {
    FOX_TRY(features_compute(&ds->bars, ds->features, e));
  } else {
    /* The built-in features, then the user's columns in f32 (checked finite at import). */
    float *built = malloc(n * FOX_NFEAT * sizeof *built);
    mallocCheck(built, e);
    int rc = features_compute(&ds->bars, built, e);
    for (size_t t = 0; rc == 0 && t < n; t++) {
      memcpy(ds->features + t * w, built + t * FOX_NFEAT, FOX_NFEAT * sizeof *built);
      for (int j = 0; j < nu; j++)
        ds->features[t * w + FOX_NFEAT + (size_t)j] = (float)ds->bars.user[t * (size_t)nu + (size_t)j];
    }
    free(built);
    FOX_TRY(rc);
    free(ds->bars.user);
    free(ds->bars.user_names);
    ds->bars.user = NULL;
    ds->bars.user_names = NULL;
    ds->bars.nuser = 0;
  }
  for (size_t t = 0; t < n; t++) {
    ds->prices[t * 4 + 0] = (float)ds->bars.open[t];
    ds->prices[t * 4 + 1] = (float)ds->bars.high[t];
    ds->prices[t * 4 + 2] = (float)ds->bars.low[t];
    ds->prices[t * 4 + 3] = (float)ds->bars.close[t];
  }
  /* Reachable only through extreme values (e.g. a volume near DBL_MAX): name the bar. */
  for (size_t t = (size_t)ds->warmup; t < n; t++)
    for (size_t f = 0; f < w; f++)
      if (!isfinite(ds->features[t * w + f]))
        return fox_errf(e, FOX_EDATA,
                        "%s: feature %s is not finite at bar %zu (timestamp %lld): check the "
                        "prices and volumes of that bar and the 1440 before it",
                        source, ds->names[f], t, (long long)ds->bars.ts[t]);
  norm_stats_(ds);
  return dataset_select(ds, NULL, 0, source, e);
}

int dataset_alloc_columns(struct dataset *ds, int ncol, struct fox_err *e) {
  ds->ncol = ncol;
  ds->names = calloc((size_t)ncol, sizeof *ds->names);
  ds->norm_mean = calloc((size_t)ncol, sizeof(float));
  ds->norm_std = calloc((size_t)ncol, sizeof(float));
  mallocCheck(ds->names, e);
  mallocCheck(ds->norm_mean, e);
  mallocCheck(ds->norm_std, e);
  for (int c = 0; c < ncol && c < FOX_NFEAT; c++)
    snprintf(ds->names[c], FOX_FEAT_NAME, "%s", feature_names[c]);
  return 0;
}

void dataset_selected_norm(const struct dataset *ds, float *out) {
  for (int j = 0; j < ds->nsel; j++) {
    out[j] = ds->norm_mean[ds->sel[j]];
    out[ds->nsel + j] = ds->norm_std[ds->sel[j]];
  }
}

int dataset_column(const struct dataset *ds, const char *name) {
  for (int c = 0; c < ds->ncol; c++)
    if (strcmp(ds->names[c], name) == 0)
      return c;
  return -1;
}

int dataset_select(struct dataset *ds, const char *const *names, int count, const char *where,
                   struct fox_err *e) {
  int n = count > 0 ? count : FOX_NFEAT;
  int *sel = malloc((size_t)n * sizeof *sel);
  char *missing = calloc((size_t)n, FOX_FEAT_NAME + 2); /* every name, ", " between */
  if (!sel || !missing) {
    free(sel), free(missing);
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", where);
  }
  int nmissing = 0, unnamed = 0;
  for (int j = 0; j < n; j++) {
    const char *want = count > 0 ? names[j] : feature_names[j];
    sel[j] = dataset_column(ds, want);
    for (int k = 0; k < j && count > 0; k++)
      if (strcmp(names[k], want) == 0) {
        free(sel), free(missing);
        return fox_errf(e, FOX_EUSAGE, "%s: feature '%s' is selected twice", where, want);
      }
    if (sel[j] < 0) {
      /* Every name while the message has room (FOX_ERR_LEN), then how many more. */
      size_t at = strlen(missing);
      if (at < 640)
        snprintf(missing + at, (size_t)n * (FOX_FEAT_NAME + 2) - at, "%s%s",
                 nmissing ? ", " : "", want);
      else
        unnamed++;
      nmissing++;
    }
  }
  if (nmissing > 0) {
    free(sel);
    int rc = fox_errf(e, FOX_EDATA, "%s: the dataset lacks %d feature%s: %s%s%.0d%s", where,
                      nmissing, nmissing > 1 ? "s" : "", missing, unnamed ? ", and " : "",
                      unnamed, unnamed ? " more" : "");
    free(missing);
    return rc;
  }
  free(missing);
  free(ds->sel);
  ds->sel = sel;
  ds->nsel = n;
  return 0;
}

void dataset_free(struct dataset *ds) {
  bars_free(&ds->bars);
  free(ds->features);
  free(ds->prices);
  free(ds->names);
  free(ds->norm_mean);
  free(ds->norm_std);
  free(ds->sel);
  memset(ds, 0, sizeof *ds);
}

int dataset_return_std(const struct dataset *ds, int split, double *sd, struct fox_err *e) {
  int64_t b = ds->split[split][0], en = ds->split[split][1];
  const double *c = ds->bars.close;
  if (en - b < 3 || !c)
    return fox_errf(e, FOX_EDATA, "%s: the %s split has %lld bars, too few for the standard "
                                  "deviation of its returns (reward.scale auto)", ds->source,
                    dataset_split_name(split), (long long)(en - b));
  /* Welford: a year of minutes has returns of 1e-4 around a mean of 1e-7. */
  double n = 0, mean = 0, m2 = 0;
  for (int64_t t = b + 1; t < en; t++) {
    double r = log(c[t] / c[t - 1]);
    n += 1;
    double d = r - mean;
    mean += d / n;
    m2 += d * (r - mean);
  }
  *sd = sqrt(m2 / n);
  if (!(*sd > 0) || !isfinite(*sd))
    return fox_errf(e, FOX_EDATA, "%s: the close never moves in the %s split: reward.scale auto "
                                  "(1 / std of the returns) is undefined; set reward.scale",
                    ds->source, dataset_split_name(split));
  return 0;
}
