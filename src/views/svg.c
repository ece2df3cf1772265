/* Inline SVG plots: axes with nice ticks, thinned lines, marks and bars, in viewBox units. */
#include "views/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/text.h"

void svg_axis_fit(struct svg_axis *a, const double *v, long n, double pad) {
  double lo = INFINITY, hi = -INFINITY;
  for (long i = 0; i < n; i++)
    if (isfinite(v[i]) && (!a->log || v[i] > 0)) {
      lo = v[i] < lo ? v[i] : lo;
      hi = v[i] > hi ? v[i] : hi;
    }
  if (lo > hi) {
    a->lo = a->log ? 0.1 : 0;
    a->hi = 1;
    return;
  }
  if (a->log) {
    double f = lo == hi ? 10 : pow(hi / lo, pad);
    a->lo = lo / f;
    a->hi = hi * f;
  } else {
    double d = lo == hi ? (lo != 0 ? 0.1 * fabs(lo) : 1) : pad * (hi - lo);
    a->lo = lo - d;
    a->hi = hi + d;
  }
}

void svg_axis_include(struct svg_axis *a, double v) {
  if (!isfinite(v) || (a->log && v <= 0))
    return;
  a->lo = v < a->lo ? v : a->lo;
  a->hi = v > a->hi ? v : a->hi;
}

void svg_begin(struct svg *g, FILE *f, double w, double h, const char *title) {
  g->f = f;
  g->w = w;
  g->h = h;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %g %g\" width=\"100%%\" "
             "role=\"img\" aria-label=\"",
          w, h);
  text_escape_html(f, title);
  fputs("\"><title>", f);
  text_escape_html(f, title);
  fputs("</title>\n", f);
}

void svg_end(struct svg *g) { fputs("</svg>\n", g->f); }

static double frac_(const struct svg_axis *a, double v) {
  if (a->log)
    return (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
  return (v - a->lo) / (a->hi - a->lo);
}

double svg_px(const struct svg *g, double x) {
  return g->left + frac_(&g->x, x) * (g->w - g->left - g->right);
}

double svg_py(const struct svg *g, double y) {
  return g->h - g->bottom - frac_(&g->y, y) * (g->h - g->top - g->bottom);
}

/* Ticks of a linear axis: steps of 1, 2 or 5 times a power of ten, about `want` of them. */
static int ticks_lin_(const struct svg_axis *a, int want, double *t, int max) {
  double raw = (a->hi - a->lo) / want, p = pow(10, floor(log10(raw))), m = raw / p;
  double step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  if (a->integer && step < 1) /* epochs, generations, ids: no tick between two */
    step = 1;
  int n = 0;
  for (double k = ceil(a->lo / step); k * step <= a->hi * (1 + 1e-12) && n < max; k++)
    t[n++] = fabs(k) < 0.5 ? 0 : k * step; /* never "-0" */
  return n;
}

/* Ticks of a log axis: the powers of ten, every k-th when there are many, with 2 and 5 between
 * when there are fewer than two. */
static int ticks_log_(const struct svg_axis *a, int want, double *t, int max) {
  int d0 = (int)ceil(log10(a->lo) - 1e-9), d1 = (int)floor(log10(a->hi) + 1e-9), n = 0;
  if (d1 - d0 + 1 >= 2) {
    int every = (d1 - d0) / want + 1;
    for (int d = d0; d <= d1 && n < max; d += every)
      t[n++] = pow(10, d);
    return n;
  }
  for (int d = d0 - 1; d <= d1 && n < max; d++)
    for (int m = 1; m <= 5 && n < max; m += m == 1 ? 1 : 3) {
      double v = m * pow(10, d);
      if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9))
        t[n++] = v;
    }
  return n;
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian; Howard Hinnant's
 * days_from_civil), so that no non-standard timegm is needed. */
static long days_from_civil_(long y, int m, int d) {
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400;
  long yoe = y - era * 400;
  long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* The multiples of step within the axis. */
static int multiples_(const struct svg_axis *a, double step, double *t, int max) {
  int n = 0;
  for (double v = ceil(a->lo / step) * step; v <= a->hi && n < max; v += step)
    t[n++] = v;
  return n;
}

/* Ticks of a time axis (UTC seconds): round minutes, hours or days, or the first of months,
 * about `want` of them; *day says whether they fall on days (labelled as dates). */
static int ticks_time_(const struct svg_axis *a, int want, double *t, int max, int *day) {
  static const double steps[] = {1,    5,     10,    15,    30,     60,     300,    900,     1800,
                                 3600, 10800, 21600, 43200, 86400, 172800, 604800, 1209600};
  double span = a->hi - a->lo;
  int n = 0;
  *day = 1;
  for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
    if (span / steps[k] <= want) {
      n = multiples_(a, steps[k], t, max);
      if (n < 2 && k > 0) /* at least two ticks: the finer step when this one leaves fewer */
        n = multiples_(a, steps[--k], t, max);
      *day = steps[k] >= 86400 ? 1 : steps[k] >= 60 ? 0 : -1; /* -1: seconds */
      return n;
    }
  /* months: every 1, 2, 3, 6 or 12 of them, then years by doubling, from a first of the month */
  int every = 1;
  while (span / (every * 30.44 * 86400) > want)
    every = every == 1 ? 2 : every == 2 ? 3 : every == 3 ? 6 : every == 6 ? 12 : 2 * every;
  time_t lo = (time_t)a->lo;
  struct tm m;
  gmtime_r(&lo, &m);
  int year = m.tm_year + 1900, mon = (m.tm_mon / every) * every;
  for (;;) {
    double v = 86400.0 * (double)days_from_civil_(year, mon + 1, 1);
    if (v > a->hi || n >= max)
      return n;
    if (v >= a->lo)
      t[n++] = v;
    mon += every;
    year += mon / 12;
    mon %= 12;
  }
}

void svg_axes(struct svg *g, const char *xlabel, const char *ylabel, const char *const *labels,
              int n) {
  FILE *f = g->f;
  double em = g->em > 0 ? g->em : 13, t[64];
  char b[64];
  /* about one tick per 45 units of height; the left margin holds the longest label (digits
   * about 0.6 em wide) and the rotated axis label beyond it */
  double y0 = g->h - g->bottom, y1 = g->top;
  int want_y = (int)((y0 - y1) / 45) > 2 ? (int)((y0 - y1) / 45) : 2;
  int ny = g->y.log ? ticks_log_(&g->y, want_y, t, 64) : ticks_lin_(&g->y, want_y, t, 64);
  size_t longest = 1;
  for (int i = 0; i < ny; i++) {
    snprintf(b, sizeof b, "%g", t[i]);
    longest = strlen(b) > longest ? strlen(b) : longest;
  }
  double need = (ylabel ? 1.3 * em : 0) + 8 + 0.6 * em * (double)longest;
  g->left = need > g->left ? need : g->left;
  need = 6 + em + (xlabel ? 4 + em : 0);
  g->bottom = need > g->bottom ? need : g->bottom;
  double x0 = g->left, x1 = g->w - g->right;
  y0 = g->h - g->bottom;
  fputs("<g class=\"ax\">", f);
  for (int i = 0; i < ny; i++) {
    double y = svg_py(g, t[i]);
    snprintf(b, sizeof b, "%g", t[i]);
    fprintf(f, "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" dy=\"0.35em\">%s</text>\n",
            x0, y, x1, y, x0 - 4, y, b);
  }
  /* x tick labels hang below the frame, whatever their size */
  double ty = y0 + 4 + 0.8 * em;
  if (labels) {
    int every = n > 0 && !g->all_labels ? (int)ceil(n / ((x1 - x0) / (5 * em))) : 1;
    for (int i = 0; i < n; i += every > 0 ? every : 1) {
      char s[40];
      double x = svg_px(g, i);
      /* a long choice is cut: the table shows it whole */
      snprintf(s, sizeof s, "%s", labels[i]);
      if (strlen(labels[i]) > 12)
        strcpy(s + 10, "..");
      fprintf(f, "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
              x, y0, x, y1, x, ty);
      text_escape_html(f, s);
      fputs("</text>\n", f);
    }
  } else {
    /* dates are about 10 characters: fewer of them */
    double per = g->x.time ? 7 * em : 6 * em;
    int want_x = (int)((x1 - x0) / per) > 2 ? (int)((x1 - x0) / per) : 2, day = 0;
    int nx = g->x.time  ? ticks_time_(&g->x, want_x, t, 64, &day)
             : g->x.log ? ticks_log_(&g->x, want_x, t, 64)
                        : ticks_lin_(&g->x, want_x, t, 64);
    for (int i = 0; i < nx; i++) {
      double x = svg_px(g, t[i]);
      snprintf(b, sizeof b, "%g", t[i]);
      if (g->x.time) {
        time_t sec = (time_t)t[i];
        struct tm m;
        gmtime_r(&sec, &m);
        strftime(b, sizeof b, day > 0 ? "%Y-%m-%d" : day == 0 ? "%m-%d %H:%M" : "%H:%M:%S", &m);
      }
      /* a label that would run off the picture's edge ends (starts) at it instead */
      double half = 0.3 * em * (double)strlen(b), tx = x;
      const char *anchor = "middle";
      if (x + half > g->w - 1)
        tx = g->w - 1, anchor = "end";
      else if (x - half < 1)
        tx = 1, anchor = "start";
      fprintf(f, "<line class=\"gr\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
              x, y0, x, y1, tx, ty, anchor, b);
    }
  }
  fprintf(f, "<rect class=\"fr\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0, y1,
          x1 - x0, y0 - y1);
  if (xlabel) {
    fprintf(f, "<text class=\"lab\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
            (x0 + x1) / 2, g->h - 5);
    text_escape_html(f, xlabel);
    fputs("</text>", f);
  }
  if (ylabel) {
    fprintf(f, "<text class=\"lab\" transform=\"translate(%.1f %.1f) rotate(-90)\" "
               "text-anchor=\"middle\">",
            1.05 * em, (y0 + y1) / 2);
    text_escape_html(f, ylabel);
    fputs("</text>", f);
  }
  fputs("</g>\n", f);
}

static int shown_(const struct svg_axis *a, double v) { return isfinite(v) && (!a->log || v > 0); }

static void line_(struct svg *g, const double *x, const double *y, long n, const char *cls,
                  const char *title) {
  FILE *f = g->f;
  double width = g->w - g->left - g->right;
  int thin = n > (long)(4 * width);
  int pen = 0, any = 0; /* pen 0: the next point starts a piece */
  long i = 0;
  while (i < n) {
    if (!shown_(&g->x, x[i]) || !shown_(&g->y, y[i])) {
      pen = 0;
      i++;
      continue;
    }
    long j = i + 1;
    long keep[4] = {i, i, i, i}; /* first, lowest, highest, last of this half unit */
    if (thin) {
      long col = (long)floor(2 * svg_px(g, x[i]));
      for (; j < n && shown_(&g->x, x[j]) && shown_(&g->y, y[j]) &&
             (long)floor(2 * svg_px(g, x[j])) == col;
           j++) {
        if (y[j] < y[keep[1]])
          keep[1] = j;
        if (y[j] > y[keep[2]])
          keep[2] = j;
        keep[3] = j;
      }
      if (keep[1] > keep[2]) { /* in the order they happened */
        long t = keep[1];
        keep[1] = keep[2];
        keep[2] = t;
      }
    }
    for (int k = 0; k < 4; k++) {
      if (k > 0 && keep[k] == keep[k - 1])
        continue;
      if (!any)
        fprintf(f, "<path class=\"%s\" d=\"", cls); /* none at all for no point */
      fprintf(f, "%s%.1f %.1f", pen ? " L" : any ? " M" : "M", svg_px(g, x[keep[k]]),
              svg_py(g, y[keep[k]]));
      pen = any = 1;
    }
    i = j;
  }
  if (any && title) { /* a hover title: the browser shows it, no script needed */
    fputs("\"><title>", f);
    text_escape_html(f, title);
    fputs("</title></path>\n", f);
  } else if (any) {
    fputs("\"/>\n", f);
  }
}

void svg_line(struct svg *g, const double *x, const double *y, long n, const char *cls) {
  line_(g, x, y, n, cls, NULL);
}

void svg_line_title(struct svg *g, const double *x, const double *y, long n, const char *cls,
                    const char *title) {
  line_(g, x, y, n, cls, title);
}

static void marks_(struct svg *g, const double *x, const double *y, long n, char shape,
                   const char *cls, const struct svg_titles *t) {
  FILE *f = g->f;
  char buf[1200];
  fprintf(f, "<g class=\"%s\">", cls);
  for (long i = 0; i < n; i++) {
    if (!shown_(&g->x, x[i]) || !shown_(&g->y, y[i]))
      continue;
    double px = svg_px(g, x[i]), py = svg_py(g, y[i]);
    if (shape == 'x')
      fprintf(f, "<path d=\"M%.1f %.1fl6 6m0 -6l-6 6\"", px - 3, py - 3);
    else
      fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\"", px, py);
    if (t && t->id[i] < t->max) { /* its hover title: the browser shows it, no script needed */
      buf[0] = '\0';
      t->title(t->ctx, t->id[i], buf, sizeof buf);
      fputs("><title>", f);
      text_escape_html(f, buf);
      fputs(shape == 'x' ? "</title></path>" : "</title></circle>", f);
    } else {
      fputs("/>", f);
    }
  }
  fputs("</g>\n", f);
}

void svg_marks(struct svg *g, const double *x, const double *y, long n, char shape,
               const char *cls) {
  marks_(g, x, y, n, shape, cls, NULL);
}

void svg_marks_title(struct svg *g, const double *x, const double *y, long n, char shape,
                     const char *cls, const struct svg_titles *t) {
  marks_(g, x, y, n, shape, cls, t);
}

void svg_vline(struct svg *g, double x, const char *cls) {
  if (!shown_(&g->x, x))
    return;
  double px = svg_px(g, x);
  fprintf(g->f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", cls, px,
          g->top, px, g->h - g->bottom);
}

void svg_hline(struct svg *g, double y, const char *cls) {
  if (!shown_(&g->y, y))
    return;
  double py = svg_py(g, y);
  fprintf(g->f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", cls,
          g->left, py, g->w - g->right, py);
}

static void bar_(struct svg *g, double x0, double x1, double y, const char *cls,
                 const char *title) {
  double a = svg_px(g, x0), b = svg_px(g, x1), top = svg_py(g, y), base = svg_py(g, 0);
  fprintf(g->f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", cls,
          a, top < base ? top : base, b - a, fabs(base - top));
  if (title) {
    fputs("><title>", g->f);
    text_escape_html(g->f, title);
    fputs("</title></rect>\n", g->f);
  } else {
    fputs("/>\n", g->f);
  }
}

void svg_bar(struct svg *g, double x0, double x1, double y, const char *cls) {
  bar_(g, x0, x1, y, cls, NULL);
}

void svg_bar_title(struct svg *g, double x0, double x1, double y, const char *cls,
                   const char *title) {
  bar_(g, x0, x1, y, cls, title);
}

void svg_text(struct svg *g, double px, double py, const char *anchor, const char *cls,
              const char *s) {
  fprintf(g->f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", cls, px, py,
          anchor);
  text_escape_html(g->f, s);
  fputs("</text>\n", g->f);
}
