/* The network table's CPU entries (over mlp.c) and the backend-independent helpers. */
#include "agents/net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/mlp.h"
#include "mlp_layout.h"

struct cpu_net_ {
  struct mlp m;
  struct adam opt; /* its moments; the step count and constants are st's */
  struct opt_state st;
};

static int cpu_create_(void **impl, int in, const int *hidden, int n_hidden, int out,
                       int activation, double adam_eps, struct fox_err *e) {
  struct cpu_net_ *c = calloc(1, sizeof *c);
  if (!c)
    return fox_errf(e, FOX_EFAIL, "net: out of memory");
  int rc = mlp_create(&c->m, in, hidden, n_hidden, out, activation, e);
  if (rc == 0)
    rc = adam_create(&c->opt, c->m.n_params, adam_eps, e);
  c->st.eps = adam_eps;
  if (rc != 0) {
    mlp_free(&c->m);
    free(c);
    return rc;
  }
  *impl = c;
  return 0;
}

static void cpu_destroy_(void *impl) {
  struct cpu_net_ *c = impl;
  mlp_free(&c->m);
  adam_free(&c->opt);
  free(c);
}

static int cpu_set_params_(void *impl, const float *host, struct fox_err *e) {
  struct cpu_net_ *c = impl;
  memcpy(c->m.w, host, c->m.n_params * sizeof(float));
  mlp_touch(&c->m);
  return 0;
}

static int cpu_get_params_(const void *impl, float *host, struct fox_err *e) {
  const struct cpu_net_ *c = impl;
  memcpy(host, c->m.w, c->m.n_params * sizeof(float));
  return 0;
}

static int cpu_forward_(void *impl, const float *x, int batch, float *y, struct fox_err *e) {
  return mlp_forward(&((struct cpu_net_ *)impl)->m, x, batch, y, e);
}

static int cpu_backward_(void *impl, const float *dy, int batch, struct fox_err *e) {
  mlp_backward(&((struct cpu_net_ *)impl)->m, dy, batch);
  return 0;
}

static int cpu_zero_grad_(void *impl, struct fox_err *e) {
  mlp_zero_grad(&((struct cpu_net_ *)impl)->m);
  return 0;
}

/* The lanes of opt_step.h, each a strided sum in double (the compiler vectorises across lanes:
 * 16 doubles of 16 lanes per AVX-512 pair), the same order as the CUDA kernel's threads. */
FOX_CLONES static void sqlanes_(const float *restrict g, size_t n, double *restrict lanes,
                                int accumulate) {
  double acc[FOX_SQ_LANES] = {0};
  size_t i = 0;
  for (; i + FOX_SQ_LANES <= n; i += FOX_SQ_LANES)
    for (int k = 0; k < FOX_SQ_LANES; k++)
      acc[k] += (double)g[i + k] * g[i + k];
  for (int k = 0; i + (size_t)k < n; k++)
    acc[k] += (double)g[i + k] * g[i + k];
  for (int k = 0; k < FOX_SQ_LANES; k++)
    lanes[k] = accumulate ? lanes[k] + acc[k] : acc[k];
}

FOX_CLONES static void adam_(float *restrict p, float *restrict m, float *restrict v,
                             const float *restrict g, size_t n, float coef, struct opt_adam a) {
  for (size_t i = 0; i < n; i++)
    opt_adam_elem(&p[i], &m[i], &v[i], g[i], coef, a);
}

static int cpu_clip_step_(void *const *impls, int k, double *lanes, float *coef,
                          double max_norm, struct opt_lr lr, const int64_t *progress,
                          struct fox_err *e) {
  struct opt_state *st[FOX_CLIP_NETS];
  for (int i = 0; i < k; i++) {
    struct cpu_net_ *c = impls[i];
    sqlanes_(c->m.g, c->m.n_params, lanes, i > 0);
    st[i] = &c->st;
  }
  *coef = opt_prepare(lanes, max_norm, lr, progress, st, k);
  for (int i = 0; i < k; i++) {
    struct cpu_net_ *c = impls[i];
    adam_(c->m.w, c->opt.m, c->opt.v, c->m.g, c->m.n_params, *coef, c->st.a);
    mlp_touch(&c->m);
  }
  return 0;
}

static int cpu_blend_(void *dst, const void *src, double tau, const int64_t *count,
                      int64_t every, struct fox_err *e) {
  struct mlp *d = &((struct cpu_net_ *)dst)->m;
  const struct mlp *s = &((const struct cpu_net_ *)src)->m;
  if (!opt_blend_due(count, every))
    return 0;
  mlp_touch(d);
  if (tau >= 1.0) {
    memcpy(d->w, s->w, d->n_params * sizeof(float));
    return 0;
  }
  float t = (float)tau;
  for (size_t i = 0; i < d->n_params; i++)
    d->w[i] = opt_blend_elem(d->w[i], s->w[i], t);
  return 0;
}

static int cpu_get_adam_(const void *impl, float *m, float *v, long *t, struct fox_err *e) {
  const struct cpu_net_ *c = impl;
  memcpy(m, c->opt.m, c->opt.n * sizeof(float));
  memcpy(v, c->opt.v, c->opt.n * sizeof(float));
  *t = (long)c->st.t;
  return 0;
}

static int cpu_set_adam_(void *impl, const float *m, const float *v, long t, struct fox_err *e) {
  struct cpu_net_ *c = impl;
  memcpy(c->opt.m, m, c->opt.n * sizeof(float));
  memcpy(c->opt.v, v, c->opt.n * sizeof(float));
  c->st.t = t;
  return 0;
}

static int cpu_copy_state_(void *dst, const void *src, struct fox_err *e) {
  struct cpu_net_ *d = dst;
  const struct cpu_net_ *c = src;
  memcpy(d->m.w, c->m.w, d->m.n_params * sizeof(float));
  mlp_touch(&d->m);
  memcpy(d->opt.m, c->opt.m, d->opt.n * sizeof(float));
  memcpy(d->opt.v, c->opt.v, d->opt.n * sizeof(float));
  d->st.t = c->st.t;
  return 0;
}

static const float *cpu_params_(const void *impl) {
  return ((const struct cpu_net_ *)impl)->m.w;
}

/* The CPU network grows its buffers when a batch needs them: nothing is queued behind it. */
static int cpu_reserve_(void *impl, int batch, struct fox_err *e) { return 0; }

const struct net_ops net_cpu_ops = {
    "cpu",          cpu_create_,    cpu_destroy_, cpu_set_params_, cpu_get_params_, cpu_forward_,
    cpu_backward_,  cpu_zero_grad_, cpu_clip_step_, cpu_blend_,    cpu_get_adam_,   cpu_set_adam_,
    cpu_params_,    cpu_reserve_,   cpu_copy_state_,
};

int net_create(struct net *n, const struct net_ops *ops, int in, const int *hidden, int n_hidden,
               int out, int activation, double adam_eps, struct fox_err *e) {
  memset(n, 0, sizeof *n);
  if (n_hidden < 0 || n_hidden > FOX_MAX_LAYERS)
    return fox_errf(e, FOX_EUSAGE, "net: %d hidden layers (at most %d)", n_hidden,
                    FOX_MAX_LAYERS);
  FOX_TRY(ops->create(&n->impl, in, hidden, n_hidden, out, activation, adam_eps, e));
  n->ops = ops;
  n->activation = activation;
  n->n_layers = n_hidden + 1;
  n->n_params = mlp_layout(in, hidden, n_hidden, out, n->dims, NULL);
  return 0;
}

void net_free(struct net *n) {
  if (n->ops)
    n->ops->destroy(n->impl);
  memset(n, 0, sizeof *n);
}

int net_init(struct net *n, struct rng *r, int init, double head_gain, struct fox_err *e) {
  struct mlp tmp;
  FOX_TRY(mlp_create(&tmp, n->dims[0], n->dims + 1, n->n_layers - 1, n->dims[n->n_layers],
                     n->activation, e));
  mlp_init(&tmp, r, init, head_gain);
  int rc = n->ops->set_params(n->impl, tmp.w, e);
  mlp_free(&tmp);
  return rc;
}

int net_clip_step(struct net *const *nets, int k, double *lanes, float *coef, double max_norm,
                  struct opt_lr lr, const int64_t *progress, struct fox_err *e) {
  if (k < 1 || k > FOX_CLIP_NETS)
    return fox_errf(e, FOX_EUSAGE, "net: %d networks in one step (1 .. %d)", k, FOX_CLIP_NETS);
  void *impls[FOX_CLIP_NETS];
  for (int i = 0; i < k; i++) {
    if (nets[i]->ops != nets[0]->ops)
      return fox_errf(e, FOX_EUSAGE, "net: one step over networks of two backends");
    impls[i] = nets[i]->impl;
  }
  return nets[0]->ops->clip_step(impls, k, lanes, coef, max_norm, lr, progress, e);
}

int net_get_params(const struct net *n, float *host, struct fox_err *e) {
  return n->ops->get_params(n->impl, host, e);
}

int net_copy_state(struct net *dst, const struct net *src, struct fox_err *e) {
  if (dst->ops != src->ops || dst->n_params != src->n_params ||
      dst->activation != src->activation)
    return fox_errf(e, FOX_EDATA, "net: a %s network of %zu parameters cannot take the state "
                                  "of a %s one of %zu", dst->ops->name, dst->n_params,
                    src->ops->name, src->n_params);
  return dst->ops->copy_state(dst->impl, src->impl, e);
}

int net_set_params(struct net *n, const float *host, struct fox_err *e) {
  return n->ops->set_params(n->impl, host, e);
}

