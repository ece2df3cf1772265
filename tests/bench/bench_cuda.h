/* What the device benchmarks start with: the CUDA backend (77, skipped, without a device) and a
 * synthetic dataset of `bars` bars uploaded to it. */
#ifndef FOX_BENCH_CUDA_H
#define FOX_BENCH_CUDA_H

#include <stdio.h>

#include "backend/backend.h"
#include "data/synth.h"

/* 0: ready; 77: no device (said on stdout); 1: failed (said on stderr). */
static inline int bench_cuda_open(const char *bench, long bars, const struct backend **cuda,
                                  char *name, size_t n, struct dataset *ds,
                                  struct device_dataset *dev) {
  *cuda = backend_cuda();
  if (!*cuda || backend_cuda_devices(name, n) == 0) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  struct fox_err e = {0};
  if (synth_dataset(ds, bars, 1, &e) != 0 || (*cuda)->dataset_upload(ds, dev, &e) != 0) {
    fprintf(stderr, "%s: %s\n", bench, e.msg);
    return 1;
  }
  return 0;
}

#endif
