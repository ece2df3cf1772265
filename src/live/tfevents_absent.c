/* tfevents in a build without protobuf-c: output.tensorboard is refused in words. */
#include "live/tfevents.h"

#include <stddef.h>

#define ABSENT_ "output.tensorboard: this foxopt was built without protobuf-c (Debian: apt-get " \
                "install protobuf-c-compiler libprotobuf-c-dev, then rebuild)"

int tfevents_ready(struct fox_err *e) { return fox_errf(e, FOX_EUSAGE, "%s", ABSENT_); }

static int absent_(const char *dir, struct fox_err *e) {
  return fox_errf(e, FOX_EUSAGE, ABSENT_ "; %s gets no events", dir);
}

int tfevents_append(const char *dir, int64_t step, double wall_time, const char *const *tags,
                    const double *values, int n, struct fox_err *e) {
  return absent_(dir, e);
}

int tfevents_prune(const char *dir, int64_t keep, struct fox_err *e) {
  (void)keep;
  (void)e;
  (void)dir;
  return 0; /* nothing was ever written */
}

uint32_t tfevents_crc32c(const void *data, size_t n) {
  (void)data;
  (void)n;
  return 0;
}
