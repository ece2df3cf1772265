/* onnx_write in a build without protobuf-c: the export is refused in words. */
#include "export/onnx.h"

int onnx_write(const struct policy_export *p, const char *path, struct fox_err *e) {
  (void)p;
  return fox_errf(e, FOX_EUSAGE, "--onnx %s: this foxopt was built without protobuf-c "
                                 "(Debian: apt-get install protobuf-c-compiler libprotobuf-c-dev, "
                                 "then rebuild); --safetensors needs nothing", path);
}
