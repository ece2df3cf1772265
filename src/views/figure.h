/* A report figure drawn once: its SVG parts go inline into report.html and, the same bytes, into
 * a standalone OUTDIR/NAME.svg (its title, the parts in a grid, the legend) and NAME.png
 * (that SVG rasterised by librsvg). One plotting path for the page and the files. */
#ifndef FOX_FIGURE_H
#define FOX_FIGURE_H

#include <stdio.h>

#include "util/error.h"

#define FIGURE_PARTS_MAX 64
#define FIGURE_KEYS_MAX 8
#define FIGURE_NOTES_MAX 8

/* Where a report's figure files go: NULL outdir for none (the page alone). */
struct figure_out {
  const char *outdir;
  int png;    /* NAME.png beside NAME.svg */
  FILE *out;  /* "wrote PATH" for each file */
};

struct figure_part {
  char *svg; /* "<svg ...>...</svg>", as drawn */
  size_t len;
  double w, h; /* its viewBox */
  char caption[96];
};

struct figure_key {
  char mark; /* 'o', 'x', '-' or 'b' (a box), as the page's legend draws it */
  char cls[24];
  char text[96];
};

struct figure {
  char name[64];   /* the file stem: history, best_equity, params, ... */
  char title[256]; /* the standalone file's heading */
  struct figure_part part[FIGURE_PARTS_MAX];
  int n_parts;
  struct figure_key key[FIGURE_KEYS_MAX];
  int n_keys;
  char note[FIGURE_NOTES_MAX][320]; /* what the page's caption says beyond the legend */
  int n_notes, n_dropped;           /* notes past FIGURE_NOTES_MAX are counted, not kept */
  FILE *mem; /* the part being drawn */
  char *buf;
  size_t len;
};

/* The CSS of every figure's SVG (marks, lines, axes, type): the page's <style> holds it, and
 * so does each standalone file. */
extern const char figure_css[];

/* A figure named `name` (a file stem of [A-Za-z0-9_.-]) with heading `title`. */
void figure_init(struct figure *fg, const char *name, const char *title);
/* The stream to draw the next part's <svg> into (NULL with e set when memory runs out). */
FILE *figure_part_begin(struct figure *fg, struct fox_err *e);
/* Ends that part (viewBox w x h, `caption` under it in the file; NULL for none) and copies it to
 * `page` (NULL: no page; a write error there is the page's stream's, found when it closes). */
int figure_part_end(struct figure *fg, FILE *page, double w, double h, const char *caption,
                    struct fox_err *e);
/* A legend entry of the standalone file (the page draws its own). */
void figure_key(struct figure *fg, char mark, const char *cls, const char *text);
/* A sentence under the standalone file's legend (the page's caption says it): what was left
 * out, how coarse the figure is. */
void figure_note(struct figure *fg, const char *text);
/* A legend mark in a 12 x 12 box: 'o' a circle, 'x' a cross, '-' a line, else a box, of class
 * cls (the page's legend and the files' draw the same). */
void figure_glyph(FILE *f, char mark, const char *cls);
/* Writes OUTDIR/NAME.svg (and NAME.png) when o and o->outdir are set and the figure has parts,
 * each as any output (fs_out_guard: never over a file of the study; a link's target written, a
 * FIFO refused); then frees the figure. */
int figure_write(struct figure *fg, const struct figure_out *o, struct fox_err *e);
/* Frees a figure not written (after an error). */
void figure_free(struct figure *fg);

/* The standalone SVG of a figure (a string to free) and its size in pixels. */
char *figure_standalone(const struct figure *fg, size_t *len, double *w, double *h);

#endif
