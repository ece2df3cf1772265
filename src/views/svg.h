/* Plots as inline SVG for the report's HTML page: a plot area with linear or log axes, nice
 * ticks, lines, marks and bars. Everything is drawn in viewBox units, styled by the page's CSS
 * classes, so a plot scales with the page and needs no font, script or file of its own. */
#ifndef FOX_SVG_H
#define FOX_SVG_H

#include <stdio.h>

struct svg_axis {
  double lo, hi; /* the data range shown (log: lo > 0) */
  int log;
  int time; /* x only: the values are UTC seconds, ticked at round times and labelled as dates */
  int integer; /* counts (epochs, generations, ids): ticks at whole numbers only */
};

struct svg {
  FILE *f;
  double w, h;                   /* the viewBox */
  double left, right, top, bottom; /* margins around the plot area (svg_axes widens them) */
  double em; /* the largest font size (viewBox units) the page's CSS gives its axes' text, on
                any screen: the margins are made to hold labels that size (0: 13) */
  struct svg_axis x, y;
  int all_labels; /* svg_axes: every x label drawn (parallel axes), none left out for room */
};

/* The range of the finite values of v[0..n) (the positive ones for a log axis) widened by `pad`
 * of its span on each side (a factor on a log axis); a single value gets a span around it, no
 * value [0, 1]. */
void svg_axis_fit(struct svg_axis *a, const double *v, long n, double pad);
/* Widens a to hold v too. */
void svg_axis_include(struct svg_axis *a, double v);

/* "<svg ...>" with the viewBox, width 100 %, role img and `title` (escaped) as its name. */
void svg_begin(struct svg *g, FILE *f, double w, double h, const char *title);
void svg_end(struct svg *g);
/* A data value's position in viewBox units. */
double svg_px(const struct svg *g, double x);
double svg_py(const struct svg *g, double y);
/* The frame, grid lines and tick labels of both axes, and the axis labels (escaped; NULL for
 * none). With labels (n > 0), the x ticks are those labels at 0 .. n-1 instead of numbers.
 * Call it before drawing any data: it widens the left and bottom margins to fit the labels. */
void svg_axes(struct svg *g, const char *xlabel, const char *ylabel, const char *const *labels,
              int n);
/* A line through (x[i], y[i]); a NaN breaks it. Long series are thinned to the first, lowest,
 * highest and last point of each half unit of width, which draws the same picture. */
void svg_line(struct svg *g, const double *x, const double *y, long n, const char *cls);
/* svg_line with a hover title (SVG <title>, escaped): what the line is, shown by the browser. */
void svg_line_title(struct svg *g, const double *x, const double *y, long n, const char *cls,
                    const char *title);
/* A mark at each finite (x[i], y[i]): 'o' a circle (filled or not by cls), 'x' a cross. */
void svg_marks(struct svg *g, const double *x, const double *y, long n, char shape,
               const char *cls);
/* Hover titles of marks: mark i's is title(ctx, id[i], buf, n), for id[i] < max only. */
struct svg_titles {
  const int *id;
  void (*title)(const void *ctx, int id, char *buf, size_t n);
  const void *ctx;
  int max;
};
/* svg_marks, each mark with its hover title (SVG <title>, escaped). */
void svg_marks_title(struct svg *g, const double *x, const double *y, long n, char shape,
                     const char *cls, const struct svg_titles *t);
/* A line across the plot area at data x (vertical) or y (horizontal). */
void svg_vline(struct svg *g, double x, const char *cls);
void svg_hline(struct svg *g, double y, const char *cls);
/* A bar from y = 0 to y over [x0, x1). */
void svg_bar(struct svg *g, double x0, double x1, double y, const char *cls);
/* svg_bar with a hover title (escaped). */
void svg_bar_title(struct svg *g, double x0, double x1, double y, const char *cls,
                   const char *title);
/* Text (escaped) at viewBox position (px, py); anchor "start", "middle" or "end". */
void svg_text(struct svg *g, double px, double py, const char *anchor, const char *cls,
              const char *s);

#endif
