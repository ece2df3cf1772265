/* cudaCheck / cublasCheck: every CUDA runtime and cuBLAS call and every kernel launch reports
 * __FILE__:__LINE__ and the library's own text. */
#ifndef FOX_CUDA_CHECK_H
#define FOX_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "util/error.h"

#define cudaCheck(call, e)                                                                      \
  do {                                                                                          \
    cudaError_t fox_cu_ = (call);                                                               \
    if (fox_cu_ != cudaSuccess)                                                                 \
      return fox_errf((e), FOX_EFAIL, "%s:%d: %s: %s", __FILE__, __LINE__, #call,               \
                      cudaGetErrorString(fox_cu_));                                             \
  } while (0)

/* The same for cuBLAS, with its status text. */
#define cublasCheck(call, e)                                                                  \
  do {                                                                                        \
    cublasStatus_t fox_cb_ = (call);                                                          \
    if (fox_cb_ != CUBLAS_STATUS_SUCCESS)                                                     \
      return fox_errf((e), FOX_EFAIL, "%s:%d: %s: %s", __FILE__, __LINE__, #call,             \
                      cublasGetStatusString(fox_cb_));                                        \
  } while (0)

/* After every <<<...>>>: launch errors (bad configuration) surface here, not later. */
#define cudaCheckLaunch(e) cudaCheck(cudaGetLastError(), e)

#endif
