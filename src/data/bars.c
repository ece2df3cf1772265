/* Growable OHLCV columns. */
#include "data/bars.h"

#include <stdlib.h>

int bars_reserve(struct bars *b, size_t cap, struct fox_err *e) {
  if (cap <= b->cap)
    return 0;
  int64_t *ts = realloc(b->ts, cap * sizeof *ts);
  mallocCheck(ts, e);
  b->ts = ts;
  double **cols[5] = {&b->open, &b->high, &b->low, &b->close, &b->volume};
  for (int i = 0; i < 5; i++) {
    double *p = realloc(*cols[i], cap * sizeof *p);
    mallocCheck(p, e);
    *cols[i] = p;
  }
  b->cap = cap;
  return 0;
}

int bars_push(struct bars *b, int64_t ts, double o, double h, double l, double c, double v,
              struct fox_err *e) {
  if (b->n == b->cap)
    FOX_TRY(bars_reserve(b, b->cap ? 2 * b->cap : 4096, e));
  size_t i = b->n++;
  b->ts[i] = ts;
  b->open[i] = o;
  b->high[i] = h;
  b->low[i] = l;
  b->close[i] = c;
  b->volume[i] = v;
  return 0;
}

void bars_free(struct bars *b) {
  free(b->ts);
  free(b->open);
  free(b->high);
  free(b->low);
  free(b->close);
  free(b->volume);
  *b = (struct bars){0};
}
