/* Multi-layer perceptrons on the CPU: Linear -> act -> ... -> Linear (act = ReLU or tanh,
 * kernels/act_step.h), forward and backward on row-major batches through OpenBLAS GEMM, torch's
 * default or CleanRL's orthogonal initialisation, global-norm gradient clipping and Adam. */
#ifndef FOX_MLP_H
#define FOX_MLP_H

#include <stddef.h>

#include "agents/nn_real.h"
#include "config/config.h"
#include "util/error.h"
#include "util/rng.h"

#define FOX_MLP_MAX (FOX_MAX_LAYERS + 1) /* linear layers */

/* Parameters and gradients are flat arrays: for each layer l, W_l [dims[l+1], dims[l]] then
 * b_l [dims[l+1]]. The workspace holds the batch's activations for backward. */
struct NN_(mlp) {
  int n_layers;
  int activation; /* FOX_ACT_* of the hidden layers */
  int dims[FOX_MLP_MAX + 1];
  size_t n_params;
  size_t offset[FOX_MLP_MAX]; /* where W_l starts; b_l follows it */
  fox_real *w, *g;
  int batch_cap;
  fox_real *act[FOX_MLP_MAX + 1]; /* act[l] = output of layer l (act[0] unused) */
  const fox_real *in;             /* the last forward's input, which backward reads */
  fox_real *delta[2];             /* ping-pong buffers for backprop */
  fox_real *wt;                   /* W_l^T, the forward's operand (gemm.h), [n_params] */
  int wt_fresh;                   /* wt holds w's transposes; every writer of w clears it */
};

int NN_(mlp_create)(struct NN_(mlp) *m, int in, const int *hidden, int n_hidden, int out,
                    int act, struct fox_err *e);
void NN_(mlp_free)(struct NN_(mlp) *m);
/* FOX_INIT_DEFAULT: torch's nn.Linear reset_parameters (kaiming_uniform_ with a = sqrt(5),
 * i.e. W and b uniform in +-1/sqrt(fan_in)); head_gain is not used. FOX_INIT_ORTHOGONAL:
 * CleanRL's layer_init, orthogonal weights with gain sqrt(2) on hidden layers and `head_gain`
 * on the last, zero biases. */
void NN_(mlp_init)(struct NN_(mlp) *m, struct rng *r, int init, double head_gain);
/* out [batch, dims[n_layers]]; keeps the activations for mlp_backward, and x itself (not a
 * copy: x must hold the same rows until the backward that follows). */
int NN_(mlp_forward)(struct NN_(mlp) *m, const fox_real *x, int batch, fox_real *out,
                     struct fox_err *e);
/* Accumulates dLoss/dparams into g from dLoss/dout [batch, out] of the first `batch` rows of
 * the last forward (which may have had more: DQN runs s and s' through one forward). */
void NN_(mlp_backward)(struct NN_(mlp) *m, const fox_real *dout, int batch);
void NN_(mlp_zero_grad)(struct NN_(mlp) *m);
/* Says that w was written (forward keeps w's transposes until then): every writer of w outside
 * this file calls it. */
static inline void NN_(mlp_touch)(struct NN_(mlp) *m) { m->wt_fresh = 0; }
/* Scales g so that its global L2 norm is at most max_norm; returns the norm before. */
double NN_(grad_clip)(fox_real *g, size_t n, double max_norm);

/* Adam as PyTorch defines it (bias-corrected moments). */
struct NN_(adam) {
  fox_real *m, *v;
  size_t n;
  double beta1, beta2, eps;
  long t;
};
int NN_(adam_create)(struct NN_(adam) *a, size_t n, double eps, struct fox_err *e);
void NN_(adam_step)(struct NN_(adam) *a, fox_real *restrict params,
                    const fox_real *restrict grads, double lr);
void NN_(adam_free)(struct NN_(adam) *a);

#endif
