/* A trial's objective by epoch, its learning curve: from the repeats' trial files (/curve/eval)
 * where the mean of the repeats is the study's aggregate, and the study's own value at its last
 * rung. Optuna's intermediate values (the journal export) and the report's learning curves. */
#include "report/curves.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/rankfile.h"
#include "util/fsutil.h"
#include "util/h5io.h"

/* One repeat's per-epoch objective from its trial file. */
struct curve_ {
  size_t n;
  int *epoch;
  double *eval; /* [n][FOX_NMETRICS] */
};

static void curve_free_(struct curve_ *c) {
  free(c->epoch);
  free(c->eval);
  memset(c, 0, sizeof *c);
}

/* The curve of repeat r of trial id: n = 0 when its file has none (a trial that failed
 * before training); *present = 0 when there is no file. */
static int curve_read_(const char *outdir, int id, int r, struct curve_ *c, int *present,
                       struct fox_err *e) {
  char path[4200];
  memset(c, 0, sizeof *c);
  rankfile_trial_path(outdir, id, r, path, sizeof path);
  *present = fs_exists(path);
  if (!*present)
    return 0;
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a trial file of foxopt run", &f, e));
  size_t d1;
  int rc = h5io_find(f, "/curve/epoch", path, e);
  if (rc == 1)
    rc = h5io_dims(f, "/curve/epoch", &c->n, &d1, path, e);
  if (rc == 0 && c->n > 0) {
    c->epoch = malloc(c->n * sizeof *c->epoch);
    c->eval = malloc(c->n * FOX_NMETRICS * sizeof *c->eval);
    rc = c->epoch && c->eval ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
    if (rc == 0)
      rc = h5io_read(f, "/curve/epoch", H5T_NATIVE_INT, c->epoch, c->n, 0, path, e);
    if (rc == 0)
      rc = h5io_read(f, "/curve/eval", H5T_NATIVE_DOUBLE, c->eval, c->n, FOX_NMETRICS, path, e);
  }
  H5Fclose(f);
  if (rc != 0)
    curve_free_(c);
  return rc;
}

int report_curves_aggregate(const struct study *s) {
  return s->repeats * s->folds == 1 || s->cfg.study.aggregate == FOX_AGG_MEAN;
}

int report_intermediate(const struct study *s, const char *outdir, const struct study_trial *t,
                        int *steps, double *vals, int *n, int *from_curve, int *missing,
                        struct fox_err *e) {
  *n = 0;
  *from_curve = 0;
  if (s->n_obj != 1)
    return 0;
  int m = s->obj_metric[0];
  double last = t->metrics[m];
  int last_step = t->rung >= 0 && t->status != FOX_ST_FAILED && !isnan(last)
                      ? s->plan.epochs[t->rung] : -1;
  if (s->cfg.study.function) {
    for (int k = t->bracket; last_step >= 0 && k < t->rung; k++) {
      steps[*n] = s->plan.epochs[k];
      vals[(*n)++] = last;
    }
  } else if (report_curves_aggregate(s) && t->epochs > 0) {
    struct curve_ c[FOX_REPEATS_MAX];
    int rc = 0, all = 1, r, got = 0;
    for (r = 0; rc == 0 && r < s->repeats; r++) {
      int present;
      rc = curve_read_(outdir, t->id, r, &c[r], &present, e);
      if (rc == 0 && !present)
        (*missing)++, all = 0;
    }
    int upto = last_step >= 0 ? last_step - 1 : t->epochs;
    for (int ep = 1; rc == 0 && all && ep <= upto; ep++) {
      double sum = 0;
      int k;
      for (k = 0; k < s->repeats; k++) {
        if ((size_t)ep > c[k].n || c[k].epoch[ep - 1] != ep)
          break;
        sum += c[k].eval[(size_t)(ep - 1) * FOX_NMETRICS + m];
      }
      if (k < s->repeats)
        break;
      steps[*n] = ep;
      vals[(*n)++] = sum / s->repeats;
      got = 1;
    }
    for (int k = 0; k < r; k++)
      curve_free_(&c[k]);
    FOX_TRY(rc);
    *from_curve = got;
  }
  if (last_step >= 0) {
    steps[*n] = last_step;
    vals[(*n)++] = last;
  }
  return 0;
}

