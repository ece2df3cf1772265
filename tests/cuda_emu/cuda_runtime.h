/* foxopt's host emulation of the CUDA runtime (test infrastructure, FOXOPT_CUDA_EMU builds; the
 * real toolkit's header is never on the path then): the subset foxopt calls, with the real
 * names, values and semantics. Device memory sits behind an allocation table that aborts with a
 * message when a host pointer is used as a device pointer, or a copy runs the wrong way or past
 * the end of an allocation. Streams run as CUDA orders them (engine.c): stream order, events,
 * the legacy and per-thread default streams, synchronous calls; with FOX_CUDA_EMU_ASYNC=1 each
 * stream's work runs on a thread of its own at seeded random delays. A stream sanitizer
 * (sanitizer.c) names unordered accesses to one allocation from two streams, host accesses to
 * host memory that a pending copy uses, and frees of memory with pending work. Stream capture
 * and graphs (graph.c) record and replay what a stream is given. Usable from C and C++; C++
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
  cudaErrorIllegalState = 401,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotPermitted = 800,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908
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
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
/* The handles CUDA reserves: the legacy default stream and the calling thread's own. */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01

enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};

enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};

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
/* Page-locked host memory: copies to and from it are truly asynchronous, and the host's own
 * accesses to it while a copy is pending are caught (hostmem.c). */
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);

/* Each call that names the NULL stream, or none, comes twice, as in CUDA: the plain name (the
 * legacy default stream) and a _ptds/_ptsz twin (the calling thread's own stream), which a
 * translation unit built with CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc --default-stream
 * per-thread) calls under the plain name. */
#define CUDA_EMU_TWIN_(ret, name, params)                                                       \
  ret name params;                                                                             \
  ret name##_ptds params;                                                                      \
  ret name##_ptsz params;
CUDA_EMU_TWIN_(cudaError_t, cudaMemcpy,
               (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind))
CUDA_EMU_TWIN_(cudaError_t, cudaMemcpyAsync,
               (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                cudaStream_t stream))
CUDA_EMU_TWIN_(cudaError_t, cudaMemset, (void *ptr, int value, size_t count))
CUDA_EMU_TWIN_(cudaError_t, cudaMemsetAsync,
               (void *ptr, int value, size_t count, cudaStream_t stream))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamSynchronize, (cudaStream_t stream))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamQuery, (cudaStream_t stream))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamWaitEvent,
               (cudaStream_t stream, cudaEvent_t event, unsigned int flags))
CUDA_EMU_TWIN_(cudaError_t, cudaEventRecord, (cudaEvent_t event, cudaStream_t stream))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamBeginCapture,
               (cudaStream_t stream, enum cudaStreamCaptureMode mode))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamEndCapture, (cudaStream_t stream, cudaGraph_t *graph))
CUDA_EMU_TWIN_(cudaError_t, cudaStreamIsCapturing,
               (cudaStream_t stream, enum cudaStreamCaptureStatus *status))
CUDA_EMU_TWIN_(cudaError_t, cudaGraphLaunch, (cudaGraphExec_t exec, cudaStream_t stream))
#undef CUDA_EMU_TWIN_

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                 unsigned long long flags);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

/* Where the next runtime, cuBLAS or NCCL call comes from (set by the macros below; a site set
 * already and not yet taken by a call stays), for the message of a failed check. */
void cuda_emu_site(const char *file, int line);

#ifdef __cplusplus
}

/* The runtime's C++ conveniences: any pointer type for cudaMalloc, a kernel for the attributes. */
template <typename T> static inline cudaError_t cudaMalloc(T **ptr, size_t size) {
  return cudaMalloc((void **)ptr, size);
}
template <typename T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return cudaMallocHost((void **)ptr, size);
}
template <typename... P>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                                void (*kernel)(P...)) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(kernel));
}
#endif

/* The NULL stream of this translation unit: the calling thread's own under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, the legacy one otherwise (kernel launches use it). */
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
#define CUDA_EMU_PTDS(api) api##_ptds
#define CUDA_EMU_PTSZ(api) api##_ptsz
#define CUDA_EMU_NULL_STREAM cudaStreamPerThread
#else
#define CUDA_EMU_PTDS(api) api
#define CUDA_EMU_PTSZ(api) api
#define CUDA_EMU_NULL_STREAM cudaStreamLegacy
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
#define cudaMallocHost(...) CUDA_EMU_SITE(cudaMallocHost(__VA_ARGS__))
#define cudaHostAlloc(...) CUDA_EMU_SITE(cudaHostAlloc(__VA_ARGS__))
#define cudaFreeHost(...) CUDA_EMU_SITE(cudaFreeHost(__VA_ARGS__))
#define cudaMemcpy(...) CUDA_EMU_SITE(CUDA_EMU_PTDS(cudaMemcpy)(__VA_ARGS__))
#define cudaMemcpyAsync(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaMemcpyAsync)(__VA_ARGS__))
#define cudaMemset(...) CUDA_EMU_SITE(CUDA_EMU_PTDS(cudaMemset)(__VA_ARGS__))
#define cudaMemsetAsync(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaMemsetAsync)(__VA_ARGS__))
#define cudaStreamCreate(...) CUDA_EMU_SITE(cudaStreamCreate(__VA_ARGS__))
#define cudaStreamCreateWithFlags(...) CUDA_EMU_SITE(cudaStreamCreateWithFlags(__VA_ARGS__))
#define cudaStreamDestroy(...) CUDA_EMU_SITE(cudaStreamDestroy(__VA_ARGS__))
#define cudaStreamSynchronize(...)                                                             \
  CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamSynchronize)(__VA_ARGS__))
#define cudaStreamQuery(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamQuery)(__VA_ARGS__))
#define cudaStreamWaitEvent(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamWaitEvent)(__VA_ARGS__))
#define cudaEventRecord(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaEventRecord)(__VA_ARGS__))
#define cudaEventSynchronize(...) CUDA_EMU_SITE(cudaEventSynchronize(__VA_ARGS__))
#define cudaEventQuery(...) CUDA_EMU_SITE(cudaEventQuery(__VA_ARGS__))
#define cudaEventDestroy(...) CUDA_EMU_SITE(cudaEventDestroy(__VA_ARGS__))
#define cudaDeviceSynchronize(...) CUDA_EMU_SITE(cudaDeviceSynchronize(__VA_ARGS__))
#define cudaStreamBeginCapture(...)                                                            \
  CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamBeginCapture)(__VA_ARGS__))
#define cudaStreamEndCapture(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamEndCapture)(__VA_ARGS__))
#define cudaStreamIsCapturing(...)                                                             \
  CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaStreamIsCapturing)(__VA_ARGS__))
#define cudaGraphInstantiate(...) CUDA_EMU_SITE(cudaGraphInstantiate(__VA_ARGS__))
#define cudaGraphLaunch(...) CUDA_EMU_SITE(CUDA_EMU_PTSZ(cudaGraphLaunch)(__VA_ARGS__))
#define cudaGraphExecDestroy(...) CUDA_EMU_SITE(cudaGraphExecDestroy(__VA_ARGS__))
#define cudaGraphDestroy(...) CUDA_EMU_SITE(cudaGraphDestroy(__VA_ARGS__))
#endif

#ifdef __cplusplus
#include "cuda_emu_launch.h"
#endif

#endif
