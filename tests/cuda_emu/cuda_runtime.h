/* foxopt's host emulation of the CUDA runtime (test infrastructure, FOXOPT_CUDA_EMU builds; the
 * real toolkit's header is never on the path then): the subset foxopt calls, with the real
 * names, values and semantics, and an allocation table behind it that aborts with a message
 * when a host pointer is used as a device pointer, a copy runs the wrong way or past the end of
 * an allocation. Streams and events are ordered and synchronous. Usable from C and C++; C++
 * also gets the kernel side (cuda_emu_launch.h: __global__, threadIdx, the launch). */
#ifndef FOX_CUDA_EMU_RUNTIME_H
#define FOX_CUDA_EMU_RUNTIME_H

#include <stddef.h>

#define FOX_CUDA_EMU 1
#define CUDART_VERSION 13000

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's own numbers, so that messages and logs read as they would on a device. */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719
} cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
/* The handles CUDA reserves: the legacy default stream and the calling thread's own. */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02

struct uint3 {
  unsigned int x, y, z;
};
typedef struct uint3 uint3;

struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
#endif
};
typedef struct dim3 dim3;

/* The fields CUDA 13 still has that a program is likely to read. */
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int maxThreadsPerMultiProcessor;
  int concurrentKernels;
  int unifiedAddressing;
  int pciBusID;
  int pciDeviceID;
};
typedef struct cudaDeviceProp cudaDeviceProp;

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int maxDynamicSharedSizeBytes;
};
typedef struct cudaFuncAttributes cudaFuncAttributes;

/* Launch limits of every device foxopt targets (sm_89, sm_90). */
#define CUDA_EMU_MAX_THREADS 1024
#define CUDA_EMU_MAX_BLOCK_Z 64
#define CUDA_EMU_MAX_SHARED 49152

const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);

cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream);

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Where the next runtime, cuBLAS or NCCL call comes from (set by the macros below; a site set
 * already and not yet taken by a call stays), for the message of a failed check. */
void cuda_emu_site(const char *file, int line);

#ifdef __cplusplus
}

/* The runtime's C++ conveniences: any pointer type for cudaMalloc, a kernel for the attributes. */
template <typename T> static inline cudaError_t cudaMalloc(T **ptr, size_t size) {
  return cudaMalloc((void **)ptr, size);
}
template <typename... P>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                                void (*kernel)(P...)) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(kernel));
}
#endif

/* Each checked call records its call site first; the function itself keeps its real signature
 * (a function-like macro does not expand inside its own expansion). The outermost site counts,
 * so a wrapper of these calls (cuda_check.h's) that records its own caller's line is named in
 * the messages instead of itself. The emulation's own sources define CUDA_EMU_IMPL and see the
 * plain names. */
#ifndef CUDA_EMU_IMPL
#define CUDA_EMU_SITE(call) (cuda_emu_site(__FILE__, __LINE__), call)
#define cudaMalloc(...) CUDA_EMU_SITE(cudaMalloc(__VA_ARGS__))
#define cudaFree(...) CUDA_EMU_SITE(cudaFree(__VA_ARGS__))
#define cudaMemcpy(...) CUDA_EMU_SITE(cudaMemcpy(__VA_ARGS__))
#define cudaMemcpyAsync(...) CUDA_EMU_SITE(cudaMemcpyAsync(__VA_ARGS__))
#define cudaMemset(...) CUDA_EMU_SITE(cudaMemset(__VA_ARGS__))
#define cudaMemsetAsync(...) CUDA_EMU_SITE(cudaMemsetAsync(__VA_ARGS__))
#define cudaStreamDestroy(...) CUDA_EMU_SITE(cudaStreamDestroy(__VA_ARGS__))
#define cudaStreamSynchronize(...) CUDA_EMU_SITE(cudaStreamSynchronize(__VA_ARGS__))
#define cudaEventRecord(...) CUDA_EMU_SITE(cudaEventRecord(__VA_ARGS__))
#define cudaDeviceSynchronize(...) CUDA_EMU_SITE(cudaDeviceSynchronize(__VA_ARGS__))
#endif

#ifdef __cplusplus
#include "cuda_emu_launch.h"
#endif

#endif
