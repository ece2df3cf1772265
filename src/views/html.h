/* foxopt report --html: the whole report as one self-contained page, OUTDIR/report.html (inline
 * CSS and SVG drawn here; no script, font, image or fetch of any kind), readable on a phone. */
#ifndef FOX_HTML_H
#define FOX_HTML_H

#include <stdio.h>

#include "views/figure.h"
#include "report/overfit.h"
#include "report/test_split.h"
#include "study/study.h"

struct html_page {
  const struct study *s;
  const int *order;   /* report_rank's */
  int top;            /* rows of the table */
  const char *outdir; /* where the trial files are */
  const struct overfit *fig;      /* the selection figures, NULL when there are none */
  const struct test_record *rec;  /* the test looks (looks = 0: none) */
  const struct figure_out *files; /* each figure also as OUTDIR/NAME.svg (.png); NULL: none */
};

/* Writes the page to `path` through a temporary name and a rename, so that a failure leaves
 * any earlier page whole. What the page cannot show (no buy-and-hold without the dataset, an
 * equity curve newer than study.h5) it says in the page, and on `notes`. */
int html_write(const struct html_page *p, const char *path, FILE *notes, struct fox_err *e);
/* The page's figures as files alone (p->files), no page written: `foxopt report` without
 * --html. */
int html_figures(const struct html_page *p, FILE *notes, struct fox_err *e);

#endif
