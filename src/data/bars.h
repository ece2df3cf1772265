/* struct bars: a column store of OHLCV bars in time order, the unit every data step passes on,
 * with the CSV's user columns (the numeric columns after the OHLCV ones) beside them. */
#ifndef FOX_BARS_H
#define FOX_BARS_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOX_FEAT_NAME 64 /* bytes of a feature's name, its NUL included */
#define FOX_MAX_USER 256 /* user columns a CSV may carry */

struct bars {
  size_t n, cap;
  int64_t *ts; /* UTC seconds, open time of the bar */
  double *open, *high, *low, *close, *volume;
  int nuser;                         /* user columns */
  char (*user_names)[FOX_FEAT_NAME]; /* [nuser] */
  double *user;                      /* [cap, nuser] row-major */
};

int bars_reserve(struct bars *b, size_t cap, struct fox_err *e);
/* Gives an empty `b` nuser user columns with these names (copied). */
int bars_set_user(struct bars *b, int nuser, const char (*names)[FOX_FEAT_NAME],
                  struct fox_err *e);
int bars_push(struct bars *b, int64_t ts, double o, double h, double l, double c, double v,
              struct fox_err *e);
void bars_free(struct bars *b);

#ifdef __cplusplus
}
#endif

#endif
