/* The JSON beside an exported policy: how to build the state it takes (the inputs in order, the
 * normalisation's mean and std, the clamp, the portfolio inputs' formulas), what its outputs
 * and actions mean, and the network's dims and activation. */
#ifndef FOX_EXPORT_SIDECAR_H
#define FOX_EXPORT_SIDECAR_H

#include "export/policy.h"

/* `model` names the file it describes (the ONNX or safetensors one) and its format. */
int sidecar_write(const struct policy_export *p, const char *model, const char *format,
                  const char *path, struct fox_err *e);

#endif
