/* Progress lines: "\r" and erase-to-end on a TTY; one line per update elsewhere. */
#include "util/progress.h"

#include <math.h>
#include <stdarg.h>
#include <unistd.h>

void progress_init(struct progress *p, FILE *f) {
  p->f = f;
  p->tty = isatty(fileno(f));
  p->drawn = 0;
  p->shown = -1;
}

void progress_line(struct progress *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (p->tty)
    fputs("\r\033[K", p->f);
  vfprintf(p->f, fmt, ap);
  va_end(ap);
  if (!p->tty)
    fputc('\n', p->f);
  p->drawn = p->tty;
  fflush(p->f);
}

void progress_end(struct progress *p) {
  if (p->drawn)
    fputc('\n', p->f);
  p->drawn = 0;
  fflush(p->f);
}

void progress_duration(double seconds, char *out, size_t n) {
  if (!isfinite(seconds) || seconds < 0) {
    snprintf(out, n, "?");
    return;
  }
  long s = lround(seconds);
  if (s < 60)
    snprintf(out, n, "%lds", s);
  else if (s < 3600)
    snprintf(out, n, "%ldm%02lds", s / 60, s % 60);
  else
    snprintf(out, n, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
}
