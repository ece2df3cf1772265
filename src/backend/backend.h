/* The backend table: every device operation the algorithms use, as function pointers chosen at
 * run time (CPU always; CUDA when built and a device answers). Launchers and their CPU twins
 * share signatures so that tests can run both on the same inputs and compare. */
#ifndef FOX_BACKEND_H
#define FOX_BACKEND_H

#include <stddef.h>

#include "data/dataset.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dataset as one backend holds it: uploaded once, shared by all trials of a process. */
struct device_dataset {
  size_t n;
  float *features; /* raw [n, FOX_NFEAT], exactly the f32 of dataset.h5 */
  float *prices;   /* [n, 4] open, high, low, close */
  float *states;   /* [n, FOX_NFEAT] normalised features (norm_step.h) */
  float *norm;     /* mean[FOX_NFEAT] then std[FOX_NFEAT] */
  int device;      /* CUDA device ordinal, -1 on the CPU */
};

struct backend {
  const char *name;
  int (*dataset_upload)(const struct dataset *ds, struct device_dataset *dev, struct fox_err *e);
  /* Copies back to host arrays ([n*51], [n*4], [n*51]); any may be NULL. */
  int (*dataset_download)(const struct device_dataset *dev, float *features, float *prices,
                          float *states, struct fox_err *e);
  void (*dataset_release)(struct device_dataset *dev);
};

const struct backend *backend_cpu(void);
/* NULL when foxopt was built without CUDA. */
const struct backend *backend_cuda(void);
/* Number of usable CUDA devices (0 when none, no driver, or built without CUDA); `name`
 * receives device 0's name when there is one. */
int backend_cuda_devices(char *name, size_t n);
/* "auto" (CUDA when a device answers, else CPU), "cpu" or "cuda" (an error when unusable). */
int backend_select(const char *want, const struct backend **out, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
