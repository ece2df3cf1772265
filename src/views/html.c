/* The report page (html.h): the facts and the table of the best trials, a pbt study's
 * schedule, then the study's figures (study_plots.c) and the best equity (equity.c), the
 * selection figures, the test looks and the Pareto front, in that order. */
#include "views/page.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "report/pbt_report.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/text.h"

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

static int head_(struct page *w) {
  const struct study *s = w->s;
  FILE *f = w->f;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
        f);
  page_esc(f, "foxopt report: study %s", s->cfg.study.name);
  fprintf(f, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<h1>", figure_css, css_);
  page_esc(f, "foxopt report: study %s", s->cfg.study.name);
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

static void table_(struct page *w) {
  const struct study *s = w->s;
  FILE *f = w->f;
  int k = w->p->top < s->n ? w->p->top : s->n;
  fputs("<h2 id=\"table\">", f);
  page_esc(f, "The best %d of %d trials", k, s->n);
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
static int pbt_(struct page *w, struct fox_err *e) {
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
    page_esc(f, "Member %d (row %d of the last generation): each generation's row, the row it "
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
              report_num(t->metrics[s->objective] * scale, "%.6g", buf, sizeof buf));
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
    rc = plots_schedule(w, ids, n, e);
  }
  free(ids);
  if (rc != 0)
    return rc;
  fputs("<h3>What each generation cost</h3>\n<div class=\"scroll\"><table id=\"generations\">"
        "\n<thead><tr><th>generation</th><th>wall s</th><th>plan s</th><th>transfers</th>"
        "<th>MB moved</th><th>moving s</th><th>state s</th><th>segments s</th>"
        "<th>copied on the device</th></tr></thead>\n<tbody>\n", f);
  for (int g = 0; g < s->generations; g++) {
    const struct pbt_gen *x = &s->gen[g];
    if (x->wall == 0 && x->segments == 0)
      continue;
    fprintf(f, "<tr><td>%d</td><td>%.3f</td><td>%.6f</td><td>%d</td><td>%.3f</td><td>%.6f</td>"
               "<td>%.3f</td><td>%.3f</td><td>%d</td></tr>\n", g, x->wall, x->plan,
            x->transfers, x->bytes / 1e6, x->transfer, x->state, x->segments, x->copied);
  }
  fputs("</tbody></table></div>\n", f);
  return 0;
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
static int selection_(struct page *w, struct fox_err *e) {
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
        s->folds > 1 ? " (within its folds)" : "", report_num(o->m.sr, "%.4g", a, sizeof a),
        report_num(o->m.sr * ann, "%.4g", b, sizeof b), report_num(o->m.skew, "%.4g", c, sizeof c),
        report_num(o->m.kurt, "%.4g", d, sizeof d));
    kv_(f, "PSR(0)", "%s: the probability that its true Sharpe is above 0, were it the only "
        "configuration tried", report_num(o->psr, "%.4f", a, sizeof a));
    kv_(f, "DSR", "%s: the same against SR*_0 = %s per bar (annualised %s), the expected best "
        "Sharpe of N = %d configurations with no edge (cross-trial variance %s)",
        report_num(o->dsr, "%.4f", a, sizeof a), report_num(o->sr0, "%.4g", b, sizeof b),
        report_num(o->sr0 * ann, "%.4g", c, sizeof c), o->n_counted,
        report_num(o->var_sr, "%.3g", d, sizeof d));
    if (o->bars_per_year > 0 && isfinite(o->min_trl))
      kv_(f, "MinTRL", "%s bars (%s years) for Sharpe > 0 at 95 %%",
          report_num(o->min_trl, "%.0f", a, sizeof a),
          report_num(o->min_trl / o->bars_per_year, "%.3g", b, sizeof b));
    else
      kv_(f, "MinTRL", "%s bars for Sharpe > 0 at 95 %%%s",
          report_num(o->min_trl, "%.0f", a, sizeof a),
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
      "out-of-sample median", report_num(p->pbo, "%.4f", a, sizeof a), o->n_pbo, p->blocks,
      p->block_rows, p->dropped_rows, p->combos);
  char few[256];
  if (overfit_pbo_caveat(o, few, sizeof few)[0])
    kv_(f, "caveat", "%s", few);
  kv_(f, "degradation", "out-of-sample Sharpe = %s + %s x in-sample Sharpe of the in-sample best "
      "(r2 %s); P(out-of-sample loss) = %s", report_num(p->intercept, "%.4g", a, sizeof a),
      report_num(p->slope, "%.4g", b, sizeof b), report_num(p->r2, "%.3g", c, sizeof c),
      report_num(p->prob_oos_loss, "%.4f", d, sizeof d));
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
  page_fig_start(w, "pbo_logits", title);
  svg_begin(&g, page_fig(w), 600, 300, title);
  svg_axes(&g, "logit of the out-of-sample relative rank of the in-sample best",
           "share of splits", NULL, 0);
  for (long i = 0; i < nbins; i++)
    if (share[i] > 0)
      svg_bar(&g, (b0 + i - 1) * width, (b0 + i) * width, share[i], "bar");
  svg_vline(&g, 0, "zero");
  svg_end(&g);
  page_fig_part(w, &g, NULL);
  fputs("<figcaption>", f);
  page_esc(f, "The distribution of CSCV's logits; the mass at or left of the dashed line (logit <= "
          "0, the in-sample best at or below the out-of-sample median) is the PBO, %.3f.",
       p->pbo);
  fputs("</figcaption></figure>\n", f);
  free(share);
  return page_fig_end(w, e);
}

/* The looks at the test split, and the last look's rows. */
static void test_(struct page *w) {
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
  page_esc(f, "Looked at %d time%s (first %s, last %s), %d configuration%s in all: its figures are no "
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
    page_esc(f, unit[0] ? "test.%s[%s]" : "test.%s", key[i], unit);
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
    fprintf(f, "<tr><td>%d</td><td>%s</td>", t->trial, report_num(val * sv, "%.6g", a, sizeof a));
    for (int i = 0; i < 4; i++) {
      int j = metrics_find(key[i]);
      fprintf(f, "<td>%s</td>", report_num(t->metrics[j] * report_metric_scale(s, j, &unit), "%.6g",
                                     a, sizeof a));
    }
    fprintf(f, "<td>%s</td>", report_num(t->psr, "%.4f", a, sizeof a));
    fprintf(f, "<td>%s</td></tr>\n", report_num(t->dsr, "%.4f", a, sizeof a));
  }
  fputs("</tbody></table></div>\n<p class=\"legend\">", f);
  page_esc(f, "test DSR: against the expected best Sharpe of the %d configuration%s ever looked at on "
          "the test split; each look at the test split spends it.",
       rec->n_seen, rec->n_seen > 1 ? "s" : "");
  fputs("</p>\n", f);
}

/* The non-dominated trials of a study with several objectives (report_front). */
static int pareto_(struct page *w, struct fox_err *e) {
  const struct study *s = w->s;
  FILE *f = w->f;
  if (s->n_obj < 2)
    return 0;
  int *ids = malloc((size_t)(s->n ? s->n : 1) * sizeof *ids);
  int *pid = malloc((size_t)(s->n ? s->n : 1) * sizeof *pid); /* each mark's trial */
  double *x = malloc((size_t)(s->n ? s->n : 1) * sizeof *x);
  double *y = malloc((size_t)(s->n ? s->n : 1) * sizeof *y);
  if (!ids || !pid || !x || !y) {
    free(ids), free(pid), free(x), free(y);
    return -1;
  }
  int nf = report_front(s, ids);
  if (nf < 0) {
    free(ids), free(pid), free(x), free(y);
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
    page_esc(f, "%d of the %d feasible complete trials are on the front: no other feasible one is at "
            "least as good in every objective and better in one (%d more break a constraint and "
            "are never on it).",
         nf, feasible, valued - feasible);
  else
    page_esc(f, "%d of the %d complete trials with every objective are on the front: no other is at "
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
    pid[m] = i;
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
  page_fig_start(w, "pareto", title);
  svg_begin(&g, page_fig(w), 600, 330, title);
  svg_axes(&g, xl, yl, NULL, 0);
  struct svg_titles tt = {pid, page_point_title, s, PAGE_TITLES_MAX};
  svg_marks_title(&g, x, y, m, 'o', "dom", &tt);
  /* the front sorted by the first objective (ids ascending by report_front) */
  long q = 0;
  for (int i = 0; i < nf; i++) {
    const struct study_trial *t = &s->trials[ids[i]];
    double v = t->metrics[s->obj_metric[0]] * sx, u = t->metrics[s->obj_metric[1]] * sy;
    long at = q++;
    while (at > 0 && x[at - 1] > v) {
      x[at] = x[at - 1], y[at] = y[at - 1], pid[at] = pid[at - 1];
      at--;
    }
    x[at] = v, y[at] = u, pid[at] = ids[i];
  }
  if (s->n_obj == 2)
    svg_line(&g, x, y, q, "frontline");
  svg_marks_title(&g, x, y, q, 'o', "front", &tt);
  svg_end(&g);
  page_fig_part(w, &g, NULL);
  fputs("<figcaption class=\"legend\">", f);
  page_key(w, "o", "front", "on the front");
  page_key(w, "o", "dom", s->n_con > 0 ? "dominated or infeasible" : "dominated");
  if (s->n_obj > 2) {
    page_esc(f, "(the first two of %d objectives)", s->n_obj);
    page_fig_note(w, "The first two of %d objectives.", s->n_obj);
  }
  fputs("</figcaption></figure>\n<div class=\"scroll\"><table id=\"pareto-rows\">\n"
        "<thead><tr><th>id</th>", f);
  for (int k = 0; k < s->n_obj; k++) {
    char lab[FOX_NAME_LEN + 32];
    report_metric_label(s, s->obj_metric[k], lab, sizeof lab);
    fputs("<th>", f);
    page_esc(f, "%s (%s)", lab, s->obj_dir[k] == FOX_MAXIMIZE ? "max" : "min");
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
      double v = t->metrics[j] * report_metric_scale(s, j, &unit);
      fprintf(f, "<td>%s</td>", report_num(v, "%.6g", a, sizeof a));
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
  free(ids), free(pid), free(x), free(y);
  return page_fig_end(w, e);
}

/* A section's status: its error, or out of memory when it failed an allocation of its own (-1,
 * e not set). */
static int sect_(int rc, struct fox_err *e) {
  if (rc == 0)
    return 0;
  return e->code ? e->code : fox_errf(e, FOX_EFAIL, "report.html: out of memory");
}

static int body_(struct page *w, struct fox_err *e) {
  if (head_(w) != 0)
    return fox_errf(e, FOX_EFAIL, "report.html: out of memory");
  table_(w);
  FOX_TRY(sect_(pbt_(w, e), e));
  FOX_TRY(sect_(plots_history(w, e), e));
  FOX_TRY(sect_(plots_curves(w, e), e));
  FOX_TRY(sect_(plots_timeline(w, e), e));
  FOX_TRY(sect_(plots_parallel(w, e), e));
  FOX_TRY(sect_(plots_importance(w, e), e));
  FOX_TRY(sect_(plots_params(w, e), e));
  FOX_TRY(sect_(plots_equity(w, e), e));
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
  struct page w = {.p = p, .s = p->s, .f = f, .notes = notes, .sink = sink};
  int rc = body_(&w, e);
  fclose(sink);
  return fs_out_fclose(&o, f, rc, e);
}

int html_figures(const struct html_page *p, FILE *notes, struct fox_err *e) {
  FILE *sink = fopen("/dev/null", "w");
  if (!sink)
    return fox_errf(e, FOX_EFAIL, "/dev/null: cannot be opened");
  /* the page's text goes nowhere; its notes name the figure files, not report.html */
  struct page w = {.p = p, .s = p->s, .f = sink, .notes = notes, .sink = sink, .files_only = 1};
  int rc = body_(&w, e);
  fclose(sink);
  return rc;
}
