/* cudaCheck / cublasCheck: every CUDA runtime and cuBLAS call and every kernel launch reports
 * the library's own text (and __FILE__:__LINE__ under FOXOPT_DEBUG). */
#ifndef FOX_CUDA_CHECK_H
#define FOX_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "backend/counters.h"
#include "util/error.h"

/* Every allocation, copy and synchronisation of the CUDA backend is counted
 * (backend/counters.h): the sources call the CUDA names, which these wrappers stand in for. */
static inline cudaError_t fox_cuda_malloc_(void **p, size_t bytes) {
  cudaError_t rc = cudaMalloc(p, bytes);
  if (rc == cudaSuccess)
    counters_alloc_ptr(*p, bytes);
  return rc;
}
static inline cudaError_t fox_cuda_free_(void *p) {
  if (p)
    counters_release_ptr(p);
  return cudaFree(p);
}
static inline cudaError_t fox_cuda_memcpy_(void *dst, const void *src, size_t bytes,
                                           enum cudaMemcpyKind kind) {
  counters_copy();
  if (kind == cudaMemcpyHostToDevice) {
    counters_h2d(bytes);
  } else if (kind == cudaMemcpyDeviceToHost) {
    counters_d2h(bytes);
    counters_sync(); /* the host waits for the stream to reach the copy */
  }
  return cudaMemcpy(dst, src, bytes, kind);
}
static inline cudaError_t fox_cuda_memcpy_async_(void *dst, const void *src, size_t bytes,
                                                 enum cudaMemcpyKind kind, cudaStream_t s) {
  counters_copy();
  if (kind == cudaMemcpyHostToDevice)
    counters_h2d(bytes);
  else if (kind == cudaMemcpyDeviceToHost)
    counters_d2h(bytes);
  return cudaMemcpyAsync(dst, src, bytes, kind, s);
}
static inline cudaError_t fox_cuda_memset_(void *p, int value, size_t bytes) {
  counters_copy();
  return cudaMemset(p, value, bytes);
}
static inline cudaError_t fox_cuda_memset_async_(void *p, int value, size_t bytes,
                                                 cudaStream_t s) {
  counters_copy();
  return cudaMemsetAsync(p, value, bytes, s);
}
static inline cudaError_t fox_cuda_sync_(void) {
  counters_sync();
  return cudaDeviceSynchronize();
}
static inline cudaError_t fox_cuda_stream_sync_(cudaStream_t s) {
  counters_sync();
  return cudaStreamSynchronize(s);
}
/* Some of these names are macros already (the per-thread default stream's variants): each
 * wrapper above has expanded the original, so it can be replaced now. */
#undef cudaMalloc
#undef cudaFree
#undef cudaMemcpy
#undef cudaMemcpyAsync
#undef cudaMemset
#undef cudaMemsetAsync
#undef cudaDeviceSynchronize
#undef cudaStreamSynchronize
/* The CUDA emulation (tests/cuda_emu) names the caller's line in its messages, not these
 * wrappers'. */
#ifndef CUDA_EMU_SITE
#define CUDA_EMU_SITE(call) (call)
#endif
#define cudaMalloc(p, bytes) CUDA_EMU_SITE(fox_cuda_malloc_((void **)(p), (bytes)))
#define cudaFree(p) CUDA_EMU_SITE(fox_cuda_free_(p))
#define cudaMemcpy(...) CUDA_EMU_SITE(fox_cuda_memcpy_(__VA_ARGS__))
#define cudaMemcpyAsync(...) CUDA_EMU_SITE(fox_cuda_memcpy_async_(__VA_ARGS__))
#define cudaMemset(...) CUDA_EMU_SITE(fox_cuda_memset_(__VA_ARGS__))
#define cudaMemsetAsync(...) CUDA_EMU_SITE(fox_cuda_memset_async_(__VA_ARGS__))
#define cudaDeviceSynchronize() CUDA_EMU_SITE(fox_cuda_sync_())
#define cudaStreamSynchronize(s) CUDA_EMU_SITE(fox_cuda_stream_sync_(s))

#define cudaCheck(call, e)                                                                      \
  do {                                                                                          \
    cudaError_t fox_cu_ = (call);                                                               \
    if (fox_cu_ != cudaSuccess)                                                                 \
      return fox_errf((e), FOX_EFAIL, "%s: %s%s", #call, cudaGetErrorString(fox_cu_),          \
                      fox_src_at(__FILE__, __LINE__));                                          \
  } while (0)

/* The same for cuBLAS, with its status text. */
#define cublasCheck(call, e)                                                                  \
  do {                                                                                        \
    cublasStatus_t fox_cb_ = (call);                                                          \
    if (fox_cb_ != CUBLAS_STATUS_SUCCESS)                                                     \
      return fox_errf((e), FOX_EFAIL, "%s: %s%s", #call, cublasGetStatusString(fox_cb_),     \
                      fox_src_at(__FILE__, __LINE__));                                        \
  } while (0)

/* After every FOX_LAUNCH: launch errors (bad configuration) surface here, not later; and the
 * launch is counted (as a graph's node while the thread captures). */
#define cudaCheckLaunch(e)                                                                    \
  do {                                                                                        \
    counters_launch();                                                                        \
    cudaCheck(cudaGetLastError(), e);                                                         \
  } while (0)

#endif
