/* raster.h through librsvg 2.46+ (rsvg_handle_render_document) and cairo's PNG writer. */
#include "views/raster.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sink_ {
  unsigned char *buf;
  size_t len, cap;
  int failed;
};

static cairo_status_t write_(void *closure, const unsigned char *data, unsigned int n) {
  struct sink_ *s = closure;
  if (s->len + n > s->cap) {
    size_t cap = s->cap ? s->cap : 65536;
    while (cap < s->len + n)
      cap *= 2;
    unsigned char *b = realloc(s->buf, cap);
    if (!b) {
      s->failed = 1;
      return CAIRO_STATUS_NO_MEMORY;
    }
    s->buf = b;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, data, n);
  s->len += n;
  return CAIRO_STATUS_SUCCESS;
}

int raster_png(const char *svg, size_t len, double scale, void **png, size_t *png_len,
               const char *what, struct fox_err *e) {
  *png = NULL;
  *png_len = 0;
  GError *err = NULL;
  RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, (gsize)len, &err);
  if (!h) {
    int rc = fox_errf(e, FOX_EFAIL, "%s: librsvg cannot read the figure: %s", what,
                      err ? err->message : "no reason given");
    if (err)
      g_error_free(err);
    return rc;
  }
  gdouble w = 0, hgt = 0;
  if (!rsvg_handle_get_intrinsic_size_in_pixels(h, &w, &hgt) || !(w > 0) || !(hgt > 0)) {
    g_object_unref(h);
    return fox_errf(e, FOX_EFAIL, "%s: the figure has no size in pixels", what);
  }
  int pw = (int)ceil(w * scale), ph = (int)ceil(hgt * scale);
  cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    g_object_unref(h);
    return fox_errf(e, FOX_EFAIL, "%s: cairo cannot make a %d x %d image", what, pw, ph);
  }
  cairo_t *cr = cairo_create(surf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  RsvgRectangle vp = {0, 0, pw, ph};
  int rc = 0;
  if (!rsvg_handle_render_document(h, cr, &vp, &err)) {
    rc = fox_errf(e, FOX_EFAIL, "%s: librsvg cannot draw the figure: %s", what,
                  err ? err->message : "no reason given");
    if (err)
      g_error_free(err);
  }
  if (rc == 0 && cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    rc = fox_errf(e, FOX_EFAIL, "%s: cairo: %s", what, cairo_status_to_string(cairo_status(cr)));
  cairo_destroy(cr);
  struct sink_ s = {0};
  if (rc == 0) {
    cairo_status_t st = cairo_surface_write_to_png_stream(surf, write_, &s);
    if (st != CAIRO_STATUS_SUCCESS || s.failed)
      rc = fox_errf(e, FOX_EFAIL, "%s: the PNG cannot be encoded: %s", what,
                    cairo_status_to_string(st));
  }
  cairo_surface_destroy(surf);
  g_object_unref(h);
  if (rc != 0) {
    free(s.buf);
    return rc;
  }
  *png = s.buf;
  *png_len = s.len;
  return 0;
}
