/* The CUDA backend's dataset: raw f32 features (every column) and prices uploaded once per
 * process, then the selected columns normalised on the device by the same norm_step.h
 * arithmetic the CPU backend uses, and the ewm_vol column copied out on its own for the market
 * step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "fox_launch.h"
#include "norm_step.h"

__global__ void sigma_column_kernel(const float *__restrict__ raw, int ncol,
                                    float *__restrict__ sigma, size_t n) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    sigma[t] = raw[t * (size_t)ncol + FOX_EWM_VOL_COL];
}

__global__ void normalize_kernel(const float *__restrict__ raw, int ncol,
                                 const int *__restrict__ sel, const float *__restrict__ norm,
                                 int nfeat, float *__restrict__ out, size_t count) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (; i < count; i += stride)
    out[i] = norm_state_at(raw, ncol, sel, norm, nfeat, i);
}

void cuda_dataset_release(struct device_dataset *dev) {
  cudaFree(dev->features);
  cudaFree(dev->prices);
  cudaFree(dev->states);
  cudaFree(dev->norm);
  cudaFree(dev->sel);
  cudaFree(dev->sigma);
  *dev = device_dataset{};
}

static int upload_(const struct dataset *ds, struct device_dataset *dev, struct fox_err *e) {
  size_t n = ds->n, nf = (size_t)ds->nsel, fb = n * (size_t)ds->ncol * sizeof(float);
  size_t sb = n * nf * sizeof(float), pb = n * 4 * sizeof(float);
  cudaCheck(cudaGetDevice(&dev->device), e);
  dev->n = n;
  dev->ncol = ds->ncol;
  dev->nfeat = ds->nsel;
  /* The selected columns' statistics, in state order. */
  float *norm = (float *)malloc(2 * nf * sizeof(float));
  if (!norm)
    return fox_errf(e, FOX_EFAIL, "cuda backend: out of memory");
  dataset_selected_norm(ds, norm);
  cudaError_t st = cudaMalloc((void **)&dev->norm, 2 * nf * sizeof(float));
  if (st == cudaSuccess)
    st = cudaMemcpy(dev->norm, norm, 2 * nf * sizeof(float), cudaMemcpyHostToDevice);
  free(norm);
  cudaCheck(st, e);
  cudaCheck(cudaMalloc((void **)&dev->sel, nf * sizeof(int)), e);
  cudaCheck(cudaMemcpy(dev->sel, ds->sel, nf * sizeof(int), cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMalloc((void **)&dev->features, fb ? fb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->prices, pb ? pb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->states, sb ? sb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->sigma, n ? n * sizeof(float) : 1), e);
  cudaCheck(cudaMemcpy(dev->features, ds->features, fb, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(dev->prices, ds->prices, pb, cudaMemcpyHostToDevice), e);
  size_t count = n * nf;
  if (count > 0) {
    int threads = 256;
    size_t want = (count + threads - 1) / threads;
    int blocks = (int)(want < 65535 ? want : 65535);
    FOX_LAUNCH(normalize_kernel, blocks, threads, 0, 0, dev->features, dev->ncol, dev->sel,
               dev->norm, dev->nfeat, dev->states, count);
    cudaCheckLaunch(e);
    FOX_LAUNCH(sigma_column_kernel, (unsigned)((n + threads - 1) / threads), threads, 0, 0,
               dev->features, dev->ncol, dev->sigma, n);
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

/* The device's raw arrays read back in slabs (no host copy of the dataset) and summed. */
static int sum_(const float *dev_p, size_t count, uint32_t *crc, struct fox_err *e) {
  const size_t slab = (size_t)1 << 22; /* floats: 16 MiB */
  float *buf = (float *)malloc((count < slab ? (count ? count : 1) : slab) * sizeof(float));
  if (!buf)
    return fox_errf(e, FOX_EFAIL, "cuda backend: out of memory for a read-back slab");
  uint32_t c = 0;
  for (size_t at = 0; at < count; at += slab) {
    size_t k = count - at < slab ? count - at : slab;
    cudaError_t err = cudaMemcpy(buf, dev_p + at, k * sizeof(float), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      free(buf);
      return fox_errf(e, FOX_EFAIL, "cudaMemcpy (read-back of the dataset): %s%s",
                      cudaGetErrorString(err), fox_src_at(__FILE__, __LINE__));
    }
    c = dataset_crc32(c, buf, k * sizeof(float));
  }
  free(buf);
  *crc = c;
  return 0;
}

int cuda_dataset_take(struct dataset *ds, struct device_dataset *dev, struct fox_err *e) {
  if (!ds->features || !ds->prices) {
    *dev = device_dataset{};
    return fox_errf(e, FOX_EFAIL, "cuda backend: %s: the dataset's arrays were taken already",
                    ds->source);
  }
  FOX_TRY(cuda_dataset_upload(ds, dev, e));
  int rc = sum_(dev->features, dev->n * (size_t)dev->ncol, &dev->crc_features, e);
  if (rc == 0)
    rc = sum_(dev->prices, dev->n * 4, &dev->crc_prices, e);
  if (rc != 0) {
    cuda_dataset_release(dev);
    return rc;
  }
  dev->summed = 1;
  free(ds->features);
  free(ds->prices);
  ds->features = ds->prices = NULL;
  return 0;
}

int cuda_dataset_states(const struct device_dataset *dev, size_t begin, size_t count,
                        float *states, struct fox_err *e) {
  if (begin > dev->n || count > dev->n - begin)
    return fox_errf(e, FOX_EFAIL, "cuda backend: rows [%zu, %zu) of a %zu-bar dataset", begin,
                    begin + count, dev->n);
  if (count)
    cudaCheck(cudaMemcpy(states, dev->states + begin * (size_t)dev->nfeat,
                         count * (size_t)dev->nfeat * sizeof(float), cudaMemcpyDeviceToHost), e);
  return 0;
}

int cuda_dataset_download(const struct device_dataset *dev, float *features,
                                  float *prices, float *states, struct fox_err *e) {
  size_t fb = dev->n * (size_t)dev->ncol * sizeof(float);
  size_t sb = dev->n * (size_t)dev->nfeat * sizeof(float);
  if (features)
    cudaCheck(cudaMemcpy(features, dev->features, fb, cudaMemcpyDeviceToHost), e);
  if (prices)
    cudaCheck(cudaMemcpy(prices, dev->prices, dev->n * 4 * sizeof(float),
                         cudaMemcpyDeviceToHost), e);
  if (states)
    cudaCheck(cudaMemcpy(states, dev->states, sb, cudaMemcpyDeviceToHost), e);
  return 0;
}
