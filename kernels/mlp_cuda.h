/* The MLP on a CUDA device: cuBLAS GEMMs plus small fused kernels (bias + activation, the
 * activation's backward, bias gradients, Adam), with the CPU twin's layout and semantics
 * (src/agents/mlp.h; the activations are act_step.h's, the same floats), so that a test can
 * load the same parameters into both and compare. All arrays live on the device. */
#ifndef FOX_MLP_CUDA_H
#define FOX_MLP_CUDA_H

#include <stddef.h>

#include "opt_step.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FOX_MLP_CUDA_MAX 9

struct mlp_cuda {
  int n_layers;
  int activation; /* FOX_ACT_* */
  int dims[FOX_MLP_CUDA_MAX + 1];
  size_t n_params;
  size_t offset[FOX_MLP_CUDA_MAX];
  float *w, *g; /* device, CPU layout: W_l [dims[l+1], dims[l]] then b_l */
  int batch_cap;
  float *act[FOX_MLP_CUDA_MAX + 1], *delta[2];
  const float *input; /* the last forward's x, which backward reads */
  void *blas;         /* cublasHandle_t */
  float *adam_m, *adam_v;
  struct opt_state *st; /* device: Adam's step count and its latest constants */
};

int mlp_cuda_create(struct mlp_cuda *m, int in, const int *hidden, int n_hidden, int out,
                    int activation, double adam_eps, struct fox_err *e);
void mlp_cuda_free(struct mlp_cuda *m);
/* Parameters and gradients to and from host arrays of n_params floats. */
int mlp_cuda_set_params(struct mlp_cuda *m, const float *host, struct fox_err *e);
int mlp_cuda_get_params(const struct mlp_cuda *m, float *host, struct fox_err *e);
int mlp_cuda_get_grads(const struct mlp_cuda *m, float *host, struct fox_err *e);
/* Activation buffers for batches of up to `batch` rows. forward grows them when a batch needs
 * more, after waiting for the thread's stream (the old ones may still be in use): reserve the
 * largest batch first, and nothing waits. */
int mlp_cuda_reserve(struct mlp_cuda *m, int batch, struct fox_err *e);
/* x [batch, in] and out [batch, out] are device arrays, row-major like the CPU twin. */
int mlp_cuda_forward(struct mlp_cuda *m, const float *x, int batch, float *out,
                     struct fox_err *e);
int mlp_cuda_backward(struct mlp_cuda *m, const float *dout, int batch, struct fox_err *e);
int mlp_cuda_zero_grad(struct mlp_cuda *m, struct fox_err *e);
/* One optimiser step of k <= FOX_CLIP_NETS networks together: the gradients' squared norm as
 * opt_step.h's lanes (device [FOX_SQ_LANES] doubles), the clip coefficient (device float),
 * each network's step count and Adam constants at the learning rate of *progress (device;
 * NULL: 0), then Adam on each. Nothing returns to the host; nothing here comes from it but the
 * schedule's constants. */
int mlp_cuda_clip_step(struct mlp_cuda *const *nets, int k, double *lanes, float *coef,
                       double max_norm, struct opt_lr lr, const int64_t *progress,
                       struct fox_err *e);
/* dst = tau src + (1 - tau) dst over the parameters (opt_step.h's element; tau 1: a copy)
 * whenever *count (device) is a multiple of every; count NULL: always. */
int mlp_cuda_blend(struct mlp_cuda *dst, const struct mlp_cuda *src, float tau,
                   const int64_t *count, int64_t every, struct fox_err *e);
/* Adam's moments (host arrays of n_params floats) and step count, for checkpoints. */
int mlp_cuda_get_adam(const struct mlp_cuda *m, float *mom, float *vel, long *t,
                      struct fox_err *e);
int mlp_cuda_set_adam(struct mlp_cuda *m, const float *mom, const float *vel, long t,
                      struct fox_err *e);
/* dst's parameters, Adam's moments and step count from src (same shape), copied on the device
 * in the thread's stream. */
int mlp_cuda_copy_state(struct mlp_cuda *dst, const struct mlp_cuda *src, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
