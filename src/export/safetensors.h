/* The policy's weights as a safetensors file (a little-endian u64 header length, a JSON header,
 * the raw tensors), named as nn.Sequential(Linear, act, Linear, ...) names them under
 * `policy.` (and PPO's value network under `critic.`): policy.0.weight [out, in],
 * policy.0.bias, policy.2.weight, ... */
#ifndef FOX_EXPORT_SAFETENSORS_H
#define FOX_EXPORT_SAFETENSORS_H

#include "export/policy.h"

int safetensors_write(const struct policy_export *p, const char *path, struct fox_err *e);

#endif
