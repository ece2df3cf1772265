/* One progress line on rank 0: redrawn in place on a terminal, plain lines otherwise (logs). */
#ifndef FOX_PROGRESS_H
#define FOX_PROGRESS_H

#include <stdio.h>

struct progress {
  FILE *f;
  int tty;
  int drawn;    /* a line is on screen that a newline must end */
  double shown; /* the caller's clock when it last drew a line it throttles (-1: never) */
};

void progress_init(struct progress *p, FILE *f);
void progress_line(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends a redrawn line before other output. */
void progress_end(struct progress *p);
/* "3m04s", "1h02m", "12s" */
void progress_duration(double seconds, char *out, size_t n);

#endif
