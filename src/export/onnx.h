/* The greedy policy as an ONNX model: input `state` [batch, F + 3], outputs `q_values` (DQN) or
 * `logits` (PPO) [batch, 3] and `action` int64 [batch]. Built with protobuf-c where it was
 * found at configure time (onnx_absent.c otherwise: FOX_EUSAGE saying so). */
#ifndef FOX_EXPORT_ONNX_H
#define FOX_EXPORT_ONNX_H

#include "export/policy.h"

int onnx_write(const struct policy_export *p, const char *path, struct fox_err *e);

#endif
