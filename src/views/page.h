/* What the report page's sections share (src/views/html.c, study_plots.c, equity.c): the page
 * being written, its figure (figure.h: drawn once for the page and the files), and the small
 * writers every section uses. */
#ifndef FOX_VIEWS_PAGE_H
#define FOX_VIEWS_PAGE_H

#include <stdio.h>

#include "study/study.h"
#include "util/error.h"
#include "views/figure.h"
#include "views/html.h"
#include "views/svg.h"

struct page {
  const struct html_page *p;
  const struct study *s;
  FILE *f, *notes;
  struct figure fig; /* the figure being drawn: the page's and its files' */
  int fig_open, fig_failed;
  FILE *sink;     /* where a part goes when its stream cannot be had (fig_failed says so) */
  int files_only; /* html_figures: no page */
};

/* Figure `name` begins: its parts and keys go to the page and its files (figure.h). */
void page_fig_start(struct page *w, const char *name, const char *title);
/* The stream the figure's next part is drawn into. */
FILE *page_fig(struct page *w);
/* The part drawn on g ends: into the page, kept for the files (`caption` under it there). */
void page_fig_part(struct page *w, const struct svg *g, const char *caption);
/* A panel of a figure of panels ends: the part drawn on g, then its caption (escaped) under it
 * on the page and in the file, and the page's <figure> closed. */
void page_panel_end(struct page *w, const struct svg *g, const char *caption);
/* The figure ends: its files written (html_page.files). */
int page_fig_end(struct page *w, struct fox_err *e);
/* A sentence of the figure's caption that its files must say too (what was left out, how
 * coarse it is), printf-style. */
void page_fig_note(struct page *w, const char *fmt, ...);
/* printf, escaped. */
void page_esc(FILE *f, const char *fmt, ...);
/* What the page cannot show, in the page and on the notes. */
void page_note(struct page *w, const char *fmt, ...);
/* A legend entry: the mark ('o', 'x', '-', or a box) as the plots draw it, then the text
 * (escaped); the figure being drawn keeps it for its file. */
void page_key(struct page *w, const char *mark, const char *cls, const char *text);
/* The objective of trial t in the units the report shows it in; NaN when it has none to draw. */
double page_objective(const struct study *s, const struct study_trial *t);
/* "trial ID (status, N epochs): key=value, ..." for a hover title. */
void page_trial_title(const struct study *s, const struct study_trial *t, char *buf, size_t n);
/* svg_titles' title of trial `id` of the study ctx: page_trial_title and its objectives'
 * values with their units. */
void page_point_title(const void *ctx, int id, char *buf, size_t n);
/* The same, short, for a panel of parameter `param` (ctx a struct page_panel): the trial, its
 * status, that parameter's value and the objectives. */
struct page_panel {
  const struct study *s;
  int param;
};
void page_panel_title(const void *ctx, int id, char *buf, size_t n);
/* Marks of trials from this id on have no hover title (a page of a large study stays a file
 * to keep or mail; the learning curves and the timeline stop there too). */
#define PAGE_TITLES_MAX 2000
/* The CSS class of a trial's mark by status. */
extern const char *const page_mark_cls[4];

/* The study's figures (study_plots.c): each a section of the page with its figure files. */
int plots_history(struct page *w, struct fox_err *e);
int plots_curves(struct page *w, struct fox_err *e);
int plots_timeline(struct page *w, struct fox_err *e);
int plots_parallel(struct page *w, struct fox_err *e);
int plots_importance(struct page *w, struct fox_err *e);
int plots_params(struct page *w, struct fox_err *e);
/* A pbt study's best member's schedule: ids[0 .. n) its lineage (pbt_report_lineage). */
int plots_schedule(struct page *w, const int *ids, int n, struct fox_err *e);
/* The best trial's equity against buy-and-hold (equity.c). */
int plots_equity(struct page *w, struct fox_err *e);

#endif
