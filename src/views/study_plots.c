/* The study's figures on the report page and as files: the history, the learning curves, the
 * timeline, parallel coordinates, the parameter importance, each parameter against the
 * objective, and a pbt study's schedule. */
#include "views/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/curves.h"
#include "report/importance.h"
#include "report/report.h"
#include "util/text.h"

/* The best member's schedule drawn: a panel for the objective and one for each parameter by
 * generation, every segment's value a dot (an exploit's a cross), the member's lineage a red
 * line. */
int plots_schedule(struct page *w, const int *ids, int n, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  size_t cap = (size_t)(s->n > n ? s->n : n) + 1;
  double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
  int *id = malloc(cap * sizeof *id);
  if (!x || !y || !id) {
    free(x), free(y), free(id);
    return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
  }
  char label[FOX_NAME_LEN + 8], title[FOX_NAME_LEN + 64];
  report_metric_label(s, s->objective, label, sizeof label);
  page_fig_start(w, "pbt_schedule", "the best member's schedule by generation");
  fputs("<p class=\"legend\">", f);
  page_key(w, "o", "seg", "a segment");
  page_key(w, "x", "ex", "an exploit");
  page_key(w, "-", "best", "the best member's lineage");
  fputs("</p>\n<div class=\"panels\">\n", f);
  for (int i = -1; i < s->space.n; i++) {
    const struct space_param *sp = i >= 0 ? &s->space.p[i] : NULL;
    int categorical = sp && (sp->dist == FOX_DIST_CATEGORICAL || sp->dist == FOX_DIST_FIXED);
    int log_scale = 0;
    if (sp && !categorical) {
      double lo, hi, step;
      space_numeric(sp, &lo, &hi, &step, &log_scale);
    }
    struct svg g = {.right = 10, .top = 8, .em = 12};
    g.x = (struct svg_axis){.lo = -0.5, .hi = s->generations - 0.5, .integer = 1};
    long m = 0;
    for (int k = 0; k < s->n; k++) {
      const struct study_trial *t = &s->trials[k];
      double v = sp ? t->x[i] : page_objective(s, t);
      if (t->status != FOX_ST_RUNNING && isfinite(v))
        y[m++] = v;
    }
    g.y.log = log_scale;
    svg_axis_fit(&g.y, y, m, log_scale ? 1.1 : 0.06);
    if (categorical)
      g.y = (struct svg_axis){.lo = -0.5, .hi = sp->n_choices - 0.5, .integer = 1};
    snprintf(title, sizeof title, "%s by generation", sp ? sp->key : label);
    fputs("<figure>", f);
    svg_begin(&g, page_fig(w), 300, 210, title);
    svg_axes(&g, "generation", sp ? sp->key : label, NULL, 0);
    struct svg_titles tt = {id, page_point_title, s, PAGE_TITLES_MAX};
    for (int ex = 0; ex < 2; ex++) {
      long q = 0;
      for (int k = 0; k < s->n; k++) {
        const struct study_trial *t = &s->trials[k];
        double v = sp ? t->x[i] : page_objective(s, t);
        if (t->status != FOX_ST_RUNNING && isfinite(v) && t->exploited == ex)
          id[q] = k, x[q] = t->generation, y[q++] = v;
      }
      svg_marks_title(&g, x, y, q, ex ? 'x' : 'o', ex ? "ex" : "seg", &tt);
    }
    long q = 0;
    for (int k = 0; k < n; k++) {
      const struct study_trial *t = &s->trials[ids[k]];
      x[q] = t->generation, y[q++] = sp ? t->x[i] : page_objective(s, t);
    }
    svg_line(&g, x, y, q, "best");
    svg_end(&g);
    char what[FOX_NAME_LEN + 32];
    snprintf(what, sizeof what, "%s%s", sp ? sp->key : label,
             categorical ? " (by choice index)" : log_scale ? " (log scale)" : "");
    page_panel_end(w, &g, what);
  }
  fputs("</div>\n", f);
  free(x), free(y), free(id);
  return page_fig_end(w, e);
}

/* Every trial's objective by id, marked by status, and the best complete one so far as steps. */
int plots_history(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  char label[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, label, sizeof label);
  fputs("<h2 id=\"history\">History</h2>\n", f);
  size_t n = (size_t)(s->n ? s->n : 1);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  double *bx = malloc((2 * n + 1) * sizeof *bx), *by = malloc((2 * n + 1) * sizeof *by);
  if (!x || !y || !bx || !by) {
    free(x), free(y), free(bx), free(by);
    return -1;
  }
  int count[4] = {0, 0, 0, 0}, nb = 0, max = s->cfg.study.direction == FOX_MAXIMIZE, rc = 0;
  double best = NAN;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    y[i] = page_objective(s, t);
    x[i] = t->id;
    if (isnan(y[i])) {
      count[FOX_ST_FAILED] += t->status == FOX_ST_FAILED;
      continue;
    }
    count[t->status]++;
    /* the best so far as study_best sees it: feasible complete trials only */
    if (t->status == FOX_ST_COMPLETE && study_feasible(s, t) == 1 &&
        (isnan(best) || (max ? y[i] > best : y[i] < best))) {
      if (nb > 0) { /* a step: along at the old best, then up or down */
        bx[nb] = t->id, by[nb++] = best;
      }
      best = y[i];
      bx[nb] = t->id, by[nb++] = best;
    }
  }
  if (nb > 0)
    bx[nb] = s->n - 1, by[nb++] = best; /* carried to the last trial */
  if (count[FOX_ST_COMPLETE] + count[FOX_ST_PRUNED] + count[FOX_ST_RUNNING] == 0) {
    fputs("<p>", f);
    page_esc(f, "No trial has a value of %s yet.", s->metric_names[s->objective]);
    fputs("</p>\n", f);
  } else {
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = (struct svg_axis){.lo = -0.5, .hi = s->n - 0.5, .integer = 1};
    svg_axis_fit(&g.y, y, s->n, 0.05);
    fputs("<figure class=\"wide\">", f);
    char title[256];
    snprintf(title, sizeof title, "%s of each trial by id", s->metric_names[s->objective]);
    page_fig_start(w, "history", title);
    svg_begin(&g, page_fig(w), 600, 330, title);
    svg_axes(&g, "trial id", label, NULL, 0);
    double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    int *id = malloc(n * sizeof *id);
    if (!px || !py || !id) {
      free(px), free(py), free(id), free(x), free(y), free(bx), free(by);
      return -1;
    }
    static const int order[3] = {FOX_ST_RUNNING, FOX_ST_PRUNED, FOX_ST_COMPLETE};
    struct svg_titles tt = {id, page_point_title, s, PAGE_TITLES_MAX};
    for (int o = 0; o < 3; o++) {
      int st = order[o];
      long m = 0;
      for (int i = 0; i < s->n; i++)
        if (s->trials[i].status == st && !isnan(y[i]))
          id[m] = i, px[m] = x[i], py[m++] = y[i];
      svg_marks_title(&g, px, py, m, st == FOX_ST_RUNNING ? 'x' : 'o', page_mark_cls[st], &tt);
    }
    free(px), free(py), free(id);
    svg_line(&g, bx, by, nb, "best");
    svg_end(&g);
    page_fig_part(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    char text[128];
    snprintf(text, sizeof text, "complete (%d)", count[FOX_ST_COMPLETE]);
    page_key(w, "o", "c", text);
    if (count[FOX_ST_PRUNED]) {
      snprintf(text, sizeof text, "pruned, at its last epoch (%d)", count[FOX_ST_PRUNED]);
      page_key(w, "o", "p", text);
    }
    if (count[FOX_ST_RUNNING]) {
      snprintf(text, sizeof text, "running, at its last epoch (%d)", count[FOX_ST_RUNNING]);
      page_key(w, "x", "r", text);
    }
    if (nb > 0)
      page_key(w, "-", "best", "best complete so far");
    page_esc(f, "(%s, %s)", s->metric_names[s->objective], max ? "maximize" : "minimize");
    if (count[FOX_ST_FAILED]) {
      page_esc(f, "; %d failed trial%s without a value", count[FOX_ST_FAILED],
               count[FOX_ST_FAILED] > 1 ? "s" : "");
      page_fig_note(w, "%d failed trial%s without a value.", count[FOX_ST_FAILED],
                    count[FOX_ST_FAILED] > 1 ? "s" : "");
    }
    if (s->n > PAGE_TITLES_MAX)
      page_fig_note(w, "Hover titles on the first %d trials' points.", PAGE_TITLES_MAX);
    fputs("</figcaption></figure>\n", f);
    rc = page_fig_end(w, e);
  }
  free(x), free(y), free(bx), free(by);
  return rc;
}

#define CURVES_MAX_ 2000 /* lines drawn: a larger study's first ones, and the page says so */

/* Learning curves: each trial's objective by epoch (report_intermediate, the values the Optuna
 * journal exports as intermediate values), a line a trial ending where it stopped (a pruned
 * one at its rung), the rungs drawn; each line's title names the trial and its parameters. A
 * pbt study has its own section; a multi-objective one none. */
int plots_curves(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  if (s->n_obj != 1 || s->cfg.study.scheduler == FOX_SCHED_PBT || s->n == 0)
    return 0;
  FILE *f = w->f;
  int cap = s->plan_epochs + 1, nt = s->n < CURVES_MAX_ ? s->n : CURVES_MAX_;
  int *steps = malloc((size_t)cap * sizeof *steps), *len = calloc((size_t)nt, sizeof *len);
  double *xs = malloc((size_t)nt * (size_t)cap * sizeof *xs);
  double *ys = malloc((size_t)nt * (size_t)cap * sizeof *ys);
  if (!steps || !len || !xs || !ys) {
    free(steps), free(len), free(xs), free(ys);
    return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
  }
  const char *unit;
  double scale = report_metric_scale(s, s->objective, &unit);
  int rc = 0, missing = 0, longest = 0, running = 0;
  for (int i = 0; rc == 0 && i < nt; i++) {
    int from_curve;
    double *y = ys + (size_t)i * cap;
    rc = report_intermediate(s, w->p->outdir, &s->trials[i], steps, y, &len[i], &from_curve,
                             &missing, e);
    if (s->trials[i].status == FOX_ST_FAILED)
      len[i] = 0; /* not drawn: neither on the axis */
    for (int k = 0; rc == 0 && k < len[i]; k++) {
      xs[(size_t)i * cap + k] = steps[k];
      y[k] *= scale;
    }
    longest = len[i] > longest ? len[i] : longest;
  }
  if (rc == 0 && longest > 1) { /* a curve at all: some trial has two points */
    char label[FOX_NAME_LEN + 8], title[256], tt[1024];
    report_metric_label(s, s->objective, label, sizeof label);
    fputs("<h2 id=\"curves\">Learning curves</h2>\n<figure class=\"wide\">", f);
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = (struct svg_axis){.lo = 0.5, .hi = s->plan_epochs + 0.5, .integer = 1};
    long m = 0; /* every value, packed, for the axis */
    double *all = malloc((size_t)nt * (size_t)cap * sizeof *all);
    if (!all) {
      free(steps), free(len), free(xs), free(ys);
      return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
    }
    for (int i = 0; i < nt; i++)
      for (int k = 0; k < len[i]; k++)
        all[m++] = ys[(size_t)i * cap + k];
    svg_axis_fit(&g.y, all, m, 0.05);
    free(all);
    snprintf(title, sizeof title, "%s of each trial by epoch", s->metric_names[s->objective]);
    page_fig_start(w, "curves", title);
    svg_begin(&g, page_fig(w), 600, 330, title);
    svg_axes(&g, "epoch", label, NULL, 0);
    for (int k = 0; k + 1 < s->plan.n; k++) /* the rungs where the scheduler decides */
      svg_vline(&g, s->plan.epochs[k], "rung");
    static const int order[3] = {FOX_ST_PRUNED, FOX_ST_RUNNING, FOX_ST_COMPLETE};
    for (int o = 0; o < 3; o++)
      for (int i = 0; i < nt; i++) {
        const struct study_trial *t = &s->trials[i];
        if (t->status != order[o] || len[i] == 0)
          continue;
        char cls[8];
        snprintf(cls, sizeof cls, "lc %s", page_mark_cls[t->status]);
        page_trial_title(s, t, tt, sizeof tt);
        const double *x = xs + (size_t)i * cap, *y = ys + (size_t)i * cap;
        if (len[i] == 1) /* one point: its mark alone */
          svg_marks(&g, x, y, 1, 'o', page_mark_cls[t->status]);
        else
          svg_line_title(&g, x, y, len[i], cls, tt);
        if (t->status == FOX_ST_PRUNED && len[i] > 1) /* where it stopped */
          svg_marks(&g, x + len[i] - 1, y + len[i] - 1, 1, 'o', "p");
        running += t->status == FOX_ST_RUNNING;
      }
    svg_end(&g);
    page_fig_part(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    page_key(w, "-", "lc c", "complete");
    page_key(w, "-", "lc p", "pruned (o where it stopped)");
    if (running)
      page_key(w, "-", "lc r", "running");
    if (s->plan.n > 1)
      page_key(w, "-", "rung", "rungs");
    page_esc(f, "(%s, %s; hover a line for its trial and parameters)", s->metric_names[s->objective],
         s->cfg.study.direction == FOX_MAXIMIZE ? "maximize" : "minimize");
    if (nt < s->n) {
      page_esc(f, "; the first %d of %d trials", nt, s->n);
      page_fig_note(w, "The first %d of %d trials.", nt, s->n);
    }
    if (missing) {
      page_esc(f, "; %d trial file%s missing: those trials show their rungs only", missing,
               missing > 1 ? "s" : "");
      page_fig_note(w, "%d trial file%s missing: those trials show their rungs only.", missing,
                    missing > 1 ? "s" : "");
    }
    fputs("</figcaption></figure>\n", f);
    rc = page_fig_end(w, e);
  }
  if (rc == 0 && longest <= 1 && !s->cfg.study.function && !report_curves_aggregate(s))
    page_note(w, "no learning curves: with several cells (repeats x folds) and the %s aggregate, "
          "a trial's objective is known at its rungs only, not epoch by epoch",
          config_aggregate_names[s->cfg.study.aggregate]);
  free(steps), free(len), free(xs), free(ys);
  return rc;
}

#define TIMELINE_MAX_ 2000 /* rows drawn, as the learning curves */

/* The timeline: each row a bar from its first segment's start to its last one's end (UTC, as
 * trials.csv's start and end), by status, at its id; several ranks' trials overlap in time. A
 * row whose repeats resumed in a later run spans the pause. */
int plots_timeline(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int nt = s->n < TIMELINE_MAX_ ? s->n : TIMELINE_MAX_, shown = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < nt; k++) {
    const struct study_trial *t = &s->trials[k];
    if (!isfinite(t->start) || !isfinite(t->end))
      continue;
    lo = t->start < lo ? t->start : lo;
    hi = t->end > hi ? t->end : hi;
    shown++;
  }
  if (shown == 0) {
    if (s->n > 0)
      page_note(w, "no timeline: no trial has a recorded start (a study.h5 written before foxopt "
               "recorded times, or no trial has run)");
    return 0;
  }
  if (hi - lo < 2) { /* a short study: two seconds at least, for ticks to mark */
    double mid = (lo + hi) / 2;
    lo = mid - 1, hi = mid + 1;
  }
  char tt[1200], when[2][32];
  fputs("<h2 id=\"timeline\">Timeline</h2>\n<figure class=\"wide\">", f);
  struct svg g = {.right = 12, .top = 10, .em = 17};
  g.x = (struct svg_axis){.lo = lo - 0.02 * (hi - lo), .hi = hi + 0.02 * (hi - lo), .time = 1};
  g.y = (struct svg_axis){.lo = -0.5, .hi = nt - 0.5, .integer = 1};
  double h = 90 + 4.0 * nt;
  page_fig_start(w, "timeline", "each trial's start and end (UTC)");
  svg_begin(&g, page_fig(w), 600, h < 220 ? 220 : h > 640 ? 640 : h, "each trial's start and end (UTC)");
  svg_axes(&g, "UTC", "trial", NULL, 0);
  int running = 0, pruned = 0, failed = 0;
  for (int k = 0; k < nt; k++) {
    const struct study_trial *t = &s->trials[k];
    if (!isfinite(t->start) || !isfinite(t->end))
      continue;
    double x[2] = {t->start, t->end}, y[2] = {t->id, t->id};
    for (int j = 0; j < 2; j++) {
      time_t sec = (time_t)floor(x[j]);
      struct tm m;
      if (!gmtime_r(&sec, &m) || !strftime(when[j], sizeof when[j], "%Y-%m-%d %H:%M:%S", &m))
        snprintf(when[j], sizeof when[j], "?");
    }
    page_trial_title(s, t, tt, sizeof tt);
    size_t at = strlen(tt);
    /* the end's date only when it is another day's; seconds of work as a plain number */
    int same_day = strncmp(when[0], when[1], 10) == 0 && strlen(when[1]) > 11;
    snprintf(tt + at, sizeof tt - at, "; %s to %s UTC, %.*f s of work", when[0],
             same_day ? when[1] + 11 : when[1], t->seconds < 100 ? 3 : 0,
             t->seconds);
    char cls[16];
    snprintf(cls, sizeof cls, "tl %s", t->status == FOX_ST_FAILED ? "f" : page_mark_cls[t->status]);
    svg_line_title(&g, x, y, 2, cls, tt);
    running += t->status == FOX_ST_RUNNING;
    pruned += t->status == FOX_ST_PRUNED;
    failed += t->status == FOX_ST_FAILED;
  }
  svg_end(&g);
  page_fig_part(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  page_key(w, "-", "tl c", "complete");
  if (pruned)
    page_key(w, "-", "tl p", "pruned");
  if (failed)
    page_key(w, "-", "tl f", "failed");
  if (running)
    page_key(w, "-", "tl r", "running");
  page_esc(f, "(from its first start to its last end: a trial resumed later spans the pause; hover "
          "a bar for its trial)");
  if (nt < s->n) {
    page_esc(f, "; the first %d of %d trials", nt, s->n);
    page_fig_note(w, "The first %d of %d trials.", nt, s->n);
  }
  int untimed = 0; /* run, but in a study.h5 from before times */
  for (int k = 0; k < nt; k++)
    untimed += !isfinite(s->trials[k].start) && s->trials[k].rep[0].rank >= 0;
  if (untimed) {
    page_esc(f, "; %d trial%s that ran before foxopt recorded times left out", untimed,
             untimed > 1 ? "s" : "");
    page_fig_note(w, "%d trial%s that ran before foxopt recorded times left out.", untimed,
                  untimed > 1 ? "s" : "");
  }
  fputs("</figcaption></figure>\n", f);
  return page_fig_end(w, e);
}

/* Where value v of parameter p sits on its parallel-coordinates axis, 0 (min, first choice)
 * to 1 (max, last choice); NaN when inactive. */
static double pc_pos_(const struct space_param *p, double v) {
  if (isnan(v))
    return NAN;
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED)
    return p->n_choices > 1 ? v / (p->n_choices - 1) : 0.5;
  double lo, hi, step;
  int log_scale;
  space_numeric(p, &lo, &hi, &step, &log_scale);
  if (!(hi > lo))
    return 0.5;
  return log_scale ? (log(v) - log(lo)) / (log(hi) - log(lo)) : (v - lo) / (hi - lo);
}

/* Parallel coordinates: a line through every parameter's axis and the objective's for each
 * complete trial (a pruned one's value is of a smaller budget), each axis from its minimum to
 * its maximum, the best trial in red; a title on each line names the trial, its parameters and
 * its value. */
int plots_parallel(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int na = s->space.n + 1, shown = 0, best = study_best(s);
  if (s->space.n == 0 || s->n_obj != 1)
    return 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < s->n; k++) {
    double v = page_objective(s, &s->trials[k]);
    if (s->trials[k].status != FOX_ST_COMPLETE || isnan(v))
      continue;
    lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    shown++;
  }
  if (shown == 0)
    return 0;
  double *x = malloc((size_t)na * sizeof *x), *y = malloc((size_t)na * sizeof *y);
  const char **labels = malloc((size_t)na * sizeof *labels);
  if (!x || !y || !labels) {
    free(x), free(y), free(labels);
    return -1;
  }
  char vlabel[FOX_NAME_LEN + 8], tt[1024], num[64];
  report_metric_label(s, s->objective, vlabel, sizeof vlabel);
  for (int i = 0; i < s->space.n; i++)
    labels[i] = s->space.p[i].key;
  labels[na - 1] = vlabel;
  fputs("<h2 id=\"parallel\">Parallel coordinates</h2>\n<figure class=\"wide\">", f);
  /* every axis named: wider with many, the page scales it down */
  struct svg g = {.right = 16, .top = 16, .em = 17, .all_labels = 1};
  g.x = (struct svg_axis){.lo = -0.25, .hi = na - 0.75, .log = 0};
  /* room inside the frame for each axis's end labels, above and below the lines */
  g.y = (struct svg_axis){.lo = -0.1, .hi = 1.1, .log = 0};
  page_fig_start(w, "parallel", "each complete trial's parameters and objective");
  svg_begin(&g, page_fig(w), na * 110 > 600 ? na * 110 : 600, 330,
            "each complete trial's parameters and objective");
  svg_axes(&g, NULL, "min to max of each axis", labels, na);
  for (int i = 0; i < na; i++) { /* each axis's ends */
    double a = lo, b = hi;
    if (i < s->space.n && (s->space.p[i].dist == FOX_DIST_CATEGORICAL ||
                           s->space.p[i].dist == FOX_DIST_FIXED)) {
      svg_text(&g, svg_px(&g, i), svg_py(&g, 0) + 12, "middle", "pc-end", s->space.p[i].choice[0]);
      svg_text(&g, svg_px(&g, i), svg_py(&g, 1) - 4, "middle", "pc-end",
               s->space.p[i].choice[s->space.p[i].n_choices - 1]);
      continue;
    }
    if (i < s->space.n) {
      double step;
      int log_scale;
      space_numeric(&s->space.p[i], &a, &b, &step, &log_scale);
    }
    snprintf(num, sizeof num, "%.4g", a);
    svg_text(&g, svg_px(&g, i), svg_py(&g, 0) + 12, "middle", "pc-end", num);
    snprintf(num, sizeof num, "%.4g", b);
    svg_text(&g, svg_px(&g, i), svg_py(&g, 1) - 4, "middle", "pc-end", num);
  }
  for (int pass = 0; pass < 2; pass++) /* the best last, on top */
    for (int k = 0; k < s->n; k++) {
      const struct study_trial *t = &s->trials[k];
      double v = page_objective(s, t);
      if (t->status != FOX_ST_COMPLETE || isnan(v) || (k == best) != pass)
        continue;
      for (int i = 0; i < s->space.n; i++)
        x[i] = i, y[i] = pc_pos_(&s->space.p[i], t->x[i]);
      x[na - 1] = na - 1, y[na - 1] = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      page_trial_title(s, t, tt, sizeof tt);
      size_t at = strlen(tt);
      snprintf(tt + at, sizeof tt - at, "; %s %.6g", s->metric_names[s->objective], v);
      svg_line_title(&g, x, y, na, k == best ? "pc top" : "pc", tt);
      for (int i = 0; i < na; i++) /* a value between inactive ones is no segment: a dot */
        if (!isnan(y[i]) && (i == 0 || isnan(y[i - 1])) && (i == na - 1 || isnan(y[i + 1])))
          svg_marks(&g, x + i, y + i, 1, 'o', k == best ? "front" : "c");
    }
  svg_end(&g);
  page_fig_part(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  page_key(w, "-", "pc", "a complete trial");
  if (best >= 0)
    page_key(w, "-", "pc top", "the best");
  page_esc(f, "(%d complete trials; an inactive parameter breaks its line; hover a line for its "
          "trial)", shown);
  fputs("</figcaption></figure>\n", f);
  free(x), free(y), free(labels);
  return page_fig_end(w, e);
}

/* Parameter importance (PED-ANOVA, importance.h): a bar per parameter, largest first, for
 * each objective; a title on each bar gives its figure, rank and note. Where there are no
 * figures, the sentence the text report gives. */
/* The parameters' notes for the figure's files, one line a note ("a, b and 3 more: one value in
 * its domain."), in rank order: a study of many fixed parameters keeps every line. */
static void notes_(struct page *w, const struct study *s, const struct importance *im,
                   const int *order, int k) {
  int done[FOX_SPACE_MAX] = {0};
  char note[96], other[96], keys[240];
  for (int q = 0; q < k; q++) {
    if (done[q] || report_importance_note(im, order[q], note, sizeof note) <= 0)
      continue;
    int named = 0, more = 0;
    size_t at = 0;
    keys[0] = '\0';
    for (int r = q; r < k; r++) {
      if (done[r] || (report_importance_note(im, order[r], other, sizeof other),
                      strcmp(note, other) != 0))
        continue;
      done[r] = 1;
      const char *key = s->space.p[order[r]].key;
      if (at + strlen(key) + 3 < 160) {
        at += (size_t)snprintf(keys + at, sizeof keys - at, "%s%s", named ? ", " : "", key);
        named++;
      } else {
        more++;
      }
    }
    if (more)
      snprintf(keys + at, sizeof keys - at, " and %d more", more);
    page_fig_note(w, "%s: %s.", keys, note);
  }
}

int plots_importance(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  if (s->space.n == 0 || s->n == 0)
    return 0;
  int np = s->space.n;
  struct importance im;
  const char *labels[FOX_SPACE_MAX];
  char line[256], note[96], tt[512];
  fputs("<h2 id=\"importance\">Parameter importance</h2>\n", f);
  for (int j = 0; j < s->n_obj; j++) {
    FOX_TRY(report_importance(s, j, &im, e));
    const char *obj = s->metric_names[s->obj_metric[j]];
    report_importance_status(&im, line, sizeof line);
    if (!report_importance_table(&im)) {
      fputs("<p>", f);
      if (im.status != FOX_IMP_PBT)
        page_esc(f, "%s: ", obj);
      page_esc(f, "%s.", line);
      fputs("</p>\n", f);
      if (im.status == FOX_IMP_PBT)
        return 0;
      continue;
    }
    int order[FOX_SPACE_MAX], k = 0;
    for (int r = 1; r <= np; r++) /* by rank, ties in the space's order (the text report's) */
      for (int i = 0; i < np; i++)
        if (im.rank[i] == r)
          order[k++] = i;
    for (int q = 0; q < k; q++)
      labels[q] = s->space.p[order[q]].key;
    fputs("<figure class=\"wide\">", f);
    struct svg g = {.right = 12, .top = 10, .em = 17, .all_labels = 1};
    g.x = (struct svg_axis){.lo = -0.6, .hi = k - 0.4};
    g.y = (struct svg_axis){.lo = 0, .hi = 1};
    char title[160], name[FOX_NAME_LEN + 16];
    snprintf(title, sizeof title, "importance of each parameter for %s", obj);
    if (s->n_obj > 1)
      snprintf(name, sizeof name, "importance-%s", obj);
    else
      snprintf(name, sizeof name, "importance");
    page_fig_start(w, name, title);
    /* room for a label of 12 characters under each bar (svg_axes cuts longer ones) */
    svg_begin(&g, page_fig(w), k * 130 > 600 ? k * 130 : 600, 300, title);
    svg_axes(&g, NULL, im.status == FOX_IMP_ZERO ? "importance (all 0)" : "importance (sums to 1)",
             labels, k);
    for (int q = 0; q < k; q++) {
      int i = order[q];
      report_importance_note(&im, i, note, sizeof note);
      snprintf(tt, sizeof tt, "%s: %.4f, rank %d%s%s", s->space.p[i].key, im.imp[i], im.rank[i],
               note[0] ? "; " : "", note);
      svg_bar_title(&g, q - 0.35, q + 0.35, im.imp[i], "bar", tt);
    }
    svg_end(&g);
    page_fig_part(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    page_esc(f, "%s (%s): PED-ANOVA (Watanabe et al. 2023; Optuna's default evaluator): how far "
            "each parameter's values among the best %.0f %% of the complete trials depart from "
            "its values among all of them; %s. It ranks where the good trials concentrate, not "
            "how much a parameter changes the objective; hover a bar for its figure.",
         obj, s->obj_dir[j] == FOX_MAXIMIZE ? "maximize" : "minimize", 100 * FOX_IMP_QUANTILE,
         line);
    page_fig_note(w, "PED-ANOVA (Optuna's default evaluator) on %s: %s.", obj, line);
    notes_(w, s, &im, order, k);
    fputs("</figcaption></figure>\n", f);
    FOX_TRY(page_fig_end(w, e));
  }
  return 0;
}

/* One small plot per parameter: the objective against it, categories by choice, log_uniform on
 * a log axis. */
int plots_params(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  fputs("<h2 id=\"params\">Each parameter against the objective</h2>\n", f);
  if (s->space.n == 0) {
    fputs("<p>The study searches no parameter.</p>\n", f);
    return 0;
  }
  size_t n = (size_t)(s->n ? s->n : 1);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  int *id = malloc(n * sizeof *id);
  if (!x || !y || !id) {
    free(x), free(y), free(id);
    return -1;
  }
  char label[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, label, sizeof label);
  int count[4] = {0, 0, 0, 0};
  for (int k = 0; k < s->n; k++)
    count[s->trials[k].status] += !isnan(page_objective(s, &s->trials[k]));
  char ftitle[FOX_NAME_LEN + 64];
  snprintf(ftitle, sizeof ftitle, "%s against each parameter", s->metric_names[s->objective]);
  page_fig_start(w, "params", ftitle);
  fputs("<p class=\"legend\">", f);
  if (count[FOX_ST_COMPLETE])
    page_key(w, "o", "c", "complete");
  if (count[FOX_ST_PRUNED])
    page_key(w, "o", "p", "pruned");
  if (count[FOX_ST_RUNNING])
    page_key(w, "x", "r", "running");
  fputs("</p>\n<div class=\"panels\">\n", f);
  for (int i = 0; i < s->space.n; i++) {
    const struct space_param *sp = &s->space.p[i];
    int categorical = sp->dist == FOX_DIST_CATEGORICAL || sp->dist == FOX_DIST_FIXED;
    struct svg g = {.right = 10, .top = 8, .em = 12};
    double lo, hi, step;
    int log_scale = 0;
    if (categorical) {
      g.x = (struct svg_axis){.lo = -0.5, .hi = sp->n_choices - 0.5, .log = 0};
    } else {
      space_numeric(sp, &lo, &hi, &step, &log_scale);
      double pad = log_scale ? pow(hi / lo, 0.03) : 0.03 * (hi - lo);
      g.x = log_scale ? (struct svg_axis){.lo = lo / pad, .hi = hi * pad, .log = 1}
                      : (struct svg_axis){.lo = lo - pad, .hi = hi + pad, .log = 0};
      if (!(g.x.hi > g.x.lo))
        g.x = (struct svg_axis){.lo = lo - 1, .hi = hi + 1, .log = 0};
    }
    long m = 0;
    for (int k = 0; k < s->n; k++) {
      double v = page_objective(s, &s->trials[k]);
      if (!isnan(v) && !isnan(s->trials[k].x[i]))
        y[m++] = v;
    }
    svg_axis_fit(&g.y, y, m, 0.06);
    char title[FOX_NAME_LEN + 64];
    snprintf(title, sizeof title, "%s against %s", s->metric_names[s->objective], sp->key);
    fputs("<figure>", f);
    svg_begin(&g, page_fig(w), 300, 210, title);
    const char *labels[FOX_CHOICES_MAX];
    for (int c = 0; categorical && c < sp->n_choices; c++)
      labels[c] = sp->choice[c];
    svg_axes(&g, NULL, label, categorical ? labels : NULL, categorical ? sp->n_choices : 0);
    if (m == 0)
      svg_text(&g, (g.left + g.w - g.right) / 2, (g.top + g.h - g.bottom) / 2, "middle", "lab",
               "no trial with a value had it active");
    static const int order[3] = {FOX_ST_RUNNING, FOX_ST_PRUNED, FOX_ST_COMPLETE};
    struct page_panel panel = {s, i};
    struct svg_titles tt = {id, page_panel_title, &panel, PAGE_TITLES_MAX};
    for (int o = 0; o < 3; o++) {
      long q = 0;
      for (int k = 0; k < s->n; k++) {
        const struct study_trial *t = &s->trials[k];
        double v = page_objective(s, t);
        if (t->status == order[o] && !isnan(v) && !isnan(t->x[i]))
          id[q] = k, x[q] = t->x[i], y[q++] = v;
      }
      svg_marks_title(&g, x, y, q, order[o] == FOX_ST_RUNNING ? 'x' : 'o',
                      page_mark_cls[order[o]], &tt);
    }
    svg_end(&g);
    char cap[FOX_NAME_LEN + 16];
    snprintf(cap, sizeof cap, "%s%s", sp->key,
             categorical ? " (by choice)" : log_scale ? " (log scale)" : "");
    page_panel_end(w, &g, cap);
  }
  fputs("</div>\n", f);
  free(x), free(y), free(id);
  return page_fig_end(w, e);
}
