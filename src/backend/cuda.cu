/* The CUDA backend table: device memory, device discovery, and the launchers of
 * dataset_upload.cu and env_kernels.cu. */
#include <stdio.h>

#include "agents/net.h"
#include "backend/agent_ops.h"
#include "backend/pop_ops.h"
#include "cuda_backend.h"
#include "cuda_check.h"

static void *cuda_alloc_(size_t bytes, struct fox_err *e) {
  void *p = NULL;
  cudaError_t rc = cudaMalloc(&p, bytes ? bytes : 1);
  if (rc != cudaSuccess) {
    fox_errf(e, FOX_EFAIL, "cudaMalloc(%zu bytes): %s", bytes, cudaGetErrorString(rc));
    return NULL;
  }
  rc = cudaMemset(p, 0, bytes ? bytes : 1);
  if (rc != cudaSuccess) {
    cudaFree(p);
    fox_errf(e, FOX_EFAIL, "cudaMemset(%zu bytes): %s", bytes, cudaGetErrorString(rc));
    return NULL;
  }
  return p;
}

/* cudaFree promises no wait for the work queued on p: the thread's stream, where all of it
 * went, is drained first (buffers go at a trial's end, not inside a step). */
static void cuda_free_(void *p) {
  if (p)
    cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(p);
}

static int cuda_h2d_(void *dst, const void *src, size_t bytes, struct fox_err *e) {
  cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), e);
  return 0;
}

static int cuda_d2h_(void *dst, const void *src, size_t bytes, struct fox_err *e) {
  cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), e);
  return 0;
}

static int cuda_copy_(void *dst, const void *src, size_t bytes, struct fox_err *e) {
  cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamPerThread), e);
  return 0;
}

static int cuda_zero_(void *p, size_t bytes, struct fox_err *e) {
  cudaCheck(cudaMemsetAsync(p, 0, bytes, cudaStreamPerThread), e);
  return 0;
}

static int cuda_bind_(int device, struct fox_err *e) {
  if (device >= 0)
    cudaCheck(cudaSetDevice(device), e);
  return 0;
}

/* Launchable only where this binary carries code for the device's architecture. */
__global__ void probe_kernel() {}

extern "C" int backend_cuda_devices(char *name, size_t n) {
  int count = 0;
  if (name && n)
    name[0] = '\0';
  /* Without a driver this returns cudaErrorInsufficientDriver and leaves count alone. */
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  /* A device without code for it (built for sm_89/sm_90, found an A100) is no device to us:
   * the CPU backend is chosen instead of failing at the first kernel. */
  cudaFuncAttributes attr;
  if (count > 0 && cudaFuncGetAttributes(&attr, probe_kernel) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  if (count > 0 && name && n) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
      snprintf(name, n, "%s", prop.name);
    else
      cudaGetLastError();
  }
  return count;
}

extern "C" const struct backend *backend_cuda(void) {
  static struct backend b;
  if (!b.name) {
    b.mem_alloc = cuda_alloc_;
    b.mem_free = cuda_free_;
    b.mem_h2d = cuda_h2d_;
    b.mem_d2h = cuda_d2h_;
    b.mem_copy = cuda_copy_;
    b.mem_zero = cuda_zero_;
    b.dataset_upload = cuda_dataset_upload;
    b.dataset_download = cuda_dataset_download;
    b.dataset_release = cuda_dataset_release;
    b.dataset_take = cuda_dataset_take;
    b.dataset_states = cuda_dataset_states;
    b.env_reset = cuda_env_reset;
    b.env_step = cuda_env_step;
    b.backtest = cuda_backtest;
    b.portfolio_sim = cuda_portfolio_sim;
    b.nets = &net_cuda_ops;
    b.agents = &agent_cuda_ops;
    b.bind = cuda_bind_;
    b.graph_begin = cuda_graph_begin;
    b.graph_end = cuda_graph_end;
    b.graph_launch = cuda_graph_launch;
    b.graph_free = cuda_graph_free;
    b.populations = 1;
    b.pops = &pop_cuda_ops;
    b.name = "cuda";
  }
  return &b;
}
