/* CPU MLP, clipping and Adam; compiled as float for foxopt and as double for gradient checks. */
#include "agents/mlp.h"
#include "agents/gemm.h"
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
  m->wt = calloc(m->n_params, sizeof *m->wt);
  if (!m->w || !m->g || !m->wt) {
    size_t n = m->n_params; /* mlp_free zeroes it */
    NN_(mlp_free)(m);
    return fox_errf(e, FOX_EFAIL, "mlp: out of memory for %zu parameters", n);
  }
  return 0;
}

void NN_(mlp_free)(struct NN_(mlp) *m) {
  free(m->w);
  free(m->g);
  free(m->wt);
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
  NN_(mlp_touch)(m);
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
  int widest = m->dims[0];
  for (int l = 1; l <= m->n_layers; l++) {
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

/* wt [in, o] = w^T of a layer's w [o, in], in 16 x 16 tiles that stay in cache. */
static void transpose_(const fox_real *restrict w, int o, int in, fox_real *restrict wt) {
  enum { T = 16 };
  for (int i0 = 0; i0 < o; i0 += T)
    for (int j0 = 0; j0 < in; j0 += T) {
      int i1 = i0 + T < o ? i0 + T : o, j1 = j0 + T < in ? j0 + T : in;
      for (int j = j0; j < j1; j++)
        for (int i = i0; i < i1; i++)
          wt[(size_t)j * o + i] = w[(size_t)i * in + j];
    }
}

/* y [rows, cols] = act(y + b) on a hidden layer, y + b on the output layer (act < 0). The
 * activation is chosen outside the loops so that each one vectorises. */
FOX_CLONES static void bias_act_(fox_real *restrict y, const fox_real *restrict b, int rows,
                                 int cols, int act) {
  for (int i = 0; i < rows; i++) {
    fox_real *r = y + (size_t)i * cols;
    if (act == FOX_ACT_TANH)
      for (int j = 0; j < cols; j++)
        r[j] = fox_act_(FOX_ACT_TANH, r[j] + b[j]);
    else if (act == FOX_ACT_RELU)
      for (int j = 0; j < cols; j++)
        r[j] = fox_act_(FOX_ACT_RELU, r[j] + b[j]);
    else
      for (int j = 0; j < cols; j++)
        r[j] += b[j];
  }
}

/* d = dLoss/dz from dLoss/dy and the outputs h, in place. */
FOX_CLONES static void act_back_(fox_real *restrict d, const fox_real *restrict h, size_t n,
                                 int act) {
  if (act == FOX_ACT_TANH)
    for (size_t i = 0; i < n; i++)
      d[i] = fox_act_back_(FOX_ACT_TANH, h[i], d[i]);
  else
    for (size_t i = 0; i < n; i++)
      d[i] = fox_act_back_(FOX_ACT_RELU, h[i], d[i]);
}

/* gb [cols] += column sums of d [rows, cols], rows in order. */
FOX_CLONES static void bias_grad_(fox_real *restrict gb, const fox_real *restrict d, int rows,
                                  int cols) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      gb[j] += d[(size_t)i * cols + j];
}

int NN_(mlp_forward)(struct NN_(mlp) *m, const fox_real *x, int batch, fox_real *out,
                     struct fox_err *e) {
  FOX_TRY(reserve_(m, batch, e));
  /* The input is read where it lies: a copy for backward was 2-3% of a PPO run (the callers'
   * minibatches and replay batches stay put until their backward). */
  m->in = x;
  for (int l = 0; l < m->n_layers; l++) {
    int in = m->dims[l], o = m->dims[l + 1];
    const fox_real *w = m->w + m->offset[l], *b = w + (size_t)o * in;
    fox_real *wt = m->wt + m->offset[l];
    if (!m->wt_fresh)
      transpose_(w, o, in, wt);
    NN_(gemm_xwt)(batch, in, o, l ? m->act[l] : x, wt, m->act[l + 1]); /* Y = X W^T */
    bias_act_(m->act[l + 1], b, batch, o, l < m->n_layers - 1 ? m->activation : -1);
  }
  m->wt_fresh = 1;
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
    NN_(gemm_dw)(batch, in, o, d, l ? m->act[l] : m->in, gw); /* dW += dY^T X */
    bias_grad_(gb, d, batch, o);
    if (l == 0)
      break;
    /* dX = dY W, then through the activation of layer l-1 */
    NN_(gemm_dx)(batch, in, o, d, w, dn);
    act_back_(dn, m->act[l], (size_t)batch * in, m->activation);
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

FOX_CLONES static void adam_(struct NN_(adam) *a, fox_real *restrict p,
                              const fox_real *restrict g, double scale, double lr) {
  a->t++;
  double c1 = 1 - pow(a->beta1, (double)a->t), c2 = 1 - pow(a->beta2, (double)a->t);
  /* In the parameters' precision so that the loop vectorises (it was a fifth of a DQN run in
   * double): torch's p -= lr/c1 * m / (sqrt(v)/sqrt(c2) + eps). */
  const fox_real b1 = (fox_real)a->beta1, b2 = (fox_real)a->beta2, step = (fox_real)(lr / c1);
  const fox_real isc2 = (fox_real)(1.0 / sqrt(c2)), eps = (fox_real)a->eps;
  fox_real *restrict m = a->m, *restrict v = a->v;
  if (scale != 1.0) {
    /* clip_grad_norm_ scales the gradients in place, then Adam reads them: the same floats. */
    for (size_t i = 0; i < a->n; i++) {
      fox_real gi = (fox_real)(g[i] * scale);
      m[i] = b1 * m[i] + (1 - b1) * gi;
      v[i] = b2 * v[i] + (1 - b2) * gi * gi;
      p[i] -= step * m[i] / (fox_sqrt_(v[i]) * isc2 + eps);
    }
    return;
  }
  for (size_t i = 0; i < a->n; i++) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
    p[i] -= step * m[i] / (fox_sqrt_(v[i]) * isc2 + eps);
  }
}

void NN_(adam_step)(struct NN_(adam) *a, fox_real *restrict p, const fox_real *restrict g,
                    double lr) {
  adam_(a, p, g, 1.0, lr);
}

void NN_(adam_free)(struct NN_(adam) *a) {
  free(a->m);
  free(a->v);
  memset(a, 0, sizeof *a);
}
