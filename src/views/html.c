/* The report page, section by section: the facts and the table, the history, the parameters,
 * the best equity against buy-and-hold, the selection figures, the test looks, the Pareto front. */
#include "views/html.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/dataset.h"
#include "report/curves.h"
#include "views/figure.h"
#include "report/importance.h"
#include "report/pbt_report.h"
#include "report/report.h"
#include "report/returns.h"
#include "views/svg.h"
#include "study/rankfile.h"
#include "util/fsutil.h"
#include "util/h5io.h"

#define PATH_LEN_ 4200

/* The page's own rules; figure_css (figure.c), before them, draws the plots. */
static const char css_[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1b1b;"
    "background:#fff;margin:0 auto;max-width:72rem;padding:.75rem}"
    "h1{font-size:1.3rem;margin:.3rem 0 .6rem;overflow-wrap:anywhere}"
    "h2{font-size:1.1rem;margin:1.8rem 0 .5rem;border-bottom:1px solid #ddd}"
    "ul.facts{padding-left:1.1rem;margin:.3rem 0}ul.facts li{margin:.15rem 0;"
    "overflow-wrap:anywhere}"
    ".scroll{overflow-x:auto;border:1px solid #e3e3e3;width:fit-content;max-width:100%}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.85rem}"
    "th,td{padding:.25rem .55rem;white-space:nowrap;text-align:right;"
    "border-bottom:1px solid #eee}th{background:#f4f4f4}.l{text-align:left}"
    "tr.pruned td{color:#8a4b00}tr.running td{color:#555;font-style:italic}"
    "tr.failed td{color:#999}"
    "figure{margin:.5rem 0}figcaption,.legend{font-size:.85rem;color:#444}"
    "svg{display:block;width:100%;height:auto}figure.wide svg{max-width:48rem}"
    ".panels{display:grid;grid-template-columns:repeat(auto-fill,minmax(18rem,1fr));gap:.6rem}"
    ".note{color:#6b4300;background:#fff6e0;padding:.3rem .5rem;border-left:3px solid #e8a020;"
    "overflow-wrap:anywhere}"
    "svg.sw{display:inline-block;width:.95em;height:.95em;vertical-align:-.1em}"
    ".panels .ax text{font-size:11px}.panels .ax .lab{font-size:12px}"
    /* a wide plot on a phone is drawn at about 0.6 of its viewBox: larger type and marks keep
     * it legible */
    "@media (max-width:40rem){figure.wide .ax text,figure.wide .ax .lab{font-size:17px}"
    "figure.wide>svg circle{r:6.5px}}"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.4rem 0}"
    "dl.kv dt{font-weight:600}dl.kv dd{margin:0;overflow-wrap:anywhere}"
    "footer{margin-top:2rem;font-size:.8rem;color:#666}";

struct page_ {
  const struct html_page *p;
  const struct study *s;
  FILE *f, *notes;
  struct figure fig; /* the figure being drawn: the page's and its files' */
  int fig_open, fig_failed;
  FILE *sink; /* where a part goes when its stream cannot be had (fig_failed says so) */
  int files_only; /* html_figures: no page */
};

/* Figure `name` begins: its parts and keys go to the page and its files (figure.h). */
static void fig_start_(struct page_ *w, const char *name, const char *title) {
  char head[sizeof w->fig.title + 8];
  snprintf(head, sizeof head, "study %.120s: %.120s", w->s->cfg.study.name, title);
  figure_init(&w->fig, name, head);
  w->fig_open = 1;
  w->fig_failed = 0;
}

/* The stream the figure's next part is drawn into. */
static FILE *fig_(struct page_ *w) {
  struct fox_err ignore = {0};
  FILE *f = w->fig.mem ? w->fig.mem : figure_part_begin(&w->fig, &ignore);
  if (!f)
    w->fig_failed = 1;
  return f ? f : w->sink;
}

/* The part drawn on g ends: into the page, kept for the files. */
static void fig_part_(struct page_ *w, const struct svg *g, const char *caption) {
  struct fox_err ignore = {0};
  if (!w->fig.mem || figure_part_end(&w->fig, w->f, g->w, g->h, caption, &ignore) != 0)
    w->fig_failed = 1;
}

/* The figure ends: its files written (html_page.files). */
static int fig_end_(struct page_ *w, struct fox_err *e) {
  w->fig_open = 0;
  if (w->fig_failed) {
    int rc = fox_errf(e, FOX_EFAIL, "report: out of memory for figure %s", w->fig.name);
    figure_free(&w->fig);
    return rc;
  }
  return figure_write(&w->fig, w->p->files, e);
}

/* printf, escaped. */
static void esc_(FILE *f, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  text_escape_html(f, buf);
}

/* What the page cannot show, in the page and on the notes. */
static void note_(struct page_ *w, const char *fmt, ...) {
  char buf[FOX_ERR_LEN + 4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fputs("<p class=\"note\">", w->f);
  text_escape_html(w->f, buf);
  fputs("</p>\n", w->f);
  if (w->notes)
    fprintf(w->notes, "note: %s: %s\n", w->files_only ? "plots" : "report.html", buf);
}

/* "-" for an undefined figure, as the text report. */
static const char *num_(double v, const char *fmt, char *buf, size_t n) {
  if (isnan(v))
    snprintf(buf, n, "-");
  else if (isinf(v))
    snprintf(buf, n, v > 0 ? "inf" : "-inf");
  else
    snprintf(buf, n, fmt, v);
  return buf;
}

/* A legend entry: the mark or line as drawn in the plots, then the text (escaped); the
 * figure being drawn keeps it for its file. */
static void key_(struct page_ *w, const char *mark, const char *cls, const char *text) {
  FILE *f = w->f;
  if (w->fig_open)
    figure_key(&w->fig, mark[0], cls, text);
  fputs("<svg class=\"sw\" viewBox=\"0 0 12 12\" aria-hidden=\"true\">", f);
  if (mark[0] == 'o')
    fprintf(f, "<circle class=\"%s\" cx=\"6\" cy=\"6\" r=\"3.6\"/>", cls);
  else if (mark[0] == 'x')
    fprintf(f, "<path class=\"%s\" d=\"M2.5 2.5l7 7m0 -7l-7 7\"/>", cls);
  else if (mark[0] == '-')
    fprintf(f, "<path class=\"%s\" d=\"M0 6h12\"/>", cls);
  else
    fprintf(f, "<rect class=\"%s\" x=\"1\" y=\"2\" width=\"10\" height=\"8\"/>", cls);
  fputs("</svg> ", f);
  text_escape_html(f, text);
  fputs(" &#160; ", f);
}

/* The objective of trial t in the units the report shows it in; NaN when it has none to draw. */
static double objective_(const struct study *s, const struct study_trial *t) {
  const char *unit;
  double v = t->metrics[s->objective] * report_metric_scale(s, s->objective, &unit);
  return t->status == FOX_ST_FAILED || t->epochs == 0 || !isfinite(v) ? NAN : v;
}

static const char *const mark_cls_[4] = {[FOX_ST_COMPLETE] = "c", [FOX_ST_PRUNED] = "p",
                                         [FOX_ST_FAILED] = "", [FOX_ST_RUNNING] = "r"};

static int head_(struct page_ *w) {
  const struct study *s = w->s;
  FILE *f = w->f;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
        f);
  esc_(f, "foxopt report: study %s", s->cfg.study.name);
  fprintf(f, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<h1>", figure_css, css_);
  esc_(f, "foxopt report: study %s", s->cfg.study.name);
  fputs("</h1>\n<ul class=\"facts\">\n", f);
  /* The text report's header lines, word for word. */
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m)
    return -1;
  int shown = w->p->top < s->n ? w->p->top : s->n;
  report_print_header(m, s, shown, "");
  if (fclose(m) != 0) {
    free(buf);
    return -1;
  }
  for (char *line = buf, *end; line && *line; line = end ? end + 1 : NULL) {
    if ((end = strchr(line, '\n')))
      *end = '\0';
    fputs("<li>", f);
    text_escape_html(f, line);
    fputs("</li>\n", f);
  }
  free(buf);
  fputs("<li>study directory ", f);
  text_escape_html(f, w->p->outdir);
  if (s->cfg.study.function == 0) {
    fputs("; dataset ", f);
    text_escape_html(f, s->cfg.data_path);
  }
  fputs("</li>\n</ul>\n", f);
  return 0;
}

static void table_(struct page_ *w) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int k = w->p->top < s->n ? w->p->top : s->n;
  fputs("<h2 id=\"table\">", f);
  esc_(f, "The best %d of %d trials", k, s->n);
  fputs("</h2>\n", f);
  if (s->n == 0) {
    fputs("<p>No trial has been recorded yet.</p>\n", f);
    return;
  }
  struct report_col cols[FOX_REPORT_COLS];
  int nc = report_columns(s, cols);
  fputs("<div class=\"scroll\"><table id=\"best\">\n<thead><tr>", f);
  for (int c = 0; c < nc; c++) {
    fputs(cols[c].left ? "<th class=\"l\">" : "<th>", f);
    text_escape_html(f, cols[c].head);
    fputs("</th>", f);
  }
  fputs("</tr></thead>\n<tbody>\n", f);
  for (int r = 0; r < k; r++) {
    const struct study_trial *t = &s->trials[w->p->order[r]];
    fprintf(f, "<tr class=\"%s\">", study_status_names[t->status]);
    for (int c = 0; c < nc; c++) {
      char cell[FOX_CHOICE_LEN];
      report_cell(s, t, &cols[c], cell, sizeof cell);
      fputs(cols[c].left ? "<td class=\"l\">" : "<td>", f);
      text_escape_html(f, cell);
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
}

/* A pbt study: the best member's schedule (its lineage of segments) and each generation's costs,
 * as the text report prints them. */
/* The best member's schedule drawn: a panel for the objective and one for each parameter by
 * generation, every segment's value a dot (an exploit's a cross), the member's lineage a red
 * line. */
static int schedule_(struct page_ *w, const int *ids, int n, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  size_t cap = (size_t)(s->n > n ? s->n : n) + 1;
  double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
  if (!x || !y) {
    free(x), free(y);
    return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
  }
  char label[FOX_NAME_LEN + 8], title[FOX_NAME_LEN + 64];
  report_metric_label(s, s->objective, label, sizeof label);
  fig_start_(w, "pbt_schedule", "the best member's schedule by generation");
  fputs("<p class=\"legend\">", f);
  key_(w, "o", "seg", "a segment");
  key_(w, "x", "ex", "an exploit");
  key_(w, "-", "best", "the best member's lineage");
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
    g.x = (struct svg_axis){.lo = -0.5, .hi = s->generations - 0.5};
    long m = 0;
    for (int k = 0; k < s->n; k++) {
      const struct study_trial *t = &s->trials[k];
      double v = sp ? t->x[i] : objective_(s, t);
      if (t->status != FOX_ST_RUNNING && isfinite(v))
        y[m++] = v;
    }
    g.y.log = log_scale;
    svg_axis_fit(&g.y, y, m, log_scale ? 1.1 : 0.06);
    if (categorical)
      g.y = (struct svg_axis){.lo = -0.5, .hi = sp->n_choices - 0.5};
    snprintf(title, sizeof title, "%s by generation", sp ? sp->key : label);
    fputs("<figure>", f);
    svg_begin(&g, fig_(w), 300, 210, title);
    svg_axes(&g, "generation", sp ? sp->key : label, NULL, 0);
    for (int ex = 0; ex < 2; ex++) {
      long q = 0;
      for (int k = 0; k < s->n; k++) {
        const struct study_trial *t = &s->trials[k];
        double v = sp ? t->x[i] : objective_(s, t);
        if (t->status != FOX_ST_RUNNING && isfinite(v) && t->exploited == ex)
          x[q] = t->generation, y[q++] = v;
      }
      svg_marks(&g, x, y, q, ex ? 'x' : 'o', ex ? "ex" : "seg");
    }
    long q = 0;
    for (int k = 0; k < n; k++) {
      const struct study_trial *t = &s->trials[ids[k]];
      x[q] = t->generation, y[q++] = sp ? t->x[i] : objective_(s, t);
    }
    svg_line(&g, x, y, q, "best");
    svg_end(&g);
    char what[FOX_NAME_LEN + 32];
    snprintf(what, sizeof what, "%s%s", sp ? sp->key : label,
             categorical ? " (by choice index)" : log_scale ? " (log scale)" : "");
    fig_part_(w, &g, what);
    fputs("<figcaption>", f);
    text_escape_html(f, what);
    fputs("</figcaption></figure>\n", f);
  }
  fputs("</div>\n", f);
  free(x), free(y);
  return fig_end_(w, e);
}

static int pbt_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int rc = 0;
  if (s->cfg.study.scheduler != FOX_SCHED_PBT)
    return 0;
  int *ids = malloc((size_t)s->generations * sizeof *ids);
  if (!ids)
    return -1;
  int n = pbt_report_lineage(s, ids);
  fputs("<h2 id=\"pbt\">The best member's schedule</h2>\n", f);
  if (n == 0) {
    fputs("<p>No generation is complete yet.</p>\n", f);
  } else {
    char label[FOX_NAME_LEN + 8], buf[64];
    const char *unit;
    double scale = report_metric_scale(s, s->objective, &unit);
    report_metric_label(s, s->objective, label, sizeof label);
    fputs("<p>", f);
    esc_(f, "Member %d (row %d of the last generation): each generation's row, the row it "
            "continued from, whether that was an exploit of another member, and the parameters "
            "it trained with.", s->trials[ids[n - 1]].member, ids[n - 1]);
    fputs("</p>\n<div class=\"scroll\"><table id=\"schedule\">\n<thead><tr><th>generation</th>"
          "<th>row</th><th>parent</th><th class=\"l\">exploited</th><th>epochs</th><th>", f);
    text_escape_html(f, label);
    fputs("</th>", f);
    for (int i = 0; i < s->space.n; i++) {
      fputs("<th>", f);
      text_escape_html(f, s->space.p[i].key);
      fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int k = 0; k < n; k++) {
      const struct study_trial *t = &s->trials[ids[k]];
      fprintf(f, "<tr><td>%d</td><td>%d</td><td>", t->generation, t->id);
      if (t->parent >= 0)
        fprintf(f, "%d", t->parent);
      else
        fputs("-", f);
      fprintf(f, "</td><td class=\"l\">%s</td><td>%d</td><td>%s</td>",
              t->exploited ? "yes" : "no", t->epochs,
              num_(t->metrics[s->objective] * scale, "%.6g", buf, sizeof buf));
      for (int i = 0; i < s->space.n; i++) {
        char v[FOX_CHOICE_LEN];
        space_format(&s->space.p[i], t->x[i], v, sizeof v);
        fputs("<td>", f);
        text_escape_html(f, v[0] ? v : "-");
        fputs("</td>", f);
      }
      fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    rc = schedule_(w, ids, n, e);
  }
  free(ids);
  if (rc != 0)
    return rc;
  fputs("<h3>What each generation cost</h3>\n<div class=\"scroll\"><table id=\"generations\">"
        "\n<thead><tr><th>generation</th><th>wall s</th><th>plan s</th><th>transfers</th>"
        "<th>MB moved</th><th>moving s</th><th>state s</th><th>segments s</th></tr></thead>"
        "\n<tbody>\n", f);
  for (int g = 0; g < s->generations; g++) {
    const struct pbt_gen *x = &s->gen[g];
    if (x->wall == 0 && x->segments == 0)
      continue;
    fprintf(f, "<tr><td>%d</td><td>%.3f</td><td>%.6f</td><td>%d</td><td>%.3f</td><td>%.6f</td>"
               "<td>%.3f</td><td>%.3f</td></tr>\n", g, x->wall, x->plan, x->transfers,
            x->bytes / 1e6, x->transfer, x->state, x->segments);
  }
  fputs("</tbody></table></div>\n", f);
  return 0;
}

/* Every trial's objective by id, marked by status, and the best complete one so far as steps. */
static int history_(struct page_ *w, struct fox_err *e) {
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
    y[i] = objective_(s, t);
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
    esc_(f, "No trial has a value of %s yet.", s->metric_names[s->objective]);
    fputs("</p>\n", f);
  } else {
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = (struct svg_axis){.lo = -0.5, .hi = s->n - 0.5, .log = 0};
    svg_axis_fit(&g.y, y, s->n, 0.05);
    fputs("<figure class=\"wide\">", f);
    char title[256];
    snprintf(title, sizeof title, "%s of each trial by id", s->metric_names[s->objective]);
    fig_start_(w, "history", title);
    svg_begin(&g, fig_(w), 600, 330, title);
    svg_axes(&g, "trial id", label, NULL, 0);
    double *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    if (!px || !py) {
      free(px), free(py), free(x), free(y), free(bx), free(by);
      return -1;
    }
    static const int order[3] = {FOX_ST_RUNNING, FOX_ST_PRUNED, FOX_ST_COMPLETE};
    for (int o = 0; o < 3; o++) {
      int st = order[o];
      long m = 0;
      for (int i = 0; i < s->n; i++)
        if (s->trials[i].status == st && !isnan(y[i]))
          px[m] = x[i], py[m++] = y[i];
      svg_marks(&g, px, py, m, st == FOX_ST_RUNNING ? 'x' : 'o', mark_cls_[st]);
    }
    free(px), free(py);
    svg_line(&g, bx, by, nb, "best");
    svg_end(&g);
    fig_part_(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    char text[128];
    snprintf(text, sizeof text, "complete (%d)", count[FOX_ST_COMPLETE]);
    key_(w, "o", "c", text);
    if (count[FOX_ST_PRUNED]) {
      snprintf(text, sizeof text, "pruned, at its last epoch (%d)", count[FOX_ST_PRUNED]);
      key_(w, "o", "p", text);
    }
    if (count[FOX_ST_RUNNING]) {
      snprintf(text, sizeof text, "running, at its last epoch (%d)", count[FOX_ST_RUNNING]);
      key_(w, "x", "r", text);
    }
    if (nb > 0)
      key_(w, "-", "best", "best complete so far");
    esc_(f, "(%s, %s)", s->metric_names[s->objective], max ? "maximize" : "minimize");
    if (count[FOX_ST_FAILED])
      esc_(f, "; %d failed trial%s without a value", count[FOX_ST_FAILED],
           count[FOX_ST_FAILED] > 1 ? "s" : "");
    fputs("</figcaption></figure>\n", f);
    rc = fig_end_(w, e);
  }
  free(x), free(y), free(bx), free(by);
  return rc;
}

/* "trial ID (status, N epochs): key=value, ..." for a line's hover title. */
static void trial_title_(const struct study *s, const struct study_trial *t, char *buf,
                         size_t n) {
  static const char *const st[4] = {[FOX_ST_COMPLETE] = "complete", [FOX_ST_PRUNED] = "pruned",
                                     [FOX_ST_FAILED] = "failed", [FOX_ST_RUNNING] = "running"};
  size_t at = (size_t)snprintf(buf, n, "trial %d (%s, %d epoch%s)", t->id, st[t->status],
                               t->epochs, t->epochs == 1 ? "" : "s");
  for (int i = 0; i < s->space.n && at < n; i++) {
    char v[FOX_CHOICE_LEN];
    space_format(&s->space.p[i], t->x[i], v, sizeof v);
    if (v[0])
      at += (size_t)snprintf(buf + at, n - at, "%s %s=%s", i ? "," : ":", s->space.p[i].key, v);
  }
}

#define CURVES_MAX_ 2000 /* lines drawn: a larger study's first ones, and the page says so */

/* Learning curves: each trial's objective by epoch (report_intermediate, the values the Optuna
 * journal exports as intermediate values), a line a trial ending where it stopped (a pruned
 * one at its rung), the rungs drawn; each line's title names the trial and its parameters. A
 * pbt study has its own section; a multi-objective one none. */
static int curves_(struct page_ *w, struct fox_err *e) {
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
    g.x = (struct svg_axis){.lo = 0.5, .hi = s->plan_epochs + 0.5, .log = 0};
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
    fig_start_(w, "curves", title);
    svg_begin(&g, fig_(w), 600, 330, title);
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
        snprintf(cls, sizeof cls, "lc %s", mark_cls_[t->status]);
        trial_title_(s, t, tt, sizeof tt);
        const double *x = xs + (size_t)i * cap, *y = ys + (size_t)i * cap;
        if (len[i] == 1) /* one point: its mark alone */
          svg_marks(&g, x, y, 1, 'o', mark_cls_[t->status]);
        else
          svg_line_title(&g, x, y, len[i], cls, tt);
        if (t->status == FOX_ST_PRUNED && len[i] > 1) /* where it stopped */
          svg_marks(&g, x + len[i] - 1, y + len[i] - 1, 1, 'o', "p");
        running += t->status == FOX_ST_RUNNING;
      }
    svg_end(&g);
    fig_part_(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    key_(w, "-", "lc c", "complete");
    key_(w, "-", "lc p", "pruned (o where it stopped)");
    if (running)
      key_(w, "-", "lc r", "running");
    if (s->plan.n > 1)
      key_(w, "-", "rung", "rungs");
    esc_(f, "(%s, %s; hover a line for its trial and parameters)", s->metric_names[s->objective],
         s->cfg.study.direction == FOX_MAXIMIZE ? "maximize" : "minimize");
    if (nt < s->n)
      esc_(f, "; the first %d of %d trials", nt, s->n);
    if (missing)
      esc_(f, "; %d trial file%s missing: those trials show their rungs only", missing,
           missing > 1 ? "s" : "");
    fputs("</figcaption></figure>\n", f);
    rc = fig_end_(w, e);
  }
  if (rc == 0 && longest <= 1 && !s->cfg.study.function && !report_curves_aggregate(s))
    note_(w, "no learning curves: with several cells (repeats x folds) and the %s aggregate, "
          "a trial's objective is known at its rungs only, not epoch by epoch",
          config_aggregate_names[s->cfg.study.aggregate]);
  free(steps), free(len), free(xs), free(ys);
  return rc;
}

#define TIMELINE_MAX_ 2000 /* rows drawn, as the learning curves */

/* The timeline: each row a bar from its first segment's start to its last one's end (UTC, as
 * trials.csv's start and end), by status, at its id; several ranks' trials overlap in time. A
 * row whose repeats resumed in a later run spans the pause. */
static int timeline_(struct page_ *w, struct fox_err *e) {
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
      note_(w, "no timeline: no trial has a recorded start (a study.h5 written before foxopt "
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
  g.y = (struct svg_axis){.lo = -0.5, .hi = nt - 0.5};
  double h = 90 + 4.0 * nt;
  fig_start_(w, "timeline", "each trial's start and end (UTC)");
  svg_begin(&g, fig_(w), 600, h < 220 ? 220 : h > 640 ? 640 : h, "each trial's start and end (UTC)");
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
    trial_title_(s, t, tt, sizeof tt);
    size_t at = strlen(tt);
    snprintf(tt + at, sizeof tt - at, "; %s to %s UTC, %.3g s of work", when[0], when[1] + 11,
             t->seconds);
    char cls[16];
    snprintf(cls, sizeof cls, "tl %s", t->status == FOX_ST_FAILED ? "f" : mark_cls_[t->status]);
    svg_line_title(&g, x, y, 2, cls, tt);
    running += t->status == FOX_ST_RUNNING;
    pruned += t->status == FOX_ST_PRUNED;
    failed += t->status == FOX_ST_FAILED;
  }
  svg_end(&g);
  fig_part_(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  key_(w, "-", "tl c", "complete");
  if (pruned)
    key_(w, "-", "tl p", "pruned");
  if (failed)
    key_(w, "-", "tl f", "failed");
  if (running)
    key_(w, "-", "tl r", "running");
  esc_(f, "(from its first start to its last end: a trial resumed later spans the pause; hover "
          "a bar for its trial)");
  if (nt < s->n)
    esc_(f, "; the first %d of %d trials", nt, s->n);
  fputs("</figcaption></figure>\n", f);
  return fig_end_(w, e);
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
static int parallel_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int na = s->space.n + 1, shown = 0, best = study_best(s);
  if (s->space.n == 0 || s->n_obj != 1)
    return 0;
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < s->n; k++) {
    double v = objective_(s, &s->trials[k]);
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
  g.y = (struct svg_axis){.lo = -0.04, .hi = 1.04, .log = 0};
  fig_start_(w, "parallel", "each complete trial's parameters and objective");
  svg_begin(&g, fig_(w), na * 110 > 600 ? na * 110 : 600, 330,
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
      double v = objective_(s, t);
      if (t->status != FOX_ST_COMPLETE || isnan(v) || (k == best) != pass)
        continue;
      for (int i = 0; i < s->space.n; i++)
        x[i] = i, y[i] = pc_pos_(&s->space.p[i], t->x[i]);
      x[na - 1] = na - 1, y[na - 1] = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      trial_title_(s, t, tt, sizeof tt);
      size_t at = strlen(tt);
      snprintf(tt + at, sizeof tt - at, "; %s %.6g", s->metric_names[s->objective], v);
      svg_line_title(&g, x, y, na, k == best ? "pc top" : "pc", tt);
      for (int i = 0; i < na; i++) /* a value between inactive ones is no segment: a dot */
        if (!isnan(y[i]) && (i == 0 || isnan(y[i - 1])) && (i == na - 1 || isnan(y[i + 1])))
          svg_marks(&g, x + i, y + i, 1, 'o', k == best ? "front" : "c");
    }
  svg_end(&g);
  fig_part_(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  key_(w, "-", "pc", "a complete trial");
  if (best >= 0)
    key_(w, "-", "pc top", "the best");
  esc_(f, "(%d complete trials; an inactive parameter breaks its line; hover a line for its "
          "trial)", shown);
  fputs("</figcaption></figure>\n", f);
  free(x), free(y), free(labels);
  return fig_end_(w, e);
}

/* Parameter importance (PED-ANOVA, importance.h): a bar per parameter, largest first, for
 * each objective; a title on each bar gives its figure, rank and note. Where there are no
 * figures, the sentence the text report gives. */
static int importance_(struct page_ *w, struct fox_err *e) {
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
    if (im.status != FOX_IMP_DONE) {
      fputs("<p>", f);
      if (im.status != FOX_IMP_PBT)
        esc_(f, "%s: ", obj);
      esc_(f, "%s.", line);
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
    fig_start_(w, name, title);
    svg_begin(&g, fig_(w), k * 80 > 600 ? k * 80 : 600, 300, title);
    svg_axes(&g, NULL, "importance (sums to 1)", labels, k);
    for (int q = 0; q < k; q++) {
      int i = order[q];
      report_importance_note(&im, i, note, sizeof note);
      snprintf(tt, sizeof tt, "%s: %.4f, rank %d%s%s", s->space.p[i].key, im.imp[i], im.rank[i],
               note[0] ? "; " : "", note);
      svg_bar_title(&g, q - 0.35, q + 0.35, im.imp[i], "bar", tt);
    }
    svg_end(&g);
    fig_part_(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    esc_(f, "%s (%s): PED-ANOVA (Watanabe et al. 2023; Optuna's default evaluator): how far "
            "each parameter's values among the best %.0f %% of the complete trials depart from "
            "its values among all of them; %s. It ranks where the good trials concentrate, not "
            "how much a parameter changes the objective; hover a bar for its figure.",
         obj, s->obj_dir[j] == FOX_MAXIMIZE ? "maximize" : "minimize", 100 * FOX_IMP_QUANTILE,
         line);
    fputs("</figcaption></figure>\n", f);
    FOX_TRY(fig_end_(w, e));
  }
  return 0;
}

/* One small plot per parameter: the objective against it, categories by choice, log_uniform on
 * a log axis. */
static int params_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  fputs("<h2 id=\"params\">Each parameter against the objective</h2>\n", f);
  if (s->space.n == 0) {
    fputs("<p>The study searches no parameter.</p>\n", f);
    return 0;
  }
  size_t n = (size_t)(s->n ? s->n : 1);
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  if (!x || !y) {
    free(x), free(y);
    return -1;
  }
  char label[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, label, sizeof label);
  int count[4] = {0, 0, 0, 0};
  for (int k = 0; k < s->n; k++)
    count[s->trials[k].status] += !isnan(objective_(s, &s->trials[k]));
  char ftitle[FOX_NAME_LEN + 64];
  snprintf(ftitle, sizeof ftitle, "%s against each parameter", s->metric_names[s->objective]);
  fig_start_(w, "params", ftitle);
  fputs("<p class=\"legend\">", f);
  if (count[FOX_ST_COMPLETE])
    key_(w, "o", "c", "complete");
  if (count[FOX_ST_PRUNED])
    key_(w, "o", "p", "pruned");
  if (count[FOX_ST_RUNNING])
    key_(w, "x", "r", "running");
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
      double v = objective_(s, &s->trials[k]);
      if (!isnan(v) && !isnan(s->trials[k].x[i]))
        y[m++] = v;
    }
    svg_axis_fit(&g.y, y, m, 0.06);
    char title[FOX_NAME_LEN + 64];
    snprintf(title, sizeof title, "%s against %s", s->metric_names[s->objective], sp->key);
    fputs("<figure>", f);
    svg_begin(&g, fig_(w), 300, 210, title);
    const char *labels[FOX_CHOICES_MAX];
    for (int c = 0; categorical && c < sp->n_choices; c++)
      labels[c] = sp->choice[c];
    svg_axes(&g, NULL, label, categorical ? labels : NULL, categorical ? sp->n_choices : 0);
    if (m == 0)
      svg_text(&g, (g.left + g.w - g.right) / 2, (g.top + g.h - g.bottom) / 2, "middle", "lab",
               "no trial with a value had it active");
    static const int order[3] = {FOX_ST_RUNNING, FOX_ST_PRUNED, FOX_ST_COMPLETE};
    for (int o = 0; o < 3; o++) {
      long q = 0;
      for (int k = 0; k < s->n; k++) {
        const struct study_trial *t = &s->trials[k];
        double v = objective_(s, t);
        if (t->status == order[o] && !isnan(v) && !isnan(t->x[i]))
          x[q] = t->x[i], y[q++] = v;
      }
      svg_marks(&g, x, y, q, order[o] == FOX_ST_RUNNING ? 'x' : 'o', mark_cls_[order[o]]);
    }
    svg_end(&g);
    char cap[FOX_NAME_LEN + 16];
    snprintf(cap, sizeof cap, "%s%s", sp->key,
             categorical ? " (by choice)" : log_scale ? " (log scale)" : "");
    fig_part_(w, &g, cap);
    fputs("<figcaption>", f);
    text_escape_html(f, cap);
    fputs("</figcaption></figure>\n", f);
  }
  fputs("</div>\n", f);
  free(x), free(y);
  return fig_end_(w, e);
}

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
static int equity_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  if (s->cfg.study.function != 0)
    return 0; /* a test function has no market */
  fputs("<h2 id=\"equity\">The best trial's equity</h2>\n", f);
  const struct study_trial *t = s->n > 0 ? &s->trials[w->p->order[0]] : NULL;
  if (!t || isnan(objective_(s, t)) || t->rank < 0) {
    fputs("<p>", f);
    esc_(f, "No trial has a value of %s yet.", s->metric_names[s->objective]);
    fputs("</p>\n", f);
    return 0;
  }
  char path[PATH_LEN_];
  rankfile_trial_path(w->p->outdir, t->id, 0, path, sizeof path);
  struct equity_series q;
  struct fox_err why = {0};
  if (returns_read_equity(path, &q, &why) != 0) {
    note_(w, "no equity curve: %s", why.msg);
    return 0;
  }
  if (q.n == 0) {
    note_(w, "no equity curve: %s holds no evaluation of trial %d", path, t->id);
    return 0;
  }
  if (q.epochs >= 0 && q.epochs != t->epochs) {
    note_(w, "no equity curve: %s holds epoch %d where study.h5 records %d (is the study still "
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
      note_(w, "no buy-and-hold: %s", no_bh);
    struct svg g = {.right = 12, .top = 10, .em = 17};
    g.x = ts ? (struct svg_axis){.lo = x[0], .hi = x[q.n - 1], .time = 1}
             : (struct svg_axis){.lo = 0, .hi = (double)(q.n - 1)};
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
    fig_start_(w, "best_equity", title);
    svg_begin(&g, fig_(w), 600, 330, title);
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
    fig_part_(w, &g, NULL);
    fputs("<figcaption class=\"legend\">", f);
    char text[512];
    snprintf(text, sizeof text, "trial %d (%s, %d epochs%s): total return %.3g %%%s",
             t->id, study_status_names[t->status], t->epochs,
             s->repeats > 1 ? ", repeat 0's policy" : "", 100 * ret_eq,
             q.nf > 1 ? " (mean over folds)" : "");
    key_(w, "-", "eq", text);
    if (close) {
      snprintf(text, sizeof text, "buy and hold: %.3g %%", 100 * ret_bh);
      key_(w, "-", "bh", text);
    }
    esc_(f, "%s = %.6g%s. ", s->metric_names[s->objective], t->metrics[s->objective] * scale,
         unit);
    if (close)
      esc_(f, "Buy and hold: bought at the close of each fold's first bar with its capital, "
              "no fee, no spread.");
    fputs("</figcaption></figure>\n", f);
    rc = fig_end_(w, e);
  }
  free(close), free(ts);
  free(x), free(bh);
  returns_free_equity(&q);
  return rc;
}

static void kv_(FILE *f, const char *key, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fputs("<dt>", f);
  text_escape_html(f, key);
  fputs("</dt><dd>", f);
  text_escape_html(f, buf);
  fputs("</dd>\n", f);
}

/* The selection figures (report/overfit.h) and the histogram of CSCV's logits. */
static int selection_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  const struct overfit *o = w->p->fig;
  FILE *f = w->f;
  if (!o)
    return 0;
  char a[64], b[64], c[64], d[64];
  const char *split = dataset_split_name(s->cfg.eval_split);
  double ann = o->bars_per_year > 0 ? sqrt(o->bars_per_year) : NAN;
  fputs("<h2 id=\"selection\">Selection: how much of the best result is luck</h2>\n"
        "<dl class=\"kv\">\n", f);
  kv_(f, "counted", "%d configurations that reached an evaluation (%d complete, %d pruned, %d "
      "running, %d failed after one)%s", o->n_counted, o->counted[FOX_ST_COMPLETE],
      o->counted[FOX_ST_PRUNED], o->counted[FOX_ST_RUNNING], o->counted[FOX_ST_FAILED],
      s->repeats > 1 ? "; each one's returns the mean of its repeats, bar by bar" : "");
  if (o->best < 0 || o->t < 2) {
    kv_(f, "DSR", "- (no complete trial with returns on the %s split)", split);
  } else {
    kv_(f, "selected", "trial %d on %ld %s returns%s: per-bar Sharpe %s (annualised %s), "
        "skewness %s, kurtosis %s", o->best, o->t, split,
        s->folds > 1 ? " (within its folds)" : "", num_(o->m.sr, "%.4g", a, sizeof a),
        num_(o->m.sr * ann, "%.4g", b, sizeof b), num_(o->m.skew, "%.4g", c, sizeof c),
        num_(o->m.kurt, "%.4g", d, sizeof d));
    kv_(f, "PSR(0)", "%s: the probability that its true Sharpe is above 0, were it the only "
        "configuration tried", num_(o->psr, "%.4f", a, sizeof a));
    kv_(f, "DSR", "%s: the same against SR*_0 = %s per bar (annualised %s), the expected best "
        "Sharpe of N = %d configurations with no edge (cross-trial variance %s)",
        num_(o->dsr, "%.4f", a, sizeof a), num_(o->sr0, "%.4g", b, sizeof b),
        num_(o->sr0 * ann, "%.4g", c, sizeof c), o->n_counted,
        num_(o->var_sr, "%.3g", d, sizeof d));
    if (o->bars_per_year > 0 && isfinite(o->min_trl))
      kv_(f, "MinTRL", "%s bars (%s years) for Sharpe > 0 at 95 %%",
          num_(o->min_trl, "%.0f", a, sizeof a),
          num_(o->min_trl / o->bars_per_year, "%.3g", b, sizeof b));
    else
      kv_(f, "MinTRL", "%s bars for Sharpe > 0 at 95 %%%s", num_(o->min_trl, "%.0f", a, sizeof a),
          isinf(o->min_trl) ? " (its Sharpe is not above 0: no length is enough)" : "");
  }
  if (!o->have_pbo) {
    kv_(f, "PBO", "- (%s)", o->why_no_pbo);
    fputs("</dl>\n", f);
    return 0;
  }
  const struct pbo_result *p = &o->pbo;
  kv_(f, "PBO", "%s by CSCV over %d complete configurations: %d blocks of %ld returns (%ld oldest "
      "dropped), all %ld splits; the share where the in-sample best ranks at or below the "
      "out-of-sample median", num_(p->pbo, "%.4f", a, sizeof a), o->n_pbo, p->blocks,
      p->block_rows, p->dropped_rows, p->combos);
  char few[256];
  if (overfit_pbo_caveat(o, few, sizeof few)[0])
    kv_(f, "caveat", "%s", few);
  kv_(f, "degradation", "out-of-sample Sharpe = %s + %s x in-sample Sharpe of the in-sample best "
      "(r2 %s); P(out-of-sample loss) = %s", num_(p->intercept, "%.4g", a, sizeof a),
      num_(p->slope, "%.4g", b, sizeof b), num_(p->r2, "%.3g", c, sizeof c),
      num_(p->prob_oos_loss, "%.4f", d, sizeof d));
  fputs("</dl>\n", f);
  /* The histogram: about 40 bins over the logits' range, never narrower than 0.01, each
   * (b w - w, b w] so that 0 is an edge: the bars left of it are exactly the PBO's mass. */
  double lo = 0, hi = 0;
  for (long k = 0; k < p->combos; k++)
    if (isfinite(p->logits[k])) {
      lo = p->logits[k] < lo ? p->logits[k] : lo;
      hi = p->logits[k] > hi ? p->logits[k] : hi;
    }
  double width = (hi - lo) / 40 > 0.01 ? (hi - lo) / 40 : 0.01;
  long b0 = (long)ceil(lo / width), nbins = (long)ceil(hi / width) - b0 + 1;
  double *share = calloc((size_t)nbins, sizeof *share);
  if (!share)
    return -1;
  double top = 0;
  for (long k = 0; k < p->combos; k++)
    if (isfinite(p->logits[k])) {
      long bin = (long)ceil(p->logits[k] / width) - b0;
      bin = bin < 0 ? 0 : bin >= nbins ? nbins - 1 : bin;
      share[bin] += 1.0 / (double)p->combos;
      top = share[bin] > top ? share[bin] : top;
    }
  struct svg g = {.right = 12, .top = 10, .em = 17};
  g.x = (struct svg_axis){.lo = (b0 - 2) * width, .hi = (b0 + nbins) * width, .log = 0};
  g.y = (struct svg_axis){.lo = 0, .hi = top * 1.08 > 0 ? top * 1.08 : 1, .log = 0};
  char title[256];
  snprintf(title, sizeof title, "CSCV logits over %ld splits: PBO = %.3f", p->combos, p->pbo);
  fputs("<figure class=\"wide\">", f);
  fig_start_(w, "pbo_logits", title);
  svg_begin(&g, fig_(w), 600, 300, title);
  svg_axes(&g, "logit of the out-of-sample relative rank of the in-sample best",
           "share of splits", NULL, 0);
  for (long i = 0; i < nbins; i++)
    if (share[i] > 0)
      svg_bar(&g, (b0 + i - 1) * width, (b0 + i) * width, share[i], "bar");
  svg_vline(&g, 0, "zero");
  svg_end(&g);
  fig_part_(w, &g, NULL);
  fputs("<figcaption>", f);
  esc_(f, "The distribution of CSCV's logits; the mass at or left of the dashed line (logit <= "
          "0, the in-sample best at or below the out-of-sample median) is the PBO, %.3f.",
       p->pbo);
  fputs("</figcaption></figure>\n", f);
  free(share);
  return fig_end_(w, e);
}

/* The looks at the test split, and the last look's rows. */
static void test_(struct page_ *w) {
  const struct study *s = w->s;
  const struct test_record *rec = w->p->rec;
  FILE *f = w->f;
  if (s->cfg.study.function != 0)
    return;
  fputs("<h2 id=\"test\">The test split</h2>\n<p>", f);
  if (!rec || rec->looks == 0) {
    fputs("Untouched: no foxopt report --test has looked at it.</p>\n", f);
    return;
  }
  esc_(f, "Looked at %d time%s (first %s, last %s), %d configuration%s in all: its figures are no "
          "longer an untouched estimate. The last look:",
       rec->looks, rec->looks > 1 ? "s" : "", rec->first, rec->last, rec->n_seen,
       rec->n_seen > 1 ? "s" : "");
  fputs("</p>\n<div class=\"scroll\"><table id=\"test-rows\">\n<thead><tr><th>id</th><th>", f);
  char lab[FOX_NAME_LEN + 8];
  report_metric_label(s, s->objective, lab, sizeof lab);
  text_escape_html(f, lab);
  fputs("</th>", f);
  static const char *const key[] = {"total_return", "sharpe", "max_drawdown", "trades"};
  for (int i = 0; i < 4; i++) {
    const char *unit;
    report_metric_scale(s, metrics_find(key[i]), &unit);
    fputs("<th>", f);
    esc_(f, unit[0] ? "test.%s[%s]" : "test.%s", key[i], unit);
    fputs("</th>", f);
  }
  fputs("<th>test PSR(0)</th><th>test DSR</th></tr></thead>\n<tbody>\n", f);
  for (int r = 0; r < rec->n_last; r++) {
    const struct test_row *t = &rec->last_rows[r];
    char a[64];
    const char *unit;
    double sv = report_metric_scale(s, s->objective, &unit);
    double val = t->trial >= 0 && t->trial < s->n ? s->trials[t->trial].metrics[s->objective]
                                                  : NAN;
    fprintf(f, "<tr><td>%d</td><td>%s</td>", t->trial, num_(val * sv, "%.6g", a, sizeof a));
    for (int i = 0; i < 4; i++) {
      int j = metrics_find(key[i]);
      fprintf(f, "<td>%s</td>", num_(t->metrics[j] * report_metric_scale(s, j, &unit), "%.6g",
                                     a, sizeof a));
    }
    fprintf(f, "<td>%s</td>", num_(t->psr, "%.4f", a, sizeof a));
    fprintf(f, "<td>%s</td></tr>\n", num_(t->dsr, "%.4f", a, sizeof a));
  }
  fputs("</tbody></table></div>\n<p class=\"legend\">", f);
  esc_(f, "test DSR: against the expected best Sharpe of the %d configuration%s ever looked at on "
          "the test split; each look at the test split spends it.",
       rec->n_seen, rec->n_seen > 1 ? "s" : "");
  fputs("</p>\n", f);
}

/* The non-dominated trials of a study with several objectives (report_front). */
static int pareto_(struct page_ *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  if (s->n_obj < 2)
    return 0;
  int *ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
  double *x = malloc((size_t)(s->n ? s->n : 1) * sizeof *x);
  double *y = malloc((size_t)(s->n ? s->n : 1) * sizeof *y);
  if (!ids || !x || !y) {
    free(ids), free(x), free(y);
    return -1;
  }
  int nf = report_front(s, ids);
  if (nf < 0) {
    free(ids), free(x), free(y);
    return -1;
  }
  const char *unit;
  double sx = report_metric_scale(s, s->obj_metric[0], &unit);
  double sy = report_metric_scale(s, s->obj_metric[1], &unit);
  int valued = 0, feasible = 0;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    int ok = t->status == FOX_ST_COMPLETE && t->epochs > 0;
    for (int k = 0; k < s->n_obj; k++)
      ok &= !isnan(t->metrics[s->obj_metric[k]]);
    valued += ok;
    feasible += ok && study_feasible(s, t) == 1;
  }
  fputs("<h2 id=\"pareto\">Pareto front</h2>\n<p>", f);
  if (s->n_con > 0)
    esc_(f, "%d of the %d feasible complete trials are on the front: no other feasible one is at "
            "least as good in every objective and better in one (%d more break a constraint and "
            "are never on it).",
         nf, feasible, valued - feasible);
  else
    esc_(f, "%d of the %d complete trials with every objective are on the front: no other is at "
            "least as good in every objective and better in one.",
         nf, valued);
  fputs("</p>\n", f);
  /* The first two objectives: every complete trial, the front joined in order of the first. */
  struct svg g = {.right = 12, .top = 10, .em = 17};
  long m = 0;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    if (t->status != FOX_ST_COMPLETE || t->epochs == 0)
      continue;
    x[m] = t->metrics[s->obj_metric[0]] * sx;
    y[m++] = t->metrics[s->obj_metric[1]] * sy;
  }
  svg_axis_fit(&g.x, x, m, 0.05);
  svg_axis_fit(&g.y, y, m, 0.05);
  char xl[FOX_NAME_LEN + 32], yl[FOX_NAME_LEN + 32], title[256];
  report_metric_label(s, s->obj_metric[0], xl, sizeof xl);
  report_metric_label(s, s->obj_metric[1], yl, sizeof yl);
  snprintf(xl + strlen(xl), sizeof xl - strlen(xl), " (%s)",
           s->obj_dir[0] == FOX_MAXIMIZE ? "maximize" : "minimize");
  snprintf(yl + strlen(yl), sizeof yl - strlen(yl), " (%s)",
           s->obj_dir[1] == FOX_MAXIMIZE ? "maximize" : "minimize");
  snprintf(title, sizeof title, "the Pareto front of %s and %s", s->metric_names[s->obj_metric[0]],
           s->metric_names[s->obj_metric[1]]);
  fputs("<figure class=\"wide\">", f);
  fig_start_(w, "pareto", title);
  svg_begin(&g, fig_(w), 600, 330, title);
  svg_axes(&g, xl, yl, NULL, 0);
  svg_marks(&g, x, y, m, 'o', "dom");
  /* the front sorted by the first objective (ids ascending by report_front) */
  long q = 0;
  for (int i = 0; i < nf; i++) {
    const struct study_trial *t = &s->trials[ids[i]];
    double v = t->metrics[s->obj_metric[0]] * sx, u = t->metrics[s->obj_metric[1]] * sy;
    long at = q++;
    while (at > 0 && x[at - 1] > v) {
      x[at] = x[at - 1], y[at] = y[at - 1];
      at--;
    }
    x[at] = v, y[at] = u;
  }
  if (s->n_obj == 2)
    svg_line(&g, x, y, q, "frontline");
  svg_marks(&g, x, y, q, 'o', "front");
  svg_end(&g);
  fig_part_(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  key_(w, "o", "front", "on the front");
  key_(w, "o", "dom", s->n_con > 0 ? "dominated or infeasible" : "dominated");
  if (s->n_obj > 2)
    esc_(f, "(the first two of %d objectives)", s->n_obj);
  fputs("</figcaption></figure>\n<div class=\"scroll\"><table id=\"pareto-rows\">\n"
        "<thead><tr><th>id</th>", f);
  for (int k = 0; k < s->n_obj; k++) {
    char lab[FOX_NAME_LEN + 32];
    report_metric_label(s, s->obj_metric[k], lab, sizeof lab);
    fputs("<th>", f);
    esc_(f, "%s (%s)", lab, s->obj_dir[k] == FOX_MAXIMIZE ? "max" : "min");
    fputs("</th>", f);
  }
  for (int i = 0; i < s->space.n; i++) {
    fputs("<th class=\"l\">", f);
    text_escape_html(f, s->space.p[i].key);
    fputs("</th>", f);
  }
  fputs("</tr></thead>\n<tbody>\n", f);
  for (int r = 0; r < nf; r++) {
    const struct study_trial *t = &s->trials[ids[r]];
    fprintf(f, "<tr><td>%d</td>", t->id);
    for (int k = 0; k < s->n_obj; k++) {
      char a[64];
      int j = s->obj_metric[k];
      fprintf(f, "<td>%s</td>", num_(t->metrics[j] * report_metric_scale(s, j, &unit), "%.6g", a,
                                     sizeof a));
    }
    for (int i = 0; i < s->space.n; i++) {
      char v[FOX_CHOICE_LEN];
      space_format(&s->space.p[i], t->x[i], v, sizeof v);
      fputs("<td class=\"l\">", f);
      text_escape_html(f, v);
      fputs("</td>", f);
    }
    fputs("</tr>\n", f);
  }
  fputs("</tbody></table></div>\n", f);
  free(ids), free(x), free(y);
  return fig_end_(w, e);
}

/* A section's status: its error, or out of memory when it failed an allocation of its own (-1,
 * e not set). */
static int sect_(int rc, struct fox_err *e) {
  if (rc == 0)
    return 0;
  return e->code ? e->code : fox_errf(e, FOX_EFAIL, "report.html: out of memory");
}

static int body_(struct page_ *w, struct fox_err *e) {
  if (head_(w) != 0)
    return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
  table_(w);
  FOX_TRY(sect_(pbt_(w, e), e));
  FOX_TRY(sect_(history_(w, e), e));
  FOX_TRY(sect_(curves_(w, e), e));
  FOX_TRY(sect_(timeline_(w, e), e));
  FOX_TRY(sect_(parallel_(w, e), e));
  FOX_TRY(sect_(importance_(w, e), e));
  FOX_TRY(sect_(params_(w, e), e));
  FOX_TRY(sect_(equity_(w, e), e));
  FOX_TRY(sect_(selection_(w, e), e));
  test_(w);
  FOX_TRY(sect_(pareto_(w, e), e));
  fputs("<footer>Written by foxopt " FOXOPT_VERSION " from ", w->f);
  text_escape_html(w->f, w->p->outdir);
  fputs("/study.h5. Everything on this page is in this one file: it loads nothing.</footer>\n"
        "</body>\n</html>\n", w->f);
  return 0;
}

int html_write(const struct html_page *p, const char *path, FILE *notes, struct fox_err *e) {
  struct fs_out o;
  /* OUTDIR/report.html is a name the user did not give: a FIFO there is refused, not waited on */
  FILE *f = fs_out_fopen(&o, path, FS_OUT_FILE, e);
  if (!f)
    return fs_out_end(&o, e->code, e);
  FILE *sink = fopen("/dev/null", "w");
  if (!sink)
    return fs_out_fclose(&o, f, fox_errf(e, FOX_EFAIL, "/dev/null: cannot be opened"), e);
  struct page_ w = {.p = p, .s = p->s, .f = f, .notes = notes, .sink = sink};
  int rc = body_(&w, e);
  fclose(sink);
  return fs_out_fclose(&o, f, rc, e);
}

int html_figures(const struct html_page *p, FILE *notes, struct fox_err *e) {
  FILE *sink = fopen("/dev/null", "w");
  if (!sink)
    return fox_errf(e, FOX_EFAIL, "/dev/null: cannot be opened");
  /* the page's text goes nowhere; its notes name the figure files, not report.html */
  struct page_ w = {.p = p, .s = p->s, .f = sink, .notes = notes, .sink = sink, .files_only = 1};
  int rc = body_(&w, e);
  fclose(sink);
  return rc;
}
