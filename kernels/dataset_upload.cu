/* The CUDA backend's dataset: raw f32 features and prices uploaded once per process, then
 * normalised on the device by the same norm_step.h arithmetic the CPU backend uses, and the
 * ewm_vol column copied out on its own for the market step. */
#include <stdio.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "fox_launch.h"
#include "norm_step.h"

__global__ void sigma_column_kernel(const float *__restrict__ raw, float *__restrict__ sigma,
                                    size_t n) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    sigma[t] = raw[t * FOX_NFEAT + FOX_EWM_VOL_COL];
}

__global__ void normalize_kernel(const float *__restrict__ raw, const float *__restrict__ norm,
                                 float *__restrict__ out, size_t count) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < count; i += stride) {
    int f = (int)(i % FOX_NFEAT);
    out[i] = norm_feature(raw[i], norm[f], norm[FOX_NFEAT + f]);
  }
}

void cuda_dataset_release(struct device_dataset *dev) {
  cudaFree(dev->features);
  cudaFree(dev->prices);
  cudaFree(dev->states);
  cudaFree(dev->norm);
  cudaFree(dev->sigma);
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
  cudaCheck(cudaMalloc((void **)&dev->sigma, n ? n * sizeof(float) : 1), e);
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
    FOX_LAUNCH(normalize_kernel, blocks, threads, 0, 0, dev->features, dev->norm, dev->states,
               count);
    cudaCheckLaunch(e);
    FOX_LAUNCH(sigma_column_kernel, (unsigned)((n + threads - 1) / threads), threads, 0, 0,
               dev->features, dev->sigma, n);
    cudaCheckLaunch(e);
  }
  /* Other threads' trials read the dataset from their own streams: it must be complete. */
  cudaCheck(cudaStreamSynchronize(cudaStreamPerThread), e);
  return 0;
}

int cuda_dataset_upload(const struct dataset *ds, struct device_dataset *dev,
                                struct fox_err *e) {
  *dev = device_dataset{};
  int rc = upload_(ds, dev, e);
  if (rc != 0)
    cuda_dataset_release(dev);
  return rc;
}

int cuda_dataset_download(const struct device_dataset *dev, float *features,
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
