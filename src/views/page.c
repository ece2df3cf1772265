/* The report page's shared writers (page.h): its figure's life, escaped text, notes, legend
 * entries. */
#include "views/page.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "report/report.h"
#include "util/text.h"

/* Figure `name` begins: its parts and keys go to the page and its files (figure.h). */
void page_fig_start(struct page *w, const char *name, const char *title) {
  char head[sizeof w->fig.title + 8];
  snprintf(head, sizeof head, "study %.120s: %.120s", w->s->cfg.study.name, title);
  figure_init(&w->fig, name, head);
  w->fig_open = 1;
  w->fig_failed = 0;
}

/* The stream the figure's next part is drawn into. */
FILE *page_fig(struct page *w) {
  struct fox_err ignore = {0};
  FILE *f = w->fig.mem ? w->fig.mem : figure_part_begin(&w->fig, &ignore);
  if (!f)
    w->fig_failed = 1;
  return f ? f : w->sink;
}

/* The part drawn on g ends: into the page, kept for the files. */
void page_fig_part(struct page *w, const struct svg *g, const char *caption) {
  struct fox_err ignore = {0};
  if (!w->fig.mem || figure_part_end(&w->fig, w->f, g->w, g->h, caption, &ignore) != 0)
    w->fig_failed = 1;
}

/* The figure ends: its files written (html_page.files). */
void page_panel_end(struct page *w, const struct svg *g, const char *caption) {
  page_fig_part(w, g, caption);
  fputs("<figcaption>", w->f);
  text_escape_html(w->f, caption);
  fputs("</figcaption></figure>\n", w->f);
}

int page_fig_end(struct page *w, struct fox_err *e) {
  w->fig_open = 0;
  if (w->fig_failed) {
    int rc = fox_errf(e, FOX_EFAIL, "report: out of memory for figure %s", w->fig.name);
    figure_free(&w->fig);
    return rc;
  }
  return figure_write(&w->fig, w->p->files, e);
}

void page_fig_note(struct page *w, const char *fmt, ...) {
  char buf[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (w->fig_open)
    figure_note(&w->fig, buf);
}

/* printf, escaped. */
void page_esc(FILE *f, const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  text_escape_html(f, buf);
}

/* What the page cannot show, in the page and on the notes. */
void page_note(struct page *w, const char *fmt, ...) {
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

/* A legend entry: the mark or line as drawn in the plots, then the text (escaped); the
 * figure being drawn keeps it for its file. */
void page_key(struct page *w, const char *mark, const char *cls, const char *text) {
  FILE *f = w->f;
  if (w->fig_open)
    figure_key(&w->fig, mark[0], cls, text);
  fputs("<svg class=\"sw\" viewBox=\"0 0 12 12\" aria-hidden=\"true\">", f);
  figure_glyph(f, mark[0], cls);
  fputs("</svg> ", f);
  text_escape_html(f, text);
  fputs(" &#160; ", f);
}

/* The objective of trial t in the units the report shows it in; NaN when it has none to draw. */
double page_objective(const struct study *s, const struct study_trial *t) {
  const char *unit;
  double v = t->metrics[s->objective] * report_metric_scale(s, s->objective, &unit);
  return t->status == FOX_ST_FAILED || t->epochs == 0 || !isfinite(v) ? NAN : v;
}

const char *const page_mark_cls[4] = {[FOX_ST_COMPLETE] = "c", [FOX_ST_PRUNED] = "p",
                                         [FOX_ST_FAILED] = "", [FOX_ST_RUNNING] = "r"};

void page_trial_title(const struct study *s, const struct study_trial *t, char *buf, size_t n) {
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

/* "; METRIC V[ UNIT]" for each objective of t, in the units the page shows them in. */
static void objectives_(const struct study *s, const struct study_trial *t, char *buf, size_t n) {
  for (int k = 0; k < s->n_obj; k++) {
    size_t at = strlen(buf);
    int j = s->obj_metric[k];
    const char *unit;
    double v = t->metrics[j] * report_metric_scale(s, j, &unit);
    if (at + 1 < n)
      snprintf(buf + at, n - at, "; %s %.6g%s%s", s->metric_names[j], v, unit[0] ? " " : "",
               unit);
  }
}

void page_point_title(const void *ctx, int id, char *buf, size_t n) {
  const struct study *s = ctx;
  page_trial_title(s, &s->trials[id], buf, n);
  objectives_(s, &s->trials[id], buf, n);
}

void page_panel_title(const void *ctx, int id, char *buf, size_t n) {
  const struct page_panel *p = ctx;
  const struct study *s = p->s;
  const struct study_trial *t = &s->trials[id];
  char v[FOX_CHOICE_LEN];
  space_format(&s->space.p[p->param], t->x[p->param], v, sizeof v);
  snprintf(buf, n, "trial %d (%s): %s=%s", t->id, study_status_names[t->status],
           s->space.p[p->param].key, v);
  objectives_(s, t, buf, n);
}
