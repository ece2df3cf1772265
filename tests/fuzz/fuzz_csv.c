/* libFuzzer harness for the CSV reader: any bytes either parse into bars that satisfy every
 * invariant the rest of foxopt relies on, or fail with FOX_EDATA and a message naming the
 * input. Anything else (a crash, a sanitizer report, a broken invariant) is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/csv.h"

#include <stdio.h>

#define require_(cond)                                                                    \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
      abort();                                                                            \
    }                                                                                     \
  } while (0)

static void one_(const char *buf, size_t len, struct csv_options opt) {
  struct bars b = {0};
  struct csv_report r;
  struct fox_err e = {0};
  int rc = csv_parse("fuzz", buf, len, &opt, &b, &r, &e);
  if (rc != 0) {
    require_(rc == FOX_EDATA || rc == FOX_EFAIL);
    require_(strncmp(e.msg, "fuzz", 4) == 0);
  } else {
    require_(b.n > 0 && r.rows + r.filled == b.n);
    require_(!opt.fill_gaps || b.n <= opt.max_bars);
    for (size_t i = 0; i < b.n; i++) {
      require_(b.low[i] > 0 && b.low[i] <= b.high[i]);
      require_(b.open[i] >= b.low[i] && b.open[i] <= b.high[i]);
      require_(b.close[i] >= b.low[i] && b.close[i] <= b.high[i]);
      require_(b.volume[i] >= 0);
      require_(i == 0 || b.ts[i] > b.ts[i - 1]);
    }
  }
  bars_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *buf = (const char *)data;
  one_(buf, size, (struct csv_options){0});
  one_(buf, size, (struct csv_options){.skip_bad_rows = 1});
  /* Filling is bounded by max_bars, which must hold for tiny limits too. */
  one_(buf, size, (struct csv_options){.skip_bad_rows = 1, .fill_gaps = 1, .max_bars = 100000});
  return 0;
}
