/* Backtest driver: folds of the split, the backend's sequence kernel, metrics per fold and their
 * mean, and the text/JSON reports. */
#include "backtest/backtest.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "env/experience_h5.h"
#include "util/fsutil.h"
#include "util/h5io.h"
#include "util/json.h"

int backtest_read_actions(const char *path, size_t n, uint8_t *out, struct fox_err *e) {
  FOX_TRY(fs_input_check(path, "an actions CSV", FOX_EDATA, e));
  FILE *f = fopen(path, "r");
  if (!f)
    return fox_errf(e, FOX_EDATA, "%s: cannot open actions file", path);
  char line[256];
  size_t lineno = 0, k = 0;
  int rc = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line, *q;
    while (isspace((unsigned char)*p))
      p++;
    for (q = p + strlen(p); q > p && isspace((unsigned char)q[-1]);)
      *--q = '\0';
    if (*p == '\0')
      continue;
    if (lineno == 1 && strcmp(p, "action") == 0)
      continue;
    if (!((p[0] == '0' || p[0] == '1' || p[0] == '2') && p[1] == '\0')) {
      rc = fox_errf(e, FOX_EDATA, "%s:%zu: expected an action 0 (hold), 1 (buy) or 2 (sell), "
                                  "got '%.40s'", path, lineno, p);
      break;
    }
    if (k == n) {
      rc = fox_errf(e, FOX_EDATA, "%s:%zu: too many actions: the split has %zu bars", path,
                    lineno, n);
      break;
    }
    out[k++] = (uint8_t)(p[0] - '0');
  }
  fclose(f);
  if (rc == 0 && k != n)
    rc = fox_errf(e, FOX_EDATA, "%s:%zu: %zu actions, expected one per bar of the split (%zu)",
                  path, lineno, k, n);
  return rc;
}

void backtest_free(struct backtest_run *r) {
  free(r->folds);
  free(r->fold_metrics);
  free(r->actions);
  free(r->equity);
  free(r->position);
  free(r->labels);
  free(r->rewards);
  free(r->states);
  memset(r, 0, sizeof *r);
}

/* The normalised features of the split as the device holds them (the host keeps no copy in a
 * study), packed at the front of r->states, then spread to rows of state_dim from the last
 * row down (each row moves to a higher offset), each followed by its portfolio features. */
static int fill_states_(const struct backend *be, const struct device_dataset *dev,
                        const struct backtest_run *r, const float *pf, struct fox_err *e) {
  size_t n = (size_t)(r->end - r->begin);
  size_t nf = (size_t)dev->nfeat, dim = (size_t)r->state_dim;
  FOX_TRY(be->dataset_states(dev, (size_t)r->begin, n, r->states, e));
  for (size_t i = n; i-- > 0;) {
    float *s = r->states + i * dim;
    memmove(s, r->states + i * nf, nf * sizeof(float));
    memcpy(s + nf, pf + 3 * i, 3 * sizeof(float));
  }
  return 0;
}

void backtest_fold_bounds(int64_t begin, size_t n, int k, int j, int64_t *b, int64_t *e) {
  *b = begin + (int64_t)((size_t)j * n / (size_t)k);
  *e = begin + (int64_t)((size_t)(j + 1) * n / (size_t)k);
}

int backtest_run(const struct backend *be, const struct dataset *ds,
                 const struct device_dataset *dev, const struct config *cfg, int split,
                 int nfolds, const uint8_t *actions, struct backtest_run *r, struct fox_err *e) {
  memset(r, 0, sizeof *r);
  r->split = split;
  r->begin = ds->split[split][0];
  r->end = ds->split[split][1];
  size_t n = (size_t)(r->end - r->begin);
  if (nfolds < 1 || n / (size_t)nfolds < 2)
    return fox_errf(e, FOX_EUSAGE, "%d folds: the %s split has %zu bars, each fold needs >= 2",
                    nfolds, dataset_split_name(split), n);
  r->nfolds = nfolds;
  r->folds = malloc(2 * (size_t)nfolds * sizeof *r->folds);
  r->fold_metrics = calloc((size_t)nfolds, sizeof *r->fold_metrics);
  r->actions = malloc(n);
  r->equity = malloc(n * sizeof *r->equity);
  r->position = malloc(n);
  r->labels = malloc(n);
  r->rewards = malloc(n * sizeof *r->rewards);
  float *pf = cfg->experience == FOX_EXP_FULL ? malloc(3 * n * sizeof *pf) : NULL;
  struct metrics_acc *acc = calloc((size_t)nfolds, sizeof *acc);
  if (!r->folds || !r->fold_metrics || !r->actions || !r->equity || !r->position || !r->labels ||
      !r->rewards || !acc || (cfg->experience == FOX_EXP_FULL && !pf)) {
    free(pf);
    free(acc);
    backtest_free(r);
    return fox_errf(e, FOX_EFAIL, "out of memory for %zu bars", n);
  }
  memcpy(r->actions, actions, n);
  for (int j = 0; j < nfolds; j++) {
    int64_t fb, fe;
    backtest_fold_bounds(r->begin, n, nfolds, j, &fb, &fe);
    r->folds[2 * j] = (int32_t)fb;
    r->folds[2 * j + 1] = (int32_t)fe;
  }
  struct bt_request rq = {cfg->market, nfolds, r->folds, actions};
  struct bt_result out = {r->equity, r->position, r->labels, r->rewards, acc};
  int rc = be->backtest(dev, &rq, &out, e);
  if (rc == 0 && pf)
    rc = be->portfolio_sim(dev, &rq, pf, NULL, e);
  if (rc == 0) {
    for (int j = 0; j < nfolds; j++)
      metrics_finish(&acc[j], ds->bars_per_year, &r->fold_metrics[j]);
    metrics_mean(r->fold_metrics, nfolds, &r->mean);
    if (pf) {
      r->state_dim = dev->nfeat + FOX_NPORTFOLIO;
      r->states = malloc(n * (size_t)r->state_dim * sizeof *r->states);
      if (!r->states)
        rc = fox_errf(e, FOX_EFAIL, "out of memory for states");
      else
        rc = fill_states_(be, dev, r, pf, e);
    }
  }
  free(pf);
  free(acc);
  if (rc != 0)
    backtest_free(r);
  return rc;
}

/* Every metric into o under its name, null where not finite. */
static void metrics_json_(json_t *o, const struct metrics *m, struct fox_err *e) {
  for (int i = 0; i < FOX_NMETRICS; i++)
    fox_json_set(o, metrics_names[i], fox_json_num(metrics_get(m, i)), e);
}

int backtest_print_json(FILE *f, const struct backtest_run *r, struct fox_err *e) {
  json_t *o = json_object(), *folds = json_array();
  fox_json_set(o, "split", fox_json_str(dataset_split_name(r->split)), e);
  metrics_json_(o, &r->mean, e);
  for (int j = 0; j < r->nfolds; j++) {
    json_t *fo = json_object();
    fox_json_set(fo, "begin", json_integer(r->folds[2 * j]), e);
    fox_json_set(fo, "end", json_integer(r->folds[2 * j + 1]), e);
    metrics_json_(fo, &r->fold_metrics[j], e);
    fox_json_push(folds, fo, e);
  }
  fox_json_set(o, "folds", folds, e);
  return fox_json_print(f, o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17), "backtest --json",
                        e);
}

void backtest_print_table(FILE *f, const struct backtest_run *r) {
  static const char *const units[FOX_NMETRICS] = {
      "fraction", "annualised", "annualised", "fraction", "fraction/yr", "ratio",
      "round trips", "fraction", "ratio", "of bars", "quote ccy", "bars"};
  fprintf(f, "# backtest on the %s split: bars [%lld, %lld), %d fold%s\n", dataset_split_name(r->split),
          (long long)r->begin, (long long)r->end, r->nfolds, r->nfolds > 1 ? "s" : "");
  fprintf(f, "%-15s %-12s %16s", "metric", "unit", r->nfolds > 1 ? "mean" : "value");
  for (int j = 0; r->nfolds > 1 && j < r->nfolds; j++)
    fprintf(f, " %11s%-3d", "fold ", j + 1);
  fputc('\n', f);
  for (int i = 0; i < FOX_NMETRICS; i++) {
    fprintf(f, "%-15s %-12s %16.6g", metrics_names[i], units[i], metrics_get(&r->mean, i));
    for (int j = 0; r->nfolds > 1 && j < r->nfolds; j++)
      fprintf(f, " %14.6g", metrics_get(&r->fold_metrics[j], i));
    fputc('\n', f);
  }
}

struct bt_file_ {
  const struct backtest_run *r;
  const struct config *cfg;
};

static int write_body_(hid_t f, const void *ctx, struct fox_err *e) {
  const struct backtest_run *r = ((const struct bt_file_ *)ctx)->r;
  const struct config *cfg = ((const struct bt_file_ *)ctx)->cfg;
  FOX_TRY(h5io_attr_write_str(f, "kind", "backtest", e));
  FOX_TRY(experience_write_features(f, cfg, e));
  size_t n = (size_t)(r->end - r->begin);
  hid_t g = H5Gcreate2(f, "backtest", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5Check(g, e, "/backtest");
  int rc = h5io_write(g, "equity", H5T_NATIVE_DOUBLE, r->equity, n, 0, 4, e);
  if (rc == 0)
    rc = h5io_write(g, "position", H5T_NATIVE_UINT8, r->position, n, 0, 4, e);
  if (rc == 0)
    rc = h5io_write(g, "folds", H5T_NATIVE_INT32, r->folds, (size_t)r->nfolds, 2, 0, e);
  if (rc == 0)
    rc = h5io_attr_write_str(g, "split", dataset_split_name(r->split), e);
  H5Gclose(g);
  FOX_TRY(rc);
  return experience_write(f, "experience", cfg->experience, n, r->actions, r->rewards, r->labels,
                          r->states, r->state_dim, e);
}

int backtest_write_h5(const struct backtest_run *r, const struct config *cfg, const char *path,
                      struct fox_err *e) {
  struct bt_file_ ctx = {r, cfg};
  return h5io_create_atomic(path, write_body_, &ctx, e);
}
