/* The best trial's equity over the evaluation split against buy-and-hold, on the report page
 * and as best_equity.svg and .png. */
#include "views/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "report/report.h"
#include "report/returns.h"
#include "study/rankfile.h"
#include "util/fsutil.h"
#include "util/h5io.h"

#define PATH_LEN_ 4200

/* The dataset's close prices over [0, end) and the bars of the evaluation split, or a reason
 * there are none (*close = NULL, why set): the page draws the equity alone then. */
static int closes_(const struct study *s, long end, float **close, int64_t **ts,
                   int64_t split[2], char *why, size_t nwhy, struct fox_err *e) {
  const char *path = s->cfg.data_path;
  *close = NULL;
  *ts = NULL;
  if (!fs_exists(path)) {
    snprintf(why, nwhy, "the dataset %s is missing (a relative data.path is taken from where "
             "foxopt report runs)", path);
    return 0;
  }
  struct fox_err err = {0};
  hid_t f;
  if (h5io_open_read(path, "a dataset from foxopt import", &f, &err) != 0) {
    snprintf(why, nwhy, "%s", err.msg);
    return 0;
  }
  size_t n = 0, d1 = 0;
  char attr[32];
  snprintf(attr, sizeof attr, "split_%s", dataset_split_name(s->cfg.eval_split));
  float *p = NULL;
  if (h5io_dims(f, "/prices", &n, &d1, path, &err) != 0 ||
      h5io_attr_read(f, attr, H5T_NATIVE_INT64, split, 2, path, &err) != 0) {
    snprintf(why, nwhy, "%s", err.msg);
  } else if (d1 != 4 || (long)n < end) {
    snprintf(why, nwhy, "%s: /prices holds %zu bars, the trial's folds end at bar %ld: not the "
             "study's dataset", path, n, end);
  } else if (!(p = malloc(n * 4 * sizeof *p))) {
    H5Fclose(f);
    return fox_errf(e, FOX_EFAIL, "%s: out of memory for %zu bars", path, n);
  } else if (h5io_read_finite(f, "/prices", H5T_NATIVE_FLOAT, p, n, 4, 0, 0, path, &err) != 0) {
    snprintf(why, nwhy, "%s", err.msg);
    free(p);
    p = NULL;
  }
  /* The bars' times, for the axis: without them it counts bars. */
  int64_t *t = p ? malloc(n * sizeof *t) : NULL;
  if (t && h5io_read(f, "/bars/timestamp", H5T_NATIVE_INT64, t, n, 0, path, &err) != 0) {
    free(t);
    t = NULL;
  }
  H5Fclose(f);
  *ts = t;
  if (!p)
    return 0;
  float *c = malloc((size_t)end * sizeof *c);
  if (!c) {
    free(p);
    return fox_errf(e, FOX_EFAIL, "%s: out of memory for %ld bars", path, end);
  }
  for (long i = 0; i < end; i++)
    c[i] = p[4 * i + 3];
  free(p);
  *close = c;
  return 0;
}

/* The best trial's equity over the evaluation split against buy-and-hold over the same folds. */
int plots_equity(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  if (s->cfg.study.function != 0)
    return 0; /* a test function has no market */
  fputs("<h2 id=\"equity\">The best trial's equity</h2>\n", f);
  const struct study_trial *t = s->n > 0 ? &s->trials[w->p->order[0]] : NULL;
  if (!t || isnan(page_objective(s, t)) || t->rank < 0) {
    fputs("<p>", f);
    page_esc(f, "No trial has a value of %s yet.", s->metric_names[s->objective]);
    fputs("</p>\n", f);
    return 0;
  }
  char path[PATH_LEN_];
  rankfile_trial_path(w->p->outdir, t->id, 0, path, sizeof path);
  struct equity_series q;
  struct fox_err why = {0};
  if (returns_read_equity(path, &q, &why) != 0) {
    page_note(w, "no equity curve: %s", why.msg);
    return 0;
  }
  if (q.n == 0) {
    page_note(w, "no equity curve: %s holds no evaluation of trial %d", path, t->id);
    return 0;
  }
  if (q.epochs >= 0 && q.epochs != t->epochs) {
    page_note(w, "no equity curve: %s holds epoch %d where study.h5 records %d (is the study still "
          "running?)", path, q.epochs, t->epochs);
    returns_free_equity(&q);
    return 0;
  }
  long begin = q.folds[0], end = q.folds[2 * q.nf - 1];
  float *close = NULL;
  int64_t split[2] = {0, 0}, *ts = NULL;
  char no_bh[FOX_ERR_LEN + 2048] = "";
  int rc = closes_(s, end, &close, &ts, split, no_bh, sizeof no_bh, e);
  if (rc == 0 && close && (split[0] != begin || split[1] != end)) {
    snprintf(no_bh, sizeof no_bh, "%s: its %s split is bars [%lld, %lld), the trial's folds "
             "cover [%ld, %ld): not the study's dataset", s->cfg.data_path,
             dataset_split_name(s->cfg.eval_split), (long long)split[0], (long long)split[1],
             begin, end);
    free(close), free(ts);
    close = NULL;
    ts = NULL;
  }
  if (!close) {
    free(ts);
    ts = NULL;
  }
  double *x = rc == 0 ? malloc((size_t)q.n * sizeof *x) : NULL;
  double *bh = rc == 0 ? malloc((size_t)q.n * sizeof *bh) : NULL;
  if (rc == 0 && (!x || !bh))
    rc = fox_errf(e, FOX_EFAIL, "report.html: out of memory for %ld bars", q.n);
  double ret_eq = 0, ret_bh = 0;
  for (int j = 0; rc == 0 && j < q.nf; j++) {
    long fb = q.folds[2 * j] - begin, fe = q.folds[2 * j + 1] - begin;
    /* bought at the close of the fold's first bar with the fold's capital, held to its end */
    for (long i = fb; i < fe; i++) {
      x[i] = ts ? (double)ts[i + begin] : (double)i; /* UTC seconds, or the bar */
      bh[i] = close ? q.eq[fb] * close[i + begin] / close[fb + begin] : NAN;
    }
    ret_eq += (q.eq[fe - 1] / q.eq[fb] - 1) / q.nf;
    ret_bh += close ? (bh[fe - 1] / bh[fb] - 1) / q.nf : NAN;
  }
  if (rc == 0) {
    const char *split_name = dataset_split_name(s->cfg.eval_split), *unit;
    if (!close)
      page_note(w, "no buy-and-hold: %s", no_bh);
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = ts ? (struct svg_axis){.lo = x[0], .hi = x[q.n - 1], .time = 1}
             : (struct svg_axis){.lo = 0, .hi = (double)(q.n - 1), .integer = 1};
    if (!(g.x.hi > g.x.lo))
      g.x.hi = g.x.lo + 1;
    svg_axis_fit(&g.y, q.eq, q.n, 0.04);
    for (long i = 0; close && i < q.n; i++)
      svg_axis_include(&g.y, bh[i]);
    char title[512], xl[128], yl[128];
    double scale = report_metric_scale(s, s->objective, &unit);
    snprintf(title, sizeof title, "equity of trial %d over the %s split", t->id, split_name);
    snprintf(xl, sizeof xl, "%s of the %s split (%ld bars%s)", ts ? "time (UTC)" : "bar",
             split_name, q.n, q.nf > 1 ? ", folds dashed" : "");
    snprintf(yl, sizeof yl, "equity (initial capital %g)", q.eq[0]);
    fputs("<figure class=\"wide\">", f);
    page_fig_start(w, "best_equity", title);
    svg_begin(&g, page_fig(w), 600, 330, title);
    svg_axes(&g, xl, yl, NULL, 0);
    svg_hline(&g, q.eq[0], "ref");
    for (int j = 1; j < q.nf; j++)
      svg_vline(&g, x[q.folds[2 * j] - begin], "ref");
    /* each fold a piece of its own: it starts again from the initial capital */
    for (int j = 0; j < q.nf; j++) {
      long fb = q.folds[2 * j] - begin, fe = q.folds[2 * j + 1] - begin;
      if (close)
        svg_line(&g, x + fb, bh + fb, fe - fb, "bh");
      svg_line(&g, x + fb, q.eq + fb, fe - fb, "eq");
    }
    svg_end(&g);
    page_fig_part(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    char text[512];
    snprintf(text, sizeof text, "trial %d (%s, %d epochs%s): total return %.3g %%%s",
             t->id, study_status_names[t->status], t->epochs,
             s->repeats > 1 ? ", repeat 0's policy" : "", 100 * ret_eq,
             q.nf > 1 ? " (mean over folds)" : "");
    page_key(w, "-", "eq", text);
    if (close) {
      snprintf(text, sizeof text, "buy and hold: %.3g %%", 100 * ret_bh);
      page_key(w, "-", "bh", text);
    }
    page_esc(f, "%s = %.6g%s. ", s->metric_names[s->objective], t->metrics[s->objective] * scale,
         unit);
    if (close)
      page_esc(f, "Buy and hold: bought at the close of each fold's first bar with its capital, "
              "no fee, no spread.");
    fputs("</figcaption></figure>\n", f);
    rc = page_fig_end(w, e);
  }
  free(close), free(ts);
  free(x), free(bh);
  returns_free_equity(&q);
  return rc;
}
