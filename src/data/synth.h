/* Synthetic 1-minute bars with the stylised facts of a real market (docs/commands.md: "foxopt synth"). */
#ifndef FOX_SYNTH_H
#define FOX_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "data/dataset.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct synth_params {
  uint64_t seed;
  int64_t start;     /* UTC seconds of the first bar */
  int64_t bars;
  double price0;     /* first open */
  double annual_vol; /* long-run volatility of the calm regime */
};

void synth_defaults(struct synth_params *p);
/* Writes the header and `bars` rows of timestamp,open,high,low,close,volume to `out`. */
int synth_write(const struct synth_params *p, FILE *out, struct fox_err *e);
/* A dataset of synthetic bars built in memory, as `foxopt synth | foxopt import` would (default
 * splits), for tests and benchmarks. */
int synth_dataset(struct dataset *ds, int64_t bars, uint64_t seed, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
