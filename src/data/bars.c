/* Growable OHLCV columns. */
#include "data/bars.h"

#include <stdlib.h>
#include <string.h>

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
  if (b->nuser > 0) {
    double *u = realloc(b->user, cap * (size_t)b->nuser * sizeof *u);
    mallocCheck(u, e);
    b->user = u;
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

int bars_set_user(struct bars *b, int nuser, const char (*names)[FOX_FEAT_NAME],
                  struct fox_err *e) {
  if (b->n != 0 || b->nuser != 0)
    return fox_errf(e, FOX_EFAIL, "bars_set_user: the bars have rows or user columns already");
  if (nuser <= 0)
    return 0;
  b->user_names = malloc((size_t)nuser * sizeof *b->user_names);
  mallocCheck(b->user_names, e);
  memcpy(b->user_names, names, (size_t)nuser * sizeof *b->user_names);
  b->nuser = nuser;
  if (b->cap > 0) {
    b->user = malloc(b->cap * (size_t)nuser * sizeof *b->user);
    mallocCheck(b->user, e);
  }
  return 0;
}

void bars_free(struct bars *b) {
  free(b->user);
  free(b->user_names);
  free(b->ts);
  free(b->open);
  free(b->high);
  free(b->low);
  free(b->close);
  free(b->volume);
  *b = (struct bars){0};
}
