/* Backend choice: the one place that knows which backends exist. */
#include "backend/backend.h"

#include <string.h>

int backend_select(const char *want, const struct backend **out, struct fox_err *e) {
  int auto_ = strcmp(want, "auto") == 0;
  if (!auto_ && strcmp(want, "cpu") != 0 && strcmp(want, "cuda") != 0)
    return fox_errf(e, FOX_EUSAGE, "backend '%s': expected auto, cpu or cuda", want);
  if (strcmp(want, "cpu") == 0) {
    *out = backend_cpu();
    return 0;
  }
  const struct backend *cuda = backend_cuda();
  int devices = cuda ? backend_cuda_devices(NULL, 0) : 0;
  if (cuda && devices > 0) {
    *out = cuda;
    return 0;
  }
  if (auto_) {
    *out = backend_cpu();
    return 0;
  }
  return fox_errf(e, FOX_EUSAGE, "backend cuda: %s",
                  cuda ? "no CUDA device is usable here" : "foxopt was built without CUDA");
}
