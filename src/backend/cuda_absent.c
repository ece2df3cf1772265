/* The CUDA entry points of a build without nvcc: no CUDA backend, no devices. */
#include "backend/backend.h"

const struct backend *backend_cuda(void) { return NULL; }

int backend_cuda_devices(char *name, size_t n) {
  if (name && n)
    name[0] = '\0';
  return 0;
}
