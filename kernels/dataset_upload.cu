/* The CUDA backend's dataset: prices uploaded once per process, and the raw f32 features
 * (every column) passed through the device in slabs of rows, each slab's selected columns
 * normalised by the same norm_step.h arithmetic the CPU backend uses and its ewm_vol column
 * copied out on its own for the market step. The raw features are not kept: the device holds
 * the states (the selection) and sigma, not every column twice, so a dataset of 51 columns
 * takes about half the memory and a narrow data.features far less. */
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

/* The raw features' slab: rows a pass (16 MiB of 51 columns: 82,000 rows). */
#define SLAB_BYTES ((size_t)16 << 20)

/* count floats of the device's dev_p read back through buf (cap floats at a time) and summed
 * into *crc: the rank file's proof of what this device received (crc32 chains, so the slabs'
 * sums are the whole array's). */
static int sum_(const float *dev_p, size_t count, float *buf, size_t cap, uint32_t *crc,
                struct fox_err *e) {
  for (size_t at = 0; at < count; at += cap) {
    size_t k = count - at < cap ? count - at : cap;
    cudaError_t err = cudaMemcpy(buf, dev_p + at, k * sizeof(float), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
      return fox_errf(e, FOX_EFAIL, "cudaMemcpy (read-back of the dataset): %s%s",
                      cudaGetErrorString(err), fox_src_at(__FILE__, __LINE__));
    *crc = dataset_crc32(*crc, buf, k * sizeof(float));
  }
  return 0;
}

/* Rows [r0, r0 + rows) of the raw features through the device slab `raw`: copied, normalised
 * into the states, their sigma copied out, and (buf) read back into *crc. */
static int slab_(const struct dataset *ds, struct device_dataset *dev, float *raw, size_t r0,
                 size_t rows, float *buf, size_t cap, uint32_t *crc, struct fox_err *e) {
  size_t ncol = (size_t)ds->ncol, count = rows * (size_t)dev->nfeat;
  cudaCheck(cudaMemcpy(raw, ds->features + r0 * ncol, rows * ncol * sizeof(float),
                       cudaMemcpyHostToDevice), e);
  if (buf)
    FOX_TRY(sum_(raw, rows * ncol, buf, cap, crc, e));
  int threads = 256;
  size_t want = (count + threads - 1) / threads;
  int blocks = (int)(want < 65535 ? want : 65535);
  if (count > 0) {
    FOX_LAUNCH(normalize_kernel, blocks, threads, 0, 0, raw, dev->ncol, dev->sel, dev->norm,
               dev->nfeat, dev->states + r0 * (size_t)dev->nfeat, count);
    cudaCheckLaunch(e);
  }
  FOX_LAUNCH(sigma_column_kernel, (unsigned)((rows + threads - 1) / threads), threads, 0, 0, raw,
             dev->ncol, dev->sigma + r0, rows);
  cudaCheckLaunch(e);
  return 0; /* the next slab's copy into `raw` follows these kernels in the thread's stream */
}

/* sum: the crc32 of the raw features and the prices as the device received them. */
static int upload_(const struct dataset *ds, struct device_dataset *dev, int sum,
                   struct fox_err *e) {
  size_t n = ds->n, nf = (size_t)ds->nsel, ncol = (size_t)ds->ncol;
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
  cudaCheck(cudaMalloc((void **)&dev->prices, pb ? pb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->states, sb ? sb : 1), e);
  cudaCheck(cudaMalloc((void **)&dev->sigma, n ? n * sizeof(float) : 1), e);
  cudaCheck(cudaMemcpy(dev->prices, ds->prices, pb, cudaMemcpyHostToDevice), e);
  size_t per = SLAB_BYTES / (ncol * sizeof(float)), rows;
  per = per ? per : 1; /* a row wider than the slab: a row a pass */
  rows = n < per ? n : per;
  size_t cap = (rows ? rows : 1) * ncol;
  float *raw = NULL, *buf = NULL;
  cudaCheck(cudaMalloc((void **)&raw, cap * sizeof(float)), e);
  if (sum && !(buf = (float *)malloc(cap * sizeof(float)))) {
    cudaFree(raw);
    return fox_errf(e, FOX_EFAIL, "cuda backend: out of memory for a read-back slab");
  }
  uint32_t crc = 0;
  int rc = 0;
  for (size_t r0 = 0; rc == 0 && r0 < n; r0 += rows)
    rc = slab_(ds, dev, raw, r0, n - r0 < rows ? n - r0 : rows, buf, cap, &crc, e);
  /* The slab's last readers and the prices' copy done before the slab is freed; other threads'
   * trials read the dataset from their own streams: it must be complete. */
  cudaError_t done = cudaStreamSynchronize(cudaStreamPerThread);
  cudaFree(raw);
  if (rc == 0 && done != cudaSuccess)
    rc = fox_errf(e, FOX_EFAIL, "cudaStreamSynchronize (the dataset's upload): %s%s",
                  cudaGetErrorString(done), fox_src_at(__FILE__, __LINE__));
  if (rc == 0 && sum) {
    dev->crc_features = crc, crc = 0;
    rc = sum_(dev->prices, n * 4, buf, cap, &crc, e);
    dev->crc_prices = crc;
  }
  free(buf);
  return rc;
}

int cuda_dataset_upload(const struct dataset *ds, struct device_dataset *dev,
                                struct fox_err *e) {
  *dev = device_dataset{};
  int rc = upload_(ds, dev, 0, e);
  if (rc != 0)
    cuda_dataset_release(dev);
  return rc;
}

int cuda_dataset_take(struct dataset *ds, struct device_dataset *dev, struct fox_err *e) {
  if (!ds->features || !ds->prices) {
    *dev = device_dataset{};
    return fox_errf(e, FOX_EFAIL, "cuda backend: %s: the dataset's arrays were taken already",
                    ds->source);
  }
  *dev = device_dataset{};
  int rc = upload_(ds, dev, 1, e);
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
  size_t sb = dev->n * (size_t)dev->nfeat * sizeof(float);
  if (features)
    return fox_errf(e, FOX_EFAIL, "cuda backend: the raw features are not kept on the device "
                                  "(they pass through it in slabs as the states are made)");
  if (prices)
    cudaCheck(cudaMemcpy(prices, dev->prices, dev->n * 4 * sizeof(float),
                         cudaMemcpyDeviceToHost), e);
  if (states)
    cudaCheck(cudaMemcpy(states, dev->states, sb, cudaMemcpyDeviceToHost), e);
  return 0;
}
