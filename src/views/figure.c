/* A report figure drawn once (figure.h): parts captured from their SVG, copied into the page,
 * and composed into a standalone SVG file and its PNG. */
#include "views/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/raster.h"
#include "util/fsutil.h"
#include "util/text.h"

/* Colours by status, lines that keep their width however small a phone draws the plot. */
const char figure_css[] =
    "svg text{fill:#333;font-family:inherit}.ax text{font-size:12px}.ax .lab{font-size:13px}"
    ".fr{fill:none;stroke:#888}.gr{stroke:#ececec}"
    ".c{fill:#1f77b4}.p{fill:#fff;stroke:#ff7f0e;stroke-width:1.5}"
    ".r{fill:none;stroke:#7f7f7f;stroke-width:1.5}.dom{fill:#c4c4c4}.front{fill:#d62728}"
    ".best,.frontline{fill:none;stroke:#d62728;stroke-width:2}"
    ".eq{fill:none;stroke:#1f77b4;stroke-width:1.6}.bh{fill:none;stroke:#2ca02c;"
    "stroke-width:1.3}.ref{stroke:#999;stroke-dasharray:4 3}"
    ".zero{stroke:#d62728;stroke-dasharray:5 3;stroke-width:1.5}"
    ".bar{fill:#1f77b4;fill-opacity:.65}"
    "path.lc{fill:none;stroke-width:1.3;stroke-opacity:.6}path.lc.c{stroke:#1f77b4}"
    "path.lc.p{stroke:#ff7f0e}path.lc.r{stroke:#7f7f7f}path.lc:hover{stroke-opacity:1;"
    "stroke-width:2.5}.rung{stroke:#999;stroke-dasharray:2 3}"
    "path.tl{fill:none;stroke-width:4;stroke-linecap:square}path.tl.c{stroke:#1f77b4}"
    "path.tl.p{stroke:#ff7f0e}path.tl.r{stroke:#7f7f7f}path.tl.f{stroke:#bbb}"
    "path.tl:hover{stroke:#d62728}"
    "path.pc{fill:none;stroke:#1f77b4;stroke-width:1.2;stroke-opacity:.45}"
    "path.pc.top{stroke:#d62728;stroke-width:2.2;stroke-opacity:1}path.pc:hover{"
    "stroke-opacity:1;stroke-width:2.5}.pc-end{font-size:10px}"
    ".ex{fill:none;stroke:#ff7f0e;stroke-width:1.5}.seg{fill:#9ecae1}"
    "path,line,rect{vector-effect:non-scaling-stroke}";

void figure_init(struct figure *fg, const char *name, const char *title) {
  memset(fg, 0, sizeof *fg);
  snprintf(fg->name, sizeof fg->name, "%s", name);
  snprintf(fg->title, sizeof fg->title, "%s", title);
}

FILE *figure_part_begin(struct figure *fg, struct fox_err *e) {
  if (fg->n_parts >= FIGURE_PARTS_MAX) {
    fox_errf(e, FOX_EFAIL, "%s: more than %d parts", fg->name, FIGURE_PARTS_MAX);
    return NULL;
  }
  fg->buf = NULL;
  fg->len = 0;
  fg->mem = open_memstream(&fg->buf, &fg->len);
  if (!fg->mem)
    fox_errf(e, FOX_EFAIL, "%s: out of memory", fg->name);
  return fg->mem;
}

int figure_part_end(struct figure *fg, FILE *page, double w, double h, const char *caption,
                    struct fox_err *e) {
  if (!fg->mem)
    return fox_errf(e, FOX_EFAIL, "%s: no part begun", fg->name);
  int bad = ferror(fg->mem);
  if (fclose(fg->mem) != 0 || bad || !fg->buf) {
    fg->mem = NULL;
    free(fg->buf);
    fg->buf = NULL;
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", fg->name);
  }
  fg->mem = NULL;
  struct figure_part *p = &fg->part[fg->n_parts++];
  p->svg = fg->buf;
  p->len = fg->len;
  p->w = w;
  p->h = h;
  snprintf(p->caption, sizeof p->caption, "%s", caption ? caption : "");
  fg->buf = NULL;
  if (page) /* a write error stays on the page's stream, which says so when it is closed */
    fwrite(p->svg, 1, p->len, page);
  return 0;
}

void figure_key(struct figure *fg, char mark, const char *cls, const char *text) {
  if (fg->n_keys >= FIGURE_KEYS_MAX)
    return;
  struct figure_key *k = &fg->key[fg->n_keys++];
  k->mark = mark;
  snprintf(k->cls, sizeof k->cls, "%s", cls);
  snprintf(k->text, sizeof k->text, "%s", text);
}

void figure_note(struct figure *fg, const char *text) {
  if (fg->n_notes < FIGURE_NOTES_MAX)
    snprintf(fg->note[fg->n_notes++], sizeof fg->note[0], "%s", text);
  else
    fg->n_dropped++;
}

/* The notes wrapped at about `cols` characters into lines[] (pointers into buf); their number;
 * *cut_short = 1 when not all of them fitted in max lines. */
static int wrap_(const struct figure *fg, int cols, char *buf, size_t n, const char **lines,
                 int max, int *cut_short) {
  int k = 0;
  size_t at = 0;
  *cut_short = 0;
  for (int i = 0; i < fg->n_notes; i++) {
    const char *s = fg->note[i];
    if (k >= max) {
      *cut_short = 1;
      break;
    }
    while (*s) {
      if (k >= max || at >= n) {
        *cut_short = 1;
        break;
      }
      size_t len = strlen(s), end = len;
      if ((int)len > cols) { /* the last space before the column, or the column */
        end = (size_t)cols;
        while (end > 0 && s[end] != ' ')
          end--;
        if (end == 0)
          end = (size_t)cols;
      }
      if (at + end + 1 > n) {
        *cut_short = 1;
        break;
      }
      memcpy(buf + at, s, end);
      buf[at + end] = '\0';
      lines[k++] = buf + at;
      at += end + 1;
      s += end;
      while (*s == ' ')
        s++;
    }
  }
  return k;
}

void figure_free(struct figure *fg) {
  if (fg->mem)
    fclose(fg->mem);
  free(fg->buf);
  for (int i = 0; i < fg->n_parts; i++)
    free(fg->part[i].svg);
  memset(fg, 0, sizeof *fg);
}

#define HEAD_ 34.0 /* the title's band */
#define CAP_ 20.0  /* a part's caption */
#define KEYS_ 28.0 /* the legend's band */
#define LINE_ 17.0 /* a note's line */
#define LINES_MAX_ 12

void figure_glyph(FILE *f, char mark, const char *cls) {
  if (mark == 'o')
    fprintf(f, "<circle class=\"%s\" cx=\"6\" cy=\"6\" r=\"3.6\"/>", cls);
  else if (mark == 'x')
    fprintf(f, "<path class=\"%s\" d=\"M2.5 2.5l7 7m0 -7l-7 7\"/>", cls);
  else if (mark == '-')
    fprintf(f, "<path class=\"%s\" d=\"M0 6h12\"/>", cls);
  else
    fprintf(f, "<rect class=\"%s\" x=\"1\" y=\"2\" width=\"10\" height=\"8\"/>", cls);
}

/* A legend glyph at (x, y) (its centre line), as the page's legend draws it. */
static void glyph_(FILE *f, const struct figure_key *k, double x, double y) {
  fprintf(f, "<svg x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" viewBox=\"0 0 12 12\">",
          x, y - 6);
  figure_glyph(f, k->mark, k->cls);
  fputs("</svg>", f);
}

char *figure_standalone(const struct figure *fg, size_t *len, double *w, double *h) {
  int n = fg->n_parts, cols = n <= 1 ? 1 : (int)ceil(sqrt((double)n));
  int rows = n > 0 ? (n + cols - 1) / cols : 0;
  double cw = 0, ch = 0;
  int captions = 0;
  for (int i = 0; i < n; i++) {
    cw = fg->part[i].w > cw ? fg->part[i].w : cw;
    ch = fg->part[i].h > ch ? fg->part[i].h : ch;
    captions |= fg->part[i].caption[0] != '\0';
  }
  double cell_h = ch + (captions ? CAP_ : 0);
  *w = cols * cw > 480 ? cols * cw : 480;
  char text[FIGURE_NOTES_MAX * 340], more[96];
  const char *lines[LINES_MAX_ + 1];
  int cut, nl = wrap_(fg, (int)((*w - 20) / 7.0), text, sizeof text, lines, LINES_MAX_, &cut);
  if (cut || fg->n_dropped > 0) { /* notes not kept or not fitted: said, not lost silently */
    snprintf(more, sizeof more, "... and more notes: report.html has them all.");
    lines[nl++] = more;
  }
  *h = HEAD_ + rows * cell_h + (fg->n_keys ? KEYS_ : 0) + nl * LINE_ + 6;
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  if (!f)
    return NULL;
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
             "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
             "font-size=\"13\">\n<style>%s.hd{font-size:15px;font-weight:bold}"
             ".cap{font-size:13px}</style>\n"
             "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
             "<text class=\"hd\" x=\"10\" y=\"22\">",
          *w, *h, *w, *h, figure_css);
  text_escape_html(f, fg->title);
  fputs("</text>\n", f);
  for (int i = 0; i < n; i++) {
    const struct figure_part *p = &fg->part[i];
    double x = (i % cols) * cw, y = HEAD_ + (i / cols) * cell_h;
    /* a nested viewport: the part's own width="100%" is this cell's */
    fprintf(f, "<svg x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", x, y, cw, p->h);
    fwrite(p->svg, 1, p->len, f);
    fputs("</svg>\n", f);
    if (p->caption[0]) {
      fprintf(f, "<text class=\"cap\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
              x + cw / 2, y + p->h + 14);
      text_escape_html(f, p->caption);
      fputs("</text>\n", f);
    }
  }
  double kx = 10, ky = *h - 6 - nl * LINE_ - KEYS_ / 2;
  for (int i = 0; i < fg->n_keys; i++) {
    glyph_(f, &fg->key[i], kx, ky);
    fprintf(f, "<text class=\"cap\" x=\"%.1f\" y=\"%.1f\" dy=\"0.35em\">", kx + 16, ky);
    text_escape_html(f, fg->key[i].text);
    fputs("</text>\n", f);
    kx += 16 + 7.5 * (double)strlen(fg->key[i].text) + 18; /* about 0.58 em a character */
  }
  for (int i = 0; i < nl; i++) {
    fprintf(f, "<text class=\"cap\" x=\"10\" y=\"%.1f\">", *h - 6 - (nl - i - 1) * LINE_ - 4);
    text_escape_html(f, lines[i]);
    fputs("</text>\n", f);
  }
  fputs("</svg>\n", f);
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* OUTDIR/NAME.EXT as any output: never over a file of the study, a link's target written. */
static int put_(const struct figure_out *o, const char *name, const char *ext, const void *buf,
                size_t len, struct fox_err *e) {
  char path[4200];
  if (snprintf(path, sizeof path, "%s/%s.%s", o->outdir, name, ext) >= (int)sizeof path)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", o->outdir);
  FOX_TRY(fs_out_guard(path, e));
  int rc = fs_write_file(path, buf, len, e);
  if (rc == FOX_EFAIL) { /* a study one may read but not write (a colleague's, a read-only copy) */
    size_t at = strlen(e->msg);
    snprintf(e->msg + at, sizeof e->msg - at, " (--no-plots leaves the figure files out)");
  }
  FOX_TRY(rc);
  if (o->out)
    fprintf(o->out, "wrote %s\n", path);
  return 0;
}

int figure_write(struct figure *fg, const struct figure_out *o, struct fox_err *e) {
  int rc = 0;
  if (o && o->outdir && fg->n_parts > 0) {
    size_t len = 0;
    double w, h;
    char *svg = figure_standalone(fg, &len, &w, &h);
    rc = svg ? put_(o, fg->name, "svg", svg, len, e)
             : fox_errf(e, FOX_EFAIL, "%s.svg: out of memory", fg->name);
    if (rc == 0 && o->png) {
      void *png = NULL;
      size_t plen = 0;
      char what[96];
      snprintf(what, sizeof what, "%s.png", fg->name);
      rc = raster_png(svg, len, 2.0, &png, &plen, what, e);
      if (rc == 0)
        rc = put_(o, fg->name, "png", png, plen, e);
      free(png);
    }
    free(svg);
  }
  figure_free(fg);
  return rc;
}
