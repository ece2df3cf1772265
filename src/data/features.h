/* The 51 market features of FEATURES.md, computed from bars <= t only. */
#ifndef FOX_FEATURES_H
#define FOX_FEATURES_H

#include <stddef.h>

#include "data/bars.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOX_NFEAT 51    /* the built-in features: a dataset's first columns */
#define FOX_WARMUP 1441 /* the longest lookback: ret_1440 and vol_1440 */

extern const char *const feature_names[FOX_NFEAT];

/* Fills out[n * FOX_NFEAT] (row-major, raw values); bars before FOX_WARMUP are NaN. */
int features_compute(const struct bars *b, float *out, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
