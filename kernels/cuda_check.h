/* cudaCheck: every CUDA runtime call and kernel launch reports __FILE__:__LINE__ and CUDA's text. */
#ifndef FOX_CUDA_CHECK_H
#define FOX_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "util/error.h"

#define cudaCheck(call, e)                                                                      \
  do {                                                                                          \
    cudaError_t fox_cu_ = (call);                                                               \
    if (fox_cu_ != cudaSuccess)                                                                 \
      return fox_errf((e), FOX_EFAIL, "%s:%d: %s: %s", __FILE__, __LINE__, #call,               \
                      cudaGetErrorString(fox_cu_));                                             \
  } while (0)

/* After every <<<...>>>: launch errors (bad configuration) surface here, not later. */
#define cudaCheckLaunch(e) cudaCheck(cudaGetLastError(), e)

#endif
