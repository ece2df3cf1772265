/* The CPU backend: the reference twin of every CUDA launcher, over the same step headers. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "norm_step.h"

static void cpu_normalize_(const float *raw, const float *norm, float *out, size_t n) {
  const float *mean = norm, *std = norm + FOX_NFEAT;
#pragma omp parallel for schedule(static)
  for (size_t t = 0; t < n; t++)
    for (int f = 0; f < FOX_NFEAT; f++)
      out[t * FOX_NFEAT + f] = norm_feature(raw[t * FOX_NFEAT + f], mean[f], std[f]);
}

static int cpu_dataset_upload_(const struct dataset *ds, struct device_dataset *dev,
                               struct fox_err *e) {
  size_t n = ds->n, fb = n * FOX_NFEAT * sizeof(float);
  *dev = (struct device_dataset){.n = n, .device = -1};
  dev->features = malloc(fb ? fb : 1);
  dev->prices = malloc(n ? n * 4 * sizeof(float) : 1);
  dev->states = malloc(fb ? fb : 1);
  dev->norm = malloc(2 * FOX_NFEAT * sizeof(float));
  if (!dev->features || !dev->prices || !dev->states || !dev->norm) {
    free(dev->features), free(dev->prices), free(dev->states), free(dev->norm);
    *dev = (struct device_dataset){0};
    return fox_errf(e, FOX_EFAIL, "cpu backend: out of memory for %zu bars", n);
  }
  memcpy(dev->features, ds->features, fb);
  memcpy(dev->prices, ds->prices, n * 4 * sizeof(float));
  memcpy(dev->norm, ds->norm_mean, FOX_NFEAT * sizeof(float));
  memcpy(dev->norm + FOX_NFEAT, ds->norm_std, FOX_NFEAT * sizeof(float));
  cpu_normalize_(dev->features, dev->norm, dev->states, n);
  return 0;
}

static int cpu_dataset_download_(const struct device_dataset *dev, float *features,
                                 float *prices, float *states, struct fox_err *e) {
  size_t fb = dev->n * FOX_NFEAT * sizeof(float);
  if (features)
    memcpy(features, dev->features, fb);
  if (prices)
    memcpy(prices, dev->prices, dev->n * 4 * sizeof(float));
  if (states)
    memcpy(states, dev->states, fb);
  return 0;
}

static void cpu_dataset_release_(struct device_dataset *dev) {
  free(dev->features);
  free(dev->prices);
  free(dev->states);
  free(dev->norm);
  *dev = (struct device_dataset){0};
}

const struct backend *backend_cpu(void) {
  static const struct backend b = {
      .name = "cpu",
      .dataset_upload = cpu_dataset_upload_,
      .dataset_download = cpu_dataset_download_,
      .dataset_release = cpu_dataset_release_,
  };
  return &b;
}
