/* The report's plots: each writes its data files and a gnuplot script into the temporary
 * directory, runs gnuplot there, and renames the finished PNG into OUTDIR. */
#include "report/report_plot.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/dataset.h"
#include "report/pbt_report.h"
#include "study/rankfile.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/gnuplot.h"
#include "util/h5io.h"

#define PATH_LEN_ 4200

struct plot_ {
  const struct study *s;
  const int *order;
  const char *outdir;
  FILE *out, *notes;
  char dir[4096]; /* the temporary directory (leaves room for the names in it) */
};

/* How each status is drawn; failed trials have no value to draw. */
static const char *const style_[4] = {
    [FOX_ST_COMPLETE] = "pt 7 ps 1.1 lc rgb '#1f77b4'",
    [FOX_ST_PRUNED] = "pt 6 ps 1.1 lc rgb '#ff7f0e'",
    [FOX_ST_FAILED] = "pt 1 lc rgb '#000000'", /* not drawn */
    [FOX_ST_RUNNING] = "pt 2 ps 1.1 lc rgb '#7f7f7f'",
};

static void tmp_path_(const struct plot_ *p, const char *name, char *buf) {
  snprintf(buf, PATH_LEN_, "%s/%s", p->dir, name);
}

static FILE *open_(const char *path, struct fox_err *e) {
  FILE *f = fopen(path, "w");
  if (!f)
    fox_errf(e, FOX_EFAIL, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

static int close_(FILE *f, const char *path, struct fox_err *e) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad)
    return fox_errf(e, FOX_EFAIL, "%s: write failed: %s", path, strerror(errno));
  return 0;
}

/* The objective of trial t in the units the report shows it in; NaN when it has none to
 * draw (failed, not evaluated yet, or not finite). */
static double objective_(const struct study *s, const struct study_trial *t) {
  const char *unit;
  double v = t->metrics[s->objective] * report_metric_scale(s, s->objective, &unit);
  return t->status == FOX_ST_FAILED || t->epochs == 0 || !isfinite(v) ? NAN : v;
}

/* The script's start: pngcairo where this gnuplot has it, png otherwise; the image into the
 * temporary directory under the name it will have in OUTDIR. */
static void preamble_(FILE *g, const struct plot_ *p, const char *png, int w, int h) {
  char path[PATH_LEN_];
  tmp_path_(p, png, path);
  fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
             "  set terminal pngcairo size %d,%d noenhanced font ',10'\n"
             "} else {\n"
             "  set terminal png size %d,%d noenhanced\n"
             "}\nset output ", w, h, w, h);
  gnuplot_quote(g, path);
  /* autoscaled y axes end at the extreme points; a margin keeps those points whole */
  fputs("\nset grid\nset offsets 0, 0, graph 0.05, graph 0.05\n", g);
}

/* Runs the script and moves its PNG into OUTDIR. */
static int draw_(const struct plot_ *p, const char *script, const char *png, struct fox_err *e) {
  char log[PATH_LEN_], tmp[PATH_LEN_], dst[PATH_LEN_];
  tmp_path_(p, "gnuplot.log", log);
  tmp_path_(p, png, tmp);
  snprintf(dst, sizeof dst, "%s/%s", p->outdir, png);
  FOX_TRY(gnuplot_run(script, log, dst, e));
  struct stat st;
  if (stat(tmp, &st) != 0 || st.st_size == 0)
    return fox_errf(e, FOX_EFAIL, "%s: gnuplot finished without writing the image", dst);
  /* OUTDIR/NAME.png as any output: a link's target is written (never a file of the study), a
   * FIFO or device refused */
  struct fs_out o;
  FOX_TRY(fs_out_guard(dst, e));
  FOX_TRY(fs_out_begin(&o, dst, FS_OUT_FILE, e));
  if (rename(tmp, o.dst) != 0) {
    if (errno != EXDEV)
      return fox_errf(e, FOX_EFAIL, "%s: cannot be written: %s", dst, strerror(errno));
    /* a link to another file system: the image is copied beside its target and renamed */
    void *buf = NULL;
    size_t len = 0;
    FOX_TRY(fs_read_bytes(tmp, "the image gnuplot drew", &buf, &len, e));
    int rc = fs_write_file(dst, buf, len, e);
    free(buf);
    FOX_TRY(rc);
  }
  fprintf(p->out, "wrote %s\n", dst);
  return 0;
}

/* history.png: every trial's objective by id, marked by status, and the best complete trial
 * so far as a step line. */
static int history_(const struct plot_ *p, struct fox_err *e) {
  const struct study *s = p->s;
  char path[PATH_LEN_], label[FOX_NAME_LEN + 8];
  int count[4] = {0, 0, 0, 0};
  FILE *f[4] = {NULL, NULL, NULL, NULL};
  int rc = 0;
  for (int st = 0; rc == 0 && st < 4; st++) {
    if (st == FOX_ST_FAILED)
      continue;
    char name[32];
    snprintf(name, sizeof name, "history_%d.dat", st);
    tmp_path_(p, name, path);
    if (!(f[st] = open_(path, e)))
      rc = e->code;
  }
  tmp_path_(p, "best.dat", path);
  FILE *b = rc == 0 ? open_(path, e) : NULL;
  if (rc == 0 && !b)
    rc = e->code;
  double best = NAN;
  int max = s->cfg.study.direction == FOX_MAXIMIZE;
  for (int i = 0; rc == 0 && i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    double v = objective_(s, t);
    if (isnan(v))
      continue;
    fprintf(f[t->status], "%d %.17g\n", t->id, v);
    count[t->status]++;
    /* the best so far as study_best sees it: feasible complete trials only */
    if (t->status == FOX_ST_COMPLETE && study_feasible(s, t) == 1 &&
        (isnan(best) || (max ? v > best : v < best))) {
      best = v;
      fprintf(b, "%d %.17g\n", t->id, best);
    }
  }
  if (rc == 0 && !isnan(best))
    fprintf(b, "%d %.17g\n", s->n - 1, best); /* carried to the last trial */
  for (int st = 0; st < 4; st++) {
    char name[32];
    snprintf(name, sizeof name, "history_%d.dat", st);
    tmp_path_(p, name, path);
    if (f[st] && close_(f[st], path, e) != 0 && rc == 0)
      rc = e->code;
  }
  tmp_path_(p, "best.dat", path);
  if (b && close_(b, path, e) != 0 && rc == 0)
    rc = e->code;
  FOX_TRY(rc);
  report_metric_label(s, s->objective, label, sizeof label);
  if (count[0] + count[1] + count[3] == 0) {
    fprintf(p->notes, "note: history.png skipped: no trial has a value of %s yet\n",
            s->metric_names[s->objective]);
    return 0;
  }
  char script[PATH_LEN_];
  tmp_path_(p, "history.gp", script);
  FILE *g = open_(script, e);
  if (!g)
    return e->code;
  preamble_(g, p, "history.png", 960, 560);
  fprintf(g, "set title ");
  char title[512];
  int counts[4];
  report_count(s, counts);
  char failed[64] = "";
  if (counts[FOX_ST_FAILED])
    snprintf(failed, sizeof failed, "; %d failed trial%s without a value",
             counts[FOX_ST_FAILED], counts[FOX_ST_FAILED] > 1 ? "s" : "");
  snprintf(title, sizeof title, "study %s: %s of each trial (%s%s)", s->cfg.study.name,
           s->metric_names[s->objective], max ? "maximize" : "minimize", failed);
  gnuplot_quote(g, title);
  fprintf(g, "\nset xlabel 'trial id'\nset ylabel ");
  gnuplot_quote(g, label);
  fprintf(g, "\nset key below\nset xrange [-0.5:%d.5]\nplot ", s->n - 1);
  static const char *const what[4] = {[FOX_ST_COMPLETE] = "complete",
                                      [FOX_ST_PRUNED] = "pruned (value at its last epoch)",
                                      [FOX_ST_FAILED] = "failed",
                                      [FOX_ST_RUNNING] = "running (value at its last epoch)"};
  const char *sep = "";
  for (int st = 0; st < 4; st++) {
    if (!count[st])
      continue;
    char name[32];
    snprintf(name, sizeof name, "history_%d.dat", st);
    tmp_path_(p, name, path);
    fputs(sep, g);
    gnuplot_quote(g, path);
    fprintf(g, " using 1:2 with points %s title '%s'", style_[st], what[st]);
    sep = ", \\\n     ";
  }
  if (!isnan(best)) {
    tmp_path_(p, "best.dat", path);
    fputs(sep, g);
    gnuplot_quote(g, path);
    fprintf(g, " using 1:2 with steps lw 2 lc rgb '#d62728' title 'best complete so far'");
  }
  fputs("\nunset output\n", g);
  FOX_TRY(close_(g, script, e));
  return draw_(p, script, "history.png", e);
}

/* The evaluation equity of trial t from its trial file; *n = 0 and a note when there is none
 * to draw (a failed first epoch, a missing file, a segment newer than study.h5 records in a
 * study that is still running): the table and the other plots are worth having all the same. */
static int equity_read_(const struct plot_ *p, const struct study_trial *t, double **eq,
                        size_t *n, struct fox_err *e) {
  char path[PATH_LEN_], group[64] = "/", name[96] = "/backtest/equity";
  rankfile_trial_path(p->outdir, t->id, 0, path, sizeof path);
  *eq = NULL;
  *n = 0;
  struct fox_err why = {0};
  hid_t f;
  if (h5io_open_read(path, "a trial file from foxopt run", &f, &why) != 0) {
    fprintf(p->notes, "note: best_equity.png skipped: %s\n", why.msg);
    return 0;
  }
  int rc = 0, epochs = -1;
  size_t d0 = 0, d1 = 0;
  char shape[64];
  hid_t g = -1;
  int has = h5io_find(f, name, path, &why);
  if (has < 0)
    ;
  else if (!has)
    fox_errf(&why, FOX_EDATA, "%s: trial %d has no %s", path, t->id, name);
  else if ((g = H5Gopen2(f, group, H5P_DEFAULT)) < 0)
    h5io_fail(&why, FOX_EDATA, __FILE__, __LINE__, group);
  else if (h5io_attr_read(g, "epochs", H5T_NATIVE_INT, &epochs, 1, path, &why) != 0)
    ;
  else if (epochs != t->epochs)
    fox_errf(&why, FOX_EDATA, "%s holds epoch %d where study.h5 records %d (is the study "
             "still running?)", path, epochs, t->epochs);
  else if (h5io_dims(f, name, &d0, &d1, path, &why) != 0)
    ;
  else if (d1 != 0 || d0 < 2) {
    h5io_shape(d0, d1, shape, sizeof shape);
    fox_errf(&why, FOX_EDATA, "%s: %s has shape %s, expected a series of bars", path, name,
             shape);
  } else if (!(*eq = malloc(d0 * sizeof **eq)))
    rc = fox_errf(e, FOX_EFAIL, "%s: out of memory for %zu bars", path, d0);
  else if (h5io_read(f, name, H5T_NATIVE_DOUBLE, *eq, d0, 0, path, &why) == 0)
    *n = d0;
  if (g >= 0)
    H5Gclose(g);
  H5Fclose(f);
  if (rc == 0 && *n == 0) {
    free(*eq);
    *eq = NULL;
    fprintf(p->notes, "note: best_equity.png skipped: %s\n", why.msg);
  }
  return rc;
}

/* best_equity.png: the equity over the evaluation split of the first trial of the ranking. */
static int equity_(const struct plot_ *p, struct fox_err *e) {
  const struct study *s = p->s;
  if (s->cfg.study.function != 0) {
    fprintf(p->notes, "note: best_equity.png skipped: a test-function study has no equity "
                      "curve\n");
    return 0;
  }
  const struct study_trial *t = s->n > 0 ? &s->trials[p->order[0]] : NULL;
  if (!t || isnan(objective_(s, t)) || t->rank < 0) {
    fprintf(p->notes, "note: best_equity.png skipped: no trial has a value of %s yet\n",
            s->metric_names[s->objective]);
    return 0;
  }
  double *eq;
  size_t n;
  FOX_TRY(equity_read_(p, t, &eq, &n, e));
  if (n == 0)
    return 0;
  char data[PATH_LEN_], script[PATH_LEN_];
  tmp_path_(p, "equity.dat", data);
  tmp_path_(p, "equity.gp", script);
  FILE *f = open_(data, e);
  if (!f) {
    free(eq);
    return e->code;
  }
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%zu %.17g\n", i, eq[i]);
  double e0 = eq[0];
  free(eq);
  FOX_TRY(close_(f, data, e));
  FILE *g = open_(script, e);
  if (!g)
    return e->code;
  preamble_(g, p, "best_equity.png", 960, 540);
  const char *split = dataset_split_name(s->cfg.eval_split), *unit;
  int tr = metrics_find("total_return");
  double scale = report_metric_scale(s, s->objective, &unit);
  char title[512], text[256];
  /* With repeats the row is an aggregate: the curve is one of its seeds, and with folds it
   * restarts from the initial capital at each fold. */
  char which[96] = "";
  if (s->repeats > 1 || s->folds > 1)
    snprintf(which, sizeof which, " [curve: repeat 0%s]",
             s->folds > 1 ? ", each fold from the initial capital" : "");
  snprintf(title, sizeof title, "study %s, best trial %d (%s, %d epochs): %s = %.6g%s, "
           "total return %.3g%%%s", s->cfg.study.name, t->id, study_status_names[t->status],
           t->epochs, s->metric_names[s->objective], t->metrics[s->objective] * scale, unit,
           100.0 * t->metrics[tr], which);
  fputs("set title ", g);
  gnuplot_quote(g, title);
  snprintf(text, sizeof text, "bar of the %s split (%zu bars)", split, n);
  fputs("\nset xlabel ", g);
  gnuplot_quote(g, text);
  snprintf(text, sizeof text, "equity (initial capital %g)", e0);
  fputs("\nset ylabel ", g);
  gnuplot_quote(g, text);
  fprintf(g, "\nunset key\nset xrange [0:%zu]\n"
             "set arrow from graph 0, first %.17g to graph 1, first %.17g nohead dt 2 "
             "lc rgb '#7f7f7f'\nplot ", n - 1, e0, e0);
  gnuplot_quote(g, data);
  fputs(" using 1:2 with lines lw 1.5 lc rgb '#1f77b4'\nunset output\n", g);
  FOX_TRY(close_(g, script, e));
  return draw_(p, script, "best_equity.png", e);
}

/* One panel of params.png: parameter i against the objective, or a note that no trial with a
 * value had it active. Categorical parameters by choice index, log_uniform on a log axis. */
static int panel_(const struct plot_ *p, FILE *g, int i, struct fox_err *e) {
  const struct study *s = p->s;
  const struct space_param *sp = &s->space.p[i];
  char data[PATH_LEN_], name[32];
  snprintf(name, sizeof name, "param_%d.dat", i);
  tmp_path_(p, name, data);
  FILE *f = open_(data, e);
  if (!f)
    return e->code;
  int count[4] = {0, 0, 0, 0};
  for (int k = 0; k < s->n; k++) {
    const struct study_trial *t = &s->trials[k];
    double v = objective_(s, t);
    if (isnan(v) || isnan(t->x[i]))
      continue;
    fprintf(f, "%.17g %.17g %d\n", t->x[i], v, t->status);
    count[t->status]++;
  }
  FOX_TRY(close_(f, data, e));
  int categorical = sp->dist == FOX_DIST_CATEGORICAL || sp->dist == FOX_DIST_FIXED;
  double lo, hi, step;
  int log_scale = 0;
  fputs("unset logscale x\nset xtics autofreq\nset autoscale y\nset title ", g);
  gnuplot_quote(g, sp->key);
  if (categorical) {
    fprintf(g, "\nset xrange [-0.5:%d.5]\nset xtics (", sp->n_choices - 1);
    for (int c = 0; c < sp->n_choices; c++) {
      fputs(c ? ", " : "", g);
      gnuplot_quote(g, sp->choice[c]);
      fprintf(g, " %d", c);
    }
    fputs(")\n", g);
  } else {
    space_numeric(sp, &lo, &hi, &step, &log_scale);
    if (log_scale) {
      double pad = pow(hi / lo, 0.03);
      fprintf(g, "\nset logscale x\nset xrange [%.17g:%.17g]\n", lo / pad, hi * pad);
    } else {
      double pad = 0.03 * (hi - lo);
      fprintf(g, "\nset xrange [%.17g:%.17g]\n", lo - pad, hi + pad);
    }
  }
  if (count[0] + count[1] + count[3] == 0) {
    fputs("set yrange [0:1]\nset label 1 'no trial with a value had it active' at graph 0.5, "
          "graph 0.5 center\nplot -1 notitle\nunset label 1\n", g);
    return 0;
  }
  const char *sep = "plot ";
  for (int st = 0; st < 4; st++) {
    if (!count[st])
      continue;
    fputs(sep, g);
    gnuplot_quote(g, data);
    fprintf(g, " using 1:($3 == %d ? $2 : 1/0) with points %s notitle", st, style_[st]);
    sep = ", \\\n     ";
  }
  fputc('\n', g);
  return 0;
}

/* params.png: one panel per parameter, as many columns as rows or one more. */
static int params_(const struct plot_ *p, struct fox_err *e) {
  const struct study *s = p->s;
  int n = s->space.n, any = 0;
  for (int k = 0; k < s->n; k++)
    any |= !isnan(objective_(s, &s->trials[k]));
  if (n == 0 || !any) {
    fprintf(p->notes, "note: params.png skipped: %s\n",
            n == 0 ? "the study searches no parameter" : "no trial has a value yet");
    return 0;
  }
  int cols = (int)ceil(sqrt((double)n)), rows = (n + cols - 1) / cols;
  char script[PATH_LEN_], label[FOX_NAME_LEN + 8], title[512];
  tmp_path_(p, "params.gp", script);
  FILE *g = open_(script, e);
  if (!g)
    return e->code;
  preamble_(g, p, "params.png", cols * 440 > 640 ? cols * 440 : 640, rows * 330 + 50);
  report_metric_label(s, s->objective, label, sizeof label);
  snprintf(title, sizeof title, "study %s: %s against each parameter (filled: complete, open: "
           "pruned, x: running)", s->cfg.study.name, s->metric_names[s->objective]);
  fputs("unset key\nset ylabel ", g);
  gnuplot_quote(g, label);
  fprintf(g, "\nset multiplot layout %d,%d title ", rows, cols);
  gnuplot_quote(g, title);
  fputc('\n', g);
  int rc = 0;
  for (int i = 0; rc == 0 && i < n; i++)
    rc = panel_(p, g, i, e);
  fputs("unset multiplot\nunset output\n", g);
  if (close_(g, script, e) != 0 && rc == 0)
    rc = e->code;
  FOX_TRY(rc);
  return draw_(p, script, "params.png", e);
}

/* pbo_logits.png: the distribution of CSCV's logits of the in-sample best's out-of-sample rank;
 * the mass at or left of 0 is the PBO. */
static int logits_(const struct plot_ *p, const struct pbo_result *pbo, struct fox_err *e) {
  char path[PATH_LEN_], script[PATH_LEN_], title[512];
  tmp_path_(p, "logits.dat", path);
  FILE *f = open_(path, e);
  if (!f)
    return e->code;
  double lo = INFINITY, hi = -INFINITY;
  for (long c = 0; c < pbo->combos; c++) {
    fprintf(f, "%.17g\n", pbo->logits[c]);
    lo = pbo->logits[c] < lo ? pbo->logits[c] : lo;
    hi = pbo->logits[c] > hi ? pbo->logits[c] : hi;
  }
  FOX_TRY(close_(f, path, e));
  /* about 40 bins over the range, never narrower than 0.01 */
  double width = (hi - lo) / 40 > 0.01 ? (hi - lo) / 40 : 0.01;
  tmp_path_(p, "logits.gp", script);
  FILE *g = open_(script, e);
  if (!g)
    return e->code;
  preamble_(g, p, "pbo_logits.png", 800, 500);
  snprintf(title, sizeof title, "study %s: PBO = %.3f, the share of %ld CSCV splits (%d blocks) "
           "whose in-sample best ranks at or below the out-of-sample median (logit <= 0)",
           p->s->cfg.study.name, pbo->pbo, pbo->combos, pbo->blocks);
  fputs("set title ", g);
  gnuplot_quote(g, title);
  fprintf(g, "\nset xlabel 'logit of the out-of-sample relative rank of the in-sample best'\n"
             "set ylabel 'share of splits'\nset style fill solid 0.6\nunset key\n"
             "set arrow from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb '#d62728'\n"
             "w = %.17g\nbin(x) = w * floor(x / w) + w / 2\n"
             "plot ", width);
  gnuplot_quote(g, path);
  fprintf(g, " using (bin($1)):(1.0 / %ld) smooth frequency with boxes lc rgb '#1f77b4'\n"
             "unset output\n", pbo->combos);
  FOX_TRY(close_(g, script, e));
  return draw_(p, script, "pbo_logits.png", e);
}

/* pareto.png (a study with several objectives): every complete trial on the first two
 * objectives, feasible ones as dots, infeasible ones as crosses, and the Pareto front (report_front)
 * as red points joined in the order of the first objective. */
static int pareto_(const struct plot_ *p, struct fox_err *e) {
  const struct study *s = p->s;
  int *front = malloc((size_t)(s->n ? s->n : 1) * sizeof *front);
  mallocCheck(front, e);
  int nf = report_front(s, front);
  if (nf < 0) {
    free(front);
    return fox_errf(e, FOX_EFAIL, "out of memory for the Pareto front");
  }
  const char *ux, *uy;
  int mx = s->obj_metric[0], my = s->obj_metric[1];
  double sx = report_metric_scale(s, mx, &ux), sy = report_metric_scale(s, my, &uy);
  char path[3][PATH_LEN_];
  static const char *const names[3] = {"pareto_ok.dat", "pareto_bad.dat", "pareto_front.dat"};
  FILE *f[3] = {NULL, NULL, NULL};
  int rc = 0, count[3] = {0, 0, 0};
  for (int k = 0; rc == 0 && k < 3; k++) {
    tmp_path_(p, names[k], path[k]);
    if (!(f[k] = open_(path[k], e)))
      rc = e->code;
  }
  for (int i = 0; rc == 0 && i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    double x = t->metrics[mx] * sx, y = t->metrics[my] * sy;
    if (t->status != FOX_ST_COMPLETE || !isfinite(x) || !isfinite(y))
      continue;
    int k = study_feasible(s, t) == 1 ? 0 : 1;
    fprintf(f[k], "%.17g %.17g\n", x, y);
    count[k]++;
  }
  /* the front in the order of the first objective, so that its line does not zigzag */
  for (int a = 1; a < nf; a++)
    for (int b = a; b > 0 && s->trials[front[b]].metrics[mx] < s->trials[front[b - 1]].metrics[mx];
         b--) {
      int tmp = front[b];
      front[b] = front[b - 1], front[b - 1] = tmp;
    }
  for (int j = 0; rc == 0 && j < nf; j++) {
    const struct study_trial *t = &s->trials[front[j]];
    fprintf(f[2], "%.17g %.17g\n", t->metrics[mx] * sx, t->metrics[my] * sy);
    count[2]++;
  }
  free(front);
  for (int k = 0; k < 3; k++)
    if (f[k] && close_(f[k], path[k], e) != 0 && rc == 0)
      rc = e->code;
  FOX_TRY(rc);
  if (count[2] == 0) {
    fprintf(p->notes, "note: pareto.png skipped: no complete feasible trial yet\n");
    return 0;
  }
  char script[PATH_LEN_], label[FOX_NAME_LEN + 8], title[512];
  tmp_path_(p, "pareto.gp", script);
  FILE *g = open_(script, e);
  if (!g)
    return e->code;
  preamble_(g, p, "pareto.png", 900, 640);
  snprintf(title, sizeof title, "study %s: the Pareto front of %d complete trials (%s %s, %s %s)",
           s->cfg.study.name, count[0] + count[1], s->metric_names[mx],
           s->obj_dir[0] == FOX_MAXIMIZE ? "max" : "min", s->metric_names[my],
           s->obj_dir[1] == FOX_MAXIMIZE ? "max" : "min");
  fputs("set title ", g);
  gnuplot_quote(g, title);
  report_metric_label(s, mx, label, sizeof label);
  fputs("\nset xlabel ", g);
  gnuplot_quote(g, label);
  report_metric_label(s, my, label, sizeof label);
  fputs("\nset ylabel ", g);
  gnuplot_quote(g, label);
  fputs("\nset key outside bottom center horizontal\nplot ", g);
  int first = 1;
  static const char *const how[3] = {
      "with points pt 7 ps 0.9 lc rgb '#1f77b4' title 'feasible'",
      "with points pt 2 ps 0.9 lc rgb '#7f7f7f' title 'infeasible'",
      "with linespoints pt 7 ps 1.4 lw 2 lc rgb '#d62728' title 'Pareto front'"};
  for (int k = 0; k < 3; k++) {
    if (count[k] == 0)
      continue;
    fputs(first ? "" : ", ", g);
    gnuplot_quote(g, path[k]);
    fprintf(g, " using 1:2 %s", how[k]);
    first = 0;
  }
  fputs("\nunset output\n", g);
  FOX_TRY(close_(g, script, e));
  return draw_(p, script, "pareto.png", e);
}

/* One panel of pbt_schedule.png: every segment's value of parameter i (or the objective, i < 0)
 * by generation, exploits as crosses, and the best member's lineage as a bold step line. */
static int schedule_panel_(const struct plot_ *p, FILE *g, int i, const int *ids, int n,
                           struct fox_err *e) {
  const struct study *s = p->s;
  char all[PATH_LEN_], line[PATH_LEN_], name[32], label[FOX_NAME_LEN + 8];
  snprintf(name, sizeof name, "sched_%d.dat", i + 1);
  tmp_path_(p, name, all);
  snprintf(name, sizeof name, "best_%d.dat", i + 1);
  tmp_path_(p, name, line);
  FILE *f = open_(all, e);
  if (!f)
    return e->code;
  const struct space_param *sp = i >= 0 ? &s->space.p[i] : NULL;
  for (int k = 0; k < s->n; k++) {
    const struct study_trial *t = &s->trials[k];
    double v = sp ? space_number(sp, t->x[i]) : objective_(s, t);
    if (t->status != FOX_ST_RUNNING && !isnan(v))
      fprintf(f, "%d %.17g %d\n", t->generation, v, t->exploited);
  }
  FOX_TRY(close_(f, all, e));
  if (!(f = open_(line, e)))
    return e->code;
  for (int k = 0; k < n; k++) {
    const struct study_trial *t = &s->trials[ids[k]];
    double v = sp ? space_number(sp, t->x[i]) : objective_(s, t);
    if (!isnan(v))
      fprintf(f, "%d %.17g\n", t->generation, v);
  }
  FOX_TRY(close_(f, line, e));
  int log_scale = 0;
  if (sp && sp->dist != FOX_DIST_CATEGORICAL && sp->dist != FOX_DIST_FIXED) {
    double lo, hi, step;
    space_numeric(sp, &lo, &hi, &step, &log_scale);
  }
  if (sp)
    snprintf(label, sizeof label, "%s", sp->key);
  else
    report_metric_label(s, s->objective, label, sizeof label);
  fprintf(g, "%s\nset title ", log_scale ? "set logscale y" : "unset logscale y");
  gnuplot_quote(g, label);
  fprintf(g, "\nset xrange [-0.5:%d.5]\nset xtics %s\nplot ", s->generations - 1,
          s->generations <= 20 ? "1" : "autofreq");
  gnuplot_quote(g, all);
  fputs(" using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc rgb '#9ecae1' notitle, \\\n"
        "     ", g);
  gnuplot_quote(g, all);
  fputs(" using 1:($3 == 1 ? $2 : 1/0) with points pt 2 ps 0.9 lc rgb '#ff7f0e' notitle, \\\n"
        "     ", g);
  gnuplot_quote(g, line);
  fputs(" using 1:2 with linespoints lw 2.5 pt 7 lc rgb '#d62728' notitle\n", g);
  return 0;
}

/* pbt_schedule.png: the best member's objective and each parameter against the generation. */
static int schedule_(const struct plot_ *p, struct fox_err *e) {
  const struct study *s = p->s;
  int *ids = malloc((size_t)s->generations * sizeof *ids);
  mallocCheck(ids, e);
  int n = pbt_report_lineage(s, ids);
  if (n == 0) {
    free(ids);
    fprintf(p->notes, "note: pbt_schedule.png skipped: no complete generation yet\n");
    return 0;
  }
  int panels = s->space.n + 1, cols = (int)ceil(sqrt((double)panels));
  int rows = (panels + cols - 1) / cols;
  char script[PATH_LEN_], title[512];
  tmp_path_(p, "schedule.gp", script);
  FILE *g = open_(script, e);
  if (!g) {
    free(ids);
    return e->code;
  }
  preamble_(g, p, "pbt_schedule.png", cols * 440 > 640 ? cols * 440 : 640, rows * 330 + 50);
  snprintf(title, sizeof title, "study %s: the best member's schedule (red) by generation; "
           "every segment (blue), exploits (orange x)", s->cfg.study.name);
  fputs("unset key\nset xlabel 'generation'\n", g);
  fprintf(g, "set multiplot layout %d,%d title ", rows, cols);
  gnuplot_quote(g, title);
  fputc('\n', g);
  int rc = 0;
  for (int i = -1; rc == 0 && i < s->space.n; i++)
    rc = schedule_panel_(p, g, i, ids, n, e);
  fputs("unset multiplot\nunset output\n", g);
  free(ids);
  if (close_(g, script, e) != 0 && rc == 0)
    rc = e->code;
  FOX_TRY(rc);
  return draw_(p, script, "pbt_schedule.png", e);
}

/* Removes the temporary directory and everything in it (all of it ours: mkdtemp made it). */
static int cleanup_(const char *dir, struct fox_err *e) {
  DIR *d = opendir(dir);
  if (!d)
    return fox_errf(e, FOX_EFAIL, "%s: cannot list to remove: %s", dir, strerror(errno));
  int rc = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    char path[PATH_LEN_];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (unlink(path) != 0 && rc == 0)
      rc = fox_errf(e, FOX_EFAIL, "%s: cannot remove: %s", path, strerror(errno));
  }
  closedir(d);
  if (rmdir(dir) != 0 && rc == 0)
    rc = fox_errf(e, FOX_EFAIL, "%s: cannot remove: %s", dir, strerror(errno));
  return rc;
}

int report_plots(const struct study *s, const int *order, const char *outdir,
                 const struct pbo_result *pbo, FILE *out, FILE *notes, struct fox_err *e) {
  struct plot_ p = {s, order, outdir, out, notes, ""};
  /* the pid in the name: a later report removes the directory of one that was killed */
  if (snprintf(p.dir, sizeof p.dir, "%s/report.tmp.%ld.XXXXXX", outdir, (long)getpid()) >=
      (int)sizeof p.dir)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", outdir);
  if (!mkdtemp(p.dir))
    return fox_errf(e, FOX_EFAIL, "%s: cannot make a temporary directory for the plots: %s "
                    "(--no-plots leaves them out)", p.dir, strerror(errno));
  int rc = history_(&p, e);
  if (rc == 0)
    rc = equity_(&p, e);
  if (rc == 0)
    rc = params_(&p, e);
  if (rc == 0 && pbo)
    rc = logits_(&p, pbo, e);
  if (rc == 0 && s->n_obj > 1)
    rc = pareto_(&p, e);
  if (rc == 0 && s->cfg.study.scheduler == FOX_SCHED_PBT)
    rc = schedule_(&p, e);
  int gone = cleanup_(p.dir, e);
  return rc ? rc : gone;
}

void report_plots_remove_dir(const char *dir) {
  struct fox_err ignore = {0};
  cleanup_(dir, &ignore);
}
