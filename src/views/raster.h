/* An SVG rasterised to PNG by librsvg and cairo (the report's PNGs are its SVG figures, drawn
 * by a maintained renderer rather than a second plotting program). */
#ifndef FOX_RASTER_H
#define FOX_RASTER_H

#include <stddef.h>

#include "util/error.h"

/* The PNG of svg[0..len) at `scale` device pixels per SVG pixel, on white, into *png (malloc'd,
 * *png_len bytes); `what` names it in errors. */
int raster_png(const char *svg, size_t len, double scale, void **png, size_t *png_len,
               const char *what, struct fox_err *e);

#endif
