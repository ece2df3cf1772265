/* CPU MLP, clipping and Adam; compiled as float for foxopt and as double for gradient checks. */
#include "agents/mlp.h"
#include "mlp_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A trial's GEMMs are small (batch x 64..256): OpenBLAS's thread pool costs more than it
 * gives there (3x slower DQN updates, mostly in the kernel), and trials run side by side
 * for parallelism. One BLAS thread per caller, set once. */
static void blas_single_thread_(void) {
  static int done;
  if (!done) {
    openblas_set_num_threads(1);
    done = 1;
  }
}

int NN_(mlp_create)(struct NN_(mlp) *m, int in, const int *hidden, int n_hidden, int out,
                    int act, struct fox_err *e) {
  blas_single_thread_();
  memset(m, 0, sizeof *m);
  if (n_hidden < 0 || n_hidden > FOX_MAX_LAYERS || in < 1 || out < 1)
    return fox_errf(e, FOX_EUSAGE, "mlp: %d hidden layers (at most %d), in %d, out %d", n_hidden,
                    FOX_MAX_LAYERS, in, out);
  if (act != FOX_ACT_RELU && act != FOX_ACT_TANH)
    return fox_errf(e, FOX_EUSAGE, "mlp: unknown activation %d", act);
  m->activation = act;
  m->n_layers = n_hidden + 1;
  m->n_params = mlp_layout(in, hidden, n_hidden, out, m->dims, m->offset);
  m->w = calloc(m->n_params, sizeof *m->w);
  m->g = calloc(m->n_params, sizeof *m->g);
  if (!m->w || !m->g) {
    NN_(mlp_free)(m);
    return fox_errf(e, FOX_EFAIL, "mlp: out of memory for %zu parameters", m->n_params);
  }
  return 0;
}

void NN_(mlp_free)(struct NN_(mlp) *m) {
  free(m->w);
  free(m->g);
  for (int l = 0; l <= FOX_MLP_MAX; l++)
    free(m->act[l]);
  free(m->delta[0]);
  free(m->delta[1]);
  memset(m, 0, sizeof *m);
}

/* Orthonormal rows or columns of a rows x cols matrix by modified Gram-Schmidt on a Gaussian
 * matrix, signs fixed by R's diagonal as torch.nn.init.orthogonal_ does. */
static void orthogonal_(fox_real *w, int rows, int cols, double gain, struct rng *r) {
  int tall = rows >= cols, n = tall ? rows : cols, k = tall ? cols : rows;
  double *q = malloc((size_t)n * (size_t)k * sizeof *q); /* k columns of length n */
  for (size_t i = 0; i < (size_t)n * (size_t)k; i++)
    q[i] = rng_normal(r);
  for (int j = 0; j < k; j++) {
    double *qj = q + (size_t)j * n;
    for (int p = 0; p < j; p++) {
      double *qp = q + (size_t)p * n, dot = 0;
      for (int i = 0; i < n; i++)
        dot += qp[i] * qj[i];
      for (int i = 0; i < n; i++)
        qj[i] -= dot * qp[i];
    }
    double norm = 0;
    for (int i = 0; i < n; i++)
      norm += qj[i] * qj[i];
    norm = sqrt(norm);
    for (int i = 0; i < n; i++)
      qj[i] /= norm; /* R's diagonal is the positive norm: no sign flip needed */
  }
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      w[(size_t)i * cols + j] =
          (fox_real)(gain * (tall ? q[(size_t)j * n + i] : q[(size_t)i * n + j]));
  free(q);
}

void NN_(mlp_init)(struct NN_(mlp) *m, struct rng *r, int init, double head_gain) {
  for (int l = 0; l < m->n_layers; l++) {
    int out = m->dims[l + 1], in = m->dims[l];
    fox_real *w = m->w + m->offset[l];
    if (init == FOX_INIT_DEFAULT) {
      /* kaiming_uniform_(a = sqrt 5): gain sqrt(2 / (1 + 5)), bound gain sqrt(3 / fan_in) =
       * 1 / sqrt(fan_in); the bias has the same bound. */
      double bound = 1.0 / sqrt((double)in);
      for (size_t i = 0; i < (size_t)out * (in + 1); i++)
        w[i] = (fox_real)(bound * (2.0 * rng_uniform(r) - 1.0));
      continue;
    }
    orthogonal_(w, out, in, l == m->n_layers - 1 ? head_gain : sqrt(2.0), r);
    memset(w + (size_t)out * in, 0, (size_t)out * sizeof *w);
  }
}

static int reserve_(struct NN_(mlp) *m, int batch, struct fox_err *e) {
  if (batch <= m->batch_cap)
    return 0;
  int widest = 0;
  for (int l = 0; l <= m->n_layers; l++) {
    free(m->act[l]);
    m->act[l] = malloc((size_t)batch * m->dims[l] * sizeof(fox_real));
    if (!m->act[l])
      return fox_errf(e, FOX_EFAIL, "mlp: out of memory for a batch of %d", batch);
    widest = m->dims[l] > widest ? m->dims[l] : widest;
  }
  for (int i = 0; i < 2; i++) {
    free(m->delta[i]);
    m->delta[i] = malloc((size_t)batch * widest * sizeof(fox_real));
    if (!m->delta[i])
      return fox_errf(e, FOX_EFAIL, "mlp: out of memory for a batch of %d", batch);
  }
  m->batch_cap = batch;
  return 0;
}

int NN_(mlp_forward)(struct NN_(mlp) *m, const fox_real *x, int batch, fox_real *out,
                     struct fox_err *e) {
  FOX_TRY(reserve_(m, batch, e));
  memcpy(m->act[0], x, (size_t)batch * m->dims[0] * sizeof *x);
  for (int l = 0; l < m->n_layers; l++) {
    int in = m->dims[l], o = m->dims[l + 1];
    const fox_real *w = m->w + m->offset[l], *b = w + (size_t)o * in;
    fox_real *y = m->act[l + 1];
    for (int i = 0; i < batch; i++)
      memcpy(y + (size_t)i * o, b, (size_t)o * sizeof *b);
    /* Y [B, o] += X [B, in] * W^T */
    fox_gemm_(CblasRowMajor, CblasNoTrans, CblasTrans, batch, o, in, 1, m->act[l], in, w, in, 1,
              y, o);
    if (l < m->n_layers - 1) {
      const int act = m->activation;
      for (size_t i = 0; i < (size_t)batch * o; i++)
        y[i] = fox_act_(act, y[i]);
    }
  }
  memcpy(out, m->act[m->n_layers], (size_t)batch * m->dims[m->n_layers] * sizeof *out);
  return 0;
}

void NN_(mlp_backward)(struct NN_(mlp) *m, const fox_real *dout, int batch) {
  int L = m->n_layers;
  fox_real *d = m->delta[0], *dn = m->delta[1];
  memcpy(d, dout, (size_t)batch * m->dims[L] * sizeof *d);
  for (int l = L - 1; l >= 0; l--) {
    int in = m->dims[l], o = m->dims[l + 1];
    const fox_real *w = m->w + m->offset[l];
    fox_real *gw = m->g + m->offset[l], *gb = gw + (size_t)o * in;
    /* dW [o, in] += dY^T [o, B] * X [B, in]; db += column sums of dY */
    fox_gemm_(CblasRowMajor, CblasTrans, CblasNoTrans, o, in, batch, 1, d, o, m->act[l], in, 1,
              gw, in);
    for (int i = 0; i < batch; i++)
      for (int j = 0; j < o; j++)
        gb[j] += d[(size_t)i * o + j];
    if (l == 0)
      break;
    /* dX [B, in] = dY [B, o] * W [o, in], then through the activation of layer l-1 */
    fox_gemm_(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, in, o, 1, d, o, w, in, 0, dn, in);
    const fox_real *h = m->act[l];
    const int act = m->activation;
    for (size_t i = 0; i < (size_t)batch * in; i++)
      dn[i] = fox_act_back_(act, h[i], dn[i]);
    fox_real *t = d;
    d = dn;
    dn = t;
  }
}

void NN_(mlp_zero_grad)(struct NN_(mlp) *m) { memset(m->g, 0, m->n_params * sizeof *m->g); }

double NN_(grad_clip)(fox_real *g, size_t n, double max_norm) {
  double s = 0;
  for (size_t i = 0; i < n; i++)
    s += (double)g[i] * g[i];
  double norm = sqrt(s);
  /* torch.nn.utils.clip_grad_norm_: scale by max_norm / (norm + 1e-6) when it is below 1. */
  double coef = max_norm / (norm + 1e-6);
  if (coef < 1)
    for (size_t i = 0; i < n; i++)
      g[i] = (fox_real)(g[i] * coef);
  return norm;
}

int NN_(adam_create)(struct NN_(adam) *a, size_t n, double eps, struct fox_err *e) {
  memset(a, 0, sizeof *a);
  a->m = calloc(n, sizeof *a->m);
  a->v = calloc(n, sizeof *a->v);
  if (!a->m || !a->v) {
    NN_(adam_free)(a);
    return fox_errf(e, FOX_EFAIL, "adam: out of memory for %zu parameters", n);
  }
  a->n = n;
  a->beta1 = 0.9;
  a->beta2 = 0.999;
  a->eps = eps;
  return 0;
}

void NN_(adam_step)(struct NN_(adam) *a, fox_real *restrict p, const fox_real *restrict g,
                    double lr) {
  a->t++;
  double c1 = 1 - pow(a->beta1, (double)a->t), c2 = 1 - pow(a->beta2, (double)a->t);
  /* In the parameters' precision so that the loop vectorises (it was a fifth of a DQN run in
   * double): torch's p -= lr/c1 * m / (sqrt(v)/sqrt(c2) + eps). */
  const fox_real b1 = (fox_real)a->beta1, b2 = (fox_real)a->beta2, step = (fox_real)(lr / c1);
  const fox_real isc2 = (fox_real)(1.0 / sqrt(c2)), eps = (fox_real)a->eps;
  fox_real *restrict m = a->m, *restrict v = a->v;
  for (size_t i = 0; i < a->n; i++) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= step * m[i] / (fox_sqrt_(v[i]) * isc2 + eps);
  }
}

void NN_(adam_free)(struct NN_(adam) *a) {
  free(a->m);
  free(a->v);
  memset(a, 0, sizeof *a);
}
