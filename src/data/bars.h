/* struct bars: a column store of OHLCV bars in time order, the unit every data step passes on. */
#ifndef FOX_BARS_H
#define FOX_BARS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bars {
  size_t n, cap;
  int64_t *ts; /* UTC seconds, open time of the bar */
  double *open, *high, *low, *close, *volume;
};

int bars_reserve(struct bars *b, size_t cap, struct fox_err *e);
int bars_push(struct bars *b, int64_t ts, double o, double h, double l, double c, double v,
              struct fox_err *e);
void bars_free(struct bars *b);

#ifdef __cplusplus
}
#endif

#endif
