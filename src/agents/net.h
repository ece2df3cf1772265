/* A network on a backend: the CPU MLP (mlp.c) or the CUDA one (kernels/mlp_cuda.cu) behind one
 * table, so that the agents' code does not know where its GEMMs run. Inputs and outputs of
 * forward/backward, the clipping's lanes and coefficient are arrays in the backend's memory
 * (host memory on the CPU, device memory on CUDA): a training step never leaves the device.
 * Parameters and Adam's state cross to the host only through get/set (checkpoints, trial.h5). */
#ifndef FOX_NET_H
#define FOX_NET_H

#include <stddef.h>

#include "config/config.h"
#include "opt_step.h"
#include "util/error.h"
#include "util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

struct net_ops {
  const char *name;
  int (*create)(void **impl, int in, const int *hidden, int n_hidden, int out, int activation,
                double adam_eps, struct fox_err *e);
  void (*destroy)(void *impl);
  int (*set_params)(void *impl, const float *host, struct fox_err *e);
  int (*get_params)(const void *impl, float *host, struct fox_err *e);
  int (*forward)(void *impl, const float *x, int batch, float *y, struct fox_err *e);
  /* Accumulates gradients from dLoss/dy of the last forward. */
  int (*backward)(void *impl, const float *dy, int batch, struct fox_err *e);
  int (*zero_grad)(void *impl, struct fox_err *e);
  /* One optimiser step of k networks of this kind together (k <= FOX_CLIP_NETS; one global
   * norm, as clip_grad_norm_ over all their parameters): the gradients' squared norm as
   * FOX_SQ_LANES partial sums (opt_step.h) into lanes, clip_grad_norm_'s coefficient into coef
   * (both backend scratch), then each network's Adam step on its gradients times coef, its
   * step count advanced where it keeps it and the learning rate lr's at *progress (backend
   * memory; NULL: 0). Nothing returns to the host. */
  int (*clip_step)(void *const *impls, int k, double *lanes, float *coef, double max_norm,
                   struct opt_lr lr, const int64_t *progress, struct fox_err *e);
  /* dst = tau src + (1 - tau) dst over the parameters (tau 1: a copy) when *count (backend
   * memory) is a multiple of every: the decision is the backend's, so a captured step holds
   * it; count NULL: now. */
  int (*blend)(void *dst, const void *src, double tau, const int64_t *count, int64_t every,
               struct fox_err *e);
  /* Adam's moments (host arrays of n_params floats) and step count, for checkpoints. */
  int (*get_adam)(const void *impl, float *m, float *v, long *t, struct fox_err *e);
  int (*set_adam)(void *impl, const float *m, const float *v, long t, struct fox_err *e);
  /* The parameters where the network keeps them (backend memory, mlp_layout.h's layout). */
  const float *(*params)(const void *impl);
  /* Room for batches of up to `batch` rows, made now: on a device a later growth would free
   * buffers that queued work still uses (and could not happen inside a captured graph). */
  int (*reserve)(void *impl, int batch, struct fox_err *e);
  /* Parameters, Adam's moments and step count from src, a network of this kind and shape,
   * copied within the backend (no host wait): what set_params and set_adam would write from
   * src's get_params and get_adam, for a PBT member continuing from a state this process
   * still holds. */
  int (*copy_state)(void *dst, const void *src, struct fox_err *e);
};

struct net {
  const struct net_ops *ops;
  void *impl;
  int activation; /* FOX_ACT_* (kernels/act_step.h) of the hidden layers */
  int n_layers;
  int dims[FOX_MAX_LAYERS + 2];
  size_t n_params;
};

extern const struct net_ops net_cpu_ops;
extern const struct net_ops net_cuda_ops; /* in CUDA builds only (src/backend/net_cuda.cu) */

int net_create(struct net *n, const struct net_ops *ops, int in, const int *hidden, int n_hidden,
               int out, int activation, double adam_eps, struct fox_err *e);
void net_free(struct net *n);
/* Initial weights (mlp_init: FOX_INIT_DEFAULT = torch's nn.Linear, FOX_INIT_ORTHOGONAL =
 * CleanRL's layer_init with head_gain on the last layer), drawn on the host from r. */
int net_init(struct net *n, struct rng *r, int init, double head_gain, struct fox_err *e);
static inline int net_reserve(struct net *n, int batch, struct fox_err *e) {
  return n->ops->reserve(n->impl, batch, e);
}
static inline int net_forward(struct net *n, const float *x, int batch, float *y,
                              struct fox_err *e) {
  return n->ops->forward(n->impl, x, batch, y, e);
}
static inline int net_backward(struct net *n, const float *dy, int batch, struct fox_err *e) {
  return n->ops->backward(n->impl, dy, batch, e);
}
static inline int net_zero_grad(struct net *n, struct fox_err *e) {
  return n->ops->zero_grad(n->impl, e);
}
/* clip_grad_norm_ over all k networks together (one global norm), then Adam on each at the
 * learning rate lr's at *progress (NULL: 0); lanes [FOX_SQ_LANES] and coef [1] are the caller's
 * scratch in the backend's memory. */
int net_clip_step(struct net *const *nets, int k, double *lanes, float *coef, double max_norm,
                  struct opt_lr lr, const int64_t *progress, struct fox_err *e);
static inline int net_blend(struct net *dst, const struct net *src, double tau,
                            struct fox_err *e) {
  return dst->ops->blend(dst->impl, src->impl, tau, NULL, 0, e);
}
/* The blend when *count (backend memory) is a multiple of every. */
static inline int net_blend_every(struct net *dst, const struct net *src, double tau,
                                  const int64_t *count, int64_t every, struct fox_err *e) {
  return dst->ops->blend(dst->impl, src->impl, tau, count, every, e);
}
int net_get_params(const struct net *n, float *host, struct fox_err *e);
/* Adam's moments and step count (host arrays of n_params floats), for checkpoints. */
static inline int net_get_adam(const struct net *n, float *m, float *v, long *t,
                               struct fox_err *e) {
  return n->ops->get_adam(n->impl, m, v, t, e);
}
static inline int net_set_adam(struct net *n, const float *m, const float *v, long t,
                               struct fox_err *e) {
  return n->ops->set_adam(n->impl, m, v, t, e);
}
int net_set_params(struct net *n, const float *host, struct fox_err *e);
/* dst takes src's parameters and Adam state (same ops and shape, else FOX_EDATA). */
int net_copy_state(struct net *dst, const struct net *src, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
