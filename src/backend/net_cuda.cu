/* The network table's CUDA entries: the CUDA MLP on device arrays; nothing here waits for the
 * device or copies to the host but get_params/get_adam (checkpoints, trial.h5). */
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "agents/net.h"
#include "cuda_check.h"
#include "mlp_cuda.h"

struct cuda_net_ {
  struct mlp_cuda m;
};

static int create_(void **impl, int in, const int *hidden, int n_hidden, int out,
                   int activation, double eps, struct fox_err *e) {
  struct cuda_net_ *c = (struct cuda_net_ *)calloc(1, sizeof *c);
  if (!c)
    return fox_errf(e, FOX_EFAIL, "net: out of memory");
  int rc = mlp_cuda_create(&c->m, in, hidden, n_hidden, out, activation, eps, e);
  if (rc != 0) {
    free(c);
    return rc;
  }
  *impl = c;
  return 0;
}

static void destroy_(void *impl) {
  struct cuda_net_ *c = (struct cuda_net_ *)impl;
  mlp_cuda_free(&c->m);
  free(c);
}

static int set_params_(void *impl, const float *host, struct fox_err *e) {
  return mlp_cuda_set_params(&((struct cuda_net_ *)impl)->m, host, e);
}

static int get_params_(const void *impl, float *host, struct fox_err *e) {
  return mlp_cuda_get_params(&((const struct cuda_net_ *)impl)->m, host, e);
}

static int forward_(void *impl, const float *x, int batch, float *y, struct fox_err *e) {
  return mlp_cuda_forward(&((struct cuda_net_ *)impl)->m, x, batch, y, e);
}

static int backward_(void *impl, const float *dy, int batch, struct fox_err *e) {
  return mlp_cuda_backward(&((struct cuda_net_ *)impl)->m, dy, batch, e);
}

static int zero_grad_(void *impl, struct fox_err *e) {
  return mlp_cuda_zero_grad(&((struct cuda_net_ *)impl)->m, e);
}

static int clip_step_(void *const *impls, int k, double *lanes, float *coef, double max_norm,
                      struct opt_lr lr, const int64_t *progress, struct fox_err *e) {
  struct mlp_cuda *nets[FOX_CLIP_NETS];
  for (int i = 0; i < k && i < FOX_CLIP_NETS; i++)
    nets[i] = &((struct cuda_net_ *)impls[i])->m;
  return mlp_cuda_clip_step(nets, k, lanes, coef, max_norm, lr, progress, e);
}

static int blend_(void *dst, const void *src, double tau, const int64_t *count, int64_t every,
                  struct fox_err *e) {
  return mlp_cuda_blend(&((struct cuda_net_ *)dst)->m, &((const struct cuda_net_ *)src)->m,
                        (float)tau, count, every, e);
}

static int get_adam_(const void *impl, float *m, float *v, long *t, struct fox_err *e) {
  return mlp_cuda_get_adam(&((const struct cuda_net_ *)impl)->m, m, v, t, e);
}

static int set_adam_(void *impl, const float *m, const float *v, long t, struct fox_err *e) {
  return mlp_cuda_set_adam(&((struct cuda_net_ *)impl)->m, m, v, t, e);
}

static int copy_state_(void *dst, const void *src, struct fox_err *e) {
  return mlp_cuda_copy_state(&((struct cuda_net_ *)dst)->m, &((const struct cuda_net_ *)src)->m,
                             e);
}

static const float *params_(const void *impl) {
  return ((const struct cuda_net_ *)impl)->m.w;
}

static int reserve_(void *impl, int batch, struct fox_err *e) {
  return mlp_cuda_reserve(&((struct cuda_net_ *)impl)->m, batch, e);
}

struct mlp_cuda *cuda_net_mlp(const struct net *n) { return &((struct cuda_net_ *)n->impl)->m; }

extern "C" const struct net_ops net_cuda_ops = {
    "cuda",     create_,    destroy_,   set_params_, get_params_, forward_, backward_,
    zero_grad_, clip_step_, blend_,     get_adam_,   set_adam_,   params_,  reserve_,
    copy_state_,
};
