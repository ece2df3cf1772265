/* The network table's CUDA entries: the CUDA MLP with device staging for the host batches the
 * agents pass in (their replay and rollout buffers live on the host for now). */
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "agents/net.h"
#include "cuda_check.h"
#include "mlp_cuda.h"

struct cuda_net_ {
  struct mlp_cuda m;
  double eps;
  size_t cap_in, cap_out; /* floats */
  float *x, *y;
};

static int create_(void **impl, int in, const int *hidden, int n_hidden, int out,
                   int activation, double eps, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)calloc(1, sizeof *c);
  if (!c)
    return fox_errf(e, FOX_EFAIL, "net: out of memory");
  int rc = mlp_cuda_create(&c->m, in, hidden, n_hidden, out, activation, e);
  if (rc != 0) {
    free(c);
    return rc;
  }
  c->eps = eps;
  *impl = c;
  return 0;
}

static void destroy_(void *impl) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  mlp_cuda_free(&c->m);
  cudaFree(c->x);
  cudaFree(c->y);
  free(c);
}

static int set_params_(void *impl, const float *host, struct fox_err *e) {
  return mlp_cuda_set_params(&((struct cuda_net_ *)impl)->m, host, e);
}

static int get_params_(const void *impl, float *host, struct fox_err *e) {
  return mlp_cuda_get_params(&((const struct cuda_net_ *)impl)->m, host, e);
}

static int stage_(struct cuda_net_ *c, int batch, struct fox_err *e) {
  size_t in = (size_t)batch * c->m.dims[0], out = (size_t)batch * c->m.dims[c->m.n_layers];
  if (in > c->cap_in) {
    cudaFree(c->x);
    c->x = NULL;
    cudaCheck(cudaMalloc((void **)&c->x, in * sizeof(float)), e);
    c->cap_in = in;
  }
  if (out > c->cap_out) {
    cudaFree(c->y);
    c->y = NULL;
    cudaCheck(cudaMalloc((void **)&c->y, out * sizeof(float)), e);
    c->cap_out = out;
  }
  return 0;
}

static int forward_(void *impl, const float *x, int batch, float *y, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  FOX_TRY(stage_(c, batch, e));
  size_t in = (size_t)batch * c->m.dims[0], out = (size_t)batch * c->m.dims[c->m.n_layers];
  cudaCheck(cudaMemcpy(c->x, x, in * sizeof(float), cudaMemcpyHostToDevice), e);
  FOX_TRY(mlp_cuda_forward(&c->m, c->x, batch, c->y, e));
  cudaCheck(cudaMemcpy(y, c->y, out * sizeof(float), cudaMemcpyDeviceToHost), e);
  return 0;
}

static int backward_(void *impl, const float *dy, int batch, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  FOX_TRY(stage_(c, batch, e));
  size_t out = (size_t)batch * c->m.dims[c->m.n_layers];
  cudaCheck(cudaMemcpy(c->y, dy, out * sizeof(float), cudaMemcpyHostToDevice), e);
  return mlp_cuda_backward(&c->m, c->y, batch, e);
}

static int zero_grad_(void *impl, struct fox_err *e) {
  return mlp_cuda_zero_grad(&((struct cuda_net_ *)impl)->m, e);
}

static int grad_sqnorm_(void *impl, double *sq, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  float nrm = 0.0f;
  cublasCheck(cublasSnrm2((cublasHandle_t)c->m.blas, (int)c->m.n_params, c->m.g, 1, &nrm), e);
  *sq = (double)nrm * nrm;
  return 0;
}

static int step_(void *impl, double scale, double lr, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  if (scale != 1.0) {
    float s = (float)scale;
    cublasCheck(cublasSscal((cublasHandle_t)c->m.blas, (int)c->m.n_params, &s, c->m.g, 1), e);
  }
  return mlp_cuda_adam(&c->m, lr, c->eps, e);
}

static int blend_(void *dst, const void *src, double tau, struct fox_err *e) {
  struct cuda_net_ *d = (struct cuda_net_ *)dst;
  const struct cuda_net_ *s = (const struct cuda_net_ *)src;
  int n = (int)d->m.n_params;
  if (tau >= 1.0) {
    cudaCheck(cudaMemcpy(d->m.w, s->m.w, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice), e);
    return 0;
  }
  float keep = (float)(1.0 - tau), take = (float)tau;
  cublasHandle_t h = (cublasHandle_t)d->m.blas;
  cublasCheck(cublasSscal(h, n, &keep, d->m.w, 1), e);
  cublasCheck(cublasSaxpy(h, n, &take, s->m.w, 1, d->m.w, 1), e);
  return 0;
}

static int get_adam_(const void *impl, float *m, float *v, long *t, struct fox_err *e) {
  const struct cuda_net_ *c = (const struct cuda_net_ *)impl;
  size_t bytes = c->m.n_params * sizeof(float);
  cudaCheck(cudaMemcpy(m, c->m.adam_m, bytes, cudaMemcpyDeviceToHost), e);
  cudaCheck(cudaMemcpy(v, c->m.adam_v, bytes, cudaMemcpyDeviceToHost), e);
  *t = c->m.adam_t;
  return 0;
}

static int set_adam_(void *impl, const float *m, const float *v, long t, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  size_t bytes = c->m.n_params * sizeof(float);
  cudaCheck(cudaMemcpy(c->m.adam_m, m, bytes, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(c->m.adam_v, v, bytes, cudaMemcpyHostToDevice), e);
  c->m.adam_t = t;
  return 0;
}

extern "C" const struct net_ops net_cuda_ops = {
    "cuda", create_, destroy_, set_params_, get_params_, forward_,
    backward_, zero_grad_, grad_sqnorm_, step_, blend_, get_adam_, set_adam_,
};
