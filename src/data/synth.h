/* Synthetic 1-minute bars with the stylised facts of a real market, as a walk with no edge or with
 * tradable trend regimes (docs/commands.md: "foxopt synth"). */
#ifndef FOX_SYNTH_H
#define FOX_SYNTH_H

#include <stdint.h>
#include <stdio.h>

#include "data/dataset.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* walk: regimes of days whose drift is far below the costs, so no agent should beat buy-and-hold.
 * regimes: up, flat and down trends of hours with a drift a trend rule can trade after costs. */
enum synth_kind { SYNTH_WALK, SYNTH_REGIMES };

struct synth_params {
  enum synth_kind kind;
  uint64_t seed;
  int64_t start;     /* UTC seconds of the first bar */
  int64_t bars;
  double price0;     /* first open */
  double annual_vol; /* long-run volatility of the calm regime */
};

void synth_defaults(struct synth_params *p);
/* "walk" or "regimes" -> *kind; FOX_EUSAGE naming the accepted kinds otherwise. */
int synth_kind_parse(const char *name, enum synth_kind *kind, struct fox_err *e);
const char *synth_kind_name(enum synth_kind kind);
/* Writes the header and `bars` rows of timestamp,open,high,low,close,volume to `out`; a failed
 * write names `name` (the user's file) and the system's reason. */
int synth_write(const struct synth_params *p, FILE *out, const char *name, struct fox_err *e);
/* A dataset of synthetic walk bars built in memory, as `foxopt synth | foxopt import` would
 * (default splits), for tests and benchmarks. */
int synth_dataset(struct dataset *ds, int64_t bars, uint64_t seed, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
