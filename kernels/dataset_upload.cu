/* The CUDA backend's dataset: raw f32 features and prices uploaded once per process, then
 * normalised on the device by the same norm_step.h arithmetic the CPU backend uses. */
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "cuda_check.h"
#include "norm_step.h"

__global__ void normalize_kernel(const float *__restrict__ raw, const float *__restrict__ norm,
                                 float *__restrict__ out, size_t count) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < count; i += stride) {
    int f = (int)(i % FOX_NFEAT);
    out[i] = norm_feature(raw[i], norm[f], norm[FOX_NFEAT + f]);
  }
}

static void release_(struct device_dataset *dev) {
  cudaFree(dev->features);
  cudaFree(dev->prices);
  cudaFree(dev->states);
  cudaFree(dev->norm);
  *dev = device_dataset{};
}

static int upload_(const struct dataset *ds, struct device_dataset *dev, struct fox_err *e) {
  size_t n = ds->n, fb = n * FOX_NFEAT * sizeof(float), pb = n * 4 * sizeof(float);
  cudaCheck(cudaGetDevice(&dev->device), e);
  dev->n = n;
  cudaCheck(cudaMalloc((void **)&dev->features, fb ? fb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->prices, pb ? pb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->states, fb ? fb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->norm, 2 * FOX_NFEAT * sizeof(float)), e);
  cudaCheck(cudaMemcpy(dev->features, ds->features, fb, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(dev->prices, ds->prices, pb, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(dev->norm, ds->norm_mean, FOX_NFEAT * sizeof(float),
                       cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(dev->norm + FOX_NFEAT, ds->norm_std, FOX_NFEAT * sizeof(float),
                       cudaMemcpyHostToDevice), e);
  size_t count = n * FOX_NFEAT;
  if (count > 0) {
    int threads = 256;
    size_t want = (count + threads - 1) / threads;
    int blocks = (int)(want < 65535 ? want : 65535);
    normalize_kernel<<<blocks, threads>>>(dev->features, dev->norm, dev->states, count);
    cudaCheckLaunch(e);
  }
  cudaCheck(cudaDeviceSynchronize(), e);
  return 0;
}

static int cuda_dataset_upload_(const struct dataset *ds, struct device_dataset *dev,
                                struct fox_err *e) {
  *dev = device_dataset{};
  int rc = upload_(ds, dev, e);
  if (rc != 0)
    release_(dev);
  return rc;
}

static int cuda_dataset_download_(const struct device_dataset *dev, float *features,
                                  float *prices, float *states, struct fox_err *e) {
  size_t fb = dev->n * FOX_NFEAT * sizeof(float);
  if (features)
    cudaCheck(cudaMemcpy(features, dev->features, fb, cudaMemcpyDeviceToHost), e);
  if (prices)
    cudaCheck(cudaMemcpy(prices, dev->prices, dev->n * 4 * sizeof(float),
                         cudaMemcpyDeviceToHost), e);
  if (states)
    cudaCheck(cudaMemcpy(states, dev->states, fb, cudaMemcpyDeviceToHost), e);
  return 0;
}

extern "C" int backend_cuda_devices(char *name, size_t n) {
  int count = 0;
  if (name && n)
    name[0] = '\0';
  /* Without a driver this returns cudaErrorInsufficientDriver and leaves count alone. */
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
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
  static const struct backend b = {
      "cuda",
      cuda_dataset_upload_,
      cuda_dataset_download_,
      release_,
  };
  return &b;
}
